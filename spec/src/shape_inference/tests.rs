//! Unit tests of shape inference and verification.

use super::*;
use crate::hlo::ir::AttrValue;
use crate::hlo::parse_module;

fn a(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

fn f32s(dims: &[i64]) -> Shape {
    a(ElementType::F32, dims)
}

fn attr(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

fn infer(
    op: Opcode,
    operands: &[&Shape],
    attrs: &[Attribute],
) -> Result<Shape, ShapeInferenceError> {
    infer_shape(op, operands, attrs)
}

fn with_type(op: Opcode, operand: &Shape, to: ElementType) -> Result<Shape, ShapeInferenceError> {
    let context = InferenceContext {
        new_element_type: Some(to),
        ..Default::default()
    };
    infer_shape_in(op, &[operand], &[], &context)
}

#[test]
fn unary_result_types() {
    let x = f32s(&[2, 3]);
    assert_eq!(infer(Opcode::Exponential, &[&x], &[]), Ok(x.clone()));
    assert_eq!(
        infer(Opcode::IsFinite, &[&x], &[]),
        Ok(a(ElementType::Pred, &[2, 3]))
    );
    let c = a(ElementType::C64, &[4]);
    for op in [Opcode::Real, Opcode::Imag, Opcode::Abs] {
        assert_eq!(infer(op, &[&c], &[]), Ok(f32s(&[4])), "{op}");
    }
    assert_eq!(infer(Opcode::Real, &[&x], &[]), Ok(x.clone()));
    let i = a(ElementType::S32, &[3]);
    assert_eq!(infer(Opcode::Abs, &[&i], &[]), Ok(i.clone()));
    assert_eq!(infer(Opcode::PopulationCount, &[&i], &[]), Ok(i.clone()));
    assert_eq!(
        infer(Opcode::Not, &[&a(ElementType::Pred, &[])], &[]),
        Ok(a(ElementType::Pred, &[]))
    );
}

#[test]
fn element_type_legality() {
    let i = a(ElementType::S32, &[3]);
    let x = f32s(&[3]);
    let err = |r: Result<Shape, ShapeInferenceError>| {
        matches!(r, Err(ShapeInferenceError::ElementType { .. }))
    };
    assert!(err(infer(Opcode::Sine, &[&i], &[])));
    assert!(err(infer(Opcode::Not, &[&x], &[])));
    assert!(err(infer(Opcode::And, &[&x, &x], &[])));
    assert!(err(infer(Opcode::ShiftLeft, &[&x, &x], &[])));
    assert!(err(infer(Opcode::Floor, &[&a(ElementType::C64, &[])], &[])));
    let p = a(ElementType::Pred, &[]);
    assert!(err(infer(Opcode::Subtract, &[&p, &p], &[])));
    // The catalog lists add and multiply for every type, pred included.
    assert!(infer(Opcode::Add, &[&p, &p], &[]).is_ok());
    assert!(infer(Opcode::And, &[&i, &i], &[]).is_ok());
    assert!(infer(
        Opcode::Or,
        &[&a(ElementType::Pred, &[2]), &a(ElementType::Pred, &[2])],
        &[]
    )
    .is_ok());
}

#[test]
fn binary_operands_must_match() {
    let x = f32s(&[2, 3]);
    assert_eq!(infer(Opcode::Add, &[&x, &x], &[]), Ok(x.clone()));
    let e = infer(Opcode::Add, &[&x, &f32s(&[3])], &[]).unwrap_err();
    assert!(matches!(e, ShapeInferenceError::Operands { .. }), "{e}");
    assert!(e.to_string().contains("no implicit broadcasting"), "{e}");
    let e = infer(Opcode::Multiply, &[&x, &a(ElementType::F64, &[2, 3])], &[]).unwrap_err();
    assert!(e.to_string().contains("element type"), "{e}");
    let e = infer(Opcode::Add, &[&x], &[]).unwrap_err();
    assert_eq!(
        e,
        ShapeInferenceError::OperandCount {
            opcode: Opcode::Add,
            expected: "2",
            got: 1
        }
    );
    let e = infer(Opcode::Add, &[&x, &Shape::Tuple(vec![])], &[]).unwrap_err();
    assert!(e.to_string().contains("must be an array"), "{e}");
}

#[test]
fn complex_combines_real_parts() {
    assert_eq!(
        infer(Opcode::Complex, &[&f32s(&[2]), &f32s(&[2])], &[]),
        Ok(a(ElementType::C64, &[2]))
    );
    let d = a(ElementType::F64, &[]);
    assert_eq!(
        infer(Opcode::Complex, &[&d, &d], &[]),
        Ok(a(ElementType::C128, &[]))
    );
    let h = a(ElementType::F16, &[]);
    assert!(infer(Opcode::Complex, &[&h, &h], &[]).is_err());
}

#[test]
fn compare_gives_pred_and_checks_direction_and_type() {
    let x = f32s(&[3]);
    let lt = attr("direction", AttrValue::Enum("LT".into()));
    assert_eq!(
        infer(Opcode::Compare, &[&x, &x], std::slice::from_ref(&lt)),
        Ok(a(ElementType::Pred, &[3]))
    );
    assert!(matches!(
        infer(Opcode::Compare, &[&x, &x], &[]),
        Err(ShapeInferenceError::Attribute { .. })
    ));
    let total = attr("type", AttrValue::Enum("TOTALORDER".into()));
    assert!(infer(Opcode::Compare, &[&x, &x], &[lt.clone(), total]).is_ok());
    let signed = attr("type", AttrValue::Enum("SIGNED".into()));
    let e = infer(Opcode::Compare, &[&x, &x], &[lt.clone(), signed.clone()]).unwrap_err();
    assert!(
        e.to_string().contains("SIGNED does not apply to f32"),
        "{e}"
    );
    let i = a(ElementType::S8, &[3]);
    assert!(infer(Opcode::Compare, &[&i, &i], &[lt.clone(), signed]).is_ok());
    let unsigned = attr("type", AttrValue::Enum("UNSIGNED".into()));
    let p = a(ElementType::Pred, &[3]);
    assert!(infer(Opcode::Compare, &[&p, &p], &[lt, unsigned]).is_ok());
}

#[test]
fn select_and_clamp() {
    let x = f32s(&[2, 3]);
    let p = a(ElementType::Pred, &[2, 3]);
    let ps = a(ElementType::Pred, &[]);
    assert_eq!(infer(Opcode::Select, &[&p, &x, &x], &[]), Ok(x.clone()));
    assert_eq!(infer(Opcode::Select, &[&ps, &x, &x], &[]), Ok(x.clone()));
    assert!(infer(Opcode::Select, &[&x, &x, &x], &[]).is_err());
    assert!(infer(Opcode::Select, &[&a(ElementType::Pred, &[3]), &x, &x], &[]).is_err());
    assert!(infer(Opcode::Select, &[&p, &x, &f32s(&[3, 2])], &[]).is_err());
    let s = f32s(&[]);
    assert_eq!(infer(Opcode::Clamp, &[&s, &x, &s], &[]), Ok(x.clone()));
    assert_eq!(infer(Opcode::Clamp, &[&x, &x, &s], &[]), Ok(x.clone()));
    assert_eq!(infer(Opcode::Clamp, &[&x, &s, &x], &[]), Ok(x.clone()));
    assert!(infer(Opcode::Clamp, &[&f32s(&[3]), &x, &s], &[]).is_err());
    assert!(infer(Opcode::Clamp, &[&a(ElementType::F64, &[]), &x, &s], &[]).is_err());
}

#[test]
fn convert_needs_the_new_type() {
    let x = f32s(&[2]);
    assert!(infer(Opcode::Convert, &[&x], &[])
        .unwrap_err()
        .is_not_inferable());
    assert_eq!(
        with_type(Opcode::Convert, &x, ElementType::Bf16),
        Ok(a(ElementType::Bf16, &[2]))
    );
    assert_eq!(
        with_type(Opcode::Convert, &x, ElementType::C64),
        Ok(a(ElementType::C64, &[2]))
    );
    let e = with_type(
        Opcode::Convert,
        &a(ElementType::C64, &[2]),
        ElementType::F32,
    )
    .unwrap_err();
    assert!(e.to_string().contains("complex"), "{e}");
}

#[test]
fn bitcast_convert_widths() {
    // Seed 004, BitcastConvertType: f32[10] → f16[10,2]; f32[] → f16[2]; f16[10,2] → f32[10].
    assert_eq!(
        with_type(Opcode::BitcastConvert, &f32s(&[10]), ElementType::F16),
        Ok(a(ElementType::F16, &[10, 2]))
    );
    assert_eq!(
        with_type(Opcode::BitcastConvert, &f32s(&[]), ElementType::F16),
        Ok(a(ElementType::F16, &[2]))
    );
    assert_eq!(
        with_type(
            Opcode::BitcastConvert,
            &a(ElementType::F16, &[10, 2]),
            ElementType::F32
        ),
        Ok(f32s(&[10]))
    );
    assert_eq!(
        with_type(
            Opcode::BitcastConvert,
            &a(ElementType::F64, &[]),
            ElementType::U8
        ),
        Ok(a(ElementType::U8, &[8]))
    );
    assert_eq!(
        with_type(Opcode::BitcastConvert, &f32s(&[3]), ElementType::S32),
        Ok(a(ElementType::S32, &[3]))
    );
    assert!(with_type(
        Opcode::BitcastConvert,
        &a(ElementType::F16, &[10, 3]),
        ElementType::F32
    )
    .is_err());
    assert!(with_type(
        Opcode::BitcastConvert,
        &a(ElementType::F16, &[]),
        ElementType::F32
    )
    .is_err());
    assert!(with_type(
        Opcode::BitcastConvert,
        &a(ElementType::C64, &[]),
        ElementType::F64
    )
    .is_err());
    assert_eq!(
        with_type(
            Opcode::BitcastConvert,
            &a(ElementType::C128, &[]),
            ElementType::C64
        ),
        Ok(a(ElementType::C64, &[2]))
    );
}

#[test]
fn reduce_precision_attributes() {
    let x = a(ElementType::F64, &[2]);
    let e5 = attr("exponent_bits", AttrValue::Int(5));
    let m10 = attr("mantissa_bits", AttrValue::Int(10));
    assert_eq!(
        infer(Opcode::ReducePrecision, &[&x], &[e5.clone(), m10.clone()]),
        Ok(x.clone())
    );
    assert!(infer(Opcode::ReducePrecision, &[&x], std::slice::from_ref(&e5)).is_err());
    let e0 = attr("exponent_bits", AttrValue::Int(0));
    assert!(infer(Opcode::ReducePrecision, &[&x], &[e0, m10.clone()]).is_err());
    let i = a(ElementType::S32, &[2]);
    assert!(infer(Opcode::ReducePrecision, &[&i], &[e5, m10]).is_err());
}

#[test]
fn broadcast_and_reshape() {
    let v = f32s(&[2]);
    let dims = |d: &[i64]| attr("dimensions", AttrValue::Ints(d.to_vec()));
    let ctx = |out: &'static [i64]| InferenceContext {
        result_dimensions: Some(out),
        ..Default::default()
    };
    let b = |out: &'static [i64], d: &[i64]| {
        infer_shape_in(Opcode::Broadcast, &[&v], &[dims(d)], &ctx(out))
    };
    assert_eq!(b(&[2, 3], &[0]), Ok(f32s(&[2, 3])));
    assert_eq!(b(&[3, 2], &[1]), Ok(f32s(&[3, 2])));
    assert!(b(&[2, 3], &[1]).is_err()); // size 2 onto size 3
    assert!(b(&[2, 3], &[]).is_err());
    assert!(b(&[2, 3], &[2]).is_err());
    let s = f32s(&[2, 2]);
    let e = infer_shape_in(Opcode::Broadcast, &[&s], &[dims(&[0, 0])], &ctx(&[2, 2])).unwrap_err();
    assert!(e.to_string().contains("appears twice"), "{e}");
    assert!(infer(Opcode::Broadcast, &[&v], &[dims(&[0])])
        .unwrap_err()
        .is_not_inferable());
    let r =
        |out: &'static [i64]| infer_shape_in(Opcode::Reshape, &[&f32s(&[2, 3])], &[], &ctx(out));
    assert_eq!(r(&[3, 2]), Ok(f32s(&[3, 2])));
    assert_eq!(r(&[6]), Ok(f32s(&[6])));
    assert!(r(&[5]).is_err());
}

