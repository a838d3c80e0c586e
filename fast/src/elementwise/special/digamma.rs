//! Digamma ψ(x) = Γ'(x)/Γ(x) (CHLO `chlo.digamma`, DLMF 5.2.2) in f64.
//!
//! Algorithm, for x > 0 written as x = 1 + t (t exact whenever x ≥ 1):
//! - t ∈ [0, 1]: `ψ(1 + t) = (t − t₀) g(t)` with t₀ = x₀ − 1 (x₀ = 1.4616321449683623…, the
//!   positive zero) as a double-double, so `t − t₀` keeps full relative accuracy near the zero,
//!   and g a degree-24 polynomial in t − ½ (`ROOT_FACTOR`);
//! - t ∈ (1, 2]: a degree-18 polynomial for ψ(2 + u), u = t − 1 (`PSI_2_3`);
//! - t ∈ (2, 9): downward recurrence `ψ(x) = ψ(x − m) + Σ 1/(x − j)` onto (2, 3], every argument
//!   exact and every term positive, summed with compensation;
//! - x ≥ 10: the asymptotic series `ln x − 1/(2x) − Σ B₂ₖ/(2k x²ᵏ)` to k = 10;
//! - 0 < x < 1: `ψ(x) = ψ(1 + x) − 1/x` (the polynomial at t = x, exact);
//! - x < 0: the reflection `ψ(x) = ψ(1 − x) − π cot(πx)`, with ψ(1 − x) = ψ(1 + |x|) taken at the
//!   exact t = |x| and cot(πx) reduced exactly to an argument in [0, π/4];
//! - NaN at the poles 0, −1, −2, … (both zeros included) and at −inf; +inf at +inf.
//!
//! Constants from `fit_special.py`. Measured against MPFR (`tests/special_accuracy.rs`): about
//! 1 ULP for x > 0 (also next to the zero x₀); for x < 0 the reflection cancels next to the
//! negative zeros (x ≈ −0.504, −1.573, …), where the error is absolute, about 2^-52·|ψ(1 − x)|.

use crate::kernels::libm64::two_sum;
use std::f64::consts::PI;

/// t₀ = x₀ − 1 as a double-double: (0.46163214496836236, −1.5522348162858677e-17).
const T0_HI: f64 = 0.461_632_144_968_362_36;
const T0_LO: f64 = -1.552_234_816_285_867_7e-17;

// psi(1+t)/(t - t0): degree 24 on [0.0, 1.0] about 0.5;
//   interpolation error 1.54e-19, with f64 coefficients 1.93e-17 (relative)
const ROOT_FACTOR: [f64; 26] = [
    5.435982090526193e-05,
    -8.153978973309418e-05,
    4.0770099196174574e-05,
    -6.11554261750751e-05,
    0.00014524428159536513,
    -0.0002178682145501451,
    0.00030663421462511436,
    -0.0004599625144612576,
    0.0006947942898631316,
    -0.001042261556504223,
    0.0015628065268460548,
    -0.002344650082351321,
    0.003518160274007789,
    -0.00528001782089874,
    0.007927018507953385,
    -0.011908215172584002,
    0.01790724844030541,
    -0.02697579684427536,
    0.04076083393829192,
    -0.06192213327165706,
    0.09498872445291486,
    -0.14840492305391761,
    0.24054248424078692,
    -0.42362742128146047,
    0.9510558760318328,
    4.330743078649653e-17,
];

// psi(2+t): degree 18 on [0.0, 1.0] about 0.5;
//   interpolation error 5.68e-19, with f64 coefficients 1.79e-17 (relative)
const PSI_2_3: [f64; 20] = [
    -3.305074193472556e-08,
    8.267815845287522e-08,
    -1.6969375327586255e-07,
    4.2481223325063033e-07,
    -1.081499627607938e-06,
    2.7109965480846823e-06,
    -6.798826887273052e-06,
    1.708891125596372e-05,
    -4.3052697566077994e-05,
    0.00010882586435206692,
    -0.00027643925382781295,
    0.0007073881640957325,
    -0.0018305640382745517,
    0.004821409821419739,
    -0.013073166646113707,
    0.03731764146954176,
    -0.1181020258208637,
    0.49035775610023485,
    0.7031566406452432,
    -4.430586970323463e-18,
];

/// B_2k/(2k), k = 10 ... 1
const ASYMPTOTIC: [f64; 10] = [
    -26.456212121212122,
    3.0539543302701198,
    -0.4432598039215686,
    0.08333333333333333,
    -0.021092796092796094,
    0.007575757575757576,
    -0.004166666666666667,
    0.003968253968253968,
    -0.008333333333333333,
    0.08333333333333333,
];

