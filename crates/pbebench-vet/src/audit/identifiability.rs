//! Identifiability (`docs/vetting.md#identifiability`, issue 19.4): do the visible examples pin the
//! behaviour down? A panel of attackers ([`crate::attack`]) answers each instance from its visible
//! examples; an instance is **ambiguous** when an answer fits every visible example but is
//! not equivalent to the gold over the instance's input space, and the witness (gold,
//! answer, shortest counterexample, the two outputs) is kept.

use super::AuditProgress;
use crate::attack::{run_panel, Panel, PanelVerdict, Witness};
use pbebench::equiv::{Limits, Reference};
use pbebench::{Cascade, Instance, Relations};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Instances of a slice and how many of them are ambiguous.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Instances checked.
    pub instances: usize,
    /// Of them, ambiguous.
    pub ambiguous: usize,
}

impl Share {
    /// `ambiguous / instances` (0 for an empty slice).
    pub fn rate(&self) -> f64 {
        if self.instances == 0 {
            0.0
        } else {
            self.ambiguous as f64 / self.instances as f64
        }
    }

    fn add(&mut self, ambiguous: bool) {
        self.instances += 1;
        self.ambiguous += usize::from(ambiguous);
    }
}

/// An ambiguous instance and its witness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AmbiguousInstance {
    /// The instance.
    pub id: String,
    /// Its gold cascade.
    pub gold: Cascade,
    /// The answer that fits but differs, where they differ, and how.
    pub witness: Witness,
}

/// The identifiability check of a dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Identifiability {
    /// The panel of attackers (`--panel`).
    pub panel: String,
    /// The seed that orders the solvers' examples.
    pub seed: u64,
    /// Instances with a gold cascade, checked.
    pub checked: usize,
    /// Instances without a gold cascade (or whose input space cannot be counted): no
    /// verdict.
    pub skipped: usize,
    /// Instances with a passing answer that is not equivalent to the gold.
    pub ambiguous: usize,
    /// Instances a shortcut baseline recovers (its answer is equivalent to the gold).
    pub trivial: usize,
    /// Instances with a passing answer that could not be compared within the bounds.
    pub undecided: usize,
    /// Instances no attacker answered with a passing cascade (nothing to compare).
    pub unanswered: usize,
    /// By stated cascade length.
    pub by_length: BTreeMap<usize, Share>,
    /// By category label (the stored one, else the gold's exact category).
    pub by_category: BTreeMap<String, Share>,
    /// The first ambiguous instances, in dataset order.
    pub examples: Vec<AmbiguousInstance>,
}

/// The length groups the issue grades a snapshot by (2–4, 5–9, 10–15, 16–20): the
/// `full` preset's lengths in four bands of similar difficulty.
pub const LENGTH_GROUPS: [(usize, usize); 4] = [(2, 4), (5, 9), (10, 15), (16, 20)];

impl Identifiability {
    /// The shares of [`Identifiability::by_length`] summed over `LENGTH_GROUPS` (`2–4`,
    /// …), in order, each group with at least one instance; a length outside every group
    /// is a group of its own. With one attacker, a group's share is the attacker's
    /// Pass@1 − Recovered@1 there (undecided comparisons aside).
    pub fn by_length_group(&self) -> Vec<(String, Share)> {
        let mut groups: BTreeMap<(usize, usize), Share> = BTreeMap::new();
        for (len, share) in &self.by_length {
            let group = (LENGTH_GROUPS.iter())
                .find(|(lo, hi)| (lo..=hi).contains(&len))
                .copied()
                .unwrap_or((*len, *len));
            let g = groups.entry(group).or_default();
            g.instances += share.instances;
            g.ambiguous += share.ambiguous;
        }
        (groups.into_iter())
            .map(|((lo, hi), share)| {
                let name = if lo == hi {
                    lo.to_string()
                } else {
                    format!("{lo}–{hi}")
                };
                (name, share)
            })
            .collect()
    }

