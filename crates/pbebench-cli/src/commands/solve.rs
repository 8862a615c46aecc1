//! `pbebench solve` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench solve`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench solve`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench solve' is not implemented yet")
}
