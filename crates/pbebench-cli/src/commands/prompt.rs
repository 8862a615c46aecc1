//! `pbebench prompt`: one prompt per instance of a dataset, as JSONL.

use super::output::Outputs;
use crate::printer;
use anyhow::{bail, Context};
use pbebench::dataset::read_dataset;
use pbebench::{PromptLine, PromptTemplate};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `pbebench prompt`.
#[derive(clap::Args)]
pub struct Args {
    /// Dataset (JSONL, pbebench's format or the authors'), or a reordering set
    /// (`pbebench reorder`'s file: each problem gets pbebench's reordering prompt).
    #[arg(long, required_unless_present = "print_template")]
    dataset: Option<PathBuf>,
    /// A built-in template (default; authors: the authors' released prompt, byte for byte)
    /// or a template file (./NAME for a file named like a built-in one); placeholders:
    /// {inputs} {outputs} {max_rules} {max_rule_len} {alphabet} ({{ and }} for literal
    /// braces) [default: default; see --print-template].
    #[arg(long, value_name = "NAME|FILE")]
    template: Option<PathBuf>,
    /// Write the JSONL here (atomically) [default: "-", standard output].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print a built-in template (default, authors) and exit.
    #[arg(
        long,
        value_name = "NAME",
        num_args = 0..=1,
        default_missing_value = "default",
        conflicts_with_all = ["dataset", "template", "out"]
    )]
    print_template: Option<String>,
}

/// Runs `pbebench prompt`: writes `{"id", "prompt", "messages": [{"role": "user", …}]}` lines.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(name) = &args.print_template {
        let names: Vec<&str> = pbebench::BUILT_IN_TEMPLATES
            .iter()
            .map(|(n, _)| *n)
            .collect();
        let template = PromptTemplate::built_in(name).with_context(|| {
            format!(
                "--print-template: no built-in template '{name}' (the built-in ones: {})",
                names.join(", ")
            )
        })?;
        print!("{}", template.text());
        return Ok(ExitCode::SUCCESS);
    }
    let dataset_path = args.dataset.expect("clap requires --dataset");
    let out = args
        .out
        .as_deref()
        .unwrap_or(Path::new(pbebench_io::STDOUT));
    let mut files = Outputs::new();
    files.input("--dataset", &dataset_path).output("--out", out);
    // A built-in template's name is no file.
    let template_file = args
        .template
        .as_ref()
        .filter(|spec| spec.to_str().and_then(PromptTemplate::built_in).is_none());
    if let Some(template) = template_file {
        files.input("--template", template);
    }
    let checked = files.check()?;
    if super::reorder_set::is_reorder_dataset(&dataset_path)? {
        if args.template.is_some() {
            bail!(
                "--template: {} is a reordering set, whose prompts are pbebench's own \
                 (templates are for synthesis datasets); leave out --template",
                dataset_path.display()
            );
        }
        let (lines, count) = super::reorder_set::prompts(&dataset_path)?;
        let to_file = !pbebench_io::is_stdout(out);
        checked.write(out, &lines)?;
        if to_file {
            printer::note(format_args!(
                "wrote {count} reordering prompts to {}",
                out.display()
            ));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let template = match &args.template {
        Some(spec) => PromptTemplate::named_or_file(spec)?,
        None => PromptTemplate::default(),
    };
    if let Some(file) = template.file() {
        for w in template.warnings() {
            printer::warn(format_args!("{}: {w}", file.display()));
        }
    }
    let dataset = read_dataset(&dataset_path)?;
    let mut lines = Vec::new();
    for instance in &dataset {
        let prompt = template.render(instance);
        PromptLine::new(&instance.id, &prompt).write_to(&mut lines)?;
    }
    let to_file = !pbebench_io::is_stdout(out);
    checked.write(out, &lines)?;
    if to_file {
        printer::note(format_args!(
            "wrote {} prompts to {}",
            dataset.len(),
            out.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}
