//! `pbebench audit`: vet a dataset (gates, shortcuts, duplicates, labels, calibration),
//! print the findings and write them as JSON.

use super::args::{seconds, StatusEvery, Threads};
use super::output::{say, Outputs};
use crate::printer::{self, Progress};
use anyhow::{bail, Context};
use pbebench::dataset::read_dataset_with;
use pbebench::GoldCheck;
use pbebench_vet::audit::{
    audit, audit_reorder, AuditOptions, AuditProgress, ReorderAuditOptions, SolverCheck,
    Thresholds, DEFAULT_MAX_AMBIGUOUS, DEFAULT_MAX_COLLAPSED, DEFAULT_MAX_DUMMY,
    DEFAULT_MAX_SHORTCUT,
};
use pbebench_vet::{load_results, Panel};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `pbebench audit`.
#[derive(clap::Args)]
#[command(
    after_help = "Gates (each a largest share of instances; docs/audit.md): gold 0 (fixed), \
--max-dummy, --max-shortcut (each baseline), --max-ambiguous, --max-collapsed (needs --results \
of 2 or more solvers). Every flagged instance is listed in --out with its reasons.\n\n\
Exit status: 0 when every gate passes, 1 when a gate fails (one line each on standard error), \
2 on bad input.\n\n\
Examples:\n  pbebench audit --dataset lite.jsonl\n  \
pbebench audit --dataset lite.jsonl --results beam=runs/beam --results gpt=gpt.per-instance.jsonl --out audit.json"
)]
pub struct Args {
    /// Dataset to audit (pbebench JSONL or the authors' published format).
    #[arg(long, value_name = "FILE")]
    dataset: PathBuf,
    /// Scored results of one solver on this dataset, for calibration (repeat for a panel):
    /// [LABEL=]FILE[,FILE] with the per-instance JSONL of `pbebench score --per-instance`
    /// (optionally with its --out summary), or a directory holding them.
    #[arg(long = "results", value_name = "R", num_args = 1..)]
    results: Vec<String>,
    /// Where to write the audit as JSON ("-": standard output, and the text goes to
    /// standard error).
    #[arg(long, value_name = "FILE", default_value = "audit.json")]
    out: PathBuf,
    /// Skip the built-in solver's search for cascades shorter than stated.
    #[arg(long)]
    no_solver: bool,
    /// Solver of the stated-length check (beam by default: the default solver's search
    /// from the outputs' end would take half of the node budget below)
    #[arg(long, default_value = pbebench_vet::SolverCheck::DEFAULT_NAME, value_parser = super::args::solver())]
    solver: String,
    /// Search nodes per solve of that check (bounds the cost; the solver's repair step is
    /// counted in evaluations under it, so the counts do not depend on the load).
    #[arg(long, value_name = "N", default_value_t = 600)]
    solver_nodes: u64,
    /// Wall-clock backstop per solve, in seconds (at most 1000000).
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = seconds)]
    solver_time: Duration,
    /// Flag instances whose shortest found cascade has at most this share of the stated rules.
    #[arg(long, value_name = "R", default_value_t = 0.6)]
    shorter_ratio: f64,
    /// A calibration slice collapses when at least this share is solved by all or by none.
    #[arg(long, value_name = "R", default_value_t = 0.95)]
    collapse: f64,
    /// Gate: the largest share of instances on which a dummy answer (empty, identity)
    /// passes or earns any reward.
    #[arg(long, value_name = "SHARE", default_value_t = DEFAULT_MAX_DUMMY)]
    max_dummy: f64,
    /// Gate: the largest share of instances each shortcut baseline (identity, single-rule,
    /// memoriser) may resolve.
    #[arg(long, value_name = "SHARE", default_value_t = DEFAULT_MAX_SHORTCUT)]
    max_shortcut: f64,
    /// Gate: the largest share of ambiguous instances (a fitting answer not equivalent to
    /// the gold).
    #[arg(long, value_name = "SHARE", default_value_t = DEFAULT_MAX_AMBIGUOUS)]
    max_ambiguous: f64,
    /// Gate: the largest share of scored instances every solver of the --results panel
    /// passes, or none does.
    #[arg(long, value_name = "SHARE", default_value_t = DEFAULT_MAX_COLLAPSED)]
    max_collapsed: f64,
    /// Attackers of the identifiability check, comma-separated: neighbours (the gold's
    /// cascades one edit away), splices[@NODES] (the gold with up to 3 consecutive rules
    /// re-solved), SOLVER@NODES[:sSEED][:fromLEN] (:fromLEN: on golds of LEN rules or
    /// more only), identity, single-rule, memoriser, shortcuts (the three); "none" skips
    /// the check.
    #[arg(long, value_name = "LIST", default_value = pbebench_vet::DEFAULT_PANEL)]
    panel: String,
    /// Seed of the identifiability solvers' example orders.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Examples listed per finding.
    #[arg(long, value_name = "N", default_value_t = 5)]
    examples: usize,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    status: StatusEvery,
}

