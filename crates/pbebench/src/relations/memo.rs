//! The memo of relations by *shape*: both classifiers are invariant under renaming letters
//! one-to-one, so a thread keeps the relations of each shape of `(si, ti, sj)` it has
//! decided, and there are only a few thousand shapes whatever the alphabet.

use super::RelationMode;
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Shape (with the mode in the top bit) → `(feeds, bleeds)`.
pub(crate) type Memo = FxHashMap<u64, (bool, bool)>;

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Both relations of a pair of the given shape ([`shape_key`]): from the memo, or
/// `decide()` when the memo does not hold the shape.
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
    let value = decide();
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

/// Entries a thread's memo holds before it is emptied (about 20 MB).
const MEMO_CAPACITY: usize = 1 << 20;

/// The *shape* of the triple `(si, ti, sj)` as one number, when each side has at most 3
/// letters: every letter replaced by the rank of its first appearance in `si ti sj`.
///
/// Both classifiers are invariant under renaming letters one-to-one (the definitions
/// quantify over all strings; the formula only compares substrings), so triples of the
/// same shape have the same relations. There are only a few thousand shapes, so the memo
/// answers almost every query, whatever the alphabet.
pub(crate) fn shape_key(si: &str, ti: &str, sj: &str) -> Option<u64> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
