//! Where the tests find the authors' published PBEBench files (a dev-dependency only).
//!
//! By default the subset committed in `testdata/pbebench-official/` (see its README for
//! what it holds and its CC BY-SA 4.0 licence), so the tests need nothing beside the
//! clone. Setting `PBEBENCH_REFERENCE` to a folder with the complete files (same names,
//! e.g. `../shared/reference/pbebench-official`) makes the reference tests sweep those
//! instead; [`is_complete`] tells a test which figures to expect.
#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::path::PathBuf;

/// The environment variable naming a folder with the complete published files.
pub const ENV: &str = "PBEBENCH_REFERENCE";

/// The folder the reference files are read from: `$PBEBENCH_REFERENCE` when set, else the
/// committed subset.
pub fn dir() -> PathBuf {
    match std::env::var_os(ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/pbebench-official"),
    }
}

/// Whether [`dir`] holds the complete published files rather than the committed subset.
pub fn is_complete() -> bool {
    std::env::var_os(ENV).is_some_and(|dir| !dir.is_empty())
}

/// One reference file or folder by its published name; panics, naming the path and the
/// fix, when it is missing (a test's precondition, not a condition to skip on).
pub fn path(name: &str) -> PathBuf {
    let path = dir().join(name);
    assert!(
        path.exists(),
        "{} not found: the committed subset is in testdata/pbebench-official; {ENV} must name \
         a folder with the published files",
        path.display()
    );
    path
}
