//! The prompt of a reordering problem, in pbebench's own words: the rules numbered as
//! `scrambled` holds them, the visible examples, and the answer asked for as a JSON array
//! of those numbers (what [`super::parse_order`] reads).

use super::ReorderInstance;
use crate::pylit;
use std::fmt::Write as _;

/// The text around the rules and examples of [`reorder_prompt`]; `{rules}`, `{n}`,
/// `{last}`, `{inputs}` and `{outputs}` are filled in.
pub const REORDER_TEMPLATE: &str = r#"Each output string below was produced from the input string above it by a program: a sequence of rewrite rules applied one after another. Every rule is a call of Python's `replace`: replace(A, B) turns every occurrence of A into B, scanning from left to right without overlaps, and text it has just inserted is not scanned again. Since each rule works on the result of the rules before it, their order matters: an earlier rule can create text a later rule rewrites, or remove text a later rule would have rewritten.

You are given the program's {n} rules, numbered 0 to {last}, but not in the order the program applies them:
{rules}

Your task is to put the rules in an order that turns every input into its output. Use every rule exactly once.

Give your final answer as a JSON array of the rule numbers, in the order the rules apply, inside a single ```json Markdown code block; for example, [2, 0, 1] applies rule 2 first, then rule 0, then rule 1.

Inputs:
{inputs}

Outputs:
{outputs}
"#;

/// The prompt for `problem`: its scrambled rules (numbered by their index) and its visible
/// examples; the gold order and held-out examples are never shown.
///
/// ```
/// use pbebench::reorder::{reorder_instance, reorder_prompt};
/// use pbebench::{Cascade, Instance};
///
/// let gold = Cascade::from_pairs(&[("ab", "c"), ("c", "d")])?;
/// let problem = reorder_instance(&Instance::from_gold("t", &["ab", "c"], gold, "abcd"), 0).unwrap();
/// let prompt = reorder_prompt(&problem);
/// assert!(prompt.contains("numbered 0 to 1"));
/// assert!(prompt.contains(r#"1: replace("ab", "c")"#) || prompt.contains(r#"0: replace("ab", "c")"#));
/// # Ok::<(), pbebench::RuleError>(())
/// ```
pub fn reorder_prompt(problem: &ReorderInstance) -> String {
    let mut rules = String::new();
    for (k, rule) in problem.scrambled.rules().iter().enumerate() {
        let _ = writeln!(rules, "{k}: {rule}");
    }
    let n = problem.scrambled.len();
    let values = [
        ("{rules}", rules.trim_end().to_owned()),
        ("{n}", n.to_string()),
        ("{last}", n.saturating_sub(1).to_string()),
        ("{inputs}", pylit::repr_list(&problem.instance.inputs)),
        ("{outputs}", pylit::repr_list(&problem.instance.outputs)),
    ];
    // One pass over the template, so that a rule or example holding `{n}` stays as it is.
    let mut out = String::new();
    let mut rest = REORDER_TEMPLATE;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        match values.iter().find(|(slot, _)| rest.starts_with(slot)) {
            Some((slot, value)) => {
                out.push_str(value);
                rest = &rest[slot.len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reorder::{reorder_instance, score_order_response};
    use crate::rule::Cascade;
    use crate::{BlockChoice, Instance};

    #[test]
    fn the_prompt_shows_the_scrambled_rules_and_the_visible_examples_only() {
        let gold = Cascade::from_pairs(&[("ab", "c"), ("c", "d"), ("d", "e")]).unwrap();
        let mut instance = Instance::from_gold("t", &["ab", "c"], gold, "abcde");
        instance.heldout_inputs = vec!["hidden".into()];
        instance.heldout_outputs = vec!["hidden".into()];
        let problem = reorder_instance(&instance, 2).unwrap();
        let prompt = reorder_prompt(&problem);
        for (k, rule) in problem.scrambled.rules().iter().enumerate() {
            assert!(prompt.contains(&format!("\n{k}: {rule}\n")), "{prompt}");
        }
        assert!(prompt.contains("numbered 0 to 2"));
        assert!(prompt.contains("[\"ab\", \"c\"]") || prompt.contains("['ab', 'c']"));
        assert!(!prompt.contains("hidden"));
        assert!(!prompt.contains("{"), "a placeholder left: {prompt}");
        // A placeholder's name inside an example is an example's text.
        let gold = Cascade::from_pairs(&[("o", "u"), ("u", "t")]).unwrap();
        let braces = Instance::from_gold("b", &["{outputs}", "o"], gold, "{}outps");
        let p = reorder_instance(&braces, 0).unwrap();
        assert!(reorder_prompt(&p).contains("{outputs}"));
        // The answer format it asks for is the one scoring reads.
        let answer = format!("```json\n{:?}\n```", problem.order);
        assert!(
            score_order_response(&problem, &answer, BlockChoice::Last)
                .score
                .exact
        );
    }
}
