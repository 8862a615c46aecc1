//! Scoring reordering answers: each response read ([`parse_order`]) and graded
//! ([`score_order`]), and the figures a user compares: *accuracy* (the order reproduces
//! every example), *exact* (it is the gold order) and *valid* (a permutation of the
//! scrambled rules' indices), overall, by cascade length and by category, each with its
//! 95% interval ([`crate::interval::rate`]: Wilson for one sample per instance, clustered
//! by instance for several).
//!
//! An instance without a response counts as a failure in every figure (as in synthesis
//! scoring): it is in `n`, and `answered` says how many had one.

use super::answer::{parse_order, OrderProblem};
use super::{score_order, OrderScore, ReorderInstance};
use crate::interval::{rate, Interval};
use crate::relations::Category;
use crate::response::BlockChoice;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// One response to a reordering problem: the order it gives (or why none) and its grade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderSample {
    /// The order read, a permutation of the scrambled rules' indices.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub order: Option<Vec<usize>>,
    /// Why the response gives no order (the answer is invalid).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub problem: Option<OrderProblem>,
    /// Its grade.
    #[serde(flatten)]
    pub score: OrderScore,
}

/// The grades of one problem's responses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderInstanceScore {
    /// The instance's id.
    pub id: String,
    /// Rules in its cascade.
    pub cascade_len: usize,
    /// Its category, when it has one.
    pub category: Option<Category>,
    /// Its responses in sample order (empty: none was given).
    pub samples: Vec<OrderSample>,
}

impl OrderInstanceScore {
    /// The share of samples for which `pick` holds (0 without samples).
    fn share(&self, pick: impl Fn(&OrderScore) -> bool) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        let hits = self.samples.iter().filter(|s| pick(&s.score)).count();
        hits as f64 / self.samples.len() as f64
    }
}

/// Grades one response to `problem`.
///
/// ```
/// use pbebench::reorder::{reorder_instance, score_order_response};
/// use pbebench::{BlockChoice, Cascade, Instance};
///
/// let gold = Cascade::from_pairs(&[("ab", "c"), ("c", "d")])?;
/// let problem = reorder_instance(&Instance::from_gold("t", &["ab", "c"], gold, "abcd"), 0).unwrap();
/// let answer = format!("```json\n{:?}\n```", problem.order);
/// assert!(score_order_response(&problem, &answer, BlockChoice::Last).score.exact);
/// let bad = score_order_response(&problem, "[0, 0]", BlockChoice::Last);
/// assert!(!bad.score.valid && bad.problem.is_some());
/// # Ok::<(), pbebench::RuleError>(())
/// ```
pub fn score_order_response(
    problem: &ReorderInstance,
    text: &str,
    choice: BlockChoice,
) -> OrderSample {
    match parse_order(text, problem.scrambled.len(), choice) {
        Ok(order) => OrderSample {
            score: score_order(problem, &order),
            order: Some(order),
            problem: None,
        },
        Err(problem) => OrderSample {
            order: None,
            problem: Some(problem),
            score: OrderScore::default(),
        },
    }
}

/// Grades the responses of every problem (`responses`: texts by instance id, in sample
/// order), in the problems' order.
pub fn score_order_responses(
    problems: &[ReorderInstance],
    responses: &HashMap<String, Vec<String>>,
    choice: BlockChoice,
) -> Vec<OrderInstanceScore> {
    problems
        .iter()
        .map(|p| OrderInstanceScore {
            id: p.instance.id.clone(),
            cascade_len: p.instance.cascade_len,
            category: p.instance.category,
            samples: responses
                .get(&p.instance.id)
                .map_or_else(Vec::new, |texts| {
                    texts
                        .iter()
                        .map(|t| score_order_response(p, t, choice))
                        .collect()
                }),
        })
        .collect()
}

