//! Operations that cut, place or join blocks: `slice` (seed 004, Slice), `dynamic-slice` (seed
//! 004, DynamicSlice), `dynamic-update-slice` (seed 004, DynamicUpdateSlice), `pad` (seed 004,
//! Pad) and `concatenate` (seed 004, Concatenate).

use super::{dimension, expect_dims, integer_at, ints, invalid, read_each, same_type};
use crate::interpreter::{array, result_array_shape, Context};
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// `slice` (seed 004, Slice): with `slice={[start:limit:stride], ...}` per dimension, result
/// index `j` takes operand index `start + j * stride`; result dimension `d` has
/// `ceil((limit - start) / stride)` elements.
///
/// Errors: [`BackendError::Invalid`] unless, per dimension, `0 <= start <= limit <= size` and
/// `stride >= 1`, the result has the sliced dimensions and the operand's element type.
pub(crate) fn slice(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    let Some(spec) = instr.attr_slice("slice") else {
        return invalid("slice: missing `slice={[start:limit:stride], ...}`");
    };
    let dims = operand.dimensions();
    if spec.len() != dims.len() {
        return invalid(format!(
            "slice: {} slice dimensions for an operand of rank {}",
            spec.len(),
            dims.len()
        ));
    }
    let mut sizes = Vec::with_capacity(dims.len());
    for (d, (s, &n)) in spec.iter().zip(dims).enumerate() {
        if !(0 <= s.start && s.start <= s.limit && s.limit <= n && s.stride >= 1) {
            return invalid(format!(
                "slice: dimension {d} of size {n}: [{}:{}:{}] needs 0 <= start <= limit <= size and stride >= 1",
                s.start, s.limit, s.stride
            ));
        }
        sizes.push((s.limit - s.start + s.stride - 1) / s.stride);
    }
    expect_dims(instr, shape, &sizes)?;
    let out = read_each(operand, shape, |idx, source| {
        for (d, s) in spec.iter().enumerate() {
            source[d] = s.start + idx[d] * s.stride;
        }
    });
    Ok(Literal::Array(out))
}

/// The start indices of `dynamic-slice` / `dynamic-update-slice` from `operands[first..]`: one
/// integer scalar per dimension (or, XLA's older form, one rank-1 integer array), each read as
/// signed or unsigned per its type and clamped into `[0, dims[d] - sizes[d]]` (seed 004,
/// DynamicSlice: `start_indices[i] = clamp(start_indices[i], 0, operand.dimension_size[i] -
/// size_indices[i])`; the seed's text says "for i in [1, N)", every dimension is meant, as XLA
/// does).
fn clamped_starts(
    instr: &HloInstruction,
    operands: &[&Literal],
    first: usize,
    dims: &[i64],
    sizes: &[i64],
) -> Result<Vec<i64>, BackendError> {
    let rank = dims.len();
    let raw: Vec<i128> = if operands.len() == first + 1 && rank != 1 {
        let v = array(instr, operands, first)?;
        if v.dimensions() != [rank as i64] {
            return invalid(format!(
                "{}: start indices {:?} must be {rank} scalars or one array of {rank}",
                instr.opcode,
                v.dimensions()
            ));
        }
        (0..rank as i64)
            .map(|i| integer_at(instr, "a start index", v, &[i]))
            .collect::<Result<_, _>>()?
    } else {
        if operands.len() != first + rank {
            return invalid(format!(
                "{}: {} start index operands for an operand of rank {rank}",
                instr.opcode,
                operands.len().saturating_sub(first)
            ));
        }
        (0..rank)
            .map(|d| {
                let s = array(instr, operands, first + d)?;
                match s.dimensions() {
                    [] => integer_at(instr, "a start index", s, &[]),
                    // A one-element rank-1 array for a rank-1 operand (older XLA form).
                    [1] if rank == 1 => integer_at(instr, "a start index", s, &[0]),
                    other => invalid(format!(
                        "{}: start index {d} must be a scalar, not {other:?}",
                        instr.opcode
                    )),
                }
            })
            .collect::<Result<_, _>>()?
    };
    Ok(raw
        .iter()
        .zip(dims.iter().zip(sizes))
        .map(|(&s, (&n, &size))| s.clamp(0, i128::from(n - size)) as i64)
        .collect())
}

