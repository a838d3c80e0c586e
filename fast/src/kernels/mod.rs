//! Kernels: explicit SIMD kernels for the f32 transcendental functions (AVX-512F, AVX2+FMA, and a
//! scalar fallback that computes the same bits) and the scalar f64 functions of [`libm64`].
//!
//! The f32 kernels evaluate in f64 internally (a polynomial with relative error far below 2^-30)
//! and round once to f32 at the end, so the result is within 0.5 ULP + ε of the exact value, and
//! subnormal results, overflow to ±inf and underflow to 0 come out of the final f64 → f32
//! conversion with a single rounding. No kernel sets flush-to-zero or denormals-are-zero.

/// Generates `$name(isa, x, out)`: an f32 → f32 kernel that widens each lane to f64, applies a core
/// function (`$scalar` per element, `$avx2` on 4 lanes, `$avx512` on 8 lanes — the same operation
/// sequence in each), passes NaN inputs through (quieted) and rounds once back to f32.
///
/// The SIMD loops handle a final partial vector by running the same vector code on a zero-padded
/// copy, so every element goes through the same instructions whatever its position.
macro_rules! f32_kernel_via_f64 {
    ($(#[$doc:meta])* $name:ident, $scalar:ident, $avx2:ident, $avx512:ident) => {
        $(#[$doc])*
        ///
        /// `stream`: write the output with non-temporal stores (for outputs larger than the
        /// caches; the results are the same bits either way).
        pub fn $name(isa: $crate::kernels::Isa, x: &[f32], out: &mut [f32], stream: bool) {
            assert_eq!(x.len(), out.len(), "kernel slices differ in length");
            match isa {
                #[cfg(target_arch = "x86_64")]
                $crate::kernels::Isa::Avx512 => {
                    // SAFETY: `Isa::Avx512` is only chosen when `is_x86_feature_detected!("avx512f")`
                    // holds (see `Isa::detect` / `F32Kernel::run`), so the AVX-512F code may run.
                    unsafe { simd::drive512(x, out, stream) }
                }
                #[cfg(target_arch = "x86_64")]
                $crate::kernels::Isa::Avx2Fma => {
                    // SAFETY: `Isa::Avx2Fma` is only chosen when the CPU has AVX2 and FMA.
                    unsafe { simd::drive256(x, out) }
                }
                _ => {
                    let _ = stream;
                    for (o, &v) in out.iter_mut().zip(x) {
                        let xd = v as f64;
                        let y = if xd.is_nan() { xd + xd } else { $scalar(xd) };
                        *o = y as f32;
                    }
                }
            }
        }

        #[cfg(target_arch = "x86_64")]
        mod simd {
            use std::arch::x86_64::*;

            #[target_feature(enable = "avx512f")]
            fn lanes512(v: __m256) -> __m256 {
                let xd = _mm512_cvtps_pd(v);
                let y = super::$avx512(xd);
                let nan = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(xd, xd);
                _mm512_cvtpd_ps(_mm512_mask_blend_pd(nan, y, _mm512_add_pd(xd, xd)))
            }

            /// Computes `out[i] = f(x[i])` for up to 8 elements through a zero-padded vector.
            #[target_feature(enable = "avx512f")]
            fn partial512(x: &[f32], out: &mut [f32]) {
                let mut buf = [0f32; 8];
                buf[..x.len()].copy_from_slice(x);
                // SAFETY: `buf` holds exactly 8 f32.
                unsafe { _mm256_storeu_ps(buf.as_mut_ptr(), lanes512(_mm256_loadu_ps(buf.as_ptr()))) };
                out.copy_from_slice(&buf[..out.len()]);
            }

            /// # Safety
            /// The CPU must support AVX-512F.
            #[target_feature(enable = "avx512f")]
            pub(super) unsafe fn drive512(x: &[f32], out: &mut [f32], stream: bool) {
                let (x, out) = if stream {
                    // Elements before the first 32-byte boundary of `out` go through the padded
                    // path (the same vector code), so the streaming stores below are aligned.
                    let addr = out.as_ptr() as usize;
                    let head = ((addr.next_multiple_of(32) - addr) / 4).min(out.len());
                    let (xh, xr) = x.split_at(head);
                    let (oh, or) = out.split_at_mut(head);
                    if head > 0 {
                        partial512(xh, oh);
                    }
                    (xr, or)
                } else {
                    (x, out)
                };
                let mut xs = x.chunks_exact(8);
                let mut os = out.chunks_exact_mut(8);
                if stream {
                    for (xi, oi) in (&mut xs).zip(&mut os) {
                        // SAFETY: `xi` and `oi` hold exactly 8 f32 (256 bits); `oi` starts on a
                        // 32-byte boundary (head split above), as `_mm256_stream_ps` requires.
                        unsafe { _mm256_stream_ps(oi.as_mut_ptr(), lanes512(_mm256_loadu_ps(xi.as_ptr()))) };
                    }
                    // Streaming stores are weakly ordered: fence before the data is shared.
                    _mm_sfence();
                } else {
                    for (xi, oi) in (&mut xs).zip(&mut os) {
                        // SAFETY: `xi` and `oi` hold exactly 8 f32 (256 bits); unaligned access is allowed.
                        unsafe { _mm256_storeu_ps(oi.as_mut_ptr(), lanes512(_mm256_loadu_ps(xi.as_ptr()))) };
                    }
                }
                let rest = xs.remainder();
                if !rest.is_empty() {
                    partial512(rest, os.into_remainder());
                }
            }

            #[target_feature(enable = "avx2,fma")]
            fn lanes256(v: __m128) -> __m128 {
                let xd = _mm256_cvtps_pd(v);
                let y = super::$avx2(xd);
                let nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(xd, xd);
                _mm256_cvtpd_ps(_mm256_blendv_pd(y, _mm256_add_pd(xd, xd), nan))
            }

            /// # Safety
            /// The CPU must support AVX2 and FMA.
            #[target_feature(enable = "avx2,fma")]
            pub(super) unsafe fn drive256(x: &[f32], out: &mut [f32]) {
                let mut xs = x.chunks_exact(4);
                let mut os = out.chunks_exact_mut(4);
                for (xi, oi) in (&mut xs).zip(&mut os) {
                    // SAFETY: `xi` and `oi` hold exactly 4 f32 (128 bits); unaligned access is allowed.
                    unsafe { _mm_storeu_ps(oi.as_mut_ptr(), lanes256(_mm_loadu_ps(xi.as_ptr()))) };
                }
                let rest = xs.remainder();
                if !rest.is_empty() {
                    let mut buf = [0f32; 4];
                    buf[..rest.len()].copy_from_slice(rest);
                    // SAFETY: `buf` holds exactly 4 f32.
                    unsafe { _mm_storeu_ps(buf.as_mut_ptr(), lanes256(_mm_loadu_ps(buf.as_ptr()))) };
                    let o = os.into_remainder();
                    o.copy_from_slice(&buf[..o.len()]);
                }
            }
        }
    };
}

pub mod arith;
pub mod exp;
pub mod libm64;
pub mod logistic;
pub mod tanh;

/// The instruction set a kernel runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Plain Rust (the same operation sequence with `f64::mul_add`).
    Scalar,
    /// AVX2 and FMA, 4 f64 lanes.
    Avx2Fma,
    /// AVX-512F, 8 f64 lanes.
    Avx512,
}

impl Isa {
    /// The best instruction set this CPU supports (detected at run time).
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Isa::Avx2Fma;
            }
        }
        Isa::Scalar
    }

    /// Every instruction set usable on this CPU (for tests comparing them).
    pub fn available() -> Vec<Isa> {
        let best = Isa::detect();
        let mut v = vec![Isa::Scalar];
        if matches!(best, Isa::Avx2Fma | Isa::Avx512) {
            v.push(Isa::Avx2Fma);
        }
        if best == Isa::Avx512 {
            v.push(Isa::Avx512);
        }
        v
    }
}

/// An f32 → f32 kernel over slices, for the instruction sets of [`Isa`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F32Kernel {
    Exp,
    Tanh,
    Logistic,
}

impl F32Kernel {
    /// Computes `out[i] = f(x[i])` with the given instruction set (which must be available:
    /// one not supported by this CPU falls back to [`Isa::Scalar`]).
    ///
    /// `stream` writes the output with non-temporal stores (AVX-512 path; for outputs larger than
    /// the caches); the result bits do not depend on it. Panics if the slices differ in length.
    pub fn run(self, isa: Isa, x: &[f32], out: &mut [f32], stream: bool) {
        assert_eq!(x.len(), out.len(), "kernel slices differ in length");
        let isa = if Isa::available().contains(&isa) {
            isa
        } else {
            Isa::Scalar
        };
        match self {
            F32Kernel::Exp => exp::exp_f32(isa, x, out, stream),
            F32Kernel::Tanh => tanh::tanh_f32(isa, x, out, stream),
            F32Kernel::Logistic => logistic::logistic_f32(isa, x, out, stream),
        }
    }
}
