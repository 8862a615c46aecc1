//! Snapshots of every output a user reads, one per command (insta, in
//! `tests/cli/snapshots/`, named `cli__outputs__*`): the eval table and `show`, the
//! generate, vet and solve summaries, `relations`, `apply`, `parse`, `prompt` and `export`.
//! Each runs on small fixed inputs (a generated set with a fixed seed, literal cascades and
//! responses), so that it is deterministic; what depends on the clock (elapsed times,
//! rates, latencies) is replaced by a marker, nothing else. `--help`, the score table,
//! `inspect`, `audit`, `derive`, `equiv` and the report are snapshotted beside their tests.

use crate::common::*;
use std::path::Path;
use std::process::Output;

/// Replaces, on every line, the text between `start` and the next `end` after it by
/// `marker` (a timing inside a line whose other content is kept); with an empty `end`, the
/// rest of the line.
fn redact(text: &str, start: &str, end: &str, marker: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        while let Some(k) = rest.find(start) {
            let from = k + start.len();
            let to = if end.is_empty() {
                rest[from..].find('\n').map_or(rest.len(), |n| from + n)
            } else {
                match rest[from..].find(end) {
                    Some(n) => from + n,
                    None => break,
                }
            };
            out.push_str(&rest[..from]);
            out.push_str(marker);
            rest = &rest[to..];
        }
        out.push_str(rest);
    }
    out
}

/// What the run `o` in `dir` shows, `dir` written as `[DIR]`, then each `(start, end)` of
/// `timings` redacted to `[TIME]`.
fn shown(o: &Output, dir: &Path, timings: &[(&str, &str)]) -> String {
    let text = snapshot(o, &[(&s(dir), "[DIR]")]);
    timings.iter().fold(text, |text, (start, end)| {
        redact(&text, start, end, "[TIME]")
    })
}

/// Runs `pbebench ARGS` in `dir` and checks that it succeeded.
fn ok(args: &[&str], dir: &Path) -> Output {
    let o = pbebench_in(args, dir);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// Four instances of cascade lengths 2 to 5 (seed 21), as `e.jsonl` in `dir`.
fn four(dir: &Path) {
    let args = [
        "generate",
        "--size",
        "4",
        "--balance",
        "length",
        "--seed",
        "21",
        "--out",
        "e.jsonl",
    ];
    ok(&args, dir);
}

#[test]
fn redact_keeps_the_rest_of_the_line() {
    let text = "done in 0.2s: 10 attempts, 50 attempts/s\nlatency p50 1 s\nnone\n";
    let text = redact(text, " in ", "s:", "[T]");
    let text = redact(&text, ", ", " attempts/s", "[R]");
    assert_eq!(
        redact(&text, "latency ", "", "[L]"),
        "done in [T]s: 10 attempts, [R] attempts/s\nlatency [L]\nnone\n"
    );
}

#[test]
fn generate_summary() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "generate",
        "--size",
        "16",
        "--seed",
        "3",
        "--heldout",
        "2",
        "--out",
        "d.jsonl",
        "--stats-json",
        "s.json",
    ];
    let o = ok(&args, dir.path());
    // "in 0.2s: 1070 attempts, efficiency 1.495%, 4946 attempts/s"
    let text = shown(&o, dir.path(), &[(") in ", "s: "), ("%, ", " attempts/s")]);
    insta::assert_snapshot!("generate", text);
}

