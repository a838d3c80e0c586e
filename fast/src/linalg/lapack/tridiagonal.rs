//! `?SYTRD` / `?HETRD` with `uplo = 'L'` (blocked by `?LATRD` panels) and
//! `?ORMTR` / `?UNMTR('L', 'L', 'N')`: the reduction of a Hermitian matrix to a real symmetric
//! tridiagonal one, `A = Q·T·Qᴴ`, and the product `Q·Z` that turns the tridiagonal's eigenvectors
//! into `A`'s, for [`super::spectral::syevd`]. The large products run on `faer`'s `matmul`.
//!
//! `Q = H(0)⋯H(n−2)`, `H(j) = I − tau_j·v_j·v_jᴴ`, `v_j` zero in rows `0..=j`, 1 in row `j + 1`
//! ([`super::qr::larfg`]'s convention: `H(j)ᴴ` annihilates column `j` below its subdiagonal and
//! leaves a real subdiagonal element). Unlike LAPACK, the matrix is kept whole (both triangles):
//! the panel's matrix–vector products and the trailing rank-2k update are then plain products
//! (twice the flops of `?HEMV` / `?HER2K` on one triangle, at `matmul`'s speed, and no
//! triangle-aware kernels of our own).

use super::qr::larfg;
use super::{Elem, Real};
use crate::kernels::Isa;
use faer::linalg::matmul::matmul;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Accum, MatMut, MatRef, Par};

/// Reflectors per panel and per block of the back-transformation (`?SYTRD`'s block size in
/// LAPACK's `ILAENV`).
const NB: usize = 32;

/// The tridiagonal `T` of [`hetrd`] and its reflectors' scalars.
pub(super) struct Tridiagonal<T: Elem> {
    /// `T`'s diagonal, `n` values.
    pub d: Vec<T::R>,
    /// `T`'s subdiagonal (= its superdiagonal), `n − 1` values.
    pub e: Vec<T::R>,
    /// `tau_j`, `n − 1` scalars.
    pub tau: Vec<T>,
}

/// Reduces the Hermitian column-major `n × n` matrix `a` (both triangles hold it; diagonal
/// imaginary parts are ignored) in place. On return column `j < n − 1` holds `v_j` from row
/// `j + 1` down, its leading 1 included; the rest of `a` is scratch. `par`: the trailing updates'
/// parallelism.
pub(super) fn hetrd<T: Elem>(a: &mut [T], n: usize, par: Par) -> Tridiagonal<T> {
    hetrd_with(Isa::detect(), a, n, par)
}

/// [`hetrd`] with the panel's vector loops compiled for `isa` (one this CPU lacks runs as
/// [`Isa::Scalar`]; every instruction set gives the same bits).
pub(super) fn hetrd_with<T: Elem>(isa: Isa, a: &mut [T], n: usize, par: Par) -> Tridiagonal<T> {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<T: Elem>(a: &mut [T], n: usize, par: Par) -> Tridiagonal<T> {
            hetrd_body(a, n, par)
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2<T: Elem>(a: &mut [T], n: usize, par: Par) -> Tridiagonal<T> {
            hetrd_body(a, n, par)
        }
        match isa {
            // SAFETY: `is_available` detected AVX-512F on this CPU.
            Isa::Avx512 if isa.is_available() => return unsafe { avx512(a, n, par) },
            // SAFETY: `is_available` detected AVX2 and FMA on this CPU.
            Isa::Avx2Fma if isa.is_available() => return unsafe { avx2(a, n, par) },
            _ => {}
        }
    }
    let _ = isa;
    hetrd_body(a, n, par)
}

/// `y += Σ_l x_l·s(l)` over the `cols` columns `x_l = block[l·ld..][..y.len()]`, added to
/// each element in column order (four columns per pass over `y`).
#[inline(always)]
fn add_columns<T: Elem>(y: &mut [T], block: &[T], ld: usize, cols: usize, s: impl Fn(usize) -> T) {
    let rows = y.len();
    let x = |l: usize| &block[l * ld..l * ld + rows];
    let mut l = 0;
    while l + 4 <= cols {
        let (s0, s1, s2, s3) = (s(l), s(l + 1), s(l + 2), s(l + 3));
        let columns = x(l).iter().zip(x(l + 1)).zip(x(l + 2)).zip(x(l + 3));
        for (yr, (((&x0, &x1), &x2), &x3)) in y.iter_mut().zip(columns) {
            let mut t = *yr;
            t += x0 * s0;
            t += x1 * s1;
            t += x2 * s2;
            t += x3 * s3;
            *yr = t;
        }
        l += 4;
    }
    for l in l..cols {
        let f = s(l);
        for (yr, &xr) in y.iter_mut().zip(x(l)) {
            *yr += xr * f;
        }
    }
}

