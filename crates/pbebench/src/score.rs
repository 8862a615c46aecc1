//! Scoring responses against a dataset: per-sample and per-instance results, the
//! sampling-budget choice, and aggregates overall, by cascade length and by category.
//!
//! The library API other crates build on:
//! [`score_instance`] (one instance, its K responses), [`summarize`] (aggregates),
//! [`reward`] (a cheap scalar for RL), and for files [`read_responses`] +
//! [`score_dataset`] (parallel) + [`report`].

use crate::instance::Instance;
use crate::metrics;
use crate::relations::Category;
use crate::response::{read_answer, read_cascade, Answer, BlockChoice, CascadeSides, Limits};
use crate::rule::{replace_into, Cascade, Rule};
use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How responses are read and scored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreOptions {
    /// Which fenced code block holds the answer.
    pub block: BlockChoice,
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
    /// Vetted fractional score ([`metrics::fractional_score`]).
    pub score: f64,
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
    /// The chosen cascade passes (Pass@1 with budget K).
    pub pass: bool,
    /// The chosen sample's Edit_Sim.
    pub edit_sim: f64,
    /// The chosen sample's word Edit_Sim.
    pub edit_sim_word: f64,
    /// Vetted fractional score of the chosen sample ([`metrics::fractional_score`]).
    pub score: f64,
    /// The chosen cascade reproduces every held-out example; `None` without held-out ones.
    pub heldout_pass: Option<bool>,
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
}

/// Precomputed per-instance data shared by all its samples.
struct Gold<'a> {
    instance: &'a Instance,
    limits: Limits,
    char_dist: usize,
    word_dist: usize,
}

impl<'a> Gold<'a> {
    fn new(instance: &'a Instance) -> Self {
        Gold {
            instance,
            limits: Limits::of(instance),
            char_dist: metrics::total_char_distance(&instance.inputs, &instance.outputs),
            word_dist: metrics::total_word_distance(&instance.inputs, &instance.outputs),
        }
    }

    /// The figures of predicted outputs for the visible examples, in one pass over them:
    /// what [`metrics::passes`], [`metrics::total_char_distance`],
    /// [`metrics::total_word_distance`], [`metrics::examples_reproduced`] and
    /// [`metrics::fractional_score`] give (an example reproduced is at distance 0).
    fn evaluate<'s>(&self, predicted: impl ExactSizeIterator<Item = &'s str>) -> Evaluation {
        let outputs = &self.instance.outputs;
        let predicted_len = predicted.len();
        let (mut reproduced, mut char_dist, mut word_dist) = (0, 0, 0);
        for (output, p) in outputs.iter().zip(predicted) {
            if p == output {
                reproduced += 1;
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
            score: if outputs.is_empty() {
                0.0
            } else {
                reproduced as f64 / outputs.len() as f64
            },
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
                    let fires = needs & !span.bytes == 0
                        && replace_into(span.text(&texts), pattern, replacement, &mut scratch)
                        && pattern != replacement;
                    states.push(if fires {
                        Span::push(&mut texts, &scratch)
                    } else {
                        span
                    });
                }
            }
            let last = &states[states.len() - n..];
            let e = self.evaluate(last.iter().map(|span| span.text(&texts)));
            evaluations[k] = Some(e);
            previous = Some((numbers, e));
        }
        evaluations
            .into_iter()
            .map(|e| e.expect("every cascade is evaluated"))
            .collect()
    }

    /// Scores the read responses of one instance (at least one): their cascades are
    /// evaluated together.
    fn score_all(&self, parsed: &[ResponseReading]) -> Vec<SampleScore> {
        let evaluations = self.evaluate_all(parsed);
        parsed
            .iter()
            .zip(evaluations)
            .map(|(p, e)| SampleScore {
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
        Self::under(&Limits::of(instance), response, options)
    }

    fn under(limits: &Limits, response: &str, options: &ScoreOptions) -> Self {
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
}

impl Span {
    /// Appends `s` to `texts`.
    fn push(texts: &mut String, s: &str) -> Self {
        let start = texts.len();
        texts.push_str(s);
        Span {
            start,
            end: texts.len(),
            bytes: byte_set(s),
        }
    }

    fn text<'t>(&self, texts: &'t str) -> &'t str {
        &texts[self.start..self.end]
    }
}

/// The bytes of `s`, each as bit `b mod 64` (a superset test, so the folding is safe).
fn byte_set(s: &str) -> u64 {
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
    let limits = Limits::of(instance);
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
    let gold = Gold::new(instance);
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
    let heldout_pass = (!instance.heldout_inputs.is_empty())
        .then(|| cascade.reproduces(&instance.heldout_inputs, &instance.heldout_outputs));
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
        valid_rules: chosen.valid_rules,
        rules: chosen.rules,
        cascade,
        samples,
    }
}

/// A cheap scalar reward for RL: the character Edit_Sim of the response's cascade (last
/// code block, the instance's limits). 1 when every example is reproduced, 0 for the
/// identity, an empty or unparsable response, negative when worse than doing nothing;
/// unlike the fractional score it gives no credit for examples the gold leaves unchanged.
pub fn reward(instance: &Instance, response: &str) -> f64 {
    Rewarder::new(instance).reward(response)
}

/// [`reward`] for many responses to one instance: what depends only on the instance (its
/// limits, the gold distance `Σ dist(input, output)`) is computed once.
#[derive(Debug, Clone)]
pub struct Rewarder<'a> {
    instance: Cow<'a, PreparedInstance>,
}

impl<'a> Rewarder<'a> {
    /// The per-instance part of [`reward`].
    pub fn new(instance: &'a Instance) -> Self {
        Rewarder {
            instance: Cow::Owned(PreparedInstance::of(instance)),
        }
    }

    /// The same value as [`reward`]`(instance, response)`.
    pub fn reward(&self, response: &str) -> f64 {
        let mut buffers = Buffers::default();
        read_cascade(
            response,
            &self.instance.limits,
            BlockChoice::Last,
            &mut buffers.cascade,
        );
        self.reward_of(&mut buffers)
    }

    /// [`Rewarder::reward`] of each response, in order. A cascade that several responses
    /// give is applied once: samples of one prompt often agree.
    pub fn rewards<S: AsRef<str>>(&self, responses: &[S]) -> Vec<f64> {
        let mut rewards = Vec::with_capacity(responses.len());
        let responses = responses.iter().map(AsRef::as_ref);
        self.rewards_into(responses, &mut RewardScratch::default(), &mut rewards);
        rewards
    }

