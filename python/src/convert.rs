//! Python values in and out: every argument is checked here, so that bad input becomes a
//! `TypeError` (wrong kind of value) or a `ValueError` (right kind, wrong content) naming
//! the argument, never a panic.

use pbebench::PreparedInstance;
use pbebench::{Cascade, Instance, Rule};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyMapping, PySequence, PyString, PyTuple};
use rustc_hash::{FxHashMap, FxHasher};
use serde::Serialize;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a value sits in the arguments, for messages: `reward(): instances[3]['inputs'][0]`.
/// Built on the stack and formatted only when something is wrong, so batch calls pay
/// nothing for it.
#[derive(Clone, Copy)]
pub enum Name<'a> {
    /// A whole argument (or a keyword) of a function or method, which the message names
    /// first: `score(): instance`.
    Arg {
        /// The function (`score`) or method (`Rewarder.reward`).
        func: &'a str,
        /// The argument.
        arg: &'a str,
    },
    /// An item of a list.
    Index(&'a Name<'a>, usize),
    /// A field of a dict.
    Key(&'a Name<'a>, &'a str),
    /// A row of batched columns (a dict of lists): its fields are named as the column's
    /// item, `instances['inputs'][3]`.
    Row(&'a Name<'a>, usize),
}

impl<'a> Name<'a> {
    /// The argument `arg` of `func`.
    pub fn arg(func: &'a str, arg: &'a str) -> Self {
        Name::Arg { func, arg }
    }
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Arg { func, arg } => write!(f, "{func}(): {arg}"),
            Name::Index(parent, k) => write!(f, "{parent}[{k}]"),
            Name::Key(Name::Row(parent, k), key) => write!(f, "{parent}['{key}'][{k}]"),
            Name::Key(parent, key) => write!(f, "{parent}['{key}']"),
            Name::Row(parent, k) => write!(f, "{parent} (row {k} of its columns)"),
        }
    }
}

/// An argument as the call gives it, or `Default` when the call leaves it out. Arguments
/// are taken as this (or as `&Bound<PyAny>`) and read by the functions below, which name
/// them in their errors: pyo3's own conversion raises a message that names no argument.
pub enum Arg<'py> {
    /// The value given.
    Given(Bound<'py, PyAny>),
    /// Not given: the function's default applies.
    Default,
}

impl<'a, 'py> FromPyObject<'a, 'py> for Arg<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Arg::Given(obj.to_owned()))
    }
}

impl<'py> Arg<'py> {
    /// `read` of the value given, or `default` when none was.
    pub fn or<T>(
        &self,
        default: T,
        read: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> PyResult<T> {
        match self {
            Arg::Given(obj) => read(obj),
            Arg::Default => Ok(default),
        }
    }
}

/// A Python value from a serialisable one, through its JSON text: the result equals
/// `json.loads` of what the CLI prints for it (same keys in the same order, lists rather
/// than tuples), which is what the bindings promise.
pub fn to_py<'py, T: Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| {
        PyRuntimeError::new_err(format!("pbebench could not serialise a result: {e}"))
    })?;
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    LOADS.import(py, "json", "loads")?.call1((text,))
}

/// The Python type name of `obj`, for messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// A non-negative integer argument (`bool` is refused: `True` is not a count).
pub fn count(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<usize> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an integer, not {}",
            type_name(obj)
        )));
    }
    obj.extract::<usize>().map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be a non-negative integer that fits in 64 bits, got {obj}"
        ))
    })
}

/// An alphabet as every `alphabet=` takes it, as the command line's `--alphabet` does:
/// letters, ranges such as `a-ku-z`, or the names `lite` and `full`
/// ([`pbebench::generate::alphabet`]); a repeated letter is refused.
pub fn alphabet(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<String> {
    let text = string(obj, name)?;
    pbebench::generate::alphabet(&text).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
}

/// A string argument.
pub fn string(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<String> {
    obj.cast::<PyString>()
        .map_err(|_| PyTypeError::new_err(format!("{name} must be a str, not {}", type_name(obj))))?
        .to_str()
        .map(str::to_owned)
}

/// A `True`/`False` argument (numpy's bool too); anything else is refused rather than
/// read by its truth value (`heldout="no"` is not true).
pub fn flag(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<bool> {
    obj.extract::<bool>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be True or False, not {}",
            type_name(obj)
        ))
    })
}

