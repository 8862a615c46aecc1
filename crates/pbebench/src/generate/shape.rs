//! Shape keys of rules kept as one-byte letter codes, in two halves (a rule's own part,
//! made once, and its partner's, per pair), so that the generator finds a pair's relations
//! in the memo without turning codes into text.

/// [`shape_key`](crate::relations::shape_key) for rules whose letters are one-byte codes (never `0xFF`), as the
/// generator keeps them, in two halves: a rule's own part, made once per rule, and the
/// part of each rule it is paired with, made per pair with a few word operations.
#[derive(Debug, Clone, Copy)]
pub(super) struct ShapeHead {
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
    pub(super) fn of(pattern: &[u8], replacement: &[u8]) -> Option<Self> {
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
    pub(super) fn key(self, pattern: &[u8]) -> Option<u64> {
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

/// `key` followed by the shape bits of `side` (see `shape_of`), new letters appended to
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relations::shape_key;
    use proptest::prelude::*;

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
}
