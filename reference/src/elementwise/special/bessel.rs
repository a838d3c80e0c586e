//! The exponentially scaled modified Bessel function of the first kind of order one, I₁(x)·e^−|x|.

use crate::round::{decode, zero_bits};
use crate::ziv::{self, Interval};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;
use rug::float::{Constant, Round};
use rug::ops::{AddAssignRound, DivAssignRound, MulAssignRound};
use rug::Float;

/// Below this argument (and below the working precision in bits) the power series is used.
const ASYMPTOTIC_MIN: u32 = 64;

/// i1e(x) = I₁(x)·e^−|x| (CHLO `chlo.bessel_i1e`; XLA client library `math.h` `BesselI1e`).
///
/// Defined for every real x; odd. Special values: i1e(±0) = ±0, i1e(±inf) = ±0 (I₁(x)e^−x ~
/// 1/√(2πx)), NaN gives NaN. Results are correctly rounded.
///
/// Algorithm (an enclosure of i1e(|x|) at working precision `w`, refined by
/// [`ziv::round_enclosure`]):
/// - |x| < max(64, w): the power series I₁(x) = Σ_k (x/2)^(2k+1)/(k!(k+1)!) (DLMF 10.25.2), whose
///   terms are positive, summed twice with directed rounding (every term rounded down, then up);
///   it stops once the term ratio (x/2)²/((k+2)(k+3)) is ≤ ½ and the term is below 2^(−w−8) of
///   the sum, so the tail (a series dominated by a geometric one of ratio ≤ ½) is at most the last
///   term, which is added to the upper bound. The sum is multiplied by e^−x rounded down and up.
/// - |x| ≥ max(64, w): Hankel's expansion (DLMF 10.40.1) I₁(x) = e^x/√(2πx)·(S_ℓ + ρ) with
///   S_ℓ = Σ_{k<ℓ} (−1)^k a_k(1)/x^k, a_k(1) = Π_{j=1..k} (4 − (2j−1)²)/(k!·8^k) (DLMF 10.17.1),
///   and a rigorous remainder bound |ρ| ≤ 4(ℓ+1)|a_ℓ(1)|/x^ℓ: by the connection formula
///   DLMF 10.34.2 with m = −1, I₁(x) = (K₁(xe^−πi) + K₁(x))/(πi); the second term is purely
///   imaginary and the first, by DLMF 10.40.10, is e^x/√(2πx)·(S_ℓ + R_ℓ(1, xe^−πi)) times i·(πi)/π,
///   so ρ = Re R_ℓ(1, xe^−πi). DLMF 10.40.11–12 bound it (|ph z| = π) by
///   2χ(ℓ)|a_ℓ(1)|x^−ℓ·exp((3/4)χ(1)/x), with χ(1) = π/2 and χ(ℓ) = √π Γ(ℓ/2+1)/Γ(ℓ/2+½) ≤
///   √(π(ℓ+1)/2) ≤ ℓ+1 (Wendel's inequality); for x ≥ 64 the exponential is below 2. The terms
///   decrease until ℓ ≈ 2x, where they are about e^−2x ≤ e^−2w, so the bound reaches 2^(−w−8) with
///   ℓ well below 2x. Every term (all of them negative beyond the first) is enclosed with
///   directed rounding; the result is (S_ℓ ± bound)/√(2πx) with π, the product and the square
///   root rounded outward. The work is bounded: at most ~2·max(64, w) series terms, and for huge
///   |x| (up to f64's 1.8e308) a handful of asymptotic terms.
///
/// Termination: e^−x·I₁(x) = (x/2)·M(3/2, 3, −2x) (DLMF 10.39.5 with Kummer's transformation
/// 13.2.39) is a value of an E-function at a nonzero rational point, transcendental by the
/// Siegel–Shidlovskii theory, so it is never a rounding midpoint and the enclosure, whose width
/// goes to 0 as `w` grows, eventually rounds to one value.
///
/// Errors: [`BackendError::Failure`] only if the loop reaches [`ziv::MAX_PRECISION`] (not
/// expected).
pub(crate) fn bessel_i1e(fmt: FloatFormat, x: u64) -> Result<u64, BackendError> {
    let v = decode(fmt, x);
    if v.is_nan() {
        return Ok(fmt.nan_bits());
    }
    if v.is_zero() {
        return Ok(x);
    }
    let negative = v.is_sign_negative();
    if v.is_infinite() {
        return Ok(zero_bits(fmt, negative));
    }
    let a = Float::with_val(v.prec(), v.abs_ref());
    let r = ziv::round_enclosure(fmt, |w| enclose(&a, w))?;
    Ok(if negative { fmt.negate_bits(r) } else { r })
}

