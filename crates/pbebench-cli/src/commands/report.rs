//! `pbebench report` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench report`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench report`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench report' is not implemented yet")
}
