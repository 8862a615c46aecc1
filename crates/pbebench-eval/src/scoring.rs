//! The runner's only door to prompts and scores: prompts come from [`pbebench::prompt`],
//! every figure from [`pbebench::score`] (SPEC §5), so a run scores exactly as
//! `pbebench score` would on the same responses. This module adds only what a run knows
//! besides the answers: statuses, tokens, cost, latency.

use crate::sample::{Prices, Sample, Status};
use crate::store::{RunStore, StoreError};
use pbebench::score::{self, Aggregate, InstanceScore, Responses, ScoreOptions, ScoreReport};
use pbebench::Instance;
use rayon::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// Which fenced block of a response is scored (`--block first|last`).
pub type Block = pbebench::response::BlockChoice;

/// The prompt template of a run: the shared default or a user's file.
#[derive(Debug, Clone)]
pub struct Template {
    template: pbebench::prompt::Template,
    text: String,
    file: Option<String>,
}

impl Template {
    /// Loads and checks `path`, or takes the default template when `None`.
    pub fn load(path: Option<&Path>) -> Result<Self, String> {
        let (text, file) = match path {
            None => (pbebench::prompt::DEFAULT_TEMPLATE.to_owned(), None),
            Some(p) => (
                std::fs::read_to_string(p)
                    .map_err(|e| format!("--template {}: {e}", p.display()))?,
                Some(p.display().to_string()),
            ),
        };
        let template = pbebench::prompt::Template::parse(&text).map_err(|e| match &file {
            Some(f) => format!("--template {f}: {e}"),
            None => e.to_string(),
        })?;
        Ok(Template {
            template,
            text,
            file,
        })
    }

    /// What looks wrong with the template ([`pbebench::prompt::Template::warnings`]),
    /// naming its file.
    pub fn warnings(&self) -> Vec<String> {
        let file = self.file.as_deref().unwrap_or("the default template");
        self.template
            .warnings()
            .into_iter()
            .map(|w| format!("--template {file}: {w}"))
            .collect()
    }

    /// The prompt of one instance.
    pub fn render(&self, instance: &Instance) -> String {
        self.template.render(instance)
    }

    /// What identifies the template in a manifest: its file (if any) and the SHA-256 of
    /// its text, since a changed template changes answers.
    pub fn describe(&self) -> Value {
        json!({
            "file": self.file,
            "sha256": crate::fingerprint::hex(&Sha256::digest(self.text.as_bytes())),
        })
    }
}

/// True when the response passes (every example reproduced), scored by
/// [`score::score_instance`] like any other response.
pub fn passes(instance: &Instance, response: &str, block: Block) -> bool {
    score::score_instance(instance, &[response], &ScoreOptions { block }).pass
}

/// A run's figures: what the store holds, and the shared scoring path's report.
#[derive(Debug, Clone)]
pub struct Report {
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
    /// The scores: [`score::report`] over the answered samples. An instance without an
    /// answered sample is missing (scored as a failure and listed).
    pub scores: ScoreReport,
    /// Per-instance scores, in dataset order.
    pub instances: Vec<InstanceScore>,
}

/// Instances scored together (in parallel) while a store is read.
const CHUNK: usize = 256;

/// Scores the answered samples (index < `k`) of `instances` held in `store`, and gathers
/// the run's statistics. The store is read row by row and scored a chunk of instances at a
/// time, so memory does not grow with the number of samples.
pub fn report(
    instances: &[Instance],
    store: &RunStore,
    k: u32,
    block: Block,
    prices: Prices,
) -> Result<Report, StoreError> {
    let options = ScoreOptions { block };
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
            .map(|(i, rs)| (*i, score::score_instance(&instances[*i], rs, &options)))
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
        .map(|(s, inst)| s.unwrap_or_else(|| score::score_instance::<&str>(inst, &[], &options)))
        .collect();
    Ok(tally.into_report(
        instances.len() * k as usize,
        score::report(&scores, &Responses::<String>::default(), &options),
        scores,
    ))
}

