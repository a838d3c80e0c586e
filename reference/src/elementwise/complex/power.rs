//! Complex power z^w = exp(w·log z), principal branch (seed 004, Pow; MPC `pow`, C99 Annex G
//! special values: z^0 = 1).
//!
//! With A = Re(w·log z) and B = Im(w·log z), z^w = e^A·(cos B + i sin B). MPC 1.4.1 computes
//! w·log z at a working precision only 64 bits beyond the exponent of its largest component and,
//! when e^A overflows or underflows its extended exponent range (|A| > 2^62·ln 2), takes the signs
//! of the resulting infinities or zeros from that approximation of B (a FIXME in its source notes
//! that this precision may not suffice in corner cases). When B is a huge multiple of π plus a
//! small term, those signs can be wrong (c128 (−7.82 + 0i)^(1.5e208 − 1.1e-31i): sin B =
//! −3.0e-186, so the result is (+inf, −inf); MPC gave (+inf, +inf)). Such results are recomputed
//! here with the signs proven (see [`power`]); every other result is MPC's.

use super::{decode_c, exact_add, exact_mul, is_finite, mpc_binary, NN};
use crate::round::{infinity_bits, zero_bits};
use crate::ziv::{Interval, MAX_PRECISION};
use conformance_spec::element_type::{FloatClass, FloatFormat};
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::PowAssignRound;
use rug::{Complex, Float};
use std::cmp::Ordering;

/// log2 of the bound on |A| beyond which the fallback decides a result: e^(2^40) is far outside
/// every format's range (and far inside MPC's overflow threshold, 2^62·ln 2).
const FAR_LOG2: i32 = 40;

/// log2 of the bound on |A| below which MPC's result stands (MPC reaches its overflow path only
/// beyond 2^62·ln 2, and its Ziv loop below that is correctly rounded).
const NEAR_LOG2: i32 = 41;

/// log2 of the smallest |cos B| or |sin B| the fallback accepts: with |A| > 2^40,
/// e^|A|·2^-(2^20) is still far beyond every format's overflow threshold.
const TRIG_MIN_LOG2: i32 = -(1 << 20);

/// z^w, principal branch: MPC's correctly rounded result, except where both of its components
/// come out as infinities or zeros of the format.
///
/// Then, for finite z ≠ 0 and finite w, A and B are enclosed with interval arithmetic at a working
/// precision that doubles from 64 bits up to [`MAX_PRECISION`]: ln|z| = ½·ln(x² + y²) (x² + y²
/// formed exactly) and arg z = atan2(y, x), each rounded down and up by MPFR, then A = u·ln|z| −
/// v·arg z and B = u·arg z + v·ln|z| for w = u + iv, bounds rounded outward.
///
/// * If |A| < 2^41 is proven, MPC's result stands (it did not take its overflow path). Deciding
///   such results here would not do: near the range a component can be exactly a rounding tie
///   (e.g. (2^-154·(1 + i))^7 = 2^-1075·(1 − i), half the smallest c128 subnormal in both
///   components), which no enclosure decides; MPC's exact-power path rounds it.
/// * If |A| > 2^40 is proven, each component is e^A times cos B (resp. sin B); its sign is that of
///   cos B (sin B) once both ends of B's enclosure, less than 3 wide (< π, so at most one zero of
///   cos or sin lies inside, and it would change the sign), give cos (sin) the same strict sign
///   and a magnitude of at least 2^-(2^20) (|cos| and |sin| are concave between their zeros, so
///   the ends bound them from below). The component is then ±inf for A > 2^40 (its magnitude
///   exceeds e^(2^40)·2^-(2^20)) and ±0 for A < −2^40 (below e^(−2^40)), with that sign.
/// * B is an exact multiple of π/2 only when arg z is a multiple of π/4 (z on an axis or a
///   diagonal) and v·ln|z| = 0 (v = 0, or z = ±1, ±i): by Baker's theorem on linear forms in
///   logarithms there is no other case. Those are detected first: B/(π/2) = u·m/2 exactly for
///   arg z = m·π/4, and when it is an integer k the unit (cos B, sin B) is (1, 0), (0, 1), (−1, 0)
///   or (0, −1) for k mod 4 = 0, 1, 2, 3. The exactly zero component keeps the sign of MPC's
///   component (the sign of an exact zero of power is a convention: the oracle data leaves it
///   free); the other is ±inf or ±0 as above.
///
/// Errors: [`BackendError::Failure`] when no working precision up to [`MAX_PRECISION`] bits
/// decides the signs (never observed: it needs |cos B| or |sin B| below about 2^-32000).
pub(super) fn power(fmt: FloatFormat, x: u128, y: u128) -> Result<u128, BackendError> {
    let mpc = mpc_binary(fmt, x, y, |z, w| z.pow_assign_round(w, NN));
    let (re, im) = complex_parts(fmt, mpc);
    let beyond = |c: u64| matches!(fmt.classify(c), FloatClass::Infinite | FloatClass::Zero);
    if !(beyond(re) && beyond(im)) {
        return Ok(mpc);
    }
    let z = decode_c(fmt, x);
    let w = decode_c(fmt, y);
    if !is_finite(&z) || !is_finite(&w) || (z.real().is_zero() && z.imag().is_zero()) {
        return Ok(mpc);
    }
    let mpc_negative = |c: u64| fmt.decode(c).is_sign_negative();
    let exact = exact_quarter_turns(&z, &w);
    let mut p = 64;
    while p <= MAX_PRECISION {
        let (a, b) = exponent_enclosure(&z, &w, p);
        let overflow = if a.lo > power_of_two(FAR_LOG2) {
            true
        } else if a.hi < -power_of_two(FAR_LOG2) {
            false
        } else if a.lo > -power_of_two(NEAR_LOG2) && a.hi < power_of_two(NEAR_LOG2) {
            return Ok(mpc);
        } else {
            p *= 2;
            continue;
        };
        let signs = match exact {
            Some(k) => {
                let unit = [(1, 0), (0, 1), (-1, 0), (0, -1)][k as usize];
                (Some(unit.0), Some(unit.1))
            }
            None => (
                strict_sign(&b, p, |v, p, r| Float::with_val_round(p, v.cos_ref(), r).0),
                strict_sign(&b, p, |v, p, r| Float::with_val_round(p, v.sin_ref(), r).0),
            ),
        };
        if let (Some(c), Some(s)) = signs {
            let component = |sign: i32, mpc_bits: u64| match sign {
                0 => zero_bits(fmt, mpc_negative(mpc_bits)),
                _ if overflow => infinity_bits(fmt, sign < 0),
                _ => zero_bits(fmt, sign < 0),
            };
            return Ok(complex_bits(fmt, component(c, re), component(s, im)));
        }
        p *= 2;
    }
    Err(BackendError::Failure(format!(
        "power: the signs of cos and sin of Im(w log z) were not decided in {MAX_PRECISION} bits"
    )))
}

