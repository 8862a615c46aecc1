//! `pbebench compare`, and the readers of results files of format 1 (checked in under
//! `testdata/results-format-1`, written by pbebench before `format_version`): `compare`,
//! `report` and `eval --rescore` still take them.

use crate::common::*;
use crate::pbebench_snapshot;
use std::path::{Path, PathBuf};

fn old(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/results-format-1")
        .join(name)
}

/// Paired differences of two format-1 results, with the per-instance lines of both.
#[test]
fn compare_format_1_results_paired() {
    let dir = old("");
    let o = pbebench_snapshot!(
        "compare_format_1",
        &dir,
        &[
            "compare",
            "a=a-results.json,a-per-instance.jsonl",
            "b=b-results.json,b-per-instance.jsonl",
        ]
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let json = pbebench_in(
        &[
            "compare",
            "a-per-instance.jsonl",
            "b-per-instance.jsonl",
            "--format",
            "json",
        ],
        &dir,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(v["paired"], true);
    assert_eq!(v["figures"][0]["figure"], "pass_at_1");
    assert_eq!(v["figures"][0]["difference"]["method"], "paired");
}

/// Summaries of format 1 alone: the differences, without intervals (none was kept).
#[test]
fn compare_format_1_summaries_without_intervals() {
    let o = pbebench_in(&["compare", "a-results.json", "b-results.json"], &old(""));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("no per-instance lines for a-results and b-results"),
        "{out}"
    );
    assert!(out.contains("no interval"), "{out}");
}

#[test]
fn compare_refuses_another_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(old("a-per-instance.jsonl")).unwrap();
    let part: String = text.lines().take(10).map(|l| format!("{l}\n")).collect();
    let part = write(dir.path(), "part.jsonl", &part);
    let o = pbebench(&["compare", &s(&old("a-per-instance.jsonl")), &s(&part)]);
    assert_fatal(&o, "are not on the same dataset (16 instances against 10");
}

/// `report` reads format-1 files, and its leaderboard carries intervals where the
/// per-instance lines give them.
#[test]
fn report_reads_format_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let o = pbebench(&[
        "report",
        "--results",
        &format!(
            "a={},{}",
            s(&old("a-results.json")),
            s(&old("a-per-instance.jsonl"))
        ),
        "--results",
        &format!("b={}", s(&old("b-results.json"))),
        "--out",
        &s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let board = std::fs::read_to_string(out.join("leaderboard.md")).unwrap();
    assert!(board.contains('['), "{board}");
}

/// `eval --rescore` recomputes a run made before format 2 from its store, and writes
/// format 2.
#[test]
fn rescore_a_format_1_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    for f in ["results.json", "run.sqlite"] {
        std::fs::copy(old("run").join(f), run.join(f)).unwrap();
    }
    let o = pbebench(&[
        "eval",
        "--run",
        &s(&run),
        "--rescore",
        "--dataset",
        &s(&old("data.jsonl")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    assert_eq!(v["format_version"], 2);
    assert!(v["summary"]["overall"]["best_of_k"].is_number());
}

/// Two `eval` runs compare paired by instance: each run directory holds the per-instance
/// lines beside its results.json.
#[test]
fn two_eval_runs_compare_paired() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = pbebench_in(
        &[
            "generate", "--size", "16", "--seed", "5", "--out", "d.jsonl",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Run a answers every instance with its gold cascade, run b only the first half.
    let text = std::fs::read_to_string(d.join("d.jsonl")).unwrap();
    let table = |answered: usize| {
        let mut answers = serde_json::Map::new();
        for (k, line) in text.lines().enumerate() {
            let inst: serde_json::Value = serde_json::from_str(line).unwrap();
            let gold = pbebench::Cascade::from_json(&inst["cascade"].to_string()).unwrap();
            let answer = if k < answered {
                pbebench::render_answer(&gold)
            } else {
                "I cannot tell.".to_owned()
            };
            answers.insert(inst["id"].as_str().unwrap().to_owned(), answer.into());
        }
        serde_json::Value::Object(answers).to_string()
    };
    write(d, "a.json", &table(16));
    write(d, "b.json", &table(8));
    write(
        d,
        "solver.py",
        "import json, sys\nprint(json.load(open(sys.argv[1]))[json.load(sys.stdin)[\"id\"]])\n",
    );
    for run in ["a", "b"] {
        let cmd = format!("python3 solver.py {run}.json");
        let args = [
            "eval",
            "--dataset",
            "d.jsonl",
            "--solver-cmd",
            &cmd,
            "--run",
            run,
            "--no-progress",
        ];
        let o = pbebench_in(&args, d);
        assert!(o.status.success(), "{}", stderr(&o));
        let lines = std::fs::read_to_string(d.join(run).join("per-instance.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 16, "{run}");
    }
    let o = pbebench_in(&["compare", "a", "b", "--format", "json"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["paired"], true, "{v}");
    let pass = &v["figures"][0];
    assert_eq!(pass["figure"], "pass_at_1");
    assert_eq!(pass["difference"]["method"], "paired");
    assert_eq!(pass["difference"]["mean"], -0.5);
    // A rescore rewrites both files.
    std::fs::remove_file(d.join("a").join("per-instance.jsonl")).unwrap();
    let o = pbebench_in(&["eval", "--rescore", "--run", "a"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(d.join("a").join("per-instance.jsonl").is_file());
}
