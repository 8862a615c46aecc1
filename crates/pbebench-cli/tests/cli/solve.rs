//! `pbebench solve` on real files: its journal makes an interrupted run resumable.

use crate::common::*;
use std::path::{Path, PathBuf};

/// A 16-instance Lite set in `dir`.
fn dataset(dir: &Path) -> PathBuf {
    let data = dir.join("lite.jsonl");
    let o = pbebench(&[
        "generate",
        "--size",
        "16",
        "--seed",
        "4",
        "--out",
        &s(&data),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    data
}

fn solve(data: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (data, out) = (s(data), s(out));
    let mut args = vec!["solve", "--dataset", &data, "--out", &out];
    if !extra.contains(&"--time-limit") {
        args.extend(["--time-limit", "2"]);
    }
    args.extend_from_slice(extra);
    pbebench(&args)
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ids(data: &Path) -> Vec<String> {
    lines(data)
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect()
}

/// What a journal names its dataset by.
fn sha256(data: &Path) -> String {
    pbebench_io::dataset_fingerprint(pbebench::dataset::read_dataset(data).unwrap())
}

/// A journal as an interrupted run of `solve --time-limit 2` on `data` leaves it: the
/// header, then `entries` (id, response).
fn journal(path: &Path, data: &Path, entries: &[(&str, &str)], tail: &str) {
    journal_naming(path, Some(&sha256(data)), entries, tail)
}

/// [`journal`] with the dataset's hash given (`None`: an older journal, which names none).
fn journal_naming(path: &Path, dataset: Option<&str>, entries: &[(&str, &str)], tail: &str) {
    let mut header = serde_json::json!({
        "journal": "pbebench solve", "solver": pbebench_solve::DEFAULT_SOLVER, "time_limit": 2.0,
        "revision": pbebench_solve::SOLVER_REVISION,
    });
    if let Some(sha) = dataset {
        header["dataset"] = sha.into();
    }
    let mut text = header.to_string();
    for (id, response) in entries {
        let entry = serde_json::json!({
            "id": id, "response": response, "solved": false, "stats": {"id": id, "mark": 1}
        });
        text.push('\n');
        text.push_str(&entry.to_string());
    }
    text.push('\n');
    text.push_str(tail);
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_journal_is_resumed_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dataset(dir.path());
    let ids = ids(&data);
    let (out, stats) = (dir.path().join("r.jsonl"), dir.path().join("st.jsonl"));
    let partial = dir.path().join("r.jsonl.partial");
    // Two instances done with a marked answer, and a last line cut short by a kill.
    journal(
        &partial,
        &data,
        &[(&ids[3], "kept 3"), (&ids[7], "kept 7")],
        r#"{"id": "lite-s4-000"#,
    );
    let before = std::fs::read(&partial).unwrap();
    // A run whose statistics cannot be written fails before any work, journal untouched.
    let o = solve(&data, &out, &["--stats", &s(dir.path())]);
    assert_fatal(&o, "--stats-json");
    assert!(
        stderr(&o).contains("cannot write there: is a directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&partial).unwrap(), before);
    assert!(!out.exists());
    let o = solve(&data, &out, &["--stats", &s(&stats)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming: 2 of 16"), "{}", stderr(&o));
    assert!(stderr(&o).contains("(2 resumed)"), "{}", stderr(&o));
    assert!(!partial.exists(), "the journal is removed at the end");
    let responses = lines(&out);
    assert_eq!(responses.len(), 16);
    for (k, line) in responses.iter().enumerate() {
        assert_eq!(line["id"], ids[k].as_str(), "dataset order");
        let response = line["response"].as_str().unwrap();
        match k {
            3 | 7 => assert_eq!(response, format!("kept {k}")),
            _ => assert!(response.starts_with("```python"), "{response}"),
        }
    }
    let stats = lines(&stats);
    assert_eq!(stats[3]["mark"], 1);
    assert!(stats[0]["status"].is_string(), "{}", stats[0]);
    // --fresh ignores (and removes) a journal.
    journal(&partial, &data, &[(&ids[3], "kept 3")], "");
    let o = solve(&data, &out, &["--fresh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert!(lines(&out)[3]["response"]
        .as_str()
        .unwrap()
        .starts_with("```python"));
    assert!(!partial.exists());
}

#[test]
fn another_runs_journal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dataset(dir.path());
    let ids = ids(&data);
    let out = dir.path().join("r.jsonl");
    let partial = dir.path().join("r.jsonl.partial");
    // Other parameters.
    journal(&partial, &data, &[(&ids[0], "x")], "");
    let o = solve(&data, &out, &["--time-limit", "3"]);
    let default = pbebench_solve::DEFAULT_SOLVER;
    assert_fatal(
        &o,
        &format!("r.jsonl.partial: holds results of --solver {default} --time-limit 2"),
    );
    assert!(partial.exists() && !out.exists());
    // The same parameters, written by an earlier version of the solver (no revision):
    // its answers are another solver's.
    let mut old = std::fs::read_to_string(&partial).unwrap();
    old = old.replacen(
        &format!(",\"revision\":{}", pbebench_solve::SOLVER_REVISION),
        "",
        1,
    );
    std::fs::write(&partial, old).unwrap();
    assert_fatal(
        &solve(&data, &out, &["--time-limit", "2"]),
        &format!("r.jsonl.partial: holds results of --solver {default} --time-limit 2 (a solver revision before 2), not of --solver {default} --time-limit 2;"),
    );
    // Another dataset.
    journal(&partial, &data, &[("not-here", "x")], "");
    let o = solve(&data, &out, &[]);
    assert_fatal(
        &o,
        "r.jsonl.partial:2: instance 'not-here' is not in this dataset",
    );
    // Not a journal; a bad line that is not the last.
    std::fs::write(&partial, "hello\n").unwrap();
    assert_fatal(&solve(&data, &out, &[]), "r.jsonl.partial:1: not a journal");
    journal(&partial, &data, &[(&ids[0], "x")], "{oops}\n{}");
    assert_fatal(&solve(&data, &out, &[]), "r.jsonl.partial:3:");
}

/// A journal made for another dataset whose ids are the same (the same preset and seed,
/// other examples) is refused, not resumed with its stale answers: the journal names its
/// dataset by the hash of its instances. A journal that names none (an older version's)
/// is refused too.
#[test]
fn a_journal_of_another_dataset_with_the_same_ids_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dataset(dir.path());
    let other = dir.path().join("other.jsonl");
    let o = pbebench(&[
        "generate",
        "--size",
        "16",
        "--seed",
        "4",
        "--examples",
        "6",
        "--out",
        &s(&other),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(ids(&data), ids(&other), "the same ids");
    let out = dir.path().join("r.jsonl");
    let partial = dir.path().join("r.jsonl.partial");
    journal(&partial, &other, &[(&ids(&data)[0], "stale")], "");
    let o = solve(&data, &out, &[]);
    assert_fatal(
        &o,
        "r.jsonl.partial: holds results for another dataset (sha256 ",
    );
    assert!(
        stderr(&o).contains("delete it, or pass --fresh"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    journal_naming(&partial, None, &[(&ids(&data)[0], "stale")], "");
    let o = solve(&data, &out, &[]);
    assert_fatal(&o, "holds results for a dataset it does not name");
    // The journal of this very dataset is resumed.
    journal(&partial, &data, &[(&ids(&data)[0], "kept")], "");
    let o = solve(&data, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out)[0]["response"], "kept");
}

/// Off a terminal (here a pipe) `solve` prints a status line every `--status-every`
/// seconds (30 by default), as `eval` does: a progress bar draws nothing there.
#[test]
fn status_lines_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // Random outputs no short cascade reproduces: each instance takes its time limit.
    let line = |k: usize| {
        serde_json::json!({
            "id": format!("hard-{k}"),
            "inputs": ["abcdefgh", "hgfedcba", "aabbccdd", "abcabcab", "hhggffee", "dcbadcba"],
            "outputs": ["hcfbgade", "bgchdaef", "dcdacbba", "ccbabaac", "efgfhgeh", "abcdhefg"],
            "max_rules": 5, "max_rule_len": 3, "alphabet": "abcdefgh"
        })
        .to_string()
    };
    let data = write(
        dir.path(),
        "hard.jsonl",
        &format!("{}\n{}\n{}\n", line(0), line(1), line(2)),
    );
    let out = dir.path().join("r.jsonl");
    let o = solve(
        &data,
        &out,
        &[
            "--time-limit",
            "0.6",
            "--threads",
            "1",
            "--status-every",
            "0.2",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    let status: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("solve: ") && l.contains("/3 done, "))
        .collect();
    assert!(status.len() >= 3, "{}", stderr(&o));
    assert!(status[0].ends_with(" s"), "{}", status[0]);
}

/// `--holdout`: a sound law (a -> e) carries over to the held-out words; the table and
/// the rows are written, and a share outside (0, 1) is a one-line error.
#[test]
fn holdout_cross_validates_per_language() {
    let dir = tempfile::tempdir().unwrap();
    let words = ["ba", "ca", "da", "fa", "ga", "ha", "ja", "ka", "la", "ma"];
    let outputs: Vec<String> = words.iter().map(|w| w.replace('a', "e")).collect();
    let line = serde_json::json!({
        "id": "lang-0", "inputs": words, "outputs": outputs,
        "max_rules": 5, "max_rule_len": 3, "alphabet": "abcdefghjklm",
    });
    let data = write(dir.path(), "real.jsonl", &format!("{line}\n"));
    let out = dir.path().join("cv.jsonl");
    let o = pbebench(&[
        "solve",
        "--dataset",
        &s(&data),
        "--holdout",
        "0.2",
        "--out",
        &s(&out),
        "--time-limit",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("solve_holdout", stdout(&o));
    let row: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    assert_eq!(
        (row["held"].as_u64(), row["held_answer_exact"].as_u64()),
        (Some(2), Some(2))
    );
    assert_fatal(
        &pbebench(&[
            "solve",
            "--dataset",
            &s(&data),
            "--holdout",
            "1",
            "--out",
            &s(&out),
        ]),
        "--holdout",
    );
}

/// Probing needs the hidden cascade: an instance without one is refused before any work,
/// named by the option that asked for probing (the library names its field).
#[test]
fn probing_an_instance_without_a_gold_names_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let real = d.join("real.jsonl");
    std::fs::write(
        &real,
        "{\"id\": \"w\", \"inputs\": [\"ab\"], \"outputs\": [\"b\"], \"max_rules\": 5, \"max_rule_len\": 3, \"alphabet\": \"ab\"}\n",
    )
    .unwrap();
    let o = solve(&real, &d.join("out.jsonl"), &["--probe-budget", "4"]);
    assert_fatal(&o, "--probe-budget: instance w has no gold");
}
