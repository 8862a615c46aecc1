//! The rule-reordering task (`docs/reorder.md`): making a problem from an instance, its
//! prompt, reading an answer, grading responses and the built-in solver, with the same
//! results as `pbebench reorder`, `prompt`, `score` and `audit` on a reordering set.

use crate::convert::{self, to_py, Arg, Name, Responses};
use pbebench::reorder::{
    parse_order as parse, read_reorder_lines, reorder_instance_with, reorder_prompt as render,
    score_order_responses, solve_order as solve, ReorderInstance, Scramble, DEFAULT_ORDER_NODES,
};
use pbebench::BlockChoice;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyMapping;
use std::collections::HashMap;

/// A reordering problem: a dict in pbebench's reordering schema (what reorder() returns, a
/// line of `pbebench reorder`'s file) or a record of the authors' reordering file, checked
/// as `pbebench score` checks a set's lines.
fn problem(obj: &Bound<'_, PyAny>, name: Name<'_>) -> PyResult<ReorderInstance> {
    if obj.cast::<PyMapping>().is_err() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a reordering problem dict (as reorder() returns), not {}",
            obj.get_type().name()?
        )));
    }
    let value: serde_json::Value =
        pythonize::depythonize(obj).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
    let mut problems = read_reorder_lines(&value.to_string()).map_err(|e| {
        PyValueError::new_err(format!(
            "{name}: {} (a reordering problem has an instance's fields plus 'scrambled', 'order' and 'valid_orders', or is a record of the authors' file)",
            e.problem
        ))
    })?;
    problems
        .pop()
        .ok_or_else(|| PyValueError::new_err(format!("{name}: empty")))
}

fn block(v: Arg<'_>, name: Name<'_>) -> PyResult<BlockChoice> {
    v.or(BlockChoice::Last, |v| {
        convert::parsed(&convert::string(v, name)?, name)
    })
}

/// A reordering problem made from an instance; the same dict as its line of
/// `pbebench reorder --seed SEED`: the instance's fields plus "scrambled" (the gold rules in
/// a seeded order that changes at least one output), "order" (the gold order, as indices
/// into scrambled) and "valid_orders" (how many orders reproduce every example; None beyond
/// 8 rules).
///
/// instance: a dict in pbebench's instance schema with a gold cascade.
/// seed: the permutation is a function of the seed and the instance's id alone.
/// scramble: "shuffle" (a uniform permutation) or "swap-first" (the first rule exchanged
///     with another, as in the authors' published reordering records).
///
/// Raises ValueError naming the reason when the instance gives no problem (no gold, a gold
/// that fails its examples, every order valid, forms too long).
#[pyfunction]
#[pyo3(
    signature = (instance, seed = Arg::Default, scramble = Arg::Default),
    text_signature = "(instance, seed=0, scramble='shuffle')"
)]
fn reorder<'py>(
    py: Python<'py>,
    instance: &Bound<'py, PyAny>,
    seed: Arg<'py>,
    scramble: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("reorder", arg);
    let instance = convert::instance(instance, arg("instance"))?;
    let seed = seed.or(0, |v| {
        v.extract::<u64>()
            .map_err(|_| PyValueError::new_err(format!("{}: must be an int from 0", arg("seed"))))
    })?;
    let scramble = scramble.or(Scramble::Shuffle, |v| {
        convert::parsed(&convert::string(v, arg("scramble"))?, arg("scramble"))
    })?;
    let made = py.detach(|| reorder_instance_with(&instance, seed, scramble));
    match made {
        Ok(problem) => to_py(py, &problem),
        Err(skip) => Err(PyValueError::new_err(format!(
            "{}: instance {} gives no reordering problem: {}",
            arg("instance"),
            instance.id,
            skip.label()
        ))),
    }
}

