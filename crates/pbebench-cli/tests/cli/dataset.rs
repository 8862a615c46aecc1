//! The one check of every instance read (`Instance::problems`): every command that reads a
//! dataset refuses a line past a limit or at odds with itself, with `file:line` and the
//! field; `apply` bounds every string as the other paths that apply a cascade do.

use crate::common::{assert_fatal, pbebench, pbebench_with_stdin, s, stderr, stdout, write};

/// A sound line, which each case breaks in one place.
const GOOD: &str = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"cascade":[["a",""]],"cascade_len":1,"max_rules":2,"max_rule_len":1,"alphabet":"ab"}"#;

/// `(what GOOD becomes, what the message says)`.
fn cases() -> Vec<(String, &'static str)> {
    let blowup = serde_json::to_string(&vec![["a", "aaa"]; 20]).unwrap();
    vec![
        (
            GOOD.replace(
                r#""max_rule_len":1"#,
                r#""max_rule_len":18446744073709551615"#,
            ),
            "max_rule_len is 18446744073709551615, more than the limit of 32: give 1 to 32",
        ),
        (
            GOOD.replace(r#""alphabet":"ab""#, r#""alphabet":"aab""#),
            "alphabet repeats the letter 'a': give each letter once",
        ),
        (
            GOOD.replace(r#""outputs":["b"]"#, r#""outputs":["bb"]"#),
            r#"example 0: the cascade maps "ab" to "b", not "bb""#,
        ),
        (
            GOOD.replace(r#""cascade_len":1,"#, ""),
            "not an instance: missing field `cascade_len`: give the number of rules of `cascade` (1)",
        ),
        (
            GOOD.replace(
                r#""cascade":[["a",""]],"cascade_len":1"#,
                &format!(r#""cascade":{blowup},"cascade_len":20"#),
            ),
            "example 0: the cascade writes a string longer than 1000 characters",
        ),
    ]
}

#[test]
fn every_reader_refuses_a_line_past_a_limit_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let responses = write(d, "r.jsonl", "{\"id\":\"a\",\"response\":\"x\"}\n");
    let out = |name: &str| s(&d.join(name));
    for (line, needle) in cases() {
        let data = s(&write(d, "d.jsonl", &format!("{line}\n")));
        let o = pbebench(&["inspect", &data]);
        assert_eq!(o.status.code(), Some(1), "{needle}");
        assert!(
            stdout(&o).contains(&format!("line 1: {needle}")),
            "{needle}: {}",
            stdout(&o)
        );
        let readers: [Vec<String>; 9] = [
            vec!["solve".into(), "--out".into(), out("o.jsonl")],
            vec!["score".into(), "--responses".into(), s(&responses)],
            vec!["prompt".into()],
            vec!["vet".into(), "--out".into(), out("v.jsonl")],
            vec!["audit".into(), "--out".into(), out("a.json")],
            vec![
                "export".into(),
                "--to".into(),
                "authors".into(),
                "--out".into(),
                out("e.jsonl"),
            ],
            vec!["derive".into(), "--id".into(), "a".into()],
            vec![
                "eval".into(),
                "--run".into(),
                out("run"),
                "--solver-cmd".into(),
                "cat".into(),
            ],
            vec![
                "report".into(),
                "--results".into(),
                s(&responses),
                "--out".into(),
                out("rep"),
            ],
        ];
        for mut args in readers {
            args.extend(["--dataset".to_owned(), data.clone()]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = pbebench(&args);
            if args[0] == "audit" && needle.contains("the cascade maps") {
                // The audit reads a gold that contradicts its examples, to fail its gold
                // gate with the instance flagged, where every other reader refuses it.
                assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
                assert!(stderr(&o).contains("audit FAILED gold"), "{}", stderr(&o));
                continue;
            }
            assert_fatal(&o, &format!("d.jsonl:1: {needle}"));
        }
    }
}

/// 20 × `["a", "aaa"]` once made `apply` abort on a failed allocation (exit 134); its
/// strings are now bounded as in `derive` and scoring, and the word at fault is named.
#[test]
fn apply_bounds_every_string_as_the_other_paths_do() {
    let blowup = serde_json::to_string(&vec![["a", "aaa"]; 20]).unwrap();
    let o = pbebench(&["apply", "--cascade", &blowup, "b", "a"]);
    assert_fatal(
        &o,
        r#"word 2 ("a"): rule 6 makes a string longer than 256 characters (16 times the word's length, and at least 256)"#,
    );
    assert_eq!(stdout(&o), "b\n");
    let o = pbebench_with_stdin(&["apply", "--cascade", &blowup], b"b\na\n");
    assert_fatal(
        &o,
        "standard input line 2: rule 6 makes a string longer than 256",
    );
    // Within the bound, as before.
    let o = pbebench(&["apply", "--cascade", r#"[["a","aaa"],["a","aaa"]]"#, "a"]);
    assert_eq!(stdout(&o), "aaaaaaaaa\n");
}