#[test]
fn tuples_calls_parameters() {
    let x = f32s(&[2]);
    let i = a(ElementType::S32, &[]);
    let t = infer(Opcode::Tuple, &[&x, &i], &[]).unwrap();
    assert_eq!(t, Shape::Tuple(vec![x.clone(), i.clone()]));
    let index = |n| attr("index", AttrValue::Int(n));
    assert_eq!(
        infer(Opcode::GetTupleElement, &[&t], &[index(1)]),
        Ok(i.clone())
    );
    assert!(infer(Opcode::GetTupleElement, &[&t], &[index(2)]).is_err());
    assert!(infer(Opcode::GetTupleElement, &[&t], &[index(-1)]).is_err());
    assert!(infer(Opcode::GetTupleElement, &[&x], &[index(0)]).is_err());
    let params = [x.clone(), i.clone()];
    let root = f32s(&[7]);
    let call = InferenceContext {
        callee: Some((&params, &root)),
        ..Default::default()
    };
    assert_eq!(
        infer_shape_in(Opcode::Call, &[&x, &i], &[], &call),
        Ok(root.clone())
    );
    assert!(infer_shape_in(Opcode::Call, &[&x], &[], &call).is_err());
    assert!(infer_shape_in(Opcode::Call, &[&i, &x], &[], &call).is_err());
    assert!(infer(Opcode::Call, &[&x], &[])
        .unwrap_err()
        .is_not_inferable());
    let given = InferenceContext::from_declared(&x);
    assert_eq!(
        infer_shape_in(Opcode::Parameter, &[], &[], &given),
        Ok(x.clone())
    );
    assert_eq!(
        infer(Opcode::Domain, &[&x], &[]),
        Err(ShapeInferenceError::Unsupported(Opcode::Domain))
    );
}

