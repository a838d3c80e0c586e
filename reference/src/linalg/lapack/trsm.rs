//! `lapack_?trsm_ffi` (docs/custom-calls.md): `?TRSM(side, uplo, trans_x, diag, alpha = 1)`,
//! exactly HLO `triangular-solve` (seed 004) with `left_side` = side `L`, `lower` = uplo `L`,
//! `unit_diagonal` = diag `U` and `transpose_a` = `NO_TRANSPOSE` / `TRANSPOSE` / `ADJOINT` for
//! trans_x `N` / `T` / `C`, batched over the leading `num_batch_dims` dimensions. The evaluation
//! is [`crate::linalg::triangular_solve`]'s (exact rational substitution, each element rounded
//! once); the solution is unique, so there is no gauge.
//!
//! Error scales ([`ErrorScale`] under `error_bound: lapack`): those of HLO triangular-solve
//! (Higham Thm 8.5: `κ = κ∞(M)`, `scale = ‖M⁻¹‖∞·‖b_vec‖∞` with `M` the matrix the element's
//! vector is solved with) with the whole growth factor `n = 4·m` (`c = 4`, `f(m) = m`). Masked:
//! every element of a batch whose read triangle holds NaN/±inf or is singular, and every element
//! of a vector whose right-hand side holds NaN/±inf.

use super::super::bounds::triangular_solve_scales;
use super::super::triangular_solve::{solve_bits, Problem, Transpose};
use super::super::{invalid, ErrorScale};
use super::Evaluation;
use crate::contraction::array_from_row_major;
use conformance_spec::custom_call::{LapackCall, Trans};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::BackendError;

/// Evaluates the call (see [`super::evaluate`]): `operands` are `a: [B..., m, m]` and
/// `b: [B..., m, k]` (side `L`) or `[B..., k, m]` (side `R`); the result is `x`, `b`'s shape in
/// `shape`'s layout, with one [`ErrorScale`] leaf when `want_scales`. `got` is ignored (the
/// solution is unique).
///
/// Errors: [`BackendError::Invalid`] for operands or a result shape that do not fit;
/// [`BackendError::Unsupported`] for an element type other than f32, f64, c64, c128.
pub fn evaluate(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    _got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let &[a, b] = operands else {
        return invalid(format!(
            "`{target}` takes 2 operands, got {}",
            operands.len()
        ));
    };
    let Some(result) = shape.as_array() else {
        return invalid(format!("`{target}`: the result {shape} must be an array"));
    };
    if result.element_type != a.element_type() {
        return invalid(format!(
            "`{target}`: the result is {}, the operands {}",
            result.element_type,
            a.element_type()
        ));
    }
    let p = problem(call, a, b, Some(&result.dimensions))?;
    let bits = solve_bits(&p);
    let scales = if want_scales {
        vec![scales(&p)]
    } else {
        vec![]
    };
    Ok(Evaluation {
        result: Literal::Array(array_from_row_major(result, &bits)),
        scales,
    })
}

/// The HLO triangular-solve problem of a trsm call (see the module documentation).
///
/// Errors: those of [`Problem::from_parts`].
pub(crate) fn problem(
    call: &LapackCall,
    a: &ArrayLiteral,
    b: &ArrayLiteral,
    result_dims: Option<&[i64]>,
) -> Result<Problem, BackendError> {
    let transpose = match call.trans {
        Trans::No => Transpose::No,
        Trans::Transpose => Transpose::Transpose,
        Trans::Adjoint => Transpose::Adjoint,
    };
    Problem::from_parts(
        a,
        b,
        call.left_side,
        call.lower,
        call.unit_diagonal,
        transpose,
        result_dims,
    )
}

/// triangular-solve's scales with the whole growth factor `n = 4·m`.
fn scales(p: &Problem) -> Vec<ErrorScale> {
    let growth = 4 * p.m as u64;
    let mut s = triangular_solve_scales(p);
    for e in &mut s {
        e.n = growth;
    }
    s
}

#[cfg(test)]
#[path = "trsm_tests.rs"]
mod tests;
