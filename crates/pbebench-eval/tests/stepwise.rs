//! Step-wise search (`--strategy stepwise`) against the mock server: scripted chunks over
//! several steps, selection by each criterion, malformed chunks, the rule cap refused
//! before anything is sent, and `kill -9` mid-step resumed with nothing asked twice.

mod support;

use pbebench::{Cascade, Instance, RelationMode, Rule};
use pbebench_eval::{
    evaluate, EvalConfig, EvalError, Field, Problem, RunResultsFile, Select, StepwiseSpec,
};
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

/// The step a request asks for (1-based), read from its prompt.
fn step_of(req: &MockRequest) -> usize {
    let prompt = req.prompt().expect("a chat request");
    let rest = prompt.split("This is step ").nth(1).expect("a step prompt");
    rest.split(' ').next().unwrap().parse().unwrap()
}

fn answer(rules: &[(&str, &str)]) -> String {
    format!(
        "My rules:\n{}\n",
        pbebench::render_answer(&Cascade::from_pairs(rules).unwrap())
    )
}

fn stepwise_config(
    dataset: &Path,
    run: &Path,
    url: &str,
    (step_rules, steps, samples): (usize, u32, u32),
    select: Select,
) -> EvalConfig {
    let mut config = chat_config(dataset, run, &[url.to_owned()]);
    config.samples = samples;
    config.stepwise = Some(StepwiseSpec {
        step_rules,
        steps,
        select,
    });
    config
}

/// The gold rules of `inst` as (pattern, replacement) pairs.
fn gold(inst: &Instance) -> Vec<(String, String)> {
    let c = inst.cascade.as_ref().unwrap();
    (c.rules().iter())
        .map(|r| (r.pattern().to_owned(), r.replacement().to_owned()))
        .collect()
}

fn pairs(rules: &[(String, String)]) -> Vec<(&str, &str)> {
    rules
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

#[test]
fn scripted_chunks_build_the_cascade_step_by_step_and_stop_when_every_example_is_right() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(4); // even ones: two gold rules; odd ones: one
    let dataset = write_dataset(dir.path(), &insts);
    let log: Arc<Mutex<Vec<(usize, usize)>>> = Arc::default();
    let server = {
        let (insts, log) = (insts.clone(), log.clone());
        MockServer::start(move |req| {
            let (i, step) = (episode_instance(&insts, req), step_of(req));
            log.lock().unwrap().push((i, step));
            // One gold rule per step: the second step starts from the first rule's forms.
            let rules = gold(&insts[i]);
            let prompt = req.prompt().unwrap();
            if step == 2 {
                let first = insts[i].cascade.as_ref().unwrap().rules()[..1].to_vec();
                let forms = Cascade::new(first).apply_all(&insts[i].inputs);
                assert!(
                    prompt.contains(&format!(
                        "Current forms:\n{}\n",
                        pbebench::pylit::repr_list(&forms)
                    )),
                    "{prompt}"
                );
                assert!(
                    prompt.contains("Rules chosen so far:\n[\"replace("),
                    "{prompt}"
                );
            }
            Reply::answer_with_usage(&answer(&pairs(&rules[step - 1..step])), 50, 10)
        })
    };
    let run = dir.path().join("run");
    let config = stepwise_config(
        &dataset,
        &run,
        &server.base_url(),
        (1, 3, 1),
        Select::SoftPass,
    );
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.total, insts.len(), "one answer per instance");
    assert_eq!(out.results.overall().best_of_k, 1.0, "{}", out.results);
    // Two steps for the two-rule instances, one for the others; never a third.
    let asked = log.lock().unwrap().clone();
    for (i, inst) in insts.iter().enumerate() {
        let steps: Vec<usize> = asked.iter().filter(|a| a.0 == i).map(|a| a.1).collect();
        assert_eq!(steps, (1..=gold(inst).len()).collect::<Vec<_>>(), "{i}");
    }
    // The tokens of every step sample count, as they would for any run.
    let requests = asked.len() as u64;
    assert_eq!(
        (out.results.prompt_tokens, out.results.completion_tokens),
        (50 * requests, 10 * requests)
    );
    let file = RunResultsFile::from_json(
        &std::fs::read_to_string(run.join(pbebench_eval::RESULTS_FILE)).unwrap(),
    )
    .unwrap();
    assert_eq!(file.strategy.as_deref(), Some("stepwise"));
    assert_eq!(
        file.stepwise,
        Some(json!({"step_rules": 1, "steps": 3, "samples": 1, "select": "soft-pass"}))
    );
    let run_figures = file.results.run.unwrap();
    assert_eq!(run_figures.tokens.completion, 10 * requests);

    // The final answer is the concatenation of the chosen chunks.
    let store = pbebench_eval::store::RunStore::open_existing(&run).unwrap();
    let samples = store.samples().unwrap();
    let s0 = samples
        .iter()
        .find(|s| s.instance_id == insts[0].id)
        .unwrap();
    assert_eq!(
        s0.content.as_deref(),
        Some(pbebench::render_answer(insts[0].cascade.as_ref().unwrap()).as_str())
    );
    assert_eq!(s0.finish_reason.as_deref(), Some("solved"));
    let turns = store.turns(&insts[0].id, 0).unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[1].results[0]["step"], 1);
    // `pbebench show` prints the step samples, then the answer.
    let shown = pbebench_eval::transcript::render(&run, &insts[0].id, 0).unwrap();
    assert!(shown.contains("── turn 2"), "{shown}");
    assert!(shown.contains("answer (ok)"), "{shown}");
    assert!(!shown.contains("unfinished"), "{shown}");

    // A rescore reads the same figures from the store alone.
    let again = pbebench_eval::rescore(&run, None, pbebench_eval::BlockChoice::Last, None).unwrap();
    assert_eq!(again.total, insts.len());
    assert_eq!(again.results.scores.summary, out.results.scores.summary);
    assert_eq!(again.strategy, out.strategy);
    // Re-running the command asks for nothing.
    let before = server.chat_requests();
    let rerun = evaluate(&config).unwrap();
    assert_eq!((rerun.added, server.chat_requests()), (0, before));
}

