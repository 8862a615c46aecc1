//! The audit of a reordering set (`pbebench audit` given `pbebench reorder`'s file): what
//! the trivial orders reach ([`ShortcutOrder`]: the dummy's empty answer, the scrambled
//! order as given, reversed, the greedy order) and the built-in exact search
//! ([`solve_order`]), each graded by the task's own scoring ([`summarize_orders`]: accuracy,
//! exact and valid rate with their 95% intervals, overall and by length), and the gates:
//! the dummy's accuracy at most `max_dummy`, each shortcut's at most `max_shortcut` (the
//! search is a baseline, not a shortcut: it is reported, never gated).

use super::verdict::{percent, percent_interval, Thresholds};
use pbebench::reorder::{
    score_order, solve_order, summarize_orders, OrderInstanceScore, OrderRow, OrderSample,
    ReorderInstance, ShortcutOrder,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How the audit of a reordering set runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReorderAuditOptions {
    /// The search's node budget per problem; `None` skips the search.
    pub solver_nodes: Option<u64>,
    /// The gates' thresholds (`max_dummy`, `max_shortcut`; the others do not apply).
    pub thresholds: Thresholds,
}

/// What one baseline reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderBaseline {
    /// `dummy`, `identity`, `reversed`, `greedy` or `search`.
    pub name: String,
    /// What it answers.
    pub description: String,
    /// Its figures overall (`all`), by cascade length and by category.
    pub rows: Vec<OrderRow>,
    /// Problems on which the search spent its budget without an answer (the search only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub gave_up: Option<usize>,
}

impl OrderBaseline {
    /// Its overall accuracy (0 for an empty set).
    pub fn accuracy(&self) -> f64 {
        self.rows
            .first()
            .and_then(|r| r.accuracy)
            .map_or(0.0, |i| i.mean)
    }
}

/// One gate of the reordering audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderGate {
    /// The baseline it judges.
    pub baseline: String,
    /// Its accuracy.
    pub share: f64,
    /// The largest accuracy allowed.
    pub limit: f64,
    /// `share <= limit`.
    pub passed: bool,
}

/// The audit of a reordering set, as the CLI prints it and writes it as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReorderAudit {
    /// The set audited (as given).
    pub dataset: String,
    /// Its problems.
    pub problems: usize,
    /// Every gate passed.
    pub passed: bool,
    /// The shortcuts, in [`ShortcutOrder::ALL`]'s order, then the search when it ran.
    pub baselines: Vec<OrderBaseline>,
    /// The gates, one per shortcut.
    pub gates: Vec<OrderGate>,
}

/// Grades each problem's single answer (`None`: no order).
fn graded(
    problems: &[ReorderInstance],
    answers: Vec<Option<Vec<usize>>>,
) -> Vec<OrderInstanceScore> {
    problems
        .par_iter()
        .zip(answers)
        .map(|(p, answer)| OrderInstanceScore {
            id: p.instance.id.clone(),
            cascade_len: p.instance.cascade_len,
            category: p.instance.category,
            samples: vec![match answer {
                Some(order) => OrderSample {
                    score: score_order(p, &order),
                    order: Some(order),
                    problem: None,
                },
                None => OrderSample {
                    order: None,
                    problem: None,
                    score: score_order(p, &[]),
                },
            }],
        })
        .collect()
}

/// Audits the reordering set `problems` (named `dataset`). Runs on the current rayon pool;
/// the result does not depend on the number of threads.
pub fn audit_reorder(
    problems: &[ReorderInstance],
    dataset: &str,
    options: &ReorderAuditOptions,
) -> ReorderAudit {
    let mut baselines = Vec::new();
    let mut gates = Vec::new();
    for shortcut in ShortcutOrder::ALL {
        let answers = problems
            .par_iter()
            .map(|p| Some(shortcut.answer(p)))
            .collect();
        let scores = graded(problems, answers);
        let baseline = OrderBaseline {
            name: shortcut.name().to_owned(),
            description: shortcut.description().to_owned(),
            rows: summarize_orders(&scores).rows,
            gave_up: None,
        };
        let limit = match shortcut {
            ShortcutOrder::Dummy => options.thresholds.max_dummy,
            _ => options.thresholds.max_shortcut,
        };
        let share = baseline.accuracy();
        gates.push(OrderGate {
            baseline: baseline.name.clone(),
            share,
            limit,
            passed: share <= limit,
        });
        baselines.push(baseline);
    }
    if let Some(nodes) = options.solver_nodes {
        let searches: Vec<_> = problems.par_iter().map(|p| solve_order(p, nodes)).collect();
        let gave_up = searches.iter().filter(|s| s.gave_up).count();

        let scores = graded(problems, searches.into_iter().map(|s| s.order).collect());
        baselines.push(OrderBaseline {
            name: "search".to_owned(),
            description: format!("exact search over orders, pruned, {nodes} nodes a problem"),
            rows: summarize_orders(&scores).rows,
            gave_up: Some(gave_up),
        });
    }
    ReorderAudit {
        dataset: dataset.to_owned(),
        problems: problems.len(),
        passed: gates.iter().all(|g| g.passed),
        baselines,
        gates,
    }
}

