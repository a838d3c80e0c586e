//! Binary arithmetic on real floating-point types (seed 004, "Element-wise binary arithmetic
//! operations"): add, subtract, multiply, divide, power, remainder, maximum, minimum, atan2; and
//! the CHLO next-after, polygamma and zeta (in `special`).
//!
//! Arithmetic and transcendental results are MPFR's, correctly rounded at the format's precision,
//! then placed in the format's exponent range once ([`crate::round`]).

use super::core_math::{self, CrFn};
use crate::round::{decode, is_nan, round_nearest_result};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::hlo::ir::Opcode;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::{
    AddAssignRound, DivAssignRound, MulAssignRound, PowAssignRound, RemAssignRound, SubAssignRound,
};
use rug::Float;
use std::cmp::Ordering;

/// Semantics of a binary operation on a real format: operand bits to result bits.
pub(crate) type BinaryFloatFn = fn(FloatFormat, u64, u64) -> Result<u64, BackendError>;

const TABLE: &[(Opcode, BinaryFloatFn)] = &[
    (Opcode::Add, add),
    (Opcode::Subtract, subtract),
    (Opcode::Multiply, multiply),
    (Opcode::Divide, divide),
    (Opcode::Power, power),
    (Opcode::Remainder, remainder),
    (Opcode::Maximum, maximum),
    (Opcode::Minimum, minimum),
    (Opcode::Atan2, atan2),
    (Opcode::NextAfter, super::special::next_after),
    (Opcode::Polygamma, super::special::polygamma),
    (Opcode::Zeta, super::special::zeta),
];

pub(crate) fn lookup(op: Opcode) -> Option<BinaryFloatFn> {
    TABLE.iter().find(|&&(o, _)| o == op).map(|&(_, f)| f)
}

/// Evaluates `x ∘ y` with MPFR in place at the format's precision (round to nearest) and rounds
/// the result into the format once.
fn mpfr_binary(fmt: FloatFormat, x: u64, y: u64, f: fn(&mut Float, &Float) -> Ordering) -> u64 {
    let mut a = decode(fmt, x);
    let b = decode(fmt, y);
    let t = f(&mut a, &b);
    round_nearest_result(fmt, a, t)
}

/// [`mpfr_binary`] through CORE-MATH where it decides the result ([`core_math`]); builds with
/// debug assertions check it against MPFR on every call.
fn cr_binary(
    fmt: FloatFormat,
    x: u64,
    y: u64,
    cr: CrFn,
    f: fn(&mut Float, &Float) -> Ordering,
) -> u64 {
    match cr.eval(fmt, &[x, y]) {
        Some(bits) => {
            debug_assert_eq!(
                bits,
                mpfr_binary(fmt, x, y, f),
                "CORE-MATH and MPFR differ at ({x:#x}, {y:#x}) in {fmt:?}"
            );
            bits
        }
        None => mpfr_binary(fmt, x, y, f),
    }
}

fn add(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    Ok(mpfr_binary(fmt, x, y, |a, b| {
        a.add_assign_round(b, Round::Nearest)
    }))
}

fn subtract(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    Ok(mpfr_binary(fmt, x, y, |a, b| {
        a.sub_assign_round(b, Round::Nearest)
    }))
}

fn multiply(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    Ok(mpfr_binary(fmt, x, y, |a, b| {
        a.mul_assign_round(b, Round::Nearest)
    }))
}

fn divide(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    Ok(mpfr_binary(fmt, x, y, |a, b| {
        a.div_assign_round(b, Round::Nearest)
    }))
}

/// x^y with C99/IEEE 754 `pow` special values (MPFR): x^±0 = 1 and 1^y = 1 even for a quiet NaN,
/// as XLA's evaluator also has them ("1^x = 1 and x^0 = 1"). A signaling NaN operand gives NaN
/// (IEEE 754-2019 §9.2.1 names the quiet NaN only; §6.2 makes every operation on a signaling NaN
/// signal invalid and deliver a quiet NaN), as XLA's CPU backend and C libraries compute it.
fn power(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    if fmt.is_signaling_nan(x) || fmt.is_signaling_nan(y) {
        return Ok(fmt.nan_bits());
    }
    Ok(cr_binary(fmt, x, y, core_math::POW, |a, b| {
        a.pow_assign_round(b, Round::Nearest)
    }))
}

/// fmod: x − trunc(x/y)·y, exact, with the sign of the dividend (seed 004, Rem).
fn remainder(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    Ok(mpfr_binary(fmt, x, y, |a, b| {
        a.rem_assign_round(b, Round::Nearest)
    }))
}

