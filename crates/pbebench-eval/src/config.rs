//! What a run is asked to do: the configuration of `pbebench eval`, its checks, and the
//! parameters that are recorded in the manifest without changing answers.

use crate::client::ChatParams;
use crate::episode::InteractiveSpec;
use crate::retry::RetryPolicy;
use crate::sample::Prices;
use crate::solver_cmd::SolverCommand;
use crate::stepwise::StepwiseSpec;
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
    /// Interactive mode: each sample is an episode that probes the hidden cascade.
    pub interactive: Option<InteractiveSpec>,
    /// Step-wise search: each instance's cascade is built in chunks, `samples` samples per
    /// step ([`StepwiseSpec`]).
    pub stepwise: Option<StepwiseSpec>,
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
    /// Checks every parameter before anything is read or sent: the first field refused,
    /// and why.
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |field, problem| Err(ConfigError { field, problem });
        if self.samples == 0 {
            return bad(Field::Samples, Problem::AtLeastOne);
        }
        if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            return bad(Field::Concurrency, Problem::AtMost(MAX_CONCURRENCY));
        }
        for (field, v) in [
            (Field::PriceIn, Some(self.prices.input)),
            (Field::PriceOut, Some(self.prices.output)),
            (Field::MaxCost, self.max_cost),
        ] {
            if v.is_some_and(|v| !v.is_finite() || v < 0.0) {
                return bad(field, Problem::Negative);
            }
        }
        if self.max_cost.is_some() && self.prices == Prices::default() {
            return bad(Field::MaxCost, Problem::NoPrices);
        }
        if let SolverSpec::Chat(chat) = &self.solver {
            if self.max_cost.is_some()
                && self.prices.output > 0.0
                && chat.params.max_output_tokens().is_none()
            {
                return bad(Field::MaxCost, Problem::UnboundedAnswers);
            }
        }
        if let Some(spec) = &self.interactive {
            if spec.max_turns == 0 {
                return bad(Field::MaxTurns, Problem::AtLeastOne);
            }
            if spec.max_episode_tokens == Some(0) {
                return bad(Field::MaxEpisodeTokens, Problem::NotPositive);
            }
            if let SolverSpec::Chat(chat) = &self.solver {
                if chat.template.is_some() {
                    return bad(Field::Template, Problem::NotInteractive);
                }
            }
        }
        if let Some(spec) = &self.stepwise {
            self.check_stepwise(spec)?;
        }
        match &self.solver {
            SolverSpec::Chat(chat) => {
                if chat.base_urls.is_empty() {
                    return bad(Field::BaseUrls, Problem::NoBaseUrl);
                }
                if chat.params.model.trim().is_empty() {
                    return bad(Field::Model, Problem::NoModel);
                }
                if chat.timeout.is_zero() {
                    return bad(Field::Timeout, Problem::NotPositive);
                }
                if let Some(t) = chat.params.temperature.filter(|t| !(0.0..=2.0).contains(t)) {
                    return bad(Field::Temperature, Problem::Outside(t, "0..2"));
                }
                if let Some(p) = chat.params.top_p.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
                    return bad(Field::TopP, Problem::Outside(p, "(0, 1]"));
                }
            }
            SolverSpec::Command(cmd) => {
                if cmd.command.trim().is_empty() {
                    return bad(Field::SolverCommand, Problem::Empty);
                }
                if cmd.timeout.is_zero() {
                    return bad(Field::Timeout, Problem::NotPositive);
                }
            }
        }
        Ok(())
    }

    /// A step-wise search takes at least one rule and one step, and neither interactive
    /// mode nor a prompt template (its step prompt is built in).
    fn check_stepwise(&self, spec: &StepwiseSpec) -> Result<(), ConfigError> {
        let bad = |field, problem| Err(ConfigError { field, problem });
        if spec.step_rules == 0 {
            return bad(Field::StepRules, Problem::AtLeastOne);
        }
        if spec.steps == 0 {
            return bad(Field::Steps, Problem::AtLeastOne);
        }
        if self.interactive.is_some() {
            return bad(Field::Interactive, Problem::NotStepwise);
        }
        if let SolverSpec::Chat(chat) = &self.solver {
            if chat.template.is_some() {
                return bad(Field::Template, Problem::NotStepwise);
            }
        }
        Ok(())
    }

    /// The answers the run stores per instance: K, or one (the search's final cascade)
    /// for a step-wise search, whose K samples are per step.
    pub(crate) fn answers_per_instance(&self) -> u32 {
        if self.stepwise.is_some() {
            1
        } else {
            self.samples
        }
    }

    /// The run's strategy, when it has a name of its own: `stepwise`, or `feedback`
    /// (feedback rounds: [`InteractiveSpec::feedback`]). `None` for sampling and probing
    /// runs.
    pub(crate) fn strategy(&self) -> Option<&'static str> {
        if self.stepwise.is_some() {
            Some("stepwise")
        } else if self.interactive.is_some_and(|i| i.feedback) {
            Some("feedback")
        } else {
            None
        }
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

