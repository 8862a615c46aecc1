//! Does the stated cascade length measure difficulty? Gold rules that can be dropped, and
//! cascades much shorter than the stated length found by the built-in solver (or by any
//! solver of the panel).

use super::{AuditOptions, AuditProgress, Findings};
use crate::results::ResultSet;
use crate::shortcuts::{redundant_gold_rules, shortest_found};
use pbebench::{Cascade, Instance};
use pbebench_solve::{solver_by_name, Budget};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stated-length checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatedLength {
    /// Instances with a gold cascade.
    pub checked: usize,
    /// Instances with a gold rule whose removal changes no example, visible or held-out.
    pub redundant_rules: Findings,
    /// Instances with a gold rule the visible examples do not need (removing it keeps
    /// every visible output): no solver can be expected to find it, so held-out pass
    /// suffers.
    pub unpinned_rules: Findings,
    /// The solver used (`None`: the search was skipped), with its budget.
    pub solver: Option<String>,
    /// Where shorter cascades came from: the solver and/or the panel's passing answers.
    pub sources: Vec<String>,
    /// Instances some source solved.
    pub solved: usize,
    /// Instances whose shortest found cascade has at most `ratio × stated` rules.
    pub much_shorter: Findings,
    /// The ratio used.
    pub ratio: f64,
    /// Stated length → shortest found length → instances.
    pub shortest_by_stated: BTreeMap<usize, BTreeMap<usize, usize>>,
}

pub(super) fn run(
    dataset: &[Instance],
    panel: &[ResultSet],
    options: &AuditOptions,
    progress: &dyn AuditProgress,
) -> StatedLength {
    let shown = options.shown;
    let gold: Vec<&Instance> = dataset.iter().filter(|i| i.cascade.is_some()).collect();
    let (redundant_rules, unpinned_rules) = gold_rules_unseen(&gold, shown);
    let mut sources = Vec::new();
    let from_panel = panel_cascades(panel, &mut sources);
    let solver = options
        .solver
        .as_ref()
        .and_then(|check| solver_by_name(&check.name).map(|s| (s, check)));
    let solver_text = solver.as_ref().map(|(s, check)| {
        format!(
            "{} ({} nodes, {:.1} s per solve; then capped at one rule fewer until a solve fails)",
            s.name(),
            check.max_nodes,
            check.time_limit.as_secs_f64()
        )
    });
    if let Some(t) = &solver_text {
        sources.insert(0, format!("solver {t}"));
    }
    let searched = AtomicUsize::new(0);
    let found: Vec<Option<(Cascade, String)>> = gold
        .par_iter()
        .map(|inst| {
            let by_solver = solver.as_ref().and_then(|(s, check)| {
                let budget = Budget {
                    time_limit: check.time_limit,
                    max_nodes: Some(check.max_nodes),
                };
                let found = shortest_found(inst, s.as_ref(), &budget);
                let done = searched.fetch_add(1, Ordering::Relaxed) + 1;
                progress.searched(done, gold.len());
                found.map(|c| (c, s.name().to_owned()))
            });
            let by_panel = from_panel
                .get(inst.id.as_str())
                .map(|(c, l)| (c.clone(), format!("'{l}'")));
            match (by_solver, by_panel) {
                (Some(a), Some(b)) => Some(if b.0.len() < a.0.len() { b } else { a }),
                (a, b) => a.or(b),
            }
        })
        .collect();
    let (solved, much_shorter, shortest_by_stated) = tally(&gold, &found, options);
    StatedLength {
        checked: gold.len(),
        redundant_rules,
        unpinned_rules,
        solver: solver_text,
        sources,
        solved,
        much_shorter,
        ratio: options.shorter_ratio,
        shortest_by_stated,
    }
}

/// The gold rules that change no example (redundant), and those that change only
/// held-out ones (unpinned by the visible examples).
fn gold_rules_unseen(gold: &[&Instance], shown: usize) -> (Findings, Findings) {
    let redundant: Vec<_> = gold.par_iter().map(|i| redundant_gold_rules(i)).collect();
    let mut redundant_rules = Findings::default();
    let mut unpinned_rules = Findings::default();
    for (inst, red) in gold.iter().zip(&redundant) {
        if !red.all.is_empty() {
            redundant_rules.push(
                &inst.id,
                format!("gold rule(s) {:?} change no example", red.all),
                shown,
            );
        }
        let only_heldout: Vec<usize> = red
            .visible
            .iter()
            .filter(|k| !red.all.contains(k))
            .copied()
            .collect();
        if !only_heldout.is_empty() {
            unpinned_rules.push(
                &inst.id,
                format!(
                    "gold rule(s) {only_heldout:?} change no visible example, only held-out ones"
                ),
                shown,
            );
        }
    }

    (redundant_rules, unpinned_rules)
}

/// The shortest passing answer of the panel for each instance, with the label of the set
/// it comes from; each set that has per-instance answers is named in `sources`.
fn panel_cascades<'a>(
    panel: &'a [ResultSet],
    sources: &mut Vec<String>,
) -> HashMap<&'a str, (Cascade, &'a str)> {
    // Passing answers of the panel are cascades too.
    let mut from_panel: HashMap<&str, (Cascade, &str)> = HashMap::new();
    for set in panel {
        let Some(list) = &set.instances else { continue };
        sources.push(format!("passing answers of '{}'", set.label));
        for s in list.iter().filter(|s| s.pass) {
            let better = from_panel
                .get(s.id.as_str())
                .is_none_or(|(c, _)| s.cascade.len() < c.len());
            if better {
                from_panel.insert(s.id.as_str(), (s.cascade.clone(), set.label.as_str()));
            }
        }
    }
    from_panel
}

/// Instances with a cascade found, found cascades by stated length, and those much
/// shorter than stated.
fn tally(
    gold: &[&Instance],
    found: &[Option<(Cascade, String)>],
    options: &AuditOptions,
) -> (usize, Findings, BTreeMap<usize, BTreeMap<usize, usize>>) {
    let shown = options.shown;
    let mut much_shorter = Findings::default();
    let mut shortest_by_stated: BTreeMap<usize, BTreeMap<usize, usize>> = BTreeMap::new();
    let mut solved = 0;
    for (inst, f) in gold.iter().zip(found) {
        let Some((cascade, by)) = f else { continue };
        solved += 1;
        *shortest_by_stated
            .entry(inst.cascade_len)
            .or_default()
            .entry(cascade.len())
            .or_default() += 1;
        if (cascade.len() as f64) <= options.shorter_ratio * inst.cascade_len as f64 {
            much_shorter.push(
                &inst.id,
                format!(
                    "stated length {}, {by} found {} rule(s): {}",
                    inst.cascade_len,
                    cascade.len(),
                    cascade.to_json()
                ),
                shown,
            );
        }
    }
    (solved, much_shorter, shortest_by_stated)
}
