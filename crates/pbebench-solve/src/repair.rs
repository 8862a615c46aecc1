//! Local repair of near misses: hill climbing on a whole cascade by inserting a rule at
//! any position (alone, or together with moving one interacting rule across it),
//! replacing one rule, editing one letter of a rule that fires on an example still wrong,
//! deleting one, swapping two neighbours, merging two (directly or through a later rule),
//! or at the cap deleting one and inserting another, with candidate rules proposed from
//! what is still wrong. A move is scored by re-running only the examples it can change.
//! [`squeeze`] frees a slot at the cap by going one rule over it and back; [`perturb`]
//! kicks iterated local search.
//!
//! It fixes the typical beam failure: a rule that fixes little (so the beam postpones it)
//! but must come early, before later rules create more occurrences of its pattern.

use crate::encode::{apply_into, find, Encoded, FxHashSet, Sym, SymRule};
use crate::lev::{distance, hunks};
use crate::propose::{propose, propose_for};
use std::time::Instant;

/// The best state local search has reached so far: the start of the next perturbation.
#[derive(Debug, Clone)]
pub(crate) struct Elite {
    /// (total distance, rules used).
    pub key: (u32, usize),
    pub rules: Vec<SymRule>,
}

impl Elite {
    /// Keeps `rules` if it is at least as good as the elite (equal keys move it along the
    /// plateau, which diversifies the next perturbation).
    fn offer(elite: &mut Option<Elite>, key: Key, rules: &[SymRule]) {
        if elite.as_ref().is_none_or(|e| key <= e.key) {
            *elite = Some(Elite {
                key,
                rules: rules.to_vec(),
            });
        }
    }
}

/// Hill-climbs from `rules` with at most `cap` rules; returns a cascade reproducing every
/// example, if it finds one. The best state reached is offered to `elite`.
///
/// Each step tries every move ([`Step`]) and takes the best improving one; when none
/// improves, it frees a slot by a merge or a kick ([`stuck`]), at most [`MAX_KICKS`] times.
pub(crate) fn repair(
    enc: &Encoded,
    mut rules: Vec<SymRule>,
    cap: usize,
    deadline: Instant,
    max_steps: usize,
    evaluations: &mut u64,
    elite: &mut Option<Elite>,
) -> Option<Vec<SymRule>> {
    let mut ev = Evaluator::new(enc);
    let (mut best, mut finals) = ev.run(&rules);
    let mut climb_best: (Key, Vec<SymRule>) = (best, rules.clone());
    // Rules dropped by kicks, never put back (one would bring the climb straight back).
    let mut tabu: Vec<SymRule> = Vec::new();
    let mut kicks = 0;
    for _ in 0..max_steps {
        if best < climb_best.0 {
            climb_best = (best, rules.clone());
        }
        if best.0 == 0 {
            debug_assert_eq!(ev.run(&rules).0 .0, 0, "repair's bookkeeping is off");
            return Some(rules);
        }
        let mut step = Step::new(enc, &mut ev, &rules, &finals, &tabu, best, deadline);
        let moves = step.try_all_moves(cap);
        *evaluations += step.checked;
        let Ok(moves) = moves else {
            Elite::offer(elite, climb_best.0, &climb_best.1);
            return None;
        };
        let (key, next) = match step.best_move {
            Some(found) => found,
            None => match stuck(moves, &mut rules, &mut kicks, &mut tabu) {
                Some(key) => (key, std::mem::take(&mut rules)),
                None => break,
            },
        };
        best = key;
        rules = next;
        finals = ev.run(&rules).1;
    }
    if best < climb_best.0 {
        climb_best = (best, rules.clone());
    }
    Elite::offer(elite, climb_best.0, &climb_best.1);
    (best.0 == 0).then_some(rules)
}

