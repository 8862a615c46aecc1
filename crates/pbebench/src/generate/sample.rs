//! Sampling one candidate instance (inputs and a cascade) and its held-out examples.
//!
//! The examples of a candidate are kept joined in one string, separated by a byte that is
//! never in the alphabet. A rule's pattern cannot contain the separator, so replacing in
//! the joined string is exactly replacing in every example, and the whole cascade costs one
//! substring scan per rule instead of one per example.

use super::{GenParams, Rejection};
use crate::relations::{category_of, Category};
use crate::rule::{Cascade, Rule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashSet;
use std::time::Instant;

/// Separates examples in a joined string; generators reject alphabets containing it.
const SEP: char = '\n';

/// What each random stream is used for: part of the stream's key.
#[derive(Clone, Copy)]
#[repr(u64)]
enum Purpose {
    Candidate = 1,
    Heldout = 2,
}

/// The random stream for one purpose of one attempt of one block of one seed.
///
/// The 256-bit ChaCha key is the four numbers themselves, so distinct attempts never
/// share a stream.
fn stream(seed: u64, block: u64, attempt: u64, purpose: Purpose) -> ChaCha8Rng {
    let mut key = [0u8; 32];
    for (k, word) in [seed, block, attempt, purpose as u64]
        .into_iter()
        .enumerate()
    {
        key[k * 8..k * 8 + 8].copy_from_slice(&word.to_le_bytes());
    }
    ChaCha8Rng::from_seed(key)
}

/// A sampled instance before acceptance. The examples stay joined (see the module doc)
/// until the candidate is accepted: most candidates are rejected.
pub(super) struct Candidate {
    pub inputs: String,
    pub outputs: String,
    pub cascade: Vec<Rule>,
    pub category: Category,
}

impl Candidate {
    /// The examples as separate strings: `(inputs, outputs)`.
    pub fn examples(&self) -> (Vec<String>, Vec<String>) {
        let split = |joined: &str| joined.split(SEP).map(str::to_owned).collect();
        (split(&self.inputs), split(&self.outputs))
    }
}

/// Reusable buffers of one worker.
#[derive(Default)]
pub(super) struct Scratch {
    seen: FxHashSet<u128>,
    next: String,
    windows: Vec<(u32, u32)>,
    keys: Vec<u64>,
}

/// Samples attempt `attempt` of a block: ℓ from `lengths`, distinct inputs, then rules
/// whose pattern is a substring present at that point. Also returns the seconds spent
/// classifying relations.
pub(super) fn sample_candidate(
    p: &GenParams,
    block: u64,
    attempt: u64,
    lengths: &[usize],
    exact_length: bool,
    scratch: &mut Scratch,
) -> (Result<Candidate, Rejection>, f64) {
    let mut rng = stream(p.seed, block, attempt, Purpose::Candidate);
    let target = lengths[rng.random_range(0..lengths.len())];
    let inputs = sample_inputs(p, &mut rng, p.examples, &[], scratch).join("\n");
    let mut joined = inputs.clone();
    let mut rules = Vec::with_capacity(target);
    for _ in 0..target {
        let Some(rule) = sample_rule(p, &mut rng, &joined, scratch) else {
            continue;
        };
        // Rules that change nothing at the point they apply are dropped (Algorithm 1).
        if rule.apply_into(&joined, &mut scratch.next) {
            std::mem::swap(&mut joined, &mut scratch.next);
            rules.push(rule);
        }
    }
    let min_len = if exact_length { target } else { lengths[0] };
    if rules.len() < min_len {
        return (Err(Rejection::TooShort), 0.0);
    }
    if joined == inputs {
        return (Err(Rejection::OutputsEqualInputs), 0.0);
    }
    let clock = Instant::now();
    let category = category_of(&rules, p.relations);
    let secs = clock.elapsed().as_secs_f64();
    (
        Ok(Candidate {
            inputs,
            outputs: joined,
            cascade: rules,
            category,
        }),
        secs,
    )
}

/// An identity for a short string: its letters (+1) in 21 bits each when it has at most
/// 6 letters (exact), else a 64-bit hash (a collision only costs one redraw).
fn string_key(s: &str) -> u128 {
    let mut key = 0u128;
    for (k, c) in s.chars().enumerate() {
        if k == 6 {
            use std::hash::BuildHasher;
            return 1u128 << 127 | rustc_hash::FxBuildHasher.hash_one(s) as u128;
        }
        key |= (c as u128 + 1) << (21 * k);
    }
    key
}

/// `count` distinct random strings, length ~ Unif{l_min..l_max}, letters ~ Unif(Σ), none
/// of them in `exclude`.
fn sample_inputs(
    p: &GenParams,
    rng: &mut ChaCha8Rng,
    count: usize,
    exclude: &[String],
    scratch: &mut Scratch,
) -> Vec<String> {
    scratch.seen.clear();
    scratch.seen.extend(exclude.iter().map(|s| string_key(s)));
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let len = rng.random_range(p.input_len.0..=p.input_len.1);
        let s: String = (0..len)
            .map(|_| p.alphabet[rng.random_range(0..p.alphabet.len())])
            .collect();
        if scratch.seen.insert(string_key(&s)) {
            out.push(s);
        }
    }
    out
}

