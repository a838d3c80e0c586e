//! Threefry-2x32-20 (Salmon et al. SC 2011, "Parallel random numbers: as easy as 1, 2, 3") for
//! `rng-bit-generator` with `rng_three_fry`, in XLA's counter layout (docs/random.md): a
//! scalar kernel and an AVX2 kernel of eight counters at a time, chosen at run time, that give
//! the same bits (tests compare them on every lane position and across a 2³² counter carry).
//! The rotation constants are the paper's unless a planted-bug test sets others
//! ([`crate::Fast::with_threefry_rotations`]).

use super::{narrow, BLOCK};
use crate::parallel::Exec;
use rayon::prelude::*;

/// Rotations per round (the paper's R_{2×32}), four rounds with the first half, four with the
/// second, alternating.
pub const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
/// The key schedule's parity word.
const PARITY: u32 = 0x1BD1_1BDA;

/// The key schedule of a 64-bit key: its two words and their parity.
fn key_schedule(key: u64) -> [u32; 3] {
    let (k0, k1) = (key as u32, (key >> 32) as u32);
    [k0, k1, PARITY ^ k0 ^ k1]
}

/// One block: the two output words of counter `c` (low word first in x0).
#[inline(always)]
fn block(ks: &[u32; 3], c: u64, rot: &[u32; 8]) -> [u32; 2] {
    let (mut x0, mut x1) = (
        (c as u32).wrapping_add(ks[0]),
        ((c >> 32) as u32).wrapping_add(ks[1]),
    );
    for i in 1..=5u32 {
        let r = if i % 2 == 1 { &rot[..4] } else { &rot[4..] };
        for &d in r {
            x0 = x0.wrapping_add(x1);
            x1 = x1.rotate_left(d) ^ x0;
        }
        // Key injection i: words i mod 3 and (i + 1) mod 3 of the schedule, plus i.
        x0 = x0.wrapping_add(ks[i as usize % 3]);
        x1 = x1.wrapping_add(ks[(i as usize + 1) % 3]).wrapping_add(i);
    }
    [x0, x1]
}

