//! Solving a whole dataset ([`solve_dataset`]): every instance posed to a solver, in
//! parallel; each result appended to a journal (`OUT.partial`) the moment it is known, so
//! that an interrupted run resumes where it stopped; then the responses written in the
//! released answer format through pbebench's [`ResponseLine`] (what `pbebench score`
//! reads), and, if asked, one line of statistics per instance. `pbebench solve` and the
//! demo both solve through this.
//!
//! Why a journal here and a SQLite store in `pbebench-eval`: a solve of one instance is a
//! pure function of the instance, the solver and its budget, so its results need no more
//! than an append-only list keyed by instance id, checked against the run's parameters
//! on resume, and thrown away once the outputs are written. An evaluation keeps every
//! sample of every instance for good (K per instance, with statuses, tokens and
//! latencies, rescored later under other options) and is resumed across crashes of
//! remote servers: that is a database's job.

use crate::{
    solve_all, solve_probing, ActiveConfig, Budget, Problem, ProblemError, SolveOutcome, Solver,
};
use pbebench::probe::{Oracle, OracleError, Probe};
use pbebench::{render_answer, Cascade, Instance, ResponseLine};
use pbebench_io::{journal_entries, JournalOpenError, Output, START_OVER};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What [`solve_dataset`] does.
#[derive(Clone, Copy)]
pub struct SolveJob<'a> {
    /// The solver.
    pub solver: &'a dyn Solver,
    /// Its budget per instance.
    pub budget: Budget,
    /// Instances solved at once (one core each).
    pub threads: usize,
    /// Where the responses go (`-`: standard output, and no journal).
    pub out: &'a Path,
    /// Where the per-instance statistics go, if anywhere (`-`: standard output).
    pub stats: Option<&'a Path>,
    /// Solve every instance again, discarding (and removing) a journal of an earlier run.
    pub fresh: bool,
    /// Probe each instance's hidden cascade up to this many inputs
    /// ([`crate::solve_probing`]); `None`: solve from the visible examples only.
    pub probe_budget: Option<usize>,
    /// With a probe budget: the oracle's probe length ([`Oracle::with_probe_len`]), by
    /// default [`pbebench::probe::DEFAULT_PROBE_LEN`].
    pub probe_len: usize,
}

/// What a [`solve_dataset`] run found.
#[derive(Debug, Clone, PartialEq)]
pub struct Solved {
    /// Instances of the dataset.
    pub instances: usize,
    /// Those solved (resumed ones included).
    pub solved: usize,
    /// Those taken from the journal of an earlier run.
    pub resumed: usize,
    /// Why the journal could not be kept up (the run went on; it cannot be resumed).
    pub journal_failure: Option<String>,
}

/// What [`solve_dataset`] tells as it goes.
pub trait SolveProgress: Sync {
    /// Before solving: `resumed` instances (`solved` of them solved) of `total` come from
    /// the journal at `journal`.
    fn resumed(&self, resumed: usize, solved: usize, total: usize, journal: &Path) {
        let _ = (resumed, solved, total, journal);
    }
    /// One more instance is done: `done` of `total`, `solved` of them solved.
    fn done(&self, done: usize, solved: usize, total: usize);
}

