//! A reordering set given to `pbebench prompt` and `pbebench score`, and made by
//! `generate --task reorder` (the bytes of generate, then reorder). A prompt per problem
//! (`--template` refused); scripted answers (the gold order, the given order reversed,
//! repeated indices, prose without an array, no response) give the table (a snapshot),
//! the JSON summary and the per-instance lines; a broken set is a one-line error.

use crate::common::*;
use crate::pbebench_snapshot;
use crate::reorder::lite;
use pbebench::reorder::read_reorder_lines;
use std::path::Path;

/// A reordering set of a small Lite set, and scripted responses to it.
fn set_and_responses(dir: &Path) {
    let data = lite(dir);
    let o = pbebench(&[
        "reorder",
        "--dataset",
        &s(&data),
        "--out",
        &s(&dir.join("reorder.jsonl")),
        "--seed",
        "5",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let problems =
        read_reorder_lines(&std::fs::read_to_string(dir.join("reorder.jsonl")).unwrap()).unwrap();
    let mut lines = String::new();
    for (k, p) in problems.iter().enumerate() {
        let n = p.order.len();
        let text = match k % 5 {
            0 => format!("Rule by rule:\n```json\n{:?}\n```", p.order),
            1 => format!("{:?}", (0..n).rev().collect::<Vec<_>>()),
            2 => format!("[{}]", vec!["0"; n].join(", ")),
            3 => "I cannot tell.".to_owned(),
            _ => continue,
        };
        lines += &(serde_json::json!({ "id": p.instance.id, "response": text }).to_string() + "\n");
    }
    std::fs::write(dir.join("responses.jsonl"), lines).unwrap();
}

#[test]
fn a_reordering_set_is_scored_by_order() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let args = [
        "score",
        "--dataset",
        "reorder.jsonl",
        "--responses",
        "responses.jsonl",
        "--out",
        "results.json",
        "--per-instance",
        "lines.jsonl",
    ];
    pbebench_snapshot!("score_reorder_table", dir.path(), &args);
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results.json")).unwrap())
            .unwrap();
    let all = &results["rows"][0];
    assert_eq!(all["group"], "all");
    assert!(results["invalid"]["repeated"].as_u64().unwrap() > 0);
    assert!(results["invalid"]["no_array"].as_u64().unwrap() > 0);
    let lines = std::fs::read_to_string(dir.path().join("lines.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(first["samples"][0]["exact"], true);
    assert_eq!(lines.lines().count(), all["n"].as_u64().unwrap() as usize);
}

#[test]
fn a_broken_reordering_set_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let text = std::fs::read_to_string(dir.path().join("reorder.jsonl")).unwrap();
    let mut problem: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    problem["order"] = serde_json::json!([0, 0]);
    let first = text.lines().next().unwrap();
    let bad = write(dir.path(), "bad.jsonl", &format!("{first}\n{problem}\n"));
    let o = pbebench(&[
        "score",
        "--dataset",
        &s(&bad),
        "--responses",
        &s(&dir.path().join("responses.jsonl")),
    ]);
    assert_fatal(&o, "bad.jsonl:2");
    assert!(stderr(&o).contains("not a permutation"), "{}", stderr(&o));
    // A reordering set is not made into one again: ours, nor the authors' records.
    let authors =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/reorder-authors/records.jsonl");
    for set in [dir.path().join("reorder.jsonl"), authors] {
        let out = dir.path().join("again.jsonl");
        let o = pbebench(&["reorder", "--dataset", &s(&set), "--out", &s(&out)]);
        assert_fatal(&o, "is a reordering set already");
        assert!(!out.exists());
    }
}

#[test]
fn a_reordering_set_gets_its_own_prompts() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let set = s(&dir.path().join("reorder.jsonl"));
    let o = pbebench(&["prompt", "--dataset", &set]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let problems =
        read_reorder_lines(&std::fs::read_to_string(dir.path().join("reorder.jsonl")).unwrap())
            .unwrap();
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), problems.len());
    for (line, p) in lines.iter().zip(&problems) {
        assert_eq!(line["id"], p.instance.id);
        assert_eq!(
            line["prompt"].as_str().unwrap(),
            pbebench::reorder::reorder_prompt(p)
        );
    }
    assert_fatal(
        &pbebench(&["prompt", "--dataset", &set, "--template", "authors"]),
        "--template",
    );
    // A byte-order mark does not hide what the file is.
    let text = std::fs::read_to_string(&set).unwrap();
    let bom = write(dir.path(), "bom.jsonl", &format!("\u{feff}{text}"));
    let o = pbebench(&["prompt", "--dataset", &s(&bom)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), problems.len());
    assert!(stdout(&o).contains("numbered 0 to"), "{}", stdout(&o));
}

