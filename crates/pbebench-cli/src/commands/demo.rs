//! `pbebench demo`: generate a small Lite set and its vetted counterpart, solve both with
//! the built-in solvers, score, audit and report, offline; ends with Pass@1 beside
//! Recovered@1 (95% intervals) and each set's audit verdict.

use super::args::{seconds_up_to, Threads};
use super::output::Outputs;
use crate::printer;
use anyhow::bail;
use pbebench_vet::audit::percent;
use pbebench_vet::{run_demo, DemoOptions, DemoSummary, Rate};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `pbebench demo`.
#[derive(clap::Args)]
#[command(after_help = "Example: pbebench demo --out demo && xdg-open demo/report/index.html")]
pub struct Args {
    /// Directory for the dataset, runs, audit and report.
    #[arg(long, value_name = "DIR", default_value = "pbebench-demo")]
    out: PathBuf,
    /// Instances in the plain Lite set (the vetted one has as many slots): a multiple of
    /// 16 (one per category), from 16 to 2000.
    #[arg(long, value_name = "N", default_value_t = 64)]
    size: usize,
    /// Generator seed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Solver time limit per instance, in seconds (at most 60).
    #[arg(long, value_name = "SECONDS", default_value = "0.5", value_parser = |s: &str| seconds_up_to(s, 60.0))]
    time_limit: Duration,
    #[command(flatten)]
    threads: Threads,
}

/// Runs `pbebench demo`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(16..=2000).contains(&args.size) || !args.size.is_multiple_of(16) {
        let below = (args.size / 16 * 16).clamp(16, 1984);
        bail!(
            "--size must be a multiple of 16 (the Lite set balances 16 categories) from 16 to 2000, not {}; try {below} or {}",
            args.size,
            below + 16
        );
    }
    // The demo writes its files itself (`run_demo`), all inside --out.
    Outputs::new().output_dir("--out", &args.out, []).check()?;
    let options = DemoOptions {
        out: args.out.clone(),
        size: args.size,
        seed: args.seed,
        time_limit: args.time_limit,
    };
    let pool = args.threads.pool()?;
    let summary = pool.install(|| run_demo(&options, &|line| printer::note(line)))?;
    print!("{}", final_table(&summary));
    println!(
        "done in {:.1} s. Open the reports: {} (plain), {} (vetted)",
        summary.seconds,
        super::report::file_url(&summary.sets[0].index),
        super::report::file_url(&summary.sets[1].index),
    );
    println!(
        "(datasets, audit.json and runs/ in {} and {}/vetted)",
        args.out.display(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The demo's closing table: for each set, each solver's Pass@1 and Recovered@1 with
/// their 95% intervals, then each set's audit verdict.
fn final_table(summary: &DemoSummary) -> String {
    use std::fmt::Write as _;
    let rate = |r: Option<Rate>| {
        r.map_or_else(
            || "–".to_owned(),
            |r| format!("{:.3} [{:.3}, {:.3}]", r.value, r.lo, r.hi),
        )
    };
    let w = (summary.sets.iter().flat_map(|s| &s.rows))
        .map(|r| r.label.chars().count() + 2)
        .chain(summary.sets.iter().map(|s| s.name.chars().count()))
        .max()
        .unwrap_or(0)
        .max(12);
    let mut t = String::new();
    let _ = writeln!(
        t,
        "\n{:<w$}  {:<22}  Recovered@1 [95% CI]",
        "set / solver", "Pass@1 [95% CI]"
    );
    for set in &summary.sets {
        let _ = writeln!(t, "{:<w$}  ({} instances)", set.name, set.instances);
        for row in &set.rows {
            let _ = writeln!(
                t,
                "  {:<w2$}  {:<22}  {}",
                row.label,
                rate(Some(row.pass_at_1)),
                rate(row.recovered_at_1),
                w2 = w - 2
            );
        }
    }
    let _ = writeln!(
        t,
        "Pass@1: the answer reproduces every visible example. Recovered@1: it is the hidden \
         behaviour (equivalent to the gold on every input). 95% Wilson intervals over instances."
    );
    let _ = writeln!(t);
    for (k, set) in summary.sets.iter().enumerate() {
        let verdict = set.audit.verdict.as_ref();
        let failures = verdict.map(|v| v.failures_in_short()).unwrap_or_default();
        let _ = match (set.audit.passed, k) {
            (false, 0) => writeln!(
                t,
                "{}: audit FAILS ({failures}) — expected: this is why pbebench vets",
                set.name
            ),
            (false, _) => writeln!(
                t,
                "{}: audit FAILS ({failures}) — not expected of a vetted set: see {}",
                set.name,
                set.dataset.with_file_name("audit.txt").display()
            ),
            (true, _) => writeln!(
                t,
                "{}: audit passes every gate ({})",
                set.name,
                verdict.map_or_else(String::new, in_short)
            ),
        };
    }
    let _ = writeln!(
        t,
        "vetting: {} of {} slots kept ({} with a fresh instance), {} examples added",
        summary.vet.kept, summary.vet.instances, summary.vet.replaced, summary.vet.added
    );
    t
}

/// The measured gates of a verdict in short: `ambiguous 0%, shortcut:memoriser 0%, …`.
fn in_short(v: &pbebench_vet::audit::Verdict) -> String {
    let cells: Vec<String> = (v.gates.iter())
        .filter(|g| g.gate != "gold")
        .filter_map(|g| {
            g.value
                .map(|x| format!("{} {} ≤ {}", g.gate, percent(x), percent(g.threshold)))
        })
        .collect();
    cells.join(", ")
}
