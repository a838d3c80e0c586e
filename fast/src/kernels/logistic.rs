//! `logistic` (`1 / (1 + e^−x)`) on f32, evaluated in f32 on 16 lanes (AVX-512F), 8 lanes
//! (AVX2+FMA) or one (scalar), with the same operation sequence everywhere (written once over
//! `Lanes`), without branches.
//!
//! With `E = e^{−|x|} = (hi + lo)·2^m` from the exponential's reduction (`exp::split`,
//! |x| clamped at 104; relative error below 2^-27), `D = 1 + E` is formed exactly as a pair by
//! Fast2Sum, `R = 1/D_hi` is the only division and `c = (1 − R·D_hi) − R·D_lo` its relative error.
//! Then
//! - `x ≥ 0`: `logistic x = 1/D ≈ R + R·c`, rounded once (condition number in E: E/(1+E) ≤ 1/2);
//! - `x < 0`: `logistic x = E/D = 2^m · (hi + lo)·R·(1 + c) ≈ 2^m · (hi·R + R·(hi·c + lo))`,
//!   rounded once to 24 bits, then scaled by 2^m (which rounds again only for subnormal results,
//!   the first rounding being at most 1/4 of the subnormal spacing there).
//!
//! Error: within 0.5 ULP + 0.1 ULP for normal results and 0.75 ULP + 0.07 ULP for subnormal ones
//! (x below −87.34). The exhaustive scan over all 2^32 inputs (`examples/scan_f32_kernels.rs`)
//! measured 0.5908 ULP over normal results and 0.7636 ULP in all (at −87.80), every result within
//! 1 ULP of the correctly rounded one. NaN in → NaN out (quieted); +inf → 1, −inf → +0.

use super::exp;
use super::lanes::{self, Kernel, Lanes};
use super::Isa;

/// |x| is clamped here (logistic(−104) < 2^-150 rounds to 0; logistic(104) rounds to 1).
const CLAMP: f32 = 104.0;

/// logistic over `Lanes`.
pub(crate) struct Logistic;

impl Kernel for Logistic {
    #[inline(always)]
    fn lanes<V: Lanes>(x: V) -> V {
        let one = V::splat(1.0);
        let (hi, lo, mf) = exp::split(x.abs().min(V::splat(CLAMP)).mul(V::splat(-1.0)));
        // 2^m (m in [−150, 0]; 0 for m = −150) and E = (hi + lo)·2^m: only the low part of D
        // needs E once it is far below 2^-24, so roundings of tiny E do not matter.
        let pm = one.scale(mf);
        let e_hi = hi.mul(pm);
        let e_lo = lo.mul(pm);
        let d_hi = one.add(e_hi);
        let d_lo = one.sub(d_hi).add(e_hi).add(e_lo);
        let r = one.div(d_hi);
        let c = r.neg_mul_add(d_lo, r.neg_mul_add(d_hi, one));
        let positive = r.mul_add(c, r);
        let g = hi.mul_add(c, lo);
        let negative = hi.mul_add(r, r.mul(g)).scale(mf);
        V::select(x.lt(V::splat(0.0)), negative, positive)
    }
}

/// `out[i] = 1 / (1 + e^−x[i])` in f32 (< 1 ULP, see the module docs). `stream`: write the output
/// with non-temporal stores (same bits). Panics if the slices differ in length; an
/// instruction set this CPU lacks runs as [`Isa::Scalar`].
pub fn logistic_f32(isa: Isa, x: &[f32], out: &mut [f32], stream: bool) {
    lanes::run::<Logistic>(isa, x, out, stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> f32 {
        let mut o = [0f32];
        logistic_f32(Isa::Scalar, &[x], &mut o, false);
        o[0]
    }

    #[test]
    fn special_values() {
        assert_eq!(f(0.0), 0.5);
        assert_eq!(f(-0.0), 0.5);
        assert_eq!(f(f32::INFINITY), 1.0);
        assert_eq!(f(f32::NEG_INFINITY).to_bits(), 0);
        assert_eq!(f(17.0), 1.0 - f32::EPSILON / 2.0);
        assert_eq!(f(18.0), 1.0);
        assert_eq!(f(-104.0).to_bits(), 0);
        assert!(f(f32::NAN).is_nan());
        // Subnormal result: logistic(−100) ≈ e^-100 = 26.6 × 2^-149.
        assert_eq!(f(-100.0).to_bits(), 27);
    }

    #[test]
    fn accurate_on_both_sides() {
        let mut x = -87.0f32;
        while x < 20.0 {
            let want = 1.0 / (1.0 + (-(x as f64)).exp());
            let got = f(x) as f64;
            assert!(((got - want) / want).abs() < 1.2e-7, "{x}: {got} vs {want}");
            x += 0.0071;
        }
    }
}
