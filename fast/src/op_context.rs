//! What an operation of the data-movement, contraction and control-flow families sees of its instruction
//! ([`Ctx`]), shared by these families and built by the interpreter.

use crate::parallel::{Exec, Par};
use crate::value::Value;
use conformance_spec::hlo::{HloComputation, HloInstruction};
use conformance_spec::{BackendError, HloModule};

/// Runs a called computation (scatter's update computation, a reducer, select or scatter
/// computation, a loop body, a branch, a comparator) on argument values, which it takes by value
/// (a uniquely owned buffer passed in can be updated in place by the callee). Callable from any
/// thread.
pub(crate) type CallFn<'c, 'a> =
    &'c (dyn Fn(&'a HloComputation, Vec<Value<'a>>) -> Result<Value<'a>, BackendError> + Sync);

/// Evaluates one instruction of the module on operand values (which it takes by value), as the
/// interpreter does; the result has the instruction's shape. Used to hoist loop-invariant
/// instructions out of a compiled loop and to run the instructions it has no kernel for.
pub(crate) type EvalFn<'c, 'a> =
    &'c dyn Fn(&'a HloInstruction, Vec<Value<'a>>) -> Result<Value<'a>, BackendError>;

/// What an operation sees of its instruction.
pub(crate) struct Ctx<'c, 'a> {
    pub(crate) module: &'a HloModule,
    pub(crate) instr: &'a HloInstruction,
    /// The operands' values; an operand whose last use this is has been moved here (so a uniquely
    /// owned buffer can be updated in place).
    pub(crate) operands: Vec<Value<'a>>,
    pub(crate) exec: Exec,
    pub(crate) call: CallFn<'c, 'a>,
    pub(crate) eval: EvalFn<'c, 'a>,
    /// The device the instruction runs on (collectives meet their group through it).
    pub(crate) device: conformance_spec::collective::Device<'c>,
}

impl Ctx<'_, '_> {
    /// `Ok` when the instruction has `k` operands. Errors: [`BackendError::Invalid`] naming the
    /// opcode and both counts otherwise.
    pub(crate) fn arity(&self, k: usize) -> Result<(), BackendError> {
        if self.operands.len() == k {
            Ok(())
        } else {
            Err(BackendError::Invalid(format!(
                "{} takes {k} operands, {} given",
                self.instr.opcode,
                self.operands.len()
            )))
        }
    }

    /// True when work over `elements` elements should be split across the pool.
    pub(crate) fn parallel(&self, elements: usize) -> bool {
        self.exec.parallel(elements)
    }

    /// [`Par`] for work over `elements` elements.
    pub(crate) fn par(&self, elements: usize) -> Par {
        self.exec.par(elements)
    }
}
