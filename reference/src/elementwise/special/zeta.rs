//! The Hurwitz zeta function ζ(s, q) and the polygamma functions ψ⁽ⁿ⁾(x), enclosed rigorously and
//! rounded once ([`crate::ziv`]).
//!
//! The core is [`hurwitz`]: ζ(s, q) = Σ_{k≥0} (q+k)^−s for real s > 1 and q > 0, either summed
//! directly with an integral bound on the tail (large s), or by the Euler–Maclaurin formula with
//! its classical remainder bound (DLMF 2.10.1 with DLMF 24.9.1; the real-s case of Johansson,
//! "Rigorous high-precision computation of the Hurwitz zeta function and its derivatives",
//! Numerical Algorithms 69, 2015, Theorem 1):
//!
//! ζ(s, q) = Σ_{k<N} (q+k)^−s + Q^(1−s)/(s−1) + Q^−s/2 + Σ_{j=1..M} B_{2j}/(2j)!·(s)_{2j−1}·Q^(−s−2j+1) + R,
//!
//! with Q = q + N, (s)_k the rising factorial, and |R| ≤ |B_{2M}|/(2M)!·∫_N^∞ |f^(2M)| =
//! |B_{2M}/(2M)!·(s)_{2M−1}·Q^(−s−2M+1)| (f(t) = (q+t)^−s, whose derivatives have constant sign,
//! and |B̃_{2M}(t)| ≤ |B_{2M}|), i.e. at most the magnitude of the last term included. Every
//! quantity is an [`Interval`] with outward rounding; the Bernoulli numbers are exact rationals.
//!
//! For q < 0 (not an integer) and an integer s ≥ 2 the series still converges to a real value.
//! With m = ⌈−q⌉ and f = q + m ∈ (0, 1) its m negative terms are (−1)^s (j − f)^−s, j = 1..m, so
//!
//! ζ(s, q) = ζ(s, f) + (−1)^s·(ζ(s, 1−f) − ζ(s, 1−q)),
//!
//! three sums of positive terms. The only catastrophic cancellation, ζ(s, f) − ζ(s, 1−f) for odd
//! s at f = ½, is exact (0) and skipped; near f = ½ it costs at most about the input's precision.
//! Any |q| costs the same.

use crate::round::{decode, infinity_bits, zero_bits};
use crate::ziv::{self, Interval};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::{AddAssignRound, Pow};
use rug::{Float, Integer, Rational};
use std::cmp::Ordering;
use std::sync::Mutex;

/// Largest s for q < 0: the terms' magnitudes, up to (2^−1074)^−s, stay inside MPFR's exponent
/// range (2^±(2^30)).
const MAX_NEGATIVE_Q_S: u32 = 1 << 19;
/// Largest polygamma order computed when the result is neither certain to overflow nor to
/// underflow: n! and x^−(n+1) then stay inside MPFR's exponent range (2^±(2^30)).
const MAX_POLYGAMMA_N: u32 = 1 << 24;
/// Cap on the number of series terms per enclosure.
const MAX_TERMS: f64 = 1e5;
/// Cap on the Euler–Maclaurin correction terms (Bernoulli numbers kept).
const MAX_BERNOULLI: usize = 256;

