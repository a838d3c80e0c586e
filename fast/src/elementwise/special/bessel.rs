//! The exponentially scaled modified Bessel function of the first kind of order one,
//! `I₁e(x) = I₁(x) e^{−|x|}` (CHLO `chlo.bessel_i1e`, DLMF 10.25.2), in f64.
//!
//! Algorithm (the split of Cephes' `i1e`, [0, 8] and [8, ∞), refined into more pieces with
//! lower degrees and our own fits): for a = |x|,
//! - a < 2: `a · P(a)`, P approximating I₁e(a)/a (which is 1/2 at 0), of degree 15 on [0, 1]
//!   and 15 on [1, 2]; `a/2 − a²/2` below 2^-27, and a/2 rounded toward zero below 2^-53 (see
//!   [`bessel_i1e_for_narrower`] for the double rounding into narrower formats);
//! - 2 ≤ a < 16: a polynomial in a − c on each of [2, 4], [4, 8] and [8, 16] (degrees 18, 21,
//!   24; centres 3, 6, 12);
//! - a ≥ 16: `Q(1/a)/√a`, Q of degree 15 approximating √a I₁e(a) as a function of t = 1/a on
//!   (0, 1/16] (Q(0) = 1/√(2π));
//!
//! and the sign of x (I₁e is odd: ±0 → ±0, ±inf → ±0). I₁e(a) e^{a} is entire, so each piece
//! converges fast; the interpolants are within 2^-60 (`fit_special.py`), their constant terms
//! double-doubles. Measured against MPFR (`tests/special_accuracy.rs`): ≤ 1 ULP in f64.

// I1e(x)/x: degree 15 on [0.0, 1.0] about 0.5;
//   interpolation error 8.10e-20, with f64 coefficients 1.16e-17 (relative)
const SMALL_0_1: [f64; 17] = [
    -1.6722815342717542e-10,
    1.3845950645253811e-09,
    -1.0617996367394678e-08,
    7.719011663121623e-08,
    -5.22686702719784e-07,
    3.2782074596156603e-06,
    -1.8924716299380843e-05,
    9.980789900961332e-05,
    -0.00047657678453403137,
    0.002037716916100232,
    -0.00769450776875711,
    0.025201323364443893,
    -0.06985466405742914,
    0.15802514469243717,
    -0.27413749095041684,
    0.3128416063697434,
    -2.5795998282719005e-18,
];

// I1e(x)/x: degree 15 on [1.0, 2.0] about 1.5;
//   interpolation error 2.52e-20, with f64 coefficients 2.16e-17 (relative)
const SMALL_1_2: [f64; 17] = [
    -2.72065536000518e-11,
    2.2793346256419932e-10,
    -1.7721208605423705e-09,
    1.3082596961246768e-08,
    -9.017466684643008e-08,
    5.773989115704118e-07,
    -3.415761401378695e-06,
    1.8549321640238282e-05,
    -9.177807183436284e-05,
    0.0004100810009696683,
    -0.0016371790414128995,
    0.005764118820641773,
    -0.017599211811190854,
    0.045518134956718304,
    -0.0957721966186677,
    0.1460262582806171,
    9.742464239905626e-18,
];

// I1e(x): degree 18 on [2.0, 4.0] about 3.0;
//   interpolation error 6.22e-20, with f64 coefficients 6.84e-18 (relative)
const MID_2_4: [f64; 20] = [
    -1.563742445361291e-14,
    1.463398900690858e-13,
    -1.2271399097430065e-12,
    1.0208835257464658e-11,
    -7.999305708214864e-11,
    5.863303999411671e-10,
    -4.007073202291726e-09,
    2.540089545596787e-08,
    -1.4843019605212306e-07,
    7.936685502745022e-07,
    -3.847937653719446e-06,
    1.6715079365412112e-05,
    -6.395941197641112e-05,
    0.00020959811162658452,
    -0.0005535284052285204,
    0.0009489058375346047,
    0.0008048393517493792,
    -0.01943526356790907,
    0.19682671329730086,
    -1.1215916908230007e-17,
];

