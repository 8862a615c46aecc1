//! Rules (`replace(a, b)`) and cascades, with exactly Python's `str.replace` semantics.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a rule or cascade could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// `replace("", b)` inserts between every character in Python; no rule may do that here.
    #[error("a rule's pattern (the first argument of replace) must not be empty")]
    EmptyPattern,
    /// The cascade text was not a JSON array of `[a, b]` string pairs.
    #[error("a cascade must be a JSON array of [pattern, replacement] string pairs: {0}")]
    Malformed(String),
}

/// One rewrite rule `replace(pattern, replacement)`: every non-overlapping occurrence of
/// `pattern`, scanning left to right, is replaced by `replacement` (which may be empty).
///
/// Serialised as the two-element JSON array `[pattern, replacement]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "(String, String)")]
pub struct Rule {
    pattern: String,
    replacement: String,
    /// [`letter_mask`] of each side, computed once: relation shortcuts test it per pair.
    masks: (u64, u64),
}

/// A 64-bit set of the letters of `s`, hashed into 64 buckets (so it can only report
/// overlaps that are not there, never miss one).
pub(crate) fn letter_mask(s: &str) -> u64 {
    s.chars().fold(0, |m, c| m | 1 << (c as u32 % 64))
}

/// A rule as the relation classifiers see it: both sides and their [`letter_mask`]s.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleParts<'a> {
    pub pattern: &'a str,
    pub replacement: &'a str,
    pub masks: (u64, u64),
}

impl Rule {
    /// A rule; fails only when `pattern` is empty.
    pub fn new(
        pattern: impl Into<String>,
        replacement: impl Into<String>,
    ) -> Result<Self, RuleError> {
        let pattern = pattern.into();
        if pattern.is_empty() {
            return Err(RuleError::EmptyPattern);
        }
        let replacement = replacement.into();
        let masks = (letter_mask(&pattern), letter_mask(&replacement));
        Ok(Rule {
            pattern,
            replacement,
            masks,
        })
    }

    /// The string the rule looks for (`a` in `replace(a, b)`); never empty.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The string written in its place (`b` in `replace(a, b)`); may be empty.
    pub fn replacement(&self) -> &str {
        &self.replacement
    }

    /// The rule as the relation classifiers see it.
    pub(crate) fn parts(&self) -> RuleParts<'_> {
        RuleParts {
            pattern: &self.pattern,
            replacement: &self.replacement,
            masks: self.masks,
        }
    }

    /// True when the rule can never change a string (`a == b`).
    pub fn is_identity(&self) -> bool {
        self.pattern == self.replacement
    }

    /// Applies the rule to `s`, like Python's `s.replace(a, b)`.
    ///
    /// Matching UTF-8 bytes is the same as matching Unicode scalar values because UTF-8 is
    /// self-synchronising, so `str::replace` (leftmost, non-overlapping, no rescanning of
    /// inserted text) has exactly CPython's semantics.
    pub fn apply(&self, s: &str) -> String {
        s.replace(self.pattern.as_str(), &self.replacement)
    }

    /// Applies the rule to `s` into `out` (cleared first); returns whether `s` changed.
    /// Allocation-free when `out` has capacity: the generator's and solvers' hot path.
    pub fn apply_into(&self, s: &str, out: &mut String) -> bool {
        replace_into(s, &self.pattern, &self.replacement, out) && !self.is_identity()
    }

    /// True when `s` contains the pattern, i.e. the rule would fire on `s`.
    pub fn fires_on(&self, s: &str) -> bool {
        !self.is_identity() && occurs(s.as_bytes(), self.pattern.as_bytes())
    }
}

/// Patterns up to this many bytes are searched naively: building the general substring
/// searcher costs more than a plain scan of the benchmark's short strings.
const NAIVE_MAX_PATTERN: usize = 8;

/// The first position at or after `from` where `hay` holds `byte`. Long haystacks are
/// searched with SIMD (memchr); for short ones its set-up costs more than a plain loop.
pub(crate) fn find_byte(hay: &[u8], from: usize, byte: u8) -> Option<usize> {
    let rest = &hay[from..];
    let offset = if rest.len() < 32 {
        rest.iter().position(|&b| b == byte)
    } else {
        memchr::memchr(byte, rest)
    };
    offset.map(|o| from + o)
}

