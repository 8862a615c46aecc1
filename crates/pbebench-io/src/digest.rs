//! SHA-256 fingerprints, the one way pbebench identifies the contents of a file or of data
//! it read. A dataset is named by the hash of its instances ([`dataset_fingerprint`]) in
//! an evaluation run's manifest and in the journals of `solve` and `vet`, so that none of
//! them resumes on another dataset whose ids happen to be the same.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::Path;

/// A SHA-256 being computed over what is written to it (`serde_json::to_writer` into it
/// hashes a value without building its text).
#[derive(Clone, Default)]
pub struct Sha256Writer(Sha256);

impl Sha256Writer {
    /// An empty hash.
    pub fn new() -> Self {
        Sha256Writer::default()
    }

    /// The hash of everything written, as 64 lowercase hex digits.
    pub fn finish(self) -> String {
        hex(&self.0.finalize())
    }
}

impl Write for Sha256Writer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// SHA-256 of the bytes of the file at `path` (all of them: a byte-order mark too), as 64
/// lowercase hex digits; opened as every input is ([`crate::open_input`]: a directory is
/// refused).
pub fn sha256_file(path: impl AsRef<Path>) -> io::Result<String> {
    let mut file = crate::input::open_file(path.as_ref())?;
    let mut hash = Sha256Writer::new();
    io::copy(&mut file, &mut hash)?;
    Ok(hash.finish())
}

/// What identifies a dataset: the SHA-256 (64 lowercase hex digits) of its instances'
/// JSON lines, in order, as pbebench writes them (`serde_json`, each line ending in
/// `\n`). Two datasets with the same ids (the same preset and seed of different versions,
/// an edited copy) differ here, while the whitespace, field order or format (pbebench's
/// or the authors') of the file read does not matter.
///
/// ```
/// use serde_json::json;
///
/// let one = pbebench_io::dataset_fingerprint([json!({"id": "a"}), json!({"id": "b"})]);
/// let two = pbebench_io::dataset_fingerprint([json!({"id": "b"}), json!({"id": "a"})]);
/// assert_ne!(one, two, "the order is part of the dataset");
/// assert_eq!(one, pbebench_io::sha256_hex(b"{\"id\":\"a\"}\n{\"id\":\"b\"}\n"));
/// ```
pub fn dataset_fingerprint<T: Serialize>(instances: impl IntoIterator<Item = T>) -> String {
    let mut hash = Sha256Writer::new();
    for instance in instances {
        serde_json::to_writer(&mut hash, &instance).expect("instances serialise");
        hash.write_all(b"\n").expect("hashing does not fail");
    }
    hash.finish()
}

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test vectors of FIPS 180-2, through each way in.
    #[test]
    fn known_hashes() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_hex(b"abc"), abc);
        let mut w = Sha256Writer::new();
        w.write_all(b"a").unwrap();
        w.write_all(b"bc").unwrap();
        assert_eq!(w.finish(), abc);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(sha256_file(&path).unwrap(), abc);
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_file(dir.path()).unwrap_err().kind(),
            io::ErrorKind::IsADirectory
        );
    }
}
