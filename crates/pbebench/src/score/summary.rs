//! Aggregates over scored instances: overall, by gold cascade length and by category
//! ([`summarize`]), and the one summary table that `pbebench score` and `pbebench eval`
//! print, column by column from [`COLUMNS`] (so that a new figure is one entry there).

use super::InstanceScore;
use crate::metrics;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Aggregate figures over a set of instances. All are averages over instances (macro)
/// except `valid_rate` (a micro average over rules, as released) and
/// `valid_response_rate` (over every sample). An empty set has `instances = 0` and zero
/// figures.
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
    /// Best-of-K: share of instances whose chosen sample passes (what the paper reports as
    /// "Pass@1 with sampling budget K"; Pass@1 proper is `pass_at_k[&1]`).
    pub pass: f64,
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
    /// Mean fractional score (vetted mean reward): [`metrics::mean_reward`] of the
    /// chosen samples' [`metrics::fractional_score`], which counts only the examples the
    /// gold changes (the identity earns 0).
    pub mean_reward: f64,
    /// Share of instances with fractional score ≥ 0.95.
    pub almost: f64,
    /// Share of instances with fractional score 1.
    pub resolved: f64,
    /// Held-out pass rate over instances with held-out examples; `None` without any.
    pub heldout_pass: Option<f64>,
    /// Instances with held-out examples.
    pub heldout_instances: usize,
    /// Unbiased pass@k for k = 1, 2, 4, … up to the fewest samples of an answered instance
    /// (that number included); missing instances count as 0.
    pub pass_at_k: BTreeMap<usize, f64>,
    /// k-fold average of the best-of-k Edit_Sim, same k ([`metrics::best_of_k_average`]).
    pub edit_sim_at_k: BTreeMap<usize, f64>,
    /// Survival curve of fractional scores at 0, 0.05, …, 1.
    pub survival: Vec<metrics::SurvivalPoint>,
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
    let fewest = answered().map(|s| s.samples.len()).min().unwrap_or(0);
    let mut ks: Vec<usize> = std::iter::successors(Some(1usize), |k| k.checked_mul(2))
        .take_while(|k| *k < fewest)
        .collect();
    if fewest > 0 {
        ks.push(fewest);
    }
    let mut pass_at_k = BTreeMap::new();
    let mut recovered_at_k = BTreeMap::new();
    // The graded instances with a decided sample: their (n, c) for recovered pass@k.
    let decided: Vec<(usize, usize)> = scores
        .iter()
        .filter(|s| s.graded)
        .map(|s| (s.decided_samples(), s.recovered_samples()))
        .filter(|(n, _)| *n > 0)
        .collect();
    let recovered_at = |k: usize| {
        let each: Vec<f64> = (decided.iter())
            .map(|&(n, c)| metrics::pass_at_k(n, c, k.min(n)).unwrap_or(0.0))
            .collect();
        metrics::mean(&each)
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
        if let Some(r) = recovered_at(k) {
            recovered_at_k.insert(k, r);
        }
        edit_sim_at_k.insert(k, metrics::mean(&sim).unwrap_or(0.0));
    }
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
    Aggregate {
        instances: scores.len(),
        missing: scores.iter().filter(|s| s.missing).count(),
        samples,
        degenerate: scores.iter().filter(|s| s.degenerate).count(),
        pass: field(|s| f64::from(u8::from(s.pass))),
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
        mean_reward: metrics::mean_reward(&fractional).unwrap_or(0.0),
        almost: metrics::almost(&fractional).unwrap_or(0.0),
        resolved: metrics::resolved(&fractional).unwrap_or(0.0),
        heldout_pass: metrics::heldout_pass_rate(&heldout),
        heldout_instances: heldout.iter().flatten().count(),
        pass_at_k,
        edit_sim_at_k,
        survival: metrics::survival_curve(&fractional, &metrics::default_thresholds()),
    }
}

/// One figure of the summary table: its header and where an [`Aggregate`] holds it. Every
/// table of figures (`pbebench score` and `eval`, the report's leaderboard, the audit's
/// shortcut baselines) takes its columns from [`COLUMNS`], so that a figure has one name
/// and one precision everywhere.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The header, as every table prints it.
    pub header: &'static str,
    /// What the figure is, for legends.
    pub meaning: &'static str,
    /// The figure in an aggregate; `None` where it is undefined.
    pub value: fn(&Aggregate) -> Option<f64>,
}

impl Column {
    /// The figure of `a` as every table prints it ([`figure`]).
    pub fn cell(&self, a: &Aggregate) -> String {
        figure((self.value)(a))
    }

    /// The width of the column in a text table: its header, at least a figure's.
    pub fn width(&self) -> usize {
        self.header.chars().count().max(5)
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
        meaning: "pass rate of one sample: the unbiased pass@k at k = 1",
        value: |a| a.pass_at_k.get(&1).copied(),
    };

    /// The "best-of-K" column.
    pub const BEST_OF_K: Column = Column {
        header: "best-of-K",
        meaning: "share of instances whose chosen sample (any passing one, else the best \
                      Edit_Sim) reproduces every example: the paper's \"Pass@1 with sampling \
                      budget K\"",
        value: |a| Some(a.pass),
    };

