//! CLDF word lists: the format of Lexibank and most comparative data today. A Wordlist is
//! a set of CSV tables described by a JSON metadata file (CSVW): `forms.csv` (one form
//! per row: its language, its concept, its space-separated `Segments`), `cognates.csv`
//! (which form belongs to which cognate set) and `languages.csv`. Which column holds
//! what is read from the metadata's `tableSchema` (each column's `propertyUrl`, a CLDF
//! term), never guessed from a header.
//!
//! [`read_cldf_pairs`] pairs the forms of two languages, by cognate set (or by concept
//! when the dataset has no cognate judgements), writes each segment as one symbol
//! ([`Symbols`]) and cuts the pairs into instances as [`crate::read_word_lists`] does.

use crate::instance::Instance;
use crate::symbols::{SymbolError, Symbols};
use crate::wordlists::{word_list_instances, WordListError, WordListOptions};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The CLDF ontology's namespace: a column's `propertyUrl` is a term of it.
const TERMS: &str = "http://cldf.clld.org/v1.0/terms.rdf#";

/// The word boundary written at both ends of every word with [`CldfOptions::boundaries`].
pub const BOUNDARY: char = '#';

/// How the forms of two languages are paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Link {
    /// By cognate set when the dataset has a cognate table, else by concept.
    #[default]
    Auto,
    /// By cognate set (the dataset's `CognateTable`).
    Cognates,
    /// By concept (the forms' `parameterReference`).
    Concepts,
}

/// What to read from a CLDF Wordlist.
#[derive(Debug, Clone, PartialEq)]
pub struct CldfOptions {
    /// The language of the inputs (e.g. the proto-language): an ID of the language table,
    /// else a name or Glottocode it holds once.
    pub from: String,
    /// The language of the outputs (e.g. a daughter language), named as `from` is.
    pub to: String,
    /// How forms are paired.
    pub link: Link,
    /// Write `#` at both ends of every word, so that rules can name a word's edges.
    pub boundaries: bool,
    /// The prefix of the instance ids [default: `to`'s ID].
    pub name: Option<String>,
    /// Chunks and limits, as for word lists (`alphabet` `None`: every symbol of the pairs).
    pub words: WordListOptions,
}

/// A form of `from` or `to` that no pair holds, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpaired {
    /// Its language's ID.
    pub language: String,
    /// Its ID in the form table.
    pub form: String,
    /// Its line in the form table.
    pub line: u64,
    /// Its segments, space-separated (empty when it has none).
    pub segments: String,
    /// Why it is not paired.
    pub reason: UnpairedReason,
}

/// Why a form of `from` or `to` is in no pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnpairedReason {
    /// The form has no segments.
    NoSegments,
    /// The form is in no cognate set (pairing by cognate set), or has no concept.
    NoSet,
    /// No form of the other language is in its cognate set (or concept).
    NoCounterpart,
    /// Another form of its language in the same set was paired first (the first in the
    /// form table's order is).
    Extra,
}

impl UnpairedReason {
    /// The reason in a few words (the skip counts and `--unpaired` files say it).
    pub fn as_str(self) -> &'static str {
        match self {
            UnpairedReason::NoSegments => "no segments",
            UnpairedReason::NoSet => "no cognate set or concept",
            UnpairedReason::NoCounterpart => "no counterpart",
            UnpairedReason::Extra => "another form of its language in the set",
        }
    }
}

/// The pairs of two languages of a CLDF Wordlist, as instances.
#[derive(Debug, Clone, PartialEq)]
pub struct CldfPairs {
    /// The instances, in the order of `to`'s forms in the form table.
    pub instances: Vec<Instance>,
    /// How the forms were paired ([`Link::Cognates`] or [`Link::Concepts`]).
    pub link: Link,
    /// The language IDs `from` and `to` resolved to.
    pub languages: (String, String),
    /// The symbols of the segments of several characters (also in every instance).
    pub symbols: Symbols,
    /// Every form of the two languages in no pair, in the form table's order.
    pub unpaired: Vec<Unpaired>,
}