/// Why a dataset could not be solved.
#[derive(Debug, thiserror::Error)]
pub enum SolveRunError {
    /// An instance cannot be posed as a problem.
    #[error("instance '{id}': {error}")]
    Problem {
        /// The instance.
        id: String,
        /// Why.
        error: ProblemError,
    },
    /// The journal is no journal of a solve.
    #[error("{}:1: not a journal of `pbebench solve`{}; {START_OVER}", path.display(), detail.as_ref().map_or(String::new(), |d| format!(" ({d})")))]
    NotAJournal {
        /// The journal.
        path: PathBuf,
        /// What the reader said of its first line.
        detail: Option<String>,
    },
    /// The journal holds results for another dataset (or does not say for which).
    #[error("{}: holds results for {}, not for this one (sha256 {}…); {START_OVER}", path.display(), stated.as_ref().map_or("a dataset it does not name (a journal of an older pbebench)".to_owned(), |s| format!("another dataset (sha256 {}…)", short(s))), short(wanted))]
    OtherDataset {
        /// The journal.
        path: PathBuf,
        /// The SHA-256 of the instances it holds results for, if it says.
        stated: Option<String>,
        /// The SHA-256 of the instances of this run.
        wanted: String,
    },
    /// The outputs are refused before any work (one is unwritable, or two are one file).
    #[error(transparent)]
    Files(#[from] pbebench_io::FilesError),
    /// The journal holds results of other parameters.
    #[error("{}: holds results of {stated}, not of {wanted}; rerun with those, or {START_OVER}", path.display())]
    OtherRun {
        /// The journal.
        path: PathBuf,
        /// Its parameters, as options.
        stated: String,
        /// The parameters of this run.
        wanted: String,
    },
    /// A line of the journal (not the last one, which a kill may cut) is damaged.
    #[error("{}:{line}: {error}; {START_OVER}", path.display())]
    BadLine {
        /// The journal.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What the reader said.
        error: String,
    },
    /// The journal names an instance the dataset lacks.
    #[error("{}:{line}: instance '{id}' is not in this dataset: the journal is another run's; {START_OVER}", path.display())]
    ForeignInstance {
        /// The journal.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The instance.
        id: String,
    },
    /// A file could not be read, written or removed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// `read`, `write` or `remove`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// Probing needs a hidden cascade the instance lacks.
    #[error("probe_budget: {0}")]
    Oracle(#[from] OracleError),
    /// The worker threads could not start.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
}

/// The first 12 hex digits of a SHA-256, as messages show it.
fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> SolveRunError + 'a {
    move |source| SolveRunError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Solves every instance of `instances` as `job` says, resuming from the journal of an
/// earlier run of the same job unless `job.fresh`; writes the responses (and statistics)
/// in dataset order, then removes the journal. A run that fails keeps its journal.
pub fn solve_dataset(
    instances: &[Instance],
    job: &SolveJob<'_>,
    progress: &dyn SolveProgress,
) -> Result<Solved, SolveRunError> {
    let problems = problems_of(instances)?;
    // The oracles of a probing run, built before any work: an instance without a gold
    // cascade fails the run now.
    let mut oracles = match job.probe_budget {
        Some(k) => Some(
            (instances.iter())
                .map(|inst| Oracle::with_probe_len(inst, k, job.probe_len).map(Some))
                .collect::<Result<Vec<Option<Oracle>>, _>>()?,
        ),
        None => None,
    };
    let header = JournalHeader::of(job, instances);
    let journal_path = pbebench_io::journal_path(job.out);
    // Every output is checked before the work: an unwritable path fails now, not after it.
    let mut files = pbebench_io::Files::new();
    files.output("out", job.out);
    if let Some(stats) = job.stats {
        files.output("stats", stats);
    }
    if let Some(path) = &journal_path {
        files.output("the journal of out", path);
    }
    files.check()?;
    let journal = open_journal(journal_path, &header, instances, job.fresh)?;
    let total = instances.len();
    let resumed = journal.done().len();
    let solved_before = journal.done().values().filter(|e| e.solved).count();
    if let Some(path) = journal.path().filter(|_| resumed > 0) {
        progress.resumed(resumed, solved_before, total, path);
    }
    // The instances still to solve (their positions in the dataset), and their problems.
    let (todo, problems): (Vec<usize>, Vec<Problem>) = problems
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !journal.done().contains_key(&instances[*k].id))
        .unzip();
    let done = AtomicUsize::new(resumed);
    let solved = AtomicUsize::new(solved_before);
    // Each new result, at its position in the dataset, as soon as it is known.
    let fresh: Mutex<Vec<Option<Entry>>> = Mutex::new(vec![None; total]);
    let finish = |k: usize, outcome: &SolveOutcome, probes: Option<&[Probe]>| {
        let entry = Entry::of(job.solver.name(), &instances[todo[k]], outcome, probes);
        journal.record(&entry);
        fresh.lock().unwrap_or_else(|e| e.into_inner())[todo[k]] = Some(entry);
        let s = solved.fetch_add(usize::from(outcome.is_solved()), Ordering::Relaxed)
            + usize::from(outcome.is_solved());
        progress.done(done.fetch_add(1, Ordering::Relaxed) + 1, s, total);
    };
    match oracles.as_mut() {
        None => {
            solve_all(job.solver, &problems, &job.budget, job.threads, |k, o| {
                finish(k, o, None)
            })?;
        }
        Some(oracles) => {
            let oracles: Vec<Mutex<Oracle>> = (todo.iter())
                .map(|&k| Mutex::new(oracles[k].take().expect("one oracle per instance")))
                .collect();
            crate::in_pool(job.threads, todo.len(), |k| {
                let mut oracle = oracles[k].lock().unwrap_or_else(|e| e.into_inner());
                let probed = solve_probing(
                    job.solver,
                    &mut oracle,
                    &job.budget,
                    &ActiveConfig::default(),
                );
                finish(k, &probed.outcome, Some(&probed.probes));
            })?;
        }
    }
    let journal_failure = journal.failure();

    // Every instance's entry, in dataset order: resumed ones from the journal.
    let fresh = fresh.into_inner().unwrap_or_else(|e| e.into_inner());
    let entries: Vec<&Entry> = instances
        .iter()
        .zip(&fresh)
        .map(|(inst, entry)| {
            entry
                .as_ref()
                .or_else(|| journal.done().get(&inst.id))
                .expect("every instance is solved or resumed")
        })
        .collect();
    // Written at the end (a failure keeps the journal, so nothing solved is lost).
    write_outputs(job, &entries)?;
    journal.remove();
    Ok(Solved {
        instances: total,
        solved: solved.load(Ordering::Relaxed),
        resumed,
        journal_failure,
    })
}

/// The responses of `entries` (and their statistics, if asked), in dataset order.
fn write_outputs(job: &SolveJob<'_>, entries: &[&Entry]) -> Result<(), SolveRunError> {
    write_output(job.out, |out| {
        entries.iter().try_for_each(|entry| {
            let line = ResponseLine {
                id: &entry.id,
                response: &entry.response,
            };
            line.write_to(&mut *out)
        })
    })?;
    if let Some(path) = job.stats {
        write_output(path, |out| {
            entries
                .iter()
                .try_for_each(|entry| writeln!(out, "{}", entry.stats))
        })?;
    }
    Ok(())
}

/// The problem of every instance, in order; the first refused fails the run.
fn problems_of(instances: &[Instance]) -> Result<Vec<Problem>, SolveRunError> {
    (instances.iter())
        .map(|inst| {
            Problem::from_instance(inst).map_err(|error| SolveRunError::Problem {
                id: inst.id.clone(),
                error,
            })
        })
        .collect()
}

/// Writes the output at `path` (`-`: standard output) with `write`, atomically.
fn write_output(
    path: &Path,
    write: impl FnOnce(&mut Output) -> io::Result<()>,
) -> Result<(), SolveRunError> {
    let mut out = Output::create(path).map_err(io_error("write", path))?;
    write(&mut out)
        .and_then(|()| out.commit())
        .map_err(io_error("write", path))
}

/// What the first line of a journal says: results are reused only by the same job on the
/// same instances.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct JournalHeader {
    journal: String,
    solver: String,
    time_limit: f64,
    /// The node budget, when there is one (absent from journals of `pbebench solve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_nodes: Option<u64>,
    /// The probe budget, when the run probes (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    probe_budget: Option<usize>,
    /// The probe length, when not the default (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    probe_len: Option<usize>,
    /// The SHA-256 of the instances solved ([`pbebench_io::dataset_fingerprint`]); absent from journals of
    /// older versions, which are refused (their dataset cannot be told).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dataset: Option<String>,
    /// [`crate::SOLVER_REVISION`] of the solver that wrote it; absent from journals of
    /// versions before revision 2, which are refused (their `beam` was another solver).
    #[serde(default)]
    revision: Option<u32>,
}

