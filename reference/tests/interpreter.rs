//! The array interpreter: structural instructions, layouts of results, scalar broadcasts of
//! select/clamp, width-changing bitcast-convert, and the errors for bad modules and arguments.

mod common;

use common::*;
use conformance_reference::Reference;
use conformance_spec::hlo::ir::{AttrValue, HloComputation, Opcode};
use conformance_spec::layout::{Layout, PaddingValue};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::{Backend, BackendError, ElementType::*, SubnormalMode};

fn f32_array(dims: &[i64], values: &[f64]) -> ArrayLiteral {
    ArrayLiteral::from_f64s(ArrayShape::new(F32, dims.to_vec()), values).unwrap()
}

fn run(m: &conformance_spec::HloModule, args: Vec<Literal>) -> Literal {
    Reference
        .execute(m, &args)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn add_in_any_layout_produces_the_instructions_layout() {
    let out_shape = ArrayShape::new(F32, vec![2, 3])
        .with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 4], PaddingValue::Zero));
    let root = instr("sum", Opcode::Add, Shape::Array(out_shape.clone()), vec![]);
    let m = single_op_module(
        &[array_shape(F32, &[2, 3]), array_shape(F32, &[2, 3])],
        root,
    );
    let a = f32_array(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let b = f32_array(&[2, 3], &[10., 20., 30., 40., 50., 60.]).relayout(Layout::new(vec![0, 1]));
    let r = run(&m, vec![a.into(), b.into()]);
    let r = array(&r);
    assert_eq!(r.shape(), &out_shape);
    assert_eq!(r.to_f64s().unwrap(), vec![11., 22., 33., 44., 55., 66.]);
    assert_eq!(r.data().len(), 12 * 4);
}

#[test]
fn broadcast_maps_operand_dimensions() {
    let m = single_op_module(
        &[array_shape(F32, &[3])],
        with_attrs(
            instr("b", Opcode::Broadcast, array_shape(F32, &[2, 3]), vec![]),
            &[("dimensions", AttrValue::Ints(vec![1]))],
        ),
    );
    let r = run(&m, vec![f32_array(&[3], &[1., 2., 3.]).into()]);
    assert_eq!(array(&r).to_f64s().unwrap(), vec![1., 2., 3., 1., 2., 3.]);
    let m = single_op_module(
        &[array_shape(F32, &[3])],
        with_attrs(
            instr("b", Opcode::Broadcast, array_shape(F32, &[3, 2]), vec![]),
            &[("dimensions", AttrValue::Ints(vec![0]))],
        ),
    );
    let r = run(&m, vec![f32_array(&[3], &[1., 2., 3.]).into()]);
    assert_eq!(array(&r).to_f64s().unwrap(), vec![1., 1., 2., 2., 3., 3.]);
    let m = single_op_module(
        &[array_shape(F32, &[])],
        with_attrs(
            instr("b", Opcode::Broadcast, array_shape(F32, &[2, 2]), vec![]),
            &[("dimensions", AttrValue::Ints(vec![]))],
        ),
    );
    let r = run(&m, vec![f32_array(&[], &[7.]).into()]);
    assert_eq!(array(&r).to_f64s().unwrap(), vec![7.; 4]);
    // Sizes must agree.
    let m = single_op_module(
        &[array_shape(F32, &[3])],
        with_attrs(
            instr("b", Opcode::Broadcast, array_shape(F32, &[2, 2]), vec![]),
            &[("dimensions", AttrValue::Ints(vec![1]))],
        ),
    );
    let e = Reference
        .execute(&m, &[f32_array(&[3], &[1., 2., 3.]).into()])
        .unwrap_err();
    assert!(matches!(e, BackendError::Invalid(msg) if msg.contains("broadcast")));
}

#[test]
fn tuple_get_tuple_element_constant_copy() {
    let mut c = instr("c", Opcode::Constant, array_shape(S32, &[2]), vec![]);
    c.literal = Some(
        ArrayLiteral::from_i128s(ArrayShape::new(S32, vec![2]), &[5, -6])
            .unwrap()
            .into(),
    );
    let p = parameter(0, array_shape(S32, &[2]));
    let t = instr(
        "t",
        Opcode::Tuple,
        Shape::Tuple(vec![array_shape(S32, &[2]), array_shape(S32, &[2])]),
        vec![0, 1],
    );
    let g = with_attrs(
        instr(
            "g",
            Opcode::GetTupleElement,
            array_shape(S32, &[2]),
            vec![2],
        ),
        &[("index", AttrValue::Int(1))],
    );
    let col = ArrayShape::new(S32, vec![2])
        .with_layout(Layout::new(vec![0]).with_padding(vec![4], PaddingValue::One));
    let k = instr("k", Opcode::Copy, Shape::Array(col.clone()), vec![3]);
    let m = computation_module(vec![HloComputation {
        name: "main".into(),
        instructions: vec![p, c, t, g, k],
        root: 4,
    }]);
    let arg = ArrayLiteral::from_i128s(ArrayShape::new(S32, vec![2]), &[1, 2]).unwrap();
    let r = run(&m, vec![arg.into()]);
    let r = array(&r);
    assert_eq!(r.shape(), &col);
    assert_eq!(r.to_i128s().unwrap(), vec![5, -6]);
    // Padding positions hold ONE_PAD.
    assert_eq!(r.get_bits_linear(3), 1);
}

