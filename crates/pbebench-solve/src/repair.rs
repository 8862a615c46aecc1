//! Local repair of near misses: hill climbing on a whole cascade by inserting a rule at
//! any position, replacing one rule, deleting one or swapping two neighbours, with
//! candidate rules proposed from what is still wrong at the end.
//!
//! It fixes the typical beam failure: a rule that fixes little (so the beam postpones it)
//! but must come early, before later rules create more occurrences of its pattern.

use crate::encode::{apply_into, find, Encoded, FxHashSet, Sym, SymRule};
use crate::lev::hunks;
use crate::propose::{propose, propose_for};
use std::time::Instant;

/// Hill-climbs from `rules`; returns a cascade reproducing every example, if it finds one.
pub(crate) fn repair(
    enc: &Encoded,
    mut rules: Vec<SymRule>,
    deadline: Instant,
    max_steps: usize,
    evaluations: &mut u64,
) -> Option<Vec<SymRule>> {
    let mut ev = Evaluator::new(enc);
    let (mut best, mut finals) = ev.run(&rules);
    let mut tabu: Option<SymRule> = None;
    let mut kicks = 0;
    for _ in 0..max_steps {
        if best.0 == 0 {
            debug_assert_eq!(ev.run(&rules).0 .0, 0, "repair's bookkeeping is off");
            return Some(rules);
        }
        let dists = ev.dists(&finals);
        let cands = propose(enc, &finals, &dists);
        let prefixes = ev.prefixes(&rules);
        let mut best_move: Option<(Key, Vec<SymRule>)> = None;
        let mut consider = |key: Key, make: &dyn Fn() -> Vec<SymRule>| {
            if key < best_move.as_ref().map_or(best, |m| m.0) {
                best_move = Some((key, make()));
            }
        };
        let n = rules.len();
        let mut checked = 0u64;
        let mut per_pos: Vec<Vec<SymRule>> = Vec::with_capacity(n + 1);
        // Insert a candidate anywhere (when a slot is free), or replace a rule by it. The
        // candidates at position p also come from the examples still wrong at the end, as
        // they stand after p rules.
        for p in 0..=n {
            let masked: Vec<u32> = prefixes[p]
                .iter()
                .zip(&enc.targets)
                .zip(&dists)
                .map(|((s, t), &d)| u32::from(d > 0 && s != t))
                .collect();
            let mut here = propose(enc, &prefixes[p], &masked);
            here.extend(cands.iter().cloned());
            // Through a later rule q: aim at the target with q undone (b_q -> a_q), so
            // that q finishes the job (x -> Ase before e -> Iei gives x -> AsIei).
            let mut through: FxHashSet<SymRule> = FxHashSet::default();
            let mut undone = Vec::new();
            for (k, &m) in masked.iter().enumerate() {
                if m == 0 {
                    continue;
                }
                for q in &rules[p..] {
                    if q.b.is_empty() || find(&enc.targets[k], &q.b).is_none() {
                        continue;
                    }
                    apply_into(&enc.targets[k], &q.b, &q.a, &mut undone);
                    propose_for(enc, &prefixes[p][k], &undone, &mut through);
                }
            }
            here.extend(through);
            here.sort_unstable();
            here.dedup();
            per_pos.push(here);
            let here = &per_pos[p];
            for r in here {
                if tabu.as_ref() == Some(r) {
                    continue;
                }
                checked += 1;
                if checked.is_multiple_of(64) && Instant::now() >= deadline {
                    *evaluations += checked;
                    return None;
                }
                if n < enc.max_rules {
                    let key = (ev.total_with(&prefixes[p], Some(r), &rules[p..]), n + 1);
                    consider(key, &|| {
                        let mut v = rules.clone();
                        v.insert(p, r.clone());
                        v
                    });
                }
                if p < n && rules[p] != *r {
                    let key = (ev.total_with(&prefixes[p], Some(r), &rules[p + 1..]), n);
                    consider(key, &|| {
                        let mut v = rules.clone();
                        v[p] = r.clone();
                        v
                    });
                }
            }
        }
        let mut deletions: Vec<(Key, usize)> = Vec::with_capacity(n);
        for p in 0..n {
            checked += 2;
            let key = (ev.total_with(&prefixes[p], None, &rules[p + 1..]), n - 1);
            deletions.push((key, p));
            consider(key, &|| {
                let mut v = rules.clone();
                v.remove(p);
                v
            });
            if p + 1 < n {
                let mut work = prefixes[p].clone();
                ev.apply(&mut work, &rules[p + 1]);
                let key = (ev.total_with(&work, Some(&rules[p]), &rules[p + 2..]), n);
                consider(key, &|| {
                    let mut v = rules.clone();
                    v.swap(p, p + 1);
                    v
                });
            }
        }
        // Merge: when a later rule q rewrites the output of rule p, fold q into p
        // (a_p -> b_p with q applied) and drop q, which frees a slot at the cap.
        let mut merges: Vec<(Key, Vec<SymRule>, SymRule)> = Vec::new();
        for p in 0..n {
            for q in p + 1..n {
                let (rp, rq) = (&rules[p], &rules[q]);
                if find(&rp.b, &rq.a).is_none() {
                    continue;
                }
                let mut b = Vec::new();
                apply_into(&rp.b, &rq.a, &rq.b, &mut b);
                if b.is_empty() || b == rp.a || b.len() > enc.max_len {
                    continue;
                }
                let merged = SymRule { a: rp.a.clone(), b };
                let mut v = rules.clone();
                v[p] = merged.clone();
                v.remove(q);
                checked += 1;
                let key = (
                    ev.total_with(&prefixes[p], Some(&merged), &v[p + 1..]),
                    n - 1,
                );
                consider(key, &|| v.clone());
                merges.push((key, v, rq.clone()));
            }
        }
        // At the cap with no improving move: delete one rule and insert a candidate
        // elsewhere in one move (the two halves rarely improve on their own).
        if best_move.is_none() && n == enc.max_rules && n > 0 && n <= SWAP_MAX_RULES {
            let mut order = deletions.clone();
            order.sort_unstable();
            'swap: for &(_, j) in order.iter().take(SWAP_DELETIONS) {
                let mut rest = rules.clone();
                let removed = rest.remove(j);
                let pre = ev.prefixes(&rest);
                for p in 0..=rest.len() {
                    let src = &per_pos[if p >= j { p + 1 } else { p }.min(n)];
                    for r in src {
                        if *r == removed {
                            continue;
                        }
                        checked += 1;
                        if checked.is_multiple_of(64) && Instant::now() >= deadline {
                            *evaluations += checked;
                            return None;
                        }
                        let key = (ev.total_with(&pre[p], Some(r), &rest[p..]), n);
                        if key < best_move.as_ref().map_or(best, |m| m.0) {
                            let mut v = rest.clone();
                            v.insert(p, r.clone());
                            best_move = Some((key, v));
                        }
                    }
                }
                if best_move.is_some() {
                    break 'swap;
                }
            }
        }
        *evaluations += checked;
        let Some((key, next)) = best_move else {
            // Stuck: prefer a merge that frees a slot, if it costs no more than the
            // cheapest deletion.
            let del_min = deletions.iter().min().map(|d| d.0);
            if let Some((mkey, v, dropped)) = merges.into_iter().min_by_key(|m| m.0) {
                if kicks < MAX_KICKS && del_min.is_none_or(|d| mkey <= d) {
                    kicks += 1;
                    tabu = Some(dropped);
                    best = mkey;
                    rules = v;
                    finals = ev.run(&rules).1;
                    continue;
                }
            }
            // Stuck: kick by deleting the rule whose loss hurts least (freeing a slot),
            // and forbid putting it straight back.
            if kicks >= MAX_KICKS {
                return None;
            }
            let &(key, p) = deletions.iter().min()?;
            kicks += 1;
            tabu = Some(rules.remove(p));
            best = key;
            finals = ev.run(&rules).1;
            continue;
        };
        tabu = None;
        best = key;
        rules = next;
        finals = ev.run(&rules).1;
    }
    (best.0 == 0).then_some(rules)
}

