//! `pbebench eval`: evaluate a model behind OpenAI-compatible endpoints, or an external
//! solver program, with a resumable run store; or rescore a stored run.

use super::args::{seconds, Format, FormatArg, ProbeLen};
use super::output::Outputs;
use crate::printer::{self, Progress};
use anyhow::{bail, Context};
use pbebench_eval::{
    evaluate_with, rescore, BlockChoice, ChatParams, ChatSpec, EvalConfig, EvalError, EvalProgress,
    Field, InteractiveSpec, Prices, RetryPolicy, RunOutcome, Sample, SolverCommand, SolverSpec,
    ToolProtocol, PER_INSTANCE_FILE, RESULTS_FILE,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

/// Arguments of `pbebench eval`.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  vllm serve Qwen/Qwen3-8B --port 8000
  pbebench eval --dataset lite.jsonl --model Qwen/Qwen3-8B --base-url http://localhost:8000/v1 --samples 4
  pbebench eval --dataset lite.jsonl --solver-cmd 'python my_solver.py' --timeout 60
  pbebench eval --run runs/lite__Qwen_Qwen3-8B --rescore --block first
  pbebench eval --dataset lite.jsonl --model M --base-url URL --interactive --probe-budget 40 --max-turns 30
  pbebench eval --dataset lite.jsonl --solver-cmd 'python3 probe_solver.py' --interactive
  pbebench eval --dataset reorder.jsonl --model M --base-url URL --interactive --probe-budget 5
  pbebench eval --dataset lite.jsonl --model M --base-url URL --strategy stepwise --step-rules 2 --steps 5 --samples 4
  pbebench eval --dataset lite.jsonl --model M --base-url URL --strategy feedback --max-turns 5

Re-running the same command continues the run: stored samples are never requested again.
Exit status: 0 when every sample is answered, 1 when the run stopped early or samples
failed (re-run to continue), 2 on an error.",
    mut_arg("max_probe_len", |a| a.requires("episodes")
        .help("With --interactive: the longest probe input accepted, in letters (or twice \
               the longest visible input, when longer)")),
    mut_arg("format", |a| a.help("The report on standard output: the table (text), or the \
        JSON of results.json (json)")),
    // Episodes: --interactive, or --strategy feedback (interactive mode without probes).
    group(clap::ArgGroup::new("episodes").args(["interactive", "strategy"]).multiple(true))
)]
pub struct Args {
    /// The dataset (JSONL, pbebench's or the authors' format), or a reordering set
    /// (`pbebench reorder`'s file: each answer is an order). With --rescore: only to point
    /// at a moved copy of the run's dataset.
    #[arg(long, value_name = "FILE", required_unless_present = "rescore")]
    dataset: Option<PathBuf>,

    /// The run directory (holds run.sqlite and results.json) [default: runs/DATASET__MODEL]
    #[arg(long, value_name = "DIR", required_if_eq("rescore", "true"))]
    run: Option<PathBuf>,

    /// Recompute every figure from the stored responses; sends no request.
    #[arg(long)]
    rescore: bool,

    /// Which fenced block of a response holds the answer.
    #[arg(long, value_name = "first|last", default_value = "last")]
    block: BlockChoice,

    /// The model name the endpoint serves.
    #[arg(long, required_unless_present_any = ["rescore", "solver_cmd"])]
    model: Option<String>,

    /// Base URL of an OpenAI-compatible API, e.g. http://localhost:8000/v1. Repeat it to
    /// spread requests over several servers.
    #[arg(long = "base-url", value_name = "URL", required_unless_present_any = ["rescore", "solver_cmd"])]
    base_url: Vec<String>,

    /// Name of the environment variable holding the API key (sent as a Bearer token;
    /// never stored). Without it no key is sent.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,

    /// Run this shell command per sample instead of a model: the instance without its
    /// gold as JSON on stdin, the response on stdout.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["model", "base_url"])]
    solver_cmd: Option<String>,

    /// Samples per instance (the sampling budget K).
    #[arg(long, default_value_t = 1, value_name = "K")]
    samples: u32,

