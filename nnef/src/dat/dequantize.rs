//! Dequantization of quantized tensor files: the real value each stored code stands for, from
//! the tensor's quantization in `graph.quant` (NNEF 1.0.5 §4.9.5 quantization fragments, §5.3
//! quantization file) or, deprecated, from the file header (§5.2).
//!
//! A stored code `q` is the integer result of a quantization fragment; its value is the
//! fragment's output `y` for that code:
//! - `min_max_linear_quantize(min, max, bits, signed, symmetric)` (and the deprecated
//!   `linear_quantize(min, max, bits)`, which has `signed = symmetric = false`):
//!   `y = (q + p) / r * (max - min) + min` with `r = 2^bits - 1 - [signed && symmetric]`,
//!   `p = 2^(bits-1) - [symmetric]` when signed, else 0;
//! - `zero_point_linear_quantize(zero_point, scale, bits, signed, symmetric)`:
//!   `y = (q - zero_point) * scale`;
//! - header parameters (deprecated): the all-zeros code is `min`, the all-ones code `max`,
//!   linearly between: `y = q / (2^bits - 1) * (max - min) + min` over the raw bits.
//!
//! `logarithmic_quantize` is not supported: NNEF does not define how its code is stored.
//! Tensor attributes (`min`, `max`, `scale`, `zero_point`) may be scalars or nested arrays
//! (per-channel values) broadcast against the tensor from the left (§5.3, §3.3.4).

use std::collections::BTreeMap;

use conformance_spec::element_type::ElementType;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;

use super::{data_error, ItemType, TensorFile};
use crate::error::NnefError;
use crate::graph::Value;

/// A constant tensor attribute of a quantization: a scalar (shape `[]`) or per-channel values
/// broadcast against the quantized tensor from the left.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizationParameter {
    /// Extents of the nested array literal, outermost first (empty for a single number).
    pub shape: Vec<usize>,
    /// The values in row-major order.
    pub values: Vec<f64>,
}

impl QuantizationParameter {
    /// A single value.
    pub fn scalar(value: f64) -> QuantizationParameter {
        QuantizationParameter {
            shape: Vec::new(),
            values: vec![value],
        }
    }

    /// The parameter of a number or a nested array of numbers with equal lengths along every
    /// dimension (NNEF 1.0.5 §5.3).
    ///
    /// Errors ([`NnefError::data`]): a non-numeric item or ragged nesting; `name` is the
    /// attribute's name, for the message.
    pub fn from_value(name: &str, value: &Value) -> Result<QuantizationParameter, NnefError> {
        let mut shape = Vec::new();
        let mut probe = value;
        while let Value::Array(items) = probe {
            shape.push(items.len());
            match items.first() {
                Some(first) => probe = first,
                None => break,
            }
        }
        let mut values = Vec::new();
        collect(name, value, &shape, &mut values)?;
        Ok(QuantizationParameter { shape, values })
    }

    /// The value for the tensor element at `index` (a multi-index into `tensor_shape`).
    fn at(&self, index: &[usize]) -> f64 {
        let mut linear = 0usize;
        for (d, &extent) in self.shape.iter().enumerate() {
            let i = if extent == 1 {
                0
            } else {
                index.get(d).copied().unwrap_or(0)
            };
            linear = linear * extent + i;
        }
        self.values[linear]
    }

    /// Checks that the parameter broadcasts against `tensor_shape` from the left: every extent
    /// is 1 or the tensor's extent in that dimension (1 beyond the tensor's rank).
    fn check_broadcast(&self, name: &str, tensor_shape: &[usize]) -> Result<(), NnefError> {
        for (d, &extent) in self.shape.iter().enumerate() {
            let t = tensor_shape.get(d).copied().unwrap_or(1);
            if extent != 1 && extent != t {
                return Err(data_error(format!(
                    "quantization attribute `{name}` of shape {:?} does not broadcast against the tensor shape {tensor_shape:?}",
                    self.shape
                )));
            }
        }
        Ok(())
    }
}

