//! Conversions between tensor files and literals (NNEF 1.0.5 §5.2.1, mapping data types to
//! item types): `scalar` ↔ float items (lowered to f32), `integer` ↔ signed/unsigned integer
//! items (lowered to s32), `logical` ↔ bool items (lowered to pred).

use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::layout::Layout;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;

use super::{data_error, same_shape, ItemType, TensorFile, MAX_RANK};
use crate::error::NnefError;
use crate::graph::DataType;

/// The smallest of the 8/16/32/64-bit types that holds `bits`-bit items.
fn integer_type(signed: bool, bits: u32) -> ElementType {
    use ElementType::*;
    match (signed, bits) {
        (true, 0..=8) => S8,
        (true, 9..=16) => S16,
        (true, 17..=32) => S32,
        (true, _) => S64,
        (false, 0..=8) => U8,
        (false, 9..=16) => U16,
        (false, 17..=32) => U32,
        (false, _) => U64,
    }
}

/// The bits of an IEEE binary16 value as binary32 (exact; NaN payloads kept).
fn f16_bits_to_f32_bits(h: u64) -> u32 {
    let h = h as u32;
    let sign = (h & 0x8000) << 16;
    let exponent = (h >> 10) & 0x1f;
    let mantissa = h & 0x3ff;
    if exponent == 0x1f {
        return sign | 0x7f80_0000 | (mantissa << 13);
    }
    let value = FloatFormat::F16.decode(u64::from(h & 0x7fff)) as f32;
    sign | value.to_bits()
}

fn dims_of(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&e| e as i64).collect()
}

fn literal_error(e: impl std::fmt::Display) -> NnefError {
    data_error(format!("cannot build the literal: {e}"))
}

impl TensorFile {
    /// The items as a literal of the element type that holds them exactly, in the file's shape
    /// (default layout): float items as f16/f32/f64; integer and quantized items (per
    /// [`TensorFile::resolved_item_type`]) as the smallest of s8..s64 / u8..u64 that holds
    /// `bits_per_item` bits (quantized items give their stored codes); bool items as pred.
    ///
    /// Errors ([`NnefError::data`]): a vendor item type, or a file that fails
    /// [`TensorFile::validate`].
    pub fn to_exact_literal(&self) -> Result<Literal, NnefError> {
        self.validate()?;
        let dims = dims_of(&self.shape);
        let bits = self.bits_per_item;
        let item_type = self.resolved_item_type();
        let element_type = match item_type {
            ItemType::Float => match bits {
                16 => ElementType::F16,
                32 => ElementType::F32,
                _ => ElementType::F64,
            },
            ItemType::Bool => ElementType::Pred,
            ItemType::Vendor { .. } => {
                return Err(data_error(format!(
                    "{} items cannot be interpreted",
                    item_type.name()
                )))
            }
            _ => integer_type(item_type.is_signed(), bits),
        };
        let shape = ArrayShape::new(element_type, dims);
        if element_type.bit_width() == bits && element_type != ElementType::Pred {
            // Same little-endian items, same row-major order: the data is the buffer.
            return ArrayLiteral::from_physical_bytes(shape, self.data.clone())
                .map(Literal::from)
                .map_err(literal_error);
        }
        let count = self.item_count();
        let values: Vec<i128> = if item_type == ItemType::Bool {
            (0..count).map(|i| i128::from(self.item(i) != 0)).collect()
        } else {
            (0..count).map(|i| self.integer_item(i)).collect()
        };
        ArrayLiteral::from_i128s(shape, &values)
            .map(Literal::from)
            .map_err(literal_error)
    }

