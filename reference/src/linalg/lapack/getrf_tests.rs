//! getrf: known answers (the singular example of docs/custom-calls.md, tall and wide matrices),
//! exact P·L·U = A with LAPACK's pivot rule (cabs1, first on ties), the gauge (an admissible
//! tie or cancellation-level near-tie adopted, an inadmissible pivot refused), non-finite batch
//! elements, the scales, a floating-point LU within the bound, and the interpreter's handler.

#![allow(clippy::needless_range_loop)] // index arithmetic mirrors the formulas

use super::super::super::exact::CRat;
use super::super::super::test_util::*;
use super::super::{aligned, Evaluation};
use super::{cabs1, factor};
use conformance_spec::hlo::ir::HloModule;
use conformance_spec::literal::{ArrayLiteral, Literal};
use rug::Rational;

fn getrf_module(ty: &str, dims: &[usize]) -> HloModule {
    let nb = dims.len() - 2;
    let list = |d: &[usize]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let rank = dims.len();
    let mut layout = vec![rank - 2, rank - 1];
    layout.extend((0..nb).rev());
    let batch_layout = list(&(0..nb).rev().collect::<Vec<_>>());
    let mut ipiv_dims = dims[..nb].to_vec();
    ipiv_dims.push(dims[nb].min(dims[nb + 1]));
    let mut ipiv_layout: Vec<usize> = vec![nb];
    ipiv_layout.extend((0..nb).rev());
    let letter = match ty {
        "f32" => 's',
        "f64" => 'd',
        "c64" => 'c',
        _ => 'z',
    };
    let a = format!("{ty}[{}]{{{}}}", list(dims), list(&layout));
    let root = format!(
        "({a}, s32[{}]{{{}}}, s32[{}]{{{batch_layout}}}) custom-call(p0), custom_call_target=\"lapack_{letter}getrf_ffi\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={{num_batch_dims=\"{nb}\"}}, backend_config={{}}",
        list(&ipiv_dims),
        list(&ipiv_layout),
        list(&dims[..nb]),
    );
    module(&[&a], &root)
}

fn eval(m: &HloModule, a: &Literal, got: Option<&Literal>) -> Evaluation {
    aligned(m, std::slice::from_ref(a), got)
        .expect("evaluates")
        .expect("a LAPACK root")
}

fn ints(bits: &[u128]) -> Vec<i32> {
    bits.iter().map(|&b| b as u32 as i32).collect()
}

fn f64s(bits: &[u128]) -> Vec<f64> {
    bits.iter().map(|&b| f64::from_bits(b as u64)).collect()
}

/// A backend result `(lu, ipiv, info)` for an unbatched call: only ipiv matters to the gauge.
fn backend(ty: &str, m: usize, n: usize, ipiv: &[i128]) -> Literal {
    let int = |shape: &str, v: &[i128]| {
        Literal::Array(ArrayLiteral::from_i128s(parse_shape_array(shape), v).unwrap())
    };
    Literal::Tuple(vec![
        real(&format!("{ty}[{m},{n}]"), &vec![0.0; m * n]),
        int(&format!("s32[{}]", ipiv.len()), ipiv),
        int("s32[]", &[0]),
    ])
}

#[test]
fn singular_matrix_of_the_note() {
    let a = real(
        "f32[3,3]{0,1}",
        &[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 1.0, 1.0],
    );
    let e = eval(&getrf_module("f32", &[3, 3]), &a, None);
    let out = leaves(&e.result);
    let lu: Vec<f32> = out[0].iter().map(|&b| f32::from_bits(b as u32)).collect();
    assert_eq!(lu, vec![2.0, 4.0, 6.0, 0.5, -1.0, -2.0, 0.5, 0.0, 0.0]);
    assert_eq!(ints(&out[1]), vec![2, 3, 3]);
    assert_eq!(ints(&out[2]), vec![3]);
    // Everything before the zero pivot is bounded; U(2,2), from the zero pivot on, is not.
    for (o, s) in e.scales[0].iter().enumerate() {
        assert_eq!(s.masked, o == 8, "{o}: {s:?}");
        assert_eq!(s.n, 18);
    }
    assert!(e.scales[1].iter().all(|s| !s.masked && s.scale == 0.0));
    assert!(e.scales[2][0].masked);
}

