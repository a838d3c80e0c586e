//! error_scales: values on small cases worked by hand, masks, and `None` for other roots.

#![allow(clippy::needless_range_loop)] // index arithmetic mirrors the formulas

use super::super::test_util::*;
use super::{error_scales, ErrorScale};

fn scales(
    params: &[&str],
    root: &str,
    args: &[conformance_spec::literal::Literal],
) -> Vec<Vec<ErrorScale>> {
    error_scales(&module(params, root), args)
        .unwrap()
        .expect("a linalg root")
}

#[test]
fn other_roots_give_none() {
    let m = module(&["f32[2]"], "f32[2] negate(p0)");
    assert!(error_scales(&m, &[real("f32[2]", &[1.0, 2.0])])
        .unwrap()
        .is_none());
}

#[test]
fn fft_scale_is_the_block_norm() {
    // FFT of a unit impulse of length 4: y = ones, ‖y‖₂ = 2 = √4·1.
    let s = scales(
        &["c64[2,4]"],
        "c64[2,4] fft(p0), fft_type=FFT, fft_length={4}",
        &[complex(
            "c64[2,4]",
            &[
                (1.0, 0.0),
                (0.0, 0.0),
                (0.0, 0.0),
                (0.0, 0.0),
                (f64::NAN, 0.0),
                (0.0, 0.0),
                (0.0, 0.0),
                (0.0, 0.0),
            ],
        )],
    );
    assert_eq!(s[0].len(), 8);
    assert_eq!(
        (s[0][0].n, s[0][0].kappa, s[0][0].scale, s[0][0].masked),
        (4, 1.0, 2.0, false)
    );
    assert!(s[0][4..].iter().all(|e| e.masked));
    // IFFT of ones: y = e₀, ‖y‖₂ = 1 = ‖x‖₂/√N.
    let s = scales(
        &["c64[4]"],
        "c64[4] fft(p0), fft_type=IFFT, fft_length={4}",
        &[complex("c64[4]", &[(1.0, 0.0); 4])],
    );
    assert_eq!(s[0][3].scale, 1.0);
    // IRFFT of z = (4, 0, 0) (n = 4): y = ones, ‖y‖₂ = 2 ≤ bound √(Σω|z|²/N) = √(16/4) = 2.
    let s = scales(
        &["c64[3]"],
        "f32[4] fft(p0), fft_type=IRFFT, fft_length={4}",
        &[complex("c64[3]", &[(4.0, 0.0), (0.0, 0.0), (0.0, 0.0)])],
    );
    assert_eq!((s[0].len(), s[0][0].scale), (4, 2.0));
}

#[test]
fn triangular_solve_condition_and_scale() {
    // S = diag(2, 4): κ∞ = 4·½ = 2; b = (1, 8): scale = ½·8 = 4.
    let s = scales(
        &["f64[2,2]", "f64[2,1]"],
        "f64[2,1] triangular-solve(p0, p1), left_side=true, lower=true",
        &[
            real("f64[2,2]", &[2.0, 0.0, 0.0, 4.0]),
            real("f64[2,1]", &[1.0, 8.0]),
        ],
    );
    assert_eq!(
        s[0][0],
        ErrorScale {
            n: 2,
            kappa: 2.0,
            scale: 4.0,
            masked: false
        }
    );
    // Singular: masked with κ = inf.
    let s = scales(
        &["f64[2,2]", "f64[2,1]"],
        "f64[2,1] triangular-solve(p0, p1), left_side=true, lower=true",
        &[
            real("f64[2,2]", &[0.0, 0.0, 1.0, 4.0]),
            real("f64[2,1]", &[1.0, 8.0]),
        ],
    );
    assert!(s[0].iter().all(|e| e.masked && e.kappa.is_infinite()));
}

#[test]
fn cholesky_condition_scale_and_masks() {
    // A = [[4, 2], [2, 5]]: ‖A‖_F = 7, A⁻¹ = [[5, −2], [−2, 4]]/16, ‖A⁻¹‖_F = 7/16;
    // ‖L‖_F = √trace = 3.
    let s = scales(
        &["f64[2,2]"],
        "f64[2,2] cholesky(p0), lower=true",
        &[real("f64[2,2]", &[4.0, 0.0, 2.0, 5.0])],
    );
    assert_eq!(
        s[0][0],
        ErrorScale {
            n: 2,
            kappa: 49.0 / 16.0,
            scale: 3.0,
            masked: false
        }
    );
    assert!(s[0][1].masked && !s[0][2].masked && !s[0][3].masked);
    let s = scales(
        &["f64[2,2]"],
        "f64[2,2] cholesky(p0), lower=true",
        &[real("f64[2,2]", &[1.0, 0.0, 2.0, 1.0])],
    );
    assert!(s[0].iter().all(|e| e.masked));
}

#[test]
fn batch_norm_scales_and_masks() {
    // Feature 0: x = (1, 3): μ = 2, σ² = 1; M1 = 2 → var scale (seed 004's two-pass formula)
    // V = σ² + N·u·M1² = 1 + 2·2⁻²⁴·4 = 1 + 2⁻²¹.
    // Feature 1 holds NaN: masked.
    let s = scales(
        &["f32[2,2]", "f32[2]", "f32[2]"],
        "(f32[2,2], f32[2], f32[2]) batch-norm-training(p0, p1, p2), epsilon=0, feature_index=1",
        &[
            real("f32[2,2]", &[1.0, f64::NAN, 3.0, 0.0]),
            real("f32[2]", &[1.0, 1.0]),
            real("f32[2]", &[0.0, 0.0]),
        ],
    );
    assert_eq!(s.len(), 3);
    assert_eq!(
        s[1][0],
        ErrorScale {
            n: 2,
            kappa: 1.0,
            scale: 2.0,
            masked: false
        }
    );
    let v = 1.0 + 2f64.powi(-21);
    assert_eq!(s[2][0].scale, v);
    assert!(s[0][1].masked && s[0][3].masked && s[1][1].masked && s[2][1].masked);
    // y at x = 1: |γ|r·M1 + ½|γ|X·r³·V + |γ|r·X + |β| = 2 + ½·3·V + 3.
    assert_eq!(s[0][0].scale, 5.0 + 1.5 * v);
    // Inference: n = 1; zero variance with epsilon 0 → masked.
    let s = scales(
        &["f32[2]", "f32[2]", "f32[2]", "f32[2]", "f32[2]"],
        "f32[2] batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0, feature_index=0",
        &[
            real("f32[2]", &[1.0, 1.0]),
            real("f32[2]", &[1.0, 1.0]),
            real("f32[2]", &[0.0, 0.0]),
            real("f32[2]", &[0.0, 0.0]),
            real("f32[2]", &[4.0, 0.0]),
        ],
    );
    // x = 1, μ = 0, v = 4: ½·1·(1/8)·4 + ½·1 = 0.75.
    assert_eq!(
        s[0][0],
        ErrorScale {
            n: 1,
            kappa: 1.0,
            scale: 0.75,
            masked: false
        }
    );
    assert!(s[0][1].masked);
}
