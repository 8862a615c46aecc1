//! Logistic regression by Newton's method (IRLS) with Wald statistics, as statsmodels'
//! `Logit(...).fit()` computes them: coefficients, standard errors from the inverse
//! observed information, Wald `z = β / se` and two-sided normal p-values.

use serde::Serialize;

/// Why a model could not be fitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogitError {
    /// Fewer observations than parameters, or none at all.
    #[error("{observations} observations are too few for {parameters} parameters")]
    TooFew {
        /// Rows.
        observations: usize,
        /// Columns including the intercept.
        parameters: usize,
    },
    /// Every outcome is the same, so there is nothing to explain.
    #[error("every outcome is {0}: nothing to fit")]
    ConstantOutcome(bool),
    /// The predictors are linearly dependent (after dropping constant ones).
    #[error("the predictors are collinear ({0})")]
    Collinear(String),
    /// A row has the wrong number of values or a value that is not finite.
    #[error("row {0} is malformed (wrong width or a non-finite value)")]
    BadRow(usize),
}

/// A fitted model. The first coefficient is the intercept (`const`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogitFit {
    /// Parameter names: `const`, then the predictors kept.
    pub names: Vec<String>,
    /// Estimates β.
    pub coef: Vec<f64>,
    /// Standard errors `sqrt(diag((XᵀWX)⁻¹))`.
    pub std_err: Vec<f64>,
    /// Wald statistics `β / se`.
    pub z: Vec<f64>,
    /// Two-sided p-values `2 (1 − Φ(|z|))`.
    pub p_value: Vec<f64>,
    /// Observations.
    pub n: usize,
    /// Observations with outcome 1.
    pub positives: usize,
    /// Newton iterations used.
    pub iterations: usize,
    /// Whether the step became negligible before the iteration cap.
    pub converged: bool,
    /// Log-likelihood at the estimate.
    pub log_likelihood: f64,
    /// Log-likelihood of the intercept-only model.
    pub null_log_likelihood: f64,
    /// McFadden's pseudo-R² `1 − ℓ / ℓ₀`.
    pub pseudo_r2: f64,
    /// Predictors left out because they do not vary.
    pub dropped: Vec<String>,
    /// Some fitted probability is within 1e-8 of 0 or 1: (quasi-)separation, so the
    /// estimates and especially the standard errors are unreliable.
    pub separation: bool,
}

/// Most Newton iterations tried (statsmodels' default is 35).
const MAX_ITER: usize = 100;

