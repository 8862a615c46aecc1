//! The authors' published JSONL format (the PBEBench snapshots of cmu-llab/PBEBench), in
//! both directions: [`parse_record`] reads one of their records into an [`Instance`],
//! [`authors_line`] writes an instance as one of their records, byte for byte as their
//! files are written (Python's `json.dumps` with its default separators and ASCII
//! escapes, their field order, `replace("a", "b")` programs).
//!
//! A record holds `inputs`, `outputs`, `programs`, (`original_programs` in the published
//! PBEBench-Lite file only), `bfcc_dag` (every ordered pair of distinct rules `[i, labels,
//! j]`, the labels `["N"]`, `["F"]`, `["B"]` or `["F", "B"]`: rule `i` feeds and/or bleeds
//! rule `j`), `cascade_length`, `bfcc_string` and `bfcc_category`. It has no id, no
//! held-out examples, no limits and no classifier name: ids become line numbers, the
//! limits are inferred from the letters ([`authors_limits`]) and the relations are read as
//! the paper formula's, which is how the published labels were made.

use crate::alphabets::{infer_alphabet, LITE_ALPHABET};
use crate::instance::Instance;
use crate::instance_error::InstanceError;
use crate::limits::MAX_CASCADE_LEN;
use crate::pylit;
use crate::relations::{Category, RelationMode, Relations};
use crate::rule::{Cascade, Rule, RuleError};
use serde::Serialize;
use serde_json::Value;
use std::io;

/// Why a program string is no rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplaceCallError {
    /// Not a call `replace("a", "b")` of two string literals.
    #[error("'{0}' is not of the form replace(\"a\", \"b\")")]
    NotACall(String),
    /// A call whose sides make no rule (an empty pattern).
    #[error("'{text}': {error}")]
    BadRule {
        /// The program.
        text: String,
        /// Why its sides make no rule.
        error: RuleError,
    },
}

/// The limits an authors' record is read with, which their format does not hold: at most
/// 5 rules over the Lite alphabet (PBEBench-Lite), else `max(cascade_len, 20)` (the hard
/// sets, whose prompts allow 20 rules and whose cascades are up to 30 long); sides of at
/// most 3 characters. Returns `(max_rules, max_rule_len)`.
pub fn authors_limits(alphabet: &str, cascade_len: usize) -> (usize, usize) {
    let max_rules = if alphabet == LITE_ALPHABET {
        5
    } else {
        cascade_len.max(20)
    };
    (max_rules, 3)
}

/// Reads one record of the authors' format (a JSON object with `programs`): `inputs` and
/// `outputs` as lists or Python list reprs, `programs` as `replace("a", "b")` strings,
/// `cascade_length`, `bfcc_category`, `bfcc_dag`. `index` (0-based, among the file's
/// records) becomes the id.
///
/// The classifier is the one whose relations `bfcc_dag` records: the paper formula when it
/// reproduces the dag (as for every published record, or without a dag), else the exact
/// classifier when that one does (a file `pbebench export` wrote from exact-labelled
/// instances); the instance's `interactions` are then the dag's.
pub(crate) fn parse_record(
    map: &serde_json::Map<String, Value>,
    index: usize,
) -> Result<Instance, InstanceError> {
    let strings = |key: &'static str| -> Result<Vec<String>, InstanceError> {
        match map.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or(InstanceError::NotStrings(key))
                })
                .collect(),
            Some(Value::String(repr)) => {
                pylit::parse_str_list(repr).map_err(|error| InstanceError::BadRepr { key, error })
            }
            Some(_) => Err(InstanceError::NotAList(key)),
            None => Err(InstanceError::Missing(key)),
        }
    };
    let inputs = strings("inputs")?;
    let outputs = strings("outputs")?;
    let rules = strings("programs")?
        .iter()
        .map(|p| parse_replace_call(p))
        .collect::<Result<Vec<Rule>, ReplaceCallError>>()?;
    if rules.len() > MAX_CASCADE_LEN {
        // Refused before its relations, which cost the square of its length, are computed.
        return Err(InstanceError::Unsound(vec![format!(
            "programs has {} rules, more than the {MAX_CASCADE_LEN} a gold cascade may have",
            rules.len()
        )]));
    }
    let cascade = Cascade::new(rules);
    let category = match map.get("bfcc_category") {
        Some(Value::String(c)) => Some(c.parse::<Category>().map_err(InstanceError::BadCategory)?),
        Some(_) => return Err(InstanceError::CategoryNotAString),
        None => None,
    };
    if let Some(stated) = map.get("cascade_length").and_then(Value::as_u64) {
        if stated as usize != cascade.len() {
            return Err(InstanceError::LengthMismatch {
                stated,
                programs: cascade.len(),
            });
        }
    }
    let alphabet = infer_alphabet(inputs.iter().chain(&outputs).map(String::as_str));
    let (max_rules, max_rule_len) = authors_limits(&alphabet, cascade.len());
    let (relations_mode, interactions) = match map.get("bfcc_dag").and_then(read_dag) {
        Some(recorded) => classifier_of(&cascade, &recorded),
        None => (RelationMode::Paper, Vec::new()),
    };
    Ok(Instance {
        id: index.to_string(),
        cascade_len: cascade.len(),
        interactions,
        symbols: Default::default(),
        cascade: Some(cascade),
        category,
        relations_mode,
        max_rules,
        max_rule_len,
        alphabet,
        inputs,
        outputs,
        heldout_inputs: Vec::new(),
        heldout_outputs: Vec::new(),
    })
}

