//! `OUT.partial`, the journal of `pbebench vet`: a header naming the dataset (its SHA-256,
//! as `pbebench solve`'s journal does) and the options, then one line per slot as soon as
//! it is vetted, so that an interrupted run resumes without redoing them.

use super::{Slot, VetOptions};
use pbebench::generate::GenParams;
use pbebench::Instance;
use pbebench_io::{journal_entries, JournalOpenError, START_OVER};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

const KIND: &str = "pbebench vet";

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file is no journal of `pbebench vet`.
    #[error("{}:1: not a journal of `pbebench vet`; {START_OVER}", path.display())]
    NotAJournal {
        /// The journal.
        path: PathBuf,
    },
    /// It holds slots of another dataset or other options.
    #[error("{}: holds a run of {stated}, not of {wanted}; rerun with those, or {START_OVER}", path.display())]
    OtherRun {
        /// The journal.
        path: PathBuf,
        /// Its run.
        stated: String,
        /// This run.
        wanted: String,
    },
    /// A damaged line (not the last one, which a kill may cut).
    #[error("{}:{line}: {error}; {START_OVER}", path.display())]
    BadLine {
        /// The journal.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        error: String,
    },
    /// The journal cannot be read, written or removed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// `read`, `write` or `remove`.
        action: &'static str,
        /// The journal.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
}

/// The first line: what run the slots belong to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct JournalHeader {
    journal: String,
    /// SHA-256 of the instances ([`pbebench_io::dataset_fingerprint`]).
    dataset: String,
    panel: String,
    max_examples: usize,
    /// Fresh instances tried per slot (absent in journals written before it could be
    /// set: the default then).
    #[serde(default = "default_replacements")]
    replacement_attempts: usize,
    seed: u64,
    /// The generation parameters replacements are drawn with, as JSON (`None`: none).
    params: Option<serde_json::Value>,
    /// `pbebench_solve::SOLVER_REVISION` of the panel's solver (`None`: a journal written
    /// before it was recorded), so that one snapshot never mixes two solvers' attacks.
    #[serde(default)]
    solver_revision: Option<u32>,
    /// The shard `(K, N)` vetted (absent: every slot), so that a journal of one shard
    /// never resumes another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<(usize, usize)>,
}

fn default_replacements() -> usize {
    super::REPLACEMENT_ATTEMPTS
}

impl JournalHeader {
    pub(super) fn of(
        instances: &[Instance],
        options: &VetOptions,
        params: Option<&GenParams>,
        shard: Option<(usize, usize)>,
    ) -> Self {
        JournalHeader {
            journal: KIND.to_owned(),
            dataset: pbebench_io::dataset_fingerprint(instances),
            panel: options.panel.to_string(),
            max_examples: options.max_examples,
            replacement_attempts: options.replacement_attempts,
            seed: options.seed,
            params: params.map(|p| serde_json::to_value(p).expect("parameters serialise")),
            solver_revision: Some(pbebench_solve::SOLVER_REVISION),
            shard,
        }
    }

    fn describe(&self) -> String {
        format!(
            "the dataset with sha256 {}… and --panel {} --max-examples {} --replacements {} --seed {}{}{} (solver revision {})",
            &self.dataset[..self.dataset.len().min(12)],
            self.panel,
            self.max_examples,
            self.replacement_attempts,
            self.seed,
            self.shard
                .map_or_else(String::new, |(k, n)| format!(" --shard {k}/{n}")),
            if self.params.is_some() {
                " (with replacements)"
            } else {
                ""
            },
            self.solver_revision
                .map_or_else(|| "not recorded".to_owned(), |r| r.to_string())
        )
    }
}

/// One vetted slot.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    slot: usize,
    #[serde(flatten)]
    outcome: Slot,
}

/// The journal of a run ([`pbebench_io::Journal`]): the slots vetted so far.
pub(super) type Journal = pbebench_io::Journal<HashMap<usize, Slot>>;

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> JournalError + 'a {
    move |source| JournalError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The journal at `path` of the run whose first line is `header`, on `slots` instances.
pub(super) fn open(
    path: Option<PathBuf>,
    header: &JournalHeader,
    slots: usize,
    fresh: bool,
) -> Result<Journal, JournalError> {
    let at = path.clone().unwrap_or_default();
    let line = serde_json::to_string(header).expect("headers serialise");
    Journal::open(path, fresh, &line, |text| read(&at, text, header, slots)).map_err(|e| match e {
        JournalOpenError::Io { action, source } => io_error(action, &at)(source),
        JournalOpenError::Read(e) => e,
    })
}

/// Appends slot `slot`; the first failure is kept for [`Journal::failure`].
pub(super) fn record(journal: &Journal, slot: usize, outcome: &Slot) {
    journal.record(&LineRef { slot, outcome });
}

/// [`Line`] borrowing its slot, for writing.
#[derive(Serialize)]
struct LineRef<'a> {
    slot: usize,
    #[serde(flatten)]
    outcome: &'a Slot,
}

fn read(
    path: &Path,
    text: &str,
    header: &JournalHeader,
    slots: usize,
) -> Result<HashMap<usize, Slot>, JournalError> {
    let (first, entries) = journal_entries::<Line>(text);
    let stated: JournalHeader =
        serde_json::from_str(first).map_err(|_| JournalError::NotAJournal {
            path: path.to_path_buf(),
        })?;
    if stated.journal != KIND {
        return Err(JournalError::NotAJournal {
            path: path.to_path_buf(),
        });
    }
    if &stated != header {
        return Err(JournalError::OtherRun {
            path: path.to_path_buf(),
            stated: stated.describe(),
            wanted: header.describe(),
        });
    }
    let mut done = HashMap::new();
    // (A last line cut short by a kill is left out: that slot is vetted again.)
    for (line, entry) in entries {
        let bad = |error: String| JournalError::BadLine {
            path: path.to_path_buf(),
            line,
            error,
        };
        let entry = entry.map_err(|e| bad(e.to_string()))?;
        if entry.slot >= slots {
            return Err(bad(format!("slot {} of a dataset of {slots}", entry.slot)));
        }
        done.insert(entry.slot, entry.outcome);
    }
    Ok(done)
}
