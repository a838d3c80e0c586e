//! Operations that rearrange a whole array: `broadcast` (seed 004, Broadcast and BroadcastInDim),
//! `reshape` (seed 004, Reshape and Collapse), `transpose` (seed 004, Transpose), `reverse`
//! (seed 004, Rev) and `copy` (the same values, possibly in another layout).

use super::{dimension, expect_dims, ints, invalid, is_permutation, read_each, same_type};
use crate::interpreter::{array, conform, result_array_shape, Context};
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// `copy`: the operand's value in the layout of the instruction's shape (a layout-changing copy
/// when the layouts differ). Any shape (arrays, tuples).
///
/// Errors: [`BackendError::Invalid`] when the operand is missing or its element types or
/// dimensions differ from the result's.
pub(crate) fn copy(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let Some(&value) = operands.first() else {
        return invalid("copy: missing operand");
    };
    conform(value.clone(), &instr.shape)
}

/// `broadcast` (HLO form, seed 004 BroadcastInDim): operand dimension `i` maps to result
/// dimension `dimensions[i]`; `output[j] = operand[i]` with `i[k] = j[dimensions[k]]`
/// (or 0 where the operand's dimension has size 1 and the result's does not: seed 004,
/// BroadcastInDim "the operand's size must be 1 or the mapped output size"). Broadcast's new
/// major dimensions (seed 004, Broadcast: `output[i0..iN, j0..jM] = operand[j0..jM]`) are the
/// case `dimensions={N+1..N+M+1}`.
///
/// Errors: [`BackendError::Invalid`] when `dimensions` does not give one distinct result
/// dimension per operand dimension with a compatible size, or the element types differ.
pub(crate) fn broadcast(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    let dims = instr.attr_ints("dimensions").unwrap_or(&[]);
    let in_dims = operand.dimensions();
    if dims.len() != in_dims.len() {
        return invalid(format!(
            "broadcast: dimensions={dims:?} must have one entry per operand dimension ({})",
            in_dims.len()
        ));
    }
    let mut mapped = Vec::with_capacity(dims.len());
    for (i, &d) in dims.iter().enumerate() {
        let ok = usize::try_from(d)
            .ok()
            .and_then(|d| shape.dimensions.get(d))
            .is_some_and(|&size| size == in_dims[i] || in_dims[i] == 1);
        if !ok || dims[..i].contains(&d) {
            return invalid(format!(
                "broadcast: operand dimension {i} (size {}) cannot map to result dimension {d} of {:?}",
                in_dims[i], shape.dimensions
            ));
        }
        mapped.push(d as usize);
    }
    let out = read_each(operand, shape, |idx, source| {
        for (k, s) in source.iter_mut().enumerate() {
            *s = if in_dims[k] == 1 { 0 } else { idx[mapped[k]] };
        }
    });
    Ok(Literal::Array(out))
}

/// `reshape` (seed 004, Reshape and Collapse): the operand's elements in row-major order of the
/// LOGICAL index (layouts do not matter), refolded row-major into the result's dimensions. With
/// `dimensions={...}` (seed 004, `Reshape(operand, dimensions, new_sizes)`), the operand is first
/// flattened with `dimensions[0]` the slowest-varying (most major) dimension and the last entry
/// the fastest; without it the order is `{0, ..., rank-1}`.
///
/// Errors: [`BackendError::Invalid`] when the element counts differ, `dimensions` is not a
/// permutation of the operand's dimensions, or the element types differ.
pub(crate) fn reshape(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    let rank = operand.dimensions().len();
    let order: Vec<usize> = match instr.attr_ints("dimensions") {
        None => (0..rank).collect(),
        Some(p) if is_permutation(p, rank) => p.iter().map(|&d| d as usize).collect(),
        Some(p) => {
            return invalid(format!(
                "reshape: dimensions={p:?} is not a permutation of the operand's {rank} dimensions"
            ))
        }
    };
    if operand.shape().element_count() != shape.element_count() {
        return invalid(format!(
            "reshape: {:?} ({} elements) cannot become {:?} ({} elements)",
            operand.dimensions(),
            operand.shape().element_count(),
            shape.dimensions,
            shape.element_count()
        ));
    }
    // The operand's elements in the collapse order: loop nest with `order[0]` outermost.
    let permuted: Vec<i64> = order.iter().map(|&d| operand.dimensions()[d]).collect();
    let mut flat = Vec::with_capacity(operand.shape().element_count());
    let mut source = vec![0i64; rank];
    index::for_each_index(&permuted, |p| {
        for (k, &d) in order.iter().enumerate() {
            source[d] = p[k];
        }
        flat.push(operand.get_bits(&source));
    });
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut n = 0;
    index::for_each_index(&shape.dimensions, |idx| {
        out.set_bits(idx, flat[n]);
        n += 1;
    });
    Ok(Literal::Array(out))
}

