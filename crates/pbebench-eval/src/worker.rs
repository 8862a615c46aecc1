//! The run's workers: each takes the next pending (instance, sample), reserves its cost,
//! asks the backend, and hands the sample on to the writer. Workers never touch the store.

use crate::backend::Backend;
use crate::control::Control;
use crate::sample::{Prices, Sample};
use pbebench::Instance;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// One (instance, sample index) to produce.
pub(crate) struct Job {
    pub(crate) instance: usize,
    pub(crate) sample: u32,
}

/// Every (instance, sample index) below `k` that holds no answer yet, instance by
/// instance (so that the K samples of a prompt reach the server together, which helps its
/// prefix cache).
pub(crate) fn pending_jobs(
    instances: &[Instance],
    answered: &HashSet<(String, u32)>,
    k: u32,
) -> Vec<Job> {
    let mut jobs = Vec::new();
    for (i, inst) in instances.iter().enumerate() {
        let mut key = (inst.id.clone(), 0);
        for sample in 0..k {
            key.1 = sample;
            if !answered.contains(&key) {
                jobs.push(Job {
                    instance: i,
                    sample,
                });
            }
        }
    }
    jobs
}

/// A result sent from a worker to the writer: the instance index and the sample (`None`
/// when the run stopped first; `Err` when the solver cannot run at all).
pub(crate) type WorkResult = (usize, Result<Option<Sample>, String>);

/// One of the run's workers: takes the next job, produces its sample, hands it on.
pub(crate) struct Worker<'a> {
    pub(crate) jobs: &'a [Job],
    pub(crate) next: &'a AtomicUsize,
    pub(crate) requests: &'a [Option<String>],
    pub(crate) instances: &'a [Instance],
    pub(crate) backend: &'a Backend,
    pub(crate) ctl: &'a Control,
    pub(crate) prices: Prices,
}

impl Worker<'_> {
    pub(crate) fn run(&self, tx: mpsc::Sender<WorkResult>) {
        while !self.ctl.stopped() {
            let Some(job) = self.jobs.get(self.next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let inst = &self.instances[job.instance];
            let request = self.requests[job.instance]
                .as_deref()
                .expect("request built");
            let Some(reservation) = self
                .ctl
                .reserve(self.backend.worst_cost(request, self.prices))
            else {
                break;
            };
            let result = self.backend.sample(request, &inst.id, job.sample, self.ctl);
            let cost = match &result {
                Ok(Some(s)) => s.usage.cost(self.prices),
                _ => 0.0,
            };
            self.ctl.settle(reservation, cost);
            if tx.send((job.instance, result)).is_err() {
                break;
            }
        }
    }
}
