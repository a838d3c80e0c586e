//! `tanh` on f32, evaluated in f32 on 16 lanes (AVX-512F), 8 lanes (AVX2+FMA) or one (scalar),
//! with the same operation sequence everywhere (written once over `Lanes`), without branches:
//! both forms below are computed for every lane and one is selected.
//!
//! With `a = |x|` and the sign put back at the end (so tanh(−0) = −0):
//! - `a < 0.5`: `tanh a = a + a³·P(a²)`, P a degree-4 weighted minimax polynomial (relative error
//!   of the sum below 2^-31, coefficients rounded to f32 included); `a·a²` and P round with relative weight ≤ a²/3, so the result is
//!   within 0.5 ULP + 0.18 ULP. Subnormal inputs give `a` itself (the correctly rounded value).
//! - `a ≥ 0.5` (clamped at 10: tanh is 1 in f32 from 9.011 on): a piecewise polynomial. `a + 0.5`
//!   (in [1, 10.5]) picks one of 16 intervals, four per binade of `a + 0.5` — its encoding shifted
//!   right by 21 bits indexes the tables through a lane permutation — so the intervals are 0.25
//!   wide up to a = 1.5, then 0.5, 1 and 2 wide where tanh flattens. Each interval has a center `c`
//!   (an f32 chosen so that tanh(c) is within 2^-14 ULP of an f32, C0: Gal's accurate-table
//!   method, so C0 needs no low part) and a degree-6 polynomial in `δ = a − c` (exact by
//!   Sterbenz), fitted for the error in ULPs of the result with the coefficients rounded to f32
//!   one by one (each rounding refitted by the higher ones): approximation error below 0.04 ULP.
//!   Horner's rule ends with `fma(P₁, δ, C0)`, one rounding; the roundings of P₁ (scaled by
//!   |δ| ≤ 0.125 where tanh is steep) add at most 0.15 ULP.
//!
//! The exhaustive scan over all 2^32 inputs (`examples/scan_f32_kernels.rs`) measured a maximum
//! error of 0.6311 ULP (at 0.50087, the steep end of the first interval), every result within
//! 1 ULP of the correctly rounded one. NaN in → NaN out (quieted); ±inf → ±1. The constants come
//! from `fit_f32_kernels.py` (mpmath).

use super::lanes::{self, Kernel, Lanes};
use super::Isa;

/// Below this |x| the odd polynomial is used.
const SMALL: f32 = 0.5;
/// |x| is clamped here (tanh(10) rounds to 1).
const CLAMP: f32 = 10.0;
/// `(tanh a − a)/a³ ≈ P(a²)` on a in [0, 0.5], lowest degree first (weighted minimax for the
/// relative error of tanh).
const P: [f32; 5] = [
    -0.333_333_28,
    0.133_330_1,
    -0.053_904_068,
    0.021_319_048,
    -0.006_679_628_5,
];
/// Per interval (indexed by the encoding of `a + 0.5` shifted right by 21, modulo 16: slot 12 is
/// a in [0.5, 0.75), slot 0 is [1.5, 2), slot 8 is [7.5, 9.5)): the center `c`, then C0..C6 with
/// `tanh(c + δ) ≈ C0 + C1·δ + … + C6·δ⁶`. Slots 10 and 11 (a ≥ 11.5) are never reached.
const TABLE: [[f32; 16]; 8] = [
    [
        1.749765, 2.2514277, 2.7466555, 3.252245, 4.0007777, 4.99977, 6.0003986, 6.998238, 8.66434,
        10.519073, 12.5, 14.5, 0.62510663, 0.875142, 1.1253259, 1.3747424,
    ],
    [
        0.9413488, 0.9780881, 0.9918053, 0.99701107, 0.99933034, 0.99990916, 0.9999877, 0.99999833,
        0.99999994, 1.0, 1.0, 1.0, 0.55467355, 0.7039772, 0.8094135, 0.8797685,
    ],
    [
        0.1138624,
        0.043343704,
        0.01632222,
        0.0059689367,
        0.0013388951,
        0.00018167058,
        2.4557477e-05,
        3.3379022e-06,
        1.1924818e-07,
        2.7991902e-09,
        0.0,
        0.0,
        0.6923373,
        0.50441605,
        0.3448498,
        0.2260074,
    ],
    [
        -0.107184224,
        -0.04239395,
        -0.01618846,
        -0.005951097,
        -0.0013379918,
        -0.00018165295,
        -2.4557039e-05,
        -3.3378162e-06,
        -1.1988341e-07,
        -2.7621859e-08,
        0.0,
        0.0,
        -0.38402116,
        -0.3550974,
        -0.27912608,
        -0.1988342,
    ],
    [
        0.06295026,
        0.027017433,
        0.010614713,
        0.003943463,
        0.00088989397,
        0.00012095175,
        1.6353642e-05,
        2.2231418e-06,
        7.9007606e-08,
        2.5585987e-09,
        0.0,
        0.0,
        -0.01778224,
        0.08184416,
        0.11097953,
        0.09959298,
    ],
    [
        -0.02352856,
        -0.012294829,
        -0.0051320684,
        -0.0019480315,
        -0.00044380676,
        -6.0463884e-05,
        -8.177404e-06,
        -1.1121876e-06,
        -3.6731404e-08,
        6.2399366e-08,
        0.0,
        0.0,
        0.13786091,
        0.06075156,
        0.0032147234,
        -0.021339469,
    ],
    [
        0.0034802624,
        0.003971298,
        0.0019256658,
        0.00076706905,
        0.0001839135,
        2.5204738e-05,
        3.411334e-06,
        4.6307343e-07,
        1.7474857e-08,
        -1.7289328e-10,
        0.0,
        0.0,
        -0.054176666,
        -0.05876995,
        -0.032029636,
        -0.0095172925,
    ],
    [
        0.0020971822,
        -0.00071586075,
        -0.00054576574,
        -0.00024364784,
        -6.0506445e-05,
        -8.363929e-06,
        -1.1348425e-06,
        -1.5286508e-07,
        -8.496539e-09,
        -4.092872e-08,
        0.0,
        0.0,
        -0.023643391,
        0.013049518,
        0.0185007,
        0.010950522,
    ],
];

