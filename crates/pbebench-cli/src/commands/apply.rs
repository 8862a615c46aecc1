//! `pbebench apply` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench apply`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench apply`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench apply' is not implemented yet")
}
