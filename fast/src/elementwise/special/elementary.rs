//! Real sinh, cosh, asinh, acosh and atanh (CHLO `chlo.sinh`, `chlo.cosh`, `chlo.asinh`,
//! `chlo.acosh`, `chlo.atanh`) within 1 ULP in f64.
//!
//! The catalog allows 1 ULP in f64; the platform and `libm` crate versions were measured above
//! it (glibc sinh 1.3 ULP, musl acosh 2.1 ULP near 1 and atanh 1.45 ULP; Rust's own
//! `f64::atanh` loses thousands of ULPs near ±1 and `f64::acosh` 2.5 ULP near 1). Here each
//! function forms the argument of its final exponential or logarithm as a double-double and
//! rounds once at the end: [`log1p_dd`] corrects `ln(1 + a)` by one Newton step on a
//! double-double `e^r` ([`exp_dd`], [`expm1_dd`]), sinh and cosh combine double-double
//! exponentials. Measured (`tests/special_accuracy.rs`): at most 0.75 ULP.

use crate::kernels::libm64::{exp_dd_unfused as exp_dd, expm1_dd, two_sum};

const LN2: f64 = std::f64::consts::LN_2;
/// 2^28: beyond it `asinh x = ln 2x` and `acosh x = ln 2x` to far below an ULP.
const BIG: f64 = 268_435_456.0;
/// 2^-28: below it `asinh x = x`, `atanh x = x` and `sinh x = x` after rounding.
const TINY: f64 = 3.725_290_298_461_914e-9;

/// The error-free product `a·b = p + e`: an FMA where the target has one, else Dekker's
/// splitting (without the FMA target feature `mul_add` is a libm call, several times slower).
/// The operands here stay far from overflow (|a|, |b| < 2^900).
#[inline(always)]
pub(crate) fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if cfg!(target_feature = "fma") {
        return (p, a.mul_add(b, -p));
    }
    let split = |v: f64| {
        let c = 134_217_729.0 * v; // 2^27 + 1
        let hi = c - (c - v);
        (hi, v - hi)
    };
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// `ln(1 + a)` for a double-double `a = ah + al > −1` with `ln(1 + a)` below about 700, rounded
/// once: `r = log1p(ah)` from the platform libm (within 1 ULP), then one Newton step
/// `r + ((1 + a) e^{−r} − 1)` with `e^r` as a double-double (relative error ≤ 2^-54.5), which
/// leaves less than about 0.5 + 0.35 ULP.
pub(crate) fn log1p_dd(ah: f64, al: f64) -> f64 {
    let r = ah.ln_1p();
    if !r.is_finite() || r == 0.0 {
        return r;
    }
    if r.abs() <= 0.35 {
        // (1 + a)/(1 + m) − 1 = (a − m)/(1 + m) with m = e^r − 1 ≈ a (a − m is exact in its
        // high part: both are within a few ULPs of each other).
        let (mh, ml) = expm1_dd(r);
        let d = (ah - mh) + (al - ml);
        return r + d / (1.0 + mh);
    }
    let (yh, yl) = two_sum(1.0, ah);
    let yl = yl + al;
    let (eh, el) = exp_dd(-r);
    let (p, pe) = two_prod(yh, eh);
    let c = (p - 1.0) + (pe + yh * el + yl * eh);
    r + c
}

/// `√(h + l)` of a double-double as a double-double (one Newton correction).
#[inline]
fn sqrt_dd(h: f64, l: f64) -> (f64, f64) {
    let s = h.sqrt();
    let (p, pe) = two_prod(s, s);
    let e = ((h - p) - pe) + l;
    (s, e / (2.0 * s))
}

/// `(nh + nl)/(dh + dl)` as a double-double `(q, ql)`.
#[inline]
fn div_dd2(nh: f64, nl: f64, dh: f64, dl: f64) -> (f64, f64) {
    let q = nh / dh;
    let (m, me) = two_prod(q, dh);
    let rem = ((nh - m) - me) + nl - q * dl;
    (q, rem / dh)
}

/// `ln 2x` for x ≥ 2^28, without overflow.
#[inline]
fn ln_twice(x: f64) -> f64 {
    if x < f64::MAX / 2.0 {
        (2.0 * x).ln()
    } else {
        x.ln() + LN2
    }
}

/// Inverse hyperbolic cosine, `ln(x + √(x² − 1))` for x ≥ 1 (NaN below 1, +inf at +inf).
///
/// With t = x − 1 (exact): `log1p(t + √(t² + 2t))`, the argument as a double-double; `ln 2x`
/// from 2^28 on.
///
/// CHLO `chlo.acosh`; accuracy measured in `tests/special_accuracy.rs`.
pub fn acosh(x: f64) -> f64 {
    if x.is_nan() || x < 1.0 {
        return f64::NAN;
    }
    if x >= BIG {
        return if x.is_infinite() { x } else { ln_twice(x) };
    }
    let t = x - 1.0;
    let (p, pe) = two_prod(t, t);
    let (q, qe) = two_sum(p, 2.0 * t);
    let (s, sl) = sqrt_dd(q, qe + pe);
    let (ah, ae) = two_sum(t, s);
    log1p_dd(ah, ae + sl)
}

