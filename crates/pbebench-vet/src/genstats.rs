//! Generation statistics as `pbebench generate --stats-json` writes them
//! ([`StatsFile`]: `{"params": …, "stats": …}`; a vetted preset's [`VettedStatsFile`] adds
//! `vet`), or the authors' `generation_stats.json` (`total_generated`, `total_accepted`,
//! `category_distribution`, …).

use crate::vet::VetSummary;
use pbebench::generate::{kl_from_uniform, to_sorted_json, StatsFile};
use pbebench::Category;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The statistics file of a vetted preset (`pbebench generate --preset lite-vetted
/// --stats-json`): the generation's [`StatsFile`] and, under `vet`, the vetting's summary.
/// [`GenerationStats::read`] reads it as the generation's.
#[derive(Debug, Clone, Serialize)]
pub struct VettedStatsFile {
    /// The generation's parameters and statistics.
    #[serde(flatten)]
    pub generation: StatsFile,
    /// What the vetting did.
    pub vet: VetSummary,
}

impl VettedStatsFile {
    /// The file's text, as [`StatsFile::to_json`] writes it (keys in alphabetical order).
    pub fn to_json(&self) -> String {
        to_sorted_json(self)
    }
}

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
    if value.get("stats").is_some() {
        let file: StatsFile = serde_json::from_value(value).map_err(|e| {
            err(format!(
                "not the statistics `pbebench generate --stats-json` writes: {e}"
            ))
        })?;
        let (params, stats) = (file.params, file.stats);
        return Ok(GenerationStats {
            label,
            path: path.to_path_buf(),
            patience: Some(params.patience),
            name: Some(params.name),
            attempts: stats.attempts,
            accepted: stats.accepted,
            efficiency: ratio(stats.accepted, stats.attempts),
            kl_by_length: stats.kl_by_length,
            kl_overall: stats.kl_overall,
            seconds: Some(stats.seconds),
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

    /// What `pbebench generate --stats-json` writes, of a plain or a vetted preset, reads
    /// back with the run's figures; a file missing one of them is refused, naming it.
    #[test]
    fn reads_our_files() {
        let mut params = pbebench::generate::Preset::Lite.params();
        params.size = 16;
        let stats = pbebench::generate::generate(&params, &(), &mut |_| Ok(())).unwrap();
        let file = StatsFile { params, stats };
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.json");
        std::fs::write(&plain, file.to_json()).unwrap();
        let vetted = dir.path().join("vetted.json");
        let with_vet = VettedStatsFile {
            generation: file.clone(),
            vet: VetSummary {
                instances: 16,
                kept: 15,
                replaced: 1,
                dropped: 1,
                dropped_by_length: BTreeMap::from([(3, 1)]),
                dropped_slots: vec![crate::vet::DroppedSlot {
                    id: "x".to_owned(),
                    cascade_len: 3,
                    reason: "ambiguous at 12".to_owned(),
                }],
                reasons: BTreeMap::from([("ambiguous at 12".to_owned(), 2)]),
                added_per_instance: BTreeMap::from([(0, 15)]),
                added: 0,
                resumed: 0,
                replacements_possible: true,
                stats: pbebench::DatasetStats::default(),
                journal_failure: None,
            },
        };
        std::fs::write(&vetted, with_vet.to_json()).unwrap();
        for path in [&plain, &vetted] {
            let g = read(path).unwrap();
            assert_eq!((g.accepted, g.attempts), (16, file.stats.attempts));
            assert_eq!(g.patience, Some(file.params.patience));
            assert_eq!(g.kl_by_length, file.stats.kl_by_length);
        }
        let text = file.to_json().replace("\"kl_overall\"", "\"kl\"");
        std::fs::write(&plain, text).unwrap();
        let e = read(&plain).unwrap_err().to_string();
        assert!(e.contains("missing field `kl_overall`"), "{e}");
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
