//! The runner's door to scores and results (its prompts are [`crate::template`]'s): every
//! figure comes from pbebench's scoring path (`docs/metrics.md`), and
//! `results.json` is pbebench's [`Results`], so a run scores, prints and saves exactly as
//! `pbebench score` would on the same responses. This module adds only what a run knows
//! besides the answers: statuses, tokens, cost, latency ([`RunFigures`]).

use crate::sample::{Prices, Sample, Status};
use crate::store::{RunStore, StoreError};
use pbebench::{
    score_instance, Aggregate, BlockChoice, Instance, InstanceScore, Latency, Responses, Results,
    RunFigures, ScoreOptions, Tokens,
};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt;

/// True when the response passes (every example reproduced), scored by
/// [`score_instance`] like any other response (without its behaviour grade, which a pass
/// does not read).
pub fn passes(instance: &Instance, response: &str, block: BlockChoice) -> bool {
    let options = ScoreOptions {
        block,
        skip_behaviour: true,
    };
    score_instance(instance, &[response], &options).pass
}

/// A run's results: what the store holds besides the answers, and the scoring path's
/// results of the answers.
#[derive(Debug, Clone)]
pub struct RunResults {
    /// Samples that hold an answer (any status but `http_error`/`timeout`), among the
    /// dataset's instances × K.
    pub answered: usize,
    /// Instances × K.
    pub expected: usize,
    /// Count of each status among the run's samples.
    pub statuses: Vec<(Status, usize)>,
    /// Sum of prompt tokens.
    pub prompt_tokens: u64,
    /// Sum of completion tokens.
    pub completion_tokens: u64,
    /// Sum of reasoning tokens.
    pub reasoning_tokens: u64,
    /// Cost at the run's prices.
    pub cost: f64,
    /// Median latency of answers, milliseconds.
    pub latency_p50_ms: f64,
    /// 95th-percentile latency of answers, milliseconds.
    pub latency_p95_ms: f64,
    /// The scores: [`Results::of`] the answered samples. An instance without an answered
    /// sample is missing (scored as a failure and listed).
    pub scores: Results,
    /// Per-instance scores, in dataset order.
    pub instances: Vec<InstanceScore>,
}

/// Instances scored together (in parallel) while a store is read.
const CHUNK: usize = 256;

/// Scores the answered samples (index < `k`) of `instances` held in `store`, and gathers
/// the run's figures. The store is read row by row and scored a chunk of instances at a
/// time, so memory does not grow with the number of samples.
///
/// Without `heldout` (interactive mode) held-out pass is left out (`None`): a solver may
/// have probed those inputs, and the episodes' grades count the others
/// ([`pbebench::probe::grade`]). The held-out examples still bound an answer's strings and
/// set the input space of Recovered@1 and behaviour, as in static scoring, so every other
/// figure is the episodes' own.
pub fn run_results(
    instances: &[Instance],
    store: &RunStore,
    k: u32,
    block: BlockChoice,
    prices: Prices,
    heldout: bool,
) -> Result<RunResults, StoreError> {
    let options = ScoreOptions {
        block,
        ..ScoreOptions::default()
    };
    let score = |instance: &Instance, responses: &[String]| {
        let mut s = score_instance(instance, responses, &options);
        if !heldout {
            s.heldout_pass = None;
        }
        s
    };
    let index: HashMap<&str, usize> = instances
        .iter()
        .enumerate()
        .map(|(i, inst)| (inst.id.as_str(), i))
        .collect();
    let mut tally = Tally::default();
    let mut scores: Vec<Option<InstanceScore>> = vec![None; instances.len()];
    let mut chunk: Vec<(usize, Vec<String>)> = Vec::new();
    let flush = |chunk: &mut Vec<(usize, Vec<String>)>, scores: &mut Vec<Option<InstanceScore>>| {
        let scored: Vec<(usize, InstanceScore)> = chunk
            .par_iter()
            .map(|(i, rs)| (*i, score(&instances[*i], rs)))
            .collect();
        for (i, s) in scored {
            scores[i] = Some(s);
        }
        chunk.clear();
    };
    store.scan(|s| {
        let Some(&i) = index.get(s.instance_id.as_str()) else {
            return;
        };
        if s.sample >= k {
            return;
        }
        tally.add(&s, prices);
        if !s.status.is_answer() {
            return;
        }
        // Rows come ordered by instance id, so an instance's samples are consecutive.
        match chunk.last_mut() {
            Some((last, rs)) if *last == i => rs.push(s.content.unwrap_or_default()),
            _ => {
                if chunk.len() >= CHUNK {
                    flush(&mut chunk, &mut scores);
                }
                chunk.push((i, vec![s.content.unwrap_or_default()]));
            }
        }
    })?;
    flush(&mut chunk, &mut scores);
    let scores: Vec<InstanceScore> = scores
        .into_iter()
        .zip(instances)
        .map(|(s, inst)| s.unwrap_or_else(|| score(inst, &[])))
        .collect();
    Ok(tally.into_results(
        instances.len() * k as usize,
        Results::of(&scores, &Responses::<String>::default(), &options),
        scores,
    ))
}

