//! The run's workers: each takes the next pending (instance, sample), reserves its cost,
//! asks the backend (or runs the episode, turn by turn), and hands what completes on to
//! the writer. Workers never touch the store.

use crate::backend::Backend;
use crate::control::Control;
use crate::episode::InteractiveSpec;
use crate::episode::Outcome;
use crate::reorder::Task;
use crate::sample::{Prices, Sample};
use crate::stepwise::{self, StepwiseSpec};
use crate::store::{EpisodeRow, TurnRow};
use pbebench::Instance;
use std::collections::{HashMap, HashSet};
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

/// What a worker hands to the writer.
#[allow(clippy::large_enum_variant)] // moved once, through a channel
pub(crate) enum Event {
    /// A completed turn of an episode.
    Turn(TurnRow),
    /// A sample (the answer, or a failure to answer), with the record of the episode it
    /// ends in interactive mode.
    Sample {
        instance: usize,
        sample: Sample,
        episode: Option<EpisodeRow>,
    },
    /// The solver cannot run at all.
    Fatal(String),
}

/// One of the run's workers: takes the next job, produces its sample (or runs its
/// episode), hands it on.
pub(crate) struct Worker<'a> {
    pub(crate) jobs: &'a [Job],
    pub(crate) next: &'a AtomicUsize,
    pub(crate) requests: &'a [Option<String>],
    pub(crate) instances: &'a [Instance],
    pub(crate) task: &'a Task,
    pub(crate) backend: &'a Backend,
    pub(crate) ctl: &'a Control,
    pub(crate) prices: Prices,
    pub(crate) interactive: Option<InteractiveSpec>,
    /// The stored turns of unfinished episodes (or searches), where they resume.
    pub(crate) resumed: &'a HashMap<(String, u32), Vec<TurnRow>>,
    /// A step-wise search, with its samples per step.
    pub(crate) stepwise: Option<(StepwiseSpec, u32)>,
}

impl Worker<'_> {
    pub(crate) fn run(&self, tx: mpsc::Sender<Event>) {
        while !self.ctl.stopped() {
            let Some(job) = self.jobs.get(self.next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let event = match (self.stepwise, self.interactive) {
                (Some((spec, k)), _) => self.search(job, spec, k, &tx),
                (None, None) => self.sample(job),
                (None, Some(spec)) => self.episode(job, spec, &tx),
            };
            if let Some(event) = event {
                if tx.send(event).is_err() {
                    break;
                }
            }
        }
    }

    fn sample(&self, job: &Job) -> Option<Event> {
        let inst = &self.instances[job.instance];
        let request = self.requests[job.instance]
            .as_deref()
            .expect("request built");
        let reservation = self
            .ctl
            .reserve(self.backend.worst_cost(request, self.prices))?;
        let result = self.backend.sample(request, &inst.id, job.sample, self.ctl);
        let cost = match &result {
            Ok(Some(s)) => s.usage.cost(self.prices),
            _ => 0.0,
        };
        self.ctl.settle(reservation, cost);
        match result {
            Ok(Some(sample)) => Some(Event::Sample {
                instance: job.instance,
                sample,
                episode: None,
            }),
            Ok(None) => None,
            Err(e) => Some(Event::Fatal(e)),
        }
    }

    fn search(
        &self,
        job: &Job,
        spec: StepwiseSpec,
        samples: u32,
        tx: &mpsc::Sender<Event>,
    ) -> Option<Event> {
        let inst = &self.instances[job.instance];
        let stored = self
            .resumed
            .get(&(inst.id.clone(), job.sample))
            .map_or(&[][..], Vec::as_slice);
        let search = stepwise::Search {
            backend: self.backend,
            spec,
            samples,
            ctl: self.ctl,
            prices: self.prices,
        };
        let mut on_turn = |turn| {
            let _ = tx.send(Event::Turn(turn));
        };
        match search.run(inst, stored, &mut on_turn) {
            Ok(stepwise::Outcome::Sample(sample)) => Some(Event::Sample {
                instance: job.instance,
                sample,
                episode: None,
            }),
            Ok(stepwise::Outcome::Stopped) => None,
            Err(e) => Some(Event::Fatal(e)),
        }
    }

    fn episode(&self, job: &Job, spec: InteractiveSpec, tx: &mpsc::Sender<Event>) -> Option<Event> {
        let inst = &self.instances[job.instance];
        let stored = self
            .resumed
            .get(&(inst.id.clone(), job.sample))
            .map_or(&[][..], Vec::as_slice);
        let mut on_turn = |turn| {
            let _ = tx.send(Event::Turn(turn));
        };
        let outcome = match self.task {
            Task::Synthesis => self.backend.episode(
                spec,
                inst,
                job.sample,
                stored,
                self.ctl,
                self.prices,
                &mut on_turn,
            ),
            Task::Reorder(problems) => crate::reorder::episode::run(
                self.backend,
                spec,
                &problems[job.instance],
                job.sample,
                stored,
                self.ctl,
                self.prices,
                &mut on_turn,
            ),
        };
        let (sample, episode) = match outcome {
            Ok(Outcome::Ended(sample, record)) => (sample, Some(record)),
            Ok(Outcome::Failed(sample)) => (sample, None),
            Ok(Outcome::Stopped) => return None,
            Err(e) => return Some(Event::Fatal(e)),
        };
        Some(Event::Sample {
            instance: job.instance,
            sample,
            episode,
        })
    }
}
