//! Where the answer of a response is: thinking removed, the fenced code blocks found, the
//! first or last one chosen.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

/// Which fenced code block of a response holds the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockChoice {
    /// The first accepted block.
    First,
    /// The last accepted block: where a model that shows drafts puts its final answer.
    #[default]
    Last,
}

impl FromStr for BlockChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "first" => Ok(BlockChoice::First),
            "last" => Ok(BlockChoice::Last),
            _ => Err(format!(
                "'{s}' is not a block choice: use 'first' or 'last'"
            )),
        }
    }
}

impl fmt::Display for BlockChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlockChoice::First => "first",
            BlockChoice::Last => "last",
        })
    }
}

/// Hands `then` the chosen block of a response (`None` without one) and how many blocks it
/// has, outside thinking; or `None` when a `<think>` is never closed. The same blocks as
/// [`code_blocks`] of [`strip_thinking`]; a response without think tags (nearly all) is
/// read in one pass over its text ([`fences_without_thinking`]).
pub(super) fn with_chosen_block<R>(
    text: &str,
    choice: BlockChoice,
    then: impl FnOnce(Option<(Option<&str>, usize)>) -> R,
) -> R {
    if let Some((first, last, count)) = fences_without_thinking(text) {
        let chosen = match choice {
            BlockChoice::First => first,
            BlockChoice::Last => last,
        };
        return then(Some((chosen, count)));
    }
    let Some(visible) = strip_thinking(text) else {
        return then(None);
    };
    // The chosen block and how many there are, without collecting them.
    let (mut chosen, mut count) = (None, 0);
    for block in blocks(&visible) {
        count += 1;
        if choice == BlockChoice::Last || chosen.is_none() {
            chosen = Some(block);
        }
    }
    then(Some((chosen, count)))
}

/// The first and last of the [`code_blocks`] of `text` and their number, found in one pass
/// over the text that also looks for think tags; `None` when there is a `<think>` or a
/// `</think>` (then [`strip_thinking`] has work to do). Every `<` is looked at, and every
/// `` ` `` that [`blocks`] would look at: after a fence and its tag, the next fence is
/// the first `` ``` `` from there.
pub(super) fn fences_without_thinking(text: &str) -> Option<(Option<&str>, Option<&str>, usize)> {
    let bytes = text.as_bytes();
    let (mut first, mut last, mut count) = (None, None, 0);
    // The body start of an open block, and whether its tag is accepted.
    let mut open: Option<(usize, bool)> = None;
    // A loop of searches rather than `memchr2_iter`: measured faster on long prose.
    let mut from = 0;
    while let Some(found) = memchr::memchr2(b'<', b'`', &bytes[from..]) {
        let at = from + found;
        from = at + 1;
        if bytes[at] == b'<' {
            let rest = &bytes[at..];
            if rest.starts_with(THINK_OPEN.as_bytes()) || rest.starts_with(THINK_CLOSE.as_bytes()) {
                return None;
            }
            continue;
        }
        if !bytes[at..].starts_with(FENCE.as_bytes()) {
            continue;
        }
        match open.take() {
            None => {
                let info_start = at + FENCE.len();
                let info_len = fence_info_len(&bytes[info_start..]);
                let info = &text[info_start..info_start + info_len];
                from = info_start + info_len;
                open = Some((from, accepted_tag(info)));
            }
            Some((body_start, accepted)) => {
                from = at + FENCE.len();
                if accepted {
                    let block = &text[body_start..at];
                    first = first.or(Some(block));
                    last = Some(block);
                    count += 1;
                }
            }
        }
    }
    // A fence left open has no block: an unclosed fence ends the search.
    Some((first, last, count))
}

/// The length of a fence's info string (its tag) at the start of `after`.
fn fence_info_len(after: &[u8]) -> usize {
    after
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'))
        .count()
}

/// True for the tags of the blocks that hold answers: `python`, `py`, `python3` (any case)
/// or none.
fn accepted_tag(info: &str) -> bool {
    ["", "python", "py", "python3"]
        .iter()
        .any(|tag| info.eq_ignore_ascii_case(tag))
}

/// The first occurrence of a short ASCII `needle` in `hay`: a vectorised search for its
/// first byte, then a comparison. Faster than the general substring search on long prose
/// in which that byte is rare (`<`, `` ` ``).
fn find(hay: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let mut from = 0;
    while let Some(i) = memchr::memchr(needle[0], &hay[from..]) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

pub(super) const THINK_OPEN: &str = "<think>";
pub(super) const THINK_CLOSE: &str = "</think>";

/// The response without its thinking: every `<think>…</think>` span removed, and when a
/// `</think>` comes before any `<think>` (chat templates that open the thinking in the
/// prompt) everything up to it. `None` when a `<think>` is never closed: no answer was given.
pub fn strip_thinking(text: &str) -> Option<Cow<'_, str>> {
    if memchr::memchr(b'<', text.as_bytes()).is_none() {
        return Some(Cow::Borrowed(text));
    }
    let mut rest = text;
    if let Some(close) = find(rest, THINK_CLOSE) {
        if find(&rest[..close], THINK_OPEN).is_none() {
            rest = &rest[close + THINK_CLOSE.len()..];
        }
    }
    if find(rest, THINK_OPEN).is_none() {
        return Some(Cow::Borrowed(rest));
    }
    let mut out = String::with_capacity(rest.len());
    while let Some(open) = find(rest, THINK_OPEN) {
        out.push_str(&rest[..open]);
        let inside = &rest[open + THINK_OPEN.len()..];
        let close = find(inside, THINK_CLOSE)?;
        rest = &inside[close + THINK_CLOSE.len()..];
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

const FENCE: &str = "```";

/// The contents of the closed fenced code blocks tagged `python`, `py`, `python3` (any case)
/// or untagged, in order. Fences need not start a line (```` ```python [...]``` ```` on one
/// line counts); a block with another tag is skipped; an unclosed fence ends the search.
pub fn code_blocks(text: &str) -> Vec<&str> {
    blocks(text).collect()
}

/// The blocks of [`code_blocks`], one at a time.
fn blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut pos = 0;
    std::iter::from_fn(move || loop {
        let found = find(&text[pos..], FENCE)?;
        let info_start = pos + found + FENCE.len();
        let info_len = fence_info_len(&text.as_bytes()[info_start..]);
        let info = &text[info_start..info_start + info_len];
        let body_start = info_start + info_len;
        let Some(close) = find(&text[body_start..], FENCE) else {
            // An unclosed fence ends the search.
            pos = text.len();
            return None;
        };
        let body_end = body_start + close;
        pos = body_end + FENCE.len();
        if accepted_tag(info) {
            return Some(&text[body_start..body_end]);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_is_removed() {
        assert_eq!(strip_thinking("a<think>b</think>c").unwrap(), "ac");
        assert_eq!(strip_thinking("reasoning</think>answer").unwrap(), "answer");
        assert_eq!(
            strip_thinking("x<think>y</think>z<think>w</think>v").unwrap(),
            "xzv"
        );
        assert!(strip_thinking("answer <think> still thinking").is_none());
        assert_eq!(strip_thinking("plain").unwrap(), "plain");
    }

    #[test]
    fn blocks_are_found() {
        let text =
            "```python\nA\n```\n```json\nB\n```\n```py C```\n```\nD\n```\n```Python3\nE\n```";
        assert_eq!(code_blocks(text), vec!["\nA\n", " C", "\nD\n", "\nE\n"]);
        assert_eq!(
            code_blocks("```python [1]``` and ```python ["),
            vec![" [1]"]
        );
        assert!(code_blocks("no fences").is_empty());
    }
}
