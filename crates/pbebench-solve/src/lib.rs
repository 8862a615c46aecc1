//! # pbebench-solve
//!
//! Symbolic solvers for pbebench instances behind one [`Solver`] trait: given examples
//! (input/output pairs) and the limits (`max_rules`, `max_rule_len`, alphabet), find *a*
//! cascade that maps every input to its output. Solvers never see the gold cascade.
//!
//! Every cascade a solver reports goes through [`Solver::solve`], which checks it with the
//! core [`Cascade::apply`] and the limits before it is returned, so a bug in a search can
//! cost a solve but never produce a wrong answer.
//!
//! ```
//! use pbebench_solve::{default_solver, Budget, Problem};
//! use std::time::Duration;
//!
//! let problem = Problem::new(
//!     vec!["xbu".into(), "fjze".into()],
//!     vec!["xhu".into(), "fjxwye".into()],
//!     5,            // max_rules
//!     3,            // max_rule_len
//!     "abcdefghijkuvwxyz",
//! )
//! .unwrap();
//! let outcome = default_solver().solve(&problem, &Budget::time(Duration::from_secs(1)));
//! assert!(outcome.is_solved());
//! let cascade = outcome.cascade.unwrap();
//! assert_eq!(cascade.apply("fjze"), "fjxwye");
//! ```
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]
#![warn(missing_docs)]

mod active;
mod beam;
mod encode;
mod ends;
mod holdout;
mod laws;
mod lev;
mod order;
mod prior;
mod problem;
mod propose;
mod repair;
mod run;
mod simplify;

pub use active::{solve_probing, ActiveConfig, Probed};
pub use beam::{BeamSolver, Ranking};
pub use ends::EndsSolver;
pub use holdout::{cross_validate, held_out, HoldoutError, HoldoutRow, HoldoutSummary};
pub use laws::LawSolver;
pub use problem::{CheckError, Problem, ProblemError};
pub use run::{solve_dataset, InstanceStats, SolveJob, SolveProgress, SolveRunError, Solved};
pub use simplify::PriorSolver;

use pbebench::Cascade;
use std::time::{Duration, Instant};

/// How much a solver may spend on one problem.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Wall-clock limit for one problem; the search checks the clock as it goes.
    pub time_limit: Duration,
    /// Optional cap on search nodes expanded (deterministic effort limit, for tests).
    pub max_nodes: Option<u64>,
}

impl Budget {
    /// A budget of `time_limit` and no node cap.
    pub fn time(time_limit: Duration) -> Self {
        Budget {
            time_limit,
            max_nodes: None,
        }
    }
}

/// How a solve ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// A cascade reproducing every example within the limits was found and verified.
    Solved,
    /// The examples cannot be reproduced by any cascade (e.g. one input, two outputs).
    Unsolvable(String),
    /// The budget ran out before a cascade was found.
    LimitReached,
    /// The search finished without a cascade (it is incomplete, so this is not a proof).
    Exhausted,
    /// The search returned a cascade that failed verification (a solver bug); discarded.
    Rejected(CheckError),
}

impl Status {
    /// Short name for statistics files: `solved`, `unsolvable`, `limit`, `exhausted`, `rejected`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolvable(_) => "unsolvable",
            Status::LimitReached => "limit",
            Status::Exhausted => "exhausted",
            Status::Rejected(_) => "rejected",
        }
    }
}

/// What the search spent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SolveStats {
    /// Wall-clock time of the whole solve.
    pub elapsed: Duration,
    /// Search states expanded (candidate rules generated and scored from them).
    pub nodes_expanded: u64,
    /// Candidate rules scored against the examples.
    pub candidates_scored: u64,
    /// Whether the time or node budget stopped the search.
    pub hit_limit: bool,
    /// Search rounds run (the beam solver widens its beam once per round).
    pub rounds: u32,
    /// Widest beam tried.
    pub max_width: usize,
}

