//! Active learning: the built-in solver probing the sealed cascade (docs/interactive.md, issue 21).
//!
//! [`solve_probing`] receives a solver and an [`Oracle`], never an instance: what it can
//! learn of the hidden cascade comes from [`Oracle::task`] (the visible examples and the
//! limits) and [`Oracle::run_hidden`] (every input counted and recorded), so the gold is
//! out of its reach by its signature, not by convention.
//!
//! The loop is counterexample-guided, one round at a time ([`Probing`]):
//!
//! 1. **Re-solve** ([`Probing::resolve`]): a candidate that the last round surprised is
//!    first mended in place ([`mend()`]: a rule a short probe showed, or one local change),
//!    else re-ordered ([`reorder`]: an exact search for an order of its rules, the rules
//!    just shown and those of earlier candidates, that fits); else the examples known so
//!    far are solved again, from the candidate ([`Solver::solve_from`]). Each candidate is
//!    simplified ([`mend::simplest`]).
//! 2. **Next queries** ([`Probing::next_queries`]), the first kind that has any: inputs on
//!    which rivals of the candidate that fit every known example differ from it
//!    ([`queries::distinguishing`]); its patterns and replacements alone; the pair cover
//!    of the alphabet ([`queries::pair_cover`]); pieces, traces and undone forms of its
//!    patterns; windows of the visible inputs; in packed rounds, the strings around its
//!    rules ([`queries::neighbours`]: where one rule writes into another's pattern, and
//!    each pattern with a letter added or changed); then focused random inputs until the
//!    budget is spent. Short queries are packed several to a probe, joined by a letter no
//!    rule of the candidate touches ([`pack`]).
//! 3. **Record** ([`Probing::record`]): the answers (and the pieces of packed probes)
//!    become examples; a surprise asks for a re-solve.
//!
//! The answer is the last candidate found: it fits every visible example and every probe
//! made before it was found. A re-solve made while probes are left gets half the time
//! left; the last one, all of it. Under a node cap ([`Budget::max_nodes`], per solve) and
//! a time limit out of reach, a run is a function of the task and the budget. Why each
//! step is there, with the measurements that kept it: `benches/solve/probe.md`.

mod mend;
mod pack;
mod queries;
#[cfg(test)]
mod tests;

use crate::{Budget, Problem, SolveOutcome, SolveStats, Solver, Status};
use mend::{mend, reorder, simplest};
use pack::{pack, separator, split, PACKED_PROBES};
use pbebench::equiv::{self, InputSpace};
use pbebench::probe::{Oracle, Probe, Task};
use pbebench::{Cascade, Rule};
use queries::{
    distinguishing, focused_inputs, isolating, neighbours, pair_cover, seed_of, windows_of,
    PairCover, SplitMix,
};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// How [`solve_probing`] spends its probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveConfig {
    /// Distinguishing inputs probed per round at most.
    pub batch: usize,
    /// Focused inputs per round once no rival is left.
    pub focused_batch: usize,
    /// Rounds of focused inputs in a row that C gets wholly right before the loop stops
    /// (`usize::MAX`: spend the whole budget).
    pub focused_rounds: usize,
    /// Letters per focused input when they are not packed; `None`: the longest input the
    /// oracle accepts.
    pub focused_len: Option<usize>,
    /// Length of the windows of changed visible inputs probed (0: none).
    pub window: usize,
    /// Rivals compared with the candidate per round at most (each comparison is exact and
    /// costs about a millisecond on the full preset).
    pub max_comparisons: usize,
    /// Probe each pattern and each replacement of the candidate's rules alone.
    pub isolate: bool,
    /// Probes at most that together hold every pair of letters of the alphabet (0: none;
    /// when more would be needed, probes that hold every letter) (`pair_cover`, in `active/queries.rs`).
    pub max_pair_probes: usize,
    /// Short queries (distinguishing inputs, patterns, replacements, pieces, windows) put
    /// together into probes as long as the oracle accepts, joined by a separator letter
    /// that no rule seems to touch (`separator`): one probe then asks what several
    /// would, and the budget counts inputs, not letters.
    pub pack: bool,
    /// Mend a surprised candidate before solving anew (`mend`).
    pub mend: bool,
    /// Re-solve from the candidate ([`Solver::solve_from`]) rather than from scratch.
    pub warm_start: bool,
    /// When mending fails, search exactly for an order of the candidate's rules, the
    /// rules just learnt and those of earlier candidates that fits (`reorder`), before a
    /// re-solve.
    pub reorder: bool,
    /// In packed rounds, once the other queries are spent, probe the strings around the
    /// candidate's rules (`neighbours`) before focused random inputs, where the pair
    /// cover was packed too (probes long enough to hold every pair of letters).
    pub neighbours: bool,
}

