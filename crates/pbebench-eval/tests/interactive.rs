//! Interactive mode (issue 21) against the loopback mock server, which scripts tool calls:
//! a solver that probes, tests and submits; malformed arguments; an unknown tool; several
//! calls in one message; a model that never submits; one that overspends its budget; one
//! that answers in plain text; the text protocol; a solver program over JSON lines;
//! `--rescore`; and `kill -9` mid-episode.

mod support;

use pbebench::Instance;
use pbebench_eval::store::RunStore;
use pbebench_eval::{
    evaluate, rescore, BlockChoice, EvalConfig, InteractiveResults, SolverCommand, SolverSpec,
    ToolProtocol,
};
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

fn submit(inst: &Instance) -> String {
    json!({"cascade": serde_json::from_str::<serde_json::Value>(&gold_rules(inst)).unwrap()})
        .to_string()
}

/// A scripted model per instance: what it says at each turn.
fn scripted(insts: &[Instance]) -> impl Fn(&MockRequest) -> Reply + Send + Sync + 'static {
    let insts = insts.to_vec();
    move |req| {
        let i = episode_instance(&insts, req);
        let gold = submit(&insts[i]);
        let wrong = r#"{"cascade": ["replace('z', 'y')"]}"#;
        match (i, req.turn()) {
            // 0: probes a held-out input, tests the gold, submits it.
            (0, 0) => Reply::tool_calls(None, &[("run_hidden", r#"{"inputs": ["ab"]}"#)]),
            (0, 1) => Reply::tool_calls(Some("Let me check."), &[("test_cascade", &gold)]),
            (0, _) => Reply::tool_calls(None, &[("submit", &gold)]),
            // 1: malformed JSON arguments, then a submit.
            (1, 0) => Reply::tool_calls(None, &[("run_hidden", r#"{"inputs": ["#)]),
            (1, _) => Reply::tool_calls(None, &[("submit", &gold)]),
            // 2: an unknown tool, then a submit.
            (2, 0) => Reply::tool_calls(None, &[("rm_rf", "{}")]),
            (2, _) => Reply::tool_calls(None, &[("submit", &gold)]),
            // 3: three calls in one message.
            (3, _) => Reply::tool_calls(
                None,
                &[
                    ("run_hidden", r#"{"inputs": ["a", "b"]}"#),
                    ("test_cascade", wrong),
                    ("submit", &gold),
                ],
            ),
            // 4: never submits: tests the gold again and again.
            (4, _) => Reply::tool_calls(None, &[("test_cascade", &gold)]),
            // 5: tests a wrong cascade, then asks for more probes than its budget.
            (5, 0) => Reply::tool_calls(None, &[("test_cascade", wrong)]),
            (5, _) => Reply::tool_calls(
                None,
                &[(
                    "run_hidden",
                    r#"{"inputs": ["a", "b", "c", "d", "e", "f", "g"]}"#,
                )],
            ),
            // 6: answers in plain text, with the gold in a python block.
            (6, _) => Reply::answer(&gold_answer(&insts[6])),
            // 7: plain text without any answer.
            (_, _) => Reply::answer("I do not know."),
        }
    }
}

fn with_heldout(mut insts: Vec<Instance>) -> Vec<Instance> {
    let gold = insts[0].cascade.clone().unwrap();
    insts[0].heldout_inputs = vec!["ab".into(), "ka".into(), "kk".into()];
    insts[0].heldout_outputs = gold.apply_all(&insts[0].heldout_inputs);
    insts
}

fn grades(out: &InteractiveResults) -> Vec<(String, String, usize, u32, bool)> {
    out.episodes
        .iter()
        .map(|e| {
            (
                e.end_reason.clone(),
                e.final_source.clone(),
                e.probes_used,
                e.turns,
                e.pass,
            )
        })
        .collect()
}

/// Recovered and behaviour of `answer` by brute force: every string over the instance's
/// alphabet with a length from its shortest to its longest input (visible or held-out),
/// each length weighing the same, letters uniform.
fn brute_behaviour(inst: &Instance, answer: &pbebench::Cascade) -> (bool, f64) {
    let gold = inst.cascade.as_ref().unwrap();
    let letters: Vec<char> = inst.alphabet.chars().collect();
    let lens = inst
        .inputs
        .iter()
        .chain(&inst.heldout_inputs)
        .map(|s| s.chars().count());
    let (lo, hi) = (lens.clone().min().unwrap(), lens.max().unwrap());
    let (mut same_everywhere, mut changed, mut agree) = (true, 0.0, 0.0);
    for len in lo..=hi {
        let weight = 1.0 / (letters.len() as f64).powi(len as i32);
        let mut digits = vec![0usize; len];
        loop {
            let s: String = digits.iter().map(|&d| letters[d]).collect();
            let (g, a) = (gold.apply(&s), answer.apply(&s));
            same_everywhere &= g == a;
            if g != s {
                changed += weight;
                agree += if g == a { weight } else { 0.0 };
            }
            let Some(k) = digits.iter().rposition(|&d| d + 1 < letters.len()) else {
                break;
            };
            digits[k] += 1;
            digits[k + 1..].iter_mut().for_each(|d| *d = 0);
        }
    }
    (same_everywhere, agree / changed)
}

#[test]
fn scripted_tool_calls_end_every_episode_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let insts = with_heldout(instances(8));
    let dataset = write_dataset(dir.path(), &insts);
    let server = MockServer::start(scripted(&insts));
    let run = dir.path().join("run");
    let config = interactive_config(&dataset, &run, &[server.base_url()]);
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    let inter = out.interactive.as_ref().unwrap();
    let s = |x: &str| x.to_owned();
    assert_eq!(
        grades(inter),
        vec![
            (s("submit"), s("submitted"), 1, 3, true),
            (s("submit"), s("submitted"), 0, 2, true),
            (s("submit"), s("submitted"), 0, 2, true),
            (s("submit"), s("submitted"), 2, 1, true),
            (s("turns"), s("tested"), 0, 4, true),
            (s("budget"), s("tested"), 0, 2, false),
            (s("answer"), s("code_block"), 0, 1, true),
            (s("answer"), s("none"), 0, 1, false),
        ]
    );
    // Held-out: instance 0 probed "ab", one of its three held-out inputs.
    let e0 = &inter.episodes[0];
    assert_eq!((e0.heldout_unprobed, e0.heldout_excluded), (2, 1));
    assert_eq!(e0.heldout_pass, Some(true));
    assert_eq!(inter.summary.heldout_excluded, 1);
    assert!((inter.summary.pass_at_1 - 6.0 / 8.0).abs() < 1e-12);
    // Recovered@1 and behaviour, exactly as brute-force enumeration of each instance's
    // input space counts them: 0–4 and 6 end with the gold, 5 with a wrong cascade, 7
    // with none (the identity).
    for e in &inter.episodes {
        let inst = insts.iter().find(|i| i.id == e.instance_id).unwrap();
        let (recovered, behaviour) = brute_behaviour(inst, &e.final_cascade);
        assert_eq!(e.recovered, Some(recovered), "{}", e.instance_id);
        assert!(
            (e.behaviour.unwrap() - behaviour).abs() < 1e-12,
            "{}: {:?} vs {behaviour}",
            e.instance_id,
            e.behaviour
        );
    }
    let recovered: Vec<bool> = inter
        .episodes
        .iter()
        .map(|e| e.recovered.unwrap())
        .collect();
    assert_eq!(
        recovered,
        [true, true, true, true, true, false, true, false]
    );
    assert_eq!(inter.episodes[7].behaviour, Some(0.0));
    assert!((inter.summary.recovered_at_1.unwrap() - 6.0 / 8.0).abs() < 1e-12);
    let mean = inter
        .episodes
        .iter()
        .map(|e| e.behaviour.unwrap())
        .sum::<f64>()
        / 8.0;
    assert!((inter.summary.mean_behaviour.unwrap() - mean).abs() < 1e-12);
    assert_eq!(inter.summary.undecided, 0);
    assert!(
        inter.to_string().contains("Recovered@1      0.7500"),
        "{inter}"
    );
    // The shared scoring path scores the final cascades, without held-out examples.
    assert!((out.results.overall().best_of_k - 6.0 / 8.0).abs() < 1e-12);
    assert_eq!(out.results.overall().heldout_pass, None);

    // Every turn is stored, one request per turn.
    let store = RunStore::open_existing(&run).unwrap();
    let turns: u32 = inter.episodes.iter().map(|e| e.turns).sum();
    assert_eq!(server.chat_requests(), turns as usize);
    let t1 = store.turns(&insts[1].id, 0).unwrap();
    assert_eq!(t1.len(), 2);
    let said = t1[0].results[0]["content"].as_str().unwrap();
    assert!(said.contains("not valid JSON"), "{said}");
    assert_eq!(t1[0].results[0]["tool_call_id"], "call_0");
    // A null content goes back as "" (llama.cpp's Python server refuses null).
    assert_eq!(t1[0].assistant["content"], "");
    let t2 = store.turns(&insts[2].id, 0).unwrap();
    assert!(t2[0].results[0]["content"]
        .as_str()
        .unwrap()
        .contains("unknown tool 'rm_rf'"));
    let t3 = store.turns(&insts[3].id, 0).unwrap();
    let ids: Vec<&str> = t3[0]
        .results
        .iter()
        .map(|r| r["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_0", "call_1", "call_2"]);
    let feedback: serde_json::Value =
        serde_json::from_str(t3[0].results[1]["content"].as_str().unwrap()).unwrap();
    assert_eq!(feedback["checked"], 6, "4 visible examples and 2 probes");
    assert!(
        !feedback["wrong"].as_array().unwrap().is_empty(),
        "{feedback}"
    );
    let t5 = store.turns(&insts[5].id, 0).unwrap();
    assert!(t5[1].results[0]["content"]
        .as_str()
        .unwrap()
        .contains("only 6"));
    assert_eq!(t1[0].usage.completion_tokens, Some(20));

    // The transcript shows the calls and their results.
    let shown = pbebench_eval::transcript::render(&run, &insts[0].id, 0).unwrap();
    assert!(
        shown.contains("call run_hidden({\"inputs\": [\"ab\"]})"),
        "{shown}"
    );
    assert!(
        shown.contains("ended: submit after 3 turns · 1 probes"),
        "{shown}"
    );
    assert!(!shown.contains("SECRET"));

    // Rescoring sends nothing and gives the same grades.
    drop(server);
    let again = rescore(&run, None, BlockChoice::Last, None).unwrap();
    assert_eq!(again.interactive.as_ref().unwrap(), inter);
    // A second run of the same command has nothing to do.
    let server = MockServer::start(scripted(&insts));
    let mut config = config.clone();
    chat(&mut config).base_urls = vec![server.base_url()];
    let out = evaluate(&config).unwrap();
    assert_eq!((out.added, server.chat_requests()), (0, 0));
}

/// Every turn of an episode reserves its worst case against `--max-cost`, so the cap holds
/// with episodes in flight.
#[test]
fn the_budget_holds_turn_by_turn() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(8);
    let dataset = write_dataset(dir.path(), &insts);
    // A model that always writes max_tokens (1000) tokens and never submits.
    let server = MockServer::start(|_| {
        Reply::tool_calls(None, &[("run_hidden", r#"{"inputs": ["a"]}"#)])
            .using(1000)
            .after(Duration::from_millis(20))
    });
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[server.base_url()]);
    config.concurrency = 4;
    config.prices = pbebench_eval::Prices {
        input: 0.0,
        output: 100.0,
    };
    config.max_cost = Some(0.35); // 0.1 per turn
    let out = evaluate(&config).unwrap();
    assert!(
        matches!(out.stopped, Some(pbebench_eval::StopReason::Budget { .. })),
        "{:?}",
        out.stopped
    );
    assert_eq!(server.chat_requests(), 3);
    let store = RunStore::open_existing(&run).unwrap();
    let spent: u64 = (0..insts.len())
        .flat_map(|i| store.turns(&insts[i].id, 0).unwrap())
        .map(|t| t.usage.completion_tokens.unwrap())
        .sum();
    assert!(spent as f64 * 100.0 / 1e6 <= 0.35 + 1e-12, "{spent}");
}

#[test]
fn the_text_protocol_uses_fenced_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(3);
    let dataset = write_dataset(dir.path(), &insts);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = {
        let (insts, seen) = (insts.clone(), seen.clone());
        MockServer::start(move |req| {
            assert!(
                req.json().get("tools").is_none(),
                "no tools in the text protocol"
            );
            let i = episode_instance(&insts, req);
            if req.turn() == 0 {
                Reply::answer("First a probe.\n```run_hidden\n[\"ab\", \"kk\"]\n```")
            } else {
                let last = req.messages().last().unwrap()["content"].clone();
                seen.lock().unwrap().push(last.as_str().unwrap().to_owned());
                Reply::answer(&format!("```submit\n{}\n```", gold_rules(&insts[i])))
            }
        })
    };
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[server.base_url()]);
    config.interactive.as_mut().unwrap().tool_protocol = ToolProtocol::Text;
    let out = evaluate(&config).unwrap();
    let inter = out.interactive.unwrap();
    assert!(inter
        .episodes
        .iter()
        .all(|e| e.pass && e.end_reason == "submit" && e.probes_used == 2));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert!(
        seen[0].starts_with("```result\n{\"budget_left\":4,\"outputs\":["),
        "{}",
        seen[0]
    );
}

#[test]
fn a_solver_program_speaks_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(6);
    let dataset = write_dataset(dir.path(), &insts);
    let solver = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/probe_solver.py");
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command: format!("python3 {}", solver.display()),
        timeout: Duration::from_secs(30),
    });
    config.interactive.as_mut().unwrap().probe_budget = 40;
    config.concurrency = 2;
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    let inter = out.interactive.unwrap();
    for e in &inter.episodes {
        assert_eq!(
            (e.end_reason.as_str(), e.turns, e.probes_used),
            ("submit", 3, 17),
            "{e:?}"
        );
        assert!(e.pass, "{e:?}");
    }
    let store = RunStore::open_existing(&run).unwrap();
    let turns = store.turns(&insts[0].id, 0).unwrap();
    assert!(turns[0].assistant.get("probe").is_some());
    assert_eq!(
        turns[1].results[0]["passed"],
        4 + 17,
        "visible and probed examples"
    );

    // A program that fails before it submits gave no answer.
    let run2 = dir.path().join("run2");
    let mut failing = config.clone();
    failing.run_dir = run2.clone();
    failing.solver = SolverSpec::Command(SolverCommand {
        command: "read task; echo '{\"probe\": [\"a\"]}'; read reply; exit 3".into(),
        timeout: Duration::from_secs(10),
    });
    let out = evaluate(&failing).unwrap();
    assert_eq!(out.results.answered, 0);
    assert!(stored_rows(&run2).iter().all(|r| r.2 == "failed"));
}

/// One grade whatever the mode (issue 37): the same final answers, some with rules that
/// break the instance's limits, get the same pass, held-out pass, Recovered@1 and
/// behaviour from static scoring (`score_instance` of the answer's text), from the
/// episode's grade, from the core's grade (`pbebench::probe::grade`, what Python's
/// `Oracle.grade` calls) and in the run's table; and the run's summary agrees with its
/// table.
#[test]
fn every_mode_grades_an_answer_alike() {
    use pbebench::{render_answer, score_instance, Cascade, ScoreOptions};
    let dir = tempfile::tempdir().unwrap();
    let mut insts = instances(5);
    for inst in &mut insts {
        let gold = inst.cascade.clone().unwrap();
        inst.heldout_inputs = vec!["ka".into(), "aak".into(), "bab".into()];
        inst.heldout_outputs = gold.apply_all(&inst.heldout_inputs);
    }
    let gold = |i: usize| insts[i].cascade.clone().unwrap();
    let x = |i: usize| gold(i).rules()[0].replacement().to_owned();
    let pairs = |c: &Cascade| -> Vec<(String, String)> {
        c.rules()
            .iter()
            .map(|r| (r.pattern().to_owned(), r.replacement().to_owned()))
            .collect()
    };
    let cascade = |rules: Vec<(String, String)>| {
        let rules: Vec<(&str, &str)> = rules.iter().map(|(a, b)| (&**a, &**b)).collect();
        Cascade::from_pairs(&rules).unwrap()
    };
    // Instance 1's gold is a → X alone.
    let answers: Vec<Cascade> = vec![
        // 0: the gold (the program also probes one held-out input).
        gold(0),
        // 1: two over-long rules that, whole, do what the gold does.
        cascade(vec![("a".into(), "uuuu".into()), ("uuuu".into(), x(1))]),
        // 2: the gold after five rules that change nothing: past the cap of 5.
        cascade(
            ["b", "c", "d", "e", "f"]
                .iter()
                .map(|l| (l.to_string(), l.to_string()))
                .chain(pairs(&gold(2)))
                .collect(),
        ),
        // 3: the gold with an over-long rule in the middle (left out, harmlessly).
        cascade(
            pairs(&gold(3))
                .into_iter()
                .chain([("zzzz".to_string(), "y".to_string())])
                .collect(),
        ),
        // 4: nothing.
        Cascade::identity(),
    ];
    // Rules 1 and 2 would pass every example if their invalid rules counted.
    for i in [1, 2] {
        let raw = &answers[i];
        let inst = &insts[i];
        assert!(
            (inst.inputs.iter().zip(&inst.outputs))
                .chain(inst.heldout_inputs.iter().zip(&inst.heldout_outputs))
                .all(|(a, b)| &raw.apply(a) == b),
            "answer {i} must pass as a whole for the test to mean anything"
        );
    }
    let by_id: serde_json::Map<String, serde_json::Value> = insts
        .iter()
        .zip(&answers)
        .map(|(inst, a)| (inst.id.clone(), serde_json::to_value(pairs(a)).unwrap()))
        .collect();
    let answers_file = dir.path().join("answers.json");
    std::fs::write(&answers_file, serde_json::to_string(&by_id).unwrap()).unwrap();
    let program = format!(
        "import json, sys\n\
         t = json.loads(sys.stdin.readline())['task']\n\
         answer = json.load(open({:?}))[t['id']]\n\
         def ask(r):\n    print(json.dumps(r), flush=True)\n    return json.loads(sys.stdin.readline())\n\
         if t['id'] == {:?}:\n    ask({{'probe': ['ka']}})\n\
         print(json.dumps(ask({{'test': answer}})), file=sys.stderr)\n\
         ask({{'submit': answer}})\n",
        answers_file.display().to_string(),
        insts[0].id
    );
    let script = dir.path().join("answers.py");
    std::fs::write(&script, program).unwrap();
    let dataset = write_dataset(dir.path(), &insts);
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command: format!("python3 {}", script.display()),
        timeout: Duration::from_secs(30),
    });
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    let inter = out.interactive.as_ref().unwrap();
    let rows = RunStore::open_existing(&run).unwrap().episodes().unwrap();
    assert_eq!(inter.episodes.len(), insts.len());
    for (i, inst) in insts.iter().enumerate() {
        let e = &inter.episodes[i];
        assert_eq!(e.instance_id, inst.id);
        assert_eq!(
            e.final_cascade, answers[i],
            "the record keeps what was submitted"
        );
        let probes: Vec<pbebench::probe::Probe> =
            serde_json::from_value(rows[i].probes.clone()).unwrap();
        let core = pbebench::probe::grade(inst, &e.final_cascade, &probes);
        let stat = score_instance(
            inst,
            &[render_answer(&answers[i])],
            &ScoreOptions::default(),
        );
        let table = &out.results.instances[i];
        let episode = (e.pass, e.heldout_pass, e.recovered, e.behaviour);
        assert_eq!(
            episode,
            (core.pass, core.heldout_pass, core.recovered, core.behaviour),
            "{i}"
        );
        assert_eq!(
            (e.pass, e.recovered, e.behaviour),
            (stat.pass, stat.recovered, stat.behaviour),
            "{i}"
        );
        assert_eq!(
            (e.pass, e.recovered, e.behaviour),
            (table.pass, table.recovered, table.behaviour),
            "{i}"
        );
        if probes.is_empty() {
            assert_eq!(e.heldout_pass, stat.heldout_pass, "{i}");
        }
        assert_eq!(table.heldout_pass, None, "held-out pass is the episodes'");
    }
    let passed: Vec<bool> = inter.episodes.iter().map(|e| e.pass).collect();
    assert_eq!(passed, [true, false, false, true, false]);
    assert_eq!(inter.episodes[0].heldout_excluded, 1);
    assert_eq!(inter.episodes[1].heldout_pass, Some(false));
    // The summary is the table's.
    let overall = out.results.overall();
    let close = |a: Option<f64>, b: Option<f64>| (a.unwrap() - b.unwrap()).abs() < 1e-12;
    let summary = &inter.summary;
    assert!(close(
        Some(summary.pass_at_1),
        overall.pass_at_k.get(&1).copied()
    ));
    assert!(close(summary.recovered_at_1, overall.recovered));
    assert!(close(summary.mean_behaviour, overall.behaviour));
}

