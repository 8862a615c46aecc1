//! Episodes of a solver program (`--solver-cmd CMD --interactive`), over JSON lines on
//! its stdin and stdout:
//!
//! * the runner writes `{"task": {...}, "max_turns": N}` first (the task: `id`, `inputs`,
//!   `outputs`, `max_rules`, `max_rule_len`, `alphabet`, `probe_budget`, `max_probe_len`);
//! * the program writes one request per line, each a turn: `{"probe": [inputs]}` is
//!   answered `{"outputs": [...], "budget_left": n}`, `{"test": cascade}` with the
//!   feedback (`checked`, `passed`, `wrong`, `rule_problems`), and `{"submit": cascade}`
//!   with `{"submitted": true, …}`, after which its stdin is closed; anything unreadable
//!   is answered `{"error": "..."}`.
//!
//! `--timeout` bounds the whole episode. A program's state cannot be stored, so an
//! episode interrupted by a killed runner starts over when the run is continued.

use super::actions;
use super::chat::{Outcome, Totals};
use super::{EndReason, Episode, InteractiveSpec};
use crate::sample::{Status, Usage};
use crate::solver_cmd::{tail, SolverCommand};
use crate::store::TurnRow;
use pbebench::Instance;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// The longest line a program may write, in bytes; a longer one ends the episode.
const MAX_LINE: usize = 1 << 20;

/// The first line written to the program.
pub(crate) fn first_line(instance: &Instance, spec: &InteractiveSpec) -> String {
    match spec.oracle(instance) {
        Ok(o) => json!({"task": o.task(), "max_turns": spec.max_turns}).to_string(),
        Err(e) => json!({"error": e.to_string()}).to_string(),
    }
}

/// Runs one episode of `cmd` on `instance`.
pub(crate) fn run(
    cmd: &SolverCommand,
    spec: InteractiveSpec,
    instance: &Instance,
    sample: u32,
    on_turn: &mut dyn FnMut(TurnRow),
) -> Result<Outcome, String> {
    let mut episode = Episode::new(instance, spec).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut child = cmd.spawn(&instance.id, sample).map_err(|e| e.to_string())?;
    let pid = rustix::process::Pid::from_child(&child);
    let mut stdin = child.stdin.take();
    let lines = read_lines(child.stdout.take().expect("stdout is piped"));
    let mut err = child.stderr.take().expect("stderr is piped");
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let send = |stdin: &mut Option<std::process::ChildStdin>, line: &str| {
        if let Some(w) = stdin.as_mut() {
            if writeln!(w, "{line}").and_then(|()| w.flush()).is_err() {
                *stdin = None;
            }
        }
    };
    send(&mut stdin, &first_line(instance, &spec));

    let deadline = pbebench::deadline(start, cmd.timeout);
    let mut totals = Totals::default();
    let mut timed_out = false;
    while episode.ended().is_none() {
        let t0 = Instant::now();
        let line = match lines.recv_timeout(deadline.saturating_duration_since(t0)) {
            Ok(Some(line)) => line,
            Ok(None) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                episode.end(EndReason::Exit);
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                timed_out = true;
                break;
            }
        };
        let turn = episode.turns();
        let assistant =
            serde_json::from_str::<Value>(&line).unwrap_or_else(|_| json!({"raw": line}));
        let result = episode.act(actions::from_program_line(&line));
        send(&mut stdin, &result.to_string());
        let latency_ms = t0.elapsed().as_secs_f64() * 1e3;
        totals.add(latency_ms, 1, Some(cmd.command.clone()));
        on_turn(TurnRow {
            instance_id: instance.id.clone(),
            sample,
            turn,
            assistant,
            results: vec![result],
            reasoning_content: None,
            finish_reason: None,
            usage: Usage::default(),
            latency_ms,
            attempts: 1,
            endpoint: Some(cmd.command.clone()),
        });
        episode.close_turn(Usage::default());
    }
    // The episode is over: the program gets end of input and a moment to exit.
    drop(stdin);
    let exit = wait_until(
        &mut child,
        (Instant::now() + Duration::from_secs(1)).min(deadline.max(Instant::now())),
    );
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let _ = child.wait();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
    let failure = |status: Status, error: String| {
        let mut s = totals.sample(&episode, &instance.id, sample);
        s.status = status;
        s.content = None;
        s.error = Some(error);
        s
    };
    if timed_out {
        return Ok(Outcome::Failed(failure(
            Status::Timeout,
            format!("the episode took longer than {:?}", cmd.timeout),
        )));
    }
    // A program that failed before it submitted gave no answer (as in the static mode).
    if episode.ended() != Some(EndReason::Submit) {
        if let Some(code) = exit.filter(|c| !c.success()) {
            if matches!(code.code(), Some(126 | 127)) {
                return Err(format!(
                    "--solver-cmd '{}' cannot run: {code}: {}",
                    cmd.command,
                    stderr.trim()
                ));
            }
            return Ok(Outcome::Failed(failure(
                Status::Failed,
                format!("{code}: {}", tail(&stderr)),
            )));
        }
    }
    Ok(Outcome::Ended(
        totals.sample(&episode, &instance.id, sample),
        episode.record(&instance.id, sample),
    ))
}

/// Lines of the program's stdout as they come; `None` at the end (or past [`MAX_LINE`]).
fn read_lines(out: std::process::ChildStdout) -> mpsc::Receiver<Option<String>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(out);
        loop {
            let mut buf = Vec::new();
            let n = reader
                .by_ref()
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buf)
                .unwrap_or(0);
            if n == 0 || n > MAX_LINE {
                let _ = tx.send(None);
                return;
            }
            let line = String::from_utf8_lossy(&buf).trim().to_owned();
            if !line.is_empty() && tx.send(Some(line)).is_err() {
                return;
            }
        }
    });
    rx
}

fn wait_until(child: &mut std::process::Child, until: Instant) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}