/// An answer for each of [`four`]'s instances: the gold, a wrong rule, prose, and the
/// gold without its last rule; as the JSON object (by id) that `solver.py` reads.
fn answers(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("e.jsonl")).unwrap();
    let mut answers = serde_json::Map::new();
    for (k, line) in text.lines().enumerate() {
        let inst: serde_json::Value = serde_json::from_str(line).unwrap();
        let gold = pbebench::Cascade::from_json(&inst["cascade"].to_string()).unwrap();
        let shorter = pbebench::Cascade::new(gold.rules()[..gold.len() - 1].to_vec());
        let answer = match k {
            0 => pbebench::render_answer(&gold),
            1 => "```python\n[\"replace('a', 'b')\"]\n```".to_owned(),
            2 => "I cannot tell.".to_owned(),
            _ => pbebench::render_answer(&shorter),
        };
        answers.insert(inst["id"].as_str().unwrap().to_owned(), answer.into());
    }
    serde_json::Value::Object(answers).to_string()
}

/// A solver program that answers each instance from a fixed table.
const SOLVER: &str =
    "import json, sys\nprint(json.load(open(sys.argv[1]))[json.load(sys.stdin)[\"id\"]])\n";

/// [`four`] in `dir`, evaluated into `run` by a solver program that answers from
/// [`answers`], with the options `extra`.
fn eval_four(dir: &Path, extra: &[&str]) -> Output {
    four(dir);
    write(dir, "answers.json", &answers(dir));
    write(dir, "solver.py", SOLVER);
    let args = [
        "eval",
        "--dataset",
        "e.jsonl",
        "--solver-cmd",
        "python3 solver.py answers.json",
        "--run",
        "run",
    ];
    ok(&[&args[..], extra].concat(), dir)
}

/// The eval table of a solver program's answers, and `show` of two of its samples.
#[test]
fn eval_table_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = eval_four(d, &["--no-progress"]);
    insta::assert_snapshot!("eval", shown(&o, d, &[("latency ", "")]));
    let o = ok(&["show", "run", "--id", "lite-s21-00000"], d);
    insta::assert_snapshot!("show_gold", shown(&o, d, &[]));
    let o = ok(&["show", "run", "--id", "lite-s21-00002"], d);
    insta::assert_snapshot!("show_prose", shown(&o, d, &[]));
    let o = pbebench_in(&["show", "run", "--id", "nope"], d);
    insta::assert_snapshot!("show_unknown_id", shown(&o, d, &[]));
}

/// An interactive run of the example probing solver: the table with its interactive
/// section, and `show` of one episode.
#[test]
fn interactive_eval_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let solver = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pbebench-eval/examples/probe_solver.py")
        .canonicalize()
        .unwrap();
    let cmd = format!("python3 {}", s(&solver));
    let args = [
        "eval",
        "--dataset",
        "e.jsonl",
        "--solver-cmd",
        &cmd,
        "--interactive",
        "--probe-budget",
        "20",
        "--run",
        "run",
        "--no-progress",
    ];
    let o = ok(&args, d);
    insta::assert_snapshot!("eval_interactive", shown(&o, d, &[("latency ", "")]));
    let o = ok(&["show", "run", "--id", "lite-s21-00001"], d);
    insta::assert_snapshot!("show_episode", shown(&o, d, &[]));
}