/// True when `pattern` (never empty) occurs in `hay`: the search [`replace_pieces`] uses,
/// stopped at the first match (cheaper than a general substring searcher's set-up on the
/// benchmark's short strings). A match of UTF-8 bytes is a match of characters.
pub(crate) fn occurs(hay: &[u8], pattern: &[u8]) -> bool {
    if naive(pattern) {
        naive_find(hay, pattern, 0).is_some()
    } else {
        memchr::memmem::find(hay, pattern).is_some()
    }
}

/// Whether `pat` is searched by [`naive_find`] (1 to [`NAIVE_MAX_PATTERN`] bytes), not by
/// memchr's substring searcher.
pub(crate) fn naive(pat: &[u8]) -> bool {
    (1..=NAIVE_MAX_PATTERN).contains(&pat.len())
}

/// The first match of `pat` (1 to [`NAIVE_MAX_PATTERN`] bytes) in `hay` at or after
/// `from`: candidate starts are found by [`find_byte`], then checked byte by byte (a call
/// to memcmp costs more than these few comparisons).
#[inline]
fn naive_find(hay: &[u8], pat: &[u8], from: usize) -> Option<usize> {
    let (&first, tail) = pat.split_first().expect("patterns are never empty");
    let mut i = from;
    while let Some(at) = find_byte(hay, i, first) {
        if at + pat.len() > hay.len() {
            return None;
        }
        if tail.iter().zip(&hay[at + 1..]).all(|(p, h)| p == h) {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// `s.replace(pattern, replacement)` into `out` (cleared first), Python's semantics
/// (leftmost, non-overlapping matches, inserted text never rescanned); returns whether the
/// pattern occurred. `pattern` must not be empty.
pub(crate) fn replace_into(s: &str, pattern: &str, replacement: &str, out: &mut String) -> bool {
    out.clear();
    // A match of valid UTF-8 `pattern` starts and ends on character boundaries (UTF-8 is
    // self-synchronising), so the kept stretches are whole characters.
    replace_pieces(s.as_bytes(), pattern.as_bytes(), |piece| match piece {
        Some((from, to)) => out.push_str(&s[from..to]),
        None => out.push_str(replacement),
    })
}

/// The result of replacing `pat` in `hay` as Python finds the matches (leftmost,
/// non-overlapping), in pieces: `piece(Some((from, to)))` for each stretch of `hay` kept,
/// `piece(None)` for each match replaced, in order, the final stretch included. Returns
/// whether `pat` (never empty) occurred.
#[inline]
pub(crate) fn replace_pieces(
    hay: &[u8],
    pat: &[u8],
    mut piece: impl FnMut(Option<(usize, usize)>),
) -> bool {
    let mut last = 0;
    let mut changed = false;
    if hay.len() <= 64 && naive(pat) {
        let mut starts = leftmost_disjoint(occurrences(hay, hay.len(), pat), pat.len());
        while starts != 0 {
            let at = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            piece(Some((last, at)));
            piece(None);
            last = at + pat.len();
            changed = true;
        }
    } else if naive(pat) {
        let mut i = 0;
        while let Some(at) = naive_find(hay, pat, i) {
            piece(Some((last, at)));
            piece(None);
            i = at + pat.len();
            last = i;
            changed = true;
        }
    } else {
        for start in memchr::memmem::find_iter(hay, pat) {
            piece(Some((last, start)));
            piece(None);
            last = start + pat.len();
            changed = true;
        }
    }
    piece(Some((last, hay.len())));
    changed
}

/// Every start of `pat` (1 to 64 bytes) in `bytes[..len]` (`len` at most 64), overlapping
/// ones included, as bits: the positions of each of its bytes, shifted into line and
/// intersected, with no branch on the data.
pub(crate) fn occurrences(bytes: &[u8], len: usize, pat: &[u8]) -> u64 {
    debug_assert!((1..=64).contains(&pat.len()));
    (pat.iter().enumerate()).fold(u64::MAX, |starts, (j, &b)| {
        starts & byte_positions(bytes, len, b) >> j
    })
}

/// The starts Python's `replace` replaces, out of every start `starts` of a pattern
/// `pattern_len` bytes long: leftmost first, each skipping the starts it overlaps.
pub(crate) fn leftmost_disjoint(mut starts: u64, pattern_len: usize) -> u64 {
    let mut kept = 0;
    while starts != 0 {
        let at = starts.trailing_zeros() as usize;
        kept |= 1 << at;
        starts &= !low_bits(at + pattern_len);
    }
    kept
}

/// The set of positions `p < len` with `bytes[p] == byte`, as bits (`len` at most 64),
/// with no branch on the data. Whole chunks are read as far as `bytes` goes (slack past
/// `len` costs nothing: its bits are dropped); a last part chunk is padded.
///
/// On x86-64, sixteen bytes at a time with SSE2 (part of the architecture's baseline, so
/// always there): one compare and one mask extraction per chunk. (Measured: a lite run
/// takes ~7% fewer instructions and ~3% less time than with the word-at-a-time version,
/// which other architectures use.)
#[allow(unsafe_code)]
pub(crate) fn byte_positions(bytes: &[u8], len: usize, byte: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor has it, and
        // every x86-64 target compiles with it enabled.
        unsafe { byte_positions_sse2(bytes, len, byte) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        byte_positions_swar(bytes, len, byte)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn byte_positions_sse2(bytes: &[u8], len: usize, byte: u8) -> u64 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set1_epi8, _mm_set_epi64x};
    debug_assert!(len <= 64 && len <= bytes.len());
    let needle = _mm_set1_epi8(byte as i8);
    let mut set = 0;
    for at in (0..len).step_by(16) {
        let chunk = match bytes.get(at..at + 16) {
            Some(chunk) => u128::from_le_bytes(chunk.try_into().expect("16 bytes")),
            // Bytes past the end read as zero: their bits are dropped below.
            None => (bytes[at..].iter().rev()).fold(0, |chunk, &b| chunk << 8 | b as u128),
        };
        let chunk = _mm_set_epi64x((chunk >> 64) as i64, chunk as i64);
        let equal = _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, needle)) as u16;
        set |= (equal as u64) << at;
    }
    set & low_bits(len)
}

/// [`byte_positions`] elsewhere: eight bytes at a time in a 64-bit word.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
fn byte_positions_swar(bytes: &[u8], len: usize, byte: u8) -> u64 {
    debug_assert!(len <= 64 && len <= bytes.len());
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    // The bits of a word's zero bytes, gathered: byte k's top bit lands on bit k.
    let gathered = |word: u64| {
        let x = word ^ (byte as u64).wrapping_mul(ONES);
        let zero = !((x & LOW7).wrapping_add(LOW7) | x) & !LOW7;
        (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
    };
    let mut set = 0;
    for at in (0..len).step_by(8) {
        let word = match bytes.get(at..at + 8) {
            Some(word) => u64::from_le_bytes(word.try_into().expect("8 bytes")),
            // Bytes past the end read as zero: their bits are dropped below.
            None => (bytes[at..].iter().rev()).fold(0, |word, &b| word << 8 | b as u64),
        };
        set |= gathered(word) << at;
    }
    set & low_bits(len)
}

/// The set of the `n` lowest bit positions (all 64 from `n = 64` on).
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

impl TryFrom<(String, String)> for Rule {
    type Error = RuleError;
    fn try_from((a, b): (String, String)) -> Result<Self, Self::Error> {
        Rule::new(a, b)
    }
}

impl From<Rule> for (String, String) {
    fn from(r: Rule) -> Self {
        (r.pattern, r.replacement)
    }
}

impl Serialize for Rule {
    /// As the pair `(pattern, replacement)`, borrowed (`serde(into)` would clone both).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.pattern.as_str(), self.replacement.as_str()).serialize(s)
    }
}

impl fmt::Display for Rule {
    /// Python spelling, as the released prompts and files use: `replace("a", "b")`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replace({}, {})",
            crate::pylit::repr_double(&self.pattern),
            crate::pylit::repr_double(&self.replacement)
        )
    }
}

