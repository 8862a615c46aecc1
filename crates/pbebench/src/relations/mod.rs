//! Rule interactions (feeding, bleeding, counter-feeding, counter-bleeding) and the
//! 16 relation categories of PBEBench (SPEC §3, the paper's Appendix C and Algorithm 2).
//!
//! Two classifiers decide whether one rule feeds or bleeds another:
//! [`RelationMode::Exact`] (sound and complete over all strings; the default) and
//! [`RelationMode::Paper`] (the published formula, which reproduces the released labels).

pub mod exact;
pub mod paper;

use crate::rule::{Cascade, Rule};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

/// Which feeding/bleeding classifier to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RelationMode {
    /// Decides the definitions exactly, for strings of any length.
    #[default]
    Exact,
    /// The paper's formula as the authors' released detector computes it.
    Paper,
}

impl RelationMode {
    /// The lowercase name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            RelationMode::Exact => "exact",
            RelationMode::Paper => "paper",
        }
    }
}

impl fmt::Display for RelationMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RelationMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "exact" => Ok(RelationMode::Exact),
            "paper" => Ok(RelationMode::Paper),
            other => Err(format!(
                "unknown relations mode '{other}' (expected exact or paper)"
            )),
        }
    }
}

/// One of the two relations a rule can have to a later (or earlier) one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// The first rule can create an occurrence of the second's pattern.
    Feeds,
    /// The first rule can destroy an occurrence of the second's pattern.
    Bleeds,
}

/// Whether `first` feeds and whether it bleeds `second`, as the pair `(feeds, bleeds)`:
/// both decided at once (one letter test, one memo lookup), with the shortcuts
/// [`relation`] describes.
pub fn interaction(mode: RelationMode, first: &Rule, second: &Rule) -> (bool, bool) {
    let want = Wanted {
        feeds: true,
        bleeds: true,
    };
    pair_with_memo(mode, want, first, second)
}

/// [`pair`] with this thread's memo.
fn pair_with_memo(mode: RelationMode, want: Wanted, first: &Rule, second: &Rule) -> (bool, bool) {
    MEMO.with(|memo| {
        pair(
            &mut memo.borrow_mut(),
            mode,
            want,
            first.parts(),
            second.parts(),
        )
    })
}

/// Whether `first` has relation `kind` to `second`.
///
/// Relations depend only on `first`'s two sides and `second`'s pattern. Two shortcuts make
/// this cheap enough to call for every pair of every generated cascade:
/// - a rule can only create an occurrence of `sj` by writing one of its letters (unless it
///   deletes), and only destroy one by rewriting one of its letters, so pairs that share
///   no letter are settled by a bit test (sound for both classifiers: every case of the
///   paper's formula needs such an overlap too);
/// - other results of the exact classifier are memoised per thread on the *shape* of
///   `(si, ti, sj)`; the paper's formula on a few letters costs less than a memo lookup,
///   so it is always computed.
pub fn relation(mode: RelationMode, kind: Relation, first: &Rule, second: &Rule) -> bool {
    let want = Wanted {
        feeds: kind == Relation::Feeds,
        bleeds: kind == Relation::Bleeds,
    };
    let (feeds, bleeds) = pair_with_memo(mode, want, first, second);
    match kind {
        Relation::Feeds => feeds,
        Relation::Bleeds => bleeds,
    }
}

/// A rule as the classifiers see it: both sides and their [`letter_mask`]s.
///
/// [`letter_mask`]: crate::rule::letter_mask
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleParts<'a> {
    pub pattern: &'a str,
    pub replacement: &'a str,
    pub masks: (u64, u64),
}

/// Which of the two relations of a pair a caller still needs.
#[derive(Clone, Copy)]
pub(crate) struct Wanted {
    pub feeds: bool,
    pub bleeds: bool,
}

/// Shape (with the mode in the top bit) → `(feeds, bleeds)`.
pub(crate) type Memo = FxHashMap<u64, (bool, bool)>;

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
    /// Seconds this thread spent deciding relations the memo did not hold.
    static MISS_SECONDS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Seconds the current thread has spent deciding relations the memo did not hold. Misses