    /// Sampling temperature [default: the server's]
    #[arg(long, value_name = "T")]
    temperature: Option<f64>,

    /// Nucleus sampling top_p [default: the server's]
    #[arg(long, value_name = "P")]
    top_p: Option<f64>,

    /// Most tokens per answer (max_tokens) [default: the server's]
    #[arg(long, value_name = "N")]
    max_tokens: Option<u64>,

    /// reasoning_effort for models that take it (low, medium, high).
    #[arg(long, value_name = "E")]
    reasoning_effort: Option<String>,

    /// A JSON object merged into every request body, e.g. '{"top_k": 20}' or
    /// '{"max_completion_tokens": 8000}'.
    #[arg(long, value_name = "JSON")]
    extra_body: Option<String>,

    /// A built-in template (default; authors: the authors' released prompt) or a template
    /// file (./NAME for a file named like a built-in one) [default: default; see 'pbebench
    /// prompt --print-template']
    #[arg(long, value_name = "FILE")]
    template: Option<PathBuf>,

    /// Requests (or solver programs) running at once.
    #[arg(long, default_value_t = 16, value_name = "N")]
    concurrency: usize,

    /// Seconds one attempt (or one solver run) may take (at most 1000000).
    #[arg(long, default_value = "600", value_name = "S", value_parser = seconds)]
    timeout: Duration,

    /// Retries of a request after 429, 5xx, a timeout or a dropped connection.
    #[arg(long, default_value_t = 6, value_name = "N")]
    max_retries: u32,

    /// Seconds before the first retry (at most 1000000); doubled each time, with jitter, at
    /// most 60 s (a server's Retry-After is honoured).
    #[arg(long, default_value = "1", value_name = "S", value_parser = seconds)]
    backoff: Duration,

    /// Price per million prompt tokens.
    #[arg(long, default_value_t = 0.0, value_name = "PRICE")]
    price_in: f64,

    /// Price per million completion tokens (reasoning included).
    #[arg(long, default_value_t = 0.0, value_name = "PRICE")]
    price_out: f64,

    /// Stop requesting once the run's cost would exceed this (needs the prices).
    #[arg(long, value_name = "COST")]
    max_cost: Option<f64>,

    /// Start a new run even if --run holds one made with other parameters (the old store
    /// is kept as run.N.sqlite).
    #[arg(long)]
    force_new: bool,

    #[command(flatten)]
    format: FormatArg,

    /// Interactive mode: each sample is an episode in which the solver probes the hidden
    /// cascade (run_hidden), tests candidates (test_cascade) and submits one; on a
    /// reordering set it tests orders (test_order, each counted against --probe-budget)
    /// and submits one.
    #[arg(long, default_value_if("strategy", "feedback", "true"))]
    interactive: bool,

    /// Probe inputs per episode (with --interactive) [default: 40; 0 with --strategy feedback]
    #[arg(
        long,
        default_value_t = 40,
        value_name = "N",
        requires = "interactive",
        default_value_if("strategy", "feedback", "0"),
        hide_default_value = true
    )]
    probe_budget: usize,

    #[command(flatten)]
    max_probe_len: ProbeLen,

    /// Turns per episode: model replies, or program messages (with --interactive).
    #[arg(long, default_value_t = 30, value_name = "N", requires = "episodes")]
    max_turns: u32,

    /// Completion tokens per episode, reasoning included (with --interactive) [default: no limit]
    #[arg(long, value_name = "N", requires = "episodes")]
    max_episode_tokens: Option<u64>,

    /// How a model calls the tools: chat-completions tool calls, or fenced blocks for
    /// servers without tool calling (with --interactive).
    #[arg(
        long,
        value_name = "tools|text",
        default_value = "tools",
        requires = "episodes"
    )]
    tool_protocol: ToolProtocol,

    #[command(flatten)]
    strategy: super::strategy::StrategyArgs,
}

