//! The queries a probing round asks ([`super::solve_probing`]): inputs on which rivals of
//! the candidate differ from it, the candidate's patterns and replacements alone and
//! their pieces and traces, the pair cover of the alphabet, windows of the visible
//! inputs, the strings around its rules, and focused random inputs.

use super::{fits_all, ActiveConfig};
use pbebench::equiv::{self, InputSpace, Limits};
use pbebench::probe::Task;
use pbebench::{Cascade, Rule};
use std::collections::HashSet;

/// Inputs on which rivals of `candidate` that fit every known example differ from it, at
/// most `count`, none of them known already.
pub(super) fn distinguishing(
    candidate: &Cascade,
    task: &Task,
    (inputs, outputs): (&[String], &[String]),
    space: &InputSpace,
    known: &HashSet<String>,
    config: &ActiveConfig,
    count: usize,
) -> Vec<String> {
    let mut reference = equiv::Reference::new(candidate, space, &Limits::default());
    let mut found: Vec<String> = Vec::new();
    let mut compared = 0;
    for rival in rivals(candidate, task) {
        if found.len() >= count || compared >= config.max_comparisons {
            break;
        }
        if !fits_all(&rival, inputs, outputs) {
            continue;
        }
        compared += 1;
        let counterexample = match reference.compare(&rival) {
            Ok(c) => c.counterexample,
            Err(undecided) => undecided.counterexample,
        };
        if let Some(c) = counterexample {
            if !known.contains(&c.input) && !found.contains(&c.input) {
                found.push(c.input);
            }
        }
    }
    found
}

/// Cascades near `candidate`, in the order they are tried: one rule dropped, one rule
/// moved to another place, a context letter dropped from a rule (from both sides, when they
/// share it), a context letter added to a rule (on both sides), for every letter.
pub(super) fn rivals<'a>(
    candidate: &'a Cascade,
    task: &'a Task,
) -> impl Iterator<Item = Cascade> + 'a {
    let rules = candidate.rules();
    let n = rules.len();
    let with = move |k: usize, rule: Option<Rule>| {
        let mut v = rules.to_vec();
        match rule {
            Some(r) => v[k] = r,
            None => {
                v.remove(k);
            }
        }
        Cascade::new(v)
    };
    let dropped = (0..n).map(move |k| with(k, None));
    let moved = (0..n).flat_map(move |k| {
        (0..n).filter(move |&j| j != k).map(move |j| {
            let mut v = rules.to_vec();
            let rule = v.remove(k);
            v.insert(j, rule);
            Cascade::new(v)
        })
    });
    let shrunk = (0..n).flat_map(move |k| {
        let (p, r) = (rules[k].pattern(), rules[k].replacement());
        let mut out = Vec::new();
        if let (Some(a), Some(b)) = (p.chars().next(), r.chars().next()) {
            if a == b && p.len() > a.len_utf8() {
                out.extend(Rule::new(&p[a.len_utf8()..], &r[b.len_utf8()..]).ok());
            }
        }
        if let (Some(a), Some(b)) = (p.chars().next_back(), r.chars().next_back()) {
            if a == b && p.len() > a.len_utf8() {
                let rule = Rule::new(&p[..p.len() - a.len_utf8()], &r[..r.len() - b.len_utf8()]);
                out.extend(rule.ok());
            }
        }
        out.into_iter().map(move |rule| with(k, Some(rule)))
    });
    let limit = task.max_rule_len;
    let grown = (0..n).flat_map(move |k| {
        let (p, r) = (rules[k].pattern(), rules[k].replacement());
        let fits = p.chars().count() < limit && r.chars().count() < limit;
        task.alphabet
            .chars()
            .filter(move |_| fits)
            .flat_map(move |x| {
                [
                    Rule::new(format!("{x}{p}"), format!("{x}{r}")),
                    Rule::new(format!("{p}{x}"), format!("{r}{x}")),
                ]
            })
            .filter_map(Result::ok)
            .map(move |rule| with(k, Some(rule)))
    });
    dropped.chain(moved).chain(shrunk).chain(grown)
}

