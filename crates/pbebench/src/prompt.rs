//! Prompts: a template with placeholders filled from an instance (`docs/answers.md#prompts`).
//!
//! Placeholders are `{inputs}` and `{outputs}` (the examples as Python list reprs),
//! `{max_rules}`, `{max_rule_len}` and `{alphabet}` (the letters, as one string). `{{` and
//! `}}` write literal braces; a `{` that does not start `{name}` is literal too, so JSON or
//! code in a template needs no escaping. An unknown `{name}` is an error naming it.

use crate::instance::Instance;
use crate::pylit;
use serde::Serialize;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The default template, stating the released restrictions in our own words.
pub const DEFAULT_TEMPLATE: &str = r#"Each output string below was produced from the input string above it by a hidden program: a sequence of rewrite rules applied one after another. Every rule is a call of Python's `replace`: replace(A, B) turns every occurrence of A into B, scanning from left to right without overlaps, and text it has just inserted is not scanned again. Since each rule works on the result of the rules before it, their order matters: an earlier rule can create text a later rule rewrites, or remove text a later rule would have rewritten.

Your task is to find a sequence of rules that turns every input into its output.

Worked illustration (not your task): the rules ["replace('ab', 'c')", "replace('c', '')"] turn "xab" into "x" and "cab" into "", because the first rule writes a "c" that the second then deletes.

