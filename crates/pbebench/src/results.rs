//! The results files, in one place: `results.json` ([`Results`]: the summary of a scoring
//! of responses, or of an evaluation run, with the input problems met) and the
//! per-instance lines (`per-instance.jsonl`, one [`InstanceScore`] a line), each with its
//! writer and its reader. `pbebench score`, `pbebench eval`, the demo and any other
//! producer write through them; `pbebench report` and `audit` read through them.
//!
//! `results.json` is one object: `format_version` ([`FORMAT_VERSION`]), `dataset` and
//! `responses` (the files scored, when there are files), `options`, `summary`
//! ([`Summary`]), `missing`, `unknown`, `duplicates`, and for an evaluation run `run`
//! ([`RunFigures`]). The reader also takes the shape an evaluation run wrote before,
//! `{"run": {…}, "scores": {…}}`, and format 1 (files without `format_version`), whose
//! summaries it renames (`upgrade_aggregate`).

use crate::responses::{LineIssue, Responses};
use crate::score::{summarize, InstanceScore, ScoreOptions, Summary};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;

/// The format of the results files this version writes. Format 2 named the figures for
/// what they hold (`best_of_k`, `pass_at_1`; per-sample `mean_reward`, `almost`,
/// `resolved` beside their `best_of_k_` variants) and added `intervals`; format 1 had no
/// `format_version`, and its `pass`, `mean_reward`, `almost` and `resolved` were best-of-K.
pub const FORMAT_VERSION: u32 = 2;

/// What `results.json` holds: the figures of a scoring and the problems of its input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// The format of the file (the current one, `FORMAT_VERSION`, when written; 1 when absent).
    #[serde(default = "format_1")]
    pub format_version: u32,
    /// The dataset scored, as it was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<PathBuf>,
    /// The responses file scored (an evaluation run keeps its responses in its store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responses: Option<PathBuf>,
    /// The options used.
    #[serde(default)]
    pub options: ScoreOptions,
    /// Aggregates.
    pub summary: Summary,
    /// Ids of instances without any response (scored as failures).
    #[serde(default)]
    pub missing: Vec<String>,
    /// Response lines naming ids absent from the dataset.
    #[serde(default)]
    pub unknown: Vec<LineIssue>,
    /// Response lines repeating an id or sample already given.
    #[serde(default)]
    pub duplicates: Vec<LineIssue>,
    /// What an evaluation run adds: how its samples ended, tokens, cost, latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunFigures>,
}

/// An evaluation run's own figures, beside the scores of its answers. Every field has a
/// default, so that a hand-made or partial `run` object still reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunFigures {
    /// Samples that hold an answer.
    pub answered: usize,
    /// Instances × K.
    pub expected: usize,
    /// How many samples ended in each status (`ok`, `timeout`, …).
    pub statuses: BTreeMap<String, usize>,
    /// Tokens, summed over the samples.
    pub tokens: Tokens,
    /// Cost at the run's prices.
    pub cost: f64,
    /// Latency of the answers, milliseconds.
    pub latency_ms: Latency,
}

/// Token counts of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tokens {
    /// Prompt tokens.
    pub prompt: u64,
    /// Completion tokens (reasoning included).
    pub completion: u64,
    /// Reasoning tokens.
    pub reasoning: u64,
}

/// Latency percentiles of a run, milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Latency {
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
}

impl Results {
    /// The results of scored instances and the responses they came from (no files named,
    /// no run figures).
    pub fn of<T>(
        scores: &[InstanceScore],
        responses: &Responses<T>,
        options: &ScoreOptions,
    ) -> Self {
        Results {
            format_version: FORMAT_VERSION,
            dataset: None,
            responses: None,
            options: *options,
            summary: summarize(scores),
            missing: scores
                .iter()
                .filter(|s| s.missing)
                .map(|s| s.id.clone())
                .collect(),
            unknown: responses.unknown.clone(),
            duplicates: responses.duplicates.clone(),
            run: None,
        }
    }

    /// Whether a JSON value is a results file, in the current shape or an evaluation run's
    /// of before (and not, say, a per-instance line).
    pub fn is_results(value: &Value) -> bool {
        value.get("summary").is_some() || value.pointer("/scores/summary").is_some()
    }

