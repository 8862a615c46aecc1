//! Runner overhead per sample: `pbebench_eval::evaluate` against the loopback mock server
//! (run in a separate process, so its CPU is not counted) at 64 concurrent requests.
//! Reports samples/s and the runner's CPU time per sample (user + system, from
//! /proc/self/stat); the target is under 1 ms of CPU per sample.
//!
//!     CARGO_TARGET_DIR=target-eval cargo bench -p pbebench-eval --bench eval_overhead
//!
//! `EVAL_BENCH_SAMPLES` (default 4000) sets the number of samples per scenario.

#[path = "../../crates/pbebench-eval/tests/support/mod.rs"]
mod support;

use pbebench_eval::{evaluate, EvalConfig};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{chat, chat_config, instances, write_dataset, MockServer, Reply};

const SERVE_ENV: &str = "PBEBENCH_EVAL_BENCH_SERVE";
const CONCURRENCY: usize = 64;

fn main() {
    if let Ok(delay_ms) = std::env::var(SERVE_ENV) {
        serve(delay_ms.parse().expect("a delay in ms"));
        return;
    }
    let n: usize = std::env::var("EVAL_BENCH_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    println!("runner overhead, {CONCURRENCY} concurrent requests, {n} samples per scenario");
    println!(
        "{:<28} {:>10} {:>18} {:>18}",
        "scenario", "samples/s", "runner CPU/sample", "server CPU/sample"
    );
    for delay_ms in [0u64, 50] {
        let r = scenario(n, delay_ms);
        println!(
            "{:<28} {:>10.0} {:>15.3} ms {:>15.3} ms",
            format!("server latency {delay_ms} ms"),
            r.samples_per_s,
            r.runner_cpu_ms,
            r.server_cpu_ms
        );
    }
}

/// The mock server process: answers every chat request with a realistic reply (a short
/// answer with a code block, 2 KB of reasoning) after `delay_ms`.
fn serve(delay_ms: u64) {
    let content = "I tried the rules in order.\n```python\n[\"replace('ab', 'c')\", \"replace('c', 'kk')\"]\n```\n";
    let reasoning = "Let me think about which substrings change. ".repeat(45);
    let server = MockServer::start(move |_| {
        Reply::completion(Some(content), Some(&reasoning), "stop")
            .after(Duration::from_millis(delay_ms))
    });
    println!("{}", server.base_url());
    // Serve until the parent closes our stdin.
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
}

struct Figures {
    samples_per_s: f64,
    runner_cpu_ms: f64,
    server_cpu_ms: f64,
}

fn scenario(n: usize, delay_ms: u64) -> Figures {
    let mut server = Command::new(std::env::current_exe().unwrap())
        .env(SERVE_ENV, delay_ms.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the mock server");
    let mut url = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim().to_owned();

    let dir = tempfile::tempdir().unwrap();
    let dataset = write_dataset(dir.path(), &instances(n));
    let mut config: EvalConfig = chat_config(&dataset, &dir.path().join("run"), &[url]);
    config.concurrency = CONCURRENCY;
    chat(&mut config).timeout = Duration::from_secs(60);

    let server_cpu0 = cpu_seconds(&format!("/proc/{}/stat", server.id()));
    let cpu0 = cpu_seconds("/proc/self/stat");
    let t0 = Instant::now();
    let out = evaluate(&config).expect("the run");
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds("/proc/self/stat") - cpu0;
    let server_cpu = cpu_seconds(&format!("/proc/{}/stat", server.id())) - server_cpu0;
    assert_eq!(out.report.answered, n, "{}", out.report);

    drop(server.stdin.take());
    let _ = server.wait();
    Figures {
        samples_per_s: n as f64 / wall,
        runner_cpu_ms: cpu * 1e3 / n as f64,
        server_cpu_ms: server_cpu * 1e3 / n as f64,
    }
}

/// User + system CPU seconds of a process (fields 14 and 15 of /proc/PID/stat, in clock
/// ticks of 1/100 s on Linux).
fn cpu_seconds(stat_path: &str) -> f64 {
    let stat = std::fs::read_to_string(stat_path).expect("/proc is readable");
    let after_name = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // after_name starts at field 3 (state): utime is field 14, stime field 15.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / clock_ticks_per_second()
}

fn clock_ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}
