//! General matrix multiplication `C ← C·[accumulate] + A·B` on strided matrices.
//!
//! Floating point (f32, f64, complex of both) goes to the `gemm` crate (sarah-ek/gemm, MIT; the
//! kernels behind `faer`: AVX-512/AVX2+FMA micro-kernels, cache blocking, rayon threads), checked
//! here against [`reference_gemm`] (exact products of f32 in f64, summed in f64) within the
//! `γ(k)·Σ|a·b|` bound of issue 5. Integers use [`int_gemm`]: 64-bit wrapping arithmetic, exact
//! modulo 2^64 and therefore modulo every narrower result width.

use super::elements::Arith;
use conformance_spec::BackendError;
use num_complex::{Complex32, Complex64};
use rayon::prelude::*;

/// A strided read-only matrix inside a slice: element `(i, j)` is
/// `data[offset + i·row_stride + j·col_stride]` (strides in elements, non-negative).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatRef<'s, T> {
    pub(crate) data: &'s [T],
    pub(crate) offset: usize,
    pub(crate) row_stride: usize,
    pub(crate) col_stride: usize,
}

#[cfg(test)]
impl<T: Copy> MatRef<'_, T> {
    #[inline]
    fn at(&self, i: usize, j: usize) -> T {
        self.data[self.offset + i * self.row_stride + j * self.col_stride]
    }
}

/// Element types the `gemm` crate multiplies.
pub(crate) trait GemmScalar:
    Arith + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self>
{
    fn one() -> Self;
}

impl GemmScalar for f32 {
    fn one() -> f32 {
        1.0
    }
}
impl GemmScalar for f64 {
    fn one() -> f64 {
        1.0
    }
}
impl GemmScalar for Complex32 {
    fn one() -> Complex32 {
        Complex32::new(1.0, 0.0)
    }
}
impl GemmScalar for Complex64 {
    fn one() -> Complex64 {
        Complex64::new(1.0, 0.0)
    }
}

/// True when every element of a `rows × cols` matrix at `offset` with the given strides lies in a
/// slice of `len` elements.
fn fits(len: usize, offset: usize, rows: usize, cols: usize, rs: usize, cs: usize) -> bool {
    if rows == 0 || cols == 0 {
        return true;
    }
    (rows - 1)
        .checked_mul(rs)
        .and_then(|a| (cols - 1).checked_mul(cs).and_then(|b| a.checked_add(b)))
        .and_then(|a| a.checked_add(offset))
        .is_some_and(|last| last < len)
}

/// `dst[dst_offset + i·dst_rs + j] (+)= Σ_p lhs(i, p)·rhs(p, j)` for an `m × n` result with `k`
/// terms each (`accumulate`: add to the current contents; otherwise overwrite). `threads`: rayon
/// threads to use (1: sequential). Errors: a matrix reaching outside its slice
/// ([`BackendError::Failure`]: a planning bug, never undefined behaviour).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm<T: GemmScalar>(
    m: usize,
    n: usize,
    k: usize,
    dst: &mut [T],
    dst_offset: usize,
    dst_rs: usize,
    accumulate: bool,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
    threads: usize,
) -> Result<(), BackendError> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    let ok = fits(dst.len(), dst_offset, m, n, dst_rs, 1)
        && fits(
            lhs.data.len(),
            lhs.offset,
            m,
            k,
            lhs.row_stride,
            lhs.col_stride,
        )
        && fits(
            rhs.data.len(),
            rhs.offset,
            k,
            n,
            rhs.row_stride,
            rhs.col_stride,
        )
        && (m == 1 || dst_rs >= n);
    if !ok {
        return Err(BackendError::Failure(format!(
            "gemm {m}x{n}x{k}: a matrix reaches outside its buffer"
        )));
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                dst[dst_offset + i * dst_rs..][..n].fill(T::default());
            }
        }
        return Ok(());
    }
    let parallelism = if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: the three matrices were checked above to lie inside their slices (every index
    // `offset + i·rs + j·cs` for i < rows, j < cols is < len, strides non-negative); `dst` is a
    // unique borrow so it aliases neither operand, and distinct (i, j) map to distinct elements
    // since dst_rs >= n (or m == 1) with column stride 1. `T` is one of f32, f64, c32, c64, the
    // types the crate accepts (it panics on others, which the `GemmScalar` bound rules out).
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr().add(dst_offset),
            1,
            dst_rs as isize,
            accumulate,
            lhs.data.as_ptr().add(lhs.offset),
            lhs.col_stride as isize,
            lhs.row_stride as isize,
            rhs.data.as_ptr().add(rhs.offset),
            rhs.col_stride as isize,
            rhs.row_stride as isize,
            T::one(),
            T::one(),
            false,
            false,
            false,
            parallelism,
        );
    }
    Ok(())
}

#[cfg(test)]
/// The scalar GEMM the tests compare against: `dst[i·n + j] = Σ_p lhs(i, p)·rhs(p, j)`, summed
/// left to right in `T`.
pub(crate) fn reference_gemm<T: GemmScalar>(
    m: usize,
    n: usize,
    k: usize,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
) -> Vec<T> {
    let mut out = vec![T::default(); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = T::default();
            for p in 0..k {
                acc = acc + lhs.at(i, p) * rhs.at(p, j);
            }
            out[i * n + j] = acc;
        }
    }
    out
}

/// Integer GEMM with two's complement wrap-around: `out[i·n + j] = Σ_p lhs[i·k + p]·rhs_t[j·k + p]`
/// (mod 2^64), `lhs` row-major `m × k`, `rhs_t` the right operand transposed (row-major `n × k`),
/// so the inner loop runs over two contiguous rows (vectorized by the compiler). Rows are split
/// across the rayon pool when `parallel`.
pub(crate) fn int_gemm(
    m: usize,
    n: usize,
    k: usize,
    lhs: &[i64],
    rhs_t: &[i64],
    parallel: bool,
) -> Vec<i64> {
    let mut out = vec![0i64; m * n];
    if n == 0 || k == 0 {
        return out;
    }
    let row = |i: usize, o: &mut [i64]| {
        let a = &lhs[i * k..(i + 1) * k];
        for (j, r) in o.iter_mut().enumerate() {
            let b = &rhs_t[j * k..(j + 1) * k];
            *r = a
                .iter()
                .zip(b)
                .fold(0i64, |s, (&x, &y)| s.wrapping_add(x.wrapping_mul(y)));
        }
    };
    if parallel {
        out.par_chunks_mut(n)
            .enumerate()
            .for_each(|(i, o)| row(i, o));
    } else {
        out.chunks_mut(n).enumerate().for_each(|(i, o)| row(i, o));
    }
    out
}
