//! Element conversions between stored formats and the arithmetic types the kernels compute in:
//! floats widen exactly (every format fits in f32 except f64), results round once into the result
//! type (round to nearest, ties to even; seed 000 formats), integers sign- or zero-extend to 64
//! bits and wrap back to the result width (two's complement).

use conformance_spec::{ArrayShape, BackendError, ElementType};
use num_complex::{Complex32, Complex64};

/// A type the contraction kernels compute in.
pub(crate) trait Arith: Copy + Default + Send + Sync + 'static {
    /// The value of an element of type `ty` with raw bits `bits` (exact: callers pick an
    /// arithmetic type wide enough for `ty`).
    fn from_element(ty: ElementType, bits: u128) -> Self;
    /// The element of type `ty` nearest to `self` (round to nearest even; integers wrap).
    fn to_element(self, ty: ElementType) -> u128;
}

fn float_value(ty: ElementType, bits: u128) -> f64 {
    match ty.float_format() {
        Some(f) => f.decode(bits as u64),
        None => match ty.integer_from_bits(bits as u64) {
            Some(v) => v as f64,
            None => (bits & 1) as f64,
        },
    }
}

fn float_element(ty: ElementType, x: f64) -> u128 {
    match ty.float_format() {
        Some(f) => f.encode(x) as u128,
        None if ty.is_integer() || ty.is_pred() => i64_element(ty, x as i64),
        None => x.to_bits() as u128,
    }
}

fn i64_element(ty: ElementType, v: i64) -> u128 {
    if ty.is_pred() {
        return (v != 0) as u128;
    }
    let w = ty.bit_width();
    let bits = v as u64 as u128;
    if w >= 64 {
        bits & (u64::MAX as u128)
    } else {
        bits & ((1u128 << w) - 1)
    }
}

impl Arith for f32 {
    fn from_element(ty: ElementType, bits: u128) -> f32 {
        if ty == ElementType::F32 {
            f32::from_bits(bits as u32)
        } else {
            float_value(ty, bits) as f32
        }
    }
    fn to_element(self, ty: ElementType) -> u128 {
        match ty {
            ElementType::F32 => self.to_bits() as u128,
            ElementType::C64 => self.to_bits() as u128,
            _ => float_element(ty, self as f64),
        }
    }
}

impl Arith for f64 {
    fn from_element(ty: ElementType, bits: u128) -> f64 {
        float_value(ty, bits)
    }
    fn to_element(self, ty: ElementType) -> u128 {
        match ty {
            ElementType::C64 => (self as f32).to_bits() as u128,
            ElementType::C128 => self.to_bits() as u128,
            _ => float_element(ty, self),
        }
    }
}

impl Arith for Complex32 {
    fn from_element(ty: ElementType, bits: u128) -> Complex32 {
        match ty {
            ElementType::C64 => Complex32::new(
                f32::from_bits(bits as u32),
                f32::from_bits((bits >> 32) as u32),
            ),
            ElementType::C128 => Complex32::new(
                f64::from_bits(bits as u64) as f32,
                f64::from_bits((bits >> 64) as u64) as f32,
            ),
            _ => Complex32::new(f32::from_element(ty, bits), 0.0),
        }
    }
    fn to_element(self, ty: ElementType) -> u128 {
        match ty {
            ElementType::C64 => self.re.to_bits() as u128 | (self.im.to_bits() as u128) << 32,
            ElementType::C128 => {
                (self.re as f64).to_bits() as u128 | ((self.im as f64).to_bits() as u128) << 64
            }
            _ => self.re.to_element(ty),
        }
    }
}

impl Arith for Complex64 {
    fn from_element(ty: ElementType, bits: u128) -> Complex64 {
        match ty {
            ElementType::C64 => Complex64::new(
                f32::from_bits(bits as u32) as f64,
                f32::from_bits((bits >> 32) as u32) as f64,
            ),
            ElementType::C128 => Complex64::new(
                f64::from_bits(bits as u64),
                f64::from_bits((bits >> 64) as u64),
            ),
            _ => Complex64::new(f64::from_element(ty, bits), 0.0),
        }
    }
    fn to_element(self, ty: ElementType) -> u128 {
        match ty {
            ElementType::C64 => {
                (self.re as f32).to_bits() as u128 | ((self.im as f32).to_bits() as u128) << 32
            }
            ElementType::C128 => self.re.to_bits() as u128 | (self.im.to_bits() as u128) << 64,
            _ => self.re.to_element(ty),
        }
    }
}