/// Tokens and host transfers (seed 004, AfterAll, Infeed, Send, Recv): tokens in, tokens out,
/// the data of infeed and recv declared, the send/recv context `(data, u32[], token[])`.
#[test]
fn host_transfer_shapes() {
    let t = Shape::Token;
    let x = Shape::array(ElementType::F32, vec![2, 3]);
    assert_eq!(infer(Opcode::AfterAll, &[], &[]), Ok(t.clone()));
    assert_eq!(infer(Opcode::AfterAll, &[&t, &t], &[]), Ok(t.clone()));
    assert!(infer(Opcode::AfterAll, &[&t, &x], &[]).is_err());
    let fed = Shape::Tuple(vec![x.clone(), t.clone()]);
    let given = InferenceContext::from_declared(&fed);
    assert_eq!(
        infer_shape_in(Opcode::Infeed, &[&t], &[], &given),
        Ok(fed.clone())
    );
    assert!(infer_shape_in(Opcode::Infeed, &[&x], &[], &given).is_err());
    let wrong = InferenceContext::from_declared(&x);
    assert!(infer_shape_in(Opcode::Infeed, &[&t], &[], &wrong).is_err());
    assert_eq!(infer(Opcode::Outfeed, &[&x, &t], &[]), Ok(t.clone()));
    let other = Attribute {
        name: "outfeed_shape".into(),
        value: AttrValue::Raw("f32[3,2]".into()),
    };
    assert!(infer(Opcode::Outfeed, &[&x, &t], &[other]).is_err());
    let context = Shape::Tuple(vec![
        x.clone(),
        Shape::array(ElementType::U32, vec![]),
        t.clone(),
    ]);
    assert_eq!(infer(Opcode::Send, &[&x, &t], &[]), Ok(context.clone()));
    assert_eq!(infer(Opcode::SendDone, &[&context], &[]), Ok(t.clone()));
    assert_eq!(infer(Opcode::RecvDone, &[&context], &[]), Ok(fed));
    assert!(infer(Opcode::RecvDone, &[&x], &[]).is_err());
    let declared = InferenceContext::from_declared(&context);
    assert_eq!(
        infer_shape_in(Opcode::Recv, &[&t], &[], &declared),
        Ok(context)
    );
}