/// Fits `P(y = 1) = σ(β₀ + Σ βⱼ xⱼ)`. `rows` hold the predictor values (without the
/// intercept) in the order of `names`; predictors that are constant are dropped and listed.
pub fn fit_logit(names: &[&str], rows: &[Vec<f64>], y: &[bool]) -> Result<LogitFit, LogitError> {
    for (k, row) in rows.iter().enumerate() {
        if row.len() != names.len() || row.iter().any(|v| !v.is_finite()) {
            return Err(LogitError::BadRow(k));
        }
    }
    if rows.len() != y.len() {
        return Err(LogitError::BadRow(rows.len().min(y.len())));
    }
    let n = rows.len();
    let positives = y.iter().filter(|v| **v).count();
    if n > 0 && (positives == 0 || positives == n) {
        return Err(LogitError::ConstantOutcome(positives == n));
    }
    let keep: Vec<usize> = (0..names.len())
        .filter(|&j| rows.iter().any(|r| r[j] != rows[0][j]))
        .collect();
    let dropped = (0..names.len())
        .filter(|j| !keep.contains(j))
        .map(|j| names[j].to_owned())
        .collect();
    let p = keep.len() + 1;
    if n <= p {
        return Err(LogitError::TooFew {
            observations: n,
            parameters: p,
        });
    }
    let x: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            std::iter::once(1.0)
                .chain(keep.iter().map(|&j| r[j]))
                .collect()
        })
        .collect();
    let mut names_kept = vec!["const".to_owned()];
    names_kept.extend(keep.iter().map(|&j| names[j].to_owned()));

    let mut beta = vec![0.0; p];
    let mut iterations = 0;
    let mut converged = false;
    let mut cov = Vec::new();
    while iterations < MAX_ITER {
        iterations += 1;
        let (grad, hess) = gradient_and_information(&x, y, &beta);
        cov = match invert_spd(&hess) {
            Some(c) => c,
            // At β = 0 every weight is 1/4, so a singular information is collinearity.
            None if iterations == 1 => {
                return Err(LogitError::Collinear(names_kept[1..].join(", ")))
            }
            // Later, weights vanish as fitted probabilities reach 0 or 1: separation.
            None => break,
        };
        let step: Vec<f64> = (0..p)
            .map(|i| (0..p).map(|j| cov[i][j] * grad[j]).sum())
            .collect();
        for (b, s) in beta.iter_mut().zip(&step) {
            *b += s;
        }
        let size = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        if size < 1e-10 {
            converged = true;
            break;
        }
    }
    // Covariance at the final estimate.
    let (_, hess) = gradient_and_information(&x, y, &beta);
    if let Some(c) = invert_spd(&hess) {
        cov = c;
    }
    let std_err: Vec<f64> = (0..p).map(|i| cov[i][i].max(0.0).sqrt()).collect();
    let z: Vec<f64> = beta.iter().zip(&std_err).map(|(b, s)| b / s).collect();
    let p_value = z
        .iter()
        .map(|z| erfc(z.abs() / std::f64::consts::SQRT_2))
        .collect();
    let log_likelihood = log_likelihood(&x, y, &beta);
    let rate = positives as f64 / n as f64;
    let null_log_likelihood =
        positives as f64 * rate.ln() + (n - positives) as f64 * (1.0 - rate).ln();
    let separation = x.iter().any(|row| {
        let mu = sigmoid(dot(row, &beta));
        !(1e-8..=1.0 - 1e-8).contains(&mu)
    });
    Ok(LogitFit {
        names: names_kept,
        coef: beta,
        std_err,
        z,
        p_value,
        n,
        positives,
        iterations,
        converged,
        log_likelihood,
        null_log_likelihood,
        pseudo_r2: 1.0 - log_likelihood / null_log_likelihood,
        dropped,
        separation,
    })
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `1 / (1 + e^{−t})` without overflow.
fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// The score `Xᵀ(y − μ)` and the information `XᵀWX`, `W = diag(μ(1 − μ))`.
fn gradient_and_information(x: &[Vec<f64>], y: &[bool], beta: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let p = beta.len();
    let mut grad = vec![0.0; p];
    let mut info = vec![vec![0.0; p]; p];
    for (row, &yi) in x.iter().zip(y) {
        let mu = sigmoid(dot(row, beta));
        let w = mu * (1.0 - mu);
        let r = f64::from(u8::from(yi)) - mu;
        for (i, (g, xi)) in grad.iter_mut().zip(row).enumerate() {
            *g += xi * r;
            for (cell, xj) in info[i].iter_mut().zip(row).take(i + 1) {
                *cell += w * xi * xj;
            }
        }
    }
    // Mirror the lower triangle.
    let lower = info.clone();
    for (i, row) in info.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate().skip(i + 1) {
            *cell = lower[j][i];
        }
    }
    (grad, info)
}

fn log_likelihood(x: &[Vec<f64>], y: &[bool], beta: &[f64]) -> f64 {
    x.iter()
        .zip(y)
        .map(|(row, &yi)| {
            let t = dot(row, beta);
            // log σ(t) = −log(1 + e^{−t}); log(1 − σ(t)) = −log(1 + e^{t}).
            let s = if yi { -t } else { t };
            -(s.max(0.0) + (-(s.abs())).exp().ln_1p())
        })
        .sum()
}

