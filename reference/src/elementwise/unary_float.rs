//! Unary functions on real floating-point types (seed 004, "Element-wise unary functions"; the
//! CHLO functions erfc, lgamma, digamma, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, and,
//! from `special`, erf-inv and bessel-i1e).
//!
//! Transcendental functions are MPFR's, correctly rounded at the format's precision and then
//! placed in the format's exponent range once ([`crate::round`]); `logistic`, which MPFR lacks, is
//! evaluated with rigorous bounds until they round to one value ([`crate::ziv`]). Sign operations
//! and the roundings to integral values are exact and computed directly.

use super::core_math::{self, CrFn};
use super::{ElementFn, Signature};
use crate::round::{self, decode, is_nan, round_nearest_result};
use crate::ziv::{self, Interval};
use conformance_spec::element_type::{FloatClass, FloatFormat};
use conformance_spec::hlo::ir::Opcode;
use conformance_spec::{BackendError, ElementType};
use rug::float::Round;
use rug::Float;
use std::cmp::Ordering;

/// Semantics of one unary operation on a real format: operand bits to result bits.
pub(crate) type UnaryFloatFn = fn(FloatFormat, u64) -> Result<u64, BackendError>;

const TABLE: &[(Opcode, UnaryFloatFn)] = &[
    (Opcode::Abs, abs),
    (Opcode::Negate, negate),
    (Opcode::Sign, sign),
    (Opcode::Ceil, ceil),
    (Opcode::Floor, floor),
    (Opcode::RoundNearestAfz, round_nearest_afz),
    (Opcode::RoundNearestEven, round_nearest_even),
    (Opcode::Sqrt, sqrt),
    (Opcode::Rsqrt, rsqrt),
    (Opcode::Cbrt, cbrt),
    (Opcode::Exponential, exp),
    (Opcode::ExponentialMinusOne, expm1),
    (Opcode::Log, log),
    (Opcode::LogPlusOne, log1p),
    (Opcode::Sine, sin),
    (Opcode::Cosine, cos),
    (Opcode::Tan, tan),
    (Opcode::Tanh, tanh),
    (Opcode::Erf, erf),
    (Opcode::Logistic, logistic),
    (Opcode::Erfc, erfc),
    (Opcode::ErfInv, super::special::erf_inv),
    (Opcode::Lgamma, lgamma),
    (Opcode::Digamma, digamma),
    (Opcode::BesselI1e, super::special::bessel_i1e),
    (Opcode::Asin, asin),
    (Opcode::Acos, acos),
    (Opcode::Atan, atan),
    (Opcode::Sinh, sinh),
    (Opcode::Cosh, cosh),
    (Opcode::Asinh, asinh),
    (Opcode::Acosh, acosh),
    (Opcode::Atanh, atanh),
];

/// The semantics of `op` on real floating-point types, if defined.
pub(crate) fn lookup(op: Opcode) -> Option<UnaryFloatFn> {
    TABLE.iter().find(|&&(o, _)| o == op).map(|&(_, f)| f)
}

/// `is-finite`: real float → PRED, true unless ±inf or NaN (seed 004, IsFinite).
pub(crate) fn build_is_finite(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    let ty = sig.operands[0];
    sig.expect_result(ElementType::Pred)?;
    let Some(fmt) = super::real_format(ty) else {
        return sig.not_defined_for(ty);
    };
    Ok(Box::new(move |x| {
        let class = fmt.classify(x[0] as u64);
        Ok(u128::from(!matches!(
            class,
            FloatClass::Nan | FloatClass::Infinite
        )))
    }))
}

// --- exact operations -----------------------------------------------------------------------

/// |x|: clears the sign bit; NaN gives the canonical NaN.
fn abs(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    if is_nan(fmt, x) {
        return Ok(fmt.nan_bits());
    }
    Ok(if fmt.sign_bit(x) {
        fmt.negate_bits(x)
    } else {
        x
    })
}

/// −x: flips the sign bit (FNUZ zero stays +0); NaN gives the canonical NaN.
fn negate(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    if is_nan(fmt, x) {
        return Ok(fmt.nan_bits());
    }
    Ok(fmt.negate_bits(x))
}

