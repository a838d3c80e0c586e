//! `broadcast` (seed 004, Broadcast and BroadcastInDim): operand dimension `i` becomes result
//! dimension `dimensions[i]`; the other result dimensions repeat the operand (source stride 0).

use super::plan::{self, Plan};
use super::{array_operand, result_shape, Ctx};
use crate::layout;
use crate::value::Value;
use conformance_spec::{index, BackendError};

/// HLO `broadcast`. A one-element operand gives a splat (not materialized). Errors: a
/// `dimensions=` that does not map the operand into the result (see [`layout::check_broadcast`]).
pub(super) fn broadcast<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let a = array_operand(cx, 0)?;
    let result = result_shape(cx)?;
    let dims = cx.instr.attr_ints("dimensions").unwrap_or(&[]);
    layout::check_broadcast(a.shape(), dims, result)?;
    if a.shape().element_count() == 1 {
        let bits = a.get_bits(&vec![0; a.shape().rank()]);
        return Ok(Value::Splat {
            shape: result.clone(),
            bits,
        });
    }
    let mut strides = vec![0i64; result.rank()];
    let src_strides = index::strides(a.shape());
    for (i, &d) in dims.iter().enumerate() {
        if a.dimensions()[i] != 1 {
            strides[d as usize] = src_strides[i];
        }
    }
    let p = Plan::strided(a.element_type().byte_width(), a.data(), &strides, result);
    super::build(result, cx.par(result.element_count()), |dst, par| {
        plan::execute(&p, result, dst, par)
    })
}
