//! trsm: every side/uplo/trans/diag combination agrees bit for bit with HLO triangular-solve on
//! the same data (batched, real and complex), the scales are triangular-solve's with n = 4·m,
//! and the interpreter's custom-call handler returns the result in the call's layout.

use super::super::super::error_scales;
use super::super::super::test_util::*;
use super::super::aligned;

fn letter(ty: &str) -> char {
    match ty {
        "f32" => 's',
        "f64" => 'd',
        "c64" => 'c',
        _ => 'z',
    }
}

#[test]
fn every_option_agrees_with_hlo_triangular_solve() {
    let (m, k) = (4usize, 3usize);
    for ty in ["f64", "c64"] {
        let complex_ty = ty.starts_with('c');
        let mut gen = Gen(5);
        // a: [2, m, m] with a nonzero diagonal; the unread parts hold arbitrary values.
        let a_vals: Vec<(f64, f64)> = (0..2 * m * m)
            .map(|o| {
                let diag = (o % (m * m)) % (m + 1) == 0;
                let re = if diag {
                    2.0 + gen.int(2).abs()
                } else {
                    gen.int(3)
                };
                (re, if complex_ty { gen.int(2) } else { 0.0 })
            })
            .collect();
        let b_vals: Vec<(f64, f64)> = (0..2 * m * k)
            .map(|_| (gen.unit(), if complex_ty { gen.unit() } else { 0.0 }))
            .collect();
        let lit = |shape: &str, v: &[(f64, f64)]| {
            if complex_ty {
                complex(shape, v)
            } else {
                real(shape, &v.iter().map(|x| x.0).collect::<Vec<_>>())
            }
        };
        for left in [true, false] {
            let b_dims = if left { [2, m, k] } else { [2, k, m] };
            let b_shape = format!("{ty}[{},{},{}]", b_dims[0], b_dims[1], b_dims[2]);
            let a_shape = format!("{ty}[2,{m},{m}]");
            let a = lit(&format!("{a_shape}{{1,2,0}}"), &a_vals);
            let b = lit(&format!("{b_shape}{{1,2,0}}"), &b_vals);
            for lower in [true, false] {
                for (trans, transpose) in [(78, "NO_TRANSPOSE"), (84, "TRANSPOSE"), (67, "ADJOINT")]
                {
                    for unit in [false, true] {
                        let root = format!(
                            "{b_shape}{{1,2,0}} custom-call(p0, p1), custom_call_target=\"lapack_{}trsm_ffi\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={{num_batch_dims=\"1\"}}, backend_config={{diag = {} : ui8, side = {} : ui8, trans_x = {trans} : ui8, uplo = {} : ui8}}",
                            letter(ty),
                            if unit { 85 } else { 78 },
                            if left { 76 } else { 82 },
                            if lower { 76 } else { 85 },
                        );
                        let cc = module(
                            &[
                                &format!("{a_shape}{{1,2,0}}"),
                                &format!("{b_shape}{{1,2,0}}"),
                            ],
                            &root,
                        );
                        let args = [a.clone(), b.clone()];
                        let e = aligned(&cc, &args, None)
                            .expect("evaluates")
                            .expect("LAPACK");
                        let hlo = module(
                            &[&format!("{a_shape}{{2,1,0}}"), &format!("{b_shape}{{2,1,0}}")],
                            &format!("{b_shape}{{2,1,0}} triangular-solve(p0, p1), left_side={left}, lower={lower}, unit_diagonal={unit}, transpose_a={transpose}"),
                        );
                        let want = crate::interpreter::execute(&hlo, &args).expect("solves");
                        let what =
                            format!("{ty} left={left} lower={lower} {transpose} unit={unit}");
                        assert_eq!(bits_of(&e.result), bits_of(&want), "{what}");
                        // The interpreter's handler gives the same result in the call's layout.
                        let run = crate::interpreter::execute(&cc, &args).expect("runs");
                        assert_eq!(run.shape(), e.result.shape(), "{what}");
                        assert_eq!(bits_of(&run), bits_of(&want), "{what}");
                        let scales = error_scales(&hlo, &args).expect("scales").expect("some");
                        assert_eq!(e.scales.len(), 1);
                        for (s, t) in e.scales[0].iter().zip(&scales[0]) {
                            assert_eq!(s.n, 4 * m as u64, "{what}");
                            assert_eq!((s.kappa, s.scale, s.masked), (t.kappa, t.scale, t.masked));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn known_solution_and_singular_matrix() {
    // [[2, 0], [1, 4]]·x = [2, 9]ᵀ gives x = [1, 2]ᵀ; the upper 5 is not read.
    let root = "f32[2,1]{0,1} custom-call(p0, p1), custom_call_target=\"lapack_strsm_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}";
    let m = module(&["f32[2,2]{0,1}", "f32[2,1]{0,1}"], root);
    let args = [
        real("f32[2,2]{0,1}", &[2.0, 5.0, 1.0, 4.0]),
        real("f32[2,1]{0,1}", &[2.0, 9.0]),
    ];
    let e = aligned(&m, &args, None).unwrap().unwrap();
    assert_eq!(
        bits_of(&e.result),
        vec![u128::from(1f32.to_bits()), u128::from(2f32.to_bits())]
    );
    assert!(e.scales[0].iter().all(|s| !s.masked && s.n == 8));
    // A zero on the diagonal: implementation-defined.
    let args = [
        real("f32[2,2]{0,1}", &[2.0, 5.0, 1.0, 0.0]),
        real("f32[2,1]{0,1}", &[2.0, 9.0]),
    ];
    let e = aligned(&m, &args, None).unwrap().unwrap();
    assert!(e.scales[0].iter().all(|s| s.masked));
}
