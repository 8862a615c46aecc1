//! Behaviour grading in scoring (`docs/metrics.md#behaviour`): the per-sample `recovered`,
//! `behaviour` and counterexample against brute-force enumeration of small input spaces;
//! Recovered@1, mean behaviour and the vetted figures by hand on a tiny dataset; the
//! identity earning 0 on every vetted figure; no figure (null) without a gold cascade; and
//! answers whose outputs grow exponentially, bounded.

mod equiv_support;

use equiv_support::{answer, brute, edit, rules, strings};
use pbebench::equiv::InputSpace;
use pbebench::{
    render_answer, score_instance, summarize, Cascade, Instance, InstanceScore, RelationMode,
    ScoreOptions,
};
use proptest::prelude::*;

/// An instance with `gold` (if any) over `alphabet`, whose visible inputs are `inputs`.
fn instance(id: &str, gold: Option<Cascade>, alphabet: &str, inputs: &[&str]) -> Instance {
    let outputs = match &gold {
        Some(g) => inputs.iter().map(|i| g.apply(i)).collect(),
        None => inputs.iter().map(|i| i.replace('a', "b")).collect(),
    };
    Instance {
        id: id.into(),
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
        outputs,
        cascade_len: gold.as_ref().map_or(0, Cascade::len),
        cascade: gold,
        category: None,
        relations_mode: RelationMode::default(),
        max_rules: 30,
        max_rule_len: 3,
        alphabet: alphabet.into(),
        heldout_inputs: Vec::new(),
        heldout_outputs: Vec::new(),
        interactions: Vec::new(),
        symbols: Default::default(),
    }
}

