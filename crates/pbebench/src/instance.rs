//! Instances: the examples a solver sees, the hidden cascade, and metadata.

use crate::relations::{Category, Interaction, RelationMode};
use crate::rule::Cascade;
use serde::{Deserialize, Serialize};

/// One PBE problem. This is the JSONL schema of every dataset pbebench writes (README,
/// "Dataset format"). Solvers see only `inputs`, `outputs` and the limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Unique within its dataset; responses refer to instances by it.
    pub id: String,
    /// The example inputs shown to solvers.
    pub inputs: Vec<String>,
    /// The example outputs, `cascade` applied to `inputs`.
    pub outputs: Vec<String>,
    /// The hidden (gold) cascade; absent for real data such as attested sound changes.
    #[serde(default)]
    pub cascade: Option<Cascade>,
    /// Number of rules in the gold cascade (0 when there is none).
    #[serde(default)]
    pub cascade_len: usize,
    /// Relation category of the gold cascade (`F B CF CB` bits).
    #[serde(default)]
    pub category: Option<Category>,
    /// Which classifier produced `category` and `interactions`.
    #[serde(default)]
    pub relations_mode: RelationMode,
    /// The most rules a solver may use (the prompt's `L_max`).
    pub max_rules: usize,
    /// The longest side a rule may have (`s_max`).
    pub max_rule_len: usize,
    /// Every letter rules may use, in order, as one string.
    pub alphabet: String,
    /// Extra inputs never shown to solvers, for measuring generalisation.
    #[serde(default)]
    pub heldout_inputs: Vec<String>,
    /// The gold outputs of `heldout_inputs`.
    #[serde(default)]
    pub heldout_outputs: Vec<String>,
    /// The interacting ordered pairs of gold rules.
    #[serde(default)]
    pub interactions: Vec<Interaction>,
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
        }
    }

    /// Everything that is wrong with this instance (empty when it is sound): mismatched
    /// lengths, a gold cascade that does not reproduce the outputs, limits it breaks.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.inputs.is_empty() {
            problems.push("no examples".to_owned());
        }
        if self.inputs.len() != self.outputs.len() {
            problems.push(format!(
                "{} inputs but {} outputs",
                self.inputs.len(),
                self.outputs.len()
            ));
        }
        if self.heldout_inputs.len() != self.heldout_outputs.len() {
            problems.push(format!(
                "{} held-out inputs but {} held-out outputs",
                self.heldout_inputs.len(),
                self.heldout_outputs.len()
            ));
        }
        if self.max_rules == 0 || self.max_rule_len == 0 {
            problems.push("max_rules and max_rule_len must be positive".to_owned());
        }
        if self.alphabet.is_empty() {
            problems.push("the alphabet is empty".to_owned());
        }
        if let Some(cascade) = &self.cascade {
            if cascade.len() != self.cascade_len {
                problems.push(format!(
                    "cascade_len is {} but the cascade has {} rules",
                    self.cascade_len,
                    cascade.len()
                ));
            }
            for (k, (i, o)) in self.inputs.iter().zip(&self.outputs).enumerate() {
                let got = cascade.apply(i);
                if &got != o {
                    problems.push(format!(
                        "example {k}: the cascade maps {i:?} to {got:?}, not {o:?}"
                    ));
                    break;
                }
            }
            if !cascade.reproduces(&self.heldout_inputs, &self.heldout_outputs) {
                problems.push("the cascade does not reproduce the held-out outputs".to_owned());
            }
        }
        problems
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
