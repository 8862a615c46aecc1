//! The paper's metrics (PBEBench §4.3) and the vetted figures (ProgramBench Vetted), as pure
//! functions of predicted and expected outputs. Every doc comment gives the formula.
//!
//! Notation: an instance has examples `(i_k, o_k)`; a predicted cascade maps `i_k` to
//! `ô_k`; `dist` is the Levenshtein distance.

use serde::{Deserialize, Serialize};

/// The fractional score at or above which an instance counts as *almost* solved.
pub const ALMOST: f64 = 0.95;

/// Levenshtein distance between two sequences: the fewest insertions, deletions and
/// substitutions that turn `a` into `b`.
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        long.len()
    } else if short.len() <= 64 {
        levenshtein_bits(long, short)
    } else {
        levenshtein_rows(long, short)
    }
}

/// [`levenshtein`] by the dynamic programme, one row of `short.len() + 1` cells at a time.
fn levenshtein_rows<T: PartialEq>(long: &[T], short: &[T]) -> usize {
    let mut row: Vec<usize> = (0..=short.len()).collect();
    for (i, x) in long.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in short.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[short.len()]
}

/// [`levenshtein`] for `short` of 1 to 64 elements, bit-parallel (Myers 1999, in Hyyrö's
/// form for the edit distance): the programme's column along `short` is kept as two bit
/// vectors, its +1 and −1 steps, and advanced by one element of `long` in a few word
/// operations. The distance is the column's last cell, tracked as it changes.
fn levenshtein_bits<T: PartialEq>(long: &[T], short: &[T]) -> usize {
    let last = 1u64 << (short.len() - 1);
    // Bits above the last cell only ever carry and shift upwards: they never reach it.
    let (mut plus, mut minus) = (!0u64, 0u64);
    let mut distance = short.len();
    for x in long {
        let equal = short
            .iter()
            .enumerate()
            .fold(0u64, |bits, (j, y)| bits | u64::from(x == y) << j);
        let vertical = equal | minus;
        let horizontal = ((equal & plus).wrapping_add(plus) ^ plus) | equal;
        let mut h_plus = minus | !(horizontal | plus);
        let mut h_minus = plus & horizontal;
        if h_plus & last != 0 {
            distance += 1;
        } else if h_minus & last != 0 {
            distance -= 1;
        }
        // The first row grows by one per element: a +1 step enters at the bottom.
        h_plus = h_plus << 1 | 1;
        h_minus <<= 1;
        plus = h_minus | !(vertical | h_plus);
        minus = h_plus & vertical;
    }
    distance
}

/// Levenshtein distance over characters (Unicode scalar values, not bytes).
pub fn char_distance(a: &str, b: &str) -> usize {
    if a == b {
        0
    } else if a.is_ascii() && b.is_ascii() {
        levenshtein(a.as_bytes(), b.as_bytes())
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        levenshtein(&a, &b)
    }
}

/// Python's `str.isspace` (what `str.split()` splits on): Unicode White_Space plus the
/// four ASCII separators U+001C..U+001F.
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Levenshtein distance over whitespace tokens, as the released scorer computes it:
/// `editdistance.eval(a.split(), b.split())`. For strings without whitespace this is
/// `0` when `a == b` and `1` otherwise.
pub fn word_distance(a: &str, b: &str) -> usize {
    if a == b {
        return 0;
    }
    if !a.contains(py_isspace) && !b.contains(py_isspace) {
        return usize::from(a != b);
    }
    let a: Vec<&str> = a.split(py_isspace).filter(|w| !w.is_empty()).collect();
    let b: Vec<&str> = b.split(py_isspace).filter(|w| !w.is_empty()).collect();
    levenshtein(&a, &b)
}

/// `Σ_k char_distance(a_k, b_k)` over paired strings (extra strings on either side ignored).
pub fn total_char_distance<S: AsRef<str>, T: AsRef<str>>(a: &[S], b: &[T]) -> usize {
    a.iter()
        .zip(b)
        .map(|(x, y)| char_distance(x.as_ref(), y.as_ref()))
        .sum()
}

