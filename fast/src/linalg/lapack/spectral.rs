//! `?SYEVD` / `?HEEVD` and `?GESDD` / `?GESVD` (docs/custom-calls.md, "Symmetric / Hermitian
//! eigendecomposition" and "SVD"): the eigendecomposition by our blocked reduction to tridiagonal
//! form and back ([`super::tridiagonal`]) around our tridiagonal divide and conquer
//! ([`super::stedc`]; `faer`'s, `faer::linalg::evd::tridiagonal_self_adjoint_evd`, for the values
//! alone and for small matrices), the SVD by `faer::linalg::svd::svd`, in
//! each element type's own precision (batch elements on the pool when there are several small
//! ones, `faer`'s own parallelism for a large one).
//!
//! Only the values are unique (eigenvalues ascending, singular values descending); vectors are
//! unique up to a sign (real) or a phase (complex) per simple value. `info` is 0, or 1
//! when `faer` reports that its iteration did not converge (LAPACK's `info > 0`; the other
//! outputs are then whatever `faer` left). gesdd and gesvd give the same results here.
//!
//! Like LAPACK (the `ANRM` scaling of `?SYEVD`, `?GESDD`), a matrix is first scaled by a power of
//! two (exactly) to a largest component magnitude in [1, 2), and the values scaled back: `faer`
//! alone overflows or underflows far from 1 (info = 1 or NaN values for finite matrices). A
//! non-finite input goes to `faer` as it is (its results are masked; `info` may be 1).

use super::super::cholesky::batch_parallelism;
use super::{stedc, tridiagonal};
use super::{Elem, Geometry, Real};
use conformance_spec::custom_call::Mode;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{
    self_adjoint_evd_scratch, tridiagonal_self_adjoint_evd, ComputeEigenvectors,
    SelfAdjointEvdParams,
};
use faer::linalg::svd::{svd as faer_svd, svd_scratch, ComputeSvdVectors};
use faer::{Auto, MatMut, MatRef, Par};
use rayon::prelude::*;

/// `?SYEVD(mode, uplo)` / `?HEEVD` of every `n × n` matrix (LAPACK's layout): the Hermitian matrix
/// of the `uplo` triangle (`lower`; the diagonal's imaginary parts are ignored) →
/// `(v [B, n, n] in LAPACK's layout, w [B, n] real ascending, info [B])`; column `j` of `v` is a
/// unit eigenvector of `w[j]`. Mode `N` (`mode` other than [`Mode::Vectors`]): `v` is zeros.
pub fn syevd<T: Elem>(
    a: &[T],
    g: Geometry,
    lower: bool,
    mode: Mode,
) -> (Vec<T>, Vec<T::R>, Vec<i32>) {
    let n = g.n;
    let vectors = mode == Mode::Vectors;
    let mut v = vec![T::zero_value(); a.len()];
    let mut w = vec![<T::R as Real>::ZERO; g.batches * n];
    let mut info = vec![0i32; g.batches];
    if n == 0 {
        return (v, w, info);
    }
    let (across, par) = batch_parallelism(g.batches, n, g.parallel);
    type Slices<'s, T, R> = ((&'s mut [T], &'s mut [R]), &'s mut i32);
    let run = |(b, ((vb, wb), ib)): (usize, Slices<'_, T, T::R>)| {
        *ib = syevd_one(&a[b * n * n..][..n * n], n, lower, vectors, vb, wb, par)
    };
    if across {
        v.par_chunks_mut(n * n)
            .zip(w.par_chunks_mut(n))
            .zip(info.par_iter_mut())
            .enumerate()
            .for_each(run);
    } else {
        v.chunks_mut(n * n)
            .zip(w.chunks_mut(n))
            .zip(info.iter_mut())
            .enumerate()
            .for_each(run);
    }
    (v, w, info)
}

