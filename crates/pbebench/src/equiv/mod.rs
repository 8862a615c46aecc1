//! Exact behavioural equivalence of two cascades over an input space (`docs/metrics.md#behaviour`).
//!
//! The **input space** of an instance is every string over its alphabet Σ whose length is
//! in `min_len..=max_len`, drawn as the generator draws inputs: the length uniformly, then
//! each letter uniformly and independently. For a reference cascade A (the gold) and an
//! answer B, [`compare`] computes, exactly (counted, never sampled):
//!
//! * whether A(s) = B(s) for every s of the space, and otherwise a shortest
//!   counterexample: the first of its length in the alphabet's order, with both outputs;
//! * **agreement**, the probability that A(s) = B(s) for s drawn from the space;
//! * **changed agreement**, the same conditioned on A(s) ≠ s (`None` when A changes no
//!   string of the space).
//!
//! Strings are counted with `u128` and each probability is one exact fraction ([`Ratio`]).
//!
//! # How
//!
//! Python's `replace` is a left-to-right transducer whose only memory is the pending
//! prefix of its pattern, so a cascade is a chain of transducers and one finite machine
//! (`machine.rs`). The reference, the answer and the identity read the input side by side
//! (`product.rs`), one layer per input length; a product state is the two machines' states,
//! the lag between their outputs (`lag.rs`: the longer output's surplus, or "differ for
//! good" once neither is a prefix of the other) and the lag between A's output and the
//! input. Equal states are merged and their string counts summed, so the work grows with
//! the number of distinct states, not of strings (52⁶ ≈ 2·10¹⁰ for the full preset).
//!
//! One more merge keeps the machines small: a rule's pending prefix whose continuation
//! the rules before it can no longer write (they hold other letters) will be written
//! unchanged, so it is written at once. Without it a letter held by one rule keeps every
//! later rule's pending letters waiting and the states multiply with the input length (a
//! 20-rule gold: 42,529 states at length 6; with it, 48).
//!
//! # Letters neither cascade uses
//!
//! A letter of Σ that occurs in no pattern and no replacement of A or B is never part of
//! a match (it is in no pattern), so every rule writes it unchanged, and no rule creates
//! it (it is in no replacement). Hence, for such letters x, A(u x v) = A(u) x A(v): the
//! output splits at the same positions as the input, around the same letters, and A(s) =
//! B(s) (and A(s) = s) holds exactly when it holds segment by segment. Replacing every
//! such letter of s by one representative therefore changes neither verdict, and these
//! letters are read as one letter (the first of them in the alphabet's order) that counts
//! for all of them: with 52 letters of which a cascade pair uses 28, each layer reads 29
//! letters instead of 52. A least counterexample uses only the representative (putting it
//! in place of another such letter keeps a counterexample and makes it smaller), so the
//! first counterexample in the reduced order is the first in the alphabet's order.
//!
//! # Bounds
//!
//! A model's cascade is untrusted: its outputs can grow exponentially (20 ×
//! `replace("a", "aaa")` writes 3²⁰ letters per `a`). Every resource is bounded by
//! [`Limits`], and a limit never turns into a wrong verdict:
//!
//! * **Output length.** First the longest output of A over the space is computed (a
//!   product of A alone, by the same machine). When it is at most
//!   [`Limits::max_output_len`] = M, every step of B is capped at that length: a step of B
//!   that writes more, or a surplus of B over A longer than it, means B's output is longer
//!   than every output of A, so a genuine difference (the string is a counterexample and
//!   counts as disagreeing). When A's outputs exceed M but B's do not, the roles swap
//!   (A's steps are capped by B's longest output, and by the longest input for "A changed
//!   the input"). When both exceed M, the verdict is [`Limit::OutputTooLong`], unless A
//!   and B are the same cascade (identity rules aside), which is decided without B.
//! * **States.** A layer holds at most [`Limits::max_states`] product states
//!   ([`Limit::TooManyStates`]).
//! * **Memory for texts.** Each machine (its KMP tables, state keys and the texts its steps
//!   write) and the lag table hold at most [`Limits::max_stored`] values of 4 bytes
//!   ([`Limit::TooManyLetters`]).
//! * **Time.** Every letter a rule reads, every letter compared in a lag and every product
//!   transition costs one unit of [`Limits::max_work`] ([`Limit::TooMuchWork`]); the
//!   longest output is computed under its own budget of the same size.
//!
//! So one comparison spends at most three budgets of work (preparing the reference,
//! finding the answer's longest output when the reference's is too long, and the
//! product), a few seconds each with the defaults, and holds at most three tables of
//! 2²² values (16 MiB each) plus two layers of 2¹⁸ states (about 64 bytes each) and the
//! parent links of every layer: tens of MiB. Full-preset pairs use a few hundred states
//! and well under a millisecond.
//! When a limit is hit, [`Undecided`] says which, with the shortest counterexample when
//! one was already found (A and B are then certainly not equivalent).

