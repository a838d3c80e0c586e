//! Data movement (seed 004): broadcast, reshape, transpose, slice, dynamic-slice,
//! dynamic-update-slice, concatenate, pad, reverse, iota, get-/set-dimension-size, copy, tuple,
//! get-tuple-element.

use super::rules::{braces, check_dimension_list, Rules};
use super::{InferenceContext, ShapeInferenceError};
use crate::element_type::ElementType;
use crate::hlo::ir::{AttrValue, PaddingDim, SliceDim};
use crate::shape::{ArrayShape, Shape};

/// Checks HLO `broadcast`: `dimensions` has one entry per operand dimension, each a distinct
/// output dimension whose size equals the operand dimension's (degenerate dimensions are expanded
/// by a `reshape` first, as XlaBuilder does).
pub fn check_broadcast(x: &ArrayShape, out: &[i64], dimensions: &[i64]) -> Result<(), String> {
    if dimensions.len() != x.rank() {
        return Err(format!(
            "dimensions={dimensions:?} has {} entries for an operand of rank {}",
            dimensions.len(),
            x.rank()
        ));
    }
    let mut used = vec![false; out.len()];
    for (i, &d) in dimensions.iter().enumerate() {
        let Some(slot) = usize::try_from(d).ok().filter(|&d| d < out.len()) else {
            return Err(format!(
                "dimension {d} is out of range for output rank {}",
                out.len()
            ));
        };
        if std::mem::replace(&mut used[slot], true) {
            return Err(format!(
                "output dimension {d} appears twice in dimensions={dimensions:?}"
            ));
        }
        if out[slot] != x.dimensions[i] {
            return Err(format!(
                "operand dimension {i} (size {}) maps to output dimension {d} of size {}",
                x.dimensions[i], out[slot]
            ));
        }
    }
    Ok(())
}

/// The result dimensions of `slice` (seed 004, Slice): per dimension
/// `ceil((limit − start) / stride)` elements.
///
/// Errors: a number of entries other than the rank; `start < 0`, `limit < start`,
/// `limit > size`, or `stride < 1`.
pub fn slice_dimensions(dims: &[i64], slice: &[SliceDim]) -> Result<Vec<i64>, String> {
    if slice.len() != dims.len() {
        return Err(format!(
            "slice has {} entries for an operand of rank {}",
            slice.len(),
            dims.len()
        ));
    }
    let mut out = Vec::with_capacity(dims.len());
    for (d, (s, &size)) in slice.iter().zip(dims).enumerate() {
        if s.start < 0 {
            return Err(format!(
                "start index {} of dimension {d} must be non-negative",
                s.start
            ));
        }
        if s.limit < s.start {
            return Err(format!(
                "limit index {} of dimension {d} is less than the start index {}",
                s.limit, s.start
            ));
        }
        if s.limit > size {
            return Err(format!(
                "limit index {} of dimension {d} exceeds the dimension size {size}",
                s.limit
            ));
        }
        if s.stride < 1 {
            return Err(format!(
                "stride {} of dimension {d} must be positive",
                s.stride
            ));
        }
        out.push((s.limit - s.start + s.stride - 1) / s.stride);
    }
    Ok(out)
}

/// The result dimensions of `pad` (seed 004, Pad): per dimension
/// `low + high + size + max(size − 1, 0) · interior` elements (negative edge padding removes
/// elements, after interior padding).
///
/// Errors: a number of entries other than the rank; negative interior padding; a negative result
/// size; overflow.
pub fn pad_dimensions(dims: &[i64], padding: &[PaddingDim]) -> Result<Vec<i64>, String> {
    if padding.len() != dims.len() {
        return Err(format!(
            "padding has {} entries for an operand of rank {}",
            padding.len(),
            dims.len()
        ));
    }
    let mut out = Vec::with_capacity(dims.len());
    for (d, (p, &size)) in padding.iter().zip(dims).enumerate() {
        if p.interior < 0 {
            return Err(format!(
                "interior padding {} of dimension {d} must be non-negative",
                p.interior
            ));
        }
        let n = (size.max(1) - 1)
            .checked_mul(p.interior)
            .and_then(|i| i.checked_add(size))
            .and_then(|n| n.checked_add(p.low))
            .and_then(|n| n.checked_add(p.high))
            .ok_or_else(|| format!("the size of dimension {d} overflows"))?;
        if n < 0 {
            return Err(format!(
                "dimension {d} of size {size} padded by {}_{}_{} has negative size {n}",
                p.low, p.high, p.interior
            ));
        }
        out.push(n);
    }
    Ok(out)
}

