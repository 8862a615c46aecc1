//! Writing a responses file: one [`ResponseLine`] per instance, the form every reader of
//! [`super::read_responses`] takes its shortcut on.

use serde::Serialize;
use std::io::{self, Write};

/// One line of a responses file as pbebench writes it: `{"id": "…", "response": "…"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ResponseLine<'a> {
    /// The instance's id.
    pub id: &'a str,
    /// The response: a model's text, or a solver's answer ([`crate::render_answer`]).
    pub response: &'a str,
}

impl ResponseLine<'_> {
    /// Writes the line, newline included.
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut out, self)?;
        out.write_all(b"\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::responses::{parse_response_line, InstanceRef};

    /// What the writer writes, the reader reads back, through its shortcut too.
    #[test]
    fn written_lines_read_back() {
        for (id, response) in [("a", "```python\n[]\n```"), ("7", ""), ("x\"y", "é\n\u{1}")] {
            let mut bytes = Vec::new();
            ResponseLine { id, response }.write_to(&mut bytes).unwrap();
            let text = String::from_utf8(bytes).unwrap();
            assert!(
                text.ends_with('\n') && text.matches('\n').count() == 1,
                "{text}"
            );
            let record = parse_response_line(text.trim_end()).unwrap();
            assert_eq!(record.instance, InstanceRef::Id(id.to_owned()));
            assert_eq!(record.responses, [response]);
            assert!(super::super::reader::takes_shortcut(text.trim_end()));
        }
    }

    /// The bytes are those `serde_json::json!({"id", "response"})` gave before the writer
    /// existed (keys in that order, compact).
    #[test]
    fn the_bytes_are_the_old_ones() {
        let mut bytes = Vec::new();
        ResponseLine {
            id: "0",
            response: "x",
        }
        .write_to(&mut bytes)
        .unwrap();
        let old = serde_json::json!({ "id": "0", "response": "x" }).to_string() + "\n";
        assert_eq!(String::from_utf8(bytes).unwrap(), old);
    }
}
