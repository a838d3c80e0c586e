//! Physical layouts: strided copies between layouts (relayout, broadcast), padding fill and splats.
//!
//! Buffers are in *physical* order (seed 000, "Layout": `minor_to_major` and `padded_dimensions`).
//! A strided copy walks the destination in its own physical order — the most minor dimension
//! innermost, so writes are sequential — and gathers from the source through per-dimension strides
//! (a stride of 0 repeats a source element: that is how `broadcast` is done). Large copies are split
//! across threads along the destination's most major dimension.

use crate::data_movement::plan::{self, Plan};
use crate::parallel::Par;
use crate::value::ArrayData;
use conformance_spec::index;
use conformance_spec::literal::{padding_bits, ArrayLiteral};
use conformance_spec::shape::slices_equal;
use conformance_spec::{ArrayShape, BackendError, Layout};

/// Element count from which a strided copy is split across threads.
const PARALLEL_COPY_ELEMENTS: usize = 1 << 16;

/// True when two shapes with the same dimensions place every element at the same physical
/// position in buffers of the same size (the padding *value* does not matter here): equal physical
/// widths and equal strides for every dimension of size > 1.
pub fn same_physical_layout(a: &ArrayShape, b: &ArrayShape) -> bool {
    if !a.same_dimensions(b)
        || !slices_equal(
            &index::physical_dimensions(a),
            &index::physical_dimensions(b),
        )
    {
        return false;
    }
    if slices_equal(&a.layout.minor_to_major, &b.layout.minor_to_major) {
        return true;
    }
    let (sa, sb) = (index::strides(a), index::strides(b));
    a.dimensions
        .iter()
        .enumerate()
        .all(|(d, &size)| size <= 1 || sa[d] == sb[d])
}

/// Copies `src` (elements of `width` bytes) into a new buffer laid out as `dst_shape`, result
/// dimension `d` reading source stride `src_strides[d]` (0 repeats an element: that is how
/// `broadcast` is done). Padding positions of the result are zero bytes. Runs through the copy
/// engine of [`crate::data_movement::plan`] (row `memcpy`s, cache-blocked tiles for transposed
/// layouts, threads along the result's most major dimension).
fn strided_copy(
    src: &[u8],
    width: usize,
    src_strides: &[i64],
    dst_shape: &ArrayShape,
    parallel: bool,
) -> Vec<u8> {
    let physical = index::physical_element_count(dst_shape);
    let mut dst = crate::alloc::zeroed(physical * width);
    if dst_shape.element_count() == 0 || physical == 0 {
        return dst;
    }
    let plan = Plan::strided(width, src, src_strides, dst_shape);
    plan::execute(
        &plan,
        dst_shape,
        &mut dst,
        Par::flag(parallel && dst_shape.element_count() >= PARALLEL_COPY_ELEMENTS),
    );
    dst
}

/// The bytes of a buffer of shape `src_shape` laid out as `dst_shape` (same dimensions and element
/// type), padding positions filled per `dst_shape`'s layout.
pub(crate) fn relayout_raw(
    src_shape: &ArrayShape,
    src: &[u8],
    dst_shape: &ArrayShape,
    parallel: bool,
) -> Vec<u8> {
    let width = src_shape.element_type.byte_width();
    let mut data = strided_copy(src, width, &index::strides(src_shape), dst_shape, parallel);
    fill_padding(dst_shape, &mut data);
    data
}

/// The bytes of `src` laid out as `dst_shape` (same dimensions; the element type stays `src`'s).
/// Padding positions hold zero bytes; callers that return the buffer as a literal fill them.
pub(crate) fn relayout_bytes(
    src: &impl ArrayData,
    dst_shape: &ArrayShape,
    parallel: bool,
) -> Vec<u8> {
    let width = src.shape().element_type.byte_width();
    strided_copy(
        src.data(),
        width,
        &index::strides(src.shape()),
        dst_shape,
        parallel,
    )
}

