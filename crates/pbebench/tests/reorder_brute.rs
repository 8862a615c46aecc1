//! The reordering module's count of valid orders against a plain, independent enumeration
//! of every permutation, on every instance of a generated Lite set with cascades of 2 to 7
//! rules; and the gold order of every problem made from it is valid and exact. From the
//! authors' published Lite file, their reordering snapshot's counts.

mod reorder_support;

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
    reorder_support::lite_lengths("brute", 7, 240, 41)
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

/// The authors' reordering snapshot of their published Lite file: 919 problems kept, 89
/// instances skipped because every order is valid, and their `solution_counts` (the
/// published `.stats.json` of `adaptive_balanced_1008_permutation_promptsfile.jsonl`, CC
/// BY-SA 4.0), which count the skipped instances too, with their n! orders.
#[test]
fn the_published_lite_file_gives_the_authors_counts() {
    let path = pbebench_testdata::path("adaptive_balanced_1008_complete.jsonl");
    let instances = pbebench::dataset::read_dataset(path).unwrap();
    let (kept, skipped, stats) = reorder_dataset(&instances, 0);
    assert_eq!((kept.len(), skipped.len()), (919, 89));
    assert!(skipped.iter().all(|(_, s)| *s == Skip::EveryOrderValid));
    let by_length: Vec<(usize, usize)> = (stats.by_length.iter())
        .map(|(len, (k, _))| (*len, *k))
        .collect();
    assert_eq!(by_length, [(2, 182), (3, 232), (4, 249), (5, 256)]);
    let by_category: Vec<String> = (stats.by_category.iter())
        .filter(|(_, (k, _))| *k > 0)
        .map(|(c, (k, _))| format!("{}:{k}", c.unwrap()))
        .collect();
    let published_categories = "0001:63 0010:62 0011:63 0100:57 0101:61 0110:63 0111:63 \
        1000:63 1001:63 1010:63 1011:63 1100:47 1101:62 1110:63 1111:63";
    assert_eq!(by_category.join(" "), published_categories);
    let published: [(u64, usize); 22] = [
        (1, 242),
        (2, 124),
        (3, 164),
        (4, 57),
        (5, 23),
        (6, 57),
        (7, 3),
        (8, 56),
        (9, 5),
        (10, 33),
        (11, 3),
        (12, 73),
        (14, 2),
        (15, 33),
        (16, 2),
        (18, 1),
        (20, 37),
        (24, 4),
        (25, 9),
        (30, 34),
        (40, 24),
        (60, 22),
    ];
    let ours: Vec<(u64, usize)> = (stats.valid_orders.iter())
        .map(|(count, (k, s))| (count.unwrap(), k + s))
        .collect();
    assert_eq!(ours, published);
}
