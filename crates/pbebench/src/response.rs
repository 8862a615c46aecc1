//! Reading a solver's response into a cascade (`docs/answers.md#reading-an-answer`).
//!
//! The path is the same whatever produced the text: thinking is removed
//! ([`strip_thinking`]), the fenced code blocks are found ([`code_blocks`]), the first or
//! last one is read without evaluating anything ([`parse_block`]), and every rule is checked
//! against the instance's [`Limits`]. A rule that breaks a limit becomes the identity (it is
//! left out of the cascade) and the reason is kept; rules past `max_rules` are dropped.
//!
//! Accepted spellings inside the block, all read with real Python string literals
//! ([`crate::pylit`]):
//!
//! * the released list of strings: `["replace('bc','dc')", "replace('ad','ed')"]`;
//! * a list of calls `[replace('a', 'b'), …]` or of pairs `[('a', 'b'), ['c', '']]`;
//! * statements and chains: `s = s.replace('a', 'b')`, `s.replace('a','b').replace('c','d')`.
//!
//! A list literal holding at least one rule is the answer (the first such list); without one,
//! the `replace` calls of the block are the answer, in the order they are written.
//! The reader is a single pass over the block's tokens with an explicit bracket stack, so it
//! runs in linear time on any input; brackets nested deeper than Python allows are rejected.

mod syntax;

use crate::instance::Instance;
use crate::rule::{Cascade, Rule};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
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

/// The letters rules may use, with constant-time lookup for ASCII.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alphabet {
    ascii: [bool; 128],
    other: Vec<char>,
}

impl Alphabet {
    /// The alphabet made of the characters of `letters`.
    pub fn new(letters: &str) -> Self {
        let mut ascii = [false; 128];
        let mut other = Vec::new();
        for c in letters.chars() {
            if c.is_ascii() {
                ascii[c as usize] = true;
            } else {
                other.push(c);
            }
        }
        other.sort_unstable();
        other.dedup();
        Alphabet { ascii, other }
    }

    /// True when `c` is one of the letters.
    pub fn contains(&self, c: char) -> bool {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.binary_search(&c).is_ok()
        }
    }

    /// True when every character of `s` is one of the letters.
    pub fn contains_all(&self, s: &str) -> bool {
        if s.is_ascii() {
            s.bytes().all(|b| self.ascii[usize::from(b)])
        } else {
            s.chars().all(|c| self.contains(c))
        }
    }
}

/// The constraints a response's rules must meet (the prompt's restrictions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// At most this many rules are read; later ones are dropped (`L_max`).
    pub max_rules: usize,
    /// The longest a rule's side may be, in characters (`s_max`).
    pub max_rule_len: usize,
    /// The letters both sides must use; `None` accepts any character.
    pub alphabet: Option<Alphabet>,
}

impl Limits {
    /// The limits an instance states. An instance built in memory with an empty alphabet
    /// string gets no alphabet check; a dataset file cannot hold one (its reader refuses an
    /// empty `alphabet` with the file and line).
    pub fn of(instance: &Instance) -> Self {
        Self::new(
            instance.max_rules,
            instance.max_rule_len,
            &instance.alphabet,
        )
    }

    /// The limits an instance with these fields states (see [`Limits::of`]).
    pub fn new(max_rules: usize, max_rule_len: usize, alphabet: &str) -> Self {
        Limits {
            max_rules,
            max_rule_len,
            alphabet: (!alphabet.is_empty()).then(|| Alphabet::new(alphabet)),
        }
    }

    /// No limits at all: every syntactically correct rule with a non-empty pattern is valid.
    pub fn unlimited() -> Self {
        Limits {
            max_rules: usize::MAX,
            max_rule_len: usize::MAX,
            alphabet: None,
        }
    }

