//! Scoring responses against a dataset (`docs/metrics.md`): the figures of one response
//! ([`SampleScore`]), of an instance over its K samples ([`InstanceScore`]: the
//! sampling-budget choice and its held-out behaviour), the aggregates overall, by cascade
//! length and by category ([`Summary`], whose table is a `Display`), and a cheap scalar
//! reward for RL ([`reward`], [`Rewarder`]).
//!
//! One instance: [`score_instance`]; a dataset: [`score_dataset`] on responses read by
//! [`crate::read_responses`], or [`score_responses`] straight from the file (each response
//! read as soon as its line is, its text dropped).
//!
//! Every answer to an instance with a gold cascade is also graded on behaviour
//! ([`Grader`]): `recovered` (equivalent to the gold over the instance's input space) and
//! `behaviour` (its changed agreement with the gold), exactly, with one prepared gold per
//! instance for all its samples. [`ScoreOptions::skip_behaviour`] leaves them out.
//!
//! Adding a figure (say `recovered` per sample and Recovered@1): the per-sample value is a
//! field of [`SampleScore`] set in `Gold::score_all`; its aggregate a field of
//! [`Aggregate`] set in `summary::aggregate`; its column one entry of [`COLUMNS`]. Every
//! table (`score`, `eval`, the report's leaderboard) and both results files
//! (`results.json`, the per-instance lines) then carry it, with no other edit.

mod behaviour;
mod reward;
mod summary;

pub use behaviour::{behaviour_rewards, GoldCounterexample, Grade, Grader};
pub use reward::{reward, PreparedInstance, RewardScratch, Rewarder};
pub use summary::{
    figure, summarize, Aggregate, Column, PerInstance, Summary, BEST_OF_K_VETTED, COLUMNS,
};

use crate::equiv;
use crate::instance::Instance;
use crate::metrics;
use crate::relations::Category;
use crate::response::{read_answer, Answer, BlockChoice, CascadeSides, RuleLimits};
use crate::responses::{read_responses_with, Responses, ResponsesError};
use crate::rule::{replace_into, Cascade, Rule};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How responses are read and scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreOptions {
    /// Which fenced code block holds the answer.
    pub block: BlockChoice,
    /// Leave out the behaviour grading (`recovered`, `behaviour`: `None` everywhere), for
    /// speed when only the fit to the examples matters.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_behaviour: bool,
}

/// The score of one response (one sample).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleScore {
    /// An answer was read (a code block with rules, outside thinking).
    pub parsed: bool,
    /// The response is entirely valid: parsed, every rule valid, none dropped.
    pub valid: bool,
    /// Rules read, within `max_rules`.
    pub rules: usize,
    /// Of those, the rules that meet every constraint.
    pub valid_rules: usize,
    /// Rules past `max_rules`, ignored.
    pub dropped_rules: usize,
    /// Every example reproduced.
    pub pass: bool,
    /// Character Edit_Sim ([`metrics::edit_sim`]).
    pub edit_sim: f64,
    /// Released word Edit_Sim ([`metrics::edit_sim_word`]).
    pub edit_sim_word: f64,
    /// Examples reproduced exactly.
    pub reproduced: usize,
    /// Vetted fractional score ([`metrics::fractional_score`]): the share of the examples
    /// the gold changes that are reproduced.
    pub score: f64,
    /// Equivalent to the gold over the instance's input space ([`Grade::recovered`]);
    /// `None` without a gold cascade, when undecided, or when behaviour is not graded.
    #[serde(default)]
    pub recovered: Option<bool>,
    /// Changed agreement with the gold ([`Grade::behaviour`]); `None` as `recovered`, and
    /// when the gold changes no input of the space.
    #[serde(default)]
    pub behaviour: Option<f64>,
    /// For a passing answer that is not recovered: a shortest input on which it and the
    /// gold differ, with both outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<GoldCounterexample>,
    /// Why the behaviour comparison could not be completed (a bound of the exact
    /// comparison, or no input space); `None` when it was, or was not attempted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
    /// Visible examples on which a string of the answer ran past the instance's length
    /// bound ([`equiv::length_bound`]): not reproduced, at the bound's distance. This is
    /// why an answer whose outputs grow without bound fails; absent (0) otherwise.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub over_bound: usize,
}

