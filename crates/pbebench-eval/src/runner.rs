//! The run: which samples are still missing, a bounded pool of workers that produce them,
//! and one writer (this thread) that commits each to the store as it completes.
//!
//! Workers never touch the store; the writer never waits on the network. A sample exists
//! in the store only once its transaction commits, so a process killed at any point loses
//! the requests in flight and nothing else, and a continued run requests exactly the
//! samples that are not stored yet.

use crate::client::{ChatClient, ChatParams, EndpointError};
use crate::progress::Progress;
use crate::retry::RetryPolicy;
use crate::sample::{Prices, Sample};
use crate::scoring::{self, Block, Report, Template};
use crate::solver_cmd::{CommandError, PublicInstance, SolverCommand};
use crate::store::{DatasetRef, Manifest, RunStore, StoreError};
use pbebench::dataset::DatasetError;
use pbebench::Instance;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

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
    pub block: Block,
    /// Draw a progress bar (or, off a terminal, a status line every 30 s) on stderr.
    pub progress: bool,
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

/// Why a run could not start or went wrong.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The dataset could not be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The run store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An endpoint is unusable.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    /// The solver program cannot run.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// A parameter is out of range, or a file it names is unusable.
    #[error("{0}")]
    Parameter(String),
    /// The run directory holds a run made with other answer-affecting parameters.
    #[error("{dir} holds a run made with other parameters:\n{differences}\nRe-run with the run's own parameters to continue it, choose another --run directory, or add --force-new to start over (the old store is kept as run.N.sqlite).")]
    Mismatch {
        /// The run directory.
        dir: PathBuf,
        /// One line per parameter that differs.
        differences: String,
    },
}

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
    /// Sample after sample failed after every retry: the endpoints are down or refuse.
    FailingEndpoints {
        /// Consecutive failures seen.
        failures: usize,
        /// The last failure's message.
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
                last_error,
            } => write!(
                f,
                "stopped after {failures} samples in a row failed after every retry (last: {last_error}); check the endpoints and re-run the same command to continue"
            ),
            StopReason::Solver(e) => write!(f, "stopped: {e}"),
            StopReason::Store(e) => write!(f, "stopped: the run store could not be written: {e}"),
        }
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
    /// Scores and run statistics, through the shared scoring path.
    pub report: Report,
}

impl RunOutcome {
    /// True when every sample holds an answer.
    pub fn complete(&self) -> bool {
        self.report.answered == self.total
    }
}

/// One (instance, sample index) to produce.
struct Job {
    instance: usize,
    sample: u32,
}

/// Shared state of a run's workers: the stop flag and the budget.
pub struct Control {
    stop: AtomicBool,
    budget: Mutex<Budget>,
}

struct Budget {
    max: Option<f64>,
    spent: f64,
    paid: usize,
    in_flight: usize,
    exhausted: bool,
}

impl Control {
    fn new(max_cost: Option<f64>, spent: f64, paid: usize) -> Self {
        Control {
            stop: AtomicBool::new(false),
            budget: Mutex::new(Budget {
                max: max_cost,
                spent,
                paid,
                in_flight: 0,
                exhausted: false,
            }),
        }
    }

    /// True once the run is stopping: no new request starts, backoffs end early.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stops the run.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Sleeps `d`, waking early when the run stops; false if it did.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        while !self.stopped() {
            let now = Instant::now();
            if now >= end {
                return true;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
        false
    }

    /// Reserves one more request if the budget allows it: the spent cost plus the
    /// expected cost (mean so far) of every request in flight, this one included,
    /// must stay within `--max-cost`.
    fn reserve(&self) -> bool {
        let mut b = self.budget.lock().expect("budget lock");
        if let Some(max) = b.max {
            let mean = if b.paid > 0 {
                b.spent / b.paid as f64
            } else {
                0.0
            };
            if b.spent >= max || b.spent + (b.in_flight + 1) as f64 * mean > max {
                b.exhausted = true;
                drop(b);
                self.stop();
                return false;
            }
        }
        b.in_flight += 1;
        true
    }

    /// Settles a reserved request with what it cost (`None`: it produced no sample).
    fn settle(&self, cost: Option<f64>) {
        let mut b = self.budget.lock().expect("budget lock");
        b.in_flight -= 1;
        if let Some(c) = cost {
            b.spent += c;
            b.paid += 1;
        }
    }