/// An argument where `None` stands for "none" (no limit, the built-in template...): `read`
/// of any other value.
pub fn optional<'py, T>(
    obj: &Bound<'py, PyAny>,
    read: impl FnOnce(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if obj.is_none() {
        return Ok(None);
    }
    read(obj).map(Some)
}

/// A file path argument: a str or an `os.PathLike` (`pathlib.Path`).
pub fn path(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<PathBuf> {
    obj.extract::<PathBuf>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a path (a str or a pathlib.Path), not {}",
            type_name(obj)
        ))
    })
}

/// The items of a list or tuple argument. Strings are refused: iterating `"abc"` would
/// silently read three one-letter items.
pub fn items<'py>(
    obj: &Bound<'py, PyAny>,
    name: Name<'_>,
    what: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a list of {what}, not a single str"
        )));
    }
    // Exact lists and tuples are read directly: the iterator protocol asks for a length
    // hint through a Python call, which cost more than reading a batch's strings.
    if let Ok(list) = obj.cast_exact::<PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = obj.cast_exact::<PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return obj.try_iter()?.collect();
    }
    match obj.cast::<PySequence>() {
        Ok(seq) => seq.try_iter()?.collect(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be a list of {what}, not {}",
            type_name(obj)
        ))),
    }
}

/// A list of strings argument.
pub fn strings(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<Vec<String>> {
    if let Ok(list) = obj.cast_exact::<PyList>() {
        // Read in place, without first collecting the items (see `items`).
        return list
            .iter()
            .enumerate()
            .map(|(k, item)| string(&item, Name::Index(&name, k)))
            .collect();
    }
    items(obj, name, "strings")?
        .iter()
        .enumerate()
        .map(|(k, item)| string(item, Name::Index(&name, k)))
        .collect()
}

/// A cascade: a list of `[pattern, replacement]` pairs (lists or tuples of two strings).
pub fn cascade(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<Cascade> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a list of [pattern, replacement] pairs such as [[\"ab\", \"c\"]], \
             not a str (for JSON text, pass json.loads(text))"
        )));
    }
    let rules = items(obj, name, "[pattern, replacement] pairs")?;
    let rules = rules
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let name = Name::Index(&name, k);
            let sides = items(item, name, "two strings: [pattern, replacement]")?;
            let [a, b] = &sides[..] else {
                return Err(PyValueError::new_err(format!(
                    "{name} must be a [pattern, replacement] pair, but it has {} items",
                    sides.len()
                )));
            };
            let (a, b) = (
                string(a, Name::Index(&name, 0))?,
                string(b, Name::Index(&name, 1))?,
            );
            Rule::new(a, b).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
        })
        .collect::<PyResult<Vec<Rule>>>()?;
    Ok(Cascade::new(rules))
}

/// The fields of the instance schema that [`instance`] checks one by one, with what each
/// must be.
const FIELDS: [(&str, Field); 10] = [
    ("id", Field::String),
    ("inputs", Field::Strings),
    ("outputs", Field::Strings),
    ("heldout_inputs", Field::Strings),
    ("heldout_outputs", Field::Strings),
    ("max_rules", Field::Count),
    ("max_rule_len", Field::Count),
    ("cascade_len", Field::Count),
    ("alphabet", Field::String),
    ("cascade", Field::Cascade),
];

/// What a field of an instance dict must be.
#[derive(Clone, Copy)]
enum Field {
    String,
    Strings,
    Count,
    /// A gold cascade, or `None`.
    Cascade,
}

/// Checks the fields of an instance dict as arguments are checked, so that a wrong one is
/// named (`instance['max_rules'] must be a non-negative integer…`) rather than reported
/// by the deserialiser, which names no field (`can't convert negative int to unsigned`);
/// a str where a list of strings belongs would otherwise be read as a list of its letters.
fn check_fields(map: &Bound<'_, PyMapping>, name: Name<'_>) -> PyResult<()> {
    for (field, kind) in FIELDS {
        if !map.contains(field)? {
            continue;
        }
        let value = map.get_item(field)?;
        let name = Name::Key(&name, field);
        match kind {
            Field::String => drop(string(&value, name)?),
            Field::Strings => drop(strings(&value, name)?),
            Field::Count => drop(count(&value, name)?),
            Field::Cascade => drop(optional(&value, |v| cascade(v, name))?),
        }
    }
    Ok(())
}

