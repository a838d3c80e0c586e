//! `exponential` on f32, evaluated in f32 on 16 lanes (AVX-512F), 8 lanes (AVX2+FMA) or one
//! (scalar), with the same operation sequence everywhere (written once over `Lanes`).
//!
//! Algorithm. `x` is clamped to [−104, 89] (e^−104 < 2^-150 rounds to +0 and e^89 overflows, so the
//! clamp changes no result). Reduction with an 8-entry table: `x = (8m + j) · ln2/8 + r` with
//! `k = 8m + j = round(x · 8/ln2)` (a magic-number rounding to a multiple of 1/8 that yields `k/8`
//! and whose bits hold `j = k mod 8`) and `r = x − (k/8)·ln2` by Cody–Waite with a two-part ln2
//! (the first FMA is exact), |r| ≤ 0.0434. Then `e^x = 2^m · 2^(j/8) · e^r` with
//! `2^(j/8) = T_HI[j] + T_LO[j]` (two f32, ~2^-48 relative) looked up by a lane permutation,
//! `p = e^r − 1 = r + r²·(1/2 + c3·r + c4·r²)` (minimax, error < 2^-32 on the interval),
//! `y = T_HI + (T_HI·p + T_LO)` (rounded in the final addition; y in [0.95, 1.92]) and
//! `e^x = y · 2^m` by `vscalefps` (on the other paths, an exact product by 2^⌊m/2⌋ then one
//! rounding product by the rest): overflow to +inf and results in the subnormal range come out of
//! that last rounding.
//!
//! Error: normal results are within 0.5 ULP (the final addition) + 0.1 ULP (table, rounding of
//! r, of p and of `T_HI·p + T_LO`, polynomial); subnormal results round twice (y to 24 bits, then
//! to the subnormal grid), the first time by at most 1/4 of the subnormal spacing, so they stay
//! within 0.75 ULP + 0.07 ULP. The exhaustive scan over all 2^32 inputs
//! (`examples/scan_f32_kernels.rs`) measured 0.5921 ULP over normal results and 0.7636 ULP in all
//! (at −87.80, a subnormal result), every result within 1 ULP of the correctly rounded one and the
//! overflow (from x = 88.72284 on) and underflow-to-zero thresholds exact. NaN in → NaN out
//! (quieted), +inf → +inf, −inf → +0.

use super::lanes::{self, Kernel, Lanes};
use super::Isa;

/// Inputs are clamped to `[CLAMP_LO, CLAMP_HI]` (no result changes: see the module docs).
const CLAMP_LO: f32 = -104.0;
const CLAMP_HI: f32 = 89.0;
/// 1/ln 2 rounded to f32 (only the choice of k depends on it).
const INV_LN2: f32 = std::f32::consts::LOG2_E;
/// ln 2 rounded to f32, and the rest: `(k/8)·LN2_HI` is exact inside the first FMA and
/// `x − (k/8)·LN2_HI` is representable, so only the second step rounds.
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_2e-9;
/// 1.5 · 2^20: `x·(1/ln2) + MAGIC` rounds to a multiple of 1/8, `k/8`, and the low bits of the
/// sum's encoding are those of the integer `k` (two's complement), for |k| < 2^22.
const MAGIC: f32 = 1_572_864.0;
/// 2^(j/8) rounded to f32, and the remainder rounded to f32, for j = 0..8.
const T_HI: [f32; 8] = [
    1.0,
    1.090_507_7,
    1.189_207_1,
    1.296_839_6,
    std::f32::consts::SQRT_2,
    1.542_210_8,
    1.681_792_9,
    1.834_008_1,
];
const T_LO: [f32; 8] = [
    0.0,
    -1.307_754e-8,
    3.797_635_3e-8,
    -4.018_999_5e-8,
    2.420_323_5e-8,
    8.070_905e-9,
    -2.475_532_7e-8,
    -1.123_927_8e-8,
];
/// `(e^r − 1 − r)/r² ≈ 1/2 + C3·r + C4·r²` on |r| ≤ ln2/16 (weighted minimax: the error of
/// `r + r²·(…)` is below 2^-32).
const C3: f32 = 0.166_680_26;
const C4: f32 = 0.041_670_63;

