//! SIMD kernels of the contraction family (x86-64): the f32 sum of [`super::reduce`] on
//! AVX-512F (4 registers of 16 lanes) or AVX2 (8 registers of 8 lanes), chosen at run time.
//! [`sum_f32_scalar`] computes the same bits (same 64 partial sums, same combining tree) and is
//! what the tests compare every path against.

use crate::kernels::Isa;

/// Number of partial sums the f32 sum keeps (4 registers of 16 lanes).
pub(crate) const LANES: usize = 64;

/// Sum of `x` in the fixed order of [`sum_f32_scalar`], with the best instruction set of this CPU
/// ([`Isa::detect`]).
#[cfg(test)]
pub(crate) fn sum_f32(x: &[f32]) -> f32 {
    sum_f32_with(Isa::detect(), x)
}

/// [`sum_f32`] with instruction set `isa` (the same bits on every one).
///
/// Panics if `isa` is not available on this CPU ([`Isa::available`]).
pub(crate) fn sum_f32_with(isa: Isa, x: &[f32]) -> f32 {
    assert!(isa.is_available(), "{isa:?} is not available on this CPU");
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512F is available (asserted above); the kernel reads only `x[..x.len()]`
        // (full 64-element blocks by unaligned loads, the tail by masked loads whose masked-off
        // lanes are not accessed).
        Isa::Avx512 => unsafe { sum_f32_avx512(x) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 is available (asserted above); the kernel reads only `x[..x.len()]`
        // (full 64-element blocks by unaligned loads, the tail by `vmaskmovps` loads, which do
        // not access masked-off lanes).
        Isa::Avx2Fma => unsafe { sum_f32_avx2(x) },
        _ => sum_f32_scalar(x),
    }
}

/// The reference order: partial sum `p[i]` accumulates `x[i], x[i + 64], x[i + 128], ...` left to
/// right (lanes without a tail element keep their value: no `+ 0.0`, which would turn −0 into +0),
/// then `p[i] += p[i + 32]`, `p[i] += p[i + 16]`, ..., `p[0] += p[1]`.
pub(crate) fn sum_f32_scalar(x: &[f32]) -> f32 {
    let mut p = [-0.0f32; LANES];
    let mut chunks = x.chunks_exact(LANES);
    for c in &mut chunks {
        for (a, &v) in p.iter_mut().zip(c) {
            *a += v;
        }
    }
    for (a, &v) in p.iter_mut().zip(chunks.remainder()) {
        *a += v;
    }
    combine(&mut p)
}

fn combine(p: &mut [f32; LANES]) -> f32 {
    let mut half = LANES / 2;
    while half > 0 {
        for i in 0..half {
            p[i] += p[i + half];
        }
        half /= 2;
    }
    p[0]
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn sum_f32_avx512(x: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = x.len();
    let ptr = x.as_ptr();
    let full = n / LANES * LANES;
    let neg0 = _mm512_set1_ps(-0.0);
    let (mut a0, mut a1, mut a2, mut a3) = (neg0, neg0, neg0, neg0);
    let mut i = 0;
    while i < full {
        // SAFETY: i + 64 <= full <= n, so the four 16-lane loads stay inside `x`.
        unsafe {
            a0 = _mm512_add_ps(a0, _mm512_loadu_ps(ptr.add(i)));
            a1 = _mm512_add_ps(a1, _mm512_loadu_ps(ptr.add(i + 16)));
            a2 = _mm512_add_ps(a2, _mm512_loadu_ps(ptr.add(i + 32)));
            a3 = _mm512_add_ps(a3, _mm512_loadu_ps(ptr.add(i + 48)));
        }
        i += LANES;
    }
    let accs = [&mut a0, &mut a1, &mut a2, &mut a3];
    for (r, acc) in accs.into_iter().enumerate() {
        let start = full + r * 16;
        if start >= n {
            break;
        }
        let k = (n - start).min(16);
        let mask: __mmask16 = if k == 16 { u16::MAX } else { (1u16 << k) - 1 };
        // SAFETY: the masked load touches only the `k` lanes from `start`, all < n.
        unsafe {
            let v = _mm512_maskz_loadu_ps(mask, ptr.add(start));
            *acc = _mm512_mask_add_ps(*acc, mask, *acc, v);
        }
    }
    let mut p = [0.0f32; LANES];
    // SAFETY: `p` has 64 elements; four unaligned 16-lane stores cover it exactly.
    unsafe {
        _mm512_storeu_ps(p.as_mut_ptr(), a0);
        _mm512_storeu_ps(p.as_mut_ptr().add(16), a1);
        _mm512_storeu_ps(p.as_mut_ptr().add(32), a2);
        _mm512_storeu_ps(p.as_mut_ptr().add(48), a3);
    }
    combine(&mut p)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sum_f32_avx2(x: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = x.len();
    let ptr = x.as_ptr();
    let full = n / LANES * LANES;
    // Partial sum `p[8r + j]` lives in lane j of register r, as in `sum_f32_scalar`.
    let mut acc = [_mm256_set1_ps(-0.0); 8];
    let mut i = 0;
    while i < full {
        for (r, a) in acc.iter_mut().enumerate() {
            // SAFETY: i + 8r + 8 <= i + 64 <= full <= n: the 8-lane load stays inside `x`.
            unsafe {
                *a = _mm256_add_ps(*a, _mm256_loadu_ps(ptr.add(i + 8 * r)));
            }
        }
        i += LANES;
    }
    for (r, a) in acc.iter_mut().enumerate() {
        let start = full + r * 8;
        if start >= n {
            break;
        }
        let k = (n - start).min(8) as i32;
        // Lane j takes part when j < k (all ones), else it keeps its partial sum unchanged (no
        // `+ 0.0`, which would turn -0 into +0).
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(k), lanes);
        // SAFETY: the masked load reads only the lanes j < k from `start`, all < n.
        unsafe {
            let v = _mm256_maskload_ps(ptr.add(start), mask);
            let sum = _mm256_add_ps(*a, v);
            *a = _mm256_blendv_ps(*a, sum, _mm256_castsi256_ps(mask));
        }
    }
    let mut p = [0.0f32; LANES];
    for (r, a) in acc.iter().enumerate() {
        // SAFETY: `p` has 64 elements; register r fills `p[8r..8r + 8]`.
        unsafe { _mm256_storeu_ps(p.as_mut_ptr().add(8 * r), *a) };
    }
    combine(&mut p)
}
