//! A command's files, checked before it starts any work ([`Files::check`]): an output
//! that is one of its inputs (`solve --dataset x --out x`), or that another of its
//! outputs also names, is refused, since writing it would destroy the input or the other
//! output; and every output must be creatable where it is, so that an unwritable path
//! fails at once rather than after hours of work. Files are compared as files, not as
//! strings: the same device and inode for a file that exists (through links, `./`, `..`,
//! hard links), the canonical path for one that does not exist yet.

use crate::{is_stdout, AtomicFile};
use std::path::{Path, PathBuf};

/// The files a command reads and writes, each with the option that names it (for
/// messages). Build it with [`Files::input`] and [`Files::output`], then [`Files::check`].
#[derive(Debug, Clone, Default)]
pub struct Files {
    inputs: Vec<Named>,
    outputs: Vec<Named>,
    dirs: Vec<Named>,
}

#[derive(Debug, Clone)]
struct Named {
    option: String,
    path: PathBuf,
    /// Whether [`Files::check`] also checks that the file can be created (not for a file
    /// inside an output directory that may not exist yet: the directory is checked).
    creatable: bool,
}

/// Why a command's files were refused.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// An output is one of the inputs.
    #[error("{output} {} is the file of {input} {}: writing it would destroy that input; choose another path for {output}", .output_path.display(), .input_path.display())]
    OutputIsInput {
        /// The option naming the output.
        output: String,
        /// Its path.
        output_path: PathBuf,
        /// The option naming the input.
        input: String,
        /// Its path.
        input_path: PathBuf,
    },
    /// Two outputs are the same file.
    #[error("{first} {} and {second} {} are the same file: one would overwrite the other; give them different paths", .first_path.display(), .second_path.display())]
    SameOutput {
        /// The option naming the first.
        first: String,
        /// Its path.
        first_path: PathBuf,
        /// The option naming the second.
        second: String,
        /// Its path.
        second_path: PathBuf,
    },
    /// An output cannot be created where it is.
    #[error("{option} {}: cannot write there: {error}", .path.display())]
    Unwritable {
        /// The option naming the output.
        option: String,
        /// Its path.
        path: PathBuf,
        /// What the OS said.
        error: std::io::Error,
    },
}

/// What identifies a file: its device and inode when it exists (as a regular file), else
/// its canonical path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FileKey {
    Inode(u64, u64),
    Path(PathBuf),
    /// Not a regular file (a device, a pipe, standard output): never destroyed by a write.
    Special,
}

impl Files {
    /// No files yet.
    pub fn new() -> Self {
        Files::default()
    }

    /// Adds an input file named by `option` (e.g. `--dataset`).
    pub fn input(&mut self, option: &str, path: impl AsRef<Path>) -> &mut Self {
        self.inputs.push(Named::new(option, path.as_ref()));
        self
    }

    /// Adds an output file named by `option` (e.g. `--out`); `-` (standard output) is
    /// never refused.
    pub fn output(&mut self, option: &str, path: impl AsRef<Path>) -> &mut Self {
        self.outputs.push(Named::new(option, path.as_ref()));
        self
    }

    /// Adds an output file inside an output directory ([`Files::output_dir`]) that may not
    /// exist yet: compared with the inputs and the other outputs, and left to the
    /// directory's check for being creatable.
    pub fn output_within(&mut self, option: &str, path: impl AsRef<Path>) -> &mut Self {
        let mut named = Named::new(option, path.as_ref());
        named.creatable = false;
        self.outputs.push(named);
        self
    }

    /// Adds an output directory named by `option`, which a command creates if need be and
    /// writes files into: it must be a directory or not exist yet, under a directory that
    /// can be written.
    pub fn output_dir(&mut self, option: &str, path: impl AsRef<Path>) -> &mut Self {
        self.dirs.push(Named::new(option, path.as_ref()));
        self
    }

