//! Fingerprints: the SHA-256 that identifies a dataset (or a template) in a manifest.

use crate::EvalError;
use pbebench::dataset::DatasetError;
use sha2::{Digest, Sha256};
use std::path::Path;

/// SHA-256 of a file's bytes, lowercase hex.
pub(crate) fn sha256_file(path: &Path) -> Result<String, EvalError> {
    let bytes = std::fs::read(path).map_err(|error| DatasetError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(hex(&Sha256::digest(&bytes)))
}

/// Lowercase hex of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
