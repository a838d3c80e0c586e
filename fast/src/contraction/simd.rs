//! SIMD kernels of the contraction family (AVX-512F on x86-64): the f32 sum of [`super::reduce`] on AVX-512F.
//! [`sum_f32_scalar`] computes the same bits (same 64 partial sums, same combining tree) and is
//! what the tests compare against.

/// Number of partial sums the f32 sum keeps (4 registers of 16 lanes).
pub(crate) const LANES: usize = 64;

/// Sum of `x` in the fixed order of [`sum_f32_scalar`], on AVX-512F when the CPU has it.
pub(crate) fn sum_f32(x: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F is available (checked above); the kernel reads only `x[..x.len()]`
        // (full 64-element blocks by unaligned loads, the tail by masked loads whose masked-off
        // lanes are not accessed).
        return unsafe { sum_f32_avx512(x) };
    }
    sum_f32_scalar(x)
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
