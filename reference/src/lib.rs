//! `conformance-reference`: the exact reference backend for the element-wise, data-movement,
//! contraction and control-flow families.
//!
//! Slow and exact: every floating-point result is correctly rounded in its own format (MPFR via
//! `rug` at the format's precision, then placed in the format's exponent range once, subnormals
//! included; MPC for complex, per component), integers are exact with two's-complement wrapping,
//! `convert` and `bitcast-convert` are bit-exact, and comparisons follow seed 004 (IEEE or total
//! order).
//!
//! - [`Reference`] implements [`conformance_spec::Backend`]: it interprets a module's entry
//!   computation ([`interpreter`]).
//! - [`data_movement`] moves element bits by multi-index (broadcast, reshape, transpose, slices,
//!   pad, concatenate, reverse, iota, gather, scatter, dimension sizes, copy);
//!   [`data_movement::scatter::scatter_schedule`] lists scatter's updates in the reference's order.
//! - [`contraction`] computes dot, convolution, reduce, reduce-window and select-and-scatter
//!   EXACTLY (the exact sum of exact products, rounded once); [`accumulation_bounds`] reports, per
//!   output element of such a root, the term count and Σ|terms| the tolerance needs.
//! - [`linalg`] computes fft, cholesky, triangular-solve and the batch-norm operations EXACTLY
//!   (one rounding per element); [`error_scales`] reports per output element the error-bound
//!   ingredients (`n`, κ, scale, masked) of `docs/linalg-semantics.md`.
//! - [`random`] computes `rng-bit-generator` from the definitions of Threefry-2x32 and
//!   Philox-4x32 (checked against their known-answer vectors) under XLA's counter layout.
//! - [`collective`] runs `all-reduce`, `all-gather`, `all-to-all`, `collective-permute`,
//!   `reduce-scatter`, `replica-id` and `partition-id` over a module's devices (one thread each,
//!   meeting at a rendezvous; sums exact and rounded once, other reducers in group order).
//! - [`control_flow`] runs `while` (stopping after `max_while_iterations` trips), `conditional`,
//!   `map`, `sort` (a stable merge sort under any comparator computation, evaluated exactly;
//!   [`control_flow::sort::Comparator`] lets the harness ask it about other results), `topk` and
//!   `opt-barrier`.
//! - [`eval_element`] evaluates one element of an element-wise instruction from raw bits; the
//!   array path is built on it, and exhaustive tests and the harness's masks use it directly.
//! - [`condition_number`] gives the condition number of the real CHLO special functions (erf-inv,
//!   lgamma, digamma, bessel-i1e, erfc, polygamma, zeta, asin ... atanh) at one element, for the
//!   harness's conditioning allowance.
//! - [`round`] is "round an MPFR value into a format"; [`ziv`] encloses composite functions
//!   until their bounds round to one value.

pub mod collective;
pub mod contraction;
pub mod control_flow;
pub mod data_movement;
pub mod elementwise;
mod host_transfer;
pub mod interpreter;
pub mod linalg;
pub mod random;
pub mod round;
pub mod ziv;

pub use contraction::{accumulation_bounds, AccumulationBound};
pub use elementwise::{condition_number, eval_element, prepare, ElementFn};
pub use linalg::{error_scales, ErrorScale};

use conformance_spec::backend::{Backend, BackendError, Capabilities, SubnormalMode};
use conformance_spec::hlo::ir::HloModule;
use conformance_spec::literal::Literal;
use conformance_spec::ElementType;

/// The exact reference backend (name `reference`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

impl Backend for Reference {
    fn name(&self) -> &str {
        "reference"
    }

    /// The implemented opcodes ([`interpreter::opcodes`]), every element type, any layout, and
    /// subnormals preserved.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            opcodes: interpreter::opcodes(),
            element_types: ElementType::ALL.to_vec(),
            any_layout: true,
            subnormals: SubnormalMode::Preserve,
            subnormals_flushed_in: vec![],
            rng_bit_layout: Some(conformance_spec::random::XLA_LAYOUT.to_string()),
            devices: conformance_spec::collective::MAX_DEVICES,
        }
    }

    /// Runs the entry computation; see [`interpreter::execute`] for the errors.
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        interpreter::execute(module, args)
    }
}
