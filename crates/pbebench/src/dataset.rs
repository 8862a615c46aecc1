//! Datasets, read and written: JSONL files of [`Instance`]s in pbebench's own schema (read
//! by [`DatasetReader`] and [`read_dataset`], written by [`DatasetWriter`]) or in the
//! authors' published format (whose records the `authors` module reads and writes). (Which
//! file the lines go to, and how it is put into place, is `pbebench-io`'s.)

use crate::authors;
use crate::instance::{GoldCheck, Instance};
use serde::Serialize;
use serde_json::Value;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

pub use crate::alphabets::{infer_alphabet, FULL_ALPHABET, LITE_ALPHABET};
pub use crate::authors::{parse_replace_call, ReplaceCallError};
pub use crate::instance::example_problems;
pub use crate::instance_error::InstanceError;
pub use crate::limits::{
    MAX_ALPHABET_LEN, MAX_CASCADE_LEN, MAX_EXAMPLES, MAX_RULES_LIMIT, MAX_RULE_LEN_LIMIT,
    MAX_STRING_LEN,
};

/// A problem with a dataset file, located by path and 1-based line.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The file could not be opened or read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        error: io::Error,
    },
    /// One line is not a valid instance.
    #[error("{path}:{line}: {message}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// Parses one JSONL line in either format and checks it ([`Instance::problems`]: the
/// limits `MAX_*`, the gold against the examples). `index` (0-based line among instances)
/// becomes the id of the authors' records, which have none.
pub fn parse_instance(line: &str, index: usize) -> Result<Instance, InstanceError> {
    parse_instance_with(line, index, GoldCheck::Reproduces)
}

/// [`parse_instance`], with the gold held to `gold` ([`Instance::problems_with`]).
pub fn parse_instance_with(
    line: &str,
    index: usize,
    gold: GoldCheck,
) -> Result<Instance, InstanceError> {
    let instance = match own_instance(line) {
        Some(instance) => instance,
        None => parse_instance_generally(line, index)?,
    };
    if instance.alphabet.is_empty() {
        // The prompt would list no letter, while scoring reads it as "any letter".
        return Err(InstanceError::EmptyAlphabet);
    }
    let problems = instance.problems_with(gold);
    if !problems.is_empty() {
        return Err(InstanceError::Unsound(problems));
    }
    Ok(instance)
}

/// A line in pbebench's own schema read straight into its instance, without building a
/// JSON tree. `None` for any other line (the authors' `programs`, duplicate keys, errors),
/// which [`parse_instance_generally`] reads, deciding and wording errors as it always did.
fn own_instance(line: &str) -> Option<Instance> {
    let authors = memchr::memmem::find(line.as_bytes(), b"\"programs\"").is_some();
    let object = line.trim_start().starts_with('{');
    (object && !authors)
        .then(|| serde_json::from_str(line).ok())
        .flatten()
}

/// [`parse_instance`] through a JSON tree: both schemas, every error.
fn parse_instance_generally(line: &str, index: usize) -> Result<Instance, InstanceError> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| InstanceError::MalformedJson(e.to_string()))?;
    let Value::Object(map) = &value else {
        return Err(InstanceError::NotAnObject);
    };
    if map.contains_key("programs") && !map.contains_key("cascade") {
        return authors::parse_record(map, index);
    }
    if let Some(field) = ["max_rules", "max_rule_len", "cascade_len"]
        .into_iter()
        .find(|f| {
            map.get(*f)
                .is_some_and(|v| v.as_u64().is_none() && !v.is_null())
        })
    {
        // serde's message would name the value, not the field.
        return Err(InstanceError::NotAnInstance(format!(
            "{field} must be a whole number, not {}",
            map[field]
        )));
    }
    let instance: Instance =
        serde_json::from_value(value).map_err(|e| InstanceError::NotAnInstance(e.to_string()))?;
    Ok(instance)
}

