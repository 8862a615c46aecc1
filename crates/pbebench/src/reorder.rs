//! The rule-reordering task: the gold rules of an instance are given in a scrambled order,
//! and a solver returns an order (a permutation of their indices) that maps every input to
//! its output.
//!
//! - [`reorder_instance`] makes one [`ReorderInstance`] from an instance with a gold
//!   cascade: a seeded permutation of its rules that changes at least one output, the gold
//!   order as indices into it, and [`valid_orders`]; [`reorder_dataset`] does it for a
//!   dataset and counts what it keeps and skips ([`ReorderStats`]).
//! - [`write_reorder_lines`] and [`read_reorder_lines`] are the JSONL file of the task: each
//!   line the instance's own fields plus `scrambled`, `order` and `valid_orders`.
//! - [`score_order`] grades an answer (valid, accurate, exact) and never panics;
//!   [`parse_order`] reads the answer out of a response; [`score_order_responses`] and
//!   [`summarize_orders`] grade a run and give its figures (accuracy, exact, valid rate,
//!   by length and category, with intervals); [`reorder_prompt`] is a problem's prompt.
//! - [`solve_order`] (exact search, bounded) and [`greedy_order`] solve a problem without a
//!   model; [`ShortcutOrder`] is the audit's trivial answers.
//!
//! **Counting valid orders.** An order is a permutation of the rules' *positions*: two
//! identical rules are distinct positions, so swapping them gives a second order, and the
//! count is over all `n!` orders, as the authors' `num_valid_solutions` is ("how many of the
//! n! orders reproduce every example"). It is exact, by enumeration with prefixes applied
//! incrementally, up to [`EXACT_UP_TO`] rules, and `None` beyond. Every form on the way is
//! bounded by [`FORM_BOUND`] characters, so that rules which grow their input in some order
//! (`a → aaa` after itself) cost bounded memory: an instance whose forms outgrow it in some
//! order is skipped ([`Skip::FormsTooLong`]) rather than counted wrongly.

mod answer;
mod authors;
mod prompt;
mod score;
mod solve;

pub use answer::{parse_order, OrderProblem};
pub use authors::{authors_reorder_line, is_authors_record, parse_authors_record};
pub use prompt::{reorder_prompt, REORDER_TEMPLATE};
pub use score::{
    score_order_response, score_order_responses, summarize_orders, write_order_score_lines,
    OrderInstanceScore, OrderRow, OrderSample, OrderSummary,
};
pub use solve::{greedy_order, solve_order, OrderSearch, ShortcutOrder, DEFAULT_ORDER_NODES};

use crate::instance::Instance;
use crate::relations::Category;
use crate::rule::{Cascade, Rule};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The most rules whose valid orders are counted exactly (by enumerating all `n!` orders:
/// 40 320 for 8 rules); [`valid_orders`] is `None` beyond.
pub const EXACT_UP_TO: usize = 8;

/// The longest form (in characters) any order of an instance's rules may make on the way;
/// [`valid_orders`] is `None`, and the instance skipped, when one outgrows it.
pub const FORM_BOUND: usize = 1 << 16;

/// How many seeded permutations [`reorder_instance`] draws before it looks for an order that
/// changes an output by enumeration (up to [`EXACT_UP_TO`] rules) or gives up.
pub const MAX_DRAWS: usize = 64;

/// One reordering problem: an instance, its gold rules scrambled, and the gold order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReorderInstance {
    /// The synthesis instance it was made from, every field as it was.
    #[serde(flatten)]
    pub instance: Instance,
    /// The gold rules in the scrambled order shown to the solver (`[a, b]` pairs).
    pub scrambled: Cascade,
    /// The gold order: `scrambled[order[0]]` is the gold cascade's first rule, and so on.
    pub order: Vec<usize>,
    /// How many orders of `scrambled` reproduce every example (`None` beyond
    /// [`EXACT_UP_TO`] rules).
    pub valid_orders: Option<u64>,
}

impl ReorderInstance {
    /// The rules of `scrambled` in the order `order` gives (a cascade only when `order` is a
    /// permutation of `0..n`).
    pub fn ordered(&self, order: &[usize]) -> Option<Cascade> {
        is_permutation(order, self.scrambled.len()).then(|| {
            Cascade::new(
                order
                    .iter()
                    .map(|&k| self.scrambled.rules()[k].clone())
                    .collect(),
            )
        })
    }

