//! Status lines for long commands whose standard error is no terminal (a log file, CI, a
//! pipe), where a progress bar draws nothing: one line every so often, as `eval` prints,
//! so that a run in the background shows it is alive and how far it has got.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Prints a status line on standard error every `every` while it lives (the thread stops
/// when it is dropped), when standard error is no terminal; does nothing on a terminal.
pub struct StatusLines {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl StatusLines {
    /// Starts printing `line()` every `every` if standard error is no terminal.
    pub fn off_terminal(every: Duration, line: impl Fn() -> String + Send + 'static) -> Self {
        if std::io::stderr().is_terminal() {
            return StatusLines {
                stop: None,
                thread: None,
            };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                eprintln!("{}", line());
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
