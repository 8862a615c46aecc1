//! `pbebench demo`: generate a small Lite set, solve it with the built-in solvers, score,
//! audit and report, offline; prints where to open the report.

use super::args::{seconds_up_to, Threads};
use super::output::Outputs;
use anyhow::bail;
use pbebench::{figure, Column};
use pbebench_vet::{run_demo, DemoOptions};
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
    /// Instances in the Lite set: a multiple of 16 (one per category), from 16 to 2000.
    #[arg(long, value_name = "N", default_value_t = 128)]
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
    let summary = pool.install(|| run_demo(&options, &|line| eprintln!("{line}")))?;
    println!();
    let w = summary
        .leaderboard
        .iter()
        .map(|(l, _, _)| l.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let (best, reward) = (Column::BEST_OF_K.header, Column::MEAN_REWARD.header);
    println!("{:<w$} {best:>9} {reward:>11}", "results");
    for (label, pass, mean) in &summary.leaderboard {
        println!(
            "{label:<w$} {:>9} {:>11}",
            figure(Some(*pass)),
            figure(Some(*mean))
        );
    }
    let a = &summary.audit;
    println!(
        "\naudit: {} — dummy floor (identity's mean reward) {:.3}, {} much-shorter cascades, {} paper≠exact labels, {} duplicate groups",
        if a.passed { "every gate passed" } else { "A GATE FAILED" },
        a.gates.identity_fractional_floor,
        a.shortcuts.stated_length.much_shorter.count,
        a.labels.paper_vs_exact.count,
        a.duplicates.identical.groups + a.duplicates.renamed.groups,
    );
    println!(
        "done in {:.1} s. Open the report: {}",
        summary.seconds,
        super::report::file_url(&summary.index)
    );
    println!(
        "(dataset {}, audit {}/audit.json, runs {}/runs/)",
        summary.dataset.display(),
        args.out.display(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