/// A field of [`EvalConfig`] that [`EvalConfig::check`] refuses, or that its refusal names.
/// A command line maps each to its option ([`ConfigError::message`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `samples`.
    Samples,
    /// `concurrency`.
    Concurrency,
    /// `prices.input`.
    PriceIn,
    /// `prices.output`.
    PriceOut,
    /// `max_cost`.
    MaxCost,
    /// The chat's `params.max_tokens`.
    MaxTokens,
    /// The chat's `params.extra_body`.
    ExtraBody,
    /// `interactive`.
    Interactive,
    /// `interactive.max_turns`.
    MaxTurns,
    /// `interactive.max_episode_tokens`.
    MaxEpisodeTokens,
    /// The chat's `template`.
    Template,
    /// The chat's `base_urls`.
    BaseUrls,
    /// The chat's `params.model`.
    Model,
    /// The chat's or the solver program's `timeout`.
    Timeout,
    /// The chat's `params.temperature`.
    Temperature,
    /// The chat's `params.top_p`.
    TopP,
    /// The solver program's `command`.
    SolverCommand,
    /// The chat's `api_key`.
    ApiKey,
    /// `run_dir`.
    RunDir,
    /// `force_new`.
    ForceNew,
    /// `stepwise`: the strategy.
    Strategy,
    /// `stepwise.step_rules`.
    StepRules,
    /// `stepwise.steps`.
    Steps,
}

impl Field {
    /// The field's path in [`EvalConfig`], as a Rust caller writes it.
    pub fn path(self) -> &'static str {
        match self {
            Field::Samples => "samples",
            Field::Concurrency => "concurrency",
            Field::PriceIn => "prices.input",
            Field::PriceOut => "prices.output",
            Field::MaxCost => "max_cost",
            Field::MaxTokens => "solver.params.max_tokens",
            Field::ExtraBody => "solver.params.extra_body",
            Field::Interactive => "interactive",
            Field::MaxTurns => "interactive.max_turns",
            Field::MaxEpisodeTokens => "interactive.max_episode_tokens",
            Field::Template => "solver.template",
            Field::BaseUrls => "solver.base_urls",
            Field::Model => "solver.params.model",
            Field::Timeout => "solver.timeout",
            Field::Temperature => "solver.params.temperature",
            Field::TopP => "solver.params.top_p",
            Field::SolverCommand => "solver.command",
            Field::ApiKey => "solver.api_key",
            Field::RunDir => "run_dir",
            Field::ForceNew => "force_new",
            Field::Strategy => "stepwise",
            Field::StepRules => "stepwise.step_rules",
            Field::Steps => "stepwise.steps",
        }
    }
}

/// What is wrong with a [`Field`].
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// Zero where at least 1 is needed.
    AtLeastOne,
    /// Outside 1 to this.
    AtMost(usize),
    /// A price or a cost that is negative or not a number.
    Negative,
    /// A cost cap without prices to count the cost in.
    NoPrices,
    /// A cost cap on a chat whose answers have no bound on their tokens.
    UnboundedAnswers,
    /// Zero where a positive value is needed.
    NotPositive,
    /// Given, but interactive mode does not use it.
    NotInteractive,
    /// No endpoint.
    NoBaseUrl,
    /// An empty model name.
    NoModel,
    /// The value, outside the range said.
    Outside(f64, &'static str),
    /// An empty command.
    Empty,
    /// A file it names cannot be used: why.
    Unusable(String),
    /// Given, but a step-wise search does not use it.
    NotStepwise,
    /// A step-wise search whose whole cascade (steps × rules per step) could pass the
    /// rule cap of an instance.
    OverRuleCap {
        /// Rules per step.
        step_rules: usize,
        /// Steps.
        steps: u32,
        /// The smallest `max_rules` of the dataset.
        cap: usize,
        /// An instance with that cap.
        instance: String,
    },
}

/// Why [`EvalConfig::check`] refused a configuration: the field, and what is wrong with it.
/// Its text names fields by their path in [`EvalConfig`]; [`ConfigError::message`] names
/// them as the caller does (the command line by its options).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.message(Field::path))]
pub struct ConfigError {
    /// The field refused.
    pub field: Field,
    /// What is wrong with it.
    pub problem: Problem,
}

impl ConfigError {
    /// The refusal, with every field it mentions named by `name`.
    pub fn message(&self, name: impl Fn(Field) -> &'static str) -> String {
        let f = name(self.field);
        match &self.problem {
            Problem::AtLeastOne => format!("{f} must be at least 1"),
            Problem::AtMost(max) => format!("{f} must be between 1 and {max}"),
            Problem::Negative => format!("{f} must be a non-negative number"),
            Problem::NoPrices => format!(
                "{f} needs {} and/or {} (prices per million tokens)",
                name(Field::PriceIn),
                name(Field::PriceOut)
            ),
            Problem::UnboundedAnswers => format!(
                "{f} needs a bound on every answer, to reserve the worst case of each request \
                 in flight: give {} N (or max_tokens / max_completion_tokens in {})",
                name(Field::MaxTokens),
                name(Field::ExtraBody)
            ),
            Problem::NotPositive => format!("{f} must be positive"),
            Problem::NotInteractive => format!(
                "{f} does not apply to {}, whose prompt states the tools and the budget",
                name(Field::Interactive)
            ),
            Problem::NoBaseUrl => format!("give at least one {f} (vLLM: http://localhost:8000/v1)"),
            Problem::NoModel => format!("{f} must name the model the endpoint serves"),
            Problem::Outside(v, range) => format!("{f} {v} is outside {range}"),
            Problem::Empty => format!("{f} is empty"),
            Problem::Unusable(why) => format!("{f} {why}"),
            Problem::NotStepwise => format!(
                "{f} does not apply to {} stepwise, whose step prompt is built in",
                name(Field::Strategy)
            ),
            Problem::OverRuleCap {
                step_rules,
                steps,
                cap,
                instance,
            } => format!(
                "{f} {step_rules} × {s} {steps} = {rules} rules passes the rule cap: instance \
                 {instance} allows {cap} rules (max_rules); lower {f} or {s} so that their \
                 product is at most {cap}",
                s = name(Field::Steps),
                rules = step_rules.saturating_mul(*steps as usize),
            ),
        }
    }
}
