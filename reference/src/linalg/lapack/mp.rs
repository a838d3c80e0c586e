//! High-precision helpers of the LAPACK references that are not exact (geqrf, syevd,
//! gesdd/gesvd): dense MPFR matrices ([`Mat`]), the cyclic Jacobi method (two-sided for symmetric
//! matrices, [`sym_eigen`]; one-sided for the SVD, [`one_sided`]), polar factors ([`polar`]),
//! orthonormal completion ([`complete`]), the canonical sign rule ([`canonical_sign`]), clusters
//! and gaps of eigen-/singular values, and the batch I/O the routines share (operands in logical
//! row-major order, a backend's result leaves, assembling [`Evaluation`]s).
//!
//! Working precision: [`precision`] `P = 4·p + 64` bits for a format of precision `p`, so every
//! quantity the references derive (to `~n²·2^−P` relative to ‖A‖) is far below the format's unit
//! roundoff `u = 2^−p` even after division by a gap of `64·n²·u·‖A‖` (the clustering threshold).

use crate::contraction::array_from_row_major;
use crate::linalg::lapack::Evaluation;
use crate::linalg::{element_format, exact, row_major_bits, ErrorScale};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::ops::NegAssign;
use rug::{Float, Rational};
use std::ops::Range;

/// The working precision for a format of precision `p` bits: `4·p + 64` (160 for f32, 276 for
/// f64).
pub fn precision(fmt: FloatFormat) -> u32 {
    4 * fmt.precision() + 64
}

/// A dense real matrix of MPFR numbers at one precision, row-major.
#[derive(Clone, Debug)]
pub struct Mat {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// MPFR precision of every element (bits).
    pub prec: u32,
    d: Vec<Float>,
}

impl Mat {
    /// The `rows × cols` zero matrix.
    pub fn zeros(rows: usize, cols: usize, prec: u32) -> Mat {
        Mat {
            rows,
            cols,
            prec,
            d: vec![Float::new(prec); rows * cols],
        }
    }

    /// The `n × n` identity.
    pub fn identity(n: usize, prec: u32) -> Mat {
        let mut m = Mat::zeros(n, n, prec);
        for i in 0..n {
            m.d[i * n + i] = Float::with_val(prec, 1);
        }
        m
    }

    /// Element `(i, j)`.
    pub fn at(&self, i: usize, j: usize) -> &Float {
        &self.d[i * self.cols + j]
    }

    /// Element `(i, j)`, mutable.
    pub fn at_mut(&mut self, i: usize, j: usize) -> &mut Float {
        &mut self.d[i * self.cols + j]
    }

    /// Column `j` as a vector.
    pub fn column(&self, j: usize) -> Vec<Float> {
        (0..self.rows).map(|i| self.at(i, j).clone()).collect()
    }

    /// The transpose.
    pub fn transpose(&self) -> Mat {
        let mut t = Mat::zeros(self.cols, self.rows, self.prec);
        for i in 0..self.rows {
            for j in 0..self.cols {
                *t.at_mut(j, i) = self.at(i, j).clone();
            }
        }
        t
    }

    /// `self · o` (inner dimensions must agree; extra rows/columns of `o` are ignored).
    pub fn matmul(&self, o: &Mat) -> Mat {
        let mut r = Mat::zeros(self.rows, o.cols, self.prec);
        for i in 0..self.rows {
            for j in 0..o.cols {
                let mut acc = Float::new(self.prec);
                for k in 0..self.cols.min(o.rows) {
                    acc += self.at(i, k) * o.at(k, j);
                }
                *r.at_mut(i, j) = acc;
            }
        }
        r
    }

    /// The Frobenius norm.
    pub fn frobenius(&self) -> Float {
        let mut acc = Float::new(self.prec);
        for x in &self.d {
            acc += Float::with_val(self.prec, x.square_ref());
        }
        acc.sqrt()
    }

