//! An instance's input space and the grading of an answer against its gold
//! (`InputSpace::of`, `equiv::against_gold`), on hand-computed values.

use pbebench::equiv::{self, InputSpace, Ratio};
use pbebench::{Cascade, Instance, RelationMode};

fn instance(inputs: &[&str], heldout: &[&str], gold: Option<Cascade>) -> Instance {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let apply = |v: &[&str]| {
        v.iter()
            .map(|s| gold.as_ref().map_or(s.to_string(), |g| g.apply(s)))
            .collect::<Vec<_>>()
    };
    Instance {
        id: "i".into(),
        inputs: strings(inputs),
        outputs: apply(inputs),
        cascade_len: gold.as_ref().map_or(0, Cascade::len),
        cascade: gold.clone(),
        category: None,
        relations_mode: RelationMode::default(),
        max_rules: 3,
        max_rule_len: 2,
        alphabet: "ab".into(),
        heldout_inputs: strings(heldout),
        heldout_outputs: apply(heldout),
        interactions: Vec::new(),
        symbols: Default::default(),
    }
}

fn cascade(rules: &[(&str, &str)]) -> Cascade {
    Cascade::from_pairs(rules).unwrap()
}

#[test]
fn the_space_spans_visible_and_held_out_inputs() {
    let gold = cascade(&[("a", "b")]);
    let inst = instance(&["ab", "b"], &["bba"], Some(gold.clone()));
    let space = InputSpace::of(&inst).unwrap();
    assert_eq!(space.alphabet(), &['a', 'b']);
    // The presets' 2..=6, widened to the inputs' 1..=3.
    assert_eq!((space.min_len(), space.max_len()), (1, 6));
    let inst = instance(&["ab"], &[], Some(gold));
    let space = InputSpace::of(&inst).unwrap();
    assert_eq!((space.min_len(), space.max_len()), (2, 6));
    let long = instance(&["abababab"], &[], None);
    let space = InputSpace::of(&long).unwrap();
    assert_eq!((space.min_len(), space.max_len()), (2, 8));
    let mut empty = inst.clone();
    empty.alphabet.clear();
    assert_eq!(
        InputSpace::of(&empty).unwrap_err(),
        equiv::SpaceError::EmptyAlphabet
    );
}

/// Over "ab" with lengths 1–2 (each length weighs 1/2): gold a→b, answer ab→bb. They
/// agree on b (1/4), ab and bb (1/8 each): 1/2. The gold changes a (1/4), aa, ab, ba
/// (1/8 each), 5/8 in all, of which the answer gets ab right: 1/5. The first shortest
/// counterexample is "a". `against_gold` grades over the instance's own space (lengths
/// 1–6 here): the same comparison as `compare` over that space.
#[test]
fn an_answer_is_graded_against_the_gold_exactly() {
    let gold = cascade(&[("a", "b")]);
    let inst = instance(&["ab", "b"], &["aa"], Some(gold.clone()));
    let short = InputSpace::new(['a', 'b'], 1, 2).unwrap();
    let limits = equiv::Limits::default();
    let answer = cascade(&[("ab", "bb")]);
    let found = equiv::compare(&gold, &answer, &short, &limits).unwrap();
    assert!(!found.equivalent());
    assert_eq!(found.counterexample.unwrap().input, "a");
    assert_eq!(found.agreement, Ratio::new(1, 2));
    assert_eq!(found.changed_agreement, Some(Ratio::new(1, 5)));
    let space = InputSpace::of(&inst).unwrap();
    for answer in [
        answer,
        cascade(&[("a", "b"), ("b", "b")]),
        Cascade::identity(),
    ] {
        let graded = equiv::against_gold(&inst, &answer).unwrap().unwrap();
        assert_eq!(
            graded,
            equiv::compare(&gold, &answer, &space, &limits).unwrap()
        );
    }
    let same = equiv::against_gold(&inst, &cascade(&[("a", "b"), ("b", "b")]))
        .unwrap()
        .unwrap();
    assert!(same.equivalent());
    assert_eq!(same.changed_agreement, Some(Ratio::new(1, 1)));
    let nothing = equiv::against_gold(&inst, &Cascade::identity())
        .unwrap()
        .unwrap();
    assert_eq!(nothing.changed_agreement, Some(Ratio::new(0, 1)));
    // Real data: no gold, no grade.
    let real = instance(&["ab"], &[], None);
    assert!(equiv::against_gold(&real, &gold).is_none());
}