#[test]
fn tall_and_wide_known_answers() {
    let a = real("f64[3,2]{0,1}", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let e = eval(&getrf_module("f64", &[3, 2]), &a, None);
    let out = leaves(&e.result);
    assert_eq!(
        f64s(&out[0]),
        vec![5.0, 6.0, 1.0 / 5.0, 4.0 / 5.0, 3.0 / 5.0, 0.5]
    );
    assert_eq!(ints(&out[1]), vec![3, 3]);
    assert_eq!(ints(&out[2]), vec![0]);
    let a = real("f64[2,3]{0,1}", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let e = eval(&getrf_module("f64", &[2, 3]), &a, None);
    let out = leaves(&e.result);
    assert_eq!(f64s(&out[0]), vec![4.0, 5.0, 6.0, 0.25, 0.75, 1.5]);
    assert_eq!(ints(&out[1]), vec![2, 2]);
    assert_eq!(ints(&out[2]), vec![0]);
    assert!(e.scales.iter().flatten().all(|s| !s.masked));
}

/// `P·L·U` of a factorization (ipiv applied in reverse to the rows of L·U).
fn reconstruct(lu: &[Vec<CRat>], ipiv: &[usize]) -> Vec<Vec<CRat>> {
    let (m, n) = (lu.len(), lu[0].len());
    let k = m.min(n);
    let mut a: Vec<Vec<CRat>> = (0..m)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let mut acc = CRat::default();
                    for r in 0..k.min(i + 1).min(j + 1) {
                        let l = if r == i {
                            CRat::one()
                        } else {
                            lu[i][r].clone()
                        };
                        acc = acc.add(&l.mul(&lu[r][j]));
                    }
                    acc
                })
                .collect()
        })
        .collect();
    for s in (0..k).rev() {
        a.swap(s, ipiv[s]);
    }
    a
}

#[test]
fn exact_plu_reconstructs_a_with_lapack_pivots() {
    let mut gen = Gen(21);
    for (m, n) in [(5, 5), (6, 4), (4, 6), (1, 3), (3, 1)] {
        for complex_ty in [false, true] {
            let a: Vec<Vec<CRat>> = (0..m)
                .map(|_| {
                    (0..n)
                        .map(|_| CRat {
                            re: Rational::from(gen.int(4) as i64),
                            im: Rational::from(if complex_ty { gen.int(4) as i64 } else { 0 }),
                        })
                        .collect()
                })
                .collect();
            let f = factor(a.clone(), None, &Rational::new(), usize::MAX);
            assert_eq!(reconstruct(&f.lu, &f.ipiv), a, "{m}x{n}");
            // The pivots maximize cabs1: real multipliers have |l| ≤ 1, complex ones
            // |l| ≤ cabs1(x)/|y| ≤ cabs1(y)/|y| ≤ √2.
            for i in 0..m {
                for j in 0..i.min(n) {
                    let l = &f.lu[i][j];
                    if complex_ty {
                        assert!(l.norm_sqr() <= 2, "{m}x{n} ({i},{j})");
                    } else {
                        assert!(cabs1(l) <= 1, "{m}x{n} ({i},{j})");
                    }
                }
            }
            // info: the first exactly zero pivot.
            let first_zero = (0..m.min(n))
                .find(|&s| f.lu[s][s].is_zero())
                .map_or(0, |s| s + 1);
            assert_eq!(f.info, first_zero);
        }
    }
}

#[test]
fn complex_pivots_compare_cabs1() {
    // |3| > |2+2i| but cabs1(2+2i) = 4 > 3: LAPACK's icamax picks row 2.
    let a = complex(
        "c64[2,2]{0,1}",
        &[(3.0, 0.0), (1.0, 0.0), (2.0, 2.0), (1.0, 0.0)],
    );
    let e = eval(&getrf_module("c64", &[2, 2]), &a, None);
    assert_eq!(ints(&leaves(&e.result)[1]), vec![2, 2]);
}

