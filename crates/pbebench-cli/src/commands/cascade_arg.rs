//! The `--cascade` argument shared by several subcommands: JSON text or `@FILE`.

use anyhow::Context;
use pbebench::Cascade;

/// Reads a cascade given as a JSON array of `[a, b]` pairs, or as `@FILE` holding one.
pub fn read_cascade(arg: &str) -> anyhow::Result<Cascade> {
    match arg.strip_prefix('@') {
        Some(path) => {
            let text = pbebench_io::read_input_string(path)
                .with_context(|| format!("cannot read cascade file {path}"))?;
            Cascade::from_json(text.trim()).with_context(|| format!("{path}: not a cascade"))
        }
        None => Cascade::from_json(arg).context("--cascade"),
    }
}
