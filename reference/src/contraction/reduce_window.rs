//! `reduce-window` (seed 004, ReduceWindow): every window of N arrays reduced with a computation
//! and N init values.
//!
//! Operands `(operands[0..N], init_values[0..N])`, N >= 1 (as `reduce`); attributes
//! `window={size=... stride=... pad=... lhs_dilate=... rhs_dilate=...}` (one dimension per operand
//! dimension; `lhs_dilate` is the base dilation, `rhs_dilate` the window dilation; reversal is
//! rejected) and `to_apply=%computation` (as `reduce`). The result has one element per window
//! position ([`super::window::output_size`] per dimension): an array (N = 1) or a tuple of N.
//!
//! Each output element is the init value reduced with the window's elements that lie inside the
//! base, in row-major order of the window ([`super::window::base_index`]: padding positions and
//! base-dilation holes are skipped, as XLA's evaluator and CPU backend do; seed 004 describes
//! `kSame` padding as padding with the init value, which gives the same result because the seed
//! requires the init value to be an identity of the computation). A plain sum is exact (init +
//! elements, rounded once); other computations run in that canonical order
//! ([`super::reducer`]).

use super::reduce::{reduce_to_apply, Inputs};
use super::reducer::bounds_of_sum;
use super::window::{base_index_table, output_size, read_window};
use super::{row_major_strides, AccumulationBound};
use crate::interpreter::Context;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::Literal;
use conformance_spec::BackendError;

/// Evaluates the reduce-window; with `track` and a sum, also the bounds.
fn evaluate(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
    track: bool,
) -> Result<(Literal, Option<Vec<AccumulationBound>>), BackendError> {
    let op = "reduce-window";
    let inputs = Inputs::new(op, instr, operands)?;
    let dims = inputs.arrays[0].dimensions().to_vec();
    let window = read_window(op, instr, dims.len(), false)?;
    let out_dims: Vec<i64> = window
        .dimensions
        .iter()
        .zip(&dims)
        .map(|(w, &d)| output_size(d, w))
        .collect();
    let table = base_index_table(&window, &dims, &out_dims);
    let sizes: Vec<i64> = window.dimensions.iter().map(|w| w.size).collect();
    let strides = row_major_strides(&dims);
    reduce_to_apply(
        ctx,
        op,
        instr,
        &inputs,
        &out_dims,
        |j, offsets| {
            index::for_each_index(&sizes, |k| {
                let mut off = 0usize;
                for (d, (&o, &kd)) in j.iter().zip(k).enumerate() {
                    match table[d][o as usize][kd as usize] {
                        Some(i) => off += i as usize * strides[d],
                        None => return,
                    }
                }
                offsets.push(off);
            });
        },
        track,
    )
}

/// `reduce-window` (see the module docs).
///
/// Errors: [`BackendError::Invalid`] for an odd or zero operand count, arrays of different
/// dimensions, init values that are not scalars of their array's type, a malformed window (rank
/// other than the operands', size, stride or dilation below 1, reversal), a result other than the
/// window positions with the operands' element types, a missing `to_apply`, or a computation that
/// does not return N scalars of those types; any error of the computation.
pub(crate) fn reduce_window(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    evaluate(ctx, instr, operands, false).map(|(v, _)| v)
}

