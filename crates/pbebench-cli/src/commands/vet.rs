//! `pbebench vet`: make a vetted snapshot of a dataset (issue 20): attack every instance,
//! add counterexamples until the visible examples pin the behaviour down, replace what
//! cannot be pinned. The loop, its journal and the statistics are
//! `pbebench_vet::vet_dataset`'s; this parses the arguments and shows progress.

use super::args::{Resumable, Threads};
use super::output::{Checked, Outputs};
use crate::printer::{self, Progress};
use anyhow::{bail, Context};
use pbebench::dataset::read_dataset;
use pbebench::Instance;
use pbebench_vet::{
    vet_dataset, Panel, VetCounts, VetError, VetField, VetJob, VetOptions, VetProgress, VetSummary,
    DEFAULT_MAX_EXAMPLES, DEFAULT_PANEL, REPLACEMENT_ATTEMPTS, REPLACEMENT_ATTEMPTS_LIMIT,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `pbebench vet`.
#[derive(clap::Args)]
#[command(
    after_help = "Each instance is attacked by the panel from its visible examples. An answer that \
fits them but differs from the gold somewhere in the instance's input space (its alphabet, input \
lengths 2-6 or those it holds) gives a shortest input on which they differ; that input, with the \
gold's output, becomes a new visible example (held-out inputs never do), and the instance is \
attacked again, up to --max-examples. An instance still ambiguous then, or one a shortcut baseline \
recovers, is replaced by a fresh instance of the same quota from the generator (parameters told by \
ids such as lite-s0-00012 of an unmodified preset), up to --replacements fresh instances; a slot \
none of them fills is dropped and reported by cascade length, and without generation parameters \
it is dropped at once. \
Every line gets a `repair` field saying what was added and why.\n\n\
Panel members: neighbours (the gold's cascades one edit away: a rule dropped, two swapped, a \
side cut, a letter of context added), splices[@NODES] (the gold with a window of up to 3 \
consecutive rules replaced by what the built-in solver finds, at NODES search nodes (100), for \
the visible examples' forms before and after the window, with the rule cap's slack), \
SOLVER@NODES[:sSEED][:fromLEN] (the built-in solver with a node budget; \
a seed shows it the examples in another order, :fromLEN runs it on golds of LEN rules or more \
only), identity, single-rule, memoriser, shortcuts (the \
three).\n\n\
The run is deterministic for a seed whatever --threads (solver members run under node budgets, \
their repair step counted in evaluations, not time). It is resumable: each instance's result is appended to OUT.partial, and the same command resumes from \
it.\n\n\
Example: pbebench vet --dataset lite.jsonl --out lite-vetted.jsonl --max-examples 12",
    mut_arg("out", |a| a.help("Where to write the vetted snapshot (\"-\": standard output, \
        without a journal)")),
    mut_arg("stats_json", |a| a.help("Write the run's figures (examples added, replaced, \
        dropped, statistics) as JSON here")),
)]
pub struct Args {
    /// Dataset to vet (pbebench JSONL or the authors' published format); every instance
    /// needs its gold cascade.
    #[arg(long, value_name = "FILE")]
    dataset: PathBuf,
    /// The most visible examples an instance may reach by repair.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EXAMPLES)]
    max_examples: usize,
    /// Fresh instances tried for a slot whose instance cannot be kept, before the slot is
    /// dropped (and reported by length); at most 1000.
    #[arg(long, value_name = "N", default_value_t = REPLACEMENT_ATTEMPTS)]
    replacements: usize,
    /// The attackers, comma-separated (see below).
    #[arg(long, value_name = "LIST", default_value = DEFAULT_PANEL)]
    panel: String,
    /// Seed of the solvers' example orders and of the replacements' generator.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Vet only shard K of N (K/N, 0-based), split as generate's shards are; the shards'
    /// outputs concatenated in order equal the whole run's, byte for byte.
    #[arg(long, value_name = "K/N", value_parser = super::args::parse_shard)]
    shard: Option<(usize, usize)>,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    output: Resumable,
}

