//! The runner against a real HTTP server on loopback (tests/support/mock_server.rs):
//! scripted answers, injected faults, resume, budget, rescore, several endpoints, and
//! external solver programs. Nothing here talks to any address but 127.0.0.1.

mod support;

use pbebench_eval::{
    evaluate, rescore, BlockChoice, EvalConfig, EvalError, Field, Prices, Problem, SolverCommand,
    SolverSpec, Status, StopReason,
};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

#[test]
fn every_sample_is_stored_and_scored() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(12);
    let dataset = write_dataset(dir.path(), &insts);
    let server = gold_server(&insts);
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    config.samples = 3;

    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.total, 36);
    assert_eq!(out.added, 36);
    assert_eq!(server.chat_requests(), 36);
    assert_eq!(out.results.overall().best_of_k, 1.0);
    assert_eq!(out.results.statuses[0], (Status::Ok, 36));
    assert!(out.results.completion_tokens > 0);

    let store = pbebench_eval::store::RunStore::open_existing(&run).unwrap();
    let manifest = store.manifest().unwrap().unwrap();
    assert_eq!(manifest.dataset.instances, 12);
    assert_eq!(manifest.dataset.sha256.len(), 64);
    assert_eq!(manifest.answer["model"], "mock");
    assert_eq!(manifest.answer["temperature"], 0.6);
    assert!(manifest.finished_at.is_some());
    let body: Value = serde_json::from_str(&store.request("inst-000").unwrap().unwrap()).unwrap();
    assert_eq!(body["max_tokens"], 1000);
    assert_eq!(body["messages"][0]["role"], "user");

    // A second run of the same command has nothing to do.
    let again = evaluate(&config).unwrap();
    assert_eq!(again.added, 0);
    assert_eq!(server.chat_requests(), 36);
}

/// What the fault server does with the n-th request (0-based) for an instance.
type Script = fn(usize, &str) -> Reply;

fn fault_server(insts: &[pbebench::Instance], scripts: Vec<Script>) -> MockServer {
    let index = PromptIndex::new(insts);
    let answers: Vec<String> = insts.iter().map(gold_answer).collect();
    let seen = Mutex::new(HashMap::<usize, usize>::new());
    MockServer::start(move |req| {
        let i = index.of(req);
        let n = {
            let mut seen = seen.lock().unwrap();
            let n = seen.entry(i).or_default();
            *n += 1;
            *n - 1
        };
        scripts[i](n, &answers[i])
    })
}

