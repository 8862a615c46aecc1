//! The run: which samples are still missing, a bounded pool of workers that produce them
//! ([`crate::worker`]), and one writer (this thread, [`crate::writer`]) that commits each
//! to the store as it completes.
//!
//! Workers never touch the store; the writer never waits on the network. A sample exists
//! in the store only once its transaction commits, so a process killed at any point loses
//! the requests in flight and nothing else, and a continued run requests exactly the
//! samples that are not stored yet.

use crate::backend::Backend;
use crate::breaker::Breaker;
use crate::control::Control;
use crate::episode::grade::InteractiveResults;
use crate::progress::EvalProgress;
use crate::reorder::{Loaded, ReorderResults, Task};
use crate::results_file::{ReorderRunFile, RunResultsFile};
use crate::run_dir::open_run;
use crate::sample::Prices;
use crate::scoring::{self, RunResults};
use crate::store::{DatasetRef, Manifest};
use crate::store::{RunStore, TurnRow};
use crate::worker::{pending_jobs, Worker};
use crate::writer::Writer;
use crate::{EvalConfig, EvalError, SolverSpec};
use pbebench::BlockChoice;
use pbebench::Instance;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc;

/// Why a run stopped before every sample was stored.
#[derive(Debug, Clone, PartialEq)]
pub enum StopReason {
    /// `--max-cost` was reached.
    Budget {
        /// What the run has cost so far.
        spent: f64,
        /// The budget.
        max: f64,
    },
    /// Failures to answer are systematic (see the crate README): the endpoints are down,
    /// refuse, or send broken replies.
    FailingEndpoints {
        /// Failed samples among the last `of`.
        failures: usize,
        /// Samples looked at: the failures in a row, or the window.
        of: usize,
        /// The last failure's message.
        last_error: String,
    },
    /// The solver program fails systematically (see the crate README): it exits with an
    /// error or times out on instance after instance.
    FailingSolver {
        /// Failed runs among the last `of`.
        failures: usize,
        /// Runs looked at: the failures in a row, or the window.
        of: usize,
        /// The last failure's message (the last line of its stderr).
        last_error: String,
    },
    /// The solver program cannot run at all.
    Solver(String),
    /// The store could not be written.
    Store(String),
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Budget { spent, max } => write!(
                f,
                "stopped at the budget: {spent:.4} spent of --max-cost {max}; raise --max-cost and re-run the same command to continue"
            ),
            StopReason::FailingEndpoints {
                failures,
                of,
                last_error,
            } => write!(
                f,
                "stopped: {} failed after every retry (last: {last_error}); check the endpoints and re-run the same command to continue",
                failed_share(*failures, *of, "samples")
            ),
            StopReason::FailingSolver {
                failures,
                of,
                last_error,
            } => write!(
                f,
                "stopped: {} of the solver program failed (last: {last_error}); fix the program and re-run the same command to continue",
                failed_share(*failures, *of, "runs")
            ),
            StopReason::Solver(e) => write!(f, "stopped: {e}"),
            StopReason::Store(e) => write!(f, "stopped: the run store could not be written: {e}"),
        }
    }
}

/// "12 samples in a row" or "60 of the last 100 samples".
fn failed_share(failures: usize, of: usize, what: &str) -> String {
    if failures == of {
        format!("{failures} {what} in a row")
    } else {
        format!("{failures} of the last {of} {what}")
    }
}

/// How a run (or a rescore) ended.
#[derive(Debug)]
pub struct RunOutcome {
    /// The run directory.
    pub run_dir: PathBuf,
    /// Samples the run should hold: instances × K.
    pub total: usize,
    /// Samples written by this invocation.
    pub added: usize,
    /// Why it stopped early, if it did.
    pub stopped: Option<StopReason>,
    /// Warnings found before the run (unlisted model, URL without /v1).
    pub warnings: Vec<String>,
    /// Scores and run statistics, through the shared scoring path (in interactive mode
    /// on the final cascades, held-out examples left to [`RunOutcome::interactive`]).
    pub results: RunResults,
    /// The episodes' grades, in interactive mode.
    pub interactive: Option<InteractiveResults>,
    /// A reordering run's figures (`results` then holds the run's own figures, and no
    /// synthesis scores).
    pub reorder: Option<ReorderResults>,
    /// The run's strategy, when it has a name of its own (`stepwise`, `feedback`).
    pub strategy: Option<Strategy>,
}