/// `xᴴ·y` in [`LANES`] independent lanes added up in order (the same bits on every
/// instruction set).
#[inline(always)]
fn dot_conj<T: Elem>(x: &[T], y: &[T]) -> T {
    let mut acc = [T::zero_value(); LANES];
    let xc = x.chunks_exact(LANES);
    let yc = y.chunks_exact(LANES);
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (xs, ys) in xc.zip(yc) {
        for l in 0..LANES {
            acc[l] += xs[l].conj_value() * ys[l];
        }
    }
    for (l, (&a, &b)) in xr.iter().zip(yr).enumerate() {
        acc[l] += a.conj_value() * b;
    }
    acc.iter().fold(T::zero_value(), |s, &x| s + x)
}

/// Independent lanes of [`dot_conj`].
const LANES: usize = 16;

#[inline(always)]
fn hetrd_body<T: Elem>(a: &mut [T], n: usize, par: Par) -> Tridiagonal<T> {
    let zero = T::zero_value();
    let one = T::lift(T::R::ONE);
    let minus_half = T::lift(T::R::from_f64(-0.5));
    let r = n.saturating_sub(1);
    let mut d = vec![T::R::ZERO; n];
    let mut e = vec![T::R::ZERO; r];
    let mut tau = vec![zero; r];
    // W(row, j) of the panel at w[j·n + row] (`?LATRD`'s W), rows k+1.. in use.
    let mut w = vec![zero; n * NB];
    let mut k = 0;
    while k < r {
        let nb = NB.min(r - k);
        for i in 0..nb {
            let c = k + i;
            let m = n - c - 1;
            let (left, right) = a.split_at_mut(c * n);
            let (col, rest) = right.split_at_mut(n);
            // Column c, rows c.., brought up to date with the panel's earlier reflectors:
            // a(c.., c) −= V(c.., k..c)·W(c, 0..i)ᴴ + W(c.., 0..i)·V(c, k..c)ᴴ.
            if i > 0 {
                let vp = &left[k * n + c..];
                let wp = &w[c..];
                add_columns(&mut col[c..], vp, n, i, |l| -wp[l * n].conj_value());
                add_columns(&mut col[c..], wp, n, i, |l| -vp[l * n].conj_value());
            }
            d[c] = col[c].re_of();
            // The reflector of rows c+1.. (`?LARFG`); H = I when there is nothing to annihilate.
            let (head, x) = col[c + 1..].split_at_mut(1);
            let (beta, t) = larfg(head[0], x, T::nrm2(x)).unwrap_or((head[0].re_of(), zero));
            e[c] = beta;
            tau[c] = t;
            head[0] = one;
            // w_i = tau·(A22·v − V·(Wᴴ·v) − W·(Vᴴ·v)), then w_i −= ½·tau·(w_iᴴ·v)·v, rows c+1..
            // (A22 as the panel found it: columns c+1.. are not updated yet).
            let v = &col[c + 1..];
            let (w_done, w_rest) = w.split_at_mut(i * n);
            let wi = &mut w_rest[c + 1..n];
            // A22·v as a sum of columns (A22 is Hermitian and whole: its columns are contiguous).
            wi.fill(zero);
            add_columns(wi, &rest[c + 1..], n, m, |j| v[j]);
            if i > 0 {
                let vp = &left[k * n + c + 1..];
                let wp = &w_done[c + 1..];
                let mut s_w = [zero; NB];
                let mut s_v = [zero; NB];
                for l in 0..i {
                    s_w[l] = dot_conj(&wp[l * n..l * n + m], v);
                    s_v[l] = dot_conj(&vp[l * n..l * n + m], v);
                }
                add_columns(wi, vp, n, i, |l| -s_w[l]);
                add_columns(wi, wp, n, i, |l| -s_v[l]);
            }
            let mut dot = zero;
            for (x, &vr) in wi.iter_mut().zip(v) {
                *x = t * *x;
                dot += x.conj_value() * vr;
            }
            let alpha = minus_half * t * dot;
            for (x, &vr) in wi.iter_mut().zip(v) {
                *x += alpha * vr;
            }
        }
        // The trailing matrix, both triangles: a(s.., s..) −= V·Wᴴ + W·Vᴴ.
        let s = k + nb;
        let m = n - s;
        let (left, right) = a.split_at_mut(s * n);
        let v = MatRef::from_column_major_slice_with_stride(&left[k * n + s..], m, nb, n);
        let wm = MatRef::from_column_major_slice_with_stride(&w[s..], m, nb, n);
        let mut a22 = MatMut::from_column_major_slice_with_stride_mut(&mut right[s..], m, m, n);
        matmul(a22.rb_mut(), Accum::Add, v, wm.adjoint(), -one, par);
        matmul(a22.rb_mut(), Accum::Add, wm, v.adjoint(), -one, par);
        k = s;
    }
    if n > 0 {
        d[n - 1] = a[n * n - 1].re_of();
    }
    Tridiagonal { d, e, tau }
}

