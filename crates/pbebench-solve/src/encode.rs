//! The solvers' internal form: letters as one-byte symbols, rules over symbol strings,
//! and `replace` on byte strings (same semantics as the core, which matches characters).

use crate::problem::Problem;
use pbebench::{Cascade, Rule};
use std::hash::{BuildHasherDefault, Hasher};

/// A string of symbols.
pub(crate) type Sym = Vec<u8>;

/// A rule over symbols: `replace(a, b)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SymRule {
    pub a: Sym,
    pub b: Sym,
}

/// The examples of a problem as symbol strings, deduplicated, with the letters rules may use.
pub(crate) struct Encoded {
    /// Symbol id -> letter.
    pub letters: Vec<char>,
    /// Symbol id -> may rules use it.
    pub allowed: Vec<bool>,
    /// Distinct examples: inputs.
    pub inputs: Vec<Sym>,
    /// Distinct examples: outputs.
    pub targets: Vec<Sym>,
    pub max_rules: usize,
    pub max_len: usize,
}

#[cfg(test)]
impl Encoded {
    /// The rule `a → b` in this problem's letter codes (tests; every letter must be one of
    /// the problem's).
    pub(crate) fn sym_rule(&self, a: &str, b: &str) -> SymRule {
        let sym = |s: &str| -> Sym {
            s.chars()
                .map(|c| self.letters.binary_search(&c).unwrap() as u8)
                .collect()
        };
        SymRule {
            a: sym(a),
            b: sym(b),
        }
    }
}

impl Encoded {
    /// Encodes `problem` (which must have no contradiction).
    pub fn new(problem: &Problem) -> Self {
        let mut letters: Vec<char> = problem.alphabet().to_vec();
        letters.extend(
            problem
                .inputs()
                .iter()
                .chain(problem.outputs())
                .flat_map(|s| s.chars()),
        );
        letters.sort_unstable();
        letters.dedup();
        let allowed = letters
            .iter()
            .map(|c| problem.alphabet().binary_search(c).is_ok())
            .collect();
        let enc = |s: &str| -> Sym {
            s.chars()
                .map(|c| letters.binary_search(&c).expect("every letter is indexed") as u8)
                .collect()
        };
        let mut pairs: Vec<(Sym, Sym)> = problem
            .inputs()
            .iter()
            .zip(problem.outputs())
            .map(|(i, o)| (enc(i), enc(o)))
            .collect();
        pairs.sort();
        pairs.dedup();
        let (inputs, targets) = pairs.into_iter().unzip();
        Encoded {
            allowed,
            inputs,
            targets,
            max_rules: problem.max_rules(),
            max_len: problem.max_rule_len(),
            letters,
        }
    }

    /// The symbol string as text.
    pub fn decode(&self, s: &[u8]) -> String {
        s.iter().map(|&c| self.letters[c as usize]).collect()
    }

    /// A cascade of core rules from symbol rules.
    pub fn cascade(&self, rules: &[SymRule]) -> Cascade {
        rules
            .iter()
            .map(|r| {
                Rule::new(self.decode(&r.a), self.decode(&r.b)).expect("patterns are non-empty")
            })
            .collect()
    }

    /// The symbol rules of `cascade`; `None` when it uses a letter the examples and the
    /// alphabet lack.
    pub fn encode_rules(&self, cascade: &Cascade) -> Option<Vec<SymRule>> {
        cascade
            .rules()
            .iter()
            .map(|r| self.encode_rule(r))
            .collect()
    }

    /// The symbol rule of `rule`; `None` when it uses a letter the examples and the
    /// alphabet lack.
    pub fn encode_rule(&self, rule: &Rule) -> Option<SymRule> {
        let sym = |s: &str| -> Option<Sym> {
            s.chars()
                .map(|c| self.letters.binary_search(&c).ok().map(|i| i as u8))
                .collect()
        };
        Some(SymRule {
            a: sym(rule.pattern())?,
            b: sym(rule.replacement())?,
        })
    }

    /// True when a rule may use every symbol of `s`.
    pub fn all_allowed(&self, s: &[u8]) -> bool {
        s.iter().all(|&c| self.allowed[c as usize])
    }
}

