//! ComputationBuilder: XlaBuilder-style construction, including the implicit-broadcast forms of
//! seed 004 ("Element-wise binary arithmetic operations") lowered to explicit HLO broadcasts.

use conformance_spec::hlo::{
    parse_module, AttrValue, BuildError, ComputationBuilder, HloComputation, HloModule, Opcode,
};
use conformance_spec::layout::Layout;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape_inference::verify_module;
use conformance_spec::{ArrayShape, ElementType, Shape};

fn f32s(dims: &[i64]) -> Shape {
    Shape::array(ElementType::F32, dims.to_vec())
}

/// Builds the module, checks that it verifies and round-trips through text, returns the entry.
fn finish(b: ComputationBuilder, root: usize) -> HloComputation {
    let m = HloModule::with_entry("m", b.build(root), vec![]);
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{m}"));
    assert_eq!(parse_module(&m.to_string()).as_ref(), Ok(&m), "{m}");
    m.computations.into_iter().next().unwrap()
}

/// (opcode, shape, operands, dimensions=) of one instruction.
type Summary = (Opcode, Shape, Vec<usize>, Option<Vec<i64>>);

/// The summary of every instruction.
fn summary(c: &HloComputation) -> Vec<Summary> {
    c.instructions
        .iter()
        .map(|i| {
            (
                i.opcode,
                i.shape.clone(),
                i.operands.clone(),
                i.attr_ints("dimensions").map(<[i64]>::to_vec),
            )
        })
        .collect()
}

#[test]
fn parameters_are_numbered_and_named_in_call_order() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[2])).unwrap();
    let y = b.parameter(f32s(&[2])).unwrap();
    let s = b.binary(Opcode::Add, x, y).unwrap();
    let c = finish(b, s);
    let names: Vec<_> = c.instructions.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, vec!["p0", "p1", "add.2"]);
    assert_eq!(c.instructions[1].parameter_number, Some(1));
    assert_eq!(c.root_instruction().shape, f32s(&[2]));
}

#[test]
fn vector_plus_matrix_with_broadcast_dimensions() {
    // Seed 004: adding f32[2] to f32[2,3] needs broadcast_dimensions; {0} maps the vector onto
    // the rows' dimension 0, emitting broadcast(dimensions={0}).
    let mut b = ComputationBuilder::new("main");
    let v = b.parameter(f32s(&[2])).unwrap();
    let m = b.parameter(f32s(&[2, 3])).unwrap();
    let s = b.binary_broadcast(Opcode::Add, v, m, &[0]).unwrap();
    let c = finish(b, s);
    assert_eq!(
        summary(&c)[2..],
        [
            (Opcode::Broadcast, f32s(&[2, 3]), vec![0], Some(vec![0])),
            (Opcode::Add, f32s(&[2, 3]), vec![2, 1], None),
        ]
    );
    // f32[3] onto dimension 1 of f32[2,3]: broadcast(dimensions={1}); the matrix is lhs here.
    let mut b = ComputationBuilder::new("main");
    let m = b.parameter(f32s(&[2, 3])).unwrap();
    let v = b.parameter(f32s(&[3])).unwrap();
    let s = b.binary_broadcast(Opcode::Subtract, m, v, &[1]).unwrap();
    let c = finish(b, s);
    assert_eq!(
        summary(&c)[2..],
        [
            (Opcode::Broadcast, f32s(&[2, 3]), vec![1], Some(vec![1])),
            (Opcode::Subtract, f32s(&[2, 3]), vec![0, 2], None),
        ]
    );
    // f32[2] cannot map onto dimension 1 (size 3).
    let mut b = ComputationBuilder::new("main");
    let v = b.parameter(f32s(&[2])).unwrap();
    let m = b.parameter(f32s(&[2, 3])).unwrap();
    assert!(matches!(
        b.binary_broadcast(Opcode::Add, v, m, &[1]),
        Err(BuildError::Invalid(_))
    ));
    assert!(b.binary_broadcast(Opcode::Add, v, m, &[]).is_err());
    assert_eq!(b.instructions().len(), 2, "nothing emitted on error");
}

#[test]
fn scalars_broadcast_without_dimensions() {
    let mut b = ComputationBuilder::new("main");
    let m = b.parameter(f32s(&[2, 3])).unwrap();
    let two = b.constant(
        ArrayLiteral::from_f64s(ArrayShape::scalar(ElementType::F32), &[2.0])
            .unwrap()
            .into(),
    );
    let s = b.binary_broadcast(Opcode::Multiply, two, m, &[]).unwrap();
    let c = finish(b, s);
    assert_eq!(
        summary(&c)[2..],
        [
            (Opcode::Broadcast, f32s(&[2, 3]), vec![1], Some(vec![])),
            (Opcode::Multiply, f32s(&[2, 3]), vec![2, 0], None),
        ]
    );
}

