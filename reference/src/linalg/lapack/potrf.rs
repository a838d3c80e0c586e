//! `lapack_?potrf_ffi` (docs/custom-calls.md): `?POTRF(uplo)` on `a: [B..., m, m]`, result
//! `(l: [B..., m, m], info: s32[B...])`.
//!
//! - `l`, the `uplo` triangle (diagonal included): the exact Cholesky factor of the Hermitian `A`
//!   read from that triangle (`L` with `A = L·Lᴴ` for `L`, `U` with `A = Uᴴ·U` for `U`), computed
//!   as [`crate::linalg::cholesky`] does (exact rational `ℓ·D·ℓᴴ`, each `ℓ_ij·√d_j` rounded once).
//! - `l`, the strict other triangle: the operand's elements bit for bit (LAPACK never touches
//!   it); exact.
//! - `info`: 0 for a positive definite `A`, else `k` = the 1-based order of the first leading
//!   minor that is not positive definite (the first pivot `d_k ≤ 0`).
//!
//! Implementation-defined (NaN in the factor triangle here, masked): the factor triangle of a
//! batch element whose read triangle holds NaN/±inf or (complex) a diagonal element with a
//! nonzero imaginary part, together with its `info`; and the factor triangle of a batch element
//! that is not positive definite (LAPACK leaves a partial factorization there). A batch element
//! that is positive definite but so ill-conditioned that `12·m²·u·κ ≥ ½` has its `info` masked
//! too (a backend may legitimately find it not positive definite); so is the `info` of a batch
//! element that is not positive definite but within Cholesky's backward error of a positive
//! semidefinite matrix (`h + η·I` positive definite, `η = 4m(3m+1)·u·‖A‖_F`, Higham Thm 10.4: a
//! backend may legitimately complete the factorization).
//!
//! Gauge (`got` given): for a batch element that is not positive definite the backend's `info`
//! is adopted when `1 ≤ info ≤ m` (near singularity the order of the failing minor may differ);
//! otherwise the canonical `k` (and the comparison fails, as it should).
//!
//! Error scales ([`ErrorScale`], `error_bound: lapack`) of the factor triangle, as HLO cholesky's
//! (Higham Thm 10.4 backward error `4m(3m+1)u‖A‖₂`, Thm 10.8 first-order forward error after Sun):
//! `n = 12·m²` (the whole growth factor), `κ = ‖A‖_F·‖A⁻¹‖_F ≥ κ₂(A)`, `scale = ‖L‖_F =
//! √trace(A)`. The copied triangle and a determined `info`: `scale = 0` (exact).

use super::super::cholesky::{inverse, ldl_checked, round_factor};
use super::super::exact::{self, CRat};
use super::super::{element_format, extent, invalid, product, row_major_bits, ErrorScale};
use super::Evaluation;
use super::{exact_scale, masked_scale};
use crate::contraction::array_from_row_major;
use conformance_spec::custom_call::LapackCall;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::BackendError;
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Rational};

/// Evaluates the call (see [`super::evaluate`]): `operands` is `a: [B..., m, m]`; the result is
/// the tuple `(l, info)` in `shape`'s layouts, with two [`ErrorScale`] leaves when
/// `want_scales`. `got`: a backend's `(l, info)` whose `info` is adopted where the module
/// documentation says.
///
/// Errors: [`BackendError::Invalid`] for an operand or result shape that does not fit;
/// [`BackendError::Unsupported`] for an element type other than f32, f64, c64, c128;
/// [`BackendError::Failure`] if rounding a square root gives up (Ziv).
pub fn evaluate(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let &[a] = operands else {
        return invalid(format!(
            "`{target}` takes 1 operand, got {}",
            operands.len()
        ));
    };
    let (fmt, complex) = element_format(&target, a.element_type(), true)?;
    let (l_shape, info_shape) = leaves(&target, shape)?;
    let d = a.dimensions();
    let r = d.len();
    if r < 2 || d[r - 1] != d[r - 2] || l_shape.dimensions != d {
        return invalid(format!(
            "`{target}`: a {} must be [..., m, m] with the result's dimensions {l_shape}",
            a.shape()
        ));
    }
    let m = extent(d[r - 1]);
    let batch = product(&d[..r - 2]);
    if info_shape.element_count() != batch || info_shape.element_type != ElementType::S32 {
        return invalid(format!(
            "`{target}`: info {info_shape} must be s32 with one element per batch ({batch})"
        ));
    }
    let p = Potrf {
        fmt,
        complex,
        lower: call.lower,
        m,
        a: row_major_bits(a),
    };
    let got_info = got.and_then(|g| got_infos(g, batch));
    let outs: Vec<Batch> = (0..batch)
        .into_par_iter()
        .map(|t| p.batch(t, got_info.as_ref().map(|g| g[t]), want_scales))
        .collect::<Result<_, _>>()?;
    let mut l_bits = Vec::with_capacity(batch * m * m);
    let mut info_bits = Vec::with_capacity(batch);
    let mut l_scales = Vec::new();
    let mut info_scales = Vec::new();
    for o in outs {
        l_bits.extend(o.l);
        info_bits.push(u128::from(o.info as u32));
        l_scales.extend(o.l_scales);
        info_scales.extend(o.info_scale);
    }
    let result = Literal::Tuple(vec![
        Literal::Array(array_from_row_major(l_shape, &l_bits)),
        Literal::Array(array_from_row_major(info_shape, &info_bits)),
    ]);
    let scales = if want_scales {
        vec![l_scales, info_scales]
    } else {
        vec![]
    };
    Ok(Evaluation { result, scales })
}

