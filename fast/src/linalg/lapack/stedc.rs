//! `?STEDC` with `compz = 'I'`: every eigenvalue and eigenvector of a real symmetric tridiagonal
//! matrix by divide and conquer (Cuppen's tearing, LAPACK's `?LAED1`–`?LAED4` merge: deflation
//! by small `z` components and by Givens rotations of close poles, the secular equation solved
//! per root from its nearer pole, and Gu and Eisenstat's recomputed `z` for orthogonal
//! eigenvectors), for [`super::spectral::syevd`].
//!
//! Problems up to [`LEAF`] go to `faer`'s tridiagonal divide and conquer
//! (`faer::linalg::evd::tridiagonal_self_adjoint_evd`). Above it the two halves run on the pool
//! (`rayon::join`) and the merge's `O(k²)` parts (the roots, `z`, the eigenvector columns) are
//! split over the pool too, in loops of independent lanes the compiler vectorizes; `faer`'s merge
//! solves its roots one after the other in scalar loops (a quarter of the eigendecomposition at
//! n = 256 on Zen 4, profiled).
//! Everything is computed in the type's own precision, as LAPACK's `SSTEDC`/`DSTEDC` do.

use super::Real;
use crate::kernels::Isa;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{
    self_adjoint_evd_scratch, tridiagonal_self_adjoint_evd, ComputeEigenvectors,
    SelfAdjointEvdParams,
};
use faer::linalg::matmul::matmul;
use faer::{Accum, Auto, MatMut, MatRef, Par};
use rayon::prelude::*;

/// Problems of at most this order go to `faer` whole (its own divide and conquer, QR iteration
/// below [`FAER_LEAF`]).
pub(super) const LEAF: usize = 64;

/// `faer`'s recursion threshold for the problems given to it.
const FAER_LEAF: usize = 64;

/// Merges with fewer non-deflated values than this run their loops on the calling thread.
const PARALLEL_MIN: usize = 96;

/// Failure of [`stedc`]: `faer` did not converge on a leaf, or a merge met a value it cannot
/// order (the caller then solves the whole problem another way).
#[derive(Debug, PartialEq)]
pub(super) struct NotConverged;

/// Eigenvalues and eigenvectors of the symmetric tridiagonal matrix with diagonal `d` (`n`
/// values) and off-diagonal `e` (`n − 1` values). On success `d` holds the eigenvalues
/// ascending and the result is the `n × n` column-major matrix whose column `j` is a unit
/// eigenvector of `d[j]`. `parallel`: use rayon's pool. Errors: [`NotConverged`] (`d` is then
/// scratch).
pub(super) fn stedc<R: Real>(d: &mut [R], e: &[R], parallel: bool) -> Result<Vec<R>, NotConverged> {
    stedc_with(Isa::detect(), d, e, parallel)
}

/// [`stedc`] with the merge's loops compiled for `isa` (one this CPU lacks runs as
/// [`Isa::Scalar`]; every instruction set gives the same bits).
pub(super) fn stedc_with<R: Real>(
    isa: Isa,
    d: &mut [R],
    e: &[R],
    parallel: bool,
) -> Result<Vec<R>, NotConverged> {
    let isa = if isa.is_available() { isa } else { Isa::Scalar };
    recurse(isa, d, e, parallel)
}

/// [`stedc_with`] after the instruction set was checked: `faer` on a leaf, else the two halves
/// (on the pool when `parallel`) and their [`merge`].
fn recurse<R: Real>(
    isa: Isa,
    d: &mut [R],
    e: &[R],
    parallel: bool,
) -> Result<Vec<R>, NotConverged> {
    let n = d.len();
    debug_assert_eq!(
        e.len(),
        n.saturating_sub(1),
        "stedc: e must have n − 1 values"
    );
    if n <= LEAF {
        return leaf(d, e);
    }
    let n1 = n / 2;
    let beta = e[n1 - 1];
    // T = diag(T1 − |β|·e_last·e_lastᵀ, T2 − |β|·e_1·e_1ᵀ) + |β|·w·wᵀ, w = e_last + sign(β)·e_first.
    d[n1 - 1] -= beta.rabs();
    d[n1] -= beta.rabs();
    let (d1, d2) = d.split_at_mut(n1);
    let (e1, e2) = (&e[..n1 - 1], &e[n1..]);
    let (q1, q2) = if parallel {
        rayon::join(|| recurse(isa, d1, e1, true), || recurse(isa, d2, e2, true))
    } else {
        (recurse(isa, d1, e1, false), recurse(isa, d2, e2, false))
    };
    merge(isa, d, n1, &q1?, &q2?, beta, parallel)
}