/// atan2(y = lhs, x = rhs) with C99 special values (signed zeros and infinities).
fn atan2(fmt: FloatFormat, y: u64, x: u64) -> Result<u64, BackendError> {
    Ok(cr_binary(fmt, y, x, core_math::ATAN2, |a, b| {
        a.atan2_round(b, Round::Nearest)
    }))
}

/// Orders two non-NaN values, with −0 < +0.
fn cmp_signed(fmt: FloatFormat, x: u64, y: u64) -> Ordering {
    let (a, b) = (fmt.decode(x), fmt.decode(y));
    a.partial_cmp(&b)
        .expect("no NaN")
        .then_with(|| b.is_sign_negative().cmp(&a.is_sign_negative()))
}

/// The larger operand; NaN if either is NaN; +0 is larger than −0.
fn maximum(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    if is_nan(fmt, x) || is_nan(fmt, y) {
        return Ok(fmt.nan_bits());
    }
    Ok(if cmp_signed(fmt, x, y) == Ordering::Less {
        y
    } else {
        x
    })
}

/// The smaller operand; NaN if either is NaN; −0 is smaller than +0.
fn minimum(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    if is_nan(fmt, x) || is_nan(fmt, y) {
        return Ok(fmt.nan_bits());
    }
    Ok(if cmp_signed(fmt, x, y) == Ordering::Greater {
        y
    } else {
        x
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use conformance_spec::hlo::ir::Opcode::*;
    use conformance_spec::ElementType;

    const MIN_SUB: f32 = 1.0e-45;

    #[test]
    fn arithmetic_special_values() {
        assert_eq!(f32op(Add, &[0.0, -0.0]).to_bits(), 0);
        assert_eq!(f32op(Add, &[-0.0, -0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Subtract, &[1.0, 1.0]).to_bits(), 0);
        assert!(f32op(Add, &[f32::INFINITY, f32::NEG_INFINITY]).is_nan());
        assert_eq!(f32op(Add, &[f32::MAX, f32::MAX]), f32::INFINITY);
        assert_eq!(f32op(Multiply, &[-0.0, 5.0]).to_bits(), 0x8000_0000);
        assert!(f32op(Multiply, &[0.0, f32::INFINITY]).is_nan());
        assert_eq!(f32op(Divide, &[1.0, -0.0]), f32::NEG_INFINITY);
        assert!(f32op(Divide, &[0.0, 0.0]).is_nan());
        assert_eq!(f32op(Divide, &[1.0, 3.0]), 1.0 / 3.0);
        // Subnormal results, ties to even on the subnormal grid.
        assert_eq!(f32op(Multiply, &[MIN_SUB, 0.5]).to_bits(), 0);
        assert_eq!(f32op(Multiply, &[3.0 * MIN_SUB, 0.5]).to_bits(), 2);
        assert_eq!(
            f32op(Subtract, &[f32::MIN_POSITIVE, MIN_SUB]).to_bits(),
            0x007f_ffff
        );
        // Exact sum of a tie at p bits: 1 + 2^-24 → 1 (even).
        assert_eq!(f32op(Add, &[1.0, 2f32.powi(-24)]), 1.0);
        assert_eq!(
            f32op(Add, &[1.0, 3.0 * 2f32.powi(-24)]),
            1.0 + 2.0 * f32::EPSILON
        );
    }

    #[test]
    fn narrow_formats_round_in_their_own_grid() {
        let t = ElementType::F8E4M3FN;
        let f = t.float_format().unwrap();
        let b = |x: f64| f.encode(x) as u128;
        assert_eq!(eval(Add, t, &[b(448.0), b(16.0)]), b(448.0)); // 464 ties to 448 (even)
        assert_eq!(eval(Add, t, &[b(448.0), b(32.0)]), 0x7f); // 480 overflows: NaN
        assert_eq!(eval(Multiply, t, &[b(-448.0), b(2.0)]), 0xff);
        let t = ElementType::F8E5M2;
        let f = t.float_format().unwrap();
        let b = |x: f64| f.encode(x) as u128;
        assert_eq!(eval(Multiply, t, &[b(57344.0), b(2.0)]), 0x7c); // +inf
        let bf16 = ElementType::Bf16;
        // 1 + 2^-8 is a tie in bf16 → 1.
        assert_eq!(eval(Add, bf16, &[0x3f80, 0x3b80]), 0x3f80);
    }

    #[test]
    fn power() {
        assert_eq!(f32op(Power, &[2.0, 10.0]), 1024.0);
        assert_eq!(f32op(Power, &[f32::NAN, 0.0]), 1.0);
        assert_eq!(f32op(Power, &[1.0, f32::NAN]), 1.0);
        assert!(f32op(Power, &[-2.0, 0.5]).is_nan());
        assert_eq!(f32op(Power, &[0.0, -1.0]), f32::INFINITY);
        assert_eq!(f32op(Power, &[-0.0, -1.0]), f32::NEG_INFINITY);
        assert!(f32op(Power, &[-8.0, 1.0 / 3.0]).is_nan());
        assert_eq!(f32op(Power, &[2.0, -149.0]).to_bits(), 1);
        assert_eq!(f32op(Power, &[2.0, -150.0]).to_bits(), 0);
        assert_eq!(f32op(Power, &[2.0, 128.0]), f32::INFINITY);
        assert_eq!(f64op(Power, &[10.0, 22.0]), 1e22);
        // A signaling NaN is not covered by pow(x, ±0) = 1 nor pow(1, y) = 1.
        let snan = f32::from_bits(0x7f81_2345);
        assert!(f32op(Power, &[snan, 0.0]).is_nan());
        assert!(f32op(Power, &[1.0, snan]).is_nan());
        assert!(f32op(Power, &[-snan, -0.0]).is_nan());
        let snan64 = f64::from_bits(0xfff1_d0d3_7d2c_baf9);
        assert!(f64op(Power, &[snan64, -0.0]).is_nan());
        assert_eq!(f64op(Power, &[f64::NAN, -0.0]), 1.0);
    }

    #[test]
    fn remainder_is_fmod() {
        assert_eq!(f32op(Remainder, &[5.5, 2.0]), 1.5);
        assert_eq!(f32op(Remainder, &[-5.5, 2.0]), -1.5);
        assert_eq!(f32op(Remainder, &[5.5, -2.0]), 1.5);
        assert_eq!(f32op(Remainder, &[-4.0, 2.0]).to_bits(), 0x8000_0000);
        assert!(f32op(Remainder, &[1.0, 0.0]).is_nan());
        assert!(f32op(Remainder, &[f32::INFINITY, 1.0]).is_nan());
        assert_eq!(f32op(Remainder, &[3.0, f32::INFINITY]), 3.0);
        assert_eq!(f32op(Remainder, &[f32::MAX, 11.0]), 9.0); // exact: (2^128 − 2^104) mod 11 = 9
        assert_eq!(f32op(Remainder, &[f32::MAX, 3.0]), 0.0); // 2^24 − 1 is a multiple of 3
        assert_eq!(
            f32op(Remainder, &[5.0 * MIN_SUB, 2.0 * MIN_SUB]).to_bits(),
            1
        );
    }

    #[test]
    fn max_min() {
        assert!(f32op(Maximum, &[f32::NAN, 1.0]).is_nan());
        assert!(f32op(Minimum, &[1.0, f32::NAN]).is_nan());
        assert_eq!(f32op(Maximum, &[-0.0, 0.0]).to_bits(), 0);
        assert_eq!(f32op(Maximum, &[0.0, -0.0]).to_bits(), 0);
        assert_eq!(f32op(Minimum, &[0.0, -0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Minimum, &[-0.0, 0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Maximum, &[f32::NEG_INFINITY, -f32::MAX]), -f32::MAX);
        assert_eq!(f32op(Minimum, &[MIN_SUB, 0.0]), 0.0);
    }

    #[test]
    fn atan2_quadrants() {
        use std::f32::consts::{FRAC_PI_2, PI};
        assert_eq!(f32op(Atan2, &[1.0, 0.0]), FRAC_PI_2);
        assert_eq!(f32op(Atan2, &[0.0, -1.0]), PI);
        assert_eq!(f32op(Atan2, &[-0.0, -1.0]), -PI);
        assert_eq!(f32op(Atan2, &[-0.0, 1.0]).to_bits(), 0x8000_0000);
        assert_eq!(
            f32op(Atan2, &[f32::INFINITY, f32::INFINITY]),
            std::f32::consts::FRAC_PI_4
        );
        assert!(f32op(Atan2, &[f32::NAN, 1.0]).is_nan());
        assert_eq!(f64op(Atan2, &[1.0, 1.0]), std::f64::consts::FRAC_PI_4);
    }
}
