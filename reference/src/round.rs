//! Rounding an MPFR value into a floating-point format, once.
//!
//! MPFR computes a correctly rounded result at the format's precision `p` (round to nearest, ties
//! to even) with its own, practically unbounded, exponent range, and returns a ternary value (the
//! sign of `rounded − exact`). The format's narrower exponent range is applied afterwards:
//!
//! 1. subnormals: [`rug::Float::subnormalize_round`] re-rounds a value below the smallest normal
//!    onto the subnormal grid, using the ternary value to break what would otherwise be a double
//!    rounding (this is `mpfr_subnormalize`'s documented use);
//! 2. overflow: a rounded magnitude above the format's largest finite value becomes ±inf, or NaN in
//!    formats without infinities (the rule of [`FloatFormat::encode`]).
//!
//! The value is then exactly representable and [`FloatFormat::encode`] writes its bits exactly.
//!
//! MPFR's exponent convention is `x = m × 2^e` with `0.5 ≤ |m| < 1`, so the smallest normal
//! `2^(1 − bias)` has MPFR exponent `2 − bias`.

use conformance_spec::element_type::FloatFormat;
use rug::float::Round;
use rug::Float;
use std::cmp::Ordering;

/// The value of a format's bit pattern as an exact `Float` of the format's precision.
///
/// NaN decodes to NaN (payload and sign are not kept), ±inf and ±0 keep their sign.
pub fn decode(fmt: FloatFormat, bits: u64) -> Float {
    Float::with_val(fmt.precision(), fmt.decode(bits))
}

/// True when the bit pattern is a NaN of the format.
pub fn is_nan(fmt: FloatFormat, bits: u64) -> bool {
    fmt.classify(bits) == conformance_spec::FloatClass::Nan
}

/// The MPFR exponent of the smallest normal number of the format (see the module docs).
pub fn mpfr_normal_exp_min(fmt: FloatFormat) -> i32 {
    fmt.min_normal_exponent() + 1
}

/// Bits of a zero with the given sign (+0 in formats without −0).
pub fn zero_bits(fmt: FloatFormat, negative: bool) -> u64 {
    if negative {
        fmt.negative_zero_bits()
    } else {
        0
    }
}

/// Bits of an infinity with the given sign: ±inf, or NaN for formats without infinities.
pub fn infinity_bits(fmt: FloatFormat, negative: bool) -> u64 {
    fmt.encode(if negative {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    })
}

/// Rounds a value MPFR produced at precision `fmt.precision()` with [`Round::Nearest`] into the
/// format, given the ternary value of that rounding.
///
/// `value` must have exactly the format's precision; the result is the bit pattern of the exact
/// value rounded once to nearest-even on the format's grid, with subnormals, overflow to ±inf (or
/// NaN without infinities), and the canonical NaN for NaN.
pub fn round_nearest_result(fmt: FloatFormat, mut value: Float, ternary: Ordering) -> u64 {
    debug_assert_eq!(value.prec(), fmt.precision());
    if value.is_nan() {
        return fmt.nan_bits();
    }
    let negative = value.is_sign_negative();
    if value.is_infinite() {
        return infinity_bits(fmt, negative);
    }
    if value.is_zero() {
        return zero_bits(fmt, negative);
    }
    value.subnormalize_round(mpfr_normal_exp_min(fmt), ternary, Round::Nearest);
    finish(fmt, &value)
}

/// Rounds an exactly known value (any precision) into the format, once (see
/// [`round_nearest_result`]).
pub fn round_exact(fmt: FloatFormat, value: &Float) -> u64 {
    let (rounded, ternary) = Float::with_val_round(fmt.precision(), value, Round::Nearest);
    round_nearest_result(fmt, rounded, ternary)
}

