//! Single-operation cases of the contraction family (seed 004: Dot, DotGeneral, Conv /
//! ConvWithGeneralPadding, Reduce, ReduceWindow, SelectAndScatter), valid by construction: the
//! dimension numbers, windows and group counts are drawn first and the operand shapes built to
//! fit them. Every parameter and result gets a random layout, as in the data-movement family.
//!
//! Values come from the sweep's classes (NaN, ±inf, extremes, subnormals, ...), except where the
//! semantics need an order the values must not break: argmax pairs and select-and-scatter's
//! `select` use distinct small integers (ties and NaN make the selected element depend on the
//! order of evaluation, which the seed leaves open).

mod contraction_ops;
mod windows;

use super::elementwise::{Built, CaseSpec};
use super::movement::Gen;
use super::rng::Rng;
use conformance_spec::catalog::Signature;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{Attribute, HloComputation, Opcode};
use conformance_spec::literal::complex_bits;
use conformance_spec::shape::Shape;
use conformance_spec::shape_inference::{infer_shape_in, InferenceContext};

/// Builds one case of a contraction-family entry.
///
/// Errors: the entry's signature is not of this family, or the generator built an invalid module
/// (a bug, with the reason).
pub fn build(rng: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let mut g = Gen::new(rng, spec);
    let ty = spec.element_type;
    let root = match spec.op.signature {
        Signature::Dot => contraction_ops::dot(&mut g, ty)?,
        Signature::DotGeneral => contraction_ops::dot_general(&mut g, ty)?,
        Signature::Convolution => contraction_ops::convolution(&mut g, ty)?,
        Signature::Reduce => windows::reduce(&mut g, ty)?,
        Signature::ReduceWindow => windows::reduce_window(&mut g, ty)?,
        Signature::SelectAndScatter => windows::select_and_scatter(&mut g, ty)?,
        other => {
            return Err(format!(
                "{}: {other:?} is not a contraction signature",
                spec.op.id
            ))
        }
    };
    g.into_built(root)
}

/// True for the signatures this module builds.
pub fn is_contraction(signature: Signature) -> bool {
    matches!(
        signature,
        Signature::Dot
            | Signature::DotGeneral
            | Signature::Convolution
            | Signature::Reduce
            | Signature::ReduceWindow
            | Signature::SelectAndScatter
    )
}

/// Adds `opcode(operands)` with the shape shape inference gives it (`result_type`: the element
/// type of an array result, for mixed precision; `callee`: the called computation's parameter
/// and root shapes).
fn add_inferred(
    g: &mut Gen,
    opcode: Opcode,
    operands: Vec<usize>,
    attributes: Vec<Attribute>,
    result_type: Option<ElementType>,
    callee: Option<&HloComputation>,
) -> Result<usize, String> {
    let shapes: Vec<Shape> = operands
        .iter()
        .map(|&o| g.b.shape(o).cloned().map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let refs: Vec<&Shape> = shapes.iter().collect();
    let params: Vec<Shape>;
    let root: Shape;
    let callee = match callee {
        Some(c) => {
            params = c.parameter_shapes();
            root = c.root_instruction().shape.clone();
            Some((params.as_slice(), &root))
        }
        None => None,
    };
    let context = InferenceContext {
        new_element_type: result_type,
        result_dimensions: None,
        callee,
        called: &[],
        given: None,
    };
    let shape = infer_shape_in(opcode, &refs, &attributes, &context)
        .map_err(|e| format!("{opcode}: {e}"))?;
    g.add(opcode, shape, operands, attributes)
}

/// The bits of the small integer `v` in `ty` (floats and complex: exactly `v`, real).
fn small_bits(ty: ElementType, v: i64) -> u128 {
    if let Some(f) = ty.float_format() {
        let b = f.encode(v as f64);
        return if ty.is_complex() {
            complex_bits(f, b, 0)
        } else {
            b as u128
        };
    }
    if ty.is_pred() {
        return (v != 0) as u128;
    }
    ty.integer_to_bits(v as i128).unwrap_or(0) as u128
}

/// A scalar reducer `(a, b) -> opcode(a, b)` of `ty` named `name` (or a compare for `select`).
pub(super) fn binary_computation(
    name: &str,
    ty: ElementType,
    opcode: Opcode,
    direction: Option<&str>,
) -> Result<HloComputation, String> {
    let mut b = ComputationBuilder::new(name);
    let scalar = Shape::array(ty, vec![]);
    let x = b.parameter(scalar.clone()).map_err(|e| e.to_string())?;
    let y = b.parameter(scalar).map_err(|e| e.to_string())?;
    let root = match direction {
        Some(d) => b.compare(x, y, d, None).map_err(|e| e.to_string())?,
        None => b.binary(opcode, x, y).map_err(|e| e.to_string())?,
    };
    b.try_build(root).map_err(|e| e.to_string())
}

/// Registers a called computation under a fresh name and returns it (renamed).
pub(super) fn call(g: &mut Gen, computation: HloComputation) -> HloComputation {
    let named = HloComputation {
        name: format!("{}_{}", computation.name, g.called.len()),
        ..computation
    };
    g.called.push(named.clone());
    named
}

#[cfg(test)]
mod tests;
