//! `pbebench`: generate PBE problems over string-rewrite cascades, solve, score, vet and
//! report. This binary only parses arguments and wires the library crates together.
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]

mod commands;
mod printer;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Allocations go to mimalloc: scoring reads and parses tens of megabytes of responses on
/// every core, and the system allocator's per-thread arenas spent a third of that time in
/// malloc, free and growing their heaps.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Multi-step programming-by-examples benchmarks over string-rewrite cascades.
#[derive(Parser)]
#[command(name = "pbebench", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    print: printer::PrintArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Generate a dataset (PBEBench presets or custom parameters) as JSONL.
    Generate(commands::generate::Args),
    /// Apply a cascade to words (arguments, or one per line on stdin).
    Apply(commands::apply::Args),
    /// Show which rules of a cascade feed or bleed which, and its category.
    Relations(commands::relations::Args),
    /// Decide whether two cascades behave alike on every input of a space, exactly.
    Equiv(commands::equiv::Args),
    /// Print the derivation table of words by a cascade: the forms after each rule.
    Derive(commands::derive::Args),
    /// Validate a dataset and print its statistics.
    Inspect(commands::inspect::Args),
    /// Read real sound-change data (parallel word lists) as a dataset without gold cascades.
    Pairs(commands::pairs::Args),
    /// Write one prompt per instance of a dataset.
    Prompt(commands::prompt::Args),
    /// Write a dataset in the authors' published format (or in ours).
    Export(commands::export::Args),
    /// Parse one response (stdin) into a cascade and show each rule's validity.
    Parse(commands::parse::Args),
    /// Write the rule-reordering set of a dataset: its gold rules scrambled, and the gold order.
    Reorder(commands::reorder::Args),
    /// Score responses against a dataset.
    Score(commands::score::Args),
    /// Solve a dataset with a built-in symbolic solver.
    Solve(commands::solve::Args),
    /// Evaluate a model behind an OpenAI-compatible endpoint, or an external solver.
    Eval(commands::eval::Args),
    /// Print one episode (or sample) of an evaluation run: every message, tool call and result.
    Show(commands::show::Args),
    /// Vet a dataset: gold and dummy gates, shortcuts, duplicates, labels, calibration.
    Audit(commands::audit::Args),
    /// Make a vetted snapshot: add counterexamples until the examples pin the behaviour down.
    Vet(commands::vet::Args),
    /// Write a leaderboard, plots and a self-contained HTML report from results.
    Report(commands::report::Args),
    /// Compare two results on the same dataset: each figure's difference with a paired 95% interval.
    Compare(commands::compare::Args),
    /// Generate, solve, score, audit and report a small Lite set, offline.
    Demo(commands::demo::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    printer::init(cli.print);
    clean_up_on_interrupt();
    quiet_on_broken_pipe();
    let result = match cli.command {
        Command::Generate(args) => commands::generate::run(args),
        Command::Apply(args) => commands::apply::run(args),
        Command::Relations(args) => commands::relations::run(args),
        Command::Equiv(args) => commands::equiv::run(args),
        Command::Derive(args) => commands::derive::run(args),
        Command::Inspect(args) => commands::inspect::run(args),
        Command::Pairs(args) => commands::pairs::run(args),
        Command::Prompt(args) => commands::prompt::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Parse(args) => commands::parse::run(args),
        Command::Reorder(args) => commands::reorder::run(args),
        Command::Score(args) => commands::score::run(args),
        Command::Solve(args) => commands::solve::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Show(args) => commands::show::run(args),
        Command::Audit(args) => commands::audit::run(args),
        Command::Vet(args) => commands::vet::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Demo(args) => commands::demo::run(args),
    };
    match result {
        Ok(code) => code,
        // The reader of standard output (`| head`) went away: it has what it wanted.
        Err(err) if is_broken_pipe(&err) => {
            pbebench_io::remove_uncommitted();
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {}", one_line(&err));
            ExitCode::from(2)
        }
    }
}

/// `err` and its causes, joined by ": " as `{:#}` does, leaving out a cause whose text the
/// message already holds: an error that reads "{path}: {source}" and also names `source`
/// as its cause would otherwise say the OS's words twice ("nope.jsonl: No such file or
/// directory (os error 2): No such file or directory (os error 2)").
fn one_line(err: &anyhow::Error) -> String {
    let mut line = err.to_string();
    for cause in err.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

/// Whether `err` comes from writing to a closed pipe.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// On SIGINT (Ctrl-C) or SIGTERM, removes the temporary files of the outputs being written
/// and exits with 128 + the signal, as the default action would: an interrupted command
/// leaves its outputs as they were, and no `.pbebench-*.tmp` behind. (SIGHUP is left alone,
/// so that `nohup` keeps working.) Runs of `pbebench eval` are kept in their store and
/// resume where they stopped.
fn clean_up_on_interrupt() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return; // The default action then applies, temporary files and all.
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let removed = pbebench_io::remove_uncommitted();
            let name = if signal == SIGINT {
                "interrupted"
            } else {
                "terminated"
            };
            eprintln!("\n{name}: {removed} unfinished output file(s) discarded");
            std::process::exit(128 + signal);
        }
    });
}

/// `print!` panics when standard output is a closed pipe (`pbebench inspect FILE | head`:
/// Rust ignores SIGPIPE, so the write fails instead). Such a panic ends the command
/// quietly with success, as `apply`, `generate` and `prompt` do when their reader goes
/// away: the reader has what it wanted. Every other panic is reported as ever.
fn quiet_on_broken_pipe() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload_as_str().unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            pbebench_io::remove_uncommitted();
            std::process::exit(0);
        }
        default_hook(info)
    }));
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use anyhow::Context;

    /// An error whose message holds its cause's text, as the readers' `"{path}: {source}"`.
    #[derive(Debug)]
    struct Holds(std::io::Error);

    impl std::fmt::Display for Holds {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "nope.jsonl: {}", self.0)
        }
    }

    impl std::error::Error for Holds {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn causes_are_said_once() {
        let os = std::io::Error::from(std::io::ErrorKind::NotFound);
        let err = anyhow::Error::new(Holds(os));
        assert_eq!(
            one_line(&err),
            format!(
                "nope.jsonl: {}",
                std::io::Error::from(std::io::ErrorKind::NotFound)
            )
        );
        let err = Err::<(), _>(std::io::Error::other("disk full"))
            .context("out.json: cannot write")
            .unwrap_err();
        assert_eq!(one_line(&err), "out.json: cannot write: disk full");
    }
}
