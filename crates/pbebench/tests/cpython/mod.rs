//! Running a check in CPython, for the tests that compare with it: the cases go to a
//! script as a JSON file, and its answers come back as JSON. Python is required: a test
//! fails when `python3` cannot be run.

use serde_json::Value;
use std::process::Command;

/// Runs the Python `script` with the path of a JSON file holding `cases` and the path it
/// must write its JSON answer to; returns the answer.
pub fn run_python(script: &str, cases: &Value) -> Value {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("cases.json");
    let output = dir.path().join("answers.json");
    std::fs::write(&input, serde_json::to_vec(cases).unwrap()).unwrap();
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&input)
        .arg(&output)
        .status()
        .unwrap_or_else(|e| {
            panic!("cannot run python3 ({e}): these checks compare with CPython; install python3")
        });
    assert!(status.success(), "python3 failed on the cases: {status}");
    let text = std::fs::read_to_string(&output).expect("python3 wrote its answers");
    serde_json::from_str(&text).expect("python3 wrote JSON")
}
