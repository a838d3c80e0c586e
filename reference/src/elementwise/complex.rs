//! Complex element types (c64 = 2 × f32, c128 = 2 × f64): each component is correctly rounded in
//! the component format, with its own subnormal rounding (seed 004, element-wise operations on
//! complex operands; Real, Imag, Complex, Abs, Sign).
//!
//! MPC provides correctly rounded add, subtract, multiply, divide, exp, log, sqrt, sin, cos, tan,
//! tanh and pow, and returns a ternary value per component, so each component goes through
//! [`round_nearest_result`] exactly as a real result does. `abs` is MPFR's hypot. Functions MPC
//! lacks (sign, expm1, rsqrt, logistic) are enclosed per component with interval arithmetic over
//! correctly rounded primitives and refined until the enclosure rounds to one value ([`ziv`]);
//! log1p is one correctly rounded MPFR call per component on an exactly formed argument (see
//! [`log1p`]). For non-finite inputs, where the formulas involve infinities, they follow the
//! formula with each step rounded (the values there are infinities, zeros and NaN).

use super::{invalid, ElementFn, Signature};
use crate::round::{decode, round_exact, round_nearest_result};
use crate::ziv::{self, Interval};
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::hlo::ir::Opcode;
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::{AddAssignRound, DivAssignRound, MulAssignRound, PowAssignRound, SubAssignRound};
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
];

