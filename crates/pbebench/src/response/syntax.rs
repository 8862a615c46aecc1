//! The reader of a code block: Python-like tokens, then one pass with an explicit bracket
//! stack that finds rule lists and `replace` calls. Linear in the block's length; nothing
//! is evaluated.

use super::block::{BlockError, RuleOutcome, RuleRead};
use super::limits::RuleProblem;
use crate::pylit;
use std::borrow::Cow;

/// Reads the rules of one code block (see [`super::parse_block`]), their sides borrowed
/// from `code` where the shortcut for plain lists read them.
pub(super) fn read_rules(code: &str) -> Result<Vec<RuleRead<'_>>, BlockError> {
    match plain_list(code) {
        Some(rules) => Ok(rules),
        None => Ok(read_rules_generally(code)?
            .into_iter()
            .map(|rule| rule.map(|(a, b)| (Cow::Owned(a), Cow::Owned(b))))
            .collect()),
    }
}

/// [`read_rules`] without the shortcut for plain lists: every block goes through the
/// tokens and the bracket stack.
pub(super) fn read_rules_generally(code: &str) -> Result<Vec<RuleOutcome>, BlockError> {
    scan(code, false)?.into_rules()
}

/// The shape nearly every answer has, read without tokens or a bracket stack: a block that
/// is one list literal and nothing else, whose elements are plain string literals (the
/// released `"replace('a', 'b')"`) or plain calls `replace('a', 'b')`. *Plain* literals
/// have no prefix, escape or line break and are not triple-quoted. `None` for any other
/// block (comments, adjacent literals, statements, nested brackets…), which the general
/// reader takes. Where this answers, it answers what the general reader would: such a list
/// is the block's only statement, so its elements' rules are the answer whether or not
/// one of them is a rule (a test checks the two readers against each other).
fn plain_list(code: &str) -> Option<Vec<RuleRead<'_>>> {
    let mut rules = Vec::new();
    plain_list_each(code, |rule| rules.push(rule))?;
    Some(rules)
}

/// [`plain_list`] handing each rule to `visit` as it is read, without collecting them.
/// `None` when the block is not a plain list, possibly after some rules were visited: the
/// caller then forgets them and reads the block generally.
pub(super) fn plain_list_each<'a>(
    code: &'a str,
    mut visit: impl FnMut(RuleRead<'a>),
) -> Option<()> {
    let bytes = code.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    at = skip_space(bytes, at + 1);
    while bytes.get(at) != Some(&b']') {
        let (rule, end) = match plain_literal(code, at) {
            Some((text, end)) => (rule_in_plain_string(text), end),
            None => {
                let (pattern, replacement, end) = plain_call(code, at)?;
                (
                    Ok((Cow::Borrowed(pattern), Cow::Borrowed(replacement))),
                    end,
                )
            }
        };
        visit(rule);
        at = skip_space(bytes, end);
        match bytes.get(at)? {
            b',' => at = skip_space(bytes, at + 1),
            b']' => {}
            _ => return None,
        }
    }
    (skip_space(bytes, at + 1) == bytes.len()).then_some(())
}

/// Past the spaces, tabs and line ends from `at` (inside brackets, all the general reader
/// skips).
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        at += 1;
    }
    at
}

/// The value of the plain string literal (see [`plain_list`]) whose opening quote is at
/// `at`, and the offset after it; `None` when no plain literal starts there.
fn plain_literal(code: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = code.as_bytes();
    let quote = *bytes.get(at).filter(|&&b| b == b'\'' || b == b'"')?;
    let body = at + 1;
    if bytes.get(body) == Some(&quote) {
        // Two quotes are the empty string; three open a triple-quoted literal.
        return (bytes.get(body + 1) != Some(&quote)).then_some(("", body + 1));
    }
    let len = first_stop(&bytes[body..], quote)?;
    // The quote is ASCII, so the value ends on a character boundary.
    (bytes[body + len] == quote).then(|| (&code[body..body + len], body + len + 1))
}

