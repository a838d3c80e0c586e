//! The error-bound ingredients of the linear-algebra family (`docs/linalg-semantics.md`, "Error
//! bounds"): per output element, [`ErrorScale`] `{ n, kappa, scale, masked }`, from which the
//! harness allows `|got − exact| ≤ c·f(n)·u·κ·scale/(1 − c·f(n)·u·κ) + 1 ulp(exact)` (the forms
//! of Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.: §3.1 sums, §8.1
//! triangular systems, §10.1 Cholesky, §24.1 the FFT).
//!
//! Every quantity is computed exactly (rationals) or in MPFR with upward rounding of
//! non-negative quantities, then rounded UP to `f64` (+inf on overflow).

use super::batch_norm::{self, Feature, Kind};
use super::cholesky;
use super::exact::CRat;
use super::fft::{FftType, Plan};
use super::triangular_solve::{self, substitute};
use crate::interpreter;
use conformance_spec::hlo::ir::{HloInstruction, HloModule, Opcode};
use conformance_spec::literal::Literal;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::{Float, Rational};

/// What the harness needs to bound the error of one output element (seed 004 operations Fft,
/// Cholesky, TriangularSolve, BatchNorm*; bounds after Higham).
///
/// - `n`: the problem size in the bound's `f(n)`: `N = Π fft_length` (fft), `m` (cholesky,
///   triangular-solve), the element count per feature `N` (batch-norm training and grad), 1
///   (batch-norm inference).
/// - `kappa`: a condition number (dimensionless): 1 (fft, batch-norm), `κ∞(M) = ‖M‖∞‖M⁻¹‖∞`
///   (triangular-solve, `M` the matrix the element's vector is solved with), `‖A‖_F‖A⁻¹‖_F`
///   (cholesky); +inf when singular.
/// - `scale`: a magnitude in the result's units: `‖y‖₂` of the element's exact transform block
///   (fft), `‖M⁻¹‖∞‖b_vec‖∞` (triangular-solve), `‖L‖_F` (cholesky), the first-order
///   propagation of the sums' errors (batch-norm, see [`batch_norm_scales`]).
/// - `masked`: the element is implementation-defined (the note's "Implementation-defined").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorScale {
    pub n: u64,
    pub kappa: f64,
    pub scale: f64,
    pub masked: bool,
}

impl ErrorScale {
    fn masked(n: u64) -> ErrorScale {
        ErrorScale {
            n,
            kappa: f64::INFINITY,
            scale: f64::INFINITY,
            masked: true,
        }
    }
}

/// Per output element of the entry computation's root, its [`ErrorScale`]: one `Vec` per array
/// leaf of the result (tuple leaves in order), one entry per element in logical row-major order.
///
/// `None` when the root is not `fft`, `cholesky`, `triangular-solve` or a `batch-norm-*`, or when
/// its operands carry runtime (dynamic) sizes. The root's operands are evaluated by the
/// reference itself.
///
/// Errors: those of [`interpreter::execute`] for the operands and of the root's validation.
pub fn error_scales(
    module: &HloModule,
    args: &[Literal],
) -> Result<Option<Vec<Vec<ErrorScale>>>, BackendError> {
    let Some(entry) = module.computations.get(module.entry) else {
        return super::invalid(format!("module `{}`: no entry computation", module.name));
    };
    let Some(root) = entry.instructions.get(entry.root) else {
        return super::invalid(format!("computation `{}`: no root", entry.name));
    };
    let kind = match root.opcode {
        Opcode::Fft
        | Opcode::Cholesky
        | Opcode::TriangularSolve
        | Opcode::BatchNormTraining
        | Opcode::BatchNormInference
        | Opcode::BatchNormGrad => root.opcode,
        _ => return Ok(None),
    };
    let operands = crate::interpreter::root_operands(module, args)?;
    if operands
        .iter()
        .any(|o| matches!(o, Literal::Array(a) if a.runtime_dimensions().is_some()))
    {
        return Ok(None);
    }
    let refs: Vec<&Literal> = operands.iter().collect();
    let array = |i| interpreter::array(root, &refs, i);
    Ok(Some(match kind {
        Opcode::Fft => vec![fft_scales(&Plan::new(root, array(0)?)?)],
        Opcode::Cholesky => vec![cholesky_scales(&cholesky::Problem::new(root, array(0)?)?)],
        Opcode::TriangularSolve => vec![triangular_solve_scales(&triangular_solve::Problem::new(
            root,
            array(0)?,
            array(1)?,
            None,
        )?)],
        Opcode::BatchNormTraining => batch_norm_scales(root, &refs, Kind::Training)?,
        Opcode::BatchNormInference => batch_norm_scales(root, &refs, Kind::Inference)?,
        _ => batch_norm_scales(root, &refs, Kind::Grad)?,
    }))
}