const JOURNAL_KIND: &str = "pbebench solve";

impl JournalHeader {
    fn of(job: &SolveJob<'_>, instances: &[Instance]) -> Self {
        JournalHeader {
            journal: JOURNAL_KIND.to_owned(),
            solver: job.solver.name().to_owned(),
            time_limit: job.budget.time_limit.as_secs_f64(),
            max_nodes: job.budget.max_nodes,
            probe_budget: job.probe_budget,
            // The default is written as no length, as before the option.
            probe_len: (job.probe_budget.map(|_| job.probe_len))
                .filter(|&n| n != pbebench::probe::DEFAULT_PROBE_LEN),
            dataset: Some(pbebench_io::dataset_fingerprint(instances)),
            revision: Some(crate::SOLVER_REVISION),
        }
    }

    /// The parameters, as the options that give them.
    fn describe(&self) -> String {
        let nodes = self
            .max_nodes
            .map_or(String::new(), |n| format!(" ({n} search nodes)"));
        let probes = self
            .probe_budget
            .map_or(String::new(), |k| format!(" --probe-budget {k}"));
        let probe_len = self
            .probe_len
            .map_or(String::new(), |n| format!(" --max-probe-len {n}"));
        let revision = match self.revision {
            Some(r) if r == crate::SOLVER_REVISION => String::new(),
            Some(r) => format!(" (solver revision {r})"),
            None => " (a solver revision before 2)".to_owned(),
        };
        format!(
            "--solver {} --time-limit {}{probes}{probe_len}{nodes}{revision}",
            self.solver, self.time_limit
        )
    }

