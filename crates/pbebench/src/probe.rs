//! Probing the sealed cascade (`docs/interactive.md`): an [`Oracle`] runs an instance's hidden
//! cascade on inputs of a solver's choice and tests candidate cascades, and never reveals the
//! cascade itself.
//!
//! The gold is a private field of the oracle and nothing returns it: no accessor, no
//! `Serialize`, a `Debug` that leaves it out. A solver given an [`Oracle`] (and its
//! [`Task`], the public view of the instance) can learn the hidden cascade's behaviour
//! only through [`Oracle::run_hidden`], whose every input counts against the probe
//! budget and is recorded ([`Oracle::probes`]).
//!
//! Candidate cascades are untrusted input: rules that break the instance's limits are left
//! out (as scoring leaves them out), and every intermediate string is bounded
//! ([`Oracle::length_bound`]), so a cascade such as twenty `replace('a', 'aaa')` fails
//! with a reason instead of exhausting memory.
//!
//! A final answer is graded by [`grade`], which is static scoring's path
//! ([`crate::score_instance`]) with held-out pass over the unprobed held-out examples:
//! `pbebench eval --interactive`, the inspect_ai task and Python's `Oracle.grade` all call
//! it, so an answer gets one grade whatever the mode.

use crate::instance::Instance;
use crate::response::render_answer;
use crate::response::{Alphabet, RuleLimits};
use crate::rule::{Cascade, Rule};
use crate::score::{reproduces_heldout, score_instance, ScoreOptions};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;

/// The shortest longest-probe an oracle accepts by default, in characters
/// ([`Oracle::new`]; `--max-probe-len` sets another).
pub const DEFAULT_PROBE_LEN: usize = 32;
/// The most [`Oracle::with_probe_len`] accepts as its probe length, in characters: 128
/// times the default, and room for every pair of the full preset's 52 letters (2,705
/// letters) in one probe.
pub const MAX_PROBE_LEN: usize = 4096;
/// The smallest bound on intermediate strings, in bytes.
const MIN_LENGTH_BOUND: usize = 4096;

/// What a solver may see of an instance in interactive mode: the visible examples, the
/// limits, the alphabet and the probe budget. Never the gold, its length or category, or
/// the held-out examples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// The instance id.
    pub id: String,
    /// Visible example inputs.
    pub inputs: Vec<String>,
    /// Their outputs.
    pub outputs: Vec<String>,
    /// At most this many rules.
    pub max_rules: usize,
    /// Each side of a rule at most this long.
    pub max_rule_len: usize,
    /// The letters rules and probes may use (any character when empty).
    pub alphabet: String,
    /// Inputs the solver may run through the hidden cascade, in all.
    pub probe_budget: usize,
    /// The longest probe input accepted, in characters.
    pub max_probe_len: usize,
}

/// One input run through the hidden cascade, and its output.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Probe {
    /// The input the solver chose.
    pub input: String,
    /// What the hidden cascade made of it.
    pub output: String,
}

/// Why an oracle cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OracleError {
    /// Real data has no hidden cascade to probe.
    #[error("instance {0} has no gold cascade, so it cannot be probed (interactive mode needs generated instances)")]
    NoGold(String),
    /// The probe length asked for is out of range.
    #[error("a probe length of {0} is out of range: give 1 to {MAX_PROBE_LEN} characters")]
    ProbeLen(usize),
}

