//! cholesky: A = L·Lᴴ built exactly from a chosen representable L (real and complex Hermitian,
//! lower and upper) gives back L exactly; a random SPD case checked exactly with rationals
//! (ℓ·D·ℓᵀ = A, and every rounded element bracketed by exact squares); non-PD, non-finite,
//! non-real diagonal; layouts; errors.

#![allow(clippy::needless_range_loop)] // index arithmetic mirrors the formulas

use super::super::test_util::*;
use super::{ldl, Problem};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::Literal;
use conformance_spec::BackendError;
use rug::Rational;

/// A = L·Lᴴ for a lower triangular L given as (re, im) pairs, row-major m×m (exact: small ints).
fn gram(l: &[(f64, f64)], m: usize) -> Vec<(f64, f64)> {
    let mut a = vec![(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            let mut s = (0.0, 0.0);
            for k in 0..m {
                let (p, q) = (l[i * m + k], l[j * m + k]);
                // p · conj(q)
                s.0 += p.0 * q.0 + p.1 * q.1;
                s.1 += p.1 * q.0 - p.0 * q.1;
            }
            a[i * m + j] = s;
        }
    }
    a
}

fn chosen_l(m: usize, complex_ty: bool, seed: u64) -> Vec<(f64, f64)> {
    let mut g = Gen(seed);
    let mut l = vec![(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..=i {
            l[i * m + j] = if i == j {
                (1.0 + g.int(3).abs(), 0.0)
            } else {
                (g.int(4), if complex_ty { g.int(4) } else { 0.0 })
            };
        }
    }
    l
}

#[test]
fn factors_of_a_chosen_l_come_back_exactly() {
    let m = 5;
    for complex_ty in [false, true] {
        for ty in if complex_ty {
            ["c64", "c128"]
        } else {
            ["f32", "f64"]
        } {
            for lower in [true, false] {
                let batch = 2;
                let mut a = Vec::new();
                let mut want = Vec::new();
                for t in 0..batch {
                    let l = chosen_l(m, complex_ty, 3 + t as u64);
                    let full = gram(&l, m);
                    for i in 0..m {
                        for j in 0..m {
                            // The unread triangle holds NaN: it must not matter.
                            let read = if lower { i >= j } else { i <= j };
                            a.push(if read {
                                full[i * m + j]
                            } else {
                                (f64::NAN, f64::NAN)
                            });
                            let w = if lower {
                                l[i * m + j]
                            } else {
                                (l[j * m + i].0, -l[j * m + i].1)
                            };
                            want.push(if w.1 == 0.0 { (w.0, 0.0) } else { w });
                        }
                    }
                }
                let shape = format!("{ty}[{batch},{m},{m}]");
                let hlo = module_text(&[&shape], &format!("{shape} cholesky(p0), lower={lower}"));
                let lit = |v: &[(f64, f64)]| -> Literal {
                    if complex_ty {
                        complex(&shape, v)
                    } else {
                        real(&shape, &v.iter().map(|p| p.0).collect::<Vec<_>>())
                    }
                };
                let got = run(&hlo, &[lit(&a)]).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(bits_of(&got), bits_of(&lit(&want)), "{hlo}");
            }
        }
    }
}

#[test]
fn random_spd_is_factored_exactly_and_rounded_once() {
    let m = 8;
    let mut g = Gen(77);
    let b: Vec<f64> = (0..m * m).map(|_| g.unit()).collect();
    let mut a = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..m {
            a[i * m + j] = (0..m).map(|k| b[i * m + k] * b[j * m + k]).sum::<f64>()
                + if i == j { 1.0 } else { 0.0 };
        }
    }
    // Make A exactly representable in f64 (it is: products of 12-bit values summed over 8).
    let shape = "f64[8,8]";
    let hlo = module_text(&[shape], &format!("{shape} cholesky(p0), lower=true"));
    let got = run(&hlo, &[real(shape, &a)]).unwrap();
    let got = got.as_array().unwrap().to_f64s().unwrap();
    // Exact factorization: ℓ·D·ℓᵀ = A with rationals.
    let module = module(&[shape], &format!("{shape} cholesky(p0), lower=true"));
    let root = module.entry_computation().root_instruction();
    let arr = real(shape, &a);
    let p = Problem::new(root, arr.as_array().unwrap()).unwrap();
    let h = p.hermitian(0).unwrap();
    let f = ldl(&h).unwrap();
    for i in 0..m {
        for j in 0..m {
            let mut s = Rational::new();
            for k in 0..=i.min(j) {
                s += Rational::from(&f.l[i][k].re * &f.l[j][k].re) * &f.d[k];
            }
            assert_eq!(s, Rational::from_f64(a[i * m + j]).unwrap(), "({i},{j})");
        }
    }
    // Every rounded L_ij within half an ulp: (L̂ − ½ulp)² < ℓ²d < (L̂ + ½ulp)² (signs handled).
    for i in 0..m {
        for j in 0..=i {
            let v = got[i * m + j];
            let exact_sq = Rational::from(f.l[i][j].re.square_ref()) * &f.d[j];
            let half_ulp = Rational::from_f64((v.abs().next_up() - v.abs()) / 2.0).unwrap();
            let vv = Rational::from_f64(v.abs()).unwrap();
            let lo = Rational::from(&vv - &half_ulp).square();
            let hi = Rational::from(&vv + &half_ulp).square();
            assert!(lo < exact_sq && exact_sq < hi, "({i},{j}) = {v}");
            assert_eq!(v < 0.0, f.l[i][j].re < 0, "sign at ({i},{j})");
        }
        for j in i + 1..m {
            assert_eq!(got[i * m + j], 0.0);
        }
    }
}

