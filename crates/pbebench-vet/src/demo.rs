//! The end-to-end demo (issue 38.4): generate a small plain Lite set and its vetted
//! counterpart (`pbebench vet`), solve both with the built-in solvers, score every run
//! through the shared scoring path, audit both sets, and write a report for each. Its
//! summary sets Pass@1 beside Recovered@1 with 95% intervals, and each audit's verdict:
//! the plain set rewards fitting (its audit fails, as expected), the vetted one does not.
//! Offline and deterministic apart from the solvers' wall-clock limits.

use crate::attack::Panel;
use crate::audit::{audit, AuditFindings, AuditOptions};
use crate::genstats::GenerationStats;
use crate::report::{self, ReportInput};
use crate::results::ResultSet;
use crate::shortcuts::Baseline;
use crate::vet::{vet_dataset, VetCounts, VetJob, VetOptions, VetProgress, VetSummary};
use pbebench::dataset::DatasetWriter;
use pbebench::generate::{self, GenStats, Preset, StatsFile};
use pbebench::{
    read_responses, render_answer, score_dataset, write_score_lines, Instance, ResponseLine,
    Results, ScoreOptions,
};
use pbebench_io::{write_atomic, AtomicFile};
use pbebench_solve::{solve_dataset, solver_by_name, Budget, SolveJob, SolveProgress};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the demo does.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Directory for everything it writes.
    pub out: PathBuf,
    /// Instances in the plain Lite set (the vetted one has as many slots).
    pub size: usize,
    /// Generator seed.
    pub seed: u64,
    /// Wall-clock limit per instance for the solvers.
    pub time_limit: Duration,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            out: PathBuf::from("pbebench-demo"),
            size: 64,
            seed: 0,
            time_limit: Duration::from_millis(500),
        }
    }
}

/// Why the demo stopped.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The parameters are not usable (e.g. a size the generator cannot balance).
    #[error("{0}")]
    Params(String),
    /// Generation failed.
    #[error("generation failed: {0}")]
    Generate(String),
    /// A file could not be written or read back.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// Anything else, already described.
    #[error("{0}")]
    Other(String),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DemoError + '_ {
    move |source| DemoError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A rate over instances with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The rate.
    pub value: f64,
    /// Instances it is over.
    pub n: usize,
    /// Lower end of the 95% Wilson interval.
    pub lo: f64,
    /// Upper end of the 95% Wilson interval.
    pub hi: f64,
}

impl Rate {
    /// `value`, a share of `n` instances (one sample each), with its Wilson interval
    /// ([`pbebench::interval::wilson`]; `[0, 1]` over no instance).
    pub fn of(value: f64, n: usize) -> Self {
        let successes = ((value * n as f64).round() as usize).min(n);
        let (lo, hi) =
            pbebench::interval::wilson(successes, n).map_or((0.0, 1.0), |i| (i.lo, i.hi));
        Rate { value, n, lo, hi }
    }
}

/// One solver (or baseline) on one set.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoRow {
    /// The run's label.
    pub label: String,
    /// Pass@1: its answer reproduces every visible example.
    pub pass_at_1: Rate,
    /// Recovered@1: its answer is equivalent to the gold on the whole input space
    /// (`None`: nothing decided).
    pub recovered_at_1: Option<Rate>,
}

/// One of the demo's two sets and what became of it.
#[derive(Debug, Clone)]
pub struct DemoSet {
    /// `plain Lite` or `vetted Lite`.
    pub name: String,
    /// Its dataset file.
    pub dataset: PathBuf,
    /// Its instances.
    pub instances: usize,
    /// Its audit (`audit.json` beside the dataset).
    pub audit: AuditFindings,
    /// Its report's page.
    pub index: PathBuf,
    /// The panel's solvers, then the shortcut baselines.
    pub rows: Vec<DemoRow>,
}

