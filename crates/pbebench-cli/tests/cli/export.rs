//! `pbebench export` run as a binary: our file → the authors' format → `inspect` gives the
//! same instances, and their published files → ours → theirs give the same bytes.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

fn ok(o: std::process::Output) -> std::process::Output {
    assert!(o.status.success(), "{}", stderr(&o));
    o
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `pbebench inspect --format json` of `file`, without the file's name.
fn inspected(file: &Path) -> Value {
    let o = ok(pbebench(&["inspect", &s(file), "--format", "json"]));
    let mut stats: Value = serde_json::from_str(&stdout(&o)).unwrap();
    stats.as_object_mut().unwrap().remove("file");
    stats
}

#[test]
fn our_file_to_theirs_inspects_as_the_same_instances() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("lite.jsonl");
    let theirs = dir.path().join("lite.authors.jsonl");
    ok(pbebench(&[
        "generate",
        "--preset",
        "lite",
        "--size",
        "48",
        "--seed",
        "5",
        "--heldout",
        "0",
        "--out",
        &s(&ours),
    ]));
    let o = ok(pbebench(&[
        "export",
        "--to",
        "authors",
        "--dataset",
        &s(&ours),
        "--out",
        &s(&theirs),
    ]));
    let err = stderr(&o);
    assert!(
        err.contains("wrote 48 instances in the authors' format"),
        "{err}"
    );
    // Generated ids are no line numbers, and the generator's classifier is the exact one.
    assert!(
        err.contains("48 of 48 instances: the format has no ids"),
        "{err}"
    );
    assert!(err.contains("by the exact classifier"), "{err}");
    assert!(
        !err.contains("held-out") && !err.contains("limits"),
        "{err}"
    );

    assert_eq!(inspected(&theirs), inspected(&ours));
    let text = |p: &Path| stdout(&ok(pbebench(&["inspect", &s(p)])));
    assert_eq!(
        text(&theirs).replace(&s(&theirs), "FILE"),
        text(&ours).replace(&s(&ours), "FILE")
    );

    // Read back, every field the format carries is the instance's.
    let raw = std::fs::read_to_string(&theirs).unwrap();
    for ((mine, back), line) in read_lines(&ours)
        .iter()
        .zip(read_lines(&theirs))
        .zip(raw.lines())
    {
        let order = [
            "inputs",
            "outputs",
            "programs",
            "bfcc_dag",
            "cascade_length",
            "bfcc_string",
            "bfcc_category",
        ];
        let at: Vec<usize> = order
            .iter()
            .map(|k| line.find(&format!("\"{k}\": ")).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{line}");
        assert_eq!(back.as_object().unwrap().len(), order.len());
        assert_eq!(back["inputs"], mine["inputs"]);
        assert_eq!(back["outputs"], mine["outputs"]);
        assert_eq!(back["bfcc_category"], mine["category"]);
        assert_eq!(back["cascade_length"], mine["cascade_len"]);
        let n = mine["cascade_len"].as_u64().unwrap() as usize;
        assert_eq!(back["bfcc_dag"].as_array().unwrap().len(), n * (n - 1));
    }
    // Held-out examples are not part of the format: export says so.
    let heldout = dir.path().join("heldout.jsonl");
    ok(pbebench(&[
        "generate",
        "--preset",
        "lite",
        "--size",
        "16",
        "--heldout",
        "2",
        "--out",
        &s(&heldout),
    ]));
    let o = ok(pbebench(&[
        "export",
        "--to",
        "authors",
        "--dataset",
        &s(&heldout),
    ]));
    assert!(
        stderr(&o).contains("16 of 16 instances: held-out examples left out"),
        "{}",
        stderr(&o)
    );
    let again = dir.path().join("again.jsonl");
    ok(pbebench(&[
        "export",
        "--to",
        "pbebench",
        "--dataset",
        &s(&theirs),
        "--out",
        &s(&again),
    ]));
    // Read back, each instance is the one exported, but for its id and, where the two
    // classifiers agree on its cascade (so that bfcc_dag cannot tell them apart), the
    // name of its classifier.
    let relations = |cascade: &Value, mode: &str| {
        let o = ok(pbebench(&[
            "relations",
            "--cascade",
            &cascade.to_string(),
            "--mode",
            mode,
            "--format",
            "json",
        ]));
        serde_json::from_str::<Value>(&stdout(&o)).unwrap()
    };
    let mut exact = 0;
    for (k, (mine, back)) in read_lines(&ours).iter().zip(read_lines(&again)).enumerate() {
        assert_eq!(back["id"], k.to_string());
        let differ = relations(&mine["cascade"], "paper") != relations(&mine["cascade"], "exact");
        let expected = if differ { "exact" } else { "paper" };
        assert_eq!(back["relations_mode"], expected, "instance {k}");
        exact += usize::from(differ);
        let mut mine = mine.clone();
        let mut back = back.clone();
        for (field, value) in [("id", "0"), ("relations_mode", "either")] {
            mine[field] = value.into();
            back[field] = value.into();
        }
        assert_eq!(back, mine, "instance {k}");
    }
    assert!(
        exact > 0,
        "some cascades are labelled differently by the two classifiers"
    );
}

/// The published files, complete: theirs → ours → theirs is the same file, byte for byte.
#[test]
fn published_files_to_ours_and_back_are_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, lite) in [
        ("adaptive_balanced_1008_complete.jsonl", true),
        (
            "adaptive_balanced_64_hard_50_inputs_10_cascade_bbr.jsonl",
            false,
        ),
        (
            "adaptive_balanced_64_hard_50_inputs_30_cascade_unified_latest.jsonl",
            false,
        ),
    ] {
        let published = pbebench_testdata::path(name);
        let ours = dir.path().join(format!("ours-{name}"));
        let back = dir.path().join(format!("back-{name}"));
        ok(pbebench(&[
            "export",
            "--to",
            "pbebench",
            "--dataset",
            &s(&published),
            "--out",
            &s(&ours),
        ]));
        let mut args = vec!["export", "--to", "authors", "--dataset"];
        let ours_arg = s(&ours);
        args.push(&ours_arg);
        if lite {
            args.push("--original-programs");
        }
        let o = ok(pbebench(&args));
        assert!(
            stdout(&o) == std::fs::read_to_string(&published).unwrap(),
            "{name}"
        );
        // Read as the authors' records: nothing is lost on the way.
        assert_eq!(stderr(&o), "", "{name}");
        std::fs::write(&back, o.stdout).unwrap();
        assert!(std::fs::read(&back).unwrap() == std::fs::read(&published).unwrap());
    }
}