#[test]
fn non_positive_definite_and_bad_inputs_are_nan() {
    let hlo = module_text(&["f32[3,2,2]"], "f32[3,2,2] cholesky(p0), lower=true");
    let a = real(
        "f32[3,2,2]",
        &[
            1.0,
            0.0,
            2.0,
            1.0,
            /**/ 4.0,
            0.0,
            f64::INFINITY,
            1.0,
            /**/ 4.0,
            9.0,
            2.0,
            2.0,
        ],
    );
    let got = run(&hlo, &[a])
        .unwrap()
        .as_array()
        .unwrap()
        .to_f64s()
        .unwrap();
    assert!(got[..8].iter().all(|v| v.is_nan()), "{got:?}");
    // Batch 2: A = [[4, 2], [2, 2]] → L = [[2, 0], [1, 1]] (the upper 9 is not read).
    assert_eq!(&got[8..], &[2.0, 0.0, 1.0, 1.0]);
    let hlo = module_text(&["c64[2,2]"], "c64[2,2] cholesky(p0), lower=true");
    let a = complex(
        "c64[2,2]",
        &[(4.0, 1.0), (0.0, 0.0), (1.0, 1.0), (2.0, 0.0)],
    );
    let got = bits_of(&run(&hlo, &[a]).unwrap());
    let nan = FloatFormat::F32.nan_bits();
    assert!(got
        .iter()
        .all(|&b| conformance_spec::literal::complex_parts(FloatFormat::F32, b) == (nan, nan)));
}

#[test]
fn layout_and_errors() {
    let a = [4.0, 2.0, 2.0, 5.0];
    let run_with = |layout: &str| {
        let hlo = module_text(
            &["f32[2,2]{0,1}"],
            &format!("f32[2,2]{layout} cholesky(p0), lower=false"),
        );
        bits_of(&run(&hlo, &[real("f32[2,2]{0,1}", &a)]).unwrap())
    };
    assert_eq!(run_with("{0,1}"), run_with("{1,0}"));
    // U = [[2, 1], [0, 2]].
    let want: Vec<u128> = [2.0f32, 1.0, 0.0, 2.0]
        .iter()
        .map(|v| u128::from(v.to_bits()))
        .collect();
    assert_eq!(run_with("{1,0}"), want);
    let hlo = module_text(&["f32[2,3]"], "f32[2,3] cholesky(p0)");
    let r = run(&hlo, &[real("f32[2,3]", &[0.0; 6])]);
    assert!(matches!(r, Err(BackendError::Invalid(_))), "{r:?}");
    let hlo = module_text(&["bf16[2,2]"], "bf16[2,2] cholesky(p0)");
    let r = run(&hlo, &[real("bf16[2,2]", &a)]);
    assert!(matches!(r, Err(BackendError::Unsupported(_))), "{r:?}");
}

#[test]
fn sixteen_by_sixteen_batches_are_fast_enough() {
    let (m, batch) = (16usize, 4usize);
    let mut g = Gen(1234);
    let mut a = Vec::new();
    for _ in 0..batch {
        let b: Vec<f64> = (0..m * m).map(|_| g.unit()).collect();
        for i in 0..m {
            for j in 0..m {
                let v: f64 = (0..m).map(|k| b[i * m + k] * b[j * m + k]).sum();
                a.push(v + if i == j { 2.0 } else { 0.0 });
            }
        }
    }
    let shape = "f64[4,16,16]";
    let start = std::time::Instant::now();
    let hlo = module_text(&[shape], &format!("{shape} cholesky(p0), lower=true"));
    let got = run(&hlo, &[real(shape, &a)]).unwrap();
    let trsm = module_text(
        &[shape, shape],
        &format!(
            "{shape} triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=ADJOINT"
        ),
    );
    let x = run(&trsm, &[got, real(shape, &a)]).unwrap();
    eprintln!(
        "cholesky + triangular-solve 4×16×16 f64: {:?}",
        start.elapsed()
    );
    assert!(x
        .as_array()
        .unwrap()
        .to_f64s()
        .unwrap()
        .iter()
        .all(|v| v.is_finite()));
}