/// `z ← Q·z` for the column-major `n × cols` matrix `z` (`?UNMTR('L', 'L', 'N')`), `Q` of
/// [`hetrd`]'s reflectors (`a` as it returned it, `tau` its `n − 1` scalars): blocks of [`NB`]
/// reflectors as `I − V·T·Vᴴ` (`?LARFT`, forward and columnwise), the last block first.
pub(super) fn unmtr<T: Elem>(a: &[T], tau: &[T], z: &mut [T], n: usize, par: Par) {
    let zero = T::zero_value();
    let one = T::lift(T::R::ONE);
    let r = tau.len();
    if r == 0 || z.is_empty() {
        return;
    }
    let cols = z.len() / n;
    let mut vb = vec![zero; n * NB];
    let mut tb = [zero; NB * NB];
    let mut gb = [zero; NB * NB];
    let mut w1 = vec![zero; NB * cols];
    let mut w2 = vec![zero; NB * cols];
    for k in (0..r).step_by(NB).rev() {
        let nb = NB.min(r - k);
        let m = n - k - 1;
        // V (m × nb): column j is v_{k+j} on rows k+1.., zero above its leading 1.
        for j in 0..nb {
            let col = &mut vb[j * m..(j + 1) * m];
            col[..j].fill(zero);
            col[j..].copy_from_slice(&a[(k + j) * n + k + 1 + j..(k + j + 1) * n]);
        }
        // T (nb × nb, upper): T(i, i) = tau_i, T(0..i, i) = T(0..i, 0..i)·(−tau_i·V(:, 0..i)ᴴ·v_i),
        // the products V(:, 0..i)ᴴ·v_i read from the Gram matrix G = VᴴV (strictly upper part).
        let v = MatRef::from_column_major_slice(&vb[..m * nb], m, nb);
        let mut g = MatMut::from_column_major_slice_mut(&mut gb[..nb * nb], nb, nb);
        matmul(g.rb_mut(), Accum::Replace, v.adjoint(), v, one, Par::Seq);
        let t = &mut tb[..nb * nb];
        t.fill(zero);
        for i in 0..nb {
            let ti = tau[k + i];
            t[i + i * nb] = ti;
            for j in 0..i {
                t[j + i * nb] = -ti * gb[j + i * nb];
            }
            for j in 0..i {
                let mut s = zero;
                for l in j..i {
                    s += t[j + l * nb] * t[l + i * nb];
                }
                t[j + i * nb] = s;
            }
        }
        // Rows k+1.. of z: z −= V·(T·(Vᴴ·z)).
        let t = MatRef::from_column_major_slice(&tb[..nb * nb], nb, nb);
        let mut zs = MatMut::from_column_major_slice_with_stride_mut(&mut z[k + 1..], m, cols, n);
        let mut p = MatMut::from_column_major_slice_mut(&mut w1[..nb * cols], nb, cols);
        matmul(p.rb_mut(), Accum::Replace, v.adjoint(), zs.rb(), one, par);
        let mut q = MatMut::from_column_major_slice_mut(&mut w2[..nb * cols], nb, cols);
        matmul(q.rb_mut(), Accum::Replace, t, p.rb(), one, par);
        matmul(zs.rb_mut(), Accum::Add, v, q.rb(), -one, par);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use num_complex::{Complex32, Complex64};

    /// A random Hermitian `n × n` matrix, whole, column-major (components in [-1, 1)).
    fn hermitian<T: Elem>(n: usize, rng: &mut Rng, make: impl Fn(f64, f64) -> T) -> Vec<T> {
        let mut a = vec![T::zero_value(); n * n];
        for j in 0..n {
            for i in j..n {
                let x = make(rng.unit(), if i == j { 0.0 } else { rng.unit() });
                a[i + j * n] = x;
                a[j + i * n] = x.conj_value();
            }
        }
        a
    }

    /// `max |A − Q·T·Qᴴ|` and `max |QᴴQ − I|`, `Q` formed by `unmtr` from the identity and the
    /// products in f64 (via the components).
    fn residuals<T: Elem>(a: &[T], n: usize, par: Par) -> (f64, f64) {
        let mut h = a.to_vec();
        let tri = hetrd(&mut h, n, par);
        assert_eq!(
            (tri.d.len(), tri.e.len(), tri.tau.len()),
            (n, n.saturating_sub(1), n.saturating_sub(1))
        );
        let mut q = vec![T::zero_value(); n * n];
        for i in 0..n {
            q[i + i * n] = T::lift(T::R::ONE);
        }
        unmtr(&h, &tri.tau, &mut q, n, par);
        let c = |x: T| Complex64::new(x.re_of().to_f64(), x.im_of().to_f64());
        let q: Vec<Complex64> = q.into_iter().map(c).collect();
        // T·Qᴴ, then Q·(T·Qᴴ) and Qᴴ·Q.
        let t = |i: usize, j: usize| -> f64 {
            if i == j {
                tri.d[i].to_f64()
            } else if i == j + 1 {
                tri.e[j].to_f64()
            } else if j == i + 1 {
                tri.e[i].to_f64()
            } else {
                0.0
            }
        };
        let (mut recon, mut orth) = (0f64, 0f64);
        let mut tqh = vec![Complex64::new(0.0, 0.0); n * n];
        for j in 0..n {
            for i in 0..n {
                let lo = i.saturating_sub(1);
                tqh[i + j * n] = (lo..(i + 2).min(n))
                    .map(|l| q[j + l * n].conj() * t(i, l))
                    .sum();
            }
        }
        for j in 0..n {
            for i in 0..n {
                let qtq: Complex64 = (0..n).map(|l| q[i + l * n] * tqh[l + j * n]).sum();
                recon = recon.max((qtq - c(a[i + j * n])).norm());
                let qhq: Complex64 = (0..n).map(|l| q[l + i * n].conj() * q[l + j * n]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                orth = orth.max((qhq - want).norm());
            }
        }
        (recon, orth)
    }

    fn check<T: Elem>(unit: f64, make: impl Fn(f64, f64) -> T + Copy) {
        let mut rng = Rng(29);
        // One partial panel, exactly one panel, one and a bit, three panels with a partial one.
        for n in [0, 1, 2, 3, 31, 32, 33, 34, 70] {
            let a = hermitian::<T>(n, &mut rng, make);
            for par in [Par::Seq, Par::rayon(2)] {
                let (recon, orth) = residuals(&a, n, par);
                let tol = 20.0 * (n.max(1) as f64) * unit;
                assert!(
                    recon <= tol && orth <= tol,
                    "n = {n}: |A − QTQᴴ| = {recon:e}, |QᴴQ − I| = {orth:e}, tolerance {tol:e}"
                );
            }
        }
    }

    #[test]
    fn reduction_and_back_transformation_reconstruct_the_matrix() {
        check::<f32>(f32::EPSILON as f64, |re, _| re as f32);
        check::<f64>(f64::EPSILON, |re, _| re);
        check::<Complex32>(f32::EPSILON as f64, |re, im| {
            Complex32::new(re as f32, im as f32)
        });
        check::<Complex64>(f64::EPSILON, Complex64::new);
    }

    /// The panel loops compiled for each instruction set give the scalar build's bits (every
    /// type, a size with two full panels and a partial one).
    #[test]
    fn every_instruction_set_gives_the_same_reduction() {
        fn same<T: Elem>(make: impl Fn(f64, f64) -> T + Copy) {
            let n = 75;
            let a = hermitian::<T>(n, &mut Rng(17), make);
            let run = |isa: Isa| {
                let mut h = a.clone();
                let tri = hetrd_with(isa, &mut h, n, Par::Seq);
                (h, tri.d, tri.e, tri.tau)
            };
            let scalar = run(Isa::Scalar);
            for isa in Isa::available() {
                assert!(run(isa) == scalar, "{isa:?}");
            }
        }
        same::<f32>(|re, _| re as f32);
        same::<f64>(|re, _| re);
        same::<Complex32>(|re, im| Complex32::new(re as f32, im as f32));
        same::<Complex64>(Complex64::new);
    }

    #[test]
    fn a_matrix_already_tridiagonal_needs_no_reflection() {
        // Nothing to annihilate below the subdiagonal: every tau is 0 (H = I) and T is A.
        let n = 40;
        let mut a = vec![0f64; n * n];
        for i in 0..n {
            a[i + i * n] = i as f64;
            if i + 1 < n {
                a[i + 1 + i * n] = -0.5;
                a[i + (i + 1) * n] = -0.5;
            }
        }
        let tri = hetrd(&mut a.clone(), n, Par::Seq);
        assert!(tri.tau.iter().all(|&t| t == 0.0));
        assert_eq!(tri.d, (0..n).map(|i| i as f64).collect::<Vec<_>>());
        assert!(tri.e.iter().all(|&e| e == -0.5));
    }
}
