//! The complex element types (c64, c128) of `lapack_?heevd_ffi` and `lapack_?gesdd_ffi` /
//! `lapack_?gesvd_ffi`: the methods, thresholds, clusters and error scales of the real cases
//! ([`super`]'s documentation), with complex arithmetic.
//!
//! **Method.** Complex Jacobi in MPFR at [`mp::precision`] of the component format. heevd: the
//! Hermitian `A` is read from the `uplo` triangle (the other triangle is the conjugate; the
//! imaginary parts of the diagonal are ignored, as ?HETRD does); for each off-diagonal
//! `a_pq = |a_pq|·e^{iφ}` the phase `diag(1, e^{−iφ})` on index `q` makes it real, then a real
//! Jacobi rotation zeroes it. gesdd/gesvd: one-sided Jacobi on `A` (m ≥ n) or `Aᴴ` (m < n); for a
//! column pair with `g_pᴴ·g_q = |γ|·e^{iφ}` column `q` takes the phase `e^{−iφ}`, then the real
//! rotation of the real case. `A = U·diag(s)·Vᴴ`, `vt = Vᴴ` (rows conjugated).
//!
//! **Canonical phase.** A vector is multiplied by the unit number that makes its component of
//! largest modulus (the first within `2^−(P/2)` of the largest) real and positive; `u_i` takes
//! `v_i`'s factor. For real data this is the real cases' sign rule.
//!
//! **Gauge.** A complex vector of dimension `n` is held realified, `[Re x; Im x]` (`2n` reals):
//! real inner products of realified vectors are `Re(xᴴy)`. For reference columns `X` (`r`) and
//! backend columns `Y` (`c`), the real cross matrix of `[X, i·X]` and `[Y, i·Y]` is the real
//! embedding `[[Re M, −Im M], [Im M, Re M]]` of `M = Xᴴ·Y`, whose real polar factor is the
//! embedding of `M`'s unitary polar factor `O` (with the same singular values, each twice); the
//! first `c` columns of `[X, i·X]·polar` are `X·O`. So the real cases' thresholds apply unchanged:
//! a phase per simple eigen-/singular value, a unitary rotation per cluster, the null spaces
//! separately.

use super::mp::{self, Mat, Operand, Part};
use super::{svd_scales, SvdDims};
use conformance_spec::custom_call::Mode;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::complex_bits;
use conformance_spec::BackendError;
use rug::Float;
use std::cmp::Ordering;
use std::ops::Range;

/// A dense complex MPFR matrix: real and imaginary parts.
#[derive(Clone, Debug)]
pub struct CMat {
    /// Real part.
    pub re: Mat,
    /// Imaginary part.
    pub im: Mat,
}

impl CMat {
    /// The `rows × cols` zero matrix.
    pub fn zeros(rows: usize, cols: usize, prec: u32) -> CMat {
        CMat {
            re: Mat::zeros(rows, cols, prec),
            im: Mat::zeros(rows, cols, prec),
        }
    }

    /// The `n × n` identity.
    pub fn identity(n: usize, prec: u32) -> CMat {
        CMat {
            re: Mat::identity(n, prec),
            im: Mat::zeros(n, n, prec),
        }
    }

    /// The Frobenius norm.
    pub fn frobenius(&self) -> Float {
        let prec = self.re.prec;
        let (r, i) = (self.re.frobenius(), self.im.frobenius());
        (Float::with_val(prec, r.square_ref()) + Float::with_val(prec, i.square_ref())).sqrt()
    }

    /// The conjugate transpose.
    pub fn conj_transpose(&self) -> CMat {
        let mut im = self.im.transpose();
        for i in 0..im.rows {
            for j in 0..im.cols {
                let x = im.at_mut(i, j);
                *x = -x.clone();
            }
        }
        CMat {
            re: self.re.transpose(),
            im,
        }
    }

    /// Column `j`, realified (`[Re; Im]`).
    pub fn column(&self, j: usize) -> Vec<Float> {
        let mut c = self.re.column(j);
        c.extend(self.im.column(j));
        c
    }