    fn budget_exhausted(&self) -> Option<(f64, f64)> {
        let b = self.budget.lock().expect("budget lock");
        b.exhausted.then(|| (b.spent, b.max.unwrap_or(0.0)))
    }
}

/// Something that answers instances: it builds the stored request of an instance and
/// turns a request into a sample.
#[allow(clippy::large_enum_variant)] // one per run
enum Backend {
    Chat {
        client: ChatClient,
        params: ChatParams,
        template: Template,
    },
    Command(SolverCommand),
}

impl Backend {
    fn request(&self, instance: &Instance) -> String {
        match self {
            Backend::Chat {
                params, template, ..
            } => params.body(&template.render(instance)),
            Backend::Command(_) => PublicInstance::of(instance).to_json(),
        }
    }

    /// One sample; `Ok(None)` when the run stopped first; `Err` when the solver cannot
    /// run at all.
    fn sample(
        &self,
        request: &str,
        instance_id: &str,
        sample: u32,
        ctl: &Control,
    ) -> Result<Option<Sample>, String> {
        match self {
            Backend::Chat { client, .. } => Ok(client
                .sample(request, ctl)
                .map(|reply| reply.into_sample(instance_id, sample))),
            Backend::Command(cmd) => cmd
                .run(request, instance_id, sample)
                .map(Some)
                .map_err(|e| e.to_string()),
        }
    }

    /// The parameters that change answers, as stored in the manifest.
    fn answer_params(&self) -> Value {
        match self {
            Backend::Chat {
                params, template, ..
            } => json!({
                "solver": "chat",
                "model": params.model,
                "temperature": params.temperature,
                "top_p": params.top_p,
                "max_tokens": params.max_tokens,
                "reasoning_effort": params.reasoning_effort,
                "extra_body": params.extra_body,
                "prompt_template": template.describe(),
            }),
            Backend::Command(cmd) => json!({"solver": "command", "command": cmd.command}),
        }
    }
}

/// Runs (or continues) an evaluation and scores it.
pub fn evaluate(config: &EvalConfig) -> Result<RunOutcome, EvalError> {
    check_config(config)?;
    let instances = pbebench::dataset::read_dataset(&config.dataset)?;
    let dataset = DatasetRef {
        path: config.dataset.display().to_string(),
        sha256: sha256_file(&config.dataset)?,
        instances: instances.len(),
    };
    let (backend, warnings) = build_backend(config)?;
    let answer = backend.answer_params();
    let run_params = run_params(config);

    let mut store = open_run(config, &dataset, &answer)?;
    let k = config.samples;
    let total = instances.len() * k as usize;
    let jobs = pending_jobs(&instances, &store.answered()?, k);

    let previous = store.manifest()?;
    let manifest = Manifest {
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
        finished_at: previous
            .and_then(|m| m.finished_at)
            .filter(|_| jobs.is_empty()),
    };
    store.put_manifest(&manifest)?;
    let invocation = store.begin_invocation(&run_params)?;
    let needs_request: HashSet<usize> = jobs.iter().map(|j| j.instance).collect();
    let requests: Vec<Option<String>> = instances
        .iter()
        .enumerate()
        .map(|(i, inst)| needs_request.contains(&i).then(|| backend.request(inst)))
        .collect();

    // What earlier invocations stored: their cost counts against the budget, and their
    // passes start the progress bar's pass rate.
    let by_id: std::collections::HashMap<&str, &Instance> =
        instances.iter().map(|i| (i.id.as_str(), i)).collect();
    let mut progress = Progress::new(config.progress, total, config.prices);
    let (mut spent, mut paid) = (0.0, 0);
    store.scan(|s| {
        if !s.status.is_answer() {
            return;
        }
        spent += s.usage.cost(config.prices);
        paid += 1;
        if let Some(inst) = by_id.get(s.instance_id.as_str()).filter(|_| s.sample < k) {
            progress.previous(scoring::passes(inst, s.response_text(), config.block));
        }
    })?;

    let ctl = Control::new(config.max_cost, spent, paid);
    let (tx, rx) = mpsc::channel();
    let mut writer = Writer {
        store: &mut store,
        requests: &requests,
        instances: &instances,
        block: config.block,
        progress: &mut progress,
        ctl: &ctl,
        breaker_at: config.concurrency.max(10),
        consecutive_failures: 0,
        added: 0,
        stopped: None,
    };
    let next = AtomicUsize::new(0);
    let worker = Worker {
        jobs: &jobs,
        next: &next,
        requests: &requests,
        instances: &instances,
        backend: &backend,
        ctl: &ctl,
        prices: config.prices,
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
    progress.finish();
    if stopped.is_none() {
        if let Some((spent, max)) = ctl.budget_exhausted() {
            stopped = Some(StopReason::Budget { spent, max });
        }
    }

    let report = scoring::report(&instances, &store, k, config.block, config.prices)?;
    if report.answered == total {
        store.mark_finished()?;
    }
    let outcome = match &stopped {
        None if report.answered == total => "complete".to_owned(),
        None => "incomplete".to_owned(),
        Some(reason) => reason.to_string(),
    };
    store.end_invocation(invocation, &outcome, added)?;
    Ok(RunOutcome {
        run_dir: config.run_dir.clone(),
        total,
        added,
        stopped,
        warnings,
        report,
    })
}

/// Every (instance, sample index) below `k` that holds no answer yet, instance by
/// instance (so that the K samples of a prompt reach the server together, which helps its
/// prefix cache).
fn pending_jobs(instances: &[Instance], answered: &HashSet<(String, u32)>, k: u32) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (i, inst) in instances.iter().enumerate() {
        let mut key = (inst.id.clone(), 0);
        for sample in 0..k {
            key.1 = sample;
            if !answered.contains(&key) {
                jobs.push(Job {
                    instance: i,
                    sample,
                });
            }
        }
    }
    jobs
}