    /// Columns `p`, `q` ← `(c·col_p − s·col_q, s·col_p + c·col_q)` (`self·J`).
    pub fn rotate_columns(&mut self, p: usize, q: usize, c: &Float, s: &Float) {
        for i in 0..self.rows {
            let (x, y) = (self.at(i, p).clone(), self.at(i, q).clone());
            *self.at_mut(i, p) =
                Float::with_val(self.prec, c * &x) - Float::with_val(self.prec, s * &y);
            *self.at_mut(i, q) =
                Float::with_val(self.prec, s * &x) + Float::with_val(self.prec, c * &y);
        }
    }

    /// Rows `p`, `q` ← `(c·row_p − s·row_q, s·row_p + c·row_q)` (`Jᵀ·self`).
    pub fn rotate_rows(&mut self, p: usize, q: usize, c: &Float, s: &Float) {
        for j in 0..self.cols {
            let (x, y) = (self.at(p, j).clone(), self.at(q, j).clone());
            *self.at_mut(p, j) =
                Float::with_val(self.prec, c * &x) - Float::with_val(self.prec, s * &y);
            *self.at_mut(q, j) =
                Float::with_val(self.prec, s * &x) + Float::with_val(self.prec, c * &y);
        }
    }
}

/// `x · y`.
pub fn dot(x: &[Float], y: &[Float], prec: u32) -> Float {
    let mut acc = Float::new(prec);
    for (a, b) in x.iter().zip(y) {
        acc += a * b;
    }
    acc
}

/// The Jacobi rotation `(c, s)` that diagonalizes `[[app, apq], [apq, aqq]]` by `Jᵀ·M·J`
/// (`J = [[c, s], [−s, c]]`, the smaller of the two angles; Rutishauser's formulas).
pub fn rotation(app: &Float, aqq: &Float, apq: &Float, prec: u32) -> (Float, Float) {
    let diff = Float::with_val(prec, aqq - app);
    let theta = diff / Float::with_val(prec, apq * 2u32);
    let root = (Float::with_val(prec, theta.square_ref()) + 1u32).sqrt();
    let mut t = Float::with_val(prec, 1) / (Float::with_val(prec, theta.abs_ref()) + root);
    if theta.is_sign_negative() {
        t = -t;
    }
    let c = Float::with_val(prec, 1) / (Float::with_val(prec, t.square_ref()) + 1u32).sqrt();
    let s = Float::with_val(prec, &t * &c);
    (c, s)
}

const MAX_SWEEPS: usize = 200;

/// `2^−k` at `prec`.
pub fn pow2_neg(k: u32, prec: u32) -> Float {
    Float::with_val(prec, 1) >> k
}

/// The noise level of the Jacobi computations relative to the matrix norm: `2^−(P − 24)`.
pub fn noise(prec: u32) -> Float {
    pow2_neg(prec.saturating_sub(24), prec)
}

/// Eigenvalues (unsorted) and eigenvectors (the columns of the returned matrix) of the symmetric
/// `a`, by cyclic two-sided Jacobi at `a.prec`, until every off-diagonal element is at most
/// `2^−(P−8)·‖A‖_F`.
///
/// Errors: [`BackendError::Failure`] when 200 sweeps do not converge (never seen).
pub fn sym_eigen(a: &Mat) -> Result<(Vec<Float>, Mat), BackendError> {
    let (n, prec) = (a.rows, a.prec);
    let mut a = a.clone();
    let mut v = Mat::identity(n, prec);
    let tol = Float::with_val(prec, a.frobenius() * pow2_neg(prec.saturating_sub(8), prec));
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                if Float::with_val(prec, a.at(p, q).abs_ref()) <= tol {
                    continue;
                }
                rotated = true;
                let (c, s) = rotation(a.at(p, p), a.at(q, q), a.at(p, q), prec);
                a.rotate_columns(p, q, &c, &s);
                a.rotate_rows(p, q, &c, &s);
                *a.at_mut(p, q) = Float::new(prec);
                *a.at_mut(q, p) = Float::new(prec);
                v.rotate_columns(p, q, &c, &s);
            }
        }
        if !rotated {
            return Ok(((0..n).map(|i| a.at(i, i).clone()).collect(), v));
        }
    }
    Err(BackendError::Failure(
        "Jacobi eigenvalue iteration did not converge".into(),
    ))
}

