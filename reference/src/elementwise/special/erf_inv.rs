//! The inverse error function erf⁻¹, correctly rounded by verified bracketing.

use crate::round::{decode, infinity_bits};
use crate::ziv::{self, Interval};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;
use rug::float::{Constant, Round};
use rug::Float;
use std::cmp::Ordering;

/// erf⁻¹(x): the y with erf(y) = x (CHLO `chlo.erf_inv`; XLA client library `math.h` `ErfInv`).
///
/// Domain −1 ≤ x ≤ 1. Special values: erf⁻¹(±0) = ±0, erf⁻¹(±1) = ±inf (NaN in formats without
/// infinities), |x| > 1 and NaN give NaN; the function is odd, so the value is computed for |x|.
///
/// Algorithm: for 0 < a = |x| < 1 a candidate y is found by Newton's method at a working precision
/// `w` ([`approximate`]), and the bracket [y(1 − 2^−w), y(1 + 2^−w)] is *verified* with MPFR's
/// correctly rounded erf (or erfc when a > ½, where 1 − a is exact), each rounded in the safe
/// direction: erf(lo)↑ < a < erf(hi)↓. As erf is increasing, erf⁻¹(a) lies in the bracket, which
/// [`ziv::round_enclosure`] rounds; `w` doubles when the verification fails or the bracket does not
/// round to one value.
///
/// Termination: the bracket shrinks to the exact value as `w` grows, so the loop ends unless
/// erf⁻¹(a) is a rounding midpoint m of the format, i.e. erf(m) = a for a dyadic m ≠ 0. That would
/// make erf of a nonzero rational a rational number, which does not happen (erf(m) is believed
/// transcendental for rational m ≠ 0; it is not proven in general): [`ziv::MAX_PRECISION`] turns
/// such a case into [`BackendError::Failure`] rather than a hang. Cost: a few MPFR erf evaluations
/// at ~100–200 bits.
///
/// Errors: [`BackendError::Failure`] only if that loop reaches [`ziv::MAX_PRECISION`].
pub(crate) fn erf_inv(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    let v = decode(fmt, x);
    if v.is_nan() {
        return Ok(fmt.nan_bits());
    }
    if v.is_zero() {
        return Ok(x);
    }
    let negative = v.is_sign_negative();
    let a = Float::with_val(v.prec(), v.abs_ref());
    match a.partial_cmp(&1u32) {
        Some(Ordering::Greater) | None => return Ok(fmt.nan_bits()),
        Some(Ordering::Equal) => return Ok(infinity_bits(fmt, negative)),
        Some(Ordering::Less) => {}
    }
    let r = ziv::round_enclosure(fmt, |w| enclose(&a, w))?;
    Ok(if negative { fmt.negate_bits(r) } else { r })
}

/// A verified enclosure of erf⁻¹(a) for 0 < a < 1 of relative width about 2^(1−w), or `None` when
/// the candidate was not accurate enough to verify at this precision.
pub(crate) fn enclose(a: &Float, w: u32) -> Option<Interval> {
    let y = approximate(a, w + 16);
    let wp = w + 32;
    let delta = Float::with_val(wp, &y >> w);
    let lo = Float::with_val(wp, &y - &delta);
    let hi = Float::with_val(wp, &y + &delta);
    let verified = if *a > 0.5 {
        // erfc(lo) > t > erfc(hi), with t = 1 − a exact (Sterbenz: ½ < a < 1).
        let t = Float::with_val(a.prec(), 1u32 - a);
        let e_lo = Float::with_val_round(wp, lo.erfc_ref(), Round::Down).0;
        let e_hi = Float::with_val_round(wp, hi.erfc_ref(), Round::Up).0;
        e_lo > t && e_hi < t
    } else {
        let e_lo = Float::with_val_round(wp, lo.erf_ref(), Round::Up).0;
        let e_hi = Float::with_val_round(wp, hi.erf_ref(), Round::Down).0;
        e_lo < *a && e_hi > *a
    };
    verified.then_some(Interval { lo, hi })
}

