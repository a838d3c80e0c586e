//! Error-analysis bounds for the numerical family (catalog `tolerance.error_bound`: FFT,
//! triangular solve, Cholesky, batch norm): no ULP budget can state their accuracy, because
//! every algorithm sums in its own order and the error grows with the problem's size and
//! conditioning. Per result element the exact reference reports the ingredients
//! ([`conformance_reference::error_scales`]: the problem size `n`, a condition number `κ`, a
//! value scale, and whether the element is left to the implementation), and this module turns
//! them into an absolute allowance
//!
//! `|got − exact| ≤ c·f(n)·u·κ·scale / (1 − c·f(n)·u·κ)  (+ 1 ulp of the exact value)`,
//!
//! with `u` the unit roundoff of the result's (real component) format, and `c`, `f` the constants
//! of each bound below. An element is masked (undetermined) where `c·f(n)·u·κ ≥ 1/2`: the
//! working precision does not determine the result there, so no bound follows.
//!
//! The bounds (docs/linalg-semantics.md has the table of ingredients):
//! - **FFT** (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm 24.2): a
//!   Cooley–Tukey FFT with twiddles accurate to `μ` has `‖ŷ − y‖₂ ≤ log₂N·η/(1 − log₂N·η)·‖y‖₂`,
//!   `η = μ + γ₄(√2 + μ) ≈ 7u`. Mixed-radix and Bluestein transforms (which chain three
//!   power-of-two transforms and chirp multiplications) stay within a small multiple: `c = 10`,
//!   `f(N) = ⌈log₂N⌉ + 2` (the 2 for the inverse's 1/N scaling and the rounding of real inputs
//!   and outputs), `κ = 1`, `scale = ‖y‖₂` of the element's transform block.
//! - **Triangular solve** (Higham Thm 8.5 for substitution; §14.2 for multiplying by computed
//!   inverses of diagonal blocks, as XLA's expander does): normwise
//!   `‖x̂ − x‖∞ ≤ c·m·u·κ∞(M)·‖M⁻¹‖∞‖b‖∞` to first order, `c = 4`, `f(m) = m`.
//! - **Cholesky** (Higham Thm 10.4: backward error `‖ΔA‖₂ ≤ 4m(3m+1)u‖A‖₂` for any order of the
//!   inner products; Thm 10.8, after Sun 1991: `‖ΔL‖_F ≤ κ₂(A)/√2·‖ΔA‖₂/‖A‖₂·‖L‖₂` to first
//!   order): `c = 12`, `f(m) = m²`, `κ = ‖A‖_F‖A⁻¹‖_F ≥ κ₂(A)`, `scale = ‖L‖_F ≥ ‖L‖₂`.
//! - **Batch norm** (Higham §4.2: a sum of `N` terms computed in any order has error at most
//!   `γ_N·Σ|terms|`): the reference propagates the sums' bounds to each output to first order
//!   and adds the element-wise roundings (`scale`); `c = 4`, `f(N) = N` (`N` = 1 for inference).

use crate::compare::Allowance;
use conformance_reference::ErrorScale;
use conformance_spec::catalog::ErrorBound;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::HloModule;
use conformance_spec::literal::Literal;

/// The constant `c` and growth `f(n)` of a bound (see the module documentation).
pub fn constants(model: ErrorBound, n: u64) -> (f64, f64) {
    let n = n.max(1) as f64;
    match model {
        ErrorBound::Fft => (10.0, n.log2().ceil().max(0.0) + 2.0),
        ErrorBound::TriangularSolve => (4.0, n),
        ErrorBound::Cholesky => (12.0, n * n),
        ErrorBound::BatchNorm => (4.0, n),
        // The reference reports each routine's whole growth factor c·f(dimensions) as `n`.
        ErrorBound::Lapack => (1.0, n),
    }
}

/// The allowance of one element of result type `ty` (real component format for complex) under
/// `model`: masked where the reference masks it, where an ingredient is not finite, or where
/// `c·f(n)·u·κ ≥ 1/2`; otherwise [`Allowance::Within`] the bound.
pub fn allowance(model: ErrorBound, ty: ElementType, s: &ErrorScale) -> Allowance {
    if s.masked {
        // Integers too: a LAPACK `info` or `ipiv` the precision does not decide.
        return Allowance::Masked;
    }
    let Some(format) = ty.float_format() else {
        return Allowance::Budget;
    };
    if !s.kappa.is_finite() || !s.scale.is_finite() || s.scale.is_nan() {
        return Allowance::Masked;
    }
    if model == ErrorBound::Lapack && s.scale == 0.0 {
        // An element the routine leaves exact (a copied triangle).
        return Allowance::Budget;
    }
    let (c, f) = constants(model, s.n);
    let amplification = c * f * format.unit_roundoff() * s.kappa.max(1.0);
    if amplification >= 0.5 {
        return Allowance::Masked;
    }
    Allowance::within(amplification * s.scale / (1.0 - amplification))
}

/// Per array leaf of the root's result and per element in row-major order, the allowances of
/// `model` ([`allowance`]) from the reference's ingredients. Empty (the entry's budget
/// everywhere) when the reference reports none for this root.
pub fn allowances(model: ErrorBound, module: &HloModule, args: &[Literal]) -> Vec<Vec<Allowance>> {
    let scales = if model == ErrorBound::Lapack {
        match conformance_reference::linalg::lapack::aligned(module, args, None) {
            Ok(Some(e)) => e.scales,
            _ => return vec![],
        }
    } else {
        match conformance_reference::error_scales(module, args) {
            Ok(Some(scales)) => scales,
            _ => return vec![],
        }
    };
    leaf_allowances(model, module, &scales)
}