// I1e(x): degree 21 on [4.0, 8.0] about 6.0;
//   interpolation error 1.11e-19, with f64 coefficients 1.26e-17 (relative)
const MID_4_8: [f64; 23] = [
    4.7799630944105566e-20,
    -5.29872303772819e-19,
    4.618333727664669e-18,
    -4.587242721128596e-17,
    4.4216394242128805e-16,
    -3.9773459736289745e-15,
    3.382144148331248e-14,
    -2.7168457842209125e-13,
    2.052861875956157e-12,
    -1.4532406543877445e-11,
    9.59240678488325e-11,
    -5.865544221872666e-10,
    3.289291833049477e-09,
    -1.6602010158192534e-08,
    7.216867061492953e-08,
    -2.331603204419531e-07,
    7.520068845947291e-08,
    8.073068010364205e-06,
    -0.00010573032069365759,
    0.0010714688142474046,
    -0.01073593655344029,
    0.1520514593085059,
    -3.422832968942417e-18,
];

// I1e(x): degree 23 on [8.0, 16.0] about 12.0;
//   interpolation error 2.97e-19, with f64 coefficients 1.29e-17 (relative)
const MID_8_16: [f64; 25] = [
    5.6911329607572986e-27,
    -7.40856220766622e-26,
    4.1123244360440906e-25,
    -4.6148623414284e-24,
    7.035388249203456e-23,
    -7.745154762816731e-22,
    7.750762914238508e-21,
    -7.790804043000255e-20,
    7.510638105211603e-19,
    -6.722536672639409e-18,
    5.3789808027323716e-17,
    -3.3563276369535254e-16,
    4.455224548138934e-16,
    3.663490818992041e-14,
    -9.430212346753303e-13,
    1.753232154974927e-11,
    -2.8976182655453754e-10,
    4.5293781858048695e-09,
    -6.892205219411978e-08,
    1.0401036559543643e-06,
    -1.5840564439126058e-05,
    0.0002497347676551864,
    -0.004326769684255615,
    0.11146429929018098,
    -2.8469863780604235e-18,
];

// sqrt(x) I1e(x) in t = 1/x: degree 15 on [0.0, 0.0625] about 0.03125;
//   interpolation error 6.27e-19, with f64 coefficients 9.62e-19 (relative)
const LARGE: [f64; 17] = [
    6148387.445041444,
    -5826503.6051657405,
    -696800.1128317285,
    -40346.79453106888,
    -3215.1640659078707,
    -408.641277025409,
    -59.863603269207346,
    -10.343499441981173,
    -2.16984586513056,
    -0.5616335092788841,
    -0.18416870270042454,
    -0.07986853450273837,
    -0.0493762396588233,
    -0.05096139881087714,
    -0.15265274530923523,
    0.394220213406121,
    -1.575231777858501e-17,
];

/// 2^-27: below it I₁e(a) = a/2 − a²/2 to 2^-55.
const TINY: f64 = 7.450_580_596_923_828e-9;
/// 2^-53: below it a/2 − a²/2 is a/2 less far under half an ULP.
const EPS: f64 = 1.110_223_024_625_156_5e-16;

