//! Helpers shared by the integration tests: build one-instruction modules over parameters, and
//! run element functions on typed values.
#![allow(dead_code)]

pub mod catalog;
pub mod layouts;

use conformance_reference::eval_element;
use conformance_spec::hlo::ir::{
    AttrValue, Attribute, HloComputation, HloInstruction, HloModule, Opcode,
};
use conformance_spec::literal::Literal;
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::ElementType;

/// An instruction with no operands and the given attributes.
pub fn instr(name: &str, opcode: Opcode, shape: Shape, operands: Vec<usize>) -> HloInstruction {
    HloInstruction {
        name: name.into(),
        opcode,
        shape,
        operands,
        parameter_number: None,
        literal: None,
        attributes: vec![],
    }
}

pub fn with_attrs(mut i: HloInstruction, attrs: &[(&str, AttrValue)]) -> HloInstruction {
    i.attributes = attrs
        .iter()
        .map(|(n, v)| Attribute {
            name: n.to_string(),
            value: v.clone(),
        })
        .collect();
    i
}

pub fn parameter(n: usize, shape: Shape) -> HloInstruction {
    let mut p = instr(&format!("p{n}"), Opcode::Parameter, shape, vec![]);
    p.parameter_number = Some(n as i64);
    p
}

/// A module whose entry computation takes parameters of `params` shapes and whose root is `root`
/// applied to all of them.
pub fn single_op_module(params: &[Shape], root: HloInstruction) -> HloModule {
    let mut instructions: Vec<HloInstruction> = params
        .iter()
        .enumerate()
        .map(|(i, s)| parameter(i, s.clone()))
        .collect();
    let mut root = root;
    root.operands = (0..params.len()).collect();
    instructions.push(root);
    computation_module(vec![HloComputation {
        name: "main".into(),
        root: params.len(),
        instructions,
    }])
}

/// A module of computations; the last one is the entry.
pub fn computation_module(computations: Vec<HloComputation>) -> HloModule {
    HloModule {
        name: "test".into(),
        header_attributes: vec![],
        entry: computations.len() - 1,
        computations,
    }
}

pub fn array_shape(ty: ElementType, dims: &[i64]) -> Shape {
    Shape::Array(ArrayShape::new(ty, dims.to_vec()))
}

pub fn array(l: &Literal) -> &conformance_spec::literal::ArrayLiteral {
    l.as_array().expect("array literal")
}

/// Evaluates an instruction (by opcode and attributes) on one element.
pub fn element(
    opcode: Opcode,
    attrs: &[(&str, AttrValue)],
    types: &[ElementType],
    operands: &[u128],
    result: ElementType,
) -> u128 {
    let i = with_attrs(instr("op", opcode, array_shape(result, &[]), vec![]), attrs);
    eval_element(&i, types, operands, result)
        .unwrap_or_else(|e| panic!("{opcode} {types:?} {operands:x?}: {e}"))
}

/// Same-type unary/binary element evaluation.
pub fn same(opcode: Opcode, ty: ElementType, operands: &[u128]) -> u128 {
    element(opcode, &[], &vec![ty; operands.len()], operands, ty)
}

pub fn f32v(opcode: Opcode, xs: &[f32]) -> f32 {
    let bits: Vec<u128> = xs.iter().map(|x| x.to_bits() as u128).collect();
    f32::from_bits(same(opcode, ElementType::F32, &bits) as u32)
}

pub fn f64v(opcode: Opcode, xs: &[f64]) -> f64 {
    let bits: Vec<u128> = xs.iter().map(|x| x.to_bits() as u128).collect();
    f64::from_bits(same(opcode, ElementType::F64, &bits) as u64)
}