/// An instance: a dict in the CLI's JSONL schema (what `generate` yields, or a line of a
/// dataset file read with `json.loads`). Fields outside the schema (a `prompt` column, say)
/// are ignored; a dict's `cascade_len` may be left out (it is then its `cascade`'s length). Instances that cannot be scored (no examples, or unequal numbers of inputs
/// and outputs) are refused, as `pbebench score` refuses them.
pub fn instance(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<Instance> {
    let map = obj.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a dict in pbebench's instance schema (as generate() yields), not {}",
            type_name(obj)
        ))
    })?;
    check_fields(map, name)?;
    let copy;
    let mut map = map.as_any();
    if let Ok(dict) = obj.cast::<PyDict>() {
        // A dict with a gold but without `cascade_len` (columns picked by hand, as the TRL
        // example picks them) states the gold's length; a dataset line must say it.
        let key = intern!(obj.py(), "cascade_len");
        if let (Some(gold), false) = (dict.get_item("cascade")?, dict.contains(key)?) {
            if let Ok(len) = gold.len() {
                copy = dict.copy()?;
                copy.set_item(key, len)?;
                map = copy.as_any();
            }
        }
    }
    let inst: Instance =
        pythonize::depythonize(map).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
    check_scorable(inst, name)
}

/// The part of an instance that [`pbebench::reward`] reads: the examples
/// (`inputs`, `outputs`, and `heldout_inputs` / `heldout_outputs` when `heldout`) and the
/// limits (`max_rules`, `max_rule_len`, `alphabet`); other fields keep their defaults.
///
/// Reading only these makes a batch reward call about ten times cheaper than deserialising
/// whole instances, which would cost more than the rewards themselves. The checks are those
/// of [`instance`].
pub fn reward_instance<'py>(
    obj: &Bound<'py, PyAny>,
    name: Name<'_>,
    heldout: bool,
) -> PyResult<Instance> {
    let Ok(dict) = obj.cast::<PyDict>() else {
        // Other mappings take the general path.
        return instance(obj, name);
    };
    let py = obj.py();
    let field = |key: &Bound<'py, PyString>| -> PyResult<Bound<'py, PyAny>> {
        dict.get_item(key)?
            .ok_or_else(|| PyValueError::new_err(format!("{name}: missing field `{key}`")))
    };
    let key = |k: &'static str| Name::Key(&name, k);
    let heldout_strings = |k: &Bound<'py, PyString>, n: &'static str| -> PyResult<Vec<String>> {
        if !heldout {
            return Ok(Vec::new());
        }
        match dict.get_item(k)? {
            Some(v) if !v.is_none() => strings(&v, key(n)),
            _ => Ok(Vec::new()),
        }
    };
    let inst = Instance {
        // Read below, only for the message of an instance that cannot be scored.
        id: String::new(),
        inputs: strings(&field(intern!(py, "inputs"))?, key("inputs"))?,
        outputs: strings(&field(intern!(py, "outputs"))?, key("outputs"))?,
        max_rules: count(&field(intern!(py, "max_rules"))?, key("max_rules"))?,
        max_rule_len: count(&field(intern!(py, "max_rule_len"))?, key("max_rule_len"))?,
        alphabet: string(&field(intern!(py, "alphabet"))?, key("alphabet"))?,
        heldout_inputs: heldout_strings(intern!(py, "heldout_inputs"), "heldout_inputs")?,
        heldout_outputs: heldout_strings(intern!(py, "heldout_outputs"), "heldout_outputs")?,
        cascade: None,
        cascade_len: 0,
        category: None,
        relations_mode: Default::default(),
        interactions: Vec::new(),
        symbols: Default::default(),
    };
    if !inst.problems().is_empty() {
        let id = match dict.get_item(intern!(py, "id"))? {
            Some(id) => id.str()?.to_str()?.to_owned(),
            None => String::new(),
        };
        return check_scorable(Instance { id, ..inst }, name);
    }
    Ok(inst)
}

