//! Layouts do not change the values of the contraction family: dot, convolution, reduce,
//! reduce-window and select-and-scatter with random `minor_to_major` orders and padding on their
//! parameters and result give the same logical result (bit for bit) as with default layouts, in
//! the instruction's layout; the accumulation bounds do not change either.

mod common;

use common::layouts::{bare, case_strategy, laid_out, module_text, LayoutCase};
use conformance_reference::{accumulation_bounds, Reference};
use conformance_spec::hlo::parse_module;
use conformance_spec::layout::PaddingValue;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::Backend;
use proptest::prelude::*;

const COMPUTATIONS: &str = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\nmx {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] maximum(x, y)\n}\n\nge {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT c = pred[] compare(x, y), direction=GE\n}\n\naddi {\n  x = s32[] parameter(0)\n  y = s32[] parameter(1)\n  ROOT s = s32[] add(x, y)\n}\n\n";

/// (parameter shapes without layout, result shape without layout, the op text).
const CASES: &[LayoutCase] = &[
    (
        &["f32[2,3,4]", "f32[4,2,5]"],
        "f32[2,3,5]",
        "dot(p0, p1), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={0}",
    ),
    (
        &["s8[3,4]", "s8[4,2]"],
        "s32[3,2]",
        "dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
    ),
    (
        &["f32[2,4,5,3]", "f32[4,1,2,2]"],
        "f32[2,4,3,3]",
        "convolution(p0, p1), window={size=2x2 stride=2x1 pad=1_1x1_1 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01, feature_group_count=4",
    ),
    (
        &["f32[2,3,4]", "f32[]"],
        "f32[3]",
        "reduce(p0, p1), dimensions={0,2}, to_apply=add",
    ),
    (
        &["f32[2,3,4]", "f32[]"],
        "f32[2,4]",
        "reduce(p0, p1), dimensions={1}, to_apply=mx",
    ),
    (
        &["s32[4,5]", "s32[]"],
        "s32[3,3]",
        "reduce-window(p0, p1), window={size=2x3 stride=1x2 pad=0_0x1_1}, to_apply=addi",
    ),
    (
        &["f32[4,6]", "f32[2,3]", "f32[]"],
        "f32[4,6]",
        "select-and-scatter(p0, p1, p2), window={size=2x2 stride=2x2}, select=ge, scatter=add",
    ),
];

/// The padding values the layouts of this test draw from.
fn padding_values() -> Vec<PaddingValue> {
    vec![
        PaddingValue::Zero,
        PaddingValue::Highest,
        PaddingValue::Unknown,
    ]
}

/// Argument values: small integers (exact f32 sums stay in range) derived from the position and
/// the parameter number, with a few far larger and smaller magnitudes.
fn argument(shape: &ArrayShape, param: usize) -> ArrayLiteral {
    let n = shape.element_count();
    if shape.element_type.is_integer() {
        let v: Vec<i128> = (0..n)
            .map(|k| ((k * 37 + param * 11) % 23) as i128 - 11)
            .collect();
        return ArrayLiteral::from_i128s(shape.clone(), &v).unwrap();
    }
    let v: Vec<f64> = (0..n)
        .map(|k| {
            let x = ((k * 37 + param * 11) % 23) as f64 - 11.0;
            match k % 7 {
                3 => x * 1e6,
                5 => x * 1e-7_f64.powi(2),
                _ => x,
            }
        })
        .map(|x| f64::from(x as f32))
        .collect();
    ArrayLiteral::from_f64s(shape.clone(), &v).unwrap()
}

#[allow(clippy::type_complexity)]
fn run(
    params: &[ArrayShape],
    result: &ArrayShape,
    op: &str,
    args: Vec<Literal>,
) -> (ArrayLiteral, Option<Vec<Vec<(u64, f64)>>>) {
    let text = module_text(COMPUTATIONS, params, result, op);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let value = Reference
        .execute(&m, &args)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .into_array()
        .expect("array result");
    let bounds = accumulation_bounds(&m, &args)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .map(|leaves| {
            leaves
                .into_iter()
                .map(|l| l.into_iter().map(|b| (b.terms, b.abs_sum)).collect())
                .collect()
        });
    (value, bounds)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn layouts_do_not_change_values((c, param_layouts, result_layout) in case_strategy(CASES, padding_values())) {
        let (params, result, op) = CASES[c];
        let plain: Vec<ArrayShape> = params.iter().map(|p| bare(p)).collect();
        let result_plain = bare(result);
        let args: Vec<ArrayLiteral> =
            plain.iter().enumerate().map(|(i, s)| argument(s, i)).collect();
        let (expected, expected_bounds) = run(
            &plain,
            &result_plain,
            op,
            args.iter().cloned().map(Literal::from).collect(),
        );
        let (laid, laid_args) = laid_out(&plain, &param_layouts, &args);
        let result_laid = result_plain.clone().with_layout(result_layout);
        let (got, bounds) = run(&laid, &result_laid, op, laid_args);
        prop_assert_eq!(got.shape(), &result_laid);
        prop_assert!(got.logical_eq(&expected), "{}: {} vs {}", op, got, expected);
        prop_assert_eq!(bounds, expected_bounds);
    }
}

#[test]
fn bounds_exist_exactly_for_sums() {
    for (params, result, op) in CASES {
        let plain: Vec<ArrayShape> = params.iter().map(|p| bare(p)).collect();
        let args: Vec<Literal> = plain
            .iter()
            .enumerate()
            .map(|(i, s)| argument(s, i).into())
            .collect();
        let (value, bounds) = run(&plain, &bare(result), op, args);
        let is_sum = !op.contains("to_apply=mx");
        assert_eq!(bounds.is_some(), is_sum, "{op}");
        if let Some(b) = bounds {
            assert_eq!(b.len(), 1);
            assert_eq!(b[0].len(), value.shape().element_count(), "{op}");
        }
    }
}
