//! syevd and gesdd/gesvd: known answers, `uplo`, reconstruction and orthonormality of random
//! cases, the gauge (flipped signs, a rotated basis of a repeated eigenvalue, a wrong vector
//! that must stay wrong), modes, non-finite inputs, scales, speed.

#![allow(clippy::needless_range_loop)]

use super::super::{aligned, Evaluation};
use crate::contraction::array_from_row_major;
use crate::linalg::test_util::*;
use conformance_spec::literal::Literal;

fn syevd(
    ty: &str,
    n: usize,
    uplo: char,
    mode: char,
    a: &[f64],
    got: Option<&Literal>,
) -> Evaluation {
    let letter = if ty == "f32" { 's' } else { 'd' };
    let root = format!(
        "({ty}[{n},{n}]{{0,1}}, {ty}[{n}]{{0}}, s32[]) custom-call(p0), custom_call_target=\"lapack_{letter}syevd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{mode = {} : ui8, uplo = {} : ui8}}",
        mode as u32, uplo as u32
    );
    let md = module(&[&format!("{ty}[{n},{n}]{{0,1}}")], &root);
    aligned(&md, &[real(&format!("{ty}[{n},{n}]"), a)], got)
        .unwrap()
        .unwrap()
}

fn svd(ty: &str, m: usize, n: usize, mode: char, a: &[f64], got: Option<&Literal>) -> Evaluation {
    let letter = if ty == "f32" { 's' } else { 'd' };
    let k = m.min(n);
    let (u, vt) = if mode == 'S' {
        ([m, k], [k, n])
    } else {
        ([m, m], [n, n])
    };
    let root = format!(
        "({ty}[{m},{n}]{{0,1}}, {ty}[{k}]{{0}}, {ty}[{},{}]{{0,1}}, {ty}[{},{}]{{0,1}}, s32[]) custom-call(p0), custom_call_target=\"lapack_{letter}gesdd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{mode = {} : ui8}}",
        u[0], u[1], vt[0], vt[1], mode as u32
    );
    let md = module(&[&format!("{ty}[{m},{n}]{{0,1}}")], &root);
    aligned(&md, &[real(&format!("{ty}[{m},{n}]"), a)], got)
        .unwrap()
        .unwrap()
}

fn f64_leaves(e: &Evaluation) -> Vec<Vec<f64>> {
    e.result
        .array_leaves()
        .iter()
        .map(|a| a.to_f64s().unwrap_or_default())
        .collect()
}

/// `got` = the evaluation's result with leaf `leaf` replaced by `values` (row-major f64).
fn with_leaf(e: &Evaluation, leaf: usize, values: &[f64]) -> Literal {
    let Literal::Tuple(parts) = &e.result else {
        panic!("tuple")
    };
    let mut parts = parts.clone();
    let shape = parts[leaf].as_array().unwrap().shape().clone();
    let f32 = shape.element_type == conformance_spec::element_type::ElementType::F32;
    let bits: Vec<u128> = values
        .iter()
        .map(|&x| {
            if f32 {
                u128::from((x as f32).to_bits())
            } else {
                u128::from(x.to_bits())
            }
        })
        .collect();
    parts[leaf] = Literal::Array(array_from_row_major(&shape, &bits));
    Literal::Tuple(parts)
}

#[test]
fn eigen_known_answers_and_uplo() {
    let e = syevd("f64", 2, 'L', 'V', &[2.0, 1.0, 1.0, 2.0], None);
    let l = f64_leaves(&e);
    assert_eq!(l[1], vec![1.0, 3.0]);
    let r = std::f64::consts::FRAC_1_SQRT_2;
    // Canonical signs: the largest component (the first on ties) positive.
    assert_eq!(l[0], vec![r, r, -r, r]);
    assert_eq!(leaves(&e.result)[2], vec![0]);
    // Only the upper triangle is read with uplo = U.
    let e = syevd("f64", 2, 'U', 'V', &[2.0, 1.0, 100.0, 2.0], None);
    assert_eq!(f64_leaves(&e)[1], vec![1.0, 3.0]);
    // Diagonal: eigenvalues sorted, vectors the permuted unit vectors, exactly.
    let e = syevd(
        "f32",
        3,
        'L',
        'V',
        &[3.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 2.0],
        None,
    );
    let l = f64_leaves(&e);
    assert_eq!(l[1], vec![-1.0, 2.0, 3.0]);
    assert_eq!(l[0], vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    // Scales: w by ‖A‖_F, v by ‖A‖_F/gap, info exact.
    assert_eq!(e.scales[1][0].n, 36);
    assert!((e.scales[1][0].scale - 14f64.sqrt()).abs() < 1e-12);
    assert!((e.scales[0][0].kappa - 14f64.sqrt() / 3.0).abs() < 1e-12);
    assert!((e.scales[0][1].kappa - 14f64.sqrt()).abs() < 1e-12);
    assert_eq!(e.scales[2][0].scale, 0.0);
    assert!(!e.scales[2][0].masked);
    // Mode N: vectors masked.
    let e = syevd("f64", 2, 'L', 'N', &[2.0, 1.0, 1.0, 2.0], None);
    assert!(e.scales[0].iter().all(|s| s.masked));
    assert!(f64_leaves(&e)[0].iter().all(|x| x.is_nan()));
}

fn check_eigen(n: usize, a: &[f64], l: &[Vec<f64>], tol: f64) {
    let (v, w) = (&l[0], &l[1]);
    for j in 0..n {
        for i in 0..n {
            let av: f64 = (0..n).map(|k| a[i * n + k] * v[k * n + j]).sum();
            assert!(
                (av - w[j] * v[i * n + j]).abs() < tol,
                "residual ({i}, {j})"
            );
        }
        for c in 0..n {
            let d: f64 = (0..n).map(|k| v[k * n + j] * v[k * n + c]).sum();
            assert!((d - f64::from(u8::from(c == j))).abs() < tol);
        }
    }
    assert!(w.windows(2).all(|p| p[0] <= p[1]));
}

#[test]
fn random_symmetric_16x16_is_fast_and_accurate() {
    let n = 16;
    let mut g = Gen(11);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let x = g.unit();
            a[i * n + j] = x;
            a[j * n + i] = x;
        }
    }
    let start = std::time::Instant::now();
    let e = syevd("f64", n, 'L', 'V', &a, None);
    let took = start.elapsed();
    check_eigen(n, &a, &f64_leaves(&e), 1e-13);
    assert!(took.as_secs_f64() < 5.0, "{took:?}");
}

