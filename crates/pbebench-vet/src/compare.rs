//! `pbebench compare`: two results on the same dataset, figure by figure, with the
//! difference's 95% interval and whether it is distinguishable from zero.
//!
//! With the per-instance lines of both, the difference is **paired** by instance
//! ([`pbebench::interval::paired`]): each instance's value under B minus under A, over the
//! instances where both define the figure; its SE is `sd(d_j)/√n`. Pairing removes the
//! difficulty the two runs share, so it separates runs that two overlapping intervals
//! cannot. Figures that are ratios of sums (Valid_Rate, valid responses), and results
//! given as a summary only, fall back to **independent** intervals
//! (`SE = √(SE_A² + SE_B²)`, [`pbebench::interval::independent`]), which are wider; a
//! summary of format 1, which kept no intervals, gives the difference alone.

use crate::results::{named, ResultSet, ResultsError};
use pbebench::interval::{self, Interval};
use pbebench::{figure, Aggregate, Column, InstanceScore, PerInstance, BEST_OF_K_VETTED, COLUMNS};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// Two results compared, figure by figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// A's label.
    pub a: String,
    /// B's label.
    pub b: String,
    /// Instances of the dataset.
    pub instances: usize,
    /// Whether per-instance lines were at hand for both (paired differences).
    pub paired: bool,
    /// The labels of the results given without per-instance lines.
    pub without_lines: Vec<String>,
    /// One row per figure, in the order of the summary table, then the best-of-K vetted
    /// figures.
    pub figures: Vec<FigureDifference>,
}

/// One figure under A and B, and B − A.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FigureDifference {
    /// The figure's key in results files.
    pub figure: String,
    /// Its header in tables.
    #[serde(skip)]
    pub header: &'static str,
    /// A's value (`None`: undefined).
    pub a: Option<f64>,
    /// B's value.
    pub b: Option<f64>,
    /// B − A with its SE and 95% interval (paired or independent); `None` where it
    /// cannot be computed (undefined on one side, fewer than two instances, or a format-1
    /// summary without intervals).
    pub difference: Option<Interval>,
    /// B − A where there is no interval for it.
    pub point_difference: Option<f64>,
}

impl FigureDifference {
    /// Whether the interval of B − A excludes zero (`None` without an interval).
    pub fn distinguishable(&self) -> Option<bool> {
        self.difference.map(|d| d.excludes_zero())
    }
}

/// Compares `a` and `b`, which must score the same dataset: the same instance ids with
/// the same cascade lengths when both have per-instance lines, else the same number of
/// instances by cascade length and by category.
pub fn compare(a: &ResultSet, b: &ResultSet) -> Result<Comparison, ResultsError> {
    let pairs = same_dataset(a, b)?;
    let (oa, ob) = (&a.summary.overall, &b.summary.overall);
    let figures = (COLUMNS.iter().chain(&BEST_OF_K_VETTED))
        .map(|c| difference(c, oa, ob, pairs.as_deref()))
        .collect();
    Ok(Comparison {
        a: a.label.clone(),
        b: b.label.clone(),
        instances: oa.instances,
        paired: pairs.is_some(),
        without_lines: [a, b]
            .iter()
            .filter(|s| s.instances.is_none())
            .map(|s| s.label.clone())
            .collect(),
        figures,
    })
}

fn difference(
    c: &Column,
    oa: &Aggregate,
    ob: &Aggregate,
    pairs: Option<&[(&InstanceScore, &InstanceScore)]>,
) -> FigureDifference {
    let (a, b) = ((c.value)(oa), (c.value)(ob));
    let paired = match (pairs, c.per_instance) {
        (_, PerInstance::Ratio(_)) | (None, _) => None,
        (Some(pairs), _) => {
            let (va, vb): (Vec<f64>, Vec<f64>) = (pairs.iter())
                .filter_map(|(x, y)| Some((c.instance_value(x)?, c.instance_value(y)?)))
                .unzip();
            interval::paired(&va, &vb)
        }
    };
    let difference = paired.or_else(|| {
        let (ia, ib) = (oa.interval(c)?, ob.interval(c)?);
        Some(interval::independent(ia, ib))
    });
    FigureDifference {
        figure: c.key.to_owned(),
        header: c.header,
        a,
        b,
        difference: difference.filter(|_| a.is_some() && b.is_some()),
        point_difference: a.zip(b).map(|(a, b)| b - a),
    }
}