/// The inverse of a symmetric positive definite matrix by Cholesky; `None` when it is
/// not (numerically) positive definite.
pub fn invert_spd(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let scale = (0..n)
        .map(|i| a[i][i].abs())
        .fold(0.0, f64::max)
        .max(1e-300);
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = a[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>();
            if i == j {
                if s <= scale * 1e-13 {
                    return None;
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    // Solve L Lᵀ X = I column by column.
    let mut inv = vec![vec![0.0; n]; n];
    for c in 0..n {
        let mut z = vec![0.0; n];
        for i in 0..n {
            let rhs = if i == c { 1.0 } else { 0.0 };
            z[i] = (rhs - (0..i).map(|k| l[i][k] * z[k]).sum::<f64>()) / l[i][i];
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            x[i] = (z[i] - (i + 1..n).map(|k| l[k][i] * x[k]).sum::<f64>()) / l[i][i];
        }
        for (row, v) in inv.iter_mut().zip(&x) {
            row[c] = *v;
        }
    }
    Some(inv)
}

/// The complementary error function to about 1e-15 relative accuracy: a series of
/// positive terms below 2.5, Lentz's continued fraction above.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.5 {
        // erf(x) = 2/√π e^{−x²} Σ 2ⁿ x^{2n+1} / (1·3·…·(2n+1)).
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term > sum * 1e-17 {
            n += 1.0;
            term *= 2.0 * x * x / (2.0 * n + 1.0);
            sum += term;
        }
        1.0 - 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp() * sum
    } else {
        if x > 27.3 {
            return 0.0;
        }
        // erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …))))).
        let tiny = 1e-300;
        let mut f = x;
        let mut c = x;
        let mut d = 0.0;
        for k in 1..500 {
            let a = k as f64 / 2.0;
            d = x + a * d;
            d = if d.abs() < tiny { tiny } else { d };
            c = x + a / c;
            c = if c.abs() < tiny { tiny } else { c };
            d = 1.0 / d;
            let delta = c * d;
            f *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (-x * x).exp() / std::f64::consts::PI.sqrt() / f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs().max(1e-300)
    }

    #[test]
    fn erfc_matches_reference_values() {
        // Reference values (agree with scipy.special.erfc to double precision).
        let cases = [
            (0.0, 1.0),
            (0.1, 0.8875370839817152),
            (0.5, 0.4795001221869535),
            (1.0, 0.15729920705028513),
            (2.4, 0.000688513896645079),
            (2.5, 0.0004069520174449589),
            (3.0, 2.209049699858544e-05),
            (5.0, 1.537459794428035e-12),
            (10.0, 2.088487583762545e-45),
        ];
        for (x, want) in cases {
            let got = erfc(x);
            assert!(rel(got, want) < 1e-12, "erfc({x}) = {got}, want {want}");
        }
        assert!(rel(erfc(-1.0), 2.0 - 0.15729920705028513) < 1e-14);
        assert_eq!(erfc(40.0), 0.0);
    }

    #[test]
    fn inverse_of_a_known_matrix() {
        let a = vec![vec![4.0, 2.0], vec![2.0, 3.0]];
        let inv = invert_spd(&a).unwrap();
        // det = 8 → inv = [[3, −2], [−2, 4]] / 8.
        assert!((inv[0][0] - 0.375).abs() < 1e-15);
        assert!((inv[0][1] + 0.25).abs() < 1e-15);
        assert!((inv[1][1] - 0.5).abs() < 1e-15);
        assert!(invert_spd(&[vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }

    #[test]
    fn a_single_binary_predictor_has_a_closed_form() {
        // x = 0: 3 of 4 pass; x = 1: 1 of 4 pass. β₁ = log-odds ratio = ln(1/3) − ln(3).
        let rows: Vec<Vec<f64>> = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
            .iter()
            .map(|v| vec![*v])
            .collect();
        let y = [true, true, true, false, true, false, false, false];
        let f = fit_logit(&["x"], &rows, &y).unwrap();
        assert!(f.converged);
        assert!((f.coef[0] - 3f64.ln()).abs() < 1e-9);
        assert!((f.coef[1] + 2.0 * 3f64.ln()).abs() < 1e-9);
        // se(β₁)² = Σ 1/cell counts = 1/3 + 1 + 1 + 1/3.
        assert!((f.std_err[1] - (8.0f64 / 3.0).sqrt()).abs() < 1e-9);
        assert!(!f.separation);
    }

    #[test]
    fn degenerate_inputs_are_errors_or_notes() {
        let rows = vec![
            vec![1.0, 0.0],
            vec![2.0, 0.0],
            vec![3.0, 0.0],
            vec![4.0, 0.0],
        ];
        assert_eq!(
            fit_logit(&["len", "F"], &rows, &[true; 4]),
            Err(LogitError::ConstantOutcome(true))
        );
        let f = fit_logit(&["len", "F"], &rows, &[true, false, true, false]).unwrap();
        assert_eq!(f.dropped, vec!["F".to_owned()]);
        assert_eq!(f.names, vec!["const".to_owned(), "len".to_owned()]);
        let twins = vec![
            vec![1.0, 1.0],
            vec![2.0, 2.0],
            vec![3.0, 3.0],
            vec![1.0, 1.0],
        ];
        assert!(matches!(
            fit_logit(&["a", "b"], &twins, &[true, false, true, false]),
            Err(LogitError::Collinear(_))
        ));
        assert!(matches!(
            fit_logit(&["a"], &[vec![f64::NAN]], &[true]),
            Err(LogitError::BadRow(0))
        ));
        assert!(matches!(
            fit_logit(&["a"], &[vec![0.0], vec![1.0]], &[true, false]),
            Err(LogitError::TooFew { .. })
        ));
        // Perfect separation: flagged, not a panic.
        let sep: Vec<Vec<f64>> = (0..10).map(|k| vec![k as f64]).collect();
        let y: Vec<bool> = (0..10).map(|k| k >= 5).collect();
        let f = fit_logit(&["x"], &sep, &y).unwrap();
        assert!(f.separation);
    }
}
