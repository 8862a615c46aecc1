//! `generate`: the CLI's `pbebench generate` parameters as keyword arguments, and a
//! streaming iterator over the instances.
//!
//! The core generator pushes instances to a sink in dataset order; here the sink is a
//! bounded channel filled by a background thread, so the dataset is never held in memory
//! (at most [`BUFFER`] instances wait) and Python is free while the next one is made.

use crate::convert::{count, items, parsed, string, to_py, Name};
use pbebench::generate::{
    generate, parse_alphabet, parse_lengths, parse_range, GenParams, GenStats, GenerateError,
    Overrides, Preset, SinkError,
};
use pbebench::Instance;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;

/// Instances generated ahead of the consumer, at most.
const BUFFER: usize = 64;

/// The keyword arguments `generate` accepts besides `seed` and `size`, as on the command line.
const OVERRIDES: [&str; 13] = [
    "examples",
    "alphabet",
    "input_len",
    "cascade_len",
    "rule_len",
    "pattern_draw",
    "max_rules",
    "patience",
    "balance",
    "relations",
    "heldout",
    "shard",
    "threads",
];

/// What the generating thread sends.
enum Message {
    Instance(Box<Instance>),
    Done(Result<GenStats, GenerateError>),
}

/// Where the iterator is.
enum State {
    /// Waiting for `__next__`.
    Ready(Receiver<Message>),
    /// A `__next__` is waiting for the generator (possibly in another Python thread).
    Busy,
    /// Every instance was yielded, or generation failed.
    Finished,
}

/// The instances of a dataset, in order, as dicts equal to the lines of
/// `pbebench generate` with the same parameters. Generation runs in a background thread a
/// few instances ahead of the consumer; dropping the iterator stops it.
#[pyclass(module = "pbebench", name = "Generation")]
pub struct Generation {
    /// The process that started the generating thread (a forked child has no such thread).
    pid: u32,
    state: Mutex<State>,
    remaining: Mutex<usize>,
    stats: Mutex<Option<Py<PyAny>>>,
}

#[pymethods]
impl Generation {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if std::process::id() != self.pid {
            return Err(PyRuntimeError::new_err(
                "this generate() iterator was made before the process forked and cannot go on \
                 in the child: call pbebench.generate in the child",
            ));
        }
        let receiver = {
            let mut state = self
                .state
                .lock()
                .expect("never poisoned: no panics while held");
            match std::mem::replace(&mut *state, State::Busy) {
                State::Ready(rx) => rx,
                State::Busy => {
                    return Err(PyValueError::new_err("generator already executing"));
                }
                State::Finished => {
                    *state = State::Finished;
                    return Ok(None);
                }
            }
        };
        let (message, receiver) = py.detach(move || (receiver.recv(), receiver));
        let mut next_state = State::Finished;
        let result = match message {
            Ok(Message::Instance(inst)) => {
                next_state = State::Ready(receiver);
                *self.remaining.lock().expect("never poisoned") -= 1;
                to_py(py, &*inst).and_then(interned_keys).map(Some)
            }
            Ok(Message::Done(Ok(stats))) => {
                *self.stats.lock().expect("never poisoned") = Some(to_py(py, &stats)?.unbind());
                Ok(None)
            }
            Ok(Message::Done(Err(e))) => Err(generate_error(e)),
            Err(_) => Err(PyRuntimeError::new_err(
                "the generating thread stopped without finishing (a bug in pbebench; please report it)",
            )),
        };
        *self.state.lock().expect("never poisoned") = next_state;
        result
    }

    /// Instances not yet yielded.
    fn __length_hint__(&self) -> usize {
        *self.remaining.lock().expect("never poisoned")
    }

    /// Generation statistics (attempts, rejections, category balance, timing), as
    /// `pbebench generate --stats-json` writes under "stats"; `None` until the iterator is
    /// exhausted.
    #[getter]
    fn stats(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.stats
            .lock()
            .expect("never poisoned")
            .as_ref()
            .map(|s| s.clone_ref(py))
    }
}

fn generate_error(e: GenerateError) -> PyErr {
    match e {
        GenerateError::Params(p) => param_error(p.param, &p.message),
        GenerateError::Stalled(message) => PyValueError::new_err(message),
        GenerateError::Sink(error) => PyRuntimeError::new_err(error.to_string()),
    }
}

/// A parameter error, named as the keyword argument (`input_len`, not `--input-len`).
fn param_error(param: &str, message: &str) -> PyErr {
    PyValueError::new_err(format!("{}: {message}", arg(&param.replace('-', "_"))))
}

/// The argument `name` of `generate`, for messages.
fn arg(name: &str) -> Name<'_> {
    Name::arg("generate", name)
}

