//! triangular-solve: all 2×2×2×3 attribute combinations with batch dimensions, by the exact
//! product check (b = op(a)·x or x·op(a) built exactly from a representable x, x recovered
//! bit-exactly), general right-hand sides against an independent rational solve, complex,
//! singular and non-finite inputs, layouts, errors.

#![allow(clippy::needless_range_loop)] // index arithmetic mirrors the formulas

use super::super::test_util::*;
use conformance_spec::BackendError;
use rug::Rational;

/// op(T)[i][j] of the dense effective triangle `t` (test's own construction).
fn op(t: &[Vec<(f64, f64)>], transpose: &str, i: usize, j: usize) -> (f64, f64) {
    match transpose {
        "NO_TRANSPOSE" => t[i][j],
        "TRANSPOSE" => t[j][i],
        _ => (t[j][i].0, -t[j][i].1),
    }
}

fn cmul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

#[test]
fn every_attribute_combination_recovers_a_representable_solution() {
    let (m, k, batch) = (4usize, 3usize, 2usize);
    for complex_ty in [false, true] {
        let ty = if complex_ty { "c128" } else { "f64" };
        for left in [true, false] {
            for lower in [true, false] {
                for unit in [true, false] {
                    for tr in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"] {
                        let mut g = Gen(7 + m as u64);
                        let mut a = vec![(f64::NAN, f64::NAN); batch * m * m];
                        let mut xs = vec![(0.0, 0.0); batch * m * k];
                        let mut bs = vec![(0.0, 0.0); batch * m * k];
                        for t in 0..batch {
                            // The effective triangle (small integers, nonzero diagonal).
                            let mut tri = vec![vec![(0.0, 0.0); m]; m];
                            for i in 0..m {
                                for j in 0..m {
                                    let read = if lower { i >= j } else { i <= j };
                                    let im = if complex_ty { g.int(3) } else { 0.0 };
                                    let v = if i == j {
                                        (1.0 + g.int(2).abs(), im)
                                    } else {
                                        (g.int(3), im)
                                    };
                                    if read {
                                        a[t * m * m + i * m + j] = v;
                                        tri[i][j] = v;
                                    }
                                    if i == j && unit {
                                        // Garbage on the unit diagonal must be ignored.
                                        a[t * m * m + i * m + j] = (7.0, 3.0);
                                        tri[i][j] = (1.0, 0.0);
                                    }
                                }
                            }
                            let (rows, cols) = if left { (m, k) } else { (k, m) };
                            let x: Vec<(f64, f64)> = (0..rows * cols)
                                .map(|_| (g.int(4), if complex_ty { g.int(4) } else { 0.0 }))
                                .collect();
                            for r in 0..rows {
                                for c in 0..cols {
                                    let mut acc = (0.0, 0.0);
                                    for q in 0..m {
                                        let p = if left {
                                            cmul(op(&tri, tr, r, q), x[q * cols + c])
                                        } else {
                                            cmul(x[r * cols + q], op(&tri, tr, q, c))
                                        };
                                        acc = (acc.0 + p.0, acc.1 + p.1);
                                    }
                                    bs[t * rows * cols + r * cols + c] = acc;
                                    xs[t * rows * cols + r * cols + c] = x[r * cols + c];
                                }
                            }
                        }
                        let b_shape = if left {
                            format!("{ty}[{batch},{m},{k}]")
                        } else {
                            format!("{ty}[{batch},{k},{m}]")
                        };
                        let a_shape = format!("{ty}[{batch},{m},{m}]");
                        let hlo = module_text(
                            &[&a_shape, &b_shape],
                            &format!(
                                "{b_shape} triangular-solve(p0, p1), left_side={left}, lower={lower}, unit_diagonal={unit}, transpose_a={tr}"
                            ),
                        );
                        let (av, bv) = if complex_ty {
                            (complex(&a_shape, &a), complex(&b_shape, &bs))
                        } else {
                            let re = |v: &[(f64, f64)]| v.iter().map(|p| p.0).collect::<Vec<_>>();
                            (real(&a_shape, &re(&a)), real(&b_shape, &re(&bs)))
                        };
                        let got = run(&hlo, &[av, bv]).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
                        let want = if complex_ty {
                            complex(&b_shape, &xs)
                        } else {
                            real(&b_shape, &xs.iter().map(|p| p.0).collect::<Vec<_>>())
                        };
                        assert_eq!(bits_of(&got), bits_of(&want), "{hlo}");
                    }
                }
            }
        }
    }
}

