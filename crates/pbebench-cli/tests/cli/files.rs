//! What every command does with the files it is given, through the shared mechanisms of
//! `pbebench-io`: a directory where a file is read ends at once with one line, an output
//! that is one of the inputs is refused before it is touched, every output is checked
//! before the work, and an OS error is said once.

use crate::common::*;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `pbebench` in `dir`, failing the test when it has not ended after `limit` (it is
/// killed then).
fn pbebench_within(args: &[&str], dir: &Path, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("{args:?} had not ended after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A small generated Lite set, its responses by the solver and their scores, in `dir`
/// under fixed names.
fn files(dir: &Path) {
    let ok = |o: Output| assert!(o.status.success(), "{}", stderr(&o));
    ok(pbebench_in(
        &[
            "generate", "--size", "16", "--seed", "1", "--out", "d.jsonl",
        ],
        dir,
    ));
    ok(pbebench_in(
        &[
            "solve",
            "--dataset",
            "d.jsonl",
            "--out",
            "r.jsonl",
            "--time-limit",
            "1",
        ],
        dir,
    ));
    ok(pbebench_in(
        &[
            "score",
            "--dataset",
            "d.jsonl",
            "--responses",
            "r.jsonl",
            "--out",
            "s.json",
            "--per-instance",
            "p.jsonl",
        ],
        dir,
    ));
    write(dir, "t.txt", "{inputs} -> {outputs}\n");
    write(dir, "w.in", "ab\nba\n");
    write(dir, "w.out", "b\na\n");
}

/// Every reader given a directory for a file: one line saying so, exit 2, at once (the
/// statistics of `inspect` read on after a bad line, and looped on the directory's error
/// while their memory grew).
#[test]
fn a_directory_for_a_file_is_one_line_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    files(d);
    std::fs::create_dir(d.join("sub")).unwrap();
    let commands: [&[&str]; 11] = [
        &["inspect", "sub"],
        &["score", "--dataset", "sub", "--responses", "r.jsonl"],
        &["score", "--dataset", "d.jsonl", "--responses", "sub"],
        &["prompt", "--dataset", "sub"],
        &["prompt", "--dataset", "d.jsonl", "--template", "sub"],
        &["solve", "--dataset", "sub", "--out", "o.jsonl"],
        &["audit", "--dataset", "sub", "--no-solver"],
        &[
            "pairs",
            "--inputs",
            "sub",
            "--outputs",
            "w.out",
            "--name",
            "x",
            "--out",
            "o.jsonl",
        ],
        &["apply", "--cascade", "@sub", "ab"],
        &[
            "report",
            "--results",
            "p.jsonl",
            "--generation-stats",
            "sub",
            "--out",
            "rep",
        ],
        &[
            "report",
            "--results",
            "p.jsonl",
            "--audit",
            "sub",
            "--out",
            "rep",
        ],
    ];
    for args in commands {
        let o = pbebench_within(args, d, Duration::from_secs(60));
        assert_fatal(&o, "sub");
        assert!(
            stderr(&o).contains("is a directory"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// An OS error is said once, however many layers of context the message went through.
#[test]
fn os_errors_are_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    files(d);
    let missing = "No such file or directory (os error 2)";
    for (args, file) in [
        (
            &["score", "--dataset", "d.jsonl", "--responses", "nope.jsonl"][..],
            "nope.jsonl",
        ),
        (
            &["prompt", "--dataset", "d.jsonl", "--template", "nope.txt"][..],
            "nope.txt",
        ),
        (&["inspect", "nope.jsonl"][..], "nope.jsonl"),
    ] {
        let o = pbebench_in(args, d);
        assert_fatal(&o, file);
        assert_eq!(
            stderr(&o),
            format!("error: {file}: {missing}\n"),
            "{args:?}"
        );
    }
}

/// An output naming one of the command's inputs (by another spelling, or a link) is
/// refused before it is written: the input is left as it was. So is an output that
/// another output of the same command also names.
#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    files(d);
    std::os::unix::fs::symlink("d.jsonl", d.join("link.jsonl")).unwrap();
    let cases: [(&[&str], &str); 11] = [
        (
            &["solve", "--dataset", "d.jsonl", "--out", "d.jsonl"],
            "--out d.jsonl is the file of --dataset d.jsonl",
        ),
        (
            &["solve", "--dataset", "d.jsonl", "--out", "./link.jsonl"],
            "is the file of --dataset",
        ),
        (
            &[
                "solve",
                "--dataset",
                "d.jsonl",
                "--out",
                "o.jsonl",
                "--stats-json",
                "d.jsonl",
            ],
            "--stats-json d.jsonl is the file of --dataset",
        ),
        (
            &["prompt", "--dataset", "d.jsonl", "--out", "d.jsonl"],
            "is the file of --dataset",
        ),
        (
            &[
                "prompt",
                "--dataset",
                "d.jsonl",
                "--template",
                "t.txt",
                "--out",
                "t.txt",
            ],
            "is the file of --template",
        ),
        (
            &[
                "score",
                "--dataset",
                "d.jsonl",
                "--responses",
                "r.jsonl",
                "--per-instance",
                "r.jsonl",
            ],
            "--per-instance r.jsonl is the file of --responses",
        ),
        (
            &[
                "score",
                "--dataset",
                "d.jsonl",
                "--responses",
                "r.jsonl",
                "--out",
                "x.json",
                "--per-instance",
                "x.json",
            ],
            "--out x.json and --per-instance x.json are the same file",
        ),
        (
            &[
                "audit",
                "--dataset",
                "d.jsonl",
                "--out",
                "d.jsonl",
                "--no-solver",
            ],
            "is the file of --dataset",
        ),
        (
            &[
                "audit",
                "--dataset",
                "d.jsonl",
                "--results",
                "p.jsonl",
                "--out",
                "p.jsonl",
                "--no-solver",
            ],
            "is the file of --results",
        ),
        (
            &[
                "pairs",
                "--inputs",
                "w.in",
                "--outputs",
                "w.out",
                "--name",
                "x",
                "--out",
                "w.out",
            ],
            "is the file of --outputs",
        ),
        (
            &[
                "generate",
                "--size",
                "16",
                "--out",
                "g.jsonl",
                "--stats-json",
                "g.jsonl",
            ],
            "are the same file",
        ),
    ];
    let before = |name: &str| std::fs::read(d.join(name)).unwrap();
    let kept: Vec<(&str, Vec<u8>)> = ["d.jsonl", "r.jsonl", "t.txt", "p.jsonl", "w.out"]
        .into_iter()
        .map(|n| (n, before(n)))
        .collect();
    for (args, needle) in cases {
        let o = pbebench_in(args, d);
        assert_fatal(&o, needle);
        assert!(
            stderr(&o).contains("choose another path") || stderr(&o).contains("different paths"),
            "{}",
            stderr(&o)
        );
        for (name, bytes) in &kept {
            assert_eq!(&before(name), bytes, "{args:?} changed {name}");
        }
    }
    assert!(!d.join("g.jsonl").exists() && !d.join("x.json").exists());
    // A report written into the directory of its results must not overwrite them.
    std::fs::create_dir(d.join("rep")).unwrap();
    std::fs::copy(d.join("p.jsonl"), d.join("rep/report.json")).unwrap();
    let o = pbebench_in(
        &["report", "--results", "rep/report.json", "--out", "rep"],
        d,
    );
    assert_fatal(
        &o,
        "--out's report.json rep/report.json is the file of --results",
    );
}

/// An output that cannot be written fails before the work, not after it (`solve` used to
/// solve the whole set, write the responses and only then fail on its statistics).
#[test]
fn outputs_are_checked_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    files(d);
    let cases: [&[&str]; 6] = [
        &[
            "solve",
            "--dataset",
            "d.jsonl",
            "--out",
            "o.jsonl",
            "--stats-json",
            "no/dir/s.jsonl",
        ],
        &["solve", "--dataset", "d.jsonl", "--out", "no/dir/o.jsonl"],
        &[
            "generate",
            "--size",
            "16",
            "--out",
            "o.jsonl",
            "--stats-json",
            "no/dir/s.json",
        ],
        &[
            "score",
            "--dataset",
            "d.jsonl",
            "--responses",
            "r.jsonl",
            "--per-instance",
            "no/dir/p.jsonl",
        ],
        &["prompt", "--dataset", "d.jsonl", "--out", "no/dir/p.jsonl"],
        &[
            "pairs",
            "--inputs",
            "w.in",
            "--outputs",
            "w.out",
            "--name",
            "x",
            "--out",
            "no/dir/x.jsonl",
        ],
    ];
    for args in cases {
        let o = pbebench_in(args, d);
        assert_fatal(&o, "no/dir/");
        assert!(
            stderr(&o).contains("cannot write there"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(
            !d.join("o.jsonl").exists(),
            "{args:?} wrote its first output"
        );
    }
    write(d, "file", "");
    for args in [
        &["report", "--results", "p.jsonl", "--out", "file/rep"][..],
        &["demo", "--out", "file/demo"][..],
    ] {
        let o = pbebench_in(args, d);
        assert_fatal(&o, "file/");
        assert!(
            stderr(&o).contains("is not a directory"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// A label is free text (a model's name holds `/`); `eval` refuses a dataset inside its run
/// directory under the name of the file it writes there.
#[test]
fn labels_are_free_text_and_eval_keeps_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    files(d);
    let o = pbebench_in(
        &[
            "report",
            "--results",
            "Qwen/Qwen3-8B=p.jsonl",
            "--out",
            "rep",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Qwen/Qwen3-8B"), "{}", stdout(&o));
    std::fs::create_dir(d.join("run")).unwrap();
    std::fs::copy(d.join("d.jsonl"), d.join("run/results.json")).unwrap();
    let o = pbebench_in(
        &[
            "eval",
            "--dataset",
            "run/results.json",
            "--solver-cmd",
            "true",
            "--run",
            "run",
        ],
        d,
    );
    assert_fatal(
        &o,
        "--run's results.json run/results.json is the file of --dataset",
    );
}