/// `Σ_k word_distance(a_k, b_k)` over paired strings.
pub fn total_word_distance<S: AsRef<str>, T: AsRef<str>>(a: &[S], b: &[T]) -> usize {
    a.iter()
        .zip(b)
        .map(|(x, y)| word_distance(x.as_ref(), y.as_ref()))
        .sum()
}

/// `1 − pred_dist / gold_dist`: Edit_Sim from its two distance sums.
///
/// Not clipped: a prediction further from the outputs than the inputs were scores below 0.
///
/// Degenerate case, `gold_dist = 0` (every output equals its input, which the generator
/// never produces but hand-made or real data might): the formula is undefined, so Edit_Sim
/// is `1` when `pred_dist = 0` (the identity, which solves such an instance) and `0`
/// otherwise. Callers that report Edit_Sim count such instances (`degenerate`).
pub fn edit_sim_ratio(pred_dist: usize, gold_dist: usize) -> f64 {
    if gold_dist == 0 {
        if pred_dist == 0 {
            1.0
        } else {
            0.0
        }
    } else {
        1.0 - pred_dist as f64 / gold_dist as f64
    }
}

/// Edit_Sim (paper §4.3): `1 − Σ_k dist(ô_k, o_k) / Σ_k dist(i_k, o_k)` with `dist` the
/// character Levenshtein distance. 1 for a passing prediction, 0 for the identity, negative
/// when the prediction is worse than doing nothing; see [`edit_sim_ratio`] for the
/// degenerate case.
pub fn edit_sim<I, O, P>(inputs: &[I], outputs: &[O], predicted: &[P]) -> f64
where
    I: AsRef<str>,
    O: AsRef<str>,
    P: AsRef<str>,
{
    edit_sim_ratio(
        total_char_distance(predicted, outputs),
        total_char_distance(inputs, outputs),
    )
}

/// Edit_Sim as the released code computes it: the same formula with `dist` over whitespace
/// tokens ([`word_distance`]). For the benchmark's strings (no whitespace) it equals
/// `1 − (#examples wrong) / (#examples the gold cascade changes)`. Degenerate case as in
/// [`edit_sim_ratio`].
pub fn edit_sim_word<I, O, P>(inputs: &[I], outputs: &[O], predicted: &[P]) -> f64
where
    I: AsRef<str>,
    O: AsRef<str>,
    P: AsRef<str>,
{
    edit_sim_ratio(
        total_word_distance(predicted, outputs),
        total_word_distance(inputs, outputs),
    )
}

/// Pass (paper §4.3): `1` iff `ô_k = o_k` for every example (and the counts agree).
pub fn passes<O: AsRef<str>, P: AsRef<str>>(outputs: &[O], predicted: &[P]) -> bool {
    outputs.len() == predicted.len() && examples_reproduced(outputs, predicted) == outputs.len()
}

/// `#{k : ô_k = o_k}`: how many examples the prediction reproduces exactly.
pub fn examples_reproduced<O: AsRef<str>, P: AsRef<str>>(outputs: &[O], predicted: &[P]) -> usize {
    outputs
        .iter()
        .zip(predicted)
        .filter(|(o, p)| o.as_ref() == p.as_ref())
        .count()
}

/// Fractional score (vetted, `docs/metrics.md#vetted-figures`): the share of the examples the gold
/// changes that the prediction reproduces exactly,
///
/// `score = #{k : i_k ≠ o_k ∧ ô_k = o_k} / #{k : i_k ≠ o_k}`.
///
/// Examples the gold leaves unchanged (`i_k = o_k`) are not counted: the identity would
/// reproduce them for nothing, so it scores 0 on every instance whose gold changes an
/// example, by construction (ProgramBench Vetted's "skill-independent floor" is 0). A
/// prediction that breaks an unchanged example loses nothing here; Pass@1, Edit_Sim and
/// held-out pass see it.
///
/// Degenerate case, no example changed (never generated; possible in hand-made data): 1
/// when every example is reproduced (the identity solves such an instance, and the dummy
/// gate flags it), else 0, as [`edit_sim_ratio`] treats it. `0` for no examples.
pub fn fractional_score<I, O, P>(inputs: &[I], outputs: &[O], predicted: &[P]) -> f64
where
    I: AsRef<str>,
    O: AsRef<str>,
    P: AsRef<str>,
{
    let (mut changed, mut reproduced) = (0, 0);
    for ((i, o), p) in inputs.iter().zip(outputs).zip(predicted) {
        if i.as_ref() != o.as_ref() {
            changed += 1;
            reproduced += usize::from(p.as_ref() == o.as_ref());
        }
    }
    let all = !outputs.is_empty() && passes(outputs, predicted);
    fractional_ratio(reproduced, changed, all)
}