/// Runs `pbebench audit`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.shorter_ratio > 0.0 && args.shorter_ratio < 1.0) {
        bail!(
            "--shorter-ratio must be between 0 and 1 (exclusive), not {}",
            args.shorter_ratio
        );
    }
    if !(args.collapse > 0.5 && args.collapse <= 1.0) {
        bail!("--collapse must be in (0.5, 1], not {}", args.collapse);
    }
    for (flag, share) in [
        ("--max-dummy", args.max_dummy),
        ("--max-shortcut", args.max_shortcut),
        ("--max-ambiguous", args.max_ambiguous),
        ("--max-collapsed", args.max_collapsed),
    ] {
        if !(0.0..=1.0).contains(&share) {
            bail!("{flag} must be a share from 0 to 1 (0.05 for 5%), not {share}",);
        }
    }
    if args.solver_nodes == 0 {
        bail!("--solver-nodes must be at least 1");
    }
    if pbebench_solve::solver_by_name(&args.solver).is_none() {
        bail!(
            "unknown solver '{}' (--solver); available: {}",
            args.solver,
            pbebench_solve::SOLVER_NAMES.join(", ")
        );
    }
    let identifiability = match args.panel.as_str() {
        "none" => None,
        text => Some((text.parse::<Panel>().context("--panel")?, args.seed)),
    };
    if super::reorder_set::is_reorder_dataset(&args.dataset)? {
        return run_reorder(&args);
    }
    // The audit reads golds that contradict their examples, to flag them (its gold gate);
    // every other reader refuses them.
    let dataset = read_dataset_with(&args.dataset, GoldCheck::Bounded)?;
    if dataset.is_empty() {
        bail!("{}: the dataset has no instances", args.dataset.display());
    }
    let name = args.dataset.display().to_string();
    let (panel, warnings) = load_results(&args.results, Some((&dataset, &name)))?;
    let mut files = Outputs::new();
    files.input("--dataset", &args.dataset);
    for set in &panel {
        for source in &set.sources {
            files.input("--results", source);
        }
    }
    let checked = files.output("--out", &args.out).check()?;
    for set in &panel {
        set.require_instances()?;
    }
    for w in &warnings {
        printer::warn(w);
    }
    // Opened first so that an unwritable path fails before the work, not after.
    let out = checked.create(&args.out)?;
    let options = AuditOptions {
        solver: (!args.no_solver).then(|| SolverCheck {
            name: args.solver.clone(),
            max_nodes: args.solver_nodes,
            time_limit: args.solver_time,
        }),
        shorter_ratio: args.shorter_ratio,
        collapse: args.collapse,
        shown: args.examples,
        identifiability,
        thresholds: Thresholds {
            max_dummy: args.max_dummy,
            max_shortcut: args.max_shortcut,
            max_ambiguous: args.max_ambiguous,
            max_collapsed: args.max_collapsed,
        },
    };
    let pool = args.threads.pool()?;
    let started = std::time::Instant::now();
    let progress = Stages {
        every: args.status.status_every,
        current: std::sync::Mutex::default(),
    };
    let mut findings = pool.install(|| audit(&dataset, &name, &panel, &options, &progress));
    progress.finish();
    findings.warnings = warnings;
    let failed = findings.verdict.iter().flat_map(|v| v.failed());
    let failed: Vec<String> = failed.map(|gate| gate.line.clone()).collect();
    finish(&findings, findings.passed, &failed, out, &args.out, started)
}

/// Shows the findings, writes their JSON to `--out`, says which gates failed, and picks
/// the exit status (1 when a gate failed).
fn finish(
    findings: &(impl std::fmt::Display + serde::Serialize),
    passed: bool,
    failed: &[String],
    out: super::output::Out,
    path: &std::path::Path,
    started: std::time::Instant,
) -> anyhow::Result<ExitCode> {
    say(&findings.to_string(), out.is_stdout());
    let json = serde_json::to_string_pretty(findings)? + "\n";
    out.write_all(json.as_bytes())?;
    printer::note(format_args!(
        "audit: wrote {} in {:.1} s",
        path.display(),
        started.elapsed().as_secs_f64()
    ));
    for line in failed {
        eprintln!("audit FAILED {line}");
    }
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `pbebench audit` of a reordering set: the shortcut orders and the built-in search
/// (`--no-solver` skips it, `--solver-nodes` bounds it), gated by `--max-dummy` and
/// `--max-shortcut`.
fn run_reorder(args: &Args) -> anyhow::Result<ExitCode> {
    if !args.results.is_empty() {
        bail!("--results is for synthesis datasets: a reordering set has no calibration yet");
    }
    let problems = super::reorder_set::read_set(&args.dataset)?;
    let checked = Outputs::new()
        .input("--dataset", &args.dataset)
        .output("--out", &args.out)
        .check()?;
    let out = checked.create(&args.out)?;
    let options = ReorderAuditOptions {
        solver_nodes: (!args.no_solver).then_some(args.solver_nodes),
        thresholds: Thresholds {
            max_dummy: args.max_dummy,
            max_shortcut: args.max_shortcut,
            max_ambiguous: args.max_ambiguous,
            max_collapsed: args.max_collapsed,
        },
    };
    let started = std::time::Instant::now();
    let name = args.dataset.display().to_string();
    let findings = args
        .threads
        .pool()?
        .install(|| audit_reorder(&problems, &name, &options));
    let failed = findings.failed();
    finish(&findings, findings.passed, &failed, out, &args.out, started)
}

/// The stages on standard error, each with its progress (the solver's search and the
/// identifiability panel count instances: minutes on a whole preset).
struct Stages {
    every: Duration,
    current: std::sync::Mutex<Option<Progress>>,
}

impl Stages {
    fn current(&self) -> std::sync::MutexGuard<'_, Option<Progress>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn finish(&self) {
        if let Some(progress) = self.current().take() {
            progress.finish();
        }
    }
}

impl AuditProgress for Stages {
    fn stage(&self, name: &str) {
        self.finish();
        printer::note(format_args!("audit: {name} …"));
        let progress = Progress::start("audit", "done", 0, self.every);
        progress.set(0, name);
        *self.current() = Some(progress);
    }

    fn probed(&self, done: usize, total: usize) {
        self.searched(done, total);
    }

    fn searched(&self, done: usize, total: usize) {
        if let Some(progress) = &*self.current() {
            progress.set_counts(done, total);
        }
    }
}
