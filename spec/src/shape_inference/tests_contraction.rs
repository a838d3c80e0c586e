//! Unit tests of dot, convolution, reduce, reduce-window and select-and-scatter shape inference.

use super::*;
use crate::hlo::ir::AttrValue;
use crate::hlo::{parse_module, ConvolutionDimensionNumbers, DotDimensionNumbers, Window};
use ElementType::{Bf16, Pred, C64, F16, F32, F64, F8E5M2, S32, S8, U32, U8};

fn a(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

fn f32s(dims: &[i64]) -> Shape {
    a(F32, dims)
}

fn attr(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

fn ints(name: &str, v: &[i64]) -> Attribute {
    attr(name, AttrValue::Ints(v.to_vec()))
}

fn window(text: &str) -> Attribute {
    attr("window", AttrValue::Window(text.parse::<Window>().unwrap()))
}

fn labels(text: &str) -> Attribute {
    attr(
        "dim_labels",
        AttrValue::DimLabels(ConvolutionDimensionNumbers::from_dim_labels(text).unwrap()),
    )
}

fn err(r: Result<Shape, ShapeInferenceError>) -> String {
    match r {
        Ok(s) => panic!("expected an error, got `{s}`"),
        Err(e) => e.to_string(),
    }
}

fn dnums(lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]) -> Vec<Attribute> {
    DotDimensionNumbers {
        lhs_batch_dimensions: lb.to_vec(),
        rhs_batch_dimensions: rb.to_vec(),
        lhs_contracting_dimensions: lc.to_vec(),
        rhs_contracting_dimensions: rc.to_vec(),
    }
    .to_attributes()
}

fn with_type(t: ElementType) -> InferenceContext<'static> {
    InferenceContext {
        new_element_type: Some(t),
        ..InferenceContext::default()
    }
}

#[test]
fn dot_of_vectors_and_matrices() {
    // Seed 004, Dot: vector·vector → scalar, matrix·vector → vector, matrix·matrix → matrix.
    let dot = |l: &Shape, r: &Shape, lr: usize| {
        infer_shape(
            Opcode::Dot,
            &[l, r],
            &DotDimensionNumbers::for_dot(lr).to_attributes(),
        )
    };
    assert_eq!(dot(&f32s(&[3]), &f32s(&[3]), 1), Ok(f32s(&[])));
    assert_eq!(dot(&f32s(&[2, 3]), &f32s(&[3]), 2), Ok(f32s(&[2])));
    assert_eq!(dot(&f32s(&[2, 3]), &f32s(&[3, 4]), 2), Ok(f32s(&[2, 4])));
    let e = err(dot(&f32s(&[2, 3]), &f32s(&[4, 5]), 2));
    assert!(e.contains("contracting dimension sizes must match"), "{e}");
    assert!(
        e.contains("lhs dimension 1 has size 3, rhs dimension 0 has size 4"),
        "{e}"
    );
}

#[test]
fn dot_general_seed_examples() {
    // Seed 004, DotGeneral: f32[2,3] x f32[2,3] contracting {1} with {1} → f32[2,2]; batched
    // 2x2 matrices [2,2,2] x [2,2,2] with batch {0}, contracting {2} and {1} → [2,2,2].
    let r = infer_shape(
        Opcode::Dot,
        &[&f32s(&[2, 3]), &f32s(&[2, 3])],
        &dnums(&[], &[1], &[], &[1]),
    );
    assert_eq!(r, Ok(f32s(&[2, 2])));
    let r = infer_shape(
        Opcode::Dot,
        &[&f32s(&[2, 2, 2]), &f32s(&[2, 2, 2])],
        &dnums(&[0], &[2], &[0], &[1]),
    );
    assert_eq!(r, Ok(f32s(&[2, 2, 2])));
    // [b0, b1, m, k] dot [b0, b1, k, n] → [b0, b1, m, n].
    let r = infer_shape(
        Opcode::Dot,
        &[&f32s(&[2, 3, 4, 5]), &f32s(&[2, 3, 5, 6])],
        &dnums(&[0, 1], &[3], &[0, 1], &[2]),
    );
    assert_eq!(r, Ok(f32s(&[2, 3, 4, 6])));
}