    /// Everything wrong with this record (empty when it is sound): `order` not a
    /// permutation of the scrambled rules, or an order that does not reproduce the examples.
    pub fn problems(&self) -> Vec<String> {
        let n = self.scrambled.len();
        let mut problems = Vec::new();
        if self.instance.cascade_len != n {
            problems.push(format!(
                "cascade_len is {} but 'scrambled' has {n} rules",
                self.instance.cascade_len
            ));
        }
        match self.ordered(&self.order) {
            None => problems.push(format!(
                "'order' {:?} is not a permutation of 0..{n} (one index per scrambled rule)",
                self.order
            )),
            Some(gold) => {
                if !gold.reproduces(&self.instance.inputs, &self.instance.outputs) {
                    problems
                        .push("'scrambled' in 'order' does not reproduce the examples".to_owned());
                }
            }
        }
        if let Some(count) = self.valid_orders {
            if count == 0 {
                problems.push("'valid_orders' is 0, but the gold order is valid".to_owned());
            }
        }
        problems
    }
}

/// Why an instance gives no reordering problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Skip {
    /// Every order of its rules reproduces every example (also a cascade of 0 or 1 rule):
    /// no scrambled order would change an output.
    EveryOrderValid,
    /// It has no gold cascade.
    NoGold,
    /// Its gold cascade does not reproduce its own examples.
    GoldFails,
    /// More than [`EXACT_UP_TO`] rules and none of [`MAX_DRAWS`] seeded permutations
    /// changed an output (an order that does may still exist).
    NoChangingDraw,
    /// Some order of its rules makes a form longer than [`FORM_BOUND`] characters.
    FormsTooLong,
}

impl Skip {
    /// The reason as the summary prints it.
    pub fn label(self) -> &'static str {
        match self {
            Skip::EveryOrderValid => "every order valid",
            Skip::NoGold => "no gold cascade",
            Skip::GoldFails => "gold does not reproduce the examples",
            Skip::NoChangingDraw => "no changing order drawn",
            Skip::FormsTooLong => "forms too long to count",
        }
    }
}

/// The seed of one instance's permutation: a function of the run's seed and the instance's
/// id only, so that the draw does not depend on the order of instances or on threads.
pub fn instance_seed(seed: u64, id: &str) -> u64 {
    // FNV-1a over the id's bytes, then SplitMix64's finaliser around the run seed.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in id.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    mix(seed ^ mix(h))
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// How the gold rules are scrambled. Either way the scrambled order changes at least one
/// output, and the draw is a function of the seed and the instance's id alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scramble {
    /// A uniform permutation of the rules ([`MAX_DRAWS`] draws, then enumeration).
    #[default]
    Shuffle,
    /// The first rule exchanged with another, drawn uniformly among those whose exchange
    /// changes an output (as in every record of the authors' reordering file we have
    /// seen); when no such exchange exists, any exchange of two rules that changes one;
    /// when none does, a uniform permutation as [`Scramble::Shuffle`] draws it.
    SwapFirst,
}

impl Scramble {
    /// The name the command line and the Python bindings take.
    pub fn label(self) -> &'static str {
        match self {
            Scramble::Shuffle => "shuffle",
            Scramble::SwapFirst => "swap-first",
        }
    }
}

impl std::str::FromStr for Scramble {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "shuffle" => Ok(Scramble::Shuffle),
            "swap-first" => Ok(Scramble::SwapFirst),
            _ => Err(format!(
                "unknown scramble '{s}': give shuffle (a uniform permutation) or swap-first (the first rule exchanged with another)"
            )),
        }
    }
}

/// A reordering problem made from `instance`, its permutation drawn from
/// [`instance_seed`]`(seed, id)`: up to [`MAX_DRAWS`] uniform permutations, the first whose
/// scrambled order (read as given) changes at least one output; when none does, the first
/// such order in lexicographic order of the enumeration (up to [`EXACT_UP_TO`] rules).
/// [`reorder_instance_with`] scrambles otherwise.
pub fn reorder_instance(instance: &Instance, seed: u64) -> Result<ReorderInstance, Skip> {
    reorder_instance_with(instance, seed, Scramble::Shuffle)
}

