//! Real data: parallel word lists (proto-forms and their attested reflexes, one word per
//! line, as in the authors' `real_sli/<language>/words.in` and `words.out`) read as
//! instances without a gold cascade, which every command then solves, prompts and scores.
//!
//! The authors split each language's list in order into prompts of at most 50 words, with
//! rules of at most 5 characters a side and at most 50 rules; those are the defaults here.

use crate::dataset::DatasetError;
use crate::instance::Instance;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// How word lists become instances.
#[derive(Debug, Clone, PartialEq)]
pub struct WordListOptions {
    /// Words per instance, in file order (the last instance takes the rest); 0 puts the
    /// whole list in one instance.
    pub chunk: usize,
    /// The most rules a solution may use.
    pub max_rules: usize,
    /// The longest side a rule may have, in characters.
    pub max_rule_len: usize,
    /// The letters rules may use; `None`: every letter of the language's two lists.
    pub alphabet: Option<String>,
}

impl Default for WordListOptions {
    /// The authors' setting for their real sound-change prompts.
    fn default() -> Self {
        WordListOptions {
            chunk: 50,
            max_rules: 50,
            max_rule_len: 5,
            alphabet: None,
        }
    }
}

/// The instances of one language: `inputs` and `outputs` are the two files, paired line by
/// line. Their ids are `NAME-K` (`NAME` alone with `chunk` 0).
pub fn read_word_lists(
    name: &str,
    inputs: &Path,
    outputs: &Path,
    options: &WordListOptions,
) -> Result<Vec<Instance>, DatasetError> {
    let read = |path: &Path| -> Result<Vec<String>, DatasetError> {
        let text = pbebench_io::read_input_string(path).map_err(|error| DatasetError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        words(&text).map_err(|(line, message)| DatasetError::Line {
            path: path.to_path_buf(),
            line,
            message,
        })
    };
    let (ins, outs) = (read(inputs)?, read(outputs)?);
    if ins.len() != outs.len() {
        return Err(DatasetError::Line {
            path: outputs.to_path_buf(),
            line: ins.len().min(outs.len()) + 1,
            message: format!(
                "{} has {} words but this file has {}: the lists pair line by line",
                inputs.display(),
                ins.len(),
                outs.len()
            ),
        });
    }
    let chunk = chunk_size(options, ins.len());
    let made = instances(name, ins, outs, options);
    // The one check of every instance read ([`Instance::problems`]), placed at the
    // instance's first word.
    if let Some((k, inst, problems)) = first_unsound(&made) {
        return Err(DatasetError::Line {
            path: inputs.to_path_buf(),
            line: k * chunk + 1,
            message: format!(
                "instance '{}' (its words from this line): {problems}",
                inst.id
            ),
        });
    }
    Ok(made)
}

/// The first instance with a problem, its index and its problems joined.
fn first_unsound(instances: &[Instance]) -> Option<(usize, &Instance, String)> {
    instances.iter().enumerate().find_map(|(k, inst)| {
        let problems = inst.problems();
        (!problems.is_empty()).then(|| (k, inst, problems.join("; ")))
    })
}

/// Words per instance: `options.chunk`, or all of them when it is 0.
fn chunk_size(options: &WordListOptions, words: usize) -> usize {
    if options.chunk == 0 {
        words.max(1)
    } else {
        options.chunk
    }
}

/// Why word lists given in memory make no instances.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WordListError {
    /// The lists are empty.
    #[error("no words: the lists are empty")]
    NoWords,
    /// The lists have different lengths.
    #[error("{inputs} inputs but {outputs} outputs: the lists pair word by word")]
    Unpaired {
        /// Words of the inputs.
        inputs: usize,
        /// Words of the outputs.
        outputs: usize,
    },
    /// A word without a letter.
    #[error("{side}[{index}] is empty: every word needs a letter")]
    EmptyWord {
        /// `inputs` or `outputs`.
        side: &'static str,
        /// Its 0-based position.
        index: usize,
    },
    /// `max_rules` or `max_rule_len` is 0.
    #[error("max_rules and max_rule_len must be at least 1")]
    ZeroLimit,
    /// An alphabet given as an empty string.
    #[error("alphabet: give the letters rules may use, or none")]
    EmptyAlphabet,
    /// An instance made that breaks a limit of [`crate::dataset`] (too many words in one,
    /// a word too long, a cap too large) or has a repeated letter in its alphabet.
    #[error("instance '{id}': {problems}")]
    Unsound {
        /// The instance's id.
        id: String,
        /// What [`Instance::problems`] found, joined.
        problems: String,
    },
}