/// The run's figures besides the scores, added up sample by sample.
#[derive(Default)]
struct Tally {
    answered: usize,
    counts: HashMap<Status, usize>,
    prompt: u64,
    completion: u64,
    reasoning: u64,
    cost: f64,
    latencies: Vec<f64>,
}

impl Tally {
    fn add(&mut self, s: &Sample, prices: Prices) {
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

    fn into_report(
        mut self,
        expected: usize,
        scores: ScoreReport,
        instances: Vec<InstanceScore>,
    ) -> Report {
        self.latencies.sort_by(f64::total_cmp);
        let pct = |p: f64| {
            if self.latencies.is_empty() {
                0.0
            } else {
                self.latencies[((self.latencies.len() - 1) as f64 * p).round() as usize]
            }
        };
        Report {
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

impl Report {
    /// The overall aggregate of the scores.
    pub fn overall(&self) -> &Aggregate {
        &self.scores.summary.overall
    }

    /// The report as JSON (`RUN_DIR/results.json`): the run's figures under `run`, the
    /// scoring path's report under `scores`.
    pub fn to_json(&self) -> Value {
        json!({
            "run": {
                "answered": self.answered,
                "expected": self.expected,
                "statuses": self.statuses.iter()
                    .map(|(s, n)| (s.as_str().to_owned(), json!(n)))
                    .collect::<serde_json::Map<_, _>>(),
                "tokens": {
                    "prompt": self.prompt_tokens,
                    "completion": self.completion_tokens,
                    "reasoning": self.reasoning_tokens,
                },
                "cost": self.cost,
                "latency_ms": {"p50": self.latency_p50_ms, "p95": self.latency_p95_ms},
            },
            "scores": self.scores,
        })
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
        )?;
        writeln!(f, "block scored       {}", self.scores.options.block)?;
        if !self.scores.missing.is_empty() {
            writeln!(
                f,
                "no answer          {} instances (scored as failures)",
                self.scores.missing.len()
            )?;
        }
        writeln!(f)?;
        summary_table(f, &self.scores)
    }
}

/// The summary table: overall, then by cascade length.
fn summary_table(f: &mut fmt::Formatter<'_>, report: &ScoreReport) -> fmt::Result {
    let opt = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.4}"));
    writeln!(
        f,
        "{:<10} {:>9} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "slice",
        "instances",
        "Pass@1",
        "EditSim",
        "EditSimW",
        "Valid",
        "reward",
        "resolved",
        "held-out"
    )?;
    let row = |f: &mut fmt::Formatter<'_>, name: &str, a: &Aggregate| {
        writeln!(
            f,
            "{:<10} {:>9} {:>8.4} {:>8.4} {:>9.4} {:>8} {:>8.4} {:>8.4} {:>8}",
            name,
            a.instances,
            a.pass,
            a.edit_sim,
            a.edit_sim_word,
            opt(a.valid_rate),
            a.mean_reward,
            a.resolved,
            opt(a.heldout_pass)
        )
    };
    row(f, "overall", &report.summary.overall)?;
    for (len, a) in &report.summary.by_cascade_len {
        row(f, &format!("length {len}"), a)?;
    }
    let pass_at_k: Vec<String> = report
        .summary
        .overall
        .pass_at_k
        .iter()
        .map(|(k, v)| format!("pass@{k} {v:.4}"))
        .collect();
    if !pass_at_k.is_empty() {
        write!(f, "{}", pass_at_k.join(" · "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Usage;
    use pbebench::{Cascade, RelationMode, Rule};

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
    fn chunked_report_equals_the_shared_path() {
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
        let got = report(&instances, &store, 2, Block::Last, prices).unwrap();
        let options = ScoreOptions { block: Block::Last };
        let expected = score::score_dataset(&instances, &responses, &options);
        assert_eq!(got.instances, expected);
        assert_eq!(got.scores.summary, score::summarize(&expected));
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