mod lag;
mod machine;
mod product;

use crate::instance::Instance;
use crate::rule::{Cascade, Rule};
use machine::Machine;
use product::{Caps, Letter, Outcome, Tally};
use std::fmt;

/// The longest input length an [`InputSpace`] may have.
pub const MAX_INPUT_LEN: usize = 64;

/// Every string over an alphabet with a length in `min_len..=max_len`, drawn with a
/// uniform length, then uniform independent letters (as the generator draws inputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpace {
    alphabet: Vec<char>,
    min_len: usize,
    max_len: usize,
}

/// Why an [`InputSpace`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    /// No letters.
    #[error("the alphabet is empty: give at least one letter")]
    EmptyAlphabet,
    /// A letter given twice (the distribution would weigh it twice).
    #[error("the letter {0:?} appears twice in the alphabet")]
    RepeatedLetter(char),
    /// `min_len > max_len`.
    #[error(
        "the input length range {min}..={max} is empty: the minimum must not exceed the maximum"
    )]
    EmptyLengths {
        /// The shortest length asked for.
        min: usize,
        /// The longest.
        max: usize,
    },
    /// The instance has no inputs to read a length range from ([`InputSpace::of`]).
    #[error("the instance has no inputs, so no input-length range")]
    NoInputs,
    /// The strings cannot be counted in 128 bits, or are longer than [`MAX_INPUT_LEN`].
    #[error("{letters} letters with inputs of up to {max_len} characters: too many strings to count (at most 64 characters, and |alphabet|^max × lengths below 2^128)")]
    TooLarge {
        /// Size of the alphabet.
        letters: usize,
        /// The longest length asked for.
        max_len: usize,
    },
}

/// The input lengths every preset draws from (`--input-len 2..6`), and the published
/// snapshots' too: the least range [`InputSpace::of`] grades an instance over.
pub const PRESET_INPUT_LEN: (usize, usize) = (2, 6);

impl InputSpace {
    /// The strings over `alphabet` (in this order, which orders counterexamples) with
    /// `min_len..=max_len` characters.
    pub fn new(
        alphabet: impl IntoIterator<Item = char>,
        min_len: usize,
        max_len: usize,
    ) -> Result<Self, SpaceError> {
        let alphabet: Vec<char> = alphabet.into_iter().collect();
        if alphabet.is_empty() {
            return Err(SpaceError::EmptyAlphabet);
        }
        let mut seen = alphabet.clone();
        seen.sort_unstable();
        if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
            return Err(SpaceError::RepeatedLetter(w[0]));
        }
        if min_len > max_len {
            return Err(SpaceError::EmptyLengths {
                min: min_len,
                max: max_len,
            });
        }
        let space = InputSpace {
            alphabet,
            min_len,
            max_len,
        };
        let too_large = SpaceError::TooLarge {
            letters: space.alphabet.len(),
            max_len,
        };
        let counted =
            (space.power(max_len)).and_then(|p| p.checked_mul((max_len - min_len + 1) as u128));
        if max_len > MAX_INPUT_LEN || counted.is_none() {
            return Err(too_large);
        }
        Ok(space)
    }

    /// The input space of an instance (`docs/metrics.md#behaviour`): the strings over its
    /// alphabet whose length lies in the presets' input-length range
    /// ([`PRESET_INPUT_LEN`], 2–6, which the published snapshots share), widened to the
    /// shortest and the longest of its inputs, visible and held-out, in characters.
    ///
    /// An instance does not store the range its inputs were drawn from, and reading the
    /// range back from the inputs alone would narrow it for a few instances (a Lite
    /// instance's 5 + 20 inputs miss length 2 about once in sixty), which would grade
    /// their answers on fewer strings than the generator draws from. A dataset generated
    /// with another `--input-len` is graded over the union of that range and 2–6: never
    /// fewer strings than its inputs come from. Errors as [`InputSpace::new`]'s, and
    /// [`SpaceError::NoInputs`] for an instance without inputs.
    pub fn of(instance: &Instance) -> Result<Self, SpaceError> {
        let lengths =
            (instance.inputs.iter().chain(&instance.heldout_inputs)).map(|s| s.chars().count());
        let (min, max) = lengths
            .fold(None, |range, len| match range {
                None => Some((len, len)),
                Some((lo, hi)) => Some((len.min(lo), len.max(hi))),
            })
            .ok_or(SpaceError::NoInputs)?;
        let (lo, hi) = PRESET_INPUT_LEN;
        Self::new(instance.alphabet.chars(), min.min(lo), max.max(hi))
    }

    /// The letters, in the order that orders counterexamples.
    pub fn alphabet(&self) -> &[char] {
        &self.alphabet
    }

    /// The shortest input length.
    pub fn min_len(&self) -> usize {
        self.min_len
    }

    /// The longest input length.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// How many strings the space holds.
    pub fn strings(&self) -> u128 {
        (self.min_len..=self.max_len)
            .map(|len| self.power(len).expect("checked in new"))
            .sum()
    }

    /// |Σ|^len, if it fits.
    fn power(&self, len: usize) -> Option<u128> {
        (self.alphabet.len() as u128).checked_pow(len as u32)
    }
}