/// One instance whose first step divides the criteria: a chunk that gets one example
/// right (soft pass 1/3, Edit_Sim 1/3) against one that gets two examples closer
/// (soft pass 0, Edit_Sim 1/2).
fn dividing_instance() -> Instance {
    let gold = Cascade::new(vec![Rule::new("a", "b").unwrap()]);
    let inputs: Vec<String> = vec!["aaaa".into(), "aaaa".into(), "ab".into()];
    Instance {
        id: "divide".into(),
        outputs: gold.apply_all(&inputs),
        inputs,
        cascade_len: 1,
        cascade: Some(gold),
        category: None,
        relations_mode: RelationMode::default(),
        max_rules: 4,
        max_rule_len: 3,
        alphabet: "ab".into(),
        heldout_inputs: Vec::new(),
        heldout_outputs: Vec::new(),
        interactions: Vec::new(),
        symbols: Default::default(),
    }
}

/// Runs the dividing instance with K = 3 (a malformed answer, the one-example chunk, the
/// closer chunk, in that order at the first step) and returns the final cascade.
fn divided(select: Select) -> (Vec<(String, String)>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let dataset = write_dataset(dir.path(), &[dividing_instance()]);
    let first_step = AtomicUsize::new(0);
    let server = MockServer::start(move |req| match step_of(req) {
        1 => match first_step.fetch_add(1, SeqCst) {
            0 => Reply::answer("```python\n[\"replace('a', \n```"),
            1 => Reply::answer(&answer(&[("ab", "bb")])),
            _ => Reply::answer(&answer(&[("aaa", "bbb")])),
        },
        _ => Reply::answer(&answer(&[("a", "b")])),
    });
    let run = dir.path().join("run");
    let config = stepwise_config(&dataset, &run, &server.base_url(), (1, 2, 3), select);
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    assert_eq!(
        out.results.overall().best_of_k,
        1.0,
        "{select}: {}",
        out.results
    );
    let store = pbebench_eval::store::RunStore::open_existing(&run).unwrap();
    let content = store.samples().unwrap()[0].content.clone().unwrap();
    let parsed = pbebench::parse_response(
        &content,
        &pbebench::RuleLimits::unlimited(),
        pbebench::BlockChoice::Last,
    );
    let rules = (parsed.cascade().rules().iter())
        .map(|r| (r.pattern().to_owned(), r.replacement().to_owned()))
        .collect();
    (rules, server.chat_requests())
}

