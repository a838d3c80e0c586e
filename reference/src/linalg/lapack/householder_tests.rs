//! geqrf and orgqr: LAPACK's known answers (diag R, tau ∈ [1, 2], the last tau of a square
//! matrix 0), orgqr of geqrf's output orthonormal with Q·R = A, exact small reflector products
//! (real and complex), the R-diagonal sign gauge, non-finite inputs, scales.

#![allow(clippy::needless_range_loop)]

use super::super::{aligned, Evaluation};
use crate::linalg::test_util::*;
use conformance_spec::literal::{ArrayLiteral, Literal};

fn geqrf_root(ty: &str, m: usize, n: usize) -> String {
    let k = m.min(n);
    let letter = if ty == "f32" { 's' } else { 'd' };
    format!(
        "({ty}[{m},{n}]{{0,1}}, {ty}[{k}]{{0}}) custom-call(p0), custom_call_target=\"lapack_{letter}geqrf_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{}}"
    )
}

fn geqrf(ty: &str, m: usize, n: usize, a: &[f64], got: Option<&Literal>) -> Evaluation {
    let md = module(&[&format!("{ty}[{m},{n}]{{0,1}}")], &geqrf_root(ty, m, n));
    let arg = real(&format!("{ty}[{m},{n}]"), a);
    aligned(&md, &[arg], got).unwrap().unwrap()
}

fn orgqr(ty: &str, m: usize, n: usize, k: usize, qr: &Literal, tau: &Literal) -> Evaluation {
    let letter = match ty {
        "f32" => 's',
        "f64" => 'd',
        "c64" => 'c',
        _ => 'z',
    };
    let name = if ty.starts_with('c') {
        "ungqr"
    } else {
        "orgqr"
    };
    let root = format!(
        "{ty}[{m},{n}]{{0,1}} custom-call(p0, p1), custom_call_target=\"lapack_{letter}{name}_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{}}"
    );
    let md = module(
        &[&format!("{ty}[{m},{n}]{{0,1}}"), &format!("{ty}[{k}]{{0}}")],
        &root,
    );
    aligned(&md, &[qr.clone(), tau.clone()], None)
        .unwrap()
        .unwrap()
}

fn f64s(l: &Literal) -> Vec<f64> {
    l.as_array().unwrap().to_f64s().unwrap()
}

fn tuple(l: &Literal) -> Vec<Literal> {
    match l {
        Literal::Tuple(p) => p.clone(),
        other => vec![other.clone()],
    }
}

#[test]
fn lapack_known_answer_3x2() {
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let e = geqrf("f64", 3, 2, &a, None);
    let parts = tuple(&e.result);
    let qr = f64s(&parts[0]);
    let tau = f64s(&parts[1]);
    assert!((qr[0] + 35f64.sqrt()).abs() < 1e-15, "{qr:?}");
    assert!((qr[3] - 0.828078671210825).abs() < 1e-14, "{qr:?}");
    for t in &tau {
        assert!((1.0..=2.0).contains(t), "{tau:?}");
    }
    // tau_1 = (β − α)/β with α = 1, β = −√35.
    assert_eq!(tau[0], (-(35f64.sqrt()) - 1.0) / -(35f64.sqrt()));
    // v_1 = x/(α − β).
    assert!((qr[2] - 3.0 / (1.0 + 35f64.sqrt())).abs() < 1e-16);
    // Scales: R entries scale ‖A‖_F, reflectors and tau 2, κ finite.
    assert_eq!(e.scales.len(), 2);
    assert_eq!(e.scales[0][0].n, 48);
    assert!((e.scales[0][0].scale - 91f64.sqrt()).abs() < 1e-12);
    assert_eq!(e.scales[0][2].scale, 2.0);
    assert!(e.scales[1][0].kappa.is_finite() && e.scales[1][0].kappa > 1.0);
}

#[test]
fn square_last_tau_is_zero_and_zero_columns_keep_alpha() {
    let e = geqrf("f32", 2, 2, &[4.0, 1.0, 3.0, 2.0], None);
    let parts = tuple(&e.result);
    let tau = f64s(&parts[1]);
    assert_eq!(tau[1], 0.0);
    assert!((f64s(&parts[0])[0] + 5.0).abs() < 1e-6);
    // An upper triangular matrix: nothing to annihilate, every tau 0, R = A (exactly).
    let e = geqrf(
        "f64",
        3,
        3,
        &[-2.0, 1.0, 3.0, 0.0, 5.0, 1.0, 0.0, 0.0, 7.0],
        None,
    );
    let parts = tuple(&e.result);
    assert_eq!(f64s(&parts[1]), vec![0.0; 3]);
    assert_eq!(
        f64s(&parts[0]),
        vec![-2.0, 1.0, 3.0, 0.0, 5.0, 1.0, 0.0, 0.0, 7.0]
    );
}

