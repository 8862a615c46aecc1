//! Helpers shared by the integration tests that run the real `pbebench` binary.
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `pbebench` with `args` and waits for it.
pub fn pbebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A path as an argument.
pub fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A fatal input error: exit 2, one `error:` line naming the problem, no panic.
pub fn assert_fatal(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "expected a fatal error with {needle}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains(needle), "expected '{needle}' in: {err}");
}
