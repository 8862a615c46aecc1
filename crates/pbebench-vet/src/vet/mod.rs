//! Vetted snapshots (issue 20, `docs/vetting.md#repair-vetted-snapshots`): the judge-and-doctor
//! loop of the ProgramBench Vetted write-up, applied to PBEBench.
//!
//! For each instance, a [`Panel`] of attackers answers from the visible examples
//! ([`run_panel`]). When an answer fits every visible example but is not equivalent to the
//! gold over the instance's input space, the shortest input on which they differ, with
//! the gold's output, becomes a new visible example, and the instance is attacked again.
//! This repeats until no attacker finds such an answer (the instance is kept) or the
//! instance holds [`VetOptions::max_examples`] examples. An instance still ambiguous
//! then, one a shortcut baseline recovers, or one whose answers cannot be compared within
//! the bounds of `pbebench::equiv`, is **replaced** by a fresh instance from the
//! generator within the same quota (same category for category-balanced datasets, same
//! cascade length and category for joint balance, same length for length balance), which
//! goes through the same loop; a dataset without generation parameters has it
//! **dropped**. Every kept instance records what was done in its `repair` field
//! ([`Repair`]).
//!
//! Held-out examples are never shown: a counterexample that is a held-out input is passed
//! over for the next input (in the space's order) that also tells the two cascades apart.
//!
//! Each slot of the dataset is a pure function of the instance, the options and its
//! position, so the output is the same whatever the thread count, and a run interrupted
//! resumes from its journal (`OUT.partial`, identified by the dataset's SHA-256 and the
//! options) without redoing the slots it holds.

mod journal;

use crate::attack::{mix, run_panel, Panel, PanelVerdict, Witness};
use journal::JournalHeader;
use pbebench::dataset::{DatasetLine, DatasetWriter};
use pbebench::equiv::{Limits, Reference};
use pbebench::generate::{self, Balance, GenParams, GenerateError, Preset};
use pbebench::{Cascade, DatasetStats, Instance, Relations};
use pbebench_io::Output;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Default cap on the visible examples of a vetted instance (`--max-examples`).
pub const DEFAULT_MAX_EXAMPLES: usize = 12;

/// The largest `--max-examples`: each added example costs a round of attacks, so the cap
/// bounds a run's time.
pub const MAX_EXAMPLES_LIMIT: usize = 1000;

/// Fresh instances tried for one slot before it is dropped, by default
/// ([`VetOptions::replacement_attempts`], `--replacements`).
pub const REPLACEMENT_ATTEMPTS: usize = 4;

/// Fresh instances tried for one slot of `full-vetted` (issue 38.5): enough to keep its
/// length quota. At lengths 12–17 with a cap of 70 examples about one fresh instance in
/// eight is kept (4 attempts left about half of those slots empty), so a slot stays
/// empty after 32 with a chance of about (7/8)^33 ≈ 1%; such a slot is reported by
/// length ([`VetSummary::dropped_by_length`]), not filled from another quota.
pub const FULL_VETTED_REPLACEMENT_ATTEMPTS: usize = 32;

/// The largest `--replacements`: each fresh instance costs a repair of its own.
pub const REPLACEMENT_ATTEMPTS_LIMIT: usize = 1000;

/// The most inputs tried when a counterexample is held out and another must be found.
const ALTERNATIVES_SEARCHED: usize = 200_000;

/// What the loop does.
#[derive(Debug, Clone)]
pub struct VetOptions {
    /// The attackers.
    pub panel: Panel,
    /// The most visible examples an instance may reach by repair.
    pub max_examples: usize,
    /// Fresh instances tried for a slot whose instance is not kept, before the slot is
    /// dropped ([`REPLACEMENT_ATTEMPTS`] by default; at most
    /// [`REPLACEMENT_ATTEMPTS_LIMIT`]).
    pub replacement_attempts: usize,
    /// The run's seed: mixed into the solvers' example orders and the replacements'
    /// generator seeds.
    pub seed: u64,
    /// Generation parameters for replacements; `None`: inferred from the instance ids
    /// ([`infer_params`]), and instances that need replacing are dropped when they cannot
    /// be.
    pub params: Option<GenParams>,
}

