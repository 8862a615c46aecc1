//! Instances: the examples a solver sees, the hidden cascade, and metadata.

use crate::generate::MAX_HELDOUT;
use crate::limits::{
    MAX_ALPHABET_LEN, MAX_CASCADE_LEN, MAX_EXAMPLES, MAX_RULES_LIMIT, MAX_RULE_LEN_LIMIT,
    MAX_STRING_LEN,
};
use crate::relations::{Category, Interaction, RelationMode};
use crate::rule::Cascade;
use crate::symbols::Symbols;
use serde::{Deserialize, Serialize};

/// One PBE problem. This is the JSONL schema of every dataset pbebench writes (README,
/// "Dataset format"). Solvers see only `inputs`, `outputs` and the limits.
///
/// Reading one requires `cascade_len` when `cascade` is given (a line without it once
/// read as 0); every reader then checks it with [`Instance::problems`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "InstanceFields")]
pub struct Instance {
    /// Unique within its dataset; responses refer to instances by it.
    pub id: String,
    /// The example inputs shown to solvers.
    pub inputs: Vec<String>,
    /// The example outputs, `cascade` applied to `inputs`.
    pub outputs: Vec<String>,
    /// The hidden (gold) cascade; absent for real data such as attested sound changes.
    pub cascade: Option<Cascade>,
    /// Number of rules in the gold cascade (0 when there is none).
    pub cascade_len: usize,
    /// Relation category of the gold cascade (`F B CF CB` bits).
    pub category: Option<Category>,
    /// Which classifier produced `category` and `interactions`.
    pub relations_mode: RelationMode,
    /// The most rules a solver may use (the prompt's `L_max`).
    pub max_rules: usize,
    /// The longest side a rule may have (`s_max`).
    pub max_rule_len: usize,
    /// Every letter rules may use, in order, as one string.
    pub alphabet: String,
    /// Extra inputs never shown to solvers, for measuring generalisation.
    pub heldout_inputs: Vec<String>,
    /// The gold outputs of `heldout_inputs`.
    pub heldout_outputs: Vec<String>,
    /// The interacting ordered pairs of gold rules.
    pub interactions: Vec<Interaction>,
    /// The segments of several characters that a symbol of the words stands for (a
    /// dataset read from segmented data, `pbebench pairs --cldf`): outputs show them
    /// again. Empty, and left out of the line, otherwise.
    #[serde(skip_serializing_if = "Symbols::is_empty")]
    pub symbols: Symbols,
}

/// The fields of an [`Instance`] as a line gives them: what it leaves out takes its
/// default, except `cascade_len`, which a line with a `cascade` must state.
#[derive(Deserialize)]
struct InstanceFields {
    id: String,
    inputs: Vec<String>,
    outputs: Vec<String>,
    #[serde(default)]
    cascade: Option<Cascade>,
    #[serde(default)]
    cascade_len: Option<usize>,
    #[serde(default)]
    category: Option<Category>,
    #[serde(default)]
    relations_mode: RelationMode,
    max_rules: usize,
    max_rule_len: usize,
    alphabet: String,
    #[serde(default)]
    heldout_inputs: Vec<String>,
    #[serde(default)]
    heldout_outputs: Vec<String>,
    #[serde(default)]
    interactions: Vec<Interaction>,
    #[serde(default)]
    symbols: Symbols,
}

impl TryFrom<InstanceFields> for Instance {
    type Error = String;

    fn try_from(f: InstanceFields) -> Result<Self, Self::Error> {
        let cascade_len = match (f.cascade_len, &f.cascade) {
            (Some(len), _) => len,
            (None, None) => 0,
            (None, Some(cascade)) => {
                return Err(format!(
                    "missing field `cascade_len`: give the number of rules of `cascade` ({})",
                    cascade.len()
                ))
            }
        };
        Ok(Instance {
            id: f.id,
            inputs: f.inputs,
            outputs: f.outputs,
            cascade: f.cascade,
            cascade_len,
            category: f.category,
            relations_mode: f.relations_mode,
            max_rules: f.max_rules,
            max_rule_len: f.max_rule_len,
            alphabet: f.alphabet,
            heldout_inputs: f.heldout_inputs,
            heldout_outputs: f.heldout_outputs,
            interactions: f.interactions,
            symbols: f.symbols,
        })
    }
}

