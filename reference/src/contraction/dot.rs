//! `dot` (seed 004, Dot and DotGeneral): sums of products over the contracting dimensions, for
//! every combination of batch, lhs-free and rhs-free indices — exact, rounded once.
//!
//! Operands `(lhs, rhs)` of one element type; attributes `lhs_batch_dims`, `rhs_batch_dims`
//! (paired by position, equal sizes), `lhs_contracting_dims`, `rhs_contracting_dims` (paired by
//! position, equal sizes) in any positions ([`DotDimensionNumbers`]); `operand_precision` /
//! `precision_config` are accepted and do not change the (exact) math. The result dimensions
//! are the batch dimensions (in `lhs_batch_dims` order), then lhs's free dimensions, then rhs's
//! (each in increasing order); the result element type may differ from the operands' (mixed
//! precision, see [`super::accumulator::Mode`]). Seed 004's `Dot` is the case without batch
//! dimensions, contracting lhs's last dimension with rhs's first.
//!
//! The sum for each result element runs over the contracting index space; its order does not
//! matter (the sum is exact). The sum starts from +0 like every implementation's accumulator: an
//! exact zero (an empty contraction included) is +0 even when every product is −0.

use super::accumulator::{decode_array, sums_of_products, Mode};
use super::{arrays, dimension, expect_dims, invalid, row_major_strides, AccumulationBound};
use crate::interpreter::{result_array_shape, Context};
use conformance_spec::hlo::contraction_numbers::DotDimensionNumbers;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// A checked dot: per result element, where its lhs and rhs rows start, and the offsets of the
/// contracting index space in both (all in logical row-major element offsets).
struct Plan {
    mode: Mode,
    /// For each result dimension: its row-major stride in lhs and in rhs (0 where it does not
    /// index that operand).
    lhs_strides: Vec<usize>,
    rhs_strides: Vec<usize>,
    /// `(lhs offset, rhs offset)` of every contracting index.
    pairs: Vec<(usize, usize)>,
}

impl Plan {
    fn new(
        instr: &HloInstruction,
        lhs: &ArrayLiteral,
        rhs: &ArrayLiteral,
    ) -> Result<Plan, BackendError> {
        let shape = result_array_shape(instr)?;
        if lhs.element_type() != rhs.element_type() {
            return invalid(format!(
                "dot: the operands have element types {} and {}; they must be equal",
                lhs.element_type(),
                rhs.element_type()
            ));
        }
        let mode = Mode::new("dot", lhs.element_type(), shape.element_type)?;
        let dn = DotDimensionNumbers::from_instruction(instr)
            .map_err(|e| BackendError::Invalid(format!("dot: {e}")))?;
        let (ld, rd) = (lhs.dimensions(), rhs.dimensions());
        let dims = |what: &str, list: &[i64], rank: usize| -> Result<Vec<usize>, BackendError> {
            list.iter()
                .map(|&d| dimension("dot", what, d, rank))
                .collect()
        };
        let lb = dims("lhs_batch_dims entry", &dn.lhs_batch_dimensions, ld.len())?;
        let rb = dims("rhs_batch_dims entry", &dn.rhs_batch_dimensions, rd.len())?;
        let lc = dims(
            "lhs_contracting_dims entry",
            &dn.lhs_contracting_dimensions,
            ld.len(),
        )?;
        let rc = dims(
            "rhs_contracting_dims entry",
            &dn.rhs_contracting_dimensions,
            rd.len(),
        )?;
        if lb.len() != rb.len() || lc.len() != rc.len() {
            return invalid(format!(
                "dot: {} lhs and {} rhs batch dimensions, {} lhs and {} rhs contracting dimensions; \
                 they must pair up",
                lb.len(),
                rb.len(),
                lc.len(),
                rc.len()
            ));
        }
        for (side, b, c, rank) in [("lhs", &lb, &lc, ld.len()), ("rhs", &rb, &rc, rd.len())] {
            let all: Vec<usize> = b.iter().chain(c.iter()).copied().collect();
            if (1..all.len()).any(|k| all[..k].contains(&all[k])) {
                return invalid(format!(
                    "dot: the {side} batch and contracting dimensions {all:?} repeat a dimension \
                     (rank {rank})"
                ));
            }
        }
        for (what, l, r) in [("batch", &lb, &rb), ("contracting", &lc, &rc)] {
            for (&x, &y) in l.iter().zip(r.iter()) {
                if ld[x] != rd[y] {
                    return invalid(format!(
                        "dot: {what} dimension {x} of lhs has size {}, its pair {y} of rhs {}",
                        ld[x], rd[y]
                    ));
                }
            }
        }
        let free = |rank: usize, b: &[usize], c: &[usize]| -> Vec<usize> {
            (0..rank)
                .filter(|d| !b.contains(d) && !c.contains(d))
                .collect()
        };
        let (lf, rf) = (free(ld.len(), &lb, &lc), free(rd.len(), &rb, &rc));
        let expected: Vec<i64> = lb
            .iter()
            .map(|&d| ld[d])
            .chain(lf.iter().map(|&d| ld[d]))
            .chain(rf.iter().map(|&d| rd[d]))
            .collect();
        expect_dims("dot", shape, &expected)?;
        let (ls, rs) = (row_major_strides(ld), row_major_strides(rd));
        let mut lhs_strides: Vec<usize> = lb.iter().map(|&d| ls[d]).collect();
        let mut rhs_strides: Vec<usize> = rb.iter().map(|&d| rs[d]).collect();
        lhs_strides.extend(lf.iter().map(|&d| ls[d]));
        rhs_strides.extend(std::iter::repeat_n(0, lf.len()));
        lhs_strides.extend(std::iter::repeat_n(0, rf.len()));
        rhs_strides.extend(rf.iter().map(|&d| rs[d]));
        let contracting: Vec<i64> = lc.iter().map(|&d| ld[d]).collect();
        let mut pairs = Vec::new();
        index::for_each_index(&contracting, |c| {
            let l = c.iter().zip(&lc).map(|(&i, &d)| i as usize * ls[d]).sum();
            let r = c.iter().zip(&rc).map(|(&i, &d)| i as usize * rs[d]).sum();
            pairs.push((l, r));
        });
        Ok(Plan {
            mode,
            lhs_strides,
            rhs_strides,
            pairs,
        })
    }
}

