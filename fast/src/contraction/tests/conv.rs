//! convolution against the direct sum of seed 004's definition.

use super::*;

fn conv_case(rng: &mut Rng, ty: ElementType, fast_form: bool) {
    let n = if fast_form {
        2
    } else {
        rng.range(1, 2) as usize
    };
    let (g, bgc) = if fast_form {
        (1, 1)
    } else {
        match rng.below(3) {
            0 => (rng.range(1, 2), 1),
            1 => (1, rng.range(1, 2)),
            _ => (1, 1),
        }
    };
    let ci = rng.range(1, 3);
    let c = ci * g;
    let o = rng.range(1, 3) * g * bgc;
    let b = rng.range(1, 2) * bgc;
    // Large images (fast form) span several bands of output rows.
    let big = fast_form && rng.below(3) == 0;
    let inputs: Vec<i64> = (0..n)
        .map(|_| {
            if big {
                rng.range(30, 45)
            } else {
                rng.range(1, 6)
            }
        })
        .collect();
    let window = if fast_form {
        Window {
            dimensions: inputs
                .iter()
                .map(|_| {
                    let mut w = WindowDimension::new(rng.range(1, 3));
                    w.padding_low = rng.range(0, 1);
                    w.padding_high = rng.range(0, 1);
                    w
                })
                .collect(),
        }
    } else {
        random_window(rng, &inputs, true, true)
    };
    let outs = out_sizes(&window, &inputs);
    // Dimension numbers: a random placement of batch/feature/spatial in each operand.
    let place = |rng: &mut Rng| -> Vec<usize> {
        if fast_form {
            (0..n + 2).collect()
        } else {
            rng.perm(n + 2)
        }
    };
    let (lp, kp, op) = (place(rng), place(rng), place(rng));
    let dn = ConvolutionDimensionNumbers {
        input_batch_dimension: lp[0] as i64,
        input_feature_dimension: lp[1] as i64,
        input_spatial_dimensions: lp[2..].iter().map(|&d| d as i64).collect(),
        kernel_output_feature_dimension: kp[0] as i64,
        kernel_input_feature_dimension: kp[1] as i64,
        kernel_spatial_dimensions: kp[2..].iter().map(|&d| d as i64).collect(),
        output_batch_dimension: op[0] as i64,
        output_feature_dimension: op[1] as i64,
        output_spatial_dimensions: op[2..].iter().map(|&d| d as i64).collect(),
    };
    let mut ld = vec![0i64; n + 2];
    let mut kd = vec![0i64; n + 2];
    let mut od = vec![0i64; n + 2];
    ld[lp[0]] = b;
    ld[lp[1]] = c;
    kd[kp[0]] = o;
    kd[kp[1]] = ci;
    od[op[0]] = b / bgc;
    od[op[1]] = o;
    for d in 0..n {
        ld[lp[2 + d]] = inputs[d];
        kd[kp[2 + d]] = window.dimensions[d].size;
        od[op[2 + d]] = outs[d];
    }
    let row_major = |r: usize| {
        format!(
            "{{{}}}",
            (0..r)
                .rev()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    let (ll, kl, ol) = if fast_form {
        (row_major(n + 2), row_major(n + 2), layout_text(rng, n + 2))
    } else {
        (
            layout_text(rng, n + 2),
            layout_text(rng, n + 2),
            layout_text(rng, n + 2),
        )
    };
    let t = ty.hlo_name();
    let hlo = format!(
        "HloModule t\nENTRY e {{\n  a = {t}[{}]{ll} parameter(0)\n  k = {t}[{}]{kl} parameter(1)\n  ROOT c = {t}[{}]{ol} convolution(a, k), window={window}, dim_labels={}, feature_group_count={g}, batch_group_count={bgc}\n}}\n",
        dims_text(&ld),
        dims_text(&kd),
        dims_text(&od),
        dn.to_dim_labels()
    );
    let lv = random_values(rng, ty, ld.iter().product::<i64>() as usize);
    let kv = random_values(rng, ty, kd.iter().product::<i64>() as usize);
    let got = run(
        &hlo,
        &[literal(ty, &ld, &ll, &lv), literal(ty, &kd, &kl, &kv)],
    );
    let mut idx = 0;
    let wsz: Vec<i64> = window.dimensions.iter().map(|w| w.size).collect();
    conformance_spec::index::for_each_index(&od, |oi| {
        let oz = oi[op[1]];
        let fg = oz / (o / g);
        let bgi = oz / (o / bgc);
        let batch = bgi * (b / bgc) + oi[op[0]];
        let (mut s, mut a, mut cnt) = (0.0, 0.0, 0);
        for iz in 0..ci {
            conformance_spec::index::for_each_index(&wsz, |k| {
                let mut li = vec![0i64; n + 2];
                let mut ki = vec![0i64; n + 2];
                li[lp[0]] = batch;
                li[lp[1]] = fg * ci + iz;
                ki[kp[0]] = oz;
                ki[kp[1]] = iz;
                for d in 0..n {
                    let w = &window.dimensions[d];
                    let Some(x) = source(w, inputs[d], oi[op[2 + d]], k[d]) else {
                        return;
                    };
                    li[lp[2 + d]] = x;
                    ki[kp[2 + d]] = if w.window_reversal {
                        w.size - 1 - k[d]
                    } else {
                        k[d]
                    };
                }
                let t = lv[rm(&ld, &li)] * kv[rm(&kd, &ki)];
                s += t;
                a += t.abs();
                cnt += 1;
            });
        }
        if ty.is_integer() {
            s = s as i64 as i32 as f64;
        }
        check_bound(ty, got[idx], s, cnt.max(1), a, &hlo);
        idx += 1;
    });
}

#[test]
fn convolution_all_attributes_match_the_direct_sum() {
    let mut rng = Rng(51);
    for i in 0..150 {
        let ty = [
            ElementType::F32,
            ElementType::F64,
            ElementType::Bf16,
            ElementType::S32,
        ][i % 4];
        conv_case(&mut rng, ty, false);
    }
}

#[test]
fn convolution_nchw_fast_path_matches_the_direct_sum() {
    let mut rng = Rng(52);
    for _ in 0..60 {
        conv_case(&mut rng, ElementType::F32, true);
    }
}