/// A run's strategy, as its `results.json` records it (`strategy`, and for a step-wise
/// search its parameters under `stepwise`).
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// `stepwise` or `feedback`.
    pub name: String,
    /// A step-wise search's parameters: `step_rules`, `steps`, `samples` (per step),
    /// `select`.
    pub stepwise: Option<Value>,
}

impl RunOutcome {
    /// True when every sample holds an answer.
    pub fn complete(&self) -> bool {
        self.results.answered == self.total
    }

    /// The outcome, once its `results.json` and `per-instance.jsonl` are written into the
    /// run directory.
    pub(crate) fn written(self) -> Result<Self, EvalError> {
        match &self.reorder {
            None => {
                RunResultsFile::of(&self).write(&self.run_dir)?;
                crate::results_file::write_per_instance(&self.run_dir, &self.results.instances)?;
            }
            Some(reorder) => {
                ReorderRunFile::of(&self.results, reorder).write(&self.run_dir)?;
                crate::results_file::write_order_per_instance(&self.run_dir, &reorder.instances)?;
            }
        }
        Ok(self)
    }

    /// The text of the run's `results.json`: [`RunResultsFile`], or [`ReorderRunFile`] for
    /// a reordering run.
    pub fn results_json(&self) -> String {
        match &self.reorder {
            None => RunResultsFile::of(self).to_json(),
            Some(reorder) => ReorderRunFile::of(&self.results, reorder).to_json(),
        }
    }
}

/// Runs (or continues) an evaluation, scores it and writes its `results.json`
/// ([`RunResultsFile`]), silently.
pub fn evaluate(config: &EvalConfig) -> Result<RunOutcome, EvalError> {
    evaluate_with(config, &())
}