/// 2^e as a `Float`.
fn power_of_two(e: i32) -> Float {
    Float::with_val(2, 1) << e
}

/// Enclosures of A = Re(w·log z) and B = Im(w·log z) at working precision `p` (finite z ≠ 0,
/// finite w).
fn exponent_enclosure(z: &Complex, w: &Complex, p: u32) -> (Interval, Interval) {
    let (x, y) = (z.real(), z.imag());
    let norm = exact_add(&exact_mul(x, x), &exact_mul(y, y));
    let half_ln = |r| {
        let (mut l, _) = Float::with_val_round(p, norm.ln_ref(), r);
        l >>= 1u32; // exact
        l
    };
    let ln_abs = Interval {
        lo: half_ln(Round::Down),
        hi: half_ln(Round::Up),
    };
    let arg = Interval {
        lo: Float::with_val_round(p, y.atan2_ref(x), Round::Down).0,
        hi: Float::with_val_round(p, y.atan2_ref(x), Round::Up).0,
    };
    let u = Interval::point(w.real());
    let v = Interval::point(w.imag());
    let a = u.mul(&ln_abs, p).sub(&v.mul(&arg, p), p);
    let b = u.mul(&arg, p).add(&v.mul(&ln_abs, p), p);
    (a, b)
}

/// The sign (±1) of `f` over the interval `b`, when proven: `b` is less than 3 wide, and `f`
/// (cos or sin, evaluated by `f(v, p, round)` rounded in direction `round`) has the same strict
/// sign at both ends with a magnitude of at least 2^[`TRIG_MIN_LOG2`].
fn strict_sign(b: &Interval, p: u32, f: fn(&Float, u32, Round) -> Float) -> Option<i32> {
    let (width, _) = Float::with_val_round(p, &b.hi - &b.lo, Round::Up);
    if width.partial_cmp(&3) != Some(Ordering::Less) {
        return None;
    }
    let at = |v: &Float| -> Option<i32> {
        let (lo, hi) = (f(v, p, Round::Down), f(v, p, Round::Up));
        let (sign, magnitude) = if lo > 0 {
            (1, lo)
        } else if hi < 0 {
            (-1, hi)
        } else {
            return None;
        };
        (magnitude.get_exp()? > TRIG_MIN_LOG2).then_some(sign)
    };
    let (s_lo, s_hi) = (at(&b.lo)?, at(&b.hi)?);
    (s_lo == s_hi).then_some(s_lo)
}

