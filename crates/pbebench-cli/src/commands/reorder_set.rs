//! Commands given a reordering set (`pbebench reorder`'s file) instead of a dataset:
//! `pbebench prompt` writes each problem's prompt, and `pbebench score` reads each response
//! as an order and grades it (the table of accuracy, exact and valid rate by length and
//! category).

use super::output::{any_stdout, say, Checked};
use crate::printer;
use anyhow::{bail, Context};
use pbebench::reorder::{
    is_reorder_line, read_reorder_lines, reorder_prompt, score_order_responses, summarize_orders,
    write_order_score_lines, ReorderInstance,
};
use pbebench::{read_responses, BlockChoice, PromptLine};
use std::io::BufRead;
use std::path::Path;

/// Whether `dataset` is a reordering set: its first non-blank line has `scrambled` and
/// `order`.
pub fn is_reorder_dataset(dataset: &Path) -> anyhow::Result<bool> {
    let input = pbebench_io::open_input(dataset)
        .with_context(|| format!("{}: cannot open", dataset.display()))?;
    for line in input.lines() {
        let Ok(line) = line else {
            // Not text: the dataset reader names the problem.
            return Ok(false);
        };
        if !line.trim().is_empty() {
            return Ok(is_reorder_line(&line));
        }
    }
    Ok(false)
}

/// The problems of the reordering set `dataset`; a bad line is an error naming it.
pub fn read_set(dataset: &Path) -> anyhow::Result<Vec<ReorderInstance>> {
    let text = pbebench_io::read_input_string(dataset)
        .with_context(|| format!("{}: cannot read", dataset.display()))?;
    let problems = read_reorder_lines(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}: {}; write the set again with `pbebench reorder`",
            dataset.display(),
            e.line,
            e.problem
        )
    })?;
    if problems.is_empty() {
        bail!("{}: the reordering set has no problems", dataset.display());
    }
    Ok(problems)
}

/// The prompts file of the reordering set `dataset` (the lines `pbebench prompt` writes),
/// and how many prompts it holds.
pub fn prompts(dataset: &Path) -> anyhow::Result<(Vec<u8>, usize)> {
    let problems = read_set(dataset)?;
    let mut lines = Vec::new();
    for problem in &problems {
        let prompt = reorder_prompt(problem);
        PromptLine::new(&problem.instance.id, &prompt).write_to(&mut lines)?;
    }
    Ok((lines, problems.len()))
}

/// Where the results go.
pub struct Outs<'a> {
    /// `--out`: the summary as JSON.
    pub out: Option<&'a Path>,
    /// `--per-instance`: one JSON line per problem.
    pub per_instance: Option<&'a Path>,
}

/// Scores `responses` against the reordering set `dataset`.
pub fn run(
    checked: &Checked,
    dataset: &Path,
    responses: &Path,
    block: BlockChoice,
    outs: Outs<'_>,
) -> anyhow::Result<()> {
    let problems = read_set(dataset)?;
    let out = checked.create_opt(outs.out)?;
    let per_instance = checked.create_opt(outs.per_instance)?;
    let instances: Vec<_> = problems.iter().map(|p| p.instance.clone()).collect();
    let read = read_responses(responses, &instances)?;
    let file = responses.display();
    for issue in read.unknown.iter().chain(&read.duplicates) {
        printer::warn(format_args!(
            "{file}:{}: {} (ignored)",
            issue.line, issue.message
        ));
    }
    let missing = problems
        .iter()
        .filter(|p| !read.by_id.contains_key(&p.instance.id))
        .count();
    if missing > 0 {
        printer::warn(format_args!(
            "{missing} problem(s) have no response in {file} (scored as failures)"
        ));
    }
    let scores = score_order_responses(&problems, &read.by_id, block);
    let summary = summarize_orders(&scores);
    say(&summary.to_string(), any_stdout([&out, &per_instance]));
    if let Some(out) = out {
        let json = serde_json::to_string_pretty(&summary)? + "\n";
        out.write_all(json.as_bytes())?;
    }
    if let Some(out) = per_instance {
        out.write(|w| write_order_score_lines(w, &scores))?;
    }
    Ok(())
}
