//! Linear algebra, transforms and normalization (seed 004: Fft, Cholesky, TriangularSolve,
//! BatchNormTraining, BatchNormInference, BatchNormGrad), exact.
//!
//! The semantics are those of `docs/linalg-semantics.md`: every floating-point result is the
//! EXACT real (or complex, per component) value of the operation on the exact operand values,
//! rounded ONCE into the result format (round to nearest, ties to even, subnormals kept):
//! - [`fft`]: the exact DFT sum, enclosed by ball arithmetic at rising precision (Ziv);
//! - [`cholesky`]: an exact rational LDLᴴ, then `ℓ_ij·√d_j` rounded once;
//! - [`triangular_solve`]: exact rational substitution;
//! - [`batch_norm`]: exact rational mean and variance, `1/√(σ²+ε)` enclosed (Ziv).
//!
//! [`exact`] holds the shared exact arithmetic (complex rationals, rounding a rational or
//! `a·s^{±1/2} + b` once); [`bounds`] reports the error-bound ingredients per output element
//! ([`ErrorScale`], [`error_scales`]). Implementation-defined elements (see the note) get NaN in
//! the reference and are masked by [`error_scales`].

pub mod batch_norm;
pub mod bounds;
pub mod cholesky;
pub mod exact;
pub mod fft;
pub mod lapack;
pub mod triangular_solve;

pub use bounds::{error_scales, ErrorScale};

use crate::interpreter::Handler;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::hlo::ir::{HloInstruction, Opcode};
use conformance_spec::index;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::literal::Literal;
use conformance_spec::BackendError;

/// Every opcode of the family and its handler (consulted by the interpreter's dispatch).
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::Fft, fft::fft),
    (Opcode::Cholesky, cholesky::cholesky),
    (Opcode::TriangularSolve, triangular_solve::triangular_solve),
    (Opcode::BatchNormTraining, batch_norm::batch_norm_training),
    (Opcode::BatchNormInference, batch_norm::batch_norm_inference),
    (Opcode::BatchNormGrad, batch_norm::batch_norm_grad),
    (Opcode::CustomCall, lapack::custom_call),
];

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(msg.into()))
}

/// Checks that `instr` has exactly `n` operands (seed 004: fft and cholesky take 1,
/// triangular-solve 2, batch-norm-training 3, batch-norm-inference and batch-norm-grad 5).
pub(crate) fn arity(
    instr: &HloInstruction,
    operands: &[&Literal],
    n: usize,
) -> Result<(), BackendError> {
    if operands.len() == n {
        Ok(())
    } else {
        invalid(format!(
            "{} takes {n} operand(s), got {}",
            instr.opcode,
            operands.len()
        ))
    }
}

/// The element bits of `a` in logical row-major order (any layout).
pub(crate) fn row_major_bits(a: &ArrayLiteral) -> Vec<u128> {
    index::physical_positions(a.shape())
        .into_iter()
        .map(|p| a.get_bits_linear(p))
        .collect()
}

/// The component format of a supported element type: f32/f64 (`complex = false`) or c64/c128
/// (`complex = true`, only when `allow_complex`). Errors: [`BackendError::Unsupported`] naming
/// `op` and the type.
pub(crate) fn element_format(
    op: &str,
    ty: ElementType,
    allow_complex: bool,
) -> Result<(FloatFormat, bool), BackendError> {
    match ty {
        ElementType::F32 => Ok((FloatFormat::F32, false)),
        ElementType::F64 => Ok((FloatFormat::F64, false)),
        ElementType::C64 if allow_complex => Ok((FloatFormat::F32, true)),
        ElementType::C128 if allow_complex => Ok((FloatFormat::F64, true)),
        _ => Err(BackendError::Unsupported(format!(
            "{op}: element type {ty} is not supported by the reference (f32, f64{})",
            if allow_complex { ", c64, c128" } else { "" }
        ))),
    }
}

/// The extent of a dimension as `usize` (dimensions of validated shapes are non-negative).
pub(crate) fn extent(d: i64) -> usize {
    usize::try_from(d).unwrap_or(0)
}

/// The product of dimension extents.
pub(crate) fn product(dims: &[i64]) -> usize {
    dims.iter().map(|&d| extent(d)).product()
}

#[cfg(test)]
mod test_util;