/// The climb is stuck (no improving move): prefers a merge that frees a slot, if it costs
/// no more than the cheapest deletion; else kicks by deleting the rule whose loss hurts
/// least, and forbids putting it straight back. `rules` becomes the new cascade, whose key
/// is returned; `None` when the kicks are used up.
fn stuck(
    moves: Moves,
    rules: &mut Vec<SymRule>,
    kicks: &mut usize,
    tabu: &mut Vec<SymRule>,
) -> Option<Key> {
    let del_min = moves.deletions.iter().min().map(|d| d.0);
    if let Some((mkey, v, dropped)) = moves.merges.into_iter().min_by_key(|m| m.0) {
        if *kicks < MAX_KICKS && del_min.is_none_or(|d| mkey <= d) {
            *kicks += 1;
            tabu.push(dropped);
            *rules = v;
            return Some(mkey);
        }
    }
    if *kicks >= MAX_KICKS {
        return None;
    }
    // Each kick drops the next rule of `order`, so that repeated kicks do not lead back
    // to the same local optimum.
    let order = &moves.order;
    let &(_, key, p) = order.get(*kicks % KICK_CHOICES.min(order.len().max(1)))?;
    *kicks += 1;
    tabu.push(rules.remove(p));
    Some(key)
}

/// The deadline passed during a step.
struct OutOfTime;

/// A move found and scored by [`Step`]: its key and the cascade it makes.
type Move = (Key, Vec<SymRule>);

/// What a step learned besides its best move, for when it is stuck.
struct Moves {
    /// Each single deletion: its key and the rule's position.
    deletions: Vec<(Key, usize)>,
    /// Each merge: its key, the cascade, and the rule folded away.
    merges: Vec<(Key, Vec<SymRule>, SymRule)>,
    /// Deletions in the order kicks try them (see [`Step::deletion_order`]).
    order: Vec<(bool, Key, usize)>,
}

/// One step of the climb from the cascade `rules`: every move is scored against the best
/// key so far (`best`, the current cascade's, until a move beats it).
struct Step<'s, 'a> {
    enc: &'a Encoded,
    ev: &'s mut Evaluator<'a>,
    rules: &'s [SymRule],
    finals: &'s [Sym],
    tabu: &'s [SymRule],
    /// The strings after each prefix of `rules`.
    prefixes: Vec<Vec<Sym>>,
    /// The current cascade's key.
    best: Key,
    /// The best improving move so far.
    best_move: Option<Move>,
    deadline: Instant,
    /// Evaluations so far.
    checked: u64,
    /// When the clock is next read (see [`past_deadline`]).
    next_check: u64,
}

impl<'s, 'a> Step<'s, 'a> {
    fn new(
        enc: &'a Encoded,
        ev: &'s mut Evaluator<'a>,
        rules: &'s [SymRule],
        finals: &'s [Sym],
        tabu: &'s [SymRule],
        best: Key,
        deadline: Instant,
    ) -> Self {
        let prefixes = ev.prefixes(rules);
        Step {
            enc,
            ev,
            rules,
            finals,
            tabu,
            prefixes,
            best,
            best_move: None,
            deadline,
            checked: 0,
            next_check: 0,
        }
    }

    /// Tries every move kind in turn (the order decides between equal keys).
    fn try_all_moves(&mut self, cap: usize) -> Result<Moves, OutOfTime> {
        let per_pos = self.insert_or_replace(cap)?;
        let deletions = self.delete_or_swap();
        let merges = self.merge();
        let order = self.deletion_order(&deletions);
        self.retarget()?;
        let n = self.rules.len();
        if self.best_move.is_none() && n == cap && n > 0 && n <= SWAP_MAX_RULES {
            self.delete_and_insert(&order, &per_pos)?;
        }
        Ok(Moves {
            deletions,
            merges,
            order,
        })
    }

    /// Keeps the move of `key` (made by `make` only then) if it beats the best so far.
    fn consider(&mut self, key: Key, make: impl FnOnce() -> Vec<SymRule>) {
        if key < self.best_move.as_ref().map_or(self.best, |m| m.0) {
            self.best_move = Some((key, make()));
        }
    }