/// [`fractional_score`] from its counts: `reproduced` of the `changed` examples, and
/// whether every example is reproduced (`all`, for the degenerate case `changed = 0`).
pub fn fractional_ratio(reproduced: usize, changed: usize, all: bool) -> f64 {
    if changed == 0 {
        f64::from(u8::from(all))
    } else {
        reproduced as f64 / changed as f64
    }
}

/// Valid_Rate (paper §4.3, as released): `Σ valid rules / Σ rules`, summed over the first
/// `max_rules` rules of every chosen response (a micro average). `None` when no response
/// has any rule.
pub fn valid_rate(valid: usize, total: usize) -> Option<f64> {
    (total > 0).then(|| valid as f64 / total as f64)
}

/// Sampling-budget choice (paper §3.2): the first passing sample, else the first sample
/// with the highest Edit_Sim. Samples are `(pass, edit_sim)`; `None` for no samples.
pub fn best_of_k<I: IntoIterator<Item = (bool, f64)>>(samples: I) -> Option<usize> {
    let mut best: Option<(usize, bool, f64)> = None;
    for (k, (pass, sim)) in samples.into_iter().enumerate() {
        let better = match best {
            None => true,
            Some((_, best_pass, best_sim)) => !best_pass && (pass || sim > best_sim),
        };
        if better {
            best = Some((k, pass, sim));
        }
    }
    best.map(|(k, _, _)| k)
}

/// Unbiased pass@k (Chen et al. 2021) from `n` samples of which `c` pass:
/// `1 − C(n−c, k) / C(n, k)`, computed as `1 − Π_{i=n−c+1}^{n} (1 − k/i)` (no large
/// binomials) and `1` when `n − c < k`. `None` unless `1 ≤ k ≤ n` and `c ≤ n`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let fail: f64 = (n - c + 1..=n).map(|i| 1.0 - k as f64 / i as f64).product();
    Some(1.0 - fail)
}

/// k-fold average (paper E.7): the mean, over all `C(n, k)` choices of `k` of the `n` runs,
/// of the best value among the chosen runs. With values sorted `v_(1) ≥ … ≥ v_(n)` this is
/// `Σ_r v_(r) · C(n−r, k−1) / C(n, k)`, computed with the weight recurrence
/// `w_1 = k/n`, `w_{r+1} = w_r · (n−r−k+1)/(n−r)`.
///
/// Best-of-k picks a passing run, else the highest Edit_Sim, and a pass has the highest
/// Edit_Sim, so feeding per-run pass flags (0/1) gives pass@k and per-run Edit_Sim gives
/// the k-sample Edit_Sim. Averaging over instances commutes with averaging over run
/// subsets, so per-instance values averaged give the dataset's k-fold figure.
/// `None` unless `1 ≤ k ≤ n`.
pub fn best_of_k_average(values: &[f64], k: usize) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    best_of_k_average_sorted(&sorted, k)
}

/// [`best_of_k_average`] of values already sorted from highest to lowest (by
/// `f64::total_cmp`), for computing it at several k with one sort.
pub fn best_of_k_average_sorted(sorted: &[f64], k: usize) -> Option<f64> {
    let n = sorted.len();
    if k == 0 || k > n {
        return None;
    }
    let mut weight = k as f64 / n as f64;
    let mut total = 0.0;
    for (r, v) in sorted.iter().enumerate() {
        let r = r + 1;
        if r > n - k + 1 {
            break;
        }
        total += v * weight;
        if r < n {
            weight *= (n - r + 1 - k) as f64 / (n - r) as f64;
        }
    }
    Some(total)
}