/// `faer`'s divide and conquer on a whole (small) problem.
fn leaf<R: Real>(d: &mut [R], e: &[R]) -> Result<Vec<R>, NotConverged> {
    let n = d.len();
    let mut q = vec![R::ZERO; n * n];
    if n == 0 {
        return Ok(q);
    }
    let mut diag = Diag::<R>::zeros(n);
    let mut sub = Diag::<R>::zeros(n);
    for i in 0..n {
        diag[i] = d[i];
        sub[i] = if i + 1 < n { e[i] } else { R::ZERO };
    }
    let params = SelfAdjointEvdParams {
        recursion_threshold: FAER_LEAF,
        ..Auto::<R>::auto()
    };
    let mut s = Diag::<R>::zeros(n);
    let mut mem = MemBuffer::new(self_adjoint_evd_scratch::<R>(
        n,
        ComputeEigenvectors::Yes,
        Par::Seq,
        params.into(),
    ));
    let result = tridiagonal_self_adjoint_evd(
        diag.as_ref(),
        sub.as_ref(),
        s.as_mut(),
        Some(MatMut::from_column_major_slice_mut(&mut q, n, n)),
        Par::Seq,
        MemStack::new(&mut mem),
        params.into(),
    );
    result.map_err(|_| NotConverged)?;
    for (di, si) in d.iter_mut().zip(s.column_vector().iter()) {
        *di = *si;
    }
    Ok(q)
}

/// Where a column of the merged problem's `Q = diag(Q1, Q2)` has nonzeros (`?LAED2`'s
/// `COLTYP`): rows of `Q1` only, everywhere (rotated across the halves), or rows of `Q2` only.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rows {
    Top,
    Both,
    Bottom,
}

