//! `reduce-precision` (seed 004, ReducePrecision): rounds to a format with `exponent_bits` and
//! `mantissa_bits`, staying in the operand's type.
//!
//! Follows XLA's bit-level algorithm (`EmitReducePrecisionIR` in XLA's elemental IR emitter),
//! applied to the operand format's own bits: the mantissa is rounded to nearest even by adding a
//! bias and truncating; when the reduced exponent range is narrower, magnitudes above its maximum
//! become ±inf and those whose exponent is at or below the reduced minimum *normal* exponent − 1
//! become ±0 (the reduced format's subnormals are not kept); NaN inputs are returned unchanged.
//! The f8 formats without IEEE special values (`*FN`, `*FNUZ`) follow the same rules stated on
//! values with the format's own parameters ([`reduce_value`]), as the reference does.

use super::narrow::Narrow;
use super::Ctx;
use crate::buffer::with_output;
use crate::parallel::map1;
use conformance_spec::element_type::{frexp, ldexp};
use conformance_spec::{BackendError, FloatFormat, SpecialEncoding};

/// Reduces the bits of an IEEE-format value (`src`: its format) as XLA does.
pub fn reduce_bits(bits: u64, src: FloatFormat, exponent_bits: u32, mantissa_bits: u32) -> u64 {
    let (se, sm) = (src.exponent_bits, src.mantissa_bits);
    let width = src.bit_width();
    let all = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let exp_mask = ((1u64 << se) - 1) << sm;
    let is_nan = bits & exp_mask == exp_mask && bits & ((1u64 << sm) - 1) != 0;
    if is_nan {
        return bits;
    }
    let mut x = bits;
    if mantissa_bits < sm {
        let shift = sm - mantissa_bits;
        let last_bit_mask = 1u64 << shift;
        let base_bias = (last_bit_mask >> 1) - 1;
        let last_bit = (x & last_bit_mask) >> shift;
        x = (x.wrapping_add(last_bit + base_bias) & !(last_bit_mask - 1)) & all;
    }
    if exponent_bits < se {
        let src_bias = (1u64 << (se - 1)) - 1;
        let reduced_bias = (1u64 << (exponent_bits.max(1) - 1)) - 1;
        let reduced_max = src_bias + reduced_bias;
        let reduced_min = src_bias - reduced_bias;
        let exponent = x & exp_mask;
        let sign = x & (1u64 << (width - 1));
        if exponent > reduced_max << sm {
            x = sign | exp_mask;
        } else if exponent <= reduced_min << sm {
            x = sign;
        }
    }
    x
}

/// Reduces a value of a format without IEEE special values (f8 `*FN`, `*FNUZ`) by the same rules
/// stated on values: round to `mantissa_bits + 1` significant bits on the format's own subnormal
/// grid (ties to even; with no mantissa bits, to the even exponent field as XLA's rounding of the
/// encoding does) (overflow → the format's overflow value), then, when `exponent_bits` is below the
/// format's, magnitudes beyond the reduced range overflow and those below its normal range become
/// zero.
pub fn reduce_value(nw: &Narrow, bits: u64, exponent_bits: u32, mantissa_bits: u32) -> u64 {
    let fmt = nw.fmt;
    let x = nw.decode(bits);
    if x.is_nan() || x == 0.0 {
        return bits;
    }
    let overflow = fmt.encode(f64::INFINITY.copysign(x));
    let zero = fmt.encode(0.0f64.copysign(x));
    let mut r = x;
    if mantissa_bits < fmt.mantissa_bits {
        let (_, e) = frexp(r); // |r| = f × 2^e, f ∈ [0.5, 1)
        let quantum = ldexp(
            1.0,
            (e - 1).max(fmt.min_normal_exponent()) - mantissa_bits as i32,
        );
        let q = r / quantum; // exact: a power of two
        let n = if mantissa_bits == 0 && q.abs().fract() == 0.5 {
            // A tie between 0 or 2^(e−1) and twice that, both with significand 1: as XLA's
            // rounding of the encoding, to the one whose exponent field is even (0 for zero).
            let lo = q.abs().floor();
            let lo_field = if lo == 0.0 {
                0
            } else {
                e - fmt.min_normal_exponent()
            };
            (lo + f64::from(lo_field % 2 != 0)).copysign(q)
        } else {
            q.round_ties_even()
        };
        r = n * quantum; // exact: powers of two and small integers
        if r == 0.0 {
            return zero;
        }
        if r.abs() > fmt.max_finite() {
            return overflow;
        }
    }
    if exponent_bits < fmt.exponent_bits {
        let reduced_bias = (1i32 << (exponent_bits - 1)) - 1;
        let (_, e) = frexp(r);
        if e - 1 > reduced_bias {
            return overflow;
        }
        if e - 1 < 1 - reduced_bias {
            return zero;
        }
    }
    fmt.encode(r)
}

