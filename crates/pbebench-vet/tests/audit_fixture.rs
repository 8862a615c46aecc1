//! The audit on a small hand-made dataset with one flaw of each kind
//! (fixtures/flawed.jsonl), and the checks of results against a dataset.

use pbebench::dataset::{read_dataset, read_dataset_with};
use pbebench::render_answer;
use pbebench::{score_instance, ScoreOptions};
use pbebench::{GoldCheck, Instance};
use pbebench_vet::audit::{audit, AuditFindings, AuditOptions, Reason, Thresholds};
use pbebench_vet::{check_against, check_same_instances, ResultSet};

const FLAWED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flawed.jsonl");

/// The fixture as the audit reads it: golds that contradict their examples are read, to
/// be flagged.
fn flawed() -> Vec<Instance> {
    read_dataset_with(FLAWED, GoldCheck::Bounded).unwrap()
}

/// Every reader but the audit refuses the fixture's contradicting golds, naming the line.
#[test]
fn other_readers_refuse_a_gold_that_contradicts_its_examples() {
    let err = read_dataset(FLAWED).unwrap_err().to_string();
    assert!(
        err.contains("flawed.jsonl:") && err.contains("the cascade maps"),
        "{err}"
    );
}

fn run(data: &[Instance], panel: &[ResultSet]) -> AuditFindings {
    audit(
        data,
        "flawed.jsonl",
        panel,
        &AuditOptions::default(),
        &|_: &str| {},
    )
}

/// Scores of answering every instance with its gold cascade (`gold`) or nothing.
fn answers(data: &[Instance], gold: bool) -> Vec<pbebench::InstanceScore> {
    data.iter()
        .map(|inst| {
            let text = if gold {
                render_answer(inst.cascade.as_ref().unwrap())
            } else {
                String::new()
            };
            score_instance(inst, &[text], &ScoreOptions::default())
        })
        .collect()
}

#[test]
fn each_flaw_is_found() {
    let data = flawed();
    let a = run(&data, &[]);
    assert!(!a.passed);
    assert!(!a.gates.gold.passed);
    assert_eq!(a.gates.gold.failures.count, 1);
    assert_eq!(a.gates.gold.failures.examples[0].id, "bad-gold");
    assert!(!a.gates.dummy.passed);
    assert_eq!(a.gates.dummy.failures.examples[0].id, "no-op");
    assert!(
        a.gates.dummy.failures.examples[0]
            .detail
            .contains("an empty response and the identity cascade pass"),
        "{:?}",
        a.gates.dummy.failures
    );
    assert_eq!(
        a.duplicates.renamed.examples,
        vec![vec!["twin-1".to_owned(), "twin-2".to_owned()]]
    );
    assert_eq!(a.duplicates.identical.groups, 0);
    assert_eq!(a.duplicates.repeated_examples.examples[0].id, "repeat");
    let s = &a.shortcuts.stated_length;
    assert_eq!(s.redundant_rules.examples[0].id, "no-op");
    let short: Vec<&str> = s
        .much_shorter
        .examples
        .iter()
        .map(|f| f.id.as_str())
        .collect();
    assert!(short.contains(&"padded"), "{short:?}");
    let names: Vec<&str> = a
        .shortcuts
        .baselines
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert_eq!(names, ["identity", "single-rule", "memoriser"]);
    // The identity passes only the no-op instance.
    assert_eq!(a.shortcuts.baselines[0].passed.count, 1);
    assert!(a.calibration.is_none());
    let text = a.to_string();
    assert!(text.contains("FAILED gate(s): gold, dummy"), "{text}");
    // audit.json round-trips (the report reads it back).
    let json = serde_json::to_string(&a).unwrap();
    let back: AuditFindings = serde_json::from_str(&json).unwrap();
    assert_eq!(back, a);
}

/// Sound instances pass the gold and dummy gates; the set still fails on what the audit
/// measures (shortcuts, ambiguity) until the thresholds allow it.
#[test]
fn a_sound_dataset_passes_gold_and_dummy_and_the_verdict_judges_the_rest() {
    let data: Vec<Instance> = flawed()
        .into_iter()
        .filter(|i| i.id != "bad-gold" && i.id != "no-op")
        .collect();
    let options = AuditOptions {
        solver: None,
        ..AuditOptions::default()
    };
    let a = audit(&data, "clean", &[], &options, &|_: &str| {});
    assert!(a.gates.gold.passed && a.gates.dummy.passed, "{a}");
    assert!(a.shortcuts.stated_length.solver.is_none());
    assert!(!a.passed, "{a}");
    let v = a.verdict.as_ref().unwrap();
    let failed: Vec<&str> = v.failed().map(|g| g.gate.as_str()).collect();
    assert_eq!(
        failed,
        ["shortcut:single-rule", "shortcut:memoriser", "ambiguous"]
    );
    assert!(
        a.to_string()
            .contains("FAILED gate(s): shortcut:single-rule, shortcut:memoriser, ambiguous"),
        "{a}"
    );
    let loose = AuditOptions {
        solver: None,
        thresholds: Thresholds {
            max_shortcut: 1.0,
            max_ambiguous: 1.0,
            ..Thresholds::default()
        },
        ..AuditOptions::default()
    };
    let a = audit(&data, "clean", &[], &loose, &|_: &str| {});
    assert!(a.passed, "{a}");
    assert!(a.to_string().contains("every gate passed"), "{a}");
}

