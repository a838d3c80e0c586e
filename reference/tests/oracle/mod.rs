//! An independent oracle for element-wise floating-point operations: exact values from MPFR at
//! 256 bits, rounded ONCE into the target format by code written here (not the reference's).
//!
//! Shared by the integration tests (`correctly_rounded_16bit.rs`, `double_rounding_traps.rs`) and
//! by the example `scan_double_rounding` (through `#[path]`), so not every item is used by every
//! includer.
//!
//! How a result is produced:
//! 1. [`decode`] reads the operand bits with this module's own reading of the format (sign,
//!    exponent field, fraction; the NaN/inf/−0 rules of [`SpecialEncoding`]) into an exact
//!    `rug::Float` of [`WORKING_PRECISION`] bits.
//! 2. MPFR computes the function at [`WORKING_PRECISION`] bits, round-to-nearest, returning the
//!    ternary value (the sign of `computed − exact`). Composite functions (logistic) are bracketed
//!    with directed roundings instead, at increasing precision until the bracket rounds to one
//!    value (Ziv's strategy).
//! 3. [`round_to_format`] rounds that value once into the target format: the value is split into an
//!    exact integer mantissa and a power of two, the integer is rounded to nearest on the
//!    format's grid (quantum `2^(max(e, emin) − mantissa_bits)`, so subnormals use the coarser
//!    grid directly), and a remainder of exactly one half is resolved by the ternary value (the
//!    exact value lies on the other side of the 256-bit value) or, when the 256-bit value is exact,
//!    by ties-to-even. A rounded magnitude above the largest finite value overflows to ±inf, or to
//!    NaN in formats without infinities (the rule stated on `FloatFormat::encode`).
//!
//! Sources: seed 004 (element-wise unary functions: `Rsqrt` is `1.0 / sqrt(x)`, `Sign`'s cases,
//! `Round` ties away from zero, `RoundNearestEven`; binary arithmetic: `Rem` takes the sign of the
//! dividend); IEEE 754-2019 §4.3.1 (roundTiesToEven), §7.4 (overflow); C99 Annex F for the special
//! values of `pow` and `atan2` (MPFR follows it).
#![allow(dead_code)] // Each includer uses a different subset.

use std::cmp::Ordering;

use conformance_spec::{FloatFormat, Opcode, SpecialEncoding};
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer};

/// Bits of precision of the exact computations (MPFR), far above the 53 bits of f64.
pub const WORKING_PRECISION: u32 = 256;

/// Largest precision the Ziv loop of composite functions may reach before giving up.
const MAX_ZIV_PRECISION: u32 = 1 << 16;

/// Unary element-wise opcodes the oracle evaluates (seed 004, element-wise unary functions).
pub const UNARY_OPS: [Opcode; 20] = [
    Opcode::Abs,
    Opcode::Cbrt,
    Opcode::Ceil,
    Opcode::Cosine,
    Opcode::Erf,
    Opcode::Exponential,
    Opcode::ExponentialMinusOne,
    Opcode::Floor,
    Opcode::Log,
    Opcode::LogPlusOne,
    Opcode::Logistic,
    Opcode::Negate,
    Opcode::RoundNearestAfz,
    Opcode::RoundNearestEven,
    Opcode::Rsqrt,
    Opcode::Sign,
    Opcode::Sine,
    Opcode::Sqrt,
    Opcode::Tan,
    Opcode::Tanh,
];

/// Binary element-wise arithmetic opcodes the oracle evaluates (seed 004, element-wise binary
/// arithmetic operations; `atan2(lhs, rhs)` is `atan2(y = lhs, x = rhs)`).
pub const BINARY_OPS: [Opcode; 7] = [
    Opcode::Add,
    Opcode::Subtract,
    Opcode::Multiply,
    Opcode::Divide,
    Opcode::Power,
    Opcode::Atan2,
    Opcode::Remainder,
];

