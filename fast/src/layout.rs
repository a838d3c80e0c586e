//! Physical layouts: strided copies between layouts (relayout, broadcast), padding fill and splats.
//!
//! Buffers are in *physical* order (seed 000, "Layout": `minor_to_major` and `padded_dimensions`).
//! A strided copy walks the destination in its own physical order — the most minor dimension
//! innermost, so writes are sequential — and gathers from the source through per-dimension strides
//! (a stride of 0 repeats a source element: that is how `broadcast` is done). Large copies are split
//! across threads along the destination's most major dimension.

use conformance_spec::index;
use conformance_spec::literal::{padding_bits, ArrayLiteral};
use conformance_spec::{ArrayShape, BackendError, Layout};
use rayon::prelude::*;

/// Element count from which a strided copy is split across threads.
const PARALLEL_COPY_ELEMENTS: usize = 1 << 16;

/// True when two shapes with the same dimensions place every element at the same physical
/// position in buffers of the same size (the padding *value* does not matter here): equal physical
/// widths and equal strides for every dimension of size > 1.
pub fn same_physical_layout(a: &ArrayShape, b: &ArrayShape) -> bool {
    if a.dimensions != b.dimensions
        || index::physical_dimensions(a) != index::physical_dimensions(b)
    {
        return false;
    }
    if a.layout.minor_to_major == b.layout.minor_to_major {
        return true;
    }
    let (sa, sb) = (index::strides(a), index::strides(b));
    a.dimensions
        .iter()
        .enumerate()
        .all(|(d, &size)| size <= 1 || sa[d] == sb[d])
}

/// Copies `src` (elements of `width` bytes, physical order of `src_shape`) into a new buffer laid
/// out as `dst_shape` (same dimensions; only its layout is used). Padding positions of the result
/// are zero bytes. `src_strides[d]` may be given to read through other strides (e.g. 0 for a
/// broadcast dimension); by default the source shape's strides.
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
    let rank = dst_shape.rank();
    if rank == 0 {
        dst.copy_from_slice(&src[..width]);
        return dst;
    }
    let dst_strides = index::strides(dst_shape);
    let m2m = minor_to_major(dst_shape);
    let major = m2m[rank - 1];
    let block = dst_strides[major] as usize * width; // bytes of one index of the major dimension
    let rows = dst_shape.dimensions[major] as usize;
    let job = |(i, chunk): (usize, &mut [u8])| {
        if i < rows {
            copy_block(
                src,
                chunk,
                width,
                src_strides,
                &dst_strides,
                dst_shape,
                &m2m[..rank - 1],
                i as i64 * src_strides[major],
            );
        }
    };
    if parallel && dst_shape.element_count() >= PARALLEL_COPY_ELEMENTS && rows > 1 {
        dst.par_chunks_mut(block).enumerate().for_each(job);
    } else {
        dst.chunks_mut(block).enumerate().for_each(job);
    }
    dst
}

/// Copies one block of the destination: the dimensions `dims_m2m` (minor first) below the major one.
#[allow(clippy::too_many_arguments)]
fn copy_block(
    src: &[u8],
    dst: &mut [u8],
    width: usize,
    src_strides: &[i64],
    dst_strides: &[i64],
    shape: &ArrayShape,
    dims_m2m: &[usize],
    src_base: i64,
) {
    match width {
        1 => copy_block_w::<1>(
            src,
            dst,
            src_strides,
            dst_strides,
            shape,
            dims_m2m,
            src_base,
        ),
        2 => copy_block_w::<2>(
            src,
            dst,
            src_strides,
            dst_strides,
            shape,
            dims_m2m,
            src_base,
        ),
        4 => copy_block_w::<4>(
            src,
            dst,
            src_strides,
            dst_strides,
            shape,
            dims_m2m,
            src_base,
        ),
        8 => copy_block_w::<8>(
            src,
            dst,
            src_strides,
            dst_strides,
            shape,
            dims_m2m,
            src_base,
        ),
        _ => copy_block_w::<16>(
            src,
            dst,
            src_strides,
            dst_strides,
            shape,
            dims_m2m,
            src_base,
        ),
    }
}

fn copy_block_w<const W: usize>(
    src: &[u8],
    dst: &mut [u8],
    src_strides: &[i64],
    dst_strides: &[i64],
    shape: &ArrayShape,
    dims_m2m: &[usize],
    src_base: i64,
) {
    if dims_m2m.is_empty() {
        let s = src_base as usize * W;
        dst[..W].copy_from_slice(&src[s..s + W]);
        return;
    }
    let inner = dims_m2m[0];
    let n_inner = shape.dimensions[inner] as usize;
    let s_inner = src_strides[inner];
    let d_inner = dst_strides[inner] as usize; // 1 when the minor dimension is innermost
    let outer = &dims_m2m[1..];
    let mut idx = vec![0i64; outer.len()];
    loop {
        let mut s = src_base;
        let mut d = 0usize;
        for (k, &dim) in outer.iter().enumerate() {
            s += idx[k] * src_strides[dim];
            d += idx[k] as usize * dst_strides[dim] as usize;
        }
        if s_inner == 1 && d_inner == 1 {
            let (a, b) = (s as usize * W, d * W);
            dst[b..b + n_inner * W].copy_from_slice(&src[a..a + n_inner * W]);
        } else {
            for j in 0..n_inner {
                let a = (s + j as i64 * s_inner) as usize * W;
                let b = (d + j * d_inner) * W;
                let e: [u8; W] = src[a..a + W].try_into().expect("W bytes");
                dst[b..b + W].copy_from_slice(&e);
            }
        }
        // Advance the odometer over the outer dimensions, minor first.
        let mut k = 0;
        loop {
            if k == outer.len() {
                return;
            }
            idx[k] += 1;
            if idx[k] < shape.dimensions[outer[k]] {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// The bytes of `src` laid out as `dst_shape` (same dimensions; the element type stays `src`'s).
/// Padding positions hold zero bytes; callers that return the buffer as a literal fill them.
pub fn relayout_bytes(src: &ArrayLiteral, dst_shape: &ArrayShape, parallel: bool) -> Vec<u8> {
    let width = src.element_type().byte_width();
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