    /// `ambiguous / checked`.
    pub fn rate(&self) -> f64 {
        Share {
            instances: self.checked,
            ambiguous: self.ambiguous,
        }
        .rate()
    }
}

/// The panel's verdict on every instance of `dataset`, in order (`None`: no gold cascade,
/// or an input space that cannot be counted). Parallel over instances; the result does
/// not depend on the thread count.
pub fn probe_all(
    dataset: &[Instance],
    panel: &Panel,
    seed: u64,
    progress: &dyn AuditProgress,
) -> Vec<Option<PanelVerdict>> {
    let done = AtomicUsize::new(0);
    dataset
        .par_iter()
        .with_max_len(1)
        .map(|inst| {
            let verdict = panel_verdict(inst, panel, seed);
            progress.probed(done.fetch_add(1, Ordering::Relaxed) + 1, dataset.len());
            verdict
        })
        .collect()
}

fn panel_verdict(inst: &Instance, panel: &Panel, seed: u64) -> Option<PanelVerdict> {
    let gold = inst.cascade.as_ref()?;
    let space = pbebench::equiv::InputSpace::of(inst).ok()?;
    let mut reference = Reference::new(gold, &space, &Limits::default());
    Some(run_panel(inst, &mut reference, panel, seed))
}

/// The category label an instance is counted under: its stored one, else its gold's.
fn category_label(inst: &Instance) -> String {
    inst.category
        .or_else(|| {
            (inst.cascade.as_ref()).map(|g| Relations::of(g, inst.relations_mode).category())
        })
        .map_or_else(|| "?".to_owned(), |c| c.to_string())
}

/// Runs the identifiability check of `dataset` with `panel`, keeping `shown` examples.
pub fn identifiability(
    dataset: &[Instance],
    panel: &Panel,
    seed: u64,
    shown: usize,
    progress: &dyn AuditProgress,
) -> Identifiability {
    let verdicts = probe_all(dataset, panel, seed, progress);
    summarise(dataset, panel, seed, shown, &verdicts)
}

