//! The vetting audit of a dataset (`docs/vetting.md`, after ProgramBench Vetted): deterministic
//! gates (gold, dummy), the shortcut audit, duplicates, label checks, identifiability
//! (whether the visible examples pin the gold's behaviour down) and, given scored results
//! of a panel of solvers, calibration.
//!
//! [`audit`] computes an [`AuditFindings`]; its `Display` is the text the CLI prints and
//! its JSON form is `audit.json`. Its [`Verdict`] flags each instance with its reasons and
//! judges set-level gates against settable [`Thresholds`] (issue 38; `docs/audit.md`); a
//! failed gate makes [`AuditFindings::passed`] false.

mod calibration;
mod duplicates;
mod gates;
mod identifiability;
mod labels;
mod reorder;
mod stated;
mod text;
mod verdict;

pub use calibration::{Calibration, HistogramBin, Slice};
pub use duplicates::{Duplicates, Groups};
pub use gates::{Gate, Gates};
pub use identifiability::{identifiability, probe_all, AmbiguousInstance, Identifiability, Share};
pub use labels::Labels;
pub use reorder::{audit_reorder, OrderBaseline, OrderGate, ReorderAudit, ReorderAuditOptions};
pub use stated::StatedLength;
pub use verdict::{
    percent, percent_interval, Flag, FlaggedInstance, GateVerdict, Reason, Thresholds, Verdict,
    DEFAULT_MAX_AMBIGUOUS, DEFAULT_MAX_COLLAPSED, DEFAULT_MAX_DUMMY, DEFAULT_MAX_SHORTCUT,
};

use crate::attack::{self, Panel};
use crate::results::ResultSet;
use crate::shortcuts::Baseline;
use pbebench::Instance;
use pbebench::{render_answer, score_instance, summarize, Column, InstanceScore, ScoreOptions};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How the audit runs.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// The built-in solver's search for cascades shorter than stated; `None` skips it.
    pub solver: Option<SolverCheck>,
    /// A shortest found cascade of at most `ratio × stated` rules is flagged as much
    /// shorter than the stated length.
    pub shorter_ratio: f64,
    /// A calibration slice collapses when at least this share of its instances is solved
    /// by every solver of the panel (or by none).
    pub collapse: f64,
    /// Examples kept per finding.
    pub shown: usize,
    /// The identifiability check's panel and seed; `None` skips it.
    pub identifiability: Option<(Panel, u64)>,
    /// The set-level gates' thresholds.
    pub thresholds: Thresholds,
}

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            solver: Some(SolverCheck::default()),
            shorter_ratio: 0.6,
            collapse: 0.95,
            shown: 5,
            identifiability: Some((Panel::default(), 0)),
            thresholds: Thresholds::default(),
        }
    }
}

/// The built-in solver run of the stated-length check.
#[derive(Debug, Clone, PartialEq)]
pub struct SolverCheck {
    /// Solver name (`pbebench_solve::solver_by_name`).
    pub name: String,
    /// Search nodes per solve: bounds the audit's cost independently of the machine (the
    /// beam solver's repair step is counted in evaluations under it, so the counts do not
    /// depend on the machine's load).
    pub max_nodes: u64,
    /// Wall-clock backstop per solve.
    pub time_limit: Duration,
}

impl SolverCheck {
    /// The check's solver when none is named: `beam`, not the default solver. The check
    /// looks for fits shorter than stated under a node budget, and the default solver
    /// spends half of that budget searching from the outputs' end, which pays only where
    /// the forward search finds no fit at all (cascades of 20 rules and more).
    pub const DEFAULT_NAME: &'static str = "beam";
}

impl Default for SolverCheck {
    fn default() -> Self {
        SolverCheck {
            name: SolverCheck::DEFAULT_NAME.to_owned(),
            max_nodes: 600,
            time_limit: Duration::from_secs(2),
        }
    }
}

/// One instance a finding is about, and what was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Instance id (or ids, comma-separated).
    pub id: String,
    /// What is wrong or notable.
    pub detail: String,
}

/// A count of instances with a finding and the first few of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Findings {
    /// Instances with the finding.
    pub count: usize,
    /// The first ones, in dataset order.
    pub examples: Vec<Finding>,
}

impl Findings {
    /// Counts one more and keeps it if fewer than `shown` are kept.
    pub fn push(&mut self, id: &str, detail: impl Into<String>, shown: usize) {
        self.count += 1;
        if self.examples.len() < shown {
            self.examples.push(Finding {
                id: id.to_owned(),
                detail: detail.into(),
            });
        }
    }

    /// Findings from `(id, detail)` pairs in order.
    pub fn collect<I, S>(items: I, shown: usize) -> Self
    where
        I: IntoIterator<Item = (S, String)>,
        S: AsRef<str>,
    {
        let mut f = Findings::default();
        for (id, detail) in items {
            f.push(id.as_ref(), detail, shown);
        }
        f
    }
}

