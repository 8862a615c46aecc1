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
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
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
        'N' => named_escape(src, at)?,
        other => {
            // Python keeps unknown escapes verbatim (with a warning).
            out.push('\\');
            (other, at + 1 + other.len_utf8())
        }
    };
    out.push(ch);
    Ok(end)
}

/// `\N{NAME}` at byte `at` of `src`: the character and the offset after the `}`.
fn named_escape(src: &str, at: usize) -> Result<(char, usize), LiteralError> {
    let bad = LiteralError::BadEscape { at };
    let body = src
        .get(at + 2..)
        .and_then(|r| r.strip_prefix('{'))
        .ok_or(bad.clone())?;
    let end = body.find(['}', '\n']).ok_or(bad.clone())?;
    if !body[end..].starts_with('}') {
        return Err(bad);
    }
    let ch = character_named(&body[..end]).ok_or(bad)?;
    Ok((ch, at + 3 + end + 1))
}

/// The character CPython's `\N{name}` gives (`unicodedata.lookup` without named
/// sequences): its Unicode name or a name alias, in any case; but the algorithmic names
/// `HANGUL SYLLABLE …` and `CJK UNIFIED IDEOGRAPH-…` only in capitals, as CPython reads
/// them. `None` for any other name, as CPython's SyntaxError.
///
/// The names are those of the Unicode version of the `unicode_names2` crate, which may be
/// newer than a given CPython's (3.11 has Unicode 14): a character added since is named
/// here and unknown there. Aliases are matched as Unicode's loose matching does (spaces
/// and medial hyphens aside); CPython also wants an alias's exact spacing.
#[cfg(feature = "python-names")]
pub fn character_named(name: &str) -> Option<char> {
    /// No character name is longer (the longest is 88).
    const LONGEST: usize = 100;
    let well_formed = name.len() <= LONGEST
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b' ' || b == b'-')
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    if !well_formed {
        return None;
    }
    let upper = name.to_ascii_uppercase();
    if upper.starts_with("HANGUL SYLLABLE ") || upper.starts_with("CJK UNIFIED IDEOGRAPH-") {
        return algorithmic(name);
    }
    // The one name loose matching confuses with another (U+116C HANGUL JUNGSEONG OE).
    if upper == "HANGUL JUNGSEONG O-E" {
        return Some('\u{1180}');
    }
    let ch = unicode_names2::character(&upper)?;
    let own = unicode_names2::name(ch).map(|n| n.to_string());
    match own {
        Some(own) if own == upper => Some(ch),
        // A loose spelling of the character's own name ("LATIN  SMALL LETTER A"), which
        // CPython refuses; otherwise the name is one of its aliases.
        Some(own) if loose(&own) == loose(&upper) => None,
        _ => Some(ch),
    }
}

/// A Hangul syllable or CJK unified ideograph by its name, which CPython reads in
/// capitals only (`HANGUL SYLLABLE GA`; `CJK UNIFIED IDEOGRAPH-` and four or five hex
/// digits).
#[cfg(feature = "python-names")]
fn algorithmic(name: &str) -> Option<char> {
    if let Some(jamo) = name.strip_prefix("HANGUL SYLLABLE ") {
        let capitals = !jamo.is_empty() && jamo.bytes().all(|b| b.is_ascii_uppercase());
        return capitals.then(|| unicode_names2::character(name)).flatten();
    }
    if let Some(hex) = name.strip_prefix("CJK UNIFIED IDEOGRAPH-") {
        let digits = matches!(hex.len(), 4 | 5)
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b));
        let ch = char::from_u32(u32::from_str_radix(hex, 16).ok().filter(|_| digits)?)?;
        let named = unicode_names2::name(ch)?.to_string();
        return named.starts_with("CJK UNIFIED IDEOGRAPH-").then_some(ch);
    }
    None
}

/// Without the `python-names` feature no name is known: `\N{…}` is a bad escape.
#[cfg(not(feature = "python-names"))]
pub fn character_named(_name: &str) -> Option<char> {
    None
}

/// A name as Unicode's loose matching compares it: spaces and hyphens dropped.
#[cfg(feature = "python-names")]
fn loose(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, ' ' | '-')).collect()
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
        let err = |src: &str| parse_string_literal(src, 0).unwrap_err();
        assert_eq!(err("'abc"), LiteralError::Unterminated { at: 0 });
        assert_eq!(err("b'abc'"), LiteralError::Bytes { at: 0 });
        assert_eq!(err(r"'\x4'"), LiteralError::BadEscape { at: 1 });
        assert_eq!(err("abc"), LiteralError::NotAString { at: 0 });
    }

    /// `\N{…}` as CPython reads it (the whole table is checked against CPython in
    /// `tests/cpython_literals.rs`).
    #[cfg(feature = "python-names")]
    #[test]
    fn named_escapes() {
        assert_eq!(lit(r"'\N{LATIN SMALL LETTER A}b'"), "ab");
        assert_eq!(lit(r"'\N{latin small letter sharp s}'"), "ß");
        assert_eq!(
            lit(r"'\N{LATIN LETTER GLOTTAL STOP}\N{MODIFIER LETTER TRIANGULAR COLON}'"),
            "ʔː"
        );
        assert_eq!(lit(r"'\N{NBSP}'"), "\u{a0}", "an alias");
        assert_eq!(lit(r"'\N{CJK UNIFIED IDEOGRAPH-4E00}'"), "一");
        assert_eq!(lit(r"'\N{HANGUL SYLLABLE GA}'"), "가");
        assert_eq!(
            lit(r"'\N{HANGUL JUNGSEONG O-E}\N{HANGUL JUNGSEONG OE}'"),
            "\u{1180}\u{116c}"
        );
        assert_eq!(
            lit(r"r'\N{SNOWMAN}'"),
            r"\N{SNOWMAN}",
            "raw strings keep it"
        );
        for bad in [
            r"'\N{NO SUCH NAME}'",
            r"'\N{LATIN_SMALL_LETTER_A}'",
            r"'\N{latinsmalllettera}'",
            r"'\N{LATIN  SMALL LETTER A}'",
            r"'\N{CJK UNIFIED IDEOGRAPH-4e00}'",
            r"'\N{HANGUL SYLLABLE ga}'",
            r"'\N{hangul syllable GA}'",
            r"'\N{cjk unified ideograph-4E00}'",
            r"'\N{-A}'",
            r"'\N{}'",
            r"'\N{LATIN SMALL LETTER A'",
            r"'\NA'",
            r"'\N'",
        ] {
            assert_eq!(
                parse_string_literal(bad, 0),
                Err(LiteralError::BadEscape {
                    at: bad.find('\\').unwrap()
                }),
                "{bad}"
            );
        }
        assert_eq!(
            parse_string_literal(r"'\x+4'", 0),
            Err(LiteralError::BadEscape { at: 1 }),
            "a sign is no hex digit"
        );
    }

    #[test]
    fn lists_round_trip() {
        let items = vec!["a".to_string(), "it's".into(), "q\"".into(), "\\".into()];
        let text = repr_list(&items);
        assert_eq!(text, r#"['a', "it's", 'q"', '\\']"#);
        assert_eq!(parse_str_list(&text).unwrap(), items);
        assert_eq!(parse_str_list(" [ 'a' , ] ").unwrap(), vec!["a"]);
        let not_a_list = |why: &str| Err(LiteralError::NotAList(why.to_owned()));
        assert_eq!(
            parse_str_list("['a' 'b']"),
            not_a_list("expected ',' or ']'")
        );
        assert_eq!(parse_str_list("['a'] x"), not_a_list("text after ']'"));
    }
}