// ---------------------------------------------------------------------------------------------
// Reading and writing the format's bits (this module's own code, not `FloatFormat`'s methods).
// ---------------------------------------------------------------------------------------------

fn width(f: FloatFormat) -> u32 {
    1 + f.exponent_bits + f.mantissa_bits
}

fn all_mask(f: FloatFormat) -> u64 {
    if width(f) == 64 {
        u64::MAX
    } else {
        (1u64 << width(f)) - 1
    }
}

fn sign_mask(f: FloatFormat) -> u64 {
    1u64 << (f.exponent_bits + f.mantissa_bits)
}

fn fraction_mask(f: FloatFormat) -> u64 {
    (1u64 << f.mantissa_bits) - 1
}

fn exponent_all_ones(f: FloatFormat) -> u64 {
    (1u64 << f.exponent_bits) - 1
}

/// True when `bits` encode a NaN in format `f` (IEEE: all-ones exponent, non-zero fraction; FN:
/// all-ones exponent and fraction; FNUZ: the sign bit alone).
pub fn is_nan(f: FloatFormat, bits: u64) -> bool {
    let bits = bits & all_mask(f);
    let e = (bits >> f.mantissa_bits) & exponent_all_ones(f);
    let m = bits & fraction_mask(f);
    match f.special {
        SpecialEncoding::Ieee => e == exponent_all_ones(f) && m != 0,
        SpecialEncoding::FiniteNan => e == exponent_all_ones(f) && m == fraction_mask(f),
        SpecialEncoding::Fnuz => bits == sign_mask(f),
    }
}

/// The exact value of `bits` in format `f` as a [`WORKING_PRECISION`]-bit `Float` (NaN for every
/// NaN encoding; ±inf only in IEEE formats; −0 kept where the format has it).
pub fn decode(f: FloatFormat, bits: u64) -> Float {
    let bits = bits & all_mask(f);
    if is_nan(f, bits) {
        return Float::with_val(WORKING_PRECISION, rug::float::Special::Nan);
    }
    let negative = bits & sign_mask(f) != 0;
    let e = (bits >> f.mantissa_bits) & exponent_all_ones(f);
    let m = bits & fraction_mask(f);
    let mut x = if f.special == SpecialEncoding::Ieee && e == exponent_all_ones(f) {
        Float::with_val(WORKING_PRECISION, rug::float::Special::Infinity)
    } else if e == 0 {
        // Zero or subnormal: m × 2^(1 − bias − mantissa_bits).
        let mut x = Float::with_val(WORKING_PRECISION, m);
        x <<= 1 - f.bias - f.mantissa_bits as i32;
        x
    } else {
        let mut x = Float::with_val(WORKING_PRECISION, m | (1u64 << f.mantissa_bits));
        x <<= e as i32 - f.bias - f.mantissa_bits as i32;
        x
    };
    if negative {
        x = -x;
    }
    x
}

/// Bits of a NaN of format `f` (the quiet NaN with a clear sign; FNUZ: its only NaN).
pub fn nan_bits(f: FloatFormat) -> u64 {
    match f.special {
        SpecialEncoding::Ieee => {
            (exponent_all_ones(f) << f.mantissa_bits) | (1u64 << (f.mantissa_bits - 1))
        }
        SpecialEncoding::FiniteNan => (exponent_all_ones(f) << f.mantissa_bits) | fraction_mask(f),
        SpecialEncoding::Fnuz => sign_mask(f),
    }
}

fn zero_bits(f: FloatFormat, negative: bool) -> u64 {
    if negative && f.special != SpecialEncoding::Fnuz {
        sign_mask(f)
    } else {
        0
    }
}

fn overflow_bits(f: FloatFormat, negative: bool) -> u64 {
    match f.special {
        SpecialEncoding::Ieee => {
            (exponent_all_ones(f) << f.mantissa_bits) | if negative { sign_mask(f) } else { 0 }
        }
        SpecialEncoding::FiniteNan => nan_bits(f) | if negative { sign_mask(f) } else { 0 },
        SpecialEncoding::Fnuz => nan_bits(f),
    }
}

