//! ComputationBuilder's contraction, reduction and window methods (seed 004: Dot, DotGeneral,
//! ConvWithGeneralPadding, Reduce, ReduceWindow, SelectAndScatter): the modules they build
//! verify and round-trip through HLO text, with the shapes the seed gives.

use conformance_spec::hlo::{
    parse_module, BuildError, ComputationBuilder, ConvolutionDimensionNumbers, DotDimensionNumbers,
    HloComputation, HloModule, Opcode, Window,
};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape_inference::verify_module;
use conformance_spec::{ElementType, Shape};
use ElementType::{Bf16, F32, S32, S8};

fn a(t: ElementType, dims: &[i64]) -> Shape {
    Shape::array(t, dims.to_vec())
}

fn f32s(dims: &[i64]) -> Shape {
    a(F32, dims)
}

fn finish(b: ComputationBuilder, root: usize, others: Vec<HloComputation>) -> HloModule {
    let m = HloModule::with_entry("m", b.build(root), others);
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{m}"));
    assert_eq!(parse_module(&m.to_string()).as_ref(), Ok(&m), "{m}");
    m
}

fn root_shape(m: &HloModule) -> &Shape {
    &m.entry_computation().root_instruction().shape
}

/// `(T, T) -> T` applying `opcode`.
fn binary_computation(name: &str, t: ElementType, opcode: Opcode) -> HloComputation {
    let mut b = ComputationBuilder::new(name);
    let x = b.parameter(a(t, &[])).unwrap();
    let y = b.parameter(a(t, &[])).unwrap();
    let r = b.binary(opcode, x, y).unwrap();
    b.build(r)
}

/// `(T, T) -> pred`: `x >= y`.
fn ge_computation(t: ElementType) -> HloComputation {
    let mut b = ComputationBuilder::new("ge");
    let x = b.parameter(a(t, &[])).unwrap();
    let y = b.parameter(a(t, &[])).unwrap();
    let r = b.compare(x, y, "GE", None).unwrap();
    b.build(r)
}

fn zero(b: &mut ComputationBuilder, t: ElementType) -> usize {
    b.constant(Literal::Array(
        ArrayLiteral::from_bits(a(t, &[]).as_array().unwrap().clone(), &[0]).unwrap(),
    ))
}

#[test]
fn dot_and_dot_general() {
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[2, 3])).unwrap();
    let y = b.parameter(f32s(&[3, 4])).unwrap();
    let v = b.parameter(f32s(&[3])).unwrap();
    let mm = b.dot(x, y, None).unwrap();
    assert_eq!(b.shape(mm).unwrap(), &f32s(&[2, 4]));
    let mv = b.dot(x, v, None).unwrap();
    assert_eq!(b.shape(mv).unwrap(), &f32s(&[2]));
    let vv = b.dot(v, v, None).unwrap();
    assert_eq!(b.shape(vv).unwrap(), &f32s(&[]));
    let e = b.dot(x, v, Some(S32)).unwrap_err();
    assert!(
        e.to_string()
            .contains("not allowed for operands of type f32"),
        "{e}"
    );
    let bx = b.parameter(f32s(&[5, 2, 3])).unwrap();
    let by = b.parameter(f32s(&[5, 3, 4])).unwrap();
    let d = DotDimensionNumbers {
        lhs_batch_dimensions: vec![0],
        rhs_batch_dimensions: vec![0],
        lhs_contracting_dimensions: vec![2],
        rhs_contracting_dimensions: vec![1],
    };
    let bmm = b.dot_general(bx, by, &d, None).unwrap();
    let t = b.tuple(&[mm, mv, vv, bmm]).unwrap();
    let m = finish(b, t, vec![]);
    assert_eq!(
        root_shape(&m),
        &Shape::Tuple(vec![f32s(&[2, 4]), f32s(&[2]), f32s(&[]), f32s(&[5, 2, 4])])
    );
    assert!(m
        .to_string()
        .contains("dot(%p3, %p4), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}"));
}

