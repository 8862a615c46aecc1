//! How likely a cascade is under the generator that made the instance
//! (`docs/generator.md#one-attempt`): its description length in nats, `−log P(cascade)` under the
//! generator's own sampling.
//!
//! The generator draws each rule `k` from the current strings of the examples
//! (`p_{k−1}(…p_1(inputs))`): the pattern's length uniformly in `1..=s_max`, the pattern
//! uniformly among the distinct substrings of that length, the replacement's length
//! uniformly in `1..=s_max` and its letters uniformly from the alphabet; a rule that
//! changes no string is dropped. So, with `N_k(ℓ)` the number of distinct substrings of
//! length ℓ of the strings rule `k` reads,
//!
//! `cost(rule k) = 2 log s_max + log N_k(|a_k|) + |b_k| log |Σ|`,
//!
//! and a rule whose pattern occurs in no current string (it changes nothing) has infinite
//! cost: the generator never keeps one. It never deletes either (`|b| ≥ 1`), but real
//! sound changes do, so an empty replacement costs as much as one letter over the cap
//! (`(s_max + 1) log |Σ|`) instead of being ruled out. The cascade length is drawn uniformly (the presets
//! balance lengths), so it adds a constant and is left out. Among the cascades that fit
//! the examples, the one of least cost is the most probable hidden cascade; each rule
//! costs some nats, so fewer rules and shorter replacements win, and a pattern is cheap
//! when the strings it is read from have few distinct substrings of its length.

use crate::encode::{apply_into, find, Encoded, FxHashSet, Sym, SymRule};

/// The description length of `rules` on the examples of `enc`, in nats; `f64::INFINITY`
/// when some rule changes none of the strings it reads.
pub(crate) fn cost(enc: &Encoded, rules: &[SymRule]) -> f64 {
    let mut strings = enc.inputs.clone();
    let mut scratch = Vec::new();
    let mut total = 0.0;
    for rule in rules {
        let Some(c) = rule_cost(enc, &strings, rule) else {
            return f64::INFINITY;
        };
        total += c;
        for s in strings.iter_mut() {
            if apply_into(s, &rule.a, &rule.b, &mut scratch) {
                std::mem::swap(s, &mut scratch);
            }
        }
    }
    total
}

/// The cost of `rule` read from `strings` (see the module documentation), or `None` when
/// its pattern occurs in none of them.
pub(crate) fn rule_cost(enc: &Encoded, strings: &[Sym], rule: &SymRule) -> Option<f64> {
    if !strings.iter().any(|s| find(s, &rule.a).is_some()) {
        return None;
    }
    let n = distinct_substrings(strings, rule.a.len()).max(1) as f64;
    Some(2.0 * s_max_ln(enc) + n.ln() + replacement_cost(enc, rule))
}

/// [`rule_cost`] with `ln_n[ℓ]` the logarithm of the number of distinct substrings of
/// length ℓ of the strings read, and the pattern assumed to occur in them.
pub(crate) fn rule_cost_with(enc: &Encoded, ln_n: &[f64], rule: &SymRule) -> f64 {
    2.0 * s_max_ln(enc) + ln_n[rule.a.len()] + replacement_cost(enc, rule)
}

fn s_max_ln(enc: &Encoded) -> f64 {
    (enc.max_len.max(1) as f64).ln()
}

/// The cost of a rule's replacement: `|b| log |Σ|`, or for an empty one, as if it held
/// `s_max + 1` letters.
fn replacement_cost(enc: &Encoded, rule: &SymRule) -> f64 {
    let sigma = enc.allowed.iter().filter(|&&a| a).count().max(1) as f64;
    let letters = if rule.b.is_empty() {
        enc.max_len + 1
    } else {
        rule.b.len()
    };
    letters as f64 * sigma.ln()
}

/// How many distinct substrings of length `len` the strings have.
fn distinct_substrings(strings: &[Sym], len: usize) -> usize {
    let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
    for s in strings {
        if s.len() >= len {
            seen.extend(s.windows(len));
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Problem;

    fn enc(pairs: &[(&str, &str)]) -> Encoded {
        let problem = Problem::new(
            pairs.iter().map(|p| p.0.to_string()).collect(),
            pairs.iter().map(|p| p.1.to_string()).collect(),
            5,
            3,
            "abcd",
        )
        .unwrap();
        Encoded::new(&problem)
    }

    fn rule(enc: &Encoded, a: &str, b: &str) -> SymRule {
        enc.sym_rule(a, b)
    }

    #[test]
    fn cost_is_the_generators_negative_log_probability() {
        // Strings "abc", "abd": 4 distinct letters, 3 distinct pairs (ab, bc, bd).
        let e = enc(&[("abc", "dbc"), ("abd", "dbd")]);
        let (l3, l4) = (3f64.ln(), 4f64.ln());
        let a_to_d = rule(&e, "a", "d");
        assert!((cost(&e, std::slice::from_ref(&a_to_d)) - (2.0 * l3 + l4 + l4)).abs() < 1e-12);
        // ab -> db: 3 distinct pairs, a two-letter replacement.
        let ab = rule(&e, "ab", "db");
        assert!((cost(&e, &[ab]) - (2.0 * l3 + l3 + 2.0 * l4)).abs() < 1e-12);
        // After a -> d the strings are "dbc", "dbd": 3 distinct letters.
        let b_to_c = rule(&e, "b", "c");
        let two = cost(&e, &[a_to_d.clone(), b_to_c]);
        assert!((two - (2.0 * l3 + l4 + l4) - (2.0 * l3 + l3 + l4)).abs() < 1e-12);
        // A rule that changes nothing is never generated.
        let none = rule(&e, "cc", "a");
        assert_eq!(cost(&e, &[a_to_d.clone(), none]), f64::INFINITY);
        // A deletion costs as much as a replacement one letter over the cap (3).
        let delete = rule(&e, "a", "");
        assert!((cost(&e, &[delete]) - (2.0 * l3 + l4 + 4.0 * l4)).abs() < 1e-12);
    }
}
