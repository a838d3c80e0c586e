//! SIMD kernels for data movement (x86-64): the 32 × 32 tile transpose of 4-byte elements used by
//! [`super::transpose::tile_2d`], as 16 in-register 8 × 8 transposes (AVX). The scalar kernel
//! [`super::transpose::tile_scalar`] computes the same bytes and is what the tests compare against.

use super::transpose::TILE;

/// Transposes one full tile of 4-byte elements: `dst[o + i + a * d_a] = src[s + i * s_i + a]` for
/// `i, a in 0..32` (offsets in elements). Returns false (doing nothing) when AVX is unavailable or
/// the tile does not lie inside both buffers; the caller then runs the scalar kernel.
pub(crate) fn transpose_tile_f32(
    src: &[u8],
    s: usize,
    s_i: usize,
    dst: &mut [u8],
    o: usize,
    d_a: usize,
) -> bool {
    let t = TILE - 1;
    let src_last = s + t * s_i + t;
    let dst_last = o + t + t * d_a;
    if (src_last + 1) * 4 > src.len() || (dst_last + 1) * 4 > dst.len() {
        return false;
    }
    if !std::arch::is_x86_feature_detected!("avx") {
        return false;
    }
    // SAFETY: AVX is available (checked above), and every element read or written lies inside the
    // buffers: the largest source offset is `s + 31 * s_i + 31` and the largest destination offset
    // `o + 31 + 31 * d_a`, both checked against the buffer lengths (in 4-byte elements) above.
    unsafe { tile_avx(src.as_ptr(), s, s_i, dst.as_mut_ptr(), o, d_a) };
    true
}

#[target_feature(enable = "avx")]
unsafe fn tile_avx(src: *const u8, s: usize, s_i: usize, dst: *mut u8, o: usize, d_a: usize) {
    use std::arch::x86_64::*;
    let src = src as *const f32;
    let dst = dst as *mut f32;
    // Destination rows outermost: each group of 8 destination rows is written as whole lines.
    for ib in (0..TILE).step_by(8) {
        for ab in (0..TILE).step_by(8) {
            // SAFETY (whole block): offsets stay within the tile checked by the caller; unaligned
            // loads and stores are used throughout.
            unsafe {
                let p = src.add(s + ib * s_i + ab);
                let r0 = _mm256_loadu_ps(p);
                let r1 = _mm256_loadu_ps(p.add(s_i));
                let r2 = _mm256_loadu_ps(p.add(2 * s_i));
                let r3 = _mm256_loadu_ps(p.add(3 * s_i));
                let r4 = _mm256_loadu_ps(p.add(4 * s_i));
                let r5 = _mm256_loadu_ps(p.add(5 * s_i));
                let r6 = _mm256_loadu_ps(p.add(6 * s_i));
                let r7 = _mm256_loadu_ps(p.add(7 * s_i));
                let t0 = _mm256_unpacklo_ps(r0, r1);
                let t1 = _mm256_unpackhi_ps(r0, r1);
                let t2 = _mm256_unpacklo_ps(r2, r3);
                let t3 = _mm256_unpackhi_ps(r2, r3);
                let t4 = _mm256_unpacklo_ps(r4, r5);
                let t5 = _mm256_unpackhi_ps(r4, r5);
                let t6 = _mm256_unpacklo_ps(r6, r7);
                let t7 = _mm256_unpackhi_ps(r6, r7);
                let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
                let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
                let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
                let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
                let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
                let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
                let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
                let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
                let q = dst.add(o + ib + ab * d_a);
                _mm256_storeu_ps(q, _mm256_permute2f128_ps::<0x20>(u0, u4));
                _mm256_storeu_ps(q.add(d_a), _mm256_permute2f128_ps::<0x20>(u1, u5));
                _mm256_storeu_ps(q.add(2 * d_a), _mm256_permute2f128_ps::<0x20>(u2, u6));
                _mm256_storeu_ps(q.add(3 * d_a), _mm256_permute2f128_ps::<0x20>(u3, u7));
                _mm256_storeu_ps(q.add(4 * d_a), _mm256_permute2f128_ps::<0x31>(u0, u4));
                _mm256_storeu_ps(q.add(5 * d_a), _mm256_permute2f128_ps::<0x31>(u1, u5));
                _mm256_storeu_ps(q.add(6 * d_a), _mm256_permute2f128_ps::<0x31>(u2, u6));
                _mm256_storeu_ps(q.add(7 * d_a), _mm256_permute2f128_ps::<0x31>(u3, u7));
            }
        }
    }
}
