//! Error bars, in one place: the standard error and 95% interval of every rate pbebench
//! reports, and of the difference between two runs on the same instances.
//!
//! Two methods, chosen by what an instance contributes to the figure:
//!
//! - **Wilson** ([`wilson`]), when each instance contributes one 0/1 outcome (a figure of
//!   one sample per instance, or best-of-K, which is one outcome per instance whatever K):
//!   with `p = x/n` and `z = 1.96`, the interval is
//!   `(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)`. It stays inside [0, 1] and keeps
//!   its coverage near 0 and 1, where `p ± z·SE` collapses to a point. Its `se` is the
//!   one the interval implies, `(hi − lo) / 2z`: close to the binomial `√(p(1−p)/n)`
//!   away from 0 and 1, and not 0 at 0 or 1 (where the binomial one claims certainty).
//! - **Clustered** ([`clustered`]), when an instance contributes a mean (several samples
//!   per instance, or a figure that is not 0/1: behaviour, Edit_Sim, mean reward): the
//!   samples of one instance are not independent, so the unit is the instance (Miller,
//!   "Adding Error Bars to Evals", 2024): `SE = sd(m_j) / √n` over the per-instance means
//!   `m_j` (`sd` with `n − 1`), and the interval `mean ± z·SE` clipped to [0, 1].
//!
//! A micro average over rules or samples (Valid_Rate, valid responses) is a ratio of sums
//! over instances; [`ratio`] gives it the delta-method SE, clustered by instance.
//!
//! [`paired`] compares two runs on the same instances by their per-instance differences
//! `d_j = b_j − a_j`: `SE = sd(d_j) / √n`, interval `mean(d) ± z·SE`. Pairing removes the
//! instance-to-instance variance the two runs share, so it separates runs that
//! independent intervals cannot; [`Interval::excludes_zero`] says whether they differ.
//!
//! ```
//! use pbebench::interval::{clustered, wilson};
//!
//! let w = wilson(8, 10).unwrap();
//! assert_eq!(w.mean, 0.8);
//! assert!((w.lo - 0.4902).abs() < 1e-4 && (w.hi - 0.9433).abs() < 1e-4);
//! let c = clustered(&[1.0, 0.5, 0.0, 0.5]).unwrap();
//! assert_eq!(c.mean, 0.5);
//! assert!((c.se - (1.0f64 / 6.0).sqrt() / 2.0).abs() < 1e-12);
//! ```

use serde::{Deserialize, Serialize};
use std::fmt;

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// How an [`Interval`] was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Wilson's score interval of a binomial rate (one 0/1 outcome per instance).
    Wilson,
    /// The mean ± 1.96 standard errors of the per-instance means, clipped.
    Clustered,
    /// A ratio of sums over instances, with its delta-method SE (clustered by instance).
    Ratio,
    /// The mean of paired per-instance differences ± 1.96 standard errors.
    Paired,
    /// A difference of two independent figures: `SE = √(SE_a² + SE_b²)`.
    Independent,
}

impl Method {
    /// The method's name, as results files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Wilson => "wilson",
            Method::Clustered => "clustered",
            Method::Ratio => "ratio",
            Method::Paired => "paired",
            Method::Independent => "independent",
        }
    }
}

/// A figure with its standard error and 95% interval `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The figure (a rate, a mean, or a difference).
    pub mean: f64,
    /// Its standard error.
    pub se: f64,
    /// The lower end of the 95% interval.
    pub lo: f64,
    /// The upper end of the 95% interval.
    pub hi: f64,
    /// Instances (or pairs) it was computed over.
    pub n: usize,
    /// How.
    pub method: Method,
}

impl Interval {
    /// Whether the interval lies wholly on one side of zero: for a difference, whether the
    /// two figures can be told apart at the 95% level.
    pub fn excludes_zero(&self) -> bool {
        self.lo > 0.0 || self.hi < 0.0
    }

    /// Whether two intervals share a point (figures that cannot be told apart by their
    /// intervals alone; a [`paired`] comparison may still separate them).
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }

    /// The interval as tables print it: `[0.190, 0.316]`.
    pub fn bounds(&self) -> String {
        format!("[{:.3}, {:.3}]", self.lo, self.hi)
    }
}

