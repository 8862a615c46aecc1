//! Solving a reordering problem without a model, as a baseline and as the audit's
//! shortcuts: [`solve_order`] searches the orders exactly, pruned by the examples and
//! bounded by a node budget; [`greedy_order`] builds one order a rule at a time; and
//! [`ShortcutOrder`] names the orders a trivial solver would answer (the given order, the
//! given order reversed, the greedy order).
//!
//! Both read the visible examples only (`inputs`, `outputs`), never the gold order.
//!
//! **Pruning.** A branch (the forms after a prefix of rules) is dead when some form holds a
//! character that its output lacks and that no rule still unused has in its pattern: no
//! later rule can remove it. The search also remembers every (rules used, forms) state it
//! has left without an answer: the orders below it depend on that state alone. A form that
//! would outgrow [`super::FORM_BOUND`] characters ends its branch.

use super::ReorderInstance;
use crate::metrics::char_distance;
use crate::rule::Rule;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// The node budget of [`solve_order`] when none is given: rule applications to one state.
pub const DEFAULT_ORDER_NODES: u64 = 200_000;

/// What [`solve_order`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderSearch {
    /// An order (indices into `scrambled`) that reproduces every visible example; `None`
    /// when none exists or the budget ran out first.
    pub order: Option<Vec<usize>>,
    /// Nodes spent: rule applications to one state of the search.
    pub nodes: u64,
    /// The budget ran out before the search ended (without an order, whether one exists
    /// is unknown).
    pub gave_up: bool,
}

/// The first order, in the lexicographic order of the search, whose rules reproduce every
/// visible example of `problem`, searched exactly with the pruning of the module's docs,
/// within `max_nodes` rule applications.
///
/// ```
/// use pbebench::reorder::{reorder_instance, score_order, solve_order};
/// use pbebench::{Cascade, Instance};
///
/// let gold = Cascade::from_pairs(&[("ab", "c"), ("c", "d"), ("d", "e")])?;
/// let problem = reorder_instance(&Instance::from_gold("t", &["ab", "c", "d"], gold, "abcde"), 0).unwrap();
/// let found = solve_order(&problem, 10_000);
/// assert!(score_order(&problem, found.order.as_deref().unwrap()).accurate);
/// # Ok::<(), pbebench::RuleError>(())
/// ```
pub fn solve_order(problem: &ReorderInstance, max_nodes: u64) -> OrderSearch {
    let rules = problem.scrambled.rules();
    let mut search = Search {
        rules,
        outputs: &problem.instance.outputs,
        nodes: 0,
        max_nodes,
        gave_up: false,
        dead: HashSet::new(),
    };
    let forms = problem.instance.inputs.clone();
    let mut prefix = Vec::with_capacity(rules.len());
    let found = search.from(&forms, &mut vec![false; rules.len()], &mut prefix);
    OrderSearch {
        order: found.then_some(prefix),
        nodes: search.nodes,
        gave_up: search.gave_up,
    }
}

struct Search<'a> {
    rules: &'a [Rule],
    outputs: &'a [String],
    nodes: u64,
    max_nodes: u64,
    gave_up: bool,
    /// States (rules used, forms) left without an answer.
    dead: HashSet<(Vec<bool>, Vec<String>)>,
}

impl Search<'_> {
    /// True when an order completing `prefix` was found (it is then in `prefix`).
    fn from(&mut self, forms: &[String], used: &mut Vec<bool>, prefix: &mut Vec<usize>) -> bool {
        if prefix.len() == self.rules.len() {
            return forms.iter().zip(self.outputs).all(|(f, o)| f == o);
        }
        if !consistent_all(forms, self.outputs, self.rules, used)
            || self.dead.contains(&(used.clone(), forms.to_vec()))
        {
            return false;
        }
        for k in 0..self.rules.len() {
            if used[k] {
                continue;
            }
            if self.nodes >= self.max_nodes {
                self.gave_up = true;
                return false;
            }
            self.nodes += 1;
            let Some(next) = apply_all(&self.rules[k], forms) else {
                continue;
            };
            used[k] = true;
            prefix.push(k);
            if self.from(&next, used, prefix) {
                return true;
            }
            prefix.pop();
            used[k] = false;
            if self.gave_up {
                return false;
            }
        }
        self.dead.insert((used.clone(), forms.to_vec()));
        false
    }
}

