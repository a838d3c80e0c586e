//! Layouts: random `minor_to_major` orders and padding on the inputs and the output give results
//! logically equal to the row-major run, and the output's padding positions hold the layout's
//! padding value.

mod common;

use common::{attr_enum, attr_ints, instr, module, param, single_op};
use conformance_fast::Fast;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Layout, Literal, Opcode, PaddingValue};
use proptest::prelude::*;

fn layout_strategy(rank: usize) -> impl Strategy<Value = Layout> {
    let perm = Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle();
    let pads = prop::collection::vec(0i64..3, rank);
    let value = prop_oneof![
        Just(PaddingValue::Zero),
        Just(PaddingValue::One),
        Just(PaddingValue::Lowest),
        Just(PaddingValue::Highest),
    ];
    (perm, pads, any::<bool>(), value).prop_map(|(perm, pads, padded, value)| {
        let layout = Layout::new(perm);
        if padded {
            // Widths are filled in once the dimensions are known (see `with_dims`).
            layout.with_padding(pads, value)
        } else {
            layout
        }
    })
}

/// Turns padding amounts into padded widths for the dimensions.
fn with_dims(mut layout: Layout, dims: &[i64]) -> Layout {
    if layout.is_padded() {
        layout.padded_dimensions = dims
            .iter()
            .zip(&layout.padded_dimensions)
            .map(|(d, p)| d + p)
            .collect();
    }
    layout
}

#[derive(Clone, Copy, Debug)]
enum Case {
    AddF32,
    ExpF32,
    CompareLtS32,
    ConvertF32ToBf16,
    SelectF64,
    ClampScalarBoundsS16,
    BitcastF32ToU16,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    prop_oneof![
        Just(Case::AddF32),
        Just(Case::ExpF32),
        Just(Case::CompareLtS32),
        Just(Case::ConvertF32ToBf16),
        Just(Case::SelectF64),
        Just(Case::ClampScalarBoundsS16),
        Just(Case::BitcastF32ToU16),
    ]
}

/// Values of a type from a seed (a few special values mixed in for floats).
fn values(ty: ElementType, n: usize, seed: u64) -> Vec<u128> {
    let mut s = seed | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match ty {
                ElementType::F32 => {
                    let v = match i % 7 {
                        1 => -0.0,
                        2 => f32::NAN,
                        3 => 1e-40,
                        _ => (s % 2000) as f32 / 100.0 - 10.0,
                    };
                    v.to_bits() as u128
                }
                ElementType::F64 => ((s % 2000) as f64 / 100.0 - 10.0).to_bits() as u128,
                ElementType::Pred => (s & 1) as u128,
                _ => (s as u128) & ((1u128 << ty.bit_width()) - 1),
            }
        })
        .collect()
}

/// The module and the argument/result element types of a case (scalar bounds for clamp).
fn build(
    case: Case,
    dims: &[i64],
    in_layouts: &[Layout],
    out_layout: &Layout,
) -> (conformance_spec::HloModule, Vec<Literal>) {
    use ElementType::*;
    let n: usize = dims.iter().product::<i64>() as usize;
    let arr = |ty: ElementType, k: usize| {
        let shape =
            ArrayShape::new(ty, dims.to_vec()).with_layout(with_dims(in_layouts[k].clone(), dims));
        let bits = values(ty, n, 17 + k as u64);
        let row_major = ArrayLiteral::from_bits(ArrayShape::new(ty, dims.to_vec()), &bits).unwrap();
        row_major.relayout(shape.layout.clone())
    };
    let out = |ty: ElementType| {
        ArrayShape::new(ty, dims.to_vec()).with_layout(with_dims(out_layout.clone(), dims))
    };
    let op = |o: Opcode, args: Vec<ArrayLiteral>, res: ArrayShape, attrs| {
        let shapes: Vec<ArrayShape> = args.iter().map(|a| a.shape().clone()).collect();
        (
            single_op(o, &shapes, res, attrs),
            args.into_iter().map(Literal::from).collect(),
        )
    };
    match case {
        Case::AddF32 => op(
            Opcode::Add,
            vec![arr(F32, 0), arr(F32, 1)],
            out(F32),
            vec![],
        ),
        Case::ExpF32 => op(Opcode::Exponential, vec![arr(F32, 0)], out(F32), vec![]),
        Case::CompareLtS32 => op(
            Opcode::Compare,
            vec![arr(S32, 0), arr(S32, 1)],
            out(Pred),
            vec![attr_enum("direction", "LT")],
        ),
        Case::ConvertF32ToBf16 => op(Opcode::Convert, vec![arr(F32, 0)], out(Bf16), vec![]),
        Case::SelectF64 => op(
            Opcode::Select,
            vec![arr(Pred, 0), arr(F64, 1), arr(F64, 2)],
            out(F64),
            vec![],
        ),
        Case::ClampScalarBoundsS16 => {
            let lo = ArrayLiteral::from_i128s(ArrayShape::scalar(S16), &[-1000]).unwrap();
            let hi = ArrayLiteral::from_i128s(ArrayShape::scalar(S16), &[2000]).unwrap();
            op(Opcode::Clamp, vec![lo, arr(S16, 1), hi], out(S16), vec![])
        }
        Case::BitcastF32ToU16 => {
            let mut d = dims.to_vec();
            d.push(2);
            let mut l = out_layout.clone();
            // One more dimension for the result: put it anywhere in the order, no padding.
            l.minor_to_major.insert(0, dims.len() as i64);
            l.padded_dimensions.clear();
            let res = ArrayShape::new(U16, d).with_layout(l);
            op(Opcode::BitcastConvert, vec![arr(F32, 0)], res, vec![])
        }
    }
}