/// The identifiability check from the panel's verdicts ([`probe_all`]) on `dataset`.
pub(super) fn summarise(
    dataset: &[Instance],
    panel: &Panel,
    seed: u64,
    shown: usize,
    verdicts: &[Option<PanelVerdict>],
) -> Identifiability {
    let mut out = Identifiability {
        panel: panel.to_string(),
        seed,
        checked: 0,
        skipped: 0,
        ambiguous: 0,
        trivial: 0,
        undecided: 0,
        unanswered: 0,
        by_length: BTreeMap::new(),
        by_category: BTreeMap::new(),
        examples: Vec::new(),
    };
    for (inst, verdict) in dataset.iter().zip(verdicts) {
        let Some(verdict) = verdict else {
            out.skipped += 1;
            continue;
        };
        out.checked += 1;
        let ambiguous = matches!(verdict, PanelVerdict::Ambiguous(_));
        out.by_length
            .entry(inst.cascade_len)
            .or_default()
            .add(ambiguous);
        out.by_category
            .entry(category_label(inst))
            .or_default()
            .add(ambiguous);
        match verdict {
            PanelVerdict::Ambiguous(witness) => {
                out.ambiguous += 1;
                if out.examples.len() < shown {
                    out.examples.push(AmbiguousInstance {
                        id: inst.id.clone(),
                        gold: inst.cascade.clone().expect("checked instances have gold"),
                        witness: witness.clone(),
                    });
                }
            }
            PanelVerdict::Trivial { .. } => out.trivial += 1,
            PanelVerdict::Undecided { .. } => out.undecided += 1,
            PanelVerdict::Identified { passing: 0 } => out.unanswered += 1,
            PanelVerdict::Identified { .. } => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attack::line_27;
    use pbebench::{RelationMode, Rule};

    #[test]
    fn length_groups_sum_their_lengths() {
        let share = |instances, ambiguous| Share {
            instances,
            ambiguous,
        };
        let id = Identifiability {
            panel: "beam@1500:s7".into(),
            seed: 0,
            checked: 0,
            skipped: 0,
            ambiguous: 0,
            trivial: 0,
            undecided: 0,
            unanswered: 0,
            // 2 and 4 in 2–4; 12 and 15 in 10–15; 25 outside every group; no 5–9.
            by_length: [
                (2, share(10, 0)),
                (4, share(10, 1)),
                (12, share(8, 2)),
                (15, share(8, 1)),
                (25, share(4, 4)),
            ]
            .into(),
            by_category: BTreeMap::new(),
            examples: Vec::new(),
        };
        assert_eq!(
            id.by_length_group(),
            vec![
                ("2–4".to_owned(), share(20, 1)),
                ("10–15".to_owned(), share(16, 3)),
                ("25".to_owned(), share(4, 4)),
            ]
        );
    }

    #[test]
    fn a_fitting_answer_that_differs_is_found_with_its_witness() {
        let inst = line_27();
        let panel: Panel = "beam@300,shortcuts".parse().unwrap();
        let found = identifiability(std::slice::from_ref(&inst), &panel, 0, 5, &|_: &str| {});
        assert_eq!((found.checked, found.ambiguous), (1, 1), "{found:?}");
        let w = &found.examples[0].witness;
        let gold = inst.cascade.as_ref().unwrap();
        assert!(w.found.reproduces(&inst.inputs, &inst.outputs));
        // The witness is real: the two cascades differ on it, as stated.
        assert_eq!(
            w.gold_output.as_deref(),
            Some(gold.apply(&w.counterexample).as_str())
        );
        assert_eq!(
            w.found_output.as_deref(),
            Some(w.found.apply(&w.counterexample).as_str())
        );
        assert_ne!(w.gold_output, w.found_output);
        // And shortest: no shorter input of the space tells them apart (brute force).
        let letters: Vec<char> = inst.alphabet.chars().collect();
        let len = w.counterexample.chars().count();
        let mut words = vec![String::new()];
        for _ in 1..len {
            words = words
                .iter()
                .flat_map(|w| letters.iter().map(move |c| format!("{w}{c}")))
                .collect();
            assert!(words.iter().all(|s| gold.apply(s) == w.found.apply(s)));
        }
        assert_eq!(
            found.by_length[&2],
            Share {
                instances: 1,
                ambiguous: 1
            }
        );
    }

    #[test]
    fn a_pinned_instance_is_not_ambiguous_and_no_gold_is_skipped() {
        // One rule a→b shown on every input of the space ("ab", lengths 2–6): whatever
        // fits is equivalent.
        let gold = Cascade::new(vec![Rule::new("a", "b").unwrap()]);
        let mut inputs: Vec<String> = Vec::new();
        let mut layer = vec![String::new()];
        for len in 1..=6 {
            layer = layer
                .iter()
                .flat_map(|w| ["a", "b"].map(|c| format!("{w}{c}")))
                .collect();
            if len >= 2 {
                inputs.extend(layer.iter().cloned());
            }
        }
        let inst = Instance {
            id: "pinned".into(),
            outputs: inputs.iter().map(|i| gold.apply(i)).collect(),
            inputs,
            cascade: Some(gold),
            cascade_len: 1,
            category: None,
            relations_mode: RelationMode::Exact,
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "ab".into(),
            heldout_inputs: vec![],
            heldout_outputs: vec![],
            interactions: vec![],
            symbols: Default::default(),
        };
        let mut real = inst.clone();
        real.id = "real".into();
        real.cascade = None;
        let panel: Panel = "beam@200,shortcuts".parse().unwrap();
        let found = identifiability(&[inst, real], &panel, 0, 5, &|_: &str| {});
        assert_eq!(found.checked, 1);
        assert_eq!(found.skipped, 1);
        assert_eq!(found.ambiguous, 0);
        // single-rule answers a→b: a trivial solver recovers a one-rule gold.
        assert_eq!(found.trivial, 1);
        assert_eq!(found.by_category["0000"].instances, 1);
    }
}
