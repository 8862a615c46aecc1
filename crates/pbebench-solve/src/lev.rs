//! Levenshtein distance (the search heuristic) and one optimal alignment (where candidate
//! rules come from).

/// Levenshtein distance between two symbol strings (unit costs).
///
/// A common prefix and a common suffix change nothing (an optimal alignment matches them),
/// so only the middles go through the table: a state and its goal mostly differ in a few
/// places, and this is among the solver's hottest functions.
pub(crate) fn distance(s: &[u8], t: &[u8]) -> u32 {
    let pre = s.iter().zip(t).take_while(|(x, y)| x == y).count();
    let (s, t) = (&s[pre..], &t[pre..]);
    let suf = (s.iter().rev().zip(t.iter().rev()))
        .take_while(|(x, y)| x == y)
        .count();
    let (s, t) = (&s[..s.len() - suf], &t[..t.len() - suf]);
    if s.is_empty() || t.is_empty() {
        return s.len().max(t.len()) as u32;
    }
    let m = t.len();
    let mut row: [u32; 128] = [0; 128];
    if m >= row.len() {
        return distance_vec(s, t);
    }
    for (j, r) in row.iter_mut().enumerate().take(m + 1) {
        *r = j as u32;
    }
    for (i, &sc) in s.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i as u32 + 1;
        for j in 0..m {
            let up = row[j + 1];
            let cost = diag + u32::from(sc != t[j]);
            let v = cost.min(up + 1).min(row[j] + 1);
            diag = up;
            row[j + 1] = v;
        }
    }
    row[m]
}

fn distance_vec(s: &[u8], t: &[u8]) -> u32 {
    let m = t.len();
    let mut row: Vec<u32> = (0..=m as u32).collect();
    for (i, &sc) in s.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i as u32 + 1;
        for j in 0..m {
            let up = row[j + 1];
            let v = (diag + u32::from(sc != t[j])).min(up + 1).min(row[j] + 1);
            diag = up;
            row[j + 1] = v;
        }
    }
    row[m]
}

/// One step of an alignment of `s` (current string) with `t` (target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// Position in `s` where the step starts.
    pub i: usize,
    /// Whether the step consumes `s[i]`.
    pub consumes: bool,
    /// The target symbol the step writes, if any.
    pub writes: Option<u8>,
    /// True for a match (consumes `s[i]` and writes the same symbol).
    pub matched: bool,
}

/// The Levenshtein DP matrix of `s` against `t` into `d` (row-major, `(|s|+1) × (|t|+1)`):
/// `d[i * (|t|+1) + j]` is the distance of `s[..i]` to `t[..j]`.
fn edit_matrix(s: &[u8], t: &[u8], d: &mut Vec<u32>) {
    let (n, m) = (s.len(), t.len());
    let w = m + 1;
    d.clear();
    d.resize((n + 1) * w, 0);
    for (j, cell) in d.iter_mut().enumerate().take(m + 1) {
        *cell = j as u32;
    }
    for i in 1..=n {
        d[i * w] = i as u32;
        for j in 1..=m {
            let sub = d[(i - 1) * w + j - 1] + u32::from(s[i - 1] != t[j - 1]);
            let del = d[(i - 1) * w + j] + 1;
            let ins = d[i * w + j - 1] + 1;
            d[i * w + j] = sub.min(del).min(ins);
        }
    }
}

/// An optimal alignment of `s` with `t`. `prefer_subst` picks substitutions over
/// insert/delete pairs on ties; the other choice gives a second, different alignment.
pub(crate) fn align(s: &[u8], t: &[u8], prefer_subst: bool) -> Vec<Step> {
    let (n, m) = (s.len(), t.len());
    let w = m + 1;
    let mut d = Vec::new();
    edit_matrix(s, t, &mut d);
    let mut steps = Vec::with_capacity(n.max(m));
    let (mut i, mut j) = (n, m);
    while i > 0 || j > 0 {
        let here = d[i * w + j];
        let diag_ok =
            i > 0 && j > 0 && d[(i - 1) * w + j - 1] + u32::from(s[i - 1] != t[j - 1]) == here;
        let del_ok = i > 0 && d[(i - 1) * w + j] + 1 == here;
        let ins_ok = j > 0 && d[i * w + j - 1] + 1 == here;
        let matched = diag_ok && s[i - 1] == t[j - 1];
        if matched || (diag_ok && (prefer_subst || !(del_ok || ins_ok))) {
            i -= 1;
            j -= 1;
            steps.push(Step {
                i,
                consumes: true,
                writes: Some(t[j]),
                matched,
            });
        } else if ins_ok && (!del_ok || !prefer_subst) {
            j -= 1;
            steps.push(Step {
                i,
                consumes: false,
                writes: Some(t[j]),
                matched: false,
            });
        } else {
            debug_assert!(del_ok);
            i -= 1;
            steps.push(Step {
                i,
                consumes: true,
                writes: None,
                matched: false,
            });
        }
    }
    steps.reverse();
    steps
}

