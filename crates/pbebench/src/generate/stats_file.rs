//! The generation statistics file (`pbebench generate --stats-json`, the demo's patience
//! sweep): one object holding the run's parameters under `params` ([`GenParams`]) and its
//! figures under `stats` ([`GenStats`]), written by [`StatsFile::to_json`] and read by
//! [`StatsFile::from_json`]. A vetted preset's file has the vetting's summary under `vet`
//! beside them, which this reader passes over.
//!
//! Its keys are in alphabetical order at every level, as the file has always been written
//! (through a JSON tree), and it ends with a newline.

use super::{GenParams, GenStats};
use serde::{Deserialize, Serialize};

/// What a generation statistics file holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StatsFile {
    /// The parameters generated with.
    pub params: GenParams,
    /// What the run did.
    pub stats: GenStats,
}

impl StatsFile {
    /// The file's text: pretty-printed JSON, keys in alphabetical order, a final newline.
    pub fn to_json(&self) -> String {
        to_sorted_json(self)
    }

    /// Reads the text of a statistics file.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// `value` as a statistics file writes it: pretty-printed through a JSON tree (whose maps
/// keep their keys sorted), and a final newline. For the files that hold a [`StatsFile`]
/// and more (a vetted preset's).
pub fn to_sorted_json(value: &impl Serialize) -> String {
    let tree = serde_json::to_value(value).expect("statistics serialise");
    serde_json::to_string_pretty(&tree).expect("a JSON tree serialises") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{generate, Preset};

    /// What is written reads back to the same bytes, keys sorted; a file written before
    /// `pattern_draw` was a parameter reads with the draw of then (substrings).
    #[test]
    fn statistics_read_back() {
        let mut params = Preset::Lite.params();
        params.size = 16;
        params.patience = 3;
        let stats = generate(&params, &(), &mut |_| Ok(())).unwrap();
        assert!(!stats.rejections.is_empty());
        let file = StatsFile { params, stats };
        let text = file.to_json();
        assert!(
            text.starts_with("{\n  \"params\": {\n    \"alphabet\": ["),
            "{text}"
        );
        assert!(text.ends_with("}\n"));
        let read = StatsFile::from_json(&text).unwrap();
        assert_eq!(read.params, file.params);
        assert_eq!(read.stats.kl_by_length, file.stats.kl_by_length);
        assert_eq!(read.to_json(), text);
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        let draw = old["params"]
            .as_object_mut()
            .unwrap()
            .remove("pattern_draw");
        assert_eq!(draw, Some("substring".into()));
        let old = StatsFile::from_json(&old.to_string()).unwrap();
        assert_eq!(old.to_json(), text);
        let e = StatsFile::from_json(r#"{"params": {}, "stats": {}}"#).unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
    }
}