/// erf⁻¹(a) for 0 < a < 1 to about `prec` bits: Newton's method on erf(y) − a (on t − erfc(y),
/// t = 1 − a, when a > ½), from Giles's single-precision approximation ("Approximating the erfinv
/// function", GPU Computing Gems, 2011) or, for 1 − a < 10⁻⁷, from the fixed point of the tail
/// asymptotics y² = −ln(t·√π·y). Not rigorous: [`enclose`] verifies the result.
///
/// Convergence: erf is concave on y > 0 (erfc convex), so after the first step the iterates
/// increase monotonically to the root, quadratically once close.
pub(crate) fn approximate(a: &Float, prec: u32) -> Float {
    let tail = *a > 0.5;
    let t = Float::with_val(a.prec(), 1u32 - a);
    let af = a.to_f64();
    let tf = t.to_f64();
    let guess = if tail && tf < 1e-7 {
        tail_guess(tf)
    } else {
        giles(af)
    };
    let two_over_sqrt_pi = {
        let sqrt_pi = Float::with_val(prec, Constant::Pi).sqrt();
        Float::with_val(prec, 2u32 / sqrt_pi)
    };
    let mut y = Float::with_val(prec, guess);
    for _ in 0..200 {
        let residual = if tail {
            Float::with_val(prec, &t - Float::with_val(prec, y.erfc_ref()))
        } else {
            Float::with_val(prec, Float::with_val(prec, y.erf_ref()) - a)
        };
        let square = Float::with_val(prec, y.square_ref());
        let slope = Float::with_val(
            prec,
            &two_over_sqrt_pi * Float::with_val(prec, (-square).exp_ref()),
        );
        if slope.is_zero() || !slope.is_finite() {
            break;
        }
        let step = Float::with_val(prec, &residual / &slope);
        y -= &step;
        let small = Float::with_val(32, &y >> (prec - 4)).abs();
        if step.is_zero() || step.clone().abs() < small {
            break;
        }
    }
    y
}

/// Giles's single-precision erf⁻¹ (relative error ~1e−7 for |x| ≤ 1 − 2⁻²⁴).
fn giles(x: f64) -> f64 {
    let mut w = -((1.0 - x) * (1.0 + x)).ln();
    let p = if w < 5.0 {
        w -= 2.5;
        [
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ]
        .iter()
        .fold(2.810_226_36e-08, |p, c| c + p * w)
    } else {
        w = w.sqrt() - 3.0;
        [
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ]
        .iter()
        .fold(-0.000_200_214_257, |p, c| c + p * w)
    };
    p * x
}

/// erfc⁻¹(t) for tiny t from erfc(y) ≈ e^(−y²)/(y√π) (relative error < 10⁻³ for t < 10⁻⁷).
fn tail_guess(t: f64) -> f64 {
    let mut y = (-t.ln()).sqrt();
    for _ in 0..6 {
        y = (-(t * std::f64::consts::PI.sqrt() * y).ln()).sqrt();
    }
    y
}

#[cfg(test)]
mod tests {
    use super::super::super::test_util::*;
    use super::super::tests::assert_rounds_once;
    use super::*;
    use conformance_spec::hlo::ir::Opcode::{Erf, ErfInv};
    use conformance_spec::ElementType;

