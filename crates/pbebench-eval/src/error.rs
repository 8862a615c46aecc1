//! Why a run could not start.

use crate::client::EndpointError;
use crate::solver_cmd::CommandError;
use crate::store::StoreError;
use crate::Field;
use pbebench::dataset::DatasetError;
use std::path::PathBuf;

/// Why a run could not start or went wrong.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The dataset could not be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The run store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An endpoint is unusable.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    /// The solver program cannot run.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// A field of the configuration is refused.
    #[error(transparent)]
    Config(#[from] crate::ConfigError),
    /// A parameter is out of range, or a file it names is unusable.
    #[error("{0}")]
    Parameter(String),
    /// A file of the run (its `results.json`) could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The run directory holds a run made with other answer-affecting parameters.
    #[error("{}", self.message(Field::path))]
    Mismatch {
        /// The run directory.
        dir: PathBuf,
        /// One line per parameter that differs.
        differences: String,
    },
}

impl EvalError {
    /// The error's text, with every field of the configuration it mentions named by
    /// `name` (a command line names them by its options); its `Display` names them by
    /// their path in [`crate::EvalConfig`].
    pub fn message(&self, name: impl Fn(Field) -> &'static str) -> String {
        match self {
            EvalError::Config(e) => e.message(name),
            EvalError::Endpoint(e) => e.message(name),
            EvalError::Command(e) => format!(
                "{} '{}' cannot run: {}",
                name(Field::SolverCommand),
                e.command,
                e.reason
            ),
            EvalError::Mismatch { dir, differences } => format!(
                "{} holds a run made with other parameters:\n{differences}\nRe-run with the run's \
                 own parameters to continue it, choose another {} directory, or add {} to start over (the \
                 old store is kept as run.N.sqlite).",
                dir.display(),
                name(Field::RunDir),
                name(Field::ForceNew)
            ),
            e => e.to_string(),
        }
    }
}