/// The result of one solve.
#[derive(Debug, Clone, PartialEq)]
pub struct SolveOutcome {
    /// How the solve ended.
    pub status: Status,
    /// The verified cascade, when `status` is [`Status::Solved`].
    pub cascade: Option<Cascade>,
    /// When unsolved: the best partial cascade the search reached (the highest Edit_Sim on
    /// the examples), checked by [`Problem::partial_edit_sim`] and kept only when it does
    /// better than the identity.
    pub partial: Option<Partial>,
    /// Effort spent.
    pub stats: SolveStats,
}

/// A cascade within the limits that reproduces some examples but not all.
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    /// The cascade.
    pub cascade: Cascade,
    /// Its Edit_Sim on the examples (`pbebench::metrics::edit_sim`), above 0.
    pub edit_sim: f64,
}

impl SolveOutcome {
    /// True when a verified cascade was found.
    pub fn is_solved(&self) -> bool {
        self.status == Status::Solved
    }

    /// Number of rules of the cascade found.
    pub fn found_len(&self) -> Option<usize> {
        self.cascade.as_ref().map(Cascade::len)
    }

    /// The answer to report: the verified cascade, else the best partial one, else none.
    pub fn answer(&self) -> Option<&Cascade> {
        (self.cascade.as_ref()).or(self.partial.as_ref().map(|p| &p.cascade))
    }

    /// Edit_Sim of [`SolveOutcome::answer`] on the examples: 1 when solved, the partial
    /// cascade's when there is one, else 0 (the identity's).
    pub fn edit_sim(&self) -> f64 {
        if self.is_solved() {
            1.0
        } else {
            self.partial.as_ref().map_or(0.0, |p| p.edit_sim)
        }
    }
}

/// A symbolic solver: finds a cascade that reproduces a problem's examples.
pub trait Solver: Send + Sync {
    /// The name users pick it by (`--solver NAME`).
    fn name(&self) -> &'static str;

    /// The search itself. Implementations must watch `budget` and should return
    /// quickly once `deadline` passes; use [`Solver::solve`], which verifies the result.
    fn search(&self, problem: &Problem, budget: &Budget, deadline: Instant) -> SolveOutcome;

    /// Solves `problem` within `budget`: contradictory examples are reported unsolvable at
    /// once, and any cascade the search returns is verified (examples, rule count, side
    /// lengths, alphabet) before it is reported.
    fn solve(&self, problem: &Problem, budget: &Budget) -> SolveOutcome {
        verified(problem, budget, |deadline| {
            self.search(problem, budget, deadline)
        })
    }

    /// The search, started from `start`: a cascade that fitted some of the examples
    /// (the candidate of an earlier, smaller problem). The default ignores it.
    fn search_from(
        &self,
        problem: &Problem,
        start: &Cascade,
        budget: &Budget,
        deadline: Instant,
    ) -> SolveOutcome {
        let _ = start;
        self.search(problem, budget, deadline)
    }

    /// [`Solver::solve`] with [`Solver::search_from`]: verified the same way.
    fn solve_from(&self, problem: &Problem, start: &Cascade, budget: &Budget) -> SolveOutcome {
        verified(problem, budget, |deadline| {
            self.search_from(problem, start, budget, deadline)
        })
    }
}

