//! Fingerprints: the SHA-256 that identifies a dataset (or a template) in a manifest,
//! computed as every pbebench fingerprint is (`pbebench_io::sha256_file`).

use crate::EvalError;
use pbebench::dataset::DatasetError;
use std::path::Path;

/// SHA-256 of a file's bytes, lowercase hex.
pub(crate) fn sha256_file(path: &Path) -> Result<String, EvalError> {
    pbebench_io::sha256_file(path).map_err(|error| {
        DatasetError::Io {
            path: path.to_path_buf(),
            error,
        }
        .into()
    })
}
