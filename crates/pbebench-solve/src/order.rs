//! Exact re-ordering: a sequence of rules drawn from a pool, each at most once, under
//! which every example reaches its output.
//!
//! A beam ranks orders by how close they bring the examples, so it loses the order in
//! which a rule that helps nothing yet must come early; given the hidden cascade's own
//! rules in any order, the beam ordered only 5 of 18 length-20 cascades
//! (`benches/solve/probe.md`). This search is a depth-first walk over sequences that
//! never misses a fit within its budget: every pruning below is sound.
//!
//! Its twin in the core, `pbebench::reorder::solve_order` (the reordering task's
//! baseline), searches permutations of *every* rule given, with one pruning (a letter
//! the output lacks must be in an unused pattern) and no deadline; this walk takes any
//! subset of the pool and prunes more. One walk serving both would live in the core,
//! with a switch for "every rule once"; the baseline's first order and node counts, and
//! so its published figures, would change with it, so it is left for a change that
//! re-measures them.
//!
//! - A rule that changes no example where it would go is not put there (the sequence
//!   without it is walked too).
//! - Two rules over disjoint letters, neither deleting, commute: after rule `j`, a rule
//!   `i < j` of that kind is not tried (the order `i, j` is).
//! - From a state, the rules left can only do so much (`Walk::reachable`), example by
//!   example: of the rules left, only those may ever fire whose pattern's letters the
//!   example holds or another such rule writes. A letter none of their patterns holds
//!   stays where it is, so those letters, read in order, must be a subsequence of the
//!   output's; a letter none of their replacements holds is never written again, so the
//!   output cannot hold more of it than the state does; and a state that none of them
//!   fires on is final.
//! - A state already reached with the same rules left, and found dead, is not walked
//!   again.

use crate::encode::{apply_into, find, FxHashSet, FxHasher, Sym, SymRule};
use std::hash::Hasher;
use std::time::Instant;

/// The letters of a symbol string, as a 256-bit set.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Letters([u64; 4]);

impl Letters {
    fn of(s: &[u8]) -> Self {
        let mut set = Letters::default();
        for &c in s {
            set.0[(c >> 6) as usize] |= 1 << (c & 63);
        }
        set
    }
    fn has(&self, c: u8) -> bool {
        self.0[(c >> 6) as usize] >> (c & 63) & 1 == 1
    }
    fn union(self, other: Letters) -> Self {
        Letters(std::array::from_fn(|k| self.0[k] | other.0[k]))
    }
    fn meets(&self, other: &Letters) -> bool {
        (0..4).any(|k| self.0[k] & other.0[k] != 0)
    }
    fn within(&self, other: &Letters) -> bool {
        (0..4).all(|k| self.0[k] & !other.0[k] == 0)
    }
}

/// A sequence of rules from `pool` (each at most once, at most `cap` of them) that takes
/// every input to its target, if the walk finds one within `max_nodes` rule applications
/// (each to every example) and before `deadline`. `pool`'s order is the order children
/// are tried in: put the likeliest sequence first. Also returns the rule applications
/// spent. No intermediate string may grow past sixteen times the longest target (at
/// least 256 letters), the bound the probing loop holds its candidates to: a pool of
/// untrusted rules cannot exhaust memory.
pub(crate) fn order(
    pool: &[SymRule],
    inputs: &[Sym],
    targets: &[Sym],
    cap: usize,
    max_nodes: u64,
    deadline: Instant,
) -> (Option<Vec<SymRule>>, u64) {
    if pool.len() > 64 || inputs.len() != targets.len() {
        return (None, 0);
    }
    let longest = targets.iter().map(Vec::len).max().unwrap_or(0);
    let mut walk = Walk {
        pool,
        targets,
        cap,
        max_len: (16 * longest).max(256),
        max_nodes,
        deadline,
        nodes: 0,
        next_clock: 0,
        late: false,
        dead: FxHashSet::default(),
        pattern_letters: pool.iter().map(|r| Letters::of(&r.a)).collect(),
        written_letters: pool.iter().map(|r| Letters::of(&r.b)).collect(),
        chosen: Vec::new(),
    };
    let start: Vec<Sym> = inputs.to_vec();
    let found = walk.visit(&start, 0, None).then(|| {
        (walk.chosen.iter())
            .map(|&k| pool[k].clone())
            .collect::<Vec<_>>()
    });
    (found, walk.nodes)
}

struct Walk<'a> {
    pool: &'a [SymRule],
    targets: &'a [Sym],
    cap: usize,
    /// The longest intermediate string allowed.
    max_len: usize,
    max_nodes: u64,
    deadline: Instant,
    nodes: u64,
    /// When the clock is read next, in rule applications, and whether it was late.
    next_clock: u64,
    late: bool,
    /// (rules used, hash of the state) of states found dead.
    dead: FxHashSet<(u64, u64)>,
    pattern_letters: Vec<Letters>,
    written_letters: Vec<Letters>,
    /// The rules of the current sequence, by index in the pool.
    chosen: Vec<usize>,
}

