//! The engine's bounds on untrusted answers (exponential growth, 50 rules of side 5,
//! intermediate blow-ups), `Cascade::apply_bounded` and `equiv::length_bound`. Bounded
//! time and memory are asserted through what the engine returns (the verdict kind, the
//! work spent, the states of the largest layer), never with a clock.

mod equiv_support;

use equiv_support::{brute, brute_weighted, engine};
use pbebench::equiv::{self, InputSpace, Limit, Limits, Output, Ratio, Undecided};
use pbebench::generate::{self, Preset};
use pbebench::{Cascade, Rule, TooLong};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

fn repeat(a: &str, b: &str, times: usize) -> Cascade {
    Cascade::new(vec![Rule::new(a, b).unwrap(); times])
}

fn ab() -> InputSpace {
    InputSpace::new("ab".chars(), 2, 6).unwrap()
}

/// Every comparison below stays far inside the default budget, with at most `states`
/// product states in a layer.
fn assert_cheap(cost: equiv::Cost, states: usize) {
    let limits = Limits::default();
    assert!(cost.work < limits.max_work / 200, "{cost:?}");
    assert!(cost.largest_layer <= states, "{cost:?}");
}

#[test]
fn twenty_times_a_to_aaa_against_the_identity_is_decided() {
    let blowup = repeat("a", "aaa", 20);
    for (a, b) in [
        (&blowup, &Cascade::identity()),
        (&Cascade::identity(), &blowup),
    ] {
        let found = equiv::compare(a, b, &ab(), &Limits::default()).expect("decided");
        // they agree exactly on the strings without an `a`: 2^(6-len) of 2^6 per length
        assert_eq!(found.agreement, Ratio::new(16 + 8 + 4 + 2 + 1, 5 * 64));
        let c = found.counterexample.expect("not equivalent");
        assert_eq!(c.input, "aa");
        let outputs = [&c.reference, &c.answer];
        assert!(outputs.contains(&&Output::Text("aa".into())), "{outputs:?}");
        assert!(
            outputs.contains(&&Output::TooLong { limit: 1024 }),
            "{outputs:?}"
        );
        assert_cheap(found.cost, 8);
        // the blow-up changes every string with an `a` and the identity none
        let changed = if a == &blowup {
            Some(Ratio::new(0, 1))
        } else {
            None
        };
        assert_eq!(found.changed_agreement, changed);
    }
}

#[test]
fn twenty_times_a_to_aaa_against_itself_is_equivalent() {
    let blowup = repeat("a", "aaa", 20);
    let found = equiv::compare(&blowup, &blowup, &ab(), &Limits::default()).expect("decided");
    assert!(found.equivalent());
    assert_eq!(found.agreement, Ratio::new(1, 1));
    assert_eq!(found.changed_agreement, Some(Ratio::new(1, 1)));
    assert_cheap(found.cost, 8);
    // identity rules aside, it is the same cascade
    let mut padded = blowup.rules().to_vec();
    padded.insert(3, Rule::new("b", "b").unwrap());
    let found = equiv::compare(&blowup, &Cascade::new(padded), &ab(), &Limits::default());
    assert!(found.expect("decided").equivalent());
}

#[test]
fn two_different_blow_ups_are_undecided() {
    let (a, b) = (repeat("a", "aaa", 20), repeat("a", "aaa", 19));
    let found = equiv::compare(&a, &b, &ab(), &Limits::default());
    assert!(
        matches!(
            found,
            Err(Undecided {
                limit: Limit::OutputTooLong { limit: 1024 },
                ..
            })
        ),
        "{found:?}"
    );
}

/// An answer whose outputs are long but within the limit: B writes 3^5 = 243 letters per
/// `a`, more than the gold's longest output (6), so each overflowing step is a genuine
/// difference, and the figures are brute force's.
#[test]
fn an_answer_longer_than_every_reference_output_is_a_counterexample() {
    let (gold, answer) = (repeat("a", "b", 1), repeat("a", "aaa", 5));
    let space = InputSpace::new("abc".chars(), 2, 6).unwrap();
    let (found, comparison) = engine(&gold, &answer, &space);
    assert_eq!(found, brute(&gold, &answer, &space));
    assert_cheap(comparison.cost, 8);
}

