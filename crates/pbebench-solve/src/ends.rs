//! Searching from both ends, coarsely (issue 40): when the forward search finds no fit, a
//! last rule is undone from the outputs (a suffix built backward) and the rest is solved
//! forward under one rule fewer.
//!
//! A last rule `m → w` is undone exactly: `m` is a letter no output holds, so that the
//! goal strings `G` (every output with each `w` written `m`) give back the outputs under
//! `replace(m, w)`, whatever the forward part does. The undos tried are those that bring
//! the goals closest to the inputs (Levenshtein, summed over the examples): where the
//! hidden cascade writes `OyS` through a letter `W` (`l → Wq`, `W → OyS`), the forward
//! search alone folds the chain into `l → OyS` and spends rules patching what `W`'s other
//! occurrences needed; undone, `OyS` becomes `W` again and the chain is one rule shorter.
//!
//! An experiment behind its own name (`beam-ends`): the node cap and the time are split
//! between the plain search (half) and the peeled ones.

use crate::simplify::PriorSolver;
use crate::{Budget, Problem, SolveOutcome, SolveStats, Solver, Status};
use pbebench::{Cascade, Rule};
use std::collections::BTreeSet;
use std::time::Instant;

/// The default solver, then, when it finds no fit, the same on problems with one last
/// rule undone (see the module documentation).
#[derive(Debug, Clone)]
pub struct EndsSolver {
    /// The forward search.
    pub inner: PriorSolver,
    /// Undone last rules tried, the closest first.
    pub tries: usize,
    /// Undos chained greedily on the last try (1: one rule undone).
    pub depth: usize,
}

impl Default for EndsSolver {
    fn default() -> Self {
        EndsSolver {
            inner: PriorSolver::default(),
            tries: 3,
            depth: 2,
        }
    }
}

impl Solver for EndsSolver {
    fn name(&self) -> &'static str {
        "beam-ends"
    }

    fn search(&self, problem: &Problem, budget: &Budget, deadline: Instant) -> SolveOutcome {
        let split = |parts: u64, deadline: Instant| {
            let now = Instant::now();
            let time = deadline.saturating_duration_since(now) / parts as u32;
            let nodes = budget.max_nodes.map(|n| (n / parts).max(1));
            (
                Budget {
                    time_limit: time,
                    max_nodes: nodes,
                },
                now + time,
            )
        };
        let (half, until) = split(2, deadline);
        let mut outcome = self.inner.search(problem, &half, until);
        if outcome.status == Status::Solved && outcome.cascade.is_some() {
            return outcome;
        }
        if problem.max_rules() < 2 {
            return outcome;
        }
        let peels = peels(problem, self.tries, self.depth);
        let n = peels.len() as u64;
        for (k, (suffix, goals)) in peels.into_iter().enumerate() {
            let (share, until) = split(n - k as u64, deadline);
            if Instant::now() >= deadline {
                break;
            }
            let Ok(sub) = Problem::new(
                problem.inputs().to_vec(),
                goals,
                problem.max_rules() - suffix.len(),
                problem.max_rule_len(),
                &problem.alphabet().iter().collect::<String>(),
            ) else {
                continue;
            };
            let found = self.inner.search(&sub, &share, until);
            add_stats(&mut outcome.stats, &found.stats);
            if let (Status::Solved, Some(prefix)) = (&found.status, found.cascade) {
                let whole: Cascade = prefix.rules().iter().cloned().chain(suffix).collect();
                if problem.check(&whole).is_ok() {
                    outcome.status = Status::Solved;
                    outcome.cascade = Some(whole);
                    outcome.partial = None;
                    return outcome;
                }
            }
        }
        outcome
    }
}

fn add_stats(total: &mut SolveStats, one: &SolveStats) {
    total.nodes_expanded += one.nodes_expanded;
    total.candidates_scored += one.candidates_scored;
    total.hit_limit |= one.hit_limit;
    total.rounds += one.rounds;
    total.max_width = total.max_width.max(one.max_width);
}

/// Suffixes to peel and the goals they leave: the `tries` single undos that bring the goals
/// closest to the inputs, the last of them chained greedily up to `depth` undos.
fn peels(problem: &Problem, tries: usize, depth: usize) -> Vec<(Vec<Rule>, Vec<String>)> {
    let inputs = problem.inputs();
    let outputs = problem.outputs().to_vec();
    let firsts = undos(problem, inputs, &outputs, tries);
    let mut out = Vec::new();
    for (k, (rule, goals)) in firsts.into_iter().enumerate() {
        let mut suffix = vec![rule];
        let mut goals = goals;
        if k + 1 == tries {
            while suffix.len() < depth && suffix.len() + 1 < problem.max_rules() {
                let Some((r, g)) = undos(problem, inputs, &goals, 1).into_iter().next() else {
                    break;
                };
                suffix.insert(0, r);
                goals = g;
            }
        }
        out.push((suffix, goals));
    }
    out
}

