//! Append-only JSON-lines journals: what a long run (`pbebench solve`, `pbebench vet`)
//! has finished so far, one line per result after a header line, so that an interrupted
//! run resumes where it stopped.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

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

/// Opens the journal at `path` for appending and returns it with what `read` made of an
/// earlier run's text. The journal is locked ([`crate::lock_exclusive`]) for as long as
/// the returned file is open: a second run on the same journal gets an `Io` error with
/// the action `lock` (of kind [`io::ErrorKind::WouldBlock`]) instead of doing all the work
/// again beside the first. With `fresh`, an earlier journal is emptied first. A journal
/// with text is passed to `read` (header included); a last line cut short by a kill is
/// then dropped from the file, so the next append starts a line of its own. An empty or
/// new journal gets `header` as its first line, and `None` is returned for it.
pub fn open_journal<T, E>(
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