impl Default for ActiveConfig {
    /// 8 distinguishing inputs (or isolating ones, or windows) a round, at most 300
    /// comparisons a round; the patterns and replacements alone; the pair cover (at most
    /// 16 inputs, 4 a round, or 2 a round when packed); windows of 3 letters; the strings
    /// around the candidate's rules, when packed; then focused inputs 4 at a time, as
    /// long as the oracle accepts, until the budget is spent.
    fn default() -> Self {
        ActiveConfig {
            batch: 8,
            focused_batch: 4,
            focused_rounds: usize::MAX,
            focused_len: None,
            window: 3,
            max_comparisons: 300,
            isolate: true,
            max_pair_probes: 16,
            pack: true,
            mend: true,
            warm_start: true,
            reorder: true,
            neighbours: true,
        }
    }
}

/// What [`solve_probing`] found and spent.
#[derive(Debug, Clone, PartialEq)]
pub struct Probed {
    /// The answer, verified against the visible examples and the limits (as
    /// [`Solver::solve`] verifies), with the effort of every solve summed.
    pub outcome: SolveOutcome,
    /// Every probe, in order.
    pub probes: Vec<Probe>,
    /// Solves run (the first one included).
    pub solves: u32,
}

/// Solves the task of `oracle` with `solver`, probing the hidden cascade as the module
/// documentation describes. `budget.time_limit` bounds the whole loop; a node cap, if
/// any, holds per solve.
pub fn solve_probing(
    solver: &dyn Solver,
    oracle: &mut Oracle,
    budget: &Budget,
    config: &ActiveConfig,
) -> Probed {
    let mut state = Probing::new(solver, oracle.task().clone(), budget, config);
    while state.resolve(oracle.budget_left()) {
        let Some(round) = state.next_queries(oracle.budget_left()) else {
            break;
        };
        let Ok(answers) = oracle.run_hidden(&round.probes) else {
            break;
        };
        state.record(round, answers);
    }
    state.finish(oracle)
}

/// The state of a probing run between rounds: what is known of the hidden cascade, the
/// candidate, and where each kind of query stands.
struct Probing<'a> {
    solver: &'a dyn Solver,
    budget: &'a Budget,
    config: &'a ActiveConfig,
    start: Instant,
    task: Task,
    /// The known examples: the visible ones, then every probe's (and packed pieces').
    inputs: Vec<String>,
    outputs: Vec<String>,
    /// Every input asked (probes whole and the queries packed into them).
    known: HashSet<String>,
    /// Which known examples the solver is given: all but packed probes whole, which check
    /// each answer instead (their pieces are given), and join the solver's examples when
    /// an answer gets them wrong.
    solved_with: Vec<bool>,
    space: Option<InputSpace>,
    rng: SplitMix,
    stats: SolveStats,
    answer: Option<Cascade>,
    /// The rules of every candidate so far, in order of first appearance.
    seen: Vec<Rule>,
    last_status: Status,
    solves: u32,
    need_solve: bool,
    /// The candidate fails some known example (its re-solve ran out of time).
    stale: bool,
    /// Rounds of focused inputs in a row without a surprise.
    quiet_focused: usize,
    windows: Vec<String>,
    pairs: PairCover,
    /// Where the examples of the last round begin.
    new_from: usize,
}

/// The probes of one round, and the queries they hold.
struct Round {
    /// The inputs sent to the oracle.
    probes: Vec<String>,
    /// The queries packed into them (the probes themselves when not packed).
    asked: Vec<String>,
    /// Focused random inputs, once no other kind of query was left.
    focused: bool,
    /// The letter joining packed queries.
    sep: Option<char>,
}

/// How a re-solve ended.
enum Resolved {
    /// A candidate fits every known example the solver was given.
    Ready,
    /// Known examples the answer got wrong joined the solver's: solve again.
    Again,
    /// No time, no problem, or no candidate: the loop ends.
    Stop,
}