    /// [`Rewarder::rewards`] appended to `rewards`, in memory kept in `scratch` from call
    /// to call (for batches split in many small calls).
    pub fn rewards_into<'r>(
        &self,
        responses: impl IntoIterator<Item = &'r str>,
        scratch: &mut RewardScratch,
        rewards: &mut Vec<f64>,
    ) {
        let RewardScratch { known, buffers } = scratch;
        known.clear();
        for response in responses {
            read_cascade(
                response,
                &self.instance.limits,
                BlockChoice::Last,
                &mut buffers.cascade,
            );
            let hash = FxBuildHasher.hash_one(&buffers.cascade);
            let reward = match known.get(hash, &buffers.cascade) {
                Some(reward) => reward,
                None => {
                    let reward = self.reward_of(buffers);
                    known.insert(hash, &buffers.cascade, reward);
                    reward
                }
            };
            rewards.push(reward);
        }
    }

    /// The Edit_Sim of the cascade in `buffers`.
    fn reward_of(&self, buffers: &mut Buffers) -> f64 {
        let Buffers { cascade, strings } = buffers;
        // Each rule sliced once, with the byte set a string must cover for its pattern to
        // occur; on the stack for the usual few rules.
        let mut inline = [("", "", 0u64); INLINE_RULES];
        let spilled: Vec<(&str, &str, u64)>;
        let rules: &[(&str, &str, u64)] = if cascade.len() <= INLINE_RULES {
            for (slot, (a, b)) in inline.iter_mut().zip(cascade.rules()) {
                *slot = (a, b, byte_set(a));
            }
            &inline[..cascade.len()]
        } else {
            spilled = cascade.rules().map(|(a, b)| (a, b, byte_set(a))).collect();
            &spilled
        };
        let instance = &*self.instance;
        let mut pred_dist = 0;
        for example in &instance.examples {
            let (input, output) = instance.example(example);
            // The string so far: the input until a rule fires, then one of `strings`.
            let mut current: Option<usize> = None;
            let mut bytes = example.input_set;
            for &(a, b, needs) in rules {
                // A pattern with a byte the string lacks cannot occur in it.
                if needs & !bytes != 0 {
                    continue;
                }
                let to = current.map_or(0, |k| 1 - k);
                let [first, second] = strings;
                let (from, into) = if to == 0 {
                    (&*second, first)
                } else {
                    (&*first, second)
                };
                let from = if current.is_some() {
                    from.as_str()
                } else {
                    input
                };
                if replace_into(from, a, b, into) {
                    current = Some(to);
                    bytes = byte_set(into);
                }
            }
            pred_dist += match current {
                // No rule fired: the input is predicted, at its gold distance.
                None => example.gold_dist,
                Some(k) => metrics::char_distance(&strings[k], output),
            };
        }
        metrics::edit_sim_ratio(pred_dist, instance.gold_dist)
    }
}

/// Rules of a cascade a reward slices on the stack (more spill to the heap).
const INLINE_RULES: usize = 16;

/// An instance as rewards read it, with the per-instance part of its [`Rewarder`] computed
/// once, to keep while it is rewarded many times (the Python bindings' `Rewarder` keeps one
/// per dataset row: RL rewards the same rows over and over). Only what rewards read is kept
/// (the examples, packed in one string, and the limits): a few allocations, however many
/// examples, read together. [`PreparedInstance::rewarder`] gives the same rewards as
/// [`Rewarder::new`]`(instance)`.
#[derive(Debug, Clone)]
pub struct PreparedInstance {
    /// The inputs then the outputs, one after the other.
    texts: String,
    examples: Vec<PackedExample>,
    alphabet: String,
    limits: Limits,
    gold_dist: usize,
}

/// Where an example of a [`PreparedInstance`] is in its texts, and what a reward needs of
/// it beforehand.
#[derive(Debug, Clone, Copy)]
struct PackedExample {
    input: (usize, usize),
    output: (usize, usize),
    /// `dist(input, output)`: what the example adds when no rule changes its input.
    gold_dist: usize,
    /// The [`byte_set`] of the input.
    input_set: u64,
}

impl PreparedInstance {
    /// The examples and limits of `instance`, prepared.
    pub fn new(instance: Instance) -> Self {
        Self::of(&instance)
    }

    fn of(instance: &Instance) -> Self {
        let inputs: Vec<&str> = instance.inputs.iter().map(String::as_str).collect();
        let outputs: Vec<&str> = instance.outputs.iter().map(String::as_str).collect();
        let (max_rules, max_rule_len) = (instance.max_rules, instance.max_rule_len);
        Self::from_examples(
            &inputs,
            &outputs,
            max_rules,
            max_rule_len,
            &instance.alphabet,
        )
    }

    /// The instance with these examples (paired in order; extra ones on either side are
    /// left out) and these limits (as the fields of [`Instance`]), prepared.
    pub fn from_examples(
        inputs: &[&str],
        outputs: &[&str],
        max_rules: usize,
        max_rule_len: usize,
        alphabet: &str,
    ) -> Self {
        let n = inputs.len().min(outputs.len());
        let (inputs, outputs) = (&inputs[..n], &outputs[..n]);
        let mut texts = String::with_capacity(inputs.iter().chain(outputs).map(|t| t.len()).sum());
        let mut push = |text: &str| {
            texts.push_str(text);
            (texts.len() - text.len(), texts.len())
        };
        let spans: Vec<((usize, usize), (usize, usize))> = inputs
            .iter()
            .zip(outputs)
            .map(|(input, output)| (push(input), push(output)))
            .collect();
        let examples: Vec<PackedExample> = spans
            .into_iter()
            .zip(inputs.iter().zip(outputs))
            .map(|((input, output), (i, o))| PackedExample {
                input,
                output,
                gold_dist: metrics::char_distance(i, o),
                input_set: byte_set(i),
            })
            .collect();
        PreparedInstance {
            texts,
            gold_dist: examples.iter().map(|e| e.gold_dist).sum(),
            examples,
            alphabet: alphabet.to_owned(),
            limits: Limits::new(max_rules, max_rule_len, alphabet),
        }
    }

    /// The input and output of `example`.
    #[inline]
    fn example(&self, example: &PackedExample) -> (&str, &str) {
        let span = |(start, end): (usize, usize)| &self.texts[start..end];
        (span(example.input), span(example.output))
    }

    /// The inputs of the examples, in order.
    pub fn inputs(&self) -> impl ExactSizeIterator<Item = &str> {
        self.examples.iter().map(|e| self.example(e).0)
    }

    /// The outputs of the examples, in order.
    pub fn outputs(&self) -> impl ExactSizeIterator<Item = &str> {
        self.examples.iter().map(|e| self.example(e).1)
    }

    /// The letters rules may use, as the instance gives them.
    pub fn alphabet(&self) -> &str {
        &self.alphabet
    }

    /// The limits of the instance's rules.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// A rewarder of the instance, without computing its per-instance part again.
    pub fn rewarder(&self) -> Rewarder<'_> {
        Rewarder {
            instance: Cow::Borrowed(self),
        }
    }
}

/// The memory [`Rewarder::rewards_into`] works in, kept from call to call.
#[derive(Default)]
pub struct RewardScratch {
    known: KnownRewards,
    buffers: Buffers,
}