/// Inverse hyperbolic sine, `ln(x + √(x² + 1))`, odd.
///
/// `log1p(a + a²/(1 + √(1 + a²)))` for a = |x|, the argument as a double-double; `ln 2a` from
/// 2^28 on and `x` below 2^-28.
///
/// CHLO `chlo.asinh`; accuracy measured in `tests/special_accuracy.rs`.
pub fn asinh(x: f64) -> f64 {
    let a = x.abs();
    if !a.is_finite() || a < TINY {
        return x;
    }
    if a >= BIG {
        return ln_twice(a).copysign(x);
    }
    let (p, pe) = two_prod(a, a);
    let (q, qe) = two_sum(1.0, p);
    let (s, sl) = sqrt_dd(q, qe + pe);
    let (dh, de) = two_sum(1.0, s);
    let (fh, fl) = div_dd2(p, pe, dh, de + sl);
    let (ah, ae) = two_sum(a, fh);
    log1p_dd(ah, ae + fl).copysign(x)
}

/// Inverse hyperbolic tangent, `½ ln((1 + x)/(1 − x))` for |x| < 1, ±inf at ±1, NaN beyond.
///
/// `½ log1p(2a/(1 − a))` for a = |x|, the quotient as a double-double; `x` below 2^-28.
///
/// CHLO `chlo.atanh`; accuracy measured in `tests/special_accuracy.rs`.
pub fn atanh(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() || a > 1.0 {
        return f64::NAN;
    }
    if a == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    if a < TINY {
        return x;
    }
    let (dh, dl) = two_sum(1.0, -a);
    let (qh, ql) = div_dd2(2.0 * a, 0.0, dh, dl);
    (0.5 * log1p_dd(qh, ql)).copysign(x)
}

/// 1/(2k+1)! for k = 8 down to 1: (sinh a − a)/a³ = Σ a^{2k−2}/(2k+1)!.
const SINH_SERIES: [f64; 8] = [
    1.0 / 355_687_428_096_000.0,
    1.0 / 1_307_674_368_000.0,
    1.0 / 6_227_020_800.0,
    1.0 / 39_916_800.0,
    1.0 / 362_880.0,
    1.0 / 5_040.0,
    1.0 / 120.0,
    1.0 / 6.0,
];

/// 1/(2k)! for k = 9 down to 1: (cosh a − 1)/a² = Σ a^{2k−2}/(2k)!.
const COSH_SERIES: [f64; 9] = [
    1.0 / 6_402_373_705_728_000.0,
    1.0 / 20_922_789_888_000.0,
    1.0 / 87_178_291_200.0,
    1.0 / 479_001_600.0,
    1.0 / 3_628_800.0,
    1.0 / 40_320.0,
    1.0 / 720.0,
    1.0 / 24.0,
    0.5,
];

/// Largest argument of a finite sinh or cosh.
const OVERFLOW: f64 = 710.475_860_073_943_9;

/// `e^a/2` for 22 ≤ a ≤ [`OVERFLOW`] as one rounding of a double-double (`(e^{a/2})²/2` above
/// 708, where `e^a` alone would overflow), +inf beyond.
fn half_exp(a: f64) -> f64 {
    if a > OVERFLOW {
        return f64::INFINITY;
    }
    if a <= 708.0 {
        let (h, l) = exp_dd(a);
        return 0.5 * (h + l);
    }
    // e^a/2 = (h + l)²/2, computed as 2·(h²/4 + h·l/2): near the overflow threshold h·(h/2) is
    // within an ULP of the largest finite value, and the partial products of a product without
    // FMA (Dekker's split) would overflow there; h·(h/4) keeps a factor 2 of room, and the
    // final doubling is exact (or the true overflow).
    let (h, l) = exp_dd(0.5 * a);
    let (p, pe) = two_prod(h, 0.25 * h);
    2.0 * (p + (pe + 0.5 * (h * l)))
}

/// `(e^a ± e^{−a})/2` for 0.5 ≤ a < 22 from a double-double `e^a` and its double-double
/// reciprocal, rounded once.
fn exp_pair(a: f64, sign: f64) -> f64 {
    let (h, l) = exp_dd(a);
    let (ih, il) = div_dd2(1.0, 0.0, h, l);
    let (s, se) = two_sum(h, sign * ih);
    0.5 * (s + (se + l + sign * il))
}