impl CldfPairs {
    /// Forms left out, by language and reason.
    pub fn skips(&self) -> BTreeMap<(String, UnpairedReason), usize> {
        let mut counts = BTreeMap::new();
        for u in &self.unpaired {
            *counts.entry((u.language.clone(), u.reason)).or_insert(0) += 1;
        }
        counts
    }
}

/// Why a CLDF dataset could not be read or paired. Every message names the file (and
/// line) and what to do.
#[derive(Debug, thiserror::Error)]
pub enum CldfError {
    /// A file could not be read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The metadata file does not describe what a Wordlist needs.
    #[error("{}: {message}", path.display())]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// A row of a table is wrong.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The table.
        path: PathBuf,
        /// Its 1-based line.
        line: u64,
        /// What is wrong and what to do.
        message: String,
    },
    /// `from` or `to` names no language of the dataset.
    #[error("{field}: no language '{name}' in {}: its languages are {known}", path.display())]
    UnknownLanguage {
        /// `from` or `to`.
        field: &'static str,
        /// The name given.
        name: String,
        /// The table searched (the language table, else the form table).
        path: PathBuf,
        /// The dataset's language IDs (the first ones).
        known: String,
    },
    /// `from` and `to` are the same language.
    #[error("from and to are both the language '{0}': give two languages")]
    SameLanguage(String),
    /// No form of `from` pairs with one of `to`.
    #[error("{}: no form of '{from}' shares a {by} with one of '{to}' ({skipped} forms of the two left out): check the languages, or pair by {other}", path.display())]
    NoPairs {
        /// The form table.
        path: PathBuf,
        /// The input language.
        from: String,
        /// The output language.
        to: String,
        /// `cognate set` or `concept`.
        by: &'static str,
        /// The other way of pairing.
        other: &'static str,
        /// Forms of the two languages in no pair.
        skipped: usize,
    },
    /// The segments cannot be written as symbols.
    #[error("{}: {error}", path.display())]
    Symbols {
        /// The form table.
        path: PathBuf,
        /// Why.
        error: SymbolError,
    },
    /// The pairs break a limit of an instance.
    #[error("{}: {error}", path.display())]
    Instances {
        /// The form table.
        path: PathBuf,
        /// Why.
        error: WordListError,
    },
}

/// One table of the metadata: where its file is, how it is written, and its columns.
struct Table {
    /// The CSV file, resolved against the metadata's directory.
    path: PathBuf,
    /// Its `url` as the metadata gives it.
    url: String,
    /// Columns: name, titles, propertyUrl term, separator.
    columns: Vec<Column>,
    delimiter: u8,
    quote: u8,
    double_quote: bool,
    header: bool,
}

struct Column {
    name: String,
    titles: Vec<String>,
    term: Option<String>,
    separator: Option<String>,
}

/// The rows of a table, each with its line, the cells of the asked-for columns in order.
struct Rows {
    path: PathBuf,
    rows: Vec<(u64, Vec<String>)>,
}

/// The languages a Wordlist knows, with the file that lists them: the rows (ID, and name
/// and Glottocode where the table has them) of its LanguageTable, or, without one, every
/// language ID of the form table.
fn known_languages(
    metadata: &Path,
    language_table: Option<&Table>,
    forms: &Rows,
) -> Result<(PathBuf, Vec<Vec<String>>), CldfError> {
    match language_table {
        Some(table) => {
            let columns = ["id", "name", "glottocode"];
            let optional = |c: &&str| *c == "id" || column_of(table, c).is_some();
            let present: Vec<&str> = columns.iter().copied().filter(optional).collect();
            let rows = read_rows(metadata, table, &present)?;
            let known: Vec<Vec<String>> = rows.rows.into_iter().map(|(_, cells)| cells).collect();
            Ok((table.path.clone(), known))
        }
        None => {
            let mut ids: Vec<String> = forms.rows.iter().map(|(_, c)| c[1].clone()).collect();
            ids.sort();
            ids.dedup();
            Ok((
                forms.path.clone(),
                ids.into_iter().map(|id| vec![id]).collect(),
            ))
        }
    }
}