/// (biased exponent field, fraction field) of the largest finite value of `f`.
fn max_finite_fields(f: FloatFormat) -> (u64, u64) {
    match f.special {
        SpecialEncoding::Ieee => (exponent_all_ones(f) - 1, fraction_mask(f)),
        SpecialEncoding::FiniteNan => (exponent_all_ones(f), fraction_mask(f) - 1),
        SpecialEncoding::Fnuz => (exponent_all_ones(f), fraction_mask(f)),
    }
}

/// Rounds `value` once into format `f` (round to nearest, ties to even), with subnormals and
/// overflow, and returns the result's bits.
///
/// `ternary` is MPFR's ternary value for `value`: the sign of `value − exact` (`Equal` when
/// `value` is the exact result). It decides the direction when `value` lies exactly on a rounding
/// midpoint of `f`'s grid; this is correct whenever `value` is the round-to-nearest image of the
/// exact result at a precision finer than `f`'s (so every midpoint of `f` is representable).
/// NaN gives [`nan_bits`]; ±inf and magnitudes that round above the largest finite value give
/// ±inf (IEEE formats) or NaN (FN, FNUZ formats); zeros keep their sign except in FNUZ formats.
pub fn round_to_format(f: FloatFormat, value: &Float, ternary: Ordering) -> u64 {
    if value.is_nan() {
        return nan_bits(f);
    }
    let negative = value.is_sign_negative();
    if value.is_infinite() {
        return overflow_bits(f, negative);
    }
    if value.is_zero() {
        return zero_bits(f, negative);
    }
    // value = mantissa × 2^exp exactly, and 2^e ≤ |value| < 2^(e+1).
    let Some((mantissa, exp)) = value.to_integer_exp() else {
        return nan_bits(f);
    };
    let Some(mpfr_exp) = value.get_exp() else {
        return nan_bits(f);
    };
    let e = mpfr_exp - 1;
    let magnitude = mantissa.abs();
    // Ternary of the magnitude: flips with the sign.
    let magnitude_ternary = if negative { ternary.reverse() } else { ternary };
    let mantissa_bits = f.mantissa_bits as i32;
    let min_normal_exp = 1 - f.bias;
    let mut quantum_exp = e.max(min_normal_exp) - mantissa_bits;
    let mut n: Integer = if exp >= quantum_exp {
        // On the grid already (the exact value is within a 256-bit ulp of it).
        magnitude << (exp - quantum_exp) as u32
    } else {
        let shift = (quantum_exp - exp) as u32;
        let truncated = Integer::from(&magnitude >> shift);
        let remainder = magnitude - Integer::from(&truncated << shift);
        let half = Integer::from(1) << (shift - 1);
        let round_up = match remainder.cmp(&half) {
            Ordering::Less => false,
            Ordering::Greater => true,
            Ordering::Equal => match magnitude_ternary {
                // The computed value is above the exact one: the exact one is below the midpoint.
                Ordering::Greater => false,
                Ordering::Less => true,
                Ordering::Equal => truncated.is_odd(),
            },
        };
        if round_up {
            truncated + 1
        } else {
            truncated
        }
    };
    if n == Integer::from(1) << (f.mantissa_bits + 1) {
        n >>= 1;
        quantum_exp += 1;
    }
    if n == 0 {
        return zero_bits(f, negative);
    }
    let sign = if negative { sign_mask(f) } else { 0 };
    let n = n.to_u64().unwrap_or(u64::MAX);
    if n < (1u64 << f.mantissa_bits) {
        // Subnormal: quantum_exp is the minimum here.
        return sign | n;
    }
    let biased = quantum_exp + mantissa_bits + f.bias;
    let (max_e, max_m) = max_finite_fields(f);
    let fraction = n & fraction_mask(f);
    if biased < 1 {
        // Unreachable for a normal n; kept total.
        return nan_bits(f);
    }
    let biased = biased as u64;
    if biased > max_e || (biased == max_e && fraction > max_m) {
        return overflow_bits(f, negative);
    }
    sign | (biased << f.mantissa_bits) | fraction
}

