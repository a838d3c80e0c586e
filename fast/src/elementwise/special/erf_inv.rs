//! The inverse error function erf⁻¹ (CHLO `chlo.erf_inv`) in f64.
//!
//! Algorithm (after Giles, "Approximating the erfinv function", GPU Computing Gems, 2011, with
//! our own fits): with w = |y| and ω = −ln(1 − w²), computed from the exact double-double
//! `1 − w² = (1 − w)(1 + w) = h + l` as `ln h + l/h` (or `log1p(−w²)` with its low part to
//! first order below ½), so only the platform logarithm's rounding remains,
//! - ω < 6.25 (w < 0.99807): `erf⁻¹(w) = w · P(ω)`, P a polynomial of degree 14 to 16 on each of
//!   [0, 1.5], [1.5, 3.5], [3.5, 6.25];
//! - ω ≥ 6.25: `erf⁻¹(w) = Q(√ω)`, Q of degree 14 to 16 on each of [2.5, 3.5], [3.5, 4.5],
//!   [4.5, 6.125] (√ω reaches 6.003 at the largest f64 below 1), evaluated at √ω plus the
//!   rounding error of the square root;
//! - w < 2^-26: `(√π/2)(w + (π/12) w³)` with √π/2 as a double-double.
//!
//! The polynomials are Chebyshev interpolants within 2^-60 of the function (`fit_special.py`).
//! Special values: ±1 → ±inf, |y| > 1 → NaN, ±0 → ±0. Measured against MPFR
//! (`tests/special_accuracy.rs`): ≤ 1 ULP in f64 (0.92 measured).

use crate::kernels::libm64::{two_prod, two_sum};

// erfinv(w)/w in omega: degree 14 on [0.0, 1.5] about 0.75;
//   interpolation error 5.94e-20, with f64 coefficients 5.07e-19 (relative)
// erfinv(w)/w in omega: degree 15 on [1.5, 3.5] about 2.5;
//   interpolation error 2.54e-19, with f64 coefficients 8.40e-18 (relative)
// erfinv(w)/w in omega: degree 16 on [3.5, 6.25] about 4.875;
//   interpolation error 1.04e-19, with f64 coefficients 1.78e-18 (relative)
// erfinv(w) in r = sqrt(omega): degree 17 on [2.5, 3.5] about 3.0;
//   interpolation error 5.30e-20, with f64 coefficients 1.30e-17 (relative)
// erfinv(w) in r = sqrt(omega): degree 15 on [3.5, 4.5] about 4.0;
//   interpolation error 1.31e-19, with f64 coefficients 6.16e-18 (relative)
// erfinv(w) in r = sqrt(omega): degree 16 on [4.5, 6.125] about 5.3125;
//   interpolation error 1.31e-19, with f64 coefficients 6.78e-18 (relative)
/// (upper end, centre, coefficients) of each piece: w·P(ω − centre) for ω below 6.25,
/// Q(√ω − centre) above (coefficients as in `super::horner_dd`).
const CENTRAL: [(f64, f64, [f64; 18]); 3] = [
    (
        1.5,
        0.75,
        [
            0.0,
            0.0,
            -1.6382964687507948e-12,
            1.8440659859398347e-12,
            7.099355131088015e-11,
            -1.9593127612206932e-10,
            -2.78001856689426e-09,
            1.3417679239981914e-08,
            1.0031290380564602e-07,
            -7.906310493925401e-07,
            -3.0827869127338786e-06,
            4.3770081093484036e-05,
            4.8702729573607144e-05,
            -0.0024513632610712846,
            0.0060643252247567815,
            0.24525645884395372,
            1.0657193290126996,
            6.535755892018099e-17,
        ],
    ),
    (
        3.5,
        2.5,
        [
            0.0,
            -6.918004798177857e-14,
            5.237160212680187e-13,
            9.009970653811635e-13,
            -3.108428614823591e-11,
            1.1961569732057802e-10,
            9.072891324987846e-10,
            -1.0861173582521399e-08,
            1.3416809940955462e-08,
            4.787252205623435e-07,
            -3.4166195979816704e-06,
            -4.99607959961983e-06,
            0.00021825026434422044,
            -0.0012527079078108615,
            -0.00417731772438363,
            0.246640276744167,
            1.501409351110792,
            -6.515399129749711e-17,
        ],
    ),
    (
        6.25,
        4.875,
        [
            -7.979175293107114e-16,
            6.211634383713645e-15,
            -3.1271914100763037e-15,
            -3.727161915574308e-13,
            3.977075872731801e-12,
            -1.5282753407347617e-11,
            -1.1420280625413833e-10,
            2.215946160010744e-09,
            -1.5117139638009754e-08,
            6.004122902087607e-09,
            9.806408294063689e-07,
            -1.1204306242175729e-05,
            5.9509218025132937e-05,
            0.00010258711578263215,
            -0.007308534444927838,
            0.21552436956108736,
            2.0529861959675033,
            7.16688847616976e-17,
        ],
    ),
];