/// The first `quote`, backslash or line end in `bytes`. Rule literals are a few bytes
/// long, too short for a vectorised search to pay its set-up: eight bytes are tested at a
/// time in a word instead (a byte equal to one of the three becomes a zero byte, and the
/// lowest zero byte of a word is found exactly by the borrow trick).
fn first_stop(bytes: &[u8], quote: u8) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGHS: u64 = ONES << 7;
    let zero_bytes = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let hits = zero_bytes(w ^ (ONES * u64::from(quote)))
            | zero_bytes(w ^ (ONES * u64::from(b'\\')))
            | zero_bytes(w ^ (ONES * u64::from(b'\n')));
        if hits != 0 {
            return Some(8 * k + hits.trailing_zeros() as usize / 8);
        }
    }
    let rest = chunks.remainder();
    let done = bytes.len() - rest.len();
    rest.iter()
        .position(|&b| b == quote || b == b'\\' || b == b'\n')
        .map(|i| done + i)
}

/// The arguments of the plain call `replace('a', 'b')` starting at `at`, and the offset
/// after it; `None` when no such call starts there.
fn plain_call(code: &str, at: usize) -> Option<(&str, &str, usize)> {
    const CALL: &str = "replace(";
    let bytes = code.as_bytes();
    if !code[at..].starts_with(CALL) {
        return None;
    }
    let (pattern, end) = plain_literal(code, skip_space(bytes, at + CALL.len()))?;
    let comma = skip_space(bytes, end);
    if bytes.get(comma) != Some(&b',') {
        return None;
    }
    let (replacement, end) = plain_literal(code, skip_space(bytes, comma + 1))?;
    let close = skip_space(bytes, end);
    (bytes.get(close) == Some(&b')')).then_some((pattern, replacement, close + 1))
}

/// Python refuses brackets nested deeper than this ("too many nested parentheses").
pub(super) const MAX_DEPTH: usize = 200;

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    /// A text literal (prefixes `r`/`u` allowed).
    Str(String),
    /// A bytes or f-string literal: not text.
    NonStr,
    /// An identifier, keyword or number.
    Word(&'a str),
    Open(u8),
    Close(u8),
    Comma,
    Dot,
    Assign,
    Semi,
    Newline,
    Other,
}

/// Python-like tokens of a block, with comments and line continuations skipped.
struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn next_token(&mut self) -> Option<Result<Tok<'a>, BlockError>> {
        let bytes = self.src.as_bytes();
        loop {
            let &b = bytes.get(self.pos)?;
            match b {
                b' ' | b'\t' | b'\r' | b'\x0c' => self.pos += 1,
                b'\\' if bytes.get(self.pos + 1) == Some(&b'\n') => self.pos += 2,
                b'#' => {
                    self.pos += self.src[self.pos..]
                        .find('\n')
                        .unwrap_or(bytes.len() - self.pos)
                }
                _ => break,
            }
        }
        let start = self.pos;
        let b = bytes[start];
        let single = |lexer: &mut Self, tok: Tok<'a>| {
            lexer.pos += 1;
            Some(Ok(tok))
        };
        match b {
            b'\n' => single(self, Tok::Newline),
            b'(' | b'[' | b'{' => single(self, Tok::Open(b)),
            b')' | b']' | b'}' => single(self, Tok::Close(b)),
            b',' => single(self, Tok::Comma),
            b'.' => single(self, Tok::Dot),
            b';' => single(self, Tok::Semi),
            b'=' if bytes.get(start + 1) != Some(&b'=') => single(self, Tok::Assign),
            b'\'' | b'"' => Some(self.literal(start, start, false)),
            _ => {
                let word_len = self.src[start..]
                    .char_indices()
                    .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
                    .map_or(self.src.len() - start, |(i, _)| i);
                if word_len == 0 {
                    let c = self.src[start..].chars().next().map_or(1, char::len_utf8);
                    self.pos += c;
                    return Some(Ok(Tok::Other));
                }
                let word = &self.src[start..start + word_len];
                let quote = start + word_len;
                if matches!(bytes.get(quote), Some(b'\'' | b'"')) && is_string_prefix(word) {
                    let not_text = word.contains(['b', 'B', 'f', 'F']);
                    let from = if not_text { quote } else { start };
                    return Some(self.literal(from, start, not_text));
                }
                self.pos = quote;
                Some(Ok(Tok::Word(word)))
            }
        }
    }

    /// Reads the literal starting at `from` (prefix included for text literals).
    fn literal(
        &mut self,
        from: usize,
        start: usize,
        not_text: bool,
    ) -> Result<Tok<'a>, BlockError> {
        match pylit::parse_string_literal(self.src, from) {
            Ok((value, end)) => {
                self.pos = end;
                Ok(if not_text {
                    Tok::NonStr
                } else {
                    Tok::Str(value)
                })
            }
            Err(error) => Err(BlockError::Literal { error, at: start }),
        }
    }
}