#[test]
fn generate_task_reorder_is_generate_then_reorder() {
    let dir = tempfile::tempdir().unwrap();
    let data = lite(dir.path());
    let two_steps = dir.path().join("two.jsonl");
    let o = pbebench(&[
        "reorder",
        "--dataset",
        &s(&data),
        "--seed",
        "3",
        "--out",
        &s(&two_steps),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let one_step = dir.path().join("one.jsonl");
    let o = pbebench(&[
        "generate",
        "--task",
        "reorder",
        "--preset",
        "lite",
        "--size",
        "64",
        "--seed",
        "3",
        "--out",
        &s(&one_step),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(" kept, "), "{}", stderr(&o));
    let one = std::fs::read_to_string(&one_step).unwrap();
    assert!(!one.is_empty());
    assert_eq!(one, std::fs::read_to_string(&two_steps).unwrap());
    assert_fatal(
        &pbebench(&[
            "generate",
            "--task",
            "reorder",
            "--preset",
            "lite-vetted",
            "--out",
            &s(&dir.path().join("v.jsonl")),
        ]),
        "--task reorder",
    );
}

/// What `pbebench eval` shows, latencies (which depend on the clock) replaced by a marker.
fn shown_eval(o: &std::process::Output, dir: &Path) -> String {
    let text = snapshot(o, &[(&s(dir), "[DIR]")]);
    let lines: Vec<&str> = (text.lines())
        .map(|l| {
            if l.starts_with("latency ") {
                "latency            [TIME]"
            } else {
                l
            }
        })
        .collect();
    lines.join("\n") + "\n"
}

/// A solver program that answers each problem from a table by id (nothing when absent).
const TABLE_SOLVER: &str = "import json, sys\nprint(json.load(open(sys.argv[1])).get(json.load(sys.stdin)[\"id\"], \"\"))\n";

/// `eval` on a reordering set: a solver program gives the scripted answers; the table is
/// the run's figures and the score table of a reordering set, with the same rates as
/// `score` gives on the same answers (problems without one are failures either way), and
/// `results.json` says so.
#[test]
fn eval_on_a_reordering_set_shows_the_reordering_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    set_and_responses(d);
    let mut table = serde_json::Map::new();
    for line in std::fs::read_to_string(d.join("responses.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        table.insert(v["id"].as_str().unwrap().to_owned(), v["response"].clone());
    }
    write(
        d,
        "answers.json",
        &serde_json::Value::Object(table).to_string(),
    );
    write(d, "solver.py", TABLE_SOLVER);
    let args = [
        "eval",
        "--dataset",
        "reorder.jsonl",
        "--solver-cmd",
        "python3 solver.py answers.json",
        "--run",
        "run",
        "--no-progress",
    ];
    let o = pbebench_in(&args, d);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("eval_reorder_table", shown_eval(&o, d));

    let o = pbebench_in(
        &[
            "score",
            "--dataset",
            "reorder.jsonl",
            "--responses",
            "responses.jsonl",
            "--out",
            "score.json",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join(name)).unwrap()).unwrap()
    };
    let (score, run) = (read("score.json"), read("run/results.json"));
    assert_eq!(run["task"], "reorder");
    for (a, b) in score["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(run["summary"]["rows"].as_array().unwrap())
    {
        for rate in ["group", "n", "accuracy", "exact", "valid"] {
            assert_eq!(a[rate], b[rate], "{rate}");
        }
    }
    // --format json prints results.json; --rescore gives the same file.
    let o = pbebench_in(&[&args[..], &["--format", "json"]].concat(), d);
    assert_eq!(
        stdout(&o).trim_end(),
        std::fs::read_to_string(d.join("run/results.json")).unwrap()
    );
    let o = pbebench_in(
        &["eval", "--run", "run", "--rescore", "--format", "json"],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim_end(),
        std::fs::read_to_string(d.join("run/results.json")).unwrap()
    );
}

/// `eval --interactive` on a reordering set: a solver program tests an order with a
/// repeated index (refused, free), tests the given order, and submits it reversed.
#[test]
fn interactive_eval_on_a_reordering_set() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    set_and_responses(d);
    write(
        d,
        "solver.py",
        "import json, sys\n\
         task = json.loads(sys.stdin.readline())[\"task\"]\n\
         n = len(task[\"scrambled\"])\n\
         for ask in ({\"test\": [0] * n}, {\"test\": list(range(n))}, {\"submit\": list(range(n))[::-1]}):\n\
         \x20   print(json.dumps(ask), flush=True)\n\
         \x20   sys.stdin.readline()\n",
    );
    let args = [
        "eval",
        "--dataset",
        "reorder.jsonl",
        "--solver-cmd",
        "python3 solver.py",
        "--interactive",
        "--probe-budget",
        "3",
        "--run",
        "run",
        "--no-progress",
    ];
    let o = pbebench_in(&args, d);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("eval_reorder_interactive", shown_eval(&o, d));
    let text = std::fs::read_to_string(d.join("reorder.jsonl")).unwrap();
    let first = read_reorder_lines(&text).unwrap().remove(0);
    let o = pbebench_in(&["show", "run", "--id", &first.instance.id], d);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("show_reorder_episode", shown_eval(&o, d));
}

/// The `<h2>Rule reordering</h2>` section of a report page, up to the next section.
fn reordering_section(html: &str) -> &str {
    let start = html
        .find("<h2>Rule reordering</h2>")
        .expect("a reordering section");
    let end = html[start..]
        .find("</p>\n")
        .and_then(|k| {
            html[start + k + 5..]
                .find("</p>\n")
                .map(|j| start + k + 5 + j + 5)
        })
        .unwrap();
    &html[start..end]
}

/// `pbebench report` gives reordering results (score's files, or an eval run) their own
/// section, with the 95% intervals; the rest of the page is byte for byte the page without
/// them.
#[test]
fn the_report_gives_reordering_results_their_own_section() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    set_and_responses(d);
    write(d, "empty.jsonl", &empty_answers(&d.join("data.jsonl")));
    let ok = |args: &[&str]| {
        let o = pbebench_in(args, d);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        o
    };
    ok(&[
        "score",
        "--dataset",
        "data.jsonl",
        "--responses",
        "empty.jsonl",
        "--out",
        "syn.json",
        "--per-instance",
        "syn.per.jsonl",
    ]);
    ok(&[
        "score",
        "--dataset",
        "reorder.jsonl",
        "--responses",
        "responses.jsonl",
        "--out",
        "ro.json",
        "--per-instance",
        "ro.per.jsonl",
    ]);
    ok(&[
        "eval",
        "--dataset",
        "reorder.jsonl",
        "--solver-cmd",
        "cat > /dev/null; echo '[1, 0]'",
        "--run",
        "run",
        "--no-progress",
    ]);
    ok(&[
        "report",
        "--results",
        "syn=syn.json,syn.per.jsonl",
        "--out",
        "plain",
    ]);
    ok(&[
        "report",
        "--results",
        "syn=syn.json,syn.per.jsonl",
        "orders=ro.json,ro.per.jsonl",
        "swap=run",
        "--out",
        "both",
    ]);
    let read = |p: &str| std::fs::read_to_string(d.join(p)).unwrap();
    let (plain, both) = (read("plain/index.html"), read("both/index.html"));
    let section = reordering_section(&both);
    insta::assert_snapshot!("report_reordering_section", section);
    // Without the section, the two inputs it names in the footer and its two results
    // sets in the count at the top, the page is the synthesis page.
    assert!(both.contains("· 3 result set(s) ·"));
    let mut rest =
        (both.replacen(section, "", 1)).replacen("· 3 result set(s) ·", "· 1 result set(s) ·", 1);
    for source in [
        "<li><code>orders (reordering): ro.json,ro.per.jsonl</code></li>",
        "<li><code>swap (reordering): run/results.json,run/per-instance.jsonl</code></li>",
    ] {
        assert!(rest.contains(source), "{source}");
        rest = rest.replacen(source, "", 1);
    }
    assert_eq!(rest, plain);
    assert_eq!(read("both/leaderboard.md"), read("plain/leaderboard.md"));
    let json: serde_json::Value = serde_json::from_str(&read("both/report.json")).unwrap();
    let labels: Vec<&str> = (json["reordering"].as_array().unwrap().iter())
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["orders", "swap"]);
    let plain_json: serde_json::Value = serde_json::from_str(&read("plain/report.json")).unwrap();
    assert!(plain_json.get("reordering").is_none());
    // A summary and per-instance lines of different runs are refused.
    let o = pbebench_in(
        &[
            "report",
            "--results",
            "x=ro.json,run/per-instance.jsonl",
            "--out",
            "bad",
        ],
        d,
    );
    assert_fatal(&o, "not from the same run");
}

