//! Cross-validation on real sound changes: a deterministic share of each instance's words
//! is held out, the solver sees the rest, and its answer is graded on the held-out words
//! against doing nothing (the identity) and against its own fit of the training words.
//! This tells rote (a patchwork of the listed words) from sound laws (rules that carry
//! over to words the solver never saw).

use crate::{solve_all, Budget, Problem, ProblemError, Solver};
use pbebench::equiv::length_bound_of;
use pbebench::metrics::{char_distance, edit_sim_ratio};
use pbebench::{Cascade, Instance};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Which of `n` words are held out for a share `share` (0 < share < 1): word `k` is when
/// `⌊(k+1)·share⌋ > ⌊k·share⌋`, which spreads the held-out words evenly through the list
/// and depends on nothing else (no random draw), so every run holds out the same words.
pub fn held_out(n: usize, share: f64) -> Vec<bool> {
    (0..n)
        .map(|k| ((k + 1) as f64 * share).floor() > (k as f64 * share).floor())
        .collect()
}

/// One instance cross-validated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HoldoutRow {
    /// The instance.
    pub id: String,
    /// Its language: the id without its last `-k` (as `pbebench pairs` names instances).
    pub language: String,
    /// Words the solver saw.
    pub train: usize,
    /// Words held out.
    pub held: usize,
    /// The answer reproduces every training word.
    pub solved: bool,
    /// Rules of the answer (solved, else the best partial one, else none).
    pub rules: usize,
    /// Σ dist(input, output) over the training words (the identity's distance).
    pub train_identity_dist: usize,
    /// Σ dist(answer(input), output) over the training words.
    pub train_answer_dist: usize,
    /// Σ dist(input, output) over the held-out words.
    pub held_identity_dist: usize,
    /// Σ dist(answer(input), output) over the held-out words (an answer whose forms
    /// outgrow the bound counts the whole output as wrong).
    pub held_answer_dist: usize,
    /// Held-out words whose input already equals the output.
    pub held_identity_exact: usize,
    /// Held-out words the answer maps exactly to their output.
    pub held_answer_exact: usize,
    /// Held-out words the answer gets exactly and the identity does not (a paired win).
    pub held_won: usize,
    /// Held-out words the identity gets exactly and the answer does not (a paired loss).
    pub held_lost: usize,
}

/// Why a cross-validation could not run.
#[derive(Debug, thiserror::Error)]
pub enum HoldoutError {
    /// The share is not strictly between 0 and 1.
    #[error("the held-out share must be between 0 and 1 (exclusive), not {0}")]
    Share(f64),
    /// An instance's training part cannot be posed as a problem.
    #[error("instance '{id}': {error}")]
    Problem {
        /// The instance.
        id: String,
        /// Why.
        error: ProblemError,
    },
    /// The worker threads could not start.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
}

/// Holds out `share` of each instance's words ([`held_out`]), solves the rest with
/// `solver`, and grades each answer on both parts.
pub fn cross_validate(
    instances: &[Instance],
    solver: &dyn Solver,
    budget: &Budget,
    threads: usize,
    share: f64,
    on_done: impl Fn(usize) + Sync,
) -> Result<Vec<HoldoutRow>, HoldoutError> {
    if !(share > 0.0 && share < 1.0) {
        return Err(HoldoutError::Share(share));
    }
    let masks: Vec<Vec<bool>> = (instances.iter())
        .map(|inst| held_out(inst.inputs.len(), share))
        .collect();
    let problems = (instances.iter().zip(&masks))
        .map(|(inst, mask)| {
            let (inputs, outputs) = pick(inst, mask, false);
            Problem::new(
                inputs,
                outputs,
                inst.max_rules,
                inst.max_rule_len,
                &inst.alphabet,
            )
            .map_err(|error| HoldoutError::Problem {
                id: inst.id.clone(),
                error,
            })
        })
        .collect::<Result<Vec<Problem>, _>>()?;
    let outcomes = solve_all(solver, &problems, budget, threads, |k, _| on_done(k))?;
    Ok((instances.iter().zip(&masks).zip(&outcomes))
        .map(|((inst, mask), outcome)| {
            let answer = outcome.answer().cloned().unwrap_or_else(Cascade::identity);
            grade(inst, mask, &answer, outcome.is_solved())
        })
        .collect())
}

/// The inputs and outputs of `inst` whose mask is `held`.
fn pick(inst: &Instance, mask: &[bool], held: bool) -> (Vec<String>, Vec<String>) {
    (inst.inputs.iter().zip(&inst.outputs).zip(mask))
        .filter(|(_, &m)| m == held)
        .map(|((i, o), _)| (i.clone(), o.clone()))
        .unzip()
}

