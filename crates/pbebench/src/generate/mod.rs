//! The PBEBench generator (`docs/generator.md`, the paper's Algorithm 1): rejection sampling of
//! random inputs and cascades, balanced by relation category and/or cascade length.
//!
//! # Determinism
//! The dataset is cut into *blocks* (one per cascade length when balancing by length, a
//! single block when balancing by category). Attempt `t` of block `b` draws from its own
//! random stream, a pure function of `(seed, b, t)`, so candidates can be sampled and
//! classified in parallel and then accepted strictly in order of `t`. The output is
//! therefore the same whatever the thread count or batch size, and a shard regenerates
//! only the blocks that overlap its slice of the dataset.

mod attempt;
mod bytes;
mod draws;
mod heldout;
mod inputs;
mod letters;
mod params;
mod patterns;
mod sampler;
mod shape;
mod stats_file;

pub use params::{
    alphabet, parse_alphabet, parse_lengths, parse_range, Balance, GenParams, MaxRules, Overrides,
    ParamError, ParseError, PatternDraw, Preset, MAX_HELDOUT,
};
pub use stats_file::{to_sorted_json, StatsFile};

use crate::instance::Instance;
use crate::relations::{Category, Relations};
use crate::rule::Cascade;
use attempt::{draw_attempt, BlockShape, Candidate, FullCategories};
use heldout::draw_heldout;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use sampler::{Sampler, Scratch};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Why a generation attempt was not accepted. An attempt is counted under the first
/// reason that becomes certain while it is sampled: its category can be known to fall in
/// a full quota before its cascade is complete (and then it is not sampled further), or
/// too few steps can be left for the length it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// Fewer rules survived than the block needs (rules that change nothing are dropped).
    TooShort,
    /// The cascade maps every input to itself.
    OutputsEqualInputs,
    /// Same inputs, outputs and cascade as an accepted instance.
    Duplicate,
    /// The instance's category quota is full and patience is not yet exhausted.
    QuotaFull,
}

impl Rejection {
    /// Every reason, in report order.
    pub const ALL: [Rejection; 4] = [
        Rejection::TooShort,
        Rejection::OutputsEqualInputs,
        Rejection::Duplicate,
        Rejection::QuotaFull,
    ];
}

/// Why generation stopped before producing the requested dataset.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The parameters are inconsistent.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// A block made no progress for too long; the message says which and why.
    #[error("{0}")]
    Stalled(String),
    /// The sink (usually a file) failed.
    #[error("writing an instance failed: {0}")]
    Sink(#[source] SinkError),
}

/// What a sink that cannot take an instance gives back: its own error, whatever its type
/// (a file's `std::io::Error`, a closed channel, …), kept as the source of
/// [`GenerateError::Sink`].
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// Counters of one generation run; the `stats` of `--stats-json` ([`StatsFile`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GenStats {
    /// Attempts consumed (candidates sampled, in attempt order, up to the last one needed).
    pub attempts: u64,
    /// Instances accepted (written).
    pub accepted: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// `accepted / attempts`.
    pub efficiency: f64,
    /// Rejected attempts by reason.
    pub rejections: BTreeMap<Rejection, u64>,
    /// Accepted instances by cascade length, then by category.
    pub categories_by_length: BTreeMap<usize, BTreeMap<String, u64>>,
    /// KL divergence of each length's category counts from uniform ([`kl_from_uniform`]).
    pub kl_by_length: BTreeMap<usize, f64>,
    /// KL divergence of all accepted instances' categories from uniform.
    pub kl_overall: f64,
    /// Mean over accepted instances' rules of the number of examples the rule changes.
    pub mean_examples_changed_per_rule: f64,
    /// Seconds spent classifying relations, summed over threads: an estimate (memo misses
    /// are timed on every attempt, the rest on every 16th attempt and scaled up).
    pub classify_seconds: f64,
    /// Blocks (named by cascade length, or 0 for the single category-balanced block) whose
    /// patience ran out, so that category quotas were relaxed there.
    pub patience_exhausted: Vec<usize>,
    #[serde(skip)]
    rules_total: u64,
    #[serde(skip)]
    rules_changed_examples: u64,
}

