//! `pbebench inspect`: validate a dataset (ours or the authors' format) and summarise it.

use super::args::{Format, FormatArg};
use pbebench::DatasetStats;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `pbebench inspect`.
#[derive(clap::Args)]
#[command(
    after_help = "Exits 1 when some line is invalid (each is listed with its number and reason), 2 when the file \
cannot be read."
)]
pub struct Args {
    /// The dataset (JSONL).
    file: PathBuf,
    /// Also count instances whose category differs between the paper and exact classifiers.
    #[arg(long)]
    compare_relations: bool,
    #[command(flatten)]
    format: FormatArg,
    /// The same as --format json (the old spelling).
    #[arg(long, hide = true, conflicts_with = "format")]
    json: bool,
}

/// Runs `pbebench inspect`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let name = args.file.display().to_string();
    let stats = DatasetStats::of_file(&args.file, &name, args.compare_relations)?;
    if args.json || args.format.format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
    } else {
        print!("{stats}");
    }
    // A file without a single instance is no dataset, even with no bad line.
    Ok(if stats.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
