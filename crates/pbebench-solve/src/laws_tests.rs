//! Tests of the real-data solver ([`super`]).

use super::*;
use crate::{cross_validate, HoldoutRow};
use pbebench::Instance;
use std::time::Duration;

fn instance(id: &str, pairs: &[(&str, &str)], max_rules: usize) -> Instance {
    let line = serde_json::json!({
        "id": id,
        "inputs": pairs.iter().map(|p| p.0).collect::<Vec<_>>(),
        "outputs": pairs.iter().map(|p| p.1).collect::<Vec<_>>(),
        "max_rules": max_rules,
        "max_rule_len": 3,
        "alphabet": "acegiklmnoprtu",
    });
    pbebench::dataset::parse_instance(&line.to_string(), 0).unwrap()
}

fn answer(solver: &LawSolver, pairs: &[(&str, &str)], max_rules: usize) -> Vec<String> {
    let problem = Problem::new(
        pairs.iter().map(|p| p.0.to_string()).collect(),
        pairs.iter().map(|p| p.1.to_string()).collect(),
        max_rules,
        3,
        "",
    )
    .unwrap();
    let outcome = solver.solve(&problem, &Budget::time(Duration::from_secs(30)));
    (outcome
        .answer()
        .map(|c| c.rules().to_vec())
        .unwrap_or_default())
    .iter()
    .map(|r| format!("{} -> {}", r.pattern(), r.replacement()))
    .collect()
}

/// `k > c / _ i` in six words, and three irregular words each changed in a way of its own
/// (`o > u` in `mol`, `e > a` in `ter`, `l > r` in `pal`); every fifth word is held out:
/// `kipa` and `kuki` obey the law, `pol` has the `o` a patch would change.
const LAW_AND_PATCHES: &[(&str, &str)] = &[
    ("kita", "cita"),
    ("maki", "maci"),
    ("kuli", "kuli"),
    ("mol", "mul"),
    ("kipa", "cipa"),
    ("kaki", "kaci"),
    ("ter", "tar"),
    ("lika", "lica"),
    ("pal", "par"),
    ("pol", "pol"),
    ("nuki", "nuci"),
    ("kika", "cika"),
    ("kul", "kul"),
    ("tika", "tica"),
    ("kuki", "kuci"),
];

fn cross_validated(solver: &dyn Solver, instances: &[Instance], threads: usize) -> Vec<HoldoutRow> {
    let budget = Budget::time(Duration::from_secs(30));
    cross_validate(instances, solver, &budget, threads, 0.2, |_| {}).unwrap()
}

#[test]
fn one_general_law_beats_patching_the_words_one_by_one() {
    let inst = instance("lang-0", LAW_AND_PATCHES, 10);
    let law = &cross_validated(&LawSolver::default(), std::slice::from_ref(&inst), 1)[0];
    assert_eq!((law.held, law.held_identity_exact), (3, 1));
    assert_eq!(
        (law.held_answer_exact, law.held_won, law.held_lost),
        (3, 2, 0),
        "{law:?}"
    );
    // Allowed rules of one word each, the solver patches `mol`, `ter` and `pal` too, and
    // the patch `o > u` spoils the held-out `pol`.
    let patches = &cross_validated(&LawSolver::with_support(1), &[inst], 1)[0];
    assert_eq!(
        (patches.held_answer_exact, patches.held_lost),
        (2, 1),
        "{patches:?}"
    );
}

#[test]
fn a_law_hurts_no_word_it_sees() {
    // `k > c` everywhere would help four words and spoil `kuli` and `kulu`: the law takes
    // the context that spares them.
    let pairs = [
        ("kita", "cita"),
        ("maki", "maci"),
        ("kuli", "kuli"),
        ("kiki", "cici"),
        ("lika", "lica"),
        ("kulu", "kulu"),
    ];
    assert_eq!(answer(&LawSolver::with_support(2), &pairs, 5), ["ki -> ci"]);
    // A change no two words share is no law under a support of 2, and is one under 1.
    let irregular = [("mol", "mul"), ("kita", "cita"), ("kipa", "cipa")];
    assert_eq!(
        answer(&LawSolver::with_support(2), &irregular, 5),
        ["k -> c"]
    );
    assert_eq!(
        answer(&LawSolver::with_support(1), &irregular, 5),
        ["k -> c", "o -> u"]
    );
    // A long replacement shared by two words is a law without a price of length, and
    // none when every letter beyond two asks for one more word.
    let long = [
        ("mate", "mateʔi"),
        ("ʔate", "ʔateʔi"),
        ("sa", "ha"),
        ("si", "hi"),
    ];
    assert_eq!(
        answer(&LawSolver::with_support(2), &long, 5),
        ["e -> eʔi", "s -> h"]
    );
    let priced = LawSolver {
        letters_per_word: vec![1],
        ..LawSolver::with_support(2)
    };
    assert_eq!(answer(&priced, &long, 5), ["s -> h"]);
    // The rule cap stops the growth.
    assert_eq!(
        answer(&LawSolver::with_support(1), &irregular, 1),
        ["k -> c"]
    );
}

#[test]
fn answers_depend_on_the_words_alone_not_on_threads_or_time() {
    let shifted: Vec<(String, String)> = (LAW_AND_PATCHES.iter())
        .map(|(i, o)| (format!("{i}ta"), format!("{o}ta")))
        .collect();
    let shifted: Vec<(&str, &str)> = shifted
        .iter()
        .map(|(i, o)| (i.as_str(), o.as_str()))
        .collect();
    let instances = [
        instance("a-0", LAW_AND_PATCHES, 10),
        instance("a-1", &shifted, 3),
        instance("b-0", &LAW_AND_PATCHES[3..], 10),
        instance("b-1", &shifted[2..], 2),
    ];
    let solver = LawSolver::default();
    let one = cross_validated(&solver, &instances, 1);
    assert_eq!(cross_validated(&solver, &instances, 2), one);
    let budget = Budget::time(Duration::from_secs(300));
    let long = cross_validate(&instances, &solver, &budget, 3, 0.2, |_| {}).unwrap();
    assert_eq!(long, one);
}
