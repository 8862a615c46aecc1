//! Derivations as historical linguists write them: one row per rule, one column per word,
//! each cell the form after that rule, the cells the rule changed marked, and each rule's
//! feeding and bleeding relations to the others named ([`Relations`]).
//!
//! A cascade may be untrusted (a model's answer): every form is bounded in length, and a
//! word whose form outgrows the bound shows `…` from that rule on, with the reason below
//! the table, instead of growing without end.

use crate::relations::{RelationMode, Relations};
use crate::rule::{Cascade, Rule};
use crate::symbols::{sound_law, Symbols};
use std::fmt::{self, Write};

/// The CSS of the HTML tables: changed cells highlighted, wrong expected outputs red.
pub const HTML_STYLE: &str = ".derivation td,.derivation th{padding:2px 8px;\
     font-family:monospace;text-align:left}.derivation .changed{background:#fde68a;\
     font-weight:bold}.derivation .wrong{background:#fecaca}";

/// The derivation of some words by a cascade (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derivation {
    rules: Vec<Rule>,
    /// The input words.
    words: Vec<String>,
    /// `forms[r][w]`: word w after rule r; `None` once it exceeds the bound.
    forms: Vec<Vec<Option<String>>>,
    /// The expected outputs, when known (an instance's examples).
    expected: Option<Vec<String>>,
    /// Per rule, its named relations (`feeds 3`, `counter-bleeds 1`, …).
    relations: Vec<Vec<String>>,
    /// The length bound on forms.
    max_len: usize,
    /// The segments the symbols of the words stand for: every form is shown in them.
    symbols: Symbols,
}

/// A word no rule of the cascade explains as a sound law would (as the Reconstruction
/// Engine separates irregular forms from regular ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Irregular {
    /// The cascade does not derive the word's expected output: it gives `got` (`None`:
    /// a form over the length bound).
    NotDerived {
        /// The word's position.
        word: usize,
        /// What the cascade gives.
        got: Option<String>,
    },
    /// The cascade derives the word, but only with a rule that changes no other word: a
    /// patch for this word, not a law.
    OwnRule {
        /// The word's position.
        word: usize,
        /// The rule (numbered from 0).
        rule: usize,
    },
}

impl Derivation {
    /// The derivation of `words` by `cascade`, relations by `mode`; forms longer than
    /// `max_len` characters are cut off (see the module documentation).
    pub fn new(cascade: &Cascade, words: &[String], mode: RelationMode, max_len: usize) -> Self {
        let rules = cascade.rules().to_vec();
        let mut current: Vec<Option<String>> = words
            .iter()
            .map(|w| (w.chars().count() <= max_len).then(|| w.clone()))
            .collect();
        let mut forms = Vec::with_capacity(rules.len());
        for rule in &rules {
            for form in current.iter_mut() {
                *form = form.take().and_then(|f| apply_within(rule, &f, max_len));
            }
            forms.push(current.clone());
        }
        Derivation {
            relations: named_relations(cascade, mode),
            rules,
            words: words.to_vec(),
            forms,
            expected: None,
            max_len,
            symbols: Symbols::default(),
        }
    }

    /// Shows every form in the segments `symbols` stand for (a dataset read from CLDF).
    pub fn with_symbols(mut self, symbols: &Symbols) -> Self {
        self.symbols = symbols.clone();
        self
    }

    /// The words no rule explains (see [`Irregular`]), in word order; empty without
    /// expected outputs ([`Derivation::with_expected`]). A word not derived is listed
    /// once; a derived word once per rule of its own.
    pub fn irregular(&self) -> Vec<Irregular> {
        let Some(expected) = &self.expected else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for (w, e) in expected.iter().enumerate() {
            if self.output(w) != Some(e.as_str()) {
                let got = self.output(w).map(str::to_owned);
                found.push(Irregular::NotDerived { word: w, got });
                continue;
            }
            for r in (0..self.rules.len()).filter(|&r| self.changed(r, w)) {
                let others = (0..self.words.len()).filter(|&v| v != w && self.changed(r, v));
                if others.count() == 0 {
                    found.push(Irregular::OwnRule { word: w, rule: r });
                }
            }
        }
        found
    }

