//! `pbebench solve`: run a built-in symbolic solver on every instance of a dataset and
//! write responses in the released answer format (so `pbebench score` reads them) plus
//! per-instance statistics.

use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use pbebench::dataset::{read_dataset, AtomicFile};
use pbebench::response::render_answer;
use pbebench::{Cascade, Instance};
use pbebench_solve::{
    solve_all, solver_by_name, Budget, Problem, SolveOutcome, DEFAULT_SOLVER, SOLVER_NAMES,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
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

    let bar = ProgressBar::new(instances.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} solved {msg} [{elapsed_precise} < {eta}]",
        )
        .expect("the template is valid"),
    );
    let solved = AtomicUsize::new(0);
    let outcomes = solve_all(solver.as_ref(), &problems, &budget, threads, |outcome| {
        if outcome.is_solved() {
            solved.fetch_add(1, Ordering::Relaxed);
        }
        bar.set_message(solved.load(Ordering::Relaxed).to_string());
        bar.inc(1);
    })
    .context("cannot start the worker threads")?;
    bar.finish_and_clear();

    let mut out = AtomicFile::create(&args.out)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    for (inst, outcome) in instances.iter().zip(&outcomes) {
        let response = render_answer(outcome.cascade.as_ref().unwrap_or(&Cascade::identity()));
        let line = serde_json::json!({ "id": inst.id, "response": response });
        writeln!(out, "{line}")?;
    }
    out.commit()
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    if let Some(path) = &args.stats {
        let mut file =
            AtomicFile::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        for (inst, outcome) in instances.iter().zip(&outcomes) {
            writeln!(file, "{}", stats_line(solver.name(), inst, outcome))?;
        }
        file.commit()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let n = instances.len();
    let ok = solved.load(Ordering::Relaxed);
    eprintln!(
        "{}: solved {ok}/{n} ({:.1}%) with '{}', {threads} thread(s), {} s limit",
        args.dataset.display(),
        100.0 * ok as f64 / n as f64,
        solver.name(),
        args.time_limit
    );
    Ok(ExitCode::SUCCESS)
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
