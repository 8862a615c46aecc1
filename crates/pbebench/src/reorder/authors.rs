//! The authors' reordering file (`adaptive_balanced_1008_permutation_promptsfile.jsonl` of
//! cmu-llab/PBEBench), in both directions: [`parse_authors_record`] reads one record into a
//! [`ReorderInstance`], [`authors_reorder_line`] writes one, byte for byte as their files
//! are written (Python's `json.dumps` with its default separators and ASCII escapes).
//!
//! A record holds, in this order: `id`, `inputs`, `outputs`, `permuted_programs` (the
//! scrambled rules as `replace("a", "b")` strings), `permutation`, `ground_truth_order`
//! (the indices into `permuted_programs` in execution order: pbebench's `order`),
//! `original_programs` (the gold cascade), `cascade_length`, `bfcc_category`,
//! `num_valid_solutions` (pbebench's `valid_orders`) and `prompt`.
//!
//! - `permutation` equals `ground_truth_order` in every published record; it is read (it
//!   must be a permutation of the rules' indices) and written equal to it.
//! - The authors' prompt text is not published: the writer puts pbebench's own prompt
//!   ([`super::reorder_prompt`]) into `prompt`, and the reader ignores the field.
//! - The format has no held-out examples and no limits: they are left out, and read back
//!   as the synthesis reader infers them ([`crate::authors_limits`]).

use super::{is_permutation, reorder_prompt, ReorderInstance};
use crate::authors::{parse_record, parse_replace_call, python_json, ExportError};
use crate::relations::{Category, Relations};
use crate::rule::Cascade;
use serde::Serialize;
use serde_json::{Map, Value};

/// Whether the JSON object `map` is a record of the authors' reordering file (it has
/// `permuted_programs`).
pub fn is_authors_record(map: &Map<String, Value>) -> bool {
    map.contains_key("permuted_programs")
}

/// Reads one record of the authors' reordering file; `index` (0-based) is the id when the
/// record has none. The error says which field is wrong and how.
pub fn parse_authors_record(
    map: &Map<String, Value>,
    index: usize,
) -> Result<ReorderInstance, String> {
    let Some(original) = map.get("original_programs") else {
        return Err("'original_programs' is missing (the gold cascade, in order)".to_owned());
    };
    // The instance is read as a synthesis record whose programs are the gold cascade.
    let mut synthesis = map.clone();
    synthesis.insert("programs".to_owned(), original.clone());
    let mut instance = parse_record(&synthesis, index).map_err(|e| e.to_string())?;
    match map.get("id") {
        Some(Value::String(id)) => instance.id.clone_from(id),
        Some(_) => return Err("'id' must be a string".to_owned()),
        None => {}
    }
    let scrambled = match map.get("permuted_programs") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                let text = v
                    .as_str()
                    .ok_or("'permuted_programs' must be a list of strings")?;
                parse_replace_call(text).map_err(|e| format!("'permuted_programs': {e}"))
            })
            .collect::<Result<Vec<_>, String>>()?,
        _ => {
            return Err(
                "'permuted_programs' must be a list of replace(\"a\", \"b\") strings".to_owned(),
            )
        }
    };
    let indices = |key: &str| -> Result<Vec<usize>, String> {
        let bad = || format!("'{key}' must be a list of indices into 'permuted_programs'");
        let list = map.get(key).and_then(Value::as_array).ok_or_else(bad)?;
        list.iter()
            .map(|v| {
                v.as_u64()
                    .and_then(|k| usize::try_from(k).ok())
                    .ok_or_else(bad)
            })
            .collect()
    };
    let order = indices("ground_truth_order")?;
    let permutation = indices("permutation")?;
    if !is_permutation(&permutation, scrambled.len()) {
        return Err(format!(
            "'permutation' {permutation:?} is not a permutation of 0..{}",
            scrambled.len()
        ));
    }
    let valid_orders = match map.get("num_valid_solutions") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or("'num_valid_solutions' must be a count (an integer from 0) or null")?,
        ),
    };
    let problem = ReorderInstance {
        instance,
        scrambled: Cascade::new(scrambled),
        order,
        valid_orders,
    };
    if let Some(first) = problem.problems().into_iter().next() {
        return Err(first);
    }
    if problem.ordered(&problem.order).as_ref() != problem.instance.cascade.as_ref() {
        return Err(
            "'permuted_programs' in 'ground_truth_order' are not 'original_programs'".to_owned(),
        );
    }
    Ok(problem)
}

/// One record, its fields in the order of the published file.
#[derive(Serialize)]
struct Record<'a> {
    id: &'a str,
    inputs: &'a [String],
    outputs: &'a [String],
    permuted_programs: Vec<String>,
    permutation: &'a [usize],
    ground_truth_order: &'a [usize],
    original_programs: Vec<String>,
    cascade_length: usize,
    bfcc_category: Category,
    num_valid_solutions: Option<u64>,
    prompt: String,
}

/// `problem` as one record of the authors' reordering file, without the newline. The
/// category is the instance's own, else its gold's under its classifier; `prompt` is
/// pbebench's prompt. An instance with a symbol mapping is refused, as in
/// [`crate::authors_line`].
pub fn authors_reorder_line(problem: &ReorderInstance) -> Result<String, ExportError> {
    let instance = &problem.instance;
    if !instance.symbols.is_empty() {
        return Err(ExportError::Symbols {
            id: instance.id.clone(),
            table: instance.symbols.to_string(),
        });
    }
    let gold = problem
        .ordered(&problem.order)
        .ok_or_else(|| ExportError::NoGold(instance.id.clone()))?;
    let category = instance
        .category
        .unwrap_or_else(|| Relations::of(&gold, instance.relations_mode).category());
    let programs = |c: &Cascade| c.rules().iter().map(ToString::to_string).collect();
    let record = Record {
        id: &instance.id,
        inputs: &instance.inputs,
        outputs: &instance.outputs,
        permuted_programs: programs(&problem.scrambled),
        permutation: &problem.order,
        ground_truth_order: &problem.order,
        original_programs: programs(&gold),
        cascade_length: gold.len(),
        bfcc_category: category,
        num_valid_solutions: problem.valid_orders,
        prompt: reorder_prompt(problem),
    };
    Ok(python_json(&record))
}