    /// The irregular words as lines (`irregular: WORD (…)`), in IPA; empty when none.
    pub fn irregular_text(&self) -> String {
        let mut text = String::new();
        for irregular in self.irregular() {
            let _ = match irregular {
                Irregular::NotDerived { word, got } => writeln!(
                    text,
                    "irregular: {} > {} (the rules give {})",
                    self.show(&self.words[word]),
                    self.show(self.expected.as_ref().map_or("", |e| &e[word])),
                    got.map_or("a form over the bound".to_owned(), |g| self.show(&g)),
                ),
                Irregular::OwnRule { word, rule } => writeln!(
                    text,
                    "irregular: {} > {} (only rule {} changes it, and no other word)",
                    self.show(&self.words[word]),
                    self.show(self.expected.as_ref().map_or("", |e| &e[word])),
                    rule + 1
                ),
            };
        }
        text
    }

    /// A form as shown: in its segments.
    fn show(&self, form: &str) -> String {
        self.symbols.decode(form)
    }

    /// A rule as shown: `a -> b` in segments, the empty side `∅`.
    fn rule_text(&self, rule: &Rule) -> String {
        let show = |s: &str| {
            if s.is_empty() {
                "∅".to_owned()
            } else {
                self.show(s)
            }
        };
        format!("{} -> {}", show(rule.pattern()), show(rule.replacement()))
    }

    /// Adds the expected outputs (one per word), shown in a last row with each mismatch
    /// marked.
    pub fn with_expected(mut self, expected: &[String]) -> Self {
        if expected.len() == self.words.len() {
            self.expected = Some(expected.to_vec());
        }
        self
    }

    /// The form of word `w` after rule `r` (`None`: over the bound).
    pub fn form(&self, r: usize, w: usize) -> Option<&str> {
        self.forms[r][w].as_deref()
    }

    /// Whether rule `r` changed word `w`.
    pub fn changed(&self, r: usize, w: usize) -> bool {
        let before = if r == 0 {
            (self.words[w].chars().count() <= self.max_len).then_some(self.words[w].as_str())
        } else {
            self.form(r - 1, w)
        };
        before != self.form(r, w)
    }

    /// The named relations of rule `r` to the others: `feeds 3` (rule r can create an
    /// occurrence of rule 3's pattern and comes first), `counter-feeds 1` (it would, but
    /// rule 1 comes first), and the same for bleeding. Rules are numbered from 1.
    pub fn relations_of(&self, r: usize) -> &[String] {
        &self.relations[r]
    }

    /// The final form of word `w`, after the last rule (`None`: over the bound).
    pub fn output(&self, w: usize) -> Option<&str> {
        match self.forms.last() {
            Some(row) => row[w].as_deref(),
            None => Some(self.words[w].as_str()),
        }
    }

    /// The table as a self-contained HTML fragment: a small `<style>` ([`HTML_STYLE`]),
    /// then the `<table>` ([`Derivation::to_html_table`]).
    pub fn to_html(&self) -> String {
        format!("<style>{HTML_STYLE}</style>\n{}", self.to_html_table())
    }

    /// The `<table class="derivation">` alone, for a page that holds [`HTML_STYLE`] once.
    pub fn to_html_table(&self) -> String {
        let mut h =
            String::from("<table class=\"derivation\">\n<tr><th>rule</th><th>sound law</th>");
        for w in &self.words {
            let _ = write!(h, "<th>{}</th>", escape(&self.show(w)));
        }
        h.push_str("<th>relations</th></tr>\n");
        for (r, rule) in self.rules.iter().enumerate() {
            let _ = write!(
                h,
                "<tr><th>{} {}</th><td>{}</td>",
                r + 1,
                escape(&self.rule_text(rule)),
                escape(&sound_law(rule, &self.symbols))
            );
            for w in 0..self.words.len() {
                let class = if self.changed(r, w) {
                    " class=\"changed\""
                } else {
                    ""
                };
                let cell = self
                    .form(r, w)
                    .map_or("…".to_owned(), |f| escape(&self.show(f)));
                let _ = write!(h, "<td{class}>{cell}</td>");
            }
            let _ = writeln!(h, "<td>{}</td></tr>", escape(&self.relations[r].join(", ")));
        }
        if let Some(expected) = &self.expected {
            h.push_str("<tr><th>expected</th><td></td>");
            for (w, e) in expected.iter().enumerate() {
                let class = if self.output(w) == Some(e.as_str()) {
                    ""
                } else {
                    " class=\"wrong\""
                };
                let _ = write!(h, "<td{class}>{}</td>", escape(&self.show(e)));
            }
            h.push_str("<td></td></tr>\n");
        }
        h.push_str("</table>\n");
        h
    }
}

