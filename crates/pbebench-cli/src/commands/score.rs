//! `pbebench score`: score responses against a dataset; summary table, JSON results.

use anyhow::{bail, Context};
use pbebench::dataset::read_dataset;
use pbebench::response::BlockChoice;
use pbebench::score::{report, score_responses, Aggregate, ScoreOptions, ScoreReport};
use pbebench_io::AtomicFile;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `pbebench score`.
#[derive(clap::Args)]
pub struct Args {
    /// Dataset (JSONL, pbebench's format or the authors').
    #[arg(long)]
    dataset: PathBuf,
    /// Responses (JSONL): {"id", "response"}, {"id", "sample", "response"},
    /// {"id", "responses": […]}, or the authors' {"input": {…, "index"}, "outputs": […]}.
    #[arg(long)]
    responses: PathBuf,
    /// Which fenced code block holds the answer.
    #[arg(long, default_value_t = BlockChoice::Last)]
    block: BlockChoice,
    /// Write the summary and input problems here as JSON.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write one JSON line per instance here (its samples, choice and figures).
    #[arg(long, value_name = "FILE")]
    per_instance: Option<PathBuf>,
}

/// The `--out` file: where the figures came from, then the report.
#[derive(serde::Serialize)]
struct Results<'a> {
    dataset: &'a Path,
    responses: &'a Path,
    #[serde(flatten)]
    report: &'a ScoreReport,
}

/// How many unknown/duplicate lines and missing ids are printed before "… and N more".
const SHOWN: usize = 5;

/// Runs `pbebench score`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
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
    let create = |path: &PathBuf| {
        AtomicFile::create(path).with_context(|| format!("{}: cannot create", path.display()))
    };
    let out_file = args.out.as_ref().map(create).transpose()?;
    let per_instance_file = args.per_instance.as_ref().map(create).transpose()?;
    let options = ScoreOptions { block: args.block };
    let (scores, responses) = score_responses(&args.responses, &dataset, &options)?;
    let report = report(&scores, &responses, &options);
    warn_about_input(&report, &args.responses);
    print!("{}", table(&report));

    if let (Some(mut file), Some(path)) = (out_file, &args.out) {
        let results = Results {
            dataset: &args.dataset,
            responses: &args.responses,
            report: &report,
        };
        serde_json::to_writer_pretty(&mut file, &results)?;
        file.write_all(b"\n")
            .and_then(|()| file.commit())
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if let (Some(mut file), Some(path)) = (per_instance_file, &args.per_instance) {
        let written: std::io::Result<()> = scores.iter().try_for_each(|score| {
            serde_json::to_writer(&mut file, score)?;
            file.write_all(b"\n")
        });
        written
            .and_then(|()| file.commit())
            .with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn warn_about_input(report: &ScoreReport, responses: &Path) {
    let file = responses.display();
    for (what, issues) in [
        ("unknown id", &report.unknown),
        ("duplicate", &report.duplicates),
    ] {
        for issue in issues.iter().take(SHOWN) {
            eprintln!(
                "warning: {file}:{}: {} (ignored)",
                issue.line, issue.message
            );
        }
        if issues.len() > SHOWN {
            eprintln!("warning: … and {} more {what} lines", issues.len() - SHOWN);
        }
    }
    if !report.missing.is_empty() {
        let shown: Vec<&str> = report
            .missing
            .iter()
            .take(SHOWN)
            .map(String::as_str)
            .collect();
        let more = report.missing.len().saturating_sub(SHOWN);
        eprintln!(
            "warning: {} instance{} no response in {file} (scored as failures): {}{}",
            report.missing.len(),
            if report.missing.len() == 1 {
                " has"
            } else {
                "s have"
            },
            shown.join(", "),
            if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            }
        );
    }
}

fn table(report: &ScoreReport) -> String {
    let s = &report.summary;
    let o = &s.overall;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "instances {}  samples {}  missing {}  unknown ids {}  duplicates {}  degenerate {}  block {}",
        o.instances,
        o.samples,
        report.missing.len(),
        report.unknown.len(),
        report.duplicates.len(),
        o.degenerate,
        report.options.block,
    );
    let _ = writeln!(
        out,
        "{:<10} {:>6} {:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7} {:>8} {:>7}",
        "group",
        "n",
        "pass",
        "edit_sim",
        "ed_word",
        "valid",
        "v_resp",
        "reward",
        "almost",
        "resolved",
        "heldout"
    );
    let mut row = |name: String, a: &Aggregate| {
        let opt = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
        let _ = writeln!(
            out,
            "{:<10} {:>6} {:>7.3} {:>8.3} {:>8.3} {:>7} {:>7} {:>7.3} {:>7.3} {:>8.3} {:>7}",
            name,
            a.instances,
            a.pass,
            a.edit_sim,
            a.edit_sim_word,
            opt(a.valid_rate),
            opt(a.valid_response_rate),
            a.mean_reward,
            a.almost,
            a.resolved,
            opt(a.heldout_pass),
        );
    };
    row("overall".to_owned(), o);
    for (len, a) in &s.by_cascade_len {
        row(format!("len {len}"), a);
    }
    for (cat, a) in &s.by_category {
        row(format!("cat {cat}"), a);
    }
    let at_k = |m: &std::collections::BTreeMap<usize, f64>| {
        m.iter()
            .map(|(k, v)| format!("{k}: {v:.3}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    if !o.pass_at_k.is_empty() {
        let _ = writeln!(out, "pass@k     {}", at_k(&o.pass_at_k));
        let _ = writeln!(out, "edit_sim@k {}", at_k(&o.edit_sim_at_k));
    }
    out
}