impl ReorderAudit {
    /// The gates that failed, one line each (`audit FAILED …`).
    pub fn failed(&self) -> Vec<String> {
        self.gates
            .iter()
            .filter(|g| !g.passed)
            .map(|g| {
                format!(
                    "{} accuracy {} > {}",
                    g.baseline,
                    percent(g.share),
                    percent(g.limit)
                )
            })
            .collect()
    }
}

impl fmt::Display for ReorderAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "reordering set {}: {} problems\n",
            self.dataset, self.problems
        )?;
        let cell = |i: Option<pbebench::interval::Interval>| {
            i.map_or_else(|| "-".to_owned(), |i| i.to_string())
        };
        writeln!(
            f,
            "{:<9} {:<28}  {:<28}  {:<28}  what",
            "baseline", "accuracy", "exact", "valid"
        )?;
        for b in &self.baselines {
            let all = &b.rows[0];
            let gave_up = b
                .gave_up
                .map_or_else(String::new, |g| format!(" ({g} gave up)"));
            writeln!(
                f,
                "{:<9} {:<28}  {:<28}  {:<28}  {}{gave_up}",
                b.name,
                cell(all.accuracy),
                cell(all.exact),
                cell(all.valid),
                b.description
            )?;
        }
        let lengths: Vec<&OrderRow> = self.baselines.first().map_or_else(Vec::new, |b| {
            b.rows
                .iter()
                .filter(|r| r.group.starts_with("length"))
                .collect()
        });
        if !lengths.is_empty() {
            write!(f, "\naccuracy by length")?;
            for r in &lengths {
                write!(f, "  {:>22}", format!("{} (n={})", r.group, r.n))?;
            }
            writeln!(f)?;
            for b in &self.baselines {
                write!(f, "{:<18}", b.name)?;
                for r in b.rows.iter().filter(|r| r.group.starts_with("length")) {
                    let cell = r.accuracy.map_or_else(
                        || "-".to_owned(),
                        |i| format!("{} {}", percent(i.mean), percent_interval(&i)),
                    );
                    write!(f, "  {cell:>22}")?;
                }
                writeln!(f)?;
            }
        }
        writeln!(f)?;
        for g in &self.gates {
            writeln!(
                f,
                "gate {:<9} accuracy {} ≤ {}: {}",
                g.baseline,
                percent(g.share),
                percent(g.limit),
                if g.passed { "pass" } else { "FAIL" }
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::reorder::reorder_instance;
    use pbebench::{Cascade, Instance};

    fn problems() -> Vec<ReorderInstance> {
        let mut out = Vec::new();
        for (k, (pairs, inputs)) in [
            (
                &[("ab", "c"), ("c", "d"), ("d", "e")][..],
                &["ab", "c", "d"][..],
            ),
            (&[("a", "b"), ("b", "c")][..], &["a", "b"][..]),
            (
                &[("a", "bb"), ("b", "c"), ("cc", "a")][..],
                &["a", "ab"][..],
            ),
        ]
        .into_iter()
        .enumerate()
        {
            let gold = Cascade::from_pairs(pairs).unwrap();
            let i = Instance::from_gold(format!("p{k}"), inputs, gold, "abcde");
            out.push(reorder_instance(&i, 3).unwrap());
        }
        out
    }

    #[test]
    fn the_search_solves_every_problem_and_the_floor_is_zero() {
        let options = ReorderAuditOptions {
            solver_nodes: Some(10_000),
            thresholds: Thresholds::default(),
        };
        let audit = audit_reorder(&problems(), "set.jsonl", &options);
        let names: Vec<&str> = audit.baselines.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["dummy", "identity", "reversed", "greedy", "search"]);
        let by = |n: &str| audit.baselines.iter().find(|b| b.name == n).unwrap();
        assert_eq!(by("dummy").accuracy(), 0.0);
        assert_eq!(by("dummy").rows[0].valid.unwrap().mean, 0.0);
        // The scrambled order always changes an output.
        assert_eq!(by("identity").accuracy(), 0.0);
        assert_eq!(by("search").accuracy(), 1.0);
        assert_eq!(by("search").gave_up, Some(0));
        // A 2-rule problem's scrambled order is the gold reversed.
        let two = by("reversed")
            .rows
            .iter()
            .find(|r| r.group == "length 2")
            .unwrap();
        assert_eq!(two.accuracy.unwrap().mean, 1.0);
        assert_eq!(audit.gates.len(), 4);
        assert!(!audit.passed, "reversed solves a third of the set");
        assert_eq!(
            audit.failed().len(),
            audit.gates.iter().filter(|g| !g.passed).count()
        );
        let text = audit.to_string();
        assert!(text.contains("gate reversed"), "{text}");
    }
}