/// The rows of `instances` given as batched columns, a dict of equal-length lists (what a
/// Hugging Face dataset's slice `ds[:8]` or a `map(batched=True)` function gets), as one
/// dict per row; `None` for anything else. A dict is read as columns when its `max_rules`
/// or `max_rule_len` is a list, or its `inputs` a list of lists: in an instance dict they
/// are ints and a list of strings. Columns of different lengths, or a column that is not
/// a list, are refused.
pub fn rows<'py>(obj: &Bound<'py, PyAny>, name: Name<'_>) -> PyResult<Option<Bound<'py, PyList>>> {
    let Ok(dict) = obj.cast::<PyDict>() else {
        return Ok(None);
    };
    let is_list =
        |v: &Bound<'py, PyAny>| v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>();
    let mut listed = None;
    for field in ["max_rules", "max_rule_len"] {
        if dict.get_item(field)?.is_some_and(|v| is_list(&v)) {
            listed = Some(format!("its '{field}' is a list"));
            break;
        }
    }
    if listed.is_none() {
        let inputs = dict.get_item("inputs")?.filter(|v| is_list(v));
        let first = inputs.and_then(|v| v.get_item(0).ok());
        if first.is_some_and(|v| is_list(&v)) {
            listed = Some("its 'inputs' is a list of lists".to_owned());
        }
    }
    let Some(listed) = listed else {
        return Ok(None);
    };
    let mut columns: Vec<(Bound<'py, PyAny>, Vec<Bound<'py, PyAny>>)> = Vec::new();
    for (key, value) in dict.iter() {
        if !is_list(&value) {
            return Err(PyTypeError::new_err(format!(
                "{name} is read as batched columns (a dict of lists, as a Hugging Face \
                 dataset's slice or map(batched=True) gives), as {listed}, but \
                 its column {} is a {}, not a list: give every column one value per row, or \
                 pass one instance dict",
                key.repr()?,
                type_name(&value)
            )));
        }
        let values = value.try_iter()?.collect::<PyResult<Vec<_>>>()?;
        columns.push((key, values));
    }
    let n = columns[0].1.len();
    if let Some((key, values)) = columns.iter().find(|(_, values)| values.len() != n) {
        return Err(PyValueError::new_err(format!(
            "{name} is read as batched columns (a dict of lists, as a Hugging Face dataset's \
             slice or map(batched=True) gives), but its columns have different lengths: {} has \
             {n} values and {} has {}; give every column one value per row",
            columns[0].0.repr()?,
            key.repr()?,
            values.len()
        )));
    }
    let py = obj.py();
    let rows = PyList::empty(py);
    for k in 0..n {
        let row = PyDict::new(py);
        for (key, values) in &columns {
            row.set_item(key, &values[k])?;
        }
        rows.append(row)?;
    }
    Ok(Some(rows))
}

/// Refuses instances that a dataset file could not hold: the one check every reader of
/// instances runs ([`Instance::problems`]: no examples, unequal numbers of inputs and
/// outputs, a number or a size past its limit, a repeated letter, a gold that contradicts
/// the examples), as `pbebench score` and every other command refuse them. The message
/// names the argument and each field at fault.
fn check_scorable(inst: Instance, name: Name<'_>) -> PyResult<Instance> {
    let problems = inst.problems();
    if !problems.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{name} (id '{}'): {}",
            inst.id,
            problems.join("; ")
        )));
    }
    Ok(inst)
}

/// One response: a str, `None` (no answer, scored as an empty response), a chat message
/// dict (its `content`), or a list of chat messages (the last one's `content`, which is how
/// TRL passes conversational completions). Thinking fields are never read. `None` when
/// there is no text.
pub fn response<'py>(
    obj: Bound<'py, PyAny>,
    name: Name<'_>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let obj = match obj.cast_into::<PyString>() {
        Ok(s) => return Ok(Some(s)),
        Err(e) => e.into_inner(),
    };
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(message) = obj.cast::<PyDict>() {
        return match message.get_item(intern!(obj.py(), "content"))? {
            Some(content) if content.is_none() => Ok(None),
            Some(content) => match content.cast_into::<PyString>() {
                Ok(text) => Ok(Some(text)),
                Err(e) => Err(PyTypeError::new_err(format!(
                    "{} must be a str, not {}",
                    Name::Key(&name, "content"),
                    type_name(&e.into_inner())
                ))),
            },
            None => Err(PyValueError::new_err(format!(
                "{name} is a dict without 'content'; a response is a str, None, a chat \
                 message {{'role': ..., 'content': ...}} or a list of chat messages"
            ))),
        };
    }
    if let Ok(messages) = obj.cast::<PyList>() {
        return match messages.len() {
            0 => Ok(None),
            n => response(messages.get_item(n - 1)?, Name::Index(&name, n - 1)),
        };
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be a str, None, a chat message dict or a list of chat messages, not {}",
        type_name(&obj)
    )))
}

