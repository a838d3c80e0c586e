//! `?GEQRF` and `?ORGQR` / `?UNGQR` (`lapack_?geqrf_ffi`, `lapack_?orgqr_ffi`,
//! `lapack_?ungqr_ffi`; docs/custom-calls.md "QR"), by our own Householder loops on LAPACK's
//! column-major matrices (the unblocked `?GEQR2` / `?ORG2R`; batch elements on the pool).
//!
//! `Q = H(1)⋯H(k)`, `H(j) = I − tau_j·v_j·v_jᴴ`, `v_j(j) = 1` implicit and `v_j` stored below the
//! diagonal of column `j`, `R` on and above the diagonal.
//!
//! **`?LARFG`'s convention**, column `j`: `alpha = a(j, j)`, `x = a(j+1.., j)`. When `‖x‖ = 0`
//! and `Im alpha = 0`: `tau = 0` (`H = I`) and `R(j, j) = alpha`. Otherwise
//! `beta = −sign(Re alpha)·hypot(|alpha|, ‖x‖)` (the sign bit of `Re alpha`, as gfortran's
//! `SIGN`), `tau = (beta − alpha)/beta`, `v = x·(1/(alpha − beta))`, `R(j, j) = beta`; then
//! `H(j)ᴴ` (`tau` conjugated) is applied to the columns on the right. LAPACK's rescaling of
//! `alpha, x` when `|beta| < ?LAMCH('S')` is not done (it only matters for columns of norm below
//! ~1e-38 in f32, ~1e-308 in f64), and `‖x‖` is an accumulated `hypot` rather than `?NRM2`'s sum:
//! results agree with LAPACK's up to rounding.

use super::{Elem, Geometry, Real};
use rayon::prelude::*;

/// `?GEQRF` of every matrix (LAPACK's layout): `(qr, tau [B, min(m, n)])`.
pub fn geqrf<T: Elem>(a: &[T], g: Geometry) -> (Vec<T>, Vec<T>) {
    let (m, n) = (g.m, g.n);
    let k = m.min(n);
    let mut qr = a.to_vec();
    let mut tau = vec![T::zero_value(); g.batches * k];
    if k == 0 {
        return (qr, tau);
    }
    let run = |(mat, t): (&mut [T], &mut [T])| geqrf_one(mat, m, n, t);
    if g.across() {
        qr.par_chunks_mut(m * n)
            .zip(tau.par_chunks_mut(k))
            .for_each(run);
    } else {
        qr.chunks_mut(m * n).zip(tau.chunks_mut(k)).for_each(run);
    }
    (qr, tau)
}

/// One column-major `m × n` matrix in place (`?GEQR2`); `tau` receives `min(m, n)` scalars.
pub fn geqrf_one<T: Elem>(a: &mut [T], m: usize, n: usize, tau: &mut [T]) {
    let zero = T::zero_value();
    let one = T::lift(T::R::ONE);
    for j in 0..m.min(n) {
        let (left, right) = a.split_at_mut((j + 1) * m);
        let col = &mut left[j * m..];
        let (head, x) = col[j..].split_at_mut(1);
        let mut xnorm = T::R::ZERO;
        for v in x.iter() {
            xnorm = xnorm.rhypot(v.re_of()).rhypot(v.im_of());
        }
        let Some((beta, t)) = larfg(head[0], x, xnorm) else {
            tau[j] = zero;
            continue;
        };
        tau[j] = t;
        col[j] = one;
        apply_reflector(&col[j..], t.conj_value(), right, j, m);
        col[j] = T::lift(beta);
    }
}

/// `?LARFG` (the module's convention) given `xnorm = ‖x‖₂`: the reflector `H = I − tau·v·vᴴ`
/// with `Hᴴ·(alpha, x) = (beta, 0)`, `beta` real; `x` is overwritten by `v` below its leading 1.
/// `None` when `‖x‖ = 0` and `Im alpha = 0` (`tau = 0`, `H = I`, `x` and `alpha` unchanged).
pub(super) fn larfg<T: Elem>(alpha: T, x: &mut [T], xnorm: T::R) -> Option<(T::R, T)> {
    if xnorm == T::R::ZERO && alpha.im_of() == T::R::ZERO {
        return None;
    }
    let beta = -alpha.modulus().rhypot(xnorm).rcopysign(alpha.re_of());
    let tau = (T::lift(beta) - alpha).div_r(beta);
    let r = T::lift(T::R::ONE) / (alpha - T::lift(beta));
    for v in x.iter_mut() {
        *v *= r;
    }
    Some((beta, tau))
}

/// `C ← (I − t·v·vᴴ)·C` for the rows `j..m` of the column-major columns `c` (each `m` long), `v`
/// given with its leading 1 (`?LARF('Left')`: `s = vᴴ·c`, `c −= v·(t·s)` per column).
fn apply_reflector<T: Elem>(v: &[T], t: T, c: &mut [T], j: usize, m: usize) {
    let zero = T::zero_value();
    if t == zero {
        return;
    }
    for col in c.chunks_mut(m) {
        let rows = &mut col[j..];
        let mut s = zero;
        for (&vi, &ci) in v.iter().zip(rows.iter()) {
            s += vi.conj_value() * ci;
        }
        let ts = t * s;
        for (ci, &vi) in rows.iter_mut().zip(v) {
            *ci -= vi * ts;
        }
    }
}

/// `?ORGQR` / `?UNGQR` of every matrix: `a [B, m, n]` (LAPACK's layout) holding the reflectors
/// below its diagonal, `tau [B, k]` row-major (`k ≤ n ≤ m`, checked by the caller) → `q`, the first
/// `n` columns of `H(1)⋯H(k)`.
pub fn orgqr<T: Elem>(a: &[T], tau: &[T], g: Geometry) -> Vec<T> {
    let (m, n) = (g.m, g.n);
    let mut q = a.to_vec();
    if m * n == 0 {
        return q;
    }
    let k = tau.len() / g.batches.max(1);
    let run = |(b, mat): (usize, &mut [T])| orgqr_one(mat, m, n, &tau[b * k..(b + 1) * k]);
    if g.across() {
        q.par_chunks_mut(m * n).enumerate().for_each(run);
    } else {
        q.chunks_mut(m * n).enumerate().for_each(run);
    }
    q
}

/// One column-major `m × n` matrix in place (`?ORG2R` / `?UNG2R`): columns `k..n` start as those
/// of the identity, then for `i = k−1, …, 0`: `H(i)` (`tau_i`, not conjugated) applied to columns
/// `i+1..n`, column `i` becomes `H(i)·e_i` (`−tau_i·v` below the diagonal, `1 − tau_i` on it, 0
/// above).
pub fn orgqr_one<T: Elem>(a: &mut [T], m: usize, n: usize, tau: &[T]) {
    let zero = T::zero_value();
    let one = T::lift(T::R::ONE);
    let k = tau.len();
    for j in k..n {
        let col = &mut a[j * m..(j + 1) * m];
        col.fill(zero);
        col[j] = one;
    }
    for i in (0..k).rev() {
        let (left, right) = a.split_at_mut((i + 1) * m);
        let col = &mut left[i * m..];
        if i + 1 < n {
            col[i] = one;
            apply_reflector(&col[i..], tau[i], right, i, m);
        }
        let minus_tau = -tau[i];
        for v in &mut col[i + 1..] {
            *v = minus_tau * *v;
        }
        col[i] = one - tau[i];
        col[..i].fill(zero);
    }
}