fn collect(
    name: &str,
    value: &Value,
    shape: &[usize],
    out: &mut Vec<f64>,
) -> Result<(), NnefError> {
    match (value, shape.split_first()) {
        (Value::Array(items), Some((&n, rest))) if items.len() == n => {
            for item in items {
                collect(name, item, rest, out)?;
            }
            Ok(())
        }
        (v, None) if v.as_scalar().is_some() => {
            out.push(v.as_scalar().unwrap_or_default());
            Ok(())
        }
        _ => Err(data_error(format!(
            "quantization attribute `{name}` must be a number or a nested array of numbers with equal lengths"
        ))),
    }
}

/// How the stored codes of a quantized tensor map to real values (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Quantization {
    /// `min_max_linear_quantize` / `linear_quantize`.
    MinMaxLinear {
        /// Value of the lowest code.
        min: QuantizationParameter,
        /// Value of the highest code.
        max: QuantizationParameter,
        /// Bits of the code (1 to 64).
        bits: u32,
        /// Codes are signed.
        signed: bool,
        /// The signed range is symmetric (the most negative code unused).
        symmetric: bool,
    },
    /// `zero_point_linear_quantize`.
    ZeroPointLinear {
        /// The code of the value 0.
        zero_point: QuantizationParameter,
        /// The value of one code step.
        scale: QuantizationParameter,
        /// Bits of the code (1 to 64).
        bits: u32,
        /// Codes are signed.
        signed: bool,
        /// The signed range is symmetric.
        symmetric: bool,
    },
    /// The deprecated header parameters: all-zeros bits → `min`, all-ones bits → `max`.
    Legacy {
        /// Value of the all-zeros item.
        min: f32,
        /// Value of the all-ones item.
        max: f32,
    },
}

impl Quantization {
    /// The quantization a `graph.quant` entry describes: the fragment name and its named
    /// attributes (NNEF 1.0.5 §5.3), e.g. `linear_quantize` with `min`, `max`, `bits`.
    ///
    /// Errors ([`NnefError::data`]): an unsupported fragment (supported: `linear_quantize`,
    /// `min_max_linear_quantize`, `zero_point_linear_quantize`), a missing attribute or one of
    /// the wrong type, or `bits` outside 1..=64.
    pub fn from_attributes(
        fragment: &str,
        attributes: &BTreeMap<String, Value>,
    ) -> Result<Quantization, NnefError> {
        let get = |name: &str| {
            attributes.get(name).ok_or_else(|| {
                data_error(format!(
                    "quantization `{fragment}` lacks the attribute `{name}`"
                ))
            })
        };
        let parameter = |name: &str| QuantizationParameter::from_value(name, get(name)?);
        let logical = |name: &str| {
            get(name)?.as_logical().ok_or_else(|| {
                data_error(format!(
                    "attribute `{name}` of `{fragment}` must be a logical"
                ))
            })
        };
        let bits = || {
            let b = get("bits")?.as_integer().ok_or_else(|| {
                data_error(format!(
                    "attribute `bits` of `{fragment}` must be an integer"
                ))
            })?;
            u32::try_from(b)
                .ok()
                .filter(|b| (1..=64).contains(b))
                .ok_or_else(|| {
                    data_error(format!(
                        "attribute `bits` of `{fragment}` is {b}, not in 1..=64"
                    ))
                })
        };
        match fragment {
            "linear_quantize" => Ok(Quantization::MinMaxLinear {
                min: parameter("min")?,
                max: parameter("max")?,
                bits: bits()?,
                signed: false,
                symmetric: false,
            }),
            "min_max_linear_quantize" => Ok(Quantization::MinMaxLinear {
                min: parameter("min")?,
                max: parameter("max")?,
                bits: bits()?,
                signed: logical("signed")?,
                symmetric: logical("symmetric")?,
            }),
            "zero_point_linear_quantize" => Ok(Quantization::ZeroPointLinear {
                zero_point: parameter("zero_point")?,
                scale: parameter("scale")?,
                bits: bits()?,
                signed: logical("signed")?,
                symmetric: logical("symmetric")?,
            }),
            other => Err(data_error(format!(
                "quantization `{other}` cannot be dequantized (supported: linear_quantize, min_max_linear_quantize, zero_point_linear_quantize)"
            ))),
        }
    }
}

fn pow2(bits: u32) -> f64 {
    2f64.powi(bits as i32)
}

