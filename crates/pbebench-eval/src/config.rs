//! What a run is asked to do: the configuration of `pbebench eval`, its checks, and the
//! parameters that are recorded in the manifest without changing answers.

use crate::client::ChatParams;
use crate::episode::InteractiveSpec;
use crate::retry::RetryPolicy;
use crate::sample::Prices;
use crate::solver_cmd::SolverCommand;
use crate::EvalError;
use pbebench::BlockChoice;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// The most workers (concurrent requests) a run may use.
pub const MAX_CONCURRENCY: usize = 1024;

/// Everything `pbebench eval` needs to run.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// The dataset (JSONL, either format).
    pub dataset: PathBuf,
    /// The run directory; holds `run.sqlite`.
    pub run_dir: PathBuf,
    /// Who answers.
    pub solver: SolverSpec,
    /// Samples per instance (the budget K).
    pub samples: u32,
    /// Requests (or solver programs) at once.
    pub concurrency: usize,
    /// Prices per million tokens, for the cost.
    pub prices: Prices,
    /// Stop requesting once the run's cost would pass this.
    pub max_cost: Option<f64>,
    /// Start a new run even if the directory holds one made with other parameters
    /// (the old store is kept as `run.N.sqlite`).
    pub force_new: bool,
    /// Which fenced block of a response is scored.
    pub block: BlockChoice,
    /// Draw a progress bar (or, off a terminal, a status line every 30 s) on stderr.
    pub progress: bool,
    /// Interactive mode: each sample is an episode that probes the hidden cascade.
    pub interactive: Option<InteractiveSpec>,
}

/// Who answers the instances.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // one per run
pub enum SolverSpec {
    /// A model behind OpenAI-compatible chat-completions endpoints.
    Chat(ChatSpec),
    /// An external program (`--solver-cmd`).
    Command(SolverCommand),
}

/// A model behind one or more OpenAI-compatible endpoints.
#[derive(Debug, Clone)]
pub struct ChatSpec {
    /// Base URLs (`http://localhost:8000/v1`); requests are spread over them.
    pub base_urls: Vec<String>,
    /// Sent as `Authorization: Bearer …`; never stored.
    pub api_key: Option<String>,
    /// Sampling parameters.
    pub params: ChatParams,
    /// A prompt template file; the shared default when `None`.
    pub template: Option<PathBuf>,
    /// Per-attempt time limit.
    pub timeout: Duration,
    /// Retries and backoff.
    pub retry: RetryPolicy,
}

impl EvalConfig {
    /// Checks every parameter before anything is read or sent.
    pub(crate) fn check(&self) -> Result<(), EvalError> {
        let bad = |m: &str| Err(EvalError::Parameter(m.to_owned()));
        if self.samples == 0 {
            return bad("--samples must be at least 1");
        }
        if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            return bad(&format!(
                "--concurrency must be between 1 and {MAX_CONCURRENCY}"
            ));
        }
        for (name, v) in [
            ("--price-in", Some(self.prices.input)),
            ("--price-out", Some(self.prices.output)),
            ("--max-cost", self.max_cost),
        ] {
            if v.is_some_and(|v| !v.is_finite() || v < 0.0) {
                return bad(&format!("{name} must be a non-negative number"));
            }
        }
        if self.max_cost.is_some() && self.prices == Prices::default() {
            return bad(
                "--max-cost needs --price-in and/or --price-out (prices per million tokens)",
            );
        }
        if let SolverSpec::Chat(chat) = &self.solver {
            if self.max_cost.is_some()
                && self.prices.output > 0.0
                && chat.params.max_output_tokens().is_none()
            {
                return bad("--max-cost needs a bound on every answer, to reserve the worst case of each request in flight: give --max-tokens N (or max_tokens / max_completion_tokens in --extra-body)");
            }
        }
        if let Some(spec) = &self.interactive {
            if spec.max_turns == 0 {
                return bad("--max-turns must be at least 1");
            }
            if spec.max_episode_tokens == Some(0) {
                return bad("--max-episode-tokens must be positive");
            }
            if let SolverSpec::Chat(chat) = &self.solver {
                if chat.template.is_some() {
                    return bad("--template does not apply to --interactive, whose prompt states the tools and the budget");
                }
            }
        }
        match &self.solver {
            SolverSpec::Chat(chat) => {
                if chat.base_urls.is_empty() {
                    return bad("give at least one --base-url (vLLM: http://localhost:8000/v1)");
                }
                if chat.params.model.trim().is_empty() {
                    return bad("--model must name the model the endpoint serves");
                }
                if chat.timeout.is_zero() {
                    return bad("--timeout must be positive");
                }
                if let Some(t) = chat.params.temperature.filter(|t| !(0.0..=2.0).contains(t)) {
                    return bad(&format!("--temperature {t} is outside 0..2"));
                }
                if let Some(p) = chat.params.top_p.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
                    return bad(&format!("--top-p {p} is outside (0, 1]"));
                }
            }
            SolverSpec::Command(cmd) => {
                if cmd.command.trim().is_empty() {
                    return bad("--solver-cmd is empty");
                }
                if cmd.timeout.is_zero() {
                    return bad("--timeout must be positive");
                }
            }
        }
        Ok(())
    }

    /// The parameters of this invocation that do not change answers.
    pub(crate) fn run_params(&self) -> Value {
        let mut v = json!({
            "samples": self.samples,
            "concurrency": self.concurrency,
            "price_in": self.prices.input,
            "price_out": self.prices.output,
            "max_cost": self.max_cost,
            "block": self.block.to_string(),
            "tool_version": env!("CARGO_PKG_VERSION"),
        });
        match &self.solver {
            SolverSpec::Chat(chat) => {
                v["base_urls"] = json!(chat.base_urls);
                v["timeout_s"] = json!(chat.timeout.as_secs_f64());
                v["max_retries"] = json!(chat.retry.max_retries);
            }
            SolverSpec::Command(cmd) => v["timeout_s"] = json!(cmd.timeout.as_secs_f64()),
        }
        v
    }
}
