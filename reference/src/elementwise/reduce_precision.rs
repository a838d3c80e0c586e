//! `reduce-precision` (seed 004, ReducePrecision; attributes `exponent_bits`, `mantissa_bits`):
//! models converting a float to a narrower format and back.
//!
//! Seed 004: values are rounded to nearest-even to `mantissa_bits`, values beyond the range of
//! `exponent_bits` go to ±inf, NaN stays NaN; bit counts at least the type's own are no-ops. With
//! `mantissa_bits = 0` both neighbours of a tie have significand 1 and the seed's "even" is
//! undefined; XLA's rounding of the encoding then sends ties to the neighbour with an even biased
//! exponent field ([`round_to_power_of_two`]).
//!
//! Below the reduced format's normal range the seed is silent; this follows XLA. XLA's
//! `EmitReducePrecisionIR` (xla/service/llvm_ir/llvm_util.cc, and the same logic in the HLO
//! evaluator) first rounds the mantissa in the source encoding (so source subnormals round on the
//! source's subnormal grid), then, when `exponent_bits` is smaller than the source's, forces
//! values whose biased exponent is at most `bias − reduced_bias` to a zero of the input's sign and
//! values whose exponent exceeds `bias + reduced_bias` to ±inf — its comment: "this truncates all
//! denormal values to zero, rather than rounding them". So reduced-format subnormals flush to ±0:
//! reduce-precision(x, 5, 10) equals f32 → f16 → f32 conversion except where the f16 value would be
//! subnormal. (For NaN with `mantissa_bits = 0` XLA returns +inf; the seed's "NaN stays NaN" is
//! followed here instead.)
//!
//! The rules are applied to values (the exponent tests are on the unbiased exponent of the rounded
//! value), which is XLA's bit-level algorithm for IEEE formats and extends it to the f8 formats:
//! overflow there gives ±inf or, without infinities, NaN; FNUZ has no −0.

use super::{invalid, real_format, ElementFn, Signature};
use crate::round::{decode, round_exact};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::Float;

pub(crate) fn build(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    let ty = sig.operands[0];
    sig.expect_result(ty)?;
    let Some(fmt) = real_format(ty) else {
        return sig.not_defined_for(ty);
    };
    let exponent_bits = sig.attr_integer("exponent_bits")?;
    let mantissa_bits = sig.attr_integer("mantissa_bits")?;
    if exponent_bits < 1 {
        return invalid(format!(
            "reduce-precision: exponent_bits must be at least 1, got {exponent_bits}"
        ));
    }
    if mantissa_bits < 0 {
        return invalid(format!(
            "reduce-precision: mantissa_bits must be non-negative, got {mantissa_bits}"
        ));
    }
    Ok(Box::new(move |x| {
        Ok(u128::from(reduce_precision(
            fmt,
            x[0] as u64,
            exponent_bits,
            mantissa_bits,
        )))
    }))
}

