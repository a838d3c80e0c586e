//! `logistic` (`1 / (1 + e^−x)`) on f32: SIMD (AVX-512F / AVX2+FMA) and scalar, evaluated in f64.
//!
//! `e^−x` comes from the exponential core of [`super::exp`] (with −x clamped to [−110, 110]:
//! logistic(−110) ≈ 1.7e−48 rounds to 0 in f32 and logistic(110) to 1, as the exact values do);
//! one addition and one division in f64 follow, then a single rounding to f32. The relative error
//! before that rounding is below 2^-36, so the result is within 0.5 ULP + 2^-12 ULP, subnormal
//! results (x below about −87.3) included.

use super::exp;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

#[inline(always)]
pub(crate) fn core_scalar(x: f64) -> f64 {
    1.0 / (1.0 + exp::core_scalar(-x))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) fn core_avx512(x: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let e = exp::core_avx512(_mm512_sub_pd(_mm512_setzero_pd(), x));
    _mm512_div_pd(one, _mm512_add_pd(one, e))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn core_avx2(x: __m256d) -> __m256d {
    let one = _mm256_set1_pd(1.0);
    let e = exp::core_avx2(_mm256_sub_pd(_mm256_setzero_pd(), x));
    _mm256_div_pd(one, _mm256_add_pd(one, e))
}

f32_kernel_via_f64!(
    /// `out[i] = 1 / (1 + e^−x[i])` in f32 (≤ 0.5 ULP + 2^-12 ULP). Panics if the slices differ in
    /// length.
    logistic_f32,
    core_scalar,
    core_avx2,
    core_avx512
);