/// One visible example added by the repair, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AddedExample {
    /// The input (a shortest counterexample of the answer below, not a held-out input).
    pub input: String,
    /// The gold's output on it (the new example's output).
    pub output: String,
    /// The attacker whose answer fitted every visible example before.
    pub attacker: String,
    /// That answer.
    pub answer: Cascade,
    /// The answer's output on `input` (`None`: longer than the comparison's bound).
    pub answer_output: Option<String>,
}

/// Why a slot holds a fresh instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replacement {
    /// Why the instance first in this slot (and any fresh one before this) was not kept.
    pub reason: String,
    /// Which fresh instance this is for the slot (1 = the first tried).
    pub attempt: usize,
    /// The id the generator gave it (the slot keeps the id of the instance it replaces).
    pub generated_id: String,
    /// The generator's seed for it.
    pub generator_seed: u64,
}

/// What the repair did to an instance: the `repair` field of a vetted snapshot's lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repair {
    /// The attackers (`--panel`).
    pub panel: String,
    /// The run's seed.
    pub seed: u64,
    /// The cap on visible examples.
    pub max_examples: usize,
    /// Visible examples before repair.
    pub examples_before: usize,
    /// The examples added, in order (appended after the original ones).
    pub added: Vec<AddedExample>,
    /// Set when the instance is a fresh one in place of the dataset's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced: Option<Replacement>,
}

/// A line of a vetted snapshot: the instance (the dataset schema) and its `repair`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VettedInstance {
    /// The instance, with the added examples among its visible ones.
    #[serde(flatten)]
    pub instance: Instance,
    /// What was added and why.
    pub repair: Repair,
}

impl DatasetLine for VettedInstance {
    fn instance(&self) -> &Instance {
        &self.instance
    }
}

/// What became of one slot of the dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Slot {
    /// An instance is kept (the original, repaired, or a fresh one).
    Kept(Box<VettedInstance>),
    /// Nothing could be kept.
    Dropped {
        /// The id of the slot's instance.
        id: String,
        /// Why.
        reason: String,
    },
}

/// A field of [`VetOptions`] that a [`VetError`] names. A command line maps each to its
/// option ([`VetError::message`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VetField {
    /// `max_examples`.
    MaxExamples,
    /// `replacement_attempts`.
    ReplacementAttempts,
}

impl VetField {
    /// The field's name in [`VetOptions`].
    pub fn path(self) -> &'static str {
        match self {
            VetField::MaxExamples => "max_examples",
            VetField::ReplacementAttempts => "replacement_attempts",
        }
    }
}