/// An enclosure of I₁(a)·e^−a for finite a > 0 at working precision `w` (see [`bessel_i1e`]).
pub(crate) fn enclose(a: &Float, w: u32) -> Option<Interval> {
    if *a >= ASYMPTOTIC_MIN.max(w) {
        asymptotic(a, w)
    } else {
        series(a, w)
    }
}

/// The power series times e^−a, for 0 < a < max(64, w).
fn series(a: &Float, w: u32) -> Option<Interval> {
    let wp = w + 48;
    let h = Float::with_val(a.prec(), a >> 1u32); // exact
    let h2_lo = Float::with_val_round(wp, h.square_ref(), Round::Down).0;
    let h2_hi = Float::with_val_round(wp, h.square_ref(), Round::Up).0;
    let two_h2 = Float::with_val_round(wp, &h2_hi * 2u32, Round::Up).0;
    let (mut t_lo, mut t_hi) = (Float::with_val(wp, &h), Float::with_val(wp, &h));
    let (mut s_lo, mut s_hi) = (t_lo.clone(), t_hi.clone());
    let mut k: u64 = 0;
    loop {
        // t_{k+1} = t_k·h²/((k+1)(k+2)).
        let d = (k + 1) * (k + 2);
        t_lo.mul_assign_round(&h2_lo, Round::Down);
        t_lo.div_assign_round(d, Round::Down);
        t_hi.mul_assign_round(&h2_hi, Round::Up);
        t_hi.div_assign_round(d, Round::Up);
        s_lo.add_assign_round(&t_lo, Round::Down);
        s_hi.add_assign_round(&t_hi, Round::Up);
        k += 1;
        // The next ratio is h²/((k+1)(k+2)); once ≤ ½ the tail is at most the current term.
        let ratio_small = two_h2 <= (k + 1) * (k + 2);
        if ratio_small && t_hi <= Float::with_val(wp, &s_lo >> (w + 8)) {
            s_hi.add_assign_round(&t_hi, Round::Up);
            break;
        }
        if k > 1 << 20 {
            return None;
        }
    }
    let minus_a = Float::with_val(a.prec(), -a);
    let e_lo = Float::with_val_round(wp, minus_a.exp_ref(), Round::Down).0;
    let e_hi = Float::with_val_round(wp, minus_a.exp_ref(), Round::Up).0;
    Some(Interval {
        lo: Float::with_val_round(wp, &s_lo * &e_lo, Round::Down).0,
        hi: Float::with_val_round(wp, &s_hi * &e_hi, Round::Up).0,
    })
}

