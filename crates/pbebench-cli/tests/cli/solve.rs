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

/// A journal as an interrupted run of `solve --time-limit 2` leaves it: the header, then
/// `entries` (id, response).
fn journal(path: &Path, entries: &[(&str, &str)], tail: &str) {
    let mut text = r#"{"journal":"pbebench solve","solver":"beam","time_limit":2.0}"#.to_owned();
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
        &[(&ids[3], "kept 3"), (&ids[7], "kept 7")],
        r#"{"id": "lite-s4-000"#,
    );
    // A run that fails at the end (its statistics cannot be written) keeps its journal:
    // the cut line is gone, the solved instances are appended.
    let o = solve(&data, &out, &["--stats", &s(dir.path())]);
    assert_fatal(&o, "cannot write");
    let kept = lines(&partial);
    assert_eq!(kept.len(), 1 + 16, "header and every instance, once");
    let o = solve(&data, &out, &["--stats", &s(&stats)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming: 16 of 16"), "{}", stderr(&o));
    assert!(stderr(&o).contains("(16 resumed)"), "{}", stderr(&o));
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
    journal(&partial, &[(&ids[3], "kept 3")], "");
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
    journal(&partial, &[(&ids[0], "x")], "");
    let o = solve(&data, &out, &["--time-limit", "3"]);
    assert_fatal(
        &o,
        "r.jsonl.partial: holds results of --solver beam --time-limit 2",
    );
    assert!(partial.exists() && !out.exists());
    // Another dataset.
    journal(&partial, &[("not-here", "x")], "");
    let o = solve(&data, &out, &[]);
    assert_fatal(
        &o,
        "r.jsonl.partial:2: instance 'not-here' is not in this dataset",
    );
    // Not a journal; a bad line that is not the last.
    std::fs::write(&partial, "hello\n").unwrap();
    assert_fatal(&solve(&data, &out, &[]), "r.jsonl.partial:1: not a journal");
    journal(&partial, &[(&ids[0], "x")], "{oops}\n{}");
    assert_fatal(&solve(&data, &out, &[]), "r.jsonl.partial:3:");
}