#[test]
fn dot_mixed_precision() {
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(a(Bf16, &[2, 3])).unwrap();
    let y = b.parameter(a(Bf16, &[3, 4])).unwrap();
    let i = b.parameter(a(S8, &[2, 3])).unwrap();
    let j = b.parameter(a(S8, &[3])).unwrap();
    let f = b.dot(x, y, Some(F32)).unwrap();
    let s = b.dot(i, j, Some(S32)).unwrap();
    let t = b.tuple(&[f, s]).unwrap();
    let m = finish(b, t, vec![]);
    assert_eq!(
        root_shape(&m),
        &Shape::Tuple(vec![f32s(&[2, 4]), a(S32, &[2])])
    );
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[2, 3, 4])).unwrap();
    assert!(matches!(b.dot(x, x, None), Err(BuildError::Invalid(_))));
}

#[test]
fn convolution_nhwc_and_grouped() {
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[2, 9, 7, 4])).unwrap();
    let k = b.parameter(f32s(&[3, 3, 2, 6])).unwrap();
    let w: Window = "{size=3x3 stride=2x1 pad=1_1x0_-1 lhs_dilate=1x2 rhs_reversal=0x1}"
        .parse()
        .unwrap();
    let d = ConvolutionDimensionNumbers::from_dim_labels("b01f_01io->b01f").unwrap();
    // Feature groups: 4 input features in 2 groups of 2; 6 output features.
    let c = b.convolution(x, k, &w, &d, 2, 1, None).unwrap();
    // dim 0: 9 + 2 = 11 → (11 - 3) / 2 + 1 = 5; dim 1: 7 dilated to 13, - 1 = 12 → 10.
    assert_eq!(b.shape(c).unwrap(), &f32s(&[2, 5, 10, 6]));
    let m = finish(b, c, vec![]);
    let text = m.to_string();
    assert!(
        text.contains("window={size=3x3 stride=2x1 pad=1_1x0_-1 lhs_dilate=1x2 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=2"),
        "{text}"
    );
    assert!(!text.contains("batch_group_count"), "{text}");
    // Batch groups and a bf16 → f32 result.
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(a(Bf16, &[4, 3, 5])).unwrap();
    let k = b.parameter(a(Bf16, &[6, 3, 2])).unwrap();
    let d = ConvolutionDimensionNumbers::from_dim_labels("bf0_oi0->bf0").unwrap();
    let w = Window::from_sizes(&[2]);
    let c = b.convolution(x, k, &w, &d, 1, 2, Some(F32)).unwrap();
    assert_eq!(b.shape(c).unwrap(), &f32s(&[2, 6, 4]));
    finish(b, c, vec![]);
    // Errors reach the caller.
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[4, 3, 5])).unwrap();
    let k = b.parameter(f32s(&[6, 3, 2])).unwrap();
    let e = b
        .convolution(x, k, &Window::from_sizes(&[3]), &d, 1, 1, None)
        .unwrap_err();
    assert!(e.to_string().contains("window sizes [3] must equal"), "{e}");
}

