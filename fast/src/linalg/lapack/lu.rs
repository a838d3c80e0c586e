//! `?GETRF` (`lapack_?getrf_ffi`, docs/custom-calls.md "LU"): `A = P·L·U` with partial pivoting,
//! by our own right-looking loops on LAPACK's column-major matrices (O(m·n·k) per matrix, batch
//! elements on the pool).
//!
//! Results per matrix `m × n`, `k = min(m, n)`: `lu` holds `U` on and above the diagonal and the
//! strictly lower part of the unit lower `L`; `ipiv` (1-based, `k` entries): row `j` was swapped
//! with row `ipiv[j]`; `info` = 0, or the first 1-based `j` whose column had no nonzero pivot
//! candidate (`U(j, j) = 0` exactly).
//!
//! LAPACK's rule (`?GETRF2`'s one-column step): the pivot of column `j` is the first row `p ≥ j` of
//! largest `|a(p, j)|` (`I?AMAX`: `|re| + |im|` for complex types, strictly greater replaces, so a
//! leading NaN stays); when `a(p, j) ≠ 0` (NaN included) rows `j` and `p` are swapped and the part
//! below the diagonal is multiplied by `1/a(j, j)` (divided by `a(j, j)` when
//! `|a(j, j)| < ?LAMCH('S')`); otherwise `ipiv[j] = j`, nothing is scaled and `info` records the
//! first such `j`. Then the trailing matrix gets the rank-one update. [`getrf_one_with`] performs these
//! operations panel by panel with the same bits; blocked LAPACK (a matrix product for the trailing
//! update) performs them in another order, so its values may differ in the last bits.

use super::{Elem, Geometry, Real};
use crate::kernels::Isa;
use rayon::prelude::*;

/// `?GETRF` of every matrix (LAPACK's layout): `(lu, ipiv [B, k], info [B])`.
pub fn getrf<T: Elem>(a: &[T], g: Geometry) -> (Vec<T>, Vec<i32>, Vec<i32>) {
    let (m, n) = (g.m, g.n);
    let k = m.min(n);
    let mut lu = a.to_vec();
    let mut info = vec![0i32; g.batches];
    let mut ipiv = vec![0i32; g.batches * k];
    if k == 0 {
        return (lu, ipiv, info);
    }
    // One matrix at a time may use the pool for its trailing updates; several go there one each.
    let inner = g.parallel && !g.across();
    let run = |((mat, piv), info): ((&mut [T], &mut [i32]), &mut i32)| {
        *info = getrf_one_with(g.isa, mat, m, n, piv, inner)
    };
    if g.across() {
        lu.par_chunks_mut(m * n)
            .zip(ipiv.par_chunks_mut(k))
            .zip(info.par_iter_mut())
            .for_each(run);
    } else {
        lu.chunks_mut(m * n)
            .zip(ipiv.chunks_mut(k))
            .zip(info.iter_mut())
            .for_each(run);
    }
    (lu, ipiv, info)
}

/// Columns per panel of [`getrf_one_with`].
const PANEL: usize = 32;

/// Trailing updates of at least this many multiply-adds go to the pool (one column per task).
const PARALLEL_FLOPS: usize = 1 << 18;