/// Streams the instances of a JSONL file, one `Result` per non-blank line. A line that
/// is no instance (or not UTF-8) is a [`DatasetError::Line`], after which reading goes on;
/// a failure to read the file is a [`DatasetError::Io`], after which the reader ends.
pub struct DatasetReader {
    path: PathBuf,
    /// `None` once the file failed to read.
    lines: Option<io::Lines<pbebench_io::Input>>,
    line: usize,
    index: usize,
    gold: GoldCheck,
}

impl DatasetReader {
    /// Opens `path` for reading (as every input is: [`pbebench_io::open_input`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, DatasetError> {
        let path = path.as_ref().to_path_buf();
        let input = pbebench_io::open_input(&path).map_err(|error| DatasetError::Io {
            path: path.clone(),
            error,
        })?;
        Ok(DatasetReader {
            path,
            lines: Some(input.lines()),
            line: 0,
            index: 0,
            gold: GoldCheck::Reproduces,
        })
    }

    /// Holds each instance's gold to `gold` instead of [`GoldCheck::Reproduces`].
    pub fn gold_check(mut self, gold: GoldCheck) -> Self {
        self.gold = gold;
        self
    }

    /// The line number (from 1) of the item `next` returned last; blank lines are skipped
    /// but counted.
    pub fn line(&self) -> usize {
        self.line
    }
}

impl Iterator for DatasetReader {
    type Item = Result<Instance, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let text = match self.lines.as_mut()?.next()? {
                Ok(text) => text,
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    self.line += 1;
                    return Some(Err(DatasetError::Line {
                        path: self.path.clone(),
                        line: self.line,
                        message: "not valid UTF-8".to_owned(),
                    }));
                }
                Err(error) => {
                    // The same error would come on every later read: the reader ends here.
                    self.lines = None;
                    return Some(Err(DatasetError::Io {
                        path: self.path.clone(),
                        error,
                    }));
                }
            };
            self.line += 1;
            if text.trim().is_empty() {
                continue;
            }
            let parsed = parse_instance_with(&text, self.index, self.gold);
            self.index += 1;
            return Some(parsed.map_err(|error| DatasetError::Line {
                path: self.path.clone(),
                line: self.line,
                message: error.to_string(),
            }));
        }
    }
}

/// A line of a dataset in pbebench's own schema: an instance, alone or with fields of its
/// own after the instance's (a vetted snapshot's `repair`), which readers of instances pass
/// over.
pub trait DatasetLine: Serialize {
    /// The instance the line holds.
    fn instance(&self) -> &Instance;
}

impl DatasetLine for Instance {
    fn instance(&self) -> &Instance {
        self
    }
}

/// Writes a dataset in pbebench's own schema, the one every command writes (`generate`,
/// `pairs`, `export --to pbebench`, `vet`, the demo) and [`DatasetReader`] reads: one
/// compact JSON object a line, the fields in [`Instance`]'s order, each line ended by `\n`
/// and handed to `out` in one write.
///
/// ```
/// use pbebench::dataset::{parse_instance, DatasetWriter};
///
/// let line = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"cascade":[["a",""]],"cascade_len":1,"category":null,"relations_mode":"exact","max_rules":2,"max_rule_len":1,"alphabet":"ab","heldout_inputs":[],"heldout_outputs":[],"interactions":[]}"#;
/// let instance = parse_instance(line, 0)?;
/// let mut writer = DatasetWriter::new(Vec::new());
/// writer.write(&instance)?;
/// assert_eq!(writer.into_inner(), format!("{line}\n").into_bytes());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DatasetWriter<W> {
    out: W,
    /// One buffer for every line, so that a line does not grow a fresh one.
    line: Vec<u8>,
}

impl<W: Write> DatasetWriter<W> {
    /// Writes lines to `out`.
    pub fn new(out: W) -> Self {
        DatasetWriter {
            out,
            line: Vec::new(),
        }
    }