/// Evaluates the dot; with `track`, also the bound of every result element.
fn evaluate(
    instr: &HloInstruction,
    operands: &[&Literal],
    track: bool,
) -> Result<(ArrayLiteral, Vec<AccumulationBound>), BackendError> {
    let ops = arrays(instr, operands, 2)?;
    if operands.len() != 2 {
        return invalid(format!("dot takes 2 operands, got {}", operands.len()));
    }
    let plan = Plan::new(instr, ops[0], ops[1])?;
    let shape = result_array_shape(instr)?;
    let (lhs, rhs) = (decode_array(ops[0]), decode_array(ops[1]));
    Ok(sums_of_products(shape, plan.mode, track, |j, acc| {
        let l0: usize = j
            .iter()
            .zip(&plan.lhs_strides)
            .map(|(&i, &s)| i as usize * s)
            .sum();
        let r0: usize = j
            .iter()
            .zip(&plan.rhs_strides)
            .map(|(&i, &s)| i as usize * s)
            .sum();
        for &(l, r) in &plan.pairs {
            acc.add_product(&lhs[l0 + l], &rhs[r0 + r]);
        }
    }))
}

/// `dot` (see the module docs).
///
/// Errors: [`BackendError::Invalid`] for an operand count other than 2, operands of different
/// element types, dimension numbers out of range, repeated or unpaired, paired dimensions of
/// different sizes, or a result whose dimensions are not the ones listed in the module docs;
/// [`BackendError::Unsupported`] for a result element type the operands cannot accumulate into.
pub(crate) fn dot(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    evaluate(instr, operands, false).map(|(a, _)| Literal::Array(a))
}

