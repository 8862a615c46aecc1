//! Grades of episodes (issue 21, item 4): per episode the final cascade, probes used,
//! turns, tokens, cost, Pass@1 on the visible examples, and held-out pass over the
//! held-out examples the solver did not probe; and their summary over a run.
//!
//! Everything is computed from the stored episode records and the dataset, so `--rescore`
//! gives the same figures without a request.

use crate::sample::Prices;
use crate::store::EpisodeRow;
use pbebench::probe::Probe;
use pbebench::{Cascade, Instance};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The grades of one episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpisodeGrade {
    /// The instance.
    pub instance_id: String,
    /// The sample (episode) index.
    pub sample: u32,
    /// Why it ended.
    pub end_reason: String,
    /// Where the final cascade came from.
    pub final_source: String,
    /// The final cascade, as the solver gave it (its rules past `max_rules` or breaking a
    /// limit are not graded, as in scoring).
    pub final_cascade: Cascade,
    /// Probe inputs used.
    pub probes_used: usize,
    /// Candidates tested.
    pub tests: usize,
    /// Turns taken.
    pub turns: u32,
    /// Prompt tokens over the turns.
    pub prompt_tokens: u64,
    /// Completion tokens over the turns (reasoning included).
    pub completion_tokens: u64,
    /// Cost at the run's prices.
    pub cost: f64,
    /// The final cascade (its rules within the instance's limits) reproduces every visible
    /// example.
    pub pass: bool,
    /// It reproduces every held-out example whose input was not probed; `None` when no
    /// such example is left.
    pub heldout_pass: Option<bool>,
    /// Held-out examples graded.
    pub heldout_unprobed: usize,
    /// Held-out examples left out because the solver probed their input.
    pub heldout_excluded: usize,
    /// Equivalent to the gold on the instance's whole input space (`docs/metrics.md#behaviour`).
    pub recovered: Option<bool>,
    /// Agreement with the gold where the gold changes its input (`docs/metrics.md#behaviour`).
    pub behaviour: Option<f64>,
}

/// Grades one stored episode against its instance, by the core's one grading path
/// ([`pbebench::probe::grade`]): the final cascade is graded as static scoring grades it
/// (rules past `max_rules` or breaking a limit left out), so the run's table and this
/// grade agree on pass, Recovered@1 and behaviour; held-out pass counts the held-out
/// examples the solver did not probe.
pub fn grade_episode(instance: &Instance, row: &EpisodeRow, prices: Prices) -> EpisodeGrade {
    let cascade: Cascade = serde_json::from_value(row.final_cascade.clone()).unwrap_or_default();
    let probes: Vec<Probe> = serde_json::from_value(row.probes.clone()).unwrap_or_default();
    let grade = pbebench::probe::grade(instance, &cascade, &probes);
    EpisodeGrade {
        instance_id: row.instance_id.clone(),
        sample: row.sample,
        end_reason: row.end_reason.clone(),
        final_source: row.final_source.clone(),
        probes_used: row.probes_used,
        tests: row.tests,
        turns: row.turns,
        prompt_tokens: row.usage.prompt_tokens.unwrap_or(0),
        completion_tokens: row.usage.completion_tokens.unwrap_or(0),
        cost: row.usage.cost(prices),
        pass: grade.pass,
        heldout_pass: grade.heldout_pass,
        heldout_unprobed: grade.heldout_unprobed,
        heldout_excluded: grade.heldout_excluded,
        recovered: grade.recovered,
        behaviour: grade.behaviour,
        final_cascade: cascade,
    }
}

/// The summary of a run's episodes. Rates are over the run's expected episodes
/// (instances × K), an episode not yet ended counting as a failure, except held-out pass
/// (over the episodes with unprobed held-out examples left).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteractiveSummary {
    /// Instances × K.
    pub expected: usize,
    /// Episodes ended.
    pub episodes: usize,
    /// Pass@1 on the visible examples: the share of episodes whose final cascade passes.
    pub pass_at_1: f64,
    /// Held-out pass over unprobed held-out examples; `None` without any.
    pub heldout_pass: Option<f64>,
    /// Episodes with unprobed held-out examples.
    pub heldout_episodes: usize,
    /// Held-out examples excluded because they were probed, over all episodes.
    pub heldout_excluded: usize,
    /// Recovered@1: the share of the expected episodes whose final cascade is equivalent
    /// to the gold; `None` when no ended episode has a gold to compare.
    pub recovered_at_1: Option<f64>,
    /// Episodes whose comparison with the gold stayed undecided (an engine bound), counted
    /// as not recovered (0 in a file written before it was counted).
    #[serde(default)]
    pub undecided: usize,
    /// Mean behaviour over the ended episodes that have one; `None` without any.
    pub mean_behaviour: Option<f64>,
    /// Mean probe inputs per ended episode.
    pub mean_probes: f64,
    /// Mean turns per ended episode.
    pub mean_turns: f64,
    /// Episodes by end reason.
    pub end_reasons: BTreeMap<String, usize>,
    /// Episodes by where their final cascade came from.
    pub final_sources: BTreeMap<String, usize>,
    /// Tokens over every episode.
    pub prompt_tokens: u64,
    /// Completion tokens over every episode.
    pub completion_tokens: u64,
    /// Cost over every episode.
    pub cost: f64,
}