/// Why a dataset cannot be vetted. Its text names [`VetOptions`]' fields by their names;
/// [`VetError::message`] names them as the caller does.
#[derive(Debug, thiserror::Error)]
pub enum VetError {
    /// An instance without a gold cascade (real data): equivalence needs one.
    #[error("instance '{id}' (instance {index} of the dataset) has no gold cascade: vetting compares answers with the hidden cascade, so it needs generated instances")]
    NoGold {
        /// The instance.
        id: String,
        /// 1-based position.
        index: usize,
    },
    /// [`VetOptions::max_examples`] below an instance's example count.
    #[error("{}", self.message(VetField::path))]
    MaxExamples {
        /// The instance.
        id: String,
        /// Its visible examples.
        examples: usize,
        /// The cap asked for.
        max: usize,
    },
    /// [`VetOptions::max_examples`] above [`MAX_EXAMPLES_LIMIT`].
    #[error("{}", self.message(VetField::path))]
    TooManyExamples(usize),
    /// An instance that is not sound (its gold does not reproduce its examples, …).
    #[error("instance '{id}' (instance {index} of the dataset): {problem}; fix the dataset (`pbebench audit` lists such instances) before vetting it")]
    Unsound {
        /// The instance.
        id: String,
        /// 1-based position.
        index: usize,
        /// What is wrong ([`Instance::problems`]).
        problem: String,
    },
    /// An instance whose input space cannot be counted.
    #[error("instance '{id}': {error}")]
    Space {
        /// The instance.
        id: String,
        /// Why.
        error: pbebench::equiv::SpaceError,
    },
    /// The outputs are refused before any work.
    #[error(transparent)]
    Files(#[from] pbebench_io::FilesError),
    /// The journal cannot be used.
    #[error(transparent)]
    Journal(#[from] journal::JournalError),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The worker threads could not start.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// [`VetOptions::replacement_attempts`] above [`REPLACEMENT_ATTEMPTS_LIMIT`].
    #[error("{}", self.message(VetField::path))]
    TooManyReplacements(usize),
    /// A shard that is none: `K ≥ N`.
    #[error("shard {k}/{n} is not a shard: need 0 <= K < N (shard 0/{n} is the first of {n})")]
    Shard {
        /// The shard's index asked for.
        k: usize,
        /// The number of shards asked for.
        n: usize,
    },
    /// The generator failed for a reason other than a stall.
    #[error("generating a replacement: {0}")]
    Generate(String),
}

impl VetError {
    /// The error's text, with the fields of [`VetOptions`] it mentions named by `name`.
    pub fn message(&self, name: impl Fn(VetField) -> &'static str) -> String {
        match self {
            VetError::MaxExamples { id, examples, max } => format!(
                "{} {max} is smaller than the {examples} visible examples of instance '{id}': \
                 give at least {examples}",
                name(VetField::MaxExamples)
            ),
            VetError::TooManyExamples(max) => format!(
                "{} {max} is more than {MAX_EXAMPLES_LIMIT}: each added example costs a round of \
                 attacks; give at most {MAX_EXAMPLES_LIMIT}",
                name(VetField::MaxExamples)
            ),
            VetError::TooManyReplacements(n) => format!(
                "{} {n} is more than {REPLACEMENT_ATTEMPTS_LIMIT}: each fresh instance costs a \
                 repair of its own; give at most {REPLACEMENT_ATTEMPTS_LIMIT}",
                name(VetField::ReplacementAttempts)
            ),
            e => e.to_string(),
        }
    }
}

/// Where and how [`vet_dataset`] runs.
#[derive(Clone, Copy)]
pub struct VetJob<'a> {
    /// The loop's options.
    pub options: &'a VetOptions,
    /// Where the vetted snapshot goes (`-`: standard output, and no journal).
    pub out: &'a Path,
    /// Slots vetted at once.
    pub threads: usize,
    /// Start over, discarding a journal of an earlier run.
    pub fresh: bool,
    /// Vet only shard `(K, N)` (0-based): the slots `[K·D/N, (K+1)·D/N)` of the D
    /// instances, split as `generate`'s shards are. Each slot is a pure function of its
    /// instance, the options and its position in the whole dataset, so the shards'
    /// snapshots concatenated in order are the whole run's, byte for byte, whatever N.
    /// `None`: every slot.
    pub shard: Option<(usize, usize)>,
}

/// The slots `[lo, hi)` of shard `(k, n)` of `total` (every slot without one).
fn shard_range(shard: Option<(usize, usize)>, total: usize) -> Result<(usize, usize), VetError> {
    match shard {
        None => Ok((0, total)),
        Some((k, n)) if k < n => Ok((k * total / n, (k + 1) * total / n)),
        Some((k, n)) => Err(VetError::Shard { k, n }),
    }
}

/// Counts so far, for progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VetCounts {
    /// Slots done.
    pub done: usize,
    /// Slots in all.
    pub total: usize,
    /// Slots holding a fresh instance.
    pub replaced: usize,
    /// Slots dropped.
    pub dropped: usize,
    /// Examples added in all.
    pub added: usize,
}