/// What a reader demands of an instance's gold cascade beside the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoldCheck {
    /// The gold reproduces every example and held-out example: what every reader but the
    /// audit demands.
    Reproduces,
    /// The gold stays within the limits on every example, and may contradict them: the
    /// audit reads such instances to flag them (its gold gate).
    Bounded,
}

impl Instance {
    /// An instance made from a gold cascade and example inputs: the outputs are the
    /// cascade's, the category its exact one; the limits are as tight as the gold allows
    /// (`max_rules` its length, `max_rule_len` its longest side); no held-out examples.
    /// Set other limits with struct update syntax.
    pub fn from_gold<S: AsRef<str>>(
        id: impl Into<String>,
        inputs: &[S],
        cascade: Cascade,
        alphabet: impl Into<String>,
    ) -> Instance {
        let inputs: Vec<String> = inputs.iter().map(|s| s.as_ref().to_owned()).collect();
        let longest_side = (cascade.rules().iter())
            .map(|r| {
                r.pattern()
                    .chars()
                    .count()
                    .max(r.replacement().chars().count())
            })
            .max()
            .unwrap_or(1);
        Instance {
            id: id.into(),
            outputs: cascade.apply_all(&inputs),
            inputs,
            cascade_len: cascade.len(),
            category: Some(crate::relations::category_of(
                cascade.rules(),
                RelationMode::Exact,
            )),
            max_rules: cascade.len().max(1),
            max_rule_len: longest_side,
            cascade: Some(cascade),
            relations_mode: RelationMode::Exact,
            alphabet: alphabet.into(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    /// Everything that is wrong with this instance (empty when it is sound): mismatched
    /// lengths, a number or a size past the limits of [`crate::dataset`] (`MAX_RULES_LIMIT`
    /// and the others), an alphabet that repeats a letter, a gold cascade that does not
    /// reproduce the outputs. This is the one check every reader runs on every instance
    /// it reads (a dataset line, a word list, a dict given to the Python bindings), so
    /// that no command has to trust the numbers of a file. Each problem names the field.
    ///
    /// The gold is applied only when the sizes are within the limits, and then within
    /// [`MAX_STRING_LEN`] characters: a gold whose strings grow past it is a problem, not a
    /// runaway.
    pub fn problems(&self) -> Vec<String> {
        self.problems_with(GoldCheck::Reproduces)
    }

    /// [`Instance::problems`], with the gold held to `gold`: an auditor reads instances
    /// whose gold contradicts their examples ([`GoldCheck::Bounded`]) in order to flag
    /// them, where every other reader refuses them. Either way the gold is applied within
    /// [`MAX_STRING_LEN`], so a gold that grows a string past it is a problem.
    pub fn problems_with(&self, gold: GoldCheck) -> Vec<String> {
        let mut problems = example_problems(
            &self.inputs,
            &self.outputs,
            &self.heldout_inputs,
            &self.heldout_outputs,
            self.max_rules,
            self.max_rule_len,
            &self.alphabet,
        );
        if let Some(problem) = too_long("id", std::slice::from_ref(&self.id)) {
            problems.push(problem);
        }
        problems.extend(self.symbols.problems());
        if self.cascade_len > MAX_CASCADE_LEN {
            problems.push(format!(
                "cascade_len is {}, more than the {MAX_CASCADE_LEN} rules a gold cascade may have",
                self.cascade_len
            ));
        }
        let rules = self.cascade.as_ref().map_or(self.cascade_len, Cascade::len);
        if let Some((k, bad)) = (self.interactions.iter().enumerate())
            .find_map(|(k, x)| [x.i, x.j].into_iter().find(|&r| r >= rules).map(|r| (k, r)))
        {
            problems.push(format!(
                "interactions[{k}] names rule {bad}, but the cascade has {rules} rules (numbered from 0)"
            ));
        }
        if self.interactions.len() > rules.saturating_mul(rules.saturating_sub(1)) {
            problems.push(format!(
                "{} interactions, more than the {} ordered pairs of {rules} rules",
                self.interactions.len(),
                rules.saturating_mul(rules.saturating_sub(1))
            ));
        }
        let Some(cascade) = &self.cascade else {
            return problems;
        };
        if cascade.len() > MAX_CASCADE_LEN {
            problems.push(format!(
                "cascade has {} rules, more than the {MAX_CASCADE_LEN} a gold cascade may have",
                cascade.len()
            ));
        } else if let Some(k) = (cascade.rules().iter()).position(|r| {
            longer_than(r.pattern(), MAX_STRING_LEN) || longer_than(r.replacement(), MAX_STRING_LEN)
        }) {
            problems.push(format!(
                "cascade[{k}] has a side longer than {MAX_STRING_LEN} characters, the longest string an instance may hold"
            ));
        }
        if cascade.len() != self.cascade_len {
            problems.push(format!(
                "cascade_len is {} but the cascade has {} rules",
                self.cascade_len,
                cascade.len()
            ));
        }
        if !self.sized() {
            // Applying the gold could cost what the limits are there to prevent.
            return problems;
        }
        let reproduces = gold == GoldCheck::Reproduces;
        for (k, (i, o)) in self.inputs.iter().zip(&self.outputs).enumerate() {
            match cascade.apply_bounded(i, MAX_STRING_LEN) {
                Ok(got) if &got == o || !reproduces => {}
                Ok(got) => {
                    problems.push(format!(
                        "example {k}: the cascade maps {i:?} to {got:?}, not {o:?}"
                    ));
                    break;
                }
                Err(_) => {
                    problems.push(format!(
                        "example {k}: the cascade writes a string longer than {MAX_STRING_LEN} characters from {i:?}, the longest an instance may hold"
                    ));
                    break;
                }
            }
        }
        let held_out = (self.heldout_inputs.iter().zip(&self.heldout_outputs)).map(|(i, o)| {
            cascade
                .apply_bounded(i, MAX_STRING_LEN)
                .map(|got| &got == o)
        });
        let (mut overflows, mut mismatches) = (false, false);
        for reproduced in held_out {
            overflows |= reproduced.is_err();
            mismatches |= reproduced == Ok(false);
        }
        if overflows {
            problems.push(format!(
                "the cascade writes a string longer than {MAX_STRING_LEN} characters from a held-out input, the longest an instance may hold"
            ));
        } else if reproduces
            && (mismatches || self.heldout_inputs.len() != self.heldout_outputs.len())
        {
            problems.push("the cascade does not reproduce the held-out outputs".to_owned());
        }
        problems
    }

    /// True when the sizes are within the limits, so that applying the gold costs at most
    /// its rules times the examples' characters.
    fn sized(&self) -> bool {
        let strings = [
            &self.inputs,
            &self.outputs,
            &self.heldout_inputs,
            &self.heldout_outputs,
        ];
        self.inputs.len() <= MAX_EXAMPLES
            && self.heldout_inputs.len() <= MAX_HELDOUT
            && (strings.iter()).all(|list| too_long("", list).is_none())
            && self.cascade.as_ref().is_none_or(|c| {
                c.len() <= MAX_CASCADE_LEN
                    && (c.rules().iter()).all(|r| {
                        !longer_than(r.pattern(), MAX_STRING_LEN)
                            && !longer_than(r.replacement(), MAX_STRING_LEN)
                    })
            })
    }

    /// How many examples each gold rule changes at the point it applies (empty without gold).
    pub fn examples_changed_per_rule(&self) -> Vec<usize> {
        let Some(cascade) = &self.cascade else {
            return Vec::new();
        };
        let mut current = self.inputs.clone();
        let mut scratch = String::new();
        cascade
            .rules()
            .iter()
            .map(|rule| {
                let mut changed = 0;
                for s in current.iter_mut() {
                    if rule.apply_into(s, &mut scratch) {
                        std::mem::swap(s, &mut scratch);
                        changed += 1;
                    }
                }
                changed
            })
            .collect()
    }
}

/// The problems [`Instance::problems`] finds in the examples and the limits alone (what a
/// reward reads): the numbers of examples, the strings' lengths, `max_rules`,
/// `max_rule_len` and the alphabet, each against its limit in [`crate::dataset`].
pub fn example_problems<S: AsRef<str>>(
    inputs: &[S],
    outputs: &[S],
    heldout_inputs: &[S],
    heldout_outputs: &[S],
    max_rules: usize,
    max_rule_len: usize,
    alphabet: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    if inputs.is_empty() {
        problems.push("no examples".to_owned());
    }
    if inputs.len() != outputs.len() {
        problems.push(format!(
            "{} inputs but {} outputs",
            inputs.len(),
            outputs.len()
        ));
    }
    if heldout_inputs.len() != heldout_outputs.len() {
        problems.push(format!(
            "{} held-out inputs but {} held-out outputs",
            heldout_inputs.len(),
            heldout_outputs.len()
        ));
    }
    for (field, list, max) in [
        ("inputs", inputs, MAX_EXAMPLES),
        ("outputs", outputs, MAX_EXAMPLES),
        ("heldout_inputs", heldout_inputs, MAX_HELDOUT),
        ("heldout_outputs", heldout_outputs, MAX_HELDOUT),
    ] {
        if list.len() > max {
            problems.push(format!(
                "{field} has {} strings, more than the {max} an instance may have: split it into several instances",
                list.len()
            ));
        }
        problems.extend(too_long(field, list));
    }
    if max_rules == 0 || max_rule_len == 0 {
        problems.push("max_rules and max_rule_len must be positive".to_owned());
    }
    for (field, value, max) in [
        ("max_rules", max_rules, MAX_RULES_LIMIT),
        ("max_rule_len", max_rule_len, MAX_RULE_LEN_LIMIT),
    ] {
        if value > max {
            problems.push(format!(
                "{field} is {value}, more than the limit of {max}: give 1 to {max}"
            ));
        }
    }
    if alphabet.is_empty() {
        problems.push("the alphabet is empty".to_owned());
    }
    problems.extend(alphabet_problem(alphabet));
    problems
}

/// Why an alphabet is refused beyond being empty: more than [`MAX_ALPHABET_LEN`] letters,
/// or a letter given twice (which the prompt would show twice and the exact comparison
/// would count twice).
fn alphabet_problem(alphabet: &str) -> Option<String> {
    let letters = alphabet.chars().count();
    if letters > MAX_ALPHABET_LEN {
        return Some(format!(
            "alphabet has {letters} letters, more than the {MAX_ALPHABET_LEN} an instance may use"
        ));
    }
    let mut sorted: Vec<char> = alphabet.chars().collect();
    sorted.sort_unstable();
    let repeated = sorted.windows(2).find(|w| w[0] == w[1])?[0];
    Some(format!(
        "alphabet repeats the letter {repeated:?}: give each letter once"
    ))
}

/// The first string of `list` longer than [`MAX_STRING_LEN`] characters, as a problem of
/// `field`.
fn too_long<S: AsRef<str>>(field: &str, list: &[S]) -> Option<String> {
    let k = (list.iter()).position(|s| longer_than(s.as_ref(), MAX_STRING_LEN))?;
    let name = if field == "id" {
        "id".to_owned()
    } else {
        format!("{field}[{k}]")
    };
    Some(format!(
        "{name} is {} characters long, more than the {MAX_STRING_LEN} a string of an instance may have",
        list[k].as_ref().chars().count()
    ))
}

/// Whether `s` has more than `max` characters (counted only when its bytes are more).
fn longer_than(s: &str, max: usize) -> bool {
    s.len() > max && s.chars().count() > max
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rule;

    /// The made instance is sound, with the gold's outputs, category and tightest limits.
    #[test]
    fn an_instance_from_a_gold_is_sound() {
        let gold: Cascade = [("a", "bc"), ("c", "d")]
            .iter()
            .map(|(a, b)| Rule::new(*a, *b).unwrap())
            .collect();
        let inst = Instance::from_gold("x", &["ab", "cc"], gold, "abcd");
        assert_eq!(inst.outputs, ["bdb", "dd"]);
        assert_eq!(
            (inst.max_rules, inst.max_rule_len, inst.cascade_len),
            (2, 2, 2)
        );
        // a -> bc feeds c -> d.
        assert_eq!(inst.category.unwrap().to_string(), "1000");
        assert!(inst.problems().is_empty(), "{:?}", inst.problems());
    }
}