/// True when `got` is an acceptable bit pattern for the exact result `expected` in format `f`:
/// both NaN (any NaN), or identical bits (so ±0 differ).
pub fn same_result(f: FloatFormat, expected: u64, got: u64) -> bool {
    if is_nan(f, expected) {
        return is_nan(f, got);
    }
    (expected & all_mask(f)) == (got & all_mask(f))
}

// ---------------------------------------------------------------------------------------------
// Exact values at WORKING_PRECISION.
// ---------------------------------------------------------------------------------------------

/// Why the oracle has no value for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OracleError {
    /// The opcode is not one the oracle evaluates with the given arity.
    Unsupported(Opcode),
}

/// `op(x)` rounded to nearest at [`WORKING_PRECISION`] bits with its ternary value, for the unary
/// opcodes MPFR evaluates correctly rounded in one call (all of [`UNARY_OPS`] except `logistic`),
/// and the exact ones. `rsqrt(±0)` is `±inf` (seed 004: `1.0 / sqrt(x)`, and `sqrt(−0) = −0`).
///
/// Errors: [`OracleError::Unsupported`] for `logistic` (see [`unary`]) and any other opcode.
pub fn exact_unary(op: Opcode, x: &Float) -> Result<(Float, Ordering), OracleError> {
    let p = WORKING_PRECISION;
    let n = Round::Nearest;
    Ok(match op {
        Opcode::Abs => (Float::with_val(p, x.abs_ref()), Ordering::Equal),
        Opcode::Negate => (Float::with_val(p, -x), Ordering::Equal),
        Opcode::Ceil => (Float::with_val(p, x.ceil_ref()), Ordering::Equal),
        Opcode::Floor => (Float::with_val(p, x.floor_ref()), Ordering::Equal),
        Opcode::RoundNearestAfz => (Float::with_val(p, x.round_ref()), Ordering::Equal),
        Opcode::RoundNearestEven => (Float::with_val(p, x.round_even_ref()), Ordering::Equal),
        Opcode::Sign => {
            let s = if x.is_nan() || x.is_zero() {
                x.clone()
            } else if x.is_sign_negative() {
                Float::with_val(p, -1)
            } else {
                Float::with_val(p, 1)
            };
            (s, Ordering::Equal)
        }
        Opcode::Cbrt => Float::with_val_round(p, x.cbrt_ref(), n),
        Opcode::Cosine => Float::with_val_round(p, x.cos_ref(), n),
        Opcode::Erf => Float::with_val_round(p, x.erf_ref(), n),
        Opcode::Exponential => Float::with_val_round(p, clamp_exp_argument(x).exp_ref(), n),
        Opcode::ExponentialMinusOne => Float::with_val_round(p, x.exp_m1_ref(), n),
        Opcode::Log => Float::with_val_round(p, x.ln_ref(), n),
        Opcode::LogPlusOne => Float::with_val_round(p, x.ln_1p_ref(), n),
        Opcode::Sine => Float::with_val_round(p, x.sin_ref(), n),
        Opcode::Sqrt => Float::with_val_round(p, x.sqrt_ref(), n),
        Opcode::Tan => Float::with_val_round(p, x.tan_ref(), n),
        Opcode::Tanh => Float::with_val_round(p, x.tanh_ref(), n),
        Opcode::Rsqrt => {
            if x.is_zero() {
                // 1 / sqrt(±0) = 1 / ±0 = ±inf.
                let inf = Float::with_val(p, rug::float::Special::Infinity);
                (
                    if x.is_sign_negative() { -inf } else { inf },
                    Ordering::Equal,
                )
            } else {
                Float::with_val_round(p, x.recip_sqrt_ref(), n)
            }
        }
        other => return Err(OracleError::Unsupported(other)),
    })
}