#[test]
fn faults_are_retried_or_recorded_never_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let scripts: Vec<Script> = vec![
        // 0: 429 with Retry-After: 1, then an answer.
        |n, a| {
            if n == 0 {
                Reply::rate_limited(1)
            } else {
                Reply::answer(a)
            }
        },
        // 1: 500 twice, then an answer.
        |n, a| {
            if n < 2 {
                Reply::error(500, "boom")
            } else {
                Reply::answer(a)
            }
        },
        // 2: slower than the timeout once.
        |n, a| {
            if n == 0 {
                Reply::answer(a).after(Duration::from_secs(3))
            } else {
                Reply::answer(a)
            }
        },
        // 3: the connection dropped once.
        |n, a| {
            if n == 0 {
                Reply::Drop
            } else {
                Reply::answer(a)
            }
        },
        // 4: finish_reason length.
        |_, _| {
            Reply::completion(
                Some("```python\n[\"replace('a', "),
                Some("thinking"),
                "length",
            )
        },
        // 5: malformed JSON: a broken server, retried.
        |_, _| Reply::malformed(),
        // 6: empty choices: retried.
        |_, _| {
            Reply::json(
                200,
                serde_json::json!({"choices": [], "usage": {"prompt_tokens": 9}}),
            )
        },
        // 7: null content with reasoning_content (a reasoning model out of tokens): the
        // model's answer, kept.
        |_, _| Reply::completion(None, Some("still thinking"), "stop"),
        // 8: always 503: fails after every retry.
        |_, _| Reply::error(503, "overloaded"),
        // 9: always slower than the timeout.
        |_, a| Reply::answer(a).after(Duration::from_secs(3)),
        // 10: 400 is not retried.
        |_, _| Reply::error(400, "context too long"),
        // 11: fine.
        |_, a| Reply::answer(a),
    ];
    let insts = instances(scripts.len());
    let dataset = write_dataset(dir.path(), &insts);
    let server = fault_server(&insts, scripts);
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    chat(&mut config).timeout = Duration::from_millis(700);
    chat(&mut config).retry.max_retries = 2;

    let t0 = Instant::now();
    let out = evaluate(&config).unwrap();
    assert!(
        t0.elapsed() >= Duration::from_secs(1),
        "Retry-After was honoured"
    );
    assert!(!out.complete());
    let rows = stored_rows(&run);
    let got: Vec<(&str, u32)> = rows.iter().map(|r| (r.2.as_str(), r.3)).collect();
    assert_eq!(
        got,
        vec![
            ("ok", 2),
            ("ok", 3),
            ("ok", 2),
            ("ok", 2),
            ("truncated", 1),
            ("http_error", 3),
            ("http_error", 3),
            ("invalid", 1),
            ("http_error", 3),
            ("timeout", 3),
            ("http_error", 1),
            ("ok", 1),
        ]
    );
    let samples = pbebench_eval::store::RunStore::open_existing(&run)
        .unwrap()
        .samples()
        .unwrap();
    assert_eq!(
        samples[7].reasoning_content.as_deref(),
        Some("still thinking")
    );
    assert!(samples[5].error.as_deref().unwrap().contains("malformed"));
    assert_eq!(samples[8].http_status, Some(503));
    assert_eq!(
        samples[10].error.as_deref(),
        Some("HTTP 400: context too long")
    );
    // Answers that are not answers score as failures; the rest pass.
    assert_eq!(out.results.answered, 7);
    assert!(
        (out.results.overall().best_of_k - 5.0 / 12.0).abs() < 1e-9,
        "{}",
        out.results
    );

    // Continuing requests the failures (http_error, timeout) again, and nothing else.
    let before = server.chat_requests();
    let again = evaluate(&config).unwrap();
    assert_eq!(server.chat_requests() - before, 3 + 3 + 3 + 3 + 1);
    assert_eq!(again.added, 5);
    let rows = stored_rows(&run);
    assert_eq!(rows.len(), 12);
    assert_eq!((rows[5].2.as_str(), rows[5].3), ("http_error", 6));
    assert_eq!((rows[8].2.as_str(), rows[8].3), ("http_error", 6));
    assert_eq!((rows[9].2.as_str(), rows[9].3), ("timeout", 6));
    assert_eq!((rows[10].2.as_str(), rows[10].3), ("http_error", 2));
}

/// Issue 23, item 7: a proxy that answers HTTP 200 with broken bodies used to fill the
/// store with `invalid` answers that were never requested again, and the run exited 0.
/// Now each is retried like a 5xx, the run stops once the failures are systematic, and
/// the same command continues it once the proxy is fixed.
#[test]
fn a_broken_proxy_stops_the_run_and_poisons_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(200);
    let dataset = write_dataset(dir.path(), &insts);
    let index = PromptIndex::new(&insts);
    let answers: Vec<String> = insts.iter().map(gold_answer).collect();
    let broken = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let server = {
        let broken = broken.clone();
        MockServer::start(move |req| {
            if broken.load(std::sync::atomic::Ordering::SeqCst) {
                match index.of(req) % 3 {
                    0 => Reply::malformed(),
                    1 => Reply::json(200, serde_json::json!({"object": "chat.completion"})),
                    _ => Reply::completion(None, None, "stop"),
                }
            } else {
                Reply::answer(&answers[index.of(req)])
            }
        })
    };
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    chat(&mut config).retry.max_retries = 1;
    config.concurrency = 2;
    let out = evaluate(&config).unwrap();
    match &out.stopped {
        Some(StopReason::FailingEndpoints { failures, .. }) => assert_eq!(*failures, 10),
        other => panic!("expected a stop, got {other:?}"),
    }
    let reason = out.stopped.as_ref().unwrap().to_string();
    assert!(reason.contains("10 samples in a row failed"), "{reason}");
    assert!(!reason.contains('\n'), "{reason}");
    assert!(!out.complete());
    assert_eq!(out.results.answered, 0);
    let rows = stored_rows(&run);
    assert!(
        rows.iter().all(|r| r.2 == "http_error" && r.3 == 2),
        "{rows:?}"
    );
    // It stopped early: the samples in flight when it tripped are stored too, no more.
    assert!(rows.len() < 100, "{}", rows.len());

    // The proxy is fixed: the same command requests every sample again and completes.
    broken.store(false, std::sync::atomic::Ordering::SeqCst);
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.results.overall().best_of_k, 1.0);
}