/// Digamma ψ(x) = Γ'(x)/Γ(x), CHLO `chlo.digamma`: polynomials around the positive zero and on
/// [2, 3], recurrence, the asymptotic series from 10, reflection for x < 0 (see the module
/// documentation). NaN at 0, −1, −2, … and −inf; +inf at +inf. Measured ≤ 1 ULP for x > 0.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 0.0 {
        if x >= 1.0 {
            return psi_one_plus(x - 1.0); // exact
        }
        return psi_one_plus(x) - 1.0 / x;
    }
    if x == x.floor() {
        return f64::NAN; // a pole (±0 included) or −inf
    }
    // ψ(x) = ψ(1 − x) − π cot(πx), 1 − x = 1 + |x|.
    psi_one_plus(-x) - pi_cot_pi(x)
}

/// ψ(1 + t) for t ≥ 0 (+inf at +inf).
fn psi_one_plus(t: f64) -> f64 {
    if t <= 1.0 {
        let d = (t - T0_HI) - T0_LO;
        let (gh, gl) = super::horner_dd(&ROOT_FACTOR, t - 0.5);
        return d.mul_add(gh, d * gl);
    }
    if t <= 2.0 {
        return psi_2_3(t - 1.0);
    }
    if t < 9.0 {
        // ψ(1 + t) = ψ(2 + u) + Σ_{i=0}^{k−2} 1/(t − i), u = t − k, k = ⌊t⌋ (t − i exact).
        let k = t.floor();
        let (mut s, mut c) = (0.0f64, 0.0f64);
        let mut i = 0.0;
        while i <= k - 2.0 {
            let (h, e) = two_sum(s, 1.0 / (t - i));
            s = h;
            c += e;
            i += 1.0;
        }
        let (h, e) = two_sum(s, psi_2_3(t - k));
        return h + (c + e);
    }
    if t.is_infinite() {
        return t;
    }
    let x = 1.0 + t;
    let z = 1.0 / (x * x);
    let corr = (0.5 + z * x * super::horner(&ASYMPTOTIC, z)) / x;
    x.ln() - corr
}

/// ψ(2 + u) for u ∈ [0, 1].
#[inline]
fn psi_2_3(u: f64) -> f64 {
    super::poly(&PSI_2_3, u - 0.5)
}

/// π cot(πx) for a non-integer x: r = x − round(x) ∈ (−½, ½) is exact, and for |r| > ¼ the
/// cotangent is `tan(π(½ − |r|))` with ½ − |r| exact, so the tangent's argument stays in
/// [0, π/4].
pub(crate) fn pi_cot_pi(x: f64) -> f64 {
    let r = x - x.round();
    if r.abs() <= 0.25 {
        PI / (PI * r).tan()
    } else {
        (PI * (PI * (0.5 - r.abs())).tan()).copysign(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        let o = |v: f64| {
            let b = v.to_bits() as i64;
            if b < 0 {
                i64::MIN - b
            } else {
                b
            }
        };
        o(a).abs_diff(o(b))
    }

    #[test]
    fn special_values() {
        for x in [0.0, -0.0, -1.0, -2.0, -1e300, f64::NEG_INFINITY, f64::NAN] {
            assert!(digamma(x).is_nan(), "{x}");
        }
        assert_eq!(digamma(f64::INFINITY), f64::INFINITY);
        assert_eq!(digamma(f64::MAX), f64::MAX.ln() - 0.5 / f64::MAX);
        assert_eq!(digamma(5e-324), f64::NEG_INFINITY); // −1/x overflows
    }

    #[test]
    fn values_from_scipy() {
        // mpmath 1.3.0 at 40 digits, rounded to f64 (scipy.special.psi 1.17.1 agrees within 4 ULP).
        let cases = [
            (1.0, -0.5772156649015329),
            (2.0, 0.42278433509846713),
            (0.5, -1.9635100260214235),
            (1.4616321449683622, -9.241265521729427e-17),
            (1.46163, -2.0756283887224574e-06),
            (3.7, 1.1671535393615113),
            (9.99, 2.250700372831201),
            (10.0, 2.251752589066721),
            (123.456, 4.811829323828985),
            (1e-8, -100000000.57721564),
            (-0.5, 0.03648997397857652),
            (-2.3, 3.3173231575618227),
            (-10.1, 12.030052248548309),
        ];
        for (x, want) in cases {
            let got = digamma(x);
            assert!(ulps(got, want) <= 2, "psi({x}) = {got:e}, want {want:e}");
        }
    }

    #[test]
    fn recurrence_and_reflection() {
        // ψ(x + 1) = ψ(x) + 1/x and ψ(1 − x) − ψ(x) = π cot(πx).
        for i in 1..400 {
            let x = i as f64 * 0.0731 + 0.013;
            let (a, b) = (digamma(x + 1.0), digamma(x) + 1.0 / x);
            assert!((a - b).abs() <= 4e-16 * (a.abs() + 1.0 / x), "{x}");
            let y = -x;
            let lhs = digamma(1.0 - y) - digamma(y);
            let r = y - y.round(); // cot has period 1: reduce before multiplying by π
            let rhs = PI / (PI * r).tan();
            assert!((lhs - rhs).abs() <= 1e-13 * (1.0 + rhs.abs()), "{y}");
        }
    }
}