/// The bounds of one comparison (see the module documentation, "Bounds").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest output (in characters) the engine follows; raised to the space's
    /// longest input if below it.
    pub max_output_len: usize,
    /// The most product states one layer (input length) may hold.
    pub max_states: usize,
    /// The most values (4 bytes each) one machine, or the lag table, may store.
    pub max_stored: usize,
    /// The most units of work one comparison may spend.
    pub max_work: u64,
}

impl Default for Limits {
    /// 1024 characters, 2¹⁸ states, 2²² stored values, 2²⁸ units of work.
    fn default() -> Self {
        Limits {
            max_output_len: 1024,
            max_states: 1 << 18,
            max_stored: 1 << 22,
            max_work: 1 << 28,
        }
    }
}

/// The bound a comparison ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Limit {
    /// Both cascades write outputs longer than `limit` characters (and differ).
    #[error("both cascades write outputs longer than {limit} characters on some input")]
    OutputTooLong {
        /// [`Limits::max_output_len`].
        limit: usize,
    },
    /// A layer grew past `limit` states.
    #[error("more than {limit} product states at input length {length}")]
    TooManyStates {
        /// The input length of the layer.
        length: usize,
        /// [`Limits::max_states`].
        limit: usize,
    },
    /// A machine or the lag table would store more than `limit` values.
    #[error("more than {limit} stored letters")]
    TooManyLetters {
        /// [`Limits::max_stored`].
        limit: usize,
    },
    /// The work budget ran out.
    #[error("more than {limit} units of work")]
    TooMuchWork {
        /// [`Limits::max_work`].
        limit: u64,
    },
}

/// A comparison that ran into a limit before it could count every string.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("undecided: {limit}")]
pub struct Undecided {
    /// Which limit.
    pub limit: Limit,
    /// A shortest counterexample, when one was found before the limit (the cascades are
    /// then certainly not equivalent; agreement is still unknown).
    pub counterexample: Option<Counterexample>,
}

/// An exact fraction, in lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    numerator: u128,
    denominator: u128,
}

impl Ratio {
    /// `numerator / denominator`, reduced; `denominator` must not be 0.
    pub fn new(numerator: u128, denominator: u128) -> Self {
        assert!(denominator != 0, "a ratio needs a non-zero denominator");
        let g = gcd(numerator, denominator);
        Ratio {
            numerator: numerator / g,
            denominator: denominator / g,
        }
    }

    /// The numerator (lowest terms).
    pub fn numerator(self) -> u128 {
        self.numerator
    }

    /// The denominator (lowest terms).
    pub fn denominator(self) -> u128 {
        self.denominator
    }

    /// The nearest `f64` (exact when both terms are below 2⁵³, as for every preset).
    pub fn to_f64(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.numerator, self.denominator)
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// One cascade's output on a counterexample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// The output.
    Text(String),
    /// The output, or a string on the way to it, is longer than the limit (the
    /// `max_len` of [`Cascade::apply_bounded`], here [`Limits::max_output_len`]).
    TooLong {
        /// The limit in characters.
        limit: usize,
    },
}

impl Output {
    /// The output text, if it was within the limit.
    pub fn text(&self) -> Option<&str> {
        match self {
            Output::Text(s) => Some(s),
            Output::TooLong { .. } => None,
        }
    }
}

