//! Python string literals: reading them (the authors' files, model responses) and writing
//! them (prompts show examples as Python list reprs). Never evaluates anything.

/// Why a Python literal could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    /// Expected a quote character at byte offset `at`.
    #[error("expected a string literal at byte {at}")]
    NotAString {
        /// Byte offset in the source text.
        at: usize,
    },
    /// The literal was never closed.
    #[error("unterminated string literal starting at byte {at}")]
    Unterminated {
        /// Byte offset in the source text.
        at: usize,
    },
    /// A `\x`, `\u`, `\U` or `\N{…}` escape that is malformed or unsupported.
    #[error("bad escape sequence at byte {at}")]
    BadEscape {
        /// Byte offset in the source text.
        at: usize,
    },
    /// Bytes literals (`b'…'`) are not text.
    #[error("bytes literal at byte {at} is not a string")]
    Bytes {
        /// Byte offset in the source text.
        at: usize,
    },
    /// A Python list of strings was expected.
    #[error("expected a Python list of strings: {0}")]
    NotAList(String),
}

/// Reads one Python string literal starting at byte `start` of `src` (prefixes `r`, `u`,
/// `R`, `U`, any quote style, triple quotes). Returns the value and the byte offset just
/// after the closing quote.
pub fn parse_string_literal(src: &str, start: usize) -> Result<(String, usize), LiteralError> {
    let bytes = src.as_bytes();
    let mut i = start;
    let mut raw = false;
    while i < bytes.len() && i < start + 2 {
        match bytes[i] {
            b'r' | b'R' => raw = true,
            b'u' | b'U' => {}
            b'b' | b'B' => return Err(LiteralError::Bytes { at: start }),
            _ => break,
        }
        i += 1;
    }
    let quote = match bytes.get(i) {
        Some(&q @ (b'\'' | b'"')) => q,
        _ => return Err(LiteralError::NotAString { at: start }),
    };
    let triple = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
    i += if triple { 3 } else { 1 };
    let mut out = String::new();
    loop {
        let rest = &src[i..];
        let Some(c) = rest.chars().next() else {
            return Err(LiteralError::Unterminated { at: start });
        };
        if c as u32 == quote as u32 {
            if !triple {
                return Ok((out, i + 1));
            }
            if rest.as_bytes().starts_with(&[quote, quote, quote]) {
                return Ok((out, i + 3));
            }
            out.push(c);
            i += 1;
        } else if c == '\n' && !triple {
            return Err(LiteralError::Unterminated { at: start });
        } else if c == '\\' {
            let Some(next) = rest[1..].chars().next() else {
                return Err(LiteralError::Unterminated { at: start });
            };
            if raw {
                // In raw strings a backslash stays, and it only protects the next character.
                out.push('\\');
                out.push(next);
                i += 1 + next.len_utf8();
                continue;
            }
            i = read_escape(src, i, next, &mut out)?;
        } else {
            // A run of plain characters, copied at once: it ends at the next quote of this
            // kind, backslash or newline (all ASCII, so the end is a character boundary).
            let first = c.len_utf8();
            let run = first
                + rest.as_bytes()[first..]
                    .iter()
                    .position(|&b| b == quote || b == b'\\' || b == b'\n')
                    .unwrap_or(rest.len() - first);
            out.push_str(&rest[..run]);
            i += run;
        }
    }
}

