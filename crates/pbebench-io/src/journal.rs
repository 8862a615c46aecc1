//! Append-only JSON-lines journals: what a long run (`pbebench solve`, `pbebench vet`)
//! has finished so far, one line per result after a header line, so that an interrupted
//! run resumes where it stopped ([`Journal`]).

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the message refusing a journal ends with: how to start over instead.
pub const START_OVER: &str = "delete it, or pass --fresh, to start over";

/// The journal of a long run writing `out`: `OUT.partial`, its results so far, one JSON
/// line each after a header line, appended (and flushed) as they come, so that an
/// interrupted run loses none of them; `done` holds what an earlier run of the same job
/// left. An output that is no regular file (`-`, `/dev/stdout`) gets no journal: every
/// method then does nothing.
///
/// Recording is shared between threads; the first failure to write stops the journal
/// (the run goes on, and cannot be resumed) and is kept for [`Journal::failure`].
pub struct Journal<T> {
    path: Option<PathBuf>,
    done: T,
    file: Mutex<Option<File>>,
    failed: Mutex<Option<String>>,
}

/// `OUT.partial`, the journal of the output `out`; `None` for an output that is no regular
/// file (`-`, `/dev/stdout`), which gets no journal.
pub fn journal_path(out: &Path) -> Option<PathBuf> {
    if crate::is_stdout(out) || std::fs::metadata(out).is_ok_and(|m| !m.is_file()) {
        return None;
    }
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    Some(PathBuf::from(name))
}

impl<T: Default> Journal<T> {
    /// Opens the journal at `path` (none for `None`) for appending, locked for as long as
    /// it is open: a second run on the same journal gets an `Io` error with the action
    /// `lock` (of kind [`io::ErrorKind::WouldBlock`]) instead of doing all the work again
    /// beside the first. With `fresh`, an earlier journal is emptied first. A journal with
    /// text is passed to `read` (header included), which makes the `done` results of the
    /// earlier run or refuses another job's journal; a last line cut short by a kill is
    /// then dropped from the file, so the next append starts a line of its own. An empty
    /// or new journal gets `header` as its first line.
    pub fn open<E>(
        path: Option<PathBuf>,
        fresh: bool,
        header: &str,
        read: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<Self, JournalOpenError<E>> {
        let mut journal = Journal {
            path: None,
            done: T::default(),
            file: Mutex::new(None),
            failed: Mutex::new(None),
        };
        let Some(path) = path else {
            return Ok(journal);
        };
        let (file, done) = open_journal(&path, fresh, header, read)?;
        journal.done = done.unwrap_or_default();
        journal.path = Some(path);
        *journal.file.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(file);
        Ok(journal)
    }
}

impl<T> Journal<T> {
    /// The journal's file, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What an earlier run of the same job left (`T::default()` when nothing).
    pub fn done(&self) -> &T {
        &self.done
    }

    /// Appends `line` as one JSON line and flushes it; the first failure is kept for
    /// [`Journal::failure`] and ends the journal.
    pub fn record(&self, line: &impl Serialize) {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        let Some(f) = file.as_mut() else { return };
        let line = serde_json::to_string(line).expect("journal lines serialise");
        if let Err(e) = writeln!(f, "{line}").and_then(|()| f.flush()) {
            *file = None;
            let path = (self.path.as_ref()).map_or(String::new(), |p| p.display().to_string());
            *self.failed.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(format!("cannot write {path}: {e}"));
        }
    }

