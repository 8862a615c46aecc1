//! What the user sees while a run goes: done/total, ETA, the pass rate so far, tokens/s,
//! cost. A progress bar on a terminal; a status line every 30 s when stderr is a file.

use crate::sample::{Prices, Sample};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

const LINE_EVERY: Duration = Duration::from_secs(30);

pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    last_line: Instant,
    started: Instant,
    total: usize,
    done: usize,
    passed: usize,
    failures: usize,
    tokens: u64,
    cost: f64,
    prices: Prices,
}

impl Progress {
    /// `enabled`: draw at all; the bar only on a terminal.
    pub(crate) fn new(enabled: bool, total: usize, prices: Prices) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (enabled && terminal).then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {pos}/{len} [{wide_bar}] {percent}% ETA {eta} │ {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            lines: enabled && !terminal,
            last_line: Instant::now(),
            started: Instant::now(),
            total,
            done: 0,
            passed: 0,
            failures: 0,
            tokens: 0,
            cost: 0.0,
            prices,
        }
    }

    /// Counts a sample stored by an earlier invocation.
    pub(crate) fn previous(&mut self, passed: bool) {
        self.done += 1;
        self.passed += passed as usize;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
            bar.reset_eta();
        }
    }

    /// Counts a sample stored now; `pass` is `None` for a transport failure.
    pub(crate) fn record(&mut self, sample: &Sample, pass: Option<bool>) {
        match pass {
            Some(p) => {
                self.done += 1;
                self.passed += p as usize;
            }
            None => self.failures += 1,
        }
        self.tokens += sample.usage.completion_tokens.unwrap_or(0);
        self.cost += sample.usage.cost(self.prices);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done as u64);
            bar.set_message(self.message());
        }
        self.tick();
    }

    /// Prints the status line when it is due (off a terminal).
    pub(crate) fn tick(&mut self) {
        if self.lines && self.last_line.elapsed() >= LINE_EVERY {
            self.last_line = Instant::now();
            eprintln!("eval: {}/{} │ {}", self.done, self.total, self.message());
        }
    }

    pub(crate) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.set_message(self.message());
            bar.abandon();
        }
        if self.lines {
            eprintln!("eval: {}/{} │ {}", self.done, self.total, self.message());
        }
    }

    fn message(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let pass = if self.done > 0 {
            100.0 * self.passed as f64 / self.done as f64
        } else {
            0.0
        };
        let mut m = format!("pass {pass:.1}% │ {:.0} tok/s", self.tokens as f64 / secs);
        if self.prices != Prices::default() {
            m.push_str(&format!(" │ cost {:.4}", self.cost));
        }
        if self.failures > 0 {
            m.push_str(&format!(" │ {} failed", self.failures));
        }
        m
    }
}