/// One-sided (Hestenes) Jacobi on `g` (`r × c`): rotates columns until every pair is orthogonal
/// to `2^−(P−8)` relative to the product of their norms. Returns `(g·W, W)`, `W` orthogonal
/// `c × c`; the singular values of `g` are the column norms of `g·W`.
///
/// A column whose norm is at most [`noise`]`·‖g‖_F` is not rotated any more (it counts as zero:
/// the caller's threshold for a zero singular value is above that). Such a column is what is
/// left of a column in the span of the others (rank deficiency) after rounding: pure rounding
/// noise, of a direction unrelated to the matrix, which rotating against the other columns only
/// shrinks by `2^−P` per sweep without ever making it orthogonal to them (de Rijk; LAPACK's
/// `?gesvj` likewise skips columns below its `small` threshold).
///
/// Errors: [`BackendError::Failure`] when 200 sweeps do not converge.
pub fn one_sided(g: &Mat) -> Result<(Mat, Mat), BackendError> {
    let (c_n, prec) = (g.cols, g.prec);
    let mut g = g.clone();
    let mut w = Mat::identity(c_n, prec);
    let eps = pow2_neg(prec.saturating_sub(8), prec);
    let tiny = Float::with_val(prec, g.frobenius() * noise(prec));
    let tiny_sq = Float::with_val(prec, tiny.square_ref());
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..c_n {
            for q in p + 1..c_n {
                let (gp, gq) = (g.column(p), g.column(q));
                let alpha = dot(&gp, &gp, prec);
                let beta = dot(&gq, &gq, prec);
                if alpha <= tiny_sq || beta <= tiny_sq {
                    continue;
                }
                let gamma = dot(&gp, &gq, prec);
                if gamma.is_zero() {
                    continue;
                }
                let limit = Float::with_val(prec, &alpha * &beta).sqrt() * &eps;
                if Float::with_val(prec, gamma.abs_ref()) <= limit {
                    continue;
                }
                rotated = true;
                let (c, s) = rotation(&alpha, &beta, &gamma, prec);
                g.rotate_columns(p, q, &c, &s);
                w.rotate_columns(p, q, &c, &s);
            }
        }
        if !rotated {
            return Ok((g, w));
        }
    }
    Err(BackendError::Failure(
        "one-sided Jacobi SVD did not converge".into(),
    ))
}

/// A pair of column lists: reference columns, backend columns.
pub type ColumnPair<'a> = (&'a [Vec<Float>], &'a [Vec<Float>]);

/// `M_ab = Σ_pairs x_a · y_b` over the given pairs of column lists (each pair: reference columns,
/// backend columns; `M` is `#x × #y`, from the first pair's counts).
pub fn cross(pairs: &[ColumnPair], prec: u32) -> Mat {
    let (r, c) = pairs.first().map_or((0, 0), |p| (p.0.len(), p.1.len()));
    let mut m = Mat::zeros(r, c, prec);
    for (x, y) in pairs {
        for (a, xa) in x.iter().enumerate().take(r) {
            for (b, yb) in y.iter().enumerate().take(c) {
                let d = dot(xa, yb, prec);
                *m.at_mut(a, b) += d;
            }
        }
    }
    m
}

/// The orthogonal polar factor `M·(MᵀM)^(−1/2)` of `m` (`r × c`, `r ≥ c`: orthonormal columns),
/// or `None` when its smallest singular value is below `min_sigma` (the backend's basis is then
/// no rotation of the reference's, or does not lie in the reference's subspace).
///
/// Errors: those of [`sym_eigen`].
pub fn polar(m: &Mat, min_sigma: f64) -> Result<Option<Mat>, BackendError> {
    let prec = m.prec;
    let (lam, z) = sym_eigen(&m.transpose().matmul(m))?;
    let floor = Float::with_val(prec, min_sigma * min_sigma);
    if lam.iter().any(|l| *l < floor) {
        return Ok(None);
    }
    let mut zd = z.clone();
    for (j, l) in lam.iter().enumerate() {
        let inv = Float::with_val(prec, 1) / Float::with_val(prec, l.sqrt_ref());
        for i in 0..zd.rows {
            *zd.at_mut(i, j) *= &inv;
        }
    }
    Ok(Some(m.matmul(&zd.matmul(&z.transpose()))))
}

