//! Quantization (NNEF 1.0.5 §4.9.5): direct rules for the compounds `min_max_linear_quantize`,
//! `linear_quantize`, `zero_point_linear_quantize` and `logarithmic_quantize`, emitting exactly
//! the operations of their definitions (with `clamp(x, a, b) = max(min(x, b), a)` built from
//! `select` as the standard's `min`/`max` are, and `round(x) = floor(x + 1/2)`), and the
//! fake quantization of tensors that `graph.quant` annotates ([`super::lower_quantized`]).
//!
//! With `r`, `p` attribute values computed from `bits`, `signed` and `symmetric`:
//! - min/max: `z = clamp(x, min, max)`, `q = round((z - min) / (max - min)·r) - p`,
//!   `y = (q + p) / r·(max - min) + min`, `r = 2^bits - 1 - (signed && symmetric)`,
//!   `p = signed ? 2^(bits-1) - symmetric : 0`;
//! - zero point: `s = round(x / scale) + zero_point`, `q = clamp(s, lo, r)`,
//!   `y = (q - zero_point)·scale`, `r = signed ? 2^(bits-1) - 1 : 2^bits - 1`,
//!   `lo = !signed ? 0 : symmetric ? -r : -r - 1`;
//! - logarithmic: `m = ceil(log2(max))`, `q = round(clamp(log2|x|, m - (2^bits - 1), m))`,
//!   `y = sign(x)·2^q`, `log2 t = log(t) / log(2)`.

use std::collections::BTreeMap;

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::Opcode;

use super::{attrs, elementwise, fail, At, Lowerer, Rule};
use crate::error::{NnefError, Span};
use crate::graph::{DataType, Operation, Value};

pub(super) const RULES: &[(&str, Rule)] = &[
    ("min_max_linear_quantize", |l, op| rule(l, op)),
    ("linear_quantize", |l, op| rule(l, op)),
    ("zero_point_linear_quantize", |l, op| rule(l, op)),
    ("logarithmic_quantize", |l, op| rule(l, op)),
];

const F32: ElementType = ElementType::F32;

/// `y = fragment(x, ...)` of a quantization operation in the graph.
fn rule(l: &mut Lowerer<'_>, op: &Operation) -> Result<(), NnefError> {
    let x = l.input(op, "x", DataType::Scalar)?;
    let out = l.result_dims(op, "y")?;
    let x = l.broadcast_to(op, x, &out)?;
    let y = l.quantize(op, x)?;
    l.bind(op, "y", y)
}

/// `2^e` for an attribute exponent (exact in f64 for the exponents quantization uses).
fn pow2(op: &Operation, e: i64) -> Result<f64, NnefError> {
    if !(0..=62).contains(&e) {
        return Err(fail(op, "'bits' must be between 1 and 62"));
    }
    Ok((1u64 << e) as f64)
}