    /// Column `q` ← column `q`·(c + i·s).
    fn scale_column(&mut self, q: usize, c: &Float, s: &Float) {
        for i in 0..self.re.rows {
            let (x, y) = mul(self.re.at(i, q), self.im.at(i, q), c, s);
            *self.re.at_mut(i, q) = x;
            *self.im.at_mut(i, q) = y;
        }
    }

    /// Row `q` ← row `q`·(c + i·s).
    fn scale_row(&mut self, q: usize, c: &Float, s: &Float) {
        for j in 0..self.re.cols {
            let (x, y) = mul(self.re.at(q, j), self.im.at(q, j), c, s);
            *self.re.at_mut(q, j) = x;
            *self.im.at_mut(q, j) = y;
        }
    }

    fn rotate_columns(&mut self, p: usize, q: usize, c: &Float, s: &Float) {
        self.re.rotate_columns(p, q, c, s);
        self.im.rotate_columns(p, q, c, s);
    }

    fn rotate_rows(&mut self, p: usize, q: usize, c: &Float, s: &Float) {
        self.re.rotate_rows(p, q, c, s);
        self.im.rotate_rows(p, q, c, s);
    }

    fn set_zero(&mut self, i: usize, j: usize) {
        let prec = self.re.prec;
        *self.re.at_mut(i, j) = Float::new(prec);
        *self.im.at_mut(i, j) = Float::new(prec);
    }
}

/// `(x + i·y)·(c + i·s)`.
fn mul(x: &Float, y: &Float, c: &Float, s: &Float) -> (Float, Float) {
    let prec = x.prec();
    if s.is_zero() {
        return (Float::with_val(prec, x * c), Float::with_val(prec, y * c));
    }
    let re = Float::with_val(prec, x * c) - Float::with_val(prec, y * s);
    let im = Float::with_val(prec, x * s) + Float::with_val(prec, y * c);
    (re, im)
}

fn hypot(x: &Float, y: &Float) -> Float {
    let prec = x.prec();
    (Float::with_val(prec, x.square_ref()) + Float::with_val(prec, y.square_ref())).sqrt()
}

/// `xᴴ·y` of realified vectors.
fn inner(x: &[Float], y: &[Float], prec: u32) -> (Float, Float) {
    let n = x.len() / 2;
    let re = mp::dot(x, y, prec);
    let im = mp::dot(&x[..n], &y[n..], prec) - mp::dot(&x[n..], &y[..n], prec);
    (re, im)
}

const MAX_SWEEPS: usize = 200;

/// Eigenvalues (unsorted) and eigenvectors (columns) of the Hermitian `a` by complex cyclic
/// Jacobi (see the module documentation), to the tolerance of [`mp::sym_eigen`].
///
/// Errors: [`BackendError::Failure`] when 200 sweeps do not converge.
pub fn herm_eigen(a: &CMat) -> Result<(Vec<Float>, CMat), BackendError> {
    let (n, prec) = (a.re.rows, a.re.prec);
    let mut a = a.clone();
    let mut v = CMat::identity(n, prec);
    let tol = Float::with_val(
        prec,
        a.frobenius() * mp::pow2_neg(prec.saturating_sub(8), prec),
    );
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let r = hypot(a.re.at(p, q), a.im.at(p, q));
                if r <= tol {
                    continue;
                }
                rotated = true;
                if !a.im.at(p, q).is_zero() {
                    let c = Float::with_val(prec, a.re.at(p, q) / &r);
                    let s = Float::with_val(prec, a.im.at(p, q) / &r);
                    let ns = Float::with_val(prec, -&s);
                    a.scale_column(q, &c, &ns);
                    a.scale_row(q, &c, &s);
                    v.scale_column(q, &c, &ns);
                    *a.re.at_mut(p, q) = r.clone();
                    *a.re.at_mut(q, p) = r.clone();
                    *a.im.at_mut(p, q) = Float::new(prec);
                    *a.im.at_mut(q, p) = Float::new(prec);
                    *a.im.at_mut(q, q) = Float::new(prec);
                }
                let (c, s) = mp::rotation(a.re.at(p, p), a.re.at(q, q), a.re.at(p, q), prec);
                a.rotate_columns(p, q, &c, &s);
                a.rotate_rows(p, q, &c, &s);
                a.set_zero(p, q);
                a.set_zero(q, p);
                *a.im.at_mut(p, p) = Float::new(prec);
                *a.im.at_mut(q, q) = Float::new(prec);
                v.rotate_columns(p, q, &c, &s);
            }
        }
        if !rotated {
            return Ok(((0..n).map(|i| a.re.at(i, i).clone()).collect(), v));
        }
    }
    Err(BackendError::Failure(
        "complex Jacobi eigenvalue iteration did not converge".into(),
    ))
}