/// sgn(x) per seed 004 (Sign): −1 for x < 0, −0 for −0, NaN for NaN, +0 for +0, 1 for x > 0.
fn sign(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    let v = fmt.decode(x);
    Ok(if v.is_nan() {
        fmt.nan_bits()
    } else if v == 0.0 {
        x
    } else {
        fmt.encode(v.signum())
    })
}

/// Applies an exact f64 rounding-to-integral function (every format here is a subset of f64, and
/// an integral rounding of a p-bit number fits in p bits, so encoding back is exact).
fn integral(fmt: FloatFormat, x: u64, f: fn(f64) -> f64) -> u64 {
    let v = fmt.decode(x);
    if v.is_nan() {
        return fmt.nan_bits();
    }
    fmt.encode(f(v))
}

/// ⌈x⌉ (seed 004, Ceil); −0.5 → −0.
fn ceil(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(integral(fmt, x, f64::ceil))
}

/// ⌊x⌋ (seed 004, Floor).
fn floor(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(integral(fmt, x, f64::floor))
}

/// Round to integral, ties away from zero (seed 004, Round).
fn round_nearest_afz(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(integral(fmt, x, f64::round))
}

/// Round to integral, ties to even (seed 004, RoundNearestEven).
fn round_nearest_even(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(integral(fmt, x, f64::round_ties_even))
}

// --- MPFR functions ---------------------------------------------------------------------------

/// Evaluates a correctly rounded MPFR function in place at the format's precision and rounds the
/// result into the format once.
fn mpfr_unary(fmt: FloatFormat, x: u64, f: fn(&mut Float) -> Ordering) -> u64 {
    let mut v = decode(fmt, x);
    if v.is_nan() {
        return fmt.nan_bits();
    }
    let ternary = f(&mut v);
    round_nearest_result(fmt, v, ternary)
}

/// [`mpfr_unary`] through CORE-MATH where it decides the result ([`core_math`]); builds with debug
/// assertions check it against MPFR on every call.
fn cr_unary(fmt: FloatFormat, x: u64, cr: CrFn, f: fn(&mut Float) -> Ordering) -> u64 {
    match cr.eval(fmt, &[x]) {
        Some(bits) => {
            debug_assert_eq!(
                bits,
                mpfr_unary(fmt, x, f),
                "CORE-MATH and MPFR differ at {x:#x} in {fmt:?}"
            );
            bits
        }
        None => mpfr_unary(fmt, x, f),
    }
}

fn sqrt(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::SQRT, |v| {
        v.sqrt_round(Round::Nearest)
    }))
}

/// 1/√x. Seed 004 defines Rsqrt as `1.0 / sqrt(x)`, so rsqrt(−0) = 1/(−0) = −inf (MPFR's
/// `rec_sqrt`, following IEEE 754 rSqrt, gives +inf there; every other input agrees).
fn rsqrt(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    let v = fmt.decode(x);
    if v == 0.0 && v.is_sign_negative() {
        return Ok(round::infinity_bits(fmt, true));
    }
    Ok(cr_unary(fmt, x, core_math::RSQRT, |v| {
        v.recip_sqrt_round(Round::Nearest)
    }))
}

fn cbrt(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::CBRT, |v| {
        v.cbrt_round(Round::Nearest)
    }))
}

fn exp(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::EXP, |v| {
        v.exp_round(Round::Nearest)
    }))
}

fn expm1(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::EXPM1, |v| {
        v.exp_m1_round(Round::Nearest)
    }))
}

fn log(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::LOG, |v| {
        v.ln_round(Round::Nearest)
    }))
}

fn log1p(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::LOG1P, |v| {
        v.ln_1p_round(Round::Nearest)
    }))
}

fn sin(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::SIN, |v| {
        v.sin_round(Round::Nearest)
    }))
}

fn cos(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::COS, |v| {
        v.cos_round(Round::Nearest)
    }))
}

fn tan(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::TAN, |v| {
        v.tan_round(Round::Nearest)
    }))
}

fn tanh(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::TANH, |v| {
        v.tanh_round(Round::Nearest)
    }))
}