/// The distinct windows of `len` letters of the visible inputs that the hidden cascade
/// changes (the whole input when shorter), each input's in order, the inputs in order.
/// Probed alone, a window shows what the rules do to that stretch without the rest of
/// the input, which splits a change the candidate explains with one long rule into the
/// hidden rules that made it.
pub(super) fn windows_of(task: &Task, len: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if len == 0 {
        return out;
    }
    for (input, output) in task.inputs.iter().zip(&task.outputs) {
        if input == output {
            continue;
        }
        let chars: Vec<char> = input.chars().collect();
        let n = len.min(chars.len());
        for w in chars.windows(n) {
            let w: String = w.iter().collect();
            if w != *input && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// The patterns and the replacements of `candidate`'s rules, each alone, none known yet,
/// at most `count`. Alone, a pattern shows whether the hidden cascade rewrites it as the
/// candidate does without the example around it (a context the candidate's rule needs
/// where the hidden one has none, or the reverse), and a replacement whether the hidden
/// cascade rewrites it further, or a rule that stands in for two hidden ones whose order
/// differs (`ggg → g` fitted where the hidden cascade has `ggx → x`: `ggg` alone tells).
///
/// With `parts`, the pieces of the patterns instead: each pattern without its first and
/// without its last letter (of two letters at least). Where the candidate folded two
/// hidden rules into one (`Xw → s`, `sb → u` answered by `Xwb → u`), the pattern of the
/// first one is such a piece, and alone it shows the intermediate (`Xw` gives `s`).
/// Then each pattern as the candidate's other rules rewrite it: once the candidate has
/// learnt `Xw → s` and kept `Xwb → u`, `sb` shows the second hidden rule.
pub(super) fn isolating(
    candidate: &Cascade,
    task: &Task,
    known: &HashSet<String>,
    count: usize,
    parts: bool,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let rules = candidate.rules();
    let (forms, undone) = if parts {
        traces(rules, task.max_probe_len)
    } else {
        (Vec::new(), Vec::new())
    };
    let strings: Vec<&str> = if parts {
        (rules.iter().map(Rule::pattern))
            .filter(|p| p.chars().count() >= 3)
            .flat_map(pieces)
            .chain(forms.iter().map(String::as_str))
            .chain(
                (forms.iter())
                    .filter(|f| f.chars().count() >= 3)
                    .flat_map(|f| pieces(f)),
            )
            .chain(undone.iter().map(String::as_str))
            .collect()
    } else {
        (rules.iter().map(Rule::pattern))
            .chain(rules.iter().map(Rule::replacement))
            .collect()
    };
    for s in strings {
        if out.len() >= count {
            break;
        }
        if askable(task, s) && !known.contains(s) && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// `p` without its last letter and without its first.
pub(super) fn pieces(p: &str) -> [&str; 2] {
    let first = p.chars().next().map_or(0, char::len_utf8);
    let last = p.chars().next_back().map_or(0, char::len_utf8);
    [&p[..p.len() - last], &p[first..]]
}

/// Each rule's pattern as the other rules of `rules` rewrite it, one rule at a time: every
/// form it passes through (at most `max_len` letters), in order; then each such form, and
/// each pattern, with one rule's rewriting undone (that rule's replacement, wherever it
/// occurs, put back to its pattern), one string for each rule whose replacement occurs.
///
/// Where the candidate answers two hidden rules with one that holds a context (gold
/// `jX → f`, `Of → MH`, answered by `OjR → MH` next to `R → X`, `jX → f`), an
/// intermediate form (`OjX`, then `Of`) holds the hidden rule's pattern; where the hidden
/// rule matches a string the candidate never writes (gold `h → vJ`, `rvJ → Af`, `J → VK`,
/// answered by `rh → Af`, `h → vVK`), undoing a rewrite does (`rvVK` to `rvJ`).
pub(super) fn traces(rules: &[Rule], max_len: usize) -> (Vec<String>, Vec<String>) {
    let mut forms: Vec<String> = Vec::new();
    for (k, rule) in rules.iter().enumerate() {
        let mut s = rule.pattern().to_string();
        for (j, other) in rules.iter().enumerate() {
            if j == k {
                continue;
            }
            let next = other.apply(&s);
            if next == s {
                continue;
            }
            if next.is_empty() || next.chars().count() > max_len {
                break;
            }
            forms.push(next.clone());
            s = next;
        }
    }
    let mut undone: Vec<String> = Vec::new();
    let patterns = rules.iter().map(Rule::pattern);
    for f in patterns.chain(forms.iter().map(String::as_str)) {
        for r in rules {
            if !r.replacement().is_empty() && r.replacement() != r.pattern() {
                let u = f.replace(r.replacement(), r.pattern());
                if u != f && u.chars().count() <= max_len {
                    undone.push(u);
                }
            }
        }
    }
    (forms, undone)
}

/// Letters per piece of a packed pair cover ([`pair_cover`]).
pub(super) const PAIR_PIECE_LEN: usize = 8;

/// Inputs that together hold every pair of letters of the task's alphabet: a de Bruijn
/// sequence of order 2 cut into pieces that overlap by one letter.
pub(super) struct PairCover {
    /// The inputs, in order.
    pub(super) pieces: Vec<String>,
    /// The pieces are short, to be packed several to a probe.
    pub(super) packed: bool,
}

/// The pair cover of the task's alphabet in at most `max` probes:
///
/// * where the oracle accepts probes that hold four pieces of [`PAIR_PIECE_LEN`] letters
///   or more, short pieces to be packed (the full preset's 52 letters with probes of 256:
///   387 pieces in 14 probes). A surprising piece is a short example, where a whole probe
///   of 256 letters, every rule acting on it at once, made the re-solves slow;
/// * else pieces of the longest accepted length (Lite's 17 letters: 10 inputs of 32);
/// * else inputs that hold every letter (the full preset's 52 letters with probes of 32,
///   whose pairs would need 88 inputs: 2).
///
/// A rule of one or two letters (else of one) whose pattern never shows in the visible
/// inputs (it only matches what an earlier rule wrote) is met for sure, where random
/// inputs meet it by chance.
pub(super) fn pair_cover(task: &Task, max: usize) -> PairCover {
    let none = PairCover {
        pieces: Vec::new(),
        packed: false,
    };
    let letters: Vec<char> = task.alphabet.chars().collect();
    let len = task.max_probe_len;
    if max == 0 || letters.is_empty() || len < 2 {
        return none;
    }
    let mut seq: Vec<char> = de_bruijn(letters.len(), 2)
        .into_iter()
        .map(|i| letters[i])
        .collect();
    // Cyclic: the first letter again closes the last pair.
    seq.push(seq[0]);
    let cut = |piece: usize| -> Vec<String> {
        let pieces = (seq.len() - 1).div_ceil(piece - 1);
        (0..pieces)
            .map(|p| {
                let from = p * (piece - 1);
                seq[from..(from + piece).min(seq.len())].iter().collect()
            })
            .collect()
    };
    // Pieces joined by a separator: PAIR_PIECE_LEN + 1 letters each.
    let per_probe = (len + 1) / (PAIR_PIECE_LEN + 1);
    if per_probe >= 4 {
        let pieces = cut(PAIR_PIECE_LEN);
        if pieces.len().div_ceil(per_probe) <= max {
            return PairCover {
                pieces,
                packed: true,
            };
        }
    }
    if (seq.len() - 1).div_ceil(len - 1) <= max {
        return PairCover {
            pieces: cut(len),
            packed: false,
        };
    }
    // Every letter at least, in as few inputs.
    PairCover {
        pieces: letters.chunks(len).map(|c| c.iter().collect()).collect(),
        packed: false,
    }
}

/// A de Bruijn sequence over `k` symbols of order `n` (each of the kⁿ words of length `n`
/// occurs once, cyclically): the concatenation of the Lyndon words whose length divides
/// `n`, in lexicographic order.
pub(super) fn de_bruijn(k: usize, n: usize) -> Vec<usize> {
    fn db(t: usize, p: usize, k: usize, n: usize, a: &mut Vec<usize>, out: &mut Vec<usize>) {
        if t > n {
            if n.is_multiple_of(p) {
                out.extend_from_slice(&a[1..=p]);
            }
        } else {
            a[t] = a[t - p];
            db(t + 1, p, k, n, a, out);
            for j in a[t - p] + 1..k {
                a[t] = j;
                db(t + 1, t, k, n, a, out);
            }
        }
    }
    let mut out = Vec::new();
    if k == 0 || n == 0 {
        return out;
    }
    let mut a = vec![0; n + 1];
    db(1, 1, k, n, &mut a, &mut out);
    out
}

/// Up to `count` new inputs of `len` letters (at most the longest the oracle accepts),
/// each letter drawn from the letters of `candidate`'s rules (half the time, when it has
/// any) or from the whole alphabet; among those, from the letters that make a pair with
/// the letter before it that no known or drawn input holds yet, when there are any. A
/// hidden intermediate of two letters that nothing observable names (`cg → Xl`, then
/// `Xl → NX`) is met only by an input that holds it, so the inputs hold as many new pairs
/// as they can.
pub(super) fn focused_inputs(
    candidate: &Cascade,
    task: &Task,
    known: &HashSet<String>,
    count: usize,
    len: usize,
    rng: &mut SplitMix,
) -> Vec<String> {
    let alphabet: Vec<char> = task.alphabet.chars().collect();
    if alphabet.is_empty() {
        return Vec::new();
    }
    let mut used: Vec<char> = (candidate.rules().iter())
        .flat_map(|r| r.pattern().chars().chain(r.replacement().chars()))
        .filter(|c| alphabet.contains(c))
        .collect();
    used.sort_unstable();
    used.dedup();
    let mut held: HashSet<(char, char)> = known.iter().flat_map(|s| letter_pairs(s)).collect();
    let len = len.clamp(1, task.max_probe_len.max(1));
    let mut out: Vec<String> = Vec::new();
    for _ in 0..count * 8 {
        if out.len() >= count {
            break;
        }
        let mut s = String::new();
        let mut last: Option<char> = None;
        let mut mine: Vec<(char, char)> = Vec::new();
        for _ in 0..len {
            let from = if !used.is_empty() && rng.below(2) == 0 {
                &used
            } else {
                &alphabet
            };
            let new: Vec<char> = last.map_or_else(Vec::new, |last| {
                (from.iter().copied())
                    .filter(|&c| !held.contains(&(last, c)) && !mine.contains(&(last, c)))
                    .collect()
            });
            let pool = if new.is_empty() { from } else { &new };
            let c = pool[rng.below(pool.len() as u64) as usize];
            mine.extend(last.map(|last| (last, c)));
            s.push(c);
            last = Some(c);
        }
        if !known.contains(&s) && !out.contains(&s) {
            held.extend(mine);
            out.push(s);
        }
    }
    out
}

/// Short strings around the candidate's rules where a hidden rule it lacks would act,
/// for packed rounds once the other queries are spent, in this order:
///
/// 1. two patterns that overlap, joined (`bzk` and `kjx` give `bzkjx`: which rewrites
///    first); where one rule writes what begins or ends another's pattern, the first
///    rule's pattern with the rest of the other's beside it (`JJA → GI` and `sG → Fu`
///    give `sJJA`): the two in the other order, which the candidate may have swapped;
/// 2. each pattern with a letter before it and with one after it, from the letters the
///    candidate's patterns hold (`wF → CG` gives `wFq`, where the hidden rules are
///    `wF → rl`, `lq → kY`);
/// 3. each pattern of two letters or more with its first letter, and with its last,
///    changed to one of those letters (`ZaT → BAn` gives `KaT`, where a hidden
///    intermediate `WaT` is also written by `K → W`).
///
/// A candidate that fits every example but folds, swaps or widens hidden rules differs
/// from them on such strings, which random inputs of the same length rarely hold.
pub(super) fn neighbours(candidate: &Cascade, task: &Task, known: &HashSet<String>) -> Vec<String> {
    let rules: Vec<(Vec<char>, Vec<char>)> = (candidate.rules().iter())
        .map(|r| {
            (
                r.pattern().chars().collect(),
                r.replacement().chars().collect(),
            )
        })
        .collect();
    let mut letters: Vec<char> = rules.iter().flat_map(|(a, _)| a.iter().copied()).collect();
    letters.sort_unstable();
    letters.dedup();
    let mut all: Vec<Vec<char>> = Vec::new();
    for (a1, b1) in &rules {
        for (a2, _) in &rules {
            for s in 1..a2.len().min(a1.len()) {
                if a1.ends_with(&a2[..s]) {
                    all.push([a1.as_slice(), &a2[s..]].concat());
                }
            }
            for s in 1..a2.len().min(b1.len() + 1) {
                if b1.ends_with(&a2[..s]) {
                    all.push([a1.as_slice(), &a2[s..]].concat());
                }
                if b1.starts_with(&a2[a2.len() - s..]) {
                    all.push([&a2[..a2.len() - s], a1.as_slice()].concat());
                }
            }
        }
    }
    for (a, _) in &rules {
        for &x in &letters {
            all.push([&[x], a.as_slice()].concat());
            all.push([a.as_slice(), &[x]].concat());
        }
    }
    for (a, _) in rules.iter().filter(|(a, _)| a.len() >= 2) {
        for &x in &letters {
            all.push([&[x], &a[1..]].concat());
            all.push([&a[..a.len() - 1], &[x]].concat());
        }
    }
    let mut seen: HashSet<String> = HashSet::new();
    (all.into_iter())
        .map(|q| q.into_iter().collect::<String>())
        .filter(|q| askable(task, q) && !known.contains(q) && seen.insert(q.clone()))
        .collect()
}

/// Whether the oracle of `task` takes `s` as a query: not empty, within the probe length,
/// every letter in the alphabet.
fn askable(task: &Task, s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= task.max_probe_len
        && s.chars().all(|c| task.alphabet.contains(c))
}

/// The pairs of neighbouring letters of `s`, in order.
pub(super) fn letter_pairs(s: &str) -> impl Iterator<Item = (char, char)> + '_ {
    s.chars().zip(s.chars().skip(1))
}

/// The seed of a task's focused inputs: FNV-1a of its id, so that a run gives the same
/// probes whatever the thread count.
pub(super) fn seed_of(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64: a small deterministic generator.
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is below 2⁻⁵⁰ for small `n`).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
