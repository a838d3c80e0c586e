//! The control-flow family of seed 004: `while`, `conditional`, `map`, `sort`, `topk` and
//! `opt-barrier` (`call` is in the interpreter).
//!
//! Called computations run through the interpreter ([`Ctx::call`]), which takes their arguments by
//! value: a loop's state moves into the body each trip, so a uniquely owned buffer in it (a
//! `dynamic-update-slice` target, say) is updated in place rather than copied per trip.
//!
//! - `while`: [`while_loop`], bounded by [`conformance_spec::backend::max_while_iterations`]; a
//!   loop over small arrays is compiled once into kernels over preallocated slots ([`loop_plan`]).
//! - `conditional`: [`conditional`] (pred or index selector; out-of-range indices run the last
//!   branch).
//! - `map`: [`map`] runs a computation of element-wise instructions over whole arrays with the
//!   element-wise kernels, any other computation per element (in parallel).
//! - `sort`: [`sort`] recognizes the comparator ([`conformance_spec::hlo::comparator`]) and sorts by
//!   keys with an LSD radix sort ([`radix`]); any other comparator is interpreted per comparison
//!   in a stable merge sort.
//! - `topk`: [`topk`] selects the K largest or smallest per row without sorting the row.
//! - `opt-barrier`: the operand itself.

mod conditional;
mod loop_kernels;
pub(crate) mod loop_plan;
mod map;
mod opt_barrier;
pub(crate) mod radix;
pub(super) mod sort;
mod topk;
mod while_loop;

#[cfg(test)]
mod loop_plan_tests;
#[cfg(test)]
mod tests;

use crate::value::Value;
use conformance_spec::hlo::HloComputation;
use conformance_spec::{ArrayShape, BackendError, Opcode, Shape};

pub(crate) use crate::op_context::Ctx;

/// True for the opcodes this module implements.
pub(crate) fn is_control_flow(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::While
            | Opcode::Conditional
            | Opcode::Map
            | Opcode::Sort
            | Opcode::TopK
            | Opcode::OptimizationBarrier
    )
}

/// Evaluates a control-flow instruction. Errors: [`BackendError::Invalid`] for malformed
/// instructions (operand counts, attributes, called computations whose signatures do not fit);
/// [`BackendError::NonTerminating`] for a `while` past the iteration limit; the errors of the
/// called computations.
pub(crate) fn evaluate<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    match cx.instr.opcode {
        Opcode::While => while_loop::while_loop(cx),
        Opcode::Conditional => conditional::conditional(cx),
        Opcode::Map => map::map(&cx),
        Opcode::Sort => sort::sort(&cx),
        Opcode::TopK => topk::topk(&cx),
        Opcode::OptimizationBarrier => opt_barrier::opt_barrier(cx),
        op => Err(BackendError::Unsupported(format!(
            "`{op}` is not a control-flow operation"
        ))),
    }
}

fn bad(msg: impl Into<String>) -> BackendError {
    BackendError::Invalid(msg.into())
}

/// The array shapes of a result of `n` arrays: the instruction's array shape (`n = 1` and
/// `single`), else the arrays of its tuple shape.
fn result_arrays<'a>(
    cx: &Ctx<'_, 'a>,
    n: usize,
    single: bool,
) -> Result<Vec<&'a ArrayShape>, BackendError> {
    let op = cx.instr.opcode;
    let shapes: Vec<&'a ArrayShape> = match &cx.instr.shape {
        Shape::Array(s) if n == 1 && single => vec![s],
        Shape::Tuple(t) if t.len() == n => t
            .iter()
            .map(|s| {
                s.as_array()
                    .ok_or_else(|| bad(format!("{op} result tuple of non-arrays")))
            })
            .collect::<Result<_, _>>()?,
        s => return Err(bad(format!("{op} of {n} results cannot have shape {s}"))),
    };
    for s in &shapes {
        s.validate()
            .map_err(|e| bad(format!("result shape {s}: {e}")))?;
    }
    Ok(shapes)
}

/// Checks that `comp` has `n` parameters.
fn expect_parameters(comp: &HloComputation, n: usize, role: &str) -> Result<(), BackendError> {
    let k = comp.parameters().len();
    if k == n {
        Ok(())
    } else {
        Err(bad(format!(
            "{role} `{}` has {k} parameters, {n} expected",
            comp.name
        )))
    }
}

/// The value of a scalar `pred` result (a condition's or a comparator's).
fn pred_value(v: &Value<'_>) -> Result<bool, BackendError> {
    let (ty, bits) = match v {
        Value::Splat { shape, bits } if shape.rank() == 0 => (shape.element_type, *bits),
        Value::Array(a) if a.shape().rank() == 0 => (a.element_type(), a.get_bits_linear(0)),
        _ => return Err(bad("a condition or comparator must return pred[]")),
    };
    if !ty.is_pred() {
        return Err(bad(format!(
            "a condition or comparator must return pred[], not {ty}[]"
        )));
    }
    Ok(bits & 0xff != 0)
}

/// `a`'s bytes in the unpadded layout `minor_to_major` (its own buffer when it already has that
/// physical layout, a strided copy otherwise).
fn packed<'s>(
    a: &'s crate::value::ArrayRef<'_>,
    minor_to_major: &[i64],
    parallel: bool,
) -> (ArrayShape, std::borrow::Cow<'s, [u8]>) {
    let target = ArrayShape::new(a.element_type(), a.dimensions().to_vec())
        .with_layout(conformance_spec::Layout::new(minor_to_major.to_vec()));
    let data = if !a.shape().layout.is_padded()
        && crate::layout::same_physical_layout(a.shape(), &target)
    {
        std::borrow::Cow::Borrowed(a.data())
    } else {
        std::borrow::Cow::Owned(crate::layout::relayout_bytes(a, &target, parallel))
    };
    (target, data)
}

/// Reads element `i` (of `w` bytes) of a buffer as raw bits.
#[inline]
fn read_bits(data: &[u8], i: usize, w: usize) -> u128 {
    let mut b = [0u8; 16];
    b[..w].copy_from_slice(&data[i * w..(i + 1) * w]);
    u128::from_le_bytes(b)
}
