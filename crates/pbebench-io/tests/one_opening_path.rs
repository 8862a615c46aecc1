//! Every reader of a file opens it through `pbebench_io::open_input` (or the functions
//! built on it), so that a directory, a byte-order mark or bytes that are not UTF-8 are met
//! the same way everywhere: `pbebench inspect DIR` once looped forever because its reader
//! opened files its own way. This test keeps it so: no library or binary source of the
//! workspace opens or reads a file directly, outside this crate and outside tests.

use std::path::{Path, PathBuf};

/// Ways of reading a file that bypass `open_input`.
const DIRECT: [&str; 4] = [
    "File::open(",
    "fs::read_to_string(",
    "fs::read(",
    "OpenOptions::new().read(",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            // A test module in a file of its own (`#[cfg(test)] mod tests;`, or
            // `#[path = "x_tests.rs"]` beside `x.rs`) may read what it wrote, as the test
            // modules at the end of a file may.
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n != "tests.rs" && !n.ends_with("_tests.rs"))
        {
            out.push(path);
        }
    }
}

#[test]
fn no_source_opens_a_file_for_reading_by_itself() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() && !src.starts_with(root.join("crates/pbebench-io")) {
            sources(&src, &mut files);
        }
    }
    sources(&root.join("python/src"), &mut files);
    assert!(files.len() > 50, "found only {} sources", files.len());
    let mut offending = Vec::new();
    for file in &files {
        let text = pbebench_io::read_input_string(file).unwrap();
        // Test modules (at the end of a file) may read what they wrote.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (k, line) in code.lines().enumerate() {
            if DIRECT.iter().any(|d| line.contains(d)) && !line.trim_start().starts_with("//") {
                offending.push(format!("{}:{}: {}", file.display(), k + 1, line.trim()));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "read through pbebench_io::open_input instead:\n{}",
        offending.join("\n")
    );
}
