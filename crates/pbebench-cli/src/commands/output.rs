//! Every command's outputs: `--out FILE` written atomically, `--out -` to standard output
//! (`pbebench_io::Output`), with the path named in every error; and where a command's own
//! text goes when standard output holds an output.
//!
//! A command declares its inputs and outputs in one [`Outputs`] and checks them before any
//! work ([`Outputs::check`]: an output that is one of its inputs, or another output, is
//! refused). Only the [`Checked`] that the check returns creates an output file
//! ([`Checked::create`]), and only one that was declared: a command cannot write a file
//! without the check having seen it. (No command writes through `pbebench_io` directly;
//! a test below keeps it so.)

use anyhow::Context;
use pbebench_io::{Files, Output};
use std::io;
use std::path::{Path, PathBuf};

/// The files a command reads and writes, each with the option that names it.
#[derive(Default)]
pub struct Outputs {
    files: Files,
    /// The outputs (files and directories) declared, as given.
    declared: Vec<PathBuf>,
}

impl Outputs {
    /// No files yet.
    pub fn new() -> Self {
        Outputs::default()
    }

    /// Adds an input named by `option` (e.g. `--dataset`).
    pub fn input(&mut self, option: &str, path: impl AsRef<Path>) -> &mut Self {
        self.files.input(option, path);
        self
    }

    /// Adds an output file named by `option` (e.g. `--out`; `-` is standard output).
    pub fn output(&mut self, option: &str, path: impl AsRef<Path>) -> &mut Self {
        self.declared.push(path.as_ref().to_path_buf());
        self.files.output(option, path);
        self
    }

    /// Adds an optional output file.
    pub fn output_opt(&mut self, option: &str, path: Option<&Path>) -> &mut Self {
        if let Some(path) = path {
            self.output(option, path);
        }
        self
    }

    /// Adds an output directory, and the files the command writes into it (`name` in
    /// messages: `--out's index.html`).
    pub fn output_dir<'a>(
        &mut self,
        option: &str,
        dir: &Path,
        names: impl IntoIterator<Item = &'a str>,
    ) -> &mut Self {
        self.files.output_dir(option, dir);
        for name in names {
            let path = dir.join(name);
            self.declared.push(path.clone());
            self.files
                .output_within(&format!("{option}'s {name}"), path);
        }
        self
    }

    /// Refuses an output that is one of the inputs or another output, or that cannot be
    /// created; on success, what creates the outputs.
    pub fn check(&self) -> anyhow::Result<Checked> {
        self.files.check()?;
        Ok(Checked {
            declared: self.declared.clone(),
        })
    }
}

/// The declared outputs of a command whose files passed [`Outputs::check`].
#[derive(Debug)]
pub struct Checked {
    declared: Vec<PathBuf>,
}

impl Checked {
    /// Starts writing `path` (`-`: standard output), which must have been declared.
    pub fn create(&self, path: &Path) -> anyhow::Result<Out> {
        if !self.declared.iter().any(|p| p == path) {
            anyhow::bail!(
                "{}: this output was not checked against the command's inputs (a bug of \
                 pbebench: please report it)",
                path.display()
            );
        }
        Out::create(path)
    }

    /// [`Checked::create`] of an optional path.
    pub fn create_opt(&self, path: Option<&Path>) -> anyhow::Result<Option<Out>> {
        path.map(|p| self.create(p)).transpose()
    }

    /// Writes `bytes` to `path` (declared) and puts it into place.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
        self.create(path)?.write_all(bytes)
    }
}

/// An output being written, with its path for messages.
pub struct Out {
    output: Output,
    path: PathBuf,
}

impl Out {
    /// Starts writing `path` (`-`: standard output); opened before the work, so that an
    /// unwritable path fails at once.
    fn create(path: &Path) -> anyhow::Result<Self> {
        let output =
            Output::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        Ok(Out {
            output,
            path: path.to_path_buf(),
        })
    }

    /// Whether this is standard output.
    pub fn is_stdout(&self) -> bool {
        self.output.is_stdout()
    }

    /// Writes the output with `write` and puts it into place.
    pub fn write(
        mut self,
        write: impl FnOnce(&mut Output) -> io::Result<()>,
    ) -> anyhow::Result<()> {
        write(&mut self.output)
            .and_then(|()| self.output.commit())
            .with_context(|| format!("{}: cannot write", self.path.display()))
    }

    /// Writes `bytes` and puts the output into place.
    pub fn write_all(self, bytes: &[u8]) -> anyhow::Result<()> {
        self.write(|out| io::Write::write_all(out, bytes))
    }
}

/// Whether any of `outs` is standard output (where the command's own text must not go).
pub fn any_stdout<'a>(outs: impl IntoIterator<Item = &'a Option<Out>>) -> bool {
    outs.into_iter().flatten().any(Out::is_stdout)
}

/// Prints a command's own text: to standard output, or to standard error (unless
/// `--quiet`) when standard output holds one of its outputs.
pub fn say(text: &str, stdout_taken: bool) {
    if stdout_taken {
        crate::printer::note_text(text);
    } else {
        print!("{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command writes its files through [`Checked`]: none creates a file through
    /// `pbebench_io` itself, or checks its files without [`Outputs`].
    #[test]
    fn commands_write_only_checked_outputs() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
        let forbidden = [
            "AtomicFile",
            "write_atomic",
            "Output::create",
            "Files::new",
            "pbebench_io::Files",
        ];
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name() == Some("output.rs".as_ref()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for word in forbidden {
                assert!(
                    !text.contains(word),
                    "{} uses {word}: declare its files in output::Outputs and write through \
                     output::Checked",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn an_undeclared_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let declared = dir.path().join("a.json");
        let checked = Outputs::new().output("--out", &declared).check().unwrap();
        assert!(checked.create(&declared).is_ok());
        let e = checked.create(&dir.path().join("b.json")).err().unwrap();
        assert!(e.to_string().contains("not checked"), "{e}");
    }
}
