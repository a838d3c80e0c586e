//! `while` (seed 004, While): `while(init), condition=%c, body=%b` on a state of any shape (an
//! array, a tuple, nested tuples). While `condition(state)` is true, `state = body(state)`.
//!
//! A loop over small arrays runs compiled ([`Plan`]: slots allocated once, invariants hoisted,
//! element-wise kernels without per-instruction dispatch through the interpreter). Otherwise the
//! state moves into the body each trip (the condition sees a shared copy of the handles, which it
//! drops before the body runs), so a buffer the body updates at its last use is updated in place,
//! never copied per trip. Nothing in the seed bounds a loop: after
//! [`max_while_iterations`] trips with the condition still true the loop stops with
//! [`BackendError::NonTerminating`].

use super::loop_plan::Plan;
use super::{bad, expect_parameters, pred_value, Ctx};
use crate::value::Value;
use conformance_spec::backend::max_while_iterations;
use conformance_spec::BackendError;

/// Runs the loop. Errors: [`BackendError::Invalid`] for an operand count other than 1, unknown
/// computations or ones that do not take one parameter, a condition that does not return
/// `pred[]`; [`BackendError::NonTerminating`] when the body has run [`max_while_iterations`]
/// times and the condition still holds; the computations' own errors.
pub(super) fn while_loop<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let cond = cx.computation("condition")?;
    let body = cx.computation("body")?;
    expect_parameters(cond, 1, "the condition")?;
    expect_parameters(body, 1, "the body")?;
    let limit = max_while_iterations();
    let call = cx.call;
    let mut state = cx
        .operands
        .into_iter()
        .next()
        .ok_or_else(|| bad("while without an operand"))?;
    if let Some(plan) = Plan::build(cx.exec, cx.eval, cond, body, &state) {
        return plan.run(cx.eval, &cx.instr.name);
    }
    let mut trips: u64 = 0;
    loop {
        let go = call(cond, vec![state.clone()])?;
        if !pred_value(&go)? {
            return Ok(state);
        }
        if trips >= limit {
            return Err(BackendError::NonTerminating(format!(
                "while `{}`: the condition `{}` still holds after {limit} trips of the body `{}` \
                 (the limit of max_while_iterations)",
                cx.instr.name, cond.name, body.name
            )));
        }
        state = call(body, vec![state])?;
        trips += 1;
    }
}