/// A step-wise search by a solver program that answers, at each step, the next
/// rule of the gold cascade (prose for the third instance): the table with its strategy line.
#[test]
fn stepwise_eval() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    write(
        d,
        "step.py",
        "import json, sys\n\
         step = json.load(sys.stdin)\n\
         insts = [json.loads(l) for l in open(sys.argv[1])]\n\
         k, inst = next((k, i) for k, i in enumerate(insts) if i['id'] == step['id'])\n\
         s, n = step['max_rules'], step['step']\n\
         rules = [\"replace(%r, %r)\" % tuple(r) for r in inst['cascade'][s * n:s * (n + 1)]]\n\
         print('I cannot tell.' if k == 2 else '```python\\n%s\\n```' % json.dumps(rules))\n",
    );
    let args = [
        "eval",
        "--dataset",
        "e.jsonl",
        "--solver-cmd",
        "python3 step.py e.jsonl",
        "--strategy",
        "stepwise",
        "--step-rules",
        "1",
        "--steps",
        "5",
        "--run",
        "run",
        "--no-progress",
    ];
    let o = ok(&args, d);
    insta::assert_snapshot!("eval_stepwise", shown(&o, d, &[("latency ", "")]));
    let results = std::fs::read_to_string(d.join("run/results.json")).unwrap();
    let results: serde_json::Value = serde_json::from_str(&results).unwrap();
    assert_eq!(results["strategy"], "stepwise");
    // The report names the strategy and compares the runs by tokens per instance.
    write(d, "answers.json", &answers(d));
    write(d, "solver.py", SOLVER);
    let sampled = [
        "eval",
        "--dataset",
        "e.jsonl",
        "--solver-cmd",
        "python3 solver.py answers.json",
    ];
    ok(
        &[&sampled[..], &["--run", "sampled", "--no-progress"]].concat(),
        d,
    );
    ok(
        &[
            "report",
            "--results",
            "run",
            "--results",
            "sampled",
            "--out",
            "rep",
        ],
        d,
    );
    let report = std::fs::read_to_string(d.join("rep/report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let strategies: Vec<&str> = (report["strategies"].as_array().unwrap().iter())
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(strategies.len(), 2);
    assert!(strategies.contains(&"stepwise") && strategies.contains(&"sampling"));
    // A cascade past the tightest rule cap is refused before the run starts.
    let mut over = args.to_vec();
    over[8] = "9";
    let o = pbebench_in(&over, d);
    insta::assert_snapshot!("eval_stepwise_over_cap", shown(&o, d, &[]));
}

/// The vet summary of [`four`] with a panel of the deterministic attackers only (the
/// solver members make a debug build slow; their summary is the same form).
#[test]
fn vet_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let args = [
        "vet",
        "--dataset",
        "e.jsonl",
        "--out",
        "v.jsonl",
        "--panel",
        "neighbours,shortcuts",
        "--threads",
        "1",
    ];
    let o = ok(&args, d);
    // "…, seed 0; 13.0 s"
    insta::assert_snapshot!("vet", shown(&o, d, &[("seed 0; ", " s\n")]));
}

/// The solve summary of [`four`]: every instance is small enough to be solved long before
/// the limit, so the counts do not depend on the machine.
#[test]
fn solve_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let args = [
        "solve",
        "--dataset",
        "e.jsonl",
        "--out",
        "r.jsonl",
        "--time-limit",
        "30",
        "--threads",
        "1",
    ];
    let o = ok(&args, d);
    insta::assert_snapshot!("solve", shown(&o, d, &[]));
}

const CASCADE: &str = r#"[["a","b"],["b","c"],["ab","x"]]"#;

#[test]
fn relations_text_json_and_paper() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = ok(&["relations", "--cascade", CASCADE], d);
    insta::assert_snapshot!("relations", shown(&o, d, &[]));
    let o = ok(&["relations", "--cascade", CASCADE, "--format", "json"], d);
    insta::assert_snapshot!("relations_json", shown(&o, d, &[]));
    let o = ok(&["relations", "--cascade", CASCADE, "--mode", "paper"], d);
    insta::assert_snapshot!("relations_paper", shown(&o, d, &[]));
}

#[test]
fn apply_words_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = ok(&["apply", "--cascade", CASCADE, "abc", "bab", ""], d);
    insta::assert_snapshot!("apply", shown(&o, d, &[]));
    let o = pbebench_with_stdin(&["apply", "--cascade", CASCADE], b"aab\nxyz\n");
    insta::assert_snapshot!("apply_stdin", shown(&o, d, &[]));
}