/// B/(π/2) mod 4 when B = Im(w·log z) is an exact integer multiple of π/2 (see [`power`]):
/// arg z = m·π/4 (z on an axis or a diagonal), v·ln|z| = 0 (v = 0, or z = ±1, ±i), and u·m/2 an
/// integer. `None` otherwise (then cos B and sin B are both nonzero).
fn exact_quarter_turns(z: &Complex, w: &Complex) -> Option<u32> {
    let (x, y) = (z.real(), z.imag());
    let (u, v) = (w.real(), w.imag());
    let eighths: i32 = if y.is_zero() {
        match (*x > 0, y.is_sign_negative()) {
            (true, _) => 0,
            (false, false) => 4,
            (false, true) => -4,
        }
    } else if x.is_zero() {
        if *y > 0 {
            2
        } else {
            -2
        }
    } else if x.cmp_abs(y) == Some(Ordering::Equal) {
        let m = if *x > 0 { 1 } else { 3 };
        if *y > 0 {
            m
        } else {
            -m
        }
    } else {
        return None;
    };
    let one = Float::with_val(2, 1);
    let is_one = |c: &Float| c.cmp_abs(&one) == Some(Ordering::Equal);
    let unit = (x.is_zero() && is_one(y)) || (y.is_zero() && is_one(x));
    if !(v.is_zero() || unit) {
        return None;
    }
    // u·m/2, exact: u has u.prec() bits and |m| ≤ 4.
    let mut t = Float::with_val(u.prec() + 4, u * eighths);
    t >>= 1u32;
    if !t.is_integer() {
        return None;
    }
    t.to_integer().map(|k| k.mod_u(4))
}

#[cfg(test)]
mod tests {
    use super::super::super::test_util::eval;
    use conformance_spec::hlo::ir::Opcode::Power;
    use conformance_spec::literal::{complex_bits, complex_parts};
    use conformance_spec::{ElementType, FloatFormat};

    const F64: FloatFormat = FloatFormat::F64;
    const F32: FloatFormat = FloatFormat::F32;
    const INF: u64 = 0x7ff0_0000_0000_0000;
    const NEG_INF: u64 = 0xfff0_0000_0000_0000;
    const NEG_ZERO: u64 = 0x8000_0000_0000_0000;

    /// z^w in c128, operands and result as (re, im) bit patterns.
    fn pow128(z: (u64, u64), w: (u64, u64)) -> (u64, u64) {
        let args = [complex_bits(F64, z.0, z.1), complex_bits(F64, w.0, w.1)];
        complex_parts(F64, eval(Power, ElementType::C128, &args))
    }

    fn pow64(z: (u32, u32), w: (u32, u32)) -> (u32, u32) {
        let c = |(re, im): (u32, u32)| complex_bits(F32, u64::from(re), u64::from(im));
        let (re, im) = complex_parts(F32, eval(Power, ElementType::C64, &[c(z), c(w)]));
        (re as u32, im as u32)
    }

    /// The two vectors of the complex oracle that MPC 1.4.1 got wrong, and the brief's example.
    /// Signs checked with mpmath at 8000 bits: (1) A = −8.27e310, cos B ≈ 1, sin B = +5.67e-303:
    /// (+0, +0); (2) A = +4.93e208, cos B ≈ 1, sin B = −3.05e-186: (+inf, −inf).
    #[test]
    fn huge_angle_signs_of_the_oracle_defects() {
        assert_eq!(
            pow128(
                (0xff5f_ffff_ffff_ffff, 0x0054_d40f_ae4a_5692),
                (0xffe4_eb82_fc00_a00b, 0x0096_0527_496d_7299)
            ),
            (0, 0)
        );
        assert_eq!(
            pow128(
                (0xc01f_48d4_b447_68b3, 0),
                (0x6b32_abae_54b5_d764, 0x9959_c461_2896_198d)
            ),
            (INF, NEG_INF)
        );
    }

    /// Either zero: the sign of an exact zero of power is a convention (MPC's is kept).
    fn is_zero(c: u64) -> bool {
        c & !NEG_ZERO == 0
    }

