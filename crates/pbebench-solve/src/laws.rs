//! The real-data mode (`solve --real`): sound laws that generalise, not a fit of every word.
//!
//! On real word lists the fit-everything solvers patch the words no law explains one by
//! one, and the patches do worse than nothing on words they never saw. [`LawSolver`] grows
//! a cascade one rule at a time and takes a rule only when it is a law of the data:
//!
//! * **support**: it brings at least `k` of the words it sees closer to their reflex
//!   (Levenshtein distance), plus one word for every `n` letters its pattern and
//!   replacement hold beyond the two of a plain substitution (an MDL-style price: a long
//!   context or replacement describes a word or two, not a law, unless many words share it);
//! * **no harm**: it takes no word further from its reflex;
//! * **preference** among those: the rule bringing the most words closer, then the one
//!   saving the most edits, then the shortest pattern and replacement, then the first in a
//!   fixed order; it goes wherever in the cascade it does best (a chain shift such as
//!   `k > ʔ` before `t > k` needs the later law first).
//!
//! It stops when no candidate passes or the rule cap is reached, and leaves the words no
//! law reaches as they are (irregular forms). The prior (`k`, `n`) is chosen by the data:
//! an inner cross-validation over the words the solver is given (never the words a caller
//! holds out) grows the cascade under every pair of [`LawSolver::supports`] and
//! [`LawSolver::letters_per_word`] on all folds but one and counts the exact reflexes of
//! the fold left out; the pair with the most (then the least distance, then the most
//! demanding) is used on all the words. Doing nothing is one of the choices, so a language
//! whose laws do not carry over keeps its words unchanged.
//!
//! Everything is counted, nothing timed: the result depends on the examples alone, not on
//! the machine, its load or the thread count (the deadline only guards against runaway
//! inputs and is far off on word lists).

use crate::encode::{apply_into, find, Encoded, Sym, SymRule};
use crate::lev::{align, distance};
use crate::{Budget, Partial, Problem, SolveOutcome, SolveStats, Solver, Status};
use std::collections::BTreeSet;
use std::time::Instant;

/// The real-data solver: the rules that explain many words and hurt none (see the module
/// documentation), its prior (minimum support and price of length) chosen by an inner
/// cross-validation.
#[derive(Debug, Clone)]
pub struct LawSolver {
    /// The minimum supports the inner cross-validation chooses from.
    pub supports: Vec<usize>,
    /// The prices of length it chooses from: a rule needs one more supporting word per
    /// this many letters (pattern and replacement together) beyond the two of a plain
    /// substitution, so that a long context or replacement needs more words to be a law;
    /// 0 sets no price.
    pub letters_per_word: Vec<usize>,
    /// Folds of the inner cross-validation (at least 2).
    pub folds: usize,
    /// Letters of unchanged context a candidate rule may carry on each side of a change.
    pub max_context: usize,
}

impl Default for LawSolver {
    fn default() -> Self {
        LawSolver {
            supports: vec![1, 2, 3, 4, 6, 8],
            letters_per_word: vec![0, 1, 2, 3],
            folds: 4,
            max_context: 2,
        }
    }
}

impl LawSolver {
    /// A solver that always asks for `k` supporting words and sets no price of length (no
    /// inner cross-validation).
    pub fn with_support(k: usize) -> Self {
        LawSolver {
            supports: vec![k],
            letters_per_word: vec![0],
            ..LawSolver::default()
        }
    }
}

/// How a candidate rule ranks: (words helped, edits saved, −|pattern|, −|replacement|).
type Rank = (usize, u64, i64, i64);

/// What makes a rule a law: at least `support` words helped, plus one per
/// `letters_per_word` letters beyond two (none when 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Prior {
    support: usize,
    letters_per_word: usize,
}

impl Prior {
    /// The words `rule` must help to be taken.
    fn needs(self, rule: &SymRule) -> usize {
        let extra = match self.letters_per_word {
            0 => 0,
            n => (rule.a.len() + rule.b.len()).saturating_sub(2) / n,
        };
        self.support.max(1) + extra
    }
}

/// The word pairs a cascade is grown on, and the limits of its rules.
struct Words<'a> {
    enc: &'a Encoded,
    inputs: Vec<&'a Sym>,
    targets: Vec<&'a Sym>,
}

