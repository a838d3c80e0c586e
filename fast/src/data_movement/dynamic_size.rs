//! `get-dimension-size` and `set-dimension-size` (seed 004, GetDimensionSize/SetDimensionSize).
//!
//! `set-dimension-size` passes the operand through (same buffer, no copy) with the given runtime
//! size recorded for the dimension; the static shape keeps its bound. `get-dimension-size` returns
//! the value's runtime size. Every other operation on a dynamic value acts on its logical array
//! ([`conformance_spec::dynamic_dimensions`]): the interpreter cuts the operands to
//! [`leading_block`]s, runs the static kernel, and puts the result back with [`embed`].

use super::plan::{self, DimMap, Plan};
use super::{bad, result_shape, scalar_index, Ctx};
use crate::parallel::Par;
use crate::value::{ArrayRef, Value};
use conformance_spec::{index, ArrayShape, BackendError, ElementType};

/// The elements of `a` at indices below `dims` (one per dimension, at most its size), as a new
/// static array in `a`'s layout (through the copy engine).
///
/// Errors: [`BackendError::Invalid`] when `dims` does not fit `a`.
pub(crate) fn leading_block<'a>(
    a: &ArrayRef<'_>,
    dims: &[i64],
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    if dims.len() != a.dimensions().len()
        || dims
            .iter()
            .zip(a.dimensions())
            .any(|(&n, &d)| n < 0 || n > d)
    {
        return Err(bad(format!(
            "runtime sizes {dims:?} do not fit {}",
            a.shape()
        )));
    }
    let mut result = a.shape().clone();
    result.dimensions = dims.to_vec();
    result.dynamic_dimensions = vec![false; dims.len()];
    let p = origin_plan(a, dims);
    super::build(&result, Par::flag(parallel), |dst, par| {
        plan::execute(&p, &result, dst, par)
    })
}

/// A copy of the box `[0, hi)` of `a`, to the same indices of the result.
fn origin_plan<'s>(a: &'s ArrayRef<'_>, hi: &[i64]) -> Plan<'s> {
    Plan {
        width: a.element_type().byte_width(),
        src: a.data(),
        base: 0,
        maps: index::strides(a.shape())
            .iter()
            .map(|&stride| DimMap::Affine { start: 0, stride })
            .collect(),
        fill: 0,
        gather: None,
        lo: vec![0; hi.len()],
        hi: hi.to_vec(),
    }
}

/// `a` (static) at the origin of a new array of shape `bound` (zero elsewhere), with `a`'s
/// dimensions as its runtime sizes.
///
/// Errors: [`BackendError::Invalid`] when the element type or rank differs or `a` exceeds the bound.
pub(crate) fn embed<'a>(
    a: &ArrayRef<'_>,
    bound: &ArrayShape,
    parallel: bool,
) -> Result<ArrayRef<'a>, BackendError> {
    let dims = a.dimensions().to_vec();
    if a.element_type() != bound.element_type
        || dims.len() != bound.rank()
        || dims.iter().zip(&bound.dimensions).any(|(&n, &b)| n > b)
    {
        return Err(bad(format!(
            "the logical result {} does not fit the declared shape {bound}",
            a.shape()
        )));
    }
    let p = origin_plan(a, &dims);
    match super::build(bound, Par::flag(parallel), |dst, par| {
        plan::execute(&p, bound, dst, par)
    })? {
        Value::Array(r) => Ok(r.with_runtime_sizes(bound.clone(), dims)),
        _ => Err(BackendError::Failure("build gives an array".into())),
    }
}

fn dimension(cx: &Ctx<'_, '_>, rank: usize) -> Result<usize, BackendError> {
    match cx.instr.attr_ints("dimensions") {
        Some([d]) if *d >= 0 && (*d as usize) < rank => Ok(*d as usize),
        _ => match cx.instr.attr_int("dimension") {
            Some(d) if d >= 0 && (d as usize) < rank => Ok(d as usize),
            _ => Err(bad(format!(
                "{} needs dimensions={{d}} with d < {rank}",
                cx.instr.opcode
            ))),
        },
    }
}

/// HLO `get-dimension-size(operand)`, `dimensions={d}`: an `s32[]` scalar. Errors: `d` out of
/// range, a result shape other than `s32[]`.
pub(super) fn get_dimension_size<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let result = result_shape(cx)?;
    if result.element_type != ElementType::S32 || result.rank() != 0 {
        return Err(bad(format!(
            "get-dimension-size must return s32[], not {result}"
        )));
    }
    let size = match &cx.operands[0] {
        Value::Array(a) => {
            let d = dimension(cx, a.shape().rank())?;
            a.logical_dimensions()[d]
        }
        Value::Splat { shape, .. } => shape.dimensions[dimension(cx, shape.rank())?],
        _ => return Err(bad("get-dimension-size of a non-array")),
    };
    Ok(Value::Splat {
        shape: result.clone(),
        bits: (size as i32 as u32) as u128,
    })
}

/// HLO `set-dimension-size(operand, size)`, `dimensions={d}`: the operand, with runtime size
/// `size` (an integer scalar) for dimension `d`, replacing any earlier one. Errors: `d` out of
/// range, `size` outside `[0, bound]`, a result whose element type or dimension bounds differ
/// from the operand's.
pub(super) fn set_dimension_size<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(2)?;
    let result: &ArrayShape = result_shape(cx)?;
    let size = scalar_index(cx, 1)?;
    let d = dimension(cx, result.rank())?;
    if !(0..=result.dimensions[d]).contains(&size) {
        return Err(bad(format!(
            "set-dimension-size: size {size} of dimension {d} is outside [0, {}]",
            result.dimensions[d]
        )));
    }
    let a = match &cx.operands[0] {
        Value::Array(a) if a.shape().compatible(result) => a.clone(),
        Value::Splat { shape, bits } if shape.compatible(result) => {
            match Value::owned(crate::layout::splat(result.clone(), *bits)?) {
                Value::Array(a) => a,
                _ => return Err(BackendError::Failure("owned gives an array".into())),
            }
        }
        Value::Array(_) | Value::Splat { .. } => {
            return Err(bad(format!(
                "set-dimension-size of {:?} cannot give {result}",
                cx.operands[0].array_shape().map(ToString::to_string)
            )))
        }
        _ => return Err(bad("set-dimension-size of a non-array")),
    };
    let mut sizes = a.logical_dimensions().to_vec();
    sizes[d] = size;
    let a = if a.shape().layout == result.layout {
        a
    } else {
        match super::relayout(
            &a,
            &a.shape().clone().with_layout(result.layout.clone()),
            cx.parallel(result.element_count()),
        )? {
            Value::Array(r) => r,
            _ => return Err(BackendError::Failure("relayout gives an array".into())),
        }
    };
    Ok(Value::Array(a.with_runtime_sizes(result.clone(), sizes)))
}