/// A list of responses (see [`response`]), as the Python strings that hold their text.
pub struct Responses<'py>(Vec<Option<Bound<'py, PyString>>>);

impl<'py> Responses<'py> {
    /// Reads the `responses` argument.
    pub fn read(obj: &Bound<'py, PyAny>, name: Name<'_>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "{name} must be a list of responses, not a single str (wrap one response in a list)"
            )));
        }
        // An exact list is read in place, each item once (see `items`).
        if let Ok(list) = obj.cast_exact::<PyList>() {
            return list
                .iter()
                .enumerate()
                .map(|(k, item)| response(item, Name::Index(&name, k)))
                .collect::<PyResult<_>>()
                .map(Responses);
        }
        items(obj, name, "responses")?
            .into_iter()
            .enumerate()
            .map(|(k, item)| response(item, Name::Index(&name, k)))
            .collect::<PyResult<_>>()
            .map(Responses)
    }

    /// The texts, borrowed from the Python strings rather than copied: batch calls read
    /// megabytes of responses. A string that is not valid Unicode (a lone surrogate)
    /// raises `UnicodeEncodeError`, a `ValueError`.
    pub fn texts(&self) -> PyResult<Vec<&str>> {
        self.0
            .iter()
            .map(|text| text.as_ref().map_or(Ok(""), |t| t.to_str()))
            .collect()
    }
}

/// A value parsed by the core's `FromStr` (block choice, relations mode, balance…).
pub fn parsed<T>(text: &str, name: Name<'_>) -> PyResult<T>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|e: T::Err| PyValueError::new_err(format!("{name}: {e}")))
}

/// The instances one `reward` call (or one `Rewarder` construction) has prepared (read,
/// checked, copied, with their gold distance), keyed by their content: equal dicts
/// (dataset rows handed over as fresh dicts) share one. The content is hashed from the
/// text of the fields, and a hit is checked against the prepared instance's own copy of
/// them, so a hash collision cannot give another instance's rewards. Made for one call and
/// dropped at its end, with the GIL held (it holds references to Python objects); nothing
/// is kept between calls.
///
/// Before the content, dicts are recognised by their field objects ([`FieldObjects`]):
/// shallow copies of one row (`dict(row)`, `{**row, "prompt": …}`) share them, and are then
/// found without reading a string.
#[derive(Default)]
pub struct InstanceCache {
    /// The prepared instances, in the order they were first met: a dict's instance is
    /// named by its index here.
    prepared: Vec<Arc<PreparedInstance>>,
    by_content: FxHashMap<u64, usize>,
    /// Instances whose content hash was taken by another (searched one by one).
    collided: Vec<usize>,
    by_objects: FxHashMap<ObjectKey, ObjectEntry>,
}

/// The addresses of a dict's [`FieldObjects`] (0 for held-out fields not read).
#[derive(PartialEq, Eq, Hash)]
struct ObjectKey([usize; 7]);

/// A cached instance and the field objects of the dict it was made from, kept alive so
/// that no other object takes their addresses during the call.
struct ObjectEntry {
    index: usize,
    _objects: [Option<Py<PyAny>>; 7],
}

/// The field objects of an instance dict a reward depends on, when they are of exact
/// types whose content is their identity for the duration of a call: exact lists (of the
/// examples), an exact str (the alphabet) and exact ints (the limits), and exact lists or
/// `None` (held-out examples, when read). Two dicts with the same such objects have the
/// same instance: reading such dicts runs no Python code (look-ups by exact-str key, type
/// checks, reading exact lists, strs and ints), so a list seen earlier in the call still
/// holds what it held. Reading anything else may run Python code (a mapping's or a
/// sequence's methods), so the objects seen before are then forgotten.
struct FieldObjects<'py> {
    /// The inputs, outputs, max_rules, max_rule_len and alphabet, then the held-out
    /// inputs and outputs (`None` when not read).
    objects: [Option<Bound<'py, PyAny>>; 7],
}

