//! `exponential` on f32: SIMD (AVX-512F / AVX2+FMA) and scalar, evaluated in f64.
//!
//! Algorithm (the same operation sequence on every instruction set, so all give the same bits):
//! clamp x to [−110, 110] (e^−110 rounds to 0 and e^110 overflows in f32, so the clamp changes no
//! result), `k = round(x·log2 e)`, `r = x − k·ln 2` with a two-constant Cody–Waite reduction
//! (|r| ≤ 0.347), `e^r` by its degree-9 Taylor polynomial (relative error < 2^-38 on that range),
//! then `e^r · 2^k` (exact in f64) rounded once to f32. Error: ≤ 0.5 ULP + 2^-14 ULP, including
//! subnormal results (the single f64 → f32 rounding places them on the subnormal grid).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Inputs are clamped to `[-CLAMP, CLAMP]` before the reduction.
pub(crate) const CLAMP: f64 = 110.0;
const LOG2E: f64 = std::f64::consts::LOG2_E;
/// ln 2 split so that `k · LN2_HI` is exact for |k| < 2^11.
const LN2_HI: f64 = 0.693_147_180_559_890_3;
/// ln 2 − LN2_HI, rounded to f64 (so LN2_HI + LN2_LO is ln 2 to about 2^-105).
const LN2_LO: f64 = 5.497_923_018_708_371e-14;
/// `2^52 + 1023`: adding it to a small integer-valued f64 puts `k + 1023` in the low mantissa bits.
const SCALE_MAGIC: f64 = 4_503_599_627_371_519.0;
/// 1/k! for k = 9 down to 0 (Horner order).
const C: [f64; 10] = [
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
    1.0,
    1.0,
];

/// `e^x` with `x` clamped to [−110, 110] first (scalar form of the SIMD cores).
#[inline(always)]
pub(crate) fn core_scalar(x: f64) -> f64 {
    let x = x.clamp(-CLAMP, CLAMP); // NaN inputs never get here (see the kernel driver)
    let k = (x * LOG2E).round_ties_even();
    let r = (-k).mul_add(LN2_HI, x);
    let r = (-k).mul_add(LN2_LO, r);
    let mut p = C[0];
    for &c in &C[1..] {
        p = p.mul_add(r, c);
    }
    let scale = f64::from_bits((k + SCALE_MAGIC).to_bits() << 52);
    p * scale
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
pub(crate) fn core_avx512(x: __m512d) -> __m512d {
    let x = _mm512_min_pd(
        _mm512_max_pd(x, _mm512_set1_pd(-CLAMP)),
        _mm512_set1_pd(CLAMP),
    );
    let k = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
        _mm512_mul_pd(x, _mm512_set1_pd(LOG2E)),
    );
    let r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_HI), x);
    let r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_LO), r);
    let mut p = _mm512_set1_pd(C[0]);
    for &c in &C[1..] {
        p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(c));
    }
    let bits = _mm512_slli_epi64::<52>(_mm512_castpd_si512(_mm512_add_pd(
        k,
        _mm512_set1_pd(SCALE_MAGIC),
    )));
    _mm512_mul_pd(p, _mm512_castsi512_pd(bits))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
pub(crate) fn core_avx2(x: __m256d) -> __m256d {
    let x = _mm256_min_pd(
        _mm256_max_pd(x, _mm256_set1_pd(-CLAMP)),
        _mm256_set1_pd(CLAMP),
    );
    let k = _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm256_mul_pd(
        x,
        _mm256_set1_pd(LOG2E),
    ));
    let r = _mm256_fnmadd_pd(k, _mm256_set1_pd(LN2_HI), x);
    let r = _mm256_fnmadd_pd(k, _mm256_set1_pd(LN2_LO), r);
    let mut p = _mm256_set1_pd(C[0]);
    for &c in &C[1..] {
        p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(c));
    }
    let bits = _mm256_slli_epi64::<52>(_mm256_castpd_si256(_mm256_add_pd(
        k,
        _mm256_set1_pd(SCALE_MAGIC),
    )));
    _mm256_mul_pd(p, _mm256_castsi256_pd(bits))
}

f32_kernel_via_f64!(
    /// `out[i] = e^x[i]` in f32 (≤ 0.5 ULP + 2^-14 ULP). Panics if the slices differ in length.
    exp_f32,
    core_scalar,
    core_avx2,
    core_avx512
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_of_ln2_is_exact_enough() {
        // LN2_HI has its low 11 bits clear, so k·LN2_HI is exact for |k| < 2^11.
        assert_eq!(LN2_HI.to_bits() & 0x7ff, 0);
        assert_eq!(LN2_HI + LN2_LO, std::f64::consts::LN_2);
    }

    #[test]
    fn core_matches_std_exp_closely() {
        let mut x = -100.0f64;
        while x < 100.0 {
            let a = core_scalar(x);
            let b = x.exp();
            assert!(((a - b) / b).abs() < 1e-11, "{x}: {a} vs {b}");
            x += 0.0137;
        }
    }
}
