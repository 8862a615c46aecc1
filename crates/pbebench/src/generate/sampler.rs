//! What the steps of an attempt share: the [`Sampler`] made once per run from the
//! parameters, and a worker's reusable buffers ([`Scratch`]) that hold the attempt being
//! sampled. The steps (inputs, patterns, held-out examples, the attempt itself) read and
//! fill them; this module depends on none of them.

use super::draws::DrawCodes;
use super::letters::{Letters, Padded};
use super::shape::ShapeHead;
use super::{GenParams, PatternDraw};
use rustc_hash::FxHashSet;

/// What sampling needs of the parameters, made once per run: the letter codes and the
/// codes its random streams cut their words with.
pub(super) struct Sampler {
    pub(super) letters: Letters,
    pub(super) codes: DrawCodes,
    pub(super) pattern_draw: PatternDraw,
}

impl Sampler {
    /// The sampler for validated parameters.
    pub(super) fn new(p: &GenParams) -> Self {
        Sampler {
            letters: Letters::new(&p.alphabet),
            codes: DrawCodes::new(p),
            pattern_draw: p.pattern_draw,
        }
    }
}

/// A kept rule of the attempt being sampled: `a` is `Scratch::sides[start..mid]` and `b`
/// is `sides[mid..end]`, as codes.
#[derive(Clone, Copy)]
pub(super) struct SampledRule {
    pub(super) start: u32,
    pub(super) mid: u32,
    pub(super) end: u32,
    /// The [`code_mask`]s of `a` and `b`.
    pub(super) masks: (u64, u64),
}

/// A 64-bit set of the letters of `codes`, hashed into 64 buckets, as
/// [`letter_mask`](crate::rule::letter_mask) makes for text.
pub(super) fn code_mask(codes: &[u8]) -> u64 {
    codes.iter().fold(0, |m, &c| m | 1 << (c % 64))
}

/// Reusable buffers of one worker. After [`draw_attempt`] they hold that attempt's sample,
/// so that the common case, a candidate rejected for its category, allocates nothing.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) seen: InputKeys,
    /// The inputs, joined, as codes.
    pub(super) inputs: Padded,
    /// The current strings, joined: the outputs once the cascade has run.
    pub(super) joined: Padded,
    pub(super) next: Padded,
    /// Both sides of every kept rule, back to back.
    pub(super) sides: Vec<u8>,
    pub(super) rules: Vec<SampledRule>,
    /// Each rule's part of the shape keys of its pairs, made when first needed (None
    /// inside: more than 3 letters a side).
    pub(super) heads: Vec<Option<Option<ShapeHead>>>,
}

impl SampledRule {
    /// The rule's pattern and replacement, as codes, from the sides of all rules.
    pub(super) fn sides(self, sides: &[u8]) -> (&[u8], &[u8]) {
        (
            &sides[self.start as usize..self.mid as usize],
            &sides[self.mid as usize..self.end as usize],
        )
    }
}

/// The keys ([`input_key`](super::inputs::input_key)) of an attempt's inputs so far, for the distinctness check.
///
/// A 4096-bit filter indexed by a hash of the key answers "not seen" for almost every new
/// input with one bit test; only when its bit is already set are the keys compared. Past
/// [`InputKeys::FILTERED`] inputs the filter would fill up, so a hash set takes over.
pub(super) struct InputKeys {
    pub(super) filter: [u64; 64],
    pub(super) keys: Vec<u64>,
    pub(super) set: FxHashSet<u64>,
}

impl Default for InputKeys {
    fn default() -> Self {
        InputKeys {
            filter: [0; 64],
            keys: Vec::new(),
            set: FxHashSet::default(),
        }
    }
}

impl InputKeys {
    pub(super) const FILTERED: usize = 256;

    /// Empties the set. Only the filter words the keys set are zeroed: an attempt has a
    /// few inputs, and zeroing all 64 words cost more than drawing them.
    pub(super) fn clear(&mut self) {
        for &key in &self.keys {
            self.filter[Self::slot(key).0] = 0;
        }
        self.keys.clear();
        if !self.set.is_empty() {
            self.set.clear();
        }
    }

    /// The filter word and bit of `key`.
    #[inline]
    pub(super) fn slot(key: u64) -> (usize, u64) {
        let bit = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize;
        (bit / 64 % 64, 1 << (bit % 64))
    }

    /// Adds `key`; false when it was already there.
    #[inline]
    pub(super) fn insert(&mut self, key: u64) -> bool {
        if self.keys.len() >= Self::FILTERED {
            if self.set.is_empty() {
                self.set.extend(self.keys.iter().copied());
            }
            return self.set.insert(key) && {
                self.keys.push(key);
                true
            };
        }
        let (word, mask) = Self::slot(key);
        if self.filter[word] & mask != 0 && self.keys.contains(&key) {
            return false;
        }
        self.filter[word] |= mask;
        self.keys.push(key);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The filtered key set answers like a hash set, below and past the filter's limit,
    /// also on keys that collide in the filter (few distinct values, so bits repeat).
    #[test]
    fn input_keys_behave_as_a_set() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut keys = InputKeys::default();
        for (round, spread) in [(0, 50u64), (1, 5000), (2, 300), (3, 1 << 40)] {
            keys.clear();
            let mut reference = std::collections::HashSet::new();
            for _ in 0..600 {
                let key = rng.random_range(0..spread);
                assert_eq!(keys.insert(key), reference.insert(key), "round {round}");
            }
        }
    }
}
