//! Generation statistics as `pbebench generate --stats-json` writes them
//! (`{"params": …, "stats": …}`), or the authors' `generation_stats.json`
//! (`total_generated`, `total_accepted`, `category_distribution`, …).

use pbebench::generate::kl_from_uniform;
use pbebench::Category;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the report needs from one generation run.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationStats {
    /// Name in legends: the file stem.
    pub label: String,
    /// The file read.
    pub path: PathBuf,
    /// Patience τ, when known (the authors' files do not record it).
    pub patience: Option<u64>,
    /// Preset or dataset name, when known.
    pub name: Option<String>,
    /// Attempts.
    pub attempts: u64,
    /// Accepted instances.
    pub accepted: u64,
    /// `accepted / attempts`.
    pub efficiency: f64,
    /// KL divergence of the category balance from uniform, per cascade length.
    pub kl_by_length: BTreeMap<usize, f64>,
    /// The same over all lengths.
    pub kl_overall: f64,
    /// Seconds, when known.
    pub seconds: Option<f64>,
}

/// A generation statistics file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct GenStatsError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

/// Reads either format.
impl GenerationStats {
    /// Reads a statistics file: `pbebench generate --stats-json`, or the authors'
    /// `generation_stats.json`.
    pub fn read(path: &Path) -> Result<GenerationStats, GenStatsError> {
        read(path)
    }
}

fn read(path: &Path) -> Result<GenerationStats, GenStatsError> {
    let err = |message: String| GenStatsError {
        path: path.to_path_buf(),
        message,
    };
    let text = pbebench_io::read_input_string(path).map_err(|e| err(e.to_string()))?;
    if text.trim().is_empty() {
        return Err(err("the file is empty".to_owned()));
    }
    let value: Value =
        serde_json::from_str(&text).map_err(|e| err(format!("malformed JSON: {e}")))?;
    let label = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(stats) = value.get("stats") {
        let num = |v: &Value, key: &str| v.get(key).and_then(Value::as_f64);
        let attempts = num(stats, "attempts")
            .ok_or_else(|| err("'stats.attempts' is missing".to_owned()))?
            as u64;
        let accepted = num(stats, "accepted")
            .ok_or_else(|| err("'stats.accepted' is missing".to_owned()))?
            as u64;
        let kl_by_length = stats
            .get("kl_by_length")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_f64()?)))
                    .collect()
            })
            .unwrap_or_default();
        return Ok(GenerationStats {
            label,
            path: path.to_path_buf(),
            patience: value.pointer("/params/patience").and_then(Value::as_u64),
            name: value
                .pointer("/params/name")
                .and_then(Value::as_str)
                .map(str::to_owned),
            attempts,
            accepted,
            efficiency: ratio(accepted, attempts),
            kl_by_length,
            kl_overall: num(stats, "kl_overall").unwrap_or(f64::NAN),
            seconds: num(stats, "seconds"),
        });
    }
    if let (Some(total), Some(accepted)) = (
        value.get("total_generated").and_then(Value::as_u64),
        value.get("total_accepted").and_then(Value::as_u64),
    ) {
        let mut counts = [0u64; 16];
        if let Some(m) = value
            .get("category_distribution")
            .and_then(Value::as_object)
        {
            for (k, v) in m {
                let c: Category = k
                    .parse()
                    .map_err(|e| err(format!("category_distribution: {e}")))?;
                counts[c.index()] += v.as_u64().unwrap_or(0);
            }
        }
        let kl_overall = kl_from_uniform(&counts);
        // The authors record categories over all lengths only; with a single length
        // they are that length's.
        let lengths: Vec<usize> = value
            .get("cascade_distribution")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter(|(_, v)| v.as_u64().unwrap_or(0) > 0)
                    .filter_map(|(k, _)| k.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let kl_by_length = if lengths.len() == 1 {
            BTreeMap::from([(lengths[0], kl_overall)])
        } else {
            BTreeMap::new()
        };
        return Ok(GenerationStats {
            label,
            path: path.to_path_buf(),
            patience: None,
            name: None,
            attempts: total,
            accepted,
            efficiency: ratio(accepted, total),
            kl_by_length,
            kl_overall,
            seconds: None,
        });
    }
    Err(err(
        "not generation statistics (expected `pbebench generate --stats-json` output or the authors' generation_stats.json)".to_owned(),
    ))
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_authors_file() {
        let p = pbebench_testdata::path("generation_stats.json");
        let g = read(&p).unwrap();
        assert_eq!(g.accepted, 64);
        assert_eq!(g.attempts, 144670);
        assert!(g.patience.is_none());
        // 64 instances all in category 1111: far from uniform.
        assert!(g.kl_overall > 1.0);
        assert_eq!(g.kl_by_length.keys().copied().collect::<Vec<_>>(), vec![30]);
    }

    #[test]
    fn rejects_other_json() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.json");
        std::fs::write(&p, "{\"a\": 1}").unwrap();
        assert!(read(&p)
            .unwrap_err()
            .to_string()
            .contains("not generation statistics"));
        std::fs::write(&p, "").unwrap();
        assert!(read(&p).unwrap_err().to_string().contains("empty"));
    }
}
