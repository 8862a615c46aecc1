//! Reading a reordering answer: a JSON array of indices into `scrambled`, found as the
//! synthesis parser finds a cascade: thinking removed ([`strip_thinking`]), prose around
//! it allowed, and of several fenced blocks the first or last ([`BlockChoice`]) that holds
//! an array.
//!
//! An array is `[` integers separated by commas `]` (whitespace anywhere). In a fenced
//! block (of any tag: `json`, `python` or none) the block's last array is the answer;
//! without a block holding one, the last array of the prose is. The reader is one pass over
//! the text and never fails: what it cannot use is an [`OrderProblem`], which scoring
//! counts as an invalid answer.

use crate::response::{strip_thinking, BlockChoice};
use serde::{Deserialize, Serialize};

/// Why a response gives no usable order (each an invalid answer, never an error).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OrderProblem {
    /// A `<think>` is never closed: no answer was given.
    #[error("the thinking is never closed")]
    Unfinished,
    /// No array of integers outside the thinking.
    #[error("no JSON array of indices")]
    NoArray,
    /// An entry is negative or too large to be an index.
    #[error("'{entry}' is not an index")]
    NotAnIndex {
        /// The entry as written.
        entry: String,
    },
    /// The array does not have one index per rule.
    #[error("{got} indices for {rules} rules")]
    WrongLength {
        /// Indices given.
        got: usize,
        /// Rules scrambled.
        rules: usize,
    },
    /// An index past the last rule.
    #[error("index {index} is out of range 0..{rules}")]
    OutOfRange {
        /// The index.
        index: usize,
        /// Rules scrambled.
        rules: usize,
    },
    /// An index given twice.
    #[error("index {index} is repeated")]
    Repeated {
        /// The index.
        index: usize,
    },
}

impl OrderProblem {
    /// The problem's kind, as summaries count it (`no_array`, `repeated`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            OrderProblem::Unfinished => "unfinished",
            OrderProblem::NoArray => "no_array",
            OrderProblem::NotAnIndex { .. } => "not_an_index",
            OrderProblem::WrongLength { .. } => "wrong_length",
            OrderProblem::OutOfRange { .. } => "out_of_range",
            OrderProblem::Repeated { .. } => "repeated",
        }
    }
}

/// The array a response gives, its entries as written (before they are checked against
/// the number of rules by [`check_order`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ParsedOrder<'a> {
    entries: Vec<&'a str>,
}

/// Reads the order a response gives for a problem of `rules` rules: the indices, a
/// permutation of `0..rules`, or why there is none.
///
/// ```
/// use pbebench::reorder::{parse_order, OrderProblem};
/// use pbebench::BlockChoice;
///
/// let text = "Rule 2 feeds rule 0, so:\n```json\n[2, 0, 1]\n```";
/// assert_eq!(parse_order(text, 3, BlockChoice::Last), Ok(vec![2, 0, 1]));
/// assert_eq!(
///     parse_order("[0, 0, 1]", 3, BlockChoice::Last),
///     Err(OrderProblem::Repeated { index: 0 })
/// );
/// ```
pub fn parse_order(
    text: &str,
    rules: usize,
    choice: BlockChoice,
) -> Result<Vec<usize>, OrderProblem> {
    let visible = strip_thinking(text).ok_or(OrderProblem::Unfinished)?;
    let parsed = find_order(&visible, choice).ok_or(OrderProblem::NoArray)?;
    check_order(&parsed, rules)
}

/// The array of the chosen block holding one, or else the last of the text.
fn find_order(text: &str, choice: BlockChoice) -> Option<ParsedOrder<'_>> {
    let mut in_blocks = fenced_blocks(text).filter_map(|b| arrays(b).last());
    let chosen = match choice {
        BlockChoice::First => in_blocks.next(),
        BlockChoice::Last => in_blocks.last(),
    };
    chosen.or_else(|| arrays(text).last())
}

/// Checks the entries against `rules`: each an index, one per rule, each once.
fn check_order(parsed: &ParsedOrder<'_>, rules: usize) -> Result<Vec<usize>, OrderProblem> {
    let mut order = Vec::with_capacity(parsed.entries.len());
    for entry in &parsed.entries {
        let index = entry
            .parse::<usize>()
            .map_err(|_| OrderProblem::NotAnIndex {
                entry: (*entry).to_owned(),
            })?;
        order.push(index);
    }
    if order.len() != rules {
        return Err(OrderProblem::WrongLength {
            got: order.len(),
            rules,
        });
    }
    let mut seen = vec![false; rules];
    for &index in &order {
        match seen.get_mut(index) {
            None => return Err(OrderProblem::OutOfRange { index, rules }),
            Some(true) => return Err(OrderProblem::Repeated { index }),
            Some(s) => *s = true,
        }
    }
    Ok(order)
}

const FENCE: &str = "```";

/// The contents of the closed fenced blocks, whatever their tag (the tag is the rest of the
/// opening fence's line, and is left out).
fn fenced_blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let open = rest.find(FENCE)?;
        let after = &rest[open + FENCE.len()..];
        let body = after.find('\n').map_or(after, |nl| {
            // An opening fence with code on its own line (```[0, 1]```) has no tag.
            if after[..nl].contains(FENCE) {
                after
            } else {
                &after[nl + 1..]
            }
        });
        let Some(close) = body.find(FENCE) else {
            rest = "";
            return None;
        };
        rest = &body[close + FENCE.len()..];
        Some(&body[..close])
    })
}