impl Walk<'_> {
    /// Whether a fit extends the current sequence (`used`: its rules; `last`: its last
    /// rule); on `true`, `chosen` holds the fit.
    fn visit(&mut self, state: &[Sym], used: u64, last: Option<usize>) -> bool {
        if state.iter().zip(self.targets).all(|(s, t)| s == t) {
            return true;
        }
        if self.chosen.len() >= self.cap || self.out_of_budget() {
            return false;
        }
        let key = (used, hash_of(state));
        if self.dead.contains(&key) || !self.reachable(state, used) {
            return false;
        }
        let mut next: Vec<Sym> = vec![Vec::new(); state.len()];
        for k in (0..self.pool.len()).filter(|&k| used >> k & 1 == 0) {
            if last.is_some_and(|j| k < j && self.commute(k, j)) {
                continue;
            }
            self.nodes += 1;
            let rule = &self.pool[k];
            let mut changed = false;
            for (s, out) in state.iter().zip(next.iter_mut()) {
                changed |= apply_into(s, &rule.a, &rule.b, out);
            }
            if !changed || next.iter().any(|s| s.len() > self.max_len) {
                continue;
            }
            self.chosen.push(k);
            if self.visit(&next, used | 1 << k, Some(k)) {
                return true;
            }
            self.chosen.pop();
            if self.out_of_budget() {
                return false;
            }
        }
        self.dead.insert(key);
        false
    }

    /// The node budget is spent, or the deadline passed (the clock is read every 256
    /// rule applications).
    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.max_nodes {
            return true;
        }
        if self.nodes >= self.next_clock {
            self.next_clock = self.nodes + 256;
            self.late = Instant::now() >= self.deadline;
        }
        self.late
    }

    /// Rules `i` and `j` commute on every string: their letters are disjoint and neither
    /// deletes (a deletion can join two letters into another rule's pattern).
    fn commute(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.pool[i], &self.pool[j]);
        let letters = |k: usize| self.pattern_letters[k].union(self.written_letters[k]);
        !a.b.is_empty() && !b.b.is_empty() && !letters(i).meets(&letters(j))
    }

    /// Whether the rules left (not in `used`) may still take every example of `state` to
    /// its target, by the tests of the module documentation.
    fn reachable(&self, state: &[Sym], used: u64) -> bool {
        state.iter().zip(self.targets).all(|(s, t)| {
            if s == t {
                return true;
            }
            // The rules left that may ever fire on this example: those whose pattern's
            // letters it holds, or some rule that may fire writes.
            let here = Letters::of(s);
            let (mut live, mut present) = (0u64, here);
            loop {
                let before = live;
                for k in (0..self.pool.len()).filter(|&k| (used | before) >> k & 1 == 0) {
                    if self.pattern_letters[k].within(&present) {
                        live |= 1 << k;
                        present = present.union(self.written_letters[k]);
                    }
                }
                if live == before {
                    break;
                }
            }
            let live = || (0..self.pool.len()).filter(move |&k| live >> k & 1 == 1);
            let fires = live().any(|k| {
                self.pattern_letters[k].within(&here) && find(s, &self.pool[k].a).is_some()
            });
            let (mut patterns, mut written) = (Letters::default(), Letters::default());
            for k in live() {
                patterns = patterns.union(self.pattern_letters[k]);
                written = written.union(self.written_letters[k]);
            }
            fires && stays_within(s, t, &patterns) && never_written(s, t, &written)
        })
    }
}

/// The letters of `s` that no pattern left holds, in order, are a subsequence of those
/// of `t`.
fn stays_within(s: &[u8], t: &[u8], patterns: &Letters) -> bool {
    let mut rest = t.iter().filter(|&&c| !patterns.has(c));
    s.iter()
        .filter(|&&c| !patterns.has(c))
        .all(|&c| rest.any(|&d| d == c))
}

/// `t` holds no more of each letter that no replacement left holds than `s` does.
fn never_written(s: &[u8], t: &[u8], written: &Letters) -> bool {
    let mut count = [0i32; 256];
    for &c in t.iter().filter(|&&c| !written.has(c)) {
        count[c as usize] += 1;
    }
    for &c in s.iter().filter(|&&c| !written.has(c)) {
        count[c as usize] -= 1;
    }
    count.iter().all(|&n| n <= 0)
}

fn hash_of(state: &[Sym]) -> u64 {
    let mut h = FxHasher::default();
    for s in state {
        h.write(s);
    }
    h.finish()
}

#[cfg(test)]
mod tests;
