//! `pbebench apply`: run a cascade over words.

use super::cascade_arg::read_cascade;
use anyhow::Context;
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Arguments of `pbebench apply`.
#[derive(clap::Args)]
#[command(
    after_help = "Example: pbebench apply --cascade '[[\"ab\",\"c\"],[\"c\",\"\"]]' xabc abab"
)]
pub struct Args {
    /// The cascade: a JSON array of [pattern, replacement] pairs, or @FILE holding one.
    #[arg(long)]
    cascade: String,
    /// Words to rewrite; one per line from standard input when none are given.
    words: Vec<String>,
}

/// Runs `pbebench apply`: one output line per word.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cascade = read_cascade(&args.cascade)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Each word within the bound of every untrusted cascade (`Cascade::apply_to_word`).
    let mut emit = |word: &str, which: &dyn Fn() -> String| -> anyhow::Result<bool> {
        let output = cascade.apply_to_word(word).map_err(|e| {
            anyhow::anyhow!(
                "{}: {e} (16 times the word's length, and at least 256): the cascade \
                 grows this word without bound",
                which()
            )
        })?;
        match writeln!(out, "{output}") {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
            Err(e) => Err(e).context("writing to standard output"),
        }
    };
    if args.words.is_empty() {
        for (n, line) in std::io::stdin().lock().lines().enumerate() {
            let line =
                line.with_context(|| format!("standard input line {}: not valid UTF-8", n + 1))?;
            if !emit(&line, &|| format!("standard input line {}", n + 1))? {
                return Ok(ExitCode::SUCCESS);
            }
        }
    } else {
        for (n, word) in args.words.iter().enumerate() {
            if !emit(word, &|| format!("word {} ({word:?})", n + 1))? {
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    match out.flush() {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing to standard output")?
        }
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}