/// The prompt of a reordering problem; the same text as `pbebench prompt` on a reordering
/// set. The scrambled rules are numbered by index; the held-out examples and the gold order
/// are never shown.
///
/// problem: a reordering problem dict (reorder()'s, or a record of the authors' file).
#[pyfunction]
fn reorder_prompt(problem: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(render(&self::problem(
        problem,
        Name::arg("reorder_prompt", "problem"),
    )?))
}

/// Read the order a response gives, as `pbebench score` reads it on a reordering set:
/// {"order": [...]} for a permutation of 0..n, else {"problem": {"kind", ...}} with the
/// reason (unfinished, no_array, not_an_index, wrong_length, out_of_range, repeated).
/// "valid" says which.
///
/// text: the response.
/// n: the number of scrambled rules.
/// block: which fenced block holds the answer, "last" or "first".
#[pyfunction]
#[pyo3(signature = (text, n, block = Arg::Default), text_signature = "(text, n, block='last')")]
fn parse_order<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    block: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("parse_order", arg);
    let text = convert::string(text, arg("text"))?;
    let n = convert::count(n, arg("n"))?;
    let block = self::block(block, arg("block"))?;
    let value = match parse(&text, n, block) {
        Ok(order) => serde_json::json!({ "order": order, "valid": true }),
        Err(problem) => serde_json::json!({ "problem": problem, "valid": false }),
    };
    to_py(py, &value)
}

/// Grade a reordering problem's responses; the same dict as its line of `pbebench score
/// --per-instance` on a reordering set: id, cascade_len, category and per sample its
/// "order" (or "problem"), "valid" (a permutation of 0..n), "accurate" (the rules in that
/// order reproduce every example) and "exact" (the gold order).
///
/// problem: a reordering problem dict (reorder()'s, or a record of the authors' file).
/// responses: a list of responses: str, None, a chat message dict or a list of chat
///     messages, as in score().
/// block: which fenced block holds the answer, "last" or "first".
#[pyfunction]
#[pyo3(signature = (problem, responses, block = Arg::Default), text_signature = "(problem, responses, block='last')")]
fn score_order<'py>(
    py: Python<'py>,
    problem: &Bound<'py, PyAny>,
    responses: &Bound<'py, PyAny>,
    block: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("score_order", arg);
    let problem = self::problem(problem, arg("problem"))?;
    let responses = Responses::read(responses, arg("responses"))?;
    let texts: Vec<String> = responses.texts()?.into_iter().map(str::to_owned).collect();
    let block = self::block(block, arg("block"))?;
    let by_id = HashMap::from([(problem.instance.id.clone(), texts)]);
    let mut scores =
        py.detach(|| score_order_responses(std::slice::from_ref(&problem), &by_id, block));
    to_py(py, &scores.pop())
}

/// The built-in solver's answer to a reordering problem: an exact search over orders,
/// pruned by the examples, within max_nodes rule applications. Returns {"order" (None when
/// no order reproduces the examples or the budget ran out), "nodes", "gave_up"}.
///
/// problem: a reordering problem dict.
/// max_nodes: the search's budget (default 200000).
#[pyfunction]
#[pyo3(signature = (problem, max_nodes = Arg::Default), text_signature = "(problem, max_nodes=200000)")]
fn solve_order<'py>(
    py: Python<'py>,
    problem: &Bound<'py, PyAny>,
    max_nodes: Arg<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let arg = |arg| Name::arg("solve_order", arg);
    let problem = self::problem(problem, arg("problem"))?;
    let nodes = max_nodes.or(DEFAULT_ORDER_NODES, |v| {
        convert::count(v, arg("max_nodes")).map(|n| n as u64)
    })?;
    let found = py.detach(|| solve(&problem, nodes));
    to_py(py, &found)
}

/// Registers the reordering functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(reorder, m)?)?;
    m.add_function(wrap_pyfunction!(reorder_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(parse_order, m)?)?;
    m.add_function(wrap_pyfunction!(score_order, m)?)?;
    m.add_function(wrap_pyfunction!(solve_order, m)?)?;
    Ok(())
}