    /// Reads a results file's JSON value ([`Results::is_results`]), of this format or of
    /// format 1 (upgraded as it is read); a newer format is refused.
    pub fn from_value(mut value: Value) -> Result<Self, serde_json::Error> {
        // An evaluation run's of before: the scoring part under `scores`, `run` beside it.
        if value.get("summary").is_none() {
            if let Some(Value::Object(mut scores)) =
                value.as_object_mut().and_then(|m| m.remove("scores"))
            {
                if let Some(run) = value.get("run") {
                    scores.insert("run".to_owned(), run.clone());
                }
                value = Value::Object(scores);
            }
        }
        let version = value.get("format_version").map_or(Some(1), Value::as_u64);
        match version {
            Some(1) => {
                if let Some(summary) = value.get_mut("summary") {
                    upgrade_summary(summary);
                }
            }
            Some(v) if v == u64::from(FORMAT_VERSION) => {}
            _ => {
                return Err(serde::de::Error::custom(format_args!(
                    "format_version {} is not one this pbebench reads (1 to {FORMAT_VERSION}); \
                     read it with the pbebench that wrote it, or upgrade",
                    value["format_version"]
                )))
            }
        }
        let mut results: Results = serde_json::from_value(value)?;
        results.format_version = FORMAT_VERSION;
        Ok(results)
    }

    /// Reads the text of a results file.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        Self::from_value(serde_json::from_str(text)?)
    }

    /// The file's text: pretty-printed JSON and a final newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialise") + "\n"
    }
}

fn format_1() -> u32 {
    1
}

/// Upgrades every aggregate of a format-1 summary (`overall`, `by_cascade_len`,
/// `by_category`) in place.
fn upgrade_summary(summary: &mut Value) {
    if let Some(overall) = summary.get_mut("overall") {
        upgrade_aggregate(overall);
    }
    for group in ["by_cascade_len", "by_category"] {
        if let Some(Value::Object(map)) = summary.get_mut(group) {
            map.values_mut().for_each(upgrade_aggregate);
        }
    }
}

/// Renames a format-1 aggregate's figures for what they hold: `pass` (best-of-K) becomes
/// `best_of_k`, and `mean_reward`, `almost`, `resolved` (taken from the best-of-K choice)
/// become their `best_of_k_` variants; `pass_at_1` is `pass_at_k["1"]`. The per-sample
/// vetted figures equal the best-of-K ones where every answered instance had one sample
/// (`samples = instances − missing`); otherwise format 1 did not keep them, and they are
/// left undefined (`null`) rather than guessed. Format 1 had no intervals.
fn upgrade_aggregate(aggregate: &mut Value) {
    let Some(map) = aggregate.as_object_mut() else {
        return;
    };
    let count = |map: &serde_json::Map<String, Value>, key: &str| {
        map.get(key).and_then(Value::as_u64).unwrap_or(0)
    };
    let one_sample_each =
        count(map, "samples") == count(map, "instances").saturating_sub(count(map, "missing"));
    if let Some(pass) = map.remove("pass") {
        map.insert("best_of_k".to_owned(), pass);
    }
    let pass_at_1 = map.get("pass_at_k").and_then(|m| m.get("1")).cloned();
    map.insert("pass_at_1".to_owned(), pass_at_1.unwrap_or(Value::Null));
    for key in ["mean_reward", "almost", "resolved"] {
        let best = map.remove(key).unwrap_or(Value::Null);
        let per_sample = if one_sample_each {
            best.clone()
        } else {
            Value::Null
        };
        map.insert(format!("best_of_k_{key}"), best);
        map.insert(key.to_owned(), per_sample);
    }
}

/// The line above the summary table: what was scored and the problems of the input.
impl fmt::Display for Results {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.summary.overall;
        writeln!(
            f,
            "instances {}  samples {}  missing {}  unknown ids {}  duplicates {}  degenerate {}  block {}",
            o.instances,
            o.samples,
            self.missing.len(),
            self.unknown.len(),
            self.duplicates.len(),
            o.degenerate,
            self.options.block,
        )?;
        write!(f, "{}", self.summary)
    }
}