/// Collectives (seed 004): the group size, where `replica_groups` give it, fixes all-gather's
/// and reduce-scatter's results; the declared result supplies it otherwise.
#[test]
fn collective_shapes() {
    use crate::hlo::parse_module;
    let module = |body: &str| {
        parse_module(&format!(
            "HloModule m, replica_count=4\nsum {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\nENTRY e {{\n  x = f32[4,6]{{1,0}} parameter(0)\n  ROOT r = {body}\n}}\n"
        ))
        .unwrap()
    };
    let ok = [
        "f32[4,6]{1,0} all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=sum",
        "f32[4,12]{1,0} all-gather(x), dimensions={1}, replica_groups={{0,1},{2,3}}",
        "f32[16,6]{1,0} all-gather(x), dimensions={0}",
        "f32[4,3]{1,0} reduce-scatter(x), dimensions={1}, replica_groups={{0,1},{2,3}}, to_apply=sum",
        "f32[4,6]{1,0} all-to-all(x), dimensions={1}, replica_groups={{0,2},{1,3}}",
        "f32[4,6]{1,0} collective-permute(x), source_target_pairs={{0,1},{1,0}}",
        "u32[] replica-id()",
    ];
    for body in ok {
        let m = module(body);
        assert!(crate::shape_inference::verify_module(&m).is_ok(), "{body}");
    }
    let bad = [
        // 6 columns times a group of 2 is 12.
        "f32[4,10]{1,0} all-gather(x), dimensions={1}, replica_groups={{0,1},{2,3}}",
        "f32[4,6]{1,0} all-gather(x), dimensions={2}",
        "f32[4,2]{1,0} reduce-scatter(x), dimensions={1}, replica_groups={{0,1},{2,3}}, to_apply=sum",
        // Groups of different sizes.
        "f32[4,12]{1,0} all-gather(x), dimensions={1}, replica_groups={{0,1,2},{3}}",
        // 4 rows do not split into groups of 3.
        "f32[4,6]{1,0} all-to-all(x), dimensions={0}, replica_groups={{0,1,2}}",
        "f32[4,6]{1,0} collective-permute(x), source_target_pairs={{0,1,2}}",
        "s32[] replica-id()",
    ];
    for body in bad {
        let m = module(body);
        assert!(crate::shape_inference::verify_module(&m).is_err(), "{body}");
    }
}