#[test]
fn degenerate_dimensions_reshape_then_broadcast() {
    // (2,1) + (1,3) → (2,3): each operand drops its size-1 dimension and is broadcast back.
    let mut b = ComputationBuilder::new("main");
    let l = b.parameter(f32s(&[2, 1])).unwrap();
    let r = b.parameter(f32s(&[1, 3])).unwrap();
    let s = b.binary_broadcast(Opcode::Maximum, l, r, &[]).unwrap();
    let c = finish(b, s);
    assert_eq!(
        summary(&c)[2..],
        [
            (Opcode::Reshape, f32s(&[2]), vec![0], None),
            (Opcode::Broadcast, f32s(&[2, 3]), vec![2], Some(vec![0])),
            (Opcode::Reshape, f32s(&[3]), vec![1], None),
            (Opcode::Broadcast, f32s(&[2, 3]), vec![4], Some(vec![1])),
            (Opcode::Maximum, f32s(&[2, 3]), vec![3, 5], None),
        ]
    );
    // A lower-rank operand with a degenerate dimension: f32[1] onto dimension 1 of f32[2,3] is
    // broadcast in-dimension to f32[2,1], then its size-1 dimension expands.
    let mut b = ComputationBuilder::new("main");
    let v = b.parameter(f32s(&[1])).unwrap();
    let m = b.parameter(f32s(&[2, 3])).unwrap();
    let s = b.binary_broadcast(Opcode::Add, m, v, &[1]).unwrap();
    let c = finish(b, s);
    assert_eq!(
        summary(&c)[2..],
        [
            (Opcode::Broadcast, f32s(&[2, 1]), vec![0], Some(vec![1])),
            (Opcode::Reshape, f32s(&[2]), vec![2], None),
            (Opcode::Broadcast, f32s(&[2, 3]), vec![3], Some(vec![0])),
            (Opcode::Add, f32s(&[2, 3]), vec![1, 4], None),
        ]
    );
}

#[test]
fn compare_select_clamp() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[3])).unwrap();
    let zero = b.constant(Literal::zeros(&f32s(&[])));
    let gt = b.compare(x, zero, "GT", Some("TOTALORDER")).unwrap();
    let c = b.instructions()[gt].clone();
    assert_eq!(c.shape, Shape::array(ElementType::Pred, vec![3]));
    assert_eq!(c.attr_enum("direction"), Some("GT"));
    assert_eq!(c.attr_enum("type"), Some("TOTALORDER"));
    assert_eq!(b.instructions()[c.operands[1]].opcode, Opcode::Broadcast);
    assert!(b.compare(x, x, "LESS", None).is_err());
    assert!(b.compare(x, x, "LT", Some("SIGNED")).is_err());
    // A scalar predicate is broadcast to the operands first.
    let t = b.constant(
        ArrayLiteral::from_i128s(ArrayShape::scalar(ElementType::Pred), &[1])
            .unwrap()
            .into(),
    );
    let sel = b.select(t, x, x).unwrap();
    let s = b.instructions()[sel].clone();
    assert_eq!(b.instructions()[s.operands[0]].opcode, Opcode::Broadcast);
    assert_eq!(
        b.instructions()[s.operands[0]].shape,
        Shape::array(ElementType::Pred, vec![3])
    );
    let sel2 = b.select(gt, sel, x).unwrap();
    // Clamp takes scalar bounds directly (seed 004, Clamp).
    let one = b.constant(
        ArrayLiteral::from_f64s(ArrayShape::scalar(ElementType::F32), &[1.0])
            .unwrap()
            .into(),
    );
    let cl = b.clamp(zero, sel2, one).unwrap();
    assert_eq!(b.instructions()[cl].operands, vec![zero, sel2, one]);
    assert_eq!(b.instructions()[cl].shape, f32s(&[3]));
    let i = b.parameter(Shape::array(ElementType::S32, vec![])).unwrap();
    assert!(b.clamp(i, sel2, one).is_err());
    finish(b, cl);
}

#[test]
fn conversions_and_reduce_precision() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[10])).unwrap();
    let h = b.convert(x, ElementType::F16).unwrap();
    assert_eq!(
        b.shape(h).unwrap(),
        &Shape::array(ElementType::F16, vec![10])
    );
    let bits = b.bitcast_convert(x, ElementType::F16).unwrap();
    assert_eq!(
        b.shape(bits).unwrap(),
        &Shape::array(ElementType::F16, vec![10, 2])
    );
    let back = b.bitcast_convert(bits, ElementType::F32).unwrap();
    assert_eq!(b.shape(back).unwrap(), &f32s(&[10]));
    assert!(b.bitcast_convert(h, ElementType::F32).is_err());
    let r = b.reduce_precision(back, 5, 10).unwrap();
    let ri = b.instructions()[r].clone();
    assert_eq!(
        (ri.attr_int("exponent_bits"), ri.attr_int("mantissa_bits")),
        (Some(5), Some(10))
    );
    assert!(b.reduce_precision(back, 0, 10).is_err());
    let e = b.unary(Opcode::Exponential, r).unwrap();
    assert!(b.unary(Opcode::Add, r).is_err());
    assert!(b.binary(Opcode::Negate, r, r).is_err());
    finish(b, e);
}