/// What a trivial solver earns on the dataset, scored by the shared scoring path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineResult {
    /// `identity`, `single-rule` or `memoriser`.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Pass@1 (one answer an instance: the same as best-of-1).
    pub pass: f64,
    /// Mean Edit_Sim.
    pub edit_sim: f64,
    /// Mean fractional score (vetted mean reward).
    pub mean_reward: f64,
    /// Share of instances at ≥ 95%.
    pub almost: f64,
    /// Share of instances at 100%.
    pub resolved: f64,
    /// Held-out pass rate: a shortcut that passes the visible examples but not the held-out
    /// ones has memorised rather than solved (`None` without held-out examples).
    pub heldout_pass: Option<f64>,
    /// The standard error and 95% interval of each figure, by its column's key
    /// ([`BASELINE_COLUMNS`]; Wilson's for the rates, as in `results.json`). Empty in
    /// files written before they were kept.
    #[serde(default)]
    pub intervals: std::collections::BTreeMap<String, pbebench::interval::Interval>,
    /// Instances it passes, with their cascade.
    pub passed: Findings,
}

/// The columns of the shortcut baselines' tables (text and HTML), from
/// [`pbebench::COLUMNS`]. A baseline gives one answer an instance, so its chosen answer is
/// its only sample and its pass rate is Pass@1.
pub const BASELINE_COLUMNS: [Column; 6] = [
    Column::PASS_AT_1,
    Column::EDIT_SIM,
    Column::MEAN_REWARD,
    Column::ALMOST,
    Column::RESOLVED,
    Column::HELDOUT_PASS,
];

impl BaselineResult {
    /// Its figures, in the order of [`BASELINE_COLUMNS`].
    pub fn figures(&self) -> [Option<f64>; 6] {
        [
            Some(self.pass),
            Some(self.edit_sim),
            Some(self.mean_reward),
            Some(self.almost),
            Some(self.resolved),
            self.heldout_pass,
        ]
    }

    /// Its figures as the text table prints them, in the order of [`BASELINE_COLUMNS`]:
    /// `0.438±0.124`, the figure alone where it has no interval.
    pub fn cells_with_se(&self) -> Vec<String> {
        (BASELINE_COLUMNS.iter().zip(self.figures()))
            .map(|(c, v)| match (v, self.intervals.get(c.key)) {
                (Some(v), Some(i)) => format!("{v:.3}±{:.3}", i.se),
                (v, _) => pbebench::figure(v),
            })
            .collect()
    }
}

/// The shortcut audit: trivial solvers and the stated-length checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shortcuts {
    /// Identity, best single rule, memoriser.
    pub baselines: Vec<BaselineResult>,
    /// Redundant gold rules and much shorter cascades.
    pub stated_length: StatedLength,
}

/// Everything the audit found. Serialised as `audit.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditFindings {
    /// The dataset audited (as given).
    pub dataset: String,
    /// Its instances.
    pub instances: usize,
    /// Every gate of the verdict passed (in audits older than the verdict: the gold and
    /// dummy gates).
    pub passed: bool,
    /// Gold and dummy gates.
    pub gates: Gates,
    /// Trivial solvers and stated lengths.
    pub shortcuts: Shortcuts,
    /// Identical and renamed instances, repeated examples.
    pub duplicates: Duplicates,
    /// Paper vs exact categories, stale labels.
    pub labels: Labels,
    /// Calibration over the panel of results, when results were given.
    pub calibration: Option<Calibration>,
    /// Whether the visible examples pin the behaviour down (absent when skipped, and from
    /// audits of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identifiability: Option<Identifiability>,
    /// Problems with the inputs that were not fatal.
    pub warnings: Vec<String>,
    /// The flagged instances and the set-level gates (absent from audits older than it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
}

/// Why an audit file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum AuditFileError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file is no audit.
    #[error("{}: not an audit (`pbebench audit --out`): {source}", path.display())]
    NotAnAudit {
        /// The file.
        path: std::path::PathBuf,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
}