/// The columns `x·O`: column `b` is `Σ_a x_a·O_ab`.
pub fn rotate(x: &[Vec<Float>], o: &Mat, prec: u32) -> Vec<Vec<Float>> {
    let dim = x.first().map_or(0, Vec::len);
    (0..o.cols)
        .map(|b| {
            (0..dim)
                .map(|i| {
                    let mut acc = Float::new(prec);
                    for (a, col) in x.iter().enumerate() {
                        acc += &col[i] * o.at(a, b);
                    }
                    acc
                })
                .collect()
        })
        .collect()
}

/// Negates `v` when its component of largest magnitude (the first of those within `2^−(P/2)`
/// of the largest) is negative; returns whether it did.
pub fn canonical_sign(v: &mut [Float], prec: u32) -> bool {
    let Some(max) = v
        .iter()
        .map(|x| Float::with_val(prec, x.abs_ref()))
        .max_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal))
    else {
        return false;
    };
    let near = max * (Float::with_val(prec, 1) - pow2_neg(prec / 2, prec));
    let flip = v
        .iter()
        .find(|x| Float::with_val(prec, x.abs_ref()) >= near)
        .is_some_and(|x| x.is_sign_negative() && !x.is_zero());
    if flip {
        v.iter_mut().for_each(|x| x.neg_assign());
    }
    flip
}

/// Sets components of magnitude at most `limit` to zero (below the computation's noise).
pub fn snap(v: &mut [Float], limit: &Float) {
    for x in v {
        if Float::with_val(x.prec(), x.abs_ref()) <= *limit {
            *x = Float::new(x.prec());
        }
    }
}

/// Fills the `None` entries of `cols` (vectors of dimension `dim`) with orthonormal vectors
/// orthogonal to every other entry: at each slot the unit vector `e_i` whose residual after two
/// Gram–Schmidt passes is largest (the first on ties), normalized, with the canonical sign.
pub fn complete(cols: Vec<Option<Vec<Float>>>, dim: usize, prec: u32) -> Vec<Vec<Float>> {
    let mut cols = cols;
    for slot in 0..cols.len() {
        if cols[slot].is_some() {
            continue;
        }
        let basis: Vec<&Vec<Float>> = cols.iter().flatten().collect();
        let mut best: Option<(Float, Vec<Float>)> = None;
        for e in 0..dim {
            let mut r: Vec<Float> = (0..dim)
                .map(|i| Float::with_val(prec, u32::from(i == e)))
                .collect();
            for _ in 0..2 {
                for q in &basis {
                    let h = dot(q, &r, prec);
                    for (ri, qi) in r.iter_mut().zip(q.iter()) {
                        *ri -= Float::with_val(prec, &h * qi);
                    }
                }
            }
            let norm = dot(&r, &r, prec);
            if best.as_ref().is_none_or(|(b, _)| norm > *b) {
                best = Some((norm, r));
            }
        }
        let mut v = match best {
            Some((norm, r)) if !norm.is_zero() => {
                let inv = Float::with_val(prec, 1) / norm.sqrt();
                r.into_iter().map(|x| x * &inv).collect()
            }
            _ => vec![Float::new(prec); dim],
        };
        canonical_sign(&mut v, prec);
        cols[slot] = Some(v);
    }
    cols.into_iter().flatten().collect()
}

/// Ranges of adjacent (sorted) values whose consecutive gaps are at most `t`.
pub fn clusters(values: &[Float], t: &Float) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for i in 0..values.len() {
        match out.last_mut() {
            Some(r) if Float::with_val(t.prec(), &values[i - 1] - &values[i]).abs() <= *t => {
                r.end = i + 1
            }
            _ => out.push(i..i + 1),
        }
    }
    out
}