#[test]
fn rng_takes_two_scalars_of_the_declared_type() {
    let s = Shape::array(ElementType::F32, vec![]);
    let i = Shape::array(ElementType::S32, vec![]);
    let out = Shape::array(ElementType::F32, vec![3, 4]);
    let dist = |d: &str| {
        vec![Attribute {
            name: "distribution".into(),
            value: AttrValue::Enum(d.into()),
        }]
    };
    let given = InferenceContext::from_declared(&out);
    assert_eq!(
        infer_shape_in(Opcode::Rng, &[&s, &s], &dist("rng_normal"), &given),
        Ok(out.clone())
    );
    // Parameters of another type, a vector parameter, no distribution, a normal integer.
    assert!(infer_shape_in(Opcode::Rng, &[&i, &i], &dist("rng_uniform"), &given).is_err());
    let v = Shape::array(ElementType::F32, vec![2]);
    assert!(infer_shape_in(Opcode::Rng, &[&v, &s], &dist("rng_uniform"), &given).is_err());
    assert!(infer_shape_in(Opcode::Rng, &[&s, &s], &[], &given).is_err());
    let ints = Shape::array(ElementType::S32, vec![5]);
    let given = InferenceContext::from_declared(&ints);
    assert!(infer_shape_in(Opcode::Rng, &[&i, &i], &dist("rng_normal"), &given).is_err());
    assert_eq!(
        infer_shape_in(Opcode::Rng, &[&i, &i], &dist("rng_uniform"), &given),
        Ok(ints)
    );
}

#[test]
fn xla_broadcasting_rules() {
    // Scalar with anything; vector into matrix by broadcast_dimensions (XLA "Broadcasting").
    assert_eq!(
        broadcast_binary_dimensions(&[2, 3], &[], &[]),
        Ok(vec![2, 3])
    );
    assert_eq!(
        broadcast_binary_dimensions(&[2, 3], &[3], &[1]),
        Ok(vec![2, 3])
    );
    assert_eq!(
        broadcast_binary_dimensions(&[2], &[2, 3], &[0]),
        Ok(vec![2, 3])
    );
    assert!(broadcast_binary_dimensions(&[2, 3], &[2], &[1]).is_err());
    assert!(broadcast_binary_dimensions(&[2, 3], &[3], &[]).is_err());
    // 3x3 matrix and 3-vector: either dimension.
    assert_eq!(
        broadcast_binary_dimensions(&[3, 3], &[3], &[0]),
        Ok(vec![3, 3])
    );
    // Degenerate dimensions: (2,1) with (1,3) gives (2,3); (2,1) with (2,3).
    assert_eq!(
        broadcast_binary_dimensions(&[2, 1], &[1, 3], &[]),
        Ok(vec![2, 3])
    );
    assert_eq!(
        broadcast_binary_dimensions(&[2, 3], &[2, 1], &[]),
        Ok(vec![2, 3])
    );
    assert!(broadcast_binary_dimensions(&[2, 3], &[3, 2], &[]).is_err());
    // Rank 2 into rank 3 with a degenerate dimension: (2,1) to (2,3,4) on dims (0,1).
    assert_eq!(
        broadcast_binary_dimensions(&[2, 1], &[2, 3, 4], &[0, 1]),
        Ok(vec![2, 3, 4])
    );
    assert!(broadcast_binary_dimensions(&[3, 4], &[2, 3, 4], &[2, 1]).is_err()); // not increasing
    assert!(broadcast_binary_dimensions(&[2, 3], &[2, 3], &[1, 0]).is_err());
    assert_eq!(
        broadcast_binary_dimensions(&[2, 3], &[2, 3], &[0, 1]),
        Ok(vec![2, 3])
    );
}

