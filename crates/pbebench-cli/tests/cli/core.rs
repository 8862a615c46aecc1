//! The real `pbebench` binary on real files: generate, apply, relations, inspect.

use crate::common::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A published reference file, shipped in `testdata/pbebench-official/`.
fn published(name: &str) -> PathBuf {
    pbebench_testdata::path(name)
}

const SMALL: [&str; 8] = [
    "generate",
    "--preset",
    "lite",
    "--size",
    "48",
    "--patience",
    "20000",
    "--heldout=3",
];

#[test]
fn generate_is_identical_across_threads_and_shards() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let run = |extra: &[&str], out: &str| {
        let mut args: Vec<&str> = SMALL.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out]);
        let o = pbebench(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(out).unwrap()
    };
    let one = run(
        &["--threads", "1", "--stats-json", &path("stats.json")],
        &path("one.jsonl"),
    );
    let two = run(&["--threads", "2"], &path("two.jsonl"));
    assert_eq!(one, two);
    let mut shards = Vec::new();
    for k in 0..3 {
        shards.extend(run(
            &["--shard", &format!("{k}/3")],
            &path(&format!("shard{k}.jsonl")),
        ));
    }
    assert_eq!(shards, one);
    assert_eq!(String::from_utf8(one).unwrap().lines().count(), 48);
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path("stats.json")).unwrap()).unwrap();
    let s = &stats["stats"];
    for key in [
        "attempts",
        "accepted",
        "seconds",
        "efficiency",
        "rejections",
        "categories_by_length",
        "kl_overall",
    ] {
        assert!(!s[key].is_null(), "stats lack {key}: {s}");
    }
    assert_eq!(s["accepted"], 48);
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn generate_to_stdout_matches_file_and_inspects_clean() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("d.jsonl");
    let o = pbebench(&SMALL);
    assert!(o.status.success());
    let mut args = SMALL.to_vec();
    args.extend_from_slice(&["--out", file.to_str().unwrap()]);
    assert!(pbebench(&args).status.success());
    assert_eq!(o.stdout, std::fs::read(&file).unwrap());
    let o = pbebench(&["inspect", file.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stdout(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["instances"], 48);
    assert_eq!(summary["with_heldout"], 48);
    assert_eq!(summary["kl_from_uniform"], 0.0);
}

#[test]
fn bad_generate_parameters_exit_2_naming_the_parameter() {
    for (args, needle) in [
        (vec!["--input-len", "6..2"], "--input-len"),
        (vec!["--size", "30"], "--size"),
        (vec!["--shard", "4/4"], "--shard"),
        (vec!["--alphabet", "a"], "--alphabet"),
        (vec!["--cascade-len", "5..2"], "--cascade-len"),
        (vec!["--cascade-len", "2..9"], "--max-rules"),
        (vec!["--preset", "huge"], "huge"),
    ] {
        let mut all = vec!["generate"];
        all.extend(args.iter());
        let o = pbebench(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_generation_that_cannot_progress_stops() {
    let o = pbebench(&[
        "generate",
        "--alphabet",
        "ab",
        "--input-len",
        "2..2",
        "--examples",
        "2",
        "--cascade-len",
        "1",
        "--rule-len",
        "2..2",
        "--balance",
        "length",
        "--size",
        "1000",
        "--patience",
        "10",
        "--max-rules",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot progress"), "{}", stderr(&o));
}

#[test]
fn apply_reads_arguments_or_stdin() {
    let o = pbebench(&[
        "apply",
        "--cascade",
        r#"[["aa","b"],["b",""]]"#,
        "aaa",
        "xaax",
    ]);
    assert_eq!(stdout(&o), "a\nxx\n");
    let o = pbebench_with_stdin(
        &["apply", "--cascade", r#"[["é","e"]]"#],
        "café\nété\n".as_bytes(),
    );
    assert_eq!(stdout(&o), "cafe\nete\n");
    let o = pbebench(&["apply", "--cascade", r#"[["", "x"]]"#, "a"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("must not be empty"), "{}", stderr(&o));
}

#[test]
fn relations_json_has_matrices_and_category() {
    let o = pbebench(&[
        "relations",
        "--cascade",
        r#"[["a","b"],["b","c"]]"#,
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["feeds"],
        serde_json::json!([[false, true], [false, false]])
    );
    assert_eq!(
        v["bleeds"],
        serde_json::json!([[false, false], [false, false]])
    );
    assert_eq!(v["category"], "1000");
    // The formula and the exact classifier disagree on a→ε feeding aa.
    let cascade = r#"[["a",""],["aa","x"]]"#;
    let exact = stdout(&pbebench(&[
        "relations",
        "--cascade",
        cascade,
        "--format",
        "json",
    ]));
    let paper = stdout(&pbebench(&[
        "relations",
        "--cascade",
        cascade,
        "--format",
        "json",
        "--mode",
        "paper",
    ]));
    assert!(exact.contains(r#""feeds":[[false,false]"#), "{exact}");
    assert!(paper.contains(r#""feeds":[[false,true]"#), "{paper}");
}

#[test]
fn inspect_reads_the_published_file_and_compares_relations() {
    let file = published("adaptive_balanced_1008_complete.jsonl");
    let o = pbebench(&[
        "inspect",
        file.to_str().unwrap(),
        "--compare-relations",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Counts and the mean changed examples per rule as a plain Python script computes them
    // from the file (`cascade_length` fields; `str.replace` over `programs`); `differ` as
    // measured when the figure was first reported (docs/semantics.md, "Two classifiers").
    let (instances, lengths, changed_per_rule, differ) = (1008, [246, 253, 253, 256], 1.562, 122);
    assert_eq!(v["instances"], instances);
    assert_eq!(
        v["by_cascade_length"],
        serde_json::json!({"2": lengths[0], "3": lengths[1], "4": lengths[2], "5": lengths[3]})
    );
    let changed = v["mean_examples_changed_per_rule"].as_f64().unwrap();
    assert!((changed - changed_per_rule).abs() < 0.001, "{changed}");
    assert_eq!(v["relations_compared"]["differ"], differ);
}

#[test]
fn inspect_lists_every_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    let good = stdout(&pbebench(&[
        "generate",
        "--size",
        "16",
        "--patience",
        "0",
        "--heldout",
        "0",
    ]));
    let mut lines: Vec<String> = good.lines().take(3).map(str::to_owned).collect();
    lines.insert(1, "{not json".to_owned());
    lines.push(lines[0].replace(r#""outputs":["#, r#""outputs":["zzz","#));
    lines.push(lines[0].clone());
    // Blank lines are skipped but counted: the duplicate is on line 8 of the file.
    lines.insert(5, String::new());
    lines.insert(5, "   ".to_owned());
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let o = pbebench(&["inspect", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("line 2: malformed JSON"), "{out}");
    assert!(out.contains("line 5:"), "{out}");
    assert!(out.contains("line 8: duplicate id"), "{out}");
    // Commands that read the whole dataset name the same line.
    let without_bad: Vec<&str> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| if k == 1 || k == 4 { "" } else { l.as_str() })
        .collect();
    std::fs::write(&file, without_bad.join("\n") + "\n").unwrap();
    let o = pbebench(&["prompt", "--dataset", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.jsonl:8: duplicate id"),
        "{}",
        stderr(&o)
    );
    let o = pbebench(&["inspect", "/no/such/file.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/no/such/file.jsonl"), "{}", stderr(&o));
}

/// SIGTERM or Ctrl-C (SIGINT) in the middle of a generation removes the unfinished
/// output's temporary file and exits with 128 + the signal: nothing is left behind.
#[cfg(unix)]
#[test]
fn an_interrupted_generation_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("full.jsonl");
    let files = || std::fs::read_dir(dir.path()).unwrap().count();
    for (signal, code) in [("-TERM", 143), ("-INT", 130)] {
        let child = Command::new(env!("CARGO_BIN_EXE_pbebench"))
            .args(["generate", "--preset", "full", "--threads", "1"])
            .args(["--out", &s(&out)])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The whole full preset takes seconds; its temporary file appears at once.
        let started = std::time::Instant::now();
        while files() == 0 {
            assert!(started.elapsed().as_secs() < 60, "no temporary file");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let pid = child.id().to_string();
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("1 unfinished output file(s) discarded"),
            "{}",
            stderr(&o)
        );
        assert_eq!(files(), 0, "left behind after kill {signal}");
    }
}

/// A reader that goes away (`pbebench inspect FILE | head`) ends the command quietly, as
/// `apply` and `generate` do: no panic message, no error line.
#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    // Far more report than a pipe buffers, so that writing must meet the closed pipe.
    std::fs::write(&file, "{not json\n".repeat(20_000)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbebench"))
        .args(["inspect", &s(&file)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// The authors' real sound-change lists, read as our instances, are split exactly as their
/// published prompts: the same 21 chunks of at most 50 words, in the same order.
#[test]
fn real_word_lists_match_the_published_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("real.jsonl");
    let real = published("real_sli");
    let o = pbebench(&["pairs", "--dir", &s(&real), "--out", &s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("wrote 21 instances"), "{}", stderr(&o));
    let ours: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let prompts: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(real.join("real_sli_promptsfile.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(ours.len(), prompts.len());
    for (k, (mine, theirs)) in ours.iter().zip(&prompts).enumerate() {
        let lang = theirs["lang_pair"].as_str().unwrap();
        assert!(mine["id"].as_str().unwrap().starts_with(lang), "chunk {k}");
        assert_eq!(mine["inputs"], theirs["inputs"], "chunk {k}");
        assert_eq!(mine["outputs"], theirs["outputs"], "chunk {k}");
        assert_eq!(
            (mine["max_rules"].as_u64(), mine["max_rule_len"].as_u64()),
            (Some(50), Some(5))
        );
    }
    // A dataset like any other: inspect accepts it.
    assert!(pbebench(&["inspect", &s(&out)]).status.success());
    // Bad input: a directory without word lists, a list without its pair.
    assert_fatal(
        &pbebench(&["pairs", "--dir", &s(dir.path()), "--out", &s(&out)]),
        "no subdirectory holds words.in and words.out",
    );
    let lone = dir.path().join("lone");
    std::fs::create_dir(&lone).unwrap();
    std::fs::write(lone.join("words.in"), "a\nb\n").unwrap();
    assert_fatal(
        &pbebench(&["pairs", "--dir", &s(dir.path()), "--out", &s(&out)]),
        "words.out",
    );
}

/// Off a terminal (here a pipe) `generate` prints a status line every `--status-every`
/// seconds (30 by default), as `solve` and `eval` do: a progress bar draws nothing there.
#[test]
fn generate_prints_status_lines_off_a_terminal() {
    let o = pbebench(&[
        "generate",
        "--preset",
        "lite",
        "--size",
        "320",
        "--threads",
        "1",
        "--status-every",
        "0.02",
        "--out",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o);
    let status: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("generate: ") && l.contains("/320 instances, "))
        .collect();
    assert!(status.len() >= 2, "{said}");
    assert!(status[0].ends_with(" s"), "{}", status[0]);
    let o = pbebench(&["generate", "--status-every", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The published Lite sampler is a preset and an option; `inspect` reports what sets it
/// apart (most patterns are single letters), and the option changes the default preset's
/// draw the same way.
#[test]
fn lite_published_preset_and_pattern_draw() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let out_arg = out.to_str().unwrap().to_owned();
        let mut args = vec!["generate", "--size", "64", "--out", &out_arg];
        args.extend(extra);
        let o = pbebench(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = pbebench(&["inspect", "--format", "json", &out_arg]);
        assert!(o.status.success(), "{}", stderr(&o));
        let stats: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        (std::fs::read_to_string(&out).unwrap(), stats)
    };
    let (preset, stats) = run("p.jsonl", &["--preset", "lite-published"]);
    let (option, _) = run(
        "o.jsonl",
        &[
            "--pattern-draw",
            "published",
            "--relations",
            "paper",
            "--patience",
            "1000000",
        ],
    );
    let (default, default_stats) = run("d.jsonl", &[]);
    assert!(
        preset.starts_with("{\"id\":\"lite-published-s0-00000\""),
        "{preset}"
    );
    assert_eq!(preset.replace("lite-published-", "lite-"), option);
    assert_ne!(option, default);
    let share = |s: &serde_json::Value| s["one_letter_patterns"].as_f64().unwrap();
    assert!(share(&stats) > 0.6, "{stats}");
    assert!(share(&default_stats) < 0.5, "{default_stats}");
}