/// The same values in another layout, padding filled per the new layout's padding value
/// (a strided copy; cf. [`ArrayLiteral::relayout`], which goes element by element).
pub fn relayout(src: &ArrayLiteral, layout: &Layout, parallel: bool) -> ArrayLiteral {
    let shape = src.shape().clone().with_layout(layout.clone());
    let mut data = relayout_bytes(src, &shape, parallel);
    fill_padding(&shape, &mut data);
    ArrayLiteral::from_physical_bytes(shape, data).expect("relayout keeps the physical size")
}

/// HLO `broadcast`: operand dimension `i` becomes result dimension `dimensions[i]` (seed 004,
/// Broadcast / BroadcastInDim). Errors: a mapping that does not fit the shapes.
pub fn broadcast(
    src: &ArrayLiteral,
    dimensions: &[i64],
    result: &ArrayShape,
    parallel: bool,
) -> Result<ArrayLiteral, BackendError> {
    check_broadcast(src.shape(), dimensions, result)?;
    let mut strides = vec![0i64; result.rank()];
    let src_strides = index::strides(src.shape());
    for (i, &d) in dimensions.iter().enumerate() {
        if src.dimensions()[i] != 1 {
            strides[d as usize] = src_strides[i];
        }
    }
    let width = src.element_type().byte_width();
    let mut data = strided_copy(src.data(), width, &strides, result, parallel);
    fill_padding(result, &mut data);
    ArrayLiteral::from_physical_bytes(result.clone(), data)
        .map_err(|e| BackendError::Failure(format!("broadcast: {e}")))
}

/// Checks a broadcast's `dimensions=` against operand and result shapes.
pub fn check_broadcast(
    operand: &ArrayShape,
    dimensions: &[i64],
    result: &ArrayShape,
) -> Result<(), BackendError> {
    let bad = |why: String| {
        Err(BackendError::Invalid(format!(
            "broadcast of {operand} to {result} with dimensions={dimensions:?}: {why}"
        )))
    };
    if operand.element_type != result.element_type {
        return bad("element types differ".into());
    }
    if dimensions.len() != operand.rank() {
        return bad(format!(
            "{} dimensions for an operand of rank {}",
            dimensions.len(),
            operand.rank()
        ));
    }
    for (i, &d) in dimensions.iter().enumerate() {
        if d < 0 || d as usize >= result.rank() {
            return bad(format!("dimension {d} out of range"));
        }
        if i > 0 && dimensions[i - 1] >= d {
            return bad("dimensions must be strictly increasing".into());
        }
        let (a, b) = (operand.dimensions[i], result.dimensions[d as usize]);
        if a != b && a != 1 {
            return bad(format!(
                "operand dimension {i} has size {a}, result dimension {d} has size {b}"
            ));
        }
    }
    Ok(())
}

/// Writes the layout's padding value into every padding position of a physical buffer.
pub fn fill_padding(shape: &ArrayShape, data: &mut [u8]) {
    if !shape.layout.is_padded() {
        return;
    }
    let width = shape.element_type.byte_width();
    let bits = padding_bits(shape.element_type, shape.layout.padding_value);
    let pattern = &bits.to_le_bytes()[..width];
    let strides = index::strides(shape);
    let widths = index::physical_dimensions(shape);
    let m2m = minor_to_major(shape);
    let fill = |range: std::ops::Range<usize>, data: &mut [u8]| {
        for e in data[range.start * width..range.end * width].chunks_exact_mut(width) {
            e.copy_from_slice(pattern);
        }
    };
    #[allow(clippy::too_many_arguments)]
    fn rec(
        level: usize,
        offset: usize,
        shape: &ArrayShape,
        m2m: &[usize],
        strides: &[i64],
        widths: &[i64],
        data: &mut [u8],
        fill: &dyn Fn(std::ops::Range<usize>, &mut [u8]),
    ) {
        let d = m2m[level];
        let stride = strides[d] as usize;
        let size = shape.dimensions[d] as usize;
        let width = widths[d] as usize;
        if width > size {
            fill(offset + size * stride..offset + width * stride, data);
        }
        if level > 0 {
            for i in 0..size {
                rec(
                    level - 1,
                    offset + i * stride,
                    shape,
                    m2m,
                    strides,
                    widths,
                    data,
                    fill,
                );
            }
        }
    }
    if shape.rank() > 0 {
        rec(
            shape.rank() - 1,
            0,
            shape,
            &m2m,
            &strides,
            &widths,
            data,
            &fill,
        );
    }
}