    /// Everything wrong with the rule `replace(pattern, replacement)` under these limits.
    pub fn check(&self, pattern: &str, replacement: &str) -> Vec<RuleProblem> {
        let mut problems = Vec::new();
        if pattern.is_empty() {
            problems.push(RuleProblem::EmptyPattern);
        }
        let max = self.max_rule_len;
        let len = pattern.chars().count();
        if len > max {
            problems.push(RuleProblem::PatternTooLong { len, max });
        }
        let len = replacement.chars().count();
        if len > max {
            problems.push(RuleProblem::ReplacementTooLong { len, max });
        }
        if let Some(alphabet) = &self.alphabet {
            if let Some(letter) = pattern
                .chars()
                .chain(replacement.chars())
                .find(|c| !alphabet.contains(*c))
            {
                problems.push(RuleProblem::OutsideAlphabet { letter });
            }
        }
        problems
    }

    /// True when [`Limits::check`] finds nothing wrong with the rule, without listing what
    /// (and without allocating): what reading a cascade for a reward needs.
    pub fn allows(&self, pattern: &str, replacement: &str) -> bool {
        // A side has at most as many characters as bytes: the count is needed only past it.
        let fits = |side: &str| {
            side.len() <= self.max_rule_len || side.chars().count() <= self.max_rule_len
        };
        !pattern.is_empty()
            && fits(pattern)
            && fits(replacement)
            && self.alphabet.as_ref().is_none_or(|alphabet| {
                alphabet.contains_all(pattern) && alphabet.contains_all(replacement)
            })
    }
}

/// Why one rule of a response is not valid (and so acts as the identity).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleProblem {
    /// An element of the answer list that is not a string, a pair of strings or a call.
    NotAString,
    /// A string of the answer list that does not hold exactly one `replace(A, B)` call.
    NotAReplaceCall,
    /// `replace` called with something other than two string literals.
    NonStringArgument,
    /// `replace(A, B, count)` replaces only some occurrences: not a rule of this benchmark.
    CountArgument,
    /// `replace("", B)` would insert `B` between all characters.
    EmptyPattern,
    /// The pattern `A` is longer than `max_rule_len`.
    PatternTooLong {
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The replacement `B` is longer than `max_rule_len`.
    ReplacementTooLong {
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A side uses a character outside the instance's alphabet.
    OutsideAlphabet {
        /// The first such character.
        letter: char,
    },
}

impl RuleProblem {
    /// A stable machine-readable name, e.g. `pattern_too_long`.
    pub fn kind(&self) -> &'static str {
        match self {
            RuleProblem::NotAString => "not_a_string",
            RuleProblem::NotAReplaceCall => "not_a_replace_call",
            RuleProblem::NonStringArgument => "non_string_argument",
            RuleProblem::CountArgument => "count_argument",
            RuleProblem::EmptyPattern => "empty_pattern",
            RuleProblem::PatternTooLong { .. } => "pattern_too_long",
            RuleProblem::ReplacementTooLong { .. } => "replacement_too_long",
            RuleProblem::OutsideAlphabet { .. } => "outside_alphabet",
        }
    }
}

impl fmt::Display for RuleProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleProblem::NotAString => f.write_str("not a string, a pair of strings or a call"),
            RuleProblem::NotAReplaceCall => {
                f.write_str("the string does not hold exactly one replace(A, B) call")
            }
            RuleProblem::NonStringArgument => {
                f.write_str("replace must be called with two string literals")
            }
            RuleProblem::CountArgument => {
                f.write_str("replace with a count argument changes only some occurrences")
            }
            RuleProblem::EmptyPattern => f.write_str("the pattern A is empty"),
            RuleProblem::PatternTooLong { len, max } => {
                write!(f, "the pattern A has {len} characters, more than {max}")
            }
            RuleProblem::ReplacementTooLong { len, max } => {
                write!(f, "the replacement B has {len} characters, more than {max}")
            }
            RuleProblem::OutsideAlphabet { letter } => {
                write!(f, "{letter:?} is not in the instance's alphabet")
            }
        }
    }
}

