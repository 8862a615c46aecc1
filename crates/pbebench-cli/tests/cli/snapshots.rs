//! Snapshots of what users see (insta, in `tests/cli/snapshots/`): every `--help`, the
//! score table, `inspect` and `audit` text, and a report's page and one of its figures. All
//! are deterministic by design; a change to any of them shows up as a diff to review
//! (`INSTA_UPDATE=always cargo test -p pbebench-cli --test cli snapshots`, then read the
//! `.snap` files' diff).

use crate::common::*;
use crate::pbebench_snapshot;
use std::path::Path;
use std::process::{Command, Output};

/// The subcommands, read off `pbebench --help` (its "Commands:" list, without `help`), so
/// a new command's `--help` is snapshotted without anyone remembering to list it.
fn commands(top_help: &str) -> Vec<String> {
    top_help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        // A name starts at column 2; a wrapped description is indented further.
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// `pbebench ARGS --help` at a fixed terminal width.
fn help(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .output()
        .expect("the binary runs")
}

#[test]
fn every_help() {
    let o = help(&[]);
    insta::assert_snapshot!("help", snapshot(&o, &[]));
    let commands = commands(&String::from_utf8_lossy(&o.stdout));
    assert!(commands.len() >= 14, "{commands:?}");
    for command in &commands {
        let o = help(&[command]);
        insta::assert_snapshot!(format!("help_{command}"), snapshot(&o, &[]));
    }
}

/// Three instances in the authors' format, as the published Lite snapshot has them.
const AUTHORS: &str = r#"{"inputs": ["xbu", "uxwkkg", "kib", "fjze", "cv"], "outputs": ["xhu", "uxwkkvzw", "kih", "fjxwye", "cv"], "programs": ["replace(\"z\", \"xwy\")", "replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 3, "bfcc_category": "0010"}
{"inputs": ["iwkz", "kwbwzc", "dbuz", "vzdc", "kadzz"], "outputs": ["ikykz", "kkyvekyzzfg", "dveuz", "vzdzfg", "kadzz"], "programs": ["replace(\"w\", \"ky\")", "replace(\"c\", \"zfg\")", "replace(\"b\", \"ve\")"], "cascade_length": 3, "bfcc_category": "0000"}
{"inputs": ["aizz", "hxzc", "zhja", "bkfuf", "ixeacu"], "outputs": ["adzz", "avxzc", "zavja", "zgffdfuf", "dxeacu"], "programs": ["replace(\"k\", \"ffi\")", "replace(\"h\", \"av\")", "replace(\"b\", \"zg\")", "replace(\"i\", \"d\")"], "cascade_length": 4, "bfcc_category": "1000"}
"#;

/// Responses to [`AUTHORS`]: two samples of the first instance (a wrong one, the gold),
/// the gold of the second with a repeated line, nothing for the third, an unknown id.
const RESPONSES: &str = r#"{"id": "0", "responses": ["```python\n[\"replace('b', 'h')\"]\n```", "```python\n[\"replace('z', 'xwy')\", \"replace('b', 'h')\", \"replace('g', 'vzw')\"]\n```"]}
{"id": "1", "response": "```python\n[('w', 'ky'), ('c', 'zfg'), ('b', 've'), ('q', 'q'), ('a', 'a'), ('x', 'x')]\n```"}
{"id": "1", "response": "again"}
{"id": "nope", "response": "x"}
"#;

#[test]
fn score_table() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    write(dir.path(), "resp.jsonl", RESPONSES);
    let args = [
        "score",
        "--dataset",
        "data.jsonl",
        "--responses",
        "resp.jsonl",
    ];
    pbebench_snapshot!("score", dir.path(), &args);
}

#[test]
fn inspect_text() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    let args = ["inspect", "data.jsonl", "--compare-relations"];
    pbebench_snapshot!("inspect", dir.path(), &args);
}

/// The audit's text of the vet crate's flawed fixture (its JSON and timing on standard
/// error are left out), without the solver's time-boxed search (in the stated-length check
/// and in the identifiability panel, here the deterministic shortcut baselines).
#[test]
fn audit_text() {
    let o = audit_of_the_flawed_set("shortcuts");
    assert_eq!(o.status.code(), Some(1), "a gate fails: {}", stderr(&o));
    insta::assert_snapshot!("audit", stdout(&o));
}

/// `pbebench audit --no-solver --panel PANEL` of the vet crate's flawed fixture, run where
/// the fixture is (so that the text names it by its file name alone).
fn audit_of_the_flawed_set(panel: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../pbebench-vet/tests/fixtures/flawed.jsonl");
    std::fs::copy(fixture, dir.path().join("flawed.jsonl")).unwrap();
    let args = [
        "audit",
        "--dataset",
        "flawed.jsonl",
        "--no-solver",
        "--panel",
        panel,
    ];
    pbebench_in(&args, dir.path())
}

/// The identifiability section with one attacker: its Pass@1, Recovered@1 and their gap,
/// each with its interval (the gap's in points, as the gap).
#[test]
fn audit_text_of_one_attacker() {
    let o = audit_of_the_flawed_set("single-rule");
    let out = stdout(&o);
    let section: String = (out.lines())
        .skip_while(|l| !l.starts_with("identifiability"))
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("audit_one_attacker", section);
}

/// The report of two runs on a generated set: the gold answers and no answers at all (the
/// solver's would depend on the clock).
#[test]
fn report_page_and_a_figure() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "generate",
        "--size",
        "32",
        "--seed",
        "3",
        "--heldout",
        "2",
        "--out",
        "d.jsonl",
    ];
    let o = pbebench_in(&args, d);
    assert!(o.status.success(), "{}", stderr(&o));
    let gold: String = std::fs::read_to_string(d.join("d.jsonl"))
        .unwrap()
        .lines()
        .map(|line| {
            let inst: serde_json::Value = serde_json::from_str(line).unwrap();
            let cascade = pbebench::Cascade::from_json(&inst["cascade"].to_string()).unwrap();
            let answer = pbebench::render_answer(&cascade);
            serde_json::json!({ "id": inst["id"], "response": answer }).to_string() + "\n"
        })
        .collect();
    write(d, "gold.jsonl", &gold);
    write(d, "none.jsonl", &empty_answers(&d.join("d.jsonl")));
    for (name, responses) in [("gold", "gold.jsonl"), ("none", "none.jsonl")] {
        let per = format!("{name}.per.jsonl");
        let args = [
            "score",
            "--dataset",
            "d.jsonl",
            "--responses",
            responses,
            "--per-instance",
            &per,
        ];
        let o = pbebench_in(&args, d);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let args = [
        "report",
        "--results",
        "gold=gold.per.jsonl",
        "--results",
        "none=none.per.jsonl",
        "--dataset",
        "d.jsonl",
        "--out",
        "report",
    ];
    let o = pbebench_in(&args, d);
    assert!(o.status.success(), "{}", stderr(&o));
    insta::assert_snapshot!("report_leaderboard", stdout(&o));
    let read = |name: &str| std::fs::read_to_string(d.join("report").join(name)).unwrap();
    insta::assert_snapshot!("report_index_html", read("index.html"));
    insta::assert_snapshot!("report_pass_by_length_svg", read("pass_by_length.svg"));
}