/// Complex one-sided Jacobi (see the module documentation and [`mp::one_sided`], whose
/// tolerances it shares): `(g·W, W)`, `W` unitary.
///
/// Errors: [`BackendError::Failure`] when 200 sweeps do not converge.
pub fn one_sided(g: &CMat) -> Result<(CMat, CMat), BackendError> {
    let (c_n, prec) = (g.re.cols, g.re.prec);
    let mut g = g.clone();
    let mut w = CMat::identity(c_n, prec);
    let eps = mp::pow2_neg(prec.saturating_sub(8), prec);
    let tiny = Float::with_val(prec, g.frobenius() * mp::noise(prec));
    let tiny_sq = Float::with_val(prec, tiny.square_ref());
    for _ in 0..MAX_SWEEPS {
        let mut rotated = false;
        for p in 0..c_n {
            for q in p + 1..c_n {
                let (gp, gq) = (g.column(p), g.column(q));
                let alpha = mp::dot(&gp, &gp, prec);
                let beta = mp::dot(&gq, &gq, prec);
                if alpha <= tiny_sq || beta <= tiny_sq {
                    continue;
                }
                let (gr, gi) = inner(&gp, &gq, prec);
                let r = hypot(&gr, &gi);
                if r.is_zero() {
                    continue;
                }
                let limit = Float::with_val(prec, &alpha * &beta).sqrt() * &eps;
                if r <= limit {
                    continue;
                }
                rotated = true;
                let gamma = if gi.is_zero() {
                    gr
                } else {
                    let c = Float::with_val(prec, &gr / &r);
                    let s = -Float::with_val(prec, &gi / &r);
                    g.scale_column(q, &c, &s);
                    w.scale_column(q, &c, &s);
                    r
                };
                let (c, s) = mp::rotation(&alpha, &beta, &gamma, prec);
                g.rotate_columns(p, q, &c, &s);
                w.rotate_columns(p, q, &c, &s);
            }
        }
        if !rotated {
            return Ok((g, w));
        }
    }
    Err(BackendError::Failure(
        "complex one-sided Jacobi SVD did not converge".into(),
    ))
}

/// `v` ← `v·(c + i·s)` (realified).
fn mul_phase(v: &mut [Float], c: &Float, s: &Float) {
    let n = v.len() / 2;
    for i in 0..n {
        let (x, y) = mul(&v[i], &v[n + i], c, s);
        v[i] = x;
        v[n + i] = y;
    }
}

/// Multiplies the realified `v` by the unit number that makes its component of largest modulus
/// (the first within `2^−(P/2)` of the largest) real positive; returns that factor `(c, s)` when
/// it is not 1.
pub fn canonical_phase(v: &mut [Float], prec: u32) -> Option<(Float, Float)> {
    let n = v.len() / 2;
    let moduli: Vec<Float> = (0..n).map(|i| hypot(&v[i], &v[n + i])).collect();
    let max = moduli
        .iter()
        .max_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal))?
        .clone();
    if max.is_zero() {
        return None;
    }
    let near = max * (Float::with_val(prec, 1) - mp::pow2_neg(prec / 2, prec));
    let k = moduli.iter().position(|x| *x >= near)?;
    if v[n + k].is_zero() && !v[k].is_sign_negative() {
        return None;
    }
    let c = Float::with_val(prec, &v[k] / &moduli[k]);
    let s = -Float::with_val(prec, &v[n + k] / &moduli[k]);
    mul_phase(v, &c, &s);
    v[k] = moduli[k].clone();
    v[n + k] = Float::new(prec);
    Some((c, s))
}

