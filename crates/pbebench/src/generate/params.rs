//! Generator parameters, the paper's presets, and their validation.

use crate::alphabets::{FULL_ALPHABET, LITE_ALPHABET};
use crate::limits::{
    MAX_CASCADE_LEN, MAX_EXAMPLES, MAX_RULES_LIMIT, MAX_RULE_LEN_LIMIT, MAX_STRING_LEN,
};
use crate::relations::RelationMode;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How quotas balance the dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Balance {
    /// ⌊D/16⌋ per relation category; ℓ ~ Unif over the cascade lengths (PBEBench-Lite).
    Category,
    /// D/#lengths per cascade length, exact length, categories free.
    Length,
    /// Per length as `Length`, and ⌊per-length/16⌋ per category within each length until
    /// patience runs out (PBEBench).
    Joint,
}

impl FromStr for Balance {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "category" => Ok(Balance::Category),
            "length" => Ok(Balance::Length),
            "joint" => Ok(Balance::Joint),
            other => Err(ParseError::Unknown {
                what: "balance",
                text: other.to_owned(),
                expected: "category, length or joint",
            }),
        }
    }
}

/// A parameter's text that does not parse (a preset, balance or pattern-draw name, an
/// alphabet, a range or a list of lengths).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not one of the names the parameter takes.
    #[error("unknown {what} '{text}' (expected {expected})")]
    Unknown {
        /// What the name was for.
        what: &'static str,
        /// The text given.
        text: String,
        /// The names the parameter takes.
        expected: &'static str,
    },
    /// A range of letters such as `z-a` that holds none.
    #[error("the range {lo}-{hi} is empty")]
    EmptyLetterRange {
        /// The first letter given.
        lo: char,
        /// The last letter given.
        hi: char,
    },
    /// An alphabet that names a letter twice.
    #[error("the letter {letter:?} appears twice in '{text}'; give each letter once")]
    RepeatedLetter {
        /// The letter.
        letter: char,
        /// The text given.
        text: String,
    },
    /// An alphabet holding whitespace or a control character.
    #[error("'{text}' holds {letter:?}, whitespace or a control character; use letters")]
    NotALetter {
        /// The character.
        letter: char,
        /// The text given.
        text: String,
    },
    /// An alphabet of no letter, or of more than 255.
    #[error("'{text}' gives {letters} letters; give 1 to 255 (letters and ranges such as a-ku-z, or lite or full)")]
    AlphabetSize {
        /// How many letters it gives.
        letters: usize,
        /// The text given.
        text: String,
    },
    /// Not a range of numbers such as `2..6`.
    #[error("'{0}' is not a range such as 2..6")]
    NotARange(String),
    /// Not a list of lengths such as `25,30`.
    #[error("'{0}' is not a list of lengths such as 25,30")]
    NotALengthList(String),
    /// A range whose minimum is above its maximum.
    #[error("'{text}': the minimum {min} is larger than the maximum {max}")]
    MinAboveMax {
        /// The text given.
        text: String,
        /// Its minimum.
        min: usize,
        /// Its maximum.
        max: usize,
    },
}

/// How a rule's pattern is drawn (`docs/generator.md#one-attempt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PatternDraw {
    /// The paper's description: |a| ~ Unif{s_min..s_max}, then `a` uniform over the
    /// distinct substrings of that length of the current strings. About a third of the
    /// patterns are single letters.
    #[default]
    Substring,
    /// What the published PBEBench-Lite file shows: |a| and `a` drawn together, |a| ~
    /// Unif{s_min..s_max} and `a` ~ Unif(Σ)^|a|, and drawn again, length included, until
    /// `a` occurs in the current strings. A random 1-letter string occurs far more often
    /// than a random 2- or 3-letter one, so most patterns are single letters (82% in the
    /// published Lite file), and a single letter occurs in more examples.
    Published,
}