/// Independent exact solve of a lower triangular real system by Cramer-free forward
/// substitution over rationals, written separately from the implementation.
fn forward(l: &[Vec<f64>], b: &[f64]) -> Vec<Rational> {
    let mut x: Vec<Rational> = Vec::new();
    for i in 0..b.len() {
        let mut s = Rational::from_f64(b[i]).unwrap();
        for (j, xj) in x.iter().enumerate() {
            s -= Rational::from_f64(l[i][j]).unwrap() * xj;
        }
        x.push(s / Rational::from_f64(l[i][i]).unwrap());
    }
    x
}

#[test]
fn general_right_hand_sides_round_to_nearest() {
    let m = 6;
    let mut g = Gen(31);
    let l: Vec<Vec<f64>> = (0..m)
        .map(|i| {
            (0..m)
                .map(|j| {
                    if j <= i {
                        g.unit() + if i == j { 3.0 } else { 0.0 }
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let b: Vec<f64> = (0..m).map(|_| g.unit()).collect();
    for ty in ["f32", "f64"] {
        let hlo = module_text(
            &[&format!("{ty}[6,6]"), &format!("{ty}[6,1]")],
            &format!("{ty}[6,1] triangular-solve(p0, p1), left_side=true, lower=true"),
        );
        let got = run(
            &hlo,
            &[
                real(&format!("{ty}[6,6]"), &l.concat()),
                real(&format!("{ty}[6,1]"), &b),
            ],
        )
        .unwrap();
        let got = got.as_array().unwrap().to_f64s().unwrap();
        for (x, g) in forward(&l, &b).iter().zip(&got) {
            let want = if ty == "f32" {
                rug::Float::with_val(24, x).to_f64()
            } else {
                rug::Float::with_val(53, x).to_f64()
            };
            assert_eq!(*g, want, "{ty}");
        }
    }
}

#[test]
fn singular_and_non_finite_solves_are_nan() {
    let hlo = module_text(
        &["f32[2,2,2]", "f32[2,2,2]"],
        "f32[2,2,2] triangular-solve(p0, p1), left_side=true, lower=true",
    );
    // Batch 0 singular; batch 1 regular with a NaN in column 1 of b.
    let a = real("f32[2,2,2]", &[0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, 4.0]);
    let b = real("f32[2,2,2]", &[1.0, 1.0, 1.0, 1.0, 2.0, f64::NAN, 5.0, 1.0]);
    let got = run(&hlo, &[a, b])
        .unwrap()
        .as_array()
        .unwrap()
        .to_f64s()
        .unwrap();
    assert!(got[..4].iter().all(|v| v.is_nan()));
    assert_eq!(got[4], 1.0); // x00 = 2/2
    assert!(got[5].is_nan() && got[7].is_nan());
    assert_eq!(got[6], 1.0); // (5 − 1·1)/4
}

#[test]
fn layout_and_errors() {
    let body = "triangular-solve(p0, p1), left_side=false, lower=false, transpose_a=TRANSPOSE";
    let a = [2.0, 1.0, 0.0, 4.0];
    let b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let run_with = |layout: &str| {
        let hlo = module_text(
            &["f64[2,2]", "f64[3,2]"],
            &format!("f64[3,2]{layout} {body}"),
        );
        bits_of(&run(&hlo, &[real("f64[2,2]", &a), real("f64[3,2]", &b)]).unwrap())
    };
    assert_eq!(run_with("{0,1}"), run_with("{1,0}"));
    let hlo = module_text(&["f64[2,2]", "f64[2,3]"], &format!("f64[2,3] {body}"));
    let r = run(&hlo, &[real("f64[2,2]", &a), real("f64[2,3]", &b)]);
    assert!(matches!(r, Err(BackendError::Invalid(_))), "{r:?}");
    let hlo = module_text(&["f16[2,2]", "f16[3,2]"], &format!("f16[3,2] {body}"));
    let r = run(&hlo, &[real("f16[2,2]", &a), real("f16[3,2]", &b)]);
    assert!(matches!(r, Err(BackendError::Unsupported(_))), "{r:?}");
}
