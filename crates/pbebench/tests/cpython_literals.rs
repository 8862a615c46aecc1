//! Python string literals (`pbebench::pylit`) against CPython: every character name of
//! CPython's Unicode database through `\N{…}` in several spellings, and thousands of random
//! literals mixing prefixes, quotes and every kind of escape. `python3` evaluates them all
//! in one run and each answer must equal ours. Python is required: the test fails when
//! `python3` cannot be run.
//!
//! Three differences are allowed, all documented in `pylit`: a lone surrogate
//! (`'\ud800'`) is a valid Python `str` and no Rust string, so we refuse it; the names of
//! characters that CPython's (older) Unicode database lacks are known to us; and an alias
//! is matched whatever its spacing (`N B S P`), where CPython wants the alias's own.
#![cfg(feature = "python-names")]

mod cpython;

use pbebench::pylit::{character_named, parse_string_literal};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::collections::HashSet;

/// Reads the cases, answers them, writes the answers: for each name spelling, the
/// character `\N{spelling}` gives (or null); for each literal, its value when the text is
/// exactly one string literal (or null; `{"surrogate": true}` for a value Rust cannot hold).
const PYTHON: &str = r#"
import io, json, sys, tokenize, unicodedata, warnings
warnings.simplefilter("ignore")
with open(sys.argv[1], encoding="utf-8") as f:
    cases = json.load(f)

def named(spelling):
    try:
        return eval('"\\N{' + spelling + '}"')
    except SyntaxError:
        return None

def one_literal(src):
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(src).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
        if len(tokens) != 1 or tokens[0].type != tokenize.STRING or tokens[0].string != src:
            return None
        value = eval(src)
    except (SyntaxError, ValueError, tokenize.TokenError, IndentationError):
        return None
    if not isinstance(value, str):
        return None
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return {"surrogate": True}
    return value

names = []
for code in range(0x110000):
    name = unicodedata.name(chr(code), None)
    if name is None:
        continue
    algorithmic = name.startswith(("CJK UNIFIED IDEOGRAPH-", "HANGUL SYLLABLE "))
    if algorithmic and code % 97:
        continue
    names.append(name)
spellings = []
for name in names:
    for s in {name, name.lower(), name.title(), name.replace(" ", "_"),
              name.replace(" ", "  ", 1), name.replace(" ", ""), " " + name,
              name[:16].lower() + name[16:], name[:22] + name[22:].lower()}:
        spellings.append([s, named(s)])
for extra in cases["names"]:
    spellings.append([extra, named(extra)])
literals = [one_literal(src) for src in cases["literals"]]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    json.dump({"names": spellings, "literals": literals}, f, ensure_ascii=True)
"#;

/// Runs [`PYTHON`] on `cases` and returns its JSON answer.
fn run_python(cases: &Value) -> Value {
    cpython::run_python(PYTHON, cases)
}

/// Names that are no character's in any spelling CPython accepts, aliases, and the
/// edges of the algorithmic names.
const EXTRA_NAMES: [&str; 24] = [
    "NBSP",
    "nbsp",
    "N B S P",
    "LATIN CAPITAL LETTER GHA",
    "BYTE ORDER MARK",
    "NULL",
    "LINE FEED",
    "LF",
    "ZWJ",
    "HANGUL JUNGSEONG O-E",
    "HANGUL JUNGSEONG OE",
    "TIBETAN LETTER -A",
    "CJK UNIFIED IDEOGRAPH-04E00",
    "CJK UNIFIED IDEOGRAPH-4E0",
    "CJK UNIFIED IDEOGRAPH-0041",
    "CJK UNIFIED IDEOGRAPH-+4E0",
    "HANGUL SYLLABLE",
    "HANGUL SYLLABLE GAX",
    "hangul syllable GAG",
    "",
    "-A",
    "LATIN SMALL LETTER A WITH MACRON AND GRAVE",
    "latin small letter a ",
    "NO-BREAK SPACE",
];

