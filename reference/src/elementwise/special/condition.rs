//! Condition numbers of the real special functions, for the harness's conditioning allowance.

use super::{bessel, erf_inv, zeta};
use crate::elementwise::{binary_float, real_format, unary_float};
use crate::ziv::Interval;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::hlo::ir::Opcode;
use rug::float::{Constant, Round};
use rug::Float;

/// The condition number κ of element-wise `op` at one element: Σ_k |x_k · ∂f/∂x_k(x)| / |f(x)|,
/// the factor by which a small relative perturbation of the inputs is amplified in the result.
///
/// `ty` is the (real) element type of every operand and of the result; `inputs` holds one bit
/// pattern per operand, in the low bits. Defined for the unary `erf-inv`, `lgamma`, `digamma`,
/// `bessel-i1e`, `erfc`, `asin`, `acos`, `atan`, `sinh`, `cosh`, `asinh`, `acosh`, `atanh`, and
/// the binary `polygamma` (n, x) — sensitivity in x only, n being an integer — and `zeta` (s, q),
/// both operands. Computed at 3p + 64 bits (p the format's precision) from closed-form derivatives
/// (lgamma′ = ψ, ψ′ = ζ(2, x), ψ⁽ⁿ⁾′ = ψ⁽ⁿ⁺¹⁾, erf⁻¹′(x) = (√π/2)·e^(y²), ∂ζ/∂q = −s·ζ(s+1, q),
/// and the elementary ones), or a central difference at that precision (I₁e, ∂ζ/∂s); the f64
/// returned is accurate to far better than 10⁻³ relative, not correctly rounded.
///
/// Returns `Some(f64::INFINITY)` where f vanishes at a nonzero input (lgamma(1) = lgamma(2) = 0,
/// acos(1), acosh(1)) or its derivative is infinite (asin(±1), acos(−1)); at x = ±0 the limit
/// (1 for the odd functions with f(0) = 0, 0 where f(0) ≠ 0). Returns `None` for other opcodes,
/// complex or non-float types, a wrong operand count, NaN or infinite inputs, a NaN or infinite
/// result in the format (overflow included), and inputs outside the domain where the derivative
/// is not real (poles; zeta with s ≤ 1 or q ≤ 0; polygamma with n not a non-negative integer).
pub fn condition_number(op: Opcode, ty: ElementType, inputs: &[u128]) -> Option<f64> {
    let fmt = real_format(ty)?;
    let bits: Vec<u64> = inputs.iter().map(|&b| b as u64).collect();
    let result = match (op, bits.as_slice()) {
        (Opcode::Polygamma | Opcode::Zeta, &[a, b]) => binary_float::lookup(op)?(fmt, a, b),
        (
            Opcode::ErfInv
            | Opcode::Lgamma
            | Opcode::Digamma
            | Opcode::BesselI1e
            | Opcode::Erfc
            | Opcode::Asin
            | Opcode::Acos
            | Opcode::Atan
            | Opcode::Sinh
            | Opcode::Cosh
            | Opcode::Asinh
            | Opcode::Acosh
            | Opcode::Atanh,
            &[a],
        ) => unary_float::lookup(op)?(fmt, a),
        _ => return None,
    }
    .ok()?;
    if !fmt.decode(result).is_finite() || bits.iter().any(|&b| !fmt.decode(b).is_finite()) {
        return None;
    }
    let w = 3 * fmt.precision() + 64;
    let value = |b: u64| Float::with_val(fmt.precision(), fmt.decode(b));
    match op {
        Opcode::Polygamma => polygamma(&value(bits[0]), &value(bits[1]), w),
        Opcode::Zeta => zeta_kappa(fmt, &value(bits[0]), &value(bits[1]), w),
        _ => unary(op, fmt, &value(bits[0]), w),
    }
}

/// |x·f′/f| from f and f′ at x ≠ 0: +inf where f = 0 or f′ is infinite.
fn kappa(x: &Float, f: &Float, df: &Float) -> Option<f64> {
    if f.is_nan() || df.is_nan() {
        return None;
    }
    if f.is_zero() || df.is_infinite() {
        return Some(f64::INFINITY);
    }
    let p = f.prec().max(df.prec());
    Some(
        Float::with_val(p, Float::with_val(p, x * df) / f)
            .abs()
            .to_f64(),
    )
}