/// Why [`Oracle::run_hidden`] answered nothing; the message is meant for the solver. No
/// input of a refused call counts against the budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The call named no input.
    #[error("give at least one input")]
    NoInputs,
    /// An input uses a character outside the alphabet.
    #[error("input {index} ({input:?}) uses {letter:?}, which is not in the alphabet {alphabet:?}; nothing was run")]
    OutsideAlphabet {
        /// 0-based position in the call.
        index: usize,
        /// The input.
        input: String,
        /// The first offending character.
        letter: char,
        /// The alphabet.
        alphabet: String,
    },
    /// An input is longer than the oracle accepts.
    #[error("input {index} has {len} characters; at most {max} are accepted; nothing was run")]
    TooLong {
        /// 0-based position in the call.
        index: usize,
        /// Its length in characters.
        len: usize,
        /// [`Task::max_probe_len`].
        max: usize,
    },
    /// The call asks for more inputs than the budget has left.
    #[error(
        "the call has {asked} inputs but only {left} of the probe budget are left; nothing was run"
    )]
    OverBudget {
        /// Inputs in the call.
        asked: usize,
        /// Budget left.
        left: usize,
    },
    /// The hidden cascade's output would pass the length bound (a dataset whose gold
    /// grows without bound on long inputs).
    #[error("the hidden program's output for input {index} would be longer than {bound} bytes; nothing was run")]
    OutputTooLong {
        /// 0-based position in the call.
        index: usize,
        /// [`Oracle::length_bound`].
        bound: usize,
    },
}

/// One example a candidate gets wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The example's input (visible, or probed).
    pub input: String,
    /// What the hidden cascade gives.
    pub expected: String,
    /// What the candidate gives; `None` when an intermediate string passed the length
    /// bound.
    pub got: Option<String>,
}

/// What [`Oracle::test_cascade`] says about a candidate: execution feedback over the
/// visible examples and every input probed so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Feedback {
    /// Examples checked: the visible ones, then each distinct probed input.
    pub checked: usize,
    /// Examples the candidate reproduces.
    pub passed: usize,
    /// The others, in the order checked.
    pub wrong: Vec<Mismatch>,
    /// Rules left out because they break a limit (too many rules, a side too long, a
    /// letter outside the alphabet), one message each; they act as the identity.
    pub rule_problems: Vec<String>,
}

impl Feedback {
    /// True when the candidate reproduces every example checked.
    pub fn all_pass(&self) -> bool {
        self.wrong.is_empty()
    }
}

/// An instance's hidden cascade, sealed: it can be run on inputs and used to test
/// candidates, never read. See the module doc.
#[derive(Clone)]
pub struct Oracle {
    gold: Cascade,
    task: Task,
    letters: Option<Alphabet>,
    limits: RuleLimits,
    bound: usize,
    probes: Vec<Probe>,
    tests: usize,
}

impl fmt::Debug for Oracle {
    /// Everything but the gold.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Oracle")
            .field("task", &self.task)
            .field("probes", &self.probes)
            .field("tests", &self.tests)
            .finish_non_exhaustive()
    }
}

impl Oracle {
    /// The oracle of `instance` with `probe_budget` probe inputs.
    ///
    /// Probe inputs may have up to `max(32, 2 × the longest visible input)` characters;
    /// intermediate strings (of the gold or a candidate) up to
    /// `max(4096, 64 × the longest visible string or probe)` bytes.
    pub fn new(instance: &Instance, probe_budget: usize) -> Result<Self, OracleError> {
        Self::with_probe_len(instance, probe_budget, DEFAULT_PROBE_LEN)
    }

