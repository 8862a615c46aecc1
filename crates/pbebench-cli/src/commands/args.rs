//! Options that several commands take, each declared once (as uv-cli's argument groups):
//! a command flattens the group (`#[command(flatten)]`), and the group's value parsers
//! settle each value before any work, so that `--threads 0` or `--time-limit 1e300` get
//! the same answer from every command.

use super::output::Outputs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--threads N`: worker threads.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Threads {
    /// Worker threads, at least 1 (0 is refused) [default: all cores]
    #[arg(long, value_name = "N", value_parser = threads)]
    threads: Option<usize>,
}

impl Threads {
    /// `n` threads (at least 1), as `--threads n` gives.
    #[cfg(test)]
    pub fn new(n: usize) -> Self {
        Threads {
            threads: Some(n.max(1)),
        }
    }

    /// How many threads: the number given, or all cores.
    pub fn count(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// A pool of [`Threads::count`] threads, the calling thread one of them.
    pub fn pool(&self) -> anyhow::Result<rayon::ThreadPool> {
        use anyhow::Context;
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.count())
            .use_current_thread()
            .build()
            .context("starting worker threads")
    }
}

/// `--threads`: a whole number, at least 1.
fn threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave --threads out to use all cores)".to_owned()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a number of threads")),
    }
}

/// The longest duration a flag that takes seconds accepts: a million seconds (about
/// eleven and a half days). Longer ones are surely a typo, and a deadline that far away
/// is as good as none.
pub const MAX_SECONDS: f64 = 1e6;

/// Every flag that takes seconds (`--time-limit`, `--timeout`, `--status-every`, …): a
/// positive number of seconds, at most [`MAX_SECONDS`].
pub fn seconds(text: &str) -> Result<Duration, String> {
    seconds_up_to(text, MAX_SECONDS)
}

/// A positive number of seconds, at most `max` (itself at most [`MAX_SECONDS`]).
pub fn seconds_up_to(text: &str, max: f64) -> Result<Duration, String> {
    let wrong = || format!("'{text}' is not a number of seconds above 0 and at most {max}");
    let s: f64 = text.trim().parse().map_err(|_| wrong())?;
    if !(s > 0.0 && s <= max.min(MAX_SECONDS)) {
        return Err(wrong());
    }
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(wrong)
}

/// Every `--alphabet`: `lite` (a–k, u–z), `full` (a–z, A–Z), or letters and ranges such
/// as `a-ku-z`; 1 to 255 distinct letters, none of them whitespace or a control character.
pub fn alphabet(text: &str) -> Result<String, String> {
    pbebench::generate::alphabet(text).map_err(|e| e.to_string())
}

/// Every `--solver`: one of the registered solvers, which `--help` lists with a line each
/// (from `pbebench_solve::SOLVERS`).
pub fn solver() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        (pbebench_solve::SOLVERS.iter())
            .map(|(name, about)| clap::builder::PossibleValue::new(*name).help(*about)),
    )
}

/// `--status-every SECONDS`, for long commands.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct StatusEvery {
    /// Seconds between status lines when standard error is no terminal (a log, CI; at most
    /// 1000000)
    #[arg(long, value_name = "SECONDS", default_value = STATUS_EVERY, value_parser = seconds)]
    pub status_every: Duration,
}

/// Seconds between two status lines, unless a command is told otherwise.
const STATUS_EVERY: &str = "30";

/// The outputs of a resumable run (`solve`, `vet`): the output, its statistics, the
/// journal beside the output that an interrupted run resumes from, and status lines.
#[derive(clap::Args, Debug, Clone)]
pub struct Resumable {
    /// Where to write the output ("-": standard output, without a journal); a run is
    /// journalled in OUT.partial and resumed from it
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Where to write the run's statistics
    #[arg(long = "stats-json", alias = "stats", value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
    /// Start over, discarding the journal (OUT.partial) an interrupted run of the same
    /// command left (by default it is resumed)
    #[arg(long)]
    pub fresh: bool,
    #[command(flatten)]
    pub status: StatusEvery,
}

impl Resumable {
    /// Declares `--out` and `--stats-json` as outputs.
    pub fn declare(&self, files: &mut Outputs) {
        files.output("--out", &self.out);
        if let Some(path) = &self.stats_json {
            files.output("--stats-json", path);
        }
        if let Some(journal) = pbebench_io::journal_path(&self.out) {
            files.output("the journal of --out", journal);
        }
    }

    /// The statistics' path, if any.
    pub fn stats_json(&self) -> Option<&Path> {
        self.stats_json.as_deref()
    }
}

/// `--max-probe-len N`, for the commands that probe hidden cascades (`solve
/// --probe-budget`, `eval --interactive`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ProbeLen {
    /// The longest probe input the hidden cascade takes, in letters (or twice the longest
    /// visible input, when longer). Longer probes can hold every pair of letters, which
    /// finds hidden two-letter intermediates
    #[arg(long, value_name = "N",
          default_value_t = pbebench::probe::DEFAULT_PROBE_LEN as u64,
          value_parser = clap::value_parser!(u64).range(1..=pbebench::probe::MAX_PROBE_LEN as u64))]
    max_probe_len: u64,
}

impl ProbeLen {
    /// The length, in letters.
    pub fn get(&self) -> usize {
        self.max_probe_len as usize
    }
}

impl Default for ProbeLen {
    fn default() -> Self {
        ProbeLen {
            max_probe_len: pbebench::probe::DEFAULT_PROBE_LEN as u64,
        }
    }
}

/// How a command prints what it found: `--format text|json`, the same in every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text to read.
    Text,
    /// One JSON value.
    Json,
}

/// `--format text|json`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct FormatArg {
    /// How the result is printed: text to read, or one JSON value
    #[arg(long, value_enum, value_name = "text|json", default_value_t = Format::Text)]
    pub format: Format,
}

/// `K/N` (`--shard` of `generate` and `vet`): shard K of N, 0-based.
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text
        .split_once('/')
        .ok_or_else(|| format!("'{text}' is not a shard such as 0/4"))?;
    let num = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("'{text}' is not a shard such as 0/4"))
    };
    Ok((num(k)?, num(n)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse() {
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        let err = parse_shard("1").unwrap_err();
        assert_eq!(err, "'1' is not a shard such as 0/4");
    }

    #[test]
    fn seconds_are_positive_finite_and_bounded() {
        assert_eq!(seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(seconds("1e6"), Ok(Duration::from_secs(1_000_000)));
        for bad in [
            "0", "-1", "nan", "inf", "1e19", "1e300", "1e-300", "ten", "",
        ] {
            let e = seconds(bad).unwrap_err();
            assert!(e.contains("at most 1000000"), "{bad}: {e}");
        }
    }

    #[test]
    fn threads_are_at_least_one() {
        assert_eq!(threads("3"), Ok(3));
        assert!(threads("0").unwrap_err().contains("at least 1"));
        assert!(threads("x").unwrap_err().contains("not a number"));
        assert!(Threads::default().count() >= 1);
    }

    #[test]
    fn alphabets_take_names_and_ranges() {
        assert_eq!(alphabet("lite").unwrap(), "abcdefghijkuvwxyz");
        assert_eq!(alphabet("a-ce").unwrap(), "abce");
        assert!(alphabet("aab").unwrap_err().contains("twice"));
        assert!(alphabet("").unwrap_err().contains("1 to 255"));
        assert!(alphabet("a b").unwrap_err().contains("whitespace"));
        let e = alphabet("c-a").unwrap_err();
        assert!(e.contains("c-a"), "{e}");
    }
}