/// Arithmetic mean; `None` for no values.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Mean reward (vetted): the macro average of per-instance fractional scores,
/// `(1/N) Σ_j score_j`. `None` for no instances.
pub fn mean_reward(scores: &[f64]) -> Option<f64> {
    mean(scores)
}

/// Share of instances at or above a threshold: `#{j : score_j ≥ t} / N`; `None` for none.
pub fn share_at_least(scores: &[f64], threshold: f64) -> Option<f64> {
    (!scores.is_empty())
        .then(|| scores.iter().filter(|s| **s >= threshold).count() as f64 / scores.len() as f64)
}

/// Almost (vetted): `#{j : score_j ≥ 0.95} / N`.
pub fn almost(scores: &[f64]) -> Option<f64> {
    share_at_least(scores, ALMOST)
}

/// Resolved (vetted): `#{j : score_j = 1} / N`.
pub fn resolved(scores: &[f64]) -> Option<f64> {
    share_at_least(scores, 1.0)
}

/// Held-out pass (vetted): `#{j with held-out examples : the chosen cascade reproduces
/// them all} / #{j with held-out examples}`. Instances without held-out examples (`None`)
/// are left out; `None` when no instance has any.
pub fn heldout_pass_rate(results: &[Option<bool>]) -> Option<f64> {
    let with: Vec<bool> = results.iter().flatten().copied().collect();
    (!with.is_empty()).then(|| with.iter().filter(|p| **p).count() as f64 / with.len() as f64)
}

/// One point of a survival curve: the share of instances scoring at least `threshold`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SurvivalPoint {
    /// The fractional-score threshold.
    pub threshold: f64,
    /// `#{j : score_j ≥ threshold} / N`.
    pub share: f64,
}

/// The thresholds 0, 0.05, …, 1 (21 points), each exactly `m / 20`.
pub fn default_thresholds() -> Vec<f64> {
    (0..=20).map(|m| m as f64 / 20.0).collect()
}