/// The merge (`?LAED1`): `d` holds the halves' eigenvalues (`d[..n1]` of `q1`, `d[n1..]` of
/// `q2`), `beta` the torn off-diagonal element. Returns the merged eigenvectors, `d` the merged
/// eigenvalues ascending.
fn merge<R: Real>(
    isa: Isa,
    d: &mut [R],
    n1: usize,
    q1: &[R],
    q2: &[R],
    beta: R,
    parallel: bool,
) -> Result<Vec<R>, NotConverged> {
    let n = d.len();
    let n2 = n - n1;
    // Q = diag(Q1, Q2), whole (rotations may mix a column of each).
    let mut q = vec![R::ZERO; n * n];
    for j in 0..n1 {
        q[j * n..j * n + n1].copy_from_slice(&q1[j * n1..(j + 1) * n1]);
    }
    for j in 0..n2 {
        q[(n1 + j) * n + n1..(n1 + j + 1) * n].copy_from_slice(&q2[j * n2..(j + 1) * n2]);
    }
    // z = Qᵀ·w/√2 (unit), ρ = 2|β| ≥ 0.
    let half = R::from_f64(0.5).rsqrt();
    let sign = if beta < R::ZERO { -R::ONE } else { R::ONE };
    let mut z: Vec<R> = (0..n)
        .map(|j| {
            if j < n1 {
                q1[j * n1 + n1 - 1] * half
            } else {
                sign * q2[(j - n1) * n2] * half
            }
        })
        .collect();
    let rho = R::from_f64(2.0) * beta.rabs();
    // The poles ascending.
    let mut order: Vec<usize> = (0..n).collect();
    if d.iter().any(|x| !x.is_finite_value()) || z.iter().any(|x| !x.is_finite_value()) {
        return Err(NotConverged);
    }
    order.sort_by(|&a, &b| d[a].partial_cmp(&d[b]).unwrap_or(std::cmp::Ordering::Equal));
    let dmax = d.iter().fold(R::ZERO, |m, x| m.rmax(x.rabs()));
    let zmax = z.iter().fold(R::ZERO, |m, x| m.rmax(x.rabs()));
    let tol = R::from_f64(8.0) * R::EPS * dmax.rmax(zmax);

    // Deflation (`?LAED2`): a pole whose z component is negligible is an eigenvalue with its
    // column of Q; of two poles closer than the tolerance, a rotation moves the weight to one.
    let mut rows: Vec<Rows> = (0..n)
        .map(|j| if j < n1 { Rows::Top } else { Rows::Bottom })
        .collect();
    let mut kept: Vec<usize> = Vec::with_capacity(n);
    let mut deflated: Vec<usize> = Vec::with_capacity(n);
    let mut candidate: Option<usize> = None;
    if rho * zmax <= tol {
        deflated.extend_from_slice(&order);
    } else {
        for &j in &order {
            if (rho * z[j]).rabs() <= tol {
                deflated.push(j);
                continue;
            }
            let Some(p) = candidate else {
                candidate = Some(j);
                continue;
            };
            let tau = z[j].rhypot(z[p]);
            let c = z[j] / tau;
            let s = -z[p] / tau;
            if ((d[j] - d[p]) * c * s).rabs() <= tol {
                z[j] = tau;
                z[p] = R::ZERO;
                if rows[j] != rows[p] {
                    rows[j] = Rows::Both;
                }
                // Columns p and j of Q rotated (BLAS `?ROT` with c, s).
                let (lo, hi) = (p.min(j), p.max(j));
                let (a, b) = q.split_at_mut(hi * n);
                let (cp, cj) = if p < j {
                    (&mut a[lo * n..(lo + 1) * n], &mut b[..n])
                } else {
                    (&mut b[..n], &mut a[lo * n..(lo + 1) * n])
                };
                for (x, y) in cp.iter_mut().zip(cj.iter_mut()) {
                    let (xp, yj) = (*x, *y);
                    *x = c * xp + s * yj;
                    *y = c * yj - s * xp;
                }
                let (dp, dj) = (d[p], d[j]);
                d[p] = dp * c * c + dj * s * s;
                d[j] = dp * s * s + dj * c * c;
                deflated.push(p);
                candidate = Some(j);
            } else {
                kept.push(p);
                candidate = Some(j);
            }
        }
        kept.extend(candidate);
    }
    let k = kept.len();
    // The non-deflated poles and weights (ascending by construction, up to the tolerance).
    let poles: Vec<R> = kept.iter().map(|&j| d[j]).collect();
    let weights: Vec<R> = kept.iter().map(|&j| z[j]).collect();
    let roots = secular_roots(isa, &poles, &weights, rho, parallel)?;
    let u = vectors(&poles, &weights, &roots, parallel)?;

    // The merged eigenvectors of the non-deflated values: Q[:, kept]·U, with the kept columns
    // grouped by where their nonzeros are so that each half multiplies only what it has.
    let mut by_rows: Vec<usize> = (0..k).collect();
    by_rows.sort_by_key(|&i| rows[kept[i]]);
    let top = by_rows
        .iter()
        .filter(|&&i| rows[kept[i]] != Rows::Bottom)
        .count();
    let first_bottom = by_rows
        .iter()
        .filter(|&&i| rows[kept[i]] == Rows::Top)
        .count();
    let mut qk = vec![R::ZERO; n * k];
    let mut uk = vec![R::ZERO; k * k];
    for (c, &i) in by_rows.iter().enumerate() {
        qk[c * n..(c + 1) * n].copy_from_slice(&q[kept[i] * n..(kept[i] + 1) * n]);
        for col in 0..k {
            uk[col * k + c] = u[col * k + i];
        }
    }
    let mut merged = vec![R::ZERO; n * k];
    {
        let (mt, mb) = split_rows(&mut merged, n, n1, k);
        let bottom = k - first_bottom;
        // Top rows: the kept columns of Q1 and the rotated ones; bottom rows: the rotated ones
        // and those of Q2 (the other columns are zero there).
        let top_product = || {
            if top > 0 {
                let a = MatRef::from_column_major_slice_with_stride(&qk, n1, top, n);
                let b = MatRef::from_column_major_slice_with_stride(&uk, top, k, k);
                matmul(mt, Accum::Replace, a, b, R::ONE, Par::Seq);
            }
        };
        let bottom_product = || {
            if bottom > 0 {
                let a = MatRef::from_column_major_slice_with_stride(
                    &qk[first_bottom * n + n1..],
                    n2,
                    bottom,
                    n,
                );
                let b =
                    MatRef::from_column_major_slice_with_stride(&uk[first_bottom..], bottom, k, k);
                matmul(mb, Accum::Replace, a, b, R::ONE, Par::Seq);
            }
        };
        if parallel && k >= PARALLEL_MIN {
            rayon::join(top_product, bottom_product);
        } else {
            top_product();
            bottom_product();
        }
    }

    // Every value and vector, ascending.
    let mut all: Vec<(R, Source)> = Vec::with_capacity(n);
    all.extend(
        roots
            .iter()
            .enumerate()
            .map(|(i, r)| (r.value(&poles), Source::Root(i))),
    );
    all.extend(deflated.iter().map(|&j| (d[j], Source::Deflated(j))));
    all.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut out = vec![R::ZERO; n * n];
    for (c, (value, source)) in all.into_iter().enumerate() {
        d[c] = value;
        let from = match source {
            Source::Root(i) => &merged[i * n..(i + 1) * n],
            Source::Deflated(j) => &q[j * n..(j + 1) * n],
        };
        out[c * n..(c + 1) * n].copy_from_slice(from);
    }
    Ok(out)
}

