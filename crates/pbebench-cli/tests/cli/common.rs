//! The fixture every test of the binary shares: running `pbebench`, reading what it said,
//! a scored Lite set, and the snapshot form of a run ([`snapshot`], [`pbebench_snapshot!`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `pbebench` with `args` and waits for it.
pub fn pbebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs `pbebench` with `args` in the directory `dir` (relative paths are its).
pub fn pbebench_in(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// Runs `pbebench` with `args`, `stdin` on its standard input.
pub fn pbebench_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A path as an argument.
pub fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
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

/// The files of a generated, solved and scored Lite set.
pub struct Scored {
    /// The dataset.
    pub data: PathBuf,
    /// Its generation statistics.
    pub stats: PathBuf,
    /// The solver's responses.
    pub responses: PathBuf,
    /// The scores' `results.json`.
    pub results: PathBuf,
    /// The scores' per-instance lines.
    pub per: PathBuf,
}

/// Generates a 32-instance Lite set with seed `seed` in `dir` (three held-out examples
/// each, and its statistics), solves it with the built-in solver and scores it.
pub fn scored_lite(dir: &Path, seed: &str) -> Scored {
    let p = |stem: &str, ext: &str| dir.join(format!("{stem}{seed}.{ext}"));
    let run = Scored {
        data: p("lite", "jsonl"),
        stats: p("stats", "json"),
        responses: p("resp", "jsonl"),
        results: p("results", "json"),
        per: p("per", "jsonl"),
    };
    let ok = |o: Output| assert!(o.status.success(), "{}", stderr(&o));
    ok(pbebench(&[
        "generate",
        "--preset",
        "lite",
        "--size",
        "32",
        "--patience",
        "2000",
        "--heldout",
        "3",
        "--seed",
        seed,
        "--out",
        &s(&run.data),
        "--stats-json",
        &s(&run.stats),
    ]));
    ok(pbebench(&[
        "solve",
        "--dataset",
        &s(&run.data),
        "--out",
        &s(&run.responses),
        "--time-limit",
        "1",
    ]));
    ok(pbebench(&[
        "score",
        "--dataset",
        &s(&run.data),
        "--responses",
        &s(&run.responses),
        "--out",
        &s(&run.results),
        "--per-instance",
        &s(&run.per),
    ]));
    run
}

/// What a run shows a user, in one text for a snapshot: its exit status, then standard
/// output and standard error, each `(from, to)` of `filters` replaced (temporary paths,
/// timings), as uv's `uv_snapshot!` shows a command.
pub fn snapshot(o: &Output, filters: &[(&str, &str)]) -> String {
    let filter = |text: String| {
        filters
            .iter()
            .fold(text, |text, (from, to)| text.replace(from, to))
    };
    format!(
        "success: {}\nexit_code: {}\n----- stdout -----\n{}\n----- stderr -----\n{}",
        o.status.success(),
        o.status.code().map_or("none".to_owned(), |c| c.to_string()),
        filter(stdout(o)),
        filter(stderr(o)),
    )
}

/// Runs `pbebench` with the arguments in `dir` and checks what it shows against the
/// snapshot `name` (in `tests/cli/snapshots/`), `dir` written as `[DIR]`; returns the
/// run.
#[macro_export]
macro_rules! pbebench_snapshot {
    ($name:expr, $dir:expr, $args:expr) => {{
        let dir: &std::path::Path = $dir;
        let output = $crate::common::pbebench_in($args, dir);
        let shown = $crate::common::snapshot(&output, &[(&dir.display().to_string(), "[DIR]")]);
        insta::assert_snapshot!($name, shown);
        output
    }};
}

/// A responses file for `data` in which every instance gets an empty answer: a solver that
/// answered nothing (an empty responses file is refused as the wrong file).
pub fn empty_answers(data: &Path) -> String {
    std::fs::read_to_string(data)
        .unwrap()
        .lines()
        .map(|line| {
            let inst: serde_json::Value = serde_json::from_str(line).unwrap();
            serde_json::json!({ "id": inst["id"], "response": "" }).to_string() + "\n"
        })
        .collect()
}