fn row_major(l: &Literal) -> Literal {
    let a = l.as_array().unwrap();
    Literal::from(a.relayout(Layout::default_for_rank(a.shape().rank())))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_layouts_give_the_row_major_result(
        (dims, layouts) in prop::collection::vec(0i64..5, 0..4).prop_flat_map(|dims| {
            let r = dims.len();
            (Just(dims), prop::collection::vec(layout_strategy(r), 4))
        }),
        case in case_strategy(),
    ) {
        let fast = Fast::with_parallel_threshold(7);
        let (m, args) = build(case, &dims, &layouts[..3], &layouts[3]);
        let got = fast.execute(&m, &args).unwrap();
        let plain: Vec<Layout> = (0..3).map(|_| Layout::default_for_rank(dims.len())).collect();
        let (m0, args0) = build(case, &dims, &plain, &Layout::default_for_rank(dims.len()));
        let want = fast.execute(&m0, &args0).unwrap();
        let g = got.as_array().unwrap();
        // The result has the declared layout, and its padding holds the padding value.
        prop_assert_eq!(Some(g.shape()), m.entry_computation().root_instruction().shape.as_array());
        let mut filled = g.clone();
        filled.fill_padding();
        prop_assert_eq!(&filled, g);
        prop_assert!(row_major(&got) == row_major(&want), "{:?}: {} vs {}", case, got, want);
    }
}

#[test]
fn broadcast_copy_and_call_keep_layouts() {
    // p0: f32[3]; b = broadcast(p0) to [2,3]{0,1}; c = copy(b) to {1,0}; ROOT add(c, c).
    let v = ArrayShape::new(ElementType::F32, vec![3]);
    let col = ArrayShape::new(ElementType::F32, vec![2, 3]).with_layout(Layout::new(vec![0, 1]));
    let row = ArrayShape::new(ElementType::F32, vec![2, 3]);
    let m = module(vec![
        param(0, v.clone()),
        instr(
            "b",
            Opcode::Broadcast,
            col.clone(),
            vec![0],
            vec![attr_ints("dimensions", &[1])],
        ),
        instr("c", Opcode::Copy, row.clone(), vec![1], vec![]),
        instr("r", Opcode::Add, col.clone(), vec![2, 2], vec![]),
    ]);
    let arg = ArrayLiteral::from_f64s(v, &[1.0, 2.0, 3.0]).unwrap();
    let out = Fast::new().execute(&m, &[arg.into()]).unwrap();
    let a = out.as_array().unwrap();
    assert_eq!(a.shape(), &col);
    assert_eq!(a.to_f64s().unwrap(), vec![2.0, 4.0, 6.0, 2.0, 4.0, 6.0]);
    // Physical order of {0,1}: column-major.
    assert_eq!(
        a.data()[..8],
        [2.0f32.to_le_bytes(), 2.0f32.to_le_bytes()].concat()[..]
    );
}
