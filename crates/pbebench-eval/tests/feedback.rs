//! Feedback rounds (`--strategy feedback`) against the mock server: an answer that gets
//! examples wrong comes back with what it gets wrong, and the model tries again; the run
//! records its strategy. Interactive mode with no probes and no feedback rounds still ends
//! an episode on its first answer.

mod support;

use pbebench_eval::{evaluate, EvalConfig, RunResultsFile, ToolProtocol};
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, Mutex};
use support::*;

fn feedback_config(dataset: &Path, run: &Path, url: &str, feedback: bool) -> EvalConfig {
    let mut config = interactive_config(dataset, run, &[url.to_owned()]);
    let spec = config.interactive.as_mut().unwrap();
    spec.probe_budget = 0;
    spec.feedback = feedback;
    config
}

const WRONG: &str = "Maybe this:\n```python\n[\"replace('a', 'z')\"]\n```";

/// Every instance answered wrong in plain text at the first turn, right at the second.
fn server(insts: &[pbebench::Instance], seen: Arc<Mutex<Vec<Value>>>) -> MockServer {
    let insts = insts.to_vec();
    MockServer::start(move |req| {
        seen.lock().unwrap().push(req.json());
        let i = episode_instance(&insts, req);
        match req.turn() {
            0 => Reply::answer(WRONG),
            _ => Reply::answer(&gold_answer(&insts[i])),
        }
    })
}

#[test]
fn a_wrong_answer_comes_back_with_its_wrong_examples_and_the_model_tries_again() {
    for protocol in [ToolProtocol::Tools, ToolProtocol::Text] {
        let dir = tempfile::tempdir().unwrap();
        let insts = instances(3);
        let dataset = write_dataset(dir.path(), &insts);
        let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
        let server = server(&insts, seen.clone());
        let run = dir.path().join("run");
        let mut config = feedback_config(&dataset, &run, &server.base_url(), true);
        config.interactive.as_mut().unwrap().tool_protocol = protocol;
        let out = evaluate(&config).unwrap();
        assert!(out.complete(), "{}", out.results);
        let episodes = out.interactive.unwrap();
        for e in &episodes.episodes {
            assert_eq!(
                (e.end_reason.as_str(), e.turns, e.tests),
                ("answer", 2, 2),
                "{e:?}"
            );
            assert_eq!(e.probes_used, 0);
            assert!(e.pass);
        }
        let seen = seen.lock().unwrap();
        // The first prompt offers no probes; with tool calls, no run_hidden tool either.
        let first = seen[0]["messages"][0]["content"].as_str().unwrap();
        assert!(!first.contains("run_hidden"), "{first}");
        assert!(
            first.contains("it is checked against the examples"),
            "{first}"
        );
        if protocol == ToolProtocol::Tools {
            let names: Vec<&str> = (seen[0]["tools"].as_array().unwrap().iter())
                .map(|t| t["function"]["name"].as_str().unwrap())
                .collect();
            assert_eq!(names, ["test_cascade", "submit"]);
        }
        // The second request holds the wrong examples of the first answer.
        let second = seen
            .iter()
            .find(|b| b["messages"].as_array().unwrap().len() == 3);
        let feedback = second.unwrap()["messages"][2].clone();
        assert_eq!(feedback["role"], "user");
        let text = feedback["content"].as_str().unwrap();
        assert!(
            text.starts_with("Your cascade does not reproduce every example"),
            "{text}"
        );
        assert!(
            text.contains("\"expected\"") && text.contains("\"got\""),
            "{text}"
        );

        let file = RunResultsFile::from_json(
            &std::fs::read_to_string(run.join(pbebench_eval::RESULTS_FILE)).unwrap(),
        )
        .unwrap();
        assert_eq!(file.strategy.as_deref(), Some("feedback"));
        assert!(file.stepwise.is_none());
        let again =
            pbebench_eval::rescore(&run, None, pbebench_eval::BlockChoice::Last, None).unwrap();
        assert_eq!(again.strategy, out.strategy);
    }
}

#[test]
fn without_feedback_rounds_the_first_answer_ends_the_episode() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(2);
    let dataset = write_dataset(dir.path(), &insts);
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let server = server(&insts, seen.clone());
    let run = dir.path().join("run");
    let out = evaluate(&feedback_config(&dataset, &run, &server.base_url(), false)).unwrap();
    for e in &out.interactive.unwrap().episodes {
        assert_eq!(
            (e.end_reason.as_str(), e.turns, e.pass),
            ("answer", 1, false)
        );
    }
    assert_eq!(server.chat_requests(), insts.len());
    let first = seen.lock().unwrap()[0]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        first.contains("run_hidden"),
        "the probing prompt, unchanged"
    );
    let text = std::fs::read_to_string(run.join(pbebench_eval::RESULTS_FILE)).unwrap();
    assert!(RunResultsFile::from_json(&text).unwrap().strategy.is_none());
    // A run made without feedback rounds is not continued with them.
    let with = feedback_config(&dataset, &run, &server.base_url(), true);
    let Err(pbebench_eval::EvalError::Mismatch { differences, .. }) = evaluate(&with) else {
        panic!("a run without feedback rounds was continued with them")
    };
    assert!(differences.contains("feedback"), "{differences}");
}

#[test]
fn feedback_ends_at_the_turn_limit_with_the_last_answer_tested() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(1);
    let dataset = write_dataset(dir.path(), &insts);
    let server = MockServer::start(|_| Reply::answer(WRONG));
    let run = dir.path().join("run");
    let mut config = feedback_config(&dataset, &run, &server.base_url(), true);
    config.interactive.as_mut().unwrap().max_turns = 3;
    let out = evaluate(&config).unwrap();
    let e = &out.interactive.unwrap().episodes[0];
    assert_eq!((e.end_reason.as_str(), e.turns, e.tests), ("turns", 3, 3));
    assert_eq!(e.final_source, "tested");
    assert!(!e.pass);
}
