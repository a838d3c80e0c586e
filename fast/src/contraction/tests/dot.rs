//! dot-general against the naive contraction, and malformed instructions.

use super::*;

/// Random dot-general cases for operand type `ty` and result type `rty`.
fn dot_cases(seed: u64, ty: ElementType, rty: ElementType, cases: usize) {
    let mut rng = Rng(seed);
    for _ in 0..cases {
        let nb = rng.below(3) as usize;
        let nc = rng.below(3) as usize;
        let nlf = rng.below(3) as usize;
        let nrf = rng.below(3) as usize;
        let size = |rng: &mut Rng| {
            if rng.below(12) == 0 {
                0
            } else {
                rng.range(1, 5)
            }
        };
        let bsz: Vec<i64> = (0..nb).map(|_| size(&mut rng)).collect();
        let csz: Vec<i64> = (0..nc).map(|_| rng.range(1, 9)).collect();
        let lfs: Vec<i64> = (0..nlf).map(|_| size(&mut rng)).collect();
        let rfs: Vec<i64> = (0..nrf).map(|_| size(&mut rng)).collect();
        // Positions: lhs dims = [batch, contracting, free] permuted.
        let lp = rng.perm(nb + nc + nlf);
        let rp = rng.perm(nb + nc + nrf);
        let mut ld = vec![0i64; lp.len()];
        let mut rd = vec![0i64; rp.len()];
        for i in 0..nb {
            ld[lp[i]] = bsz[i];
            rd[rp[i]] = bsz[i];
        }
        for i in 0..nc {
            ld[lp[nb + i]] = csz[i];
            rd[rp[nb + i]] = csz[i];
        }
        for i in 0..nlf {
            ld[lp[nb + nc + i]] = lfs[i];
        }
        for i in 0..nrf {
            rd[rp[nb + nc + i]] = rfs[i];
        }
        let mut lfree: Vec<usize> = lp[nb + nc..].to_vec();
        lfree.sort();
        let mut rfree: Vec<usize> = rp[nb + nc..].to_vec();
        rfree.sort();
        let out_dims: Vec<i64> = bsz
            .iter()
            .copied()
            .chain(lfree.iter().map(|&d| ld[d]))
            .chain(rfree.iter().map(|&d| rd[d]))
            .collect();
        let (ll, rl, ol) = (
            layout_text(&mut rng, ld.len()),
            layout_text(&mut rng, rd.len()),
            layout_text(&mut rng, out_dims.len()),
        );
        let t = ty.hlo_name();
        let mut attrs = String::new();
        if nb > 0 {
            attrs += &format!(
                ", lhs_batch_dims={{{}}}, rhs_batch_dims={{{}}}",
                ints_text(&lp[..nb]),
                ints_text(&rp[..nb])
            );
        }
        attrs += &format!(
            ", lhs_contracting_dims={{{}}}, rhs_contracting_dims={{{}}}",
            ints_text(&lp[nb..nb + nc]),
            ints_text(&rp[nb..nb + nc])
        );
        let hlo = format!(
            "HloModule t\nENTRY e {{\n  a = {t}[{}]{ll} parameter(0)\n  b = {t}[{}]{rl} parameter(1)\n  ROOT d = {}[{}]{ol} dot(a, b){attrs}\n}}\n",
            dims_text(&ld),
            dims_text(&rd),
            rty.hlo_name(),
            dims_text(&out_dims)
        );
        let lv = random_values(&mut rng, ty, ld.iter().product::<i64>() as usize);
        let rv = random_values(&mut rng, ty, rd.iter().product::<i64>() as usize);
        let got = run(
            &hlo,
            &[literal(ty, &ld, &ll, &lv), literal(ty, &rd, &rl, &rv)],
        );
        // Naive: every result index, every contracting index.
        let mut k = 0;
        conformance_spec::index::for_each_index(&out_dims, |o| {
            let (mut li, mut ri) = (vec![0i64; ld.len()], vec![0i64; rd.len()]);
            for i in 0..nb {
                li[lp[i]] = o[i];
                ri[rp[i]] = o[i];
            }
            for (j, &d) in lfree.iter().enumerate() {
                li[d] = o[nb + j];
            }
            for (j, &d) in rfree.iter().enumerate() {
                ri[d] = o[nb + lfree.len() + j];
            }
            let (mut s, mut a, mut n) = (0.0, 0.0, 0);
            conformance_spec::index::for_each_index(&csz, |c| {
                for i in 0..nc {
                    li[lp[nb + i]] = c[i];
                    ri[rp[nb + i]] = c[i];
                }
                let t = lv[rm(&ld, &li)] * rv[rm(&rd, &ri)];
                s += t;
                a += t.abs();
                n += 1;
            });
            if rty.is_integer() {
                s = (s as i64 as i32) as f64;
            }
            check_bound(rty, got[k], s, n.max(1), a, &hlo);
            k += 1;
        });
        assert_eq!(k, got.len());
    }
}

