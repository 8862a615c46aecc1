//! The authors' six word lists, converted to a CLDF Wordlist by
//! `testdata/cldf/real_sli/convert.py`, read back through `pbebench::cldf`: every language
//! gives the instances its word lists give, word for word once the symbols are read as IPA.

use pbebench::cldf::{read_cldf_pairs, CldfOptions, Link};
use pbebench::{language_pairs, read_word_lists, WordListOptions};
use std::path::PathBuf;

fn metadata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/cldf/real_sli/Wordlist-metadata.json")
}

#[test]
fn the_six_languages_read_from_cldf_are_their_word_lists() {
    let languages = language_pairs(&pbebench_testdata::path("real_sli"))
        .unwrap()
        .unwrap();
    assert_eq!(languages.len(), 6);
    let mut multi = std::collections::BTreeSet::new();
    for language in &languages {
        let family = language.name.split('_').next().unwrap();
        let words = WordListOptions::default();
        let lists =
            read_word_lists(&language.name, &language.inputs, &language.outputs, &words).unwrap();
        for link in [Link::Cognates, Link::Concepts] {
            let options = CldfOptions {
                from: family.to_owned(),
                to: language.name.clone(),
                link,
                boundaries: false,
                name: None,
                words: words.clone(),
            };
            let pairs = read_cldf_pairs(&metadata(), &options).unwrap();
            // Every form of the daughter is paired; the proto-forms of its sisters are not.
            assert!(
                pairs.unpaired.iter().all(|u| u.language == family),
                "{}: {:?}",
                language.name,
                pairs.unpaired.first()
            );
            assert_eq!(pairs.instances.len(), lists.len(), "{}", language.name);
            for (cldf, list) in pairs.instances.iter().zip(&lists) {
                assert_eq!(cldf.id, list.id);
                let ipa = |words: &[String]| -> Vec<String> {
                    words.iter().map(|w| cldf.symbols.decode(w)).collect()
                };
                assert_eq!(ipa(&cldf.inputs), list.inputs, "{}", cldf.id);
                assert_eq!(ipa(&cldf.outputs), list.outputs, "{}", cldf.id);
                assert!(cldf.problems().is_empty(), "{:?}", cldf.problems());
            }
            multi.extend(pairs.symbols.iter().map(|(_, s)| s.to_owned()));
        }
    }
    // Length marks, aspiration, labialisation and tie-barred affricates became symbols.
    for segment in ["aː", "uː", "tʰ", "bʷ", "t͡s"] {
        assert!(multi.contains(segment), "{segment} not in {multi:?}");
    }
}
