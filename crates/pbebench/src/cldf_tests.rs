//! Tests of `cldf` (beside it so that `cldf.rs` holds only the code).

use super::*;

fn toy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/cldf/toy/Wordlist-metadata.json")
}

fn options(from: &str, to: &str) -> CldfOptions {
    CldfOptions {
        from: from.into(),
        to: to.into(),
        link: Link::Auto,
        boundaries: false,
        name: None,
        words: WordListOptions {
            chunk: 0,
            ..WordListOptions::default()
        },
    }
}

/// The words of the pairs in IPA, segments space-separated.
fn ipa(pairs: &CldfPairs) -> Vec<(String, String)> {
    let inst = &pairs.instances[0];
    let show = |w: &String| inst.symbols.segments(w).join(" ");
    inst.inputs
        .iter()
        .map(show)
        .zip(inst.outputs.iter().map(show))
        .collect()
}

fn skipped(pairs: &CldfPairs) -> Vec<(&str, UnpairedReason)> {
    (pairs.unpaired.iter())
        .map(|u| (u.form.as_str(), u.reason))
        .collect()
}

const TOY_PAIRS: [(&str, &str); 6] = [
    ("k i t a", "t͡ʃ i t a"),
    ("m aː k i", "m a t͡ʃ i"),
    ("p a˥ k a", "p a˥ k a"),
    ("k aː l u", "k a l u"),
    ("k i k i", "t͡ʃ i t͡ʃ i"),
    ("k u l i", "k u l i"),
];

/// The toy Wordlist, paired by its cognate sets: each segment one symbol, the table
/// in the instance, every form left out counted with its reason.
#[test]
fn forms_pair_by_cognate_set() {
    let pairs = read_cldf_pairs(&toy(), &options("proto", "dau")).unwrap();
    assert_eq!(pairs.link, Link::Cognates);
    assert_eq!(pairs.languages, ("proto".into(), "dau".into()));
    let want: Vec<(String, String)> = (TOY_PAIRS.iter())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(ipa(&pairs), want);
    assert_eq!(pairs.symbols.to_string(), "A = aː, B = a˥, C = t͡ʃ");
    let inst = &pairs.instances[0];
    assert_eq!(inst.id, "dau");
    assert_eq!(inst.inputs[1], "mAki");
    assert_eq!(inst.alphabet, "ABCaiklmptu");
    assert!(inst.problems().is_empty());
    use UnpairedReason::*;
    assert_eq!(
        skipped(&pairs),
        [
            ("proto-bird", NoCounterpart),
            ("proto-fish", NoSegments),
            ("dau-fish", NoCounterpart),
            ("dau-dog-2", Extra),
            ("dau-moon", NoSet),
        ]
    );
    assert_eq!(pairs.unpaired[3].segments, "ʔ u l i");
    assert_eq!(pairs.unpaired[3].line, 17);
    assert_eq!(pairs.skips()[&("dau".to_owned(), NoCounterpart)], 1);
}

/// Without cognate judgements (or when asked), forms pair by concept; languages are
/// found by name and Glottocode too.
#[test]
fn forms_pair_by_concept() {
    let mut by_concept = options("Proto-Toy", "daug1234");
    by_concept.link = Link::Concepts;
    let pairs = read_cldf_pairs(&toy(), &by_concept).unwrap();
    assert_eq!(pairs.link, Link::Concepts);
    assert_eq!(pairs.languages, ("proto".into(), "dau".into()));
    assert_eq!(ipa(&pairs).len(), TOY_PAIRS.len());
    use UnpairedReason::*;
    assert_eq!(
        skipped(&pairs),
        [
            ("proto-bird", NoCounterpart),
            ("proto-fish", NoSegments),
            ("dau-fish", NoCounterpart),
            ("dau-dog-2", Extra),
            ("dau-moon", NoCounterpart),
        ]
    );
}