/// The instances of word lists given in memory, paired in order (see [`read_word_lists`]);
/// `Err` names what is wrong.
pub fn word_list_instances(
    name: &str,
    inputs: Vec<String>,
    outputs: Vec<String>,
    options: &WordListOptions,
) -> Result<Vec<Instance>, WordListError> {
    if inputs.is_empty() {
        return Err(WordListError::NoWords);
    }
    if inputs.len() != outputs.len() {
        return Err(WordListError::Unpaired {
            inputs: inputs.len(),
            outputs: outputs.len(),
        });
    }
    for (side, words) in [("inputs", &inputs), ("outputs", &outputs)] {
        if let Some(index) = words.iter().position(|w| w.trim().is_empty()) {
            return Err(WordListError::EmptyWord { side, index });
        }
    }
    if options.max_rules == 0 || options.max_rule_len == 0 {
        return Err(WordListError::ZeroLimit);
    }
    if options.alphabet.as_deref() == Some("") {
        return Err(WordListError::EmptyAlphabet);
    }
    let made = instances(name, inputs, outputs, options);
    if let Some((_, inst, problems)) = first_unsound(&made) {
        return Err(WordListError::Unsound {
            id: inst.id.clone(),
            problems,
        });
    }
    Ok(made)
}

/// One language's word lists, as [`read_word_lists`] takes them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LanguagePair {
    /// Its name: the prefix of its instances' ids.
    pub name: String,
    /// The inputs (e.g. proto-forms), one word per line.
    pub inputs: PathBuf,
    /// The outputs (e.g. attested reflexes), paired line by line with the inputs.
    pub outputs: PathBuf,
}

/// The language pairs of a directory laid out as the authors' `real_sli`: every
/// subdirectory holding `words.in` or `words.out`, in name order, named after it. `None`
/// when there is none.
pub fn language_pairs(dir: &Path) -> Result<Option<Vec<LanguagePair>>, DatasetError> {
    let io = |error| DatasetError::Io {
        path: dir.to_path_buf(),
        error,
    };
    let mut languages = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let (ins, outs) = (path.join("words.in"), path.join("words.out"));
        if ins.is_file() || outs.is_file() {
            // Named as the directory is, links resolved.
            let real = path.canonicalize().unwrap_or_else(|_| path.clone());
            let name = real
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            languages.push(LanguagePair {
                name,
                inputs: ins,
                outputs: outs,
            });
        }
    }
    languages.sort();
    Ok((!languages.is_empty()).then_some(languages))
}

/// The words of a list, one per line: a final line end is optional, `\r\n` is read as a
/// line end; an empty line is an error (line number, message).
fn words(text: &str) -> Result<Vec<String>, (usize, String)> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Err((1, "no words: the list is empty".to_owned()));
    }
    text.split('\n')
        .enumerate()
        .map(|(k, line)| {
            let word = line.strip_suffix('\r').unwrap_or(line);
            if word.trim().is_empty() {
                Err((k + 1, "an empty line: one word per line".to_owned()))
            } else {
                Ok(word.to_owned())
            }
        })
        .collect()
}

