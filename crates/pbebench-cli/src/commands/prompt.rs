//! `pbebench prompt` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench prompt`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench prompt`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench prompt' is not implemented yet")
}