    /// Refuses an output that is one of the inputs or another output, and one that cannot
    /// be created (checked by creating and removing a temporary file beside it, as the
    /// real write will).
    pub fn check(&self) -> Result<(), FilesError> {
        let inputs: Vec<(&Named, FileKey)> = self.inputs.iter().map(|n| (n, n.key())).collect();
        let mut outputs: Vec<(&Named, FileKey)> = Vec::new();
        for out in self.outputs.iter().filter(|n| !is_stdout(&n.path)) {
            let key = out.key();
            if key != FileKey::Special {
                if let Some((input, _)) = inputs.iter().find(|(_, k)| *k == key) {
                    return Err(FilesError::OutputIsInput {
                        output: out.option.clone(),
                        output_path: out.path.clone(),
                        input: input.option.clone(),
                        input_path: input.path.clone(),
                    });
                }
                if let Some((first, _)) = outputs.iter().find(|(_, k)| *k == key) {
                    return Err(FilesError::SameOutput {
                        first: first.option.clone(),
                        first_path: first.path.clone(),
                        second: out.option.clone(),
                        second_path: out.path.clone(),
                    });
                }
            }
            outputs.push((out, key));
        }
        for (out, _) in outputs.iter().filter(|(out, _)| out.creatable) {
            can_create(&out.path).map_err(|error| out.unwritable(error))?;
        }
        for dir in &self.dirs {
            can_create_in(&dir.path).map_err(|error| dir.unwritable(error))?;
        }
        Ok(())
    }
}

impl Named {
    fn new(option: &str, path: &Path) -> Self {
        Named {
            option: option.to_owned(),
            path: path.to_path_buf(),
            creatable: true,
        }
    }

    fn unwritable(&self, error: std::io::Error) -> FilesError {
        FilesError::Unwritable {
            option: self.option.clone(),
            path: self.path.clone(),
            error,
        }
    }

    fn key(&self) -> FileKey {
        if is_stdout(&self.path) {
            return FileKey::Special;
        }
        match std::fs::metadata(&self.path) {
            Ok(meta) if meta.is_file() => inode(&meta).unwrap_or_else(|| {
                FileKey::Path(std::fs::canonicalize(&self.path).unwrap_or_default())
            }),
            Ok(meta) if meta.is_dir() => FileKey::Path(canonical(&self.path)),
            Ok(_) => FileKey::Special,
            Err(_) => FileKey::Path(canonical(&self.path)),
        }
    }
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt;
    Some(FileKey::Inode(meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> Option<FileKey> {
    None
}

/// The canonical form of a path that may not exist: its nearest existing ancestor
/// canonicalised, the rest appended as written (absolute, either way).
fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut missing = Vec::new();
    let mut at = absolute.as_path();
    while let Some(parent) = at.parent() {
        missing.push(at.file_name().map(ToOwned::to_owned).unwrap_or_default());
        if let Ok(real) = std::fs::canonicalize(parent) {
            return missing.iter().rev().fold(real, |p, name| p.join(name));
        }
        at = parent;
    }
    absolute
}

/// Whether a file can be written at `path`: a temporary file beside it is created and
/// removed, as [`AtomicFile`] will. A path that exists and is no regular file (a device, a
/// pipe) is written directly and left alone; a directory is refused.
fn can_create(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(crate::input::is_a_directory()),
        Ok(meta) if !meta.is_file() => Ok(()),
        _ => AtomicFile::create(path).map(drop),
    }
}

/// Whether files can be written into the directory `dir`, which may not exist yet (then
/// its nearest existing ancestor must be a writable directory).
fn can_create_in(dir: &Path) -> std::io::Result<()> {
    let mut at = dir;
    loop {
        match std::fs::metadata(at) {
            Ok(meta) if meta.is_dir() => {
                return tempfile::Builder::new()
                    .prefix(".pbebench-")
                    .tempfile_in(at)
                    .map(drop)
            }
            Ok(_) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    format!("{} is not a directory", at.display()),
                ))
            }
            Err(_) => match at.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => at = parent,
                _ => at = Path::new("."),
            },
        }
    }
}