/// `i·x` (realified).
fn times_i(x: &[Float]) -> Vec<Float> {
    let n = x.len() / 2;
    x[n..]
        .iter()
        .map(|y| -y.clone())
        .chain(x[..n].iter().cloned())
        .collect()
}

/// Realified complex columns.
type Columns = Vec<Vec<Float>>;

/// `[x, i·x]`.
fn doubled(x: &[Vec<Float>]) -> Columns {
    x.iter()
        .cloned()
        .chain(x.iter().map(|c| times_i(c)))
        .collect()
}

/// The real embedding of the unitary polar factor of `Σ X_kᴴ·Y_k` over the pairs (see the module
/// documentation), `None` when a singular value is below `min_sigma` or there are more backend
/// than reference columns.
fn polar(pairs: &[mp::ColumnPair], min_sigma: f64, prec: u32) -> Result<Option<Mat>, BackendError> {
    let d: Vec<(Columns, Columns)> = pairs
        .iter()
        .map(|(x, y)| (doubled(x), doubled(y)))
        .collect();
    let dp: Vec<mp::ColumnPair> = d.iter().map(|(x, y)| (&x[..], &y[..])).collect();
    let m = mp::cross(&dp, prec);
    if m.cols > m.rows {
        return Ok(None);
    }
    mp::polar(&m, min_sigma)
}

/// `x·O` for the embedding `o` of [`polar`] (realified columns).
fn rotate(x: &[Vec<Float>], o: &Mat, prec: u32) -> Vec<Vec<Float>> {
    let mut r = mp::rotate(&doubled(x), o, prec);
    r.truncate(o.cols / 2);
    r
}

/// [`super::align`] for realified complex columns.
fn align(
    cols: &mut [Vec<Float>],
    range: Range<usize>,
    got: &[Vec<Float>],
    prec: u32,
) -> Result<(), BackendError> {
    let mine = &cols[range.clone()];
    if let Some(o) = polar(&[(mine, got)], 0.5, prec)? {
        let rotated = rotate(mine, &o, prec);
        for (dst, src) in cols[range.start..].iter_mut().zip(rotated) {
            *dst = src;
        }
    }
    Ok(())
}

/// [`mp::complete`] for realified complex vectors of dimension `dim`: complex Gram–Schmidt
/// (against `q` and `i·q`), candidates the unit vectors `e_i`, the canonical phase.
fn complete(cols: Vec<Option<Vec<Float>>>, dim: usize, prec: u32) -> Vec<Vec<Float>> {
    let mut cols = cols;
    for slot in 0..cols.len() {
        if cols[slot].is_some() {
            continue;
        }
        let basis: Vec<Vec<Float>> = doubled(&cols.iter().flatten().cloned().collect::<Vec<_>>());
        let mut best: Option<(Float, Vec<Float>)> = None;
        for e in 0..dim {
            let mut r: Vec<Float> = (0..2 * dim)
                .map(|i| Float::with_val(prec, u32::from(i == e)))
                .collect();
            for _ in 0..2 {
                for q in &basis {
                    let h = mp::dot(q, &r, prec);
                    for (ri, qi) in r.iter_mut().zip(q.iter()) {
                        *ri -= Float::with_val(prec, &h * qi);
                    }
                }
            }
            let norm = mp::dot(&r, &r, prec);
            if best.as_ref().is_none_or(|(b, _)| norm > *b) {
                best = Some((norm, r));
            }
        }
        let mut v = match best {
            Some((norm, r)) if !norm.is_zero() => {
                let inv = Float::with_val(prec, 1) / norm.sqrt();
                r.into_iter().map(|x| x * &inv).collect()
            }
            _ => vec![Float::new(prec); 2 * dim],
        };
        canonical_phase(&mut v, prec);
        cols[slot] = Some(v);
    }
    cols.into_iter().flatten().collect()
}

