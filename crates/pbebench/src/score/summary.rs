//! Aggregates over scored instances: overall, by gold cascade length and by category
//! ([`summarize`]), and the one summary table that `pbebench score` and `pbebench eval`
//! print, column by column from [`COLUMNS`] (so that a new figure is one entry there).

use super::InstanceScore;
use crate::interval::{self, Interval};
use crate::metrics;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Aggregate figures over a set of instances. All are averages over instances (macro)
/// except `valid_rate` (a micro average over rules, as released) and
/// `valid_response_rate` (over every sample). An empty set has `instances = 0` and zero
/// figures. Every figure of a column ([`COLUMNS`]) has its standard error and 95% interval
/// in `intervals` ([`crate::interval`]: Wilson's interval where each instance gives one
/// 0/1 outcome, else the SE of the per-instance means).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Instances.
    pub instances: usize,
    /// Instances without any response (scored as failures).
    pub missing: usize,
    /// Responses scored.
    pub samples: usize,
    /// Instances whose outputs equal their inputs (degenerate Edit_Sim).
    pub degenerate: usize,
    /// Pass@1: the pass rate of one sample, `(1/N) Σ_j c_j / n_j` (the unbiased pass@k at
    /// k = 1; a missing instance counts as its one failing empty response). `None` with no
    /// instance.
    #[serde(default)]
    pub pass_at_1: Option<f64>,
    /// Best-of-K: share of instances whose chosen sample (any passing one, else the best
    /// Edit_Sim) passes: what the paper reports as "Pass@1 with sampling budget K". It
    /// equals Pass@1 with one sample per instance and grows with K.
    pub best_of_k: f64,
    /// Mean character Edit_Sim of the chosen samples.
    pub edit_sim: f64,
    /// Mean released word Edit_Sim of the chosen samples.
    pub edit_sim_word: f64,
    /// Valid_Rate: valid rules / rules over the chosen responses; `None` without rules.
    pub valid_rate: Option<f64>,
    /// Share of all samples that are entirely valid; `None` without samples.
    pub valid_response_rate: Option<f64>,
    /// Recovered@1: the unbiased estimator at k = 1 of "an answer is recovered"
    /// ([`super::SampleScore::recovered`]), as Pass@1 is of "passes":
    /// `(1/N') Σ_j c_j / n_j`, where `n_j` counts instance j's samples whose comparison was
    /// decided and `c_j` those recovered, over the `N'` graded instances with `n_j > 0`
    /// (`recovered_instances`). `None` when there is none (no gold cascades, or behaviour
    /// not graded), or where Pass@1 is undefined (no answered instance). A missing
    /// instance counts as its one empty response (the identity), as in pass@k.
    #[serde(default)]
    pub recovered: Option<f64>,
    /// Recovered pass@k: [`metrics::pass_at_k`]`(n_j, c_j, min(k, n_j))` averaged over the
    /// same instances, for the k of `pass_at_k`.
    #[serde(default)]
    pub recovered_at_k: BTreeMap<usize, f64>,
    /// Mean behaviour: `(1/N'') Σ_j mean_s behaviour_{j,s}`, the expected changed
    /// agreement of one sample with the gold, over the `N''` graded instances with a
    /// sample whose behaviour is defined (`behaviour_instances`). `None` when there is none.
    #[serde(default)]
    pub behaviour: Option<f64>,
    /// Instances in Recovered@1's mean.
    #[serde(default)]
    pub recovered_instances: usize,
    /// Instances in the mean behaviour.
    #[serde(default)]
    pub behaviour_instances: usize,
    /// Instances not graded on behaviour: no gold cascade (real word lists), or grading
    /// skipped.
    #[serde(default)]
    pub behaviour_skipped: usize,
    /// Samples of graded instances whose comparison is undecided (a bound was hit, or no
    /// input space): left out of `recovered` when no counterexample settled it, and out of
    /// `behaviour`.
    #[serde(default)]
    pub undecided: usize,
    /// Vetted mean reward, per sample as Pass@1 is: `(1/N) Σ_j mean_s score_{j,s}` of the
    /// samples' [`metrics::fractional_score`], which counts only the examples the gold
    /// changes (the identity earns 0). `None` with no instance, or read from a results
    /// file of format 1 with several samples per instance (which kept only the best-of-K
    /// figure).
    pub mean_reward: Option<f64>,
    /// Per sample: `(1/N) Σ_j` (share of instance j's samples with fractional score ≥ 0.95).
    pub almost: Option<f64>,
    /// Per sample: `(1/N) Σ_j` (share of instance j's samples with fractional score 1).
    pub resolved: Option<f64>,
    /// The vetted mean reward of the chosen samples (best-of-K).
    #[serde(default)]
    pub best_of_k_mean_reward: f64,
    /// Share of instances whose chosen sample has fractional score ≥ 0.95 (best-of-K).
    #[serde(default)]
    pub best_of_k_almost: f64,
    /// Share of instances whose chosen sample has fractional score 1 (best-of-K).
    #[serde(default)]
    pub best_of_k_resolved: f64,
    /// Held-out pass rate over instances with held-out examples; `None` without any.
    pub heldout_pass: Option<f64>,
    /// Instances with held-out examples.
    pub heldout_instances: usize,
    /// Unbiased pass@k for k = 1, 2, 4, … up to the fewest samples of an answered instance
    /// (that number included); missing instances count as 0.
    pub pass_at_k: BTreeMap<usize, f64>,
    /// k-fold average of the best-of-k Edit_Sim, same k ([`metrics::best_of_k_average`]).
    pub edit_sim_at_k: BTreeMap<usize, f64>,
    /// Survival curve of the chosen samples' fractional scores at 0, 0.05, …, 1.
    pub survival: Vec<metrics::SurvivalPoint>,
    /// The standard error and 95% interval of each figure, by its key ([`Column::key`]),
    /// and of pass@k, recovered@k and edit_sim@k under `pass@k`, `recovered@k`,
    /// `edit_sim@k` (k a number); a figure is absent where it is undefined or has fewer
    /// than two instances to measure a spread on (Wilson's interval needs one).
    #[serde(default)]
    pub intervals: BTreeMap<String, Interval>,
}

