//! Labels: where the paper's relation formula and the exact classifier disagree on a gold
//! cascade's category, and stored categories that do not match a recomputation.

use super::Findings;
use pbebench::{Category, CategoryComparison, Instance, RelationMode};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The label checks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Labels {
    /// Instances with a gold cascade.
    pub checked: usize,
    /// Instances whose category differs between `paper` and `exact` relations.
    pub paper_vs_exact: Findings,
    /// For each flag, how often only one classifier sets it: `"F: paper only"` etc.
    pub by_flag: BTreeMap<String, usize>,
    /// (paper category, exact category) → instances, for the categories that differ.
    pub pairs: BTreeMap<String, usize>,
    /// Instances whose stored category is not what their stated `relations_mode` gives.
    pub stored_mismatch: Findings,
    /// Instances without a stored category.
    pub unlabelled: usize,
}

/// Reads one relation flag of a category.
type Flag = fn(Category) -> bool;

const FLAGS: [(&str, Flag); 4] = [
    ("F", Category::feeding),
    ("B", Category::bleeding),
    ("CF", Category::counter_feeding),
    ("CB", Category::counter_bleeding),
];

/// The label checks, and what differs on each instance (`None`: nothing), in dataset
/// order, for the per-instance flags.
pub(super) fn run(dataset: &[Instance], shown: usize) -> (Labels, Vec<Option<String>>) {
    let mut per_instance: Vec<Vec<String>> = vec![Vec::new(); dataset.len()];
    let gold: Vec<(usize, &Instance)> = (dataset.iter().enumerate())
        .filter(|(_, i)| i.cascade.is_some())
        .collect();
    let cats: Vec<(Category, Category)> = gold
        .par_iter()
        .map(|(_, inst)| {
            CategoryComparison::categories(inst.cascade.as_ref().expect("filtered on gold"))
        })
        .collect();
    let mut labels = Labels {
        checked: gold.len(),
        ..Labels::default()
    };
    for (&(k, inst), &(paper, exact)) in gold.iter().zip(&cats) {
        if paper != exact {
            let mut which = Vec::new();
            for (name, flag) in FLAGS {
                match (flag(paper), flag(exact)) {
                    (true, false) => which.push(format!("{name}: paper only")),
                    (false, true) => which.push(format!("{name}: exact only")),
                    _ => {}
                }
            }
            for w in &which {
                *labels.by_flag.entry(w.clone()).or_default() += 1;
            }
            *labels
                .pairs
                .entry(format!("{paper} → {exact}"))
                .or_default() += 1;
            let detail = format!("paper {paper}, exact {exact} ({})", which.join(", "));
            per_instance[k].push(format!("category {detail}"));
            labels.paper_vs_exact.push(&inst.id, detail, shown);
        }
        match inst.category {
            None => labels.unlabelled += 1,
            Some(stored) => {
                let want = match inst.relations_mode {
                    RelationMode::Paper => paper,
                    RelationMode::Exact => exact,
                };
                if stored != want {
                    let detail = format!(
                        "stored {stored}, but {} relations give {want}",
                        inst.relations_mode
                    );
                    per_instance[k].push(format!("category {detail}"));
                    labels.stored_mismatch.push(&inst.id, detail, shown);
                }
            }
        }
    }
    let per_instance = per_instance
        .into_iter()
        .map(|d| (!d.is_empty()).then(|| d.join("; ")))
        .collect();
    (labels, per_instance)
}
