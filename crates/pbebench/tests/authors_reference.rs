//! The authors' published files, read and written again: their file → our instances →
//! their format gives the same bytes, line for line, and so does the trip through our own
//! JSONL schema (their file → ours → theirs). Every record of the complete files shipped in
//! `testdata/pbebench-official/` (`pbebench_testdata`).

use pbebench::dataset::parse_instance;
use pbebench::{authors_line, AuthorsOptions, Instance};

/// The published files, whether each has `original_programs`, and its complete length.
const PUBLISHED: [(&str, bool, usize); 3] = [
    ("adaptive_balanced_1008_complete.jsonl", true, 1008),
    (
        "adaptive_balanced_64_hard_50_inputs_10_cascade_bbr.jsonl",
        false,
        64,
    ),
    (
        "adaptive_balanced_64_hard_50_inputs_30_cascade_unified_latest.jsonl",
        false,
        64,
    ),
];

#[test]
fn published_files_round_trip_byte_for_byte() {
    for (name, original_programs, complete) in PUBLISHED {
        let path = pbebench_testdata::path(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let options = AuthorsOptions {
            original_programs,
            relations: None,
        };
        let mut written = String::new();
        let mut through_ours = String::new();
        let mut records = 0;
        for (index, line) in text.lines().enumerate() {
            let at = format!("{}:{}", path.display(), index + 1);
            let instance = parse_instance(line, index).unwrap_or_else(|e| panic!("{at}: {e}"));
            written.push_str(&authors_line(&instance, &options).unwrap());
            written.push('\n');
            // Ours: the JSONL line pbebench writes, read back.
            let ours = serde_json::to_string(&instance).unwrap();
            let back: Instance = parse_instance(&ours, index).unwrap();
            assert_eq!(back, instance, "{at}");
            through_ours.push_str(&authors_line(&back, &options).unwrap());
            through_ours.push('\n');
            records += 1;
        }
        assert_eq!(records, complete, "{name}");
        assert!(written == text, "{name}: the written file differs");
        assert!(
            through_ours == text,
            "{name}: their → ours → theirs differs"
        );
        println!("{name}: {records} records, byte for byte");
    }
}

/// `--template authors` on the real sound-change lists gives every prompt of the authors'
/// `real_sli_promptsfile.json`, byte for byte: the lists read as `pbebench pairs` reads
/// them (chunks of 50 words, at most 50 rules of at most 5 characters), in file order.
#[test]
fn the_authors_template_reproduces_their_real_data_prompts() {
    let dir = pbebench_testdata::path("real_sli");
    let published: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("real_sli_promptsfile.json")).unwrap(),
    )
    .unwrap();
    let template = pbebench::PromptTemplate::built_in("authors").unwrap();
    let options = pbebench::WordListOptions::default();
    let mut ours = Vec::new();
    for pair in pbebench::language_pairs(&dir)
        .unwrap()
        .expect("the six language pairs")
    {
        ours.extend(
            pbebench::read_word_lists(&pair.name, &pair.inputs, &pair.outputs, &options).unwrap(),
        );
    }
    assert_eq!(ours.len(), published.len());
    assert_eq!(published.len(), 21);
    for (k, (instance, record)) in ours.iter().zip(&published).enumerate() {
        let theirs = record["prompt"].as_str().unwrap();
        let mine = template.render(instance);
        assert!(
            mine == theirs,
            "prompt {k} ({}) differs:\nours:   {mine:?}\ntheirs: {theirs:?}",
            instance.id
        );
    }
}
