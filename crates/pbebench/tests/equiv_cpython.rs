//! The equivalence engine against an independent reference written in Python: CPython's
//! own `str.replace`, `itertools.product` for the strings of the space (in the alphabet's
//! order) and `fractions.Fraction` for the probabilities. Hundreds of random pairs, with
//! multi-byte IPA letters; python3 is required (the test fails when it cannot run).

use pbebench::equiv::{self, InputSpace, Limits};
use pbebench::{Cascade, Rule};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::process::Command;

/// For each case: equivalence, the first shortest counterexample, and both probabilities
/// as [numerator, denominator] (the changed one null when the reference changes nothing).
const PYTHON: &str = r#"
import itertools, json, sys
from fractions import Fraction

def run(rules, s):
    for a, b in rules:
        s = s.replace(a, b)
    return s

def judge(case):
    alphabet, lo, hi = case["alphabet"], case["lo"], case["hi"]
    agree, changed, agree_changed, first = Fraction(0), Fraction(0), Fraction(0), None
    for n in range(lo, hi + 1):
        p = Fraction(1, (hi - lo + 1) * len(alphabet) ** n)
        for letters in itertools.product(alphabet, repeat=n):
            s = "".join(letters)
            oa, ob = run(case["a"], s), run(case["b"], s)
            if oa == ob:
                agree += p
            elif first is None:
                first = s
            if oa != s:
                changed += p
                if oa == ob:
                    agree_changed += p
    share = agree_changed / changed if changed else None
    pair = lambda f: None if f is None else [f.numerator, f.denominator]
    return {"counterexample": first, "agreement": pair(agree), "changed": pair(share)}

with open(sys.argv[1], encoding="utf-8") as f:
    cases = json.load(f)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump([judge(c) for c in cases], f, ensure_ascii=False)
"#;

/// Alphabets that make overlaps likely, and one of two-byte IPA letters.
const POOLS: [&[char]; 3] = [&['a', 'b'], &['a', 'b', 'c'], &['ʔ', 'ː', 'é', 'a']];

fn word(rng: &mut ChaCha8Rng, letters: &[char], min: usize, max: usize) -> String {
    let len = rng.random_range(min..=max);
    (0..len)
        .map(|_| letters[rng.random_range(0..letters.len())])
        .collect()
}

fn cascade(rng: &mut ChaCha8Rng, letters: &[char], max_rules: usize) -> Vec<Rule> {
    (0..rng.random_range(0..=max_rules))
        .map(|_| Rule::new(word(rng, letters, 1, 3), word(rng, letters, 0, 3)).unwrap())
        .collect()
}

/// An answer made from the reference: unchanged, reordered, a rule dropped or replaced,
/// the identity, or an unrelated cascade.
fn answer(rng: &mut ChaCha8Rng, reference: &[Rule], letters: &[char]) -> Vec<Rule> {
    let mut rules = reference.to_vec();
    let n = rules.len();
    match rng.random_range(0..6) {
        0 => {}
        1 if n >= 2 => {
            let k = rng.random_range(0..n - 1);
            rules.swap(k, k + 1);
        }
        2 if n >= 1 => {
            rules.remove(rng.random_range(0..n));
        }
        3 if n >= 1 => {
            rules[rng.random_range(0..n)] = cascade(rng, letters, 1)
                .pop()
                .unwrap_or_else(|| Rule::new("a", "").unwrap())
        }
        4 => rules.clear(),
        _ => rules = cascade(rng, letters, 4),
    }
    rules
}

#[test]
fn the_engine_agrees_with_a_python_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_e901);
    let cases: Vec<Value> = (0..400)
        .map(|_| {
            let alphabet = POOLS[rng.random_range(0..POOLS.len())];
            let letters: Vec<char> = alphabet.iter().copied().chain(['x']).collect();
            let a = cascade(&mut rng, &letters, 5);
            let b = answer(&mut rng, &a, &letters);
            let lo = rng.random_range(0..=2);
            let hi = rng.random_range(lo.max(1)..=if alphabet.len() > 3 { 4 } else { 5 });
            json!({
                "alphabet": alphabet.iter().collect::<String>(),
                "lo": lo, "hi": hi,
                "a": Cascade::new(a), "b": Cascade::new(b),
            })
        })
        .collect();
    let answers = run_python(&Value::Array(cases.clone()));
    let answers = answers.as_array().expect("a list");
    assert_eq!(answers.len(), cases.len());
    let mut differ = 0;
    for (case, python) in cases.iter().zip(answers) {
        let a: Cascade = serde_json::from_value(case["a"].clone()).unwrap();
        let b: Cascade = serde_json::from_value(case["b"].clone()).unwrap();
        let (lo, hi) = (
            case["lo"].as_u64().unwrap() as usize,
            case["hi"].as_u64().unwrap() as usize,
        );
        let space = InputSpace::new(case["alphabet"].as_str().unwrap().chars(), lo, hi).unwrap();
        let found = equiv::compare(&a, &b, &space, &Limits::default()).expect("decided");
        let pair = |r: equiv::Ratio| json!([r.numerator() as u64, r.denominator() as u64]);
        let ours = json!({
            "counterexample": found.counterexample.as_ref().map(|c| c.input.clone()),
            "agreement": pair(found.agreement),
            "changed": found.changed_agreement.map(pair),
        });
        assert_eq!(&ours, python, "{case}");
        differ += !found.equivalent() as usize;
    }
    // both verdicts are well represented
    assert!(
        (100..300).contains(&differ),
        "{differ} of {} pairs differ",
        cases.len()
    );
}

/// Runs [`PYTHON`] on `cases` and returns its JSON answer.
fn run_python(cases: &Value) -> Value {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let input = dir.path().join("cases.json");
    let output = dir.path().join("answers.json");
    std::fs::write(&input, serde_json::to_vec(cases).unwrap()).unwrap();
    let status = Command::new("python3")
        .arg("-c")
        .arg(PYTHON)
        .arg(&input)
        .arg(&output)
        .status()
        .unwrap_or_else(|e| panic!("cannot run python3 ({e}): this check compares with CPython"));
    assert!(status.success(), "python3 failed on the cases: {status}");
    let text = std::fs::read_to_string(&output).expect("python3 wrote its answers");
    serde_json::from_str(&text).expect("python3 wrote JSON")
}
