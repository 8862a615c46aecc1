//! One code block read into rules, before the instance's limits are checked (the reader
//! itself is `syntax`).

use super::limits::RuleProblem;
use super::syntax;
use std::borrow::Cow;

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
pub(super) type RuleRead<'a> = Result<(Cow<'a, str>, Cow<'a, str>), RuleProblem>;

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
}