#[test]
fn what_cannot_be_exported_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.jsonl");
    ok(pbebench(&[
        "pairs",
        "--dir",
        &s(&pbebench_testdata::path("real_sli")),
        "--out",
        &s(&real),
    ]));
    let out = dir.path().join("x.jsonl");
    let o = pbebench(&[
        "export",
        "--to",
        "authors",
        "--dataset",
        &s(&real),
        "--out",
        &s(&out),
    ]);
    assert_fatal(
        &o,
        "real.jsonl:1: instance atr_hawaiian-0 has no gold cascade",
    );
    assert!(!out.exists(), "nothing is written");
    let bad = write(dir.path(), "bad.jsonl", "{\"inputs\": [\"a\"]}\n{\n");
    assert_fatal(
        &pbebench(&["export", "--to", "authors", "--dataset", &s(&bad)]),
        "bad.jsonl:1",
    );
    assert_fatal(
        &pbebench(&[
            "export",
            "--to",
            "pbebench",
            "--relations",
            "paper",
            "--dataset",
            &s(&real),
        ]),
        "only to --to authors",
    );
    // Real data in our own format is fine.
    ok(pbebench(&[
        "export",
        "--to",
        "pbebench",
        "--dataset",
        &s(&real),
        "--out",
        &s(&out),
    ]));
    assert_eq!(read_lines(&out), read_lines(&real));
}

/// `--relations paper` writes the authors' labels whatever classifier made the dataset.
/// An instance whose segments are written as symbols (as `pairs --cldf` writes them) is
/// refused: the authors' format would lose the mapping, and the words would read back as
/// the symbols.
#[test]
fn a_symbol_mapping_is_refused_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("g.jsonl");
    ok(pbebench(&[
        "generate",
        "--preset",
        "lite",
        "--size",
        "16",
        "--seed",
        "5",
        "--heldout",
        "0",
        "--out",
        &s(&ours),
    ]));
    let first = std::fs::read_to_string(&ours).unwrap();
    let mut record: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    record["symbols"] = serde_json::json!({"A": "aː"});
    let id = record["id"].as_str().unwrap().to_owned();
    let with = write(dir.path(), "symbols.jsonl", &format!("{record}\n"));
    let out = dir.path().join("x.jsonl");
    assert_fatal(
        &pbebench(&["export", "--to", "authors", "--dataset", &s(&with), "--out", &s(&out)]),
        &format!("symbols.jsonl:1: instance {id} writes segments as one symbol each (A = aː): the authors' format has no field for that mapping"),
    );
    assert!(!out.exists(), "nothing is written");
    // pbebench's own format carries it.
    ok(pbebench(&[
        "export",
        "--to",
        "pbebench",
        "--dataset",
        &s(&with),
        "--out",
        &s(&out),
    ]));
    assert!(std::fs::read_to_string(&out).unwrap().contains("aː"));
}

#[test]
fn relations_can_be_relabelled_as_the_authors_did() {
    let dir = tempfile::tempdir().unwrap();
    let published = pbebench_testdata::path("adaptive_balanced_1008_complete.jsonl");
    let exact = dir.path().join("exact.jsonl");
    ok(pbebench(&[
        "export",
        "--to",
        "authors",
        "--relations",
        "exact",
        "--original-programs",
        "--dataset",
        &s(&published),
        "--out",
        &s(&exact),
    ]));
    assert_ne!(
        std::fs::read(&exact).unwrap(),
        std::fs::read(&published).unwrap(),
        "the exact classifier labels some published cascades differently"
    );
    let o = ok(pbebench(&[
        "export",
        "--to",
        "authors",
        "--relations",
        "paper",
        "--original-programs",
        "--dataset",
        &s(&exact),
    ]));
    assert!(stdout(&o) == std::fs::read_to_string(&published).unwrap());
}