/// A rule `a → b`: |a|, |b| ~ Unif{s_min..s_max}; `a` uniform over the *distinct*
/// substrings of length |a| of the current examples; `b` uniform over Σ^|b|, resampled
/// while it equals `a`. None when no example is |a| letters long.
fn sample_rule(
    p: &GenParams,
    rng: &mut ChaCha8Rng,
    joined: &str,
    scratch: &mut Scratch,
) -> Option<Rule> {
    let a_len = rng.random_range(p.rule_len.0..=p.rule_len.1);
    let b_len = rng.random_range(p.rule_len.0..=p.rule_len.1);
    let a = uniform_distinct_substring(rng, joined, a_len, scratch)?;
    loop {
        let b: String = (0..b_len)
            .map(|_| p.alphabet[rng.random_range(0..p.alphabet.len())])
            .collect();
        if b != a {
            return Some(Rule::new(a, b).expect("sampled patterns are never empty"));
        }
    }
}

/// A substring of `k` letters of one example, uniform over the distinct such substrings.
///
/// Draws a window uniformly over all windows and keeps it with probability 1/m, where m is
/// how many windows hold the same text: each distinct text is then equally likely, with no
/// set built. Expected draws: windows / distinct texts (about 2 on the presets). Windows of
/// up to 3 letters are compared as packed numbers.
fn uniform_distinct_substring(
    rng: &mut ChaCha8Rng,
    joined: &str,
    k: usize,
    scratch: &mut Scratch,
) -> Option<String> {
    let packed = k <= 3;
    if packed && joined.is_ascii() {
        ascii_windows(joined.as_bytes(), k, scratch);
    } else {
        windows(joined, k, &mut scratch.windows);
        if packed {
            let text = |(s, e): (u32, u32)| &joined[s as usize..e as usize];
            scratch.keys.clear();
            scratch
                .keys
                .extend(scratch.windows.iter().map(|&w| string_key(text(w)) as u64));
        }
    }
    let windows = &scratch.windows;
    if windows.is_empty() {
        return None;
    }
    let text = |(s, e): (u32, u32)| &joined[s as usize..e as usize];
    loop {
        let pick = rng.random_range(0..windows.len());
        let m = if packed {
            let key = scratch.keys[pick];
            scratch.keys.iter().filter(|&&other| other == key).count()
        } else {
            windows
                .iter()
                .filter(|&&w| text(w) == text(windows[pick]))
                .count()
        };
        if m == 1 || rng.random_range(0..m) == 0 {
            return Some(text(windows[pick]).to_owned());
        }
    }
}

/// [`windows`] and their packed keys (as [`string_key`] computes them) for ASCII text and
/// `k <= 3`, in one pass over the bytes.
fn ascii_windows(bytes: &[u8], k: usize, scratch: &mut Scratch) {
    scratch.windows.clear();
    scratch.keys.clear();
    let mut run = 0;
    let mut key = 0u64;
    let mask = (1u64 << (21 * k)) - 1;
    for (i, &c) in bytes.iter().enumerate() {
        if c == SEP as u8 {
            run = 0;
            key = 0;
            continue;
        }
        run += 1;
        // Shift the newest letter in at the top so the window's first letter ends lowest.
        key = (key >> 21) | (c as u64 + 1) << (21 * (k - 1));
        if run >= k {
            let start = (i + 1 - k) as u32;
            scratch.windows.push((start, i as u32 + 1));
            scratch.keys.push(key & mask);
        }
    }
}

