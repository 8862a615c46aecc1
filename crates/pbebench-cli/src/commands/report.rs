//! `pbebench report`: a leaderboard, SVG figures, a logistic regression and one
//! self-contained `index.html` from scored results.

use super::output::Outputs;
use crate::printer;
use anyhow::{bail, Context};
use pbebench::dataset::read_dataset;
use pbebench_vet::audit::AuditFindings;
use pbebench_vet::report::{build, ReportInput, Transcript};
use pbebench_vet::{
    is_reorder_spec, load_reorder_results, load_results, GenerationStats, ResultSet,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `pbebench report`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pbebench report --results beam=runs/beam/per-instance.jsonl --results runs/gpt --out report\n  \
pbebench report --results a.per.jsonl b.per.jsonl --generation-stats gen.stats.json --dataset lite.jsonl --audit audit.json --out report")]
pub struct Args {
    /// Scored results, one per solver or model: [LABEL=]FILE[,FILE] with the per-instance
    /// JSONL of `pbebench score --per-instance` and/or its --out summary (or an eval run's
    /// results.json), or a directory holding them. Results on a reordering set get the
    /// page's reordering section.
    #[arg(long = "results", value_name = "R", required = true, num_args = 1..)]
    results: Vec<String>,
    /// Generation statistics (`pbebench generate --stats-json`, or the authors'
    /// generation_stats.json), for the balance and efficiency figures.
    #[arg(long = "generation-stats", value_name = "FILE", num_args = 1..)]
    generation_stats: Vec<PathBuf>,
    /// The dataset the results are for: checks them against it and sets the relation
    /// mode of predicted categories.
    #[arg(long, value_name = "FILE")]
    dataset: Option<PathBuf>,
    /// An audit (`pbebench audit --out`) to include.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Directory to write index.html, the SVG figures, leaderboard.md and report.json into.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Heading of the page.
    #[arg(long)]
    title: Option<String>,
}

/// Runs `pbebench report`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dataset = match &args.dataset {
        Some(p) => {
            let d = read_dataset(p)?;
            if d.is_empty() {
                bail!("{}: the dataset has no instances", p.display());
            }
            Some((p.display().to_string(), d))
        }
        None => None,
    };
    // Reordering results get their own section; the others are synthesis results.
    let (reorder_specs, specs): (Vec<String>, Vec<String>) =
        (args.results.iter().cloned()).partition(|spec| is_reorder_spec(spec));
    let reorder = load_reorder_results(&reorder_specs)?;
    // With reordering results alone, there is no synthesis leaderboard to print.
    let synthesis_given = !specs.is_empty();
    let (results, mut warnings) = load_results(
        &specs,
        dataset.as_ref().map(|(n, d)| (d.as_slice(), n.as_str())),
    )?;
    let generation = args
        .generation_stats
        .iter()
        .map(|p| GenerationStats::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let audit = match &args.audit {
        Some(p) => {
            let a = AuditFindings::read(p)?;
            if let Some((_, d)) = &dataset {
                if a.instances != d.len() {
                    warnings.push(format!(
                        "{} audits {} instances, the dataset has {}: is it the audit of another dataset?",
                        p.display(),
                        a.instances,
                        d.len()
                    ));
                }
            }
            Some(a)
        }
        None => None,
    };
    // Every file read, for the check that no output is one of them.
    let mut files = Outputs::new();
    let results_read: Vec<PathBuf> = (results.iter().flat_map(|r| r.sources.clone()))
        .chain(reorder.iter().flat_map(|r| r.sources.clone()))
        .collect();
    let title = args.title.clone().unwrap_or_else(|| match &dataset {
        Some((name, _)) => format!("pbebench report — {name}"),
        None => "pbebench report".to_owned(),
    });
    let transcripts = transcripts(&results, &mut warnings);
    let report = build(ReportInput {
        title,
        results,
        generation,
        audit,
        dataset,
        warnings,
        transcripts,
        reorder,
    });
    for (option, path) in results_read
        .iter()
        .map(|p| ("--results", p))
        .chain(
            args.generation_stats
                .iter()
                .map(|p| ("--generation-stats", p)),
        )
        .chain(args.dataset.iter().map(|p| ("--dataset", p)))
        .chain(args.audit.iter().map(|p| ("--audit", p)))
    {
        files.input(option, path);
    }
    let names = report.file_names();
    files.output_dir("--out", &args.out, names.iter().map(String::as_str));
    files.check()?;
    for w in &report.warnings {
        printer::warn(w);
    }
    report
        .write(&args.out)
        .with_context(|| format!("{}: cannot write the report", args.out.display()))?;
    if synthesis_given {
        print!("{}", report.leaderboard_markdown());
    }
    let index = args.out.join("index.html");
    printer::note(format_args!(
        "report: {} figure(s), {} regression(s); open {}",
        report.figures.len(),
        report.regressions.len(),
        file_url(&index)
    ));
    Ok(ExitCode::SUCCESS)
}

/// A `file://` URL for a path (absolute when it can be resolved).
pub fn file_url(path: &std::path::Path) -> String {
    let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", abs.display())
}

/// Episodes linked from the page, per interactive run.
const EPISODES_SHOWN: usize = 3;

/// The transcripts of a few episodes of each interactive run, as `pbebench show` prints
/// them; a run whose store cannot be read gets a warning instead.
fn transcripts(results: &[ResultSet], warnings: &mut Vec<String>) -> Vec<Transcript> {
    let mut out = Vec::new();
    for r in results {
        let Some(run) = r.run_dir() else { continue };
        for e in r.episodes_to_show(EPISODES_SHOWN) {
            match pbebench_eval::transcript::render(run, &e.instance_id, e.sample) {
                Ok(text) => out.push(Transcript {
                    label: r.label.clone(),
                    instance_id: e.instance_id.clone(),
                    sample: e.sample,
                    text,
                }),
                Err(err) => warnings.push(format!(
                    "{}: no transcript of {} sample {}: {err}",
                    r.label, e.instance_id, e.sample
                )),
            }
        }
    }
    out
}