/// A complex element's exact value at `prec` (realified pair), `None` when non-finite.
fn decode(fmt: FloatFormat, bits: u128, prec: u32) -> Option<(Float, Float)> {
    let (re, im) = conformance_spec::literal::complex_parts(fmt, bits);
    Some((
        mp::decode(fmt, u128::from(re), prec)?,
        mp::decode(fmt, u128::from(im), prec)?,
    ))
}

/// `x` rounded once, as complex element bits.
fn round(fmt: FloatFormat, re: &Float, im: &Float) -> u128 {
    complex_bits(fmt, mp::round(fmt, re) as u64, mp::round(fmt, im) as u64)
}

/// Columns `cols` of a backend's row-major complex `rows × width` leaf, realified.
fn got_columns(
    g: &[u128],
    rows: usize,
    width: usize,
    cols: Range<usize>,
    fmt: FloatFormat,
    prec: u32,
) -> Option<Vec<Vec<Float>>> {
    cols.map(|j| {
        let mut re = Vec::with_capacity(2 * rows);
        let mut im = Vec::with_capacity(rows);
        for i in 0..rows {
            let (x, y) = decode(fmt, *g.get(i * width + j)?, prec)?;
            re.push(x);
            im.push(y);
        }
        re.extend(im);
        Some(re)
    })
    .collect()
}

/// Rows `rows` of a backend's row-major complex `count × n` leaf (`vt = Vᴴ`), conjugated: the
/// columns of `V`, realified.
fn got_rows(
    g: &[u128],
    n: usize,
    rows: Range<usize>,
    fmt: FloatFormat,
    prec: u32,
) -> Option<Vec<Vec<Float>>> {
    rows.map(|j| {
        let mut re = Vec::with_capacity(2 * n);
        let mut im = Vec::with_capacity(n);
        for i in 0..n {
            let (x, y) = decode(fmt, *g.get(j * n + i)?, prec)?;
            re.push(x);
            im.push(-y);
        }
        re.extend(im);
        Some(re)
    })
    .collect()
}

/// Masked NaN leaves: per leaf its NaN bits and size (the last one, `info`, 0).
fn all_masked(leaves: &[(u128, usize)], growth: u64, want: bool) -> Part {
    let mut values: Vec<Vec<u128>> = leaves.iter().map(|&(b, s)| vec![b; s]).collect();
    let mut scales: Vec<Vec<_>> = leaves
        .iter()
        .map(|&(_, s)| vec![mp::masked(growth); s])
        .collect();
    values.push(vec![0]);
    scales.push(vec![mp::masked(growth)]);
    Part {
        values,
        scales: if want { scales } else { vec![] },
    }
}