/// Issue 23, item 7: a solver program that exits 1 on every instance (an import error)
/// used to yield a run where every sample was "answered" (as `invalid`). Now a failed run
/// of the program is no answer, the run stops with the program's last stderr line, and
/// the same command continues once the program is fixed.
#[test]
fn a_solver_that_always_fails_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(30);
    let dataset = write_dataset(dir.path(), &insts);
    let answers = dir.path().join("answers");
    std::fs::create_dir(&answers).unwrap();
    for inst in &insts {
        std::fs::write(answers.join(&inst.id), gold_answer(inst)).unwrap();
    }
    let fixed = dir.path().join("fixed");
    let command = format!(
        "test -f {} || {{ printf 'Traceback (most recent call last):\\n  File \\\"s.py\\\", line 1\\nModuleNotFoundError: No module named numpyy\\n' >&2; exit 1; }}; cat {}/$PBEBENCH_INSTANCE_ID",
        fixed.display(),
        answers.display()
    );
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command,
        timeout: Duration::from_secs(10),
    });
    config.concurrency = 2;
    let out = evaluate(&config).unwrap();
    let reason = match &out.stopped {
        Some(r @ StopReason::FailingSolver { .. }) => r.to_string(),
        other => panic!("expected a stop, got {other:?}"),
    };
    assert!(
        reason.contains("(last: ModuleNotFoundError: No module named numpyy)"),
        "{reason}"
    );
    assert!(!out.complete());
    assert_eq!(out.results.answered, 0);
    let rows = stored_rows(&run);
    assert!(rows.iter().all(|r| r.2 == "failed"), "{rows:?}");

    std::fs::write(&fixed, "").unwrap();
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.results.overall().best_of_k, 1.0);
}

#[test]
fn an_unreachable_endpoint_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = write_dataset(dir.path(), &instances(3));
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let run = dir.path().join("run");
    let err = evaluate(&chat_config(&dataset, &run, std::slice::from_ref(&url))).unwrap_err();
    assert!(matches!(err, EvalError::Endpoint(_)), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&format!("cannot reach {url}/models")), "{msg}");
    assert!(msg.contains("vllm serve"), "{msg}");
    assert!(!pbebench_eval::store::RunStore::exists(&run));
}

#[test]
fn a_rejected_key_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = write_dataset(dir.path(), &instances(3));
    let server = MockServer::start_with(Reply::error(401, "bad key"), |_| Reply::answer("x"));
    let err = evaluate(&chat_config(
        &dataset,
        &dir.path().join("run"),
        &[server.base_url()],
    ))
    .unwrap_err();
    assert!(err.to_string().contains("HTTP 401"), "{err}");
    assert_eq!(server.chat_requests(), 0);
}

#[test]
fn the_api_key_is_sent_and_never_stored() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(2);
    let dataset = write_dataset(dir.path(), &insts);
    let auth = Arc::new(Mutex::new(Vec::new()));
    let server = {
        let auth = auth.clone();
        MockServer::start(move |req| {
            auth.lock()
                .unwrap()
                .push(req.header("authorization").map(str::to_owned));
            Reply::answer("```python\n[]\n```")
        })
    };
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    chat(&mut config).api_key = Some("sk-secret-123".into());
    evaluate(&config).unwrap();
    assert!(auth
        .lock()
        .unwrap()
        .iter()
        .all(|h| h.as_deref() == Some("Bearer sk-secret-123")));
    let bytes = std::fs::read(run.join("run.sqlite")).unwrap();
    let wal = std::fs::read(run.join("run.sqlite-wal")).unwrap_or_default();
    let needle = b"sk-secret-123";
    assert!(!bytes.windows(needle.len()).any(|w| w == needle));
    assert!(!wal.windows(needle.len()).any(|w| w == needle));
}