/// ζ(s, q), the Hurwitz zeta function Σ_{k≥0} (q+k)^−s (CHLO `chlo.zeta`; XLA client library
/// `math.h` `Zeta(x, q)`), correctly rounded.
///
/// Domain and special values (s = first operand, q = second):
/// - NaN in either operand: NaN.
/// - s > 1, q > 0: the series (correctly rounded; overflow to inf, underflow to +0 as the format
///   has them). q = +inf: +0.
/// - s = +inf: q > 1 or q = +inf gives +0, q = 1 gives 1, 0 < q < 1 gives +inf, q ≤ 0 NaN.
/// - s = 1: the harmonic series diverges: +inf, except NaN for q = −inf and at the poles q ∈
///   {0, −1, −2, ...}.
/// - s < 1 (including −inf): NaN. The analytic continuation is real there for q > 0 but is NOT
///   computed (the catalog treats s < 1 as implementation-defined; XLA returns NaN too).
/// - s > 1 and q ≤ 0 (q = −inf: NaN): non-integer s gives NaN (the terms are not real); a
///   non-positive integer q (including ±0) is a pole: +inf for even s (every term near the pole
///   is positive), NaN for odd s (the sign depends on the side), as XLA's `Zeta`; otherwise, for
///   integer s, the convergent real series Σ (q+k)^−s (see the module docs), computed for
///   s ≤ 2^19; NaN (not computed) beyond.
///
/// Termination of the Ziv loop: the enclosures' widths go to 0 as the precision grows, so the loop
/// ends unless ζ(s, q) is exactly a rounding midpoint of the format. For s = 2, 4, ... and q = 1
/// the value is a rational multiple of π^s (transcendental); in general (e.g. ζ(5, 1)) it is not
/// proven that ζ(s, q) is never a dyadic rational, but none is known; [`ziv::MAX_PRECISION`] (and
/// the cap of 256 Bernoulli terms, about 1000 bits) turn such a case into
/// [`BackendError::Failure`] rather than a hang. Work per enclosure is O(w) terms (at most 10⁵).
///
/// Errors: [`BackendError::Failure`] only in that case.
pub(crate) fn zeta(fmt: FloatFormat, s_bits: u64, q_bits: u64) -> Result<u64, BackendError> {
    let (s, q) = (decode(fmt, s_bits), decode(fmt, q_bits));
    let nan = Ok(fmt.nan_bits());
    if s.is_nan() || q.is_nan() || s < 1u32 {
        return nan;
    }
    let non_positive_integer = |v: &Float| v.is_integer() && *v <= 0u32;
    if s.is_infinite() {
        return match q.partial_cmp(&1u32) {
            _ if q.is_zero() || q.is_sign_negative() => nan,
            Some(Ordering::Greater) => Ok(0),
            Some(Ordering::Equal) => Ok(fmt.encode(1.0)),
            _ => Ok(infinity_bits(fmt, false)),
        };
    }
    if s == 1u32 {
        if (q.is_infinite() && q < 0u32) || non_positive_integer(&q) {
            return nan;
        }
        return Ok(infinity_bits(fmt, false));
    }
    // s > 1, finite.
    if q.is_infinite() {
        return if q > 0u32 { Ok(0) } else { nan };
    }
    if q > 0u32 {
        return ziv::round_enclosure(fmt, |w| hurwitz(&s, &Interval::point(&q), w));
    }
    if !s.is_integer() {
        return nan;
    }
    if q.is_integer() {
        let even = Float::with_val(s.prec(), &s >> 1u32).is_integer();
        return if even {
            Ok(infinity_bits(fmt, false))
        } else {
            nan
        };
    }
    match negative_q_order(&s, &q) {
        Some(n) => ziv::round_enclosure(fmt, |w| negative_q(n, &q, w)),
        None => nan,
    }
}