/// Each instance is flagged with each of its reasons, and the evidence.
#[test]
fn each_instance_is_flagged_with_its_reasons() {
    let data = flawed();
    let options = AuditOptions {
        solver: None,
        ..AuditOptions::default()
    };
    let a = audit(&data, "flawed.jsonl", &[], &options, &|_: &str| {});
    let v = a.verdict.as_ref().unwrap();
    let reasons = |id: &str| -> Vec<Reason> {
        v.flagged
            .iter()
            .find(|f| f.id == id)
            .map_or_else(Vec::new, |f| f.flags.iter().map(|f| f.reason).collect())
    };
    assert!(reasons("bad-gold").contains(&Reason::GoldFails));
    assert!(reasons("no-op").contains(&Reason::DummyPasses));
    assert!(reasons("twin-2").contains(&Reason::Duplicate));
    assert!(
        !reasons("twin-1").contains(&Reason::Duplicate),
        "the first of a group is kept"
    );
    // The shortcut flag names its baseline; the ambiguous one carries a real witness.
    let ok = v.flagged.iter().find(|f| f.id == "ok").unwrap();
    let shortcut = ok
        .flags
        .iter()
        .find(|f| f.reason == Reason::Shortcut)
        .unwrap();
    assert_eq!(shortcut.baseline.as_deref(), Some("single-rule"));
    assert!(
        shortcut.detail.contains("not equivalent to the gold"),
        "{}",
        shortcut.detail
    );
    let ambiguous = ok
        .flags
        .iter()
        .find(|f| f.reason == Reason::Ambiguous)
        .unwrap();
    let w = ambiguous.witness.as_ref().unwrap();
    let inst = data.iter().find(|i| i.id == "ok").unwrap();
    assert!(w.found.reproduces(&inst.inputs, &inst.outputs));
    assert_ne!(
        inst.cascade.as_ref().unwrap().apply(&w.counterexample),
        w.found.apply(&w.counterexample)
    );
    // Every ambiguous instance of the identifiability check is flagged, not only the
    // first few it shows.
    let id = a.identifiability.as_ref().unwrap();
    assert_eq!(v.flag_counts[&Reason::Ambiguous], id.ambiguous);
    // The flags are in audit.json.
    let json: serde_json::Value = serde_json::to_value(&a).unwrap();
    let gates = json["verdict"]["gates"].as_array().unwrap();
    let gold = gates.iter().find(|g| g["gate"] == "gold").unwrap();
    assert_eq!(gold["passed"], false);
    assert_eq!(gold["threshold"], 0.0);
    assert!((gold["value"].as_f64().unwrap() - 1.0 / 7.0).abs() < 1e-12);
    assert!(json["verdict"]["flagged"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["id"] == "bad-gold" && f["flags"][0]["reason"] == "gold-fails"));
}

