//! Dataset statistics, in one place: what `pbebench inspect` prints and what the audit's
//! label checks compare. [`DatasetStats`] validates and counts instances as they stream by
//! (its `Display` is `inspect`'s text, its JSON `inspect --format json`);
//! [`CategoryComparison::categories`] gives a gold cascade's category under both
//! classifiers.

use crate::dataset::{DatasetError, DatasetReader};
use crate::generate::kl_from_uniform;
use crate::instance::Instance;
use crate::relations::{Category, RelationMode, Relations};
use crate::rule::Cascade;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::Path;

/// What a dataset holds, and its invalid lines.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DatasetStats {
    /// The file, as given.
    pub file: String,
    /// Valid instances.
    pub instances: usize,
    /// Lines that are no valid instance, with the reason.
    pub invalid: Vec<InvalidLine>,
    /// Valid instances by gold cascade length.
    pub by_cascade_length: BTreeMap<usize, usize>,
    /// Valid instances by category (`F B CF CB` bits), where they have one.
    pub by_category: BTreeMap<String, usize>,
    /// Valid instances by number of visible examples.
    pub examples_per_instance: BTreeMap<usize, usize>,
    /// Visible inputs by length in characters.
    pub input_length: BTreeMap<usize, usize>,
    /// KL divergence of the categories from uniform (smoothed, as the generator's).
    pub kl_from_uniform: f64,
    /// Mean number of visible examples a gold rule changes.
    pub mean_examples_changed_per_rule: f64,
    /// Gold rules by the length of their pattern in characters.
    pub pattern_length: BTreeMap<usize, usize>,
    /// The share of gold rules whose pattern is a single letter (0 without gold rules).
    pub one_letter_patterns: f64,
    /// Instances with held-out examples.
    pub with_heldout: usize,
    /// Categories under the paper's and the exact classifier, when they were compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relations_compared: Option<CategoryComparison>,
    #[serde(skip)]
    tally: Tally,
}

/// What [`DatasetStats`] counts beside its figures while instances are added.
#[derive(Debug, Clone, Default, PartialEq)]
struct Tally {
    ids: HashSet<String>,
    categories: [u64; 16],
    rules: usize,
    changed: usize,
}

/// A line of a dataset that is no valid instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidLine {
    /// 1-based line.
    pub line: usize,
    /// Why it is not valid.
    pub reason: String,
}

/// How often the paper's formula and the exact classifier give a gold cascade different
/// categories.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CategoryComparison {
    /// Instances with a gold cascade compared.
    pub compared: usize,
    /// Those whose two categories differ.
    pub differ: usize,
    /// The first few, as `id: paper P, exact E`.
    pub examples: Vec<String>,
}

/// Instances listed in [`CategoryComparison::examples`].
const COMPARED_SHOWN: usize = 5;

impl CategoryComparison {
    /// The category of `cascade` under the paper's formula and under the exact classifier.
    pub fn categories(cascade: &Cascade) -> (Category, Category) {
        (
            Relations::of(cascade, RelationMode::Paper).category(),
            Relations::of(cascade, RelationMode::Exact).category(),
        )
    }

    fn add(&mut self, id: &str, cascade: &Cascade) {
        let (paper, exact) = Self::categories(cascade);
        self.compared += 1;
        if paper != exact {
            self.differ += 1;
            if self.examples.len() < COMPARED_SHOWN {
                self.examples
                    .push(format!("{id}: paper {paper}, exact {exact}"));
            }
        }
    }
}

impl DatasetStats {
    /// Empty statistics of `file`; `compare_relations` also compares the classifiers.
    pub fn new(file: &str, compare_relations: bool) -> Self {
        DatasetStats {
            file: file.to_owned(),
            relations_compared: compare_relations.then(CategoryComparison::default),
            ..DatasetStats::default()
        }
    }

    /// Reads and counts the dataset at `path` (named `file`), line by line: a line that is
    /// no instance is listed, not fatal. Fails only when the file cannot be read.
    pub fn of_file(path: &Path, file: &str, compare_relations: bool) -> Result<Self, DatasetError> {
        let mut stats = DatasetStats::new(file, compare_relations);
        let mut reader = DatasetReader::open(path)?;
        while let Some(item) = reader.next() {
            match item {
                Ok(instance) => stats.add(reader.line(), &instance),
                Err(DatasetError::Line { line, message, .. }) => stats.add_invalid(line, message),
                Err(e) => return Err(e),
            }
        }
        Ok(stats.finish())
    }