/// What [`vet_dataset`] tells as it goes.
pub trait VetProgress: Sync {
    /// `done` slots of `total` come from the journal at `journal`.
    fn resumed(&self, done: usize, total: usize, journal: &Path) {
        let _ = (done, total, journal);
    }
    /// One more slot is done.
    fn done(&self, counts: VetCounts);
}

/// What a run did: the figures of issue 20.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VetSummary {
    /// Slots (instances of the input dataset).
    pub instances: usize,
    /// Instances written.
    pub kept: usize,
    /// Slots holding a fresh instance.
    pub replaced: usize,
    /// Slots dropped (nothing kept).
    pub dropped: usize,
    /// Dropped slots by the gold cascade length of the slot's instance: where the
    /// snapshot falls short of its length quota.
    pub dropped_by_length: BTreeMap<usize, usize>,
    /// Every dropped slot, in dataset order.
    pub dropped_slots: Vec<DroppedSlot>,
    /// Why slots were replaced or dropped: `ambiguous at N`, `recovered by a shortcut`,
    /// `undecided`.
    pub reasons: BTreeMap<String, usize>,
    /// Kept instances by the number of examples the repair added to them.
    pub added_per_instance: BTreeMap<usize, usize>,
    /// Examples added in all (kept instances).
    pub added: usize,
    /// Slots taken from the journal of an earlier run.
    pub resumed: usize,
    /// Whether replacements were possible (generation parameters given or inferred).
    pub replacements_possible: bool,
    /// The written snapshot's statistics (categories recomputed from the gold cascades).
    pub stats: DatasetStats,
    /// Why the journal could not be kept up (the run went on; it cannot be resumed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal_failure: Option<String>,
}

/// A slot left empty: its instance, and none of the fresh ones tried, was kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedSlot {
    /// The id of the slot's instance.
    pub id: String,
    /// Its gold cascade length (the length quota the slot belonged to).
    pub cascade_len: usize,
    /// Why, attempt by attempt.
    pub reason: String,
}

/// The generation parameters of a dataset pbebench generated from a preset, told by its
/// ids (`<preset>-s<seed>-<index>`) when every instance agrees with that preset (alphabet,
/// rule side, cascade lengths, at least its examples, its held-out count); else `None`.
pub fn infer_params(instances: &[Instance]) -> Option<GenParams> {
    let first = instances.first()?;
    let (name, seed) = preset_and_seed(&first.id)?;
    let preset: Preset = name.parse().ok()?;
    let mut params = preset.params();
    params.seed = seed;
    let alphabet: String = params.alphabet.iter().collect();
    let agrees = |inst: &Instance| {
        preset_and_seed(&inst.id) == Some((name, seed))
            && inst.alphabet == alphabet
            && inst.max_rule_len == params.rule_len.1
            && inst.inputs.len() >= params.examples
            && inst.heldout_inputs.len() == params.heldout
            && params.cascade_lens.contains(&inst.cascade_len)
    };
    instances.iter().all(agrees).then_some(params)
}

/// `("lite", 0)` from `lite-s0-00012`.
fn preset_and_seed(id: &str) -> Option<(&str, u64)> {
    let (head, index) = id.rsplit_once('-')?;
    let (name, seed) = head.rsplit_once("-s")?;
    index.parse::<usize>().ok()?;
    Some((name, seed.parse().ok()?))
}