/// heevd of batch element `t` (see [`super::syevd`]).
pub(super) fn heevd_one(
    a: &Operand,
    lower: bool,
    vectors: bool,
    t: usize,
    got_v: Option<&[u128]>,
    want: bool,
) -> Result<Part, BackendError> {
    let (n, fmt) = (a.rows, a.fmt);
    let prec = mp::precision(fmt);
    let growth = (4 * n * n) as u64;
    let nan = crate::linalg::exact::nan_element(fmt, true);
    let nan_w = crate::linalg::exact::nan_element(fmt, false);
    let mut m = CMat::zeros(n, n, prec);
    for i in 0..n {
        for j in 0..=i {
            let (r, c) = if lower { (i, j) } else { (j, i) };
            let Some(x) = a.exact(t, r, c) else {
                return Ok(all_masked(&[(nan, n * n), (nan_w, n)], growth, want));
            };
            let re = Float::with_val(prec, &x.re);
            *m.re.at_mut(r, c) = re.clone();
            *m.re.at_mut(c, r) = re;
            if r != c {
                let im = Float::with_val(prec, &x.im);
                *m.im.at_mut(c, r) = Float::with_val(prec, -&im);
                *m.im.at_mut(r, c) = im;
            }
        }
    }
    let norm = m.frobenius();
    let (vals, vecs) = herm_eigen(&m)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| vals[x].partial_cmp(&vals[y]).unwrap_or(Ordering::Equal));
    let noise = mp::noise(prec) * ((n * n + 1) as u32);
    let mut w: Vec<Float> = order.iter().map(|&i| vals[i].clone()).collect();
    mp::snap(&mut w, &Float::with_val(prec, &norm * &noise));
    let mut v: Vec<Vec<Float>> = order.iter().map(|&i| vecs.column(i)).collect();
    for col in &mut v {
        mp::snap(col, &noise);
        canonical_phase(col, prec);
    }
    let t_gap = Float::with_val(prec, &norm * (64.0 * (n * n) as f64 * fmt.unit_roundoff()));
    let cl = mp::clusters(&w, &t_gap);
    if let (true, Some(g)) = (vectors, got_v) {
        for c in &cl {
            if let Some(gc) = got_columns(g, n, n, c.clone(), fmt, prec) {
                align(&mut v, c.clone(), &gc, prec)?;
            }
        }
    }
    let mut vv = Vec::with_capacity(n * n);
    for i in 0..n {
        for col in &v {
            vv.push(if vectors {
                round(fmt, &col[i], &col[n + i])
            } else {
                nan
            });
        }
    }
    let ww = w.iter().map(|x| mp::round(fmt, x)).collect();
    let scales = if want {
        let mut kappas = vec![1.0; n];
        for c in &cl {
            let outside: Vec<Float> = w[..c.start].iter().chain(&w[c.end..]).cloned().collect();
            let k = mp::gap_kappa(&norm, &w[c.clone()], &outside);
            kappas[c.clone()].iter_mut().for_each(|x| *x = k);
        }
        let v_scales = if vectors {
            (0..n * n)
                .map(|e| mp::bound(growth, kappas[e % n.max(1)], 1.0))
                .collect()
        } else {
            vec![mp::masked(growth); n * n]
        };
        vec![
            v_scales,
            vec![mp::bound(growth, 1.0, mp::up(&norm)); n],
            vec![mp::exact_scale()],
        ]
    } else {
        vec![]
    };
    Ok(Part {
        values: vec![vv, ww, vec![0]],
        scales,
    })
}

