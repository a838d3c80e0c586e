//! `cholesky` (seed 004, Cholesky), exact: `L` with `A = L·Lᴴ` (`lower=true`) or `U = Lᴴ` with
//! `A = Uᴴ·U` (`lower=false`), `A` the Hermitian matrix read from the named triangle of `a`.
//!
//! The factorization is computed exactly as `A = ℓ·D·ℓᴴ` in (complex) rationals (ℓ unit lower
//! triangular, `D` real diagonal); each element `L_ij = ℓ_ij·√d_j` is then rounded once per
//! component ([`exact::round_affine_sqrt`]: exact when `√d_j` is rational, Ziv otherwise). The
//! other triangle of the result is written as zeros (implementation-defined, masked). A batch
//! whose `A` is not positive definite (some `d_j ≤ 0`), whose read triangle holds NaN or ±inf, or
//! (complex) whose diagonal has a nonzero imaginary part is NaN throughout (masked).

use super::exact::{self, CRat};
use super::triangular_solve::substitute;
use super::{element_format, extent, invalid, row_major_bits};
use crate::contraction::array_from_row_major;
use crate::interpreter::{self, Context};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::literal::{complex_bits, ArrayLiteral, Literal};
use conformance_spec::BackendError;
use rayon::prelude::*;
use rug::Rational;

/// A validated `cholesky`: shapes, `lower`, and the operand's logical row-major bits.
pub struct Problem {
    /// Component format of the element type.
    pub fmt: FloatFormat,
    /// True for c64/c128.
    pub complex: bool,
    /// Order of the matrices (`[..., m, m]`).
    pub m: usize,
    /// Number of batch instances.
    pub batch: usize,
    /// `lower` (false when omitted).
    pub lower: bool,
    a: Vec<u128>,
}

/// The exact factorization `A = ℓ·D·ℓᴴ` of one batch.
pub struct Ldl {
    /// Unit lower triangular `ℓ` (`ℓ[i][j]` for `i > j`; other entries unused).
    pub l: Vec<Vec<CRat>>,
    /// The positive pivots `d_j`.
    pub d: Vec<Rational>,
}

impl Problem {
    /// Validates `cholesky(a)`. Errors: [`BackendError::Unsupported`] for an element type other
    /// than f32, f64, c64, c128; [`BackendError::Invalid`] for a shape that is not `[..., m, m]`.
    pub fn new(instr: &HloInstruction, a: &ArrayLiteral) -> Result<Problem, BackendError> {
        let (fmt, complex) = element_format("cholesky", a.element_type(), true)?;
        let d = a.dimensions();
        let r = d.len();
        if r < 2 || d[r - 1] != d[r - 2] {
            return invalid(format!("cholesky: a {d:?} must be [..., m, m]"));
        }
        Ok(Problem {
            fmt,
            complex,
            m: extent(d[r - 1]),
            batch: super::product(&d[..r - 2]),
            lower: instr.attr_bool("lower").unwrap_or(false),
            a: row_major_bits(a),
        })
    }

    /// The Hermitian matrix `A` of batch `t` read from the named triangle, or `None` when that
    /// triangle holds NaN or ±inf or a diagonal element has a nonzero imaginary part.
    #[allow(clippy::needless_range_loop)] // (i, j) index two matrices at once
    pub fn hermitian(&self, t: usize) -> Option<Vec<Vec<CRat>>> {
        let m = self.m;
        let base = t * m * m;
        let mut a = vec![vec![CRat::default(); m]; m];
        for i in 0..m {
            for j in 0..=i {
                // Element (i, j) of the lower triangle of A: a[i][j] or conj(a[j][i]).
                let e = if self.lower {
                    exact::element(self.fmt, self.complex, self.a[base + i * m + j])?
                } else {
                    exact::element(self.fmt, self.complex, self.a[base + j * m + i])?.conj()
                };
                if i == j && !e.im.is_zero() {
                    return None;
                }
                a[j][i] = e.conj();
                a[i][j] = e;
            }
        }
        Some(a)
    }
}

/// The exact `ℓ·D·ℓᴴ` factorization of a Hermitian matrix, or `None` when it is not positive
/// definite (a pivot `d_j ≤ 0`).
pub fn ldl(a: &[Vec<CRat>]) -> Option<Ldl> {
    ldl_checked(a).ok()
}

