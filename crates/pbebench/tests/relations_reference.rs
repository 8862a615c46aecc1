//! Reference checks for the two relation classifiers (`docs/semantics.md#two-classifiers`).
//!
//! * `paper` mode must reproduce every category and every pairwise `bfcc_dag` label of the
//!   authors' published snapshots (the complete files in `testdata/pbebench-official/`).
//! * `exact` mode must agree with brute force: every string up to a length bound over the
//!   rules' letters plus one fresh letter, applied with Rust's `str::replace` (which
//!   `cpython_semantics.rs` proves equal to Python's) and tested with plain substring search.
//!   Every positive answer also comes with a witness, checked the same way, so answers whose
//!   shortest witness is longer than the bound are verified too.

use pbebench::dataset::parse_instance;
use pbebench::relations::{exact, paper};
use pbebench::{RelationMode, Relations};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::path::PathBuf;

const PUBLISHED: [&str; 3] = [
    "adaptive_balanced_1008_complete.jsonl",
    "adaptive_balanced_64_hard_50_inputs_10_cascade_bbr.jsonl",
    "adaptive_balanced_64_hard_50_inputs_30_cascade_unified_latest.jsonl",
];

/// The published snapshots, shipped complete in `testdata/pbebench-official/`
/// (`pbebench_testdata`).
fn reference_dir() -> PathBuf {
    pbebench_testdata::dir()
}

/// One published record: its rules' relations in a mode, and the labels the authors stored.
struct Record {
    line: usize,
    cascade: pbebench::Cascade,
    category: String,
    /// `(i, j, feeds, bleeds)` for every ordered pair the file lists.
    dag: Vec<(usize, usize, bool, bool)>,
}

fn read_published(name: &str) -> Vec<Record> {
    let path = reference_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .enumerate()
        .map(|(index, (k, line))| {
            let at = format!("{}:{}", path.display(), k + 1);
            let instance = parse_instance(line, index).unwrap_or_else(|e| panic!("{at}: {e}"));
            let raw: Value = serde_json::from_str(line).unwrap();
            Record {
                line: k + 1,
                cascade: instance.cascade.expect("published records have programs"),
                category: raw["bfcc_category"]
                    .as_str()
                    .expect("bfcc_category")
                    .to_owned(),
                dag: parse_dag(&raw["bfcc_dag"]).unwrap_or_else(|e| panic!("{at}: {e}")),
            }
        })
        .collect()
}

/// `bfcc_dag` as a JSON array or as its Python repr (`[(0, ['F'], 1), …]`).
fn parse_dag(value: &Value) -> Result<Vec<(usize, usize, bool, bool)>, String> {
    let owned;
    let entries = match value {
        Value::Array(entries) => entries,
        Value::String(repr) => {
            let json: String = repr
                .chars()
                .map(|c| match c {
                    '(' => '[',
                    ')' => ']',
                    '\'' => '"',
                    c => c,
                })
                .collect();
            owned = serde_json::from_str::<Vec<Value>>(&json).map_err(|e| e.to_string())?;
            &owned
        }
        other => return Err(format!("bfcc_dag is neither a list nor a repr: {other}")),
    };
    entries
        .iter()
        .map(|entry| {
            let bad = || format!("bad bfcc_dag entry {entry}");
            let i = entry[0].as_u64().ok_or_else(bad)? as usize;
            let j = entry[2].as_u64().ok_or_else(bad)? as usize;
            let labels: Vec<&str> = entry[1]
                .as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|l| l.as_str().ok_or_else(bad))
                .collect::<Result<_, _>>()?;
            if labels.iter().any(|l| !matches!(*l, "F" | "B" | "N")) {
                return Err(bad());
            }
            Ok((i, j, labels.contains(&"F"), labels.contains(&"B")))
        })
        .collect()
}