    /// Counts one evaluation; fails once the deadline has passed.
    fn tick(&mut self) -> Result<(), OutOfTime> {
        self.checked += 1;
        if past_deadline(self.checked, &mut self.next_check, self.deadline) {
            return Err(OutOfTime);
        }
        Ok(())
    }

    /// Insert a candidate anywhere (when a slot is free), alone or moving one interacting
    /// rule across it, or replace a rule by it. Returns the candidates of each position.
    fn insert_or_replace(&mut self, cap: usize) -> Result<Vec<Vec<SymRule>>, OutOfTime> {
        let (rules, n) = (self.rules, self.rules.len());
        let dists = self.ev.dists(self.finals);
        let cands = propose(self.enc, self.finals, &dists);
        let mut per_pos: Vec<Vec<SymRule>> = Vec::with_capacity(n + 1);
        for p in 0..=n {
            per_pos.push(self.candidates_at(p, &dists, &cands));
            for r in &per_pos[p] {
                if self.tabu.contains(r) {
                    continue;
                }
                self.tick()?;
                if n < cap {
                    let key = (self.ev.eval(&self.prefixes, rules, p, &[r], p), n + 1);
                    self.consider(key, || {
                        let mut v = rules.to_vec();
                        v.insert(p, r.clone());
                        v
                    });
                    self.insert_moving(p, r);
                }
                if p < n && rules[p] != *r {
                    let key = (self.ev.eval(&self.prefixes, rules, p, &[r], p + 1), n);
                    self.consider(key, || {
                        let mut v = rules.to_vec();
                        v[p] = r.clone();
                        v
                    });
                }
            }
        }
        Ok(per_pos)
    }

    /// The candidates at position `p`: those of the final strings (`cands`), and those of
    /// the examples still wrong at the end as they stand after `p` rules, also aimed
    /// through a later rule q: at the target with q undone (b_q -> a_q), so that q
    /// finishes the job (x -> Ase before e -> Iei gives x -> AsIei).
    fn candidates_at(&self, p: usize, dists: &[u32], cands: &[SymRule]) -> Vec<SymRule> {
        let (enc, prefixes) = (self.enc, &self.prefixes);
        let masked: Vec<u32> = prefixes[p]
            .iter()
            .zip(&enc.targets)
            .zip(dists)
            .map(|((s, t), &d)| u32::from(d > 0 && s != t))
            .collect();
        let mut here = candidates_for(enc, &prefixes[p], &masked, &self.rules[p..]);
        here.extend(cands.iter().cloned());
        here.sort_unstable();
        here.dedup();
        here
    }

    /// Insert `r` at `p` and move one interacting rule across it: an earlier rule q that
    /// writes letters of r's pattern goes after r, or a later rule that reads letters r
    /// writes goes before it.
    fn insert_moving(&mut self, p: usize, r: &SymRule) {
        let (rules, n) = (self.rules, self.rules.len());
        for q in 0..n {
            let interacts = if q < p {
                shares(&rules[q].b, &r.a)
            } else {
                shares(&rules[q].a, &r.b)
            };
            if !interacts {
                continue;
            }
            self.checked += 1;
            if q < p {
                let seg: Vec<&SymRule> = rules[q + 1..p].iter().chain([r, &rules[q]]).collect();
                let key = (self.ev.eval(&self.prefixes, rules, q, &seg, p), n + 1);
                self.consider(key, || {
                    let mut v = rules.to_vec();
                    let moved = v.remove(q);
                    v.insert(p - 1, r.clone());
                    v.insert(p, moved);
                    v
                });
            } else {
                let seg: Vec<&SymRule> = [&rules[q], r].into_iter().chain(&rules[p..q]).collect();
                let key = (self.ev.eval(&self.prefixes, rules, p, &seg, q + 1), n + 1);
                self.consider(key, || {
                    let mut v = rules.to_vec();
                    let moved = v.remove(q);
                    v.insert(p, r.clone());
                    v.insert(p, moved);
                    v
                });
            }
        }
    }

