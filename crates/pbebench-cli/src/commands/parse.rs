//! `pbebench parse` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench parse`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench parse`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench parse' is not implemented yet")
}