    /// Lists `line` as invalid.
    pub fn add_invalid(&mut self, line: usize, reason: String) {
        self.invalid.push(InvalidLine { line, reason });
    }

    /// Adds the instance read from `line`: counted when valid, else listed with every
    /// problem ([`Instance::problems`], a repeated id, a stored category its cascade does
    /// not have).
    pub fn add(&mut self, line: usize, inst: &Instance) {
        let mut problems = inst.problems();
        if !self.tally.ids.insert(inst.id.clone()) {
            problems.push(format!("duplicate id '{}'", inst.id));
        }
        if let Some(computed) = stored_category_mismatch(inst) {
            problems.push(format!(
                "category is {} but the cascade's {} relations give {computed}",
                inst.category.expect("a mismatch has a stored category"),
                inst.relations_mode
            ));
        }
        if !problems.is_empty() {
            self.add_invalid(line, problems.join("; "));
            return;
        }
        self.instances += 1;
        *self.by_cascade_length.entry(inst.cascade_len).or_default() += 1;
        *self
            .examples_per_instance
            .entry(inst.inputs.len())
            .or_default() += 1;
        for input in &inst.inputs {
            *self.input_length.entry(input.chars().count()).or_default() += 1;
        }
        if let Some(c) = inst.category {
            *self.by_category.entry(c.to_string()).or_default() += 1;
            self.tally.categories[c.index()] += 1;
        }
        if !inst.heldout_inputs.is_empty() {
            self.with_heldout += 1;
        }
        for rule in inst.cascade.iter().flat_map(|c| c.rules()) {
            *self
                .pattern_length
                .entry(rule.pattern().chars().count())
                .or_default() += 1;
        }
        let per_rule = inst.examples_changed_per_rule();
        self.tally.rules += per_rule.len();
        self.tally.changed += per_rule.iter().sum::<usize>();
        if let (Some(cmp), Some(cascade)) = (self.relations_compared.as_mut(), &inst.cascade) {
            cmp.add(&inst.id, cascade);
        }
    }

    /// The figures computed over everything added.
    pub fn finish(mut self) -> Self {
        self.kl_from_uniform = kl_from_uniform(&self.tally.categories);
        self.mean_examples_changed_per_rule = if self.tally.rules == 0 {
            0.0
        } else {
            self.tally.changed as f64 / self.tally.rules as f64
        };
        let rules: usize = self.pattern_length.values().sum();
        self.one_letter_patterns = match rules {
            0 => 0.0,
            n => self.pattern_length.get(&1).copied().unwrap_or(0) as f64 / n as f64,
        };
        self
    }

    /// A dataset: some valid instance, and no invalid line.
    pub fn is_clean(&self) -> bool {
        self.invalid.is_empty() && self.instances > 0
    }
}

/// The category the cascade of `inst` has under the instance's own relation mode, when
/// that is not its stored category.
pub(crate) fn stored_category_mismatch(inst: &Instance) -> Option<Category> {
    let (cascade, stored) = (inst.cascade.as_ref()?, inst.category?);
    let computed = Relations::of(cascade, inst.relations_mode).category();
    (computed != stored).then_some(computed)
}

/// `inspect`'s text.
impl fmt::Display for DatasetStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} valid instances, {} invalid lines",
            self.file,
            self.instances,
            self.invalid.len()
        )?;
        let join = |m: &BTreeMap<usize, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if self.instances == 0 {
            writeln!(f, "  no valid instance: nothing to summarise")?;
            return self.fmt_invalid(f);
        }
        writeln!(f, "  by cascade length: {}", join(&self.by_cascade_length))?;
        writeln!(
            f,
            "  examples per instance: {}",
            join(&self.examples_per_instance)
        )?;
        writeln!(f, "  input length (chars): {}", join(&self.input_length))?;
        writeln!(f, "  by category (F B CF CB):")?;
        for c in Category::ALL {
            let n = self.by_category.get(&c.to_string()).copied().unwrap_or(0);
            writeln!(f, "    {c} {n:>6}  {}", c.description())?;
        }
        writeln!(
            f,
            "  KL divergence of categories from uniform: {:.4}",
            self.kl_from_uniform
        )?;
        writeln!(
            f,
            "  mean examples changed per rule: {:.3}",
            self.mean_examples_changed_per_rule
        )?;
        if !self.pattern_length.is_empty() {
            writeln!(
                f,
                "  rule pattern length (chars): {}; 1-letter patterns: {:.1}%",
                join(&self.pattern_length),
                100.0 * self.one_letter_patterns
            )?;
        }
        writeln!(
            f,
            "  instances with held-out examples: {}",
            self.with_heldout
        )?;
        if let Some(cmp) = &self.relations_compared {
            writeln!(
                f,
                "  categories differing between paper and exact relations: {} of {}",
                cmp.differ, cmp.compared
            )?;
            for e in &cmp.examples {
                writeln!(f, "    {e}")?;
            }
        }
        self.fmt_invalid(f)
    }
}