/// Checks what can be refused before any work: gold cascades, the cap, input spaces.
fn check_dataset(instances: &[Instance], options: &VetOptions) -> Result<(), VetError> {
    if options.max_examples > MAX_EXAMPLES_LIMIT {
        return Err(VetError::TooManyExamples(options.max_examples));
    }
    if options.replacement_attempts > REPLACEMENT_ATTEMPTS_LIMIT {
        return Err(VetError::TooManyReplacements(options.replacement_attempts));
    }
    for (k, inst) in instances.iter().enumerate() {
        if inst.cascade.is_none() {
            return Err(VetError::NoGold {
                id: inst.id.clone(),
                index: k + 1,
            });
        }
        if let Some(problem) = inst.problems().into_iter().next() {
            return Err(VetError::Unsound {
                id: inst.id.clone(),
                index: k + 1,
                problem,
            });
        }
        if inst.inputs.len() > options.max_examples {
            return Err(VetError::MaxExamples {
                id: inst.id.clone(),
                examples: inst.inputs.len(),
                max: options.max_examples,
            });
        }
        pbebench::equiv::InputSpace::of(inst).map_err(|error| VetError::Space {
            id: inst.id.clone(),
            error,
        })?;
    }
    Ok(())
}

/// Vets every instance of `instances` (or of `job.shard`'s slots) as `job` says (see the
/// module documentation), resuming from the journal of an earlier run of the same job
/// unless `job.fresh`; writes the vetted snapshot in dataset order, then removes the
/// journal. The summary counts the slots vetted (the shard's).
pub fn vet_dataset(
    instances: &[Instance],
    job: &VetJob<'_>,
    progress: &dyn VetProgress,
) -> Result<VetSummary, VetError> {
    let options = job.options;
    let (lo, hi) = shard_range(job.shard, instances.len())?;
    check_dataset(instances, options)?;
    // From the whole dataset, so that every shard draws replacements alike.
    let params = options.params.clone().or_else(|| infer_params(instances));
    let header = JournalHeader::of(instances, options, params.as_ref(), job.shard);
    let journal_path = pbebench_io::journal_path(job.out);
    let mut files = pbebench_io::Files::new();
    files.output("out", job.out);
    if let Some(path) = &journal_path {
        files.output("the journal of out", path);
    }
    files.check()?;
    let journal = journal::open(journal_path, &header, instances.len(), job.fresh)?;
    let total = hi - lo;
    let resumed = journal.done().len();
    if let Some(path) = journal.path().filter(|_| resumed > 0) {
        progress.resumed(resumed, total, path);
    }
    let mut slots: Vec<Option<Slot>> = (lo..hi).map(|k| journal.done().get(&k).cloned()).collect();
    let todo: Vec<usize> = (lo..hi).filter(|k| slots[k - lo].is_none()).collect();
    let counts = Mutex::new(tally(slots.iter().flatten(), total));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(job.threads.max(1))
        .build()?;
    let done_now: Vec<Result<(usize, Slot), VetError>> = pool.install(|| {
        todo.par_iter()
            .with_max_len(1)
            .map(|&k| {
                let slot = vet_slot(k, &instances[k], options, params.as_ref())?;
                journal::record(&journal, k, &slot);
                let snapshot = {
                    let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
                    c.add(&slot);
                    *c
                };
                progress.done(snapshot);
                Ok((k, slot))
            })
            .collect()
    });
    for result in done_now {
        let (k, slot) = result?;
        slots[k - lo] = Some(slot);
    }
    let journal_failure = journal.failure();
    let slots: Vec<Slot> = slots
        .into_iter()
        .map(|s| s.expect("every slot is vetted or resumed"))
        .collect();
    let summary = write_snapshot(
        &slots,
        &instances[lo..hi],
        job.out,
        params.is_some(),
        resumed,
        journal_failure,
    )?;
    journal.remove();
    Ok(summary)
}