/// Perturbations allowed when the climb is stuck.
const MAX_KICKS: usize = 4;

/// Cheapest deletions tried in a combined delete-and-insert move at the cap.
const SWAP_DELETIONS: usize = 4;

/// The combined move costs about `n` times an ordinary step, so only short caps use it
/// (at cap 20 it took the time the other moves needed).
const SWAP_MAX_RULES: usize = 8;

/// (total distance, rules used): smaller is better, so deleting a useless rule counts.
type Key = (u32, usize);

struct Evaluator<'a> {
    enc: &'a Encoded,
    scratch: Sym,
    work: Vec<Sym>,
    dp: Vec<u32>,
    hunks: Vec<crate::lev::Hunk>,
}

impl<'a> Evaluator<'a> {
    fn new(enc: &'a Encoded) -> Self {
        Evaluator {
            enc,
            scratch: Vec::new(),
            work: Vec::new(),
            dp: Vec::new(),
            hunks: Vec::new(),
        }
    }

    /// The strings after each prefix of `rules` (`rules.len() + 1` snapshots).
    fn prefixes(&mut self, rules: &[SymRule]) -> Vec<Vec<Sym>> {
        let mut out = Vec::with_capacity(rules.len() + 1);
        let mut cur = self.enc.inputs.clone();
        out.push(cur.clone());
        for r in rules {
            self.apply(&mut cur, r);
            out.push(cur.clone());
        }
        out
    }

    fn apply(&mut self, strings: &mut [Sym], r: &SymRule) {
        for s in strings.iter_mut() {
            if find(s, &r.a).is_some() {
                apply_into(s, &r.a, &r.b, &mut self.scratch);
                std::mem::swap(s, &mut self.scratch);
            }
        }
    }

    fn dists(&mut self, strings: &[Sym]) -> Vec<u32> {
        strings
            .iter()
            .zip(&self.enc.targets)
            .map(|(s, t)| hunks(s, t, self.enc.max_len, &mut self.dp, &mut self.hunks))
            .collect()
    }

    fn total(&mut self, strings: &[Sym]) -> u32 {
        self.dists(strings).iter().sum()
    }

    /// Key and final strings of `rules` from the inputs.
    fn run(&mut self, rules: &[SymRule]) -> (Key, Vec<Sym>) {
        let mut cur = self.enc.inputs.clone();
        for r in rules {
            self.apply(&mut cur, r);
        }
        ((self.total(&cur), rules.len()), cur)
    }

    /// Total distance after: the snapshot `start`, then `first` (if any), then `rest`.
    fn total_with(&mut self, start: &[Sym], first: Option<&SymRule>, rest: &[SymRule]) -> u32 {
        let mut work = std::mem::take(&mut self.work);
        work.clone_from_slice_or_extend(start);
        if let Some(r) = first {
            self.apply(&mut work, r);
        }
        for r in rest {
            self.apply(&mut work, r);
        }
        let total = self.total(&work);
        self.work = work;
        total
    }
}

trait CloneFrom {
    fn clone_from_slice_or_extend(&mut self, src: &[Sym]);
}

impl CloneFrom for Vec<Sym> {
    fn clone_from_slice_or_extend(&mut self, src: &[Sym]) {
        self.resize(src.len(), Vec::new());
        for (d, s) in self.iter_mut().zip(src) {
            d.clear();
            d.extend_from_slice(s);
        }
    }
}
