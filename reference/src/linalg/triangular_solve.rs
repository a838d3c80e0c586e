//! `triangular-solve` (seed 004, TriangularSolve), exact: `op(a)·x = b` (`left_side=true`) or
//! `x·op(a) = b`, solved by substitution in exact (complex) rationals and rounded once per
//! element.
//!
//! Only the triangle of `a` named by `lower` is read (before `op`), its diagonal taken as ones
//! when `unit_diagonal=true`. Every vector of `x` (a column of `b` for a left-side solve, a row
//! for a right-side one) is the solution of `S·v = rhs` with `S = op(a)` (left) or `op(a)ᵀ`
//! (right), itself triangular. Implementation-defined (NaN here, masked by
//! [`crate::linalg::error_scales`]): every element of a batch whose read triangle holds NaN or
//! ±inf or whose `S` is singular (a zero diagonal element), and every element of a vector whose
//! right-hand side holds NaN or ±inf.

use super::exact::{self, CRat};
use super::{element_format, extent, invalid, row_major_bits};
use crate::contraction::array_from_row_major;
use crate::interpreter::{self, Context};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::literal::{complex_bits, ArrayLiteral, Literal};
use conformance_spec::BackendError;
use rayon::prelude::*;

/// `transpose_a`: how `a` enters the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transpose {
    /// `op(a) = a`.
    No,
    /// `op(a) = aᵀ`.
    Transpose,
    /// `op(a) = aᴴ` (conjugate transpose; `aᵀ` for real types).
    Adjoint,
}

/// A validated `triangular-solve`: shapes, attributes and the operands' logical row-major bits.
pub struct Problem {
    /// Component format of the element type.
    pub fmt: FloatFormat,
    /// True for c64/c128.
    pub complex: bool,
    /// Order of the matrix `a` (`[..., m, m]`).
    pub m: usize,
    /// Number of right-hand-side vectors per batch.
    pub k: usize,
    /// Number of batch instances (product of the leading dimensions).
    pub batch: usize,
    /// `left_side`.
    pub left_side: bool,
    /// `lower`.
    pub lower: bool,
    /// `unit_diagonal`.
    pub unit_diagonal: bool,
    /// `transpose_a`.
    pub transpose: Transpose,
    a: Vec<u128>,
    b: Vec<u128>,
}

impl Problem {
    /// Validates `triangular-solve(a, b)` against the instruction's attributes and result shape.
    ///
    /// Errors: [`BackendError::Unsupported`] for an element type other than f32, f64, c64, c128;
    /// [`BackendError::Invalid`] for mismatched ranks, dimensions, types or attributes.
    pub fn new(
        instr: &HloInstruction,
        a: &ArrayLiteral,
        b: &ArrayLiteral,
        result_dims: Option<&[i64]>,
    ) -> Result<Problem, BackendError> {
        const OP: &str = "triangular-solve";
        let transpose = match instr.attr_enum("transpose_a") {
            None | Some("NO_TRANSPOSE") => Transpose::No,
            Some("TRANSPOSE") => Transpose::Transpose,
            Some("ADJOINT") => Transpose::Adjoint,
            Some(other) => return invalid(format!("{OP}: unknown transpose_a `{other}`")),
        };
        let flag = |name: &str| instr.attr_bool(name).unwrap_or(false);
        Problem::from_parts(
            a,
            b,
            flag("left_side"),
            flag("lower"),
            flag("unit_diagonal"),
            transpose,
            result_dims,
        )
    }

    /// [`Problem::new`] from the attributes themselves (LAPACK's `?TRSM` maps onto them: side
    /// `L` is `left_side`, uplo `L` `lower`, diag `U` `unit_diagonal`, trans_x `N`/`T`/`C`
    /// `transpose`).
    ///
    /// Errors: as [`Problem::new`].
    pub(crate) fn from_parts(
        a: &ArrayLiteral,
        b: &ArrayLiteral,
        left_side: bool,
        lower: bool,
        unit_diagonal: bool,
        transpose: Transpose,
        result_dims: Option<&[i64]>,
    ) -> Result<Problem, BackendError> {
        const OP: &str = "triangular-solve";
        let (fmt, complex) = element_format(OP, a.element_type(), true)?;
        if b.element_type() != a.element_type() {
            return invalid(format!(
                "{OP}: a is {} but b is {}",
                a.element_type(),
                b.element_type()
            ));
        }
        let (ad, bd) = (a.dimensions(), b.dimensions());
        let r = ad.len();
        if r < 2 || bd.len() != r {
            return invalid(format!(
                "{OP}: a {ad:?} and b {bd:?} must have the same rank, at least 2"
            ));
        }
        if ad[r - 1] != ad[r - 2] || ad[..r - 2] != bd[..r - 2] {
            return invalid(format!(
                "{OP}: a {ad:?} must be [..., m, m] with the batch dimensions of b {bd:?}"
            ));
        }
        let m = extent(ad[r - 1]);
        let (rows, cols) = (extent(bd[r - 2]), extent(bd[r - 1]));
        let k = if left_side {
            if rows != m {
                return invalid(format!("{OP}: left side: b {bd:?} must be [..., {m}, k]"));
            }
            cols
        } else {
            if cols != m {
                return invalid(format!("{OP}: right side: b {bd:?} must be [..., k, {m}]"));
            }
            rows
        };
        if let Some(dims) = result_dims {
            if dims != bd {
                return invalid(format!(
                    "{OP}: the result has dimensions {dims:?}, b has {bd:?}"
                ));
            }
        }
        Ok(Problem {
            fmt,
            complex,
            m,
            k,
            batch: super::product(&ad[..r - 2]),
            left_side,
            lower,
            unit_diagonal,
            transpose,
            a: row_major_bits(a),
            b: row_major_bits(b),
        })
    }