/// Survival curve (vetted): for each threshold `t`, `#{j : score_j ≥ t} / N`. Empty for no
/// instances.
pub fn survival_curve(scores: &[f64], thresholds: &[f64]) -> Vec<SurvivalPoint> {
    if scores.is_empty() {
        return Vec::new();
    }
    let mut sorted = scores.to_vec();
    sorted.sort_by(f64::total_cmp);
    thresholds
        .iter()
        .map(|&threshold| {
            let below = sorted.partition_point(|s| *s < threshold);
            SurvivalPoint {
                threshold,
                share: (sorted.len() - below) as f64 / sorted.len() as f64,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn levenshtein_by_hand() {
        assert_eq!(char_distance("kitten", "sitting"), 3);
        assert_eq!(char_distance("", "abc"), 3);
        assert_eq!(char_distance("abc", ""), 3);
        assert_eq!(char_distance("abc", "abc"), 0);
        assert_eq!(char_distance("flaw", "lawn"), 2);
        assert_eq!(char_distance("ʔaː", "aː"), 1, "characters, not bytes");
        assert_eq!(char_distance("é", "e"), 1);
        let long_a = "ab".repeat(50);
        let long_b = "ba".repeat(50);
        assert_eq!(
            char_distance(&long_a, &long_b),
            2,
            "heap row for long strings"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// The bit-parallel distance is the dynamic programme's, on either side of 64.
        #[test]
        fn levenshtein_bits_is_the_programme(a in "[abc]{0,80}", b in "[abc]{0,80}") {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            let expected = if a.is_empty() || b.is_empty() {
                a.len().max(b.len())
            } else {
                levenshtein_rows(a, b)
            };
            proptest::prop_assert_eq!(levenshtein(a, b), expected);
            if !b.is_empty() && b.len() <= 64 {
                proptest::prop_assert_eq!(levenshtein_bits(a, b), levenshtein_rows(a, b));
            }
        }

        /// The same over characters and words.
        #[test]
        fn levenshtein_bits_over_chars_and_words(a in "[aé ʔ]{1,70}", b in "[aé ʔ]{1,70}") {
            let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            if cb.len() <= 64 {
                proptest::prop_assert_eq!(levenshtein_bits(&ca, &cb), levenshtein_rows(&ca, &cb));
            }
            let (wa, wb): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
            if wb.len() <= 64 {
                proptest::prop_assert_eq!(levenshtein_bits(&wa, &wb), levenshtein_rows(&wa, &wb));
            }
        }
    }

    #[test]
    fn word_distance_as_released() {
        assert_eq!(word_distance("abc", "abd"), 1);
        assert_eq!(word_distance("abc", "abc"), 0);
        assert_eq!(word_distance("", "abc"), 1, "[] vs ['abc']");
        assert_eq!(word_distance("a b c", "a c"), 1);
        assert_eq!(word_distance("a  b", "a b"), 0, "split() collapses runs");
        assert_eq!(word_distance("a\u{1c}b", "a b"), 0, "Python isspace");
        assert_eq!(word_distance("   ", ""), 0);
    }

    #[test]
    fn edit_sim_by_hand() {
        let inputs = ["abc", "xyz", "aa"];
        let outputs = ["abd", "xyz", "b"];
        // Σ dist(i, o) = 1 + 0 + 2 = 3.
        assert!(close(edit_sim(&inputs, &outputs, &outputs), 1.0));
        assert!(close(edit_sim(&inputs, &outputs, &inputs), 0.0));
        // Prediction ["abd", "xyz", "bb"]: Σ dist = 0 + 0 + 1 = 1 → 1 − 1/3.
        assert!(close(
            edit_sim(&inputs, &outputs, &["abd", "xyz", "bb"]),
            2.0 / 3.0
        ));
        // Prediction ["qqq", "xyzw", "aaaa"]: Σ dist = 3 + 1 + 4 = 8 → 1 − 8/3 = −5/3.
        assert!(close(
            edit_sim(&inputs, &outputs, &["qqq", "xyzw", "aaaa"]),
            1.0 - 8.0 / 3.0
        ));
        // Word version: 3 examples, gold changes 2; prediction wrong on 1 → 1 − 1/2.
        assert!(close(
            edit_sim_word(&inputs, &outputs, &["abd", "xyz", "bb"]),
            0.5
        ));
        // Wrong on all three: 1 − 3/2 = −1/2.
        assert!(close(
            edit_sim_word(&inputs, &outputs, &["q", "q", "q"]),
            -0.5
        ));
    }

    #[test]
    fn degenerate_edit_sim_is_never_nan() {
        let same = ["ab", "c"];
        assert_eq!(edit_sim(&same, &same, &same), 1.0);
        assert_eq!(edit_sim(&same, &same, &["ab", "d"]), 0.0);
        assert_eq!(edit_sim_word(&same, &same, &same), 1.0);
        assert_eq!(edit_sim_ratio(0, 0), 1.0);
        assert_eq!(edit_sim_ratio(5, 0), 0.0);
        assert!(!edit_sim_ratio(7, 0).is_nan());
    }

    #[test]
    fn pass_and_fraction_by_hand() {
        let outputs = ["a", "b", "c", "d"];
        assert!(passes(&outputs, &outputs));
        assert!(!passes(&outputs, &["a", "b", "c", "x"]));
        assert!(!passes(&outputs, &["a", "b", "c"]));
        assert_eq!(examples_reproduced(&outputs, &["a", "x", "c", "x"]), 2);
        // Inputs: the gold changes examples 1 and 3 (b→b and d→d are unchanged).
        let inputs = ["z", "b", "y", "d"];
        assert!(close(
            fractional_score(&inputs, &outputs, &["a", "x", "c", "x"]),
            1.0
        ));
        assert!(close(
            fractional_score(&inputs, &outputs, &["a", "b", "x", "d"]),
            0.5
        ));
        assert_eq!(
            fractional_score(&inputs, &outputs, &inputs),
            0.0,
            "identity"
        );
        assert_eq!(
            fractional_score(&outputs, &outputs, &outputs),
            1.0,
            "degenerate"
        );
        assert_eq!(
            fractional_score(&outputs, &outputs, &inputs),
            0.0,
            "degenerate"
        );
        assert_eq!(fractional_score::<&str, &str, &str>(&[], &[], &[]), 0.0);
    }

    #[test]
    fn valid_rate_by_hand() {
        assert_eq!(valid_rate(3, 4), Some(0.75));
        assert_eq!(valid_rate(0, 0), None);
    }

    #[test]
    fn best_of_k_by_hand() {
        assert_eq!(best_of_k([]), None);
        assert_eq!(
            best_of_k([(false, 0.2), (false, 0.7), (false, 0.7)]),
            Some(1)
        );
        assert_eq!(best_of_k([(false, 0.9), (true, 1.0), (true, 1.0)]), Some(1));
        assert_eq!(best_of_k([(false, -3.0)]), Some(0));
        assert_eq!(best_of_k([(false, -3.0), (false, -1.0)]), Some(1));
    }

    #[test]
    fn pass_at_k_by_hand() {
        // n = 5, c = 2, k = 2: 1 − C(3,2)/C(5,2) = 1 − 3/10.
        assert!(close(pass_at_k(5, 2, 2).unwrap(), 0.7));
        // k = 1 is c/n.
        assert!(close(pass_at_k(8, 3, 1).unwrap(), 3.0 / 8.0));
        assert_eq!(pass_at_k(4, 0, 3), Some(0.0));
        assert_eq!(pass_at_k(4, 2, 3), Some(1.0));
        assert_eq!(pass_at_k(4, 2, 5), None);
        assert_eq!(pass_at_k(4, 2, 0), None);
        assert_eq!(pass_at_k(4, 5, 1), None);
    }

    #[test]
    fn best_of_k_average_by_hand() {
        // Values 0.2, 0.5, 0.9; pairs: {.2,.5}→.5, {.2,.9}→.9, {.5,.9}→.9 → mean 2.3/3.
        assert!(close(
            best_of_k_average(&[0.2, 0.9, 0.5], 2).unwrap(),
            2.3 / 3.0
        ));
        assert!(close(
            best_of_k_average(&[0.2, 0.9, 0.5], 1).unwrap(),
            1.6 / 3.0
        ));
        assert!(close(best_of_k_average(&[0.2, 0.9, 0.5], 3).unwrap(), 0.9));
        assert!(close(best_of_k_average(&[-1.0, -2.0], 1).unwrap(), -1.5));
        assert_eq!(best_of_k_average(&[0.1], 2), None);
        assert_eq!(best_of_k_average(&[0.1], 0), None);
    }

    #[test]
    fn vetted_figures_by_hand() {
        let scores = [1.0, 0.96, 0.95, 0.5, 0.0];
        assert!(close(mean_reward(&scores).unwrap(), 3.41 / 5.0));
        assert!(close(almost(&scores).unwrap(), 0.6));
        assert!(close(resolved(&scores).unwrap(), 0.2));
        assert_eq!(mean_reward(&[]), None);
        assert_eq!(almost(&[]), None);
        assert!(close(
            heldout_pass_rate(&[Some(true), None, Some(false), Some(true)]).unwrap(),
            2.0 / 3.0
        ));
        assert_eq!(heldout_pass_rate(&[None, None]), None);
        let curve = survival_curve(&scores, &[0.0, 0.5, 0.951, 1.0, 1.5]);
        let shares: Vec<f64> = curve.iter().map(|p| p.share).collect();
        assert_eq!(shares, vec![1.0, 0.8, 0.4, 0.2, 0.0]);
        assert!(survival_curve(&[], &[0.5]).is_empty());
        let t = default_thresholds();
        assert_eq!(t.len(), 21);
        assert_eq!(t[19], 0.95);
        assert_eq!(19.0 / 20.0, ALMOST);
    }
}
