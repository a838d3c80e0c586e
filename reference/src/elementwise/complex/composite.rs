//! Complex functions MPC lacks (sign, expm1, log1p, rsqrt, logistic): each component enclosed with
//! interval arithmetic over correctly rounded primitives and refined until the enclosure rounds to
//! one value ([`ziv`]), or formed exactly for one correctly rounded MPFR call (log1p's real part).

use super::{decode_c, finish, is_finite, NN};
use crate::round::{round_exact, round_nearest_result};
use crate::ziv::{self, Interval};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::complex_bits;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::AddAssignRound;
use rug::{Complex, Float};
use std::cmp::Ordering;

/// Rounds the two components, each enclosed by its own closure, into the format.
fn round_components(
    fmt: FloatFormat,
    re: impl FnMut(u32) -> Option<Interval>,
    im: impl FnMut(u32) -> Option<Interval>,
) -> Result<u128, BackendError> {
    Ok(complex_bits(
        fmt,
        ziv::round_enclosure(fmt, re)?,
        ziv::round_enclosure(fmt, im)?,
    ))
}

/// Rounds a complex value computed with each step correctly rounded at the component precision
/// (used only for non-finite inputs, whose results are infinities, zeros or NaN).
fn round_stepwise(fmt: FloatFormat, z: &Complex) -> u128 {
    complex_bits(fmt, round_exact(fmt, z.real()), round_exact(fmt, z.imag()))
}

/// sign(z) = z / |z|, and 0 for z = 0 (seed 004, Sign). Components are divided by |z| as IEEE
/// arithmetic would for infinite z (∞/∞ = NaN, finite/∞ = ±0), as XLA's `c / |c|` does.
pub(super) fn sign(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    let (re, im) = (z.real().clone(), z.imag().clone());
    if re.is_nan() || im.is_nan() {
        return Ok(complex_bits(fmt, fmt.nan_bits(), fmt.nan_bits()));
    }
    if re.is_zero() && im.is_zero() {
        return Ok(0);
    }
    if !is_finite(&z) {
        let component = |c: &Float| {
            if c.is_infinite() {
                fmt.nan_bits()
            } else {
                crate::round::zero_bits(fmt, c.is_sign_negative())
            }
        };
        return Ok(complex_bits(fmt, component(&re), component(&im)));
    }
    // c / hypot(re, im): the quotient is a dyadic rational only if re or im is zero (no Pythagorean
    // triple has a power-of-two hypotenuse), and then the enclosure is exact.
    let h = |w: u32| Interval {
        lo: Float::with_val_round(w, re.hypot_ref(&im), Round::Down).0,
        hi: Float::with_val_round(w, re.hypot_ref(&im), Round::Up).0,
    };
    round_components(
        fmt,
        |w| Interval::point(&re).div(&h(w), w),
        |w| Interval::point(&im).div(&h(w), w),
    )
}

/// expm1(z) = e^z − 1 = (e^x cos y − 1) + i e^x sin y.
///
/// For y = ±0 the result is (expm1(x), ±0) exactly as the real function gives it (keeping
/// expm1(−0) = −0). Otherwise the components are enclosed from e^x, cos y and sin y (each rounded
/// down and up); the real part is never exactly representable for y ≠ 0 (cos y is transcendental).
pub(super) fn expm1(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    let (re, im) = (z.real().clone(), z.imag().clone());
    if !is_finite(&z) {
        let mut e = z.clone();
        e.exp_round(NN);
        let (mut r, i) = e.into_real_imag();
        r -= 1;
        return Ok(round_stepwise(
            fmt,
            &Complex::with_val(fmt.precision(), (r, i)),
        ));
    }
    if im.is_zero() {
        let mut r = re.clone();
        let t = r.exp_m1_round(Round::Nearest);
        return Ok(complex_bits(
            fmt,
            round_nearest_result(fmt, r, t),
            im_bits(fmt, &im),
        ));
    }
    let ex =
        |w: u32| Interval::of_point(&re, w, |v, w, r| Float::with_val_round(w, v.exp_ref(), r).0);
    round_components(
        fmt,
        |w| {
            let c =
                Interval::of_point(&im, w, |v, w, r| Float::with_val_round(w, v.cos_ref(), r).0);
            let one = Interval::point(&Float::with_val(2, 1));
            Some(ex(w).mul(&c, w).sub(&one, w))
        },
        |w| {
            let s =
                Interval::of_point(&im, w, |v, w, r| Float::with_val_round(w, v.sin_ref(), r).0);
            Some(ex(w).mul(&s, w))
        },
    )
}

