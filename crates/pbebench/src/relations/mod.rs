//! Rule interactions (feeding, bleeding, counter-feeding, counter-bleeding) and the
//! 16 relation categories of PBEBench (`docs/semantics.md#feeding-and-bleeding`, the paper's
//! Appendix C and Algorithm 2).
//!
//! Two classifiers decide whether one rule feeds or bleeds another:
//! [`RelationMode::Exact`] (sound and complete over all strings; the default) and
//! [`RelationMode::Paper`] (the published formula, which reproduces the released labels).

pub mod exact;
mod memo;
pub mod paper;
mod search;

#[cfg(test)]
pub(crate) use memo::shape_key;
pub(crate) use memo::{by_shape, with_memo, Memo};
pub(crate) use search::{category_by, Search, Wanted};

use crate::rule::{Cascade, Rule, RuleParts};
use serde::{Deserialize, Serialize};
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
    with_memo(|memo| pair(memo, mode, want, first.parts(), second.parts()))
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
    let Some(shape) = memo::shape_key(si, ti, sj) else {
        return wanted_uncached(mode, want, si, ti, sj);
    };
    by_shape(memo, mode, shape, || interaction_uncached(mode, si, ti, sj))
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
    (
        decide(want.feeds, Relation::Feeds),
        decide(want.bleeds, Relation::Bleeds),
    )
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
        let err = "10a1".parse::<Category>().unwrap_err();
        assert!(err.contains("'10a1' is not a category"), "{err}");
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
}