/// An input on which the two cascades differ, with both outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// The input.
    pub input: String,
    /// The reference's output.
    pub reference: Output,
    /// The answer's output.
    pub answer: Output,
}

/// What a comparison cost (for tests and benchmarks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    /// Units of work spent (against [`Limits::max_work`]).
    pub work: u64,
    /// Product states in the largest layer.
    pub largest_layer: usize,
}

/// The exact behavioural comparison of an answer with a reference over an input space.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The first shortest input on which they differ, or `None` when they are equivalent.
    pub counterexample: Option<Counterexample>,
    /// P(reference(s) = answer(s)) over the space's distribution.
    pub agreement: Ratio,
    /// The same, conditioned on reference(s) ≠ s; `None` when the reference changes no
    /// string of the space.
    pub changed_agreement: Option<Ratio>,
    /// The work and states spent.
    pub cost: Cost,
}

impl Comparison {
    /// True when the answer behaves like the reference on every string of the space.
    pub fn equivalent(&self) -> bool {
        self.counterexample.is_none()
    }
}

/// Compares `answer` with `reference` over `space`: see the module documentation.
///
/// To compare many answers with one reference, prepare it once with [`Reference`].
pub fn compare(
    reference: &Cascade,
    answer: &Cascade,
    space: &InputSpace,
    limits: &Limits,
) -> Result<Comparison, Undecided> {
    Reference::new(reference, space, limits).compare(answer)
}

/// An answer to `instance` graded on behaviour (`docs/metrics.md#behaviour`): its exact comparison
/// with the gold over [`InputSpace::of`], under the default [`Limits`]. Recovered is
/// [`Comparison::equivalent`], behaviour is [`Comparison::changed_agreement`]. `None` when
/// the instance has no gold cascade (real data) or no input space.
pub fn against_gold(
    instance: &Instance,
    answer: &Cascade,
) -> Option<Result<Comparison, Undecided>> {
    let gold = instance.cascade.as_ref()?;
    let space = InputSpace::of(instance).ok()?;
    Some(compare(gold, answer, &space, &Limits::default()))
}

/// Recovered and behaviour of an answer (`docs/metrics.md#recovered1`), as scores report them: from
/// [`against_gold`], `(equivalent, changed agreement)`. `(None, None)` without a gold;
/// when the comparison runs into one of the engine's bounds, recovered is `Some(false)`
/// if a counterexample was found on the way (the cascades certainly differ), else
/// `None`, and behaviour is `None`.
pub fn recovered_and_behaviour(
    instance: &Instance,
    answer: &Cascade,
) -> (Option<bool>, Option<f64>) {
    against_gold(instance, answer).map_or((None, None), |result| verdict(&result))
}

/// Recovered and behaviour from a comparison with the gold (`docs/metrics.md#behaviour`):
/// `(equivalent, changed agreement)`; for an undecided comparison, recovered is `Some(false)` if a
/// counterexample was found on the way (the cascades certainly differ), else `None`, and
/// behaviour is `None`.
pub fn verdict(result: &Result<Comparison, Undecided>) -> (Option<bool>, Option<f64>) {
    match result {
        Ok(found) => (
            Some(found.equivalent()),
            found.changed_agreement.map(Ratio::to_f64),
        ),
        Err(undecided) => (undecided.counterexample.as_ref().map(|_| false), None),
    }
}

/// A reference cascade prepared for comparisons over one input space: its machine (whose
/// steps are cached across comparisons) and its longest output.
pub struct Reference {
    cascade: Cascade,
    space: InputSpace,
    limits: Limits,
    prepared: Result<Prepared, Limit>,
}

/// The reference's machine and its longest output (`None`: longer than the limit).
struct Prepared {
    machine: Machine,
    longest: Option<usize>,
}

/// Units of work, counted down.
pub(crate) struct Budget {
    left: u64,
    limit: u64,
}

impl Budget {
    fn new(limit: u64) -> Self {
        Budget { left: limit, limit }
    }

    /// Spends `units`, or fails when the budget is gone.
    fn spend(&mut self, units: u64) -> Result<(), Limit> {
        self.left = self
            .left
            .checked_sub(units)
            .ok_or(Limit::TooMuchWork { limit: self.limit })?;
        Ok(())
    }

    /// Units spent so far.
    fn spent(&self) -> u64 {
        self.limit - self.left
    }
}

