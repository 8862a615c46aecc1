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
//! Six variants: `beam-ends-tree` (the default solver: the first try a chain of 4 undos,
//! then chains of 1 to 3 that branch among the best three undos at their last step),
//! `beam-ends-chain` (the chain of 4, then single undos: the vetting panel's member, the
//! default before), and four experiments
//! kept by name, `beam-ends` (the hidden-letter undos alone), `beam-ends-aligned` (also the
//! undos read off the alignments, one per try), `beam-ends-chain-only` (the chained try
//! alone, with the whole peel half) and `beam-ends-detours` (chains off the greedy path
//! instead of the single undos). The node cap and the time are split
//! between the plain search (half) and the peeled ones.

use crate::simplify::PriorSolver;
use crate::{Budget, Problem, SolveOutcome, SolveStats, Solver, Status};
use pbebench::{Cascade, Rule};
use std::collections::BTreeSet;
use std::time::Instant;

/// `beam`, then, when it finds no fit, the same on problems with last rules undone (see
/// the module documentation). With `aligned` and a `chain` of 4, the default solver.
#[derive(Debug, Clone)]
pub struct EndsSolver {
    /// The forward search.
    pub inner: PriorSolver,
    /// Undone last rules tried, the closest first.
    pub tries: usize,
    /// Undos chained greedily on the last try (1: one rule undone).
    pub depth: usize,
    /// Undos chained greedily on the first try (1: one rule undone). On the published
    /// length-30 file a chain of 4 leaves a problem the forward search fits more often
    /// than one undo does (benches/solve/ends.md, sections 5 and 6).
    pub chain: usize,
    /// Also undo rules read off the alignments of the inputs with the goals (`a → b` with
    /// `a` an aligned input window no goal holds, `b` the goal window), besides the
    /// hidden-letter undos.
    pub aligned: bool,
    /// After the greedy chain, short chains in place of the single-undo tries: the greedy
    /// chain's first undo followed by each of the `tries` best next undos, then its first
    /// two followed by each of those, then the single undos (`beam-ends-tree`).
    pub short_chains: bool,
    /// Chains tried after the greedy one, each taking the second-best undo at one step
    /// (the first step, then the second, …) and the best at the others, in place of the
    /// single-undo tries; 0: no such chains.
    pub detours: usize,
}

impl Default for EndsSolver {
    fn default() -> Self {
        EndsSolver {
            inner: PriorSolver::default(),
            tries: 3,
            depth: 2,
            chain: 1,
            aligned: false,
            short_chains: false,
            detours: 0,
        }
    }
}

impl Solver for EndsSolver {
    fn name(&self) -> &'static str {
        match (self.aligned, self.chain > 1) {
            (true, true) if self.short_chains => "beam-ends-tree",
            (true, true) if self.detours > 0 => "beam-ends-detours",
            (true, true) if self.tries == 1 => "beam-ends-chain-only",
            (true, true) => "beam-ends-chain",
            (true, false) => "beam-ends-aligned",
            (false, _) => "beam-ends",
        }
    }

    fn search(&self, problem: &Problem, budget: &Budget, deadline: Instant) -> SolveOutcome {
        self.both_ends(problem, budget, deadline, |half, until| {
            self.inner.search(problem, half, until)
        })
    }

    /// The forward half starts from `start` (probing's candidate), the peeled problems
    /// from scratch: their goals are not the outputs `start` was fitted to.
    fn search_from(
        &self,
        problem: &Problem,
        start: &Cascade,
        budget: &Budget,
        deadline: Instant,
    ) -> SolveOutcome {
        self.both_ends(problem, budget, deadline, |half, until| {
            self.inner.search_from(problem, start, half, until)
        })
    }
}