impl DatasetStats {
    fn fmt_invalid(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for inv in &self.invalid {
            writeln!(f, "  line {}: {}", inv.line, inv.reason)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Rule;

    fn instance(id: &str, rules: &[(&str, &str)], inputs: &[&str]) -> Instance {
        let cascade = Cascade::new(
            rules
                .iter()
                .map(|(a, b)| Rule::new(*a, *b).unwrap())
                .collect(),
        );
        let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
        Instance {
            id: id.into(),
            outputs: cascade.apply_all(&inputs),
            inputs,
            cascade_len: cascade.len(),
            category: Some(Relations::of(&cascade, RelationMode::Exact).category()),
            cascade: Some(cascade),
            relations_mode: RelationMode::Exact,
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "abcd".into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// Counted by hand: two valid instances, a repeated id and a stale category listed.
    #[test]
    fn counts_by_hand() {
        let mut stats = DatasetStats::new("x.jsonl", true);
        stats.add(1, &instance("a", &[("a", "b")], &["ab", "cc"]));
        stats.add(2, &instance("b", &[("a", "b"), ("b", "c")], &["abc"]));
        stats.add(3, &instance("a", &[("c", "d")], &["c"]));
        let mut stale = instance("s", &[("a", "b"), ("b", "c")], &["a"]);
        stale.category = Some("0000".parse().unwrap());
        stats.add(5, &stale);
        stats.add_invalid(4, "malformed JSON".into());
        let stats = stats.finish();
        assert_eq!(stats.instances, 2);
        assert_eq!(stats.by_cascade_length, BTreeMap::from([(1, 1), (2, 1)]));
        assert_eq!(stats.input_length, BTreeMap::from([(2, 2), (3, 1)]));
        assert_eq!(stats.by_category.values().sum::<usize>(), 2);
        // a→b changes "ab" (1 of 2); a→b, b→c on "abc": each changes it (1 and 1).
        assert_eq!(stats.mean_examples_changed_per_rule, 1.0);
        // The three rules of the two valid instances, and one 2-letter pattern below.
        assert_eq!(stats.pattern_length, BTreeMap::from([(1, 3)]));
        assert_eq!(stats.one_letter_patterns, 1.0);
        let reasons: Vec<&str> = stats.invalid.iter().map(|i| i.reason.as_str()).collect();
        assert_eq!(reasons[0], "duplicate id 'a'");
        assert!(
            reasons[1].starts_with("category is 0000 but the cascade's exact"),
            "{reasons:?}"
        );
        assert!(!stats.is_clean());
        assert_eq!(stats.relations_compared.as_ref().unwrap().compared, 2);
        let text = stats.to_string();
        assert!(
            text.starts_with("x.jsonl: 2 valid instances, 3 invalid lines\n"),
            "{text}"
        );
        assert!(text.contains("  line 4: malformed JSON\n"), "{text}");
        assert!(
            text.contains("  rule pattern length (chars): 1:3; 1-letter patterns: 100.0%\n"),
            "{text}"
        );
        let mut mixed = DatasetStats::new("y.jsonl", false);
        mixed.add(
            1,
            &instance("m", &[("ab", "c"), ("c", "a"), ("cab", "b")], &["abc"]),
        );
        let mixed = mixed.finish();
        assert_eq!(
            mixed.pattern_length,
            BTreeMap::from([(1, 1), (2, 1), (3, 1)])
        );
        assert!((mixed.one_letter_patterns - 1.0 / 3.0).abs() < 1e-12);
    }
}
