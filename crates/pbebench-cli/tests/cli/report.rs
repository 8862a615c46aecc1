//! `pbebench report` on real files: the page, the figures, and bad input.

use crate::common::*;
use std::path::{Path, PathBuf};

/// A scored Lite set (seed) and the per-instance lines of an empty run on it.
struct Run {
    data: PathBuf,
    stats: PathBuf,
    results: PathBuf,
    per: PathBuf,
    empty_per: PathBuf,
}

/// A generated set, its statistics, a solver's scored run and an empty run.
fn setup(dir: &Path, seed: &str) -> Run {
    let scored = scored_lite(dir, seed);
    let none = dir.join(format!("none{seed}.jsonl"));
    std::fs::write(&none, empty_answers(&scored.data)).unwrap();
    let empty_per = dir.join(format!("empty-per{seed}.jsonl"));
    let o = pbebench(&[
        "score",
        "--dataset",
        &s(&scored.data),
        "--responses",
        &s(&none),
        "--per-instance",
        &s(&empty_per),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    Run {
        data: scored.data,
        stats: scored.stats,
        results: scored.results,
        per: scored.per,
        empty_per,
    }
}

/// Every tag of an SVG or HTML fragment closes, in order (void HTML tags aside).
fn balanced(text: &str) {
    let void = ["meta", "br", "!DOCTYPE"];
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').unwrap() + start;
        let tag = &rest[start + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name));
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap();
            if !void.contains(&name) {
                stack.push(name.to_owned());
            }
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

#[test]
fn writes_a_self_contained_page_with_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    let r = setup(dir.path(), "11");
    let audit = dir.path().join("audit.json");
    let o = pbebench(&[
        "audit",
        "--dataset",
        &s(&r.data),
        "--results",
        &format!("beam={}", s(&r.per)),
        "--results",
        &format!("nothing={}", s(&r.empty_per)),
        "--out",
        &s(&audit),
        "--no-solver",
    ]);
    // A plain set fails the verdict (exit 1); its audit.json is written all the same.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = dir.path().join("report");
    let o = pbebench(&[
        "report",
        "--results",
        &format!("beam={},{}", s(&r.results), s(&r.per)),
        &format!("nothing={}", s(&r.empty_per)),
        "--generation-stats",
        &s(&r.stats),
        "--dataset",
        &s(&r.data),
        "--audit",
        &s(&audit),
        "--out",
        &s(&out),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("open file://"), "{}", stderr(&o));
    let md = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(md.starts_with("| results | instances |"), "{md}");
    assert!(
        md.lines().nth(2).unwrap().starts_with("| beam |"),
        "best first: {md}"
    );

    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("<table id=\"leaderboard\">"));
    for needle in [
        "Pass@1 by cascade length",
        "Survival of the fractional score",
        "Cascade length: beam",
        "Relation category: nothing",
        "Category balance (KL from uniform) by length",
        "Generation efficiency vs patience",
        "Per-instance mean score over the panel",
        "Logistic regression",
        "Audit of the dataset",
    ] {
        assert!(html.contains(needle), "missing {needle}");
    }
    // No script, no outside resource: the only URL is the SVG namespace.
    assert!(!html.contains("<script"));
    let urls: Vec<&str> = html
        .match_indices("http")
        .map(|(k, _)| &html[k..(k + 30).min(html.len())])
        .filter(|u| !u.starts_with("http://www.w3.org/2000/svg"))
        .collect();
    assert!(urls.is_empty(), "{urls:?}");
    balanced(&html);
    for name in [
        "pass_by_length.svg",
        "edit_sim_by_length.svg",
        "survival.svg",
        "confusion_length_0.svg",
        "confusion_category_1.svg",
        "kl_by_length.svg",
        "efficiency_vs_patience.svg",
        "calibration_histogram.svg",
        "leaderboard.md",
        "report.json",
    ] {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        if name.ends_with(".svg") {
            assert!(text.starts_with("<svg ") && !text.contains("NaN"), "{name}");
            balanced(&text);
        }
    }
    // Every figure of a rate carries its 95% intervals: error bars by length, a band
    // under each survival curve.
    let svg = |name: &str| std::fs::read_to_string(out.join(name)).unwrap();
    for name in ["pass_by_length.svg", "edit_sim_by_length.svg"] {
        assert!(svg(name).contains(r#"stroke-width="1.3""#), "{name}");
    }
    assert_eq!(
        svg("survival.svg")
            .matches(r#"fill-opacity="0.15""#)
            .count(),
        2
    );
    // The page fits 1400 pixels: the rarely read columns are folded below the leaderboard.
    assert!(html.contains("max-width: 1400px"));
    assert!(html.contains("<details><summary>More columns: "));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(json["leaderboard"][1]["best_of_k"], 0.0);
    assert!(json["leaderboard"][0]["intervals"]["pass_at_1"]["hi"].is_number());
    // The regression of the empty run has nothing to fit (every outcome is a failure).
    let regs = json["regressions"].as_array().unwrap();
    assert!(regs.iter().any(|r| r["fit"]["Err"]
        .as_str()
        .is_some_and(|e| e.contains("nothing to fit"))));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = setup(d, "12");
    let b = setup(d, "13");
    let out = s(&d.join("report"));
    let report = |extra: &[&str]| {
        let mut args = vec!["report", "--out", &out];
        args.extend_from_slice(extra);
        pbebench(&args)
    };
    // Two runs on different datasets.
    assert_fatal(
        &report(&["--results", &s(&a.per), &s(&b.per)]),
        "different datasets",
    );
    // Two runs on different datasets that share ids.
    let relabelled = d.join("relabelled.jsonl");
    let text = std::fs::read_to_string(&b.per)
        .unwrap()
        .replace("lite-s13-", "lite-s12-");
    std::fs::write(&relabelled, text).unwrap();
    let o = report(&["--results", &s(&a.per), &s(&relabelled)]);
    if o.status.success() {
        // Same cascade lengths by chance everywhere: then the check against the dataset
        // must catch it.
        assert_fatal(
            &report(&["--results", &s(&relabelled), "--dataset", &s(&a.data)]),
            "another dataset",
        );
    } else {
        assert_fatal(&o, "different datasets");
    }
    // Results checked against a dataset they are not for.
    assert_fatal(
        &report(&["--results", &s(&b.per), "--dataset", &s(&a.data)]),
        "another dataset",
    );
    assert_fatal(
        &report(&["--results", &s(&b.results), "--dataset", &s(&a.data)]),
        "another dataset?",
    );
    let missing = s(&d.join("nope.jsonl"));
    assert_fatal(&report(&["--results", &missing]), "nope.jsonl");
    let empty = d.join("empty.jsonl");
    std::fs::write(&empty, "\n\n").unwrap();
    assert_fatal(&report(&["--results", &s(&empty)]), "empty");
    let bad = d.join("bad.jsonl");
    let first = std::fs::read_to_string(&a.per)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    std::fs::write(
        &bad,
        format!(
            "{first}\n{}\n",
            first.replace("\"score\":", "\"score\":\"x\",\"was\":")
        ),
    )
    .unwrap();
    assert_fatal(&report(&["--results", &s(&bad)]), "bad.jsonl:2");
    let edited = d.join("edited.jsonl");
    std::fs::write(
        &edited,
        first.replace("\"score\":1.0", "\"score\":2.5") + "\n",
    )
    .unwrap();
    if first.contains("\"score\":1.0") {
        assert_fatal(&report(&["--results", &s(&edited)]), "score outside [0, 1]");
    }
    let stats = d.join("stats.json");
    std::fs::write(&stats, "{\"hello\": 1}").unwrap();
    assert_fatal(
        &report(&["--results", &s(&a.per), "--generation-stats", &s(&stats)]),
        "not generation statistics",
    );
    assert_fatal(
        &report(&["--results", &s(&a.per), "--audit", &s(&stats)]),
        "not an audit",
    );

    // A summary alone and runs of different sizes: warnings, listed on the page.
    let o = report(&[
        "--results",
        &s(&a.results),
        &format!("half={}", s(&half(d, &a.per))),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning:") && err.contains("only a summary"),
        "{err}"
    );
    assert!(err.contains("different"), "{err}");
    let html = std::fs::read_to_string(d.join("report/index.html")).unwrap();
    assert!(html.contains("class=\"warn\""));
}

/// The first half of a per-instance file.
fn half(dir: &Path, per: &Path) -> PathBuf {
    let text = std::fs::read_to_string(per).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let p = dir.join("half.jsonl");
    std::fs::write(&p, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    p
}

#[test]
fn an_eval_runs_cost_reaches_the_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    let r = setup(dir.path(), "14");
    // An evaluation run's results.json: the scoring report under "scores", cost under "run".
    let score: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&r.results).unwrap()).unwrap();
    let eval = serde_json::json!({"run": {"cost": 1.23, "answered": 32}, "scores": score});
    let run_dir = dir.path().join("runs").join("api-model");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("results.json"), eval.to_string()).unwrap();
    let out = dir.path().join("report");
    let o = pbebench(&["report", "--results", &s(&run_dir), "--out", &s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = String::from_utf8(o.stdout).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| api-model |"))
        .expect(&md);
    assert!(row.ends_with("| 1.2300 |"), "{row}");
}

/// An interactive run (the example solver program, over JSON lines): the report draws
/// Recovered@1 against probes used and the survival of the behaviour score from its
/// episodes, and links a few transcripts, each what `pbebench show` prints.
#[test]
fn an_interactive_run_gets_its_figures_and_linked_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("lite.jsonl");
    let o = pbebench(&[
        "generate",
        "--size",
        "4",
        "--balance",
        "length",
        "--seed",
        "21",
        "--out",
        &s(&data),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let solver = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pbebench-eval/examples/probe_solver.py")
        .canonicalize()
        .unwrap();
    let run = dir.path().join("run");
    let cmd = format!("python3 {}", s(&solver));
    let o = pbebench(&[
        "eval",
        "--dataset",
        &s(&data),
        "--solver-cmd",
        &cmd,
        "--interactive",
        "--probe-budget",
        "20",
        "--run",
        &s(&run),
        "--no-progress",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("report");
    let o = pbebench(&["report", "--results", &s(&run), "--out", &s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    for needle in [
        "Recovered@1 against probes used",
        "Survival of the behaviour score",
        "<h2>Episodes</h2>",
        "href=\"episode-1.txt\"",
    ] {
        assert!(html.contains(needle), "{needle}");
    }
    balanced(&html);
    assert!(out.join("recovered_by_probes.svg").is_file());
    assert!(out.join("behaviour_survival.svg").is_file());
    // Each linked transcript is what `pbebench show` prints for its episode.
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).unwrap()).unwrap();
    let episodes = results["interactive"]["episodes"].as_array().unwrap();
    let mut linked = 0;
    for k in 1..=3 {
        let file = out.join(format!("episode-{k}.txt"));
        if !file.exists() {
            continue;
        }
        linked += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = episodes.iter().find_map(|e| {
            let id = e["instance_id"].as_str().unwrap();
            let sample = e["sample"].to_string();
            let o = pbebench(&["show", &s(&run), "--id", id, "--sample", &sample]);
            (String::from_utf8(o.stdout).unwrap() == text).then_some(())
        });
        assert!(
            shown.is_some(),
            "episode-{k}.txt is no episode's transcript"
        );
    }
    assert_eq!(linked, episodes.len().min(3));
}