Your answer must respect these restrictions:
1. Every rule is written as the string "replace(A, B)", where A and B are Python string literals.
2. A has at least 1 and at most {max_rule_len} characters. B has at most {max_rule_len} characters and may be empty ("").
3. Use no more than {max_rules} rules.
4. Use nothing but Python's `replace`: no other functions, modules, loops or conditions.
5. A and B may only contain these characters: {alphabet}
6. Give your final answer as a Python list of rule strings, in the order they apply, inside a single ```python Markdown code block, for example:
```python
["replace('ab', 'c')", "replace('c', '')"]
```

Inputs:
{inputs}

Outputs:
{outputs}
"#;

/// The authors' released prompt, with the examples and the limits as placeholders
/// (`templates/authors.txt`, CC BY-SA 4.0 as their data; see `templates/README.md`): with
/// it, a Lite instance gets the prompt the paper's models were given, and real sound-change
/// data the prompts of their `real_sli_promptsfile.json`, byte for byte.
pub const AUTHORS_TEMPLATE: &str = include_str!("../templates/authors.txt");

/// The built-in templates by name, for `--template NAME`: `default` ([`DEFAULT_TEMPLATE`])
/// and `authors` ([`AUTHORS_TEMPLATE`]).
pub const BUILT_IN_TEMPLATES: [(&str, &str); 2] =
    [("default", DEFAULT_TEMPLATE), ("authors", AUTHORS_TEMPLATE)];

/// A value a template can insert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholder {
    /// `{inputs}`: the example inputs as a Python list repr.
    Inputs,
    /// `{outputs}`: the example outputs as a Python list repr.
    Outputs,
    /// `{max_rules}`: the most rules a solution may use.
    MaxRules,
    /// `{max_rule_len}`: the longest side a rule may have.
    MaxRuleLen,
    /// `{alphabet}`: the letters rules may use.
    Alphabet,
}

impl Placeholder {
    /// Every placeholder.
    pub const ALL: [Placeholder; 5] = [
        Placeholder::Inputs,
        Placeholder::Outputs,
        Placeholder::MaxRules,
        Placeholder::MaxRuleLen,
        Placeholder::Alphabet,
    ];

    /// Its name between the braces.
    pub fn name(self) -> &'static str {
        match self {
            Placeholder::Inputs => "inputs",
            Placeholder::Outputs => "outputs",
            Placeholder::MaxRules => "max_rules",
            Placeholder::MaxRuleLen => "max_rule_len",
            Placeholder::Alphabet => "alphabet",
        }
    }

    fn value(self, instance: &Instance) -> String {
        match self {
            Placeholder::Inputs => pylit::repr_list(&instance.inputs),
            Placeholder::Outputs => pylit::repr_list(&instance.outputs),
            Placeholder::MaxRules => instance.max_rules.to_string(),
            Placeholder::MaxRuleLen => instance.max_rule_len.to_string(),
            Placeholder::Alphabet => instance.alphabet.clone(),
        }
    }
}

/// Why a template was refused, and where: the 1-based line and column (in characters)
/// of the first offending `{`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {problem}")]
pub struct TemplateError {
    /// 1-based line of the problem.
    pub line: usize,
    /// 1-based column (in characters) of the problem.
    pub column: usize,
    /// What is wrong.
    pub problem: TemplateProblem,
}

/// What is wrong with a template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateProblem {
    /// `{name}`s that are not placeholders, each listed once in order of appearance.
    #[error("unknown placeholder{} {}: the known ones are {{inputs}}, {{outputs}}, {{max_rules}}, {{max_rule_len}}, {{alphabet}}; write {{{{ and }}}} for literal braces", if .0.len() == 1 { "" } else { "s" }, .0.iter().map(|n| format!("{{{n}}}")).collect::<Vec<_>>().join(", "))]
    UnknownPlaceholders(Vec<String>),
    /// A placeholder's name after `{` without the closing `}` (`{inputs,`, `{inputs` at
    /// the end): the prompts would show the text `{inputs`, not the examples.
    #[error("'{{{0}' is never closed: write {{{0}}} (or {{{{ for a literal brace)")]
    Unclosed(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Slot(Placeholder),
}

/// A parsed prompt template, with the text it was parsed from and its file, if any (a
/// run's manifest names the file and hashes the text: a changed template changes answers).
#[derive(Debug, Clone)]
pub struct PromptTemplate {
    parts: Vec<Part>,
    text: String,
    file: Option<PathBuf>,
}

/// Two templates are equal when they say the same: the same text and placeholders,
/// whatever their escaping or file.
impl PartialEq for PromptTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
    }
}

impl Eq for PromptTemplate {}

/// Why a template file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TemplateLoadError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The file is no valid template.
    #[error("{}:{}:{}: {}", .path.display(), .error.line, .error.column, .error.problem)]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: TemplateError,
    },
}

impl Default for PromptTemplate {
    fn default() -> Self {
        PromptTemplate::parse(DEFAULT_TEMPLATE).expect("the default template is valid")
    }
}

impl PromptTemplate {
    /// Parses `text`, failing on unknown `{name}` placeholders (all of them named, the
    /// first one located) and on a placeholder's name that is never closed (`{inputs`).
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut unknown: Vec<String> = Vec::new();
        let mut first_unknown = 0;
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            literal.push_str(&rest[..i]);
            let tail = &rest[i..];
            let at = text.len() - tail.len();
            if tail.starts_with("{{") || tail.starts_with("}}") {
                literal.push_str(&tail[..1]);
                rest = &tail[2..];
                continue;
            }
            match placeholder_name(tail) {
                Some(Ok(name)) => {
                    match Placeholder::ALL.iter().find(|p| p.name() == name) {
                        Some(&p) => {
                            if !literal.is_empty() {
                                parts.push(Part::Text(std::mem::take(&mut literal)));
                            }
                            parts.push(Part::Slot(p));
                        }
                        None => {
                            if unknown.is_empty() {
                                first_unknown = at;
                            }
                            if !unknown.iter().any(|u| u == name) {
                                unknown.push(name.to_owned());
                            }
                        }
                    }
                    rest = &tail[name.len() + 2..];
                    continue;
                }
                Some(Err(name)) => {
                    let problem = TemplateProblem::Unclosed(name.to_owned());
                    return Err(TemplateError::at(text, at, problem));
                }
                None => {}
            }
            literal.push_str(&tail[..1]);
            rest = &tail[1..];
        }
        literal.push_str(rest);
        if !unknown.is_empty() {
            let problem = TemplateProblem::UnknownPlaceholders(unknown);
            return Err(TemplateError::at(text, first_unknown, problem));
        }
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(PromptTemplate {
            parts,
            text: text.to_owned(),
            file: None,
        })
    }

    /// The built-in template `name` ([`BUILT_IN_TEMPLATES`]), if there is one.
    pub fn built_in(name: &str) -> Option<Self> {
        BUILT_IN_TEMPLATES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| PromptTemplate::parse(text).expect("the built-in templates are valid"))
    }

    /// The built-in template named `spec` ([`BUILT_IN_TEMPLATES`]), else the template file
    /// at `spec` (a file named like a built-in template is `./NAME`).
    pub fn named_or_file(spec: &Path) -> Result<Self, TemplateLoadError> {
        match spec.to_str().and_then(PromptTemplate::built_in) {
            Some(template) => Ok(template),
            None => PromptTemplate::load(Some(spec)),
        }
    }

    /// Reads and parses the template file at `path`, or takes the default template when
    /// `None`.
    pub fn load(path: Option<&Path>) -> Result<Self, TemplateLoadError> {
        let Some(path) = path else {
            return Ok(PromptTemplate::default());
        };
        let text =
            pbebench_io::read_input_string(path).map_err(|source| TemplateLoadError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        let mut template =
            PromptTemplate::parse(&text).map_err(|error| TemplateLoadError::Invalid {
                path: path.to_path_buf(),
                error,
            })?;
        template.file = Some(path.to_path_buf());
        Ok(template)
    }

    /// The text the template was parsed from, as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file the template was loaded from; `None` for the default or a parsed text.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The placeholders the template uses, in order of first use.
    pub fn placeholders(&self) -> Vec<Placeholder> {
        let mut seen = Vec::new();
        for part in &self.parts {
            if let Part::Slot(p) = part {
                if !seen.contains(p) {
                    seen.push(*p);
                }
            }
        }
        seen
    }

    /// What looks wrong with a template that parses: a placeholder of the examples it never
    /// uses (the prompts would not show the model what to reproduce).
    pub fn warnings(&self) -> Vec<String> {
        let used = self.placeholders();
        [Placeholder::Inputs, Placeholder::Outputs]
            .into_iter()
            .filter(|p| !used.contains(p))
            .map(|p| {
                format!(
                    "the template never uses {{{}}}: its prompts do not show the examples' {}",
                    p.name(),
                    p.name()
                )
            })
            .collect()
    }

    /// The prompt for `instance`. Only the visible examples are shown; held-out examples and
    /// the gold cascade never are. An instance whose words stand for segments (a dataset read
    /// from CLDF: [`Instance::symbols`]) gets a last paragraph saying which symbol stands for
    /// which segment, so that the words read as the sounds they are.
    pub fn render(&self, instance: &Instance) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Slot(p) => out.push_str(&p.value(instance)),
            }
        }
        if !instance.symbols.is_empty() {
            out.push_str(&symbols_note(&instance.symbols));
        }
        out
    }
}

impl fmt::Display for PromptTemplate {
    /// The template text, with literal braces escaped again.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text(t) => f.write_str(&t.replace('{', "{{").replace('}', "}}"))?,
                Part::Slot(p) => write!(f, "{{{}}}", p.name())?,
            }
        }
        Ok(())
    }
}

impl TemplateError {
    /// The error `problem` at byte `at` of `text`.
    fn at(text: &str, at: usize, problem: TemplateProblem) -> Self {
        let before = &text[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        TemplateError {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            problem,
        }
    }
}

/// What follows the `{` that starts `tail`: `Ok(name)` for `{name}` where `name` is an
/// identifier; `Err(name)` for a placeholder's name not closed by `}` (`{inputs,`);
/// `None` for anything else (a literal brace, as in JSON or code).
fn placeholder_name(tail: &str) -> Option<Result<&str, &str>> {
    let body = tail.strip_prefix('{')?;
    let end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    let name = &body[..end];
    let first = name.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    if body[end..].starts_with('}') {
        Some(Ok(name))
    } else {
        Placeholder::ALL
            .iter()
            .any(|p| p.name() == name)
            .then_some(Err(name))
    }
}

/// One line of a prompts file (`pbebench prompt`): the instance's id, its prompt, and the
/// same prompt as the one user message of an OpenAI-style chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PromptLine<'a> {
    /// The instance's id.
    pub id: &'a str,
    /// The prompt.
    pub prompt: &'a str,
    /// The prompt as chat messages.
    pub messages: [ChatMessage<'a>; 1],
}

/// A chat message in the OpenAI format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ChatMessage<'a> {
    /// `user`.
    pub role: &'a str,
    /// The text.
    pub content: &'a str,
}

impl<'a> PromptLine<'a> {
    /// The line of the instance `id` with `prompt`.
    pub fn new(id: &'a str, prompt: &'a str) -> Self {
        PromptLine {
            id,
            prompt,
            messages: [ChatMessage {
                role: "user",
                content: prompt,
            }],
        }
    }

    /// Writes the line, newline included.
    pub fn write_to(&self, mut out: impl io::Write) -> io::Result<()> {
        serde_json::to_writer(&mut out, self)?;
        out.write_all(b"\n")
    }
}

/// The paragraph a prompt ends with when its words are written in stand-in symbols.
fn symbols_note(symbols: &crate::symbols::Symbols) -> String {
    format!(
        "\nThe strings are words written in IPA, where each segment of several IPA characters \
         is one stand-in letter: {symbols}. Rules read and write the stand-ins, one letter a \
         segment.\n"
    )
}

/// The prompt for `instance` with the default template.
pub fn default_prompt(instance: &Instance) -> String {
    PromptTemplate::default().render(instance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relations::RelationMode;

    fn instance() -> Instance {
        Instance {
            id: "x".into(),
            inputs: vec!["ab".into(), "it's".into()],
            outputs: vec!["c".into(), "b".into()],
            cascade: None,
            cascade_len: 0,
            category: None,
            relations_mode: RelationMode::default(),
            max_rules: 5,
            max_rule_len: 3,
            alphabet: "abc".into(),
            heldout_inputs: vec!["SECRET".into()],
            heldout_outputs: vec!["SECRET".into()],
            interactions: Vec::new(),
            symbols: Default::default(),
        }
    }

    #[test]
    fn stand_in_symbols_are_explained_only_where_there_are_some() {
        let plain = instance();
        let t = PromptTemplate::parse("{inputs}").unwrap();
        assert_eq!(t.render(&plain), "['ab', \"it's\"]");
        let mut segmented = instance();
        segmented.symbols = crate::symbols::Symbols::for_segments(["t͡ʃ", "a", "aː"], &[]).unwrap();
        let prompt = t.render(&segmented);
        assert!(prompt.starts_with("['ab', \"it's\"]\n"), "{prompt}");
        assert!(prompt.contains(": A = aː, B = t͡ʃ. "), "{prompt}");
    }

    #[test]
    fn default_template_states_the_restrictions() {
        let t = PromptTemplate::default();
        let mut used = t.placeholders();
        used.sort_by_key(|p| Placeholder::ALL.iter().position(|q| q == p));
        assert_eq!(used, Placeholder::ALL.to_vec());
        let p = t.render(&instance());
        assert!(p.contains("Inputs:\n['ab', \"it's\"]\n"), "{p}");
        assert!(p.contains("Outputs:\n['c', 'b']\n"));
        assert!(p.contains("at most 3 characters"));
        assert!(p.contains("no more than 5 rules"));
        assert!(p.contains("characters: abc"));
        assert!(p.contains("```python"));
        assert!(!p.contains("SECRET"), "held-out examples are never shown");
    }

    #[test]
    fn built_in_templates_by_name() {
        assert_eq!(
            PromptTemplate::built_in("default"),
            Some(PromptTemplate::default())
        );
        let authors = PromptTemplate::built_in("authors").unwrap();
        assert_eq!(authors.text(), AUTHORS_TEMPLATE);
        assert!(authors.warnings().is_empty());
        let p = authors.render(&instance());
        assert!(p.contains("should have <= 3 characters"), "{p}");
        assert!(p.contains("programs in a sequence is 5\n"), "{p}");
        assert!(
            p.ends_with("### Outputs\n['c', 'b']\n\n### Program Sequence\n"),
            "{p}"
        );
        assert!(!p.contains("SECRET"));
        assert_eq!(PromptTemplate::built_in("nope"), None);
        let named = PromptTemplate::named_or_file(Path::new("authors")).unwrap();
        assert_eq!((named.file(), named.text()), (None, AUTHORS_TEMPLATE));
    }

    #[test]
    fn braces_and_unknown_placeholders() {
        let t = PromptTemplate::parse("{{x}} {\"k\": 1} {inputs}{max_rules}}}").unwrap();
        assert_eq!(t.render(&instance()), "{x} {\"k\": 1} ['ab', \"it's\"]5}");
        assert_eq!(
            PromptTemplate::parse("{input} {inputs} {foo} {input}"),
            Err(TemplateError {
                line: 1,
                column: 1,
                problem: TemplateProblem::UnknownPlaceholders(vec!["input".into(), "foo".into()])
            })
        );
        let e = PromptTemplate::parse("{foo}").unwrap_err().to_string();
        assert!(e.contains("{foo}") && e.contains("{inputs}"), "{e}");
        let round = PromptTemplate::parse("{{a}} {outputs}").unwrap();
        assert_eq!(PromptTemplate::parse(&round.to_string()).unwrap(), round);
        assert_eq!(round.text(), "{{a}} {outputs}");
    }

    /// A placeholder's name after `{` must be closed at once, as an unknown name is fatal:
    /// both are refused with the line and column of the brace (in characters).
    #[test]
    fn unclosed_placeholders_are_errors_with_their_position() {
        let e = PromptTemplate::parse("ab\nxé {inputs, {outputs}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 4));
        assert_eq!(e.problem, TemplateProblem::Unclosed("inputs".into()));
        assert_eq!(
            e.to_string(),
            "line 2, column 4: '{inputs' is never closed: write {inputs} (or {{ for a literal brace)"
        );
        for (text, name) in [
            ("{max_rules", "max_rules"),
            ("{alphabet }", "alphabet"),
            ("x {outputs\n}", "outputs"),
        ] {
            let e = PromptTemplate::parse(text).unwrap_err();
            assert_eq!(e.problem, TemplateProblem::Unclosed(name.into()), "{text}");
        }
        let e = PromptTemplate::parse("ok\n\n  {nope} {inputs}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
        // Braces that start no placeholder's name stay literal: JSON, code, sets.
        for text in [
            "{\"k\": 1}",
            "{x + 1}",
            "{ inputs }",
            "{0}",
            "{inputsX y",
            "{",
        ] {
            let t = PromptTemplate::parse(text).unwrap();
            assert_eq!(t.render(&instance()), text, "{text}");
        }
    }

    #[test]
    fn templates_without_the_examples_are_warned_about() {
        assert!(PromptTemplate::default().warnings().is_empty());
        assert!(PromptTemplate::parse("{outputs} {inputs}")
            .unwrap()
            .warnings()
            .is_empty());
        let only_outputs = PromptTemplate::parse("{outputs} {{inputs}}")
            .unwrap()
            .warnings();
        assert_eq!(only_outputs.len(), 1);
        assert!(only_outputs[0].contains("{inputs}"), "{only_outputs:?}");
        assert_eq!(PromptTemplate::parse("hello").unwrap().warnings().len(), 2);
    }
}

#[cfg(test)]
mod load_tests {
    use super::*;

    #[test]
    fn files_are_loaded_with_their_text_and_named_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, "{inputs} {{x}} {outputs}").unwrap();
        let t = PromptTemplate::load(Some(&path)).unwrap();
        assert_eq!(t.file(), Some(path.as_path()));
        assert_eq!(t.text(), "{inputs} {{x}} {outputs}");
        let default = PromptTemplate::load(None).unwrap();
        assert_eq!(default.text(), DEFAULT_TEMPLATE);
        assert_eq!(default.file(), None);
        let missing = PromptTemplate::load(Some(&dir.path().join("no.txt"))).unwrap_err();
        assert!(missing.to_string().contains("no.txt: "), "{missing}");
        std::fs::write(&path, "{nope}").unwrap();
        let bad = PromptTemplate::load(Some(&path)).unwrap_err().to_string();
        assert!(
            bad.contains("t.txt:1:1: unknown placeholder {nope}"),
            "{bad}"
        );
        std::fs::write(&path, "Inputs:\n  {inputs\nOutputs: {outputs}").unwrap();
        let bad = PromptTemplate::load(Some(&path)).unwrap_err().to_string();
        assert!(
            bad.contains("t.txt:2:3: '{inputs' is never closed"),
            "{bad}"
        );
    }
}