/// Writes the kept instances of `slots` (those of `instances`) to `out` and sums the run
/// up.
fn write_snapshot(
    slots: &[Slot],
    instances: &[Instance],
    out: &Path,
    replacements_possible: bool,
    resumed: usize,
    journal_failure: Option<String>,
) -> Result<VetSummary, VetError> {
    let write_error = |source| VetError::Write {
        path: out.to_path_buf(),
        source,
    };
    let mut file = Output::create(out).map_err(write_error)?;
    let mut lines = DatasetWriter::new(&mut file);
    let mut stats = DatasetStats::new(&out.display().to_string(), false);
    let mut summary = VetSummary {
        instances: slots.len(),
        kept: 0,
        replaced: 0,
        dropped: 0,
        dropped_by_length: BTreeMap::new(),
        dropped_slots: Vec::new(),
        reasons: BTreeMap::new(),
        added_per_instance: BTreeMap::new(),
        added: 0,
        resumed,
        replacements_possible,
        stats: DatasetStats::default(),
        journal_failure,
    };
    for (slot, inst) in slots.iter().zip(instances) {
        match slot {
            Slot::Kept(v) => {
                summary.kept += 1;
                stats.add(summary.kept, &v.instance);
                *summary
                    .added_per_instance
                    .entry(v.repair.added.len())
                    .or_default() += 1;
                summary.added += v.repair.added.len();
                if let Some(r) = &v.repair.replaced {
                    summary.replaced += 1;
                    *summary.reasons.entry(reason_kind(&r.reason)).or_default() += 1;
                }
                lines.write(v.as_ref()).map_err(write_error)?;
            }
            Slot::Dropped { id, reason } => {
                summary.dropped += 1;
                *summary.reasons.entry(reason_kind(reason)).or_default() += 1;
                *summary
                    .dropped_by_length
                    .entry(inst.cascade_len)
                    .or_default() += 1;
                summary.dropped_slots.push(DroppedSlot {
                    id: id.clone(),
                    cascade_len: inst.cascade_len,
                    reason: reason.clone(),
                });
            }
        }
    }
    file.commit().map_err(write_error)?;
    summary.stats = stats.finish();
    Ok(summary)
}

/// The kind of a replacement's reason, for the summary's tally (the reason up to its
/// first colon).
fn reason_kind(reason: &str) -> String {
    reason.split(':').next().unwrap_or(reason).trim().to_owned()
}

impl VetCounts {
    fn add(&mut self, slot: &Slot) {
        self.done += 1;
        match slot {
            Slot::Kept(v) => {
                self.added += v.repair.added.len();
                self.replaced += usize::from(v.repair.replaced.is_some());
            }
            Slot::Dropped { .. } => self.dropped += 1,
        }
    }
}

fn tally<'a>(slots: impl Iterator<Item = &'a Slot>, total: usize) -> VetCounts {
    let mut counts = VetCounts {
        total,
        ..VetCounts::default()
    };
    for slot in slots {
        counts.add(slot);
    }
    counts
}

/// How the repair of one instance ended.
enum End {
    /// No attacker finds a fitting answer that differs.
    Identified,
    /// Not kept, and why.
    Rejected(String),
}

/// Vets one instance, without replacing it: the repair loop (the panel's attacks, each
/// answer that fits the visible examples but not the gold adding its shortest
/// counterexample), then the instance with its repair record, or why it is not kept
/// (ambiguous at `options.max_examples`, recovered by a shortcut baseline, beyond the
/// bounds of comparison). `options.replacement_attempts` and `options.params` are not used.
/// Refuses what [`vet_dataset`] refuses: no gold, a gold that fails its examples, more
/// visible examples than the cap.
pub fn vet_instance(
    inst: &Instance,
    options: &VetOptions,
) -> Result<Result<VettedInstance, String>, VetError> {
    check_dataset(std::slice::from_ref(inst), options)?;
    Ok(kept_or_why(inst, options))
}

/// The repair loop on `inst`, and the instance kept, or why not.
fn kept_or_why(inst: &Instance, options: &VetOptions) -> Result<VettedInstance, String> {
    let (repaired, added, end) = repair(inst, options);
    match end {
        End::Identified => Ok(vetted(repaired, inst.inputs.len(), added, None, options)),
        End::Rejected(why) => Err(why),
    }
}

