//! Segments written as one symbol each: the IPA segments of a word list (`t͡ʃ`, `aː`, `kʷ`,
//! `a˥˩`) are sequences of several characters, and rules, alphabets and rule-length limits
//! count characters. A dataset read from CLDF ([`crate::cldf`]) writes every segment of
//! more than one character as one free symbol and keeps the table in the instance
//! ([`crate::Instance::symbols`]), so that every output can show the IPA again
//! ([`Symbols::decode`]). The table is a bijection: a word's symbols give back its
//! segments, and its segments its symbols ([`Symbols::encode`]).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The symbols standing for segments of more than one character, each with its segment.
/// A character not in the table stands for itself. Empty for every dataset that is not
/// read from segmented data (and then left out of its lines).
///
/// ```
/// use pbebench::symbols::Symbols;
/// let symbols = Symbols::for_segments(["t͡ʃ", "a", "aː"], &[]).unwrap();
/// let word = symbols.encode(&["t͡ʃ", "aː"]).unwrap();
/// assert_eq!(word.chars().count(), 2);
/// assert_eq!(symbols.decode(&word), "t͡ʃaː");
/// assert_eq!(symbols.segments(&word), ["t͡ʃ", "aː"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Symbols(BTreeMap<char, String>);

/// Why segments cannot be given symbols.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymbolError {
    /// A segment with no character.
    #[error("an empty segment (two separators in a row?): every segment needs a character")]
    EmptySegment,
    /// A one-character segment that is a reserved character (the word boundary `#`).
    #[error("the segment {0:?} is reserved (the word boundary): rename it in the data, or leave word boundaries off")]
    Reserved(char),
    /// More segments of several characters than free symbols.
    #[error("{0} segments of several characters, more than the free symbols to write them")]
    TooMany(usize),
    /// A segment the table has no symbol for (encoding a word with another table).
    #[error("the segment {0:?} has no symbol in this table")]
    Unknown(String),
}

/// The symbols given to segments of several characters, in this order, skipping every
/// character a one-character segment or a reserved character already is: capital
/// letters, which IPA does not use, read well in a prompt; then Greek and Cyrillic
/// capitals; then the private use area, which no data holds.
fn pool() -> impl Iterator<Item = char> {
    ('A'..='Z')
        .chain('Α'..='Ω')
        .chain('Б'..='Я')
        .chain('\u{E000}'..='\u{F8FF}')
        .filter(|c| !c.is_whitespace())
}

impl Symbols {
    /// The table for a word list whose segments are `segments` (in any order, repeats
    /// allowed): every segment of several characters gets the first free symbol, in the
    /// segments' sorted order, so the same segments always get the same symbols. `reserved`
    /// are characters no segment may be and no symbol will be (the word boundary).
    pub fn for_segments<'a>(
        segments: impl IntoIterator<Item = &'a str>,
        reserved: &[char],
    ) -> Result<Symbols, SymbolError> {
        let mut taken: BTreeSet<char> = reserved.iter().copied().collect();
        let mut long: BTreeSet<&str> = BTreeSet::new();
        for segment in segments {
            let mut chars = segment.chars();
            match (chars.next(), chars.next()) {
                (None, _) => return Err(SymbolError::EmptySegment),
                (Some(c), None) if reserved.contains(&c) => return Err(SymbolError::Reserved(c)),
                (Some(c), None) => {
                    taken.insert(c);
                }
                _ => {
                    long.insert(segment);
                }
            }
        }
        let mut free = pool().filter(|c| !taken.contains(c));
        let mut table = BTreeMap::new();
        for segment in &long {
            let symbol = free.next().ok_or(SymbolError::TooMany(long.len()))?;
            table.insert(symbol, (*segment).to_owned());
        }
        Ok(Symbols(table))
    }

    /// Whether no segment needs a symbol of its own (every segment is one character).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The symbols and their segments, in symbol order.
    pub fn iter(&self) -> impl Iterator<Item = (char, &str)> {
        self.0.iter().map(|(c, s)| (*c, s.as_str()))
    }

    /// The segment `symbol` stands for (itself when it is not in the table).
    pub fn segment(&self, symbol: char) -> String {
        self.0
            .get(&symbol)
            .cloned()
            .unwrap_or_else(|| symbol.to_string())
    }

    /// The word written in symbols, from its segments.
    pub fn encode<S: AsRef<str>>(&self, segments: &[S]) -> Result<String, SymbolError> {
        segments
            .iter()
            .map(|s| {
                let s = s.as_ref();
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (None, _) => Err(SymbolError::EmptySegment),
                    (Some(c), None) if !self.0.contains_key(&c) => Ok(c),
                    _ => (self.0.iter())
                        .find(|(_, segment)| segment.as_str() == s)
                        .map(|(c, _)| *c)
                        .ok_or_else(|| SymbolError::Unknown(s.to_owned())),
                }
            })
            .collect()
    }

    /// The segments of a word written in symbols.
    pub fn segments(&self, word: &str) -> Vec<String> {
        word.chars().map(|c| self.segment(c)).collect()
    }

    /// A word written in symbols, in IPA: its segments joined.
    pub fn decode(&self, word: &str) -> String {
        if self.is_empty() {
            return word.to_owned();
        }
        word.chars().map(|c| self.segment(c)).collect()
    }

    /// What is wrong with the table as a dataset line gives it (empty when it is sound):
    /// a symbol for an empty or a one-character segment, or two symbols for one segment
    /// (the table would not be reversible).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut seen: BTreeMap<&str, char> = BTreeMap::new();
        for (symbol, segment) in &self.0 {
            if segment.chars().count() < 2 {
                problems.push(format!(
                    "symbols[{symbol:?}] is {segment:?}: the table holds segments of several characters only"
                ));
            } else if let Some(first) = seen.insert(segment, *symbol) {
                problems.push(format!(
                    "symbols {first:?} and {symbol:?} both stand for {segment:?}: give each segment one symbol"
                ));
            }
        }
        problems
    }
}

