//! `pbebench solve`: run a built-in symbolic solver on every instance of a dataset and
//! write responses in the released answer format (so `pbebench score` reads them) plus
//! per-instance statistics. The solving, the journal that makes a run resumable and the
//! writing are `pbebench_solve::solve_dataset`'s; this parses the arguments and shows
//! progress.

use super::status::StatusLines;
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use pbebench::dataset::read_dataset;
use pbebench_io::Files;
use pbebench_solve::{
    solve_dataset, solver_by_name, Budget, SolveJob, SolveProgress, DEFAULT_SOLVER, SOLVER_NAMES,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `pbebench solve`.
#[derive(clap::Args)]
#[command(
    after_help = "A long run is resumable: each instance's result is appended to \
OUT.partial as soon as it is known, and a later run of the same command (same solver and time \
limit) solves only the instances not in it. The outputs are written, and the journal removed, \
at the end.

With --probe-budget K the solver may run each instance's hidden cascade on up to K inputs of \
its choice (interactive mode, SPEC §7), through the same sealed oracle as `pbebench eval \
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
whole loop of an instance."
)]
pub struct Args {
    /// Dataset to solve (pbebench JSONL or the authors' published format).
    #[arg(long)]
    dataset: PathBuf,
    /// Solver to use.
    #[arg(long, default_value = DEFAULT_SOLVER)]
    solver: String,
    /// Wall-clock limit per instance, in seconds.
    #[arg(long, default_value_t = 10.0)]
    time_limit: f64,
    /// Instances solved in parallel (one core each); default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Where to write the responses JSONL (`{"id", "response"}` per instance; "-":
    /// standard output, without a journal).
    #[arg(long)]
    out: PathBuf,
    /// Where to write per-instance statistics JSONL (time, effort, length found, limit
    /// hit; "-": standard output).
    #[arg(long = "stats-json", alias = "stats", value_name = "FILE")]
    stats: Option<PathBuf>,
    /// Solve every instance again, discarding the results an interrupted run of this
    /// command kept in OUT.partial (by default they are reused).
    #[arg(long)]
    fresh: bool,
    /// Let the solver probe each instance's hidden cascade on up to K inputs (see below);
    /// needs instances with a gold cascade.
    #[arg(long, value_name = "K")]
    probe_budget: Option<usize>,
    /// With --probe-budget: the hidden cascade takes probe inputs of up to N letters (or
    /// twice the longest visible input, when longer). Longer probes let the solver hold
    /// every pair of letters, which finds hidden two-letter intermediates
    #[arg(long, value_name = "N", requires = "probe_budget",
          default_value_t = pbebench::probe::DEFAULT_PROBE_LEN as u64,
          value_parser = clap::value_parser!(u64).range(1..=pbebench::probe::MAX_PROBE_LEN as u64))]
    max_probe_len: u64,
    /// Cross-validate instead (real word lists): hold out this share of each instance's
    /// words (spread evenly, the same every run), solve on the rest, and print Edit_Sim and
    /// exact matches on the held-out words, against the identity and against the fit of
    /// the seen words, per language; --out gets one JSON line per instance.
    #[arg(long, value_name = "SHARE", conflicts_with = "probe_budget")]
    holdout: Option<f64>,
    /// Seconds between status lines when standard error is no terminal.
    #[arg(long, hide = true, value_parser = super::status::parse_every, default_value = super::status::STATUS_EVERY)]
    status_every: Duration,
}