#[test]
fn changed_answer_parameters_are_refused_unless_force_new() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(4);
    let dataset = write_dataset(dir.path(), &insts);
    let server = gold_server(&insts);
    let run = dir.path().join("run");
    let config = chat_config(&dataset, &run, &[server.base_url()]);
    evaluate(&config).unwrap();

    let mut hotter = config.clone();
    chat(&mut hotter).params.temperature = Some(0.7);
    let err = evaluate(&hotter).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EvalError::Mismatch { .. }));
    assert!(
        msg.contains("temperature: the run has 0.6, this command asks for 0.7"),
        "{msg}"
    );
    assert!(msg.contains("or add force_new to start over"), "{msg}");
    let flagged = err.message(|f| {
        if f == Field::ForceNew {
            "--force-new"
        } else {
            f.path()
        }
    });
    assert!(
        flagged.contains("or add --force-new to start over"),
        "{flagged}"
    );

    let mut other_model = config.clone();
    chat(&mut other_model).params.model = "other".into();
    let err = evaluate(&other_model).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EvalError::Mismatch { .. }), "{msg}");
    assert!(msg.contains("model: the run has"), "{msg}");

    // Parameters that do not change answers may change; more samples extend the run.
    let mut more = config.clone();
    more.samples = 2;
    more.concurrency = 1;
    chat(&mut more).retry.max_retries = 0;
    let out = evaluate(&more).unwrap();
    assert_eq!(out.added, 4);
    assert_eq!(server.chat_requests(), 8);
    let manifest = pbebench_eval::store::RunStore::open_existing(&run)
        .unwrap()
        .manifest()
        .unwrap()
        .unwrap();
    assert_eq!(manifest.run["samples"], 2);
    assert_eq!(manifest.run["concurrency"], 1);
    assert!(manifest.finished_at.is_some());

    hotter.force_new = true;
    let out = evaluate(&hotter).unwrap();
    assert_eq!(out.added, 4);
    assert!(run.join("run.1.sqlite").is_file());
    assert_eq!(stored_rows(&run).len(), 4);
}

#[test]
fn a_changed_dataset_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(4);
    let dataset = write_dataset(dir.path(), &insts);
    let server = gold_server(&instances(5));
    let run = dir.path().join("run");
    evaluate(&chat_config(&dataset, &run, &[server.base_url()])).unwrap();
    write_dataset(dir.path(), &instances(5));
    let err = evaluate(&chat_config(&dataset, &run, &[server.base_url()])).unwrap_err();
    assert!(err.to_string().contains("dataset:"), "{err}");
}

#[test]
fn requests_are_spread_over_endpoints() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(20);
    let dataset = write_dataset(dir.path(), &insts);
    let (a, b) = (gold_server(&insts), gold_server(&insts));
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[a.base_url(), b.base_url()]);
    config.samples = 2;
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    assert_eq!(a.chat_requests() + b.chat_requests(), 40);
    assert_eq!(a.chat_requests(), 20);
}

#[test]
fn a_down_replica_is_retried_on_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(10);
    let dataset = write_dataset(dir.path(), &insts);
    let good = gold_server(&insts);
    let bad = MockServer::start(|_| Reply::error(502, "bad gateway"));
    let run = dir.path().join("run");
    let out = evaluate(&chat_config(
        &dataset,
        &run,
        &[good.base_url(), bad.base_url()],
    ))
    .unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.results.overall().best_of_k, 1.0);
}