/// Where a merged eigenpair comes from: a root of the secular equation, or a deflated pole.
#[derive(Clone, Copy)]
enum Source {
    Root(usize),
    Deflated(usize),
}

/// The top `n1` and bottom rows of a column-major `n × k` matrix as two matrix views.
fn split_rows<R: Real>(
    m: &mut [R],
    n: usize,
    n1: usize,
    k: usize,
) -> (MatMut<'_, R>, MatMut<'_, R>) {
    let whole = MatMut::from_column_major_slice_mut(m, n, k);
    whole.split_at_row_mut(n1)
}

/// A root `λ = poles[origin] + tau` of the secular equation, kept relative to its nearer pole so
/// that `λ − poles[j] = tau − (poles[j] − poles[origin])` is accurate.
#[derive(Clone, Copy, Debug)]
struct Root<R> {
    origin: usize,
    tau: R,
}

impl<R: Real> Root<R> {
    fn value(&self, poles: &[R]) -> R {
        poles[self.origin] + self.tau
    }
}

/// The `k` roots of `f(λ) = 1/ρ + Σ_j w_j²/(p_j − λ)` (`?LAED4` for every `i`): root `i` in
/// `(p_i, p_{i+1})`, the last in `(p_{k−1}, p_{k−1} + ρ·‖w‖²]`. Poles ascending, weights
/// nonzero, `ρ > 0`.
fn secular_roots<R: Real>(
    isa: Isa,
    poles: &[R],
    weights: &[R],
    rho: R,
    parallel: bool,
) -> Result<Vec<Root<R>>, NotConverged> {
    let k = poles.len();
    let solve = |i: usize| secular_root(isa, poles, weights, rho, i);
    let roots: Vec<Option<Root<R>>> = if parallel && k >= PARALLEL_MIN {
        (0..k).into_par_iter().with_min_len(16).map(solve).collect()
    } else {
        (0..k).map(solve).collect()
    };
    roots
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(NotConverged)
}

/// `(Σ w_j·t_j, Σ t_j²)` over the given poles and weights, `t_j = w_j / ((p_j − origin) − tau)`:
/// one side's part of the secular function and of its derivative, in [`LANES`] independent
/// lanes added up in order at the end (so every instruction set gives the same bits), compiled
/// for `isa`.
fn side_sums<R: Real>(isa: Isa, poles: &[R], weights: &[R], origin: R, tau: R) -> (R, R) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<R: Real>(poles: &[R], weights: &[R], origin: R, tau: R) -> (R, R) {
            side_sums_body(poles, weights, origin, tau)
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2<R: Real>(poles: &[R], weights: &[R], origin: R, tau: R) -> (R, R) {
            side_sums_body(poles, weights, origin, tau)
        }
        match isa {
            // SAFETY: `stedc_with` keeps `Isa::Avx512` only when the CPU has AVX-512F.
            Isa::Avx512 => return unsafe { avx512(poles, weights, origin, tau) },
            // SAFETY: `stedc_with` keeps `Isa::Avx2Fma` only when the CPU has AVX2 and FMA.
            Isa::Avx2Fma => return unsafe { avx2(poles, weights, origin, tau) },
            Isa::Scalar => {}
        }
    }
    side_sums_body(poles, weights, origin, tau)
}

/// Independent lanes of [`side_sums`].
const LANES: usize = 16;