/// Issue 37: a protocol line longer than `MAX_RESPONSE_BYTES` (here one that never ends)
/// fails the episode with that reason, the program is stopped long before the timeout,
/// and nothing of the line is kept: the run store stays small.
#[test]
fn a_protocol_line_past_the_cap_fails_the_episode() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(3);
    let dataset = write_dataset(dir.path(), &insts);
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command: "read task; echo '{\"probe\": [\"a\"]}'; read reply; yes | tr -d '\\n'".into(),
        // Far longer than the test takes: a timeout would say the cap did not stop it.
        timeout: Duration::from_secs(300),
    });
    let out = evaluate(&config).unwrap();
    assert_eq!(out.results.answered, 0);
    assert!(out.interactive.unwrap().episodes.is_empty());
    let store = RunStore::open_existing(&run).unwrap();
    let samples = store.samples().unwrap();
    assert_eq!(samples.len(), insts.len());
    for s in &samples {
        assert_eq!(s.status, pbebench_eval::Status::Failed, "{s:?}");
        let error = s.error.as_deref().unwrap();
        assert!(
            error.starts_with("message 2: the program wrote a line longer than 512 KiB"),
            "{error}"
        );
    }
    drop(store);
    let size: u64 = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(
        size < pbebench_eval::MAX_RESPONSE_BYTES as u64,
        "the run store holds {size} bytes"
    );
}