/// Word boundaries: `#` at both ends of every word, and no symbol is `#`.
#[test]
fn boundaries_wrap_every_word() {
    let mut with = options("proto", "dau");
    with.boundaries = true;
    with.words.chunk = 4;
    let pairs = read_cldf_pairs(&toy(), &with).unwrap();
    let ids: Vec<&str> = pairs.instances.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["dau-0", "dau-1"]);
    assert_eq!(pairs.instances[0].inputs[0], "#kita#");
    assert_eq!(pairs.instances[1].outputs[1], "#kuli#");
    assert!(pairs.instances[0].alphabet.starts_with('#'));
    assert!(pairs.symbols.iter().all(|(c, _)| c != BOUNDARY));
}

/// A copy of the toy dataset with one file changed.
fn toy_with(file: &str, edit: impl Fn(String) -> String) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let source = toy().parent().unwrap().to_path_buf();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if name == file {
            text = edit(text);
        }
        std::fs::write(dir.path().join(&name), text).unwrap();
    }
    let metadata = dir.path().join("Wordlist-metadata.json");
    (dir, metadata)
}

fn error(file: &str, edit: impl Fn(String) -> String, options: &CldfOptions) -> String {
    let (_dir, metadata) = toy_with(file, edit);
    read_cldf_pairs(&metadata, options).unwrap_err().to_string()
}

/// Every kind of bad input is one error naming the file (and line) and the fix.
#[test]
fn bad_datasets_name_the_file_line_and_fix() {
    let o = options("proto", "dau");
    let e = error("cognates.csv", |t| t + "19,proto-hand,2\n", &o);
    assert!(e.ends_with("cognates.csv:20: the form 'proto-hand' is in the cognate set '2' here and in '1' on line 2: keep one judgement per form, or pair by concept"), "{e}");
    let e = error("cognates.csv", |t| t + "19,nobody,2\n", &o);
    assert!(
        e.contains("cognates.csv:20: the form 'nobody' is not in ")
            && e.contains("forms.csv: judge forms"),
        "{e}"
    );
    let e = error("forms.csv", |t| t.replace("Segmente", "Segs"), &o);
    assert!(e.ends_with("forms.csv:1: no column 'Segments' (the metadata's column for segments): add it to the file, or fix its name in the metadata"), "{e}");
    let e = error(
        "Wordlist-metadata.json",
        |t| t.replace("terms.rdf#segments", "terms.rdf#seg"),
        &o,
    );
    assert!(e.ends_with("Wordlist-metadata.json: table forms.csv: no column has the propertyUrl http://cldf.clld.org/v1.0/terms.rdf#segments: add that column to the table and its tableSchema"), "{e}");
    let e = error("forms.csv", |t| t.replace("dau-stone,", "dau-water,"), &o);
    assert!(
        e.ends_with(
            "forms.csv:13: the form ID 'dau-water' is also on line 11: give every form its own ID"
        ),
        "{e}"
    );
    let e = error("forms.csv", |t| t + "short,dau\n", &o);
    assert!(e.ends_with("forms.csv:20: 2 cells, but the column 'Segments' is number 6: give every row a cell for every column"), "{e}");
    let e = error("Wordlist-metadata.json", |_| "{".into(), &o);
    assert!(e.contains("Wordlist-metadata.json: not JSON"), "{e}");
    let e = error(
        "Wordlist-metadata.json",
        |t| {
            t.replace("#FormTable", "#Forms")
                .replace("forms.csv", "f.csv")
        },
        &o,
    );
    assert!(e.contains("no FormTable"), "{e}");
    let e = error("languages.csv", |t| t, &options("proto", "nope"));
    assert!(
        e.starts_with("to: no language 'nope' in ")
            && e.contains("languages.csv: its languages are proto, dau, other"),
        "{e}"
    );
    let e = error("languages.csv", |t| t, &options("dau", "Daughter"));
    assert_eq!(
        e,
        "from and to are both the language 'dau': give two languages"
    );
    let e = error(
        "cognates.csv",
        |t| t.replace("3,other-hand,1\n", ""),
        &options("other", "dau"),
    );
    assert!(
        e.contains("no form of 'other' shares a cognate set with one of 'dau' (")
            && e.ends_with("check the languages, or pair by concept"),
        "{e}"
    );
    let e = error(
        "forms.csv",
        |t| t.replace("k i t a,", "k # i t a,"),
        &CldfOptions {
            boundaries: true,
            ..o.clone()
        },
    );
    assert!(e.contains("forms.csv: the segment '#' is reserved"), "{e}");
}

