//! `lapack_?syevd_ffi` / `?heevd`, `lapack_?gesdd_ffi`, `lapack_?gesvd_ffi` (docs/custom-calls.md).
//! Real element types (f32, f64) here; the complex ones (c64, c128) in [`complex`], with the same
//! thresholds, clusters and bounds (phases in place of signs, unitary in place of orthogonal).
//!
//! **syevd**: the symmetric `A` read from the `uplo` triangle is diagonalized by cyclic Jacobi in
//! MPFR at [`mp::precision`] (`4·p + 64` bits) until the off-diagonal part is below
//! `2^−(P−8)·‖A‖_F`; `w` ascending; canonical vectors are unit columns whose component of largest
//! magnitude (the first on ties) is positive. Values and components below the computation's noise
//! (`2^−(P−24)·(n²+1)`, times `‖A‖_F` for values) are set to zero; each output is rounded once.
//! Gauge: adjacent eigenvalues within `T = 64·n²·u·‖A‖_F` form a cluster; for each cluster with
//! reference basis `V_C` and the backend's (finite) columns `W_C`, `V_C` becomes `V_C·O`, `O` the
//! polar factor of `V_Cᵀ·W_C` (kept canonical when that matrix has a singular value below ½,
//! i.e. the backend's columns are not a rotation of the reference's subspace).
//! Bounds: `w`: growth `4·n²`, `κ = 1`, `scale = ‖A‖_F` (Weyl: `|Δλ| ≤ ‖ΔA‖₂`, with the
//! backward error of a stable eigensolver `‖ΔA‖ ≲ c·n²·u·‖A‖`, Demmel, "Applied Numerical
//! Linear Algebra", §5.2–5.3); `v`: growth `4·n²`, `κ = ‖A‖_F/gap_C` (`gap_C` the distance from
//! the cluster's eigenvalues to the nearest other eigenvalue; 1 when the cluster is everything),
//! `scale = 1` (Davis–Kahan `sin θ ≤ ‖ΔA‖/gap`); `info` exact 0; mode `N`: `v` masked.
//!
//! **gesdd/gesvd**: one-sided (Hestenes) Jacobi in MPFR on `A` (m ≥ n) or `Aᵀ` (m < n), column
//! pairs rotated until orthogonal to `2^−(P−8)` (a column below `2^−(P−24)·‖A‖_F`, the rounding
//! residue of a column in the span of the others, counts as zero: [`mp::one_sided`]); `σ_j` are the column norms (relatively
//! accurate), sorted descending, the vectors of the side being orthogonalized are the normalized
//! columns, the other side's are the accumulated rotations; `σ` below the noise is 0 and its
//! vector on the first side, as the extra columns of `U` (mode `A`, m > n) or of `V` (n > m), is
//! an orthonormal completion ([`mp::complete`]). Canonical sign: the largest-magnitude component
//! of `v_i` positive (`u_i` follows); completion columns by their own rule. `vt = Vᵀ`. Gauge:
//! clusters of `σ` (gaps ≤ `T = 64·max(m,n)²·u·‖A‖_F`); a cluster above `T` is rotated jointly,
//! `O = polar(U_Cᵀ·U_got + V_Cᵀ·V_got)` (smallest singular value of the sum at least 1); the
//! null cluster (`σ ≤ T`) and the completion columns are aligned separately on each side, the
//! backend's vectors projected onto the reference's whole null space of that side (`m − r` or
//! `n − r` vectors for `r` singular values above `T`, more than mode `S` returns when `m ≠ n`),
//! `O = polar(N_refᵀ·N_got)` with orthonormal columns (smallest singular value at least ½).
//! Bounds: `s`: growth `8·max(m,n)·k`, `κ = 1`, `scale = ‖A‖_F` (Weyl for singular values,
//! `|Δσ| ≤ ‖ΔA‖₂`; Demmel §5.4, Higham §20); `u`, `vt`: same growth, `κ = ‖A‖_F/gap_C` (Wedin's
//! `sin θ` theorem; `gap_C` the distance of the cluster's `σ` to the others', and to 0 when
//! `m ≠ n` or mode `A`), `scale = 1`; `a_out` (LAPACK scratch) masked; `info` exact 0; mode `N`:
//! `u`, `vt` masked. Non-finite input: the batch element is NaN (info 0) and masked throughout.

#[path = "mp.rs"]
pub mod mp;

#[path = "spectral_complex.rs"]
pub mod complex;