/// One column-major matrix: the Hermitian matrix of the read triangle, whole, reduced to real
/// tridiagonal form by our blocked `?HETRD` ([`tridiagonal::hetrd`]), the tridiagonal's
/// eigendecomposition ([`tridiagonal_evd`]), and our `?UNMTR` back to `A`'s eigenvectors.
/// (`faer`'s own `self_adjoint_evd` reduces by an unblocked fused sweep and solves leaves below
/// 128 by QR iteration with vectors, 40% of its time at n = 256; the blocked reduction measured
/// 12–20% faster there on Zen 4, alternating runs, and our divide and conquer another 10–20%.)
fn syevd_one<T: Elem>(
    a: &[T],
    n: usize,
    lower: bool,
    vectors: bool,
    v: &mut [T],
    w: &mut [T::R],
    par: Par,
) -> i32 {
    // LAPACK scales a matrix whose norm is outside a safe range (`?SYEVD`'s `ANRM` test);
    // `faer` does not, and fails (or returns NaN) when squares of the entries overflow or
    // underflow. Scale the read triangle by a power of two to a largest magnitude in [1, 2)
    // (exact), and the eigenvalues back.
    let mut h = vec![T::zero_value(); n * n];
    for j in 0..n {
        for i in j..n {
            // Element (i, j) of the lower triangle, (j, i) of the upper one.
            let x = if lower {
                a[i + j * n]
            } else {
                a[j + i * n].conj_value()
            };
            let x = if i == j { T::lift(x.re_of()) } else { x };
            h[i + j * n] = x;
            h[j + i * n] = x.conj_value();
        }
    }
    let e = scale_exponent(&h);
    if let Some(e) = e {
        scale_in_place(&mut h, -e);
    }
    let tri = tridiagonal::hetrd(&mut h, n, Par::Seq);
    let (values, info) = tridiagonal_evd(&tri, vectors, v, par);
    if vectors {
        tridiagonal::unmtr(&h, &tri.tau, v, n, Par::Seq);
    }
    for (wj, &sj) in w.iter_mut().zip(&values) {
        *wj = scale_real(sj, e.unwrap_or(0));
    }
    info
}

