//! Test helpers: HLO modules built directly from IR structs (one operation over parameters).
#![allow(dead_code)]

use conformance_spec::hlo::{AttrValue, Attribute, HloComputation, HloInstruction};
use conformance_spec::{ArrayShape, HloModule, Opcode, Shape};

/// `name=value` with an enumerator value (`direction=LT`).
pub fn attr_enum(name: &str, value: &str) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Enum(value.into()),
    }
}

/// `name=value` with an integer value (`exponent_bits=5`).
pub fn attr_int(name: &str, value: i64) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Int(value),
    }
}

/// `name={...}` with integers (`dimensions={1}`).
pub fn attr_ints(name: &str, value: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(value.to_vec()),
    }
}

pub fn param(number: usize, shape: ArrayShape) -> HloInstruction {
    HloInstruction {
        name: format!("p{number}"),
        opcode: Opcode::Parameter,
        shape: Shape::Array(shape),
        operands: vec![],
        parameter_number: Some(number as i64),
        literal: None,
        attributes: vec![],
    }
}

pub fn instr(
    name: &str,
    opcode: Opcode,
    shape: ArrayShape,
    operands: Vec<usize>,
    attributes: Vec<Attribute>,
) -> HloInstruction {
    HloInstruction {
        name: name.into(),
        opcode,
        shape: Shape::Array(shape),
        operands,
        parameter_number: None,
        literal: None,
        attributes,
    }
}

/// A module whose entry computation is `instructions`, the last one being the root.
pub fn module(instructions: Vec<HloInstruction>) -> HloModule {
    let root = instructions.len() - 1;
    HloModule {
        name: "test".into(),
        header_attributes: vec![],
        computations: vec![HloComputation {
            name: "main".into(),
            instructions,
            root,
        }],
        entry: 0,
    }
}

/// `ROOT r = result op(p0, p1, ...)` over parameters of the given shapes.
pub fn single_op(
    op: Opcode,
    operands: &[ArrayShape],
    result: ArrayShape,
    attributes: Vec<Attribute>,
) -> HloModule {
    let mut v: Vec<HloInstruction> = operands
        .iter()
        .enumerate()
        .map(|(i, s)| param(i, s.clone()))
        .collect();
    let ops = (0..operands.len()).collect();
    v.push(instr("r", op, result, ops, attributes));
    module(v)
}

/// `n` deterministic values in [lo, hi) (a 64-bit LCG), as a rank-1 literal of `ty` (a float
/// type): the inputs of the benchmarks.
pub fn uniform_values(
    ty: conformance_spec::ElementType,
    n: usize,
    lo: f64,
    hi: f64,
    seed: u64,
) -> conformance_spec::Literal {
    let f = ty.float_format().expect("float type");
    let mut s = seed;
    let shape = ArrayShape::new(ty, vec![n as i64]);
    let bits: Vec<u128> = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            f.encode(lo + (hi - lo) * u) as u128
        })
        .collect();
    conformance_spec::literal::ArrayLiteral::from_bits(shape, &bits)
        .expect("shape")
        .into()
}
