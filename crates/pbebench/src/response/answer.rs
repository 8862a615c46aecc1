//! A response's answer assembled from its chosen block: each rule with what is wrong with
//! it, the rules past `max_rules` counted, and why there is no answer when there is none.

use super::fences::{with_chosen_block, BlockChoice};
use super::limits::{RuleLimits, RuleProblem};
use super::syntax;
use crate::rule::{Cascade, Rule};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// One rule as the response wrote it, with what is wrong with it (nothing when valid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRule {
    /// The pattern `A`, when the rule had two string arguments.
    pub pattern: Option<String>,
    /// The replacement `B`, when the rule had two string arguments.
    pub replacement: Option<String>,
    /// Every broken constraint; empty for a valid rule.
    pub problems: Vec<RuleProblem>,
}

impl ParsedRule {
    /// True when the rule meets every constraint.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }

    /// The rule, when it is valid.
    pub fn rule(&self) -> Option<Rule> {
        match (&self.pattern, &self.replacement) {
            (Some(a), Some(b)) if self.is_valid() => Rule::new(a.clone(), b.clone()).ok(),
            _ => None,
        }
    }
}

impl Serialize for ParsedRule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ParsedRule", 4)?;
        st.serialize_field("pattern", &self.pattern)?;
        st.serialize_field("replacement", &self.replacement)?;
        st.serialize_field("valid", &self.is_valid())?;
        st.serialize_field("problems", &self.problems)?;
        st.end()
    }
}

/// Whether an answer could be read from a response at all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResponseStatus {
    /// The chosen block was read (its rules may still be invalid one by one).
    Parsed,
    /// A `<think>` was never closed: the answer was never given.
    UnclosedThinking,
    /// No fenced code block (```` ```python ````, ```` ```py ```` or bare) outside thinking.
    NoCodeBlock,
    /// The chosen block holds no readable list of rules or `replace` calls.
    Unparsable {
        /// What was wrong.
        reason: String,
    },
}

/// What a response yields: its status and its rules with their validity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParsedResponse {
    /// Whether an answer was read.
    pub status: ResponseStatus,
    /// How many accepted code blocks the response has (outside thinking).
    pub blocks: usize,
    /// The first `max_rules` rules of the chosen block, in order.
    pub rules: Vec<ParsedRule>,
    /// How many rules past `max_rules` were dropped.
    pub dropped_rules: usize,
}

impl ParsedResponse {
    /// The cascade the response stands for: its valid rules in order (an invalid rule is
    /// the identity, so leaving it out is the same). An invalid response is the identity.
    pub fn cascade(&self) -> Cascade {
        self.rules.iter().filter_map(ParsedRule::rule).collect()
    }

    /// True when an answer was read.
    pub fn is_parsed(&self) -> bool {
        self.status == ResponseStatus::Parsed
    }

    /// Number of kept rules that meet every constraint.
    pub fn valid_rules(&self) -> usize {
        self.rules.iter().filter(|r| r.is_valid()).count()
    }

    /// Number of kept rules that break a constraint.
    pub fn invalid_rules(&self) -> usize {
        self.rules.len() - self.valid_rules()
    }

    /// True when the response is entirely valid: parsed, every rule valid, none dropped.
    pub fn is_valid(&self) -> bool {
        self.is_parsed() && self.dropped_rules == 0 && self.rules.iter().all(|r| r.is_valid())
    }
}

/// Parses a response: thinking removed, the chosen block read, rules checked and cut to
/// `limits.max_rules`. Never panics; linear in the length of `text`.
pub fn parse_response(text: &str, limits: &RuleLimits, choice: BlockChoice) -> ParsedResponse {
    read_answer(text, limits, choice, |answer| ParsedResponse {
        status: answer.status,
        blocks: answer.blocks,
        dropped_rules: answer.dropped_rules,
        rules: answer
            .rules
            .into_iter()
            .map(|rule| {
                let (pattern, replacement) = match rule.sides {
                    Some((a, b)) => (Some(a.into_owned()), Some(b.into_owned())),
                    None => (None, None),
                };
                ParsedRule {
                    pattern,
                    replacement,
                    problems: rule.problems,
                }
            })
            .collect(),
    })
}

/// A rule of an [`Answer`]: a [`ParsedRule`] whose sides may be borrowed from the response.
pub(crate) struct AnswerRule<'a> {
    /// The pattern and the replacement, when the rule had two string arguments.
    pub sides: Option<(Cow<'a, str>, Cow<'a, str>)>,
    /// Every broken constraint; empty for a valid rule.
    pub problems: Vec<RuleProblem>,
}

impl AnswerRule<'_> {
    /// The pattern and replacement of a valid rule.
    pub fn valid_sides(&self) -> Option<(&str, &str)> {
        match &self.sides {
            Some((a, b)) if self.problems.is_empty() => Some((a, b)),
            _ => None,
        }
    }
}

/// A [`ParsedResponse`] before its strings are copied out of the response: what scoring
/// reads, so that a plain answer is checked and applied without allocating its rules.
pub(crate) struct Answer<'a> {
    /// As in [`ParsedResponse`].
    pub status: ResponseStatus,
    /// As in [`ParsedResponse`].
    pub blocks: usize,
    /// As in [`ParsedResponse`].
    pub rules: Vec<AnswerRule<'a>>,
    /// As in [`ParsedResponse`].
    pub dropped_rules: usize,
}

