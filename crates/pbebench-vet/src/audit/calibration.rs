//! Calibration over a panel of solvers: the distribution of per-instance mean score and
//! slices (a cascade length, a category) that collapse to all-solved or none-solved.

use crate::results::ResultSet;
use pbebench::Instance;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// One bar of the difficulty histogram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramBin {
    /// Lower edge (inclusive).
    pub lo: f64,
    /// Upper edge (exclusive, except the last bin, which includes 1).
    pub hi: f64,
    /// Instances whose mean score falls in the bin.
    pub count: usize,
}

/// One slice of the dataset and how the panel does on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Slice {
    /// `cascade_len` or `category`.
    pub kind: String,
    /// The length or the category bits.
    pub key: String,
    /// Instances in the slice that the panel scored.
    pub instances: usize,
    /// Mean over the slice of the per-instance mean score.
    pub mean_score: f64,
    /// Share of the slice every solver of the panel passes.
    pub solved_by_all: f64,
    /// Share of the slice no solver of the panel passes.
    pub solved_by_none: f64,
    /// `all-solved` or `none-solved` when the slice collapses (slices of at least
    /// `MIN_SLICE` instances only).
    pub flag: Option<String>,
}

/// The calibration section of the audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Labels of the panel's results.
    pub panel: Vec<String>,
    /// Instances scored by at least one solver of the panel.
    pub instances: usize,
    /// Per-instance mean fractional score over the panel, in ten bins.
    pub histogram: Vec<HistogramBin>,
    /// Instances every solver scores 0 on.
    pub all_zero: usize,
    /// Instances every solver resolves.
    pub all_one: usize,
    /// Instances with a mean score in [0.2, 0.8] (the vetted "useful range").
    pub in_useful_range: usize,
    /// Slices by cascade length, then by category.
    pub slices: Vec<Slice>,
    /// The collapse threshold used.
    pub collapse: f64,
    /// Per-instance mean scores, by instance id.
    pub mean_scores: BTreeMap<String, f64>,
}

/// Slices with fewer instances are not flagged: a handful of instances all solved says
/// little about the slice.
pub const MIN_SLICE: usize = 5;

/// How the panel does on one instance: every solver passes it, or none does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Outcome {
    pub all: bool,
    pub none: bool,
}

/// The calibration section, and each instance's [`Outcome`] in dataset order (`None`:
/// no solver of the panel scored it).
pub(super) fn run(
    dataset: &[Instance],
    panel: &[ResultSet],
    collapse: f64,
) -> (Calibration, Vec<Option<Outcome>>) {
    let mut per_id: HashMap<&str, Vec<(f64, bool)>> = HashMap::new();
    for set in panel {
        for s in set.instances.iter().flatten() {
            per_id
                .entry(s.id.as_str())
                .or_default()
                .push((s.score, s.pass));
        }
    }
    struct Row<'a> {
        inst: &'a Instance,
        mean: f64,
        all: bool,
        none: bool,
    }
    let rows: Vec<Row> = dataset
        .iter()
        .filter_map(|inst| {
            let v = per_id.get(inst.id.as_str())?;
            Some(Row {
                inst,
                mean: v.iter().map(|(s, _)| s).sum::<f64>() / v.len() as f64,
                all: v.iter().all(|(_, p)| *p),
                none: v.iter().all(|(_, p)| !*p),
            })
        })
        .collect();
    let mut histogram: Vec<HistogramBin> = (0..10)
        .map(|k| HistogramBin {
            lo: k as f64 / 10.0,
            hi: (k + 1) as f64 / 10.0,
            count: 0,
        })
        .collect();
    for r in &rows {
        let bin = ((r.mean * 10.0).floor() as usize).min(9);
        histogram[bin].count += 1;
    }
    let mut slices = Vec::new();
    let mut slice = |kind: &str, key: String, members: Vec<&Row>| {
        if members.is_empty() {
            return;
        }
        let n = members.len() as f64;
        let all = members.iter().filter(|r| r.all).count() as f64 / n;
        let none = members.iter().filter(|r| r.none).count() as f64 / n;
        let flag = if members.len() < MIN_SLICE {
            None
        } else if all >= collapse {
            Some("all-solved".to_owned())
        } else if none >= collapse {
            Some("none-solved".to_owned())
        } else {
            None
        };
        slices.push(Slice {
            kind: kind.to_owned(),
            key,
            instances: members.len(),
            mean_score: members.iter().map(|r| r.mean).sum::<f64>() / n,
            solved_by_all: all,
            solved_by_none: none,
            flag,
        });
    };
    let mut by_len: BTreeMap<usize, Vec<&Row>> = BTreeMap::new();
    let mut by_cat: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in &rows {
        by_len.entry(r.inst.cascade_len).or_default().push(r);
        if let Some(c) = r.inst.category {
            by_cat.entry(c.to_string()).or_default().push(r);
        }
    }
    for (len, members) in by_len {
        slice("cascade_len", len.to_string(), members);
    }
    for (cat, members) in by_cat {
        slice("category", cat, members);
    }
    let outcomes = dataset
        .iter()
        .map(|inst| {
            let v = per_id.get(inst.id.as_str())?;
            Some(Outcome {
                all: v.iter().all(|(_, p)| *p),
                none: v.iter().all(|(_, p)| !*p),
            })
        })
        .collect();
    let calibration = Calibration {
        panel: panel.iter().map(|s| s.label.clone()).collect(),
        instances: rows.len(),
        all_zero: rows.iter().filter(|r| r.mean == 0.0).count(),
        all_one: rows.iter().filter(|r| r.mean == 1.0).count(),
        in_useful_range: rows
            .iter()
            .filter(|r| (0.2..=0.8).contains(&r.mean))
            .count(),
        histogram,
        slices,
        collapse,
        mean_scores: rows.iter().map(|r| (r.inst.id.clone(), r.mean)).collect(),
    };
    (calibration, outcomes)
}
