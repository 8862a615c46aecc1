//! # pbebench-io
//!
//! The files of pbebench's commands, in one place:
//!
//! - **inputs** are opened one way ([`open_input`], [`read_input`],
//!   [`read_input_string`]): a directory is refused at once, a UTF-8 byte-order mark is
//!   skipped, and bytes that are not UTF-8 are located;
//! - **outputs** are written under a temporary name beside their target and renamed into
//!   place only when complete ([`AtomicFile`]), so a crash or an interrupt never leaves a
//!   half-written file where the real one should be; the temporary files not yet committed
//!   are listed process-wide so that a signal handler can remove them before the process
//!   exits ([`remove_uncommitted`]); and an [`Output`] is such a file or, for the path `-`,
//!   standard output;
//! - a command's **files are checked before any work** ([`Files`]): an output that is one
//!   of its inputs (or another output) is refused, comparing files rather than strings,
//!   and every output must be creatable;
//! - **journals** of long runs ([`Journal`]) are appended a line per result and
//!   resumed after an interruption, a last line cut short by a kill dropped, and locked
//!   ([`lock_exclusive`]) so that a second run on the same output refuses to start;
//! - **fingerprints** identify a dataset by its instances ([`dataset_fingerprint`]) and a
//!   file by its bytes ([`sha256_file`], [`Sha256Writer`]), and [`safe_file_name`] makes a
//!   free-text label a file name.
//!
//! The core library (`pbebench`) writes no files: it reads through this crate and
//! computes; the commands, the demo and the solving of a dataset write through this crate.
//!
//! ```
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("results.json");
//! let mut file = pbebench_io::AtomicFile::create(&path)?;
//! file.write_all(b"{}\n")?;
//! assert!(!path.exists(), "not there before the commit");
//! file.commit()?;
//! assert_eq!(pbebench_io::read_input_string(&path)?, "{}\n");
//! # Ok::<(), std::io::Error>(())
//! ```
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]
#![warn(missing_docs)]

mod digest;
mod files;
mod input;
mod journal;
mod lock;

pub use digest::{dataset_fingerprint, sha256_file, sha256_hex, Sha256Writer};
pub use files::{safe_file_name, Files, FilesError};
pub use input::{open_input, read_input, read_input_string, Input};
pub use journal::{
    journal_entries, journal_path, Journal, JournalEntry, JournalOpenError, START_OVER,
};
pub use lock::{lock_exclusive, LOCK_PATIENCE};

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file written under a temporary name and renamed into place only by [`commit`], so a
/// crash never leaves a half-written file where the real one should be.
///
/// The file gets the permissions a plain create would give (`0666` less the umask), or
/// those of the file it replaces; a symbolic link to a file is kept and its target
/// replaced. A path that exists but is no regular file (`/dev/null`, `/dev/stdout`, a named
/// pipe) is written directly: renaming over it would replace the device or pipe itself.
///
/// [`commit`]: AtomicFile::commit
pub struct AtomicFile {
    target: Target,
}

enum Target {
    Renamed {
        path: PathBuf,
        writer: BufWriter<tempfile::NamedTempFile>,
        _pending: Pending,
    },
    Direct(BufWriter<File>),
}

/// The temporary files of the [`AtomicFile`]s of the process that are neither committed
/// nor dropped: what [`remove_uncommitted`] removes.
static PENDING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// A temporary file listed in [`PENDING`] for as long as this lives.
struct Pending(PathBuf);

impl Pending {
    /// Creates the temporary file with `create` and lists it, holding the list's lock
    /// throughout: a signal handler that calls [`remove_uncommitted`] meanwhile waits for
    /// the file to be listed, so no signal can fall between its creation and its listing
    /// and leave it behind.
    fn create(
        create: impl FnOnce() -> io::Result<tempfile::NamedTempFile>,
    ) -> io::Result<(tempfile::NamedTempFile, Self)> {
        let mut list = pending();
        let tmp = create()?;
        list.push(tmp.path().to_path_buf());
        let listed = Pending(tmp.path().to_path_buf());
        Ok((tmp, listed))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let mut list = pending();
        if let Some(k) = list.iter().position(|p| *p == self.0) {
            list.swap_remove(k);
        }
    }
}

/// The write buffer of an [`AtomicFile`]: a dataset is written in a few large writes
/// rather than many 8 KiB ones (each a system call).
const WRITE_BUFFER: usize = 1 << 16;

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes the temporary file of every [`AtomicFile`] not yet committed, for a process
/// about to exit without unwinding (on SIGINT or SIGTERM): the outputs it was writing are
/// left as they were before it started. Returns how many were removed.
pub fn remove_uncommitted() -> usize {
    pending()
        .drain(..)
        .filter(|path| std::fs::remove_file(path).is_ok())
        .count()
}