/// Runs `pbebench eval`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.rescore {
        let run = args
            .run
            .as_deref()
            .expect("clap requires --run with --rescore");
        let prices = (args.price_in > 0.0 || args.price_out > 0.0).then_some(Prices {
            input: args.price_in,
            output: args.price_out,
        });
        let mut files = Outputs::new();
        if let Some(dataset) = &args.dataset {
            files.input("--dataset", dataset);
        }
        files.output_dir("--run", run, RUN_OUTPUTS).check()?;
        let outcome = rescore(run, args.dataset.as_deref(), args.block, prices)?;
        return finish(&outcome, args.format.format);
    }
    let format = args.format.format;
    let config = config(args)?;
    check_files(&config)?;
    printer::note(format_args!("run: {}", config.run_dir.display()));
    let shown = Shown::new(config.prices);
    let outcome = evaluate_with(&config, &shown);
    shown.finish(outcome.is_ok());
    finish(&outcome.map_err(flags)?, format)
}

/// A library error, with the configuration's fields named by their options.
fn flags(e: EvalError) -> anyhow::Error {
    match e {
        EvalError::Config(_)
        | EvalError::Endpoint(_)
        | EvalError::Command(_)
        | EvalError::Mismatch { .. } => anyhow::anyhow!(e.message(flag)),
        e => e.into(),
    }
}

/// The option that sets a field of the configuration.
fn flag(field: Field) -> &'static str {
    match field {
        Field::Samples => "--samples",
        Field::Concurrency => "--concurrency",
        Field::PriceIn => "--price-in",
        Field::PriceOut => "--price-out",
        Field::MaxCost => "--max-cost",
        Field::MaxTokens => "--max-tokens",
        Field::ExtraBody => "--extra-body",
        Field::Interactive => "--interactive",
        Field::MaxTurns => "--max-turns",
        Field::MaxEpisodeTokens => "--max-episode-tokens",
        Field::Template => "--template",
        Field::BaseUrls => "--base-url",
        Field::Model => "--model",
        Field::Timeout => "--timeout",
        Field::Temperature => "--temperature",
        Field::TopP => "--top-p",
        Field::SolverCommand => "--solver-cmd",
        Field::ApiKey => "--api-key-env",
        Field::RunDir => "--run",
        Field::ForceNew => "--force-new",
        Field::Strategy => "--strategy",
        Field::StepRules => "--step-rules",
        Field::Steps => "--steps",
    }
}

/// Seconds between two status lines when standard error is no terminal.
const STATUS_EVERY: Duration = Duration::from_secs(30);

/// The progress of a run: samples stored of the run's total, the pass rate so far,
/// tokens per second, the cost (when priced) and the failures.
struct Shown {
    progress: Progress,
    prices: Prices,
    counts: Mutex<Counts>,
}

/// What the run has stored so far.
#[derive(Default)]
struct Counts {
    done: usize,
    passed: usize,
    failures: usize,
    tokens: u64,
    cost: f64,
}

impl Shown {
    fn new(prices: Prices) -> Self {
        Shown {
            progress: Progress::start("eval", "done", 0, STATUS_EVERY),
            prices,
            counts: Mutex::default(),
        }
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `pass 25.0%, 120 tok/s[, cost 0.0100][, 2 failed]`.
    fn message(&self, c: &Counts) -> String {
        let secs = self.progress.elapsed().as_secs_f64().max(1e-3);
        let pass = if c.done > 0 {
            100.0 * c.passed as f64 / c.done as f64
        } else {
            0.0
        };
        let mut m = format!("pass {pass:.1}%, {:.0} tok/s", c.tokens as f64 / secs);
        if self.prices != Prices::default() {
            m.push_str(&format!(", cost {:.4}", c.cost));
        }
        if c.failures > 0 {
            m.push_str(&format!(", {} failed", c.failures));
        }
        m
    }

    /// Leaves the last figures in view after a run, or clears them before an error.
    fn finish(self, ran: bool) {
        if ran {
            self.progress.finish_in_view();
        } else {
            self.progress.finish();
        }
    }
}

impl EvalProgress for Shown {
    fn moved_aside(&self, moved: &Path) {
        printer::note(format_args!(
            "note: the previous run was moved to {}",
            moved.display()
        ));
    }

    fn start(&self, total: usize) {
        self.progress.set_counts(0, total);
    }