fn erf(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ERF, |v| {
        v.erf_round(Round::Nearest)
    }))
}

/// erfc(x) = 1 − erf(x) (CHLO `chlo.erfc`; XLA client library `math.h` `Erfc`), MPFR's: erfc(−inf)
/// = 2, erfc(+inf) = +0, correctly rounded also where it underflows (x ≳ 10 in f32, 27 in f64).
fn erfc(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ERFC, |v| {
        v.erfc_round(Round::Nearest)
    }))
}

/// ln|Γ(x)| (CHLO `chlo.lgamma`; XLA client library `math.h` `Lgamma`), MPFR's `lgamma`:
/// +inf at the non-positive integers (including ±0) and at ±inf; +0 at 1 and 2.
fn lgamma(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::LGAMMA, |v| {
        v.ln_abs_gamma_round(Round::Nearest).1
    }))
}

/// ψ(x) = Γ′(x)/Γ(x) (CHLO `chlo.digamma`; XLA client library `math.h` `Digamma`), MPFR's
/// `digamma`: NaN at the non-positive integers including ±0 (a pole without a sign; MPFR would give
/// ∓inf at ±0, XLA gives NaN), ψ(+inf) = +inf, ψ(−inf) = NaN.
pub(crate) fn digamma(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    let v = fmt.decode(x);
    if v == 0.0 || (v < 0.0 && v == v.floor()) {
        return Ok(fmt.nan_bits());
    }
    Ok(mpfr_unary(fmt, x, |v| v.digamma_round(Round::Nearest)))
}

/// asin(x), |x| ≤ 1, NaN beyond (CHLO `chlo.asin`), MPFR's.
fn asin(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ASIN, |v| {
        v.asin_round(Round::Nearest)
    }))
}

/// acos(x) ∈ [0, π], |x| ≤ 1, NaN beyond (CHLO `chlo.acos`), MPFR's.
fn acos(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ACOS, |v| {
        v.acos_round(Round::Nearest)
    }))
}

/// atan(x) ∈ [−π/2, π/2], atan(±inf) = ±π/2 (CHLO `chlo.atan`), MPFR's.
fn atan(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ATAN, |v| {
        v.atan_round(Round::Nearest)
    }))
}

/// sinh(x) (CHLO `chlo.sinh`), MPFR's; overflows to ±inf.
fn sinh(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::SINH, |v| {
        v.sinh_round(Round::Nearest)
    }))
}

/// cosh(x) ≥ 1 (CHLO `chlo.cosh`), MPFR's; overflows to +inf.
fn cosh(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::COSH, |v| {
        v.cosh_round(Round::Nearest)
    }))
}

/// asinh(x) (CHLO `chlo.asinh`), MPFR's.
fn asinh(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ASINH, |v| {
        v.asinh_round(Round::Nearest)
    }))
}

/// acosh(x) ≥ 0 for x ≥ 1, NaN below (CHLO `chlo.acosh`), MPFR's; acosh(1) = +0.
fn acosh(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ACOSH, |v| {
        v.acosh_round(Round::Nearest)
    }))
}

/// atanh(x) for |x| < 1, ±inf at ±1, NaN beyond (CHLO `chlo.atanh`), MPFR's.
fn atanh(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    Ok(cr_unary(fmt, x, core_math::ATANH, |v| {
        v.atanh_round(Round::Nearest)
    }))
}

