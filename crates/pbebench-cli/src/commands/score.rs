//! `pbebench score` (not implemented yet).

use std::process::ExitCode;

/// Arguments of `pbebench score`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `pbebench score`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("'pbebench score' is not implemented yet")
}