/// `dynamic-slice` (seed 004, DynamicSlice): operands `(operand, start_0, ..., start_{r-1})`,
/// `dynamic_slice_sizes={...}`; result index `j` takes operand index `start + j` with each start
/// clamped into `[0, size_d - slice_size_d]`, so the slice is always in bounds.
///
/// Errors: [`BackendError::Invalid`] for sizes outside `[0, size_d]`, start indices that are not
/// integer scalars (one per dimension), a result that is not `slice_sizes` of the operand's type.
pub(crate) fn dynamic_slice(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    let dims = operand.dimensions();
    let sizes = ints(instr, "dynamic_slice_sizes")?;
    if sizes.len() != dims.len() || sizes.iter().zip(dims).any(|(&s, &n)| s < 0 || s > n) {
        return invalid(format!(
            "dynamic-slice: dynamic_slice_sizes={sizes:?} must give a size in [0, size] for each of {dims:?}"
        ));
    }
    expect_dims(instr, shape, sizes)?;
    let starts = clamped_starts(instr, operands, 1, dims, sizes)?;
    let out = read_each(operand, shape, |idx, source| {
        for d in 0..idx.len() {
            source[d] = starts[d] + idx[d];
        }
    });
    Ok(Literal::Array(out))
}

/// `dynamic-update-slice` (seed 004, DynamicUpdateSlice): operands `(operand, update, start_0,
/// ..., start_{r-1})`; the result is the operand with `result[start + j] = update[j]` for every
/// index `j` of the update, each start clamped into `[0, size_d - update_size_d]`.
///
/// Errors: [`BackendError::Invalid`] when the update is larger than the operand in some dimension
/// or of another rank or element type, for malformed start indices, or a result shape other than
/// the operand's.
pub(crate) fn dynamic_update_slice(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let update = array(instr, operands, 1)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    same_type(instr, "the update", update.element_type(), shape)?;
    let dims = operand.dimensions();
    expect_dims(instr, shape, dims)?;
    let sizes = update.dimensions();
    if sizes.len() != dims.len() || sizes.iter().zip(dims).any(|(&s, &n)| s > n) {
        return invalid(format!(
            "dynamic-update-slice: the update {sizes:?} does not fit the operand {dims:?}"
        ));
    }
    let starts = clamped_starts(instr, operands, 2, dims, sizes)?;
    let mut out = ArrayLiteral::zeros(shape.clone());
    index::for_each_index(dims, |idx| out.set_bits(idx, operand.get_bits(idx)));
    let mut target = vec![0i64; dims.len()];
    index::for_each_index(sizes, |idx| {
        for d in 0..idx.len() {
            target[d] = starts[d] + idx[d];
        }
        out.set_bits(&target, update.get_bits(idx));
    });
    Ok(Literal::Array(out))
}

/// `pad` (seed 004, Pad): operands `(operand, padding_value)`, `padding=low_high_interior x ...`.
/// Interior padding comes first (`interior` elements between neighbours), then edge padding
/// (`low` before index 0 and `high` after the last; negative values remove elements). Result
/// dimension `d` has `low + high + n + (n - 1) * interior` elements (`low + high` when `n = 0`);
/// result index `j` holds operand element `(j - low) / (interior + 1)` when `j - low` is a
/// non-negative multiple of `interior + 1` below `n * (interior + 1)`, else the padding value.
///
/// Errors: [`BackendError::Invalid`] for negative interior padding, a non-scalar padding value,
/// a padding value or result of another element type, or other result dimensions.
pub(crate) fn pad(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let value = array(instr, operands, 1)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    same_type(instr, "the padding value", value.element_type(), shape)?;
    if !value.dimensions().is_empty() {
        return invalid("pad: the padding value must be a scalar");
    }
    let Some(config) = instr.attr_padding("padding") else {
        return invalid("pad: missing `padding=low_high_interior x ...`");
    };
    let dims = operand.dimensions();
    if config.len() != dims.len() {
        return invalid(format!(
            "pad: {} padding dimensions for an operand of rank {}",
            config.len(),
            dims.len()
        ));
    }
    let mut sizes = Vec::with_capacity(dims.len());
    for (d, (p, &n)) in config.iter().zip(dims).enumerate() {
        if p.interior < 0 {
            return invalid(format!(
                "pad: dimension {d}: interior padding {} is negative",
                p.interior
            ));
        }
        let interior_padded = if n == 0 { 0 } else { n + (n - 1) * p.interior };
        let size = p.low + p.high + interior_padded;
        if size < 0 {
            return invalid(format!(
                "pad: dimension {d} of size {n} with padding {}_{}_{} has negative size {size}",
                p.low, p.high, p.interior
            ));
        }
        sizes.push(size);
    }
    expect_dims(instr, shape, &sizes)?;
    let fill = value.get_bits(&[]);
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut source = vec![0i64; dims.len()];
    index::for_each_index(&sizes, |idx| {
        let mut from_operand = true;
        for (d, p) in config.iter().enumerate() {
            let k = idx[d] - p.low;
            let step = p.interior + 1;
            if k < 0 || k % step != 0 || k / step >= dims[d] {
                from_operand = false;
                break;
            }
            source[d] = k / step;
        }
        let bits = if from_operand {
            operand.get_bits(&source)
        } else {
            fill
        };
        out.set_bits(idx, bits);
    });
    Ok(Literal::Array(out))
}

