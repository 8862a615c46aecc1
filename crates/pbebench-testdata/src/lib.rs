//! Where the tests find the authors' published PBEBench files (a dev-dependency only).
//!
//! The complete published snapshots are shipped in `testdata/pbebench-official/` (see its
//! README for the source and their CC BY-SA 4.0 licence), so the reference tests sweep
//! every published record with nothing beside the clone.
#![deny(unsafe_code)]
#![warn(clippy::too_many_lines)]
#![warn(missing_docs)]

use std::path::PathBuf;

/// The folder the reference files are read from: `testdata/pbebench-official/`.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/pbebench-official")
}

/// One reference file or folder by its published name; panics, naming the path, when it
/// is missing (a test's precondition, not a condition to skip on).
pub fn path(name: &str) -> PathBuf {
    let path = dir().join(name);
    assert!(
        path.exists(),
        "{} not found: the published files are shipped in testdata/pbebench-official",
        path.display()
    );
    path
}