fn mid(iv: &Interval, w: u32) -> Float {
    Float::with_val(w, &iv.lo + &iv.hi) >> 1u32
}

/// The first enclosure at w, 2w or 4w bits, as its midpoint.
fn settle(w: u32, enclose: impl Fn(u32) -> Option<Interval>) -> Option<Float> {
    [w, 2 * w, 4 * w]
        .into_iter()
        .find_map(|p| enclose(p).map(|iv| mid(&iv, p)))
}

fn unary(op: Opcode, fmt: FloatFormat, x: &Float, w: u32) -> Option<f64> {
    if x.is_zero() {
        return match op {
            Opcode::ErfInv
            | Opcode::BesselI1e
            | Opcode::Asin
            | Opcode::Atan
            | Opcode::Sinh
            | Opcode::Asinh
            | Opcode::Atanh => Some(1.0),
            Opcode::Erfc | Opcode::Acos | Opcode::Cosh => Some(0.0),
            _ => None,
        };
    }
    let sq = Float::with_val(w, x.square_ref());
    let one = Float::with_val(w, 1u32);
    let (value, derivative) = match op {
        Opcode::ErfInv => {
            let a = Float::with_val(w, x.abs_ref());
            let y = erf_inv::approximate(&a, w);
            let sqrt_pi = Float::with_val(w, Constant::Pi).sqrt();
            let dy = Float::with_val(w, Float::with_val(w, y.square_ref()).exp() * sqrt_pi) >> 1u32;
            (y, dy) // κ is even in x: computed at |x|
        }
        Opcode::Lgamma => {
            let mut value = Float::with_val(w, x);
            value.ln_abs_gamma_round(Round::Nearest);
            (value, Float::with_val(w, x.digamma_ref()))
        }
        Opcode::Digamma => (Float::with_val(w, x.digamma_ref()), trigamma(x, w)?),
        Opcode::BesselI1e => {
            let a = Float::with_val(w, x.abs_ref());
            let at = |v: &Float| settle(w, |p| bessel::enclose(v, p));
            let h = Float::with_val(w, &a >> (fmt.precision() + 16));
            let up = Float::with_val(w, &a + &h);
            let down = Float::with_val(w, &a - &h);
            let slope = Float::with_val(w, at(&up)? - at(&down)?) / Float::with_val(w, &h * 2u32);
            (at(&a)?, slope)
        }
        Opcode::Erfc => {
            let value = Float::with_val(w, x.erfc_ref());
            let e = Float::with_val(w, (-sq.clone()).exp_ref());
            if value.is_zero() || e.is_zero() {
                // Below MPFR's exponent range (x > ~27000): x·erfc′/erfc → −2x²·(1 + O(x⁻²)).
                return Some(Float::with_val(w, &sq * 2u32).to_f64() + 1.0);
            }
            let sqrt_pi = Float::with_val(w, Constant::Pi).sqrt();
            (value, -(e * 2u32 / sqrt_pi))
        }
        Opcode::Asin | Opcode::Acos => {
            let value = if op == Opcode::Asin {
                Float::with_val(w, x.asin_ref())
            } else {
                Float::with_val(w, x.acos_ref())
            };
            let d = Float::with_val(w, &one - &sq).sqrt().recip();
            (value, d)
        }
        Opcode::Atan => (
            Float::with_val(w, x.atan_ref()),
            Float::with_val(w, &one + &sq).recip(),
        ),
        Opcode::Sinh => (
            Float::with_val(w, x.sinh_ref()),
            Float::with_val(w, x.cosh_ref()),
        ),
        Opcode::Cosh => (
            Float::with_val(w, x.cosh_ref()),
            Float::with_val(w, x.sinh_ref()),
        ),
        Opcode::Asinh => (
            Float::with_val(w, x.asinh_ref()),
            Float::with_val(w, &sq + &one).sqrt().recip(),
        ),
        Opcode::Acosh => (
            Float::with_val(w, x.acosh_ref()),
            Float::with_val(w, &sq - &one).sqrt().recip(),
        ),
        Opcode::Atanh => (
            Float::with_val(w, x.atanh_ref()),
            Float::with_val(w, &one - &sq).recip(),
        ),
        _ => return None,
    };
    let x_abs;
    let x = if op == Opcode::ErfInv || op == Opcode::BesselI1e {
        x_abs = Float::with_val(w, x.abs_ref());
        &x_abs
    } else {
        x
    };
    kappa(x, &value, &derivative)
}

