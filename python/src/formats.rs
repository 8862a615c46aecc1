//! Files and formats for the framework integrations (`pbebench.inspect_ai`,
//! `pbebench.verl`): reading a dataset file of either schema, the authors' format, the
//! built-in prompt templates, the released answer format, and the summary of scored
//! instances (the figures of `pbebench score`).

use crate::convert::{self, to_py, Arg, Name};
use pbebench::dataset::{read_dataset as read, DatasetError};
use pbebench::{authors_line, render_answer as render, summarize, AuthorsOptions, InstanceScore};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Read a dataset file (JSONL, pbebench's schema or the authors' published format) as a
/// list of instance dicts, the same as `pbebench export --to pbebench` writes them.
///
/// Raises OSError when the file cannot be read, ValueError naming file:line for a line
/// that is no instance or a repeated id.
#[pyfunction]
fn read_dataset<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let path = convert::path(path, Name::arg("read_dataset", "path"))?;
    let instances = py.detach(|| read(&path)).map_err(|e| match e {
        DatasetError::Io { .. } => PyOSError::new_err(e.to_string()),
        DatasetError::Line { .. } => PyValueError::new_err(e.to_string()),
    })?;
    instances.iter().map(|inst| to_py(py, inst)).collect()
}

/// An instance as one record of the authors' published format (no newline): the same bytes
/// as a line of `pbebench export --to authors`.
///
/// original_programs: also write original_programs, as their PBEBench-Lite file has it.
/// relations: recompute bfcc_dag and bfcc_category with "paper" or "exact" (None: the
///     instance's own classifier and stored category).
///
/// Ids, held-out examples and limits are not part of the format. Raises ValueError for an
/// instance without a gold cascade.
#[pyfunction]
#[pyo3(
    signature = (instance, original_programs = Arg::Default, relations = None),
    text_signature = "(instance, original_programs=False, relations=None)"
)]
fn to_authors(
    instance: &Bound<'_, PyAny>,
    original_programs: Arg<'_>,
    relations: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let arg = |arg| Name::arg("to_authors", arg);
    let instance = convert::instance(instance, arg("instance"))?;
    let options = AuthorsOptions {
        original_programs: original_programs
            .or(false, |v| convert::flag(v, arg("original_programs")))?,
        relations: relations
            .map(|r| convert::parsed(&convert::string(r, arg("relations"))?, arg("relations")))
            .transpose()?,
    };
    authors_line(&instance, &options)
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", arg("instance"))))
}

/// A cascade as an answer in the released format: one fenced python block holding the
/// list of "replace('a', 'b')" strings, which score() and reward() read back as the same
/// cascade.
///
/// cascade: a list of [pattern, replacement] pairs.
#[pyfunction]
fn render_answer(cascade: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(render(&convert::cascade(
        cascade,
        Name::arg("render_answer", "cascade"),
    )?))
}

/// The figures of `pbebench score` over scored instances: the overall aggregate
/// ({"instances", "pass_at_1", "best_of_k", "pass_at_k", "edit_sim", "valid_rate",
/// "heldout_pass", "mean_reward" (per sample), "best_of_k_mean_reward", ..., and
/// "intervals": {figure: {"mean", "se", "lo", "hi", "n", "method"}}, each figure's standard
/// error and 95% interval}) of a list of score() results, as results.json has it.
///
/// scores: a list of the dicts score() returns, one per instance.
#[pyfunction]
fn summary<'py>(py: Python<'py>, scores: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let name = Name::arg("summary", "scores");
    let items = convert::items(scores, name, "score() results")?;
    let scores = items
        .iter()
        .enumerate()
        .map(|(k, item)| {
            pythonize::depythonize::<InstanceScore>(item).map_err(|e| {
                PyValueError::new_err(format!(
                    "{}: not a score() result: {e}",
                    Name::Index(&name, k)
                ))
            })
        })
        .collect::<PyResult<Vec<InstanceScore>>>()?;
    let overall = py.detach(|| summarize(&scores).overall);
    to_py(py, &overall)
}

/// Registers the functions and `TEMPLATES` (the built-in prompt templates by name).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_dataset, m)?)?;
    m.add_function(wrap_pyfunction!(to_authors, m)?)?;
    m.add_function(wrap_pyfunction!(render_answer, m)?)?;
    m.add_function(wrap_pyfunction!(summary, m)?)?;
    let templates = PyDict::new(m.py());
    for (name, text) in pbebench::BUILT_IN_TEMPLATES {
        templates.set_item(name, text)?;
    }
    m.add("TEMPLATES", templates)?;
    Ok(())
}