impl<'a> Probing<'a> {
    fn new(
        solver: &'a dyn Solver,
        task: Task,
        budget: &'a Budget,
        config: &'a ActiveConfig,
    ) -> Self {
        let inputs = task.inputs.clone();
        Probing {
            solver,
            budget,
            config,
            start: Instant::now(),
            outputs: task.outputs.clone(),
            known: inputs.iter().cloned().collect(),
            solved_with: vec![true; inputs.len()],
            space: space_of(&task),
            rng: SplitMix(seed_of(&task.id)),
            stats: SolveStats::default(),
            answer: None,
            seen: Vec::new(),
            last_status: Status::Exhausted,
            solves: 0,
            need_solve: true,
            stale: false,
            quiet_focused: 0,
            windows: windows_of(&task, config.window),
            pairs: pair_cover(&task, config.max_pair_probes),
            new_from: inputs.len(),
            inputs,
            task,
        }
    }

    /// Brings the candidate up to date with the known examples, when the last round asked
    /// for it: mended in place, when one learnt rule or one local change makes it fit
    /// again, else solved anew (again while the answer gets packed probes wrong). `false`
    /// when the loop ends. `probes_left`: the oracle's budget left.
    fn resolve(&mut self, probes_left: usize) -> bool {
        loop {
            if self.need_solve && self.config.mend {
                self.mend_candidate();
            }
            if !self.need_solve {
                return true;
            }
            match self.solve_again(probes_left) {
                Resolved::Ready => return true,
                Resolved::Again => continue,
                Resolved::Stop => return false,
            }
        }
    }

    /// A new candidate, simplified ([`simplest`]): it fits every known example.
    fn adopt(&mut self, cascade: Cascade) {
        let limit = self.budget.time_limit;
        let simple = simplest(cascade, &self.inputs, &self.outputs, self.start, limit);
        for rule in simple.rules() {
            if !self.seen.contains(rule) {
                self.seen.push(rule.clone());
            }
        }
        self.answer = Some(simple);
        self.stale = false;
        self.need_solve = false;
    }

    /// A candidate surprised by the last round, mended in place ([`mend()`]), if it can be.
    fn mend_candidate(&mut self) {
        let deadline = pbebench::deadline(self.start, self.budget.time_limit);
        let io = (self.inputs.as_slice(), self.outputs.as_slice());
        let Some(candidate) = self.answer.as_ref() else {
            return;
        };
        let mut mended = mend(candidate, &self.task, io, self.new_from, deadline);
        if mended.is_none() && self.config.reorder {
            // A quarter of the time left at most: the re-solve that follows a failure
            // needs the rest.
            let left = deadline.saturating_duration_since(Instant::now());
            let deadline = Instant::now() + left / 4;
            mended = reorder(
                candidate,
                &self.seen,
                &self.task,
                io,
                self.new_from,
                deadline,
            );
        }
        if let Some(mended) = mended {
            self.adopt(mended);
        }
    }

    /// The known examples the solver is given, solved again.
    fn solve_again(&mut self, probes_left: usize) -> Resolved {
        let Some(left) = self.budget.time_limit.checked_sub(self.start.elapsed()) else {
            return Resolved::Stop;
        };
        let (some_in, some_out): (Vec<String>, Vec<String>) = (self.inputs.iter().cloned())
            .zip(self.outputs.iter().cloned())
            .zip(&self.solved_with)
            .filter_map(|(io, &used)| used.then_some(io))
            .unzip();
        let Some(problem) = problem_of(&self.task, some_in, some_out) else {
            return Resolved::Stop;
        };
        // A re-solve with probes left gets half the time left: when it fails, the
        // probes still to come may make the problem easier (a hidden intermediate
        // met alone), and the next re-solve gets its chance.
        let share = if self.answer.is_none() || probes_left == 0 {
            left
        } else {
            left / 2
        };
        let share = Budget {
            time_limit: share.max(Duration::from_millis(1)),
            max_nodes: self.budget.max_nodes,
        };
        // Started from the candidate, which fitted all but the last round's examples.
        let outcome = match &self.answer {
            Some(c) if self.config.warm_start => self.solver.solve_from(&problem, c, &share),
            _ => self.solver.solve(&problem, &share),
        };
        self.solves += 1;
        add_stats(&mut self.stats, &outcome.stats);
        self.last_status = outcome.status.clone();
        match outcome.cascade {
            Some(found) if outcome.status == Status::Solved => {
                // Known examples the answer gets wrong join the solver's, and the
                // problem is solved again.
                let limit = bound(&self.outputs, "");
                let mut wrong = false;
                for (k, used) in self.solved_with.iter_mut().enumerate() {
                    if !*used
                        && found.apply_bounded(&self.inputs[k], limit).as_deref()
                            != Ok(self.outputs[k].as_str())
                    {
                        *used = true;
                        wrong = true;
                    }
                }
                if wrong {
                    return Resolved::Again;
                }
                self.adopt(found);
                Resolved::Ready
            }
            // The harder problem was not solved: the previous candidate stays, and
            // is solved again after the next probes, if any are left.
            _ if self.answer.is_some() && probes_left > 0 => {
                self.stale = true;
                Resolved::Ready
            }
            _ => Resolved::Stop,
        }
    }