/// Every `[ int, int, … ]` of `text` (the empty `[]` too), in order; entries are the
/// digit runs, with a leading `-` kept so that a negative index is named, not misread.
fn arrays(text: &str) -> impl Iterator<Item = ParsedOrder<'_>> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        while let Some(open) = text[pos..].find('[') {
            let start = pos + open + 1;
            pos = start;
            if let Some((entries, end)) = array_at(text, start) {
                pos = end;
                return Some(ParsedOrder { entries });
            }
        }
        None
    })
}

/// The entries of an array whose `[` ends just before `start`, and the position after its
/// `]`; `None` when what follows is not integers separated by commas.
fn array_at(text: &str, start: usize) -> Option<(Vec<&str>, usize)> {
    let bytes = text.as_bytes();
    let mut entries = Vec::new();
    let mut i = start;
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    i = skip_space(i);
    if bytes.get(i) == Some(&b']') {
        return Some((entries, i + 1));
    }
    loop {
        let from = i;
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == digits {
            return None;
        }
        entries.push(&text[from..i]);
        i = skip_space(i);
        match bytes.get(i) {
            Some(b',') => i = skip_space(i + 1),
            Some(b']') => return Some((entries, i + 1)),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn last(text: &str, n: usize) -> Result<Vec<usize>, OrderProblem> {
        parse_order(text, n, BlockChoice::Last)
    }

    #[test]
    fn fences_prose_and_the_chosen_block() {
        assert_eq!(last("[1, 0]", 2), Ok(vec![1, 0]));
        assert_eq!(last("The order is [1,0].", 2), Ok(vec![1, 0]));
        assert_eq!(last("```\n[ 1 ,\n 0 ]\n```", 2), Ok(vec![1, 0]));
        assert_eq!(last("```python\n[1, 0]\n```", 2), Ok(vec![1, 0]));
        assert_eq!(last("```json [1, 0]```", 2), Ok(vec![1, 0]));
        let drafts =
            "First try:\n```json\n[0, 1]\n```\nBetter:\n```json\n[1, 0]\n```\nRule [0] last.";
        assert_eq!(last(drafts, 2), Ok(vec![1, 0]));
        assert_eq!(parse_order(drafts, 2, BlockChoice::First), Ok(vec![0, 1]));
        // A block without an array leaves the prose to give it.
        assert_eq!(last("[1, 0]\n```\nno answer here\n```", 2), Ok(vec![1, 0]));
        // Thinking is never read.
        assert_eq!(last("<think>[0, 1]</think>[1, 0]", 2), Ok(vec![1, 0]));
        assert_eq!(
            last("[1, 0] <think>[0, 1]", 2),
            Err(OrderProblem::Unfinished)
        );
        // A list of strings or of lists is no array of indices; its inner list may be.
        assert_eq!(last("[\"a\", \"b\"]", 2), Err(OrderProblem::NoArray));
        assert_eq!(last("[[1, 0]]", 2), Ok(vec![1, 0]));
    }

    #[test]
    fn what_is_no_permutation_is_named() {
        assert_eq!(last("", 2), Err(OrderProblem::NoArray));
        assert_eq!(last("[1.5, 0]", 2), Err(OrderProblem::NoArray));
        assert_eq!(
            last("[-1, 0]", 2),
            Err(OrderProblem::NotAnIndex { entry: "-1".into() })
        );
        let huge = format!("[{}0, 0]", usize::MAX);
        assert!(matches!(
            last(&huge, 2),
            Err(OrderProblem::NotAnIndex { .. })
        ));
        assert_eq!(
            last("[0]", 2),
            Err(OrderProblem::WrongLength { got: 1, rules: 2 })
        );
        assert_eq!(
            last("[]", 2),
            Err(OrderProblem::WrongLength { got: 0, rules: 2 })
        );
        assert_eq!(
            last("[0, 2]", 2),
            Err(OrderProblem::OutOfRange { index: 2, rules: 2 })
        );
        assert_eq!(last("[1, 1]", 2), Err(OrderProblem::Repeated { index: 1 }));
    }

    proptest! {
        /// Any text: no panic, and an order given is a permutation of 0..n.
        #[test]
        fn any_text_gives_a_permutation_or_a_problem(text in "[\\[\\]0-9, \\-`a-z\n<>/]{0,60}", n in 0usize..5) {
            if let Ok(order) = last(&text, n) {
                prop_assert!(crate::reorder::is_permutation(&order, n));
            }
        }

        /// Every permutation, written in any of the accepted ways, reads back.
        #[test]
        fn every_permutation_reads_back(perm in Just((0..6usize).collect::<Vec<_>>()).prop_shuffle(), style in 0usize..3) {
            let list = serde_json::to_string(&perm).unwrap();
            let text = match style {
                0 => list,
                1 => format!("Here it is:\n```json\n{list}\n```\nDone."),
                _ => format!("<think>[0]</think>So the answer is {list}"),
            };
            prop_assert_eq!(last(&text, 6), Ok(perm));
        }
    }
}