/// A reordering problem made from `instance` as [`reorder_instance`] makes it, its rules
/// scrambled as `scramble` says.
pub fn reorder_instance_with(
    instance: &Instance,
    seed: u64,
    scramble: Scramble,
) -> Result<ReorderInstance, Skip> {
    let gold = instance.cascade.as_ref().ok_or(Skip::NoGold)?;
    let rules = gold.rules();
    let n = rules.len();
    match reproduces_within(gold, &instance.inputs, &instance.outputs) {
        Some(true) => {}
        Some(false) => return Err(Skip::GoldFails),
        None => return Err(Skip::FormsTooLong),
    }
    // An order that makes too long a form is never shown (it is not known to change one).
    let changes = |perm: &[usize]| {
        let c = Cascade::new(perm.iter().map(|&k| rules[k].clone()).collect());
        reproduces_within(&c, &instance.inputs, &instance.outputs) == Some(false)
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(instance_seed(seed, &instance.id));
    let mut chosen = None;
    if n >= 2 && scramble == Scramble::SwapFirst {
        chosen = swap_that_changes(n, &mut rng, &changes);
    }
    if n >= 2 && chosen.is_none() {
        for _ in 0..MAX_DRAWS {
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, rng.random_range(0..=i));
            }
            if changes(&perm) {
                chosen = Some(perm);
                break;
            }
        }
    }
    let valid = valid_orders(rules, &instance.inputs, &instance.outputs);
    if valid.is_none() && n <= EXACT_UP_TO {
        return Err(Skip::FormsTooLong);
    }
    if chosen.is_none() {
        if n > EXACT_UP_TO {
            return Err(Skip::NoChangingDraw);
        }
        chosen = first_invalid_order(rules, &instance.inputs, &instance.outputs);
    }
    // `perm[j]` is the gold index of the rule shown at position j.
    let perm = chosen.ok_or(Skip::EveryOrderValid)?;
    let mut order = vec![0; n];
    for (j, &k) in perm.iter().enumerate() {
        order[k] = j;
    }
    Ok(ReorderInstance {
        instance: instance.clone(),
        scrambled: Cascade::new(perm.iter().map(|&k| rules[k].clone()).collect()),
        order,
        valid_orders: valid,
    })
}

