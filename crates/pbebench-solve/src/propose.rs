//! Candidate rules for a state: windows of alignments of each wrong example with its
//! target (with context letters), and exact one-rule fixes of single examples.

use crate::encode::{find, Encoded, FxHashSet, Sym, SymRule};
use crate::lev::align;

/// Candidate rules from windows of an alignment of every wrong example with its
/// target, widened by context letters on either side.
pub(crate) fn propose(enc: &Encoded, strings: &[Sym], dists: &[u32]) -> Vec<SymRule> {
    let mut set: FxHashSet<SymRule> = FxHashSet::default();
    for (k, cur) in strings.iter().enumerate() {
        if dists[k] != 0 {
            propose_for(enc, cur, &enc.targets[k], &mut set);
        }
    }
    let mut out: Vec<SymRule> = set.into_iter().collect();
    out.sort_unstable();
    out
}

/// Adds the candidate rules that move `cur` towards `target` to `set`.
pub(crate) fn propose_for(enc: &Encoded, cur: &[u8], target: &[u8], set: &mut FxHashSet<SymRule>) {
    let max_len = enc.max_len;
    let set = &mut *set;
    {
        add_exact_fixes(enc, cur, target, set);
        for prefer_subst in [true, false] {
            let steps = align(cur, target, prefer_subst);
            for s in 0..steps.len() {
                if steps[s].matched {
                    continue;
                }
                let src_start = steps[s].i;
                let mut dst: Sym = Vec::new();
                for &step in &steps[s..] {
                    if let Some(c) = step.writes {
                        dst.push(c);
                    }
                    let src_end = step.i + usize::from(step.consumes);
                    if src_end - src_start > max_len || dst.len() > max_len {
                        break;
                    }
                    if step.matched {
                        continue;
                    }
                    add_with_context(enc, cur, src_start, src_end, &dst, set);
                }
            }
        }
    }
}

/// Adds every rule `a -> x` with `a` a substring of `cur` such that replacing all of
/// `a`'s occurrences by `x` turns `cur` into `target` exactly (e.g. `b -> vh` for
/// `bb -> vhvh`, which no single optimal alignment proposes).
fn add_exact_fixes(enc: &Encoded, cur: &[u8], target: &[u8], set: &mut FxHashSet<SymRule>) {
    let max_len = enc.max_len;
    let mut starts: Vec<usize> = Vec::new();
    for i in 0..cur.len() {
        for len in 1..=max_len.min(cur.len() - i) {
            let a = &cur[i..i + len];
            if find(cur, a) != Some(i) {
                continue; // the same pattern was tried at its first occurrence
            }
            starts.clear();
            let mut p = 0;
            while p + len <= cur.len() {
                if &cur[p..p + len] == a {
                    starts.push(p);
                    p += len;
                } else {
                    p += 1;
                }
            }
            let n = starts.len();
            let kept = cur.len() - n * len;
            if target.len() < kept || !(target.len() - kept).is_multiple_of(n) {
                continue;
            }
            let x_len = (target.len() - kept) / n;
            if x_len > 3 * max_len || !enc.all_allowed(a) {
                continue;
            }
            if let Some(x) = consistent_replacement(cur, target, &starts, len, x_len) {
                if x_len > max_len {
                    add_chain_macros(enc, cur, target, a, x, set);
                } else if x != a && enc.all_allowed(x) {
                    set.insert(SymRule {
                        a: a.to_vec(),
                        b: x.to_vec(),
                    });
                }
            }
        }
    }
}

/// When `a -> x` would fix an example but `x` is too long for one rule, and `x` repeats a
/// chunk `y`, proposes the first rule of a hidden chain: `a -> x'` where `x'` is `x` with
/// `y` written as one letter `m` (absent from the example), to be rewritten `m -> y` later
/// (e.g. `k -> bjb` then `b -> fya` for `k` becoming `fyajfya`).
fn add_chain_macros(
    enc: &Encoded,
    cur: &[u8],
    target: &[u8],
    a: &[u8],
    x: &[u8],
    set: &mut FxHashSet<SymRule>,
) {
    let max_len = enc.max_len;
    for y_len in 2..=max_len.min(x.len() / 2) {
        for start in 0..=x.len() - y_len {
            let y = &x[start..start + y_len];
            if find(x, y) != Some(start) {
                continue;
            }
            let mut shape: Vec<Option<u8>> = Vec::new(); // None marks where m goes
            let mut i = 0;
            let mut count = 0;
            while i < x.len() {
                if i + y_len <= x.len() && &x[i..i + y_len] == y {
                    shape.push(None);
                    i += y_len;
                    count += 1;
                } else {
                    shape.push(Some(x[i]));
                    i += 1;
                }
            }
            if count < 2 || shape.len() > max_len || !enc.all_allowed(y) {
                continue;
            }
            for m in 0..enc.letters.len() as u8 {
                if !enc.allowed[m as usize] || cur.contains(&m) || target.contains(&m) {
                    continue;
                }
                let b: Sym = shape.iter().map(|c| c.unwrap_or(m)).collect();
                if enc.all_allowed(&b) {
                    set.insert(SymRule { a: a.to_vec(), b });
                }
            }
        }
    }
}

/// Adds `cur[start..end] -> dst` with every context of `l` letters before and `r`
/// after that keeps both sides within the length cap.
fn add_with_context(
    enc: &Encoded,
    cur: &[u8],
    start: usize,
    end: usize,
    dst: &[u8],
    set: &mut FxHashSet<SymRule>,
) {
    let max_len = enc.max_len;
    let core = end - start;
    for l in 0..=start.min(max_len) {
        for r in 0..=(cur.len() - end).min(max_len) {
            let a_len = core + l + r;
            let b_len = dst.len() + l + r;
            if a_len == 0 {
                continue;
            }
            if a_len > max_len || b_len > max_len {
                break;
            }
            let a = &cur[start - l..end + r];
            let mut b = Vec::with_capacity(b_len);
            b.extend_from_slice(&cur[start - l..start]);
            b.extend_from_slice(dst);
            b.extend_from_slice(&cur[end..end + r]);
            if a == b.as_slice() || !enc.all_allowed(a) || !enc.all_allowed(&b) {
                continue;
            }
            set.insert(SymRule { a: a.to_vec(), b });
        }
    }
}

/// The `x` (of length `x_len`) such that `cur` with `a` (of length `a_len`, at `starts`)
/// replaced by `x` everywhere equals `target`, if there is one.
fn consistent_replacement<'t>(
    cur: &[u8],
    target: &'t [u8],
    starts: &[usize],
    a_len: usize,
    x_len: usize,
) -> Option<&'t [u8]> {
    let mut x: Option<&[u8]> = None;
    let (mut ci, mut ti) = (0, 0);
    for &p in starts {
        let seg = &cur[ci..p];
        if target.get(ti..ti + seg.len())? != seg {
            return None;
        }
        ti += seg.len();
        let here = target.get(ti..ti + x_len)?;
        match x {
            Some(prev) if prev != here => return None,
            _ => x = Some(here),
        }
        ti += x_len;
        ci = p + a_len;
    }
    (target.get(ti..)? == &cur[ci..]).then_some(x?)
}