/// The run's figures besides the scores, added up sample by sample.
#[derive(Default)]
pub(crate) struct Tally {
    answered: usize,
    counts: HashMap<Status, usize>,
    prompt: u64,
    completion: u64,
    reasoning: u64,
    cost: f64,
    latencies: Vec<f64>,
}

impl Tally {
    pub(crate) fn add(&mut self, s: &Sample, prices: Prices) {
        *self.counts.entry(s.status).or_default() += 1;
        self.prompt += s.usage.prompt_tokens.unwrap_or(0);
        self.completion += s.usage.completion_tokens.unwrap_or(0);
        self.reasoning += s.usage.reasoning_tokens.unwrap_or(0);
        self.cost += s.usage.cost(prices);
        if s.status.is_answer() {
            self.answered += 1;
            self.latencies.push(s.latency_ms);
        }
    }

    pub(crate) fn into_results(
        mut self,
        expected: usize,
        scores: Results,
        instances: Vec<InstanceScore>,
    ) -> RunResults {
        self.latencies.sort_by(f64::total_cmp);
        let pct = |p: f64| {
            if self.latencies.is_empty() {
                0.0
            } else {
                self.latencies[((self.latencies.len() - 1) as f64 * p).round() as usize]
            }
        };
        RunResults {
            answered: self.answered,
            expected,
            statuses: Status::ALL
                .into_iter()
                .map(|st| (st, self.counts.get(&st).copied().unwrap_or(0)))
                .collect(),
            prompt_tokens: self.prompt,
            completion_tokens: self.completion,
            reasoning_tokens: self.reasoning,
            cost: self.cost,
            latency_p50_ms: pct(0.5),
            latency_p95_ms: pct(0.95),
            scores,
            instances,
        }
    }
}

impl RunResults {
    /// The overall aggregate of the scores.
    pub fn overall(&self) -> &Aggregate {
        &self.scores.summary.overall
    }

    /// The run's own figures, as `results.json` holds them.
    pub fn figures(&self) -> RunFigures {
        RunFigures {
            answered: self.answered,
            expected: self.expected,
            statuses: self
                .statuses
                .iter()
                .map(|(s, n)| (s.as_str().to_owned(), *n))
                .collect(),
            tokens: Tokens {
                prompt: self.prompt_tokens,
                completion: self.completion_tokens,
                reasoning: self.reasoning_tokens,
            },
            cost: self.cost,
            latency_ms: Latency {
                p50: self.latency_p50_ms,
                p95: self.latency_p95_ms,
            },
        }
    }

    /// The scores' [`Results`] with the run's figures, as `RUN_DIR/results.json` holds them
    /// ([`crate::RunResultsFile`]).
    pub fn results(&self) -> Results {
        Results {
            run: Some(self.figures()),
            ..self.scores.clone()
        }
    }
}

/// The run's figures, then the summary table of `pbebench score`.
impl fmt::Display for RunResults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.figures_table())?;
        writeln!(f)?;
        write!(f, "{}", self.scores)
    }
}

impl RunResults {
    /// The run's figures (samples answered and their statuses, tokens, cost, latency), as
    /// the text report shows them above the scores.
    pub fn figures_table(&self) -> String {
        let mut f = String::new();
        self.write_figures(&mut f).expect("writing to a string");
        f
    }

