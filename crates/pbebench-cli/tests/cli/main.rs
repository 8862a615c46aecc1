//! The `pbebench` binary run on real files in temporary directories, in one test binary
//! (as ruff's `crates/ruff/tests/cli/`): a module per command, the fixture they share in
//! [`common`], and insta snapshots of what users see in [`snapshots`].

mod common;

mod audit;
mod cldf;
mod compare;
mod core;
mod dataset;
mod demo;
mod derive;
mod equiv;
mod export;
mod files;
mod options;
mod outputs;
mod parse;
mod prompt;
mod reorder;
mod reorder_set;
mod report;
mod score;
mod snapshots;
mod solve;
mod vet;