/// `label` made fit to be a file or directory name: every character but ASCII letters,
/// digits, `-`, `_` and `.` becomes `_`, and a name of dots alone (`.`, `..`) or an empty
/// one is prefixed with `_`. Labels are free text (`Qwen/Qwen3-8B`); names derived from
/// them go through this.
pub fn safe_file_name(label: &str) -> String {
    let name: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.chars().all(|c| c == '.') {
        format!("_{name}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(files: &Files) -> String {
        files.check().unwrap_err().to_string()
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_whatever_its_spelling() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("x.jsonl");
        std::fs::write(&data, "{}\n").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let spellings = [
            data.clone(),
            dir.path().join("sub/../x.jsonl"),
            dir.path().join("./x.jsonl"),
        ];
        for out in &spellings {
            let e = refused(Files::new().input("--dataset", &data).output("--out", out));
            assert!(e.starts_with("--out "), "{e}");
            assert!(e.contains("is the file of --dataset"), "{e}");
        }
        #[cfg(unix)]
        {
            let link = dir.path().join("link.jsonl");
            std::os::unix::fs::symlink(&data, &link).unwrap();
            let hard = dir.path().join("hard.jsonl");
            std::fs::hard_link(&data, &hard).unwrap();
            for out in [&link, &hard] {
                let e = refused(Files::new().input("--dataset", &data).output("--out", out));
                assert!(e.contains("is the file of --dataset"), "{e}");
            }
        }
        assert_eq!(std::fs::read_to_string(&data).unwrap(), "{}\n");
        let other = dir.path().join("y.jsonl");
        Files::new()
            .input("--dataset", &data)
            .output("--out", &other)
            .output("--stats", "-")
            .check()
            .unwrap();
        assert!(!other.exists(), "the check writes nothing");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn two_outputs_of_one_file_are_refused_even_before_it_exists() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path().join("r.json");
        let e = refused(
            Files::new()
                .output("--out", &r)
                .output("--per-instance", dir.path().join("./r.json")),
        );
        assert!(e.contains("--out") && e.contains("--per-instance"), "{e}");
        assert!(e.contains("are the same file"), "{e}");
        // Standard output twice, or a device, is no clash.
        Files::new()
            .input("--dataset", "/dev/null")
            .output("--out", "-")
            .output("--per-instance", "-")
            .output("--x", "/dev/null")
            .check()
            .unwrap();
    }

    #[test]
    fn unwritable_outputs_fail_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let e = refused(Files::new().output("--stats-json", dir.path().join("no/such/dir/s.json")));
        assert!(
            e.starts_with("--stats-json ") && e.contains("cannot write there"),
            "{e}"
        );
        let e = refused(Files::new().output("--out", dir.path()));
        assert!(e.contains("is a directory"), "{e}");
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        let e = refused(Files::new().output_dir("--out", file.join("report")));
        assert!(e.contains("is not a directory"), "{e}");
        let report = dir.path().join("new/report");
        Files::new()
            .output_dir("--out", &report)
            .output_within("--out's index.html", report.join("index.html"))
            .check()
            .unwrap();
        let e = refused(
            Files::new()
                .input("--results", &file)
                .output_dir("--out", dir.path())
                .output_within("--out's f", &file),
        );
        assert!(e.contains("is the file of --results"), "{e}");
        assert!(!dir.path().join("new").exists());
    }

    #[test]
    fn labels_become_safe_names() {
        assert_eq!(safe_file_name("Qwen/Qwen3-8B"), "Qwen_Qwen3-8B");
        assert_eq!(safe_file_name("a b:c\\d"), "a_b_c_d");
        assert_eq!(safe_file_name(".."), "_..");
        assert_eq!(safe_file_name(""), "_");
        assert_eq!(safe_file_name("beam.v2"), "beam.v2");
    }
}