/// `0.250 ± 0.031 [0.190, 0.316]`: the figure, its SE and its 95% interval.
impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} ± {:.3} {}", self.mean, self.se, self.bounds())
    }
}

/// Wilson's 95% score interval of `successes` out of `n` 0/1 outcomes; `None` when `n` is
/// 0 or `successes > n`.
pub fn wilson(successes: usize, n: usize) -> Option<Interval> {
    if n == 0 || successes > n {
        return None;
    }
    let (nf, p) = (n as f64, successes as f64 / n as f64);
    let z2 = Z95 * Z95;
    let denominator = 1.0 + z2 / nf;
    let centre = (p + z2 / (2.0 * nf)) / denominator;
    let half = Z95 * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt() / denominator;
    let (lo, hi) = ((centre - half).max(0.0), (centre + half).min(1.0));
    Some(Interval {
        mean: p,
        se: (hi - lo) / (2.0 * Z95),
        lo,
        hi,
        n,
        method: Method::Wilson,
    })
}

/// The mean of per-instance means `m_j` with `SE = sd(m_j)/√n` and `mean ± 1.96·SE` clipped
/// to [0, 1]; `None` with fewer than two instances (no spread to measure) or a value that
/// is not finite.
pub fn clustered(means: &[f64]) -> Option<Interval> {
    let (mean, se) = mean_and_se(means)?;
    Some(Interval {
        mean,
        se,
        lo: (mean - Z95 * se).clamp(0.0, 1.0),
        hi: (mean + Z95 * se).clamp(0.0, 1.0),
        n: means.len(),
        method: Method::Clustered,
    })
}

/// The rate of per-instance figures: Wilson's interval when `one_outcome_each` (every value
/// is one 0/1 outcome: one sample per instance, or best-of-K), else [`clustered`]. `None`
/// as those are, and for Wilson when a value is not 0 or 1.
///
/// Callers with shares of several samples per instance pass `one_outcome_each` when every
/// share is 0 or 1 (each instance's samples agree): the clustered SE would then be that
/// of 0/1 values with the spread of a binomial, and 0 where all agree, which Wilson's
/// interval does not claim.
pub fn rate(per_instance: &[f64], one_outcome_each: bool) -> Option<Interval> {
    if !one_outcome_each {
        return clustered(per_instance);
    }
    let mut successes = 0;
    for &v in per_instance {
        match v {
            1.0 => successes += 1,
            0.0 => {}
            _ => return None,
        }
    }
    wilson(successes, per_instance.len())
}

/// A ratio of sums over instances `R = Σ y_j / Σ x_j` (a micro average: valid rules over
/// rules), with the delta-method SE clustered by instance:
/// `SE = √(Σ (y_j − R·x_j)² / (n(n − 1))) / x̄`. `None` with fewer than two instances or
/// `Σ x_j = 0`.
pub fn ratio(pairs: &[(f64, f64)]) -> Option<Interval> {
    let n = pairs.len();
    let (sy, sx): (f64, f64) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), (y, x)| (a + y, b + x));
    if n < 2 || sx <= 0.0 || !(sy.is_finite() && sx.is_finite()) {
        return None;
    }
    let r = sy / sx;
    let nf = n as f64;
    let residual: f64 = pairs.iter().map(|(y, x)| (y - r * x).powi(2)).sum();
    let se = (residual / (nf * (nf - 1.0))).sqrt() / (sx / nf);
    Some(Interval {
        mean: r,
        se,
        lo: (r - Z95 * se).clamp(0.0, 1.0),
        hi: (r + Z95 * se).clamp(0.0, 1.0),
        n,
        method: Method::Ratio,
    })
}

/// The difference `b − a` of two runs on the same instances, from the per-instance values
/// in the same order: `mean(d)` with `SE = sd(d)/√n` and `mean ± 1.96·SE` (clipped to
/// [−1, 1]). `None` when the lengths differ, with fewer than two pairs, or a value that is
/// not finite.
pub fn paired(a: &[f64], b: &[f64]) -> Option<Interval> {
    if a.len() != b.len() {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(a, b)| b - a).collect();
    let (mean, se) = mean_and_se(&d)?;
    Some(Interval {
        mean,
        se,
        lo: (mean - Z95 * se).max(-1.0),
        hi: (mean + Z95 * se).min(1.0),
        n: d.len(),
        method: Method::Paired,
    })
}