#[test]
fn failing_endpoints_stop_the_run_instead_of_failing_every_sample() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = write_dataset(dir.path(), &instances(200));
    let server = MockServer::start(|_| Reply::error(500, "model crashed"));
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    chat(&mut config).retry.max_retries = 1;
    config.concurrency = 2;
    let out = evaluate(&config).unwrap();
    match &out.stopped {
        Some(StopReason::FailingEndpoints { last_error, .. }) => {
            assert!(last_error.contains("model crashed"), "{last_error}")
        }
        other => panic!("expected a stop, got {other:?}"),
    }
    assert!(server.chat_requests() < 40, "{}", server.chat_requests());
}

#[test]
fn the_budget_stops_the_run_cleanly_and_a_larger_one_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(20);
    let dataset = write_dataset(dir.path(), &insts);
    let server = gold_server(&insts);
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    config.concurrency = 1;
    // Output only: a request's worst case counts its whole body as prompt tokens, far
    // more than the 100 the mock reports.
    config.prices = Prices {
        input: 0.0,
        output: 100.0,
    };
    // The mock reports len/4 + 1 completion tokens (12 or 18 here); the worst case of a
    // request is max_tokens.
    chat(&mut config).params.max_tokens = Some(20);
    let per_sample = (gold_answer(&insts[1]).len() / 4 + 1) as f64 * 100.0 / 1e6;
    config.max_cost = Some(per_sample * 7.5);
    let out = evaluate(&config).unwrap();
    assert!(
        matches!(out.stopped, Some(StopReason::Budget { .. })),
        "{:?}",
        out.stopped
    );
    assert!(
        out.results.cost <= per_sample * 7.5 + 1e-12,
        "{}",
        out.results
    );
    assert!((5..=8).contains(&out.added), "{}", out.added);
    assert!(!out.complete());

    config.max_cost = Some(1.0);
    let out = evaluate(&config).unwrap();
    assert!(out.complete());
    assert_eq!(server.chat_requests(), 20);
}

/// Issue 23, item 6: at `--concurrency 16` the budget used to be checked against the mean
/// cost so far (nothing before the first answer), so sixteen requests went out at once
/// against a cap that paid for three. Every request in flight now holds its worst case.
#[test]
fn the_budget_holds_under_concurrency() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(40);
    let dataset = write_dataset(dir.path(), &insts);
    // A model that always writes max_tokens tokens: every request costs its worst case.
    let server = MockServer::start(|req| {
        let max_tokens = req.json()["max_tokens"].as_u64().unwrap();
        Reply::answer_with_usage("```python\n[]\n```", 100, max_tokens)
            .after(Duration::from_millis(30))
    });
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    config.concurrency = 16;
    config.prices = Prices {
        input: 0.0,
        output: 100.0,
    };
    // max_tokens 1000 at 100 per million: 0.1 per request.
    config.max_cost = Some(0.35);
    let out = evaluate(&config).unwrap();
    assert!(
        matches!(out.stopped, Some(StopReason::Budget { .. })),
        "{:?}",
        out.stopped
    );
    assert!(out.results.cost <= 0.35 + 1e-12, "{}", out.results.cost);
    assert_eq!(out.added, 3);
    assert_eq!(server.chat_requests(), 3);

    // Output priced but unbounded: the worst case is unknown, so the run is refused.
    let mut unbounded = config.clone();
    chat(&mut unbounded).params.max_tokens = None;
    match evaluate(&unbounded).unwrap_err() {
        EvalError::Config(e) => {
            assert_eq!(
                (e.field, e.problem),
                (Field::MaxCost, Problem::UnboundedAnswers)
            )
        }
        e => panic!("not a refused field: {e}"),
    }
}

