//! Replacing over the generator's one-byte letter codes, in buffers kept with slack so
//! that short pieces move a word at a time: kernels only the generator uses, built on the
//! same match finding as [`Rule::apply`](crate::Rule::apply).

use crate::rule::{leftmost_disjoint, naive, occurrences, replace_pieces};

/// Bytes of slack [`replace_padded`] needs after the end of its source, and leaves after
/// the end of its result.
pub(super) const PAD: usize = 16;

/// [`replace_into`] over one-byte symbols (the generator's letter codes), for strings kept
/// with slack: `src[..len]` is the string, and at least [`PAD`] more bytes of `src` (any
/// values) follow it. The result goes to `dst[..new]`, again followed by at least [`PAD`]
/// bytes (a reused buffer soon stops growing). Returns `new` when `pattern` (never empty)
/// occurred, None (and `dst` unspecified) otherwise.
///
/// In strings of at most 64 bytes (the lite presets' examples, joined) the slack lets
/// every piece be moved [`PAD`] bytes at a time ([`replace_at`]): the pieces are a few
/// bytes long, shorter than a call to `memcpy` for a length known only at run time is
/// worth. Longer strings have long pieces, which `memcpy` moves faster.
pub(super) fn replace_padded(
    src: &[u8],
    len: usize,
    pattern: &[u8],
    replacement: &[u8],
    dst: &mut Vec<u8>,
) -> Option<usize> {
    debug_assert!(src.len() >= len + PAD);
    if len <= 64 && naive(pattern) {
        let matches = leftmost_disjoint(occurrences(src, len, pattern), pattern.len());
        return (matches != 0)
            .then(|| replace_at(src, len, matches, pattern.len(), replacement, dst));
    }
    let changed = replace_bytes_noting(&src[..len], pattern, replacement, dst, |_| {});
    let new = dst.len();
    dst.resize(new + PAD, 0);
    changed.then_some(new)
}

/// [`replace_padded`] with the matches known: `src[..len]` (at most 64 bytes, [`PAD`] bytes
/// of slack after it) with the pattern, `pattern_len` bytes long, replaced by
/// `replacement` at each start in `matches` (disjoint, as [`leftmost_disjoint`] gives
/// them). Returns the length of the result in `dst`.
pub(super) fn replace_at(
    src: &[u8],
    len: usize,
    mut matches: u64,
    pattern_len: usize,
    replacement: &[u8],
    dst: &mut Vec<u8>,
) -> usize {
    // The replacement as one word, when it fits (always, in the generator).
    let word = (replacement.len() <= 8)
        .then(|| (replacement.iter().rev()).fold(0u64, |w, &r| w << 8 | r as u64));
    let (mut out, mut from) = (0, 0);
    while matches != 0 {
        let at = matches.trailing_zeros() as usize;
        matches &= matches - 1;
        out = put_padded(dst, out, &src[from..], at - from);
        out = match word {
            Some(word) => {
                room(dst, out + PAD);
                dst[out..out + 8].copy_from_slice(&word.to_le_bytes());
                out + replacement.len()
            }
            None => put_exact(dst, out, replacement),
        };
        from = at + pattern_len;
    }
    put_padded(dst, out, &src[from..], len - from)
}

/// Grows `dst` to at least `len` bytes.
#[inline(always)]
pub(super) fn room(dst: &mut Vec<u8>, len: usize) {
    if dst.len() < len {
        dst.resize(len, 0);
    }
}

/// Copies `from[..n]` to `dst[at..]`, [`PAD`] bytes at a time (so `from` must hold
/// `n + PAD` bytes), leaving [`PAD`] bytes of room after it; returns where it ends.
#[inline(always)]
pub(super) fn put_padded(dst: &mut Vec<u8>, at: usize, from: &[u8], n: usize) -> usize {
    room(dst, at + n + PAD);
    let mut k = 0;
    while k < n {
        dst[at + k..at + k + PAD].copy_from_slice(&from[k..k + PAD]);
        k += PAD;
    }
    at + n
}