/// The text table: the rule column, one column per word (a changed cell starts with `*`),
/// and the relations; then the expected outputs (a wrong one starts with `≠`).
impl fmt::Display for Derivation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["rule".to_owned(), "sound law".to_owned()];
        head.extend(self.words.iter().map(|w| format!(" {}", self.show(w))));
        head.push("relations".to_owned());
        rows.push(head);
        for (r, rule) in self.rules.iter().enumerate() {
            let mut row = vec![
                format!("{} {}", r + 1, self.rule_text(rule)),
                sound_law(rule, &self.symbols),
            ];
            for w in 0..self.words.len() {
                let form = self.form(r, w).map_or("…".to_owned(), |f| self.show(f));
                let mark = if self.changed(r, w) { "*" } else { " " };
                row.push(format!("{mark}{form}"));
            }
            row.push(self.relations[r].join(", "));
            rows.push(row);
        }
        if let Some(expected) = &self.expected {
            let mut row = vec!["expected".to_owned(), String::new()];
            for (w, e) in expected.iter().enumerate() {
                let mark = if self.output(w) == Some(e.as_str()) {
                    " "
                } else {
                    "≠"
                };
                row.push(format!("{mark}{}", self.show(e)));
            }
            row.push(String::new());
            rows.push(row);
        }
        let columns = rows[0].len();
        let widths: Vec<usize> = (0..columns)
            .map(|c| rows.iter().map(|r| width(&r[c])).max().unwrap_or(0))
            .collect();
        for row in &rows {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                if c + 1 == columns {
                    line.push_str(cell);
                } else {
                    let pad = widths[c] - width(cell);
                    let _ = write!(line, "{cell}{}  ", " ".repeat(pad));
                }
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        let over: Vec<String> = (0..self.words.len())
            .filter(|&w| self.output(w).is_none())
            .map(|w| self.show(&self.words[w]))
            .collect();
        if !over.is_empty() {
            writeln!(
                f,
                "… forms longer than {} characters (not followed): {}",
                self.max_len,
                over.join(", ")
            )?;
        }
        Ok(())
    }
}

/// `rule` applied to `form`, or `None` when the result is longer than `max_len`.
fn apply_within(rule: &Rule, form: &str, max_len: usize) -> Option<String> {
    let single = Cascade::new(vec![rule.clone()]);
    single.apply_bounded(form, max_len).ok()
}

/// Each rule's relations, named and numbered from 1.
fn named_relations(cascade: &Cascade, mode: RelationMode) -> Vec<Vec<String>> {
    let rel = Relations::of(cascade, mode);
    let n = cascade.len();
    (0..n)
        .map(|i| {
            let mut names = Vec::new();
            for j in 0..n {
                let counter = if i < j { "" } else { "counter-" };
                if rel.feeds[i][j] {
                    names.push(format!("{counter}feeds {}", j + 1));
                }
                if rel.bleeds[i][j] {
                    names.push(format!("{counter}bleeds {}", j + 1));
                }
            }
            names
        })
        .collect()
}