#[test]
fn ties_take_the_first_row_unless_the_backend_chose_another_admissible_one() {
    let m = getrf_module("f64", &[2, 2]);
    let a = real("f64[2,2]{0,1}", &[1.0, 2.0, 1.0, 3.0]);
    let e = eval(&m, &a, None);
    let out = leaves(&e.result);
    assert_eq!(ints(&out[1]), vec![1, 2]);
    assert_eq!(f64s(&out[0]), vec![1.0, 2.0, 1.0, 1.0]);
    // The backend took row 2 on the tie: adopted.
    let e = eval(&m, &a, Some(&backend("f64", 2, 2, &[2, 2])));
    let out = leaves(&e.result);
    assert_eq!(ints(&out[1]), vec![2, 2]);
    assert_eq!(f64s(&out[0]), vec![1.0, 3.0, 1.0, -1.0]);
    // [[1, 2], [3, 4]]: row 1 is no candidate (1 < 3): refused, the canonical row 2 stays.
    let b = real("f64[2,2]{0,1}", &[1.0, 2.0, 3.0, 4.0]);
    let e = eval(&m, &b, Some(&backend("f64", 2, 2, &[1, 2])));
    assert_eq!(ints(&leaves(&e.result)[1]), vec![2, 2]);
    // Out-of-range pivots are ignored too.
    for bad in [0, 3, -7] {
        let e = eval(&m, &b, Some(&backend("f64", 2, 2, &[bad, 2])));
        assert_eq!(ints(&leaves(&e.result)[1]), vec![2, 2], "{bad}");
    }
}

#[test]
fn gauge_admits_pivots_that_cancellation_leaves_within_rounding() {
    // Column 2 of the Schur complement is (2^-22, 2^-21) from 1 + ε − 1: rounding errors of
    // size u·2 decide between them in f32, so the backend's row 2 is admissible.
    let e1 = 2f64.powi(-22);
    let e2 = 2f64.powi(-21);
    let a = real("f32[3,2]{0,1}", &[1.0, 1.0, 1.0, 1.0 + e1, 1.0, 1.0 + e2]);
    let m = getrf_module("f32", &[3, 2]);
    let canonical = eval(&m, &a, None);
    assert_eq!(ints(&leaves(&canonical.result)[1]), vec![1, 3]);
    let e = eval(&m, &a, Some(&backend("f32", 3, 2, &[1, 2])));
    assert_eq!(ints(&leaves(&e.result)[1]), vec![1, 2]);
    // In f64 the same difference is far above rounding: refused.
    let a = real("f64[3,2]{0,1}", &[1.0, 1.0, 1.0, 1.0 + e1, 1.0, 1.0 + e2]);
    let e = eval(
        &getrf_module("f64", &[3, 2]),
        &a,
        Some(&backend("f64", 3, 2, &[1, 2])),
    );
    assert_eq!(ints(&leaves(&e.result)[1]), vec![1, 3]);
}

#[test]
fn non_finite_batch_elements_are_masked_alone() {
    let a = real(
        "f64[2,2,2]{1,2,0}",
        &[4.0, 1.0, 2.0, 3.0, f64::NAN, 1.0, 2.0, 3.0],
    );
    let e = eval(&getrf_module("f64", &[2, 2, 2]), &a, None);
    let out = leaves(&e.result);
    assert_eq!(f64s(&out[0][..4]), vec![4.0, 1.0, 0.5, 2.5]);
    assert_eq!(ints(&out[1]), vec![1, 2, 1, 2]);
    assert_eq!(ints(&out[2]), vec![0, 0]);
    let masked = |leaf: usize| -> Vec<bool> { e.scales[leaf].iter().map(|s| s.masked).collect() };
    assert_eq!(masked(0), [[false; 4], [true; 4]].concat());
    assert_eq!(masked(1), vec![false, false, true, true]);
    assert_eq!(masked(2), vec![false, true]);
}

#[test]
fn scales_of_a_well_conditioned_matrix() {
    // P·A = L·U with L = [[1, 0], [1/3, 1]], U = [[3, 4], [0, 2/3]].
    let a = real("f64[2,2]{0,1}", &[1.0, 2.0, 3.0, 4.0]);
    let e = eval(&getrf_module("f64", &[2, 2]), &a, None);
    let l_norm = (2.0f64 + 1.0 / 9.0).sqrt();
    let u_norm = (25.0f64 + 4.0 / 9.0).sqrt();
    for (o, s) in e.scales[0].iter().enumerate() {
        assert!(!s.masked && s.n == 12 && s.kappa >= 1.0 && s.kappa.is_finite());
        let want = if o == 2 { l_norm } else { u_norm };
        assert!((s.scale - want).abs() <= 1e-12 * want, "{o}: {s:?}");
    }
    // κ_r grows with r.
    assert!(e.scales[0][0].kappa <= e.scales[0][3].kappa);
    assert!(e.scales[1]
        .iter()
        .chain(&e.scales[2])
        .all(|s| !s.masked && s.scale == 0.0));
}