    /// The tensor as a literal of the element type a graph tensor of `dtype` is lowered to, in
    /// the file's shape (default layout):
    /// - `scalar` → f32, from float items (binary16 and binary32 exactly; binary64 rounded to
    ///   nearest, ties to even, overflowing to ±inf);
    /// - `integer` → s32, from signed or unsigned integer items;
    /// - `logical` → pred, from bool items.
    ///
    /// Errors ([`NnefError::data`]): an item type that cannot hold `dtype` (NNEF 1.0.5 §5.2.1;
    /// quantized items need their quantization: use [`TensorFile::dequantize`]), an integer item
    /// outside the s32 range (the message names its index and value), or a file that fails
    /// [`TensorFile::validate`].
    pub fn to_literal(&self, dtype: DataType) -> Result<Literal, NnefError> {
        self.validate()?;
        let item_type = self.resolved_item_type();
        let shape = |ty| ArrayShape::new(ty, dims_of(&self.shape));
        let count = self.item_count();
        let wrong_type = || {
            let hint = if matches!(
                item_type,
                ItemType::QuantizedSigned | ItemType::QuantizedUnsigned
            ) {
                " (quantized items need their quantization from graph.quant: see TensorFile::dequantize)"
            } else {
                ""
            };
            data_error(format!(
                "{} items cannot hold a tensor of type {} (NNEF 1.0.5 §5.2.1){hint}",
                item_type.name(),
                dtype.name()
            ))
        };
        match dtype {
            DataType::Scalar => {
                if item_type != ItemType::Float {
                    return Err(wrong_type());
                }
                let bytes: Vec<u8> = match self.bits_per_item {
                    32 => self.data.clone(),
                    16 => (0..count)
                        .flat_map(|i| f16_bits_to_f32_bits(self.item(i)).to_le_bytes())
                        .collect(),
                    _ => (0..count)
                        .flat_map(|i| (f64::from_bits(self.item(i)) as f32).to_le_bytes())
                        .collect(),
                };
                ArrayLiteral::from_physical_bytes(shape(ElementType::F32), bytes)
                    .map(Literal::from)
                    .map_err(literal_error)
            }
            DataType::Integer => {
                if !matches!(item_type, ItemType::Signed | ItemType::Unsigned) {
                    return Err(wrong_type());
                }
                let mut bytes = Vec::with_capacity(count * 4);
                for i in 0..count {
                    let v = self.integer_item(i);
                    let v = i32::try_from(v).map_err(|_| {
                        data_error(format!(
                            "item {i} = {v} does not fit the s32 range of an integer tensor"
                        ))
                    })?;
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                ArrayLiteral::from_physical_bytes(shape(ElementType::S32), bytes)
                    .map(Literal::from)
                    .map_err(literal_error)
            }
            DataType::Logical => {
                if item_type != ItemType::Bool {
                    return Err(wrong_type());
                }
                let bytes: Vec<u8> = (0..count).map(|i| u8::from(self.item(i) != 0)).collect();
                ArrayLiteral::from_physical_bytes(shape(ElementType::Pred), bytes)
                    .map(Literal::from)
                    .map_err(literal_error)
            }
        }
    }

    /// [`TensorFile::to_literal`] in the graph's `shape` (elements), which must be the file's
    /// shape up to trailing extents of 1 (see [`super::same_shape`]).
    ///
    /// Errors: those of [`TensorFile::to_literal`], and a shape that differs.
    pub fn to_literal_with_shape(
        &self,
        dtype: DataType,
        shape: &[usize],
    ) -> Result<Literal, NnefError> {
        if !same_shape(&self.shape, shape) {
            return Err(data_error(format!(
                "the file holds a tensor of shape {:?}, the graph declares {shape:?}",
                self.shape
            )));
        }
        let literal = self.to_literal(dtype)?;
        reshape(literal, shape)
    }

    /// A tensor file holding a literal's logical values: f16/f32/f64 as float items of 16/32/64
    /// bits, s8..s64 as signed and u8..u64 as unsigned integer items of their width, pred as
    /// 1-bit bool items (as the Khronos tools write booleans). Any layout is accepted (items are
    /// written in row-major order); a dynamic value writes its logical array.
    ///
    /// Errors ([`NnefError::data`]): a tuple or token, rank above 8, or an element type with no
    /// NNEF item type (bf16, the f8 types, complex).
    pub fn from_literal(literal: &Literal) -> Result<TensorFile, NnefError> {
        let array = match literal {
            Literal::Array(a) => a.logical_array(),
            Literal::Tuple(_) => return Err(data_error("a tuple cannot be stored as a tensor")),
            Literal::Token => return Err(data_error("a token cannot be stored as a tensor")),
        };
        let rank = array.shape().rank();
        if rank > MAX_RANK {
            return Err(data_error(format!(
                "rank {rank} exceeds the maximum rank {MAX_RANK} of a tensor file"
            )));
        }
        let default = Layout::default_for_rank(rank);
        let array = if array.shape().layout == default {
            array
        } else {
            array.relayout(default)
        };
        let ty = array.element_type();
        let shape: Vec<usize> = array.dimensions().iter().map(|&d| d as usize).collect();
        let (item_type, bits) = match ty {
            ElementType::F16 | ElementType::F32 | ElementType::F64 => {
                (ItemType::Float, ty.bit_width())
            }
            t if t.is_signed_integer() => (ItemType::Signed, t.bit_width()),
            t if t.is_unsigned_integer() => (ItemType::Unsigned, t.bit_width()),
            ElementType::Pred => {
                let items: Vec<u64> = array.data().iter().map(|&b| u64::from(b != 0)).collect();
                return TensorFile::from_items(shape, ItemType::Bool, 1, &items);
            }
            t => {
                return Err(data_error(format!(
                    "element type {t} has no NNEF item type (float 16/32/64, integers, bool)"
                )))
            }
        };
        let file = TensorFile {
            shape,
            item_type,
            bits_per_item: bits,
            parameters: [0; 32],
            data: array.into_parts().1,
        };
        file.validate()?;
        Ok(file)
    }
}

/// The same row-major values with dimensions `shape` (same element count).
pub(crate) fn reshape(literal: Literal, shape: &[usize]) -> Result<Literal, NnefError> {
    let array = literal
        .into_array()
        .ok_or_else(|| data_error("expected an array literal"))?;
    let (old, data) = array.into_parts();
    let new = ArrayShape::new(old.element_type, dims_of(shape));
    ArrayLiteral::from_physical_bytes(new, data)
        .map(Literal::from)
        .map_err(literal_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_to_f32_is_exact_including_specials() {
        for h in 0..=0xffffu64 {
            let f = f32::from_bits(f16_bits_to_f32_bits(h));
            let d = FloatFormat::F16.decode(h);
            if d.is_nan() {
                assert!(f.is_nan());
                assert_eq!(f.to_bits() >> 13 & 0x3ff, (h & 0x3ff) as u32);
            } else {
                assert_eq!(f64::from(f).to_bits(), d.to_bits(), "h = {h:#x}");
            }
        }
    }

    #[test]
    fn integer_types_hold_their_widths() {
        assert_eq!(integer_type(true, 4), ElementType::S8);
        assert_eq!(integer_type(true, 12), ElementType::S16);
        assert_eq!(integer_type(false, 17), ElementType::U32);
        assert_eq!(integer_type(false, 64), ElementType::U64);
    }
}
