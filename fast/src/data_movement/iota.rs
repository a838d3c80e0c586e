//! `iota` (seed 004, Iota): element `i` along `iota_dimension` holds the value `i` converted to the
//! element type as `convert` from s64 does (integers wrap to their width, floats round to
//! nearest-even, complex numbers get `i` as real part). `pred` is not an iota type (XLA's HLO
//! verifier accepts integral, floating-point and complex types only): rejected as invalid.

use super::plan::{self, Plan};
use super::{bad, result_shape, Ctx};
use crate::elementwise::convert::convert_bits;
use crate::value::Value;
use conformance_spec::{BackendError, ElementType};

/// The bits of the value `i` in `ty`: `convert(s64 i)` through the backend's exact `convert`
/// (seed 004, Iota: floating-point iota is `ConvertElementType` of an integer iota).
pub(crate) fn iota_bits(ty: ElementType, i: i64) -> u128 {
    convert_bits(ElementType::S64, ty, i as u64 as u128)
}

/// HLO `iota`, `iota_dimension=d`. Errors: operands given, `d` out of range.
pub(super) fn iota<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(0)?;
    let result = result_shape(cx)?;
    if result.element_type.is_pred() {
        return Err(bad(
            "iota: pred is not an iota type (XLA's verifier accepts integral, floating-point and complex types)",
        ));
    }
    let d = cx
        .instr
        .attr_int("iota_dimension")
        .ok_or_else(|| bad("iota without iota_dimension"))?;
    if d < 0 || d as usize >= result.rank() {
        return Err(bad(format!("iota_dimension={d} out of range for {result}")));
    }
    let d = d as usize;
    let ty = result.element_type;
    let w = ty.byte_width();
    let n = result.dimensions[d];
    let mut values = Vec::with_capacity(n as usize * w);
    for i in 0..n {
        values.extend_from_slice(&iota_bits(ty, i).to_le_bytes()[..w]);
    }
    let mut strides = vec![0i64; result.rank()];
    strides[d] = 1;
    let p = Plan::strided(w, &values, &strides, result);
    super::build(result, cx.par(result.element_count()), |dst, par| {
        plan::execute(&p, result, dst, par)
    })
}