/// Runs `pbebench vet`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let panel: Panel = args.panel.parse().context("--panel")?;
    if args.replacements > REPLACEMENT_ATTEMPTS_LIMIT {
        bail!(VetError::TooManyReplacements(args.replacements).message(flag));
    }
    let mut files = Outputs::new();
    files.input("--dataset", &args.dataset);
    args.output.declare(&mut files);
    let checked = files.check()?;
    let instances = read_dataset(&args.dataset)?;
    if instances.is_empty() {
        bail!("{}: the dataset holds no instances", args.dataset.display());
    }
    let options = VetOptions {
        panel,
        max_examples: args.max_examples,
        replacement_attempts: args.replacements,
        seed: args.seed,
        params: None,
    };
    let run = Run {
        options: &options,
        shard: args.shard,
        out: &args.output.out,
        threads: args.threads.count(),
        fresh: args.output.fresh,
        stats_json: args.output.stats_json(),
        status_every: args.output.status.status_every,
        files: &checked,
    };
    run.vet(&instances, &args.dataset.display().to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// One vetting run as the commands show it (`vet`, and `generate --preset *-vetted`).
pub struct Run<'a> {
    /// The loop's options.
    pub options: &'a VetOptions,
    /// The shard `(K, N)` to vet, if not every slot.
    pub shard: Option<(usize, usize)>,
    /// The snapshot's path.
    pub out: &'a Path,
    /// Instances vetted at once.
    pub threads: usize,
    /// Discard a journal.
    pub fresh: bool,
    /// Where the figures go as JSON, if anywhere.
    pub stats_json: Option<&'a Path>,
    /// Seconds between status lines off a terminal.
    pub status_every: Duration,
    /// The command's checked outputs (`stats_json` among them).
    pub files: &'a Checked,
}

impl Run<'_> {
    /// Vets `instances` (read from `source`), with a progress bar on a terminal and status
    /// lines off one, then prints the figures on standard error.
    pub fn vet(&self, instances: &[Instance], source: &str) -> anyhow::Result<VetSummary> {
        let started = Instant::now();
        let bar = Shown(Progress::start(
            "vet",
            "done",
            instances.len(),
            self.status_every,
        ));
        let job = VetJob {
            options: self.options,
            out: self.out,
            threads: self.threads,
            fresh: self.fresh,
            shard: self.shard,
        };
        let summary = vet_dataset(instances, &job, &bar);
        bar.0.finish();
        let summary = summary
            .map_err(|e| anyhow::anyhow!(e.message(flag)))
            .with_context(|| source.to_owned())?;
        if let Some(e) = &summary.journal_failure {
            printer::warn(format!("{e}: this run cannot be resumed if interrupted"));
        }
        if let Some(path) = self.stats_json {
            let json = serde_json::to_string_pretty(&summary)? + "\n";
            self.files.write(path, json.as_bytes())?;
        }
        printer::note_text(&describe(
            &summary,
            self.options,
            started.elapsed(),
            self.out,
        ));
        Ok(summary)
    }
}

/// The option that sets a field of [`VetOptions`].
pub fn flag(field: VetField) -> &'static str {
    match field {
        VetField::MaxExamples => "--max-examples",
        VetField::ReplacementAttempts => "--replacements",
    }
}

/// The figures of a run, as printed.
fn describe(s: &VetSummary, options: &VetOptions, took: Duration, out: &Path) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "vet: {} instances → {} kept ({} replaced by fresh ones), {} dropped; {} examples added; \
         panel {}, at most {} examples, seed {}; {:.1} s{}",
        s.instances,
        s.kept,
        s.replaced,
        s.dropped,
        s.added,
        options.panel,
        options.max_examples,
        options.seed,
        took.as_secs_f64(),
        if s.resumed > 0 {
            format!(" ({} resumed)", s.resumed)
        } else {
            String::new()
        }
    );
    let added: Vec<String> = (s.added_per_instance.iter())
        .map(|(k, n)| format!("{k}: {n}"))
        .collect();
    let _ = writeln!(
        text,
        "  examples added per kept instance: {}",
        added.join(", ")
    );
    if !s.reasons.is_empty() {
        let reasons: Vec<String> = s.reasons.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            text,
            "  replaced or dropped because: {}{}",
            reasons.join(", "),
            if s.replacements_possible {
                ""
            } else {
                " (no generation parameters: dropped)"
            }
        );
    }
    if !s.dropped_by_length.is_empty() {
        let by_length: Vec<String> = (s.dropped_by_length.iter())
            .map(|(len, n)| format!("{len}: {n}"))
            .collect();
        let _ = writeln!(
            text,
            "  empty slots by cascade length (the length quota falls short): {} (ids and reasons in --stats-json)",
            by_length.join(", ")
        );
    }
    let _ = write!(text, "{}", s.stats);
    if !pbebench_io::is_stdout(out) {
        let _ = writeln!(text, "  wrote {}", out.display());
    }
    text
}

/// The progress of the run: instances done, and what was added, replaced and dropped.
struct Shown(Progress);

impl VetProgress for Shown {
    fn resumed(&self, done: usize, total: usize, journal: &Path) {
        printer::note(format!(
            "resuming: {done} of {total} instances already vetted in {} (--fresh to start over)",
            journal.display()
        ));
        self.0.resumed(done, "");
    }

    fn done(&self, counts: VetCounts) {
        self.0.set_counts(counts.done, counts.total);
        self.0.set(
            counts.done,
            format!(
                "{} examples added, {} replaced, {} dropped",
                counts.added, counts.replaced, counts.dropped
            ),
        );
    }
}
