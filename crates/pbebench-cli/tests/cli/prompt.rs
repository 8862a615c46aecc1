//! `pbebench prompt` run as a binary.

use crate::common::pbebench_in as pbebench;
use serde_json::Value;

const DATA: &str = r#"{"id": "a", "inputs": ["ab", "it's"], "outputs": ["c", "b"], "max_rules": 5, "max_rule_len": 3, "alphabet": "abcist'", "heldout_inputs": ["SECRET"], "heldout_outputs": ["SECRET"]}
{"inputs": ["xbu", "kib"], "outputs": ["xhu", "kih"], "programs": ["replace(\"b\", \"h\")"], "cascade_length": 1}
"#;

#[test]
fn one_prompt_line_per_instance() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.jsonl"), DATA).unwrap();
    let out = pbebench(&["prompt", "--dataset", "data.jsonl"], dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "a");
    assert_eq!(lines[1]["id"], "1");
    let prompt = lines[0]["prompt"].as_str().unwrap();
    assert_eq!(lines[0]["messages"][0]["role"], "user");
    assert_eq!(lines[0]["messages"][0]["content"].as_str().unwrap(), prompt);
    assert!(prompt.contains("['ab', \"it's\"]"), "{prompt}");
    assert!(prompt.contains("no more than 5 rules"));
    assert!(!prompt.contains("SECRET"));
    assert!(lines[1]["prompt"]
        .as_str()
        .unwrap()
        .contains("['xbu', 'kib']"));
}

#[test]
fn user_templates_and_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("data.jsonl"), DATA).unwrap();
    std::fs::write(
        d.join("t.txt"),
        "{{json}} {inputs} -> {outputs} ({max_rules}, {max_rule_len}, {alphabet})",
    )
    .unwrap();
    let out = pbebench(
        &[
            "prompt",
            "--dataset",
            "data.jsonl",
            "--template",
            "t.txt",
            "--out",
            "p.jsonl",
        ],
        d,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(d.join("p.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["prompt"],
        "{json} ['ab', \"it's\"] -> ['c', 'b'] (5, 3, abcist')"
    );

    std::fs::write(d.join("bad.txt"), "{inputs} {examples} {n}").unwrap();
    let out = pbebench(
        &["prompt", "--dataset", "data.jsonl", "--template", "bad.txt"],
        d,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.txt") && err.contains("{examples}, {n}"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1);

    let out = pbebench(&["prompt", "--print-template"], d);
    assert!(out.status.success());
    let template = String::from_utf8(out.stdout).unwrap();
    for p in [
        "{inputs}",
        "{outputs}",
        "{max_rules}",
        "{max_rule_len}",
        "{alphabet}",
        "```python",
    ] {
        assert!(template.contains(p), "{p}");
    }

    let out = pbebench(&["prompt"], d);
    assert_eq!(out.status.code(), Some(2), "--dataset is required");
}

#[test]
fn a_template_without_the_examples_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("data.jsonl"), DATA).unwrap();
    std::fs::write(d.join("t.txt"), "Solve it: {outputs}").unwrap();
    let out = pbebench(
        &["prompt", "--dataset", "data.jsonl", "--template", "t.txt"],
        d,
    );
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: t.txt: the template never uses {inputs}"),
        "{err}"
    );
    assert!(!err.contains("{outputs}"), "{err}");
}

/// `--template authors` gives the authors' released prompts: every prompt of their
/// `real_sli_promptsfile.json`, byte for byte, from `pbebench pairs` of their word lists.
#[test]
fn the_authors_template_gives_their_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let real = pbebench_testdata::path("real_sli");
    let pairs = pbebench(
        &[
            "pairs",
            "--dir",
            &real.display().to_string(),
            "--out",
            "real.jsonl",
        ],
        d,
    );
    assert!(
        pairs.status.success(),
        "{}",
        String::from_utf8_lossy(&pairs.stderr)
    );
    let out = pbebench(
        &["prompt", "--dataset", "real.jsonl", "--template", "authors"],
        d,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let theirs: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(real.join("real_sli_promptsfile.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (mine, published) in ours.iter().zip(&theirs) {
        assert!(mine["prompt"] == published["prompt"], "{}", mine["id"]);
    }
    // The built-in template prints; a file named like it is ./authors.
    let printed = pbebench(&["prompt", "--print-template", "authors"], d);
    assert_eq!(
        String::from_utf8(printed.stdout).unwrap(),
        pbebench::AUTHORS_TEMPLATE
    );
    std::fs::write(d.join("authors"), "mine: {inputs} {outputs}").unwrap();
    let own = pbebench(
        &[
            "prompt",
            "--dataset",
            "real.jsonl",
            "--template",
            "./authors",
        ],
        d,
    );
    let first: Value = serde_json::from_str(
        String::from_utf8(own.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(first["prompt"].as_str().unwrap().starts_with("mine: ["));
}
