//! The constraints an instance puts on the rules of an answer: at most `max_rules` rules,
//! sides of at most `max_rule_len` characters, letters of its alphabet.

use crate::instance::Instance;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};
use std::fmt;

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
pub struct RuleLimits {
    /// At most this many rules are read; later ones are dropped (`L_max`).
    pub max_rules: usize,
    /// The longest a rule's side may be, in characters (`s_max`).
    pub max_rule_len: usize,
    /// The letters both sides must use; `None` accepts any character.
    pub alphabet: Option<Alphabet>,
}

impl RuleLimits {
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

    /// The limits an instance with these fields states (see [`RuleLimits::of`]).
    pub fn new(max_rules: usize, max_rule_len: usize, alphabet: &str) -> Self {
        RuleLimits {
            max_rules,
            max_rule_len,
            alphabet: (!alphabet.is_empty()).then(|| Alphabet::new(alphabet)),
        }
    }

    /// No limits at all: every syntactically correct rule with a non-empty pattern is valid.
    pub fn unlimited() -> Self {
        RuleLimits {
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

    /// True when [`RuleLimits::check`] finds nothing wrong with the rule, without listing what
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_lookup() {
        let a = Alphabet::new("abʔː");
        assert!(a.contains('a') && a.contains('ʔ') && a.contains('ː'));
        assert!(!a.contains('c') && !a.contains('é'));
        assert!(a.contains_all("abʔ") && a.contains_all(""));
        assert!(!a.contains_all("abc") && !a.contains_all("aé"));
    }
}
