//! `pbebench generate`: write a PBEBench-style dataset as JSONL.

use super::args::{alphabet, StatusEvery, Threads};
use super::output::{Checked, Outputs};
use crate::printer::{self, Progress};
use anyhow::Context;
use pbebench::dataset::DatasetWriter;
use pbebench::generate::{
    self, parse_lengths, parse_range, Balance, GenParams, GenStats, Overrides, PatternDraw, Preset,
    SinkError, StatsFile,
};
use pbebench::reorder::{reorder_dataset, write_reorder_lines};
use pbebench::RelationMode;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `pbebench generate`. Every preset parameter can be overridden.
#[derive(clap::Args)]
#[command(
    after_help = "Presets (paper §4.1): lite (1008 × 5 examples, lengths 2–5, 63 per category), \
lite-published (lite as the published file was sampled: --pattern-draw published, --relations paper), lite-moreeg (240 × 50, lengths 1–5), full (1216 × 50, 64 per length 2–20), full-25-30 (128 × 50, lengths 25 and 30).\n\
Vetted snapshots: lite-vetted and full-vetted generate lite or full, then run `pbebench vet` \
on the result with its default panel (at most 12 examples for lite, 70 for full; --max-examples, \
--panel): counterexamples are added until the visible examples pin the behaviour down, and instances \
that cannot be pinned are replaced within their quota.\n\n\
Example: pbebench generate --preset lite --seed 0 --out lite.jsonl"
)]
pub struct Args {
    /// Starting parameters: lite, lite-published, lite-moreeg, full or full-25-30;
    /// lite-vetted or full-vetted for a vetted snapshot (generated, then vetted).
    #[arg(long, default_value = "lite")]
    preset: PresetArg,
    /// Random seed; the file is a pure function of the parameters and the seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output file (written atomically); standard output when absent or "-".
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Number of instances (D).
    #[arg(long)]
    size: Option<usize>,
    /// Examples per instance (n).
    #[arg(long)]
    examples: Option<usize>,
    /// Letters (2 to 255): "lite" (a–k, u–z), "full" (a–z, A–Z), or letters and ranges such
    /// as "a-ku-z".
    #[arg(long, value_parser = alphabet)]
    alphabet: Option<String>,
    /// Input length range, e.g. 2..6.
    #[arg(long, value_parser = parse_range)]
    input_len: Option<(usize, usize)>,
    /// Cascade lengths: a range (2..20) or a list (25,30).
    #[arg(long)]
    cascade_len: Option<String>,
    /// Rule side length range, e.g. 1..3.
    #[arg(long, value_parser = parse_range)]
    rule_len: Option<(usize, usize)>,
    /// How a rule's pattern is drawn: substring (uniform over the distinct substrings of
    /// the current strings, as the paper describes) or published (random letters drawn
    /// again until they occur, as the published Lite file was sampled: mostly 1 letter).
    #[arg(long)]
    pattern_draw: Option<PatternDraw>,
    /// Rule cap given to solvers (default: the preset's; 5 for Lite, max(length, 20) otherwise).
    #[arg(long)]
    max_rules: Option<usize>,
    /// Patience τ: attempts per block with category quotas enforced.
    #[arg(long)]
    patience: Option<u64>,
    /// Balance by category, by length, or joint (length, then category within length).
    #[arg(long)]
    balance: Option<Balance>,
    /// Relation classifier for categories: exact (default) or paper.
    #[arg(long)]
    relations: Option<RelationMode>,
    /// Held-out examples per instance, never shown to solvers (at most 10000).
    #[arg(long)]
    heldout: Option<usize>,
    #[command(flatten)]
    threads: Threads,
    /// Write only shard K of N (K/N, 0-based); shards concatenated in order equal the whole.
    #[arg(long, value_parser = super::args::parse_shard)]
    shard: Option<(usize, usize)>,
    /// Write generation statistics (attempts, rejections, balance, timing) as JSON here.
    #[arg(long)]
    stats_json: Option<PathBuf>,
    #[command(flatten)]
    status: StatusEvery,
    /// Vetted presets: the most visible examples repair may reach (default: 12 for
    /// lite-vetted, 70 for full-vetted).
    #[arg(long, value_name = "N")]
    max_examples: Option<usize>,
    /// Vetted presets: the attackers (as `pbebench vet --panel`).
    #[arg(long, value_name = "LIST", default_value = pbebench_vet::DEFAULT_PANEL)]
    panel: String,
    /// What to write: synthesis instances, or reorder: the rule-reordering problems made
    /// from them (as `pbebench reorder --seed` with the same seed).
    #[arg(long, value_enum, default_value_t = Task::Synthesis)]
    task: Task,
}

/// `--task`: the task whose instances `generate` writes (no doc comments on the variants:
/// clap would make them a long help of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Task {
    Synthesis,
    Reorder,
}

/// `--preset`: a generator preset, or a vetted one (the preset, then `pbebench vet`).
#[derive(Debug, Clone, Copy)]
struct PresetArg {
    preset: Preset,
    /// The cap on examples and the fresh instances per slot of the vetted variant, `None`
    /// for the plain preset.
    vetted: Option<(usize, usize)>,
}