    /// The probes of the next round, at most `probes_left`; `None` when the loop ends
    /// (no candidate, no probe or time left, or no query found).
    fn next_queries(&mut self, probes_left: usize) -> Option<Round> {
        let candidate = self.answer.as_ref()?;
        if probes_left == 0 || self.start.elapsed() >= self.budget.time_limit {
            return None;
        }
        // Packed, a round asks for four times the queries, in two probes at most.
        let sep = if self.config.pack {
            separator(candidate, &self.task, &self.inputs, &self.outputs)
        } else {
            None
        };
        let mut queries = self.short_queries(candidate, sep);
        let focused = queries.is_empty();
        if focused {
            if self.quiet_focused >= self.config.focused_rounds {
                return None;
            }
            // Packed, random stretches as long as the longest visible input (at least 3
            // letters): where one surprises, the example the solver learns from is that
            // short, not a whole input of 32 letters with every rule acting at once.
            let (count, len) = match sep {
                Some(_) => {
                    let longest = self.task.inputs.iter().map(|s| s.chars().count()).max();
                    (
                        8 * self.config.focused_batch,
                        longest.unwrap_or(3).clamp(3, 6),
                    )
                }
                None => (
                    self.config.focused_batch,
                    self.config.focused_len.unwrap_or(self.task.max_probe_len),
                ),
            };
            // Only where the pair cover was packed (probes of 256 letters on the full
            // preset): with shorter probes it leaves pairs of letters out, and random
            // stretches are what meets a latent pair; the neighbours took their probes and
            // lost one such instance of 60 at 32 letters (`benches/solve/probe.md`).
            if sep.is_some() && self.config.neighbours && self.pairs.packed {
                queries = neighbours(candidate, &self.task, &self.known);
            }
            if queries.is_empty() {
                queries = focused_inputs(
                    candidate,
                    &self.task,
                    &self.known,
                    count,
                    len,
                    &mut self.rng,
                );
            }
            if queries.is_empty() {
                return None;
            }
        }
        let (probes, asked) = match sep {
            Some(sep) => {
                let probes = if focused {
                    self.config.focused_batch
                } else {
                    PACKED_PROBES
                };
                pack(
                    &queries,
                    sep,
                    self.task.max_probe_len,
                    probes.min(probes_left),
                )
            }
            _ => {
                queries.truncate(probes_left);
                (queries.clone(), queries)
            }
        };
        Some(Round {
            probes,
            asked,
            focused,
            sep,
        })
    }

    /// The first kind of query that has any, before focused inputs: distinguishing
    /// inputs, the candidate's patterns and replacements alone, the pair cover, the pieces
    /// and traces of its patterns, windows of the visible inputs.
    fn short_queries(&self, candidate: &Cascade, sep: Option<char>) -> Vec<String> {
        let (task, known, config) = (&self.task, &self.known, self.config);
        let want = if sep.is_some() {
            4 * config.batch
        } else {
            config.batch
        };
        let mut queries = self.space.as_ref().map_or_else(Vec::new, |space| {
            let io = (self.inputs.as_slice(), self.outputs.as_slice());
            distinguishing(candidate, task, io, space, known, config, want)
        });
        if queries.is_empty() && config.isolate {
            queries = isolating(candidate, task, known, want, false);
        }
        if queries.is_empty() {
            // Short pieces go as many to a round as the packed probes hold; they wait for a
            // round with a separator.
            let take = match (self.pairs.packed, sep) {
                (false, _) => config.focused_batch,
                (true, Some(_)) => usize::MAX,
                (true, None) => 0,
            };
            queries = (self.pairs.pieces.iter())
                .filter(|w| !known.contains(*w))
                .take(take)
                .cloned()
                .collect();
        }
        if queries.is_empty() && config.isolate {
            queries = isolating(candidate, task, known, want, true);
        }
        if queries.is_empty() {
            queries = (self.windows.iter())
                .filter(|w| !known.contains(*w))
                .take(want)
                .cloned()
                .collect();
        }
        queries
    }