    /// erf⁻¹(x) rounded once into `fmt`, from a 400-bit bisection on MPFR's erf (independent of
    /// the Newton iteration and of the verification above).
    fn bisect(fmt: FloatFormat, x: f64) -> u64 {
        let a = Float::with_val(64, x.abs());
        // erf⁻¹(a) ∈ (0.886a, 1.2a) for a < ½ (relative resolution for tiny a), < 30 otherwise.
        let hi = if x.abs() < 0.5 { 1.2 * x.abs() } else { 30.0 };
        let (mut lo, mut hi) = (
            Float::with_val(400, 0.88 * x.abs()),
            Float::with_val(400, hi),
        );
        for _ in 0..420 {
            let mid = Float::with_val(400, &lo + &hi) >> 1u32;
            if Float::with_val(460, mid.erf_ref()) < a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let r = crate::round::round_exact(fmt, &lo);
        if x < 0.0 {
            fmt.negate_bits(r)
        } else {
            r
        }
    }

    #[test]
    fn erf_inv_known_values() {
        // erf⁻¹(0.5) = 0.476936276204469873381418353643...
        assert_eq!(f64op(ErfInv, &[0.5]), 0.4769362762044699);
        assert_eq!(f64op(ErfInv, &[-0.5]), -0.4769362762044699);
        // erf⁻¹(0.89999997615814209 = f32 0.9) = 1.16308707194577223551... → f32 0x3f94_e00a
        // (mpmath at 300 bits).
        assert_eq!(f32op(ErfInv, &[0.9]).to_bits(), 0x3f94_e00a);
        for x in [
            0.5,
            0.9,
            1e-30,
            0.999_999,
            1.0 - 2f64.powi(-53),
            5e-324,
            0.25,
            0.75,
        ] {
            assert_eq!(
                f64op(ErfInv, &[x]).to_bits(),
                bisect(FloatFormat::F64, x),
                "{x}"
            );
        }
    }

    #[test]
    fn erf_inv_special_values() {
        assert_eq!(f32op(ErfInv, &[1.0]), f32::INFINITY);
        assert_eq!(f32op(ErfInv, &[-1.0]), f32::NEG_INFINITY);
        assert!(f32op(ErfInv, &[1.0000001]).is_nan());
        assert!(f32op(ErfInv, &[-2.0]).is_nan());
        assert!(f32op(ErfInv, &[f32::INFINITY]).is_nan());
        assert!(f32op(ErfInv, &[f32::NAN]).is_nan());
        assert_eq!(f32op(ErfInv, &[0.0]).to_bits(), 0);
        assert_eq!(f32op(ErfInv, &[-0.0]).to_bits(), 0x8000_0000);
        // Subnormals: erf⁻¹(x) ≈ (√π/2)x = 0.886x, so the smallest subnormal stays itself.
        assert_eq!(f32op(ErfInv, &[f32::from_bits(1)]).to_bits(), 1);
        assert_eq!(f32op(ErfInv, &[f32::from_bits(100)]).to_bits(), 89); // 88.62 quanta
                                                                         // The largest f32 below 1: erf⁻¹(1 − 2⁻²⁴) = 3.8325...; no infinity.
        let r = f32op(ErfInv, &[1.0 - f32::EPSILON / 2.0]);
        assert!((r - 3.832_506_6).abs() < 1e-5, "{r}");
        // Formats without infinities: ±1 gives NaN.
        let t = ElementType::F8E4M3FN;
        let f = t.float_format().unwrap();
        assert_eq!(eval(ErfInv, t, &[f.encode(1.0) as u128]), 0x7f);
    }

    #[test]
    fn erf_inv_brackets_and_is_monotone_on_random_f32() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut prev: Option<(f32, f32)> = None;
        for _ in 0..2000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let bits = (state >> 33) as u32 & 0x3f7f_ffff; // |x| < 1
            let x = f32::from_bits(bits);
            let y = f32op(ErfInv, &[x]);
            // erf(prev(y)) ≤ x ≤ erf(next(y)) in exact arithmetic (checked at 200 bits).
            let e = |v: f32| Float::with_val(200, Float::with_val(24, v).erf_ref());
            let below = f32::from_bits(y.to_bits() - 1);
            let above = f32::from_bits(y.to_bits() + 1);
            assert!(e(below) <= x && e(above) >= x, "{x}: {y}");
            // erf of the rounded result gives x back in f32 up to the slope (erf' ≤ 1.13).
            let back = f32op(Erf, &[y]);
            assert!(
                (back - x).abs() <= 2.0 * f32::EPSILON * x.abs().max(1e-30),
                "{x}"
            );
            if let Some((px, py)) = prev {
                assert_eq!(px < x, py <= y, "monotone at {px} {x}");
            }
            prev = Some((x, y));
        }
        // Every result equals the independent bisection's.
        for x in [0.3f32, 0.6, 0.99, 0.999_9, 1e-20, 0.123_456_79, 0.5] {
            assert_eq!(
                f32op(ErfInv, &[x]).to_bits() as u64,
                bisect(FloatFormat::F32, x as f64),
                "{x}"
            );
        }
    }

    #[test]
    fn erf_inv_narrow_formats_round_once() {
        // The result r is erf⁻¹(x) rounded once iff erf maps the midpoints around r to either side
        // of x (erf is increasing), checked at 200 bits: no double rounding through f32.
        for (t, stride) in [
            (ElementType::Bf16, 5),
            (ElementType::F16, 5),
            (ElementType::F8E4M3FN, 1),
            (ElementType::F8E5M2, 1),
            (ElementType::F8E3M4, 1),
        ] {
            let f = t.float_format().unwrap();
            for bits in (0..(1u64 << f.bit_width())).step_by(stride) {
                let x = f.decode(bits);
                if x.is_nan() || x.abs() >= 1.0 || x == 0.0 {
                    continue;
                }
                let r = eval(ErfInv, t, &[bits as u128]) as u64;
                let erf = |m: &Float| Float::with_val(200, m.erf_ref());
                assert_rounds_once(f, r, |m| erf(m).partial_cmp(&x).unwrap());
            }
        }
    }
}