#[test]
fn each_criterion_keeps_its_own_best_and_a_malformed_chunk_is_no_progress() {
    let own = |rules: &[(&str, &str)]| -> Vec<(String, String)> {
        rules
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let (soft, asked) = divided(Select::SoftPass);
    assert_eq!(soft, own(&[("ab", "bb"), ("a", "b")]));
    assert_eq!(asked, 6, "K samples at each of the two steps");
    let (sim, _) = divided(Select::EditSim);
    assert_eq!(sim, own(&[("aaa", "bbb"), ("a", "b")]));
}

#[test]
fn chunks_that_never_parse_leave_the_identity_after_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(3);
    let dataset = write_dataset(dir.path(), &insts);
    let server = MockServer::start(|req| match step_of(req) {
        1 => Reply::answer("I cannot see a pattern."),
        2 => Reply::answer("```python\n[\"replace('a')\", 42]\n```"),
        _ => Reply::answer("```python\n[\"replace('Q', 'a')\"]\n```"), // outside the alphabet
    });
    let run = dir.path().join("run");
    let config = stepwise_config(
        &dataset,
        &run,
        &server.base_url(),
        (1, 3, 2),
        Select::EditSim,
    );
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(server.chat_requests(), insts.len() * 3 * 2);
    assert_eq!(out.results.overall().best_of_k, 0.0);
    let store = pbebench_eval::store::RunStore::open_existing(&run).unwrap();
    for s in store.samples().unwrap() {
        assert_eq!(s.content.as_deref(), Some("```python\n[]\n```"));
        assert_eq!(s.finish_reason.as_deref(), Some("steps"));
    }
}

#[test]
fn a_search_that_could_pass_the_rule_cap_is_refused_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut insts = instances(3);
    insts[1].max_rules = 4; // the others allow 5
    let dataset = write_dataset(dir.path(), &insts);
    let server = MockServer::start(|_| Reply::answer("```python\n[]\n```"));
    let run = dir.path().join("run");
    let config = stepwise_config(
        &dataset,
        &run,
        &server.base_url(),
        (2, 3, 1),
        Select::SoftPass,
    );
    let Err(EvalError::Config(e)) = evaluate(&config) else {
        panic!("a search of 6 rules over a cap of 4 is accepted")
    };
    assert_eq!(e.field, Field::StepRules);
    assert!(
        matches!(e.problem, Problem::OverRuleCap { cap: 4, .. }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "stepwise.step_rules 2 × stepwise.steps 3 = 6 rules passes the rule cap: instance \
         inst-001 allows 4 rules (max_rules); lower stepwise.step_rules or stepwise.steps so \
         that their product is at most 4"
    );
    assert_eq!(server.chat_requests(), 0);
    assert!(!run.join("run.sqlite").exists(), "nothing was started");
    // Zero steps or zero rules are refused by the configuration's own check.
    let mut zero = stepwise_config(
        &dataset,
        &run,
        &server.base_url(),
        (0, 1, 1),
        Select::SoftPass,
    );
    assert_eq!(zero.check().unwrap_err().field, Field::StepRules);
    zero.stepwise.as_mut().unwrap().step_rules = 1;
    zero.stepwise.as_mut().unwrap().steps = 0;
    assert_eq!(zero.check().unwrap_err().field, Field::Steps);
}