#[test]
fn dot_general_orders_batch_then_free_dimensions() {
    // Seed 004, DotGeneral: [b, m, k] x [b, k, n] → [b, m, n].
    let d = dnums(&[0], &[2], &[0], &[1]);
    let r = infer_shape(Opcode::Dot, &[&f32s(&[5, 2, 3]), &f32s(&[5, 3, 4])], &d);
    assert_eq!(r, Ok(f32s(&[5, 2, 4])));
    // Batch and contracting dimensions anywhere: lhs [k, b, m], rhs [n, k, b].
    let d = dnums(&[1], &[0], &[2], &[1]);
    let r = infer_shape(Opcode::Dot, &[&f32s(&[3, 5, 2]), &f32s(&[4, 3, 5])], &d);
    assert_eq!(r, Ok(f32s(&[5, 2, 4])));
    // Two contracting dimensions, no free ones: a scalar.
    let d = dnums(&[], &[0, 1], &[], &[1, 0]);
    let r = infer_shape(Opcode::Dot, &[&f32s(&[2, 3]), &f32s(&[3, 2])], &d);
    assert_eq!(r, Ok(f32s(&[])));
    // No contracting dimension: an outer product.
    let d = dnums(&[], &[], &[], &[]);
    let r = infer_shape(Opcode::Dot, &[&f32s(&[2]), &f32s(&[3])], &d);
    assert_eq!(r, Ok(f32s(&[2, 3])));
}

#[test]
fn dot_general_errors() {
    let x = f32s(&[5, 2, 3]);
    let y = f32s(&[6, 3, 4]);
    let dot = |d: Vec<Attribute>| infer_shape(Opcode::Dot, &[&x, &y], &d);
    let e = err(dot(dnums(&[0], &[2], &[0], &[1])));
    assert!(e.contains("batch dimension sizes must match"), "{e}");
    let e = err(dot(dnums(&[0], &[2], &[], &[1])));
    assert!(e.contains("same number of dimensions"), "{e}");
    let e = err(dot(dnums(&[], &[2], &[], &[1, 2])));
    assert!(
        e.contains("lhs_contracting_dims {2} and rhs_contracting_dims {1,2}"),
        "{e}"
    );
    let e = err(dot(dnums(&[], &[3], &[], &[1])));
    assert!(
        e.contains("lhs_contracting_dims entry 3 is out of range [0, 3)"),
        "{e}"
    );
    let e = err(dot(dnums(&[], &[2, 2], &[], &[1, 1])));
    assert!(e.contains("repeats dimension 2"), "{e}");
    let e = err(dot(dnums(&[2], &[2], &[2], &[1])));
    assert!(
        e.contains("lhs dimension 2 is both a batch and a contracting"),
        "{e}"
    );
    let e = err(infer_shape(
        Opcode::Dot,
        &[&x, &a(F64, &[6, 3, 4])],
        &dnums(&[], &[2], &[], &[1]),
    ));
    assert!(e.contains("lhs has element type f32, rhs has f64"), "{e}");
    let bad = vec![attr("lhs_contracting_dims", AttrValue::Int(1))];
    assert!(err(infer_shape(Opcode::Dot, &[&x, &y], &bad)).contains("not a list of integers"));
    assert!(err(infer_shape(Opcode::Dot, &[&x], &[])).contains("takes 2 operand(s), got 1"));
}