fn check_qr(ty: &str, m: usize, n: usize, a: &[f64], got: Option<&Literal>, tol: f64) -> Vec<f64> {
    let e = geqrf(ty, m, n, a, got);
    let parts = tuple(&e.result);
    let k = m.min(n);
    // orgqr needs n ≤ m: use the first k columns of the reflectors.
    let qr = f64s(&parts[0]);
    let refl: Vec<f64> = (0..m)
        .flat_map(|i| (0..k).map(move |j| (i, j)))
        .map(|(i, j)| qr[i * n + j])
        .collect();
    let q = orgqr(
        ty,
        m,
        k,
        k,
        &real(&format!("{ty}[{m},{k}]"), &refl),
        &parts[1],
    );
    let q = f64s(&q.result);
    for c in 0..k {
        for d in 0..k {
            let dot: f64 = (0..m).map(|i| q[i * k + c] * q[i * k + d]).sum();
            let want = if c == d { 1.0 } else { 0.0 };
            assert!((dot - want).abs() < tol, "QᵀQ[{c}][{d}] = {dot}");
        }
    }
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k.min(j + 1))
                .map(|l| q[i * k + l] * qr[l * n + j])
                .sum();
            assert!((s - a[i * n + j]).abs() < tol * 10.0, "QR[{i}][{j}] = {s}");
        }
    }
    qr
}

#[test]
fn orgqr_of_geqrf_is_orthonormal_and_reconstructs() {
    let mut g = Gen(7);
    for (m, n) in [(5, 5), (6, 4), (4, 6), (3, 1)] {
        let a: Vec<f64> = (0..m * n).map(|_| g.unit()).collect();
        check_qr("f64", m, n, &a, None, 1e-14);
        check_qr("f32", m, n, &a, None, 1e-5);
    }
}

#[test]
fn gauge_takes_the_backends_diagonal_signs() {
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let canonical = geqrf("f64", 3, 2, &a, None);
    let parts = tuple(&canonical.result);
    let mut bits = leaves(&canonical.result);
    // The backend chose R_00 > 0 (flip its sign bit), kept R_11.
    bits[0][0] ^= 1u128 << 63;
    let shapes = canonical.result.shape();
    let leaves_s = shapes.array_leaves();
    let got = Literal::Tuple(vec![
        Literal::Array(ArrayLiteral::from_bits(leaves_s[0].clone(), &bits[0]).unwrap()),
        parts[1].clone(),
    ]);
    let qr = check_qr("f64", 3, 2, &a, Some(&got), 1e-14);
    assert!((qr[0] - 35f64.sqrt()).abs() < 1e-14);
    let canon = f64s(&parts[0]);
    // Row 0 of R changes sign; |R_11| is unique.
    assert!((qr[1] + canon[1]).abs() < 1e-14);
    assert!((qr[3].abs() - canon[3].abs()).abs() < 1e-14);
    let e = geqrf("f64", 3, 2, &a, Some(&got));
    let tau = f64s(&tuple(&e.result)[1]);
    // tau = (β − α)/β with β = +√35: 1 − 1/√35.
    assert!((tau[0] - (1.0 - 1.0 / 35f64.sqrt())).abs() < 1e-15);
}

#[test]
fn non_finite_input_is_masked() {
    let e = geqrf("f64", 2, 2, &[1.0, f64::NAN, 3.0, 4.0], None);
    let qr = f64s(&tuple(&e.result)[0]);
    assert!(qr.iter().all(|x| x.is_nan()));
    assert!(e.scales.iter().flatten().all(|s| s.masked));
}

