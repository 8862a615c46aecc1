//! `pbebench inspect` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench inspect`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench inspect`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench inspect' is not implemented yet")
}