/// The bounds of every result element when `to_apply` is a sum (else `None`), as
/// [`super::accumulation_bounds`] reports them.
pub(crate) fn bounds(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    bounds_of_sum(ctx, instr, "to_apply", |track| {
        evaluate(ctx, instr, operands, track)
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use crate::contraction::accumulation_bounds;
    use conformance_spec::hlo::parse_module;
    use conformance_spec::literal::Literal;

    const ADD: &str = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n";
    const MIN: &str = "mn {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] minimum(x, y)\n}\n";
    const MAX: &str = "mx {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] maximum(x, y)\n}\n";

    fn rw(comp: &str, name: &str, operand: &str, out: &str, window: &str) -> String {
        format!(
            "HloModule m\n{comp}\nENTRY e {{\n  a = {operand} parameter(0)\n  i = f32[] parameter(1)\n  ROOT r = {out} reduce-window(a, i), window={{{window}}}, to_apply={name}\n}}\n"
        )
    }

    #[test]
    fn seed_min_example_valid_and_same() {
        // Seed 004, ReduceWindow: min over [10000, 1000, 100, 10, 1], size 3, stride 2, init
        // MAX_FLOAT: VALID → [100, 1]; SAME (pad 1_1) → [1000, 10, 1].
        let x = f32s("f32[5]", &[10000., 1000., 100., 10., 1.]);
        let init = f32s("f32[]", &[f32::MAX]);
        let valid = rw(MIN, "mn", "f32[5]", "f32[2]", "size=3 stride=2");
        assert_eq!(
            f32_values(&run_array(&valid, &[x.clone(), init.clone()])),
            vec![100., 1.]
        );
        let same = rw(MIN, "mn", "f32[5]", "f32[3]", "size=3 stride=2 pad=1_1");
        assert_eq!(
            f32_values(&run_array(&same, &[x, init])),
            vec![1000., 10., 1.]
        );
    }

    #[test]
    fn seed_max_2x3_example_with_layouts() {
        // Seed 004, ReduceWindow: a 4x6 input, window 2x3, stride 2x3, max, VALID.
        let v: Vec<f32> = (0..24).map(|i| ((i * 7) % 24) as f32).collect();
        let want = |r: usize, c: usize| {
            (0..2)
                .flat_map(|y| (0..3).map(move |x| (y, x)))
                .map(|(y, x)| v[(2 * r + y) * 6 + 3 * c + x])
                .fold(f32::MIN, f32::max)
        };
        for layout in ["{1,0}", "{0,1}"] {
            let hlo = rw(
                MAX,
                "mx",
                &format!("f32[4,6]{layout}"),
                "f32[2,2]{0,1}",
                "size=2x3 stride=2x3",
            );
            let got = run_array(
                &hlo,
                &[
                    f32s(&format!("f32[4,6]{layout}"), &v),
                    f32s("f32[]", &[f32::MIN]),
                ],
            );
            assert_eq!(
                f32_values(&got),
                vec![want(0, 0), want(0, 1), want(1, 0), want(1, 1)]
            );
        }
    }

    #[test]
    fn dilations_padding_and_exact_sums() {
        // Base [1, 2, 3] dilated by 2 → 1 _ 2 _ 3, padded 1_1 → _ 1 _ 2 _ 3 _ (7 positions);
        // window 2 dilated by 2 (span 3), stride 1 → 5 windows: {_,_}, {1,2}, {_,_}, {2,3}, {_,_}.
        let hlo = rw(
            ADD,
            "add",
            "f32[3]",
            "f32[5]",
            "size=2 pad=1_1 lhs_dilate=2 rhs_dilate=2",
        );
        let args = [f32s("f32[3]", &[1., 2., 3.]), f32s("f32[]", &[0.5])];
        assert_eq!(
            f32_values(&run_array(&hlo, &args)),
            vec![0.5, 3.5, 0.5, 5.5, 0.5]
        );
        let m = parse_module(&hlo).unwrap();
        let b = accumulation_bounds(&m, &args).unwrap().unwrap();
        assert_eq!(
            b[0].iter().map(|x| x.terms).collect::<Vec<_>>(),
            vec![1, 3, 1, 3, 1]
        );
        assert_eq!(b[0][3].abs_sum, 5.5);
        // Negative padding and catastrophic cancellation: [x, 1e8, 1, -1e8, 1] cut by 1 on the
        // left, one window of 4: exact 2, naive f32 1.
        let hlo = rw(ADD, "add", "f32[5]", "f32[1]", "size=4 pad=-1_0");
        let args = [
            f32s("f32[5]", &[7., 1e8, 1., -1e8, 1.]),
            f32s("f32[]", &[0.]),
        ];
        assert_eq!(f32_values(&run_array(&hlo, &args)), vec![2.]);
    }

    #[test]
    fn variadic_windows() {
        // Two operands reduced together: (max value, its index), 2-D window 2x2 stride 1.
        let hlo = "HloModule m\nam {\n  m = f32[] parameter(0)\n  k = s32[] parameter(1)\n  v = f32[] parameter(2)\n  i = s32[] parameter(3)\n  gt = pred[] compare(v, m), direction=GT\n  nm = f32[] select(gt, v, m)\n  nk = s32[] select(gt, i, k)\n  ROOT t = (f32[], s32[]) tuple(nm, nk)\n}\n\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = s32[2,3] parameter(1)\n  i = f32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = (f32[1,2], s32[1,2]) reduce-window(a, b, i, j), window={size=2x2}, to_apply=am\n}\n";
        let got = run(
            hlo,
            &[
                f32s("f32[2,3]", &[1., 5., 2., 5., 0., 9.]),
                ints("s32[2,3]", &[0, 1, 2, 3, 4, 5]),
                f32s("f32[]", &[f32::NEG_INFINITY]),
                ints("s32[]", &[-1]),
            ],
        )
        .unwrap();
        let Literal::Tuple(items) = got else {
            panic!("not a tuple")
        };
        assert_eq!(f32_values(items[0].as_array().unwrap()), vec![5., 9.]);
        // Ties keep the first in row-major window order (GT): index 1, not 3.
        assert_eq!(int_values(items[1].as_array().unwrap()), vec![1, 5]);
    }

    #[test]
    fn errors_name_the_problem() {
        let hlo = rw(ADD, "add", "f32[5]", "f32[4]", "size=3");
        let e = run(&hlo, &[f32s("f32[5]", &[0.; 5]), f32s("f32[]", &[0.])]).unwrap_err();
        assert!(e.to_string().contains("produces [3]"), "{e}");
        let hlo = rw(ADD, "add", "f32[5]", "f32[4]", "size=2 rhs_reversal=1");
        let e = run(&hlo, &[f32s("f32[5]", &[0.; 5]), f32s("f32[]", &[0.])]).unwrap_err();
        assert!(e.to_string().contains("reversed"), "{e}");
    }
}