/// `transpose` (seed 004, Transpose): with `dimensions={permutation}`, result dimension `i` is
/// operand dimension `permutation[i]`, and `output[j] = operand[i]` with `i[permutation[k]] =
/// j[k]`.
///
/// Errors: [`BackendError::Invalid`] when the permutation is not one of the operand's dimensions,
/// the result dimensions are not the permuted ones, or the element types differ.
pub(crate) fn transpose(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    let perm = ints(instr, "dimensions")?;
    let rank = operand.dimensions().len();
    if !is_permutation(perm, rank) {
        return invalid(format!(
            "transpose: dimensions={perm:?} is not a permutation of 0..{rank}"
        ));
    }
    let permuted: Vec<i64> = perm
        .iter()
        .map(|&p| operand.dimensions()[p as usize])
        .collect();
    expect_dims(instr, shape, &permuted)?;
    let out = read_each(operand, shape, |idx, source| {
        for (k, &p) in perm.iter().enumerate() {
            source[p as usize] = idx[k];
        }
    });
    Ok(Literal::Array(out))
}

/// `reverse` (seed 004, Rev): the same shape, with index `i` of each dimension in
/// `dimensions={...}` (size N) taken from `N - 1 - i`.
///
/// Errors: [`BackendError::Invalid`] for a dimension number out of range or repeated, different
/// dimensions, or different element types.
pub(crate) fn reverse(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    expect_dims(instr, shape, operand.dimensions())?;
    let rank = operand.dimensions().len();
    let mut reversed = vec![false; rank];
    for &d in ints(instr, "dimensions")? {
        let d = dimension(instr, "dimensions entry", d, rank)?;
        if reversed[d] {
            return invalid(format!("reverse: dimension {d} is listed twice"));
        }
        reversed[d] = true;
    }
    let dims = &shape.dimensions;
    let out = read_each(operand, shape, |idx, source| {
        for d in 0..rank {
            source[d] = if reversed[d] {
                dims[d] - 1 - idx[d]
            } else {
                idx[d]
            };
        }
    });
    Ok(Literal::Array(out))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use conformance_spec::literal::{ArrayLiteral, Literal};
    use conformance_spec::BackendError;

    fn module(param: &str, result: &str, op: &str) -> String {
        format!(
            "HloModule m\nENTRY e {{\n  p = {param} parameter(0)\n  ROOT r = {result} {op}\n}}\n"
        )
    }

    #[test]
    fn transpose_under_padded_layouts() {
        let a = numbered("f32[2,3]{0,1:P(4,4)}", |n| (n as u128) * 7 + 1);
        let hlo = module(
            "f32[2,3]{0,1:P(4,4)}",
            "f32[3,2]{0,1:P(5,3)}",
            "transpose(p), dimensions={1,0}",
        );
        let r = run_array(&hlo, &[a.clone().into()]);
        assert_eq!(r.shape(), &parse_shape_array("f32[3,2]{0,1:P(5,3)}"));
        for i in 0..3i64 {
            for j in 0..2i64 {
                assert_eq!(r.get_bits(&[i, j]), a.get_bits(&[j, i]));
            }
        }
    }

    #[test]
    fn transpose_rank3_every_permutation() {
        let a = numbered("s8[2,3,4]{0,2,1}", |n| n as u128);
        let perms = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let dims = [2i64, 3, 4];
        for p in perms {
            let out: Vec<i64> = p.iter().map(|&d| dims[d]).collect();
            let hlo = module(
                "s8[2,3,4]{0,2,1}",
                &format!("s8[{},{},{}]{{1,2,0}}", out[0], out[1], out[2]),
                &format!("transpose(p), dimensions={{{},{},{}}}", p[0], p[1], p[2]),
            );
            let r = run_array(&hlo, &[a.clone().into()]);
            conformance_spec::index::for_each_index(&out, |j| {
                let mut i = [0i64; 3];
                for k in 0..3 {
                    i[p[k]] = j[k];
                }
                assert_eq!(r.get_bits(j), row_major(&i, &dims) as u128, "perm {p:?}");
            });
        }
    }

    #[test]
    fn reshape_follows_logical_row_major_order() {
        // Seed 004, Reshape: v = f32[4x2x3] {10, 11, 12, 15, 16, 17, 20, ...}; a column-major
        // operand and a padded result must not change the order.
        let v: Vec<f64> = (0..24).map(|n| (10 + (n / 3) * 5 + n % 3) as f64).collect();
        let shape = parse_shape_array("f32[4,2,3]{0,1,2}");
        let a = ArrayLiteral::from_f64s(shape, &v).unwrap();
        let hlo = module("f32[4,2,3]{0,1,2}", "f32[8,3]{0,1:P(9,4)}", "reshape(p)");
        let r = run_array(&hlo, &[a.clone().into()]);
        assert_eq!(r.to_f64s().unwrap(), v);
        // Out-of-order collapse: Reshape(v, {1,2,0}, {24}) = {10, 20, 30, 40, 11, 21, ...}.
        let hlo = module(
            "f32[4,2,3]{0,1,2}",
            "f32[24]{0}",
            "reshape(p), dimensions={1,2,0}",
        );
        let r = run_array(&hlo, &[a.into()]);
        let got = r.to_f64s().unwrap();
        assert_eq!(&got[..8], &[10., 20., 30., 40., 11., 21., 31., 41.]);
        assert_eq!(got[23], 47.);
    }

    #[test]
    fn reshape_scalar_and_count_mismatch() {
        let a = numbered("c128[1,1]", |_| (3f64.to_bits() as u128) | (5u128 << 64));
        let r = run_array(&module("c128[1,1]", "c128[]", "reshape(p)"), &[a.into()]);
        assert_eq!(r.get_bits(&[]), (3f64.to_bits() as u128) | (5u128 << 64));
        let b = numbered("f32[2,3]", |n| n as u128);
        let e = run(&module("f32[2,3]", "f32[5]", "reshape(p)"), &[b.into()]);
        assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
    }

    #[test]
    fn reverse_and_nan_payloads() {
        // f8e4m3fn: every bit pattern, NaN encodings (0x7f, 0xff) included, moves unchanged.
        let a = numbered("f8e4m3fn[16,16]{0,1}", |n| n as u128);
        let r = run_array(
            &module(
                "f8e4m3fn[16,16]{0,1}",
                "f8e4m3fn[16,16]{1,0:P(17,16)}",
                "reverse(p), dimensions={0,1}",
            ),
            &[a.into()],
        );
        for i in 0..16i64 {
            for j in 0..16i64 {
                assert_eq!(r.get_bits(&[i, j]), ((15 - i) * 16 + (15 - j)) as u128);
            }
        }
        let b = numbered("pred[3,2]", |n| (n % 2) as u128);
        let r = run_array(
            &module("pred[3,2]", "pred[3,2]{0,1}", "reverse(p), dimensions={1}"),
            &[b.into()],
        );
        assert_eq!(r.to_i128s().unwrap(), vec![1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn broadcast_new_major_and_degenerate_dimensions() {
        let a = numbered("s8[3]", |n| n as u128 + 1);
        let r = run_array(
            &module(
                "s8[3]",
                "s8[2,3]{0,1:P(3,3)}",
                "broadcast(p), dimensions={1}",
            ),
            &[a.into()],
        );
        assert_eq!(r.to_i128s().unwrap(), vec![1, 2, 3, 1, 2, 3]);
        // BroadcastInDim of a size-1 dimension.
        let b = numbered("s8[1,2]", |n| n as u128 + 5);
        let r = run_array(
            &module("s8[1,2]", "s8[3,2]", "broadcast(p), dimensions={0,1}"),
            &[b.into()],
        );
        assert_eq!(r.to_i128s().unwrap(), vec![5, 6, 5, 6, 5, 6]);
    }

    #[test]
    fn layout_changing_copy() {
        let a = numbered("c128[2,3]", |n| (n as u128) << 70 | n as u128);
        let r = run(
            &module("c128[2,3]", "c128[2,3]{0,1:P(2,4)}", "copy(p)"),
            &[a.clone().into()],
        )
        .unwrap();
        let Literal::Array(r) = r else { panic!() };
        assert_eq!(r.shape(), &parse_shape_array("c128[2,3]{0,1:P(2,4)}"));
        assert!(r.logical_eq(&a));
        assert_ne!(r.data(), a.data());
    }
}