#[test]
fn calibration_flags_collapsed_slices() {
    let data = flawed();
    let solved = ResultSet::from_instances("gold", answers(&data, true));
    let nothing = ResultSet::from_instances("empty", answers(&data, false));
    let a = run(&data, &[solved, nothing]);
    // The collapse gate: no-op is passed by both, bad-gold by neither.
    let v = a.verdict.as_ref().unwrap();
    let collapse = v.gates.iter().find(|g| g.gate == "collapse").unwrap();
    assert_eq!(collapse.value, Some(2.0 / 7.0));
    assert!(collapse.passed, "{}", collapse.line);
    assert!(
        collapse.line.contains("(1 passed by every one, 1 by none)"),
        "{}",
        collapse.line
    );
    let trivial: Vec<&str> = (v.flagged.iter())
        .filter(|f| f.flags.iter().any(|f| f.reason == Reason::Trivial))
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(trivial, ["no-op"]);
    let c = a.calibration.unwrap();
    assert_eq!(c.panel, ["gold", "empty"]);
    assert_eq!(c.instances, data.len());
    assert_eq!(
        c.histogram.iter().map(|b| b.count).sum::<usize>(),
        data.len()
    );
    // Only no-op is solved by both (the empty answer passes it); the length-1 slice has
    // five instances, so it can be judged; nothing is solved by every solver there.
    let len1 = c
        .slices
        .iter()
        .find(|s| s.kind == "cascade_len" && s.key == "1")
        .unwrap();
    assert_eq!(len1.instances, 5);
    assert!(len1.flag.is_none(), "{len1:?}");
    // bad-gold cannot be solved by its own gold cascade.
    assert!(c.mean_scores["bad-gold"] < 1.0);

    // A panel of one perfect solver collapses every slice big enough to judge.
    let mut sound: Vec<Instance> = data.into_iter().filter(|i| i.id != "bad-gold").collect();
    for k in 0..3 {
        let mut copy = sound[2].clone();
        copy.id = format!("copy-{k}");
        sound.push(copy);
    }
    let a = run(
        &sound,
        &[ResultSet::from_instances("gold", answers(&sound, true))],
    );
    let c = a.calibration.unwrap();
    let flagged: Vec<(&str, &str)> = c
        .slices
        .iter()
        .filter_map(|s| s.flag.as_deref().map(|f| (s.key.as_str(), f)))
        .collect();
    // Length 1 and category 0000 have 7 instances each; length 2 has only 2.
    assert_eq!(flagged, [("1", "all-solved"), ("0000", "all-solved")]);
}

#[test]
fn results_are_checked_against_the_dataset() {
    let data = flawed();
    let mut good = ResultSet::from_instances("gold", answers(&data, true));
    assert!(check_against(&data, &mut good, "flawed")
        .unwrap()
        .is_empty());

    // Another dataset with the same ids: the stated scores do not re-score.
    let mut other = data.clone();
    for inst in &mut other {
        inst.outputs = inst.inputs.iter().map(|i| format!("{i}k")).collect();
    }
    let mut foreign = ResultSet::from_instances("foreign", answers(&data, true));
    let err = check_against(&other, &mut foreign, "other")
        .unwrap_err()
        .to_string();
    assert!(err.contains("contradict other"), "{err}");

    // No id in common.
    let mut renamed = ResultSet::from_instances("renamed", {
        let mut s = answers(&data, true);
        s.iter_mut().for_each(|x| x.id.push_str("-x"));
        s
    });
    let err = check_against(&data, &mut renamed, "flawed")
        .unwrap_err()
        .to_string();
    assert!(err.contains("none of its 7 ids"), "{err}");

    // Some unknown ids, some missing: warnings, and the summary is recomputed.
    let mut partial = ResultSet::from_instances("partial", {
        let mut s = answers(&data, true);
        s[0].id = "stranger".into();
        s
    });
    let warnings = check_against(&data, &mut partial, "flawed").unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("stranger"));
    assert!(warnings[1].contains("no result for 1"));
    assert_eq!(partial.summary.overall.instances, 6);

    // Two result sets on different datasets.
    let mut shifted = answers(&data, true);
    shifted[0].cascade_len += 1;
    let sets = [
        ResultSet::from_instances("a", answers(&data, true)),
        ResultSet::from_instances("b", shifted),
    ];
    let e = check_same_instances(&sets).unwrap_err().to_string();
    assert!(e.contains("'a' and 'b' are on different datasets"), "{e}");
}

/// What the audit tells as it goes: each stage in order, and every instance the solver
/// searched, up to all of them.
#[test]
fn progress_hears_every_stage_and_search() {
    use pbebench_vet::audit::AuditProgress;
    use std::sync::Mutex;
    #[derive(Default)]
    struct Heard {
        stages: Mutex<Vec<String>>,
        searched: Mutex<Vec<(usize, usize)>>,
    }
    impl AuditProgress for Heard {
        fn stage(&self, name: &str) {
            self.stages.lock().unwrap().push(name.to_owned());
        }
        fn searched(&self, done: usize, total: usize) {
            self.searched.lock().unwrap().push((done, total));
        }
    }
    let data = flawed();
    let heard = Heard::default();
    let report = audit(&data, "flawed.jsonl", &[], &AuditOptions::default(), &heard);
    let stages = heard.stages.into_inner().unwrap();
    assert_eq!(stages.first().map(String::as_str), Some("gates"));
    assert!(
        stages.iter().any(|s| s.starts_with("stated lengths")),
        "{stages:?}"
    );
    let mut searched = heard.searched.into_inner().unwrap();
    searched.sort();
    let checked = report.shortcuts.stated_length.checked;
    assert!(checked > 0);
    let expected: Vec<(usize, usize)> = (1..=checked).map(|k| (k, checked)).collect();
    assert_eq!(searched, expected);
}