/// `op(a, b)` rounded to nearest at [`WORKING_PRECISION`] bits with its ternary value, for
/// [`BINARY_OPS`]: IEEE 754 arithmetic, `pow` and `atan2(y = a, x = b)` with C99 Annex F special
/// values, `remainder` = `fmod` (exact; sign of the dividend, seed 004 `Rem`).
///
/// Errors: [`OracleError::Unsupported`] for any other opcode.
pub fn exact_binary(op: Opcode, a: &Float, b: &Float) -> Result<(Float, Ordering), OracleError> {
    let p = WORKING_PRECISION;
    let n = Round::Nearest;
    Ok(match op {
        Opcode::Add => Float::with_val_round(p, a + b, n),
        Opcode::Subtract => Float::with_val_round(p, a - b, n),
        Opcode::Multiply => Float::with_val_round(p, a * b, n),
        Opcode::Divide => Float::with_val_round(p, a / b, n),
        Opcode::Power => Float::with_val_round(p, a.pow(b), n),
        Opcode::Atan2 => Float::with_val_round(p, a.atan2_ref(b), n),
        Opcode::Remainder => Float::with_val_round(p, a % b, n),
        other => return Err(OracleError::Unsupported(other)),
    })
}

/// Bound beyond which `e^x` rounds alike in every format up to f64: `e^4096 > 2^5909` overflows
/// them all and `e^−4096 < 2^−5909` is below half of f64's smallest subnormal (`2^−1075`).
const EXP_ARGUMENT_BOUND: i32 = 4096;

/// `x` clamped to `[−4096, 4096]` (infinities kept): `e^x` and `e^clamped` round to the same value
/// in every format here, and MPFR is slow on huge finite arguments whose result it can still
/// represent (e.g. `e^(−6·10^8)`, reached by bf16 inputs).
fn clamp_exp_argument(x: &Float) -> Float {
    let mut c = x.clone();
    if c.is_finite() {
        c.clamp_mut(&-EXP_ARGUMENT_BOUND, &EXP_ARGUMENT_BOUND);
    }
    c
}

/// `logistic(x) = 1 / (1 + e^−x)` correctly rounded into `f` (seed 004, `Logistic`).
///
/// Ziv's strategy: a lower and an upper bound are computed with directed roundings (the function
/// is increasing, so `lo = 1/(1 + exp↑(−x))↑` rounded down and `hi = 1/(1 + exp↓(−x))↓` rounded
/// up), starting at [`WORKING_PRECISION`] bits and doubling until both bounds round to the same
/// value of `f`. When every step is exact (only `x = 0`: `1/2`) the exact value is rounded.
/// `x` is first clamped to `[−4096, 4096]`, which changes no rounded result (see
/// [`EXP_ARGUMENT_BOUND`]).
pub fn logistic(f: FloatFormat, x: &Float) -> u64 {
    if x.is_nan() {
        return nan_bits(f);
    }
    // Beyond ±4096 the result rounds to 1 or +0 in every format, as at ±4096.
    let x = clamp_exp_argument(x);
    let mut prec = WORKING_PRECISION;
    loop {
        let neg_x = Float::with_val(prec, -&x);
        let (e_up, t1) = Float::with_val_round(prec, neg_x.exp_ref(), Round::Up);
        let (d_up, t2) = Float::with_val_round(prec, &e_up + 1u32, Round::Up);
        let (lo, t3) = Float::with_val_round(prec, d_up.recip_ref(), Round::Down);
        if [t1, t2, t3].iter().all(|t| *t == Ordering::Equal) {
            return round_to_format(f, &lo, Ordering::Equal);
        }
        let (e_down, _) = Float::with_val_round(prec, neg_x.exp_ref(), Round::Down);
        let (d_down, _) = Float::with_val_round(prec, &e_down + 1u32, Round::Down);
        let (hi, _) = Float::with_val_round(prec, d_down.recip_ref(), Round::Up);
        let from_lo = round_to_format(f, &lo, Ordering::Less);
        let from_hi = round_to_format(f, &hi, Ordering::Greater);
        if from_lo == from_hi {
            return from_lo;
        }
        assert!(
            prec < MAX_ZIV_PRECISION,
            "logistic({x}) not decided at {prec} bits"
        );
        prec *= 2;
    }
}