/// The `count` undone last rules `m → w` (with the goals they leave) that bring `goals`
/// closest to `inputs`, closer than `goals` are; `w` of 1 to the rule length cap letters,
/// held by at least two goals, `m` a letter of the alphabet that no goal holds.
fn undos(
    problem: &Problem,
    inputs: &[String],
    goals: &[String],
    count: usize,
) -> Vec<(Rule, Vec<String>)> {
    let held: BTreeSet<char> = goals.iter().flat_map(|s| s.chars()).collect();
    let free: Vec<char> = (problem.alphabet().iter().copied())
        .filter(|c| !held.contains(c))
        .collect();
    if free.is_empty() {
        return Vec::new();
    }
    let ins: Vec<Vec<char>> = inputs.iter().map(|s| s.chars().collect()).collect();
    let outs: Vec<Vec<char>> = goals.iter().map(|s| s.chars().collect()).collect();
    let base: Vec<u32> = ins.iter().zip(&outs).map(|(i, o)| lev(i, o)).collect();
    let total: u32 = base.iter().sum();
    // Chunks held by two goals at least.
    let mut chunks: BTreeSet<Vec<char>> = BTreeSet::new();
    let mut twice: BTreeSet<Vec<char>> = BTreeSet::new();
    for o in &outs {
        let mut mine: BTreeSet<&[char]> = BTreeSet::new();
        for len in 1..=problem.max_rule_len() {
            for w in o.windows(len) {
                mine.insert(w);
            }
        }
        for w in mine {
            if !chunks.insert(w.to_vec()) {
                twice.insert(w.to_vec());
            }
        }
    }
    let score = |w: &[char], m: char| -> u32 {
        let mut sum = total;
        for (k, o) in outs.iter().enumerate() {
            if !o.windows(w.len()).any(|x| x == w) {
                continue;
            }
            let g = replace_chars(o, w, m);
            sum = sum - base[k] + lev(&ins[k], &g);
        }
        sum
    };
    // First by chunk with a letter no input holds either (no alignment bonus), then every
    // free letter for the best chunks.
    let placeholder = free[0];
    let mut by_chunk: Vec<(u32, &Vec<char>)> =
        twice.iter().map(|w| (score(w, placeholder), w)).collect();
    by_chunk.sort();
    let mut scored: Vec<(u32, char, &Vec<char>)> = Vec::new();
    for &(_, w) in by_chunk.iter().take(16) {
        for &m in &free {
            let s = score(w, m);
            if s < total {
                scored.push((s, m, w));
            }
        }
    }
    scored.sort();
    scored
        .into_iter()
        .take(count)
        .filter_map(|(_, m, w)| {
            let w: String = w.iter().collect();
            let rule = Rule::new(m.to_string(), w.clone()).ok()?;
            let goals = goals
                .iter()
                .map(|g| g.replace(&w, &m.to_string()))
                .collect();
            Some((rule, goals))
        })
        .collect()
}

/// `s` with every occurrence of `w` (left to right, not overlapping) written `m`.
fn replace_chars(s: &[char], w: &[char], m: char) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(w) {
            out.push(m);
            i += w.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// Levenshtein distance (unit costs).
fn lev(s: &[char], t: &[char]) -> u32 {
    let mut row: Vec<u32> = (0..=t.len() as u32).collect();
    for (i, &a) in s.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i as u32 + 1;
        for j in 0..t.len() {
            let up = row[j + 1];
            let v = (diag + u32::from(a != t[j])).min(up + 1).min(row[j] + 1);
            diag = up;
            row[j + 1] = v;
        }
    }
    row[t.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `l → Wq`, `W → OyS`: the outputs hold `OyS` where `W` was, and no output holds
    /// `W`; undoing `W → OyS` is among the first tries, and exact.
    #[test]
    fn a_hidden_last_rule_is_undone_exactly() {
        let gold: Cascade = [("l", "Wq"), ("W", "OyS")]
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect();
        let inputs: Vec<String> = ["al", "lWb", "Wc", "bl"].map(String::from).to_vec();
        let outputs = gold.apply_all(&inputs);
        let problem = Problem::new(inputs.clone(), outputs.clone(), 3, 3, "abclqyOSW").unwrap();
        let tries = undos(&problem, &inputs, &outputs, 3);
        let (rule, goals) = (tries.iter())
            .find(|(r, _)| r.pattern() == "W" && r.replacement() == "OyS")
            .expect("W → OyS undone");
        let back: Vec<String> = goals.iter().map(|g| rule.apply(g)).collect();
        assert_eq!(back, outputs);
        assert_eq!(goals[0], "aWq");
    }
}