impl Aggregate {
    /// The interval of the figure of `column`, where there is one.
    pub fn interval(&self, column: &Column) -> Option<&Interval> {
        self.intervals.get(column.key)
    }
}

/// Aggregates overall, by gold cascade length and by category (`"none"` without one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Every instance.
    pub overall: Aggregate,
    /// By gold cascade length.
    pub by_cascade_len: BTreeMap<usize, Aggregate>,
    /// By category bits `F B CF CB`.
    pub by_category: BTreeMap<String, Aggregate>,
}

/// Computes the aggregates of a set of scored instances.
pub fn summarize(scores: &[InstanceScore]) -> Summary {
    let mut by_len: BTreeMap<usize, Vec<&InstanceScore>> = BTreeMap::new();
    let mut by_cat: BTreeMap<String, Vec<&InstanceScore>> = BTreeMap::new();
    for s in scores {
        by_len.entry(s.cascade_len).or_default().push(s);
        let cat = s
            .category
            .map_or_else(|| "none".to_owned(), |c| c.to_string());
        by_cat.entry(cat).or_default().push(s);
    }
    let all: Vec<&InstanceScore> = scores.iter().collect();
    Summary {
        overall: aggregate(&all),
        by_cascade_len: by_len
            .into_iter()
            .map(|(k, v)| (k, aggregate(&v)))
            .collect(),
        by_category: by_cat
            .into_iter()
            .map(|(k, v)| (k, aggregate(&v)))
            .collect(),
    }
}

