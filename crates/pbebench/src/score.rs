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
use crate::response::{parse_response, BlockChoice, Limits, ParsedResponse};
use crate::rule::{Cascade, Rule};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::rc::Rc;

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

    /// The figures of predicted outputs for the visible examples.
    fn evaluate<S: AsRef<str>>(&self, predicted: &[S]) -> Evaluation {
        let outputs = &self.instance.outputs;
        let pass = metrics::passes(outputs, predicted);
        let (char_dist, word_dist) = if pass {
            (0, 0)
        } else {
            (
                metrics::total_char_distance(predicted, outputs),
                metrics::total_word_distance(predicted, outputs),
            )
        };
        Evaluation {
            pass,
            edit_sim: metrics::edit_sim_ratio(char_dist, self.char_dist),
            edit_sim_word: metrics::edit_sim_ratio(word_dist, self.word_dist),
            reproduced: metrics::examples_reproduced(outputs, predicted),
            score: metrics::fractional_score(outputs, predicted),
        }
    }

    /// Evaluates cascades on the visible examples, sharing work between cascades that
    /// start with the same rules (samples of one instance often repeat a cascade, or
    /// differ only late): taken in sorted order, each cascade resumes from the state after
    /// its longest common prefix with the previous one, and a repeated cascade reuses its
    /// evaluation. A rule changes few strings, so states share the unchanged ones, and
    /// strings lacking one of the pattern's bytes are not searched.
    fn evaluate_all(&self, cascades: &[Cascade]) -> Vec<Evaluation> {
        let mut order: Vec<usize> = (0..cascades.len()).collect();
        order.sort_by(|&a, &b| cascades[a].rules().cmp(cascades[b].rules()));
        let inputs = self.instance.inputs.iter().map(|s| Text::new(s));
        let mut states: Vec<Vec<Text>> = vec![inputs.collect()];
        let mut scratch = String::new();
        let mut previous: Option<(&[Rule], Evaluation)> = None;
        let mut evaluations = vec![None; cascades.len()];
        for k in order {
            let rules = cascades[k].rules();
            let before = previous.map_or(&[][..], |(rules, _)| rules);
            if let Some((_, e)) = previous.filter(|_| before == rules) {
                evaluations[k] = Some(e);
                continue;
            }
            let common = rules.iter().zip(before).take_while(|(a, b)| a == b).count();
            states.truncate(common + 1);
            for rule in &rules[common..] {
                let needs = byte_set(rule.pattern());
                let last = states.last().expect("the inputs are never popped");
                let next = last
                    .iter()
                    .map(|t| {
                        if needs & !t.bytes == 0 && rule.apply_into(&t.text, &mut scratch) {
                            Text::new(&scratch)
                        } else {
                            t.clone()
                        }
                    })
                    .collect();
                states.push(next);
            }
            let e = self.evaluate(states.last().expect("the inputs are never popped"));
            evaluations[k] = Some(e);
            previous = Some((rules, e));
        }
        evaluations
            .into_iter()
            .map(|e| e.expect("every cascade is evaluated"))
            .collect()
    }

    /// Scores the responses of one instance (at least one): parsed, then their cascades
    /// evaluated together.
    fn score_all<S: AsRef<str>>(
        &self,
        responses: &[S],
        options: &ScoreOptions,
    ) -> (Vec<SampleScore>, Vec<Cascade>) {
        let parsed: Vec<ParsedResponse> = responses
            .iter()
            .map(|r| parse_response(r.as_ref(), &self.limits, options.block))
            .collect();
        let cascades: Vec<Cascade> = parsed.iter().map(ParsedResponse::cascade).collect();
        let evaluations = self.evaluate_all(&cascades);
        let samples = parsed
            .iter()
            .zip(evaluations)
            .map(|(p, e)| SampleScore {
                parsed: p.is_parsed(),
                valid: p.is_valid(),
                rules: p.rules.len(),
                valid_rules: p.valid_rules(),
                dropped_rules: p.dropped_rules,
                pass: e.pass,
                edit_sim: e.edit_sim,
                edit_sim_word: e.edit_sim_word,
                reproduced: e.reproduced,
                score: e.score,
            })
            .collect();
        (samples, cascades)
    }
}

/// A shared string with the set of its bytes (modulo 128): a rule whose pattern has a byte
/// outside the set cannot fire on it.
#[derive(Debug, Clone)]
struct Text {
    text: Rc<str>,
    bytes: u128,
}