/// The bounds of every result element (one leaf), as [`super::accumulation_bounds`] reports them.
pub(crate) fn bounds(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    evaluate(instr, operands, true).map(|(_, b)| Some(vec![b]))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::contraction::accumulation_bounds;
    use conformance_spec::hlo::parse_module;
    use conformance_spec::literal::Literal;

    fn dot_hlo(lhs: &str, rhs: &str, out: &str, attrs: &str) -> String {
        format!(
            "HloModule m\nENTRY e {{\n  a = {lhs} parameter(0)\n  b = {rhs} parameter(1)\n  ROOT d = {out} dot(a, b), {attrs}\n}}\n"
        )
    }

    #[test]
    fn seed_dot_general_contracting_example() {
        // Seed 004, DotGeneral: lhs {{1,2,3},{4,5,6}}, rhs {{1,1,1},{2,2,2}}, contracting 1 / 1.
        let hlo = dot_hlo(
            "f32[2,3]",
            "f32[2,3]",
            "f32[2,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={1}",
        );
        let lhs = f32s("f32[2,3]", &[1., 2., 3., 4., 5., 6.]);
        let rhs = f32s("f32[2,3]", &[1., 1., 1., 2., 2., 2.]);
        let got = run_array(&hlo, &[lhs, rhs]);
        assert_eq!(f32_values(&got), vec![6., 12., 15., 30.]);
    }

    #[test]
    fn seed_dot_general_batch_example() {
        // Seed 004, DotGeneral: batch 0, contracting lhs 2 / rhs 1, rhs = identity matrices.
        let hlo = dot_hlo(
            "f32[2,2,2]",
            "f32[2,2,2]",
            "f32[2,2,2]",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
        );
        let lhs = f32s("f32[2,2,2]", &[1., 2., 3., 4., 5., 6., 7., 8.]);
        let rhs = f32s("f32[2,2,2]", &[1., 0., 0., 1., 1., 0., 0., 1.]);
        let got = run_array(&hlo, &[lhs, rhs]);
        assert_eq!(f32_values(&got), vec![1., 2., 3., 4., 5., 6., 7., 8.]);
    }

    #[test]
    fn seed_dot_ranks() {
        // vector · vector, matrix · vector, matrix · matrix (seed 004, Dot).
        let vv = dot_hlo(
            "f32[3]",
            "f32[3]",
            "f32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let v = f32s("f32[3]", &[1., 2., 3.]);
        assert_eq!(
            f32_values(&run_array(&vv, &[v.clone(), v.clone()])),
            vec![14.]
        );
        let mv = dot_hlo(
            "f32[2,3]",
            "f32[3]",
            "f32[2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        );
        let m = f32s("f32[2,3]", &[1., 0., 0., 1., 1., 1.]);
        assert_eq!(f32_values(&run_array(&mv, &[m.clone(), v])), vec![1., 6.]);
        let mm = dot_hlo(
            "f32[2,3]",
            "f32[3,2]",
            "f32[2,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        );
        let r = f32s("f32[3,2]", &[1., 2., 3., 4., 5., 6.]);
        assert_eq!(f32_values(&run_array(&mm, &[m, r])), vec![1., 2., 9., 12.]);
    }

    #[test]
    fn batch_and_contracting_dims_anywhere_and_any_layout() {
        // lhs [k=2, b=2, m=3], rhs [n=2, k=2, b=2] with column-major-ish layouts; result [b, m, n].
        let hlo = dot_hlo(
            "f32[2,2,3]{0,2,1}",
            "f32[2,2,2]{1,0,2}",
            "f32[2,3,2]{0,1,2}",
            "lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={2}, rhs_contracting_dims={1}",
        );
        let lv: Vec<f32> = (0..12).map(|x| x as f32).collect();
        let rv: Vec<f32> = (0..8).map(|x| (x * x) as f32 - 3.0).collect();
        let got = run_array(
            &hlo,
            &[
                f32s("f32[2,2,3]{0,2,1}", &lv),
                f32s("f32[2,2,2]{1,0,2}", &rv),
            ],
        );
        let l = |k: usize, b: usize, m: usize| lv[k * 6 + b * 3 + m];
        let r = |n: usize, k: usize, b: usize| rv[n * 4 + k * 2 + b];
        let mut want = Vec::new();
        for b in 0..2 {
            for m in 0..3 {
                for n in 0..2 {
                    want.push((0..2).map(|k| l(k, b, m) * r(n, k, b)).sum::<f32>());
                }
            }
        }
        assert_eq!(f32_values(&got), want);
    }

    #[test]
    fn catastrophic_cancellation_is_exact() {
        // [1e8, 1, -1e8, 1] · [1, 1, 1, 1]: naive f32 gives 1, the exact sum is 2.
        let hlo = dot_hlo(
            "f32[4]",
            "f32[4]",
            "f32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let x = [1e8f32, 1.0, -1e8, 1.0];
        let naive = x.iter().fold(0f32, |a, &v| a + v);
        let got = run_array(&hlo, &[f32s("f32[4]", &x), f32s("f32[4]", &[1.0; 4])]);
        assert_eq!(naive, 1.0);
        assert_eq!(f32_values(&got), vec![2.0]);
    }

    #[test]
    fn mixed_precision_and_integer_wraparound() {
        // bf16 × bf16 → f32: (1 + 2^-7)^2 is exact in f32.
        let hlo = dot_hlo(
            "bf16[1]",
            "bf16[1]",
            "f32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let x = values("bf16[1]", &[1.0 + 2f64.powi(-7)]);
        let got = run_array(&hlo, &[x.clone(), x]);
        assert_eq!(f64_values(&got), vec![(1.0 + 2f64.powi(-7)).powi(2)]);
        // s8 × s8 → s32 widens: 127·127·3 = 48387.
        let hlo = dot_hlo(
            "s8[3]",
            "s8[3]",
            "s32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let x = ints("s8[3]", &[127, 127, 127]);
        assert_eq!(int_values(&run_array(&hlo, &[x.clone(), x])), vec![48387]);
        // s32 wraps: 2 · 2^30 · 1 = 2^31 → −2^31.
        let hlo = dot_hlo(
            "s32[2]",
            "s32[2]",
            "s32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let a = ints("s32[2]", &[1 << 30, 1 << 30]);
        let b = ints("s32[2]", &[1, 1]);
        assert_eq!(int_values(&run_array(&hlo, &[a, b])), vec![-(1i128 << 31)]);
    }

    #[test]
    fn complex_and_special_values() {
        let hlo = dot_hlo(
            "c64[2]",
            "c64[2]",
            "c64[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let shape = parse_shape_array("c64[2]");
        let z = |re: f64, im: f64| (re, im);
        let a = conformance_spec::literal::ArrayLiteral::from_complex(
            shape.clone(),
            &[z(1., 2.), z(3., -1.)],
        )
        .unwrap();
        let b =
            conformance_spec::literal::ArrayLiteral::from_complex(shape, &[z(0., 1.), z(2., 2.)])
                .unwrap();
        // (1+2i)i + (3-i)(2+2i) = (-2+i) + (8+4i) = 6+5i
        let got = run_array(&hlo, &[Literal::Array(a), Literal::Array(b)]);
        let (re, im) = conformance_spec::literal::complex_parts(
            conformance_spec::element_type::FloatFormat::F32,
            got.get_bits(&[]),
        );
        assert_eq!(
            (f32::from_bits(re as u32), f32::from_bits(im as u32)),
            (6.0, 5.0)
        );
        let hlo = dot_hlo(
            "f32[2]",
            "f32[2]",
            "f32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let run1 = |x: [f32; 2], y: [f32; 2]| {
            f32_values(&run_array(&hlo, &[f32s("f32[2]", &x), f32s("f32[2]", &y)]))[0]
        };
        assert!(run1([f32::INFINITY, 1.0], [0.0, 1.0]).is_nan());
        assert!(run1([f32::INFINITY, f32::INFINITY], [1.0, -1.0]).is_nan());
        assert_eq!(run1([f32::INFINITY, 1e30], [1.0, -1e30]), f32::INFINITY);
        assert_eq!(run1([f32::MAX, f32::MAX], [1.0, 1.0]), f32::INFINITY);
        // Every product −0: the sum starts at +0, so +0.
        assert_eq!(run1([-0.0, 0.0], [1.0, -1.0]).to_bits(), 0);
        // A tiny negative exact sum rounds to −0 (the sign of the exact value).
        assert_eq!(
            run1([1e-30, -1e-30], [1e-20, 2e-20]).to_bits(),
            (-0f32).to_bits()
        );
    }

    #[test]
    fn every_float_format_rounds_once() {
        let vdot = |ty: &str, out: &str| {
            dot_hlo(
                &format!("{ty}[3]"),
                &format!("{ty}[3]"),
                &format!("{out}[]"),
                "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
            )
        };
        // f8e4m3fn: 240·2 − 240 + 1·0.5 = 240.5 exactly (an intermediate 480 would overflow
        // f8), rounded once to 240 (spacing 16) in f8 and kept exactly in f32; 240·2 alone is
        // above the largest finite 448 → NaN (the format has no infinities).
        let a = values("f8e4m3fn[3]", &[240., 240., 1.]);
        let b = values("f8e4m3fn[3]", &[2., -1., 0.5]);
        let got = run_array(&vdot("f8e4m3fn", "f8e4m3fn"), &[a.clone(), b.clone()]);
        assert_eq!(f64_values(&got), vec![240.]);
        let got = run_array(&vdot("f8e4m3fn", "f32"), &[a.clone(), b]);
        assert_eq!(f64_values(&got), vec![240.5]);
        let b = values("f8e4m3fn[3]", &[2., 0., 0.]);
        let got = run_array(&vdot("f8e4m3fn", "f8e4m3fn"), &[a, b]);
        assert!(f64_values(&got)[0].is_nan());
        // f64: 2^60 + 1 − 2^60 = 1 (naive f64: 0).
        let a = values("f64[3]", &[2f64.powi(60), 1., -(2f64.powi(60))]);
        let b = values("f64[3]", &[1., 1., 1.]);
        let got = run_array(&vdot("f64", "f64"), &[a, b]);
        assert_eq!(f64_values(&got), vec![1.]);
        // f16 × f16 → f32 and f16: 0.1 (f16) squared three times; f16 result rounds once.
        let x = half::f16::from_f64(0.1).to_f64();
        let a = values("f16[3]", &[x, x, x]);
        let got = run_array(&vdot("f16", "f32"), &[a.clone(), a.clone()]);
        assert_eq!(f64_values(&got), vec![f64::from((3.0 * x * x) as f32)]);
        let got = run_array(&vdot("f16", "f16"), &[a.clone(), a]);
        assert_eq!(
            f64_values(&got),
            vec![half::f16::from_f64(3.0 * x * x).to_f64()]
        );
        // Unsigned wrap-around: u8 200·2 = 400 → 144.
        let a = ints("u8[3]", &[200, 0, 0]);
        let b = ints("u8[3]", &[2, 0, 0]);
        assert_eq!(
            int_values(&run_array(&vdot("u8", "u8"), &[a, b])),
            vec![144]
        );
    }

    #[test]
    fn bounds_count_terms_and_magnitudes() {
        let hlo = dot_hlo(
            "f32[2,3]",
            "f32[3]",
            "f32[2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        );
        let m = parse_module(&hlo).unwrap();
        let args = [
            f32s("f32[2,3]", &[1., -2., 3., 0.5, 0.5, -0.5]),
            f32s("f32[3]", &[1., 1., -1.]),
        ];
        let b = accumulation_bounds(&m, &args).unwrap().unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].iter().map(|x| x.terms).collect::<Vec<_>>(), vec![3, 3]);
        assert_eq!(
            b[0].iter().map(|x| x.abs_sum).collect::<Vec<_>>(),
            vec![6.0, 1.5]
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let hlo = dot_hlo(
            "f32[2,3]",
            "f32[2,3]",
            "f32[2,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        );
        let e = run(
            &hlo,
            &[f32s("f32[2,3]", &[0.; 6]), f32s("f32[2,3]", &[0.; 6])],
        )
        .unwrap_err();
        assert!(e.to_string().contains("size 3"), "{e}");
        let hlo = dot_hlo(
            "f32[2,3]",
            "f32[3]",
            "f32[3]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        );
        let e = run(
            &hlo,
            &[f32s("f32[2,3]", &[0.; 6]), f32s("f32[3]", &[0.; 3])],
        )
        .unwrap_err();
        assert!(e.to_string().contains("produces [2]"), "{e}");
        let hlo = dot_hlo(
            "f32[3]",
            "f32[3]",
            "s32[]",
            "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
        );
        let e = run(&hlo, &[f32s("f32[3]", &[0.; 3]), f32s("f32[3]", &[0.; 3])]).unwrap_err();
        assert!(e.to_string().contains("not defined"), "{e}");
    }
}
