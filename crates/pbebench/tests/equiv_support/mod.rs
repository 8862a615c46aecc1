//! Shared by the `equiv_*` tests: the brute-force reference (every string of the space,
//! applied with `Cascade::apply`) and random cascades and answers.
#![allow(dead_code)]

use pbebench::equiv::{self, Comparison, InputSpace, Limits, Output, Ratio};
use pbebench::{Cascade, Rule};
use proptest::prelude::*;

/// What brute force finds: the same figures as a [`Comparison`], counted string by string.
#[derive(Debug, PartialEq, Eq)]
pub struct Brute {
    pub agreement: Ratio,
    pub changed_agreement: Option<Ratio>,
    pub counterexample: Option<String>,
}

/// Every string over `letters` with `lo..=hi` of them, shortest first, each length in the
/// letters' order.
pub fn strings(letters: &[char], lo: usize, hi: usize) -> impl Iterator<Item = String> + '_ {
    (lo..=hi).flat_map(move |len| {
        let count = letters.len().pow(len as u32);
        (0..count).map(move |mut k| {
            let mut s = vec![' '; len];
            for slot in s.iter_mut().rev() {
                *slot = letters[k % letters.len()];
                k /= letters.len();
            }
            s.into_iter().collect()
        })
    })
}

/// Applies both cascades to every string of `space` and counts, weighing each string by
/// its probability (length uniform, then letters uniform) as one exact fraction.
pub fn brute(a: &Cascade, b: &Cascade, space: &InputSpace) -> Brute {
    let letters: Vec<(char, u128)> = space.alphabet().iter().map(|&c| (c, 1)).collect();
    brute_weighted(a, b, &letters, space.min_len(), space.max_len())
}

/// [`brute`] over letters that each stand for `weight` letters of the alphabet (a string
/// counts for the product of its letters' weights).
pub fn brute_weighted(
    a: &Cascade,
    b: &Cascade,
    letters: &[(char, u128)],
    lo: usize,
    hi: usize,
) -> Brute {
    let k: u128 = letters.iter().map(|l| l.1).sum();
    let chars: Vec<char> = letters.iter().map(|l| l.0).collect();
    let weight_of = |c: char| letters.iter().find(|l| l.0 == c).unwrap().1;
    let (mut agree, mut changed, mut agree_changed) = (0u128, 0u128, 0u128);
    let mut counterexample = None;
    for s in strings(&chars, lo, hi) {
        let (oa, ob) = (a.apply(&s), b.apply(&s));
        let len = s.chars().count();
        let w = s.chars().map(weight_of).product::<u128>() * k.pow((hi - len) as u32);
        if oa == ob {
            agree += w;
        } else if counterexample.is_none() {
            counterexample = Some(s.clone());
        }
        if oa != s {
            changed += w;
            if oa == ob {
                agree_changed += w;
            }
        }
    }
    let everything = (hi - lo + 1) as u128 * k.pow(hi as u32);
    Brute {
        agreement: Ratio::new(agree, everything),
        changed_agreement: (changed > 0).then(|| Ratio::new(agree_changed, changed)),
        counterexample,
    }
}

/// The engine's figures in the brute force's terms, after checking that its
/// counterexample is one and carries both true outputs.
pub fn engine(a: &Cascade, b: &Cascade, space: &InputSpace) -> (Brute, Comparison) {
    let found = equiv::compare(a, b, space, &Limits::default()).expect("decided");
    if let Some(c) = &found.counterexample {
        assert_ne!(a.apply(&c.input), b.apply(&c.input), "not a counterexample");
        assert_eq!(c.reference, Output::Text(a.apply(&c.input)));
        assert_eq!(c.answer, Output::Text(b.apply(&c.input)));
    }
    assert_eq!(found.equivalent(), found.counterexample.is_none());
    let brute = Brute {
        agreement: found.agreement,
        changed_agreement: found.changed_agreement,
        counterexample: found.counterexample.as_ref().map(|c| c.input.clone()),
    };
    (brute, found)
}

/// A cascade from `(pattern, replacement)` pairs.
pub fn cascade(rules: &[(&str, &str)]) -> Cascade {
    Cascade::from_pairs(rules).unwrap()
}

/// A random string of `len` letters of `letters`.
fn word(letters: Vec<char>, len: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(letters), len).prop_map(|v| v.into_iter().collect())
}

/// A rule over `letters`: pattern 1–3 letters, replacement 0–3.
pub fn rule(letters: Vec<char>) -> impl Strategy<Value = Rule> {
    (word(letters.clone(), 1..=3), word(letters, 0..=3)).prop_map(|(a, b)| Rule::new(a, b).unwrap())
}

/// A cascade of up to `max` rules over `letters`.
pub fn rules(letters: Vec<char>, max: usize) -> impl Strategy<Value = Vec<Rule>> {
    prop::collection::vec(rule(letters), 0..=max)
}

/// How an answer is made from the reference: the kinds of mistakes (and non-mistakes)
/// solvers make.
#[derive(Debug, Clone)]
pub enum Edit {
    Same,
    Identity,
    Swap(usize),
    Drop(usize),
    Replace(usize, Rule),
    Insert(usize, Rule),
    Append(Vec<Rule>),
    Other(Vec<Rule>),
}

/// An answer: `edit` applied to `reference`.
pub fn answer(reference: &[Rule], edit: &Edit) -> Cascade {
    let mut rules = reference.to_vec();
    let at = |k: usize, n: usize| if n == 0 { 0 } else { k % n };
    match edit {
        Edit::Same => {}
        Edit::Identity => rules.clear(),
        Edit::Swap(k) if rules.len() >= 2 => {
            let k = at(*k, rules.len() - 1);
            rules.swap(k, k + 1);
        }
        Edit::Drop(k) if !rules.is_empty() => {
            rules.remove(at(*k, rules.len()));
        }
        Edit::Replace(k, r) if !rules.is_empty() => {
            let n = rules.len();
            rules[at(*k, n)] = r.clone();
        }
        Edit::Insert(k, r) => rules.insert(at(*k, rules.len() + 1), r.clone()),
        Edit::Append(more) => rules.extend(more.iter().cloned()),
        Edit::Other(other) => rules = other.clone(),
        _ => {}
    }
    Cascade::new(rules)
}

/// An edit whose rules are over `letters`.
pub fn edit(letters: Vec<char>) -> impl Strategy<Value = Edit> {
    prop_oneof![
        Just(Edit::Same),
        Just(Edit::Identity),
        any::<usize>().prop_map(Edit::Swap),
        any::<usize>().prop_map(Edit::Drop),
        (any::<usize>(), rule(letters.clone())).prop_map(|(k, r)| Edit::Replace(k, r)),
        (any::<usize>(), rule(letters.clone())).prop_map(|(k, r)| Edit::Insert(k, r)),
        rules(letters.clone(), 3).prop_map(Edit::Append),
        rules(letters, 5).prop_map(Edit::Other),
    ]
}