/// Copies `piece` to `dst[at..]`, leaving [`PAD`] bytes of room after it; returns where it
/// ends.
pub(super) fn put_exact(dst: &mut Vec<u8>, at: usize, piece: &[u8]) -> usize {
    room(dst, at + piece.len() + PAD);
    dst[at..at + piece.len()].copy_from_slice(piece);
    at + piece.len()
}

/// [`replace_into`] over one-byte symbols, into `out` (cleared first), that also calls
/// `matched(at)` with the start of each match it replaces, in order.
#[inline]
pub(super) fn replace_bytes_noting(
    s: &[u8],
    pattern: &[u8],
    replacement: &[u8],
    out: &mut Vec<u8>,
    mut matched: impl FnMut(usize),
) -> bool {
    out.clear();
    let mut kept_to = 0;
    replace_pieces(s, pattern, |piece| match piece {
        Some((from, to)) => {
            out.extend_from_slice(&s[from..to]);
            kept_to = to;
        }
        None => {
            matched(kept_to);
            out.extend_from_slice(replacement);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::tests::symbols;

    /// `hay` with `pat` replaced by `rep` and whether it occurred, by both byte versions
    /// (which must agree): [`replace_bytes_noting`] and [`replace_padded`], the latter
    /// with garbage in the slack, into a fresh buffer and into a reused one.
    fn replace_symbols(hay: &[u8], pat: &[u8], rep: &[u8]) -> (Vec<u8>, bool) {
        let mut out = Vec::new();
        let changed = replace_bytes_noting(hay, pat, rep, &mut out, |_| {});
        let mut src = hay.to_vec();
        src.extend([0xAB; PAD]);
        for mut dst in [Vec::new(), vec![0xCD; 300]] {
            let padded = replace_padded(&src, hay.len(), pat, rep, &mut dst);
            assert_eq!(padded.is_some(), changed, "{hay:?} {pat:?} {rep:?}");
            if let Some(len) = padded {
                assert!(dst.len() >= len + PAD, "no slack left after the result");
                assert_eq!(dst[..len], out[..], "{hay:?} {pat:?} {rep:?}");
            }
        }
        (out, changed)
    }

    proptest::proptest! {
        /// Short strings (up to 64 bytes) are searched as bit sets, longer ones by scanning:
        /// both are `str::replace`, on either side of the boundary.
        #[test]
        fn byte_replaces_are_str_replace_at_any_length(
            hay in symbols(0..140),
            pat in symbols(1..11),
            rep in symbols(0..20),
        ) {
            let letter = |b: &u8| char::from_u32(0x100 + *b as u32).unwrap();
            let text = |bytes: &[u8]| bytes.iter().map(letter).collect::<String>();
            let (out, changed) = replace_symbols(&hay, &pat, &rep);
            proptest::prop_assert_eq!(text(&out), text(&hay).replace(&text(&pat), &text(&rep)));
            proptest::prop_assert_eq!(changed, text(&hay).contains(&text(&pat)));
        }
    }

    #[test]
    fn byte_replaces_are_str_replace_on_symbols() {
        // Symbols as bytes, 255 included; text as letters standing for them.
        let letter = |b: &u8| char::from_u32(0x100 + *b as u32).unwrap();
        let text = |bytes: &[u8]| bytes.iter().map(letter).collect::<String>();
        let hays: [&[u8]; 6] = [
            b"",
            b"a",
            b"aaaa",
            b"abababab",
            &[255, 0, 255, 255, 0],
            &[7; 70],
        ];
        let pats: [&[u8]; 6] = [b"a", b"aa", b"aba", &[255], &[255, 0], &[7; 9]];
        for hay in hays {
            for pat in pats {
                for rep in [&b""[..], b"x", &[255, 255], pat] {
                    let (out, changed) = replace_symbols(hay, pat, rep);
                    let expected = text(hay).replace(&text(pat), &text(rep));
                    assert_eq!(text(&out), expected, "{hay:?} {pat:?} {rep:?}");
                    assert_eq!(changed, text(hay).contains(&text(pat)));
                }
            }
        }
    }
}