/// Runs `search` with a deadline within `budget` and verifies what it returns, as
/// [`Solver::solve`] describes.
fn verified(
    problem: &Problem,
    budget: &Budget,
    search: impl FnOnce(Instant) -> SolveOutcome,
) -> SolveOutcome {
    let start = Instant::now();
    if let Some(reason) = problem.contradiction() {
        return SolveOutcome {
            status: Status::Unsolvable(reason),
            cascade: None,
            partial: None,
            stats: SolveStats {
                elapsed: start.elapsed(),
                ..SolveStats::default()
            },
        };
    }
    // The search looks at the clock between steps and then unwinds its state, which
    // takes tens of milliseconds on a loaded machine: it stops a little early so that
    // the whole solve ends within the limit.
    let margin = (budget.time_limit / 20).min(Duration::from_millis(250));
    let deadline = pbebench::deadline(start, budget.time_limit - margin);
    let mut outcome = search(deadline);
    if let Some(cascade) = &outcome.cascade {
        match problem.check(cascade) {
            Ok(()) => outcome.status = Status::Solved,
            Err(why) => {
                outcome.status = Status::Rejected(why);
                outcome.cascade = None;
            }
        }
    } else if outcome.status == Status::Solved {
        outcome.status = Status::Exhausted;
    }
    // A partial answer is checked by the core too, and kept only when it is within the
    // limits and better than doing nothing.
    let partial = outcome.partial.take().filter(|_| !outcome.is_solved());
    outcome.partial = partial.and_then(|p| {
        let edit_sim = problem.partial_edit_sim(&p.cascade).ok()?;
        (edit_sim > 0.0).then_some(Partial {
            cascade: p.cascade,
            edit_sim,
        })
    });
    outcome.stats.elapsed = start.elapsed();
    outcome
}

/// Names of the registered solvers; the first is the default. `beam-ends-tree` and
/// `beam-ends-chain` are [`EndsSolver`]: `beam`, and when `beam` finds no fit, a search
/// from the outputs' end (for long cascades), the first trying more chains of undos than
/// the second (the vetting panel's member). `beam` is [`PriorSolver`] (the most probable
/// fit); `beam-v1` is the beam search alone, as it was before (the first fit it finds),
/// kept to be measured side by side; `beam-distance` and `beam-hunks` are `beam-v1` with
/// one of its two rankings.
pub const SOLVER_NAMES: &[&str] = &{
    let mut names = [""; SOLVERS.len()];
    let mut k = 0;
    while k < SOLVERS.len() {
        names[k] = SOLVERS[k].0;
        k += 1;
    }
    names
};

/// The registered solvers, each with one line saying what it is (for `--help`); the first
/// is the default, and [`SOLVER_NAMES`] is their names.
pub const SOLVERS: &[(&str, &str)] = &[
    (
        "beam-ends-tree",
        "beam-ends-chain, but trying short chains of undos (1 to 3, each of the best three at the last step) where it tries single undos; fits the most long cascades (25+ rules)",
    ),
    (
        "beam-ends-chain",
        "beam for half the time; if it finds no fit, last rules undone from the outputs (a chain of 4, or one) and the rest fitted forward, which fits long cascades (20+ rules) beam misses",
    ),
    (
        "beam",
        "the most probable fit: beam-v1's fit, then a simpler, more probable one that fits too",
    ),
    (
        "beam-v1",
        "beam search, distance and hunk rankings in turn; the first fit it finds",
    ),
    (
        "beam-distance",
        "beam-v1 ranking by Levenshtein distance to the outputs alone",
    ),
    (
        "beam-hunks",
        "beam-v1 ranking by estimated rules left (alignment hunks) alone",
    ),
];

/// The solver used when none is named. It is `beam` wherever `beam` fits in half the
/// time; on the published length-30 file it fits 52 of 64 at 30 s where
/// `beam-ends-chain` fits 48 and `beam` 33, and it loses nothing on Lite at 10 s
/// (`benches/solve/ends.md`, sections 7 and 13).
pub const DEFAULT_SOLVER: &str = "beam-ends-tree";