    /// Delete one rule, or swap two neighbours. Returns every deletion's key.
    fn delete_or_swap(&mut self) -> Vec<(Key, usize)> {
        let (rules, n) = (self.rules, self.rules.len());
        let mut deletions: Vec<(Key, usize)> = Vec::with_capacity(n);
        for p in 0..n {
            self.checked += 2;
            let key = (self.ev.eval(&self.prefixes, rules, p, &[], p + 1), n - 1);
            deletions.push((key, p));
            self.consider(key, || {
                let mut v = rules.to_vec();
                v.remove(p);
                v
            });
            if p + 1 < n {
                let swapped = [&rules[p + 1], &rules[p]];
                let key = (self.ev.eval(&self.prefixes, rules, p, &swapped, p + 2), n);
                self.consider(key, || {
                    let mut v = rules.to_vec();
                    v.swap(p, p + 1);
                    v
                });
            }
        }
        deletions
    }

    /// Merge: when a later rule q rewrites the output of rule p, fold q into p (a_p -> b_p
    /// with q applied) and drop q, which frees a slot at the cap. Returns every merge.
    fn merge(&mut self) -> Vec<(Key, Vec<SymRule>, SymRule)> {
        let (rules, n) = (self.rules, self.rules.len());
        let mut merges = Vec::new();
        for p in 0..n {
            for q in p + 1..n {
                let (rp, rq) = (&rules[p], &rules[q]);
                if find(&rp.b, &rq.a).is_none() {
                    continue;
                }
                let mut b = Vec::new();
                apply_into(&rp.b, &rq.a, &rq.b, &mut b);
                for merged in merged_replacements(self.enc, b, &rules[q + 1..]) {
                    if merged == rp.a {
                        continue;
                    }
                    let merged = SymRule {
                        a: rp.a.clone(),
                        b: merged,
                    };
                    let mut v = rules.to_vec();
                    v[p] = merged;
                    v.remove(q);
                    self.checked += 1;
                    let seg: Vec<&SymRule> = v[p..q].iter().collect();
                    let key = (self.ev.eval(&self.prefixes, rules, p, &seg, q + 1), n - 1);
                    self.consider(key, || v.clone());
                    merges.push((key, v, rq.clone()));
                }
            }
        }
        merges
    }

    /// Whether rule `j` fires on an example still wrong at the end.
    fn fires_on_wrong(&self, j: usize) -> bool {
        (0..self.finals.len()).any(|k| {
            self.finals[k] != self.enc.targets[k]
                && find(&self.prefixes[j][k], &self.rules[j].a).is_some()
        })
    }

    /// Deletions in the order the kicks and [`Step::delete_and_insert`] try them: first the
    /// rules that fire on an example still wrong (one of them is often the one to
    /// replace), then the cheapest to lose.
    fn deletion_order(&self, deletions: &[(Key, usize)]) -> Vec<(bool, Key, usize)> {
        let mut order: Vec<(bool, Key, usize)> = deletions
            .iter()
            .map(|&(key, j)| (!self.fires_on_wrong(j), key, j))
            .collect();
        order.sort_unstable();
        order
    }

