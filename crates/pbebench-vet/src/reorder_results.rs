//! Reordering results for the report (`docs/reorder.md`): an evaluation run on a
//! reordering set (its `results.json`, `"task": "reorder"`, and its `per-instance.jsonl`),
//! or what `pbebench score --out` / `--per-instance` write for one. A `--results` argument
//! is the same `[LABEL=]PATH[,PATH]` as for synthesis results; [`is_reorder_spec`] tells
//! which kind it names.
//!
//! The per-instance lines carry every answer's grade, so the summary is recomputed from
//! them when they are given ([`summarize_orders`]), as for synthesis results.

use crate::results::{default_label, file_err, files_in_dir, split_spec, ResultsError};
use pbebench::reorder::{summarize_orders, OrderInstanceScore, OrderSummary};
use pbebench_eval::ReorderRunFile;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The reordering results of one solver (or model).
#[derive(Debug, Clone, PartialEq)]
pub struct ReorderSet {
    /// Name shown in the report.
    pub label: String,
    /// The files read.
    pub sources: Vec<PathBuf>,
    /// Accuracy, exact and valid rate, overall, by length and by category.
    pub summary: OrderSummary,
    /// What the run cost, when an evaluation run reported a positive cost.
    pub cost: Option<f64>,
}

impl ReorderSet {
    /// The source files, comma-separated, for messages.
    pub fn sources_text(&self) -> String {
        (self.sources.iter())
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// What one file holds.
enum Content {
    /// A run's results file, or a score summary; with the run's cost.
    Summary(OrderSummary, Option<f64>),
    /// Per-instance lines.
    Instances(Vec<OrderInstanceScore>),
    /// Not reordering results.
    Other,
}

/// Whether the `--results` argument `spec` names reordering results: one of its files is
/// a reordering run's `results.json`, a reordering score summary or its per-instance lines.
pub fn is_reorder_spec(spec: &str) -> bool {
    files_of(spec).is_ok_and(|files| {
        (files.iter()).any(|f| read_file(f).is_ok_and(|c| !matches!(c, Content::Other)))
    })
}

fn files_of(spec: &str) -> Result<Vec<PathBuf>, ResultsError> {
    let (_, paths) = split_spec(spec);
    let mut files = Vec::new();
    for path in &paths {
        if path.is_dir() {
            files.extend(files_in_dir(path)?);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// Reads the reordering results named by each of `specs` ([`is_reorder_spec`]).
pub fn load_reorder_results(specs: &[String]) -> Result<Vec<ReorderSet>, ResultsError> {
    specs.iter().map(|spec| load(spec)).collect()
}

fn load(spec: &str) -> Result<ReorderSet, ResultsError> {
    let files = files_of(spec)?;
    let (label, paths) = split_spec(spec);
    let mut summary: Option<(OrderSummary, Option<f64>)> = None;
    let mut instances: Option<Vec<OrderInstanceScore>> = None;
    for file in &files {
        match read_file(file)? {
            Content::Summary(s, cost) if summary.is_none() => summary = Some((s, cost)),
            Content::Instances(list) if instances.is_none() => instances = Some(list),
            Content::Summary(..) | Content::Instances(_) => {
                return Err(file_err(
                    file,
                    "a second file of the same kind for the same results; give each run as its own --results",
                ))
            }
            Content::Other => {
                return Err(file_err(
                    file,
                    "not reordering results, beside reordering results: give synthesis and reordering runs as separate --results",
                ))
            }
        }
    }
    let (summary, cost) = match (summary, instances) {
        (Some((s, cost)), Some(list)) => {
            let recomputed = summarize_orders(&list);
            if recomputed != s {
                return Err(ResultsError::Mismatch(format!(
                    "--results '{spec}': the summary and the per-instance lines are not from the same run (their figures differ)"
                )));
            }
            (recomputed, cost)
        }
        (Some((s, cost)), None) => (s, cost),
        (None, Some(list)) => (summarize_orders(&list), None),
        (None, None) => {
            return Err(ResultsError::Mismatch(format!(
                "--results '{spec}': found no reordering results"
            )))
        }
    };
    Ok(ReorderSet {
        label: label.unwrap_or_else(|| default_label(&paths[0])),
        sources: files,
        summary,
        cost,
    })
}

fn read_file(path: &Path) -> Result<Content, ResultsError> {
    let bytes = pbebench_io::read_input(path).map_err(|e| file_err(path, e.to_string()))?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(Content::Other);
    };
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        if ReorderRunFile::is_reorder(&value) {
            let file =
                ReorderRunFile::from_value(value).map_err(|e| file_err(path, e.to_string()))?;
            let cost = Some(file.run.cost).filter(|c| *c > 0.0);
            return Ok(Content::Summary(file.summary, cost));
        }
        if value.get("rows").is_some() && value.get("invalid").is_some() {
            let summary = serde_json::from_value(value)
                .map_err(|e| file_err(path, format!("not a reordering score summary: {e}")))?;
            return Ok(Content::Summary(summary, None));
        }
    }
    // Per-instance lines of a reordering set: an id and graded samples, no `pass` (which
    // a synthesis line has).
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let is_order_line = |l: &str| {
        serde_json::from_str::<Value>(l).is_ok_and(|v| {
            v.get("id").is_some() && v.get("samples").is_some() && v.get("pass").is_none()
        })
    };
    if !lines.clone().next().is_some_and(|(_, l)| is_order_line(l)) {
        return Ok(Content::Other);
    }
    let list = lines
        .by_ref()
        .map(|(k, l)| {
            serde_json::from_str(l).map_err(|e| ResultsError::Line {
                path: path.to_path_buf(),
                line: k + 1,
                message: format!("not a reordering problem's grades: {e}"),
            })
        })
        .collect::<Result<Vec<OrderInstanceScore>, _>>()?;
    Ok(Content::Instances(list))
}