/// `broadcast`, output dimensions from the context.
pub(super) fn broadcast(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let out = context
        .result_dimensions
        .ok_or(ShapeInferenceError::MissingContext {
            opcode: r.opcode,
            what: "the output dimensions",
        })?;
    if let Some(&d) = out.iter().find(|&&d| d < 0) {
        return Err(r.attr_error(format!("output dimension size {d} is negative")));
    }
    let dims = r.ints_attr("dimensions")?;
    check_broadcast(x, out, dims).map_err(|m| r.attr_error(m))?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, out.to_vec()))
}

/// `reshape`, new dimensions from the context (seed 004, Reshape: the product of the new sizes
/// equals the operand's element count).
pub(super) fn reshape(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let out = context
        .result_dimensions
        .ok_or(ShapeInferenceError::MissingContext {
            opcode: r.opcode,
            what: "the new dimensions",
        })?;
    let count = |d: &[i64]| {
        d.iter().try_fold(
            1i64,
            |acc, &v| if v < 0 { None } else { acc.checked_mul(v) },
        )
    };
    match (count(&x.dimensions), count(out)) {
        (Some(a), Some(b)) if a == b => {
            r.types_ok(x.element_type, x.element_type)?;
            Ok(Shape::array(x.element_type, out.to_vec()))
        }
        _ => Err(r.operand_error(format!(
            "cannot reshape {:?} to {out:?}: element counts differ",
            x.dimensions
        ))),
    }
}

/// `transpose`, `dimensions=` a permutation: output dimension `i` is operand dimension
/// `dimensions[i]` (seed 004, Transpose).
pub(super) fn transpose(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let perm = r.ints_attr("dimensions")?;
    if perm.len() != x.rank() {
        return Err(r.attr_error(format!(
            "dimensions={} must be a permutation of the {} operand dimensions",
            braces(perm),
            x.rank()
        )));
    }
    check_dimension_list("dimensions", perm, x.rank(), false).map_err(|m| r.attr_error(m))?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(
        x.element_type,
        perm.iter().map(|&p| x.dimensions[p as usize]).collect(),
    ))
}

/// `slice`, `slice={[start:limit:stride], ...}` (see [`slice_dimensions`]).
pub(super) fn slice(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let dims = match r.attr("slice") {
        Some(AttrValue::Slice(s)) => slice_dimensions(&x.dimensions, s),
        Some(v) => return Err(r.attr_error(format!("`slice={v}` is not a slice"))),
        None if x.is_scalar() => Ok(vec![]),
        None => return Err(r.attr_error("missing `slice=`".into())),
    }
    .map_err(|m| r.attr_error(m))?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, dims))
}

/// Checks the start indices of `dynamic-slice` / `dynamic-update-slice` (seed 004): `rank`
/// integer scalars of one type, or (the older form the seed also describes) one rank-1 integer
/// array of `rank` elements.
fn check_start_indices(
    r: &Rules,
    starts: &[&Shape],
    first: usize,
    rank: usize,
) -> Result<(), ShapeInferenceError> {
    let arrays: Vec<&ArrayShape> = starts
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.as_array().ok_or_else(|| {
                r.operand_error(format!(
                    "operand {} (a start index) must be an array, got `{s}`",
                    first + i
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    for (i, a) in arrays.iter().enumerate() {
        if !a.element_type.is_integer() {
            return Err(r.operand_error(format!(
                "start index operand {} must be of an integer type, got {}",
                first + i,
                a.element_type
            )));
        }
        if a.element_type != arrays[0].element_type {
            return Err(r.operand_error(format!(
                "start indices must all have one type: operand {} is {}, operand {first} is {}",
                first + i,
                a.element_type,
                arrays[0].element_type
            )));
        }
    }
    let vector_form = arrays.len() == 1 && arrays[0].rank() == 1;
    if vector_form && rank != 1 {
        if arrays[0].dimensions[0] != rank as i64 {
            return Err(r.operand_error(format!(
                "the start index vector has {} elements for an operand of rank {rank}",
                arrays[0].dimensions[0]
            )));
        }
        return Ok(());
    }
    if vector_form && arrays[0].dimensions[0] == 1 {
        return Ok(());
    }
    if arrays.len() != rank {
        return Err(r.operand_error(format!(
            "{} start index operand(s) for an operand of rank {rank} (one scalar per dimension)",
            arrays.len()
        )));
    }
    if let Some(i) = arrays.iter().position(|a| !a.is_scalar()) {
        return Err(r.operand_error(format!(
            "start index operand {} must be a scalar, got {}",
            first + i,
            arrays[i]
        )));
    }
    Ok(())
}

/// `dynamic-slice(operand, start_0, ...)`, `dynamic_slice_sizes={...}` (seed 004, DynamicSlice:
/// each size greater than 0 and at most the dimension's size).
pub(super) fn dynamic_slice(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let Some((first, starts)) = r.operands.split_first() else {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "1 + rank",
            got: 0,
        });
    };
    let x = first
        .as_array()
        .ok_or_else(|| r.operand_error(format!("operand 0 must be an array, got `{first}`")))?;
    check_start_indices(r, starts, 1, x.rank())?;
    let sizes = r.ints_attr("dynamic_slice_sizes")?;
    if sizes.len() != x.rank() {
        return Err(r.attr_error(format!(
            "dynamic_slice_sizes={} has {} entries for an operand of rank {}",
            braces(sizes),
            sizes.len(),
            x.rank()
        )));
    }
    for (d, (&s, &n)) in sizes.iter().zip(&x.dimensions).enumerate() {
        if s <= 0 || s > n {
            return Err(r.attr_error(format!(
                "dynamic_slice_sizes[{d}] = {s} must be greater than 0 and at most the dimension size {n}"
            )));
        }
    }
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, sizes.to_vec()))
}