/// The condition `‖A‖_F / gap`, `gap` the smallest distance between a value of `inside` and one
/// of `outside`: 1 when `outside` is empty, +inf for a zero gap; rounded up to `f64`.
pub fn gap_kappa(norm: &Float, inside: &[Float], outside: &[Float]) -> f64 {
    let mut gap: Option<Float> = None;
    for a in inside {
        for b in outside {
            let d = Float::with_val(norm.prec(), a - b).abs();
            if gap.as_ref().is_none_or(|g| d < *g) {
                gap = Some(d);
            }
        }
    }
    match gap {
        None => 1.0,
        Some(g) if g.is_zero() => f64::INFINITY,
        Some(g) => Float::with_val_round(norm.prec(), norm / &g, Round::Up)
            .0
            .to_f64_round(Round::Up),
    }
}

/// An upper bound of a non-negative `x` as `f64`.
pub fn up(x: &Float) -> f64 {
    x.to_f64_round(Round::Up)
}

/// `x` rounded once into `fmt` (an `f32`/`f64` element's bits).
pub fn round(fmt: FloatFormat, x: &Float) -> u128 {
    u128::from(crate::round::round_exact(fmt, x))
}

/// The exact value of a finite real element at `prec` (exact: `prec ≥ 53`), `None` for NaN/inf.
pub fn decode(fmt: FloatFormat, bits: u128, prec: u32) -> Option<Float> {
    exact::rational(fmt, bits as u64).map(|r| Float::with_val(prec, &r))
}

/// The error-scale helpers of the `lapack` bound model (see [`ErrorScale`]).
pub fn exact_scale() -> ErrorScale {
    ErrorScale {
        n: 1,
        kappa: 1.0,
        scale: 0.0,
        masked: false,
    }
}

/// An implementation-defined element.
pub fn masked(n: u64) -> ErrorScale {
    ErrorScale {
        n,
        kappa: f64::INFINITY,
        scale: f64::INFINITY,
        masked: true,
    }
}

/// A bounded element: growth `n`, condition `kappa`, magnitude `scale`.
pub fn bound(n: u64, kappa: f64, scale: f64) -> ErrorScale {
    ErrorScale {
        n,
        kappa,
        scale,
        masked: false,
    }
}

/// A batched operand `[B..., r, c]` (or `[B..., c]` with `r = 1`) in logical row-major order.
pub struct Operand {
    /// Component format (f32 or f64).
    pub fmt: FloatFormat,
    /// True for c64/c128.
    pub complex: bool,
    /// Number of batch elements (product of the batch dimensions).
    pub batch: usize,
    /// Rows per batch element (1 for a vector operand).
    pub rows: usize,
    /// Columns per batch element (the length of a vector operand).
    pub cols: usize,
    bits: Vec<u128>,
}

impl Operand {
    /// Reads `a` with `nb` leading batch dimensions and `trailing` (1 or 2) matrix dimensions.
    ///
    /// Errors: [`BackendError::Invalid`] for a rank other than `nb + trailing`;
    /// [`BackendError::Unsupported`] for an element type other than f32, f64, c64, c128.
    pub fn new(
        target: &str,
        a: &ArrayLiteral,
        nb: usize,
        trailing: usize,
    ) -> Result<Operand, BackendError> {
        let (fmt, complex) = element_format(target, a.element_type(), true)?;
        let d = a.dimensions();
        if d.len() != nb + trailing {
            return Err(BackendError::Invalid(format!(
                "{target}: operand {} must have rank {}",
                a.shape(),
                nb + trailing
            )));
        }
        let ext = |x: i64| usize::try_from(x).unwrap_or(0);
        let (rows, cols) = if trailing == 2 {
            (ext(d[nb]), ext(d[nb + 1]))
        } else {
            (1, ext(d[nb]))
        };
        Ok(Operand {
            fmt,
            complex,
            batch: d[..nb].iter().map(|&x| ext(x)).product(),
            rows,
            cols,
            bits: row_major_bits(a),
        })
    }