/// A report of reordering results alone has their section and no empty leaderboard.
#[test]
fn a_report_of_reordering_results_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    set_and_responses(d);
    let args = [
        "score",
        "--dataset",
        "reorder.jsonl",
        "--responses",
        "responses.jsonl",
    ];
    let o = pbebench_in(&[&args[..], &["--out", "ro.json"]].concat(), d);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = pbebench_in(&["report", "--results", "ro.json", "--out", "rep"], d);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let html = std::fs::read_to_string(d.join("rep/index.html")).unwrap();
    assert!(!html.contains("<h2>Leaderboard</h2>"));
    assert!(html.contains("· 1 result set(s) ·"));
    assert!(reordering_section(&html).contains("<td class=\"l\">ro</td>"));
}

#[test]
fn a_reordering_set_is_audited_by_its_shortcut_orders() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let args = [
        "audit",
        "--dataset",
        "reorder.jsonl",
        "--out",
        "audit.json",
        "--threads",
        "1",
    ];
    // The table (standard error holds a timing).
    let o = pbebench_in(&args, dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    insta::assert_snapshot!("audit_reorder", stdout(&o));
    assert!(
        stderr(&o).contains("audit FAILED reversed accuracy"),
        "{}",
        stderr(&o)
    );
    let audit: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("audit.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = (audit["baselines"].as_array().unwrap().iter())
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["dummy", "identity", "reversed", "greedy", "search"]);
    let search = &audit["baselines"][4]["rows"][0]["accuracy"]["mean"];
    assert_eq!(search.as_f64(), Some(1.0));
    let o = pbebench(&[
        "audit",
        "--dataset",
        &s(&dir.path().join("reorder.jsonl")),
        "--results",
        "x.jsonl",
        "--out",
        "-",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--results is for synthesis datasets"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_reordering_set_exports_to_the_authors_format_and_back() {
    let dir = tempfile::tempdir().unwrap();
    set_and_responses(dir.path());
    let d = |f: &str| s(&dir.path().join(f));
    for (to, from, out) in [
        ("authors", "reorder.jsonl", "authors.jsonl"),
        ("pbebench", "authors.jsonl", "back.jsonl"),
        ("authors", "back.jsonl", "authors2.jsonl"),
    ] {
        let o = pbebench(&[
            "export",
            "--to",
            to,
            "--dataset",
            &d(from),
            "--out",
            &d(out),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let authors = std::fs::read_to_string(dir.path().join("authors.jsonl")).unwrap();
    assert_eq!(
        authors,
        std::fs::read_to_string(dir.path().join("authors2.jsonl")).unwrap()
    );
    assert!(authors
        .lines()
        .next()
        .unwrap()
        .contains("\"permuted_programs\": [\"replace("));
    // The authors' file is a reordering set everywhere one is read.
    let o = pbebench(&[
        "prompt",
        "--dataset",
        &d("authors.jsonl"),
        "--out",
        &d("p.jsonl"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = pbebench(&[
        "export",
        "--to",
        "authors",
        "--original-programs",
        "--dataset",
        &d("reorder.jsonl"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("apply to synthesis datasets"),
        "{}",
        stderr(&o)
    );
}

/// Step-wise search and feedback rounds are synthesis strategies: on a reordering set
/// they are refused before anything runs, naming the option.
#[test]
fn synthesis_strategies_are_refused_on_a_reordering_set() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    set_and_responses(d);
    for strategy in [
        &[
            "--strategy",
            "stepwise",
            "--step-rules",
            "1",
            "--steps",
            "2",
        ][..],
        &["--strategy", "feedback"][..],
    ] {
        let mut args = vec![
            "eval",
            "--dataset",
            "reorder.jsonl",
            "--solver-cmd",
            "cat",
            "--run",
            "run",
        ];
        args.extend_from_slice(strategy);
        let o = pbebench_in(&args, d);
        assert_fatal(&o, "--strategy");
        assert!(
            stderr(&o).contains("is for synthesis sets"),
            "{}",
            stderr(&o)
        );
        assert!(!d.join("run").join("run.sqlite").exists());
    }
}
