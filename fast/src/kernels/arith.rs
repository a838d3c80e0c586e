//! f32 add/subtract/multiply/divide over large slices with non-temporal (streaming) stores.
//!
//! For outputs much larger than the caches, ordinary stores first read every output line
//! (read-for-ownership), adding a third of the traffic of a binary operation; streaming stores
//! write lines without reading them. The arithmetic is the IEEE operation of every instruction
//! set, so the result bits are those of the scalar loop (checked in `tests/simd_kernels.rs`).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::Isa;

/// A basic f32 arithmetic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Subtract,
    Multiply,
    Divide,
}

impl Arith {
    #[inline(always)]
    fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            Arith::Add => a + b,
            Arith::Subtract => a - b,
            Arith::Multiply => a * b,
            Arith::Divide => a / b,
        }
    }
}

/// `out[i] = a[i] op b[i]`, with streaming stores on AVX-512F / AVX2 (the scalar loop otherwise).
///
/// Panics if the slices differ in length.
pub fn stream_f32(op: Arith, isa: Isa, a: &[f32], b: &[f32], out: &mut [f32]) {
    assert!(
        a.len() == out.len() && b.len() == out.len(),
        "kernel slices differ in length"
    );
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if Isa::Avx512.is_available() => {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { stream512(op, a, b, out) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2Fma if Isa::Avx2Fma.is_available() => {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { stream256(op, a, b, out) }
        }
        _ => scalar(op, a, b, out),
    }
}

fn scalar(op: Arith, a: &[f32], b: &[f32], out: &mut [f32]) {
    match op {
        Arith::Add => out
            .iter_mut()
            .zip(a.iter().zip(b))
            .for_each(|(o, (x, y))| *o = x + y),
        Arith::Subtract => out
            .iter_mut()
            .zip(a.iter().zip(b))
            .for_each(|(o, (x, y))| *o = x - y),
        Arith::Multiply => out
            .iter_mut()
            .zip(a.iter().zip(b))
            .for_each(|(o, (x, y))| *o = x * y),
        Arith::Divide => out
            .iter_mut()
            .zip(a.iter().zip(b))
            .for_each(|(o, (x, y))| *o = x / y),
    }
}

/// Splits `out` into a head (up to the first `align`-byte boundary), an aligned middle of whole
/// vectors of `lanes` f32, and a tail.
fn split_aligned(out: &[f32], align: usize, lanes: usize) -> (usize, usize) {
    let addr = out.as_ptr() as usize;
    let head = ((addr.next_multiple_of(align) - addr) / 4).min(out.len());
    let body = (out.len() - head) / lanes * lanes;
    (head, body)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn stream512(op: Arith, a: &[f32], b: &[f32], out: &mut [f32]) {
    let (head, body) = split_aligned(out, 64, 16);
    for i in 0..head {
        out[i] = op.apply(a[i], b[i]);
    }
    let mut i = head;
    while i < head + body {
        // SAFETY: i + 16 ≤ len for all three slices (`body` counts whole vectors), the loads are
        // unaligned loads, and `out[i..]` is 64-byte aligned as `_mm512_stream_ps` requires.
        unsafe {
            let x = _mm512_loadu_ps(a.as_ptr().add(i));
            let y = _mm512_loadu_ps(b.as_ptr().add(i));
            let r = match op {
                Arith::Add => _mm512_add_ps(x, y),
                Arith::Subtract => _mm512_sub_ps(x, y),
                Arith::Multiply => _mm512_mul_ps(x, y),
                Arith::Divide => _mm512_div_ps(x, y),
            };
            _mm512_stream_ps(out.as_mut_ptr().add(i), r);
        }
        i += 16;
    }
    for j in head + body..out.len() {
        out[j] = op.apply(a[j], b[j]);
    }
    // Streaming stores are weakly ordered: fence before the buffer is handed to other threads.
    _mm_sfence();
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stream256(op: Arith, a: &[f32], b: &[f32], out: &mut [f32]) {
    let (head, body) = split_aligned(out, 32, 8);
    for i in 0..head {
        out[i] = op.apply(a[i], b[i]);
    }
    let mut i = head;
    while i < head + body {
        // SAFETY: i + 8 ≤ len for all three slices, unaligned loads, and `out[i..]` is 32-byte
        // aligned as `_mm256_stream_ps` requires.
        unsafe {
            let x = _mm256_loadu_ps(a.as_ptr().add(i));
            let y = _mm256_loadu_ps(b.as_ptr().add(i));
            let r = match op {
                Arith::Add => _mm256_add_ps(x, y),
                Arith::Subtract => _mm256_sub_ps(x, y),
                Arith::Multiply => _mm256_mul_ps(x, y),
                Arith::Divide => _mm256_div_ps(x, y),
            };
            _mm256_stream_ps(out.as_mut_ptr().add(i), r);
        }
        i += 8;
    }
    for j in head + body..out.len() {
        out[j] = op.apply(a[j], b[j]);
    }
    _mm_sfence();
}