    /// The matrix `S` of batch `t` (`S·v = rhs` for every vector), or `None` when its read
    /// triangle holds NaN or ±inf. Returns `S` and whether it is lower triangular.
    pub fn system(&self, t: usize) -> Option<(Vec<Vec<CRat>>, bool)> {
        let m = self.m;
        let base = t * m * m;
        let mut tri = vec![vec![CRat::default(); m]; m];
        for (i, row) in tri.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                let read = if self.lower { i >= j } else { i <= j };
                if i == j && self.unit_diagonal {
                    *e = CRat::one();
                } else if read {
                    *e = exact::element(self.fmt, self.complex, self.a[base + i * m + j])?;
                }
            }
        }
        let op_transposes = self.transpose != Transpose::No;
        // S = op(a) for a left-side solve, op(a)ᵀ for a right-side one: S_ij = T_ij or T_ji.
        let swap = op_transposes == self.left_side;
        let conjugate = self.transpose == Transpose::Adjoint;
        let s = (0..m)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        let e = if swap { &tri[j][i] } else { &tri[i][j] };
                        if conjugate {
                            e.conj()
                        } else {
                            e.clone()
                        }
                    })
                    .collect()
            })
            .collect();
        Some((s, self.lower != swap))
    }

    /// The row-major offsets in `b` (and in the result) of vector `v` of batch `t`.
    pub fn vector_offsets(&self, t: usize, v: usize) -> Vec<usize> {
        let (m, k) = (self.m, self.k);
        let base = t * m * k;
        (0..m)
            .map(|i| {
                if self.left_side {
                    base + i * k + v
                } else {
                    base + v * m + i
                }
            })
            .collect()
    }

    /// The exact right-hand side at `offsets`, or `None` when it holds NaN or ±inf.
    pub fn rhs(&self, offsets: &[usize]) -> Option<Vec<CRat>> {
        offsets
            .iter()
            .map(|&o| exact::element(self.fmt, self.complex, self.b[o]))
            .collect()
    }
}

/// Solves the triangular system `S·v = rhs` exactly (`lower`: `S` is lower triangular), or
/// `None` when a diagonal element is zero.
pub fn substitute(s: &[Vec<CRat>], lower: bool, rhs: &[CRat]) -> Option<Vec<CRat>> {
    let m = rhs.len();
    let mut x = vec![CRat::default(); m];
    let order: Vec<usize> = if lower {
        (0..m).collect()
    } else {
        (0..m).rev().collect()
    };
    for (step, &i) in order.iter().enumerate() {
        let mut acc = rhs[i].clone();
        for &j in &order[..step] {
            if !s[i][j].is_zero() && !x[j].is_zero() {
                acc = acc.sub(&s[i][j].mul(&x[j]));
            }
        }
        x[i] = acc.div(&s[i][i])?;
    }
    Some(x)
}

/// The handler: `triangular-solve(a, b)` into the instruction's shape (any layout).
///
/// Errors: those of [`Problem::new`]; [`BackendError::Invalid`] for a tuple result.
pub(crate) fn triangular_solve(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    super::arity(instr, operands, 2)?;
    let (a, b) = (
        interpreter::array(instr, operands, 0)?,
        interpreter::array(instr, operands, 1)?,
    );
    let shape = interpreter::result_array_shape(instr)?;
    if shape.element_type != a.element_type() {
        return invalid(format!(
            "triangular-solve: the result is {}, the operands {}",
            shape.element_type,
            a.element_type()
        ));
    }
    let p = Problem::new(instr, a, b, Some(&shape.dimensions))?;
    Ok(Literal::Array(array_from_row_major(shape, &solve_bits(&p))))
}

/// The solution of every system of `p`, rounded once per component, in the logical row-major
/// order of `b` (NaN for the implementation-defined elements, see the module documentation).
pub(crate) fn solve_bits(p: &Problem) -> Vec<u128> {
    let mut bits = vec![exact::nan_element(p.fmt, p.complex); p.b.len()];
    let systems: Vec<Option<(Vec<Vec<CRat>>, bool)>> =
        (0..p.batch).into_par_iter().map(|t| p.system(t)).collect();
    let solved: Vec<(usize, Vec<u128>)> = (0..p.batch * p.k)
        .into_par_iter()
        .filter_map(|tv| {
            let (t, v) = (tv / p.k, tv % p.k);
            let (s, lower) = systems[t].as_ref()?;
            let x = substitute(s, *lower, &p.rhs(&p.vector_offsets(t, v))?)?;
            let values = x
                .iter()
                .map(|e| {
                    if p.complex {
                        complex_bits(
                            p.fmt,
                            exact::round_rational(p.fmt, &e.re),
                            exact::round_rational(p.fmt, &e.im),
                        )
                    } else {
                        u128::from(exact::round_rational(p.fmt, &e.re))
                    }
                })
                .collect();
            Some((tv, values))
        })
        .collect();
    for (tv, values) in solved {
        for (o, value) in p.vector_offsets(tv / p.k, tv % p.k).into_iter().zip(values) {
            bits[o] = value;
        }
    }
    bits
}

#[cfg(test)]
#[path = "triangular_solve_tests.rs"]
mod tests;
