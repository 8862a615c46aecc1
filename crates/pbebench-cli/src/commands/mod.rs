//! One module per subcommand: its arguments (`Args`) and `run`.

pub mod apply;
pub mod audit;
mod cascade_arg;
pub mod demo;
pub mod equiv;
pub mod eval;
pub mod generate;
pub mod inspect;
pub mod pairs;
pub mod parse;
pub mod prompt;
pub mod relations;
pub mod report;
pub mod score;
pub mod solve;
