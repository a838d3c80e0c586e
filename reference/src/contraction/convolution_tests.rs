//! Unit tests of `convolution`: seed 004's pseudo-code, a materializing naive convolution (pad and
//! dilate the input into a new array, dilate the kernel, then slide) on small integers, groups,
//! layouts, special values and bounds.

use super::super::test_util::*;
use crate::contraction::accumulation_bounds;
use conformance_spec::hlo::parse_module;

/// One spatial dimension of a test window.
#[derive(Clone, Copy)]
struct Wd {
    size: i64,
    stride: i64,
    lo: i64,
    hi: i64,
    lhs_dil: i64,
    rhs_dil: i64,
    rev: bool,
}

fn wd(size: i64) -> Wd {
    Wd {
        size,
        stride: 1,
        lo: 0,
        hi: 0,
        lhs_dil: 1,
        rhs_dil: 1,
        rev: false,
    }
}

fn window_text(ws: &[Wd]) -> String {
    let j = |f: &dyn Fn(&Wd) -> String| ws.iter().map(f).collect::<Vec<_>>().join("x");
    if ws.is_empty() {
        return "{}".into();
    }
    format!(
        "{{size={} stride={} pad={} lhs_dilate={} rhs_dilate={} rhs_reversal={}}}",
        j(&|w| w.size.to_string()),
        j(&|w| w.stride.to_string()),
        j(&|w| format!("{}_{}", w.lo, w.hi)),
        j(&|w| w.lhs_dil.to_string()),
        j(&|w| w.rhs_dil.to_string()),
        j(&|w| u8::from(w.rev).to_string()),
    )
}

fn dims_text(ty: &str, d: &[i64]) -> String {
    format!(
        "{ty}[{}]",
        d.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
    )
}

/// Row-major strides of `dims`.
fn strides(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * dims[d + 1];
    }
    s
}

fn at(v: &[f64], dims: &[i64], i: &[i64]) -> f64 {
    v[i.iter().zip(strides(dims)).map(|(a, s)| a * s).sum::<i64>() as usize]
}