/// ψ⁽ⁿ⁾(x), the polygamma function (CHLO `chlo.polygamma`; XLA client library `math.h`
/// `Polygamma(n, x)`), correctly rounded: ψ⁽⁰⁾ = ψ (digamma) and, for n ≥ 1,
/// ψ⁽ⁿ⁾(x) = (−1)^(n+1)·n!·ζ(n+1, x) (DLMF 25.11.12).
///
/// Domain and special values (n = first operand, x = second):
/// - NaN in either operand, or n not a non-negative integer (−0 counts as 0; ±inf does not): NaN.
/// - n = 0: digamma (NaN at the non-positive integers, including ±0; see `digamma`).
/// - x a non-positive integer (including ±0): a pole; NaN (its sign depends on the side for even
///   n). x = −inf: NaN. x = +inf: a zero with the sign of (−1)^(n+1) (ψ⁽ⁿ⁾ tends to 0 from that
///   side): +0 for odd n, −0 for even n.
/// - x > 0: the value, via [`hurwitz`] and Γ(n+1) rounded outward (MPFR).
/// - x < 0 not an integer: the real value of the convergent series (module docs) for n < 2^19;
///   NaN (not computed) beyond.
/// - Huge orders: for x > 0 a result that certainly overflows (±inf) or underflows (a signed zero)
///   is decided from log₂ bounds first (any n, up to f64's largest); otherwise n > 2^24 gives NaN
///   (not computed: n! and x^−(n+1) would leave MPFR's exponent range; only x within about
///   ±(format's exponent range)/n of n/e relatively gets there).
///
/// Termination and errors: as [`zeta`] (the value is a nonzero multiple of ζ(n+1, x)).
pub(crate) fn polygamma(fmt: FloatFormat, n_bits: u64, x_bits: u64) -> Result<u64, BackendError> {
    let (n, x) = (decode(fmt, n_bits), decode(fmt, x_bits));
    let nan = Ok(fmt.nan_bits());
    if n.is_nan() || x.is_nan() || n.is_infinite() || !n.is_integer() || n < 0u32 {
        return nan;
    }
    if n.is_zero() {
        return super::super::unary_float::digamma(fmt, x_bits);
    }
    // The sign (−1)^(n+1): n is odd when n/2 is not an integer (exact: halving a float).
    let positive = !Float::with_val(n.prec(), &n / 2u32).is_integer();
    if x.is_infinite() {
        return if x > 0u32 {
            Ok(zero_bits(fmt, !positive))
        } else {
            nan
        };
    }
    if x.is_integer() && x <= 0u32 {
        return nan;
    }
    if x > 0u32 {
        match magnitude_outside(fmt, &n, &x) {
            Some(Ordering::Greater) => return Ok(infinity_bits(fmt, !positive)),
            Some(Ordering::Less) => return Ok(zero_bits(fmt, !positive)),
            _ if n > MAX_POLYGAMMA_N => return nan,
            _ => {}
        }
    }
    if n > MAX_POLYGAMMA_N {
        return nan;
    }
    let order = n.to_u32_saturating().expect("finite, at most 2^24");
    let s = order + 1;
    let enclose_zeta: Box<dyn Fn(u32) -> Option<Interval>> = if x > 0u32 {
        let s = Float::with_val(32, s);
        Box::new(move |w| hurwitz(&s, &Interval::point(&x), w))
    } else {
        match negative_q_order(&Float::with_val(32, s), &x) {
            Some(s) => Box::new(move |w| negative_q(s, &x, w)),
            None => return nan,
        }
    };
    ziv::round_enclosure(fmt, |w| {
        let wp = w + 16;
        let z = enclose_zeta(w)?;
        let arg = Float::with_val(32, s);
        let factorial = Interval {
            lo: Float::with_val_round(wp, arg.gamma_ref(), Round::Down).0,
            hi: Float::with_val_round(wp, arg.gamma_ref(), Round::Up).0,
        };
        let v = z.mul(&factorial, wp);
        Some(if positive { v } else { v.neg() })
    })
}

/// Whether |ψ⁽ⁿ⁾(x)| = n!·ζ(n+1, x), x > 0, certainly overflows the format (`Greater`) or rounds to
/// zero (`Less`), from n!·x^−(n+1) ≤ |ψ⁽ⁿ⁾(x)| ≤ n!·x^−(n+1)·(1 + x/n) (the sum is at most its
/// first term plus the integral of the rest) evaluated in base-2 logarithms with a margin of 16
/// (far above the f64 error of these estimates). `None` when neither is certain.
///
/// For huge n both terms of log₂ n! − (n+1)·log₂ x are near n·log₂ n (up to 2^1034), so they are
/// evaluated at a precision of 64 bits plus n's binary exponent: the difference is then known to
/// far better than the margin.
fn magnitude_outside(fmt: FloatFormat, n: &Float, x: &Float) -> Option<Ordering> {
    let prec = 64 + n.get_exp().unwrap_or(0).max(0) as u32 + 16;
    let n_plus_1 = Float::with_val(prec, n + 1u32);
    let mut lg = n_plus_1.clone();
    lg.ln_abs_gamma_round(Round::Nearest);
    let log2_factorial = lg / std::f64::consts::LN_2;
    let log2_x = Float::with_val(prec, x.log2_ref());
    let lower = Float::with_val(prec, log2_factorial - n_plus_1 * log2_x).to_f64();
    let upper = lower + (x.to_f64() / n.to_f64()).ln_1p() / std::f64::consts::LN_2;
    let margin = 16.0;
    let smallest = f64::from(fmt.min_normal_exponent()) - f64::from(fmt.mantissa_bits);
    if lower - margin > f64::from(fmt.max_exponent()) + 1.0 {
        Some(Ordering::Greater)
    } else if upper + margin < smallest - 1.0 {
        Some(Ordering::Less)
    } else {
        None
    }
}