#[test]
fn a_solver_program_answers_each_step_from_the_current_forms() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(2);
    let dataset = write_dataset(dir.path(), &insts);
    // The program records what it read and answers by the step it is given:
    // replace('a', 'b') at the first, replace('b', 'k') at the second (inst-000's gold).
    let script = dir.path().join("step.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nline=$(cat)\necho \"$line\" >> \"$(dirname \"$0\")/seen.jsonl\"\n\
         case \"$line\" in\n*'\"step\":0'*) rule=\"'a', 'b'\";;\n*) rule=\"'b', 'k'\";;\nesac\n\
         printf '```python\\n[\"replace(%s)\"]\\n```\\n' \"$rule\"\n",
    )
    .unwrap();
    let mut config = chat_config(&dataset, &dir.path().join("run"), &[]);
    config.solver = pbebench_eval::SolverSpec::Command(pbebench_eval::SolverCommand {
        command: format!("sh '{}'", script.display()),
        timeout: Duration::from_secs(20),
    });
    config.stepwise = Some(StepwiseSpec {
        step_rules: 1,
        steps: 2,
        select: Select::SoftPass,
    });
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    let seen: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join("seen.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let inst1: Vec<&serde_json::Value> = seen.iter().filter(|v| v["id"] == "inst-001").collect();
    assert_eq!(inst1.len(), 2);
    assert_eq!(inst1[0]["max_rules"], 1);
    assert_eq!(inst1[0]["inputs"], json!(insts[1].inputs));
    assert_eq!(inst1[0]["original_inputs"], json!(insts[1].inputs));
    let inst0: Vec<&serde_json::Value> = seen.iter().filter(|v| v["id"] == "inst-000").collect();
    assert_eq!(inst0.len(), 2);
    let after = Cascade::from_pairs(&[("a", "b")])
        .unwrap()
        .apply_all(&insts[0].inputs);
    assert_eq!(inst0[1]["inputs"], json!(after));
    assert_eq!(inst0[1]["chosen"], json!([["a", "b"]]));
    assert_eq!(out.results.overall().best_of_k, 0.5);
}

#[test]
fn a_search_runs_with_a_changed_spec_only_with_force_new() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(2);
    let dataset = write_dataset(dir.path(), &insts);
    // Every step fails: the searches stay unfinished, with their first step samples stored.
    let calls = AtomicUsize::new(0);
    let server = MockServer::start(move |_| {
        if calls.fetch_add(1, SeqCst).is_multiple_of(2) {
            Reply::answer("```python\n[]\n```")
        } else {
            Reply::json(400, json!({"error": {"message": "no"}}))
        }
    });
    let run = dir.path().join("run");
    let mut config = stepwise_config(
        &dataset,
        &run,
        &server.base_url(),
        (1, 2, 2),
        Select::SoftPass,
    );
    config.concurrency = 1;
    let out = evaluate(&config).unwrap();
    assert_eq!(out.results.answered, 0);
    // As a kill mid-step leaves it: step samples stored, no sample of an instance.
    let conn = rusqlite::Connection::open(run.join("run.sqlite")).unwrap();
    conn.execute("DELETE FROM samples", []).unwrap();
    let turns: usize = conn
        .query_row("SELECT COUNT(*) FROM turns", [], |r| r.get(0))
        .unwrap();
    assert!(turns > 0);
    drop(conn);
    let other = stepwise_config(
        &dataset,
        &run,
        &server.base_url(),
        (2, 2, 2),
        Select::SoftPass,
    );
    let Err(EvalError::Mismatch { differences, .. }) = evaluate(&other) else {
        panic!("stored step samples of another search were continued")
    };
    assert!(differences.contains("stepwise"), "{differences}");
}

// ---------------------------------------------------------------------------------------
// kill -9 mid-step

const CHILD_ENV: &str = "PBEBENCH_STEPWISE_CHILD";
/// The test that runs [`child_runner`] instead when [`CHILD_ENV`] is set.
const CHILD_TEST: &str = "kill_dash_nine_mid_step_resumes_without_asking_a_stored_sample_again";
/// Rules per step, steps, samples per step.
const SHAPE: (usize, u32, u32) = (2, 2, 3);
const WORKERS: usize = 3;

fn resume_config(dataset: &Path, run: &Path, url: &str) -> EvalConfig {
    let mut config = stepwise_config(dataset, run, url, SHAPE, Select::SoftPass);
    config.concurrency = WORKERS;
    // A request waits at the gate as long as the test makes it: never retried for that.
    chat(&mut config).timeout = Duration::from_secs(600);
    config
}

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

/// Stored step samples by (instance, step), 1-based steps.
fn stored_steps(run: &Path) -> HashMap<(String, usize), usize> {
    if !run.join("run.sqlite").exists() {
        return HashMap::new();
    }
    let conn = rusqlite::Connection::open(run.join("run.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    let Ok(mut stmt) = conn.prepare("SELECT instance_id, turn FROM turns") else {
        return HashMap::new();
    };
    let mut out = HashMap::new();
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))
        .unwrap();
    for row in rows {
        let (id, turn) = row.unwrap();
        *out.entry((id, (turn / SHAPE.2) as usize + 1)).or_default() += 1;
    }
    out
}

