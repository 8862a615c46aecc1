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
//! `--timeout` bounds the whole episode, and [`MAX_RESPONSE_BYTES`] each line: a longer
//! one fails the episode (`failed`, with that reason) and the program is stopped. A
//! program's state cannot be stored, so an episode interrupted by a killed runner starts
//! over when the run is continued.

use super::{EndReason, Episode, Game, InteractiveSpec, Outcome, Totals};
use crate::sample::{Status, Usage, MAX_RESPONSE_BYTES};
use crate::solver_cmd::{read_stderr_tail, tail, SolverCommand};
use crate::store::TurnRow;
use pbebench::Instance;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// What the program wrote next.
enum Line {
    /// A line (trimmed; blank lines are skipped).
    Text(String),
    /// The end of its output.
    End,
    /// A line longer than [`MAX_RESPONSE_BYTES`]: nothing more is read.
    TooLong,
}

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
    let episode = Episode::new(instance, spec).map_err(|e| e.to_string())?;
    let first = first_line(instance, &spec);
    play(cmd, episode, &first, (&instance.id, sample), on_turn)
}

/// Runs the episode `game` of (`instance id`, `sample`) with `cmd`, whose first line is
/// `first`: one turn per line the program writes, each handed to `on_turn`.
pub(crate) fn play<G: Game>(
    cmd: &SolverCommand,
    mut episode: G,
    first: &str,
    (instance_id, sample): (&str, u32),
    on_turn: &mut dyn FnMut(TurnRow),
) -> Result<Outcome, String> {
    let start = Instant::now();
    let mut child = cmd.spawn(instance_id, sample).map_err(|e| e.to_string())?;
    let pid = rustix::process::Pid::from_child(&child);
    let mut stdin = child.stdin.take();
    let lines = read_lines(child.stdout.take().expect("stdout is piped"));
    let err_reader = read_stderr_tail(child.stderr.take().expect("stderr is piped"));
    let send = |stdin: &mut Option<std::process::ChildStdin>, line: &str| {
        if let Some(w) = stdin.as_mut() {
            if writeln!(w, "{line}").and_then(|()| w.flush()).is_err() {
                *stdin = None;
            }
        }
    };
    send(&mut stdin, first);

    let deadline = pbebench::deadline(start, cmd.timeout);
    let mut totals = Totals::default();
    let mut timed_out = false;
    let mut too_long = false;
    while episode.clock().ended().is_none() {
        let t0 = Instant::now();
        let line = match lines.recv_timeout(deadline.saturating_duration_since(t0)) {
            Ok(Line::Text(line)) => line,
            Ok(Line::End) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                episode.clock_mut().end(EndReason::Exit);
                break;
            }
            Ok(Line::TooLong) => {
                too_long = true;
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                timed_out = true;
                break;
            }
        };
        let turn = episode.clock().turns();
        let assistant =
            serde_json::from_str::<Value>(&line).unwrap_or_else(|_| json!({"raw": line}));
        let result = episode.program_line(&line);
        send(&mut stdin, &result.to_string());
        let latency_ms = t0.elapsed().as_secs_f64() * 1e3;
        totals.add(latency_ms, 1, Some(cmd.command.clone()));
        on_turn(TurnRow {
            instance_id: instance_id.to_owned(),
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
        episode.clock_mut().close_turn(Usage::default());
    }
    // The episode is over: the program gets end of input and a moment to exit (none when
    // it is writing a line too long: it is stopped at once).
    drop(stdin);
    let grace = if too_long {
        Instant::now()
    } else {
        (Instant::now() + Duration::from_secs(1)).min(deadline.max(Instant::now()))
    };
    let exit = wait_until(&mut child, grace);
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    let _ = child.wait();
    let ending = Ending {
        timed_out,
        too_long,
        exit,
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned(),
    };
    outcome(cmd, &episode, &totals, (instance_id, sample), ending)
}

/// How a program's episode ended, besides the episode itself.
struct Ending {
    /// The episode's time ran out.
    timed_out: bool,
    /// The program wrote a line longer than a message may be.
    too_long: bool,
    /// The program's exit status, if it exited in its grace time.
    exit: Option<std::process::ExitStatus>,
    /// The program's standard error (its tail).
    stderr: String,
}

/// What the episode of `cmd` on `instance` that ended as `ending` gives: its sample and
/// record, a failed sample, or `Err` when the program cannot run at all.
fn outcome(
    cmd: &SolverCommand,
    episode: &impl Game,
    totals: &Totals,
    (instance_id, sample): (&str, u32),
    ending: Ending,
) -> Result<Outcome, String> {
    let Ending {
        timed_out,
        too_long,
        exit,
        stderr,
    } = ending;
    let failure = |status: Status, error: String| {
        let mut s = totals.sample(episode, instance_id, sample);
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
    if too_long {
        return Ok(Outcome::Failed(failure(
            Status::Failed,
            format!(
                "message {}: the program wrote a line longer than {} KiB, more than a message \
                 may have; it was stopped and the line was not kept",
                episode.clock().turns() + 1,
                MAX_RESPONSE_BYTES >> 10
            ),
        )));
    }
    // A program that failed before it submitted gave no answer (as in the static mode).
    if episode.clock().ended() != Some(EndReason::Submit) {
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
        totals.sample(episode, instance_id, sample),
        episode.record(instance_id, sample),
    ))
}

/// Lines of the program's stdout as they come, then [`Line::End`] (or [`Line::TooLong`],
/// after which nothing more is read).
fn read_lines(out: std::process::ChildStdout) -> mpsc::Receiver<Line> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(out);
        loop {
            let mut buf = Vec::new();
            let n = reader
                .by_ref()
                .take(MAX_RESPONSE_BYTES as u64 + 1)
                .read_until(b'\n', &mut buf)
                .unwrap_or(0);
            if n == 0 {
                let _ = tx.send(Line::End);
                return;
            }
            let ended = buf.last() == Some(&b'\n');
            let len = buf.len() - usize::from(ended);
            if len > MAX_RESPONSE_BYTES {
                let _ = tx.send(Line::TooLong);
                return;
            }
            let line = String::from_utf8_lossy(&buf).trim().to_owned();
            if !line.is_empty() && tx.send(Line::Text(line)).is_err() {
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
