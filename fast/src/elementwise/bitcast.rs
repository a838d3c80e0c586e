//! `bitcast-convert` (seed 004, BitcastConvertType): reinterprets element bits, little-endian.
//!
//! Same width: the bytes are copied unchanged (in the result's layout). Different widths
//! (`B` bytes in, `B'` out): when narrowing, the result has a new most-minor (last) dimension of
//! size `B/B'` and element `k` of it holds bytes `[k·B', (k+1)·B')` of the input element; when
//! widening, the input's last dimension (of size `B'/B`) is folded into one element. In row-major
//! order both sides are the same byte string, so the operand is brought to row-major order, its
//! bytes reinterpreted, and the result laid out as its shape says.

use super::Ctx;
use crate::layout;
use crate::parallel::Exec;
use crate::value::ArrayData;
use conformance_spec::index;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::shape::slices_equal;
use conformance_spec::{ArrayShape, BackendError, Layout};
use std::borrow::Cow;

/// Same-width bitcast-convert.
pub(crate) fn evaluate(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 1 {
        return Err(BackendError::Invalid(format!(
            "bitcast-convert takes 1 operand, {} given",
            ctx.operands.len()
        )));
    }
    if ctx.in_type(0).bit_width() != ctx.out_type().bit_width() {
        return Err(BackendError::Invalid(
            "width-changing bitcast-convert needs the operand's shape".into(),
        ));
    }
    Ok(ctx.operands[0].to_bytes(ctx.n))
}

/// Width-changing bitcast-convert of `a` into `result`.
///
/// Errors: dimensions that do not follow seed 004's rule (a new or removed last dimension of size
/// `B/B'` or `B'/B`).
pub(crate) fn evaluate_width_changing(
    a: &impl ArrayData,
    result: &ArrayShape,
    exec: Exec,
) -> Result<ArrayLiteral, BackendError> {
    let (w_in, w_out) = (
        a.element_type().byte_width(),
        result.element_type.byte_width(),
    );
    let in_dims = a.dimensions();
    let expected: Vec<i64> = if w_in > w_out {
        let mut d = in_dims.to_vec();
        d.push((w_in / w_out) as i64);
        d
    } else {
        let k = (w_out / w_in) as i64;
        match in_dims.split_last() {
            Some((&last, rest)) if last == k => rest.to_vec(),
            _ => {
                return Err(BackendError::Invalid(format!(
                    "bitcast-convert {} -> {}: the operand's last dimension must be {k}",
                    a.shape(),
                    result
                )))
            }
        }
    };
    if !slices_equal(&result.dimensions, &expected) {
        return Err(BackendError::Invalid(format!(
            "bitcast-convert {} -> {result}: expected dimensions {expected:?}",
            a.shape()
        )));
    }
    let parallel = exec.parallel(a.shape().element_count());
    let row_major_in = a
        .shape()
        .clone()
        .with_layout(Layout::default_for_rank(in_dims.len()));
    let bytes: Cow<'_, [u8]> = if layout::same_physical_layout(a.shape(), &row_major_in) {
        Cow::Borrowed(a.data())
    } else {
        Cow::Owned(layout::relayout_bytes(a, &row_major_in, parallel))
    };
    let row_major_out = result
        .clone()
        .with_layout(Layout::default_for_rank(result.rank()));
    debug_assert_eq!(
        bytes.len(),
        index::physical_element_count(&row_major_out) * w_out
    );
    let out = ArrayLiteral::from_physical_bytes(row_major_out, bytes.into_owned())
        .map_err(|e| BackendError::Failure(format!("bitcast-convert: {e}")))?;
    if out.shape() == result {
        Ok(out)
    } else {
        Ok(layout::relayout(&out, &result.layout, parallel))
    }
}