/// Vets slot `k`: the instance repaired, else fresh instances in turn, else dropped.
fn vet_slot(
    k: usize,
    inst: &Instance,
    options: &VetOptions,
    params: Option<&GenParams>,
) -> Result<Slot, VetError> {
    let mut reason = match kept_or_why(inst, options) {
        Ok(kept) => return Ok(Slot::Kept(Box::new(kept))),
        Err(why) => why,
    };
    let Some(params) = params else {
        return Ok(Slot::Dropped {
            id: inst.id.clone(),
            reason: format!("{reason} (no generation parameters to replace it)"),
        });
    };
    for attempt in 1..=options.replacement_attempts {
        let generator_seed = mix(&[options.seed, params.seed, k as u64, attempt as u64]);
        let Some(mut fresh) = fresh_instance(params, inst, generator_seed)? else {
            continue;
        };
        let generated_id = std::mem::replace(&mut fresh.id, inst.id.clone());
        let before = fresh.inputs.len();
        if before > options.max_examples {
            return Ok(Slot::Dropped {
                id: inst.id.clone(),
                reason: format!(
                    "{reason}; fresh instances have {before} examples, more than --max-examples"
                ),
            });
        }
        let (repaired, added, end) = repair(&fresh, options);
        match end {
            End::Identified => {
                let replaced = Replacement {
                    reason,
                    attempt,
                    generated_id,
                    generator_seed,
                };
                return Ok(Slot::Kept(Box::new(vetted(
                    repaired,
                    before,
                    added,
                    Some(replaced),
                    options,
                ))));
            }
            End::Rejected(why) => reason = format!("{reason}; fresh instance {attempt}: {why}"),
        }
    }
    Ok(Slot::Dropped {
        id: inst.id.clone(),
        reason: format!(
            "{reason}; no fresh instance kept after {} attempts",
            options.replacement_attempts
        ),
    })
}

/// A kept instance with its repair record; its category and interactions recomputed from
/// the gold (what the file holds, whatever the input said).
fn vetted(
    mut instance: Instance,
    examples_before: usize,
    added: Vec<AddedExample>,
    replaced: Option<Replacement>,
    options: &VetOptions,
) -> VettedInstance {
    if let Some(gold) = &instance.cascade {
        let relations = Relations::of(gold, instance.relations_mode);
        instance.category = Some(relations.category());
        instance.interactions = relations.interactions();
    }
    VettedInstance {
        instance,
        repair: Repair {
            panel: options.panel.to_string(),
            seed: options.seed,
            max_examples: options.max_examples,
            examples_before,
            added,
            replaced,
        },
    }
}

/// The repair loop on one instance (which has a gold cascade): attack, add the witness's
/// counterexample, attack again, until identified or the cap.
fn repair(inst: &Instance, options: &VetOptions) -> (Instance, Vec<AddedExample>, End) {
    let mut inst = inst.clone();
    let mut added = Vec::new();
    let gold = inst.cascade.clone().expect("vetted instances have gold");
    let space = match pbebench::equiv::InputSpace::of(&inst) {
        Ok(space) => space,
        Err(e) => return (inst, added, End::Rejected(format!("undecided: {e}"))),
    };
    let mut reference = Reference::new(&gold, &space, &Limits::default());
    loop {
        let witness = match run_panel(&inst, &mut reference, &options.panel, options.seed) {
            PanelVerdict::Identified { .. } => return (inst, added, End::Identified),
            PanelVerdict::Trivial { attacker } => {
                let why = format!(
                    "recovered by a shortcut: {attacker}'s answer is equivalent to the gold"
                );
                return (inst, added, End::Rejected(why));
            }
            PanelVerdict::Undecided { attacker, why } => {
                let why = format!("undecided: {attacker}'s answer: {why}");
                return (inst, added, End::Rejected(why));
            }
            PanelVerdict::Ambiguous(w) => w,
        };
        let at_cap = || {
            format!(
                "ambiguous at {} examples: {} found {}, which differs from the gold on {:?}",
                inst.inputs.len(),
                witness.attacker,
                witness.found.to_json(),
                witness.counterexample
            )
        };
        if inst.inputs.len() >= options.max_examples {
            let why = at_cap();
            return (inst, added, End::Rejected(why));
        }
        let Some(example) = new_example(&inst, &gold, &space, &witness) else {
            let why = format!(
                "{}; no counterexample outside the held-out inputs",
                at_cap()
            );
            return (inst, added, End::Rejected(why));
        };
        inst.inputs.push(example.input.clone());
        inst.outputs.push(example.output.clone());
        added.push(example);
    }
}

