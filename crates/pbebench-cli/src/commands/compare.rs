//! `pbebench compare`: two results on the same dataset, each figure's difference with a
//! paired 95% interval and whether it is distinguishable from zero.

use super::args::{Format, FormatArg};
use crate::printer;
use pbebench_vet::{compare, load_results};
use std::process::ExitCode;

/// Arguments of `pbebench compare`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pbebench compare runs/beam runs/gpt\n  \
pbebench compare a=a.json,a.per.jsonl b=b.json,b.per.jsonl --format json\n\n\
B − A is paired by instance when the per-instance lines of both are given (`pbebench score \
--per-instance` writes them; a directory is read for results.json and per-instance.jsonl); \
with summaries only the intervals are independent, and wider. Results of different datasets \
are refused.")]
pub struct Args {
    /// Results A: [LABEL=]FILE[,FILE] with a results.json and/or its per-instance JSONL, or
    /// a directory holding them.
    #[arg(value_name = "A")]
    a: String,
    /// Results B, the same way; the differences are B − A.
    #[arg(value_name = "B")]
    b: String,
    #[command(flatten)]
    format: FormatArg,
}

/// Runs `pbebench compare`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (sets, warnings) = load_results(&[args.a, args.b], None)?;
    let comparison = compare(&sets[0], &sets[1])?;
    for w in &warnings {
        printer::warn(w);
    }
    match args.format.format {
        Format::Text => print!("{comparison}"),
        Format::Json => println!("{}", serde_json::to_string_pretty(&comparison)?),
    }
    Ok(ExitCode::SUCCESS)
}