fn im_bits(fmt: FloatFormat, im: &Float) -> u64 {
    round_exact(fmt, im)
}

/// log1p(z) = log(1 + z), principal branch.
///
/// For y = ±0 and x ≥ −1 the result is (log1p(x), ±0) exactly as the real function gives it
/// (keeping log1p(−0) = −0). Non-finite inputs go through MPC's log of 1 + z (the values there are
/// infinities, zeros and NaN). For the other finite inputs the components are
///
/// * Re = ln|1 + z| = ½·log1p(u) with u = |1 + z|² − 1 = x(2 + x) + y², where u is formed exactly
///   (every product and sum at a precision wide enough for every bit, see [`exact_mul`] and
///   [`exact_add`]) so that no cancellation between 1 and |1 + z| can lose x (forming 1 + z and
///   taking MPC's log lost x entirely for |x| ≪ 1); MPFR's log1p is correctly rounded at the
///   format precision and halving is exact, so the ternary value carries over to the format
///   rounding (subnormals included);
/// * Im = atan2(y, 1 + x) with 1 + x exact, correctly rounded by MPFR (atan2(±0, negative) = ±π).
pub(super) fn log1p(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    let (re, im) = (z.real().clone(), z.imag().clone());
    if im.is_zero() && re >= -1 {
        let mut r = re.clone();
        let t = r.ln_1p_round(Round::Nearest);
        return Ok(complex_bits(
            fmt,
            round_nearest_result(fmt, r, t),
            im_bits(fmt, &im),
        ));
    }
    if !is_finite(&z) {
        let exact_prec = match re.get_exp() {
            Some(e) => (e.max(1) + 2 - (e - fmt.precision() as i32).min(0)) as u32,
            None => fmt.precision(),
        };
        let one_plus = Float::with_val(exact_prec.max(fmt.precision()), &re + 1u32);
        let w = Complex::with_val(
            (exact_prec.max(fmt.precision()), fmt.precision()),
            (one_plus, im),
        );
        let (r, t) = Complex::with_val_round(fmt.precision(), w.ln_ref(), NN);
        return Ok(finish(fmt, r, t));
    }
    let p = fmt.precision();
    let one = Float::with_val(p, 1u32);
    let two = Float::with_val(p, 2u32);
    let one_plus = exact_add(&re, &one);
    let u = exact_add(&exact_mul(&re, &exact_add(&two, &re)), &exact_mul(&im, &im));
    let (mut r, t_re) = Float::with_val_round(p, u.ln_1p_ref(), Round::Nearest);
    r >>= 1u32; // exact: MPFR's exponent range is far wider than any format's
    let (i, t_im) = Float::with_val_round(p, im.atan2_ref(&one_plus), Round::Nearest);
    Ok(complex_bits(
        fmt,
        round_nearest_result(fmt, r, t_re),
        round_nearest_result(fmt, i, t_im),
    ))
}

/// The exact sum of two finite floats, at a precision spanning every bit of both.
pub(super) fn exact_add(a: &Float, b: &Float) -> Float {
    let span = |v: &Float| v.get_exp().map(|e| (e + 1, e - v.prec() as i32));
    let prec = match (span(a), span(b)) {
        (Some((ta, la)), Some((tb, lb))) => (ta.max(tb) - la.min(lb)) as u32,
        _ => a.prec().max(b.prec()),
    };
    let (s, t) = Float::with_val_round(prec.max(2), a + b, Round::Nearest);
    debug_assert_eq!(t, Ordering::Equal);
    s
}

/// The exact product of two finite floats.
pub(super) fn exact_mul(a: &Float, b: &Float) -> Float {
    let (m, t) = Float::with_val_round(a.prec() + b.prec(), a * b, Round::Nearest);
    debug_assert_eq!(t, Ordering::Equal);
    m
}