/// An ordered list of rules applied one after another: `o = p_m(…p_1(i))`.
///
/// Serialised as a JSON array of `[pattern, replacement]` pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Cascade {
    rules: Vec<Rule>,
}

impl Cascade {
    /// A cascade of these rules, in order.
    pub fn new(rules: Vec<Rule>) -> Self {
        Cascade { rules }
    }

    /// A cascade of `(pattern, replacement)` pairs, in order; fails on an empty pattern.
    ///
    /// ```
    /// let c = pbebench::Cascade::from_pairs(&[("ab", "b"), ("b", "cc")]).unwrap();
    /// assert_eq!(c.apply("aab"), "acc");
    /// ```
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<Self, RuleError> {
        pairs.iter().map(|&(a, b)| Rule::new(a, b)).collect()
    }

    /// The empty cascade, which maps every string to itself.
    pub fn identity() -> Self {
        Cascade::default()
    }

    /// Parses the CLI's form: a JSON array of `[a, b]` string pairs.
    pub fn from_json(text: &str) -> Result<Self, RuleError> {
        serde_json::from_str(text).map_err(|e| RuleError::Malformed(e.to_string()))
    }

    /// The JSON form `[["a","b"],…]`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a cascade always serialises")
    }

    /// The rules in application order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// True for the identity (empty) cascade.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Applies every rule in order to `s`. For trusted cascades (a gold that a dataset's
    /// check has applied within its limits, the generator's): an untrusted one may grow
    /// exponentially (20 × `replace("a", "aaa")`); apply it with [`Cascade::apply_to_word`]
    /// or [`Cascade::apply_bounded`].
    pub fn apply(&self, s: &str) -> String {
        let mut cur = s.to_owned();
        let mut next = String::with_capacity(s.len() * 2);
        for rule in &self.rules {
            if rule.apply_into(&cur, &mut next) {
                std::mem::swap(&mut cur, &mut next);
            }
        }
        cur
    }

    /// Applies the cascade to every input.
    pub fn apply_all<S: AsRef<str>>(&self, inputs: &[S]) -> Vec<String> {
        inputs.iter().map(|s| self.apply(s.as_ref())).collect()
    }

    /// True when the cascade maps every input to its output.
    pub fn reproduces<S: AsRef<str>, T: AsRef<str>>(&self, inputs: &[S], outputs: &[T]) -> bool {
        inputs.len() == outputs.len()
            && inputs
                .iter()
                .zip(outputs)
                .all(|(i, o)| self.apply(i.as_ref()) == o.as_ref())
    }

    /// [`Cascade::apply`] for untrusted cascades: fails as soon as the input or a string on
    /// the way (after some rule) would be longer than `max_len` characters, so that an
    /// answer whose outputs grow exponentially (20 × `replace("a", "aaa")`) costs at most
    /// about `max_len` characters of memory and `max_len` × rules steps. Each rule's result
    /// length is counted from its matches before the result is built.
    pub fn apply_bounded(&self, s: &str, max_len: usize) -> Result<String, TooLong> {
        let mut len = s.chars().count();
        if len > max_len {
            return Err(TooLong {
                rule: None,
                max_len,
            });
        }
        let (mut cur, mut next) = (s.to_owned(), String::new());
        for (k, rule) in self.rules.iter().enumerate() {
            let matches = cur.matches(rule.pattern()).count();
            if matches == 0 || rule.is_identity() {
                continue;
            }
            let sides = (
                rule.pattern().chars().count(),
                rule.replacement().chars().count(),
            );
            len = (len - matches * sides.0).saturating_add(matches.saturating_mul(sides.1));
            if len > max_len {
                return Err(TooLong {
                    rule: Some(k),
                    max_len,
                });
            }
            rule.apply_into(&cur, &mut next);
            std::mem::swap(&mut cur, &mut next);
        }
        Ok(cur)
    }
}