/// ψ′(x) = ζ(2, x) (also for x < 0 not an integer), to about w bits.
fn trigamma(x: &Float, w: u32) -> Option<Float> {
    let two = Float::with_val(8, 2u32);
    if *x > 0u32 {
        settle(w, |p| zeta::hurwitz(&two, &Interval::point(x), p))
    } else if x.is_integer() {
        None
    } else {
        settle(w, |p| zeta::negative_q(2, x, p))
    }
}

/// ψ⁽ⁿ⁾(x) to about w bits, for an integer n ≥ 0 and x not a non-positive integer.
fn polygamma_value(n: u32, x: &Float, w: u32) -> Option<Float> {
    if n == 0 {
        return Some(Float::with_val(w, x.digamma_ref()));
    }
    let s = n.checked_add(1)?;
    let z = if *x > 0u32 {
        settle(w, |p| {
            zeta::hurwitz(&Float::with_val(32, s), &Interval::point(x), p)
        })?
    } else {
        settle(w, |p| zeta::negative_q(s, x, p))?
    };
    let factorial = Float::with_val(w, Float::with_val(32, s).gamma_ref());
    let v = Float::with_val(w, z * factorial);
    Some(if n % 2 == 1 { v } else { -v })
}

fn polygamma(n: &Float, x: &Float, w: u32) -> Option<f64> {
    if !n.is_integer() || *n < 0u32 || (x.is_integer() && *x <= 0u32) {
        return None;
    }
    let n = n.to_u32_saturating()?;
    if n >= 1 << 16 {
        return None;
    }
    let f = polygamma_value(n, x, w)?;
    let df = polygamma_value(n + 1, x, w)?;
    kappa(x, &f, &df)
}

