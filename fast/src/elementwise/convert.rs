//! `convert` (seed 004, ConvertElementType) between every pair of the 22 element types.
//!
//! Rules (XLA): integer → integer wraps (two's complement); int → float and float → float round
//! to nearest even once (overflow to ±inf, or NaN in formats without infinities, per
//! [`FloatFormat::encode`]); float → integer truncates toward zero, NaN → 0, out of range saturates
//! to the type's min/max; anything → PRED is `x != 0` (NaN → true); PRED → number is 0/1;
//! complex → any real type (PRED and integers included) converts the real part (XLA's shape
//! inference rejects these; this is the project's definition, shared with the reference);
//! real → complex has imaginary +0.

use super::narrow::Narrow;
use super::Ctx;
use crate::buffer::with_output;
use crate::parallel::{map1, map_bits};
use conformance_spec::element_type::TypeKind;
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::{BackendError, ElementType, FloatFormat};

/// A value in transit between element types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

/// Reads an element's bits as a value (floats decode exactly into f64).
pub fn read(ty: ElementType, bits: u128) -> Value {
    match ty.kind() {
        TypeKind::Pred | TypeKind::SignedInteger | TypeKind::UnsignedInteger => {
            Value::Int(ty.integer_from_bits(bits as u64).unwrap_or(0))
        }
        TypeKind::Float => Value::Float(decode(ty, bits as u64)),
        TypeKind::Complex => {
            let f = component(ty);
            let (re, im) = complex_parts(f, bits);
            Value::Complex(f.decode(re), f.decode(im))
        }
    }
}

fn component(ty: ElementType) -> FloatFormat {
    ty.float_format().unwrap_or(FloatFormat::F64)
}

fn decode(ty: ElementType, bits: u64) -> f64 {
    component(ty).decode(bits)
}

/// Rounds an integer once into a float format.
pub fn int_to_float(v: i128, f: FloatFormat) -> u64 {
    if f == FloatFormat::F32 {
        return (v as f32).to_bits() as u64;
    }
    if f == FloatFormat::F64 {
        return (v as f64).to_bits();
    }
    // Round to odd into 53 bits (exact below 2^53), then once to the narrow format: 53 ≥ p + 2, so
    // the result is the correctly rounded one.
    let a = v.unsigned_abs();
    let magnitude = if a < (1u128 << 53) {
        a as f64
    } else {
        let shift = 128 - a.leading_zeros() - 53;
        let mut m = a >> shift;
        if a & ((1u128 << shift) - 1) != 0 {
            m |= 1;
        }
        m as f64 * 2f64.powi(shift as i32)
    };
    f.encode(if v < 0 { -magnitude } else { magnitude })
}

/// Float → integer: truncation toward zero, NaN → 0, saturation at the type's range.
pub fn float_to_int(x: f64, ty: ElementType) -> u64 {
    let (lo, hi) = ty.integer_range().unwrap_or((0, 0));
    let v: i128 = if x.is_nan() {
        0
    } else if x <= lo as f64 {
        lo
    } else if x >= hi as f64 {
        hi
    } else {
        x.trunc() as i128
    };
    ty.integer_to_bits(v.clamp(lo, hi)).unwrap_or(0)
}

/// Writes a value into an element type (the rules in the module documentation).
pub fn write(ty: ElementType, v: Value) -> u128 {
    match ty.kind() {
        TypeKind::Pred => match v {
            Value::Int(i) => (i != 0) as u128,
            Value::Float(x) => (x != 0.0) as u128,
            Value::Complex(re, _) => (re != 0.0) as u128,
        },
        TypeKind::SignedInteger | TypeKind::UnsignedInteger => match v {
            Value::Int(i) => ty.integer_to_bits(i).unwrap_or(0) as u128,
            Value::Float(x) | Value::Complex(x, _) => float_to_int(x, ty) as u128,
        },
        TypeKind::Float => {
            let f = component(ty);
            (match v {
                Value::Int(i) => int_to_float(i, f),
                Value::Float(x) | Value::Complex(x, _) => f.encode(x),
            }) as u128
        }
        TypeKind::Complex => {
            let f = component(ty);
            let (re, im) = match v {
                Value::Int(i) => (int_to_float(i, f), 0),
                Value::Float(x) => (f.encode(x), 0),
                Value::Complex(re, im) => (f.encode(re), f.encode(im)),
            };
            complex_bits(f, re, im)
        }
    }
}

