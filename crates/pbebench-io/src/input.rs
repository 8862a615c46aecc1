//! The one way pbebench opens a file it reads: every reader (datasets, responses, word
//! lists, templates, results, audits, cascade files, journals, fingerprints) goes through
//! [`open_input`] or the functions built on it, so that a directory, a byte-order mark or
//! bytes that are not UTF-8 are met the same way everywhere.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// The UTF-8 byte-order mark, which some editors put at the start of a text file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The read buffer of an [`Input`]: datasets and responses are read in large blocks.
const READ_BUFFER: usize = 1 << 16;

/// A file opened for reading by [`open_input`]: a regular file, a pipe or a device, never a
/// directory, with a UTF-8 byte-order mark at its start skipped.
pub struct Input {
    reader: BufReader<File>,
}

/// Opens `path` for reading. A directory is refused here, at once, with an
/// [`io::ErrorKind::IsADirectory`] error (reading one fails on every read, which a line
/// reader would otherwise meet again and again); a UTF-8 byte-order mark is skipped.
pub fn open_input(path: impl AsRef<Path>) -> io::Result<Input> {
    let mut reader = BufReader::with_capacity(READ_BUFFER, open_file(path.as_ref())?);
    if reader.fill_buf()?.starts_with(BOM) {
        reader.consume(BOM.len());
    }
    Ok(Input { reader })
}

/// The whole of `path` as bytes, read through [`open_input`].
pub fn read_input(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_input(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The whole of `path` as text, read through [`open_input`]; bytes that are not UTF-8 are
/// an [`io::ErrorKind::InvalidData`] error naming the line and byte where they start.
pub fn read_input_string(path: impl AsRef<Path>) -> io::Result<String> {
    let bytes = read_input(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..bad];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = bad
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not valid UTF-8 (line {line}, byte {column} of the line)"),
        )
    })
}

/// The file at `path`, opened as is (no byte-order mark skipped), or the error of a
/// directory: what [`open_input`] and [`crate::sha256_file`] share.
pub(crate) fn open_file(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(is_a_directory());
    }
    Ok(file)
}

/// The error of a path that names a directory where a file is wanted.
pub(crate) fn is_a_directory() -> io::Error {
    io::Error::new(
        io::ErrorKind::IsADirectory,
        "is a directory, not a file; give a file",
    )
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        self.reader.consume(amount)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        for err in [
            open_input(dir.path()).err().unwrap(),
            read_input(dir.path()).unwrap_err(),
            read_input_string(dir.path()).unwrap_err(),
        ] {
            assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
            assert_eq!(err.to_string(), "is a directory, not a file; give a file");
        }
        let missing = open_input(dir.path().join("nope")).err().unwrap();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words.in");
        std::fs::write(&path, b"\xEF\xBB\xBFab\ncd\n").unwrap();
        assert_eq!(read_input_string(&path).unwrap(), "ab\ncd\n");
        let lines: Vec<String> = open_input(&path)
            .unwrap()
            .lines()
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines, ["ab", "cd"]);
        // Only at the start: one later in the file is text.
        std::fs::write(&path, b"ab\n\xEF\xBB\xBFcd").unwrap();
        assert_eq!(read_input_string(&path).unwrap(), "ab\n\u{feff}cd");
        std::fs::write(&path, b"").unwrap();
        assert_eq!(read_input(&path).unwrap(), b"");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_located() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, b"ok\nab\xFFc\n").unwrap();
        let err = read_input_string(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            err.to_string(),
            "not valid UTF-8 (line 2, byte 3 of the line)"
        );
    }
}
