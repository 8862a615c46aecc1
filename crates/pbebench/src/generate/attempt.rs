//! One attempt of Algorithm 1: a target length, distinct inputs, then rules drawn one by
//! one and classified as the cascade grows, in a worker's reusable buffers; and the
//! candidate it gives when it is not rejected.

use super::bytes::{replace_at, replace_padded};
use super::draws::{stream, Purpose};
use super::heldout::RuleSets;
use super::inputs::draw_inputs;
use super::letters::{Letters, SEP_CODE};
use super::patterns::draw_rule;
use super::sampler::{code_mask, SampledRule, Sampler, Scratch};
use super::shape::ShapeHead;
use super::{GenParams, Rejection};
use crate::relations::{
    by_shape, interaction_uncached, paper, wanted_uncached, with_memo, Category, RelationMode,
    Search,
};
use crate::rule::{leftmost_disjoint, Rule};
use rand::Rng;
use std::time::Instant;

/// A sampled instance before acceptance.
pub(super) struct Candidate {
    /// The example inputs.
    pub(super) inputs: Vec<String>,
    /// The example outputs.
    pub(super) outputs: Vec<String>,
    pub(super) cascade: Vec<Rule>,
    pub(super) category: Category,
    /// The inputs and the cascade in letter codes, each part preceded by its length: two
    /// candidates have equal keys exactly when they are the same instance (the outputs
    /// follow from the inputs and the cascade).
    pub(super) key: Box<[u8]>,
    /// How many examples each rule changes at the point it applies (as
    /// [`Instance::examples_changed_per_rule`](crate::Instance::examples_changed_per_rule)
    /// counts them).
    pub(super) changed: Vec<usize>,
}

impl Scratch {
    /// The sample left by [`draw_attempt`] as an owned candidate of `category`.
    pub fn candidate(&self, letters: &Letters, category: Category) -> Candidate {
        let inputs = self.inputs.codes();
        let mut key =
            Vec::with_capacity(inputs.len() + self.sides.len() + 4 + 8 * self.rules.len());
        let mut part = |codes: &[u8]| {
            key.extend_from_slice(&(codes.len() as u32).to_le_bytes());
            key.extend_from_slice(codes);
        };
        part(inputs);
        let cascade = self
            .rules
            .iter()
            .map(|r| {
                let (a, b) = r.sides(&self.sides);
                part(a);
                part(b);
                Rule::new(letters.text(a), letters.text(b))
                    .expect("sampled patterns are never empty")
            })
            .collect();
        Candidate {
            inputs: letters.texts(inputs),
            outputs: letters.texts(self.joined.codes()),
            cascade,
            category,
            key: key.into_boxed_slice(),
            changed: self.changed_per_rule(),
        }
    }

    /// How many examples each kept rule changes: the rules that fire on each input, as
    /// the held-out examples find them ([`RuleSets::of_pool`], the cascade run once over
    /// the joined inputs), counted per rule.
    pub(super) fn changed_per_rule(&self) -> Vec<usize> {
        let rules: Vec<_> = (self.rules.iter())
            .map(|rule| Some(rule.sides(&self.sides)))
            .collect();
        let inputs = self.inputs.codes();
        let examples = inputs.iter().filter(|&&c| c == SEP_CODE).count() + 1;
        let fired = RuleSets::of_pool(&rules, inputs, examples);
        (0..rules.len())
            .map(|r| (0..examples).filter(|&input| fired.has(input, r)).count())
            .collect()
    }
}

/// Categories whose quota was already full when a batch of attempts began: still full for
/// every attempt of the batch before patience runs out, as quotas only shrink then. An
/// attempt whose cascade is certain to fall in one of them is rejected as soon as that is
/// certain, often before its cascade is complete (the category is found as the cascade
/// grows, and adding rules can only add flags); the block accepts exactly what it would
/// have accepted otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FullCategories {
    /// Bit c: category c is full.
    pub(super) full: u16,
    /// Bit s: every category with all the flags of s is full.
    pub(super) hopeless: u16,
}

