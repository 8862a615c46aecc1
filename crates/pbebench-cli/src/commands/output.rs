//! Every command's outputs: `--out FILE` written atomically, `--out -` to standard output
//! (`pbebench_io::Output`), with the path named in every error; and where a command's own
//! text goes when standard output holds an output.

use anyhow::Context;
use pbebench_io::Output;
use std::io;
use std::path::{Path, PathBuf};

/// An output being written, with its path for messages.
pub struct Out {
    output: Output,
    path: PathBuf,
}

impl Out {
    /// Starts writing `path` (`-`: standard output); opened before the work, so that an
    /// unwritable path fails at once.
    pub fn create(path: &Path) -> anyhow::Result<Self> {
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

/// [`Out::create`] of an optional path.
pub fn create(path: Option<&Path>) -> anyhow::Result<Option<Out>> {
    path.map(Out::create).transpose()
}

/// Whether any of `outs` is standard output (where the command's own text must not go).
pub fn any_stdout<'a>(outs: impl IntoIterator<Item = &'a Option<Out>>) -> bool {
    outs.into_iter().flatten().any(Out::is_stdout)
}

/// Prints a command's own text: to standard output, or to standard error when standard
/// output holds one of its outputs.
pub fn say(text: &str, stdout_taken: bool) {
    if stdout_taken {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
}
