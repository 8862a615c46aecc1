//! What a solver sees: the examples and the limits, never the gold cascade.

use pbebench::{Cascade, Instance};
use std::collections::HashMap;

/// Why a cascade is not a valid answer to a problem ([`Problem::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// More rules than the cap.
    #[error("{rules} rules, more than the cap of {cap}")]
    TooManyRules {
        /// Rules in the cascade.
        rules: usize,
        /// The problem's rule cap.
        cap: usize,
    },
    /// A side longer than `max_rule_len`.
    #[error("rule {index} ({rule}) has a side longer than {cap}")]
    SideTooLong {
        /// Index of the rule.
        index: usize,
        /// The rule, as `replace(a, b)`.
        rule: String,
        /// The longest side allowed.
        cap: usize,
    },
    /// A letter outside the problem's alphabet.
    #[error("rule {index} ({rule}) uses {letter:?}, not in the alphabet")]
    ForeignLetter {
        /// Index of the rule.
        index: usize,
        /// The rule, as `replace(a, b)`.
        rule: String,
        /// The letter.
        letter: char,
    },
    /// An empty pattern.
    #[error("rule {index} has an empty pattern")]
    EmptyPattern {
        /// Index of the rule.
        index: usize,
    },
    /// An intermediate string past [`Problem::length_bound`].
    #[error("{}an intermediate string exceeds {max_len} characters", example.map_or(String::new(), |k| format!("example {k}: ")))]
    TooLong {
        /// The example, when one example is checked.
        example: Option<usize>,
        /// The bound.
        max_len: usize,
    },
    /// An example not reproduced.
    #[error("example {example}: maps {input:?} to {got:?}, not {expected:?}")]
    Wrong {
        /// Index of the example.
        example: usize,
        /// Its input.
        input: String,
        /// The cascade's output.
        got: String,
        /// The example's output.
        expected: String,
    },
}

/// Why a problem cannot be posed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    /// No examples at all.
    #[error("the instance has no examples")]
    NoExamples,
    /// Inputs and outputs differ in number (e.g. a dataset without outputs).
    #[error("{inputs} inputs but {outputs} outputs")]
    Mismatch {
        /// Number of inputs.
        inputs: usize,
        /// Number of outputs.
        outputs: usize,
    },
    /// `max_rules` is zero.
    #[error("max_rules must be positive")]
    ZeroRules,
    /// `max_rule_len` is zero.
    #[error("max_rule_len must be positive")]
    ZeroRuleLen,
    /// The solvers index letters by one byte.
    #[error("the examples and alphabet use {0} distinct letters; at most 255 are supported")]
    TooManyLetters(usize),
}

/// One problem: examples, rule cap, side-length cap and the letters rules may use.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    inputs: Vec<String>,
    outputs: Vec<String>,
    max_rules: usize,
    max_rule_len: usize,
    alphabet: Vec<char>,
}

impl Problem {
    /// A problem; `alphabet` lists the letters rules may use (an empty alphabet means
    /// "the letters of the examples").
    pub fn new(
        inputs: Vec<String>,
        outputs: Vec<String>,
        max_rules: usize,
        max_rule_len: usize,
        alphabet: &str,
    ) -> Result<Self, ProblemError> {
        if inputs.len() != outputs.len() {
            return Err(ProblemError::Mismatch {
                inputs: inputs.len(),
                outputs: outputs.len(),
            });
        }
        if inputs.is_empty() {
            return Err(ProblemError::NoExamples);
        }
        if max_rules == 0 {
            return Err(ProblemError::ZeroRules);
        }
        if max_rule_len == 0 {
            return Err(ProblemError::ZeroRuleLen);
        }
        let mut alphabet: Vec<char> = if alphabet.is_empty() {
            inputs
                .iter()
                .chain(&outputs)
                .flat_map(|s| s.chars())
                .collect()
        } else {
            alphabet.chars().collect()
        };
        alphabet.sort_unstable();
        alphabet.dedup();
        let mut letters = alphabet.clone();
        letters.extend(inputs.iter().chain(&outputs).flat_map(|s| s.chars()));
        letters.sort_unstable();
        letters.dedup();
        if letters.len() > 255 {
            return Err(ProblemError::TooManyLetters(letters.len()));
        }
        Ok(Problem {
            inputs,
            outputs,
            max_rules,
            max_rule_len,
            alphabet,
        })
    }

    /// The problem an instance poses to solvers (its gold cascade is not copied).
    pub fn from_instance(instance: &Instance) -> Result<Self, ProblemError> {
        Problem::new(
            instance.inputs.clone(),
            instance.outputs.clone(),
            instance.max_rules,
            instance.max_rule_len,
            &instance.alphabet,
        )
    }

    /// The example inputs.
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// The example outputs.
    pub fn outputs(&self) -> &[String] {
        &self.outputs
    }

    /// The most rules a cascade may have.
    pub fn max_rules(&self) -> usize {
        self.max_rules
    }

    /// The longest side (in characters) a rule may have.
    pub fn max_rule_len(&self) -> usize {
        self.max_rule_len
    }

    /// The letters rules may use, sorted.
    pub fn alphabet(&self) -> &[char] {
        &self.alphabet
    }

    /// Describes two examples with the same input and different outputs, if any: no
    /// cascade (a function) can reproduce both.
    pub fn contradiction(&self) -> Option<String> {
        let mut seen: HashMap<&str, (usize, &str)> = HashMap::new();
        for (k, (i, o)) in self.inputs.iter().zip(&self.outputs).enumerate() {
            if let Some(&(j, other)) = seen.get(i.as_str()) {
                if other != o {
                    return Some(format!(
                        "examples {j} and {k} map the same input {i:?} to {other:?} and {o:?}"
                    ));
                }
            } else {
                seen.insert(i, (k, o));
            }
        }
        None
    }