#[test]
fn dot_mixed_precision_result_types() {
    let d = dnums(&[], &[1], &[], &[0]);
    let dot_in = |t: ElementType, out: Option<ElementType>| {
        let c = out.map_or_else(InferenceContext::default, with_type);
        infer_shape_in(Opcode::Dot, &[&a(t, &[2, 3]), &a(t, &[3, 4])], &d, &c)
    };
    assert_eq!(dot_in(Bf16, Some(F32)), Ok(a(F32, &[2, 4])));
    assert_eq!(dot_in(F16, Some(F32)), Ok(a(F32, &[2, 4])));
    assert_eq!(dot_in(S8, Some(S32)), Ok(a(S32, &[2, 4])));
    assert_eq!(dot_in(U8, Some(U32)), Ok(a(U32, &[2, 4])));
    assert!(err(dot_in(U8, Some(S32))).contains("(expected u8 or u32)"));
    assert_eq!(dot_in(Bf16, Some(Bf16)), Ok(a(Bf16, &[2, 4])));
    assert_eq!(dot_in(C64, None), Ok(a(C64, &[2, 4])));
    let e = err(dot_in(F32, Some(F64)));
    assert!(
        e.contains(
            "result element type f64 is not allowed for operands of type f32 (expected f32)"
        ),
        "{e}"
    );
    let e = err(dot_in(Bf16, Some(F64)));
    assert!(e.contains("(expected bf16 or f32)"), "{e}");
    assert_eq!(contraction_result_type(S8, Some(S32)), Ok(S32));
    assert_eq!(contraction_result_type(F8E5M2, Some(F32)), Ok(F32));
    assert!(contraction_result_type(S32, Some(S8)).is_err());
}

#[test]
fn window_output_size_formula() {
    let w = |t: &str| t.parse::<Window>().unwrap();
    // floor((padded dilated base - dilated window) / stride) + 1.
    assert_eq!(window_output_dimensions(&[5], &w("{size=3}")), Ok(vec![3]));
    assert_eq!(
        window_output_dimensions(&[5], &w("{size=3 stride=2}")),
        Ok(vec![2])
    );
    assert_eq!(
        window_output_dimensions(&[6], &w("{size=3 stride=2}")),
        Ok(vec![2])
    );
    assert_eq!(
        window_output_dimensions(&[5], &w("{size=3 pad=1_1}")),
        Ok(vec![5])
    );
    // Base dilation 2: 5 elements become 9; window dilation 2: 3 taps span 5.
    assert_eq!(
        window_output_dimensions(&[5], &w("{size=3 lhs_dilate=2}")),
        Ok(vec![7])
    );
    assert_eq!(
        window_output_dimensions(&[5], &w("{size=3 rhs_dilate=2}")),
        Ok(vec![1])
    );
    // Negative padding cuts; a window larger than the padded base has no position (XLA).
    assert_eq!(
        window_output_dimensions(&[5], &w("{size=2 pad=-1_-1}")),
        Ok(vec![2])
    );
    assert_eq!(window_output_dimensions(&[2], &w("{size=3}")), Ok(vec![0]));
    assert_eq!(window_output_dimensions(&[0], &w("{size=1}")), Ok(vec![0]));
    let e = window_output_dimensions(&[5], &w("{size=1 pad=-3_-3}")).unwrap_err();
    assert!(e.contains("removes more than the dilated base of 5"), "{e}");
    let e = window_output_dimensions(&[5], &w("{size=0}")).unwrap_err();
    assert!(
        e.contains("window dimension 0: window size 0 must be at least 1"),
        "{e}"
    );
    let e = window_output_dimensions(&[5], &w("{size=1 stride=0}")).unwrap_err();
    assert!(e.contains("stride 0 must be at least 1"), "{e}");
    let e = window_output_dimensions(&[5], &w("{size=1 lhs_dilate=0}")).unwrap_err();
    assert!(e.contains("base dilation (lhs_dilate) 0"), "{e}");
    let e = window_output_dimensions(&[5], &w("{size=1 rhs_dilate=0}")).unwrap_err();
    assert!(e.contains("window dilation (rhs_dilate) 0"), "{e}");
    let e = window_output_dimensions(&[5, 5], &w("{size=1}")).unwrap_err();
    assert!(e.contains("has 1 dimension(s), expected 2"), "{e}");
    // No overflow panic on extreme values.
    let huge = format!("{{size=1 pad={}_{}}}", i64::MAX, i64::MAX);
    assert!(window_output_dimensions(&[i64::MAX], &w(&huge))
        .unwrap_err()
        .contains("does not fit in 64 bits"));
}

