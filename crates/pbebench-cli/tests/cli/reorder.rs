//! The real `pbebench reorder` binary: the reordering set of a generated Lite set (its
//! summary a snapshot; the file read back, the same bytes under any thread count), and
//! one-line errors (exit 2).

use crate::common::*;
use crate::pbebench_snapshot;
use pbebench::reorder::{read_reorder_lines, score_order};

/// A small generated Lite set in `dir/data.jsonl`.
pub(crate) fn lite(dir: &std::path::Path) -> std::path::PathBuf {
    let data = dir.join("data.jsonl");
    let o = pbebench(&[
        "generate",
        "--preset",
        "lite",
        "--size",
        "64",
        "--seed",
        "3",
        "--out",
        &s(&data),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    data
}

#[test]
fn a_lite_set_gives_problems_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    lite(dir.path());
    let args = [
        "reorder",
        "--dataset",
        "data.jsonl",
        "--out",
        "reorder.jsonl",
        "--seed",
        "5",
        "--threads",
        "1",
    ];
    pbebench_snapshot!("reorder_summary", dir.path(), &args);
    let one = std::fs::read_to_string(dir.path().join("reorder.jsonl")).unwrap();
    let problems = read_reorder_lines(&one).unwrap();
    assert!(!problems.is_empty());
    for p in &problems {
        assert!(score_order(p, &p.order).exact, "{}", p.instance.id);
    }
    // The same bytes under another thread count; another seed scrambles differently.
    let mut two = args.to_vec();
    two[8] = "2";
    two[4] = "two.jsonl";
    let o = pbebench_in(&two, dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("two.jsonl")).unwrap(),
        one
    );
    let mut other = two.clone();
    other[6] = "6";
    let o = pbebench_in(&other, dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_ne!(
        std::fs::read_to_string(dir.path().join("two.jsonl")).unwrap(),
        one
    );
}

#[test]
fn to_standard_output_the_summary_goes_to_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let data = lite(dir.path());
    let o = pbebench(&["reorder", "--dataset", &s(&data), "--out", "-"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(read_reorder_lines(&stdout(&o)).is_ok());
    assert!(stderr(&o).contains(" kept, "), "{}", stderr(&o));
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let data = lite(dir.path());
    let out = s(&dir.path().join("r.jsonl"));
    assert_fatal(
        &pbebench(&["reorder", "--dataset", &s(&data), "--out", &s(&data)]),
        "--out",
    );
    let bad = write(dir.path(), "bad.jsonl", "{\"id\": 1}\n");
    assert_fatal(
        &pbebench(&["reorder", "--dataset", &s(&bad), "--out", &out]),
        "bad.jsonl:1",
    );
    assert!(!dir.path().join("r.jsonl").exists());
}
