//! Why a line of a dataset is not an instance: the one error of every reader of lines
//! (pbebench's own schema and the authors' records).

use crate::authors::ReplaceCallError;
use crate::pylit;

/// Why a line is not an instance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstanceError {
    /// The text is not JSON.
    #[error("malformed JSON: {0}")]
    MalformedJson(String),
    /// The line is JSON but not an object.
    #[error("a line must hold a JSON object")]
    NotAnObject,
    /// An object in our schema with a missing or mistyped field.
    #[error("not an instance: {0}")]
    NotAnInstance(String),
    /// A field of the authors' record that is absent.
    #[error("missing '{0}'")]
    Missing(&'static str),
    /// A field of the authors' record that is no list of strings.
    #[error("'{0}' must be a list of strings")]
    NotAList(&'static str),
    /// A list of the authors' record holding something else than strings.
    #[error("'{0}' must hold strings")]
    NotStrings(&'static str),
    /// A Python list repr of the authors' record that cannot be read.
    #[error("'{key}': {error}")]
    BadRepr {
        /// The field.
        key: &'static str,
        /// What is wrong with the repr.
        error: pylit::LiteralError,
    },
    /// One of the authors' `programs` that is no rule.
    #[error(transparent)]
    BadProgram(#[from] ReplaceCallError),
    /// `bfcc_category` that is no category.
    #[error("{0}")]
    BadCategory(String),
    /// `bfcc_category` that is no string.
    #[error("'bfcc_category' must be a string such as \"1011\"")]
    CategoryNotAString,
    /// `alphabet` that holds no letter.
    #[error("'alphabet' is empty: give the letters rules may use, e.g. \"abc\"")]
    EmptyAlphabet,
    /// An instance that breaks the limits (`MAX_*` of [`crate::dataset`]) or whose parts
    /// disagree: every problem [`Instance::problems`](crate::Instance::problems) finds,
    /// joined.
    #[error("{}", .0.join("; "))]
    Unsound(Vec<String>),
    /// `cascade_length` that is not the number of programs.
    #[error("cascade_length is {stated} but there are {programs} programs")]
    LengthMismatch {
        /// The stated length.
        stated: u64,
        /// The programs given.
        programs: usize,
    },
}
