//! Complex element types (c64 = 2 × f32, c128 = 2 × f64): each component is correctly rounded in
//! the component format, with its own subnormal rounding (seed 004, element-wise operations on
//! complex operands; Real, Imag, Complex, Abs, Sign).
//!
//! MPC provides correctly rounded add, subtract, multiply, divide, exp, log, sqrt, sin, cos, tan,
//! tanh and pow, and returns a ternary value per component, so each component goes through
//! [`round_nearest_result`] exactly as a real result does (where MPC 1.4.1 was found wrong, the
//! function says so and computes those inputs itself: log near |z| = 1, tan and tanh far from the
//! real (imaginary) axis, pow beyond the exponent range). `abs` is MPFR's hypot. Functions MPC
//! lacks (sign, expm1, rsqrt, logistic) are enclosed per component with interval arithmetic over
//! correctly rounded primitives and refined until the enclosure rounds to one value
//! ([`crate::ziv`]); log1p is one correctly rounded MPFR call per component on an exactly formed
//! argument (see [`log1p`]). For non-finite inputs, where the formulas involve infinities, they
//! follow the formula with each step rounded (the values there are infinities, zeros and NaN).
//!
//! Submodules: [`composite`] (the enclosed functions), [`inverse`] (the CHLO asin, acos, atan,
//! sinh, cosh, asinh, acosh, atanh: MPC), [`power`] (z^w, with its overflow and
//! underflow signs proven apart from MPC), and the unit tests.

mod composite;
mod inverse;
mod power;
#[cfg(test)]
mod tests;

use super::{invalid, ElementFn, Signature};
use crate::round::{decode, round_nearest_result};
use composite::{exact_add, exact_mul, expm1, log1p, logistic, rsqrt, sign};
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::hlo::ir::Opcode;
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::{AddAssignRound, DivAssignRound, MulAssignRound, SubAssignRound};
use rug::{Complex, Float};
use std::cmp::Ordering;

/// Semantics of a unary operation on a complex type, given the component format.
pub(crate) type UnaryComplexFn = fn(FloatFormat, u128) -> Result<u128, BackendError>;
/// Semantics of a binary operation on a complex type, given the component format.
pub(crate) type BinaryComplexFn = fn(FloatFormat, u128, u128) -> Result<u128, BackendError>;

const UNARY: &[(Opcode, UnaryComplexFn)] = &[
    (Opcode::Negate, negate),
    (Opcode::Sign, sign),
    (Opcode::Exponential, exp),
    (Opcode::ExponentialMinusOne, expm1),
    (Opcode::Log, log),
    (Opcode::LogPlusOne, log1p),
    (Opcode::Sqrt, sqrt),
    (Opcode::Rsqrt, rsqrt),
    (Opcode::Sine, sin),
    (Opcode::Cosine, cos),
    (Opcode::Tan, tan),
    (Opcode::Tanh, tanh),
    (Opcode::Logistic, logistic),
    (Opcode::Asin, inverse::asin),
    (Opcode::Acos, inverse::acos),
    (Opcode::Atan, inverse::atan),
    (Opcode::Sinh, inverse::sinh),
    (Opcode::Cosh, inverse::cosh),
    (Opcode::Asinh, inverse::asinh),
    (Opcode::Acosh, inverse::acosh),
    (Opcode::Atanh, inverse::atanh),
];

const BINARY: &[(Opcode, BinaryComplexFn)] = &[
    (Opcode::Add, add),
    (Opcode::Subtract, subtract),
    (Opcode::Multiply, multiply),
    (Opcode::Divide, divide),
    (Opcode::Power, power::power),
];

pub(crate) fn lookup_unary(op: Opcode) -> Option<UnaryComplexFn> {
    UNARY.iter().find(|&&(o, _)| o == op).map(|&(_, f)| f)
}

pub(crate) fn lookup_binary(op: Opcode) -> Option<BinaryComplexFn> {
    BINARY.iter().find(|&&(o, _)| o == op).map(|&(_, f)| f)
}

const NN: (Round, Round) = (Round::Nearest, Round::Nearest);

/// The exact value of a complex element, each component at the component precision.
fn decode_c(fmt: FloatFormat, bits: u128) -> Complex {
    let (re, im) = complex_parts(fmt, bits);
    Complex::with_val(fmt.precision(), (fmt.decode(re), fmt.decode(im)))
}

