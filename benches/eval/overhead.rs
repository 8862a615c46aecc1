//! Runner overhead per sample: `pbebench_eval::evaluate` against the loopback mock server
//! (run in a separate process, so its CPU is not counted) at 64 concurrent requests.
//! Reports samples/s and the runner's CPU time per sample (user + system, from
//! /proc/self/stat); the target is under 1 ms of CPU per sample.
//!
//! Interactive mode: 64 episodes in flight, five turns each (four `run_hidden` calls,
//! then `submit`), every turn committed to the store; the runner's CPU per turn is
//! printed beside the static mode's CPU per sample, measured in the same process.
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
use support::{chat, chat_config, instances, interactive_config, write_dataset, MockServer, Reply};

const SERVE_ENV: &str = "PBEBENCH_EVAL_BENCH_SERVE";
const CONCURRENCY: usize = 64;

fn main() {
    if let Ok(spec) = std::env::var(SERVE_ENV) {
        let (delay_ms, mode) = spec.split_once(':').expect("delay:mode");
        serve(
            delay_ms.parse().expect("a delay in ms"),
            mode == "interactive",
        );
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
    let mut per_sample = Vec::new();
    for delay_ms in [0u64, 50] {
        let r = scenario(n, delay_ms, false);
        per_sample.push(r.runner_cpu_ms);
        println!(
            "{:<28} {:>10.0} {:>15.3} ms {:>15.3} ms",
            format!("server latency {delay_ms} ms"),
            r.samples_per_s,
            r.runner_cpu_ms,
            r.server_cpu_ms
        );
    }
    let episodes = (n / 5).max(64);
    println!(
        "\ninteractive: {CONCURRENCY} episodes in flight, {episodes} episodes of {TURNS} turns"
    );
    println!(
        "{:<28} {:>10} {:>18} {:>18} {:>10}",
        "scenario", "turns/s", "runner CPU/turn", "server CPU/turn", "vs static"
    );
    for (k, delay_ms) in [0u64, 50].into_iter().enumerate() {
        let r = scenario(episodes, delay_ms, true);
        println!(
            "{:<28} {:>10.0} {:>15.3} ms {:>15.3} ms {:>9.2}×",
            format!("server latency {delay_ms} ms"),
            r.samples_per_s,
            r.runner_cpu_ms,
            r.server_cpu_ms,
            r.runner_cpu_ms / per_sample[k]
        );
    }
}

/// Turns per benchmark episode.
const TURNS: usize = 5;

/// The mock server process: answers every chat request with a realistic reply (a short
/// answer with a code block, 2 KB of reasoning) after `delay_ms`.
fn serve(delay_ms: u64, interactive: bool) {
    let content = "I tried the rules in order.\n```python\n[\"replace('ab', 'c')\", \"replace('c', 'kk')\"]\n```\n";
    let reasoning = "Let me think about which substrings change. ".repeat(45);
    let server = MockServer::start(move |req| {
        let reply = if !interactive {
            Reply::completion(Some(content), Some(&reasoning), "stop")
        } else if req.turn() + 1 < TURNS {
            Reply::tool_calls(
                Some("Probing."),
                &[("run_hidden", r#"{"inputs": ["ab", "ba"]}"#)],
            )
        } else {
            Reply::tool_calls(None, &[("submit", r#"{"cascade": ["replace('a', 'b')"]}"#)])
        };
        reply.after(Duration::from_millis(delay_ms))
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

/// `n` samples (or, `interactive`, `n` episodes of [`TURNS`] turns); figures per sample
/// (per turn).
fn scenario(n: usize, delay_ms: u64, interactive: bool) -> Figures {
    let mode = if interactive { "interactive" } else { "static" };
    let mut server = Command::new(std::env::current_exe().unwrap())
        .env(SERVE_ENV, format!("{delay_ms}:{mode}"))
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
    let run = dir.path().join("run");
    let mut config: EvalConfig = if interactive {
        let mut c = interactive_config(&dataset, &run, &[url]);
        let spec = c.interactive.as_mut().unwrap();
        spec.max_turns = TURNS as u32;
        spec.probe_budget = 40;
        c
    } else {
        chat_config(&dataset, &run, &[url])
    };
    config.concurrency = CONCURRENCY;
    chat(&mut config).timeout = Duration::from_secs(60);

    let server_cpu0 = cpu_seconds(&format!("/proc/{}/stat", server.id()));
    let cpu0 = cpu_seconds("/proc/self/stat");
    let t0 = Instant::now();
    let out = evaluate(&config).expect("the run");
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds("/proc/self/stat") - cpu0;
    let server_cpu = cpu_seconds(&format!("/proc/{}/stat", server.id())) - server_cpu0;
    assert_eq!(out.results.answered, n, "{}", out.results);
    let units = if interactive { n * TURNS } else { n };
    if interactive {
        let turns: u32 = out
            .interactive
            .unwrap()
            .episodes
            .iter()
            .map(|e| e.turns)
            .sum();
        assert_eq!(turns as usize, units);
    }

    drop(server.stdin.take());
    let _ = server.wait();
    Figures {
        samples_per_s: units as f64 / wall,
        runner_cpu_ms: cpu * 1e3 / units as f64,
        server_cpu_ms: server_cpu * 1e3 / units as f64,
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
