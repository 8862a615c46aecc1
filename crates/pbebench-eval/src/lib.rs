//! # pbebench-eval
//!
//! Evaluates solvers on pbebench datasets: models behind OpenAI-compatible
//! chat-completions endpoints (vLLM, SGLang, llama.cpp's server, hosted APIs) and external
//! programs (`--solver-cmd`). Every sample is committed to a SQLite run store the moment it
//! completes, so a run can be killed at any point and continued without losing or
//! repeating a sample; answers are scored through the shared path of `pbebench`
//! ([`pbebench::parse_response`], metrics and score).
//!
//! The flow: [`evaluate`] checks the [`EvalConfig`], reads the dataset, checks the
//! endpoints, opens (or continues) the [`store`], runs a bounded pool of workers that ask
//! the [`client`] or the [`solver_cmd`] (each request reserving its cost against the budget
//! of the shared [`Control`]) and one writer that commits every sample as it arrives, and
//! returns a [`RunOutcome`] with its [`RunResults`], having written them to the run's
//! `results.json` ([`RunResultsFile`]). [`rescore`] recomputes the results from the store
//! alone.
//!
//! In interactive mode ([`episode`], `--interactive`) each sample is an episode: the
//! solver probes the hidden cascade through [`pbebench::probe::Oracle`], tests candidates
//! and submits one; every turn is committed as it completes and a continued run resumes
//! each episode from its last stored turn. [`transcript`] prints one episode.
//!
//! On a reordering set (`pbebench reorder`'s file, recognised by its lines) the same run
//! asks for orders of the scrambled gold rules and grades them with
//! [`pbebench::reorder::score_order`] ([`reorder`]): [`RunOutcome::reorder`] holds the
//! figures and `results.json` is a [`ReorderRunFile`].
//! In a step-wise search ([`StepwiseSpec`], `--strategy stepwise`) each instance's cascade
//! is built in chunks, the best of K samples kept at each step; every step sample is
//! committed as a turn as it completes, and a continued run replays them.
//!
//! Inside, one module per stage: `config` (what a run is asked to do, and its checks),
//! `run_dir` (continuing, refusing or moving aside the run in a directory), `backend`
//! (chat or solver program), `pricing` (the worst cost a request may reserve), `worker`,
//! `writer`, `runner` (the orchestration), `rescore`, `fingerprint` (SHA-256 of the dataset).
//!
//! # Example
//!
//! A solver program that always answers the same cascade, run on a one-instance dataset:
//!
//! ```
//! use pbebench_eval::{evaluate, BlockChoice, EvalConfig, Prices, SolverCommand, SolverSpec};
//! use std::time::Duration;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let dataset = dir.path().join("tiny.jsonl");
//! std::fs::write(
//!     &dataset,
//!     r#"{"id": "t0", "inputs": ["abc", "cab"], "outputs": ["dc", "cd"], "max_rules": 5, "max_rule_len": 3, "alphabet": "abcd"}"#,
//! )?;
//! let answer = dir.path().join("answer.txt");
//! std::fs::write(&answer, "```python\n[\"replace('ab', 'd')\"]\n```\n")?;
//! let config = EvalConfig {
//!     dataset,
//!     run_dir: dir.path().join("run"),
//!     solver: SolverSpec::Command(SolverCommand {
//!         // Reads the instance on stdin (ignored here), answers on stdout.
//!         command: format!("cat > /dev/null; cat '{}'", answer.display()),
//!         timeout: Duration::from_secs(10),
//!     }),
//!     samples: 1,
//!     concurrency: 1,
//!     prices: Prices::default(),
//!     max_cost: None,
//!     force_new: false,
//!     block: BlockChoice::Last,
//!     interactive: None,
//!     stepwise: None,
//! };
//! let outcome = evaluate(&config)?;
//! assert!(outcome.complete());
//! assert_eq!(outcome.results.overall().best_of_k, 1.0);
//! // The run's results.json, as `pbebench eval` prints it with --format json.
//! let text = std::fs::read_to_string(dir.path().join("run").join(pbebench_eval::RESULTS_FILE))?;
//! assert_eq!(text, pbebench_eval::RunResultsFile::of(&outcome).to_json());
//! let file = pbebench_eval::RunResultsFile::from_json(&text)?;
//! assert_eq!(file.results.summary, outcome.results.scores.summary);
//! # Ok(())
//! # }
//! ```
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]
#![warn(missing_docs)]

mod backend;
mod breaker;
pub mod client;
mod config;
mod control;
pub mod episode;
mod error;
mod fingerprint;
mod pricing;
mod progress;
pub mod reorder;
mod rescore;
pub mod results_file;
pub mod retry;
mod run_dir;
mod runner;
pub mod sample;
pub mod scoring;
pub mod solver_cmd;
mod stepwise;
pub mod store;
pub mod template;
pub mod transcript;
mod worker;
mod writer;

pub use client::ChatParams;
pub use config::{ChatSpec, ConfigError, EvalConfig, Field, Problem, SolverSpec, MAX_CONCURRENCY};
pub use control::Control;
pub use episode::grade::{EpisodeGrade, InteractiveResults, InteractiveSummary};
pub use episode::{InteractiveSpec, ToolProtocol};
pub use error::EvalError;
pub use pbebench::BlockChoice;
pub use progress::EvalProgress;
pub use reorder::{OrderEpisodes, PublicProblem, ReorderResults};
pub use rescore::rescore;
pub use results_file::{
    ReorderRunFile, ResultsFileError, RunResultsFile, PER_INSTANCE_FILE, REORDER_TASK, RESULTS_FILE,
};
pub use retry::RetryPolicy;
pub use runner::{evaluate, evaluate_with, RunOutcome, StopReason, Strategy};
pub use sample::{Prices, Sample, Status, Usage, MAX_RESPONSE_BYTES};
pub use scoring::RunResults;
pub use solver_cmd::SolverCommand;
pub use stepwise::{Select, StepwiseSpec};