/// The integer s of ζ(s, q) for a non-integer q < 0 and an integer s > 1 when the value is
/// computed (s ≤ 2^19, see [`zeta`]), or `None`.
fn negative_q_order(s: &Float, _q: &Float) -> Option<u32> {
    s.to_u32_saturating().filter(|&s| s <= MAX_NEGATIVE_Q_S)
}

/// An enclosure of ζ(s, q) for an integer 2 ≤ s ≤ 2^19 and a non-integer q < 0:
/// ζ(s, f) + (−1)^s·(ζ(s, 1−f) − ζ(s, 1−q)) with f = q − ⌊q⌋ (module docs).
pub(crate) fn negative_q(s: u32, q: &Float, w: u32) -> Option<Interval> {
    let wp = w + 32;
    // f = q − ⌊q⌋, 1 − f and 1 − q, enclosed (f may need more bits than q has).
    let floor = Float::with_val(q.prec(), q.floor_ref());
    let enclose = |v: &dyn Fn(Round) -> Float| Interval {
        lo: v(Round::Down),
        hi: v(Round::Up),
    };
    let f = enclose(&|r| Float::with_val_round(wp, q - &floor, r).0);
    // ⌊q⌋ + 1 is exact (|q| < 2^(p−1) as q is not an integer), so 1 − f = (⌊q⌋ + 1) − q rounds once.
    let ceil = Float::with_val(q.prec().max(64), &floor + 1u32);
    let one_minus_f = enclose(&|r| Float::with_val_round(wp, &ceil - q, r).0);
    let one_minus_q = enclose(&|r| Float::with_val_round(wp, 1u32 - q, r).0);
    let sf = Float::with_val(32, s);
    let far = hurwitz(&sf, &one_minus_q, w)?;
    let odd = s % 2 == 1;
    let half_integer = Float::with_val(q.prec() + 1, q * 2u32).is_integer();
    if odd && half_integer {
        return Some(far); // f = ½: ζ(s, ½) − ζ(s, ½) = 0 exactly
    }
    let near = hurwitz(&sf, &f, w)?;
    let mirror = hurwitz(&sf, &one_minus_f, w)?;
    let reflected = mirror.sub(&far, wp);
    Some(if odd {
        near.sub(&reflected, wp)
    } else {
        near.add(&reflected, wp)
    })
}

/// How [`hurwitz`] evaluates at one precision: `terms` summed directly, then either the integral
/// tail bound (`corrections == 0`) or Euler–Maclaurin with `corrections` Bernoulli terms.
struct Plan {
    terms: u64,
    corrections: usize,
}

/// Chooses the cheaper of direct summation and Euler–Maclaurin for a relative error ≲ 2^−(w+4)
/// (an estimate in f64: only efficiency depends on it, the bounds are computed rigorously).
fn plan(s: f64, q: f64, w: u32) -> Option<Plan> {
    let w = f64::from(w);
    // Euler–Maclaurin: error/ζ ≤ 4ρ^(2M) with ρ = (s+2M)/(2πQ) (Johansson 2015, using
    // |B_2M|/(2M)! ≤ 4/(2π)^2M and ζ ≥ Q^(1−s)/(s−1)); ρ = 1/4 with M = ⌈(w+6)/4⌉, or smaller when
    // M is capped.
    let m = ((w + 6.0) / 4.0).ceil().min(MAX_BERNOULLI as f64);
    let rho = (-(w + 6.0) / (2.0 * m)).exp2();
    let n_em = ((s + 2.0 * m) / (2.0 * std::f64::consts::PI * rho) - q)
        .ceil()
        .max(0.0);
    let n_direct = direct_terms(s, q, w);
    if n_direct <= n_em && n_direct <= MAX_TERMS {
        Some(Plan {
            terms: n_direct as u64,
            corrections: 0,
        })
    } else if n_em <= MAX_TERMS {
        Some(Plan {
            terms: n_em as u64,
            corrections: m as usize,
        })
    } else {
        None
    }
}