#[test]
fn gauge_flips_signs_and_rotates_repeated_eigenvalues() {
    let a = [4.0, 1.0, 0.0, 1.0, 4.0, 0.0, 0.0, 0.0, 7.0];
    let e = syevd("f64", 3, 'L', 'V', &a, None);
    let l = f64_leaves(&e);
    // Backend: column 0 negated.
    let mut v = l[0].clone();
    for i in 0..3 {
        v[i * 3] = -v[i * 3];
    }
    let got = with_leaf(&e, 0, &v);
    let al = syevd("f64", 3, 'L', 'V', &a, Some(&got));
    assert_eq!(f64_leaves(&al)[0], v);
    // A repeated eigenvalue 2 (multiplicity 2) with a rotated basis of its eigenspace.
    let a = [2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 5.0];
    let e = syevd("f64", 3, 'L', 'V', &a, None);
    let (c, s) = (0.6f64, 0.8f64);
    let v = vec![c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0];
    let al = syevd("f64", 3, 'L', 'V', &a, Some(&with_leaf(&e, 0, &v)));
    let got_v = f64_leaves(&al)[0].clone();
    for (x, y) in got_v.iter().zip(&v) {
        assert!((x - y).abs() < 1e-15, "{got_v:?}");
    }
    // κ of the cluster: gap 3.
    assert!((al.scales[0][0].kappa - 33f64.sqrt() / 3.0).abs() < 1e-12);
    // A wrong vector (the eigenvector of 5 in place of one of 2's) is not aligned into agreement.
    let wrong = vec![1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0];
    let al = syevd("f64", 3, 'L', 'V', &a, Some(&with_leaf(&e, 0, &wrong)));
    assert_ne!(f64_leaves(&al)[0], wrong);
    // A simple eigenvalue with a wrong vector stays canonical.
    let a = [4.0, 1.0, 0.0, 1.0, 4.0, 0.0, 0.0, 0.0, 7.0];
    let e = syevd("f64", 3, 'L', 'V', &a, None);
    let al = syevd("f64", 3, 'L', 'V', &a, Some(&with_leaf(&e, 0, &wrong)));
    assert_eq!(f64_leaves(&al)[0], f64_leaves(&e)[0]);
}

#[test]
fn non_finite_eigen_input_is_masked() {
    let e = syevd("f32", 2, 'L', 'V', &[1.0, 0.0, f64::INFINITY, 1.0], None);
    assert!(e.scales.iter().flatten().all(|s| s.masked));
    // uplo = U does not read the infinity.
    let e = syevd("f32", 2, 'U', 'V', &[1.0, 0.0, f64::INFINITY, 1.0], None);
    assert_eq!(f64_leaves(&e)[1], vec![1.0, 1.0]);
}