/// Starts generating; see the Python docstring of `pbebench.generate`.
pub fn start(
    preset: &str,
    seed: u64,
    size: Option<usize>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<Generation> {
    let (params, threads) = params(preset, seed, size, overrides)?;
    let (lo, hi) = params.shard_range();
    let (tx, rx) = sync_channel(BUFFER);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|k| format!("pbebench-generate-{k}"))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))?;
    std::thread::Builder::new()
        .name("pbebench-generate".to_owned())
        .spawn(move || {
            let mut sink = |inst: Instance| {
                tx.send(Message::Instance(Box::new(inst)))
                    .map_err(|_| SinkError::from("the iterator was dropped"))
            };
            let result = pool.install(|| generate(&params, &(), &mut sink));
            // Nobody listens any more when the iterator was dropped: nothing to report.
            let _ = tx.send(Message::Done(result));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the generating thread: {e}")))?;
    Ok(Generation {
        pid: std::process::id(),
        state: Mutex::new(State::Ready(rx)),
        remaining: Mutex::new(hi - lo),
        stats: Mutex::new(None),
    })
}

/// The generator parameters (and worker threads, 0 for all cores) of a `generate` call,
/// validated.
fn params(
    preset: &str,
    seed: u64,
    size: Option<usize>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<(GenParams, usize)> {
    let preset: Preset = preset
        .parse()
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", arg("preset"))))?;
    let mut o = Overrides {
        seed: Some(seed),
        size,
        ..Overrides::default()
    };
    let mut threads = 0;
    for (key, value) in overrides.into_iter().flat_map(|d| d.iter()) {
        let key = string(&key, arg("keyword"))?;
        if value.is_none() {
            continue;
        }
        let name = key.as_str();
        match name {
            "examples" => o.examples = Some(count(&value, arg(name))?),
            "alphabet" => o.alphabet = Some(alphabet(&value)?),
            "input_len" => o.input_len = Some(range(&value, name)?),
            "rule_len" => o.rule_len = Some(range(&value, name)?),
            "cascade_len" => o.cascade_lens = Some(lengths(&value)?),
            "max_rules" => o.max_rules = Some(count(&value, arg(name))?),
            "patience" => o.patience = Some(count(&value, arg(name))? as u64),
            "balance" => o.balance = Some(parsed(&string(&value, arg(name))?, arg(name))?),
            "relations" => o.relations = Some(parsed(&string(&value, arg(name))?, arg(name))?),
            "pattern_draw" => o.pattern_draw = Some(parsed(&string(&value, arg(name))?, arg(name))?),
            "heldout" => o.heldout = Some(count(&value, arg(name))?),
            "shard" => o.shard = Some(shard(&value)?),
            "threads" => threads = count(&value, arg(name))?,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "generate() got an unexpected keyword argument '{key}' (expected seed, size or one of: {})",
                    OVERRIDES.join(", ")
                )))
            }
        }
    }
    let p = o
        .apply(preset)
        .map_err(|e| param_error(e.param, &e.message))?;
    Ok((p, threads))
}

/// `(lo, hi)` from an int, a pair, or text such as `"2..6"`.
fn range(value: &Bound<'_, PyAny>, name: &str) -> PyResult<(usize, usize)> {
    if value.is_instance_of::<PyString>() {
        return parse_range(&string(value, arg(name))?)
            .map_err(|e| PyValueError::new_err(format!("{}: {e}", arg(name))));
    }
    if value.is_instance_of::<PyInt>() {
        let n = count(value, arg(name))?;
        return Ok((n, n));
    }
    let ends = items(value, arg(name), "two integers (min, max)")?;
    match &ends[..] {
        [lo, hi] => Ok((count(lo, arg(name))?, count(hi, arg(name))?)),
        _ => Err(PyValueError::new_err(format!(
            "{} must be (min, max), an int or text such as \"2..6\"; got {} items",
            arg(name),
            ends.len()
        ))),
    }
}

/// Cascade lengths from an int, a list of ints (or a `range`), or text as on the command
/// line (`"2..20"`, `"25,30"`).
fn lengths(value: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let name = "cascade_len";
    if value.is_instance_of::<PyString>() {
        return parse_lengths(&string(value, arg(name))?)
            .map_err(|e| PyValueError::new_err(format!("{}: {e}", arg(name))));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(vec![count(value, arg(name))?]);
    }
    let mut lens = items(value, arg(name), "integers")?
        .iter()
        .map(|v| count(v, arg(name)))
        .collect::<PyResult<Vec<_>>>()?;
    lens.sort_unstable();
    lens.dedup();
    Ok(lens)
}

/// `(k, n)` from a pair or text such as `"0/4"`.
fn shard(value: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let name = "shard";
    let bad = || {
        PyValueError::new_err(format!(
            "{} must be (k, n) or text such as \"0/4\", got {value}",
            arg(name)
        ))
    };
    if value.is_instance_of::<PyString>() {
        let text = string(value, arg(name))?;
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        return Ok((
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        ));
    }
    match &items(value, arg(name), "two integers (k, n)")?[..] {
        [k, n] => Ok((count(k, arg(name))?, count(n, arg(name))?)),
        _ => Err(bad()),
    }
}

/// Letters from a name (`"lite"`, `"full"`), a spec of letters and ranges (`"a-ku-z"`), as
/// `pbebench generate --alphabet` reads them, or a list of one-letter strings.
fn alphabet(value: &Bound<'_, PyAny>) -> PyResult<Vec<char>> {
    let name = "alphabet";
    if !value.is_instance_of::<PyString>() {
        return items(value, arg(name), "one-letter strings")?
            .iter()
            .map(|v| {
                let s = string(v, arg(name))?;
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Ok(c),
                    _ => Err(PyValueError::new_err(format!(
                        "{}: {s:?} is not a single letter",
                        arg(name)
                    ))),
                }
            })
            .collect();
    }
    let text = string(value, arg(name))?;
    // The same reading as the CLI's `--alphabet`.
    parse_alphabet(&text).map_err(|e| PyValueError::new_err(format!("{}: {e}", arg(name))))
}

/// The dict `obj` with its keys interned, as the keys of a dict written in Python code are:
/// `json.loads` makes fresh key strings for each instance, and looking up `inst["inputs"]`
/// (in Python, or in `reward`) with another string object costs a comparison of their
/// characters, where an interned key is found by its address.
fn interned_keys(obj: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    let Ok(dict) = obj.cast::<PyDict>() else {
        return Ok(obj);
    };
    let py = obj.py();
    let interned = PyDict::new(py);
    for (key, value) in dict.iter() {
        let key = key.cast_into::<PyString>()?;
        interned.set_item(PyString::intern(py, key.to_str()?), value)?;
    }
    Ok(interned.into_any())
}
