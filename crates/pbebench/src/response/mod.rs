//! Reading a solver's response into a cascade (`docs/answers.md#reading-an-answer`).
//!
//! The path is the same whatever produced the text: thinking is removed
//! ([`strip_thinking`]), the fenced code blocks are found ([`code_blocks`]), the first or
//! last one is read without evaluating anything ([`parse_block`]), and every rule is checked
//! against the instance's [`RuleLimits`]. A rule that breaks a limit becomes the identity (it is
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

//!
//! One file a concern: the instance's limits on rules ([`limits`]), fenced blocks and
//! thinking ([`fences`]), reading one block ([`block`], over its tokens in `syntax`), the
//! answer assembled from the chosen block ([`answer`]), the cascade alone for a reward
//! ([`cascade`]), and writing a cascade as an answer ([`writer`]).

mod answer;
mod block;
mod cascade;
mod fences;
mod limits;
mod syntax;
mod writer;

pub use answer::{parse_response, ParsedResponse, ParsedRule, ResponseStatus};
pub(crate) use answer::{read_answer, Answer};
pub use block::{parse_block, BlockError, RuleOutcome};
pub(crate) use cascade::{read_cascade, CascadeSides};
pub use fences::{code_blocks, strip_thinking, BlockChoice};
pub use limits::{Alphabet, RuleLimits, RuleProblem};
pub use writer::render_answer;

#[cfg(test)]
mod tests {
    use super::fences::{fences_without_thinking, with_chosen_block, THINK_CLOSE, THINK_OPEN};
    use super::*;
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

    fn limits() -> impl Strategy<Value = RuleLimits> {
        (
            0usize..7,
            0usize..5,
            prop::option::of(prop::sample::select(vec!["abcd", "abcdʔé", ""])),
        )
            .prop_map(|(max_rules, max_rule_len, alphabet)| RuleLimits {
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