    /// Writes one line: `line` and a newline.
    pub fn write(&mut self, line: &impl DatasetLine) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, line)?;
        self.line.push(b'\n');
        self.out.write_all(&self.line)
    }

    /// Writes every line of `lines`, in order.
    pub fn write_all<'a, L: DatasetLine + 'a>(
        &mut self,
        lines: impl IntoIterator<Item = &'a L>,
    ) -> io::Result<()> {
        lines.into_iter().try_for_each(|line| self.write(line))
    }

    /// The writer the lines went to.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A dataset's text: every line of `lines`, as [`DatasetWriter`] writes them.
pub fn dataset_text<'a, L: DatasetLine + 'a>(lines: impl IntoIterator<Item = &'a L>) -> String {
    let mut writer = DatasetWriter::new(Vec::new());
    writer
        .write_all(lines)
        .expect("instances serialise, and a Vec takes every byte");
    String::from_utf8(writer.into_inner()).expect("JSON is UTF-8")
}

/// Reads a whole dataset, failing at the first bad line or on duplicate ids.
pub fn read_dataset(path: impl AsRef<Path>) -> Result<Vec<Instance>, DatasetError> {
    read_dataset_with(path, GoldCheck::Reproduces)
}

/// [`read_dataset`], with each gold held to `gold` (the audit reads with
/// [`GoldCheck::Bounded`], to flag the golds that contradict their examples).
pub fn read_dataset_with(
    path: impl AsRef<Path>,
    gold: GoldCheck,
) -> Result<Vec<Instance>, DatasetError> {
    let path = path.as_ref();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut reader = DatasetReader::open(path)?.gold_check(gold);
    while let Some(item) = reader.next() {
        let instance = item?;
        if !seen.insert(instance.id.clone()) {
            return Err(DatasetError::Line {
                path: path.to_path_buf(),
                line: reader.line(),
                message: format!("duplicate id '{}'", instance.id),
            });
        }
        out.push(instance);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_reads_a_contradicting_gold_but_not_a_runaway_one() {
        let contradicting = r#"{"id":"c","inputs":["a"],"outputs":["z"],"cascade":[["a","b"]],"cascade_len":1,"max_rules":5,"max_rule_len":3,"alphabet":"abz"}"#;
        let refused = parse_instance(contradicting, 0).unwrap_err().to_string();
        assert!(
            refused.contains("the cascade maps \"a\" to \"b\""),
            "{refused}"
        );
        let read = parse_instance_with(contradicting, 0, GoldCheck::Bounded).unwrap();
        assert_eq!(read.id, "c");
        let doubling = [r#"["a","aa"]"#; 11].join(",");
        let runaway = format!(
            r#"{{"id":"r","inputs":["a"],"outputs":["a"],"cascade":[{doubling}],"cascade_len":11,"max_rules":20,"max_rule_len":2,"alphabet":"a"}}"#
        );
        for gold in [GoldCheck::Reproduces, GoldCheck::Bounded] {
            let err = parse_instance_with(&runaway, 0, gold)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("writes a string longer than"),
                "{gold:?}: {err}"
            );
        }
    }

    #[test]
    fn own_lines_read_as_generally() {
        let own = r#"{"id":"x-1","inputs":["ab","c"],"outputs":["c","c"],"cascade":[["ab","c"]],"cascade_len":1,"category":"0000","relations_mode":"exact","max_rules":5,"max_rule_len":3,"alphabet":"abc","heldout_inputs":["abab"],"heldout_outputs":["cc"],"interactions":[]}"#;
        let minimal = r#" {"id": "m", "inputs": ["a"], "outputs": ["b"], "max_rules": 2, "max_rule_len": 1, "alphabet": "ab", "note": [1, {"x": 2}]}"#;
        for line in [own, minimal] {
            let fast = own_instance(line);
            assert!(fast.is_some(), "{line}");
            assert_eq!(fast.map(Ok), Some(parse_instance_generally(line, 0)));
        }
        let duplicate = r#"{"id": "a", "id": "b", "inputs": ["a"], "outputs": ["b"], "max_rules": 2, "max_rule_len": 1, "alphabet": "ab"}"#;
        assert_eq!(own_instance(duplicate), None);
        assert_eq!(parse_instance(duplicate, 0).unwrap().id, "b");
        let array = r#"["a", ["a"], ["b"], null, 0, null, "exact", 2, 1, "ab"]"#;
        assert_eq!(own_instance(array), None);
        assert_eq!(parse_instance(array, 0), Err(InstanceError::NotAnObject));
        let authors = r#"{"id": "a", "inputs": ["a"], "outputs": ["b"], "programs": ["replace('a', 'b')"], "max_rules": 2, "max_rule_len": 1, "alphabet": "ab"}"#;
        assert_eq!(own_instance(authors), None);
    }

    #[test]
    fn reads_the_authors_line() {
        let line = r#"{"inputs": ["xbu", "uxwkkg"], "outputs": ["xhu", "uxwkkvzw"], "programs": ["replace(\"z\", \"xwy\")", "replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 3, "bfcc_category": "0010"}"#;
        let inst = parse_instance(line, 7).unwrap();
        assert_eq!(inst.id, "7");
        assert_eq!(inst.cascade_len, 3);
        assert_eq!(inst.alphabet, LITE_ALPHABET);
        assert_eq!(inst.max_rules, 5);
        assert_eq!(inst.category.unwrap().to_string(), "0010");
        assert!(inst.problems().is_empty(), "{:?}", inst.problems());
    }

    #[test]
    fn reads_repr_lists() {
        let line = r#"{"inputs": "['AB', 'c']", "outputs": "['AB', 'd']", "programs": "['replace(\"c\", \"d\")']", "cascade_length": 1}"#;
        let inst = parse_instance(line, 0).unwrap();
        assert_eq!(inst.inputs, vec!["AB", "c"]);
        assert_eq!(inst.alphabet, FULL_ALPHABET);
        assert_eq!(inst.max_rules, 20);
    }

    /// An empty alphabet is refused where the line is read, so every command names the
    /// file and line (a prompt would list no letter, and scoring read it as any letter).
    #[test]
    fn an_empty_alphabet_is_refused() {
        let line = r#"{"id": "a", "inputs": ["a"], "outputs": ["b"], "max_rules": 2, "max_rule_len": 1, "alphabet": ""}"#;
        assert_eq!(parse_instance(line, 0), Err(InstanceError::EmptyAlphabet));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        let good = line.replace(r#""alphabet": """#, r#""alphabet": "ab""#);
        std::fs::write(
            &path,
            format!("{good}\n\n{}\n", line.replace(r#""a","#, r#""b","#)),
        )
        .unwrap();
        let e = read_dataset(&path).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "d.jsonl:3: 'alphabet' is empty: give the letters rules may use, e.g. \"abc\""
            ),
            "{e}"
        );
    }

    /// Every number and size of a line is bounded where the line is read, and the message
    /// names the field: a number in a file once made `solve` panic or take gigabytes.
    #[test]
    #[allow(clippy::too_many_lines)] // a table of cases; the line limit is for code, tests aside
    fn every_number_and_size_of_a_line_is_bounded() {
        let good = r#"{"id":"a","inputs":["ab"],"outputs":["b"],"cascade":[["a",""]],"cascade_len":1,"max_rules":2,"max_rule_len":1,"alphabet":"ab","interactions":[]}"#;
        assert!(parse_instance(good, 0).is_ok());
        let long = "a".repeat(MAX_STRING_LEN + 1);
        let many = vec!["a"; MAX_EXAMPLES + 1];
        let bad = |from: &str, to: &str| good.replace(from, to);
        let cases = [
            (
                bad(
                    r#""max_rule_len":1"#,
                    r#""max_rule_len":18446744073709551615"#,
                ),
                "max_rule_len is 18446744073709551615, more than the limit of 32",
            ),
            (
                bad(r#""max_rule_len":1"#, r#""max_rule_len":100000000"#),
                "max_rule_len is 100000000",
            ),
            (
                bad(r#""max_rules":2"#, r#""max_rules":1001"#),
                "max_rules is 1001, more than the limit of 1000",
            ),
            (
                bad(
                    r#""cascade_len":1"#,
                    r#""cascade_len":18446744073709551615"#,
                ),
                "cascade_len is 18446744073709551615, more than the 100",
            ),
            (
                bad(
                    r#""interactions":[]"#,
                    r#""interactions":[{"i":0,"j":9,"feeds":true,"bleeds":false}]"#,
                ),
                "interactions[0] names rule 9, but the cascade has 1 rules",
            ),
            (
                bad(r#""inputs":["ab"]"#, &format!(r#""inputs":["{long}"]"#)),
                "inputs[0] is 1001 characters long",
            ),
            (
                bad(r#""id":"a""#, &format!(r#""id":"{long}""#)),
                "id is 1001 characters long",
            ),
            (
                bad(
                    r#""inputs":["ab"]"#,
                    &format!(r#""inputs":{}"#, serde_json::to_string(&many).unwrap()),
                ),
                "inputs has 10001 strings, more than the 10000",
            ),
            (
                bad(
                    r#""alphabet":"ab""#,
                    &format!(
                        r#""alphabet":"{}""#,
                        ('\u{100}'..'\u{300}').collect::<String>()
                    ),
                ),
                "alphabet has 512 letters, more than the 255",
            ),
            (
                bad(r#""alphabet":"ab""#, r#""alphabet":"aab""#),
                "alphabet repeats the letter 'a'",
            ),
            (
                bad(
                    r#""cascade":[["a",""]]"#,
                    &format!(r#""cascade":[["a","{long}"]]"#),
                ),
                "cascade[0] has a side longer than 1000",
            ),
            (
                bad(
                    r#""cascade":[["a",""]],"cascade_len":1"#,
                    &format!(
                        r#""cascade":{},"cascade_len":101"#,
                        serde_json::to_string(&vec![["b", "a"]; 101]).unwrap()
                    ),
                ),
                "cascade has 101 rules, more than the 100",
            ),
            // The gold is applied within the limits: 20 × a → aaa is refused, not run.
            (
                bad(
                    r#""cascade":[["a",""]],"cascade_len":1"#,
                    &format!(
                        r#""cascade":{},"cascade_len":20"#,
                        serde_json::to_string(&vec![["a", "aaa"]; 20]).unwrap()
                    ),
                ),
                "example 0: the cascade writes a string longer than 1000 characters",
            ),
            (
                bad(r#""outputs":["b"]"#, r#""outputs":["bb"]"#),
                r#"example 0: the cascade maps "ab" to "b", not "bb""#,
            ),
            (
                bad(r#""cascade_len":1,"#, ""),
                "missing field `cascade_len`: give the number of rules of `cascade` (1)",
            ),
            (
                bad(r#""max_rule_len":1"#, r#""max_rule_len":1e8"#),
                "max_rule_len must be a whole number, not 100000000.0",
            ),
            (
                bad(r#""max_rules":2"#, r#""max_rules":-1"#),
                "max_rules must be a whole number, not -1",
            ),
            (
                bad(r#""cascade_len":1"#, r#""cascade_len":1.5"#),
                "cascade_len must be a whole number, not 1.5",
            ),
        ];
        for (line, needle) in cases {
            let e = parse_instance(&line, 0).unwrap_err().to_string();
            assert!(e.contains(needle), "{needle:?} not in {e:?}");
        }
        // The authors' format: too many programs is refused before their relations.
        let programs =
            serde_json::to_string(&vec!["replace('a', 'b')"; MAX_CASCADE_LEN + 1]).unwrap();
        let authors = format!(r#"{{"inputs": ["c"], "outputs": ["c"], "programs": {programs}}}"#);
        let e = parse_instance(&authors, 0).unwrap_err().to_string();
        assert!(
            e.contains("programs has 101 rules, more than the 100"),
            "{e}"
        );
        // Without a gold (real word lists) there is nothing to apply, and nothing is missing.
        let no_gold = bad(r#""cascade":[["a",""]],"cascade_len":1,"#, "");
        assert!(parse_instance(&no_gold, 0).is_ok());
    }

    /// A directory is refused when it is opened, by every reader of datasets (the statistics
    /// of `inspect` read on after a bad line, and used to loop on the directory's error).
    #[test]
    fn a_directory_is_no_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_dataset(dir.path()).unwrap_err();
        assert!(
            matches!(&e, DatasetError::Io { error, .. } if error.kind() == io::ErrorKind::IsADirectory),
            "{e}"
        );
        let name = dir.path().display().to_string();
        let e = crate::DatasetStats::of_file(dir.path(), &name, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{name}: is a directory, not a file; give a file")
        );
    }

    /// What the writer writes, the reader reads back as the same instances, and writing
    /// those again gives the same bytes: the published Lite file (read in the authors'
    /// format) and lines with every field of our own (held-out examples, interactions, no
    /// gold).
    #[test]
    fn written_datasets_read_back_to_the_same_bytes() {
        let authors = pbebench_testdata::path("adaptive_balanced_1008_complete.jsonl");
        let mut instances = read_dataset(authors).unwrap();
        instances.truncate(40);
        let own = [
            r#"{"id":"x-1","inputs":["ab","c"],"outputs":["c","c"],"cascade":[["ab","c"]],"cascade_len":1,"category":"0000","relations_mode":"exact","max_rules":5,"max_rule_len":3,"alphabet":"abc","heldout_inputs":["abab"],"heldout_outputs":["cc"],"interactions":[]}"#,
            r#"{"id":"m","inputs":["a"],"outputs":["b"],"cascade":null,"cascade_len":0,"category":null,"relations_mode":"paper","max_rules":2,"max_rule_len":1,"alphabet":"ab","heldout_inputs":[],"heldout_outputs":[],"interactions":[]}"#,
        ];
        instances.extend(own.iter().map(|l| parse_instance(l, 0).unwrap()));
        assert!(instances.iter().any(|i| !i.interactions.is_empty()));
        let text = dataset_text(&instances);
        assert!(
            text.ends_with(&format!("{}\n{}\n", own[0], own[1])),
            "{text}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = DatasetWriter::new(file);
        writer.write_all(&instances).unwrap();
        drop(writer.into_inner());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        let read = read_dataset(&path).unwrap();
        assert_eq!(read, instances);
        assert_eq!(dataset_text(&read), text);
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        let line = r#"{"id": "a", "inputs": ["a"], "outputs": ["b"], "max_rules": 2, "max_rule_len": 1, "alphabet": "ab"}"#;
        std::fs::write(&path, format!("\u{feff}{line}\n")).unwrap();
        assert_eq!(read_dataset(&path).unwrap()[0].id, "a");
    }

    #[test]
    fn bad_lines_say_why() {
        assert!(parse_instance("{", 0)
            .unwrap_err()
            .to_string()
            .contains("malformed JSON"));
        assert!(parse_instance("[1]", 0)
            .unwrap_err()
            .to_string()
            .contains("object"));
        let e = parse_instance(
            r#"{"inputs": [], "outputs": [], "programs": ["replace(z, x)"]}"#,
            0,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not of the form"), "{e}");
        assert!(parse_replace_call("replace('a','b')").is_ok());
        assert!(matches!(
            parse_replace_call("replace('a','b') + 1"),
            Err(ReplaceCallError::NotACall(text)) if text == "replace('a','b') + 1"
        ));
    }
}