fn is_string_prefix(word: &str) -> bool {
    word.len() <= 2
        && word.bytes().all(|b| b"rRuUbBfF".contains(&b))
        && !(word.len() == 2 && word.eq_ignore_ascii_case("uu"))
}

/// The value of one element (between commas) of a bracketed group.
#[derive(Debug, Clone, PartialEq)]
enum Item {
    Empty,
    Str(String),
    /// A lone identifier; inside a rule string (`"replace(ab, c)"`) it stands for its text,
    /// as the released scorer reads it.
    Bare(String),
    /// A `replace(...)` call, possibly on an object (`s.replace(...)`).
    Call(RuleOutcome),
    /// A bracketed group: a pair of strings, or a list with its rules read.
    Group {
        pair: Option<(String, String)>,
        list: Option<Vec<RuleOutcome>>,
    },
    Other,
}

/// The last token seen in an element, for recognising `replace(` and `def replace(`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Str,
    Replace,
    Def,
    Else,
}

#[derive(Debug)]
struct Elem {
    item: Item,
    tokens: usize,
    only_words: bool,
    last: Last,
}

impl Elem {
    fn new() -> Self {
        Elem {
            item: Item::Empty,
            tokens: 0,
            only_words: true,
            last: Last::Nothing,
        }
    }

    fn push(&mut self, tok: Tok<'_>) {
        let first = self.tokens == 0;
        self.tokens += 1;
        match tok {
            Tok::Str(s) => {
                match (&mut self.item, self.last) {
                    // Adjacent literals are one string in Python: 'ab' 'c' == 'abc'.
                    (Item::Str(prev), Last::Str) => prev.push_str(&s),
                    _ if first => self.item = Item::Str(s),
                    _ => self.item = Item::Other,
                }
                self.only_words = false;
                self.last = Last::Str;
            }
            Tok::Word(w) => {
                // Several words or dots (`s.replace`, `return s`) are nothing until a call
                // arrives; `only_words` remembers that one still may.
                self.item = if first {
                    Item::Bare(w.to_owned())
                } else {
                    Item::Other
                };
                self.last = match w {
                    "replace" if self.last != Last::Def => Last::Replace,
                    "def" => Last::Def,
                    _ => Last::Else,
                };
            }
            Tok::Dot => {
                self.item = Item::Other;
                self.last = Last::Else;
            }
            _ => {
                self.item = Item::Other;
                self.only_words = false;
                self.last = Last::Else;
            }
        }
    }

    /// Receives a closed bracket group that followed this element's tokens.
    fn push_group(&mut self, item: Item, was_call: bool) {
        let first = self.tokens == 0;
        self.tokens += 1;
        let call_on_words = was_call && self.only_words && self.last == Last::Replace;
        let lone_group = first && !was_call;
        self.item = if call_on_words || lone_group {
            item
        } else {
            Item::Other
        };
        self.only_words = false;
        self.last = Last::Else;
    }

    /// The element's value once a separator or closing bracket ends it.
    fn finish(self) -> Item {
        self.item
    }
}

#[derive(Debug)]
struct Frame {
    open: u8,
    /// Token index of the opening bracket: earlier lists win.
    start: usize,
    /// Token index of the `replace` word when this group is a call's arguments.
    call: Option<usize>,
    elems: Vec<Item>,
    cur: Elem,
}

impl Frame {
    fn new(open: u8, start: usize, call: Option<usize>) -> Self {
        Frame {
            open,
            start,
            call,
            elems: Vec::new(),
            cur: Elem::new(),
        }
    }

    /// Ends the current element; `Empty` after a comma is a syntax error, kept as `Other`.
    fn end_elem(&mut self, at_comma: bool) {
        let cur = std::mem::replace(&mut self.cur, Elem::new());
        if cur.tokens == 0 && !at_comma {
            return;
        }
        let item = match cur.finish() {
            Item::Empty => Item::Other,
            item => item,
        };
        // Only lists, calls and would-be pairs need their elements.
        if self.open == b'[' || self.call.is_some() || (self.open == b'(' && self.elems.len() < 3) {
            self.elems.push(item);
        } else {
            self.elems.push(Item::Other);
            self.elems.truncate(3);
        }
    }
}