#[test]
fn rescore_reads_the_store_and_requests_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(6);
    let dataset = write_dataset(dir.path(), &insts);
    let index = PromptIndex::new(&insts);
    let answers: Vec<String> = insts.iter().map(gold_answer).collect();
    // A wrong first block, the right last one.
    let server = MockServer::start(move |req| {
        Reply::answer(&format!(
            "Draft:\n```python\n[]\n```\nFinal:\n{}",
            answers[index.of(req)]
        ))
    });
    let run = dir.path().join("run");
    let out = evaluate(&chat_config(&dataset, &run, &[server.base_url()])).unwrap();
    assert_eq!(out.results.overall().best_of_k, 1.0);
    drop(server); // any request from here on would fail

    let last = rescore(&run, None, BlockChoice::Last, None).unwrap();
    assert_eq!(last.results.overall().best_of_k, 1.0);
    assert_eq!(last.results.answered, 6);
    let first = rescore(&run, None, BlockChoice::First, None).unwrap();
    assert_eq!(first.results.overall().best_of_k, 0.0);

    // The dataset must be the one evaluated.
    let other = dir.path().join("other.jsonl");
    std::fs::copy(&dataset, &other).unwrap();
    rescore(&run, Some(&other), BlockChoice::Last, None).unwrap();
    std::fs::write(&other, "{}\n").unwrap();
    let err = rescore(&run, Some(&other), BlockChoice::Last, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("not the dataset the run evaluated"),
        "{err}"
    );
    let err = rescore(&dir.path().join("nowhere"), None, BlockChoice::Last, None).unwrap_err();
    assert!(err.to_string().contains("no run store"), "{err}");
}

#[test]
fn a_solver_command_answers_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(6);
    let dataset = write_dataset(dir.path(), &insts);
    // Write each instance's gold answer to a file named by its id; the "solver" checks it
    // got the instance on stdin (without the gold) and prints the answer.
    let answers = dir.path().join("answers");
    std::fs::create_dir(&answers).unwrap();
    for inst in &insts {
        std::fs::write(answers.join(&inst.id), gold_answer(inst)).unwrap();
    }
    let command = format!(
        "input=$(cat); case \"$input\" in *cascade*) exit 9;; *\"\\\"id\\\":\\\"$PBEBENCH_INSTANCE_ID\\\"\"*) cat {}/$PBEBENCH_INSTANCE_ID;; *) exit 8;; esac",
        answers.display()
    );
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command: command.clone(),
        timeout: Duration::from_secs(10),
    });
    config.samples = 2;
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.results.overall().best_of_k, 1.0, "{}", out.results);

    // A program that hangs is killed at the timeout; one that cannot start stops the run.
    let run2 = dir.path().join("run2");
    let mut slow = chat_config(&dataset, &run2, &[]);
    slow.solver = SolverSpec::Command(SolverCommand {
        command: "sleep 20".into(),
        timeout: Duration::from_millis(200),
    });
    let out = evaluate(&slow).unwrap();
    assert_eq!(
        out.results
            .statuses
            .iter()
            .find(|s| s.0 == Status::Timeout)
            .unwrap()
            .1,
        6
    );
    let run3 = dir.path().join("run3");
    let mut missing = chat_config(&dataset, &run3, &[]);
    missing.solver = SolverSpec::Command(SolverCommand {
        command: "/no/such/solver".into(),
        timeout: Duration::from_secs(5),
    });
    let out = evaluate(&missing).unwrap();
    assert!(
        matches!(out.stopped, Some(StopReason::Solver(_))),
        "{:?}",
        out.stopped
    );
    assert!(stored_rows(&run3).is_empty());
}

#[test]
fn bad_parameters_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let dataset = write_dataset(dir.path(), &instances(1));
    let run = dir.path().join("run");
    let base = chat_config(&dataset, &run, &["http://127.0.0.1:9/v1".into()]);
    // The library names the field refused (the CLI names its option).
    let refused = |c: &EvalConfig| match evaluate(c).unwrap_err() {
        EvalError::Config(e) => (e.field, e.to_string()),
        e => panic!("not a refused field: {e}"),
    };
    let mut c = base.clone();
    c.samples = 0;
    assert_eq!(
        refused(&c),
        (Field::Samples, "samples must be at least 1".to_owned())
    );
    let mut c = base.clone();
    c.concurrency = 0;
    assert_eq!(refused(&c).0, Field::Concurrency);
    let mut c = base.clone();
    c.max_cost = Some(1.0);
    assert_eq!(
        refused(&c),
        (
            Field::MaxCost,
            "max_cost needs prices.input and/or prices.output (prices per million tokens)"
                .to_owned()
        )
    );
    let mut c = base.clone();
    chat(&mut c).base_urls = vec!["localhost:8000".into()];
    assert!(evaluate(&c)
        .unwrap_err()
        .to_string()
        .contains("is not an http"));
    let mut c = base.clone();
    c.dataset = dir.path().join("missing.jsonl");
    assert!(evaluate(&c)
        .unwrap_err()
        .to_string()
        .contains("missing.jsonl"));
}