#[test]
fn call_evaluates_the_callee() {
    // square(x) = x * x; main(p) = call(p) + p.
    let square = HloComputation {
        name: "square".into(),
        instructions: vec![
            parameter(0, array_shape(F64, &[2])),
            instr("sq", Opcode::Multiply, array_shape(F64, &[2]), vec![0, 0]),
        ],
        root: 1,
    };
    let main = HloComputation {
        name: "main".into(),
        instructions: vec![
            parameter(0, array_shape(F64, &[2])),
            with_attrs(
                instr("c", Opcode::Call, array_shape(F64, &[2]), vec![0]),
                &[("to_apply", AttrValue::Computation("square".into()))],
            ),
            instr("s", Opcode::Add, array_shape(F64, &[2]), vec![1, 0]),
        ],
        root: 2,
    };
    let m = computation_module(vec![square, main]);
    let arg = ArrayLiteral::from_f64s(ArrayShape::new(F64, vec![2]), &[3.0, -0.5]).unwrap();
    let r = run(&m, vec![arg.into()]);
    assert_eq!(array(&r).to_f64s().unwrap(), vec![12.0, -0.25]);
}

#[test]
fn call_cycles_and_undefined_operands_are_invalid() {
    let f = HloComputation {
        name: "f".into(),
        instructions: vec![
            parameter(0, array_shape(F32, &[])),
            with_attrs(
                instr("c", Opcode::Call, array_shape(F32, &[]), vec![0]),
                &[("to_apply", AttrValue::Computation("f".into()))],
            ),
        ],
        root: 1,
    };
    let m = computation_module(vec![f]);
    let e = Reference
        .execute(&m, &[f32_array(&[], &[1.]).into()])
        .unwrap_err();
    assert!(matches!(e, BackendError::Invalid(msg) if msg.contains("nesting")));
    let bad = HloComputation {
        name: "main".into(),
        instructions: vec![
            instr("n", Opcode::Negate, array_shape(F32, &[]), vec![1]),
            parameter(0, array_shape(F32, &[])),
        ],
        root: 0,
    };
    let e = Reference
        .execute(
            &computation_module(vec![bad]),
            &[f32_array(&[], &[1.]).into()],
        )
        .unwrap_err();
    assert!(matches!(e, BackendError::Invalid(msg) if msg.contains("not defined before")));
}

#[test]
fn select_and_clamp_take_scalars() {
    // Seed 004: Select(true, {1,2,3,4}, {100,...}) = {1,2,3,4}; Clamp(0, {-1,5,9}, 6) = {0,5,6}.
    let s = |v: &[i128]| {
        ArrayLiteral::from_i128s(ArrayShape::new(S32, vec![v.len() as i64]), v).unwrap()
    };
    let m = single_op_module(
        &[
            array_shape(Pred, &[]),
            array_shape(S32, &[4]),
            array_shape(S32, &[4]),
        ],
        instr("sel", Opcode::Select, array_shape(S32, &[4]), vec![]),
    );
    let pred = ArrayLiteral::from_i128s(ArrayShape::scalar(Pred), &[1]).unwrap();
    let r = run(
        &m,
        vec![
            pred.into(),
            s(&[1, 2, 3, 4]).into(),
            s(&[100, 200, 300, 400]).into(),
        ],
    );
    assert_eq!(array(&r).to_i128s().unwrap(), vec![1, 2, 3, 4]);
    let m = single_op_module(
        &[
            array_shape(Pred, &[4]),
            array_shape(S32, &[4]),
            array_shape(S32, &[4]),
        ],
        instr("sel", Opcode::Select, array_shape(S32, &[4]), vec![]),
    );
    let pred = ArrayLiteral::from_i128s(ArrayShape::new(Pred, vec![4]), &[1, 0, 0, 1]).unwrap();
    let r = run(
        &m,
        vec![
            pred.into(),
            s(&[1, 2, 3, 4]).into(),
            s(&[100, 200, 300, 400]).into(),
        ],
    );
    assert_eq!(array(&r).to_i128s().unwrap(), vec![1, 200, 300, 4]);
    let m = single_op_module(
        &[
            array_shape(S32, &[]),
            array_shape(S32, &[3]),
            array_shape(S32, &[]),
        ],
        instr("cl", Opcode::Clamp, array_shape(S32, &[3]), vec![]),
    );
    let scalar = |v| ArrayLiteral::from_i128s(ArrayShape::scalar(S32), &[v]).unwrap();
    let r = run(
        &m,
        vec![scalar(0).into(), s(&[-1, 5, 9]).into(), scalar(6).into()],
    );
    assert_eq!(array(&r).to_i128s().unwrap(), vec![0, 5, 6]);
    // A scalar operand elsewhere is not a broadcast.
    let m = single_op_module(
        &[array_shape(S32, &[]), array_shape(S32, &[3])],
        instr("a", Opcode::Add, array_shape(S32, &[3]), vec![]),
    );
    assert!(Reference
        .execute(&m, &[scalar(1).into(), s(&[1, 2, 3]).into()])
        .is_err());
}

