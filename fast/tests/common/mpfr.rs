//! Exact evaluation with MPFR (through `rug`) and correct rounding into any float format, for the
//! accuracy tests. Values are computed at 200 bits and rounded *once*, directly from the MPFR value,
//! onto the format's grid (subnormals included), then checked for overflow.
#![allow(dead_code)]

use conformance_spec::{FloatFormat, Opcode};
use rug::float::Round;
use rug::ops::Pow;
use rug::Float;

pub const PREC: u32 = 200;

pub fn mpfr(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// The exact (200-bit) value of a unary function, `None` when MPFR has no counterpart.
pub fn unary(op: Opcode, x: f64) -> Option<Float> {
    let v = mpfr(x);
    Some(match op {
        Opcode::Abs => v.abs(),
        Opcode::Negate => -v,
        Opcode::Cbrt => v.cbrt(),
        Opcode::Ceil => v.ceil(),
        Opcode::Floor => v.floor(),
        Opcode::RoundNearestAfz => v.round(),
        Opcode::RoundNearestEven => v.round_even(),
        Opcode::Cosine => v.cos(),
        Opcode::Sine => v.sin(),
        Opcode::Tan => v.tan(),
        Opcode::Tanh => v.tanh(),
        Opcode::Erf => v.erf(),
        Opcode::Exponential => v.exp(),
        Opcode::ExponentialMinusOne => v.exp_m1(),
        Opcode::Log => v.ln(),
        Opcode::LogPlusOne => v.ln_1p(),
        Opcode::Sqrt => v.sqrt(),
        // IEEE 754 rSqrt(±0) = ±inf (and XLA's 1/sqrt(x)); MPFR's rec_sqrt(−0) is +inf.
        Opcode::Rsqrt if x == 0.0 => mpfr(1.0 / x),
        Opcode::Rsqrt => v.recip_sqrt(),
        Opcode::Logistic => {
            if x.is_nan() {
                return Some(v);
            }
            let e = (-v).exp();
            Float::with_val(PREC, 1) / (Float::with_val(PREC, 1) + e)
        }
        Opcode::Sign => {
            if x.is_nan() || x == 0.0 {
                v
            } else {
                mpfr(x.signum())
            }
        }
        Opcode::Asin => v.asin(),
        Opcode::Acos => v.acos(),
        Opcode::Atan => v.atan(),
        Opcode::Sinh => v.sinh(),
        Opcode::Cosh => v.cosh(),
        Opcode::Asinh => v.asinh(),
        Opcode::Acosh => v.acosh(),
        Opcode::Atanh => v.atanh(),
        Opcode::Erfc => v.erfc(),
        // ln|Γ|: +inf at the poles and at ±inf (MPFR's lgamma).
        Opcode::Lgamma => v.ln_abs_gamma().0,
        // The catalog's convention: NaN at every pole, ±0 included (MPFR gives ∓inf at ±0).
        Opcode::Digamma if x <= 0.0 && x == x.floor() => mpfr(f64::NAN),
        Opcode::Digamma => v.digamma(),
        _ => return None,
    })
}

/// The exact (200-bit) value of a binary function.
pub fn binary(op: Opcode, x: f64, y: f64) -> Option<Float> {
    let (a, b) = (mpfr(x), mpfr(y));
    Some(match op {
        Opcode::Power => {
            // C99 / IEEE pow special cases MPFR shares: pow(x, ±0) = 1, pow(1, y) = 1.
            a.pow(&b)
        }
        Opcode::Atan2 => a.atan2(&b),
        Opcode::Add => a + b,
        Opcode::Subtract => a - b,
        Opcode::Multiply => a * b,
        Opcode::Divide => a / b,
        Opcode::Remainder => a % b, // mpfr_fmod: exact, sign of the dividend
        _ => return None,
    })
}

/// Rounds an MPFR value once, to nearest even, into `fmt` (subnormals and overflow per
/// [`FloatFormat::encode`]'s rules), returning the bits.
pub fn round_to(x: &Float, fmt: FloatFormat) -> u64 {
    if x.is_nan() {
        return fmt.encode(f64::NAN);
    }
    let negative = x.is_sign_negative();
    let signed = |v: f64| if negative { -v } else { v };
    if x.is_infinite() {
        return fmt.encode(signed(f64::INFINITY));
    }
    if x.is_zero() {
        return fmt.encode(signed(0.0));
    }
    if fmt == FloatFormat::F64 {
        return x.to_f64_round(Round::Nearest).to_bits();
    }
    let e = x.get_exp().expect("finite non-zero") - 1; // x = 1.f × 2^e
    let emin = fmt.min_normal_exponent();
    let quantum = e.max(emin) - fmt.mantissa_bits as i32;
    let scaled = Float::with_val(PREC, x.abs_ref()) >> quantum;
    let q = scaled.round_even().to_f64(); // an integer < 2^(p+1): exact
    let value = q * 2f64.powi(quantum); // exact (or 2^(emax+1), which encodes as overflow)
    if value > fmt.max_finite() {
        return fmt.encode(signed(f64::INFINITY));
    }
    fmt.encode(signed(value))
}

/// Distance in ULPs between two bit patterns of `fmt` (0 when both are NaN; `u64::MAX` when only
/// one is).
pub fn ulps(fmt: FloatFormat, a: u64, b: u64) -> u64 {
    let nan = |v: u64| fmt.decode(v).is_nan();
    match (nan(a), nan(b)) {
        (true, true) => 0,
        (false, false) => fmt.to_ordered(a).abs_diff(fmt.to_ordered(b)),
        _ => u64::MAX,
    }
}

/// The error of `got` against the exact value, in ULPs of the exact value's binade (fractional).
pub fn ulp_error(fmt: FloatFormat, got: u64, exact: &Float) -> f64 {
    let g = fmt.decode(got);
    if g.is_nan() || exact.is_nan() {
        return if g.is_nan() && exact.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if exact.is_infinite() || g.is_infinite() {
        let r = round_to(exact, fmt);
        return ulps(fmt, got, r) as f64;
    }
    let e = if exact.is_zero() {
        fmt.min_normal_exponent()
    } else {
        (exact.get_exp().unwrap_or(0) - 1).max(fmt.min_normal_exponent())
    };
    let ulp = Float::with_val(PREC, 1) << (e - fmt.mantissa_bits as i32);
    let d = Float::with_val(PREC, Float::with_val(PREC, g) - exact).abs();
    Float::with_val(64, d / ulp).to_f64()
}