#[test]
fn convolution_shapes() {
    // NHWC input, HWIO kernel, 3x3 stride 1 SAME.
    let conv = |l: &Shape, r: &Shape, extra: &[Attribute]| {
        infer_shape(Opcode::Convolution, &[l, r], extra)
    };
    let x = f32s(&[8, 56, 56, 64]);
    let k = f32s(&[3, 3, 64, 32]);
    let at = [window("{size=3x3 pad=1_1x1_1}"), labels("b01f_01io->b01f")];
    assert_eq!(conv(&x, &k, &at), Ok(f32s(&[8, 56, 56, 32])));
    // NCHW / OIHW, stride 2, no padding, output laid out NHWC.
    let x = f32s(&[2, 3, 9, 7]);
    let k = f32s(&[4, 3, 3, 3]);
    let at = [window("{size=3x3 stride=2x2}"), labels("bf01_oi01->b01f")];
    assert_eq!(conv(&x, &k, &at), Ok(f32s(&[2, 4, 3, 4])));
    // Base (lhs) dilation and window (rhs) dilation, reversal allowed.
    let x = f32s(&[1, 5, 1]);
    let k = f32s(&[3, 1, 1]);
    let at = [
        window("{size=3 lhs_dilate=2 rhs_dilate=2 rhs_reversal=1}"),
        labels("b0f_0io->b0f"),
    ];
    assert_eq!(conv(&x, &k, &at), Ok(f32s(&[1, 5, 1])));
    // No spatial dimension, no window, default labels (bf_oi->bf): a matrix product.
    assert_eq!(conv(&f32s(&[2, 3]), &f32s(&[4, 3]), &[]), Ok(f32s(&[2, 4])));
    // Mixed precision through the context.
    let r = infer_shape_in(
        Opcode::Convolution,
        &[&a(Bf16, &[2, 3]), &a(Bf16, &[4, 3])],
        &[],
        &with_type(F32),
    );
    assert_eq!(r, Ok(f32s(&[2, 4])));
}

#[test]
fn convolution_groups() {
    let conv = |l: &[i64], r: &[i64], fgc: i64, bgc: i64| {
        infer_shape(
            Opcode::Convolution,
            &[&f32s(l), &f32s(r)],
            &[
                window("{size=1}"),
                labels("b0f_0io->b0f"),
                attr("feature_group_count", AttrValue::Int(fgc)),
                attr("batch_group_count", AttrValue::Int(bgc)),
            ],
        )
    };
    // Depthwise: 6 input features in 3 groups of 2; 9 outputs (3 per group).
    assert_eq!(conv(&[1, 4, 6], &[1, 2, 9], 3, 1), Ok(f32s(&[1, 4, 9])));
    let e = err(conv(&[1, 4, 6], &[1, 3, 9], 3, 1));
    assert!(e.contains("lhs feature dimension (6) must be a multiple of feature_group_count (3) with quotient the rhs input feature dimension (3)"), "{e}");
    let e = err(conv(&[1, 4, 6], &[1, 2, 8], 3, 1));
    assert!(
        e.contains("output feature dimension (8) must be a multiple of feature_group_count (3)"),
        "{e}"
    );
    // Batch groups: batch 4 in 2 groups → output batch 2.
    assert_eq!(conv(&[4, 4, 3], &[1, 3, 6], 1, 2), Ok(f32s(&[2, 4, 6])));
    let e = err(conv(&[5, 4, 3], &[1, 3, 6], 1, 2));
    assert!(
        e.contains("lhs batch dimension (5) must be a multiple of batch_group_count (2)"),
        "{e}"
    );
    let e = err(conv(&[4, 4, 3], &[1, 3, 5], 1, 2));
    assert!(
        e.contains("(5) must be a multiple of batch_group_count (2)"),
        "{e}"
    );
    let e = err(conv(&[4, 4, 6], &[1, 3, 6], 2, 2));
    assert!(e.contains("cannot both be greater than 1"), "{e}");
    assert!(
        err(conv(&[4, 4, 6], &[1, 3, 6], 0, 1)).contains("feature_group_count must be at least 1")
    );
    assert!(
        err(conv(&[4, 4, 6], &[1, 3, 6], 1, 0)).contains("batch_group_count must be at least 1")
    );
}