const TAIL: [(f64, f64, [f64; 19]); 3] = [
    (
        3.5,
        3.0,
        [
            -1.0781983492587302e-08,
            1.343357652475194e-08,
            3.7325304320846666e-08,
            -1.571789633194738e-07,
            1.9042838790082842e-07,
            3.783263899706807e-07,
            -2.012079330377581e-06,
            3.1486355021256904e-06,
            2.55121254763736e-06,
            -2.408810284943071e-05,
            5.585722399611574e-05,
            -3.657324248763932e-05,
            -0.00022121694006611676,
            0.001142436270335606,
            -0.003445030040562578,
            0.006843688661765562,
            1.0026623825719172,
            2.832801984778809,
            -1.5121543427516894e-16,
        ],
    ),
    (
        4.5,
        4.0,
        [
            0.0,
            0.0,
            -1.2873602867651649e-09,
            1.703191541895829e-09,
            4.232521455319186e-09,
            -2.7261472768912323e-08,
            8.407230775083143e-08,
            -1.7052855408449858e-07,
            1.56957273500734e-07,
            5.857886719342336e-07,
            -4.5792938860588235e-06,
            2.1340590766091156e-05,
            -8.433749446005274e-05,
            0.00029527738638128557,
            -0.0008540437576790033,
            0.0012536038929785041,
            1.0094949248867318,
            3.839783581356177,
            1.6759797287688788e-16,
        ],
    ),
    (
        6.125,
        5.3125,
        [
            0.0,
            -1.489954456590809e-12,
            3.6037930985352805e-12,
            -2.3499706284535028e-12,
            -1.010225385203329e-11,
            9.945058845054082e-11,
            -6.576861833339784e-10,
            3.84325793852486e-09,
            -2.129207908158613e-08,
            1.1363139356075728e-07,
            -5.831901981330555e-07,
            2.8474733758996103e-06,
            -1.2903746237623337e-05,
            5.094321852571529e-05,
            -0.000136791454285602,
            -0.00030119737605666157,
            1.010159181410733,
            5.165605857706949,
            -3.4540693705785193e-16,
        ],
    ),
];

/// 2^-26: below it erf⁻¹(w) = (√π/2)(w + (π/12) w³) to 2^-104.
const TINY: f64 = 1.490_116_119_384_765_6e-8;
/// √π/2 as a double-double, and π/12.
const SQRT_PI_2_HI: f64 = 0.886_226_925_452_758;
const SQRT_PI_2_LO: f64 = -3.833_293_249_912_899_3e-17;
const PI_12: f64 = 0.261_799_387_799_149_46;

/// Evaluates the piece of `table` whose interval holds `v + lo` (`lo` a correction below an ULP
/// of `v`, added to the exact `v − centre`).
#[inline]
fn piece<const N: usize>(table: &[(f64, f64, [f64; N])], v: f64, lo: f64) -> (f64, f64) {
    let last = table.len() - 1;
    let (_, c, coeffs) = table.iter().find(|t| v < t.0).unwrap_or(&table[last]);
    super::horner_dd(coeffs, (v - c) + lo)
}