/// gesdd/gesvd of batch element `t` (see [`super::svd`]).
pub(super) fn svd_one(
    a: &Operand,
    d: &SvdDims,
    t: usize,
    got: Option<(&[u128], &[u128])>,
    want: bool,
) -> Result<Part, BackendError> {
    let (m, n, fmt) = (a.rows, a.cols, a.fmt);
    let k = m.min(n);
    let big = m.max(n);
    let prec = mp::precision(fmt);
    let growth = (8 * big * k) as u64;
    let nan = crate::linalg::exact::nan_element(fmt, true);
    let nan_s = crate::linalg::exact::nan_element(fmt, false);
    let vectors = d.mode != Mode::NoVectors;
    let mut am = CMat::zeros(m, n, prec);
    for i in 0..m {
        for j in 0..n {
            let Some(x) = a.exact(t, i, j) else {
                let sizes = [
                    (nan, m * n),
                    (nan_s, k),
                    (nan, m * d.ucols),
                    (nan, d.vrows * n),
                ];
                return Ok(all_masked(&sizes, growth, want));
            };
            *am.re.at_mut(i, j) = Float::with_val(prec, &x.re);
            *am.im.at_mut(i, j) = Float::with_val(prec, &x.im);
        }
    }
    let norm = am.frobenius();
    let tall = m >= n;
    let (gw, w) = one_sided(&if tall { am } else { am.conj_transpose() })?;
    let sig: Vec<Float> = (0..k)
        .map(|j| {
            let c = gw.column(j);
            mp::dot(&c, &c, prec).sqrt()
        })
        .collect();
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&x, &y| sig[y].partial_cmp(&sig[x]).unwrap_or(Ordering::Equal));
    let noise = mp::noise(prec) * ((big * big + 1) as u32);
    let limit = Float::with_val(prec, &norm * &noise);
    let mut s = Vec::with_capacity(k);
    let mut us: Vec<Option<Vec<Float>>> = Vec::with_capacity(m);
    let mut vs: Vec<Option<Vec<Float>>> = Vec::with_capacity(n);
    for &j in &order {
        let null = sig[j] <= limit;
        let from_g = (!null).then(|| {
            let inv = Float::with_val(prec, 1) / &sig[j];
            let mut c: Vec<Float> = gw.column(j).into_iter().map(|x| x * &inv).collect();
            mp::snap(&mut c, &noise);
            c
        });
        let mut from_w = w.column(j);
        mp::snap(&mut from_w, &noise);
        s.push(if null {
            Float::new(prec)
        } else {
            sig[j].clone()
        });
        let (mut u, mut v) = if tall {
            (from_g, Some(from_w))
        } else {
            (Some(from_w), from_g)
        };
        match (&mut v, &mut u) {
            (Some(v), u) => {
                if let (Some((c, sn)), Some(u)) = (canonical_phase(v, prec), u) {
                    mul_phase(u, &c, &sn);
                }
            }
            (None, Some(u)) => {
                canonical_phase(u, prec);
            }
            (None, None) => {}
        }
        us.push(u);
        vs.push(v);
    }
    us.resize(m, None);
    vs.resize(n, None);
    let mut uf = complete(us, m, prec);
    let mut vf = complete(vs, n, prec);
    let t_gap = Float::with_val(
        prec,
        &norm * (64.0 * (big * big) as f64 * fmt.unit_roundoff()),
    );
    let cl = mp::clusters(&s, &t_gap);
    let null_start = match cl.last() {
        Some(c) if s[c.end - 1] <= t_gap => c.start,
        _ => k,
    };
    if let (true, Some((gu, gvt))) = (vectors, got) {
        for c in cl.iter().filter(|c| c.start < null_start) {
            let gu_c = got_columns(gu, m, d.ucols, c.clone(), fmt, prec);
            let gv_c = got_rows(gvt, n, c.clone(), fmt, prec);
            if let (Some(gu_c), Some(gv_c)) = (gu_c, gv_c) {
                let pairs: [mp::ColumnPair; 2] =
                    [(&uf[c.clone()], &gu_c[..]), (&vf[c.clone()], &gv_c[..])];
                if let Some(o) = polar(&pairs, 1.0, prec)? {
                    let ru = rotate(&uf[c.clone()], &o, prec);
                    let rv = rotate(&vf[c.clone()], &o, prec);
                    uf.splice(c.clone(), ru);
                    vf.splice(c.clone(), rv);
                }
            }
        }
        if let Some(g) = got_columns(gu, m, d.ucols, null_start..d.ucols, fmt, prec) {
            if !g.is_empty() {
                align(&mut uf, null_start..m, &g, prec)?;
            }
        }
        if let Some(g) = got_rows(gvt, n, null_start..d.vrows, fmt, prec) {
            if !g.is_empty() {
                align(&mut vf, null_start..n, &g, prec)?;
            }
        }
    }
    let a_out = vec![nan; m * n];
    let ss: Vec<u128> = s.iter().map(|x| mp::round(fmt, x)).collect();
    let mut uu = Vec::with_capacity(m * d.ucols);
    for i in 0..m {
        for col in &uf[..d.ucols] {
            uu.push(if vectors {
                round(fmt, &col[i], &col[m + i])
            } else {
                nan
            });
        }
    }
    let mut vt = Vec::with_capacity(d.vrows * n);
    for row in &vf[..d.vrows] {
        for i in 0..n {
            vt.push(if vectors {
                round(fmt, &row[i], &Float::with_val(prec, -&row[n + i]))
            } else {
                nan
            });
        }
    }
    let scales = if want {
        svd_scales(d, m, n, &norm, &s, &cl, null_start, growth)
    } else {
        vec![]
    };
    Ok(Part {
        values: vec![a_out, ss, uu, vt, vec![0]],
        scales,
    })
}