/// The smallest N ≥ 1 (up to doubling) with (q/(q+N))^s·(1 + (q+N)/(s−1)) ≤ 2^−(w+4): the tail
/// bound of the direct sum relative to its first term; +inf when above [`MAX_TERMS`].
fn direct_terms(s: f64, q: f64, w: f64) -> f64 {
    let target = |n: f64| (w + 4.0) * std::f64::consts::LN_2 + ((q + n) / (s - 1.0)).ln_1p();
    let enough = |n: f64| s * (n / q).ln_1p() >= target(n);
    let guess = q * (target(0.0) / s).exp_m1();
    let mut n = if guess.is_finite() {
        guess.ceil().max(1.0)
    } else {
        1.0
    };
    while n <= MAX_TERMS {
        if enough(n) {
            return n;
        }
        n *= 2.0;
    }
    f64::INFINITY
}

/// An enclosure of ζ(s, q) for finite s > 1 and every q in the interval `q` ⊂ (0, ∞), at working
/// precision `w` (module docs). `None` when the work would exceed the caps.
pub(crate) fn hurwitz(s: &Float, q: &Interval, w: u32) -> Option<Interval> {
    let plan = plan(s.to_f64(), q.lo.to_f64(), w)?;
    let wp = w + 24 + (64 - (plan.terms + plan.corrections as u64).leading_zeros());
    // base^−s rounded in direction r (an integer power when s is one).
    let int_s = s.to_i32_saturating().filter(|&k| *s == k && k < i32::MAX);
    let neg_s = Float::with_val(s.prec(), -s);
    let pow_neg = |base: &Float, r: Round| match int_s {
        Some(k) => Float::with_val_round(wp, Pow::pow(base, -k), r).0,
        None => Float::with_val_round(wp, Pow::pow(base, &neg_s), r).0,
    };
    let (mut lo, mut hi) = (Float::with_val(wp, 0u32), Float::with_val(wp, 0u32));
    for k in 0..plan.terms {
        // (q+k)^−s is decreasing in q.
        let b_lo = Float::with_val_round(wp, &q.lo + k, Round::Down).0;
        let b_hi = Float::with_val_round(wp, &q.hi + k, Round::Up).0;
        lo.add_assign_round(pow_neg(&b_hi, Round::Down), Round::Down);
        hi.add_assign_round(pow_neg(&b_lo, Round::Up), Round::Up);
    }
    let big_q = Interval {
        lo: Float::with_val_round(wp, &q.lo + plan.terms, Round::Down).0,
        hi: Float::with_val_round(wp, &q.hi + plan.terms, Round::Up).0,
    };
    // X = Q^−s.
    let x = Interval {
        lo: pow_neg(&big_q.hi, Round::Down),
        hi: pow_neg(&big_q.lo, Round::Up),
    };
    let s_minus_1 = Interval {
        lo: Float::with_val_round(wp, s - 1u32, Round::Down).0,
        hi: Float::with_val_round(wp, s - 1u32, Round::Up).0,
    };
    let integral = x.mul(&big_q, wp).div(&s_minus_1, wp)?; // Q^(1−s)/(s−1)
                                                           // ∫_N^∞ ≤ Σ_{k≥N} (q+k)^−s ≤ Q^−s + ∫_N^∞ (the terms decrease): the lower bound also holds
                                                           // with Euler–Maclaurin, whose bounds can fall below it (e.g. to −tiny when Q^−s underflows).
    let floor = Float::with_val_round(wp, &lo + &integral.lo, Round::Down).0;
    let tail = if plan.corrections == 0 {
        Interval {
            hi: integral.add(&x, wp).hi,
            lo: integral.lo,
        }
    } else {
        euler_maclaurin_tail(s, &big_q, &x, &integral, plan.corrections, wp)?
    };
    let sum = Interval { lo, hi }.add(&tail, wp);
    Some(Interval {
        lo: sum.lo.max(&floor),
        hi: sum.hi,
    })
}