/// The revision of the registered solvers' answers: raise it whenever a change makes some
/// solver (or [`solve_probing`]) answer differently for the same instance and budget. A
/// `pbebench solve` journal records it, and one of another revision is not resumed, so
/// that one output never mixes the answers of two versions of a solver of the same name.
///
/// Revision 2: `beam` became the description-length solver ([`PriorSolver`]; the earlier
/// one is `beam-v1`), and a node-capped repair is counted in evaluations. Revision 3:
/// [`solve_probing`] probes each rule alone, letter pairs (or letters) and the pieces of
/// folded patterns, and goes on after a re-solve that runs out of time. Revision 4:
/// [`solve_probing`] packs short queries into long probes, mends a surprised candidate
/// and re-solves from it ([`Solver::solve_from`]). Revision 5: [`solve_probing`]'s
/// random stretches hold letter pairs no probe held yet, where they can. Revision 6:
/// [`solve_probing`] also probes every form a pattern passes through as the candidate's
/// other rules rewrite it, their pieces, and these forms with one rewrite undone.
/// Revision 7: [`solve_probing`] packs the pair cover into long probes where the oracle
/// takes them, and covers pairs in up to 16 probes instead of 12. Revision 8:
/// `beam-ends-chain` re-solves from probing's candidate ([`Solver::solve_from`]) in its
/// forward half. Revision 9: [`solve_probing`] searches an order of a surprised
/// candidate's rules before a re-solve, and in packed rounds probes the strings around
/// its rules before random stretches. Revision 10: the default solver is `beam-ends-tree`
/// (`beam-ends-chain` with short chains of undos in place of its single undos).
pub const SOLVER_REVISION: u32 = 10;

/// The registered solver called `name`, or `None`.
pub fn solver_by_name(name: &str) -> Option<Box<dyn Solver>> {
    match name {
        "beam" => Some(Box::new(PriorSolver::default())),
        "beam-v1" => Some(Box::new(BeamSolver::default())),
        "beam-distance" => Some(Box::new(BeamSolver {
            ranking: Ranking::Distance,
            ..BeamSolver::default()
        })),
        "beam-hunks" => Some(Box::new(BeamSolver {
            ranking: Ranking::Hunks,
            ..BeamSolver::default()
        })),
        "beam-ends-tree" => Some(Box::new(EndsSolver {
            aligned: true,
            chain: 4,
            short_chains: true,
            ..EndsSolver::default()
        })),
        "beam-ends-chain" => Some(Box::new(EndsSolver {
            aligned: true,
            chain: 4,
            ..EndsSolver::default()
        })),
        // Experiments (issue 40), not listed in SOLVER_NAMES: `benches/solve/ends.md`.
        "beam-ends" => Some(Box::new(EndsSolver::default())),
        "beam-ends-aligned" => Some(Box::new(EndsSolver {
            aligned: true,
            ..EndsSolver::default()
        })),
        "beam-ends-detours" => Some(Box::new(EndsSolver {
            aligned: true,
            chain: 4,
            detours: 4,
            ..EndsSolver::default()
        })),
        "beam-ends-chain-only" => Some(Box::new(EndsSolver {
            aligned: true,
            chain: 4,
            tries: 1,
            ..EndsSolver::default()
        })),
        _ => None,
    }
}

/// The best registered solver.
pub fn default_solver() -> Box<dyn Solver> {
    solver_by_name(DEFAULT_SOLVER).expect("the default solver is registered")
}

/// Solves every problem with `solver`, `threads` at a time (one core each), calling
/// `on_done(k, outcome)` after problem `k`; the outcomes come back in the order of
/// `problems`.
pub fn solve_all(
    solver: &dyn Solver,
    problems: &[Problem],
    budget: &Budget,
    threads: usize,
    on_done: impl Fn(usize, &SolveOutcome) + Sync,
) -> Result<Vec<SolveOutcome>, rayon::ThreadPoolBuildError> {
    in_pool(threads, problems.len(), |k| {
        let outcome = solver.solve(&problems[k], budget);
        on_done(k, &outcome);
        outcome
    })
}

/// `work(k)` for every `k` in `0..n`, `threads` at a time, one job per thread; the results
/// in the order of `k`.
pub(crate) fn in_pool<T: Send>(
    threads: usize,
    n: usize,
    work: impl Fn(usize) -> T + Sync,
) -> Result<Vec<T>, rayon::ThreadPoolBuildError> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()?;
    Ok(pool.install(|| (0..n).into_par_iter().with_max_len(1).map(&work).collect()))
}

#[cfg(test)]
mod tests;