    /// Why the journal could not be kept up, if it could not.
    pub fn failure(&self) -> Option<String> {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Removes the journal once the outputs it stands for are written.
    pub fn remove(self) {
        drop(self.file);
        if let Some(path) = self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// One line of a journal after its header, read by [`journal_entries`]: its 1-based line
/// number and what it holds, or why that is not an `L`.
pub type JournalEntry<L> = (usize, Result<L, serde_json::Error>);

/// The first line of a journal's `text` (its header; empty for an empty text) and its
/// other lines read as `L`, in order, with their 1-based line numbers. Blank lines are
/// skipped, and so is a last line that is not an `L` when the text does not end with a
/// line break: a kill cut it short, and its result is made again.
pub fn journal_entries<L: DeserializeOwned>(
    text: &str,
) -> (&str, impl Iterator<Item = JournalEntry<L>> + '_) {
    let mut lines = text.lines().enumerate();
    let header = lines.next().map_or("", |(_, l)| l);
    let last = text.lines().count();
    let cut = !text.ends_with('\n');
    let entries = lines
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(k, line)| (k + 1, serde_json::from_str(line)))
        .filter(move |(number, read)| !(read.is_err() && cut && *number == last));
    (header, entries)
}

/// Why a journal could not be opened: a file operation, or the caller's reading of the
/// lines an earlier run left.
#[derive(Debug)]
pub enum JournalOpenError<E> {
    /// `action` (`remove`, `read` or `write`) failed on the journal file.
    Io {
        /// What was being done.
        action: &'static str,
        /// The error.
        source: io::Error,
    },
    /// The caller refused the earlier run's text (another job's journal, a bad line).
    Read(E),
}

/// [`Journal::open`] for a journal that is a file: the file, locked
/// ([`crate::lock_exclusive`]), and what `read` made of an earlier run's text (`None` for
/// an empty or new journal).
fn open_journal<T, E>(
    path: &Path,
    fresh: bool,
    header: &str,
    read: impl FnOnce(&str) -> Result<T, E>,
) -> Result<(File, Option<T>), JournalOpenError<E>> {
    let io = |action| move |source| JournalOpenError::Io { action, source };
    let mut file = locked(path).map_err(|(action, e)| io(action)(e))?;
    if fresh {
        file.set_len(0).map_err(io("remove"))?;
    }
    let existing = match crate::read_input_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io("read")(e)),
    };
    let done = match existing.filter(|text| !text.trim().is_empty()) {
        Some(text) => {
            let done = read(&text).map_err(JournalOpenError::Read)?;
            if !text.ends_with('\n') {
                let kept = text.rfind('\n').map_or(0, |at| at + 1);
                file.set_len(kept as u64).map_err(io("write"))?;
            }
            Some(done)
        }
        None => {
            file.set_len(0).map_err(io("write"))?;
            writeln!(file, "{header}").map_err(io("write"))?;
            None
        }
    };
    Ok((file, done))
}

/// The journal at `path`, opened for appending (created if need be) and locked: the file
/// that is at `path` once the lock is taken (a run that finished meanwhile removes its
/// journal).
fn locked(path: &Path) -> Result<File, (&'static str, io::Error)> {
    loop {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| ("write", e))?;
        crate::lock_exclusive(&file).map_err(|e| {
            if e.kind() == io::ErrorKind::WouldBlock {
                let held = "another run of this command is writing it: wait for it to finish, \
                            or give another output path";
                ("lock", io::Error::new(io::ErrorKind::WouldBlock, held))
            } else {
                ("lock", e)
            }
        })?;
        if crate::lock::still_at(&file, path) {
            return Ok(file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_is_started_resumed_cut_and_restarted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.partial");
        let lines = |text: &str| Ok::<_, ()>(text.lines().count());
        let (mut file, done) = open_journal(&path, false, "{\"h\":1}", lines).unwrap();
        assert_eq!(done, None);
        write!(file, "{{\"a\":1}}\n{{\"b\":").unwrap();
        drop(file);
        let (mut file, done) = open_journal(&path, false, "{\"h\":1}", lines).unwrap();
        assert_eq!(done, Some(3), "header, a, and the cut line were read");
        writeln!(file, "{{\"c\":3}}").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text, "{\"h\":1}\n{\"a\":1}\n{\"c\":3}\n",
            "the cut line is gone"
        );
        drop(file); // (Else the journal is locked by it.)
        let refused = open_journal(&path, false, "{\"h\":1}", |_| Err::<(), _>("another job"));
        assert!(matches!(
            refused,
            Err(JournalOpenError::Read("another job"))
        ));
        let (_, done) = open_journal(&path, true, "{\"h\":2}", lines).unwrap();
        assert_eq!(done, None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"h\":2}\n");
    }

    /// The entries after the header, numbered as lines of the file: a blank line skipped,
    /// a damaged line reported, a damaged last line without its line break (a kill cut it)
    /// left out; a damaged last line that was written whole is reported.
    #[test]
    fn entries_are_read_with_their_line_numbers() {
        let text = "{\"h\":1}\n1\n\n[\n3\n4";
        let (header, entries) = journal_entries::<u32>(text);
        assert_eq!(header, "{\"h\":1}");
        let read: Vec<(usize, Option<u32>)> = entries.map(|(n, e)| (n, e.ok())).collect();
        assert_eq!(read, [(2, Some(1)), (4, None), (5, Some(3)), (6, Some(4))]);
        let (_, entries) = journal_entries::<u32>("{}\n1\n[");
        assert_eq!(entries.count(), 1, "the cut line is left out");
        let (_, entries) = journal_entries::<u32>("{}\n1\n[\n");
        assert_eq!(
            entries.map(|(n, e)| (n, e.is_err())).last(),
            Some((3, true))
        );
    }

    /// Recorded lines are appended after the header; the journal of an output that is no
    /// file records nothing and removes nothing.
    #[test]
    fn a_journal_records_lines_and_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.jsonl");
        let path = journal_path(&out).unwrap();
        assert_eq!(path, dir.path().join("out.jsonl.partial"));
        let journal =
            Journal::<Vec<u32>>::open(Some(path.clone()), false, "{}", |_| Ok::<_, ()>(vec![]))
                .unwrap();
        journal.record(&[1, 2]);
        journal.record(&"three");
        assert_eq!(journal.failure(), None);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "{}\n[1,2]\n\"three\"\n");
        journal.remove();
        assert!(!path.exists());
        assert_eq!(journal_path(Path::new("-")), None);
        let none = Journal::<Vec<u32>>::open(None, false, "{}", |_| Ok::<_, ()>(vec![1])).unwrap();
        none.record(&1);
        assert!(none.path().is_none() && none.done().is_empty());
    }

    /// A second run on a journal that one holds open is refused, naming the lock; once the
    /// first closes it, the second resumes it.
    #[test]
    fn a_journal_has_one_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.partial");
        let lines = |text: &str| Ok::<_, ()>(text.lines().count());
        let (first, _) = open_journal(&path, false, "{\"h\":1}", lines).unwrap();
        match open_journal(&path, true, "{\"h\":1}", lines) {
            Err(JournalOpenError::Io { action, source }) => {
                assert_eq!(action, "lock");
                assert_eq!(source.kind(), io::ErrorKind::WouldBlock);
                assert!(source.to_string().contains("another run"), "{source}");
            }
            other => panic!("expected a lock error, not {:?}", other.map(|(_, d)| d)),
        }
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"h\":1}\n",
            "untouched"
        );
        drop(first);
        let (_, done) = open_journal(&path, false, "{\"h\":1}", lines).unwrap();
        assert_eq!(done, Some(1));
    }
}