impl<'py> FieldObjects<'py> {
    /// The field objects of `dict`, or `None` when one is missing or of another type (the
    /// content path reads those, and raises what is wrong).
    fn of(dict: &Bound<'py, PyDict>, heldout: bool) -> PyResult<Option<Self>> {
        let py = dict.py();
        let mut objects = [const { None }; 7];
        let keys = [
            intern!(py, "inputs"),
            intern!(py, "outputs"),
            intern!(py, "max_rules"),
            intern!(py, "max_rule_len"),
            intern!(py, "alphabet"),
        ];
        for (slot, key) in objects.iter_mut().zip(keys) {
            let Some(value) = dict.get_item(key)? else {
                return Ok(None);
            };
            *slot = Some(value);
        }
        let exact = |k: usize, exact: fn(&Bound<'py, PyAny>) -> bool| {
            objects[k].as_ref().is_some_and(exact)
        };
        if !(exact(0, |o| o.is_exact_instance_of::<PyList>())
            && exact(1, |o| o.is_exact_instance_of::<PyList>())
            && exact(2, |o| o.is_exact_instance_of::<PyInt>())
            && exact(3, |o| o.is_exact_instance_of::<PyInt>())
            && exact(4, |o| o.is_exact_instance_of::<PyString>()))
        {
            return Ok(None);
        }
        if heldout {
            let keys = [
                intern!(py, "heldout_inputs"),
                intern!(py, "heldout_outputs"),
            ];
            for (slot, key) in objects[5..].iter_mut().zip(keys) {
                let value = dict
                    .get_item(key)?
                    .unwrap_or_else(|| py.None().into_bound(py));
                if !(value.is_none() || value.is_exact_instance_of::<PyList>()) {
                    return Ok(None);
                }
                *slot = Some(value);
            }
        }
        Ok(Some(FieldObjects { objects }))
    }

    /// The objects' addresses.
    fn key(&self) -> ObjectKey {
        ObjectKey(
            self.objects
                .each_ref()
                .map(|o| o.as_ref().map_or(0, |o| o.as_ptr() as usize)),
        )
    }
}

impl InstanceCache {
    /// The prepared instances, in the order of their indices.
    pub fn into_prepared(self) -> Vec<Arc<PreparedInstance>> {
        self.prepared
    }

    /// Keeps `prepared` and gives its index.
    fn add(&mut self, prepared: PreparedInstance) -> usize {
        self.prepared.push(Arc::new(prepared));
        self.prepared.len() - 1
    }

    /// The index of the prepared instance equal to `fields`, made and kept if there is
    /// none.
    fn get(&mut self, fields: &Fields<'_>) -> usize {
        let same = |&k: &usize| fields.equals(&self.prepared[k]);
        let hash = fields.hash();
        let taken = match self.by_content.get(&hash) {
            Some(&k) if same(&k) => return k,
            Some(_) => true,
            None => false,
        };
        if let Some(&k) = self.collided.iter().find(|k| same(k)) {
            return k;
        }
        let k = self.add(PreparedInstance::from_examples(
            fields.inputs,
            fields.outputs,
            fields.max_rules,
            fields.max_rule_len,
            fields.alphabet,
        ));
        if taken {
            self.collided.push(k);
        } else {
            self.by_content.insert(hash, k);
        }
        k
    }
}

/// The fields of an instance dict that a reward depends on, as text borrowed from the
/// dict's strings; the held-out examples (read only with `heldout`) are appended to the
/// visible ones, as the reward scores them together.
struct Fields<'a> {
    inputs: &'a [&'a str],
    outputs: &'a [&'a str],
    alphabet: &'a str,
    max_rules: usize,
    max_rule_len: usize,
}