/// Reduces one value of format `fmt` (see the module docs).
pub fn reduce_precision(
    fmt: FloatFormat,
    bits: u64,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> u64 {
    let x = decode(fmt, bits);
    if x.is_nan() {
        return fmt.nan_bits();
    }
    if x.is_infinite() || x.is_zero() {
        return bits;
    }
    let negative = x.is_sign_negative();
    let mut r = x;
    if mantissa_bits == 0 {
        r = round_to_power_of_two(fmt, &r);
        if r.is_zero() {
            return round_exact(fmt, &r);
        }
        if r.clone().abs() > fmt.max_finite() {
            return crate::round::infinity_bits(fmt, negative);
        }
    } else if mantissa_bits < i64::from(fmt.mantissa_bits) {
        // Round to mantissa_bits + 1 significant bits on the source's subnormal grid.
        let precision = mantissa_bits as u32 + 1;
        let (mut rounded, ternary) = Float::with_val_round(precision, &r, Round::Nearest);
        rounded.subnormalize_round(fmt.min_normal_exponent() + 1, ternary, Round::Nearest);
        r = rounded;
        if r.is_zero() {
            return round_exact(fmt, &r);
        }
        if r.clone().abs() > fmt.max_finite() {
            return crate::round::infinity_bits(fmt, negative);
        }
    }
    if exponent_bits < i64::from(fmt.exponent_bits) {
        let reduced_bias = (1i64 << (exponent_bits - 1)) - 1;
        // MPFR: r = m × 2^e with 0.5 ≤ |m| < 1, so the unbiased exponent is e − 1.
        let e = i64::from(r.get_exp().expect("non-zero finite")) - 1;
        if e > reduced_bias {
            return crate::round::infinity_bits(fmt, negative);
        }
        if e < 1 - reduced_bias {
            return crate::round::zero_bits(fmt, negative);
        }
    }
    round_exact(fmt, &r)
}

/// Rounds a finite non-zero `x` to no mantissa bits: to ±0 or a signed power of two `2^e` with
/// `e` at least the format's minimum normal exponent (below it, the source's subnormal grid with
/// no mantissa bits is {0, 2^emin}), to nearest.
///
/// Both neighbours of a tie have significand 1, so "ties to even" cannot refer to the significand.
/// XLA rounds the encoding (add `0b0111…` plus the last kept bit, truncate), and with no mantissa
/// bits kept the last kept bit is the exponent field's lowest: a tie goes to the neighbour whose
/// biased exponent field in the source format is even (0 for zero). So 3 → 2 in f32 (field 128),
/// 1.5 → 2 (1's field is 127), 49152 → 32768 in f16 (field 30; not 65536, which overflows), and
/// `2^(emin−1)` → 0. (MPFR at precision 1 rounds such ties away from zero instead.)
fn round_to_power_of_two(fmt: FloatFormat, x: &Float) -> Float {
    let emin = fmt.min_normal_exponent();
    let abs = Float::with_val(x.prec(), x.abs_ref());
    // MPFR: |x| = m × 2^e with 0.5 ≤ m < 1, so the unbiased exponent is e − 1.
    let e = abs.get_exp().expect("non-zero finite") - 1;
    let pow2 = |k: i32| Float::with_val(2, 1) << k;
    // The neighbours below and above, and the exponent field of the lower one.
    let (lo, hi, lo_field) = if e >= emin {
        (pow2(e), pow2(e + 1), e - emin + 1)
    } else {
        (Float::new(2), pow2(emin), 0)
    };
    let mid = Float::with_val(3, &lo + &hi) >> 1; // exact: at most 2 significant bits
    let take_hi = match abs.partial_cmp(&mid).expect("not NaN") {
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => lo_field % 2 != 0,
    };
    let r = if take_hi { hi } else { lo };
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::ElementType;

    fn rp32(x: f32, e: i64, m: i64) -> f32 {
        f32::from_bits(reduce_precision(FloatFormat::F32, x.to_bits() as u64, e, m) as u32)
    }

    #[test]
    fn to_f16_normal_range_and_overflow() {
        assert_eq!(rp32(1.0 + 2f32.powi(-11), 5, 10), 1.0); // tie → even
        assert_eq!(rp32(1.0 + 3.0 * 2f32.powi(-11), 5, 10), 1.0 + 2f32.powi(-9));
        assert_eq!(rp32(65504.0, 5, 10), 65504.0);
        assert_eq!(rp32(65519.0, 5, 10), 65504.0);
        assert_eq!(rp32(65520.0, 5, 10), f32::INFINITY);
        assert_eq!(rp32(-1e10, 5, 10), f32::NEG_INFINITY);
        assert_eq!(rp32(f32::INFINITY, 5, 10), f32::INFINITY);
        assert!(rp32(f32::NAN, 5, 10).is_nan());
        assert!(rp32(f32::NAN, 5, 0).is_nan());
        assert_eq!(rp32(2f32.powi(-14), 5, 10), 2f32.powi(-14)); // smallest f16 normal
    }

    #[test]
    fn reduced_subnormals_flush_to_signed_zero_as_in_xla() {
        // 2^-15 is an f16 subnormal: XLA's reduce-precision gives 0.
        assert_eq!(rp32(2f32.powi(-15), 5, 10).to_bits(), 0);
        assert_eq!(rp32(-2f32.powi(-20), 5, 10).to_bits(), 0x8000_0000);
        // Just below the smallest normal, rounding the mantissa reaches it: kept.
        assert_eq!(
            rp32(2f32.powi(-14) * (1.0 - 2f32.powi(-12)), 5, 10),
            2f32.powi(-14)
        );
        // f32 subnormals are below every reduced range with fewer exponent bits.
        assert_eq!(rp32(f32::from_bits(5), 5, 10).to_bits(), 0);
    }

    #[test]
    fn no_ops_and_mantissa_only() {
        for x in [0.1f32, -3.7e-39, f32::MAX, f32::from_bits(1)] {
            assert_eq!(rp32(x, 8, 23).to_bits(), x.to_bits());
            assert_eq!(rp32(x, 11, 52).to_bits(), x.to_bits());
        }
        // bf16 precision in f32 (8 exponent bits: subnormals round on f32's grid, not flushed).
        assert_eq!(rp32(1.0 + 2f32.powi(-8), 8, 7), 1.0);
        // (bf16's grid among f32 subnormals: multiples of 0x10000 in the bits.)
        assert_eq!(
            rp32(f32::from_bits(0x0000_8001), 8, 7).to_bits(),
            0x0001_0000
        );
        assert_eq!(rp32(f32::from_bits(0x0000_8000), 8, 7).to_bits(), 0); // tie → even
        assert_eq!(
            rp32(f32::from_bits(0x0001_8000), 8, 7).to_bits(),
            0x0002_0000
        );
        assert_eq!(rp32(f32::MAX, 8, 7), f32::INFINITY); // rounds up past the largest binade
                                                         // Zero mantissa bits: powers of two only.
        assert_eq!(rp32(1.4, 8, 0), 1.0);
        assert_eq!(rp32(1.5, 8, 0), 2.0);
        assert_eq!(rp32(3.0, 8, 0), 2.0); // tie → even exponent field (2: 128, as XLA)
                                          // One exponent bit: the reduced format has only zero/subnormal and inf/NaN exponents, no
                                          // normal numbers: everything finite is 0 or ±inf.
        assert_eq!(rp32(1.5, 1, 23), 0.0);
        assert_eq!(rp32(-1.0, 1, 23).to_bits(), 0x8000_0000);
        assert_eq!(rp32(2.0, 1, 23), f32::INFINITY);
        assert_eq!(rp32(0.75, 1, 23), 0.0);
    }

    /// Regression (sweep: f32 −3 gave −4 here, −2 in the fast backend and XLA): with no mantissa
    /// bits a tie goes to the power of two whose biased exponent field is even.
    #[test]
    fn zero_mantissa_bits_ties_go_to_the_even_exponent_field() {
        assert_eq!(rp32(3.0, 8, 0), 2.0); // fields 128 | 129
        assert_eq!(rp32(-3.0, 5, 0), -2.0);
        assert_eq!(rp32(6.0, 8, 0), 8.0); // fields 129 | 130
        assert_eq!(rp32(1.5, 8, 0), 2.0); // fields 127 | 128
        assert_eq!(rp32(0.75, 8, 0), 0.5); // fields 126 | 127
        assert_eq!(rp32(3.0001, 8, 0), 4.0); // not a tie
        assert_eq!(rp32(12.0, 3, 0), 8.0); // 16 would overflow 3 exponent bits
        assert_eq!(rp32(24.0, 3, 0), f32::INFINITY); // fields 130 | 131: 16 → beyond 2^3
                                                     // Source subnormals: {0, 2^−126}, the tie 2^−127 → 0 (field 0).
        assert_eq!(rp32(2f32.powi(-127), 8, 0).to_bits(), 0);
        assert_eq!(rp32(-2f32.powi(-127), 8, 0).to_bits(), 0x8000_0000);
        assert_eq!(rp32(f32::from_bits(0x0040_0001), 8, 0), 2f32.powi(-126));
        let f16 = FloatFormat::F16;
        let h = |x: f64| f16.encode(x);
        assert_eq!(reduce_precision(f16, h(49152.0), 5, 0), h(32768.0)); // not 65536 → inf
        assert_eq!(reduce_precision(f16, h(-12.0), 3, 0), h(-8.0));
        let fn8 = ElementType::F8E4M3FN.float_format().unwrap();
        assert_eq!(
            reduce_precision(fn8, fn8.encode(3.0), 4, 0),
            fn8.encode(2.0)
        ); // field 8
        assert_eq!(
            reduce_precision(fn8, fn8.encode(6.0), 4, 0),
            fn8.encode(8.0)
        ); // field 9
    }

    /// XLA's bit-level algorithm (`EmitReducePrecisionIR`) on an IEEE format's bits.
    fn xla_bits(fmt: FloatFormat, bits: u64, e: u32, m: u32) -> u64 {
        let (se, sm, width) = (fmt.exponent_bits, fmt.mantissa_bits, fmt.bit_width());
        let all = (1u64 << width) - 1;
        let mut x = bits;
        if m < sm {
            let last = 1u64 << (sm - m);
            let bias = (last >> 1) - 1 + ((x & last) >> (sm - m));
            x = (x + bias) & !(last - 1) & all;
        }
        if e < se {
            let exp_mask = ((1u64 << se) - 1) << sm;
            let (src_bias, red_bias) = ((1u64 << (se - 1)) - 1, (1u64 << (e - 1)) - 1);
            let sign = x & (1u64 << (width - 1));
            if x & exp_mask > (src_bias + red_bias) << sm {
                x = sign | exp_mask;
            } else if x & exp_mask <= (src_bias - red_bias) << sm {
                x = sign;
            }
        }
        x
    }

    #[test]
    fn ieee_16bit_sources_match_xla_bit_algorithm() {
        for (fmt, es) in [(FloatFormat::F16, 1..=6), (FloatFormat::BF16, 1..=9)] {
            for e in es {
                for m in [0, 1, 2, 6, 7, 9, 10, 11] {
                    for bits in (0..1u64 << 16).step_by(5) {
                        if fmt.decode(bits).is_nan() {
                            continue;
                        }
                        let (want, got) = (
                            xla_bits(fmt, bits, e, m),
                            reduce_precision(fmt, bits, i64::from(e), i64::from(m)),
                        );
                        assert_eq!(got, want, "{fmt:?} {bits:#06x} e={e} m={m}");
                    }
                }
            }
        }
    }

    #[test]
    fn f64_and_narrow_sources() {
        let r = reduce_precision(FloatFormat::F64, 0.1f64.to_bits(), 8, 23);
        assert_eq!(f64::from_bits(r), 0.1f32 as f64);
        let r = reduce_precision(FloatFormat::F64, 1e300f64.to_bits(), 8, 23);
        assert_eq!(f64::from_bits(r), f64::INFINITY);
        let f = ElementType::F8E4M3FN.float_format().unwrap();
        assert_eq!(reduce_precision(f, f.encode(448.0), 3, 3), 0x7f); // beyond 3-bit range: NaN
        assert_eq!(reduce_precision(f, f.encode(1.125), 4, 2), f.encode(1.0));
        let fnuz = ElementType::F8E5M2FNUZ.float_format().unwrap();
        assert_eq!(
            reduce_precision(fnuz, fnuz.encode(-2f64.powi(-10)), 3, 2),
            0
        );
    }
}
