//! The data-movement family of seed 004: broadcast, reshape, transpose, slice, dynamic-slice,
//! dynamic-update-slice, pad, concatenate, reverse, iota, gather, scatter, get-dimension-size and
//! set-dimension-size (`tuple`, `get-tuple-element` and `copy` are in the interpreter).
//!
//! Data movement moves element bits: every operation works on elements of 1, 2, 4, 8 or 16 bytes
//! whatever their type, so results are bit-exact (NaN payloads kept). Every layout is accepted for
//! operands, and results are written in the instruction's declared layout, padding positions
//! filled with the layout's padding value (seed 000). Copies go through the engine of [`plan`].

mod broadcast;
pub(crate) mod dynamic_size;
mod gather;
mod iota;
pub(crate) mod plan;
mod reshape;
mod scatter;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;
mod slicing;
pub(crate) mod transpose;

#[cfg(test)]
mod tests;

use crate::layout;
use crate::parallel::Par;
use crate::value::{ArrayRef, Value};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{index, ArrayShape, BackendError, Opcode};

pub(crate) use crate::op_context::Ctx;

/// True for the opcodes this module implements.
pub(crate) fn is_data_movement(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Broadcast
            | Reshape
            | Transpose
            | Slice
            | DynamicSlice
            | DynamicUpdateSlice
            | Pad
            | Concatenate
            | Reverse
            | Iota
            | Gather
            | Scatter
            | GetDimensionSize
            | SetDimensionSize
    )
}

/// Evaluates a data-movement instruction. Errors: [`BackendError::Invalid`] for malformed
/// instructions (operand counts, attributes, shapes that do not match the operation's rules).
pub(crate) fn evaluate<'a>(mut cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    use Opcode::*;
    // Moving a splat (a broadcast scalar) gives the same splat in the result's shape.
    if matches!(
        cx.instr.opcode,
        Broadcast | Reshape | Transpose | Slice | Reverse | DynamicSlice
    ) {
        if let Some(Value::Splat { shape, bits }) = cx.operands.first() {
            let result = result_shape(&cx)?;
            if shape.element_type != result.element_type {
                return Err(bad(format!(
                    "operand {shape} and result {result} element types differ"
                )));
            }
            return Ok(Value::Splat {
                shape: result.clone(),
                bits: *bits,
            });
        }
    }
    match cx.instr.opcode {
        Broadcast => broadcast::broadcast(&cx),
        Reshape => reshape::reshape(&cx),
        Transpose => transpose::transpose(&cx),
        Slice => slicing::slice(&cx),
        DynamicSlice => slicing::dynamic_slice(&cx),
        DynamicUpdateSlice => slicing::dynamic_update_slice(&mut cx),
        Pad => slicing::pad(&cx),
        Concatenate => slicing::concatenate(&cx),
        Reverse => slicing::reverse(&cx),
        Iota => iota::iota(&cx),
        Gather => gather::gather(&cx),
        Scatter => scatter::scatter(&mut cx),
        GetDimensionSize => dynamic_size::get_dimension_size(&cx),
        SetDimensionSize => dynamic_size::set_dimension_size(&cx),
        op => Err(BackendError::Unsupported(format!(
            "`{op}` is not a data-movement operation"
        ))),
    }
}

fn bad(msg: impl Into<String>) -> BackendError {
    BackendError::Invalid(msg.into())
}

/// The instruction's array shape, validated.
fn result_shape<'i>(cx: &Ctx<'_, 'i>) -> Result<&'i ArrayShape, BackendError> {
    let s = cx
        .instr
        .shape
        .as_array()
        .ok_or_else(|| bad(format!("{} must have an array shape", cx.instr.opcode)))?;
    s.validate()
        .map_err(|e| bad(format!("result shape {s}: {e}")))?;
    Ok(s)
}

/// Operand `i` as an array (a splat is materialized).
fn array_operand<'a>(cx: &Ctx<'_, 'a>, i: usize) -> Result<ArrayRef<'a>, BackendError> {
    match cx.operands.get(i) {
        Some(Value::Array(a)) => Ok(a.clone()),
        Some(Value::Splat { shape, bits }) => {
            match Value::owned(layout::splat(shape.clone(), *bits)?) {
                Value::Array(a) => Ok(a),
                _ => unreachable!("Value::owned is an array"),
            }
        }
        Some(_) => Err(bad(format!(
            "operand {i} of {} is not an array",
            cx.instr.opcode
        ))),
        None => Err(bad(format!("{} has no operand {i}", cx.instr.opcode))),
    }
}

/// The value of a scalar integer operand (a start index), read as its type's signed or unsigned
/// integer. Errors: not an integer scalar.
fn scalar_index(cx: &Ctx<'_, '_>, i: usize) -> Result<i64, BackendError> {
    let (ty, bits) = match cx.operands.get(i) {
        Some(Value::Splat { shape, bits }) if shape.rank() == 0 => (shape.element_type, *bits),
        Some(Value::Array(a)) if a.shape().rank() == 0 => (a.element_type(), a.get_bits_linear(0)),
        _ => return Err(bad(format!("operand {i} must be an integer scalar"))),
    };
    integer_value(ty, bits).ok_or_else(|| bad(format!("operand {i} has non-integer type {ty}")))
}

/// An integer element's value, saturated into `i64` (u64 values above `i64::MAX` clamp anyway).
fn integer_value(ty: conformance_spec::ElementType, bits: u128) -> Option<i64> {
    if !ty.is_integer() {
        return None;
    }
    let v = ty.integer_from_bits(bits as u64)?;
    Some(v.clamp(i64::MIN as i128, i64::MAX as i128) as i64)
}

/// True when viewing a buffer of shape `a` as shape `b` keeps padding positions valid: neither
/// layout is padded (padding values and widths then need no check).
fn same_padding_fill(a: &ArrayShape, b: &ArrayShape) -> bool {
    !a.layout.is_padded() && !b.layout.is_padded()
}

/// A zeroed physical buffer for `result`, filled by `f(buffer, par)`, its padding then set per
/// the layout, wrapped as a value.
fn build<'a>(
    result: &ArrayShape,
    par: Par,
    f: impl FnOnce(&mut [u8], Par),
) -> Result<Value<'a>, BackendError> {
    let bytes = index::physical_element_count(result) * result.element_type.byte_width();
    let mut data = crate::alloc::zeroed(bytes);
    f(&mut data, par);
    layout::fill_padding(result, &mut data);
    ArrayLiteral::from_physical_bytes(result.clone(), data)
        .map(Value::owned)
        .map_err(|e| BackendError::Failure(format!("result buffer: {e}")))
}

/// Checks that `result`'s element type is `a`'s.
fn same_type(a: &ArrayShape, result: &ArrayShape) -> Result<(), BackendError> {
    if a.element_type == result.element_type {
        Ok(())
    } else {
        Err(bad(format!(
            "operand {a} and result {result}: element types differ"
        )))
    }
}

/// `a`'s elements in the layout of `target` (same dimensions and element type), padding filled;
/// through the copy engine (tiled when the layouts transpose each other).
pub(crate) fn relayout<'a>(
    a: &ArrayRef<'_>,
    target: &ArrayShape,
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    let data = layout::relayout_raw(a.shape(), a.data(), target, parallel);
    ArrayLiteral::from_physical_bytes(target.clone(), data)
        .map(Value::owned)
        .map_err(|e| BackendError::Failure(format!("relayout: {e}")))
}