/// The order of `n` rules with two of them exchanged, drawn uniformly among those for
/// which `changes` holds: the first rule with another, else any two.
fn swap_that_changes(
    n: usize,
    rng: &mut Xoshiro256PlusPlus,
    changes: &dyn Fn(&[usize]) -> bool,
) -> Option<Vec<usize>> {
    let swapped = |i: usize, j: usize| {
        let mut perm: Vec<usize> = (0..n).collect();
        perm.swap(i, j);
        perm
    };
    let first: Vec<Vec<usize>> = (1..n)
        .map(|j| swapped(0, j))
        .filter(|p| changes(p))
        .collect();
    let pool = if first.is_empty() {
        (1..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .map(|(i, j)| swapped(i, j))
            .filter(|p| changes(p))
            .collect()
    } else {
        first
    };
    (!pool.is_empty()).then(|| pool[rng.random_range(0..pool.len())].clone())
}

/// How many of the `n!` orders of `rules` (by position: identical rules are distinct) map
/// every input to its output; `None` for more than [`EXACT_UP_TO`] rules or when inputs and
/// outputs differ in number, or when some order makes a form longer than [`FORM_BOUND`].
pub fn valid_orders<S: AsRef<str>, T: AsRef<str>>(
    rules: &[Rule],
    inputs: &[S],
    outputs: &[T],
) -> Option<u64> {
    if rules.len() > EXACT_UP_TO || inputs.len() != outputs.len() {
        return None;
    }
    let mut count = 0u64;
    let state: Vec<String> = inputs.iter().map(|s| s.as_ref().to_owned()).collect();
    let outputs: Vec<&str> = outputs.iter().map(|s| s.as_ref()).collect();
    let mut too_long = false;
    let mut found = |_: &[usize]| {
        count += 1;
        true
    };
    let mut walk = Walk {
        rules,
        outputs: &outputs,
        too_long: &mut too_long,
        found: &mut found,
    };
    walk.from(&state, 0, &mut Vec::new());
    (!too_long).then_some(count)
}

/// The first order (lexicographically by positions) that does not reproduce the examples.
fn first_invalid_order<S: AsRef<str>, T: AsRef<str>>(
    rules: &[Rule],
    inputs: &[S],
    outputs: &[T],
) -> Option<Vec<usize>> {
    let mut next = Some((0..rules.len()).collect::<Vec<usize>>());
    while let Some(order) = next {
        let cascade = Cascade::new(order.iter().map(|&k| rules[k].clone()).collect());
        if reproduces_within(&cascade, inputs, outputs) == Some(false) {
            return Some(order);
        }
        next = next_permutation(order);
    }
    None
}

fn next_permutation(mut p: Vec<usize>) -> Option<Vec<usize>> {
    let n = p.len();
    let i = (0..n.saturating_sub(1)).rev().find(|&i| p[i] < p[i + 1])?;
    let j = (i + 1..n).rev().find(|&j| p[j] > p[i])?;
    p.swap(i, j);
    p[i + 1..].reverse();
    Some(p)
}

/// Whether `cascade` maps every input to its output, every form within [`FORM_BOUND`]
/// (`None` when one outgrows it).
fn reproduces_within<S: AsRef<str>, T: AsRef<str>>(
    cascade: &Cascade,
    inputs: &[S],
    outputs: &[T],
) -> Option<bool> {
    let mut all = inputs.len() == outputs.len();
    for (i, o) in inputs.iter().zip(outputs) {
        all &= cascade.apply_bounded(i.as_ref(), FORM_BOUND).ok()? == o.as_ref();
    }
    Some(all)
}

/// `rule` applied to `s`, or `None` when the result would be longer than [`FORM_BOUND`]
/// characters (its length counted from the matches before it is built).
fn apply_within(rule: &Rule, s: &str) -> Option<String> {
    let matches = s.matches(rule.pattern()).count();
    let len = s.chars().count() - matches * rule.pattern().chars().count()
        + matches.saturating_mul(rule.replacement().chars().count());
    (len <= FORM_BOUND).then(|| rule.apply(s))
}

/// A depth-first walk over orders, in lexicographic order, applying each rule to the
/// prefix's forms once; calls `found` with each complete order that reproduces the outputs
/// and stops when it returns false, or when a form outgrows [`FORM_BOUND`] (`too_long`).
struct Walk<'a> {
    rules: &'a [Rule],
    outputs: &'a [&'a str],
    too_long: &'a mut bool,
    found: &'a mut dyn FnMut(&[usize]) -> bool,
}

impl Walk<'_> {
    /// Walks on from `prefix` (whose rules are the bits of `used`) and its forms `state`;
    /// false when stopped.
    fn from(&mut self, state: &[String], used: u32, prefix: &mut Vec<usize>) -> bool {
        if prefix.len() == self.rules.len() {
            if state.iter().zip(self.outputs).all(|(s, o)| s == o) {
                return (self.found)(prefix);
            }
            return true;
        }
        let mut next: Vec<String> = Vec::with_capacity(state.len());
        for (k, rule) in self.rules.iter().enumerate() {
            if used & (1 << k) != 0 {
                continue;
            }
            next.clear();
            for s in state {
                match apply_within(rule, s) {
                    Some(form) => next.push(form),
                    None => {
                        *self.too_long = true;
                        return false;
                    }
                }
            }
            prefix.push(k);
            let go_on = self.from(&next, used | (1 << k), prefix);
            prefix.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
}

/// True when `order` holds each of `0..n` exactly once.
pub fn is_permutation(order: &[usize], n: usize) -> bool {
    if order.len() != n {
        return false;
    }
    let mut seen = vec![false; n];
    for &k in order {
        match seen.get_mut(k) {
            Some(s) if !*s => *s = true,
            _ => return false,
        }
    }
    true
}

/// The grade of one answer to a reordering problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct OrderScore {
    /// The answer is a permutation of `0..n` (every scrambled rule once).
    pub valid: bool,
    /// The rules in the answer's order reproduce every example.
    pub accurate: bool,
    /// The answer is the gold order.
    pub exact: bool,
}

