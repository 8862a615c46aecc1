//! The run store: one SQLite file, `RUN_DIR/run.sqlite`, holding the manifest of a run and
//! every sample as it completes.
//!
//! Durability comes from SQLite: WAL journal, `synchronous = FULL`, one transaction per
//! batch of completed samples. A process killed at any moment leaves every committed
//! sample intact and none half-written; the primary key `(instance_id, sample)` makes a
//! duplicate impossible, and an answered sample is never overwritten.
//!
//! ```sql
//! manifest(key TEXT PRIMARY KEY, value TEXT)          -- JSON values: tool_version,
//!                                                     -- dataset, answer, run,
//!                                                     -- created_at, finished_at
//! requests(instance_id TEXT PRIMARY KEY, body TEXT)   -- the request (JSON body, or the
//!                                                     -- solver program's stdin)
//! samples(instance_id, sample, status, content, reasoning_content, finish_reason,
//!         prompt_tokens, completion_tokens, reasoning_tokens, latency_ms, elapsed_ms,
//!         attempts, endpoint, http_status, error, completed_at,
//!         PRIMARY KEY (instance_id, sample))
//! invocations(id, started_at, finished_at, args, outcome, samples_added)
//! turns(…), episodes(…)                             -- interactive mode: see `episodes.rs`
//! ```

mod episodes;

pub use episodes::{EpisodeRow, TurnRow};

use crate::sample::{Sample, Status, Usage};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// The store's file name inside a run directory.
pub const STORE_FILE: &str = "run.sqlite";
/// The lock file that keeps two runners off one run directory.
const LOCK_FILE: &str = "run.lock";
/// Bumped when the schema changes incompatibly. 2: the `failed` status.
const SCHEMA_VERSION: i64 = 2;
/// SQL for "now" in the store's timestamps (UTC, ISO 8601, milliseconds).
const NOW: &str = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// A problem with a run store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed (disk full, a corrupt file, …).
    #[error("{path}: {source}")]
    Sqlite {
        /// The store file.
        path: PathBuf,
        /// What SQLite said.
        source: rusqlite::Error,
    },
    /// The run directory could not be created or the lock taken.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// Another process is writing to this run.
    #[error("{0}: another 'pbebench eval' is running on this run directory; wait for it to finish or use another --run")]
    Locked(PathBuf),
    /// The store was written by a newer pbebench, or holds something unreadable.
    #[error("{path}: {message}")]
    Invalid {
        /// The store file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `--rescore` or a read found no store.
    #[error("{0}: no run store here (expected {STORE_FILE}); run 'pbebench eval' with --run pointing at it first")]
    Missing(PathBuf),
}

/// Which dataset a run evaluates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatasetRef {
    /// The path given when the run was created.
    pub path: String,
    /// SHA-256 of its instances ([`pbebench_io::dataset_fingerprint`]), lowercase hex;
    /// in a manifest written before pbebench named datasets so, of the file's bytes
    /// (still accepted for the same file).
    pub sha256: String,
    /// Number of instances.
    pub instances: usize,
}

/// What a run is: everything needed to judge whether a command continues it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `pbebench` version that created the run.
    pub tool_version: String,
    /// The dataset.
    pub dataset: DatasetRef,
    /// Parameters that change answers (solver, model, sampling, prompt); a command that
    /// changes them may not continue the run.
    pub answer: serde_json::Value,
    /// The other parameters of the latest invocation (samples, endpoints, concurrency,
    /// timeout, retries, prices, budget).
    pub run: serde_json::Value,
    /// When the run was created.
    pub created_at: String,
    /// When every sample was first complete; `None` while samples are missing.
    pub finished_at: Option<String>,
}

/// What the writer commits at once ([`RunStore::commit`]).
#[derive(Debug, Default)]
pub struct Batch<'a> {
    /// Completed turns of episodes, in the order they happened.
    pub turns: Vec<&'a TurnRow>,
    /// Samples with their requests.
    pub samples: Vec<(&'a Sample, &'a str)>,
    /// Records of the episodes that end with these samples.
    pub episodes: Vec<&'a EpisodeRow>,
}