impl Lowerer<'_> {
    /// The quantized value of `x` by `op` (one of the quantization fragments), its tensor
    /// arguments other than `x` broadcast to `x`'s extents.
    pub(super) fn quantize(&mut self, op: &Operation, x: usize) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        let tensor = |l: &mut Self, name: &str, dtype: DataType| -> Result<usize, NnefError> {
            let v = l.input(op, name, dtype)?;
            l.broadcast_to(op, v, &dims)
        };
        match op.name.as_str() {
            "min_max_linear_quantize" | "linear_quantize" => {
                let (signed, symmetric) = if op.name == "linear_quantize" {
                    (false, false)
                } else {
                    (
                        attrs::logical(op, "signed")?,
                        attrs::logical(op, "symmetric")?,
                    )
                };
                let bits = attrs::integer(op, "bits")?;
                let r = pow2(op, bits)? - 1.0 - f64::from(u8::from(signed && symmetric));
                let p = if signed {
                    pow2(op, bits - 1)? - f64::from(u8::from(symmetric))
                } else {
                    0.0
                };
                let min = tensor(self, "min", DataType::Scalar)?;
                let max = tensor(self, "max", DataType::Scalar)?;
                let z = self.nnef_clamp(op, x, min, max)?;
                let shifted = self.binary_op(op, Opcode::Subtract, z, min)?;
                let range = self.binary_op(op, Opcode::Subtract, max, min)?;
                let unit = self.binary_op(op, Opcode::Divide, shifted, range)?;
                let scaled = self.scaled(op, Opcode::Multiply, unit, r)?;
                let rounded = elementwise::round(self, op, scaled)?;
                let q = self.scaled(op, Opcode::Subtract, rounded, p)?;
                let back = self.scaled(op, Opcode::Add, q, p)?;
                let ratio = self.scaled(op, Opcode::Divide, back, r)?;
                let spread = self.binary_op(op, Opcode::Multiply, ratio, range)?;
                self.binary_op(op, Opcode::Add, spread, min)
            }
            "zero_point_linear_quantize" => {
                let (signed, symmetric) = (
                    attrs::logical(op, "signed")?,
                    attrs::logical(op, "symmetric")?,
                );
                let bits = attrs::integer(op, "bits")?;
                let r = if signed {
                    pow2(op, bits - 1)? - 1.0
                } else {
                    pow2(op, bits)? - 1.0
                };
                let lo = match (signed, symmetric) {
                    (false, _) => 0.0,
                    (true, true) => -r,
                    (true, false) => -r - 1.0,
                };
                let zero_point = tensor(self, "zero_point", DataType::Integer)?;
                let z = self.b.convert(zero_point, F32).at(op)?;
                let scale = tensor(self, "scale", DataType::Scalar)?;
                let d = self.binary_op(op, Opcode::Divide, x, scale)?;
                let rounded = elementwise::round(self, op, d)?;
                let s = self.binary_op(op, Opcode::Add, rounded, z)?;
                let low = self.full(op, F32, lo, &dims)?;
                let high = self.full(op, F32, r, &dims)?;
                let q = self.nnef_clamp(op, s, low, high)?;
                let centered = self.binary_op(op, Opcode::Subtract, q, z)?;
                self.binary_op(op, Opcode::Multiply, centered, scale)
            }
            "logarithmic_quantize" => {
                let bits = attrs::integer(op, "bits")?;
                let r = pow2(op, bits)? - 1.0;
                let max = tensor(self, "max", DataType::Scalar)?;
                let log2_max = self.log2(op, max)?;
                let m = self.b.unary(Opcode::Ceil, log2_max).at(op)?;
                let m_r = self.scaled(op, Opcode::Subtract, m, r)?;
                let a = self.b.unary(Opcode::Abs, x).at(op)?;
                let log2_a = self.log2(op, a)?;
                let c = self.nnef_clamp(op, log2_a, m_r, m)?;
                let q = elementwise::round(self, op, c)?;
                let two = self.full(op, F32, 2.0, &dims)?;
                let p = self.binary_op(op, Opcode::Power, two, q)?;
                let sign = self.b.unary(Opcode::Sign, x).at(op)?;
                self.binary_op(op, Opcode::Multiply, sign, p)
            }
            other => Err(fail(
                op,
                format!("'{other}' is not a quantization fragment of the standard"),
            )),
        }
    }

    fn binary_op(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        x: usize,
        y: usize,
    ) -> Result<usize, NnefError> {
        self.b.binary(opcode, x, y).at(op)
    }

    /// `opcode(x, c)` for an f32 constant `c`.
    fn scaled(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        x: usize,
        c: f64,
    ) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        let c = self.full(op, F32, c, &dims)?;
        self.b.binary(opcode, x, c).at(op)
    }

    /// `log(x) / log(2.0)` (the standard's `log2`).
    fn log2(&mut self, op: &Operation, x: usize) -> Result<usize, NnefError> {
        let dims = self.dims(x);
        let lx = self.b.unary(Opcode::Log, x).at(op)?;
        let two = self.full(op, F32, 2.0, &dims)?;
        let l2 = self.b.unary(Opcode::Log, two).at(op)?;
        self.b.binary(Opcode::Divide, lx, l2).at(op)
    }

    /// The standard's `clamp(x, a, b) = max(min(x, b), a)`, with `min(x, y) = select(x < y,
    /// x, y)` and `max(x, y) = select(x > y, x, y)` (so a NaN `x` gives `max(b, a)`).
    pub(super) fn nnef_clamp(
        &mut self,
        op: &Operation,
        x: usize,
        a: usize,
        b: usize,
    ) -> Result<usize, NnefError> {
        let below = self.b.compare(x, b, "LT", None).at(op)?;
        let low = self.b.select(below, x, b).at(op)?;
        let above = self.b.compare(low, a, "GT", None).at(op)?;
        self.b.select(above, low, a).at(op)
    }

    /// `x` quantized as tensor `tensor`'s `graph.quant` entry says (fragment and attributes);
    /// errors are reported at `span`.
    pub(super) fn quantize_tensor(
        &mut self,
        span: Span,
        tensor: &str,
        x: usize,
        quantization: &(String, BTreeMap<String, Value>),
    ) -> Result<usize, NnefError> {
        let (fragment, attributes) = quantization;
        let mut arguments = vec![("x".to_string(), Value::Tensor(tensor.to_string()))];
        arguments.extend(attributes.iter().map(|(k, v)| (k.clone(), v.clone())));
        let op = Operation {
            name: fragment.clone(),
            dtype: None,
            arguments,
            results: vec![],
            span,
            expansion: vec![],
        };
        if self.ety(x) != F32 {
            return Err(fail(
                &op,
                format!("tensor '{tensor}' is not a scalar tensor and cannot be quantized"),
            ));
        }
        self.quantize(&op, x)
    }
}