impl Reference {
    /// Prepares `cascade` as the reference over `space`: compiles it and finds its longest
    /// output (within `limits`).
    pub fn new(cascade: &Cascade, space: &InputSpace, limits: &Limits) -> Self {
        let mut limits = *limits;
        limits.max_output_len = limits.max_output_len.max(space.max_len);
        let prepared = Machine::new(
            cascade,
            &space.alphabet,
            limits.max_output_len,
            limits.max_stored,
        )
        .and_then(|mut machine| {
            let longest = longest(&mut machine, space, &limits)?;
            Ok(Prepared { machine, longest })
        });
        Reference {
            cascade: cascade.clone(),
            space: space.clone(),
            limits,
            prepared,
        }
    }

    /// The input space.
    pub fn space(&self) -> &InputSpace {
        &self.space
    }

    /// The reference's longest output over the space, in characters, when it is within
    /// [`Limits::max_output_len`].
    pub fn longest_output(&self) -> Option<usize> {
        self.prepared.as_ref().ok().and_then(|p| p.longest)
    }

    /// Compares `answer` with the reference: see the module documentation.
    pub fn compare(&mut self, answer: &Cascade) -> Result<Comparison, Undecided> {
        let undecided = |limit| Undecided {
            limit,
            counterexample: None,
        };
        let (space, limits) = (&self.space, self.limits);
        let prepared = self.prepared.as_mut().map_err(|&mut l| undecided(l))?;
        let same = changing(&self.cascade) == changing(answer);
        let mut budget = Budget::new(limits.max_work);
        let (mut b, caps) = match sides(prepared, answer, same, space, &limits) {
            Ok(sides) => sides,
            Err(limit) => return Err(undecided(limit)),
        };
        let a = &mut prepared.machine;
        let letters = letters(space, a, b.as_ref());
        let lengths = (space.min_len, space.max_len);
        let stores = (limits.max_states, limits.max_stored);
        let outcome = product::run(a, b.as_mut(), &letters, lengths, caps, stores, &mut budget);
        let counterexample = |input: Option<String>| input.map(|s| self.counterexample(s, answer));
        match outcome {
            Ok(outcome) => Ok(self.comparison(outcome, counterexample, budget.spent())),
            Err((limit, input)) => Err(Undecided {
                limit,
                counterexample: counterexample(input),
            }),
        }
    }

    /// The counterexample `input` with both outputs.
    fn counterexample(&self, input: String, answer: &Cascade) -> Counterexample {
        let limit = self.limits.max_output_len;
        let output = |c: &Cascade| match c.apply_bounded(&input, limit) {
            Ok(text) => Output::Text(text),
            Err(_) => Output::TooLong { limit },
        };
        Counterexample {
            reference: output(&self.cascade),
            answer: output(answer),
            input,
        }
    }

    /// The comparison from the product's tallies: each length weighs |Σ|^(max − len), so
    /// that every length has the same total weight.
    fn comparison(
        &self,
        outcome: Outcome,
        counterexample: impl FnOnce(Option<String>) -> Option<Counterexample>,
        work: u64,
    ) -> Comparison {
        let space = &self.space;
        let weighed = |part: fn(&Tally) -> u128| -> u128 {
            (outcome.tallies.iter().zip(space.min_len..))
                .map(|(tally, len)| part(tally) * space.power(space.max_len - len).unwrap())
                .sum()
        };
        let lengths = (space.max_len - space.min_len + 1) as u128;
        let everything = lengths * space.power(space.max_len).unwrap();
        let changed = weighed(|t| t.changed);
        Comparison {
            agreement: Ratio::new(weighed(|t| t.agree), everything),
            changed_agreement: (changed > 0)
                .then(|| Ratio::new(weighed(|t| t.agree_changed), changed)),
            cost: Cost {
                work,
                largest_layer: outcome.largest_layer,
            },
            counterexample: counterexample(outcome.counterexample),
        }
    }
}

/// The rules of `cascade` that can change a string (`a != b`): two cascades with the same
/// ones are the same function.
fn changing(cascade: &Cascade) -> Vec<&Rule> {
    cascade
        .rules()
        .iter()
        .filter(|r| !r.is_identity())
        .collect()
}