/// Hyperbolic sine, odd: `x + x³ P(x²)` (Taylor to x^17) below 0.5, `(e^a − e^{−a})/2` from
/// double-double exponentials up to 22, `e^a/2` beyond.
///
/// CHLO `chlo.sinh`; accuracy measured in `tests/special_accuracy.rs`.
pub fn sinh(x: f64) -> f64 {
    let a = x.abs();
    if !a.is_finite() || a < TINY {
        return x;
    }
    let r = if a < 0.5 {
        let a2 = a * a;
        a + (a * a2) * super::horner(&SINH_SERIES, a2)
    } else if a < 22.0 {
        exp_pair(a, -1.0)
    } else {
        half_exp(a)
    };
    r.copysign(x)
}

/// Hyperbolic cosine, even: `1 + x² Q(x²)` (Taylor to x^18) below 0.5, `(e^a + e^{−a})/2` from
/// double-double exponentials up to 22, `e^a/2` beyond.
///
/// CHLO `chlo.cosh`; accuracy measured in `tests/special_accuracy.rs`.
pub fn cosh(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return a;
    }
    if a < 0.5 {
        let a2 = a * a;
        return 1.0 + a2 * super::horner(&COSH_SERIES, a2);
    }
    if a < 22.0 {
        exp_pair(a, 1.0)
    } else {
        half_exp(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosh_and_sinh_just_below_the_overflow_threshold_are_finite() {
        // cosh(710.4758600739435) = 1.7976931348615613e308 (0x7feffffffffff13b), below f64::MAX.
        let x = 710.4758600739435_f64;
        let want = f64::from_bits(0x7feffffffffff13b);
        for got in [cosh(x), cosh(-x), sinh(x), -sinh(-x)] {
            assert!(got.is_finite(), "{got}");
            assert!(
                (got.to_bits() as i64 - want.to_bits() as i64).abs() <= 2,
                "{got:e}"
            );
        }
    }

    #[test]
    fn special_values() {
        assert_eq!(acosh(1.0).to_bits(), 0.0f64.to_bits());
        assert!(acosh(0.999).is_nan() && acosh(f64::NAN).is_nan() && acosh(-1.0).is_nan());
        assert_eq!(acosh(f64::INFINITY), f64::INFINITY);
        assert_eq!(asinh(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(asinh(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(atanh(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(atanh(1.0), f64::INFINITY);
        assert_eq!(atanh(-1.0), f64::NEG_INFINITY);
        assert!(atanh(1.5).is_nan() && atanh(f64::INFINITY).is_nan());
        assert_eq!(sinh(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(sinh(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(sinh(711.0), f64::INFINITY);
        assert_eq!(sinh(-711.0), f64::NEG_INFINITY);
        assert_eq!(cosh(-0.0), 1.0);
        assert_eq!(cosh(f64::NEG_INFINITY), f64::INFINITY);
        assert_eq!(cosh(-711.0), f64::INFINITY);
        assert!(sinh(f64::NAN).is_nan() && cosh(f64::NAN).is_nan());
        // Just below the overflow threshold both stay finite.
        assert!(sinh(710.475).is_finite() && cosh(-710.475).is_finite());
    }

    #[test]
    fn values_from_scipy() {
        // numpy 2.2.6 (glibc), within 1 ULP of the exact values.
        type F = fn(f64) -> f64;
        let cases: [(F, f64, f64); 10] = [
            (acosh, 1.5, 0.9624236501192069),
            (acosh, 1.0000001, 0.0004472135919037347),
            (acosh, 1e10, 23.7189981105004),
            (asinh, 0.5, 0.48121182505960347),
            (asinh, -1e-5, -9.999999999833334e-6),
            (atanh, 0.5, 0.5493061443340548),
            (atanh, -0.999999, -7.254328619247669),
            (sinh, 1.0, 1.1752011936438014),
            (sinh, -0.1, -0.10016675001984403),
            (cosh, 3.0, 10.067661995777765),
        ];
        for (f, x, want) in cases {
            let got = f(x);
            let ulps = (got.to_bits() as i64 - want.to_bits() as i64).abs();
            assert!(ulps <= 1, "f({x}) = {got:e}, want {want:e}");
        }
    }

    #[test]
    fn identities() {
        for i in 1..200 {
            let x = i as f64 * 0.05;
            // cosh² − sinh² = 1, asinh(sinh x) = x, acosh(cosh x) = x, atanh(tanh x) = x.
            let (s, c) = (sinh(x), cosh(x));
            assert!((c * c - s * s - 1.0).abs() <= 1e-15 * c * c, "{x}");
            assert!((asinh(s) - x).abs() <= 4e-16 * x, "{x}");
            if x > 0.2 {
                assert!((acosh(c) - x).abs() <= 1e-15 * x / x.tanh(), "{x}");
            }
            if x < 3.0 {
                let t = x.tanh();
                assert!(
                    (atanh(t) - x).abs() <= 1e-15 * x / (1.0 - t * t) / 2.0,
                    "{x}"
                );
            }
        }
    }
}
