//! The cascade of a response alone, as a reward reads it: its valid rules within
//! `max_rules`, into reusable buffers.

use super::fences::{with_chosen_block, BlockChoice};
use super::limits::RuleLimits;
use super::syntax;

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
    limits: &RuleLimits,
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
    limits: &RuleLimits,
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
