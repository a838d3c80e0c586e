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
//! first such `j`. Then the trailing matrix gets the rank-one update. Blocked LAPACK performs the
//! same operations in another order, so values may differ in the last bits.

use super::{Elem, Geometry, Real};
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
    let run =
        |((mat, piv), info): ((&mut [T], &mut [i32]), &mut i32)| *info = getrf_one(mat, m, n, piv);
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

/// One column-major `m × n` matrix in place; `ipiv` receives `min(m, n)` 1-based pivots; returns
/// `info`.
pub fn getrf_one<T: Elem>(a: &mut [T], m: usize, n: usize, ipiv: &mut [i32]) -> i32 {
    let zero = T::zero_value();
    let one = T::lift(T::R::ONE);
    let mut info = 0i32;
    for j in 0..m.min(n) {
        let col = j * m;
        // I?AMAX over rows j..m of column j.
        let mut p = j;
        let mut best = a[col + j].cabs1();
        for i in j + 1..m {
            let v = a[col + i].cabs1();
            if v > best {
                best = v;
                p = i;
            }
        }
        ipiv[j] = (p + 1) as i32;
        let pivot = a[col + p];
        if pivot != zero {
            if p != j {
                for c in 0..n {
                    a.swap(c * m + j, c * m + p);
                }
            }
            if pivot.modulus() >= T::R::SAFE_MIN {
                let r = one / pivot;
                for v in &mut a[col + j + 1..col + m] {
                    *v *= r;
                }
            } else {
                for v in &mut a[col + j + 1..col + m] {
                    *v /= pivot;
                }
            }
        } else if info == 0 {
            info = (j + 1) as i32;
        }
        // Rank-one update of the trailing matrix, column by column.
        let (left, right) = a.split_at_mut((j + 1) * m);
        let l = &left[col + j + 1..col + m];
        for c in right.chunks_mut(m) {
            let f = c[j];
            if f != zero {
                for (x, &lv) in c[j + 1..].iter_mut().zip(l) {
                    *x -= lv * f;
                }
            }
        }
    }
    info
}