impl Text {
    fn new(s: &str) -> Self {
        Text {
            text: Rc::from(s),
            bytes: byte_set(s),
        }
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// The bytes of `s`, each as bit `b mod 128` (a superset test, so the folding is safe).
fn byte_set(s: &str) -> u128 {
    s.bytes().fold(0, |set, b| set | 1 << (b & 127))
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
    let gold = Gold::new(instance);
    let missing = responses.is_empty();
    let (samples, mut cascades) = if missing {
        gold.score_all(&[""], options)
    } else {
        gold.score_all(responses, options)
    };
    let best = metrics::best_of_k(samples.iter().map(|s| (s.pass, s.edit_sim))).unwrap_or(0);
    let chosen = &samples[best];
    let cascade = cascades.swap_remove(best);
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
    instance: &'a Instance,
    limits: Limits,
    gold_dist: usize,
}

impl<'a> Rewarder<'a> {
    /// The per-instance part of [`reward`].
    pub fn new(instance: &'a Instance) -> Self {
        Rewarder {
            instance,
            limits: Limits::of(instance),
            gold_dist: metrics::total_char_distance(&instance.inputs, &instance.outputs),
        }
    }

    /// The same value as [`reward`]`(instance, response)`.
    pub fn reward(&self, response: &str) -> f64 {
        let parsed = parse_response(response, &self.limits, BlockChoice::Last);
        // The valid rules, in order: the cascade of `parsed` without building it.
        let rules: Vec<(&str, &str)> = parsed
            .rules
            .iter()
            .filter(|r| r.is_valid())
            .filter_map(|r| match (&r.pattern, &r.replacement) {
                (Some(a), Some(b)) if !a.is_empty() => Some((a.as_str(), b.as_str())),
                _ => None,
            })
            .collect();
        let mut pred_dist = 0;
        let (mut cur, mut next) = (String::new(), String::new());
        for (input, output) in self.instance.inputs.iter().zip(&self.instance.outputs) {
            cur.clear();
            cur.push_str(input);
            for &(a, b) in &rules {
                if crate::rule::replace_into(&cur, a, b, &mut next) {
                    std::mem::swap(&mut cur, &mut next);
                }
            }
            pred_dist += metrics::char_distance(&cur, output);
        }
        metrics::edit_sim_ratio(pred_dist, self.gold_dist)
    }
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
    for &k in &ks {
        // A missing instance has its one empty response: k is capped at 1 for it.
        let mut pass = Vec::with_capacity(scores.len());
        let mut sim = Vec::with_capacity(scores.len());
        for s in scores {
            let n = s.samples.len();
            let k = k.min(n);
            pass.push(metrics::pass_at_k(n, s.passing_samples(), k).unwrap_or(0.0));
            let sims: Vec<f64> = s.samples.iter().map(|x| x.edit_sim).collect();
            sim.push(metrics::best_of_k_average(&sims, k).unwrap_or(0.0));
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses {
    /// The file read (empty for in-memory input).
    pub path: PathBuf,
    /// Responses per instance id, in sample order.
    pub by_id: HashMap<String, Vec<String>>,
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
pub struct ResponseRecord {
    /// The instance.
    pub instance: InstanceRef,
    /// The sample number, when the line holds one sample of several.
    pub sample: Option<usize>,
    /// The responses of the line (a `null` response reads as empty: no answer).
    pub responses: Vec<String>,
}

/// Reads one line in any accepted format:
/// `{"id", "response"}`, `{"id", "sample", "response"}`, `{"id", "responses": […]}`, or the
/// authors' result record `{"input": {…, "index": N | "N_j"}, "outputs": […]}`. A response
/// is a string, `null` (empty), or a message object with `content` (or `text`); thinking
/// fields (`reasoning_content`, `chains_of_thought`) are never read.
pub fn parse_response_line(line: &str) -> Result<ResponseRecord, String> {
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
pub struct ResponseCollector<'a> {
    ids: HashSet<&'a str>,
    dataset: &'a [Instance],
    whole: HashMap<String, usize>,
    samples: HashMap<String, BTreeMap<usize, (usize, String)>>,
    out: Responses,
}

impl<'a> ResponseCollector<'a> {
    /// An empty collection for `dataset`.
    pub fn new(dataset: &'a [Instance]) -> Self {
        ResponseCollector {
            ids: dataset.iter().map(|i| i.id.as_str()).collect(),
            dataset,
            whole: HashMap::new(),
            samples: HashMap::new(),
            out: Responses::default(),
        }
    }

    /// Adds the record read from 1-based `line`.
    pub fn add(&mut self, line: usize, record: ResponseRecord) {
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
    pub fn finish(mut self) -> Responses {
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
/// parallel, a chunk at a time, so memory stays bounded.
pub fn read_responses(
    path: impl AsRef<Path>,
    dataset: &[Instance],
) -> Result<Responses, ResponsesError> {
    const CHUNK: usize = 1024;
    let path = path.as_ref();
    let io_err = |source| ResponsesError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = BufReader::new(File::open(path).map_err(io_err)?);
    let mut collector = ResponseCollector::new(dataset);
    let mut line = 0;
    let mut chunk: Vec<(usize, Vec<u8>)> = Vec::with_capacity(CHUNK);
    // Lines of one file have similar lengths: sizing each buffer from the previous line
    // saves the repeated growth (and copying) of a buffer that starts empty.
    let mut hint = 0;
    loop {
        let mut done = false;
        while chunk.len() < CHUNK {
            let mut buf = Vec::with_capacity(hint + hint / 8);
            if reader.read_until(b'\n', &mut buf).map_err(io_err)? == 0 {
                done = true;
                break;
            }
            hint = buf.len();
            line += 1;
            chunk.push((line, buf));
        }
        let records: Vec<Result<Option<ResponseRecord>, ResponsesError>> = chunk
            .par_iter()
            .map(|(line, bytes)| {
                read_line(bytes).map_err(|message| ResponsesError::Line {
                    path: path.to_path_buf(),
                    line: *line,
                    message,
                })
            })
            .collect();
        for ((line, _), record) in chunk.drain(..).zip(records) {
            if let Some(record) = record? {
                collector.add(line, record);
            }
        }
        if done {
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
    dataset
        .par_iter()
        .map(|instance| {
            let given = responses
                .by_id
                .get(&instance.id)
                .map_or(&[][..], Vec::as_slice);
            score_instance(instance, given, options)
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
pub fn report(
    scores: &[InstanceScore],
    responses: &Responses,
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
    use crate::rule::Rule;

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
