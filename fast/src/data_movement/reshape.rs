//! `reshape` (seed 004, Reshape): the elements in logical row-major order, re-dimensioned.
//!
//! A reshape is a bitcast when both shapes keep their elements in row-major physical order without
//! padding: the result then shares the operand's buffer (no copy). Otherwise the operand is copied
//! into row-major order (if it is not already), viewed under the result's dimensions, and copied
//! into the result's layout.

use super::{array_operand, bad, result_shape, same_type, Ctx};
use crate::layout;
use crate::value::{ArrayRef, Value};
use conformance_spec::{ArrayShape, BackendError, Layout};

/// True when `s` stores its elements in logical row-major order with no padding.
pub(super) fn is_row_major(s: &ArrayShape) -> bool {
    !s.layout.is_padded()
        && layout::same_physical_layout(
            s,
            &s.clone().with_layout(Layout::default_for_rank(s.rank())),
        )
}

/// HLO `reshape`. Errors: element counts or types differ.
pub(super) fn reshape<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let a = array_operand(cx, 0)?;
    let result = result_shape(cx)?;
    same_type(a.shape(), result)?;
    if a.shape().element_count() != result.element_count() {
        return Err(bad(format!(
            "reshape of {} ({} elements) to {result} ({} elements)",
            a.shape(),
            a.shape().element_count(),
            result.element_count()
        )));
    }
    let parallel = cx.parallel(result.element_count());
    // The operand in row-major physical order.
    let row_major: ArrayRef<'a> = if is_row_major(a.shape()) {
        a
    } else {
        let target = a
            .shape()
            .clone()
            .with_layout(Layout::default_for_rank(a.shape().rank()));
        match super::relayout(&a, &target, parallel)? {
            Value::Array(r) => r,
            _ => unreachable!("relayout gives an array"),
        }
    };
    let flat = result
        .clone()
        .with_layout(Layout::default_for_rank(result.rank()));
    let view = row_major
        .view_as(flat)
        .ok_or_else(|| bad("reshape: physical sizes differ"))?;
    if is_row_major(result) {
        return Ok(Value::Array(
            view.view_as(result.clone()).expect("same size"),
        ));
    }
    super::relayout(&view, result, parallel)
}
