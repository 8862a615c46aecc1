//! `pbebench audit` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench audit`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench audit`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench audit' is not implemented yet")
}