/// (|s·∂ζ/∂s| + |q·∂ζ/∂q|)/|ζ| for s > 1, q > 0.
fn zeta_kappa(fmt: FloatFormat, s: &Float, q: &Float, w: u32) -> Option<f64> {
    if !(*s > 1u32 && *q > 0u32) {
        return None;
    }
    let qi = Interval::point(q);
    let at = |s: &Float| settle(w, |p| zeta::hurwitz(s, &qi, p));
    let value = at(s)?;
    if value.is_zero() || value.is_infinite() {
        return None; // outside MPFR's exponent range: the result is 0 or inf in every format
    }
    let s_plus_1 = Float::with_val(w, s + 1u32);
    let dq = Float::with_val(w, -(at(&s_plus_1)? * s));
    let h = Float::with_val(w, s >> (fmt.precision() + 16));
    let ds = Float::with_val(
        w,
        at(&Float::with_val(w, s + &h))? - at(&Float::with_val(w, s - &h))?,
    ) / Float::with_val(w, &h * 2u32);
    let sum = Float::with_val(
        w,
        Float::with_val(w, s * ds).abs() + Float::with_val(w, q * dq).abs(),
    );
    Some(Float::with_val(w, sum / value).abs().to_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k32(op: Opcode, xs: &[f32]) -> Option<f64> {
        let bits: Vec<u128> = xs.iter().map(|x| x.to_bits() as u128).collect();
        condition_number(op, ElementType::F32, &bits)
    }

    fn k64(op: Opcode, xs: &[f64]) -> Option<f64> {
        let bits: Vec<u128> = xs.iter().map(|x| x.to_bits() as u128).collect();
        condition_number(op, ElementType::F64, &bits)
    }

    fn close(got: Option<f64>, want: f64) -> bool {
        got.is_some_and(|g| ((g - want) / want).abs() < 1e-6)
    }

    #[test]
    fn condition_numbers_at_known_points() {
        // Expected values from mpmath at 200 bits (derivatives by mpmath.diff where not closed).
        assert!(close(k64(Opcode::ErfInv, &[0.5]), 1.1663872874444213));
        assert!(close(k64(Opcode::ErfInv, &[-0.5]), 1.1663872874444213));
        assert!(close(k64(Opcode::Digamma, &[1.0]), 2.8497737793184035)); // (π²/6)/γ
        assert!(close(k64(Opcode::Zeta, &[2.0, 1.0]), 2.6014479249919426));
        assert!(close(k64(Opcode::Zeta, &[3.5, 0.25]), 8.313944475282594));
        assert!(close(k64(Opcode::BesselI1e, &[1.0]), 0.24019372387008974));
        assert!(close(k64(Opcode::BesselI1e, &[-1.0]), 0.24019372387008974));
        assert!(close(k64(Opcode::BesselI1e, &[1e4]), 0.4999624962495077));
        assert!(close(
            k64(Opcode::Polygamma, &[1.0, 1.0]),
            1.461525938802877
        ));
        assert!(close(k64(Opcode::Lgamma, &[3.0]), 3.993889152169734));
        assert!(close(k64(Opcode::Erfc, &[2.0]), 8.836321611988828));
        assert!(close(k64(Opcode::Atanh, &[0.5]), 1.2136523021691165));
        assert!(close(k32(Opcode::Sinh, &[1.0]), 1.313_035_285_499_331_3)); // x·coth x
        assert!(close(k32(Opcode::Asin, &[0.5]), 1.102_657_790_843_584_2));
        assert!(close(k32(Opcode::Atan, &[1.0]), 2.0 / std::f64::consts::PI));
        assert!(close(k32(Opcode::Cosh, &[1.0]), 1.0f64.tanh()));
        // Zeros of f at nonzero inputs and infinite derivatives: infinity.
        assert_eq!(k64(Opcode::Lgamma, &[1.0]), Some(f64::INFINITY));
        assert_eq!(k64(Opcode::Lgamma, &[2.0]), Some(f64::INFINITY));
        assert_eq!(k32(Opcode::Acos, &[1.0]), Some(f64::INFINITY));
        assert_eq!(k32(Opcode::Acosh, &[1.0]), Some(f64::INFINITY));
        assert_eq!(k32(Opcode::Asin, &[1.0]), Some(f64::INFINITY));
        // x = 0: the limits.
        assert_eq!(k32(Opcode::Asin, &[0.0]), Some(1.0));
        assert_eq!(k32(Opcode::ErfInv, &[-0.0]), Some(1.0));
        assert_eq!(k32(Opcode::Erfc, &[0.0]), Some(0.0));
        assert_eq!(k32(Opcode::Cosh, &[0.0]), Some(0.0));
        // Large erfc arguments (f64 result underflows only far out): κ ≈ 2x².
        let k = k64(Opcode::Erfc, &[20.0]).unwrap();
        assert!(k > 800.0 && k < 802.0, "{k}");
    }

    #[test]
    fn condition_numbers_are_none_outside_the_domain() {
        assert_eq!(k32(Opcode::Lgamma, &[0.0]), None); // pole (inf)
        assert_eq!(k32(Opcode::Digamma, &[-2.0]), None);
        assert_eq!(k32(Opcode::Asin, &[2.0]), None);
        assert_eq!(k32(Opcode::Sinh, &[100.0]), None); // overflows f32
        assert_eq!(k32(Opcode::Erfc, &[f32::NAN]), None);
        assert_eq!(k32(Opcode::Atan, &[f32::INFINITY]), None);
        assert_eq!(k32(Opcode::Zeta, &[0.5, 1.0]), None);
        assert_eq!(k32(Opcode::Zeta, &[2.0, -0.5]), None);
        assert_eq!(k32(Opcode::Polygamma, &[1.5, 1.0]), None);
        assert_eq!(k32(Opcode::Polygamma, &[1.0, -3.0]), None);
        assert_eq!(k32(Opcode::Add, &[1.0, 2.0]), None);
        assert_eq!(k32(Opcode::Asin, &[0.5, 0.5]), None);
        assert_eq!(condition_number(Opcode::Asin, ElementType::C64, &[0]), None);
        assert_eq!(condition_number(Opcode::Asin, ElementType::S32, &[0]), None);
        // Polygamma at negative x (sensitivity in x only) is defined.
        assert!(k64(Opcode::Polygamma, &[1.0, -0.5]).is_some_and(|k| k.is_finite() && k > 0.0));
    }

    #[test]
    fn condition_numbers_in_narrow_formats() {
        let bf16 = ElementType::Bf16.float_format().unwrap();
        let k = condition_number(
            Opcode::Lgamma,
            ElementType::Bf16,
            &[bf16.encode(3.0) as u128],
        );
        assert!(close(k, 3.993889152169734));
    }
}
