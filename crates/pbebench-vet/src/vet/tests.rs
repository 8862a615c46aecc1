use super::*;
use crate::attack::line_27;
use pbebench::Rule;

struct Quiet;

impl VetProgress for Quiet {
    fn done(&self, _: VetCounts) {}
}

fn options(panel: &str, max_examples: usize) -> VetOptions {
    VetOptions {
        panel: panel.parse().unwrap(),
        max_examples,
        replacement_attempts: REPLACEMENT_ATTEMPTS,
        seed: 0,
        params: None,
    }
}

fn run(
    instances: &[Instance],
    options: &VetOptions,
    out: &Path,
    threads: usize,
) -> Result<VetSummary, VetError> {
    let job = VetJob {
        options,
        out,
        threads,
        fresh: false,
        shard: None,
    };
    vet_dataset(instances, &job, &Quiet)
}

fn read_vetted(path: &Path) -> Vec<VettedInstance> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn lite(size: usize, seed: u64) -> (GenParams, Vec<Instance>) {
    let mut p = Preset::Lite.params();
    p.size = size;
    p.seed = seed;
    p.heldout = 5;
    let mut out = Vec::new();
    generate::generate(&p, &(), &mut |i| {
        out.push(i);
        Ok(())
    })
    .unwrap();
    (p, out)
}