/// The words of counters `counter, counter + 1, ...` (mod 2⁶⁴): word 0 of counter `k` in
/// `first[k]`, word 1 in `second[k]` (`second` may be shorter: its missing words are not
/// written). The scalar kernel.
fn words_scalar(
    ks: &[u32; 3],
    rot: &[u32; 8],
    counter: u64,
    first: &mut [u32],
    second: &mut [u32],
) {
    for (k, x0) in first.iter_mut().enumerate() {
        let w = block(ks, counter.wrapping_add(k as u64), rot);
        *x0 = w[0];
        if let Some(x1) = second.get_mut(k) {
            *x1 = w[1];
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`super::words_scalar`] eight counters at a time (the tail by the scalar kernel).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn words(
        ks: &[u32; 3],
        rot: &[u32; 8],
        counter: u64,
        first: &mut [u32],
        second: &mut [u32],
    ) {
        let n = first.len();
        let full = n / 8 * 8;
        let k = [
            _mm256_set1_epi32(ks[0] as i32),
            _mm256_set1_epi32(ks[1] as i32),
            _mm256_set1_epi32(ks[2] as i32),
        ];
        let counts: [(__m128i, __m128i); 8] = std::array::from_fn(|j| {
            (
                _mm_cvtsi32_si128(rot[j] as i32),
                _mm_cvtsi32_si128(32 - rot[j] as i32),
            )
        });
        let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let (mut lo, mut hi) = ([0u32; 8], [0u32; 8]);
        let mut out1 = [0u32; 8];
        for base in (0..full).step_by(8) {
            let c = counter.wrapping_add(base as u64);
            let (c_lo, c_hi) = (c as u32, (c >> 32) as u32);
            let (v_lo, v_hi) = if c_lo <= u32::MAX - 7 {
                // No carry into the high word within these eight counters.
                (
                    _mm256_add_epi32(_mm256_set1_epi32(c_lo as i32), iota),
                    _mm256_set1_epi32(c_hi as i32),
                )
            } else {
                for j in 0..8 {
                    let cj = c.wrapping_add(j as u64);
                    lo[j] = cj as u32;
                    hi[j] = (cj >> 32) as u32;
                }
                // SAFETY: `lo` and `hi` hold 8 u32 (32 bytes) each; unaligned loads.
                (
                    _mm256_loadu_si256(lo.as_ptr().cast()),
                    _mm256_loadu_si256(hi.as_ptr().cast()),
                )
            };
            let mut x0 = _mm256_add_epi32(v_lo, k[0]);
            let mut x1 = _mm256_add_epi32(v_hi, k[1]);
            for i in 1..=5usize {
                let half = if i % 2 == 1 { 0 } else { 4 };
                for &(l, r) in &counts[half..half + 4] {
                    x0 = _mm256_add_epi32(x0, x1);
                    let rotated = _mm256_or_si256(_mm256_sll_epi32(x1, l), _mm256_srl_epi32(x1, r));
                    x1 = _mm256_xor_si256(rotated, x0);
                }
                x0 = _mm256_add_epi32(x0, k[i % 3]);
                x1 = _mm256_add_epi32(
                    _mm256_add_epi32(x1, k[(i + 1) % 3]),
                    _mm256_set1_epi32(i as i32),
                );
            }
            // SAFETY: `base + 8 <= full <= first.len()`, so the 32 bytes stored are inside
            // `first`; an unaligned store.
            _mm256_storeu_si256(first.as_mut_ptr().add(base).cast(), x0);
            if second.len() >= base + 8 {
                // SAFETY: as above, `base + 8 <= second.len()`.
                _mm256_storeu_si256(second.as_mut_ptr().add(base).cast(), x1);
            } else if second.len() > base {
                // SAFETY: `out1` holds 8 u32 (32 bytes); an unaligned store.
                _mm256_storeu_si256(out1.as_mut_ptr().cast(), x1);
                let end = second.len();
                second[base..end].copy_from_slice(&out1[..end - base]);
            }
        }
        let rest: &mut [u32] = second.get_mut(full..).unwrap_or(&mut []);
        super::words_scalar(
            ks,
            rot,
            counter.wrapping_add(full as u64),
            &mut first[full..],
            rest,
        );
    }
}

/// True when the AVX2 kernel runs on this CPU.
pub(crate) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`words_scalar`] through the fastest kernel this CPU has (`simd`: use AVX2 when present).
fn words(
    ks: &[u32; 3],
    rot: &[u32; 8],
    counter: u64,
    first: &mut [u32],
    second: &mut [u32],
    simd: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if simd && has_avx2() {
        // SAFETY: AVX2 is present (checked above).
        unsafe { avx2::words(ks, rot, counter, first, second) };
        return;
    }
    let _ = simd;
    words_scalar(ks, rot, counter, first, second);
}

/// Threefry data of `dims`, `width` bits per element, as row-major bytes, and the number of
/// counters used (docs/random.md: 64-bit elements take both words of one counter, low first;
/// narrower elements split a dimension in two halves, the first filled with word 0 and the
/// second with word 1 of the same counters).
pub(super) fn data(key: u64, counter: u64, dims: &[i64], width: u32, exec: Exec) -> (u64, Vec<u8>) {
    let rot = exec.threefry_rotations;
    let simd = exec.isa >= crate::kernels::Isa::Avx2Fma;
    if rot == ROTATIONS {
        fill(key, counter, dims, width, exec, &ROTATIONS, simd)
    } else {
        fill(key, counter, dims, width, exec, &rot, simd)
    }
}

/// 32-bit words written in place into the byte buffer the literal takes over (no copy), or
/// into a word buffer copied out once when the allocator gives the bytes no 4-byte alignment.
enum WordBytes {
    Bytes(Vec<u8>),
    Words(Vec<u32>),
}

