//! `pbebench generate` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench generate`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench generate`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench generate' is not implemented yet")
}