/// `--max-probe-len`: the program is told the length, and a probe that long is run; the
/// default oracle refuses it and counts nothing.
#[test]
fn the_probe_length_is_the_runs_choice() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(2);
    let dataset = write_dataset(dir.path(), &insts);
    // Probes one input as long as the task says it may be, then submits nothing.
    let program = "import json, sys\n\
        t = json.loads(sys.stdin.readline())['task']\n\
        print(json.dumps({'probe': [t['alphabet'][0] * 100]}), flush=True)\n\
        print(t['max_probe_len'], json.loads(sys.stdin.readline()), file=sys.stderr)\n\
        print(json.dumps({'submit': []}), flush=True)\n";
    let script = dir.path().join("long_probe.py");
    std::fs::write(&script, program).unwrap();
    let episodes = |probe_len: usize, name: &str| {
        let mut config = interactive_config(&dataset, &dir.path().join(name), &[]);
        config.solver = SolverSpec::Command(SolverCommand {
            command: format!("python3 {}", script.display()),
            timeout: Duration::from_secs(30),
        });
        config.interactive.as_mut().unwrap().probe_len = probe_len;
        let out = evaluate(&config).unwrap();
        assert!(out.complete(), "{}", out.results);
        let store = RunStore::open_existing(&dir.path().join(name)).unwrap();
        let answer = store.manifest().unwrap().unwrap().answer;
        (
            out.interactive.unwrap().episodes,
            answer["interactive"].clone(),
        )
    };
    let (long, params) = episodes(100, "long");
    assert!(long.iter().all(|e| e.probes_used == 1), "{long:?}");
    assert_eq!(params["max_probe_len"], 100, "{params}");
    // The default is not written, so that runs made before the option continue.
    let (short, params) = episodes(pbebench::probe::DEFAULT_PROBE_LEN, "default");
    assert!(short.iter().all(|e| e.probes_used == 0), "{short:?}");
    assert!(params.get("max_probe_len").is_none(), "{params}");
}