/// Grades `answer` on the training and held-out words of `inst`.
fn grade(inst: &Instance, mask: &[bool], answer: &Cascade, solved: bool) -> HoldoutRow {
    let longest = (inst.inputs.iter().chain(&inst.outputs))
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(0);
    let bound = length_bound_of(longest);
    let dists = |held: bool| {
        let (inputs, outputs) = pick(inst, mask, held);
        let mut identity = 0;
        let mut dist = 0;
        let (mut identity_exact, mut exact, mut won, mut lost) = (0, 0, 0, 0);
        for (i, o) in inputs.iter().zip(&outputs) {
            identity += char_distance(i, o);
            identity_exact += usize::from(i == o);
            let hit = match answer.apply_bounded(i, bound) {
                Ok(got) => {
                    dist += char_distance(&got, o);
                    &got == o
                }
                Err(_) => {
                    dist += o.chars().count().max(1);
                    false
                }
            };
            exact += usize::from(hit);
            won += usize::from(hit && i != o);
            lost += usize::from(!hit && i == o);
        }
        (
            inputs.len(),
            identity,
            dist,
            [identity_exact, exact, won, lost],
        )
    };
    let (train, train_identity_dist, train_answer_dist, _) = dists(false);
    let (held, held_identity_dist, held_answer_dist, exact) = dists(true);
    let [held_identity_exact, held_answer_exact, held_won, held_lost] = exact;
    let language = match inst.id.rsplit_once('-') {
        Some((lang, k)) if k.chars().all(|c| c.is_ascii_digit()) => lang.to_owned(),
        _ => inst.id.clone(),
    };
    HoldoutRow {
        id: inst.id.clone(),
        language,
        train,
        held,
        solved,
        rules: answer.len(),
        train_identity_dist,
        train_answer_dist,
        held_identity_dist,
        held_answer_dist,
        held_identity_exact,
        held_answer_exact,
        held_won,
        held_lost,
    }
}

/// The cross-validation per language and overall, as a table: training Edit_Sim (the fit),
/// held-out Edit_Sim (the identity's is 0 by definition), and held-out exact matches of
/// the identity and of the answer. Distances are summed over a language's instances.
pub struct HoldoutSummary<'a>(pub &'a [HoldoutRow]);

impl fmt::Display for HoldoutSummary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut groups: BTreeMap<&str, Vec<&HoldoutRow>> = BTreeMap::new();
        for row in self.0 {
            groups.entry(&row.language).or_default().push(row);
        }
        writeln!(
            f,
            "| language | instances | words seen / held out | solved | Edit_Sim seen (fit) | Edit_Sim held out | exact held out: identity | exact held out: answer |"
        )?;
        writeln!(f, "|---|---|---|---|---|---|---|---|")?;
        let all: Vec<&HoldoutRow> = self.0.iter().collect();
        for (name, rows) in groups.iter().map(|(n, r)| (*n, r)).chain([("all", &all)]) {
            let sum = |g: fn(&HoldoutRow) -> usize| rows.iter().map(|r| g(r)).sum::<usize>();
            let held = sum(|r| r.held);
            let pct = |k: usize| 100.0 * k as f64 / held.max(1) as f64;
            writeln!(
                f,
                "| {name} | {} | {} / {held} | {} | {:.3} | {:.3} | {:.1}% | {:.1}% |",
                rows.len(),
                sum(|r| r.train),
                sum(|r| usize::from(r.solved)),
                edit_sim_ratio(sum(|r| r.train_answer_dist), sum(|r| r.train_identity_dist)),
                edit_sim_ratio(sum(|r| r.held_answer_dist), sum(|r| r.held_identity_dist)),
                pct(sum(|r| r.held_identity_exact)),
                pct(sum(|r| r.held_answer_exact)),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::default_solver;
    use std::time::Duration;

    #[test]
    fn the_held_out_share_is_spread_evenly_and_fixed() {
        let mask = held_out(50, 0.2);
        assert_eq!(mask.iter().filter(|&&m| m).count(), 10);
        let at: Vec<usize> = (0..50).filter(|&k| mask[k]).collect();
        assert_eq!(at, [4, 9, 14, 19, 24, 29, 34, 39, 44, 49]);
        assert_eq!(held_out(50, 0.2), mask);
        assert_eq!(held_out(3, 0.5), [false, true, false]);
    }

    #[test]
    fn a_sound_law_carries_over_to_held_out_words_and_rote_does_not() {
        // a -> e everywhere: seen in 8 words, held out in 2 (positions 4 and 9).
        let words = ["ba", "ca", "da", "fa", "ga", "ha", "ja", "ka", "la", "ma"];
        let line = serde_json::json!({
            "id": "lang-0",
            "inputs": words,
            "outputs": words.iter().map(|w| w.replace('a', "e")).collect::<Vec<_>>(),
            "max_rules": 5,
            "max_rule_len": 3,
            "alphabet": "abcdefghjklm",
        });
        let inst = pbebench::dataset::parse_instance(&line.to_string(), 0).unwrap();
        let budget = Budget::time(Duration::from_secs(5));
        let rows = cross_validate(
            std::slice::from_ref(&inst),
            default_solver().as_ref(),
            &budget,
            1,
            0.2,
            |_| {},
        )
        .unwrap();
        let row = &rows[0];
        assert_eq!((row.train, row.held, row.language.as_str()), (8, 2, "lang"));
        assert!(row.solved);
        assert_eq!((row.held_identity_exact, row.held_answer_exact), (0, 2));
        assert_eq!((row.held_won, row.held_lost), (2, 0));
        assert_eq!(row.held_answer_dist, 0);
        // Rote: one rule per seen word, e.g. ba -> be, learns nothing of ga and ma.
        let rote: Cascade = ["ba", "ca", "da", "fa"]
            .iter()
            .map(|w| pbebench::Rule::new(*w, w.replace('a', "e")).unwrap())
            .collect();
        let graded = grade(&inst, &held_out(10, 0.2), &rote, false);
        assert_eq!(graded.held_answer_exact, 0);
        assert_eq!(graded.held_answer_dist, graded.held_identity_dist);
        let table = HoldoutSummary(&rows).to_string();
        assert!(
            table.contains("| lang | 1 | 8 / 2 | 1 | 1.000 | 1.000 | 0.0% | 100.0% |"),
            "{table}"
        );
        assert!(matches!(
            cross_validate(&[inst], default_solver().as_ref(), &budget, 1, 1.0, |_| {}),
            Err(HoldoutError::Share(share)) if share == 1.0
        ));
    }
}
