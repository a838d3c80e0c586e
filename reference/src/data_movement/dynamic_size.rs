//! `get-dimension-size` and `set-dimension-size` (seed 004, GetDimensionSize, SetDimensionSize).
//!
//! A literal holds the elements of its static bound; the runtime size of a dynamic dimension is
//! tracked beside the values by the interpreter ([`RuntimeSizes`], one per evaluated instruction):
//! `set-dimension-size` records it (and passes its operand through unchanged — seed 004: "passes
//! the operand through as the result, with the dynamic dimension tracked by the compiler"),
//! `copy` keeps its operand's, and `get-dimension-size` reads it, or the static size of a
//! dimension that has none recorded. Other operations do not propagate runtime sizes.

use super::{dimension, ints, invalid, same_type};
use crate::interpreter::{array, result_array_shape, Context};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::{HloInstruction, Opcode};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// Per dimension of a value, its runtime size when one was set (empty for values without any).
pub type RuntimeSizes = Vec<Option<i64>>;

/// The single dimension of `dimensions={d}`.
fn the_dimension(instr: &HloInstruction, rank: usize) -> Result<usize, BackendError> {
    match ints(instr, "dimensions")? {
        [d] => dimension(instr, "dimensions", *d, rank),
        other => invalid(format!(
            "{}: dimensions={other:?} must name one dimension",
            instr.opcode
        )),
    }
}

/// The runtime sizes of `instr`'s value, from its operands' (see the module docs).
pub(crate) fn runtime_sizes(
    instr: &HloInstruction,
    operands: &[&Literal],
    operand_sizes: &[&RuntimeSizes],
) -> RuntimeSizes {
    match instr.opcode {
        Opcode::Copy => operand_sizes
            .first()
            .map(|s| (*s).clone())
            .unwrap_or_default(),
        Opcode::SetDimensionSize => {
            let (Ok(operand), Ok(size)) = (array(instr, operands, 0), array(instr, operands, 1))
            else {
                return Vec::new();
            };
            let rank = operand.dimensions().len();
            let (Ok(d), Some(v)) = (the_dimension(instr, rank), scalar_size(size)) else {
                return Vec::new();
            };
            let mut sizes = operand_sizes
                .first()
                .map(|s| (*s).clone())
                .unwrap_or_default();
            sizes.resize(rank, None);
            sizes[d] = Some(v);
            sizes
        }
        _ => Vec::new(),
    }
}

fn scalar_size(size: &ArrayLiteral) -> Option<i64> {
    if !size.dimensions().is_empty() {
        return None;
    }
    let v = size
        .element_type()
        .integer_from_bits(size.get_bits(&[]) as u64)?;
    i64::try_from(v).ok()
}

/// `get-dimension-size` (seed 004, GetDimensionSize): `dimensions={d}`; the result is `s32[]`,
/// the runtime size of dimension `d` of the operand when one was set, else its static size.
///
/// Errors: [`BackendError::Invalid`] when the operand is not an array, `d` is out of range, or
/// the result is not `s32[]`.
pub(crate) fn get_dimension_size(
    instr: &HloInstruction,
    operands: &[&Literal],
    operand_sizes: &[&RuntimeSizes],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    if shape.element_type != ElementType::S32 || !shape.dimensions.is_empty() {
        return invalid(format!(
            "get-dimension-size: the result must be s32[], not {shape}"
        ));
    }
    let d = the_dimension(instr, operand.dimensions().len())?;
    let size = operand_sizes
        .first()
        .and_then(|s| s.get(d).copied().flatten())
        .unwrap_or(operand.dimensions()[d]);
    Ok(Literal::Array(ArrayLiteral::scalar_bits(
        ElementType::S32,
        size as u32 as u128,
    )))
}

/// The table entry of `get-dimension-size` when no runtime sizes are at hand: static sizes.
pub(crate) fn get_dimension_size_static(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    get_dimension_size(instr, operands, &[])
}

/// `set-dimension-size` (seed 004, SetDimensionSize): operands `(operand, size)` with `size` an
/// integer scalar (XLA: `s32[]`) in `[0, bound]`, `dimensions={d}`; the result is the operand's
/// values unchanged in the instruction's shape (dimension `d` dynamic, e.g. `f32[<=10]`).
///
/// Errors: [`BackendError::Invalid`] when the size is not an integer scalar or lies outside
/// `[0, bound]`, `d` is out of range, or the result's dimensions or element type differ from the
/// operand's.
pub(crate) fn set_dimension_size(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let size = array(instr, operands, 1)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    let d = the_dimension(instr, operand.dimensions().len())?;
    if !size.element_type().is_integer() {
        return invalid(format!(
            "set-dimension-size: the size must be an integer scalar, not {}",
            size.shape()
        ));
    }
    let bound = operand.dimensions()[d];
    match scalar_size(size) {
        Some(v) if (0..=bound).contains(&v) => {}
        other => {
            return invalid(format!(
                "set-dimension-size: size {other:?} of dimension {d} is outside [0, {bound}] (or not a scalar)"
            ))
        }
    }
    super::expect_dims(instr, shape, operand.dimensions())?;
    let mut out = ArrayLiteral::zeros(shape.clone());
    index::for_each_index(operand.dimensions(), |idx| {
        out.set_bits(idx, operand.get_bits(idx))
    });
    Ok(Literal::Array(out))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use conformance_spec::literal::Literal;
    use conformance_spec::BackendError;

    #[test]
    fn set_then_get_dimension_size() {
        let v = numbered("f32[10]", |n| n as u128);
        let hlo = "HloModule m\nENTRY e {\n  p = f32[10] parameter(0)\n  five = s32[] parameter(1)\n  s = f32[<=10] set-dimension-size(p, five), dimensions={0}\n  c = f32[<=10] copy(s)\n  g = s32[] get-dimension-size(c), dimensions={0}\n  h = s32[] get-dimension-size(p), dimensions={0}\n  ROOT t = (s32[], s32[], f32[<=10]) tuple(g, h, s)\n}\n";
        let r = run(hlo, &[v.clone().into(), s32(5)]).unwrap();
        let Literal::Tuple(items) = r else { panic!() };
        assert_eq!(items[0].as_array().unwrap().to_i128s().unwrap(), vec![5]);
        assert_eq!(items[1].as_array().unwrap().to_i128s().unwrap(), vec![10]);
        assert!(items[2].as_array().unwrap().logical_eq(&v));
        let e = run(hlo, &[v.into(), s32(11)]);
        assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
    }

    #[test]
    fn get_dimension_size_of_static_layouts() {
        let a = numbered("pred[2,7]{0,1:P(3,8)}", |n| (n % 2) as u128);
        let hlo = "HloModule m\nENTRY e {\n  p = pred[2,7]{0,1:P(3,8)} parameter(0)\n  ROOT g = s32[] get-dimension-size(p), dimensions={1}\n}\n";
        assert_eq!(run_array(hlo, &[a.into()]).to_i128s().unwrap(), vec![7]);
    }
}