#[test]
fn floating_point_lu_is_within_the_bound() {
    let n = 8;
    let mut gen = Gen(99);
    let vals: Vec<f64> = (0..n * n).map(|_| gen.unit()).collect();
    let a = real("f32[8,8]{0,1}", &vals);
    let e = eval(&getrf_module("f32", &[8, 8]), &a, None);
    let out = leaves(&e.result);
    let ipiv = ints(&out[1]);
    // Right-looking GEPP in f32 with the reference's pivots.
    let mut w: Vec<Vec<f32>> = (0..n)
        .map(|i| (0..n).map(|j| vals[i * n + j] as f32).collect())
        .collect();
    for s in 0..n {
        w.swap(s, ipiv[s] as usize - 1);
        for i in s + 1..n {
            w[i][s] /= w[s][s];
            for c in s + 1..n {
                w[i][c] -= w[i][s] * w[s][c];
            }
        }
    }
    let u = 2f64.powi(-24);
    for i in 0..n {
        for j in 0..n {
            let s = e.scales[0][i * n + j];
            let amp = s.n as f64 * u * s.kappa;
            assert!(amp < 0.5, "{s:?}");
            let allowance = amp * s.scale / (1.0 - amp);
            let exact = f32::from_bits(out[0][i * n + j] as u32) as f64;
            let err = (w[i][j] as f64 - exact).abs();
            assert!(
                err <= allowance + 1e-7 * exact.abs(),
                "({i},{j}): {err} > {allowance}"
            );
        }
    }
}

#[test]
fn the_interpreter_returns_the_result_in_the_call_layout() {
    let m = getrf_module("f64", &[2, 3, 3]);
    let mut gen = Gen(3);
    let vals: Vec<f64> = (0..18).map(|_| gen.int(5)).collect();
    let a = real("f64[2,3,3]{1,2,0}", &vals);
    let run = crate::interpreter::execute(&m, std::slice::from_ref(&a)).expect("runs");
    let e = eval(&m, &a, None);
    assert_eq!(run.shape(), e.result.shape());
    assert_eq!(
        run.shape().to_string(),
        m.entry_computation().root_instruction().shape.to_string()
    );
    assert_eq!(leaves(&run), leaves(&e.result));
}

/// Seed 1, case 60, batch element 1 (f32 6×8): column 3 is twice column 0, so the exact Schur
/// complement column at step 3 is zero (info 4), where floating point finds a pivot of ~1e-7
/// (LAPACK and fast: ipiv 3 4 5 4 6 6, info 0).
const CASE60: [u32; 48] = [
    0xbf000000, 0x3f4771ba, 0xbec598d7, 0xbf800000, 0xbe8776c2, 0x3fc00000, 0xbfc00000, 0xc0000000,
    0xbf21d891, 0x3efd1a2a, 0x3d2c032e, 0xbfa1d891, 0xbf34c986, 0x00000000, 0xbf2f9673, 0xbd9b157c,
    0xc0200000, 0x3f118512, 0x3f75f107, 0xc0a00000, 0xbefe0fd7, 0xbf487a57, 0xbf7aa0a7, 0x43be53b4,
    0x3eefe50d, 0xc24e0ad7, 0x3f606eb6, 0x3f6fe50d, 0xbeef6658, 0x3e607e75, 0x40000000, 0x3c26cfed,
    0x3f111ff5, 0xbf04d3b5, 0x420277c4, 0x3f911ff5, 0x3e191b68, 0x3d0f9005, 0xc57c03db, 0x4178842d,
    0x3f3e978c, 0x373429d6, 0x3f5a4f2f, 0x3fbe978c, 0x3f13e86f, 0x3ea6825c, 0xbf49fd59, 0x3996cb81,
];

fn f32_values(bits: &[u32]) -> Vec<f64> {
    bits.iter().map(|&b| f64::from(f32::from_bits(b))).collect()
}

/// A backend result `(lu, ipiv, info)` for a batched call of `batch` elements.
fn batched_backend(ty: &str, dims: &[usize], ipiv: &[i128], info: &[i128]) -> Literal {
    let int = |shape: String, v: &[i128]| {
        Literal::Array(ArrayLiteral::from_i128s(parse_shape_array(&shape), v).unwrap())
    };
    let nb = dims.len() - 2;
    let list = |d: &[usize]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut ipiv_dims = dims[..nb].to_vec();
    ipiv_dims.push(dims[nb].min(dims[nb + 1]));
    Literal::Tuple(vec![
        real(
            &format!("{ty}[{}]", list(dims)),
            &vec![0.0; dims.iter().product()],
        ),
        int(format!("s32[{}]", list(&ipiv_dims)), ipiv),
        int(format!("s32[{}]", list(&dims[..nb])), info),
    ])
}