/// The reduction and polynomial shared by exp, tanh and logistic, for `x` in [−104, 89]:
/// returns `(t, z, mf)` with `e^x ≈ (t + z) · 2^⌊mf⌋`, where `t = 2^(j/8)` rounded to f32 (in
/// [1, 1.84]), `|z| < 0.09` carries the rest (relative error of `t + z` below 2^-27), and `mf`
/// is `k/8` (so ⌊mf⌋ = m in [−150, 128]).
#[inline(always)]
pub(crate) fn reduce<V: Lanes>(x: V) -> (V, V, V) {
    let kf = x.mul_add(V::splat(INV_LN2), V::splat(MAGIC));
    let mf = kf.sub(V::splat(MAGIC));
    let r = mf.neg_mul_add(V::splat(LN2_HI), x);
    let r = mf.neg_mul_add(V::splat(LN2_LO), r);
    let t_hi = kf.lookup8(&T_HI);
    let t_lo = kf.lookup8(&T_LO);
    let q = r
        .mul_add(V::splat(C4), V::splat(C3))
        .mul_add(r, V::splat(0.5));
    let p = r.mul(r).mul_add(q, r);
    (t_hi, t_hi.mul_add(p, t_lo), mf)
}

/// [`reduce`] with `t + z` split exactly into `hi + lo` (`hi` = t + z rounded, in [0.95, 1.92]):
/// `e^x ≈ (hi + lo) · 2^⌊mf⌋` with a relative error below 2^-27.
#[inline(always)]
pub(crate) fn split<V: Lanes>(x: V) -> (V, V, V) {
    let (t, z, mf) = reduce(x);
    let hi = t.add(z);
    // Fast2Sum: |t| ≥ |z|, so `lo` is the exact rounding error of `hi`.
    let lo = t.sub(hi).add(z);
    (hi, lo, mf)
}

/// The exponential over `Lanes`.
pub(crate) struct Exp;

impl Kernel for Exp {
    #[inline(always)]
    fn lanes<V: Lanes>(x: V) -> V {
        let x = x.max(V::splat(CLAMP_LO)).min(V::splat(CLAMP_HI));
        let (t, z, mf) = reduce(x);
        t.add(z).scale(mf)
    }
}

/// `out[i] = e^x[i]` in f32 (< 1 ULP, see the module docs). `stream`: write the output with
/// non-temporal stores (for outputs larger than the caches; same bits). Panics if the slices differ
/// in length; an instruction set this CPU lacks runs as [`Isa::Scalar`].
pub fn exp_f32(isa: Isa, x: &[f32], out: &mut [f32], stream: bool) {
    lanes::run::<Exp>(isa, x, out, stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_roundings_they_claim() {
        let ln2 = std::f64::consts::LN_2;
        assert_eq!(LN2_HI, ln2 as f32);
        assert_eq!(LN2_LO, (ln2 - LN2_HI as f64) as f32);
        assert_eq!(INV_LN2, std::f64::consts::LOG2_E as f32);
        for j in 0..8 {
            let t = (j as f64 / 8.0).exp2();
            assert_eq!(T_HI[j], t as f32, "T_HI[{j}]");
            assert_eq!(T_LO[j], (t - T_HI[j] as f64) as f32, "T_LO[{j}]");
        }
        assert_eq!(MAGIC, 1.5 * (1u32 << 20) as f32);
        // k/8 is exact at this magnitude and the encoding's low 3 bits are k mod 8.
        assert_eq!((MAGIC - 1.0 / 8.0).to_bits() & 7, 7);
    }

    #[test]
    fn reduction_picks_the_table_entry_and_scale_of_k() {
        for &x in &[-103.9f32, -20.0, -1.0, -0.05, 0.0, 0.03, 0.7, 13.3, 88.7] {
            let (t, z, mf) = reduce(x);
            let k = (x as f64 * 8.0 / std::f64::consts::LN_2).round();
            assert_eq!(mf as f64, k / 8.0, "{x}");
            let y = (t as f64 + z as f64) * (mf.floor() as f64).exp2();
            assert!((y / (x as f64).exp() - 1.0).abs() < 2e-8, "{x}: {y}");
        }
    }

    #[test]
    fn scalar_kernel_is_accurate_and_handles_the_special_values() {
        let f = |x: f32| {
            let mut o = [0f32];
            exp_f32(Isa::Scalar, &[x], &mut o, false);
            o[0]
        };
        assert_eq!(f(0.0), 1.0);
        assert_eq!(f(-0.0), 1.0);
        assert_eq!(f(f32::INFINITY), f32::INFINITY);
        assert_eq!(f(f32::NEG_INFINITY).to_bits(), 0);
        assert!(f(f32::NAN).is_nan());
        assert_eq!(f(89.0), f32::INFINITY);
        assert_eq!(f(-104.0).to_bits(), 0);
        // Subnormal result: e^-100 = 3.72e-44 is 26.6 times 2^-149.
        assert_eq!(f(-100.0).to_bits(), 27);
        let mut x = -87.0f32;
        while x < 88.0 {
            let want = (x as f64).exp();
            let got = f(x) as f64;
            assert!(((got - want) / want).abs() < 1.2e-7, "{x}: {got} vs {want}");
            x += 0.013;
        }
    }
}