impl GenStats {
    fn record_accept(&mut self, inst: &Instance, changed: &[usize]) {
        self.accepted += 1;
        let cat = inst.category.map(|c| c.to_string()).unwrap_or_default();
        *self
            .categories_by_length
            .entry(inst.cascade_len)
            .or_default()
            .entry(cat)
            .or_default() += 1;
        self.rules_total += changed.len() as u64;
        self.rules_changed_examples += changed.iter().map(|&c| c as u64).sum::<u64>();
    }

    fn finish(&mut self, seconds: f64) {
        self.seconds = seconds;
        self.efficiency = if self.attempts == 0 {
            0.0
        } else {
            self.accepted as f64 / self.attempts as f64
        };
        self.mean_examples_changed_per_rule = if self.rules_total == 0 {
            0.0
        } else {
            self.rules_changed_examples as f64 / self.rules_total as f64
        };
        let mut overall = [0u64; 16];
        self.kl_by_length.clear();
        for (&len, cats) in &self.categories_by_length {
            let mut counts = [0u64; 16];
            for (cat, &n) in cats {
                if let Ok(c) = cat.parse::<Category>() {
                    counts[c.index()] += n;
                    overall[c.index()] += n;
                }
            }
            self.kl_by_length.insert(len, kl_from_uniform(&counts));
        }
        self.kl_overall = kl_from_uniform(&overall);
    }
}

/// `D_KL(U ‖ Q)` of category counts from the uniform distribution over the 16 categories,
/// with add-one (Laplace) smoothing of `Q` so that missing categories give a finite value:
/// `Q(c) = (n_c + 1) / (N + 16)`, `D = Σ_c (1/16) ln((1/16) / Q(c))`. Zero for perfect balance.
pub fn kl_from_uniform(counts: &[u64; 16]) -> f64 {
    let total: u64 = counts.iter().sum();
    let u = 1.0 / 16.0;
    counts
        .iter()
        .map(|&n| {
            let q = (n as f64 + 1.0) / (total as f64 + 16.0);
            u * (u / q).ln()
        })
        .sum()
}

/// Progress events for a caller's progress bar.
pub trait Progress: Sync {
    /// `accepted` of `target` instances are done after `attempts` attempts in all.
    fn update(&self, accepted: u64, target: u64, attempts: u64);
}

impl Progress for () {
    fn update(&self, _: u64, _: u64, _: u64) {}
}

/// One independently generated part of the dataset.
#[derive(Debug, Clone)]
struct Block {
    /// Index of the block: part of every random stream's key.
    id: u64,
    /// Cascade lengths to sample ℓ from.
    lengths: Vec<usize>,
    /// Require exactly ℓ surviving rules (length-balanced blocks).
    exact_length: bool,
    /// Instances in the block.
    target: usize,
    /// Per-category quota before patience runs out, when balancing by category.
    quota: Option<usize>,
    /// Global index of the block's first instance.
    offset: usize,
}

fn plan_blocks(p: &GenParams) -> Vec<Block> {
    match p.balance {
        Balance::Category => vec![Block {
            id: 0,
            lengths: p.cascade_lens.clone(),
            exact_length: false,
            target: p.size,
            quota: Some(p.size / 16),
            offset: 0,
        }],
        Balance::Length | Balance::Joint => {
            let per = p.size / p.cascade_lens.len();
            p.cascade_lens
                .iter()
                .enumerate()
                .map(|(k, &len)| Block {
                    id: len as u64,
                    lengths: vec![len],
                    exact_length: true,
                    target: per,
                    quota: (p.balance == Balance::Joint).then_some(per / 16),
                    offset: k * per,
                })
                .collect()
        }
    }
}

