//! `pbebench derive`: the derivation table of a cascade on some words (one row per rule,
//! one column per word), as historical linguists write it. The table is
//! `pbebench::derivation`'s; this reads the arguments and prints it.

use super::cascade_arg::read_cascade;
use anyhow::{bail, Context};
use pbebench::dataset::read_dataset;
use pbebench::derivation::Derivation;
use pbebench::equiv::{length_bound, length_bound_of};
use pbebench::{parse_response, read_responses, BlockChoice, Cascade, RelationMode, RuleLimits};
use std::path::PathBuf;
use std::process::ExitCode;

/// Output format of `pbebench derive`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    /// An aligned text table.
    Text,
    /// An HTML `<table>` (with its style), to paste into a page.
    Html,
}

/// Arguments of `pbebench derive`.
#[derive(clap::Args)]
#[command(after_help = "\
Each row is one rule and shows every word's form after it; a changed cell is marked \
(`*` in text, highlighted in HTML). The last column names the rule's relations to the \
others, numbered from 1: `feeds 3` (it can create an occurrence of rule 3's pattern, and \
comes first), `bleeds 3` (it can destroy one), `counter-feeds 1` / `counter-bleeds 1` \
(it would, but rule 1 comes first). With --dataset, the instance's outputs are the last \
row, a wrong one marked `≠`, and for real data (no gold) the irregular words are listed: \
those the rules do not derive, and those only a rule of their own changes. A dataset read from \
CLDF (`pairs --cldf`) is shown in IPA, each rule also as a sound law (`a > b / L _ R`).

Forms are bounded (16 times the longest word or example string, at least 256 \
characters): a cascade whose forms outgrow it shows `…` from there on.

Examples:
  pbebench derive --cascade '[[\"a\",\"b\"],[\"b\",\"c\"]]' ab ba x
  pbebench derive --dataset data.jsonl --id lite-00003 --responses responses.jsonl --format html")]
pub struct Args {
    /// The cascade: a JSON array of [pattern, replacement] pairs, or @FILE holding one.
    #[arg(long, conflicts_with_all = ["dataset", "id", "responses"], requires = "words")]
    cascade: Option<String>,
    /// The words to derive (with --cascade).
    words: Vec<String>,
    /// A dataset: derive the inputs of instance --id with its gold cascade (or, with
    /// --responses, with the answer to it).
    #[arg(long, requires = "id")]
    dataset: Option<PathBuf>,
    /// The instance of --dataset.
    #[arg(long)]
    id: Option<String>,
    /// A responses file (JSONL): the first response to --id, parsed as scoring parses it
    /// (the last fenced block, rules outside the instance's limits as the identity).
    #[arg(long, requires = "dataset")]
    responses: Option<PathBuf>,
    /// Relation classifier: exact (sound and complete) or paper (the published formula).
    #[arg(long, default_value = "exact")]
    mode: RelationMode,
    /// text or html.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Runs `pbebench derive`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (derivation, real) = match (&args.cascade, &args.dataset) {
        (Some(cascade), None) => {
            let cascade = read_cascade(cascade)?;
            let longest = args.words.iter().map(|w| w.chars().count()).max();
            let bound = length_bound_of(longest.unwrap_or(0));
            (
                Derivation::new(&cascade, &args.words, args.mode, bound),
                false,
            )
        }
        (None, Some(dataset)) => {
            if !args.words.is_empty() {
                bail!("words are derived with --cascade; with --dataset the instance's inputs are");
            }
            from_dataset(&args, dataset)?
        }
        _ => bail!("give --cascade C WORD…, or --dataset D --id ID [--responses R]"),
    };
    match args.format {
        // Words no law explains are a finding about real data (a gold derives every word).
        Format::Text if real => print!("{derivation}{}", derivation.irregular_text()),
        Format::Text => print!("{derivation}"),
        Format::Html => print!("{}", derivation.to_html()),
    }
    Ok(ExitCode::SUCCESS)
}

/// The derivation of instance `--id` of `dataset`, by its gold or by the answer to it
/// (its forms in IPA when the dataset keeps segments as symbols).
/// With whether the instance is real data (no gold), whose irregular words are listed.
fn from_dataset(args: &Args, dataset: &PathBuf) -> anyhow::Result<(Derivation, bool)> {
    let id = args.id.as_deref().context("--dataset needs --id")?;
    let instances = read_dataset(dataset)?;
    let Some(inst) = instances.iter().find(|i| i.id == id) else {
        bail!("{}: no instance with id '{id}' (--id)", dataset.display());
    };
    let cascade: Cascade = match &args.responses {
        Some(path) => {
            let responses = read_responses(path, std::slice::from_ref(inst))?;
            let Some(text) = responses.by_id.get(id).and_then(|r| r.first()) else {
                bail!("{}: no response to instance '{id}'", path.display());
            };
            parse_response(text, &RuleLimits::of(inst), BlockChoice::Last).cascade()
        }
        None => match &inst.cascade {
            Some(gold) => gold.clone(),
            None => bail!(
                "{}: instance '{id}' has no gold cascade: give --responses",
                dataset.display()
            ),
        },
    };
    let derivation = Derivation::new(&cascade, &inst.inputs, args.mode, length_bound(inst))
        .with_symbols(&inst.symbols);
    Ok((
        derivation.with_expected(&inst.outputs),
        inst.cascade.is_none(),
    ))
}