/// The size of a run directory's files, in bytes.
fn run_dir_bytes(run: &std::path::Path) -> u64 {
    std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

/// Issue 37: a program whose output never ends (`yes`) is stopped once it passes
/// `MAX_RESPONSE_BYTES`, long before the timeout; each sample fails with that reason and
/// nothing of the output is kept, so the run store stays small. A program that floods its
/// stderr keeps only the tail of it.
#[test]
fn a_runaway_solver_program_is_stopped_at_the_response_cap() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(4);
    let dataset = write_dataset(dir.path(), &insts);
    let run = dir.path().join("run");
    let mut config = chat_config(&dataset, &run, &[]);
    config.solver = SolverSpec::Command(SolverCommand {
        command: "yes".into(),
        // Far longer than the test takes: a timeout would say the cap did not stop it.
        timeout: Duration::from_secs(300),
    });
    config.concurrency = 2;
    let out = evaluate(&config).unwrap();
    assert_eq!(out.results.answered, 0);
    let store = pbebench_eval::store::RunStore::open_existing(&run).unwrap();
    let samples = store.samples().unwrap();
    assert_eq!(samples.len(), insts.len());
    for s in &samples {
        assert_eq!(s.status, Status::Failed, "{s:?}");
        assert_eq!(s.content, None);
        let error = s.error.as_deref().unwrap();
        assert!(error.contains("more than 512 KiB"), "{error}");
    }
    drop(store);
    let size = run_dir_bytes(&run);
    assert!(
        size < pbebench_eval::MAX_RESPONSE_BYTES as u64,
        "the run store holds {size} bytes"
    );

    // A program that floods its stderr until the timeout, then fails: its error keeps
    // the end of what it wrote, and nothing more.
    let run2 = dir.path().join("run2");
    let mut noisy = chat_config(&dataset, &run2, &[]);
    noisy.solver = SolverSpec::Command(SolverCommand {
        command: "head -c 20000000 /dev/zero | tr '\\0' e >&2; echo last words >&2; exit 3".into(),
        timeout: Duration::from_secs(300),
    });
    evaluate(&noisy).unwrap();
    let store = pbebench_eval::store::RunStore::open_existing(&run2).unwrap();
    for s in store.samples().unwrap() {
        let error = s.error.unwrap();
        assert!(
            error.ends_with("last words"),
            "{}",
            &error[error.len() - 40..]
        );
        assert!(error.chars().count() < 2100, "{} characters", error.len());
    }
}

/// Issue 37: an HTTP response body larger than the client reads (8 × MAX_RESPONSE_BYTES)
/// fails its sample with that reason at once, without a retry; the other samples are
/// answered.
#[test]
fn a_response_body_past_the_cap_fails_its_sample_without_a_retry() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(3);
    let dataset = write_dataset(dir.path(), &insts);
    let scripts: Vec<Script> = vec![
        |_, a| Reply::answer(a),
        |_, _| Reply::answer(&"y".repeat(8 * pbebench_eval::MAX_RESPONSE_BYTES + 1)),
        |_, a| Reply::answer(a),
    ];
    let server = fault_server(&insts, scripts);
    let run = dir.path().join("run");
    let config = chat_config(&dataset, &run, &[server.base_url()]);
    let out = evaluate(&config).unwrap();
    assert_eq!(out.results.answered, 2);
    assert_eq!(server.chat_requests(), 3, "no retry");
    let store = pbebench_eval::store::RunStore::open_existing(&run).unwrap();
    let failed: Vec<_> = (store.samples().unwrap().into_iter())
        .filter(|s| s.status == Status::HttpError)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].instance_id, insts[1].id);
    let error = failed[0].error.as_deref().unwrap();
    assert!(error.contains("larger than 4 MiB"), "{error}");
}
