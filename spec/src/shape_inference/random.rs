//! Shape rules of the random-number operations (seed 004, RngBitGenerator, RngUniform,
//! RngNormal; `spec/ops/random.yaml`).

use super::rules::Rules;
use super::{InferenceContext, ShapeInferenceError};
use crate::random::{bit_generator_output_type, RngAlgorithm};
use crate::shape::Shape;

/// `rng(a, b)`, `distribution=rng_uniform|rng_normal` (seed 004, RngUniform, RngNormal): `a` and
/// `b` (or `μ` and `σ`) are scalars of the declared result's element type (context `given`);
/// uniform takes pred, integer and real floating-point types, normal real floating-point types.
pub(super) fn rng(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let [a, b] = r.arrays::<2>("2")?;
    let normal = match r.enum_attr("distribution")? {
        Some("rng_uniform") => false,
        Some("rng_normal") => true,
        _ => {
            return Err(r.attr_error(
                "needs `distribution=rng_uniform` or `distribution=rng_normal`".into(),
            ))
        }
    };
    if a.rank() != 0 || b.rank() != 0 || a.element_type != b.element_type {
        return Err(r.operand_error(format!(
            "the parameters must be two scalars of one type, got {a} and {b}"
        )));
    }
    let given = context.given.ok_or(ShapeInferenceError::MissingContext {
        opcode: r.opcode,
        what: "the result shape",
    })?;
    let Some(out) = given.as_array() else {
        return Err(r.operand_error(format!("the result must be an array, declared `{given}`")));
    };
    let t = out.element_type;
    if t != a.element_type {
        return Err(r.operand_error(format!(
            "the parameters are {}, the result {t}: they must be of the result's type",
            a.element_type
        )));
    }
    let ok = if normal {
        t.is_float()
    } else {
        t.is_float() || t.is_integer() || t.is_pred()
    };
    if !ok {
        return Err(r.type_error(format!(
            "rng {} does not take {t}",
            if normal { "rng_normal" } else { "rng_uniform" }
        )));
    }
    r.types_ok(t, t)?;
    Ok(Shape::array(t, out.dimensions.clone()))
}

/// `rng-bit-generator(state)`, `algorithm=`: the declared result (context `given`) must be the
/// tuple `(state shape, data)` with `state` a `u64[k]` that the algorithm accepts
/// ([`RngAlgorithm::state_words`]) and `data` an array of 8- to 64-bit integers or floats.
pub(super) fn rng_bit_generator(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [state] = r.arrays::<1>("1")?;
    let algorithm = RngAlgorithm::of(r.attributes).map_err(|m| r.attr_error(m))?;
    if state.element_type != crate::ElementType::U64 || state.rank() != 1 {
        return Err(r.operand_error(format!("the state must be a u64 vector, got {state}")));
    }
    let words = algorithm.state_words();
    if !words.contains(&state.dimensions[0]) {
        let allowed: Vec<String> = words.iter().map(|w| format!("u64[{w}]")).collect();
        return Err(r.operand_error(format!(
            "{} takes a state of {}, got {state}",
            algorithm.hlo_name(),
            allowed.join(" or ")
        )));
    }
    let given = context.given.ok_or(ShapeInferenceError::MissingContext {
        opcode: r.opcode,
        what: "the result shape",
    })?;
    let data = match given.tuple_shapes() {
        Some([s, Shape::Array(d)]) if s.compatible(&Shape::Array(state.clone())) => d,
        _ => {
            return Err(r.operand_error(format!(
                "the result must be the tuple (state, data) = ({state}, array), declared `{given}`"
            )))
        }
    };
    if !bit_generator_output_type(data.element_type) {
        return Err(r.type_error(format!(
            "rng-bit-generator produces integers or floats of 8 to 64 bits, not {}",
            data.element_type
        )));
    }
    r.types_ok(data.element_type, data.element_type)?;
    Ok(Shape::Tuple(vec![
        Shape::array(state.element_type, state.dimensions.clone()),
        Shape::array(data.element_type, data.dimensions.clone()),
    ]))
}