/// The cascades of one instance's responses already rewarded, with their rewards. Their
/// rules are copied into two arenas, so that remembering a cascade allocates nothing once
/// the arenas have grown.
#[derive(Default)]
struct KnownRewards {
    /// By hash of the cascade, its entry (the last one with that hash).
    index: FxHashMap<u64, usize>,
    entries: Vec<KnownReward>,
    /// The cascades' [`CascadeSides::parts`], one after the other.
    text: String,
    bounds: Vec<[usize; 3]>,
}

/// A cascade of [`KnownRewards`]: where its parts are, its reward, and the entry before it
/// with the same hash.
struct KnownReward {
    text: Range<usize>,
    bounds: Range<usize>,
    reward: f64,
    same_hash: Option<usize>,
}

impl KnownRewards {
    fn clear(&mut self) {
        self.index.clear();
        self.entries.clear();
        self.text.clear();
        self.bounds.clear();
    }

    /// The reward of `cascade` (whose hash is `hash`), if it is known.
    fn get(&self, hash: u64, cascade: &CascadeSides) -> Option<f64> {
        let mut at = self.index.get(&hash).copied();
        while let Some(k) = at {
            let entry = &self.entries[k];
            let text = &self.text[entry.text.clone()];
            if cascade.is(text, &self.bounds[entry.bounds.clone()]) {
                return Some(entry.reward);
            }
            at = entry.same_hash;
        }
        None
    }

    /// Remembers the reward of `cascade` (whose hash is `hash`).
    fn insert(&mut self, hash: u64, cascade: &CascadeSides, reward: f64) {
        let (text, bounds) = cascade.parts();
        let entry = KnownReward {
            text: self.text.len()..self.text.len() + text.len(),
            bounds: self.bounds.len()..self.bounds.len() + bounds.len(),
            reward,
            same_hash: self.index.insert(hash, self.entries.len()),
        };
        self.text.push_str(text);
        self.bounds.extend_from_slice(bounds);
        self.entries.push(entry);
    }
}

/// What a reward is computed in, kept between responses: the cascade read and the strings
/// it is applied to.
#[derive(Default)]
struct Buffers {
    cascade: CascadeSides,
    strings: [String; 2],
}

/// Aggregate figures over a set of instances. All are averages over instances (macro)
/// except `valid_rate` (a micro average over rules, as released) and
/// `valid_response_rate` (over every sample). An empty set has `instances = 0` and zero
/// figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Instances.
    pub instances: usize,
    /// Instances without any response (scored as failures).
    pub missing: usize,
    /// Responses scored.
    pub samples: usize,
    /// Instances whose outputs equal their inputs (degenerate Edit_Sim).
    pub degenerate: usize,
    /// Pass@1 with the sampling budget: share of instances whose chosen cascade passes.
    pub pass: f64,
    /// Mean character Edit_Sim of the chosen samples.
    pub edit_sim: f64,
    /// Mean released word Edit_Sim of the chosen samples.
    pub edit_sim_word: f64,
    /// Valid_Rate: valid rules / rules over the chosen responses; `None` without rules.
    pub valid_rate: Option<f64>,
    /// Share of all samples that are entirely valid; `None` without samples.
    pub valid_response_rate: Option<f64>,
    /// Mean fractional score (vetted mean reward).
    pub mean_reward: f64,
    /// Share of instances with fractional score ≥ 0.95.
    pub almost: f64,
    /// Share of instances with fractional score 1.
    pub resolved: f64,
    /// Held-out pass rate over instances with held-out examples; `None` without any.
    pub heldout_pass: Option<f64>,
    /// Instances with held-out examples.
    pub heldout_instances: usize,
    /// Unbiased pass@k for k = 1, 2, 4, … up to the fewest samples of an answered instance
    /// (that number included); missing instances count as 0.
    pub pass_at_k: BTreeMap<usize, f64>,
    /// k-fold average of the best-of-k Edit_Sim, same k ([`metrics::best_of_k_average`]).
    pub edit_sim_at_k: BTreeMap<usize, f64>,
    /// Survival curve of fractional scores at 0, 0.05, …, 1.
    pub survival: Vec<metrics::SurvivalPoint>,
}

/// Aggregates overall, by gold cascade length and by category (`"none"` without one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Every instance.
    pub overall: Aggregate,
    /// By gold cascade length.
    pub by_cascade_len: BTreeMap<usize, Aggregate>,
    /// By category bits `F B CF CB`.
    pub by_category: BTreeMap<String, Aggregate>,
}

/// Computes the aggregates of a set of scored instances.
pub fn summarize(scores: &[InstanceScore]) -> Summary {
    let mut by_len: BTreeMap<usize, Vec<&InstanceScore>> = BTreeMap::new();
    let mut by_cat: BTreeMap<String, Vec<&InstanceScore>> = BTreeMap::new();
    for s in scores {
        by_len.entry(s.cascade_len).or_default().push(s);
        let cat = s
            .category
            .map_or_else(|| "none".to_owned(), |c| c.to_string());
        by_cat.entry(cat).or_default().push(s);
    }
    let all: Vec<&InstanceScore> = scores.iter().collect();
    Summary {
        overall: aggregate(&all),
        by_cascade_len: by_len
            .into_iter()
            .map(|(k, v)| (k, aggregate(&v)))
            .collect(),
        by_category: by_cat
            .into_iter()
            .map(|(k, v)| (k, aggregate(&v)))
            .collect(),
    }
}