impl AtomicFile {
    /// Starts writing what will become `path` (a temporary file beside it).
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        // Following symbolic links: what a write to `path` would reach.
        let existing = match std::fs::metadata(&path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if existing
            .as_ref()
            .is_some_and(|m| !m.is_file() && !m.is_dir())
        {
            let file = std::fs::OpenOptions::new().write(true).open(&path)?;
            return Ok(AtomicFile {
                target: Target::Direct(BufWriter::with_capacity(WRITE_BUFFER, file)),
            });
        }
        let path = match &existing {
            Some(meta) if meta.is_file() => std::fs::canonicalize(&path)?,
            _ => path,
        };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let prefix = temp_prefix(&path);
        remove_stale_temps(&dir, &prefix);
        let prefix = format!("{prefix}{}.", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Created with 0666 the umask still applies, as for any new file.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let (tmp, listed) = Pending::create(|| builder.tempfile_in(&dir))?;
        // Held until the file is dropped or the process dies: what tells a later run
        // whether the file is still being written.
        lock::try_lock_now(tmp.as_file())?;
        if let Some(meta) = existing.filter(|m| m.is_file()) {
            tmp.as_file().set_permissions(meta.permissions())?;
        }
        Ok(AtomicFile {
            target: Target::Renamed {
                path,
                _pending: listed,
                writer: BufWriter::with_capacity(WRITE_BUFFER, tmp),
            },
        })
    }

    /// Flushes, syncs and renames the file into place (flushes only, for a path written
    /// directly).
    pub fn commit(self) -> io::Result<()> {
        match self.target {
            Target::Renamed { path, writer, .. } => {
                let tmp = writer.into_inner().map_err(|e| e.into_error())?;
                tmp.as_file().sync_all()?;
                tmp.persist(&path).map_err(|e| e.error)?;
            }
            Target::Direct(mut writer) => writer.flush()?,
        }
        Ok(())
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.target {
            Target::Renamed { writer, .. } => writer,
            Target::Direct(writer) => writer,
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

/// The start of the names of the temporary files of an [`AtomicFile`] writing `path`:
/// `.pbebench-NAME.` (the first 100 bytes of the target's name at most), then the
/// writer's process id, a dot, random letters and `.tmp`.
fn temp_prefix(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut end = name.len().min(100);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".pbebench-{}.", &name[..end])
}

/// Removes the temporary files that an [`AtomicFile`] of the same output left in `dir`
/// when its process was killed (`kill -9`, a crash, a power cut): those named after the
/// output (`prefix`) whose lock no one holds, and whose writer's process (the id in the
/// name) is gone where that can be told (`/proc`). A file being written is locked by its
/// writer and is never touched. Failures are ignored: this only tidies up.
fn remove_stale_temps(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let Some(pid) = rest
            .strip_suffix(".tmp")
            .and_then(|r| r.split_once('.'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = pid == std::process::id()
            || (Path::new("/proc/self").exists() && Path::new(&format!("/proc/{pid}")).exists());
        if alive {
            continue;
        }
        let path = entry.path();
        let Ok(file) = File::open(&path) else {
            continue;
        };
        if matches!(lock::try_lock_now(&file), Ok(true)) && lock::still_at(&file, &path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Writes `contents` to `path` atomically.
pub fn write_atomic(path: impl AsRef<Path>, contents: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(contents)?;
    f.commit()
}

/// The path that means standard output wherever a command takes `--out`.
pub const STDOUT: &str = "-";

/// Whether `path` is [`STDOUT`].
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT
}

/// One output of a command: an [`AtomicFile`], or standard output when the path is `-`.
/// Standard output is buffered and flushed by [`Output::commit`]; a reader that goes away
/// (`| head`) shows up as an [`io::ErrorKind::BrokenPipe`] error, which the binary ends
/// quietly on.
pub struct Output {
    sink: Sink,
}

enum Sink {
    File(AtomicFile),
    Stdout(BufWriter<io::Stdout>),
}

impl Output {
    /// Starts writing `path` (atomically), or standard output for `-`.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref();
        let sink = if is_stdout(path) {
            Sink::Stdout(BufWriter::with_capacity(WRITE_BUFFER, io::stdout()))
        } else {
            Sink::File(AtomicFile::create(path)?)
        };
        Ok(Output { sink })
    }

    /// Whether this output is standard output (where the command's own messages must not
    /// go).
    pub fn is_stdout(&self) -> bool {
        matches!(self.sink, Sink::Stdout(_))
    }

    /// Puts the file into place ([`AtomicFile::commit`]), or flushes standard output.
    pub fn commit(self) -> io::Result<()> {
        match self.sink {
            Sink::File(file) => file.commit(),
            Sink::Stdout(mut out) => out.flush(),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::File(file) => file,
            Sink::Stdout(out) => out,
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test at a time: [`remove_uncommitted`] removes every pending file of the
    /// process, those of a test running beside it too.
    fn serial() -> std::sync::MutexGuard<'static, ()> {
        static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
        SERIAL.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[test]
    fn atomic_write_replaces_whole_file() {
        let _serial = serial();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.jsonl");
        write_atomic(&p, b"one\n").unwrap();
        write_atomic(&p, b"two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// An uncommitted file is listed until it is committed or dropped, and removing the
    /// uncommitted ones leaves the target as it was.
    #[test]
    fn uncommitted_files_are_listed_and_removed() {
        let _serial = serial();
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        write_atomic(&target, b"before\n").unwrap();
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"half").unwrap();
        let tmp = match &file.target {
            Target::Renamed { _pending, .. } => _pending.0.clone(),
            Target::Direct(_) => unreachable!("a regular file is renamed"),
        };
        assert!(tmp.exists() && pending().contains(&tmp));
        assert!(remove_uncommitted() >= 1);
        assert!(!tmp.exists());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "before\n");
        drop(file);
        assert!(!pending().contains(&tmp));
    }

    /// The temporary files a killed writer of the same output left are removed when the
    /// output is written again; one still locked (being written), or of another output, is
    /// kept.
    #[test]
    fn stale_temporaries_of_the_same_output_are_removed() {
        let _serial = serial();
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        // Process ids beyond Linux's largest (2^22): no process has them.
        let stale = dir.path().join(".pbebench-out.jsonl.4999999.aBc123.tmp");
        let busy = dir.path().join(".pbebench-out.jsonl.4999998.dEf456.tmp");
        let other = dir.path().join(".pbebench-other.jsonl.4999997.gHi789.tmp");
        for path in [&stale, &busy, &other] {
            std::fs::write(path, "half").unwrap();
        }
        let held = File::open(&busy).unwrap();
        assert!(lock::try_lock_now(&held).unwrap());
        write_atomic(&target, b"x\n").unwrap();
        assert!(!stale.exists(), "left by a killed writer: removed");
        assert!(busy.exists(), "locked by its writer: kept");
        assert!(other.exists(), "another output's: kept");
        drop(held);
        write_atomic(&target, b"y\n").unwrap();
        assert!(!busy.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_dash_is_standard_output() {
        let _serial = serial();
        assert!(is_stdout(Path::new("-")));
        assert!(!is_stdout(Path::new("./-")));
        let out = Output::create("-").unwrap();
        assert!(out.is_stdout());
        out.commit().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.txt");
        let mut out = Output::create(&path).unwrap();
        assert!(!out.is_stdout());
        out.write_all(b"x\n").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x\n");
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    /// A new file is as readable as any other new file (not the temporary file's 0600).
    #[cfg(unix)]
    #[test]
    fn new_files_get_the_usual_permissions() {
        let _serial = serial();
        let dir = tempfile::tempdir().unwrap();
        let (ours, plain) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
        write_atomic(&ours, b"x\n").unwrap();
        File::create(&plain).unwrap();
        assert_eq!(mode(&ours), mode(&plain));
    }

    /// Replacing a file keeps its permissions, and a link to it stays a link.
    #[cfg(unix)]
    #[test]
    fn replacing_keeps_permissions_and_links() {
        let _serial = serial();
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (file, link) = (dir.path().join("data.jsonl"), dir.path().join("link.jsonl"));
        write_atomic(&file, b"one\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink("data.jsonl", &link).unwrap();
        write_atomic(&link, b"two\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "two\n");
        assert_eq!(mode(&file), 0o640);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    /// A path to a device is written through, not replaced: through a link to /dev/null
    /// here (renaming over the link, as a plain atomic write would, leaves a regular file).
    #[cfg(unix)]
    #[test]
    fn devices_are_written_through() {
        let _serial = serial();
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("discard.jsonl");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        write_atomic(&link, b"gone\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(std::fs::metadata(&link)
            .unwrap()
            .file_type()
            .is_char_device());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A directory is refused, naming the problem.
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::IsADirectory, "{err}");
    }
}