/// logistic(x) = 1 / (1 + e^−x) (seed 004, Logistic), correctly rounded.
///
/// MPFR has no logistic, so the value is enclosed at working precision `w` (e^−x rounded down and
/// up, then 1 + · and 1 / · with outward rounding) and `w` grows until both bounds round to the
/// same bits ([`ziv::round_enclosure`]). The value is never a rounding boundary for finite x ≠ 0
/// (e^−x is transcendental for rational x ≠ 0, Lindemann–Weierstrass), and x = 0, ±inf give exact
/// enclosures (1/2, 1, 0), so the loop terminates.
fn logistic(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    let v = decode(fmt, x);
    if v.is_nan() {
        return Ok(fmt.nan_bits());
    }
    ziv::round_enclosure(fmt, |w| {
        let minus_x = Interval::point(&(-v.clone()));
        let e = minus_x.exp(w);
        let one = Interval::point(&Float::with_val(w, 1));
        one.clone().div(&one.add(&e, w), w)
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use conformance_spec::element_type::FloatFormat;
    use conformance_spec::hlo::ir::Opcode::*;
    use conformance_spec::ElementType;

    const MIN_SUB: f32 = 1.0e-45;

    #[test]
    fn exp_of_minus_88_is_the_subnormal_0x0041edc4() {
        // e^-88 = 6.0546018954...e-39, below f32's smallest normal 1.1755e-38: a subnormal.
        let r = f32op(Exponential, &[-88.0]);
        assert_eq!(r.to_bits(), 0x0041_edc4);
        assert!((r as f64 - 6.0546e-39).abs() < 1e-42);
    }

    #[test]
    fn log_of_a_subnormal_is_finite() {
        let r = f32op(Log, &[1e-40]);
        // ln(1e-40 as f32 = 9.99995e-41) = -92.1034...
        assert!(r.is_finite());
        assert!((r as f64 - (1e-40f32 as f64).ln()).abs() < 1e-5);
        assert_eq!(f32op(Log, &[0.0]), f32::NEG_INFINITY);
        assert_eq!(f32op(Log, &[-0.0]), f32::NEG_INFINITY);
        assert!(f32op(Log, &[-1.0]).is_nan());
        assert_eq!(f32op(Log, &[1.0]).to_bits(), 0);
        assert_eq!(f32op(Log, &[f32::INFINITY]), f32::INFINITY);
    }

    #[test]
    fn f16_exp_near_overflow() {
        // f16 max = 65504 = 0x7bff; the overflow threshold is 65520 = e^11.0898664...
        // 11.0859375 (0x498b) is the f16 just below: e^11.0859375 = 65247.14 = 2038.97 × 32 → 65248
        // (0x7bf7; the f16 spacing there is 32).
        let f16 = ElementType::F16;
        assert_eq!(eval(Exponential, f16, &[0x498b]), 0x7bf7);
        // 11.09375 (0x498c): e^11.09375 = 65758.9 ≥ 65520 → inf.
        assert_eq!(eval(Exponential, f16, &[0x498c]), 0x7c00);
        // 11.09 is not an f16; it reads as 11.09375, which overflows.
        assert_eq!(half_bits(11.09), 0x498c);
    }

    fn half_bits(x: f64) -> u128 {
        ElementType::F16.float_format().unwrap().encode(x) as u128
    }

    #[test]
    fn special_values() {
        for op in [
            Sqrt,
            Cbrt,
            Exponential,
            Log,
            Sine,
            Tanh,
            Erf,
            Logistic,
            Rsqrt,
        ] {
            assert!(f32op(op, &[f32::NAN]).is_nan(), "{op}");
        }
        assert_eq!(f32op(Sqrt, &[-0.0]).to_bits(), (-0.0f32).to_bits());
        assert!(f32op(Sqrt, &[-1.0]).is_nan());
        assert_eq!(f32op(Rsqrt, &[-0.0]), f32::NEG_INFINITY);
        assert_eq!(f32op(Rsqrt, &[0.0]), f32::INFINITY);
        assert_eq!(f32op(Rsqrt, &[4.0]), 0.5);
        assert_eq!(f32op(Rsqrt, &[f32::INFINITY]).to_bits(), 0);
        assert_eq!(f32op(Cbrt, &[-27.0]), -3.0);
        assert_eq!(f32op(Exponential, &[f32::NEG_INFINITY]).to_bits(), 0);
        assert_eq!(f32op(Exponential, &[89.0]), f32::INFINITY);
        assert_eq!(f32op(ExponentialMinusOne, &[-0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(ExponentialMinusOne, &[f32::NEG_INFINITY]), -1.0);
        assert_eq!(f32op(LogPlusOne, &[-1.0]), f32::NEG_INFINITY);
        assert_eq!(f32op(LogPlusOne, &[MIN_SUB]).to_bits(), 1);
        assert_eq!(f32op(Sine, &[-0.0]).to_bits(), 0x8000_0000);
        assert!(f32op(Sine, &[f32::INFINITY]).is_nan());
        assert_eq!(f32op(Cosine, &[0.0]), 1.0);
        assert_eq!(f32op(Tanh, &[f32::NEG_INFINITY]), -1.0);
        assert_eq!(f32op(Erf, &[f32::INFINITY]), 1.0);
        assert_eq!(f32op(Tan, &[-0.0]).to_bits(), 0x8000_0000);
        // sin of the largest subnormal is itself (|sin x − x| < x³/6).
        assert_eq!(
            f32op(Sine, &[f32::from_bits(0x007f_ffff)]).to_bits(),
            0x007f_ffff
        );
    }

    #[test]
    fn correctly_rounded_against_known_values() {
        // Values computed to many digits: exp(1) = 2.718281828459045235..., f32 0x402df854.
        assert_eq!(f32op(Exponential, &[1.0]).to_bits(), 0x402d_f854);
        assert_eq!(f64op(Exponential, &[1.0]), std::f64::consts::E);
        assert_eq!(f64op(Log, &[2.0]), std::f64::consts::LN_2);
        assert_eq!(f64op(Sqrt, &[2.0]), std::f64::consts::SQRT_2);
        assert_eq!(f64op(Tanh, &[0.5]), 0.46211715726000974);
        assert_eq!(f32op(Sine, &[1.0]).to_bits(), 0x3f57_6aa4); // sin 1 = 0.8414709848078965
    }

    #[test]
    fn chlo_mpfr_functions_known_values() {
        use rug::float::Constant;
        use rug::Float;
        let f64_of = |v: Float| f64::from_bits(crate::round::round_exact(FloatFormat::F64, &v));
        let pi = || Float::with_val(300, Constant::Pi);
        // lgamma(½) = ln √π; lgamma(1) = lgamma(2) = +0; lgamma(−2.5) = ln(8√π/15).
        assert_eq!(f64op(Lgamma, &[0.5]), f64_of(pi().sqrt().ln()));
        assert_eq!(f64op(Lgamma, &[1.0]).to_bits(), 0);
        assert_eq!(f64op(Lgamma, &[2.0]).to_bits(), 0);
        let g = Float::with_val(300, pi().sqrt() * 8u32) / 15u32;
        assert_eq!(f64op(Lgamma, &[-2.5]), f64_of(g.ln()));
        for x in [0.0, -0.0, -1.0, -1e30, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(f32op(Lgamma, &[x]), f32::INFINITY, "{x}");
        }
        // ψ(1) = −γ, ψ(½) = −γ − 2 ln 2, ψ(−½) = ψ(½) + 2.
        let gamma = Float::with_val(300, Constant::Euler);
        assert_eq!(
            f64op(Digamma, &[1.0]),
            f64_of(Float::with_val(300, -&gamma))
        );
        assert_eq!(f64op(Digamma, &[1.0]), -0.5772156649015329);
        let ln2 = Float::with_val(300, Constant::Log2);
        let half = -Float::with_val(300, &gamma + Float::with_val(300, &ln2 * 2u32));
        assert_eq!(f64op(Digamma, &[0.5]), f64_of(half.clone()));
        assert_eq!(f64op(Digamma, &[-0.5]), f64_of(half + 2u32));
        for x in [0.0, -0.0, -1.0, -7.0, f32::NEG_INFINITY, f32::NAN] {
            assert!(f32op(Digamma, &[x]).is_nan(), "{x}");
        }
        assert_eq!(f32op(Digamma, &[f32::INFINITY]), f32::INFINITY);
        // erfc: 1 at 0, 2 at −inf, +0 at +inf; erfc(10) = 2.088e−45 = 1.49 f32 subnormal quanta.
        assert_eq!(f32op(Erfc, &[0.0]), 1.0);
        assert_eq!(f32op(Erfc, &[f32::NEG_INFINITY]), 2.0);
        assert_eq!(f32op(Erfc, &[f32::INFINITY]).to_bits(), 0);
        assert_eq!(f32op(Erfc, &[10.0]).to_bits(), 1);
        assert_eq!(f32op(Erfc, &[10.1]).to_bits(), 0);
        assert_eq!(f64op(Erfc, &[1.0]), 0.15729920705028513);
        // Inverse trigonometric and hyperbolic functions.
        use std::f32::consts::{FRAC_PI_2, PI};
        assert_eq!(f32op(Asin, &[1.0]), FRAC_PI_2);
        assert_eq!(f32op(Asin, &[-0.0]).to_bits(), 0x8000_0000);
        assert!(f32op(Asin, &[1.5]).is_nan());
        assert_eq!(f32op(Acos, &[-1.0]), PI);
        assert_eq!(f32op(Acos, &[1.0]).to_bits(), 0);
        assert_eq!(f32op(Atan, &[f32::INFINITY]), FRAC_PI_2);
        assert_eq!(f32op(Atan, &[f32::NEG_INFINITY]), -FRAC_PI_2);
        assert_eq!(f32op(Sinh, &[-0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Sinh, &[f32::NEG_INFINITY]), f32::NEG_INFINITY);
        assert_eq!(f32op(Sinh, &[89.5]), f32::INFINITY);
        assert_eq!(f32op(Cosh, &[0.0]), 1.0);
        assert_eq!(f32op(Cosh, &[f32::NEG_INFINITY]), f32::INFINITY);
        assert_eq!(f32op(Asinh, &[-0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Asinh, &[f32::MAX]), 89.415_985); // ln(2·MAX) = 89.41598629...
        assert_eq!(f32op(Acosh, &[1.0]).to_bits(), 0);
        assert!(f32op(Acosh, &[0.5]).is_nan());
        assert_eq!(f32op(Atanh, &[1.0]), f32::INFINITY);
        assert_eq!(f32op(Atanh, &[-1.0]), f32::NEG_INFINITY);
        assert!(f32op(Atanh, &[2.0]).is_nan());
        // sinh of a subnormal is itself; asinh(1) = ln(1 + √2).
        assert_eq!(f32op(Sinh, &[f32::from_bits(3)]).to_bits(), 3);
        assert_eq!(f64op(Asinh, &[1.0]), 0.881373587019543);
    }

    #[test]
    fn chlo_mpfr_functions_round_once_in_narrow_formats() {
        // Each bf16/f16 result equals MPFR's value at 200 bits rounded once into the format (not
        // through f32 or f64 first).
        use rug::Float;
        for t in [ElementType::Bf16, ElementType::F16, ElementType::F8E4M3FNUZ] {
            let f = t.float_format().unwrap();
            for bits in (0..(1u64 << f.bit_width())).step_by(11) {
                let x = Float::with_val(53, f.decode(bits));
                if x.is_nan() {
                    continue;
                }
                let mut lg = x.clone();
                lg.set_prec(200);
                lg.ln_abs_gamma_round(rug::float::Round::Nearest);
                let cases = [
                    (Lgamma, lg),
                    (Erfc, Float::with_val(200, x.erfc_ref())),
                    (Asinh, Float::with_val(200, x.asinh_ref())),
                    (Cosh, Float::with_val(200, x.cosh_ref())),
                ];
                for (op, v) in cases {
                    let want = crate::round::round_exact(f, &v) as u128;
                    assert_eq!(eval(op, t, &[bits as u128]), want, "{op} {t} {x}");
                }
            }
        }
    }

    #[test]
    fn logistic_values() {
        assert_eq!(f32op(Logistic, &[0.0]), 0.5);
        assert_eq!(f32op(Logistic, &[-0.0]), 0.5);
        assert_eq!(f32op(Logistic, &[f32::INFINITY]), 1.0);
        assert_eq!(f32op(Logistic, &[f32::NEG_INFINITY]).to_bits(), 0);
        assert_eq!(f32op(Logistic, &[100.0]), 1.0);
        // logistic(-100) = e^-100 / (1 + e^-100) = 3.7200759760208e-44 → 27 subnormal quanta.
        assert_eq!(f32op(Logistic, &[-100.0]).to_bits(), 27);
        // logistic(1) = 0.7310585786300049 (f64 correctly rounded).
        assert_eq!(f64op(Logistic, &[1.0]), 0.7310585786300049);
        assert_eq!(f64op(Logistic, &[-1000.0]).to_bits(), 0);
        // logistic(-745) ≈ e^-745 = 4.94e-324 · 1.0 → the smallest f64 subnormal.
        assert_eq!(f64op(Logistic, &[-745.0]).to_bits(), 1);
        let bf16 = ElementType::Bf16;
        assert_eq!(eval(Logistic, bf16, &[0x3f80]), 0x3f3b); // logistic(1) = 0.7311 → 0.73046875
    }

    #[test]
    fn rounding_to_integral() {
        assert_eq!(f32op(Ceil, &[-0.5]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Floor, &[-0.5]), -1.0);
        assert_eq!(f32op(RoundNearestAfz, &[2.5]), 3.0);
        assert_eq!(f32op(RoundNearestAfz, &[-2.5]), -3.0);
        assert_eq!(f32op(RoundNearestAfz, &[-0.4]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(RoundNearestEven, &[2.5]), 2.0);
        assert_eq!(f32op(RoundNearestEven, &[3.5]), 4.0);
        assert_eq!(f32op(RoundNearestEven, &[-0.5]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Floor, &[f32::MAX]), f32::MAX);
        assert_eq!(f32op(Ceil, &[MIN_SUB]), 1.0);
        assert_eq!(f32op(Floor, &[-MIN_SUB]), -1.0);
        assert_eq!(f32op(Ceil, &[f32::NEG_INFINITY]), f32::NEG_INFINITY);
        assert!(f32op(RoundNearestEven, &[f32::NAN]).is_nan());
        // FNUZ: ceil(-0.25) would be -0, which the format lacks: +0.
        let t = ElementType::F8E4M3FNUZ;
        let f = t.float_format().unwrap();
        assert_eq!(eval(Ceil, t, &[f.encode(-0.25) as u128]), 0);
    }

    #[test]
    fn sign_abs_negate() {
        assert_eq!(f32op(Sign, &[-0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Sign, &[0.0]).to_bits(), 0);
        assert_eq!(f32op(Sign, &[-MIN_SUB]), -1.0);
        assert_eq!(f32op(Sign, &[f32::INFINITY]), 1.0);
        assert!(f32op(Sign, &[f32::NAN]).is_nan());
        assert_eq!(f32op(Abs, &[-0.0]).to_bits(), 0);
        assert_eq!(f32op(Abs, &[f32::NEG_INFINITY]), f32::INFINITY);
        assert_eq!(f32op(Negate, &[0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(Negate, &[f32::MAX]), -f32::MAX);
        let fnuz = ElementType::F8E5M2FNUZ;
        assert_eq!(eval(Negate, fnuz, &[0]), 0);
        assert_eq!(eval(Abs, fnuz, &[0x80]), 0x80); // NaN stays NaN
        assert_eq!(eval(Abs, fnuz, &[0x85]), 0x05);
        let e4m3fn = ElementType::F8E4M3FN;
        assert_eq!(eval(Abs, e4m3fn, &[0xff]), 0x7f);
        assert_eq!(eval(Sign, e4m3fn, &[0xfe]), 0xb8); // -448 → -1
    }

    #[test]
    fn is_finite() {
        use super::super::{eval_element, test_util::instr};
        let i = instr(IsFinite, &[]);
        let pred = ElementType::Pred;
        let t = |ty: ElementType, b: u128| eval_element(&i, &[ty], &[b], pred).unwrap();
        assert_eq!(t(ElementType::F32, f32::MAX.to_bits() as u128), 1);
        assert_eq!(t(ElementType::F32, f32::INFINITY.to_bits() as u128), 0);
        assert_eq!(t(ElementType::F32, f32::NAN.to_bits() as u128), 0);
        assert_eq!(t(ElementType::F8E4M3FN, 0x7e), 1);
        assert_eq!(t(ElementType::F8E4M3FN, 0x7f), 0);
        assert_eq!(t(ElementType::F8E4M3FNUZ, 0x80), 0);
        assert!(eval_element(&i, &[ElementType::S32], &[0], pred).is_err());
    }
}