/// Byte ranges of every window of `k` letters that lies inside one example, into `out`.
fn windows(joined: &str, k: usize, out: &mut Vec<(u32, u32)>) {
    out.clear();
    for part in joined.split(SEP) {
        let base = (part.as_ptr() as usize - joined.as_ptr() as usize) as u32;
        if part.is_ascii() {
            let n = (part.len() + 1).saturating_sub(k) as u32;
            out.extend((0..n).map(|i| (base + i, base + i + k as u32)));
        } else {
            let bounds: Vec<u32> = part
                .char_indices()
                .map(|(i, _)| i as u32)
                .chain([part.len() as u32])
                .collect();
            out.extend(bounds.windows(k + 1).map(|w| (base + w[0], base + w[k])));
        }
    }
}

/// `h` held-out inputs (distinct from the visible ones and each other) and their outputs,
/// chosen greedily from a pool of fresh inputs so that every rule of the cascade fires on
/// at least one where the pool allows. Drawn from the attempt's own held-out stream.
pub(super) fn sample_heldout(
    p: &GenParams,
    block: u64,
    attempt: u64,
    visible: &[String],
    cascade: &Cascade,
) -> (Vec<String>, Vec<String>) {
    if p.heldout == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut rng = stream(p.seed, block, attempt, Purpose::Heldout);
    let distinct_inputs: f64 = (p.input_len.0..=p.input_len.1)
        .map(|l| (p.alphabet.len() as f64).powi(l as i32))
        .sum();
    let available = (distinct_inputs - visible.len() as f64).max(0.0);
    let pool_size = (p.heldout * 20).max(400).min(available as usize);
    let pool = sample_inputs(p, &mut rng, pool_size, visible, &mut Scratch::default());
    // For each pool input, the set of rules that fire on it along the cascade.
    let fired: Vec<Vec<usize>> = pool.iter().map(|s| rules_fired(cascade, s)).collect();
    let mut covered = vec![false; cascade.len()];
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < p.heldout.min(pool.len()) {
        let gain = |k: usize| fired[k].iter().filter(|&&r| !covered[r]).count();
        let best = (0..pool.len())
            .filter(|k| !chosen.contains(k))
            .max_by_key(|&k| (gain(k), std::cmp::Reverse(k)));
        match best {
            Some(k) if gain(k) > 0 => {
                for &r in &fired[k] {
                    covered[r] = true;
                }
                chosen.push(k);
            }
            _ => break,
        }
    }
    // Rules no pool input reaches: splice a window of a visible input on which the rule
    // fires into random letters, keeping the input length in range.
    let mut pool = pool;
    let visible_fired: Vec<Vec<usize>> = visible.iter().map(|s| rules_fired(cascade, s)).collect();
    for rule in 0..cascade.len() {
        if covered[rule] || chosen.len() >= p.heldout {
            continue;
        }
        let sources: Vec<&String> = visible
            .iter()
            .zip(&visible_fired)
            .filter(|(_, f)| f.contains(&rule))
            .map(|(v, _)| v)
            .collect();
        if sources.is_empty() {
            continue;
        }
        for _ in 0..200 {
            let source: Vec<char> = sources[rng.random_range(0..sources.len())]
                .chars()
                .collect();
            let len = rng.random_range(p.input_len.0..=p.input_len.1);
            let from = rng.random_range(0..source.len());
            let to = rng.random_range(from + 1..=source.len().min(from + len));
            let pad = len - (to - from);
            let before = rng.random_range(0..=pad);
            let letter = |rng: &mut ChaCha8Rng| p.alphabet[rng.random_range(0..p.alphabet.len())];
            let mut s: String = (0..before).map(|_| letter(&mut rng)).collect();
            s.extend(&source[from..to]);
            s.extend((0..pad - before).map(|_| letter(&mut rng)));
            if visible.contains(&s) || pool.contains(&s) {
                continue;
            }
            let f = rules_fired(cascade, &s);
            if f.contains(&rule) {
                for &r in &f {
                    covered[r] = true;
                }
                chosen.push(pool.len());
                pool.push(s);
                break;
            }
        }
    }
    // Fill up with the rest of the pool in draw order.
    for k in 0..pool.len() {
        if chosen.len() >= p.heldout.min(pool.len()) {
            break;
        }
        if !chosen.contains(&k) {
            chosen.push(k);
        }
    }
    let inputs: Vec<String> = chosen.iter().map(|&k| pool[k].clone()).collect();
    let outputs = cascade.apply_all(&inputs);
    (inputs, outputs)
}

