//! The response parser never panics, and stays linear on huge or deeply nested garbage.

use pbebench::{parse_block, parse_response, BlockChoice, RuleLimits};
use proptest::prelude::*;
use std::time::{Duration, Instant};

fn limits() -> RuleLimits {
    RuleLimits {
        max_rules: 5,
        max_rule_len: 3,
        alphabet: Some(pbebench::Alphabet::new("abc")),
    }
}

/// Pieces that reach deep into the parser when glued together.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("```".to_owned()),
        Just("```python\n".to_owned()),
        Just("```py ".to_owned()),
        Just("<think>".to_owned()),
        Just("</think>".to_owned()),
        Just("replace".to_owned()),
        Just("s.replace(".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just(",".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("'''".to_owned()),
        Just("\\".to_owned()),
        Just("r'".to_owned()),
        Just("b'".to_owned()),
        Just("f\"".to_owned()),
        Just("\\x4".to_owned()),
        Just("\\u12".to_owned()),
        Just("\n".to_owned()),
        Just("#".to_owned()),
        Just("=".to_owned()),
        Just(".".to_owned()),
        Just("def ".to_owned()),
        Just("'a'".to_owned()),
        Just("\"bc\"".to_owned()),
        Just("ʔː".to_owned()),
        Just(" ".to_owned()),
        "[a-c]{1,3}".prop_map(|s| s),
        any::<char>().prop_map(|c| c.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        for block in [BlockChoice::First, BlockChoice::Last] {
            let parsed = parse_response(&text, &limits(), block);
            prop_assert!(parsed.rules.len() <= 5);
        }
        let _ = parse_block(&text);
    }

    #[test]
    fn python_like_garbage_never_panics(pieces in proptest::collection::vec(piece(), 0..80)) {
        let text: String = pieces.concat();
        for block in [BlockChoice::First, BlockChoice::Last] {
            let parsed = parse_response(&text, &limits(), block);
            prop_assert!(parsed.rules.len() <= 5);
            prop_assert!(parsed.cascade().len() <= parsed.valid_rules());
        }
        let _ = parse_block(&text);
        let wrapped = format!("```python\n{text}\n```");
        let _ = parse_response(&wrapped, &RuleLimits::unlimited(), BlockChoice::Last);
    }
}

/// Parses `text` and fails when it takes longer than a bound no quadratic algorithm meets.
fn parse_within(name: &str, text: &str) {
    let start = Instant::now();
    let parsed = parse_response(text, &limits(), BlockChoice::Last);
    let _ = parse_response(text, &limits(), BlockChoice::First);
    let took = start.elapsed();
    eprintln!("{name}: {} bytes in {took:?}", text.len());
    assert!(
        took < Duration::from_secs(20),
        "{name}: {} MB took {took:?}",
        text.len() >> 20
    );
    assert!(parsed.rules.len() <= 5, "{name}");
}

#[test]
fn megabyte_inputs_are_linear() {
    const MB: usize = 1 << 20;
    let fenced = |body: String| format!("```python\n{body}\n```");
    let cases: Vec<(&str, String)> = vec![
        ("deep brackets", fenced("[".repeat(4 * MB))),
        (
            "deep brackets closed",
            fenced(format!("{}{}", "[".repeat(150), "]".repeat(150)).repeat(MB / 150)),
        ),
        ("many fences", "```".repeat(2 * MB / 3)),
        (
            "unclosed fence",
            format!("```python\n{}", "[('a', 'b')]".repeat(MB / 12)),
        ),
        ("escaped quotes", fenced("'\\'".repeat(MB))),
        ("unterminated quotes", fenced("x'\n".repeat(MB / 3))),
        ("triple quotes", fenced("'''".repeat(MB / 3))),
        (
            "huge list",
            fenced(format!("[{}]", "\"replace('a', 'b')\", ".repeat(MB / 20))),
        ),
        (
            "many calls",
            fenced("s = s.replace('a', 'b')\n".repeat(MB / 24)),
        ),
        (
            "chained calls",
            fenced(format!("s{}", ".replace('a','b')".repeat(MB / 18))),
        ),
        ("many think tags", "<think></think>".repeat(MB / 15)),
        ("unclosed think", format!("{}<think>", "x".repeat(4 * MB))),
        (
            "nested lists of pairs",
            fenced(format!("{}('a','b'){}", "[".repeat(190), "]".repeat(190)).repeat(MB / 400)),
        ),
        ("random-ish", {
            let alphabet = b"[](){}'\",.=\n\\#`abc rp";
            (0..4 * MB)
                .map(|i| alphabet[(i * 7919 + i / 13) % alphabet.len()] as char)
                .collect()
        }),
    ];
    for (name, text) in cases {
        parse_within(name, &text);
    }
}

#[test]
fn huge_valid_answer_is_cut_to_max_rules() {
    let body = format!("[{}]", "\"replace('a', 'b')\", ".repeat(100_000));
    let parsed = parse_response(
        &format!("```python\n{body}\n```"),
        &limits(),
        BlockChoice::Last,
    );
    assert_eq!(parsed.rules.len(), 5);
    assert_eq!(parsed.dropped_rules, 100_000 - 5);
    assert!(parsed.is_parsed() && !parsed.is_valid());
}