/// `rule` applied to every form; `None` when one would outgrow [`super::FORM_BOUND`].
fn apply_all(rule: &Rule, forms: &[String]) -> Option<Vec<String>> {
    forms.iter().map(|f| super::apply_within(rule, f)).collect()
}

/// Whether `form` can still become `output`: every character of it that `output` lacks is
/// in the pattern of some rule not yet `used`.
fn consistent(form: &str, output: &str, rules: &[Rule], used: &[bool]) -> bool {
    form.chars().all(|c| {
        output.contains(c)
            || rules
                .iter()
                .zip(used)
                .any(|(r, &u)| !u && r.pattern().contains(c))
    })
}

fn consistent_all(forms: &[String], outputs: &[String], rules: &[Rule], used: &[bool]) -> bool {
    forms
        .iter()
        .zip(outputs)
        .all(|(f, o)| consistent(f, o, rules, used))
}

/// The greedy order: from the inputs, repeatedly the unused rule after which the most
/// examples stay consistent (no character left that the output lacks and no unused rule
/// can remove), ties broken by the smaller total character edit distance of the forms to
/// the outputs, then by the smaller index. Always a permutation of `0..n`; it need not
/// reproduce the examples.
pub fn greedy_order(problem: &ReorderInstance) -> Vec<usize> {
    let rules = problem.scrambled.rules();
    let outputs = &problem.instance.outputs;
    let mut forms = problem.instance.inputs.clone();
    let mut used = vec![false; rules.len()];
    let mut order = Vec::with_capacity(rules.len());
    for _ in 0..rules.len() {
        let mut best: Option<((usize, usize), usize, Vec<String>)> = None;
        for k in 0..rules.len() {
            if used[k] {
                continue;
            }
            used[k] = true;
            // A form that would outgrow the bound ranks last (it keeps nothing consistent).
            let (rank, next) = match apply_all(&rules[k], &forms) {
                Some(next) => {
                    let kept = (next.iter().zip(outputs))
                        .filter(|(f, o)| consistent(f, o, rules, &used))
                        .count();
                    let distance: usize = (next.iter().zip(outputs))
                        .map(|(f, o)| char_distance(f, o))
                        .sum();
                    ((kept, usize::MAX - distance), next)
                }
                None => ((0, 0), forms.clone()),
            };
            used[k] = false;
            if best.as_ref().is_none_or(|(r, _, _)| rank > *r) {
                best = Some((rank, k, next));
            }
        }
        let (_, k, next) = best.expect("an unused rule is left");
        used[k] = true;
        order.push(k);
        forms = next;
    }
    order
}

/// An order a trivial solver answers, graded by the audit of a reordering set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShortcutOrder {
    /// The empty answer: never a permutation, so its accuracy is 0 (the floor).
    Dummy,
    /// The scrambled order as given (`0, 1, …, n−1`).
    Identity,
    /// The scrambled order reversed (`n−1, …, 1, 0`).
    Reversed,
    /// [`greedy_order`].
    Greedy,
}

impl ShortcutOrder {
    /// Every shortcut, in the order the audit reports them.
    pub const ALL: [ShortcutOrder; 4] = [
        ShortcutOrder::Dummy,
        ShortcutOrder::Identity,
        ShortcutOrder::Reversed,
        ShortcutOrder::Greedy,
    ];