    /// The oracle's answers to a round become known examples: a surprise asks for a
    /// re-solve.
    fn record(&mut self, round: Round, answers: Vec<String>) {
        let Round {
            probes,
            asked,
            focused,
            sep,
        } = round;
        if let Some(candidate) = &self.answer {
            let outputs = &self.outputs;
            let surprised = (probes.iter().zip(&answers))
                .any(|(i, o)| candidate.apply_bounded(i, bound(outputs, o)).as_deref() != Ok(o));
            if focused {
                self.quiet_focused = if surprised { 0 } else { self.quiet_focused + 1 };
            }
            self.need_solve = surprised || self.stale;
        }
        self.known.extend(asked);
        self.new_from = self.inputs.len();
        for (i, o) in probes.into_iter().zip(answers) {
            self.known.insert(i.clone());
            // A packed probe is also known as its pieces, each with its part of the output,
            // when the output splits as the input does (the probe whole stays, in case a
            // hidden rule touches the separator after all).
            let pieces = sep.and_then(|sep| split(&i, &o, sep));
            let whole_given = pieces.is_none();
            for (i, o) in pieces.into_iter().flatten() {
                if !self.inputs.contains(&i) {
                    self.inputs.push(i);
                    self.outputs.push(o);
                    self.solved_with.push(true);
                }
            }
            self.inputs.push(i);
            self.outputs.push(o);
            self.solved_with.push(whole_given);
        }
    }

    /// The answer, checked against the visible examples and the limits, with every probe.
    fn finish(mut self, oracle: &Oracle) -> Probed {
        self.stats.elapsed = self.start.elapsed();
        let visible = problem_of(
            &self.task,
            self.task.inputs.clone(),
            self.task.outputs.clone(),
        );
        let stats = self.stats;
        let outcome = match (self.answer, visible) {
            (Some(cascade), Some(visible)) => match visible.check(&cascade) {
                Ok(()) => SolveOutcome {
                    status: Status::Solved,
                    cascade: Some(cascade),
                    partial: None,
                    stats,
                },
                Err(why) => SolveOutcome {
                    status: Status::Rejected(why),
                    cascade: None,
                    partial: None,
                    stats,
                },
            },
            _ => SolveOutcome {
                status: match self.last_status {
                    Status::Solved => Status::Exhausted,
                    other => other,
                },
                cascade: None,
                partial: None,
                stats,
            },
        };
        Probed {
            outcome,
            probes: oracle.probes().to_vec(),
            solves: self.solves,
        }
    }
}

/// The problem of the task's limits over these examples.
fn problem_of(task: &Task, inputs: Vec<String>, outputs: Vec<String>) -> Option<Problem> {
    Problem::new(
        inputs,
        outputs,
        task.max_rules,
        task.max_rule_len,
        &task.alphabet,
    )
    .ok()
}

/// Where candidates are told apart: the strings over the task's alphabet from one letter
/// up to its longest visible input or the presets' longest input (6), whichever is
/// longer (at most the longest probe accepted), so that it holds the space Recovered@1
/// grades over ([`InputSpace::of`]). `None` without an alphabet.
fn space_of(task: &Task) -> Option<InputSpace> {
    let longest = task.inputs.iter().map(|s| s.chars().count()).max()?;
    let max = longest
        .max(equiv::PRESET_INPUT_LEN.1)
        .clamp(1, task.max_probe_len.max(1))
        .min(equiv::MAX_INPUT_LEN);
    InputSpace::new(task.alphabet.chars(), 1, max).ok()
}

/// The bound on our own candidates' intermediate strings: sixteen times the longest
/// output seen, at least 256 characters.
fn bound(outputs: &[String], extra: &str) -> usize {
    let longest = (outputs.iter().map(String::as_str))
        .chain([extra])
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0);
    (16 * longest).max(256)
}

/// Whether `cascade` reproduces every example of `inputs` and `outputs`, its intermediate
/// strings held to [`bound`].
fn fits_all(cascade: &Cascade, inputs: &[String], outputs: &[String]) -> bool {
    let limit = bound(outputs, "");
    (inputs.iter().zip(outputs))
        .all(|(i, o)| cascade.apply_bounded(i, limit).as_deref() == Ok(o.as_str()))
}

/// Adds the effort of one solve to the run's.
fn add_stats(total: &mut SolveStats, one: &SolveStats) {
    total.nodes_expanded += one.nodes_expanded;
    total.candidates_scored += one.candidates_scored;
    total.hit_limit |= one.hit_limit;
    total.rounds += one.rounds;
    total.max_width = total.max_width.max(one.max_width);
}
