//! `pbebench solve`: run a built-in symbolic solver on every instance of a dataset and
//! write responses in the released answer format (so `pbebench score` reads them) plus
//! per-instance statistics. The solving, the journal that makes a run resumable and the
//! writing are `pbebench_solve::solve_dataset`'s; this parses the arguments and shows
//! progress.

use super::args::{seconds, ProbeLen, Resumable, Threads};
use super::output::{say, Checked, Outputs};
use crate::printer::{self, Progress};
use anyhow::{bail, Context};
use pbebench::dataset::read_dataset;
use pbebench_solve::{
    solve_dataset, solver_by_name, Budget, LawSolver, SolveJob, SolveProgress, SolveRunError,
    DEFAULT_SOLVER, SOLVER_NAMES,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Arguments of `pbebench solve`.
#[derive(clap::Args)]
#[command(
    after_help = "A long run is resumable: each instance's result is appended to \
OUT.partial as soon as it is known, and a later run of the same command (same solver and time \
limit) solves only the instances not in it. The outputs are written, and the journal removed, \
at the end.

With --probe-budget K the solver may run each instance's hidden cascade on up to K inputs of \
its choice (interactive mode, docs/interactive.md), through the same sealed oracle as `pbebench eval \
--interactive`: it solves the visible examples, builds rival cascades that fit them as well, \
probes the shortest inputs on which they differ from its answer, then each pattern and \
replacement of its rules alone, every pair of letters (every letter on large alphabets, \
unless --max-probe-len lets short pieces that hold every pair go many to a probe: 256 for the \
full preset's 52 letters), pieces of its patterns, stretches of the visible inputs and random stretches; short \
queries go several to a probe, joined by a letter its rules leave alone. Whenever an answer \
surprises it, it mends its answer with the rule a probe showed, or solves again from it with \
the answers as examples, until the budget is spent. Every probe and its output is in the statistics line of its instance \
(`probes`, `probes_used`), as are `recovered` and `behaviour` (exact, over the instance's \
input space) whenever the instance has a gold cascade. The time limit then holds for the \
whole loop of an instance.",
    mut_arg("out", |a| a.help("Where to write the responses JSONL (`{\"id\", \"response\"}` per \
        instance; \"-\": standard output, without a journal)")),
    mut_arg("stats_json", |a| a.help("Where to write per-instance statistics JSONL (time, \
        effort, length found, limit hit; \"-\": standard output)")),
    mut_arg("max_probe_len", |a| a.requires("probe_budget")
        .help("With --probe-budget: the hidden cascade takes probe inputs of up to N letters \
               (or twice the longest visible input, when longer). Longer probes let the solver \
               hold every pair of letters, which finds hidden two-letter intermediates")),
)]
pub struct Args {
    /// Dataset to solve (pbebench JSONL or the authors' published format).
    #[arg(long)]
    dataset: PathBuf,
    /// Solver to use
    #[arg(long, default_value = DEFAULT_SOLVER, value_parser = super::args::solver())]
    solver: String,
    /// Wall-clock limit per instance, in seconds (at most 1000000).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = seconds)]
    time_limit: Duration,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    output: Resumable,
    /// Let the solver probe each instance's hidden cascade on up to K inputs (see below);
    /// needs instances with a gold cascade.
    #[arg(long, value_name = "K")]
    probe_budget: Option<usize>,
    #[command(flatten)]
    max_probe_len: ProbeLen,
    /// Cross-validate instead (real word lists): hold out this share of each instance's
    /// words (spread evenly, the same every run), solve on the rest, and print Edit_Sim and
    /// exact matches on the held-out words, against the identity and against the fit of
    /// the seen words, per language; --out gets one JSON line per instance.
    #[arg(long, value_name = "SHARE", conflicts_with = "probe_budget")]
    holdout: Option<f64>,
    /// Real-data mode (word lists): sound laws that generalise instead of a fit of every
    /// word. A rule is taken only when it brings several words closer to their reflex and
    /// takes none further (how many, chosen by a cross-validation inside the words the
    /// solver sees); the words no law reaches are left as they are. Deterministic: the
    /// answer depends on the words alone, not on the time limit or threads.
    #[arg(long, conflicts_with_all = ["solver", "probe_budget"])]
    real: bool,
    #[command(flatten)]
    budget: super::solve_budget::BudgetArgs,
}

