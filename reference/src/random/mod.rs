//! Random bits (seed 004, RngBitGenerator), computed from the definitions of the algorithms, and
//! samples of `rng`'s distributions ([`rng`]: RngUniform, RngNormal).
//!
//! - [`threefry`]: Threefry-2x32 with 20 rounds, and [`philox`]: Philox-4x32 with 10 rounds,
//!   written from Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3"
//!   (SC 2011) and checked against the paper's published known-answer vectors;
//! - [`rng_bit_generator`]: which counter each output element takes and what the new state is,
//!   under the one bit layout defined in `conformance_spec::random` (XLA's, which the reference
//!   declares). `rng_default` is Philox.
//!
//! Each element is computed on its own from its counter (no stream, no buffering), so the
//! position → counter map here is the definition a fast implementation is compared against.

pub mod philox;
pub mod rng;
pub mod threefry;

use crate::interpreter::{invalid, Context, Handler};
use conformance_spec::hlo::ir::{HloInstruction, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::random::{bit_generator_output_type, RngAlgorithm, XLA_LAYOUT};
use conformance_spec::shape::ArrayShape;
use conformance_spec::BackendError;

/// Every opcode of the family and its handler (consulted by the interpreter's dispatch).
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::RngBitGenerator, rng_bit_generator),
    (Opcode::Rng, rng::rng),
];

/// `rng-bit-generator(state)`, `algorithm=`: the tuple (new state, data) in the layouts of the
/// instruction's shape.
///
/// Errors: [`BackendError::Invalid`] for a state that is not a `u64` vector of a size the
/// algorithm takes, a result that is not `(state shape, array)`, or a data type that is not an
/// 8- to 64-bit integer or float.
pub(crate) fn rng_bit_generator(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let [Literal::Array(state)] = operands else {
        return invalid("rng-bit-generator takes one array operand (the state)");
    };
    let algorithm = RngAlgorithm::of(&instr.attributes).map_err(BackendError::Invalid)?;
    let algorithm = algorithm.resolved(XLA_LAYOUT).unwrap_or(algorithm);
    let words = state.dimensions().first().copied().unwrap_or(0);
    if state.element_type() != conformance_spec::ElementType::U64
        || state.dimensions().len() != 1
        || !algorithm.state_words().contains(&words)
    {
        return invalid(format!(
            "{} cannot take the state {}",
            algorithm.hlo_name(),
            state.shape()
        ));
    }
    let (state_shape, data_shape) = match instr.shape.tuple_shapes() {
        Some([s, d]) => match (s.as_array(), d.as_array()) {
            (Some(s), Some(d)) => (s.clone(), d.clone()),
            _ => return invalid("rng-bit-generator's result must be (state, data) arrays"),
        },
        _ => return invalid("rng-bit-generator's result must be the tuple (state, data)"),
    };
    if !bit_generator_output_type(data_shape.element_type) {
        return invalid(format!(
            "rng-bit-generator cannot produce {}",
            data_shape.element_type
        ));
    }
    let input: Vec<u64> = state.logical_bits().iter().map(|&b| b as u64).collect();
    let (new_state, data) = generate(algorithm, &input, &data_shape);
    let state_out = ArrayLiteral::from_bits(
        state_shape,
        &new_state.iter().map(|&w| w as u128).collect::<Vec<_>>(),
    )
    .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let data_out = ArrayLiteral::from_bits(data_shape, &data)
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    Ok(Literal::Tuple(vec![
        Literal::Array(state_out),
        Literal::Array(data_out),
    ]))
}

/// The new state and the data's elements (bits, row-major) of `algorithm` (THREE_FRY or
/// PHILOX; DEFAULT is resolved before) from the `u64` words of `state`, for data of `shape`
/// (its element type's width decides how many bits each element takes).
pub fn generate(
    algorithm: RngAlgorithm,
    state: &[u64],
    shape: &ArrayShape,
) -> (Vec<u64>, Vec<u128>) {
    let width = shape.element_type.bit_width();
    let key = state[0];
    match algorithm {
        RngAlgorithm::ThreeFry => {
            let counter = state[1];
            let (used, data) = threefry::layout(key, counter, &shape.dimensions, width);
            (vec![key, counter.wrapping_add(used)], data)
        }
        RngAlgorithm::Philox | RngAlgorithm::Default => {
            // The 128-bit counter: state[1] low, state[2] high; a u64[2] state's high word is
            // its key word (XLA reverses the two-word state).
            let high = if state.len() >= 3 { state[2] } else { state[0] };
            let counter = (u128::from(high) << 64) | u128::from(state[1]);
            let elements: i64 = shape.dimensions.iter().product();
            let (used, data) = philox::layout(key, counter, elements as u64, width);
            let next = counter.wrapping_add(u128::from(used));
            if state.len() >= 3 {
                (vec![key, next as u64, (next >> 64) as u64], data)
            } else {
                (vec![key, next as u64], data)
            }
        }
    }
}

/// `x` truncated to its low `width` bits.
fn truncate(x: u64, width: u32) -> u128 {
    if width >= 64 {
        u128::from(x)
    } else {
        u128::from(x & ((1u64 << width) - 1))
    }
}

#[cfg(test)]
mod tests;
