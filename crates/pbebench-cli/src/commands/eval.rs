//! `pbebench eval` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench eval`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench eval`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench eval' is not implemented yet")
}
