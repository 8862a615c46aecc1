//! The run's single writer: it commits every sample to the store as it arrives, updates
//! the progress, and stops the run on a fatal error or when samples keep failing.

use crate::breaker::Breaker;
use crate::control::Control;
use crate::progress::EvalProgress;
use crate::reorder::Task;
use crate::sample::Sample;
use crate::store::{Batch, RunStore};
use crate::worker::Event;
use crate::StopReason;
use pbebench::BlockChoice;
use pbebench::Instance;
use std::sync::mpsc;

/// one transaction), updates the progress, and stops the run on a fatal error or when
/// samples keep failing after every retry.
pub(crate) struct Writer<'a> {
    pub(crate) store: &'a mut RunStore,
    pub(crate) requests: &'a [Option<String>],
    pub(crate) instances: &'a [Instance],
    pub(crate) task: &'a Task,
    pub(crate) block: BlockChoice,
    pub(crate) progress: &'a dyn EvalProgress,
    pub(crate) ctl: &'a Control,
    pub(crate) breaker: Breaker,
    /// The samples come from a solver program (not endpoints): how a stop is worded.
    pub(crate) solver_program: bool,
    pub(crate) added: usize,
    pub(crate) stopped: Option<StopReason>,
}

impl Writer<'_> {
    /// Runs until every worker has finished.
    pub(crate) fn run(&mut self, rx: mpsc::Receiver<Event>) {
        let mut events: Vec<Event> = Vec::new();
        loop {
            let Ok(first) = rx.recv() else {
                return; // every worker has finished
            };
            events.clear();
            events.extend(std::iter::once(first).chain(rx.try_iter().take(1023)));
            self.commit(&events);
        }
    }

    /// Commits everything waiting in one transaction: turns in the order they came,
    /// samples and the records of the episodes they end.
    fn commit(&mut self, events: &[Event]) {
        let mut batch = Batch::default();
        let mut samples: Vec<(usize, &Sample)> = Vec::new();
        for event in events {
            match event {
                Event::Turn(turn) => batch.turns.push(turn),
                Event::Sample {
                    instance,
                    sample,
                    episode,
                } => {
                    let request = self.requests[*instance].as_deref().expect("request built");
                    batch.samples.push((sample, request));
                    batch.episodes.extend(episode.as_ref());
                    samples.push((*instance, sample));
                }
                Event::Fatal(e) => self.stop(StopReason::Solver(e.clone())),
            }
        }
        if batch.turns.is_empty() && batch.samples.is_empty() {
            return;
        }
        match self.store.commit(&batch) {
            Ok(n) => self.added += n,
            Err(e) => return self.stop(StopReason::Store(e.to_string())),
        }
        for (instance, sample) in samples {
            self.record(instance, sample);
        }
    }

    /// Updates the progress and the breaker with a stored sample.
    fn record(&mut self, instance: usize, sample: &Sample) {
        let pass = sample.status.is_answer().then(|| {
            let inst = &self.instances[instance];
            (self.task).passes(instance, inst, sample.response_text(), self.block)
        });
        self.progress.stored(sample, pass);
        if let Some(t) = self.breaker.record(!sample.status.is_answer()) {
            let last_error = one_line(sample.error.as_deref().unwrap_or_default());
            self.stop(if self.solver_program {
                StopReason::FailingSolver {
                    failures: t.failures,
                    of: t.of,
                    last_error,
                }
            } else {
                StopReason::FailingEndpoints {
                    failures: t.failures,
                    of: t.of,
                    last_error,
                }
            });
        }
    }

    /// Stops the run; the first reason is the one reported.
    fn stop(&mut self, reason: StopReason) {
        self.stopped.get_or_insert(reason);
        self.ctl.stop();
    }
}

/// An error as one line for a stop message: its last non-empty line (where a traceback
/// names the error), at most 300 characters.
fn one_line(error: &str) -> String {
    let line = error
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or_default();
    match line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_cut_to_their_last_line() {
        let e = "exit status: 1: Traceback (most recent call last):\n  File \"s.py\", line 1\nModuleNotFoundError: No module named 'numpyy'\n\n";
        assert_eq!(one_line(e), "ModuleNotFoundError: No module named 'numpyy'");
        assert_eq!(one_line("HTTP 500: boom"), "HTTP 500: boom");
        assert_eq!(one_line(""), "");
        assert_eq!(one_line(&"x".repeat(400)).chars().count(), 301);
    }
}