/// For serde: a zero count is left out.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The score of one instance over its samples: the chosen sample's figures plus the
/// per-sample detail (for pass@k, calibration, per-attempt regressions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceScore {
    /// The instance's id.
    pub id: String,
    /// Length of the gold cascade (0 without one).
    pub cascade_len: usize,
    /// Category of the gold cascade.
    pub category: Option<Category>,
    /// Number of visible examples.
    pub examples: usize,
    /// No response was given: scored as one empty response (the identity), which is the
    /// one entry of `samples`.
    pub missing: bool,
    /// Every output equals its input, so Edit_Sim is degenerate ([`metrics::edit_sim_ratio`]).
    pub degenerate: bool,
    /// Per-sample scores, in sample order.
    pub samples: Vec<SampleScore>,
    /// Index of the chosen sample ([`metrics::best_of_k`]); `None` when missing.
    pub chosen: Option<usize>,
    /// The chosen cascade passes (what best-of-K averages: the paper's "Pass@1 with
    /// sampling budget K").
    pub pass: bool,
    /// The chosen sample's Edit_Sim.
    pub edit_sim: f64,
    /// The chosen sample's word Edit_Sim.
    pub edit_sim_word: f64,
    /// Vetted fractional score of the chosen sample ([`metrics::fractional_score`]).
    pub score: f64,
    /// The chosen cascade reproduces every held-out example; `None` without held-out ones.
    pub heldout_pass: Option<bool>,
    /// The instance has a gold cascade and its samples were graded on behaviour.
    #[serde(default)]
    pub graded: bool,
    /// The chosen sample is recovered ([`SampleScore::recovered`]).
    #[serde(default)]
    pub recovered: Option<bool>,
    /// The chosen sample's behaviour ([`SampleScore::behaviour`]).
    #[serde(default)]
    pub behaviour: Option<f64>,
    /// Valid rules of the chosen response (Valid_Rate numerator).
    pub valid_rules: usize,
    /// Rules of the chosen response within `max_rules` (Valid_Rate denominator).
    pub rules: usize,
    /// The chosen cascade (its valid rules).
    pub cascade: Cascade,
}

impl InstanceScore {
    /// Number of passing samples (`c` of pass@k).
    pub fn passing_samples(&self) -> usize {
        self.samples.iter().filter(|s| s.pass).count()
    }

    /// Samples whose behaviour comparison was decided (`n` of recovered pass@k).
    pub fn decided_samples(&self) -> usize {
        self.samples
            .iter()
            .filter(|s| s.recovered.is_some())
            .count()
    }

    /// Samples recovered (`c` of recovered pass@k).
    pub fn recovered_samples(&self) -> usize {
        self.samples
            .iter()
            .filter(|s| s.recovered == Some(true))
            .count()
    }
}

/// Precomputed per-instance data shared by all its samples.
struct Gold<'a> {
    instance: &'a Instance,
    limits: RuleLimits,
    char_dist: usize,
    word_dist: usize,
    /// Which visible examples the gold changes (`input ≠ output`).
    changed: Vec<bool>,
    /// The gold prepared for behaviour grading; `None` without a gold or when skipped.
    grader: Option<Grader>,
    /// The longest string (in characters) an answer may write on the way
    /// ([`equiv::length_bound`]).
    bound: usize,
}

impl<'a> Gold<'a> {
    fn new(instance: &'a Instance, options: &ScoreOptions) -> Self {
        Gold {
            instance,
            limits: RuleLimits::of(instance),
            char_dist: metrics::total_char_distance(&instance.inputs, &instance.outputs),
            word_dist: metrics::total_word_distance(&instance.inputs, &instance.outputs),
            changed: (instance.inputs.iter().zip(&instance.outputs))
                .map(|(i, o)| i != o)
                .collect(),
            grader: (!options.skip_behaviour)
                .then(|| Grader::new(instance))
                .flatten(),
            bound: equiv::length_bound(instance),
        }
    }