/// are rare but can be slow (the exact classifier searches), so callers that time
/// classification on a sample of calls add these exactly.
pub(crate) fn memo_miss_seconds() -> f64 {
    MISS_SECONDS.with(|s| s.get())
}

/// `decide()`, its time added to [`memo_miss_seconds`].
fn timed_miss<T>(decide: impl FnOnce() -> T) -> T {
    let clock = std::time::Instant::now();
    let value = decide();
    MISS_SECONDS.with(|s| s.set(s.get() + clock.elapsed().as_secs_f64()));
    value
}

/// `(feeds, bleeds)` of `first` on `second`, exact for the relations in `want` (the others
/// may read false). Pairs sharing no letter are settled by the masks. Others are decided
/// by the paper's formula directly, or, for the exact classifier, through the memo, which
/// stores both relations of a shape (computed together on a miss: there are only a few
/// thousand shapes).
fn pair(
    memo: &mut Memo,
    mode: RelationMode,
    want: Wanted,
    first: RuleParts,
    second: RuleParts,
) -> (bool, bool) {
    let (si, ti, sj) = (first.pattern, first.replacement, second.pattern);
    let ((mask_si, mask_ti), (mask_sj, _)) = (first.masks, second.masks);
    let want = Wanted {
        feeds: want.feeds && (ti.is_empty() || mask_ti & mask_sj != 0),
        bleeds: want.bleeds && mask_si & mask_sj != 0,
    };
    if !want.feeds && !want.bleeds {
        return (false, false);
    }
    if mode == RelationMode::Paper {
        // The formula on a few letters costs less than finding its shape in the memo.
        return (
            want.feeds && paper::feeds(si, ti, sj),
            want.bleeds && paper::bleeds(si, ti, sj),
        );
    }
    let Some(shape) = shape_key(si, ti, sj) else {
        return wanted_uncached(mode, want, si, ti, sj);
    };
    by_shape(memo, mode, shape, || interaction_uncached(mode, si, ti, sj))
}

/// Both relations of a pair of the given shape ([`shape_key`]): from the memo, or
/// `decide()` (timed into [`memo_miss_seconds`]) when the memo does not hold the shape.
#[inline]
pub(crate) fn by_shape(
    memo: &mut Memo,
    mode: RelationMode,
    shape: u64,
    decide: impl FnOnce() -> (bool, bool),
) -> (bool, bool) {
    let key = shape | ((mode == RelationMode::Paper) as u64) << 63;
    if let Some(&hit) = memo.get(&key) {
        return hit;
    }
    let value = timed_miss(decide);
    if memo.len() >= MEMO_CAPACITY {
        memo.clear();
    }
    memo.insert(key, value);
    value
}

/// Runs `f` with this thread's memo of relations by shape.
pub(crate) fn with_memo<T>(f: impl FnOnce(&mut Memo) -> T) -> T {
    MEMO.with(|memo| f(&mut memo.borrow_mut()))
}

/// `(feeds, bleeds)` of `si → ti` on `sj` for the relations in `want` (the others read
/// false), decided without the memo.
pub(crate) fn wanted_uncached(
    mode: RelationMode,
    want: Wanted,
    si: &str,
    ti: &str,
    sj: &str,
) -> (bool, bool) {
    let decide = |wanted, kind| wanted && relation_uncached(mode, kind, si, ti, sj);
    timed_miss(|| {
        (
            decide(want.feeds, Relation::Feeds),
            decide(want.bleeds, Relation::Bleeds),
        )
    })
}

/// The category of a cascade (Algorithm 2) without building its matrices: each relation is
/// decided only while its flag is still unset, so long cascades, which set all four flags
/// early, cost far fewer classifications. Equal to `Relations::of(…).category()`.
pub fn category_of(rules: &[Rule], mode: RelationMode) -> Category {
    with_memo(|memo| {
        category_by(
            rules.len(),
            |i| rules[i].parts().masks,
            |i, j, want| pair(memo, mode, want, rules[i].parts(), rules[j].parts()),
            |_| false,
        )
    })
    .expect("a search that never gives up ends with a category")
}