#[test]
fn paper_mode_reproduces_published_categories_and_dags() {
    let mut failures = Vec::new();
    for name in PUBLISHED {
        let records = read_published(name);
        let (mut categories, mut entries, mut entries_total) = (0, 0, 0);
        for record in &records {
            let relations = Relations::of(&record.cascade, RelationMode::Paper);
            if relations.category().to_string() == record.category {
                categories += 1;
            } else {
                failures.push(format!(
                    "{name}:{}: category {} but the file says {}",
                    record.line,
                    relations.category(),
                    record.category
                ));
            }
            let n = record.cascade.len();
            assert_eq!(
                record.dag.len(),
                n * (n - 1),
                "{name}:{}: the dag lists every ordered pair",
                record.line
            );
            for &(i, j, f, b) in &record.dag {
                entries_total += 1;
                if (relations.feeds[i][j], relations.bleeds[i][j]) == (f, b) {
                    entries += 1;
                } else {
                    let rules = record.cascade.rules();
                    failures.push(format!(
                        "{name}:{}: {} → {}: computed F={} B={}, file F={f} B={b}",
                        record.line,
                        rules[i],
                        rules[j],
                        relations.feeds[i][j],
                        relations.bleeds[i][j]
                    ));
                }
            }
        }
        println!(
            "{name}: categories {categories}/{} match, dag entries {entries}/{entries_total} match",
            records.len()
        );
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn paper_and_exact_disagree_on_some_published_categories() {
    let mut total = 0;
    for name in PUBLISHED {
        let records = read_published(name);
        let (mut categories, mut pairs, mut pairs_total) = (0, 0, 0);
        for record in &records {
            let paper = Relations::of(&record.cascade, RelationMode::Paper);
            let exact = Relations::of(&record.cascade, RelationMode::Exact);
            categories += usize::from(paper.category() != exact.category());
            let n = record.cascade.len();
            for i in 0..n {
                for j in (0..n).filter(|&j| j != i) {
                    pairs_total += 1;
                    pairs += usize::from(
                        (paper.feeds[i][j], paper.bleeds[i][j])
                            != (exact.feeds[i][j], exact.bleeds[i][j]),
                    );
                }
            }
        }
        println!(
            "{name}: categories differing paper vs exact {categories}/{}, rule pairs {pairs}/{pairs_total}",
            records.len()
        );
        total += categories;
    }
    assert!(
        total > 0,
        "paper and exact agree on every published category"
    );

    // For comparison with docs/semantics.md ("Two classifiers"): random rule pairs over small and
    // generator-like alphabets.
    for (letters, ti_lengths) in [("abc", 0..=3), ("abcdefghijkuvwxyz", 1..=3)] {
        let letters: Vec<char> = letters.chars().collect();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let pairs = 20_000;
        let differ = (0..pairs)
            .filter(|_| {
                let si = random_string(&mut rng, &letters, 1..=3);
                let ti = random_string(&mut rng, &letters, ti_lengths.clone());
                let sj = random_string(&mut rng, &letters, 1..=3);
                let paper = (paper::feeds(&si, &ti, &sj), paper::bleeds(&si, &ti, &sj));
                let exact = (exact::feeds(&si, &ti, &sj), exact::bleeds(&si, &ti, &sj));
                paper != exact
            })
            .count();
        println!(
            "random pairs over {} letters: paper and exact differ on {differ}/{pairs}",
            letters.len()
        );
    }
}

/// Shortest lengths of a feeding and of a bleeding witness among all strings of at most
/// `max_len` letters over `alphabet`, by `str::replace` and substring search.
///
/// A depth-first walk over all strings, pruned only in plainly sound ways: a string that
/// contains `sj` has only extensions that contain it (no feeding below it), and once a
/// witness of length ℓ is known no string of length ≥ ℓ is needed for that relation.
/// Whether a string contains a pattern is tracked along the walk (`s·c` contains `p` iff
/// `s` does or `s·c` ends with `p`); the output of `replace` is searched with `contains`.
fn brute_force(
    si: &str,
    ti: &str,
    sj: &str,
    alphabet: &[char],
    max_len: usize,
) -> (Option<usize>, Option<usize>) {
    struct Walk<'a> {
        si: &'a str,
        ti: &'a str,
        sj: &'a str,
        alphabet: &'a [char],
        max_len: usize,
        feeding: Option<usize>,
        bleeding: Option<usize>,
    }
    fn shorter(best: Option<usize>, len: usize) -> bool {
        !matches!(best, Some(b) if b <= len)
    }
    impl Walk<'_> {
        /// `s` has `len` letters; `has_si`/`has_sj` say whether it contains si/sj.
        fn visit(&mut self, s: &mut String, len: usize, has_si: bool, has_sj: bool) {
            // without an occurrence of si, replace changes nothing
            if has_si {
                let after = s.replace(self.si, self.ti).contains(self.sj);
                if !has_sj && after && shorter(self.feeding, len) {
                    self.feeding = Some(len);
                }
                if has_sj && !after && shorter(self.bleeding, len) {
                    self.bleeding = Some(len);
                }
            }
            let feeding_below = !has_sj && shorter(self.feeding, len + 1);
            let bleeding_below = shorter(self.bleeding, len + 1);
            if len < self.max_len && (feeding_below || bleeding_below) {
                for &c in self.alphabet {
                    s.push(c);
                    let has_si = has_si || s.ends_with(self.si);
                    let has_sj = has_sj || s.ends_with(self.sj);
                    self.visit(s, len + 1, has_si, has_sj);
                    s.pop();
                }
            }
        }
    }
    let mut walk = Walk {
        si,
        ti,
        sj,
        alphabet,
        max_len,
        feeding: None,
        bleeding: None,
    };
    walk.visit(&mut String::new(), 0, false, false);
    (walk.feeding, walk.bleeding)
}