    /// The figures of predicted outputs for the visible examples, in one pass over them:
    /// what [`metrics::passes`], [`metrics::total_char_distance`],
    /// [`metrics::total_word_distance`], [`metrics::examples_reproduced`] and
    /// [`metrics::fractional_score`] give (an example reproduced is at distance 0).
    ///
    /// A prediction `None` is one the answer could not write within the length bound
    /// ([`equiv::length_bound`]: some string on the way was longer): the example is not
    /// reproduced, at a character distance of the bound (more than any distance between
    /// two strings within a sixteenth of it, as the instance's are) and a word distance
    /// of 1.
    fn evaluate<'s>(
        &self,
        predicted: impl ExactSizeIterator<Item = Option<&'s str>>,
    ) -> Evaluation {
        let outputs = &self.instance.outputs;
        let predicted_len = predicted.len();
        let (mut reproduced, mut changed_reproduced, mut char_dist, mut word_dist) = (0, 0, 0, 0);
        let mut over_bound = 0;
        for ((output, p), changed) in outputs.iter().zip(predicted).zip(&self.changed) {
            let Some(p) = p else {
                char_dist += self.bound;
                word_dist += 1;
                over_bound += 1;
                continue;
            };
            if p == output {
                reproduced += 1;
                changed_reproduced += usize::from(*changed);
            } else {
                char_dist += metrics::char_distance(p, output);
                word_dist += metrics::word_distance(p, output);
            }
        }
        let pass = outputs.len() == predicted_len && reproduced == outputs.len();
        Evaluation {
            pass,
            edit_sim: metrics::edit_sim_ratio(char_dist, self.char_dist),
            edit_sim_word: metrics::edit_sim_ratio(word_dist, self.word_dist),
            reproduced,
            score: metrics::fractional_ratio(
                changed_reproduced,
                self.changed.iter().filter(|c| **c).count(),
                reproduced == outputs.len() && !outputs.is_empty(),
            ),
            over_bound,
        }
    }

    /// Evaluates cascades on the visible examples, sharing work between cascades that
    /// start with the same rules (samples of one instance often repeat a cascade, or
    /// differ only late): taken in sorted order, each cascade resumes from the state after
    /// its longest common prefix with the previous one, and a repeated cascade reuses its
    /// evaluation. The order only decides what is shared, never a result. A rule changes
    /// few strings, so states share the unchanged ones, and strings lacking one of the
    /// pattern's bytes are not searched.
    fn evaluate_all(&self, readings: &[ResponseReading]) -> Vec<Evaluation> {
        // Equal rules get equal numbers: cascades sort and compare as lists of numbers.
        let mut numbers: FxHashMap<(&str, &str), u32> = FxHashMap::default();
        let cascades: Vec<Vec<u32>> = readings
            .iter()
            .map(|r| {
                r.rules()
                    .map(|rule| {
                        let next = numbers.len() as u32;
                        *numbers.entry(rule).or_insert(next)
                    })
                    .collect()
            })
            .collect();
        let mut order: Vec<usize> = (0..cascades.len()).collect();
        order.sort_unstable_by(|&a, &b| cascades[a].cmp(&cascades[b]));
        // The states, one after the other: `n` spans of `texts` each, the inputs first.
        let n = self.instance.inputs.len();
        let mut texts = String::new();
        let mut states: Vec<Span> = Vec::with_capacity(n * 8);
        for input in &self.instance.inputs {
            states.push(Span::push(&mut texts, input));
        }
        let mut scratch = String::new();
        let mut previous: Option<(&[u32], Evaluation)> = None;
        let mut evaluations = vec![None; cascades.len()];
        for k in order {
            let numbers = &cascades[k][..];
            let before = previous.map_or(&[][..], |(numbers, _)| numbers);
            if let Some((_, e)) = previous.filter(|_| before == numbers) {
                evaluations[k] = Some(e);
                continue;
            }
            let common = numbers
                .iter()
                .zip(before)
                .take_while(|(a, b)| a == b)
                .count();
            states.truncate((common + 1) * n);
            for (pattern, replacement) in readings[k].rules().skip(common) {
                let needs = byte_set(pattern);
                states.reserve(n);
                let last = states.len() - n;
                for i in last..last + n {
                    let span = states[i];
                    // What `Rule::apply_into` answers: the pattern occurs and changes it.
                    let fires = !span.over
                        && needs & !span.bytes == 0
                        && replace_into(span.text(&texts), pattern, replacement, &mut scratch)
                        && pattern != replacement;
                    states.push(if !fires {
                        span
                    } else if too_long(&scratch, self.bound) {
                        Span::OVER
                    } else {
                        Span::push(&mut texts, &scratch)
                    });
                }
            }
            let last = &states[states.len() - n..];
            let e = self.evaluate(
                last.iter()
                    .map(|span| (!span.over).then(|| span.text(&texts))),
            );
            evaluations[k] = Some(e);
            previous = Some((numbers, e));
        }
        evaluations
            .into_iter()
            .map(|e| e.expect("every cascade is evaluated"))
            .collect()
    }

    /// Scores the read responses of one instance (at least one): their cascades are
    /// evaluated together, and graded on behaviour by the one prepared gold.
    fn score_all(&mut self, parsed: &[ResponseReading]) -> Vec<SampleScore> {
        let evaluations = self.evaluate_all(parsed);
        parsed
            .iter()
            .zip(evaluations)
            .map(|(p, e)| {
                let grade = self
                    .grader
                    .as_mut()
                    .map(|g| g.grade(&p.cascade()))
                    .unwrap_or_default();
                (p, e, grade)
            })
            .map(|(p, e, grade)| SampleScore {
                parsed: p.parsed,
                valid: p.valid,
                rules: p.rules,
                valid_rules: p.valid_rules,
                dropped_rules: p.dropped_rules,
                pass: e.pass,
                edit_sim: e.edit_sim,
                edit_sim_word: e.edit_sim_word,
                reproduced: e.reproduced,
                score: e.score,
                recovered: grade.recovered,
                behaviour: grade.behaviour,
                counterexample: grade
                    .counterexample
                    .filter(|_| e.pass && grade.recovered == Some(false)),
                undecided: grade.undecided,
                over_bound: e.over_bound,
            })
            .collect()
    }
}

