//! Properties of the exact contraction reference against naive loops on small integers (whose
//! f64 sums are exact, so the exact reference must match them bit for bit):
//! - `dot` with the batch, free and contracting dimensions of both operands in random positions;
//! - `reduce` (sum) over a random subset of dimensions, and its accumulation bounds.

use conformance_reference::{accumulation_bounds, Reference};
use conformance_spec::hlo::{parse_module, parse_shape};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::Backend;
use proptest::prelude::*;

fn shape_text(dims: &[i64]) -> String {
    let d: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("f32[{}]", d.join(","))
}

fn list(v: &[usize]) -> String {
    let d: Vec<String> = v.iter().map(usize::to_string).collect();
    format!("{{{}}}", d.join(","))
}

fn literal(dims: &[i64], values: &[f64]) -> Literal {
    let shape = parse_shape(&shape_text(dims))
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    Literal::Array(ArrayLiteral::from_f64s(shape, values).unwrap())
}

/// Row-major offset of `index` in `dims`.
fn offset(index: &[i64], dims: &[i64]) -> usize {
    index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i) as usize
}

fn values(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|k| ((k as u64 * 2654435761 + seed * 97) % 17) as f64 - 8.0)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// lhs holds logical dimensions (B, M, K) and rhs (B, K, N) in the orders `lp` / `rp`
    /// (entries 0, 1, 2 name B, M/N, K); with `batched` false B is absent.
    #[test]
    fn dot_general_matches_naive_loops(
        b in 1i64..4, m in 1i64..4, k in 0i64..4, n in 1i64..4,
        lp in Just(vec![0usize, 1, 2]).prop_shuffle(),
        rp in Just(vec![0usize, 1, 2]).prop_shuffle(),
        batched in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let keep = |p: &[usize]| -> Vec<usize> {
            p.iter().copied().filter(|&x| batched || x != 0).collect()
        };
        let (lp, rp) = (keep(&lp), keep(&rp));
        let lsize = |x: usize| [b, m, k][x];
        let rsize = |x: usize| [b, n, k][x];
        let ld: Vec<i64> = lp.iter().map(|&x| lsize(x)).collect();
        let rd: Vec<i64> = rp.iter().map(|&x| rsize(x)).collect();
        let pos = |p: &[usize], x: usize| p.iter().position(|&y| y == x).unwrap();
        let mut attrs = Vec::new();
        if batched {
            attrs.push(format!("lhs_batch_dims={}", list(&[pos(&lp, 0)])));
            attrs.push(format!("rhs_batch_dims={}", list(&[pos(&rp, 0)])));
        }
        attrs.push(format!("lhs_contracting_dims={}", list(&[pos(&lp, 2)])));
        attrs.push(format!("rhs_contracting_dims={}", list(&[pos(&rp, 2)])));
        let out: Vec<i64> = if batched { vec![b, m, n] } else { vec![m, n] };
        let hlo = format!(
            "HloModule m\nENTRY e {{\n  a = {} parameter(0)\n  c = {} parameter(1)\n  ROOT d = {} dot(a, c), {}\n}}\n",
            shape_text(&ld), shape_text(&rd), shape_text(&out), attrs.join(", ")
        );
        let lv = values(ld.iter().product::<i64>() as usize, seed);
        let rv = values(rd.iter().product::<i64>() as usize, seed + 1);
        let module = parse_module(&hlo).unwrap();
        let args = [literal(&ld, &lv), literal(&rd, &rv)];
        let got = Reference.execute(&module, &args).unwrap().into_array().unwrap().to_f64s().unwrap();
        let bounds = accumulation_bounds(&module, &args).unwrap().unwrap();
        let mut want = Vec::new();
        let mut want_abs = Vec::new();
        let bs = if batched { b } else { 1 };
        for bi in 0..bs {
            for mi in 0..m {
                for ni in 0..n {
                    let (mut s, mut a) = (0.0, 0.0);
                    for ki in 0..k {
                        let li: Vec<i64> = lp.iter().map(|&x| [bi, mi, ki][x]).collect();
                        let ri: Vec<i64> = rp.iter().map(|&x| [bi, ni, ki][x]).collect();
                        let p = lv[offset(&li, &ld)] * rv[offset(&ri, &rd)];
                        s += p;
                        a += f64::abs(p);
                    }
                    want.push(s);
                    want_abs.push(a);
                }
            }
        }
        prop_assert_eq!(got, want, "{}", hlo);
        prop_assert!(bounds[0].iter().all(|x| x.terms == k as u64));
        let abs: Vec<f64> = bounds[0].iter().map(|x| x.abs_sum).collect();
        prop_assert_eq!(abs, want_abs);
    }

    #[test]
    fn reduce_sum_matches_naive_loops(
        dims in prop::collection::vec(1i64..4, 1..4),
        mask in any::<u8>(),
        seed in 0u64..1000,
    ) {
        let rank = dims.len();
        let reduced: Vec<usize> = (0..rank).filter(|d| mask >> d & 1 == 1).collect();
        let kept: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
        let out: Vec<i64> = kept.iter().map(|&d| dims[d]).collect();
        let hlo = format!(
            "HloModule m\nadd {{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}}\n\nENTRY e {{\n  a = {} parameter(0)\n  i = f32[] parameter(1)\n  ROOT r = {} reduce(a, i), dimensions={}, to_apply=add\n}}\n",
            shape_text(&dims), shape_text(&out), list(&reduced)
        );
        let v = values(dims.iter().product::<i64>() as usize, seed);
        let module = parse_module(&hlo).unwrap();
        let args = [literal(&dims, &v), literal(&[], &[0.5])];
        let got = Reference.execute(&module, &args).unwrap().into_array().unwrap().to_f64s().unwrap();
        let count: usize = out.iter().product::<i64>() as usize;
        let mut want = vec![0.5; count];
        let mut idx = vec![0i64; rank];
        for &x in &v {
            let o: Vec<i64> = kept.iter().map(|&d| idx[d]).collect();
            want[offset(&o, &out)] += x;
            for d in (0..rank).rev() {
                idx[d] += 1;
                if idx[d] < dims[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        prop_assert_eq!(got, want, "{}", hlo);
        let bounds = accumulation_bounds(&module, &args).unwrap().unwrap();
        let per: i64 = reduced.iter().map(|&d| dims[d]).product();
        prop_assert!(bounds[0].iter().all(|b| b.terms == per as u64 + 1));
    }
}
