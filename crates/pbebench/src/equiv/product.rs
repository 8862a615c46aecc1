//! The layered product: the reference, the answer and the identity read the same input
//! side by side, one layer per input length, equal states merged with their string
//! counts summed.
//!
//! A product state is the reference's state, the answer's, the lag between their outputs
//! and the lag between the reference's output and the input (whether the reference has
//! changed the input). Once a lag is [`DIFFER`] the side it compares is no longer needed:
//! the answer's state is dropped when the outputs differ, and a state where both verdicts
//! are settled is a sink that keeps only its count.
//!
//! States enter a layer in the order they are first reached, reading the previous layer
//! in its order and the letters in the alphabet's order; so each state's first string
//! (its representative) is the least in that order among the strings that reach it, the
//! layer is sorted by representative, and the first disagreeing state of the shortest
//! layer gives the least shortest counterexample.

use super::lag::{Lags, Piece, DIFFER, SAME};
use super::machine::{Machine, FRESH, NONE};
use super::{Budget, Limit};
use rustc_hash::FxHashMap;

/// One input letter of the product: a letter of the alphabet, or one standing for a class
/// of interchangeable ones (`weight` of them), with its code in each machine.
#[derive(Debug, Clone, Copy)]
pub(super) struct Letter {
    pub ch: char,
    pub weight: u128,
    pub a: u32,
    pub b: u32,
}

/// How long a step's text may be before it counts as an overflow, on each side, and how
/// long a surplus may grow before the outputs count as different.
#[derive(Debug, Clone, Copy)]
pub(super) struct Caps {
    /// A reference text longer than this is longer than every output of the answer and
    /// every input.
    pub a: usize,
    /// An answer text longer than this is longer than every output of the reference.
    pub b: usize,
    /// A surplus between the two outputs longer than this is longer than every output of
    /// the side behind.
    pub lead: usize,
    /// The longest input.
    pub input: usize,
}

/// The strings of one length, by how the two cascades treat them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// Strings both map to the same output.
    pub agree: u128,
    /// Strings the reference changes.
    pub changed: u128,
    /// Strings the reference changes and both map to the same output.
    pub agree_changed: u128,
}

/// The tallies by length (from the shortest) and the least shortest counterexample.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub tallies: Vec<Tally>,
    pub counterexample: Option<String>,
    /// States in the largest layer.
    pub largest_layer: usize,
}

/// The product of `a` and `b` (`None`: the same cascade as `a`) over the strings of
/// `letters` with lengths `lengths`. On a limit, the counterexample found so far (if
/// any) comes with it.
pub(super) fn run(
    a: &mut Machine,
    b: Option<&mut Machine>,
    letters: &[Letter],
    lengths: (usize, usize),
    caps: Caps,
    limits: (usize, usize),
    budget: &mut Budget,
) -> Result<Outcome, (Limit, Option<String>)> {
    let (max_states, max_stored) = limits;
    let start = State {
        a: a.start(),
        b: b.as_ref().map_or(NONE, |b| b.start()),
        ab: SAME,
        ai: SAME,
    };
    let mut product = Product {
        a,
        b,
        caps,
        lags: Lags::new(max_stored),
        budget,
    };
    let mut layers = Layers::new(start, max_states);
    let mut outcome = Outcome::default();
    let mut walk = || -> Result<(), Limit> {
        loop {
            let t = layers.len();
            if t >= lengths.0 {
                let (tally, first) = product.tally(layers.last())?;
                outcome.tallies.push(tally);
                if outcome.counterexample.is_none() {
                    outcome.counterexample = first.map(|k| layers.spell(k, letters));
                }
            }
            outcome.largest_layer = outcome.largest_layer.max(layers.last().nodes.len());
            if t == lengths.1 {
                return Ok(());
            }
            if t + 1 == lengths.1 {
                // The last layer is only counted: its states are never stored.
                let (tally, first) = product.tally_next(layers.last(), letters)?;
                outcome.tallies.push(tally);
                if outcome.counterexample.is_none() {
                    outcome.counterexample = first.map(|(k, l)| {
                        layers.spell(k, letters) + &letters[l as usize].ch.to_string()
                    });
                }
                return Ok(());
            }
            layers.grow(|state, l| product.advance(state, &letters[l]), letters)?;
        }
    };
    match walk() {
        Ok(()) => Ok(outcome),
        Err(limit) => Err((limit, outcome.counterexample)),
    }
}

