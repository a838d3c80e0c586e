//! `conditional` (seed 004, Conditional): runs one computation of several on its own operand.
//!
//! - `conditional(pred, t_arg, f_arg), true_computation=%t, false_computation=%f`: `%t(t_arg)`
//!   when the `pred[]` selector is true, else `%f(f_arg)`;
//! - `conditional(index, arg_0, ..., arg_{N-1}), branch_computations={%b_0, ..., %b_{N-1}}`:
//!   `%b_i(arg_i)` for the `s32[]` (any integer type is read) selector `i`, and the last branch
//!   for an index below 0 or at least N.
//!
//! Only the chosen branch runs; its operand moves into it.

use super::{bad, expect_parameters, Ctx};
use crate::value::Value;
use conformance_spec::hlo::AttrValue;
use conformance_spec::BackendError;

/// Runs the chosen branch. Errors: [`BackendError::Invalid`] for operand counts that do not match
/// the branches, a selector of the wrong type, unknown computations or ones that do not take one
/// parameter; the branch's own errors.
pub(super) fn conditional<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let (ty, bits) = cx.scalar(0)?;
    let n_ops = cx.operands.len();
    let (comp, operand) = if cx.instr.attribute("true_computation").is_some() {
        if !ty.is_pred() {
            return Err(bad(format!(
                "a conditional with true/false computations takes a pred[] selector, not {ty}[]"
            )));
        }
        cx.arity(3)?;
        if bits & 0xff != 0 {
            (cx.computation("true_computation")?, 1)
        } else {
            (cx.computation("false_computation")?, 2)
        }
    } else {
        let names =
            match cx.instr.attribute("branch_computations") {
                Some(AttrValue::Computations(c)) if !c.is_empty() => c,
                _ => return Err(bad(
                    "conditional without true_computation/false_computation or branch_computations",
                )),
            };
        if n_ops != names.len() + 1 {
            return Err(bad(format!(
                "conditional with {} branches takes {} operands, {n_ops} given",
                names.len(),
                names.len() + 1
            )));
        }
        // A pred selects between two branches: true runs branch 0 (XLA stores a pred
        // conditional's true/false computations as branches 0 and 1).
        let index = if ty.is_pred() && names.len() == 2 {
            i128::from(bits & 0xff == 0)
        } else {
            ty.is_integer()
                .then(|| ty.integer_from_bits(bits as u64))
                .flatten()
                .ok_or_else(|| bad(format!("a branch index must be an integer, not {ty}[]")))?
        };
        let last = names.len() - 1;
        let k = usize::try_from(index)
            .ok()
            .filter(|&k| k <= last)
            .unwrap_or(last);
        let comp = cx
            .module
            .computation(&names[k])
            .ok_or_else(|| bad(format!("unknown computation `{}`", names[k])))?;
        (comp, k + 1)
    };
    expect_parameters(comp, 1, "a branch")?;
    let arg = cx
        .operands
        .into_iter()
        .nth(operand)
        .ok_or_else(|| bad("conditional operand missing"))?;
    (cx.call)(comp, vec![arg])
}