    fn same_job(&self, other: &JournalHeader) -> bool {
        (
            &self.solver,
            self.time_limit,
            self.max_nodes,
            self.probe_budget,
            self.probe_len,
            self.revision,
        ) == (
            &other.solver,
            other.time_limit,
            other.max_nodes,
            other.probe_budget,
            other.probe_len,
            other.revision,
        )
    }
}

/// One instance's result, as a journal line and as the outputs need it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    id: String,
    response: String,
    solved: bool,
    /// Its statistics line, kept as it was written.
    stats: serde_json::Value,
}

impl Entry {
    fn of(solver: &str, inst: &Instance, outcome: &SolveOutcome, probes: Option<&[Probe]>) -> Self {
        Entry {
            id: inst.id.clone(),
            // Unsolved: the best partial cascade, else the empty one.
            response: render_answer(outcome.answer().unwrap_or(&Cascade::identity())),
            solved: outcome.is_solved(),
            stats: serde_json::to_value(InstanceStats::of(solver, inst, outcome, probes))
                .expect("statistics serialise"),
        }
    }
}

/// One line of the statistics file: what the solve of one instance spent and found. The
/// fields are in the order of their names, as the file has always had them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceStats {
    /// The answer's agreement with the gold on the inputs the gold changes, exact over
    /// the instance's input space (`pbebench::equiv::against_gold`); `None` without a
    /// gold, or when the comparison was undecided.
    #[serde(default)]
    pub behaviour: Option<f64>,
    /// Candidate rules scored against the examples.
    pub candidates_scored: u64,
    /// Edit_Sim of the answer on the examples ([`SolveOutcome::edit_sim`]: 1 when solved;
    /// for an unsolved instance, the partial answer's, or 0 for the empty one).
    pub edit_sim: f64,
    /// Rules of the cascade found (unsolved: none, even when a partial one is answered).
    pub found_len: Option<usize>,
    /// Rules of the gold cascade, when the instance has one.
    pub gold_len: Option<usize>,
    /// Whether the time or node budget stopped the search.
    pub hit_limit: bool,
    /// The instance.
    pub id: String,
    /// The instance's rule cap.
    pub max_rules: usize,
    /// Widest beam tried.
    pub max_width: usize,
    /// Search states expanded.
    pub nodes_expanded: u64,
    /// Every input probed and the hidden cascade's output, in order (`--probe-budget`
    /// runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<Vec<Probe>>,
    /// Probe inputs used (`--probe-budget` runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes_used: Option<usize>,
    /// The answer (the identity when none was found) is equivalent to the gold on the
    /// instance's input space; `None` without a gold, or when the comparison was
    /// undecided without a counterexample.
    #[serde(default)]
    pub recovered: Option<bool>,
    /// Search rounds run.
    pub rounds: u32,
    /// A verified cascade was found.
    pub solved: bool,
    /// The solver.
    pub solver: String,
    /// How the solve ended ([`crate::Status::as_str`]).
    pub status: String,
    /// Wall-clock seconds.
    pub time_s: f64,
}