/// A result sent from a worker to the writer: the instance index and the sample (`None`
/// when the run stopped first; `Err` when the solver cannot run at all).
type WorkResult = (usize, Result<Option<Sample>, String>);

/// One of the run's workers: takes the next job, produces its sample, hands it on.
struct Worker<'a> {
    jobs: &'a [Job],
    next: &'a AtomicUsize,
    requests: &'a [Option<String>],
    instances: &'a [Instance],
    backend: &'a Backend,
    ctl: &'a Control,
    prices: Prices,
}

impl Worker<'_> {
    fn run(&self, tx: mpsc::Sender<WorkResult>) {
        while !self.ctl.stopped() {
            let Some(job) = self.jobs.get(self.next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            if !self.ctl.reserve() {
                break;
            }
            let inst = &self.instances[job.instance];
            let request = self.requests[job.instance]
                .as_deref()
                .expect("request built");
            let result = self.backend.sample(request, &inst.id, job.sample, self.ctl);
            let cost = match &result {
                Ok(Some(s)) if s.status.is_answer() => Some(s.usage.cost(self.prices)),
                _ => None,
            };
            self.ctl.settle(cost);
            if tx.send((job.instance, result)).is_err() {
                break;
            }
        }
    }
}

/// The run's single writer: commits results as they arrive (everything waiting goes into
/// one transaction), updates the progress, and stops the run on a fatal error or when
/// samples keep failing after every retry.
struct Writer<'a> {
    store: &'a mut RunStore,
    requests: &'a [Option<String>],
    instances: &'a [Instance],
    block: Block,
    progress: &'a mut Progress,
    ctl: &'a Control,
    breaker_at: usize,
    consecutive_failures: usize,
    added: usize,
    stopped: Option<StopReason>,
}