    /// Its name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ShortcutOrder::Dummy => "dummy",
            ShortcutOrder::Identity => "identity",
            ShortcutOrder::Reversed => "reversed",
            ShortcutOrder::Greedy => "greedy",
        }
    }

    /// What it answers, in a line.
    pub fn description(self) -> &'static str {
        match self {
            ShortcutOrder::Dummy => "the empty answer (never a permutation)",
            ShortcutOrder::Identity => "the scrambled order as given",
            ShortcutOrder::Reversed => "the scrambled order reversed",
            ShortcutOrder::Greedy => "each step the rule that keeps the most examples consistent",
        }
    }

    /// Its answer to `problem`.
    pub fn answer(self, problem: &ReorderInstance) -> Vec<usize> {
        let n = problem.scrambled.len();
        match self {
            ShortcutOrder::Dummy => Vec::new(),
            ShortcutOrder::Identity => (0..n).collect(),
            ShortcutOrder::Reversed => (0..n).rev().collect(),
            ShortcutOrder::Greedy => greedy_order(problem),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reorder::{is_permutation, reorder_instance, score_order, valid_orders};
    use crate::rule::Cascade;
    use crate::Instance;

    fn problem(pairs: &[(&str, &str)], inputs: &[&str], seed: u64) -> ReorderInstance {
        let gold = Cascade::from_pairs(pairs).unwrap();
        reorder_instance(&Instance::from_gold("p", inputs, gold, "abcdefgh"), seed).unwrap()
    }

    #[test]
    fn the_search_finds_a_valid_order_exactly_when_one_exists() {
        // Brute force over the problems of many seeds: the search answers when the count of
        // valid orders is positive (always, the gold being one), and its answer is valid.
        for seed in 0..30 {
            for (pairs, inputs) in [
                (
                    &[("ab", "c"), ("c", "d"), ("d", "e"), ("e", "ab")][..],
                    &["ab", "c", "d", "e", "abc"][..],
                ),
                (
                    &[("a", "bb"), ("b", "c"), ("cc", "a"), ("h", "g")][..],
                    &["a", "ab", "bch", "ccc"][..],
                ),
            ] {
                let p = problem(pairs, inputs, seed);
                let found = solve_order(&p, DEFAULT_ORDER_NODES);
                assert!(!found.gave_up);
                let order = found.order.expect("the gold order exists");
                assert!(score_order(&p, &order).accurate, "seed {seed}: {order:?}");
                // With the outputs rotated (some then unreachable), it answers exactly when
                // the brute-force count is positive.
                let mut q = p.clone();
                q.instance.outputs.rotate_left(1);
                let count =
                    valid_orders(q.scrambled.rules(), &q.instance.inputs, &q.instance.outputs);
                let found = solve_order(&q, DEFAULT_ORDER_NODES);
                assert_eq!(found.order.is_some(), count.unwrap() > 0, "seed {seed}");
                if let Some(order) = found.order {
                    assert!(score_order(&q, &order).accurate);
                }
            }
        }
    }

    #[test]
    fn an_unsolvable_set_of_rules_is_reported_without_an_order() {
        let mut p = problem(&[("a", "b"), ("b", "c")], &["a"], 0);
        p.instance.outputs = vec!["z".to_owned()];
        let found = solve_order(&p, DEFAULT_ORDER_NODES);
        assert_eq!(found.order, None);
        assert!(!found.gave_up);
    }

    #[test]
    fn a_spent_budget_gives_up_and_says_so() {
        let p = problem(&[("a", "b"), ("b", "c"), ("c", "d")], &["a"], 0);
        let found = solve_order(&p, 1);
        assert_eq!((found.order, found.gave_up, found.nodes), (None, true, 1));
    }

    #[test]
    fn the_dead_character_test_prunes_without_losing_answers() {
        // 'a' is in no output; once a -> b is used, no rule removes an 'a' left over.
        assert!(!consistent(
            "ab",
            "bb",
            Cascade::from_pairs(&[("a", "b")]).unwrap().rules(),
            &[true]
        ));
        assert!(consistent(
            "ab",
            "bb",
            Cascade::from_pairs(&[("a", "b")]).unwrap().rules(),
            &[false]
        ));
    }

    #[test]
    fn shortcuts_answer_their_orders() {
        let p = problem(&[("ab", "c"), ("c", "d"), ("d", "e")], &["ab", "c", "d"], 7);
        assert_eq!(ShortcutOrder::Identity.answer(&p), [0, 1, 2]);
        assert_eq!(ShortcutOrder::Reversed.answer(&p), [2, 1, 0]);
        assert!(!score_order(&p, &ShortcutOrder::Dummy.answer(&p)).valid);
        // The identity never reproduces the examples: the scrambled order changes one.
        assert!(!score_order(&p, &ShortcutOrder::Identity.answer(&p)).accurate);
        let greedy = ShortcutOrder::Greedy.answer(&p);
        assert!(is_permutation(&greedy, 3));
    }
}