impl Arith for i64 {
    fn from_element(ty: ElementType, bits: u128) -> i64 {
        if ty.is_pred() {
            return (bits & 1) as i64;
        }
        match ty.integer_from_bits(bits as u64) {
            Some(v) => v as i64,
            None => float_value(ty, bits) as i64,
        }
    }
    fn to_element(self, ty: ElementType) -> u128 {
        if ty.is_floating() {
            float_element(ty, self as f64)
        } else {
            i64_element(ty, self)
        }
    }
}

/// Raw bits of the element at byte offset `at` (element width `w`).
#[inline]
pub(crate) fn read_bits(data: &[u8], at: usize, w: usize) -> u128 {
    let mut b = [0u8; 16];
    b[..w].copy_from_slice(&data[at..at + w]);
    u128::from_le_bytes(b)
}

/// The elements of `data` (laid out as `shape`) in the row-major order of `order` (operand
/// dimensions, major to minor; every dimension once), converted to `T`.
pub(crate) fn pack<T: Arith>(shape: &ArrayShape, data: &[u8], order: &[usize]) -> Vec<T> {
    let ty = shape.element_type;
    let w = ty.byte_width();
    let strides = conformance_spec::index::strides(shape);
    let sizes: Vec<usize> = order
        .iter()
        .map(|&d| shape.dimensions[d] as usize)
        .collect();
    let st: Vec<usize> = order.iter().map(|&d| strides[d] as usize).collect();
    let total: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(total);
    if total == 0 {
        return out;
    }
    if order.is_empty() {
        out.push(T::from_element(ty, read_bits(data, 0, w)));
        return out;
    }
    let r = order.len();
    let (inner, inner_stride) = (sizes[r - 1], st[r - 1]);
    let mut idx = vec![0usize; r - 1];
    loop {
        let base: usize = idx.iter().zip(&st).map(|(i, s)| i * s).sum();
        if ty == ElementType::F32 && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
            for j in 0..inner {
                let at = (base + j * inner_stride) * 4;
                let v = f32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
                out.push(T::from_element(ty, v.to_bits() as u128));
            }
        } else {
            for j in 0..inner {
                out.push(T::from_element(
                    ty,
                    read_bits(data, (base + j * inner_stride) * w, w),
                ));
            }
        }
        if !advance(&mut idx, &sizes[..r - 1]) {
            break;
        }
    }
    out
}

/// Odometer step of a row-major multi-index; false after the last index.
#[inline]
pub(crate) fn advance(idx: &mut [usize], sizes: &[usize]) -> bool {
    for d in (0..idx.len()).rev() {
        idx[d] += 1;
        if idx[d] < sizes[d] {
            return true;
        }
        idx[d] = 0;
    }
    false
}

/// Converts computed values into raw little-endian bytes of `ty`.
pub(crate) fn to_bytes<T: Arith>(values: &[T], ty: ElementType) -> Vec<u8> {
    let w = ty.byte_width();
    let mut out = crate::alloc::zeroed(values.len() * w);
    if ty == ElementType::F32 && std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>() {
        for (o, v) in out.chunks_exact_mut(4).zip(values) {
            o.copy_from_slice(&(v.to_element(ty) as u32).to_le_bytes());
        }
        return out;
    }
    for (o, v) in out.chunks_exact_mut(w).zip(values) {
        o.copy_from_slice(&v.to_element(ty).to_le_bytes()[..w]);
    }
    out
}

/// The arithmetic a dot or convolution with operands of type `operand` and result `result` runs
/// in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Domain {
    F32,
    F64,
    C32,
    C64,
    Int,
}

/// Picks the arithmetic: f64 when either type is f64 (or c128), f32 for the other floats
/// (exact widening of bf16, f16 and the f8 types), complex when either is complex, 64-bit
/// wrapping integers for integer operands. Errors: pred operands ([`BackendError::Unsupported`]).
pub(crate) fn domain(operand: ElementType, result: ElementType) -> Result<Domain, BackendError> {
    use ElementType::*;
    if operand.is_pred() {
        return Err(BackendError::Unsupported(
            "pred operands of a contraction".into(),
        ));
    }
    Ok(if operand.is_complex() || result.is_complex() {
        if operand == C128 || result == C128 || operand == F64 {
            Domain::C64
        } else {
            Domain::C32
        }
    } else if operand.is_integer() {
        if result.is_floating() {
            Domain::F64
        } else {
            Domain::Int
        }
    } else if operand == F64 || result == F64 || result.is_integer() {
        Domain::F64
    } else {
        Domain::F32
    })
}

/// Rejects operands of different element types (seed 004: both operands share one type).
pub(crate) fn same_operand_types(a: &ArrayShape, b: &ArrayShape) -> Result<(), BackendError> {
    if a.element_type == b.element_type {
        Ok(())
    } else {
        Err(BackendError::Invalid(format!(
            "operands {a} and {b} have different element types"
        )))
    }
}
