//! The readers of untrusted text, each as one function of arbitrary bytes that must never
//! panic and must keep what it returns within the bounds its input allows. Shared by the
//! property tests of the normal suite (`tests/readers_props.rs`, a short run with a
//! memory budget per case) and the coverage-guided fuzz targets (`fuzz/`, long runs under
//! libFuzzer's time and memory limits), so that both exercise the same code.

#![allow(dead_code)] // Each fuzz target uses one of these.

use pbebench::dataset::{parse_instance, parse_replace_call};
use pbebench::pylit::{character_named, parse_str_list, parse_string_literal};
use pbebench::{
    parse_block, parse_response, parse_response_line, read_responses, read_responses_with,
    read_word_lists, BlockChoice, Cascade, Instance, PromptTemplate, RuleLimits, WordListOptions,
};
use std::path::PathBuf;

/// The bytes as text, the way a reader of a file would see them (lossily: the readers
/// refuse bytes that are not UTF-8 before any parsing, which their own tests check).
fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// The response parser (what a model answered) under the limits of a Lite instance and
/// with none: never more rules than the limit, never a cascade longer than its valid
/// rules.
pub fn response(data: &[u8]) {
    let text = text(data);
    let limits = RuleLimits::new(5, 3, "abc");
    for choice in [BlockChoice::First, BlockChoice::Last] {
        let parsed = parse_response(&text, &limits, choice);
        assert!(parsed.rules.len() <= 5);
        assert!(parsed.cascade().len() <= parsed.valid_rules());
        let free = parse_response(&text, &RuleLimits::unlimited(), choice);
        assert!(free.rules.len() <= text.len());
    }
    if let Ok(rules) = parse_block(&text) {
        assert!(rules.len() <= text.len());
    }
}

/// One line of a responses file, in every accepted spelling.
pub fn response_line(data: &[u8]) {
    let text = text(data);
    if let Ok(record) = parse_response_line(&text) {
        assert!(record.responses.iter().map(String::len).sum::<usize>() <= text.len());
    }
}

/// A small dataset of our format and the authors' (whose records go by position and
/// inputs), the one the responses are read against.
fn dataset() -> Vec<Instance> {
    let lines = [
        r#"{"id": "a", "inputs": ["ab", "b"], "outputs": ["c", "b"], "max_rules": 2, "max_rule_len": 2, "alphabet": "abc"}"#,
        r#"{"id": "7", "inputs": ["ba"], "outputs": ["bc"], "max_rules": 2, "max_rule_len": 2, "alphabet": "abc"}"#,
        r#"{"inputs": ["xbu", "uxwkkg"], "outputs": ["xhu", "uxwkkvzw"], "programs": ["replace(\"b\", \"h\")", "replace(\"g\", \"vzw\")"], "cascade_length": 2}"#,
    ];
    lines
        .iter()
        .enumerate()
        .map(|(k, line)| parse_instance(line, k).expect("the fixture is valid"))
        .collect()
}

/// A file of this thread's own, rewritten for each case (the file readers are the code
/// under test: their block splitting and parallel reading).
fn scratch(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "pbebench-fuzz-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let path = dir.join(name);
    std::fs::write(&path, data).expect("a scratch file");
    path
}