/// [`category_of`] for `n` rules known by the letter masks of their two sides (`masks(i)`,
/// see [`letter_mask`](crate::rule::letter_mask)): `decide(i, j, want)` gives `(feeds,
/// bleeds)` of rule i on rule j, exact for the relations in `want` (see [`Search`]).
///
/// `give_up(set)` is asked whenever a flag is found, with the flags known so far as
/// category bits; when it answers true the search stops and returns None (the generator
/// gives up once every category with those flags has a full quota).
pub(crate) fn category_by(
    n: usize,
    masks: impl Fn(usize) -> (u64, u64),
    mut decide: impl FnMut(usize, usize, Wanted) -> (bool, bool),
    give_up: impl Fn(Category) -> bool,
) -> Option<Category> {
    let mut search = Search::default();
    for _ in 0..n {
        if search.push(&masks, &mut decide, &give_up) {
            return None;
        }
    }
    Some(search.category())
}

/// The category of a cascade that grows one rule at a time: after each [`push`](Self::push)
/// it is the category of the rules pushed so far. As the four flags only ever get set
/// when rules are added, a search can give up as soon as the flags found make the final
/// category certain to be an unwanted one, before the rest of the cascade exists.
///
/// Each relation is decided only while its flag is still unset, so long cascades, which
/// set all four flags early, cost far fewer classifications; and only when the letter
/// masks allow it (a rule can only feed a pattern it shares a letter with, unless it
/// deletes, and only bleed one it shares a letter with).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Search {
    /// The rules pushed so far.
    len: usize,
    /// The flags found so far, as category bits.
    flags: u8,
}

impl Search {
    /// Adds rule `n`, the next one (`n` rules were pushed before): decides its relations
    /// with every earlier rule i, both ways, for the flags still unset. `masks` and
    /// `decide` are as for [`category_by`], over the rules pushed so far and this one.
    /// True when the search gives up: `give_up(flags)` answered true when a flag was found.
    pub(crate) fn push(
        &mut self,
        masks: impl Fn(usize) -> (u64, u64),
        mut decide: impl FnMut(usize, usize, Wanted) -> (bool, bool),
        give_up: impl Fn(Category) -> bool,
    ) -> bool {
        const ALL: u8 = 0b1111;
        let n = self.len;
        self.len += 1;
        let (mask_sn, mask_tn) = masks(n);
        // Decides `first` on `second` for the flags (category bits) still unset among
        // `feeding` and `bleeding`, where the masks allow them. True once the search gives
        // up.
        let mut visit =
            |flags: &mut u8, first, second, (feeding, bleeding), (may_feed, may_bleed)| {
                let want = Wanted {
                    feeds: *flags & feeding == 0 && may_feed,
                    bleeds: *flags & bleeding == 0 && may_bleed,
                };
                if !want.feeds && !want.bleeds {
                    return false;
                }
                let (feeds, bleeds) = decide(first, second, want);
                let found = if want.feeds && feeds { feeding } else { 0 }
                    | if want.bleeds && bleeds { bleeding } else { 0 };
                *flags |= found;
                found != 0 && give_up(Category(*flags))
            };
        // The earlier rules, 64 at a time: first the sets of those the masks allow a
        // relation with (a cheap loop with no calls), then the pairs in those sets.
        for base in (0..n).step_by(64) {
            let (mut fed, mut shared, mut fed_back) = (0u64, 0u64, 0u64);
            for i in base..n.min(base + 64) {
                let (mask_si, mask_ti) = masks(i);
                let bit = 1 << (i - base);
                // Rule i feeds rule n only if it deletes or writes a letter of n's
                // pattern; either bleeds the other only if their patterns share a letter.
                fed |= if mask_ti == 0 || mask_ti & mask_sn != 0 {
                    bit
                } else {
                    0
                };
                shared |= if mask_si & mask_sn != 0 { bit } else { 0 };
                fed_back |= if mask_tn == 0 || mask_tn & mask_si != 0 {
                    bit
                } else {
                    0
                };
            }
            let mut pending = fed | shared | fed_back;
            while pending != 0 && self.flags != ALL {
                let k = pending.trailing_zeros();
                pending &= pending - 1;
                let (i, bit) = (base + k as usize, 1 << k);
                let may_bleed = shared & bit != 0;
                // Rule i, earlier, on rule n: feeding and bleeding; rule n on rule i:
                // counter-feeding and counter-bleeding.
                if visit(&mut self.flags, i, n, (8, 4), (fed & bit != 0, may_bleed))
                    || visit(
                        &mut self.flags,
                        n,
                        i,
                        (2, 1),
                        (fed_back & bit != 0, may_bleed),
                    )
                {
                    return true;
                }
            }
        }
        false
    }