    /// The bits of element `(i, j)` of batch `t`.
    pub fn bits(&self, t: usize, i: usize, j: usize) -> u128 {
        self.bits[(t * self.rows + i) * self.cols + j]
    }

    /// The exact value of element `(i, j)` of batch `t`, `None` when non-finite.
    pub fn exact(&self, t: usize, i: usize, j: usize) -> Option<exact::CRat> {
        exact::element(self.fmt, self.complex, self.bits(t, i, j))
    }

    /// The whole (real) matrix of batch `t` at `prec`, with `‖A‖_F²` exactly, or `None` when an
    /// element is non-finite.
    pub fn real_matrix(&self, t: usize, prec: u32) -> Option<(Mat, Rational)> {
        let mut m = Mat::zeros(self.rows, self.cols, prec);
        let mut sq = Rational::new();
        for i in 0..self.rows {
            for j in 0..self.cols {
                let x = self.exact(t, i, j)?.re;
                sq += Rational::from(x.square_ref());
                *m.at_mut(i, j) = Float::with_val(prec, &x);
            }
        }
        Some((m, sq))
    }
}

/// The logical row-major bits of each leaf of a backend's result `got`, checked against
/// `shape`. Errors: [`BackendError::Invalid`] when `got` does not have the result's shape.
pub fn got_leaves(
    target: &str,
    got: Option<&Literal>,
    shape: &Shape,
) -> Result<Option<Vec<Vec<u128>>>, BackendError> {
    let Some(g) = got else { return Ok(None) };
    if !g.shape().compatible(shape) {
        return Err(BackendError::Invalid(format!(
            "{target}: the backend's result {} does not have the result shape {shape}",
            g.shape()
        )));
    }
    Ok(Some(
        g.array_leaves().iter().map(|a| a.logical_bits()).collect(),
    ))
}

/// One batch element's result: per leaf, its elements' bits and error scales (row-major).
#[derive(Default)]
pub struct Part {
    /// Per leaf, the element bits (logical row-major).
    pub values: Vec<Vec<u128>>,
    /// Per leaf, the error scales (empty when not wanted).
    pub scales: Vec<Vec<ErrorScale>>,
}

/// The elements per batch of each leaf (`nb` leading batch dimensions).
pub fn leaf_sizes(shape: &Shape, nb: usize) -> Vec<usize> {
    shape
        .array_leaves()
        .iter()
        .map(|a| {
            a.dimensions
                .iter()
                .skip(nb)
                .map(|&d| usize::try_from(d).unwrap_or(0))
                .product()
        })
        .collect()
}

/// Concatenates the batch elements' parts into the result of `shape` (its layouts).
///
/// Errors: [`BackendError::Invalid`] when a part's leaf count differs from the shape's.
pub fn assemble(shape: &Shape, parts: Vec<Part>) -> Result<Evaluation, BackendError> {
    let leaves = shape.array_leaves();
    let mut values: Vec<Vec<u128>> = vec![Vec::new(); leaves.len()];
    let mut scales: Vec<Vec<ErrorScale>> = vec![Vec::new(); leaves.len()];
    for p in parts {
        if p.values.len() != leaves.len() {
            return Err(BackendError::Invalid(format!(
                "internal: {} leaves for the result shape {shape}",
                p.values.len()
            )));
        }
        for (i, v) in p.values.into_iter().enumerate() {
            values[i].extend(v);
        }
        for (i, s) in p.scales.into_iter().enumerate() {
            scales[i].extend(s);
        }
    }
    let arrays: Vec<Literal> = leaves
        .iter()
        .zip(&values)
        .map(|(s, v)| Literal::Array(array_from_row_major(s, v)))
        .collect();
    let result = match shape {
        Shape::Tuple(_) => Literal::Tuple(arrays),
        _ => arrays.into_iter().next().ok_or_else(|| {
            BackendError::Invalid(format!("internal: no leaf in the result shape {shape}"))
        })?,
    };
    if scales.iter().all(Vec::is_empty) {
        scales.clear();
    }
    Ok(Evaluation { result, scales })
}
