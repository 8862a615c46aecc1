//! Scoring reordering answers against a plain enumeration: on every problem of a generated
//! Lite set with cascades of 2 to 6 rules, every permutation, written as a response, is
//! read and graded; the accurate ones are exactly the orders an independent application of
//! the rules finds valid, one is exact, all are valid; arrays that are no permutation
//! (short, long, repeated, out of range, negative) are invalid and never accurate.

mod reorder_support;

use pbebench::reorder::{
    reorder_dataset, score_order_responses, summarize_orders, OrderProblem, ReorderInstance,
};
use pbebench::{BlockChoice, Cascade};
use std::collections::HashMap;

/// Every permutation of `0..n`, by inserting `n - 1` at each place of each permutation of
/// `0..n-1`.
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

/// Whether the scrambled rules in `order` map every input to its output, applied one
/// `str::replace` at a time (nothing shared with the scorer).
fn brute_accurate(problem: &ReorderInstance, order: &[usize]) -> bool {
    let rules = problem.scrambled.rules();
    problem
        .instance
        .inputs
        .iter()
        .zip(&problem.instance.outputs)
        .all(|(input, output)| {
            let mut s = input.clone();
            for &k in order {
                s = s.replace(rules[k].pattern(), rules[k].replacement());
            }
            s == *output
        })
}

fn problems() -> Vec<ReorderInstance> {
    let instances = reorder_support::lite_lengths("score-brute", 6, 60, 43);
    let (kept, _, _) = reorder_dataset(&instances, 2);
    kept
}

#[test]
fn every_order_is_graded_as_a_brute_force_applies_it() {
    let problems = problems();
    assert!(problems.iter().any(|p| p.scrambled.len() == 6));
    for problem in &problems {
        let n = problem.scrambled.len();
        let all = permutations(n);
        let texts: Vec<String> = all
            .iter()
            .map(|p| format!("Here:\n```json\n{p:?}\n```"))
            .collect();
        let responses = HashMap::from([(problem.instance.id.clone(), texts)]);
        let scores =
            score_order_responses(std::slice::from_ref(problem), &responses, BlockChoice::Last);
        let samples = &scores[0].samples;
        assert_eq!(samples.len(), all.len());
        let mut exact = 0;
        for (order, sample) in all.iter().zip(samples) {
            assert!(sample.score.valid, "{}: {order:?}", problem.instance.id);
            assert_eq!(sample.order.as_deref(), Some(order.as_slice()));
            assert_eq!(
                sample.score.accurate,
                brute_accurate(problem, order),
                "{}: {order:?}",
                problem.instance.id
            );
            exact += usize::from(sample.score.exact);
        }
        assert_eq!(exact, 1, "{}", problem.instance.id);
        let accurate = samples.iter().filter(|s| s.score.accurate).count() as u64;
        assert_eq!(
            Some(accurate),
            problem.valid_orders,
            "{}",
            problem.instance.id
        );
        // Cascade in the gold order is the instance's gold.
        let gold: Cascade = problem.ordered(&problem.order).unwrap();
        assert_eq!(Some(&gold), problem.instance.cascade.as_ref());
    }
}

#[test]
fn arrays_that_are_no_permutation_are_invalid() {
    let problems = problems();
    let mut responses = HashMap::new();
    let mut expected = Vec::new();
    for (k, problem) in problems.iter().enumerate() {
        let n = problem.scrambled.len();
        let mut bad = problem.order.clone();
        let (text, kind) = match k % 5 {
            0 => {
                bad.pop();
                (format!("{bad:?}"), "wrong_length")
            }
            1 => {
                bad.push(0);
                (format!("{bad:?}"), "wrong_length")
            }
            2 => {
                bad[1] = bad[0];
                (format!("{bad:?}"), "repeated")
            }
            3 => {
                bad[0] = n;
                (format!("{bad:?}"), "out_of_range")
            }
            _ => (format!("[-1{}]", ", 0".repeat(n - 1)), "not_an_index"),
        };
        responses.insert(problem.instance.id.clone(), vec![text]);
        expected.push(kind);
    }
    let scores = score_order_responses(&problems, &responses, BlockChoice::Last);
    for ((score, kind), problem) in scores.iter().zip(&expected).zip(&problems) {
        let sample = &score.samples[0];
        assert!(!sample.score.valid && !sample.score.accurate && !sample.score.exact);
        let problem_kind = sample.problem.as_ref().map(OrderProblem::kind);
        assert_eq!(problem_kind, Some(*kind), "{}", problem.instance.id);
    }
    let summary = summarize_orders(&scores);
    let all = &summary.rows[0];
    assert_eq!(all.valid.unwrap().mean, 0.0);
    assert_eq!(all.accuracy.unwrap().mean, 0.0);
    assert_eq!(summary.invalid.values().sum::<usize>(), problems.len());
}
