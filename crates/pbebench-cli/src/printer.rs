//! Everything a command prints besides its outputs and its result: notes on standard error
//! (summaries, stages, "wrote FILE"), warnings, and the progress of long commands — a bar
//! on a terminal, a status line every so often off one (a log file, CI, a pipe), so that a
//! run in the background shows it is alive and how far it has got. One module, so that
//! the global `--quiet` and `--no-progress` hold for every command (as uv's `printer.rs`).
//!
//! The libraries do not print: they report progress through their traits
//! (`pbebench::generate::Progress`, `SolveProgress`, `VetProgress`, `AuditProgress`,
//! `EvalProgress`), and each command turns those events into one [`Progress`] here.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Display;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The global options that decide what is printed, taken by every command.
#[derive(clap::Args, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrintArgs {
    /// Print only warnings and errors on standard error: no progress, no summaries
    #[arg(long, short = 'q', global = true, display_order = 1000)]
    pub quiet: bool,
    /// No progress bar, and no status lines in a log
    #[arg(long, global = true, display_order = 1000)]
    pub no_progress: bool,
}

/// What `main` was told; the defaults (everything printed) until it says.
static SETTINGS: OnceLock<PrintArgs> = OnceLock::new();

/// Settles what is printed, once, before the command runs.
pub fn init(args: PrintArgs) {
    let _ = SETTINGS.set(args);
}

fn settings() -> PrintArgs {
    SETTINGS.get().copied().unwrap_or_default()
}

/// Whether notes are left out (`--quiet`).
fn quiet() -> bool {
    settings().quiet
}

/// Whether progress is shown at all (neither `--quiet` nor `--no-progress`).
fn progress_shown() -> bool {
    let s = settings();
    !s.quiet && !s.no_progress
}

/// Prints a note, a line on standard error that is neither a warning nor an error (a
/// summary, a stage, what was written), unless `--quiet`.
pub fn note(line: impl Display) {
    if !quiet() {
        eprintln!("{line}");
    }
}

/// Prints `text` (whole lines, composed first: standard error is unbuffered, so each piece
/// of a formatted line would be a system call of its own) on standard error, unless
/// `--quiet`.
pub fn note_text(text: &str) {
    if !quiet() {
        eprint!("{text}");
    }
}

/// Prints `warning: {what}` on standard error, whatever `--quiet` says.
pub fn warn(what: impl Display) {
    eprintln!("warning: {what}");
}

/// The progress of one long step: a bar on a terminal, or a status line every `every` off
/// one, both saying `{name}: {done}/{total} {unit}, {message}`. Nothing is shown with
/// `--quiet` or `--no-progress`. The bar is cleared, and the status lines stop, when it is
/// finished or dropped.
pub struct Progress {
    shared: Arc<Shared>,
    bar: Option<ProgressBar>,
    status: Option<StatusLines>,
}

/// What the bar and the status lines read.
struct Shared {
    name: String,
    unit: String,
    started: Instant,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    done: u64,
    total: u64,
    message: String,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `{name}: {done}/{total} {unit}, {message}, {seconds} s`: the status line.
    fn line(&self) -> String {
        let s = self.state();
        let mut line = format!("{}: {}/{} {}", self.name, s.done, s.total, self.unit);
        if !s.message.is_empty() {
            line.push_str(", ");
            line.push_str(&s.message);
        }
        format!("{line}, {:.0} s", self.started.elapsed().as_secs_f64())
    }

    /// `{unit}, {message}`: what the bar shows after its counts.
    fn bar_message(&self, message: &str) -> String {
        if message.is_empty() {
            self.unit.clone()
        } else {
            format!("{}, {message}", self.unit)
        }
    }
}