/// Runs `pbebench solve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Some(solver) = solver_by_name(&args.solver) else {
        bail!(
            "unknown solver '{}' (--solver); available: {}",
            args.solver,
            SOLVER_NAMES.join(", ")
        );
    };
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        bail!(
            "--time-limit must be a positive number of seconds, not {}",
            args.time_limit
        );
    }
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let mut files = Files::new();
    files
        .input("--dataset", &args.dataset)
        .output("--out", &args.out);
    if let Some(stats) = &args.stats {
        files.output("--stats-json", stats);
    }
    files.check()?;
    let instances = read_dataset(&args.dataset)?;
    if instances.is_empty() {
        bail!("{}: the dataset holds no instances", args.dataset.display());
    }
    if let Some(share) = args.holdout {
        return holdout(&args, &instances, solver.as_ref(), threads, share);
    }
    let job = SolveJob {
        solver: solver.as_ref(),
        budget: Budget::time(Duration::from_secs_f64(args.time_limit)),
        threads,
        out: &args.out,
        stats: args.stats.as_deref(),
        fresh: args.fresh,
        probe_budget: args.probe_budget,
        probe_len: args.max_probe_len as usize,
    };
    let bar = Bar::new(instances.len());
    let status = {
        let (counts, total) = (Arc::clone(&bar.counts), instances.len());
        let started = Instant::now();
        StatusLines::off_terminal(args.status_every, move || {
            let (done, solved) = counts.get();
            format!(
                "solve: {done}/{total} done, {solved} solved, {:.0} s",
                started.elapsed().as_secs_f64()
            )
        })
    };
    let solved = solve_dataset(&instances, &job, &bar);
    drop(status);
    let solved = solved.with_context(|| args.dataset.display().to_string())?;
    bar.bar.finish_and_clear();
    if let Some(e) = &solved.journal_failure {
        eprintln!("warning: {e}: this run cannot be resumed if interrupted");
    }
    let (n, ok, resumed) = (solved.instances, solved.solved, solved.resumed);
    eprintln!(
        "{}: solved {ok}/{n} ({:.1}%) with '{}', {threads} thread(s), {} s limit{}",
        args.dataset.display(),
        100.0 * ok as f64 / n as f64,
        solver.name(),
        args.time_limit,
        if resumed > 0 {
            format!(" ({resumed} resumed)")
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `--holdout`: cross-validates, writes the rows to --out and prints the table.
fn holdout(
    args: &Args,
    instances: &[pbebench::Instance],
    solver: &dyn pbebench_solve::Solver,
    threads: usize,
    share: f64,
) -> anyhow::Result<ExitCode> {
    if !(share > 0.0 && share < 1.0) {
        bail!("--holdout must be a share between 0 and 1 (exclusive), not {share}");
    }
    let budget = Budget::time(Duration::from_secs_f64(args.time_limit));
    let (done, total, started) = (
        Arc::new(AtomicUsize::new(0)),
        instances.len(),
        Instant::now(),
    );
    let status = {
        let done = Arc::clone(&done);
        StatusLines::off_terminal(args.status_every, move || {
            format!(
                "solve --holdout: {}/{total} done, {:.0} s",
                done.load(Ordering::Relaxed),
                started.elapsed().as_secs_f64()
            )
        })
    };
    let rows = pbebench_solve::cross_validate(instances, solver, &budget, threads, share, |_| {
        done.fetch_add(1, Ordering::Relaxed);
    });
    drop(status);
    let rows = rows.context("--holdout")?;
    let mut out = pbebench_io::Output::create(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    for row in &rows {
        serde_json::to_writer(&mut out, row)?;
        std::io::Write::write_all(&mut out, b"\n")?;
    }
    out.commit()
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let table = pbebench_solve::HoldoutSummary(&rows);
    if pbebench_io::is_stdout(&args.out) {
        eprint!("{table}"); // standard output holds the rows
    } else {
        print!("{table}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The progress bar on standard error (drawn on a terminal only), and the counts the
/// status lines read.
struct Bar {
    bar: ProgressBar,
    counts: Arc<Counts>,
}

/// Instances done and solved so far.
#[derive(Default)]
struct Counts(AtomicUsize, AtomicUsize);

impl Counts {
    fn set(&self, done: usize, solved: usize) {
        self.0.store(done, Ordering::Relaxed);
        self.1.store(solved, Ordering::Relaxed);
    }

    fn get(&self) -> (usize, usize) {
        (
            self.0.load(Ordering::Relaxed),
            self.1.load(Ordering::Relaxed),
        )
    }
}

impl Bar {
    fn new(total: usize) -> Self {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} solved {msg} [{elapsed_precise} < {eta}]",
            )
            .expect("the template is valid"),
        );
        bar.set_message("0");
        Bar {
            bar,
            counts: Arc::default(),
        }
    }

    fn show(&self, done: usize, solved: usize) {
        self.counts.set(done, solved);
        self.bar.set_position(done as u64);
        self.bar.set_message(solved.to_string());
    }
}

impl SolveProgress for Bar {
    fn resumed(&self, resumed: usize, solved: usize, total: usize, journal: &Path) {
        eprintln!(
            "resuming: {resumed} of {total} instances already done in {} (--fresh to start over)",
            journal.display()
        );
        self.show(resumed, solved);
    }

    fn done(&self, done: usize, solved: usize, _total: usize) {
        self.show(done, solved);
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
            time_limit: 5.0,
            threads: Some(2),
            out: dir.join("responses.jsonl"),
            stats: Some(dir.join("stats.jsonl")),
            fresh: false,
            probe_budget: None,
            max_probe_len: pbebench::probe::DEFAULT_PROBE_LEN as u64,
            holdout: None,
            status_every: Duration::from_secs(30),
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
        let err = run(args(dir.path(), zero_rules)).unwrap_err();
        assert!(
            format!("{err:#}")
                .contains("data.jsonl:1: max_rules and max_rule_len must be positive"),
            "{err:#}"
        );
        let zero_len = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":2,"max_rule_len":0,"alphabet":"ab"}"#;
        assert!(run(args(dir.path(), zero_len)).is_err());
        let no_outputs =
            r#"{"id":"a","inputs":["ab"],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        let err = run(args(dir.path(), no_outputs)).unwrap_err();
        assert!(format!("{err:#}").contains("data.jsonl:1"), "{err:#}");
        let empty_outputs = r#"{"id":"a","inputs":["ab"],"outputs":[],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        assert!(run(args(dir.path(), empty_outputs)).is_err());
        assert!(run(args(dir.path(), "{not json\n")).is_err());
        assert!(run(args(dir.path(), "")).is_err());
        let mut a = args(dir.path(), TWO);
        a.time_limit = 0.0;
        assert!(run(a).is_err());
        let mut a = args(dir.path(), TWO);
        a.solver = "nope".into();
        assert!(format!("{:#}", run(a).unwrap_err()).contains("available: beam"));
        let mut a = args(dir.path(), TWO);
        a.dataset = dir.path().join("missing.jsonl");
        assert!(run(a).is_err());
        assert!(!dir.path().join("responses.jsonl").exists());
    }
}