#[test]
fn parse_reports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let response = "Some thoughts.\n```python\n[(\"a\", \"b\"), (\"\", \"c\"), (\"dd\", \"e\"), replace(\"q\",\"r\")]\n```\n";
    let o = pbebench_with_stdin(&["parse"], response.as_bytes());
    insta::assert_snapshot!("parse", shown(&o, d, &[]));
    let args = [
        "parse",
        "--max-rules",
        "2",
        "--max-rule-len",
        "1",
        "--alphabet",
        "abcde",
    ];
    let o = pbebench_with_stdin(&args, response.as_bytes());
    insta::assert_snapshot!("parse_limits", shown(&o, d, &[]));
    let o = pbebench_with_stdin(&["parse"], b"no code here\n");
    insta::assert_snapshot!("parse_no_block", shown(&o, d, &[]));
}

#[test]
fn prompts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let first = std::fs::read_to_string(d.join("e.jsonl")).unwrap();
    write(d, "one.jsonl", first.lines().next().unwrap());
    let o = ok(&["prompt", "--dataset", "one.jsonl"], d);
    insta::assert_snapshot!("prompt", shown(&o, d, &[]));
    for name in ["default", "authors"] {
        let o = ok(&["prompt", "--print-template", name], d);
        insta::assert_snapshot!(format!("prompt_template_{name}"), shown(&o, d, &[]));
    }
}

#[test]
fn exports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    for to in ["authors", "pbebench"] {
        let o = ok(&["export", "--to", to, "--dataset", "e.jsonl"], d);
        insta::assert_snapshot!(format!("export_{to}"), shown(&o, d, &[]));
    }
}

/// The score table of two samples per instance (pass@k up to 2): each of [`answers`]'s
/// answers, then the gold (prose for the last instance).
#[test]
fn score_two_samples() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let first: serde_json::Value = serde_json::from_str(&answers(d)).unwrap();
    let text = std::fs::read_to_string(d.join("e.jsonl")).unwrap();
    let mut responses = String::new();
    for line in text.lines() {
        let inst: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = inst["id"].as_str().unwrap();
        let gold = pbebench::Cascade::from_json(&inst["cascade"].to_string()).unwrap();
        let second = if id.ends_with('3') {
            "no idea".to_owned()
        } else {
            pbebench::render_answer(&gold)
        };
        let record = serde_json::json!({"id": id, "responses": [first[id], second]});
        responses += &format!("{record}\n");
    }
    write(d, "r.jsonl", &responses);
    let args = ["score", "--dataset", "e.jsonl", "--responses", "r.jsonl"];
    let o = ok(&args, d);
    insta::assert_snapshot!("score_two_samples", shown(&o, d, &[]));
}

#[test]
fn inspect_generated() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let o = ok(&["inspect", "e.jsonl"], d);
    insta::assert_snapshot!("inspect_generated", shown(&o, d, &[]));
}

/// `pairs` on the authors' real word lists shipped in `testdata/`.
#[test]
fn pairs_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/pbebench-official/real_sli")
        .canonicalize()
        .unwrap();
    let o = ok(&["pairs", "--dir", &s(&real), "--out", "p.jsonl"], d);
    let text = shown(&o, d, &[]).replace(&s(&real), "[REAL_SLI]");
    insta::assert_snapshot!("pairs", text);
}

/// The eval's progress off a terminal (standard error is a pipe here): its status lines,
/// the last of them printed when the run ends (earlier ones, every 30 s, are left out: how
/// many there are depends on the clock).
#[test]
fn eval_progress_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = eval_four(d, &["--format", "json"]);
    let text = shown(&o, d, &[("%, ", " tok/s"), ("tok/s, ", " s")]);
    let (_, stderr) = text.split_once("----- stderr -----\n").unwrap();
    let status: Vec<&str> = stderr.lines().filter(|l| l.starts_with("eval: ")).collect();
    let last = status.last().expect("a last status line");
    let rest: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("eval: "))
        .collect();
    insta::assert_snapshot!("eval_progress", format!("{}\n{last}\n", rest.join("\n")));
}