impl Cascade {
    /// [`Cascade::apply`] of a cascade a user gives to a word (`pbebench apply`, Python's
    /// `apply`), within the bound every other path puts on untrusted cascades
    /// ([`crate::equiv::length_bound_of`] the word's length: 16 times it, and at least 256
    /// characters, as `derive` and scoring use): a cascade whose strings grow past it
    /// fails with the rule at fault instead of exhausting memory.
    ///
    /// ```
    /// let blowup = pbebench::Cascade::from_pairs(&[("a", "aaa"); 20]).unwrap();
    /// let e = blowup.apply_to_word("a").unwrap_err();
    /// assert_eq!(e.to_string(), "rule 6 makes a string longer than 256 characters");
    /// assert_eq!(blowup.apply_to_word("b").unwrap(), "b");
    /// ```
    pub fn apply_to_word(&self, word: &str) -> Result<String, TooLong> {
        let bound = crate::equiv::length_bound_of(word.chars().count());
        self.apply_bounded(word, bound)
    }
}

/// Why [`Cascade::apply_bounded`] stopped: a string longer than its bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} longer than {max_len} characters", match rule {
    Some(k) => format!("rule {} makes a string", k + 1),
    None => "the input is".to_owned(),
})]
pub struct TooLong {
    /// The rule (0-based) whose result was too long; `None` when the input was.
    pub rule: Option<usize>,
    /// The bound, in characters.
    pub max_len: usize,
}

impl From<Vec<Rule>> for Cascade {
    fn from(rules: Vec<Rule>) -> Self {
        Cascade::new(rules)
    }
}