    /// Checks a cascade against everything a valid answer must satisfy: at most
    /// `max_rules` rules, non-empty patterns, sides of at most `max_rule_len` characters,
    /// only alphabet letters, and every input mapped to its output by the core
    /// `apply_bounded` (intermediate strings within [`Problem::length_bound`]).
    pub fn check(&self, cascade: &Cascade) -> Result<(), CheckError> {
        self.check_limits(cascade)?;
        let bound = self.length_bound();
        for (k, (i, o)) in self.inputs.iter().zip(&self.outputs).enumerate() {
            let got = cascade
                .apply_bounded(i, bound)
                .map_err(|e| CheckError::TooLong {
                    example: Some(k),
                    max_len: e.max_len,
                })?;
            if &got != o {
                return Err(CheckError::Wrong {
                    example: k,
                    input: i.clone(),
                    got,
                    expected: o.clone(),
                });
            }
        }
        Ok(())
    }

    /// The Edit_Sim on the examples of a cascade that need not reproduce them all, checked
    /// against the limits first. The cascade is applied with every intermediate string
    /// bounded by [`Problem::length_bound`]; beyond it, an error.
    pub fn partial_edit_sim(&self, cascade: &Cascade) -> Result<f64, CheckError> {
        self.check_limits(cascade)?;
        let bound = self.length_bound();
        let predicted = (self.inputs.iter())
            .map(|i| cascade.apply_bounded(i, bound))
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| CheckError::TooLong {
                example: None,
                max_len: e.max_len,
            })?;
        Ok(pbebench::metrics::edit_sim(
            &self.inputs,
            &self.outputs,
            &predicted,
        ))
    }

    /// The bound on intermediate strings when a cascade that may not fit is applied: 16
    /// times the longest example string, and at least 256
    /// (`pbebench::equiv::length_bound_of`).
    pub fn length_bound(&self) -> usize {
        let longest = (self.inputs.iter().chain(&self.outputs))
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0);
        pbebench::equiv::length_bound_of(longest)
    }

    /// Checks rule count, patterns, side lengths and letters (not the examples).
    fn check_limits(&self, cascade: &Cascade) -> Result<(), CheckError> {
        if cascade.len() > self.max_rules {
            return Err(CheckError::TooManyRules {
                rules: cascade.len(),
                cap: self.max_rules,
            });
        }
        for (k, rule) in cascade.rules().iter().enumerate() {
            for side in [rule.pattern(), rule.replacement()] {
                if side.chars().count() > self.max_rule_len {
                    return Err(CheckError::SideTooLong {
                        index: k,
                        rule: rule.to_string(),
                        cap: self.max_rule_len,
                    });
                }
                if let Some(c) = side
                    .chars()
                    .find(|c| self.alphabet.binary_search(c).is_err())
                {
                    return Err(CheckError::ForeignLetter {
                        index: k,
                        rule: rule.to_string(),
                        letter: c,
                    });
                }
            }
            if rule.pattern().is_empty() {
                return Err(CheckError::EmptyPattern { index: k });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pbebench::Rule;

    fn p(inputs: &[&str], outputs: &[&str]) -> Problem {
        Problem::new(
            inputs.iter().map(|s| s.to_string()).collect(),
            outputs.iter().map(|s| s.to_string()).collect(),
            3,
            2,
            "abc",
        )
        .unwrap()
    }

    #[test]
    fn rejects_bad_limits_and_shapes() {
        let one = || vec!["a".to_string()];
        assert_eq!(
            Problem::new(one(), one(), 0, 3, "a"),
            Err(ProblemError::ZeroRules)
        );
        assert_eq!(
            Problem::new(one(), one(), 3, 0, "a"),
            Err(ProblemError::ZeroRuleLen)
        );
        assert_eq!(
            Problem::new(one(), vec![], 3, 3, "a"),
            Err(ProblemError::Mismatch {
                inputs: 1,
                outputs: 0
            })
        );
        assert_eq!(
            Problem::new(vec![], vec![], 3, 3, "a"),
            Err(ProblemError::NoExamples)
        );
    }

    #[test]
    fn finds_contradictions() {
        assert!(p(&["ab", "ab"], &["b", "c"]).contradiction().is_some());
        assert!(p(&["ab", "ab"], &["b", "b"]).contradiction().is_none());
    }

    #[test]
    fn check_enforces_every_limit() {
        let prob = p(&["ab"], &["cb"]);
        let ok = Cascade::new(vec![Rule::new("a", "c").unwrap()]);
        assert!(prob.check(&ok).is_ok());
        let long = Cascade::new(vec![Rule::new("ab", "cbb").unwrap()]);
        assert!(
            matches!(
                prob.check(&long),
                Err(CheckError::SideTooLong { index: 0, .. })
            ),
            "{:?}",
            prob.check(&long)
        );
        let foreign = Cascade::new(vec![
            Rule::new("a", "z").unwrap(),
            Rule::new("z", "c").unwrap(),
        ]);
        assert!(prob
            .check(&foreign)
            .unwrap_err()
            .to_string()
            .contains("alphabet"));
        let many = Cascade::new(vec![Rule::new("a", "c").unwrap(); 4]);
        assert!(
            matches!(
                prob.check(&many),
                Err(CheckError::TooManyRules { rules: 4, .. })
            ),
            "{:?}",
            prob.check(&many)
        );
        let wrong = Cascade::new(vec![Rule::new("b", "c").unwrap()]);
        assert_eq!(
            prob.check(&wrong),
            Err(CheckError::Wrong {
                example: 0,
                input: "ab".into(),
                got: "ac".into(),
                expected: "cb".into()
            })
        );
    }
}
