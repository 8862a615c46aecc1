//! Duplicates: identical instances (the same examples, in any order), instances equal up
//! to renaming the alphabet, repeated examples inside an instance, held-out examples that
//! repeat a visible one, and contradictory examples.

use super::Findings;
use pbebench::Instance;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Groups of instances that are the same problem.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Groups {
    /// Groups with more than one instance.
    pub groups: usize,
    /// Instances beyond the first of each group (what deduplication would remove).
    pub extra: usize,
    /// The first few groups, as lists of ids.
    pub examples: Vec<Vec<String>>,
}

/// The duplicate checks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Duplicates {
    /// Instances with the same visible examples (as a set of input/output pairs).
    pub identical: Groups,
    /// Instances that become identical after renaming letters (and are not identical).
    pub renamed: Groups,
    /// Instances showing the same example twice.
    pub repeated_examples: Findings,
    /// Instances with a held-out example equal to a visible one.
    pub heldout_repeats_visible: Findings,
    /// Instances with two examples that map the same input to different outputs.
    pub contradictory: Findings,
}

/// The visible examples relabelled by first occurrence: the k-th distinct letter met
/// (reading inputs, then outputs, in order) becomes letter k. Two instances have the same
/// key exactly when one is the other with the alphabet renamed (for the same example
/// order).
pub fn canonical_form(inst: &Instance) -> String {
    let mut names: HashMap<char, char> = HashMap::new();
    let mut out = String::new();
    let mut relabel = |s: &str, out: &mut String| {
        for c in s.chars() {
            let next = names.len() as u32;
            let name = *names
                .entry(c)
                .or_insert_with(|| char::from_u32(0xE000 + next).unwrap_or('\u{FFFD}'));
            out.push(name);
        }
    };
    for s in &inst.inputs {
        relabel(s, &mut out);
        out.push('\u{1}');
    }
    out.push('\u{2}');
    for s in &inst.outputs {
        relabel(s, &mut out);
        out.push('\u{1}');
    }
    out
}

/// The visible examples as a sorted list of pairs: equal for the same examples in any order.
fn example_set(inst: &Instance) -> Vec<(&str, &str)> {
    let mut pairs: Vec<(&str, &str)> = inst
        .inputs
        .iter()
        .map(String::as_str)
        .zip(inst.outputs.iter().map(String::as_str))
        .collect();
    pairs.sort_unstable();
    pairs
}

fn group<K: Ord>(
    dataset: &[Instance],
    keys: Vec<K>,
    skip: impl Fn(&[usize]) -> bool,
    shown: usize,
) -> (Groups, Vec<Vec<usize>>) {
    let mut by_key: BTreeMap<K, Vec<usize>> = BTreeMap::new();
    for (k, key) in keys.into_iter().enumerate() {
        by_key.entry(key).or_default().push(k);
    }
    let mut found: Vec<Vec<usize>> = by_key
        .into_values()
        .filter(|g| g.len() > 1 && !skip(g))
        .collect();
    found.sort();
    let groups = Groups {
        groups: found.len(),
        extra: found.iter().map(|g| g.len() - 1).sum(),
        examples: found
            .iter()
            .take(shown)
            .map(|g| g.iter().map(|&k| dataset[k].id.clone()).collect())
            .collect(),
    };
    (groups, found)
}