#[test]
fn convolution_errors() {
    let conv = |l: &[i64], r: &[i64], at: &[Attribute]| {
        infer_shape(Opcode::Convolution, &[&f32s(l), &f32s(r)], at)
    };
    let lab = labels("b01f_01io->b01f");
    let e = err(conv(
        &[1, 5, 5, 2],
        &[3, 3, 2, 4],
        &[window("{size=3}"), lab.clone()],
    ));
    assert!(
        e.contains("has 1 dimension(s), dim_labels b01f_01io->b01f has 2"),
        "{e}"
    );
    let e = err(conv(
        &[1, 5, 2],
        &[3, 3, 2, 4],
        &[window("{size=3x3}"), lab.clone()],
    ));
    assert!(e.contains("the lhs must have rank 4"), "{e}");
    let e = err(conv(
        &[1, 5, 5, 2],
        &[3, 2, 4],
        &[window("{size=3x3}"), lab.clone()],
    ));
    assert!(e.contains("the rhs must have rank 4"), "{e}");
    let e = err(conv(
        &[1, 5, 5, 2],
        &[3, 3, 2, 4],
        &[window("{size=3x2}"), lab.clone()],
    ));
    assert!(
        e.contains("window sizes [3, 2] must equal the rhs spatial dimension sizes [3, 3]"),
        "{e}"
    );
    let e = err(conv(
        &[1, 5, 5, 2],
        &[3, 3, 2, 4],
        &[window("{size=3x3 stride=0x1}"), lab.clone()],
    ));
    assert!(e.contains("window dimension 0: window stride 0"), "{e}");
    let e = err(conv(
        &[1, 5, 5, 2],
        &[3, 3, 2, 4],
        &[window("{size=3x3 pad=-4_-4x0_0}"), lab.clone()],
    ));
    assert!(e.contains("removes more than the dilated base"), "{e}");
    let e = err(infer_shape(
        Opcode::Convolution,
        &[&f32s(&[1, 5, 5, 2]), &a(F16, &[3, 3, 2, 4])],
        &[window("{size=3x3}"), lab.clone()],
    ));
    assert!(e.contains("lhs has element type f32, rhs has f16"), "{e}");
    let mut bad = ConvolutionDimensionNumbers::from_dim_labels("b01f_01io->b01f").unwrap();
    bad.output_spatial_dimensions = vec![1, 1];
    let e = err(conv(
        &[1, 5, 5, 2],
        &[3, 3, 2, 4],
        &[
            window("{size=3x3}"),
            attr("dim_labels", AttrValue::DimLabels(bad)),
        ],
    ));
    assert!(e.contains("output dimension numbers"), "{e}");
    let e = err(conv(&[1, 2], &[3, 2], &[attr("window", AttrValue::Int(3))]));
    assert!(e.contains("`window=3` is not a window"), "{e}");
}

fn scalar(t: ElementType) -> Shape {
    a(t, &[])
}