/// The two array leaves of a `(l, info)` result shape.
fn leaves<'s>(
    target: &str,
    shape: &'s Shape,
) -> Result<(&'s ArrayShape, &'s ArrayShape), BackendError> {
    match shape.tuple_shapes() {
        Some([Shape::Array(l), Shape::Array(info)]) => Ok((l, info)),
        _ => invalid(format!(
            "`{target}`: the result {shape} must be a tuple (l, info)"
        )),
    }
}

/// The backend's `info` per batch element, when `got` has an s32 second leaf of `batch`
/// elements; `None` otherwise (no gauge).
fn got_infos(got: &Literal, batch: usize) -> Option<Vec<i32>> {
    let leaves = got.array_leaves();
    let info = leaves.get(1)?;
    if info.element_type() != ElementType::S32 || info.shape().element_count() != batch {
        return None;
    }
    Some(
        info.logical_bits()
            .iter()
            .map(|&b| b as u32 as i32)
            .collect(),
    )
}

/// One validated call: formats, `uplo`, order and the operand's logical row-major bits.
struct Potrf {
    fmt: FloatFormat,
    complex: bool,
    lower: bool,
    m: usize,
    a: Vec<u128>,
}

/// The evaluation of one batch element.
struct Batch {
    /// `m·m` row-major bits.
    l: Vec<u128>,
    info: i32,
    /// `m·m` scales (empty unless wanted).
    l_scales: Vec<ErrorScale>,
    /// One scale (empty unless wanted).
    info_scale: Option<ErrorScale>,
}

/// What reading the `uplo` triangle gives.
enum Read {
    /// The Hermitian matrix (every read element finite, real diagonal).
    Hermitian(Vec<Vec<CRat>>),
    /// Implementation-defined: the canonical `info` (the order of the first leading block that
    /// holds a non-finite element, or 0 when only a diagonal imaginary part is the cause).
    Undefined(i32),
}

fn up64(r: &Rational) -> Float {
    Float::with_val_round(64, r, Round::Up).0
}

impl Potrf {
    /// True when row-major position `(i, j)` is in the factor's triangle (diagonal included).
    fn in_factor(&self, i: usize, j: usize) -> bool {
        if self.lower {
            i >= j
        } else {
            i <= j
        }
    }

    /// Reads the Hermitian matrix of batch `t` from the `uplo` triangle.
    #[allow(clippy::needless_range_loop)] // (i, j) index the operand and the matrix at once
    fn read(&self, t: usize) -> Read {
        let m = self.m;
        let base = t * m * m;
        let mut h = vec![vec![CRat::default(); m]; m];
        let mut imaginary_diagonal = false;
        for i in 0..m {
            for j in 0..=i {
                // Element (i, j) of the lower triangle of A: a[i][j] or conj(a[j][i]).
                let at = if self.lower { i * m + j } else { j * m + i };
                let Some(e) = exact::element(self.fmt, self.complex, self.a[base + at]) else {
                    // The first pivot this element reaches is d_i (LAPACK stops there or later).
                    return Read::Undefined(i as i32 + 1);
                };
                let e = if self.lower { e } else { e.conj() };
                if i == j && !e.im.is_zero() {
                    imaginary_diagonal = true;
                }
                h[j][i] = e.conj();
                h[i][j] = e;
            }
        }
        if imaginary_diagonal {
            Read::Undefined(0)
        } else {
            Read::Hermitian(h)
        }
    }