    fn write_figures(&self, f: &mut impl fmt::Write) -> fmt::Result {
        writeln!(f, "samples answered   {}/{}", self.answered, self.expected)?;
        for (status, n) in &self.statuses {
            if *n > 0 {
                writeln!(f, "  {:<16} {n}", status.as_str())?;
            }
        }
        writeln!(
            f,
            "tokens             prompt {} · completion {} (reasoning {})",
            self.prompt_tokens, self.completion_tokens, self.reasoning_tokens
        )?;
        if self.cost > 0.0 {
            writeln!(f, "cost               {:.4}", self.cost)?;
        }
        writeln!(
            f,
            "latency            p50 {:.2} s · p95 {:.2} s",
            self.latency_p50_ms / 1e3,
            self.latency_p95_ms / 1e3
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Usage;
    use pbebench::{score_dataset, summarize, Cascade, RelationMode, Rule};

    fn instance(i: usize) -> Instance {
        let cascade = Cascade::new(vec![Rule::new("a", "b").unwrap()]);
        let inputs = vec![format!("a{}", "c".repeat(i % 7)), "ca".to_owned()];
        Instance {
            id: format!("i{i:04}"),
            outputs: cascade.apply_all(&inputs),
            inputs,
            cascade_len: 1,
            cascade: Some(cascade),
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "abc".to_owned(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    fn sample(id: &str, k: u32, status: Status, content: &str) -> Sample {
        Sample {
            instance_id: id.to_owned(),
            sample: k,
            status,
            content: Some(content.to_owned()),
            reasoning_content: Some("long thoughts".to_owned()),
            finish_reason: None,
            usage: Usage {
                prompt_tokens: Some(10),
                completion_tokens: Some(1000),
                reasoning_tokens: None,
            },
            latency_ms: k as f64,
            elapsed_ms: 0.0,
            attempts: 1,
            endpoint: None,
            http_status: None,
            error: None,
        }
    }

    /// Streaming the store in chunks gives exactly what the shared path gives on the same
    /// responses all at once.
    #[test]
    fn chunked_results_equal_the_shared_path() {
        let instances: Vec<Instance> = (0..(2 * CHUNK + 37)).map(instance).collect();
        let pass = "```python\n[\"replace('a', 'b')\"]\n```";
        let fail = "```python\n[\"replace('c', 'b')\"]\n```";
        let mut rows = Vec::new();
        let mut responses = Responses::default();
        for (i, inst) in instances.iter().enumerate() {
            if i % 5 == 4 {
                continue; // no answer at all
            }
            let texts = [if i % 3 == 0 { pass } else { fail }, pass];
            let status = |k: usize| {
                if i % 2 == 0 && k == 1 {
                    Status::Timeout
                } else {
                    Status::Ok
                }
            };
            let mut answered = Vec::new();
            for (k, text) in texts.iter().enumerate() {
                rows.push(sample(&inst.id, k as u32, status(k), text));
                if status(k).is_answer() {
                    answered.push(text.to_string());
                }
            }
            rows.push(sample(&inst.id, 2, Status::Ok, pass)); // beyond K = 2
            responses.by_id.insert(inst.id.clone(), answered);
        }
        rows.push(sample("not-in-the-dataset", 0, Status::Ok, pass));
        let dir = tempfile::tempdir().unwrap();
        let mut store = RunStore::open(dir.path()).unwrap();
        let batch: Vec<(&Sample, &str)> = rows.iter().map(|s| (s, "request")).collect();
        store.insert(&batch).unwrap();

        let prices = Prices {
            input: 0.0,
            output: 1.0,
        };
        let got = run_results(&instances, &store, 2, BlockChoice::Last, prices, true).unwrap();
        let options = ScoreOptions {
            block: BlockChoice::Last,
            ..ScoreOptions::default()
        };
        let expected = score_dataset(&instances, &responses, &options);
        assert_eq!(got.instances, expected);
        assert_eq!(got.scores.summary, summarize(&expected));
        let answered_instances = instances.len() - instances.len() / 5;
        assert_eq!(got.scores.missing.len(), instances.len() / 5);
        let timeouts = (0..instances.len())
            .filter(|i| i % 5 != 4 && i % 2 == 0)
            .count();
        assert_eq!(got.answered, 2 * answered_instances - timeouts);
        assert_eq!(got.expected, 2 * instances.len());
        let stored = 2 * answered_instances;
        assert!((got.cost - stored as f64 * 1000.0 / 1e6).abs() < 1e-9);
        assert!(got.to_string().contains("timeout"));
    }
}