/// How many replies the server may send; a request past the gate waits.
#[derive(Default)]
struct Gate {
    open: AtomicUsize,
    tickets: AtomicUsize,
}

impl Gate {
    fn pass(&self) {
        let ticket = self.tickets.fetch_add(1, SeqCst);
        while ticket >= self.open.load(SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Lets the first `n` requests through, waits until each worker of `child` waits at
    /// the gate (every answered sample is then handed to the writer), and kills it. Near
    /// the end of the run fewer searches than workers are left: then it waits until no
    /// request has arrived for a while.
    fn run_until_blocked(&self, n: usize, mut child: Child) {
        self.open.store(n, SeqCst);
        let t0 = Instant::now();
        let (mut seen, mut since) = (self.tickets.load(SeqCst), Instant::now());
        loop {
            let tickets = self.tickets.load(SeqCst);
            if tickets >= n + WORKERS || child.try_wait().unwrap().is_some() {
                break;
            }
            if tickets != seen {
                (seen, since) = (tickets, Instant::now());
            } else if tickets > n && since.elapsed() > Duration::from_millis(500) {
                break;
            }
            assert!(t0.elapsed() < Duration::from_secs(60), "no progress");
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(50));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
}

#[test]
fn kill_dash_nine_mid_step_resumes_without_asking_a_stored_sample_again() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        return child_runner(&spec);
    }
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(8);
    let dataset = write_dataset(dir.path(), &insts);
    // Step 1 answers a rule that changes nothing; step 2 the gold rules.
    let log: Arc<Mutex<Vec<(String, usize)>>> = Arc::default();
    let gate: Arc<Gate> = Arc::default();
    let server = {
        let (insts, log, gate) = (insts.clone(), log.clone(), gate.clone());
        MockServer::start(move |req| {
            // Logged on arrival: a killed runner's requests waiting at the gate are logged
            // before the kill, and the next runner's after it.
            let (i, step) = (episode_instance(&insts, req), step_of(req));
            log.lock().unwrap().push((insts[i].id.clone(), step));
            gate.pass();
            match step {
                1 => Reply::answer(&answer(&[("zz", "zz")])),
                _ => Reply::answer(&gold_answer(&insts[i])),
            }
        })
    };
    let run = dir.path().join("run");
    let k = SHAPE.2 as usize;
    let total = insts.len() * SHAPE.1 as usize * k;
    let mut kills_mid_run = 0;
    let mut open = 0;
    for step in [7, 11, 13] {
        open += step;
        gate.run_until_blocked(open, spawn_child(&dataset, &run, &server.base_url()));
        let stored = stored_steps(&run);
        if stored.values().sum::<usize>() < total {
            kills_mid_run += 1;
        }
        // The next runner asks for each (instance, step) at most the samples it lacks.
        let seen_at_kill = log.lock().unwrap().len();
        open += WORKERS + 5;
        gate.run_until_blocked(open, spawn_child(&dataset, &run, &server.base_url()));
        let mut asked: HashMap<(String, usize), usize> = HashMap::new();
        for key in &log.lock().unwrap()[seen_at_kill..] {
            *asked.entry(key.clone()).or_default() += 1;
        }
        assert!(!asked.is_empty(), "the next runner asked for nothing");
        for (key, n) in &asked {
            let had = stored.get(key).copied().unwrap_or(0);
            assert!(
                had + n <= k,
                "{key:?}: {had} samples stored, and {n} more asked for"
            );
        }
    }
    assert!(
        kills_mid_run >= 2,
        "the runner finished before it could be killed"
    );
    gate.open.store(usize::MAX, SeqCst);

    let out = evaluate(&resume_config(&dataset, &run, &server.base_url())).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.results.overall().best_of_k, 1.0);
    let stored = stored_steps(&run);
    assert_eq!(stored.values().sum::<usize>(), total);
    assert!(stored.values().all(|&n| n == k), "{stored:?}");
    // Requests beyond the stored samples: only those in flight at one of the six kills
    // (waiting at the gate, or answered but not yet committed).
    let repeated = log.lock().unwrap().len() - total;
    assert!(
        repeated <= 6 * 2 * WORKERS,
        "{repeated} samples asked for again"
    );
}