#[test]
fn line_27_gets_the_counterexample_the_issue_names() {
    let inst = line_27();
    let answer = Cascade::new(vec![Rule::new("jd", "gyx").unwrap()]);
    assert!(
        answer.reproduces(&inst.inputs, &inst.outputs),
        "jd→gyx fits the five"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.jsonl");
    // The memoriser answers jd→gyx here: deterministic, and the issue's witness.
    let summary = run(
        std::slice::from_ref(&inst),
        &options("memoriser,beam@300", 12),
        &out,
        1,
    )
    .unwrap();
    assert_eq!((summary.kept, summary.dropped), (1, 0), "{summary:?}");
    let v = &read_vetted(&out)[0];
    let first = &v.repair.added[0];
    assert_eq!(first.attacker, "memoriser");
    assert_eq!(first.answer, answer);
    assert_eq!((first.input.as_str(), first.output.as_str()), ("dy", "dgy"));
    assert_eq!(first.answer_output.as_deref(), Some("dy"));
    let vi = &v.instance;
    assert_eq!(vi.inputs[..5], inst.inputs[..]);
    assert!(vi.inputs.contains(&"dy".to_owned()));
    assert!(!answer.reproduces(&vi.inputs, &vi.outputs));
    let gold = vi.cascade.as_ref().unwrap();
    assert!(gold.reproduces(&vi.inputs, &vi.outputs));
    assert_eq!(v.repair.examples_before, 5);
    assert_eq!(vi.inputs.len(), 5 + v.repair.added.len());
    // Vetted: the panel finds nothing more.
    let space = pbebench::equiv::InputSpace::of(vi).unwrap();
    let mut reference = Reference::new(gold, &space, &Limits::default());
    let panel: Panel = "memoriser,beam@300".parse().unwrap();
    assert!(matches!(
        run_panel(vi, &mut reference, &panel, 0),
        PanelVerdict::Identified { .. }
    ));
    // The file is a dataset: the reader takes the `repair` field in its stride.
    let back = pbebench::dataset::read_dataset(&out).unwrap();
    assert_eq!(&back[0], vi);
    assert_eq!(summary.stats.instances, 1);
    // One instance vetted in memory is the line the file holds.
    let alone = vet_instance(&inst, &options("memoriser,beam@300", 12)).unwrap();
    assert_eq!(alone.as_ref(), Ok(v));
}

#[test]
fn one_instance_vetted_alone_says_why_it_is_not_kept() {
    // At its own five examples the memoriser's jd→gyx still fits: ambiguous at the cap.
    let inst = line_27();
    let why = vet_instance(&inst, &options("memoriser", 5)).unwrap();
    assert!(why.as_ref().unwrap_err().contains("ambiguous"), "{why:?}");
    let e = vet_instance(&inst, &options("memoriser", 4)).unwrap_err();
    assert!(matches!(e, VetError::MaxExamples { max: 4, .. }), "{e}");
}

#[test]
fn held_out_inputs_are_never_made_visible() {
    let mut inst = line_27();
    let gold = inst.cascade.clone().unwrap();
    inst.heldout_inputs = vec!["dy".into(), "jd".into()];
    inst.heldout_outputs = inst.heldout_inputs.iter().map(|i| gold.apply(i)).collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.jsonl");
    run(&[inst.clone()], &options("memoriser", 12), &out, 1).unwrap();
    let v = &read_vetted(&out)[0];
    let first = &v.repair.added[0];
    // "dy" and "jd" (the first two inputs telling jd→gyx from the gold) are held out:
    // the next one, in the alphabet's order, is taken.
    assert_eq!(first.input, "ady", "{first:?}");
    assert_ne!(gold.apply(&first.input), first.answer.apply(&first.input));
    for added in &v.repair.added {
        assert!(!inst.heldout_inputs.contains(&added.input));
    }
    assert_eq!(v.instance.heldout_inputs, inst.heldout_inputs);
    assert_eq!(v.instance.heldout_outputs, inst.heldout_outputs);
}

#[test]
fn bad_input_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.jsonl");
    let mut real = line_27();
    real.cascade = None;
    let e = run(&[line_27(), real], &options("memoriser", 12), &out, 1).unwrap_err();
    assert!(matches!(e, VetError::NoGold { index: 2, .. }), "{e}");
    assert!(e.to_string().contains("has no gold cascade"), "{e}");
    let e = run(&[line_27()], &options("memoriser", 4), &out, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "max_examples 4 is smaller than the 5 visible examples of instance '27': give at least 5"
    );
    let e = run(&[line_27()], &options("memoriser", 5000), &out, 1).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("max_examples 5000 is more than 1000"),
        "{e}"
    );
    let mut bad = line_27();
    bad.outputs[0] = "nope".into();
    let e = run(&[bad], &options("memoriser", 12), &out, 1).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("instance '27' (instance 1 of the dataset): example 0: the cascade maps"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn preset_ids_give_the_generation_parameters() {
    let (_, data) = lite(16, 3);
    // The ids say lite, seed 3, but the held-out count is not the preset's.
    assert_eq!(infer_params(&data), None);
    let mut p20 = Preset::Lite.params();
    p20.size = 16;
    p20.seed = 3;
    let mut data = Vec::new();
    generate::generate(&p20, &(), &mut |i| {
        data.push(i);
        Ok(())
    })
    .unwrap();
    let inferred = infer_params(&data).unwrap();
    assert_eq!((inferred.name.as_str(), inferred.seed), ("lite", 3));
    assert_eq!(preset_and_seed("full-s12-00003"), Some(("full", 12)));
    assert_eq!(preset_and_seed("27"), None);
    data[4].id = "other".into();
    assert_eq!(infer_params(&data), None);
}

#[test]
fn ambiguous_instances_are_replaced_within_their_category() {
    let (p, data) = lite(16, 1);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.jsonl");
    // No room for repair: every ambiguous instance must be replaced.
    let mut o = options("shortcuts", 5);
    o.params = Some(p);
    let summary = run(&data, &o, &out, 2).unwrap();
    assert!(summary.replaced > 0, "{summary:?}");
    assert_eq!(summary.kept + summary.dropped, 16);
    let vetted = read_vetted(&out);
    for v in &vetted {
        let slot = data.iter().find(|d| d.id == v.instance.id).unwrap();
        if let Some(r) = &v.repair.replaced {
            assert_eq!(v.instance.category, slot.category, "{r:?}");
            assert_ne!(v.instance.cascade, slot.cascade);
            assert!(r.generated_id.starts_with("lite-s"));
        } else {
            assert_eq!(&v.instance, slot);
        }
        assert!(v.repair.added.is_empty());
    }
}

#[test]
fn the_output_does_not_depend_on_the_thread_count() {
    let (a, b) = on_one_and_two_threads(2, "shortcuts", 6, 5);
    assert_eq!(a.stats.by_category, b.stats.by_category);
    let figures = |s: &VetSummary| VetSummary {
        stats: DatasetStats::default(),
        ..s.clone()
    };
    assert_eq!(figures(&a), figures(&b));
    assert!(a.replaced > 0, "the test exercises replacement: {a:?}");
    assert!(a.added > 0, "the test exercises repair: {a:?}");
}

/// Vets 16 `lite` instances of generator seed `data_seed` with `panel` (at most `examples`
/// examples, vetting seed `seed`) on 1 and on 2 threads, asserts the two files are the
/// same bytes, and returns the two summaries.
fn on_one_and_two_threads(
    data_seed: u64,
    panel: &str,
    examples: usize,
    seed: u64,
) -> (VetSummary, VetSummary) {
    let (p, data) = lite(16, data_seed);
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(panel, examples);
    o.params = Some(p);
    o.seed = seed;
    let one = dir.path().join("one.jsonl");
    let two = dir.path().join("two.jsonl");
    let a = run(&data, &o, &one, 1).unwrap();
    let b = run(&data, &o, &two, 2).unwrap();
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    (a, b)
}

/// The default panel, whose solvers are bounded by node budgets (their repair step counted
/// in evaluations, not time), gives the same file on 1 and 2 threads, whatever the load.
#[test]
fn the_default_panel_is_deterministic_too() {
    let (a, _) = on_one_and_two_threads(3, crate::DEFAULT_PANEL, 8, 0);
    assert!(a.added > 0, "the test exercises repair: {a:?}");
}

/// The search from both ends, as the default panel has it (its halves and peels share the
/// node budget, not the clock), kept to golds of 4 rules or more: the same file on 1 and 2
/// threads.
#[test]
fn a_gated_search_from_both_ends_is_deterministic() {
    on_one_and_two_threads(3, "neighbours,beam-ends-chain@120:s3:from4", 8, 0);
}

/// Stops the run (by a panic, as a kill would, leaving the journal) after `after` slots.
struct StopAfter(usize);

impl VetProgress for StopAfter {
    fn done(&self, counts: VetCounts) {
        if counts.done >= self.0 {
            panic!("interrupted");
        }
    }
}

#[test]
fn an_interrupted_run_resumes_from_its_journal() {
    let (p, data) = lite(16, 4);
    let dir = tempfile::tempdir().unwrap();
    let mut o = options("shortcuts", 8);
    o.params = Some(p);
    let whole = dir.path().join("whole.jsonl");
    let expected = run(&data, &o, &whole, 1).unwrap();
    let figures = |s: &VetSummary| VetSummary {
        resumed: 0,
        stats: DatasetStats::default(),
        ..s.clone()
    };
    let out = dir.path().join("v.jsonl");
    let job = VetJob {
        options: &o,
        out: &out,
        threads: 1,
        fresh: false,
        shard: None,
    };
    let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        vet_dataset(&data, &job, &StopAfter(1))
    }));
    let payload = stopped.expect_err("the panel stops after one instance");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"interrupted"));
    // As a kill leaves it: five slots written, the sixth cut short.
    let journal = dir.path().join("v.jsonl.partial");
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 17, "the header and every slot");
    let cut = format!("{}\n{}", lines[..6].join("\n"), &lines[6][..40]);
    std::fs::write(&journal, cut).unwrap();
    assert!(!out.exists());
    // Another run's options: refused, naming the file.
    let mut other = o.clone();
    other.seed = 9;
    let e = run(&data, &other, &out, 1).unwrap_err();
    assert!(
        e.to_string().contains("v.jsonl.partial: holds a run of"),
        "{e}"
    );
    // The same options, attacked by another revision of the solver: refused too.
    let revision = format!(",\"solver_revision\":{}", pbebench_solve::SOLVER_REVISION);
    let cut = std::fs::read_to_string(&journal).unwrap();
    assert!(cut.lines().next().unwrap().contains(&revision));
    std::fs::write(&journal, cut.replacen(&revision, "", 1)).unwrap();
    let e = run(&data, &o, &out, 1).unwrap_err();
    assert!(
        e.to_string().contains("(solver revision not recorded)"),
        "{e}"
    );
    std::fs::write(&journal, cut).unwrap();
    let resumed = run(&data, &o, &out, 2).unwrap();
    assert_eq!(resumed.resumed, 5);
    assert_eq!(figures(&resumed), figures(&expected));
    assert_eq!(resumed.stats.by_category, expected.stats.by_category);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    assert!(!journal.exists());
}