impl Answer<'_> {
    /// True when the response is entirely valid ([`ParsedResponse::is_valid`]).
    pub fn is_valid(&self) -> bool {
        self.status == ResponseStatus::Parsed
            && self.dropped_rules == 0
            && self.rules.iter().all(|r| r.problems.is_empty())
    }
}

/// Reads the answer of a response (as [`parse_response`] does) and hands it to `then`:
/// the answer may borrow from the response with its thinking removed, which lives only
/// during this call.
pub(crate) fn read_answer<R>(
    text: &str,
    limits: &RuleLimits,
    choice: BlockChoice,
    then: impl FnOnce(Answer<'_>) -> R,
) -> R {
    let failed = |status, blocks| Answer {
        status,
        blocks,
        rules: Vec::new(),
        dropped_rules: 0,
    };
    with_chosen_block(text, choice, |found| match found {
        None => then(failed(ResponseStatus::UnclosedThinking, 0)),
        Some((None, _)) => then(failed(ResponseStatus::NoCodeBlock, 0)),
        Some((Some(block), count)) => read_block(block, count, limits, then),
    })
}

/// The [`Answer`] of a response whose chosen block is `block`, one of `count`.
fn read_block<R>(
    block: &str,
    count: usize,
    limits: &RuleLimits,
    then: impl FnOnce(Answer<'_>) -> R,
) -> R {
    let outcomes = match syntax::read_rules(block) {
        Ok(outcomes) => outcomes,
        Err(reason) => {
            return then(Answer {
                status: ResponseStatus::Unparsable {
                    reason: reason.to_string(),
                },
                blocks: count,
                rules: Vec::new(),
                dropped_rules: 0,
            })
        }
    };
    let kept = outcomes.len().min(limits.max_rules);
    let dropped_rules = outcomes.len() - kept;
    let rules = outcomes
        .into_iter()
        .take(kept)
        .map(|outcome| match outcome {
            Ok((pattern, replacement)) => AnswerRule {
                problems: limits.check(&pattern, &replacement),
                sides: Some((pattern, replacement)),
            },
            Err(problem) => AnswerRule {
                sides: None,
                problems: vec![problem],
            },
        })
        .collect();
    then(Answer {
        status: ResponseStatus::Parsed,
        blocks: count,
        dropped_rules,
        rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::response::Alphabet;

    fn lite() -> RuleLimits {
        RuleLimits {
            max_rules: 5,
            max_rule_len: 3,
            alphabet: Some(Alphabet::new(crate::dataset::LITE_ALPHABET)),
        }
    }

    #[test]
    fn first_or_last_block() {
        let text = "Draft:\n```python\n[\"replace('a','b')\"]\n```\nFinal:\n```python\n[\"replace('c','d')\"]\n```";
        let first = parse_response(text, &lite(), BlockChoice::First);
        let last = parse_response(text, &lite(), BlockChoice::Last);
        assert_eq!(first.cascade().to_json(), r#"[["a","b"]]"#);
        assert_eq!(last.cascade().to_json(), r#"[["c","d"]]"#);
        assert_eq!(last.blocks, 2);
    }

    #[test]
    fn limits_make_rules_identity() {
        let text = "```python\n[\"replace('', 'a')\", \"replace('abcd', 'a')\", \"replace('a', 'bcde')\", \"replace('a', 'Q')\", \"replace('a', 'b')\", \"replace('b', 'c')\", \"replace('c', 'd')\"]\n```";
        let parsed = parse_response(text, &lite(), BlockChoice::Last);
        assert!(parsed.is_parsed());
        assert_eq!(parsed.rules.len(), 5);
        assert_eq!(parsed.dropped_rules, 2);
        let kinds: Vec<&str> = parsed
            .rules
            .iter()
            .map(|r| r.problems.first().map_or("ok", RuleProblem::kind))
            .collect();
        assert_eq!(
            kinds,
            [
                "empty_pattern",
                "pattern_too_long",
                "replacement_too_long",
                "outside_alphabet",
                "ok"
            ]
        );
        assert_eq!(parsed.valid_rules(), 1);
        assert_eq!(parsed.invalid_rules(), 4);
        assert!(!parsed.is_valid());
        assert_eq!(parsed.cascade().to_json(), r#"[["a","b"]]"#);
    }

    #[test]
    fn no_answer_cases() {
        let l = lite();
        let status = |t: &str| parse_response(t, &l, BlockChoice::Last).status;
        assert_eq!(status("no block here"), ResponseStatus::NoCodeBlock);
        assert_eq!(
            status("<think>```python\n['replace(\"a\",\"b\")']\n```"),
            ResponseStatus::UnclosedThinking
        );
        assert_eq!(
            status("<think>```python\n['replace(\"a\",\"b\")']\n```</think>nothing"),
            ResponseStatus::NoCodeBlock
        );
        assert!(matches!(
            status("```python\nprint(1)\n```"),
            ResponseStatus::Unparsable { .. }
        ));
        let parsed = parse_response("```python\n[]\n```", &l, BlockChoice::Last);
        assert!(parsed.is_valid());
        assert!(parsed.cascade().is_empty());
    }
}
