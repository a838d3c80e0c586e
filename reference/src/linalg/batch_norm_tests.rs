//! batch-norm-{training, inference, grad} against the seed's formulas evaluated independently at
//! 1000 bits (rug `Float`, feature_index not last), non-finite features, layouts, errors.

#![allow(clippy::needless_range_loop)] // index arithmetic mirrors the formulas

use super::super::test_util::*;
use crate::round::round_exact;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;
use rug::Float;

const PREC: u32 = 1000;

fn fl(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// x [2,3,4] with feature_index=1: feature l holds x[a, l, c].
fn feature_of(o: usize) -> usize {
    (o / 4) % 3
}

fn inputs(seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut g = Gen(seed);
    let x = (0..24).map(|_| g.unit() * 4.0).collect();
    let gamma = (0..3).map(|_| g.unit() + 1.5).collect();
    let beta = (0..3).map(|_| g.unit()).collect();
    (x, gamma, beta)
}

fn stats(x: &[f64], l: usize) -> (Float, Float) {
    let xs: Vec<f64> = (0..24)
        .filter(|&o| feature_of(o) == l)
        .map(|o| x[o])
        .collect();
    let n = xs.len() as u32;
    let mu = xs.iter().fold(fl(0.0), |a, &v| a + v) / n;
    let var = xs.iter().fold(fl(0.0), |a, &v| a + (fl(v) - &mu).square()) / n;
    (mu, var)
}

#[test]
fn training_matches_the_formulas() {
    for (ty, fmt) in [("f32", FloatFormat::F32), ("f64", FloatFormat::F64)] {
        let (x, gamma, beta) = inputs(11);
        let xs = format!("{ty}[2,3,4]");
        let fs = format!("{ty}[3]");
        let hlo = module_text(
            &[&xs, &fs, &fs],
            &format!("({xs}, {fs}, {fs}) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1"),
        );
        let got =
            leaves(&run(&hlo, &[real(&xs, &x), real(&fs, &gamma), real(&fs, &beta)]).unwrap());
        let eps = fl(0.001f32 as f64);
        for l in 0..3 {
            let (mu, var) = stats(&x, l);
            assert_eq!(got[1][l] as u64, round_exact(fmt, &mu), "{ty} mean {l}");
            assert_eq!(got[2][l] as u64, round_exact(fmt, &var), "{ty} var {l}");
            let r = Float::with_val(PREC, &var + &eps).sqrt().recip();
            for o in (0..24).filter(|&o| feature_of(o) == l) {
                let y = (fl(x[o]) - &mu) * fl(gamma[l]) * &r + fl(beta[l]);
                assert_eq!(got[0][o] as u64, round_exact(fmt, &y), "{ty} y {o}");
            }
        }
    }
}

#[test]
fn inference_matches_the_formula_and_layout_is_free() {
    let (x, gamma, beta) = inputs(12);
    let mean = [0.25, -1.0, 0.5];
    let var = [1.0, 0.0, 2.5];
    let run_with = |layout: &str| {
        let hlo = module_text(
            &["f32[2,3,4]{0,1,2}", "f32[3]", "f32[3]", "f32[3]", "f32[3]"],
            &format!("f32[2,3,4]{layout} batch-norm-inference(p0, p1, p2, p3, p4), epsilon=1e-05, feature_index=1"),
        );
        let args = [
            real("f32[2,3,4]{0,1,2}", &x),
            real("f32[3]", &gamma),
            real("f32[3]", &beta),
            real("f32[3]", &mean),
            real("f32[3]", &var),
        ];
        bits_of(&run(&hlo, &args).unwrap())
    };
    let got = run_with("{2,1,0}");
    assert_eq!(got, run_with("{0,2,1}"));
    let eps = fl(1e-05f32 as f64);
    for o in 0..24 {
        let l = feature_of(o);
        let r = (fl(var[l]) + &eps).sqrt().recip();
        let y = (fl(x[o]) - mean[l]) * fl(gamma[l]) * &r + fl(beta[l]);
        assert_eq!(got[o] as u64, round_exact(FloatFormat::F32, &y), "y {o}");
    }
}

#[test]
fn grad_matches_the_formulas() {
    let (x, gamma, _) = inputs(13);
    let mut g = Gen(14);
    let dy: Vec<f64> = (0..24).map(|_| g.unit()).collect();
    let mean = [0.25, -0.5, 0.125];
    let var = [1.5, 0.75, 2.0];
    let hlo = module_text(
        &["f64[2,3,4]", "f64[3]", "f64[3]", "f64[3]", "f64[2,3,4]"],
        "(f64[2,3,4], f64[3], f64[3]) batch-norm-grad(p0, p1, p2, p3, p4), epsilon=0.001, feature_index=1",
    );
    let args = [
        real("f64[2,3,4]", &x),
        real("f64[3]", &gamma),
        real("f64[3]", &mean),
        real("f64[3]", &var),
        real("f64[2,3,4]", &dy),
    ];
    let got = leaves(&run(&hlo, &args).unwrap());
    let fmt = FloatFormat::F64;
    let eps = fl(0.001f32 as f64);
    for l in 0..3 {
        let idx: Vec<usize> = (0..24).filter(|&o| feature_of(o) == l).collect();
        let n = idx.len() as u32;
        let s = fl(var[l]) + &eps;
        let r = Float::with_val(PREC, s.sqrt_ref()).recip();
        let p = idx
            .iter()
            .fold(fl(0.0), |a, &o| a + fl(dy[o]) * (fl(x[o]) - mean[l]));
        let c = Float::with_val(PREC, &p / n) / &s;
        let d = idx.iter().fold(fl(0.0), |a, &o| a + dy[o]) / n;
        assert_eq!(
            got[1][l] as u64,
            round_exact(fmt, &(p.clone() * &r)),
            "dgamma {l}"
        );
        let dbeta = idx.iter().fold(fl(0.0), |a, &o| a + dy[o]);
        assert_eq!(got[2][l] as u64, round_exact(fmt, &dbeta), "dbeta {l}");
        for &o in &idx {
            let inner = fl(dy[o]) - &d - Float::with_val(PREC, &c * (fl(x[o]) - mean[l]));
            let dx = inner * fl(gamma[l]) * &r;
            assert_eq!(got[0][o] as u64, round_exact(fmt, &dx), "dx {o}");
        }
    }
}

#[test]
fn non_finite_features_are_nan_and_errors_are_reported() {
    let (mut x, gamma, beta) = inputs(15);
    x[5] = f64::INFINITY; // feature 1
    let hlo = module_text(
        &["f32[2,3,4]", "f32[3]", "f32[3]"],
        "(f32[2,3,4], f32[3], f32[3]) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1",
    );
    let args = [
        real("f32[2,3,4]", &x),
        real("f32[3]", &gamma),
        real("f32[3]", &beta),
    ];
    let got = leaves(&run(&hlo, &args).unwrap());
    let is_nan = |b: u128| f32::from_bits(b as u32).is_nan();
    for o in 0..24 {
        assert_eq!(is_nan(got[0][o]), feature_of(o) == 1, "{o}");
    }
    assert!(is_nan(got[1][1]) && is_nan(got[2][1]) && !is_nan(got[1][0]));
    // feature_index out of range; wrong scale size; unsupported type.
    let bad = module_text(
        &["f32[2,3,4]", "f32[3]", "f32[3]"],
        "(f32[2,3,4], f32[3], f32[3]) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=3",
    );
    assert!(matches!(run(&bad, &args), Err(BackendError::Invalid(_))));
    let bad = module_text(
        &["f32[2,3,4]", "f32[4]", "f32[4]"],
        "(f32[2,3,4], f32[4], f32[4]) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1",
    );
    let args4 = [
        real("f32[2,3,4]", &x),
        real("f32[4]", &[1.0; 4]),
        real("f32[4]", &[0.0; 4]),
    ];
    assert!(matches!(run(&bad, &args4), Err(BackendError::Invalid(_))));
    let bad = module_text(
        &["f16[2]", "f16[2]", "f16[2]"],
        "(f16[2], f16[2], f16[2]) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=0",
    );
    let h = [
        real("f16[2]", &[1.0, 2.0]),
        real("f16[2]", &[1.0, 1.0]),
        real("f16[2]", &[0.0, 0.0]),
    ];
    assert!(matches!(run(&bad, &h), Err(BackendError::Unsupported(_))));
}