impl Fields<'_> {
    fn hash(&self) -> u64 {
        let mut h = FxHasher::default();
        (self.max_rules, self.max_rule_len, self.alphabet).hash(&mut h);
        self.inputs.hash(&mut h);
        self.outputs.hash(&mut h);
        h.finish()
    }

    /// True when `prepared` was made from fields equal to these.
    fn equals(&self, prepared: &PreparedInstance) -> bool {
        let limits = prepared.limits();
        limits.max_rules == self.max_rules
            && limits.max_rule_len == self.max_rule_len
            && prepared.alphabet() == self.alphabet
            && prepared.inputs().eq(self.inputs.iter().copied())
            && prepared.outputs().eq(self.outputs.iter().copied())
    }
}

/// Appends the items of a list-of-strings argument to `out`, as [`strings`] reads them
/// (same checks, same messages) but without copying their text. Returns how many.
fn push_strings<'py>(
    obj: &Bound<'py, PyAny>,
    name: Name<'_>,
    out: &mut Vec<Bound<'py, PyString>>,
) -> PyResult<usize> {
    let start = out.len();
    let mut push = |k: usize, item: Bound<'py, PyAny>| -> PyResult<()> {
        match item.cast_into::<PyString>() {
            Ok(s) => {
                out.push(s);
                Ok(())
            }
            Err(e) => Err(PyTypeError::new_err(format!(
                "{} must be a str, not {}",
                Name::Index(&name, k),
                type_name(&e.into_inner())
            ))),
        }
    };
    if let Ok(list) = obj.cast_exact::<PyList>() {
        for (k, item) in list.iter().enumerate() {
            push(k, item)?;
        }
    } else {
        for (k, item) in items(obj, name, "strings")?.into_iter().enumerate() {
            push(k, item)?;
        }
    }
    Ok(out.len() - start)
}

/// [`reward_instance`] prepared for rewards, through `cache`: the dict's strings are
/// looked up in the cache without copying them, and copied only for an instance not seen
/// before. Same checks and messages as [`reward_instance`] (which reads mappings other than
/// dicts, uncached, and words the errors). `scratch` holds the dict's strings while they
/// are read; it is left empty.
pub fn prepared_instance<'py>(
    obj: &Bound<'py, PyAny>,
    name: Name<'_>,
    heldout: bool,
    cache: &mut InstanceCache,
    scratch: &mut Vec<Bound<'py, PyString>>,
) -> PyResult<usize> {
    let uncached = |cache: &mut InstanceCache| -> PyResult<usize> {
        // Reading other types may run Python code, which may change lists seen before.
        cache.by_objects.clear();
        let mut inst = reward_instance(obj, name, heldout)?;
        inst.inputs.append(&mut inst.heldout_inputs);
        inst.outputs.append(&mut inst.heldout_outputs);
        Ok(cache.add(PreparedInstance::new(inst)))
    };
    let Ok(dict) = obj.cast::<PyDict>() else {
        return uncached(cache);
    };
    let objects = match FieldObjects::of(dict, heldout) {
        Ok(objects) => objects,
        Err(_) => return uncached(cache),
    };
    match &objects {
        Some(o) => {
            if let Some(entry) = cache.by_objects.get(&o.key()) {
                return Ok(entry.index);
            }
        }
        // Fields of other types may run Python code as they are read (see `uncached`).
        None => cache.by_objects.clear(),
    }
    let index = match prepared_by_content(dict, objects.as_ref(), name, heldout, cache, scratch) {
        Ok(index) => index,
        Err(_) => uncached(cache)?,
    };
    if let Some(objects) = objects {
        cache.by_objects.insert(
            objects.key(),
            ObjectEntry {
                index,
                _objects: objects.objects.map(|o| o.map(Bound::unbind)),
            },
        );
    }
    Ok(index)
}

