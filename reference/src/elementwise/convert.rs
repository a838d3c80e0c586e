//! `convert` between every pair of the 22 element types (seed 004, ConvertElementType: an
//! element-wise `static_cast`; int → float rounds to nearest even).
//!
//! - int → float and float → float: the exact value rounded once to nearest-even in the target
//!   format, with subnormals; overflow gives ±inf, or NaN in formats without infinities; NaN gives
//!   the canonical NaN; FNUZ targets have no −0 (−0 → +0).
//! - float → int: truncation toward zero; NaN → 0; out of range (±inf included) saturates to the
//!   type's min/max (XLA CPU behaviour; implementation-defined, masked by the comparator).
//! - int → int: two's-complement wrap (sign-extending from signed types).
//! - anything → PRED: `x != 0` (NaN → true); PRED → anything: 0 or 1.
//! - real → complex: the real part converted, imaginary part +0; complex → complex: each component.
//! - complex → real type (PRED and integers included): the real part is converted. (XLA's shape
//!   inference rejects complex → real conversions; this is the project's definition.)

use super::{ElementFn, Signature};
use crate::round::round_nearest_result;
use conformance_spec::element_type::{ElementType, FloatFormat, TypeKind};
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::BackendError;
use rug::float::Round;
use rug::{Float, Integer};

/// A real value read from an element: an exact integer or an exact float (every format here is a
/// subset of f64).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Real {
    Int(i128),
    Float(f64),
}

pub(crate) fn build(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    let (from, to) = (sig.operands[0], sig.result);
    Ok(Box::new(move |x| Ok(convert(from, to, x[0]))))
}

/// Converts one element's bits from `from` to `to` (see the module docs for the rules).
pub fn convert(from: ElementType, to: ElementType, bits: u128) -> u128 {
    if from == to {
        return bits;
    }
    let (re, im) = read(from, bits);
    match to.kind() {
        TypeKind::Complex => {
            let fmt = to.float_format().expect("complex");
            let im = im.unwrap_or(Real::Float(0.0));
            complex_bits(fmt, write_float(fmt, re), write_float(fmt, im))
        }
        _ => u128::from(write_real(to, re)),
    }
}

/// The value of an element: (real part, imaginary part for complex types).
fn read(ty: ElementType, bits: u128) -> (Real, Option<Real>) {
    match ty.kind() {
        TypeKind::Pred | TypeKind::SignedInteger | TypeKind::UnsignedInteger => (
            Real::Int(ty.integer_from_bits(bits as u64).expect("integer")),
            None,
        ),
        TypeKind::Float => {
            let fmt = ty.float_format().expect("float");
            (Real::Float(fmt.decode(bits as u64)), None)
        }
        TypeKind::Complex => {
            let fmt = ty.float_format().expect("complex");
            let (re, im) = complex_parts(fmt, bits);
            (
                Real::Float(fmt.decode(re)),
                Some(Real::Float(fmt.decode(im))),
            )
        }
    }
}

/// Writes a real value into a non-complex type.
fn write_real(ty: ElementType, v: Real) -> u64 {
    match ty.kind() {
        TypeKind::Pred => u64::from(match v {
            Real::Int(i) => i != 0,
            Real::Float(x) => x != 0.0, // NaN != 0 is true
        }),
        TypeKind::SignedInteger | TypeKind::UnsignedInteger => {
            let i = match v {
                Real::Int(i) => i,
                Real::Float(x) => float_to_integer(ty, x),
            };
            ty.integer_to_bits(i).expect("integer")
        }
        TypeKind::Float => write_float(ty.float_format().expect("float"), v),
        TypeKind::Complex => unreachable!("complex targets are handled by convert"),
    }
}

/// Truncates toward zero and saturates to the type's range; NaN → 0.
fn float_to_integer(ty: ElementType, x: f64) -> i128 {
    let (lo, hi) = ty.integer_range().expect("integer");
    if x.is_nan() {
        return 0;
    }
    let t = x.trunc();
    if t <= lo as f64 {
        lo
    } else if t >= hi as f64 {
        // hi as f64 may round up (u64::MAX → 2^64); anything at or above it saturates.
        hi
    } else {
        t as i128
    }
}

