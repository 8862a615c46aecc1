//! `--solver-cmd "CMD"`: any program as a solver. It gets the instance without its gold
//! as JSON on stdin and writes its response (the same text a model would write) on stdout.

use crate::sample::{Sample, Status, Usage, MAX_RESPONSE_BYTES};
use pbebench::Instance;
use serde::Serialize;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How much of a failing program's stderr is kept in the sample's error.
const STDERR_TAIL: usize = 2000;

/// What a solver program sees of an instance: the examples and the limits, never the
/// gold cascade, its length or category, or the held-out examples.
#[derive(Debug, Serialize)]
pub struct PublicInstance<'a> {
    /// The instance id.
    pub id: &'a str,
    /// Example inputs.
    pub inputs: &'a [String],
    /// Example outputs.
    pub outputs: &'a [String],
    /// At most this many rules.
    pub max_rules: usize,
    /// Each side of a rule at most this long.
    pub max_rule_len: usize,
    /// The letters rules may use.
    pub alphabet: &'a str,
}

impl<'a> PublicInstance<'a> {
    /// The public part of `instance`.
    pub fn of(instance: &'a Instance) -> Self {
        PublicInstance {
            id: &instance.id,
            inputs: &instance.inputs,
            outputs: &instance.outputs,
            max_rules: instance.max_rules,
            max_rule_len: instance.max_rule_len,
            alphabet: &instance.alphabet,
        }
    }

    /// One line of JSON, as written to the program's stdin.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("strings serialise")
    }
}

/// Runs a shell command once per sample, with a timeout.
#[derive(Debug, Clone)]
pub struct SolverCommand {
    /// The command line, run with `sh -c`.
    pub command: String,
    /// Wall-time limit per run; the program and everything it started is then killed.
    pub timeout: Duration,
}

/// A solver program that could not be run at all: the run stops instead of recording
/// the same failure for every instance.
#[derive(Debug, thiserror::Error)]
#[error("{} '{command}' cannot run: {reason}", crate::Field::SolverCommand.path())]
pub struct CommandError {
    /// The command line.
    pub command: String,
    /// What went wrong.
    pub reason: String,
}

impl SolverCommand {
    /// Starts the command under `sh -c` with piped stdin, stdout and stderr, in its own
    /// process group (so that a timeout kills what the shell started too), with
    /// `PBEBENCH_INSTANCE_ID` and `PBEBENCH_SAMPLE` in its environment.
    pub(crate) fn spawn(&self, instance_id: &str, sample: u32) -> Result<Child, CommandError> {
        Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .env("PBEBENCH_INSTANCE_ID", instance_id)
            .env("PBEBENCH_SAMPLE", sample.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| CommandError {
                command: self.command.clone(),
                reason: format!("cannot start 'sh': {e}"),
            })
    }

    /// Runs the command on `stdin` (the instance JSON) for (instance, sample). The
    /// environment also carries `PBEBENCH_INSTANCE_ID` and `PBEBENCH_SAMPLE`.
    /// Exit 0: `ok` with stdout as the response; another exit: `failed` (not an answer;
    /// stderr kept); past the timeout: `timeout`; more than [`MAX_RESPONSE_BYTES`] on
    /// stdout: `failed`, the program stopped at once and nothing of its output kept.
    pub fn run(&self, stdin: &str, instance_id: &str, sample: u32) -> Result<Sample, CommandError> {
        let fail = |reason: String| CommandError {
            command: self.command.clone(),
            reason,
        };
        let start = Instant::now();
        let mut child = self.spawn(instance_id, sample)?;
        let pid = rustix::process::Pid::from_child(&child);
        let mut input = child.stdin.take().expect("stdin is piped");
        let stdin = stdin.to_owned();
        let writer = thread::spawn(move || {
            // A program that exits without reading its input is not an error.
            let _ = input.write_all(stdin.as_bytes());
        });
        let mut out = child.stdout.take().expect("stdout is piped");
        let too_long = Arc::new(AtomicBool::new(false));
        let reader = {
            let too_long = Arc::clone(&too_long);
            thread::spawn(move || {
                // One byte past the cap tells a response too long; nothing more is read.
                let mut buf = Vec::new();
                let _ = out
                    .by_ref()
                    .take(MAX_RESPONSE_BYTES as u64 + 1)
                    .read_to_end(&mut buf);
                if buf.len() > MAX_RESPONSE_BYTES {
                    too_long.store(true, Ordering::Relaxed);
                    buf = Vec::new();
                }
                buf
            })
        };
        let err_reader = read_stderr_tail(child.stderr.take().expect("stderr is piped"));

        let deadline = pbebench::deadline(start, self.timeout);
        let mut pause = Duration::from_millis(1);
        let exit: Option<ExitStatus> = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline || too_long.load(Ordering::Relaxed) => {
                    break None
                }
                Ok(None) => {
                    thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(e) => return Err(fail(format!("waiting for it failed: {e}"))),
            }
        };
        // Whatever the program left running (and holding our pipes) goes with it.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        let _ = child.wait();
        let _ = writer.join();
        let stdout = reader.join().unwrap_or_default();
        let stderr = err_reader.join().unwrap_or_default();
        let elapsed = start.elapsed().as_secs_f64() * 1e3;