/// An alias spelled with other spacing: CPython refuses it, we read it (the documented
/// difference: aliases are matched loosely).
const ALIAS_SPACING: [&str; 1] = ["N B S P"];

/// Pieces of literals: quotes, prefixes, every kind of escape, and plain text.
const PIECES: [&str; 44] = [
    "'",
    "\"",
    "'''",
    "\"\"\"",
    "\\",
    "\\\\",
    "\\'",
    "\\\"",
    "\\n",
    "\\t",
    "\\r",
    "\\a",
    "\\b",
    "\\f",
    "\\v",
    "\\0",
    "\\7",
    "\\101",
    "\\777",
    "\\8",
    "\\x4",
    "\\x41",
    "\\x+4",
    "\\xZZ",
    "\\u00e9",
    "\\u+0e9",
    "\\ud800",
    "\\U0001F600",
    "\\U00110000",
    "\\N{",
    "\\N{SNOWMAN}",
    "\\N{snowman}",
    "\\N{NBSP}",
    "\\N{BOGUS}",
    "}",
    "\n",
    "\\\n",
    "a",
    "bc",
    "é",
    "ʔː",
    " ",
    "{",
    "\\q",
];

const PREFIXES: [&str; 8] = ["", "", "", "r", "R", "u", "U", "b"];

fn random_literal(rng: &mut ChaCha8Rng) -> String {
    let quote = ["'", "\"", "'''", "\"\"\""][rng.random_range(0..4)];
    let body: String = (0..rng.random_range(0..8))
        .map(|_| PIECES[rng.random_range(0..PIECES.len())])
        .collect();
    let prefix = PREFIXES[rng.random_range(0..PREFIXES.len())];
    // Now and then no closing quote, or text after it.
    match rng.random_range(0..20) {
        0 => format!("{prefix}{quote}{body}"),
        1 => format!("{prefix}{quote}{body}{quote}x"),
        _ => format!("{prefix}{quote}{body}{quote}"),
    }
}

/// Ours, as the Python side answers: the value when the whole text is one literal.
fn ours(src: &str) -> Option<String> {
    match parse_string_literal(src, 0) {
        Ok((value, end)) if end == src.len() => Some(value),
        _ => None,
    }
}

#[test]
fn names_and_literals_match_cpython() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let literals: Vec<String> = (0..20_000).map(|_| random_literal(&mut rng)).collect();
    let answers = run_python(&json!({"names": EXTRA_NAMES, "literals": literals}));

    let names = answers["names"].as_array().unwrap();
    assert!(names.len() > 100_000, "{} spellings", names.len());
    let character = |pair: &Value| pair[1].as_str().map(|s| s.chars().next().unwrap());
    // The characters CPython's database names (a newer one is named by ours alone).
    let in_python: HashSet<char> = names.iter().filter_map(character).collect();
    let mut known = 0;
    for pair in names {
        let spelling = pair[0].as_str().unwrap();
        let python = character(pair);
        let got = character_named(spelling);
        if python.is_none() && got.is_some_and(|c| !in_python.contains(&c)) {
            continue;
        }
        if ALIAS_SPACING.contains(&spelling) {
            assert_eq!((got, python), (Some('\u{a0}'), None), "{spelling}");
            continue;
        }
        assert_eq!(got, python, "\\N{{{spelling}}}");
        known += usize::from(got.is_some());
    }
    assert!(known > 50_000, "{known} names known");

    let python = answers["literals"].as_array().unwrap();
    let mut values = 0;
    for (src, expected) in literals.iter().zip(python) {
        match expected {
            Value::String(value) => {
                assert_eq!(ours(src).as_ref(), Some(value), "{src:?}");
                values += 1;
            }
            Value::Null => assert_eq!(ours(src), None, "{src:?}: CPython refuses it"),
            surrogate => {
                assert_eq!(surrogate, &json!({"surrogate": true}));
                assert_eq!(
                    ours(src),
                    None,
                    "{src:?}: a lone surrogate is no Rust string"
                );
            }
        }
    }
    assert!(
        values > 5_000,
        "only {values} of the literals are valid Python"
    );
}