/// The reference's longest output, `None` when it exceeds the limit.
fn longest(
    machine: &mut Machine,
    space: &InputSpace,
    limits: &Limits,
) -> Result<Option<usize>, Limit> {
    let mut codes: Vec<u32> = space.alphabet.iter().map(|&c| machine.code(c)).collect();
    codes.sort_unstable();
    codes.dedup();
    let mut budget = Budget::new(limits.max_work);
    let lengths = (space.min_len, space.max_len);
    let cap = limits.max_output_len;
    match product::longest_output(
        machine,
        &codes,
        lengths,
        cap,
        limits.max_states,
        &mut budget,
    ) {
        Ok(longest) => Ok(Some(longest)),
        Err(Limit::OutputTooLong { .. }) => Ok(None),
        Err(limit) => Err(limit),
    }
}

/// The answer's machine (`None` when it is the reference's cascade) and the caps that make
/// every overflow a genuine difference.
fn sides(
    prepared: &mut Prepared,
    answer: &Cascade,
    same: bool,
    space: &InputSpace,
    limits: &Limits,
) -> Result<(Option<Machine>, Caps), Limit> {
    let input = space.max_len;
    let unbounded = Caps {
        a: usize::MAX,
        b: usize::MAX,
        lead: usize::MAX,
        input,
    };
    match (same, prepared.longest) {
        // A against itself: only "did A change the input" is counted, and an A step
        // longer than every input changes it.
        (true, longest) => Ok((
            None,
            Caps {
                a: if longest.is_some() { usize::MAX } else { input },
                ..unbounded
            },
        )),
        // B's steps are capped at A's longest output: writing more is a difference.
        (false, Some(longest)) => {
            let b = Machine::new(answer, &space.alphabet, longest, limits.max_stored)?;
            Ok((
                Some(b),
                Caps {
                    lead: longest,
                    ..unbounded
                },
            ))
        }
        // A is too long to follow; B's longest output caps A's steps, if B is short.
        (false, None) => {
            let mut b = Machine::new(
                answer,
                &space.alphabet,
                limits.max_output_len,
                limits.max_stored,
            )?;
            let longest_b = longest(&mut b, space, limits)?.ok_or(Limit::OutputTooLong {
                limit: limits.max_output_len,
            })?;
            Ok((
                Some(b),
                Caps {
                    a: longest_b.max(input),
                    lead: longest_b,
                    ..unbounded
                },
            ))
        }
    }
}

/// The product's input letters, in the alphabet's order: every letter one of the
/// cascades uses, and the first of the others standing for all of them.
fn letters(space: &InputSpace, a: &Machine, b: Option<&Machine>) -> Vec<Letter> {
    let used = |c: char| a.uses(c) || b.is_some_and(|b| b.uses(c));
    let unused = space.alphabet.iter().filter(|&&c| !used(c)).count() as u128;
    let mut letters = Vec::new();
    let mut class_seen = false;
    for &ch in &space.alphabet {
        let weight = if used(ch) {
            1
        } else if !class_seen {
            class_seen = true;
            unused
        } else {
            continue;
        };
        letters.push(Letter {
            ch,
            weight,
            a: a.code(ch),
            b: b.map_or(0, |b| b.code(ch)),
        });
    }
    letters
}

/// The bound on every intermediate string when an untrusted cascade is applied to the
/// strings of `instance` (for [`Cascade::apply_bounded`]): 16 times the longest of its
/// example strings (inputs and outputs, visible and held-out) and of the gold cascade's
/// intermediate strings on its inputs, and at least 256.
///
/// The gold never reaches it on its own examples (its strings are all at most a
/// sixteenth of it); an answer may take detours through longer strings than the gold's,
/// and sixteen times leaves room for them, while one application costs at most about
/// bound × rules character steps. A cascade that needs more writes strings over 16 times
/// longer than anything in the instance: it fails, with a reason, rather than run away.
pub fn length_bound(instance: &Instance) -> usize {
    let inputs = instance.inputs.iter().chain(&instance.heldout_inputs);
    let outputs = instance.outputs.iter().chain(&instance.heldout_outputs);
    let examples = inputs.clone().chain(outputs).map(|s| s.chars().count());
    let gold = instance.cascade.iter().flat_map(|gold| {
        inputs.clone().flat_map(|s| {
            let mut s = s.clone();
            (gold.rules().iter()).map(move |rule| {
                s = rule.apply(&s);
                s.chars().count()
            })
        })
    });
    let longest = examples.chain(gold).max().unwrap_or(0);
    length_bound_of(longest)
}

/// The bound [`length_bound`] derives from the longest string it considers: 16 times its
/// length, and at least 256 (also for word lists and problems that carry no instance).
pub fn length_bound_of(longest: usize) -> usize {
    (16 * longest).max(256)
}