#[test]
fn add_instruction_checks_shapes_where_inference_exists() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[2, 3])).unwrap();
    let y = b.parameter(f32s(&[3, 4])).unwrap();
    let dot_attrs = vec![
        conformance_spec::hlo::Attribute {
            name: "lhs_contracting_dims".into(),
            value: AttrValue::Ints(vec![1]),
        },
        conformance_spec::hlo::Attribute {
            name: "rhs_contracting_dims".into(),
            value: AttrValue::Ints(vec![0]),
        },
    ];
    // dot has no inference here: taken as declared.
    let d = b
        .add_instruction(Opcode::Dot, f32s(&[2, 4]), vec![x, y], dot_attrs)
        .unwrap();
    assert!(matches!(
        b.add_instruction(Opcode::Negate, f32s(&[4, 2]), vec![d], vec![]),
        Err(BuildError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        b.add_instruction(Opcode::Negate, f32s(&[2, 4]), vec![9], vec![]),
        Err(BuildError::UnknownOperand(9))
    ));
    assert!(b
        .add_instruction(Opcode::Parameter, f32s(&[]), vec![], vec![])
        .is_err());
    assert!(b
        .add_instruction(Opcode::Add, f32s(&[2, 3]), vec![x, y], vec![])
        .is_err());
    let n = b
        .add_instruction(Opcode::Negate, f32s(&[2, 4]), vec![d], vec![])
        .unwrap();
    let t = b
        .add_instruction(
            Opcode::Tuple,
            Shape::Tuple(vec![f32s(&[2, 4]), f32s(&[2, 3])]),
            vec![n, x],
            vec![],
        )
        .unwrap();
    finish(b, t);
}

#[test]
fn layouts_default_unless_set() {
    let mut b = ComputationBuilder::new("main");
    let x = b.parameter(f32s(&[2, 3])).unwrap();
    let k = b.constant(
        ArrayLiteral::from_f64s(
            ArrayShape::new(ElementType::F32, vec![2, 3]),
            &[1., 2., 3., 4., 5., 6.],
        )
        .unwrap()
        .into(),
    );
    let s = b.binary(Opcode::Add, x, k).unwrap();
    assert_eq!(
        b.shape(s).unwrap().as_array().unwrap().layout,
        Layout::new(vec![1, 0])
    );
    b.set_layout(s, Layout::new(vec![0, 1])).unwrap();
    b.set_layout(k, Layout::new(vec![0, 1])).unwrap();
    assert!(b.set_layout(x, Layout::new(vec![0])).is_err());
    assert!(b.set_layout(99, Layout::new(vec![0, 1])).is_err());
    let c = finish(b, s);
    assert_eq!(
        c.instructions[2].shape.as_array().unwrap().layout,
        Layout::new(vec![0, 1])
    );
    // The constant's literal follows its instruction's layout and keeps its logical values.
    let lit = c.instructions[1]
        .literal
        .as_ref()
        .unwrap()
        .as_array()
        .unwrap();
    assert_eq!(lit.shape().layout, Layout::new(vec![0, 1]));
    assert_eq!(lit.to_f64s().unwrap(), vec![1., 2., 3., 4., 5., 6.]);
}

#[test]
fn modules_with_called_computations() {
    let mut add = ComputationBuilder::new("add");
    let a = add.parameter(f32s(&[])).unwrap();
    let bb = add.parameter(f32s(&[])).unwrap();
    let s = add.binary(Opcode::Add, a, bb).unwrap();
    let add = add.build(s);
    let mut main = ComputationBuilder::new("main");
    let x = main.parameter(f32s(&[])).unwrap();
    let call = main
        .add_instruction(
            Opcode::Call,
            f32s(&[]),
            vec![x, x],
            vec![conformance_spec::hlo::Attribute {
                name: "to_apply".into(),
                value: AttrValue::Computation("add".into()),
            }],
        )
        .unwrap();
    let m = HloModule::with_entry("m", main.build(call), vec![add]);
    assert_eq!(m.entry, 1);
    assert_eq!(m.entry_computation().name, "main");
    verify_module(&m).unwrap();
    assert_eq!(parse_module(&m.to_string()).as_ref(), Ok(&m));
    assert!(ComputationBuilder::new("e").try_build(0).is_err());
}