#[test]
fn an_undetermined_zero_pivot_takes_the_backends_info() {
    let vals = f32_values(&CASE60);
    let two = [vals.clone(), vals.clone()].concat();
    let a = real("f32[2,6,8]{1,0,2}", &two);
    let m = getrf_module("f32", &[2, 6, 8]);
    // Canonical: the exact zero pivot, info 4, masked.
    let e = eval(&m, &a, None);
    assert_eq!(ints(&leaves(&e.result)[2]), vec![4, 4]);
    assert!(e.scales[2].iter().all(|s| s.masked));
    // In the gauge of a backend that found a tiny nonzero pivot (info 0), or of one that reports
    // the zero pivot: each backend's info, still masked; an impossible info stays the reference's.
    let got = batched_backend(
        "f32",
        &[2, 6, 8],
        &[3, 4, 5, 4, 6, 6, 3, 4, 5, 4, 6, 6],
        &[0, 4],
    );
    let e = eval(&m, &a, Some(&got));
    let out = leaves(&e.result);
    assert_eq!(ints(&out[1]), vec![3, 4, 5, 4, 6, 6, 3, 4, 5, 4, 6, 6]);
    assert_eq!(ints(&out[2]), vec![0, 4]);
    assert!(e.scales[2].iter().all(|s| s.masked));
    // ipiv is determined up to the zero pivot, masked from there.
    let masked: Vec<bool> = e.scales[1].iter().map(|s| s.masked).collect();
    assert_eq!(masked[..6], [false, false, false, false, true, true]);
    let got = batched_backend(
        "f32",
        &[2, 6, 8],
        &[3, 4, 5, 4, 6, 6, 3, 4, 5, 4, 6, 6],
        &[7, -1],
    );
    assert_eq!(
        ints(&leaves(&eval(&m, &a, Some(&got)).result)[2]),
        vec![4, 4]
    );
    // A well-conditioned matrix keeps its exact info whatever the backend says.
    let b = real("f64[2,2]{0,1}", &[1.0, 2.0, 3.0, 4.0]);
    let e = eval(
        &getrf_module("f64", &[2, 2]),
        &b,
        Some(&backend("f64", 2, 2, &[2, 2])),
    );
    assert_eq!(ints(&leaves(&e.result)[2]), vec![0]);
    assert!(!e.scales[2][0].masked);
}

/// Seed 1, case 88, batch element [1, 1] (c64 8×4): column 0 is twice column 2, so the exact
/// Schur-complement column at step 2 is zero; floating point finds a pivot of ~1e-7 there and
/// eliminates with it (multipliers noise/noise), so its step-3 column is unrelated to the exact
/// one (fast: ipiv 6 6 7 4; the exact column's largest entry is in row 8).
const CASE88: [(u32, u32); 32] = [
    (0x3fb4a481, 0x3f1de9be),
    (0x3f76ca5f, 0xbf32a99b),
    (0x3f34a481, 0x3e9de9be),
    (0xbf5798c6, 0xbeb806cc),
    (0x40000000, 0xbf4c864d),
    (0x3f695e11, 0x3fc00000),
    (0x3f800000, 0xbecc864d),
    (0x3e8f2a51, 0x3e140887),
    (0xc0400000, 0xbeab0b03),
    (0x3e139a74, 0xbf0770a4),
    (0xbfc00000, 0xbe2b0b03),
    (0xbf39ce81, 0x3f2a0640),
    (0x3fb4d3a7, 0xbd944750),
    (0x3f2e1384, 0x3f104f9a),
    (0x3f34d3a7, 0xbd144750),
    (0xbe3b09a6, 0xc0600000),
    (0x3f6378e1, 0xbf36bdf2),
    (0x3d02d12a, 0xbfc00000),
    (0x3ee378e1, 0xbeb6bdf2),
    (0xbe77c967, 0xc0000000),
    (0xc0759571, 0x3f358ae9),
    (0xbe8583f3, 0xc0000000),
    (0xbff59571, 0x3eb58ae9),
    (0x3ee78ead, 0x3e3ef815),
    (0xbf84dc55, 0xbf471a3b),
    (0x3f800000, 0xbd1a34c5),
    (0xbf04dc55, 0xbec71a3b),
    (0xbedb2140, 0x40400000),
    (0xbc052e94, 0x3f5ac48f),
    (0x3f360521, 0x3d1a4c95),
    (0xbb852e94, 0x3edac48f),
    (0xbf382045, 0xc0600000),
];