/// The instance pairs of `a` and `b` (by id, in A's order) when both have per-instance
/// lines; an error when they are not on the same dataset.
fn same_dataset<'s>(
    a: &'s ResultSet,
    b: &'s ResultSet,
) -> Result<Option<Vec<(&'s InstanceScore, &'s InstanceScore)>>, ResultsError> {
    let refuse = |why: String| {
        ResultsError::Mismatch(format!(
            "'{}' and '{}' are not on the same dataset ({why}); compare results of one dataset",
            a.label, b.label
        ))
    };
    let (Some(la), Some(lb)) = (&a.instances, &b.instances) else {
        let composition = |s: &ResultSet| {
            let m = &s.summary;
            (
                m.overall.instances,
                (m.by_cascade_len.iter())
                    .map(|(k, v)| (*k, v.instances))
                    .collect::<Vec<_>>(),
                (m.by_category.iter())
                    .map(|(k, v)| (k.clone(), v.instances))
                    .collect::<Vec<_>>(),
            )
        };
        let (ca, cb) = (composition(a), composition(b));
        if ca != cb {
            return Err(refuse(format!(
                "{} instances against {}, or other counts by cascade length or category",
                ca.0, cb.0
            )));
        }
        return Ok(None);
    };
    let by_id: HashMap<&str, &InstanceScore> = lb.iter().map(|s| (s.id.as_str(), s)).collect();
    let ids_a: BTreeSet<&str> = la.iter().map(|s| s.id.as_str()).collect();
    let ids_b: BTreeSet<&str> = by_id.keys().copied().collect();
    if ids_a != ids_b {
        let only: Vec<&str> = ids_a.symmetric_difference(&ids_b).copied().collect();
        return Err(refuse(format!(
            "{} instances against {}; {} ids in one only: {}",
            ids_a.len(),
            ids_b.len(),
            only.len(),
            named(&only)
        )));
    }
    let pairs: Vec<_> = la.iter().map(|x| (x, by_id[x.id.as_str()])).collect();
    if let Some((x, y)) = pairs.iter().find(|(x, y)| x.cascade_len != y.cascade_len) {
        return Err(refuse(format!(
            "instance '{}' has cascade length {} in one and {} in the other",
            x.id, x.cascade_len, y.cascade_len
        )));
    }
    Ok(Some(pairs))
}

/// What `pbebench compare` prints: a row per figure with A, B, B − A, its 95% interval
/// and the verdict.
impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "A = {}, B = {}: {} instances, ",
            self.a, self.b, self.instances
        )?;
        if self.paired {
            writeln!(f, "differences paired by instance")?;
        } else {
            writeln!(
                f,
                "independent intervals: no per-instance lines for {} (give them for paired \
                 intervals; a summary of format 1 has no intervals)",
                self.without_lines.join(" and ")
            )?;
        }
        let w = (self.figures.iter())
            .map(|r| r.header.chars().count())
            .max()
            .unwrap_or(6);
        writeln!(
            f,
            "{:<w$} {:>6} {:>6} {:>7} {:>17}  verdict",
            "figure", "A", "B", "B − A", "95% interval"
        )?;
        for r in &self.figures {
            let diff = r.difference.map(|d| d.mean).or(r.point_difference);
            let (bounds, verdict) = match (r.difference, r.distinguishable()) {
                (Some(d), Some(true)) => (
                    signed_bounds(&d),
                    if d.mean > 0.0 { "B higher" } else { "A higher" },
                ),
                (Some(d), _) => (signed_bounds(&d), "cannot tell apart"),
                (None, _) => ("–".to_owned(), "no interval"),
            };
            writeln!(
                f,
                "{:<w$} {:>6} {:>6} {:>7} {bounds:>17}  {verdict}{}",
                r.header,
                figure(r.a),
                figure(r.b),
                diff.map_or_else(|| "–".to_owned(), |d| format!("{d:+.3}")),
                match r.difference.map(|d| d.method) {
                    Some(interval::Method::Independent) if self.paired => " (independent)",
                    _ => "",
                }
            )?;
        }
        writeln!(
            f,
            "(B − A over the instances where both define the figure; the 95% interval is \
             the mean ± 1.96 SE; distinguishable when it excludes 0)"
        )
    }
}