/// A whole responses file, read both ways (keeping the texts, and reading each as it
/// comes): the same records and problems either way, and no more responses than lines
/// can hold.
pub fn responses_file(data: &[u8]) {
    let path = scratch("responses.jsonl", data);
    let dataset = dataset();
    let kept = read_responses(&path, &dataset);
    let counted = read_responses_with(&path, &dataset, |_, text| text.len());
    match (&kept, &counted) {
        (Ok(kept), Ok(counted)) => {
            assert_eq!(kept.unknown, counted.unknown);
            assert_eq!(kept.duplicates, counted.duplicates);
            let mut ids: Vec<&String> = kept.by_id.keys().collect();
            let mut other: Vec<&String> = counted.by_id.keys().collect();
            ids.sort();
            other.sort();
            assert_eq!(ids, other);
            for (id, texts) in &kept.by_id {
                let lengths: Vec<usize> = texts.iter().map(String::len).collect();
                assert_eq!(lengths, counted.by_id[id], "{id}");
            }
            let texts: usize = kept.by_id.values().flatten().map(String::len).sum();
            assert!(texts <= data.len());
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("the readers disagree: {kept:?} / {counted:?}"),
    }
}

/// One line of a dataset, in our format or the authors'.
pub fn dataset_line(data: &[u8]) {
    let text = text(data);
    if let Ok(instance) = parse_instance(&text, 0) {
        assert!(!instance.alphabet.is_empty());
        assert!(instance.inputs.iter().map(String::len).sum::<usize>() <= text.len());
        // A valid instance writes and reads back as itself.
        let line = serde_json::to_string(&instance).expect("instances serialise");
        assert_eq!(
            parse_instance(&line, 0).expect("its own line reads"),
            instance
        );
    }
}

/// The numbers a field of a line may hold, edges first: 0, 1, each limit and one past it,
/// 2^63, `u64::MAX`, the `1e8` that once made `solve` take 1.5 GB, and what is no count.
const NUMBERS: [&str; 19] = [
    "0",
    "1",
    "2",
    "32",
    "33",
    "100",
    "101",
    "1000",
    "1001",
    "100000000",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "1e8",
    "-1",
    "1.5",
    "null",
    "\"3\"",
    "1e400",
];

/// The sizes a part of a line may have, edges first (each limit of `pbebench::dataset`
/// and one past it).
const SIZES: [usize; 13] = [0, 1, 2, 3, 32, 33, 100, 101, 255, 256, 1000, 1001, 10_001];

/// A sound line with each number replaced and each part resized as the bytes choose
/// ([`NUMBERS`], [`SIZES`], or a number of the bytes' own): `max_rules`, `max_rule_len`,
/// `cascade_len` and an interaction's rule; the number of examples, the length of a
/// string, of the id and of the alphabet (with a letter repeated or not), the length of
/// the gold (rules that grow the output or not), `cascade_len` left out. A line read is
/// within every limit and sound (so that nothing that trusts its numbers can be made to
/// allocate or loop by them); a line refused names the field at fault.
pub fn dataset_numbers(data: &[u8]) {
    use pbebench::dataset::{
        MAX_ALPHABET_LEN, MAX_CASCADE_LEN, MAX_EXAMPLES, MAX_RULES_LIMIT, MAX_RULE_LEN_LIMIT,
        MAX_STRING_LEN,
    };
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next().unwrap_or(0);
    let mut number = || -> String {
        let pick = usize::from(next());
        match NUMBERS.get(pick % 24) {
            Some(edge) => (*edge).to_owned(),
            None => u64::from_le_bytes(std::array::from_fn(|_| next())).to_string(),
        }
    };
    let (max_rules, max_rule_len, cascade_len, rule) = (number(), number(), number(), number());
    let mut size = || SIZES[usize::from(next()) % SIZES.len()];
    let (examples, long, id_len, letters, rules) = (size(), size(), size(), size(), size());
    let flags = data.last().copied().unwrap_or(0);
    let strings = |s: &str, n: usize| serde_json::to_string(&vec![s; n]).unwrap();
    let mut inputs = vec!["ab".to_owned(); examples];
    if let Some(first) = inputs.first_mut() {
        // The gold a → "" maps it to "b" still.
        *first = format!("{}b", "a".repeat(long));
    }
    let grow = if flags & 1 == 0 {
        ["c", "ccc"]
    } else {
        ["b", "bbb"]
    };
    let mut gold = vec![["a", ""]];
    gold.extend(std::iter::repeat_n(grow, rules));
    let mut alphabet: String = "ab"
        .chars()
        .chain((0..letters).filter_map(|k| char::from_u32(0x100 + k as u32)))
        .collect();
    if flags & 2 != 0 {
        alphabet.push('a');
    }
    let length = if flags & 4 != 0 {
        String::new()
    } else {
        format!(r#""cascade_len":{cascade_len},"#)
    };
    let line = format!(
        r#"{{"id":"{}","inputs":{},"outputs":{},"cascade":{},{length}"max_rules":{max_rules},"max_rule_len":{max_rule_len},"alphabet":"{alphabet}","interactions":[{{"i":0,"j":{rule},"feeds":true,"bleeds":false}}]}}"#,
        "x".repeat(id_len.max(1)),
        serde_json::to_string(&inputs).unwrap(),
        strings("b", examples),
        serde_json::to_string(&gold).unwrap(),
    );
    match parse_instance(&line, 0) {
        Ok(instance) => {
            assert!((1..=MAX_RULES_LIMIT).contains(&instance.max_rules));
            assert!((1..=MAX_RULE_LEN_LIMIT).contains(&instance.max_rule_len));
            assert!(instance.cascade_len <= MAX_CASCADE_LEN);
            assert!(instance.inputs.len() <= MAX_EXAMPLES);
            assert!(instance.alphabet.chars().count() <= MAX_ALPHABET_LEN);
            let longest = instance.inputs.iter().map(|s| s.chars().count()).max();
            assert!(longest.unwrap_or(0) <= MAX_STRING_LEN);
            assert!(instance.problems().is_empty());
            // What trusts a read instance's strings: bounded by the limits.
            assert!(pbebench::equiv::length_bound(&instance) <= 16 * MAX_STRING_LEN);
            assert_eq!(
                instance.examples_changed_per_rule().len(),
                instance.cascade_len
            );
        }
        Err(e) => {
            let message = e.to_string();
            let fields = [
                "max_rules",
                "max_rule_len",
                "cascade_len",
                "interactions",
                "inputs",
                "outputs",
                "alphabet",
                "cascade",
                "id",
                "malformed JSON",
            ];
            assert!(
                fields.iter().any(|f| message.contains(f)),
                "no field named: {message}"
            );
        }
    }
}

/// A whole dataset file, line by line, as `inspect` reads it.
pub fn dataset_file(data: &[u8]) {
    let path = scratch("dataset.jsonl", data);
    let name = path.display().to_string();
    let stats = pbebench::DatasetStats::of_file(&path, &name, false).expect("a readable file");
    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    assert!(stats.instances + stats.invalid.len() <= lines);
}

/// Python string literals and lists of them (the authors' files, responses).
pub fn python_literals(data: &[u8]) {
    let text = text(data);
    for start in [0, text.len().min(1)] {
        if !text.is_char_boundary(start) {
            continue;
        }
        if let Ok((value, end)) = parse_string_literal(&text, start) {
            assert!(end <= text.len() && end > start);
            assert!(value.len() <= 4 * (end - start));
        }
    }
    if let Ok(items) = parse_str_list(&text) {
        assert!(items.len() <= text.len());
    }
    let _ = character_named(&text);
}

/// Prompt templates: parsed, rendered, and printed back to an equal template.
pub fn template(data: &[u8]) {
    let text = text(data);
    if let Ok(template) = PromptTemplate::parse(&text) {
        let instance = &dataset()[0];
        let prompt = template.render(instance);
        assert!(prompt.len() <= text.len() * 16 + 64);
        let again = PromptTemplate::parse(&template.to_string()).expect("printed back, it parses");
        assert_eq!(again, template);
    } else if let Err(e) = PromptTemplate::parse(&text) {
        assert!(e.line >= 1 && e.column >= 1);
        assert!(e.line <= text.lines().count().max(1));
    }
}

/// A cascade given on the command line (`--cascade JSON` or `@FILE`) and the authors'
/// `replace("a", "b")` programs.
pub fn cascade(data: &[u8]) {
    let text = text(data);
    if let Ok(cascade) = Cascade::from_json(&text) {
        assert!(cascade.len() <= text.len());
        let json = cascade.to_json();
        assert_eq!(
            Cascade::from_json(&json).expect("its own JSON reads"),
            cascade
        );
    }
    if let Ok(rule) = parse_replace_call(&text) {
        assert!(!rule.pattern().is_empty());
    }
}

/// Parallel word lists (`pbebench pairs`): the bytes up to the first NUL are the inputs,
/// the rest the outputs.
pub fn word_lists(data: &[u8]) {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let inputs = scratch("words.in", &data[..split]);
    let outputs = scratch("words.out", data.get(split + 1..).unwrap_or_default());
    let options = WordListOptions {
        chunk: 3,
        ..WordListOptions::default()
    };
    if let Ok(instances) = read_word_lists("x", &inputs, &outputs, &options) {
        let words: usize = instances.iter().map(|i| i.inputs.len()).sum();
        assert!(words <= data.len());
        assert!(instances.iter().all(|i| i.inputs.len() == i.outputs.len()));
    }
}

/// A reader's check of arbitrary bytes.
pub type Target = fn(&[u8]);

/// Every target, by name (the fuzz targets and the property tests are these).
pub const TARGETS: [(&str, Target); 11] = [
    ("response", response),
    ("response_line", response_line),
    ("responses_file", responses_file),
    ("dataset_line", dataset_line),
    ("dataset_file", dataset_file),
    ("dataset_numbers", dataset_numbers),
    ("python_literals", python_literals),
    ("template", template),
    ("cascade", cascade),
    ("word_lists", word_lists),
    ("response_wrapped", response_wrapped),
];

/// [`response`] of the bytes inside a fenced Python block, where the parser reads most.
pub fn response_wrapped(data: &[u8]) {
    let mut fenced = b"```python\n".to_vec();
    fenced.extend_from_slice(data);
    fenced.extend_from_slice(b"\n```");
    response(&fenced)
}
