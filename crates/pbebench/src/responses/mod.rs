//! The responses file (JSONL): what a solver or a model answered, one line per instance or
//! per sample. The one home of the format: its records ([`ResponseRecord`], grouped into
//! [`Responses`]), the [`reader`](read_responses) of every spelling scoring accepts
//! (ours and the authors' result records), and the [`writer`](ResponseLine) that `pbebench
//! solve`, the demo and any other producer write through.
//!
//! Accepted lines: `{"id", "response"}`, `{"id", "sample", "response"}`,
//! `{"id", "responses": […]}`, and the authors' result record
//! `{"input": {…, "index": N | "N_j"}, "outputs": […]}`. A response is a string, `null`
//! (empty: no answer), or a message object with `content` (or `text`); thinking fields
//! (`reasoning_content`, `chains_of_thought`) are never read. The writer writes the first
//! form, `{"id": "…", "response": "…"}`.

mod collect;
mod reader;
mod writer;

pub(crate) use collect::{Locator, ResponseCollector};
pub use reader::{parse_response_line, read_responses, read_responses_with};
pub use writer::ResponseLine;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;

/// A countable problem of a responses file, located by its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineIssue {
    /// 1-based line in the responses file.
    pub line: usize,
    /// The id (or authors' index) the line names.
    pub id: String,
    /// What is wrong, e.g. "duplicate of line 3".
    pub message: String,
}

/// The responses of a file, grouped by instance id, with the countable problems found.
/// Each response is its text, or what the caller of [`read_responses_with`] made of it
/// (scoring keeps only what it reads of each, [`crate::ResponseReading`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Responses<T = String> {
    /// The file read (empty for in-memory input).
    pub path: PathBuf,
    /// Responses per instance id, in sample order.
    pub by_id: HashMap<String, Vec<T>>,
    /// Lines naming an id absent from the dataset (ignored).
    pub unknown: Vec<LineIssue>,
    /// Lines repeating an id or (id, sample) already given (ignored; the first wins).
    pub duplicates: Vec<LineIssue>,
}

/// A fatal problem reading a responses file.
#[derive(Debug, thiserror::Error)]
pub enum ResponsesError {
    /// Not one line of the file is for an instance of the dataset: the responses are to
    /// another dataset (or the dataset is another one).
    #[error("{path}: none of its {lines} response line(s) is for an instance of the dataset (line {first_line}: {first}): are these responses to another dataset?")]
    NoneMatch {
        /// The file.
        path: PathBuf,
        /// Its response lines (all unknown).
        lines: usize,
        /// The first of them.
        first_line: usize,
        /// What is wrong with it.
        first: String,
    },
    /// The file holds no response line at all (it is empty, or blank): scoring it would
    /// give a table of zeros that looks like a result.
    #[error("{path}: holds no response line; give the file the solver wrote its responses to (an interrupted `pbebench solve` writes them only at the end)")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// A line is not a response record.
    #[error("{path}:{line}: {error}")]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        error: LineError,
    },
}

/// Why one line is not a response record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The bytes are not UTF-8.
    #[error("not valid UTF-8 (byte {byte} of the line)")]
    NotUtf8 {
        /// 1-based byte of the line where the first invalid sequence starts.
        byte: usize,
    },
    /// The text is not JSON.
    #[error("malformed JSON at column {column}: {what}")]
    MalformedJson {
        /// 1-based column of the problem.
        column: usize,
        /// What the JSON reader said.
        what: String,
    },
    /// The line is JSON but not an object.
    #[error("a line must hold a JSON object")]
    NotAnObject,
    /// Neither `id` nor the authors' `input` names the instance.
    #[error("a response line needs an 'id' (or the authors' 'input' with an 'index')")]
    NoInstance,
    /// `id` is neither a string nor a number.
    #[error("'id' must be a string or a number")]
    BadId,
    /// `sample` is not a non-negative integer.
    #[error("'sample' must be a non-negative integer")]
    BadSample,
    /// A line with `sample` holds no single `response`.
    #[error("a line with 'sample' must hold one 'response'")]
    SampleOfSeveral,
    /// `responses` is not a list.
    #[error("'responses' must be a list")]
    ResponsesNotAList,
    /// Both `response` and `responses` are given.
    #[error("give either 'response' or 'responses', not both")]
    ResponseAndResponses,
    /// Neither `response` nor `responses` is given.
    #[error("missing 'response' (or 'responses')")]
    NoResponse,
    /// A response is of a kind no producer writes.
    #[error("a response must be a string, null or an object with 'content'")]
    BadResponse,
    /// A message object has no string `content` (or `text`).
    #[error("a response object needs a string 'content'")]
    BadMessage,
    /// The authors' `input` names no instance.
    #[error("the authors' 'input' needs an 'index' (or an 'id')")]
    NoAuthorsIndex,
    /// The authors' numeric `index` is negative or fractional.
    #[error("'index' must be a non-negative integer")]
    BadAuthorsIndex,
    /// The authors' string `index` is neither `N` nor `N_j`.
    #[error("'index' {0:?} is neither N nor N_j")]
    BadAuthorsIndexText(String),
    /// The authors' record has no `outputs` list.
    #[error("the authors' record needs an 'outputs' list")]
    NoAuthorsOutputs,
    /// The authors' `input.inputs` is neither a list of strings nor its Python repr.
    #[error("the authors' 'input.inputs' must be a list of strings (or its Python repr)")]
    BadAuthorsInputs,
}

/// Which instance a response line is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstanceRef {
    /// By id (our format, or an `id` inside the authors' `input`).
    Id(String),
    /// By 0-based position in the dataset (the authors' `index`).
    Index(usize),
}

/// One line of a responses file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseRecord<T = String> {
    /// The instance.
    pub instance: InstanceRef,
    /// The sample number, when the line holds one sample of several.
    pub sample: Option<usize>,
    /// The responses of the line (a `null` response reads as empty: no answer).
    pub responses: Vec<T>,
    /// The example inputs of the instance, as the line states them (the authors' result
    /// records carry their instance in `input`): the line is for the instance of the
    /// dataset with these inputs, whatever its index says.
    pub inputs: Option<Vec<String>>,
}
