//! Held-out examples: fresh inputs chosen so that every rule of the hidden cascade fires on
//! at least one of them where possible, drawn from the attempt's own stream.

use super::bytes::replace_bytes_noting;
use super::draws::{stream, Purpose};
use super::inputs::{draw_pool, input_key};
use super::letters::{Letters, SEP_CODE};
use super::sampler::Sampler;
use super::GenParams;
use crate::rule::Cascade;
use rand::Rng;
use rustc_hash::FxHashSet;

/// `h` held-out inputs (distinct from the visible ones and each other) and their outputs,
/// chosen greedily from a pool of fresh inputs so that every rule of the cascade fires on
/// at least one where the pool allows. Drawn from the attempt's own held-out stream.
pub(super) fn draw_heldout(
    p: &GenParams,
    sampler: &Sampler,
    block: u64,
    attempt: u64,
    visible: &[String],
    cascade: &Cascade,
) -> (Vec<String>, Vec<String>) {
    if p.heldout == 0 {
        return (Vec::new(), Vec::new());
    }
    let letters = &sampler.letters;
    let mut rng = stream(p.seed, block, attempt, Purpose::Heldout, sampler.codes);
    let distinct_inputs: f64 = (p.input_len.0..=p.input_len.1)
        .map(|l| (p.alphabet.len() as f64).powi(l as i32))
        .sum();
    let available = (distinct_inputs - visible.len() as f64).max(0.0);
    let pool_size = (p.heldout * 20).max(400).min(available as usize);
    // Room for the splices too, so that the set never grows.
    let mut taken = FxHashSet::with_capacity_and_hasher(
        visible.len() + pool_size + cascade.len(),
        Default::default(),
    );
    let visible_codes: Vec<Vec<u8>> = visible.iter().map(|s| letters.codes(s)).collect();
    taken.extend(visible_codes.iter().map(|codes| input_key(codes)));
    let (pool_codes, starts) = draw_pool(p, letters, &mut rng, pool_size, &mut taken);
    let pool: Vec<&[u8]> = (starts.iter().enumerate())
        .map(|(k, &start)| {
            let end = starts.get(k + 1).map_or(pool_codes.len(), |&next| next - 1);
            &pool_codes[start..end]
        })
        .collect();
    // For each pool input, the set of rules that fire on it along the cascade.
    let rules = coded_rules(cascade, letters);
    let fired = RuleSets::of_pool(&rules, &pool_codes, pool.len());
    let mut covered = RuleSets::new(1, cascade.len());
    let mut chosen: Vec<usize> = Vec::new();
    // Greedy cover: the input that fires the most rules not yet covered, the first drawn
    // among equals. Only inputs that fire some rule can gain, and a chosen one gains
    // nothing more, so neither the others nor the chosen need looking at.
    let firing: Vec<usize> = (0..pool.len()).filter(|&k| fired.any(k)).collect();
    while chosen.len() < p.heldout.min(pool.len()) {
        let gain = |k: usize| fired.count_new(k, &covered);
        let best = (firing.iter().copied()).max_by_key(|&k| (gain(k), std::cmp::Reverse(k)));
        match best {
            Some(k) if gain(k) > 0 => {
                covered.add(0, fired.rules(k));
                chosen.push(k);
            }
            _ => break,
        }
    }
    // Rules no pool input reaches: splice a window of a visible input on which the rule
    // fires into random letters, keeping the input length in range.
    let mut spliced: Vec<String> = Vec::new();
    let visible_fired = RuleSets::of_pool(&rules, &visible_codes.join(&SEP_CODE), visible.len());
    for rule in 0..cascade.len() {
        if covered.has(0, rule) || chosen.len() >= p.heldout {
            continue;
        }
        let sources: Vec<&String> = (visible.iter().enumerate())
            .filter(|&(k, _)| visible_fired.has(k, rule))
            .map(|(_, v)| v)
            .collect();
        if sources.is_empty() {
            continue;
        }
        for _ in 0..200 {
            let source: Vec<char> = sources[rng.random_range(0..sources.len())]
                .chars()
                .collect();
            let len = rng.input_len();
            let from = rng.random_range(0..source.len());
            let to = rng.random_range(from + 1..=source.len().min(from + len));
            let pad = len - (to - from);
            let before = rng.random_range(0..=pad);
            let mut s: String = (0..before).map(|_| rng.letter(&p.alphabet)).collect();
            s.extend(&source[from..to]);
            s.extend((0..pad - before).map(|_| rng.letter(&p.alphabet)));
            let codes = letters.codes(&s);
            let key = input_key(&codes);
            if taken.contains(&key) {
                continue; // a visible input or one of the pool already
            }
            let fired = RuleSets::of_pool(&rules, &codes, 1);
            if fired.has(0, rule) {
                covered.add(0, fired.rules(0));
                chosen.push(pool.len() + spliced.len());
                taken.insert(key);
                spliced.push(s);
                break;
            }
        }
    }
    // Fill up with the rest of the pool in draw order.
    let total = pool.len() + spliced.len();
    for k in 0..total {
        if chosen.len() >= p.heldout.min(total) {
            break;
        }
        if !chosen.contains(&k) {
            chosen.push(k);
        }
    }
    let inputs: Vec<String> = chosen
        .iter()
        .map(|&k| match pool.get(k) {
            Some(codes) => letters.text(codes),
            None => spliced[k - pool.len()].clone(),
        })
        .collect();
    let outputs = cascade.apply_all(&inputs);
    (inputs, outputs)
}

