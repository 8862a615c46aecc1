//! The equivalence engine against brute-force enumeration (every string of the space,
//! applied with `Cascade::apply`, counted as exact fractions): thousands of random pairs
//! over 2–5-letter alphabets and inputs of up to 6 letters, answers made from the
//! reference the ways solvers get them wrong (or right).

mod equiv_support;

use equiv_support::{answer, brute, cascade, edit, engine, rules};
use pbebench::equiv::{self, InputSpace, Limits, Ratio, Reference};
use pbebench::Cascade;
use proptest::prelude::*;

/// Alphabets of 2–5 letters (one pool with two-byte IPA letters), and the letters rules
/// may use: the alphabet plus one letter outside it (replacements may write it, patterns
/// may wait for it).
fn alphabet() -> impl Strategy<Value = (Vec<char>, Vec<char>)> {
    let pools = prop_oneof![
        Just(vec!['a', 'b', 'c', 'd', 'e']),
        Just(vec!['ʔ', 'a', 'ː', 'é', 'x']),
    ];
    (pools, 2..=5usize).prop_map(|(pool, k)| {
        let alphabet = pool[..k].to_vec();
        let mut letters = alphabet.clone();
        letters.push('Z');
        (alphabet, letters)
    })
}

/// The space's lengths: from 0–2 up to 6, fewer for five letters (so a case stays fast).
fn lengths(k: usize) -> impl Strategy<Value = (usize, usize)> {
    let top = if k == 5 { 5 } else { 6 };
    (0..=2usize).prop_flat_map(move |lo| (Just(lo), lo..=top))
}