impl EndsSolver {
    /// `forward` for half the budget; when it finds no fit, the peeled problems share
    /// the rest.
    fn both_ends(
        &self,
        problem: &Problem,
        budget: &Budget,
        deadline: Instant,
        forward: impl FnOnce(&Budget, Instant) -> SolveOutcome,
    ) -> SolveOutcome {
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
        let mut outcome = forward(&half, until);
        if outcome.status == Status::Solved && outcome.cascade.is_some() {
            return outcome;
        }
        if problem.max_rules() < 2 {
            return outcome;
        }
        let peels = peels(problem, self);
        let n = peels.len() as u64;
        for (k, (suffix, goals)) in peels.into_iter().enumerate() {
            // With detours or short chains, the greedy chain keeps the third it has without
            // them (its fits need most of it, benches/solve/ends.md) and the others share
            // the rest.
            let parts = match k {
                0 if self.detours > 0 || self.short_chains => 3.min(n),
                _ => n - k as u64,
            };
            let (share, until) = split(parts, deadline);
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
/// closest to the inputs, the first of them chained greedily up to `chain` undos and the
/// last up to `depth`; with `detours`, the greedy chain and its detours instead.
fn peels(problem: &Problem, how: &EndsSolver) -> Vec<(Vec<Rule>, Vec<String>)> {
    let outputs = problem.outputs().to_vec();
    if how.short_chains {
        return with_short_chains(problem, how, outputs);
    }
    if how.detours > 0 {
        let mut out = Vec::new();
        for detour in std::iter::once(None).chain((0..how.detours.min(how.chain)).map(Some)) {
            let peel = chained(problem, Vec::new(), outputs.clone(), how, how.chain, detour);
            if let Some(peel) = peel.filter(|p| !out.contains(p)) {
                out.push(peel);
            }
        }
        return out;
    }
    let firsts = undos(problem, problem.inputs(), &outputs, how.tries, how.aligned);
    (firsts.into_iter().enumerate())
        .filter_map(|(k, (rule, goals))| {
            let depth = match k {
                0 => how.chain,
                k if k + 1 == how.tries => how.depth,
                _ => 1,
            };
            chained(problem, vec![rule], goals, how, depth, None)
        })
        .collect()
}

/// The greedy chain of `how.chain` undos, then short chains: the greedy chain's first `d`
/// undos followed by each of the `how.tries` best next undos, for `d` = 1, 2 and then 0
/// (the single undos; `d` stays below `how.chain`). A forward search often fits the
/// problem a chain of 2 or 3 leaves where the chain of 4 left the gold's path at its last
/// undo, or where the gold's path is the second or third undo at one step
/// (benches/solve/ends.md, section 13).
fn with_short_chains(
    problem: &Problem,
    how: &EndsSolver,
    outputs: Vec<String>,
) -> Vec<(Vec<Rule>, Vec<String>)> {
    // One walk down the greedy chain's first steps, keeping the best undos of each (the
    // greedy one is the first of them: `undos` ranks before it takes `count`).
    let mut levels = Vec::new();
    let (mut suffix, mut goals) = (Vec::new(), outputs);
    for _ in 0..how.chain.min(3) {
        if suffix.len() + 2 > problem.max_rules() {
            break;
        }
        let next = undos(problem, problem.inputs(), &goals, how.tries, how.aligned);
        let Some((rule, back)) = next.first().cloned() else {
            break;
        };
        levels.push((suffix.clone(), next));
        suffix.insert(0, rule);
        goals = back;
    }
    // The greedy chain goes on from where the walk stopped.
    let mut out: Vec<(Vec<Rule>, Vec<String>)> = Vec::new();
    out.extend(chained(problem, suffix, goals, how, how.chain, None));
    for d in [1, 2, 0] {
        let Some((suffix, next)) = levels.get(d) else {
            continue;
        };
        for (rule, back) in next {
            let mut s = vec![rule.clone()];
            s.extend(suffix.iter().cloned());
            let peel = (s, back.clone());
            if !out.contains(&peel) {
                out.push(peel);
            }
        }
    }
    out
}

/// `suffix` (which leaves `goals`) chained on to up to `depth` undos, each the best undo
/// of the goals the one before left, but at step `detour` (counted from an empty
/// suffix), where it is the second best (`None` if there is none, or if the chain is
/// empty). The forward part keeps one rule at least.
fn chained(
    problem: &Problem,
    mut suffix: Vec<Rule>,
    mut goals: Vec<String>,
    how: &EndsSolver,
    depth: usize,
    detour: Option<usize>,
) -> Option<(Vec<Rule>, Vec<String>)> {
    while suffix.len() < depth && suffix.len() + 1 < problem.max_rules() {
        let pick = usize::from(detour == Some(suffix.len()));
        let next = undos(problem, problem.inputs(), &goals, pick + 1, how.aligned)
            .into_iter()
            .nth(pick);
        let Some((rule, back)) = next else {
            if pick == 1 {
                return None;
            }
            break;
        };
        suffix.insert(0, rule);
        goals = back;
    }
    (!suffix.is_empty()).then_some((suffix, goals))
}

/// The `count` undone last rules `m → w` (with the goals they leave) that bring `goals`
/// closest to `inputs`, closer than `goals` are: `w` of 1 to the rule length cap letters,
/// held by at least two goals, `m` a letter of the alphabet that no goal holds; with
/// `aligned`, also the windows of the alignments ([`aligned_undos`]).
fn undos(
    problem: &Problem,
    inputs: &[String],
    goals: &[String],
    count: usize,
    aligned: bool,
) -> Vec<(Rule, Vec<String>)> {
    let held: BTreeSet<char> = goals.iter().flat_map(|s| s.chars()).collect();
    let free: Vec<char> = (problem.alphabet().iter().copied())
        .filter(|c| !held.contains(c))
        .collect();
    if free.is_empty() && !aligned {
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
    // The summed distance of the inputs to the goals with every `w` written `a`.
    let score = |w: &[char], a: &[char]| -> u32 {
        let mut sum = total;
        for (k, o) in outs.iter().enumerate() {
            if !o.windows(w.len()).any(|x| x == w) {
                continue;
            }
            let g = replace_with(o, w, a);
            sum = sum - base[k] + lev(&ins[k], &g);
        }
        sum
    };
    // First by chunk with a letter no input holds either (no alignment bonus), then every
    // free letter for the best chunks.
    let mut scored: Vec<(u32, Vec<char>, Vec<char>)> = Vec::new();
    if let Some(&placeholder) = free.first() {
        let mut by_chunk: Vec<(u32, &Vec<char>)> = twice
            .iter()
            .map(|w| (score(w, &[placeholder]), w))
            .collect();
        by_chunk.sort();
        for &(_, w) in by_chunk.iter().take(16) {
            for &m in &free {
                let s = score(w, &[m]);
                if s < total {
                    scored.push((s, vec![m], w.clone()));
                }
            }
        }
    }
    scored.sort();
    let mut by_alignment: Vec<(u32, Vec<char>, Vec<char>)> = Vec::new();
    if aligned {
        for (a, w) in aligned_undos(problem, &ins, &outs) {
            let s = score(&w, &a);
            if s < total {
                by_alignment.push((s, a, w));
            }
        }
        by_alignment.sort();
    }
    // The two kinds taken in turn, the aligned first: ranked together, the hidden-letter
    // undos (many, their distances close) crowd out the aligned ones, whose best three
    // hold a rule on the gold's path far more often (benches/solve/ends.md).
    let mut turns = Vec::with_capacity(scored.len() + by_alignment.len());
    let (mut h, mut a) = (scored.into_iter(), by_alignment.into_iter());
    loop {
        match (a.next(), h.next()) {
            (None, None) => break,
            (x, y) => turns.extend(x.into_iter().chain(y)),
        }
    }
    let mut seen = BTreeSet::new();
    turns
        .into_iter()
        .filter(|(_, a, w)| seen.insert((a.clone(), w.clone())))
        .filter_map(|(_, a, w)| {
            let (a, w): (String, String) = (a.iter().collect(), w.iter().collect());
            let rule = Rule::new(a.clone(), w.clone()).ok()?;
            let back: Vec<String> = goals.iter().map(|g| g.replace(&w, &a)).collect();
            // Exact: the rule gives the goals back from what is left.
            (back.iter().map(|g| rule.apply(g)).eq(goals.iter().cloned())).then_some((rule, back))
        })
        .take(count)
        .collect()
}

/// Undo candidates `a → w` read off an alignment of each input with its goal: every
/// maximal run of edits, with up to one letter of context on either side, gives `a` (its
/// input window) and `w` (its goal window), each of 1 to the rule length cap letters, `a`
/// of letters rules may use and held by no goal (so that writing each `w` back as `a` can
/// be undone exactly). Sorted, without repeats.
fn aligned_undos(
    problem: &Problem,
    ins: &[Vec<char>],
    outs: &[Vec<char>],
) -> Vec<(Vec<char>, Vec<char>)> {
    let max_len = problem.max_rule_len();
    let allowed: BTreeSet<char> = problem.alphabet().iter().copied().collect();
    let mut found: BTreeSet<(Vec<char>, Vec<char>)> = BTreeSet::new();
    for (x, y) in ins.iter().zip(outs) {
        for (i1, i2, j1, j2) in edit_runs(x, y) {
            for l in 0..=1 {
                for r in 0..=1 {
                    if l > i1.min(j1) || i2 + r > x.len() || j2 + r > y.len() {
                        continue;
                    }
                    let a = &x[i1 - l..i2 + r];
                    let w = &y[j1 - l..j2 + r];
                    if a.is_empty() || w.is_empty() || a.len() > max_len || w.len() > max_len {
                        continue;
                    }
                    if a.iter().all(|c| allowed.contains(c)) {
                        found.insert((a.to_vec(), w.to_vec()));
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .filter(|(a, _)| {
            !outs
                .iter()
                .any(|o| o.windows(a.len()).any(|x| x == a.as_slice()))
        })
        .collect()
}

/// The maximal runs of edits of an optimal alignment of `s` with `t` (unit costs, matches
/// preferred), as `(i1, i2, j1, j2)`: `s[i1..i2]` is rewritten as `t[j1..j2]`.
fn edit_runs(s: &[char], t: &[char]) -> Vec<(usize, usize, usize, usize)> {
    let (n, m) = (s.len(), t.len());
    let w = m + 1;
    let mut d = vec![0u32; (n + 1) * w];
    for i in 0..=n {
        for j in 0..=m {
            d[i * w + j] = if i == 0 || j == 0 {
                (i + j) as u32
            } else {
                (d[(i - 1) * w + j - 1] + u32::from(s[i - 1] != t[j - 1]))
                    .min(d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
            };
        }
    }
    let mut runs = Vec::new();
    let (mut i, mut j) = (n, m);
    let mut open: Option<(usize, usize)> = None;
    while i > 0 || j > 0 {
        let here = d[i * w + j];
        let matched = i > 0 && j > 0 && s[i - 1] == t[j - 1] && d[(i - 1) * w + j - 1] == here;
        if matched {
            if let Some((hi, hj)) = open.take() {
                runs.push((i, hi, j, hj));
            }
            i -= 1;
            j -= 1;
            continue;
        }
        open.get_or_insert((i, j));
        if i > 0 && j > 0 && d[(i - 1) * w + j - 1] + 1 == here {
            i -= 1;
            j -= 1;
        } else if j > 0 && d[i * w + j - 1] + 1 == here {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    if let Some((hi, hj)) = open {
        runs.push((0, hi, 0, hj));
    }
    runs.reverse();
    runs
}

/// `s` with every occurrence of `w` (left to right, not overlapping) written `a`.
fn replace_with(s: &[char], w: &[char], a: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(w) {
            out.extend_from_slice(a);
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
        let tries = undos(&problem, &inputs, &outputs, 3, false);
        let (rule, goals) = (tries.iter())
            .find(|(r, _)| r.pattern() == "W" && r.replacement() == "OyS")
            .expect("W → OyS undone");
        let back: Vec<String> = goals.iter().map(|g| rule.apply(g)).collect();
        assert_eq!(back, outputs);
        assert_eq!(goals[0], "aWq");
    }

    /// `ab → c`, `xF → e`: the last rule's pattern has two letters and is held by the
    /// inputs, so no hidden-letter undo names it, but the alignments of the inputs with
    /// the outputs do, and undoing it leaves the forms before it.
    #[test]
    fn an_aligned_last_rule_is_undone_exactly() {
        let gold: Cascade = [("ab", "c"), ("xF", "e")]
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect();
        let inputs: Vec<String> = ["axFb", "xFab", "bxF", "abab"].map(String::from).to_vec();
        let outputs = gold.apply_all(&inputs);
        let problem = Problem::new(inputs.clone(), outputs.clone(), 3, 3, "abcexF").unwrap();
        assert!(undos(&problem, &inputs, &outputs, 50, false)
            .iter()
            .all(|(r, _)| r.pattern() != "xF"));
        let tries = undos(&problem, &inputs, &outputs, 50, true);
        let (rule, goals) = (tries.iter())
            .find(|(r, _)| r.pattern() == "xF" && r.replacement() == "e")
            .expect("xF → e undone");
        let before: Vec<String> = (inputs.iter())
            .map(|i| Rule::new("ab", "c").unwrap().apply(i))
            .collect();
        assert_eq!(goals, &before);
        let back: Vec<String> = goals.iter().map(|g| rule.apply(g)).collect();
        assert_eq!(back, outputs);
        // Every undo offered is exact.
        for (rule, goals) in &tries {
            let back: Vec<String> = goals.iter().map(|g| rule.apply(g)).collect();
            assert_eq!(back, outputs, "{rule:?}");
        }
    }

    /// Every peel, chained or not, is exact: its suffix maps the goals it leaves back to
    /// the outputs, and it leaves the forward part at least one rule.
    #[test]
    fn chained_peels_give_the_outputs_back() {
        let gold: Cascade = [
            ("ab", "c"),
            ("l", "Wq"),
            ("c", "xy"),
            ("W", "OyS"),
            ("q", "z"),
        ]
        .iter()
        .map(|(a, b)| Rule::new(*a, *b).unwrap())
        .collect();
        let inputs: Vec<String> = ["abl", "lWb", "cab", "blq", "ablab", "qqc"]
            .map(String::from)
            .to_vec();
        let outputs = gold.apply_all(&inputs);
        let problem = Problem::new(inputs.clone(), outputs.clone(), 5, 3, "abclqxyzOSW").unwrap();
        for (detours, short_chains) in [(0, false), (4, false), (0, true)] {
            let how = EndsSolver {
                aligned: true,
                chain: 4,
                detours,
                short_chains,
                ..EndsSolver::default()
            };
            let peels = peels(&problem, &how);
            assert!(peels.len() > 1);
            assert!(peels[0].0.len() > 1, "the first try is chained");
            if detours > 0 || short_chains {
                // Each try another than the ones before.
                assert!((1..peels.len()).all(|k| !peels[..k].contains(&peels[k])));
            }
            if detours > 0 {
                // The detours are chains too.
                assert!(peels.iter().all(|(suffix, _)| suffix.len() > 1));
            }
            if short_chains {
                // After the greedy chain: chains of 2, then 3 (while the forward part keeps
                // a rule), then single undos, each sharing all but its first undo with
                // the greedy chain.
                let lens: Vec<usize> = peels[1..].iter().map(|(s, _)| s.len()).collect();
                assert!(
                    lens.windows(2).all(|w| w[0] <= w[1] || w[1] == 1),
                    "{lens:?}"
                );
                assert!(lens.contains(&2) && lens.contains(&1), "{lens:?}");
                let greedy = &peels[0].0;
                for (suffix, _) in &peels[1..] {
                    assert_eq!(suffix[1..], greedy[greedy.len() - suffix.len() + 1..]);
                }
            }
            for (suffix, goals) in &peels {
                assert!(suffix.len() < problem.max_rules());
                let back: Vec<String> = goals
                    .iter()
                    .map(|g| suffix.iter().fold(g.clone(), |s, r| r.apply(&s)))
                    .collect();
                assert_eq!(back, outputs, "{suffix:?}");
            }
        }
    }

    /// The edit runs of an alignment, against hand-made cases.
    #[test]
    fn edit_runs_are_the_maximal_runs_of_edits() {
        let c = |s: &str| s.chars().collect::<Vec<char>>();
        assert_eq!(edit_runs(&c("abc"), &c("abc")), vec![]);
        assert_eq!(edit_runs(&c("axFb"), &c("aeb")), vec![(1, 3, 1, 2)]);
        assert_eq!(edit_runs(&c("xab"), &c("ab")), vec![(0, 1, 0, 0)]);
        assert_eq!(edit_runs(&c("ab"), &c("abyy")), vec![(2, 2, 2, 4)]);
        assert_eq!(
            edit_runs(&c("qaq"), &c("zaz")),
            vec![(0, 1, 0, 1), (2, 3, 2, 3)]
        );
    }
}