/// The eigenvalues (ascending) of the tridiagonal `tri` and, when `vectors`, its eigenvectors
/// in `v` (column-major `n × n`), with `info`: our divide and conquer ([`stedc::stedc`]) for
/// vectors past its leaf size, `faer`'s tridiagonal divide and conquer otherwise and when ours
/// meets a value it cannot order (non-finite input).
fn tridiagonal_evd<T: Elem>(
    tri: &tridiagonal::Tridiagonal<T>,
    vectors: bool,
    v: &mut [T],
    par: Par,
) -> (Vec<T::R>, i32) {
    let n = tri.d.len();
    if vectors && n > stedc::LEAF {
        let mut values = tri.d.clone();
        if let Ok(q) = stedc::stedc(&mut values, &tri.e, matches!(par, Par::Rayon(_))) {
            for (vj, qj) in v.iter_mut().zip(q) {
                *vj = T::lift(qj);
            }
            return (values, 0);
        }
    }
    let mut d = Diag::<T>::zeros(n);
    let mut sub = Diag::<T>::zeros(n);
    for (i, (&di, &ei)) in tri
        .d
        .iter()
        .zip(tri.e.iter().chain([&T::R::ZERO]))
        .enumerate()
    {
        d[i] = T::lift(di);
        sub[i] = T::lift(ei);
    }
    let compute = if vectors {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let params = SelfAdjointEvdParams {
        recursion_threshold: RECURSION_THRESHOLD,
        ..Auto::<T>::auto()
    };
    let mut s = Diag::<T>::zeros(n);
    let mut mem = MemBuffer::new(self_adjoint_evd_scratch::<T>(
        n,
        compute,
        par,
        params.into(),
    ));
    let u = vectors.then(|| MatMut::from_column_major_slice_mut(&mut *v, n, n));
    let result = tridiagonal_self_adjoint_evd(
        d.as_ref(),
        sub.as_ref(),
        s.as_mut(),
        u,
        par,
        MemStack::new(&mut mem),
        params.into(),
    );
    let values = s.column_vector().iter().map(|x| x.re_of()).collect();
    (values, i32::from(result.is_err()))
}

/// Below this size `faer`'s divide and conquer solves a tridiagonal by QR iteration (its default,
/// 128, leaves n = 256 with four 64-sized QR solves with vectors; 64 measured fastest on Zen 4 at
/// n = 256, alternating runs).
const RECURSION_THRESHOLD: usize = 64;

/// The exponent `e` with `2^e ≤ M < 2^(e+1)`, `M` the largest component magnitude of the given
/// elements, when the elements should be scaled by `2^−e`: `None` when `M` is 0, not finite (NaN or ±inf
/// go to `faer` as they are), or already in [1, 2).
fn scale_exponent<T: Elem>(elements: &[T]) -> Option<i32> {
    let mut big = 0f64;
    for x in elements {
        // NaN propagates (`f64::max` would drop it).
        for c in [x.re_of().to_f64().abs(), x.im_of().to_f64().abs()] {
            if c.is_nan() || c > big {
                big = c;
            }
        }
    }
    if big == 0.0 || !big.is_finite() {
        return None;
    }
    // `big` is a finite nonzero f32 or f64: its binary exponent from the bits (subnormals too).
    let bits = big.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let e = if biased == 0 {
        let mantissa = bits & ((1u64 << 52) - 1);
        -1074 + (63 - mantissa.leading_zeros() as i32)
    } else {
        biased - 1023
    };
    (e != 0).then_some(e)
}

/// `r·2^k` in two exact power-of-two steps (each factor within the type's normal range for
/// `|k| ≤ 1100`); one rounding at most unless the result is subnormal.
fn scale_real<R: Real>(r: R, k: i32) -> R {
    let k1 = k / 2;
    r * R::from_f64(2f64.powi(k1)) * R::from_f64(2f64.powi(k - k1))
}

/// `x·2^k` for every element, componentwise ([`scale_real`]'s two factors, computed once).
fn scale_in_place<T: Elem>(xs: &mut [T], k: i32) {
    let k1 = k / 2;
    let f1 = T::lift(T::R::from_f64(2f64.powi(k1)));
    let f2 = T::lift(T::R::from_f64(2f64.powi(k - k1)));
    for x in xs {
        *x = *x * f1 * f2;
    }
}

/// The results of `?GESDD` / `?GESVD` of a batch, all in LAPACK's layouts (`s` and `info`
/// row-major).
pub struct SvdResult<T: Elem> {
    /// `[B, k]`, descending, `≥ 0`.
    pub s: Vec<T::R>,
    /// `[B, m, m]` (modes `A`, `N`) or `[B, m, k]` (mode `S`).
    pub u: Vec<T>,
    /// `Vᴴ`: `[B, n, n]` (modes `A`, `N`) or `[B, k, n]` (mode `S`).
    pub vt: Vec<T>,
    /// `[B]`.
    pub info: Vec<i32>,
}

/// `?GESDD(jobz = mode)` / `?GESVD` of every `m × n` matrix (LAPACK's layout):
/// `A = U·diag(s)·Vᴴ`. Mode `A`: all of `U` and `Vᴴ`; `S`: the first `k = min(m, n)` columns of
/// `U` and rows of `Vᴴ`; `N`: `s` only, `u` and `vt` zeros at full size. (`a_out`, LAPACK's
/// scratch, is left to the caller.)
pub fn svd<T: Elem>(a: &[T], g: Geometry, mode: Mode) -> SvdResult<T> {
    let (m, n) = (g.m, g.n);
    let k = m.min(n);
    let (ucols, vtrows) = match mode {
        Mode::Reduced => (k, k),
        _ => (m, n),
    };
    let mut s = vec![<T::R as Real>::ZERO; g.batches * k];
    let mut u = vec![T::zero_value(); g.batches * m * ucols];
    let mut vt = vec![T::zero_value(); g.batches * vtrows * n];
    let mut info = vec![0i32; g.batches];
    if k == 0 {
        // Nothing to factor: the full factors of an empty product are identities.
        if mode == Mode::All {
            for b in 0..g.batches {
                identity(&mut u[b * m * m..][..m * m], m);
                identity(&mut vt[b * n * n..][..n * n], n);
            }
        }
        return SvdResult { s, u, vt, info };
    }
    let (across, par) = batch_parallelism(g.batches, m.max(n), g.parallel);
    type Slices<'s, T, R> = (((&'s mut [R], &'s mut [T]), &'s mut [T]), &'s mut i32);
    let run = |(b, (((sb, ub), vb), ib)): (usize, Slices<'_, T, T::R>)| {
        *ib = svd_one(&a[b * m * n..][..m * n], m, n, mode, sb, ub, vb, par)
    };
    if across {
        s.par_chunks_mut(k)
            .zip(u.par_chunks_mut(m * ucols))
            .zip(vt.par_chunks_mut(vtrows * n))
            .zip(info.par_iter_mut())
            .enumerate()
            .for_each(run);
    } else {
        s.chunks_mut(k)
            .zip(u.chunks_mut(m * ucols))
            .zip(vt.chunks_mut(vtrows * n))
            .zip(info.iter_mut())
            .enumerate()
            .for_each(run);
    }
    SvdResult { s, u, vt, info }
}