/// Writes a value that is already on the format's grid (apart from overflow) into bits.
fn finish(fmt: FloatFormat, value: &Float) -> u64 {
    let negative = value.is_sign_negative();
    if value.is_zero() {
        return zero_bits(fmt, negative);
    }
    // Exact: the value has at most 53 significant bits and lies in f64's range, or it is so large
    // that to_f64 gives ±inf, which overflows every format as it should.
    let x = value.to_f64();
    if x.abs() > fmt.max_finite() {
        return infinity_bits(fmt, negative);
    }
    fmt.encode(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::ElementType;

    fn f32_bits(x: &Float, t: Ordering) -> u32 {
        round_nearest_result(FloatFormat::F32, x.clone(), t) as u32
    }

    #[test]
    fn normal_values_pass_through() {
        let x = Float::with_val(24, 1.5);
        assert_eq!(f32_bits(&x, Ordering::Equal), 1.5f32.to_bits());
        let y = Float::with_val(24, -3.0e-30);
        assert_eq!(
            f32_bits(&y, Ordering::Equal),
            (-3.0e-30f32 as f64 as f32).to_bits()
        );
    }

    #[test]
    fn subnormal_rounding_uses_the_ternary_value() {
        // 1.5 × 2^-149 is a tie between 1 and 2 subnormal quanta: even gives 2 quanta.
        let tie = Float::with_val(24, 1.5 * 2f64.powi(-149));
        assert_eq!(f32_bits(&tie, Ordering::Equal), 2);
        // If that value came from rounding *up* (exact value below the tie) the answer is 1 quantum;
        // if it came from rounding down (exact above the tie) it is 2 quanta.
        assert_eq!(f32_bits(&tie, Ordering::Greater), 1);
        assert_eq!(f32_bits(&tie, Ordering::Less), 2);
        // 2.5 quanta: tie to even gives 2; ternary breaks it either way.
        let tie = Float::with_val(24, 2.5 * 2f64.powi(-149));
        assert_eq!(f32_bits(&tie, Ordering::Equal), 2);
        assert_eq!(f32_bits(&tie, Ordering::Less), 3);
        // Half of the smallest subnormal: tie between 0 and the smallest; exact → 0 (even).
        let half = Float::with_val(24, 2f64.powi(-150));
        assert_eq!(f32_bits(&half, Ordering::Equal), 0);
        assert_eq!(f32_bits(&half, Ordering::Less), 1);
        assert_eq!(f32_bits(&(-half.clone()), Ordering::Greater), 0x8000_0001);
        assert_eq!(f32_bits(&(-half), Ordering::Equal), 0x8000_0000);
        // Far below: zero with the sign.
        let tiny = Float::with_val(24, -1e-300);
        assert_eq!(f32_bits(&tiny, Ordering::Less), 0x8000_0000);
    }

    #[test]
    fn overflow_follows_the_format() {
        let big = Float::with_val(24, 3.5e38);
        assert_eq!(f32_bits(&big, Ordering::Less), f32::INFINITY.to_bits());
        let e4m3fn = ElementType::F8E4M3FN.float_format().unwrap();
        let v = Float::with_val(4, 480.0);
        assert_eq!(round_nearest_result(e4m3fn, v, Ordering::Greater), 0x7f);
        let v = Float::with_val(4, -448.0);
        assert_eq!(round_nearest_result(e4m3fn, v, Ordering::Less), 0xfe);
        // Beyond f64's range (MPFR's range is much larger).
        let huge = Float::with_val(53, 1.0) << 5000u32;
        assert_eq!(
            round_nearest_result(FloatFormat::F64, huge, Ordering::Equal),
            f64::INFINITY.to_bits()
        );
    }

    #[test]
    fn fnuz_has_no_negative_zero() {
        let f = ElementType::F8E5M2FNUZ.float_format().unwrap();
        let v = Float::with_val(3, -1e-30);
        assert_eq!(round_nearest_result(f, v, Ordering::Less), 0);
        assert_eq!(round_exact(f, &Float::with_val(53, f64::NAN)), 0x80);
    }

    #[test]
    fn round_exact_rounds_once() {
        // 1 + 2^-24 + 2^-60 at 64 bits: nearest f32 is 1 + 2^-23 (above the tie), while rounding
        // first to 53 bits would give the tie 1 + 2^-24 and then 1.
        let mut x = Float::with_val(64, 1.0);
        x += Float::with_val(64, 2f64.powi(-24));
        x += Float::with_val(64, 2f64.powi(-60));
        assert_eq!(
            round_exact(FloatFormat::F32, &x) as u32,
            (1.0f32 + f32::EPSILON).to_bits()
        );
    }
}

/// `a·b + c` computed exactly and rounded once into the format (IEEE 754 fusedMultiplyAdd, with
/// its signs of zero): what a backend that contracts a multiply and an add into one instruction
/// gives. `a`, `b`, `c` and the result are bit patterns of `fmt`.
pub fn fused_multiply_add(fmt: FloatFormat, a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (decode(fmt, a), decode(fmt, b), decode(fmt, c));
    let (value, ternary) =
        Float::with_val_round(fmt.precision(), x.mul_add_ref(&y, &z), Round::Nearest);
    round_nearest_result(fmt, value, ternary)
}

#[cfg(test)]
mod fma_tests {
    use super::*;
    use conformance_spec::ElementType;

    #[test]
    fn fused_multiply_add_rounds_once() {
        let f = ElementType::F32.float_format().unwrap();
        let bits = |x: f32| u64::from(x.to_bits());
        for (a, b, c) in [
            (0.64309406f32, 0.64309406f32, -1.0f32),
            (1.0 + f32::EPSILON, 1.0 - f32::EPSILON, -1.0),
            (3.0, 7.0, 0.5),
            (-0.0, 5.0, -0.0),
            (0.0, 5.0, -0.0),
            (f32::INFINITY, 0.0, 1.0),
        ] {
            let got = fused_multiply_add(f, bits(a), bits(b), bits(c)) as u32;
            let want = a.mul_add(b, c);
            assert!(
                got == want.to_bits() || (want.is_nan() && f32::from_bits(got).is_nan()),
                "{a}*{b}+{c}: {} vs {want}",
                f32::from_bits(got)
            );
        }
    }
}