impl PatternDraw {
    /// Every way with its command-line name.
    pub const ALL: [(&'static str, PatternDraw); 2] = [
        ("substring", PatternDraw::Substring),
        ("published", PatternDraw::Published),
    ];
}

impl FromStr for PatternDraw {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        (PatternDraw::ALL.iter())
            .find(|(n, _)| *n == s)
            .map(|(_, d)| *d)
            .ok_or_else(|| ParseError::Unknown {
                what: "pattern draw",
                text: s.to_owned(),
                expected: "substring or published",
            })
    }
}

/// The rule cap a solver is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxRules {
    /// The same cap for every instance (5 in the Lite sets).
    Fixed(usize),
    /// `max(cascade length, n)` (n = 20 in the hard sets, as the released prompts do).
    AtLeast(usize),
}

impl MaxRules {
    /// The cap for an instance whose gold cascade has `len` rules.
    pub fn for_length(self, len: usize) -> usize {
        match self {
            MaxRules::Fixed(n) => n,
            MaxRules::AtLeast(n) => n.max(len),
        }
    }
}

/// The published snapshots' parameters (`docs/generator.md#presets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// PBEBench-Lite: 1008 instances, 5 examples, 63 per category, lengths 2–5.
    Lite,
    /// PBEBench-Lite as the published file was sampled ([`PatternDraw::Published`]), with
    /// the paper's relation formula, which gives the published file's labels, and a
    /// patience of 1,000,000 attempts.
    LitePublished,
    /// PBEBench-Lite-MoreEg: 240 instances, 50 examples, 15 per category, lengths 1–5.
    LiteMoreEg,
    /// PBEBench: 1216 instances, 50 examples, 64 per length 2–20.
    Full,
    /// PBEBench (25, 30): 128 instances, 64 per length 25 and 30.
    Full2530,
}

impl Preset {
    /// Every preset with its command-line name.
    pub const ALL: [(&'static str, Preset); 5] = [
        ("lite", Preset::Lite),
        ("lite-published", Preset::LitePublished),
        ("lite-moreeg", Preset::LiteMoreEg),
        ("full", Preset::Full),
        ("full-25-30", Preset::Full2530),
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        Preset::ALL
            .iter()
            .find(|(_, p)| *p == self)
            .map(|(n, _)| *n)
            .expect("every preset is listed")
    }

    /// The preset's parameters with seed 0.
    pub fn params(self) -> GenParams {
        let (examples, alphabet, lens, size, balance, max_rules) = match self {
            Preset::Lite | Preset::LitePublished => (
                5,
                LITE_ALPHABET,
                (2..=5).collect(),
                1008,
                Balance::Category,
                MaxRules::Fixed(5),
            ),
            Preset::LiteMoreEg => (
                50,
                LITE_ALPHABET,
                (1..=5).collect(),
                240,
                Balance::Category,
                MaxRules::Fixed(5),
            ),
            Preset::Full => (
                50,
                FULL_ALPHABET,
                (2..=20).collect(),
                1216,
                Balance::Joint,
                MaxRules::AtLeast(20),
            ),
            Preset::Full2530 => (
                50,
                FULL_ALPHABET,
                vec![25, 30],
                128,
                Balance::Joint,
                MaxRules::AtLeast(20),
            ),
        };
        let published = self == Preset::LitePublished;
        GenParams {
            name: self.name().to_owned(),
            size,
            examples,
            alphabet: alphabet.chars().collect(),
            input_len: (2, 6),
            cascade_lens: lens,
            rule_len: (1, 3),
            pattern_draw: if published {
                PatternDraw::Published
            } else {
                PatternDraw::Substring
            },
            max_rules,
            // The published Lite file took 1,426,933 attempts (its generation log): with
            // mostly 1-letter patterns the last categories fill slowly, and 100,000 would
            // leave them short.
            patience: if published { 1_000_000 } else { 100_000 },
            balance,
            relations: if published {
                RelationMode::Paper
            } else {
                RelationMode::Exact
            },
            heldout: 20,
            seed: 0,
            shard: None,
        }
    }
}

impl FromStr for Preset {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, p)| *p)
            .ok_or_else(|| ParseError::Unknown {
                what: "preset",
                text: s.to_owned(),
                expected: PRESET_NAMES,
            })
    }
}