/// One column-major `m × n` matrix in place; `ipiv` receives `min(m, n)` 1-based pivots; returns
/// `info`. `parallel`: the trailing columns of each panel may be updated on the pool.
///
/// The operations of the unblocked right-looking algorithm (LAPACK's `?GETF2`, the module docs),
/// in a cache-friendlier order with the same result bit for bit: a panel of [`PANEL`] columns is
/// factored with the unblocked steps (row swaps inside the panel), then its row swaps are applied
/// to every other column, and each trailing column receives the panel's updates one pivot after
/// another, while it is in cache. Every element sees the same operations in the same order as in
/// the unblocked algorithm: a trailing column's updates depend only on its own values and on `L`'s
/// finished columns, and swapping its rows before rather than between the updates exchanges the
/// same two rows of both the column and `L` (rows below the pivot being eliminated).
///
/// The trailing updates are compiled for `isa` (one this CPU lacks runs as [`Isa::Scalar`]);
/// every instruction set gives the same bits (the updates are separate multiplies and
/// subtractions, never fused).
fn getrf_one_with<T: Elem>(
    isa: Isa,
    a: &mut [T],
    m: usize,
    n: usize,
    ipiv: &mut [i32],
    parallel: bool,
) -> i32 {
    let isa = if isa.is_available() { isa } else { Isa::Scalar };
    let k = m.min(n);
    let mut info = 0i32;
    for j0 in (0..k).step_by(PANEL) {
        let jb = PANEL.min(k - j0);
        let panel_end = (j0 + jb) * m;
        factor_panel_with(isa, &mut a[..panel_end], m, j0, jb, ipiv, &mut info);
        // The panel's row swaps, on the columns before and after it.
        let (before, rest) = a.split_at_mut(j0 * m);
        let (panel, after) = rest.split_at_mut(jb * m);
        for c in before.chunks_mut(m).chain(after.chunks_mut(m)) {
            for (j, &pivot) in ipiv.iter().enumerate().skip(j0).take(jb) {
                let p = pivot as usize - 1;
                if p != j {
                    c.swap(j, p);
                }
            }
        }
        // The panel's eliminations, on each trailing column.
        let update = |c: &mut [T]| eliminate_panel_with(isa, c, panel, m, j0, jb);
        let columns = after.len() / m.max(1);
        if parallel && columns * jb * (m - j0) >= PARALLEL_FLOPS {
            after.par_chunks_mut(m).for_each(update);
        } else {
            after.chunks_mut(m).for_each(update);
        }
    }
    info
}

/// [`factor_panel`] compiled for `isa`, which must be available on this CPU.
fn factor_panel_with<T: Elem>(
    isa: Isa,
    a: &mut [T],
    m: usize,
    j0: usize,
    jb: usize,
    ipiv: &mut [i32],
    info: &mut i32,
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<T: Elem>(
            a: &mut [T],
            m: usize,
            j0: usize,
            jb: usize,
            p: &mut [i32],
            i: &mut i32,
        ) {
            factor_panel(a, m, j0, jb, p, i)
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2<T: Elem>(a: &mut [T], m: usize, j0: usize, jb: usize, p: &mut [i32], i: &mut i32) {
            factor_panel(a, m, j0, jb, p, i)
        }
        match isa {
            // SAFETY: `getrf_one_with` keeps `Isa::Avx512` only when the CPU has AVX-512F.
            Isa::Avx512 => return unsafe { avx512(a, m, j0, jb, ipiv, info) },
            // SAFETY: `getrf_one_with` keeps `Isa::Avx2Fma` only when the CPU has AVX2 and FMA.
            Isa::Avx2Fma => return unsafe { avx2(a, m, j0, jb, ipiv, info) },
            Isa::Scalar => {}
        }
    }
    let _ = isa;
    factor_panel(a, m, j0, jb, ipiv, info)
}

/// `?GETF2` on columns `j0 .. j0 + jb` of `a` (which holds exactly the columns up to the panel's
/// end): pivot search, row swaps inside the panel, scaling and the eliminations inside the panel.
/// Records the pivots in `ipiv[j0 .. j0 + jb]` and the first zero pivot in `info`.
#[inline(always)]
fn factor_panel<T: Elem>(
    a: &mut [T],
    m: usize,
    j0: usize,
    jb: usize,
    ipiv: &mut [i32],
    info: &mut i32,
) {
    let zero = T::zero_value();
    let one = T::lift(T::R::ONE);
    let panel = &mut a[j0 * m..];
    for j in j0..j0 + jb {
        let col = (j - j0) * m;
        // I?AMAX over rows j..m of column j.
        let mut p = j;
        let mut best = panel[col + j].cabs1();
        for i in j + 1..m {
            let v = panel[col + i].cabs1();
            if v > best {
                best = v;
                p = i;
            }
        }
        ipiv[j] = (p + 1) as i32;
        let pivot = panel[col + p];
        if pivot != zero {
            if p != j {
                for c in panel.chunks_mut(m) {
                    c.swap(j, p);
                }
            }
            if pivot.modulus() >= T::R::SAFE_MIN {
                let r = one / pivot;
                for v in &mut panel[col + j + 1..col + m] {
                    *v *= r;
                }
            } else {
                for v in &mut panel[col + j + 1..col + m] {
                    *v /= pivot;
                }
            }
        } else if *info == 0 {
            *info = (j + 1) as i32;
        }
        let (left, right) = panel.split_at_mut(col + m);
        let l = &left[col..];
        for c in right.chunks_mut(m) {
            eliminate(c, l, j);
        }
    }
}

