//! Property tests of the metrics and of scoring: the gold cascade in every accepted response
//! format passes, other fitting cascades pass, the identity scores Edit_Sim 0, and the
//! estimators agree with their closed forms and with brute force.

use pbebench::metrics;
use pbebench::pylit::{repr, repr_double};
use pbebench::relations::RelationMode;
use pbebench::BlockChoice;
use pbebench::{reward, score_instance, ScoreOptions};
use pbebench::{Cascade, Instance, Rule};
use proptest::prelude::*;

const LETTERS: &str = "abcdq'\\\"";

/// A short string over a few letters, including a quote and a backslash so that every
/// rendering must escape properly.
fn word(min: usize, max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(LETTERS.chars().collect::<Vec<_>>()),
        min..=max,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

fn instance_strategy() -> impl Strategy<Value = Instance> {
    (
        proptest::collection::vec((word(1, 3), word(0, 3)), 1..6),
        proptest::collection::vec(word(0, 8), 1..8),
    )
        .prop_map(|(rules, inputs)| {
            let cascade = Cascade::new(
                rules
                    .into_iter()
                    .map(|(a, b)| Rule::new(a, b).expect("non-empty pattern"))
                    .collect(),
            );
            let outputs = cascade.apply_all(&inputs);
            Instance {
                id: "p".into(),
                cascade_len: cascade.len(),
                max_rules: cascade.len() + 1,
                cascade: Some(cascade),
                category: None,
                relations_mode: RelationMode::default(),
                max_rule_len: 3,
                alphabet: format!("{LETTERS}z"),
                inputs,
                outputs,
                heldout_inputs: Vec::new(),
                heldout_outputs: Vec::new(),
                interactions: Vec::new(),
                symbols: Default::default(),
            }
        })
}

/// The cascade's code in every accepted spelling.
fn renderings(cascade: &Cascade) -> Vec<String> {
    let rules = cascade.rules();
    let call = |r: &Rule| format!("replace({}, {})", repr(r.pattern()), repr(r.replacement()));
    let join =
        |f: &dyn Fn(&Rule) -> String, sep: &str| rules.iter().map(f).collect::<Vec<_>>().join(sep);
    vec![
        format!("[{}]", join(&|r| repr_double(&call(r)), ", ")),
        format!("[{}]", join(&|r| repr(&call(r)), ",\n ")),
        format!("[{}]", join(&|r| call(r), ", ")),
        format!(
            "[{}]",
            join(
                &|r| format!("({}, {})", repr(r.pattern()), repr(r.replacement())),
                ", "
            )
        ),
        format!(
            "rules = [{}]\nfor a, b in rules:\n    s = s.replace(a, b)",
            join(
                &|r| format!(
                    "[{}, {}]",
                    repr_double(r.pattern()),
                    repr_double(r.replacement())
                ),
                ", "
            )
        ),
        join(&|r| format!("s = s.{}", call(r)), "\n"),
        format!(
            "def apply(s):\n    return s{}\n",
            join(&|r| format!(".{}", call(r)), "")
        ),
    ]
}

fn wrappers(code: &str) -> Vec<(String, BlockChoice)> {
    vec![
        (format!("```python\n{code}\n```"), BlockChoice::Last),
        (
            format!("Answer:\n```py\n{code}\n```\nDone."),
            BlockChoice::First,
        ),
        (format!("```\n{code}\n```"), BlockChoice::Last),
        (
            format!("<think>```python\n[]\n```</think>\n```python\n{code}\n```"),
            BlockChoice::First,
        ),
        (
            format!("draft\n```python\nprint('hi')\n```\nfinal\n```python\n{code}\n```"),
            BlockChoice::Last,
        ),
        (
            format!("thinking with a ``` fence</think>```Python {code}```"),
            BlockChoice::First,
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn gold_in_every_format_passes(inst in instance_strategy()) {
        let gold = inst.cascade.clone().unwrap();
        for code in renderings(&gold) {
            for (response, block) in wrappers(&code) {
                let s = score_instance(&inst, std::slice::from_ref(&response), &ScoreOptions { block, ..ScoreOptions::default() });
                prop_assert!(s.pass, "{response}");
                prop_assert_eq!(s.cascade.clone(), gold.clone(), "{}", response);
                prop_assert_eq!(s.edit_sim, 1.0);
                prop_assert_eq!(s.score, 1.0);
                prop_assert!(s.samples[0].valid);
                prop_assert_eq!(reward(&inst, &response), 1.0);
            }
        }
    }

    #[test]
    fn another_fitting_cascade_passes(inst in instance_strategy()) {
        // 'z' occurs nowhere, so a rule on it changes nothing.
        let mut rules = inst.cascade.clone().unwrap().rules().to_vec();
        rules.insert(0, Rule::new("z", "a").unwrap());
        let other = Cascade::new(rules);
        let code = renderings(&other).swap_remove(0);
        let s = score_instance(&inst, &[format!("```python\n{code}\n```")], &ScoreOptions::default());
        prop_assert!(s.pass);
        prop_assert_eq!(s.cascade.len(), inst.cascade_len + 1);
    }

    #[test]
    fn identity_scores_edit_sim_zero(inst in instance_strategy()) {
        let degenerate = inst.inputs == inst.outputs;
        for response in ["", "```python\n[]\n```", "no code", "<think>unfinished"] {
            let s = score_instance(&inst, &[response], &ScoreOptions::default());
            prop_assert_eq!(s.edit_sim, if degenerate { 1.0 } else { 0.0 });
            prop_assert_eq!(s.edit_sim_word, if degenerate { 1.0 } else { 0.0 });
            prop_assert_eq!(s.pass, degenerate);
        }
    }

    #[test]
    fn word_edit_sim_counts_wrong_examples(inst in instance_strategy(), flips in proptest::collection::vec(any::<bool>(), 8)) {
        // No whitespace in these strings: word Edit_Sim = 1 − #wrong / #changed.
        let predicted: Vec<String> = inst.outputs.iter().zip(&flips).map(|(o, f)| if *f { format!("{o}z") } else { o.clone() }).collect();
        let changed = inst.inputs.iter().zip(&inst.outputs).filter(|(i, o)| i != o).count();
        let wrong = flips.iter().take(inst.outputs.len()).filter(|f| **f).count();
        let sim = metrics::edit_sim_word(&inst.inputs, &inst.outputs, &predicted);
        if changed > 0 {
            prop_assert!((sim - (1.0 - wrong as f64 / changed as f64)).abs() < 1e-12);
        }
    }

    #[test]
    fn pass_at_k_matches_closed_form(n in 1usize..60, c_frac in 0.0f64..=1.0, k_frac in 0.0f64..=1.0) {
        let c = ((n as f64) * c_frac) as usize;
        let k = 1 + ((n - 1) as f64 * k_frac) as usize;
        let exact = 1.0 - binomial(n - c, k) as f64 / binomial(n, k) as f64;
        let got = metrics::pass_at_k(n, c, k).unwrap();
        prop_assert!((got - exact).abs() < 1e-9, "n={} c={} k={}: {} vs {}", n, c, k, got, exact);
        let flags: Vec<f64> = (0..n).map(|i| if i < c { 1.0 } else { 0.0 }).collect();
        prop_assert!((metrics::best_of_k_average(&flags, k).unwrap() - exact).abs() < 1e-9);
    }

    #[test]
    fn k_fold_matches_brute_force(values in proptest::collection::vec(-2.0f64..1.0, 1..11), k_frac in 0.0f64..=1.0) {
        let n = values.len();
        let k = 1 + ((n - 1) as f64 * k_frac) as usize;
        let (mut total, mut count) = (0.0, 0u32);
        for mask in 0u32..(1 << n) {
            if mask.count_ones() as usize == k {
                let best = (0..n).filter(|i| mask & (1 << i) != 0).map(|i| values[i]).fold(f64::NEG_INFINITY, f64::max);
                total += best;
                count += 1;
            }
        }
        let brute = total / f64::from(count);
        prop_assert!((metrics::best_of_k_average(&values, k).unwrap() - brute).abs() < 1e-9);
    }

    #[test]
    fn edit_sim_is_at_most_one_and_one_only_when_passing(inst in instance_strategy(), noise in word(0, 3)) {
        let predicted: Vec<String> = inst.outputs.iter().map(|o| format!("{o}{noise}")).collect();
        let sim = metrics::edit_sim(&inst.inputs, &inst.outputs, &predicted);
        prop_assert!(sim <= 1.0);
        if inst.inputs != inst.outputs {
            prop_assert_eq!(sim == 1.0, metrics::passes(&inst.outputs, &predicted));
        }
    }
}

fn binomial(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc * (n - i) as u128 / (i + 1) as u128)
}

#[test]
fn levenshtein_matches_brute_force_recursion() {
    fn slow(a: &[u8], b: &[u8]) -> usize {
        match (a, b) {
            ([], _) => b.len(),
            (_, []) => a.len(),
            ([x, ra @ ..], [y, rb @ ..]) => {
                if x == y {
                    slow(ra, rb)
                } else {
                    1 + slow(ra, b).min(slow(a, rb)).min(slow(ra, rb))
                }
            }
        }
    }
    let words = [
        "", "a", "ab", "ba", "abc", "cab", "aabb", "abab", "bbbb", "xaby",
    ];
    for a in words {
        for b in words {
            assert_eq!(
                metrics::char_distance(a, b),
                slow(a.as_bytes(), b.as_bytes()),
                "{a} {b}"
            );
        }
    }
}
