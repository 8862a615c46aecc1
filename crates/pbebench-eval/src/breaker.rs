//! When a run's failures are systematic, and it should stop rather than record a failure
//! for every sample: a dead server, a proxy that breaks every reply, a solver program
//! with an import error.
//!
//! Each stored sample is one outcome, an answer or a failure to answer (after every
//! retry). The run stops when either
//! * the last `max(concurrency, 10)` samples in a row failed (a run whose first samples
//!   all fail stops after that many), or
//! * more than half of the last [`WINDOW`] samples failed (failures mixed with answers,
//!   as from one broken replica among several, or a proxy that breaks most replies).
//!
//! Failures that are the instance's own (a prompt too long for the context, answered 400)
//! rarely reach either bar, since they come between answers.

use std::collections::VecDeque;

/// The number of latest samples whose failure rate is watched.
pub(crate) const WINDOW: usize = 100;

/// Counts failures and says when they are systematic.
#[derive(Debug)]
pub(crate) struct Breaker {
    in_a_row_at: usize,
    in_a_row: usize,
    recent: VecDeque<bool>,
    recent_failures: usize,
}

/// Why the breaker tripped: `failures` of the last `of` samples failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tripped {
    pub(crate) failures: usize,
    pub(crate) of: usize,
}

impl Breaker {
    /// A breaker for a run with this many requests at once.
    pub(crate) fn new(concurrency: usize) -> Self {
        Breaker {
            in_a_row_at: concurrency.max(10),
            in_a_row: 0,
            recent: VecDeque::with_capacity(WINDOW),
            recent_failures: 0,
        }
    }

    /// Records one stored sample; `Some` once failures are systematic.
    pub(crate) fn record(&mut self, failed: bool) -> Option<Tripped> {
        self.in_a_row = if failed { self.in_a_row + 1 } else { 0 };
        if self.recent.len() == WINDOW && self.recent.pop_front() == Some(true) {
            self.recent_failures -= 1;
        }
        self.recent.push_back(failed);
        self.recent_failures += failed as usize;
        if self.in_a_row >= self.in_a_row_at {
            return Some(Tripped {
                failures: self.in_a_row,
                of: self.in_a_row,
            });
        }
        (self.recent.len() == WINDOW && 2 * self.recent_failures > WINDOW).then_some(Tripped {
            failures: self.recent_failures,
            of: WINDOW,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_in_a_row_trip_it() {
        let mut b = Breaker::new(4);
        for _ in 0..9 {
            assert_eq!(b.record(true), None);
        }
        assert_eq!(
            b.record(true),
            Some(Tripped {
                failures: 10,
                of: 10
            })
        );
        let mut b = Breaker::new(32);
        assert!((0..31).all(|_| b.record(true).is_none()));
        assert!(b.record(true).is_some());
    }

    #[test]
    fn an_answer_resets_the_row_but_not_the_window() {
        let mut b = Breaker::new(4);
        // Two failures, one answer, over and over: never 10 in a row, but 2/3 of the
        // window fails.
        let mut tripped = None;
        for i in 0..WINDOW {
            if let Some(t) = b.record(i % 3 != 2) {
                tripped = Some((i, t));
                break;
            }
        }
        let (i, t) = tripped.expect("the window trips");
        assert_eq!(i, WINDOW - 1);
        assert_eq!(t.of, WINDOW);
        assert!(t.failures * 2 > WINDOW);
    }

    #[test]
    fn occasional_failures_never_trip_it() {
        let mut b = Breaker::new(16);
        for i in 0..10 * WINDOW {
            assert_eq!(b.record(i % 5 == 0 || i % 5 == 1), None, "at {i}");
        }
    }
}