/// Step `j`'s elimination on one column `c` (length `m`): `c[i] −= l[i]·c[j]` for `i > j`, where
/// `l` is `L`'s column `j`; nothing when `c[j] = 0` (as the BLAS rank-one update skips it).
#[inline(always)]
fn eliminate<T: Elem>(c: &mut [T], l: &[T], j: usize) {
    let f = c[j];
    if f != T::zero_value() {
        for (x, &lv) in c[j + 1..].iter_mut().zip(&l[j + 1..]) {
            *x -= lv * f;
        }
    }
}

/// [`eliminate_panel`] compiled for `isa`, which must be available on this CPU.
fn eliminate_panel_with<T: Elem>(
    isa: Isa,
    c: &mut [T],
    panel: &[T],
    m: usize,
    j0: usize,
    jb: usize,
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<T: Elem>(c: &mut [T], panel: &[T], m: usize, j0: usize, jb: usize) {
            eliminate_panel(c, panel, m, j0, jb)
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2<T: Elem>(c: &mut [T], panel: &[T], m: usize, j0: usize, jb: usize) {
            eliminate_panel(c, panel, m, j0, jb)
        }
        match isa {
            // SAFETY: `getrf_one_with` keeps `Isa::Avx512` only when the CPU has AVX-512F.
            Isa::Avx512 => return unsafe { avx512(c, panel, m, j0, jb) },
            // SAFETY: `getrf_one_with` keeps `Isa::Avx2Fma` only when the CPU has AVX2 and FMA.
            Isa::Avx2Fma => return unsafe { avx2(c, panel, m, j0, jb) },
            Isa::Scalar => {}
        }
    }
    let _ = isa;
    eliminate_panel(c, panel, m, j0, jb)
}