/// A rule in the notation of historical linguistics, `a > b / L _ R`, in IPA: the context
/// both sides share (the longest common start `L`, then the longest common end `R` of
/// what is left) is factored out; `∅` is nothing (a deletion or an insertion); without a
/// shared context it reads `a > b`. `#` (the word boundary) stays as it is.
///
/// The notation is a reading aid: `replace(a, b)` rewrites every occurrence of the whole
/// pattern left to right, without overlaps, which the two readings share except where a
/// context overlaps the change (`replace('aa', 'a')` reads `a > ∅ / a _`, yet maps `aaaa`
/// to `aa`).
///
/// ```
/// use pbebench::{symbols::{sound_law, Symbols}, Rule};
/// let symbols = Symbols::for_segments(["t͡ʃ", "t", "i"], &['#']).unwrap();
/// let rule = Rule::new("ti", &symbols.encode(&["t͡ʃ", "i"]).unwrap()).unwrap();
/// assert_eq!(sound_law(&rule, &symbols), "t > t͡ʃ / _ i");
/// assert_eq!(sound_law(&Rule::new("a#", "#").unwrap(), &symbols), "a > ∅ / _ #");
/// ```
pub fn sound_law(rule: &crate::Rule, symbols: &Symbols) -> String {
    let a: Vec<char> = rule.pattern().chars().collect();
    let b: Vec<char> = rule.replacement().chars().collect();
    let shortest = a.len().min(b.len());
    let left = (0..shortest).take_while(|&k| a[k] == b[k]).count();
    let right = (0..shortest - left)
        .take_while(|&k| a[a.len() - 1 - k] == b[b.len() - 1 - k])
        .count();
    let ipa = |chars: &[char]| -> String {
        let text: String = chars.iter().map(|c| symbols.segment(*c)).collect();
        if text.is_empty() {
            "∅".to_owned()
        } else {
            text
        }
    };
    let change = format!(
        "{} > {}",
        ipa(&a[left..a.len() - right]),
        ipa(&b[left..b.len() - right])
    );
    if left == 0 && right == 0 {
        return change;
    }
    let side = |chars: &[char]| -> String { chars.iter().map(|c| symbols.segment(*c)).collect() };
    let (l, r) = (side(&a[..left]), side(&a[a.len() - right..]));
    let context = match (l.is_empty(), r.is_empty()) {
        (true, _) => format!("_ {r}"),
        (false, true) => format!("{l} _"),
        (false, false) => format!("{l} _ {r}"),
    };
    format!("{change} / {context}")
}