/// An array of `shape` whose every element holds `bits` (padding per the layout).
pub fn splat(shape: ArrayShape, bits: u128) -> Result<ArrayLiteral, BackendError> {
    let width = shape.element_type.byte_width();
    let physical = index::physical_element_count(&shape);
    let mut data = crate::alloc::zeroed(physical * width);
    if bits != 0 {
        let pattern = &bits.to_le_bytes()[..width];
        for e in data.chunks_exact_mut(width) {
            e.copy_from_slice(pattern);
        }
    }
    fill_padding(&shape, &mut data);
    ArrayLiteral::from_physical_bytes(shape, data)
        .map_err(|e| BackendError::Failure(format!("splat: {e}")))
}

/// The layout's `minor_to_major` as indices (most minor dimension first).
fn minor_to_major(shape: &ArrayShape) -> Vec<usize> {
    shape
        .layout
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::{ElementType, PaddingValue};

    fn iota(shape: ArrayShape) -> ArrayLiteral {
        let n = shape.element_count();
        ArrayLiteral::from_i128s(shape, &(0..n as i128).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn relayout_matches_element_by_element_relayout() {
        let shape = ArrayShape::new(ElementType::S32, vec![2, 3, 4]);
        let a = iota(shape);
        for m2m in [vec![0, 1, 2], vec![1, 0, 2], vec![2, 0, 1]] {
            let layout =
                Layout::new(m2m.clone()).with_padding(vec![3, 4, 5], PaddingValue::Highest);
            let fast = relayout(&a, &layout, false);
            let slow = a.relayout(layout.clone());
            assert_eq!(fast, slow, "{m2m:?}");
            let back = relayout(&fast, &Layout::default_for_rank(3), true);
            assert_eq!(back, a);
        }
    }

    #[test]
    fn fill_padding_matches_literal_fill_padding() {
        let shape = ArrayShape::new(ElementType::F32, vec![2, 3])
            .with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Lowest));
        let mut mine = vec![0u8; 15 * 4];
        fill_padding(&shape, &mut mine);
        let lit = ArrayLiteral::zeros(shape);
        assert_eq!(mine, lit.data());
    }

    #[test]
    fn broadcast_maps_dimensions() {
        // f32[3] {0,1,2} broadcast to [2,3] with dimensions={1}: rows repeat.
        let v = iota(ArrayShape::new(ElementType::S32, vec![3]));
        let out = ArrayShape::new(ElementType::S32, vec![2, 3]);
        let b = broadcast(&v, &[1], &out, false).unwrap();
        assert_eq!(b.to_i128s().unwrap(), vec![0, 1, 2, 0, 1, 2]);
        let b = broadcast(
            &v,
            &[0],
            &ArrayShape::new(ElementType::S32, vec![3, 2]),
            false,
        )
        .unwrap();
        assert_eq!(b.to_i128s().unwrap(), vec![0, 0, 1, 1, 2, 2]);
        assert!(broadcast(&v, &[0], &out, false).is_err());
    }

    #[test]
    fn splat_fills_padding() {
        let shape = ArrayShape::new(ElementType::S8, vec![2])
            .with_layout(Layout::new(vec![0]).with_padding(vec![3], PaddingValue::One));
        let s = splat(shape, 7).unwrap();
        assert_eq!(s.data(), &[7, 7, 1]);
    }
}
