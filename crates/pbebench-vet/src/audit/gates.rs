//! The deterministic gates: the gold cascade reproduces every example (visible and
//! held-out), and a dummy answer (an empty response, the identity cascade) solves nothing
//! and earns nothing: it does not pass, is not recovered, and earns 0 on the RL reward
//! (Edit_Sim), on behaviour, and on the vetted fractional score, hence on mean reward,
//! almost, resolved and the survival curve above 0. The fractional score counts only the
//! examples the gold changes ([`pbebench::metrics::fractional_score`]), so a dummy earns
//! more than 0 only on an instance whose gold changes no example, which the gate flags.

use super::Findings;
use pbebench::Instance;
use pbebench::{reward, score_instance, ScoreOptions};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The result of one gate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// No instance failed.
    pub passed: bool,
    /// Instances checked.
    pub checked: usize,
    /// Instances the gate does not apply to (e.g. no gold cascade).
    pub skipped: usize,
    /// Instances that failed.
    pub failures: Findings,
    /// Context for the reader.
    pub note: String,
}

/// Both gates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gates {
    /// The hidden cascade reproduces every visible and held-out output.
    pub gold: Gate,
    /// The identity cascade and an empty response solve nothing and earn zero reward.
    pub dummy: Gate,
    /// Mean fractional score of the identity: the vetted mean reward of doing nothing. 0
    /// by construction (the score counts only the examples the gold changes) unless some
    /// gold changes no example; kept as a figure so that a report shows it.
    pub identity_fractional_floor: f64,
}

/// The two dummy answers.
pub const DUMMIES: [(&str, &str); 2] = [
    ("an empty response", ""),
    ("the identity cascade", "```python\n[]\n```"),
];

/// Each instance's gold and dummy problems, in dataset order (`None`: sound), for the
/// per-instance flags.
pub(super) struct PerInstance {
    pub gold: Vec<Option<String>>,
    pub dummy: Vec<Option<String>>,
}

pub(super) fn run(dataset: &[Instance], shown: usize) -> (Gates, PerInstance) {
    let gold: Vec<(bool, Option<String>)> = dataset
        .par_iter()
        .map(|inst| (inst.cascade.is_some(), gold_problem(inst)))
        .collect();
    let mut gold_failures = Findings::default();
    for (inst, (_, problem)) in dataset.iter().zip(&gold) {
        if let Some(p) = problem {
            gold_failures.push(&inst.id, p.clone(), shown);
        }
    }
    let without_gold = gold.iter().filter(|(has, _)| !has).count();
    let heldout = dataset
        .iter()
        .filter(|i| !i.heldout_inputs.is_empty())
        .count();
    let gold_gate = Gate {
        passed: gold_failures.count == 0,
        checked: dataset.len() - without_gold,
        skipped: without_gold,
        failures: gold_failures,
        note: format!(
            "{heldout} of {} instances have held-out examples; instances without a gold \
             cascade are checked for structure only",
            dataset.len()
        ),
    };

    let dummy: Vec<(Option<String>, f64)> = dataset.par_iter().map(dummy_problem).collect();
    let mut dummy_failures = Findings::default();
    for (inst, (problem, _)) in dataset.iter().zip(&dummy) {
        if let Some(p) = problem {
            dummy_failures.push(&inst.id, p.clone(), shown);
        }
    }
    let floor = if dataset.is_empty() {
        0.0
    } else {
        dummy.iter().map(|(_, f)| f).sum::<f64>() / dataset.len() as f64
    };
    let gates = Gates {
        gold: gold_gate,
        dummy: Gate {
            passed: dummy_failures.count == 0,
            checked: dataset.len(),
            skipped: 0,
            failures: dummy_failures,
            note: "scored by the shared scoring path (pass, recovered, behaviour, the vetted \
                   fractional score) and its reward (Edit_Sim)"
                .to_owned(),
        },
        identity_fractional_floor: floor,
    };
    let per_instance = PerInstance {
        gold: gold.into_iter().map(|(_, p)| p).collect(),
        dummy: dummy.into_iter().map(|(p, _)| p).collect(),
    };
    (gates, per_instance)
}

/// Everything wrong with an instance's structure and gold cascade, joined; `None` if sound.
fn gold_problem(inst: &Instance) -> Option<String> {
    let mut problems = inst.problems();
    if let Some(c) = &inst.cascade {
        // `problems` stops at the first visible example; say how many fail in all.
        let wrong = inst
            .inputs
            .iter()
            .zip(&inst.outputs)
            .filter(|(i, o)| &c.apply(i) != *o)
            .count();
        if wrong > 1 {
            problems.push(format!("{wrong} visible examples are not reproduced"));
        }
        let wrong_heldout = inst
            .heldout_inputs
            .iter()
            .zip(&inst.heldout_outputs)
            .filter(|(i, o)| &c.apply(i) != *o)
            .count();
        if wrong_heldout > 0 {
            problems.push(format!(
                "{wrong_heldout} of {} held-out examples are not reproduced",
                inst.heldout_inputs.len()
            ));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// Why a dummy answer earns something on `inst` (if it does), and the identity's
/// fractional score.
fn dummy_problem(inst: &Instance) -> (Option<String>, f64) {
    let mut passing = Vec::new();
    let mut rewarded = Vec::new();
    let mut fractional = 0.0;
    for (what, text) in DUMMIES {
        let s = score_instance(inst, &[text], &ScoreOptions::default());
        fractional = s.score;
        if s.pass {
            passing.push(what);
        }
        let r = reward(inst, text);
        if r.abs() > 1e-12 {
            rewarded.push(format!("{what} earns reward {r:.3}"));
        }
        if s.score > 0.0 {
            rewarded.push(format!(
                "{what} earns the vetted fractional score {:.3}",
                s.score
            ));
        }
        if s.recovered == Some(true) {
            rewarded.push(format!("{what} is recovered (the gold changes no input)"));
        }
        if let Some(b) = s.behaviour.filter(|b| *b > 0.0) {
            rewarded.push(format!("{what} earns behaviour {b:.3}"));
        }
    }
    let mut problems = Vec::new();
    if !passing.is_empty() {
        problems.push(format!(
            "{} pass{} (every output equals its input)",
            passing.join(" and "),
            if passing.len() == 1 { "es" } else { "" }
        ));
    }
    problems.extend(rewarded);
    (
        (!problems.is_empty()).then(|| problems.join("; ")),
        fractional,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::{Cascade, Rule};

    fn instance(inputs: &[&str], gold: &[(&str, &str)]) -> Instance {
        let cascade: Cascade = gold
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect();
        Instance {
            id: "x".into(),
            outputs: inputs.iter().map(|i| cascade.apply(i)).collect(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            cascade_len: cascade.len(),
            cascade: Some(cascade),
            category: None,
            relations_mode: Default::default(),
            max_rules: 3,
            max_rule_len: 2,
            alphabet: "abc".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// Unchanged examples earn a dummy nothing; a gold that changes no example lets it
    /// earn the fractional score, and the gate says so.
    #[test]
    fn the_dummy_gate_fails_on_any_credit() {
        // "cc" is left alone by the gold: it used to give the identity 1/2.
        let (problem, floor) = dummy_problem(&instance(&["ab", "cc"], &[("a", "b")]));
        assert_eq!((problem, floor), (None, 0.0));
        let (problem, floor) = dummy_problem(&instance(&["bb", "cc"], &[("a", "b")]));
        let problem = problem.expect("the identity solves it");
        assert!(
            problem.contains("earns the vetted fractional score 1.000"),
            "{problem}"
        );
        assert_eq!(floor, 1.0);
    }
}
