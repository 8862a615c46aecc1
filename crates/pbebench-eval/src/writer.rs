//! The run's single writer: it commits every sample to the store as it arrives, updates
//! the progress, and stops the run on a fatal error or when samples keep failing.

use crate::control::Control;
use crate::progress::Progress;
use crate::sample::Sample;
use crate::scoring::{self, Block};
use crate::store::RunStore;
use crate::worker::WorkResult;
use crate::StopReason;
use pbebench::Instance;
use std::sync::mpsc;
use std::time::Duration;

/// one transaction), updates the progress, and stops the run on a fatal error or when
/// samples keep failing after every retry.
pub(crate) struct Writer<'a> {
    pub(crate) store: &'a mut RunStore,
    pub(crate) requests: &'a [Option<String>],
    pub(crate) instances: &'a [Instance],
    pub(crate) block: Block,
    pub(crate) progress: &'a mut Progress,
    pub(crate) ctl: &'a Control,
    pub(crate) breaker_at: usize,
    pub(crate) consecutive_failures: usize,
    pub(crate) added: usize,
    pub(crate) stopped: Option<StopReason>,
}

impl Writer<'_> {
    /// Runs until every worker has finished.
    pub(crate) fn run(&mut self, rx: mpsc::Receiver<WorkResult>) {
        let mut batch: Vec<(usize, Sample)> = Vec::new();
        loop {
            let first = match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(m) => m,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.progress.tick();
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            };
            batch.clear();
            for (instance, result) in std::iter::once(first).chain(rx.try_iter().take(1023)) {
                match result {
                    Ok(Some(sample)) => batch.push((instance, sample)),
                    Ok(None) => {}
                    Err(e) => self.stop(StopReason::Solver(e)),
                }
            }
            if !batch.is_empty() {
                self.commit(&batch);
            }
        }
    }

    fn commit(&mut self, batch: &[(usize, Sample)]) {
        let rows: Vec<(&Sample, &str)> = batch
            .iter()
            .map(|(i, s)| (s, self.requests[*i].as_deref().expect("request built")))
            .collect();
        match self.store.insert(&rows) {
            Ok(n) => self.added += n,
            Err(e) => return self.stop(StopReason::Store(e.to_string())),
        }
        for (instance, sample) in batch {
            let pass = sample.status.is_answer().then(|| {
                scoring::passes(
                    &self.instances[*instance],
                    sample.response_text(),
                    self.block,
                )
            });
            self.progress.record(sample, pass);
            if sample.status.is_answer() {
                self.consecutive_failures = 0;
            } else {
                self.consecutive_failures += 1;
                if self.consecutive_failures >= self.breaker_at {
                    self.stop(StopReason::FailingEndpoints {
                        failures: self.consecutive_failures,
                        last_error: sample.error.clone().unwrap_or_default(),
                    });
                }
            }
        }
    }

    /// Stops the run; the first reason is the one reported.
    fn stop(&mut self, reason: StopReason) {
        self.stopped.get_or_insert(reason);
        self.ctl.stop();
    }
}