    /// The category of the rules pushed so far.
    pub(crate) fn category(self) -> Category {
        Category(self.flags)
    }
}

/// Entries a thread's memo holds before it is emptied (about 20 MB).
const MEMO_CAPACITY: usize = 1 << 20;

/// The *shape* of the triple `(si, ti, sj)` as one number, when each side has at most 3
/// letters: every letter replaced by the rank of its first appearance in `si ti sj`.
///
/// Both classifiers are invariant under renaming letters one-to-one (the definitions
/// quantify over all strings; the formula only compares substrings), so triples of the
/// same shape have the same relations. There are only a few thousand shapes, so the memo
/// answers almost every query, whatever the alphabet.
fn shape_key(si: &str, ti: &str, sj: &str) -> Option<u64> {
    if si.is_ascii() && ti.is_ascii() && sj.is_ascii() {
        // Bytes are letters here, and need no UTF-8 decoding.
        shape_of([si, ti, sj].map(|s| s.bytes().map(u32::from)))
    } else {
        shape_of([si, ti, sj].map(|s| s.chars().map(u32::from)))
    }
}

/// [`shape_key`] of three sides given as letter codes.
fn shape_of<I: Iterator<Item = u32>>(sides: [I; 3]) -> Option<u64> {
    let mut seen = [0u32; 9];
    let mut distinct = 0;
    let mut key = 0u64;
    for side in sides {
        let mut len = 0u64;
        for c in side {
            if len == 3 {
                return None;
            }
            let rank = match seen[..distinct].iter().position(|&s| s == c) {
                Some(r) => r,
                None => {
                    seen[distinct] = c;
                    distinct += 1;
                    distinct - 1
                }
            };
            key = key << 4 | rank as u64;
            len += 1;
        }
        // Pad to three letters and record the length, so sides cannot run together.
        key = key << (4 * (3 - len)) << 2 | len;
    }
    Some(key)
}

/// [`shape_key`] for rules whose letters are one-byte codes (never `0xFF`), as the
/// generator keeps them, in two halves: a rule's own part, made once per rule, and the
/// part of each rule it is paired with, made per pair with a few word operations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ShapeHead {
    /// The key bits of the rule's two sides.
    bits: u64,
    /// The distinct letters of both sides in order of first appearance, one per byte from
    /// the lowest; `0xFF` past the last.
    letters: u64,
    distinct: u32,
}

impl ShapeHead {
    /// The rule `pattern → replacement`'s part; None when a side has more than 3 letters
    /// (shapes cover only those).
    pub(crate) fn of(pattern: &[u8], replacement: &[u8]) -> Option<Self> {
        let mut head = ShapeHead {
            bits: 0,
            letters: u64::MAX,
            distinct: 0,
        };
        for side in [pattern, replacement] {
            head.bits = append_side(head.bits, side, &mut head.letters, &mut head.distinct)?;
        }
        Some(head)
    }

