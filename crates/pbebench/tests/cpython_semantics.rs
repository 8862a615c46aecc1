//! `Rule::apply` and `Cascade::apply` against CPython's `str.replace` (`docs/semantics.md#rules`).
//!
//! Thousands of random cases (overlapping patterns, empty replacements, multi-byte letters)
//! are written to a temporary JSON file, `python3` runs all of them once, and every answer
//! must equal ours. Python is required: the test fails when `python3` cannot be run.

mod cpython;

use pbebench::{Cascade, Rule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// Letters that make overlaps likely, plus multi-byte IPA letters (2-byte é, ʔ, ː).
const LETTERS: [&[char]; 3] = [
    &['a', 'b'],
    &['a', 'b', 'c', 'é'],
    &['a', 'ʔ', 'ː', 'é', 'x'],
];

/// Applies every case in Python; returns its `replace` results and cascade outputs.
const PYTHON: &str = r#"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    cases = json.load(f)
replaced = [s.replace(a, b) for s, a, b in cases["replace"]]
cascaded = []
for case in cases["cascades"]:
    outputs = []
    for s in case["inputs"]:
        for a, b in case["rules"]:
            s = s.replace(a, b)
        outputs.append(s)
    cascaded.append(outputs)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump({"replace": replaced, "cascades": cascaded}, f, ensure_ascii=False)
"#;

fn random_string(rng: &mut ChaCha8Rng, letters: &[char], max: usize, min: usize) -> String {
    let len = rng.random_range(min..=max);
    (0..len)
        .map(|_| letters[rng.random_range(0..letters.len())])
        .collect()
}

/// `(s, a, b)` cases: hand-picked overlaps, then random ones.
fn replace_cases(rng: &mut ChaCha8Rng, count: usize) -> Vec<(String, String, String)> {
    let mut cases: Vec<(String, String, String)> = [
        ("aaa", "aa", "b"),
        ("aaaa", "aa", "b"),
        ("aaaaa", "aa", ""),
        ("ababa", "aba", "x"),
        ("aabababab", "aba", ""),
        ("bab", "ba", "cb"),
        ("aba", "a", "aa"),
        ("ʔːʔːʔ", "ʔːʔ", ""),
        ("éé", "é", "ée"),
        ("", "a", "b"),
        ("abc", "abcd", "x"),
    ]
    .iter()
    .map(|&(s, a, b)| (s.to_owned(), a.to_owned(), b.to_owned()))
    .collect();
    while cases.len() < count {
        let letters = LETTERS[rng.random_range(0..LETTERS.len())];
        let s = random_string(rng, letters, 14, 0);
        let a = random_string(rng, letters, 3, 1);
        let b = random_string(rng, letters, 3, 0);
        cases.push((s, a, b));
    }
    cases
}

/// Random cascades of 1–6 rules, each with a few inputs.
fn cascade_cases(rng: &mut ChaCha8Rng, count: usize) -> Vec<(Cascade, Vec<String>)> {
    (0..count)
        .map(|_| {
            let letters = LETTERS[rng.random_range(0..LETTERS.len())];
            let rules = (0..rng.random_range(1..=6))
                .map(|_| {
                    let a = random_string(rng, letters, 3, 1);
                    let b = random_string(rng, letters, 3, 0);
                    Rule::new(a, b).expect("non-empty pattern")
                })
                .collect();
            let inputs = (0..rng.random_range(1..=4))
                .map(|_| random_string(rng, letters, 10, 0))
                .collect();
            (Cascade::new(rules), inputs)
        })
        .collect()
}

/// Runs [`PYTHON`] on `cases` and returns its JSON answer.
fn run_python(cases: &Value) -> Value {
    cpython::run_python(PYTHON, cases)
}

#[test]
fn replace_and_cascades_match_cpython() {
    let mut rng = ChaCha8Rng::seed_from_u64(2505);
    let replaces = replace_cases(&mut rng, 5000);
    let cascades = cascade_cases(&mut rng, 2000);
    let cases = json!({
        "replace": replaces,
        "cascades": cascades
            .iter()
            .map(|(cascade, inputs)| json!({"rules": cascade, "inputs": inputs}))
            .collect::<Vec<_>>(),
    });
    let answers = run_python(&cases);

    let python: Vec<String> = serde_json::from_value(answers["replace"].clone()).unwrap();
    assert_eq!(python.len(), replaces.len());
    let mut out = String::new();
    for ((s, a, b), expected) in replaces.iter().zip(&python) {
        let rule = Rule::new(a.as_str(), b.as_str()).unwrap();
        let at = format!("{s:?}.replace({a:?}, {b:?})");
        assert_eq!(&rule.apply(s), expected, "{at}");
        let changed = rule.apply_into(s, &mut out);
        assert_eq!(&out, expected, "{at} via apply_into");
        assert_eq!(changed, expected != s, "{at}: apply_into's change flag");
    }

    let python: Vec<Vec<String>> = serde_json::from_value(answers["cascades"].clone()).unwrap();
    assert_eq!(python.len(), cascades.len());
    for ((cascade, inputs), expected) in cascades.iter().zip(&python) {
        assert_eq!(
            &cascade.apply_all(inputs),
            expected,
            "cascade {} on {inputs:?}",
            cascade.to_json()
        );
    }
    println!(
        "{} replace cases and {} cascades agree with CPython",
        replaces.len(),
        cascades.len()
    );
}