/// Writes `scores` as JSON lines, one problem a line: the per-instance file of a reordering
/// run (`pbebench score --per-instance`, an eval run's `per-instance.jsonl`).
pub fn write_order_score_lines(
    mut w: impl std::io::Write,
    scores: &[OrderInstanceScore],
) -> std::io::Result<()> {
    for score in scores {
        serde_json::to_writer(&mut w, score)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// The figures of a group of problems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderRow {
    /// `all`, `length 3`, `category FB--`.
    pub group: String,
    /// Problems in the group.
    pub n: usize,
    /// Of which answered (at least one response).
    pub answered: usize,
    /// The share whose order reproduces every example.
    pub accuracy: Option<Interval>,
    /// The share that gave the gold order.
    pub exact: Option<Interval>,
    /// The share that gave a permutation of the scrambled rules' indices.
    pub valid: Option<Interval>,
}

/// The figures of a reordering run: overall, by length, by category, and why answers were
/// invalid. Its `Display` is the table `pbebench score` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderSummary {
    /// Responses graded.
    pub samples: usize,
    /// `all`, then by length, then by category.
    pub rows: Vec<OrderRow>,
    /// Invalid responses by reason (`no_array`, `repeated`, …).
    pub invalid: BTreeMap<String, usize>,
}

/// The summary of `scores`.
pub fn summarize_orders(scores: &[OrderInstanceScore]) -> OrderSummary {
    let mut rows = vec![row("all".to_owned(), scores.iter())];
    let mut by_length: BTreeMap<usize, Vec<&OrderInstanceScore>> = BTreeMap::new();
    let mut by_category: BTreeMap<Option<Category>, Vec<&OrderInstanceScore>> = BTreeMap::new();
    for s in scores {
        by_length.entry(s.cascade_len).or_default().push(s);
        by_category.entry(s.category).or_default().push(s);
    }
    for (len, group) in by_length {
        rows.push(row(format!("length {len}"), group.into_iter()));
    }
    for (cat, group) in by_category {
        let label = cat.map_or_else(|| "none".to_owned(), |c| c.to_string());
        rows.push(row(format!("category {label}"), group.into_iter()));
    }
    let mut invalid = BTreeMap::new();
    for p in scores
        .iter()
        .flat_map(|s| &s.samples)
        .filter_map(|s| s.problem.as_ref())
    {
        *invalid.entry(p.kind().to_owned()).or_default() += 1;
    }
    OrderSummary {
        samples: scores.iter().map(|s| s.samples.len()).sum(),
        rows,
        invalid,
    }
}

fn row<'a>(group: String, scores: impl Iterator<Item = &'a OrderInstanceScore>) -> OrderRow {
    let scores: Vec<&OrderInstanceScore> = scores.collect();
    // One 0/1 outcome per instance when no instance has more than one sample.
    let one_each = scores.iter().all(|s| s.samples.len() <= 1);
    let figure = |pick: fn(&OrderScore) -> bool| {
        let shares: Vec<f64> = scores.iter().map(|s| s.share(pick)).collect();
        rate(&shares, one_each)
    };
    OrderRow {
        group,
        n: scores.len(),
        answered: scores.iter().filter(|s| !s.samples.is_empty()).count(),
        accuracy: figure(|s| s.accurate),
        exact: figure(|s| s.exact),
        valid: figure(|s| s.valid),
    }
}