#[test]
fn pivots_after_an_undetermined_step_are_the_backends() {
    let vals: Vec<(f64, f64)> = CASE88
        .iter()
        .map(|&(r, i)| (f64::from(f32::from_bits(r)), f64::from(f32::from_bits(i))))
        .collect();
    // Batched (2×1 batch, the matrix twice), as in the case.
    let two = [vals.clone(), vals].concat();
    let a = complex("c64[2,1,8,4]{2,3,1,0}", &two);
    let m = getrf_module("c64", &[2, 1, 8, 4]);
    let canonical = eval(&m, &a, None);
    assert_eq!(
        ints(&leaves(&canonical.result)[1]),
        vec![6, 6, 3, 7, 6, 6, 3, 7]
    );
    assert_eq!(ints(&leaves(&canonical.result)[2]), vec![3, 3]);
    // The backend's row 7 at the zero step 2 is adopted (any row of a zero column is), after
    // which the exact step-3 column's largest entry is in row 8.
    let exact = batched_backend("c64", &[2, 1, 8, 4], &[6, 6, 7, 1, 6, 6, 7, 1], &[0, 0]);
    let x = eval(&m, &a, Some(&exact));
    assert_eq!(ints(&leaves(&x.result)[1]), vec![6, 6, 7, 8, 6, 6, 7, 8]);
    // Batch 0 in the gauge of the backend's pivots (4 at step 3, on a column of noise: adopted),
    // batch 1 with an out-of-range pivot at the undetermined step (refused).
    let got = batched_backend("c64", &[2, 1, 8, 4], &[6, 6, 7, 4, 6, 6, 7, 9], &[0, 0]);
    let e = eval(&m, &a, Some(&got));
    let out = leaves(&e.result);
    assert_eq!(ints(&out[1]), vec![6, 6, 7, 4, 6, 6, 7, 8]);
    assert_eq!(ints(&out[2]), vec![0, 0]);
    // Rows 3 and 7 of L's determined columns 0 and 1 follow the backend's swap, and those
    // elements are compared (not masked).
    let lu_x = &leaves(&x.result)[0];
    for j in 0..2 {
        assert_eq!(out[0][3 * 4 + j], lu_x[7 * 4 + j]);
        assert_eq!(out[0][7 * 4 + j], lu_x[3 * 4 + j]);
        assert!(!e.scales[0][3 * 4 + j].masked && !e.scales[0][7 * 4 + j].masked);
    }
    let masked: Vec<bool> = e.scales[1].iter().map(|s| s.masked).collect();
    assert_eq!(
        masked,
        [false, false, false, true, false, false, false, true]
    );
}

/// Masked integer elements (here ipiv and info of a batch element holding a NaN) take the
/// backend's values in its gauge: implementation-defined, they agree whether or not a comparison
/// honours the mask of an integer element. Determined ones stay the reference's.
#[test]
fn masked_integers_take_the_backends_values() {
    let a = real(
        "f64[2,2,2]{1,2,0}",
        &[4.0, 1.0, 2.0, 3.0, f64::NAN, 1.0, 2.0, 3.0],
    );
    let m = getrf_module("f64", &[2, 2, 2]);
    let got = batched_backend("f64", &[2, 2, 2], &[2, 2, 2, 2], &[5, 1]);
    let e = eval(&m, &a, Some(&got));
    let out = leaves(&e.result);
    assert_eq!(ints(&out[1]), vec![1, 2, 2, 2]);
    assert_eq!(ints(&out[2]), vec![0, 1]);
    // Values LAPACK cannot return (a row above the step, info beyond k) are not adopted.
    let got = batched_backend("f64", &[2, 2, 2], &[2, 2, 2, 1], &[0, -3]);
    let out = leaves(&eval(&m, &a, Some(&got)).result);
    assert_eq!(ints(&out[1]), vec![1, 2, 2, 2]);
    assert_eq!(ints(&out[2]), vec![0, 0]);
    // Canonical (no backend): the reference's own values.
    let e = eval(&m, &a, None);
    assert_eq!(ints(&leaves(&e.result)[1]), vec![1, 2, 1, 2]);
}