/// Steps `j0 .. j0 + jb` of the elimination on one trailing column `c`, `L`'s columns being those
/// of `panel` (`jb` columns of `m`). Up to four steps at a time: their multipliers `c[j + t]` are
/// found first (each after the steps before it, on the four rows alone), then the rows below
/// receive the steps together, so the column is read and written once for the four; each element
/// still gets `x −= l·f` for `j`, `j + 1`, ... in order, and a step whose multiplier is 0 ends the
/// group (it is skipped, as in [`eliminate`]): the same bits as one step at a time.
#[inline(always)]
fn eliminate_panel<T: Elem>(c: &mut [T], panel: &[T], m: usize, j0: usize, jb: usize) {
    let zero = T::zero_value();
    let l = |j: usize| &panel[(j - j0) * m..][..m];
    let end = j0 + jb;
    let mut j = j0;
    while j < end {
        let group = 4.min(end - j);
        let below = j + group; // first row below the group's own rows
        let mut f = [zero; 4];
        let mut taken = 0;
        while taken < group {
            let t = j + taken;
            let ft = c[t];
            if ft == zero {
                break;
            }
            f[taken] = ft;
            let lt = l(t);
            for r in t + 1..below {
                c[r] -= lt[r] * ft;
            }
            taken += 1;
        }
        if taken == 0 {
            j += 1; // step j is skipped: its multiplier is 0
            continue;
        }
        let rows = &mut c[below..];
        let h = rows.len();
        let col = |t: usize| &l(j + t)[below..][..h];
        if taken == 4 {
            let terms = col(0).iter().zip(col(1)).zip(col(2)).zip(col(3));
            for (x, (((&a0, &a1), &a2), &a3)) in rows.iter_mut().zip(terms) {
                let mut v = *x;
                v -= a0 * f[0];
                v -= a1 * f[1];
                v -= a2 * f[2];
                v -= a3 * f[3];
                *x = v;
            }
        } else {
            for (t, &ft) in f[..taken].iter().enumerate() {
                for (x, &lv) in rows.iter_mut().zip(col(t)) {
                    *x -= lv * ft;
                }
            }
        }
        if taken < group {
            // Step j + taken is skipped; the rows between it and `below` have had the steps
            // before it, as they should.
            j += taken + 1;
        } else {
            j += group;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    /// The unblocked algorithm as it stood before panels (`?GETF2` over the whole matrix).
    fn getf2<T: Elem>(a: &mut [T], m: usize, n: usize, ipiv: &mut [i32]) -> i32 {
        let mut info = 0;
        factor_panel(a, m, 0, m.min(n), ipiv, &mut info);
        info
    }

    fn matrix(m: usize, n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..m * n)
            .map(|i| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let v = ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0;
                // Some exact zeros, repeated values and columns that tie.
                match i % 17 {
                    3 => 0.0,
                    5 => 0.5,
                    _ => v,
                }
            })
            .collect()
    }

    #[test]
    fn panels_give_the_unblocked_bits() {
        for (m, n) in [
            (1, 1),
            (5, 3),
            (3, 5),
            (64, 64),
            (65, 65),
            (130, 70),
            (70, 200),
            (200, 129),
        ] {
            for parallel in [false, true] {
                let a = matrix(m, n, (m * 1000 + n) as u64);
                let (x, mut y) = (a.clone(), a.clone());
                let k = m.min(n);
                let (mut px, mut py) = (vec![0; k], vec![0; k]);
                let iy = getf2(&mut y, m, n, &mut py);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                for isa in Isa::available() {
                    let mut x = x.clone();
                    let ix = getrf_one_with(isa, &mut x, m, n, &mut px, parallel);
                    assert_eq!((ix, &px), (iy, &py), "{m}x{n} {isa:?}");
                    assert_eq!(bits(&x), bits(&y), "{m}x{n} parallel={parallel} {isa:?}");
                }
                // f32 too (the type the AVX paths widen most).
                let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
                let mut y32 = a32.clone();
                let mut q = vec![0; k];
                let iq = getf2(&mut y32, m, n, &mut q);
                for isa in Isa::available() {
                    let mut x32 = a32.clone();
                    let ix = getrf_one_with(isa, &mut x32, m, n, &mut px, parallel);
                    assert_eq!((ix, &px), (iq, &q), "f32 {m}x{n} {isa:?}");
                    assert_eq!(x32, y32, "f32 {m}x{n} {isa:?}");
                }
            }
        }
    }

    #[test]
    fn a_zero_column_sets_info_and_the_rest_goes_on() {
        let (m, n) = (100, 100);
        let mut a = matrix(m, n, 9);
        for i in 0..m {
            a[70 * m + i] = 0.0;
        }
        let mut b: Vec<Complex64> = a.iter().map(|&x| Complex64::new(x, -x / 2.0)).collect();
        let (mut p, mut q) = (vec![0; m], vec![0; m]);
        let info = getrf_one_with(Isa::detect(), &mut a, m, n, &mut p, true);
        assert!(info > 0 && info <= 71, "info {info}");
        let mut c = b.clone();
        let mut r = vec![0; m];
        assert_eq!(
            getrf_one_with(Isa::detect(), &mut b, m, n, &mut q, true),
            getf2(&mut c, m, n, &mut r)
        );
        assert_eq!((b, q), (c, r));
    }
}