    /// As [`Oracle::new`], with probe inputs of up to `max(probe_len, 2 × the longest
    /// visible input)` characters. `probe_len` must be 1 to [`MAX_PROBE_LEN`].
    pub fn with_probe_len(
        instance: &Instance,
        probe_budget: usize,
        probe_len: usize,
    ) -> Result<Self, OracleError> {
        if !(1..=MAX_PROBE_LEN).contains(&probe_len) {
            return Err(OracleError::ProbeLen(probe_len));
        }
        let gold = instance
            .cascade
            .clone()
            .ok_or_else(|| OracleError::NoGold(instance.id.clone()))?;
        let longest_input = instance
            .inputs
            .iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0);
        let max_probe_len = probe_len.max(2 * longest_input);
        let longest = instance
            .inputs
            .iter()
            .chain(&instance.outputs)
            .map(String::len)
            .max()
            .unwrap_or(0)
            .max(4 * max_probe_len); // a character is at most 4 bytes
        Ok(Oracle {
            gold,
            task: Task {
                id: instance.id.clone(),
                inputs: instance.inputs.clone(),
                outputs: instance.outputs.clone(),
                max_rules: instance.max_rules,
                max_rule_len: instance.max_rule_len,
                alphabet: instance.alphabet.clone(),
                probe_budget,
                max_probe_len,
            },
            letters: (!instance.alphabet.is_empty()).then(|| Alphabet::new(&instance.alphabet)),
            limits: RuleLimits::of(instance),
            bound: MIN_LENGTH_BOUND.max(64 * longest),
            probes: Vec::new(),
            tests: 0,
        })
    }

    /// What the solver may see.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// The longest intermediate string allowed when a cascade is applied, in bytes.
    pub fn length_bound(&self) -> usize {
        self.bound
    }

    /// Every probe answered so far, in order (repeats included).
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// Probe inputs used.
    pub fn probes_used(&self) -> usize {
        self.probes.len()
    }

    /// Probe inputs left.
    pub fn budget_left(&self) -> usize {
        self.task.probe_budget.saturating_sub(self.probes.len())
    }

    /// Candidates tested so far.
    pub fn tests_run(&self) -> usize {
        self.tests
    }

    /// Runs the hidden cascade on `inputs`. Every input counts against the budget, a
    /// repeated one too. A call with an input outside the alphabet or too long, or with
    /// more inputs than the budget has left, is refused whole (and costs nothing).
    pub fn run_hidden<S: AsRef<str>>(&mut self, inputs: &[S]) -> Result<Vec<String>, Refusal> {
        if inputs.is_empty() {
            return Err(Refusal::NoInputs);
        }
        for (index, input) in inputs.iter().enumerate() {
            self.check_input(index, input.as_ref())?;
        }
        if inputs.len() > self.budget_left() {
            return Err(Refusal::OverBudget {
                asked: inputs.len(),
                left: self.budget_left(),
            });
        }
        let outputs = inputs
            .iter()
            .enumerate()
            .map(|(index, input)| {
                apply_bounded(self.gold.rules(), input.as_ref(), self.bound).ok_or(
                    Refusal::OutputTooLong {
                        index,
                        bound: self.bound,
                    },
                )
            })
            .collect::<Result<Vec<String>, Refusal>>()?;
        self.probes
            .extend(inputs.iter().zip(&outputs).map(|(i, o)| Probe {
                input: i.as_ref().to_owned(),
                output: o.clone(),
            }));
        Ok(outputs)
    }

    fn check_input(&self, index: usize, input: &str) -> Result<(), Refusal> {
        let len = input.chars().count();
        if len > self.task.max_probe_len {
            return Err(Refusal::TooLong {
                index,
                len,
                max: self.task.max_probe_len,
            });
        }
        if let Some(letters) = &self.letters {
            if let Some(letter) = input.chars().find(|c| !letters.contains(*c)) {
                return Err(Refusal::OutsideAlphabet {
                    index,
                    input: input.to_owned(),
                    letter,
                    alphabet: self.task.alphabet.clone(),
                });
            }
        }
        Ok(())
    }

    /// Which of the visible examples and the probed inputs `candidate` gets wrong. Rules
    /// past `max_rules` or breaking a limit are left out and listed.
    pub fn test_cascade(&mut self, candidate: &Cascade) -> Feedback {
        self.tests += 1;
        let (rules, rule_problems) = self.admissible(candidate);
        let mut seen: HashSet<&str> = HashSet::new();
        let examples = self
            .task
            .inputs
            .iter()
            .zip(&self.task.outputs)
            .chain(self.probes.iter().map(|p| (&p.input, &p.output)))
            .filter(|(i, _)| seen.insert(i.as_str()));
        let (mut checked, mut wrong) = (0, Vec::new());
        for (input, expected) in examples {
            checked += 1;
            let got = apply_bounded(&rules, input, self.bound);
            if got.as_deref() != Some(expected.as_str()) {
                wrong.push(Mismatch {
                    input: input.clone(),
                    expected: expected.clone(),
                    got,
                });
            }
        }
        Feedback {
            checked,
            passed: checked - wrong.len(),
            wrong,
            rule_problems,
        }
    }

    /// The rules of `candidate` that meet the instance's limits, and a message for each
    /// one left out.
    fn admissible(&self, candidate: &Cascade) -> (Vec<Rule>, Vec<String>) {
        let mut rules = Vec::new();
        let mut problems = Vec::new();
        for (k, rule) in candidate.rules().iter().enumerate() {
            if k >= self.limits.max_rules {
                problems.push(format!(
                    "rules {}–{} are past the limit of {} rules and were left out",
                    k + 1,
                    candidate.len(),
                    self.limits.max_rules
                ));
                break;
            }
            let broken = self.limits.check(rule.pattern(), rule.replacement());
            if broken.is_empty() {
                rules.push(rule.clone());
            } else {
                let why: Vec<String> = broken.iter().map(ToString::to_string).collect();
                problems.push(format!("rule {} was left out: {}", k + 1, why.join("; ")));
            }
        }
        (rules, problems)
    }
}

