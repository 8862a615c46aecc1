//! A reordering set given to `pbebench prompt` and `pbebench score`, and made by
//! `generate --task reorder` (the bytes of generate, then reorder). A prompt per problem
//! (`--template` refused); scripted answers (the gold order, the given order reversed,
//! repeated indices, prose without an array, no response) give the table (a snapshot),
//! the JSON summary and the per-instance lines; a broken set is a one-line error.

use crate::common::*;
use crate::pbebench_snapshot;
use crate::reorder::lite;
use pbebench::reorder::read_reorder_lines;
use std::path::Path;

/// A reordering set of a small Lite set, and scripted responses to it.
fn set_and_responses(dir: &Path) {
    let data = lite(dir);
    let o = pbebench(&[
        "reorder",
        "--dataset",
        &s(&data),
        "--out",
        &s(&dir.join("reorder.jsonl")),
        "--seed",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let problems =
        read_reorder_lines(&std::fs::read_to_string(dir.join("reorder.jsonl")).unwrap()).unwrap();
    let mut lines = String::new();
    for (k, p) in problems.iter().enumerate() {
        let n = p.order.len();
        let text = match k % 5 {
            0 => format!("Rule by rule:\n```json\n{:?}\n```", p.order),
            1 => format!("{:?}", (0..n).rev().collect::<Vec<_>>()),
            2 => format!("[{}]", vec!["0"; n].join(", ")),
            3 => "I cannot tell.".to_owned(),
            _ => continue,
        };
        lines += &(serde_json::json!({ "id": p.instance.id, "response": text }).to_string() + "\n");
    }
    std::fs::write(dir.join("responses.jsonl"), lines).unwrap();
}

#[test]
fn a_reordering_set_is_scored_by_order() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let args = [
        "score",
        "--dataset",
        "reorder.jsonl",
        "--responses",
        "responses.jsonl",
        "--out",
        "results.json",
        "--per-instance",
        "lines.jsonl",
    ];
    pbebench_snapshot!("score_reorder_table", dir.path(), &args);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results.json")).unwrap())
            .unwrap();
    let all = &results["rows"][0];
    assert_eq!(all["group"], "all");
    assert!(results["invalid"]["repeated"].as_u64().unwrap() > 0);
    assert!(results["invalid"]["no_array"].as_u64().unwrap() > 0);
    let lines = std::fs::read_to_string(dir.path().join("lines.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["samples"][0]["exact"], true);
    assert_eq!(lines.lines().count(), all["n"].as_u64().unwrap() as usize);
}

#[test]
fn a_broken_reordering_set_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let text = std::fs::read_to_string(dir.path().join("reorder.jsonl")).unwrap();
    let mut problem: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    problem["order"] = serde_json::json!([0, 0]);
    let first = text.lines().next().unwrap();
    let bad = write(dir.path(), "bad.jsonl", &format!("{first}\n{problem}\n"));
    let o = pbebench(&[
        "score",
        "--dataset",
        &s(&bad),
        "--responses",
        &s(&dir.path().join("responses.jsonl")),
    ]);
    assert_fatal(&o, "bad.jsonl:2");
    assert!(stderr(&o).contains("not a permutation"), "{}", stderr(&o));
}

#[test]
fn a_reordering_set_gets_its_own_prompts() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let set = s(&dir.path().join("reorder.jsonl"));
    let o = pbebench(&["prompt", "--dataset", &set]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let problems =
        read_reorder_lines(&std::fs::read_to_string(dir.path().join("reorder.jsonl")).unwrap())
            .unwrap();
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), problems.len());
    for (line, p) in lines.iter().zip(&problems) {
        assert_eq!(line["id"], p.instance.id);
        assert_eq!(
            line["prompt"].as_str().unwrap(),
            pbebench::reorder::reorder_prompt(p)
        );
    }
    assert_fatal(
        &pbebench(&["prompt", "--dataset", &set, "--template", "authors"]),
        "--template",
    );
    // A byte-order mark does not hide what the file is.
    let text = std::fs::read_to_string(&set).unwrap();
    let bom = write(dir.path(), "bom.jsonl", &format!("\u{feff}{text}"));
    let o = pbebench(&["prompt", "--dataset", &s(&bom)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), problems.len());
    assert!(stdout(&o).contains("numbered 0 to"), "{}", stdout(&o));
}