impl Solver for LawSolver {
    fn name(&self) -> &'static str {
        "laws"
    }

    fn search(&self, problem: &Problem, _budget: &Budget, deadline: Instant) -> SolveOutcome {
        let enc = Encoded::new(problem);
        let mut stats = SolveStats::default();
        let all: Vec<usize> = (0..enc.inputs.len()).collect();
        let prior = self.chosen_prior(&enc, &all, deadline, &mut stats);
        let rules = match prior {
            Some(prior) => self.grow(&words(&enc, &all), prior, deadline, &mut stats),
            None => Vec::new(),
        };
        let cascade = enc.cascade(&rules);
        let fits = (enc.inputs.iter().zip(&enc.targets)).all(|(i, t)| &run(&rules, i) == t);
        let (status, cascade, partial) = if fits {
            (Status::Solved, Some(cascade), None)
        } else {
            let partial = (!rules.is_empty()).then_some(Partial {
                cascade,
                edit_sim: 0.0,
            });
            let status = if stats.hit_limit {
                Status::LimitReached
            } else {
                Status::Exhausted
            };
            (status, None, partial)
        };
        SolveOutcome {
            status,
            cascade,
            partial,
            stats,
        }
    }
}

fn words<'a>(enc: &'a Encoded, which: &[usize]) -> Words<'a> {
    Words {
        enc,
        inputs: which.iter().map(|&w| &enc.inputs[w]).collect(),
        targets: which.iter().map(|&w| &enc.targets[w]).collect(),
    }
}

/// `rules` applied to `s` in order.
fn run(rules: &[SymRule], s: &[u8]) -> Sym {
    let mut cur = s.to_vec();
    let mut out = Vec::new();
    for r in rules {
        if apply_into(&cur, &r.a, &r.b, &mut out) {
            std::mem::swap(&mut cur, &mut out);
        }
    }
    cur
}

impl LawSolver {
    /// The prior to use on the words `which`: of every pair of [`LawSolver::supports`] and
    /// [`LawSolver::letters_per_word`], the one whose cascades, grown on all folds but one,
    /// reproduce the most words of the fold left out (then the least distance, then the
    /// most demanding prior); `None` when doing nothing does as well.
    fn chosen_prior(
        &self,
        enc: &Encoded,
        which: &[usize],
        deadline: Instant,
        stats: &mut SolveStats,
    ) -> Option<Prior> {
        let mut priors: Vec<Prior> = (self.supports.iter())
            .flat_map(|&support| {
                (self.letters_per_word.iter()).map(move |&letters_per_word| Prior {
                    support: support.max(1),
                    letters_per_word,
                })
            })
            .collect();
        // The most demanding first: a tie keeps it (the fewest rules).
        priors.sort_by_key(|p| {
            let price = 100usize.checked_div(p.letters_per_word).unwrap_or(0);
            std::cmp::Reverse((p.support, price))
        });
        priors.dedup();
        let folds = self.folds.max(2);
        if priors.len() == 1 || which.len() < 2 * folds {
            return priors.last().copied();
        }
        // (exact reflexes of the folds left out, −their distance).
        let score = |rules_of: &mut dyn FnMut(&Words) -> Vec<SymRule>| {
            let (mut exact, mut dist) = (0usize, 0u64);
            for f in 0..folds {
                let (train, test): (Vec<usize>, Vec<usize>) =
                    which.iter().partition(|&&w| w % folds != f);
                let rules = rules_of(&words(enc, &train));
                for &w in &test {
                    let got = run(&rules, &enc.inputs[w]);
                    exact += usize::from(got == enc.targets[w]);
                    dist += u64::from(distance(&got, &enc.targets[w]));
                }
            }
            (exact, std::cmp::Reverse(dist))
        };
        let mut best = (score(&mut |_| Vec::new()), None);
        for prior in priors {
            let s = score(&mut |w| self.grow(w, prior, deadline, stats));
            if s > best.0 {
                best = (s, Some(prior));
            }
        }
        best.1
    }

