//! `pbebench vet`, `generate --preset lite-vetted` and the audit's identifiability check on
//! real files: the published Lite line the issue names, thread counts, bad input.

use crate::common::*;
use std::path::Path;

/// The published Lite file's line 28 (index 27), in the authors' format: gold jd→yx,
/// dy→dgy; jd→gyx fits its five examples (the authors' data, CC BY-SA 4.0).
const LINE_27: &str = r#"{"inputs": ["cubi", "hhd", "hfdjd", "agg", "cwb"], "outputs": ["cubi", "hhd", "hfdgyx", "agg", "cwb"], "programs": ["replace(\"jd\", \"yx\")", "replace(\"dy\", \"dgy\")"], "cascade_length": 2, "bfcc_category": "1100"}"#;

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_issue_example_gets_its_counterexample_and_the_audit_sees_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = write(d, "l27.jsonl", &format!("{LINE_27}\n"));
    let args = [
        "audit",
        "--dataset",
        &s(&data),
        "--no-solver",
        "--panel",
        "memoriser",
        "--out",
        "-",
    ];
    let o = pbebench(&args);
    // Ambiguous, and the verdict says so: exit 1, one line on the failed gate.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("audit FAILED ambiguous: 100% (1 of 1)"),
        "{}",
        stderr(&o)
    );
    let audit: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = &audit["identifiability"];
    assert_eq!(
        (id["checked"].as_u64(), id["ambiguous"].as_u64()),
        (Some(1), Some(1))
    );
    let w = &id["examples"][0]["witness"];
    assert_eq!(w["counterexample"], "dy");
    assert_eq!(
        (w["gold_output"].as_str(), w["found_output"].as_str()),
        (Some("dgy"), Some("dy"))
    );
    assert!(
        stderr(&o).contains("ambiguous                  1 of 1 (100.0% [20.7%, 100%])"),
        "{}",
        stderr(&o)
    );

    let out = d.join("v.jsonl");
    let o = pbebench(&[
        "vet",
        "--dataset",
        &s(&data),
        "--out",
        &s(&out),
        "--panel",
        "memoriser,beam@200",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = &lines(&out)[0];
    assert!(
        v["inputs"].as_array().unwrap().contains(&"dy".into()),
        "{v}"
    );
    assert_eq!(v["repair"]["added"][0]["input"], "dy");
    assert_eq!(v["repair"]["added"][0]["attacker"], "memoriser");
    assert_eq!(v["repair"]["examples_before"], 5);
    // The snapshot reads as a dataset.
    let o = pbebench(&["inspect", &s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn vetting_does_not_depend_on_the_thread_count_and_replaces_within_quota() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = d.join("lite.jsonl");
    let o = pbebench(&[
        "generate",
        "--size",
        "32",
        "--seed",
        "4",
        "--out",
        &s(&data),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let out = d.join(format!("v{threads}.jsonl"));
        let o = pbebench(&[
            "vet",
            "--dataset",
            &s(&data),
            "--out",
            &s(&out),
            "--panel",
            "shortcuts",
            "--max-examples",
            "6",
            "--seed",
            "3",
            "--threads",
            threads,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("vet: 32 instances → 32 kept"),
            "{}",
            stderr(&o)
        );
        outs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outs[0], outs[1]);
    // Shards (`--shard K/N`) concatenated in order are the whole run, byte for byte.
    let vet_shard = |shard: &str, out: &Path| {
        pbebench(&[
            "vet",
            "--dataset",
            &s(&data),
            "--out",
            &s(out),
            "--panel",
            "shortcuts",
            "--max-examples",
            "6",
            "--seed",
            "3",
            "--threads",
            "1",
            "--shard",
            shard,
        ])
    };
    let mut joined = Vec::new();
    for k in 0..3 {
        let out = d.join(format!("shard{k}.jsonl"));
        let o = vet_shard(&format!("{k}/3"), &out);
        assert!(o.status.success(), "{}", stderr(&o));
        joined.extend(std::fs::read(&out).unwrap());
    }
    assert!(joined == outs[0], "the shards differ from the whole run");
    assert_fatal(
        &vet_shard("3/3", &d.join("bad.jsonl")),
        "shard 3/3 is not a shard: need 0 <= K < N",
    );
    let vetted = lines(&d.join("v1.jsonl"));
    let original = lines(&data);
    let replaced: Vec<_> = vetted
        .iter()
        .filter(|v| !v["repair"]["replaced"].is_null())
        .collect();
    assert!(!replaced.is_empty());
    for v in &replaced {
        let slot = original.iter().find(|o| o["id"] == v["id"]).unwrap();
        assert_eq!(v["category"], slot["category"]);
    }
}

#[test]
fn the_vetted_preset_is_one_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("lv.jsonl");
    let stats = d.join("lv.stats.json");
    let o = pbebench(&[
        "generate",
        "--preset",
        "lite-vetted",
        "--size",
        "16",
        "--seed",
        "1",
        "--panel",
        "shortcuts",
        "--out",
        &s(&out),
        "--stats-json",
        &s(&stats),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let vetted = lines(&out);
    assert_eq!(vetted.len(), 16);
    assert!(vetted.iter().all(|v| v["repair"]["max_examples"] == 12));
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(stats["vet"]["kept"], 16);
    assert_eq!(stats["params"]["name"], "lite");
    let o = pbebench(&["generate", "--preset", "lite", "--max-examples", "9"]);
    assert_fatal(&o, "--max-examples applies to the vetted presets");
    let o = pbebench(&["generate", "--preset", "nope-vetted"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("full-25-30, lite-vetted, full-vetted)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = write(d, "l27.jsonl", &format!("{LINE_27}\n"));
    let out = s(&d.join("v.jsonl"));
    let vet = |extra: &[&str]| {
        let mut args = vec!["vet", "--dataset", &data.to_str().unwrap(), "--out", &out];
        args.extend_from_slice(extra);
        pbebench(&args)
    };
    assert_fatal(
        &vet(&["--max-examples", "4"]),
        "--max-examples 4 is smaller than the 5 visible examples of instance '0'",
    );
    assert_fatal(
        &vet(&["--replacements", "5000"]),
        "--replacements 5000 is more than",
    );
    assert_fatal(
        &vet(&["--panel", "beam@300,oracle"]),
        "unknown panel member 'oracle'",
    );
    assert_fatal(&vet(&["--panel", "beam@0"]), "panel member 'beam@0'");
    let real = write(d, "real.jsonl", "{\"id\": \"w\", \"inputs\": [\"ab\"], \"outputs\": [\"b\"], \"max_rules\": 5, \"max_rule_len\": 3, \"alphabet\": \"ab\"}\n");
    let o = pbebench(&["vet", "--dataset", &s(&real), "--out", &out]);
    assert_fatal(
        &o,
        "instance 'w' (instance 1 of the dataset) has no gold cascade",
    );
    let o = pbebench(&[
        "vet",
        "--dataset",
        &s(&d.join("missing.jsonl")),
        "--out",
        &out,
    ]);
    assert_fatal(&o, "missing.jsonl");
    assert!(!Path::new(&out).exists());
    let o = pbebench(&[
        "audit",
        "--dataset",
        &s(&data),
        "--panel",
        "beam",
        "--no-solver",
    ]);
    assert_fatal(&o, "--panel");
}
