//! `get-dimension-size` and `set-dimension-size` (seed 004, GetDimensionSize, SetDimensionSize).
//!
//! A dynamic value is a literal with runtime sizes ([`ArrayLiteral::runtime_dimensions`]): the
//! buffer of the static bound, and the logical array inside the sizes. `set-dimension-size`
//! passes its operand through with one size set (seed 004: "passes the operand through as the
//! result, with the dynamic dimension tracked by the compiler"), `get-dimension-size` reads it;
//! every other operation acts on logical arrays ([`conformance_spec::dynamic_dimensions`], run by
//! the interpreter), so sizes travel through the whole program, tuples included.

use super::{dimension, ints, invalid, same_type};
use crate::interpreter::{array, result_array_shape, Context};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

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
/// the runtime size of dimension `d` of the operand when it is dynamic, else its static size.
///
/// Errors: [`BackendError::Invalid`] when the operand is not an array, `d` is out of range, or
/// the result is not `s32[]`.
pub(crate) fn get_dimension_size(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    if shape.element_type != ElementType::S32 || !shape.dimensions.is_empty() {
        return invalid(format!(
            "get-dimension-size: the result must be s32[], not {shape}"
        ));
    }
    let d = the_dimension(instr, operand.dimensions().len())?;
    let size = operand.logical_dimensions()[d];
    Ok(Literal::Array(ArrayLiteral::scalar_bits(
        ElementType::S32,
        size as u32 as u128,
    )))
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
    let new_size = match scalar_size(size) {
        Some(v) if (0..=bound).contains(&v) => v,
        other => {
            return invalid(format!(
                "set-dimension-size: size {other:?} of dimension {d} is outside [0, {bound}] (or not a scalar)"
            ))
        }
    };
    super::expect_dims(instr, shape, operand.dimensions())?;
    // The operand's values (padding included: the data is not touched), in the result's shape,
    // with the runtime size of `d` replaced (the other dimensions keep theirs).
    let mut out = ArrayLiteral::zeros(shape.clone());
    index::for_each_index(operand.dimensions(), |idx| {
        out.set_bits(idx, operand.get_bits(idx))
    });
    let mut sizes = operand.logical_dimensions().to_vec();
    sizes[d] = new_size;
    out.with_runtime_dimensions(&sizes)
        .map(Literal::Array)
        .map_err(|e| BackendError::Invalid(format!("set-dimension-size: {e}")))
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
        let dynamic = items[2].as_array().unwrap();
        assert_eq!(dynamic.runtime_dimensions(), Some(&[5][..]));
        assert!(dynamic
            .logical_array()
            .logical_eq(&v.leading_block(&[5]).unwrap()));
        let e = run(hlo, &[v.into(), s32(11)]);
        assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
    }

    /// Runs `body` (HLO lines using `x`, a dynamic view of parameter `p` = s32[2,<=6] numbered
    /// 0..12 in row-major order, with runtime size `n` in dimension 1) and returns the root.
    fn dynamic(body: &str, n: i32) -> Literal {
        let hlo = format!(
            "HloModule m\nENTRY e {{\n  p = s32[2,6]{{0,1}} parameter(0)\n  n = s32[] parameter(1)\n  x = s32[2,<=6]{{1,0}} set-dimension-size(p, n), dimensions={{1}}\n{body}\n}}\n"
        );
        let p = numbered("s32[2,6]{0,1}", |k| k as u128);
        run(&hlo, &[p.into(), s32(n)]).unwrap_or_else(|e| panic!("{e}\n{hlo}"))
    }

    fn logical(l: &Literal) -> (Vec<i64>, Vec<i128>) {
        let a = l.as_array().unwrap();
        (
            a.logical_dimensions().to_vec(),
            a.logical_array().to_i128s().unwrap(),
        )
    }

    #[test]
    fn runtime_sizes_travel_through_data_movement_and_tuples() {
        // Through a tuple and get-tuple-element, then read.
        let r = dynamic(
            "  t = (s32[2,<=6], s32[]) tuple(x, n)\n  g = s32[2,<=6] get-tuple-element(t), index=0\n  ROOT s = s32[] get-dimension-size(g), dimensions={1}",
            4,
        );
        assert_eq!(logical(&r).1, vec![4]);
        // Transpose moves the size to dimension 0.
        let r = dynamic("  ROOT t = s32[<=6,2] transpose(x), dimensions={1,0}", 3);
        assert_eq!(logical(&r), (vec![3, 2], vec![0, 6, 1, 7, 2, 8]));
        // Reverse reverses the valid prefix only (XLA's dynamic padder does the same).
        let r = dynamic("  ROOT v = s32[2,<=6] reverse(x), dimensions={1}", 3);
        assert_eq!(logical(&r), (vec![2, 3], vec![2, 1, 0, 8, 7, 6]));
        // Concatenate packs the valid parts contiguously; sizes add up.
        let r = dynamic(
            "  ROOT c = s32[2,<=12] concatenate(x, x), dimensions={1}",
            2,
        );
        assert_eq!(logical(&r), (vec![2, 4], vec![0, 1, 0, 1, 6, 7, 6, 7]));
        // Reshape of the row-major logical tensor: [2, 2] → [4].
        let r = dynamic("  ROOT f = s32[<=12] reshape(x)", 2);
        assert_eq!(logical(&r), (vec![4], vec![0, 1, 6, 7]));
        // Element-wise with a static operand: the dynamic size wins.
        let r = dynamic("  ROOT a = s32[2,<=6] add(x, p)", 2);
        assert_eq!(logical(&r), (vec![2, 2], vec![0, 2, 12, 14]));
        // Pad: the edges frame the valid data.
        let r = dynamic(
            "  z = s32[] constant(-1)\n  ROOT q = s32[2,<=9] pad(x, z), padding=0_0x1_2",
            1,
        );
        assert_eq!(
            logical(&r),
            (vec![2, 4], vec![-1, 0, -1, -1, -1, 6, -1, -1])
        );
        // A full slice keeps the size; a copy too; setting the bound makes the value static.
        let r = dynamic(
            "  s = s32[2,<=6] slice(x), slice={[0:2], [0:6]}\n  c = s32[2,<=6] copy(s)\n  ROOT b = s32[2,6] set-dimension-size(c, n), dimensions={1}",
            5,
        );
        assert_eq!(logical(&r).0, vec![2, 5]);
        let r = dynamic(
            "  six = s32[] constant(6)\n  ROOT b = s32[2,6] set-dimension-size(x, six), dimensions={1}",
            2,
        );
        assert_eq!(r.as_array().unwrap().runtime_dimensions(), None);
    }

    #[test]
    fn runtime_sizes_that_do_not_fit_are_invalid() {
        let hlo = "HloModule m\nENTRY e {\n  p = s32[6] parameter(0)\n  n = s32[] parameter(1)\n  x = s32[<=6] set-dimension-size(p, n), dimensions={0}\n  i = s32[] constant(0)\n  ROOT d = s32[4] dynamic-slice(x, i), dynamic_slice_sizes={4}\n}\n";
        let p = numbered("s32[6]", |k| k as u128);
        assert!(run(hlo, &[p.clone().into(), s32(5)]).is_ok());
        let e = run(hlo, &[p.into(), s32(3)]);
        assert!(
            matches!(&e, Err(BackendError::Invalid(m)) if m.contains("runtime sizes")),
            "{e:?}"
        );
    }

    #[test]
    fn get_dimension_size_of_static_layouts() {
        let a = numbered("pred[2,7]{0,1:P(3,8)}", |n| (n % 2) as u128);
        let hlo = "HloModule m\nENTRY e {\n  p = pred[2,7]{0,1:P(3,8)} parameter(0)\n  ROOT g = s32[] get-dimension-size(p), dimensions={1}\n}\n";
        assert_eq!(run_array(hlo, &[a.into()]).to_i128s().unwrap(), vec![7]);
    }
}