impl FromIterator<Rule> for Cascade {
    fn from_iter<I: IntoIterator<Item = Rule>>(iter: I) -> Self {
        Cascade::new(iter.into_iter().collect())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn r(a: &str, b: &str) -> Rule {
        Rule::new(a, b).unwrap()
    }

    #[test]
    fn replace_is_left_to_right_and_non_overlapping() {
        assert_eq!(r("aa", "b").apply("aaa"), "ba");
        assert_eq!(r("aa", "b").apply("aaaa"), "bb");
        assert_eq!(r("a", "aa").apply("aba"), "aabaa");
        assert_eq!(r("ab", "").apply("aabb"), "ab");
        assert_eq!(r("é", "e").apply("café"), "cafe");
    }

    #[test]
    fn replace_into_and_occurs_are_str_replace_and_contains() {
        let hays = [
            "",
            "a",
            "aaaa",
            "abababab",
            "xabcabcx",
            "café café",
            "ééé",
            "aabbaabbaabb",
        ];
        let pats = [
            "a",
            "aa",
            "ab",
            "aba",
            "é",
            "éé",
            "abcabcab",
            "abababab",
            "aabbaabbaabb",
        ];
        let mut out = String::new();
        for hay in hays {
            for pat in pats {
                assert_eq!(occurs(hay.as_bytes(), pat.as_bytes()), hay.contains(pat));
                for rep in ["", "x", "yy", pat] {
                    let changed = replace_into(hay, pat, rep, &mut out);
                    assert_eq!(out, hay.replace(pat, rep), "{hay:?} {pat:?} {rep:?}");
                    assert_eq!(changed, hay.contains(pat));
                }
            }
        }
    }

    proptest::proptest! {
        /// The positions of a byte and the starts of a pattern, found a chunk at a time,
        /// are those found byte by byte, whatever the slack after the string holds (here
        /// the same symbols, so that it could match).
        #[test]
        fn positions_and_starts_are_found_byte_by_byte(
            hay in symbols(0..65),
            slack in symbols(0..24),
            pat in symbols(1..6),
        ) {
            let len = hay.len();
            let bytes = [hay.as_slice(), &slack].concat();
            let set = |found: &dyn Fn(usize) -> bool| {
                (0..len).filter(|&p| found(p)).fold(0u64, |set, p| set | 1 << p)
            };
            for byte in [0, 1, 2, 255] {
                let positions = set(&|p| hay[p] == byte);
                proptest::prop_assert_eq!(byte_positions(&bytes, len, byte), positions);
                proptest::prop_assert_eq!(byte_positions_swar(&bytes, len, byte), positions);
            }
            proptest::prop_assert_eq!(
                occurrences(&bytes, len, &pat),
                set(&|p| hay[p..].starts_with(&pat))
            );
        }
    }

    /// Strings over four symbols (255 among them), so that matches are frequent.
    pub(crate) fn symbols(
        len: std::ops::Range<usize>,
    ) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        proptest::collection::vec(proptest::sample::select(vec![0u8, 1, 2, 255]), len)
    }

    #[test]
    fn apply_into_reports_change() {
        let mut out = String::new();
        assert!(r("a", "b").apply_into("xa", &mut out));
        assert_eq!(out, "xb");
        assert!(!r("q", "b").apply_into("xa", &mut out));
        assert_eq!(out, "xa");
        assert!(!r("a", "a").apply_into("xa", &mut out));
    }

    #[test]
    fn empty_pattern_is_rejected() {
        assert_eq!(Rule::new("", "x"), Err(RuleError::EmptyPattern));
        let err = Cascade::from_json(r#"[["", "x"]]"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("must not be empty"), "{err}");
    }

    #[test]
    fn cascade_json_round_trip_and_order() {
        let c = Cascade::from_json(r#"[["ab","c"],["c",""]]"#).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c.apply("xabc"), "x");
        assert_eq!(c.to_json(), r#"[["ab","c"],["c",""]]"#);
        let malformed = |text: &str| match Cascade::from_json(text) {
            Err(RuleError::Malformed(why)) => why,
            other => panic!("{text}: {other:?}"),
        };
        assert!(malformed(r#"[["ab"]]"#).contains("length 1"));
        assert!(malformed(r#"{"a":1}"#).contains("expected a sequence"));
    }

    #[test]
    fn display_is_python_spelling() {
        assert_eq!(r("z", "xwy").to_string(), r#"replace("z", "xwy")"#);
    }
}