/// tanh over `Lanes`.
pub(crate) struct Tanh;

impl Kernel for Tanh {
    #[inline(always)]
    fn lanes<V: Lanes>(x: V) -> V {
        let a = x.abs();

        // Small |x|: a + a³·P(a²).
        let s = a.mul(a);
        let poly = s
            .mul_add(V::splat(P[4]), V::splat(P[3]))
            .mul_add(s, V::splat(P[2]))
            .mul_add(s, V::splat(P[1]))
            .mul_add(s, V::splat(P[0]));
        let small = a.mul(s).mul_add(poly, a);

        // Larger |x|: the interval's polynomial in δ = a − c.
        let a = a.min(V::splat(CLAMP));
        let slot = a.add(V::splat(0.5)).shift_right::<21>();
        let d = a.sub(slot.lookup16(&TABLE[0]));
        let mut p = slot.lookup16(&TABLE[7]);
        for c in TABLE[1..7].iter().rev() {
            p = p.mul_add(d, slot.lookup16(c));
        }

        V::select(x.abs().lt(V::splat(SMALL)), small, p).or_sign_of(x)
    }
}

/// `out[i] = tanh x[i]` in f32 (< 1 ULP, see the module docs). `stream`: write the output with
/// non-temporal stores (same bits). Panics if the slices differ in length; an
/// instruction set this CPU lacks runs as [`Isa::Scalar`].
pub fn tanh_f32(isa: Isa, x: &[f32], out: &mut [f32], stream: bool) {
    lanes::run::<Tanh>(isa, x, out, stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> f32 {
        let mut o = [0f32];
        tanh_f32(Isa::Scalar, &[x], &mut o, false);
        o[0]
    }

    #[test]
    fn special_values_and_signs() {
        assert_eq!(f(0.0).to_bits(), 0);
        assert_eq!(f(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(f(f32::INFINITY), 1.0);
        assert_eq!(f(f32::NEG_INFINITY), -1.0);
        assert_eq!(f(9.1), 1.0);
        assert_eq!(f(-1e30), -1.0);
        assert!(f(f32::NAN).is_nan());
        let tiny = f32::from_bits(5);
        assert_eq!(f(tiny), tiny);
        assert_eq!(f(-tiny), -tiny);
        assert_eq!(f(1e-20), 1e-20);
    }

    /// The slot of `a` (as the kernel computes it).
    fn slot(a: f32) -> usize {
        (((a + 0.5).to_bits() >> 21) & 15) as usize
    }

    #[test]
    fn table_rows_belong_to_their_slots() {
        // The interval bounds, in slot order (four per binade of a + 0.5).
        let mut bounds = [(0f32, 0f32); 16];
        for e in 0..4 {
            let w = (1u32 << e) as f32 / 4.0;
            for q in 0..4 {
                let lo = (1u32 << e) as f32 + q as f32 * w - 0.5;
                bounds[(4 * e + q + 12) % 16] = (lo, lo + w);
            }
        }
        for (i, &(lo, hi)) in bounds.iter().enumerate() {
            // (Within half an ULP of a + 0.5 below `hi`, the rounding of a + 0.5 may pick the next
            // interval, whose polynomial is then used a hair outside its range.)
            assert_eq!(slot(lo), i, "[{lo}, {hi})");
            assert_eq!(slot(hi - (hi + 0.5) * f32::EPSILON), i, "[{lo}, {hi})");
            let c = TABLE[0][i];
            assert!(lo <= c && c < hi, "center {c} of [{lo}, {hi})");
            if lo <= CLAMP {
                // C0 is tanh(c) to far better than half an ULP (Gal's method).
                let t = (c as f64).tanh();
                let ulp = f64::from(f32::EPSILON) / 2.0;
                assert!(
                    (TABLE[1][i] as f64 - t).abs() < 0.03 * ulp,
                    "C0 of slot {i}"
                );
            }
        }
        assert_eq!(slot(SMALL), 12);
        assert_eq!(slot(CLAMP), 9);
    }

    #[test]
    fn every_interval_is_accurate() {
        let mut x = 0.5f32;
        while x <= 10.0 {
            let want = (x as f64).tanh();
            let got = f(x) as f64;
            let ulp = f64::from(f32::EPSILON) / if want < 1.0 { 2.0 } else { 1.0 };
            assert!((got - want).abs() < 0.75 * ulp, "{x}: {got} vs {want}");
            x += 0.000_71;
        }
    }

    #[test]
    fn both_forms_are_accurate_around_the_switch() {
        let mut x = 0.3f32;
        while x < 0.8 {
            let want = (x as f64).tanh();
            let got = f(x) as f64;
            assert!(((got - want) / want).abs() < 1.2e-7, "{x}: {got} vs {want}");
            assert_eq!(f(-x), -f(x));
            x += 0.000_37;
        }
    }
}