/// 50 rules with sides of 5 letters (the most a solver's answer may have), against the
/// same cascade with one rule changed, decided exactly (checked by brute force) and
/// cheaply; and 50 × `a → aaaaa` (5^50 letters per `a`) against the identity.
#[test]
fn fifty_rules_of_side_five_stay_bounded() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_0050);
    let word = |rng: &mut rand_chacha::ChaCha8Rng| -> String {
        (0..5)
            .map(|_| ['a', 'b', 'c'][rng.random_range(0..3)])
            .collect()
    };
    let rules: Vec<Rule> = (0..50)
        .map(|_| Rule::new(word(&mut rng), word(&mut rng)).unwrap())
        .collect();
    let mut other = rules.clone();
    other[7] = Rule::new("ab", "ccccc").unwrap();
    let (a, b) = (Cascade::new(rules), Cascade::new(other));
    let space = InputSpace::new("abc".chars(), 2, 6).unwrap();
    let (found, comparison) = engine(&a, &b, &space);
    assert_eq!(found, brute(&a, &b, &space));
    // never more states than prefixes: 3^5 of length 5 (the last layer is not stored)
    assert_cheap(comparison.cost, 3usize.pow(5));

    let blowup = repeat("a", "aaaaa", 50);
    let found = equiv::compare(&blowup, &Cascade::identity(), &ab(), &Limits::default());
    let found = found.expect("decided");
    assert_eq!(found.counterexample.map(|c| c.input).as_deref(), Some("aa"));
    assert_cheap(found.cost, 8);
}

/// An answer that blows up and then deletes everything it wrote: its outputs are short,
/// but following it takes 3^k steps. Within the work budget the verdict is exact; past
/// it, undecided (never a guess).
#[test]
fn intermediate_blow_ups_are_exact_or_undecided() {
    let mut rules = vec![Rule::new("a", "aaa").unwrap(); 10];
    rules.push(Rule::new("a", "").unwrap());
    let answer = Cascade::new(rules);
    let gold = repeat("a", "", 1);
    let space = InputSpace::new("ab".chars(), 2, 4).unwrap();
    let (found, comparison) = engine(&gold, &answer, &space);
    assert_eq!(found, brute(&gold, &answer, &space));
    assert!(found.counterexample.is_none(), "both delete every a");
    assert!(
        comparison.cost.work > 3u64.pow(10),
        "it did follow the blow-up"
    );

    let tight = Limits {
        max_work: 10_000,
        ..Limits::default()
    };
    let found = equiv::compare(&gold, &answer, &space, &tight);
    assert!(
        matches!(
            found,
            Err(Undecided {
                limit: Limit::TooMuchWork { limit: 10_000 },
                ..
            })
        ),
        "{found:?}"
    );
}

#[test]
fn state_and_memory_limits_give_undecided_with_any_counterexample_found() {
    let gold = Cascade::new(vec![
        Rule::new("ab", "c").unwrap(),
        Rule::new("ca", "").unwrap(),
    ]);
    let answer = Cascade::new(vec![Rule::new("ab", "c").unwrap()]);
    let space = InputSpace::new("abc".chars(), 1, 6).unwrap();
    let exact = equiv::compare(&gold, &answer, &space, &Limits::default()).expect("decided");
    let few_states = Limits {
        max_states: 4,
        ..Limits::default()
    };
    match equiv::compare(&gold, &answer, &space, &few_states) {
        Err(Undecided {
            limit: Limit::TooManyStates { limit: 4, .. },
            counterexample,
        }) => {
            if let Some(c) = counterexample {
                assert_eq!(Some(c), exact.counterexample, "only a true shortest one");
            }
        }
        other => panic!("{other:?}"),
    }
    let little_memory = Limits {
        max_stored: 8,
        ..Limits::default()
    };
    let found = equiv::compare(&gold, &answer, &space, &little_memory);
    assert!(
        matches!(
            found,
            Err(Undecided {
                limit: Limit::TooManyLetters { limit: 8 },
                ..
            })
        ),
        "{found:?}"
    );
}

