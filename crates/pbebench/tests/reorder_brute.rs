//! The reordering module's count of valid orders against a plain, independent enumeration
//! of every permutation, on every instance of a generated Lite set with cascades of 2 to 7
//! rules; and the gold order of every problem made from it is valid and exact.

use pbebench::generate::{generate, Balance, MaxRules, Preset};
use pbebench::reorder::{reorder_dataset, score_order, valid_orders, Skip};
use pbebench::{Cascade, Instance};

/// Every permutation of `0..n`, by inserting `n - 1` at each place of each permutation of
/// `0..n-1` (nothing shared with the module's depth-first walk).
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            all.push(q);
        }
    }
    all
}

fn brute_count(instance: &Instance) -> u64 {
    let rules = instance.cascade.as_ref().unwrap().rules();
    permutations(rules.len())
        .into_iter()
        .filter(|p| {
            let c = Cascade::new(p.iter().map(|&k| rules[k].clone()).collect());
            instance
                .inputs
                .iter()
                .zip(&instance.outputs)
                .all(|(i, o)| c.apply(i) == *o)
        })
        .count() as u64
}

fn lite_up_to_seven() -> Vec<Instance> {
    let mut p = Preset::Lite.params();
    p.name = "brute".into();
    p.cascade_lens = (2..=7).collect();
    p.balance = Balance::Length;
    p.size = 240;
    p.seed = 41;
    p.max_rules = MaxRules::Fixed(7);
    let mut instances = Vec::new();
    generate(&p, &(), &mut |i| {
        instances.push(i);
        Ok(())
    })
    .unwrap();
    instances
}

#[test]
fn valid_orders_equal_a_brute_force_count_up_to_seven_rules() {
    let instances = lite_up_to_seven();
    assert_eq!(instances.len(), 240);
    for len in 2..=7 {
        assert!(
            instances.iter().any(|i| i.cascade_len == len),
            "no length {len}"
        );
    }
    let (kept, skipped, stats) = reorder_dataset(&instances, 9);
    let mut seen_all_valid = 0;
    for instance in &instances {
        let rules = instance.cascade.as_ref().unwrap().rules();
        let brute = brute_count(instance);
        let fast = valid_orders(rules, &instance.inputs, &instance.outputs);
        assert_eq!(fast, Some(brute), "{}", instance.id);
        let factorial: u64 = (1..=rules.len() as u64).product();
        let skip = skipped.iter().find(|(id, _)| *id == instance.id);
        if brute == factorial {
            seen_all_valid += 1;
            assert_eq!(
                skip.map(|s| s.1),
                Some(Skip::EveryOrderValid),
                "{}",
                instance.id
            );
        } else {
            assert!(
                skip.is_none(),
                "{} skipped with {brute} valid orders",
                instance.id
            );
        }
    }
    assert_eq!(stats.kept + seen_all_valid, instances.len());
    for problem in &kept {
        let score = score_order(problem, &problem.order);
        assert!(
            score.valid && score.accurate && score.exact,
            "{}",
            problem.instance.id
        );
        let shown: Vec<usize> = (0..problem.scrambled.len()).collect();
        assert!(
            !score_order(problem, &shown).accurate,
            "{}",
            problem.instance.id
        );
    }
}