impl Progress {
    /// Starts the progress of `name` (the command, as the lines start) over `total` items
    /// counted in `unit` ("instances", "done"), with a status line every `every` when
    /// standard error is no terminal.
    pub fn start(name: &str, unit: &str, total: usize, every: Duration) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Self::start_on(name, unit, total, every, progress_shown(), terminal)
    }

    fn start_on(
        name: &str,
        unit: &str,
        total: usize,
        every: Duration,
        shown: bool,
        terminal: bool,
    ) -> Self {
        let shared = Arc::new(Shared {
            name: name.to_owned(),
            unit: unit.to_owned(),
            started: Instant::now(),
            state: Mutex::new(State {
                total: total as u64,
                ..State::default()
            }),
        });
        let bar = (shown && terminal).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix}: {pos}/{len} {msg} [{bar:30}] {elapsed_precise} < {eta}",
                )
                .expect("the template is valid")
                .progress_chars("=> "),
            );
            bar.set_prefix(name.to_owned());
            bar.set_message(shared.bar_message(""));
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        let status = (shown && !terminal).then(|| {
            let shared = Arc::clone(&shared);
            StatusLines::every(every, move || shared.line(), |line| eprintln!("{line}"))
        });
        Progress {
            shared,
            bar,
            status,
        }
    }

    /// Sets how many items are done, and the message after the counts.
    pub fn set(&self, done: usize, message: impl Into<String>) {
        let message = message.into();
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
            bar.set_message(self.shared.bar_message(&message));
        }
        let mut s = self.shared.state();
        s.done = done as u64;
        s.message = message;
    }

    /// Sets how many items are done and how many there are (for steps whose total is
    /// known only as they go), keeping the message.
    pub fn set_counts(&self, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
        let mut s = self.shared.state();
        s.done = done as u64;
        s.total = total as u64;
    }

    /// Counts items done by an earlier run (resumed): the ETA counts only what is new.
    pub fn resumed(&self, done: usize, message: impl Into<String>) {
        self.set(done, message);
        if let Some(bar) = &self.bar {
            bar.reset_eta();
        }
    }

    /// How long since it started.
    pub fn elapsed(&self) -> Duration {
        self.shared.started.elapsed()
    }

    /// Clears the bar and stops the status lines.
    pub fn finish(mut self) {
        self.stop();
    }

    /// Leaves the last state in view: the bar stays drawn on a terminal, and off one a last
    /// status line is printed (for a run whose figures the user reads at the end).
    pub fn finish_in_view(mut self) {
        if let Some(bar) = self.bar.take() {
            bar.abandon();
        }
        if self.status.take().is_some() {
            eprintln!("{}", self.shared.line());
        }
    }

    fn stop(&mut self) {
        drop(self.status.take());
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Prints a line on standard error every `every` while it lives, from a thread of its own
/// (so that a step that reports nothing for minutes still shows it is alive).
struct StatusLines {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl StatusLines {
    /// Prints `line()` with `print` every `every`.
    fn every(
        every: Duration,
        line: impl Fn() -> String + Send + 'static,
        print: impl Fn(String) + Send + 'static,
    ) -> Self {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                print(line());
            }
        });
        StatusLines {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for StatusLines {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_says_counts_unit_and_message() {
        let p = Progress::start_on("solve", "done", 10, Duration::from_secs(1000), false, false);
        p.set(3, "2 solved");
        let line = p.shared.line();
        assert!(line.starts_with("solve: 3/10 done, 2 solved, "), "{line}");
        assert!(line.ends_with(" s"), "{line}");
        p.set_counts(4, 12);
        assert!(p.shared.line().starts_with("solve: 4/12 done, 2 solved, "));
        p.set(5, "");
        assert!(p.shared.line().starts_with("solve: 5/12 done, "));
    }

    #[test]
    fn status_lines_come_until_dropped() {
        let (tx, rx) = mpsc::channel();
        let count = std::sync::atomic::AtomicUsize::new(0);
        let count = Arc::new(count);
        let counted = Arc::clone(&count);
        let lines = StatusLines::every(
            Duration::from_millis(1),
            move || {
                let n = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                format!("line {n}")
            },
            move |line| {
                let _ = tx.send(line);
            },
        );
        assert_eq!(rx.recv().unwrap(), "line 0");
        assert_eq!(rx.recv().unwrap(), "line 1");
        drop(lines);
        // Stopped: the thread has ended, and with it the sender.
        let rest: Vec<String> = rx.iter().collect();
        assert_eq!(
            rest.len() + 2,
            count.load(std::sync::atomic::Ordering::SeqCst)
        );
    }

    /// A bar on a terminal, status lines off one, and neither when progress is off.
    #[test]
    fn what_is_shown_where() {
        for (shown, terminal, bar, lines) in [
            (true, true, true, false),
            (true, false, false, true),
            (false, true, false, false),
            (false, false, false, false),
        ] {
            let every = Duration::from_secs(1000);
            let p = Progress::start_on("vet", "done", 3, every, shown, terminal);
            assert_eq!(
                (p.bar.is_some(), p.status.is_some()),
                (bar, lines),
                "shown {shown}, terminal {terminal}"
            );
        }
    }
}