fn signed_bounds(d: &Interval) -> String {
    format!("[{:+.3}, {:+.3}]", d.lo, d.hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::{
        score_instance, Cascade, Instance, RelationMode, Relations, Rule, ScoreOptions,
    };

    fn instance(id: &str) -> Instance {
        let gold = Cascade::new(vec![Rule::new("ab", "c").unwrap()]);
        let inputs = vec!["xab".to_owned(), "abab".to_owned()];
        Instance {
            id: id.into(),
            outputs: gold.apply_all(&inputs),
            inputs,
            cascade_len: 1,
            category: Some(Relations::of(&gold, RelationMode::Exact).category()),
            cascade: Some(gold),
            relations_mode: RelationMode::Exact,
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "abcx".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// A passes the instances whose index is below `passes`, one sample each.
    fn set(label: &str, n: usize, passes: usize) -> ResultSet {
        let good = "```python\n[\"replace('ab', 'c')\"]\n```";
        let scores = (0..n)
            .map(|k| {
                let answer = if k < passes { good } else { "no" };
                score_instance(
                    &instance(&format!("i{k}")),
                    &[answer],
                    &ScoreOptions::default(),
                )
            })
            .collect();
        ResultSet::from_instances(label, scores)
    }

    /// 30 instances: B passes the 12 A passes and 6 more. Paired, the differences are 6
    /// ones and 24 zeros: mean 0.2, sd² = (6·0.64 + 24·0.04)/29 = 4.8/29, SE = 0.0743,
    /// so [0.054, 0.346] excludes 0; the independent (Wilson) intervals 0.4 and 0.6 on 30
    /// overlap.
    #[test]
    fn paired_differences_separate_what_intervals_cannot() {
        let (a, b) = (set("A", 30, 12), set("B", 30, 18));
        let c = compare(&a, &b).unwrap();
        assert!(c.paired);
        let pass = &c.figures[0];
        assert_eq!(pass.figure, "pass_at_1");
        let d = pass.difference.unwrap();
        assert!((d.mean - 0.2).abs() < 1e-12);
        assert!(
            (d.se - (4.8f64 / 29.0).sqrt() / 30f64.sqrt()).abs() < 1e-12,
            "{d:?}"
        );
        assert_eq!(pass.distinguishable(), Some(true));
        let (ia, ib) = (
            a.summary.overall.interval(&Column::PASS_AT_1).unwrap(),
            b.summary.overall.interval(&Column::PASS_AT_1).unwrap(),
        );
        assert!(ia.overlaps(ib), "{ia:?} {ib:?}");
        let text = c.to_string();
        assert!(text.contains("differences paired by instance"), "{text}");
        assert!(text.contains("B higher"), "{text}");
        // The same run against itself cannot be told apart.
        let same = compare(&a, &a).unwrap();
        assert_eq!(same.figures[0].distinguishable(), Some(false));
    }

    #[test]
    fn other_datasets_are_refused() {
        let err = compare(&set("A", 30, 12), &set("B", 29, 12)).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("'A' and 'B' are not on the same dataset") && msg.contains("i29"),
            "{msg}"
        );
        let mut summary_only = set("C", 29, 3);
        summary_only.instances = None;
        let err = compare(&set("A", 30, 12), &summary_only).unwrap_err();
        assert!(err.to_string().contains("30 instances against 29"), "{err}");
    }

    /// Without per-instance lines the intervals are independent, and wider.
    #[test]
    fn summaries_alone_give_independent_intervals() {
        let (mut a, mut b) = (set("A", 30, 12), set("B", 30, 18));
        let paired = compare(&a, &b).unwrap().figures[0].difference.unwrap();
        a.instances = None;
        b.instances = None;
        let c = compare(&a, &b).unwrap();
        assert!(!c.paired);
        let d = c.figures[0].difference.unwrap();
        assert_eq!(d.method, interval::Method::Independent);
        assert!(d.se > paired.se && !d.excludes_zero(), "{d:?}");
    }
}
