//! `iota` (seed 004, Iota): element `i` along `iota_dimension` holds the value `i` converted to the
//! element type (integers wrap to their width, floats round to nearest-even, complex numbers get
//! `i` as real part, pred is `i != 0` as `convert` would give).

use super::plan::{self, Plan};
use super::{bad, result_shape, Ctx};
use crate::value::Value;
use conformance_spec::element_type::TypeKind;
use conformance_spec::{BackendError, ElementType};

/// The bits of the value `i` in `ty` (see the module documentation).
pub(crate) fn iota_bits(ty: ElementType, i: i64) -> u128 {
    match ty.kind() {
        TypeKind::Pred => (i != 0) as u128,
        TypeKind::SignedInteger | TypeKind::UnsignedInteger => {
            let w = ty.bit_width();
            (i as u128) & ((1u128 << w) - 1)
        }
        _ => {
            let component = ty.complex_component().unwrap_or(ty);
            component
                .float_format()
                .map(|f| f.encode(i as f64) as u128)
                .unwrap_or(0)
        }
    }
}

/// HLO `iota`, `iota_dimension=d`. Errors: operands given, `d` out of range.
pub(super) fn iota<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(0)?;
    let result = result_shape(cx)?;
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
    super::build(result, cx.parallel(result.element_count()), |dst, par| {
        plan::execute(&p, result, dst, par)
    })
}