/// The duplicate checks, and for each instance beyond the first of a group, which
/// instance it repeats and how (`None` for the others), for the per-instance flags.
pub(super) fn run(dataset: &[Instance], shown: usize) -> (Duplicates, Vec<Option<String>>) {
    let sets: Vec<Vec<(&str, &str)>> = dataset.iter().map(example_set).collect();
    let (identical, identical_groups) = group(dataset, sets.clone(), |_| false, shown);
    let canon: Vec<String> = dataset.iter().map(canonical_form).collect();
    // A renamed group counts only if its members are not all one identical problem.
    let (renamed, renamed_groups) = group(
        dataset,
        canon,
        |g| g.iter().all(|&k| sets[k] == sets[g[0]]),
        shown,
    );
    let mut repeats: Vec<Option<String>> = vec![None; dataset.len()];
    for (groups, how) in [
        (&identical_groups, "the same visible examples"),
        (
            &renamed_groups,
            "the same examples up to renaming the alphabet",
        ),
    ] {
        for g in groups {
            for &k in &g[1..] {
                repeats[k].get_or_insert_with(|| format!("repeats '{}' ({how})", dataset[g[0]].id));
            }
        }
    }
    let mut repeated_examples = Findings::default();
    let mut heldout_repeats_visible = Findings::default();
    let mut contradictory = Findings::default();
    for inst in dataset {
        let mut seen: HashMap<&str, &str> = HashMap::new();
        let mut repeats = 0;
        let mut clash = None;
        for (i, o) in inst.inputs.iter().zip(&inst.outputs) {
            match seen.get(i.as_str()) {
                Some(prev) if *prev == o => repeats += 1,
                Some(prev) => clash = Some(format!("{i:?} maps to {prev:?} and to {o:?}")),
                None => {
                    seen.insert(i, o);
                }
            }
        }
        if repeats > 0 {
            repeated_examples.push(&inst.id, format!("{repeats} example(s) shown twice"), shown);
        }
        if let Some(c) = clash {
            contradictory.push(&inst.id, c, shown);
        }
        let visible: HashSet<&str> = inst.inputs.iter().map(String::as_str).collect();
        let leaked: Vec<&str> = inst
            .heldout_inputs
            .iter()
            .map(String::as_str)
            .filter(|i| visible.contains(i))
            .collect();
        if !leaked.is_empty() {
            heldout_repeats_visible.push(
                &inst.id,
                format!("held-out input(s) {leaked:?} are also visible"),
                shown,
            );
        }
    }
    let duplicates = Duplicates {
        identical,
        renamed,
        repeated_examples,
        heldout_repeats_visible,
        contradictory,
    };
    (duplicates, repeats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::RelationMode;

    fn inst(id: &str, inputs: &[&str], outputs: &[&str]) -> Instance {
        Instance {
            id: id.into(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            cascade: None,
            cascade_len: 0,
            category: None,
            relations_mode: RelationMode::Exact,
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "abcxyz".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    #[test]
    fn canonical_form_ignores_names_only() {
        let a = inst("a", &["ab", "ba"], &["cb", "bc"]);
        let b = inst("b", &["xy", "yx"], &["zy", "yz"]);
        let c = inst("c", &["xy", "yx"], &["zy", "yx"]);
        assert_eq!(canonical_form(&a), canonical_form(&b));
        assert_ne!(canonical_form(&a), canonical_form(&c));
        // Boundaries matter: ["ab"] vs ["a", "b"].
        let d = inst("d", &["ab"], &["ab"]);
        let e = inst("e", &["a", "b"], &["a", "b"]);
        assert_ne!(canonical_form(&d), canonical_form(&e));
    }

    #[test]
    fn finds_each_kind_of_duplicate() {
        let mut data = vec![
            inst("a", &["ab", "ba"], &["cb", "bc"]),
            inst("b", &["ba", "ab"], &["bc", "cb"]), // a, reordered: identical
            inst("c", &["xy", "yx"], &["zy", "yz"]), // a, renamed
            inst("d", &["ab", "ab", "c"], &["x", "x", "c"]), // repeated example
            inst("e", &["ab", "ab"], &["x", "y"]),   // contradiction
        ];
        data[3].heldout_inputs = vec!["c".into()];
        data[3].heldout_outputs = vec!["c".into()];
        let (d, repeats) = run(&data, 5);
        assert_eq!(
            repeats,
            [
                None,
                Some("repeats 'a' (the same visible examples)".to_owned()),
                Some("repeats 'a' (the same examples up to renaming the alphabet)".to_owned()),
                None,
                None,
            ]
        );
        assert_eq!(d.identical.groups, 1);
        assert_eq!(
            d.identical.examples,
            vec![vec!["a".to_owned(), "b".to_owned()]]
        );
        assert_eq!(d.renamed.groups, 1);
        assert_eq!(
            d.renamed.examples,
            vec![vec!["a".to_owned(), "c".to_owned()]]
        );
        assert_eq!(d.repeated_examples.count, 1);
        assert_eq!(d.repeated_examples.examples[0].id, "d");
        assert_eq!(d.heldout_repeats_visible.count, 1);
        assert_eq!(d.contradictory.count, 1);
        assert_eq!(d.contradictory.examples[0].id, "e");
    }
}