/// [`prepared_instance`] of a dict through the content part of `cache`; `Err` for any
/// problem, which [`reward_instance`] then raises, worded as ever. The fields come from
/// `objects` when [`FieldObjects::of`] has read them already (reading them ran no Python
/// code, so the dict still holds them), else from the dict.
fn prepared_by_content<'py>(
    dict: &Bound<'py, PyDict>,
    objects: Option<&FieldObjects<'py>>,
    name: Name<'_>,
    heldout: bool,
    cache: &mut InstanceCache,
    scratch: &mut Vec<Bound<'py, PyString>>,
) -> PyResult<usize> {
    let py = dict.py();
    scratch.clear();
    // Any problem (a missing field, a wrong type, an instance that cannot be scored) is
    // left to `reward_instance`, which reads the fields in the same order and raises it.
    // Field `k` of `FieldObjects` (same order), or the dict's value for `key`.
    let field = |k: usize, key: &Bound<'py, PyString>| -> PyResult<Option<Bound<'py, PyAny>>> {
        match objects {
            Some(o) => Ok(o.objects[k].clone()),
            None => dict.get_item(key),
        }
    };
    let mut read = || -> PyResult<Option<[usize; 6]>> {
        let Some(inputs) = field(0, intern!(py, "inputs"))? else {
            return Ok(None);
        };
        let Some(outputs) = field(1, intern!(py, "outputs"))? else {
            return Ok(None);
        };
        if inputs.is_instance_of::<PyString>() || outputs.is_instance_of::<PyString>() {
            return Ok(None);
        }
        let n_in = push_strings(&inputs, Name::Key(&name, "inputs"), scratch)?;
        let n_out = push_strings(&outputs, Name::Key(&name, "outputs"), scratch)?;
        let (Some(max_rules), Some(max_rule_len), Some(alphabet)) = (
            field(2, intern!(py, "max_rules"))?,
            field(3, intern!(py, "max_rule_len"))?,
            field(4, intern!(py, "alphabet"))?,
        ) else {
            return Ok(None);
        };
        let max_rules = count(&max_rules, Name::Key(&name, "max_rules"))?;
        let max_rule_len = count(&max_rule_len, Name::Key(&name, "max_rule_len"))?;
        let Ok(alphabet) = alphabet.cast_into::<PyString>() else {
            return Ok(None);
        };
        scratch.push(alphabet);
        let (mut n_hin, mut n_hout) = (0, 0);
        if heldout {
            for (k, key, n, n_field) in [
                (
                    5,
                    intern!(py, "heldout_inputs"),
                    "heldout_inputs",
                    &mut n_hin,
                ),
                (
                    6,
                    intern!(py, "heldout_outputs"),
                    "heldout_outputs",
                    &mut n_hout,
                ),
            ] {
                match field(k, key)? {
                    Some(v) if !v.is_none() => {
                        if v.is_instance_of::<PyString>() {
                            return Ok(None);
                        }
                        *n_field = push_strings(&v, Name::Key(&name, n), scratch)?;
                    }
                    _ => {}
                }
            }
        }
        if n_in == 0 || n_in != n_out || n_hin != n_hout {
            return Ok(None);
        }
        Ok(Some([n_in, n_out, n_hin, n_hout, max_rules, max_rule_len]))
    };
    let prepared = match read() {
        Ok(Some([n_in, n_out, n_hin, _, max_rules, max_rule_len])) => {
            // A string that is not valid Unicode also goes to `reward_instance`, which raises.
            let texts = scratch
                .iter()
                .map(|s| s.to_str())
                .collect::<PyResult<Vec<&str>>>();
            texts.and_then(|texts| {
                let (visible, held) = texts.split_at(n_in + n_out + 1);
                let (inputs, outputs) = (&visible[..n_in], &visible[n_in..n_in + n_out]);
                let (held_in, held_out) = held.split_at(n_hin);
                // The check `reward_instance` runs, on the fields read; it raises the problem.
                let problems = pbebench::dataset::example_problems(
                    inputs,
                    outputs,
                    held_in,
                    held_out,
                    max_rules,
                    max_rule_len,
                    visible[n_in + n_out],
                );
                if !problems.is_empty() {
                    return Err(PyValueError::new_err(""));
                }
                let inputs: Vec<&str> = inputs.iter().chain(held_in).copied().collect();
                let outputs: Vec<&str> = outputs.iter().chain(held_out).copied().collect();
                Ok(cache.get(&Fields {
                    inputs: &inputs,
                    outputs: &outputs,
                    alphabet: visible[n_in + n_out],
                    max_rules,
                    max_rule_len,
                }))
            })
        }
        // `reward_instance` raises the error, worded as ever.
        Ok(None) | Err(_) => Err(PyValueError::new_err("")),
    };
    scratch.clear();
    prepared
}