    /// Re-target: a rule that fires on an example still wrong, with its replacement edited
    /// by one letter. The new letter is often one a later rule rewrites (`rkM -> WbZ` must
    /// become `rkM -> Wbh` when `h -> Zm` comes later), which the alignments with the
    /// final targets never propose. Its pattern is edited the same way when the edited
    /// pattern occurs at that point.
    fn retarget(&mut self) -> Result<(), OutOfTime> {
        let (rules, n) = (self.rules, self.rules.len());
        let firing: Vec<usize> = (0..n).filter(|&j| self.fires_on_wrong(j)).collect();
        for j in firing {
            let (a, b) = (&rules[j].a, &rules[j].b);
            let prefix = &self.prefixes[j];
            let edits: Vec<(Sym, Sym)> = one_letter_edits(self.enc, b)
                .into_iter()
                .map(|b2| (a.clone(), b2))
                .chain(
                    one_letter_edits(self.enc, a)
                        .into_iter()
                        .filter(|a2| prefix.iter().any(|s| find(s, a2).is_some()))
                        .map(|a2| (a2, b.clone())),
                )
                .collect();
            for (a, b) in edits {
                if a == b {
                    continue;
                }
                let r = SymRule { a, b };
                if self.tabu.contains(&r) {
                    continue;
                }
                self.tick()?;
                let key = (self.ev.eval(&self.prefixes, rules, j, &[&r], j + 1), n);
                self.consider(key, || {
                    let mut v = rules.to_vec();
                    v[j] = r;
                    v
                });
            }
        }
        Ok(())
    }

    /// At the cap with no improving move: delete one rule and insert a candidate elsewhere
    /// in one move (the two halves rarely improve on their own). Tries the deletions of
    /// the rules that fire on a wrong example and [`SWAP_DELETIONS`] more, in `order`.
    fn delete_and_insert(
        &mut self,
        order: &[(bool, Key, usize)],
        per_pos: &[Vec<SymRule>],
    ) -> Result<(), OutOfTime> {
        let (rules, n) = (self.rules, self.rules.len());
        let firing = order.iter().filter(|o| !o.0).count();
        for &(_, _, j) in order.iter().take(firing + SWAP_DELETIONS) {
            let mut rest = rules.to_vec();
            let removed = rest.remove(j);
            for p in 0..=rest.len() {
                let src = &per_pos[if p >= j { p + 1 } else { p }.min(n)];
                for r in src {
                    if *r == removed {
                        continue;
                    }
                    self.tick()?;
                    // rest[p..] is rules[p..] (p <= j, minus rule j) or rules[p + 1..].
                    let total = if p <= j {
                        let seg: Vec<&SymRule> = std::iter::once(r).chain(&rules[p..j]).collect();
                        self.ev.eval(&self.prefixes, rules, p, &seg, j + 1)
                    } else {
                        let seg: Vec<&SymRule> =
                            rules[j + 1..=p].iter().chain(std::iter::once(r)).collect();
                        self.ev.eval(&self.prefixes, rules, j, &seg, p + 1)
                    };
                    self.consider((total, n), || {
                        let mut v = rest.clone();
                        v.insert(p, r.clone());
                        v
                    });
                }
            }
            if self.best_move.is_some() {
                break;
            }
        }
        Ok(())
    }
}

/// Candidate rules for the strings `strings` (those after some prefix of a cascade) of the
/// examples where `masked` is non-zero: from their alignments with the targets, and aimed
/// through each rule of `later` (what follows): at the target with that rule undone
/// (b_q -> a_q), so that it finishes the job. Sorted, without repeats.
pub(crate) fn candidates_for(
    enc: &Encoded,
    strings: &[Sym],
    masked: &[u32],
    later: &[SymRule],
) -> Vec<SymRule> {
    let mut here = propose(enc, strings, masked);
    let mut through: FxHashSet<SymRule> = FxHashSet::default();
    let mut undone = Vec::new();
    for (k, &m) in masked.iter().enumerate() {
        if m == 0 {
            continue;
        }
        for q in later {
            if q.b.is_empty() || find(&enc.targets[k], &q.b).is_none() {
                continue;
            }
            apply_into(&enc.targets[k], &q.b, &q.a, &mut undone);
            propose_for(enc, &strings[k], &undone, &mut through);
        }
    }
    here.extend(through);
    here.sort_unstable();
    here.dedup();
    here
}