/// Generates the dataset described by `params` (only the slice of shard `k/N` when
/// `params.shard` is set), handing each instance to `sink` in dataset order.
///
/// Runs on the current rayon pool: callers choose the thread count by installing a pool.
pub fn generate(
    params: &GenParams,
    progress: &dyn Progress,
    sink: &mut dyn FnMut(Instance) -> Result<(), SinkError>,
) -> Result<GenStats, GenerateError> {
    params.validate()?;
    let start = Instant::now();
    let (lo, hi) = params.shard_range();
    let mut stats = GenStats::default();
    for block in plan_blocks(params) {
        if block.offset + block.target <= lo || block.offset >= hi {
            continue;
        }
        run_block(params, &block, (lo, hi), progress, sink, &mut stats)?;
    }
    stats.finish(start.elapsed().as_secs_f64());
    Ok(stats)
}

/// Rejection sampling within one block (Algorithm 1), in batches of attempts sampled in
/// parallel and accepted in order.
fn run_block(
    p: &GenParams,
    block: &Block,
    (lo, hi): (usize, usize),
    progress: &dyn Progress,
    sink: &mut dyn FnMut(Instance) -> Result<(), SinkError>,
    stats: &mut GenStats,
) -> Result<(), GenerateError> {
    let mut quotas = [block.quota.unwrap_or(usize::MAX); 16];
    // The keys of the accepted candidates: exact, so no two distinct instances collide.
    let mut seen: FxHashSet<Box<[u8]>> = FxHashSet::default();
    let mut accepted = 0usize;
    let mut t: u64 = 0;
    let mut last_accept: u64 = 0;
    // Counts by reason (`Rejection as usize`): a map costs too much per attempt.
    let mut reasons = [0u64; Rejection::ALL.len()];
    let batch = (rayon::current_num_threads() as u64 * 64).max(64);
    // Stop only past the point where the block can no longer end: how long to wait
    // without any acceptance after patience is exhausted.
    let stall_limit = p.patience.max(100_000).saturating_mul(2);
    let needed = (block.offset + block.target).min(hi) - block.offset;
    let sampler = Sampler::new(p);
    let shape = BlockShape {
        key: block_key(block),
        lengths: &block.lengths,
        exact_length: block.exact_length,
    };
    while accepted < needed {
        let full = FullCategories::new(
            (0..16)
                .filter(|&c| quotas[c] == 0)
                .fold(0, |set, c| set | 1 << c),
        );
        for (outcome, classify_secs) in draw_batch(p, &sampler, shape, t..t + batch, full) {
            stats.attempts += 1;
            stats.classify_seconds += classify_secs;
            let attempt = t;
            t += 1;
            let mut cand = match outcome {
                Ok(cand) => cand,
                Err(r) => {
                    reasons[r as usize] += 1;
                    continue;
                }
            };
            let c = cand.category.index();
            let patient = attempt < p.patience;
            if patient && quotas[c] == 0 {
                reasons[Rejection::QuotaFull as usize] += 1;
                continue;
            }
            // Checked after the quota, so that only candidates that would be accepted pay
            // for hashing; a rejected duplicate is counted as such only then.
            if seen.contains(&cand.key) {
                reasons[Rejection::Duplicate as usize] += 1;
                continue;
            }
            if patient {
                quotas[c] -= 1;
            } else if !stats.patience_exhausted.contains(&(block.id as usize)) {
                stats.patience_exhausted.push(block.id as usize);
            }
            seen.insert(std::mem::take(&mut cand.key));
            let index = block.offset + accepted;
            accepted += 1;
            last_accept = attempt;
            if index >= lo {
                let changed = std::mem::take(&mut cand.changed);
                let inst = finish_instance(p, &sampler, block, attempt, index, *cand);
                stats.record_accept(&inst, &changed);
                sink(inst).map_err(GenerateError::Sink)?;
            }
            if accepted == needed {
                break;
            }
        }
        progress.update(stats.accepted, (hi - lo) as u64, stats.attempts);
        if accepted < needed && t >= p.patience && t - last_accept.max(p.patience) > stall_limit {
            return Err(stalled(block, accepted, stall_limit, &reasons));
        }
    }
    for (r, n) in counted(&reasons) {
        *stats.rejections.entry(r).or_default() += n;
    }
    Ok(())
}