/// Writes per-instance lines (`pbebench score --per-instance`): one JSON object a score.
pub fn write_score_lines(mut out: impl Write, scores: &[InstanceScore]) -> io::Result<()> {
    for score in scores {
        serde_json::to_writer(&mut out, score)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The per-instance lines of a file, as [`read_score_lines`] reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreLines {
    /// The scores, in file order, the first of each id.
    pub scores: Vec<InstanceScore>,
    /// Lines repeating an id (ignored).
    pub duplicates: Vec<LineIssue>,
}

/// A per-instance line that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct ScoreLineError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub problem: ScoreLineProblem,
}

/// What is wrong with a per-instance line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoreLineProblem {
    /// The line is no scored instance.
    #[error(
        "not a per-instance result ({0}); expected the lines of `pbebench score --per-instance`"
    )]
    NotAScore(String),
    /// Figures no scorer produces (a hand-edited file must not skew a plot).
    #[error("instance '{id}': {what}")]
    Implausible {
        /// The instance.
        id: String,
        /// Which figure is impossible.
        what: &'static str,
    },
}

/// Reads per-instance lines (blank lines skipped; a repeated id is listed and ignored, the
/// first wins). Each score is checked for figures no scorer produces.
pub fn read_score_lines(text: &str) -> Result<ScoreLines, ScoreLineError> {
    let mut scores: Vec<InstanceScore> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut duplicates = Vec::new();
    for (k, text) in text.lines().enumerate() {
        let line = k + 1;
        if text.trim().is_empty() {
            continue;
        }
        let error = |problem| ScoreLineError { line, problem };
        let score: InstanceScore = serde_json::from_str(text)
            .map_err(|e| error(ScoreLineProblem::NotAScore(e.to_string())))?;
        if let Some(what) = implausible(&score) {
            return Err(error(ScoreLineProblem::Implausible {
                id: score.id.clone(),
                what,
            }));
        }
        if let Some(first) = seen.get(&score.id) {
            duplicates.push(LineIssue {
                line,
                message: format!("line {line} repeats id '{}' of line {first}", score.id),
                id: score.id,
            });
            continue;
        }
        seen.insert(score.id.clone(), line);
        scores.push(score);
    }
    Ok(ScoreLines { scores, duplicates })
}