fn aggregate(scores: &[&InstanceScore]) -> Aggregate {
    let field = |f: fn(&InstanceScore) -> f64| -> f64 {
        metrics::mean(&scores.iter().map(|s| f(s)).collect::<Vec<_>>()).unwrap_or(0.0)
    };
    let fractional: Vec<f64> = scores.iter().map(|s| s.score).collect();
    let heldout: Vec<Option<bool>> = scores.iter().map(|s| s.heldout_pass).collect();
    let answered = || scores.iter().filter(|s| !s.missing);
    let samples: usize = answered().map(|s| s.samples.len()).sum();
    let valid_samples = answered()
        .flat_map(|s| &s.samples)
        .filter(|s| s.valid)
        .count();
    // The graded instances with a decided sample: their (n, c) for recovered pass@k.
    let decided: Vec<(usize, usize)> = scores
        .iter()
        .filter(|s| s.graded)
        .map(|s| (s.decided_samples(), s.recovered_samples()))
        .filter(|(n, _)| *n > 0)
        .collect();
    let AtK {
        pass_at_k,
        recovered_at_k,
        edit_sim_at_k,
        intervals: at_k_intervals,
    } = at_k(scores, &decided);
    let behaviours: Vec<f64> = (scores.iter().filter(|s| s.graded))
        .filter_map(|s| {
            metrics::mean(
                &s.samples
                    .iter()
                    .filter_map(|x| x.behaviour)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let graded_samples = scores.iter().filter(|s| s.graded).flat_map(|s| &s.samples);
    let per_sample = |c: &Column| c.mean_of(scores);
    let mut aggregate = Aggregate {
        instances: scores.len(),
        missing: scores.iter().filter(|s| s.missing).count(),
        samples,
        degenerate: scores.iter().filter(|s| s.degenerate).count(),
        pass_at_1: pass_at_k.get(&1).copied(),
        best_of_k: field(|s| f64::from(u8::from(s.pass))),
        edit_sim: field(|s| s.edit_sim),
        edit_sim_word: field(|s| s.edit_sim_word),
        valid_rate: metrics::valid_rate(
            scores.iter().map(|s| s.valid_rules).sum(),
            scores.iter().map(|s| s.rules).sum(),
        ),
        valid_response_rate: (samples > 0).then(|| valid_samples as f64 / samples as f64),
        recovered: recovered_at_k.get(&1).copied(),
        recovered_at_k,
        behaviour: metrics::mean(&behaviours),
        recovered_instances: decided.len(),
        behaviour_instances: behaviours.len(),
        behaviour_skipped: scores.iter().filter(|s| !s.graded).count(),
        undecided: graded_samples.filter(|x| x.undecided.is_some()).count(),
        mean_reward: per_sample(&Column::MEAN_REWARD),
        almost: per_sample(&Column::ALMOST),
        resolved: per_sample(&Column::RESOLVED),
        best_of_k_mean_reward: metrics::mean_reward(&fractional).unwrap_or(0.0),
        best_of_k_almost: metrics::almost(&fractional).unwrap_or(0.0),
        best_of_k_resolved: metrics::resolved(&fractional).unwrap_or(0.0),
        heldout_pass: metrics::heldout_pass_rate(&heldout),
        heldout_instances: heldout.iter().flatten().count(),
        pass_at_k,
        edit_sim_at_k,
        survival: metrics::survival_curve(&fractional, &metrics::default_thresholds()),
        intervals: BTreeMap::new(),
    };
    aggregate.intervals = (COLUMNS.iter().chain(&BEST_OF_K_VETTED))
        .filter(|c| (c.value)(&aggregate).is_some())
        .filter_map(|c| Some((c.key.to_owned(), c.interval(scores)?)))
        .chain(at_k_intervals)
        .collect();
    aggregate
}

/// The figures at each k (1, 2, 4, … below the fewest samples an answered instance has,
/// and that number): pass@k, recovered@k, edit_sim@k, and their intervals under `pass@k`
/// (…) keys.
struct AtK {
    pass_at_k: BTreeMap<usize, f64>,
    recovered_at_k: BTreeMap<usize, f64>,
    edit_sim_at_k: BTreeMap<usize, f64>,
    intervals: BTreeMap<String, Interval>,
}

/// [`AtK`] of `scores`, whose graded instances with a decided sample have the (n, c) of
/// `decided` for recovered@k.
fn at_k(scores: &[&InstanceScore], decided: &[(usize, usize)]) -> AtK {
    let fewest = (scores.iter().filter(|s| !s.missing))
        .map(|s| s.samples.len())
        .min()
        .unwrap_or(0);
    let mut ks: Vec<usize> = std::iter::successors(Some(1usize), |k| k.checked_mul(2))
        .take_while(|k| *k < fewest)
        .collect();
    if fewest > 0 {
        ks.push(fewest);
    }
    let mut pass_at_k = BTreeMap::new();
    let mut recovered_at_k = BTreeMap::new();
    let recovered_at = |k: usize| -> Vec<f64> {
        (decided.iter())
            .map(|&(n, c)| metrics::pass_at_k(n, c, k.min(n)).unwrap_or(0.0))
            .collect()
    };
    // The intervals of pass@k, recovered@k and edit_sim@k, under `pass@k` (…) keys.
    let mut at_k_intervals: BTreeMap<String, Interval> = BTreeMap::new();
    let share_interval = |values: &[f64]| {
        let unanimous = values.iter().all(|v| *v == 0.0 || *v == 1.0);
        interval::rate(values, unanimous)
    };
    let mut edit_sim_at_k = BTreeMap::new();
    // Each instance's Edit_Sims, highest first, sorted once for every k.
    let sorted_sims: Vec<Vec<f64>> = scores
        .iter()
        .map(|s| {
            let mut sims: Vec<f64> = s.samples.iter().map(|x| x.edit_sim).collect();
            sims.sort_by(|a, b| b.total_cmp(a));
            sims
        })
        .collect();
    for &k in &ks {
        // A missing instance has its one empty response: k is capped at 1 for it.
        let mut pass = Vec::with_capacity(scores.len());
        let mut sim = Vec::with_capacity(scores.len());
        for (s, sims) in scores.iter().zip(&sorted_sims) {
            let n = s.samples.len();
            let k = k.min(n);
            pass.push(metrics::pass_at_k(n, s.passing_samples(), k).unwrap_or(0.0));
            sim.push(metrics::best_of_k_average_sorted(sims, k).unwrap_or(0.0));
        }
        pass_at_k.insert(k, metrics::mean(&pass).unwrap_or(0.0));
        let recovered = recovered_at(k);
        if let Some(r) = metrics::mean(&recovered) {
            recovered_at_k.insert(k, r);
        }
        edit_sim_at_k.insert(k, metrics::mean(&sim).unwrap_or(0.0));
        for (name, i) in [
            ("pass", share_interval(&pass)),
            ("recovered", share_interval(&recovered)),
            ("edit_sim", interval::clustered(&sim)),
        ] {
            if let Some(i) = i {
                at_k_intervals.insert(format!("{name}@{k}"), i);
            }
        }
    }
    AtK {
        pass_at_k,
        recovered_at_k,
        edit_sim_at_k,
        intervals: at_k_intervals,
    }
}

/// What one instance contributes to a figure, which decides the figure's interval
/// ([`crate::interval`]).
#[derive(Debug, Clone, Copy)]
pub enum PerInstance {
    /// One 0/1 outcome per instance (best-of-K, the chosen answer's held-out pass):
    /// Wilson's interval. `None` where the instance is left out of the figure.
    Outcome(fn(&InstanceScore) -> Option<f64>),
    /// The share of the instance's samples with a property (Pass@1, Recovered@1, almost,
    /// resolved): Wilson's interval when every share is 0 or 1 (one sample an instance, or
    /// samples that agree), else the clustered SE of the per-instance shares.
    Share(fn(&InstanceScore) -> Option<f64>),
    /// A mean that is not 0/1 (behaviour, Edit_Sim, mean reward): the clustered SE of the
    /// per-instance means.
    Mean(fn(&InstanceScore) -> Option<f64>),
    /// A ratio of sums over instances (numerator, denominator): Valid_Rate, valid
    /// responses; the delta-method SE ([`interval::ratio`]).
    Ratio(fn(&InstanceScore) -> Option<(f64, f64)>),
}

/// Instance j's share of samples that pass: `c_j / n_j`, Pass@1's term.
fn passing_share(s: &InstanceScore) -> Option<f64> {
    Some(s.passing_samples() as f64 / s.samples.len().max(1) as f64)
}

/// The mean over instance j's samples of `f` (`None` with no sample).
fn sample_mean(s: &InstanceScore, f: impl Fn(&super::SampleScore) -> f64) -> Option<f64> {
    metrics::mean(&s.samples.iter().map(f).collect::<Vec<_>>())
}

fn bit(b: bool) -> f64 {
    f64::from(u8::from(b))
}

/// One figure of the summary table: its header and where an [`Aggregate`] holds it. Every
/// table of figures (`pbebench score` and `eval`, the report's leaderboard, the audit's
/// shortcut baselines) takes its columns from [`COLUMNS`], so that a figure has one name
/// and one precision everywhere.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The header, as every table prints it.
    pub header: &'static str,
    /// The figure's key in results files (`Aggregate`'s field, and its `intervals` key).
    pub key: &'static str,
    /// What the figure is, for legends.
    pub meaning: &'static str,
    /// The figure in an aggregate; `None` where it is undefined.
    pub value: fn(&Aggregate) -> Option<f64>,
    /// What one instance contributes to it (for its interval and paired comparisons).
    pub per_instance: PerInstance,
}

impl Column {
    /// The figure of `a` as every table prints it ([`figure`]).
    pub fn cell(&self, a: &Aggregate) -> String {
        figure((self.value)(a))
    }

    /// The figure of `a` and its standard error, as the summary table prints them:
    /// `0.250±0.031` (the figure alone where it has no interval).
    pub fn cell_with_se(&self, a: &Aggregate) -> String {
        match ((self.value)(a), a.interval(self)) {
            (Some(v), Some(i)) => format!("{v:.3}±{:.3}", i.se),
            (v, _) => figure(v),
        }
    }

    /// The width of the column in a text table: its header, at least a figure's.
    pub fn width(&self) -> usize {
        self.header.chars().count().max(5)
    }

    /// What instance `s` contributes to the figure: `None` where it is left out (or the
    /// figure is a ratio of sums, [`PerInstance::Ratio`]).
    pub fn instance_value(&self, s: &InstanceScore) -> Option<f64> {
        match self.per_instance {
            PerInstance::Outcome(f) | PerInstance::Share(f) | PerInstance::Mean(f) => f(s),
            PerInstance::Ratio(_) => None,
        }
    }

    /// The mean of the instances' values (`None` where none contributes).
    fn mean_of(&self, scores: &[&InstanceScore]) -> Option<f64> {
        let values: Vec<f64> = scores
            .iter()
            .filter_map(|s| self.instance_value(s))
            .collect();
        metrics::mean(&values)
    }

    /// The figure's standard error and 95% interval over `scores`, by the method its
    /// [`PerInstance`] calls for; `None` where it is undefined or measured on fewer than
    /// two instances (one for Wilson's).
    pub fn interval(&self, scores: &[&InstanceScore]) -> Option<Interval> {
        let values = |f: fn(&InstanceScore) -> Option<f64>| -> Vec<f64> {
            scores.iter().filter_map(|s| f(s)).collect()
        };
        match self.per_instance {
            PerInstance::Outcome(f) => interval::rate(&values(f), true),
            PerInstance::Share(f) => {
                let shares = values(f);
                let unanimous = shares.iter().all(|v| *v == 0.0 || *v == 1.0);
                interval::rate(&shares, unanimous)
            }
            PerInstance::Mean(f) => interval::clustered(&values(f)),
            PerInstance::Ratio(f) => {
                interval::ratio(&scores.iter().filter_map(|s| f(s)).collect::<Vec<_>>())
            }
        }
    }
}

/// A figure as every table prints it: three decimals, or "–" where it is undefined (no
/// rules, no held-out examples, no answered instance).
pub fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"))
}

/// The columns, one by one (for tables that show some of them, as the audit's shortcut
/// baselines do).
impl Column {
    /// The "Pass@1" column.
    pub const PASS_AT_1: Column = Column {
        header: "Pass@1",
        key: "pass_at_1",
        meaning: "pass rate of one sample: the unbiased pass@k at k = 1",
        value: |a| a.pass_at_1,
        per_instance: PerInstance::Share(passing_share),
    };

    /// The "best-of-K" column.
    pub const BEST_OF_K: Column = Column {
        header: "best-of-K",
        key: "best_of_k",
        meaning: "share of instances whose chosen sample (any passing one, else the best \
                      Edit_Sim) reproduces every example: the paper's \"Pass@1 with sampling \
                      budget K\"",
        value: |a| Some(a.best_of_k),
        per_instance: PerInstance::Outcome(|s| Some(bit(s.pass))),
    };

    /// The "Recovered@1" column.
    pub const RECOVERED_AT_1: Column = Column {
        header: "Recovered@1",
        key: "recovered",
        meaning: "share of samples equivalent to the gold on every input of the instance's \
                      input space (the unbiased estimator at k = 1), over instances with a \
                      gold cascade",
        value: |a| a.recovered,
        per_instance: PerInstance::Share(|s| {
            let decided = s.decided_samples();
            (s.graded && decided > 0).then(|| s.recovered_samples() as f64 / decided as f64)
        }),
    };

    /// The "behaviour" column.
    pub const BEHAVIOUR: Column = Column {
        header: "behaviour",
        key: "behaviour",
        meaning: "mean probability that a sample gives the gold's output on a random input \
                      the gold changes (exact changed agreement)",
        value: |a| a.behaviour,
        per_instance: PerInstance::Mean(|s| {
            let defined: Vec<f64> = s.samples.iter().filter_map(|x| x.behaviour).collect();
            s.graded.then(|| metrics::mean(&defined)).flatten()
        }),
    };

    /// The "Edit_Sim" column.
    pub const EDIT_SIM: Column = Column {
        header: "Edit_Sim",
        key: "edit_sim",
        meaning: "1 − Σ edit distance to the outputs / Σ distance of the inputs \
                      (characters), of the chosen sample",
        value: |a| Some(a.edit_sim),
        per_instance: PerInstance::Mean(|s| Some(s.edit_sim)),
    };

    /// The "edit_sim_word" column.
    pub const EDIT_SIM_WORD: Column = Column {
        header: "edit_sim_word",
        key: "edit_sim_word",
        meaning: "the released word-level Edit_Sim",
        value: |a| Some(a.edit_sim_word),
        per_instance: PerInstance::Mean(|s| Some(s.edit_sim_word)),
    };

    /// The "Valid_Rate" column.
    pub const VALID_RATE: Column = Column {
        header: "Valid_Rate",
        key: "valid_rate",
        meaning: "share of valid rules in the chosen responses",
        value: |a| a.valid_rate,
        per_instance: PerInstance::Ratio(|s| Some((s.valid_rules as f64, s.rules as f64))),
    };

    /// The "valid responses" column.
    pub const VALID_RESPONSES: Column = Column {
        header: "valid responses",
        key: "valid_response_rate",
        meaning: "share of all samples that are entirely valid",
        value: |a| a.valid_response_rate,
        per_instance: PerInstance::Ratio(|s| {
            let valid = s.samples.iter().filter(|x| x.valid).count();
            (!s.missing).then_some((valid as f64, s.samples.len() as f64))
        }),
    };

    /// The "mean reward" column.
    pub const MEAN_REWARD: Column = Column {
        header: "mean reward",
        key: "mean_reward",
        meaning: "mean share of the examples the gold changes that are reproduced exactly, \
                      per sample (vetted fractional score; the identity earns 0)",
        value: |a| a.mean_reward,
        per_instance: PerInstance::Mean(|s| sample_mean(s, |x| x.score)),
    };

    /// The "almost" column.
    pub const ALMOST: Column = Column {
        header: "almost",
        key: "almost",
        meaning: "share of samples at a fractional score of at least 95%",
        value: |a| a.almost,
        per_instance: PerInstance::Share(|s| sample_mean(s, |x| bit(x.score >= metrics::ALMOST))),
    };

    /// The "resolved" column.
    pub const RESOLVED: Column = Column {
        header: "resolved",
        key: "resolved",
        meaning: "share of samples at a fractional score of 100%",
        value: |a| a.resolved,
        per_instance: PerInstance::Share(|s| sample_mean(s, |x| bit(x.score >= 1.0))),
    };

    /// The "held-out pass" column.
    pub const HELDOUT_PASS: Column = Column {
        header: "held-out pass",
        key: "heldout_pass",
        meaning: "share of instances with held-out examples whose chosen answer also \
                      reproduces those it never saw",
        value: |a| a.heldout_pass,
        per_instance: PerInstance::Outcome(|s| s.heldout_pass.map(bit)),
    };

    /// The best-of-K mean reward (not a column of the summary table).
    pub const BEST_OF_K_MEAN_REWARD: Column = Column {
        header: "best-of-K mean reward",
        key: "best_of_k_mean_reward",
        meaning: "the vetted mean reward of each instance's chosen sample",
        value: |a| Some(a.best_of_k_mean_reward),
        per_instance: PerInstance::Mean(|s| Some(s.score)),
    };

    /// The best-of-K almost (not a column of the summary table).
    pub const BEST_OF_K_ALMOST: Column = Column {
        header: "best-of-K almost",
        key: "best_of_k_almost",
        meaning: "share of instances whose chosen sample scores at least 95%",
        value: |a| Some(a.best_of_k_almost),
        per_instance: PerInstance::Outcome(|s| Some(bit(s.score >= metrics::ALMOST))),
    };

    /// The best-of-K resolved (not a column of the summary table).
    pub const BEST_OF_K_RESOLVED: Column = Column {
        header: "best-of-K resolved",
        key: "best_of_k_resolved",
        meaning: "share of instances whose chosen sample scores 100%",
        value: |a| Some(a.best_of_k_resolved),
        per_instance: PerInstance::Outcome(|s| Some(bit(s.score >= 1.0))),
    };
}

/// The columns of the summary table, in order. `docs/metrics.md` names them: "Pass@1" is the pass
/// rate of one sample (the unbiased estimator at k = 1) and "best-of-K" the paper's
/// "Pass@1 with sampling budget K", so that the two never share a header.
pub const COLUMNS: [Column; 12] = [
    Column::PASS_AT_1,
    Column::BEST_OF_K,
    Column::RECOVERED_AT_1,
    Column::BEHAVIOUR,
    Column::EDIT_SIM,
    Column::EDIT_SIM_WORD,
    Column::VALID_RATE,
    Column::VALID_RESPONSES,
    Column::MEAN_REWARD,
    Column::ALMOST,
    Column::RESOLVED,
    Column::HELDOUT_PASS,
];

/// The best-of-K variants of the vetted figures: in results files and comparisons, not in
/// the summary table.
pub const BEST_OF_K_VETTED: [Column; 3] = [
    Column::BEST_OF_K_MEAN_REWARD,
    Column::BEST_OF_K_ALMOST,
    Column::BEST_OF_K_RESOLVED,
];

/// The width of a row's name (`overall`, `len 12`, `cat 1011`).
const GROUP: usize = 10;
/// The width of the instance count.
const COUNT: usize = 6;

impl Summary {
    /// The rows of the table: overall, by cascade length, by category.
    fn rows(&self) -> impl Iterator<Item = (String, &Aggregate)> {
        std::iter::once(("overall".to_owned(), &self.overall))
            .chain(
                self.by_cascade_len
                    .iter()
                    .map(|(len, a)| (format!("len {len}"), a)),
            )
            .chain(
                self.by_category
                    .iter()
                    .map(|(cat, a)| (format!("cat {cat}"), a)),
            )
    }
}

/// The summary table: a row overall, by cascade length and by category, a column per
/// entry of [`COLUMNS`] with its standard error (`0.250±0.031`), then pass@k and the
/// best-of-k Edit_Sim for every k measured, and the 95% interval of every overall figure.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<(String, usize, Vec<String>)> = (self.rows())
            .map(|(name, a)| {
                let cells = COLUMNS.iter().map(|c| c.cell_with_se(a)).collect();
                (name, a.instances, cells)
            })
            .collect();
        let widths: Vec<usize> = (COLUMNS.iter().enumerate())
            .map(|(k, c)| (rows.iter().map(|r| r.2[k].chars().count())).fold(c.width(), usize::max))
            .collect();
        write!(f, "{:<GROUP$} {:>COUNT$}", "group", "n")?;
        for (c, w) in COLUMNS.iter().zip(&widths) {
            write!(f, " {:>w$}", c.header)?;
        }
        writeln!(f)?;
        for (name, n, cells) in &rows {
            write!(f, "{name:<GROUP$} {n:>COUNT$}")?;
            for (cell, w) in cells.iter().zip(&widths) {
                write!(f, " {cell:>w$}")?;
            }
            writeln!(f)?;
        }
        let o = &self.overall;
        let at_k = |name: &str, m: &BTreeMap<usize, f64>| {
            m.iter()
                .map(|(k, v)| match o.intervals.get(&format!("{name}@{k}")) {
                    Some(i) => format!("{k}: {v:.3}±{:.3}", i.se),
                    None => format!("{k}: {}", figure(Some(*v))),
                })
                .collect::<Vec<_>>()
                .join("  ")
        };
        if !o.pass_at_k.is_empty() {
            writeln!(f, "{:<GROUP$} {}", "pass@k", at_k("pass", &o.pass_at_k))?;
            writeln!(
                f,
                "{:<GROUP$} {}",
                "edit_sim@k",
                at_k("edit_sim", &o.edit_sim_at_k)
            )?;
        }
        if !o.recovered_at_k.is_empty() {
            writeln!(
                f,
                "{:<GROUP$} {}",
                "recovered@k",
                at_k("recovered", &o.recovered_at_k)
            )?;
        }
        if o.behaviour_skipped > 0 || o.undecided > 0 {
            writeln!(
                f,
                "(behaviour: {} instances not graded (no gold cascade, or grading \
                 skipped), {} samples undecided (a bound of the exact comparison))",
                o.behaviour_skipped, o.undecided
            )?;
        }
        write_intervals(f, o)?;
        writeln!(
            f,
            "(best-of-K is the paper's \"Pass@1 with sampling budget K\"; Pass@1 is the pass \
             rate of one sample; mean reward, almost and resolved are per sample)"
        )
    }
}