/// Working precision of the bound computations.
const PREC: u32 = 128;

/// `|r|` rounded up.
fn abs_up(r: &Rational) -> Float {
    Float::with_val_round(PREC, &*r.as_abs(), Round::Up).0
}

/// `|z|` rounded up.
fn cabs_up(z: &CRat) -> Float {
    if z.im.is_zero() {
        return abs_up(&z.re);
    }
    let sq = Float::with_val_round(PREC, &z.norm_sqr(), Round::Up).0;
    Float::with_val_round(PREC, sq.sqrt_ref(), Round::Up).0
}

fn add_up(a: &Float, b: &Float) -> Float {
    Float::with_val_round(PREC, a + b, Round::Up).0
}

fn mul_up(a: &Float, b: &Float) -> Float {
    Float::with_val_round(PREC, a * b, Round::Up).0
}

fn sqrt_up(a: &Float) -> Float {
    Float::with_val_round(PREC, a.sqrt_ref(), Round::Up).0
}

fn f64_up(a: &Float) -> f64 {
    a.to_f64_round(Round::Up)
}

/// fft: `n = N`, `κ = 1`, `scale = ‖y‖₂` of the block's exact full-length transform by Parseval:
/// `√N·‖x‖₂` (FFT, RFFT: the full complex transform of the real input), `‖x‖₂/√N` (IFFT), and
/// for IRFFT `√(Σ_k ω_k‖z_{·,k}‖²/N)` with `ω_k = 1` at `k = 0` and the Nyquist index, 2
/// elsewhere: an upper bound of `‖x_ext‖₂/√N`, since the Hermitian extension keeps only the real
/// part at those two indices (after the inverse over the other axes, which preserves `‖·‖²/N_o`).
fn fft_scales(plan: &Plan) -> Vec<ErrorScale> {
    let n = plan.n() as u64;
    let size: usize = plan.out_block.iter().product();
    let half = plan.in_block.last().copied().unwrap_or(1).max(1);
    let n_last = plan.lengths.last().copied().unwrap_or(0);
    let mut out = Vec::with_capacity(plan.batch * size);
    for t in 0..plan.batch {
        let Some(inputs) = plan.block_inputs(t) else {
            out.extend(std::iter::repeat_n(ErrorScale::masked(n), size));
            continue;
        };
        let mut sum = Float::new(PREC);
        for (i, (re, im)) in inputs.iter().enumerate() {
            let sq = add_up(&mul_up(re, re), &mul_up(im, im));
            let k = i % half;
            let weight = plan.ty == FftType::Irfft && k != 0 && 2 * k != n_last;
            sum = add_up(
                &sum,
                &if weight {
                    mul_up(&sq, &Float::with_val(PREC, 2))
                } else {
                    sq
                },
            );
        }
        let nf = Float::with_val(PREC, n);
        let scaled = if plan.ty.inverse() {
            Float::with_val_round(PREC, &sum / &nf, Round::Up).0
        } else {
            mul_up(&sum, &nf)
        };
        let scale = ErrorScale {
            n,
            kappa: 1.0,
            scale: f64_up(&sqrt_up(&scaled)),
            masked: false,
        };
        out.extend(std::iter::repeat_n(scale, size));
    }
    out
}

