//! The lag between two outputs written so far.
//!
//! Two transducers reading the same input agree on it only if, at every point, one's
//! output so far is a prefix of the other's: the lag is the longer one's surplus (and which
//! side is ahead), or [`DIFFER`] once neither is a prefix of the other, which no later
//! letter can undo. Lags are interned, so that a product state is four integers.

use super::machine::FRESH;
use super::{Budget, Limit};
use rustc_hash::FxHashMap;

/// The two outputs are equal so far.
pub(super) const SAME: u32 = 0;
/// The two outputs differ for good.
pub(super) const DIFFER: u32 = 1;

/// What one side wrote in a step: `char` values where [`FRESH`] stands for `input`, or
/// `None` when it wrote more than it can without differing (an overflow).
#[derive(Debug, Clone, Copy)]
pub(super) struct Piece<'a> {
    pub text: Option<&'a [u32]>,
    pub input: u32,
}

impl Piece<'_> {
    fn letters(&self) -> impl Iterator<Item = u32> + '_ {
        let input = self.input;
        (self.text.unwrap_or_default().iter()).map(move |&c| if c == FRESH { input } else { c })
    }

    fn len(&self) -> usize {
        self.text.map_or(0, <[u32]>::len)
    }
}

/// Which output is ahead.
const FIRST: u32 = 0;
const SECOND: u32 = 1;

/// The interned lags: id `k + 2` is `texts[k]`, whose first value is the side ahead and
/// the rest that side's surplus.
pub(super) struct Lags {
    ids: FxHashMap<Box<[u32]>, u32>,
    texts: Vec<Box<[u32]>>,
    scratch: Vec<u32>,
    stored: usize,
    max_stored: usize,
}

impl Lags {
    /// No lags yet; they may hold up to `max_stored` letters in all.
    pub fn new(max_stored: usize) -> Self {
        Lags {
            ids: FxHashMap::default(),
            texts: Vec::new(),
            scratch: Vec::new(),
            stored: 0,
            max_stored,
        }
    }

    /// The lag after the first output is extended by `first` and the second by `second`,
    /// starting from `lag`. A surplus longer than `limit` is [`DIFFER`] (the caller knows
    /// no output of the side behind is that long), and so is an overflow.
    pub fn extend(
        &mut self,
        lag: u32,
        first: Piece,
        second: Piece,
        limit: usize,
        budget: &mut Budget,
    ) -> Result<u32, Limit> {
        // The common case: equal so far, and both write the same (the same text stands
        // for the same letters: both pieces read the same input letter).
        debug_assert_eq!(first.input, second.input, "both sides read the same input");
        if lag == SAME && first.text.is_some() && first.text == second.text {
            return Ok(SAME);
        }
        let mut rest = std::mem::take(&mut self.scratch);
        let lag = match self.compare(lag, first, second, &mut rest, budget)? {
            None => DIFFER,
            Some(_) if rest.len() > limit + 1 => DIFFER,
            Some(_) if rest.len() == 1 => SAME,
            Some(_) => self.intern(&rest)?,
        };
        self.scratch = rest;
        Ok(lag)
    }

    /// Whether the two outputs are equal once the first is extended by `first` and the
    /// second by `second` (the end of the input: a surplus left is a difference).
    pub fn ends_equal(
        &mut self,
        lag: u32,
        first: Piece,
        second: Piece,
        budget: &mut Budget,
    ) -> Result<bool, Limit> {
        let mut rest = std::mem::take(&mut self.scratch);
        let equal = self
            .compare(lag, first, second, &mut rest, budget)?
            .is_some()
            && rest.len() == 1;
        self.scratch = rest;
        Ok(equal)
    }