/// `bfcc_dag` as `(i, j, feeds, bleeds)` entries; `None` when it is not a list of
/// `[i, labels, j]` (the classifier is then not read from it).
fn read_dag(value: &Value) -> Option<Vec<(usize, usize, bool, bool)>> {
    value
        .as_array()?
        .iter()
        .map(|entry| {
            let [i, labels, j] = entry.as_array()?.as_slice() else {
                return None;
            };
            let labels: Vec<&str> = labels
                .as_array()?
                .iter()
                .map(Value::as_str)
                .collect::<Option<_>>()?;
            let index = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
            Some((
                index(i)?,
                index(j)?,
                labels.contains(&"F"),
                labels.contains(&"B"),
            ))
        })
        .collect()
}

/// The classifier whose relations of `cascade` are `recorded` (paper first), with its
/// interactions; the paper formula, without interactions, when neither is.
fn classifier_of(
    cascade: &Cascade,
    recorded: &[(usize, usize, bool, bool)],
) -> (RelationMode, Vec<crate::relations::Interaction>) {
    let n = cascade.len();
    let complete = recorded.len() == n * n.saturating_sub(1)
        && recorded
            .iter()
            .all(|&(i, j, _, _)| i < n && j < n && i != j);
    if complete {
        for mode in [RelationMode::Paper, RelationMode::Exact] {
            let relations = Relations::of(cascade, mode);
            let same = recorded
                .iter()
                .all(|&(i, j, f, b)| relations.feeds[i][j] == f && relations.bleeds[i][j] == b);
            if same {
                return (mode, relations.interactions());
            }
        }
    }
    (RelationMode::Paper, Vec::new())
}

/// Reads `replace("a", "b")` (either quote style) into a rule.
pub fn parse_replace_call(text: &str) -> Result<Rule, ReplaceCallError> {
    let bad = || ReplaceCallError::NotACall(text.to_owned());
    let body = text.trim().strip_prefix("replace(").ok_or_else(bad)?;
    let (a, end) = pylit::parse_string_literal(body, skip_ws(body, 0)).map_err(|_| bad())?;
    let comma = skip_ws(body, end);
    if body.as_bytes().get(comma) != Some(&b',') {
        return Err(bad());
    }
    let (b, end) =
        pylit::parse_string_literal(body, skip_ws(body, comma + 1)).map_err(|_| bad())?;
    if body[end..].trim() != ")" {
        return Err(bad());
    }
    Rule::new(a, b).map_err(|error| ReplaceCallError::BadRule {
        text: text.to_owned(),
        error,
    })
}

