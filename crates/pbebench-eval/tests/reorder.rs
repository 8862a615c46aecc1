//! Runs on a reordering set (issue 41) against the loopback mock server: scripted gold
//! orders, reversed orders, malformed arrays, out-of-range and repeated indices, graded as
//! `pbebench score` grades them; a solver program given the problem on stdin; a resumed
//! run that requests nothing twice; `--rescore`; and interactive episodes with
//! `test_order`, over tool calls, fenced blocks and a solver program's JSON lines.

mod support;

use pbebench::reorder::{
    reorder_instance, reorder_prompt, score_order_responses, summarize_orders,
    write_order_score_lines, OrderInstanceScore, ReorderInstance,
};
use pbebench::{BlockChoice, Cascade, Instance};
use pbebench_eval::store::RunStore;
use pbebench_eval::{
    evaluate, rescore, ReorderRunFile, RunResultsFile, SolverCommand, SolverSpec, ToolProtocol,
    PER_INSTANCE_FILE, RESULTS_FILE,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use support::*;

/// `n` problems of three or four rules whose order matters (a chain `a → b → c → d`, with
/// a distinct fourth rule on every other problem), each with distinct inputs.
fn problems(n: usize) -> Vec<ReorderInstance> {
    (0..n)
        .map(|i| {
            let mut pairs = vec![("ab", "c"), ("c", "d"), ("d", "e")];
            if i % 2 == 1 {
                pairs.push(("e", "f"));
            }
            let gold = Cascade::from_pairs(&pairs).unwrap();
            let tag = "fgh".repeat(i + 1);
            let inputs = [format!("ab{tag}"), format!("c{tag}"), format!("d{tag}")];
            let inst = Instance::from_gold(format!("r{i:02}"), &inputs, gold, "abcdefgh");
            reorder_instance(&inst, i as u64).unwrap()
        })
        .collect()
}

fn write_set(dir: &Path, problems: &[ReorderInstance]) -> PathBuf {
    let path = dir.join("reorder.jsonl");
    let mut text = Vec::new();
    pbebench::reorder::write_reorder_lines(&mut text, problems).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// Which problem a chat request is about, by its first message.
fn problem_of(problems: &[ReorderInstance], req: &MockRequest) -> usize {
    let first = req.prompt().expect("a chat request");
    problems
        .iter()
        .position(|p| first.starts_with(&reorder_prompt(p)))
        .expect("a prompt of the set")
}

fn fenced(order: &[usize]) -> String {
    format!("The rules feed each other, so:\n```json\n{order:?}\n```")
}

/// The scripted answer to problem `i`: the gold, the gold reversed, malformed, out of
/// range, repeated, too short, prose without an array, and the gold inside thinking
/// followed by a repeated index.
fn answer(i: usize, p: &ReorderInstance) -> String {
    let reversed: Vec<usize> = p.order.iter().rev().copied().collect();
    let n = p.order.len();
    let mut out_of_range = p.order.clone();
    out_of_range[n - 1] = n;
    let mut repeated = p.order.clone();
    repeated[1] = repeated[0];
    match i % 8 {
        0 => fenced(&p.order),
        1 => fenced(&reversed),
        2 => "```json\n[0, 1,\n```".to_owned(),
        3 => fenced(&out_of_range),
        4 => fenced(&repeated),
        5 => "[0, 1]".to_owned(),
        6 => "I cannot say.".to_owned(),
        _ => format!("<think>{:?}</think> {:?}", p.order, vec![0; n]),
    }
}

fn read_per_instance(run: &Path) -> Vec<OrderInstanceScore> {
    let text = std::fs::read_to_string(run.join(PER_INSTANCE_FILE)).unwrap();
    (text.lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every kind of answer is graded as `pbebench score` grades it (the shared path), the
/// results file says it is a reordering run's, and the requests ask with the reordering
/// prompt.
#[test]
fn scripted_orders_are_graded_as_score_grades_them() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(16);
    let dataset = write_set(dir.path(), &set);
    let answers: Vec<String> = set.iter().enumerate().map(|(i, p)| answer(i, p)).collect();
    let server = {
        let (set, answers) = (set.clone(), answers.clone());
        MockServer::start(move |req| Reply::answer(&answers[problem_of(&set, req)]))
    };
    let run = dir.path().join("run");
    let config = chat_config(&dataset, &run, &[server.base_url()]);
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    assert_eq!(server.chat_requests(), set.len());

    let by_id: HashMap<String, Vec<String>> = (set.iter().zip(&answers))
        .map(|(p, a)| (p.instance.id.clone(), vec![a.clone()]))
        .collect();
    let expected = score_order_responses(&set, &by_id, BlockChoice::Last);
    let reorder = out.reorder.as_ref().expect("a reordering run");
    assert_eq!(reorder.instances, expected);
    assert_eq!(reorder.summary, summarize_orders(&expected));
    let all = &reorder.summary.rows[0];
    assert_eq!((all.n, all.answered), (16, 16));
    // Two gold answers of 16 are exact and accurate; reversed orders are valid.
    assert_eq!(all.exact.unwrap().mean, 2.0 / 16.0);
    assert!(all.accuracy.unwrap().mean >= 2.0 / 16.0);
    assert_eq!(all.valid.unwrap().mean, 4.0 / 16.0);
    let kinds: Vec<(&str, usize)> = (reorder.summary.invalid.iter())
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(
        kinds,
        [
            ("no_array", 4),
            ("out_of_range", 2),
            ("repeated", 4),
            ("wrong_length", 2)
        ]
    );

    // The files: results.json is the reordering file (refused as synthesis results), and
    // per-instance.jsonl the lines `score --per-instance` writes.
    let text = std::fs::read_to_string(run.join(RESULTS_FILE)).unwrap();
    assert_eq!(text, out.results_json());
    let file: ReorderRunFile = serde_json::from_str(&text).unwrap();
    assert_eq!(file.task, "reorder");
    assert_eq!(file.summary, reorder.summary);
    assert_eq!((file.run.answered, file.run.expected), (16, 16));
    let e = RunResultsFile::from_json(&text).unwrap_err();
    assert!(e.to_string().contains("reordering run"), "{e}");
    assert_eq!(read_per_instance(&run), expected);
    let mut lines = Vec::new();
    write_order_score_lines(&mut lines, &expected).unwrap();
    assert_eq!(std::fs::read(run.join(PER_INSTANCE_FILE)).unwrap(), lines);

    // The stored request is the reordering prompt; the manifest names the task.
    let store = RunStore::open_existing(&run).unwrap();
    let request: Value = serde_json::from_str(&store.request("r03").unwrap().unwrap()).unwrap();
    assert_eq!(request["messages"][0]["content"], reorder_prompt(&set[3]));
    let manifest = store.manifest().unwrap().unwrap();
    assert_eq!(manifest.answer["task"], "reorder");
    assert!(manifest.answer.get("prompt_template").is_none());

    // --rescore gives the same figures without a request.
    let again = rescore(&run, None, BlockChoice::Last, None).unwrap();
    assert_eq!(again.reorder.unwrap(), *reorder);
    assert_eq!(server.chat_requests(), set.len());
}

/// A run stopped part-way (the server failing some problems) is continued by the same
/// call: only the problems without an answer are asked again, each once.
#[test]
fn a_continued_run_requests_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(12);
    let dataset = write_set(dir.path(), &set);
    let asked: Arc<Mutex<HashMap<usize, usize>>> = Arc::default();
    let failing = Arc::new(AtomicBool::new(true));
    let server = {
        let (set, asked, failing) = (set.clone(), Arc::clone(&asked), Arc::clone(&failing));
        MockServer::start(move |req| {
            let i = problem_of(&set, req);
            *asked.lock().unwrap().entry(i).or_default() += 1;
            if failing.load(Ordering::SeqCst) && i.is_multiple_of(3) {
                return Reply::error(400, "refused");
            }
            Reply::answer(&fenced(&set[i].order))
        })
    };
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    config.samples = 2;
    let first = evaluate(&config).unwrap();
    assert!(!first.complete());
    assert_eq!(first.results.answered, 2 * 8);
    let once: HashMap<usize, usize> = asked.lock().unwrap().clone();
    asked.lock().unwrap().clear();

    failing.store(false, Ordering::SeqCst);
    let second = evaluate(&config).unwrap();
    assert!(second.complete());
    assert_eq!(second.added, 2 * 4);
    let again = asked.lock().unwrap().clone();
    for i in 0..set.len() {
        let (before, after) = (once[&i], again.get(&i).copied().unwrap_or(0));
        if i.is_multiple_of(3) {
            assert_eq!(after, 2, "problem {i}: its two failed samples, once each");
        } else {
            assert_eq!((before, after), (2, 0), "problem {i} was answered");
        }
    }
    let all = &second.reorder.unwrap().summary.rows[0];
    assert_eq!(all.exact.unwrap().mean, 1.0);
}

/// A solver program reads the problem as a synthesis program reads an instance, plus the
/// scrambled rules (never the gold order), and answers an order on stdout.
#[test]
fn a_solver_program_reads_the_problem_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(3);
    let dataset = write_set(dir.path(), &set);
    let seen = dir.path().join("seen.jsonl");
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[]);
    config.concurrency = 1;
    config.solver = SolverSpec::Command(SolverCommand {
        command: format!(
            "cat >> '{seen}'; echo >> '{seen}'; printf '```json\\n[0, 1, 2]\\n```\\n'",
            seen = seen.display()
        ),
        timeout: Duration::from_secs(10),
    });
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    let text = std::fs::read_to_string(&seen).unwrap();
    let lines: Vec<Value> = (text.lines().filter(|l| !l.trim().is_empty()))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for line in &lines {
        let p = set.iter().find(|p| p.instance.id == line["id"]).unwrap();
        assert_eq!(
            line["scrambled"],
            serde_json::to_value(&p.scrambled).unwrap()
        );
        assert_eq!(line["inputs"], json!(p.instance.inputs));
        for hidden in ["order", "valid_orders", "cascade"] {
            assert!(line.get(hidden).is_none(), "{hidden} shown: {line}");
        }
    }
    // Three-rule problems get a valid answer; four-rule ones a wrong length.
    let reorder = out.reorder.unwrap();
    assert_eq!(reorder.summary.invalid["wrong_length"], 1);
    let valid: Vec<bool> = (reorder.instances.iter())
        .map(|s| s.samples[0].score.valid)
        .collect();
    assert_eq!(valid, [true, false, true]);
}