impl InstanceStats {
    fn of(solver: &str, inst: &Instance, outcome: &SolveOutcome, probes: Option<&[Probe]>) -> Self {
        let s = &outcome.stats;
        // The answer as reported: unsolved, the best partial cascade, else the empty one.
        let answer = outcome.answer().cloned().unwrap_or_default();
        let (recovered, behaviour) = pbebench::equiv::recovered_and_behaviour(inst, &answer);
        InstanceStats {
            behaviour,
            probes: probes.map(<[Probe]>::to_vec),
            probes_used: probes.map(<[Probe]>::len),
            recovered,
            candidates_scored: s.candidates_scored,
            edit_sim: outcome.edit_sim(),
            found_len: outcome.found_len(),
            gold_len: inst.cascade.as_ref().map(Cascade::len),
            hit_limit: s.hit_limit,
            id: inst.id.clone(),
            max_rules: inst.max_rules,
            max_width: s.max_width,
            nodes_expanded: s.nodes_expanded,
            rounds: s.rounds,
            solved: outcome.is_solved(),
            solver: solver.to_owned(),
            status: outcome.status.as_str().to_owned(),
            time_s: s.elapsed.as_secs_f64(),
        }
    }
}

/// `OUT.partial`: the results of this job so far ([`pbebench_io::Journal`]), by instance
/// id.
type Journal = pbebench_io::Journal<HashMap<String, Entry>>;

/// The journal at `path` of the job whose first line is `header`, on `instances`.
fn open_journal(
    path: Option<PathBuf>,
    header: &JournalHeader,
    instances: &[Instance],
    fresh: bool,
) -> Result<Journal, SolveRunError> {
    let at = path.clone().unwrap_or_default();
    let line = serde_json::to_string(header).expect("headers serialise");
    Journal::open(path, fresh, &line, |text| {
        read_journal(&at, text, header, instances)
    })
    .map_err(|e| match e {
        JournalOpenError::Io { action, source } => io_error(action, &at)(source),
        JournalOpenError::Read(e) => e,
    })
}