#[test]
fn reduce_single_and_variadic() {
    let add = binary_computation("add", F32, Opcode::Add);
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[2, 3, 4])).unwrap();
    let z = zero(&mut b, F32);
    let r = b.reduce(&[x], &[z], &add, &[0, 2]).unwrap();
    assert_eq!(b.shape(r).unwrap(), &f32s(&[3]));
    let m = finish(b, r, vec![add.clone()]);
    assert!(m.to_string().contains("dimensions={0,2}, to_apply=%add"));

    // A (max, max) pair over two arrays: a tuple result.
    let mut c = ComputationBuilder::new("max2");
    let p: Vec<usize> = [F32, S32, F32, S32]
        .iter()
        .map(|&t| c.parameter(a(t, &[])).unwrap())
        .collect();
    let m0 = c.binary(Opcode::Maximum, p[0], p[2]).unwrap();
    let m1 = c.binary(Opcode::Maximum, p[1], p[3]).unwrap();
    let root = c.tuple(&[m0, m1]).unwrap();
    let max2 = c.build(root);
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[2, 3])).unwrap();
    let i = b.parameter(a(S32, &[2, 3])).unwrap();
    let z = zero(&mut b, F32);
    let iz = zero(&mut b, S32);
    let r = b.reduce(&[x, i], &[z, iz], &max2, &[1]).unwrap();
    assert_eq!(
        b.shape(r).unwrap(),
        &Shape::Tuple(vec![f32s(&[2]), a(S32, &[2])])
    );
    finish(b, r, vec![max2.clone()]);

    // Wrong reducer, wrong counts.
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[2, 3])).unwrap();
    let z = zero(&mut b, F32);
    let e = b.reduce(&[x], &[z], &max2, &[1]).unwrap_err();
    assert!(
        e.to_string()
            .contains("the reducer takes 4 parameter(s), expected 2"),
        "{e}"
    );
    let e = b.reduce(&[x], &[], &add, &[1]).unwrap_err();
    assert!(
        e.to_string().contains("1 operand(s) and 0 init value(s)"),
        "{e}"
    );
}

#[test]
fn reduce_window_and_select_and_scatter() {
    // Seed 004, SelectAndScatter: a 4x6 operand, 2x3 windows with stride 2x3, 2x2 source.
    let add = binary_computation("add", F32, Opcode::Add);
    let ge = ge_computation(F32);
    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[4, 6])).unwrap();
    let src = b.parameter(f32s(&[2, 2])).unwrap();
    let z = zero(&mut b, F32);
    let w: Window = "{size=2x3 stride=2x3}".parse().unwrap();
    let rw = b.reduce_window(&[x], &[z], &add, &w).unwrap();
    assert_eq!(b.shape(rw).unwrap(), &f32s(&[2, 2]));
    let s = b.select_and_scatter(x, &ge, &w, src, z, &add).unwrap();
    assert_eq!(b.shape(s).unwrap(), &f32s(&[4, 6]));
    let t = b.tuple(&[rw, s]).unwrap();
    let m = finish(b, t, vec![add.clone(), ge.clone()]);
    let text = m.to_string();
    assert!(
        text.contains(
            "reduce-window(%p0, %constant.2), window={size=2x3 stride=2x3}, to_apply=%add"
        ),
        "{text}"
    );
    assert!(text.contains("select-and-scatter(%p0, %p1, %constant.2), window={size=2x3 stride=2x3}, select=%ge, scatter=%add"), "{text}");

    let mut b = ComputationBuilder::new("e");
    let x = b.parameter(f32s(&[4, 6])).unwrap();
    let src = b.parameter(f32s(&[2, 2])).unwrap();
    let z = zero(&mut b, F32);
    // select must return pred; scatter must be (f32, f32) -> f32.
    let e = b.select_and_scatter(x, &add, &w, src, z, &add).unwrap_err();
    assert!(
        e.to_string()
            .contains("the select computation returns `f32[]"),
        "{e}"
    );
    let e = b.select_and_scatter(x, &ge, &w, src, z, &ge).unwrap_err();
    assert!(
        e.to_string()
            .contains("scatter computation: the reducer returns `pred[]"),
        "{e}"
    );
    let bad_src = b.parameter(f32s(&[2, 3])).unwrap();
    let e = b
        .select_and_scatter(x, &ge, &w, bad_src, z, &add)
        .unwrap_err();
    assert!(e.to_string().contains("expected [2, 2]"), "{e}");
    let e = b
        .reduce_window(&[x], &[z], &add, &Window::from_sizes(&[2]))
        .unwrap_err();
    assert!(
        e.to_string().contains("has 1 dimension(s), expected 2"),
        "{e}"
    );
}
