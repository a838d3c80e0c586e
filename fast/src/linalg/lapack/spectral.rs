//! `?SYEVD` / `?HEEVD` and `?GESDD` / `?GESVD` (docs/custom-calls.md, "Symmetric / Hermitian
//! eigendecomposition" and "SVD") on `faer`'s kernels, `faer::linalg::evd::self_adjoint_evd` and
//! `faer::linalg::svd::svd`, in each element type's own precision (batch elements on the pool when
//! there are several small ones, `faer`'s own parallelism for a large one).
//!
//! Only the values are unique (eigenvalues ascending, singular values descending); vectors are
//! `faer`'s, unique up to a sign (real) or a phase (complex) per simple value. `info` is 0, or 1
//! when `faer` reports that its iteration did not converge (LAPACK's `info > 0`; the other
//! outputs are then whatever `faer` left). gesdd and gesvd give the same results here.
//!
//! Like LAPACK (the `ANRM` scaling of `?SYEVD`, `?GESDD`), a matrix is first scaled by a power of
//! two (exactly) to a largest component magnitude in [1, 2), and the values scaled back: `faer`
//! alone overflows or underflows far from 1 (info = 1 or NaN values for finite matrices). A
//! non-finite input goes to `faer` as it is (its results are masked; `info` may be 1).

use super::super::cholesky::batch_parallelism;
use super::{Elem, Geometry, Real};
use conformance_spec::custom_call::Mode;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::linalg::svd::{svd as faer_svd, svd_scratch, ComputeSvdVectors};
use faer::{MatMut, MatRef, Par};
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

/// One column-major matrix: `faer` reads the lower triangle of the view it is given, so the upper
/// triangle is read through the transposed view, whose lower triangle is the conjugate of the
/// Hermitian matrix's: its eigenvectors are the conjugates of the wanted ones.
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
    let read = |i: usize, j: usize| if lower { i >= j } else { i <= j };
    let e = scale_exponent::<T>((0..n).flat_map(|j| {
        (0..n)
            .filter(move |&i| read(i, j))
            .map(move |i| (a[i + j * n], i == j))
    }));
    let scaled: Vec<T>;
    let a = match e {
        Some(e) => {
            scaled = a.iter().map(|&x| scale_elem(x, -e)).collect();
            &scaled[..]
        }
        None => a,
    };
    let mut view = MatRef::from_column_major_slice(a, n, n);
    if !lower {
        view = view.transpose();
    }
    let compute = if vectors {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let mut s = Diag::<T>::zeros(n);
    let mut mem = MemBuffer::new(self_adjoint_evd_scratch::<T>(
        n,
        compute,
        par,
        Default::default(),
    ));
    let u = vectors.then(|| MatMut::from_column_major_slice_mut(&mut *v, n, n));
    let result = self_adjoint_evd(
        view,
        s.as_mut(),
        u,
        par,
        MemStack::new(&mut mem),
        Default::default(),
    );
    if vectors && !lower && T::COMPLEX {
        for x in v.iter_mut() {
            *x = x.conj_value();
        }
    }
    for (wj, sj) in w.iter_mut().zip(s.column_vector().iter()) {
        *wj = scale_real(sj.re_of(), e.unwrap_or(0));
    }
    i32::from(result.is_err())
}

/// The exponent `e` with `2^e ≤ M < 2^(e+1)`, `M` the largest component magnitude of the given
/// elements (`true`: a diagonal element of a Hermitian matrix, whose imaginary part is not read),
/// when the elements should be scaled by `2^−e`: `None` when `M` is 0, not finite (NaN or ±inf
/// go to `faer` as they are), or already in [1, 2).
fn scale_exponent<T: Elem>(elements: impl Iterator<Item = (T, bool)>) -> Option<i32> {
    let mut big = 0f64;
    for (x, diagonal) in elements {
        let re = x.re_of().to_f64().abs();
        let im = if diagonal {
            0.0
        } else {
            x.im_of().to_f64().abs()
        };
        // NaN propagates (`f64::max` would drop it).
        for c in [re, im] {
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

/// `x·2^k` componentwise ([`scale_real`]).
fn scale_elem<T: Elem>(x: T, k: i32) -> T {
    let k1 = k / 2;
    x.div_r(T::R::from_f64(2f64.powi(-k1)))
        .div_r(T::R::from_f64(2f64.powi(k1 - k)))
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
    let e = scale_exponent::<T>(a.iter().map(|&x| (x, false)));
    let scaled: Vec<T>;
    let a = match e {
        Some(e) => {
            scaled = a.iter().map(|&x| scale_elem(x, -e)).collect();
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