#[test]
fn reduce_shapes_and_reducer_signature() {
    let x = f32s(&[2, 3, 4]);
    let z = scalar(F32);
    let red = |d: &[i64]| infer_shape(Opcode::Reduce, &[&x, &z], &[ints("dimensions", d)]);
    assert_eq!(red(&[1]), Ok(f32s(&[2, 4])));
    assert_eq!(red(&[2, 0]), Ok(f32s(&[3])));
    assert_eq!(red(&[0, 1, 2]), Ok(f32s(&[])));
    assert_eq!(red(&[]), Ok(x.clone()));
    assert!(err(red(&[1, 1])).contains("repeats dimension 1"));
    assert!(err(red(&[3])).contains("out of range [0, 3)"));
    assert!(err(infer_shape(Opcode::Reduce, &[&x, &z], &[])).contains("missing `dimensions=`"));
    // Variadic (argmax as a (value, index) pair): a tuple result.
    let i = a(S32, &[2, 3, 4]);
    let iz = scalar(S32);
    let r = infer_shape(
        Opcode::Reduce,
        &[&x, &i, &z, &iz],
        &[ints("dimensions", &[2])],
    );
    assert_eq!(r, Ok(Shape::Tuple(vec![f32s(&[2, 3]), a(S32, &[2, 3])])));
    // Operand count, init values, dimensions.
    let e = err(infer_shape(
        Opcode::Reduce,
        &[&x, &z, &z],
        &[ints("dimensions", &[0])],
    ));
    assert!(e.contains("2N (N arrays, then N init values"), "{e}");
    let e = err(infer_shape(
        Opcode::Reduce,
        &[&x, &x],
        &[ints("dimensions", &[0])],
    ));
    assert!(
        e.contains("init value 0 (operand 1) must be a scalar"),
        "{e}"
    );
    let e = err(infer_shape(
        Opcode::Reduce,
        &[&x, &iz],
        &[ints("dimensions", &[0])],
    ));
    assert!(
        e.contains("init value 0 has element type s32, input 0 has f32"),
        "{e}"
    );
    let e = err(infer_shape(
        Opcode::Reduce,
        &[&x, &a(S32, &[2, 3]), &z, &iz],
        &[ints("dimensions", &[0])],
    ));
    assert!(
        e.contains("input 1 has dimensions [2, 3], input 0 has [2, 3, 4]"),
        "{e}"
    );
    // The reducer, when given.
    let with = |params: &[Shape], root: &Shape| {
        let c = InferenceContext {
            callee: Some((params, root)),
            ..InferenceContext::default()
        };
        infer_shape_in(Opcode::Reduce, &[&x, &z], &[ints("dimensions", &[0])], &c)
    };
    assert_eq!(with(&[z.clone(), z.clone()], &z), Ok(f32s(&[3, 4])));
    let e = err(with(std::slice::from_ref(&z), &z));
    assert!(
        e.contains("the reducer takes 1 parameter(s), expected 2"),
        "{e}"
    );
    let e = err(with(&[z.clone(), scalar(F64)], &z));
    assert!(
        e.contains("parameter 1 of the reducer is `f64[]`, expected `f32[]`"),
        "{e}"
    );
    let e = err(with(
        &[z.clone(), z.clone()],
        &Shape::Tuple(vec![z.clone()]),
    ));
    assert!(
        e.contains("the reducer returns `(f32[])`, expected `f32[]`"),
        "{e}"
    );
    // Variadic reducer: (acc0, acc1, x0, x1) -> (f32[], s32[]).
    let p = [z.clone(), iz.clone(), z.clone(), iz.clone()];
    assert_eq!(
        check_reducer(
            &p,
            &Shape::Tuple(vec![z.clone(), iz.clone()]),
            &[F32, S32],
            &[F32, S32]
        ),
        Ok(())
    );
    assert!(check_reducer(&p, &z, &[F32, S32], &[F32, S32])
        .unwrap_err()
        .contains("expected `(f32[], s32[])`"));
}