/// Indices of the rules that change `s` as the cascade runs over it.
pub(super) fn rules_fired(cascade: &Cascade, s: &str) -> Vec<usize> {
    let mut cur = s.to_owned();
    let mut next = String::new();
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

    fn window_texts(joined: &str, k: usize) -> Vec<&str> {
        let mut out = Vec::new();
        windows(joined, k, &mut out);
        out.iter()
            .map(|&(s, e)| &joined[s as usize..e as usize])
            .collect()
    }

    #[test]
    fn windows_stay_inside_examples() {
        assert_eq!(window_texts("ab\ncde\nf", 2), vec!["ab", "cd", "de"]);
        assert_eq!(window_texts("ʔa\nːbc", 2), vec!["ʔa", "ːb", "bc"]);
        assert!(window_texts("ab\nc", 3).is_empty());
    }

    /// Share of draws that give `wanted`, the rarest of two distinct substrings.
    fn share_of(joined: &str, k: usize, wanted: &str) -> f64 {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut scratch = Scratch::default();
        let n = 20_000;
        let hits = (0..n)
            .filter(|_| {
                uniform_distinct_substring(&mut rng, joined, k, &mut scratch).unwrap() == wanted
            })
            .count();
        hits as f64 / n as f64
    }

    #[test]
    fn distinct_substrings_are_uniform() {
        // "a" has 8 windows, "b" one: a plain window draw would pick "b" 1 time in 9.
        let share = share_of("aaaa\naaaab", 1, "b");
        assert!((share - 0.5).abs() < 0.02, "share of 'b' is {share}");
        // Packed keys (2 letters) and plain text comparison (4 letters) alike.
        let share = share_of("aaaaaa\naab", 2, "ab");
        assert!((share - 0.5).abs() < 0.02, "share of 'ab' is {share}");
        let share = share_of("aaaaaaaa\naaaab", 4, "aaab");
        assert!((share - 0.5).abs() < 0.02, "share of 'aaab' is {share}");
    }

    #[test]
    fn ascii_windows_match_the_general_path() {
        let joined = "abcab\nb\ncabca\nxy";
        for k in 1..=3 {
            let mut fast = Scratch::default();
            ascii_windows(joined.as_bytes(), k, &mut fast);
            let mut slow = Vec::new();
            windows(joined, k, &mut slow);
            assert_eq!(fast.windows, slow, "k = {k}");
            let keys: Vec<u64> = slow
                .iter()
                .map(|&(s, e)| string_key(&joined[s as usize..e as usize]) as u64)
                .collect();
            assert_eq!(fast.keys, keys, "k = {k}");
        }
    }

    #[test]
    fn string_keys_identify_strings() {
        assert_ne!(string_key("ab"), string_key("ba"));
        assert_ne!(string_key("a"), string_key("a\u{0}"));
        assert_ne!(string_key("abcdefg"), string_key("abcdefh"));
        assert_eq!(string_key("abcdefg"), string_key("abcdefg"));
    }

    #[test]
    fn streams_differ_by_every_key_part() {
        let draw = |s, b, a, p| stream(s, b, a, p).random::<u64>();
        let base = draw(1, 2, 3, Purpose::Candidate);
        assert_ne!(base, draw(0, 2, 3, Purpose::Candidate));
        assert_ne!(base, draw(1, 0, 3, Purpose::Candidate));
        assert_ne!(base, draw(1, 2, 0, Purpose::Candidate));
        assert_ne!(base, draw(1, 2, 3, Purpose::Heldout));
        assert_eq!(base, draw(1, 2, 3, Purpose::Candidate));
    }
}