/// Hankel's expansion with its remainder bound, for a ≥ max(64, w).
fn asymptotic(a: &Float, w: u32) -> Option<Interval> {
    let wp = w + 48;
    // |t_k| = |a_k(1)|/a^k: |t_1| = 3/(8a), |t_k| = |t_{k−1}|·((2k−1)² − 4)/(8k·a) for k ≥ 2.
    // S = 1 − Σ_{k≥1} |t_k| (every term after the first is negative).
    let mut t_lo = Float::with_val(wp, 1u32);
    let mut t_hi = Float::with_val(wp, 1u32);
    let mut neg_lo = Float::with_val(wp, 0u32); // Σ|t_k| rounded down
    let mut neg_hi = Float::with_val(wp, 0u32); // Σ|t_k| rounded up
    let limit = Float::with_val(wp, 1u32) >> (w + 8);
    let two_a = Float::with_val(wp, a * 2u32);
    let mut k: u64 = 1;
    let bound = loop {
        let num = ((2 * k - 1) * (2 * k - 1)).abs_diff(4);
        let den_lo = Float::with_val_round(wp, a * (8 * k), Round::Down).0;
        let den_hi = Float::with_val_round(wp, a * (8 * k), Round::Up).0;
        t_lo.mul_assign_round(num, Round::Down);
        t_lo.div_assign_round(&den_hi, Round::Down);
        t_hi.mul_assign_round(num, Round::Up);
        t_hi.div_assign_round(&den_lo, Round::Up);
        // t_hi bounds |t_k| = |a_k|/a^k: the remainder after the terms below k is ≤ 4(k+1)|t_k|.
        let rem = Float::with_val_round(wp, &t_hi * (4 * (k + 1)), Round::Up).0;
        if rem <= limit {
            break rem;
        }
        if two_a <= k {
            return None; // not expected for a ≥ max(64, w)
        }
        neg_lo.add_assign_round(&t_lo, Round::Down);
        neg_hi.add_assign_round(&t_hi, Round::Up);
        k += 1;
    };
    let one = Float::with_val(wp, 1u32);
    let s_lo = Float::with_val_round(wp, &one - &neg_hi, Round::Down).0;
    let s_lo = Float::with_val_round(wp, &s_lo - &bound, Round::Down).0;
    let s_hi = Float::with_val_round(wp, &one - &neg_lo, Round::Up).0;
    let s_hi = Float::with_val_round(wp, &s_hi + &bound, Round::Up).0;
    // √(2πa), rounded down and up.
    let root = |r: Round| {
        let pi = Float::with_val_round(wp, Constant::Pi, r).0;
        let prod = Float::with_val_round(wp, &pi * a, r).0;
        let prod = Float::with_val_round(wp, &prod * 2u32, r).0;
        Float::with_val_round(wp, prod.sqrt_ref(), r).0
    };
    let (r_lo, r_hi) = (root(Round::Down), root(Round::Up));
    Some(Interval {
        lo: Float::with_val_round(wp, &s_lo / &r_hi, Round::Down).0,
        hi: Float::with_val_round(wp, &s_hi / &r_lo, Round::Up).0,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::test_util::*;
    use super::super::tests::assert_rounds_once;
    use super::*;
    use conformance_spec::hlo::ir::Opcode::BesselI1e;
    use conformance_spec::ElementType;

    /// I₁(x)e^−x at `prec` bits without bounds: the plain series for x < 1000, else Hankel's
    /// expansion summed in plain arithmetic up to its smallest term (an independent check of the
    /// bounded evaluations above, not a proof).
    fn plain(x: f64, prec: u32) -> Float {
        let x = Float::with_val(prec, x);
        if x < 1000u32 {
            let mut t = Float::with_val(prec, &x >> 1u32);
            let h2 = Float::with_val(prec, t.square_ref());
            let mut s = t.clone();
            for k in 0..100_000u64 {
                t *= &h2;
                t /= (k + 1) * (k + 2);
                s += &t;
                if t < Float::with_val(prec, &s >> (prec + 8)) && k as f64 > x.to_f64() {
                    break;
                }
            }
            return s * Float::with_val(prec, (-x).exp_ref());
        }
        let mut t = Float::with_val(prec, 1u32);
        let mut s = t.clone();
        for k in 1..10_000u64 {
            let next = Float::with_val(prec, &t * (((2 * k - 1) * (2 * k - 1)) as i64 - 4));
            let next = Float::with_val(prec, &next / Float::with_val(prec, &x * (8 * k)));
            let negligible = next.clone().abs() < Float::with_val(prec, &s >> (prec + 8)).abs();
            if next.clone().abs() >= t.clone().abs() || negligible {
                break;
            }
            t = next;
            s += &t;
        }
        let two_pi_x = Float::with_val(prec, Float::with_val(prec, Constant::Pi) * &x) * 2u32;
        s / two_pi_x.sqrt()
    }

    #[test]
    fn bessel_i1e_known_values() {
        // i1e(1) = I₁(1)/e = 0.565159103992485027207696.../2.718281828... (mpmath at 300 bits).
        assert_eq!(f64op(BesselI1e, &[1.0]), 0.20791041534970844);
        assert_eq!(f64op(BesselI1e, &[-1.0]), -0.20791041534970844);
        // i1e(2.5) = 0.20658464729785920... → f32 0x3e53_8aed (mpmath).
        assert_eq!(f32op(BesselI1e, &[2.5]).to_bits(), 0x3e53_8aed);
        for x in [1e-300, 0.5, 2.5, 10.0, 63.0, 64.0, 100.0, 300.0, 1000.0] {
            let want = crate::round::round_exact(FloatFormat::F64, &plain(x, 400));
            assert_eq!(f64op(BesselI1e, &[x]).to_bits(), want, "{x}");
        }
    }

    #[test]
    fn bessel_i1e_special_values() {
        assert_eq!(f32op(BesselI1e, &[0.0]).to_bits(), 0);
        assert_eq!(f32op(BesselI1e, &[-0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(BesselI1e, &[f32::INFINITY]).to_bits(), 0);
        assert_eq!(
            f32op(BesselI1e, &[f32::NEG_INFINITY]).to_bits(),
            0x8000_0000
        );
        assert!(f32op(BesselI1e, &[f32::NAN]).is_nan());
        // i1e(x) ≈ x/2 for tiny x: the smallest subnormal halves to a tie, 0 (even)... but the
        // exact value is below x/2 (by x³/16 − x²/2·x/2...): it rounds to +0.
        assert_eq!(f32op(BesselI1e, &[f32::from_bits(1)]).to_bits(), 0);
        assert_eq!(f32op(BesselI1e, &[f32::from_bits(3)]).to_bits(), 1); // 1.5 quanta − tiny → 1
                                                                         // Huge arguments: 1/√(2πx)·(1 − 3/(8x)).
        let big = f32op(BesselI1e, &[f32::MAX]);
        let want = 1.0 / (2.0 * std::f64::consts::PI * f32::MAX as f64).sqrt();
        assert_eq!(big, want as f32);
        // f64::MAX: 1/√(2πx)·(1 − 3/(8x) − ...) at 300 bits, the correction far below an ULP.
        let x = Float::with_val(300, f64::MAX);
        let pi = Float::with_val(300, Constant::Pi);
        let v = Float::with_val(300, Float::with_val(300, &pi * &x) * 2u32)
            .sqrt()
            .recip();
        let want = crate::round::round_exact(FloatFormat::F64, &v);
        assert_eq!(f64op(BesselI1e, &[f64::MAX]).to_bits(), want);
    }

    #[test]
    fn bessel_i1e_series_and_asymptotic_agree_near_the_switch() {
        // Both enclosures must contain the value: they must intersect, at several precisions.
        for x in [64.0, 70.0, 100.0, 200.0, 500.0] {
            let a = Float::with_val(53, x);
            for w in [64, 100, 150] {
                let s = series(&a, w).unwrap();
                let t = asymptotic(&a, w.min(64)).unwrap();
                assert!(s.lo <= t.hi && t.lo <= s.hi, "{x} at {w}");
                assert!(s.lo <= s.hi && t.lo <= t.hi);
            }
        }
    }

    #[test]
    fn bessel_i1e_rounds_once_in_every_narrow_format() {
        for (t, stride) in [
            (ElementType::Bf16, 3),
            (ElementType::F16, 3),
            (ElementType::F8E4M3FN, 1),
            (ElementType::F8E5M2, 1),
            (ElementType::F8E4M3FNUZ, 1),
            (ElementType::F8E3M4, 1),
        ] {
            let f = t.float_format().unwrap();
            for bits in (0..(1u64 << f.bit_width())).step_by(stride) {
                let x = f.decode(bits);
                if !x.is_finite() || x <= 0.0 {
                    continue;
                }
                let r = eval(BesselI1e, t, &[bits as u128]) as u64;
                let v = plain(x, 300);
                assert_rounds_once(f, r, |m| m.partial_cmp(&v).unwrap());
            }
        }
    }

    #[test]
    fn bessel_i1e_random_f32_match_the_plain_series() {
        let mut state = 0x0bad_cafe_u64;
        for _ in 0..300 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = f32::from_bits(((state >> 33) as u32) % 0x4400_0000); // |x| < 512
            let r = f32op(BesselI1e, &[x]);
            let want = crate::round::round_exact(FloatFormat::F32, &plain(x as f64, 300));
            assert_eq!(r.to_bits() as u64, want, "{x}");
        }
    }
}