/// Each form of the two languages `(from, to)` (its line, ID, language side, segments and,
/// pairing `by_concept`, its concept as its set), and the line of every form ID; a form ID
/// given twice is an error.
fn forms_of<'r>(
    forms: &'r Rows,
    forms_table: &Table,
    (from, to): (&str, &str),
    by_concept: bool,
) -> Result<(HashMap<&'r str, u64>, Vec<Form>), CldfError> {
    let mut ids: HashMap<&str, u64> = HashMap::new();
    let mut ours: Vec<Form> = Vec::new();
    for (line, cells) in &forms.rows {
        if let Some(first) = ids.insert(&cells[0], *line) {
            return Err(CldfError::Line {
                path: forms.path.clone(),
                line: *line,
                message: format!(
                    "the form ID '{}' is also on line {first}: give every form its own ID",
                    cells[0]
                ),
            });
        }
        let side = if cells[1] == from {
            Side::From
        } else if cells[1] == to {
            Side::To
        } else {
            continue;
        };
        ours.push(Form {
            line: *line,
            id: cells[0].clone(),
            side,
            segments: split_segments(&cells[2], separator(forms_table, "segments")),
            set: by_concept
                .then(|| cells[3].clone())
                .filter(|s| !s.is_empty()),
        });
    }
    Ok((ids, ours))
}

