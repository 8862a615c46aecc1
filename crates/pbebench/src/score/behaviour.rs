//! Grading an answer on behaviour (`docs/metrics.md#behaviour`): whether it is equivalent to the
//! gold over the instance's input space ([`crate::equiv::InputSpace::of`]), and its
//! changed agreement with the gold, both exact ([`crate::equiv`]).
//!
//! * **recovered** = equivalent(gold, answer): the answer gives the gold's output on
//!   every string of the space.
//! * **behaviour** = changed_agreement(gold, answer) = P(answer(s) = gold(s) | gold(s) ≠
//!   s) for s drawn as the generator draws inputs (length uniform over the range, letters
//!   i.i.d. uniform over the alphabet). The identity, and any answer that leaves alone
//!   every string the gold changes, scores 0; the gold scores 1.
//!
//! The gold is prepared once per instance ([`Grader`]) and each distinct answer (identity
//! rules aside) is compared once, however many samples give it.
//!
//! Neither figure exists for an instance without a gold cascade (real word lists): both
//! are `None`. A comparison that runs into a bound of [`Limits::default`] is *undecided*:
//! `recovered` and `behaviour` are `None` and [`Grade::undecided`] says which bound,
//! except that a counterexample found before the bound proves `recovered = false`.
//! Behaviour is also `None` when the gold changes no string of the space.

use crate::equiv::{verdict, InputSpace, Limits, Output, Reference};
use crate::instance::Instance;
use crate::rule::Cascade;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// An input on which an answer and the gold differ, with both outputs: a shortest one,
/// the first of its length in the alphabet's order. What a grade and a score line keep of
/// the comparison's [`crate::equiv::Counterexample`] (whose outputs may be too long).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldCounterexample {
    /// The input.
    pub input: String,
    /// The gold's output; `None` when a string on the way is longer than the bound.
    pub gold: Option<String>,
    /// The answer's output; `None` when a string on the way is longer than the bound.
    pub answer: Option<String>,
}

impl GoldCounterexample {
    fn of(found: &crate::equiv::Counterexample) -> Self {
        let text = |o: &Output| o.text().map(str::to_owned);
        GoldCounterexample {
            input: found.input.clone(),
            gold: text(&found.reference),
            answer: text(&found.answer),
        }
    }
}

/// The behaviour grade of one answer (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grade {
    /// Equivalent to the gold over the input space; `None` when undecided.
    pub recovered: Option<bool>,
    /// Changed agreement with the gold; `None` when undecided or the gold changes nothing.
    pub behaviour: Option<f64>,
    /// A shortest input on which the answer and the gold differ, when they differ.
    pub counterexample: Option<GoldCounterexample>,
    /// Why the comparison could not be completed (a bound, or no input space).
    pub undecided: Option<String>,
}

/// An instance's gold cascade prepared for grading many answers.
pub struct Grader {
    reference: Result<Reference, String>,
    graded: FxHashMap<Cascade, Grade>,
}

impl Grader {
    /// The grader of `instance`; `None` without a gold cascade.
    pub fn new(instance: &Instance) -> Option<Self> {
        let gold = instance.cascade.as_ref()?;
        let reference = InputSpace::of(instance)
            .map(|space| Reference::new(gold, &space, &Limits::default()))
            .map_err(|e| format!("no input space: {e}"));
        Some(Grader {
            reference,
            graded: FxHashMap::default(),
        })
    }

    /// The grade of `answer` (compared once per distinct cascade, identity rules aside).
    pub fn grade(&mut self, answer: &Cascade) -> Grade {
        let key: Cascade = answer
            .rules()
            .iter()
            .filter(|r| !r.is_identity())
            .cloned()
            .collect();
        if let Some(grade) = self.graded.get(&key) {
            return grade.clone();
        }
        let grade = match &mut self.reference {
            Err(why) => Grade {
                undecided: Some(why.clone()),
                ..Grade::default()
            },
            Ok(reference) => {
                let result = reference.compare(&key);
                let (recovered, behaviour) = verdict(&result);
                let found = match &result {
                    Ok(c) => c.counterexample.as_ref(),
                    Err(u) => u.counterexample.as_ref(),
                };
                Grade {
                    recovered,
                    behaviour,
                    counterexample: found.map(GoldCounterexample::of),
                    undecided: result.err().map(|u| u.limit.to_string()),
                }
            }
        };
        self.graded.insert(key, grade.clone());
        grade
    }
}

/// The behavioural reward for RL: for each response, the `behaviour` that scoring gives
/// it ([`super::SampleScore::behaviour`]: the changed agreement with the gold of the
/// cascade in its last code block, read under the instance's limits), in order. Responses
/// that give one cascade (identity rules aside) are compared once. An element is `None`
/// when the comparison is undecided ([`Grade::undecided`]) or the gold changes no input
/// of the space; the whole is `None` without a gold cascade.
pub fn behaviour_rewards<S: AsRef<str>>(
    instance: &Instance,
    responses: &[S],
) -> Option<Vec<Option<f64>>> {
    let mut grader = Grader::new(instance)?;
    let limits = crate::response::RuleLimits::of(instance);
    let options = super::ScoreOptions {
        block: crate::response::BlockChoice::Last,
        skip_behaviour: false,
    };
    let rewards = responses
        .iter()
        .map(|r| {
            let reading = super::ResponseReading::under(&limits, r.as_ref(), &options);
            grader.grade(&reading.cascade()).behaviour
        })
        .collect();
    Some(rewards)
}