    /// The "Recovered@1" column.
    pub const RECOVERED_AT_1: Column = Column {
        header: "Recovered@1",
        meaning: "share of samples equivalent to the gold on every input of the instance's \
                      input space (the unbiased estimator at k = 1), over instances with a \
                      gold cascade",
        value: |a| a.recovered,
    };

    /// The "behaviour" column.
    pub const BEHAVIOUR: Column = Column {
        header: "behaviour",
        meaning: "mean probability that a sample gives the gold's output on a random input \
                      the gold changes (exact changed agreement)",
        value: |a| a.behaviour,
    };

    /// The "Edit_Sim" column.
    pub const EDIT_SIM: Column = Column {
        header: "Edit_Sim",
        meaning: "1 − Σ edit distance to the outputs / Σ distance of the inputs \
                      (characters), of the chosen sample",
        value: |a| Some(a.edit_sim),
    };

    /// The "edit_sim_word" column.
    pub const EDIT_SIM_WORD: Column = Column {
        header: "edit_sim_word",
        meaning: "the released word-level Edit_Sim",
        value: |a| Some(a.edit_sim_word),
    };

    /// The "Valid_Rate" column.
    pub const VALID_RATE: Column = Column {
        header: "Valid_Rate",
        meaning: "share of valid rules in the chosen responses",
        value: |a| a.valid_rate,
    };

    /// The "valid responses" column.
    pub const VALID_RESPONSES: Column = Column {
        header: "valid responses",
        meaning: "share of all samples that are entirely valid",
        value: |a| a.valid_response_rate,
    };

    /// The "mean reward" column.
    pub const MEAN_REWARD: Column = Column {
        header: "mean reward",
        meaning: "mean share of the examples the gold changes that are reproduced exactly \
                      (vetted fractional score; the identity earns 0)",
        value: |a| Some(a.mean_reward),
    };

    /// The "almost" column.
    pub const ALMOST: Column = Column {
        header: "almost",
        meaning: "share of instances at a fractional score of at least 95%",
        value: |a| Some(a.almost),
    };

    /// The "resolved" column.
    pub const RESOLVED: Column = Column {
        header: "resolved",
        meaning: "share of instances at a fractional score of 100%",
        value: |a| Some(a.resolved),
    };

    /// The "held-out pass" column.
    pub const HELDOUT_PASS: Column = Column {
        header: "held-out pass",
        meaning: "share of instances with held-out examples whose chosen answer also \
                      reproduces those it never saw",
        value: |a| a.heldout_pass,
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
/// entry of [`COLUMNS`], then pass@k and the best-of-k Edit_Sim for every k measured.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<GROUP$} {:>COUNT$}", "group", "n")?;
        for c in &COLUMNS {
            write!(f, " {:>w$}", c.header, w = c.width())?;
        }
        writeln!(f)?;
        for (name, a) in self.rows() {
            write!(f, "{name:<GROUP$} {:>COUNT$}", a.instances)?;
            for c in &COLUMNS {
                write!(f, " {:>w$}", c.cell(a), w = c.width())?;
            }
            writeln!(f)?;
        }
        let at_k = |m: &BTreeMap<usize, f64>| {
            m.iter()
                .map(|(k, v)| format!("{k}: {}", figure(Some(*v))))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let o = &self.overall;
        if !o.pass_at_k.is_empty() {
            writeln!(f, "{:<GROUP$} {}", "pass@k", at_k(&o.pass_at_k))?;
            writeln!(f, "{:<GROUP$} {}", "edit_sim@k", at_k(&o.edit_sim_at_k))?;
        }
        if !o.recovered_at_k.is_empty() {
            writeln!(f, "{:<GROUP$} {}", "recovered@k", at_k(&o.recovered_at_k))?;
        }
        if o.behaviour_skipped > 0 || o.undecided > 0 {
            writeln!(
                f,
                "(behaviour: {} instances not graded (no gold cascade, or grading \
                 skipped), {} samples undecided (a bound of the exact comparison))",
                o.behaviour_skipped, o.undecided
            )?;
        }
        writeln!(
            f,
            "(best-of-K is the paper's \"Pass@1 with sampling budget K\"; Pass@1 is the pass \
             rate of one sample)"
        )
    }
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
        assert_eq!(o.pass, 0.5);
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
        assert_eq!(o.resolved, 0.5);
        // The chosen `half` reproduces "cc"→"dd" of the two examples the gold changes.
        assert_eq!(o.mean_reward, (1.0 + 0.5) / 2.0);
        assert_eq!(o.survival.len(), 21);
        assert_eq!(summary.by_cascade_len[&2].pass, 1.0);
        assert_eq!(summary.by_cascade_len[&3].pass, 0.0);
        assert_eq!(summary.by_category["1000"].instances, 1);
        assert_eq!(summary.by_category["none"].instances, 1);
        assert!(serde_json::to_string(&summary).is_ok());
    }
}