/// `--quiet` leaves standard error to warnings and errors, and changes no output: the
/// same dataset, responses and report as without it.
#[test]
fn quiet_changes_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let runs = |quiet: bool, tag: &str| {
        let data = format!("{tag}.jsonl");
        let args = vec![
            "generate",
            "--size",
            "4",
            "--balance",
            "length",
            "--seed",
            "21",
            "--out",
            &data,
        ];
        let quietly = |mut args: Vec<&str>| {
            if quiet {
                args.insert(1, "--quiet");
            }
            ok(&args, d)
        };
        let generated = quietly(args.clone());
        let responses = format!("{tag}-responses.jsonl");
        let solved = quietly(vec![
            "solve",
            "--dataset",
            &data,
            "--out",
            &responses,
            "--threads",
            "1",
        ]);
        let scored = quietly(vec!["score", "--dataset", &data, "--responses", &responses]);
        let read = |name: &str| std::fs::read(d.join(name)).unwrap();
        (
            [generated, solved, scored].map(|o| (stdout(&o), stderr(&o))),
            read(&data),
            read(&responses),
        )
    };
    let (loud, data, responses) = runs(false, "loud");
    let (quiet, quiet_data, quiet_responses) = runs(true, "quiet");
    assert_eq!((data, responses), (quiet_data, quiet_responses));
    for ((loud_out, _), (out, err)) in loud.iter().zip(&quiet) {
        assert_eq!(err, "", "quiet, yet:\n{err}");
        assert_eq!(loud_out, out);
    }
    // (Without --quiet, the summaries are there.)
    assert!(loud[0].1.contains("generated 4 instances"), "{}", loud[0].1);
    assert!(loud[1].1.contains("solved"), "{}", loud[1].1);
}

/// The eval library names the fields it refuses; the command line names their options.
#[test]
fn eval_refusals_name_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four(d);
    let base = [
        "eval",
        "--dataset",
        "e.jsonl",
        "--solver-cmd",
        "true",
        "--run",
        "r",
    ];
    let refused = |extra: &[&str], message: &str| {
        let o = pbebench_in(&[&base[..], extra].concat(), d);
        assert_fatal(&o, message);
    };
    refused(&["--samples", "0"], "error: --samples must be at least 1");
    refused(
        &["--concurrency", "0"],
        "error: --concurrency must be between 1 and 1024",
    );
    refused(
        &["--max-cost", "1"],
        "error: --max-cost needs --price-in and/or --price-out (prices per million tokens)",
    );
    refused(
        &["--price-in=-1"],
        "error: --price-in must be a non-negative number",
    );
    refused(
        &["--interactive", "--max-turns", "0"],
        "error: --max-turns must be at least 1",
    );
    let chat = [
        "eval",
        "--dataset",
        "e.jsonl",
        "--model",
        " ",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--run",
        "r",
    ];
    let o = pbebench_in(&chat, d);
    assert_fatal(&o, "error: --model must name the model the endpoint serves");
    let o = pbebench_in(
        &[
            &chat[..4],
            &[
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--top-p",
                "2",
                "--run",
                "r",
            ],
        ]
        .concat(),
        d,
    );
    assert_fatal(&o, "error: --top-p 2 is outside (0, 1]");
    let o = pbebench_in(
        &[
            &chat[..4],
            &["m", "--base-url", "http://h/v1", "--template", "nope.txt"],
        ]
        .concat(),
        d,
    );
    assert_fatal(&o, "error: --template nope.txt: ");
    // The error comes alone: no status line of a run that never started.
    assert_eq!(stderr(&o).lines().count(), 2, "{}", stderr(&o));
    // The library names its fields (`solver.base_urls`, `solver.command`); the command
    // line names them by their options.
    let o = pbebench_in(
        &[&chat[..4], &["m", "--base-url", "ftp://h/v1", "--run", "r"]].concat(),
        d,
    );
    assert_fatal(
        &o,
        "error: --base-url 'ftp://h/v1' is not an http:// or https:// URL",
    );
}