#[test]
fn compare_produces_pred_arrays() {
    let m = single_op_module(
        &[array_shape(F32, &[3]), array_shape(F32, &[3])],
        with_attrs(
            instr("c", Opcode::Compare, array_shape(Pred, &[3]), vec![]),
            &[("direction", AttrValue::Enum("LT".into()))],
        ),
    );
    let r = run(
        &m,
        vec![
            f32_array(&[3], &[1., 2., f64::NAN]).into(),
            f32_array(&[3], &[2., 2., 0.]).into(),
        ],
    );
    assert_eq!(array(&r).to_i128s().unwrap(), vec![1, 0, 0]);
}

#[test]
fn bitcast_convert_changes_width_per_the_seed() {
    // f16[10,2]{1,0} bitcast-convert(f32[10]{0}) and back.
    let values: Vec<f64> = (0..10).map(|i| i as f64 * 1.25 - 3.0).collect();
    let m = single_op_module(
        &[array_shape(F32, &[10])],
        instr(
            "b",
            Opcode::BitcastConvert,
            array_shape(F16, &[10, 2]),
            vec![],
        ),
    );
    let r = run(&m, vec![f32_array(&[10], &values).into()]);
    let halves = array(&r);
    for (i, v) in values.iter().enumerate() {
        let bits = (*v as f32).to_bits();
        assert_eq!(
            halves.get_bits(&[i as i64, 0]) as u32 | (halves.get_bits(&[i as i64, 1]) as u32) << 16,
            bits
        );
    }
    let back = single_op_module(
        &[array_shape(F16, &[10, 2])],
        instr("b", Opcode::BitcastConvert, array_shape(F32, &[10]), vec![]),
    );
    let r2 = run(&back, vec![r.clone()]);
    assert!(array(&r2).logical_eq(&f32_array(&[10], &values)));
    // f16[2] bitcast-convert(f32[]) for a scalar.
    let m = single_op_module(
        &[array_shape(F32, &[])],
        instr("b", Opcode::BitcastConvert, array_shape(F16, &[2]), vec![]),
    );
    let r = run(&m, vec![f32_array(&[], &[1.0]).into()]);
    assert_eq!(array(&r).logical_bits(), vec![0x0000, 0x3f80]);
}

#[test]
fn arguments_are_checked() {
    let m = single_op_module(
        &[array_shape(F32, &[2])],
        instr("n", Opcode::Negate, array_shape(F32, &[2]), vec![]),
    );
    let e = Reference.execute(&m, &[]).unwrap_err();
    assert!(
        matches!(&e, BackendError::Invalid(msg) if msg.contains("1 parameter(s), 0 argument(s)")),
        "{e}"
    );
    let e = Reference
        .execute(&m, &[f32_array(&[3], &[1., 2., 3.]).into()])
        .unwrap_err();
    assert!(
        matches!(&e, BackendError::Invalid(msg) if msg.contains("argument 0")),
        "{e}"
    );
    let wrong_type = ArrayLiteral::from_f64s(ArrayShape::new(F64, vec![2]), &[1., 2.]).unwrap();
    assert!(matches!(
        Reference.execute(&m, &[wrong_type.into()]),
        Err(BackendError::Invalid(_))
    ));
    // Any layout is accepted.
    let col = f32_array(&[2], &[1., 2.])
        .relayout(Layout::new(vec![0]).with_padding(vec![5], PaddingValue::Highest));
    let r = run(&m, vec![col.into()]);
    assert_eq!(array(&r).to_f64s().unwrap(), vec![-1., -2.]);
}