/// Rounds an MPC result computed at the component precision (round to nearest) into the format.
fn finish(fmt: FloatFormat, value: Complex, ternary: (Ordering, Ordering)) -> u128 {
    let (re, im) = value.into_real_imag();
    complex_bits(
        fmt,
        round_nearest_result(fmt, re, ternary.0),
        round_nearest_result(fmt, im, ternary.1),
    )
}

fn mpc_unary(fmt: FloatFormat, x: u128, f: fn(&mut Complex) -> (Ordering, Ordering)) -> u128 {
    let mut z = decode_c(fmt, x);
    let t = f(&mut z);
    finish(fmt, z, t)
}

fn mpc_binary(
    fmt: FloatFormat,
    x: u128,
    y: u128,
    f: fn(&mut Complex, &Complex) -> (Ordering, Ordering),
) -> u128 {
    let mut z = decode_c(fmt, x);
    let w = decode_c(fmt, y);
    let t = f(&mut z, &w);
    finish(fmt, z, t)
}

fn is_finite(z: &Complex) -> bool {
    z.real().is_finite() && z.imag().is_finite()
}

// --- builders -------------------------------------------------------------------------------

/// `complex(re, im)`: two reals of one type (f32 or f64) → c64 or c128 (seed 004, Complex).
pub(crate) fn build_complex(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(2)?;
    let ty = sig.common_operand_type()?;
    let result = match ty {
        ElementType::F32 => ElementType::C64,
        ElementType::F64 => ElementType::C128,
        other => return sig.not_defined_for(other),
    };
    sig.expect_result(result)?;
    let fmt = ty.float_format().expect("float");
    Ok(Box::new(move |x| {
        Ok(complex_bits(fmt, x[0] as u64, x[1] as u64))
    }))
}

/// `real` / `imag`: complex → component type; on a real float type `real` is the identity and
/// `imag` is +0 (seed 004, Real, Imag).
pub(crate) fn build_real_imag(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    let ty = sig.operands[0];
    let imag = sig.opcode() == Opcode::Imag;
    if ty.is_complex() {
        sig.expect_result(ty.complex_component().expect("complex"))?;
        let fmt = ty.float_format().expect("complex");
        return Ok(Box::new(move |x| {
            let (re, im) = complex_parts(fmt, x[0]);
            Ok(u128::from(if imag { im } else { re }))
        }));
    }
    if ty.is_float() {
        sig.expect_result(ty)?;
        return Ok(Box::new(move |x| Ok(if imag { 0 } else { x[0] })));
    }
    sig.not_defined_for(ty)
}

/// `abs` of a complex number: |z| = hypot(re, im) in the component type.
pub(crate) fn build_abs(sig: &Signature) -> Result<ElementFn, BackendError> {
    let ty = sig.operands[0];
    let component = ty.complex_component().expect("complex");
    if sig.result != component {
        return invalid(format!(
            "abs of {ty} has element type {component}, got {}",
            sig.result
        ));
    }
    let fmt = ty.float_format().expect("complex");
    Ok(Box::new(move |x| {
        let (re, im) = complex_parts(fmt, x[0]);
        let mut r = decode(fmt, re);
        let t = r.hypot_round(&decode(fmt, im), Round::Nearest);
        Ok(u128::from(round_nearest_result(fmt, r, t)))
    }))
}

// --- MPC functions ----------------------------------------------------------------------------

fn negate(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let (re, im) = complex_parts(fmt, x);
    let neg = |c: u64| {
        if crate::round::is_nan(fmt, c) {
            fmt.nan_bits()
        } else {
            fmt.negate_bits(c)
        }
    };
    Ok(complex_bits(fmt, neg(re), neg(im)))
}

fn exp(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.exp_round(NN)))
}