impl TensorFile {
    /// The real values of a quantized file's codes as an f32 literal in the file's shape, per
    /// `quantization` (see the module docs; computed in f64, rounded once to f32). Codes are
    /// read as signed for [`ItemType::QuantizedSigned`] and unsigned for
    /// [`ItemType::QuantizedUnsigned`]; [`Quantization::Legacy`] uses the raw bits.
    ///
    /// Errors ([`NnefError::data`]): items that are not quantized, a parameter that does not
    /// broadcast against the shape, or a file that fails [`TensorFile::validate`].
    pub fn dequantize(&self, quantization: &Quantization) -> Result<Literal, NnefError> {
        self.validate()?;
        if !matches!(
            self.item_type,
            ItemType::QuantizedSigned | ItemType::QuantizedUnsigned
        ) {
            return Err(data_error(format!(
                "{} items are not quantized",
                self.item_type.name()
            )));
        }
        let count = self.item_count();
        let mut values = Vec::with_capacity(count);
        match quantization {
            Quantization::Legacy { min, max } => {
                let r = pow2(self.bits_per_item) - 1.0;
                let (min, max) = (f64::from(*min), f64::from(*max));
                for i in 0..count {
                    values.push(self.item(i) as f64 / r * (max - min) + min);
                }
            }
            Quantization::MinMaxLinear {
                min,
                max,
                bits,
                signed,
                symmetric,
            } => {
                min.check_broadcast("min", &self.shape)?;
                max.check_broadcast("max", &self.shape)?;
                let r = pow2(*bits) - 1.0 - f64::from(u8::from(*signed && *symmetric));
                let p = if *signed {
                    pow2(bits - 1) - f64::from(u8::from(*symmetric))
                } else {
                    0.0
                };
                self.for_each_code(|index, q| {
                    let (lo, hi) = (min.at(index), max.at(index));
                    values.push((q + p) / r * (hi - lo) + lo);
                });
            }
            Quantization::ZeroPointLinear {
                zero_point, scale, ..
            } => {
                zero_point.check_broadcast("zero_point", &self.shape)?;
                scale.check_broadcast("scale", &self.shape)?;
                self.for_each_code(|index, q| {
                    values.push((q - zero_point.at(index)) * scale.at(index));
                });
            }
        }
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect();
        let dims = self.shape.iter().map(|&e| e as i64).collect();
        ArrayLiteral::from_physical_bytes(ArrayShape::new(ElementType::F32, dims), bytes)
            .map(Literal::from)
            .map_err(|e| data_error(format!("cannot build the literal: {e}")))
    }

