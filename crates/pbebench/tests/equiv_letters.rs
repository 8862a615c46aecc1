//! The letter-class reduction on wide alphabets: 52 letters (the full preset's), of which
//! a pair of cascades uses a few. Checked against brute force over every one of the 52
//! letters (lengths 1..=3), and, on the generated presets' lengths 2..=6, against brute
//! force over the classes (each letter the pair uses, and one letter weighing for all
//! the others).

mod equiv_support;

use equiv_support::{answer, brute, brute_weighted, edit, engine, rules};
use pbebench::equiv::InputSpace;
use pbebench::{Cascade, Rule};
use proptest::prelude::*;

/// a–z then A–Z.
fn full() -> Vec<char> {
    ('a'..='z').chain('A'..='Z').collect()
}

/// The classes of the pair: every alphabet letter one of them uses, with weight 1, and
/// the first of the others weighing for all of them.
fn classes(a: &Cascade, b: &Cascade, alphabet: &[char]) -> Vec<(char, u128)> {
    let rules: Vec<&Rule> = a.rules().iter().chain(b.rules()).collect();
    let used =
        |c: char| (rules.iter()).any(|r| r.pattern().contains(c) || r.replacement().contains(c));
    let unused = alphabet.iter().filter(|&&c| !used(c)).count() as u128;
    let first_unused = alphabet.iter().find(|&&c| !used(c));
    (alphabet.iter())
        .filter(|&&c| used(c) || Some(&c) == first_unused)
        .map(|&c| (c, if used(c) { 1 } else { unused }))
        .collect()
}

/// Two to five letters of the 52, anywhere in the order, for the rules (plus one letter
/// outside the alphabet).
fn letters() -> impl Strategy<Value = Vec<char>> {
    prop::sample::subsequence(full(), 2..=5).prop_map(|mut v| {
        v.push('#');
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn few_used_letters_of_52_count_as_brute_force_counts(
        (reference, edit) in letters().prop_flat_map(|l| (rules(l.clone(), 4), edit(l)))
    ) {
        let a = Cascade::new(reference.clone());
        let b = answer(&reference, &edit);
        let short = InputSpace::new(full(), 1, 3).unwrap();
        let (found, _) = engine(&a, &b, &short);
        prop_assert_eq!(found, brute(&a, &b, &short), "A = {} B = {}", a.to_json(), b.to_json());
        let long = InputSpace::new(full(), 2, 6).unwrap();
        let (found, _) = engine(&a, &b, &long);
        let counted = brute_weighted(&a, &b, &classes(&a, &b, &full()), 2, 6);
        prop_assert_eq!(found, counted, "A = {} B = {}", a.to_json(), b.to_json());
    }
}

/// The representative of the unused letters is the first of them in the alphabet's
/// order, so the counterexample is the first of its length over all 52 letters: here
/// `Z→y` against the identity first differs on "ZZ" when Z comes first, and on "aZ"
/// (not "ZZ", and not "bZ") when it comes last.
#[test]
fn counterexamples_follow_the_alphabets_order() {
    let z = Cascade::new(vec![Rule::new("Z", "y").unwrap()]);
    let last = InputSpace::new(full(), 2, 2).unwrap();
    let (found, _) = engine(&z, &Cascade::identity(), &last);
    assert_eq!(found.counterexample.as_deref(), Some("aZ"));
    let first = InputSpace::new(
        std::iter::once('Z').chain(full().into_iter().filter(|&c| c != 'Z')),
        2,
        2,
    )
    .unwrap();
    let (found, _) = engine(&z, &Cascade::identity(), &first);
    assert_eq!(found.counterexample.as_deref(), Some("ZZ"));
}
