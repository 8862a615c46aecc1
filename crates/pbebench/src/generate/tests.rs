//! Generator tests: determinism under threads and shards, quotas, held-out examples.

use super::*;
use crate::relations::RelationMode;
use std::collections::HashSet;

fn small(balance: Balance) -> GenParams {
    let mut p = Preset::Lite.params();
    p.name = "t".into();
    p.balance = balance;
    p.size = 48;
    p.cascade_lens = vec![2, 3, 4];
    p.patience = 2_000;
    p.seed = 11;
    p
}

fn run(p: &GenParams, threads: usize) -> (Vec<String>, GenStats) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut lines = Vec::new();
    let stats = pool
        .install(|| {
            generate(p, &(), &mut |inst| {
                lines.push(serde_json::to_string(&inst).unwrap());
                Ok(())
            })
        })
        .unwrap();
    (lines, stats)
}

#[test]
fn same_output_whatever_the_thread_count() {
    for balance in [Balance::Category, Balance::Length, Balance::Joint] {
        let p = small(balance);
        let (one, s1) = run(&p, 1);
        let (three, s3) = run(&p, 3);
        assert_eq!(one.len(), 48);
        assert_eq!(one, three, "{balance:?}");
        assert_eq!(s1.attempts, s3.attempts);
        assert_eq!(s1.rejections, s3.rejections);
    }
}

#[test]
fn shards_concatenate_to_the_whole() {
    for balance in [Balance::Category, Balance::Joint] {
        let mut p = small(balance);
        let (whole, _) = run(&p, 2);
        let mut joined = Vec::new();
        for k in 0..4 {
            p.shard = Some((k, 4));
            joined.extend(run(&p, 2).0);
        }
        assert_eq!(joined, whole, "{balance:?}");
        p.shard = Some((1, 5));
        assert_eq!(run(&p, 1).0.len(), 2 * 48 / 5 - 48 / 5);
    }
}

#[test]
fn seeds_change_the_data() {
    let mut p = small(Balance::Category);
    let (a, _) = run(&p, 1);
    p.seed += 1;
    let (b, _) = run(&p, 1);
    assert_ne!(a, b);
}

#[test]
fn heldout_does_not_change_visible_part() {
    let mut p = small(Balance::Joint);
    p.heldout = 0;
    let (without, _) = run(&p, 1);
    p.heldout = 7;
    let (with, _) = run(&p, 1);
    for (a, b) in without.iter().zip(&with) {
        let mut a: Instance = serde_json::from_str(a).unwrap();
        let b: Instance = serde_json::from_str(b).unwrap();
        assert!(a.heldout_inputs.is_empty());
        assert_eq!(b.heldout_inputs.len(), 7);
        for h in &b.heldout_inputs {
            assert!(!b.inputs.contains(h), "held-out input {h} is also visible");
        }
        a.heldout_inputs = b.heldout_inputs.clone();
        a.heldout_outputs = b.heldout_outputs.clone();
        assert_eq!(a, b);
    }
}

#[test]
fn instances_are_sound_and_balanced() {
    let p = small(Balance::Joint);
    let (lines, stats) = run(&p, 2);
    let mut by_len: BTreeMap<usize, usize> = BTreeMap::new();
    let mut covered_rules = 0;
    let mut total_rules = 0;
    for line in &lines {
        let inst: Instance = serde_json::from_str(line).unwrap();
        assert!(
            inst.problems().is_empty(),
            "{}: {:?}",
            inst.id,
            inst.problems()
        );
        *by_len.entry(inst.cascade_len).or_default() += 1;
        let cascade = inst.cascade.as_ref().unwrap();
        let rel = Relations::of(cascade, RelationMode::Exact);
        assert_eq!(Some(rel.category()), inst.category);
        assert_eq!(rel.interactions(), inst.interactions);
        assert_eq!(inst.max_rules, 5);
        let mut seen = HashSet::new();
        assert!(
            inst.inputs.iter().all(|i| seen.insert(i)),
            "repeated input in {}",
            inst.id
        );
        for (k, _) in cascade.rules().iter().enumerate() {
            total_rules += 1;
            if inst
                .heldout_inputs
                .iter()
                .any(|h| heldout::rules_fired(cascade, h).contains(&k))
            {
                covered_rules += 1;
            }
        }
        assert!(inst.examples_changed_per_rule().iter().all(|&c| c > 0));
    }
    assert_eq!(
        by_len.values().copied().collect::<Vec<_>>(),
        vec![16, 16, 16]
    );
    assert!(
        covered_rules * 10 >= total_rules * 9,
        "held-out inputs fire only {covered_rules}/{total_rules} rules"
    );
    assert_eq!(stats.accepted, 48);
    let rejected: u64 = stats.rejections.values().sum();
    assert_eq!(rejected + stats.accepted, stats.attempts);
}

#[test]
fn category_quotas_hold_before_patience() {
    let mut p = small(Balance::Category);
    p.patience = u64::MAX;
    p.size = 32;
    p.cascade_lens = vec![3, 4, 5];
    let (lines, _) = run(&p, 2);
    let mut counts = [0; 16];
    for line in &lines {
        let inst: Instance = serde_json::from_str(line).unwrap();
        counts[inst.category.unwrap().index()] += 1;
    }
    assert_eq!(counts, [2; 16]);
}

