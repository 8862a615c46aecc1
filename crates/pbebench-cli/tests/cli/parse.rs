//! `pbebench parse` run as a binary.

use crate::common::pbebench_with_stdin;
use serde_json::{json, Value};
use std::process::Output;

fn parse(args: &[&str], stdin: &[u8]) -> Output {
    let args: Vec<&str> = std::iter::once("parse")
        .chain(args.iter().copied())
        .collect();
    pbebench_with_stdin(&args, stdin)
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const RESPONSE: &str = "<think>maybe ```python\n[\"replace('q','q')\"]\n```</think>\nDraft:\n```python\n[\"replace('ab', 'c')\"]\n```\nFinal:\n```python\n[\"replace('bc','dc')\", \"replace('adzz', 'e')\", \"replace('a', 'Q')\", \"replace('d', '')\"]\n```\n";

#[test]
fn prints_the_cascade_and_each_rules_validity() {
    let v = json_of(&parse(
        &[
            "--max-rules",
            "3",
            "--max-rule-len",
            "3",
            "--alphabet",
            "abcdez",
        ],
        RESPONSE.as_bytes(),
    ));
    assert_eq!(v["status"]["kind"], json!("parsed"));
    assert_eq!(v["blocks"], json!(2));
    assert_eq!(v["cascade"], json!([["bc", "dc"]]));
    assert_eq!(v["dropped_rules"], json!(1));
    assert_eq!(v["valid"], json!(false));
    assert_eq!(
        v["rules"][1]["problems"][0]["kind"],
        json!("pattern_too_long")
    );
    assert_eq!(
        v["rules"][2]["problems"][0]["kind"],
        json!("outside_alphabet")
    );
}

#[test]
fn block_choice_and_no_limits() {
    let v = json_of(&parse(&["--block", "first"], RESPONSE.as_bytes()));
    assert_eq!(v["cascade"], json!([["ab", "c"]]));
    assert_eq!(v["valid"], json!(true));
    let v = json_of(&parse(&[], RESPONSE.as_bytes()));
    assert_eq!(
        v["cascade"],
        json!([["bc", "dc"], ["adzz", "e"], ["a", "Q"], ["d", ""]])
    );
}

#[test]
fn no_answer_is_reported_not_an_error() {
    let v = json_of(&parse(&[], b"I could not find a solution."));
    assert_eq!(v["status"]["kind"], json!("no_code_block"));
    assert_eq!(v["cascade"], json!([]));
    let v = json_of(&parse(&[], b"```python\n[\"replace('a'\n```"));
    assert_eq!(v["status"]["kind"], json!("unparsable"));
    let v = json_of(&parse(&[], b"<think>```python\n[]\n```"));
    assert_eq!(v["status"]["kind"], json!("unclosed_thinking"));
}

#[test]
fn bad_input_exits_2() {
    let out = parse(&[], b"```python\n[\xff]\n```");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stdin: not valid UTF-8"), "{err}");
    let out = parse(&["--block", "middle"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("'first' or 'last'"));
}