fn aggregate(scores: &[&InstanceScore]) -> Aggregate {
    let field = |f: fn(&InstanceScore) -> f64| -> f64 {
        metrics::mean(&scores.iter().map(|s| f(s)).collect::<Vec<_>>()).unwrap_or(0.0)
    };
    let fractional: Vec<f64> = scores.iter().map(|s| s.score).collect();
    let heldout: Vec<Option<bool>> = scores.iter().map(|s| s.heldout_pass).collect();
    let answered = || scores.iter().filter(|s| !s.missing);
    let samples: usize = answered().map(|s| s.samples.len()).sum();
    let valid_samples = answered()
        .flat_map(|s| &s.samples)
        .filter(|s| s.valid)
        .count();
    let fewest = answered().map(|s| s.samples.len()).min().unwrap_or(0);
    let mut ks: Vec<usize> = std::iter::successors(Some(1usize), |k| k.checked_mul(2))
        .take_while(|k| *k < fewest)
        .collect();
    if fewest > 0 {
        ks.push(fewest);
    }
    let mut pass_at_k = BTreeMap::new();
    let mut edit_sim_at_k = BTreeMap::new();
    // Each instance's Edit_Sims, highest first, sorted once for every k.
    let sorted_sims: Vec<Vec<f64>> = scores
        .iter()
        .map(|s| {
            let mut sims: Vec<f64> = s.samples.iter().map(|x| x.edit_sim).collect();
            sims.sort_by(|a, b| b.total_cmp(a));
            sims
        })
        .collect();
    for &k in &ks {
        // A missing instance has its one empty response: k is capped at 1 for it.
        let mut pass = Vec::with_capacity(scores.len());
        let mut sim = Vec::with_capacity(scores.len());
        for (s, sims) in scores.iter().zip(&sorted_sims) {
            let n = s.samples.len();
            let k = k.min(n);
            pass.push(metrics::pass_at_k(n, s.passing_samples(), k).unwrap_or(0.0));
            sim.push(metrics::best_of_k_average_sorted(sims, k).unwrap_or(0.0));
        }
        pass_at_k.insert(k, metrics::mean(&pass).unwrap_or(0.0));
        edit_sim_at_k.insert(k, metrics::mean(&sim).unwrap_or(0.0));
    }
    Aggregate {
        instances: scores.len(),
        missing: scores.iter().filter(|s| s.missing).count(),
        samples,
        degenerate: scores.iter().filter(|s| s.degenerate).count(),
        pass: field(|s| f64::from(u8::from(s.pass))),
        edit_sim: field(|s| s.edit_sim),
        edit_sim_word: field(|s| s.edit_sim_word),
        valid_rate: metrics::valid_rate(
            scores.iter().map(|s| s.valid_rules).sum(),
            scores.iter().map(|s| s.rules).sum(),
        ),
        valid_response_rate: (samples > 0).then(|| valid_samples as f64 / samples as f64),
        mean_reward: metrics::mean_reward(&fractional).unwrap_or(0.0),
        almost: metrics::almost(&fractional).unwrap_or(0.0),
        resolved: metrics::resolved(&fractional).unwrap_or(0.0),
        heldout_pass: metrics::heldout_pass_rate(&heldout),
        heldout_instances: heldout.iter().flatten().count(),
        pass_at_k,
        edit_sim_at_k,
        survival: metrics::survival_curve(&fractional, &metrics::default_thresholds()),
    }
}

/// A countable problem of a responses file, located by its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineIssue {
    /// 1-based line in the responses file.
    pub line: usize,
    /// The id (or authors' index) the line names.
    pub id: String,
    /// What is wrong, e.g. "duplicate of line 3".
    pub message: String,
}

/// The responses of a file, grouped by instance id, with the countable problems found.
/// Each response is its text, or what scoring reads of it ([`ResponseReading`], from
/// [`score_responses`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses<T = String> {
    /// The file read (empty for in-memory input).
    pub path: PathBuf,
    /// Responses per instance id, in sample order.
    pub by_id: HashMap<String, Vec<T>>,
    /// Lines naming an id absent from the dataset (ignored).
    pub unknown: Vec<LineIssue>,
    /// Lines repeating an id or (id, sample) already given (ignored; the first wins).
    pub duplicates: Vec<LineIssue>,
}

/// A fatal problem reading a responses file.
#[derive(Debug, thiserror::Error)]
pub enum ResponsesError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// A line is not a response record.
    #[error("{path}:{line}: {message}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// Which instance a response line is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstanceRef {
    /// By id (our format, or an `id` inside the authors' `input`).
    Id(String),
    /// By 0-based position in the dataset (the authors' `index`).
    Index(usize),
}

/// One line of a responses file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseRecord<T = String> {
    /// The instance.
    pub instance: InstanceRef,
    /// The sample number, when the line holds one sample of several.
    pub sample: Option<usize>,
    /// The responses of the line (a `null` response reads as empty: no answer).
    pub responses: Vec<T>,
}

/// Reads one line in any accepted format:
/// `{"id", "response"}`, `{"id", "sample", "response"}`, `{"id", "responses": […]}`, or the
/// authors' result record `{"input": {…, "index": N | "N_j"}, "outputs": […]}`. A response
/// is a string, `null` (empty), or a message object with `content` (or `text`); thinking
/// fields (`reasoning_content`, `chains_of_thought`) are never read.
pub fn parse_response_line(line: &str) -> Result<ResponseRecord, String> {
    match plain_response_line(line) {
        Some(record) => Ok(record),
        None => parse_response_line_generally(line),
    }
}

/// The common line `{"id": "…", "responses": ["…", …]}` (or `"response": "…"`) read
/// straight into its record, without building a JSON tree. `None` for any other line
/// (other fields, numbers, nulls, messages, duplicate keys, errors), which
/// [`parse_response_line_generally`] reads, deciding and wording errors as it always did.
fn plain_response_line(line: &str) -> Option<ResponseRecord> {
    if !line.trim_start().starts_with('{') {
        return None;
    }
    let plain = serde_json::from_str::<PlainLine>(line).ok()?;
    let responses = match (plain.response, plain.responses) {
        (Some(r), None) => vec![r],
        (None, Some(rs)) => rs,
        _ => return None,
    };
    Some(ResponseRecord {
        instance: InstanceRef::Id(plain.id),
        sample: None,
        responses,
    })
}

/// [`parse_response_line`] through a JSON tree: every format, every error.
fn parse_response_line_generally(line: &str) -> Result<ResponseRecord, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| {
        let message = e.to_string();
        let what = message
            .rfind(" at line ")
            .map_or(&message[..], |i| &message[..i]);
        format!("malformed JSON at column {}: {what}", e.column())
    })?;
    let Value::Object(mut map) = value else {
        return Err("a line must hold a JSON object".to_owned());
    };
    if let Some(id) = map.get("id") {
        let instance = InstanceRef::Id(id_text(id)?);
        let sample = match map.get("sample") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or("'sample' must be a non-negative integer")? as usize,
            ),
        };
        let responses = match (map.remove("response"), map.remove("responses")) {
            (Some(r), None) => vec![response_text(r)?],
            (None, Some(Value::Array(rs))) => rs
                .into_iter()
                .map(response_text)
                .collect::<Result<_, _>>()?,
            (None, Some(_)) => return Err("'responses' must be a list".to_owned()),
            (Some(_), Some(_)) => {
                return Err("give either 'response' or 'responses', not both".to_owned())
            }
            (None, None) => return Err("missing 'response' (or 'responses')".to_owned()),
        };
        if sample.is_some() && responses.len() != 1 {
            return Err("a line with 'sample' must hold one 'response'".to_owned());
        }
        return Ok(ResponseRecord {
            instance,
            sample,
            responses,
        });
    }
    if let Some(Value::Object(input)) = map.get("input") {
        let (instance, sample) = match (input.get("id"), input.get("index")) {
            (Some(id), _) => (InstanceRef::Id(id_text(id)?), None),
            (None, Some(Value::Number(n))) => (
                InstanceRef::Index(
                    n.as_u64().ok_or("'index' must be a non-negative integer")? as usize
                ),
                None,
            ),
            (None, Some(Value::String(s))) => parse_authors_index(s)?,
            _ => return Err("the authors' 'input' needs an 'index' (or an 'id')".to_owned()),
        };
        let responses = match map.remove("outputs") {
            Some(Value::Array(rs)) => rs
                .into_iter()
                .map(response_text)
                .collect::<Result<_, _>>()?,
            _ => return Err("the authors' record needs an 'outputs' list".to_owned()),
        };
        return Ok(ResponseRecord {
            instance,
            sample,
            responses,
        });
    }
    Err("a response line needs an 'id' (or the authors' 'input' with an 'index')".to_owned())
}

