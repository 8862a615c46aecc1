//! A dataset solved under a node cap instead of a time limit, so that a run is a function
//! of the dataset, the solver and the cap alone (the same bytes on any machine, under any
//! load): the benchmarks in `benches/solve/` compare solver revisions this way.
//!
//! ```text
//! cargo run --release -p pbebench-solve --example solve_nodes -- \
//!     DATASET OUT STATS MAX_NODES [SOLVER [PROBE_BUDGET [PROBE_LEN [THREADS [TIME_LIMIT]]]]]
//! ```
//!
//! The time limit is out of reach by default (10⁶ s), so only the node cap (per solve)
//! stops a search; `MAX_NODES` 0 means no cap, for runs under a wall-clock `TIME_LIMIT`
//! (seconds, then required) instead, which are not reproducible byte for byte but reach
//! the solvers that the CLI does not list. `PROBE_BUDGET` 0 solves from the visible
//! examples only. The statistics lines hold `elapsed_ms` and the like, which vary; the
//! responses and the rest do not.
//!
//! With `SOLVE_NODES_GOLD=bounded` in the environment, a record's gold need not reproduce
//! its examples (it must stay within the limits): for problems made from someone else's
//! answer (`benches/solve/peel.py --from`), where no gold is known. Their `recovered`
//! column then means nothing; `solved` is checked against the examples as always.

use pbebench_solve::{solve_dataset, solver_by_name, Budget, SolveJob, SolveProgress};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

struct Quiet;

impl SolveProgress for Quiet {
    fn done(&self, _: usize, _: usize, _: usize) {}
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!(
            "usage: solve_nodes DATASET OUT STATS MAX_NODES [SOLVER [PROBE_BUDGET [PROBE_LEN [THREADS [TIME_LIMIT]]]]]"
        );
        return ExitCode::from(2);
    }
    let number = |k: usize, name: &str, default: u64| -> Result<u64, String> {
        match args.get(k) {
            None => Ok(default),
            Some(s) => s
                .parse()
                .map_err(|_| format!("{name} must be a whole number, not '{s}'")),
        }
    };
    let parsed = (|| {
        Ok::<_, String>((
            number(3, "MAX_NODES", 0)?,
            number(5, "PROBE_BUDGET", 0)?,
            number(6, "PROBE_LEN", pbebench::probe::DEFAULT_PROBE_LEN as u64)?,
            number(7, "THREADS", 1)?,
            number(8, "TIME_LIMIT", 1_000_000)?,
        ))
    })();
    let (max_nodes, probe_budget, probe_len, threads, time_limit) = match parsed {
        Ok(v) => v,
        Err(e) => {
            eprintln!("solve_nodes: {e}");
            return ExitCode::from(2);
        }
    };
    if max_nodes == 0 && args.get(8).is_none() {
        eprintln!(
            "solve_nodes: MAX_NODES 0 (no cap) needs a TIME_LIMIT, or a solve could run for days"
        );
        return ExitCode::from(2);
    }
    let name = args.get(4).map_or(pbebench_solve::DEFAULT_SOLVER, |s| s);
    let Some(solver) = solver_by_name(name) else {
        eprintln!("solve_nodes: unknown solver '{name}'");
        return ExitCode::from(2);
    };
    let gold = match std::env::var("SOLVE_NODES_GOLD").as_deref() {
        Err(std::env::VarError::NotPresent) | Ok("reproduces") => pbebench::GoldCheck::Reproduces,
        Ok("bounded") => pbebench::GoldCheck::Bounded,
        Err(std::env::VarError::NotUnicode(_)) => {
            eprintln!("solve_nodes: SOLVE_NODES_GOLD is 'reproduces' or 'bounded'");
            return ExitCode::from(2);
        }
        Ok(other) => {
            eprintln!("solve_nodes: SOLVE_NODES_GOLD is 'reproduces' or 'bounded', not '{other}'");
            return ExitCode::from(2);
        }
    };
    let instances = match pbebench::dataset::read_dataset_with(Path::new(&args[0]), gold) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("solve_nodes: {e}");
            return ExitCode::from(2);
        }
    };
    let job = SolveJob {
        solver: solver.as_ref(),
        budget: Budget {
            time_limit: Duration::from_secs(time_limit),
            max_nodes: (max_nodes > 0).then_some(max_nodes),
        },
        threads: threads as usize,
        out: Path::new(&args[1]),
        stats: Some(Path::new(&args[2])),
        fresh: true,
        probe_budget: (probe_budget > 0).then_some(probe_budget as usize),
        probe_len: probe_len as usize,
    };
    match solve_dataset(&instances, &job, &Quiet) {
        Ok(s) => {
            eprintln!("{}: solved {}/{}", args[0], s.solved, s.instances);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("solve_nodes: {e}");
            ExitCode::FAILURE
        }
    }
}
