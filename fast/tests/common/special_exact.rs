//! Exact values (MPFR through `rug`, 256 bits or more) of the special functions MPFR lacks:
//! erf⁻¹ (Newton's method on MPFR's erf/erfc), I₁e (the power series of I₁ with the working
//! precision raised by the size of e^x, or its asymptotic series beyond x = 700), the Hurwitz
//! zeta function (direct terms up to q + N ≥ s + 40, then Euler–Maclaurin with 30 Bernoulli
//! terms, B₂ⱼ/(2j)! from MPFR's ζ(2j)), polygamma through zeta. Conventions outside the
//! functions' domains follow `spec/ops/chlo.yaml` (and the fast backend's documentation).
#![allow(dead_code)]

use rug::ops::Pow;
use rug::Float;

pub const PREC: u32 = 256;

fn f(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// erf⁻¹(y).
pub fn erf_inv(y: f64) -> Float {
    if y.is_nan() || y.abs() > 1.0 {
        return f(f64::NAN);
    }
    if y.abs() == 1.0 || y == 0.0 {
        return f(if y == 0.0 {
            y
        } else {
            f64::INFINITY.copysign(y)
        });
    }
    let p = PREC + 64;
    let w = Float::with_val(p, y.abs());
    // 1 − |y| is exact for |y| ≥ 0.5. Start from the inverse of the asymptotic erfc, or y √π/2.
    let one_minus = Float::with_val(p, 1.0 - y.abs());
    let mut x = if y.abs() > 0.5 {
        let t = (-(1.0 - y.abs()).ln()).sqrt();
        Float::with_val(
            p,
            t - (t.ln() + 0.5 * std::f64::consts::PI.ln()) / (2.0 * t),
        )
    } else {
        Float::with_val(p, y.abs() * 0.886)
    };
    let two_over_sqrt_pi =
        Float::with_val(p, 2) / Float::with_val(p, rug::float::Constant::Pi).sqrt();
    for _ in 0..60 {
        let r = if y.abs() > 0.5 {
            Float::with_val(p, &one_minus - Float::with_val(p, x.erfc_ref()))
        } else {
            Float::with_val(p, Float::with_val(p, x.erf_ref()) - &w)
        };
        let slope = Float::with_val(
            p,
            &two_over_sqrt_pi * Float::with_val(p, -Float::with_val(p, x.square_ref())).exp(),
        );
        let step = Float::with_val(p, r / slope);
        x -= &step;
        if step.is_zero()
            || step.clone().abs() < Float::with_val(p, x.clone().abs()) >> (p as i32 - 4)
        {
            break;
        }
    }
    if y < 0.0 {
        -x
    } else {
        x
    }
}

/// I₁(x)·e^{−|x|}.
pub fn bessel_i1e(x: f64) -> Float {
    if x.is_nan() {
        return f(x);
    }
    if x.is_infinite() {
        return f(0.0f64.copysign(x));
    }
    let a = x.abs();
    let r = if a <= 700.0 {
        let p = PREC + (a * 1.5) as u32 + 64;
        let h = Float::with_val(p, a) / 2u32;
        let h = Float::with_val(p, h);
        let h2 = Float::with_val(p, h.square_ref());
        let mut t = h.clone();
        let mut sum = Float::with_val(p, &t);
        let mut k = 0u32;
        loop {
            k += 1;
            t *= &h2;
            t /= k * (k + 1);
            sum += &t;
            if t.is_zero() || Float::with_val(p, &t / &sum) < Float::with_val(p, 1) >> (p as i32) {
                break;
            }
        }
        Float::with_val(PREC, sum * Float::with_val(p, -Float::with_val(p, a)).exp())
    } else {
        // 1/√(2πa) Σ (−1)^k a_k(1)/a^k, a_k = a_{k−1} (4 − (2k−1)²)/(8k).
        let p = PREC + 64;
        let inv = Float::with_val(p, 1) / Float::with_val(p, a);
        let mut term = Float::with_val(p, 1);
        let mut sum = Float::with_val(p, 1);
        for k in 1..4000u32 {
            let m = (2 * k - 1) as f64;
            term *= Float::with_val(p, 4.0 - m * m) / (8 * k);
            term *= &inv;
            term = -term;
            sum += &term;
            if Float::with_val(p, term.abs_ref()) < Float::with_val(p, 1) >> (p as i32) {
                break;
            }
        }
        let two_pi_a = Float::with_val(p, Float::with_val(p, rug::float::Constant::Pi) * (2.0 * a));
        Float::with_val(PREC, sum / two_pi_a.sqrt())
    };
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// B₂ⱼ/(2j)! = (−1)^{j+1} 2 ζ(2j)/(2π)^{2j}, j = 1..=30.
fn bernoulli_over_factorial(p: u32) -> Vec<Float> {
    let two_pi = Float::with_val(p, Float::with_val(p, rug::float::Constant::Pi) * 2u32);
    (1..=30u32)
        .map(|j| {
            let z = Float::with_val(p, Float::zeta_u(2 * j));
            let v = Float::with_val(p, z * 2u32) / Float::with_val(p, (&two_pi).pow(2 * j));
            if j % 2 == 1 {
                v
            } else {
                -v
            }
        })
        .collect()
}

/// Hurwitz ζ(s, q) for s > 1 and q > 0, or q < 0 not an integer with an integer s.
pub fn zeta(s: f64, q: f64) -> Float {
    if s.is_nan() || q.is_nan() || s < 1.0 {
        return f(f64::NAN);
    }
    if s == 1.0 || (q <= 0.0 && q == q.floor()) {
        return f(f64::INFINITY);
    }
    if q < 0.0 && s != s.floor() {
        return f(f64::NAN);
    }
    if q.is_infinite() {
        return f(0.0);
    }
    if s.is_infinite() {
        // Every term (q + k)^{−∞} vanishes but q^{−∞} for q ≤ 1.
        return f(if q > 1.0 {
            0.0
        } else if q == 1.0 {
            1.0
        } else {
            f64::INFINITY
        });
    }
    let p = PREC + 64;
    let sv = Float::with_val(p, s);
    let neg_s = Float::with_val(p, -s);
    let mut sum = Float::with_val(p, 0);
    let n = (s + 40.0 - q).max(0.0).ceil() as u64;
    for k in 0..n {
        let b = Float::with_val(p, q) + k;
        sum += Float::with_val(p, b.pow(&neg_s));
    }
    let a = Float::with_val(p, q) + n;
    let a_neg_s = Float::with_val(p, (&a).pow(&neg_s));
    let s_minus_1 = Float::with_val(p, s - 1.0); // exact for the s used here
    sum += Float::with_val(p, &a_neg_s * &a) / &s_minus_1;
    sum += Float::with_val(p, &a_neg_s / 2);
    let a2 = Float::with_val(p, a.square_ref());
    let mut fac = Float::with_val(p, &sv / &a) * &a_neg_s; // s a^{−s−1}
    for (j, c) in bernoulli_over_factorial(p).iter().enumerate() {
        if j > 0 {
            let m = Float::with_val(p, &sv + (2 * j) as u32);
            fac *= Float::with_val(p, &m - 1u32) * m;
            fac /= &a2;
        }
        sum += Float::with_val(p, c * &fac);
    }
    Float::with_val(PREC, sum)
}

/// ψ⁽ⁿ⁾(x) = (−1)^{n+1} n! ζ(n + 1, x) (n ≥ 1), or digamma for n = 0.
pub fn polygamma(n: f64, x: f64) -> Float {
    if n.is_nan() || x.is_nan() || n < 0.0 || n != n.floor() {
        return f(f64::NAN);
    }
    if n == 0.0 {
        if x <= 0.0 && x == x.floor() {
            return f(f64::NAN);
        }
        return f(x).digamma();
    }
    let fact = Float::with_val(PREC, Float::factorial(n as u32));
    let z = zeta(n + 1.0, x);
    let v = fact * z;
    if n % 2.0 == 1.0 {
        v
    } else {
        -v
    }
}
