//! `pbebench prompt`: one prompt per instance of a dataset, as JSONL.

use anyhow::Context;
use pbebench::dataset::read_dataset;
use pbebench::prompt::{Template, DEFAULT_TEMPLATE};
use pbebench_io::AtomicFile;
use std::io::Write;
use std::path::PathBuf;
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
    /// Write the JSONL here (atomically) instead of to stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the default template and exit.
    #[arg(long, conflicts_with_all = ["dataset", "template", "out"])]
    print_template: bool,
}

/// One output line: the prompt, and the same as chat messages.
#[derive(serde::Serialize)]
struct PromptLine<'a> {
    id: &'a str,
    prompt: &'a str,
    messages: [Message<'a>; 1],
}

/// A chat message in the OpenAI format.
#[derive(serde::Serialize)]
struct Message<'a> {
    role: &'a str,
    content: &'a str,
}

/// Runs `pbebench prompt`: writes `{"id", "prompt", "messages": [{"role": "user", …}]}` lines.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.print_template {
        print!("{DEFAULT_TEMPLATE}");
        return Ok(ExitCode::SUCCESS);
    }
    let template = match &args.template {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the template", path.display()))?;
            let template = Template::parse(&text).with_context(|| format!("{}", path.display()))?;
            for w in template.warnings() {
                eprintln!("warning: {}: {w}", path.display());
            }
            template
        }
        None => Template::default(),
    };
    let dataset_path = args.dataset.expect("clap requires --dataset");
    let dataset = read_dataset(&dataset_path)?;
    let mut lines = String::new();
    for instance in &dataset {
        let prompt = template.render(instance);
        let record = PromptLine {
            id: &instance.id,
            prompt: &prompt,
            messages: [Message {
                role: "user",
                content: &prompt,
            }],
        };
        lines.push_str(&serde_json::to_string(&record)?);
        lines.push('\n');
    }
    match &args.out {
        Some(path) => {
            let mut file = AtomicFile::create(path)
                .with_context(|| format!("{}: cannot create", path.display()))?;
            file.write_all(lines.as_bytes())
                .and_then(|()| file.commit())
                .with_context(|| format!("{}: cannot write", path.display()))?;
            eprintln!("wrote {} prompts to {}", dataset.len(), path.display());
        }
        None => match std::io::stdout().lock().write_all(lines.as_bytes()) {
            // The reader (e.g. `head`) has what it wanted: stop quietly, like other Unix tools.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            result => result.context("cannot write to stdout")?,
        },
    }
    Ok(ExitCode::SUCCESS)
}