/// [`allowance`] per element of each array leaf of the root's result.
fn leaf_allowances(
    model: ErrorBound,
    module: &HloModule,
    scales: &[Vec<ErrorScale>],
) -> Vec<Vec<Allowance>> {
    let root = &module.entry_computation().root_instruction().shape;
    scales
        .iter()
        .zip(root.array_leaves().iter().map(|a| a.element_type))
        .map(|(leaf, ty)| leaf.iter().map(|s| allowance(model, ty, s)).collect())
        .collect()
}

/// For a LAPACK custom call (`error_bound: lapack`): the exact result in the gauge of `got` (a
/// backend's result: its admissible pivots, its reflector and vector signs, its bases of
/// clustered subspaces; `conformance_reference::linalg::lapack`) with the allowances of that
/// evaluation. `None` when the reference cannot evaluate it (the canonical comparison stands).
pub fn gauge_aligned(
    module: &HloModule,
    args: &[Literal],
    got: &Literal,
) -> Option<(Literal, Vec<Vec<Allowance>>)> {
    let e = conformance_reference::linalg::lapack::aligned(module, args, Some(got)).ok()??;
    let allowances = leaf_allowances(ErrorBound::Lapack, module, &e.scales);
    Some((e.result, allowances))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scale(n: u64, kappa: f64, scale: f64) -> ErrorScale {
        ErrorScale {
            n,
            kappa,
            scale,
            masked: false,
        }
    }

    fn bound(a: Allowance) -> f64 {
        match a {
            Allowance::Within(bits) => f64::from_bits(bits),
            other => panic!("expected a bound, got {other:?}"),
        }
    }

    #[test]
    fn fft_bounds_grow_with_log_n() {
        let u = 2f64.powi(-24);
        let b8 = bound(allowance(
            ErrorBound::Fft,
            ElementType::C64,
            &scale(8, 1.0, 1.0),
        ));
        let b64 = bound(allowance(
            ErrorBound::Fft,
            ElementType::C64,
            &scale(64, 1.0, 1.0),
        ));
        assert!((b8 - 50.0 * u).abs() < 1e-3 * b8, "{b8}");
        assert!((b64 - 80.0 * u).abs() < 1e-3 * b64, "{b64}");
        // The bound is in the units of the scale.
        let big = bound(allowance(
            ErrorBound::Fft,
            ElementType::C64,
            &scale(8, 1.0, 1e6),
        ));
        assert!((big / b8 - 1e6).abs() < 1.0);
    }

    #[test]
    fn ill_conditioned_and_masked_elements_are_not_compared() {
        let ok = scale(10, 1e3, 1.0);
        assert!(matches!(
            allowance(ErrorBound::TriangularSolve, ElementType::F32, &ok),
            Allowance::Within(_)
        ));
        // 4·10·2^-24·κ ≥ 1/2 from κ ≈ 2.1e5 on in f32, not in f64.
        let ill = scale(10, 1e6, 1.0);
        assert_eq!(
            allowance(ErrorBound::TriangularSolve, ElementType::F32, &ill),
            Allowance::Masked
        );
        assert!(matches!(
            allowance(ErrorBound::TriangularSolve, ElementType::F64, &ill),
            Allowance::Within(_)
        ));
        let singular = scale(10, f64::INFINITY, 1.0);
        assert_eq!(
            allowance(ErrorBound::Cholesky, ElementType::F64, &singular),
            Allowance::Masked
        );
        let masked = ErrorScale { masked: true, ..ok };
        assert_eq!(
            allowance(ErrorBound::BatchNorm, ElementType::F64, &masked),
            Allowance::Masked
        );
    }

    #[test]
    fn cholesky_grows_with_the_square_of_the_order() {
        let a = bound(allowance(
            ErrorBound::Cholesky,
            ElementType::F64,
            &scale(4, 1.0, 1.0),
        ));
        let b = bound(allowance(
            ErrorBound::Cholesky,
            ElementType::F64,
            &scale(8, 1.0, 1.0),
        ));
        assert!((b / a - 4.0).abs() < 1e-9);
    }

    #[test]
    fn lapack_exact_and_masked_elements() {
        let exact = scale(10, 1.0, 0.0);
        // A copied triangle, an info or a pivot: exact (the entry's budget) unless masked.
        assert_eq!(
            allowance(ErrorBound::Lapack, ElementType::F32, &exact),
            Allowance::Budget
        );
        assert_eq!(
            allowance(ErrorBound::Lapack, ElementType::S32, &exact),
            Allowance::Budget
        );
        let undecided = ErrorScale {
            masked: true,
            ..exact
        };
        assert_eq!(
            allowance(ErrorBound::Lapack, ElementType::S32, &undecided),
            Allowance::Masked
        );
        // The growth factor is the reference's `n` itself: 40·u·κ·scale.
        let b = bound(allowance(
            ErrorBound::Lapack,
            ElementType::F64,
            &scale(40, 2.0, 3.0),
        ));
        let u = 2f64.powi(-53);
        assert!((b - 240.0 * u).abs() < 1e-3 * b, "{b}");
    }
}