/// `dynamic-update-slice(operand, update, start_0, ...)` (seed 004, DynamicUpdateSlice: each
/// update dimension greater than 0 and at most the operand's).
pub(super) fn dynamic_update_slice(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    if r.operands.len() < 2 {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "2 + rank",
            got: r.operands.len(),
        });
    }
    let mut arrays = Vec::new();
    for (i, s) in r.operands[..2].iter().enumerate() {
        arrays.push(
            s.as_array().ok_or_else(|| {
                r.operand_error(format!("operand {i} must be an array, got `{s}`"))
            })?,
        );
    }
    let (x, update) = (arrays[0], arrays[1]);
    r.same_type(x, update, "operand", "update")?;
    if update.rank() != x.rank() {
        return Err(r.operand_error(format!(
            "update has rank {}, the operand rank {}",
            update.rank(),
            x.rank()
        )));
    }
    for (d, (&u, &n)) in update.dimensions.iter().zip(&x.dimensions).enumerate() {
        if u <= 0 || u > n {
            return Err(r.operand_error(format!(
                "update dimension {d} has size {u}; it must be greater than 0 and at most the operand's size {n}"
            )));
        }
    }
    check_start_indices(r, &r.operands[2..], 2, x.rank())?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, x.dimensions.clone()))
}

/// The single dimension number of `dimensions={d}`, checked against `rank`.
fn single_dimension(r: &Rules, rank: usize) -> Result<usize, ShapeInferenceError> {
    let dims = r.ints_attr("dimensions")?;
    let [d] = dims else {
        return Err(r.attr_error(format!(
            "dimensions={} must name exactly one dimension",
            braces(dims)
        )));
    };
    usize::try_from(*d)
        .ok()
        .filter(|&d| d < rank)
        .ok_or_else(|| {
            r.attr_error(format!(
                "dimension {d} is out of range [0, {rank}) for an operand of rank {rank}"
            ))
        })
}

/// `concatenate(operands...)`, `dimensions={d}` (seed 004, Concatenate: N ≥ 1 arrays of one
/// element type and rank ≥ 1, equal in every dimension but `d`).
pub(super) fn concatenate(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    if r.operands.is_empty() {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "at least 1",
            got: 0,
        });
    }
    let mut arrays = Vec::new();
    for (i, s) in r.operands.iter().enumerate() {
        arrays.push(
            s.as_array().ok_or_else(|| {
                r.operand_error(format!("operand {i} must be an array, got `{s}`"))
            })?,
        );
    }
    let x = arrays[0];
    if x.is_scalar() {
        return Err(r.operand_error(
            "rank-0 operands cannot be concatenated (there is no dimension to join)".into(),
        ));
    }
    let d = single_dimension(r, x.rank())?;
    let mut out = x.dimensions.clone();
    for (i, y) in arrays.iter().enumerate().skip(1) {
        r.same_type(x, y, "operand 0", &format!("operand {i}"))?;
        let same_elsewhere = y.rank() == x.rank()
            && (0..x.rank()).all(|k| k == d || y.dimensions[k] == x.dimensions[k]);
        if !same_elsewhere {
            return Err(r.operand_error(format!(
                "operand {i} has dimensions {:?}; operand 0 has {:?}; they may differ only in dimension {d}",
                y.dimensions, x.dimensions
            )));
        }
        out[d] = out[d]
            .checked_add(y.dimensions[d])
            .ok_or_else(|| r.operand_error("the concatenated size overflows".into()))?;
    }
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, out))
}

