//! `opt-barrier` (XLA OptimizationBarrier): the operand itself, any shape, no copy. It only stops
//! compilers from moving computations across it; an interpreter has nothing to stop.

use super::{bad, Ctx};
use crate::value::Value;
use conformance_spec::BackendError;

/// The operand (moved through). Errors: [`BackendError::Invalid`] for an operand count other
/// than 1.
pub(super) fn opt_barrier<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    cx.operands
        .into_iter()
        .next()
        .ok_or_else(|| bad("opt-barrier without an operand"))
}