/// Which figure of `s` no scorer produces, if one.
fn implausible(s: &InstanceScore) -> Option<&'static str> {
    if !(0.0..=1.0).contains(&s.score) {
        return Some("score outside [0, 1]");
    }
    if !s.edit_sim.is_finite() || s.edit_sim > 1.0 + 1e-12 {
        return Some("edit_sim is not a number ≤ 1");
    }
    // A pass reproduces every example the gold changes (the converse need not hold: the
    // score leaves out the examples the gold does not change).
    if s.pass && s.score != 1.0 && s.examples > 0 {
        return Some("'pass' disagrees with 'score'");
    }
    if s.valid_rules > s.rules {
        return Some("more valid rules than rules");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::testing::{block, instance};
    use crate::score::{score_instance, ScoreOptions};

    fn scored() -> Vec<InstanceScore> {
        let pass = block(r#"["replace('ab', 'c')", "replace('c', 'd')"]"#);
        let options = ScoreOptions::default();
        vec![
            score_instance(&instance("a"), &[pass.clone(), String::new()], &options),
            score_instance::<String>(&instance("b"), &[], &options),
        ]
    }

    /// What is written reads back the same, in every shape a producer wrote.
    #[test]
    fn results_read_back_in_every_shape() {
        let scores = scored();
        let mut results = Results::of(
            &scores,
            &Responses::<String>::default(),
            &ScoreOptions::default(),
        );
        assert_eq!(results.missing, ["b"]);
        results.dataset = Some("data.jsonl".into());
        results.responses = Some("resp.jsonl".into());
        let text = results.to_json();
        assert!(text.ends_with("}\n"));
        assert_eq!(Results::from_json(&text).unwrap(), results);
        // An evaluation run's, as it was written before: scores under `scores`.
        let mut run = results.clone();
        run.responses = None;
        run.run = Some(RunFigures {
            answered: 3,
            cost: 1.5,
            ..RunFigures::default()
        });
        let mut scores_part = serde_json::to_value(&run).unwrap();
        let figures = scores_part.as_object_mut().unwrap().remove("run").unwrap();
        let old = serde_json::json!({ "run": figures, "scores": scores_part });
        assert!(Results::is_results(&old));
        assert_eq!(Results::from_value(old).unwrap(), run);
        // A partial run object (hand-made) reads with the rest at zero.
        let partial = serde_json::json!({
            "run": { "cost": 2.0 },
            "scores": { "summary": serde_json::to_value(&results.summary).unwrap() },
        });
        let read = Results::from_value(partial).unwrap();
        assert_eq!(read.run.unwrap().cost, 2.0);
        assert!(read.missing.is_empty());
        assert!(!Results::is_results(&serde_json::json!({ "id": "a" })));
    }

    /// A results file of format 1, as pbebench wrote it before `format_version`: `pass`
    /// reads as best-of-K, its best-of-K vetted figures keep their meaning under their new
    /// names, and the per-sample ones are undefined where it had several samples.
    #[test]
    fn format_1_reads_with_figures_renamed() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/results-format-1"
        );
        let text = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        let old: Value = serde_json::from_str(&text("a-results.json")).unwrap();
        assert!(old.get("format_version").is_none() && Results::is_results(&old));
        let o_old = &old["summary"]["overall"];
        let read = Results::from_value(old.clone()).unwrap();
        assert_eq!(read.format_version, FORMAT_VERSION);
        let o = &read.summary.overall;
        assert_eq!(Some(o.best_of_k), o_old["pass"].as_f64());
        assert_eq!(o.pass_at_1, o_old["pass_at_k"]["1"].as_f64());
        assert_eq!(Some(o.best_of_k_mean_reward), o_old["mean_reward"].as_f64());
        assert_eq!(Some(o.best_of_k_resolved), o_old["resolved"].as_f64());
        assert_eq!((o.mean_reward, o.almost, o.resolved), (None, None, None));
        assert!(o.intervals.is_empty());
        // One sample an instance: the per-sample figures are the best-of-K ones.
        let one = Results::from_json(&text("b-results.json")).unwrap();
        let o = &one.summary.overall;
        assert_eq!(o.mean_reward, Some(o.best_of_k_mean_reward));
        assert_eq!(
            one.summary.by_cascade_len[&2].resolved,
            Some(one.summary.by_cascade_len[&2].best_of_k_resolved)
        );
        // The format-1 file's figures agree with those recomputed from its per-instance
        // lines where both define them.
        let lines = read_score_lines(&text("a-per-instance.jsonl")).unwrap();
        let now = summarize(&lines.scores).overall;
        assert_eq!(now.best_of_k, read.summary.overall.best_of_k);
        assert_eq!(now.best_of_k_almost, read.summary.overall.best_of_k_almost);
        assert_eq!(now.pass_at_1, read.summary.overall.pass_at_1);
        // A newer format is refused, by name.
        let mut newer = serde_json::to_value(&read).unwrap();
        newer["format_version"] = 99.into();
        let err = Results::from_value(newer).unwrap_err().to_string();
        assert!(err.contains("format_version 99"), "{err}");
    }

    #[test]
    fn score_lines_read_back_with_duplicates_and_checks() {
        let scores = scored();
        let mut bytes = Vec::new();
        write_score_lines(&mut bytes, &scores).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let first = text.lines().next().unwrap();
        let read = read_score_lines(&format!("{text}\n{first}\n")).unwrap();
        assert_eq!(read.scores, scores);
        assert_eq!(read.duplicates.len(), 1);
        assert_eq!(read.duplicates[0].line, 4);
        let err = read_score_lines("{}\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(
            err.to_string().contains("not a per-instance result"),
            "{err}"
        );
        let edited = first.replace("\"score\":1.0", "\"score\":2.0");
        assert_ne!(edited, first);
        let err = read_score_lines(&edited).unwrap_err();
        assert!(err.to_string().contains("score outside [0, 1]"), "{err}");
    }
}
