//! The interface every backend implements: run an HLO module on literals.
//!
//! The reference, the fast executor and external processes all sit behind [`Backend`], so the
//! harness compares any pair of them the same way.

use crate::element_type::ElementType;
use crate::hlo::ir::{HloModule, Opcode};
use crate::literal::Literal;

/// How a backend treats subnormal floating-point values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubnormalMode {
    /// Subnormal inputs and results are honoured (IEEE 754).
    Preserve,
    /// Subnormal results are flushed to zero and subnormal inputs read as zero (FTZ/DAZ).
    Flush,
}

/// What a backend claims to support; the harness does not send it anything else.
#[derive(Clone, Debug)]
pub struct Capabilities {
    pub opcodes: Vec<Opcode>,
    pub element_types: Vec<ElementType>,
    /// True when inputs and results may have any `minor_to_major` order and padding.
    pub any_layout: bool,
    pub subnormals: SubnormalMode,
}

/// Why a backend could not produce a result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The module uses something the backend does not implement (an opcode, an element type, ...).
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The module or its arguments are invalid (wrong argument count or shapes, malformed instruction).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The backend failed (crashed, timed out, returned malformed output).
    #[error("backend failure: {0}")]
    Failure(String),
}

/// A backend: runs the entry computation of a module on arguments (one literal per parameter).
pub trait Backend: Send + Sync {
    /// A short stable name (`reference`, `fast`, `xla`).
    fn name(&self) -> &str;
    fn capabilities(&self) -> Capabilities;
    /// Runs the module's entry computation. The result has the root instruction's shape, layout included.
    ///
    /// Errors: [`BackendError`] as documented on its variants.
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError>;

    /// The backend's own measurement of its last [`Backend::execute`], in microseconds, when it
    /// makes one: a worker process reports the time of the compiled program alone, without
    /// compilation and transfers (docs/protocol.md, `execute_micros`). `None` otherwise.
    fn last_execute_micros(&self) -> Option<u64> {
        None
    }
}