use super::Evaluation;
use conformance_spec::custom_call::{LapackCall, Mode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::BackendError;
use mp::{Mat, Operand, Part};
use rayon::prelude::*;
use rug::ops::NegAssign;
use rug::Float;
use std::cmp::Ordering;
use std::ops::Range;

fn one_operand<'a>(
    target: &str,
    operands: &[&'a ArrayLiteral],
) -> Result<&'a ArrayLiteral, BackendError> {
    match operands {
        [a] => Ok(a),
        _ => Err(BackendError::Invalid(format!("{target} takes one operand"))),
    }
}

/// Evaluates syevd: `a [B..., n, n]` → `(v [B..., n, n], w [B..., n], info s32[B...])` (see the
/// module documentation and [`super::evaluate`]).
///
/// Errors: [`BackendError::Invalid`] for operands or a `got` that do not fit;
/// [`BackendError::Failure`] if Jacobi does not converge.
pub fn syevd(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let a = Operand::new(
        &target,
        one_operand(&target, operands)?,
        call.num_batch_dims,
        2,
    )?;
    if a.rows != a.cols {
        return Err(BackendError::Invalid(format!("{target}: a must be square")));
    }
    let got = mp::got_leaves(&target, got, shape)?;
    let n = a.rows;
    let vectors = call.mode == Mode::Vectors;
    let parts = (0..a.batch)
        .into_par_iter()
        .map(|t| {
            let g = got
                .as_ref()
                .and_then(|l| l.first())
                .and_then(|l| l.get(t * n * n..(t + 1) * n * n));
            if a.complex {
                complex::heevd_one(&a, call.lower, vectors, t, g, want_scales)
            } else {
                syevd_one(&a, call.lower, vectors, t, g, want_scales)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    mp::assemble(shape, parts)
}

/// Masked NaN leaves of the given sizes (and a masked 0 `info` when `info`).
fn all_masked(fmt_nan: u128, sizes: &[usize], growth: u64, info: bool, want: bool) -> Part {
    let mut values: Vec<Vec<u128>> = sizes.iter().map(|&s| vec![fmt_nan; s]).collect();
    let mut scales: Vec<Vec<_>> = sizes.iter().map(|&s| vec![mp::masked(growth); s]).collect();
    if info {
        values.push(vec![0]);
        scales.push(vec![mp::masked(growth)]);
    }
    Part {
        values,
        scales: if want { scales } else { vec![] },
    }
}

fn syevd_one(
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
    let nan = crate::linalg::exact::nan_element(fmt, false);
    let mut m = Mat::zeros(n, n, prec);
    for i in 0..n {
        for j in 0..=i {
            let (r, c) = if lower { (i, j) } else { (j, i) };
            let Some(x) = a.exact(t, r, c) else {
                return Ok(all_masked(nan, &[n * n, n], growth, true, want));
            };
            let f = Float::with_val(prec, &x.re);
            *m.at_mut(j, i) = f.clone();
            *m.at_mut(i, j) = f;
        }
    }
    let norm = m.frobenius();
    let (vals, vecs) = mp::sym_eigen(&m)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| vals[x].partial_cmp(&vals[y]).unwrap_or(Ordering::Equal));
    let noise = mp::noise(prec) * ((n * n + 1) as u32);
    let mut w: Vec<Float> = order.iter().map(|&i| vals[i].clone()).collect();
    mp::snap(&mut w, &Float::with_val(prec, &norm * &noise));
    let mut v: Vec<Vec<Float>> = order.iter().map(|&i| vecs.column(i)).collect();
    for col in &mut v {
        mp::snap(col, &noise);
        mp::canonical_sign(col, prec);
    }
    let t_gap = Float::with_val(prec, &norm * (64.0 * (n * n) as f64 * fmt.unit_roundoff()));
    let cl = mp::clusters(&w, &t_gap);
    if let (true, Some(g)) = (vectors, got_v) {
        for c in &cl {
            let gc = got_columns(g, n, n, c.clone(), fmt, prec);
            if let Some(gc) = gc {
                align(&mut v, c.clone(), &[&gc], prec)?;
            }
        }
    }
    let mut vv = Vec::with_capacity(n * n);
    for i in 0..n {
        for col in &v {
            vv.push(if vectors {
                mp::round(fmt, &col[i])
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

/// Columns `cols` of a backend's row-major `rows × width` matrix leaf at `prec`, `None` when an
/// element is non-finite.
fn got_columns(
    g: &[u128],
    rows: usize,
    width: usize,
    cols: Range<usize>,
    fmt: conformance_spec::element_type::FloatFormat,
    prec: u32,
) -> Option<Vec<Vec<Float>>> {
    cols.map(|j| {
        (0..rows)
            .map(|i| mp::decode(fmt, *g.get(i * width + j)?, prec))
            .collect()
    })
    .collect()
}

/// Rows `rows` of a backend's row-major `count × n` leaf (vt), as columns of dimension `n`.
fn got_rows(
    g: &[u128],
    n: usize,
    rows: Range<usize>,
    fmt: conformance_spec::element_type::FloatFormat,
    prec: u32,
) -> Option<Vec<Vec<Float>>> {
    rows.map(|j| {
        (0..n)
            .map(|i| mp::decode(fmt, *g.get(j * n + i)?, prec))
            .collect()
    })
    .collect()
}

/// Replaces `cols[range.start..range.start + c]` (`c` the backend's column count, at most
/// `range.len()`) by `cols[range]·O`, `O` the polar factor of `Σ cols[range]ᵀ·got` (one term per
/// given backend block; `range.len() × c`, orthonormal columns), when its smallest singular value
/// is at least `½·terms`: the orthonormal basis of the reference's subspace `cols[range]` closest
/// to the backend's columns. With `c < range.len()` this picks the backend's vectors out of a
/// larger subspace they may come from (the null space of a rank-deficient matrix, of which
/// mode `S` returns only some vectors).
fn align(
    cols: &mut [Vec<Float>],
    range: Range<usize>,
    got: &[&[Vec<Float>]],
    prec: u32,
) -> Result<(), BackendError> {
    let mine = &cols[range.clone()];
    let pairs: Vec<mp::ColumnPair> = got.iter().map(|g| (mine, *g)).collect();
    let m = mp::cross(&pairs, prec);
    if m.cols > m.rows {
        return Ok(());
    }
    if let Some(o) = mp::polar(&m, 0.5 * got.len() as f64)? {
        let rotated = mp::rotate(mine, &o, prec);
        for (dst, src) in cols[range.start..].iter_mut().zip(rotated) {
            *dst = src;
        }
    }
    Ok(())
}

/// Evaluates gesdd/gesvd: `a [B..., m, n]` → `(a_out, s [B..., k], u, vt, info)` with the shapes
/// of [`LapackCall::result_shape`] (see the module documentation and [`super::evaluate`]).
///
/// Errors: [`BackendError::Invalid`] for operands or a `got` that do not fit;
/// [`BackendError::Failure`] if Jacobi does not converge.
pub fn svd(
    call: &LapackCall,
    operands: &[&ArrayLiteral],
    shape: &Shape,
    got: Option<&Literal>,
    want_scales: bool,
) -> Result<Evaluation, BackendError> {
    let target = call.target();
    let a = Operand::new(
        &target,
        one_operand(&target, operands)?,
        call.num_batch_dims,
        2,
    )?;
    let leaves = shape.array_leaves();
    let nb = call.num_batch_dims;
    let dim = |leaf: usize, d: usize| {
        leaves
            .get(leaf)
            .and_then(|s| s.dimensions.get(nb + d))
            .and_then(|&x| usize::try_from(x).ok())
            .ok_or_else(|| BackendError::Invalid(format!("{target}: result shape {shape}")))
    };
    let dims = SvdDims {
        ucols: dim(2, 1)?,
        vrows: dim(3, 0)?,
        mode: call.mode,
    };
    let got = mp::got_leaves(&target, got, shape)?;
    let sizes = mp::leaf_sizes(shape, nb);
    let parts = (0..a.batch)
        .into_par_iter()
        .map(|t| {
            let slice = |leaf: usize| {
                let s = sizes.get(leaf).copied().unwrap_or(0);
                got.as_ref()
                    .and_then(|l| l.get(leaf))
                    .and_then(|l| l.get(t * s..(t + 1) * s))
            };
            let g = slice(2).zip(slice(3));
            if a.complex {
                complex::svd_one(&a, &dims, t, g, want_scales)
            } else {
                svd_one(&a, &dims, t, g, want_scales)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    mp::assemble(shape, parts)
}

struct SvdDims {
    ucols: usize,
    vrows: usize,
    mode: Mode,
}

fn svd_one(
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
    let nan = crate::linalg::exact::nan_element(fmt, false);
    let vectors = d.mode != Mode::NoVectors;
    let sizes = [m * n, k, m * d.ucols, d.vrows * n];
    let Some((am, _)) = a.real_matrix(t, prec) else {
        return Ok(all_masked(nan, &sizes, growth, true, want));
    };
    let norm = am.frobenius();
    let tall = m >= n;
    let (gw, w) = mp::one_sided(&if tall { am } else { am.transpose() })?;
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
        let (u, mut v) = if tall {
            (from_g, Some(from_w))
        } else {
            (Some(from_w), from_g)
        };
        let mut u = u;
        match (&mut v, &mut u) {
            (Some(v), u) => {
                if mp::canonical_sign(v, prec) {
                    if let Some(u) = u {
                        u.iter_mut().for_each(|x| x.neg_assign());
                    }
                }
            }
            (None, Some(u)) => {
                mp::canonical_sign(u, prec);
            }
            (None, None) => {}
        }
        us.push(u);
        vs.push(v);
    }
    us.resize(m, None);
    vs.resize(n, None);
    let mut uf = mp::complete(us, m, prec);
    let mut vf = mp::complete(vs, n, prec);
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
                let pairs = [(&uf[c.clone()], &gu_c[..]), (&vf[c.clone()], &gv_c[..])];
                let pairs: Vec<mp::ColumnPair> = pairs.iter().map(|(x, y)| (*x, *y)).collect();
                if let Some(o) = mp::polar(&mp::cross(&pairs, prec), 1.0)? {
                    let ru = mp::rotate(&uf[c.clone()], &o, prec);
                    let rv = mp::rotate(&vf[c.clone()], &o, prec);
                    uf.splice(c.clone(), ru);
                    vf.splice(c.clone(), rv);
                }
            }
        }
        // The backend's null vectors (and completion columns) may be any orthonormal vectors of
        // the whole null space on their side (`m − r` and `n − r` dimensional for rank `r`), of
        // which fewer may be returned (mode S).
        if let Some(g) = got_columns(gu, m, d.ucols, null_start..d.ucols, fmt, prec) {
            if !g.is_empty() {
                align(&mut uf, null_start..m, &[&g], prec)?;
            }
        }
        if let Some(g) = got_rows(gvt, n, null_start..d.vrows, fmt, prec) {
            if !g.is_empty() {
                align(&mut vf, null_start..n, &[&g], prec)?;
            }
        }
    }
    let a_out = vec![nan; m * n];
    let ss: Vec<u128> = s.iter().map(|x| mp::round(fmt, x)).collect();
    let mut uu = Vec::with_capacity(m * d.ucols);
    for i in 0..m {
        for col in &uf[..d.ucols] {
            uu.push(if vectors {
                mp::round(fmt, &col[i])
            } else {
                nan
            });
        }
    }
    let mut vt = Vec::with_capacity(d.vrows * n);
    for row in &vf[..d.vrows] {
        for x in row {
            vt.push(if vectors { mp::round(fmt, x) } else { nan });
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

/// The error scales of one SVD batch element (see the module documentation): `a_out` masked;
/// `s` within `growth·u·‖A‖_F` (Weyl); each vector of `u` and `vt` within `growth·u·κ` with
/// `κ = ‖A‖_F/gap` of its cluster of singular values (Wedin; 0 competes when `m ≠ n` or in mode
/// `A`), the null space and completion as one cluster from `null_start`; `info` exact. Vectors are
/// masked in mode `N`.
#[allow(clippy::too_many_arguments)]
fn svd_scales(
    d: &SvdDims,
    m: usize,
    n: usize,
    norm: &Float,
    s: &[Float],
    cl: &[std::ops::Range<usize>],
    null_start: usize,
    growth: u64,
) -> Vec<Vec<crate::ErrorScale>> {
    let (k, big) = (m.min(n), m.max(n));
    let prec = norm.prec();
    let vectors = d.mode != Mode::NoVectors;
    let zero_competes = m != n || d.mode == Mode::All;
    let zero = [Float::new(prec)];
    let extra: &[Float] = if zero_competes { &zero } else { &[] };
    let mut kappas = vec![1.0; big];
    for c in cl.iter().filter(|c| c.start < null_start) {
        let outside: Vec<Float> = s[..c.start]
            .iter()
            .chain(&s[c.end..])
            .chain(extra)
            .cloned()
            .collect();
        let kc = mp::gap_kappa(norm, &s[c.clone()], &outside);
        kappas[c.clone()].iter_mut().for_each(|x| *x = kc);
    }
    let inside: Vec<Float> = s[null_start..].iter().chain(extra).cloned().collect();
    let kt = mp::gap_kappa(norm, &inside, &s[..null_start]);
    kappas[null_start..].iter_mut().for_each(|x| *x = kt);
    let vec_scale = |j: usize| {
        if vectors {
            mp::bound(growth, kappas[j], 1.0)
        } else {
            mp::masked(growth)
        }
    };
    vec![
        vec![mp::masked(growth); m * n],
        vec![mp::bound(growth, 1.0, mp::up(norm)); k],
        (0..m * d.ucols).map(|e| vec_scale(e % d.ucols)).collect(),
        (0..d.vrows * n).map(|e| vec_scale(e / n.max(1))).collect(),
        vec![mp::exact_scale()],
    ]
}

#[cfg(test)]
#[path = "spectral_tests.rs"]
mod tests;
