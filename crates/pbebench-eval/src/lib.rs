//! # pbebench-eval
//!
//! Evaluates solvers on pbebench datasets: models behind OpenAI-compatible
//! chat-completions endpoints (vLLM, SGLang, llama.cpp's server, hosted APIs) and external
//! programs (`--solver-cmd`). Every sample is committed to a SQLite run store the moment it
//! completes, so a run can be killed at any point and continued without losing or
//! repeating a sample; answers are scored through the shared path of `pbebench`
//! ([`pbebench::parse_response`], metrics and score).
//!
//! The flow: [`evaluate`] reads the dataset, checks the endpoints, opens (or continues)
//! the [`store`], runs a bounded pool of workers ([`runner`]) that ask the [`client`] or the
//! [`solver_cmd`], and returns a [`Report`]. [`rescore`] recomputes the report from the
//! store alone.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod client;
mod progress;
pub mod retry;
pub mod runner;
pub mod sample;
pub mod scoring;
pub mod solver_cmd;
pub mod store;

pub use client::ChatParams;
pub use retry::RetryPolicy;
pub use runner::{
    evaluate, rescore, ChatSpec, EvalConfig, EvalError, RunOutcome, SolverSpec, StopReason,
};
pub use sample::{Prices, Sample, Status, Usage};
pub use scoring::{Block, Report};
pub use solver_cmd::SolverCommand;