/// A maximal run of edits in an alignment, as (hash of its source and target text, the
/// fewest rules of side length `max_len` that could rewrite it alone).
pub(crate) type Hunk = (u64, u8);

/// The hunks of one optimal alignment of `s` with `t` into `out` (cleared first); returns
/// the distance. `buf` is scratch space for the DP matrix.
pub(crate) fn hunks(
    s: &[u8],
    t: &[u8],
    max_len: usize,
    buf: &mut Vec<u32>,
    out: &mut Vec<Hunk>,
) -> u32 {
    use std::hash::Hasher;
    out.clear();
    if s == t {
        return 0;
    }
    let (n, m) = (s.len(), t.len());
    let w = m + 1;
    edit_matrix(s, t, buf);
    let d = buf;
    // Walk back; a hunk is closed at each match (or the start).
    let (mut i, mut j) = (n, m);
    let (mut hi, mut hj) = (n, m); // end of the open hunk
    let close = |i: usize, j: usize, hi: usize, hj: usize, out: &mut Vec<Hunk>| {
        if hi > i || hj > j {
            let mut h = crate::encode::FxHasher::default();
            h.write(&s[i..hi]);
            h.write_u8(0xff);
            h.write(&t[j..hj]);
            let len = (hi - i).max(hj - j);
            out.push((h.finish(), len.div_ceil(max_len).clamp(1, 255) as u8));
        }
    };
    while i > 0 || j > 0 {
        let here = d[i * w + j];
        if i > 0 && j > 0 && s[i - 1] == t[j - 1] && d[(i - 1) * w + j - 1] == here {
            close(i, j, hi, hj, out);
            i -= 1;
            j -= 1;
            hi = i;
            hj = j;
        } else if i > 0 && j > 0 && d[(i - 1) * w + j - 1] + 1 == here {
            i -= 1;
            j -= 1;
        } else if j > 0 && d[i * w + j - 1] + 1 == here {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    close(0, 0, hi, hj, out);
    d[n * w + m]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(s: &[u8], t: &[u8]) -> u32 {
        if s.is_empty() {
            return t.len() as u32;
        }
        if t.is_empty() {
            return s.len() as u32;
        }
        let c = u32::from(s[0] != t[0]);
        (naive(&s[1..], &t[1..]) + c)
            .min(naive(&s[1..], t) + 1)
            .min(naive(s, &t[1..]) + 1)
    }

    /// The stripped table against the recursion (short strings) and the whole table
    /// (long ones), on random strings over three letters.
    #[test]
    fn distance_agrees_on_random_strings() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let word = |rng: &mut rand_chacha::ChaCha8Rng, hi: usize| -> Vec<u8> {
            let len = rng.random_range(0..=hi);
            (0..len).map(|_| rng.random_range(0..3u8)).collect()
        };
        for _ in 0..3_000 {
            let (s, t) = (word(&mut rng, 6), word(&mut rng, 6));
            assert_eq!(distance(&s, &t), naive(&s, &t), "{s:?} {t:?}");
        }
        for _ in 0..3_000 {
            let s = word(&mut rng, 150);
            let mut t = s.clone();
            // Mostly alike, as a state and its goal are.
            for _ in 0..3 {
                let k = rng.random_range(0..=t.len());
                t.insert(k, 2);
            }
            let u = word(&mut rng, 150);
            assert_eq!(distance(&s, &t), distance_vec(&s, &t), "{s:?} {t:?}");
            assert_eq!(distance(&s, &u), distance_vec(&s, &u), "{s:?} {u:?}");
        }
    }

    #[test]
    fn distance_agrees_with_recursion_and_alignment() {
        let words: [&[u8]; 7] = [b"", b"a", b"abc", b"cab", b"abab", b"bbbaa", b"xaby"];
        for s in words {
            for t in words {
                let d = distance(s, t);
                assert_eq!(d, naive(s, t), "{s:?} {t:?}");
                for prefer in [true, false] {
                    let steps = align(s, t, prefer);
                    let cost = steps.iter().filter(|st| !st.matched).count() as u32;
                    assert_eq!(cost, d);
                    let written: Vec<u8> = steps.iter().filter_map(|st| st.writes).collect();
                    assert_eq!(written, t);
                    assert_eq!(steps.iter().filter(|st| st.consumes).count(), s.len());
                    let (mut buf, mut hs) = (Vec::new(), Vec::new());
                    assert_eq!(hunks(s, t, 3, &mut buf, &mut hs), d);
                    assert_eq!(hs.is_empty(), d == 0);
                }
            }
        }
    }
}