/// For 0 ≤ a < 2^-53, where I₁e(a) = a/2 − a²/2 lies just below a/2: a/2 rounded toward zero
/// (the correctly rounded f64 when a/2 is not exact: a is then an odd subnormal and a/2 a tie),
/// or, for a result to be rounded again into a narrower format (`narrower`), the f64 just below
/// the exact a/2, so that a tie of the narrower grid rounds down as the exact value does.
#[inline]
fn half_below(a: f64, narrower: bool) -> f64 {
    let r = 0.5 * a;
    if a == 0.0 {
        return a;
    }
    if r + r > a || (narrower && r + r == a) {
        f64::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// [`bessel_i1e`] for results rounded again into f32 or a narrower format: identical except
/// below 2^-53, where an exact a/2 (a tie of the narrower grid when a is an odd multiple of its
/// smallest subnormal) is replaced by the f64 just below it ([`half_below`]).
pub fn bessel_i1e_for_narrower(x: f64) -> f64 {
    let a = x.abs();
    if a < EPS {
        return half_below(a, true).copysign(x);
    }
    bessel_i1e(x)
}

/// `I₁(x)·e^{−|x|}`, CHLO `chlo.bessel_i1e` (DLMF 10.25.2): piecewise polynomials in x up to 16
/// and in 1/x beyond (see the module documentation); odd, ±inf → ±0. Measured ≤ 1 ULP in f64.
pub fn bessel_i1e(x: f64) -> f64 {
    let a = x.abs();
    let r = if a < EPS {
        half_below(a, false)
    } else if a < TINY {
        (0.5 * a).mul_add(-a, 0.5 * a) // a/2 − a²/2 (the next term is 5a³/16)
    } else if a < 1.0 {
        let (ph, pl) = super::horner_dd(&SMALL_0_1, a - 0.5);
        a.mul_add(ph, a * pl)
    } else if a < 2.0 {
        let (ph, pl) = super::horner_dd(&SMALL_1_2, a - 1.5);
        a.mul_add(ph, a * pl)
    } else if a < 4.0 {
        super::poly(&MID_2_4, a - 3.0)
    } else if a < 8.0 {
        super::poly(&MID_4_8, a - 6.0)
    } else if a < 16.0 {
        super::poly(&MID_8_16, a - 12.0)
    } else if a.is_finite() {
        // (qh + ql)/(s + s_lo) with Q = qh + ql and √a = s + s_lo: one division corrected by
        // its exact remainder.
        let (qh, ql) = super::horner_dd(&LARGE, 1.0 / a - 0.031_25);
        let s = a.sqrt();
        let s_lo = (-s).mul_add(s, a) / (2.0 * s);
        let r = qh / s;
        let rem = (-r).mul_add(s, qh) + ql - r * s_lo;
        r + rem / s
    } else if a.is_nan() {
        return x;
    } else {
        0.0
    };
    r.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64).abs_diff(b.to_bits() as i64)
    }

    #[test]
    fn special_values() {
        assert_eq!(bessel_i1e(0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(bessel_i1e(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(bessel_i1e(f64::INFINITY).to_bits(), 0.0f64.to_bits());
        assert_eq!(bessel_i1e(f64::NEG_INFINITY).to_bits(), (-0.0f64).to_bits());
        assert!(bessel_i1e(f64::NAN).is_nan());
        // a/2; for subnormals a/2 − a²/2 rounds toward zero (not to even).
        assert_eq!(bessel_i1e(1e-300), 5e-301);
        assert_eq!(bessel_i1e(5e-324), 0.0);
        assert_eq!(bessel_i1e(f64::from_bits(3)).to_bits(), 1);
        assert_eq!(
            bessel_i1e(-f64::from_bits(4)).to_bits(),
            (-f64::from_bits(2)).to_bits()
        );
        // For narrower formats the f64 result lies just below a/2.
        let x = f32::from_bits(3) as f64;
        assert!(bessel_i1e_for_narrower(x) < x / 2.0);
        assert_eq!(bessel_i1e_for_narrower(x) as f32, f32::from_bits(1));
        assert_eq!(bessel_i1e_for_narrower(-0.0).to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn values_from_mpmath() {
        // mpmath 1.3.0 besseli(1, x)·exp(−|x|) at 40 digits, rounded to f64 (at 1e300 the
        // asymptotic (1 − 3/(8x))/√(2πx)).
        let cases = [
            (1.0, 0.20791041534970844),
            (-2.0, -0.21526928924893765),
            (0.5, 0.1564208031848717),
            (7.999, 0.13414997242586205),
            (10.0, 0.12126268138445552),
            (16.0, 0.09734961475646808),
            (1000.0, 0.012610930256928629),
            (1e300, 3.9894228040143264e-151),
        ];
        for (x, want) in cases {
            let got = bessel_i1e(x);
            assert!(ulps(got, want) <= 1, "i1e({x}) = {got:e}, want {want:e}");
        }
    }

    #[test]
    fn odd_and_continuous_at_the_breakpoints() {
        for x in [0.3, 2.0, 4.0, 8.0, 16.0, 33.3] {
            assert_eq!(bessel_i1e(-x).to_bits(), (-bessel_i1e(x)).to_bits());
            let below = bessel_i1e(f64::from_bits(x.to_bits() - 1));
            let at = bessel_i1e(x);
            assert!((below - at).abs() <= 3e-16 * at, "{x}: {below:e} {at:e}");
        }
    }
}