impl Serialize for RuleProblem {
    /// `{"kind": "pattern_too_long", "message": "…"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("RuleProblem", 2)?;
        st.serialize_field("kind", self.kind())?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

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

/// A cascade written as an answer in the released format: one fenced python block
/// holding a Python list of `replace('a', 'b')` strings (`[]` for the identity). Every
/// accepted spelling parses back to the same cascade.
pub fn render_answer(cascade: &Cascade) -> String {
    let calls: Vec<String> = cascade
        .rules()
        .iter()
        .map(|r| {
            format!(
                "replace({}, {})",
                crate::pylit::repr(r.pattern()),
                crate::pylit::repr(r.replacement())
            )
        })
        .collect();
    format!("```python\n{}\n```", crate::pylit::repr_list(&calls))
}

/// Parses a response: thinking removed, the chosen block read, rules checked and cut to
/// `limits.max_rules`. Never panics; linear in the length of `text`.
pub fn parse_response(text: &str, limits: &Limits, choice: BlockChoice) -> ParsedResponse {
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
    limits: &Limits,
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
    limits: &Limits,
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

/// Hands `then` the chosen block of a response (`None` without one) and how many blocks it
/// has, outside thinking; or `None` when a `<think>` is never closed. The same blocks as
/// [`code_blocks`] of [`strip_thinking`]; a response without think tags (nearly all) is
/// read in one pass over its text ([`fences_without_thinking`]).
fn with_chosen_block<R>(
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
fn fences_without_thinking(text: &str) -> Option<(Option<&str>, Option<&str>, usize)> {
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

/// The rules of a cascade as (pattern, replacement) slices of one string: two allocations
/// however many rules, reused from response to response. Equal values, equal cascades.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct CascadeSides {
    /// The patterns and replacements, one after the other.
    text: String,
    /// Where each rule's pattern starts, where its replacement starts and where that ends.
    bounds: Vec<[usize; 3]>,
}

impl CascadeSides {
    /// Appends the rule `replace(pattern, replacement)`.
    pub fn push(&mut self, pattern: &str, replacement: &str) {
        let start = self.text.len();
        self.text.push_str(pattern);
        self.text.push_str(replacement);
        self.bounds
            .push([start, start + pattern.len(), self.text.len()]);
    }

    /// Forgets every rule, keeping the memory.
    pub fn clear(&mut self) {
        self.text.clear();
        self.bounds.clear();
    }

    /// True when this is the cascade whose rules `text` and `bounds` hold, as
    /// [`CascadeSides::parts`] gives them. Empty cascades are told apart before their
    /// buffers are compared: comparing two empty slices still calls `memcmp` on their
    /// dangling pointers, which some processors serve slowly (a masked load that would
    /// fault, suppressed); it was a third of the time of rewarding empty responses.
    pub fn is(&self, text: &str, bounds: &[[usize; 3]]) -> bool {
        self.bounds.len() == bounds.len()
            && (bounds.is_empty() || (self.bounds == bounds && self.text == text))
    }

    /// The text of the rules and the bounds of each, for keeping a copy in arenas.
    pub fn parts(&self) -> (&str, &[[usize; 3]]) {
        (&self.text, &self.bounds)
    }

    /// How many rules.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// The rules, in order, as (pattern, replacement).
    pub fn rules(&self) -> impl Iterator<Item = (&str, &str)> {
        self.bounds
            .iter()
            .map(|&[a, b, end]| (&self.text[a..b], &self.text[b..end]))
    }
}

/// The cascade of a response, as [`ParsedResponse::cascade`] gives it (its valid rules, in
/// order), into `out` (cleared first), without the rest of the answer: no rule is kept
/// beyond the cascade, and nothing is allocated unless `out` grows. What a reward reads.
pub(crate) fn read_cascade(
    text: &str,
    limits: &Limits,
    choice: BlockChoice,
    out: &mut CascadeSides,
) {
    out.clear();
    with_chosen_block(text, choice, |found| {
        let Some((Some(block), _)) = found else {
            return;
        };
        let mut seen = 0;
        let plain = syntax::plain_list_each(block, |rule| {
            let sides = rule.as_ref().ok().map(|(a, b)| (a.as_ref(), b.as_ref()));
            keep_valid(out, limits, &mut seen, sides);
        });
        if plain.is_none() {
            out.clear();
            seen = 0;
            for rule in syntax::read_rules_generally(block).unwrap_or_default() {
                let sides = rule.as_ref().ok().map(|(a, b)| (a.as_str(), b.as_str()));
                keep_valid(out, limits, &mut seen, sides);
            }
        }
    });
}

/// Adds the `seen`th rule of a block (its sides, `None` when it is not a rule) to `out` when
/// it is valid and within `max_rules`: invalid rules are the identity, later ones dropped.
fn keep_valid(
    out: &mut CascadeSides,
    limits: &Limits,
    seen: &mut usize,
    sides: Option<(&str, &str)>,
) {
    if let Some((a, b)) = sides.filter(|_| *seen < limits.max_rules) {
        if limits.allows(a, b) {
            out.push(a, b);
        }
    }
    *seen += 1;
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

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

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

/// Why a code block holds no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockError {
    /// A string literal that cannot be read.
    #[error("{error} (at byte {at} of the block)")]
    Literal {
        /// What is wrong with it.
        error: crate::pylit::LiteralError,
        /// Byte offset of the literal in the block.
        at: usize,
    },
    /// Brackets nested deeper than Python allows.
    #[error("brackets nested more than {} deep", syntax::MAX_DEPTH)]
    TooDeep,
    /// A closing bracket with no opening one.
    #[error("'{0}' closes nothing")]
    ClosesNothing(char),
    /// A closing bracket of another kind than the one open.
    #[error("'{close}' closes '{open}'")]
    Mismatched {
        /// The closing bracket.
        close: char,
        /// The bracket open.
        open: char,
    },
    /// A bracket never closed.
    #[error("'{0}' is never closed")]
    NeverClosed(char),
    /// Neither a list of rules nor a `replace` call.
    #[error("no list of rules and no replace(...) call in the code block")]
    NoRules,
}

/// One rule as read from a block, before the limits are checked: its two string arguments,
/// or why it is not a rule.
pub type RuleOutcome = Result<(String, String), RuleProblem>;

/// A [`RuleOutcome`] whose strings may be borrowed from the block.
type RuleRead<'a> = Result<(Cow<'a, str>, Cow<'a, str>), RuleProblem>;

/// Reads the rules of one code block, in order, without checking limits. `Err` says why the
/// block holds no answer (a lexical error, unbalanced brackets, no rules at all).
pub fn parse_block(code: &str) -> Result<Vec<RuleOutcome>, BlockError> {
    Ok(syntax::read_rules(code)?
        .into_iter()
        .map(|rule| rule.map(|(a, b)| (a.into_owned(), b.into_owned())))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(code: &str) -> Vec<RuleOutcome> {
        parse_block(code).unwrap_or_else(|e| panic!("{code:?}: {e}"))
    }

    fn ok(a: &str, b: &str) -> RuleOutcome {
        Ok((a.to_owned(), b.to_owned()))
    }

    fn lite() -> Limits {
        Limits {
            max_rules: 5,
            max_rule_len: 3,
            alphabet: Some(Alphabet::new(crate::dataset::LITE_ALPHABET)),
        }
    }

    #[test]
    fn released_list_of_strings() {
        assert_eq!(
            rules(r#"["replace('bc','dc')", "replace('ad','ed')"]"#),
            vec![ok("bc", "dc"), ok("ad", "ed")]
        );
        assert_eq!(
            rules("['replace(\"a\", \"\")', \"replace('x', 'y')\",]"),
            vec![ok("a", ""), ok("x", "y")]
        );
        // Bare words inside a rule string are text, as the released scorer reads them.
        assert_eq!(rules(r#"["replace(ab, c)"]"#), vec![ok("ab", "c")]);
        assert_eq!(rules(r#""replace('a','b')""#), vec![ok("a", "b")]);
        assert_eq!(
            rules(r#"programs = ["s.replace('a','b')", "hello", 3]"#),
            vec![
                ok("a", "b"),
                Err(RuleProblem::NotAReplaceCall),
                Err(RuleProblem::NotAString)
            ]
        );
    }

    #[test]
    fn calls_pairs_and_statements() {
        assert_eq!(
            rules("[replace('a', 'b'), replace(\"c\", '')]"),
            vec![ok("a", "b"), ok("c", "")]
        );
        assert_eq!(
            rules("[('a', 'b'), ['c', 'd']]"),
            vec![ok("a", "b"), ok("c", "d")]
        );
        assert_eq!(
            rules("s = s.replace('a', 'b')\ns = s.replace('c', 'd')  # why\nreturn s"),
            vec![ok("a", "b"), ok("c", "d")]
        );
        assert_eq!(
            rules("def f(s):\n    return s.replace('a','b').replace('c','d').replace('e', 'f')"),
            vec![ok("a", "b"), ok("c", "d"), ok("e", "f")]
        );
        // A list of pairs wins over the loop that applies it.
        assert_eq!(
            rules("rules = [('a', 'b'), ('c', 'd')]\nfor a, b in rules:\n    s = s.replace(a, b)"),
            vec![ok("a", "b"), ok("c", "d")]
        );
        assert_eq!(
            rules("s.replace(a, 'b')\ns.replace('a', 'b', 1)"),
            vec![
                Err(RuleProblem::NonStringArgument),
                Err(RuleProblem::CountArgument)
            ]
        );
        assert_eq!(
            rules("def replace(s, a, b):\n    pass\nreplace('q', 'r')"),
            vec![ok("q", "r")]
        );
    }

    #[test]
    fn python_literals() {
        assert_eq!(
            rules(r#"[r'a\b', 'x' 'y', "\x41\u00e9\n", '\'', "\"" ]"#).len(),
            5,
            "not a pair: five strings"
        );
        assert_eq!(
            rules(r#"[(r'a\b', 'x' 'y'), ("\x41\u00e9", '\'')]"#),
            vec![ok("a\\b", "xy"), ok("Aé", "'")]
        );
        assert_eq!(rules("[(b'a', 'b')]"), vec![Err(RuleProblem::NotAString)]);
        assert_eq!(
            rules("[(f'a', 'b'), replace(f'a', 'b')]"),
            vec![
                Err(RuleProblem::NotAString),
                Err(RuleProblem::NonStringArgument)
            ]
        );
    }

    #[test]
    fn empty_and_unparsable_blocks() {
        assert_eq!(rules("[]"), vec![]);
        assert_eq!(rules("answer = [ ]"), vec![]);
        assert_eq!(parse_block(""), Err(BlockError::NoRules));
        assert_eq!(parse_block("print('hello')"), Err(BlockError::NoRules));
        // Broken quoting: the list's one element is no rule (Python would refuse the block).
        assert_eq!(
            rules("['replace('a','b')']"),
            vec![Err(RuleProblem::NotAString)]
        );
        assert_eq!(
            parse_block("[('a', 'b')"),
            Err(BlockError::NeverClosed('['))
        );
        assert_eq!(
            parse_block("[('a', 'b')]]"),
            Err(BlockError::ClosesNothing(']'))
        );
        assert_eq!(
            parse_block("[('a', 'b'])"),
            Err(BlockError::Mismatched {
                close: ']',
                open: '('
            })
        );
        assert_eq!(
            parse_block("'unterminated"),
            Err(BlockError::Literal {
                error: crate::pylit::LiteralError::Unterminated { at: 0 },
                at: 0
            })
        );
        assert_eq!(
            parse_block(&"[".repeat(syntax::MAX_DEPTH + 5)),
            Err(BlockError::TooDeep)
        );
    }

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

    #[test]
    fn alphabet_lookup() {
        let a = Alphabet::new("abʔː");
        assert!(a.contains('a') && a.contains('ʔ') && a.contains('ː'));
        assert!(!a.contains('c') && !a.contains('é'));
        assert!(a.contains_all("abʔ") && a.contains_all(""));
        assert!(!a.contains_all("abc") && !a.contains_all("aé"));
    }

    use proptest::prelude::*;

    /// Responses made of the pieces the readers look for: fences and their tags, think
    /// tags, rule lists plain and not, prose.
    fn response_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => Just("```python\n"),
            2 => Just("```"),
            1 => Just("```py "),
            1 => Just("```json\n"),
            1 => Just("````"),
            1 => Just("``"),
            1 => Just("`"),
            1 => Just("<think>"),
            1 => Just("</think>"),
            1 => Just("<thin"),
            1 => Just("<"),
            3 => Just("[\"replace('ab', 'c')\", \"replace('c', 'd')\"]"),
            2 => Just("[replace('a', ''), replace('', 'b')]"),
            1 => Just("[\"replace('abcd', 'a')\", \"replace('a', 'Q')\", \"replace('é', 'a')\"]"),
            1 => Just("['replace(\"a\", \"b\")'] # note"),
            1 => Just("s = s.replace('b', 'a').replace('c', 'b', 1)"),
            1 => Just("[('a', 'b'), ('b', 'c'), ('c', 'd'), ('d', 'e'), ('e', 'f'), ('f', 'g')]"),
            1 => Just("print(1)"),
            3 => Just("\n"),
            3 => Just("Some prose. "),
        ];
        proptest::collection::vec(piece, 0..14).prop_map(|pieces| pieces.concat())
    }

    fn limits() -> impl Strategy<Value = Limits> {
        (
            0usize..7,
            0usize..5,
            prop::option::of(prop::sample::select(vec!["abcd", "abcdʔé", ""])),
        )
            .prop_map(|(max_rules, max_rule_len, alphabet)| Limits {
                max_rules,
                max_rule_len,
                alphabet: alphabet.map(Alphabet::new),
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The one-pass search for blocks finds the blocks of the text without its
        /// thinking, and gives up exactly when there are think tags.
        #[test]
        fn blocks_in_one_pass_are_the_blocks(text in response_text()) {
            let tags = text.contains(THINK_OPEN) || text.contains(THINK_CLOSE);
            let fast = fences_without_thinking(&text);
            prop_assert_eq!(fast.is_none(), tags);
            for choice in [BlockChoice::First, BlockChoice::Last] {
                let found = with_chosen_block(&text, choice, |found| {
                    found.map(|(block, count)| (block.map(str::to_owned), count))
                });
                let expected = strip_thinking(&text).map(|visible| {
                    let blocks = code_blocks(&visible);
                    let chosen = match choice {
                        BlockChoice::First => blocks.first(),
                        BlockChoice::Last => blocks.last(),
                    };
                    (chosen.map(|b| (*b).to_owned()), blocks.len())
                });
                prop_assert_eq!(found, expected);
            }
        }

        /// `allows` says what `check` finds nothing wrong with.
        #[test]
        fn allows_is_nothing_to_check(
            pattern in "[abQé]{0,5}",
            replacement in "[abQé]{0,5}",
            limits in limits(),
        ) {
            prop_assert_eq!(
                limits.allows(&pattern, &replacement),
                limits.check(&pattern, &replacement).is_empty()
            );
        }

        /// The cascade read for a reward is the parsed response's cascade.
        #[test]
        fn read_cascade_is_the_parsed_cascade(text in response_text(), limits in limits()) {
            for choice in [BlockChoice::First, BlockChoice::Last] {
                let mut sides = CascadeSides::default();
                read_cascade(&text, &limits, choice, &mut sides);
                let read: Vec<(String, String)> =
                    sides.rules().map(|(a, b)| (a.to_owned(), b.to_owned())).collect();
                let parsed: Vec<(String, String)> = parse_response(&text, &limits, choice)
                    .cascade()
                    .rules()
                    .iter()
                    .map(|r| (r.pattern().to_owned(), r.replacement().to_owned()))
                    .collect();
                prop_assert_eq!(read, parsed, "{:?}", text);
            }
        }
    }
}