#[inline(always)]
fn side_sums_body<R: Real>(poles: &[R], weights: &[R], origin: R, tau: R) -> (R, R) {
    let mut f = [R::ZERO; LANES];
    let mut g = [R::ZERO; LANES];
    let pc = poles.chunks_exact(LANES);
    let wc = weights.chunks_exact(LANES);
    let (pr, wr) = (pc.remainder(), wc.remainder());
    for (p, w) in pc.zip(wc) {
        let mut t = [R::ZERO; LANES];
        for l in 0..LANES {
            t[l] = w[l] / ((p[l] - origin) - tau);
        }
        for l in 0..LANES {
            f[l] += w[l] * t[l];
            g[l] += t[l] * t[l];
        }
    }
    for (l, (&p, &w)) in pr.iter().zip(wr).enumerate() {
        let t = w / ((p - origin) - tau);
        f[l] += w * t;
        g[l] += t * t;
    }
    let sum = |a: [R; LANES]| a.iter().fold(R::ZERO, |s, &x| s + x);
    (sum(f), sum(g))
}

/// Root `i` of [`secular_roots`]: from the midpoint of its interval, which tells the nearer pole
/// (the origin of `tau`), by the two-pole rational model of `?LAED4` (the left poles' part
/// `ψ` and the right poles' part `φ` each fitted by a constant plus one pole, matching value and
/// slope), safeguarded by bisection of a bracket the iterates keep. Stops when `|f|` is within
/// its rounding error bound or the bracket is a few ulps wide. `None`: no convergence in 200
/// steps or a non-finite value.
fn secular_root<R: Real>(
    isa: Isa,
    poles: &[R],
    weights: &[R],
    rho: R,
    i: usize,
) -> Option<Root<R>> {
    let k = poles.len();
    let last = i + 1 == k;
    let inv_rho = R::ONE / rho;
    let two = R::from_f64(2.0);
    let eval = |origin: usize, tau: R| {
        let o = poles[origin];
        let (psi, dpsi) = side_sums(isa, &poles[..=i], &weights[..=i], o, tau);
        let (phi, dphi) = side_sums(isa, &poles[i + 1..], &weights[i + 1..], o, tau);
        (psi, dpsi, phi, dphi)
    };
    // The interval in `tau` around the chosen origin.
    let (origin, mut lo, mut hi) = if last {
        let norm2 = weights.iter().fold(R::ZERO, |s, &w| s + w * w);
        (i, R::ZERO, rho * norm2)
    } else {
        let gap = poles[i + 1] - poles[i];
        let mid = gap / two;
        let (psi, _, phi, _) = eval(i, mid);
        if inv_rho + psi + phi >= R::ZERO {
            (i, R::ZERO, mid)
        } else {
            (i + 1, (poles[i] - poles[i + 1]) / two, R::ZERO)
        }
    };
    if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
        // Coincident poles (within rounding): the root is the pole.
        return Some(Root {
            origin,
            tau: R::ZERO,
        });
    }
    // Distances of the two poles around the root from the origin.
    let left = poles[i] - poles[origin];
    let right = if last {
        R::ZERO
    } else {
        poles[i + 1] - poles[origin]
    };
    let mut tau = (lo + hi) / two;
    for _ in 0..200 {
        let (psi, dpsi, phi, dphi) = eval(origin, tau);
        let f = inv_rho + psi + phi;
        if !f.is_finite_value() {
            return None;
        }
        let bound =
            R::EPS * (R::from_f64(8.0) * (inv_rho - psi + phi) + tau.rabs() * (dpsi + dphi));
        if f.rabs() <= bound {
            return Some(Root { origin, tau });
        }
        if f < R::ZERO {
            lo = tau;
        } else {
            hi = tau;
        }
        if hi - lo <= two * R::EPS * lo.rabs().rmax(hi.rabs()) {
            return Some(Root { origin, tau });
        }
        // ψ ≈ a + b/(left − x), φ ≈ c + e/(right − x) (no φ pole for the last root).
        let b = dpsi * (left - tau) * (left - tau);
        let a = psi - b / (left - tau);
        let next = if last {
            // s − b/x = 0 with x the distance from the last pole (the origin).
            let s = inv_rho + a + phi;
            b / s
        } else {
            let e = dphi * (right - tau) * (right - tau);
            let c = phi - e / (right - tau);
            let s = inv_rho + a + c;
            // s·(left − x)(right − x) + b·(right − x) + e·(left − x) = 0; one of left, right is
            // 0 (the origin), so the constant term is b·right + e·left and the root wanted is
            // the one of smaller magnitude.
            let lin = s * (left + right) + b + e;
            let cst = s * left * right + b * right + e * left;
            let disc = lin * lin - R::from_f64(4.0) * s * cst;
            if disc < R::ZERO {
                // No real root of the model: bisect.
                lo - R::ONE
            } else {
                // The two roots of the model; the one inside the bracket is wanted.
                let q = lin + disc.rsqrt().rcopysign(lin);
                let small = two * cst / q;
                if small > lo && small < hi {
                    small
                } else {
                    q / (two * s)
                }
            }
        };
        tau = if next > lo && next < hi {
            next
        } else {
            (lo + hi) / two
        };
    }
    None
}