/// Grades `answer` (indices into `scrambled`): any list, of any length or range, is graded;
/// one that is not a permutation is neither valid nor accurate nor exact.
pub fn score_order(problem: &ReorderInstance, answer: &[usize]) -> OrderScore {
    let Some(cascade) = problem.ordered(answer) else {
        return OrderScore::default();
    };
    // An order whose forms outgrow FORM_BOUND reproduces nothing (and builds no such form).
    let (inputs, outputs) = (&problem.instance.inputs, &problem.instance.outputs);
    OrderScore {
        valid: true,
        accurate: reproduces_within(&cascade, inputs, outputs) == Some(true),
        exact: answer == problem.order.as_slice(),
    }
}

/// What [`reorder_dataset`] kept and skipped, by length and category, and the distribution
/// of valid-order counts.
///
/// The distribution covers the kept problems *and* the instances skipped because every
/// order is valid (counted with their `n!` orders), as the authors' `solution_counts` does:
/// theirs sums to the 1008 instances of PBEBench-Lite, not to the 919 kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReorderStats {
    /// Instances read.
    pub total: usize,
    /// Problems made.
    pub kept: usize,
    /// Instances skipped, by reason.
    pub skipped: BTreeMap<Skip, usize>,
    /// `(kept, skipped)` by gold cascade length.
    pub by_length: BTreeMap<usize, (usize, usize)>,
    /// `(kept, skipped)` by category (`None`: the instance has none).
    pub by_category: BTreeMap<Option<Category>, (usize, usize)>,
    /// `(kept, skipped)` by number of valid orders (`None`: beyond [`EXACT_UP_TO`] rules);
    /// the skipped are those every order of which is valid.
    pub valid_orders: BTreeMap<Option<u64>, (usize, usize)>,
}

/// The problems made from `instances` (in their order) and what was kept and skipped. Runs
/// on the current rayon pool; the result does not depend on the number of threads.
pub fn reorder_dataset(
    instances: &[Instance],
    seed: u64,
) -> (Vec<ReorderInstance>, Vec<(String, Skip)>, ReorderStats) {
    reorder_dataset_with(instances, seed, Scramble::Shuffle)
}

/// The problems made from `instances` as [`reorder_dataset`] makes them, their rules
/// scrambled as `scramble` says.
pub fn reorder_dataset_with(
    instances: &[Instance],
    seed: u64,
    scramble: Scramble,
) -> (Vec<ReorderInstance>, Vec<(String, Skip)>, ReorderStats) {
    let made: Vec<Result<ReorderInstance, Skip>> = instances
        .par_iter()
        .map(|i| reorder_instance_with(i, seed, scramble))
        .collect();
    let mut stats = ReorderStats {
        total: instances.len(),
        ..ReorderStats::default()
    };
    let (mut kept, mut skipped) = (Vec::new(), Vec::new());
    for (instance, made) in instances.iter().zip(made) {
        let length = stats.by_length.entry(instance.cascade_len).or_default();
        let category = stats.by_category.entry(instance.category).or_default();
        match made {
            Ok(problem) => {
                length.0 += 1;
                category.0 += 1;
                stats.kept += 1;
                stats
                    .valid_orders
                    .entry(problem.valid_orders)
                    .or_default()
                    .0 += 1;
                kept.push(problem);
            }
            Err(skip) => {
                length.1 += 1;
                category.1 += 1;
                *stats.skipped.entry(skip).or_default() += 1;
                if skip == Skip::EveryOrderValid {
                    let orders = (1..=instance.cascade_len as u64).product();
                    stats.valid_orders.entry(Some(orders)).or_default().1 += 1;
                }
                skipped.push((instance.id.clone(), skip));
            }
        }
    }
    (kept, skipped, stats)
}

