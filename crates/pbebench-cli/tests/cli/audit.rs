//! `pbebench audit` on real files: gate failures, results panels, and bad input.

use crate::common::*;
use std::path::{Path, PathBuf};

fn flawed() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pbebench-vet/tests/fixtures/flawed.jsonl")
        .display()
        .to_string()
}

/// A scored Lite set (seed): (dataset, results.json, per-instance.jsonl).
fn scored(dir: &Path, seed: &str) -> (PathBuf, PathBuf, PathBuf) {
    let run = scored_lite(dir, seed);
    (run.data, run.results, run.per)
}

#[test]
fn a_failed_gate_exits_1_and_the_json_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("audit.json");
    let o = pbebench(&[
        "audit",
        "--dataset",
        &flawed(),
        "--out",
        &s(&out),
        "--no-solver",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("FAILED gate(s): gold, dummy"), "{text}");
    assert!(text.contains("bad-gold"), "{text}");
    assert!(text.contains("twin-1 = twin-2"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["passed"], false);
    assert_eq!(json["gates"]["gold"]["failures"]["count"], 1);
    assert_eq!(json["instances"], 7);
}

#[test]
fn a_panel_of_results_gives_calibration() {
    let dir = tempfile::tempdir().unwrap();
    let (data, results, per) = scored(dir.path(), "5");
    let out = dir.path().join("audit.json");
    let panel = format!("beam={},{}", s(&results), s(&per));
    let o = pbebench(&[
        "audit",
        "--dataset",
        &s(&data),
        "--results",
        &panel,
        "--out",
        &s(&out),
        "--solver-nodes",
        "50",
    ]);
    // A plain Lite set fails the verdict (it is ambiguous): exit 1, and each failed gate
    // said in one line on standard error.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let failed: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("audit FAILED "))
        .collect();
    assert!(
        failed
            .iter()
            .any(|l| l.starts_with("audit FAILED ambiguous: ")
                && l.ends_with("allowed (--max-ambiguous)")),
        "{err}"
    );
    let text = stdout(&o);
    assert!(text.contains("FAILED gate(s): "), "{text}");
    assert!(
        text.contains("calibration (panel: beam; 32 instances scored)"),
        "{text}"
    );
    // One solver cannot be judged for collapse.
    assert!(
        text.contains("collapse: not evaluated: calibration needs scored results of at least 2 solvers (--results), 1 given"),
        "{text}"
    );
    assert!(text.contains("passing answers of 'beam'"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["calibration"]["panel"][0], "beam");
    assert_eq!(json["shortcuts"]["baselines"].as_array().unwrap().len(), 3);
    assert_eq!(json["gates"]["dummy"]["passed"], true);
    assert_eq!(json["passed"], false);
    assert_eq!(json["verdict"]["thresholds"]["max_ambiguous"], 0.05);
    let flagged = json["verdict"]["flagged"].as_array().unwrap();
    assert!(!flagged.is_empty());
    assert!(flagged
        .iter()
        .all(|f| !f["flags"].as_array().unwrap().is_empty()));

    // Thresholds are flags: allowing everything passes the same set.
    let o = pbebench(&[
        "audit",
        "--dataset",
        &s(&data),
        "--results",
        &panel,
        "--out",
        &s(&out),
        "--no-solver",
        "--max-ambiguous",
        "1",
        "--max-shortcut",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("every gate passed"), "{}", stdout(&o));
    assert!(!stderr(&o).contains("audit FAILED"), "{}", stderr(&o));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (data, results, per) = scored(d, "7");
    let out = s(&d.join("audit.json"));
    let audit = |extra: &[&str]| {
        let mut args = vec!["audit", "--out", &out, "--no-solver"];
        args.extend_from_slice(extra);
        pbebench(&args)
    };

    let empty = d.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert_fatal(&audit(&["--dataset", &s(&empty)]), "no instances");
    let broken = d.join("broken.jsonl");
    std::fs::write(&broken, "{\"inputs\": [\n").unwrap();
    assert_fatal(&audit(&["--dataset", &s(&broken)]), "broken.jsonl:1");
    assert_fatal(
        &audit(&["--dataset", &s(&d.join("missing.jsonl"))]),
        "missing.jsonl",
    );

    // Results of another dataset with the same ids (another seed).
    let (_, _, other_per) = scored(d, "8");
    assert_fatal(
        &audit(&["--dataset", &s(&data), "--results", &s(&other_per)]),
        "another dataset",
    );
    // A summary alone cannot calibrate.
    assert_fatal(
        &audit(&["--dataset", &s(&data), "--results", &s(&results)]),
        "holds only a summary",
    );
    // Empty and malformed results files.
    assert_fatal(
        &audit(&["--dataset", &s(&data), "--results", &s(&empty)]),
        "empty",
    );
    let garbage = d.join("garbage.jsonl");
    std::fs::write(&garbage, "{\"id\": \"x\"}\nnot json\n").unwrap();
    assert_fatal(
        &audit(&["--dataset", &s(&data), "--results", &s(&garbage)]),
        "garbage.jsonl:1",
    );
    // A summary and per-instance lines of different runs.
    let (_, other_results, _) = scored(d, "9");
    assert_fatal(
        &audit(&[
            "--dataset",
            &s(&data),
            "--results",
            &format!("{},{}", s(&other_results), s(&per)),
        ]),
        "not from the same run",
    );
    // Bad parameters.
    assert_fatal(
        &audit(&["--dataset", &s(&data), "--shorter-ratio", "2"]),
        "--shorter-ratio",
    );
    assert_fatal(
        &audit(&["--dataset", &s(&data), "--solver", "nope"]),
        "invalid value 'nope' for '--solver <SOLVER>'",
    );
    for flag in [
        "--max-dummy",
        "--max-shortcut",
        "--max-ambiguous",
        "--max-collapsed",
    ] {
        let o = audit(&["--dataset", &s(&data), flag, "5"]);
        assert_fatal(
            &o,
            &format!("{flag} must be a share from 0 to 1 (0.05 for 5%), not 5"),
        );
    }

    // Unknown ids and missing instances are warnings, listed; the audit goes on.
    let text = std::fs::read_to_string(&per).unwrap();
    let mut lines: Vec<String> = text.lines().skip(1).map(str::to_owned).collect();
    lines[0] = lines[0].replacen("\"id\":\"", "\"id\":\"stranger-", 1);
    let partial = d.join("partial.jsonl");
    std::fs::write(&partial, lines.join("\n") + "\n").unwrap();
    let o = audit(&[
        "--dataset",
        &s(&data),
        "--results",
        &s(&partial),
        "--panel",
        "none",
    ]);
    // Not fatal: the verdict is given (a plain Lite set fails its shortcut gates).
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning:") && err.contains("stranger-"),
        "{err}"
    );
    assert!(err.contains("no result for 2"), "{err}");
    assert!(stdout(&o).contains("warnings"), "listed in the report too");
}