/// log(z) = ln|z| + i arg z, principal branch.
///
/// Zero, non-finite and axis inputs go through MPC (special values there, or one real MPFR call
/// per component). Otherwise Re = ½·log1p(u) with u = x² + y² − 1 formed exactly (as in [`log1p`]):
/// one correctly rounded MPFR call, halving exact, the ternary value carried to the format
/// rounding; Im = atan2(y, x) by MPFR. MPC 1.4.1's log was one ULP off near |z| = 1 when both
/// components matter (e.g. c64 −0.24587378 − 0.96925306i: Re = 5.0366557581e-7, between
/// 0x350733a2 and 0x350733a3 above their midpoint, came out 0x350733a2).
fn log(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    let (re, im) = (z.real(), z.imag());
    if !is_finite(&z) || re.is_zero() || im.is_zero() {
        return Ok(mpc_unary(fmt, x, |z| z.ln_round(NN)));
    }
    let p = fmt.precision();
    let minus_one = Float::with_val(p, -1);
    let u = exact_add(
        &exact_add(&exact_mul(re, re), &exact_mul(im, im)),
        &minus_one,
    );
    let (mut r, t_re) = Float::with_val_round(p, u.ln_1p_ref(), Round::Nearest);
    r >>= 1u32; // exact: MPFR's exponent range is far wider than any format's
    let (i, t_im) = Float::with_val_round(p, im.atan2_ref(re), Round::Nearest);
    Ok(complex_bits(
        fmt,
        round_nearest_result(fmt, r, t_re),
        round_nearest_result(fmt, i, t_im),
    ))
}

fn sqrt(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.sqrt_round(NN)))
}

fn sin(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.sin_round(NN)))
}

fn cos(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.cos_round(NN)))
}

/// Beyond this magnitude of Im z (tan) or Re z (tanh) the result rounds to a signed zero and ±1 in
/// every format (see [`tan`]).
const TAN_SATURATION: u32 = 4096;

/// The sign of sin(2v) for a finite v: that of v itself for v = ±0 (sin 2v ≠ 0 otherwise, as 2v is
/// a nonzero rational).
fn sin_double_is_negative(v: &Float) -> bool {
    let twice = Float::with_val(v.prec() + 1, v * 2u32);
    Float::with_val(64, twice.sin_ref()).is_sign_negative()
}

/// tan z = (sin 2x + i sinh 2y) / (cos 2x + cosh 2y) (MPC).
///
/// For finite z with |y| > 4096 the real part is below 4e^−8192 in magnitude (a zero with the sign
/// of sin 2x in every format) and the imaginary part within 4e^−8192 of sign(y)·1 (rounds to ±1):
/// returned directly, because MPC 1.4.1 loses the sign of that zero once cosh 2y overflows its
/// exponent range (|y| > 1.6e18; e.g. tan(−0.0136 + 3.17e18i) gave +0).
fn tan(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    if is_finite(&z) && z.imag().clone().abs() > TAN_SATURATION {
        let re = crate::round::zero_bits(fmt, sin_double_is_negative(z.real()));
        let im = fmt.encode(if z.imag().is_sign_negative() {
            -1.0
        } else {
            1.0
        });
        return Ok(complex_bits(fmt, re, im));
    }
    Ok(mpc_unary(fmt, x, |z| z.tan_round(NN)))
}

/// tanh z = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y) (MPC); for |x| > 4096, (sign(x)·1, a zero
/// with the sign of sin 2y) directly, as for [`tan`].
fn tanh(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    let z = decode_c(fmt, x);
    if is_finite(&z) && z.real().clone().abs() > TAN_SATURATION {
        let re = fmt.encode(if z.real().is_sign_negative() {
            -1.0
        } else {
            1.0
        });
        let im = crate::round::zero_bits(fmt, sin_double_is_negative(z.imag()));
        return Ok(complex_bits(fmt, re, im));
    }
    Ok(mpc_unary(fmt, x, |z| z.tanh_round(NN)))
}

fn add(fmt: FloatFormat, x: u128, y: u128) -> Result<u128, BackendError> {
    Ok(mpc_binary(fmt, x, y, |z, w| z.add_assign_round(w, NN)))
}

fn subtract(fmt: FloatFormat, x: u128, y: u128) -> Result<u128, BackendError> {
    Ok(mpc_binary(fmt, x, y, |z, w| z.sub_assign_round(w, NN)))
}

fn multiply(fmt: FloatFormat, x: u128, y: u128) -> Result<u128, BackendError> {
    Ok(mpc_binary(fmt, x, y, |z, w| z.mul_assign_round(w, NN)))
}

fn divide(fmt: FloatFormat, x: u128, y: u128) -> Result<u128, BackendError> {
    Ok(mpc_binary(fmt, x, y, |z, w| z.div_assign_round(w, NN)))
}