fn case() -> impl Strategy<Value = (Vec<char>, (usize, usize), Vec<pbebench::Rule>, Cascade)> {
    alphabet().prop_flat_map(|(alphabet, letters)| {
        let k = alphabet.len();
        (
            Just(alphabet),
            lengths(k),
            rules(letters.clone(), 5),
            edit(letters),
        )
            .prop_map(|(alphabet, lens, reference, edit)| {
                let b = answer(&reference, &edit);
                (alphabet, lens, reference, b)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Equivalence, the least shortest counterexample, agreement and changed agreement
    /// are exactly what brute force counts.
    #[test]
    fn the_engine_counts_what_brute_force_counts((alphabet, (lo, hi), reference, b) in case()) {
        let a = Cascade::new(reference);
        let space = InputSpace::new(alphabet, lo, hi).unwrap();
        let (found, _) = engine(&a, &b, &space);
        prop_assert_eq!(found, brute(&a, &b, &space), "A = {} B = {}", a.to_json(), b.to_json());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Long cascades (6–12 rules over three letters), where rules hold letters for one
    /// another and the engine writes pending prefixes early: still brute force's figures.
    #[test]
    fn long_cascades_count_as_brute_force_counts(
        (reference, edit) in (
            prop::collection::vec(equiv_support::rule(vec!['a', 'b', 'c']), 6..=12),
            edit(vec!['a', 'b', 'c']),
        ),
        hi in 2..=5usize,
    ) {
        let (a, b) = (Cascade::new(reference.clone()), answer(&reference, &edit));
        let space = InputSpace::new("abc".chars(), 1, hi).unwrap();
        let (found, _) = engine(&a, &b, &space);
        prop_assert_eq!(found, brute(&a, &b, &space), "A = {} B = {}", a.to_json(), b.to_json());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A prepared reference caches its machine's steps across comparisons: the figures
    /// (all but the cost) are those of a fresh comparison, in whatever order the answers
    /// come.
    #[test]
    fn a_prepared_reference_gives_fresh_results_in_any_order(
        reference in rules(vec!['a', 'b', 'c', 'Z'], 5),
        edits in prop::collection::vec(edit(vec!['a', 'b', 'c', 'Z']), 1..5),
    ) {
        let a = Cascade::new(reference.clone());
        let space = InputSpace::new("abc".chars(), 1, 5).unwrap();
        let answers: Vec<Cascade> = edits.iter().map(|e| answer(&reference, e)).collect();
        let limits = Limits::default();
        let fresh = |b: &Cascade| {
            let mut c = equiv::compare(&a, b, &space, &limits).unwrap();
            c.cost = Default::default();
            c
        };
        let expected: Vec<_> = answers.iter().map(fresh).collect();
        for order in [false, true] {
            let mut prepared = Reference::new(&a, &space, &limits);
            let mut got: Vec<_> = (0..answers.len()).map(|k| {
                let k = if order { answers.len() - 1 - k } else { k };
                let mut c = prepared.compare(&answers[k]).unwrap();
                c.cost = Default::default();
                (k, c)
            }).collect();
            got.sort_by_key(|(k, _)| *k);
            let got: Vec<_> = got.into_iter().map(|(_, c)| c).collect();
            prop_assert_eq!(&got, &expected);
        }
    }
}

/// A cascade written as `(pattern, replacement)` pairs.
type Rules = &'static [(&'static str, &'static str)];

/// The cases the brief names, each checked against brute force, with the verdict a reader
/// expects stated too (so that brute force and engine cannot both be wrong unnoticed).
#[test]
fn named_cases_agree_with_brute_force_and_with_hand_counts() {
    let space = InputSpace::new("abc".chars(), 2, 6).unwrap();
    let cases: &[(Rules, Rules, bool)] = &[
        // swapped order: disjoint rules commute, feeding ones do not
        (&[("a", "b"), ("c", "a")], &[("c", "a"), ("a", "b")], false),
        (&[("a", "b"), ("c", "c")], &[("c", "c"), ("a", "b")], true),
        (
            &[("ab", "c"), ("ca", "b")],
            &[("ca", "b"), ("ab", "c")],
            false,
        ),
        // empty replacements and overlapping patterns
        // (aaa→a keeps the parity of a run of a's, which is all aa→ε leaves)
        (&[("aa", "")], &[("aaa", "a"), ("aa", "")], true),
        (&[("aa", "a")], &[("aa", "a"), ("aa", "a")], false),
        (&[("aa", "b")], &[("aa", "b"), ("aa", "b")], true),
        (&[("a", "")], &[("aa", ""), ("a", "")], true),
        // a rule that never fires (its pattern is made of a letter no rule writes)
        (&[("a", "b")], &[("a", "b"), ("z", "c")], true),
        // longer than the gold, same function
        (
            &[("ab", "c")],
            &[("ab", "c"), ("ab", "c"), ("zz", "a")],
            true,
        ),
        // identity against a cascade, and a cascade against itself
        (&[], &[("b", "a")], false),
        (&[("ab", "ba"), ("b", "")], &[("ab", "ba"), ("b", "")], true),
    ];
    for &(a, b, equivalent) in cases {
        let (a, b) = (cascade(a), cascade(b));
        let (found, comparison) = engine(&a, &b, &space);
        assert_eq!(
            found,
            brute(&a, &b, &space),
            "{} vs {}",
            a.to_json(),
            b.to_json()
        );
        assert_eq!(
            comparison.equivalent(),
            equivalent,
            "{} vs {}",
            a.to_json(),
            b.to_json()
        );
    }
}

/// Hand-counted: over {a, b} with lengths 2..=2, `a→b` against the identity agrees only on
/// `bb` (1 of 4); the reference changes 3 strings and agrees with the identity on none.
#[test]
fn a_hand_counted_case() {
    let space = InputSpace::new("ab".chars(), 2, 2).unwrap();
    let (found, comparison) = engine(&cascade(&[("a", "b")]), &Cascade::identity(), &space);
    assert_eq!(found.agreement, Ratio::new(1, 4));
    assert_eq!(found.changed_agreement, Some(Ratio::new(0, 1)));
    assert_eq!(found.counterexample.as_deref(), Some("aa"));
    assert_eq!(comparison.agreement.to_f64(), 0.25);
    // lengths 1..=2 weigh each length equally: (1/2 + 1/4) / 2
    let space = InputSpace::new("ab".chars(), 1, 2).unwrap();
    let (found, _) = engine(&cascade(&[("a", "b")]), &Cascade::identity(), &space);
    assert_eq!(found.agreement, Ratio::new(3, 8));
    assert_eq!(found.counterexample.as_deref(), Some("a"));
    // the identity as the reference changes nothing: changed agreement is undefined
    let (found, _) = engine(&Cascade::identity(), &cascade(&[("a", "b")]), &space);
    assert_eq!(found.changed_agreement, None);
}