/// Writes the `n × n` identity into `out`.
fn identity<T: Elem>(out: &mut [T], n: usize) {
    out.fill(T::zero_value());
    for i in 0..n {
        out[i + i * n] = T::lift(<T::R as Real>::ONE);
    }
}

/// One column-major `m × n` matrix (`k = min(m, n) > 0`): `s` (`k`), `u` (`m × ucols`,
/// column-major) and `vt` (`vtrows × n`, column-major, `Vᴴ` of `faer`'s `V`); returns `info`.
#[allow(clippy::too_many_arguments)]
fn svd_one<T: Elem>(
    a: &[T],
    m: usize,
    n: usize,
    mode: Mode,
    s: &mut [T::R],
    u: &mut [T],
    vt: &mut [T],
    par: Par,
) -> i32 {
    let k = m.min(n);
    let (compute, vcols) = match mode {
        Mode::Reduced => (ComputeSvdVectors::Thin, k),
        Mode::NoVectors => (ComputeSvdVectors::No, 0),
        _ => (ComputeSvdVectors::Full, n),
    };
    // As for syevd: scale to a largest magnitude in [1, 2) (LAPACK's `ANRM` test in ?GESDD /
    // ?GESVD; `faer` overflows or underflows otherwise), the singular values back.
    let e = scale_exponent(a);
    let scaled: Vec<T>;
    let a = match e {
        Some(e) => {
            let mut copy = a.to_vec();
            scale_in_place(&mut copy, -e);
            scaled = copy;
            &scaled[..]
        }
        None => a,
    };
    let view = MatRef::from_column_major_slice(a, m, n);
    let mut d = Diag::<T>::zeros(k);
    let mut v = vec![T::zero_value(); n * vcols];
    let mut mem = MemBuffer::new(svd_scratch::<T>(
        m,
        n,
        compute,
        compute,
        par,
        Default::default(),
    ));
    let ucols = u.len() / m;
    let (uview, vview) = if compute == ComputeSvdVectors::No {
        (None, None)
    } else {
        (
            Some(MatMut::from_column_major_slice_mut(&mut *u, m, ucols)),
            Some(MatMut::from_column_major_slice_mut(&mut v, n, vcols)),
        )
    };
    let result = faer_svd(
        view,
        d.as_mut(),
        uview,
        vview,
        par,
        MemStack::new(&mut mem),
        Default::default(),
    );
    for (sj, dj) in s.iter_mut().zip(d.column_vector().iter()) {
        *sj = scale_real(dj.re_of(), e.unwrap_or(0));
    }
    if vcols > 0 {
        // vt (vcols × n) = Vᴴ: vt(i, j) = conj(V(j, i)).
        for i in 0..vcols {
            for j in 0..n {
                vt[i + j * vcols] = v[j + i * n].conj_value();
            }
        }
    }
    i32::from(result.is_err())
}