/// The difference `b − a` of two figures measured independently (on different samples, or
/// where per-instance values are not at hand): `SE = √(SE_a² + SE_b²)`, `± 1.96·SE`. It
/// ignores what the two share, so it is wider than [`paired`] on the same instances.
pub fn independent(a: &Interval, b: &Interval) -> Interval {
    let se = a.se.hypot(b.se);
    let mean = b.mean - a.mean;
    Interval {
        mean,
        se,
        lo: (mean - Z95 * se).max(-1.0),
        hi: (mean + Z95 * se).min(1.0),
        n: a.n.min(b.n),
        method: Method::Independent,
    }
}

/// The mean and `sd/√n` (`sd` with `n − 1`) of `values`.
fn mean_and_se(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < 2 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let mean = values.iter().sum::<f64>() / nf;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    Some((mean, (var / nf).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    /// Wilson's interval by hand (z = 1.96): 8 of 10 gives
    /// centre (0.8 + 0.19208)/1.38416 = 0.716797, half 1.96·√(0.016 + 0.009604)/1.38416
    /// = 0.226597, so SE 0.226597/1.96 = 0.115611; 0 of 20 gives [0, 3.8416/23.8416 =
    /// 0.161130].
    #[test]
    fn wilson_by_hand() {
        let w = wilson(8, 10).unwrap();
        assert_eq!(w.method, Method::Wilson);
        assert!(close(w.lo, 0.716797 - 0.226597, 1e-4), "{w:?}");
        assert!(close(w.hi, 0.716797 + 0.226597, 1e-4), "{w:?}");
        assert!(close(w.se, 0.115611, 1e-5), "{w:?}");
        let zero = wilson(0, 20).unwrap();
        assert_eq!((zero.mean, zero.lo), (0.0, 0.0));
        assert!(close(zero.hi, 0.161130, 1e-4), "{zero:?}");
        assert!(
            close(zero.se, 0.161130 / 2.0 / 1.96, 1e-4),
            "not 0: {zero:?}"
        );
        let all = wilson(20, 20).unwrap();
        assert!(close(all.lo, 1.0 - 0.161130, 1e-4) && all.hi == 1.0);
        assert_eq!(wilson(0, 0), None);
        assert_eq!(wilson(3, 2), None);
    }

    /// Per-instance means 1, 0.5, 0, 0.5: mean 0.5, sd² = (0.25+0+0.25+0)/3 = 1/6,
    /// SE = √(1/6)/2 = 0.204124, interval 0.5 ± 0.400076.
    #[test]
    fn clustered_by_hand() {
        let c = clustered(&[1.0, 0.5, 0.0, 0.5]).unwrap();
        assert!(close(c.se, 0.204124, 1e-6), "{c:?}");
        assert!(
            close(c.lo, 0.099924, 1e-5) && close(c.hi, 0.900076, 1e-5),
            "{c:?}"
        );
        assert_eq!((c.n, c.method), (4, Method::Clustered));
        // Clipped to [0, 1].
        let c = clustered(&[0.0, 0.0, 0.0, 0.9]).unwrap();
        assert_eq!(c.lo, 0.0);
        assert_eq!(clustered(&[0.5]), None);
        assert_eq!(clustered(&[0.5, f64::NAN]), None);
    }

    #[test]
    fn rate_picks_the_method() {
        assert_eq!(rate(&[1.0, 0.0, 1.0], true), wilson(2, 3));
        assert_eq!(rate(&[1.0, 0.0, 1.0], false), clustered(&[1.0, 0.0, 1.0]));
        assert_eq!(rate(&[1.0, 0.5], true), None, "not one 0/1 outcome");
    }

    /// Valid rules over rules (2, 2), (1, 2), (0, 4): R = 3/8, residuals 1.25, 0.25, −1.5,
    /// Σ² = 3.875, SE = √(3.875/6)/(8/3) = 0.803638/2.666667 = 0.301364.
    #[test]
    fn ratio_by_hand() {
        let r = ratio(&[(2.0, 2.0), (1.0, 2.0), (0.0, 4.0)]).unwrap();
        assert_eq!(r.mean, 3.0 / 8.0);
        assert!(close(r.se, 0.301364, 1e-6), "{r:?}");
        assert_eq!(ratio(&[(0.0, 0.0), (0.0, 0.0)]), None);
        // Equal denominators: the clustered SE of the per-instance shares.
        let shares = ratio(&[(1.0, 2.0), (2.0, 2.0), (0.0, 2.0)]).unwrap();
        let means = clustered(&[0.5, 1.0, 0.0]).unwrap();
        assert!(close(shares.se, means.se, 1e-12));
    }

    /// Differences 1, 0, 0, 1 (b − a): mean 0.5, sd² = 1/3, SE = √(1/3)/2 = 0.288675, so
    /// the interval 0.5 ± 0.565792 holds zero; the same on 16 instances does not.
    #[test]
    fn paired_by_hand() {
        let a = [0.0, 1.0, 0.0, 0.0];
        let b = [1.0, 1.0, 0.0, 1.0];
        let d = paired(&a, &b).unwrap();
        assert_eq!(d.mean, 0.5);
        assert!(close(d.se, 0.288675, 1e-6), "{d:?}");
        assert!(!d.excludes_zero());
        let d16 = paired(&a.repeat(4), &b.repeat(4)).unwrap();
        assert!(d16.excludes_zero(), "{d16:?}");
        assert_eq!(paired(&a, &b[..3]), None);
        // Independent intervals of the same figures are wider than the paired one.
        let ind = independent(
            &clustered(&a.repeat(4)).unwrap(),
            &clustered(&b.repeat(4)).unwrap(),
        );
        assert!(ind.se > d16.se, "{ind:?} {d16:?}");
        assert!(close(ind.mean, 0.5, 1e-12));
    }

    #[test]
    fn overlap_and_display() {
        let a = wilson(8, 10).unwrap();
        let b = wilson(1, 10).unwrap();
        assert!(!a.overlaps(&b) && !b.overlaps(&a));
        assert!(a.overlaps(&wilson(6, 10).unwrap()));
        assert_eq!(a.to_string(), "0.800 ± 0.116 [0.490, 0.943]");
    }

    /// On simulated binomial data (a seeded RNG), Wilson's 95% interval covers the true
    /// rate within two points of 95%, averaged over rates and sizes (its coverage
    /// oscillates with them), and so does the clustered interval of per-instance means of
    /// four samples each, whose instances differ in their own rates.
    #[test]
    fn coverage_on_simulated_data() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(38);
        let trials = 1000;
        let (mut covered, mut total) = (0usize, 0usize);
        for &n in &[40usize, 128, 300] {
            for &p in &[0.05, 0.2, 0.5, 0.7, 0.9] {
                for _ in 0..trials {
                    let x = (0..n).filter(|_| rng.random::<f64>() < p).count();
                    let w = wilson(x, n).unwrap();
                    covered += usize::from(w.lo <= p && p <= w.hi);
                    total += 1;
                }
            }
        }
        let wilson_coverage = covered as f64 / total as f64;
        assert!(
            (wilson_coverage - 0.95).abs() < 0.02,
            "Wilson coverage {wilson_coverage}"
        );
        // Instance j passes each of its 4 samples with probability q_j ~ U(0, 1): the mean
        // is 0.5; the samples of one instance are correlated.
        let (mut covered, mut total) = (0usize, 0usize);
        for _ in 0..2000 {
            let means: Vec<f64> = (0..128)
                .map(|_| {
                    let q = rng.random::<f64>();
                    (0..4).filter(|_| rng.random::<f64>() < q).count() as f64 / 4.0
                })
                .collect();
            let c = clustered(&means).unwrap();
            covered += usize::from(c.lo <= 0.5 && 0.5 <= c.hi);
            total += 1;
        }
        let clustered_coverage = covered as f64 / total as f64;
        assert!(
            (clustered_coverage - 0.95).abs() < 0.02,
            "clustered coverage {clustered_coverage}"
        );
    }
}
