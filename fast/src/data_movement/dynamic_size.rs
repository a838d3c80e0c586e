//! `get-dimension-size` and `set-dimension-size` (seed 004, GetDimensionSize/SetDimensionSize).
//!
//! `set-dimension-size` passes the operand through (same buffer, no copy) with the given runtime
//! size recorded for the dimension; the static shape keeps its bound. `get-dimension-size` returns
//! the runtime size when one was recorded along the value's path, else the dimension's size.

use super::{bad, result_shape, scalar_index, Ctx};
use crate::value::Value;
use conformance_spec::{ArrayShape, BackendError, ElementType};

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
            a.runtime_size(d).unwrap_or(a.dimensions()[d])
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
/// `size` (an `s32[]`, recorded as given) for dimension `d`. Errors: `d` out of range, a
/// result whose element type or dimension bounds differ from the operand's.
pub(super) fn set_dimension_size<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(2)?;
    let result: &ArrayShape = result_shape(cx)?;
    let size = scalar_index(cx, 1)?;
    match &cx.operands[0] {
        Value::Array(a) => {
            if !a.shape().compatible(result) {
                return Err(bad(format!(
                    "set-dimension-size of {} cannot give {result}",
                    a.shape()
                )));
            }
            let d = dimension(cx, result.rank())?;
            let mut sizes: Vec<i64> = (0..result.rank())
                .map(|k| a.runtime_size(k).unwrap_or(result.dimensions[k]))
                .collect();
            sizes[d] = size;
            let a = if a.shape().layout == result.layout {
                a.clone()
            } else {
                match super::relayout(
                    a,
                    &a.shape().clone().with_layout(result.layout.clone()),
                    cx.parallel(result.element_count()),
                )? {
                    Value::Array(r) => r,
                    _ => unreachable!("relayout gives an array"),
                }
            };
            Ok(Value::Array(a.with_runtime_sizes(result.clone(), sizes)))
        }
        Value::Splat { shape, bits } if shape.compatible(result) => Ok(Value::Splat {
            shape: result.clone(),
            bits: *bits,
        }),
        _ => Err(bad("set-dimension-size of a non-array")),
    }
}