fn rules_of(pairs: &[(&str, &str)]) -> Cascade {
    equiv_support::cascade(pairs)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn score(inst: &Instance, answers: &[Option<&Cascade>]) -> InstanceScore {
    let texts: Vec<String> = answers
        .iter()
        .map(|a| a.map_or_else(|| "no answer".to_owned(), render_answer))
        .collect();
    score_instance(inst, &texts, &ScoreOptions::default())
}

/// Random gold cascades over 2–3 letters, inputs spanning lengths `lo..=hi`, answers made
/// from the gold the ways solvers err.
fn case() -> impl Strategy<Value = (Vec<char>, Vec<String>, Cascade, Vec<Cascade>)> {
    (2..=3usize, 1..=2usize, 3..=5usize).prop_flat_map(|(k, lo, hi)| {
        let letters: Vec<char> = "abc".chars().take(k).collect();
        let word = |len: std::ops::RangeInclusive<usize>| {
            prop::collection::vec(prop::sample::select(letters.clone()), len)
                .prop_map(|v| v.into_iter().collect::<String>())
        };
        (
            Just(letters.clone()),
            (
                word(lo..=lo),
                word(hi..=hi),
                prop::collection::vec(word(lo..=hi), 0..6),
            ),
            rules(letters.clone(), 4),
            prop::collection::vec(edit(letters.clone()), 1..5),
        )
            .prop_map(|(letters, (first, last, more), gold, edits)| {
                let inputs = [vec![first, last], more].concat();
                let answers = edits.iter().map(|e| answer(&gold, e)).collect();
                (letters, inputs, Cascade::new(gold), answers)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Each sample's recovered, behaviour and counterexample are what brute force finds
    /// over the instance's input space (its alphabet, its inputs' length range).
    #[test]
    fn per_sample_fields_are_brute_force((letters, inputs, gold, answers) in case()) {
        let alphabet: String = letters.iter().collect();
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        let inst = instance("x", Some(gold.clone()), &alphabet, &refs);
        let lengths = refs.iter().map(|s| s.chars().count());
        let (lo, hi) = (lengths.clone().min().unwrap(), lengths.max().unwrap());
        let space = InputSpace::of(&inst).unwrap();
        // The presets' lengths 2..=6, widened to the inputs' (InputSpace::of).
        prop_assert_eq!((space.min_len(), space.max_len()), (lo.min(2), hi.max(6)));
        let s = score(&inst, &answers.iter().map(Some).collect::<Vec<_>>());
        prop_assert!(s.graded);
        for (answer, sample) in answers.iter().zip(&s.samples) {
            let b = brute(&gold, answer, &space);
            prop_assert_eq!(sample.undecided.as_deref(), None);
            prop_assert_eq!(sample.recovered, Some(b.counterexample.is_none()));
            prop_assert_eq!(sample.behaviour, b.changed_agreement.map(|r| r.to_f64()));
            let expected = b.counterexample.filter(|_| sample.pass).map(|input| {
                (input.clone(), Some(gold.apply(&input)), Some(answer.apply(&input)))
            });
            let got = sample.counterexample.as_ref().map(|c| {
                (c.input.clone(), c.gold.clone(), c.answer.clone())
            });
            prop_assert_eq!(got, expected);
        }
        let chosen = s.chosen.unwrap();
        prop_assert_eq!(s.recovered, s.samples[chosen].recovered);
        prop_assert_eq!(s.behaviour, s.samples[chosen].behaviour);
    }

    /// Doing nothing earns 0 on every vetted figure of an instance whose gold changes an
    /// example; and it is never recovered unless the gold changes no input at all.
    #[test]
    fn the_identity_earns_nothing((letters, inputs, gold, _) in case()) {
        let alphabet: String = letters.iter().collect();
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        let inst = instance("x", Some(gold.clone()), &alphabet, &refs);
        prop_assume!(inst.inputs != inst.outputs);
        let scores: Vec<InstanceScore> = ["", "```python\n[]\n```", "no code"]
            .iter()
            .map(|r| score_instance(&inst, &[r], &ScoreOptions::default()))
            .chain([score_instance::<&str>(&inst, &[], &ScoreOptions::default())])
            .collect();
        for s in &scores {
            prop_assert_eq!(s.score, 0.0);
            prop_assert_eq!(s.behaviour, Some(0.0));
            let space = InputSpace::of(&inst).unwrap();
            let changes_something =
                strings(space.alphabet(), space.min_len(), space.max_len()).any(|x| gold.apply(&x) != x);
            prop_assert_eq!(s.recovered, Some(!changes_something));
        }
        let o = summarize(&scores).overall;
        prop_assert_eq!((o.mean_reward, o.almost, o.resolved), (Some(0.0), Some(0.0), Some(0.0)));
        prop_assert_eq!((o.best_of_k_mean_reward, o.best_of_k_almost, o.best_of_k_resolved), (0.0, 0.0, 0.0));
        prop_assert!(o.survival.iter().all(|p| p.threshold == 0.0 || p.share == 0.0));
        prop_assert_eq!(o.recovered, Some(0.0));
        prop_assert_eq!(o.behaviour, Some(0.0));
    }
}

/// Gold a→b over "ab"; visible examples ab→bb (changed) and b→b (unchanged); input space:
/// lengths 1–6 (the presets' 2–6 widened to the inputs' 1). A string of length n weighs
/// 1/6 · 1/2ⁿ. The gold changes the 2ⁿ − 1 strings with an a.
fn tiny(id: &str, gold: bool) -> Instance {
    instance(
        id,
        gold.then(|| rules_of(&[("a", "b")])),
        "ab",
        &["ab", "b"],
    )
}

/// Recovered@1, recovered pass@k, mean behaviour and the vetted figures of a tiny dataset,
/// by hand.
#[test]
fn summary_figures_by_hand() {
    let gold = rules_of(&[("a", "b")]);
    // Fits both examples; agrees with the gold on a string the gold changes when every a
    // is followed by a b: strings of "b" and "ab" tokens (Fibonacci: 1, 2, 3, 5, 8, 13 of
    // lengths 1–6) less the all-b one: 0, 1, 2, 4, 7, 12. Behaviour = Σ gₙ/2ⁿ / Σ
    // (2ⁿ−1)/2ⁿ = (74/64) / (321/64) = 74/321. Shortest counterexample: "a" (gold "b",
    // answer "a").
    let x = 74.0 / 321.0;
    let fit = rules_of(&[("ab", "bb")]);
    let one = score(&tiny("one", true), &[Some(&gold), Some(&fit), None]);
    let two = score(&tiny("two", true), &[Some(&fit), Some(&fit)]);
    let missing = score_instance::<&str>(&tiny("missing", true), &[], &ScoreOptions::default());
    let no_gold = score(&tiny("real", false), &[Some(&gold)]);

    let recovered: Vec<Option<bool>> = one.samples.iter().map(|s| s.recovered).collect();
    assert_eq!(recovered, [Some(true), Some(false), Some(false)]);
    let behaviour: Vec<f64> = one.samples.iter().map(|s| s.behaviour.unwrap()).collect();
    assert!(close(behaviour[0], 1.0) && close(behaviour[1], x) && behaviour[2] == 0.0);
    let scores: Vec<f64> = one.samples.iter().map(|s| s.score).collect();
    assert_eq!(scores, [1.0, 1.0, 0.0], "b→b is not counted");
    assert!(one.samples[0].counterexample.is_none());
    let c = one.samples[1]
        .counterexample
        .as_ref()
        .expect("passes, not recovered");
    assert_eq!(
        (c.input.as_str(), c.gold.as_deref(), c.answer.as_deref()),
        ("a", Some("b"), Some("a"))
    );
    assert!(one.samples[2].counterexample.is_none(), "not passing");
    assert_eq!((one.recovered, two.recovered), (Some(true), Some(false)));
    assert_eq!(missing.samples[0].behaviour, Some(0.0));
    assert!(!no_gold.graded && no_gold.pass);
    assert_eq!((no_gold.recovered, no_gold.behaviour), (None, None));
    assert_eq!(no_gold.samples[0].recovered, None);

    let summary = summarize(&[one, two, missing, no_gold]);
    let o = &summary.overall;
    // Recovered@1 = mean over graded instances of c/n: (1/3 + 0/2 + 0/1) / 3.
    assert!(close(o.recovered.unwrap(), 1.0 / 9.0), "{:?}", o.recovered);
    assert_eq!(o.recovered_at_k.keys().copied().collect::<Vec<_>>(), [1]);
    assert!(close(o.recovered_at_k[&1], 1.0 / 9.0));
    // Mean behaviour: ((1 + x + 0) / 3 + (x + x) / 2 + 0) / 3.
    let mean = ((1.0 + x) / 3.0 + x) / 3.0;
    assert!(close(o.behaviour.unwrap(), mean), "{:?}", o.behaviour);
    assert_eq!((o.recovered_instances, o.behaviour_instances), (3, 3));
    assert_eq!((o.behaviour_skipped, o.undecided), (1, 0));
    // Vetted per sample, as Pass@1: (2/3 + 2/2 + 0 + 1/1) / 4 (the third sample of `one`
    // is empty; both of `two` fit).
    let per_sample = (2.0 / 3.0 + 2.0) / 4.0;
    for figure in [o.mean_reward, o.resolved, o.almost] {
        assert!(close(figure.unwrap(), per_sample), "{figure:?}");
    }
    // Best-of-K, over the chosen samples: 1 (gold), 1 (fit), 0 (missing), 1 (the gold-less
    // instance's passing answer).
    assert!(close(o.best_of_k_mean_reward, 0.75));
    assert!(close(o.best_of_k_resolved, 0.75));
    assert!(close(o.best_of_k_almost, 0.75));
    assert_eq!(o.survival[1].share, 0.75, "threshold 0.05");
    // The paper's figures: Pass@1 = (2/3 + 1 + 0 + 1) / 4, best-of-K 3/4.
    assert!(close(o.pass_at_k[&1], (2.0 / 3.0 + 2.0) / 4.0));
    assert!(close(o.best_of_k, 0.75));
    assert_eq!(o.pass_at_1, Some(o.pass_at_k[&1]));
    let table = summary.to_string();
    assert!(
        table.contains("Recovered@1") && table.contains("behaviour"),
        "{table}"
    );
    assert!(table.contains("1 instances not graded"), "{table}");

    // Only gold-less instances: no figure, not 0.
    let none = summarize(&[score(&tiny("real", false), &[Some(&gold)])]).overall;
    assert_eq!((none.recovered, none.behaviour), (None, None));
    assert!(none.recovered_at_k.is_empty());
}

/// Skipping the grading leaves every behaviour figure out.
#[test]
fn skipping_behaviour_leaves_it_out() {
    let options = ScoreOptions {
        skip_behaviour: true,
        ..ScoreOptions::default()
    };
    let s = score_instance(
        &tiny("x", true),
        &[render_answer(&rules_of(&[("a", "b")]))],
        &options,
    );
    assert!(s.pass && !s.graded);
    assert_eq!((s.recovered, s.samples[0].behaviour), (None, None));
    assert_eq!(summarize(&[s]).overall.behaviour_skipped, 1);
}

/// An answer of 20 × replace('a', 'aaa') (3²⁰ letters per a) is scored, graded and
/// rewarded within the bounds: a verdict, not a run-away.
#[test]
fn exponential_answers_are_bounded() {
    let gold = rules_of(&[("ab", "b"), ("ba", "c")]);
    let mut inst = instance("x", Some(gold), "abc", &["aaaaaa", "abab", "ba", "cab"]);
    inst.heldout_inputs = vec!["aabab".into()];
    inst.heldout_outputs = vec![inst.cascade.as_ref().unwrap().apply("aabab")];
    let blowup = Cascade::new(vec![pbebench::Rule::new("a", "aaa").unwrap(); 20]);
    let text = render_answer(&blowup);
    let s = score_instance(
        &inst,
        &[text.as_str(), text.as_str()],
        &ScoreOptions::default(),
    );
    assert!(!s.pass);
    assert_eq!(s.heldout_pass, Some(false));
    // The reason: "aaaaaa", "abab" and "cab" blow past the bound; "ba" does too.
    assert_eq!(s.samples[0].over_bound, 4);
    assert_eq!(s.samples[0].recovered, Some(false));
    assert!(s.samples[0].edit_sim < 0.0);
    assert_eq!(s.samples[0].score, 0.0);
    assert!(pbebench::reward(&inst, &text) < 0.0);
}

/// The behavioural reward is each sample's `behaviour` in scoring; `None` without a gold.
#[test]
fn behaviour_reward_is_the_scored_behaviour() {
    let texts: Vec<String> = [rules_of(&[("a", "b")]), rules_of(&[("ab", "bb")])]
        .iter()
        .map(render_answer)
        .chain([
            "no answer".to_owned(),
            render_answer(&rules_of(&[("a", "b"), ("c", "c")])),
        ])
        .collect();
    let inst = tiny("x", true);
    let rewards = pbebench::behaviour_rewards(&inst, &texts).unwrap();
    let got: Vec<f64> = rewards.iter().map(|r| r.unwrap()).collect();
    let want = [1.0, 74.0 / 321.0, 0.0, 1.0];
    assert!(got.iter().zip(want).all(|(g, w)| close(*g, w)), "{got:?}");
    let scored = score_instance(&inst, &texts, &ScoreOptions::default());
    let behaviours: Vec<Option<f64>> = scored.samples.iter().map(|s| s.behaviour).collect();
    assert_eq!(rewards, behaviours);
    assert_eq!(pbebench::behaviour_rewards(&tiny("x", false), &texts), None);
}

/// The same figures under any number of threads (the grading is per instance, and the
/// instances are scored in parallel).
#[test]
fn the_same_scores_under_any_thread_count() {
    let gold = rules_of(&[("ab", "c"), ("c", "a")]);
    let dataset: Vec<Instance> = (0..24)
        .map(|k| {
            instance(
                &format!("i{k}"),
                Some(gold.clone()),
                "abc",
                &["abab", "cab", "b"],
            )
        })
        .collect();
    let answers = [
        render_answer(&gold),
        render_answer(&rules_of(&[("ab", "a")])),
        render_answer(&rules_of(&[("c", "a"), ("ab", "c")])),
    ];
    let mut responses = pbebench::Responses::default();
    for (k, inst) in dataset.iter().enumerate() {
        let given: Vec<String> = answers
            .iter()
            .cycle()
            .skip(k % 3)
            .take(2)
            .cloned()
            .collect();
        responses.by_id.insert(inst.id.clone(), given);
    }
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| pbebench::score_dataset(&dataset, &responses, &ScoreOptions::default()))
    };
    let one = run(1);
    assert!(one.iter().all(|s| s.graded && s.recovered.is_some()));
    assert_eq!(one, run(3));
    assert_eq!(summarize(&one), summarize(&run(2)));
}

/// A comparison the engine cannot decide (both cascades write outputs past its bound) is
/// null with its reason and counted, and left out of Recovered@1, never a guess.
#[test]
fn an_undecided_comparison_is_null_and_counted() {
    let gold = Cascade::new(vec![pbebench::Rule::new("a", "aaa").unwrap(); 7]);
    let longer = Cascade::new(vec![pbebench::Rule::new("a", "aaa").unwrap(); 8]);
    let inst = instance("x", Some(gold.clone()), "ab", &["a", "ab"]);
    let s = score(&inst, &[Some(&longer), Some(&gold)]);
    let undecided = &s.samples[0];
    assert_eq!((undecided.recovered, undecided.behaviour), (None, None));
    let why = undecided.undecided.as_deref().expect("a reason");
    assert!(why.contains("longer than 1024 characters"), "{why}");
    assert_eq!(
        s.samples[1].recovered,
        Some(true),
        "the gold against itself is decided"
    );
    let o = summarize(&[s]).overall;
    assert_eq!(o.undecided, 1);
    assert_eq!(o.recovered, Some(1.0), "n counts the decided samples only");
    assert!(summarize(&[score(&inst, &[Some(&longer)])])
        .overall
        .recovered
        .is_none());
}