/// The columns `text` takes in a terminal: its characters but the combining marks (the
/// tie bar of `t͡ʃ`, a nasal tilde written apart), which sit on the one before.
fn width(text: &str) -> usize {
    let combining = |c: char| matches!(c as u32, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F);
    text.chars().filter(|&c| !combining(c)).count()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cascade(rules: &[(&str, &str)]) -> Cascade {
        Cascade::from_pairs(rules).unwrap()
    }

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn rows_are_the_forms_after_each_rule_with_changes_and_relations() {
        // a -> b feeds b -> c; b -> c comes after, so "ab" ends "cc".
        let c = cascade(&[("a", "b"), ("b", "c")]);
        let d = Derivation::new(&c, &words(&["ab", "x"]), RelationMode::Exact, 100);
        assert_eq!(d.form(0, 0), Some("bb"));
        assert_eq!(d.form(1, 0), Some("cc"));
        assert!(d.changed(0, 0) && d.changed(1, 0));
        assert!(!d.changed(0, 1) && !d.changed(1, 1));
        assert_eq!(d.relations_of(0), ["feeds 2"]);
        // b -> c (rule 2) would bleed nothing of a's, and rewrites no 'a': no relation back.
        assert!(d.relations_of(1).is_empty());
        let text = d.to_string();
        assert_eq!(
            text,
            "rule      sound law   ab   x  relations\n1 a -> b  a > b      *bb   x  feeds 2\n2 b -> c  b > c      *cc   x\n"
        );
    }

    /// A dataset read from CLDF: rules, sound laws and forms shown in IPA; the words the
    /// rules get wrong, or change with a rule of their own, listed as irregular.
    #[test]
    fn forms_show_as_segments_and_irregular_words_are_listed() {
        let symbols = Symbols::for_segments(["t͡ʃ", "k", "i", "a", "u"], &[]).unwrap();
        let ch = symbols.encode(&["t͡ʃ"]).unwrap();
        // k > t͡ʃ / _ i explains two words; ku > u patches one; "kaka" stays irregular.
        let c = cascade(&[("ki", &format!("{ch}i")), ("ku", "u")]);
        let inputs = words(&["kiki", "aki", "aku", "kaka"]);
        let expected = vec![
            format!("{ch}i{ch}i"),
            format!("a{ch}i"),
            "au".into(),
            "kata".into(),
        ];
        let d = Derivation::new(&c, &inputs, RelationMode::Exact, 100)
            .with_symbols(&symbols)
            .with_expected(&expected);
        let text = d.to_string();
        assert_eq!(
            text,
            "rule         sound law      kiki     aki    aku   kaka  relations\n\
             1 ki -> t͡ʃi  k > t͡ʃ / _ i  *t͡ʃit͡ʃi  *at͡ʃi   aku   kaka\n\
             2 ku -> u    k > ∅ / _ u    t͡ʃit͡ʃi   at͡ʃi  *au    kaka\n\
             expected                    t͡ʃit͡ʃi   at͡ʃi   au   ≠kata\n"
        );
        assert!(d.to_html().contains("<td>k &gt; t͡ʃ / _ i</td>"));
        assert_eq!(
            d.irregular(),
            [
                Irregular::OwnRule { word: 2, rule: 1 },
                Irregular::NotDerived {
                    word: 3,
                    got: Some("kaka".into())
                }
            ]
        );
        assert_eq!(
            d.irregular_text(),
            "irregular: aku > au (only rule 2 changes it, and no other word)\nirregular: kaka > kata (the rules give kaka)\n"
        );
    }

    #[test]
    fn counter_relations_and_expected_outputs() {
        // b -> c before a -> b: a -> b would feed b -> c, but comes second.
        let c = cascade(&[("b", "c"), ("a", "b")]);
        let d = Derivation::new(&c, &words(&["ab"]), RelationMode::Exact, 100)
            .with_expected(&words(&["cc"]));
        assert_eq!(d.relations_of(1), ["counter-feeds 1"]);
        let text = d.to_string();
        assert!(text.contains("≠cc"), "{text}");
        let html = d.to_html();
        assert!(html.contains("<td class=\"wrong\">cc</td>"), "{html}");
        assert!(html.contains("<td class=\"changed\">bc</td>"), "{html}");
    }

    #[test]
    fn an_exploding_cascade_is_cut_off_not_followed() {
        let c: Cascade = std::iter::repeat_n(Rule::new("a", "aaa").unwrap(), 20).collect();
        let d = Derivation::new(&c, &words(&["a", "b"]), RelationMode::Exact, 256);
        assert_eq!(d.form(19, 0), None);
        assert_eq!(d.form(19, 1), Some("b"));
        assert!(d.to_string().contains("forms longer than 256 characters"));
        assert!(d.to_html().contains("<td class=\"changed\">…</td>"));
    }

    #[test]
    fn html_escapes_the_words() {
        let c = cascade(&[("<", "&")]);
        let d = Derivation::new(&c, &words(&["a<b"]), RelationMode::Exact, 100);
        let html = d.to_html();
        assert!(html.contains("<th>a&lt;b</th>"), "{html}");
        assert!(
            html.contains("<td class=\"changed\">a&amp;b</td>"),
            "{html}"
        );
    }
}