fn skip_ws(s: &str, mut i: usize) -> usize {
    while s.as_bytes().get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// How instances are written in the authors' format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuthorsOptions {
    /// Also write `original_programs` (a copy of `programs`), as the published
    /// PBEBench-Lite file (`adaptive_balanced_1008_complete.jsonl`) has it.
    pub original_programs: bool,
    /// Recompute `bfcc_dag` and `bfcc_category` with this classifier; `None`: the
    /// instance's own (`relations_mode`), and its stored category.
    pub relations: Option<RelationMode>,
}

/// Why an instance cannot be written in the authors' format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// Real data (word lists) has no programs to write.
    #[error("instance {0} has no gold cascade: the authors' format needs its programs")]
    NoGold(String),
    /// Its words write segments as symbols (a dataset read from CLDF): the authors'
    /// format has no field for the mapping, so the words would read back as the symbols.
    #[error("instance {id} writes segments as one symbol each ({table}): the authors' format has no field for that mapping, so its words would read back as the symbols; keep the dataset in pbebench's format, which carries it")]
    Symbols {
        /// The instance.
        id: String,
        /// Its mapping, as `A = aː, B = t͡s`.
        table: String,
    },
}

/// One record, its fields in the order of the published files.
#[derive(Serialize)]
struct Record<'a> {
    inputs: &'a [String],
    outputs: &'a [String],
    programs: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    original_programs: Option<&'a [String]>,
    bfcc_dag: Vec<(usize, &'static [&'static str], usize)>,
    cascade_length: usize,
    bfcc_string: String,
    bfcc_category: Category,
}

/// The labels of one ordered pair in `bfcc_dag`.
fn dag_labels(feeds: bool, bleeds: bool) -> &'static [&'static str] {
    match (feeds, bleeds) {
        (false, false) => &["N"],
        (true, false) => &["F"],
        (false, true) => &["B"],
        (true, true) => &["F", "B"],
    }
}

/// `bfcc_dag`: every ordered pair `(i, j)` of distinct rules, `i` then `j` ascending.
fn dag(relations: &Relations) -> Vec<(usize, &'static [&'static str], usize)> {
    let n = relations.feeds.len();
    (0..n)
        .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
        .map(|(i, j)| {
            (
                i,
                dag_labels(relations.feeds[i][j], relations.bleeds[i][j]),
                j,
            )
        })
        .collect()
}

/// `instance` as one record of the authors' format, without the newline: the bytes their
/// files hold for it. The programs are `replace("a", "b")` with Python string literals;
/// `bfcc_dag` is the relations of the gold cascade under the instance's classifier (or
/// `options.relations`). Ids, held-out examples and limits are not part of the format;
/// an instance with a symbol mapping ([`Instance::symbols`]) is refused, as the format
/// could not carry it.
pub fn authors_line(instance: &Instance, options: &AuthorsOptions) -> Result<String, ExportError> {
    let cascade = instance
        .cascade
        .as_ref()
        .ok_or_else(|| ExportError::NoGold(instance.id.clone()))?;
    if !instance.symbols.is_empty() {
        return Err(ExportError::Symbols {
            id: instance.id.clone(),
            table: instance.symbols.to_string(),
        });
    }
    let mode = options.relations.unwrap_or(instance.relations_mode);
    let relations = Relations::of(cascade, mode);
    let category = match (options.relations, instance.category) {
        (None, Some(stored)) => stored,
        _ => relations.category(),
    };
    let programs: Vec<String> = cascade.rules().iter().map(ToString::to_string).collect();
    let record = Record {
        inputs: &instance.inputs,
        outputs: &instance.outputs,
        programs: &programs,
        original_programs: options.original_programs.then_some(programs.as_slice()),
        bfcc_dag: dag(&relations),
        cascade_length: cascade.len(),
        bfcc_string: category.description(),
        bfcc_category: category,
    };
    Ok(python_json(&record))
}

/// What writing some instances in the authors' format leaves out, counted as they are
/// written ([`AuthorsExport::note`]), for the message a user reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorsExport {
    /// Records written.
    pub written: usize,
    /// Instances whose id is not their line number (0-based), the id they read back with.
    pub renamed: usize,
    /// Instances whose held-out examples were left out.
    pub heldout_dropped: usize,
    /// Instances whose limits (`max_rules`, `max_rule_len`, `alphabet`) differ from what
    /// the authors' reader infers ([`authors_limits`]).
    pub limits_changed: usize,
    /// Instances whose relations were written by the exact classifier, read back as the
    /// paper formula's.
    pub exact_relations: usize,
}

