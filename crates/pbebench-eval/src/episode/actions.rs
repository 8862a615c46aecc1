//! What a solver asks for, read from whatever it wrote: a tool call's JSON arguments, a
//! fenced block of the text protocol, or a line of a solver program. Everything here is
//! untrusted input: anything unreadable becomes [`Action::Bad`] with a message for the
//! solver, never a panic.

use pbebench::{parse_block, RuleOutcome};
use pbebench::{Cascade, Rule};
use serde_json::Value;

/// The tools, by name.
pub(crate) const RUN_HIDDEN: &str = "run_hidden";
/// Tests a candidate.
pub(crate) const TEST_CASCADE: &str = "test_cascade";
/// Ends the episode with an answer.
pub(crate) const SUBMIT: &str = "submit";

/// One thing a solver asked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// `run_hidden(inputs)`.
    Probe(Vec<String>),
    /// `test_cascade(cascade)`.
    Test(Cascade),
    /// `submit(cascade)`.
    Submit(Cascade),
    /// Something unreadable; the message says what is wrong.
    Bad(String),
}

/// The action of a chat-completions tool call: `name` with its JSON `arguments`.
pub(crate) fn from_tool_call(name: &str, arguments: &str) -> Action {
    let args: Value = match serde_json::from_str(arguments) {
        Ok(v) => v,
        Err(e) => {
            return Action::Bad(format!(
                "the arguments of {name} are not valid JSON ({e}); nothing was run"
            ))
        }
    };
    match name {
        RUN_HIDDEN => match args.get("inputs").or(args.is_array().then_some(&args)) {
            Some(v) => probe(v),
            None => Action::Bad(r#"run_hidden takes {"inputs": ["...", ...]}"#.to_owned()),
        },
        TEST_CASCADE | SUBMIT => match args.get("cascade").or(args.is_array().then_some(&args)) {
            Some(v) => with_cascade(name, v),
            None => Action::Bad(format!(
                r#"{name} takes {{"cascade": ["replace('a', 'b')", ...]}}"#
            )),
        },
        other => Action::Bad(unknown(other)),
    }
}

/// The action of a fenced block of the text protocol: its tag and its body (a list of
/// inputs for `run_hidden`, a cascade for the others).
pub(crate) fn from_block(tag: &str, body: &str) -> Action {
    match tag {
        RUN_HIDDEN => match pbebench::pylit::parse_str_list(body.trim()) {
            Ok(inputs) => Action::Probe(inputs),
            Err(e) => Action::Bad(format!(
                "run_hidden takes a list of strings such as [\"ab\", \"ba\"]: {e}"
            )),
        },
        TEST_CASCADE | SUBMIT => match cascade_of_text(body) {
            Ok(c) if tag == SUBMIT => Action::Submit(c),
            Ok(c) => Action::Test(c),
            Err(e) => Action::Bad(format!("{tag}: {e}; nothing was done")),
        },
        other => Action::Bad(unknown(other)),
    }
}

/// The action of one line of a solver program: `{"probe": [...]}`, `{"test": cascade}`
/// or `{"submit": cascade}`.
pub(crate) fn from_program_line(line: &str) -> Action {
    let v: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return Action::Bad(format!("not a JSON line ({e})")),
    };
    if let Some(inputs) = v.get("probe") {
        probe(inputs)
    } else if let Some(c) = v.get("test") {
        with_cascade(TEST_CASCADE, c)
    } else if let Some(c) = v.get("submit") {
        with_cascade(SUBMIT, c)
    } else {
        Action::Bad(
            r#"expected {"probe": [...]}, {"test": cascade} or {"submit": cascade}"#.to_owned(),
        )
    }
}

fn unknown(name: &str) -> String {
    format!("unknown tool '{name}'; the tools are {RUN_HIDDEN}, {TEST_CASCADE} and {SUBMIT}")
}

fn probe(v: &Value) -> Action {
    match v {
        Value::String(s) => Action::Probe(vec![s.clone()]),
        Value::Array(items) => match items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
        {
            Some(inputs) => Action::Probe(inputs),
            None => Action::Bad("run_hidden's inputs must all be strings".to_owned()),
        },
        _ => Action::Bad("run_hidden's inputs must be a list of strings".to_owned()),
    }
}

fn with_cascade(tool: &str, v: &Value) -> Action {
    match cascade_of(v) {
        Ok(c) if tool == SUBMIT => Action::Submit(c),
        Ok(c) => Action::Test(c),
        Err(e) => Action::Bad(format!("{tool}: {e}; nothing was done")),
    }
}

/// A cascade given as JSON: a list of rule strings (`"replace('a', 'b')"`), a list of
/// `[pattern, replacement]` pairs, or a string holding either (or Python code).
pub(crate) fn cascade_of(v: &Value) -> Result<Cascade, String> {
    match v {
        Value::String(s) => cascade_of_text(s),
        // A JSON list of strings or pairs is also a Python list literal.
        Value::Array(_) => cascade_of_text(&v.to_string()),
        _ => Err("a cascade is a list of rules such as [\"replace('a', 'b')\"]".to_owned()),
    }
}

