//! Exclusive locks on files, held for as long as the file stays open and dropped by the
//! OS when the process dies (`flock` on Unix), so that a killed run never leaves a stale
//! lock: one per eval run directory (`run.lock`), one per journal of `solve` and `vet`
//! (the journal itself), one per temporary file of an [`crate::AtomicFile`].

use std::fs::File;
use std::io;
use std::time::{Duration, Instant};

/// How long [`lock_exclusive`] waits for a lock held elsewhere before it gives up.
///
/// A lock is held by an open file description, which a child process forked at that
/// moment (by any thread of this process, e.g. to start a solver command) shares until it
/// executes its program and closes the descriptor; on a loaded machine that window can
/// last milliseconds after the file was closed. A run that really holds the lock holds it
/// far longer.
pub const LOCK_PATIENCE: Duration = Duration::from_secs(1);

/// Takes an exclusive lock on `file`, trying again for up to [`LOCK_PATIENCE`] while
/// another holds it; an error of kind [`io::ErrorKind::WouldBlock`] when it is still held
/// then.
pub fn lock_exclusive(file: &File) -> io::Result<()> {
    let deadline = Instant::now() + LOCK_PATIENCE;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "another process holds its lock",
                ))
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
    }
}

/// Takes the lock on `file` if no one holds it, at once: whether it was taken.
pub(crate) fn try_lock_now(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Whether `file` (open) is still the file at `path`: a file locked after another process
/// removed or replaced it guards nothing.
pub(crate) fn still_at(file: &File, path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_exclusive_until_its_file_closes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.lock");
        let open = || {
            File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .unwrap()
        };
        let first = open();
        lock_exclusive(&first).unwrap();
        let second = open();
        let err = lock_exclusive(&second).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock, "{err}");
        assert!(!try_lock_now(&second).unwrap());
        drop(first);
        assert!(try_lock_now(&second).unwrap());
        assert!(still_at(&second, &path));
        std::fs::remove_file(&path).unwrap();
        assert!(!still_at(&second, &path));
    }
}