fn verify_text(text: &str) -> Result<(), VerifyError> {
    verify_module(&parse_module(text).unwrap())
}

#[test]
fn verifier_accepts_well_formed_modules() {
    let text = "HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
mul { a = f32[2,3] parameter(0)  b = f32[2,3] parameter(1)  ROOT s = f32[2,3] multiply(a, b) }
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  z = f32[] constant(0)
  r = f32[2] reduce(x, z), dimensions={1}, to_apply=add
  b = f32[2,3] broadcast(r), dimensions={0}
  c = pred[2,3] compare(x, b), direction=LT
  s = f32[2,3] select(c, x, b)
  k = f32[2,3] call(s, x), to_apply=mul
  v = bf16[2,3] convert(k)
  u = u16[2,3] bitcast-convert(v)
  ROOT t = (f32[2,3], u16[2,3]) tuple(k, u)
}";
    verify_text(text).unwrap();
}

#[test]
fn verifier_accepts_what_xla_accepts_over_pred() {
    // XLA's verifier takes a PRED -> PRED bitcast and a select-and-scatter over PRED (jaxlib
    // compiles and runs both); PRED to another type is still refused, as XLA refuses it.
    verify_text(
        "HloModule m\nENTRY main {\n  a = pred[4] parameter(0)\n  ROOT b = pred[4] bitcast-convert(a)\n}",
    )
    .unwrap();
    let e = verify_text(
        "HloModule m\nENTRY main {\n  a = pred[4] parameter(0)\n  ROOT b = u8[4] bitcast-convert(a)\n}",
    )
    .unwrap_err();
    assert!(e.message.contains("element type pred (result u8)"), "{e}");
    verify_text(
        "HloModule m
ge { a = pred[] parameter(0)  b = pred[] parameter(1)  ROOT c = pred[] compare(a, b), direction=GE }
or { a = pred[] parameter(0)  b = pred[] parameter(1)  ROOT s = pred[] or(a, b) }
ENTRY main {
  x = pred[6] parameter(0)
  s = pred[3] parameter(1)
  z = pred[] constant(false)
  ROOT r = pred[6] select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=or
}",
    )
    .unwrap();
}

