//! The real binary on CLDF word lists: `pairs --cldf` (its summary, its dataset, its
//! errors), then `derive` and `solve --laws` showing the answers in IPA as sound laws, and
//! `solve --holdout --sweep` over rule budgets.

use crate::common::*;
use std::path::{Path, PathBuf};

fn toy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/cldf/toy/Wordlist-metadata.json")
        .canonicalize()
        .unwrap()
}

/// The toy Wordlist as a dataset of one instance, in `dir/toy.jsonl`.
fn toy_dataset(dir: &Path) -> PathBuf {
    let out = dir.join("toy.jsonl");
    let o = pbebench(&[
        "pairs",
        "--cldf",
        &s(&toy()),
        "--from",
        "proto",
        "--to",
        "dau",
        "--chunk",
        "0",
        "--out",
        &s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

/// What `pairs --cldf` says and writes: the pairs, every form left out by language and
/// reason, the symbols; the forms left out kept in a table with --unpaired.
#[test]
fn pairs_from_cldf() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let toy = toy();
    let args = [
        "pairs",
        "--cldf",
        &s(&toy),
        "--from",
        "Proto-Toy",
        "--to",
        "dau",
        "--boundaries",
        "--unpaired",
        "unpaired.tsv",
        "--out",
        "toy.jsonl",
    ];
    let o = pbebench_in(&args, d);
    let dataset = std::fs::read_to_string(d.join("toy.jsonl")).unwrap();
    let unpaired = std::fs::read_to_string(d.join("unpaired.tsv")).unwrap();
    let shown = snapshot(&o, &[(&s(toy.parent().unwrap()), "[TOY]")]);
    insta::assert_snapshot!(
        "pairs_cldf",
        format!("{shown}\n----- toy.jsonl -----\n{dataset}\n----- unpaired.tsv -----\n{unpaired}")
    );
}

/// `--name` with `--cldf` names the instances (their ids and so their language in
/// `solve --holdout`); without it, the ids are --to's ID.
#[test]
fn pairs_cldf_takes_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let ids = |extra: &[&str]| {
        let out = dir.path().join("named.jsonl");
        let mut args = vec![
            "pairs",
            "--cldf",
            &*s(&toy()),
            "--from",
            "proto",
            "--to",
            "dau",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
        args.extend(extra.iter().map(|a| a.to_string()));
        args.extend(["--chunk".into(), "3".into(), "--out".into(), s(&out)]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = pbebench(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
            .collect::<Vec<_>>()
    };
    let named = ids(&["--name", "toy-dau"]);
    assert!(named.len() > 1, "{named:?}");
    for (k, id) in named.iter().enumerate() {
        assert_eq!(id, &format!("\"toy-dau-{k}\""));
    }
    let unnamed = ids(&[]);
    assert_eq!(unnamed.len(), named.len());
    assert_eq!(unnamed[0], "\"dau-0\"");
}

/// Bad input is one line naming the flag or the file:line and the fix, exit 2.
#[test]
fn bad_cldf_input_is_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let toy = toy();
    let out = s(&dir.path().join("x.jsonl"));
    let run = |from: &str, to: &str| {
        pbebench(&[
            "pairs",
            "--cldf",
            &s(&toy),
            "--from",
            from,
            "--to",
            to,
            "--out",
            &out,
        ])
    };
    assert_fatal(&run("proto", "nope"), "--to: no language 'nope' in ");
    assert_fatal(&run("nope", "dau"), "its languages are proto, dau, other");
    assert_fatal(
        &run("dau", "dau"),
        "--from and --to are both the language 'dau'",
    );
    // A judgement that puts a form in a second cognate set.
    let copy = dir.path().join("toy");
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(toy.parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    let cognates = copy.join("cognates.csv");
    let text = std::fs::read_to_string(&cognates).unwrap() + "19,dau-eye,1\n";
    std::fs::write(&cognates, text).unwrap();
    let metadata = s(&copy.join("Wordlist-metadata.json"));
    let o = pbebench(&[
        "pairs", "--cldf", &metadata, "--from", "proto", "--to", "dau", "--out", &out,
    ]);
    assert_fatal(&o, "cognates.csv:20: the form 'dau-eye' is in the cognate set '1' here and in '5' on line 12: keep one judgement per form, or pair by concept (--link concepts)");
    let o = pbebench(&[
        "pairs", "--cldf", &metadata, "--from", "proto", "--to", "dau", "--link", "concepts",
        "--out", &out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_fatal(
        &pbebench(&[
            "pairs",
            "--cldf",
            &s(&toy),
            "--from",
            "proto",
            "--out",
            &out,
        ]),
        "the following required arguments were not provided",
    );
    assert_fatal(
        &pbebench(&["pairs", "--dir", ".", "--from", "proto", "--out", &out]),
        "the following required arguments were not provided",
    );
}

/// `derive` of an answer to a CLDF instance: IPA, sound laws, and the words the answer
/// leaves irregular.
#[test]
fn derive_shows_ipa_sound_laws_and_irregular_words() {
    let dir = tempfile::tempdir().unwrap();
    let data = toy_dataset(dir.path());
    // k > t͡ʃ / _ i, written in the dataset's symbols (C = t͡ʃ): aː > a is missing.
    let answer = r#"{"id":"dau","response":"```python\n[\"replace('ki', 'Ci')\"]\n```"}"#;
    let responses = write(dir.path(), "r.jsonl", &format!("{answer}\n"));
    let o = pbebench(&[
        "derive",
        "--dataset",
        &s(&data),
        "--id",
        "dau",
        "--responses",
        &s(&responses),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("derive_cldf", stdout(&o));
}

/// `solve --laws`: every rule beside its sound law; under a budget of one rule, the toy's
/// two changes cannot both be made, and the words left are listed as irregular.
#[test]
fn solve_prints_laws_and_irregular_words() {
    let dir = tempfile::tempdir().unwrap();
    let data = toy_dataset(dir.path());
    let out = s(&dir.path().join("r.jsonl"));
    let solve = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "--dataset",
            &*s(&data).leak(),
            "--out",
            &out,
            "--laws",
            "--time-limit",
            "5",
            "--fresh",
        ];
        args.extend(extra);
        let o = pbebench(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let full = solve(&[]);
    let rules: Vec<&str> = full.lines().filter(|l| l.contains("replace(")).collect();
    assert!(full.starts_with("dau: ") && !rules.is_empty(), "{full}");
    for rule in rules {
        assert!(rule.contains(") ") && rule.contains(" > "), "{full}");
    }
    assert!(!full.contains("irregular: "), "{full}");
    let one = solve(&["--max-rules", "1"]);
    assert!(one.starts_with("dau: 1 rule for 6 words\n"), "{one}");
    assert!(one.contains("  irregular: "), "{one}");
    assert_fatal(
        &pbebench(&["solve", "--dataset", &s(&data), "--out", "-", "--laws"]),
        "--laws reads the answers back from --out",
    );
    assert_fatal(
        &pbebench(&[
            "solve",
            "--dataset",
            &s(&data),
            "--out",
            &out,
            "--max-rules",
            "0",
        ]),
        "--max-rules must be between 1 and 1000, not 0",
    );
}

/// `solve --real`: sound laws that hurt no word, the same answer whatever the threads and
/// the time limit; the mode takes the place of a solver.
#[test]
fn real_mode_finds_the_laws_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    let data = toy_dataset(dir.path());
    let out = s(&dir.path().join("r.jsonl"));
    let solve = |threads: &str, limit: &str| {
        let o = pbebench(&[
            "solve",
            "--dataset",
            &s(&data),
            "--out",
            &out,
            "--laws",
            "--real",
            "--fresh",
            "--threads",
            threads,
            "--time-limit",
            limit,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let laws = solve("1", "5");
    insta::assert_snapshot!("solve_real_laws", laws);
    assert_eq!(solve("2", "60"), laws);
    let both = pbebench(&[
        "solve",
        "--dataset",
        &s(&data),
        "--real",
        "--solver",
        "beam",
    ]);
    assert_eq!(both.status.code(), Some(2), "{}", stderr(&both));
    assert!(stderr(&both).contains("--solver"), "{}", stderr(&both));
}

/// `--holdout --sweep`: one cross-validation per budget, a row per budget and language,
/// every row written with its budget, and the sweep drawn with --plot.
#[test]
fn holdout_sweeps_the_rule_budget() {
    let dir = tempfile::tempdir().unwrap();
    let data = toy_dataset(dir.path());
    let out = dir.path().join("cv.jsonl");
    let plot = dir.path().join("sweep.svg");
    let o = pbebench(&[
        "solve",
        "--dataset",
        &s(&data),
        "--holdout",
        "0.34",
        "--sweep",
        "1,half,3",
        "--plot",
        &s(&plot),
        "--out",
        &s(&out),
        "--time-limit",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    let rows: Vec<&str> = table.lines().skip(2).collect();
    let heads: Vec<String> = rows
        .iter()
        .map(|r| r.split(" | ").take(3).collect::<Vec<_>>().join(" | "))
        .collect();
    assert_eq!(
        heads,
        [
            "| 1 | dau | 2",
            "| 1 | all | 2",
            "| half | dau | 2",
            "| half | all | 2",
            "| 3 | dau | 2",
            "| 3 | all | 2"
        ],
        "{table}"
    );
    let written = std::fs::read_to_string(&out).unwrap();
    let budgets: Vec<String> = written
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["rules_allowed"].to_string())
        .collect();
    assert_eq!(budgets, ["\"1\"", "\"half\"", "\"3\""]);
    // The plot: the budgets in the order swept, the language's line and its identity.
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"), "{svg}");
    let ticks: Vec<&str> = ["1", "half", "3"]
        .into_iter()
        .filter(|t| svg.contains(&format!(r#"text-anchor="middle">{t}</text>"#)))
        .collect();
    assert_eq!(ticks, ["1", "half", "3"], "{svg}");
    assert!(svg.contains(">dau</text>") && svg.contains(">identity (dashed)</text>"));
    assert_fatal(
        &pbebench(&[
            "solve",
            "--dataset",
            &s(&data),
            "--holdout",
            "0.3",
            "--sweep",
            "1",
            "--plot",
            &s(&out),
            "--out",
            &s(&out),
        ]),
        "--plot",
    );
    let o = pbebench(&["solve", "--dataset", &s(&data), "--plot", &s(&plot)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--sweep"), "{}", stderr(&o));
    assert_fatal(
        &pbebench(&[
            "solve",
            "--dataset",
            &s(&data),
            "--holdout",
            "0.3",
            "--sweep",
            "1,x",
            "--out",
            &s(&out),
        ]),
        "--sweep: 'x' is no number of rules",
    );
}

/// `prompt` on a dataset read from CLDF ends by saying which stand-in symbol is which IPA
/// segment (A = aː, …); a dataset without symbols gets no such paragraph.
#[test]
fn prompts_explain_the_stand_in_symbols() {
    let dir = tempfile::tempdir().unwrap();
    let data = toy_dataset(dir.path());
    let o = pbebench(&["prompt", "--dataset", &s(&data)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    insta::assert_snapshot!("prompt_cldf", line["prompt"].as_str().unwrap());
}