/// The attempts `attempts` of a block, sampled in parallel, each with the seconds its
/// classification took. Workers keep (copy out of their buffers) only the candidates whose
/// category was not `full` when the batch began (all, past patience), so the many rejected
/// ones allocate nothing. (Boxed: an outcome is mostly a rejection, and the vector of 64
/// stays small.)
fn draw_batch(
    p: &GenParams,
    sampler: &Sampler,
    shape: BlockShape<'_>,
    attempts: std::ops::Range<u64>,
    full: FullCategories,
) -> Vec<(Result<Box<Candidate>, Rejection>, f64)> {
    attempts
        .into_par_iter()
        .map(|attempt| {
            let full = if attempt < p.patience {
                full
            } else {
                FullCategories::default()
            };
            // Each worker thread keeps its buffers from batch to batch.
            SCRATCH.with_borrow_mut(|scratch| {
                let (outcome, secs) = draw_attempt(p, sampler, shape, attempt, full, scratch);
                (
                    outcome.map(|c| Box::new(scratch.candidate(&sampler.letters, c))),
                    secs,
                )
            })
        })
        .collect()
}

/// Why a block that accepted `accepted` instances and nothing in the last `stall_limit`
/// attempts stops, with its rejections by reason.
fn stalled(
    block: &Block,
    accepted: usize,
    stall_limit: u64,
    reasons: &[u64; Rejection::ALL.len()],
) -> GenerateError {
    let mut why: Vec<String> = counted(reasons)
        .map(|(r, n)| format!("{r:?}: {n}"))
        .collect();
    why.sort();
    GenerateError::Stalled(format!(
        "generation cannot progress: block with cascade lengths {:?} accepted {accepted} of {} \
         instances and nothing in the last {stall_limit} attempts (rejections: {}); \
         widen the alphabet, input or rule lengths, or lower --size",
        block.lengths,
        block.target,
        why.join(", ")
    ))
}

/// The reasons with a nonzero count in `counts` (indexed by `Rejection as usize`).
fn counted(counts: &[u64; Rejection::ALL.len()]) -> impl Iterator<Item = (Rejection, u64)> + '_ {
    Rejection::ALL
        .into_iter()
        .map(|r| (r, counts[r as usize]))
        .filter(|&(_, n)| n > 0)
}

thread_local! {
    /// The sampling buffers of a worker thread (see [`Scratch`]).
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

fn block_key(block: &Block) -> u64 {
    block.id
}

/// Turns an accepted candidate into an instance: id, limits, relations, held-out examples
/// (drawn from their own stream, so they never change the visible part).
fn finish_instance(
    p: &GenParams,
    sampler: &Sampler,
    block: &Block,
    attempt: u64,
    index: usize,
    cand: Candidate,
) -> Instance {
    let Candidate {
        inputs,
        outputs,
        cascade,
        category,
        ..
    } = cand;
    let cascade = Cascade::new(cascade);
    let relations = Relations::of(&cascade, p.relations);
    let (heldout_inputs, heldout_outputs) =
        draw_heldout(p, sampler, block_key(block), attempt, &inputs, &cascade);
    let cascade_len = cascade.len();
    Instance {
        id: format!("{}-s{}-{:05}", p.name, p.seed, index),
        inputs,
        outputs,
        cascade_len,
        category: Some(category),
        relations_mode: p.relations,
        max_rules: p.max_rules.for_length(cascade_len),
        max_rule_len: p.rule_len.1,
        alphabet: p.alphabet.iter().collect(),
        heldout_inputs,
        heldout_outputs,
        interactions: relations.interactions(),
        symbols: Default::default(),
        cascade: Some(cascade),
    }
}

#[cfg(test)]
mod tests;