/// A response as scoring reads it, without its text: the counts of its
/// [`crate::response::ParsedResponse`] and its cascade. The [`Default`] is what an empty
/// response reads as (no code block).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResponseReading {
    parsed: bool,
    valid: bool,
    rules: usize,
    valid_rules: usize,
    dropped_rules: usize,
    /// The cascade: two allocations per response rather than two per rule.
    cascade: CascadeSides,
}

impl ResponseReading {
    /// Parses `response` under `instance`'s limits and keeps what scoring needs.
    pub fn new(instance: &Instance, response: &str, options: &ScoreOptions) -> Self {
        Self::under(&RuleLimits::of(instance), response, options)
    }

    fn under(limits: &RuleLimits, response: &str, options: &ScoreOptions) -> Self {
        read_answer(response, limits, options.block, Self::of)
    }

    fn of(answer: Answer<'_>) -> Self {
        let mut reading = ResponseReading {
            parsed: answer.status == crate::response::ResponseStatus::Parsed,
            valid: answer.is_valid(),
            rules: answer.rules.len(),
            valid_rules: answer
                .rules
                .iter()
                .filter(|r| r.problems.is_empty())
                .count(),
            dropped_rules: answer.dropped_rules,
            cascade: CascadeSides::default(),
        };
        // The valid rules, as `ParsedResponse::cascade` keeps them (a rule needs a pattern).
        for (a, b) in answer.rules.iter().filter_map(|r| r.valid_sides()) {
            if !a.is_empty() {
                reading.cascade.push(a, b);
            }
        }
        reading
    }

    /// The rules of the cascade, as (pattern, replacement).
    fn rules(&self) -> impl Iterator<Item = (&str, &str)> {
        self.cascade.rules()
    }