/// cholesky: `n = m`, `κ = ‖A‖_F·‖A⁻¹‖_F` (≥ κ₂(A)), `scale = ‖L‖_F = √trace(A)` (since
/// `‖L‖_F² = trace(L·Lᴴ)`), per batch; the other triangle and every element of a batch whose `A`
/// is not positive definite, holds NaN/±inf or has a non-real diagonal are masked.
fn cholesky_scales(p: &cholesky::Problem) -> Vec<ErrorScale> {
    let (m, n) = (p.m, p.m as u64);
    let mut out = Vec::with_capacity(p.batch * m * m);
    for t in 0..p.batch {
        let factored = p
            .hermitian(t)
            .and_then(|a| cholesky::ldl(&a).map(|f| (a, f)));
        let Some((a, f)) = factored else {
            out.extend(std::iter::repeat_n(ErrorScale::masked(n), m * m));
            continue;
        };
        let frobenius_sq =
            |x: &[Vec<CRat>]| -> Rational { x.iter().flatten().map(CRat::norm_sqr).sum() };
        let inv = cholesky::inverse(&f);
        let norm = |r: &Rational| sqrt_up(&Float::with_val_round(PREC, r, Round::Up).0);
        let kappa = f64_up(&mul_up(
            &norm(&frobenius_sq(&a)),
            &norm(&frobenius_sq(&inv)),
        ));
        let trace: Rational = (0..m).map(|i| a[i][i].re.clone()).sum();
        let scale = f64_up(&norm(&trace));
        for i in 0..m {
            for j in 0..m {
                let other = if p.lower { j > i } else { j < i };
                out.push(ErrorScale {
                    n,
                    kappa,
                    scale,
                    masked: other,
                });
            }
        }
    }
    out
}

/// `‖X‖∞ = max_i Σ_j |x_ij|` rounded up.
fn inf_norm(x: &[Vec<CRat>]) -> Float {
    x.iter()
        .map(|row| {
            row.iter()
                .fold(Float::new(PREC), |acc, e| add_up(&acc, &cabs_up(e)))
        })
        .fold(Float::new(PREC), |acc, r| if r > acc { r } else { acc })
}

/// triangular-solve: `n = m`, `κ = κ∞(S)` and `scale = ‖S⁻¹‖∞·‖b_vec‖∞` with `S` the matrix the
/// element's vector is solved with (`op(a)` left, `op(a)ᵀ` right); a batch whose read triangle
/// holds NaN/±inf or whose `S` is singular is masked (κ = inf), and so is a vector whose
/// right-hand side holds NaN/±inf.
pub(crate) fn triangular_solve_scales(p: &triangular_solve::Problem) -> Vec<ErrorScale> {
    let (m, n) = (p.m, p.m as u64);
    let mut out = vec![ErrorScale::masked(n); p.batch * p.m * p.k];
    for t in 0..p.batch {
        let Some((s, lower)) = p.system(t) else {
            continue;
        };
        let identity = |c: usize| -> Vec<CRat> {
            (0..m)
                .map(|i| if i == c { CRat::one() } else { CRat::default() })
                .collect()
        };
        let columns: Option<Vec<Vec<CRat>>> = (0..m)
            .map(|c| substitute(&s, lower, &identity(c)))
            .collect();
        let Some(columns) = columns else {
            continue; // singular: masked, κ = inf
        };
        let inv: Vec<Vec<CRat>> = (0..m)
            .map(|i| (0..m).map(|j| columns[j][i].clone()).collect())
            .collect();
        let inv_norm = inf_norm(&inv);
        let kappa = f64_up(&mul_up(&inf_norm(&s), &inv_norm));
        for v in 0..p.k {
            let offsets = p.vector_offsets(t, v);
            let scale = match p.rhs(&offsets) {
                Some(b) => {
                    let bn =
                        b.iter()
                            .map(cabs_up)
                            .fold(Float::new(PREC), |acc, x| if x > acc { x } else { acc });
                    Some(f64_up(&mul_up(&inv_norm, &bn)))
                }
                None => None,
            };
            for o in offsets {
                out[o] = ErrorScale {
                    n,
                    kappa,
                    scale: scale.unwrap_or(f64::INFINITY),
                    masked: scale.is_none(),
                };
            }
        }
    }
    out
}

/// Upper bounds of the per-feature quantities shared by the batch-norm scales.
struct Magnitudes {
    /// `r = 1/√s` (upward).
    r: Float,
    /// `|μ|`.
    mu: Float,
    /// `|γ|`.
    gamma: Float,
    /// `N`.
    n: Float,
}

