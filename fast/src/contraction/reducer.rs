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

/// XLA `maximum` / `minimum` in f64 and f32 (NaN propagation, −0 < +0): the element-wise
/// operations' own functions.
pub(crate) use crate::elementwise::binary::{max_f32, max_f64, min_f32, min_f64};

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
    let v = (cx.call)(comp, values)?;
    out.clear();
    push_scalar(&v, out)
}

/// One step of a variadic reduction through the interpreter: runs `comp` on `args` (the N
/// accumulators, then the N elements) and stores its N results (raw bits) into `acc`; `res` is
/// scratch space. Errors: those of [`call_scalars`], or [`BackendError::Invalid`] when the
/// computation returns other than `acc.len()` values.
pub(crate) fn fold_step<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a HloComputation,
    args: &[(ElementType, u128)],
    res: &mut Vec<u128>,
    acc: &mut [u128],
) -> Result<(), BackendError> {
    call_scalars(cx, comp, args, res)?;
    if res.len() != acc.len() {
        return Err(BackendError::Invalid(format!(
            "the reducer returned {} values for {} operands",
            res.len(),
            acc.len()
        )));
    }
    acc.copy_from_slice(res);
    Ok(())
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