fn cascade_of_text(text: &str) -> Result<Cascade, String> {
    let text = text.trim();
    if text
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim()
        .is_empty()
    {
        return Ok(Cascade::identity());
    }
    let rules = parse_block(text).map_err(|e| e.to_string())?;
    rules
        .into_iter()
        .enumerate()
        .map(|(k, r): (usize, RuleOutcome)| {
            let (a, b) = r.map_err(|p| format!("rule {}: {p}", k + 1))?;
            Rule::new(a, b).map_err(|e| format!("rule {}: {e}", k + 1))
        })
        .collect::<Result<Vec<Rule>, String>>()
        .map(Cascade::new)
}

/// The fenced blocks of `text` tagged with a tool name, as (tag, body), in order.
pub(crate) fn tool_blocks(text: &str) -> Vec<(&str, &str)> {
    blocks_tagged(text, &[RUN_HIDDEN, TEST_CASCADE, SUBMIT])
}

/// The fenced blocks of `text` tagged with one of `tags`, as (tag, body), in order.
pub(crate) fn blocks_tagged<'t>(text: &'t str, tags: &[&str]) -> Vec<(&'t str, &'t str)> {
    const FENCE: &str = "```";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(FENCE) {
        let after = &rest[open + FENCE.len()..];
        let tag_len = after
            .find(|c: char| c.is_whitespace())
            .unwrap_or(after.len());
        let tag = &after[..tag_len];
        let body = &after[tag_len..];
        let Some(close) = body.find(FENCE) else { break };
        if tags.contains(&tag) {
            out.push((tag, &body[..close]));
        }
        rest = &body[close + FENCE.len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(rules: &[(&str, &str)]) -> Cascade {
        rules
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect()
    }

    #[test]
    fn tool_calls_in_every_spelling() {
        assert_eq!(
            from_tool_call("run_hidden", r#"{"inputs": ["ab", "c"]}"#),
            Action::Probe(vec!["ab".into(), "c".into()])
        );
        assert_eq!(
            from_tool_call("run_hidden", r#"{"inputs": "ab"}"#),
            Action::Probe(vec!["ab".into()])
        );
        assert_eq!(
            from_tool_call(
                "submit",
                r#"{"cascade": ["replace('a', 'b')", "replace(\"b\", \"\")"]}"#
            ),
            Action::Submit(c(&[("a", "b"), ("b", "")]))
        );
        assert_eq!(
            from_tool_call("test_cascade", r#"{"cascade": [["a", "b"]]}"#),
            Action::Test(c(&[("a", "b")]))
        );
        assert_eq!(
            from_tool_call("test_cascade", r#"{"cascade": "[\"replace('a','b')\"]"}"#),
            Action::Test(c(&[("a", "b")]))
        );
        assert_eq!(
            from_tool_call("submit", r#"{"cascade": []}"#),
            Action::Submit(Cascade::identity())
        );
    }

    #[test]
    fn bad_calls_say_what_is_wrong() {
        let bad = |a: Action| match a {
            Action::Bad(m) => m,
            other => panic!("expected an error, got {other:?}"),
        };
        assert!(bad(from_tool_call("run_hidden", "{\"inputs\": [")).contains("not valid JSON"));
        assert!(bad(from_tool_call("run_hidden", "{}")).contains("takes"));
        assert!(bad(from_tool_call("run_hidden", r#"{"inputs": [1]}"#)).contains("strings"));
        assert!(bad(from_tool_call("rm_rf", "{}")).contains("unknown tool 'rm_rf'"));
        assert!(bad(from_tool_call(
            "submit",
            r#"{"cascade": ["replace('', 'b')"]}"#
        ))
        .contains("rule 1"));
        assert!(bad(from_tool_call("submit", r#"{"cascade": 7}"#)).contains("list of rules"));
        assert!(bad(from_program_line("probe ab")).contains("not a JSON line"));
        assert!(bad(from_program_line("{\"guess\": 1}")).contains("expected"));
    }

    #[test]
    fn text_blocks_and_program_lines() {
        let text = "Let me look.\n```run_hidden\n[\"ab\", 'ba']\n```\nand\n```test_cascade\n[\"replace('a', 'b')\"]\n```\n```python\n[]\n```";
        let blocks = tool_blocks(text);
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            from_block(blocks[0].0, blocks[0].1),
            Action::Probe(vec!["ab".into(), "ba".into()])
        );
        assert_eq!(
            from_block(blocks[1].0, blocks[1].1),
            Action::Test(c(&[("a", "b")]))
        );
        assert!(tool_blocks("```run_hidden\n[\"a\"]").is_empty(), "unclosed");
        assert_eq!(
            from_program_line(r#"{"probe": ["a", "b"]}"#),
            Action::Probe(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            from_program_line(r#"{"submit": [["a", "b"]]}"#),
            Action::Submit(c(&[("a", "b")]))
        );
    }
}