/// rsqrt(z) = 1 / sqrt(z) (seed 004: Rsqrt is 1.0 / sqrt(x)), principal branch.
///
/// For finite z ≠ 0, sqrt(z) = a + ib is enclosed by MPC with both components rounded down and
/// up, and 1/(a + ib) = (a − ib)/(a² + b²) with interval arithmetic. Zero and non-finite z use
/// MPC's sqrt and reciprocal, each rounded.
pub(super) fn rsqrt(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    if !is_finite(&z) || (z.real().is_zero() && z.imag().is_zero()) {
        let mut s = z.clone();
        s.sqrt_round(NN);
        s.recip_round(NN);
        return Ok(round_stepwise(fmt, &s));
    }
    let parts = |w: u32| {
        let (lo, _) = Complex::with_val_round(w, z.sqrt_ref(), (Round::Down, Round::Down));
        let (hi, _) = Complex::with_val_round(w, z.sqrt_ref(), (Round::Up, Round::Up));
        let (a_lo, b_lo) = lo.into_real_imag();
        let (a_hi, b_hi) = hi.into_real_imag();
        let a = Interval { lo: a_lo, hi: a_hi };
        let b = Interval { lo: b_lo, hi: b_hi };
        let norm = a.mul(&a, w).add(&b.mul(&b, w), w);
        (a, b, norm)
    };
    round_components(
        fmt,
        |w| {
            let (a, _, n) = parts(w);
            a.div(&n, w)
        },
        |w| {
            let (_, b, n) = parts(w);
            b.neg().div(&n, w)
        },
    )
}

/// logistic(z) = 1 / (1 + e^−z) (seed 004, Logistic).
///
/// For finite z with Re z ≥ 0, e^−z = p + iq is enclosed by MPC with both components rounded down
/// and up, and 1/(1 + p + iq) = ((1 + p) − iq)/N with N = (1 + p)² + q², in interval arithmetic.
/// For Re z < 0 the same is done with e^z = p + iq and logistic(z) = e^z/(1 + e^z) =
/// (p + p² + q² + iq)/N, so that the exponential never overflows (|e^±z| ≤ 1). An enclosure of N
/// that contains 0 just asks for more precision. For |Re z| > 4096 the neglected terms are below
/// 2^-5900, far under every format's smallest subnormal (and near MPFR's underflow, where the
/// enclosure would lose the sign): logistic(z) is then (±0, ±0) with the signs of (cos y, sin y)
/// for Re z < 0, and (1, ±0) with the sign of sin y for Re z > 0. Non-finite z: each step rounded.
pub(super) fn logistic(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    if !is_finite(&z) {
        let mut e = Complex::with_val(fmt.precision(), -&z);
        e.exp_round(NN);
        e.add_assign_round(1u32, NN);
        e.recip_round(NN);
        return Ok(round_stepwise(fmt, &e));
    }
    let negative_real = *z.real() < 0;
    if z.real().clone().abs() > 4096 {
        let y = z.imag();
        let sin = Float::with_val(64, y.sin_ref());
        let zero = |negative: bool| crate::round::zero_bits(fmt, negative);
        let im = zero(sin.is_sign_negative());
        let re = if negative_real {
            zero(Float::with_val(64, y.cos_ref()).is_sign_negative())
        } else {
            fmt.encode(1.0)
        };
        return Ok(complex_bits(fmt, re, im));
    }
    let exponent = if negative_real {
        z.clone()
    } else {
        Complex::with_val(fmt.precision(), -&z)
    };
    // (numerator of the real part, numerator of the imaginary part, N)
    let parts = |w: u32| {
        let (lo, _) = Complex::with_val_round(w, exponent.exp_ref(), (Round::Down, Round::Down));
        let (hi, _) = Complex::with_val_round(w, exponent.exp_ref(), (Round::Up, Round::Up));
        let (p_lo, q_lo) = lo.into_real_imag();
        let (p_hi, q_hi) = hi.into_real_imag();
        let p = Interval { lo: p_lo, hi: p_hi };
        let q = Interval { lo: q_lo, hi: q_hi };
        let one = Interval::point(&Float::with_val(2, 1));
        let a = one.add(&p, w);
        let q2 = q.mul(&q, w);
        let norm = a.mul(&a, w).add(&q2, w);
        if negative_real {
            (p.add(&p.mul(&p, w), w).add(&q2, w), q, norm)
        } else {
            (a, q.neg(), norm)
        }
    };
    round_components(
        fmt,
        |w| {
            let (re, _, n) = parts(w);
            re.div(&n, w)
        },
        |w| {
            let (_, im, n) = parts(w);
            im.div(&n, w)
        },
    )
}