    /// Huge B at the overflow and underflow sides, B = u·arg z + v·ln|z| a huge multiple of π plus
    /// a small term that decides the signs (checked with mpmath at 9000 bits).
    #[test]
    fn huge_angle_signs() {
        let f = f64::to_bits;
        // (−3)^(2^900 − 1e-300 i): A = 9.3e270, sin B = −1.1e-300.
        assert_eq!(
            pow128((f(-3.0), 0), (f(2f64.powi(900)), f(-1e-300))),
            (INF, NEG_INF)
        );
        // (−5i)^(2^900 + 1e-300 i): A = 1.4e271, sin B = +1.6e-300.
        assert_eq!(
            pow128((0, f(-5.0)), (f(2f64.powi(900)), f(1e-300))),
            (INF, INF)
        );
        // c64 (−3)^(2^100 − 1e-40 i): A = 1.4e30, sin B = −1.1e-40.
        let g = f32::to_bits;
        assert_eq!(
            pow64((g(-3.0), 0), (g(2f32.powi(100)), g(-1e-40))),
            (0x7f80_0000, 0xff80_0000)
        );
        // c64 (2i)^(2^120 + 3e-39 i): A = 9.2e35, sin B = +2.1e-39.
        assert_eq!(
            pow64((0, g(2.0)), (g(2f32.powi(120)), g(3e-39))),
            (0x7f80_0000, 0x7f80_0000)
        );
        // c64 (−0.5)^(2^110 − 1e-38 i): A = −9.0e32, sin B = +6.9e-39: (+0, +0).
        assert_eq!(pow64((g(-0.5), 0), (g(2f32.powi(110)), g(-1e-38))), (0, 0));
        // c64 (−1.7e38 + 1e-30 i)^(−3e38 + 1e-44 i): A = −2.6e40, sin B = +1.8e-30: (+0, +0).
        assert_eq!(pow64((g(-1.7e38), g(1e-30)), (g(-3e38), g(1e-44))), (0, 0));
    }

    /// B an exact multiple of π/2 (z on an axis or diagonal, v·ln|z| = 0): one component is an
    /// exact zero (either sign), the other ±inf or ±0 with the sign of the unit cos B or sin B.
    #[test]
    fn exact_quarter_turns() {
        let f = f64::to_bits;
        let one = f(1.0);
        let check = |z, w, want: (Option<u64>, Option<u64>)| {
            let got = pow128(z, w);
            let ok = |g: u64, e: Option<u64>| e.map_or(is_zero(g), |e| g == e);
            assert!(
                ok(got.0, want.0) && ok(got.1, want.1),
                "{z:x?}^{w:x?}: got {got:x?}, want {want:x?} (None: a zero)"
            );
        };
        // (−2)^(2^1000): B = 2^1000·π ≡ 0.
        check((f(-2.0), 0), (f(2f64.powi(1000)), 0), (Some(INF), None));
        // (1e300 i)^(2^53 − 1): B ≡ 3π/2, (0, −inf).
        check(
            (0, f(1e300)),
            (f(2f64.powi(53) - 1.0), 0),
            (None, Some(NEG_INF)),
        );
        // (−1)^(0.5 + 1e300 i): A = −π·1e300, B = π/2: (0, +0).
        check((f(-1.0), 0), (f(0.5), f(1e300)), (None, Some(0)));
        // (−1)^(3 − 1e20 i): A = π·1e20, B = 3π: (−inf, 0).
        check((f(-1.0), 0), (f(3.0), f(-1e20)), (Some(NEG_INF), None));
        // (1 + i)^(2^60) = 2^(2^59): (+inf, 0); (1 + i)^(2^45 + 2) = 2i·2^(2^44): (0, +inf).
        check((one, one), (f(2f64.powi(60)), 0), (Some(INF), None));
        check((one, one), (f(2f64.powi(45) + 2.0), 0), (None, Some(INF)));
        // Odd multiples of π/4 (no exact zero): (1 + i)^(2^43 + 1) = (1 + i)·2^(2^42),
        // (1 + i)^(2^43 + 3) = (−2 + 2i)·2^(2^42), (1 − i)^(2^43 + 3) = (−2 − 2i)·2^(2^42).
        let e43 = 2f64.powi(43);
        check((one, one), (f(e43 + 1.0), 0), (Some(INF), Some(INF)));
        check((one, one), (f(e43 + 3.0), 0), (Some(NEG_INF), Some(INF)));
        check(
            (one, f(-1.0)),
            (f(e43 + 3.0), 0),
            (Some(NEG_INF), Some(NEG_INF)),
        );
    }

    /// Results that overflow or underflow with |A| well inside MPC's range stay MPC's.
    #[test]
    fn moderate_overflow_is_mpc() {
        let f = f64::to_bits;
        assert_eq!(pow128((f(1e300), 0), (f(2.0), 0)), (INF, 0));
        // (1e-200 (1 + i))^3 = 1e-600 (−2 + 2i): (−0, +0) by MPC's rounding of ±2e-600.
        let got = pow128((f(1e-200), f(1e-200)), (f(3.0), 0));
        assert!(is_zero(got.0) && is_zero(got.1), "{got:x?}");
        // (2^-154·(1 + i))^7 = 2^-1075·(1 − i): both components ties, rounded to even (±0).
        let t = f(2f64.powi(-154));
        assert_eq!(pow128((t, t), (f(7.0), 0)), (0, NEG_ZERO));
        // (2i)^1100.5 = 2^1100.5·e^(iπ/4)·e^(550iπ): |A| = 1100.5·ln 2, (+inf, +inf).
        assert_eq!(pow128((0, f(2.0)), (f(1100.5), 0)), (INF, INF));
    }
}