/// The vetted presets: name, base preset, default cap on visible examples, fresh
/// instances tried per slot (`full-vetted` keeps its length quota: issue 38.5).
const VETTED: [(&str, Preset, usize, usize); 2] = [
    (
        "lite-vetted",
        Preset::Lite,
        12,
        pbebench_vet::REPLACEMENT_ATTEMPTS,
    ),
    (
        "full-vetted",
        Preset::Full,
        70,
        pbebench_vet::FULL_VETTED_REPLACEMENT_ATTEMPTS,
    ),
];

impl std::str::FromStr for PresetArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some((_, preset, cap, attempts)) = VETTED.iter().find(|v| v.0 == s) {
            return Ok(PresetArg {
                preset: *preset,
                vetted: Some((*cap, *attempts)),
            });
        }
        s.parse::<Preset>()
            .map(|preset| PresetArg {
                preset,
                vetted: None,
            })
            .map_err(|_| {
                let names: Vec<&str> = (Preset::ALL.iter().map(|(name, _)| *name))
                    .chain(VETTED.iter().map(|v| v.0))
                    .collect();
                format!(
                    "unknown preset '{s}' (expected one of {})",
                    names.join(", ")
                )
            })
    }
}

impl Args {
    fn params(&self) -> anyhow::Result<GenParams> {
        let alphabet = (self.alphabet.as_ref()).map(|letters| letters.chars().collect());
        let cascade_lens = (self.cascade_len.as_deref())
            .map(parse_lengths)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--cascade-len: {e}"))?;
        let overrides = Overrides {
            seed: Some(self.seed),
            size: self.size,
            examples: self.examples,
            alphabet,
            input_len: self.input_len,
            cascade_lens,
            rule_len: self.rule_len,
            pattern_draw: self.pattern_draw,
            max_rules: self.max_rules,
            patience: self.patience,
            balance: self.balance,
            relations: self.relations,
            heldout: self.heldout,
            shard: self.shard,
        };
        Ok(overrides.apply(self.preset.preset)?)
    }
}

/// The progress of the generation: instances accepted of the target, and attempts.
struct Shown(Progress);

impl generate::Progress for Shown {
    fn update(&self, accepted: u64, target: u64, attempts: u64) {
        self.0.set_counts(accepted as usize, target as usize);
        self.0
            .set(accepted as usize, format!("{attempts} attempts"));
    }
}

/// Runs `pbebench generate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let params = args.params()?;
    if let Some((cap, attempts)) = args.preset.vetted {
        if args.task == Task::Reorder {
            anyhow::bail!(
                "--task reorder: a vetted preset cannot be reordered in one step; generate it \
                 with --task synthesis, then run `pbebench reorder --dataset FILE`"
            );
        }
        return run_vetted(&args, params, args.max_examples.unwrap_or(cap), attempts);
    }
    if args.max_examples.is_some() {
        anyhow::bail!(
            "--max-examples applies to the vetted presets (lite-vetted, full-vetted) only"
        );
    }
    let out_path = args
        .out
        .as_deref()
        .unwrap_or(Path::new(pbebench_io::STDOUT));
    let files = Outputs::new()
        .output("--out", out_path)
        .output_opt("--stats-json", args.stats_json.as_deref())
        .check()?;
    if args.task == Task::Reorder {
        return run_reorder(&args, params, out_path, &files);
    }
    let pool = args.threads.pool()?;
    let (lo, hi) = params.shard_range();
    let bar = Shown(Progress::start(
        "generate",
        "instances",
        hi - lo,
        args.status.status_every,
    ));

    // Opened before generating, so that a bad path fails at once, not after the work.
    let out = files.create(out_path)?;
    let mut pipe_closed = false;
    let mut result = None;
    let written = out.write(|w| {
        let mut lines = DatasetWriter::new(w);
        let mut sink = |inst: pbebench::Instance| -> Result<(), SinkError> {
            lines.write(&inst).map_err(|e| {
                pipe_closed = e.kind() == std::io::ErrorKind::BrokenPipe;
                e.into()
            })
        };
        let generated = pool.install(|| generate::generate(&params, &bar, &mut sink));
        let stopped = generated.is_err();
        result = Some(generated);
        if stopped {
            // Not put into place: the output stays as it was.
            return Err(std::io::Error::other("generation stopped"));
        }
        Ok(())
    });
    bar.0.finish();
    if pipe_closed {
        // The reader (e.g. `head`) has what it wanted: stop quietly, like other Unix tools.
        pbebench_io::remove_uncommitted();
        return Ok(ExitCode::SUCCESS);
    }
    let stats = result.expect("the writer ran")?;
    written?;
    let file = StatsFile { params, stats };
    if let Some(path) = &args.stats_json {
        files.write(path, file.to_json().as_bytes())?;
    }
    print_summary(&file.params, &file.stats, args.out.as_ref());
    Ok(ExitCode::SUCCESS)
}