/// Runs `reduce-precision`.
pub(crate) fn evaluate(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 1 {
        return Err(BackendError::Invalid(format!(
            "reduce-precision takes 1 operand, {} given",
            ctx.operands.len()
        )));
    }
    let ty = ctx.in_type(0);
    ctx.expect_out(ty)?;
    let attr = |name: &str, max: i64| -> Result<u32, BackendError> {
        let v = ctx
            .instr
            .attr_int(name)
            .ok_or_else(|| BackendError::Invalid(format!("reduce-precision without {name}=")))?;
        if !(0..=max).contains(&v) {
            return Err(BackendError::Invalid(format!(
                "reduce-precision {name}={v} out of range 0..={max}"
            )));
        }
        Ok(v as u32)
    };
    let e = attr("exponent_bits", 64)?;
    let m = attr("mantissa_bits", 64)?;
    if e == 0 {
        return Err(BackendError::Invalid(
            "reduce-precision exponent_bits must be at least 1".into(),
        ));
    }
    let fmt = ty
        .float_format()
        .filter(|_| ty.is_float())
        .ok_or_else(|| ctx.unsupported_type())?;
    let (exec, n) = (ctx.exec, ctx.n);
    Ok(match (ty.bit_width(), fmt.special) {
        (64, _) => {
            let a = ctx.operands[0].typed::<u64>();
            with_output::<u64>(n, |o| {
                map1(exec, a.view(), o, |b| reduce_bits(b, fmt, e, m))
            })
        }
        (32, _) => {
            let a = ctx.operands[0].typed::<u32>();
            with_output::<u32>(n, |o| {
                map1(exec, a.view(), o, |b| {
                    reduce_bits(b as u64, fmt, e, m) as u32
                })
            })
        }
        (16, _) => {
            let a = ctx.operands[0].typed::<u16>();
            with_output::<u16>(n, |o| {
                map1(exec, a.view(), o, |b| {
                    reduce_bits(b as u64, fmt, e, m) as u16
                })
            })
        }
        (_, SpecialEncoding::Ieee) => {
            let a = ctx.operands[0].typed::<u8>();
            with_output::<u8>(n, |o| {
                map1(exec, a.view(), o, |b| {
                    reduce_bits(b as u64, fmt, e, m) as u8
                })
            })
        }
        _ => {
            let nw = Narrow::new(ty).ok_or_else(|| ctx.unsupported_type())?;
            let nw = &nw;
            let a = ctx.operands[0].typed::<u8>();
            with_output::<u8>(n, |o| {
                map1(exec, a.view(), o, |b| {
                    reduce_value(nw, b as u64, e, m) as u8
                })
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_to_f16_parameters_match_half_in_the_normal_range() {
        let mut x = 1.0e-4f32;
        while x < 6.0e4 {
            for v in [x, -x, x * 1.000_3, x * 0.999_7] {
                let r =
                    f32::from_bits(reduce_bits(v.to_bits() as u64, FloatFormat::F32, 5, 10) as u32);
                assert_eq!(r, half::f16::from_f32(v).to_f32(), "{v}");
            }
            x *= 1.01;
        }
        // Overflow: 65520 rounds to inf like f16; NaN stays NaN; values in the f16 subnormal
        // range flush to zero (XLA keeps no reduced-format subnormals).
        let red = |v: f32| {
            f32::from_bits(reduce_bits(v.to_bits() as u64, FloatFormat::F32, 5, 10) as u32)
        };
        assert_eq!(red(65520.0), f32::INFINITY);
        assert_eq!(red(-1e6), f32::NEG_INFINITY);
        // Zero mantissa bits: a tie goes to the even exponent field (2.0: 128), as in XLA.
        let red0 =
            |v: f32| f32::from_bits(reduce_bits(v.to_bits() as u64, FloatFormat::F32, 5, 0) as u32);
        assert_eq!(red0(3.0), 2.0);
        assert_eq!(red0(-6.0), -8.0);
        assert!(red(f32::NAN).is_nan());
        assert_eq!(red(1e-6).to_bits(), 0);
        assert_eq!(red(-1e-6).to_bits(), 0x8000_0000);
    }

    #[test]
    fn formats_without_ieee_specials_reduce_by_value() {
        let nw = Narrow::new(conformance_spec::ElementType::F8E4M3FN).unwrap();
        for b in 0..256u64 {
            // The format's own parameters change nothing (NaN stays NaN).
            assert_eq!(reduce_value(&nw, b, 4, 3), b, "{b:#x}");
        }
        let v = |x: f64| nw.encode(x);
        assert_eq!(reduce_value(&nw, v(1.125), 4, 2), v(1.0)); // tie to even
        assert_eq!(reduce_value(&nw, v(1.375), 4, 2), v(1.5));
        assert_eq!(reduce_value(&nw, v(448.0), 4, 1), nw.fmt.nan_bits()); // rounds to 512: overflow
        assert_eq!(reduce_value(&nw, v(-0.125), 3, 3), 0x80); // below 2^-2: −0
        assert_eq!(reduce_value(&nw, v(16.0), 3, 3), 0x7f); // beyond 2^3: overflow (NaN, no inf)

        // No mantissa bits: ties to the even exponent field (2: field 8; 8: field 10; 0: field 0).
        assert_eq!(reduce_value(&nw, v(3.0), 4, 0), v(2.0));
        assert_eq!(reduce_value(&nw, v(-3.0), 4, 0), v(-2.0));
        assert_eq!(reduce_value(&nw, v(6.0), 4, 0), v(8.0));
        assert_eq!(reduce_value(&nw, v(1.5), 4, 0), v(2.0));
        assert_eq!(reduce_value(&nw, v(2f64.powi(-7)), 4, 0), 0); // tie between 0 and 2^−6
        assert_eq!(
            reduce_value(&nw, v(5.0 * 2f64.powi(-9)), 4, 0),
            v(2f64.powi(-6))
        );
        assert_eq!(reduce_value(&nw, v(384.0), 4, 0), nw.fmt.nan_bits()); // 512: overflow
    }
}