#[test]
fn orgqr_exact_reflector_products() {
    // One reflector v = (1, 1), tau = 1: H = I − v·vᵀ = [[0, −1], [−1, 0]].
    let q = orgqr(
        "f32",
        2,
        2,
        1,
        &real("f32[2,2]", &[9.0, 9.0, 1.0, 9.0]),
        &real("f32[1]", &[1.0]),
    );
    assert_eq!(f64s(&q.result), vec![0.0, -1.0, -1.0, 0.0]);
    assert_eq!(q.scales[0][0].n, 16);
    assert_eq!(q.scales[0][0].kappa, 1.0);
    assert_eq!(q.scales[0][0].scale, 3.0);
    // Complex: v = (1, i), tau = 1: H = [[0, i], [−i, 0]].
    let q = orgqr(
        "c128",
        2,
        2,
        1,
        &complex(
            "c128[2,2]",
            &[(5.0, 5.0), (5.0, 5.0), (0.0, 1.0), (5.0, 5.0)],
        ),
        &complex("c128[1]", &[(1.0, 0.0)]),
    );
    let bits = leaves(&q.result);
    let want = [(0.0, 0.0), (0.0, 1.0), (0.0, -1.0), (0.0, 0.0)];
    for (b, (re, im)) in bits[0].iter().zip(want) {
        assert_eq!(
            *b,
            (u128::from(f64::to_bits(im)) << 64) | u128::from(f64::to_bits(re))
        );
    }
    // Two reflectors on 3 rows, m > n: the product in exact arithmetic, rounded once.
    let (t1, t2) = (1.5, 1.25);
    let (v1, v2) = ([1.0, 0.5, -0.25], [0.0, 1.0, 0.75]);
    let q = orgqr(
        "f64",
        3,
        2,
        2,
        &real("f64[3,2]", &[0.0, 0.0, 0.5, 0.0, -0.25, 0.75]),
        &real("f64[2]", &[t1, t2]),
    );
    let h = |v: &[f64; 3], t: f64| -> Vec<f64> {
        (0..9)
            .map(|e| f64::from(u8::from(e / 3 == e % 3)) - t * v[e / 3] * v[e % 3])
            .collect()
    };
    let (h1, h2) = (h(&v1, t1), h(&v2, t2));
    let got = f64s(&q.result);
    for i in 0..3 {
        for j in 0..2 {
            let p: f64 = (0..3).map(|l| h1[i * 3 + l] * h2[l * 3 + j]).sum();
            assert_eq!(got[i * 2 + j], p, "({i}, {j})");
        }
    }
    // Non-finite tau: masked.
    let q = orgqr(
        "f64",
        2,
        2,
        1,
        &real("f64[2,2]", &[0.0, 0.0, 1.0, 0.0]),
        &real("f64[1]", &[f64::INFINITY]),
    );
    assert!(q.scales[0].iter().all(|s| s.masked));
}

fn cvalues(l: &Literal) -> Vec<(f64, f64)> {
    leaves(l)[0]
        .iter()
        .map(|&b| (f64::from_bits(b as u64), f64::from_bits((b >> 64) as u64)))
        .collect()
}

fn cmul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

#[test]
fn complex_geqrf_known_answer_and_reconstruction() {
    let geqrf_c = |m: usize, n: usize, a: &[(f64, f64)]| {
        let md = module(
            &[&format!("c128[{m},{n}]{{0,1}}")],
            &format!(
                "(c128[{m},{n}]{{0,1}}, c128[{}]{{0}}) custom-call(p0), custom_call_target=\"lapack_zgeqrf_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{}}",
                m.min(n)
            ),
        );
        aligned(&md, &[complex(&format!("c128[{m},{n}]"), a)], None)
            .unwrap()
            .unwrap()
    };
    // [[i], [0]]: x = 0 but Im α ≠ 0: β = −1, τ = 1 + i, R = −1.
    let e = geqrf_c(2, 1, &[(0.0, 1.0), (0.0, 0.0)]);
    let parts = tuple(&e.result);
    assert_eq!(cvalues(&parts[0]), vec![(-1.0, 0.0), (0.0, 0.0)]);
    assert_eq!(cvalues(&parts[1]), vec![(1.0, 1.0)]);
    // A random 4×3: ungqr of the reflectors, Q·R = A, QᴴQ = I, diag R real.
    let mut g = Gen(3);
    let (m, n) = (4, 3);
    let a: Vec<(f64, f64)> = (0..m * n).map(|_| (g.unit(), g.unit())).collect();
    let e = geqrf_c(m, n, &a);
    let parts = tuple(&e.result);
    let q = orgqr("c128", m, n, n, &parts[0], &parts[1]);
    let (q, r) = (cvalues(&q.result), cvalues(&parts[0]));
    for j in 0..n {
        assert_eq!(r[j * n + j].1, 0.0);
        for i in 0..m {
            let mut s = (0.0, 0.0);
            for l in 0..=j {
                let p = cmul(q[i * n + l], r[l * n + j]);
                s = (s.0 + p.0, s.1 + p.1);
            }
            let d = (s.0 - a[i * n + j].0, s.1 - a[i * n + j].1);
            assert!(d.0.abs() < 1e-14 && d.1.abs() < 1e-14, "({i}, {j}): {s:?}");
        }
        for c in 0..n {
            let mut s = (0.0, 0.0);
            for i in 0..m {
                let x = q[i * n + j];
                let p = cmul((x.0, -x.1), q[i * n + c]);
                s = (s.0 + p.0, s.1 + p.1);
            }
            let want = if c == j { 1.0 } else { 0.0 };
            assert!((s.0 - want).abs() < 1e-14 && s.1.abs() < 1e-14);
        }
    }
    assert!(e.scales[0][0].kappa.is_finite());
}

