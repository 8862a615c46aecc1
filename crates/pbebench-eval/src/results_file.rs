//! `RUN_DIR/results.json`, an evaluation run's results file, written and read here: by
//! [`evaluate`](crate::evaluate) and [`rescore`](crate::rescore) (which write it), `pbebench
//! eval --format json` (which prints it), and `pbebench report` and `compare` (which read it).
//!
//! The file is pbebench's [`Results`] (`format_version` 2: the scores, and the run's own
//! figures under `run`) and, for an interactive run, the episodes' grades under
//! `interactive` ([`InteractiveResults`]). Its keys are in alphabetical order at every
//! level, as the file has always been written (through a JSON tree), and it has no final
//! newline. The reader also takes a results file of `pbebench score` and every older shape
//! [`Results::from_value`] reads (format 1, an evaluation run's `{"run", "scores"}`).
//!
//! A run on a reordering set writes [`ReorderRunFile`] instead (`"task": "reorder"`: the
//! summary `pbebench score` gives a reordering set, and the same `run` figures), and its
//! `per-instance.jsonl` holds the lines `pbebench score --per-instance` writes for one.

use crate::episode::grade::InteractiveResults;
use crate::error::EvalError;
use crate::reorder::{OrderEpisodes, ReorderResults};
use crate::runner::RunOutcome;
use crate::scoring::RunResults;
use pbebench::reorder::{OrderInstanceScore, OrderSummary};
use pbebench::{BlockChoice, Results, RunFigures};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The name of the results file in a run directory.
pub const RESULTS_FILE: &str = "results.json";

/// The name of the run's per-instance lines (its samples and figures, one line per
/// instance, as `pbebench score --per-instance` writes them), so that `pbebench compare
/// RUN_A RUN_B` pairs two runs by instance.
pub const PER_INSTANCE_FILE: &str = "per-instance.jsonl";

