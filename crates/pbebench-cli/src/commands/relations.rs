//! `pbebench relations` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench relations`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench relations`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench relations' is not implemented yet")
}