/// An open run store.
pub struct RunStore {
    conn: Connection,
    path: PathBuf,
    /// Held for the store's life when writing; dropping it (or dying) releases the lock.
    _lock: Option<File>,
}

impl RunStore {
    /// The store file of a run directory.
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join(STORE_FILE)
    }

    /// True when `dir` holds a run store.
    pub fn exists(dir: &Path) -> bool {
        Self::path_in(dir).is_file()
    }

    /// Opens (creating when needed) the store of `dir` for writing, and takes the run's
    /// lock so that a second runner on the same directory is refused.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let lock = take_lock(dir)?;
        let mut store = Self::connect(dir)?;
        store._lock = Some(lock);
        store.migrate()?;
        Ok(store)
    }

    /// Opens an existing store for reading (`--rescore`); takes no lock, so it also works
    /// while a runner is writing.
    pub fn open_existing(dir: &Path) -> Result<Self, StoreError> {
        if !Self::exists(dir) {
            return Err(StoreError::Missing(dir.to_path_buf()));
        }
        let store = Self::connect(dir)?;
        store.check_version()?;
        Ok(store)
    }

    /// Moves the store of `dir` aside as `run.N.sqlite` (first free N) so that a new run
    /// can start there (`--force-new`); nothing paid for is deleted. Returns the new name.
    pub fn archive(dir: &Path) -> Result<PathBuf, StoreError> {
        let lock = take_lock(dir)?;
        {
            let store = Self::connect(dir)?;
            store
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .map_err(|e| store.err(e))?;
        }
        let from = Self::path_in(dir);
        let to = (1..)
            .map(|n| dir.join(format!("run.{n}.sqlite")))
            .find(|p| !p.exists())
            .expect("some archive name is free");
        fs::rename(&from, &to).map_err(|source| StoreError::Io {
            path: from.clone(),
            source,
        })?;
        for suffix in ["-wal", "-shm"] {
            let _ = fs::remove_file(dir.join(format!("{STORE_FILE}{suffix}")));
        }
        drop(lock);
        Ok(to)
    }

    fn connect(dir: &Path) -> Result<Self, StoreError> {
        let path = Self::path_in(dir);
        let conn = Connection::open(&path).map_err(|source| StoreError::Sqlite {
            path: path.clone(),
            source,
        })?;
        let store = RunStore {
            conn,
            path,
            _lock: None,
        };
        store
            .conn
            .busy_timeout(std::time::Duration::from_secs(30))
            .map_err(|e| store.err(e))?;
        store
            .conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| store.err(e))?;
        // FULL: a committed sample survives a power cut, not only a killed process.
        store
            .conn
            .pragma_update(None, "synchronous", "FULL")
            .map_err(|e| store.err(e))?;
        Ok(store)
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    fn invalid(&self, message: impl Into<String>) -> StoreError {
        StoreError::Invalid {
            path: self.path.clone(),
            message: message.into(),
        }
    }

    fn check_version(&self) -> Result<i64, StoreError> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if version > SCHEMA_VERSION {
            return Err(self.invalid(format!(
                "written by a newer pbebench (store schema {version}, this one reads {SCHEMA_VERSION}); upgrade pbebench"
            )));
        }
        Ok(version)
    }

    /// Brings the store to [`SCHEMA_VERSION`] in one transaction: creates what is missing,
    /// and rebuilds a version-1 `samples` table, whose status check predates `failed`.
    fn migrate(&self) -> Result<(), StoreError> {
        let version = self.check_version()?;
        let rebuild = if version == 1 {
            format!(
                "{}
                 INSERT INTO samples_v2 SELECT * FROM samples;
                 DROP TABLE samples;
                 ALTER TABLE samples_v2 RENAME TO samples;",
                samples_table("samples_v2")
            )
        } else {
            String::new()
        };
        self.conn
            .execute_batch(&format!(
                "BEGIN;
                 CREATE TABLE IF NOT EXISTS manifest (
                     key   TEXT PRIMARY KEY,
                     value TEXT NOT NULL
                 );
                 CREATE TABLE IF NOT EXISTS requests (
                     instance_id TEXT PRIMARY KEY,
                     body        TEXT NOT NULL
                 );
                 {rebuild}
                 {}
                 {}
                 CREATE TABLE IF NOT EXISTS invocations (
                     id            INTEGER PRIMARY KEY,
                     started_at    TEXT NOT NULL,
                     finished_at   TEXT,
                     args          TEXT NOT NULL,
                     outcome       TEXT,
                     samples_added INTEGER
                 );
                 PRAGMA user_version = {SCHEMA_VERSION};
                 COMMIT;",
                samples_table("samples"),
                episodes::TABLES
            ))
            .map_err(|e| self.err(e))
    }

    /// The manifest, or `None` for a new store.
    pub fn manifest(&self) -> Result<Option<Manifest>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, value FROM manifest")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(|e| self.err(e))?;
        let mut map = serde_json::Map::new();
        for row in rows {
            let (key, value) = row.map_err(|e| self.err(e))?;
            let value = serde_json::from_str(&value)
                .map_err(|e| self.invalid(format!("manifest entry '{key}' is not JSON: {e}")))?;
            map.insert(key, value);
        }
        if map.is_empty() {
            return Ok(None);
        }
        serde_json::from_value(serde_json::Value::Object(map))
            .map(Some)
            .map_err(|e| self.invalid(format!("unreadable manifest: {e}")))
    }

    /// Writes every manifest entry (one transaction).
    pub fn put_manifest(&mut self, manifest: &Manifest) -> Result<(), StoreError> {
        let serde_json::Value::Object(map) =
            serde_json::to_value(manifest).expect("a manifest serialises")
        else {
            unreachable!("a manifest serialises to an object")
        };
        let tx = self.conn.transaction().map_err(|e| err(&self.path, e))?;
        for (key, value) in map {
            tx.execute(
                "INSERT INTO manifest (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value.to_string()],
            )
            .map_err(|e| err(&self.path, e))?;
        }
        tx.commit().map_err(|e| err(&self.path, e))
    }

    /// The current time as the store writes it.
    pub fn now(&self) -> Result<String, StoreError> {
        self.conn
            .query_row(&format!("SELECT {NOW}"), [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Records that every sample is stored (first time only).
    pub fn mark_finished(&self) -> Result<(), StoreError> {
        self.conn
            .execute(
                &format!(
                    "UPDATE manifest SET value = json_quote({NOW})
                     WHERE key = 'finished_at' AND value = 'null'"
                ),
                [],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// The (instance id, sample index) pairs that hold an answer and are never requested
    /// again.
    pub fn answered(&self) -> Result<HashSet<(String, u32)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT instance_id, sample FROM samples WHERE status NOT IN ({})",
                Status::sql_failures()
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Commits a batch of completed samples with their requests in one transaction.
    /// A sample that already holds an answer is left alone; a stored transport failure is
    /// replaced (its attempts are added up). Returns how many samples were written.
    pub fn insert(&mut self, batch: &[(&Sample, &str)]) -> Result<usize, StoreError> {
        self.commit(&Batch {
            samples: batch.to_vec(),
            ..Batch::default()
        })
    }

    /// Commits a writer's batch in one transaction: episode turns, then samples (as
    /// [`RunStore::insert`]), then the records of the episodes they end. Returns how many
    /// samples were written.
    pub fn commit(&mut self, batch: &Batch<'_>) -> Result<usize, StoreError> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| err(&path, e))?;
        episodes::put_turns(&tx, &batch.turns).map_err(|e| err(&path, e))?;
        let written = put_samples(&tx, &batch.samples).map_err(|e| err(&path, e))?;
        episodes::put_episodes(&tx, &batch.episodes).map_err(|e| err(&path, e))?;
        tx.commit().map_err(|e| err(&path, e))?;
        Ok(written)
    }

    /// Every stored sample, ordered by instance id and sample index.
    pub fn samples(&self) -> Result<Vec<Sample>, StoreError> {
        let mut out = Vec::new();
        self.query_samples("reasoning_content", |s| out.push(s))?;
        Ok(out)
    }

    /// Calls `f` on every stored sample, ordered by instance id and sample index, one row
    /// at a time and without `reasoning_content` (which scoring never reads and which can
    /// be most of a run's bytes), so memory stays flat whatever the run's size.
    pub fn scan(&self, f: impl FnMut(Sample)) -> Result<(), StoreError> {
        self.query_samples("NULL", f)
    }

    fn query_samples(&self, reasoning: &str, mut f: impl FnMut(Sample)) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT instance_id, sample, status, content, {reasoning}, finish_reason,
                        prompt_tokens, completion_tokens, reasoning_tokens, latency_ms,
                        elapsed_ms, attempts, endpoint, http_status, error
                 FROM samples ORDER BY instance_id, sample"
            ))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = || -> rusqlite::Result<(String, Sample)> {
                Ok((
                    r.get(2)?,
                    Sample {
                        instance_id: r.get(0)?,
                        sample: r.get(1)?,
                        status: Status::Ok,
                        content: r.get(3)?,
                        reasoning_content: r.get(4)?,
                        finish_reason: r.get(5)?,
                        usage: usage_at(r, 6)?,
                        latency_ms: r.get(9)?,
                        elapsed_ms: r.get(10)?,
                        attempts: r.get(11)?,
                        endpoint: r.get(12)?,
                        http_status: r.get(13)?,
                        error: r.get(14)?,
                    },
                ))
            };
            let (status, mut sample) = read().map_err(|e| self.err(e))?;
            sample.status = status.parse().map_err(|e: String| self.invalid(e))?;
            f(sample);
        }
        Ok(())
    }

    /// The stored request of an instance.
    pub fn request(&self, instance_id: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT body FROM requests WHERE instance_id = ?1",
                [instance_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Records the start of an invocation (its arguments as JSON); returns its id.
    pub fn begin_invocation(&self, args: &serde_json::Value) -> Result<i64, StoreError> {
        self.conn
            .execute(
                &format!("INSERT INTO invocations (started_at, args) VALUES ({NOW}, ?1)"),
                [args.to_string()],
            )
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Records how an invocation ended.
    pub fn end_invocation(&self, id: i64, outcome: &str, added: usize) -> Result<(), StoreError> {
        self.conn
            .execute(
                &format!(
                    "UPDATE invocations SET finished_at = {NOW}, outcome = ?2, samples_added = ?3
                     WHERE id = ?1"
                ),
                params![id, outcome, added as i64],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }
}

/// The token counts stored in columns `first`, `first + 1`, `first + 2` (prompt,
/// completion, reasoning) of a row.
fn usage_at(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Usage> {
    let tokens = |k: usize| -> rusqlite::Result<Option<u64>> {
        Ok(r.get::<_, Option<i64>>(first + k)?.map(|t| t as u64))
    };
    Ok(Usage {
        prompt_tokens: tokens(0)?,
        completion_tokens: tokens(1)?,
        reasoning_tokens: tokens(2)?,
    })
}

/// `CREATE TABLE IF NOT EXISTS` of the samples table under `name`; the status check lists
/// every [`Status`].
fn samples_table(name: &str) -> String {
    let statuses: Vec<String> = Status::ALL.iter().map(|s| format!("'{s}'")).collect();
    format!(
        "CREATE TABLE IF NOT EXISTS {name} (
             instance_id       TEXT    NOT NULL,
             sample            INTEGER NOT NULL CHECK (sample >= 0),
             status            TEXT    NOT NULL CHECK (status IN ({})),
             content           TEXT,
             reasoning_content TEXT,
             finish_reason     TEXT,
             prompt_tokens     INTEGER,
             completion_tokens INTEGER,
             reasoning_tokens  INTEGER,
             latency_ms        REAL    NOT NULL,
             elapsed_ms        REAL    NOT NULL,
             attempts          INTEGER NOT NULL,
             endpoint          TEXT,
             http_status       INTEGER,
             error             TEXT,
             completed_at      TEXT    NOT NULL,
             PRIMARY KEY (instance_id, sample)
         );",
        statuses.join(", ")
    )
}

/// Writes samples with their requests (see [`RunStore::insert`]); returns how many were
/// written.
fn put_samples(
    tx: &rusqlite::Transaction<'_>,
    batch: &[(&Sample, &str)],
) -> rusqlite::Result<usize> {
    let mut written = 0;
    {
        let mut put_request = tx.prepare_cached(
            "INSERT INTO requests (instance_id, body) VALUES (?1, ?2)
                     ON CONFLICT (instance_id) DO NOTHING",
        )?;
        let mut put_sample = tx
                .prepare_cached(&format!(
                    "INSERT INTO samples (instance_id, sample, status, content,
                         reasoning_content, finish_reason, prompt_tokens, completion_tokens,
                         reasoning_tokens, latency_ms, elapsed_ms, attempts, endpoint,
                         http_status, error, completed_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, {NOW})
                     ON CONFLICT (instance_id, sample) DO UPDATE SET
                         status = excluded.status, content = excluded.content,
                         reasoning_content = excluded.reasoning_content,
                         finish_reason = excluded.finish_reason,
                         prompt_tokens = excluded.prompt_tokens,
                         completion_tokens = excluded.completion_tokens,
                         reasoning_tokens = excluded.reasoning_tokens,
                         latency_ms = excluded.latency_ms, elapsed_ms = excluded.elapsed_ms,
                         attempts = samples.attempts + excluded.attempts,
                         endpoint = excluded.endpoint, http_status = excluded.http_status,
                         error = excluded.error, completed_at = excluded.completed_at
                     WHERE samples.status IN ({})",
                    Status::sql_failures()
                ))
                ?;
        for (s, request) in batch {
            put_request.execute(params![s.instance_id, request])?;
            written += put_sample.execute(params![
                s.instance_id,
                s.sample,
                s.status.as_str(),
                s.content,
                s.reasoning_content,
                s.finish_reason,
                s.usage.prompt_tokens.map(|t| t as i64),
                s.usage.completion_tokens.map(|t| t as i64),
                s.usage.reasoning_tokens.map(|t| t as i64),
                s.latency_ms,
                s.elapsed_ms,
                s.attempts,
                s.endpoint,
                s.http_status,
                s.error,
            ])?;
        }
    }
    Ok(written)
}

fn err(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    }
}

/// Takes an exclusive lock on `RUN_DIR/run.lock` ([`pbebench_io::lock_exclusive`], as
/// `solve` and `vet` lock their journals); the OS drops it when the process dies, so a
/// killed runner never leaves a stale lock.
fn take_lock(dir: &Path) -> Result<File, StoreError> {
    let path = dir.join(LOCK_FILE);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
    match pbebench_io::lock_exclusive(&file) {
        Ok(()) => Ok(file),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            Err(StoreError::Locked(dir.to_path_buf()))
        }
        Err(source) => Err(StoreError::Io { path, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(id: &str, k: u32, status: Status) -> Sample {
        Sample {
            instance_id: id.to_owned(),
            sample: k,
            status,
            content: Some(format!("answer {id}/{k}")),
            reasoning_content: None,
            finish_reason: Some("stop".to_owned()),
            usage: Usage {
                prompt_tokens: Some(10),
                completion_tokens: Some(5),
                reasoning_tokens: None,
            },
            latency_ms: 1.5,
            elapsed_ms: 1.5,
            attempts: 1,
            endpoint: Some("http://127.0.0.1:1/v1".to_owned()),
            http_status: Some(200),
            error: None,
        }
    }

    fn manifest() -> Manifest {
        Manifest {
            tool_version: "0.1.0".to_owned(),
            dataset: DatasetRef {
                path: "d.jsonl".to_owned(),
                sha256: "ab".to_owned(),
                instances: 2,
            },
            answer: serde_json::json!({"solver": "chat", "model": "m"}),
            run: serde_json::json!({"samples": 2}),
            created_at: "2025-01-01T00:00:00.000Z".to_owned(),
            finished_at: None,
        }
    }

    #[test]
    fn manifest_round_trips_and_finishes_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RunStore::open(dir.path()).unwrap();
        assert_eq!(store.manifest().unwrap(), None);
        store.put_manifest(&manifest()).unwrap();
        assert_eq!(store.manifest().unwrap(), Some(manifest()));
        store.mark_finished().unwrap();
        let first = store.manifest().unwrap().unwrap().finished_at.unwrap();
        assert!(first.ends_with('Z'), "{first}");
        store.mark_finished().unwrap();
        assert_eq!(
            store.manifest().unwrap().unwrap().finished_at.unwrap(),
            first
        );
    }

    #[test]
    fn answers_are_never_overwritten_failures_are() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = RunStore::open(dir.path()).unwrap();
        let n = store
            .insert(&[
                (&sample("a", 0, Status::Ok), "req-a"),
                (&sample("a", 1, Status::Timeout), "req-a"),
            ])
            .unwrap();
        assert_eq!(n, 2);
        let mut again = sample("a", 0, Status::Invalid);
        again.content = Some("other".to_owned());
        let mut retried = sample("a", 1, Status::Ok);
        retried.attempts = 2;
        let n = store
            .insert(&[(&again, "req-a"), (&retried, "req-a")])
            .unwrap();
        assert_eq!(n, 1);
        let all = store.samples().unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].status, Status::Ok);
        assert_eq!(all[0].content.as_deref(), Some("answer a/0"));
        assert_eq!(all[1].status, Status::Ok);
        assert_eq!(all[1].attempts, 3);
        assert_eq!(store.request("a").unwrap().as_deref(), Some("req-a"));
        let answered = store.answered().unwrap();
        assert_eq!(answered.len(), 2);
    }

    #[test]
    fn a_version_1_store_is_migrated_with_its_samples() {
        let dir = tempfile::tempdir().unwrap();
        {
            let conn = Connection::open(RunStore::path_in(dir.path())).unwrap();
            conn.execute_batch(
                "CREATE TABLE manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE requests (instance_id TEXT PRIMARY KEY, body TEXT NOT NULL);
                 CREATE TABLE samples (
                     instance_id TEXT NOT NULL, sample INTEGER NOT NULL CHECK (sample >= 0),
                     status TEXT NOT NULL CHECK (status IN
                         ('ok', 'truncated', 'refused', 'http_error', 'timeout', 'invalid')),
                     content TEXT, reasoning_content TEXT, finish_reason TEXT,
                     prompt_tokens INTEGER, completion_tokens INTEGER, reasoning_tokens INTEGER,
                     latency_ms REAL NOT NULL, elapsed_ms REAL NOT NULL, attempts INTEGER NOT NULL,
                     endpoint TEXT, http_status INTEGER, error TEXT, completed_at TEXT NOT NULL,
                     PRIMARY KEY (instance_id, sample));
                 CREATE TABLE invocations (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL,
                     finished_at TEXT, args TEXT NOT NULL, outcome TEXT, samples_added INTEGER);
                 INSERT INTO samples VALUES ('a', 0, 'ok', 'x', NULL, 'stop', 1, 2, NULL,
                     1.0, 1.0, 1, NULL, 200, NULL, '2025-01-01T00:00:00.000Z');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        }
        let mut store = RunStore::open(dir.path()).unwrap();
        let all = store.samples().unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].content.as_deref(), Some("x"));
        store
            .insert(&[(&sample("b", 0, Status::Failed), "r")])
            .unwrap();
        assert_eq!(store.answered().unwrap().len(), 1, "failed is no answer");
    }

    #[test]
    fn a_second_writer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let _first = RunStore::open(dir.path()).unwrap();
        let second = RunStore::open(dir.path());
        assert!(matches!(second, Err(StoreError::Locked(_))));
        // Readers are fine.
        RunStore::open_existing(dir.path()).unwrap();
    }

    #[test]
    fn archive_moves_the_store_aside() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut store = RunStore::open(dir.path()).unwrap();
            store.insert(&[(&sample("a", 0, Status::Ok), "r")]).unwrap();
        }
        let moved = RunStore::archive(dir.path()).unwrap();
        assert!(moved.ends_with("run.1.sqlite"));
        assert!(!RunStore::exists(dir.path()));
        let store = RunStore::open(dir.path()).unwrap();
        assert!(store.samples().unwrap().is_empty());
    }
}
