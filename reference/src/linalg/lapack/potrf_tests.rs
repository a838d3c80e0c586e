//! potrf: a known factor (lower and upper) with the other triangle kept bit for bit, agreement
//! with HLO cholesky, a non-positive-definite matrix (info = 2) and the gauge of its info,
//! non-finite input, an ill-conditioned positive definite matrix (info masked), complex batches.

use super::super::super::test_util::*;
use super::super::{aligned, Evaluation};
use conformance_spec::literal::Literal;

/// The potrf module for `ty[dims]` (column-major matrices, as JAX lays them out).
fn potrf_module(ty: &str, dims: &[usize], uplo: u8) -> conformance_spec::hlo::ir::HloModule {
    let nb = dims.len() - 2;
    let list = |d: &[usize]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let layout = |rank: usize| {
        let mut l = vec![rank - 2, rank - 1];
        l.extend((0..rank - 2).rev());
        list(&l)
    };
    let batch = &dims[..nb];
    let info_layout = list(&(0..nb).rev().collect::<Vec<_>>());
    let letter = match ty {
        "f32" => 's',
        "f64" => 'd',
        "c64" => 'c',
        _ => 'z',
    };
    let a = format!("{ty}[{}]{{{}}}", list(dims), layout(dims.len()));
    let root = format!(
        "({a}, s32[{}]{{{info_layout}}}) custom-call(p0), custom_call_target=\"lapack_{letter}potrf_ffi\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={{num_batch_dims=\"{nb}\"}}, backend_config={{uplo = {uplo} : ui8}}",
        list(batch)
    );
    module(&[&a], &root)
}

fn eval(
    m: &conformance_spec::hlo::ir::HloModule,
    a: &Literal,
    got: Option<&Literal>,
) -> Evaluation {
    aligned(m, std::slice::from_ref(a), got)
        .expect("evaluates")
        .expect("a LAPACK root")
}

const L: u8 = 76;
const U: u8 = 85;

#[test]
fn known_factor_and_the_other_triangle_untouched() {
    // A = L·Lᵀ with L = [[2,0,0],[1,3,0],[-1,1,2]].
    let a_full = [4.0, 2.0, -2.0, 2.0, 10.0, 2.0, -2.0, 2.0, 6.0];
    let l = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 1.0, 2.0];
    let nan_payload = f32::from_bits(0x7fc0_1234);
    for uplo in [L, U] {
        let lower = uplo == L;
        // The unread triangle holds garbage (7, a NaN with a payload, -0).
        let garbage = [7.0f32, nan_payload, -0.0];
        let mut values = Vec::new();
        let mut g = 0;
        for i in 0..3 {
            for j in 0..3 {
                let read = if lower { i >= j } else { i <= j };
                if read {
                    values.push(a_full[i * 3 + j] as f32);
                } else {
                    values.push(garbage[g]);
                    g += 1;
                }
            }
        }
        let bits: Vec<u128> = values.iter().map(|v| u128::from(v.to_bits())).collect();
        let arg = Literal::Array(
            conformance_spec::literal::ArrayLiteral::from_bits(
                parse_shape_array("f32[3,3]{0,1}"),
                &bits,
            )
            .unwrap(),
        );
        let m = potrf_module("f32", &[3, 3], uplo);
        let e = eval(&m, &arg, None);
        let out = leaves(&e.result);
        for i in 0..3 {
            for j in 0..3 {
                let o = i * 3 + j;
                let read = if lower { i >= j } else { i <= j };
                if read {
                    let want = if lower { l[o] } else { l[j * 3 + i] } as f32;
                    assert_eq!(
                        out[0][o],
                        u128::from(want.to_bits()),
                        "({i},{j}) uplo {uplo}"
                    );
                    let s = e.scales[0][o];
                    assert!(!s.masked && s.scale > 0.0 && s.kappa.is_finite(), "{s:?}");
                    assert_eq!(s.n, 12 * 9);
                } else {
                    assert_eq!(out[0][o], bits[o], "({i},{j}) copied bit for bit");
                    assert_eq!(e.scales[0][o].scale, 0.0);
                    assert!(!e.scales[0][o].masked);
                }
            }
        }
        assert_eq!(out[1], vec![0]);
        assert_eq!(e.scales[1][0].scale, 0.0);
        assert!(!e.scales[1][0].masked);
    }
}