    /// For a Hermitian `h` that is not positive definite: whether a backend's Cholesky may
    /// legitimately run to completion, i.e. whether `h + η·I` is positive definite with
    /// `η = 4m(3m+1)·u·‖h‖_F` (rounded up), Higham Thm 10.4's backward error of a completed
    /// factorization (`‖ΔA‖₂ ≤ 4m(3m+1)u‖A‖₂`): a completed factorization factors `h + ΔA`, which
    /// is positive semidefinite only if `λ_min(h) ≥ −η`. Decided exactly.
    fn may_succeed(&self, h: &[Vec<CRat>]) -> bool {
        let m = self.m;
        let fro: Rational = h.iter().flatten().map(CRat::norm_sqr).sum();
        let norm = Float::with_val_round(64, up64(&fro).sqrt_ref(), Round::Up).0;
        let c = (4 * m * (3 * m + 1)) as f64 * self.fmt.unit_roundoff();
        let eta = Float::with_val_round(64, &norm * c, Round::Up).0;
        let Some(eta) = eta.to_rational() else {
            return true; // an infinite norm bounds nothing
        };
        let mut shifted = h.to_vec();
        for (i, row) in shifted.iter_mut().enumerate() {
            row[i].re += &eta;
        }
        ldl_checked(&shifted).is_ok()
    }

    /// Evaluates batch `t`; `got_info` is the backend's `info` for it (gauge).
    fn batch(
        &self,
        t: usize,
        got_info: Option<i32>,
        want_scales: bool,
    ) -> Result<Batch, BackendError> {
        let m = self.m;
        let growth = 12 * (m as u64) * (m as u64);
        let base = t * m * m;
        let nan = exact::nan_element(self.fmt, self.complex);
        let mut l = self.a[base..base + m * m].to_vec();
        let fill_nan = |l: &mut Vec<u128>| {
            for i in 0..m {
                for j in 0..m {
                    if self.in_factor(i, j) {
                        l[i * m + j] = nan;
                    }
                }
            }
        };
        // Scales of the factor triangle given one scale for it; the copy is exact.
        let l_scales = |factor: ErrorScale| -> Vec<ErrorScale> {
            if !want_scales {
                return vec![];
            }
            (0..m * m)
                .map(|o| {
                    if self.in_factor(o / m, o % m) {
                        factor
                    } else {
                        exact_scale(growth)
                    }
                })
                .collect()
        };
        let wanted = |s: ErrorScale| want_scales.then_some(s);
        let h = match self.read(t) {
            Read::Hermitian(h) => h,
            Read::Undefined(info) => {
                fill_nan(&mut l);
                return Ok(Batch {
                    l,
                    info,
                    l_scales: l_scales(masked_scale(growth)),
                    info_scale: wanted(masked_scale(growth)),
                });
            }
        };
        let f = match ldl_checked(&h) {
            Ok(f) => f,
            Err(j) => {
                // Not positive definite: info > 0, the backend's when it is one.
                let info = match got_info {
                    Some(g) if g >= 1 && g as usize <= m => g,
                    _ => j as i32 + 1,
                };
                fill_nan(&mut l);
                let info_scale = if want_scales && self.may_succeed(&h) {
                    masked_scale(growth)
                } else {
                    exact_scale(growth)
                };
                return Ok(Batch {
                    l,
                    info,
                    l_scales: l_scales(masked_scale(growth)),
                    info_scale: wanted(info_scale),
                });
            }
        };
        let factor = round_factor(self.fmt, self.complex, self.lower, &f)?;
        for (o, v) in factor.into_iter().enumerate() {
            if self.in_factor(o / m, o % m) {
                l[o] = v;
            }
        }
        if !want_scales {
            return Ok(Batch {
                l,
                info: 0,
                l_scales: vec![],
                info_scale: None,
            });
        }
        // κ = ‖A‖_F·‖A⁻¹‖_F and scale = ‖L‖_F = √trace(A), rounded up.
        let frobenius_sq =
            |x: &[Vec<CRat>]| -> Rational { x.iter().flatten().map(CRat::norm_sqr).sum() };
        let norm = |r: &Rational| Float::with_val_round(64, up64(r).sqrt_ref(), Round::Up).0;
        let kappa = Float::with_val_round(
            64,
            &norm(&frobenius_sq(&h)) * &norm(&frobenius_sq(&inverse(&f))),
            Round::Up,
        )
        .0
        .to_f64_round(Round::Up);
        let trace: Rational = (0..m).map(|i| h[i][i].re.clone()).sum();
        let scale = norm(&trace).to_f64_round(Round::Up);
        let determined = (growth as f64) * self.fmt.unit_roundoff() * kappa < 0.5;
        Ok(Batch {
            l,
            info: 0,
            l_scales: l_scales(ErrorScale {
                n: growth,
                kappa,
                scale,
                masked: false,
            }),
            info_scale: Some(if determined {
                exact_scale(growth)
            } else {
                masked_scale(growth)
            }),
        })
    }
}

#[cfg(test)]
#[path = "potrf_tests.rs"]
mod tests;