/// The common response line, as [`parse_response_line`] reads it first: a string id, and
/// a string `response` or a list of strings `responses` (`null` is refused, not absent).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainLine {
    id: String,
    #[serde(default, deserialize_with = "present")]
    response: Option<String>,
    #[serde(default, deserialize_with = "present")]
    responses: Option<Vec<String>>,
}

/// A field that is there (absent fields are `None` by `default`), never `null`.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn id_text(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err("'id' must be a string or a number".to_owned()),
    }
}

/// `"12_3"`: instance 12, sample 3 (the authors' runner with several samples).
fn parse_authors_index(s: &str) -> Result<(InstanceRef, Option<usize>), String> {
    let bad = || format!("'index' {s:?} is neither N nor N_j");
    let (i, j) = match s.split_once('_') {
        Some((i, j)) => (i, Some(j.parse::<usize>().map_err(|_| bad())?)),
        None => (s, None),
    };
    Ok((InstanceRef::Index(i.parse().map_err(|_| bad())?), j))
}

fn response_text(v: Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s),
        Value::Null => Ok(String::new()),
        Value::Object(mut m) => match m.remove("content").or_else(|| m.remove("text")) {
            Some(Value::String(s)) => Ok(s),
            Some(Value::Null) => Ok(String::new()),
            _ => Err("a response object needs a string 'content'".to_owned()),
        },
        _ => Err("a response must be a string, null or an object with 'content'".to_owned()),
    }
}

/// Groups response records by instance, resolving the authors' indices against `dataset`
/// and recording unknown ids and duplicates (the first occurrence wins).
#[derive(Debug)]
pub struct ResponseCollector<'a, T = String> {
    ids: HashSet<&'a str>,
    dataset: &'a [Instance],
    whole: HashMap<String, usize>,
    samples: HashMap<String, BTreeMap<usize, (usize, T)>>,
    out: Responses<T>,
}

impl<'a, T: Default> ResponseCollector<'a, T> {
    /// An empty collection for `dataset`.
    pub fn new(dataset: &'a [Instance]) -> Self {
        ResponseCollector {
            ids: dataset.iter().map(|i| i.id.as_str()).collect(),
            dataset,
            whole: HashMap::new(),
            samples: HashMap::new(),
            out: Responses {
                path: PathBuf::new(),
                by_id: HashMap::new(),
                unknown: Vec::new(),
                duplicates: Vec::new(),
            },
        }
    }

    /// Adds the record read from 1-based `line`.
    pub fn add(&mut self, line: usize, record: ResponseRecord<T>) {
        let id = match record.instance {
            InstanceRef::Id(id) => id,
            InstanceRef::Index(i) => match self.dataset.get(i) {
                Some(inst) => inst.id.clone(),
                None => {
                    self.out.unknown.push(LineIssue {
                        line,
                        id: format!("index {i}"),
                        message: format!(
                            "index {i} is past the dataset's {} instances",
                            self.dataset.len()
                        ),
                    });
                    return;
                }
            },
        };
        if !self.ids.contains(id.as_str()) {
            self.out.unknown.push(LineIssue {
                message: format!("id '{id}' is not in the dataset"),
                line,
                id,
            });
            return;
        }
        let first = self
            .whole
            .get(&id)
            .copied()
            .or_else(|| match record.sample {
                Some(j) => self
                    .samples
                    .get(&id)
                    .and_then(|m| m.get(&j))
                    .map(|(l, _)| *l),
                None => self
                    .samples
                    .get(&id)
                    .and_then(|m| m.values().map(|(l, _)| *l).min()),
            });
        if let Some(first) = first {
            let what = record
                .sample
                .map_or(String::new(), |j| format!(" sample {j}"));
            self.out.duplicates.push(LineIssue {
                message: format!("id '{id}'{what} was already given on line {first}"),
                line,
                id,
            });
            return;
        }
        match record.sample {
            Some(j) => {
                let text = record.responses.into_iter().next().unwrap_or_default();
                self.samples.entry(id).or_default().insert(j, (line, text));
            }
            None => {
                self.whole.insert(id.clone(), line);
                self.out.by_id.insert(id, record.responses);
            }
        }
    }

    /// The grouped responses.
    pub fn finish(mut self) -> Responses<T> {
        for (id, samples) in self.samples {
            self.out
                .by_id
                .insert(id, samples.into_values().map(|(_, t)| t).collect());
        }
        self.out
    }
}

/// Reads a responses file (JSONL, any format of [`parse_response_line`]) for `dataset`.
/// Malformed lines and bytes that are not UTF-8 are fatal (the first one, by line, is
/// reported); unknown ids and duplicates are counted in the result. Lines are parsed in
/// parallel, a block of the file at a time, so memory stays bounded.
pub fn read_responses(
    path: impl AsRef<Path>,
    dataset: &[Instance],
) -> Result<Responses, ResponsesError> {
    read_records(path.as_ref(), dataset, read_line)
}

/// Reads a responses file and scores it against `dataset`: the scores of
/// [`score_dataset`] on [`read_responses`], with the same input problems and errors, but
/// each line's responses are read ([`ResponseReading`]) as soon as the line is, in
/// parallel, and their text dropped, so memory does not grow with the responses' length.
pub fn score_responses(
    path: impl AsRef<Path>,
    dataset: &[Instance],
    options: &ScoreOptions,
) -> Result<(Vec<InstanceScore>, Responses<ResponseReading>), ResponsesError> {
    let position: HashMap<&str, usize> = dataset
        .iter()
        .enumerate()
        .map(|(k, inst)| (inst.id.as_str(), k))
        .collect();
    let limits: Vec<Limits> = dataset.iter().map(Limits::of).collect();
    let responses = read_records(path.as_ref(), dataset, |bytes| {
        let common = CommonLine {
            position: &position,
            limits: &limits,
            options,
        };
        if let Some(record) = common.read(bytes) {
            return Ok(Some(record));
        }
        let Some(record) = read_line(bytes)? else {
            return Ok(None);
        };
        let instance = match &record.instance {
            InstanceRef::Id(id) => position.get(id.as_str()).copied(),
            InstanceRef::Index(k) => Some(*k).filter(|k| *k < dataset.len()),
        };
        // A line for no instance of the dataset is only counted: its responses are not read.
        let responses = match instance {
            Some(k) => record
                .responses
                .iter()
                .map(|r| ResponseReading::under(&limits[k], r, options))
                .collect(),
            None => Vec::new(),
        };
        Ok(Some(ResponseRecord {
            instance: record.instance,
            sample: record.sample,
            responses,
        }))
    })?;
    let scores = score_each(dataset, &responses, |instance, given| {
        score_readings(instance, given, options)
    });
    Ok((scores, responses))
}