/// The correctly rounded result of unary `op` on the bits `x` of format `f`, as bits of `f`.
///
/// Errors: [`OracleError::Unsupported`] for opcodes outside [`UNARY_OPS`].
pub fn unary(op: Opcode, f: FloatFormat, x: u64) -> Result<u64, OracleError> {
    let x = decode(f, x);
    if x.is_nan() {
        return if UNARY_OPS.contains(&op) {
            Ok(nan_bits(f))
        } else {
            Err(OracleError::Unsupported(op))
        };
    }
    if op == Opcode::Logistic {
        return Ok(logistic(f, &x));
    }
    let (value, ternary) = exact_unary(op, &x)?;
    Ok(round_to_format(f, &value, ternary))
}

/// The correctly rounded result of binary `op` on the bits `a`, `b` of format `f`, as bits of `f`.
/// NaN operands follow MPFR/C99 (`pow(NaN, 0) = 1`, `pow(1, NaN) = 1`; otherwise NaN), except
/// that IEEE 754-2019 (§9.2.1 names the quiet NaN; §6.2) makes a signaling NaN operand of `pow`
/// give NaN.
///
/// Errors: [`OracleError::Unsupported`] for opcodes outside [`BINARY_OPS`].
pub fn binary(op: Opcode, f: FloatFormat, a: u64, b: u64) -> Result<u64, OracleError> {
    if op == Opcode::Power && (f.is_signaling_nan(a) || f.is_signaling_nan(b)) {
        return Ok(f.nan_bits());
    }
    let (value, ternary) = exact_binary(op, &decode(f, a), &decode(f, b))?;
    Ok(round_to_format(f, &value, ternary))
}

/// For an `f32` function value known exactly as (`value`, `ternary`) at [`WORKING_PRECISION`]:
/// `(correct, double_rounded)`, the bits of the correctly rounded `f32` and of the `f32` obtained by
/// rounding the correctly rounded `f64` to `f32` (round to nearest even, as `f64 as f32` does).
pub fn f32_correct_and_double_rounded(value: &Float, ternary: Ordering) -> (u32, u32) {
    let correct = round_to_format(FloatFormat::F32, value, ternary) as u32;
    let f64_bits = round_to_format(FloatFormat::F64, value, ternary);
    let double_rounded = (f64::from_bits(f64_bits) as f32).to_bits();
    (correct, double_rounded)
}

/// Distance, in units of the `f64` ulp of `y`, from `y` to the nearest rounding midpoint of the
/// `f32` grid (the grid continued past `f32::MAX`, so the overflow threshold counts, and with the
/// fixed quantum `2^−149` in the subnormal range). `None` for NaN, ±inf, zero, `f64` subnormals
/// and magnitudes of `2^128` or more (which round to ±inf either way).
pub fn f32_midpoint_distance(y: f64) -> Option<u64> {
    let bits = y.to_bits() & !(1u64 << 63);
    let biased = (bits >> 52) as i32;
    if biased == 0 || biased == 0x7ff {
        return None;
    }
    let e = biased - 1023;
    if e >= 128 {
        return None;
    }
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    // f32 quantum exponent minus f64 ulp exponent.
    let shift = (e.max(-126) - 23) - (e - 52);
    if shift > 120 {
        return None;
    }
    let low = (m as u128) & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    let d = low.abs_diff(half);
    Some(u64::try_from(d).unwrap_or(u64::MAX))
}

/// SplitMix64: a small deterministic generator for sampled tests and searches.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`; the tiny modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}