impl Writer<'_> {
    /// Runs until every worker has finished.
    fn run(&mut self, rx: mpsc::Receiver<WorkResult>) {
        let mut batch: Vec<(usize, Sample)> = Vec::new();
        loop {
            let first = match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.progress.tick();
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            };
            batch.clear();
            for (instance, result) in std::iter::once(first).chain(rx.try_iter().take(1023)) {
                match result {
                    Ok(Some(sample)) => batch.push((instance, sample)),
                    Ok(None) => {}
                    Err(e) => self.stop(StopReason::Solver(e)),
                }
            }
            if !batch.is_empty() {
                self.commit(&batch);
            }
        }
    }

    fn commit(&mut self, batch: &[(usize, Sample)]) {
        let rows: Vec<(&Sample, &str)> = batch
            .iter()
            .map(|(i, s)| (s, self.requests[*i].as_deref().expect("request built")))
            .collect();
        match self.store.insert(&rows) {
            Ok(n) => self.added += n,
            Err(e) => return self.stop(StopReason::Store(e.to_string())),
        }
        for (instance, sample) in batch {
            let pass = sample.status.is_answer().then(|| {
                scoring::passes(
                    &self.instances[*instance],
                    sample.response_text(),
                    self.block,
                )
            });
            self.progress.record(sample, pass);
            if sample.status.is_answer() {
                self.consecutive_failures = 0;
            } else {
                self.consecutive_failures += 1;
                if self.consecutive_failures >= self.breaker_at {
                    self.stop(StopReason::FailingEndpoints {
                        failures: self.consecutive_failures,
                        last_error: sample.error.clone().unwrap_or_default(),
                    });
                }
            }
        }
    }

    /// Stops the run; the first reason is the one reported.
    fn stop(&mut self, reason: StopReason) {
        self.stopped.get_or_insert(reason);
        self.ctl.stop();
    }
}

/// Recomputes every figure of a run from its stored responses, without a request.
/// `dataset` overrides the path in the manifest (the file must be the same: its hash is
/// checked).
pub fn rescore(
    run_dir: &Path,
    dataset: Option<&Path>,
    block: Block,
    prices: Option<Prices>,
) -> Result<RunOutcome, EvalError> {
    let store = RunStore::open_existing(run_dir)?;
    let manifest = store.manifest()?.ok_or_else(|| {
        EvalError::Parameter(format!(
            "{}: the run store has no manifest; it was never started",
            run_dir.display()
        ))
    })?;
    let path = dataset.map_or_else(|| PathBuf::from(&manifest.dataset.path), Path::to_path_buf);
    let sha = sha256_file(&path)?;
    if sha != manifest.dataset.sha256 {
        return Err(EvalError::Parameter(format!(
            "{}: this is not the dataset the run evaluated (its SHA-256 differs from the manifest's {}); pass the original file with --dataset",
            path.display(),
            manifest.dataset.sha256
        )));
    }
    let instances = pbebench::dataset::read_dataset(&path)?;
    let k = manifest
        .run
        .get("samples")
        .and_then(Value::as_u64)
        .unwrap_or(1) as u32;
    let prices = prices.unwrap_or_else(|| Prices {
        input: manifest
            .run
            .get("price_in")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
        output: manifest
            .run
            .get("price_out")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
    });
    let report = scoring::report(&instances, &store, k, block, prices)?;
    Ok(RunOutcome {
        run_dir: run_dir.to_path_buf(),
        total: instances.len() * k as usize,
        added: 0,
        stopped: None,
        warnings: Vec::new(),
        report,
    })
}

