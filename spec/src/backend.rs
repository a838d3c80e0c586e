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
    /// Of a flushing backend, the floating-point types whose arithmetic flushes (a complex type
    /// flushes as its component type does); empty means every floating-point type. A type left
    /// out keeps its subnormals (IREE and XLA compute f16 in f32 and flush only f32's).
    pub subnormals_flushed_in: Vec<ElementType>,
    /// The bit layout of `rng-bit-generator` the backend implements (`conformance_spec::random`:
    /// [`crate::random::XLA_LAYOUT`] for the backends built here and XLA), `None` when it
    /// declares none: its random bits are then judged statistically, not bit for bit.
    pub rng_bit_layout: Option<String>,
    /// The most devices (`replica_count × num_partitions`, `conformance_spec::collective`) a
    /// module it runs may have; 1 when it runs one-device modules only.
    pub devices: usize,
}

impl Capabilities {
    /// True when the backend flushes the subnormals of `ty` (of its component type, for a
    /// complex type): it declares [`SubnormalMode::Flush`] and `ty`'s format is among
    /// [`Capabilities::subnormals_flushed_in`] (or that list is empty).
    pub fn flushes(&self, ty: ElementType) -> bool {
        let component = match ty {
            ElementType::C64 => ElementType::F32,
            ElementType::C128 => ElementType::F64,
            t => t,
        };
        self.subnormals == SubnormalMode::Flush
            && component.is_float()
            && (self.subnormals_flushed_in.is_empty()
                || self.subnormals_flushed_in.contains(&component))
    }

    /// The smallest normal magnitude of the format in which a flushing backend flushes the
    /// arithmetic of a `ty` result: `ty`'s own when [`Capabilities::flushes`] it, f32's when
    /// `ty` is narrower than f32 and f32 flushes (the narrow type computed in f32), 0 otherwise.
    pub fn flushing_min_normal(&self, ty: ElementType) -> f64 {
        match ty.float_format() {
            Some(f) if self.flushes(ty) => f.min_normal(),
            Some(f) if f.precision() < 24 && self.flushes(ElementType::F32) => {
                crate::element_type::FloatFormat::F32.min_normal()
            }
            _ => 0.0,
        }
    }
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
    /// A `while` loop was still running after [`max_while_iterations`] trips (seed 004, While:
    /// nothing bounds a loop, so the limit turns a non-terminating program into a verdict).
    #[error("no exit: {0}")]
    NonTerminating(String),
}

impl BackendError {
    /// The same kind of error with its message rewritten by `f` (to add the instruction or
    /// computation it came from).
    pub fn map_message(self, f: impl FnOnce(String) -> String) -> BackendError {
        match self {
            BackendError::Unsupported(m) => BackendError::Unsupported(f(m)),
            BackendError::Invalid(m) => BackendError::Invalid(f(m)),
            BackendError::Failure(m) => BackendError::Failure(f(m)),
            BackendError::NonTerminating(m) => BackendError::NonTerminating(f(m)),
        }
    }
}

/// Default of [`max_while_iterations`]: 10^6 trips.
pub const DEFAULT_MAX_WHILE_ITERATIONS: u64 = 1_000_000;

static MAX_WHILE_ITERATIONS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_MAX_WHILE_ITERATIONS);

/// How many trips of one `while` loop the backends built here run before giving up with
/// [`BackendError::NonTerminating`] (process-wide; `conformance --max-iterations N` sets it).
pub fn max_while_iterations() -> u64 {
    MAX_WHILE_ITERATIONS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Sets [`max_while_iterations`] (at least 1).
pub fn set_max_while_iterations(n: u64) {
    MAX_WHILE_ITERATIONS.store(n.max(1), std::sync::atomic::Ordering::Relaxed);
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