    /// `shape_key(si, ti, sj)` where this is the head of `si → ti` and `sj` is `pattern`;
    /// None when `pattern` has more than 3 letters.
    #[inline]
    pub(crate) fn key(self, pattern: &[u8]) -> Option<u64> {
        // Letters new to this pair go on in a second word (with up to 6 letters in the
        // head and 3 here, one word could overflow).
        let (mut fresh, mut fresh_count) = (u64::MAX, 0);
        let mut bits = self.bits;
        if pattern.len() > 3 {
            return None;
        }
        for &c in pattern {
            let rank = match byte_position(self.letters, c) {
                Some(r) => r,
                None => {
                    let r = byte_position(fresh, c).unwrap_or_else(|| {
                        let at = 8 * fresh_count;
                        fresh = fresh & !(0xFF << at) | (c as u64) << at;
                        fresh_count += 1;
                        fresh_count - 1
                    });
                    self.distinct + r
                }
            };
            bits = bits << 4 | rank as u64;
        }
        Some(bits << (4 * (3 - pattern.len())) << 2 | pattern.len() as u64)
    }
}

/// `key` followed by the shape bits of `side` (see [`shape_of`]), new letters appended to
/// `letters` (one per byte, `distinct` of them so far, at most 8); None past 3 letters.
fn append_side(mut key: u64, side: &[u8], letters: &mut u64, distinct: &mut u32) -> Option<u64> {
    if side.len() > 3 {
        return None;
    }
    for &c in side {
        let rank = match byte_position(*letters, c) {
            Some(r) => r,
            None => {
                let at = 8 * *distinct;
                *letters = *letters & !(0xFF << at) | (c as u64) << at;
                *distinct += 1;
                *distinct - 1
            }
        };
        key = key << 4 | rank as u64;
    }
    Some(key << (4 * (3 - side.len())) << 2 | side.len() as u64)
}

/// The index of the lowest byte of `word` equal to `c`.
///
/// The classic zero-byte test: after `x = word ^ c…c`, `(x - 0x01…01) & !x & 0x80…80`
/// sets the top bit of every zero byte of x (and maybe of bytes above one, through the
/// borrow), so its lowest set bit marks the lowest zero byte exactly.
#[inline]
fn byte_position(word: u64, c: u8) -> Option<u32> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (c as u64).wrapping_mul(ONES);
    let zero = x.wrapping_sub(ONES) & !x & (ONES << 7);
    (zero != 0).then(|| zero.trailing_zeros() / 8)
}

/// [`interaction`] without the memo: `(feeds(si→ti, sj), bleeds(si→ti, sj))`.
pub fn interaction_uncached(mode: RelationMode, si: &str, ti: &str, sj: &str) -> (bool, bool) {
    (
        relation_uncached(mode, Relation::Feeds, si, ti, sj),
        relation_uncached(mode, Relation::Bleeds, si, ti, sj),
    )
}

/// [`relation`] without the memo or the shortcut.
pub fn relation_uncached(mode: RelationMode, kind: Relation, si: &str, ti: &str, sj: &str) -> bool {
    match (mode, kind) {
        (RelationMode::Exact, Relation::Feeds) => exact::feeds(si, ti, sj),
        (RelationMode::Exact, Relation::Bleeds) => exact::bleeds(si, ti, sj),
        (RelationMode::Paper, Relation::Feeds) => paper::feeds(si, ti, sj),
        (RelationMode::Paper, Relation::Bleeds) => paper::bleeds(si, ti, sj),
    }
}

/// The four relation flags of a cascade: the category bits `F B CF CB`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Category(u8);

