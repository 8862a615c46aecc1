//! The reader of a code block: Python-like tokens, then one pass with an explicit bracket
//! stack that finds rule lists and `replace` calls. Linear in the block's length; nothing
//! is evaluated.

use super::{RuleOutcome, RuleProblem};
use crate::pylit;

/// Reads the rules of one code block (see [`super::parse_block`]).
pub(super) fn read_rules(code: &str) -> Result<Vec<RuleOutcome>, String> {
    scan(code, false)?.into_rules()
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
    fn next_token(&mut self) -> Option<Result<Tok<'a>, String>> {
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
    fn literal(&mut self, from: usize, start: usize, not_text: bool) -> Result<Tok<'a>, String> {
        match pylit::parse_string_literal(self.src, from) {
            Ok((value, end)) => {
                self.pos = end;
                Ok(if not_text {
                    Tok::NonStr
                } else {
                    Tok::Str(value)
                })
            }
            Err(e) => Err(format!("{e} (at byte {start} of the block)")),
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
    fn into_rules(mut self) -> Result<Vec<RuleOutcome>, String> {
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
        Err("no list of rules and no replace(...) call in the code block".to_owned())
    }
}

/// One pass over `code`. `nested` is true inside a rule string, whose bare words are text
/// and whose strings are not read again (so the work stays linear).
fn scan(code: &str, nested: bool) -> Result<Scan, String> {
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
                    return Err(format!("brackets nested more than {MAX_DEPTH} deep"));
                }
                let call = (frame.cur.last == Last::Replace && b == b'(').then_some(index - 1);
                stack.push(Frame::new(b, index, call));
            }
            Tok::Close(b) => {
                if depth == 1 {
                    return Err(format!("'{}' closes nothing", b as char));
                }
                let expected = match frame.open {
                    b'(' => b')',
                    b'[' => b']',
                    _ => b'}',
                };
                if b != expected {
                    return Err(format!("'{}' closes '{}'", b as char, frame.open as char));
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
        return Err(format!("'{}' is never closed", open as char));
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
    // The common spelling, read directly; everything else by the general reader, which
    // accepts a superset (and reads this spelling the same way).
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