impl AuthorsExport {
    /// Notes that `instance` was written as record `index` (0-based) with `options`.
    pub fn note(&mut self, index: usize, instance: &Instance, options: &AuthorsOptions) {
        self.written += 1;
        self.renamed += usize::from(instance.id != index.to_string());
        self.heldout_dropped += usize::from(!instance.heldout_inputs.is_empty());
        let alphabet = infer_alphabet(
            instance
                .inputs
                .iter()
                .chain(&instance.outputs)
                .map(String::as_str),
        );
        let limits = (
            alphabet.as_str(),
            authors_limits(&alphabet, instance.cascade_len),
        );
        let own = (
            instance.alphabet.as_str(),
            (instance.max_rules, instance.max_rule_len),
        );
        self.limits_changed += usize::from(limits != own);
        let mode = options.relations.unwrap_or(instance.relations_mode);
        self.exact_relations += usize::from(mode == RelationMode::Exact);
    }

    /// One line per thing left out or changed, for standard error; empty when the records
    /// read back as the instances they came from.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut say = |count: usize, what: &str| {
            if count > 0 {
                out.push(format!("{count} of {} instances: {what}", self.written));
            }
        };
        say(
            self.renamed,
            "the format has no ids; they read back as line numbers (0, 1, …)",
        );
        say(
            self.heldout_dropped,
            "held-out examples left out (the format has none)",
        );
        say(
            self.limits_changed,
            "limits (max_rules, max_rule_len, alphabet) the format cannot hold; they read back as inferred from the letters",
        );
        say(
            self.exact_relations,
            "bfcc_dag and bfcc_category by the exact classifier (pbebench reads that back from bfcc_dag; the authors' labels are the paper formula's: --relations paper writes those)",
        );
        out
    }
}

/// `value` as Python's `json.dumps(value)` writes it: `", "` between items, `": "` after
/// keys, and every character outside printable ASCII escaped (`\uXXXX`, UTF-16 pairs past
/// the BMP), as `ensure_ascii=True` does.
pub(crate) fn python_json<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PythonJson);
    value
        .serialize(&mut ser)
        .expect("a record of strings and numbers serialises");
    String::from_utf8(out).expect("the output is ASCII")
}

/// `", "` before every item but the first, as `json.dumps` separates them.
fn separator<W: ?Sized + io::Write>(w: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}

/// The [`serde_json::ser::Formatter`] of [`python_json`].
struct PythonJson;