#[test]
fn unsupported_opcodes_are_named() {
    let m = single_op_module(
        &[array_shape(F32, &[2, 2]), array_shape(F32, &[2, 2])],
        instr("d", Opcode::Cholesky, array_shape(F32, &[2, 2]), vec![]),
    );
    let args: Vec<Literal> = vec![
        f32_array(&[2, 2], &[1.; 4]).into(),
        f32_array(&[2, 2], &[1.; 4]).into(),
    ];
    let e = Reference.execute(&m, &args).unwrap_err();
    assert!(
        matches!(&e, BackendError::Invalid(msg) if msg.contains("cholesky takes 1 operand")),
        "{e}"
    );
    let m = single_op_module(
        &[array_shape(F32, &[2, 2])],
        instr("d", Opcode::Domain, array_shape(F32, &[2, 2]), vec![]),
    );
    let e = Reference
        .execute(&m, &[f32_array(&[2, 2], &[1.; 4]).into()])
        .unwrap_err();
    assert!(
        matches!(&e, BackendError::Unsupported(msg) if msg.contains("`domain`") && msg.contains("`d`")),
        "{e}"
    );
    let m = single_op_module(
        &[array_shape(S32, &[2])],
        instr("s", Opcode::Sine, array_shape(S32, &[2]), vec![]),
    );
    let arg = ArrayLiteral::from_i128s(ArrayShape::new(S32, vec![2]), &[1, 2]).unwrap();
    assert!(matches!(
        Reference.execute(&m, &[arg.into()]),
        Err(BackendError::Unsupported(_))
    ));
}

#[test]
fn capabilities() {
    let c = Reference.capabilities();
    assert_eq!(Reference.name(), "reference");
    assert!(c.any_layout);
    assert_eq!(c.subnormals, SubnormalMode::Preserve);
    assert_eq!(c.element_types.len(), 22);
    for op in [
        Opcode::Add,
        Opcode::Call,
        Opcode::Broadcast,
        Opcode::Logistic,
        Opcode::ReducePrecision,
        Opcode::Copy,
        Opcode::Gather,
        Opcode::Scatter,
        Opcode::Iota,
        Opcode::GetDimensionSize,
    ] {
        assert!(c.opcodes.contains(&op), "{op}");
    }
    assert!(c.opcodes.contains(&Opcode::Dot));
    assert!(c.opcodes.contains(&Opcode::Cholesky) && c.opcodes.contains(&Opcode::Fft));
    assert!(c.opcodes.contains(&Opcode::AllReduce) && c.opcodes.contains(&Opcode::ReplicaId));
    assert!(c.opcodes.contains(&Opcode::Infeed) && c.opcodes.contains(&Opcode::RecvDone));
    assert!(!c.opcodes.contains(&Opcode::Domain));
    for op in [
        Opcode::While,
        Opcode::Conditional,
        Opcode::Sort,
        Opcode::TopK,
    ] {
        assert!(c.opcodes.contains(&op), "{op}");
    }
    // 48 element-wise, 7 structural (parameter, constant, tuple, get-tuple-element, call, and
    // from optimized modules fusion and bitcast), 15 data-movement, 5 contraction and 6
    // control-flow opcodes (while, conditional, map, sort, topk, opt-barrier), 7 of the numerical
    // family (fft, cholesky, triangular-solve, batch-norm-training, -inference, -grad, and
    // custom-call for the LAPACK targets), rng-bit-generator and rng, 7 collectives and 7
    // token and transfer opcodes (after-all, infeed, outfeed, send, send-done, recv, recv-done).
    assert_eq!(c.opcodes.len(), 64 + 7 + 15 + 5 + 6 + 7 + 2 + 7 + 7);
    assert!(c.opcodes.contains(&Opcode::RngBitGenerator));
    assert_eq!(
        c.rng_bit_layout.as_deref(),
        Some(conformance_spec::random::XLA_LAYOUT)
    );
}

#[test]
fn empty_arrays() {
    let m = single_op_module(
        &[array_shape(F32, &[0, 3])],
        instr("e", Opcode::Exponential, array_shape(F32, &[0, 3]), vec![]),
    );
    let r = run(&m, vec![f32_array(&[0, 3], &[]).into()]);
    assert_eq!(array(&r).dimensions(), &[0, 3]);
}