fn magnitudes(f: &Feature) -> Magnitudes {
    let s_lo = Float::with_val_round(PREC, &f.s, Round::Down).0;
    let root = Float::with_val_round(PREC, s_lo.sqrt_ref(), Round::Down).0;
    Magnitudes {
        r: Float::with_val_round(PREC, 1 / &root, Round::Up).0,
        mu: abs_up(&f.mu),
        gamma: abs_up(&f.gamma),
        n: Float::with_val(PREC, f.x.len()),
    }
}

fn div_up(a: &Float, b: &Float) -> Float {
    Float::with_val_round(PREC, a / b, Round::Up).0
}

fn sum_up(items: impl IntoIterator<Item = Float>) -> Float {
    items
        .into_iter()
        .fold(Float::new(PREC), |acc, x| add_up(&acc, &x))
}

/// batch-norm: `κ = 1`; `n = N` (training, grad) or 1 (inference); `scale` per output, the
/// first-order propagation of the rounding errors of the sums and of the local operations.
///
/// Notation per feature: `M1 = Σ|x|/N`, `r = 1/√s`, `s = σ² + ε`, `X = |x| + |μ|`
/// (bounds `|x − μ|` whether `x − μ` is formed directly or by expanding a product), `u` the unit
/// roundoff. A reduction of `N` terms errs by at most `N·u·Σ|terms|` (Higham (3.4)); the harness
/// multiplies `scale` by `c·N·u`, so each sum contributes `Σ|terms|/N` times its sensitivity, and
/// the `O(u)` local roundings contribute the magnitude of what they round (covered by the factor
/// `N ≥ 1`).
///
/// - training `batch_mean`: `δμ ≤ N·u·M1` → `scale = M1`.
/// - training `batch_var`: seed 004's `Σ(x − μ̂)²/N` in any order, with a computed `μ̂`:
///   `δ ≤ N·u·σ² + (N·u·M1)²` → `scale = V := σ² + N·u·M1²`. (A one-pass `E[x²] − E[x]²`, as
///   XLA's expander computes, is another formula: it cancels where `|μ| ≫ σ`, and the harness
///   reports that as a deviation instead of widening every bound to `M2`.)
/// - training `y = γ(x − μ)·r + β`: `∂y/∂μ = −γr`, `∂y/∂σ² = −½γ(x − μ)r³`, so
///   `scale = |γ|r·M1 + ½|γ|X·r³·V + |γ|r·X + |β|` (the last two: local roundings of
///   `x − μ`, rsqrt, the products and `+ β`, in either association).
/// - inference (`n = 1`, no reductions): `scale = |γ|r·X + ½|γ|X·r³·(|v| + |ε|) + |β|` (the
///   second term: rounding `v + ε`, which matters when `v < 0` cancels `ε`).
/// - grad, with `G1 = Σ|∇y|/N`, `P = Σ|∇y|·X/N`, exact `c`, `d`:
///   `∇β = Σ∇y` → `scale = N·G1`;
///   `∇γ = r·Σ∇y(x − μ)` → `scale = r·N·P·(1 + ½r²(|v| + |ε|)) + r·|Σ∇y(x − μ)|`;
///   `∇x = γr(∇y − d − c(x − μ))`, `δd ≤ N·u·G1`, `δc ≤ N·u·P/s` → `scale =
///   |γ|r·(G1 + X·P/s) + |γ|r·(|∇y| + |d| + |c|·X)·(1 + ½r²(|v| + |ε|))`.
fn batch_norm_scales(
    root: &HloInstruction,
    operands: &[&Literal],
    kind: Kind,
) -> Result<Vec<Vec<ErrorScale>>, BackendError> {
    let p = batch_norm::prepare(kind, root, operands)?;
    let size = super::product(&p.dims);
    let features = p.groups.len();
    let eps = root.attr_f64("epsilon").unwrap_or(0.0) as f32;
    let eps = Float::with_val(PREC, eps.abs());
    let mut first = vec![ErrorScale::masked(1); size];
    let mut second = vec![ErrorScale::masked(1); features];
    let mut third = second.clone();
    let half = Float::with_val(PREC, 0.5);
    for (l, f) in p.features.iter().enumerate() {
        let count = p.groups[l].len() as u64;
        let n = if kind == Kind::Inference { 1 } else { count };
        let Some(f) = f else {
            for &o in &p.groups[l] {
                first[o] = ErrorScale::masked(n);
            }
            second[l] = ErrorScale::masked(n);
            third[l] = ErrorScale::masked(n);
            continue;
        };
        let mg = magnitudes(f);
        let ok = |scale: &Float| ErrorScale {
            n,
            kappa: 1.0,
            scale: f64_up(scale),
            masked: false,
        };
        let nn = mg.n.clone().max(&Float::with_val(PREC, 1));
        let xs: Vec<Float> = f.x.iter().map(|x| add_up(&abs_up(x), &mg.mu)).collect();
        let r3 = mul_up(&mul_up(&mg.r, &mg.r), &mg.r);
        let gr = mul_up(&mg.gamma, &mg.r);
        // 1 + ½r²(|v| + |ε|): the relative effect of rounding s = v + ε on r.
        let s_effect = add_up(
            &Float::with_val(PREC, 1),
            &mul_up(
                &half,
                &mul_up(&mul_up(&mg.r, &mg.r), &add_up(&abs_up(&f.var), &eps)),
            ),
        );
        match kind {
            Kind::Training | Kind::Inference => {
                let beta = abs_up(&f.beta);
                let m1 = div_up(&sum_up(f.x.iter().map(abs_up)), &nn);
                // Seed 004's two-pass σ² = Σ(x − μ̂)²/N with a computed μ̂: the sum's error
                // N·u·σ², plus (δμ)² ≤ (N·u·M1)² = N·u·(N·u·M1²) from Σ(x − μ̂)² = Σ(x − μ)² +
                // N(μ − μ̂)². (The one-pass E[x²] − E[x]² is not the seed's formula: it cancels
                // where |μ| ≫ σ, which the harness reports rather than allows.)
                let nu = Float::with_val(PREC, p.fmt.unit_roundoff()) * &nn;
                let v = add_up(&abs_up(&f.var), &mul_up(&nu, &mul_up(&m1, &m1)));
                let sens = if kind == Kind::Training {
                    v.clone()
                } else {
                    add_up(&abs_up(&f.var), &eps)
                };
                for (&o, x) in p.groups[l].iter().zip(&xs) {
                    let drift = mul_up(&half, &mul_up(&mul_up(&mg.gamma, x), &mul_up(&r3, &sens)));
                    let local = add_up(&mul_up(&gr, x), &beta);
                    let mut scale = add_up(&drift, &local);
                    if kind == Kind::Training {
                        scale = add_up(&scale, &mul_up(&gr, &m1));
                    }
                    first[o] = ok(&scale);
                }
                second[l] = ok(&m1);
                third[l] = ok(&v);
            }
            Kind::Grad => {
                let (psum, c, d) = batch_norm::grad_sums(f);
                let dys: Vec<Float> = f.dy.iter().map(abs_up).collect();
                let g1 = div_up(&sum_up(dys.iter().cloned()), &nn);
                let pp = div_up(&sum_up(dys.iter().zip(&xs).map(|(a, b)| mul_up(a, b))), &nn);
                let s_lo = Float::with_val_round(PREC, &f.s, Round::Down).0;
                let (c, d) = (abs_up(&c), abs_up(&d));
                for ((&o, x), dy) in p.groups[l].iter().zip(&xs).zip(&dys) {
                    let sums = add_up(&g1, &div_up(&mul_up(x, &pp), &s_lo));
                    let local = add_up(&add_up(dy, &d), &mul_up(&c, x));
                    let scale = mul_up(&gr, &add_up(&sums, &mul_up(&local, &s_effect)));
                    first[o] = ok(&scale);
                }
                let np = mul_up(&mg.n, &pp);
                let dgamma = add_up(
                    &mul_up(&mul_up(&mg.r, &np), &s_effect),
                    &mul_up(&mg.r, &abs_up(&psum)),
                );
                second[l] = ok(&dgamma);
                third[l] = ok(&mul_up(&mg.n, &g1));
            }
        }
    }
    Ok(if kind == Kind::Inference {
        vec![first]
    } else {
        vec![first, second, third]
    })
}

#[cfg(test)]
#[path = "bounds_tests.rs"]
mod tests;