impl FullCategories {
    /// The full categories are the set bits of `full` (bit c for category index c).
    pub(super) fn new(full: u16) -> Self {
        let hopeless = (0..16usize)
            .filter(|&set| {
                (0..16)
                    .filter(|c| c & set == set)
                    .all(|c| full & 1 << c != 0)
            })
            .fold(0, |bits, set| bits | 1 << set);
        FullCategories { full, hopeless }
    }

    /// True when `category` is full.
    pub(super) fn contains(self, category: Category) -> bool {
        self.full & 1 << category.index() != 0
    }

    /// True when every category that has all the flags of `set` is full.
    #[inline]
    pub(super) fn all_with(self, set: Category) -> bool {
        self.hopeless & 1 << set.index() != 0
    }
}

/// Attempts whose classification is timed: one in this many. The classification of those
/// is replayed once it is over, timed as one stretch (timing each step as the cascade grows
/// would mostly time the clock), and scaled up; the rare, slow memo misses are timed on
/// every attempt instead (see [`memo_miss_seconds`]), which keeps the estimate's variance
/// low. (Prime, so that the timed attempts fall evenly on every place in a batch. With 16,
/// which times the same four places of every 64-attempt batch, a full run read 9.4%;
/// with 61 it reads 10%, as a profile does.)
const CLASSIFY_TIMING_STRIDE: u64 = 61;