    /// The cascade the response stands for ([`crate::response::ParsedResponse::cascade`]).
    pub fn cascade(&self) -> Cascade {
        self.rules()
            .filter_map(|(a, b)| Rule::new(a, b).ok())
            .collect()
    }
}

/// A string of a state, kept in the text all states share, with the set of its bytes
/// (modulo 64): a rule whose pattern has a byte outside the set cannot fire on it.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    bytes: u64,
    /// The string passed the length bound: no text, and no rule applies to it.
    over: bool,
}

/// Whether `s` has more than `bound` characters (counted only when its bytes are more).
fn too_long(s: &str, bound: usize) -> bool {
    s.len() > bound && s.chars().count() > bound
}

impl Span {
    /// A string past the length bound.
    const OVER: Span = Span {
        start: 0,
        end: 0,
        bytes: 0,
        over: true,
    };

    /// Appends `s` to `texts`.
    fn push(texts: &mut String, s: &str) -> Self {
        let start = texts.len();
        texts.push_str(s);
        Span {
            start,
            end: texts.len(),
            bytes: byte_set(s),
            over: false,
        }
    }

    fn text<'t>(&self, texts: &'t str) -> &'t str {
        &texts[self.start..self.end]
    }
}

/// The bytes of `s`, each as bit `b mod 64` (a superset test, so the folding is safe).
pub(super) fn byte_set(s: &str) -> u64 {
    s.bytes().fold(0, |set, b| set | 1 << (b & 63))
}

/// The figures of one cascade on an instance's visible examples.
#[derive(Debug, Clone, Copy)]
struct Evaluation {
    pass: bool,
    edit_sim: f64,
    edit_sim_word: f64,
    reproduced: usize,
    score: f64,
    over_bound: usize,
}

/// Scores one instance against its K responses: each is parsed under the instance's
/// limits, the best sample is chosen (any passing one, else the highest Edit_Sim, earliest
/// on ties) and its held-out behaviour checked. With no responses the instance is scored
/// as one empty response and marked `missing`.
pub fn score_instance<S: AsRef<str>>(
    instance: &Instance,
    responses: &[S],
    options: &ScoreOptions,
) -> InstanceScore {
    let limits = RuleLimits::of(instance);
    let readings: Vec<ResponseReading> = responses
        .iter()
        .map(|r| ResponseReading::under(&limits, r.as_ref(), options))
        .collect();
    score_readings(instance, &readings, options)
}

/// [`score_instance`] on responses already read ([`ResponseReading`]).
pub fn score_readings(
    instance: &Instance,
    readings: &[ResponseReading],
    options: &ScoreOptions,
) -> InstanceScore {
    let mut gold = Gold::new(instance, options);
    let graded = gold.grader.is_some();
    let missing = readings.is_empty();
    let empty;
    let readings = if missing {
        empty = [ResponseReading::under(&gold.limits, "", options)];
        &empty[..]
    } else {
        readings
    };
    let samples = gold.score_all(readings);
    let best = metrics::best_of_k(samples.iter().map(|s| (s.pass, s.edit_sim))).unwrap_or(0);
    let chosen = &samples[best];
    let cascade = readings[best].cascade();
    let heldout_pass = (!instance.heldout_inputs.is_empty()).then(|| {
        reproduces_heldout(
            instance,
            &cascade,
            0..instance.heldout_inputs.len(),
            gold.bound,
        ) && instance.heldout_inputs.len() == instance.heldout_outputs.len()
    });
    InstanceScore {
        id: instance.id.clone(),
        cascade_len: instance.cascade_len,
        category: instance.category,
        examples: instance.outputs.len(),
        missing,
        degenerate: gold.char_dist == 0,
        chosen: (!missing).then_some(best),
        pass: chosen.pass,
        edit_sim: chosen.edit_sim,
        edit_sim_word: chosen.edit_sim_word,
        score: chosen.score,
        heldout_pass,
        graded,
        recovered: chosen.recovered,
        behaviour: chosen.behaviour,
        valid_rules: chosen.valid_rules,
        rules: chosen.rules,
        cascade,
        samples,
    }
}

