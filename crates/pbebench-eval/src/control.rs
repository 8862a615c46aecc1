//! The shared state of a run's workers: the stop flag, and the budget every request
//! reserves before it is sent.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Shared state of a run's workers: the stop flag and the budget.
pub struct Control {
    stop: AtomicBool,
    budget: Mutex<Budget>,
}

struct Budget {
    max: Option<f64>,
    spent: f64,
    paid: usize,
    in_flight: usize,
    exhausted: bool,
}

impl Control {
    pub(crate) fn new(max_cost: Option<f64>, spent: f64, paid: usize) -> Self {
        Control {
            stop: AtomicBool::new(false),
            budget: Mutex::new(Budget {
                max: max_cost,
                spent,
                paid,
                in_flight: 0,
                exhausted: false,
            }),
        }
    }

    /// True once the run is stopping: no new request starts, backoffs end early.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stops the run.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Sleeps `d`, waking early when the run stops; false if it did.
    pub fn sleep(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        while !self.stopped() {
            let now = Instant::now();
            if now >= end {
                return true;
            }
            std::thread::sleep((end - now).min(Duration::from_millis(50)));
        }
        false
    }

    /// Reserves one more request if the budget allows it: the spent cost plus the
    /// expected cost (mean so far) of every request in flight, this one included,
    /// must stay within `--max-cost`.
    pub(crate) fn reserve(&self) -> bool {
        let mut b = self.budget.lock().expect("budget lock");
        if let Some(max) = b.max {
            let mean = if b.paid > 0 {
                b.spent / b.paid as f64
            } else {
                0.0
            };
            if b.spent >= max || b.spent + (b.in_flight + 1) as f64 * mean > max {
                b.exhausted = true;
                drop(b);
                self.stop();
                return false;
            }
        }
        b.in_flight += 1;
        true
    }

    /// Settles a reserved request with what it cost (`None`: it produced no sample).
    pub(crate) fn settle(&self, cost: Option<f64>) {
        let mut b = self.budget.lock().expect("budget lock");
        b.in_flight -= 1;
        if let Some(c) = cost {
            b.spent += c;
            b.paid += 1;
        }
    }

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
        let ctl = Control::new(Some(1.0), 0.5, 4); // mean 0.125 per sample
                                                   // 0.5 spent + 4 in flight × 0.125 = 1.0: the fourth still fits, a fifth does not.
        for _ in 0..4 {
            assert!(ctl.reserve());
        }
        assert!(!ctl.reserve());
        assert!(ctl.stopped());
        assert_eq!(ctl.budget_exhausted(), Some((0.5, 1.0)));
    }

    #[test]
    fn stop_wakes_a_sleeping_worker() {
        let ctl = Control::new(None, 0.0, 0);
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
