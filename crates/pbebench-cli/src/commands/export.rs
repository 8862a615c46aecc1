//! `pbebench export`: a dataset (ours or the authors' format) written in the authors'
//! published format, or in ours.

use super::output::Outputs;
use crate::printer;
use anyhow::Context;
use pbebench::dataset::{dataset_text, DatasetReader};
use pbebench::{authors_line, AuthorsExport, AuthorsOptions, RelationMode};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// The authors' JSONL (inputs, outputs, programs, bfcc_dag, cascade_length,
    /// bfcc_string, bfcc_category), byte for byte as their files are written.
    Authors,
    /// pbebench's own JSONL schema (what `generate` writes).
    Pbebench,
}

/// Arguments of `pbebench export`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pbebench generate --preset lite --out lite.jsonl && pbebench export --to authors --dataset lite.jsonl --out lite.authors.jsonl\n  \
pbebench export --to pbebench --dataset adaptive_balanced_1008_complete.jsonl --out lite.jsonl\n  \
pbebench export --to authors --original-programs --dataset lite.jsonl   (the layout of their Lite file)\n\n\
The authors' format has no ids (they read back as line numbers), no held-out examples and no limits \
(read back as inferred from the letters); export says on standard error what it left out. Instances \
without a gold cascade or with a symbol mapping (from pairs --cldf) are refused: it cannot hold them.")]
pub struct Args {
    /// The format to write.
    #[arg(long, value_enum)]
    to: To,
    /// The dataset (JSONL, pbebench's format or the authors').
    #[arg(long)]
    dataset: PathBuf,
    /// Write here (atomically) [default: "-", standard output].
    #[arg(long)]
    out: Option<PathBuf>,
    /// With --to authors: also write original_programs (a copy of programs), as the
    /// published PBEBench-Lite file has it.
    #[arg(long)]
    original_programs: bool,
    /// With --to authors: recompute bfcc_dag and bfcc_category with this classifier
    /// (paper: the authors' labels; exact) [default: each instance's own, and its stored
    /// category].
    #[arg(long, value_name = "MODE")]
    relations: Option<RelationMode>,
}

/// Runs `pbebench export`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.to == To::Pbebench && (args.original_programs || args.relations.is_some()) {
        anyhow::bail!("--original-programs and --relations apply only to --to authors");
    }
    let options = AuthorsOptions {
        original_programs: args.original_programs,
        relations: args.relations,
    };
    let out_path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(pbebench_io::STDOUT));
    let checked = Outputs::new()
        .input("--dataset", &args.dataset)
        .output("--out", &out_path)
        .check()?;
    if super::reorder_set::is_reorder_dataset(&args.dataset)? {
        return export_reorder(&args, &checked, &out_path);
    }
    let mut reader = DatasetReader::open(&args.dataset)?;
    let out = checked.create(&out_path)?;
    let mut export = AuthorsExport::default();
    let mut count = 0;
    // The first bad line stops the export; the output is then never put into place.
    let mut failure: Option<anyhow::Error> = None;
    let written = out.write(|w| {
        while let Some(item) = reader.next() {
            let line = item.map_err(anyhow::Error::from).and_then(|instance| {
                Ok(match args.to {
                    To::Authors => {
                        let at = format!("{}:{}", args.dataset.display(), reader.line());
                        let line = authors_line(&instance, &options).context(at)?;
                        export.note(count, &instance, &options);
                        line + "\n"
                    }
                    To::Pbebench => dataset_text([&instance]),
                })
            });
            match line {
                Ok(line) => {
                    w.write_all(line.as_bytes())?;
                    count += 1;
                }
                Err(e) => {
                    failure = Some(e);
                    return Err(io::Error::other("export stopped"));
                }
            }
        }
        Ok(())
    });
    if let Some(e) = failure {
        return Err(e);
    }
    written?;
    for warning in export.warnings() {
        printer::note(format_args!("note: {warning}"));
    }
    if !pbebench_io::is_stdout(&out_path) {
        printer::note(format_args!(
            "wrote {count} instances in {} to {}",
            describe(args.to),
            out_path.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// `export` of a reordering set (either format): the authors' reordering file, with
/// pbebench's prompt in `prompt`, or pbebench's reordering lines.
fn export_reorder(
    args: &Args,
    checked: &super::output::Checked,
    out_path: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    if args.original_programs || args.relations.is_some() {
        anyhow::bail!(
            "--original-programs and --relations apply to synthesis datasets: a reordering set's \
             records always hold original_programs and their category"
        );
    }
    let problems = super::reorder_set::read_set(&args.dataset)?;
    let mut text = String::new();
    for (k, problem) in problems.iter().enumerate() {
        match args.to {
            To::Authors => {
                let line = pbebench::reorder::authors_reorder_line(problem)
                    .with_context(|| format!("{}: problem {}", args.dataset.display(), k + 1))?;
                text += &line;
                text.push('\n');
            }
            To::Pbebench => {
                let mut bytes = Vec::new();
                pbebench::reorder::write_reorder_lines(&mut bytes, std::slice::from_ref(problem))?;
                text += &String::from_utf8(bytes)?;
            }
        }
    }
    let out = checked.create(out_path)?;
    out.write_all(text.as_bytes())?;
    if args.to == To::Authors {
        let heldout = (problems.iter())
            .filter(|p| !p.instance.heldout_inputs.is_empty())
            .count();
        if heldout > 0 {
            printer::note(format_args!(
                "note: {heldout} of {} problems: held-out examples left out (the format has none)",
                problems.len()
            ));
        }
        printer::note(format_args!(
            "note: prompt holds pbebench's reordering prompt (the authors' text is not published)"
        ));
    }
    if !pbebench_io::is_stdout(out_path) {
        printer::note(format_args!(
            "wrote {} reordering problems in {} to {}",
            problems.len(),
            describe(args.to),
            out_path.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn describe(to: To) -> &'static str {
    match to {
        To::Authors => "the authors' format",
        To::Pbebench => "pbebench's format",
    }
}