    /// Puts the new lag in `rest` (side first, then the surplus) and returns `Some(())`,
    /// or `None` when the outputs differ.
    fn compare(
        &self,
        lag: u32,
        first: Piece,
        second: Piece,
        rest: &mut Vec<u32>,
        budget: &mut Budget,
    ) -> Result<Option<()>, Limit> {
        rest.clear();
        if lag == DIFFER || first.text.is_none() || second.text.is_none() {
            return Ok(None);
        }
        let (side, surplus) = match lag {
            SAME => (FIRST, &[][..]),
            _ => {
                let text = &self.texts[lag as usize - 2];
                (text[0], &text[1..])
            }
        };
        let (ahead, behind) = if side == FIRST {
            (first, second)
        } else {
            (second, first)
        };
        budget.spend((surplus.len() + ahead.len() + behind.len()) as u64)?;
        let mut ahead = surplus.iter().copied().chain(ahead.letters());
        let mut behind = behind.letters();
        loop {
            match (ahead.next(), behind.next()) {
                (Some(x), Some(y)) if x == y => continue,
                (Some(_), Some(_)) => return Ok(None),
                (Some(x), None) => {
                    rest.push(side);
                    rest.push(x);
                    rest.extend(ahead);
                }
                (None, Some(y)) => {
                    rest.push(if side == FIRST { SECOND } else { FIRST });
                    rest.push(y);
                    rest.extend(behind);
                }
                (None, None) => rest.push(FIRST),
            }
            return Ok(Some(()));
        }
    }

    /// The id of the lag `text` (side, then surplus).
    fn intern(&mut self, text: &[u32]) -> Result<u32, Limit> {
        if let Some(&id) = self.ids.get(text) {
            return Ok(id);
        }
        self.stored += text.len();
        if self.stored > self.max_stored {
            return Err(Limit::TooManyLetters {
                limit: self.max_stored,
            });
        }
        let id = self.texts.len() as u32 + 2;
        self.texts.push(text.into());
        self.ids.insert(text.into(), id);
        Ok(id)
    }

    /// The surplus of `lag` and whether the second output is the one ahead (tests).
    #[cfg(test)]
    fn spell(&self, lag: u32) -> (bool, String) {
        let text = &self.texts[lag as usize - 2];
        let surplus = text[1..].iter().map(|&c| char::from_u32(c).unwrap());
        (text[0] == SECOND, surplus.collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Vec<u32> {
        s.chars().map(|c| c as u32).collect()
    }

    fn piece(t: &[u32]) -> Piece<'_> {
        Piece {
            text: Some(t),
            input: 'z' as u32,
        }
    }

    #[test]
    fn lags_follow_the_longer_output() {
        let mut lags = Lags::new(100);
        let mut budget = Budget::new(1000);
        let (ab, a, abc, empty) = (text("ab"), text("a"), text("abc"), text(""));
        let lag = lags
            .extend(SAME, piece(&ab), piece(&a), 9, &mut budget)
            .unwrap();
        assert_eq!(lags.spell(lag), (false, "b".into()));
        // the second catches up and overtakes: first "ab", second "a" + "abc"
        let lag2 = lags
            .extend(lag, piece(&empty), piece(&abc), 9, &mut budget)
            .unwrap();
        assert_eq!(lag2, DIFFER);
        let bc = text("bcd");
        let lag3 = lags
            .extend(lag, piece(&empty), piece(&bc), 9, &mut budget)
            .unwrap();
        assert_eq!(lags.spell(lag3), (true, "cd".into()));
        assert!(!lags
            .ends_equal(lag3, piece(&empty), piece(&empty), &mut budget)
            .unwrap());
        let cd = text("cd");
        assert!(lags
            .ends_equal(lag3, piece(&cd), piece(&empty), &mut budget)
            .unwrap());
        // interning: the same lag twice is one id
        assert_eq!(
            lags.extend(SAME, piece(&ab), piece(&a), 9, &mut budget)
                .unwrap(),
            lag
        );
    }

    #[test]
    fn fresh_stands_for_the_input_and_long_surpluses_differ() {
        let mut lags = Lags::new(100);
        let mut budget = Budget::new(1000);
        let (fresh, z) = ([FRESH], text("z"));
        assert_eq!(
            lags.extend(SAME, piece(&fresh), piece(&z), 0, &mut budget)
                .unwrap(),
            SAME
        );
        let long = text("abc");
        assert_eq!(
            lags.extend(SAME, piece(&long), piece(&[]), 2, &mut budget)
                .unwrap(),
            DIFFER
        );
        assert_ne!(
            lags.extend(SAME, piece(&long), piece(&[]), 3, &mut budget)
                .unwrap(),
            DIFFER
        );
        let overflow = Piece {
            text: None,
            input: 'z' as u32,
        };
        assert_eq!(
            lags.extend(SAME, overflow, piece(&z), 9, &mut budget)
                .unwrap(),
            DIFFER
        );
    }
}