thread_local! {
    /// Seconds this thread spent deciding relations the memo did not hold.
    static MISS_SECONDS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Seconds the current thread has spent deciding relations the memo did not hold (and
/// those it bypasses). Misses are rare but can be slow (the exact classifier searches), so
/// they are timed on every attempt, not on a sample.
fn memo_miss_seconds() -> f64 {
    MISS_SECONDS.with(|s| s.get())
}

/// `decide()`, its time added to [`memo_miss_seconds`].
fn timed_miss<T>(decide: impl FnOnce() -> T) -> T {
    let clock = Instant::now();
    let value = decide();
    MISS_SECONDS.with(|s| s.set(s.get() + clock.elapsed().as_secs_f64()));
    value
}

/// What an attempt needs to know of its block: its key (for the random streams), the
/// cascade lengths it draws from, and whether a cascade must keep its drawn length (else
/// it must keep at least the shortest one).
#[derive(Clone, Copy)]
pub(super) struct BlockShape<'a> {
    pub(super) key: u64,
    pub(super) lengths: &'a [usize],
    pub(super) exact_length: bool,
}

/// Samples attempt `attempt` of a block into `scratch`: ℓ from the block's lengths,
/// distinct inputs, then rules whose pattern is a substring present at that point,
/// classifying the cascade as it grows; stops as soon as the attempt is certain to be
/// rejected. [`Scratch::candidate`] then gives the sample. Also returns an estimate of
/// the seconds spent classifying ([`CLASSIFY_TIMING_STRIDE`]).
pub(super) fn draw_attempt(
    p: &GenParams,
    sampler: &Sampler,
    block: BlockShape,
    attempt: u64,
    full: FullCategories,
    scratch: &mut Scratch,
) -> (Result<Category, Rejection>, f64) {
    let misses_before = memo_miss_seconds();
    let outcome = draw_attempt_untimed(p, sampler, block, attempt, full, scratch);
    let mut seconds = memo_miss_seconds() - misses_before;
    if attempt.is_multiple_of(CLASSIFY_TIMING_STRIDE) {
        // Decisions that bypass the memo (sides of over 3 letters) were timed above, so
        // the replay leaves them out; it finds every other shape in the memo.
        let clock = Instant::now();
        let bypassed = memo_miss_seconds();
        scratch.heads.clear();
        let mut search = Search::default();
        for _ in 0..scratch.rules.len() {
            if classify_newest(p.relations, &sampler.letters, scratch, &mut search, full) {
                break;
            }
        }
        let replay = clock.elapsed().as_secs_f64() - (memo_miss_seconds() - bypassed);
        seconds += replay.max(0.0) * CLASSIFY_TIMING_STRIDE as f64;
    }
    (outcome, seconds)
}

/// [`draw_attempt`] without the timing.
fn draw_attempt_untimed(
    p: &GenParams,
    sampler: &Sampler,
    block: BlockShape,
    attempt: u64,
    full: FullCategories,
    scratch: &mut Scratch,
) -> Result<Category, Rejection> {
    let BlockShape {
        key: block,
        lengths,
        exact_length,
    } = block;
    let letters = &sampler.letters;
    let mut rng = stream(p.seed, block, attempt, Purpose::Candidate, sampler.codes);
    let target = lengths[rng.random_range(0..lengths.len())];
    draw_inputs(p, sampler, &mut rng, scratch);
    scratch.joined.bytes.clone_from(&scratch.inputs.bytes);
    scratch.joined.len = scratch.inputs.len;
    scratch.sides.clear();
    scratch.rules.clear();
    scratch.heads.clear();
    let min_len = if exact_length { target } else { lengths[0] };
    // The category is found as the cascade grows (see Search), so that an attempt whose
    // category is already certain to be full stops there.
    let mut search = Search::default();
    for step in 0..target {
        if scratch.rules.len() + (target - step) < min_len {
            // Too few steps are left to reach the shortest length.
            return Err(Rejection::TooShort);
        }
        let start = scratch.sides.len();
        let Some((mid, starts)) = draw_rule(sampler, &mut rng, scratch) else {
            continue;
        };
        let Scratch {
            sides,
            joined,
            next,
            rules,
            ..
        } = scratch;
        let (a, b) = (&sides[start..mid], &sides[mid..]);
        // Rules that change nothing at the point they apply are dropped (Algorithm 1).
        let replaced = match starts {
            // The pattern's starts, known from its draw: the replace need not search.
            Some(starts) => {
                let matches = leftmost_disjoint(starts, a.len());
                Some(replace_at(
                    &joined.bytes,
                    joined.len,
                    matches,
                    a.len(),
                    b,
                    &mut next.bytes,
                ))
            }
            None => replace_padded(&joined.bytes, joined.len, a, b, &mut next.bytes),
        };
        let Some(len) = replaced else {
            sides.truncate(start);
            continue;
        };
        next.len = len;
        std::mem::swap(joined, next);
        rules.push(SampledRule {
            start: start as u32,
            mid: mid as u32,
            end: sides.len() as u32,
            masks: (code_mask(a), code_mask(b)),
        });
        if classify_newest(p.relations, letters, scratch, &mut search, full) {
            return Err(Rejection::QuotaFull);
        }
    }
    if scratch.rules.len() < min_len {
        return Err(Rejection::TooShort);
    }
    if scratch.joined.codes() == scratch.inputs.codes() {
        return Err(Rejection::OutputsEqualInputs);
    }
    let category = search.category();
    if full.contains(category) {
        return Err(Rejection::QuotaFull);
    }
    Ok(category)
}

/// Adds the newest rule of `scratch` to the `search` for its cascade's category; true
/// when the category is now certain to be one of the `full` ones.
pub(super) fn classify_newest(
    mode: RelationMode,
    letters: &Letters,
    scratch: &mut Scratch,
    search: &mut Search,
    full: FullCategories,
) -> bool {
    let Scratch {
        sides,
        rules,
        heads,
        ..
    } = scratch;
    let masks = |k: usize| rules[k].masks;
    let give_up = |set| full.all_with(set);
    if mode == RelationMode::Paper {
        // The formula on a few letters costs less than finding its shape in the memo; it
        // reads letters as they are, and codes are letters one-to-one.
        return search.push(
            masks,
            |i, j, want| {
                let (si, ti) = rules[i].sides(sides);
                let sj = rules[j].sides(sides).0;
                (
                    want.feeds && paper::feeds_in(si, ti, sj),
                    want.bleeds && paper::bleeds_in(si, ti, sj),
                )
            },
            give_up,
        );
    }
    heads.resize(rules.len(), None);
    with_memo(|memo| {
        search.push(
            masks,
            |i, j, want| {
                let (si, ti) = rules[i].sides(sides);
                let sj = rules[j].sides(sides).0;
                let texts = || [si, ti, sj].map(|codes| letters.text(codes));
                let head = *heads[i].get_or_insert_with(|| ShapeHead::of(si, ti));
                match head.and_then(|head| head.key(sj)) {
                    Some(shape) => by_shape(memo, mode, shape, || {
                        let [si, ti, sj] = texts();
                        timed_miss(|| interaction_uncached(mode, &si, &ti, &sj))
                    }),
                    None => {
                        let [si, ti, sj] = texts();
                        timed_miss(|| wanted_uncached(mode, want, &si, &ti, &sj))
                    }
                }
            },
            give_up,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::heldout::rules_fired;
    use crate::rule::Cascade;

    /// An attempt that stops early because its category is certain to be full is one that
    /// finishing would also reject, and every other attempt gives the same sample as when
    /// no category is full: lite and full-preset shapes, both classifiers, several sets of
    /// full categories.
    #[test]
    fn stopping_early_rejects_only_what_finishing_rejects() {
        use crate::generate::Preset;
        for (preset, lengths, exact_length) in [
            (Preset::Lite, vec![2, 3, 4, 5], false),
            (Preset::Full, vec![9], true),
        ] {
            for mode in [RelationMode::Paper, RelationMode::Exact] {
                let mut p = preset.params();
                p.relations = mode;
                let sampler = Sampler::new(&p);
                let (mut open, mut closed) = (Scratch::default(), Scratch::default());
                let (mut stopped, mut feeding) = (0, 0);
                for (n, full) in [0b0110_1001_1111_0000u16, 0xFFFE, 0x7FFF, 0x00FF]
                    .into_iter()
                    .enumerate()
                {
                    let full = FullCategories::new(full);
                    for attempt in 0..400 {
                        let block = BlockShape {
                            key: n as u64,
                            lengths: &lengths,
                            exact_length,
                        };
                        let draw = |full, scratch: &mut Scratch| {
                            let outcome =
                                draw_attempt(&p, &sampler, block, attempt, full, scratch).0;
                            outcome.map(|c| scratch.candidate(&sampler.letters, c))
                        };
                        let whole = draw(FullCategories::default(), &mut open);
                        let kept = draw(full, &mut closed);
                        match (whole, kept) {
                            (Ok(whole), Ok(kept)) => {
                                assert!(!full.contains(whole.category));
                                let cascade = Cascade::new(whole.cascade.clone());
                                assert_eq!(
                                    whole.category,
                                    crate::relations::Relations::of(&cascade, mode).category()
                                );
                                feeding += whole.category.feeding() as usize;
                                assert_eq!(whole.category, kept.category);
                                assert_eq!(
                                    (&whole.inputs, &whole.outputs),
                                    (&kept.inputs, &kept.outputs)
                                );
                                assert_eq!(whole.key, kept.key);
                                // Each rule's count of changed examples, input by input.
                                let mut changed = vec![0; cascade.len()];
                                for input in &whole.inputs {
                                    for k in rules_fired(&cascade, input) {
                                        changed[k] += 1;
                                    }
                                }
                                assert_eq!(whole.changed, changed);
                                assert_eq!(whole.cascade, kept.cascade);
                            }
                            (Ok(whole), Err(why)) => {
                                assert!(full.contains(whole.category), "{why:?}");
                                assert_eq!(why, Rejection::QuotaFull);
                                stopped += 1;
                            }
                            (Err(why), Ok(_)) => {
                                panic!("accepted only when quotas are full: {why:?}")
                            }
                            (Err(_), Err(_)) => {}
                        }
                    }
                }
                assert!(
                    stopped > 100,
                    "{preset:?} {mode:?}: only {stopped} attempts hit a full quota"
                );
                assert!(
                    feeding > 10,
                    "{preset:?} {mode:?}: only {feeding} kept with feeding"
                );
            }
        }
    }

    #[test]
    fn full_categories_answer_for_every_category_with_the_flags() {
        let cat = |s: &str| s.parse::<Category>().unwrap();
        // 1100, 1101, 1110 and 1111 full: hopeless once F and B are known.
        let full = FullCategories::new(0b1111 << 12);
        assert!(full.all_with(cat("1100")));
        assert!(full.all_with(cat("1110")));
        assert!(!full.all_with(cat("1000")));
        assert!(!full.all_with(cat("0100")));
        assert!(!FullCategories::default().all_with(cat("1111")));
        assert!(FullCategories::new(u16::MAX).all_with(cat("0000")));
    }
}
