//! The real `pbebench equiv` binary: its text (snapshots) and JSON outputs, exit codes on
//! bad input (2) and undecided comparisons (3).

use crate::common::*;

fn repeat(rule: &str, times: usize) -> String {
    format!("[{}]", vec![rule; times].join(","))
}

#[test]
fn text_output_for_humans() {
    let differ = pbebench(&[
        "equiv",
        "--cascade",
        r#"[["ab","c"],["c","d"]]"#,
        "--cascade",
        r#"[["c","d"],["ab","c"]]"#,
        "--alphabet",
        "abc",
        "--input-len",
        "2..6",
    ]);
    assert_eq!(differ.status.code(), Some(0), "{}", stderr(&differ));
    insta::assert_snapshot!("equiv_not_equivalent", stdout(&differ));

    let same = pbebench(&[
        "equiv",
        "--cascade",
        r#"[["a","b"],["c","c"]]"#,
        "--cascade",
        r#"[["c","c"],["a","b"]]"#,
        "--alphabet",
        "a-c",
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    insta::assert_snapshot!("equiv_equivalent", stdout(&same));
}

#[test]
fn json_output_has_exactly_the_documented_fields() {
    let o = pbebench(&[
        "equiv",
        "--cascade",
        r#"[["a","b"]]"#,
        "--cascade",
        "[]",
        "--alphabet",
        "ab",
        "--input-len",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"equivalent":false,"counterexample":"aa","outputs":["bb","aa"],"agreement":0.25,"changed_agreement":0.0}"#
    );
    // equivalent, and a reference that changes nothing: nulls
    let o = pbebench(&[
        "equiv",
        "--cascade",
        "[]",
        "--cascade",
        r#"[["z","y"]]"#,
        "--alphabet",
        "ʔːa",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"equivalent":true,"counterexample":null,"outputs":null,"agreement":1.0,"changed_agreement":null}"#
    );
}

#[test]
fn cascades_from_files_and_outputs_too_long_to_print() {
    let dir = tempfile::tempdir().unwrap();
    let blowup = dir.path().join("blowup.json");
    std::fs::write(&blowup, repeat(r#"["a","aaa"]"#, 20)).unwrap();
    let at = format!("@{}", s(&blowup));
    let o = pbebench(&[
        "equiv",
        "--cascade",
        &at,
        "--cascade",
        "[]",
        "--alphabet",
        "ab",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["counterexample"], "aa");
    assert_eq!(v["outputs"], serde_json::json!([null, "aa"]));
    assert_eq!(v["changed_agreement"], 0.0);
}

#[test]
fn bad_input_is_one_error_line_and_exit_2() {
    let run = |extra: &[&str]| {
        let mut args = vec!["equiv"];
        args.extend_from_slice(extra);
        pbebench(&args)
    };
    let ok = ["--cascade", "[]", "--cascade", "[]"];
    assert_fatal(
        &run(&[
            "--cascade",
            "[[\"\",\"x\"]]",
            "--cascade",
            "[]",
            "--alphabet",
            "ab",
        ]),
        "--cascade",
    );
    assert_fatal(
        &run(&["--cascade", "[]", "--alphabet", "ab"]),
        "exactly two cascades",
    );
    assert_fatal(
        &run(&[&ok[..], &["--alphabet", ""]].concat()),
        "gives 0 letters",
    );
    assert_fatal(
        &run(&[&ok[..], &["--alphabet", "aba"]].concat()),
        "appears twice",
    );
    assert_fatal(
        &run(&[&ok[..], &["--alphabet", "z-a"]].concat()),
        "--alphabet",
    );
    assert_fatal(
        &run(&[&ok[..], &["--alphabet", "ab", "--input-len", "6..2"]].concat()),
        "empty",
    );
    assert_fatal(
        &run(&[&ok[..], &["--alphabet", "full", "--input-len", "2..40"]].concat()),
        "too many strings",
    );
    assert_fatal(
        &run(&[
            "--cascade",
            "@/nonexistent/c.json",
            "--cascade",
            "[]",
            "--alphabet",
            "a",
        ]),
        "cannot read",
    );
}

#[test]
fn undecided_comparisons_exit_3_and_say_why() {
    let (a, b) = (repeat(r#"["a","aaa"]"#, 20), repeat(r#"["a","aaa"]"#, 19));
    let o = pbebench(&[
        "equiv",
        "--cascade",
        &a,
        "--cascade",
        &b,
        "--alphabet",
        "ab",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("undecided: both cascades write outputs longer than 1024"),
        "{err}"
    );
    let help = stdout(&pbebench(&["equiv", "--help"]));
    assert!(
        help.contains("3 when the engine ran into one of its bounds"),
        "{help}"
    );
}
