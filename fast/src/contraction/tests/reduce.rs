//! reduce against the naive fold.

use super::*;

fn reduce_hlo(
    t: &str,
    dims: &[i64],
    layout: &str,
    red: &[usize],
    out_layout: &str,
    op: &str,
) -> String {
    let out: Vec<i64> = (0..dims.len())
        .filter(|d| !red.contains(d))
        .map(|d| dims[d])
        .collect();
    format!(
        "HloModule t\nr {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT z = {t}[] {op}(x, y)\n}}\nENTRY e {{\n  a = {t}[{}]{layout} parameter(0)\n  i = {t}[] parameter(1)\n  ROOT d = {t}[{}]{out_layout} reduce(a, i), dimensions={{{}}}, to_apply=r\n}}\n",
        dims_text(dims),
        dims_text(&out),
        ints_text(red)
    )
}

#[test]
fn reduce_any_dimensions_and_layouts() {
    let mut rng = Rng(31);
    for case in 0..150 {
        let rank = rng.range(0, 4) as usize;
        let dims: Vec<i64> = (0..rank)
            .map(|_| {
                if rng.below(10) == 0 {
                    0
                } else {
                    rng.range(1, 6)
                }
            })
            .collect();
        let red: Vec<usize> = (0..rank).filter(|_| rng.below(2) == 0).collect();
        let ty = [
            ElementType::F32,
            ElementType::F64,
            ElementType::Bf16,
            ElementType::S32,
            ElementType::F16,
        ][case % 5];
        let mut op = ["add", "maximum", "minimum", "multiply", "add"][rng.below(5) as usize];
        if ty.is_integer() && op == "multiply" {
            op = "add"; // wraps: checked by the dot tests' integer cases instead
        }
        let (l, ol) = (
            layout_text(&mut rng, rank),
            layout_text(&mut rng, rank - red.len()),
        );
        let hlo = reduce_hlo(ty.hlo_name(), &dims, &l, &red, &ol, op);
        let v = random_values(&mut rng, ty, dims.iter().product::<i64>() as usize);
        let init = if op == "multiply" {
            1.0
        } else {
            0.5f64.min(if ty.is_integer() { 0.0 } else { 0.5 })
        };
        let got = run(
            &hlo,
            &[literal(ty, &dims, &l, &v), literal(ty, &[], "{}", &[init])],
        );
        let kept: Vec<usize> = (0..rank).filter(|d| !red.contains(d)).collect();
        let out: Vec<i64> = kept.iter().map(|&d| dims[d]).collect();
        let rsz: Vec<i64> = red.iter().map(|&d| dims[d]).collect();
        let mut k = 0;
        conformance_spec::index::for_each_index(&out, |o| {
            let mut idx = vec![0i64; rank];
            for (j, &d) in kept.iter().enumerate() {
                idx[d] = o[j];
            }
            let (mut s, mut a, mut n) = (init, init.abs(), 1);
            conformance_spec::index::for_each_index(&rsz, |r| {
                for (j, &d) in red.iter().enumerate() {
                    idx[d] = r[j];
                }
                let x = v[rm(&dims, &idx)];
                match op {
                    "add" => s += x,
                    "multiply" => s *= x,
                    "maximum" => s = s.max(x),
                    _ => s = s.min(x),
                }
                a += x.abs();
                n += 1;
            });
            if op == "add" {
                check_bound(ty, got[k], s, n, a, &hlo);
            } else if op == "multiply" {
                if !(1e-3..=1e3).contains(&s.abs()) {
                    k += 1;
                    return; // overflow or underflow of the narrow formats
                }
                assert!(
                    (got[k] - s).abs() <= 1e-2 * s.abs() + 1e-30,
                    "{hlo}: {} vs {s}",
                    got[k]
                );
            } else {
                assert_eq!(got[k], s, "{hlo}");
            }
            k += 1;
        });
    }
}

#[test]
fn reduce_large_f32_sum_splits_in_blocks() {
    let mut rng = Rng(41);
    let n = 300_001i64;
    let v = random_values(&mut rng, ElementType::F32, n as usize);
    let hlo = reduce_hlo("f32", &[n], "{0}", &[0], "{}", "add");
    let got = run(
        &hlo,
        &[
            literal(ElementType::F32, &[n], "{0}", &v),
            literal(ElementType::F32, &[], "{}", &[0.0]),
        ],
    );
    let s: f64 = v.iter().sum();
    let a: f64 = v.iter().map(|x| x.abs()).sum();
    check_bound(ElementType::F32, got[0], s, n as usize + 1, a, "large sum");
}

#[test]
fn variadic_reduce_argmax() {
    let hlo = "HloModule t\nr {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] parameter(3)\n  g = pred[] compare(a, b), direction=GE\n  v = f32[] select(g, a, b)\n  i = s32[] select(g, ai, bi)\n  ROOT t = (f32[], s32[]) tuple(v, i)\n}\nENTRY e {\n  x = f32[2,4]{0,1} parameter(0)\n  ix = s32[2,4]{1,0} parameter(1)\n  m = f32[] constant(-inf)\n  z = s32[] constant(-1)\n  ROOT d = (f32[2], s32[2]) reduce(x, ix, m, z), dimensions={1}, to_apply=r\n}\n";
    let module = parse_module(hlo).unwrap();
    let x = literal(
        ElementType::F32,
        &[2, 4],
        "{0,1}",
        &[1.0, 5.0, 2.0, 5.0, -1.0, -3.0, -0.5, -2.0],
    );
    let ix = literal(
        ElementType::S32,
        &[2, 4],
        "{1,0}",
        &[0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0],
    );
    let out = Fast::new().execute(&module, &[x, ix]).unwrap();
    let Literal::Tuple(t) = out else {
        panic!("tuple expected")
    };
    assert_eq!(t[0].as_array().unwrap().to_f64s().unwrap(), vec![5.0, -0.5]);
    assert_eq!(values_of(t[1].as_array().unwrap()), vec![1.0, 2.0]);
}