impl serde_json::ser::Formatter for PythonJson {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        separator(w, first)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        separator(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    /// The characters serde_json leaves as they are: printable ASCII stays, DEL and
    /// everything past ASCII become `\u` escapes.
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if (' '..='~').contains(&c) {
                continue;
            }
            w.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                write!(w, "\\u{unit:04x}")?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::parse_instance;

    fn reread(line: &str, index: usize) -> Instance {
        parse_instance(line, index).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn writes_a_published_record_byte_for_byte() {
        let line = r#"{"inputs": ["gkbi", "kdkd", "gffxd", "cxdzf", "byad"], "outputs": ["jadbi", "hkwdhkwd", "gffxd", "cxdzf", "byad"], "programs": ["replace(\"gk\", \"jad\")", "replace(\"k\", \"hkw\")"], "original_programs": ["replace(\"gk\", \"jad\")", "replace(\"k\", \"hkw\")"], "bfcc_dag": [[0, ["B"], 1], [1, ["N"], 0]], "cascade_length": 2, "bfcc_string": "Bleeding", "bfcc_category": "0100"}"#;
        let inst = reread(line, 0);
        let lite = AuthorsOptions {
            original_programs: true,
            relations: None,
        };
        assert_eq!(authors_line(&inst, &lite).unwrap(), line);
        let plain = authors_line(&inst, &AuthorsOptions::default()).unwrap();
        assert!(!plain.contains("original_programs"), "{plain}");
        assert_eq!(reread(&plain, 0), inst);
    }

    #[test]
    fn strings_are_escaped_as_python_json_dumps_does() {
        // python3 -c 'import json; print(json.dumps(["ʔaː", "q\"\\", "\x7f\x01\n", "𝔸"]))'
        let strings = vec![
            "ʔaː".to_owned(),
            "q\"\\".into(),
            "\u{7f}\u{1}\n".into(),
            "𝔸".into(),
        ];
        assert_eq!(
            python_json(&strings),
            r#"["\u0294a\u02d0", "q\"\\", "\u007f\u0001\n", "\ud835\udd38"]"#
        );
    }

    #[test]
    fn programs_quote_any_string_and_read_back() {
        let gold = Cascade::new(vec![
            Rule::new("a\"b", "'").unwrap(),
            Rule::new("\\", "ʔ").unwrap(),
        ]);
        let inputs = vec!["a\"b\\".to_owned()];
        let inst = Instance {
            id: "0".into(),
            outputs: gold.apply_all(&inputs),
            inputs,
            cascade_len: 2,
            category: None,
            cascade: Some(gold),
            relations_mode: RelationMode::Exact,
            max_rules: 5,
            max_rule_len: 3,
            alphabet: String::new(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        };
        let line = authors_line(&inst, &AuthorsOptions::default()).unwrap();
        assert!(line.contains(r#""replace(\"a\\\"b\", \"'\")""#), "{line}");
        let back = reread(&line, 0);
        assert_eq!(back.cascade, inst.cascade);
        assert_eq!(back.outputs, inst.outputs);
        // A mapping of segments to symbols has no field in their format: refused, not
        // dropped.
        let inst = Instance {
            symbols: crate::symbols::Symbols::for_segments(["aː", "t͡s", "a"], &[]).unwrap(),
            ..inst
        };
        let e = authors_line(&inst, &AuthorsOptions::default()).unwrap_err();
        assert!(matches!(e, ExportError::Symbols { .. }), "{e}");
        assert!(
            e.to_string().starts_with("instance 0 writes segments as one symbol each (A = aː, B = t͡s): the authors' format has no field"),
            "{e}"
        );
    }

    #[test]
    fn the_dag_lists_every_ordered_pair() {
        let gold = Cascade::new(vec![
            Rule::new("a", "b").unwrap(),
            Rule::new("b", "c").unwrap(),
            Rule::new("c", "a").unwrap(),
        ]);
        let rel = Relations::of(&gold, RelationMode::Paper);
        let pairs: Vec<(usize, usize)> = dag(&rel).iter().map(|(i, _, j)| (*i, *j)).collect();
        assert_eq!(pairs, [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]);
        // a→b feeds b→c; c→a (last) would feed a→b (first): counter-feeding.
        assert_eq!(dag(&rel)[0].1, ["F"]);
        assert_eq!(dag(&rel)[4].1, ["F"]);
    }

    #[test]
    fn what_the_format_loses_is_counted() {
        let line = r#"{"inputs": ["xbu"], "outputs": ["xhu"], "programs": ["replace(\"b\", \"h\")"], "cascade_length": 1, "bfcc_category": "0000"}"#;
        let mut inst = reread(line, 0);
        let mut export = AuthorsExport::default();
        export.note(0, &inst, &AuthorsOptions::default());
        assert!(export.warnings().is_empty(), "{:?}", export.warnings());
        inst.id = "lite-7".into();
        inst.heldout_inputs = vec!["b".into()];
        inst.heldout_outputs = vec!["h".into()];
        inst.max_rules = 4;
        inst.relations_mode = RelationMode::Exact;
        export.note(1, &inst, &AuthorsOptions::default());
        assert_eq!(
            (
                export.renamed,
                export.heldout_dropped,
                export.limits_changed,
                export.exact_relations
            ),
            (1, 1, 1, 1)
        );
        assert_eq!(export.warnings().len(), 4);
        assert!(export.warnings()[0].starts_with("1 of 2 instances"));
        let no_gold = Instance {
            cascade: None,
            ..inst
        };
        assert_eq!(
            authors_line(&no_gold, &AuthorsOptions::default()),
            Err(ExportError::NoGold("lite-7".into()))
        );
    }
}
