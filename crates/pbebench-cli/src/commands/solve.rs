//! `pbebench solve`: run a built-in symbolic solver on every instance of a dataset and
//! write responses in the released answer format (so `pbebench score` reads them) plus
//! per-instance statistics.
//!
//! A long run is resumable: each instance's result is appended to `OUT.partial` as soon as
//! it is known, and a later run of the same command (same solver and time limit) solves
//! only the instances not in it. The outputs are written, and the journal removed, at the
//! end.

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use pbebench::dataset::read_dataset;
use pbebench::render_answer;
use pbebench::{Cascade, Instance};
use pbebench_io::AtomicFile;
use pbebench_solve::{
    solve_all, solver_by_name, Budget, Problem, SolveOutcome, DEFAULT_SOLVER, SOLVER_NAMES,
};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Arguments of `pbebench solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Dataset to solve (pbebench JSONL or the authors' published format).
    #[arg(long)]
    dataset: PathBuf,
    /// Solver to use.
    #[arg(long, default_value = DEFAULT_SOLVER)]
    solver: String,
    /// Wall-clock limit per instance, in seconds.
    #[arg(long, default_value_t = 10.0)]
    time_limit: f64,
    /// Instances solved in parallel (one core each); default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Where to write the responses JSONL (`{"id", "response"}` per instance).
    #[arg(long)]
    out: PathBuf,
    /// Where to write per-instance statistics JSONL (time, effort, length found, limit hit).
    #[arg(long)]
    stats: Option<PathBuf>,
    /// Solve every instance again, discarding the results an interrupted run of this
    /// command kept in OUT.partial (by default they are reused).
    #[arg(long)]
    fresh: bool,
}

/// Runs `pbebench solve`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Some(solver) = solver_by_name(&args.solver) else {
        bail!(
            "unknown solver '{}' (--solver); available: {}",
            args.solver,
            SOLVER_NAMES.join(", ")
        );
    };
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        bail!(
            "--time-limit must be a positive number of seconds, not {}",
            args.time_limit
        );
    }
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let instances = read_dataset(&args.dataset)?;
    if instances.is_empty() {
        bail!("{}: the dataset holds no instances", args.dataset.display());
    }
    let problems = instances
        .iter()
        .map(|inst| {
            Problem::from_instance(inst)
                .with_context(|| format!("{}: instance '{}'", args.dataset.display(), inst.id))
        })
        .collect::<anyhow::Result<Vec<Problem>>>()?;
    let budget = Budget::time(Duration::from_secs_f64(args.time_limit));
    let header = JournalHeader {
        journal: JOURNAL_KIND.to_owned(),
        solver: solver.name().to_owned(),
        time_limit: args.time_limit,
    };
    let journal = Journal::open(&args.out, &header, &instances, args.fresh)?;
    let resumed = journal.done.len();
    // The instances still to solve (their positions in the dataset), and their problems.
    let (todo, problems): (Vec<usize>, Vec<Problem>) = problems
        .into_iter()
        .enumerate()
        .filter(|(k, _)| !journal.done.contains_key(&instances[*k].id))
        .unzip();
    if resumed > 0 {
        eprintln!(
            "resuming: {resumed} of {} instances already done in {} (--fresh to start over)",
            instances.len(),
            journal.display()
        );
    }

    let bar = ProgressBar::new(instances.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} solved {msg} [{elapsed_precise} < {eta}]",
        )
        .expect("the template is valid"),
    );
    bar.set_position(resumed as u64);
    let solved = AtomicUsize::new(journal.done.values().filter(|e| e.solved).count());
    bar.set_message(solved.load(Ordering::Relaxed).to_string());
    // Each new result, at its position in the dataset, as soon as it is known.
    let fresh: Mutex<Vec<Option<Entry>>> = Mutex::new(vec![None; instances.len()]);
    solve_all(
        solver.as_ref(),
        &problems,
        &budget,
        threads,
        |k, outcome| {
            let entry = Entry::of(solver.name(), &instances[todo[k]], outcome);
            journal.record(&entry);
            fresh.lock().unwrap_or_else(|e| e.into_inner())[todo[k]] = Some(entry);
            if outcome.is_solved() {
                solved.fetch_add(1, Ordering::Relaxed);
            }
            bar.set_message(solved.load(Ordering::Relaxed).to_string());
            bar.inc(1);
        },
    )
    .context("cannot start the worker threads")?;
    bar.finish_and_clear();
    if let Some(e) = journal.failure() {
        eprintln!("warning: {e}: this run cannot be resumed if interrupted");
    }

    // Every instance's entry, in dataset order: resumed ones from the journal.
    let fresh = fresh.into_inner().unwrap_or_else(|e| e.into_inner());
    let entries: Vec<&Entry> = instances
        .iter()
        .zip(&fresh)
        .map(|(inst, entry)| {
            entry
                .as_ref()
                .or_else(|| journal.done.get(&inst.id))
                .expect("every instance is solved or resumed")
        })
        .collect();
    let mut out = AtomicFile::create(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    for entry in &entries {
        let line = serde_json::json!({ "id": entry.id, "response": entry.response });
        writeln!(out, "{line}")?;
    }
    out.commit()
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if let Some(path) = &args.stats {
        let mut file =
            AtomicFile::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        for entry in &entries {
            writeln!(file, "{}", entry.stats)?;
        }
        file.commit()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    journal.remove();
    let n = instances.len();
    let ok = solved.load(Ordering::Relaxed);
    eprintln!(
        "{}: solved {ok}/{n} ({:.1}%) with '{}', {threads} thread(s), {} s limit{}",
        args.dataset.display(),
        100.0 * ok as f64 / n as f64,
        solver.name(),
        args.time_limit,
        if resumed > 0 {
            format!(" ({resumed} resumed)")
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// What the first line of a journal says: results are reused only by the same command.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct JournalHeader {
    journal: String,
    solver: String,
    time_limit: f64,
}

const JOURNAL_KIND: &str = "pbebench solve";

/// One instance's result, as a journal line and as the outputs need it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    id: String,
    response: String,
    solved: bool,
    stats: serde_json::Value,
}

impl Entry {
    fn of(solver: &str, inst: &Instance, outcome: &SolveOutcome) -> Self {
        Entry {
            id: inst.id.clone(),
            response: render_answer(outcome.cascade.as_ref().unwrap_or(&Cascade::identity())),
            solved: outcome.is_solved(),
            stats: stats_line(solver, inst, outcome),
        }
    }
}

/// `OUT.partial`: the results of this command so far, one JSON line each after a header,
/// appended (and flushed) as they come, so that an interrupted run loses none of them.
/// No journal is kept for an output that is no regular file (`/dev/stdout`).
struct Journal {
    path: Option<PathBuf>,
    /// The results of an earlier run of the same command, by instance id.
    done: HashMap<String, Entry>,
    file: Mutex<Option<File>>,
    /// The first error writing the journal (the run goes on without it).
    failed: Mutex<Option<String>>,
}

impl Journal {
    fn open(
        out: &Path,
        header: &JournalHeader,
        instances: &[Instance],
        fresh: bool,
    ) -> anyhow::Result<Self> {
        let mut journal = Journal {
            path: None,
            done: HashMap::new(),
            file: Mutex::new(None),
            failed: Mutex::new(None),
        };
        if std::fs::metadata(out).is_ok_and(|m| !m.is_file()) {
            return Ok(journal);
        }
        let mut name = out.as_os_str().to_owned();
        name.push(".partial");
        let path = PathBuf::from(name);
        if fresh {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("cannot remove {}", path.display()))
                }
                _ => {}
            }
        }
        let existing = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        match existing.filter(|text| !text.trim().is_empty()) {
            Some(text) => {
                journal.done = read_journal(&path, &text, header, instances)?;
                // A last line cut short by a kill is dropped from the file too.
                if !text.ends_with('\n') {
                    let kept = text.rfind('\n').map_or(0, |at| at + 1);
                    file.set_len(kept as u64)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                }
            }
            None => {
                writeln!(file, "{}", serde_json::to_string(header)?)?;
            }
        }
        journal.path = Some(path);
        *journal.file.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(file);
        Ok(journal)
    }

    fn display(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(String::new, |p| p.display().to_string())
    }

    /// Appends `entry`; the first failure is kept for [`Journal::failure`].
    fn record(&self, entry: &Entry) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let Some(f) = file.as_mut() else {
            return;
        };
        let line = serde_json::to_string(entry).expect("entries serialise");
        if let Err(e) = writeln!(f, "{line}").and_then(|()| f.flush()) {
            *file = None;
            *self.failed.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(format!("cannot write {}: {e}", self.display()));
        }
    }

    fn failure(&self) -> Option<String> {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Removes the journal once the outputs are written.
    fn remove(self) {
        drop(self.file);
        if let Some(path) = self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The entries of a journal's `text`, checked against the run about to resume.
fn read_journal(
    path: &Path,
    text: &str,
    header: &JournalHeader,
    instances: &[Instance],
) -> anyhow::Result<HashMap<String, Entry>> {
    let start_over = "delete it, or pass --fresh, to start over";
    let mut lines = text.lines().enumerate();
    let first = lines.next().map_or("", |(_, l)| l);
    let stated: JournalHeader = serde_json::from_str(first).map_err(|e| {
        anyhow::anyhow!(
            "{}:1: not a journal of `pbebench solve` ({e}); {start_over}",
            path.display()
        )
    })?;
    if stated.journal != JOURNAL_KIND {
        bail!(
            "{}:1: not a journal of `pbebench solve`; {start_over}",
            path.display()
        );
    }
    if stated.solver != header.solver || stated.time_limit != header.time_limit {
        bail!(
            "{}: holds results of --solver {} --time-limit {}, not of --solver {} --time-limit {}; \
             rerun with those, or {start_over}",
            path.display(),
            stated.solver,
            stated.time_limit,
            header.solver,
            header.time_limit
        );
    }
    let ids: HashSet<&str> = instances.iter().map(|i| i.id.as_str()).collect();
    let last = text.lines().count();
    let mut done = HashMap::new();
    for (k, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let entry: Entry = match serde_json::from_str(line) {
            Ok(entry) => entry,
            // The last line may have been cut short by a kill: that instance is solved again.
            Err(_) if k + 1 == last && !text.ends_with('\n') => continue,
            Err(e) => bail!("{}:{}: {e}; {start_over}", path.display(), k + 1),
        };
        if !ids.contains(entry.id.as_str()) {
            bail!(
                "{}:{}: instance '{}' is not in this dataset: the journal is another run's; \
                 {start_over}",
                path.display(),
                k + 1,
                entry.id
            );
        }
        done.insert(entry.id.clone(), entry);
    }
    Ok(done)
}

fn stats_line(solver: &str, inst: &Instance, outcome: &SolveOutcome) -> serde_json::Value {
    let s = &outcome.stats;
    serde_json::json!({
        "id": inst.id,
        "solver": solver,
        "status": outcome.status.as_str(),
        "solved": outcome.is_solved(),
        "time_s": s.elapsed.as_secs_f64(),
        "nodes_expanded": s.nodes_expanded,
        "candidates_scored": s.candidates_scored,
        "rounds": s.rounds,
        "max_width": s.max_width,
        "hit_limit": s.hit_limit,
        "found_len": outcome.found_len(),
        "gold_len": inst.cascade.as_ref().map(Cascade::len),
        "max_rules": inst.max_rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(dir: &std::path::Path, dataset: &str) -> Args {
        let path = dir.join("data.jsonl");
        std::fs::write(&path, dataset).unwrap();
        Args {
            dataset: path,
            solver: DEFAULT_SOLVER.to_owned(),
            time_limit: 5.0,
            threads: Some(2),
            out: dir.join("responses.jsonl"),
            stats: Some(dir.join("stats.jsonl")),
            fresh: false,
        }
    }

    const TWO: &str = concat!(
        r#"{"inputs": ["xbu", "uxwkkg", "kib", "fjze", "cv"], "outputs": ["xhu", "uxwkkvzw", "kih", "fjxwye", "cv"], "programs": ["replace(\"z\", \"xwy\")", "replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 3}"#,
        "\n",
        r#"{"inputs": ["ab", "b"], "outputs": ["ab", "b"], "programs": ["replace(\"c\", \"d\")"], "cascade_length": 1}"#,
        "\n"
    );

    #[test]
    fn writes_responses_in_the_released_format_and_stats() {
        let dir = tempfile::tempdir().unwrap();
        let a = args(dir.path(), TWO);
        let (out, stats) = (a.out.clone(), a.stats.clone().unwrap());
        assert_eq!(run(a).unwrap(), ExitCode::SUCCESS);
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["id"], "0");
        let response = lines[0]["response"].as_str().unwrap();
        assert!(
            response.starts_with("```python\n[\"replace('"),
            "{response}"
        );
        assert!(response.ends_with("]\n```"));
        let body = &response["```python\n".len()..response.len() - "\n```".len()];
        let rules: Vec<pbebench::Rule> = pbebench::pylit::parse_str_list(body)
            .unwrap()
            .iter()
            .map(|r| pbebench::dataset::parse_replace_call(r).unwrap())
            .collect();
        let cascade = Cascade::new(rules);
        assert_eq!(cascade.apply("uxwkkg"), "uxwkkvzw");
        assert_eq!(lines[1]["response"], "```python\n[]\n```");
        let stats: Vec<serde_json::Value> = std::fs::read_to_string(stats)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(stats[0]["solved"], true);
        assert_eq!(stats[0]["gold_len"], 3);
        assert!(stats[0]["found_len"].as_u64().unwrap() <= 5);
        assert_eq!(stats[1]["found_len"], 0);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let zero_rules = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":0,"max_rule_len":3,"alphabet":"ab"}"#;
        let err = run(args(dir.path(), zero_rules)).unwrap_err();
        assert!(
            format!("{err:#}").contains("max_rules must be positive"),
            "{err:#}"
        );
        let zero_len = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"max_rules":2,"max_rule_len":0,"alphabet":"ab"}"#;
        assert!(run(args(dir.path(), zero_len)).is_err());
        let no_outputs =
            r#"{"id":"a","inputs":["ab"],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        let err = run(args(dir.path(), no_outputs)).unwrap_err();
        assert!(format!("{err:#}").contains("data.jsonl:1"), "{err:#}");
        let empty_outputs = r#"{"id":"a","inputs":["ab"],"outputs":[],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        assert!(run(args(dir.path(), empty_outputs)).is_err());
        assert!(run(args(dir.path(), "{not json\n")).is_err());
        assert!(run(args(dir.path(), "")).is_err());
        let mut a = args(dir.path(), TWO);
        a.time_limit = 0.0;
        assert!(run(a).is_err());
        let mut a = args(dir.path(), TWO);
        a.solver = "nope".into();
        assert!(format!("{:#}", run(a).unwrap_err()).contains("available: beam"));
        let mut a = args(dir.path(), TWO);
        a.dataset = dir.path().join("missing.jsonl");
        assert!(run(a).is_err());
        assert!(!dir.path().join("responses.jsonl").exists());
    }

    #[test]
    fn contradictory_instance_gets_an_empty_answer_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let bad = r#"{"id":"c","inputs":["ab","ab"],"outputs":["b","a"],"max_rules":2,"max_rule_len":3,"alphabet":"ab"}"#;
        let mut a = args(dir.path(), bad);
        a.time_limit = 60.0;
        let stats = a.stats.clone().unwrap();
        let start = std::time::Instant::now();
        run(a).unwrap();
        assert!(start.elapsed() < Duration::from_secs(5));
        let line = std::fs::read_to_string(stats).unwrap();
        assert!(line.contains(r#""status":"unsolvable""#), "{line}");
    }
}