/// Every ended episode's grades and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InteractiveResults {
    /// The summary.
    pub summary: InteractiveSummary,
    /// One entry per ended episode, by instance id and sample.
    pub episodes: Vec<EpisodeGrade>,
}

/// Grades the stored episodes (sample index < `k`) of `instances`.
pub fn grade_episodes(
    instances: &[Instance],
    rows: &[EpisodeRow],
    k: u32,
    prices: Prices,
) -> InteractiveResults {
    let by_id: HashMap<&str, &Instance> = instances.iter().map(|i| (i.id.as_str(), i)).collect();
    let episodes: Vec<EpisodeGrade> = rows
        .iter()
        .filter(|r| r.sample < k)
        .filter_map(|r| Some(grade_episode(by_id.get(r.instance_id.as_str())?, r, prices)))
        .collect();
    let expected = instances.len() * k as usize;
    let n = episodes.len();
    let share = |count: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            count as f64 / of as f64
        }
    };
    let mean = |f: &dyn Fn(&EpisodeGrade) -> f64| {
        if n == 0 {
            0.0
        } else {
            episodes.iter().map(f).sum::<f64>() / n as f64
        }
    };
    let heldout: Vec<bool> = episodes.iter().filter_map(|e| e.heldout_pass).collect();
    let tally = |key: &dyn Fn(&EpisodeGrade) -> &str| {
        let mut m = BTreeMap::new();
        for e in &episodes {
            *m.entry(key(e).to_owned()).or_insert(0) += 1;
        }
        m
    };
    let summary = InteractiveSummary {
        expected,
        episodes: n,
        pass_at_1: share(episodes.iter().filter(|e| e.pass).count(), expected),
        heldout_pass: (!heldout.is_empty())
            .then(|| share(heldout.iter().filter(|p| **p).count(), heldout.len())),
        heldout_episodes: heldout.len(),
        heldout_excluded: episodes.iter().map(|e| e.heldout_excluded).sum(),
        recovered_at_1: episodes.iter().any(|e| e.recovered.is_some()).then(|| {
            share(
                episodes
                    .iter()
                    .filter(|e| e.recovered == Some(true))
                    .count(),
                expected,
            )
        }),
        undecided: episodes
            .iter()
            .filter(|e| e.recovered.is_none() && by_id[e.instance_id.as_str()].cascade.is_some())
            .count(),
        mean_behaviour: {
            let b: Vec<f64> = episodes.iter().filter_map(|e| e.behaviour).collect();
            (!b.is_empty()).then(|| b.iter().sum::<f64>() / b.len() as f64)
        },
        mean_probes: mean(&|e| e.probes_used as f64),
        mean_turns: mean(&|e| f64::from(e.turns)),
        end_reasons: tally(&|e| e.end_reason.as_str()),
        final_sources: tally(&|e| e.final_source.as_str()),
        prompt_tokens: episodes.iter().map(|e| e.prompt_tokens).sum(),
        completion_tokens: episodes.iter().map(|e| e.completion_tokens).sum(),
        cost: episodes.iter().map(|e| e.cost).sum(),
    };
    InteractiveResults { summary, episodes }
}

impl fmt::Display for InteractiveResults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.summary;
        let opt = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.4}"));
        let counts = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        writeln!(
            f,
            "interactive        {}/{} episodes ended",
            s.episodes, s.expected
        )?;
        writeln!(f, "  Pass@1 (visible) {:.4}", s.pass_at_1)?;
        writeln!(
            f,
            "  held-out pass    {} over {} episodes with unprobed held-out examples ({} probed ones excluded)",
            opt(s.heldout_pass),
            s.heldout_episodes,
            s.heldout_excluded
        )?;
        writeln!(
            f,
            "  Recovered@1      {} · behaviour {} (exact, over the input space{})",
            opt(s.recovered_at_1),
            opt(s.mean_behaviour),
            if s.undecided > 0 {
                format!("; {} undecided, counted as not recovered", s.undecided)
            } else {
                String::new()
            }
        )?;
        writeln!(
            f,
            "  per episode      {:.1} probes · {:.1} turns",
            s.mean_probes, s.mean_turns
        )?;
        writeln!(f, "  ended by         {}", counts(&s.end_reasons))?;
        write!(f, "  final cascade    {}", counts(&s.final_sources))
    }
}
