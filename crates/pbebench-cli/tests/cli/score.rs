//! `pbebench score` run as a binary on real files.

use crate::common::{pbebench_in as pbebench, stderr, write};
use serde_json::{json, Value};
use std::path::Path;

/// Three records in the authors' published format (from the PBEBench-Lite snapshot).
const AUTHORS: &str = r#"{"inputs": ["xbu", "uxwkkg", "kib", "fjze", "cv"], "outputs": ["xhu", "uxwkkvzw", "kih", "fjxwye", "cv"], "programs": ["replace(\"z\", \"xwy\")", "replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 3, "bfcc_category": "0010"}
{"inputs": ["iwkz", "kwbwzc", "dbuz", "vzdc", "kadzz"], "outputs": ["ikykz", "kkyvekyzzfg", "dveuz", "vzdzfg", "kadzz"], "programs": ["replace(\"w\", \"ky\")", "replace(\"c\", \"zfg\")", "replace(\"b\", \"ve\")"], "cascade_length": 3, "bfcc_category": "0000"}
{"inputs": ["aizz", "hxzc", "zhja", "bkfuf", "ixeacu"], "outputs": ["adzz", "avxzc", "zavja", "zgffdfuf", "dxeacu"], "programs": ["replace(\"k\", \"ffi\")", "replace(\"h\", \"av\")", "replace(\"b\", \"zg\")", "replace(\"i\", \"d\")"], "cascade_length": 4, "bfcc_category": "1000"}
"#;

/// The gold cascades of `AUTHORS`, as the released answer format.
const GOLD: [&str; 3] = [
    r#"["replace('z', 'xwy')", "replace('b', 'h')", "replace('g', 'vzw')"]"#,
    r#"["replace('w', 'ky')", "replace('c', 'zfg')", "replace('b', 've')"]"#,
    r#"["replace('k', 'ffi')", "replace('h', 'av')", "replace('b', 'zg')", "replace('i', 'd')"]"#,
];

fn answer(code: &str) -> String {
    format!("Here is my answer.\n```python\n{code}\n```\n")
}

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