/// What one pass over a block found.
struct Scan {
    /// The earliest list literal holding at least one rule: (start token, its rules).
    list: Option<(usize, Vec<RuleOutcome>)>,
    /// Every `replace(...)` call: (token index of `replace`, outcome).
    calls: Vec<(usize, RuleOutcome)>,
    /// Non-empty top-level statements, and the first one's value.
    top_count: usize,
    top_first: Option<Item>,
}

impl Scan {
    fn into_rules(mut self) -> Result<Vec<RuleOutcome>, BlockError> {
        if let Some((_, rules)) = self.list {
            return Ok(rules);
        }
        if !self.calls.is_empty() {
            self.calls.sort_by_key(|(at, _)| *at);
            return Ok(self.calls.into_iter().map(|(_, r)| r).collect());
        }
        if self.top_count == 1 {
            match self.top_first {
                // The released scorer reads a lone string as a one-rule list.
                Some(Item::Str(s)) => return Ok(vec![rule_in_string(&s)]),
                // A list with no rules: `[]`, or strings that are not rules (each invalid).
                Some(Item::Group {
                    list: Some(rules), ..
                }) => return Ok(rules),
                _ => {}
            }
        }
        Err(BlockError::NoRules)
    }
}

/// One pass over `code`. `nested` is true inside a rule string, whose bare words are text
/// and whose strings are not read again (so the work stays linear).
fn scan(code: &str, nested: bool) -> Result<Scan, BlockError> {
    let mut lexer = Lexer { src: code, pos: 0 };
    let mut stack: Vec<Frame> = vec![Frame::new(0, 0, None)];
    let mut found = Scan {
        list: None,
        calls: Vec::new(),
        top_count: 0,
        top_first: None,
    };
    let mut index = 0usize;
    while let Some(tok) = lexer.next_token() {
        let tok = tok?;
        index += 1;
        let depth = stack.len();
        let frame = stack
            .last_mut()
            .expect("the top-level frame is never popped");
        match tok {
            Tok::Open(b) => {
                if depth > MAX_DEPTH {
                    return Err(BlockError::TooDeep);
                }
                let call = (frame.cur.last == Last::Replace && b == b'(').then_some(index - 1);
                stack.push(Frame::new(b, index, call));
            }
            Tok::Close(b) => {
                if depth == 1 {
                    return Err(BlockError::ClosesNothing(b as char));
                }
                let expected = match frame.open {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                if b != expected {
                    return Err(BlockError::Mismatched {
                        close: b as char,
                        open: frame.open as char,
                    });
                }
                let mut done = stack.pop().expect("depth > 1");
                done.end_elem(false);
                let was_call = done.call.is_some();
                let item = close_group(done, nested, &mut found);
                stack
                    .last_mut()
                    .expect("depth > 1")
                    .cur
                    .push_group(item, was_call);
            }
            Tok::Comma | Tok::Newline | Tok::Semi if depth == 1 => end_statement(frame, &mut found),
            Tok::Assign if depth == 1 => frame.cur = Elem::new(),
            Tok::Comma => frame.end_elem(true),
            Tok::Newline => {}
            tok => frame.cur.push(tok),
        }
    }
    if stack.len() > 1 {
        let open = stack.last().map_or(b'(', |f| f.open);
        return Err(BlockError::NeverClosed(open as char));
    }
    let top = stack
        .last_mut()
        .expect("the top-level frame is never popped");
    end_statement(top, &mut found);
    Ok(found)
}

fn end_statement(top: &mut Frame, found: &mut Scan) {
    let cur = std::mem::replace(&mut top.cur, Elem::new());
    if cur.tokens == 0 {
        return;
    }
    found.top_count += 1;
    if found.top_count == 1 {
        found.top_first = Some(cur.finish());
    }
}

/// Turns a closed group into the item its parent sees, recording calls and rule lists.
fn close_group(frame: Frame, nested: bool, found: &mut Scan) -> Item {
    let Frame {
        open,
        start,
        call,
        elems,
        ..
    } = frame;
    if let Some(at) = call {
        let outcome = call_outcome(&elems, nested);
        found.calls.push((at, outcome.clone()));
        return Item::Call(outcome);
    }
    let pair = match elems.as_slice() {
        [Item::Str(a), Item::Str(b)] if open != b'{' => Some((a.clone(), b.clone())),
        _ => None,
    };
    if open != b'[' {
        return Item::Group { pair, list: None };
    }
    let mut rule_like = 0;
    let rules: Vec<RuleOutcome> = elems
        .into_iter()
        .map(|item| {
            let call = matches!(item, Item::Call(_));
            let outcome = element_rule(item, nested);
            if outcome.is_ok() || call {
                rule_like += 1;
            }
            outcome
        })
        .collect();
    if rule_like == 0 {
        // Not an answer; kept in case it is the block's only statement.
        return Item::Group {
            pair,
            list: Some(rules),
        };
    }
    if found.list.as_ref().is_none_or(|(s, _)| start < *s) {
        found.list = Some((start, rules));
    }
    Item::Group { pair, list: None }
}

/// The rule an element of an answer list stands for.
fn element_rule(item: Item, nested: bool) -> RuleOutcome {
    match item {
        Item::Str(s) if !nested => rule_in_string(&s),
        Item::Str(_) => Err(RuleProblem::NotAReplaceCall),
        Item::Call(outcome) => outcome,
        Item::Group {
            pair: Some(pair), ..
        } => Ok(pair),
        _ => Err(RuleProblem::NotAString),
    }
}

/// The rule of a `replace(...)` call from its argument elements.
fn call_outcome(args: &[Item], nested: bool) -> RuleOutcome {
    let text = |item: &Item| match item {
        Item::Str(s) => Some(s.clone()),
        Item::Bare(w) if nested => Some(w.clone()),
        _ => None,
    };
    match args {
        [a, b] => match (text(a), text(b)) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(RuleProblem::NonStringArgument),
        },
        [_, _, _] => Err(RuleProblem::CountArgument),
        _ => Err(RuleProblem::NonStringArgument),
    }
}