/// The first occurrence of `needle` (never empty) in `hay`. It jumps from one occurrence
/// of the needle's first symbol to the next and compares the rest in place: the solver
/// asks this of every example for every candidate, mostly to hear "nowhere", and the
/// slices are too short for a `memcmp` call to pay (benches/solve/ends.md, section 14).
#[inline]
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (first, rest) = (needle[0], &needle[1..]);
    let last = hay.len().checked_sub(needle.len())?;
    let mut i = 0;
    while i <= last {
        let j = i + hay[i..=last].iter().position(|&c| c == first)?;
        if hay[j + 1..j + needle.len()]
            .iter()
            .zip(rest)
            .all(|(x, y)| x == y)
        {
            return Some(j);
        }
        i = j + 1;
    }
    None
}

/// `s.replace(a, b)` into `out` (cleared first); returns whether anything matched. The
/// stretches between matches are copied whole: most calls match nothing, and the copy is
/// then one `memcpy` (byte-by-byte pushes were a fifth of a search's time).
#[inline]
pub(crate) fn apply_into(s: &[u8], a: &[u8], b: &[u8], out: &mut Sym) -> bool {
    out.clear();
    // `copied`: the end of what `out` holds of `s`, which is where the next match may start.
    let mut copied = 0;
    while let Some(p) = find(&s[copied..], a) {
        out.extend_from_slice(&s[copied..copied + p]);
        out.extend_from_slice(b);
        copied += p + a.len();
    }
    out.extend_from_slice(&s[copied..]);
    copied > 0
}

/// A small fast hasher (FxHash) for symbol strings and state vectors.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    /// Writes the length first, so that strings differing only in trailing zero
    /// symbols (symbol 0 is a letter) hash differently.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.write_u64(bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15);
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(SEED);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `HashMap` with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// `HashSet` with [`FxHasher`].
pub(crate) type FxHashSet<K> = std::collections::HashSet<K, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_replace_matches_python() {
        let mut out = Vec::new();
        assert!(apply_into(b"aaa", b"aa", b"b", &mut out));
        assert_eq!(out, b"ba");
        assert!(apply_into(b"aba", b"a", b"aa", &mut out));
        assert_eq!(out, b"aabaa");
        assert!(!apply_into(b"xyz", b"q", b"b", &mut out));
        assert_eq!(out, b"xyz");
        assert_eq!(find(b"xyzyz", b"yz"), Some(1));
        assert_eq!(find(b"xy", b"xyz"), None);
    }

    /// Against `str::replace` (CPython's `str.replace` semantics: left to right, without
    /// overlaps), on strings over three letters, where matches crowd and overlap.
    #[test]
    fn byte_replace_matches_str_replace_on_random_strings() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut word = |lo: usize, hi: usize| -> Vec<u8> {
            let len = rng.random_range(lo..=hi);
            (0..len).map(|_| rng.random_range(0..3u8)).collect()
        };
        let text = |v: &[u8]| v.iter().map(|&c| char::from(b'a' + c)).collect::<String>();
        let mut out = Vec::new();
        for _ in 0..20_000 {
            let (s, a, b) = (word(0, 12), word(1, 3), word(0, 3));
            let want = text(&s).replace(&text(&a), &text(&b));
            let changed = apply_into(&s, &a, &b, &mut out);
            assert_eq!(text(&out), want, "{:?}.replace({:?}, {:?})", s, a, b);
            assert_eq!(changed, text(&s).contains(&text(&a)));
            assert_eq!(find(&s, &a), text(&s).find(&text(&a)));
        }
    }

    #[test]
    fn hashes_tell_strings_of_symbol_zero_apart() {
        use std::hash::Hasher;
        let hash = |parts: &[&[u8]]| {
            let mut h = FxHasher::default();
            for p in parts {
                h.write(p);
                h.write_u8(0xff);
            }
            h.finish()
        };
        assert_ne!(hash(&[&[], &[0]]), hash(&[&[0], &[]]));
        assert_ne!(hash(&[&[0]]), hash(&[&[0, 0]]));
        assert_ne!(hash(&[&[]]), hash(&[&[0]]));
    }
}
