//! `pbebench pairs`: real sound-change data (parallel word lists) as a dataset without gold
//! cascades, for `solve`, `prompt`, `eval` and `score`.

use super::output::Outputs;
use crate::printer;
use anyhow::{bail, Context};
use pbebench::dataset::dataset_text;
use pbebench::Instance;
use pbebench::{language_pairs, read_word_lists, LanguagePair, WordListOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `pbebench pairs`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pbebench pairs --dir testdata/pbebench-official/real_sli --out real_sli.jsonl\n  \
pbebench pairs --inputs proto.txt --outputs reflexes.txt --name mylang --chunk 0 --out mylang.jsonl\n  \
pbebench pairs --cldf testdata/cldf/toy/Wordlist-metadata.json --from proto --to dau --out toy.jsonl\n  \
pbebench solve --dataset real_sli.jsonl --out real.responses.jsonl && \
pbebench score --dataset real_sli.jsonl --responses real.responses.jsonl")]
pub struct Args {
    /// The inputs (e.g. proto-forms), one word per line.
    #[arg(
        long,
        value_name = "FILE",
        requires = "outputs",
        conflicts_with_all = ["dir", "cldf"]
    )]
    inputs: Option<PathBuf>,
    /// The outputs (e.g. attested reflexes), paired line by line with --inputs.
    #[arg(long, value_name = "FILE", requires = "inputs")]
    outputs: Option<PathBuf>,
    /// Name of that language pair, the prefix of the instance ids [default: the directory
    /// holding --inputs; with --cldf: the ID of --to].
    #[arg(long, conflicts_with = "dir")]
    name: Option<String>,
    /// Every subdirectory of DIR holding words.in and words.out (the authors' real_sli
    /// layout), in name order, each named after its directory.
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present_any = ["inputs", "cldf"],
        conflicts_with = "cldf"
    )]
    dir: Option<PathBuf>,
    #[command(flatten)]
    cldf: super::pairs_cldf::CldfArgs,
    /// Words per instance, in file order (0: the whole list in one instance).
    #[arg(long, value_name = "N", default_value_t = WordListOptions::default().chunk)]
    chunk: usize,
    /// The most rules a solution may use.
    #[arg(long, value_name = "N", default_value_t = WordListOptions::default().max_rules)]
    max_rules: usize,
    /// The longest side a rule may have, in characters.
    #[arg(long, value_name = "N", default_value_t = WordListOptions::default().max_rule_len)]
    max_rule_len: usize,
    /// The letters rules may use: letters and ranges (`a-ku-z`), or `lite` / `full`
    /// [default: every letter of the language's two lists].
    #[arg(
        long,
        value_name = "LETTERS",
        value_parser = super::args::alphabet,
        conflicts_with = "cldf"
    )]
    alphabet: Option<String>,
    /// Where to write the dataset (JSONL; "-": standard output).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Runs `pbebench pairs`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.max_rules == 0 || args.max_rule_len == 0 {
        bail!("--max-rules and --max-rule-len must be at least 1");
    }
    let options = WordListOptions {
        chunk: args.chunk,
        max_rules: args.max_rules,
        max_rule_len: args.max_rule_len,
        alphabet: args.alphabet,
    };
    if args.cldf.cldf.is_some() {
        return super::pairs_cldf::run(args.cldf, args.name, options, &args.out);
    }
    let mut languages: Vec<LanguagePair> = Vec::new();
    match (&args.inputs, &args.outputs, &args.dir) {
        (Some(inputs), Some(outputs), None) => {
            let name = match args.name {
                Some(name) => name,
                None => directory_name(inputs)
                    .with_context(|| format!("{}: give the pair a --name", inputs.display()))?,
            };
            languages.push(LanguagePair {
                name,
                inputs: inputs.clone(),
                outputs: outputs.clone(),
            });
        }
        (None, None, Some(dir)) => match language_pairs(dir)? {
            Some(found) => languages = found,
            None => bail!(
                "{}: no subdirectory holds words.in and words.out",
                dir.display()
            ),
        },
        _ => bail!("give --inputs and --outputs, or --dir"),
    }
    let mut files = Outputs::new();
    for l in &languages {
        files
            .input("--inputs", &l.inputs)
            .input("--outputs", &l.outputs);
    }
    let checked = files.output("--out", &args.out).check()?;
    let mut instances: Vec<Instance> = Vec::new();
    for l in &languages {
        instances.extend(read_word_lists(&l.name, &l.inputs, &l.outputs, &options)?);
    }
    checked.write(&args.out, dataset_text(&instances).as_bytes())?;
    let words: usize = instances.iter().map(|i| i.inputs.len()).sum();
    printer::note(format_args!(
        "wrote {} instances ({words} word pairs, {} language pair(s)) to {}",
        instances.len(),
        languages.len(),
        args.out.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// The name of the directory holding `file`, if it has one.
fn directory_name(file: &Path) -> Option<String> {
    let dir = file.parent()?;
    let dir = if dir.as_os_str().is_empty() {
        std::env::current_dir().ok()?
    } else {
        dir.canonicalize().ok()?
    };
    Some(dir.file_name()?.to_string_lossy().into_owned())
}