/// Rounds an exact real value into a float format once.
fn write_float(fmt: FloatFormat, v: Real) -> u64 {
    let p = fmt.precision();
    let (value, ternary) = match v {
        Real::Int(i) => Float::with_val_round(p, Integer::from(i), Round::Nearest),
        Real::Float(x) => Float::with_val_round(p, x, Round::Nearest),
    };
    round_nearest_result(fmt, value, ternary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ElementType::*;

    fn f32b(x: f32) -> u128 {
        x.to_bits() as u128
    }

    #[test]
    fn seed_example_s32_to_f32() {
        // Seed 004: convert({0, 1, 2}: s32, f32) = {0.0, 1.0, 2.0}.
        for v in [0i32, 1, 2] {
            assert_eq!(convert(S32, F32, v as u32 as u128), f32b(v as f32));
        }
        // Round to nearest even: 2^24 + 1 → 2^24, 2^24 + 3 → 2^24 + 4.
        assert_eq!(convert(S32, F32, (1 << 24) + 1), f32b(16777216.0));
        assert_eq!(convert(S32, F32, (1 << 24) + 3), f32b(16777220.0));
        assert_eq!(
            convert(U64, F32, u64::MAX as u128),
            f32b(18446744073709551616.0)
        );
        assert_eq!(convert(S64, F16, 65520), 0x7c00); // overflow → inf
        assert_eq!(convert(S64, F16, 65519), 0x7bff);
        assert_eq!(convert(U8, F8E4M3FN, 255), 0x78); // 255 lies between 240 (0x77) and 256 (0x78)
        assert_eq!(convert(U8, F8E4M3FN, 247), 0x77);
    }

    #[test]
    fn float_to_int_truncates_and_saturates() {
        assert_eq!(convert(F32, S32, f32b(-2.7)), (-2i32) as u32 as u128);
        assert_eq!(convert(F32, S32, f32b(2.7)), 2);
        assert_eq!(convert(F32, S32, f32b(f32::NAN)), 0);
        assert_eq!(convert(F32, S32, f32b(1e10)), i32::MAX as u128);
        assert_eq!(
            convert(F32, S32, f32b(f32::NEG_INFINITY)),
            i32::MIN as u32 as u128
        );
        assert_eq!(convert(F32, U8, f32b(-1.0)), 0);
        assert_eq!(convert(F32, U8, f32b(255.9)), 255);
        assert_eq!(convert(F32, U8, f32b(256.0)), 255);
        assert_eq!(
            convert(F64, U64, 2f64.powi(64).to_bits() as u128),
            u64::MAX as u128
        );
        assert_eq!(
            convert(F64, U64, (2f64.powi(64) - 2048.0).to_bits() as u128),
            (u64::MAX - 2047) as u128
        );
        assert_eq!(
            convert(F64, S64, (-2f64.powi(63)).to_bits() as u128),
            i64::MIN as u64 as u128
        );
    }

    #[test]
    fn float_to_float() {
        assert_eq!(convert(F64, F32, 0.1f64.to_bits() as u128), f32b(0.1));
        assert_eq!(convert(F32, F16, f32b(65520.0)), 0x7c00);
        assert_eq!(convert(F32, F16, f32b(2f32.powi(-25))), 0); // tie → 0
        assert_eq!(convert(F32, F16, f32b(3.0 * 2f32.powi(-26))), 1);
        assert_eq!(convert(F32, F8E4M3FN, f32b(1e6)), 0x7f);
        assert_eq!(convert(F32, F8E4M3FN, f32b(f32::INFINITY)), 0x7f);
        assert_eq!(convert(F32, F8E4M3FN, f32b(-464.0)), 0xfe);
        assert_eq!(convert(F32, F8E5M2FNUZ, f32b(-0.0)), 0);
        assert_eq!(convert(F32, F8E5M2FNUZ, f32b(f32::NAN)), 0x80);
        assert_eq!(convert(F8E5M2FNUZ, F32, 0x80), f32b(f32::NAN));
        assert_eq!(convert(Bf16, F32, 0x3f80), f32b(1.0));
        assert_eq!(convert(F32, Bf16, f32b(1.0 + 2f32.powi(-8))), 0x3f80);
        assert_eq!(convert(F16, F8E5M2, 0x3c01), 0x3c); // 1 + 2^-10 → 1
    }

    #[test]
    fn pred_and_complex() {
        assert_eq!(convert(F32, Pred, f32b(-0.0)), 0);
        assert_eq!(convert(F32, Pred, f32b(f32::NAN)), 1);
        assert_eq!(convert(F32, Pred, f32b(1e-45)), 1);
        assert_eq!(convert(S8, Pred, 0x80), 1);
        assert_eq!(convert(Pred, F32, 1), f32b(1.0));
        assert_eq!(convert(Pred, S32, 1), 1);
        let c = |re: f32, im: f32| {
            complex_bits(FloatFormat::F32, re.to_bits() as u64, im.to_bits() as u64)
        };
        assert_eq!(convert(F32, C64, f32b(2.5)), c(2.5, 0.0));
        assert_eq!(convert(S32, C64, 3), c(3.0, 0.0));
        assert_eq!(convert(C64, F32, c(2.5, 7.0)), f32b(2.5));
        assert_eq!(convert(C64, S32, c(-2.5, 7.0)), (-2i32) as u32 as u128);
        assert_eq!(convert(C64, Pred, c(0.0, 7.0)), 0);
        let z = convert(C64, C128, c(0.1, -0.2));
        let (re, im) = complex_parts(FloatFormat::F64, z);
        assert_eq!(
            (f64::from_bits(re), f64::from_bits(im)),
            (0.1f32 as f64, -0.2f32 as f64)
        );
        let back = convert(C128, C64, z);
        assert_eq!(back, c(0.1, -0.2));
    }

    #[test]
    fn int_to_int_wraps() {
        assert_eq!(convert(S32, S8, 0x1ff), 0xff);
        assert_eq!(convert(S8, S32, 0xff), 0xffff_ffff);
        assert_eq!(convert(U8, S32, 0xff), 0xff);
        assert_eq!(convert(S64, U16, u64::MAX as u128), 0xffff);
        assert_eq!(convert(Pred, U8, 1), 1);
    }
}