#[test]
fn generate_task_reorder_is_generate_then_reorder() {
    let dir = tempfile::tempdir().unwrap();
    let data = lite(dir.path());
    let two_steps = dir.path().join("two.jsonl");
    let o = pbebench(&[
        "reorder",
        "--dataset",
        &s(&data),
        "--seed",
        "3",
        "--out",
        &s(&two_steps),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let one_step = dir.path().join("one.jsonl");
    let o = pbebench(&[
        "generate",
        "--task",
        "reorder",
        "--preset",
        "lite",
        "--size",
        "64",
        "--seed",
        "3",
        "--out",
        &s(&one_step),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(" kept, "), "{}", stderr(&o));
    let one = std::fs::read_to_string(&one_step).unwrap();
    assert!(!one.is_empty());
    assert_eq!(one, std::fs::read_to_string(&two_steps).unwrap());
    assert_fatal(
        &pbebench(&[
            "generate",
            "--task",
            "reorder",
            "--preset",
            "lite-vetted",
            "--out",
            &s(&dir.path().join("v.jsonl")),
        ]),
        "--task reorder",
    );
}

#[test]
fn a_reordering_set_is_audited_by_its_shortcut_orders() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let args = [
        "audit",
        "--dataset",
        "reorder.jsonl",
        "--out",
        "audit.json",
        "--threads",
        "1",
    ];
    // The table (standard error holds a timing).
    let o = pbebench_in(&args, dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    insta::assert_snapshot!("audit_reorder", stdout(&o));
    assert!(
        stderr(&o).contains("audit FAILED reversed accuracy"),
        "{}",
        stderr(&o)
    );
    let audit: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("audit.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = (audit["baselines"].as_array().unwrap().iter())
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["dummy", "identity", "reversed", "greedy", "search"]);
    let search = &audit["baselines"][4]["rows"][0]["accuracy"]["mean"];
    assert_eq!(search.as_f64(), Some(1.0));
    let o = pbebench(&[
        "audit",
        "--dataset",
        &s(&dir.path().join("reorder.jsonl")),
        "--results",
        "x.jsonl",
        "--out",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--results is for synthesis datasets"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_reordering_set_exports_to_the_authors_format_and_back() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let d = |f: &str| s(&dir.path().join(f));
    for (to, from, out) in [
        ("authors", "reorder.jsonl", "authors.jsonl"),
        ("pbebench", "authors.jsonl", "back.jsonl"),
        ("authors", "back.jsonl", "authors2.jsonl"),
    ] {
        let o = pbebench(&[
            "export",
            "--to",
            to,
            "--dataset",
            &d(from),
            "--out",
            &d(out),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let authors = std::fs::read_to_string(dir.path().join("authors.jsonl")).unwrap();
    assert_eq!(
        authors,
        std::fs::read_to_string(dir.path().join("authors2.jsonl")).unwrap()
    );
    assert!(authors
        .lines()
        .next()
        .unwrap()
        .contains("\"permuted_programs\": [\"replace("));
    // The authors' file is a reordering set everywhere one is read.
    let o = pbebench(&[
        "prompt",
        "--dataset",
        &d("authors.jsonl"),
        "--out",
        &d("p.jsonl"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = pbebench(&[
        "export",
        "--to",
        "authors",
        "--original-programs",
        "--dataset",
        &d("reorder.jsonl"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("apply to synthesis datasets"),
        "{}",
        stderr(&o)
    );
}