#[test]
fn reduce_window_shapes() {
    // Seed 004, ReduceWindow: a 4x6 array, 2x3 window, stride 2x3 → 2x2.
    let x = f32s(&[4, 6]);
    let z = scalar(F32);
    let rw = |w: &str| infer_shape(Opcode::ReduceWindow, &[&x, &z], &[window(w)]);
    assert_eq!(rw("{size=2x3 stride=2x3}"), Ok(f32s(&[2, 2])));
    assert_eq!(rw("{size=2x3 stride=2x3 pad=0_2x1_2}"), Ok(f32s(&[3, 3])));
    assert_eq!(
        rw("{size=2x2 lhs_dilate=2x1 rhs_dilate=1x2}"),
        Ok(f32s(&[6, 4]))
    );
    assert!(err(rw("{size=2}")).contains("has 1 dimension(s), expected 2"));
    assert!(err(rw("{size=2x2 rhs_reversal=1x0}")).contains("only convolution allows"));
    assert!(err(rw("{size=0x2}")).contains("window size 0 must be at least 1"));
    assert!(err(infer_shape(Opcode::ReduceWindow, &[&x, &z], &[])).contains("missing `window=`"));
    // Variadic.
    let i = a(S32, &[4, 6]);
    let r = infer_shape(
        Opcode::ReduceWindow,
        &[&x, &i, &z, &scalar(S32)],
        &[window("{size=2x3 stride=2x3}")],
    );
    assert_eq!(r, Ok(Shape::Tuple(vec![f32s(&[2, 2]), a(S32, &[2, 2])])));
    let params = [z.clone(), z.clone()];
    let bad_root = scalar(Pred);
    let c = InferenceContext {
        callee: Some((&params, &bad_root)),
        ..InferenceContext::default()
    };
    let e = err(infer_shape_in(
        Opcode::ReduceWindow,
        &[&x, &z],
        &[window("{size=2x3}")],
        &c,
    ));
    assert!(
        e.contains("the reducer returns `pred[]`, expected `f32[]`"),
        "{e}"
    );
}

#[test]
fn select_and_scatter_shapes() {
    // Seed 004, SelectAndScatter: operand 4x6, 2x3 window stride 2x3 → source 2x2.
    let x = f32s(&[4, 6]);
    let z = scalar(F32);
    let at = [window("{size=2x3 stride=2x3}")];
    let sas =
        |src: &Shape, init: &Shape| infer_shape(Opcode::SelectAndScatter, &[&x, src, init], &at);
    assert_eq!(sas(&f32s(&[2, 2]), &z), Ok(x.clone()));
    let e = err(sas(&f32s(&[2, 3]), &z));
    assert!(
        e.contains("the source has dimensions [2, 3], expected [2, 2]"),
        "{e}"
    );
    let e = err(sas(&a(F64, &[2, 2]), &z));
    assert!(
        e.contains("operand has element type f32, source has f64"),
        "{e}"
    );
    let e = err(sas(&f32s(&[2, 2]), &scalar(S32)));
    assert!(
        e.contains("init_value must be a scalar of the operand's element type f32"),
        "{e}"
    );
    let e = err(infer_shape(Opcode::SelectAndScatter, &[&x, &z], &at));
    assert!(
        e.contains("takes 3 (operand, source, init_value) operand(s), got 2"),
        "{e}"
    );
    let e = err(infer_shape(
        Opcode::SelectAndScatter,
        &[&x, &f32s(&[2, 2]), &z],
        &[window("{size=2x3 stride=2x3 rhs_reversal=0x1}")],
    ));
    assert!(e.contains("only convolution allows"), "{e}");
    let params = [z.clone(), scalar(S32)];
    let c = InferenceContext {
        callee: Some((&params, &z)),
        ..InferenceContext::default()
    };
    let e = err(infer_shape_in(
        Opcode::SelectAndScatter,
        &[&x, &f32s(&[2, 2]), &z],
        &at,
        &c,
    ));
    assert!(
        e.contains("scatter computation: parameter 1 of the reducer is `s32[]`"),
        "{e}"
    );
    // The select computation: (T, T) -> pred.
    let p = [z.clone(), z.clone()];
    assert_eq!(check_select_computation(&p, &scalar(Pred), F32), Ok(()));
    assert!(check_select_computation(&p, &z, F32)
        .unwrap_err()
        .contains("returns `f32[]`, expected `pred[]`"));
    assert!(check_select_computation(&p[..1], &scalar(Pred), F32)
        .unwrap_err()
        .contains("takes 1 parameter(s), expected 2"));
}