/// Writes reordering problems as JSONL, one per line (the format [`read_reorder_lines`]
/// reads).
pub fn write_reorder_lines(mut out: impl Write, problems: &[ReorderInstance]) -> io::Result<()> {
    for problem in problems {
        serde_json::to_writer(&mut out, problem)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// A line of a reordering file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct ReorderLineError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong with it, and what a line must hold.
    pub problem: String,
}

/// Whether `line` (a dataset's first line) is a reordering problem rather than a synthesis
/// instance: a JSON object with the fields `scrambled` and `order` (pbebench's format) or
/// `permuted_programs` and `ground_truth_order` (the authors').
pub fn is_reorder_line(line: &str) -> bool {
    #[derive(Deserialize)]
    struct Keys {
        scrambled: Option<serde::de::IgnoredAny>,
        order: Option<serde::de::IgnoredAny>,
        permuted_programs: Option<serde::de::IgnoredAny>,
        ground_truth_order: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Keys>(line).is_ok_and(|k| {
        (k.scrambled.is_some() && k.order.is_some())
            || (k.permuted_programs.is_some() && k.ground_truth_order.is_some())
    })
}

/// Reads the problems [`write_reorder_lines`] wrote (blank lines skipped), each checked
/// ([`ReorderInstance::problems`]), or the records of the authors' reordering file
/// ([`parse_authors_record`]; their ids, else their 0-based place among the records); the
/// first bad line is an error naming it.
pub fn read_reorder_lines(text: &str) -> Result<Vec<ReorderInstance>, ReorderLineError> {
    let mut problems = Vec::new();
    for (k, text) in text.lines().enumerate() {
        if text.trim().is_empty() {
            continue;
        }
        let error = |problem: String| ReorderLineError {
            line: k + 1,
            problem,
        };
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(text) {
            if is_authors_record(&map) {
                let problem = parse_authors_record(&map, problems.len()).map_err(|e| {
                    error(format!("not a record of the authors' reordering file: {e}"))
                })?;
                problems.push(problem);
                continue;
            }
        }
        let problem: ReorderInstance = serde_json::from_str(text).map_err(|e| {
            error(format!(
                "not a reordering problem ({e}): a line holds an instance's fields plus \
                 'scrambled', 'order' and 'valid_orders'"
            ))
        })?;
        if let Some(first) = problem.problems().into_iter().next() {
            return Err(error(format!("{}: {first}", problem.instance.id)));
        }
        problems.push(problem);
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(id: &str, pairs: &[(&str, &str)], inputs: &[&str]) -> Instance {
        Instance::from_gold(id, inputs, Cascade::from_pairs(pairs).unwrap(), "abcdefgh")
    }

    #[test]
    fn the_scrambled_order_changes_an_output_and_the_gold_order_restores_them() {
        let i = instance(
            "x",
            &[("ab", "c"), ("c", "d"), ("d", "e")],
            &["ab", "c", "d"],
        );
        let p = reorder_instance(&i, 7).unwrap();
        let identity: Vec<usize> = (0..3).collect();
        assert!(!score_order(&p, &identity).accurate);
        assert_eq!(p.ordered(&p.order).unwrap(), *i.cascade.as_ref().unwrap());
        assert_eq!(
            score_order(&p, &p.order),
            OrderScore {
                valid: true,
                accurate: true,
                exact: true
            }
        );
        // ab->c->d->e only in gold order; every other order differs on some example.
        assert_eq!(p.valid_orders, Some(1));
        assert!(p.problems().is_empty());
    }

    /// The exchanged positions of a scramble that is one exchange of two rules.
    fn exchanged(p: &ReorderInstance) -> Vec<usize> {
        (0..p.order.len()).filter(|&j| p.order[j] != j).collect()
    }

    #[test]
    fn swap_first_exchanges_the_first_rule_with_one_that_changes_an_output() {
        // x→y touches nothing; a→b feeds b→c. Exchanging x→y with a→b changes nothing,
        // with b→c puts b→c before a→b: "a" gives "b", not "c".
        let i = instance("s", &[("x", "y"), ("a", "b"), ("b", "c")], &["a", "x"]);
        for seed in 0..20 {
            let p = reorder_instance_with(&i, seed, Scramble::SwapFirst).unwrap();
            assert_eq!(exchanged(&p), [0, 2], "seed {seed}: {:?}", p.order);
            assert!(!score_order(&p, &[0, 1, 2]).accurate);
            assert_eq!(p.ordered(&p.order).unwrap(), *i.cascade.as_ref().unwrap());
        }
        // Shuffle is reorder_instance's draw.
        assert_eq!(
            reorder_instance_with(&i, 5, Scramble::Shuffle),
            reorder_instance(&i, 5)
        );
        assert_eq!("swap-first".parse(), Ok(Scramble::SwapFirst));
        assert!("swap"
            .parse::<Scramble>()
            .unwrap_err()
            .contains("swap-first"));
    }

    #[test]
    fn swap_draws_uniformly_among_the_exchanges_that_change_an_output() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        // Exchanges of the first rule come first: with 0↔1 and 0↔3 changing, both are
        // drawn, and nothing else.
        let changes = |p: &[usize]| p == [1, 0, 2, 3] || p == [3, 1, 2, 0] || p == [0, 2, 1, 3];
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..64 {
            seen.insert(swap_that_changes(4, &mut rng, &changes).unwrap());
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [vec![1, 0, 2, 3], vec![3, 1, 2, 0]]
        );
        // No exchange of the first rule changes an output: another exchange does.
        let changes = |p: &[usize]| p == [0, 2, 1, 3];
        assert_eq!(
            swap_that_changes(4, &mut rng, &changes),
            Some(vec![0, 2, 1, 3])
        );
        assert_eq!(swap_that_changes(4, &mut rng, &|_: &[usize]| false), None);
    }

    #[test]
    fn an_order_whose_forms_explode_is_not_accurate_and_builds_no_such_form() {
        // Forty doublings of "a" would make a form of 2^40 characters.
        let mut instance = instance("x", &[("a", "b")], &["a"]);
        instance.outputs = vec!["b".into()];
        let n = 40;
        let problem = ReorderInstance {
            instance,
            scrambled: Cascade::new(vec![Rule::new("a", "aa").unwrap(); n]),
            order: (0..n).collect(),
            valid_orders: None,
        };
        let order: Vec<usize> = (0..n).collect();
        assert_eq!(
            score_order(&problem, &order),
            OrderScore {
                valid: true,
                accurate: false,
                exact: true
            }
        );
    }

    #[test]
    fn the_draw_depends_on_seed_and_id_only() {
        let a = instance(
            "a",
            &[("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")],
            &["a"],
        );
        let b = instance("b", &[("e", "f")], &["e"]);
        let (one, _, _) = reorder_dataset(&[a.clone(), b.clone()], 3);
        let (two, _, _) = reorder_dataset(&[b, a.clone()], 3);
        assert_eq!(one[0], two[0]);
        // Some seed gives another scrambled order of the same rules.
        let other = (0..20)
            .map(|s| reorder_instance(&a, s).unwrap().scrambled)
            .any(|s| s != one[0].scrambled);
        assert!(other);
    }

    #[test]
    fn instances_every_order_of_which_is_valid_are_skipped() {
        let i = instance("x", &[("a", "b"), ("c", "d")], &["ac", "e"]);
        assert_eq!(reorder_instance(&i, 0), Err(Skip::EveryOrderValid));
        let one = instance("y", &[("a", "b")], &["a"]);
        assert_eq!(reorder_instance(&one, 0), Err(Skip::EveryOrderValid));
        let mut none = one.clone();
        none.cascade = None;
        assert_eq!(reorder_instance(&none, 0), Err(Skip::NoGold));
        let (kept, skipped, stats) = reorder_dataset(&[i, one, none], 0);
        assert!(kept.is_empty());
        assert_eq!(skipped.len(), 3);
        assert_eq!(stats.skipped[&Skip::EveryOrderValid], 2);
        assert_eq!(stats.by_length[&2], (0, 1));
        assert_eq!(stats.valid_orders[&Some(2)], (0, 1));
        assert_eq!(stats.valid_orders[&Some(1)], (0, 1));
        assert_eq!(stats.valid_orders.len(), 2);
    }

    #[test]
    fn identical_rules_are_distinct_positions() {
        // a->b twice and b->c: b->c must follow one a->b, so of the 3! orders by position
        // the 4 that do not start with b->c are valid (2 orders if the twins were one rule).
        let rules = Cascade::from_pairs(&[("a", "b"), ("a", "b"), ("b", "c")]).unwrap();
        let i = Instance::from_gold("d", &["a", "b"], rules.clone(), "abc");
        assert_eq!(valid_orders(rules.rules(), &i.inputs, &i.outputs), Some(4));
    }

    #[test]
    fn beyond_the_exact_length_the_count_is_none() {
        let pairs: Vec<(String, String)> = (0..=EXACT_UP_TO)
            .map(|k| (format!("{k}"), format!("{}", k + 1)))
            .collect();
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (&**a, &**b)).collect();
        let i = instance("long", &pairs, &["0"]);
        let p = reorder_instance(&i, 1).unwrap();
        assert_eq!(p.valid_orders, None);
        assert!(!score_order(&p, &(0..=EXACT_UP_TO).collect::<Vec<_>>()).accurate);
    }

    #[test]
    fn orders_whose_forms_explode_are_not_counted_but_skipped() {
        // Gold: a -> b first, then the growing rules find nothing; any order that runs a
        // growing rule before a -> b grows "a" past the bound (17^4 > 2^16).
        let big = "a".repeat(17);
        let pairs = [
            ("a", "b"),
            ("a", &*big),
            ("a", &*big),
            ("a", &*big),
            ("a", &*big),
        ];
        let i = instance("boom", &pairs, &["a"]);
        assert_eq!(i.outputs, ["b"]);
        let rules = i.cascade.as_ref().unwrap().rules();
        assert_eq!(valid_orders(rules, &i.inputs, &i.outputs), None);
        assert_eq!(reorder_instance(&i, 0), Err(Skip::FormsTooLong));
        // Below the bound the same shape is counted: only orders starting with a -> b fit.
        let pairs = [("a", "b"), ("a", "aa"), ("a", "aa")];
        let i = instance("calm", &pairs, &["a"]);
        let rules = i.cascade.as_ref().unwrap().rules();
        assert_eq!(valid_orders(rules, &i.inputs, &i.outputs), Some(2));
    }

    #[test]
    fn malformed_answers_are_graded_never_panic() {
        let i = instance(
            "x",
            &[("ab", "c"), ("c", "d"), ("d", "e")],
            &["ab", "c", "d"],
        );
        let p = reorder_instance(&i, 7).unwrap();
        let none = OrderScore::default();
        for answer in [
            vec![],
            vec![0, 1],
            vec![0, 1, 3],
            vec![0, 0, 1],
            vec![usize::MAX, 0, 1],
            vec![0, 1, 2, 0],
        ] {
            assert_eq!(score_order(&p, &answer), none, "{answer:?}");
        }
    }

    #[test]
    fn lines_round_trip_and_bad_lines_are_named() {
        let a = instance(
            "x",
            &[("ab", "c"), ("c", "d"), ("d", "e")],
            &["ab", "c", "d"],
        );
        let b = instance("y", &[("a", "b"), ("b", "c")], &["a"]);
        let (kept, _, _) = reorder_dataset(&[a, b], 5);
        assert_eq!(kept.len(), 2);
        let mut bytes = Vec::new();
        write_reorder_lines(&mut bytes, &kept).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(read_reorder_lines(&text).unwrap(), kept);
        let first = text.lines().next().unwrap();
        for key in [
            "\"scrambled\":",
            "\"order\":",
            "\"valid_orders\":",
            "\"inputs\":",
        ] {
            assert!(first.contains(key), "{key} missing from {first}");
        }

        let mut broken = kept[1].clone();
        broken.order = vec![1, 1];
        let mut bytes = Vec::new();
        write_reorder_lines(&mut bytes, &[kept[0].clone(), broken]).unwrap();
        let err = read_reorder_lines(&String::from_utf8(bytes).unwrap()).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.problem.contains("not a permutation"), "{err}");
        assert!(is_reorder_line(first));
        assert!(!is_reorder_line("{\"id\": \"x\", \"order\": [0]}"));
        assert!(!is_reorder_line("not json"));
        let err = read_reorder_lines("\n{\"id\": 3}").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.problem.contains("not a reordering problem"), "{err}");
    }
}