/// A scripted dialogue per problem: what the model says at each turn.
fn dialogue(set: &[ReorderInstance]) -> impl Fn(&MockRequest) -> Reply + Send + Sync + 'static {
    let set = set.to_vec();
    move |req| {
        let i = problem_of(&set, req);
        let p = &set[i];
        let gold = json!({"order": p.order}).to_string();
        let reversed: Vec<usize> = p.order.iter().rev().copied().collect();
        let reversed = json!({ "order": reversed }).to_string();
        match (i, req.turn()) {
            // 0: tests the reversed order, a repeated index, then submits the gold.
            (0, 0) => Reply::tool_calls(Some("Let me try."), &[("test_order", &reversed)]),
            (0, 1) => Reply::tool_calls(None, &[("test_order", r#"{"order": [0, 0, 1]}"#)]),
            (0, _) => Reply::tool_calls(None, &[("submit", &gold)]),
            // 1: an out-of-range index, malformed arguments, then tests the gold and
            // answers in plain text without an array: the tested order counts.
            (1, 0) => Reply::tool_calls(None, &[("test_order", r#"{"order": [0, 1, 9, 2]}"#)]),
            (1, 1) => Reply::tool_calls(None, &[("test_order", r#"{"order": [0,"#)]),
            (1, 2) => Reply::tool_calls(None, &[("test_order", &gold)]),
            (1, _) => Reply::answer("That one works."),
            // 2: tests until the budget (2) is spent: the third test ends the episode.
            (2, _) => Reply::tool_calls(None, &[("test_order", &reversed)]),
            // 3: answers in plain text at once, with the gold.
            (_, _) => Reply::answer(&fenced(&p.order)),
        }
    }
}

/// The tool messages of the last request the model was sent for problem `i`.
fn tool_results(requests: &[MockRequest], set: &[ReorderInstance], i: usize) -> Vec<Value> {
    let last = (requests.iter())
        .filter(|r| problem_of(set, r) == i)
        .max_by_key(|r| r.turn())
        .unwrap();
    (last.messages().into_iter())
        .filter(|m| m["role"] == "tool")
        .map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap())
        .collect()
}

#[test]
fn test_order_tells_which_examples_an_order_gets_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(4);
    let dataset = write_set(dir.path(), &set);
    let requests: Arc<Mutex<Vec<MockRequest>>> = Arc::default();
    let server = {
        let (script, requests) = (dialogue(&set), Arc::clone(&requests));
        MockServer::start(move |req| {
            requests.lock().unwrap().push(req.clone());
            script(req)
        })
    };
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[server.base_url()]);
    config.interactive.as_mut().unwrap().probe_budget = 2;
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    let requests = requests.lock().unwrap().clone();

    // The first message states the tools and the budget; the tools are sent.
    let first = requests[0].json();
    assert!(first["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("budget of 2 tests"));
    let names: Vec<&str> = (first["tools"].as_array().unwrap().iter())
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["test_order", "submit"]);

    let results = tool_results(&requests, &set, 0);
    let inputs = &set[0].instance.inputs;
    assert_eq!(results[0]["checked"], inputs.len());
    let wrong = results[0]["wrong"].as_array().unwrap();
    assert!(!wrong.is_empty());
    for w in wrong {
        let k = inputs.iter().position(|x| *x == w["input"]).unwrap();
        assert_eq!(w["expected"], set[0].instance.outputs[k]);
        assert_ne!(w["got"], w["expected"]);
    }
    assert!(results[1]["error"].as_str().unwrap().contains("repeated"));
    assert_eq!(
        results[1]["tests_left"], 1,
        "an invalid order costs nothing"
    );

    let results = tool_results(&requests, &set, 1);
    assert!(results[0]["error"]
        .as_str()
        .unwrap()
        .contains("index 9 is out of range 0..4"));
    assert!(results[1]["error"]
        .as_str()
        .unwrap()
        .contains("not valid JSON"));
    assert_eq!(results[2]["passed"], inputs.len());
    assert_eq!(results[2]["wrong"], json!([]));

    // The third test of problem 2 is refused and ends the episode (its answer is stored,
    // never sent).
    let store = RunStore::open_existing(&run).unwrap();
    let turns = store.turns("r02", 0).unwrap();
    assert_eq!(turns.len(), 3);
    let refused = &turns[2].results[0]["content"];
    assert!(
        refused.as_str().unwrap().contains("budget of 2 tests"),
        "{refused}"
    );

    let reorder = out.reorder.unwrap();
    let exact: Vec<bool> = (reorder.instances.iter())
        .map(|s| s.samples[0].score.exact)
        .collect();
    assert_eq!(exact, [true, true, false, true]);
    let episodes = reorder.episodes.unwrap();
    assert_eq!(episodes.episodes, 4);
    let reasons: Vec<(&str, usize)> = (episodes.end_reasons.iter())
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(reasons, [("answer", 2), ("budget", 1), ("submit", 1)]);
    let sources: Vec<(&str, usize)> = (episodes.final_sources.iter())
        .map(|(k, n)| (k.as_str(), *n))
        .collect();
    assert_eq!(sources, [("submitted", 1), ("tested", 2), ("text", 1)]);
    // Tests: 1 valid for problem 0, 1 for problem 1, 2 for problem 2.
    assert_eq!(episodes.mean_tests, 4.0 / 4.0);

    // --rescore reads the same from the store.
    let again = rescore(&run, None, BlockChoice::Last, None).unwrap();
    assert_eq!(again.reorder.unwrap().episodes.unwrap(), episodes);
}

/// The text protocol: fenced `test_order` and `submit` blocks, results in `result` blocks.
#[test]
fn the_text_protocol_uses_fenced_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(1);
    let dataset = write_set(dir.path(), &set);
    let server = {
        let set = set.clone();
        MockServer::start(move |req| {
            let p = &set[0];
            match req.turn() {
                0 => Reply::answer("```test_order\n[0, 0, 0]\n```\n```test_order\n[2, 1, 0]\n```"),
                _ => {
                    let results = req.messages().last().unwrap()["content"].clone();
                    let text = results.as_str().unwrap();
                    assert!(
                        text.contains("repeated") && text.contains("\"checked\""),
                        "{text}"
                    );
                    Reply::answer(&format!("```submit\n{:?}\n```", p.order))
                }
            }
        })
    };
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[server.base_url()]);
    config.interactive.as_mut().unwrap().tool_protocol = ToolProtocol::Text;
    let out = evaluate(&config).unwrap();
    let reorder = out.reorder.unwrap();
    assert!(reorder.instances[0].samples[0].score.exact);
    assert_eq!(reorder.episodes.unwrap().end_reasons["submit"], 1);
}

/// A solver program's episode over JSON lines: the problem and budget first, then one
/// answer per line it writes.
#[test]
fn a_solver_program_tests_orders_over_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(1);
    let dataset = write_set(dir.path(), &set);
    let log = dir.path().join("log");
    let run = dir.path().join("run");
    let mut config = interactive_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command: format!(
            "read task; echo \"$task\" > '{log}'; echo '{{\"test\": [0, 0, 1]}}'; read r; \
             echo \"$r\" >> '{log}'; echo '{{\"test\": [2, 1, 0]}}'; read r; echo \"$r\" >> '{log}'; \
             echo '{{\"submit\": {order:?}}}'; read r",
            log = log.display(),
            order = set[0].order,
        ),
        timeout: Duration::from_secs(10),
    });
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    let lines: Vec<Value> = (std::fs::read_to_string(&log).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["task"]["test_budget"], 6);
    assert_eq!(lines[0]["max_turns"], 4);
    assert!(lines[0]["task"].get("order").is_none());
    assert!(lines[1]["error"].as_str().unwrap().contains("repeated"));
    assert_eq!(lines[2]["checked"], 3);
    let reorder = out.reorder.unwrap();
    assert!(reorder.instances[0].samples[0].score.exact);
    let episodes = reorder.episodes.unwrap();
    assert_eq!((episodes.mean_tests, episodes.mean_turns), (1.0, 3.0));
}

/// A prompt template is refused for a reordering set, naming the field.
#[test]
fn a_template_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = write_set(dir.path(), &problems(1));
    let template = dir.path().join("t.txt");
    std::fs::write(&template, "{inputs}").unwrap();
    let mut config = chat_config(
        &dataset,
        &dir.path().join("run"),
        &["http://127.0.0.1:9/v1".into()],
    );
    chat(&mut config).template = Some(template);
    let e = evaluate(&config).unwrap_err();
    assert!(matches!(e, pbebench_eval::EvalError::Config(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("solver.template is for synthesis prompts"),
        "{e}"
    );
}

/// An episode interrupted by a failed turn resumes from its stored turns: the turn already
/// answered is not asked again, and the test it made still counts.
#[test]
fn an_interrupted_episode_resumes_without_asking_a_stored_turn_again() {
    let dir = tempfile::tempdir().unwrap();
    let set = problems(2);
    let dataset = write_set(dir.path(), &set);
    let asked: Arc<Mutex<HashMap<(usize, usize), usize>>> = Arc::default();
    let failing = Arc::new(AtomicBool::new(true));
    let server = {
        let (set, asked, failing) = (set.clone(), Arc::clone(&asked), Arc::clone(&failing));
        MockServer::start(move |req| {
            let (i, turn) = (problem_of(&set, req), req.turn());
            *asked.lock().unwrap().entry((i, turn)).or_default() += 1;
            let reversed: Vec<usize> = set[i].order.iter().rev().copied().collect();
            let test = json!({ "order": reversed }).to_string();
            let submit = json!({"order": set[i].order}).to_string();
            match turn {
                0 => Reply::tool_calls(None, &[("test_order", &test)]),
                _ if failing.load(Ordering::SeqCst) && i == 0 => Reply::error(400, "refused"),
                _ => Reply::tool_calls(None, &[("submit", &submit)]),
            }
        })
    };
    let run = dir.path().join("run");
    let config = interactive_config(&dataset, &run, &[server.base_url()]);
    let first = evaluate(&config).unwrap();
    assert_eq!(first.results.answered, 1);
    failing.store(false, Ordering::SeqCst);
    let second = evaluate(&config).unwrap();
    assert!(second.complete());
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked[&(0, 0)], 1, "the stored turn is not asked again");
    assert_eq!(asked[&(0, 1)], 2, "the failed turn is asked again");
    assert_eq!((asked[&(1, 0)], asked[&(1, 1)]), (1, 1));
    let reorder = second.reorder.unwrap();
    assert!(reorder.instances.iter().all(|s| s.samples[0].score.exact));
    assert_eq!(reorder.episodes.unwrap().mean_tests, 1.0);
}