/// A job on column `i` of a `k × k` column-major matrix.
type ColumnFn<'f, R> = dyn Fn((usize, &mut [R])) + Sync + 'f;

/// The eigenvectors of `diag(poles) + ρ·w·wᵀ` (`?LAED3`): `k × k` column-major, column `i`
/// the unit vector `ẑ_j / (p_j − λ_i)` of root `i`, with Gu and Eisenstat's `ẑ` (the weights
/// for which the computed roots are exact: `ẑ_j² ∝ Π_i (λ_i − p_j) / Π_{i≠j} (p_i − p_j)`,
/// signs of `w`), which keeps the columns orthogonal however close the roots.
fn vectors<R: Real>(
    poles: &[R],
    weights: &[R],
    roots: &[Root<R>],
    parallel: bool,
) -> Result<Vec<R>, NotConverged> {
    let k = poles.len();
    if k == 0 {
        return Ok(Vec::new());
    }
    // delta[i·k + j] = p_j − λ_i, from each root's origin.
    let mut delta = vec![R::ZERO; k * k];
    let fill = |(i, col): (usize, &mut [R])| {
        let r = roots[i];
        let o = poles[r.origin];
        for (x, &p) in col.iter_mut().zip(poles) {
            *x = (p - o) - r.tau;
        }
    };
    let run_cols = |m: &mut [R], f: &ColumnFn<'_, R>| {
        if parallel && k >= PARALLEL_MIN {
            m.par_chunks_mut(k).enumerate().for_each(f);
        } else {
            m.chunks_mut(k).enumerate().for_each(f);
        }
    };
    run_cols(&mut delta, &fill);
    // ẑ_j² ∝ −(p_j − λ_j) · Π_{i≠j} (p_j − λ_i)/(p_j − p_i), accumulated a column at a time
    // over lanes j (split in two halves over the pool).
    let mut zhat = vec![R::ONE; k];
    let accumulate = |(h, part): (usize, &mut [R])| {
        let j0 = h * k.div_ceil(2);
        for (i, col) in delta.chunks(k).enumerate() {
            let pi = poles[i];
            for (l, zj) in part.iter_mut().enumerate() {
                let j = j0 + l;
                let factor = if j == i {
                    -col[j]
                } else {
                    col[j] / (poles[j] - pi)
                };
                *zj *= factor;
            }
        }
    };
    if parallel && k >= PARALLEL_MIN {
        zhat.par_chunks_mut(k.div_ceil(2))
            .enumerate()
            .for_each(accumulate);
    } else {
        zhat.chunks_mut(k.div_ceil(2))
            .enumerate()
            .for_each(accumulate);
    }
    for (zj, &w) in zhat.iter_mut().zip(weights) {
        *zj = zj.rabs().rsqrt().rcopysign(w);
    }
    // Column i: ẑ_j / (p_j − λ_i), normalized.
    let mut u = delta;
    let normalize = |(_, col): (usize, &mut [R])| {
        for (x, &zj) in col.iter_mut().zip(&zhat) {
            *x = zj / *x;
        }
        let norm = col.iter().fold(R::ZERO, |s, &x| s + x * x).rsqrt();
        for x in col.iter_mut() {
            *x /= norm;
        }
    };
    run_cols(&mut u, &normalize);
    if u.iter().all(|x| x.is_finite_value()) {
        Ok(u)
    } else {
        Err(NotConverged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Par;

    /// A small deterministic generator (xorshift), uniform in [−1, 1).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    }

    /// `max |T·q_j − λ_j·q_j| / (‖T‖·n·ε)` and `max |QᵀQ − I| / (n·ε)`, in f64.
    fn residuals<R: Real>(d: &[f64], e: &[f64], values: &[R], q: &[R]) -> (f64, f64) {
        let n = d.len();
        let eps = R::EPS.to_f64();
        let q = |i: usize, j: usize| q[j * n + i].to_f64();
        let norm = (0..n)
            .map(|i| {
                d[i].abs()
                    + if i > 0 { e[i - 1].abs() } else { 0.0 }
                    + if i + 1 < n { e[i].abs() } else { 0.0 }
            })
            .fold(f64::MIN_POSITIVE, f64::max);
        let mut res = 0f64;
        let mut orth = 0f64;
        for (j, lambda) in values.iter().enumerate() {
            for i in 0..n {
                let mut t = d[i] * q(i, j);
                if i > 0 {
                    t += e[i - 1] * q(i - 1, j);
                }
                if i + 1 < n {
                    t += e[i] * q(i + 1, j);
                }
                res = res.max((t - lambda.to_f64() * q(i, j)).abs());
            }
            for l in 0..=j {
                let dot: f64 = (0..n).map(|i| q(i, j) * q(i, l)).sum();
                orth = orth.max((dot - if l == j { 1.0 } else { 0.0 }).abs());
            }
        }
        (res / (norm * n as f64 * eps), orth / (n as f64 * eps))
    }

    /// Solves with ours (sequential and parallel) and checks residuals, orthogonality, order, and
    /// the values against `faer`'s own divide and conquer on the whole matrix.
    fn check<R: Real>(name: &str, d: &[f64], e: &[f64]) {
        let n = d.len();
        let dr: Vec<R> = d.iter().map(|&x| R::from_f64(x)).collect();
        let er: Vec<R> = e.iter().map(|&x| R::from_f64(x)).collect();
        let dw: Vec<f64> = dr.iter().map(|x| x.to_f64()).collect();
        let ew: Vec<f64> = er.iter().map(|x| x.to_f64()).collect();
        let mut reference = dr.clone();
        leaf(&mut reference, &er).expect("faer converges");
        for parallel in [false, true] {
            let mut values = dr.clone();
            let q = stedc(&mut values, &er, parallel)
                .unwrap_or_else(|_| panic!("{name}: n = {n}: not converged"));
            assert!(
                values.windows(2).all(|w| w[0] <= w[1]),
                "{name}: values not ascending"
            );
            let (res, orth) = residuals(&dw, &ew, &values, &q);
            assert!(res < 4.0, "{name}: n = {n}, residual {res} n·ε·‖T‖");
            assert!(orth < 4.0, "{name}: n = {n}, orthogonality {orth} n·ε");
            let scale = dw
                .iter()
                .chain(&ew)
                .fold(f64::MIN_POSITIVE, |m, x| m.max(x.abs()));
            for (a, b) in values.iter().zip(&reference) {
                let diff = (a.to_f64() - b.to_f64()).abs();
                assert!(
                    diff <= 4.0 * n as f64 * R::EPS.to_f64() * scale,
                    "{name}: n = {n}: {} vs faer's {}",
                    a.to_f64(),
                    b.to_f64()
                );
            }
        }
    }

    fn both(name: &str, d: &[f64], e: &[f64]) {
        check::<f32>(name, d, e);
        check::<f64>(name, d, e);
    }

    #[test]
    fn random_tridiagonals_past_the_leaf() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for n in [LEAF + 1, 100, 129, 200, 257, 300] {
            let d: Vec<f64> = (0..n).map(|_| rng.next()).collect();
            let e: Vec<f64> = (1..n).map(|_| rng.next()).collect();
            both("random", &d, &e);
        }
    }

    /// Poles within the tolerance of each other (rotations) and negligible couplings (small z).
    #[test]
    fn deflation_by_rotation_and_by_small_weights() {
        let mut rng = Rng(7);
        for n in [80, 150, 256] {
            // Wilkinson's W+: pairs of eigenvalues equal to many digits.
            let m = (n / 2) as f64;
            let d: Vec<f64> = (0..n).map(|i| (i as f64 - m).abs()).collect();
            both("wilkinson", &d, &vec![1.0; n - 1]);
            // Glued Wilkinson matrices: W21+ blocks joined by tiny couplings.
            let d: Vec<f64> = (0..n).map(|i| ((i % 21) as f64 - 10.0).abs()).collect();
            let e: Vec<f64> = (1..n)
                .map(|i| if i % 21 == 0 { 1e-7 } else { 1.0 })
                .collect();
            both("glued wilkinson", &d, &e);
            // Near-identity: every pole in one cluster.
            let d: Vec<f64> = (0..n).map(|_| 1.0 + 1e-9 * rng.next()).collect();
            let e: Vec<f64> = (1..n).map(|_| 1e-9 * rng.next()).collect();
            both("cluster", &d, &e);
            // Graded: eigenvalues over many orders of magnitude.
            let d: Vec<f64> = (0..n).map(|i| 10f64.powf(-(i as f64) / 12.0)).collect();
            let e: Vec<f64> = (1..n)
                .map(|i| 0.5 * 10f64.powf(-(i as f64) / 12.0))
                .collect();
            both("graded", &d, &e);
            // Repeated diagonal values with some couplings zero (split matrices).
            let d: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
            let e: Vec<f64> = (1..n)
                .map(|i| if i % 5 == 0 { 0.0 } else { rng.next() })
                .collect();
            both("split", &d, &e);
        }
    }

    /// The tridiagonal of a dense random symmetric matrix (little deflation: the merges' roots
    /// and vectors do the work): every instruction set and the pool give the scalar path's bits.
    #[test]
    fn every_instruction_set_and_the_pool_give_the_same_bits() {
        let mut rng = Rng(5);
        let n = 200;
        let mut a = vec![0f64; n * n];
        for j in 0..n {
            for i in j..n {
                let x = rng.next();
                a[i + j * n] = x;
                a[j + i * n] = x;
            }
        }
        let tri = super::super::tridiagonal::hetrd(&mut a, n, Par::Seq);
        both("dense", &tri.d, &tri.e);
        let (d32, e32): (Vec<f32>, Vec<f32>) = (
            tri.d.iter().map(|&x| x as f32).collect(),
            tri.e.iter().map(|&x| x as f32).collect(),
        );
        fn run<R: Real>(isa: Isa, d: &[R], e: &[R], parallel: bool) -> (Vec<R>, Vec<R>) {
            let mut values = d.to_vec();
            let q = stedc_with(isa, &mut values, e, parallel).expect("converges");
            (values, q)
        }
        let scalar64 = run(Isa::Scalar, &tri.d, &tri.e, false);
        let scalar32 = run(Isa::Scalar, &d32, &e32, false);
        for isa in Isa::available() {
            for parallel in [false, true] {
                assert!(
                    run(isa, &tri.d, &tri.e, parallel) == scalar64,
                    "{isa:?} f64"
                );
                assert!(run(isa, &d32, &e32, parallel) == scalar32, "{isa:?} f32");
            }
        }
    }

    /// ρ = 0 at the top tear, diagonal matrices, the zero matrix: everything deflates.
    #[test]
    fn everything_deflated() {
        let n = 130;
        let mut rng = Rng(3);
        let d: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let mut e: Vec<f64> = (1..n).map(|_| rng.next()).collect();
        e[n / 2 - 1] = 0.0;
        both("torn at a zero", &d, &e);
        both("diagonal", &d, &vec![0.0; n - 1]);
        both("zero", &vec![0.0; n], &vec![0.0; n - 1]);
        both("repeated", &vec![2.0; n], &vec![0.0; n - 1]);
    }

    /// Each root lies strictly inside its interval and makes the secular function small.
    #[test]
    fn secular_roots_interlace_the_poles() {
        let mut rng = Rng(11);
        let k = 150;
        let mut poles: Vec<f64> = (0..k).map(|_| rng.next()).collect();
        poles.sort_by(f64::total_cmp);
        let mut weights: Vec<f64> = (0..k).map(|_| rng.next()).collect();
        let norm = weights.iter().map(|w| w * w).sum::<f64>().sqrt();
        weights.iter_mut().for_each(|w| *w /= norm);
        let rho = 0.75;
        let roots = secular_roots(Isa::Scalar, &poles, &weights, rho, false).expect("converges");
        for (i, r) in roots.iter().enumerate() {
            let lambda = r.value(&poles);
            assert!(lambda >= poles[i], "root {i} below its pole");
            if i + 1 < k {
                assert!(lambda <= poles[i + 1], "root {i} above the next pole");
            } else {
                assert!(lambda <= poles[i] + rho, "last root past p + ρ‖w‖²");
            }
            // f at the root, terms from the origin: |f| within a few ulps of its terms' sum.
            let o = poles[r.origin];
            let terms: Vec<f64> = (0..k)
                .map(|j| weights[j] * weights[j] / ((poles[j] - o) - r.tau))
                .collect();
            let f = 1.0 / rho + terms.iter().sum::<f64>();
            let size = 1.0 / rho + terms.iter().map(|t| t.abs()).sum::<f64>();
            assert!(f.abs() <= 64.0 * f64::EPSILON * size, "root {i}: f = {f}");
        }
        let parallel =
            secular_roots(Isa::detect(), &poles, &weights, rho, true).expect("converges");
        for (a, b) in roots.iter().zip(&parallel) {
            assert_eq!((a.origin, a.tau), (b.origin, b.tau));
        }
    }
}
