//! Properties: for random window geometries (sizes, strides, dilations, paddings, groups,
//! borders), the lowered conv, deconv, box, debox, max_pool and argmax_pool compute exactly
//! what a direct transcription of the NNEF 1.0.5 §4.3 formulas computes. Inputs are small
//! integers, so every f32 sum is exact and results compare for equality.

mod lower_support;

use conformance_fast::Fast;
use conformance_nnef::graph::Value;
use conformance_nnef::lower::lower;
use conformance_spec::backend::Backend;
use lower_support::*;
use proptest::prelude::*;

/// One windowed dimension: extent (up-scaled for conv/box, down-scaled for reverse
/// operations), filter size, stride, dilation, padding before and after.
#[derive(Debug, Clone, Copy)]
struct Dim {
    extent: i64,
    size: i64,
    stride: i64,
    dilation: i64,
    p: i64,
    q: i64,
}

fn dim() -> impl Strategy<Value = Dim> {
    (1i64..6, 1i64..4, 1i64..3, 1i64..3, -1i64..3, -1i64..3).prop_map(
        |(extent, size, stride, dilation, p, q)| Dim {
            extent,
            size,
            stride,
            dilation,
            p,
            q,
        },
    )
}

fn fd(d: &Dim) -> i64 {
    (d.size - 1) * d.dilation + 1
}

/// Down-scaled extent of a basic operation (None when the window does not fit).
fn down(d: &Dim) -> Option<i64> {
    let n = d.p + d.extent + d.q - fd(d);
    (n >= 0).then(|| n / d.stride + 1)
}

/// Up-scaled extent of a reverse operation (None when not positive).
fn up(d: &Dim) -> Option<i64> {
    let x = (d.extent - 1) * d.stride + fd(d) - (d.p + d.q);
    (x >= 1).then_some(x)
}

const BORDERS: [&str; 4] = ["constant", "replicate", "reflect", "reflect-even"];

/// `input~[i]` for extent `z` (None: the constant 0 or an ignored position).
fn border_index(border: &str, z: i64, i: i64) -> Option<i64> {
    if (0..z).contains(&i) {
        return Some(i);
    }
    match border {
        "replicate" => Some(i.clamp(0, z - 1)),
        "reflect" => {
            Some(if i < 0 { -i } else { z - 1 - (i - z + 1) }).filter(|k| (0..z).contains(k))
        }
        "reflect-even" => {
            Some(if i < 0 { -i - 1 } else { z - 1 - (i - z) }).filter(|k| (0..z).contains(k))
        }
        _ => None,
    }
}

/// Whether `border` can extend extent `z` by `(p, q)` (reflections at most z - 1 / z wide).
fn border_fits(border: &str, z: i64, reach: (i64, i64)) -> bool {
    let limit = match border {
        "reflect" => z - 1,
        "reflect-even" => z,
        _ => i64::MAX,
    };
    reach.0 <= limit && reach.1 <= limit
}

/// How far a window reads outside its input (before, after) for output extent `o`: the
/// padding for a basic operation; for a reverse one, the farthest `(i + p - j·d) / s` outside
/// `[0, extent)`.
fn reach(reverse: bool, d: &Dim, o: i64) -> (i64, i64) {
    if !reverse {
        return (d.p.max(0), d.q.max(0));
    }
    let lowest = d.p - (d.size - 1) * d.dilation;
    let before = (-lowest).div_euclid(d.stride).max(0);
    let after = ((o - 1 + d.p).div_euclid(d.stride) - (d.extent - 1)).max(0);
    (before, after)
}

/// Small integers from a seed.
fn data(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 7) as f64 - 3.0
        })
        .collect()
}

fn row_major(dims: &[i64], index: &[i64]) -> usize {
    index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i) as usize
}