/// `--task reorder`: the instances generated in memory, then made into reordering problems
/// (seeded by `--seed`, as `pbebench reorder --seed` is) and written to `--out`.
fn run_reorder(
    args: &Args,
    params: GenParams,
    out_path: &Path,
    files: &Checked,
) -> anyhow::Result<ExitCode> {
    let out = files.create(out_path)?;
    let pool = args.threads.pool()?;
    let (instances, stats) = generate_in_memory(args, &params, &pool)?;
    let (kept, _, reordered) = pool.install(|| reorder_dataset(&instances, params.seed));
    out.write(|w| write_reorder_lines(w, &kept))?;
    let file = StatsFile { params, stats };
    if let Some(path) = &args.stats_json {
        files.write(path, file.to_json().as_bytes())?;
    }
    print_summary(&file.params, &file.stats, None);
    printer::note_text(&super::reorder::summary(&reordered));
    if !pbebench_io::is_stdout(out_path) {
        printer::note(format_args!(
            "wrote {} reordering problems to {}",
            kept.len(),
            out_path.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The instances of `params` (its shard, when given) generated into memory on `pool`, with
/// their statistics, and a progress bar while it runs.
fn generate_in_memory(
    args: &Args,
    params: &GenParams,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<(Vec<pbebench::Instance>, generate::GenStats)> {
    let (lo, hi) = params.shard_range();
    let bar = Shown(Progress::start(
        "generate",
        "instances",
        hi - lo,
        args.status.status_every,
    ));
    let mut instances = Vec::with_capacity(hi - lo);
    let stats = pool.install(|| {
        generate::generate(params, &bar, &mut |inst| {
            instances.push(inst);
            Ok(())
        })
    });
    bar.0.finish();
    Ok((instances, stats?))
}

/// `--preset lite-vetted|full-vetted`: the preset generated in memory, then vetted into
/// `--out` by `pbebench vet`'s loop with the generation parameters for replacements.
fn run_vetted(
    args: &Args,
    params: GenParams,
    max_examples: usize,
    replacement_attempts: usize,
) -> anyhow::Result<ExitCode> {
    if params.shard.is_some() {
        anyhow::bail!("--shard cannot be used with a vetted preset: vet the whole dataset");
    }
    let panel: pbebench_vet::Panel = args.panel.parse().context("--panel")?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("-"));
    let files = Outputs::new()
        .output("--out", &out)
        .output_opt("--stats-json", args.stats_json.as_deref())
        .check()?;
    let threads = args.threads.count();
    let pool = args.threads.pool()?;
    let (instances, stats) = generate_in_memory(args, &params, &pool)?;
    print_summary(&params, &stats, None);
    let options = pbebench_vet::VetOptions {
        panel,
        max_examples,
        replacement_attempts,
        seed: params.seed,
        params: Some(params.clone()),
    };
    let run = super::vet::Run {
        options: &options,
        shard: None,
        out: &out,
        threads,
        fresh: false,
        stats_json: None,
        status_every: args.status.status_every,
        files: &files,
    };
    let summary = pool.install(|| {
        run.vet(
            &instances,
            &format!("{} (seed {})", params.name, params.seed),
        )
    })?;
    if let Some(path) = &args.stats_json {
        let file = pbebench_vet::VettedStatsFile {
            generation: StatsFile { params, stats },
            vet: summary,
        };
        files.write(path, file.to_json().as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(params: &GenParams, stats: &GenStats, out: Option<&PathBuf>) {
    use std::fmt::Write as _;
    let rejections: Vec<String> = stats
        .rejections
        .iter()
        .map(|(r, n)| format!("{r:?} {n}"))
        .collect();
    // Composed first and written at once: standard error is unbuffered, so each piece of
    // a formatted line would be a system call of its own.
    let mut text = String::new();
    let _ = writeln!(
        text,
        "generated {} instances ({}, seed {}) in {:.1}s: {} attempts, efficiency {:.3}%, {:.0} attempts/s",
        stats.accepted,
        params.name,
        params.seed,
        stats.seconds,
        stats.attempts,
        stats.efficiency * 100.0,
        stats.attempts as f64 / stats.seconds.max(1e-9),
    );
    let _ = writeln!(
        text,
        "  rejected: {}",
        if rejections.is_empty() {
            "none".to_owned()
        } else {
            rejections.join(", ")
        }
    );
    let _ = writeln!(
        text,
        "  category balance: KL from uniform {:.4} overall{}; mean examples changed per rule {:.2}",
        stats.kl_overall,
        if stats.patience_exhausted.is_empty() {
            String::new()
        } else {
            format!(
                " (patience exhausted in blocks {:?})",
                stats.patience_exhausted
            )
        },
        stats.mean_examples_changed_per_rule
    );
    if let Some(path) = out.filter(|p| p.as_os_str() != "-") {
        let _ = writeln!(text, "  wrote {}", path.display());
    }
    printer::note_text(&text);
}