/// What the demo produced.
#[derive(Debug, Clone)]
pub struct DemoSummary {
    /// The plain set, then the vetted one.
    pub sets: Vec<DemoSet>,
    /// What vetting did.
    pub vet: VetSummary,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Patience values of the efficiency sweep (the preset's own is added).
const PATIENCE_SWEEP: [u64; 4] = [0, 1_000, 3_000, 10_000];

/// The demo's panel of solvers, from strong to weak: (label, solver, node budget). Small
/// node budgets make weaker, deterministic solvers, so calibration has a spread to show.
const PANEL: [(&str, &str, Option<u64>); 3] = [
    ("beam", "beam", None),
    ("beam-hunks-5-nodes", "beam-hunks", Some(5)),
    ("beam-3-nodes", "beam", Some(3)),
];

/// Runs the demo, telling `say` what it is doing.
pub fn run_demo(
    options: &DemoOptions,
    say: &(dyn Fn(&str) + Sync),
) -> Result<DemoSummary, DemoError> {
    let start = Instant::now();
    let out = &options.out;
    let mut params = Preset::Lite.params();
    params.size = options.size;
    params.seed = options.seed;
    params
        .validate()
        .map_err(|e| DemoError::Params(e.to_string()))?;
    let created = !out.exists();
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let result = run_stages(options, &params, say, start);
    if result.is_err() && created {
        // A demo that failed before writing anything leaves no empty folder behind (what
        // it did write stays, to look at).
        let _ = std::fs::remove_dir(out);
    }
    result
}

/// The demo's six stages, into the directory `options.out` (which exists): the plain set
/// at the top of it, the vetted one under `vetted/`.
fn run_stages(
    options: &DemoOptions,
    params: &generate::GenParams,
    say: &(dyn Fn(&str) + Sync),
    start: Instant,
) -> Result<DemoSummary, DemoError> {
    let out = &options.out;

    say(&format!(
        "[1/6] generating {} Lite instances (seed {})",
        params.size, params.seed
    ));
    let dataset_path = out.join("dataset.jsonl");
    let (dataset, generation) = generate_set(params, &dataset_path, &out.join("generation"), say)?;

    let vetted_dir = out.join("vetted");
    std::fs::create_dir_all(&vetted_dir).map_err(io_err(&vetted_dir))?;
    let vetted_path = vetted_dir.join("dataset.jsonl");
    let (vetted, vet) = vet_set(&dataset, params, &vetted_path, say)?;

    let sets = [
        (
            "plain Lite",
            dataset,
            dataset_path,
            out.to_path_buf(),
            generation,
        ),
        ("vetted Lite", vetted, vetted_path, vetted_dir, Vec::new()),
    ];
    let mut done = Vec::new();
    for (name, data, path, dir, generation) in sets {
        done.push(run_set(
            options, params, name, data, &path, &dir, generation, say,
        )?);
    }
    Ok(DemoSummary {
        sets: done,
        vet,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Solves, scores, audits and reports one set, in `dir`.
#[allow(clippy::too_many_arguments)]
fn run_set(
    options: &DemoOptions,
    params: &generate::GenParams,
    name: &str,
    dataset: Vec<Instance>,
    dataset_path: &Path,
    dir: &Path,
    generation: Vec<GenerationStats>,
    say: &(dyn Fn(&str) + Sync),
) -> Result<DemoSet, DemoError> {
    let runs_dir = dir.join("runs");
    let mut runs = solve_with_panel(&dataset, name, &runs_dir, options.time_limit, say)?;
    say(&format!(
        "[4/6] {name}: scoring the runs and the trivial baselines (identity, single rule, memoriser)"
    ));
    runs.extend(answer_with_baselines(&dataset, &runs_dir)?);
    let results = runs
        .iter()
        .map(|(label, responses)| score_run(&dataset, dataset_path, label, responses))
        .collect::<Result<Vec<ResultSet>, DemoError>>()?;
    let rows = results
        .iter()
        .map(|r| {
            let o = &r.summary.overall;
            DemoRow {
                label: r.label.clone(),
                pass_at_1: Rate::of(o.pass_at_k.get(&1).copied().unwrap_or(0.0), o.instances),
                recovered_at_1: o.recovered.map(|v| Rate::of(v, o.recovered_instances)),
            }
        })
        .collect();

    say(&format!(
        "[5/6] {name}: auditing (gates, shortcuts, stated lengths from the panel's answers, duplicates, labels, identifiability, calibration)"
    ));
    let findings = audit_set(&dataset, dataset_path, &results, dir, say)?;

    say(&format!("[6/6] {name}: writing the report"));
    let report_dir = dir.join("report");
    let instances = dataset.len();
    let built = report::build(ReportInput {
        title: format!(
            "pbebench demo — {name}, {instances} instances, seed {}",
            params.seed
        ),
        results,
        generation,
        audit: Some(findings.clone()),
        dataset: Some((dataset_path.display().to_string(), dataset)),
        warnings: Vec::new(),
        transcripts: Vec::new(),
        reorder: Vec::new(),
    });
    built.write(&report_dir).map_err(io_err(&report_dir))?;
    Ok(DemoSet {
        name: name.to_owned(),
        dataset: dataset_path.to_path_buf(),
        instances,
        audit: findings,
        index: report_dir.join("index.html"),
        rows,
    })
}

/// What vetting says as it goes: every 16 slots, and at the end.
struct VetSays<'a>(&'a (dyn Fn(&str) + Sync));

impl VetProgress for VetSays<'_> {
    fn done(&self, c: VetCounts) {
        if c.done.is_multiple_of(16) || c.done == c.total {
            (self.0)(&format!(
                "      {}/{} vetted, {} examples added, {} replaced, {} dropped",
                c.done, c.total, c.added, c.replaced, c.dropped
            ));
        }
    }
}

/// Vets `dataset` into `path` as `pbebench generate --preset lite-vetted` does (the
/// default panel and cap, the generation parameters for replacements) and reads it back.
fn vet_set(
    dataset: &[Instance],
    params: &generate::GenParams,
    path: &Path,
    say: &(dyn Fn(&str) + Sync),
) -> Result<(Vec<Instance>, VetSummary), DemoError> {
    let options = VetOptions {
        panel: Panel::default(),
        max_examples: crate::vet::DEFAULT_MAX_EXAMPLES,
        replacement_attempts: crate::vet::REPLACEMENT_ATTEMPTS,
        seed: params.seed,
        params: Some(params.clone()),
    };
    say(&format!(
        "[2/6] vetting it (pbebench vet: panel {}, at most {} examples)",
        options.panel, options.max_examples
    ));
    let job = VetJob {
        options: &options,
        out: path,
        threads: rayon::current_num_threads(),
        // The set is generated again by every demo: an older journal is not of it.
        fresh: true,
        shard: None,
    };
    let summary =
        vet_dataset(dataset, &job, &VetSays(say)).map_err(|e| DemoError::Other(e.to_string()))?;
    let vetted =
        pbebench::dataset::read_dataset(path).map_err(|e| DemoError::Other(e.to_string()))?;
    say(&format!(
        "      {} of {} slots kept ({} with a fresh instance), {} dropped; {} examples added",
        summary.kept, summary.instances, summary.replaced, summary.dropped, summary.added
    ));
    Ok((vetted, summary))
}

/// Generates the set into `dataset_path`, and a patience sweep into `gen_dir` for the
/// efficiency figure; returns the instances and the generation statistics.
fn generate_set(
    params: &generate::GenParams,
    dataset_path: &Path,
    gen_dir: &Path,
    say: &(dyn Fn(&str) + Sync),
) -> Result<(Vec<Instance>, Vec<GenerationStats>), DemoError> {
    std::fs::create_dir_all(gen_dir).map_err(io_err(gen_dir))?;
    let mut dataset: Vec<Instance> = Vec::new();
    let stats = generate::generate(params, &(), &mut |inst| {
        dataset.push(inst);
        Ok(())
    })
    .map_err(|e| DemoError::Generate(e.to_string()))?;
    let mut file = AtomicFile::create(dataset_path).map_err(io_err(dataset_path))?;
    DatasetWriter::new(&mut file)
        .write_all(&dataset)
        .map_err(io_err(dataset_path))?;
    file.commit().map_err(io_err(dataset_path))?;
    let mut generation = vec![write_stats(gen_dir, params, &stats)?];
    for patience in PATIENCE_SWEEP {
        let mut p = params.clone();
        p.patience = patience;
        let s = generate::generate(&p, &(), &mut |_| Ok(()))
            .map_err(|e| DemoError::Generate(e.to_string()))?;
        generation.push(write_stats(gen_dir, &p, &s)?);
    }
    generation.sort_by_key(|g| g.patience);
    say(&format!(
        "      {} instances, {} attempts ({:.1}% accepted); patience sweep {:?} + {}",
        dataset.len(),
        stats.attempts,
        stats.efficiency * 100.0,
        PATIENCE_SWEEP,
        params.patience
    ));
    Ok((dataset, generation))
}

/// What a solver of the panel says as it goes: every 32 instances, and at the end.
struct PanelProgress<'a>(&'a (dyn Fn(&str) + Sync));

impl SolveProgress for PanelProgress<'_> {
    fn done(&self, done: usize, solved: usize, total: usize) {
        if done.is_multiple_of(32) || done == total {
            (self.0)(&format!("      {done}/{total} done, {solved} solved"));
        }
    }
}

/// Solves the set with each solver of [`PANEL`] into `runs_dir/LABEL/responses.jsonl`,
/// as `pbebench solve` does; returns (label, responses file) per solver.
fn solve_with_panel(
    dataset: &[Instance],
    set: &str,
    runs_dir: &Path,
    time_limit: Duration,
    say: &(dyn Fn(&str) + Sync),
) -> Result<Vec<(String, PathBuf)>, DemoError> {
    let mut runs = Vec::new();
    for (k, (label, name, nodes)) in PANEL.iter().enumerate() {
        let solver = solver_by_name(name)
            .ok_or_else(|| DemoError::Other(format!("solver '{name}' is not registered")))?;
        say(&format!(
            "[3/6] {set}: solving with '{label}' ({}/{}; {:.1} s limit per instance{})",
            k + 1,
            PANEL.len(),
            time_limit.as_secs_f64(),
            nodes.map_or(String::new(), |n| format!(", {n} search nodes"))
        ));
        let dir = runs_dir.join(pbebench_io::safe_file_name(label));
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let out = dir.join("responses.jsonl");
        let job = SolveJob {
            solver: solver.as_ref(),
            budget: Budget {
                time_limit,
                max_nodes: *nodes,
            },
            threads: rayon::current_num_threads(),
            out: &out,
            stats: None,
            // The set is generated again by every demo: an older journal is not of it.
            fresh: true,
            probe_budget: None,
            probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
        };
        solve_dataset(dataset, &job, &PanelProgress(say))
            .map_err(|e| DemoError::Other(format!("solving with '{label}': {e}")))?;
        runs.push((label.to_string(), out));
    }
    Ok(runs)
}

/// The answers of the trivial baselines, each written as a responses file; returns
/// (name, responses file) per baseline.
fn answer_with_baselines(
    dataset: &[Instance],
    runs_dir: &Path,
) -> Result<Vec<(String, PathBuf)>, DemoError> {
    Baseline::ALL
        .iter()
        .map(|baseline| {
            let answers: Vec<String> = dataset
                .iter()
                .map(|inst| render_answer(&baseline.cascade(inst)))
                .collect();
            let path = write_responses(runs_dir, baseline.name(), dataset, &answers)?;
            Ok((baseline.name().to_owned(), path))
        })
        .collect()
}

/// Audits the set with the panel's results as calibration panel (and as the source of
/// shorter cascades); writes `audit.json` and `audit.txt` into `out`.
fn audit_set(
    dataset: &[Instance],
    dataset_path: &Path,
    results: &[ResultSet],
    out: &Path,
    say: &(dyn Fn(&str) + Sync),
) -> Result<AuditFindings, DemoError> {
    let panel: Vec<ResultSet> = results
        .iter()
        .filter(|r| PANEL.iter().any(|(label, _, _)| *label == r.label))
        .cloned()
        .collect();
    let findings = audit(
        dataset,
        &dataset_path.display().to_string(),
        &panel,
        // The stated-length check takes its shorter cascades from the panel's answers: the
        // built-in solver's own search would cost more than the rest of the demo.
        &AuditOptions {
            solver: None,
            ..AuditOptions::default()
        },
        &|stage: &str| say(&format!("      {stage}")),
    );
    let audit_json = out.join("audit.json");
    let text = serde_json::to_string_pretty(&findings).expect("serialisable") + "\n";
    write_atomic(&audit_json, text.as_bytes()).map_err(io_err(&audit_json))?;
    let audit_txt = out.join("audit.txt");
    write_atomic(&audit_txt, findings.to_string().as_bytes()).map_err(io_err(&audit_txt))?;
    Ok(findings)
}

/// Writes `--stats-json`-style statistics for one generation run and reads them back.
fn write_stats(
    dir: &Path,
    params: &generate::GenParams,
    stats: &GenStats,
) -> Result<GenerationStats, DemoError> {
    let path = dir.join(format!("patience-{}.json", params.patience));
    let file = StatsFile {
        params: params.clone(),
        stats: stats.clone(),
    };
    write_atomic(&path, file.to_json().as_bytes()).map_err(io_err(&path))?;
    GenerationStats::read(&path).map_err(|e| DemoError::Other(e.to_string()))
}

/// Writes a responses file ([`ResponseLine`]s), the format `pbebench score` reads.
fn write_responses(
    runs_dir: &Path,
    name: &str,
    dataset: &[Instance],
    answers: &[String],
) -> Result<PathBuf, DemoError> {
    let dir = runs_dir.join(name);
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let path = dir.join("responses.jsonl");
    let mut bytes = Vec::new();
    for (inst, answer) in dataset.iter().zip(answers) {
        let line = ResponseLine {
            id: &inst.id,
            response: answer,
        };
        line.write_to(&mut bytes).map_err(io_err(&path))?;
    }
    write_atomic(&path, &bytes).map_err(io_err(&path))?;
    Ok(path)
}

/// Scores a responses file as `pbebench score --out results.json --per-instance
/// per-instance.jsonl` does, writes both beside it, and returns the results.
fn score_run(
    dataset: &[Instance],
    dataset_path: &Path,
    name: &str,
    responses_path: &Path,
) -> Result<ResultSet, DemoError> {
    let responses =
        read_responses(responses_path, dataset).map_err(|e| DemoError::Other(e.to_string()))?;
    let options = ScoreOptions::default();
    let scores = score_dataset(dataset, &responses, &options);
    let mut results = Results::of(&scores, &responses, &options);
    results.dataset = Some(dataset_path.to_path_buf());
    results.responses = Some(responses_path.to_path_buf());
    let dir = responses_path.parent().unwrap_or(Path::new("."));
    let results_path = dir.join("results.json");
    write_atomic(&results_path, results.to_json().as_bytes()).map_err(io_err(&results_path))?;
    let per_path = dir.join("per-instance.jsonl");
    let mut lines = Vec::new();
    write_score_lines(&mut lines, &scores).map_err(io_err(&per_path))?;
    write_atomic(&per_path, &lines).map_err(io_err(&per_path))?;
    let mut set = ResultSet::from_instances(name, scores);
    set.sources = vec![results_path, per_path];
    set.dataset = Some(dataset_path.to_path_buf());
    Ok(set)
}