/// The all-ones Hermitian 2×2 has eigenvalues 0 and 2 in the complex path too.
#[test]
fn complex_eigen_of_the_all_ones_matrix() {
    let md = module(
        &["c64[2,2]{0,1}"],
        "(c64[2,2]{0,1}, f32[2]{0}, s32[]) custom-call(p0), custom_call_target=\"lapack_cheevd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 76 : ui8}",
    );
    let arg = complex("c64[2,2]", &[(1.0, 0.0); 4]);
    let e = aligned(&md, &[arg], None).unwrap().unwrap();
    let w = &leaves(&e.result)[1];
    assert_eq!(w, &vec![0f32.to_bits() as u128, 2f32.to_bits() as u128]);
}

/// `got` = the evaluation's result with the sign of `qr[i][j]` flipped.
fn flipped(e: &Evaluation, index: usize, f32: bool) -> Literal {
    let parts = tuple(&e.result);
    let mut bits = leaves(&e.result);
    bits[0][index] ^= if f32 { 1u128 << 31 } else { 1u128 << 63 };
    let shape = e.result.shape();
    let leaf = shape.array_leaves()[0].clone();
    Literal::Tuple(vec![
        Literal::Array(ArrayLiteral::from_bits(leaf, &bits[0]).unwrap()),
        parts[1].clone(),
    ])
}

/// Seed 1, cases 7008 (c64) and 2014 (f32): where rounding decides between `H = I` and a
/// reflection, the backend's choice is adopted.
#[test]
fn rounding_level_reflections_follow_the_backend() {
    // x = 0 at the last step of a square matrix: LAPACK's τ = 0, R_11 = α; a backend that saw
    // rounding noise reflects: R_11 = −α, τ = 2.
    let a = [4.0, 1.0, 3.0, 2.0];
    let canonical = geqrf("f64", 2, 2, &a, None);
    let c = f64s(&tuple(&canonical.result)[0]);
    let e = geqrf("f64", 2, 2, &a, Some(&flipped(&canonical, 3, false)));
    let parts = tuple(&e.result);
    assert_eq!(f64s(&parts[1])[1], 2.0);
    assert_eq!(f64s(&parts[0])[3], -c[3]);
    check_qr("f64", 2, 2, &a, Some(&flipped(&canonical, 3, false)), 1e-14);
    // x of 1e-9 (below the backward error 8mn·u·‖A‖_F in f32) under α = 1: canonical reflects
    // (R_11 = −1); a backend that found x = 0 keeps R_11 = 1, τ = 0, v = 0.
    let a = [1.0, 1.0, 0.0, 1.0, 0.0, 1e-9];
    let canonical = geqrf("f32", 3, 2, &a, None);
    let c = f64s(&tuple(&canonical.result)[0]);
    assert!(c[3] < 0.0);
    let e = geqrf("f32", 3, 2, &a, Some(&flipped(&canonical, 3, true)));
    let parts = tuple(&e.result);
    assert_eq!(f64s(&parts[1]), vec![0.0, 0.0]);
    assert_eq!(f64s(&parts[0]), vec![1.0, 1.0, 0.0, 1.0, 0.0, 0.0]);
    // The same backend choice on an x far above rounding: the gauge sign only (β = +‖(α, x)‖).
    let a = [1.0, 1.0, 0.0, 1.0, 0.0, 0.5];
    let canonical = geqrf("f32", 3, 2, &a, None);
    let e = geqrf("f32", 3, 2, &a, Some(&flipped(&canonical, 3, true)));
    let qr = f64s(&tuple(&e.result)[0]);
    assert!((qr[3] - 1.25f64.sqrt()).abs() < 1e-6);
    assert!(f64s(&tuple(&e.result)[1])[1] != 0.0);
}