// ---------------------------------------------------------------------------------------
// kill -9 mid-episode

const CHILD_ENV: &str = "PBEBENCH_INTERACTIVE_CHILD";
/// The test that runs [`child_runner`] instead when [`CHILD_ENV`] is set.
const CHILD_TEST: &str = "kill_dash_nine_mid_episode_resumes_without_asking_a_stored_turn_again";

fn resume_config(dataset: &Path, run: &Path, url: &str) -> EvalConfig {
    let mut config = interactive_config(dataset, run, &[url.to_owned()]);
    config.concurrency = 4;
    config.interactive.as_mut().unwrap().max_turns = 6;
    config
}

/// The runner process that the resume test starts and kills: the test binary re-executed
/// on the resume test with [`CHILD_ENV`] set to what it runs (`spec`), so that it is no
/// test of its own.
fn child_runner(spec: &str) {
    let spec: serde_json::Value = serde_json::from_str(spec).unwrap();
    let p = |k: &str| Path::new(spec[k].as_str().unwrap()).to_path_buf();
    evaluate(&resume_config(
        &p("dataset"),
        &p("run"),
        spec["url"].as_str().unwrap(),
    ))
    .unwrap();
}

fn spawn_child(dataset: &Path, run: &Path, url: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([CHILD_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(
            CHILD_ENV,
            json!({"dataset": dataset, "run": run, "url": url}).to_string(),
        )
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn stored_turns(run: &Path) -> HashSet<(String, u32)> {
    if !run.join("run.sqlite").exists() {
        return HashSet::new();
    }
    std::panic::catch_unwind(|| {
        let conn = rusqlite::Connection::open(run.join("run.sqlite")).unwrap();
        conn.busy_timeout(Duration::from_secs(10)).unwrap();
        let mut stmt = conn.prepare("SELECT instance_id, turn FROM turns").unwrap();
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    })
    .unwrap_or_default()
}

/// How many replies the mock server may send (the gate), and how many requests have
/// arrived (each takes the next ticket): a request whose ticket is past the gate waits, so
/// a runner stops making progress where the test says, whatever the machine's load.
#[derive(Default)]
struct Gate {
    open: AtomicUsize,
    tickets: AtomicUsize,
}

impl Gate {
    /// Waits until this request may be answered.
    fn pass(&self) {
        let ticket = self.tickets.fetch_add(1, SeqCst);
        while ticket >= self.open.load(SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Lets the first `n` requests through and runs `child` until each of its `workers`
    /// waits at the gate (so every answered turn is stored), then kills it (SIGKILL).
    fn run_until_blocked(&self, n: usize, workers: usize, mut child: Child) {
        self.open.store(n, SeqCst);
        let t0 = Instant::now();
        while self.tickets.load(SeqCst) < n + workers && child.try_wait().unwrap().is_none() {
            assert!(t0.elapsed() < Duration::from_secs(60), "no progress");
            std::thread::sleep(Duration::from_millis(2));
        }
        // A worker commits its turn before it asks for the next one; give the last
        // commits of the other workers a moment.
        std::thread::sleep(Duration::from_millis(50));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

#[test]
fn kill_dash_nine_mid_episode_resumes_without_asking_a_stored_turn_again() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        return child_runner(&spec);
    }
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(12);
    let dataset = write_dataset(dir.path(), &insts);
    // Every episode probes one input per turn and submits at its fifth turn; the server
    // answers only as many requests as the gate lets through, so each kill lands mid-run.
    let log: Arc<Mutex<Vec<(String, u32)>>> = Arc::default();
    let gate: Arc<Gate> = Arc::default();
    let server = {
        let (insts, log, gate) = (insts.clone(), log.clone(), gate.clone());
        MockServer::start(move |req| {
            gate.pass();
            let i = episode_instance(&insts, req);
            let turn = req.turn();
            log.lock().unwrap().push((insts[i].id.clone(), turn as u32));
            if turn < 4 {
                Reply::tool_calls(
                    None,
                    &[(
                        "run_hidden",
                        &format!("{{\"inputs\": [\"{}\"]}}", "a".repeat(turn + 1)),
                    )],
                )
            } else {
                Reply::tool_calls(None, &[("submit", &submit(&insts[i]))])
            }
        })
    };
    let run = dir.path().join("run");
    let total_turns = insts.len() * 5;
    let workers = resume_config(&dataset, &run, &server.base_url()).concurrency;
    let mut kills_mid_run = 0;
    // Replies the server may have sent in all, at each kill: the dead runner's requests
    // that wait at the gate take the first tickets after it.
    let mut open = 0;
    for step in [8, 17, 20] {
        open += step;
        gate.run_until_blocked(
            open,
            workers,
            spawn_child(&dataset, &run, &server.base_url()),
        );
        let stored = stored_turns(&run);
        if stored.len() < total_turns {
            kills_mid_run += 1;
        }
        // From here on, no stored turn may be asked for again. The dead runner's waiting
        // requests are for turns it had not stored.
        let seen_at_kill = log.lock().unwrap().len();
        open += workers + 5;
        gate.run_until_blocked(
            open,
            workers,
            spawn_child(&dataset, &run, &server.base_url()),
        );
        let asked: Vec<(String, u32)> = log.lock().unwrap()[seen_at_kill..].to_vec();
        assert!(!asked.is_empty(), "the next runner asked for nothing");
        for key in &asked {
            assert!(
                !stored.contains(key),
                "{key:?} was stored, and asked for again"
            );
        }
    }
    assert!(
        kills_mid_run >= 2,
        "the runner finished before it could be killed"
    );
    gate.open.store(usize::MAX, SeqCst);

    // Continue to the end in this process.
    let out = evaluate(&resume_config(&dataset, &run, &server.base_url())).unwrap();
    assert!(out.complete(), "{}", out.results);
    let inter = out.interactive.unwrap();
    assert_eq!(inter.summary.episodes, insts.len());
    for e in &inter.episodes {
        assert_eq!(
            (e.end_reason.as_str(), e.turns, e.probes_used),
            ("submit", 5, 4),
            "{e:?}"
        );
        assert!(e.pass);
    }
    assert_eq!(stored_turns(&run).len(), total_turns);
    // Every stored turn was asked for once, except those lost in flight at a kill.
    let mut count: HashMap<(String, u32), usize> = HashMap::new();
    for key in log.lock().unwrap().iter() {
        *count.entry(key.clone()).or_default() += 1;
    }
    let repeated: usize = count.values().map(|n| n - 1).sum();
    assert!(repeated <= 6 * 2 * 4, "{repeated} turns asked for again");
}