/// Applies `rules` to `s`, or `None` as soon as a string would pass `bound` bytes: the
/// length of each rule's result is computed from its matches before it is built.
// To be replaced by the bounded apply of `rule.rs` when it lands (issue 23, item 1).
fn apply_bounded(rules: &[Rule], s: &str, bound: usize) -> Option<String> {
    if s.len() > bound {
        return None;
    }
    let mut cur = s.to_owned();
    for rule in rules {
        let (a, b) = (rule.pattern(), rule.replacement());
        if b.len() > a.len() {
            let matches = cur.matches(a).count();
            if cur.len() + matches * (b.len() - a.len()) > bound {
                return None;
            }
        }
        cur = cur.replace(a, b);
    }
    Some(cur)
}

/// The held-out examples of an instance that a solver did not probe, which alone still
/// measure generalisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnprobedHeldOut {
    /// Indices into the instance's held-out examples, in order.
    pub indices: Vec<usize>,
    /// Held-out examples left out because their input was probed.
    pub excluded: usize,
}

impl UnprobedHeldOut {
    /// The held-out examples of `instance` whose inputs are not among `probes`.
    pub fn of(instance: &Instance, probes: &[Probe]) -> Self {
        let probed: HashSet<&str> = probes.iter().map(|p| p.input.as_str()).collect();
        let (indices, excluded): (Vec<usize>, Vec<usize>) = (0..instance.heldout_inputs.len())
            .partition(|&i| !probed.contains(instance.heldout_inputs[i].as_str()));
        UnprobedHeldOut {
            indices,
            excluded: excluded.len(),
        }
    }
}

/// How a final answer of interactive mode does: [`grade`]'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerGrade {
    /// The graded cascade reproduces every visible example ([`crate::SampleScore::pass`]).
    pub pass: bool,
    /// It reproduces every held-out example whose input was not probed; `None` when no
    /// such example is left.
    pub heldout_pass: Option<bool>,
    /// Held-out examples graded ([`UnprobedHeldOut::indices`]).
    pub heldout_unprobed: usize,
    /// Held-out examples left out because the solver probed their input.
    pub heldout_excluded: usize,
    /// Equivalent to the gold over the instance's input space ([`crate::SampleScore::recovered`]).
    pub recovered: Option<bool>,
    /// Changed agreement with the gold ([`crate::SampleScore::behaviour`]).
    pub behaviour: Option<f64>,
    /// Rules of the answer that were not graded: past `max_rules`, or breaking a limit of
    /// the instance (they act as the identity, as in scoring).
    pub rules_left_out: usize,
    /// The cascade graded: the answer's rules within `max_rules` that meet every limit.
    pub cascade: Cascade,
}