/// The entries of a journal's `text`, checked against the run about to resume.
fn read_journal(
    path: &Path,
    text: &str,
    header: &JournalHeader,
    instances: &[Instance],
) -> Result<HashMap<String, Entry>, SolveRunError> {
    let (first, entries) = journal_entries::<Entry>(text);
    let not_a_journal = |detail| SolveRunError::NotAJournal {
        path: path.to_path_buf(),
        detail,
    };
    let stated: JournalHeader =
        serde_json::from_str(first).map_err(|e| not_a_journal(Some(e.to_string())))?;
    if stated.journal != JOURNAL_KIND {
        return Err(not_a_journal(None));
    }
    if stated.dataset != header.dataset {
        return Err(SolveRunError::OtherDataset {
            path: path.to_path_buf(),
            stated: stated.dataset,
            wanted: header.dataset.clone().unwrap_or_default(),
        });
    }
    if !stated.same_job(header) {
        return Err(SolveRunError::OtherRun {
            path: path.to_path_buf(),
            stated: stated.describe(),
            wanted: header.describe(),
        });
    }
    let ids: HashSet<&str> = instances.iter().map(|i| i.id.as_str()).collect();
    let mut done = HashMap::new();
    // (A last line cut short by a kill is left out: that instance is solved again.)
    for (line, entry) in entries {
        let entry = entry.map_err(|e| SolveRunError::BadLine {
            path: path.to_path_buf(),
            line,
            error: e.to_string(),
        })?;
        if !ids.contains(entry.id.as_str()) {
            return Err(SolveRunError::ForeignInstance {
                path: path.to_path_buf(),
                line,
                id: entry.id,
            });
        }
        done.insert(entry.id.clone(), entry);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver_by_name;
    use std::time::Duration;

    const TWO: &str = concat!(
        r#"{"inputs": ["xbu", "uxwkkg", "kib", "fjze", "cv"], "outputs": ["xhu", "uxwkkvzw", "kih", "fjxwye", "cv"], "programs": ["replace(\"z\", \"xwy\")", "replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 3}"#,
        "\n",
        r#"{"inputs": ["ab", "b"], "outputs": ["ab", "b"], "programs": ["replace(\"c\", \"d\")"], "cascade_length": 1}"#,
        "\n"
    );

    struct Quiet;

    impl SolveProgress for Quiet {
        fn done(&self, _: usize, _: usize, _: usize) {}
    }

    fn instances(text: &str) -> Vec<Instance> {
        text.lines()
            .enumerate()
            .map(|(k, l)| pbebench::dataset::parse_instance(l, k).unwrap())
            .collect()
    }

    fn solve(dir: &Path, text: &str, time_limit: f64) -> Result<Solved, SolveRunError> {
        let solver = solver_by_name("beam").unwrap();
        let job = SolveJob {
            solver: solver.as_ref(),
            budget: Budget::time(Duration::from_secs_f64(time_limit)),
            threads: 2,
            out: &dir.join("responses.jsonl"),
            stats: Some(&dir.join("stats.jsonl")),
            fresh: false,
            probe_budget: None,
            probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
        };
        solve_dataset(&instances(text), &job, &Quiet)
    }

    fn lines(path: &Path) -> Vec<serde_json::Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn writes_responses_in_the_released_format_and_stats() {
        let dir = tempfile::tempdir().unwrap();
        let solved = solve(dir.path(), TWO, 5.0).unwrap();
        assert_eq!((solved.instances, solved.resumed), (2, 0));
        let lines_out = lines(&dir.path().join("responses.jsonl"));
        assert_eq!(lines_out.len(), 2);
        assert_eq!(lines_out[0]["id"], "0");
        let response = lines_out[0]["response"].as_str().unwrap();
        assert!(
            response.starts_with("```python\n[\"replace('"),
            "{response}"
        );
        assert!(response.ends_with("]\n```"));
        let parsed = pbebench::parse_response(
            response,
            &pbebench::RuleLimits::unlimited(),
            pbebench::BlockChoice::Last,
        );
        assert_eq!(parsed.cascade().apply("uxwkkg"), "uxwkkvzw");
        assert_eq!(lines_out[1]["response"], "```python\n[]\n```");
        let stats = lines(&dir.path().join("stats.jsonl"));
        assert_eq!(stats[0]["solved"], true);
        assert_eq!(stats[0]["gold_len"], 3);
        assert!(stats[0]["recovered"].is_boolean());
        // The second instance's gold (c -> d) changes inputs with a c; the empty answer
        // does not behave like it.
        assert_eq!(stats[1]["recovered"], false);
        assert!(stats[0]["found_len"].as_u64().unwrap() <= 5);
        assert_eq!(stats[1]["found_len"], 0);
        assert!(!dir.path().join("responses.jsonl.partial").exists());
    }

    #[test]
    fn an_unsolved_instance_is_answered_with_its_best_partial_cascade() {
        // Three independent one-letter changes and a cap of two rules: no cascade fits,
        // the best ones fix two of the three examples (Edit_Sim 2/3).
        let dir = tempfile::tempdir().unwrap();
        let three = r#"{"id":"p","inputs":["a","c","e","x"],"outputs":["b","d","f","x"],"max_rules":2,"max_rule_len":3,"alphabet":"abcdefx"}"#;
        let solved = solve(dir.path(), three, 2.0).unwrap();
        assert_eq!(solved.solved, 0);
        let line = &lines(&dir.path().join("responses.jsonl"))[0];
        let parsed = pbebench::parse_response(
            line["response"].as_str().unwrap(),
            &pbebench::RuleLimits::unlimited(),
            pbebench::BlockChoice::Last,
        );
        let cascade = parsed.cascade();
        assert_eq!(cascade.len(), 2, "{}", line["response"]);
        let got = cascade.apply_all(&["a", "c", "e", "x"]);
        let right = got
            .iter()
            .zip(["b", "d", "f", "x"])
            .filter(|(g, o)| *g == o)
            .count();
        assert_eq!(right, 3, "{got:?}");
        let stats = &lines(&dir.path().join("stats.jsonl"))[0];
        assert_eq!(stats["solved"], false);
        assert!((stats["edit_sim"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn bad_instances_are_errors_not_panics() {
        // Every reader refuses these lines (`Instance::problems`); a library caller can still
        // build such instances in code, and the solver refuses them itself.
        let dir = tempfile::tempdir().unwrap();
        let unchecked = |text: &str| -> Result<Solved, SolveRunError> {
            let instance: Instance = serde_json::from_str(text).unwrap();
            let solver = solver_by_name("beam").unwrap();
            let job = SolveJob {
                solver: solver.as_ref(),
                budget: Budget::time(Duration::from_secs(5)),
                threads: 2,
                out: &dir.path().join("responses.jsonl"),
                stats: None,
                fresh: false,
                probe_budget: None,
                probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
            };
            solve_dataset(&[instance], &job, &Quiet)
        };
        let zero_rules = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":0,"max_rule_len":3,"alphabet":"ab"}"#;
        let err = unchecked(zero_rules).unwrap_err();
        assert!(
            err.to_string().contains("max_rules must be positive"),
            "{err}"
        );
        let zero_len = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":2,"max_rule_len":0,"alphabet":"ab"}"#;
        let err = unchecked(zero_len).unwrap_err();
        assert!(
            err.to_string().contains("max_rule_len must be positive"),
            "{err}"
        );
        let empty_outputs = r#"{"id":"a","inputs":["ab"],"outputs":[],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        let err = unchecked(empty_outputs).unwrap_err();
        assert!(err.to_string().contains("1 inputs but 0 outputs"), "{err}");
        assert!(!dir.path().join("responses.jsonl").exists());
    }

    #[test]
    fn contradictory_instance_gets_an_empty_answer_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let bad = r#"{"id":"c","inputs":["ab","ab"],"outputs":["b","a"],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        // Found unsolvable before any search: the status says so (no timed assertion).
        solve(dir.path(), bad, 60.0).unwrap();
        let line = std::fs::read_to_string(dir.path().join("stats.jsonl")).unwrap();
        assert!(line.contains(r#""status":"unsolvable""#), "{line}");
    }

    #[test]
    fn recovered_is_exact_equivalence_with_the_gold() {
        let inst = &instances(TWO)[0];
        let recovered = |c: Option<&Cascade>| {
            pbebench::equiv::recovered_and_behaviour(inst, c.unwrap_or(&Cascade::identity())).0
        };
        let gold = inst.cascade.clone().unwrap();
        assert_eq!(recovered(Some(&gold)), Some(true));
        // b -> h and g -> vzw do not interact: swapped, they behave the same; z -> xwy
        // moved last reads the z that g -> vzw writes, and does not.
        let r = gold.rules();
        let swapped = Cascade::new(vec![r[0].clone(), r[2].clone(), r[1].clone()]);
        assert_eq!(recovered(Some(&swapped)), Some(true));
        let z_last = Cascade::new(vec![r[1].clone(), r[2].clone(), r[0].clone()]);
        assert_eq!(recovered(Some(&z_last)), Some(false));
        // A cascade that fits the examples but adds `a -> k` on inputs the examples lack.
        let mut more = gold.rules().to_vec();
        more.push(pbebench::Rule::new("a", "k").unwrap());
        assert_eq!(recovered(Some(&Cascade::new(more))), Some(false));
        assert_eq!(recovered(None), Some(false));
        let space = pbebench::equiv::InputSpace::of(inst).unwrap();
        assert_eq!(space.alphabet().len(), 17);
    }

    /// A journal written by an older pbebench (`testdata/journals`, before the journal
    /// moved to `pbebench-io`) resumes: every instance is taken from it, none solved again,
    /// and the outputs are its lines.
    #[test]
    fn a_journal_of_an_older_version_resumes() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/journals/");
        let text = std::fs::read_to_string(format!("{data}solve.jsonl")).unwrap();
        let journal = std::fs::read_to_string(format!("{data}solve.jsonl.partial")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl");
        std::fs::write(dir.path().join("r.jsonl.partial"), &journal).unwrap();
        let solver = solver_by_name("beam").unwrap();
        let stats = dir.path().join("stats.jsonl");
        let job = SolveJob {
            solver: solver.as_ref(),
            budget: Budget::time(Duration::from_secs(5)),
            threads: 1,
            out: &out,
            stats: Some(&stats),
            fresh: false,
            probe_budget: None,
            probe_len: pbebench::probe::DEFAULT_PROBE_LEN,
        };
        let solved = solve_dataset(&instances(&text), &job, &Quiet).unwrap();
        assert_eq!((solved.instances, solved.resumed, solved.solved), (2, 2, 1));
        let entries: Vec<serde_json::Value> = journal
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let responses: Vec<String> = (entries.iter())
            .map(|e| {
                serde_json::json!({"id": e["id"], "response": e["response"]}).to_string() + "\n"
            })
            .collect();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), responses.concat());
        let kept: Vec<String> = (entries.iter())
            .map(|e| e["stats"].to_string() + "\n")
            .collect();
        assert_eq!(std::fs::read_to_string(&stats).unwrap(), kept.concat());
        assert!(!dir.path().join("r.jsonl.partial").exists());
    }

    /// A journal of a job with a node budget is refused by one without, naming both.
    #[test]
    fn journals_are_kept_per_job() {
        let header = |max_nodes| JournalHeader {
            journal: JOURNAL_KIND.to_owned(),
            solver: "beam".into(),
            time_limit: 2.0,
            max_nodes,
            probe_budget: None,
            probe_len: None,
            dataset: Some("ab".into()),
            revision: Some(crate::SOLVER_REVISION),
        };
        let text = serde_json::to_string(&header(Some(5))).unwrap() + "\n";
        let err = read_journal(Path::new("j"), &text, &header(None), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "j: holds results of --solver beam --time-limit 2 (5 search nodes), not of \
             --solver beam --time-limit 2; rerun with those, or delete it, or pass --fresh, \
             to start over"
        );
        let plain = serde_json::to_string(&header(None)).unwrap();
        let expected = format!(
            r#"{{"journal":"pbebench solve","solver":"beam","time_limit":2.0,"dataset":"ab","revision":{}}}"#,
            crate::SOLVER_REVISION
        );
        assert_eq!(plain, expected);
        // The probe length is part of a probing job; absent, it is the default.
        let probing = |probe_len| JournalHeader {
            probe_budget: Some(50),
            probe_len,
            ..header(None)
        };
        let text = serde_json::to_string(&probing(Some(256))).unwrap() + "\n";
        let err = read_journal(Path::new("j"), &text, &probing(None), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "j: holds results of --solver beam --time-limit 2 --probe-budget 50 \
             --max-probe-len 256, not of --solver beam --time-limit 2 --probe-budget 50; \
             rerun with those, or delete it, or pass --fresh, to start over"
        );
        let text = serde_json::to_string(&probing(None)).unwrap() + "\n";
        assert!(read_journal(Path::new("j"), &text, &probing(None), &[]).is_ok());
        // A job at the default length writes no length, as journals made before the
        // option did; a job that does not probe writes no length.
        let solver = solver_by_name("beam").unwrap();
        let of = |probe_budget, probe_len| {
            let job = SolveJob {
                solver: solver.as_ref(),
                budget: Budget::time(Duration::from_secs(2)),
                threads: 1,
                out: Path::new("out.jsonl"),
                stats: None,
                fresh: false,
                probe_budget,
                probe_len,
            };
            JournalHeader::of(&job, &[]).probe_len
        };
        assert_eq!(of(Some(50), 32), None);
        assert_eq!(of(Some(50), 256), Some(256));
        assert_eq!(of(None, 256), None);
    }
}