impl fmt::Display for OrderSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cell = |i: &Option<Interval>| i.map_or_else(|| "-".to_owned(), |i| i.to_string());
        writeln!(
            f,
            "{:<16} {:>5} {:>8}  {:<28}  {:<28}  valid",
            "reordering", "n", "answered", "accuracy", "exact"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:<16} {:>5} {:>8}  {:<28}  {:<28}  {}",
                r.group,
                r.n,
                r.answered,
                cell(&r.accuracy),
                cell(&r.exact),
                cell(&r.valid)
            )?;
        }
        write!(f, "\n{} responses", self.samples)?;
        if self.invalid.is_empty() {
            return writeln!(f, ", all valid");
        }
        let reasons: Vec<String> = (self.invalid.iter())
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(f, "; invalid: {}", reasons.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reorder::{reorder_instance, valid_orders};
    use crate::rule::Cascade;
    use crate::Instance;

    fn problem(id: &str, pairs: &[(&str, &str)], inputs: &[&str]) -> ReorderInstance {
        let gold = Cascade::from_pairs(pairs).unwrap();
        reorder_instance(&Instance::from_gold(id, inputs, gold, "abcdefgh"), 1).unwrap()
    }

    /// Every permutation of every problem, graded: accurate exactly as often as
    /// `valid_orders` counts, exact exactly once; every other array invalid.
    #[test]
    fn grades_agree_with_a_brute_force_over_every_order() {
        let problems = [
            problem(
                "chain",
                &[("ab", "c"), ("c", "d"), ("d", "e")],
                &["ab", "c", "d"],
            ),
            problem("twins", &[("a", "b"), ("a", "b"), ("b", "c")], &["a", "b"]),
            problem(
                "mixed",
                &[("a", "b"), ("c", "d"), ("b", "c"), ("e", "a")],
                &["ace", "bd"],
            ),
        ];
        for p in &problems {
            let n = p.scrambled.len();
            let mut perm: Vec<usize> = (0..n).collect();
            let (mut accurate, mut exact, mut total) = (0u64, 0, 0);
            loop {
                let text = format!("```json\n{perm:?}\n```");
                let s = score_order_response(p, &text, BlockChoice::Last);
                assert!(s.score.valid);
                accurate += u64::from(s.score.accurate);
                exact += usize::from(s.score.exact);
                total += 1;
                match super::super::next_permutation(perm) {
                    Some(next) => perm = next,
                    None => break,
                }
            }
            assert_eq!(total, (1..=n).product::<usize>());
            let rules = p.scrambled.rules();
            let count = valid_orders(rules, &p.instance.inputs, &p.instance.outputs);
            assert_eq!(Some(accurate), count, "{}", p.instance.id);
            assert_eq!(exact, 1);
        }
    }

    #[test]
    fn the_summary_counts_missing_and_invalid_answers_as_failures() {
        let a = problem("a", &[("ab", "c"), ("c", "d")], &["ab", "c"]);
        let b = problem("b", &[("a", "b"), ("b", "c"), ("c", "d")], &["a"]);
        let c = problem("c", &[("a", "b"), ("b", "c")], &["a"]);
        let responses = HashMap::from([
            ("a".to_owned(), vec![format!("{:?}", a.order)]),
            ("b".to_owned(), vec!["[0, 0, 1]".to_owned()]),
        ]);
        let scores = score_order_responses(&[a, b, c], &responses, BlockChoice::Last);
        let summary = summarize_orders(&scores);
        let all = &summary.rows[0];
        assert_eq!((all.n, all.answered), (3, 2));
        assert_eq!(all.exact.unwrap().mean, 1.0 / 3.0);
        assert_eq!(all.valid.unwrap().mean, 1.0 / 3.0);
        assert_eq!(summary.invalid["repeated"], 1);
        let groups: Vec<&str> = summary.rows.iter().map(|r| r.group.as_str()).collect();
        assert_eq!(groups[..3], ["all", "length 2", "length 3"]);
        assert!(groups[3].starts_with("category "));
    }

    #[test]
    fn several_samples_are_clustered_by_instance() {
        let a = problem("a", &[("ab", "c"), ("c", "d")], &["ab", "c"]);
        let b = problem("b", &[("a", "b"), ("b", "c")], &["a"]);
        let good = |p: &ReorderInstance| format!("{:?}", p.order);
        let responses = HashMap::from([
            ("a".to_owned(), vec![good(&a), "no".to_owned()]),
            ("b".to_owned(), vec![good(&b), good(&b)]),
        ]);
        let summary = summarize_orders(&score_order_responses(
            &[a, b],
            &responses,
            BlockChoice::Last,
        ));
        let exact = summary.rows[0].exact.unwrap();
        assert_eq!(exact.method, crate::interval::Method::Clustered);
        assert_eq!(exact.mean, 0.75);
        assert_eq!(summary.samples, 4);
    }
}