#[test]
fn impossible_requests_stop_with_an_explanation() {
    let mut p = small(Balance::Length);
    p.alphabet = vec!['a', 'b'];
    p.input_len = (2, 2);
    p.examples = 2;
    p.cascade_lens = vec![1];
    p.rule_len = (2, 2);
    p.size = 1000;
    p.patience = 10;
    let err = generate(&p, &(), &mut |_| Ok(())).unwrap_err();
    assert!(matches!(err, GenerateError::Stalled(_)), "{err}");
    assert!(err.to_string().contains("cannot progress"), "{err}");
}

#[test]
fn kl_is_zero_only_for_balance() {
    assert_eq!(kl_from_uniform(&[5; 16]), 0.0);
    let mut skewed = [5; 16];
    skewed[0] = 50;
    assert!(kl_from_uniform(&skewed) > 0.0);
    // Hand-computed: all 16 in one category. Q = 17/32 there, 1/32 elsewhere.
    let mut one = [0; 16];
    one[3] = 16;
    let expected = (1.0 / 16.0)
        * ((1.0f64 / 16.0 / (17.0 / 32.0)).ln() + 15.0 * (1.0f64 / 16.0 / (1.0 / 32.0)).ln());
    assert!((kl_from_uniform(&one) - expected).abs() < 1e-12);
}

#[test]
fn paper_categories_are_those_of_the_text_classifier() {
    // The generator reads the paper's formula off letter codes, without the memo; the
    // texts' classifier must agree, for byte letters and for multi-byte ones.
    for alphabet in ["abcdefghijkuvwxyz", "αβγδεζʔŋː"] {
        let mut p = small(Balance::Category);
        p.relations = RelationMode::Paper;
        p.alphabet = alphabet.chars().collect();
        p.cascade_lens = vec![2, 3, 4, 5];
        p.size = 64;
        let (lines, _) = run(&p, 1);
        assert_eq!(lines.len(), 64);
        for line in &lines {
            let inst: Instance = serde_json::from_str(line).unwrap();
            let rel = Relations::of(inst.cascade.as_ref().unwrap(), RelationMode::Paper);
            assert_eq!(
                Some(rel.category()),
                inst.category,
                "{alphabet}: {}",
                inst.id
            );
            assert_eq!(rel.interactions(), inst.interactions);
        }
    }
}

/// Over two letters, two one-letter inputs and one one-letter rule there are only four
/// instances (two orders of the inputs, two rules): a run asking for all four must reject
/// repeats of them, and keep each exactly once.
#[test]
fn repeated_instances_are_rejected_once_each_is_kept() {
    let mut p = small(Balance::Length);
    p.alphabet = vec!['a', 'b'];
    p.examples = 2;
    p.input_len = (1, 1);
    p.rule_len = (1, 1);
    p.cascade_lens = vec![1];
    p.max_rules = MaxRules::Fixed(1);
    p.size = 4;
    p.heldout = 0;
    let (lines, stats) = run(&p, 1);
    let kept: HashSet<(Vec<String>, Vec<String>, String)> = lines
        .iter()
        .map(|line| {
            let inst: Instance = serde_json::from_str(line).unwrap();
            let cascade = serde_json::to_string(&inst.cascade).unwrap();
            (inst.inputs, inst.outputs, cascade)
        })
        .collect();
    assert_eq!(kept.len(), 4);
    assert!(
        stats.rejections[&Rejection::Duplicate] > 0,
        "{:?}",
        stats.rejections
    );
}

/// The published Lite sampler is deterministic under any thread count as the default one
/// is, its patterns always occur where they apply, and most of them are single letters
/// (a third are with the default draw on the same parameters).
#[test]
fn published_pattern_draw_is_deterministic_and_mostly_single_letters() {
    let one_letter_share = |p: &GenParams| {
        let (lines, _) = run(p, 2);
        let (mut one, mut all) = (0, 0);
        for line in &lines {
            let inst: crate::Instance = serde_json::from_str(line).unwrap();
            let cascade = inst.cascade.unwrap();
            let mut current = inst.inputs.clone();
            for rule in cascade.rules() {
                assert!(current.iter().any(|s| s.contains(rule.pattern())), "{line}");
                current = current.iter().map(|s| rule.apply(s)).collect();
            }
            one += cascade
                .rules()
                .iter()
                .filter(|r| r.pattern().len() == 1)
                .count();
            all += cascade.len();
        }
        one as f64 / all as f64
    };
    let mut p = small(Balance::Category);
    p.pattern_draw = PatternDraw::Published;
    assert_eq!(run(&p, 1).0, run(&p, 3).0);
    let published = one_letter_share(&p);
    p.pattern_draw = PatternDraw::Substring;
    let substring = one_letter_share(&p);
    assert!(published > 0.6, "published draw: {published}");
    assert!(substring < 0.5, "substring draw: {substring}");
}