    /// The cascade grown on `words` under `prior` (module documentation): each
    /// step inserts the best candidate rule at the best place in the cascade (a rule may
    /// have to come before an earlier one, as `k > ʔ` before `t > k`).
    fn grow(
        &self,
        words: &Words,
        prior: Prior,
        deadline: Instant,
        stats: &mut SolveStats,
    ) -> Vec<SymRule> {
        let mut rules: Vec<SymRule> = Vec::new();
        let mut scratch = Vec::new();
        while rules.len() < words.enc.max_rules {
            if Instant::now() >= deadline {
                stats.hit_limit = true;
                break;
            }
            stats.nodes_expanded += 1;
            // states[p][w]: word w after the first p rules.
            let mut states: Vec<Vec<Sym>> = vec![words.inputs.iter().map(|s| s.to_vec()).collect()];
            for rule in &rules {
                let next = (states.last().expect("one state at least").iter())
                    .map(|s| run(std::slice::from_ref(rule), s))
                    .collect();
                states.push(next);
            }
            let current = states.last().expect("one state at least");
            let dist: Vec<u32> = (current.iter().zip(&words.targets))
                .map(|(s, t)| distance(s, t))
                .collect();
            // (words helped, edits saved, −|a|, −|b|); on ties the first candidate in the
            // set's order, at the latest place.
            let mut best: Option<(Rank, SymRule, usize)> = None;
            for rule in self.candidates(words, current, &dist) {
                for at in (0..=rules.len()).rev() {
                    stats.candidates_scored += 1;
                    let (mut helped, mut saved) = (0usize, 0u64);
                    let mut hurts = false;
                    for (w, s) in states[at].iter().enumerate() {
                        if find(s, &rule.a).is_none() {
                            continue;
                        }
                        apply_into(s, &rule.a, &rule.b, &mut scratch);
                        let d = distance(&run(&rules[at..], &scratch), words.targets[w]);
                        if d > dist[w] {
                            hurts = true;
                            break;
                        }
                        if d < dist[w] {
                            helped += 1;
                            saved += u64::from(dist[w] - d);
                        }
                    }
                    if hurts || helped < prior.needs(&rule) {
                        continue;
                    }
                    let key = (
                        helped,
                        saved,
                        -(rule.a.len() as i64),
                        -(rule.b.len() as i64),
                    );
                    if best.as_ref().is_none_or(|(b, _, _)| key > *b) {
                        best = Some((key, rule.clone(), at));
                    }
                }
            }
            let Some((_, rule, at)) = best else { break };
            rules.insert(at, rule);
        }
        rules
    }

    /// Candidate rules from the words not yet reproduced: each run of edits of an optimal
    /// alignment of the current form with its reflex (both tie-breaks), with up to
    /// [`LawSolver::max_context`] unchanged letters on either side, within the side-length
    /// cap and the alphabet; in a fixed order.
    fn candidates(&self, words: &Words, current: &[Sym], dist: &[u32]) -> BTreeSet<SymRule> {
        let enc = words.enc;
        let mut out = BTreeSet::new();
        for (w, s) in current.iter().enumerate() {
            if dist[w] == 0 {
                continue;
            }
            for prefer_subst in [true, false] {
                let steps = align(s, words.targets[w], prefer_subst);
                let mut k = 0;
                while k < steps.len() {
                    if steps[k].matched {
                        k += 1;
                        continue;
                    }
                    let start = steps[k].i;
                    let (mut end, mut written) = (start, Vec::new());
                    while k < steps.len() && !steps[k].matched {
                        end += usize::from(steps[k].consumes);
                        written.extend(steps[k].writes);
                        k += 1;
                    }
                    for l in 0..=self.max_context.min(start) {
                        for r in 0..=self.max_context.min(s.len() - end) {
                            let a = &s[start - l..end + r];
                            let mut b = s[start - l..start].to_vec();
                            b.extend_from_slice(&written);
                            b.extend_from_slice(&s[end..end + r]);
                            if a.is_empty()
                                || a.len() > enc.max_len
                                || b.len() > enc.max_len
                                || !enc.all_allowed(a)
                                || !enc.all_allowed(&b)
                            {
                                continue;
                            }
                            out.insert(SymRule { a: a.to_vec(), b });
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "laws_tests.rs"]
mod tests;