    /// Calls `f(multi_index, code)` for every item in row-major order.
    fn for_each_code(&self, mut f: impl FnMut(&[usize], f64)) {
        let mut index = vec![0usize; self.rank()];
        for i in 0..self.item_count() {
            f(&index, self.integer_item(i) as f64);
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < self.shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn values(lit: &Literal) -> Vec<f64> {
        lit.as_array().unwrap().to_f64s().unwrap()
    }

    #[test]
    fn linear_quantize_maps_code_range_onto_min_max() {
        let q = Quantization::from_attributes(
            "linear_quantize",
            &attrs(&[
                ("min", Value::Scalar(-1.0)),
                ("max", Value::Scalar(2.0)),
                ("bits", Value::Integer(8)),
            ]),
        )
        .unwrap();
        let file =
            TensorFile::from_items(vec![3], ItemType::QuantizedUnsigned, 8, &[0, 85, 255]).unwrap();
        assert_eq!(values(&file.dequantize(&q).unwrap()), vec![-1.0, 0.0, 2.0]);
    }

    #[test]
    fn signed_symmetric_min_max_uses_the_shifted_code() {
        // bits 8, signed, symmetric: r = 254, p = 127; codes -127..127 span min..max.
        let q = Quantization::from_attributes(
            "min_max_linear_quantize",
            &attrs(&[
                ("min", Value::Scalar(-1.0)),
                ("max", Value::Scalar(1.0)),
                ("bits", Value::Integer(8)),
                ("signed", Value::Logical(true)),
                ("symmetric", Value::Logical(true)),
            ]),
        )
        .unwrap();
        let codes = [(-127i64) as u8 as u64, 0, 127];
        let file = TensorFile::from_items(vec![3], ItemType::QuantizedSigned, 8, &codes).unwrap();
        assert_eq!(values(&file.dequantize(&q).unwrap()), vec![-1.0, 0.0, 1.0]);
    }

    #[test]
    fn zero_point_per_channel_broadcasts_from_the_left() {
        let per_channel = Value::Array(vec![Value::Array(vec![
            Value::Scalar(0.5),
            Value::Scalar(2.0),
        ])]);
        let q = Quantization::from_attributes(
            "zero_point_linear_quantize",
            &attrs(&[
                ("zero_point", Value::Integer(10)),
                ("scale", per_channel),
                ("bits", Value::Integer(8)),
                ("signed", Value::Logical(false)),
                ("symmetric", Value::Logical(false)),
            ]),
        )
        .unwrap();
        // Tensor [1, 2, 2]: channel 0 has scale 0.5, channel 1 scale 2.
        let file = TensorFile::from_items(
            vec![1, 2, 2],
            ItemType::QuantizedUnsigned,
            8,
            &[10, 12, 9, 13],
        )
        .unwrap();
        assert_eq!(
            values(&file.dequantize(&q).unwrap()),
            vec![0.0, 1.0, -2.0, 6.0]
        );
        // A per-channel parameter of 3 channels does not fit 2.
        let bad = QuantizationParameter {
            shape: vec![1, 3],
            values: vec![1.0; 3],
        };
        let q = Quantization::ZeroPointLinear {
            zero_point: QuantizationParameter::scalar(0.0),
            scale: bad,
            bits: 8,
            signed: false,
            symmetric: false,
        };
        assert!(file
            .dequantize(&q)
            .unwrap_err()
            .message
            .contains("broadcast"));
    }

    #[test]
    fn legacy_header_range_uses_raw_bits() {
        let mut file =
            TensorFile::from_items(vec![2], ItemType::QuantizedUnsigned, 4, &[0, 15]).unwrap();
        file.parameters[..4].copy_from_slice(&(-3f32).to_bits().to_le_bytes());
        file.parameters[4..8].copy_from_slice(&(3f32).to_bits().to_le_bytes());
        let (min, max) = file.legacy_quantization_range().unwrap();
        let lit = file.dequantize(&Quantization::Legacy { min, max }).unwrap();
        assert_eq!(values(&lit), vec![-3.0, 3.0]);
    }

    #[test]
    fn bad_quantizations_are_errors() {
        let e = Quantization::from_attributes("logarithmic_quantize", &BTreeMap::new());
        assert!(e.unwrap_err().message.contains("cannot be dequantized"));
        let e = Quantization::from_attributes(
            "linear_quantize",
            &attrs(&[("min", Value::Scalar(0.0)), ("max", Value::Scalar(1.0))]),
        );
        assert!(e
            .unwrap_err()
            .message
            .contains("lacks the attribute `bits`"));
        let e = Quantization::from_attributes(
            "linear_quantize",
            &attrs(&[
                ("min", Value::Scalar(0.0)),
                ("max", Value::String("x".into())),
                ("bits", Value::Integer(8)),
            ]),
        );
        assert!(e.is_err());
        let e = Quantization::from_attributes(
            "linear_quantize",
            &attrs(&[
                ("min", Value::Scalar(0.0)),
                ("max", Value::Scalar(1.0)),
                ("bits", Value::Integer(65)),
            ]),
        );
        assert!(e.unwrap_err().message.contains("not in 1..=64"));
        let ragged = Value::Array(vec![
            Value::Array(vec![Value::Scalar(1.0)]),
            Value::Array(vec![Value::Scalar(1.0), Value::Scalar(2.0)]),
        ]);
        assert!(QuantizationParameter::from_value("min", &ragged).is_err());
        let float = TensorFile::from_items(vec![1], ItemType::Float, 32, &[0]).unwrap();
        let q = Quantization::Legacy { min: 0.0, max: 1.0 };
        assert!(float
            .dequantize(&q)
            .unwrap_err()
            .message
            .contains("not quantized"));
    }
}
