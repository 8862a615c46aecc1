//! Options that several commands share, settled the same way in each (`--threads`, every
//! flag that takes seconds, every `--alphabet`, `--solver`, `--preset`), and the files of
//! long runs: a second run on the same output, the temporaries a killed run leaves, an
//! empty responses file.

use crate::common::*;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// A clap error on one flag: exit 2, no panic, the flag and `needle` named.
fn refused(o: &Output, flag: &str, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
    assert!(!err.contains("panicked"), "{flag}: {err}");
    assert!(err.contains(flag) && err.contains(needle), "{flag}: {err}");
}

/// The commands that take `--threads`, with their other required arguments.
const THREADED: [&[&str]; 5] = [
    &["generate"],
    &["generate", "--preset", "lite-vetted"],
    &["solve", "--dataset", "d.jsonl", "--out", "o.jsonl"],
    &["vet", "--dataset", "d.jsonl", "--out", "o.jsonl"],
    &["audit", "--dataset", "d.jsonl"],
];

/// `--threads 0` is refused by every command, with one message (it ran on all cores in
/// `generate` and was an error in `generate --preset lite-vetted`).
#[test]
fn threads_zero_is_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let demo: &[&str] = &["demo", "--out", "x"];
    for command in THREADED.iter().chain([&demo]) {
        let args: Vec<&str> = command.iter().copied().chain(["--threads", "0"]).collect();
        let o = pbebench_in(&args, dir.path());
        refused(&o, "--threads", "must be at least 1");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Every flag that takes seconds: huge values are refused like `nan`, `inf` and `0` (`1e19`
/// and `1e300` panicked in `solve --time-limit` and `audit --solver-time`).
#[test]
fn every_seconds_flag_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let flags: [(&[&str], &str); 9] = [
        (&["solve", "--dataset", "d", "--out", "o"], "--time-limit"),
        (&["solve", "--dataset", "d", "--out", "o"], "--status-every"),
        (&["audit", "--dataset", "d"], "--solver-time"),
        (&["audit", "--dataset", "d"], "--status-every"),
        (&["demo"], "--time-limit"),
        (&["generate"], "--status-every"),
        (&["vet", "--dataset", "d", "--out", "o"], "--status-every"),
        (
            &["eval", "--dataset", "d", "--solver-cmd", "true"],
            "--timeout",
        ),
        (
            &["eval", "--dataset", "d", "--solver-cmd", "true"],
            "--backoff",
        ),
    ];
    for (command, flag) in flags {
        for value in ["1e19", "1e300", "nan", "inf", "0"] {
            let args: Vec<&str> = command.iter().copied().chain([flag, value]).collect();
            let o = pbebench_in(&args, dir.path());
            refused(&o, flag, "is not a number of seconds above 0 and at most");
        }
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `parse --alphabet` reads names and ranges as `generate` and `equiv` do.
#[test]
fn every_alphabet_takes_names_and_ranges() {
    let response = b"```python\n[\"replace('a', '-')\", \"replace('l', 'i')\"]\n```\n";
    let valid = |alphabet: &str| {
        let o = pbebench_with_stdin(&["parse", "--alphabet", alphabet], response);
        assert!(o.status.success(), "{}", stderr(&o));
        let parsed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let rules = parsed["rules"].as_array().unwrap().clone();
        rules
            .iter()
            .map(|r| r["valid"].as_bool().unwrap())
            .collect::<Vec<bool>>()
    };
    // `-` is no letter of a-ku-z, nor `l` of Lite (a–k, u–z), though the word "lite"
    // holds it (read literally, `replace('l', 'i')` was valid).
    assert_eq!(valid("a-ku-z"), [false, false]);
    assert_eq!(valid("lite"), [false, false]);
    assert_eq!(valid("a-l-"), [true, true]);
    let dir = tempfile::tempdir().unwrap();
    for command in [
        &["parse"][..],
        &["generate"],
        &["equiv", "--cascade", "[]", "--cascade", "[]"],
        &["pairs", "--dir", "."],
    ] {
        let args: Vec<&str> = command
            .iter()
            .copied()
            .chain(["--alphabet", "aab"])
            .collect();
        let o = pbebench_in(&args, dir.path());
        refused(&o, "--alphabet", "twice");
    }
}

/// The preset list reads as one list, and `solve --help` lists the solvers.
#[test]
fn presets_and_solvers_are_listed() {
    let o = pbebench(&["generate", "--preset", "nope"]);
    refused(
        &o,
        "--preset",
        "unknown preset 'nope' (expected one of lite, lite-published, lite-moreeg, full, \
         full-25-30, lite-vetted, full-vetted)",
    );
    let help = stdout(&pbebench(&["solve", "--help"]));
    for (name, about) in pbebench_solve::SOLVERS {
        assert!(help.contains(&format!("- {name}:")), "{name}: {help}");
        assert!(help.contains(about.split(' ').next().unwrap()), "{help}");
    }
    for command in ["solve", "audit"] {
        let o = pbebench(&[command, "--dataset", "d", "--out", "o", "--solver", "nope"]);
        refused(&o, "--solver", "beam-v1");
    }
}

/// `export --out` the dataset it reads is refused, as every other command refuses it.
#[test]
fn export_keeps_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = pbebench_in(&["generate", "--size", "16", "--out", "d.jsonl"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(d.join("d.jsonl")).unwrap();
    for to in ["authors", "pbebench"] {
        let o = pbebench_in(
            &[
                "export",
                "--to",
                to,
                "--dataset",
                "d.jsonl",
                "--out",
                "./d.jsonl",
            ],
            d,
        );
        assert_fatal(&o, "--out ./d.jsonl is the file of --dataset d.jsonl");
        assert_eq!(std::fs::read(d.join("d.jsonl")).unwrap(), before);
    }
}

/// Starts `pbebench args` in `dir` and waits until `seen()`.
fn start_until(args: &[&str], dir: &Path, seen: impl Fn() -> bool) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    while !seen() {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("{args:?} ended ({status}) before it was seen at work: {err}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn kill(mut child: Child) {
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The temporary files in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".pbebench-"))
        .collect()
}

/// Starts a `generate` of the full preset (minutes) in `dir`, and waits until it writes
/// `out.jsonl`: it says so on standard error (`--status-every`), and its temporary file
/// beside the output is there. Returns it and the name of that file.
// (The child is returned to be killed and waited for by the caller.)
#[allow(clippy::zombie_processes)]
fn generating(dir: &Path, old: &[String]) -> (Child, String) {
    let args = [
        "generate",
        "--preset",
        "full",
        "--threads",
        "1",
        "--status-every",
        "0.01",
        "--out",
        "out.jsonl",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first status line comes after the check of the outputs (whose own temporary
    // file is gone by then), so the temporary file seen next is the output's.
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("generate:") {
        line.clear();
        if std::io::BufRead::read_line(&mut err, &mut line).unwrap() == 0 {
            kill(child);
            panic!("generate ended before it was seen at work");
        }
    }
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    loop {
        let new: Vec<String> = (temporaries(dir).into_iter())
            .filter(|t| !old.contains(t))
            .collect();
        if let [name] = new.as_slice() {
            return (child, name.clone());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A `generate` killed with SIGKILL leaves its temporary file; the next run of the same
/// output removes it (it neither removed nor reused it), and leaves a running writer's
/// alone.
#[test]
fn a_rerun_removes_the_temporaries_of_a_killed_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (killed, stale) = generating(d, &[]);
    kill(killed);
    assert_eq!(temporaries(d), std::slice::from_ref(&stale));
    assert!(stale.starts_with(".pbebench-out.jsonl."), "{stale}");
    // A writer of the same output at work: its temporary file is not touched.
    let (running, busy) = generating(d, std::slice::from_ref(&stale));
    let o = pbebench_in(&["generate", "--size", "16", "--out", "out.jsonl"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        temporaries(d),
        [busy],
        "the stale one removed, the busy one kept"
    );
    kill(running);
    let o = pbebench_in(&["generate", "--size", "16", "--out", "out.jsonl"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(temporaries(d), Vec::<String>::new());
}

/// A second `solve` or `vet` on the output a first one is writing is refused (exit 2),
/// saying another run holds it; both did all the work on one journal.
#[test]
fn one_run_at_a_time_per_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Instances no cascade within the limits fits, on which the search runs to its time
    // limit; and a Lite set, on which vetting takes minutes.
    let hard: String = (0..4)
        .map(|k| {
            format!(
                "{{\"id\":\"h{k}\",\"inputs\":[\"abcdef\",\"fedcba\",\"acebdf\",\"bdface\",\
                 \"cafebd\"],\"outputs\":[\"ffa\",\"cdeab\",\"bbbbbb\",\"eaf\",\"dcfa\"],\
                 \"max_rules\":5,\"max_rule_len\":3,\"alphabet\":\"abcdef\"}}\n"
            )
        })
        .collect();
    write(d, "hard.jsonl", &hard);
    let o = pbebench_in(&["generate", "--size", "16", "--out", "d.jsonl"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let runs: [&[&str]; 2] = [
        &[
            "solve",
            "--dataset",
            "hard.jsonl",
            "--out",
            "o.jsonl",
            "--threads",
            "1",
            "--time-limit",
            "600",
        ],
        &[
            "vet",
            "--dataset",
            "d.jsonl",
            "--out",
            "o.jsonl",
            "--threads",
            "1",
        ],
    ];
    for args in runs {
        let journal = d.join("o.jsonl.partial");
        let first = start_until(args, d, || journal.exists());
        let second = pbebench_in(args, d);
        assert_fatal(&second, "another run of this command is writing it");
        assert!(
            stderr(&second).contains("o.jsonl.partial"),
            "{}",
            stderr(&second)
        );
        kill(first);
        std::fs::remove_file(&journal).unwrap();
    }
}

/// An empty (or blank) responses file is an error naming it, not a table of zeros.
#[test]
fn an_empty_responses_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = pbebench_in(&["generate", "--size", "16", "--out", "d.jsonl"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    for text in ["", "\n \n"] {
        write(d, "r.jsonl", text);
        let o = pbebench_in(
            &["score", "--dataset", "d.jsonl", "--responses", "r.jsonl"],
            d,
        );
        assert_fatal(&o, "r.jsonl: holds no response line");
        assert!(stdout(&o).is_empty(), "no table: {}", stdout(&o));
    }
}