impl Category {
    /// Every category, `0000` to `1111`, in that order.
    pub const ALL: [Category; 16] = {
        let mut all = [Category(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = Category(i as u8);
            i += 1;
        }
        all
    };

    /// A category from its four flags.
    pub fn from_flags(
        feeding: bool,
        bleeding: bool,
        counter_feeding: bool,
        counter_bleeding: bool,
    ) -> Self {
        Category(
            (feeding as u8) << 3
                | (bleeding as u8) << 2
                | (counter_feeding as u8) << 1
                | counter_bleeding as u8,
        )
    }

    /// Index 0..16, the bits read as a binary number (`1011` is 11).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The four bits F B CF CB as text, e.g. "1011" (as `Display` writes them).
    pub fn label(self) -> &'static str {
        const LABELS: [&str; 16] = [
            "0000", "0001", "0010", "0011", "0100", "0101", "0110", "0111", "1000", "1001", "1010",
            "1011", "1100", "1101", "1110", "1111",
        ];
        LABELS[self.index()]
    }

    /// Some ordered pair i < j where i feeds j.
    pub fn feeding(self) -> bool {
        self.0 & 8 != 0
    }
    /// Some ordered pair i < j where i bleeds j.
    pub fn bleeding(self) -> bool {
        self.0 & 4 != 0
    }
    /// Some pair i > j where i would feed j but comes after it.
    pub fn counter_feeding(self) -> bool {
        self.0 & 2 != 0
    }
    /// Some pair i > j where i would bleed j but comes after it.
    pub fn counter_bleeding(self) -> bool {
        self.0 & 1 != 0
    }

    /// The authors' `bfcc_string`: names of the relations present, or "No BFCC relationships".
    pub fn description(self) -> String {
        let names = ["Feeding", "Bleeding", "Counterfeeding", "Counterbleeding"];
        let flags = [
            self.feeding(),
            self.bleeding(),
            self.counter_feeding(),
            self.counter_bleeding(),
        ];
        let present: Vec<&str> = names
            .iter()
            .zip(flags)
            .filter(|(_, f)| *f)
            .map(|(n, _)| *n)
            .collect();
        if present.is_empty() {
            "No BFCC relationships".to_owned()
        } else {
            present.join(", ")
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl FromStr for Category {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.len() == 4 && s.bytes().all(|b| b == b'0' || b == b'1') {
            Ok(Category(
                u8::from_str_radix(s, 2).expect("checked binary digits"),
            ))
        } else {
            Err(format!(
                "'{s}' is not a category (four bits F B CF CB such as 1011)"
            ))
        }
    }
}

impl Serialize for Category {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One ordered pair of rules that interact: rule `i` feeds and/or bleeds rule `j`
/// (counter-relations when `i > j`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interaction {
    /// Index of the acting rule.
    pub i: usize,
    /// Index of the affected rule.
    pub j: usize,
    /// Rule i can create an occurrence of rule j's pattern.
    pub feeds: bool,
    /// Rule i can destroy an occurrence of rule j's pattern.
    pub bleeds: bool,
}

/// The pairwise feeding and bleeding matrices of a cascade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relations {
    /// `feeds[i][j]`: rule i feeds rule j (always false on the diagonal).
    pub feeds: Vec<Vec<bool>>,
    /// `bleeds[i][j]`: rule i bleeds rule j (always false on the diagonal).
    pub bleeds: Vec<Vec<bool>>,
}

impl Relations {
    /// Classifies every ordered pair of distinct rules of `cascade`.
    pub fn of(cascade: &Cascade, mode: RelationMode) -> Self {
        let rules = cascade.rules();
        let n = rules.len();
        let mut feeds = vec![vec![false; n]; n];
        let mut bleeds = vec![vec![false; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    (feeds[i][j], bleeds[i][j]) = interaction(mode, &rules[i], &rules[j]);
                }
            }
        }
        Relations { feeds, bleeds }
    }

    /// The category of Algorithm 2: F/B from pairs i < j, CF/CB from pairs i > j.
    pub fn category(&self) -> Category {
        let (mut f, mut b, mut cf, mut cb) = (false, false, false, false);
        for inter in self.interactions() {
            if inter.i < inter.j {
                f |= inter.feeds;
                b |= inter.bleeds;
            } else {
                cf |= inter.feeds;
                cb |= inter.bleeds;
            }
        }
        Category::from_flags(f, b, cf, cb)
    }

