//! reduce-window and select-and-scatter against naive scans.

use super::*;

fn window_hlo_reduce(t: &str, dims: &[i64], l: &str, w: &Window, out: &[i64], op: &str) -> String {
    format!(
        "HloModule t\nr {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT z = {t}[] {op}(x, y)\n}}\nENTRY e {{\n  a = {t}[{}]{l} parameter(0)\n  i = {t}[] parameter(1)\n  ROOT d = {t}[{}] reduce-window(a, i), window={w}, to_apply=r\n}}\n",
        dims_text(dims),
        dims_text(out)
    )
}

#[test]
fn reduce_window_all_attributes() {
    let mut rng = Rng(61);
    for case in 0..120 {
        let rank = rng.range(1, 3) as usize;
        let dims: Vec<i64> = (0..rank).map(|_| rng.range(1, 6)).collect();
        let w = random_window(&mut rng, &dims, true, false);
        let out = out_sizes(&w, &dims);
        let ty = [ElementType::F32, ElementType::S32, ElementType::F64][case % 3];
        let op = ["add", "maximum", "minimum"][rng.below(3) as usize];
        // Every fourth case routes the reducer through a `copy`, which the fast path does not
        // recognize: the general (interpreted) path runs.
        let l = layout_text(&mut rng, rank);
        let mut hlo = window_hlo_reduce(ty.hlo_name(), &dims, &l, &w, &out, op);
        if case % 4 == 0 {
            hlo = hlo.replace(
                &format!("ROOT z = {t}[] {op}(x, y)", t = ty.hlo_name()),
                &format!(
                    "c = {t}[] copy(y)\n  ROOT z = {t}[] {op}(x, c)",
                    t = ty.hlo_name()
                ),
            );
        }
        let v = random_values(&mut rng, ty, dims.iter().product::<i64>() as usize);
        let init = match op {
            "add" => 0.0,
            "maximum" if ty.is_integer() => -1e9,
            "maximum" => -1e30,
            _ => 1e9,
        };
        let got = run(
            &hlo,
            &[literal(ty, &dims, &l, &v), literal(ty, &[], "{}", &[init])],
        );
        let wsz: Vec<i64> = w.dimensions.iter().map(|d| d.size).collect();
        let mut k = 0;
        conformance_spec::index::for_each_index(&out, |o| {
            let (mut s, mut a, mut n) = (init, 0.0, 1);
            conformance_spec::index::for_each_index(&wsz, |kk| {
                let Some(idx) = window_source(&w, &dims, o, kk) else {
                    return;
                };
                let x = v[rm(&dims, &idx)];
                match op {
                    "add" => s += x,
                    "maximum" => s = s.max(x),
                    _ => s = s.min(x),
                }
                a += x.abs();
                n += 1;
            });
            let s = if ty == ElementType::F32 && op != "add" {
                s as f32 as f64
            } else {
                s
            };
            if op == "add" {
                check_bound(ty, got[k], s, n, a, &hlo);
            } else {
                assert_eq!(got[k], s, "{hlo}");
            }
            k += 1;
        });
    }
}

#[test]
fn select_and_scatter_matches_the_scan() {
    let mut rng = Rng(71);
    for case in 0..80 {
        let rank = rng.range(1, 3) as usize;
        let dims: Vec<i64> = (0..rank).map(|_| rng.range(1, 6)).collect();
        let mut w = random_window(&mut rng, &dims, false, false);
        for d in &mut w.dimensions {
            d.padding_low = d.padding_low.max(0);
            d.padding_high = d.padding_high.max(0);
        }
        let out = out_sizes(&w, &dims);
        let ty = [ElementType::F32, ElementType::F64, ElementType::S32][case % 3];
        let dir = ["GE", "GT", "LE"][rng.below(3) as usize];
        let t = ty.hlo_name();
        let l = layout_text(&mut rng, rank);
        let hlo = format!(
            "HloModule t\nsel {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT z = pred[] compare(x, y), direction={dir}\n}}\nsc {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT z = {t}[] add(x, y)\n}}\nENTRY e {{\n  a = {t}[{}]{l} parameter(0)\n  s = {t}[{}] parameter(1)\n  i = {t}[] parameter(2)\n  ROOT d = {t}[{}] select-and-scatter(a, s, i), window={w}, select=sel, scatter=sc\n}}\n",
            dims_text(&dims),
            dims_text(&out),
            dims_text(&dims)
        );
        // Few distinct values: ties exercise the scan order.
        let v: Vec<f64> = (0..dims.iter().product::<i64>())
            .map(|_| rng.range(-2, 2) as f64)
            .collect();
        let src = random_values(
            &mut rng,
            ElementType::S8,
            out.iter().product::<i64>() as usize,
        );
        let got = run(
            &hlo,
            &[
                literal(ty, &dims, &l, &v),
                literal(ty, &out, &layout_text(&mut rng, rank), &src),
                literal(ty, &[], "{}", &[0.5f64.floor()]),
            ],
        );
        let mut want = vec![0.0f64; v.len()];
        let wsz: Vec<i64> = w.dimensions.iter().map(|d| d.size).collect();
        let mut p = 0;
        conformance_spec::index::for_each_index(&out, |o| {
            let mut sel: Option<(usize, f64)> = None;
            conformance_spec::index::for_each_index(&wsz, |kk| {
                let Some(idx) = window_source(&w, &dims, o, kk) else {
                    return;
                };
                let at = rm(&dims, &idx);
                let e = v[at];
                sel = match sel {
                    None => Some((at, e)),
                    Some((sa, sv)) => {
                        let keep = match dir {
                            "GE" => sv >= e,
                            "GT" => sv > e,
                            _ => sv <= e,
                        };
                        if keep {
                            Some((sa, sv))
                        } else {
                            Some((at, e))
                        }
                    }
                };
            });
            if let Some((at, _)) = sel {
                want[at] += src[p];
            }
            p += 1;
        });
        assert_eq!(got, want, "{hlo}");
    }
}