/// Grades a final answer of interactive mode (`pbebench eval --interactive`, the
/// inspect_ai task, `pbebench.Oracle.grade`) exactly as static scoring grades the same
/// cascade written as an answer ([`score_instance`] of [`render_answer`]): rules past
/// `max_rules` or breaking a limit of the instance are left out, strings are bounded by
/// [`crate::equiv::length_bound`], and recovered and behaviour are over the whole
/// instance's input space. Held-out pass counts only the held-out examples whose input is
/// not among `probes` ([`UnprobedHeldOut`]): a probed one no longer measures
/// generalisation.
///
/// ```
/// use pbebench::probe::{grade, Probe};
/// use pbebench::{Cascade, Instance};
///
/// let gold = Cascade::from_pairs(&[("a", "")]).unwrap();
/// let instance = Instance {
///     heldout_inputs: vec!["a".into(), "ba".into()],
///     heldout_outputs: vec!["".into(), "b".into()],
///     ..Instance::from_gold("t", &["ab"], gold.clone(), "ab")
/// };
/// let probed = [Probe { input: "a".into(), output: "".into() }];
/// let g = grade(&instance, &gold, &probed);
/// assert!(g.pass && g.recovered == Some(true));
/// assert_eq!((g.heldout_pass, g.heldout_unprobed, g.heldout_excluded), (Some(true), 1, 1));
/// // A side over max_rule_len is left out, as scoring leaves it out: the identity fails.
/// let g = grade(&instance, &Cascade::from_pairs(&[("ab", "b")]).unwrap(), &probed);
/// assert!(!g.pass && g.rules_left_out == 1);
/// ```
pub fn grade(instance: &Instance, answer: &Cascade, probes: &[Probe]) -> AnswerGrade {
    let options = ScoreOptions::default();
    let scored = score_instance(instance, &[render_answer(answer)], &options);
    let sample = &scored.samples[0];
    let heldout = UnprobedHeldOut::of(instance, probes);
    let bound = crate::equiv::length_bound(instance);
    AnswerGrade {
        pass: scored.pass,
        heldout_pass: (!heldout.indices.is_empty()).then(|| {
            reproduces_heldout(
                instance,
                &scored.cascade,
                heldout.indices.iter().copied(),
                bound,
            )
        }),
        heldout_unprobed: heldout.indices.len(),
        heldout_excluded: heldout.excluded,
        recovered: sample.recovered,
        behaviour: sample.behaviour,
        rules_left_out: answer.len() - sample.valid_rules,
        cascade: scored.cascade,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relations::RelationMode;
    use proptest::prelude::*;

    fn instance() -> Instance {
        let gold = Cascade::new(vec![
            Rule::new("ab", "c").unwrap(),
            Rule::new("c", "").unwrap(),
        ]);
        let inputs: Vec<String> = vec!["xab".into(), "cab".into(), "bbb".into()];
        let heldout: Vec<String> = vec!["abab".into(), "xc".into()];
        Instance {
            id: "t".into(),
            outputs: gold.apply_all(&inputs),
            heldout_outputs: gold.apply_all(&heldout),
            inputs,
            heldout_inputs: heldout,
            cascade_len: 2,
            cascade: Some(gold),
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 3,
            max_rule_len: 2,
            alphabet: "abcx".into(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    fn cascade(rules: &[(&str, &str)]) -> Cascade {
        Cascade::from_pairs(rules).unwrap()
    }

    #[test]
    fn probes_are_answered_counted_and_recorded() {
        let mut o = Oracle::new(&instance(), 4).unwrap();
        assert_eq!(o.run_hidden(&["aab", "c"]).unwrap(), vec!["a", ""]);
        assert_eq!(o.probes_used(), 2);
        assert_eq!(o.budget_left(), 2);
        assert_eq!(
            o.probes(),
            &[
                Probe {
                    input: "aab".into(),
                    output: "a".into()
                },
                Probe {
                    input: "c".into(),
                    output: "".into()
                }
            ]
        );
        // Refused calls cost nothing.
        assert_eq!(
            o.run_hidden(&["a", "b", "c"]),
            Err(Refusal::OverBudget { asked: 3, left: 2 })
        );
        let e = o.run_hidden(&["ab", "aZ"]).unwrap_err();
        assert!(
            matches!(
                e,
                Refusal::OutsideAlphabet {
                    index: 1,
                    letter: 'Z',
                    ..
                }
            ),
            "{e}"
        );
        let long = "a".repeat(o.task().max_probe_len + 1);
        assert!(matches!(
            o.run_hidden(&[long]),
            Err(Refusal::TooLong { .. })
        ));
        assert_eq!(o.run_hidden::<&str>(&[]), Err(Refusal::NoInputs));
        assert_eq!(o.probes_used(), 2);
        assert_eq!(o.run_hidden(&["", "x"]).unwrap(), vec!["", "x"]);
        assert_eq!(o.budget_left(), 0);
    }

    #[test]
    fn feedback_covers_visible_and_probed_examples() {
        let inst = instance();
        let mut o = Oracle::new(&inst, 10).unwrap();
        o.run_hidden(&["abc", "xab"]).unwrap(); // "xab" is also visible: checked once
        let f = o.test_cascade(inst.cascade.as_ref().unwrap());
        assert_eq!((f.checked, f.passed), (4, 4));
        assert!(f.all_pass());
        // Deleting "ab" fits "xab", "cab" and "bbb" but not the probe "abc".
        let f = o.test_cascade(&cascade(&[("ab", "")]));
        assert_eq!(f.checked, 4);
        assert_eq!(
            f.wrong,
            vec![
                Mismatch {
                    input: "cab".into(),
                    expected: "".into(),
                    got: Some("c".into())
                },
                Mismatch {
                    input: "abc".into(),
                    expected: "".into(),
                    got: Some("c".into())
                }
            ]
        );
        assert_eq!(o.tests_run(), 2);
    }

    #[test]
    fn candidates_are_untrusted() {
        let inst = instance();
        let mut o = Oracle::new(&inst, 10).unwrap();
        // A side too long, a letter outside the alphabet, too many rules: left out, said.
        let f = o.test_cascade(&cascade(&[
            ("abc", "c"),
            ("ab", "Q"),
            ("ab", "c"),
            ("c", ""),
            ("x", "a"),
        ]));
        assert_eq!(f.rule_problems.len(), 3, "{:?}", f.rule_problems);
        assert!(f.rule_problems[2].contains("past the limit of 3 rules"));
        // Growth: 20 × replace('a', 'aa') on a visible input is cut at the bound.
        let mut blowup = Instance {
            max_rules: 30,
            ..inst.clone()
        };
        blowup.max_rule_len = 3;
        let mut o = Oracle::new(&blowup, 10).unwrap();
        let f = o.test_cascade(&cascade(&[("a", "aaa"); 25]));
        assert_eq!(f.passed, 1, "bbb has no a"); // "bbb" → "bbb"
        assert!(f.wrong.iter().all(|m| m.got.is_none()), "{f:?}");
    }

    #[test]
    fn the_gold_is_never_shown() {
        let mut inst = instance();
        inst.cascade = Some(cascade(&[("ab", "SECRETc"), ("SECRETc", "")]));
        let mut o = Oracle::new(&inst, 3).unwrap();
        o.run_hidden(&["ab"]).unwrap();
        let debug = format!("{o:?}");
        assert!(!debug.contains("SECRET"), "{debug}");
        let task = serde_json::to_string(o.task()).unwrap();
        assert!(!task.contains("SECRET") && !task.contains("abab"), "{task}");
        let no_gold = Instance {
            cascade: None,
            ..instance()
        };
        assert!(matches!(
            Oracle::new(&no_gold, 3),
            Err(OracleError::NoGold(_))
        ));
    }

    #[test]
    fn the_probe_length_is_chosen_within_bounds() {
        let inst = instance();
        let longest = inst.inputs.iter().map(|s| s.chars().count()).max().unwrap();
        assert_eq!(Oracle::new(&inst, 1).unwrap().task().max_probe_len, 32);
        let mut o = Oracle::with_probe_len(&inst, 2, 100).unwrap();
        assert_eq!(o.task().max_probe_len, 100);
        assert_eq!(o.run_hidden(&["a".repeat(100)]).unwrap().len(), 1);
        assert!(matches!(
            o.run_hidden(&["a".repeat(101)]),
            Err(Refusal::TooLong { .. })
        ));
        // Never shorter than twice the longest visible input.
        let short = Oracle::with_probe_len(&inst, 1, 1).unwrap();
        assert_eq!(short.task().max_probe_len, 2 * longest);
        for bad in [0, MAX_PROBE_LEN + 1] {
            let e = Oracle::with_probe_len(&inst, 1, bad).unwrap_err();
            assert_eq!(e, OracleError::ProbeLen(bad));
            assert!(e.to_string().contains("out of range"), "{e}");
        }
    }

    #[test]
    fn probed_held_out_examples_are_excluded() {
        let inst = instance();
        let mut o = Oracle::new(&inst, 10).unwrap();
        o.run_hidden(&["abab", "bb"]).unwrap();
        let h = UnprobedHeldOut::of(&inst, o.probes());
        assert_eq!(h.indices, vec![1]);
        assert_eq!(h.excluded, 1);
        let gold = inst.cascade.as_ref().unwrap();
        let g = grade(&inst, gold, o.probes());
        assert_eq!(
            (g.pass, g.heldout_pass, g.heldout_unprobed),
            (true, Some(true), 1)
        );
        let g = grade(&inst, &Cascade::identity(), o.probes());
        assert_eq!((g.pass, g.heldout_pass), (false, Some(false)));
        o.run_hidden(&["xc"]).unwrap();
        let g = grade(&inst, gold, o.probes());
        assert_eq!((g.heldout_pass, g.heldout_excluded), (None, 2));
    }

    /// One grade whatever the mode (issue 37): rules over `max_rule_len` or past
    /// `max_rules` are left out of the grade as static scoring leaves them out, although
    /// the whole cascade would reproduce every example.
    #[test]
    fn invalid_rules_are_graded_as_scoring_grades_them() {
        use crate::score::{score_instance, ScoreOptions};
        // Gold ab→c, c→"" under max_rule_len 2: "ab"→"" is one rule of the right length.
        let inst = instance();
        let answers = [
            cascade(&[("ab", "c"), ("c", "")]),              // the gold
            cascade(&[("abc", "c"), ("ab", ""), ("c", "")]), // a side too long, left out
            cascade(&[("xab", "x"), ("cab", "")]),           // both too long: the identity
            cascade(&[("ab", "c"), ("a", "a"), ("b", "b"), ("c", "")]), // past max_rules
            cascade(&[("ab", "Q"), ("ab", "c"), ("c", "")]), // outside the alphabet: left out, passes
        ];
        for answer in &answers {
            let g = grade(&inst, answer, &[]);
            let s = score_instance(&inst, &[render_answer(answer)], &ScoreOptions::default());
            assert_eq!(g.pass, s.pass, "{answer:?}");
            assert_eq!(g.heldout_pass, s.heldout_pass, "{answer:?}");
            assert_eq!((g.recovered, g.behaviour), (s.recovered, s.behaviour));
            assert_eq!(g.cascade, s.cascade);
            assert_eq!(g.rules_left_out, answer.len() - s.valid_rules);
        }
        let g = grade(&inst, &answers[2], &[]);
        assert_eq!(
            (g.pass, g.heldout_pass, g.rules_left_out),
            (false, Some(false), 2)
        );
        assert_eq!(g.cascade, Cascade::identity());
        for whole in &answers[2..4] {
            assert!(
                (inst.inputs.iter().zip(&inst.outputs)).all(|(i, o)| &whole.apply(i) == o),
                "the whole cascade would pass"
            );
        }
        let g = grade(&inst, &answers[3], &[]);
        assert_eq!((g.pass, g.rules_left_out), (false, 1));
    }

    proptest! {
        /// Below the bound, the bounded apply is the cascade's apply (CPython's
        /// `str.replace`, checked in rule.rs); past it, it says so.
        #[test]
        fn bounded_apply_is_apply_or_none(
            rules in proptest::collection::vec(("[ab]{1,2}", "[ab]{0,3}"), 0..6),
            s in "[ab]{0,12}",
            bound in 0usize..64,
        ) {
            let rules: Vec<Rule> = rules.iter().map(|(a, b)| Rule::new(a.as_str(), b.as_str()).unwrap()).collect();
            let full = Cascade::new(rules.clone());
            let mut longest = s.len();
            let mut cur = s.clone();
            for r in &rules {
                cur = r.apply(&cur);
                longest = longest.max(cur.len());
            }
            let got = apply_bounded(&rules, &s, bound);
            if longest <= bound {
                prop_assert_eq!(got, Some(full.apply(&s)));
            } else {
                prop_assert_eq!(got, None);
            }
        }
    }
}