#[test]
fn svd_known_answer() {
    let a = [3.0, 0.0, 0.0, -2.0, 0.0, 0.0];
    let e = svd("f64", 3, 2, 'A', &a, None);
    let l = f64_leaves(&e);
    assert_eq!(l[1], vec![3.0, 2.0]);
    assert_eq!(l[2], vec![1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(l[3], vec![1.0, 0.0, 0.0, 1.0]);
    assert!(e.scales[0].iter().all(|s| s.masked));
    assert_eq!(e.scales[1][0].n, 8 * 3 * 2);
    // u's third column (completion, "σ = 0"): gap 2 to the smallest σ.
    assert!((e.scales[2][2].kappa - 13f64.sqrt() / 2.0).abs() < 1e-12);
    let e = svd("f64", 3, 2, 'N', &a, None);
    assert!(e.scales[2].iter().chain(&e.scales[3]).all(|s| s.masked));
    assert_eq!(f64_leaves(&e)[1], vec![3.0, 2.0]);
}

fn check_svd(m: usize, n: usize, mode: char, a: &[f64], l: &[Vec<f64>], tol: f64) {
    let k = m.min(n);
    let (s, u, vt) = (&l[1], &l[2], &l[3]);
    let ucols = u.len() / m;
    let vrows = vt.len() / n;
    assert_eq!((ucols, vrows), if mode == 'S' { (k, k) } else { (m, n) });
    for i in 0..m {
        for j in 0..n {
            let x: f64 = (0..k)
                .map(|p| u[i * ucols + p] * s[p] * vt[p * n + j])
                .sum();
            assert!((x - a[i * n + j]).abs() < tol, "USVᵀ ({i}, {j})");
        }
    }
    for p in 0..ucols {
        for q in 0..ucols {
            let d: f64 = (0..m).map(|i| u[i * ucols + p] * u[i * ucols + q]).sum();
            assert!((d - f64::from(u8::from(p == q))).abs() < tol, "UᵀU");
        }
    }
    for p in 0..vrows {
        for q in 0..vrows {
            let d: f64 = (0..n).map(|j| vt[p * n + j] * vt[q * n + j]).sum();
            assert!((d - f64::from(u8::from(p == q))).abs() < tol, "VᵀV");
        }
    }
    assert!(s.windows(2).all(|p| p[0] >= p[1]) && s.iter().all(|&x| x >= 0.0));
}

#[test]
fn random_svds_reconstruct() {
    let mut g = Gen(5);
    for (m, n) in [(6, 4), (4, 6), (5, 5), (1, 3)] {
        let a: Vec<f64> = (0..m * n).map(|_| g.unit()).collect();
        for mode in ['A', 'S'] {
            check_svd(
                m,
                n,
                mode,
                &a,
                &f64_leaves(&svd("f64", m, n, mode, &a, None)),
                1e-13,
            );
            check_svd(
                m,
                n,
                mode,
                &a,
                &f64_leaves(&svd("f32", m, n, mode, &a, None)),
                1e-5,
            );
        }
    }
    // Rank deficient: a rank-1 6×4 matrix; the null space is completed orthonormally.
    let x = [1.0, -2.0, 0.5, 3.0, 1.0, 0.25];
    let y = [2.0, 1.0, -1.0, 0.5];
    let a: Vec<f64> = (0..24).map(|e| x[e / 4] * y[e % 4]).collect();
    let l = f64_leaves(&svd("f64", 6, 4, 'A', &a, None));
    check_svd(6, 4, 'A', &a, &l, 1e-13);
    assert_eq!(&l[1][1..], &[0.0, 0.0, 0.0]);
}

#[test]
fn svd_gauge_flips_pairs_and_keeps_wrong_vectors() {
    let mut g = Gen(9);
    let (m, n) = (5, 3);
    let a: Vec<f64> = (0..m * n).map(|_| g.unit()).collect();
    let e = svd("f64", m, n, 'S', &a, None);
    let l = f64_leaves(&e);
    // Backend: pair 1 negated (u column and vt row).
    let (mut u, mut vt) = (l[2].clone(), l[3].clone());
    for i in 0..m {
        u[i * 3 + 1] = -u[i * 3 + 1];
    }
    for j in 0..n {
        vt[n + j] = -vt[n + j];
    }
    let got = with_leaf(&e, 2, &u);
    let Literal::Tuple(mut parts) = got else {
        panic!()
    };
    let Literal::Tuple(vt_parts) = with_leaf(&e, 3, &vt) else {
        panic!()
    };
    parts[3] = vt_parts[3].clone();
    let got = Literal::Tuple(parts);
    let al = f64_leaves(&svd("f64", m, n, 'S', &a, Some(&got)));
    assert_eq!(al[2], u);
    assert_eq!(al[3], vt);
    // Only u negated (not v): no joint sign fits; the reference stays canonical.
    let mut u_only = l[2].clone();
    for i in 0..m {
        u_only[i * 3] = -u_only[i * 3];
    }
    let al = f64_leaves(&svd("f64", m, n, 'S', &a, Some(&with_leaf(&e, 2, &u_only))));
    assert_eq!(al[2], l[2]);
}

#[test]
fn svd_of_repeated_singular_values_aligns_rotations() {
    // A = diag(2, 2) stacked on a zero row: σ = (2, 2); the backend rotates the pair jointly.
    let a = [2.0, 0.0, 0.0, 2.0, 0.0, 0.0];
    let e = svd("f64", 3, 2, 'S', &a, None);
    let (c, s) = (0.6, 0.8);
    let u = vec![c, -s, s, c, 0.0, 0.0];
    let vt = vec![c, s, -s, c];
    let Literal::Tuple(mut parts) = with_leaf(&e, 2, &u) else {
        panic!()
    };
    let Literal::Tuple(p3) = with_leaf(&e, 3, &vt) else {
        panic!()
    };
    parts[3] = p3[3].clone();
    let al = f64_leaves(&svd("f64", 3, 2, 'S', &a, Some(&Literal::Tuple(parts))));
    for (x, y) in al[2].iter().zip(&u).chain(al[3].iter().zip(&vt)) {
        assert!((x - y).abs() < 1e-15, "{al:?}");
    }
}

#[test]
fn batched_eigen_with_a_gauge_and_a_masked_element() {
    let root = "(f64[2,2,2]{1,2,0}, f64[2,2]{1,0}, s32[2]{0}) custom-call(p0), custom_call_target=\"lapack_dsyevd_ffi\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims=\"1\"}, backend_config={mode = 86 : ui8, uplo = 76 : ui8}";
    let md = module(&["f64[2,2,2]{1,2,0}"], root);
    let arg = real("f64[2,2,2]", &[2.0, 1.0, 1.0, 2.0, 1.0, 0.0, f64::NAN, 1.0]);
    let e = aligned(&md, std::slice::from_ref(&arg), None)
        .unwrap()
        .unwrap();
    let l = f64_leaves(&e);
    assert_eq!(&l[1][..2], &[1.0, 3.0]);
    assert!(l[1][2].is_nan());
    assert!(e.scales[1][2].masked && !e.scales[1][0].masked);
    // The backend flipped batch 0's second vector.
    let mut v = l[0].clone();
    v[1] = -v[1];
    v[3] = -v[3];
    let al = aligned(&md, &[arg], Some(&with_leaf(&e, 0, &v)))
        .unwrap()
        .unwrap();
    assert_eq!(&f64_leaves(&al)[0][..4], &v[..4]);
}

#[test]
fn svd_16x16_and_wide_f32_are_fast() {
    let mut g = Gen(21);
    let a: Vec<f64> = (0..256).map(|_| g.unit()).collect();
    let start = std::time::Instant::now();
    let l = f64_leaves(&svd("f64", 16, 16, 'A', &a, None));
    assert!(start.elapsed().as_secs_f64() < 5.0);
    check_svd(16, 16, 'A', &a, &l, 1e-13);
}

fn f32_values(bits: &[u32]) -> Vec<f64> {
    bits.iter().map(|&b| f64::from(f32::from_bits(b))).collect()
}

/// Seed 1, case 126, batch element 0 (f32 5×8): row 4 is the negation of row 1 (rank 4).
const CASE126: [u32; 40] = [
    0x3edfb0f1, 0xbf2a5118, 0x40400000, 0x3f1125fd, 0x397b8ed6, 0x3f61fdbc, 0xbf2f59ca, 0x43e10f56,
    0x3ea96e3c, 0x3f646713, 0xc0400000, 0x3f5070c4, 0xc0000000, 0x3f114e6e, 0x3e6ddf2f, 0xba042200,
    0xbe03c885, 0x3e7acff4, 0x3e4a901f, 0x3f78164a, 0x3f23c84a, 0xbef5772e, 0x40000000, 0x3f000000,
    0x3e8d4239, 0x3e5cff47, 0xbe99bfb0, 0xc0800000, 0x3f351953, 0x3f284c3d, 0xbd88add7, 0x3e9247cd,
    0xbea96e3c, 0xbf646713, 0x40400000, 0xbf5070c4, 0x40000000, 0xbf114e6e, 0xbe6ddf2f, 0x3a042200,
];

/// The generator's rank-deficient shapes (a column twice another, two rows equal up to sign, a
/// zero column) left a column of pure rounding noise that one-sided Jacobi rotated forever
/// ("did not converge", seed 1 cases 231, 1895, 3171, 4130, ...).
#[test]
fn rank_deficient_svds_converge() {
    let mut g = Gen(17);
    for trial in 0..12 {
        let (m, n) = [(8, 8), (6, 8), (8, 5)][trial % 3];
        let mut a: Vec<f64> = (0..m * n).map(|_| g.unit()).collect();
        let (c, d) = (trial % n, (trial * 3 + 1) % n);
        match trial % 4 {
            0 => (0..m).for_each(|i| a[i * n + d] = 2.0 * a[i * n + c]),
            1 => (0..n).for_each(|j| a[((trial + 2) % m) * n + j] = -a[(trial % m) * n + j]),
            2 => (0..m).for_each(|i| a[i * n + c] = 0.0),
            _ => {
                // A dependent column and rows scaled by 2^±30.
                (0..m).for_each(|i| a[i * n + d] = 2.0 * a[i * n + c]);
                a.iter_mut()
                    .enumerate()
                    .for_each(|(e, x)| *x *= 2f64.powi(if (e / n) % 2 == 0 { 30 } else { -30 }));
            }
        }
        for ty in ["f32", "f64"] {
            let a: Vec<f64> = if ty == "f32" {
                a.iter().map(|&x| f64::from(x as f32)).collect()
            } else {
                a.clone()
            };
            let scale = a.iter().fold(0.0f64, |s, x| s.max(x.abs()));
            for mode in ['A', 'S'] {
                let l = f64_leaves(&svd(ty, m, n, mode, &a, None));
                let tol = if ty == "f32" { 1e-5 } else { 1e-13 };
                if trial % 4 != 3 {
                    check_svd(m, n, mode, &a, &l, tol * scale.max(1.0));
                }
                // Rank deficient: a dependent column of a tall or square matrix, a dependent
                // row of a wide or square one.
                let dependent_rows = trial % 4 == 1;
                if m == n || (m > n) != dependent_rows {
                    assert!(
                        l[1].last().is_some_and(|&s| s == 0.0),
                        "{trial} {ty}: {:?}",
                        l[1]
                    );
                }
            }
        }
    }
    // The case's matrix itself.
    let a = f32_values(&CASE126);
    let l = f64_leaves(&svd("f32", 5, 8, 'S', &a, None));
    check_svd(5, 8, 'S', &a, &l, 1e-3);
    assert_eq!(l[1][4], 0.0);
}

/// Mode S of a wide rank-deficient matrix returns fewer null vectors than the null space holds
/// (case 126: 1 of 4): a backend's choice is any unit vector of that space orthogonal to the
/// others, and the gauge finds it there.
#[test]
fn wide_mode_s_null_vectors_are_aligned_in_the_whole_null_space() {
    let a = f32_values(&CASE126);
    let s_mode = svd("f32", 5, 8, 'S', &a, None);
    let full = f64_leaves(&svd("f32", 5, 8, 'A', &a, None));
    let l = f64_leaves(&s_mode);
    // The backend's last row: another null vector (vt row 6 of mode A), then a mix of two.
    let r = std::f64::consts::FRAC_1_SQRT_2;
    for row in [
        full[3][6 * 8..7 * 8].to_vec(),
        (0..8)
            .map(|j| r * (full[3][5 * 8 + j] - full[3][7 * 8 + j]))
            .collect(),
    ] {
        let mut vt = l[3].clone();
        vt[4 * 8..].copy_from_slice(&row);
        let al = f64_leaves(&svd(
            "f32",
            5,
            8,
            'S',
            &a,
            Some(&with_leaf(&s_mode, 3, &vt)),
        ));
        for (x, y) in al[3].iter().zip(&vt) {
            assert!((x - y).abs() < 1e-6, "{x} {y}");
        }
        // Mostly not a null vector (the first right singular vector's direction mixed in, the
        // null component 0.3 < ½): refused, the reference's row stays.
        let mut bad = vt.clone();
        let w = (1.0f64 - 0.09).sqrt();
        for j in 0..8 {
            bad[4 * 8 + j] = 0.3 * row[j] + w * l[3][j];
        }
        let al = f64_leaves(&svd(
            "f32",
            5,
            8,
            'S',
            &a,
            Some(&with_leaf(&s_mode, 3, &bad)),
        ));
        assert_eq!(al[3][32..], l[3][32..]);
    }
    // Tall, mode S: the same on the U side.
    let t: Vec<f64> = (0..40).map(|e| a[(e % 5) * 8 + e / 5]).collect();
    let s_mode = svd("f32", 8, 5, 'S', &t, None);
    let full = f64_leaves(&svd("f32", 8, 5, 'A', &t, None));
    let l = f64_leaves(&s_mode);
    let mut u = l[2].clone();
    for i in 0..8 {
        u[i * 5 + 4] = full[2][i * 8 + 6];
    }
    let al = f64_leaves(&svd("f32", 8, 5, 'S', &t, Some(&with_leaf(&s_mode, 2, &u))));
    for (x, y) in al[2].iter().zip(&u) {
        assert!((x - y).abs() < 1e-6, "{x} {y}");
    }
}

// ---- Complex element types (c64, c128): heevd and gesdd. ----

type C = (f64, f64);

fn cmul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn conj(a: C) -> C {
    (a.0, -a.1)
}

fn real_of(ty: &str) -> &'static str {
    if ty == "c64" {
        "f32"
    } else {
        "f64"
    }
}

fn heevd(ty: &str, n: usize, uplo: char, mode: char, a: &[C], got: Option<&Literal>) -> Evaluation {
    let letter = if ty == "c64" { 'c' } else { 'z' };
    let rt = real_of(ty);
    let root = format!(
        "({ty}[{n},{n}]{{0,1}}, {rt}[{n}]{{0}}, s32[]) custom-call(p0), custom_call_target=\"lapack_{letter}heevd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{mode = {} : ui8, uplo = {} : ui8}}",
        mode as u32, uplo as u32
    );
    let md = module(&[&format!("{ty}[{n},{n}]{{0,1}}")], &root);
    aligned(&md, &[complex(&format!("{ty}[{n},{n}]"), a)], got)
        .unwrap()
        .unwrap()
}

fn csvd(ty: &str, m: usize, n: usize, mode: char, a: &[C], got: Option<&Literal>) -> Evaluation {
    let letter = if ty == "c64" { 'c' } else { 'z' };
    let rt = real_of(ty);
    let k = m.min(n);
    let (u, vt) = if mode == 'S' {
        ([m, k], [k, n])
    } else {
        ([m, m], [n, n])
    };
    let root = format!(
        "({ty}[{m},{n}]{{0,1}}, {rt}[{k}]{{0}}, {ty}[{},{}]{{0,1}}, {ty}[{},{}]{{0,1}}, s32[]) custom-call(p0), custom_call_target=\"lapack_{letter}gesdd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={{mode = {} : ui8}}",
        u[0], u[1], vt[0], vt[1], mode as u32
    );
    let md = module(&[&format!("{ty}[{m},{n}]{{0,1}}")], &root);
    aligned(&md, &[complex(&format!("{ty}[{m},{n}]"), a)], got)
        .unwrap()
        .unwrap()
}

/// The complex leaf `leaf` as `(re, im)` pairs.
fn c_leaf(e: &Evaluation, leaf: usize) -> Vec<C> {
    let arr = e.result.array_leaves()[leaf].clone();
    let c64 = arr.element_type() == conformance_spec::element_type::ElementType::C64;
    arr.logical_bits()
        .iter()
        .map(|&b| {
            if c64 {
                let (re, im) = (b as u32, (b >> 32) as u32);
                (f64::from(f32::from_bits(re)), f64::from(f32::from_bits(im)))
            } else {
                (f64::from_bits(b as u64), f64::from_bits((b >> 64) as u64))
            }
        })
        .collect()
}

/// `got` = the result with complex leaves replaced (`(leaf, values)`).
fn with_cleaves(e: &Evaluation, replace: &[(usize, &[C])]) -> Literal {
    let Literal::Tuple(parts) = &e.result else {
        panic!("tuple")
    };
    let mut parts = parts.clone();
    for (leaf, values) in replace {
        let shape = parts[*leaf].as_array().unwrap().shape().clone();
        let c64 = shape.element_type == conformance_spec::element_type::ElementType::C64;
        let bits: Vec<u128> = values
            .iter()
            .map(|&(x, y)| {
                if c64 {
                    u128::from((x as f32).to_bits()) | (u128::from((y as f32).to_bits()) << 32)
                } else {
                    u128::from(x.to_bits()) | (u128::from(y.to_bits()) << 64)
                }
            })
            .collect();
        parts[*leaf] = Literal::Array(array_from_row_major(&shape, &bits));
    }
    Literal::Tuple(parts)
}

fn close(x: C, y: C, tol: f64) -> bool {
    (x.0 - y.0).abs() < tol && (x.1 - y.1).abs() < tol
}

/// `A·V = V·diag(w)`, `VᴴV = I`, `w` ascending, for the full Hermitian `a`.
fn check_heevd(n: usize, a: &[C], v: &[C], w: &[f64], tol: f64) {
    for j in 0..n {
        for i in 0..n {
            let mut av = (0.0, 0.0);
            for k in 0..n {
                let p = cmul(a[i * n + k], v[k * n + j]);
                av = (av.0 + p.0, av.1 + p.1);
            }
            let vw = (w[j] * v[i * n + j].0, w[j] * v[i * n + j].1);
            assert!(close(av, vw, tol), "residual ({i}, {j}): {av:?} {vw:?}");
        }
        for c in 0..n {
            let mut d = (0.0, 0.0);
            for k in 0..n {
                let p = cmul(conj(v[k * n + j]), v[k * n + c]);
                d = (d.0 + p.0, d.1 + p.1);
            }
            assert!(close(d, (f64::from(u8::from(c == j)), 0.0), tol), "VᴴV");
        }
    }
    assert!(w.windows(2).all(|p| p[0] <= p[1]));
}

/// `U·S·Vᴴ = A`, `UᴴU = I`, `V Vᴴ = I` (rows of vt), `s` descending.
fn check_csvd(m: usize, n: usize, a: &[C], e: &Evaluation, tol: f64) {
    let k = m.min(n);
    let s = f64_leaves(e)[1].clone();
    let (u, vt) = (c_leaf(e, 2), c_leaf(e, 3));
    let ucols = u.len() / m;
    let vrows = vt.len() / n;
    for i in 0..m {
        for j in 0..n {
            let mut x = (0.0, 0.0);
            for p in 0..k {
                let t = cmul(u[i * ucols + p], vt[p * n + j]);
                x = (x.0 + s[p] * t.0, x.1 + s[p] * t.1);
            }
            assert!(close(x, a[i * n + j], tol), "USVᴴ ({i}, {j})");
        }
    }
    for p in 0..ucols {
        for q in 0..ucols {
            let mut d = (0.0, 0.0);
            for i in 0..m {
                let t = cmul(conj(u[i * ucols + p]), u[i * ucols + q]);
                d = (d.0 + t.0, d.1 + t.1);
            }
            assert!(close(d, (f64::from(u8::from(p == q)), 0.0), tol), "UᴴU");
        }
    }
    for p in 0..vrows {
        for q in 0..vrows {
            let mut d = (0.0, 0.0);
            for j in 0..n {
                let t = cmul(vt[p * n + j], conj(vt[q * n + j]));
                d = (d.0 + t.0, d.1 + t.1);
            }
            assert!(close(d, (f64::from(u8::from(p == q)), 0.0), tol), "VᴴV");
        }
    }
    assert!(s.windows(2).all(|p| p[0] >= p[1]) && s.iter().all(|&x| x >= 0.0));
}

fn random_hermitian(g: &mut Gen, n: usize) -> Vec<C> {
    let mut a = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..=i {
            let x = if i == j {
                (g.unit(), 0.0)
            } else {
                (g.unit(), g.unit())
            };
            a[i * n + j] = x;
            a[j * n + i] = conj(x);
        }
    }
    a
}