/// The common line `{"id": "…", "responses": ["…", …]}` (or `"response": "…"`) of an
/// instance of the dataset, read in one pass: each response is read where the JSON reader
/// decoded it, without a copy of its text. Any other line is left to the general path.
struct CommonLine<'a> {
    position: &'a HashMap<&'a str, usize>,
    limits: &'a [Limits],
    options: &'a ScoreOptions,
}

impl CommonLine<'_> {
    /// The line's record, or `None` when it is not a common line of a known instance
    /// (with exactly the keys `id`, then `response` or `responses`, and only strings).
    fn read(&self, bytes: &[u8]) -> Option<ResponseRecord<ResponseReading>> {
        let text = std::str::from_utf8(bytes.trim_ascii_end()).ok()?;
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let mut json = serde_json::Deserializer::from_str(text);
        let record = serde::Deserializer::deserialize_map(&mut json, self).ok()?;
        json.end().ok()?;
        Some(record)
    }
}

/// The keys of a common line.
#[derive(PartialEq)]
enum LineKey {
    Id,
    Response,
    Responses,
    Other,
}

impl<'de> Deserialize<'de> for LineKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Ok(match key.as_ref() {
            "id" => LineKey::Id,
            "response" => LineKey::Response,
            "responses" => LineKey::Responses,
            _ => LineKey::Other,
        })
    }
}

impl<'de> serde::de::Visitor<'de> for &CommonLine<'_> {
    type Value = ResponseRecord<ResponseReading>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a response line")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let other = || serde::de::Error::custom("not a common line");
        if map.next_key::<LineKey>()? != Some(LineKey::Id) {
            return Err(other());
        }
        let id: String = map.next_value()?;
        let &k = self.position.get(id.as_str()).ok_or_else(other)?;
        let read = ReadResponses {
            limits: &self.limits[k],
            options: self.options,
        };
        let responses = match map.next_key::<LineKey>()? {
            Some(LineKey::Response) => vec![map.next_value_seed(ReadResponse(read))?],
            Some(LineKey::Responses) => map.next_value_seed(read)?,
            _ => return Err(other()),
        };
        if map.next_key::<LineKey>()?.is_some() {
            return Err(other());
        }
        Ok(ResponseRecord {
            instance: InstanceRef::Id(id),
            sample: None,
            responses,
        })
    }
}

/// A JSON list of response strings, each read under `limits`.
#[derive(Clone, Copy)]
struct ReadResponses<'a> {
    limits: &'a Limits,
    options: &'a ScoreOptions,
}

/// One JSON response string, read under the limits.
struct ReadResponse<'a>(ReadResponses<'a>);

impl<'de> serde::de::DeserializeSeed<'de> for ReadResponses<'_> {
    type Value = Vec<ResponseReading>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ReadResponses<'_> {
    type Value = Vec<ResponseReading>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of responses")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut readings = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(reading) = seq.next_element_seed(ReadResponse(self))? {
            readings.push(reading);
        }
        Ok(readings)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for ReadResponse<'_> {
    type Value = ResponseReading;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ReadResponse<'_> {
    type Value = ResponseReading;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a response string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(ResponseReading::under(self.0.limits, text, self.0.options))
    }
}

/// The records of a responses file, each line's read by `read` (`None` for a blank line),
/// grouped by [`ResponseCollector`]. The file is read a block at a time, and the block's
/// lines are read in parallel.
fn read_records<T: Default + Send>(
    path: &Path,
    dataset: &[Instance],
    read: impl Fn(&[u8]) -> Result<Option<ResponseRecord<T>>, String> + Sync,
) -> Result<Responses<T>, ResponsesError> {
    const BLOCK: u64 = 4 << 20;
    let io_err = |source| ResponsesError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::open(path).map_err(io_err)?;
    let mut collector = ResponseCollector::new(dataset);
    let mut buf: Vec<u8> = Vec::new();
    let mut line = 0;
    loop {
        let eof = (&mut file)
            .take(BLOCK)
            .read_to_end(&mut buf)
            .map_err(io_err)?
            == 0;
        // The complete lines of the block; a line longer than a block waits for the next.
        let end = if eof {
            buf.len()
        } else {
            memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1)
        };
        let mut lines: Vec<(usize, &[u8])> = Vec::new();
        let mut rest = &buf[..end];
        while !rest.is_empty() {
            let len = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            line += 1;
            lines.push((line, &rest[..len]));
            rest = &rest[len..];
        }
        let records: Vec<Result<Option<ResponseRecord<T>>, ResponsesError>> = lines
            .par_iter()
            .map(|&(line, bytes)| {
                read(bytes).map_err(|message| ResponsesError::Line {
                    path: path.to_path_buf(),
                    line,
                    message,
                })
            })
            .collect();
        for ((line, _), record) in lines.iter().zip(records) {
            if let Some(record) = record? {
                collector.add(*line, record);
            }
        }
        buf.drain(..end);
        if eof {
            break;
        }
    }
    let mut responses = collector.finish();
    responses.path = path.to_path_buf();
    Ok(responses)
}

/// One line's record; `None` for a blank line.
fn read_line(bytes: &[u8]) -> Result<Option<ResponseRecord>, String> {
    let text = std::str::from_utf8(bytes.trim_ascii_end())
        .map_err(|e| format!("not valid UTF-8 (byte {} of the line)", e.valid_up_to() + 1))?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_response_line(text).map(Some)
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

/// Everything `pbebench score` reports: the summary and the input problems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreReport {
    /// The options used.
    pub options: ScoreOptions,
    /// Aggregates.
    pub summary: Summary,
    /// Ids of instances without any response (scored as failures).
    pub missing: Vec<String>,
    /// Response lines naming ids absent from the dataset.
    pub unknown: Vec<LineIssue>,
    /// Response lines repeating an id or sample already given.
    pub duplicates: Vec<LineIssue>,
}

