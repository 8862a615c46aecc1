//! The RL fast path: a cheap scalar reward (the character Edit_Sim of a response's
//! cascade on the visible examples), computed without building a score, for many
//! responses to one instance at once, and for instances prepared once and rewarded over
//! and over.

use super::byte_set;
use crate::instance::Instance;
use crate::metrics;
use crate::response::{read_cascade, BlockChoice, CascadeSides, RuleLimits};
use crate::rule::replace_into;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::borrow::Cow;
use std::hash::BuildHasher;
use std::ops::Range;

/// A cheap scalar reward for RL: the character Edit_Sim of the response's cascade (last
/// code block, the instance's limits). 1 when every example is reproduced, 0 for the
/// identity, an empty or unparsable response, negative when worse than doing nothing;
/// unlike the fractional score it gives no credit for examples the gold leaves unchanged.
///
/// An answer that writes a string longer than the length bound on an example (16 times
/// the longest example string, at least 256 characters: the bound of
/// [`crate::equiv::length_bound`] without a gold) stops there: that example counts at a
/// character distance of the bound, as in scoring.
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
            let mut over = false;
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
                    if into.len() > instance.bound && into.chars().count() > instance.bound {
                        over = true;
                        break;
                    }
                    current = Some(to);
                    bytes = byte_set(into);
                }
            }
            pred_dist += match current {
                _ if over => instance.bound,
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
    limits: RuleLimits,
    gold_dist: usize,
    /// The longest string an answer may write on the way, in characters.
    bound: usize,
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
        let longest = inputs
            .iter()
            .chain(outputs)
            .map(|t| t.chars().count())
            .max();
        PreparedInstance {
            bound: crate::equiv::length_bound_of(longest.unwrap_or(0)),
            texts,
            gold_dist: examples.iter().map(|e| e.gold_dist).sum(),
            examples,
            alphabet: alphabet.to_owned(),
            limits: RuleLimits::new(max_rules, max_rule_len, alphabet),
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
    pub fn limits(&self) -> &RuleLimits {
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

#[cfg(test)]
mod tests {
    use super::super::testing::{block, instance};
    use super::*;
    use crate::response::parse_response;

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
            let parsed = parse_response(&text, &RuleLimits::of(&inst), BlockChoice::Last);
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
        assert_eq!(prepared.limits(), &RuleLimits::of(&inst));
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
            let parsed = parse_response(&text, &RuleLimits::of(&inst), BlockChoice::Last);
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
                    let parsed = parse_response(t, &RuleLimits::of(&inst), BlockChoice::Last);
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
}