/// Whether `cascade` reproduces the held-out examples of `instance` at `indices`, its
/// strings bounded by `bound` ([`equiv::length_bound`]): an answer whose strings pass the
/// bound on an example does not reproduce it. Static scoring checks every held-out example
/// with it, interactive grading ([`crate::probe::grade`]) the unprobed ones.
pub(crate) fn reproduces_heldout(
    instance: &Instance,
    cascade: &Cascade,
    indices: impl IntoIterator<Item = usize>,
    bound: usize,
) -> bool {
    indices.into_iter().all(|k| {
        let (input, output) = (&instance.heldout_inputs[k], instance.heldout_outputs.get(k));
        cascade
            .apply_bounded(input, bound)
            .is_ok_and(|p| Some(&p) == output)
    })
}

/// Reads a responses file and scores it against `dataset`: the scores of
/// [`score_dataset`] on [`crate::read_responses`], with the same input problems and
/// errors, but each line's responses are read ([`ResponseReading`]) as soon as the line
/// is, in parallel, and their text dropped, so memory does not grow with the responses'
/// length.
pub fn score_responses(
    path: impl AsRef<Path>,
    dataset: &[Instance],
    options: &ScoreOptions,
) -> Result<(Vec<InstanceScore>, Responses<ResponseReading>), ResponsesError> {
    let limits: Vec<RuleLimits> = dataset.iter().map(RuleLimits::of).collect();
    let responses = read_responses_with(path, dataset, |k, text| {
        ResponseReading::under(&limits[k], text, options)
    })?;
    let scores = score_each(dataset, &responses, |instance, given| {
        score_readings(instance, given, options)
    });
    Ok((scores, responses))
}

/// Scores every instance of `dataset` against `responses`, in parallel, in dataset order.
pub fn score_dataset(
    dataset: &[Instance],
    responses: &Responses,
    options: &ScoreOptions,
) -> Vec<InstanceScore> {
    score_each(dataset, responses, |instance, given| {
        score_instance(instance, given, options)
    })
}

