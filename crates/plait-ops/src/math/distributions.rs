//! Quantiles of probability distributions: `kd.math.t_distribution_inverse_cdf`.
//!
//! Student's t quantile through the regularized incomplete beta function:
//! for `t > 0`, `P(T > t) = I_{v/(v+t²)}(v/2, 1/2) / 2`, so the upper-tail
//! probability `q` gives `x = I⁻¹(2q)` and `t = sqrt(v (1 - x) / x)`. The
//! incomplete beta is the classic continued fraction (Lentz's method); its
//! inverse is found by bisection on `x` in (0, 1), which needs no starting
//! guess and converges for every `v > 0`.

use plait_core::{DataSlice, Error, Result};

use crate::elementwise::{float_type, prepare_as};
use crate::kernel::build_vec;
use crate::num::Num;
use crate::promote::{Promotion, TypeClass, promote};

const OP: &str = "kd.math.t_distribution_inverse_cdf";

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, n = 9; about 15 digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series in its accurate range.
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let series = G[1..].iter().enumerate().fold(G[0], |acc, (i, g)| acc + g / (x + i as f64 + 1.0));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + series.ln()
}

/// The continued fraction of the incomplete beta function (Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    d = if d.abs() < TINY { TINY } else { d };
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function `I_x(a, b)`.
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) { front * beta_fraction(a, b, x) / a } else { 1.0 - front * beta_fraction(b, a, 1.0 - x) / b }
}

/// The `p` quantile of Student's t distribution with `v` degrees of freedom.
pub fn t_quantile(p: f64, v: f64) -> f64 {
    if p == 0.5 {
        return 0.0;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let tail = p.min(1.0 - p);
    // I_x(v/2, 1/2) grows with x from 0 to 1; find x where it is 2 * tail.
    let target = 2.0 * tail;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if incomplete_beta(v / 2.0, 0.5, mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    let t = (v * (1.0 - x) / x).sqrt();
    if p < 0.5 { -t } else { t }
}

/// `kd.math.t_distribution_inverse_cdf(x, degrees_of_freedom)`: the quantile
/// of Student's t distribution at probability `x`, in floats (FLOAT32 unless
/// an argument is FLOAT64).
pub fn t_distribution_inverse_cdf(x: &DataSlice, degrees_of_freedom: &DataSlice) -> Result<DataSlice> {
    let args = [("x", x), ("degrees_of_freedom", degrees_of_freedom)];
    let promotion = promote(OP, &args, TypeClass::Numeric)?;
    let p = prepare_as(OP, &args, Promotion { dtype: float_type(promotion.dtype), ..promotion })?;
    if p.all_missing() {
        return Ok(p.missing(p.dtype()));
    }
    let presence = p.presence();
    let present = |i: usize| presence.as_ref().is_none_or(|b| b.is_valid(i));
    crate::with_float_type!(p.dtype(), T => {
        let [probs, dofs] = [p.operands[0].side::<T>(), p.operands[1].side::<T>()];
        // Koda checks every present pair first; the first bad one is the error.
        for i in (0..p.len()).filter(|&i| present(i)) {
            let (prob, dof) = (probs.get(i).to_f64(), dofs.get(i).to_f64());
            if dof.is_nan() || dof <= 0.0 {
                return Err(Error::value(OP, format!("degrees_of_freedom for t-distribution must be a positive number, got: {dof:.6}")));
            }
            if !(0.0..=1.0).contains(&prob) {
                let shown = if prob.is_nan() { "nan".to_string() } else { format!("{prob:.6}") };
                return Err(Error::value(OP, format!("inverse CDF accepts only values between 0 and 1, got x: {shown}")));
            }
        }
        let out = build_vec(p.len(), |out| {
            out.write_all(
                out.range().map(|i| if present(i) { T::from_f64(t_quantile(probs.get(i).to_f64(), dofs.get(i).to_f64())) } else { T::ZERO }),
            );
        });
        p.finish(T::into_values(out), presence)
    })
}

#[cfg(test)]
mod tests {
    use super::t_quantile;

    #[test]
    fn known_quantiles() {
        // Reference values of the t distribution (two-sided 95%: 0.975).
        for (p, v, expected) in [
            (0.975, 1.0, 12.706_204_736),
            (0.975, 3.0, 3.182_446_305),
            (0.975, 10.0, 2.228_138_852),
            (0.9, 3.0, 1.637_744_354),
            (0.025, 3.0, -3.182_446_305),
        ] {
            let got = t_quantile(p, v);
            assert!((got - expected).abs() < 1e-6 * expected.abs().max(1.0), "t({p}, {v}) = {got}, expected {expected}");
        }
        assert_eq!(t_quantile(0.5, 4.0), 0.0);
        assert_eq!(t_quantile(0.0, 4.0), f64::NEG_INFINITY);
        assert_eq!(t_quantile(1.0, 4.0), f64::INFINITY);
    }
}
