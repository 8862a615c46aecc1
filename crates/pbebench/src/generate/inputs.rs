//! The inputs of an attempt and the pool held-out examples are chosen from: distinct
//! random inputs, drawn letters a word at a time and told apart by a key.

use super::bytes::PAD;
use super::draws::Draws;
use super::letters::{Letters, SEP_CODE};
use super::sampler::{Sampler, Scratch};
use super::GenParams;
use rustc_hash::FxHashSet;

/// An identity for an input: its bytes and length when it is at most 7 bytes long (exact;
/// the top bit is then clear), else a hash with the top bit set (a collision only costs a
/// redraw).
pub(super) fn input_key(s: &[u8]) -> u64 {
    if s.len() <= 7 {
        return s
            .iter()
            .enumerate()
            .fold((s.len() as u64) << 56, |key, (i, &b)| {
                key | (b as u64) << (8 * i)
            });
    }
    use std::hash::BuildHasher;
    1 << 63 | rustc_hash::FxBuildHasher.hash_one(s)
}

/// The visible inputs of an attempt, distinct, each of length ~ Unif{l_min..l_max} with
/// letters ~ Unif(Σ), joined in codes into `scratch.inputs`.
pub(super) fn draw_inputs(
    p: &GenParams,
    sampler: &Sampler,
    rng: &mut Draws,
    scratch: &mut Scratch,
) {
    let Scratch {
        seen,
        inputs: padded,
        ..
    } = scratch;
    let of_draw = &sampler.letters.of_draw;
    seen.clear();
    // Written in place into room for the longest inputs (and slack past them, at least a
    // word), so that no write checks for growth; a rejected duplicate is simply
    // overwritten.
    let inputs = &mut padded.bytes;
    inputs.clear();
    inputs.resize(p.examples * (p.input_len.1 + 1) + PAD, SEP_CODE);
    let mut end = 0;
    let mut count = 0;
    while count < p.examples {
        let start = end + (count > 0) as usize;
        let len = rng.input_len();
        let key = if len <= 7 {
            // Letters go into one word, which is also the input's key (see input_key),
            // written out with one 8-byte copy (the separator before it goes in once the
            // input is kept).
            let word = rng.letters_word(len, of_draw);
            inputs[start..start + 8].copy_from_slice(&word.to_le_bytes());
            word | (len as u64) << 56
        } else {
            for code in &mut inputs[start..start + len] {
                *code = sampler.letters.draw(rng);
            }
            input_key(&inputs[start..start + len])
        };
        debug_assert_eq!(key, input_key(&inputs[start..start + len]));
        if seen.insert(key) {
            if count > 0 {
                inputs[end] = SEP_CODE;
            }
            end = start + len;
            count += 1;
        }
    }
    padded.len = end;
}

/// `count` distinct random inputs, drawn as [`draw_inputs`] draws them, none of
/// whose [`input_key`]s is in `taken`: joined, and where each starts. Their keys are added
/// to `taken`.
pub(super) fn draw_pool(
    p: &GenParams,
    letters: &Letters,
    rng: &mut Draws,
    count: usize,
    taken: &mut FxHashSet<u64>,
) -> (Vec<u8>, Vec<usize>) {
    let mut joined = Vec::with_capacity(count * (p.input_len.1 + 1) + 8);
    let mut starts = Vec::with_capacity(count);
    while starts.len() < count {
        let before = joined.len();
        if !starts.is_empty() {
            joined.push(SEP_CODE);
        }
        let start = joined.len();
        let len = rng.input_len();
        let key = if len <= 7 {
            // The same draws as letter by letter (see Draws::letters_word), and the key.
            let word = rng.letters_word(len, &letters.of_draw);
            joined.extend_from_slice(&word.to_le_bytes()[..len]);
            word | (len as u64) << 56
        } else {
            for _ in 0..len {
                joined.push(letters.draw(rng));
            }
            input_key(&joined[start..])
        };
        debug_assert_eq!(key, input_key(&joined[start..]));
        if taken.insert(key) {
            starts.push(start);
        } else {
            joined.truncate(before);
        }
    }
    (joined, starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_identify_strings() {
        let key = |s: &str| input_key(s.as_bytes());
        assert_ne!(key("ab"), key("ba"));
        assert_ne!(key("a"), key("a\u{0}"));
        assert_ne!(key("é"), key("e"));
        assert_eq!(key("ʔaː"), key("ʔaː"));
        assert_ne!(key("abcdefg"), key("abcdefh"));
        assert_ne!(key("abcdefgh"), key("abcdefgi"));
        assert_eq!(key("abcdefgh"), key("abcdefgh"));
    }
}