/// The rules' letters plus one letter in none of them.
fn brute_alphabet(si: &str, ti: &str, sj: &str) -> Vec<char> {
    let mut letters: Vec<char> = si.chars().chain(ti.chars()).chain(sj.chars()).collect();
    letters.sort_unstable();
    letters.dedup();
    let fresh = ['z', 'q', '#'].into_iter().find(|c| !letters.contains(c));
    letters.push(fresh.expect("test rules use few letters"));
    letters
}

/// `exact` against brute force over strings of at most `max_len` letters: every answer
/// either matches the brute force (with the same shortest witness length) or comes with a
/// witness longer than the bound that the real `replace` confirms.
fn check_against_brute_force(si: &str, ti: &str, sj: &str, max_len: usize) {
    let (brute_feeding, brute_bleeding) =
        brute_force(si, ti, sj, &brute_alphabet(si, ti, sj), max_len);
    let cases = [
        (
            "feeds",
            exact::feeds(si, ti, sj),
            exact::feeding_witness(si, ti, sj),
            brute_feeding,
        ),
        (
            "bleeds",
            exact::bleeds(si, ti, sj),
            exact::bleeding_witness(si, ti, sj),
            brute_bleeding,
        ),
    ];
    for (what, answer, witness, brute) in cases {
        let rule = format!("{si}→{ti} {what} {sj}");
        assert_eq!(
            answer,
            witness.is_some(),
            "{rule}: answer and witness differ"
        );
        match witness {
            Some(w) => {
                let (before, after) = (w.contains(sj), w.replace(si, ti).contains(sj));
                let holds = if what == "feeds" {
                    !before && after
                } else {
                    before && !after
                };
                assert!(holds, "{rule}: witness {w:?} does not witness it");
                let len = w.chars().count();
                if len <= max_len {
                    assert_eq!(
                        brute,
                        Some(len),
                        "{rule}: exact's shortest witness {w:?}, brute force's shortest length {brute:?}"
                    );
                } else {
                    assert_eq!(brute, None, "{rule}: exact's witness {w:?} is not shortest");
                }
            }
            None => assert_eq!(
                brute, None,
                "{rule}: exact says no but brute force finds one"
            ),
        }
    }
}

/// Every string of `min..=max` letters over `letters`.
fn all_strings(letters: &[char], min: usize, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut layer = vec![String::new()];
    for len in 0..=max {
        if len >= min {
            out.extend(layer.iter().cloned());
        }
        layer = layer
            .iter()
            .flat_map(|s| letters.iter().map(move |&c| format!("{s}{c}")))
            .collect();
    }
    out
}

/// True when the letters of `si·ti·sj`, in order of first appearance, are a prefix of
/// `letters`: renaming letters changes no relation, so these represent every triple.
fn canonical(si: &str, ti: &str, sj: &str, letters: &[char]) -> bool {
    let mut seen = Vec::new();
    for c in si.chars().chain(ti.chars()).chain(sj.chars()) {
        if !seen.contains(&c) {
            if letters.get(seen.len()) != Some(&c) {
                return false;
            }
            seen.push(c);
        }
    }
    true
}

/// Every triple `(si, ti, sj)` over `letters`, with `|si|, |sj|` in 1..=3 and `|ti|` in
/// 0..=3, up to renaming of letters.
fn every_triple(letters: &[char]) -> Vec<(String, String, String)> {
    let patterns = all_strings(letters, 1, 3);
    let replacements = all_strings(letters, 0, 3);
    let mut triples = Vec::new();
    for si in &patterns {
        for ti in &replacements {
            for sj in &patterns {
                if canonical(si, ti, sj, letters) {
                    triples.push((si.clone(), ti.clone(), sj.clone()));
                }
            }
        }
    }
    triples
}

fn random_string(
    rng: &mut ChaCha8Rng,
    letters: &[char],
    lengths: std::ops::RangeInclusive<usize>,
) -> String {
    let len = rng.random_range(lengths);
    (0..len)
        .map(|_| letters[rng.random_range(0..letters.len())])
        .collect()
}

/// Random triples over 3- and 4-letter alphabets, ASCII and multi-byte.
fn random_triples(seed: u64, count: usize) -> Vec<(String, String, String)> {
    const POOLS: [&[char]; 4] = [
        &['a', 'b', 'c'],
        &['a', 'b', 'c', 'd'],
        &['é', 'ʔ', 'ː'],
        &['a', 'ʔ', 'ː', 'é'],
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let letters = POOLS[rng.random_range(0..POOLS.len())];
            (
                random_string(&mut rng, letters, 1..=3),
                random_string(&mut rng, letters, 0..=3),
                random_string(&mut rng, letters, 1..=3),
            )
        })
        .collect()
}