    /// The interacting ordered pairs, row by row.
    pub fn interactions(&self) -> Vec<Interaction> {
        let mut out = Vec::new();
        for (i, (frow, brow)) in self.feeds.iter().zip(&self.bleeds).enumerate() {
            for (j, (&feeds, &bleeds)) in frow.iter().zip(brow).enumerate() {
                if feeds || bleeds {
                    out.push(Interaction {
                        i,
                        j,
                        feeds,
                        bleeds,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_text_round_trip() {
        for c in Category::ALL {
            assert_eq!(c.to_string().parse::<Category>().unwrap(), c);
        }
        assert_eq!("1011".parse::<Category>().unwrap().index(), 11);
        assert!("10a1".parse::<Category>().is_err());
        assert_eq!(
            "0010".parse::<Category>().unwrap().description(),
            "Counterfeeding"
        );
        assert_eq!(Category::default().description(), "No BFCC relationships");
    }

    #[test]
    fn category_follows_order() {
        let rel = Relations {
            feeds: vec![vec![false, false], vec![true, false]],
            bleeds: vec![vec![false, true], vec![false, false]],
        };
        assert_eq!(rel.category().to_string(), "0110");
    }
}

#[cfg(test)]
mod shortcut_tests {
    use super::*;
    use proptest::prelude::*;

    fn side(min: usize) -> impl Strategy<Value = String> {
        proptest::string::string_regex(&format!("[abcé]{{{min},4}}")).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The letter-overlap shortcut and the memo never change an answer.
        #[test]
        fn interaction_equals_uncached(si in side(1), ti in side(0), sj in side(1)) {
            let first = Rule::new(si.clone(), ti.clone()).unwrap();
            let second = Rule::new(sj.clone(), "x").unwrap();
            for mode in [RelationMode::Exact, RelationMode::Paper] {
                prop_assert_eq!(interaction(mode, &first, &second), interaction_uncached(mode, &si, &ti, &sj));
                // Twice: the second answer comes from the memo.
                prop_assert_eq!(interaction(mode, &first, &second), interaction_uncached(mode, &si, &ti, &sj));
            }
        }
    }

    /// Up to `max` letter codes from a few small and a few large ones.
    fn codes(min: usize, max: usize) -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(prop_oneof![0u8..4, 250u8..255], min..=max)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// The two-part keys of coded rules are the shape keys of their text.
        #[test]
        fn shape_heads_give_shape_keys(si in codes(1, 4), ti in codes(0, 4), sj in codes(1, 4)) {
            let text = |codes: &[u8]| -> String {
                codes.iter().map(|&c| char::from_u32(0x100 + c as u32).unwrap()).collect()
            };
            let expected = shape_key(&text(&si), &text(&ti), &text(&sj));
            let got = ShapeHead::of(&si, &ti).and_then(|head| head.key(&sj));
            prop_assert_eq!(got, expected);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The memo's assumption: renaming letters one-to-one never changes a relation.
        #[test]
        fn relations_are_invariant_under_renaming(si in side(1), ti in side(0), sj in side(1), perm in 0usize..24) {
            let targets: Vec<char> = "xyʔq".chars().collect();
            let mut order = vec![0, 1, 2, 3];
            // The perm-th permutation of four letters.
            let mut k = perm;
            let mut image = Vec::new();
            for n in (1..=4).rev() {
                image.push(targets[order.remove(k % n)]);
                k /= n;
            }
            let rename = |s: &str| -> String {
                s.chars().map(|c| image["abcé".chars().position(|d| d == c).unwrap()]).collect()
            };
            for mode in [RelationMode::Exact, RelationMode::Paper] {
                prop_assert_eq!(
                    interaction_uncached(mode, &si, &ti, &sj),
                    interaction_uncached(mode, &rename(&si), &rename(&ti), &rename(&sj))
                );
            }
        }
    }

    fn rules() -> impl Strategy<Value = Vec<Rule>> {
        proptest::collection::vec((side(1), side(0)), 0..7).prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(a, b)| Rule::new(a, b).unwrap())
                .collect()
        })
    }

    /// 8 to 40 rules over 40 letters (a few non-ASCII), so that flags often stay unset and
    /// many pairs are settled by their letter masks alone.
    fn long_sparse_rules() -> impl Strategy<Value = Vec<Rule>> {
        let side = |min: usize| {
            proptest::string::string_regex(&format!("[a-zA-Mé-ê]{{{min},3}}")).unwrap()
        };
        proptest::collection::vec((side(1), side(0)), 8..40).prop_map(|pairs| {
            pairs
                .into_iter()
                .map(|(a, b)| Rule::new(a, b).unwrap())
                .collect()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// The lazy category equals the one read off the full matrices.
        #[test]
        fn lazy_category_equals_matrix_category(rules in rules()) {
            let cascade = Cascade::new(rules.clone());
            for mode in [RelationMode::Exact, RelationMode::Paper] {
                prop_assert_eq!(category_of(&rules, mode), Relations::of(&cascade, mode).category());
            }
        }

        /// Giving up once feeding is found returns None exactly for the cascades with
        /// feeding, and their category otherwise.
        #[test]
        fn giving_up_stops_only_when_asked(rules in long_sparse_rules()) {
            let category = category_of(&rules, RelationMode::Paper);
            let mode = RelationMode::Paper;
            let given_up = with_memo(|memo| category_by(
                rules.len(),
                |i| rules[i].parts().masks,
                |i, j, want| pair(memo, mode, want, rules[i].parts(), rules[j].parts()),
                |set| set.feeding(),
            ));
            prop_assert_eq!(given_up, (!category.feeding()).then_some(category));
        }

        /// A search fed one rule at a time knows, after each, the category of the rules so
        /// far, and gives up at the first rule from which the category has the flags
        /// `unwanted` asks about.
        #[test]
        fn growing_search_tracks_every_prefix(rules in rules(), unwanted in 1usize..16) {
            for mode in [RelationMode::Exact, RelationMode::Paper] {
                // The categories read off the full matrices of each prefix.
                let prefixes: Vec<Category> = (1..=rules.len())
                    .map(|k| Relations::of(&Cascade::new(rules[..k].to_vec()), mode).category())
                    .collect();
                let has_unwanted = |c: Category| c.index() & unwanted == unwanted;
                let mut search = Search::default();
                for (k, &expected) in prefixes.iter().enumerate() {
                    let gave_up = with_memo(|memo| search.push(
                        |i| rules[i].parts().masks,
                        |i, j, want| pair(memo, mode, want, rules[i].parts(), rules[j].parts()),
                        has_unwanted,
                    ));
                    prop_assert_eq!(gave_up, has_unwanted(expected), "rule {}, {:?}", k, mode);
                    if gave_up {
                        break;
                    }
                    prop_assert_eq!(search.category(), expected, "rule {}, {:?}", k, mode);
                }
            }
        }

        /// The same for long cascades over a large alphabet.
        #[test]
        fn indexed_category_equals_matrix_category(rules in long_sparse_rules()) {
            let cascade = Cascade::new(rules.clone());
            for mode in [RelationMode::Exact, RelationMode::Paper] {
                prop_assert_eq!(category_of(&rules, mode), Relations::of(&cascade, mode).category());
            }
        }
    }

    #[test]
    fn shapes_identify_triples_up_to_renaming() {
        assert_eq!(shape_key("ab", "c", "ba"), shape_key("xy", "z", "yx"));
        assert_eq!(shape_key("ab", "c", "ba"), shape_key("éʔ", "q", "ʔé"));
        assert_ne!(shape_key("ab", "c", "ba"), shape_key("ab", "c", "ab"));
        assert_ne!(shape_key("ab", "", "a"), shape_key("a", "b", "a"));
        assert_ne!(shape_key("a", "", "ab"), shape_key("a", "a", "b"));
        assert_eq!(shape_key("abcd", "a", "a"), None);
    }
}
