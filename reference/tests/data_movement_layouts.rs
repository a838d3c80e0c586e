//! Layouts do not change the values of data-movement operations: each operation with random
//! `minor_to_major` orders and padding on its parameters and its result gives the same logical
//! result as with default layouts, in the instruction's layout.

mod common;

use common::layouts::{bare, case_strategy, laid_out, module_text, LayoutCase};
use conformance_reference::Reference;
use conformance_spec::hlo::parse_module;
use conformance_spec::layout::PaddingValue;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::Backend;
use proptest::prelude::*;

/// (parameter shapes without layout, result shape without layout, the op text with `{params}`).
const CASES: &[LayoutCase] = &[
    (&["s16[2,3,4]"], "s16[4,2,3]", "transpose(p0), dimensions={2,0,1}"),
    (&["f32[2,3,4]"], "f32[6,4]", "reshape(p0)"),
    (&["c64[3,4]"], "c64[3,4]", "reverse(p0), dimensions={0,1}"),
    (&["f8e5m2[5,6]"], "f8e5m2[2,2]", "slice(p0), slice={[1:5:2], [0:6:4]}"),
    (&["s8[2,3]", "s8[]"], "s8[3,6]", "pad(p0, p1), padding=1_0x-1_2_1"),
    (&["u16[2,3]", "u16[2,2]"], "u16[2,5]", "concatenate(p0, p1), dimensions={1}"),
    (&["f64[3]"], "f64[2,3,2]", "broadcast(p0), dimensions={1}"),
    (&["bf16[4,5]", "s32[]", "s32[]"], "bf16[2,3]", "dynamic-slice(p0, p1, p2), dynamic_slice_sizes={2,3}"),
    (&["pred[4,5]", "pred[2,2]", "s32[]", "s32[]"], "pred[4,5]", "dynamic-update-slice(p0, p1, p2, p3)"),
    (&[], "f16[3,4]", "iota(), iota_dimension=1"),
    (
        &["c128[5,4]", "s32[3,1]"],
        "c128[3,4]",
        "gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}",
    ),
    (&["s32[2,3]"], "s32[2,3]", "copy(p0)"),
];

/// The padding values the layouts of this test draw from.
fn padding_values() -> Vec<PaddingValue> {
    vec![
        PaddingValue::Zero,
        PaddingValue::One,
        PaddingValue::Highest,
        PaddingValue::Unknown,
    ]
}

/// Argument values: element `n` (row-major) gets bits derived from `n` and the parameter number;
/// scalar integer parameters (start indices) get small values.
fn argument(shape: &ArrayShape, param: usize) -> ArrayLiteral {
    let n = shape.element_count();
    let width = shape.element_type.bit_width();
    let mask = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let bits: Vec<u128> = if shape.dimensions.is_empty() && shape.element_type.is_integer() {
        vec![param as u128]
    } else if shape.element_type.is_pred() {
        (0..n)
            .map(|k| (k * 7 + param).is_multiple_of(3) as u128)
            .collect()
    } else {
        (0..n)
            .map(|k| (((k as u128 + 1) * 0x9e37_79b9_7f4a_7c15 + param as u128) >> 3) & mask)
            .collect()
    };
    ArrayLiteral::from_bits(shape.clone(), &bits).unwrap()
}

fn run(params: &[ArrayShape], result: &ArrayShape, op: &str, args: Vec<Literal>) -> ArrayLiteral {
    let text = module_text("", params, result, op);
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Reference
        .execute(&m, &args)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .into_array()
        .expect("array result")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn layouts_do_not_change_values((c, param_layouts, result_layout) in case_strategy(CASES, padding_values())) {
        let (params, result, op) = CASES[c];
        let plain: Vec<ArrayShape> = params.iter().map(|p| bare(p)).collect();
        let result_plain = bare(result);
        let args: Vec<ArrayLiteral> =
            plain.iter().enumerate().map(|(i, s)| argument(s, i)).collect();
        let expected = run(
            &plain,
            &result_plain,
            op,
            args.iter().cloned().map(Literal::from).collect(),
        );
        let (laid, laid_args) = laid_out(&plain, &param_layouts, &args);
        let result_laid = result_plain.clone().with_layout(result_layout);
        let got = run(&laid, &result_laid, op, laid_args);
        prop_assert_eq!(got.shape(), &result_laid);
        prop_assert!(got.logical_eq(&expected), "{}: {} vs {}", op, got, expected);
    }
}