    fn previous(&self, passed: bool) {
        let mut c = self.counts();
        c.done += 1;
        c.passed += passed as usize;
        self.progress.resumed(c.done, self.message(&c));
    }

    fn stored(&self, sample: &Sample, passed: Option<bool>) {
        let mut c = self.counts();
        match passed {
            Some(p) => {
                c.done += 1;
                c.passed += p as usize;
            }
            None => c.failures += 1,
        }
        c.tokens += sample.usage.completion_tokens.unwrap_or(0);
        c.cost += sample.usage.cost(self.prices);
        self.progress.set(c.done, self.message(&c));
    }
}

fn config(args: Args) -> anyhow::Result<EvalConfig> {
    let dataset = args.dataset.expect("clap requires --dataset");
    let timeout = args.timeout;
    let solver = match args.solver_cmd {
        Some(command) => SolverSpec::Command(SolverCommand { command, timeout }),
        None => {
            let api_key = match &args.api_key_env {
                None => None,
                Some(var) => Some(
                    std::env::var(var)
                        .ok()
                        .filter(|k| !k.is_empty())
                        .with_context(|| {
                            format!(
                                "--api-key-env {var}: the environment variable {var} is not set"
                            )
                        })?,
                ),
            };
            let extra_body = match &args.extra_body {
                None => None,
                Some(text) => match serde_json::from_str(text) {
                    Ok(serde_json::Value::Object(map)) => Some(map),
                    _ => bail!("--extra-body must be a JSON object, e.g. '{{\"top_k\": 20}}'"),
                },
            };
            SolverSpec::Chat(ChatSpec {
                base_urls: args.base_url,
                api_key,
                params: ChatParams {
                    model: args.model.expect("clap requires --model"),
                    temperature: args.temperature,
                    top_p: args.top_p,
                    max_tokens: args.max_tokens,
                    reasoning_effort: args.reasoning_effort,
                    extra_body,
                },
                template: {
                    // Said before any request is sent; a template that cannot be read is
                    // reported by the run itself.
                    if let Ok(t) = pbebench_eval::template::Template::load(args.template.as_deref())
                    {
                        for w in t.warnings() {
                            printer::warn(w);
                        }
                    }
                    args.template
                },
                timeout,
                retry: RetryPolicy {
                    max_retries: args.max_retries,
                    base: args.backoff,
                    cap: Duration::from_secs(60),
                },
            })
        }
    };
    let run_dir = args
        .run
        .unwrap_or_else(|| default_run_dir(&dataset, &solver));
    if args.strategy.strategy == Some(super::strategy::Name::Stepwise) {
        for (given, flag) in [
            (args.max_turns != 30, "--max-turns"),
            (args.max_episode_tokens.is_some(), "--max-episode-tokens"),
            (
                args.tool_protocol != ToolProtocol::default(),
                "--tool-protocol",
            ),
            (
                args.max_probe_len.get() != pbebench::probe::DEFAULT_PROBE_LEN,
                "--max-probe-len",
            ),
        ] {
            if given {
                bail!("{flag} applies to episodes (--interactive, --strategy feedback), not to --strategy stepwise");
            }
        }
    }
    let mut config = EvalConfig {
        dataset,
        run_dir,
        solver,
        samples: args.samples,
        concurrency: args.concurrency,
        prices: Prices {
            input: args.price_in,
            output: args.price_out,
        },
        max_cost: args.max_cost,
        force_new: args.force_new,
        block: args.block,
        interactive: args.interactive.then_some(InteractiveSpec {
            probe_budget: args.probe_budget,
            max_turns: args.max_turns,
            max_episode_tokens: args.max_episode_tokens,
            tool_protocol: args.tool_protocol,
            probe_len: args.max_probe_len.get(),
            feedback: false,
        }),
        stepwise: None,
    };
    args.strategy.apply(&mut config)?;
    Ok(config)
}

/// Refuses a run directory whose files (`results.json`, the store) would overwrite the
/// dataset or the template, and one that cannot be written, before anything is sent.
fn check_files(config: &EvalConfig) -> anyhow::Result<()> {
    let mut files = Outputs::new();
    files.input("--dataset", &config.dataset);
    if let SolverSpec::Chat(ChatSpec {
        template: Some(template),
        ..
    }) = &config.solver
    {
        files.input("--template", template);
    }
    let [results, per_instance] = RUN_OUTPUTS;
    files.output_dir(
        "--run",
        &config.run_dir,
        [results, per_instance, pbebench_eval::store::STORE_FILE],
    );
    files.check()?;
    Ok(())
}

/// `runs/<dataset stem>__<model>` (or `__cmd-<hash>` for a solver command): the same
/// command always lands in the same run, so re-running it continues.
fn default_run_dir(dataset: &Path, solver: &SolverSpec) -> PathBuf {
    let stem = dataset
        .file_stem()
        .map_or_else(|| "dataset".into(), |s| s.to_string_lossy().into_owned());
    let who = match solver {
        SolverSpec::Chat(chat) => chat.params.model.clone(),
        SolverSpec::Command(cmd) => {
            // FNV-1a: a short, stable tag for the command line.
            let h = cmd.command.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            format!("cmd-{:08x}", h as u32)
        }
    };
    let safe = pbebench_io::safe_file_name;
    PathBuf::from("runs").join(format!("{}__{}", safe(&stem), safe(&who)))
}

/// What a run writes into its directory beside its store: the results, and one line per
/// instance, so that `pbebench compare RUN_A RUN_B` pairs two runs by instance.
const RUN_OUTPUTS: [&str; 2] = [RESULTS_FILE, PER_INSTANCE_FILE];

/// Prints the report (the run has written its `results.json` and `per-instance.jsonl`), and
/// picks the exit status.
fn finish(outcome: &RunOutcome, format: Format) -> anyhow::Result<ExitCode> {
    for w in &outcome.warnings {
        eprintln!("warning: {w}");
    }
    match format {
        Format::Json => println!("{}", outcome.results_json()),
        Format::Text => match &outcome.reorder {
            None => {
                println!("{}", outcome.results);
                if let Some(episodes) = &outcome.interactive {
                    println!("\n{episodes}");
                }
                if let Some(strategy) = &outcome.strategy {
                    println!("\n{}", super::strategy::describe(strategy));
                }
            }
            Some(reorder) => {
                println!("{}\n{}", outcome.results.figures_table(), reorder.summary);
                if let Some(episodes) = &reorder.episodes {
                    println!("\n{episodes}");
                }
            }
        },
    }
    if let Some(reason) = &outcome.stopped {
        eprintln!("{reason}");
        return Ok(ExitCode::from(1));
    }
    if !outcome.complete() {
        eprintln!(
            "{} of {} samples have no answer yet; re-run the same command to retry them",
            outcome.total - outcome.results.answered,
            outcome.total
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    fn parse(argv: &[&str]) -> Result<Args, clap::Error> {
        Cli::try_parse_from(std::iter::once("eval").chain(argv.iter().copied())).map(|c| c.args)
    }

    /// `argv` is refused by clap with an error of `kind` whose message names `flag`.
    fn refused(argv: &[&str], kind: clap::error::ErrorKind, flag: &str) {
        let Err(e) = parse(argv) else {
            panic!("{argv:?} is accepted")
        };
        let message = e.to_string();
        assert_eq!(e.kind(), kind, "{argv:?}: {message}");
        assert!(message.contains(flag), "{argv:?}: {message}");
    }

    #[test]
    fn a_model_run_needs_model_and_endpoint() {
        use clap::error::ErrorKind::MissingRequiredArgument;
        refused(
            &["--dataset", "d.jsonl"],
            MissingRequiredArgument,
            "--model",
        );
        refused(
            &["--dataset", "d.jsonl", "--model", "m"],
            MissingRequiredArgument,
            "--base-url",
        );
        let args = parse(&[
            "--dataset",
            "d/lite.jsonl",
            "--model",
            "Qwen/Qwen3-8B",
            "--base-url",
            "http://a:8000/v1",
            "--base-url",
            "http://b:8000/v1",
            "--temperature",
            "0.6",
            "--extra-body",
            "{\"top_k\": 20}",
        ])
        .unwrap();
        let c = config(args).unwrap();
        assert_eq!(c.run_dir, PathBuf::from("runs/lite__Qwen_Qwen3-8B"));
        let SolverSpec::Chat(chat) = &c.solver else {
            panic!("a chat run")
        };
        assert_eq!(chat.base_urls.len(), 2);
        assert_eq!(chat.params.extra_body.as_ref().unwrap()["top_k"], 20);
        assert_eq!(chat.timeout, Duration::from_secs(600));
        assert!(chat.api_key.is_none());
    }

    #[test]
    fn solver_commands_and_rescoring() {
        let args = parse(&["--dataset", "x.jsonl", "--solver-cmd", "./solve"]).unwrap();
        let c = config(args).unwrap();
        assert!(matches!(c.solver, SolverSpec::Command(_)));
        assert!(c.run_dir.to_string_lossy().starts_with("runs/x__cmd-"));
        use clap::error::ErrorKind::{ArgumentConflict, MissingRequiredArgument, ValueValidation};
        refused(
            &["--dataset", "x", "--solver-cmd", "s", "--model", "m"],
            ArgumentConflict,
            "--model",
        );
        refused(&["--rescore"], MissingRequiredArgument, "--run");
        assert!(parse(&["--rescore", "--run", "r", "--block", "first"]).is_ok());
        refused(
            &["--rescore", "--run", "r", "--block", "middle"],
            ValueValidation,
            "'middle' for '--block",
        );
    }

    #[test]
    fn interactive_options() {
        let args = parse(&[
            "--dataset",
            "d.jsonl",
            "--model",
            "m",
            "--base-url",
            "http://h/v1",
            "--interactive",
            "--probe-budget",
            "12",
            "--max-turns",
            "5",
            "--tool-protocol",
            "text",
        ])
        .unwrap();
        let spec = config(args).unwrap().interactive.unwrap();
        assert_eq!((spec.probe_budget, spec.max_turns), (12, 5));
        assert_eq!(spec.tool_protocol, ToolProtocol::Text);
        use clap::error::ErrorKind::{MissingRequiredArgument, ValueValidation};
        refused(
            &["--dataset", "d", "--solver-cmd", "s", "--probe-budget", "3"],
            MissingRequiredArgument,
            "--interactive",
        );
        refused(
            &[
                "--dataset",
                "d",
                "--solver-cmd",
                "s",
                "--interactive",
                "--tool-protocol",
                "x",
            ],
            ValueValidation,
            "'x' for '--tool-protocol",
        );
        assert!(parse(&["--dataset", "d", "--solver-cmd", "s", "--format", "json"]).is_ok());
    }

    #[test]
    fn strategies() {
        let base = [
            "--dataset",
            "d.jsonl",
            "--model",
            "m",
            "--base-url",
            "http://h/v1",
        ];
        let with = |extra: &[&str]| {
            let argv: Vec<&str> = base.iter().chain(extra).copied().collect();
            parse(&argv).map(config)
        };
        let c = with(&[
            "--strategy",
            "stepwise",
            "--step-rules",
            "2",
            "--steps",
            "4",
        ])
        .unwrap()
        .unwrap();
        let spec = c.stepwise.unwrap();
        assert_eq!((spec.step_rules, spec.steps), (2, 4));
        assert_eq!(spec.select, pbebench_eval::Select::SoftPass);
        assert!(c.interactive.is_none());
        let c = with(&[
            "--strategy",
            "stepwise",
            "--step-rules",
            "1",
            "--steps",
            "2",
            "--select",
            "edit-sim",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.stepwise.unwrap().select, pbebench_eval::Select::EditSim);
        // Feedback is interactive mode without probes; its turn options need no --interactive.
        let c = with(&["--strategy", "feedback", "--max-turns", "5"])
            .unwrap()
            .unwrap();
        let spec = c.interactive.unwrap();
        assert_eq!(
            (spec.probe_budget, spec.max_turns, spec.feedback),
            (0, 5, true)
        );
        assert!(c.stepwise.is_none());
        // Probing with no probes is not feedback rounds: an answer ends the episode.
        let none = with(&["--interactive", "--probe-budget", "0", "--max-turns", "5"]);
        let none = none.unwrap().unwrap().interactive.unwrap();
        assert_eq!(
            none,
            pbebench_eval::InteractiveSpec {
                feedback: false,
                ..spec
            }
        );
        assert!(with(&["--strategy", "sampling"])
            .unwrap()
            .unwrap()
            .interactive
            .is_none());

        let refused_by_us = |extra: &[&str], says: &str| {
            let e = with(extra).unwrap().unwrap_err().to_string();
            assert!(e.contains(says), "{extra:?}: {e}");
        };
        refused_by_us(
            &[
                "--strategy",
                "feedback",
                "--interactive",
                "--probe-budget",
                "3",
            ],
            "drop --probe-budget 3",
        );
        refused_by_us(
            &["--steps", "3"],
            "--steps applies to --strategy stepwise only",
        );
        refused_by_us(
            &["--strategy", "feedback", "--select", "edit-sim"],
            "--select applies",
        );
        refused_by_us(
            &[
                "--strategy",
                "stepwise",
                "--step-rules",
                "1",
                "--steps",
                "2",
                "--max-turns",
                "4",
            ],
            "--max-turns applies to episodes",
        );
        use clap::error::ErrorKind::{InvalidValue, MissingRequiredArgument};
        let argv = |extra: &[&'static str]| -> Vec<&'static str> {
            base.iter().chain(extra).copied().collect()
        };
        refused(
            &argv(&["--strategy", "stepwise", "--steps", "2"]),
            MissingRequiredArgument,
            "--step-rules",
        );
        refused(&argv(&["--strategy", "best"]), InvalidValue, "--strategy");
        refused(
            &argv(&["--strategy", "feedback", "--probe-budget", "3"]),
            MissingRequiredArgument,
            "--interactive",
        );
        refused(
            &argv(&["--max-turns", "3"]),
            MissingRequiredArgument,
            "--interactive",
        );
    }

    /// Every field the library may refuse is named by an option `eval` takes.
    #[test]
    fn every_field_is_named_by_an_option() {
        use clap::CommandFactory;
        let cmd = Cli::command();
        let longs: Vec<String> = cmd
            .get_arguments()
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        for field in [
            Field::Samples,
            Field::Concurrency,
            Field::PriceIn,
            Field::PriceOut,
            Field::MaxCost,
            Field::MaxTokens,
            Field::ExtraBody,
            Field::Interactive,
            Field::MaxTurns,
            Field::MaxEpisodeTokens,
            Field::Template,
            Field::BaseUrls,
            Field::Model,
            Field::Timeout,
            Field::Temperature,
            Field::TopP,
            Field::SolverCommand,
            Field::ApiKey,
            Field::RunDir,
            Field::ForceNew,
            Field::Strategy,
            Field::StepRules,
            Field::Steps,
        ] {
            assert!(
                longs.contains(&flag(field).to_owned()),
                "{field:?}: {}",
                flag(field)
            );
        }
        let e = pbebench_eval::ConfigError {
            field: Field::MaxCost,
            problem: pbebench_eval::Problem::UnboundedAnswers,
        };
        assert_eq!(
            e.message(flag),
            "--max-cost needs a bound on every answer, to reserve the worst case of each request \
             in flight: give --max-tokens N (or max_tokens / max_completion_tokens in --extra-body)"
        );
    }

    #[test]
    fn bad_values_are_named() {
        let base = [
            "--dataset",
            "d",
            "--model",
            "m",
            "--base-url",
            "http://h/v1",
        ];
        let with = |extra: &[&str]| {
            let argv: Vec<&str> = base.iter().chain(extra).copied().collect();
            config(parse(&argv).unwrap()).unwrap_err().to_string()
        };
        assert!(with(&["--extra-body", "[1]"]).contains("--extra-body"));
        assert!(with(&["--api-key-env", "PBEBENCH_TEST_SURELY_UNSET"])
            .contains("PBEBENCH_TEST_SURELY_UNSET is not set"));
    }
}