#[test]
fn scores_samples_and_writes_results() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    let responses = lines(&[
        // Instance 0: a wrong sample, then the gold one: passes with budget 2.
        json!({"id": "0", "responses": [answer(r#"["replace('b', 'h')"]"#), answer(GOLD[0])]}),
        // Instance 1: one sample per line, with sample numbers, out of order.
        json!({"id": "1", "sample": 1, "response": answer(GOLD[1])}),
        json!({"id": "1", "sample": 0, "response": "<think>```python\n[]\n```</think> no answer"}),
        // Instance 2: no response at all.
    ]);
    write(dir.path(), "resp.jsonl", &responses);
    let out = pbebench(
        &[
            "score",
            "--dataset",
            "data.jsonl",
            "--responses",
            "resp.jsonl",
            "--out",
            "results.json",
            "--per-instance",
            "per.jsonl",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("instances 3  samples 4  missing 1"),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("overall") && l.contains("0.667")),
        "{table}"
    );
    assert!(
        table.contains("len 4") && table.contains("cat 1000"),
        "{table}"
    );
    assert!(
        stderr(&out).contains("1 instance has no response in resp.jsonl (scored as failures): 2")
    );

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results.json")).unwrap())
            .unwrap();
    let overall = &results["summary"]["overall"];
    assert_eq!(overall["best_of_k"].as_f64().unwrap(), 2.0 / 3.0);
    assert_eq!(
        overall["pass_at_k"]["1"].as_f64().unwrap(),
        (0.5 + 0.5 + 0.0) / 3.0
    );
    assert_eq!(overall["pass_at_1"], overall["pass_at_k"]["1"]);
    assert_eq!(results["format_version"], json!(2));
    let interval = &overall["intervals"]["pass_at_1"];
    assert_eq!(interval["method"], json!("clustered"));
    assert!(interval["lo"].as_f64().unwrap() <= interval["mean"].as_f64().unwrap());
    assert_eq!(overall["pass_at_k"]["2"].as_f64().unwrap(), 2.0 / 3.0);
    assert_eq!(results["missing"], json!(["2"]));
    assert_eq!(
        results["summary"]["by_cascade_len"]["3"]["best_of_k"]
            .as_f64()
            .unwrap(),
        1.0
    );
    assert_eq!(
        results["summary"]["by_category"]["1000"]["best_of_k"]
            .as_f64()
            .unwrap(),
        0.0
    );

    let per: Vec<Value> = std::fs::read_to_string(dir.path().join("per.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(per.len(), 3);
    assert_eq!(per[0]["chosen"], json!(1));
    assert_eq!(per[1]["chosen"], json!(1), "sample 1 is the gold one");
    assert_eq!(per[1]["samples"][0]["parsed"], json!(false));
    assert_eq!(per[2]["missing"], json!(true));
    assert_eq!(per[2]["edit_sim"].as_f64().unwrap(), 0.0);
}

#[test]
fn reads_the_authors_result_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    let record = |index: Value, output: Value| json!({"input": {"index": index}, "outputs": [output], "chains_of_thought": [GOLD[0]]});
    let responses = lines(&[
        record(json!("2_1"), json!(answer(GOLD[2]))),
        record(json!("0_0"), json!(answer(GOLD[0]))),
        record(json!("2_0"), Value::Null),
        record(json!(1), json!(answer("[replace('w', 'ky')]"))),
    ]);
    write(dir.path(), "authors.jsonl", &responses);
    let out = pbebench(
        &[
            "score",
            "--dataset",
            "data.jsonl",
            "--responses",
            "authors.jsonl",
            "--out",
            "r.json",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let overall = &results["summary"]["overall"];
    assert_eq!(overall["instances"], json!(3));
    assert_eq!(overall["samples"], json!(4));
    assert_eq!(overall["best_of_k"].as_f64().unwrap(), 2.0 / 3.0);
    assert_eq!(results["missing"], json!([]));
}

#[test]
fn unknown_and_duplicate_ids_are_counted_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    let responses = lines(&[
        json!({"id": "0", "response": answer(GOLD[0])}),
        json!({"id": "nope", "response": "x"}),
        json!({"id": "0", "response": "again"}),
        json!({"id": 1, "response": answer(GOLD[1])}),
        json!({"id": "2", "response": answer(GOLD[2])}),
    ]);
    write(dir.path(), "resp.jsonl", &responses);
    let out = pbebench(
        &[
            "score",
            "--dataset",
            "data.jsonl",
            "--responses",
            "resp.jsonl",
            "--out",
            "r.json",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("resp.jsonl:2: id 'nope' is not in the dataset"),
        "{err}"
    );
    assert!(
        err.contains("resp.jsonl:3: id '0' was already given on line 1"),
        "{err}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("unknown ids 1  duplicates 1"), "{stdout}");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(results["unknown"][0]["line"], json!(2));
    assert_eq!(results["duplicates"][0]["line"], json!(3));
    assert_eq!(
        results["summary"]["overall"]["best_of_k"].as_f64().unwrap(),
        1.0,
        "the first line wins"
    );
}

/// Runs a command that must fail with exit code 2 and one line naming `needle`.
fn fails_with(dir: &Path, args: &[&str], needle: &str) {
    let out = pbebench(args, dir);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in {err}"
    );
}

#[test]
fn bad_input_exits_2_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", AUTHORS);
    fn score(resp: &str) -> [&str; 5] {
        ["score", "--dataset", "data.jsonl", "--responses", resp]
    }

    write(
        d,
        "malformed.jsonl",
        &format!(
            "{}\n{{\"id\": \"1\", \"response\": \n",
            json!({"id": "0", "response": "x"})
        ),
    );
    fails_with(
        d,
        &score("malformed.jsonl"),
        "malformed.jsonl:2: malformed JSON",
    );

    let mut bytes = format!("{}\n", json!({"id": "0", "response": "x"})).into_bytes();
    bytes.extend_from_slice(b"{\"id\": \"1\", \"response\": \"\xff\xfe\"}\n");
    std::fs::write(d.join("latin1.jsonl"), bytes).unwrap();
    fails_with(d, &score("latin1.jsonl"), "latin1.jsonl:2: not valid UTF-8");

    write(d, "noid.jsonl", "\n\n{\"response\": \"x\"}\n");
    fails_with(
        d,
        &score("noid.jsonl"),
        "noid.jsonl:3: a response line needs an 'id'",
    );

    write(d, "array.jsonl", "[1, 2]\n");
    fails_with(
        d,
        &score("array.jsonl"),
        "array.jsonl:1: a line must hold a JSON object",
    );

    fails_with(d, &score("absent.jsonl"), "absent.jsonl");

    write(
        d,
        "bad-data.jsonl",
        &format!(
            "{}not json\n",
            AUTHORS.lines().next().unwrap().to_owned() + "\n"
        ),
    );
    write(
        d,
        "ok.jsonl",
        &format!("{}\n", json!({"id": "0", "response": "x"})),
    );
    fails_with(
        d,
        &[
            "score",
            "--dataset",
            "bad-data.jsonl",
            "--responses",
            "ok.jsonl",
        ],
        "bad-data.jsonl:2:",
    );

    write(d, "empty.jsonl", "");
    fails_with(
        d,
        &[
            "score",
            "--dataset",
            "empty.jsonl",
            "--responses",
            "ok.jsonl",
        ],
        "no instances",
    );

    let uneven = json!({"id": "u", "inputs": ["a", "b"], "outputs": ["a"], "max_rules": 5, "max_rule_len": 3, "alphabet": "ab"});
    write(d, "uneven.jsonl", &format!("{uneven}\n"));
    fails_with(
        d,
        &[
            "score",
            "--dataset",
            "uneven.jsonl",
            "--responses",
            "ok.jsonl",
        ],
        "uneven.jsonl:1: 2 inputs but 1 outputs",
    );

    fails_with(
        d,
        &[
            "score",
            "--dataset",
            "data.jsonl",
            "--responses",
            "ok.jsonl",
            "--out",
            "no/such/dir/r.json",
        ],
        "no/such/dir/r.json",
    );
    assert!(!d.join("no").exists());
}

#[test]
fn garbage_responses_score_zero_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    let garbage = [
        "[".repeat(100_000),
        format!("```python\n{}\n```", "[".repeat(100_000)),
        format!("```python\n{}\n```", "'\\'".repeat(100_000)),
        "```".repeat(50_000),
        "<think>".repeat(1000),
    ];
    let responses = lines(&[
        json!({"id": "0", "responses": garbage}),
        json!({"id": "1", "response": answer("[('w', 'ky'), ('c', 'zfg'), ('b', 've'), ('q', 'q'), ('a', 'a'), ('x', 'x')]")}),
        json!({"id": "2", "response": answer("s = s.replace('k', 'ffi').replace('h', 'av').replace('b', 'zg').replace('i', 'dd')")}),
    ]);
    write(dir.path(), "resp.jsonl", &responses);
    let out = pbebench(
        &[
            "score",
            "--dataset",
            "data.jsonl",
            "--responses",
            "resp.jsonl",
            "--per-instance",
            "per.jsonl",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let per: Vec<Value> = std::fs::read_to_string(dir.path().join("per.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(per[0]["pass"], json!(false));
    assert_eq!(per[0]["edit_sim"].as_f64().unwrap(), 0.0);
    // Six rules with a cap of five: the sixth is dropped, the gold three still pass.
    assert_eq!(per[1]["pass"], json!(true));
    assert_eq!(per[1]["samples"][0]["dropped_rules"], json!(1));
    assert_eq!(per[1]["samples"][0]["valid"], json!(false));
    // 'dd' instead of 'd' on two of five examples (Σ dist 2 of 6 changed characters).
    assert_eq!(per[2]["pass"], json!(false));
    assert!(per[2]["edit_sim"].as_f64().unwrap() > 0.0);
}

/// The authors' result records carry their instance's inputs (their dataset has no ids,
/// only positions): the same results read against the dataset in reverse order score the
/// same, each record going to the instance with its inputs; a record whose inputs no
/// instance has is counted as unknown.
#[test]
fn authors_results_follow_their_inputs_not_their_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let records: Vec<&str> = AUTHORS.lines().take(2).collect();
    write(
        d,
        "data.jsonl",
        &format!("{}\n{}\n", records[0], records[1]),
    );
    write(
        d,
        "reversed.jsonl",
        &format!("{}\n{}\n", records[1], records[0]),
    );
    let inputs = |k: usize| serde_json::from_str::<Value>(records[k]).unwrap()["inputs"].clone();
    // The first instance answered right, the second wrong.
    let results = lines(&[
        json!({"input": {"inputs": inputs(0), "index": 0}, "outputs": [answer(GOLD[0])]}),
        json!({"input": {"inputs": inputs(1), "index": 1}, "outputs": [answer("[]")]}),
    ]);
    write(d, "authors.jsonl", &results);
    for data in ["data.jsonl", "reversed.jsonl"] {
        let out = pbebench(
            &[
                "score",
                "--dataset",
                data,
                "--responses",
                "authors.jsonl",
                "--per-instance",
                "per.jsonl",
            ],
            d,
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let per: Vec<Value> = std::fs::read_to_string(d.join("per.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let passed: usize = per
            .iter()
            .map(|p| usize::from(p["pass"] == json!(true)))
            .sum();
        assert_eq!(passed, 1, "{data}: one of two passes, whatever the order");
        let first = &per[usize::from(data == "reversed.jsonl")];
        assert_eq!(
            first["pass"],
            json!(true),
            "{data}: the instance of the right answer"
        );
    }
    let stranger = lines(&[
        json!({"input": {"inputs": ["zz"], "index": 0}, "outputs": ["x"]}),
        json!({"input": {"inputs": inputs(1), "index": 1}, "outputs": [answer("[]")]}),
    ]);
    write(d, "stranger.jsonl", &stranger);
    let out = pbebench(
        &[
            "score",
            "--dataset",
            "data.jsonl",
            "--responses",
            "stranger.jsonl",
        ],
        d,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stranger.jsonl:1: its example inputs are not those of index 0 nor of any instance of the dataset (ignored)"),
        "{}",
        stderr(&out)
    );
}

/// Responses not one of which is for the dataset are refused, as `report` and `audit`
/// refuse such results (they scored 0 and exited 0).
#[test]
fn responses_to_another_dataset_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.jsonl", AUTHORS);
    write(
        dir.path(),
        "other.jsonl",
        &lines(&[
            json!({"id": "lite-s0-00000", "response": "x"}),
            json!({"id": "lite-s0-00001", "response": "x"}),
        ]),
    );
    fails_with(
        dir.path(),
        &["score", "--dataset", "data.jsonl", "--responses", "other.jsonl"],
        "other.jsonl: none of its 2 response line(s) is for an instance of the dataset (line 1: id 'lite-s0-00000' is not in the dataset): are these responses to another dataset?",
    );
}