/// The longest output of one machine over the strings of `codes` (one code per input
/// letter) with lengths `lengths`, or [`Limit::OutputTooLong`] when a step overflows or an
/// output exceeds `cap`.
pub(super) fn longest_output(
    m: &mut Machine,
    codes: &[u32],
    lengths: (usize, usize),
    cap: usize,
    max_states: usize,
    budget: &mut Budget,
) -> Result<usize, Limit> {
    let too_long = Limit::OutputTooLong { limit: cap };
    let mut layer: FxHashMap<u32, usize> = [(m.start(), 0)].into_iter().collect();
    let mut longest = 0;
    for t in 0..=lengths.1 {
        if t >= lengths.0 {
            for (&id, &len) in &layer {
                let flush = m.flush(id, budget)?;
                let text = m.written(flush, cap).ok_or(too_long)?;
                longest = longest.max(len + text.len());
            }
            if longest > cap {
                return Err(too_long);
            }
        }
        if t == lengths.1 {
            break;
        }
        let mut next = FxHashMap::default();
        for (&id, &len) in &layer {
            for &code in codes {
                let step = m.step(id, code, budget)?;
                let len = len + m.written(step, cap).ok_or(too_long)?.len();
                if len > cap {
                    return Err(too_long);
                }
                let best = next.entry(step.next).or_insert(len);
                *best = len.max(*best);
            }
        }
        if next.len() > max_states {
            return Err(Limit::TooManyStates {
                length: t + 1,
                limit: max_states,
            });
        }
        layer = next;
    }
    Ok(longest)
}

/// A product state: the two machines' states and the two lags (reference vs answer,
/// reference vs input). `a == NONE` is a sink: both verdicts are settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    a: u32,
    b: u32,
    ab: u32,
    ai: u32,
}

impl State {
    fn key(self) -> u128 {
        (self.a as u128) << 96 | (self.b as u128) << 64 | (self.ab as u128) << 32 | self.ai as u128
    }

    fn is_sink(self) -> bool {
        self.a == NONE
    }
}

/// The machines, the letters and the lags of one product.
struct Product<'m> {
    a: &'m mut Machine,
    b: Option<&'m mut Machine>,
    caps: Caps,
    lags: Lags,
    budget: &'m mut Budget,
}

impl Product<'_> {
    /// The state after reading `letter` in `s`.
    fn advance(&mut self, s: State, letter: &Letter) -> Result<State, Limit> {
        self.budget.spend(1)?;
        if s.is_sink() {
            return Ok(s);
        }
        let Product {
            a,
            b,
            caps,
            lags,
            budget,
            ..
        } = self;
        let input = letter.ch as u32;
        let step_a = a.step(s.a, letter.a, budget)?;
        let piece_a = Piece {
            text: a.written(step_a, caps.a),
            input,
        };
        let (ab, next_b) = match b {
            None => (SAME, NONE),
            Some(_) if s.ab == DIFFER => (DIFFER, NONE),
            Some(b) => {
                let step_b = b.step(s.b, letter.b, budget)?;
                let piece_b = Piece {
                    text: b.written(step_b, caps.b),
                    input,
                };
                let ab = lags.extend(s.ab, piece_a, piece_b, caps.lead, budget)?;
                (ab, if ab == DIFFER { NONE } else { step_b.next })
            }
        };
        let ai = match s.ai {
            DIFFER => DIFFER,
            _ => {
                let read = Piece {
                    text: Some(&[FRESH]),
                    input,
                };
                lags.extend(s.ai, piece_a, read, caps.input, budget)?
            }
        };
        let settled = ai == DIFFER && (b.is_none() || ab == DIFFER);
        debug_assert!(
            settled || step_a.next != NONE,
            "an overflow settles both verdicts"
        );
        Ok(State {
            a: if settled { NONE } else { step_a.next },
            b: next_b,
            ab,
            ai,
        })
    }

    /// Whether the two cascades agree on the strings that end in state `s`, and whether
    /// the reference changes them.
    fn verdict(&mut self, s: State) -> Result<(bool, bool), Limit> {
        self.budget.spend(1)?;
        if s.is_sink() {
            return Ok((s.ab == SAME, true));
        }
        let Product {
            a,
            b,
            caps,
            lags,
            budget,
            ..
        } = self;
        let flush_a = a.flush(s.a, budget)?;
        let piece_a = Piece {
            text: a.written(flush_a, caps.a),
            input: 0,
        };
        let agree = match b {
            None => true,
            Some(_) if s.ab == DIFFER => false,
            Some(b) => {
                let flush_b = b.flush(s.b, budget)?;
                let piece_b = Piece {
                    text: b.written(flush_b, caps.b),
                    input: 0,
                };
                lags.ends_equal(s.ab, piece_a, piece_b, budget)?
            }
        };
        let nothing = Piece {
            text: Some(&[]),
            input: 0,
        };
        let changed = s.ai == DIFFER || !lags.ends_equal(s.ai, piece_a, nothing, budget)?;
        Ok((agree, changed))
    }

    /// The tally of one layer and the index of its first disagreeing state.
    fn tally(&mut self, layer: &Layer) -> Result<(Tally, Option<u32>), Limit> {
        let mut tally = Tally::default();
        let mut first = None;
        for (k, &(state, count)) in layer.nodes.iter().enumerate() {
            if !self.count(state, count, &mut tally)? && first.is_none() {
                first = Some(k as u32);
            }
        }
        Ok((tally, first))
    }

    /// The tally of the layer after `layer`, without storing it, and its first
    /// disagreeing string (as a state of `layer` and a letter).
    fn tally_next(
        &mut self,
        layer: &Layer,
        letters: &[Letter],
    ) -> Result<(Tally, Option<(u32, u32)>), Limit> {
        let mut tally = Tally::default();
        let mut first = None;
        let everything: u128 = letters.iter().map(|l| l.weight).sum();
        for (k, &(state, count)) in layer.nodes.iter().enumerate() {
            for (l, letter) in letters.iter().enumerate() {
                let weight = if state.is_sink() {
                    everything
                } else {
                    letter.weight
                };
                let to = self.advance(state, letter)?;
                if !self.count(to, count * weight, &mut tally)? && first.is_none() {
                    first = Some((k as u32, l as u32));
                }
                if state.is_sink() {
                    break;
                }
            }
        }
        Ok((tally, first))
    }

    /// Adds `count` strings ending in state `s` to `tally`; returns whether they agree.
    fn count(&mut self, s: State, count: u128, tally: &mut Tally) -> Result<bool, Limit> {
        let (agree, changed) = self.verdict(s)?;
        if agree {
            tally.agree += count;
        }
        if changed {
            tally.changed += count;
            if agree {
                tally.agree_changed += count;
            }
        }
        Ok(agree)
    }
}