#[test]
fn lower_triangle_agrees_with_hlo_cholesky() {
    let mut gen = Gen(11);
    let n = 5;
    // A = B·Bᴴ + n·I, complex, well conditioned.
    let b: Vec<(f64, f64)> = (0..n * n).map(|_| (gen.unit(), gen.unit())).collect();
    let mut a = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        for j in 0..n {
            let mut s = if i == j { (n as f64, 0.0) } else { (0.0, 0.0) };
            for k in 0..n {
                let (p, q) = (b[i * n + k], b[j * n + k]);
                s.0 += p.0 * q.0 + p.1 * q.1;
                s.1 += p.1 * q.0 - p.0 * q.1;
            }
            a[i * n + j] = s;
        }
    }
    for i in 0..n {
        a[i * n + i].1 = 0.0;
        for j in 0..i {
            // Hermitian exactly (the products above are not exact in f64 in general).
            a[j * n + i] = (a[i * n + j].0, -a[i * n + j].1);
        }
    }
    let arg = complex("c128[5,5]{0,1}", &a);
    let e = eval(&potrf_module("c128", &[5, 5], L), &arg, None);
    let hlo = module_text(
        &["c128[5,5]{1,0}"],
        "c128[5,5]{1,0} cholesky(p0), lower=true",
    );
    let chol = run(&hlo, std::slice::from_ref(&arg)).expect("cholesky");
    let (got, want) = (leaves(&e.result), bits_of(&chol));
    for i in 0..n {
        for j in 0..=i {
            assert_eq!(got[0][i * n + j], want[i * n + j], "({i},{j})");
        }
    }
    assert_eq!(got[1], vec![0]);
}

#[test]
fn not_positive_definite_reports_the_first_failing_minor() {
    let a = real(
        "f64[3,3]{0,1}",
        &[4.0, 2.0, 0.0, 2.0, 1.0, 3.0, 0.0, 3.0, -5.0],
    );
    let m = potrf_module("f64", &[3, 3], L);
    let e = eval(&m, &a, None);
    let out = leaves(&e.result);
    assert_eq!(out[1], vec![2]);
    // The factor triangle is implementation-defined; the copied strict upper is exact.
    for i in 0..3 {
        for j in 0..3 {
            let s = e.scales[0][i * 3 + j];
            assert_eq!(s.masked, i >= j, "({i},{j})");
            if j > i {
                assert_eq!(s.scale, 0.0);
                assert_eq!(
                    out[0][i * 3 + j],
                    u128::from([2.0f64, 0.0, 3.0][i + j - 1].to_bits())
                );
            }
        }
    }
    assert!(!e.scales[1][0].masked);
    assert_eq!(e.scales[1][0].scale, 0.0);
    // Gauge: the backend's info is adopted when it is one (1 ≤ info ≤ 3), else the canonical 2.
    let backend = |info: i128| {
        Literal::Tuple(vec![
            real("f64[3,3]{0,1}", &[f64::NAN; 9]),
            Literal::Array(
                conformance_spec::literal::ArrayLiteral::from_i128s(
                    parse_shape_array("s32[]"),
                    &[info],
                )
                .unwrap(),
            ),
        ])
    };
    for (g, want) in [(3, 3), (1, 1), (0, 2), (4, 2), (-1, 2)] {
        let e = eval(&m, &a, Some(&backend(g)));
        assert_eq!(leaves(&e.result)[1], vec![want as u128], "backend info {g}");
    }
}

#[test]
fn nearly_semidefinite_matrix_has_info_masked() {
    // [[1, 1], [1, 1 − 2^-20]]: d₂ = −2^-20, within Cholesky's backward error in f32 (a backend
    // may complete), far outside it in f64.
    let vals = [1.0, 0.0, 1.0, 1.0 - 2f64.powi(-20)];
    let e = eval(
        &potrf_module("f32", &[2, 2], L),
        &real("f32[2,2]{0,1}", &vals),
        None,
    );
    assert_eq!(leaves(&e.result)[1], vec![2]);
    assert!(e.scales[1][0].masked);
    let e = eval(
        &potrf_module("f64", &[2, 2], L),
        &real("f64[2,2]{0,1}", &vals),
        None,
    );
    assert_eq!(leaves(&e.result)[1], vec![2]);
    assert!(!e.scales[1][0].masked);
}