#[test]
fn verify_module_checks_contractions_and_their_computations() {
    let text = "HloModule m\n\
        %add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\
        %ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n\
        ENTRY e {\n  x = bf16[2,3] parameter(0)\n  y = bf16[3,4] parameter(1)\n\
          d = f32[2,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,default}\n\
          z = f32[] constant(0)\n\
          r = f32[2] reduce(d, z), dimensions={1}, to_apply=%add\n\
          w = f32[1,2] reduce-window(d, z), window={size=2x3 stride=1x1}, to_apply=%add\n\
          s = f32[2,4] select-and-scatter(d, w, z), window={size=2x3}, select=%ge, scatter=%add\n\
          ROOT t = (f32[2], f32[2,4]) tuple(r, s)\n}\n";
    let m = parse_module(text).unwrap();
    assert_eq!(verify_module(&m), Ok(()));
    // A wrong declared shape is reported.
    let bad = text.replace("r = f32[2] reduce", "r = f32[4] reduce");
    let e = verify_module(&parse_module(&bad).unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .contains("does not match the inferred `f32[2]"),
        "{e}"
    );
    // A reducer of the wrong signature is reported (reduce called with %ge).
    let bad = text.replace(
        "dimensions={1}, to_apply=%add",
        "dimensions={1}, to_apply=%ge",
    );
    let e = verify_module(&parse_module(&bad).unwrap()).unwrap_err();
    assert!(
        e.to_string().contains("the reducer returns `pred[]`"),
        "{e}"
    );
    // dot's declared result type may not be an arbitrary one.
    let bad = text.replace("d = f32[2,4] dot", "d = f64[2,4] dot");
    let e = verify_module(&parse_module(&bad).unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .contains("not allowed for operands of type bf16"),
        "{e}"
    );
    // The select computation must return pred[].
    let bad = text.replace("select=%ge", "select=%add");
    let e = verify_module(&parse_module(&bad).unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .contains("select-and-scatter: the select computation returns `f32[]"),
        "{e}"
    );
}

mod window_positions {
    use super::*;
    use crate::hlo::WindowDimension;
    use proptest::prelude::*;

    /// Window positions counted by sliding the window's taps (`k * window_dilation`) over the
    /// `len` cells of the dilated, padded base with the stride until a tap falls off the end;
    /// `None` when the padding removes more cells than exist.
    fn brute_force(base: i64, w: &WindowDimension) -> Option<i64> {
        let dilated = if base == 0 {
            0
        } else {
            (base - 1) * w.base_dilation + 1
        };
        let len = w.padding_low + dilated + w.padding_high;
        if len < 0 {
            return None;
        }
        let taps: Vec<i64> = (0..w.size).map(|k| k * w.window_dilation).collect();
        let mut count = 0;
        let mut start = 0;
        while taps.iter().all(|&t| start + t < len) {
            count += 1;
            start += w.stride;
        }
        Some(count)
    }

    proptest! {
        #[test]
        fn formula_matches_brute_force(
            base in 0i64..9,
            size in 1i64..5,
            stride in 1i64..4,
            low in -4i64..4,
            high in -4i64..4,
            base_dilation in 1i64..4,
            window_dilation in 1i64..3,
        ) {
            let w = WindowDimension {
                size,
                stride,
                padding_low: low,
                padding_high: high,
                window_dilation,
                base_dilation,
                window_reversal: false,
            };
            match (window_output_size(base, &w), brute_force(base, &w)) {
                (Ok(n), Some(m)) => prop_assert_eq!(n, m),
                (Err(e), None) => prop_assert!(e.contains("removes more than"), "{}", e),
                (got, want) => prop_assert!(false, "formula {:?}, brute force {:?}", got, want),
            }
        }
    }
}