        let (status, error) = match exit {
            _ if too_long.load(Ordering::Relaxed) => (Status::Failed, Some(too_long_error())),
            None => (
                Status::Timeout,
                Some(format!("no answer within {:?}", self.timeout)),
            ),
            Some(code) if code.success() => (Status::Ok, None),
            Some(code) => {
                let tail = tail(&String::from_utf8_lossy(&stderr));
                if matches!(code.code(), Some(126 | 127)) {
                    return Err(fail(format!("{code}: {tail}")));
                }
                (Status::Failed, Some(format!("{code}: {tail}")))
            }
        };
        let content = (!too_long.load(Ordering::Relaxed)).then(|| {
            String::from_utf8(stdout)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        });
        Ok(Sample {
            instance_id: instance_id.to_owned(),
            sample,
            status,
            content,
            reasoning_content: None,
            finish_reason: None,
            usage: Usage::default(),
            latency_ms: elapsed,
            elapsed_ms: elapsed,
            attempts: 1,
            endpoint: Some(self.command.clone()),
            http_status: None,
            error,
        })
    }
}

/// The error of a sample whose program wrote more than [`MAX_RESPONSE_BYTES`].
pub(crate) fn too_long_error() -> String {
    format!(
        "the program wrote more than {} KiB on its standard output, more than a response may \
         have; it was stopped and nothing of it was kept",
        MAX_RESPONSE_BYTES >> 10
    )
}

/// Reads a program's stderr to its end on a thread of its own (so that the program never
/// blocks on a full pipe), keeping only its last bytes: enough for [`tail`], never more,
/// whatever the program writes.
pub(crate) fn read_stderr_tail(mut err: ChildStderr) -> thread::JoinHandle<Vec<u8>> {
    // A character is at most 4 bytes.
    const KEEP: usize = 4 * STDERR_TAIL;
    thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            match err.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            if buf.len() > 2 * KEEP {
                buf.drain(..buf.len() - KEEP);
            }
        }
        if buf.len() > KEEP {
            buf.drain(..buf.len() - KEEP);
        }
        buf
    })
}

/// The end of a program's stderr, at most [`STDERR_TAIL`] characters, for a stored error.
pub(crate) fn tail(s: &str) -> String {
    let s = s.trim();
    let chars = s.chars().count();
    if chars <= STDERR_TAIL {
        s.to_owned()
    } else {
        let skip = chars - STDERR_TAIL;
        format!("…{}", s.chars().skip(skip).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(command: &str, ms: u64) -> SolverCommand {
        SolverCommand {
            command: command.to_owned(),
            timeout: Duration::from_millis(ms),
        }
    }

    #[test]
    fn stdout_is_the_response_and_stdin_the_instance() {
        let s = cmd(
            "cat; echo \" $PBEBENCH_INSTANCE_ID/$PBEBENCH_SAMPLE\"",
            5000,
        )
        .run("{\"x\":1}", "i7", 3)
        .unwrap();
        assert_eq!(s.status, Status::Ok);
        assert_eq!(s.content.as_deref(), Some("{\"x\":1} i7/3\n"));
    }

    #[test]
    fn failures_and_timeouts_are_recorded() {
        let s = cmd("echo oops >&2; exit 3", 5000).run("", "a", 0).unwrap();
        assert_eq!(s.status, Status::Failed);
        assert!(s.error.unwrap().contains("oops"));

        let t0 = Instant::now();
        // The shell's child holds stdout open; the timeout must kill it too.
        let s = cmd("sleep 30 | cat", 200).run("", "a", 0).unwrap();
        assert_eq!(s.status, Status::Timeout);
        assert!(t0.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_missing_program_stops_the_run() {
        let e = cmd("/nonexistent/solver --x", 5000)
            .run("", "a", 0)
            .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/solver"), "{e}");
    }

    #[test]
    fn the_gold_never_reaches_the_program() {
        let line = r#"{"inputs": ["xbu"], "outputs": ["xhu"], "programs": ["replace(\"b\", \"h\")"], "cascade_length": 1, "bfcc_category": "0000"}"#;
        let inst = pbebench::dataset::parse_instance(line, 0).unwrap();
        let json = PublicInstance::of(&inst).to_json();
        assert!(
            !json.contains("replace") && !json.contains("cascade") && !json.contains("category")
        );
        assert!(json.contains("\"max_rules\":5"));
    }
}