/// `concatenate` (seed 004, Concatenate): N >= 1 operands of one rank and element type, equal
/// in every dimension but `dimensions={d}`; the result holds them one after another along `d`,
/// in operand order.
///
/// Errors: [`BackendError::Invalid`] for no operands, a scalar operand, differing ranks, element
/// types or non-concatenated dimensions, `d` out of range, or other result dimensions.
pub(crate) fn concatenate(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let shape = result_array_shape(instr)?;
    let arrays: Vec<&ArrayLiteral> = (0..operands.len())
        .map(|i| array(instr, operands, i))
        .collect::<Result<_, _>>()?;
    let Some(first) = arrays.first() else {
        return invalid("concatenate: needs at least one operand");
    };
    let rank = first.dimensions().len();
    let d = match ints(instr, "dimensions")? {
        [d] => dimension(instr, "dimensions", *d, rank)?,
        other => {
            return invalid(format!(
                "concatenate: dimensions={other:?} must name one dimension"
            ))
        }
    };
    let mut sizes = first.dimensions().to_vec();
    sizes[d] = 0;
    for (i, a) in arrays.iter().enumerate() {
        same_type(instr, &format!("operand {i}"), a.element_type(), shape)?;
        let ok = a.dimensions().len() == rank
            && (0..rank).all(|k| k == d || a.dimensions()[k] == first.dimensions()[k]);
        if !ok {
            return invalid(format!(
                "concatenate: operand {i} {:?} differs from operand 0 {:?} outside dimension {d}",
                a.dimensions(),
                first.dimensions()
            ));
        }
        sizes[d] += a.dimensions()[d];
    }
    expect_dims(instr, shape, &sizes)?;
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut offset = 0;
    let mut target = vec![0i64; rank];
    for a in arrays {
        index::for_each_index(a.dimensions(), |idx| {
            target.copy_from_slice(idx);
            target[d] += offset;
            out.set_bits(&target, a.get_bits(idx));
        });
        offset += a.dimensions()[d];
    }
    Ok(Literal::Array(out))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use conformance_spec::literal::{ArrayLiteral, Literal};
    use conformance_spec::ElementType;

    fn f64s(a: &ArrayLiteral) -> Vec<f64> {
        a.to_f64s().unwrap()
    }

    #[test]
    fn strided_slice_under_layouts() {
        let a = numbered("s8[5,7]{0,1:P(6,9)}", |n| n as u128);
        let hlo = "HloModule m\nENTRY e {\n  p = s8[5,7]{0,1:P(6,9)} parameter(0)\n  ROOT r = s8[2,3]{0,1} slice(p), slice={[1:5:2], [0:7:3]}\n}\n";
        let r = run_array(hlo, &[a.into()]);
        let mut want = Vec::new();
        for i in [1i64, 3] {
            for j in [0i64, 3, 6] {
                want.push((i * 7 + j) as i128);
            }
        }
        assert_eq!(r.to_i128s().unwrap(), want);
    }

    #[test]
    fn dynamic_slice_clamps_signed_and_unsigned_starts() {
        // Seed 004 example: b = {{0..2},{3..5},{6..8},{9..11}}, s = {2, 1}, sizes {2, 2}.
        let b = ArrayLiteral::from_f64s(
            parse_shape_array("f32[4,3]{0,1}"),
            &(0..12).map(f64::from).collect::<Vec<_>>(),
        )
        .unwrap();
        let hlo = |ty: &str| {
            format!("HloModule m\nENTRY e {{\n  p = f32[4,3]{{0,1}} parameter(0)\n  i = {ty}[] parameter(1)\n  j = {ty}[] parameter(2)\n  ROOT r = f32[2,2]{{0,1:P(3,2)}} dynamic-slice(p, i, j), dynamic_slice_sizes={{2,2}}\n}}\n")
        };
        let s = |ty: ElementType, v: i128| {
            Literal::Array(ArrayLiteral::scalar_bits(
                ty,
                ty.integer_to_bits(v).unwrap() as u128,
            ))
        };
        let r = run_array(&hlo("s32"), &[b.clone().into(), s32(2), s32(1)]);
        assert_eq!(f64s(&r), vec![7., 8., 10., 11.]);
        // Clamping: (-5, 9) -> (0, 1); u8 255 stays large and clamps high (not -1).
        let r = run_array(&hlo("s32"), &[b.clone().into(), s32(-5), s32(9)]);
        assert_eq!(f64s(&r), vec![1., 2., 4., 5.]);
        let u = ElementType::U8;
        let r = run_array(&hlo("u8"), &[b.clone().into(), s(u, 255), s(u, 0)]);
        assert_eq!(f64s(&r), vec![6., 7., 9., 10.]);
        let i8t = ElementType::S8;
        let r = run_array(&hlo("s8"), &[b.into(), s(i8t, -1), s(i8t, 0)]);
        assert_eq!(f64s(&r), vec![0., 1., 3., 4.]);
    }

    #[test]
    fn dynamic_update_slice_clamps() {
        let b = numbered("c128[4,3]{0,1:P(5,3)}", |n| (n as u128) << 64 | 1);
        let u = numbered("c128[3,2]{0,1}", |n| 1000 + n as u128);
        let hlo = "HloModule m\nENTRY e {\n  p = c128[4,3]{0,1:P(5,3)} parameter(0)\n  u = c128[3,2]{0,1} parameter(1)\n  i = s64[] parameter(2)\n  j = s64[] parameter(3)\n  ROOT r = c128[4,3]{1,0} dynamic-update-slice(p, u, i, j)\n}\n";
        let s64 = |v: i64| {
            Literal::Array(ArrayLiteral::scalar_bits(
                ElementType::S64,
                v as u64 as u128,
            ))
        };
        // Start (7, 1) clamps to (1, 1) (seed 004's example placement).
        let r = run_array(hlo, &[b.clone().into(), u.clone().into(), s64(7), s64(1)]);
        for i in 0..4i64 {
            for j in 0..3i64 {
                let want = if i >= 1 && j >= 1 {
                    1000 + ((i - 1) * 2 + j - 1) as u128
                } else {
                    ((i * 3 + j) as u128) << 64 | 1
                };
                assert_eq!(r.get_bits(&[i, j]), want, "{i},{j}");
            }
        }
    }

    #[test]
    fn pad_negative_edges_and_interior() {
        // operand {1,2,3}, padding 1_-2_1: interior {1,0,2,0,3}, low 1 {9,1,0,2,0,3}, high -2 cut.
        let a = numbered("s8[2,3]{0,1:P(3,4)}", |n| n as u128 + 1);
        let hlo = "HloModule m\nENTRY e {\n  p = s8[2,3]{0,1:P(3,4)} parameter(0)\n  v = s8[] parameter(1)\n  ROOT r = s8[3,4]{0,1} pad(p, v), padding=0_1x1_-2_1\n}\n";
        let v = Literal::Array(ArrayLiteral::scalar_bits(ElementType::S8, 0xf7)); // -9
        let r = run_array(hlo, &[a.into(), v]);
        assert_eq!(
            r.to_i128s().unwrap(),
            vec![-9, 1, -9, 2, -9, 4, -9, 5, -9, -9, -9, -9]
        );
    }

    #[test]
    fn concatenate_along_each_dimension() {
        let a = numbered("pred[2,2]{0,1}", |n| (n % 2) as u128);
        let b = numbered("pred[2,1]", |_| 1);
        let hlo = "HloModule m\nENTRY e {\n  a = pred[2,2]{0,1} parameter(0)\n  b = pred[2,1] parameter(1)\n  ROOT r = pred[2,3]{0,1:P(3,3)} concatenate(a, b), dimensions={1}\n}\n";
        let r = run_array(hlo, &[a.clone().into(), b.into()]);
        assert_eq!(r.to_i128s().unwrap(), vec![0, 1, 1, 0, 1, 1]);
        let hlo = "HloModule m\nENTRY e {\n  a = pred[2,2]{0,1} parameter(0)\n  ROOT r = pred[4,2] concatenate(a, a), dimensions={0}\n}\n";
        let r = run_array(hlo, &[a.into()]);
        assert_eq!(r.to_i128s().unwrap(), vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }
}
