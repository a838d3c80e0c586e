//! Layouts do not change values: the same computation with random `minor_to_major` orders and
//! padding on its inputs and its output gives logically equal results (and the output in the
//! instruction's layout).

mod common;

use common::*;
use conformance_reference::Reference;
use conformance_spec::hlo::ir::{AttrValue, Opcode};
use conformance_spec::layout::{Layout, PaddingValue};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::{Backend, ElementType, ElementType::*};
use proptest::prelude::*;

/// (opcode, attributes, operand types, result type, extra result dimension for width changes)
type Case = (
    Opcode,
    Vec<(&'static str, AttrValue)>,
    Vec<ElementType>,
    ElementType,
    Option<i64>,
);

fn cases() -> Vec<Case> {
    let lt = vec![("direction", AttrValue::Enum("LT".into()))];
    vec![
        (Opcode::Add, vec![], vec![F32, F32], F32, None),
        (Opcode::Exponential, vec![], vec![F32], F32, None),
        (Opcode::Compare, lt, vec![F32, F32], Pred, None),
        (Opcode::Convert, vec![], vec![F32], Bf16, None),
        (Opcode::Multiply, vec![], vec![C64, C64], C64, None),
        (Opcode::Select, vec![], vec![Pred, S16, S16], S16, None),
        (Opcode::Atan2, vec![], vec![F64, F64], F64, None),
        (Opcode::ShiftRightArithmetic, vec![], vec![S8, S8], S8, None),
        (Opcode::BitcastConvert, vec![], vec![F32], F16, Some(2)),
        (Opcode::Logistic, vec![], vec![F8E4M3FN], F8E4M3FN, None),
    ]
}

fn layout_strategy(dims: Vec<i64>) -> impl Strategy<Value = Layout> {
    let rank = dims.len();
    (
        Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
        prop::collection::vec(0i64..3, rank),
        any::<bool>(),
        prop::sample::select(vec![
            PaddingValue::Zero,
            PaddingValue::One,
            PaddingValue::Lowest,
            PaddingValue::Unknown,
        ]),
    )
        .prop_map(move |(perm, pads, padded, value)| {
            let layout = Layout::new(perm);
            if padded {
                let widths = dims.iter().zip(&pads).map(|(d, p)| d + p).collect();
                layout.with_padding(widths, value)
            } else {
                layout
            }
        })
}

/// Random bits of the right width for each element.
fn literal(ty: ElementType, dims: &[i64], seed: u64) -> ArrayLiteral {
    let shape = ArrayShape::new(ty, dims.to_vec());
    let mut s = seed | 1;
    let bits: Vec<u128> = (0..shape.element_count())
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let wide = (u128::from(s) << 64) | u128::from(s.rotate_left(29));
            let width = ty.bit_width();
            let b = if width == 128 {
                wide
            } else {
                wide & ((1u128 << width) - 1)
            };
            if ty == Pred {
                b & 1
            } else {
                b
            }
        })
        .collect();
    ArrayLiteral::from_bits(shape, &bits).unwrap()
}

fn run(
    case: &Case,
    dims: &[i64],
    in_layouts: &[Layout],
    out_layout: Option<Layout>,
    seed: u64,
) -> ArrayLiteral {
    let (op, attrs, types, result, extra) = case;
    let mut out_dims = dims.to_vec();
    out_dims.extend(extra);
    let mut out_shape = ArrayShape::new(*result, out_dims);
    if let Some(l) = out_layout {
        out_shape = out_shape.with_layout(l);
    }
    let params: Vec<Shape> = types.iter().map(|&t| array_shape(t, dims)).collect();
    let m = single_op_module(
        &params,
        with_attrs(
            instr("op", *op, Shape::Array(out_shape.clone()), vec![]),
            attrs,
        ),
    );
    let args: Vec<Literal> = types
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let lit = literal(t, dims, seed.wrapping_add(i as u64 * 7919));
            match in_layouts.get(i) {
                Some(l) => lit.relayout(l.clone()).into(),
                None => lit.into(),
            }
        })
        .collect();
    let r = Reference
        .execute(&m, &args)
        .unwrap_or_else(|e| panic!("{op}: {e}"));
    let r = r.into_array().expect("array");
    assert_eq!(r.shape(), &out_shape);
    r
}

fn setup() -> impl Strategy<Value = (usize, Vec<i64>, Vec<Layout>, Layout, u64)> {
    (
        0..cases().len(),
        prop::collection::vec(1i64..4, 0..4),
        any::<u64>(),
    )
        .prop_flat_map(|(c, dims, seed)| {
            let n = cases()[c].2.len();
            let mut out_dims = dims.clone();
            out_dims.extend(cases()[c].4);
            (
                Just(c),
                Just(dims.clone()),
                prop::collection::vec(layout_strategy(dims), n),
                layout_strategy(out_dims),
                Just(seed),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_layouts_give_logically_equal_results((c, dims, in_layouts, out_layout, seed) in setup()) {
        let case = &cases()[c];
        let baseline = run(case, &dims, &[], None, seed);
        let other = run(case, &dims, &in_layouts, Some(out_layout), seed);
        prop_assert!(other.logical_eq(&baseline), "{:?}: {} vs {}", case.0, other, baseline);
    }
}
