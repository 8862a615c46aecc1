//! One module per subcommand: its arguments (`Args`) and `run`.

pub mod apply;
pub mod audit;
mod cascade_arg;
pub mod compare;
pub mod demo;
pub mod derive;
pub mod equiv;
pub mod eval;
pub mod export;
pub mod generate;
pub mod inspect;
mod output;
pub mod pairs;
pub mod parse;
pub mod prompt;
pub mod relations;
pub mod report;
pub mod score;
pub mod show;
pub mod solve;
mod status;
pub mod vet;

/// How a command prints what it found: `--format text|json`, the same in every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text to read.
    Text,
    /// One JSON value.
    Json,
}
