//! `kill -9` at any moment loses only the requests in flight: a runner in another process
//! (this test binary, re-executed as `child_runner`) is killed mid-run several times,
//! then the run is continued; every sample must exist exactly once, unchanged.

mod support;

use pbebench_eval::evaluate;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};
use support::*;

const CHILD_ENV: &str = "PBEBENCH_EVAL_CHILD";
const CONCURRENCY: usize = 6;
const SAMPLES: u32 = 3;

/// Not a test of its own: the runner process that the resume test starts and kills.
#[test]
fn child_runner() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let spec: serde_json::Value = serde_json::from_str(&spec).unwrap();
    let path = |k: &str| Path::new(spec[k].as_str().unwrap()).to_path_buf();
    let mut config = chat_config(
        &path("dataset"),
        &path("run"),
        &[spec["base_url"].as_str().unwrap().to_owned()],
    );
    config.concurrency = CONCURRENCY;
    config.samples = SAMPLES;
    evaluate(&config).unwrap();
}

fn spawn_child(dataset: &Path, run: &Path, base_url: &str) -> Child {
    let spec = json!({"dataset": dataset, "run": run, "base_url": base_url});
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_runner", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, spec.to_string())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stored_count(run: &Path) -> usize {
    if !run.join("run.sqlite").exists() {
        return 0;
    }
    // The child may be creating the schema right now.
    std::panic::catch_unwind(|| stored_rows(run).len()).unwrap_or(0)
}

#[test]
fn kill_dash_nine_mid_run_loses_nothing_stored_and_repeats_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(40);
    let total = insts.len() * SAMPLES as usize;
    let dataset = write_dataset(dir.path(), &insts);
    let index = PromptIndex::new(&insts);
    let answers: Vec<String> = insts.iter().map(gold_answer).collect();
    let server = {
        let answers = answers.clone();
        MockServer::start(move |req| {
            Reply::answer(&answers[index.of(req)]).after(Duration::from_millis(25))
        })
    };
    let run = dir.path().join("run");

    // Kill at start-up, and after roughly a quarter, a half and most of the samples.
    let mut committed: HashMap<(String, u32), String> = HashMap::new();
    let mut kills_mid_run = 0;
    for threshold in [0, total / 4, total / 2, total * 4 / 5] {
        let mut child = KillOnDrop(spawn_child(&dataset, &run, &server.base_url()));
        let t0 = Instant::now();
        loop {
            if child.0.try_wait().unwrap().is_some() {
                break;
            }
            let n = stored_count(&run);
            if (threshold == 0 && t0.elapsed() > Duration::from_millis(30))
                || (threshold > 0 && n >= threshold)
            {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "the child made no progress"
            );
            std::thread::sleep(Duration::from_millis(3));
        }
        child.0.kill().unwrap(); // SIGKILL
        child.0.wait().unwrap();
        let rows = stored_rows_or_none(&run);
        if rows.len() < total {
            kills_mid_run += 1;
        }
        // Nothing committed before is lost or changed.
        for (id, k, status, _, at) in &rows {
            assert_eq!(status, "ok");
            if let Some(prev) = committed.get(&(id.clone(), *k)) {
                assert_eq!(prev, at, "{id}/{k} was rewritten");
            }
        }
        for key in committed.keys() {
            assert!(
                rows.iter().any(|r| (&r.0, r.1) == (&key.0, key.1)),
                "{key:?} was lost"
            );
        }
        committed = rows.into_iter().map(|r| ((r.0, r.1), r.4)).collect();
    }
    assert!(
        kills_mid_run >= 3,
        "the runner finished before it could be killed"
    );

    // Continue to the end in this process.
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    config.concurrency = CONCURRENCY;
    config.samples = SAMPLES;
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.report);
    assert_eq!(out.report.overall().pass, 1.0);

    let rows = stored_rows(&run);
    assert_eq!(rows.len(), total);
    let keys: HashSet<(String, u32)> = rows.iter().map(|r| (r.0.clone(), r.1)).collect();
    assert_eq!(keys.len(), total, "a sample is stored twice");
    for (id, k, _, _, at) in &rows {
        if let Some(prev) = committed.get(&(id.clone(), *k)) {
            assert_eq!(prev, at, "{id}/{k} was requested again");
        }
    }
    let samples = pbebench_eval::store::RunStore::open_existing(&run)
        .unwrap()
        .samples()
        .unwrap();
    for s in &samples {
        let i: usize = s.instance_id[5..].parse().unwrap();
        assert_eq!(s.content.as_deref(), Some(answers[i].as_str()));
    }
    // Only work in flight at a kill was lost and requested again: per kill, at most one
    // request per worker plus the answers that had arrived but were not yet committed.
    let requests = server.chat_requests();
    assert!(
        requests <= total + 4 * 2 * CONCURRENCY,
        "{requests} requests for {total} samples"
    );
}

fn stored_rows_or_none(run: &Path) -> Vec<(String, u32, String, u32, String)> {
    if run.join("run.sqlite").exists() {
        std::panic::catch_unwind(|| stored_rows(run)).unwrap_or_default()
    } else {
        Vec::new()
    }
}