/// `pad(operand, padding_value)`, `padding=low_high_interior x ...` (seed 004, Pad; see
/// [`pad_dimensions`]). The padding value is a scalar of the operand's type.
pub(super) fn pad(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x, value] = r.arrays::<2>("2")?;
    if !value.is_scalar() {
        return Err(r.operand_error(format!("the padding value must be a scalar, got {value}")));
    }
    r.same_type(x, value, "operand", "padding value")?;
    let dims = match r.attr("padding") {
        Some(AttrValue::Padding(p)) => pad_dimensions(&x.dimensions, p),
        Some(v) => return Err(r.attr_error(format!("`padding={v}` is not a padding config"))),
        None if x.is_scalar() => Ok(vec![]),
        None => return Err(r.attr_error("missing `padding=`".into())),
    }
    .map_err(|m| r.attr_error(m))?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, dims))
}

/// `reverse`, `dimensions={...}`: distinct dimension numbers of the operand (seed 004, Rev).
pub(super) fn reverse(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let dims = r.ints_attr("dimensions")?;
    check_dimension_list("dimensions", dims, x.rank(), false).map_err(|m| r.attr_error(m))?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, x.dimensions.clone()))
}

/// `iota()`, `iota_dimension=d`: the shape is the declared one (context `given`), an array of
/// rank ≥ 1 with `d` in `[0, rank)` and a numeric element type (integer, floating-point or
/// complex; seed 004, Iota: floating-point iota is the conversion of an integer iota).
pub(super) fn iota(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    r.exactly::<0>("0")?;
    let given = context.given.ok_or(ShapeInferenceError::MissingContext {
        opcode: r.opcode,
        what: "the result shape",
    })?;
    let Some(s) = given.as_array() else {
        return Err(r.operand_error(format!("the result must be an array, got `{given}`")));
    };
    let d = r.int_attr("iota_dimension")?;
    if d < 0 || d as usize >= s.rank() {
        return Err(r.attr_error(format!(
            "iota_dimension {d} is out of range [0, {}) for shape {}",
            s.rank(),
            s
        )));
    }
    let t = s.element_type;
    if !(t.is_integer() || t.is_floating()) {
        return Err(r.type_error(format!(
            "iota needs an integer, floating-point or complex element type, got {t}"
        )));
    }
    r.types_ok(t, t)?;
    Ok(Shape::array(t, s.dimensions.clone()))
}

/// `get-dimension-size(operand)`, `dimensions={d}` (seed 004, GetDimensionSize): an `s32[]`.
pub(super) fn get_dimension_size(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    single_dimension(r, x.rank())?;
    r.types_ok(x.element_type, ElementType::S32)?;
    Ok(Shape::array(ElementType::S32, vec![]))
}

/// `set-dimension-size(operand, size)`, `dimensions={d}` (seed 004, SetDimensionSize): `size`
/// is an `s32[]`; the result is the operand's shape with dimension `d` dynamic, bounded by the
/// operand's size.
pub(super) fn set_dimension_size(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x, size] = r.arrays::<2>("2")?;
    if size.element_type != ElementType::S32 || !size.is_scalar() {
        return Err(r.operand_error(format!("the size must be an s32 scalar, got {size}")));
    }
    let d = single_dimension(r, x.rank())?;
    let mut out = ArrayShape::new(x.element_type, x.dimensions.clone());
    out.dynamic_dimensions.clone_from(&x.dynamic_dimensions);
    out.dynamic_dimensions.resize(x.rank(), false);
    out.dynamic_dimensions[d] = true;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::Array(out))
}

/// `copy(operand)`: the operand's shape (any shape; a layout-changing copy declares another
/// layout, which verification does not compare).
pub(super) fn copy(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.exactly::<1>("1")?;
    if let Some(a) = x.as_array() {
        r.types_ok(a.element_type, a.element_type)?;
    }
    Ok(x.clone())
}

/// `get-tuple-element(tuple)`, `index=i`.
pub(super) fn get_tuple_element(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [t] = r.exactly::<1>("1")?;
    let Shape::Tuple(elements) = t else {
        return Err(r.operand_error(format!("the operand must be a tuple, got `{t}`")));
    };
    let i = r.int_attr("index")?;
    usize::try_from(i)
        .ok()
        .and_then(|i| elements.get(i))
        .cloned()
        .ok_or_else(|| {
            r.attr_error(format!(
                "index {i} is out of range for a {}-tuple",
                elements.len()
            ))
        })
}
