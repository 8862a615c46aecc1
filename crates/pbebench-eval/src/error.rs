//! Why a run could not start.

use crate::client::EndpointError;
use crate::solver_cmd::CommandError;
use crate::store::StoreError;
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
    #[error("{dir} holds a run made with other parameters:\n{differences}\nRe-run with the run's own parameters to continue it, choose another --run directory, or add --force-new to start over (the old store is kept as run.N.sqlite).")]
    Mismatch {
        /// The run directory.
        dir: PathBuf,
        /// One line per parameter that differs.
        differences: String,
    },
}