#[test]
fn heevd_known_answers_uplo_and_phase() {
    // [[2, i], [−i, 2]]: eigenvalues 1, 3.
    let a = [(2.0, 0.0), (0.0, 1.0), (0.0, -1.0), (2.0, 0.0)];
    for ty in ["c64", "c128"] {
        let e = heevd(ty, 2, 'L', 'V', &a, None);
        assert_eq!(f64_leaves(&e)[1], vec![1.0, 3.0]);
        let v = c_leaf(&e, 0);
        check_heevd(2, &a, &v, &[1.0, 3.0], 1e-6);
        // Canonical phase: the largest component (the first on ties) real positive.
        assert!(v[0].0 > 0.0 && v[0].1 == 0.0 && v[1].0 > 0.0 && v[1].1 == 0.0);
        assert_eq!(leaves(&e.result)[2], vec![0]);
    }
    // uplo = U reads only the upper triangle (and ignores the diagonal's imaginary parts).
    let upper = [(2.0, 5.0), (0.0, 1.0), (100.0, 7.0), (2.0, -3.0)];
    let e = heevd("c128", 2, 'U', 'V', &upper, None);
    assert_eq!(f64_leaves(&e)[1], vec![1.0, 3.0]);
    let lower = [(2.0, 0.0), (9.0, 9.0), (0.0, -1.0), (2.0, 0.0)];
    let e = heevd("c128", 2, 'L', 'V', &lower, None);
    assert_eq!(f64_leaves(&e)[1], vec![1.0, 3.0]);
    // Diagonal: sorted, unit vectors exactly; scales as for the real types.
    let d = [
        (3.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (-1.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (2.0, 0.0),
    ];
    let e = heevd("c64", 3, 'L', 'V', &d, None);
    assert_eq!(f64_leaves(&e)[1], vec![-1.0, 2.0, 3.0]);
    let one = (1.0, 0.0);
    let z = (0.0, 0.0);
    assert_eq!(c_leaf(&e, 0), vec![z, z, one, one, z, z, z, one, z]);
    assert_eq!(e.scales[1][0].n, 36);
    assert!((e.scales[1][0].scale - 14f64.sqrt()).abs() < 1e-12);
    assert!((e.scales[0][0].kappa - 14f64.sqrt() / 3.0).abs() < 1e-12);
    // Mode N: vectors masked; a non-finite input: everything masked.
    let e = heevd("c128", 2, 'L', 'N', &a, None);
    assert!(e.scales[0].iter().all(|s| s.masked));
    let e = heevd(
        "c64",
        2,
        'L',
        'V',
        &[(1.0, 0.0), z, (f64::NAN, 0.0), one],
        None,
    );
    assert!(e.scales.iter().flatten().all(|s| s.masked));
}

#[test]
fn random_hermitian_5x5_c128_reconstructs() {
    let n = 5;
    let mut g = Gen(17);
    let a = random_hermitian(&mut g, n);
    let e = heevd("c128", n, 'L', 'V', &a, None);
    check_heevd(n, &a, &c_leaf(&e, 0), &f64_leaves(&e)[1], 1e-14);
    let e = heevd("c64", n, 'U', 'V', &a, None);
    check_heevd(n, &a, &c_leaf(&e, 0), &f64_leaves(&e)[1], 1e-5);
    // Real data through the complex path: the real path's eigenvalues, bit for bit.
    let re: Vec<f64> = a.iter().map(|x| x.0).collect();
    let sym: Vec<C> = (0..n * n)
        .map(|e| (re[(e / n).max(e % n) * n + (e / n).min(e % n)], 0.0))
        .collect();
    let real_e = syevd(
        "f64",
        n,
        'L',
        'V',
        &sym.iter().map(|x| x.0).collect::<Vec<_>>(),
        None,
    );
    let cplx_e = heevd("c128", n, 'L', 'V', &sym, None);
    assert_eq!(f64_leaves(&real_e)[1], f64_leaves(&cplx_e)[1]);
    let rv: Vec<C> = f64_leaves(&real_e)[0].iter().map(|&x| (x, 0.0)).collect();
    for (x, y) in rv.iter().zip(c_leaf(&cplx_e, 0)) {
        assert!(close(*x, y, 1e-15));
    }
}

#[test]
fn heevd_gauge_phases_rotations_and_wrong_vectors() {
    let n = 4;
    let mut g = Gen(23);
    let a = random_hermitian(&mut g, n);
    let e = heevd("c128", n, 'L', 'V', &a, None);
    let v = c_leaf(&e, 0);
    // Backend: column 1 times e^{iθ} (θ = 0.7), column 3 times −1.
    let ph = (0.7f64.cos(), 0.7f64.sin());
    let mut got = v.clone();
    for i in 0..n {
        got[i * n + 1] = cmul(got[i * n + 1], ph);
        got[i * n + 3] = (-got[i * n + 3].0, -got[i * n + 3].1);
    }
    let al = heevd(
        "c128",
        n,
        'L',
        'V',
        &a,
        Some(&with_cleaves(&e, &[(0, &got)])),
    );
    for (x, y) in c_leaf(&al, 0).iter().zip(&got) {
        assert!(close(*x, *y, 1e-15), "{x:?} {y:?}");
    }
    // A wrong vector (column 0 replaced by column 2) is not adopted.
    let mut wrong = v.clone();
    for i in 0..n {
        wrong[i * n] = v[i * n + 2];
    }
    let al = heevd(
        "c128",
        n,
        'L',
        'V',
        &a,
        Some(&with_cleaves(&e, &[(0, &wrong)])),
    );
    // (The other columns are aligned with their own rounded values: phases 1 within u².)
    for (x, y) in c_leaf(&al, 0).iter().zip(&v) {
        assert!(close(*x, *y, 1e-15), "{x:?} {y:?}");
    }
    assert!((0..n).any(|i| !close(c_leaf(&al, 0)[i * n], wrong[i * n], 1e-3)));
    // A repeated eigenvalue 2 (multiplicity 2) of a complex diagonal-block matrix: the backend's
    // unitary rotation of the eigenspace is adopted.
    let z = (0.0, 0.0);
    let d = [(2.0, 0.0), z, z, z, (2.0, 0.0), z, z, z, (5.0, 0.0)];
    let e = heevd("c128", 3, 'L', 'V', &d, None);
    let (c, s) = (0.6, 0.8);
    // Columns: (c, i·s, 0), (i·s, c, 0) — unitary.
    let rot = vec![
        (c, 0.0),
        (0.0, s),
        z,
        (0.0, s),
        (c, 0.0),
        z,
        z,
        z,
        (1.0, 0.0),
    ];
    let al = heevd(
        "c128",
        3,
        'L',
        'V',
        &d,
        Some(&with_cleaves(&e, &[(0, &rot)])),
    );
    for (x, y) in c_leaf(&al, 0).iter().zip(&rot) {
        assert!(close(*x, *y, 1e-15), "{x:?} {y:?}");
    }
    assert!((al.scales[0][0].kappa - 33f64.sqrt() / 3.0).abs() < 1e-12);
}

#[test]
fn complex_svd_known_answers_and_reconstruction() {
    // A = Q·diag(3, 1) with the unitary Q = [[1, i], [i, 1]]/√2: σ = (3, 1).
    let r = std::f64::consts::FRAC_1_SQRT_2;
    let a = [(3.0 * r, 0.0), (0.0, r), (0.0, 3.0 * r), (r, 0.0)];
    for ty in ["c64", "c128"] {
        let e = csvd(ty, 2, 2, 'A', &a, None);
        let s = f64_leaves(&e)[1].clone();
        assert!(
            (s[0] - 3.0).abs() < 1e-6 && (s[1] - 1.0).abs() < 1e-6,
            "{s:?}"
        );
        check_csvd(2, 2, &a, &e, 1e-6);
        // v canonical: the largest component of each row of vt real positive (conjugate).
        let vt = c_leaf(&e, 3);
        assert_eq!(vt[0], (1.0, 0.0));
        assert_eq!(vt[3], (1.0, 0.0));
    }
    let mut g = Gen(29);
    for (m, n) in [(4, 6), (6, 4)] {
        let a: Vec<C> = (0..m * n).map(|_| (g.unit(), g.unit())).collect();
        for mode in ['A', 'S'] {
            check_csvd(m, n, &a, &csvd("c64", m, n, mode, &a, None), 1e-5);
            check_csvd(m, n, &a, &csvd("c128", m, n, mode, &a, None), 1e-13);
        }
    }
    // Rank 1 (complex outer product), mode A: null space completed.
    let x = [(1.0, 1.0), (-2.0, 0.0), (0.5, -1.0)];
    let y = [(2.0, 0.0), (0.0, 1.0)];
    let a: Vec<C> = (0..6).map(|e| cmul(x[e / 2], conj(y[e % 2]))).collect();
    let e = csvd("c128", 3, 2, 'A', &a, None);
    check_csvd(3, 2, &a, &e, 1e-13);
    assert_eq!(f64_leaves(&e)[1][1], 0.0);
    let e = csvd(
        "c128",
        2,
        3,
        'A',
        &a.iter().map(|_| (0.0, 0.0)).take(6).collect::<Vec<_>>(),
        None,
    );
    assert_eq!(f64_leaves(&e)[1], vec![0.0, 0.0]);
}

#[test]
fn complex_svd_gauge_joint_phases_and_wrong_vectors() {
    let mut g = Gen(31);
    let (m, n) = (5, 3);
    let a: Vec<C> = (0..m * n).map(|_| (g.unit(), g.unit())).collect();
    let e = csvd("c128", m, n, 'S', &a, None);
    let (u, vt) = (c_leaf(&e, 2), c_leaf(&e, 3));
    // Backend: triplet 1 times e^{iθ} (u column by e^{iθ}, vt row by e^{−iθ}).
    let ph = (1.1f64.cos(), 1.1f64.sin());
    let (mut gu, mut gvt) = (u.clone(), vt.clone());
    for i in 0..m {
        gu[i * 3 + 1] = cmul(gu[i * 3 + 1], ph);
    }
    for j in 0..n {
        gvt[n + j] = cmul(gvt[n + j], conj(ph));
    }
    let got = with_cleaves(&e, &[(2, &gu), (3, &gvt)]);
    let al = csvd("c128", m, n, 'S', &a, Some(&got));
    for (x, y) in c_leaf(&al, 2)
        .iter()
        .zip(&gu)
        .chain(c_leaf(&al, 3).iter().zip(&gvt))
    {
        assert!(close(*x, *y, 1e-15), "{x:?} {y:?}");
    }
    // Only u rotated (v not): no joint phase fits, the backend's u is not adopted into agreement
    // (the polar factor of 1 + e^{iθ} is the mid phase e^{iθ/2}); for θ = π it stays canonical.
    let got = with_cleaves(&e, &[(2, &gu)]);
    let al = csvd("c128", m, n, 'S', &a, Some(&got));
    let alu = c_leaf(&al, 2);
    assert!((0..m).any(|i| !close(alu[i * 3 + 1], gu[i * 3 + 1], 1e-3)));
    let flipped: Vec<C> = u
        .iter()
        .enumerate()
        .map(|(e, &x)| if e % 3 == 1 { (-x.0, -x.1) } else { x })
        .collect();
    let al = csvd(
        "c128",
        m,
        n,
        'S',
        &a,
        Some(&with_cleaves(&e, &[(2, &flipped)])),
    );
    for (x, y) in c_leaf(&al, 2).iter().zip(&u) {
        assert!(close(*x, *y, 1e-15), "{x:?} {y:?}");
    }
    // A repeated singular value: a joint unitary rotation is adopted.
    let z = (0.0, 0.0);
    let a = [(2.0, 0.0), z, z, (2.0, 0.0), z, z];
    let e = csvd("c128", 3, 2, 'S', &a, None);
    let (c, s) = (0.6, 0.8);
    let q = [(c, 0.0), (0.0, s), (0.0, s), (c, 0.0)];
    let gu = vec![q[0], q[1], q[2], q[3], z, z];
    // vt = Qᴴ (V = Q).
    let gvt: Vec<C> = vec![conj(q[0]), conj(q[2]), conj(q[1]), conj(q[3])];
    let al = csvd(
        "c128",
        3,
        2,
        'S',
        &a,
        Some(&with_cleaves(&e, &[(2, &gu), (3, &gvt)])),
    );
    for (x, y) in c_leaf(&al, 2)
        .iter()
        .zip(&gu)
        .chain(c_leaf(&al, 3).iter().zip(&gvt))
    {
        assert!(close(*x, *y, 1e-15), "{x:?} {y:?}");
    }
}
