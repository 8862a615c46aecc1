//! `pbebench prompt`: one prompt per instance of a dataset, as JSONL.

use super::output::Out;
use pbebench::dataset::read_dataset;
use pbebench::{PromptLine, PromptTemplate, DEFAULT_TEMPLATE};
use pbebench_io::Files;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `pbebench prompt`.
#[derive(clap::Args)]
pub struct Args {
    /// Dataset (JSONL, pbebench's format or the authors').
    #[arg(long, required_unless_present = "print_template")]
    dataset: Option<PathBuf>,
    /// Template file; placeholders: {inputs} {outputs} {max_rules} {max_rule_len} {alphabet}
    /// ({{ and }} for literal braces). Default: the built-in template (see --print-template).
    #[arg(long)]
    template: Option<PathBuf>,
    /// Write the JSONL here (atomically) [default: "-", standard output].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the default template and exit.
    #[arg(long, conflicts_with_all = ["dataset", "template", "out"])]
    print_template: bool,
}

/// Runs `pbebench prompt`: writes `{"id", "prompt", "messages": [{"role": "user", …}]}` lines.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.print_template {
        print!("{DEFAULT_TEMPLATE}");
        return Ok(ExitCode::SUCCESS);
    }
    let dataset_path = args.dataset.expect("clap requires --dataset");
    let out = args
        .out
        .as_deref()
        .unwrap_or(Path::new(pbebench_io::STDOUT));
    let mut files = Files::new();
    files.input("--dataset", &dataset_path).output("--out", out);
    if let Some(template) = &args.template {
        files.input("--template", template);
    }
    files.check()?;
    let template = PromptTemplate::load(args.template.as_deref())?;
    if let Some(file) = template.file() {
        for w in template.warnings() {
            eprintln!("warning: {}: {w}", file.display());
        }
    }
    let dataset = read_dataset(&dataset_path)?;
    let mut lines = Vec::new();
    for instance in &dataset {
        let prompt = template.render(instance);
        PromptLine::new(&instance.id, &prompt).write_to(&mut lines)?;
    }
    let to_file = !pbebench_io::is_stdout(out);
    Out::create(out)?.write_all(&lines)?;
    if to_file {
        eprintln!("wrote {} prompts to {}", dataset.len(), out.display());
    }
    Ok(ExitCode::SUCCESS)
}