/// The presets' names, as [`ParseError::Unknown`] lists them.
const PRESET_NAMES: &str = "one of lite, lite-published, lite-moreeg, full, full-25-30";

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The most held-out examples an instance can have. Each instance draws a pool of 20 times
/// as many fresh inputs to choose them from, so the cost grows with it: 10000 already
/// takes ~35 ms and ~70 MB per lite instance, and without a bound a mistyped value would
/// run for hours (or overflow the pool size).
pub const MAX_HELDOUT: usize = 10_000;

/// Everything that determines a generated dataset (with the seed, the file is a pure
/// function of these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenParams {
    /// Name used in instance ids (the preset's, or "custom").
    pub name: String,
    /// Instances in the whole dataset (D).
    pub size: usize,
    /// Examples per instance (n).
    pub examples: usize,
    /// Letters of inputs and rules (Σ), in order.
    pub alphabet: Vec<char>,
    /// Input length range `l_min..=l_max`.
    pub input_len: (usize, usize),
    /// Allowed cascade lengths, ascending (usually `L_min..=L_max`).
    pub cascade_lens: Vec<usize>,
    /// Rule side length range `s_min..=s_max`.
    pub rule_len: (usize, usize),
    /// How a rule's pattern is drawn (substrings, when a statistics file written before
    /// this choice existed is read).
    #[serde(default)]
    pub pattern_draw: PatternDraw,
    /// The rule cap solvers are given.
    pub max_rules: MaxRules,
    /// Attempts per block with category quotas enforced (τ).
    pub patience: u64,
    /// Balancing mode.
    pub balance: Balance,
    /// Relation classifier used for categories.
    pub relations: RelationMode,
    /// Held-out examples per instance (h), at most [`MAX_HELDOUT`].
    pub heldout: usize,
    /// Random seed.
    pub seed: u64,
    /// Shard `(k, N)`: write only the k-th of N contiguous slices.
    pub shard: Option<(usize, usize)>,
}

/// An inconsistent parameter, named as on the command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--{param}: {message}")]
pub struct ParamError {
    /// The command-line name of the parameter at fault.
    pub param: &'static str,
    /// What is wrong and what to do.
    pub message: String,
}

fn err(param: &'static str, message: impl Into<String>) -> ParamError {
    ParamError {
        param,
        message: message.into(),
    }
}