impl AuditFindings {
    /// Reads `audit.json` (`pbebench audit --out`).
    pub fn read(path: &std::path::Path) -> Result<Self, AuditFileError> {
        let text = pbebench_io::read_input_string(path).map_err(|source| AuditFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| AuditFileError::NotAnAudit {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// What an audit tells as it goes: each stage, and how far the slow one (the solver's
/// search for shorter cascades) has got. A closure taking the stage's name hears the
/// stages only.
pub trait AuditProgress: Sync {
    /// A stage begins.
    fn stage(&self, name: &str);
    /// `done` of `total` instances have been searched for shorter cascades.
    fn searched(&self, done: usize, total: usize) {
        let _ = (done, total);
    }
    /// `done` of `total` instances have been attacked by the identifiability panel.
    fn probed(&self, done: usize, total: usize) {
        let _ = (done, total);
    }
}

impl<F: Fn(&str) + Sync> AuditProgress for F {
    fn stage(&self, name: &str) {
        self(name)
    }
}

/// Audits `dataset` (called `name` in the report). `panel` holds results already checked
/// against the dataset ([`crate::results::check_against`]); `progress` hears each stage.
pub fn audit(
    dataset: &[Instance],
    name: &str,
    panel: &[ResultSet],
    options: &AuditOptions,
    progress: &dyn AuditProgress,
) -> AuditFindings {
    let shown = options.shown;
    progress.stage("gates");
    let (gates, per_gate) = gates::run(dataset, shown);
    progress.stage("shortcut baselines");
    let (baselines, resolved): (Vec<BaselineResult>, Vec<_>) = Baseline::ALL
        .iter()
        .map(|b| baseline(dataset, *b, shown))
        .unzip();
    progress.stage(if options.solver.is_some() {
        "stated lengths (solving for shorter cascades)"
    } else {
        "stated lengths"
    });
    let stated_length = stated::run(dataset, panel, options, progress);
    progress.stage("duplicates");
    let (duplicates, repeats) = duplicates::run(dataset, shown);
    progress.stage("labels");
    let (labels, label_problems) = labels::run(dataset, shown);
    let probed = options.identifiability.as_ref().map(|(attackers, seed)| {
        progress.stage("identifiability (attacking the visible examples)");
        let verdicts = probe_all(dataset, attackers, *seed, progress);
        let summary = identifiability::summarise(dataset, attackers, *seed, shown, &verdicts);
        (summary, verdicts)
    });
    let (calibration, outcomes) = if panel.is_empty() {
        (None, vec![None; dataset.len()])
    } else {
        progress.stage("calibration");
        let (c, outcomes) = calibration::run(dataset, panel, options.collapse);
        (Some(c), outcomes)
    };
    let facts = verdict::Facts {
        gold: per_gate.gold,
        dummy: per_gate.dummy,
        shortcuts: Baseline::ALL
            .iter()
            .map(|b| b.name().to_owned())
            .zip(resolved)
            .collect(),
        checked: probed.as_ref().map(|(summary, _)| summary.checked),
        ambiguous: match &probed {
            Some((_, verdicts)) => verdicts
                .iter()
                .map(|v| match v {
                    Some(attack::PanelVerdict::Ambiguous(w)) => Some(w.clone()),
                    _ => None,
                })
                .collect(),
            None => vec![None; dataset.len()],
        },
        labels: label_problems,
        duplicate: repeats,
        panel: panel.len(),
        outcomes,
    };
    let ids: Vec<&str> = dataset.iter().map(|i| i.id.as_str()).collect();
    let verdict = verdict::judge(&ids, facts, options.thresholds);
    let identifiability = probed.map(|(summary, _)| summary);
    AuditFindings {
        dataset: name.to_owned(),
        instances: dataset.len(),
        passed: verdict.passed,
        gates,
        shortcuts: Shortcuts {
            baselines,
            stated_length,
        },
        duplicates,
        labels,
        calibration,
        identifiability,
        warnings: Vec::new(),
        verdict: Some(verdict),
    }
}

/// Scores a baseline's answer on every instance through [`score_instance`].
pub fn baseline_scores(dataset: &[Instance], baseline: Baseline) -> Vec<InstanceScore> {
    dataset
        .par_iter()
        .map(|inst| {
            let text = render_answer(&baseline.cascade(inst));
            score_instance(inst, &[text], &ScoreOptions::default())
        })
        .collect()
}

/// A baseline's figures, and what it resolves on each instance (`None`: it does not), in
/// dataset order.
fn baseline(
    dataset: &[Instance],
    baseline: Baseline,
    shown: usize,
) -> (BaselineResult, Vec<Option<String>>) {
    let scores = baseline_scores(dataset, baseline);
    let o = summarize(&scores).overall;
    let resolved = scores
        .iter()
        .map(|s| {
            (s.score >= 1.0).then(|| {
                format!(
                    "{} resolves it with {} ({})",
                    baseline.name(),
                    s.cascade.to_json(),
                    match s.recovered {
                        Some(true) => "equivalent to the gold: the instance is that easy",
                        Some(false) => "not equivalent to the gold: it fits without the behaviour",
                        None => "every example the gold changes reproduced",
                    }
                )
            })
        })
        .collect();
    let result = BaselineResult {
        name: baseline.name().to_owned(),
        description: baseline.description().to_owned(),
        pass: o.best_of_k,
        edit_sim: o.edit_sim,
        mean_reward: o.best_of_k_mean_reward,
        almost: o.best_of_k_almost,
        resolved: o.best_of_k_resolved,
        heldout_pass: o.heldout_pass,
        // One answer an instance: the per-sample intervals are the best-of-K ones.
        intervals: (BASELINE_COLUMNS.iter())
            .filter_map(|c| Some((c.key.to_owned(), *o.intervals.get(c.key)?)))
            .collect(),
        passed: Findings::collect(
            scores.iter().filter(|s| s.pass).map(|s| {
                (
                    s.id.as_str(),
                    format!("passes with {}", s.cascade.to_json()),
                )
            }),
            shown,
        ),
    };
    (result, resolved)
}