/// [`ldl`], or `Err(j)` with `j` the 0-based index of the first pivot `d_j ≤ 0` (the leading
/// minor of order `j + 1` is the first that is not positive definite; LAPACK's `info = j + 1`).
pub(crate) fn ldl_checked(a: &[Vec<CRat>]) -> Result<Ldl, usize> {
    let m = a.len();
    let mut l = vec![vec![CRat::default(); m]; m];
    let mut d: Vec<Rational> = Vec::with_capacity(m);
    for j in 0..m {
        let mut dj = a[j][j].re.clone();
        for k in 0..j {
            dj -= l[j][k].norm_sqr() * &d[k];
        }
        if dj <= 0 {
            return Err(j);
        }
        l[j][j] = CRat::one();
        for i in j + 1..m {
            let mut acc = a[i][j].clone();
            for k in 0..j {
                if !l[i][k].is_zero() && !l[j][k].is_zero() {
                    acc = acc.sub(&l[i][k].mul(&l[j][k].conj()).scale(&d[k]));
                }
            }
            l[i][j] = acc.scale(&Rational::from(dj.recip_ref()));
        }
        d.push(dj);
    }
    Ok(Ldl { l, d })
}

/// `A⁻¹ = ℓ⁻ᴴ·D⁻¹·ℓ⁻¹` from the factorization (exact).
#[allow(clippy::needless_range_loop)] // (i, j) index two matrices at once
pub fn inverse(f: &Ldl) -> Vec<Vec<CRat>> {
    let m = f.d.len();
    // Column c of X = ℓ⁻¹ solves ℓ·x = e_c.
    let mut x = vec![vec![CRat::default(); m]; m];
    for c in 0..m {
        let e: Vec<CRat> = (0..m)
            .map(|i| if i == c { CRat::one() } else { CRat::default() })
            .collect();
        // ℓ has a unit diagonal: the solve never divides by zero.
        if let Some(col) = substitute(&f.l, true, &e) {
            for (i, v) in col.into_iter().enumerate() {
                x[i][c] = v;
            }
        }
    }
    let dinv: Vec<Rational> = f.d.iter().map(|d| Rational::from(d.recip_ref())).collect();
    (0..m)
        .map(|i| {
            (0..m)
                .map(|j| {
                    let mut acc = CRat::default();
                    for k in i.max(j)..m {
                        if !x[k][i].is_zero() && !x[k][j].is_zero() {
                            acc = acc.add(&x[k][i].conj().mul(&x[k][j]).scale(&dinv[k]));
                        }
                    }
                    acc
                })
                .collect()
        })
        .collect()
}

/// The rounded elements of one batch in row-major order (`m·m` values).
fn factor_batch(p: &Problem, t: usize) -> Result<Vec<u128>, BackendError> {
    let m = p.m;
    let nan = exact::nan_element(p.fmt, p.complex);
    let Some(f) = p.hermitian(t).as_deref().and_then(ldl) else {
        return Ok(vec![nan; m * m]);
    };
    round_factor(p.fmt, p.complex, p.lower, &f)
}

/// The factor of `f` rounded once per component into `fmt` (`complex`: c64/c128 bits), in
/// row-major order (`m·m` values): `L` on and below the diagonal (`lower`) or `U = Lᴴ` on and
/// above it; the other triangle holds zero bits.
///
/// Errors: [`BackendError::Failure`] if Ziv's loop gives up (see
/// [`exact::round_affine_sqrt`]).
pub(crate) fn round_factor(
    fmt: FloatFormat,
    complex: bool,
    lower: bool,
    f: &Ldl,
) -> Result<Vec<u128>, BackendError> {
    let m = f.d.len();
    let zero = Rational::new();
    let mut out = vec![0u128; m * m];
    for i in 0..m {
        for j in 0..=i {
            // L_ij = ℓ_ij·√d_j; the upper factor holds conj(L_ij) at (j, i).
            let l = &f.l[i][j];
            let re = exact::round_affine_sqrt(fmt, &l.re, &f.d[j], &zero, false)?;
            let value = if complex {
                let im = if lower { l.im.clone() } else { -l.im.clone() };
                let im = exact::round_affine_sqrt(fmt, &im, &f.d[j], &zero, false)?;
                complex_bits(fmt, re, im)
            } else {
                u128::from(re)
            };
            let at = if lower { i * m + j } else { j * m + i };
            out[at] = value;
        }
    }
    Ok(out)
}

/// The handler: `cholesky(a)` into the instruction's shape (any layout).
///
/// Errors: those of [`Problem::new`]; [`BackendError::Invalid`] when the result's type or
/// dimensions differ from the operand's.
pub(crate) fn cholesky(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    super::arity(instr, operands, 1)?;
    let a = interpreter::array(instr, operands, 0)?;
    let shape = interpreter::result_array_shape(instr)?;
    if shape.element_type != a.element_type() || shape.dimensions != a.dimensions() {
        return invalid(format!(
            "cholesky: the result {shape} must have the operand's type and dimensions {}",
            a.shape()
        ));
    }
    let p = Problem::new(instr, a)?;
    let batches: Vec<Vec<u128>> = (0..p.batch)
        .into_par_iter()
        .map(|t| factor_batch(&p, t))
        .collect::<Result<_, _>>()?;
    Ok(Literal::Array(array_from_row_major(
        shape,
        &batches.concat(),
    )))
}

#[cfg(test)]
#[path = "cholesky_tests.rs"]
mod tests;
