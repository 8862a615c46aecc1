//! `pbebench show`: one episode (or sample) of an evaluation run, readably.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `pbebench show`.
#[derive(clap::Args)]
#[command(after_help = "\
Example:
  pbebench show runs/lite__Qwen_Qwen3-8B --id lite-000123 --sample 0")]
pub struct Args {
    /// The run directory (holds run.sqlite).
    #[arg(value_name = "RUN")]
    run: PathBuf,

    /// The instance id.
    #[arg(long, value_name = "ID")]
    id: String,

    /// The sample (episode) index.
    #[arg(long, default_value_t = 0, value_name = "K")]
    sample: u32,
}

/// Runs `pbebench show`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    print!(
        "{}",
        pbebench_eval::transcript::render(&args.run, &args.id, args.sample)?
    );
    Ok(ExitCode::SUCCESS)
}