/// Bounds on the space itself: an empty alphabet, a repeated letter, an empty range, and
/// more strings than 128 bits count.
#[test]
fn impossible_spaces_are_errors() {
    use pbebench::equiv::SpaceError;
    assert_eq!(InputSpace::new([], 1, 2), Err(SpaceError::EmptyAlphabet));
    assert_eq!(
        InputSpace::new("aba".chars(), 1, 2),
        Err(SpaceError::RepeatedLetter('a'))
    );
    assert!(matches!(
        InputSpace::new("ab".chars(), 3, 2),
        Err(SpaceError::EmptyLengths { .. })
    ));
    assert!(matches!(
        InputSpace::new("ab".chars(), 0, 200),
        Err(SpaceError::TooLarge { .. })
    ));
    let wide: Vec<char> = ('\u{100}'..'\u{1100}').collect();
    assert!(matches!(
        InputSpace::new(wide, 0, 20),
        Err(SpaceError::TooLarge { .. })
    ));
    // the empty string is an input when the range starts at 0
    let space = InputSpace::new("ab".chars(), 0, 1).unwrap();
    assert_eq!(space.strings(), 3);
    let (found, _) = engine(&repeat("a", "b", 1), &Cascade::identity(), &space);
    let classes = [('a', 1), ('b', 1)];
    assert_eq!(
        found,
        brute_weighted(&repeat("a", "b", 1), &Cascade::identity(), &classes, 0, 1)
    );
}

#[test]
fn apply_bounded_stops_at_the_first_string_over_the_bound() {
    let blowup = repeat("a", "aaa", 20);
    // 3^4 = 81 letters fit in 100, 3^5 = 243 do not: the fifth rule (index 4) fails
    assert_eq!(
        blowup.apply_bounded("a", 100),
        Err(TooLong {
            rule: Some(4),
            max_len: 100
        })
    );
    assert_eq!(blowup.apply_bounded("bb", 100).as_deref(), Ok("bb"));
    let input_too_long = blowup.apply_bounded("bbbb", 3);
    assert_eq!(
        input_too_long,
        Err(TooLong {
            rule: None,
            max_len: 3
        })
    );
    assert_eq!(
        input_too_long.unwrap_err().to_string(),
        "the input is longer than 3 characters"
    );
    // an intermediate string counts even when the output would be short
    let detour = Cascade::new(vec![
        Rule::new("a", "aaaa").unwrap(),
        Rule::new("aaaa", "").unwrap(),
    ]);
    assert_eq!(detour.apply("aa"), "");
    let err = detour.apply_bounded("aa", 5).unwrap_err();
    assert_eq!(
        err.to_string(),
        "rule 1 makes a string longer than 5 characters"
    );
    // lengths are characters, not bytes
    let ipa = Cascade::new(vec![Rule::new("ʔ", "ːː").unwrap()]);
    assert_eq!(ipa.apply_bounded("ʔʔ", 4).as_deref(), Ok("ːːːː"));
    assert_eq!(
        ipa.apply_bounded("ʔʔ", 3),
        Err(TooLong {
            rule: Some(0),
            max_len: 3
        })
    );
}

proptest! {
    /// Within the bound, `apply_bounded` is `apply`; it fails exactly when some string on
    /// the way (the input or a rule's result) is longer than the bound.
    #[test]
    fn apply_bounded_is_apply_within_the_bound(
        rules in equiv_support::rules(vec!['a', 'b', 'é'], 6),
        s in "[abé]{0,8}",
        max_len in 0usize..30,
    ) {
        let cascade = Cascade::new(rules);
        let mut longest = s.chars().count();
        let mut cur = s.clone();
        for rule in cascade.rules() {
            cur = rule.apply(&cur);
            longest = longest.max(cur.chars().count());
        }
        match cascade.apply_bounded(&s, max_len) {
            Ok(out) => {
                prop_assert_eq!(out, cascade.apply(&s));
                prop_assert!(longest <= max_len);
            }
            Err(_) => prop_assert!(longest > max_len),
        }
    }
}

/// The gold never reaches the bound on its own (visible and held-out) examples, and the
/// bound is at least 16 times the longest example string.
#[test]
fn length_bound_leaves_the_gold_room() {
    let mut params = Preset::Lite.params();
    params.size = 32;
    params.heldout = 3;
    let mut instances = Vec::new();
    generate::generate(&params, &(), &mut |i| {
        instances.push(i);
        Ok(())
    })
    .unwrap();
    assert_eq!(instances.len(), 32);
    for instance in &instances {
        let bound = equiv::length_bound(instance);
        let gold = instance.cascade.as_ref().unwrap();
        let inputs = instance.inputs.iter().chain(&instance.heldout_inputs);
        let outputs = instance.outputs.iter().chain(&instance.heldout_outputs);
        for (i, o) in inputs.zip(outputs) {
            assert_eq!(gold.apply_bounded(i, bound).as_ref(), Ok(o));
            assert!(bound >= 16 * o.chars().count().max(i.chars().count()));
        }
        assert!(bound >= 256);
    }
}