/// Decodes the escape whose backslash is at byte `at`; returns the offset after it.
fn read_escape(src: &str, at: usize, next: char, out: &mut String) -> Result<usize, LiteralError> {
    let simple = match next {
        '\n' => Some(None),
        '\\' => Some(Some('\\')),
        '\'' => Some(Some('\'')),
        '"' => Some(Some('"')),
        'n' => Some(Some('\n')),
        't' => Some(Some('\t')),
        'r' => Some(Some('\r')),
        'a' => Some(Some('\u{7}')),
        'b' => Some(Some('\u{8}')),
        'f' => Some(Some('\u{c}')),
        'v' => Some(Some('\u{b}')),
        _ => None,
    };
    if let Some(ch) = simple {
        out.extend(ch);
        return Ok(at + 1 + next.len_utf8());
    }
    let hex = |digits: usize| -> Result<(char, usize), LiteralError> {
        let body = src
            .get(at + 2..at + 2 + digits)
            .ok_or(LiteralError::BadEscape { at })?;
        let code = u32::from_str_radix(body, 16).map_err(|_| LiteralError::BadEscape { at })?;
        let ch = char::from_u32(code).ok_or(LiteralError::BadEscape { at })?;
        Ok((ch, at + 2 + digits))
    };
    let (ch, end) = match next {
        'x' => hex(2)?,
        'u' => hex(4)?,
        'U' => hex(8)?,
        '0'..='7' => {
            let digits: String = src[at + 1..]
                .chars()
                .take(3)
                .take_while(|c| ('0'..='7').contains(c))
                .collect();
            let code =
                u32::from_str_radix(&digits, 8).map_err(|_| LiteralError::BadEscape { at })?;
            (
                char::from_u32(code).ok_or(LiteralError::BadEscape { at })?,
                at + 1 + digits.len(),
            )
        }
        'N' => return Err(LiteralError::BadEscape { at }),
        other => {
            // Python keeps unknown escapes verbatim (with a warning).
            out.push('\\');
            (other, at + 1 + other.len_utf8())
        }
    };
    out.push(ch);
    Ok(end)
}

/// Parses a Python list of string literals such as `['ab', "c"]` (the authors' hard files
/// store inputs and outputs this way). Trailing commas and whitespace are accepted.
pub fn parse_str_list(src: &str) -> Result<Vec<String>, LiteralError> {
    let bad = |what: &str| LiteralError::NotAList(what.to_owned());
    let bytes = src.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    if bytes.get(i) != Some(&b'[') {
        return Err(bad("no opening '['"));
    }
    i = skip_ws(i + 1);
    let mut items = Vec::new();
    loop {
        match bytes.get(i) {
            Some(b']') => {
                i = skip_ws(i + 1);
                return if i == bytes.len() {
                    Ok(items)
                } else {
                    Err(bad("text after ']'"))
                };
            }
            Some(_) => {
                let (s, end) = parse_string_literal(src, i)?;
                items.push(s);
                i = skip_ws(end);
                match bytes.get(i) {
                    Some(b',') => i = skip_ws(i + 1),
                    Some(b']') => {}
                    _ => return Err(bad("expected ',' or ']'")),
                }
            }
            None => return Err(bad("no closing ']'")),
        }
    }
}

/// Python's `repr(s)` for a str: single quotes unless `s` has a `'` and no `"`.
pub fn repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    quoted(s, quote)
}

/// `s` in double quotes with Python escapes, as in `replace("a", "b")`.
pub fn repr_double(s: &str) -> String {
    quoted(s, '"')
}

/// Python's `repr(list_of_str)`: `['a', 'b']`.
pub fn repr_list<S: AsRef<str>>(items: &[S]) -> String {
    let parts: Vec<String> = items.iter().map(|s| repr(s.as_ref())).collect();
    format!("[{}]", parts.join(", "))
}

fn quoted(s: &str, quote: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> String {
        parse_string_literal(s, 0).unwrap().0
    }

    #[test]
    fn literals_of_every_kind() {
        assert_eq!(lit(r#""ab""#), "ab");
        assert_eq!(lit("'a\\'b'"), "a'b");
        assert_eq!(lit(r#"r'a\'b'"#), "a\\'b");
        assert_eq!(lit(r"'\x41\u00e9\n\t\\'"), "Aé\n\t\\");
        assert_eq!(lit(r"'\101'"), "A");
        assert_eq!(lit(r"'\q'"), "\\q");
        assert_eq!(lit("'''a'b'''"), "a'b");
        assert_eq!(lit("'ʔaː'"), "ʔaː");
        assert!(parse_string_literal("'abc", 0).is_err());
        assert!(parse_string_literal("b'abc'", 0).is_err());
        assert!(parse_string_literal(r"'\x4'", 0).is_err());
        assert!(parse_string_literal("abc", 0).is_err());
    }

    #[test]
    fn lists_round_trip() {
        let items = vec!["a".to_string(), "it's".into(), "q\"".into(), "\\".into()];
        let text = repr_list(&items);
        assert_eq!(text, r#"['a', "it's", 'q"', '\\']"#);
        assert_eq!(parse_str_list(&text).unwrap(), items);
        assert_eq!(parse_str_list(" [ 'a' , ] ").unwrap(), vec!["a"]);
        assert!(parse_str_list("['a' 'b']").is_err());
        assert!(parse_str_list("['a'] x").is_err());
    }
}
