//! `pbebench demo` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench demo`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench demo`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench demo' is not implemented yet")
}