/// The instances of paired lists (see [`read_word_lists`]).
fn instances(
    name: &str,
    inputs: Vec<String>,
    outputs: Vec<String>,
    options: &WordListOptions,
) -> Vec<Instance> {
    let alphabet = options.alphabet.clone().unwrap_or_else(|| {
        let letters: BTreeSet<char> = inputs
            .iter()
            .chain(&outputs)
            .flat_map(|w| w.chars())
            .collect();
        letters.into_iter().collect()
    });
    let size = chunk_size(options, inputs.len());
    let pieces = inputs.chunks(size).zip(outputs.chunks(size));
    pieces
        .enumerate()
        .map(|(k, (ins, outs))| Instance {
            id: if options.chunk == 0 {
                name.to_owned()
            } else {
                format!("{name}-{k}")
            },
            inputs: ins.to_vec(),
            outputs: outs.to_vec(),
            cascade: None,
            cascade_len: 0,
            category: None,
            relations_mode: Default::default(),
            max_rules: options.max_rules,
            max_rule_len: options.max_rule_len,
            alphabet: alphabet.clone(),
            heldout_inputs: Vec::new(),
            heldout_outputs: Vec::new(),
            interactions: Vec::new(),
            symbols: Default::default(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Word lists go through the check of every instance read: a repeated letter in the
    /// alphabet, a cap past its limit or too many words in one instance are refused.
    #[test]
    fn word_lists_are_checked_as_every_instance() {
        let words = || vec!["ab".to_owned(), "ba".to_owned()];
        let refused = |options: WordListOptions, needle: &str| {
            let e = word_list_instances("x", words(), words(), &options).unwrap_err();
            assert!(e.to_string().contains(needle), "{needle:?} not in {e}");
        };
        let alphabet = Some("aab".to_owned());
        refused(
            WordListOptions {
                alphabet,
                ..Default::default()
            },
            "alphabet repeats the letter 'a'",
        );
        let max_rule_len = crate::dataset::MAX_RULE_LEN_LIMIT + 1;
        refused(
            WordListOptions {
                max_rule_len,
                ..Default::default()
            },
            "max_rule_len is 33",
        );
        let many = vec!["a".to_owned(); crate::dataset::MAX_EXAMPLES + 1];
        let options = WordListOptions {
            chunk: 0,
            ..Default::default()
        };
        let e = word_list_instances("x", many.clone(), many, &options).unwrap_err();
        assert!(e.to_string().contains("inputs has 10001 strings"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let (ins, outs) = (dir.path().join("in"), dir.path().join("out"));
        std::fs::write(&ins, "ab\nba\nab\n").unwrap();
        std::fs::write(&outs, format!("ab\nba\n{}\n", "a".repeat(1001))).unwrap();
        let options = WordListOptions {
            chunk: 2,
            ..Default::default()
        };
        let e = read_word_lists("x", &ins, &outs, &options)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("in:3: instance 'x-1' (its words from this line): outputs[0] is 1001 characters long, more than the 1000 a string of an instance may have"), "{e}");
    }

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn lists_pair_line_by_line_in_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let ins = write(dir.path(), "words.in", "matuʔa\r\nloa\nsusu\nfea\nfale");
        let outs = write(dir.path(), "words.out", "maːkua\r\nloa\nuː\nhea\nhale\n");
        let options = WordListOptions {
            chunk: 2,
            ..WordListOptions::default()
        };
        let got = read_word_lists("atr_x", &ins, &outs, &options).unwrap();
        let ids: Vec<&str> = got.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["atr_x-0", "atr_x-1", "atr_x-2"]);
        assert_eq!(got[0].inputs, ["matuʔa", "loa"]);
        assert_eq!(got[0].outputs, ["maːkua", "loa"]);
        assert_eq!(got[2].inputs, ["fale"]);
        assert_eq!(got[2].outputs, ["hale"]);
        assert_eq!((got[0].max_rules, got[0].max_rule_len), (50, 5));
        assert_eq!(got[0].alphabet, "aefhklmostuʔː");
        assert!(got
            .iter()
            .all(|i| i.cascade.is_none() && i.problems().is_empty()));
        let whole = WordListOptions {
            chunk: 0,
            alphabet: Some("xyz".into()),
            ..WordListOptions::default()
        };
        let one = read_word_lists("atr_x", &ins, &outs, &whole).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!((one[0].id.as_str(), one[0].inputs.len()), ("atr_x", 5));
        assert_eq!(one[0].alphabet, "xyz");
    }

    #[test]
    fn lists_in_memory_are_checked() {
        let options = WordListOptions::default();
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let ok = word_list_instances("x", words(&["ab", "c"]), words(&["b", "cc"]), &options);
        assert_eq!(ok.unwrap()[0].outputs, ["b", "cc"]);
        let err = |i: &[&str], o: &[&str]| {
            word_list_instances("x", words(i), words(o), &options)
                .unwrap_err()
                .to_string()
        };
        assert!(err(&["a"], &["b", "c"]).contains("1 inputs but 2 outputs"));
        assert!(err(&["a", " "], &["b", "c"]).contains("inputs[1] is empty"));
        assert!(err(&[], &[]).contains("no words"));
        let zero = WordListOptions {
            max_rules: 0,
            ..WordListOptions::default()
        };
        let e = word_list_instances("x", words(&["a"]), words(&["b"]), &zero).unwrap_err();
        assert!(e.to_string().contains("must be at least 1"), "{e}");
    }

    /// A byte-order mark (which some editors write) is no part of the first word.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let ins = write(dir.path(), "words.in", "\u{feff}matuʔa\nloa\n");
        let outs = write(dir.path(), "words.out", "\u{feff}maːkua\nloa\n");
        let got = read_word_lists("x", &ins, &outs, &WordListOptions::default()).unwrap();
        assert_eq!(got[0].inputs, ["matuʔa", "loa"]);
        assert_eq!(got[0].outputs, ["maːkua", "loa"]);
        assert!(!got[0].alphabet.contains('\u{feff}'), "{}", got[0].alphabet);
    }

    #[test]
    fn bad_lists_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let ins = write(dir.path(), "words.in", "a\nb\nc\n");
        let short = write(dir.path(), "short.out", "a\nb\n");
        let gap = write(dir.path(), "gap.out", "a\n\nc\n");
        let empty = write(dir.path(), "empty.out", "");
        let options = WordListOptions::default();
        let err = |outs: &Path| {
            read_word_lists("x", &ins, outs, &options)
                .unwrap_err()
                .to_string()
        };
        let e = err(&short);
        assert!(
            e.contains("short.out:3:") && e.contains("has 3 words but this file has 2"),
            "{e}"
        );
        assert!(
            err(&gap).contains("gap.out:2: an empty line"),
            "{}",
            err(&gap)
        );
        assert!(
            err(&empty).contains("empty.out:1: no words"),
            "{}",
            err(&empty)
        );
        let missing = dir.path().join("none.out");
        assert!(err(&missing).contains("none.out"), "{}", err(&missing));
    }
}