/// The inverse error function erf⁻¹(y) (the x with erf x = y), CHLO `chlo.erf_inv`: piecewise
/// polynomials in ω = −ln(1 − y²) and √ω (see the module documentation). ±1 → ±inf, |y| > 1 →
/// NaN. Measured ≤ 1 ULP (0.92) in f64.
pub fn erf_inv(y: f64) -> f64 {
    let w = y.abs();
    if w >= 1.0 || w.is_nan() {
        return if w == 1.0 {
            f64::INFINITY.copysign(y)
        } else {
            f64::NAN
        };
    }
    if w < TINY {
        // erf⁻¹(w) = (√π/2)(w + (π/12) w³ + …), the constant as a double-double.
        let t = w.mul_add(SQRT_PI_2_LO, (w * SQRT_PI_2_HI) * (PI_12 * w * w));
        return w.mul_add(SQRT_PI_2_HI, t).copysign(y);
    }
    // ω = −ln(1 − w²) from the exact double-double 1 − w² = h + l (1 − w is exact for w ≥ ½):
    // ln h + l/h, or log1p(−w²) with its low part to first order.
    let omega = if w < 0.5 {
        let (p, pe) = two_prod(w, w);
        pe / (1.0 - p) - (-p).ln_1p()
    } else {
        let (ph, pl) = two_sum(1.0, w);
        let m = 1.0 - w;
        let (qh, ql) = two_prod(m, ph);
        -(qh.ln() + (ql + m * pl) / qh)
    };
    evaluate(y, w, omega)
}

/// erf⁻¹ from w = |y| ≥ 2^-26 and ω = −ln(1 − w²).
#[inline]
fn evaluate(y: f64, w: f64, omega: f64) -> f64 {
    let r = if omega < 6.25 {
        let (ph, pl) = piece(&CENTRAL, omega, 0.0);
        w.mul_add(ph, w * pl)
    } else {
        // √ω with its rounding error (√ω lies a binade above erf⁻¹ w from ω = 16 on, where
        // that error alone would be an ULP of the result).
        let s = omega.sqrt();
        let (qh, ql) = piece(&TAIL, s, (-s).mul_add(s, omega) / (2.0 * s));
        qh + ql
    };
    r.copysign(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64).abs_diff(b.to_bits() as i64)
    }

    #[test]
    fn special_values() {
        assert_eq!(erf_inv(0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(erf_inv(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(erf_inv(1.0), f64::INFINITY);
        assert_eq!(erf_inv(-1.0), f64::NEG_INFINITY);
        for y in [1.0000001, -2.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            assert!(erf_inv(y).is_nan(), "{y}");
        }
        // Tiny and subnormal inputs (mpmath): erf⁻¹(y) ≈ y √π/2, correctly rounded.
        assert_eq!(erf_inv(1e-300), 8.86226925452758e-301);
        assert_eq!(erf_inv(-1e-9), -8.86226925452758e-10);
        assert_eq!(erf_inv(5e-324), 5e-324); // 0.886 × 2^-1074 rounds back to 2^-1074
    }

    #[test]
    fn values_from_mpmath() {
        // mpmath 1.3.0 erfinv at 40 digits, rounded to f64.
        let cases = [
            (0.5, 0.4769362762044699),
            (-0.25, -0.2253120550121781),
            (0.9, 1.1630871536766743),
            (0.001, 0.0008862271574665521),
            (0.999, 2.3267537655135246),
            (0.99999, 3.123413274341571),
            (1.0 - 1e-12, 5.042031898572696),
            (1.0 - f64::EPSILON / 2.0, 5.8635847487551676),
        ];
        for (y, want) in cases {
            let got = erf_inv(y);
            assert!(ulps(got, want) <= 1, "erfinv({y}) = {got:e}, want {want:e}");
        }
    }

    #[test]
    fn inverts_erf() {
        // erf(erf⁻¹(y)) = y up to erf's own rounding and the slope of erf.
        for i in 1..2000 {
            let y = i as f64 / 2000.0;
            let x = erf_inv(y);
            let back = libm::erf(x);
            let slope = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
            assert!(
                (back - y).abs() <= 2e-16 + 4e-16 * x * slope,
                "{y}: {x:e} -> {back:e}"
            );
            assert_eq!(erf_inv(-y).to_bits(), (-x).to_bits());
        }
    }
}
