//! The contraction family of seed 004 (issue 5): `dot` (dot-general), `convolution`, `reduce`,
//! `reduce-window` and `select-and-scatter`.
//!
//! Floating-point contractions run on GEMM kernels ([`gemm`]: the `gemm` crate's AVX-512 kernels
//! for f32, f64, c64 and c128, rayon-parallel) after the operands are mapped onto batched
//! matrices — with strides when the layout allows it, packed otherwise. Narrow floating-point
//! operands (bf16, f16, the f8 types) widen exactly to f32 and results round once into the result
//! type; f64 operands or results compute in f64. Integer contractions wrap (two's complement) in
//! 64-bit arithmetic, exact modulo the result width. Accuracy: every float result is within
//! `γ(n)·Σ|terms| + ½ ulp` of the exact sum (`n` the number of terms, `γ(n) = n·u/(1 − n·u)`, `u`
//! the unit roundoff of the accumulation type), the tolerance of issue 5.
//!
//! Reductions recognize `to_apply` computations whose root is `add`, `multiply`, `maximum`,
//! `minimum`, `and` or `or` of the two parameters and run them on typed, vectorized loops (f32
//! sums with an AVX-512 kernel); any other computation (and variadic reductions) is evaluated
//! element by element through the interpreter, in the canonical order (init first, then the
//! reduced elements in row-major order).

pub(crate) mod convolution;
pub(crate) mod dot;
mod elements;
pub(crate) mod gemm;
pub(crate) mod reduce;
mod reduce_window;
pub(crate) mod reducer;
mod select_and_scatter;
mod simd;
mod window;

use crate::layout;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::{HloComputation, HloInstruction};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{index, ArrayShape, BackendError, Layout, Opcode, Shape};

pub(crate) use crate::op_context::Ctx;

/// True for the opcodes this module implements.
pub(crate) fn is_contraction(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Dot
            | Opcode::Convolution
            | Opcode::Reduce
            | Opcode::ReduceWindow
            | Opcode::SelectAndScatter
    )
}

/// Evaluates a contraction instruction. Errors: [`BackendError::Invalid`] for malformed
/// instructions (operand counts, attributes, shapes that break the operation's rules);
/// [`BackendError::Unsupported`] for element types an operation does not accept (pred dots).
pub(crate) fn evaluate<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    match cx.instr.opcode {
        Opcode::Dot => dot::dot(&cx),
        Opcode::Convolution => convolution::convolution(&cx),
        Opcode::Reduce => reduce::reduce(&cx),
        Opcode::ReduceWindow => reduce_window::reduce_window(&cx),
        Opcode::SelectAndScatter => select_and_scatter::select_and_scatter(&cx),
        op => Err(BackendError::Unsupported(format!(
            "`{op}` is not a contraction"
        ))),
    }
}

fn bad(msg: impl Into<String>) -> BackendError {
    BackendError::Invalid(msg.into())
}