/// The replacements a merged rule may take: `b` itself when it fits the length cap, and
/// `b` with the output of one later rule undone (`T -> TEJ, T -> cgG` fold into `T -> LEJ`
/// when `L -> cgG` comes later), so that the later rule finishes the job.
fn merged_replacements(enc: &Encoded, b: Sym, later: &[SymRule]) -> Vec<Sym> {
    let mut out = Vec::new();
    for s in later {
        if s.b.is_empty() || find(&b, &s.b).is_none() {
            continue;
        }
        let mut undone = Vec::new();
        apply_into(&b, &s.b, &s.a, &mut undone);
        if !undone.is_empty() && undone.len() <= enc.max_len && !out.contains(&undone) {
            out.push(undone);
        }
    }
    if !b.is_empty() && b.len() <= enc.max_len && !out.contains(&b) {
        out.push(b);
    }
    out
}

/// Every non-empty string within the length cap one letter away from `side`: a letter
/// substituted, inserted or dropped (letters the rules may use only).
fn one_letter_edits(enc: &Encoded, side: &[u8]) -> Vec<Sym> {
    let letters = (0..enc.letters.len() as u8).filter(|&c| enc.allowed[c as usize]);
    let mut out = Vec::new();
    for i in 0..=side.len() {
        for c in letters.clone() {
            if i < side.len() && side[i] != c {
                let mut e = side.to_vec();
                e[i] = c;
                out.push(e);
            }
            if side.len() < enc.max_len && (i == 0 || side[i - 1] != c) {
                let mut e = side.to_vec();
                e.insert(i, c);
                out.push(e);
            }
        }
        if i < side.len() && side.len() > 1 && (i == 0 || side[i - 1] != side[i]) {
            let mut e = side.to_vec();
            e.remove(i);
            out.push(e);
        }
    }
    out
}

/// Frees a slot for a missing rule at the cap: climbs with one rule over the cap (so that
/// the best fixing rule goes in), then drops each rule of that cascade in turn and climbs
/// a few steps back within the cap. Reaches the restructurings where the missing rule and
/// the one to give way are far apart (the over-cap state shows which examples the dropped
/// rule served, and the climb after the drop re-covers them with the rules that remain).
pub(crate) fn squeeze(
    enc: &Encoded,
    rules: Vec<SymRule>,
    deadline: Instant,
    evaluations: &mut u64,
    elite: &mut Option<Elite>,
) -> Option<Vec<SymRule>> {
    let cap = enc.max_rules;
    let mut over: Option<Elite> = None;
    if let Some(fixed) = repair(
        enc,
        rules,
        cap + 1,
        deadline,
        SQUEEZE_OVER_STEPS,
        evaluations,
        &mut over,
    ) {
        if fixed.len() <= cap {
            return Some(fixed);
        }
    }
    let over = over?.rules;
    if over.len() <= cap {
        return None;
    }
    let mut ev = Evaluator::new(enc);
    ev.run(&over);
    let prefixes = ev.prefixes(&over);
    let mut order: Vec<(u32, usize)> = (0..over.len())
        .map(|j| (ev.eval(&prefixes, &over, j, &[], j + 1), j))
        .collect();
    order.sort_unstable();
    for (_, j) in order {
        if Instant::now() >= deadline {
            return None;
        }
        let mut v = over.clone();
        v.remove(j);
        if let Some(fixed) = repair(enc, v, cap, deadline, SQUEEZE_STEPS, evaluations, elite) {
            return Some(fixed);
        }
    }
    None
}

/// Climb steps over the cap in [`squeeze`].
const SQUEEZE_OVER_STEPS: usize = 3;
/// Climb steps back within the cap after each drop in [`squeeze`].
const SQUEEZE_STEPS: usize = 3;

/// `rules` with `k` rules dropped at random (a kick of iterated local search: repair
/// refills the freed slots, often with a different structure). `seed` advances.
pub(crate) fn perturb(rules: &[SymRule], k: usize, seed: &mut u64) -> Vec<SymRule> {
    let mut v = rules.to_vec();
    for _ in 0..k.min(v.len()) {
        let i = (next_random(seed) % v.len() as u64) as usize;
        v.remove(i);
    }
    v
}