/// One layer: its states in order with their string counts, and where each one is.
#[derive(Default)]
struct Layer {
    nodes: Vec<(State, u128)>,
    index: FxHashMap<u128, u32>,
}

/// Every layer's parent links (`(parent, letter)` for each state, for spelling
/// representatives) and the last layer.
struct Layers {
    parents: Vec<Vec<(u32, u32)>>,
    last: Layer,
    max_states: usize,
}

impl Layers {
    /// Layer 0: the empty string.
    fn new(start: State, max_states: usize) -> Self {
        let mut last = Layer::default();
        last.nodes.push((start, 1));
        Layers {
            parents: vec![vec![(NONE, NONE)]],
            last,
            max_states,
        }
    }

    /// The length of the strings of the last layer.
    fn len(&self) -> usize {
        self.parents.len() - 1
    }

    fn last(&self) -> &Layer {
        &self.last
    }

    /// The next layer: every state of the last one, in order, reads every letter, in
    /// order (a sink reads them all at once: it goes nowhere else).
    fn grow(
        &mut self,
        mut advance: impl FnMut(State, usize) -> Result<State, Limit>,
        letters: &[Letter],
    ) -> Result<(), Limit> {
        let mut next = Layer::default();
        let mut parents = Vec::new();
        let everything: u128 = letters.iter().map(|l| l.weight).sum();
        for (k, &(state, count)) in self.last.nodes.iter().enumerate() {
            for (l, letter) in letters.iter().enumerate() {
                let to = advance(state, l)?;
                let weight = if state.is_sink() {
                    everything
                } else {
                    letter.weight
                };
                let at = *next.index.entry(to.key()).or_insert_with(|| {
                    next.nodes.push((to, 0));
                    parents.push((k as u32, l as u32));
                    next.nodes.len() as u32 - 1
                });
                next.nodes[at as usize].1 += count * weight;
                if next.nodes.len() > self.max_states {
                    return Err(Limit::TooManyStates {
                        length: self.len() + 1,
                        limit: self.max_states,
                    });
                }
                if state.is_sink() {
                    break;
                }
            }
        }
        self.parents.push(parents);
        self.last = next;
        Ok(())
    }

    /// The representative of state `k` of the last layer.
    fn spell(&self, mut k: u32, letters: &[Letter]) -> String {
        let mut chars = Vec::with_capacity(self.len());
        for parents in self.parents[1..].iter().rev() {
            let (parent, letter) = parents[k as usize];
            chars.push(letters[letter as usize].ch);
            k = parent;
        }
        chars.iter().rev().collect()
    }
}
