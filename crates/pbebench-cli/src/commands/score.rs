//! `pbebench score`: score responses against a dataset; the summary table, `results.json`
//! and the per-instance lines.

use super::output::{any_stdout, say, Outputs};
use crate::printer;
use anyhow::bail;
use pbebench::dataset::read_dataset;
use pbebench::{score_responses, write_score_lines, BlockChoice, Results, ScoreOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `pbebench score`.
#[derive(clap::Args)]
pub struct Args {
    /// Dataset (JSONL, pbebench's format or the authors'), or a reordering set
    /// (`pbebench reorder`'s file: its responses are orders, JSON arrays of indices).
    #[arg(long)]
    dataset: PathBuf,
    /// Responses (JSONL): {"id", "response"}, {"id", "sample", "response"},
    /// {"id", "responses": […]}, or the authors' {"input": {…, "index"}, "outputs": […]}.
    #[arg(long)]
    responses: PathBuf,
    /// Which fenced code block holds the answer.
    #[arg(long, default_value_t = BlockChoice::Last)]
    block: BlockChoice,
    /// Write the results (summary and input problems) here as JSON ("-": standard output,
    /// and the table goes to standard error).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Leave out the behaviour grading (recovered, behaviour, Recovered@1: exact
    /// equivalence with the gold over each instance's input space), for speed when only
    /// the fit to the examples matters.
    #[arg(long)]
    no_behaviour: bool,
    /// Write one JSON line per instance here (its samples, choice and figures; "-":
    /// standard output).
    #[arg(long, value_name = "FILE")]
    per_instance: Option<PathBuf>,
}

/// How many unknown/duplicate lines and missing ids are printed before "… and N more".
const SHOWN: usize = 5;

/// Runs `pbebench score`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let checked = Outputs::new()
        .input("--dataset", &args.dataset)
        .input("--responses", &args.responses)
        .output_opt("--out", args.out.as_deref())
        .output_opt("--per-instance", args.per_instance.as_deref())
        .check()?;
    if super::reorder_set::is_reorder_dataset(&args.dataset)? {
        let outs = super::reorder_set::Outs {
            out: args.out.as_deref(),
            per_instance: args.per_instance.as_deref(),
        };
        super::reorder_set::run(&checked, &args.dataset, &args.responses, args.block, outs)?;
        return Ok(ExitCode::SUCCESS);
    }
    let dataset = read_dataset(&args.dataset)?;
    if dataset.is_empty() {
        bail!("{}: the dataset has no instances", args.dataset.display());
    }
    for instance in &dataset {
        let structural = instance.inputs.is_empty()
            || instance.inputs.len() != instance.outputs.len()
            || instance.heldout_inputs.len() != instance.heldout_outputs.len();
        if structural {
            bail!(
                "{}: instance '{}': {}; fix the dataset (`pbebench inspect` lists every problem)",
                args.dataset.display(),
                instance.id,
                instance.problems().join("; ")
            );
        }
    }
    // Opened first so that an unwritable path fails before the work, not after.
    let out = checked.create_opt(args.out.as_deref())?;
    let per_instance = checked.create_opt(args.per_instance.as_deref())?;
    let options = ScoreOptions {
        block: args.block,
        skip_behaviour: args.no_behaviour,
    };
    let (scores, responses) = score_responses(&args.responses, &dataset, &options)?;
    let mut results = Results::of(&scores, &responses, &options);
    results.dataset = Some(args.dataset.clone());
    results.responses = Some(args.responses.clone());
    warn_about_input(&results, &args.responses);
    say(&results.to_string(), any_stdout([&out, &per_instance]));
    if let Some(out) = out {
        out.write_all(results.to_json().as_bytes())?;
    }
    if let Some(out) = per_instance {
        out.write(|w| write_score_lines(w, &scores))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn warn_about_input(results: &Results, responses: &Path) {
    let file = responses.display();
    for (what, issues) in [
        ("unknown id", &results.unknown),
        ("duplicate", &results.duplicates),
    ] {
        for issue in issues.iter().take(SHOWN) {
            printer::warn(format_args!(
                "{file}:{}: {} (ignored)",
                issue.line, issue.message
            ));
        }
        if issues.len() > SHOWN {
            printer::warn(format_args!(
                "… and {} more {what} lines",
                issues.len() - SHOWN
            ));
        }
    }
    let missing = &results.missing;
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(SHOWN).map(String::as_str).collect();
        let more = missing.len().saturating_sub(SHOWN);
        printer::warn(format_args!(
            "{} instance{} no response in {file} (scored as failures): {}{}",
            missing.len(),
            if missing.len() == 1 { " has" } else { "s have" },
            shown.join(", "),
            if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            }
        ));
    }
}