/// Writes `PER_INSTANCE_FILE` into `run_dir` (atomically), returning its path.
pub(crate) fn write_per_instance(
    run_dir: &Path,
    scores: &[pbebench::InstanceScore],
) -> Result<PathBuf, EvalError> {
    let path = run_dir.join(PER_INSTANCE_FILE);
    let mut text = Vec::new();
    pbebench::write_score_lines(&mut text, scores).expect("writing to memory");
    pbebench_io::write_atomic(&path, &text).map_err(|source| EvalError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// Writes the per-instance lines of a reordering run into `run_dir` (atomically).
pub(crate) fn write_order_per_instance(
    run_dir: &Path,
    scores: &[OrderInstanceScore],
) -> Result<PathBuf, EvalError> {
    let path = run_dir.join(PER_INSTANCE_FILE);
    let mut text = Vec::new();
    pbebench::reorder::write_order_score_lines(&mut text, scores).expect("writing to memory");
    write_file(&path, &text)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<PathBuf, EvalError> {
    pbebench_io::write_atomic(path, bytes).map_err(|source| EvalError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(path.to_path_buf())
}

/// The `task` of a reordering run's results file.
pub const REORDER_TASK: &str = "reorder";

/// What `RUN_DIR/results.json` holds for a run on a reordering set (`"task": "reorder"`):
/// the summary of its answers, the run's own figures and, in interactive mode, the
/// episodes'. Written as [`RunResultsFile`] is (keys sorted, no final newline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReorderRunFile {
    /// The file's format (that of a synthesis run's `results.json`).
    pub format_version: u32,
    /// Always [`REORDER_TASK`]: what tells this file from a synthesis run's.
    pub task: String,
    /// Which fenced block of a response was read.
    pub block: BlockChoice,
    /// Accuracy, exact and valid rate, overall, by length and by category.
    pub summary: OrderSummary,
    /// How the samples ended, tokens, cost, latency.
    pub run: RunFigures,
    /// The episodes' figures, in interactive mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive: Option<OrderEpisodes>,
}

impl ReorderRunFile {
    /// The file of a reordering run's results.
    pub fn of(results: &RunResults, reorder: &ReorderResults) -> Self {
        ReorderRunFile {
            format_version: results.scores.format_version,
            task: REORDER_TASK.to_owned(),
            block: results.scores.options.block,
            summary: reorder.summary.clone(),
            run: results.figures(),
            interactive: reorder.episodes.clone(),
        }
    }

    /// Whether `value` (a results file's JSON) is a reordering run's.
    pub fn is_reorder(value: &Value) -> bool {
        value.get("task").and_then(Value::as_str) == Some(REORDER_TASK)
    }

    /// The file's text: pretty-printed JSON, keys in alphabetical order, no final newline.
    pub fn to_json(&self) -> String {
        let tree = serde_json::to_value(self).expect("results serialise");
        serde_json::to_string_pretty(&tree).expect("a JSON tree serialises")
    }

    /// Writes the file into `run_dir` (atomically), returning its path.
    pub fn write(&self, run_dir: &Path) -> Result<PathBuf, EvalError> {
        write_file(&run_dir.join(RESULTS_FILE), self.to_json().as_bytes())
    }

    /// Reads a reordering run's results file from its JSON value.
    pub fn from_value(value: Value) -> Result<Self, ResultsFileError> {
        serde_json::from_value(value).map_err(ResultsFileError::Reorder)
    }
}

/// What an evaluation run's `results.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResultsFile {
    /// The scores and the run's figures (`run`).
    #[serde(flatten)]
    pub results: Results,
    /// The episodes' grades, for an interactive run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interactive: Option<InteractiveResults>,
    /// The run's strategy when it has a name of its own (`stepwise`, `feedback`); absent
    /// for sampling and probing runs (and in files written before strategies were named).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// A step-wise search's parameters: `step_rules`, `steps`, `samples` (per step) and
    /// `select`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stepwise: Option<Value>,
}

/// A results file that cannot be read, and why.
#[derive(Debug, thiserror::Error)]
pub enum ResultsFileError {
    /// The JSON is no results file (or of a newer format).
    #[error("'summary' is not a score summary: {0}")]
    Results(serde_json::Error),
    /// Its `interactive` section is not an interactive run's graded episodes.
    #[error("'interactive' is not the graded episodes of an interactive run: {0}")]
    Interactive(serde_json::Error),
    /// A reordering run's results file ([`ReorderRunFile`]) where synthesis results are
    /// read.
    #[error("a reordering run's results ('task': 'reorder'), not synthesis results")]
    ReorderRun,
    /// A file with `"task": "reorder"` that is no reordering run's results.
    #[error("'task' is 'reorder' but the file is no reordering run's results: {0}")]
    Reorder(serde_json::Error),
}

impl RunResultsFile {
    /// The file of a finished (or stopped) run or rescore.
    pub fn of(outcome: &RunOutcome) -> Self {
        let strategy = outcome.strategy.as_ref();
        RunResultsFile {
            results: outcome.results.results(),
            interactive: outcome.interactive.clone(),
            strategy: strategy.map(|s| s.name.clone()),
            stepwise: strategy.and_then(|s| s.stepwise.clone()),
        }
    }

    /// The file's text: pretty-printed JSON, keys in alphabetical order, no final newline.
    pub fn to_json(&self) -> String {
        // Through a JSON tree, whose maps keep their keys sorted: the bytes the file has
        // always had.
        let tree = serde_json::to_value(self).expect("results serialise");
        serde_json::to_string_pretty(&tree).expect("a JSON tree serialises")
    }

    /// Writes the file into `run_dir` (atomically), returning its path.
    pub fn write(&self, run_dir: &Path) -> Result<PathBuf, EvalError> {
        let path = run_dir.join(RESULTS_FILE);
        pbebench_io::write_atomic(&path, self.to_json().as_bytes()).map_err(|source| {
            EvalError::Write {
                path: path.clone(),
                source,
            }
        })?;
        Ok(path)
    }

    /// Reads a results file's JSON value ([`Results::is_results`]): the results as
    /// [`Results::from_value`] reads them, and the `interactive` section when there is one.
    pub fn from_value(mut value: Value) -> Result<Self, ResultsFileError> {
        if ReorderRunFile::is_reorder(&value) {
            return Err(ResultsFileError::ReorderRun);
        }
        let mut take = |key| value.as_object_mut().and_then(|map| map.remove(key));
        let strategy = take("strategy").and_then(|v| v.as_str().map(str::to_owned));
        let stepwise = take("stepwise");
        let interactive = value
            .as_object_mut()
            .and_then(|map| map.remove("interactive"))
            .map(serde_json::from_value)
            .transpose()
            .map_err(ResultsFileError::Interactive)?;
        let results = Results::from_value(value).map_err(ResultsFileError::Results)?;
        Ok(RunResultsFile {
            results,
            interactive,
            strategy,
            stepwise,
        })
    }

    /// Reads the text of a results file.
    pub fn from_json(text: &str) -> Result<Self, ResultsFileError> {
        let value = serde_json::from_str(text).map_err(ResultsFileError::Results)?;
        Self::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode::grade::{EpisodeGrade, InteractiveSummary};
    use pbebench::{Cascade, RunFigures};

    fn results() -> Results {
        let format_1 = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/results-format-1/run/results.json"
        );
        let text = std::fs::read_to_string(format_1).unwrap();
        RunResultsFile::from_json(&text).unwrap().results
    }

    fn episodes() -> InteractiveResults {
        let episode = EpisodeGrade {
            instance_id: "a".into(),
            sample: 1,
            end_reason: "submit".into(),
            final_source: "submitted".into(),
            final_cascade: Cascade::from_pairs(&[("ab", "c")]).unwrap(),
            probes_used: 7,
            tests: 2,
            turns: 4,
            prompt_tokens: 100,
            completion_tokens: 20,
            cost: 0.25,
            pass: true,
            heldout_pass: None,
            heldout_unprobed: 0,
            heldout_excluded: 3,
            recovered: Some(true),
            behaviour: Some(1.0),
        };
        InteractiveResults {
            summary: InteractiveSummary {
                expected: 2,
                episodes: 1,
                pass_at_1: 0.5,
                heldout_pass: None,
                heldout_episodes: 0,
                heldout_excluded: 3,
                recovered_at_1: Some(0.5),
                undecided: 0,
                mean_behaviour: Some(1.0),
                mean_probes: 7.0,
                mean_turns: 4.0,
                end_reasons: [("submit".to_owned(), 1)].into(),
                final_sources: [("submitted".to_owned(), 1)].into(),
                prompt_tokens: 100,
                completion_tokens: 20,
                cost: 0.25,
            },
            episodes: vec![episode],
        }
    }

    /// What is written reads back the same, with and without an interactive section; the
    /// keys are sorted and there is no final newline, as the file has always been written.
    #[test]
    fn results_files_read_back() {
        let mut results = results();
        results.run = Some(RunFigures {
            answered: 3,
            cost: 0.5,
            ..RunFigures::default()
        });
        let stepwise =
            serde_json::json!({"samples": 4, "select": "edit-sim", "step_rules": 2, "steps": 3});
        for (interactive, strategy) in [
            (None, None),
            (Some(episodes()), None),
            (Some(episodes()), Some("feedback")),
            (None, Some("stepwise")),
        ] {
            let file = RunResultsFile {
                results: results.clone(),
                interactive,
                strategy: strategy.map(str::to_owned),
                stepwise: (strategy == Some("stepwise")).then(|| stepwise.clone()),
            };
            let text = file.to_json();
            assert!(
                text.starts_with("{\n  \"") && text.ends_with("\n}"),
                "{text}"
            );
            let keys: Vec<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("  \"")?.split_once('"'))
                .map(|(key, _)| key)
                .collect();
            let mut sorted = keys.clone();
            sorted.sort_unstable();
            assert_eq!(keys, sorted);
            assert_eq!(keys.contains(&"interactive"), file.interactive.is_some());
            assert_eq!(keys.contains(&"strategy"), file.strategy.is_some());
            assert_eq!(keys.contains(&"stepwise"), file.stepwise.is_some());
            assert_eq!(RunResultsFile::from_json(&text).unwrap(), file);
        }
    }

    /// The format-1 file of an evaluation run reads, upgraded, without `interactive`; a
    /// broken `interactive` section is named.
    #[test]
    fn old_and_broken_files() {
        let results = results();
        assert_eq!(results.format_version, 2);
        assert!(results.run.is_some());
        let mut value = serde_json::to_value(RunResultsFile {
            results,
            interactive: Some(episodes()),
            strategy: None,
            stepwise: None,
        })
        .unwrap();
        value["interactive"]["episodes"][0]["probes_used"] = "many".into();
        let e = RunResultsFile::from_value(value).unwrap_err();
        assert!(matches!(e, ResultsFileError::Interactive(_)), "{e}");
        assert!(e.to_string().starts_with("'interactive' is not"), "{e}");
        let e = RunResultsFile::from_json(r#"{"summary": 1}"#).unwrap_err();
        assert!(matches!(e, ResultsFileError::Results(_)), "{e}");
    }
}