#[test]
fn a_positive_definite_matrix_keeps_info_zero_in_the_gauge() {
    let a = real("f64[2,2]{0,1}", &[4.0, 0.0, 2.0, 5.0]);
    let m = potrf_module("f64", &[2, 2], L);
    let backend = Literal::Tuple(vec![
        real("f64[2,2]{0,1}", &[0.0; 4]),
        Literal::Array(
            conformance_spec::literal::ArrayLiteral::from_i128s(parse_shape_array("s32[]"), &[2])
                .unwrap(),
        ),
    ]);
    let e = eval(&m, &a, Some(&backend));
    let out = leaves(&e.result);
    assert_eq!(out[1], vec![0]);
    assert_eq!(
        out[0],
        [2.0f64, 0.0, 1.0, 2.0]
            .iter()
            .map(|v| u128::from(v.to_bits()))
            .collect::<Vec<_>>()
    );
}

#[test]
fn non_finite_input_masks_factor_and_info() {
    for bad in [f64::NAN, f64::INFINITY] {
        let a = real("f32[2,2]{0,1}", &[4.0, 9.0, bad, 5.0]);
        let e = eval(&potrf_module("f32", &[2, 2], L), &a, None);
        let out = leaves(&e.result);
        assert!(e.scales[1][0].masked);
        for (o, s) in e.scales[0].iter().enumerate() {
            let upper = o == 1;
            assert_eq!(s.masked, !upper, "{o}");
            if upper {
                assert_eq!(out[0][o], u128::from(9.0f32.to_bits()));
            } else {
                assert!(f32::from_bits(out[0][o] as u32).is_nan());
            }
        }
    }
}

#[test]
fn ill_conditioned_positive_definite_masks_info() {
    // [[1, 1], [1, 1 + 2^-20]] is positive definite, κ ≈ 2^22: 12·4·2^-24·κ ≥ ½ in f32.
    let a = real("f32[2,2]{0,1}", &[1.0, 0.0, 1.0, 1.0 + 2f64.powi(-20)]);
    let e = eval(&potrf_module("f32", &[2, 2], L), &a, None);
    assert_eq!(leaves(&e.result)[1], vec![0]);
    assert!(e.scales[1][0].masked);
    assert!(!e.scales[0][0].masked && e.scales[0][0].kappa > 1e6);
}

#[test]
fn complex_batches_are_independent() {
    // Batch 0: [[4, 2-2i], [2+2i, 6]] = L·Lᴴ with L = [[2, 0], [1+i, 2]]; batch 1 not PD.
    // Upper (uplo = U) reads the upper triangle: A = Uᴴ·U with U = Lᴴ.
    let a = complex(
        "c64[2,2,2]{1,2,0}",
        &[
            (4.0, 0.0),
            (2.0, -2.0),
            (99.0, 1.0),
            (6.0, 0.0),
            (1.0, 0.0),
            (2.0, 0.0),
            (0.0, 0.0),
            (1.0, 0.0),
        ],
    );
    let e = eval(&potrf_module("c64", &[2, 2, 2], U), &a, None);
    let out = leaves(&e.result);
    assert_eq!(out[1], vec![0, 2]);
    let c = |re: f32, im: f32| u128::from(re.to_bits()) | (u128::from(im.to_bits()) << 32);
    assert_eq!(
        &out[0][..4],
        &[c(2.0, 0.0), c(1.0, -1.0), c(99.0, 1.0), c(2.0, 0.0)]
    );
    // Batch 1: the strict lower triangle (0) is copied, the factor triangle masked.
    assert_eq!(out[0][6], c(0.0, 0.0));
    let masked: Vec<bool> = e.scales[0][4..].iter().map(|s| s.masked).collect();
    assert_eq!(masked, vec![true, true, false, true]);
    // A non-real diagonal is implementation-defined (masked factor and info).
    let a = complex("c64[1,1]{0,1}", &[(4.0, 1.0)]);
    let e = eval(&potrf_module("c64", &[1, 1], L), &a, None);
    assert!(e.scales[0][0].masked && e.scales[1][0].masked);
}