/// [`evaluate`], telling `progress` how the run goes (for a progress bar).
pub fn evaluate_with(
    config: &EvalConfig,
    progress: &dyn EvalProgress,
) -> Result<RunOutcome, EvalError> {
    let (
        Loaded {
            instances,
            task,
            dataset,
        },
        backend,
        warnings,
    ) = prepare(config)?;
    let answer = answer_params(config, &task, &backend);
    let run_params = config.run_params();

    let mut store = open_run(config, &dataset, &answer, progress)?;
    let k = config.answers_per_instance();
    let total = instances.len() * k as usize;
    let jobs = pending_jobs(&instances, &store.answered()?, k);

    let manifest = manifest(&store, dataset, answer, &run_params, jobs.is_empty())?;
    store.put_manifest(&manifest)?;
    let invocation = store.begin_invocation(&run_params)?;
    let needs_request: HashSet<usize> = jobs.iter().map(|j| j.instance).collect();
    let requests: Vec<Option<String>> = instances
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            needs_request
                .contains(&i)
                .then(|| first_request(config, &task, &backend, i, inst))
        })
        .collect();
    let resumed = resumed_turns(config, &store)?;

    // What earlier invocations stored: their cost counts against the budget, and their
    // passes start the progress bar's pass rate.
    let by_id: HashMap<&str, usize> = (instances.iter().enumerate())
        .map(|(i, inst)| (inst.id.as_str(), i))
        .collect();
    progress.start(total);
    let mut spent = 0.0;
    store.scan(|s| {
        spent += s.usage.cost(config.prices);
        if !s.status.is_answer() {
            return;
        }
        if let Some(&i) = by_id.get(s.instance_id.as_str()).filter(|_| s.sample < k) {
            let passed = task.passes(i, &instances[i], s.response_text(), config.block);
            progress.previous(passed);
        }
    })?;

    let ctl = Control::new(config.max_cost, spent);
    let (tx, rx) = mpsc::channel();
    let mut writer = Writer {
        store: &mut store,
        requests: &requests,
        instances: &instances,
        task: &task,
        block: config.block,
        progress,
        ctl: &ctl,
        breaker: Breaker::new(config.concurrency),
        solver_program: matches!(config.solver, SolverSpec::Command(_)),
        added: 0,
        stopped: None,
    };
    let next = AtomicUsize::new(0);
    let worker = Worker {
        jobs: &jobs,
        next: &next,
        requests: &requests,
        instances: &instances,
        task: &task,
        backend: &backend,
        ctl: &ctl,
        prices: config.prices,
        interactive: config.interactive,
        resumed: &resumed,
        stepwise: config.stepwise.map(|spec| (spec, config.samples)),
    };
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.min(jobs.len().max(1)) {
            let (worker, tx) = (&worker, tx.clone());
            scope.spawn(move || worker.run(tx));
        }
        drop(tx);
        writer.run(rx);
    });
    let (added, mut stopped) = (writer.added, writer.stopped);
    progress.finished();
    if stopped.is_none() {
        if let Some((spent, max)) = ctl.budget_exhausted() {
            stopped = Some(StopReason::Budget { spent, max });
        }
    }

    let (results, interactive, reorder) = score_task(
        &task,
        &instances,
        &store,
        k,
        config.block,
        config.prices,
        config.interactive.is_some(),
    )?;
    if results.answered == total {
        store.mark_finished()?;
    }
    let outcome = match &stopped {
        None if results.answered == total => "complete".to_owned(),
        None => "incomplete".to_owned(),
        Some(reason) => reason.to_string(),
    };
    store.end_invocation(invocation, &outcome, added)?;
    RunOutcome {
        run_dir: config.run_dir.clone(),
        total,
        added,
        stopped,
        warnings,
        results,
        interactive,
        reorder,
        strategy: strategy(config),
    }
    .written()
}

/// The run's results, by its task's scoring: [`score_run`], or a reordering run's
/// ([`crate::reorder::score_run`]).
#[allow(clippy::type_complexity)]
pub(crate) fn score_task(
    task: &Task,
    instances: &[Instance],
    store: &RunStore,
    k: u32,
    block: BlockChoice,
    prices: Prices,
    interactive: bool,
) -> Result<
    (
        RunResults,
        Option<InteractiveResults>,
        Option<ReorderResults>,
    ),
    EvalError,
> {
    match task {
        Task::Synthesis => {
            let (results, episodes) = score_run(instances, store, k, block, prices, interactive)?;
            Ok((results, episodes, None))
        }
        Task::Reorder(problems) => {
            let (results, reorder) =
                crate::reorder::score_run(problems, store, k, block, prices, interactive)?;
            Ok((results, None, Some(reorder)))
        }
    }
}

/// What a run needs before its store is opened, each refusal said before any request:
/// the configuration checked, the dataset read (and its task recognised), the step-wise
/// cap and the golds checked, the backend built (with its warnings).
fn prepare(config: &EvalConfig) -> Result<(Loaded, Backend, Vec<String>), EvalError> {
    config.check()?;
    let loaded = crate::reorder::load(&config.dataset)?;
    loaded.task.check(config)?;
    if let Some(spec) = &config.stepwise {
        spec.check_cap(&loaded.instances)?;
    }
    let (backend, warnings) = Backend::build(config)?;
    if matches!(loaded.task, Task::Synthesis) {
        check_golds(config, &loaded.instances)?;
    }
    Ok((loaded, backend, warnings))
}

/// The parameters that change answers: the backend's, and a step-wise search's (whose
/// step prompt is built in, so no template is named).
fn answer_params(config: &EvalConfig, task: &Task, backend: &Backend) -> Value {
    let mut answer = task.answer_params(backend.answer_params(config.interactive));
    if let Some(spec) = &config.stepwise {
        answer["stepwise"] = crate::stepwise::describe(spec, config.samples);
        if let Value::Object(m) = &mut answer {
            m.remove("prompt_template");
        }
    }
    answer
}