/// The rule held by a string such as `"replace('bc', 'dc')"` (the released format).
fn rule_in_string(s: &str) -> RuleOutcome {
    rule_in_plain_string(s).map(|(a, b)| (a.into_owned(), b.into_owned()))
}

/// [`rule_in_string`] with the sides borrowed from `s` when it is a plain call with a
/// pattern (read directly); any other string goes to the general reader, which accepts a
/// superset and reads plain calls the same way.
fn rule_in_plain_string(s: &str) -> RuleRead<'_> {
    match plain_call(s, 0) {
        Some((pattern, replacement, end)) if end == s.len() && !pattern.is_empty() => {
            Ok((Cow::Borrowed(pattern), Cow::Borrowed(replacement)))
        }
        _ => rule_in_string_generally(s).map(|(a, b)| (Cow::Owned(a), Cow::Owned(b))),
    }
}

/// [`rule_in_string`] without the shortcut for plain calls: the common spelling read
/// directly, anything else scanned.
fn rule_in_string_generally(s: &str) -> RuleOutcome {
    if let Ok(rule) = crate::dataset::parse_replace_call(s) {
        return Ok(rule.into());
    }
    match scan(s, true) {
        Ok(found) if found.list.is_none() && found.calls.len() == 1 => {
            found.calls.into_iter().next().expect("one call").1
        }
        _ => Err(RuleProblem::NotAReplaceCall),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn owned(rules: Vec<RuleRead<'_>>) -> Vec<RuleOutcome> {
        rules
            .into_iter()
            .map(|rule| rule.map(|(a, b)| (a.into_owned(), b.into_owned())))
            .collect()
    }

    /// Arguments of a rule, plain or not.
    fn argument() -> BoxedStrategy<String> {
        prop_oneof![
            4 => "[abé]{0,3}".prop_map(|s| format!("'{s}'")),
            2 => "[ab]{0,3}".prop_map(|s| format!("\"{s}\"")),
            1 => Just("''".to_owned()),
            1 => Just("r'a'".to_owned()),
            1 => Just("'a\\'b'".to_owned()),
            1 => Just("'''a'''".to_owned()),
            1 => Just("'a' 'b'".to_owned()),
            1 => Just("a".to_owned()),
            1 => Just("'a".to_owned()),
        ]
        .boxed()
    }

    /// Bits of space, plain or not.
    fn space() -> BoxedStrategy<String> {
        prop_oneof![
            4 => Just(String::new()),
            4 => Just(" ".to_owned()),
            1 => Just("\n    ".to_owned()),
            1 => Just("\t\r\n".to_owned()),
            1 => Just("\x0c".to_owned()),
            1 => Just("\\\n".to_owned()),
            1 => Just(" # note\n".to_owned()),
        ]
        .boxed()
    }

    /// `replace(A, B)` and things near it.
    fn call() -> BoxedStrategy<String> {
        (
            prop_oneof![
                6 => Just("replace("),
                1 => Just("replace ("),
                1 => Just("s.replace("),
                1 => Just("replaced("),
            ],
            space(),
            argument(),
            space(),
            prop_oneof![6 => Just(","), 1 => Just(",,"), 1 => Just("")],
            space(),
            argument(),
            space(),
            prop_oneof![6 => Just(")"), 1 => Just(", 1)"), 1 => Just(",)"), 1 => Just(") x")],
        )
            .prop_map(|(a, b, c, d, e, f, g, h, i)| [a, &b, &c, &d, e, &f, &g, &h, i].concat())
            .boxed()
    }

    /// Elements of an answer list: rule strings, calls, and other things.
    fn element() -> BoxedStrategy<String> {
        prop_oneof![
            6 => call().prop_map(|c| format!("\"{c}\"")),
            2 => call().prop_map(|c| format!("'{}'", c.replace('\'', "\""))),
            3 => call(),
            1 => Just("'hello'".to_owned()),
            1 => Just("3".to_owned()),
            1 => Just("('a', 'b')".to_owned()),
            1 => Just("[\"replace('a', 'b')\"]".to_owned()),
            1 => Just("\"replace('a', 'b')\" \"\"".to_owned()),
        ]
        .boxed()
    }

    /// Blocks that are mostly, but not always, one plain list.
    fn block() -> BoxedStrategy<String> {
        (
            prop_oneof![6 => Just(""), 1 => Just("\n"), 1 => Just("rules = "), 1 => Just("# a\n")],
            proptest::collection::vec((element(), space()), 0..5),
            prop_oneof![6 => Just(", "), 2 => Just(",\n    "), 1 => Just(" ,"), 1 => Just(",,"), 1 => Just(" ")],
            prop_oneof![6 => Just(""), 1 => Just(",")],
            prop_oneof![6 => Just("\n"), 1 => Just(""), 1 => Just("\nprint(s)"), 1 => Just(" ]")],
        )
            .prop_map(|(head, elements, sep, trailing, tail)| {
                let items: Vec<String> = elements.into_iter().map(|(e, s)| e + &s).collect();
                format!("{head}[{}{trailing}]{tail}", items.join(sep))
            })
        .boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The word-at-a-time search finds what a byte loop finds.
        #[test]
        fn first_stop_is_the_first_stop(bytes in proptest::collection::vec(
            proptest::sample::select(b"ab'\"\\\n\x00\x7f\x80\xff".to_vec()), 0..40),
            quote in proptest::sample::select(vec![b'\'', b'"']),
        ) {
            let expected = bytes.iter().position(|&b| b == quote || b == b'\\' || b == b'\n');
            prop_assert_eq!(first_stop(&bytes, quote), expected);
        }

        /// Where the shortcut for plain calls answers, the general reader agrees.
        #[test]
        fn plain_calls_read_as_generally(text in call()) {
            prop_assert_eq!(rule_in_string(&text), rule_in_string_generally(&text));
        }

        /// Where the shortcut for plain lists answers, the general reader agrees.
        #[test]
        fn plain_lists_read_as_generally(code in block()) {
            if let Some(rules) = plain_list(&code) {
                prop_assert_eq!(Ok(owned(rules)), read_rules_generally(&code), "{:?}", code);
            }
        }
    }

    #[test]
    fn the_usual_answers_take_the_shortcuts() {
        let plain = [
            "[\"replace('N', 'g')\",\n    \"replace('nGh', 'cD')\"]",
            "\n['replace(\"a\", \"\")', 'replace(\"b\", \"c\")',]\n",
            "[replace('a', 'b'), replace('', 'c')]",
            "[]",
        ];
        for code in plain {
            assert_eq!(
                plain_list(code).map(|rules| Ok(owned(rules))),
                Some(read_rules_generally(code)),
                "{code:?}"
            );
        }
        assert!(plain_call("replace('ab',  'c')", 0).is_some());
        for other in [
            "rules = [\"replace('a', 'b')\"]",
            "[\"replace('a', 'b')\"]  # done",
            "[r'a', 'b']",
            "[('a', 'b')]",
            "['a' 'b']",
            "['a\\n']",
            "[\"replace('a', 'b')\"",
        ] {
            assert_eq!(plain_list(other), None, "{other:?}");
        }
    }
}