#[test]
fn dot_general_f32_any_dimensions_and_layouts() {
    dot_cases(11, ElementType::F32, ElementType::F32, 120);
}

#[test]
fn dot_general_mixed_and_other_types() {
    dot_cases(12, ElementType::Bf16, ElementType::F32, 40);
    dot_cases(13, ElementType::F16, ElementType::F32, 40);
    dot_cases(14, ElementType::Bf16, ElementType::Bf16, 40);
    dot_cases(15, ElementType::F64, ElementType::F64, 40);
    dot_cases(16, ElementType::S8, ElementType::S32, 40);
    dot_cases(17, ElementType::F8E4M3FN, ElementType::F32, 20);
}

#[test]
fn dot_large_matrices_use_blocked_parallel_gemm() {
    let mut rng = Rng(21);
    let (m, k, n) = (130i64, 257i64, 67i64);
    let hlo = format!(
        "HloModule t\nENTRY e {{\n  a = f32[{m},{k}]{{1,0}} parameter(0)\n  b = f32[{k},{n}]{{0,1}} parameter(1)\n  ROOT d = f32[{m},{n}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
    );
    let a = random_values(&mut rng, ElementType::F32, (m * k) as usize);
    let b = random_values(&mut rng, ElementType::F32, (k * n) as usize);
    let got = run(
        &hlo,
        &[
            literal(ElementType::F32, &[m, k], "{1,0}", &a),
            literal(ElementType::F32, &[k, n], "{0,1}", &b),
        ],
    );
    for i in 0..m as usize {
        for j in 0..n as usize {
            let terms: Vec<f64> = (0..k as usize)
                .map(|p| a[i * k as usize + p] * b[p * n as usize + j])
                .collect();
            let s: f64 = terms.iter().sum();
            let abs: f64 = terms.iter().map(|t| t.abs()).sum();
            check_bound(
                ElementType::F32,
                got[i * n as usize + j],
                s,
                k as usize,
                abs,
                "large dot",
            );
        }
    }
}

#[test]
fn dot_special_values() {
    let hlo = "HloModule t\nENTRY e {\n  a = f32[2,2]{1,0} parameter(0)\n  b = f32[2]{0} parameter(1)\n  ROOT d = f32[2]{0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
    let a = literal(
        ElementType::F32,
        &[2, 2],
        "{1,0}",
        &[f64::INFINITY, 1.0, f64::NAN, 1.0],
    );
    let b = literal(ElementType::F32, &[2], "{0}", &[0.0, 1.0]);
    let got = run(hlo, &[a, b]);
    assert!(got[0].is_nan(), "inf·0 is NaN");
    assert!(got[1].is_nan());
}

#[test]
fn malformed_instructions_are_errors_not_panics() {
    let cases = [
        // Contracting sizes differ.
        "HloModule t\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[4,2] parameter(1)\n  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n",
        // Contracting dimension out of range.
        "HloModule t\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[3,2] parameter(1)\n  ROOT d = f32[2,2] dot(a, b), lhs_contracting_dims={5}, rhs_contracting_dims={0}\n}\n",
        // 3 input features with feature_group_count=2.
        "HloModule t\nENTRY e {\n  a = f32[1,3,4] parameter(0)\n  k = f32[2,1,2] parameter(1)\n  ROOT c = f32[1,2,3] convolution(a, k), window={size=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2\n}\n",
        // Reduced dimension out of range.
        "HloModule t\nr {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}\nENTRY e {\n  a = f32[4] parameter(0)\n  i = f32[] parameter(1)\n  ROOT d = f32[] reduce(a, i), dimensions={3}, to_apply=r\n}\n",
    ];
    let mut executed = 0;
    for hlo in cases {
        let Ok(module) = parse_module(hlo) else {
            continue; // rejected by the parser: fine too
        };
        executed += 1;
        let args: Vec<Literal> = module.computations[module.entry]
            .parameters()
            .iter()
            .map(|p| {
                let s = p.shape.as_array().unwrap().clone();
                Literal::Array(ArrayLiteral::zeros(s))
            })
            .collect();
        assert!(
            matches!(
                Fast::new().execute(&module, &args),
                Err(conformance_spec::BackendError::Invalid(_))
            ),
            "{hlo}"
        );
    }
    assert!(
        executed >= 3,
        "the parser rejected the malformed cases before the backend ran"
    );
    // pred operands are reported as unsupported.
    let hlo = "HloModule t\nENTRY e {\n  a = pred[2] parameter(0)\n  b = pred[2] parameter(1)\n  ROOT d = pred[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n}\n";
    let module = parse_module(hlo).unwrap();
    let p = Literal::Array(ArrayLiteral::zeros(ArrayShape::new(
        ElementType::Pred,
        vec![2],
    )));
    assert!(matches!(
        Fast::new().execute(&module, &[p.clone(), p]),
        Err(conformance_spec::BackendError::Unsupported(_))
    ));
}