/// The stored request of instance `i`: its first (step's) request.
fn first_request(
    config: &EvalConfig,
    task: &Task,
    backend: &Backend,
    i: usize,
    instance: &Instance,
) -> String {
    match &config.stepwise {
        Some(spec) => crate::stepwise::first_request(backend, instance, spec),
        None => task.request(backend, i, instance, config.interactive),
    }
}

/// The run's strategy, when it has a name of its own.
fn strategy(config: &EvalConfig) -> Option<Strategy> {
    config.strategy().map(|name| Strategy {
        name: name.to_owned(),
        stepwise: (config.stepwise).map(|spec| crate::stepwise::describe(&spec, config.samples)),
    })
}

/// Interactive mode probes the hidden cascade: every instance needs its gold.
fn check_golds(config: &EvalConfig, instances: &[Instance]) -> Result<(), EvalError> {
    if config.interactive.is_some() {
        if let Some(inst) = instances.iter().find(|i| i.cascade.is_none()) {
            return Err(EvalError::Parameter(format!(
                "{}: instance {} has no gold cascade; --interactive probes the hidden cascade, so it needs generated instances",
                config.dataset.display(),
                inst.id
            )));
        }
    }
    Ok(())
}

/// The run's manifest for this invocation: the store's version and creation time kept,
/// finished only when it was and `complete` (no sample to add).
fn manifest(
    store: &RunStore,
    dataset: DatasetRef,
    answer: Value,
    run_params: &Value,
    complete: bool,
) -> Result<Manifest, EvalError> {
    let previous = store.manifest()?;
    Ok(Manifest {
        tool_version: previous.as_ref().map_or_else(
            || env!("CARGO_PKG_VERSION").to_owned(),
            |m| m.tool_version.clone(),
        ),
        dataset,
        answer,
        run: run_params.clone(),
        created_at: match &previous {
            Some(m) => m.created_at.clone(),
            None => store.now()?,
        },
        // Unfinished again when this invocation has samples to add (a larger --samples).
        finished_at: previous.and_then(|m| m.finished_at).filter(|_| complete),
    })
}

/// Where the unfinished episodes of an interactive run (or the unfinished searches of a
/// step-wise one) resume: their stored turns. A solver program's episode starts over
/// instead (its state died with the runner), so its stored turns are forgotten.
fn resumed_turns(
    config: &EvalConfig,
    store: &RunStore,
) -> Result<HashMap<(String, u32), Vec<TurnRow>>, EvalError> {
    if config.interactive.is_none() && config.stepwise.is_none() {
        return Ok(HashMap::new());
    }
    let turns = store.unfinished_turns()?;
    // A search's step samples do not depend on a program's state: they are kept.
    if config.interactive.is_some() && matches!(config.solver, SolverSpec::Command(_)) {
        for (id, sample) in turns.keys() {
            store.forget_turns(id, *sample)?;
        }
        return Ok(HashMap::new());
    }
    Ok(turns)
}

/// The run's results through the shared scoring path and, in interactive mode, the
/// episodes' grades. In interactive mode the table leaves held-out pass out: the examples
/// a solver probed no longer measure generalisation, and the episodes' held-out pass
/// counts only the others. Both grade every answer by the same path
/// ([`pbebench::probe::grade`] is static scoring's), so they agree on every other figure.
pub(crate) fn score_run(
    instances: &[Instance],
    store: &RunStore,
    k: u32,
    block: BlockChoice,
    prices: Prices,
    interactive: bool,
) -> Result<(RunResults, Option<InteractiveResults>), EvalError> {
    let results = scoring::run_results(instances, store, k, block, prices, !interactive)?;
    let episodes = interactive
        .then(|| store.episodes())
        .transpose()?
        .map(|rows| crate::episode::grade::grade_episodes(instances, &rows, k, prices));
    Ok((results, episodes))
}
