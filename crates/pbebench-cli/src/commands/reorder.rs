//! `pbebench reorder`: the rule-reordering set of a dataset (`pbebench::reorder`'s
//! problems) and a summary of what was kept and skipped.

use super::args::Threads;
use super::output::{say, Outputs};
use crate::printer;
use pbebench::dataset::read_dataset;
use pbebench::reorder::{
    reorder_dataset_with, write_reorder_lines, ReorderStats, Scramble, EXACT_UP_TO,
};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `pbebench reorder`.
#[derive(clap::Args)]
#[command(after_help = "\
Each problem is the instance's own fields plus `scrambled` (its gold rules as [a, b] pairs, \
in a seeded order that changes at least one output), `order` (the gold order, as indices \
into `scrambled`) and `valid_orders` (how many of the n! orders, identical rules counted \
as distinct positions, reproduce every example; null beyond 8 rules). An instance every \
order of whose rules reproduces the examples is skipped, and counted.

The summary gives kept and skipped instances by cascade length and category, and by number \
of valid orders: the column `all` counts the skipped with their n! orders, as the authors' \
published `solution_counts` does.

Example: pbebench reorder --dataset adaptive_balanced_1008_complete.jsonl --out reorder.jsonl")]
pub struct Args {
    /// The dataset (JSONL, pbebench's format or the authors').
    #[arg(long)]
    dataset: PathBuf,
    /// Write the reordering problems here (atomically; "-" for standard output).
    #[arg(long)]
    out: PathBuf,
    /// Random seed; each instance's scramble depends only on it and the instance's id.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How the rules are scrambled: shuffle (a uniform permutation) or swap-first (the
    /// first rule exchanged with another, as in the authors' published reordering records)
    #[arg(long, default_value = "shuffle", value_name = "HOW")]
    scramble: Scramble,
    #[command(flatten)]
    threads: Threads,
}

/// Runs `pbebench reorder`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let checked = Outputs::new()
        .input("--dataset", &args.dataset)
        .output("--out", &args.out)
        .check()?;
    if super::reorder_set::is_reorder_dataset(&args.dataset)? {
        anyhow::bail!(
            "{}: this is a reordering set already (its lines have scrambled rules and an \
             order); `pbebench reorder` makes one from a synthesis dataset",
            args.dataset.display()
        );
    }
    let instances = read_dataset(&args.dataset)?;
    let out = checked.create(&args.out)?;
    let stdout_taken = out.is_stdout();
    let (kept, _, stats) = args
        .threads
        .pool()?
        .install(|| reorder_dataset_with(&instances, args.seed, args.scramble));
    out.write(|w| write_reorder_lines(w, &kept))?;
    say(&summary(&stats), stdout_taken);
    if !stdout_taken {
        printer::note(format_args!(
            "wrote {} reordering problems to {}",
            kept.len(),
            args.out.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary a user reads: totals, kept and skipped by length and category, and the
/// distribution of valid-order counts.
pub(super) fn summary(stats: &ReorderStats) -> String {
    let mut s = String::new();
    let skipped: usize = stats.skipped.values().sum();
    let _ = write!(
        s,
        "{} instances: {} kept, {skipped} skipped",
        stats.total, stats.kept
    );
    let reasons: Vec<String> = (stats.skipped.iter())
        .map(|(skip, n)| format!("{}: {n}", skip.label()))
        .collect();
    if !reasons.is_empty() {
        let _ = write!(s, " ({})", reasons.join(", "));
    }
    s.push_str("\n\nlength  kept  skipped\n");
    for (len, (k, sk)) in &stats.by_length {
        let _ = writeln!(s, "{len:>6}  {k:>4}  {sk:>7}");
    }
    s.push_str("\ncategory  kept  skipped\n");
    for (cat, (k, sk)) in &stats.by_category {
        let cat = cat.map_or("none".to_owned(), |c| c.to_string());
        let _ = writeln!(s, "{cat:>8}  {k:>4}  {sk:>7}");
    }
    s.push_str("\nvalid orders  kept  skipped  all\n");
    for (count, (k, sk)) in &stats.valid_orders {
        let count = count.map_or(format!("> {EXACT_UP_TO} rules"), |c| c.to_string());
        let _ = writeln!(s, "{count:>12}  {k:>4}  {sk:>7}  {:>3}", k + sk);
    }
    s
}