/// `score(instance, its responses)` for each instance of `dataset`, in parallel, in the
/// dataset's order; an instance without responses gets an empty slice.
fn score_each<T: Sync>(
    dataset: &[Instance],
    responses: &Responses<T>,
    score: impl Fn(&Instance, &[T]) -> InstanceScore + Sync,
) -> Vec<InstanceScore> {
    dataset
        .par_iter()
        .map(|instance| {
            let given = responses
                .by_id
                .get(&instance.id)
                .map_or(&[][..], Vec::as_slice);
            score(instance, given)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod testing {
    //! The instance the scoring tests share.
    use crate::instance::Instance;
    use crate::relations::RelationMode;
    use crate::rule::{Cascade, Rule};

    /// Gold: ab→c then c→d. Inputs: "xab"→"xd", "cc"→"dd", "q"→"q" (unchanged).
    pub(crate) fn instance(id: &str) -> Instance {
        let cascade = Cascade::new(vec![
            Rule::new("ab", "c").unwrap(),
            Rule::new("c", "d").unwrap(),
        ]);
        Instance {
            id: id.into(),
            inputs: vec!["xab".into(), "cc".into(), "q".into()],
            outputs: vec!["xd".into(), "dd".into(), "q".into()],
            cascade: Some(cascade),
            cascade_len: 2,
            category: Some("1000".parse().unwrap()),
            relations_mode: RelationMode::default(),
            max_rules: 3,
            max_rule_len: 2,
            alphabet: "abcdqx".into(),
            heldout_inputs: vec!["abab".into()],
            heldout_outputs: vec!["dd".into()],
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// A response with `rules` in its one code block.
    pub(crate) fn block(rules: &str) -> String {
        format!("Here it is.\n```python\n{rules}\n```\n")
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{block, instance};
    use super::*;
    use crate::read_responses;
    use crate::results::Results;

    #[test]
    fn chooses_a_passing_sample_else_the_best_edit_sim() {
        let inst = instance("a");
        let responses = [
            block(r#"["replace('c', 'd')"]"#), // xab→xab, cc→dd: Σdist = 2 of 4 → 0.5
            block(r#"["replace('ab', 'c')", "replace('c', 'd')"]"#), // passes
            String::new(),
        ];
        let s = score_instance(&inst, &responses, &ScoreOptions::default());
        assert_eq!(s.chosen, Some(1));
        assert!(s.pass);
        assert_eq!(s.edit_sim, 1.0);
        assert_eq!(s.score, 1.0);
        assert_eq!(s.heldout_pass, Some(true));
        assert_eq!(s.passing_samples(), 1);
        assert_eq!(s.samples[0].edit_sim, 0.5);
        assert_eq!(s.samples[0].reproduced, 2);
        assert_eq!(s.samples[2].edit_sim, 0.0);
        assert!(!s.samples[2].parsed);

        let worse = [
            block(r#"["replace('q', 'x')"]"#), // q→x: Σdist = 4 + 1 → 1 − 5/4
            block(r#"["replace('c', 'd')"]"#),
        ];
        let s = score_instance(&inst, &worse, &ScoreOptions::default());
        assert_eq!(s.chosen, Some(1));
        assert!(!s.pass);
        assert_eq!(s.samples[0].edit_sim, -0.25);
        assert_eq!(s.edit_sim, 0.5);
        assert_eq!(s.heldout_pass, Some(false));
    }

    #[test]
    fn missing_responses_score_as_the_identity() {
        let inst = instance("a");
        let s = score_instance::<String>(&inst, &[], &ScoreOptions::default());
        assert!(s.missing && !s.pass);
        assert_eq!(s.chosen, None);
        assert_eq!(s.edit_sim, 0.0);
        assert_eq!(s.score, 0.0, "the unchanged example earns nothing");
        assert_eq!(s.samples.len(), 1);
    }

    #[test]
    fn scoring_a_file_is_reading_then_scoring_it() {
        let dataset = vec![instance("a"), instance("b"), instance("c"), instance("d")];
        let good = serde_json::to_string(&block(r#"["replace('ab', 'c')", "replace('c', 'd')"]"#));
        let near = serde_json::to_string(&block("[replace('ab', 'c')]")).unwrap();
        let good = good.unwrap();
        let lines = [
            format!(r#"{{"id": "a", "responses": [{near}, {good}, null, "no block"]}}"#),
            String::new(),
            format!(r#"{{"id": "zz", "response": {good}}}"#),
            format!(r#"{{"id": "b", "sample": 1, "response": {near}}}"#),
            format!(r#"{{"id": "b", "sample": 0, "response": {{"content": {good}}}}}"#),
            format!(r#"{{"id": "a", "response": {good}}}"#),
            format!(r#"{{"input": {{"index": 2}}, "outputs": [{near}, {near}]}}"#),
            format!(r#"{{"input": {{"index": "9_0"}}, "outputs": [{good}]}}"#),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("responses.jsonl");
        std::fs::write(&path, lines.join("\n")).unwrap();
        for block in [BlockChoice::First, BlockChoice::Last] {
            let options = ScoreOptions {
                block,
                ..ScoreOptions::default()
            };
            let read = read_responses(&path, &dataset).unwrap();
            let (scores, counted) = score_responses(&path, &dataset, &options).unwrap();
            assert_eq!(scores, score_dataset(&dataset, &read, &options));
            assert_eq!(
                Results::of(&scores, &counted, &options),
                Results::of(&scores, &read, &options)
            );
            assert_eq!((counted.unknown.len(), counted.duplicates.len()), (2, 1));
            assert!(scores[0].pass && !scores[2].pass && scores[3].missing);
        }
        std::fs::write(&path, format!("{}\n{{\"id\": 3", lines[0])).unwrap();
        let options = ScoreOptions::default();
        let fatal = score_responses(&path, &dataset, &options).unwrap_err();
        let expected = read_responses(&path, &dataset).unwrap_err();
        assert_eq!(fatal.to_string(), expected.to_string());
        assert!(fatal.to_string().contains(":2: malformed JSON"), "{fatal}");
    }
}