#[test]
fn verifier_names_the_computation_and_instruction() {
    let wrong_shape =
        "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[4] negate(x)\n}";
    let e = verify_text(wrong_shape).unwrap_err();
    assert_eq!(e.computation, "main");
    assert_eq!(e.instruction.as_deref(), Some("y"));
    assert!(
        e.message
            .contains("declared shape `f32[4]{0}` does not match the inferred `f32[3]{0}`"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "computation %main, instruction %y: declared shape `f32[4]{0}` does not match the inferred `f32[3]{0}`"
    );
    let wrong_type =
        "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = pred[3] negate(x)\n}";
    assert_eq!(
        verify_text(wrong_type).unwrap_err().instruction.as_deref(),
        Some("y")
    );
    let gap =
        "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[3] parameter(2)\n}";
    let e = verify_text(gap).unwrap_err();
    assert!(e.message.contains("parameter numbers must be 0..2"), "{e}");
    assert_eq!(e.instruction.as_deref(), Some("y"));
    let bad_call = "HloModule m\nf {\n  ROOT a = f32[] parameter(0)\n}\nENTRY main {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x, x), to_apply=f\n}";
    let e = verify_text(bad_call).unwrap_err();
    assert!(
        e.message.contains("must take 2 parameter(s), it takes 1"),
        "{e}"
    );
    let bad_reduce_region = "HloModule m\nf {\n  ROOT a = f32[] parameter(0)\n}\nENTRY main {\n  x = f32[3] parameter(0)\n  z = f32[] constant(0)\n  ROOT y = f32[] reduce(x, z), dimensions={0}, to_apply=f\n}";
    assert!(verify_text(bad_reduce_region).is_err());
    let bad_compare =
        "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = pred[3] compare(x, x)\n}";
    let e = verify_text(bad_compare).unwrap_err();
    assert!(e.message.contains("missing `direction=`"), "{e}");
}

#[test]
fn verifier_checks_ir_invariants() {
    let mut m = parse_module(
        "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[3] negate(x)\n}",
    )
    .unwrap();
    let good = m.clone();
    m.computations[0].instructions[1].operands = vec![1];
    assert!(verify_module(&m)
        .unwrap_err()
        .message
        .contains("not defined before"));
    let mut m = good.clone();
    m.computations[0].root = 5;
    assert!(verify_module(&m)
        .unwrap_err()
        .message
        .contains("root index"));
    let mut m = good.clone();
    m.entry = 3;
    assert!(verify_module(&m).is_err());
    let mut m = good.clone();
    m.computations[0].instructions[0].parameter_number = None;
    assert!(verify_module(&m)
        .unwrap_err()
        .message
        .contains("without a parameter number"));
    let mut m = good.clone();
    m.computations[0].instructions[1].name = "x".into();
    assert!(verify_module(&m)
        .unwrap_err()
        .message
        .contains("duplicate instruction name"));
    let mut m = good;
    m.computations[0].instructions[1].shape = f32s(&[-1]);
    assert!(verify_module(&m)
        .unwrap_err()
        .message
        .contains("invalid shape"));
}

#[test]
fn inference_accepts_every_case_the_catalog_describes() {
    // Inference reads the catalog for element-type legality: it must accept every (opcode,
    // operand type, result type) the catalog lists, with its fixed attributes, or the generators
    // would build cases the builder and the verifier reject.
    use crate::catalog::{Catalog, Signature};
    let catalog = Catalog::builtin().unwrap();
    let mut checked = 0;
    for op in catalog.ops() {
        let Some(opcode) = Opcode::from_name(&op.opcode) else {
            continue;
        };
        if !op.signature.is_elementwise() {
            // Data movement entries are checked by their catalog examples.
            continue;
        }
        let mut attributes: Vec<Attribute> = op
            .attributes
            .iter()
            .map(|(k, v)| attr(k, AttrValue::Enum(v.clone())))
            .collect();
        for g in &op.generated_attributes {
            attributes.push(attr(&g.name, AttrValue::Int(g.min)));
        }
        for t in catalog.element_types(op) {
            for r in catalog.result_element_types(op, t) {
                let x = a(t, &[2]);
                let p = a(ElementType::Pred, &[2]);
                let (operands, context): (Vec<&Shape>, _) = match op.signature {
                    Signature::Unary => (vec![&x], InferenceContext::default()),
                    Signature::Binary => (vec![&x, &x], InferenceContext::default()),
                    Signature::Select => (vec![&p, &x, &x], InferenceContext::default()),
                    Signature::Clamp => (vec![&x, &x, &x], InferenceContext::default()),
                    Signature::Convert => (
                        vec![&x],
                        InferenceContext {
                            new_element_type: Some(r),
                            ..Default::default()
                        },
                    ),
                    _ => unreachable!("element-wise signatures only"),
                };
                let x_wide;
                let operands = if opcode == Opcode::BitcastConvert && r.bit_width() > t.bit_width()
                {
                    x_wide = a(t, &[2, (r.bit_width() / t.bit_width()) as i64]);
                    vec![&x_wide]
                } else {
                    operands
                };
                let result = infer_shape_in(opcode, &operands, &attributes, &context);
                let result =
                    result.unwrap_or_else(|e| panic!("catalog entry {}: {t} -> {r}: {e}", op.id));
                assert_eq!(
                    result.as_array().map(|s| s.element_type),
                    Some(r),
                    "{}",
                    op.id
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} combinations in the catalog");
}