/// A journal written by an older pbebench (`testdata/journals`, `pbebench vet` killed after
/// two slots, before the journal moved to `pbebench-io`) resumes: those slots are taken
/// from it as they are, and only the third is vetted.
#[test]
fn a_journal_of_an_older_version_resumes() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/journals/");
    let instances = pbebench::dataset::read_dataset(format!("{data}vet.jsonl")).unwrap();
    let journal = std::fs::read_to_string(format!("{data}vet.jsonl.partial")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v.jsonl");
    std::fs::write(dir.path().join("v.jsonl.partial"), &journal).unwrap();
    // The panel it was written with (the default panel until issue 40 added a member).
    let o = options(
        "neighbours,beam@300,beam-hunks@300:s1,beam-distance@300:s2,shortcuts",
        12,
    );
    let summary = run(&instances, &o, &out, 1).unwrap();
    assert_eq!(summary.resumed, 2);
    let kept: Vec<serde_json::Value> = (journal.lines().skip(1))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["kept"].clone())
        .collect();
    let written: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(written.len(), 3);
    assert_eq!(written[..2], kept[..]);
    assert!(!dir.path().join("v.jsonl.partial").exists());
}

#[test]
fn shards_concatenate_to_the_whole_run_byte_for_byte() {
    // Replacements on (params given) so that the slots' generator seeds, which depend on
    // the slot's position in the whole dataset, are exercised too.
    let (p, data) = lite(16, 4);
    let dir = tempfile::tempdir().unwrap();
    // No room for added examples: an instance the panel can fool is replaced.
    let mut o = options("shortcuts", 5);
    o.params = Some(p);
    let vet = |shard, name: &str| {
        let out = dir.path().join(name);
        let job = VetJob {
            options: &o,
            out: &out,
            threads: 2,
            fresh: false,
            shard,
        };
        let summary = vet_dataset(&data, &job, &Quiet).unwrap();
        (std::fs::read(&out).unwrap(), summary)
    };
    let (whole, summary) = vet(None, "whole.jsonl");
    assert!(summary.replaced > 0, "no replacement to check: {summary:?}");
    // Even splits, uneven ones, one slot per shard, and more shards than slots (empty ones).
    for n in [1, 3, 5, 16, 20] {
        let mut joined = Vec::new();
        let mut slots = 0;
        for k in 0..n {
            let (bytes, s) = vet(Some((k, n)), &format!("s{k}-of-{n}.jsonl"));
            joined.extend(bytes);
            slots += s.instances;
        }
        assert_eq!(slots, 16, "{n} shards cover every slot once");
        assert!(joined == whole, "{n} shards differ from the whole run");
    }
    // A shard that is none is refused, naming it.
    let out = dir.path().join("bad.jsonl");
    for (k, n) in [(2, 2), (0, 0)] {
        let job = VetJob {
            options: &o,
            out: &out,
            threads: 1,
            fresh: false,
            shard: Some((k, n)),
        };
        let e = vet_dataset(&data, &job, &Quiet).unwrap_err();
        assert!(matches!(e, VetError::Shard { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("shard {k}/{n} is not a shard")),
            "{e}"
        );
    }
}

#[test]
fn the_replacement_bound_is_per_slot_and_empty_slots_are_reported_by_length() {
    let (p, data) = lite(16, 4);
    let dir = tempfile::tempdir().unwrap();
    let run_with = |attempts| {
        let mut o = options("shortcuts", 5);
        o.params = Some(p.clone());
        o.replacement_attempts = attempts;
        run(&data, &o, &dir.path().join(format!("a{attempts}.jsonl")), 2).unwrap()
    };
    let (none, four) = (run_with(0), run_with(4));
    // Without fresh instances every slot whose own instance is not kept stays empty; with
    // four, those same slots are replaced or, failing four times, empty.
    assert!(none.dropped > 0 && none.replaced == 0, "{none:?}");
    assert_eq!(none.dropped, four.replaced + four.dropped);
    for s in [&none, &four] {
        assert_eq!(s.dropped_slots.len(), s.dropped);
        assert_eq!(s.dropped_by_length.values().sum::<usize>(), s.dropped);
        for d in &s.dropped_slots {
            let inst = data.iter().find(|i| i.id == d.id).unwrap();
            assert_eq!(d.cascade_len, inst.cascade_len, "{d:?}");
        }
    }
    assert!(none.dropped_slots[0]
        .reason
        .ends_with("no fresh instance kept after 0 attempts"));
    // The bound is checked before any work.
    let mut o = options("shortcuts", 5);
    o.replacement_attempts = REPLACEMENT_ATTEMPTS_LIMIT + 1;
    let e = run(&data, &o, &dir.path().join("x.jsonl"), 1).unwrap_err();
    assert!(matches!(e, VetError::TooManyReplacements(_)), "{e}");
}