impl<'a> Ctx<'_, 'a> {
    /// Operand `i` as an array (a splat is materialized).
    pub(crate) fn array(&self, i: usize) -> Result<ArrayRef<'a>, BackendError> {
        match self.operands.get(i) {
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(Value::Splat { shape, bits }) => {
                match Value::owned(layout::splat(shape.clone(), *bits)?) {
                    Value::Array(a) => Ok(a),
                    _ => Err(BackendError::Failure("Value::owned is an array".into())),
                }
            }
            Some(_) => Err(bad(format!(
                "operand {i} of {} is not an array",
                self.instr.opcode
            ))),
            None => Err(bad(format!("{} has no operand {i}", self.instr.opcode))),
        }
    }

    /// The N arrays and the N init values' (element type, bits) of a variadic reduction
    /// (`reduce`, `reduce-window`), whose operands are `(arrays[0..N], init_values[0..N])`.
    /// Errors: [`BackendError::Invalid`] for an odd or zero operand count, an array operand that
    /// is not an array or an init value that is not a scalar.
    #[allow(clippy::type_complexity)]
    fn reduction_inputs(
        &self,
    ) -> Result<
        (
            Vec<ArrayRef<'a>>,
            Vec<(conformance_spec::ElementType, u128)>,
        ),
        BackendError,
    > {
        let k = self.operands.len();
        if k == 0 || !k.is_multiple_of(2) {
            return Err(bad(format!(
                "{} takes 2N operands, {k} given",
                self.instr.opcode
            )));
        }
        let n = k / 2;
        let arrays = (0..n).map(|i| self.array(i)).collect::<Result<_, _>>()?;
        let inits = (n..k).map(|i| self.scalar(i)).collect::<Result<_, _>>()?;
        Ok((arrays, inits))
    }

    /// The N result shapes of a variadic reduction: the instruction's array shape for N = 1, the
    /// arrays of its tuple shape otherwise. Errors: [`BackendError::Invalid`] for any other shape.
    fn reduction_results(&self, n: usize) -> Result<Vec<&'a ArrayShape>, BackendError> {
        let op = self.instr.opcode;
        match &self.instr.shape {
            Shape::Array(s) if n == 1 => Ok(vec![s]),
            Shape::Tuple(t) if t.len() == n => t
                .iter()
                .map(|s| {
                    s.as_array()
                        .ok_or_else(|| bad(format!("{op} result tuple of non-arrays")))
                })
                .collect(),
            s => Err(bad(format!("{op} of {n} operands cannot have shape {s}"))),
        }
    }

    /// Operand `i` as a scalar's raw bits.
    pub(crate) fn scalar(
        &self,
        i: usize,
    ) -> Result<(conformance_spec::ElementType, u128), BackendError> {
        match self.operands.get(i) {
            Some(Value::Splat { shape, bits }) if shape.rank() == 0 => {
                Ok((shape.element_type, *bits))
            }
            Some(Value::Array(a)) if a.shape().rank() == 0 => {
                Ok((a.element_type(), a.get_bits_linear(0)))
            }
            _ => Err(bad(format!(
                "operand {i} of {} must be a scalar",
                self.instr.opcode
            ))),
        }
    }

    /// The called computation named by attribute `name`.
    pub(crate) fn computation(&self, name: &str) -> Result<&'a HloComputation, BackendError> {
        let callee = match self.instr.attribute(name) {
            Some(conformance_spec::hlo::AttrValue::Computation(c)) => c.as_str(),
            _ => return Err(bad(format!("{} without `{name}`", self.instr.opcode))),
        };
        self.module
            .computation(callee)
            .ok_or_else(|| bad(format!("unknown computation `{callee}`")))
    }
}

/// The instruction's array shape, validated.
fn result_shape(instr: &HloInstruction) -> Result<&ArrayShape, BackendError> {
    let s = instr
        .shape
        .as_array()
        .ok_or_else(|| bad(format!("{} must have an array shape", instr.opcode)))?;
    s.validate()
        .map_err(|e| bad(format!("result shape {s}: {e}")))?;
    Ok(s)
}

/// A row-major buffer of `dims` (raw bytes of `result`'s element type) placed in `result`'s layout,
/// padding filled, as a value. Errors: the buffer size does not match (a bug: `Failure`).
fn finish_row_major<'a>(
    result: &ArrayShape,
    bytes: Vec<u8>,
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    let row_major = ArrayShape::new(result.element_type, result.dimensions.clone())
        .with_layout(Layout::default_for_rank(result.rank()));
    finish_in_layout(result, &row_major, bytes, parallel)
}

/// A buffer laid out as `have` (same dimensions and element type as `result`) placed in `result`'s
/// layout (no copy when the physical layouts agree).
pub(crate) fn finish_in_layout<'a>(
    result: &ArrayShape,
    have: &ArrayShape,
    bytes: Vec<u8>,
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    let data = if layout::same_physical_layout(have, result)
        && !result.layout.is_padded()
        && !have.layout.is_padded()
    {
        bytes
    } else {
        layout::relayout_raw(have, &bytes, result, parallel)
    };
    if data.len() != index::physical_element_count(result) * result.element_type.byte_width() {
        return Err(BackendError::Failure(format!(
            "result buffer of {} bytes for {result}",
            data.len()
        )));
    }
    ArrayLiteral::from_physical_bytes(result.clone(), data)
        .map(Value::owned)
        .map_err(|e| BackendError::Failure(format!("result buffer: {e}")))
}

#[cfg(test)]
mod tests;