/// The rules of `cascade` in the codes of `letters`, None for a rule whose two sides are
/// equal.
pub(super) fn coded_rules(cascade: &Cascade, letters: &Letters) -> Vec<Option<(Vec<u8>, Vec<u8>)>> {
    (cascade.rules().iter())
        .map(|rule| {
            (!rule.is_identity()).then(|| {
                (
                    letters.codes(rule.pattern()),
                    letters.codes(rule.replacement()),
                )
            })
        })
        .collect()
}

/// A set of rule indices for each of a number of inputs, as bits.
pub(super) struct RuleSets {
    /// 64-bit words per set.
    pub(super) words: usize,
    pub(super) bits: Vec<u64>,
}

impl RuleSets {
    /// `sets` empty sets of rules of a cascade of `rules` rules.
    pub(super) fn new(sets: usize, rules: usize) -> Self {
        let words = rules.div_ceil(64).max(1);
        RuleSets {
            words,
            bits: vec![0; sets * words],
        }
    }

    /// For each of the `count` inputs joined in `pool`, the rules (from [`coded_rules`])
    /// that fire on it as the cascade runs: each rule is applied once to the whole joined
    /// pool, and each match it replaces is charged to the input it lies in (found by
    /// counting separators since the previous match). A rule fires on an input exactly when
    /// its pattern occurs there, which is when it has a match there.
    pub(super) fn of_pool<R: AsRef<[u8]>>(
        rules: &[Option<(R, R)>],
        pool: &[u8],
        count: usize,
    ) -> Self {
        let mut sets = RuleSets::new(count, rules.len());
        let (mut cur, mut next) = (pool.to_vec(), Vec::new());
        for (r, rule) in rules.iter().enumerate() {
            let Some((a, b)) = rule else {
                continue; // an identity fires on nothing (Rule::fires_on)
            };
            let (mut input, mut counted_to) = (0, 0);
            let changed = replace_bytes_noting(&cur, a.as_ref(), b.as_ref(), &mut next, |at| {
                input += cur[counted_to..at]
                    .iter()
                    .filter(|&&c| c == SEP_CODE)
                    .count();
                counted_to = at;
                sets.set(input, r);
            });
            if changed {
                std::mem::swap(&mut cur, &mut next);
            }
        }
        sets
    }

    pub(super) fn set(&mut self, set: usize, rule: usize) {
        self.bits[set * self.words + rule / 64] |= 1 << (rule % 64);
    }

    pub(super) fn has(&self, set: usize, rule: usize) -> bool {
        self.bits[set * self.words + rule / 64] & 1 << (rule % 64) != 0
    }

    /// Whether set `set` holds any rule.
    pub(super) fn any(&self, set: usize) -> bool {
        self.rules(set).iter().any(|&word| word != 0)
    }

    /// The words of set `set`.
    pub(super) fn rules(&self, set: usize) -> &[u64] {
        &self.bits[set * self.words..(set + 1) * self.words]
    }

    /// Adds the rules in `rules` (words as [`RuleSets::rules`] gives) to set `set`.
    pub(super) fn add(&mut self, set: usize, rules: &[u64]) {
        for (word, &add) in self.bits[set * self.words..].iter_mut().zip(rules) {
            *word |= add;
        }
    }

    /// How many rules of set `set` are not in the single set of `other`.
    pub(super) fn count_new(&self, set: usize, other: &RuleSets) -> u32 {
        self.rules(set)
            .iter()
            .zip(other.rules(0))
            .map(|(&mine, &theirs)| (mine & !theirs).count_ones())
            .sum()
    }
}

/// Indices of the rules that change `s` as the cascade runs over it, found on the text
/// itself: the reference the tests hold [`RuleSets::of_pool`] to.
#[cfg(test)]
pub(super) fn rules_fired(cascade: &Cascade, s: &str) -> Vec<usize> {
    let (mut cur, mut next) = (s.to_owned(), String::new());
    let mut fired = Vec::new();
    for (k, rule) in cascade.rules().iter().enumerate() {
        if rule.apply_into(&cur, &mut next) {
            std::mem::swap(&mut cur, &mut next);
            fired.push(k);
        }
    }
    fired
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Rule;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The rules that fire on each input of a joined pool, found by running the cascade
        /// once over the pool, are those found by running it over each input alone.
        #[test]
        fn pool_rule_sets_are_per_input_rule_sets(
            inputs in proptest::collection::vec("[abc]{0,7}", 0..30),
            rules in proptest::collection::vec(("[abc]{1,3}", "[abc]{0,3}"), 1..70),
        ) {
            let letters = Letters::new(&['a', 'b', 'c']);
            let cascade = Cascade::new(
                rules.into_iter().map(|(a, b)| Rule::new(a, b).unwrap()).collect(),
            );
            let coded: Vec<Vec<u8>> = inputs.iter().map(|s| letters.codes(s)).collect();
            let pool = coded.join(&SEP_CODE);
            let sets = RuleSets::of_pool(&coded_rules(&cascade, &letters), &pool, inputs.len());
            for (k, input) in inputs.iter().enumerate() {
                let expected = rules_fired(&cascade, input);
                let got: Vec<usize> = (0..cascade.len()).filter(|&r| sets.has(k, r)).collect();
                proptest::prop_assert_eq!(got, expected, "input {}", input);
            }
        }
    }
}
