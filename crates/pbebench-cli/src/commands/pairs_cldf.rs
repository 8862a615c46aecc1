//! `pbebench pairs --cldf`: the forms of two languages of a CLDF Wordlist, paired by
//! cognate set (or concept), as a dataset (`pbebench::cldf` reads and pairs them; this
//! maps its fields to flags and prints what was left out).

use super::output::Outputs;
use anyhow::Context;
use pbebench::cldf::{read_cldf_pairs, CldfError, CldfOptions, CldfPairs, Link};
use pbebench::dataset::dataset_text;
use pbebench::WordListOptions;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// How `--link` pairs forms.
#[derive(Clone, Copy, clap::ValueEnum)]
enum LinkArg {
    // (No doc comments: they would turn `pairs --help` into its long layout; --link's
    // help says what each value does.)
    Auto,
    Cognates,
    Concepts,
}

/// The options of `pbebench pairs` that read a CLDF Wordlist.
#[derive(clap::Args)]
pub struct CldfArgs {
    /// A CLDF Wordlist's metadata file (e.g. cldf/Wordlist-metadata.json): pair the forms
    /// of --from and --to. Columns are found by their CLDF property in the metadata.
    #[arg(long, value_name = "METADATA", requires_all = ["from", "to"])]
    pub cldf: Option<PathBuf>,
    /// The language of the inputs (e.g. the proto-language): an ID of the dataset's
    /// language table, or a name or Glottocode it holds once.
    #[arg(long, value_name = "LANG", requires = "cldf")]
    from: Option<String>,
    /// The language of the outputs (e.g. a daughter language); the prefix of the
    /// instance ids is its ID, unless --name gives one.
    #[arg(long, value_name = "LANG", requires = "cldf")]
    to: Option<String>,
    /// How forms are paired: by cognate set (the CognateTable) or by concept (the forms'
    /// Parameter_ID); auto: by cognate set when the dataset has a cognate table.
    #[arg(long, value_enum, default_value = "auto", requires = "cldf")]
    link: LinkArg,
    /// Write `#` at both ends of every word, so that rules can name a word's edges.
    #[arg(long, requires = "cldf")]
    boundaries: bool,
    /// Keep the forms of the two languages that are in no pair in FILE (tab-separated:
    /// language, form ID, line, reason, segments); without it they are dropped, and
    /// counted either way.
    #[arg(long, value_name = "FILE", requires = "cldf")]
    unpaired: Option<PathBuf>,
}

/// Runs `pbebench pairs --cldf`.
/// `name`: `--name`, the prefix of the instance ids (default: the ID of `--to`).
pub fn run(
    args: CldfArgs,
    name: Option<String>,
    words: WordListOptions,
    out: &Path,
) -> anyhow::Result<ExitCode> {
    let metadata = args.cldf.context("--cldf")?;
    let options = CldfOptions {
        from: args.from.context("--cldf needs --from")?,
        to: args.to.context("--cldf needs --to")?,
        link: match args.link {
            LinkArg::Auto => Link::Auto,
            LinkArg::Cognates => Link::Cognates,
            LinkArg::Concepts => Link::Concepts,
        },
        boundaries: args.boundaries,
        name,
        words,
    };
    let mut files = Outputs::new();
    files.input("--cldf", &metadata).output("--out", out);
    files.output_opt("--unpaired", args.unpaired.as_deref());
    let checked = files.check()?;
    let pairs = read_cldf_pairs(&metadata, &options).map_err(flagged)?;
    checked.write(out, dataset_text(&pairs.instances).as_bytes())?;
    if let Some(path) = &args.unpaired {
        checked.write(path, unpaired_table(&pairs).as_bytes())?;
    }
    crate::printer::note_text(&summary(&pairs, out, args.unpaired.as_deref()));
    Ok(ExitCode::SUCCESS)
}

/// The library's error, its fields and choices named as the flags that set them.
fn flagged(error: CldfError) -> anyhow::Error {
    let text = error.to_string();
    let text = match &error {
        CldfError::UnknownLanguage { field, .. } => {
            let rest = text.strip_prefix(field).unwrap_or(&text);
            format!("--{field}{rest}")
        }
        CldfError::SameLanguage(_) => text.replace("from and to are", "--from and --to are"),
        _ => text,
    };
    anyhow::anyhow!(text
        .replace("pair by concept", "pair by concept (--link concepts)")
        .replace(
            "pair by cognate set",
            "pair by cognate set (--link cognates)"
        )
        .replace("leave word boundaries off", "leave out --boundaries"))
}

/// The forms in no pair, one a line, with a header.
fn unpaired_table(pairs: &CldfPairs) -> String {
    let mut table = String::from("language\tform\tline\treason\tsegments\n");
    for u in &pairs.unpaired {
        let _ = writeln!(
            table,
            "{}\t{}\t{}\t{}\t{}",
            u.language,
            u.form,
            u.line,
            u.reason.as_str(),
            u.segments
        );
    }
    table
}

/// What was written, what was left out (by language and reason), and the symbols.
fn summary(pairs: &CldfPairs, out: &Path, unpaired: Option<&Path>) -> String {
    let words: usize = pairs.instances.iter().map(|i| i.inputs.len()).sum();
    let (from, to) = &pairs.languages;
    let by = match pairs.link {
        Link::Concepts => "concept",
        _ => "cognate set",
    };
    let mut text = format!(
        "wrote {} instances ({words} word pairs, {from} > {to}, paired by {by}) to {}\n",
        pairs.instances.len(),
        out.display()
    );
    let skips = pairs.skips();
    if !skips.is_empty() {
        let kept = match unpaired {
            Some(path) => format!("kept in {}", path.display()),
            None => "dropped; --unpaired FILE keeps them".to_owned(),
        };
        let _ = writeln!(text, "forms in no pair ({kept}):");
        for language in [from, to] {
            let of = skips.iter().filter(|((l, _), _)| l == language);
            for ((_, reason), n) in of {
                let _ = writeln!(text, "  {language}: {n} ({})", reason.as_str());
            }
        }
    }
    if !pairs.symbols.is_empty() {
        let _ = writeln!(
            text,
            "segments written as one symbol (kept in the dataset): {}",
            pairs.symbols
        );
    }
    text
}