/// SplitMix64: a deterministic stream of pseudo-random numbers from `state`.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// True when `x` and `y` have a symbol in common.
fn shares(x: &[u8], y: &[u8]) -> bool {
    x.iter().any(|c| y.contains(c))
}

/// Evaluations between two reads of the clock.
const CLOCK_EVERY: u64 = 64;

/// Whether `deadline` has passed, reading the clock only once `checked` evaluations reach
/// `next_check` (then moved [`CLOCK_EVERY`] further on).
fn past_deadline(checked: u64, next_check: &mut u64, deadline: Instant) -> bool {
    if checked < *next_check {
        return false;
    }
    *next_check = checked + CLOCK_EVERY;
    Instant::now() >= deadline
}

/// Perturbations allowed when the climb is stuck.
const MAX_KICKS: usize = 8;

/// Kicks cycle through this many of the cheapest deletions.
const KICK_CHOICES: usize = 3;

/// Cheapest deletions tried in a combined delete-and-insert move at the cap.
const SWAP_DELETIONS: usize = 4;

/// The combined move costs about `n` times an ordinary step, so only short caps use it
/// (at cap 20 it took the time the other moves needed).
const SWAP_MAX_RULES: usize = 64;

/// (total distance, rules used): smaller is better, so deleting a useless rule counts.
type Key = (u32, usize);

struct Evaluator<'a> {
    enc: &'a Encoded,
    scratch: Sym,
    work: Sym,
    dp: Vec<u32>,
    hunks: Vec<crate::lev::Hunk>,
    /// Per example: distance of the current cascade's final string to its target.
    cur_d: Vec<u32>,
    /// Sum of `cur_d`.
    cur_total: u32,
}

impl<'a> Evaluator<'a> {
    fn new(enc: &'a Encoded) -> Self {
        Evaluator {
            enc,
            scratch: Vec::new(),
            work: Vec::new(),
            dp: Vec::new(),
            hunks: Vec::new(),
            cur_d: Vec::new(),
            cur_total: 0,
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

    /// Key and final strings of `rules` from the inputs; they become the current cascade
    /// that [`Evaluator::eval`] compares against.
    fn run(&mut self, rules: &[SymRule]) -> (Key, Vec<Sym>) {
        let mut cur = self.enc.inputs.clone();
        for r in rules {
            self.apply(&mut cur, r);
        }
        self.cur_d = cur
            .iter()
            .zip(&self.enc.targets)
            .map(|(s, t)| distance(s, t))
            .collect();
        self.cur_total = self.cur_d.iter().sum();
        ((self.cur_total, rules.len()), cur)
    }

    /// Total distance of the cascade that is the current one (`rules`, last passed to
    /// [`Evaluator::run`]) with `rules[p..orig_end]` replaced by `new_seg`. `prefixes` are
    /// the current cascade's snapshots. Only examples that some rule of either segment
    /// matches after `p` rules can end differently, so only they are re-run.
    fn eval(
        &mut self,
        prefixes: &[Vec<Sym>],
        rules: &[SymRule],
        p: usize,
        new_seg: &[&SymRule],
        orig_end: usize,
    ) -> u32 {
        let mut total = i64::from(self.cur_total);
        let old_seg = &rules[p..orig_end];
        let rest = &rules[orig_end..];
        for (k, s) in prefixes[p].iter().enumerate() {
            let touched = new_seg.iter().any(|r| find(s, &r.a).is_some())
                || old_seg.iter().any(|r| find(s, &r.a).is_some());
            if !touched {
                continue;
            }
            self.work.clear();
            self.work.extend_from_slice(s);
            for r in new_seg.iter().copied().chain(rest) {
                if apply_into(&self.work, &r.a, &r.b, &mut self.scratch) {
                    std::mem::swap(&mut self.work, &mut self.scratch);
                }
            }
            let d = distance(&self.work, &self.enc.targets[k]);
            total += i64::from(d) - i64::from(self.cur_d[k]);
        }
        total as u32
    }
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