/// Converts one element's bits from one type to another.
pub fn convert_bits(from: ElementType, to: ElementType, bits: u128) -> u128 {
    write(to, read(from, bits))
}

/// Runs `convert`.
pub(crate) fn evaluate(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 1 {
        return Err(BackendError::Invalid(format!(
            "convert takes 1 operand, {} given",
            ctx.operands.len()
        )));
    }
    let (from, to) = (ctx.in_type(0), ctx.out_type());
    let (exec, n) = (ctx.exec, ctx.n);
    let a = &ctx.operands[0];
    use ElementType::*;
    Ok(match (from, to) {
        (F32, F64) => {
            let x = a.typed::<f32>();
            with_output::<f64>(n, |o| map1(exec, x.view(), o, |v| v as f64))
        }
        (F64, F32) => {
            let x = a.typed::<f64>();
            with_output::<f32>(n, |o| map1(exec, x.view(), o, |v| v as f32))
        }
        (F32, F16 | Bf16) => {
            let nw = Narrow::new(to).ok_or_else(|| ctx.unsupported_type())?;
            let x = a.typed::<f32>();
            with_output::<u16>(n, |o| map1(exec, x.view(), o, |v| nw.encode_f32(v) as u16))
        }
        (F16 | Bf16, F32) => {
            let nw = Narrow::new(from).ok_or_else(|| ctx.unsupported_type())?;
            let x = a.typed::<u16>();
            with_output::<f32>(n, |o| map1(exec, x.view(), o, |v| nw.decode_f32(v as u64)))
        }
        (S32, F32) => {
            let x = a.typed::<i32>();
            with_output::<f32>(n, |o| map1(exec, x.view(), o, |v| v as f32))
        }
        (F32, S32) => {
            // Rust's float → int casts truncate, saturate and map NaN to 0: XLA's rule.
            let x = a.typed::<f32>();
            with_output::<i32>(n, |o| map1(exec, x.view(), o, |v| v as i32))
        }
        _ => {
            let (w_in, w_out) = (from.byte_width(), to.byte_width());
            let input = a.bytes().ok_or(a.scalar().unwrap_or(0));
            let mut out = crate::alloc::zeroed(n * w_out);
            map_bits(exec.heavy(), input, w_in, &mut out, w_out, |b| {
                convert_bits(from, to, b)
            });
            out
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_to_narrow_float_rounds_once() {
        // 2^60 + 2^52 + 1 lies just above the bf16 midpoint 2^60 + 2^52: it must round up
        // (through f64 it would first round to the midpoint and then to even, down).
        let v: i128 = (1 << 60) + (1 << 52) + 1;
        let bf16 = FloatFormat::BF16;
        assert_eq!(
            bf16.decode(int_to_float(v, bf16)),
            (1u64 << 60) as f64 + (1u64 << 53) as f64
        );
        assert_eq!(
            int_to_float(-3, FloatFormat::F16),
            FloatFormat::F16.encode(-3.0)
        );
    }

    #[test]
    fn float_to_int_saturates_and_truncates() {
        assert_eq!(float_to_int(f64::NAN, ElementType::S8), 0);
        assert_eq!(float_to_int(1e10, ElementType::S8), 0x7f);
        assert_eq!(float_to_int(-1e10, ElementType::S8), 0x80);
        assert_eq!(float_to_int(-2.9, ElementType::S32), (-2i32) as u32 as u64);
        assert_eq!(float_to_int(-2.9, ElementType::U32), 0);
        assert_eq!(float_to_int(1e30, ElementType::U64), u64::MAX);
    }
}
