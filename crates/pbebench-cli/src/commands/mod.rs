//! One module per subcommand: its arguments (`Args`) and `run`.

pub mod apply;
mod args;
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
mod pairs_cldf;
pub mod parse;
pub mod prompt;
pub mod relations;
pub mod reorder;
mod reorder_set;
pub mod report;
pub mod score;
pub mod show;
pub mod solve;
mod solve_budget;
mod strategy;
pub mod vet;