/// The naive convolution in `bf01_oi01->bf01`: materialize the padded, dilated input per
/// (batch, feature), then slide the dilated (and possibly reversed) kernel.
fn naive(
    lhs: &[f64],
    ld: &[i64],
    rhs: &[f64],
    rd: &[i64],
    ws: &[Wd],
    g: i64,
    bgc: i64,
) -> (Vec<i64>, Vec<f64>) {
    let n = ws.len();
    let (batch, feat) = (ld[0], ld[1]);
    let (kout, kin) = (rd[0], rd[1]);
    let padded: Vec<i64> = (0..n)
        .map(|d| (ld[2 + d] - 1) * ws[d].lhs_dil + 1 + ws[d].lo + ws[d].hi)
        .collect();
    let spans: Vec<i64> = (0..n)
        .map(|d| (ws[d].size - 1) * ws[d].rhs_dil + 1)
        .collect();
    let outs: Vec<i64> = (0..n)
        .map(|d| {
            if padded[d] < spans[d] {
                0
            } else {
                (padded[d] - spans[d]) / ws[d].stride + 1
            }
        })
        .collect();
    let mut od = vec![batch / bgc, kout];
    od.extend(&outs);
    // Materialized inputs: [batch][feature] -> padded array (row-major over `padded`).
    let materialize = |b: i64, c: i64| -> Vec<f64> {
        let count: i64 = padded.iter().product();
        let mut m = vec![0.0; count.max(0) as usize];
        let mut idx = vec![0i64; n];
        for slot in m.iter_mut() {
            let mut src = vec![b, c];
            let mut inside = true;
            for d in 0..n {
                let q = idx[d] - ws[d].lo;
                if q < 0 || q % ws[d].lhs_dil != 0 || q / ws[d].lhs_dil >= ld[2 + d] {
                    inside = false;
                }
                src.push(q.div_euclid(ws[d].lhs_dil));
            }
            if inside {
                *slot = at(lhs, ld, &src);
            }
            for d in (0..n).rev() {
                idx[d] += 1;
                if idx[d] < padded[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        m
    };
    let total: i64 = od.iter().product();
    let mut out = vec![0.0; total as usize];
    let mut j = vec![0i64; n + 2];
    for slot in out.iter_mut() {
        let (ob, oz) = (j[0], j[1]);
        let fg = oz / (kout / g);
        let bg = oz / (kout / bgc);
        let b = bg * (batch / bgc) + ob;
        let mut s = 0.0;
        for iz in 0..kin {
            let m = materialize(b, fg * (feat / g) + iz);
            let kcount: i64 = ws.iter().map(|w| w.size).product();
            let mut k = vec![0i64; n];
            for _ in 0..kcount {
                let pos: Vec<i64> = (0..n)
                    .map(|d| j[2 + d] * ws[d].stride + k[d] * ws[d].rhs_dil)
                    .collect();
                let kidx: Vec<i64> = (0..n)
                    .map(|d| {
                        if ws[d].rev {
                            ws[d].size - 1 - k[d]
                        } else {
                            k[d]
                        }
                    })
                    .collect();
                let mut ri = vec![oz, iz];
                ri.extend(kidx);
                s += at(&m, &padded, &pos) * at(rhs, rd, &ri);
                for d in (0..n).rev() {
                    k[d] += 1;
                    if k[d] < ws[d].size {
                        break;
                    }
                    k[d] = 0;
                }
            }
        }
        *slot = s;
        for d in (0..n + 2).rev() {
            j[d] += 1;
            if j[d] < od[d] {
                break;
            }
            j[d] = 0;
        }
    }
    (od, out)
}

/// Runs `convolution` in `bf01_oi01->bf01` on small-integer f32 data and compares with `naive`.
fn check(ld: &[i64], rd: &[i64], ws: &[Wd], g: i64, bgc: i64) {
    let count = |d: &[i64]| d.iter().product::<i64>() as usize;
    let lhs: Vec<f64> = (0..count(ld))
        .map(|i| ((i * 7) % 11) as f64 - 5.0)
        .collect();
    let rhs: Vec<f64> = (0..count(rd)).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
    let (od, want) = naive(&lhs, ld, &rhs, rd, ws, g, bgc);
    let spatial: String = (0..ws.len()).map(|d| d.to_string()).collect();
    let hlo = format!(
        "HloModule m\nENTRY e {{\n  a = {} parameter(0)\n  b = {} parameter(1)\n  ROOT c = {} convolution(a, b), window={}, dim_labels=bf{s}_oi{s}->bf{s}, feature_group_count={g}, batch_group_count={bgc}\n}}\n",
        dims_text("f32", ld),
        dims_text("f32", rd),
        dims_text("f32", &od),
        window_text(ws),
        s = spatial
    );
    let got = run_array(
        &hlo,
        &[
            values(&dims_text("f32", ld), &lhs),
            values(&dims_text("f32", rd), &rhs),
        ],
    );
    assert_eq!(f64_values(&got), want, "{hlo}");
}

#[test]
fn seed_pseudo_code_padding_and_stride() {
    // Seed 004's 2-D pseudo-code: stride 2x1, low/high padding 1.
    let mut w = [wd(3), wd(2)];
    w[0].stride = 2;
    w[0].lo = 1;
    w[0].hi = 1;
    w[1].lo = 1;
    check(&[2, 3, 5, 4], &[2, 3, 3, 2], &w, 1, 1);
}

#[test]
fn hand_checked_1d() {
    // Input [1, 2, 3, 4], kernel [1, 10], VALID: [21, 32, 43]; reversed kernel: [12, 23, 34].
    let hlo = |rev: u8| {
        format!(
            "HloModule m\nENTRY e {{\n  a = f32[1,1,4] parameter(0)\n  b = f32[1,1,2] parameter(1)\n  ROOT c = f32[1,1,3] convolution(a, b), window={{size=2 rhs_reversal={rev}}}, dim_labels=bf0_oi0->bf0\n}}\n"
        )
    };
    let a = f32s("f32[1,1,4]", &[1., 2., 3., 4.]);
    let b = f32s("f32[1,1,2]", &[1., 10.]);
    let got = run_array(&hlo(0), &[a.clone(), b.clone()]);
    assert_eq!(f32_values(&got), vec![21., 32., 43.]);
    let got = run_array(&hlo(1), &[a, b]);
    assert_eq!(f32_values(&got), vec![12., 23., 34.]);
}

#[test]
fn dilations_and_negative_padding() {
    let mut w = wd(2);
    w.lhs_dil = 2;
    w.rhs_dil = 3;
    w.lo = 2;
    w.hi = -1;
    check(&[1, 2, 6], &[3, 2, 2], &[w], 1, 1);
    let mut a = wd(3);
    a.lo = -2;
    a.hi = 1;
    a.stride = 2;
    a.rev = true;
    let mut b = wd(2);
    b.lhs_dil = 3;
    b.lo = 1;
    b.hi = 2;
    check(&[2, 1, 7, 3], &[2, 1, 3, 2], &[a, b], 1, 1);
}

#[test]
fn zero_and_three_spatial_dimensions() {
    check(&[3, 4], &[2, 4], &[], 1, 1);
    let mut a = wd(2);
    a.stride = 2;
    let mut c = wd(2);
    c.rhs_dil = 2;
    c.lo = 1;
    check(&[1, 2, 4, 3, 5], &[2, 2, 2, 1, 2], &[a, wd(1), c], 1, 1);
}

#[test]
fn feature_groups_and_depthwise() {
    // 4 input features in 2 groups, 6 output features (3 per group).
    check(&[2, 4, 5], &[6, 2, 3], &[wd(3)], 2, 1);
    // Depthwise: feature_group_count = input features.
    check(&[1, 3, 4, 4], &[3, 1, 2, 2], &[wd(2), wd(2)], 3, 1);
}

#[test]
fn batch_groups() {
    // Batch 4 in 2 groups: output batch 2; 4 output features (2 per group).
    check(&[4, 3, 5], &[4, 3, 2], &[wd(2)], 1, 2);
    // Hand-checked: batch 2 = 2 groups, one feature, 1x1 kernel [10, 100]: output feature h reads
    // batch h.
    let hlo = "HloModule m\nENTRY e {\n  a = f32[2,1,2] parameter(0)\n  b = f32[2,1,1] parameter(1)\n  ROOT c = f32[1,2,2] convolution(a, b), window={size=1}, dim_labels=bf0_oi0->bf0, batch_group_count=2\n}\n";
    let got = run_array(
        hlo,
        &[
            f32s("f32[2,1,2]", &[1., 2., 3., 4.]),
            f32s("f32[2,1,1]", &[10., 100.]),
        ],
    );
    assert_eq!(f32_values(&got), vec![10., 20., 300., 400.]);
}

#[test]
fn nhwc_labels_and_layouts_agree() {
    // The same convolution in b01f_01io->b01f with non-default layouts, against bf01 via naive.
    let ld = [1i64, 2, 4, 3]; // bf01: batch 1, 2 features, 4x3
    let rd = [2i64, 2, 2, 2]; // oi01
    let lhs: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    let rhs: Vec<f64> = (0..16).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
    let mut w = [wd(2), wd(2)];
    w[1].lo = 1;
    let (od, want) = naive(&lhs, &ld, &rhs, &rd, &w, 1, 1);
    // Transpose the data into b01f / 01io orders.
    let nhwc: Vec<f64> = {
        let mut v = Vec::new();
        for y in 0..4 {
            for x in 0..3 {
                for c in 0..2 {
                    v.push(at(&lhs, &ld, &[0, c, y, x]));
                }
            }
        }
        v
    };
    let hwio: Vec<f64> = {
        let mut v = Vec::new();
        for y in 0..2 {
            for x in 0..2 {
                for i in 0..2 {
                    for o in 0..2 {
                        v.push(at(&rhs, &rd, &[o, i, y, x]));
                    }
                }
            }
        }
        v
    };
    let hlo = "HloModule m\nENTRY e {\n  a = f32[1,4,3,2]{1,3,0,2} parameter(0)\n  b = f32[2,2,2,2]{0,1,2,3} parameter(1)\n  ROOT c = f32[1,3,3,2]{2,1,3,0} convolution(a, b), window={size=2x2 pad=0_0x1_0}, dim_labels=b01f_01io->b01f\n}\n";
    let got = run_array(
        hlo,
        &[
            values("f32[1,4,3,2]{1,3,0,2}", &nhwc),
            values("f32[2,2,2,2]{0,1,2,3}", &hwio),
        ],
    );
    // Result b01f [1, 3, 3, 2] vs naive bf01 [1, 2, 3, 3].
    assert_eq!(od, vec![1, 2, 3, 3]);
    let got = f64_values(&got);
    for y in 0..3i64 {
        for x in 0..3i64 {
            for f in 0..2i64 {
                assert_eq!(
                    got[(y * 6 + x * 2 + f) as usize],
                    at(&want, &od, &[0, f, y, x])
                );
            }
        }
    }
}

#[test]
fn exact_accumulation_and_bounds() {
    // A 1-D kernel [1, 1, 1, 1] over [1e8, 1, -1e8, 1]: naive f32 gives 1, exact is 2. With
    // padding 1_1 the 3 output elements have 3, 4 and 3 terms (padding is not a term).
    let hlo = "HloModule m\nENTRY e {\n  a = f32[1,1,4] parameter(0)\n  b = f32[1,1,4] parameter(1)\n  ROOT c = f32[1,1,3] convolution(a, b), window={size=4 pad=1_1}, dim_labels=bf0_oi0->bf0\n}\n";
    let args = [
        f32s("f32[1,1,4]", &[1e8, 1., -1e8, 1.]),
        f32s("f32[1,1,4]", &[1., 1., 1., 1.]),
    ];
    let got = run_array(hlo, &args);
    // Exact: 1, 2 and −1e8 + 2 (rounds to −1e8); naive f32 would give 0 for the first.
    assert_eq!(f32_values(&got), vec![1.0, 2.0, -1e8]);
    let m = parse_module(hlo).unwrap();
    let b = accumulation_bounds(&m, &args).unwrap().unwrap();
    assert_eq!(
        b[0].iter().map(|x| x.terms).collect::<Vec<_>>(),
        vec![3, 4, 3]
    );
    assert_eq!(b[0][1].abs_sum, 2e8 + 2.0);
}

#[test]
fn special_values_and_mixed_precision() {
    let hlo = "HloModule m\nENTRY e {\n  a = bf16[1,1,2] parameter(0)\n  b = bf16[1,1,2] parameter(1)\n  ROOT c = f32[1,1,1] convolution(a, b), window={size=2}, dim_labels=bf0_oi0->bf0\n}\n";
    let x = 1.0 + 2f64.powi(-7);
    let got = run_array(
        hlo,
        &[
            values("bf16[1,1,2]", &[x, x]),
            values("bf16[1,1,2]", &[x, -1.0]),
        ],
    );
    assert_eq!(f64_values(&got), vec![x * x - x]);
    let got = run_array(
        hlo,
        &[
            values("bf16[1,1,2]", &[f64::INFINITY, 1.0]),
            values("bf16[1,1,2]", &[0.0, 1.0]),
        ],
    );
    assert!(f64_values(&got)[0].is_nan());
}

#[test]
fn errors_name_the_problem() {
    let hlo = "HloModule m\nENTRY e {\n  a = f32[1,3,4] parameter(0)\n  b = f32[2,2,2] parameter(1)\n  ROOT c = f32[1,2,3] convolution(a, b), window={size=2}, dim_labels=bf0_oi0->bf0\n}\n";
    let e = run(
        hlo,
        &[f32s("f32[1,3,4]", &[0.; 12]), f32s("f32[2,2,2]", &[0.; 8])],
    )
    .unwrap_err();
    assert!(e.to_string().contains("input-feature"), "{e}");
    let hlo = "HloModule m\nENTRY e {\n  a = f32[1,2,4] parameter(0)\n  b = f32[2,2,2] parameter(1)\n  ROOT c = f32[1,2,4] convolution(a, b), window={size=2}, dim_labels=bf0_oi0->bf0\n}\n";
    let e = run(
        hlo,
        &[f32s("f32[1,2,4]", &[0.; 8]), f32s("f32[2,2,2]", &[0.; 8])],
    )
    .unwrap_err();
    assert!(e.to_string().contains("produces [1, 2, 3]"), "{e}");
}