const BINARY: &[(Opcode, BinaryComplexFn)] = &[
    (Opcode::Add, add),
    (Opcode::Subtract, subtract),
    (Opcode::Multiply, multiply),
    (Opcode::Divide, divide),
    (Opcode::Power, power),
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

/// z^w with the principal branch (MPC `pow`, C99 Annex G special values: z^0 = 1).
fn power(fmt: FloatFormat, x: u128, y: u128) -> Result<u128, BackendError> {
    Ok(mpc_binary(fmt, x, y, |z, w| z.pow_assign_round(w, NN)))
}

// --- composite functions (Ziv) ----------------------------------------------------------------

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
fn sign(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
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
fn expm1(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
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
fn log1p(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
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
fn exact_add(a: &Float, b: &Float) -> Float {
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
fn exact_mul(a: &Float, b: &Float) -> Float {
    let (m, t) = Float::with_val_round(a.prec() + b.prec(), a * b, Round::Nearest);
    debug_assert_eq!(t, Ordering::Equal);
    m
}

/// rsqrt(z) = 1 / sqrt(z) (seed 004: Rsqrt is 1.0 / sqrt(x)), principal branch.
///
/// For finite z ≠ 0, sqrt(z) = a + ib is enclosed by MPC with both components rounded down and
/// up, and 1/(a + ib) = (a − ib)/(a² + b²) with interval arithmetic. Zero and non-finite z use MPC's
/// sqrt and reciprocal, each rounded.
fn rsqrt(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
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
fn logistic(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
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

#[cfg(test)]
mod tests {
    use super::super::eval_element;
    use super::super::test_util::*;
    use conformance_spec::hlo::ir::Opcode::{self, *};
    use conformance_spec::literal::{complex_bits, complex_parts};
    use conformance_spec::{ElementType, FloatFormat};

    const C64: ElementType = ElementType::C64;
    const F: FloatFormat = FloatFormat::F32;

    fn c(re: f32, im: f32) -> u128 {
        complex_bits(F, re.to_bits() as u64, im.to_bits() as u64)
    }

    fn parts(bits: u128) -> (f32, f32) {
        let (re, im) = complex_parts(F, bits);
        (f32::from_bits(re as u32), f32::from_bits(im as u32))
    }

    fn un(op: Opcode, re: f32, im: f32) -> (f32, f32) {
        parts(eval(op, C64, &[c(re, im)]))
    }

    fn bin(op: Opcode, a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
        parts(eval(op, C64, &[c(a.0, a.1), c(b.0, b.1)]))
    }

    fn bits((re, im): (f32, f32)) -> (u32, u32) {
        (re.to_bits(), im.to_bits())
    }

    #[test]
    fn arithmetic() {
        assert_eq!(bin(Add, (1.0, 2.0), (3.0, -4.0)), (4.0, -2.0));
        assert_eq!(bin(Subtract, (1.0, 2.0), (1.0, 2.0)), (0.0, 0.0));
        assert_eq!(bin(Multiply, (1.0, 2.0), (3.0, 4.0)), (-5.0, 10.0));
        assert_eq!(bin(Divide, (-5.0, 10.0), (3.0, 4.0)), (1.0, 2.0));
        // (1 + 2^-12 i)(1 + 2^-12 i) = 1 − 2^-24 + 2^-11 i: the real part is exact in f32 only as
        // 1 − 2^-24 (0x3f7fffff); a product computed as ac − bd in f32 would also get it, but
        // (1 + 2^-13)(1 − 2^-13) = 1 − 2^-26 rounds to 1 when correctly rounded.
        let e = 2f32.powi(-12);
        assert_eq!(
            bits(bin(Multiply, (1.0, e), (1.0, e))),
            (0x3f7f_ffff, (2.0 * e).to_bits())
        );
        let d = 2f32.powi(-13);
        assert_eq!(bin(Multiply, (1.0, d), (1.0, -d)).0, 1.0);
        // Component subnormals: (2^-140)(2^-10) real part = 2^-150, a tie → 0; imaginary exact.
        let r = bin(
            Multiply,
            (2f32.powi(-140), 2f32.powi(-140)),
            (2f32.powi(-10), 0.0),
        );
        assert_eq!(bits(r), (0, 0));
        let r = bin(
            Multiply,
            (2f32.powi(-140), 2f32.powi(-140)),
            (2f32.powi(-9), 0.0),
        );
        assert_eq!(bits(r), (1, 1));
        assert_eq!(bin(Power, (0.0, 2.0), (2.0, 0.0)), (-4.0, 0.0));
        assert_eq!(bin(Power, (3.0, 4.0), (0.0, 0.0)), (1.0, 0.0));
    }

    #[test]
    fn functions() {
        assert_eq!(un(Exponential, 0.0, 0.0), (1.0, 0.0));
        // f32 π is above π: sin(π_f32) = −8.742278e-8, cos(π_f32) = −0.999999999999996 → −1.
        let (re, im) = un(Exponential, 0.0, std::f32::consts::PI);
        assert_eq!(re, -1.0);
        assert_eq!(im, -8.742278e-8);
        assert_eq!(un(Log, 1.0, 0.0), (0.0, 0.0));
        assert_eq!(un(Log, -1.0, 0.0), (0.0, std::f32::consts::PI));
        assert_eq!(un(Log, -1.0, -0.0), (0.0, -std::f32::consts::PI));
        assert_eq!(un(Sqrt, -4.0, 0.0), (0.0, 2.0));
        assert_eq!(un(Sqrt, -4.0, -0.0), (0.0, -2.0));
        assert_eq!(un(Sqrt, 3.0, 4.0), (2.0, 1.0));
        assert_eq!(un(Sine, 0.0, 0.0), (0.0, 0.0));
        assert_eq!(un(Cosine, 0.0, 0.0), (1.0, -0.0));
        assert_eq!(un(Tanh, 0.0, 0.0), (0.0, 0.0));
        assert_eq!(un(Tan, 0.0, 0.0), (0.0, 0.0));
        assert_eq!(
            bits(un(Negate, 0.0, -1.0)),
            ((-0.0f32).to_bits(), 1.0f32.to_bits())
        );
    }

    #[test]
    fn composites() {
        assert_eq!(un(Sign, 3.0, 4.0), (0.6, 0.8));
        assert_eq!(un(Sign, 0.0, -2.0), (0.0, -1.0));
        assert_eq!(bits(un(Sign, -0.0, 0.0)), (0, 0));
        let (re, im) = un(Sign, 1.0, 1.0);
        assert_eq!(
            (re, im),
            (
                std::f32::consts::FRAC_1_SQRT_2,
                std::f32::consts::FRAC_1_SQRT_2
            )
        );
        let (re, im) = un(Sign, f32::INFINITY, 1.0);
        assert!(re.is_nan() && im == 0.0);
        assert!(un(Sign, f32::NAN, 1.0).0.is_nan());
        assert_eq!(bits(un(ExponentialMinusOne, -0.0, 0.0)), (0x8000_0000, 0));
        assert_eq!(bits(un(ExponentialMinusOne, 1.0, 0.0)), (0x3fdb_f0a9, 0)); // e − 1 = 1.71828183
                                                                               // expm1(i·2^-20): re = cos(2^-20) − 1 = −2^-41 (1 − ...), im = sin(2^-20).
        let (re, im) = un(ExponentialMinusOne, 0.0, 2f32.powi(-20));
        assert_eq!(re, -(2f32.powi(-41)));
        assert_eq!(im, 2f32.powi(-20));
        assert_eq!(un(ExponentialMinusOne, f32::NEG_INFINITY, 1.0), (-1.0, 0.0));
        assert_eq!(bits(un(LogPlusOne, -0.0, 0.0)), (0x8000_0000, 0));
        assert_eq!(un(LogPlusOne, -2.0, 0.0), (0.0, std::f32::consts::PI));
        // log1p(2^-30 + i 2^-30): log|1 + z| ≈ 2^-30 (tiny correction), arg ≈ 2^-30.
        let t = 2f32.powi(-30);
        assert_eq!(un(LogPlusOne, t, t), (t, t));
        assert_eq!(un(Rsqrt, 4.0, 0.0), (0.5, -0.0));
        assert_eq!(un(Rsqrt, -4.0, 0.0), (0.0, -0.5));
        assert_eq!(un(Rsqrt, 3.0, 4.0), (0.4, -0.2));
        assert_eq!(un(Logistic, 0.0, 0.0), (0.5, 0.0));
        // Far out on either side the exponential would overflow MPFR's range: no trouble.
        assert_eq!(bits(un(Logistic, -3e38, 1.0)), (0, 0));
        assert_eq!(bits(un(Logistic, -3e38, -2.0)), (0x8000_0000, 0x8000_0000));
        assert_eq!(bits(un(Logistic, 3e38, 1.0)), (0x3f80_0000, 0));
        assert_eq!(bits(un(Logistic, 5000.0, -1.0)), (0x3f80_0000, 0x8000_0000));
        // Just inside the threshold the enclosure decides the signs itself.
        assert_eq!(
            bits(un(Logistic, -4000.0, -2.0)),
            (0x8000_0000, 0x8000_0000)
        );
        assert_eq!(bits(un(Logistic, 4000.0, -1.0)), (0x3f80_0000, 0x8000_0000));
        assert_eq!(
            bits(un(Logistic, -1.0, -0.0)),
            (0.26894143f32.to_bits(), 0x8000_0000)
        );
        // logistic(-1 + i) = 0.21795842936625 + 0.20194822765801i, logistic(2 − 3i) =
        // 1.1541 − 0.0254i: bits from mpmath at 200 bits, rounded once.
        assert_eq!(bits(un(Logistic, -1.0, 1.0)), (0x3e5f_307f, 0x3e4e_cb84));
        assert_eq!(bits(un(Logistic, 2.0, -3.0)), (0x3f93_bb1c, 0xbcd0_8224));
        let (re, im) = un(Logistic, 1.0, 0.0);
        assert_eq!((re, im.to_bits()), (0.7310586, 0));
    }

    fn un128(op: Opcode, re: f64, im: f64) -> (u64, u64) {
        let z = complex_bits(FloatFormat::F64, re.to_bits(), im.to_bits());
        complex_parts(FloatFormat::F64, eval(op, ElementType::C128, &[z]))
    }

    /// Regressions: forming 1 + z and taking MPC's log lost x in Re log(1 + z) for small x.
    /// Expected bits from mpmath at 400 bits, rounded once (the subnormal imaginary part by
    /// rounding the exact value to a multiple of 2^-1074).
    #[test]
    fn log1p_small_real_part() {
        // log1p(3.3e-13 − 7.2e-22 i) = 3.2999999999994556e-13 − 7.199999999997623e-22 i.
        assert_eq!(
            un128(LogPlusOne, 3.3e-13, -7.2e-22),
            (0x3d57_38c0_62d6_30c2, 0xbb8b_3369_a814_febc)
        );
        // log1p(3.3e-13 + 1.6e-308 i): the old real part was 0.
        assert_eq!(
            un128(LogPlusOne, 3.3e-13, 1.6e-308),
            (0x3d57_38c0_62d6_30c2, 0x000b_8157_268f_d6bd)
        );
        // Re = 1.70117606593701245e-6 (the old result was 1.7011760659369044e-6).
        assert_eq!(
            un128(LogPlusOne, 1.7011775129378366e-6, 1e-20),
            (0x3ebc_8a7e_dd8a_541d, 0x3bc7_9c9e_6aaa_a7fd)
        );
        assert_eq!(
            un128(LogPlusOne, 1.7011775129378366e-6, -3.5e-9),
            (0x3ebc_8a7e_dd8a_c51a, 0xbe2e_1091_7c30_0980)
        );
        // |1 + z| = 1 exactly at z = −1 ± i: Re = +0, Im = ±π/2.
        assert_eq!(
            un128(LogPlusOne, -1.0, 1.0),
            (0, std::f64::consts::FRAC_PI_2.to_bits())
        );
        // y = ±0 with x < −1: (ln|1 + x|, ±π).
        assert_eq!(
            un128(LogPlusOne, -3.0, -0.0),
            (
                std::f64::consts::LN_2.to_bits(),
                (-std::f64::consts::PI).to_bits()
            )
        );
    }

    /// Property: for many small |x| (and a few large ones) with y ≠ 0, both components match a
    /// 300-bit MPFR evaluation of Re = ½·log1p(x(2 + x) + y²), Im = atan2(y, 1 + x), rounded once.
    #[test]
    fn log1p_matches_wide_evaluation() {
        use crate::round::round_exact;
        use rug::Float;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (fmt, ty) in [(FloatFormat::F64, ElementType::C128), (F, C64)] {
            let (min_exp, max_exp) = if fmt == F { (-149, 127) } else { (-1074, 1023) };
            let mut random = |lo: i32, hi: i32| -> f64 {
                let r = next();
                let e = lo + (r % (hi - lo + 1) as u64) as i32;
                let m = 1.0 + (next() >> 11) as f64 / (1u64 << 53) as f64;
                let v = m * 2f64.powi(e.max(-1022)) * 2f64.powi((e + 1022).min(0));
                let v = if fmt == F { v as f32 as f64 } else { v };
                if r & (1 << 40) != 0 {
                    -v
                } else {
                    v
                }
            };
            for k in 0..3000 {
                let x = if k % 10 == 9 {
                    random(-4, 60)
                } else {
                    random(-70, -1)
                };
                let mut y = random(min_exp, if k % 3 == 0 { 0 } else { max_exp.min(40) });
                if y == 0.0 {
                    y = 1.0;
                }
                let enc = |v: f64| fmt.encode(v);
                let z = complex_bits(fmt, enc(x), enc(y));
                let got = complex_parts(fmt, eval(LogPlusOne, ty, &[z]));
                let (xf, yf) = (Float::with_val(300, x), Float::with_val(300, y));
                let u = Float::with_val(300, &xf * Float::with_val(300, &xf + 2u32))
                    + Float::with_val(300, &yf * &yf);
                let re = Float::with_val(300, u.ln_1p_ref()) / 2u32;
                let im = Float::with_val(300, yf.atan2_ref(&Float::with_val(300, &xf + 1u32)));
                let want = (round_exact(fmt, &re), round_exact(fmt, &im));
                assert_eq!(got, want, "log1p({x:e} + {y:e} i) in {ty}");
            }
        }
    }

    #[test]
    fn real_imag_complex_abs() {
        let i = |op| instr(op, &[]);
        let f32t = ElementType::F32;
        let z = c(3.0, -4.0);
        assert_eq!(
            eval_element(&i(Real), &[C64], &[z], f32t).unwrap(),
            3f32.to_bits() as u128
        );
        assert_eq!(
            eval_element(&i(Imag), &[C64], &[z], f32t).unwrap(),
            (-4f32).to_bits() as u128
        );
        assert_eq!(
            eval_element(&i(Abs), &[C64], &[z], f32t).unwrap(),
            5f32.to_bits() as u128
        );
        assert_eq!(eval_element(&i(Imag), &[f32t], &[z], f32t).unwrap(), 0);
        let one = 1f32.to_bits() as u128;
        assert_eq!(eval_element(&i(Real), &[f32t], &[one], f32t).unwrap(), one);
        let two = 2f32.to_bits() as u128;
        assert_eq!(
            eval_element(&i(Complex), &[f32t, f32t], &[one, two], C64).unwrap(),
            c(1.0, 2.0)
        );
        assert!(eval_element(&i(Complex), &[f32t, f32t], &[one, two], ElementType::C128).is_err());
        assert!(eval_element(&i(Abs), &[C64], &[z], C64).is_err());
        // |(inf, NaN)| = inf (hypot).
        let r = eval_element(&i(Abs), &[C64], &[c(f32::INFINITY, f32::NAN)], f32t).unwrap();
        assert_eq!(r, f32::INFINITY.to_bits() as u128);
        // |(2^-149, 2^-149)| = √2 · 2^-149 → 1 quantum.
        let tiny = f32::from_bits(1);
        assert_eq!(
            eval_element(&i(Abs), &[C64], &[c(tiny, tiny)], f32t).unwrap(),
            1
        );
    }
}