/// Every multi-index of `dims`, row-major.
fn indices(dims: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &d in dims {
        out = out
            .into_iter()
            .flat_map(|p| (0..d).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

/// Lowers a one-operation graph and runs it on the fast backend.
fn execute(g: &G, args: &[conformance_spec::literal::Literal]) -> Vec<f64> {
    let l = lower(&g.graph, &["out".into()]).unwrap_or_else(|e| panic!("{e}"));
    let r = Fast::new()
        .execute(&l.module, args)
        .unwrap_or_else(|e| panic!("{e}\n{}", l.module));
    values(&r)
}

fn window_value(dims: &[Dim], what: fn(&Dim) -> i64) -> Value {
    ints(&dims.iter().map(what).collect::<Vec<_>>())
}

fn padding(dims: &[Dim]) -> Value {
    pairs(&dims.iter().map(|d| (d.p, d.q)).collect::<Vec<_>>())
}

/// conv (`reverse = false`) or deconv, checked against the formulas of §4.3.1.
fn check_conv(
    reverse: bool,
    dims: &[Dim],
    groups: i64,
    (cg, og): (i64, i64),
    border: &str,
    seed: u64,
) -> Result<(), TestCaseError> {
    let g_count = if groups == 0 { 1 } else { groups };
    // Up-scaled channels C, down-scaled c; filter [c, C/G, f...].
    let (big_c, small_c) = if groups == 0 {
        // Depth-wise: C = G channels, multiplier og.
        (cg, cg * og)
    } else {
        (g_count * cg, g_count * og)
    };
    let groups_n = if groups == 0 { big_c } else { g_count };
    let spatial_out: Vec<i64> = match dims
        .iter()
        .map(|d| if reverse { up(d) } else { down(d) })
        .collect::<Option<Vec<_>>>()
    {
        Some(v) => v,
        None => return Err(TestCaseError::reject("window does not fit")),
    };
    // The up-scaled extents, where the border applies for conv (the input) and deconv reads
    // the down-scaled input.
    for (d, &o) in dims.iter().zip(&spatial_out) {
        prop_assume!(border_fits(border, d.extent, reach(reverse, d, o)));
    }
    let (in_c, out_c) = if reverse {
        (small_c, big_c)
    } else {
        (big_c, small_c)
    };
    let mut xd = vec![1, in_c];
    xd.extend(dims.iter().map(|d| d.extent));
    let mut wd = vec![small_c, big_c / groups_n];
    wd.extend(dims.iter().map(|d| d.size));
    let mut od = vec![1, out_c];
    od.extend(&spatial_out);
    let x = data(seed, xd.iter().product::<i64>() as usize);
    let w = data(seed ^ 0xABCD, wd.iter().product::<i64>() as usize);

    let mut g = G::new();
    let us = |v: &[i64]| v.iter().map(|&e| e as usize).collect::<Vec<_>>();
    g.input("x", Scalar, &us(&xd)).input("w", Scalar, &us(&wd));
    let mut args = vec![
        ("input", t("x")),
        ("filter", t("w")),
        ("bias", s(0.0)),
        ("border", st(border)),
        ("padding", padding(dims)),
        ("stride", window_value(dims, |d| d.stride)),
        ("dilation", window_value(dims, |d| d.dilation)),
    ];
    if reverse {
        args.push(("output_shape", ints(&[])));
    }
    args.push(("groups", i(groups)));
    g.op(
        if reverse { "deconv" } else { "conv" },
        args,
        "output",
        "out",
        Scalar,
        &us(&od),
    );
    let got = execute(&g, &[f32s(&xd, &x), f32s(&wd, &w)]);

    let per_group_big = big_c / groups_n;
    let per_group_small = small_c / groups_n;
    let mut want = vec![0.0; got.len()];
    for o in indices(&od) {
        let mut sum = 0.0;
        let oc = o[1];
        for taps in indices(&wd[2..]) {
            // Channels related to `oc`: conv output oc (a small channel) reads big channels of
            // its group; deconv output oc (a big channel) reads small channels of its group.
            let group = if reverse {
                oc / per_group_big
            } else {
                oc / per_group_small
            };
            let partners: Vec<i64> = if reverse {
                (group * per_group_small..(group + 1) * per_group_small).collect()
            } else {
                (group * per_group_big..(group + 1) * per_group_big).collect()
            };
            for pc in partners {
                let (small, big) = if reverse { (pc, oc) } else { (oc, pc) };
                let mut at = vec![0, pc];
                let mut ok = true;
                for (k, d) in dims.iter().enumerate() {
                    let (i, j) = (o[2 + k], taps[k]);
                    let pos = if reverse {
                        let num = i + d.p - j * d.dilation;
                        if num.rem_euclid(d.stride) != 0 {
                            ok = false;
                            break;
                        }
                        num.div_euclid(d.stride)
                    } else {
                        i * d.stride + j * d.dilation - d.p
                    };
                    match border_index(border, d.extent, pos) {
                        Some(p) => at.push(p),
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok {
                    continue;
                }
                let mut wi = vec![small, big % per_group_big];
                wi.extend(&taps);
                sum += x[row_major(&xd, &at)] * w[row_major(&wd, &wi)];
            }
        }
        want[row_major(&od, &o)] = sum;
    }
    prop_assert_eq!(got, want);
    Ok(())
}

fn window_dims(n: usize) -> impl Strategy<Value = Vec<Dim>> {
    prop::collection::vec(dim(), n..=n)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, max_global_rejects: 4096, ..ProptestConfig::default() })]

    #[test]
    fn conv_matches_the_standard(
        dims in (1usize..3).prop_flat_map(window_dims),
        groups in prop_oneof![Just(1i64), Just(2), Just(0)],
        channels in (1i64..3, 1i64..3),
        border in prop::sample::select(BORDERS.to_vec()),
        seed in any::<u64>(),
    ) {
        check_conv(false, &dims, groups, channels, border, seed)?;
    }

    #[test]
    fn deconv_matches_the_standard(
        dims in (1usize..3).prop_flat_map(window_dims),
        groups in prop_oneof![Just(1i64), Just(2), Just(0)],
        channels in (1i64..3, 1i64..3),
        border in prop::sample::select(BORDERS.to_vec()),
        seed in any::<u64>(),
    ) {
        check_conv(true, &dims, groups, channels, border, seed)?;
    }

    #[test]
    fn box_debox_and_pools_match_the_standard(
        dims in (1usize..3).prop_flat_map(window_dims),
        op in prop::sample::select(vec!["box", "debox", "max_pool", "argmax_pool"]),
        border in prop::sample::select(vec!["ignore", "constant", "replicate", "reflect", "reflect-even"]),
        normalize in any::<bool>(),
        seed in any::<u64>(),
    ) {
        check_pool(op, &dims, border, normalize, seed)?;
    }
}

/// box / debox / max_pool / argmax_pool over an input `[1, 1, spatial...]` (size 1 on the
/// leading dimensions), checked against §4.3.2 and §4.3.3.
fn check_pool(
    op: &str,
    dims: &[Dim],
    border: &str,
    normalize: bool,
    seed: u64,
) -> Result<(), TestCaseError> {
    let reverse = op == "debox";
    let spatial_out = match dims
        .iter()
        .map(|d| if reverse { up(d) } else { down(d) })
        .collect::<Option<Vec<_>>>()
    {
        Some(v) => v,
        None => return Err(TestCaseError::reject("window does not fit")),
    };
    for (d, &o) in dims.iter().zip(&spatial_out) {
        prop_assume!(border_fits(border, d.extent, reach(reverse, d, o)));
    }
    let mut all = vec![
        Dim {
            extent: 1,
            size: 1,
            stride: 1,
            dilation: 1,
            p: 0,
            q: 0
        };
        2
    ];
    all.extend_from_slice(dims);
    let xd: Vec<i64> = all.iter().map(|d| d.extent).collect();
    let mut od = vec![1, 1];
    od.extend(&spatial_out);
    let x = data(seed, xd.iter().product::<i64>() as usize);
    let us = |v: &[i64]| v.iter().map(|&e| e as usize).collect::<Vec<_>>();
    let mut g = G::new();
    g.input("x", Scalar, &us(&xd));
    let mut args = vec![
        ("input", t("x")),
        ("size", window_value(&all, |d| d.size)),
        ("border", st(border)),
        ("padding", padding(&all)),
        ("stride", window_value(&all, |d| d.stride)),
        ("dilation", window_value(&all, |d| d.dilation)),
    ];
    if reverse {
        args.push(("output_shape", ints(&[])));
    }
    if op == "box" || op == "debox" {
        args.push(("normalize", b(normalize)));
    }
    let (result, dtype) = if op == "argmax_pool" {
        ("index", Integer)
    } else {
        ("output", Scalar)
    };
    g.op(op, args, result, "out", dtype, &us(&od));
    let got = execute(&g, &[f32s(&xd, &x)]);

    let volume: i64 = all.iter().map(|d| d.size).product();
    let sizes: Vec<i64> = all.iter().map(|d| d.size).collect();
    let mut want = vec![0.0; got.len()];
    for o in indices(&od) {
        let (mut sum, mut count) = (0.0, 0.0);
        let (mut best, mut best_j): (f64, Option<usize>) = (f64::NEG_INFINITY, None);
        for (jn, taps) in indices(&sizes).into_iter().enumerate() {
            let mut at = Vec::new();
            let mut skip = false;
            for (k, d) in all.iter().enumerate() {
                let (i, j) = (o[k], taps[k]);
                let pos = if reverse {
                    let num = i + d.p - j * d.dilation;
                    if num.rem_euclid(d.stride) != 0 {
                        skip = true;
                        break;
                    }
                    num.div_euclid(d.stride)
                } else {
                    i * d.stride + j * d.dilation - d.p
                };
                at.push(pos);
            }
            if skip {
                continue;
            }
            let mapped: Option<Vec<i64>> = at
                .iter()
                .zip(&all)
                .map(|(&p, d)| border_index(border, d.extent, p))
                .collect();
            let value = match mapped {
                Some(m) => Some(x[row_major(&xd, &m)]),
                None if border == "ignore" => None,
                None => Some(0.0),
            };
            if let Some(v) = value {
                sum += v;
                count += 1.0;
                if best_j.is_none() || v > best {
                    best = v;
                    best_j = Some(jn);
                }
            }
        }
        let value = match op {
            "max_pool" => best,
            "argmax_pool" => best_j.unwrap_or(0) as f64,
            _ if normalize && border == "ignore" => sum / count,
            _ if normalize => sum / volume as f64,
            _ => sum,
        };
        want[row_major(&od, &o)] = value;
    }
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        let same = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-6 * b.abs();
        prop_assert!(
            same,
            "element {}: got {}, want {} (got {:?}, want {:?})",
            k,
            a,
            b,
            got,
            want
        );
    }
    Ok(())
}
