//! `kill -9` at any moment loses only the requests in flight: a runner in another process
//! (this test binary, re-executed with [`CHILD_ENV`] set, which turns the test into
//! [`child_runner`]) is killed mid-run several times, then the run is continued; every
//! sample must exist exactly once, unchanged.

mod support;

use pbebench_eval::evaluate;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::*;

const CHILD_ENV: &str = "PBEBENCH_EVAL_CHILD";
/// The test that runs [`child_runner`] instead when [`CHILD_ENV`] is set.
const CHILD_TEST: &str = "kill_dash_nine_mid_run_loses_nothing_stored_and_repeats_nothing";
const CONCURRENCY: usize = 6;
const SAMPLES: u32 = 3;

/// The runner process that the resume test starts and kills: the test binary re-executed
/// on the resume test with [`CHILD_ENV`] set to what it runs (`spec`), so that it is no
/// test of its own.
fn child_runner(spec: &str) {
    let spec: serde_json::Value = serde_json::from_str(spec).unwrap();
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
        .args([CHILD_TEST, "--exact", "--nocapture", "--test-threads=1"])
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
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        return child_runner(&spec);
    }
    let dir = tempfile::tempdir().unwrap();
    let insts = instances(40);
    let total = insts.len() * SAMPLES as usize;
    let dataset = write_dataset(dir.path(), &insts);
    let index = PromptIndex::new(&insts);
    let answers: Vec<String> = insts.iter().map(gold_answer).collect();
    let gate = Arc::new(Gate::default());
    let server = {
        let (answers, gate) = (answers.clone(), Arc::clone(&gate));
        MockServer::start(move |req| {
            if !gate.wait() {
                return Reply::Drop;
            }
            Reply::answer(&answers[index.of(req)]).after(Duration::from_millis(25))
        })
    };
    let run = dir.path().join("run");

    // Kill at start-up, and after a quarter, a half and four fifths of the samples. The
    // server answers enough requests to pass each mark, and a few more (so that the kill
    // can still land while answers are being stored), then holds the rest: every kill
    // lands mid-run however slow or loaded the machine is.
    let mut committed: HashMap<(String, u32), String> = HashMap::new();
    let mut kills_mid_run = 0;
    for threshold in [0, total / 4, total / 2, total * 4 / 5] {
        gate.open(threshold.saturating_sub(committed.len()) + CONCURRENCY);
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
    assert_eq!(
        kills_mid_run, 4,
        "the runner finished before it could be killed"
    );

    // Continue to the end in this process.
    gate.open(usize::MAX);
    let mut config = chat_config(&dataset, &run, &[server.base_url()]);
    config.concurrency = CONCURRENCY;
    config.samples = SAMPLES;
    let out = evaluate(&config).unwrap();
    assert!(out.complete(), "{}", out.results);
    assert_eq!(out.results.overall().best_of_k, 1.0);

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

/// How many chat requests the mock server answers: the rest are held until more answers
/// are allowed, or dropped when the runner that sent them has been killed.
#[derive(Default)]
struct Gate {
    /// Answers given so far.
    granted: AtomicUsize,
    /// Answers allowed in all.
    allowed: AtomicUsize,
    /// Requests waiting now.
    held: AtomicUsize,
    /// Set while the held requests of a killed runner are dropped.
    drain: AtomicBool,
}

impl Gate {
    /// Waits until the request may be answered (true) or is to be dropped (false).
    fn wait(&self) -> bool {
        self.held.fetch_add(1, Ordering::SeqCst);
        let answer = loop {
            if self.drain.load(Ordering::SeqCst) {
                break false;
            }
            let granted = self.granted.load(Ordering::SeqCst);
            if granted < self.allowed.load(Ordering::SeqCst)
                && (self.granted)
                    .compare_exchange(granted, granted + 1, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            {
                break true;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        self.held.fetch_sub(1, Ordering::SeqCst);
        answer
    }

    /// Drops the requests still held (their runner is gone), then allows `more` answers
    /// beyond those given.
    fn open(&self, more: usize) {
        self.drain.store(true, Ordering::SeqCst);
        while self.held.load(Ordering::SeqCst) > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        let granted = self.granted.load(Ordering::SeqCst);
        self.allowed
            .store(granted.saturating_add(more), Ordering::SeqCst);
        self.drain.store(false, Ordering::SeqCst);
    }
}

fn stored_rows_or_none(run: &Path) -> Vec<(String, u32, String, u32, String)> {
    if run.join("run.sqlite").exists() {
        std::panic::catch_unwind(|| stored_rows(run)).unwrap_or_default()
    } else {
        Vec::new()
    }
}
