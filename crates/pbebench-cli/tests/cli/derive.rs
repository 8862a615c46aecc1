//! The real `pbebench derive` binary: the derivation table of words (snapshots, text and
//! HTML), of an instance by its gold and by an answer, and one-line errors (exit 2).

use crate::common::*;

/// A Lite-like instance: gold cx -> fad, j -> d, x -> wcw, dh -> kw.
const INSTANCE: &str = r#"{"id":"lite-0","inputs":["zjhxk","bikc","hwgxz","cxvu"],"outputs":["zkwwcwk","bikc","hwgwcwz","fadvu"],"cascade":[["cx","fad"],["j","d"],["x","wcw"],["dh","kw"]],"cascade_len":4,"max_rules":5,"max_rule_len":3,"alphabet":"abcdefghijkuvwxyz"}"#;

#[test]
fn a_cascade_on_words_as_text_and_html() {
    let args = [
        "derive",
        "--cascade",
        r#"[["a","b"],["b","c"],["c","a"]]"#,
        "ab",
        "ca",
        "x",
    ];
    let o = pbebench(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("derive_text", stdout(&o));
    let mut html = args.to_vec();
    html.extend(["--format", "html"]);
    let o = pbebench(&html);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("derive_html", stdout(&o));
}

#[test]
fn an_instance_by_its_gold_and_by_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "data.jsonl", &format!("{INSTANCE}\n"));
    let o = pbebench(&["derive", "--dataset", &s(&data), "--id", "lite-0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("derive_gold", stdout(&o));
    // An answer that fits three of the four examples: the wrong output is marked.
    let answer = r#"{"id":"lite-0","response":"```python\n[\"replace('cx', 'fad')\", \"replace('x', 'wcw')\"]\n```"}"#;
    let responses = write(dir.path(), "r.jsonl", &format!("{answer}\n"));
    let o = pbebench(&[
        "derive",
        "--dataset",
        &s(&data),
        "--id",
        "lite-0",
        "--responses",
        &s(&responses),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("derive_answer", stdout(&o));
}

#[test]
fn bad_arguments_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let data = write(dir.path(), "data.jsonl", &format!("{INSTANCE}\n"));
    assert_fatal(
        &pbebench(&["derive", "--dataset", &s(&data), "--id", "nope"]),
        "no instance with id 'nope'",
    );
    assert_fatal(
        &pbebench(&["derive", "--cascade", "[[\"a\"", "ab"]),
        "--cascade",
    );
    assert_fatal(&pbebench(&["derive", "ab"]), "give --cascade");
    // An exploding cascade is cut off, not followed.
    let boom = format!("[{}]", vec![r#"["a","aaa"]"#; 20].join(","));
    let o = pbebench(&["derive", "--cascade", &boom, "a"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("forms longer than 256 characters"));
}