/// Lines are counted right in a file with `\r\n` line ends (as pycldf writes them).
#[test]
fn lines_are_counted_across_crlf() {
    let (_dir, metadata) = toy_with("forms.csv", |t| t.replace('\n', "\r\n"));
    let pairs = read_cldf_pairs(&metadata, &options("proto", "dau")).unwrap();
    assert_eq!(ipa(&pairs).len(), TOY_PAIRS.len());
    assert_eq!(
        (pairs.unpaired[3].form.as_str(), pairs.unpaired[3].line),
        ("dau-dog-2", 17)
    );
    let e = error(
        "forms.csv",
        |t| (t + "short,dau\n").replace('\n', "\r\n"),
        &options("proto", "dau"),
    );
    assert!(e.contains("forms.csv:20: 2 cells"), "{e}");
}

/// A table that is not UTF-8, or whose dialect this reader does not take, is refused
/// with the fix.
#[test]
fn encodings_and_dialects_are_checked() {
    let (dir, metadata) = toy_with("forms.csv", |t| t);
    let mut bytes = std::fs::read(dir.path().join("forms.csv")).unwrap();
    bytes.extend_from_slice(b"x,dau,moon,\xff,\xff,n a,\n");
    std::fs::write(dir.path().join("forms.csv"), bytes).unwrap();
    let e = read_cldf_pairs(&metadata, &options("proto", "dau"))
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("forms.csv:20: not UTF-8: convert the file to UTF-8"),
        "{e}"
    );
    let e = error(
        "Wordlist-metadata.json",
        |t| t.replace("\"commentPrefix\": null", "\"encoding\": \"latin-1\""),
        &options("proto", "dau"),
    );
    assert!(
        e.contains("the encoding is latin-1: convert the file to UTF-8"),
        "{e}"
    );
    // A tab-separated dialect is read as the metadata says.
    let (dir, metadata) = toy_with("Wordlist-metadata.json", |t| {
        t.replace("\"commentPrefix\": null", "\"delimiter\": \"\\t\"")
    });
    for file in [
        "forms.csv",
        "languages.csv",
        "parameters.csv",
        "cognates.csv",
    ] {
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text
            .replace(',', "\t")
            .replace("\"not segmented\t yet\"", "x")
            .replace("\"a second word\t in the same set\"", "x");
        std::fs::write(path, text).unwrap();
    }
    let pairs = read_cldf_pairs(&metadata, &options("proto", "dau")).unwrap();
    assert_eq!(ipa(&pairs).len(), TOY_PAIRS.len());
    // A byte-order mark is no part of the first column's name.
    let (_dir, metadata) = toy_with("forms.csv", |t| format!("\u{feff}{t}"));
    let pairs = read_cldf_pairs(&metadata, &options("proto", "dau")).unwrap();
    assert_eq!(ipa(&pairs).len(), TOY_PAIRS.len());
    // A table that is a directory is refused, named.
    let (dir, metadata) = toy_with("forms.csv", |t| t);
    std::fs::remove_file(dir.path().join("cognates.csv")).unwrap();
    std::fs::create_dir(dir.path().join("cognates.csv")).unwrap();
    let e = read_cldf_pairs(&metadata, &options("proto", "dau"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("cognates.csv: "), "{e}");
}

/// The symbol table travels in the dataset line and comes back; a line whose table
/// is not reversible is refused by the reader every command uses.
#[test]
fn the_table_travels_in_the_dataset() {
    let pairs = read_cldf_pairs(&toy(), &options("proto", "dau")).unwrap();
    let line = serde_json::to_string(&pairs.instances[0]).unwrap();
    assert!(
        line.ends_with(r#","symbols":{"A":"aː","B":"a˥","C":"t͡ʃ"}}"#),
        "{line}"
    );
    let back = crate::dataset::parse_instance(&line, 0).unwrap();
    assert_eq!(back, pairs.instances[0]);
    let bad = line.replace(r#""B":"a˥""#, r#""B":"aː""#);
    let e = crate::dataset::parse_instance(&bad, 0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("symbols 'A' and 'B' both stand for \"aː\""),
        "{e}"
    );
}