/// The pairs' words written one symbol per segment (between boundaries with
/// `options.boundaries`), as instances named after `options.name` or `to`, each holding the
/// symbol table.
fn encode_pairs(
    pairs: &[Pair<'_>],
    options: &CldfOptions,
    to: &str,
    path: &Path,
) -> Result<(Vec<Instance>, Symbols), CldfError> {
    let reserved: &[char] = if options.boundaries { &[BOUNDARY] } else { &[] };
    let segments = pairs
        .iter()
        .flat_map(|(i, o)| i.segments.iter().chain(&o.segments));
    let symbols =
        Symbols::for_segments(segments.map(String::as_str), reserved).map_err(|error| {
            CldfError::Symbols {
                path: path.to_path_buf(),
                error,
            }
        })?;
    let write = |form: &Form| {
        let word = symbols
            .encode(&form.segments)
            .expect("every segment of a pair has a symbol");
        if options.boundaries {
            format!("{BOUNDARY}{word}{BOUNDARY}")
        } else {
            word
        }
    };
    let inputs: Vec<String> = pairs.iter().map(|(i, _)| write(i)).collect();
    let outputs: Vec<String> = pairs.iter().map(|(_, o)| write(o)).collect();
    let name = options.name.clone().unwrap_or_else(|| to.to_owned());
    let mut instances =
        word_list_instances(&name, inputs, outputs, &options.words).map_err(|error| {
            CldfError::Instances {
                path: path.to_path_buf(),
                error,
            }
        })?;
    for inst in &mut instances {
        inst.symbols = symbols.clone();
    }
    Ok((instances, symbols))
}

/// The forms of `options.from` and `options.to` in the CLDF Wordlist described by
/// `metadata`, paired (see the module doc). Pairs keep the order of `to`'s forms in the
/// form table; each pair's `from` form is the first of its set in the form table.
pub fn read_cldf_pairs(metadata: &Path, options: &CldfOptions) -> Result<CldfPairs, CldfError> {
    let meta = read_metadata(metadata)?;
    let tables = tables(metadata, &meta)?;
    let component = |name: &str, default_url: &str| {
        tables.iter().position(|(conforms, t)| {
            conforms.as_deref() == Some(name) || (conforms.is_none() && t.url == default_url)
        })
    };
    let Some(form_table) = component("FormTable", "forms.csv") else {
        return Err(CldfError::Metadata {
            path: metadata.to_path_buf(),
            message: "no FormTable: a Wordlist's metadata describes its forms table (\"dc:conformsTo\": \"http://cldf.clld.org/v1.0/terms.rdf#FormTable\")".into(),
        });
    };
    let forms_table = &tables[form_table].1;
    let link = match (options.link, component("CognateTable", "cognates.csv")) {
        (Link::Cognates, None) => {
            return Err(CldfError::Metadata {
                path: metadata.to_path_buf(),
                message: "no CognateTable: this dataset has no cognate judgements; pair by concept"
                    .into(),
            })
        }
        (Link::Cognates, Some(c)) | (Link::Auto, Some(c)) => Some(c),
        (Link::Concepts, _) | (Link::Auto, None) => None,
    };
    let mut wanted = vec!["id", "languageReference", "segments"];
    if link.is_none() {
        wanted.push("parameterReference");
    }
    let forms = read_rows(metadata, forms_table, &wanted)?;
    let language_table = component("LanguageTable", "languages.csv").map(|l| &tables[l].1);
    let languages = known_languages(metadata, language_table, &forms)?;
    let from = resolve_language("from", &options.from, &languages)?;
    let to = resolve_language("to", &options.to, &languages)?;
    if from == to {
        return Err(CldfError::SameLanguage(from));
    }
    let (ids, mut ours) = forms_of(&forms, forms_table, (&from, &to), link.is_none())?;
    if let Some(c) = link {
        let table = &tables[c].1;
        let judgements = read_rows(metadata, table, &["formReference", "cognatesetReference"])?;
        assign_sets(&mut ours, &judgements, &ids, &forms.path)?;
    }
    let (pairs, unpaired) = pair(&ours);
    if pairs.is_empty() {
        let by = if link.is_some() {
            "cognate set"
        } else {
            "concept"
        };
        let other = if link.is_some() {
            "concept"
        } else {
            "cognate set"
        };
        return Err(CldfError::NoPairs {
            path: forms.path.clone(),
            from,
            to,
            by,
            other,
            skipped: unpaired.len(),
        });
    }
    let (instances, symbols) = encode_pairs(&pairs, options, &to, &forms.path)?;
    let unpaired = unpaired
        .into_iter()
        .map(|(form, reason)| Unpaired {
            language: if form.side == Side::From { &from } else { &to }.clone(),
            form: form.id.clone(),
            line: form.line,
            segments: form.segments.join(" "),
            reason,
        })
        .collect();
    Ok(CldfPairs {
        instances,
        link: if link.is_some() {
            Link::Cognates
        } else {
            Link::Concepts
        },
        languages: (from, to),
        symbols,
        unpaired,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    From,
    To,
}

/// A form of `from` and its counterpart of `to`.
type Pair<'a> = (&'a Form, &'a Form);

/// A form of one of the two languages.
struct Form {
    line: u64,
    id: String,
    side: Side,
    segments: Vec<String>,
    /// Its cognate set, or its concept.
    set: Option<String>,
}

/// The segments of a cell: split at `separator`, empty pieces dropped (two spaces in a
/// row, a space at an end).
fn split_segments(cell: &str, separator: &str) -> Vec<String> {
    cell.split(separator)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Gives each form its cognate set from the judgements; a form of the two languages in
/// two sets is an error (which would it pair with?), a judgement of an unknown form too.
fn assign_sets(
    ours: &mut [Form],
    judgements: &Rows,
    ids: &HashMap<&str, u64>,
    forms_path: &Path,
) -> Result<(), CldfError> {
    let index: HashMap<String, usize> = (ours.iter().enumerate())
        .map(|(k, f)| (f.id.clone(), k))
        .collect();
    let mut judged_on: HashMap<usize, u64> = HashMap::new();
    for (line, cells) in &judgements.rows {
        let (form, set) = (&cells[0], &cells[1]);
        if !ids.contains_key(form.as_str()) {
            return Err(CldfError::Line {
                path: judgements.path.clone(),
                line: *line,
                message: format!(
                    "the form '{form}' is not in {}: judge forms the form table holds, or remove this row",
                    forms_path.display()
                ),
            });
        }
        let Some(&k) = index.get(form) else {
            continue;
        };
        if set.is_empty() {
            continue;
        }
        match &ours[k].set {
            Some(first) if first != set => {
                return Err(CldfError::Line {
                    path: judgements.path.clone(),
                    line: *line,
                    message: format!(
                        "the form '{form}' is in the cognate set '{set}' here and in '{first}' on line {}: keep one judgement per form, or pair by concept",
                        judged_on[&k]
                    ),
                });
            }
            Some(_) => {}
            None => {
                ours[k].set = Some(set.clone());
                judged_on.insert(k, *line);
            }
        }
    }
    Ok(())
}

/// Pairs in the order of `to`'s forms, each with the first `from` form of its set; every
/// other form of the two languages with why it is in no pair.
fn pair(ours: &[Form]) -> (Vec<Pair<'_>>, Vec<(&Form, UnpairedReason)>) {
    let usable = |f: &Form| !f.segments.is_empty() && f.set.is_some();
    let mut first_from: HashMap<&str, usize> = HashMap::new();
    let mut first_to: HashMap<&str, usize> = HashMap::new();
    for (k, f) in ours.iter().enumerate().filter(|(_, f)| usable(f)) {
        let set = f.set.as_deref().unwrap_or_default();
        let firsts = if f.side == Side::From {
            &mut first_from
        } else {
            &mut first_to
        };
        firsts.entry(set).or_insert(k);
    }
    let mut pairs = Vec::new();
    let mut unpaired = Vec::new();
    for (k, f) in ours.iter().enumerate() {
        let reason = if f.segments.is_empty() {
            Some(UnpairedReason::NoSegments)
        } else if f.set.is_none() {
            Some(UnpairedReason::NoSet)
        } else {
            let set = f.set.as_deref().unwrap_or_default();
            let (mine, theirs) = match f.side {
                Side::From => (&first_from, &first_to),
                Side::To => (&first_to, &first_from),
            };
            if mine.get(set) != Some(&k) {
                Some(UnpairedReason::Extra)
            } else if let Some(&other) = theirs.get(set) {
                if f.side == Side::To {
                    pairs.push((&ours[other], f));
                }
                None
            } else {
                Some(UnpairedReason::NoCounterpart)
            }
        };
        if let Some(reason) = reason {
            unpaired.push((f, reason));
        }
    }
    (pairs, unpaired)
}

/// The language ID `name` stands for: an ID of the table, else the one language with that
/// name or Glottocode. `languages`: the table and its rows (ID first, then name and
/// Glottocode when the table has them).
fn resolve_language(
    field: &'static str,
    name: &str,
    (path, rows): &(PathBuf, Vec<Vec<String>>),
) -> Result<String, CldfError> {
    if let Some(row) = rows.iter().find(|r| r[0] == name) {
        return Ok(row[0].clone());
    }
    let by_other: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r[1..].iter().any(|c| c == name))
        .collect();
    if let [row] = by_other.as_slice() {
        return Ok(row[0].clone());
    }
    const SHOWN: usize = 20;
    let mut known: Vec<&str> = rows.iter().map(|r| r[0].as_str()).take(SHOWN).collect();
    if rows.len() > SHOWN {
        known.push("…");
    }
    Err(CldfError::UnknownLanguage {
        field,
        name: name.to_owned(),
        path: path.clone(),
        known: if known.is_empty() {
            "none".to_owned()
        } else {
            known.join(", ")
        },
    })
}

fn read_metadata(path: &Path) -> Result<Value, CldfError> {
    let text = pbebench_io::read_input_string(path).map_err(|error| CldfError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    serde_json::from_str(&text).map_err(|e| CldfError::Metadata {
        path: path.to_path_buf(),
        message: format!(
            "not JSON ({e}): give the dataset's metadata file (e.g. Wordlist-metadata.json)"
        ),
    })
}

/// The tables of the metadata, each with the CLDF component it conforms to (`FormTable`…).
fn tables(metadata: &Path, meta: &Value) -> Result<Vec<(Option<String>, Table)>, CldfError> {
    let bad = |message: String| CldfError::Metadata {
        path: metadata.to_path_buf(),
        message,
    };
    let Some(list) = meta.get("tables").and_then(Value::as_array) else {
        return Err(bad(
            "no \"tables\" list: give the metadata file of a CLDF Wordlist".into(),
        ));
    };
    let base = metadata.parent().unwrap_or(Path::new(""));
    let top_dialect = meta.get("dialect");
    let mut out = Vec::new();
    for (k, t) in list.iter().enumerate() {
        let Some(url) = t.get("url").and_then(Value::as_str) else {
            return Err(bad(format!(
                "tables[{k}] has no \"url\": name its CSV file"
            )));
        };
        let conforms = t
            .get("dc:conformsTo")
            .and_then(Value::as_str)
            .and_then(|c| c.strip_prefix(TERMS))
            .map(str::to_owned);
        let schema = t.get("tableSchema");
        let Some(columns) = schema
            .and_then(|s| s.get("columns"))
            .and_then(Value::as_array)
        else {
            return Err(bad(format!(
                "table {url} has no tableSchema.columns: describe its columns in the metadata"
            )));
        };
        let mut cols = Vec::new();
        for (c, col) in columns.iter().enumerate() {
            if col.get("virtual").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let name = col.get("name").and_then(Value::as_str);
            let titles: Vec<String> = match col.get("titles") {
                Some(Value::String(s)) => vec![s.clone()],
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                Some(Value::Object(o)) => o
                    .values()
                    .flat_map(|v| match v {
                        Value::String(s) => vec![s.clone()],
                        Value::Array(a) => a
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect(),
                        _ => Vec::new(),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let Some(name) = name.map(str::to_owned).or_else(|| titles.first().cloned()) else {
                return Err(bad(format!(
                    "table {url}: columns[{c}] has neither \"name\" nor \"titles\""
                )));
            };
            let term = col
                .get("propertyUrl")
                .and_then(Value::as_str)
                .and_then(|p| {
                    p.strip_prefix(TERMS)
                        .or_else(|| p.strip_prefix("cldf:"))
                        .map(str::to_owned)
                });
            let separator = col
                .get("separator")
                .and_then(Value::as_str)
                .map(str::to_owned);
            cols.push(Column {
                name,
                titles,
                term,
                separator,
            });
        }
        let dialect = t.get("dialect").or(top_dialect);
        let get = |key: &str| dialect.and_then(|d| d.get(key));
        let one_byte = |key: &str, default: u8| -> Result<u8, CldfError> {
            match get(key).and_then(Value::as_str) {
                None => Ok(default),
                Some(s) if s.len() == 1 => Ok(s.as_bytes()[0]),
                Some(s) => Err(bad(format!("table {url}: dialect {key} {s:?} is not one ASCII character, which is all this reader takes"))),
            }
        };
        if let Some(encoding) = get("encoding").and_then(Value::as_str) {
            if !encoding.eq_ignore_ascii_case("utf-8") {
                return Err(bad(format!("table {url}: the encoding is {encoding}: convert the file to UTF-8 and say so in the dialect")));
            }
        }
        out.push((
            conforms,
            Table {
                path: base.join(url),
                url: url.to_owned(),
                columns: cols,
                delimiter: one_byte("delimiter", b',')?,
                quote: one_byte("quoteChar", b'"')?,
                double_quote: get("doubleQuote").and_then(Value::as_bool).unwrap_or(true),
                header: get("header").and_then(Value::as_bool).unwrap_or(true),
            },
        ));
    }
    Ok(out)
}

/// The column of `table` whose `propertyUrl` is the CLDF term `term`.
fn column_of<'t>(table: &'t Table, term: &str) -> Option<(usize, &'t Column)> {
    (table.columns.iter().enumerate()).find(|(_, c)| c.term.as_deref() == Some(term))
}

/// The separator of the column `term` (a space when the metadata gives none, as CLDF
/// defines `Segments`).
fn separator<'t>(table: &'t Table, term: &str) -> &'t str {
    column_of(table, term)
        .and_then(|(_, c)| c.separator.as_deref())
        .unwrap_or(" ")
}

/// The rows of `table`, each with the cells of the columns whose terms are `terms`, in
/// that order. A column the metadata does not describe, or the file does not hold, is an
/// error naming the fix.
fn read_rows(metadata: &Path, table: &Table, terms: &[&str]) -> Result<Rows, CldfError> {
    let mut wanted: Vec<&Column> = Vec::new();
    for term in terms {
        let Some((_, column)) = column_of(table, term) else {
            return Err(CldfError::Metadata {
                path: metadata.to_path_buf(),
                message: format!(
                    "table {}: no column has the propertyUrl {TERMS}{term}: add that column to the table and its tableSchema",
                    table.url
                ),
            });
        };
        wanted.push(column);
    }
    // Through the one opening path of every reader (a directory refused, a byte-order
    // mark skipped); bytes that are not UTF-8 are found per row below, with their line.
    let bytes = pbebench_io::read_input(&table.path).map_err(|error| CldfError::Io {
        path: table.path.clone(),
        error,
    })?;
    let text = bytes.as_slice();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(table.delimiter)
        .quote(table.quote)
        .double_quote(table.double_quote)
        .flexible(true)
        .from_reader(text);
    let line_error = |line: u64, message: String| CldfError::Line {
        path: table.path.clone(),
        line,
        message,
    };
    let mut lines = Lines::default();
    let mut records = reader.records();
    let mut positions: Vec<usize> = Vec::new();
    if table.header {
        let header = match records.next() {
            None => {
                return Err(line_error(
                    1,
                    "the file is empty: its first line names the columns".into(),
                ))
            }
            Some(Err(e)) => return Err(csv_error(&table.path, text, e)),
            Some(Ok(header)) => header,
        };
        for column in &wanted {
            let found = header.iter().position(|cell| {
                cell.trim() == column.name || column.titles.iter().any(|t| t == cell.trim())
            });
            match found {
                Some(p) => positions.push(p),
                None => {
                    return Err(line_error(
                        1,
                        format!(
                            "no column '{}' (the metadata's column for {}): add it to the file, or fix its name in the metadata",
                            column.name,
                            column.term.as_deref().unwrap_or_default()
                        ),
                    ))
                }
            }
        }
    } else {
        for column in &wanted {
            let p = table.columns.iter().position(|c| std::ptr::eq(c, *column));
            positions.push(p.unwrap_or_default());
        }
    }
    let mut rows = Vec::new();
    for record in records {
        let record = record.map_err(|e| csv_error(&table.path, text, e))?;
        let line = lines.at(text, record.position().map_or(0, |p| p.byte()));
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let mut cells = Vec::with_capacity(positions.len());
        for (&p, column) in positions.iter().zip(&wanted) {
            let Some(cell) = record.get(p) else {
                return Err(line_error(
                    line,
                    format!(
                        "{} cells, but the column '{}' is number {}: give every row a cell for every column",
                        record.len(),
                        column.name,
                        p + 1
                    ),
                ));
            };
            cells.push(cell.to_owned());
        }
        rows.push((line, cells));
    }
    Ok(Rows {
        path: table.path.clone(),
        rows,
    })
}

/// Line numbers from byte offsets: the csv crate's own line count is one short after
/// every `\r\n` (BurntSushi/rust-csv#395), and pycldf writes `\r\n`. The offset it gives
/// of a record after a `\r\n` is that of the `\n`, which is counted with the line it ends.
#[derive(Default)]
struct Lines {
    byte: usize,
    line: u64,
}

impl Lines {
    /// The 1-based line of the byte at `offset` of `text`; offsets are asked in order.
    fn at(&mut self, text: &[u8], offset: u64) -> u64 {
        let mut offset = (offset as usize).min(text.len());
        if text.get(offset) == Some(&b'\n') {
            offset += 1;
        }
        if offset < self.byte {
            *self = Lines::default();
        }
        self.line += memchr::memchr_iter(b'\n', &text[self.byte..offset]).count() as u64;
        self.byte = offset;
        self.line + 1
    }
}

/// A CSV error as a line error (at the csv crate's position, else line 0).
fn csv_error(path: &Path, text: &[u8], error: csv::Error) -> CldfError {
    let line = error
        .position()
        .map_or(0, |p| Lines::default().at(text, p.byte()));
    let message = match error.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8: convert the file to UTF-8".to_owned(),
        csv::ErrorKind::Io(e) => e.to_string(),
        _ => format!("{error}: fix the quoting of this row"),
    };
    CldfError::Line {
        path: path.to_path_buf(),
        line,
        message,
    }
}

#[cfg(test)]
#[path = "cldf_tests.rs"]
mod tests;