/// The example the witness gives: its counterexample with the gold's output, or, when
/// that input is held out, the next input of the space (same length first, in the
/// alphabet's order, then longer) on which the two cascades differ and which is neither
/// visible nor held out.
fn new_example(
    inst: &Instance,
    gold: &Cascade,
    space: &pbebench::equiv::InputSpace,
    witness: &Witness,
) -> Option<AddedExample> {
    let example = |input: String, output: String, answer_output: Option<String>| AddedExample {
        input,
        output,
        attacker: witness.attacker.clone(),
        answer: witness.found.clone(),
        answer_output,
    };
    let taken = |s: &str| {
        inst.heldout_inputs
            .iter()
            .chain(&inst.inputs)
            .any(|t| t == s)
    };
    if !taken(&witness.counterexample) {
        let output = witness.gold_output.clone()?;
        return Some(example(
            witness.counterexample.clone(),
            output,
            witness.found_output.clone(),
        ));
    }
    let bound = pbebench::equiv::length_bound(inst);
    let letters = space.alphabet();
    let start = witness.counterexample.chars().count();
    let mut searched = 0;
    for len in start..=space.max_len() {
        let mut digits = vec![0usize; len];
        loop {
            let input: String = digits.iter().map(|&d| letters[d]).collect();
            searched += 1;
            if searched > ALTERNATIVES_SEARCHED {
                return None;
            }
            if !taken(&input) {
                let want = gold.apply_bounded(&input, bound).ok();
                let got = witness.found.apply_bounded(&input, bound).ok();
                if let Some(output) = want.filter(|w| Some(w) != got.as_ref()) {
                    return Some(example(input, output, got));
                }
            }
            // The next string of this length in the alphabet's order.
            let Some(pos) = digits.iter().rposition(|&d| d + 1 < letters.len()) else {
                break;
            };
            digits[pos] += 1;
            digits[pos + 1..].iter_mut().for_each(|d| *d = 0);
        }
    }
    None
}

/// A fresh instance from the generator, drawn with `generator_seed`, within the quota of
/// `like`: the same category when the dataset balances by category, the same cascade
/// length and category under joint balance, the same length under length balance.
/// `None` when the generator ends (or stalls) without one.
fn fresh_instance(
    params: &GenParams,
    like: &Instance,
    generator_seed: u64,
) -> Result<Option<Instance>, VetError> {
    let mut p = params.clone();
    p.seed = generator_seed;
    p.shard = None;
    let gold = like.cascade.as_ref().expect("vetted instances have gold");
    let category = Relations::of(gold, p.relations).category();
    let same_category = match p.balance {
        Balance::Category => {
            p.size = 16;
            true
        }
        Balance::Joint => {
            p.cascade_lens = vec![like.cascade_len];
            p.size = 16;
            true
        }
        Balance::Length => {
            p.cascade_lens = vec![like.cascade_len];
            p.size = 1;
            false
        }
    };
    const FOUND: &str = "pbebench vet: found";
    let mut found = None;
    let result = generate::generate(&p, &(), &mut |inst: Instance| {
        if !same_category || inst.category == Some(category) {
            found = Some(inst);
            return Err(FOUND.into());
        }
        Ok(())
    });
    match result {
        Ok(_) | Err(GenerateError::Stalled(_)) => Ok(found),
        Err(GenerateError::Sink(s)) if s.to_string() == FOUND => Ok(found),
        Err(e) => Err(VetError::Generate(e.to_string())),
    }
}

#[cfg(test)]
mod tests;