/// The overall 95% intervals, one figure a line, with the method of each.
fn write_intervals(f: &mut fmt::Formatter<'_>, o: &Aggregate) -> fmt::Result {
    let shown: Vec<(&Column, &Interval)> = (COLUMNS.iter())
        .filter_map(|c| Some((c, o.interval(c)?)))
        .collect();
    if shown.is_empty() {
        return Ok(());
    }
    let width = shown.iter().map(|(c, _)| c.width()).max().unwrap_or(0);
    writeln!(f, "95% intervals, overall (± above is one standard error):")?;
    for (c, i) in shown {
        writeln!(
            f,
            "  {:<width$} {}  {}, n {}",
            c.header,
            i.bounds(),
            i.method.name(),
            i.n
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{block, instance};
    use super::super::{score_instance, ScoreOptions};
    use super::*;

    #[test]
    fn summary_by_hand() {
        let a = instance("a");
        let mut b = instance("b");
        b.cascade_len = 3;
        b.category = None;
        let pass = block(r#"["replace('ab', 'c')", "replace('c', 'd')"]"#);
        let half = block(r#"["replace('c', 'd')", "replace('abc', 'd')"]"#); // 1 valid of 2
        let sa = score_instance(&a, &[pass.clone(), half.clone()], &ScoreOptions::default());
        let sb = score_instance(&b, &[half.clone(), half], &ScoreOptions::default());
        let summary = summarize(&[sa, sb]);
        let o = &summary.overall;
        assert_eq!((o.instances, o.samples, o.missing), (2, 4, 0));
        assert_eq!(o.best_of_k, 0.5);
        assert_eq!(o.pass_at_1, Some(0.25));
        assert_eq!(o.edit_sim, 0.75);
        assert_eq!(
            o.valid_rate,
            Some(3.0 / 4.0),
            "2 of 2 and 1 of 2 chosen rules"
        );
        assert_eq!(o.valid_response_rate, Some(0.25));
        assert_eq!(o.pass_at_k[&1], 0.25);
        assert_eq!(o.pass_at_k[&2], 0.5);
        assert_eq!(o.edit_sim_at_k[&1], (0.75 + 0.5) / 2.0);
        assert_eq!(o.heldout_pass, Some(0.5));
        // `half` reproduces "cc"→"dd" of the two examples the gold changes: sample scores
        // 1, 0.5 and 0.5, 0.5. Per sample, resolved is Pass@1 (one passing sample of
        // four); best-of-K takes each instance's chosen sample.
        assert_eq!(o.resolved, Some(0.25));
        assert_eq!(o.almost, Some(0.25));
        assert_eq!(o.mean_reward, Some((0.75 + 0.5) / 2.0));
        assert_eq!(o.best_of_k_resolved, 0.5);
        assert_eq!(o.best_of_k_mean_reward, (1.0 + 0.5) / 2.0);
        assert_eq!(o.survival.len(), 21);
        assert_eq!(summary.by_cascade_len[&2].best_of_k, 1.0);
        assert_eq!(summary.by_cascade_len[&3].best_of_k, 0.0);
        // Two samples an instance: Pass@1's interval is clustered, over the per-instance
        // shares 1/2 and 0: SE = sd/√2 = (√2/4)/√2 = 0.25. Best-of-K is one outcome an
        // instance: Wilson's 1 of 2.
        let pass_at_1 = o.interval(&Column::PASS_AT_1).unwrap();
        assert_eq!(pass_at_1.method, interval::Method::Clustered);
        assert!((pass_at_1.se - 0.25).abs() < 1e-12, "{pass_at_1:?}");
        assert_eq!(
            o.interval(&Column::BEST_OF_K),
            interval::wilson(1, 2).as_ref()
        );
        let mean_reward = o.interval(&Column::MEAN_REWARD).unwrap();
        assert_eq!(mean_reward.mean, o.mean_reward.unwrap());
        assert!((mean_reward.se - 0.125).abs() < 1e-12, "{mean_reward:?}");
        // pass@2 is 1 and 0 on the two instances: one outcome each, Wilson's.
        assert_eq!(o.intervals.get("pass@2"), interval::wilson(1, 2).as_ref());
        // The table prints each figure with its SE, and the overall intervals below.
        let table = summary.to_string();
        assert!(table.contains("2: 0.500±0."), "{table}");
        assert!(table.contains(" 0.250±0.250 "), "{table}");
        assert!(table.contains("95% intervals, overall"), "{table}");
        assert_eq!(summary.by_category["1000"].instances, 1);
        assert_eq!(summary.by_category["none"].instances, 1);
        assert!(serde_json::to_string(&summary).is_ok());
    }

    /// One sample an instance: Pass@1, resolved and almost are one outcome an instance,
    /// with Wilson's interval; the per-sample and best-of-K figures agree.
    #[test]
    fn one_sample_each_takes_wilson() {
        let pass = block(r#"["replace('ab', 'c')", "replace('c', 'd')"]"#);
        let options = ScoreOptions::default();
        let scores: Vec<InstanceScore> = (0..5)
            .map(|k| {
                let answer = if k < 2 { pass.clone() } else { String::new() };
                score_instance(&instance(&k.to_string()), &[answer], &options)
            })
            .collect();
        let o = summarize(&scores).overall;
        assert_eq!(o.pass_at_1, Some(0.4));
        assert_eq!((o.resolved, o.best_of_k_resolved), (Some(0.4), 0.4));
        for c in [Column::PASS_AT_1, Column::BEST_OF_K, Column::RESOLVED] {
            assert_eq!(o.interval(&c), interval::wilson(2, 5).as_ref(), "{}", c.key);
        }
    }
}