/// [`check_against_brute_force`] on every triple, spread over the available cores.
fn check_all(triples: &[(String, String, String)], max_len: usize) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for t in 0..threads {
            scope.spawn(move || {
                for (si, ti, sj) in triples.iter().skip(t).step_by(threads) {
                    check_against_brute_force(si, ti, sj, max_len);
                }
            });
        }
    });
}

#[test]
fn exact_matches_brute_force_on_every_two_letter_pair() {
    let triples = every_triple(&['a', 'b']);
    check_all(&triples, 8);
    println!(
        "{} pairs over {{a, b}} (all, up to renaming) agree with brute force up to length 8",
        triples.len()
    );
}

#[test]
fn exact_matches_brute_force_on_random_pairs() {
    let triples = random_triples(1, 100);
    check_all(&triples, 8);
    println!(
        "{} random pairs over 3–4 letters agree with brute force up to length 8",
        triples.len()
    );
}

/// The heavier sweep, for a release build:
/// `cargo test --release -p pbebench --test relations_reference -- --ignored heavy`.
#[test]
#[ignore = "minutes in a debug build; run with --release"]
fn exact_matches_brute_force_heavy_sweep() {
    let triples = every_triple(&['a', 'b', 'c']);
    check_all(&triples, 8);
    println!(
        "{} pairs over {{a, b, c}} (all, up to renaming) agree with brute force up to length 8",
        triples.len()
    );
    let triples = random_triples(2, 4000);
    check_all(&triples, 8);
    println!(
        "{} random pairs over 3–4 letters agree with brute force up to length 8",
        triples.len()
    );
    let triples = every_triple(&['a', 'b']);
    check_all(&triples, 11);
    println!(
        "{} pairs over {{a, b}} agree with brute force up to length 11",
        triples.len()
    );
}

#[test]
fn spec_examples() {
    // a→ε never creates aa, although the paper's deletion case says it feeds aa.
    assert!(!exact::feeds("a", "", "aa"));
    assert!(paper::feeds("a", "", "aa"));
    // ba→cb feeds bb (bab → cbb), which no case of the paper's formula sees.
    assert_eq!(
        exact::feeding_witness("ba", "cb", "bb").as_deref(),
        Some("bab")
    );
    assert_eq!("bab".replace("ba", "cb"), "cbb");
    assert!(!paper::feeds("ba", "cb", "bb"));
    // aba→ε feeds abb, and the shortest witness has 9 letters: a length-8 brute force
    // would call it non-feeding.
    assert_eq!("aabababab".replace("aba", ""), "abb");
    let witness = exact::feeding_witness("aba", "", "abb").expect("aba→ε feeds abb");
    assert_eq!(witness.chars().count(), 9, "{witness}");
    assert!(!witness.contains("abb") && witness.replace("aba", "").contains("abb"));
    assert!(exact::feeds("aba", "", "abb"));
    let alphabet = brute_alphabet("aba", "", "abb");
    assert_eq!(brute_force("aba", "", "abb", &alphabet, 8).0, None);
    assert_eq!(brute_force("aba", "", "abb", &alphabet, 9).0, Some(9));
}

/// A 3-letter alphabet plus a multi-byte one, to mix into random strings.
fn small_string(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(prop::sample::select(vec!['a', 'b', 'c', 'ʔ']), 0..=max)
        .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any concrete string that feeds or bleeds proves `exact` must say so, at any length;
    /// and whatever `exact` says yes to, its witness shows.
    #[test]
    fn exact_is_sound_and_complete_on_random_strings(
        si in small_string(3).prop_filter("a pattern is non-empty", |s| !s.is_empty()),
        ti in small_string(3),
        sj in small_string(3).prop_filter("a pattern is non-empty", |s| !s.is_empty()),
        s in small_string(16),
    ) {
        let (before, after) = (s.contains(sj.as_str()), s.replace(si.as_str(), &ti).contains(sj.as_str()));
        if !before && after {
            prop_assert!(exact::feeds(&si, &ti, &sj), "{:?} shows {}→{} feeds {}", s, si, ti, sj);
        }
        if before && !after {
            prop_assert!(exact::bleeds(&si, &ti, &sj), "{:?} shows {}→{} bleeds {}", s, si, ti, sj);
        }
        if let Some(w) = exact::feeding_witness(&si, &ti, &sj) {
            prop_assert!(!w.contains(sj.as_str()) && w.replace(si.as_str(), &ti).contains(sj.as_str()));
        }
        if let Some(w) = exact::bleeding_witness(&si, &ti, &sj) {
            prop_assert!(w.contains(sj.as_str()) && !w.replace(si.as_str(), &ti).contains(sj.as_str()));
        }
    }
}