impl GenParams {
    /// Checks that the parameters can produce the requested dataset.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.check_lengths()?;
        self.check_counts()?;
        let longest = self.check_cascade_lens()?;
        self.check_alphabet()?;
        self.check_cap(longest)?;
        self.check_balance()?;
        self.check_shard()
    }

    /// The length ranges are ranges, and no length is past what every reader accepts.
    fn check_lengths(&self) -> Result<(), ParamError> {
        let range = |param, (lo, hi): (usize, usize)| {
            if lo == 0 {
                Err(err(param, "the minimum must be at least 1"))
            } else if lo > hi {
                Err(err(
                    param,
                    format!("the minimum {lo} is larger than the maximum {hi}"),
                ))
            } else {
                Ok(())
            }
        };
        range("input-len", self.input_len)?;
        range("rule-len", self.rule_len)?;
        // What the generator writes, every reader must accept (`Instance::problems`).
        for (param, value, max, what) in [
            (
                "input-len",
                self.input_len.1,
                MAX_STRING_LEN,
                "characters a string of an instance may have",
            ),
            (
                "rule-len",
                self.rule_len.1,
                MAX_RULE_LEN_LIMIT,
                "characters a rule's side may have (max_rule_len)",
            ),
            (
                "examples",
                self.examples,
                MAX_EXAMPLES,
                "examples an instance may have",
            ),
            (
                "cascade-len",
                self.cascade_lens.last().copied().unwrap_or(0),
                MAX_CASCADE_LEN,
                "rules a gold cascade may have",
            ),
            (
                "max-rules",
                match self.max_rules {
                    MaxRules::Fixed(n) | MaxRules::AtLeast(n) => n,
                },
                MAX_RULES_LIMIT,
                "rules an instance's cap may allow (max_rules)",
            ),
        ] {
            if value > max {
                return Err(err(
                    param,
                    format!("{value} is more than the {max} {what}; give at most {max}"),
                ));
            }
        }
        Ok(())
    }

    /// At least one instance and one example, and not too many held-out examples.
    fn check_counts(&self) -> Result<(), ParamError> {
        if self.size == 0 {
            return Err(err("size", "must be at least 1"));
        }
        if self.examples == 0 {
            return Err(err("examples", "must be at least 1"));
        }
        if self.heldout > MAX_HELDOUT {
            return Err(err(
                "heldout",
                format!(
                    "{} is more than the {MAX_HELDOUT} held-out examples an instance can have \
                     (each instance draws a pool 20 times as large to choose them from)",
                    self.heldout
                ),
            ));
        }
        Ok(())
    }

    /// The cascade lengths, positive and strictly increasing; the longest.
    fn check_cascade_lens(&self) -> Result<usize, ParamError> {
        let (first, last) = match (self.cascade_lens.first(), self.cascade_lens.last()) {
            (Some(&a), Some(&b)) => (a, b),
            _ => return Err(err("cascade-len", "no cascade length given")),
        };
        if first == 0 {
            return Err(err("cascade-len", "cascade lengths must be at least 1"));
        }
        if !self.cascade_lens.windows(2).all(|w| w[0] < w[1]) {
            return Err(err("cascade-len", "lengths must be strictly increasing"));
        }
        Ok(last)
    }

    /// 2 to 255 distinct letters, none blank, enough for the distinct inputs asked for.
    fn check_alphabet(&self) -> Result<(), ParamError> {
        let mut letters = self.alphabet.clone();
        letters.sort_unstable();
        letters.dedup();
        if letters.len() != self.alphabet.len() {
            return Err(err("alphabet", "a letter appears twice"));
        }
        if let Some(c) = letters.iter().find(|c| c.is_whitespace() || c.is_control()) {
            return Err(err(
                "alphabet",
                format!("{c:?} is whitespace or a control character; use letters"),
            ));
        }
        if letters.len() > 255 {
            return Err(err(
                "alphabet",
                format!(
                    "{} letters is more than the 255 the generator supports",
                    letters.len()
                ),
            ));
        }
        if letters.len() < 2 {
            return Err(err(
                "alphabet",
                "needs at least 2 letters (a rule's replacement must differ from its pattern)",
            ));
        }
        let distinct_inputs: f64 = (self.input_len.0..=self.input_len.1)
            .map(|l| (letters.len() as f64).powi(l as i32))
            .sum();
        if distinct_inputs < self.examples as f64 {
            return Err(err(
                "alphabet",
                format!(
                    "{} letters with input lengths {}..{} give only {distinct_inputs} distinct inputs, \
                     fewer than --examples {}; use more letters or longer inputs",
                    letters.len(),
                    self.input_len.0,
                    self.input_len.1,
                    self.examples
                ),
            ));
        }
        Ok(())
    }

    /// A fixed rule cap holds the longest cascade.
    fn check_cap(&self, longest: usize) -> Result<(), ParamError> {
        if let MaxRules::Fixed(cap) = self.max_rules {
            if cap < longest {
                return Err(err(
                    "max-rules",
                    format!("the rule cap {cap} is below the longest cascade length {longest}; raise --max-rules"),
                ));
            }
        }
        Ok(())
    }

    /// The size splits evenly into the balanced quotas.
    fn check_balance(&self) -> Result<(), ParamError> {
        match self.balance {
            Balance::Category if !self.size.is_multiple_of(16) => {
                return Err(err(
                    "size",
                    format!(
                        "balance by category needs a multiple of 16 (got {}; try {})",
                        self.size,
                        self.size.div_ceil(16) * 16
                    ),
                ))
            }
            Balance::Length | Balance::Joint
                if !self.size.is_multiple_of(self.cascade_lens.len()) =>
            {
                let n = self.cascade_lens.len();
                return Err(err(
                    "size",
                    format!(
                        "balance by length needs a multiple of the {n} cascade lengths (got {}; try {})",
                        self.size,
                        self.size.div_ceil(n) * n
                    ),
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// A shard `K/N` has `0 <= K < N`.
    fn check_shard(&self) -> Result<(), ParamError> {
        if let Some((k, n)) = self.shard {
            if n == 0 || k >= n {
                return Err(err(
                    "shard",
                    format!("{k}/{n} is not a shard: need 0 <= K < N"),
                ));
            }
        }
        Ok(())
    }

    /// The global instance indices `[lo, hi)` this run writes.
    pub fn shard_range(&self) -> (usize, usize) {
        match self.shard {
            Some((k, n)) => (k * self.size / n, (k + 1) * self.size / n),
            None => (0, self.size),
        }
    }
}

/// Changes to a preset's parameters, as the command line (`pbebench generate --examples
/// …`) and the Python bindings (`generate(examples=…)`) take them: each `None` keeps the
/// preset's value. Each front end reads the values in its own way; applying them, and the
/// checks, are here once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// Random seed.
    pub seed: Option<u64>,
    /// Instances (D).
    pub size: Option<usize>,
    /// Examples per instance (n).
    pub examples: Option<usize>,
    /// Letters (Σ).
    pub alphabet: Option<Vec<char>>,
    /// Input length range.
    pub input_len: Option<(usize, usize)>,
    /// Cascade lengths.
    pub cascade_lens: Option<Vec<usize>>,
    /// Rule side length range.
    pub rule_len: Option<(usize, usize)>,
    /// How patterns are drawn.
    pub pattern_draw: Option<PatternDraw>,
    /// A fixed rule cap.
    pub max_rules: Option<usize>,
    /// Patience τ.
    pub patience: Option<u64>,
    /// Balancing mode.
    pub balance: Option<Balance>,
    /// Relation classifier.
    pub relations: Option<RelationMode>,
    /// Held-out examples per instance.
    pub heldout: Option<usize>,
    /// Shard `(k, N)`.
    pub shard: Option<(usize, usize)>,
}

impl Overrides {
    /// `preset`'s parameters with these changes, validated.
    pub fn apply(self, preset: Preset) -> Result<GenParams, ParamError> {
        let mut p = preset.params();
        let Overrides {
            seed,
            size,
            examples,
            alphabet,
            input_len,
            cascade_lens,
            rule_len,
            pattern_draw,
            max_rules,
            patience,
            balance,
            relations,
            heldout,
            shard,
        } = self;
        p.seed = seed.unwrap_or(p.seed);
        p.size = size.unwrap_or(p.size);
        p.examples = examples.unwrap_or(p.examples);
        p.alphabet = alphabet.unwrap_or(p.alphabet);
        p.input_len = input_len.unwrap_or(p.input_len);
        p.cascade_lens = cascade_lens.unwrap_or(p.cascade_lens);
        p.rule_len = rule_len.unwrap_or(p.rule_len);
        p.pattern_draw = pattern_draw.unwrap_or(p.pattern_draw);
        p.max_rules = max_rules.map_or(p.max_rules, MaxRules::Fixed);
        p.patience = patience.unwrap_or(p.patience);
        p.balance = balance.unwrap_or(p.balance);
        p.relations = relations.unwrap_or(p.relations);
        p.heldout = heldout.unwrap_or(p.heldout);
        p.shard = shard.or(p.shard);
        p.validate()?;
        Ok(p)
    }
}

/// Letters from a name (`lite`: a–k and u–z, `full`: a–z and A–Z) or from a spec of
/// letters and ranges such as `a-ku-z` (the `--alphabet` of the command line).
pub fn parse_alphabet(text: &str) -> Result<Vec<char>, ParseError> {
    match text {
        "lite" => return Ok(LITE_ALPHABET.chars().collect()),
        "full" => return Ok(FULL_ALPHABET.chars().collect()),
        _ => {}
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        if k + 2 < chars.len() && chars[k + 1] == '-' {
            let (lo, hi) = (chars[k], chars[k + 2]);
            if lo > hi {
                return Err(ParseError::EmptyLetterRange { lo, hi });
            }
            out.extend(lo..=hi);
            k += 3;
        } else {
            out.push(chars[k]);
            k += 1;
        }
    }
    Ok(out)
}

/// An alphabet as every `alphabet` parameter takes it (the command line's `--alphabet`,
/// the Python bindings' `alphabet=`): [`parse_alphabet`]'s names and ranges, checked to
/// hold 1 to 255 distinct letters with no whitespace or control character.
///
/// ```
/// use pbebench::generate::alphabet;
/// assert_eq!(alphabet("lite").unwrap(), "abcdefghijkuvwxyz");
/// assert_eq!(alphabet("a-ce").unwrap(), "abce");
/// assert!(alphabet("aab").unwrap_err().to_string().contains("twice"));
/// ```
pub fn alphabet(text: &str) -> Result<String, ParseError> {
    let letters = parse_alphabet(text)?;
    let mut seen = std::collections::HashSet::new();
    if let Some(&letter) = letters.iter().find(|c| !seen.insert(**c)) {
        let text = text.to_owned();
        return Err(ParseError::RepeatedLetter { letter, text });
    }
    if let Some(&letter) = letters.iter().find(|c| c.is_whitespace() || c.is_control()) {
        let text = text.to_owned();
        return Err(ParseError::NotALetter { letter, text });
    }
    if !(1..=255).contains(&letters.len()) {
        let (letters, text) = (letters.len(), text.to_owned());
        return Err(ParseError::AlphabetSize { letters, text });
    }
    Ok(letters.into_iter().collect())
}

/// Parses `A..B`, `A-B` or a single number into an inclusive range.
pub fn parse_range(text: &str) -> Result<(usize, usize), ParseError> {
    let num = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| ParseError::NotARange(text.to_owned()))
    };
    if let Some((a, b)) = text
        .split_once("..=")
        .or_else(|| text.split_once(".."))
        .or_else(|| text.split_once('-'))
    {
        Ok((num(a)?, num(b)?))
    } else {
        let n = num(text)?;
        Ok((n, n))
    }
}

/// Parses cascade lengths: a range (`2..20`) or a comma-separated list (`25,30`).
pub fn parse_lengths(text: &str) -> Result<Vec<usize>, ParseError> {
    if text.contains(',') {
        let mut lens = text
            .split(',')
            .map(|s| {
                s.trim()
                    .parse::<usize>()
                    .map_err(|_| ParseError::NotALengthList(text.to_owned()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        lens.sort_unstable();
        lens.dedup();
        Ok(lens)
    } else {
        let (a, b) = parse_range(text)?;
        if a > b {
            return Err(ParseError::MinAboveMax {
                text: text.to_owned(),
                min: a,
                max: b,
            });
        }
        Ok((a..=b).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator never writes what the dataset readers refuse.
    #[test]
    fn parameters_past_the_dataset_limits_are_refused() {
        let mut p = Preset::Lite.params();
        p.rule_len = (1, crate::dataset::MAX_RULE_LEN_LIMIT + 1);
        assert_eq!(p.validate().unwrap_err().param, "rule-len");
        let mut p = Preset::Lite.params();
        p.input_len = (1, crate::dataset::MAX_STRING_LEN + 1);
        assert_eq!(p.validate().unwrap_err().param, "input-len");
        let mut p = Preset::Lite.params();
        p.cascade_lens = vec![1, crate::dataset::MAX_CASCADE_LEN + 1];
        p.max_rules = MaxRules::AtLeast(5);
        assert_eq!(p.validate().unwrap_err().param, "cascade-len");
    }

    #[test]
    fn presets_are_valid_and_match_the_paper() {
        for (name, preset) in Preset::ALL {
            let p = preset.params();
            p.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(name.parse::<Preset>().unwrap(), preset);
        }
        let lite = Preset::Lite.params();
        assert_eq!(
            (lite.size, lite.examples, lite.alphabet.len()),
            (1008, 5, 17)
        );
        let full = Preset::Full.params();
        assert_eq!(
            (full.size, full.cascade_lens.len(), full.alphabet.len()),
            (1216, 19, 52)
        );
        assert_eq!(full.max_rules.for_length(5), 20);
        assert_eq!(Preset::Full2530.params().max_rules.for_length(30), 30);
    }

    #[test]
    fn bad_parameters_name_themselves() {
        let mut p = Preset::Lite.params();
        p.input_len = (6, 2);
        assert_eq!(p.validate().unwrap_err().param, "input-len");
        let mut p = Preset::Lite.params();
        p.size = 1000;
        let e = p.validate().unwrap_err();
        assert_eq!(e.param, "size");
        assert!(e.to_string().contains("1008"), "{e}");
        let mut p = Preset::Lite.params();
        p.alphabet = vec!['a'];
        assert_eq!(p.validate().unwrap_err().param, "alphabet");
        let mut p = Preset::Lite.params();
        p.alphabet = vec!['a', 'b'];
        p.input_len = (2, 2);
        assert_eq!(p.validate().unwrap_err().param, "alphabet");
        let mut p = Preset::Lite.params();
        p.alphabet = ('\u{100}'..='\u{1ff}').collect();
        let e = p.validate().unwrap_err();
        assert_eq!(e.param, "alphabet");
        assert!(e.to_string().contains("256 letters"), "{e}");
        p.alphabet.pop();
        assert!(p.validate().is_ok());
        let mut p = Preset::Lite.params();
        p.cascade_lens = vec![2, 3, 8];
        assert_eq!(p.validate().unwrap_err().param, "max-rules");
        let mut p = Preset::Full.params();
        p.shard = Some((4, 4));
        assert_eq!(p.validate().unwrap_err().param, "shard");
        let mut p = Preset::Lite.params();
        p.heldout = MAX_HELDOUT;
        assert!(p.validate().is_ok());
        p.heldout = MAX_HELDOUT + 1;
        assert_eq!(p.validate().unwrap_err().param, "heldout");
    }

    #[test]
    fn overrides_change_only_what_they_name_and_are_checked() {
        assert_eq!(
            Overrides::default().apply(Preset::Full).unwrap(),
            Preset::Full.params()
        );
        let p = Overrides {
            seed: Some(3),
            examples: Some(7),
            max_rules: Some(9),
            pattern_draw: Some(PatternDraw::Published),
            ..Overrides::default()
        }
        .apply(Preset::Lite)
        .unwrap();
        let mut expected = Preset::Lite.params();
        (expected.seed, expected.examples) = (3, 7);
        expected.max_rules = MaxRules::Fixed(9);
        expected.pattern_draw = PatternDraw::Published;
        assert_eq!(p, expected);
        let bad = Overrides {
            size: Some(1000),
            ..Overrides::default()
        };
        assert_eq!(bad.apply(Preset::Lite).unwrap_err().param, "size");
    }

    #[test]
    fn alphabets_parse() {
        assert_eq!(
            parse_alphabet("a-ku-z")
                .unwrap()
                .into_iter()
                .collect::<String>(),
            LITE_ALPHABET
        );
        assert_eq!(parse_alphabet("full").unwrap().len(), 52);
        assert_eq!(parse_alphabet("xyz").unwrap(), vec!['x', 'y', 'z']);
        assert_eq!(
            parse_alphabet("z-a"),
            Err(ParseError::EmptyLetterRange { lo: 'z', hi: 'a' })
        );
    }

    #[test]
    fn ranges_parse() {
        assert_eq!(parse_range("2..6").unwrap(), (2, 6));
        assert_eq!(parse_range("2..=6").unwrap(), (2, 6));
        assert_eq!(parse_range("3").unwrap(), (3, 3));
        assert_eq!(
            parse_range("a..b"),
            Err(ParseError::NotARange("a..b".to_owned()))
        );
        assert_eq!(parse_lengths("25,30").unwrap(), vec![25, 30]);
        assert_eq!(parse_lengths("2..4").unwrap(), vec![2, 3, 4]);
        assert_eq!(
            parse_lengths("5..2"),
            Err(ParseError::MinAboveMax {
                text: "5..2".to_owned(),
                min: 5,
                max: 2
            })
        );
    }
}
