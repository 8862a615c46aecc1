//! The shared state of a run's workers: the stop flag, and the budget every request
//! reserves before it is sent.
//!
//! `--max-cost` is a hard cap on what the requests of a run may cost, whatever the
//! concurrency: before a request is sent, its **worst case** (see
//! [`Backend::worst_cost`](crate::backend::Backend)) is reserved, and a request is sent
//! only while the spent cost plus every reservation in flight, its own included, stays
//! within the cap. When it completes, its reservation is replaced by what it really cost.
//! A request that does not fit waits for requests in flight to settle; once even the
//! spent cost plus its own worst case passes the cap, the run stops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often a worker waiting for the budget checks whether the run stopped.
const BUDGET_POLL: Duration = Duration::from_millis(50);

/// Shared state of a run's workers: the stop flag and the budget.
pub struct Control {
    stop: AtomicBool,
    budget: Mutex<Budget>,
    settled: Condvar,
}

struct Budget {
    max: Option<f64>,
    /// What completed requests cost (earlier invocations included).
    spent: f64,
    /// The worst cases reserved by the requests in flight.
    reserved: f64,
    in_flight: usize,
    exhausted: bool,
}

/// A request's claim on the budget, taken by [`Control::reserve`] and given back by
/// [`Control::settle`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reservation(f64);

impl Control {
    /// A run's control with `spent` already spent against `max_cost` (none: no cap).
    pub(crate) fn new(max_cost: Option<f64>, spent: f64) -> Self {
        Control {
            stop: AtomicBool::new(false),
            budget: Mutex::new(Budget {
                max: max_cost,
                spent,
                reserved: 0.0,
                in_flight: 0,
                exhausted: false,
            }),
            settled: Condvar::new(),
        }
    }

    /// True once the run is stopping: no new request starts, backoffs end early.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stops the run.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.settled.notify_all();
    }

    /// Sleeps `d`, waking early when the run stops; false if it did.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = pbebench::deadline(Instant::now(), d);
        while !self.stopped() {
            let now = Instant::now();
            if now >= end {
                return true;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
        false
    }

    /// Reserves `worst` (the most the next request can cost) if the budget allows it:
    /// the spent cost plus every reservation in flight, this one included, must stay
    /// within `--max-cost`. Waits while only requests in flight are in the way; gives up
    /// (and stops the run) once the spent cost plus `worst` alone passes the cap, and
    /// returns `None` then or when the run stops while waiting.
    pub(crate) fn reserve(&self, worst: f64) -> Option<Reservation> {
        let mut b = self.budget.lock().expect("budget lock");
        loop {
            if self.stopped() {
                return None;
            }
            let Some(max) = b.max else { break };
            if b.spent + worst > max {
                b.exhausted = true;
                drop(b);
                self.stop();
                return None;
            }
            if b.spent + b.reserved + worst <= max {
                break;
            }
            b = self
                .settled
                .wait_timeout(b, BUDGET_POLL)
                .expect("budget lock")
                .0;
        }
        b.reserved += worst;
        b.in_flight += 1;
        Some(Reservation(worst))
    }

    /// Settles a reservation with what its request really cost.
    pub(crate) fn settle(&self, reservation: Reservation, cost: f64) {
        let mut b = self.budget.lock().expect("budget lock");
        b.in_flight -= 1;
        b.reserved = if b.in_flight == 0 {
            0.0 // no rounding residue survives the last request in flight
        } else {
            (b.reserved - reservation.0).max(0.0)
        };
        b.spent += cost;
        drop(b);
        self.settled.notify_all();
    }

    /// `(spent, max)` when the budget stopped the run.
    pub(crate) fn budget_exhausted(&self) -> Option<(f64, f64)> {
        let b = self.budget.lock().expect("budget lock");
        b.exhausted.then(|| (b.spent, b.max.unwrap_or(0.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_counts_requests_in_flight() {
        let ctl = Control::new(Some(1.0), 0.5);
        // 0.5 spent + 4 in flight × 0.125 = 1.0: the fourth still fits; a fifth waits for
        // one to settle, and gives up when what is spent leaves no room for it.
        let held: Vec<Reservation> = (0..4).map(|_| ctl.reserve(0.125).unwrap()).collect();
        let fifth = std::thread::scope(|s| {
            let waiter = s.spawn(|| ctl.reserve(0.125));
            std::thread::sleep(Duration::from_millis(100));
            assert!(!waiter.is_finished(), "a fifth request waits");
            ctl.settle(held[0], 0.0); // it cost nothing: room for one more
            waiter.join().unwrap().expect("and goes once one settles")
        });
        for r in held[1..].iter().chain([&fifth]) {
            ctl.settle(*r, 0.125);
        }
        assert!(!ctl.stopped());
        // 0.5 + 4 × 0.125 spent: nothing more fits.
        assert!(ctl.reserve(0.125).is_none());
        assert!(ctl.stopped());
        assert_eq!(ctl.budget_exhausted(), Some((1.0, 1.0)));
    }

    #[test]
    fn stop_wakes_a_worker_waiting_for_the_budget() {
        let ctl = Control::new(Some(1.0), 0.0);
        let _held = ctl.reserve(1.0).unwrap();
        std::thread::scope(|s| {
            let waiter = s.spawn(|| ctl.reserve(0.5));
            std::thread::sleep(Duration::from_millis(50));
            ctl.stop();
            assert_eq!(waiter.join().unwrap(), None);
        });
        assert_eq!(ctl.budget_exhausted(), None);
    }

    #[test]
    fn a_cheaper_settlement_frees_the_budget() {
        let ctl = Control::new(Some(1.0), 0.0);
        let a = ctl.reserve(0.6).unwrap();
        ctl.settle(a, 0.1);
        let b = ctl.reserve(0.6).unwrap(); // 0.1 spent + 0.6 fits
        ctl.settle(b, 0.6);
        assert!(ctl.reserve(0.6).is_none()); // 0.7 + 0.6 does not
        assert_eq!(ctl.budget_exhausted(), Some((0.7, 1.0)));
    }

    #[test]
    fn without_a_cap_everything_fits() {
        let ctl = Control::new(None, 0.0);
        for _ in 0..100 {
            assert!(ctl.reserve(1e9).is_some());
        }
        assert_eq!(ctl.budget_exhausted(), None);
    }

    #[test]
    fn stop_wakes_a_sleeping_worker() {
        let ctl = Control::new(None, 0.0);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(50));
                ctl.stop();
            });
            let t0 = Instant::now();
            assert!(!ctl.sleep(Duration::from_secs(30)));
            assert!(t0.elapsed() < Duration::from_secs(5));
        });
    }
}