/// Builds the report of scored instances and the responses they came from.
pub fn report<T>(
    scores: &[InstanceScore],
    responses: &Responses<T>,
    options: &ScoreOptions,
) -> ScoreReport {
    ScoreReport {
        options: *options,
        summary: summarize(scores),
        missing: scores
            .iter()
            .filter(|s| s.missing)
            .map(|s| s.id.clone())
            .collect(),
        unknown: responses.unknown.clone(),
        duplicates: responses.duplicates.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relations::RelationMode;
    use crate::response::parse_response;
    use crate::rule::Rule;
    use proptest::prelude::*;

    fn instance(id: &str) -> Instance {
        // Gold: ab→c then c→d. Inputs: "xab"→"xd", "cc"→"dd", "q"→"q" (unchanged).
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
        }
    }

    fn block(rules: &str) -> String {
        format!("Here it is.\n```python\n{rules}\n```\n")
    }

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
        assert!((s.score - 1.0 / 3.0).abs() < 1e-12, "the unchanged example");
        assert_eq!(s.samples.len(), 1);
    }

    #[test]
    fn reward_is_edit_sim() {
        let inst = instance("a");
        assert_eq!(reward(&inst, ""), 0.0);
        assert_eq!(
            reward(&inst, &block("s = s.replace('ab', 'c').replace('c', 'd')")),
            1.0
        );
        assert_eq!(reward(&inst, &block(r#"[("q", "x")]"#)), -0.25);
    }

    #[test]
    fn rewarder_matches_edit_sim_of_the_parsed_cascade() {
        let inst = instance("a");
        let rewarder = Rewarder::new(&inst);
        for text in [
            String::new(),
            block("s = s.replace('ab', 'c').replace('c', 'd')"),
            block(r#"[("q", "x")]"#),
            block(r#"["replace('c', 'd')", "replace('abc', 'd')", "replace('', 'd')"]"#),
            block(r#"["replace('a', 'aa')", "replace('aa', 'b')", "replace('b', '')"]"#),
            "no block".to_owned(),
        ] {
            let parsed = parse_response(&text, &Limits::of(&inst), BlockChoice::Last);
            let predicted = parsed.cascade().apply_all(&inst.inputs);
            let expected = metrics::edit_sim(&inst.inputs, &inst.outputs, &predicted);
            assert_eq!(rewarder.reward(&text), expected, "{text:?}");
        }
    }

    #[test]
    fn rewards_of_a_batch_are_each_reward() {
        let inst = instance("a");
        let rewarder = Rewarder::new(&inst);
        let texts: Vec<String> = [
            "[\"replace('ab', 'c')\", \"replace('c', 'd')\"]",
            "[\"replace('c', 'd')\"]",
            "[\"replace('ab', 'c')\", \"replace('c', 'd')\"]",
            "[(\"ab\", \"c\"), (\"c\", \"d\")]",
            "[\"replace('a', 'bc')\"]",
            "[\"replace('ab', 'c')\"]",
            "[]",
        ]
        .iter()
        .map(|code| block(code))
        .chain(["no block".to_owned(), String::new()])
        .collect();
        let one_by_one: Vec<f64> = texts.iter().map(|t| rewarder.reward(t)).collect();
        assert_eq!(rewarder.rewards(&texts), one_by_one);
        assert_eq!(one_by_one[0], 1.0);
        assert_ne!(one_by_one[4], one_by_one[5]);
        let prepared = PreparedInstance::new(inst.clone());
        assert!(prepared.inputs().eq(inst.inputs.iter().map(String::as_str)));
        assert!(prepared
            .outputs()
            .eq(inst.outputs.iter().map(String::as_str)));
        assert_eq!(prepared.alphabet(), inst.alphabet);
        assert_eq!(prepared.limits(), &Limits::of(&inst));
        assert_eq!(prepared.rewarder().rewards(&texts), one_by_one);
    }

    /// Cascades longer than the rules a reward slices on the stack take the heap, with the
    /// same result.
    #[test]
    fn long_cascades_are_rewarded_like_short_ones() {
        let mut inst = instance("a");
        inst.max_rules = 3 * INLINE_RULES;
        inst.alphabet.push_str("ef");
        let rewarder = Rewarder::new(&inst);
        for len in [
            INLINE_RULES - 1,
            INLINE_RULES,
            INLINE_RULES + 1,
            3 * INLINE_RULES,
        ] {
            // The gold's two rules around fillers that never fire.
            let fillers = (0..len - 2).map(|k| match k % 2 {
                0 => "\"replace('e', 'f')\"",
                _ => "\"replace('f', 'e')\"",
            });
            let rules: Vec<&str> = std::iter::once("\"replace('ab', 'c')\"")
                .chain(fillers)
                .chain(["\"replace('c', 'd')\""])
                .collect();
            let text = block(&format!("[{}]", rules.join(", ")));
            let parsed = parse_response(&text, &Limits::of(&inst), BlockChoice::Last);
            assert_eq!(parsed.cascade().len(), len);
            let predicted = parsed.cascade().apply_all(&inst.inputs);
            let expected = metrics::edit_sim(&inst.inputs, &inst.outputs, &predicted);
            assert_eq!(rewarder.reward(&text), expected, "{len} rules");
            assert_eq!(rewarder.reward(&text), 1.0, "{len} rules");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// A batch of rewards (cascades shared, rules applied from the input, untouched
        /// examples at their gold distance) is each response's Edit_Sim, computed the long
        /// way from its parsed cascade.
        #[test]
        fn batch_rewards_are_edit_sims(
            answers in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::sample::select(vec![
                        "\"replace('ab', 'c')\"", "\"replace('c', 'd')\"", "\"replace('x', '')\"",
                        "\"replace('q', 'qq')\"", "\"replace('abc', 'd')\"", "\"replace('', 'a')\"",
                        "\"replace('a', 'Z')\"", "\"replace('d', 'c')\"", "replace('b', 'a')", "3",
                    ]),
                    0..5,
                ),
                1..12,
            ),
            plain in proptest::collection::vec(proptest::prelude::any::<bool>(), 12),
        ) {
            let mut inst = instance("a");
            inst.inputs.push("zz".into());
            inst.outputs.push("zz".into());
            let rewarder = Rewarder::new(&inst);
            let texts: Vec<String> = answers
                .iter()
                .zip(&plain)
                .map(|(rules, &plain)| {
                    let list = format!("[{}]", rules.join(", "));
                    if plain { block(&list) } else { format!("<think>x</think>{}", block(&format!("rules = {list}"))) }
                })
                .collect();
            let expected: Vec<f64> = texts
                .iter()
                .map(|t| {
                    let parsed = parse_response(t, &Limits::of(&inst), BlockChoice::Last);
                    let predicted = parsed.cascade().apply_all(&inst.inputs);
                    metrics::edit_sim(&inst.inputs, &inst.outputs, &predicted)
                })
                .collect();
            proptest::prop_assert_eq!(&rewarder.rewards(&texts), &expected);
            let one_by_one: Vec<f64> = texts.iter().map(|t| rewarder.reward(t)).collect();
            proptest::prop_assert_eq!(&one_by_one, &expected);
            // Scratch space kept from an earlier batch changes nothing.
            let mut scratch = RewardScratch::default();
            let mut rewards = Vec::new();
            rewarder.rewards_into(texts.iter().rev().map(String::as_str), &mut scratch, &mut rewards);
            rewards.clear();
            rewarder.rewards_into(texts.iter().map(String::as_str), &mut scratch, &mut rewards);
            proptest::prop_assert_eq!(&rewards, &expected);
        }
    }

    #[test]
    fn summary_by_hand() {
        let a = instance("a");
        let mut b = instance("b");
        b.cascade_len = 3;
        b.category = None;
        let pass = block(r#"["replace('ab', 'c')", "replace('c', 'd')"]"#);
        let half = block(r#"["replace('c', 'd')", "replace('abc', 'd')"]"#); // 1 valid of 2
        let sa = score_instance(&a, &[pass.clone(), half.clone()], &ScoreOptions::default());
        let sb = score_instance(&b, &[half.clone(), half], &ScoreOptions::default());
        let summary = summarize(&[sa, sb]);
        let o = &summary.overall;
        assert_eq!((o.instances, o.samples, o.missing), (2, 4, 0));
        assert_eq!(o.pass, 0.5);
        assert_eq!(o.edit_sim, 0.75);
        assert_eq!(
            o.valid_rate,
            Some(3.0 / 4.0),
            "2 of 2 and 1 of 2 chosen rules"
        );
        assert_eq!(o.valid_response_rate, Some(0.25));
        assert_eq!(o.pass_at_k[&1], 0.25);
        assert_eq!(o.pass_at_k[&2], 0.5);
        assert_eq!(o.edit_sim_at_k[&1], (0.75 + 0.5) / 2.0);
        assert_eq!(o.heldout_pass, Some(0.5));
        assert_eq!(o.resolved, 0.5);
        assert_eq!(o.mean_reward, (1.0 + 2.0 / 3.0) / 2.0);
        assert_eq!(o.survival.len(), 21);
        assert_eq!(summary.by_cascade_len[&2].pass, 1.0);
        assert_eq!(summary.by_cascade_len[&3].pass, 0.0);
        assert_eq!(summary.by_category["1000"].instances, 1);
        assert_eq!(summary.by_category["none"].instances, 1);
        assert!(serde_json::to_string(&summary).is_ok());
    }

    #[test]
    fn response_lines_in_every_format() {
        let r = parse_response_line(r#"{"id": "a", "response": "x"}"#).unwrap();
        assert_eq!(r.instance, InstanceRef::Id("a".into()));
        assert_eq!(r.responses, vec!["x"]);
        let r = parse_response_line(
            r#"{"id": 7, "responses": ["x", null, {"content": "y", "reasoning_content": "z"}]}"#,
        )
        .unwrap();
        assert_eq!(r.instance, InstanceRef::Id("7".into()));
        assert_eq!(r.responses, vec!["x", "", "y"]);
        let r = parse_response_line(r#"{"input": {"inputs": [], "index": 3}, "outputs": ["x"], "chains_of_thought": ["t"]}"#).unwrap();
        assert_eq!(r.instance, InstanceRef::Index(3));
        let r = parse_response_line(r#"{"input": {"index": "3_5"}, "outputs": ["x"]}"#).unwrap();
        assert_eq!((r.instance, r.sample), (InstanceRef::Index(3), Some(5)));
        for bad in [
            "{",
            "[]",
            r#"{"id": "a"}"#,
            r#"{"id": [1], "response": "x"}"#,
            r#"{"id": "a", "response": 3}"#,
            r#"{"id": "a", "response": "x", "responses": []}"#,
            r#"{"input": {"index": "x_1"}, "outputs": []}"#,
            r#"{"response": "x"}"#,
        ] {
            assert!(parse_response_line(bad).is_err(), "{bad}");
        }
    }

    /// JSON values a response line may hold, well-formed or not.
    fn json_value() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(r#""x""#.to_owned()),
            Just(r#""a\n```python\n[\"replace('a', 'b')\"]\n```""#.to_owned()),
            Just("null".to_owned()),
            Just("7".to_owned()),
            Just(r#"{"content": "y"}"#.to_owned()),
            Just(r#"{"index": "3_1"}"#.to_owned()),
            Just("[]".to_owned()),
            Just(r#"["x", "y"]"#.to_owned()),
            Just(r#"["x", null]"#.to_owned()),
            Just(r#"["x", 3]"#.to_owned()),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Where the shortcut for common lines answers, the JSON tree reads the same.
        #[test]
        fn plain_lines_read_as_generally(
            fields in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "id", "id", "response", "responses", "responses", "sample", "input",
                        "outputs", "other",
                    ]),
                    json_value(),
                ),
                0..4,
            ),
            array in proptest::prelude::any::<bool>(),
        ) {
            let line = if array {
                format!("[{}]", fields.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(", "))
            } else {
                let fields: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
                format!(" {{{}}}", fields.join(", "))
            };
            if let Some(record) = plain_response_line(&line) {
                proptest::prop_assert_eq!(Ok(record), parse_response_line_generally(&line), "{}", line);
            }
        }
    }

    #[test]
    fn common_lines_take_the_shortcut() {
        for line in [
            r#"{"id": "a", "response": "x"}"#,
            r#"{"id": "a", "responses": ["x\ny", ""]}"#,
        ] {
            let record = plain_response_line(line);
            assert!(record.is_some(), "{line}");
            assert_eq!(record.map(Ok), Some(parse_response_line_generally(line)));
        }
        for line in [
            r#"{"id": "a", "response": null, "responses": ["x"]}"#,
            r#"{"id": "a", "id": "b", "response": "x"}"#,
            r#"["a", "x"]"#,
        ] {
            assert_eq!(plain_response_line(line), None, "{line}");
        }
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
            let options = ScoreOptions { block };
            let read = read_responses(&path, &dataset).unwrap();
            let (scores, counted) = score_responses(&path, &dataset, &options).unwrap();
            assert_eq!(scores, score_dataset(&dataset, &read, &options));
            assert_eq!(
                report(&scores, &counted, &options),
                report(&scores, &read, &options)
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

    #[test]
    fn collector_counts_unknown_and_duplicates() {
        let dataset = vec![instance("a"), instance("b")];
        let mut c = ResponseCollector::new(&dataset);
        let rec = |i: InstanceRef, sample: Option<usize>, text: &str| ResponseRecord {
            instance: i,
            sample,
            responses: vec![text.to_owned()],
        };
        c.add(1, rec(InstanceRef::Id("a".into()), None, "1"));
        c.add(2, rec(InstanceRef::Id("a".into()), None, "2"));
        c.add(3, rec(InstanceRef::Id("zz".into()), None, "3"));
        c.add(4, rec(InstanceRef::Index(1), Some(1), "b1"));
        c.add(5, rec(InstanceRef::Index(1), Some(0), "b0"));
        c.add(6, rec(InstanceRef::Index(1), Some(1), "again"));
        c.add(7, rec(InstanceRef::Index(9), None, "x"));
        let r = c.finish();
        assert_eq!(r.by_id["a"], vec!["1"]);
        assert_eq!(r.by_id["b"], vec!["b0", "b1"]);
        let lines = |v: &[LineIssue]| v.iter().map(|i| i.line).collect::<Vec<_>>();
        assert_eq!(lines(&r.unknown), vec![3, 7]);
        assert_eq!(lines(&r.duplicates), vec![2, 6]);
        assert!(
            r.duplicates[1].message.contains("line 4"),
            "{:?}",
            r.duplicates
        );
    }
}
