//! Slice (with strides), DynamicSlice, DynamicUpdateSlice (start indices clamped), ConcatInDim,
//! Pad (negative edge padding, interior padding) (seed 004).

use super::{array, ints, Gen};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{AttrValue, Attribute, Opcode, PaddingDim, SliceDim};

/// Slice with random starts, limits and strides (1–3).
pub(super) fn slice(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    let mut spans = Vec::with_capacity(dims.len());
    let mut out = Vec::with_capacity(dims.len());
    for &d in &dims {
        let start = g.rng.range_i64(0, d);
        let limit = g.rng.range_i64(start, d);
        let stride = g.rng.range_i64(1, 3);
        out.push((limit - start + stride - 1) / stride);
        spans.push(SliceDim {
            start,
            limit,
            stride,
        });
    }
    g.add(
        Opcode::Slice,
        array(ty, &out),
        vec![x],
        vec![Attribute {
            name: "slice".into(),
            value: AttrValue::Slice(spans),
        }],
    )
}

/// One scalar start-index parameter per dimension, all of one index type, for windows `sizes`.
fn starts(g: &mut Gen, dims: &[i64], sizes: &[i64]) -> Result<Vec<usize>, String> {
    let t = g.index_type();
    dims.iter()
        .zip(sizes)
        .map(|(&d, &s)| {
            let v = g.start_index(d, s);
            g.index_param(t, &[], &[v])
        })
        .collect()
}

/// Dimensions of at least 1 (seed 004: dynamic-slice sizes and update dimensions are > 0) and
/// window sizes in [1, dimension].
fn windows(g: &mut Gen) -> (Vec<i64>, Vec<i64>) {
    let dims: Vec<i64> = g.dims(0).into_iter().map(|d| d.max(1)).collect();
    let sizes = dims.iter().map(|&d| g.rng.range_i64(1, d)).collect();
    (dims, sizes)
}

/// DynamicSlice with window sizes up to the operand's and starts sometimes out of range.
pub(super) fn dynamic_slice(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let (dims, sizes) = windows(g);
    let x = g.data(ty, &dims)?;
    let mut operands = vec![x];
    operands.extend(starts(g, &dims, &sizes)?);
    g.add(
        Opcode::DynamicSlice,
        array(ty, &sizes),
        operands,
        vec![ints("dynamic_slice_sizes", &sizes)],
    )
}

/// DynamicUpdateSlice with an update up to the operand's size and starts sometimes out of range.
pub(super) fn dynamic_update_slice(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let (dims, sizes) = windows(g);
    let x = g.data(ty, &dims)?;
    let update = g.data(ty, &sizes)?;
    let mut operands = vec![x, update];
    operands.extend(starts(g, &dims, &sizes)?);
    g.add(
        Opcode::DynamicUpdateSlice,
        array(ty, &dims),
        operands,
        vec![],
    )
}

/// ConcatInDim of 1–4 operands that differ only in the concatenated dimension.
pub(super) fn concatenate(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let d = g.rng.below(dims.len() as u64) as usize;
    let n = 1 + g.rng.below(4) as usize;
    let mut operands = Vec::with_capacity(n);
    let mut total = 0;
    for _ in 0..n {
        let mut part = dims.clone();
        part[d] = g.rng.range_i64(0, 4);
        total += part[d];
        operands.push(g.data(ty, &part)?);
    }
    let mut out = dims;
    out[d] = total;
    g.add(
        Opcode::Concatenate,
        array(ty, &out),
        operands,
        vec![ints("dimensions", &[d as i64])],
    )
}

/// Pad with edge padding in [-2, 3] (never removing more than there is) and interior padding
/// in [0, 2].
pub(super) fn pad(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    let value = g.data(ty, &[])?;
    let mut config = Vec::with_capacity(dims.len());
    let mut out = Vec::with_capacity(dims.len());
    for &d in &dims {
        let interior = g.rng.range_i64(0, 2);
        let base = d + (d - 1).max(0) * interior;
        let low = g.rng.range_i64(-(base.min(2)), 3);
        let high = g.rng.range_i64(-((base + low).min(2)), 3);
        out.push(base + low + high);
        config.push(PaddingDim {
            low,
            high,
            interior,
        });
    }
    g.add(
        Opcode::Pad,
        array(ty, &out),
        vec![x, value],
        vec![Attribute {
            name: "padding".into(),
            value: AttrValue::Padding(config),
        }],
    )
}
