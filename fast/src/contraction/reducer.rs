//! Reducer computations (`to_apply` of reduce and reduce-window, `select`/`scatter` of
//! select-and-scatter): recognition of the common ones (root `add`, `multiply`, `maximum`,
//! `minimum`, `and`, `or` of the two parameters; `compare` GE/GT/LE/LT of the two parameters for
//! select) and evaluation of any computation on scalars through the interpreter.

use super::Ctx;
use crate::value::Value;
use conformance_spec::hlo::HloComputation;
use conformance_spec::{ArrayShape, BackendError, ElementType, Opcode};

/// A recognized binary reducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Add,
    Multiply,
    Maximum,
    Minimum,
    And,
    Or,
}

/// The parameter numbers of the root's two operands, when both are parameters.
fn root_params(comp: &HloComputation) -> Option<(i64, i64)> {
    let root = comp.root_instruction();
    if root.operands.len() != 2 || comp.parameters().len() != 2 {
        return None;
    }
    let param = |i: usize| {
        comp.instructions
            .get(i)
            .filter(|p| p.opcode == Opcode::Parameter)
            .and_then(|p| p.parameter_number)
    };
    Some((param(root.operands[0])?, param(root.operands[1])?))
}

/// Recognizes a two-parameter computation whose root is a commutative reducer of both parameters.
pub(crate) fn recognize(comp: &HloComputation) -> Option<Kind> {
    let (a, b) = root_params(comp)?;
    if !matches!((a, b), (0, 1) | (1, 0)) {
        return None;
    }
    Some(match comp.root_instruction().opcode {
        Opcode::Add => Kind::Add,
        Opcode::Multiply => Kind::Multiply,
        Opcode::Maximum => Kind::Maximum,
        Opcode::Minimum => Kind::Minimum,
        Opcode::And => Kind::And,
        Opcode::Or => Kind::Or,
        _ => return None,
    })
}

/// A recognized `select` computation: `compare(p0, p1)` with direction GE, GT, LE or LT
/// (`true` keeps the current element, seed 004 SelectAndScatter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Select {
    Ge,
    Gt,
    Le,
    Lt,
}

/// Recognizes `select` computations `compare(p0, p1), direction=GE|GT|LE|LT`.
pub(crate) fn recognize_select(comp: &HloComputation) -> Option<Select> {
    if root_params(comp)? != (0, 1) || comp.root_instruction().opcode != Opcode::Compare {
        return None;
    }
    match comp.root_instruction().attr_enum("direction")? {
        "GE" => Some(Select::Ge),
        "GT" => Some(Select::Gt),
        "LE" => Some(Select::Le),
        "LT" => Some(Select::Lt),
        _ => None,
    }
}

/// IEEE maximum with NaN propagation and −0 < +0 (XLA `maximum`).
#[inline]
pub(crate) fn max_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a > b {
        a
    } else if b > a {
        b
    } else {
        f64::from_bits(a.to_bits() & b.to_bits())
    }
}

/// IEEE minimum with NaN propagation and −0 < +0 (XLA `minimum`).
#[inline]
pub(crate) fn min_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a < b {
        a
    } else if b < a {
        b
    } else {
        f64::from_bits(a.to_bits() | b.to_bits())
    }
}

/// [`max_f64`] in f32.
#[inline]
pub(crate) fn max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a > b {
        a
    } else if b > a {
        b
    } else {
        f32::from_bits(a.to_bits() & b.to_bits())
    }
}

/// [`min_f64`] in f32.
#[inline]
pub(crate) fn min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a < b {
        a
    } else if b < a {
        b
    } else {
        f32::from_bits(a.to_bits() | b.to_bits())
    }
}

/// Runs `comp` on scalar arguments (element type and raw bits each) and returns the raw bits of
/// its scalar results (one, or one per tuple element). Errors: the computation's own, or a result
/// that is not a scalar (or tuple of scalars).
pub(crate) fn call_scalars<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a HloComputation,
    args: &[(ElementType, u128)],
    out: &mut Vec<u128>,
) -> Result<(), BackendError> {
    let values: Vec<Value<'a>> = args
        .iter()
        .map(|&(ty, bits)| Value::Splat {
            shape: ArrayShape::scalar(ty),
            bits,
        })
        .collect();
    let v = (cx.call)(comp, &values)?;
    out.clear();
    push_scalar(&v, out)
}

fn push_scalar(v: &Value<'_>, out: &mut Vec<u128>) -> Result<(), BackendError> {
    match v {
        Value::Splat { bits, .. } => out.push(*bits),
        Value::Array(a) if a.shape().element_count() == 1 => out.push(a.get_bits_linear(0)),
        Value::Tuple(items) => {
            for i in items {
                push_scalar(i, out)?;
            }
        }
        _ => {
            return Err(BackendError::Invalid(
                "a reducer computation must return scalars".into(),
            ))
        }
    }
    Ok(())
}