/// Runs `pbebench solve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let solver = if args.real {
        Some(Box::new(LawSolver::default()) as Box<dyn pbebench_solve::Solver>)
    } else {
        solver_by_name(&args.solver)
    };
    let Some(solver) = solver else {
        bail!(
            "unknown solver '{}' (--solver); available: {}",
            args.solver,
            SOLVER_NAMES.join(", ")
        );
    };
    let threads = args.threads.count();
    let mut files = Outputs::new();
    files.input("--dataset", &args.dataset);
    args.output.declare(&mut files);
    files.output_opt("--plot", args.budget.plot());
    let checked = files.check()?;
    let instances = read_dataset(&args.dataset)?;
    if instances.is_empty() {
        bail!("{}: the dataset holds no instances", args.dataset.display());
    }
    let instances = args.budget.apply(instances, args.holdout)?;
    if args.budget.laws() && pbebench_io::is_stdout(&args.output.out) {
        bail!("--laws reads the answers back from --out: give --out a file, not -");
    }
    if let Some(share) = args.holdout {
        return holdout(&args, &instances, solver.as_ref(), threads, share, &checked);
    }
    let job = SolveJob {
        solver: solver.as_ref(),
        budget: Budget::time(args.time_limit),
        threads,
        out: &args.output.out,
        stats: args.output.stats_json(),
        fresh: args.output.fresh,
        probe_budget: args.probe_budget,
        probe_len: args.max_probe_len.get(),
    };
    let bar = Shown(Progress::start(
        "solve",
        "done",
        instances.len(),
        args.output.status.status_every,
    ));
    let solved = solve_dataset(&instances, &job, &bar);
    bar.0.finish();
    let solved = solved
        .map_err(|e| match e {
            SolveRunError::Oracle(e) => anyhow::anyhow!("--probe-budget: {e}"),
            e => e.into(),
        })
        .with_context(|| args.dataset.display().to_string())?;
    if let Some(e) = &solved.journal_failure {
        printer::warn(format!("{e}: this run cannot be resumed if interrupted"));
    }
    let (n, ok, resumed) = (solved.instances, solved.solved, solved.resumed);
    printer::note(format!(
        "{}: solved {ok}/{n} ({:.1}%) with '{}', {threads} thread(s), {} s limit{}",
        args.dataset.display(),
        100.0 * ok as f64 / n as f64,
        solver.name(),
        args.time_limit.as_secs_f64(),
        if resumed > 0 {
            format!(" ({resumed} resumed)")
        } else {
            String::new()
        }
    ));
    if args.budget.laws() {
        print!(
            "{}",
            super::solve_budget::laws(&instances, &args.output.out)?
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--holdout`: cross-validates, writes the rows to --out and prints the table.
fn holdout(
    args: &Args,
    instances: &[pbebench::Instance],
    solver: &dyn pbebench_solve::Solver,
    threads: usize,
    share: f64,
    files: &Checked,
) -> anyhow::Result<ExitCode> {
    if !(share > 0.0 && share < 1.0) {
        bail!("--holdout must be a share between 0 and 1 (exclusive), not {share}");
    }
    let budget = Budget::time(args.time_limit);
    let progress = Progress::start(
        "solve --holdout",
        "done",
        instances.len() * args.budget.runs(),
        args.output.status.status_every,
    );
    let done = AtomicUsize::new(0);
    let on_done = |_| {
        progress.set(done.fetch_add(1, Ordering::Relaxed) + 1, "");
    };
    if args.budget.sweeps() {
        let (out, budget) = (&args.output.out, &budget);
        let table = super::solve_budget::sweep(
            &args.budget,
            instances,
            solver,
            budget,
            threads,
            share,
            files,
            out,
            on_done,
        );
        progress.finish();
        let table = table?;
        if pbebench_io::is_stdout(out) {
            eprint!("{table}");
        } else {
            print!("{table}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let rows = pbebench_solve::cross_validate(instances, solver, &budget, threads, share, on_done);
    progress.finish();
    let rows = rows.context("--holdout")?;
    files.create(&args.output.out)?.write(|out| {
        for row in &rows {
            serde_json::to_writer(&mut *out, row)?;
            std::io::Write::write_all(out, b"\n")?;
        }
        Ok(())
    })?;
    let table = pbebench_solve::HoldoutSummary(&rows);
    // Standard error when standard output holds the rows.
    say(&table.to_string(), pbebench_io::is_stdout(&args.output.out));
    Ok(ExitCode::SUCCESS)
}

/// The progress of the run: instances done, and solved.
struct Shown(Progress);

impl SolveProgress for Shown {
    fn resumed(&self, resumed: usize, solved: usize, total: usize, journal: &Path) {
        printer::note(format!(
            "resuming: {resumed} of {total} instances already done in {} (--fresh to start over)",
            journal.display()
        ));
        self.0.resumed(resumed, format!("{solved} solved"));
    }

    fn done(&self, done: usize, solved: usize, _total: usize) {
        self.0.set(done, format!("{solved} solved"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(dir: &std::path::Path, dataset: &str) -> Args {
        let path = dir.join("data.jsonl");
        std::fs::write(&path, dataset).unwrap();
        Args {
            dataset: path,
            solver: DEFAULT_SOLVER.to_owned(),
            time_limit: Duration::from_secs(5),
            threads: Threads::new(2),
            output: Resumable {
                out: dir.join("responses.jsonl"),
                stats_json: Some(dir.join("stats.jsonl")),
                fresh: false,
                status: super::super::args::StatusEvery {
                    status_every: Duration::from_secs(30),
                },
            },
            probe_budget: None,
            max_probe_len: ProbeLen::default(),
            holdout: None,
            real: false,
            budget: Default::default(),
        }
    }

    const TWO: &str = concat!(
        r#"{"inputs": ["xbu", "uxwkkg", "kib", "fjze", "cv"], "outputs": ["xhu", "uxwkkvzw", "kih", "fjxwye", "cv"], "programs": ["replace(\"z\", \"xwy\")", "replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 3}"#,
        "\n",
        r#"{"inputs": ["ab", "b"], "outputs": ["ab", "b"], "programs": ["replace(\"c\", \"d\")"], "cascade_length": 1}"#,
        "\n"
    );

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let zero_rules = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":0,"max_rule_len":3,"alphabet":"ab"}"#;
        let fails = |args: Args, phrase: &str| {
            let err = format!("{:#}", run(args).unwrap_err());
            assert!(err.contains(phrase), "expected '{phrase}' in: {err}");
        };
        fails(
            args(dir.path(), zero_rules),
            "data.jsonl:1: max_rules and max_rule_len must be positive",
        );
        let zero_len = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":2,"max_rule_len":0,"alphabet":"ab"}"#;
        fails(args(dir.path(), zero_len), "max_rule_len must be positive");
        let no_outputs =
            r#"{"id":"a","inputs":["ab"],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        let err = run(args(dir.path(), no_outputs)).unwrap_err();
        assert!(format!("{err:#}").contains("data.jsonl:1"), "{err:#}");
        let empty_outputs = r#"{"id":"a","inputs":["ab"],"outputs":[],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        fails(args(dir.path(), empty_outputs), "1 inputs but 0 outputs");
        fails(
            args(dir.path(), "{not json\n"),
            "data.jsonl:1: malformed JSON",
        );
        fails(args(dir.path(), ""), "no instances");
        let mut a = args(dir.path(), TWO);
        a.solver = "nope".into();
        assert!(format!("{:#}", run(a).unwrap_err()).contains("available: beam"));
        let mut a = args(dir.path(), TWO);
        a.dataset = dir.path().join("missing.jsonl");
        fails(a, "missing.jsonl: No such file");
        assert!(!dir.path().join("responses.jsonl").exists());
    }
}