/// Σ_{k≥N} (q+k)^−s = Q^(1−s)/(s−1) + Q^−s/2 + Σ_{j=1..M} c_j·P_j + R with c_j = B_{2j}/(2j)!,
/// P_j = (s)_{2j−1}·Q^(−s−2j+1) and |R| ≤ |c_M·P_M| (module docs).
fn euler_maclaurin_tail(
    s: &Float,
    big_q: &Interval,
    x: &Interval,
    integral: &Interval,
    m: usize,
    wp: u32,
) -> Option<Interval> {
    let half_x = Interval {
        lo: Float::with_val(x.lo.prec(), &x.lo >> 1u32),
        hi: Float::with_val(x.hi.prec(), &x.hi >> 1u32),
    };
    let mut total = integral.add(&half_x, wp);
    let q2 = big_q.mul(big_q, wp);
    let sp = Interval::point(s);
    let shifted = |k: u64| {
        let v = |r: Round| Float::with_val_round(wp, s + k, r).0;
        Interval {
            lo: v(Round::Down),
            hi: v(Round::Up),
        }
    };
    let mut p = sp.mul(x, wp).div(big_q, wp)?; // P_1 = s·Q^(−s−1)
    let coefficients = bernoulli_coefficients(m);
    let mut last = Interval::point(&Float::with_val(wp, 0u32));
    for (index, c) in coefficients.iter().enumerate() {
        let j = index as u64 + 1;
        if j > 1 {
            // P_j = P_{j−1}·(s+2j−3)(s+2j−2)/Q².
            p = p
                .mul(&shifted(2 * j - 3), wp)
                .mul(&shifted(2 * j - 2), wp)
                .div(&q2, wp)?;
        }
        let c = Interval {
            lo: Float::with_val_round(wp, c, Round::Down).0,
            hi: Float::with_val_round(wp, c, Round::Up).0,
        };
        last = c.mul(&p, wp);
        total = total.add(&last, wp);
    }
    let bound = Float::with_val(wp, last.lo.abs_ref()).max(&Float::with_val(wp, last.hi.abs_ref()));
    Some(Interval {
        lo: Float::with_val_round(wp, &total.lo - &bound, Round::Down).0,
        hi: Float::with_val_round(wp, &total.hi + &bound, Round::Up).0,
    })
}

/// c_j = B_{2j}/(2j)! for j = 1..=m (exact), from the recurrence Σ_{k=0..n} b_k/(n+1−k)! = 0
/// (n ≥ 1) of b_k = B_k/k! (the coefficients of z/(e^z − 1)), kept in a process-wide table.
fn bernoulli_coefficients(m: usize) -> Vec<Rational> {
    static TABLE: Mutex<Vec<Rational>> = Mutex::new(Vec::new());
    let mut table = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    while table.len() < m {
        let j = table.len() as u32 + 1; // computing c_j = b_{2j}
        let inv_fact = |n: u32| Rational::from((1, Integer::from(Integer::factorial(n))));
        // b_{2j} = −[1/(2j+1)! − 1/(2·(2j)!) + Σ_{i=1..j−1} b_{2i}/(2j+1−2i)!]
        let mut acc = inv_fact(2 * j + 1) - inv_fact(2 * j) / 2u32;
        for i in 1..j {
            acc += &table[(i - 1) as usize] * inv_fact(2 * j + 1 - 2 * i);
        }
        table.push(-acc);
    }
    table[..m].to_vec()
}

#[cfg(test)]
mod tests;