impl WordBytes {
    fn new(words: usize) -> WordBytes {
        let bytes = vec![0u8; 4 * words];
        if bytemuck::try_cast_slice::<u8, u32>(&bytes).is_ok() {
            WordBytes::Bytes(bytes)
        } else {
            WordBytes::Words(vec![0u32; words])
        }
    }

    fn words(&mut self) -> &mut [u32] {
        match self {
            // Alignment and length were checked in `new`; a failure here cannot happen and
            // would leave the words empty rather than panic.
            WordBytes::Bytes(b) => bytemuck::try_cast_slice_mut(b).unwrap_or_default(),
            WordBytes::Words(w) => w,
        }
    }

    fn into_bytes(self) -> Vec<u8> {
        match self {
            WordBytes::Bytes(b) => b,
            WordBytes::Words(w) => bytemuck::cast_slice(&w).to_vec(),
        }
    }
}

/// [`data`] with rotations `rot`, through the scalar kernel only when `simd` is false (tests).
#[inline(always)]
fn fill(
    key: u64,
    counter: u64,
    dims: &[i64],
    width: u32,
    exec: Exec,
    rot: &[u32; 8],
    simd: bool,
) -> (u64, Vec<u8>) {
    let ks = key_schedule(key);
    let n: usize = dims.iter().product::<i64>() as usize;
    if width == 64 {
        let mut bytes = WordBytes::new(2 * n);
        let out = bytes.words();
        let fill = |(b, chunk): (usize, &mut [u32])| {
            let m = chunk.len() / 2;
            let (mut w0, mut w1) = (vec![0u32; m], vec![0u32; m]);
            words(
                &ks,
                rot,
                counter.wrapping_add((b * BLOCK) as u64),
                &mut w0,
                &mut w1,
                simd,
            );
            for (pair, (a, b)) in chunk.chunks_exact_mut(2).zip(w0.iter().zip(&w1)) {
                pair[0] = *a;
                pair[1] = *b;
            }
        };
        if exec.parallel(n) {
            out.par_chunks_mut(2 * BLOCK).enumerate().for_each(fill);
        } else {
            out.chunks_mut(2 * BLOCK).enumerate().for_each(fill);
        }
        return (n as u64, bytes.into_bytes());
    }
    // The split dimension; a scalar is one element of a dimension of 1.
    let dims: Vec<i64> = if dims.is_empty() {
        vec![1]
    } else {
        dims.to_vec()
    };
    let split = match dims.iter().position(|d| d % 2 == 0) {
        Some(s) => s,
        None => (0..dims.len()).fold(0, |b, i| if dims[i] > dims[b] { i } else { b }),
    };
    let d = dims[split] as usize;
    let h = d.div_ceil(2);
    let inner: usize = dims[split + 1..].iter().product::<i64>() as usize;
    let outer: usize = dims[..split].iter().product::<i64>() as usize;
    let used = (outer * h * inner) as u64;
    let mut bytes = WordBytes::new(n);
    let out = bytes.words();
    if n > 0 {
        // Counters (o·h + hs)·inner + r fill rows 2·hs (word 0) and 2·hs + 1 (word 1) of the
        // split dimension in slab o. A task takes `pairs` consecutive row pairs of one slab
        // (about BLOCK counters), so the work splits even when there is a single slab.
        let pairs = (BLOCK / inner.max(1)).max(1);
        let fill = |o: usize, g: usize, rows: &mut [u32]| {
            if inner == 1 {
                // Rows of one element: words 0 and 1 of a counter are neighbours. Computed
                // as runs of consecutive counters, then interleaved.
                let base = (o * h + g * pairs) as u64;
                let (mut w0, mut w1) = (
                    vec![0u32; rows.len().div_ceil(2)],
                    vec![0u32; rows.len() / 2],
                );
                words(&ks, rot, counter.wrapping_add(base), &mut w0, &mut w1, simd);
                for (k, x) in rows.iter_mut().enumerate() {
                    *x = if k % 2 == 0 { w0[k / 2] } else { w1[k / 2] };
                }
                return;
            }
            for (k, pair) in rows.chunks_mut(2 * inner).enumerate() {
                let hs = g * pairs + k;
                let base = ((o * h + hs) * inner) as u64;
                let (first, second) = pair.split_at_mut(inner.min(pair.len()));
                words(&ks, rot, counter.wrapping_add(base), first, second, simd);
            }
        };
        if exec.parallel(n) {
            out.par_chunks_mut(d * inner)
                .enumerate()
                .for_each(|(o, slab)| {
                    slab.par_chunks_mut(2 * inner * pairs)
                        .enumerate()
                        .for_each(|(g, rows)| fill(o, g, rows))
                });
        } else {
            for (o, slab) in out.chunks_mut(d * inner).enumerate() {
                for (g, rows) in slab.chunks_mut(2 * inner * pairs).enumerate() {
                    fill(o, g, rows);
                }
            }
        }
    }
    let bytes = if width == 32 {
        bytes.into_bytes()
    } else {
        narrow(bytes.words(), width, exec)
    };
    (used, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's known-answer vectors for threefry2x32_20 (Salmon et al.'s kat_vectors).
    #[test]
    fn known_answers() {
        let ks = key_schedule(0);
        assert_eq!(block(&ks, 0, &ROTATIONS), [0x6b20_0159, 0x99ba_4efe]);
        let key = 0x0370_7344_1319_8a2e_u64;
        let ctr = 0x85a3_08d3_243f_6a88_u64;
        assert_eq!(
            block(&key_schedule(key), ctr, &ROTATIONS),
            [0xc492_3a9c, 0x483d_f7a0]
        );
    }

    /// The AVX2 kernel gives the scalar kernel's bits: every length to 40 (all tails), a
    /// `second` shorter than `first`, counters that carry into the high word, another key.
    #[test]
    fn avx2_kernel_matches_the_scalar_kernel() {
        if !has_avx2() {
            eprintln!("no AVX2 on this CPU: only the scalar kernel runs");
            return;
        }
        for (key, counter) in [
            (0u64, 0u64),
            (0x0123_4567_89ab_cdef, 0xffff_fffc),
            (u64::MAX, u64::MAX - 5),
        ] {
            let ks = key_schedule(key);
            for n in 0..40usize {
                for short in [0, 1, 3, 9, n] {
                    let m = n.saturating_sub(short);
                    let (mut a0, mut a1) = (vec![0u32; n], vec![0u32; m]);
                    let (mut b0, mut b1) = (vec![0u32; n], vec![0u32; m]);
                    words_scalar(&ks, &ROTATIONS, counter, &mut a0, &mut a1);
                    words(&ks, &ROTATIONS, counter, &mut b0, &mut b1, true);
                    assert_eq!(
                        (a0, a1),
                        (b0, b1),
                        "key {key:#x} counter {counter:#x} n {n}"
                    );
                }
            }
        }
    }

    /// The data of whole arrays agree between the kernels (both element widths, an odd split
    /// dimension), and other rotations give other bits.
    #[test]
    fn data_is_the_same_through_either_kernel() {
        let exec = Exec::new(usize::MAX);
        for (dims, width) in [
            (vec![5i64, 7], 32u32),
            (vec![20001], 32),
            (vec![3, 9], 32),
            (vec![3, 8, 2], 16),
            (vec![9], 64),
            (vec![], 8),
        ] {
            let a = fill(7, 3, &dims, width, exec, &ROTATIONS, false);
            let b = fill(7, 3, &dims, width, exec, &ROTATIONS, true);
            assert_eq!(a, b, "{dims:?} {width}");
            let mut other = ROTATIONS;
            other[2] = 25;
            let c = fill(7, 3, &dims, width, exec, &other, true);
            assert_eq!(a.0, c.0);
            assert_ne!(a.1, c.1, "{dims:?} {width}");
        }
    }
}