fn check_config(config: &EvalConfig) -> Result<(), EvalError> {
    let bad = |m: &str| Err(EvalError::Parameter(m.to_owned()));
    if config.samples == 0 {
        return bad("--samples must be at least 1");
    }
    if config.concurrency == 0 || config.concurrency > MAX_CONCURRENCY {
        return bad(&format!(
            "--concurrency must be between 1 and {MAX_CONCURRENCY}"
        ));
    }
    for (name, v) in [
        ("--price-in", Some(config.prices.input)),
        ("--price-out", Some(config.prices.output)),
        ("--max-cost", config.max_cost),
    ] {
        if v.is_some_and(|v| !v.is_finite() || v < 0.0) {
            return bad(&format!("{name} must be a non-negative number"));
        }
    }
    if config.max_cost.is_some() && config.prices == Prices::default() {
        return bad("--max-cost needs --price-in and/or --price-out (prices per million tokens)");
    }
    match &config.solver {
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

fn build_backend(config: &EvalConfig) -> Result<(Backend, Vec<String>), EvalError> {
    match &config.solver {
        SolverSpec::Chat(chat) => {
            let template =
                Template::load(chat.template.as_deref()).map_err(EvalError::Parameter)?;
            let client = ChatClient::new(
                &chat.base_urls,
                chat.api_key.clone(),
                chat.timeout,
                chat.retry,
                config.concurrency,
            )?;
            let warnings = client.preflight(&chat.params.model)?;
            Ok((
                Backend::Chat {
                    client,
                    params: chat.params.clone(),
                    template,
                },
                warnings,
            ))
        }
        SolverSpec::Command(cmd) => Ok((Backend::Command(cmd.clone()), Vec::new())),
    }
}

/// The parameters of this invocation that do not change answers.
fn run_params(config: &EvalConfig) -> Value {
    let mut v = json!({
        "samples": config.samples,
        "concurrency": config.concurrency,
        "price_in": config.prices.input,
        "price_out": config.prices.output,
        "max_cost": config.max_cost,
        "block": config.block.to_string(),
        "tool_version": env!("CARGO_PKG_VERSION"),
    });
    match &config.solver {
        SolverSpec::Chat(chat) => {
            v["base_urls"] = json!(chat.base_urls);
            v["timeout_s"] = json!(chat.timeout.as_secs_f64());
            v["max_retries"] = json!(chat.retry.max_retries);
        }
        SolverSpec::Command(cmd) => v["timeout_s"] = json!(cmd.timeout.as_secs_f64()),
    }
    v
}

/// Opens the run store, checking that an existing run was made with the same dataset and
/// answer parameters; with `--force-new` a different run is moved aside instead. A run
/// with no sample yet may always be re-parameterised.
fn open_run(
    config: &EvalConfig,
    dataset: &DatasetRef,
    answer: &Value,
) -> Result<RunStore, EvalError> {
    let dir = &config.run_dir;
    let store = RunStore::open(dir)?;
    let Some(old) = store.manifest()? else {
        return Ok(store);
    };
    let mut differences = Vec::new();
    if old.dataset.sha256 != dataset.sha256 {
        differences.push(format!(
            "  dataset: {} (sha256 {}…) vs {} (sha256 {}…)",
            old.dataset.path,
            &old.dataset.sha256[..12.min(old.dataset.sha256.len())],
            dataset.path,
            &dataset.sha256[..12]
        ));
    }
    differences.extend(value_differences(&old.answer, answer));
    if differences.is_empty() || store.samples()?.is_empty() {
        return Ok(store);
    }
    if !config.force_new {
        return Err(EvalError::Mismatch {
            dir: dir.clone(),
            differences: differences.join("\n"),
        });
    }
    drop(store);
    let moved = RunStore::archive(dir)?;
    if config.progress {
        eprintln!("note: the previous run was moved to {}", moved.display());
    }
    Ok(RunStore::open(dir)?)
}

/// "  key: old vs new" for every top-level key whose value differs.
fn value_differences(old: &Value, new: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let (o, n) = (
        old.as_object().unwrap_or(&empty),
        new.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (a, b) = (
                o.get(k).unwrap_or(&Value::Null),
                n.get(k).unwrap_or(&Value::Null),
            );
            (a != b).then(|| format!("  {k}: the run has {a}, this command asks for {b}"))
        })
        .collect()
}

fn sha256_file(path: &Path) -> Result<String, EvalError> {
    let bytes = std::fs::read(path).map_err(|error| DatasetError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(hex(&Sha256::digest(&bytes)))
}

/// Lowercase hex of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_parameter() {
        let d = value_differences(
            &json!({"model": "a", "temperature": 0.6, "top_p": null}),
            &json!({"model": "a", "temperature": 0.7, "seed": 1}),
        );
        assert_eq!(
            d,
            vec![
                "  seed: the run has null, this command asks for 1",
                "  temperature: the run has 0.6, this command asks for 0.7",
            ]
        );
    }

    #[test]
    fn the_budget_counts_requests_in_flight() {
        let ctl = Control::new(Some(1.0), 0.5, 4); // mean 0.125 per sample
                                                   // 0.5 spent + 4 in flight × 0.125 = 1.0: the fourth still fits, a fifth does not.
        for _ in 0..4 {
            assert!(ctl.reserve());
        }
        assert!(!ctl.reserve());
        assert!(ctl.stopped());
        assert_eq!(ctl.budget_exhausted(), Some((0.5, 1.0)));
    }

    #[test]
    fn stop_wakes_a_sleeping_worker() {
        let ctl = Control::new(None, 0.0, 0);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(50));
                ctl.stop();
            });
            let t0 = Instant::now();
            assert!(!ctl.sleep(Duration::from_secs(30)));
            assert!(t0.elapsed() < Duration::from_secs(5));
        });
    }
}