/// The table as `A = t͡ʃ, B = aː`.
impl fmt::Display for Symbols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, (symbol, segment)) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{symbol} = {segment}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Affricates (with a tie bar and without), tone letters, length marks, secondary
    /// articulations and a combining diacritic (a decomposed nasal vowel): each is one symbol, and every word goes
    /// to symbols and back unchanged.
    #[test]
    fn multi_character_segments_round_trip() {
        let words: [&[&str]; 5] = [
            &["t͡ʃ", "aː", "n"],
            &["ts", "a˥˩", "kʷ"],
            &["m", "a\u{303}", "tʰ", "a"],
            &["a", "ː"],
            &["ʔ", "ɨ", "ŋ"],
        ];
        let symbols =
            Symbols::for_segments(words.iter().flat_map(|w| w.iter().copied()), &['#']).unwrap();
        assert_eq!(symbols.iter().count(), 7, "{symbols}");
        for word in words {
            let written = symbols.encode(word).unwrap();
            assert_eq!(written.chars().count(), word.len(), "{word:?}");
            assert_eq!(symbols.segments(&written), word);
            assert_eq!(symbols.decode(&written), word.concat());
            assert_eq!(
                symbols.encode(&symbols.segments(&written)).unwrap(),
                written
            );
        }
        assert!(symbols.problems().is_empty());
        // The same segments in another order: the same table.
        let again =
            Symbols::for_segments(words.iter().rev().flat_map(|w| w.iter().copied()), &['#'])
                .unwrap();
        assert_eq!(again, symbols);
    }

    /// A capital letter the data uses as a segment is not given to another segment.
    #[test]
    fn symbols_skip_letters_the_data_uses() {
        let symbols = Symbols::for_segments(["A", "ts", "B", "dz"], &[]).unwrap();
        assert_eq!(symbols.to_string(), "C = dz, D = ts");
        assert_eq!(symbols.encode(&["A", "ts"]).unwrap(), "AD");
        assert_eq!(symbols.decode("AD"), "Ats");
    }

    #[test]
    fn bad_segments_are_named() {
        assert_eq!(
            Symbols::for_segments(["a", ""], &[]),
            Err(SymbolError::EmptySegment)
        );
        assert_eq!(
            Symbols::for_segments(["a", "#"], &['#']),
            Err(SymbolError::Reserved('#'))
        );
        let symbols = Symbols::for_segments(["ts"], &[]).unwrap();
        assert_eq!(
            symbols.encode(&["dz"]),
            Err(SymbolError::Unknown("dz".into()))
        );
    }

    /// Context is factored out of both sides; deletions, insertions and whole-word
    /// rewrites read as linguists write them; symbols read as their IPA segments.
    #[test]
    fn sound_laws_factor_out_the_context() {
        let symbols = Symbols::for_segments(["aː", "a", "k", "ʔ"], &['#']).unwrap();
        let long = symbols.encode(&["aː"]).unwrap();
        let law = |a: &str, b: &str| sound_law(&crate::Rule::new(a, b).unwrap(), &symbols);
        assert_eq!(law("k", "ʔ"), "k > ʔ");
        assert_eq!(law("ak", "aʔ"), "k > ʔ / a _");
        assert_eq!(law("aka", "aʔa"), "k > ʔ / a _ a");
        assert_eq!(law("#k", "#"), "k > ∅ / # _");
        assert_eq!(law("k#", "ka#"), "∅ > a / k _ #");
        assert_eq!(law(&format!("{long}k"), "ak"), "aː > a / _ k");
        assert_eq!(law("aa", "a"), "a > ∅ / a _");
        assert_eq!(law("ka", "ak"), "ka > ak");
    }

    /// The table round-trips through JSON, and a table that is not a bijection is refused.
    #[test]
    fn tables_read_from_json_are_checked() {
        let symbols = Symbols::for_segments(["t͡ʃ", "aː"], &[]).unwrap();
        let json = serde_json::to_string(&symbols).unwrap();
        assert_eq!(json, r#"{"A":"aː","B":"t͡ʃ"}"#);
        assert_eq!(serde_json::from_str::<Symbols>(&json).unwrap(), symbols);
        let bad: Symbols = serde_json::from_str(r#"{"A":"ts","B":"ts","C":"x"}"#).unwrap();
        let problems = bad.problems();
        assert!(
            problems[0].contains("'A' and 'B' both stand for \"ts\""),
            "{problems:?}"
        );
        assert!(
            problems[1].contains("segments of several characters only"),
            "{problems:?}"
        );
        let e = serde_json::from_str::<Symbols>(r#"{"AB":"ts"}"#).unwrap_err();
        assert!(e.to_string().contains("AB"), "{e}");
    }
}
