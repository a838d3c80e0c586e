//! Contractions and gathers (seed 004: DotGeneral, Dot, ConvWithGeneralPadding, Gather): the
//! inverse of the printer's `contraction.rs` and of its `gather` in `indexing.rs`.
//!
//! - `dot_general` with `#stablehlo.dot<...>` → `dot` with the four dimension lists (the
//!   result dimensions are batch, lhs free, rhs free in both); `dot` (deprecated in StableHLO)
//!   → `dot` contracting the lhs's last dimension with the rhs's first, as XLA's `Dot`;
//!   `precision_config` is an annotation, `algorithm` (which changes the numerics) is refused;
//! - `convolution` → `convolution` with `dim_labels`, the window (sizes from the kernel's spatial
//!   dimensions, `lhs_dilation` → `lhs_dilate`, `rhs_dilation` → `rhs_dilate`,
//!   `window_reversal` → `rhs_reversal`) and group counts;
//! - `gather` → `gather`; batching dimensions, which the IR does not model, become indexed
//!   dimensions (see [`batched_indices`]).

use super::attrs::{bool_list, int_list, Attr};
use super::lower::{attr, int_attr, ints_attr, Binding, LResult, Lowering, Scope};
use super::ops::{
    array_rank, base_name, field_int, field_ints, operands_n, opt_bool, opt_int, padding_pairs,
    req_ints, single, struct_fields,
};
use super::syntax::Op;
use crate::hlo::contraction_numbers::{DotDimensionNumbers, Window, WindowDimension};
use crate::hlo::ir::{AttrValue, Opcode};
use crate::shape::Shape;

/// `dot_general` or `dot`.
pub(crate) fn dot(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    if op.name == "stablehlo.dot" {
        l.check_attributes(op, &[])?;
        let operands = operands_n(l, s, op, 2)?;
        let rank = array_rank(l, s, op, operands[0])?;
        let attrs = DotDimensionNumbers::for_dot(rank).to_attributes();
        return single(l, s, op, Opcode::Dot, operands, attrs);
    }
    l.check_attributes(op, &["dot_dimension_numbers"])?;
    let operands = operands_n(l, s, op, 2)?;
    let at = op.attr_pos("dot_dimension_numbers");
    let fields = match op.attr("dot_dimension_numbers") {
        Some(Attr::Struct(_, f)) => f,
        _ => {
            return Err(l.err(
                at,
                "`dot_general` needs `dot_dimension_numbers = #stablehlo.dot<...>`",
            ))
        }
    };
    let list = |name: &str| -> LResult<Vec<i64>> {
        match fields.iter().find(|(k, _)| k == name) {
            None => Ok(Vec::new()),
            Some((_, v)) => {
                int_list(v).ok_or_else(|| l.err(at, format!("`{name}` is not a list of integers")))
            }
        }
    };
    let d = DotDimensionNumbers {
        lhs_batch_dimensions: list("lhs_batching_dimensions")?,
        rhs_batch_dimensions: list("rhs_batching_dimensions")?,
        lhs_contracting_dimensions: list("lhs_contracting_dimensions")?,
        rhs_contracting_dimensions: list("rhs_contracting_dimensions")?,
    };
    if let Some((k, _)) = fields.iter().find(|(k, _)| !k.ends_with("_dimensions")) {
        return Err(l.err(at, format!("dot dimension field `{k}` has no translation")));
    }
    single(l, s, op, Opcode::Dot, operands, d.to_attributes())
}

/// `gather`: the dimension numbers, `slice_sizes` and `indices_are_sorted`.
pub(crate) fn gather(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(
        op,
        &["dimension_numbers", "slice_sizes", "indices_are_sorted"],
    )?;
    let operands = operands_n(l, s, op, 2)?;
    let at = op.attr_pos("dimension_numbers");
    let f = struct_fields(l, op, "dimension_numbers")?;
    let mut collapsed = field_ints(l, at, f, "collapsed_slice_dims")?;
    let mut start_index_map = field_ints(l, at, f, "start_index_map")?;
    let mut index_vector_dim = field_int(l, at, f, "index_vector_dim")?;
    let operand_batching = field_ints(l, at, f, "operand_batching_dims")?;
    let indices_batching = field_ints(l, at, f, "start_indices_batching_dims")?;
    let mut indices = operands[1];
    if !operand_batching.is_empty() || !indices_batching.is_empty() {
        (indices, index_vector_dim) =
            batched_indices(l, s, op, indices, index_vector_dim, &indices_batching)?;
        start_index_map.extend(&operand_batching);
        collapsed.extend(&operand_batching);
        collapsed.sort_unstable();
    }
    let mut attrs = vec![
        ints_attr("offset_dims", &field_ints(l, at, f, "offset_dims")?),
        ints_attr("collapsed_slice_dims", &collapsed),
        ints_attr("start_index_map", &start_index_map),
        int_attr("index_vector_dim", index_vector_dim),
        ints_attr("slice_sizes", &req_ints(l, op, "slice_sizes")?),
    ];
    // Sortedness is a promise about the given indices; appended batch components can break it.
    if opt_bool(l, op, "indices_are_sorted", false)? && operand_batching.is_empty() {
        attrs.push(attr("indices_are_sorted", AttrValue::Bool(true)));
    }
    single(l, s, op, Opcode::Gather, vec![operands[0], indices], attrs)
}

/// Gather and scatter batching dimensions (`operand_batching_dims` paired with
/// `start_indices_batching_dims`; `input_batching_dims` with `scatter_indices_batching_dims`),
/// which the IR does not model, rewritten exactly as XLA's `BatchedGatherScatterNormalizer`
/// does: for each batching dimension `d` of the indices, an `iota` along `d` (the index of the
/// batch element) is appended as one more component of every index vector, so that the
/// operand's batching dimension becomes an ordinary indexed and collapsed (inserted) dimension
/// of size 1 whose start index is the batch index — the element of the same batch.
///
/// Returns the new indices and index vector dimension (an implicit trailing index vector
/// dimension becomes an explicit one of size 1 first).
///
/// Errors: a batching dimension out of range or equal to the index vector dimension, or a
/// batch larger than the index type can count.
pub(crate) fn batched_indices(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    indices: usize,
    index_vector_dim: i64,
    batching: &[i64],
) -> LResult<(usize, i64)> {
    let Shape::Array(mut shape) = s.shape(indices) else {
        return Err(l.err(op.pos, "the indices are not an array"));
    };
    let base = base_name(op);
    let mut indices = indices;
    let rank = shape.rank() as i64;
    if index_vector_dim == rank {
        shape.dimensions.push(1);
        shape.dynamic_dimensions.push(false);
        shape.layout = crate::layout::Layout::default_for_rank(shape.rank());
        indices = l.add(
            s,
            Opcode::Reshape,
            Shape::Array(shape.clone()),
            vec![indices],
            Vec::new(),
            &format!("{base}.indices"),
            op.pos,
        )?;
    }
    let ivd = usize::try_from(index_vector_dim)
        .ok()
        .filter(|&d| d < shape.rank())
        .ok_or_else(|| {
            l.err(
                op.pos,
                format!("index_vector_dim {index_vector_dim} is out of range"),
            )
        })?;
    let mut iota_shape = shape.clone();
    iota_shape.dimensions[ivd] = 1;
    let mut parts = vec![indices];
    for &d in batching {
        let du = usize::try_from(d)
            .ok()
            .filter(|&x| x < shape.rank() && x != ivd)
            .ok_or_else(|| {
                l.err(
                    op.pos,
                    format!("batching dimension {d} of the indices is out of range"),
                )
            })?;
        let fits = shape
            .element_type
            .integer_range()
            .is_some_and(|(_, hi)| i128::from(shape.dimensions[du]) - 1 <= hi);
        if !fits {
            return Err(l.err(
                op.pos,
                format!(
                    "a batch of {} does not fit the index type {}",
                    shape.dimensions[du], shape.element_type
                ),
            ));
        }
        let iota = l.add(
            s,
            Opcode::Iota,
            Shape::Array(iota_shape.clone()),
            Vec::new(),
            vec![int_attr("iota_dimension", d)],
            &format!("{base}.batch{d}"),
            op.pos,
        )?;
        parts.push(iota);
    }
    let mut out_shape = shape.clone();
    out_shape.dimensions[ivd] += batching.len() as i64;
    let joined = l.add(
        s,
        Opcode::Concatenate,
        Shape::Array(out_shape),
        parts,
        vec![ints_attr("dimensions", &[ivd as i64])],
        &format!("{base}.batched_indices"),
        op.pos,
    )?;
    Ok((joined, ivd as i64))
}

/// `convolution`: dimension numbers, the window (sizes from the kernel's spatial dimensions),
/// group counts.
pub(crate) fn convolution(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(
        op,
        &[
            "dimension_numbers",
            "window_strides",
            "padding",
            "lhs_dilation",
            "rhs_dilation",
            "window_reversal",
            "feature_group_count",
            "batch_group_count",
        ],
    )?;
    let operands = operands_n(l, s, op, 2)?;
    let d = match op.attr("dimension_numbers") {
        Some(Attr::Conv(d)) => d.clone(),
        _ => {
            return Err(l.err(
                op.attr_pos("dimension_numbers"),
                "`convolution` needs `dimension_numbers = #stablehlo.conv<...>`",
            ))
        }
    };
    d.validate()
        .map_err(|e| l.err(op.attr_pos("dimension_numbers"), e))?;
    let n = d.kernel_spatial_dimensions.len();
    let kernel = match s.shape(operands[1]) {
        Shape::Array(a) => a,
        other => return Err(l.err(op.pos, format!("the kernel has shape {other}"))),
    };
    let list = |name: &str, default: i64| -> LResult<Vec<i64>> {
        match op.attr(name) {
            None => Ok(vec![default; n]),
            Some(_) => req_ints(l, op, name),
        }
    };
    let strides = list("window_strides", 1)?;
    let lhs = list("lhs_dilation", 1)?;
    let rhs = list("rhs_dilation", 1)?;
    let reversal = match op.attr("window_reversal") {
        None => vec![false; n],
        Some(a) => bool_list(a).ok_or_else(|| {
            l.err(
                op.attr_pos("window_reversal"),
                "`window_reversal` is not a list of booleans",
            )
        })?,
    };
    let pads = padding_pairs(l, op, n)?;
    if [strides.len(), lhs.len(), rhs.len(), reversal.len()]
        .iter()
        .any(|&k| k != n)
    {
        return Err(l.err(
            op.pos,
            format!("window attributes do not all have {n} entries"),
        ));
    }
    let mut window = Window::default();
    for k in 0..n {
        let kd = d.kernel_spatial_dimensions[k];
        let size = usize::try_from(kd)
            .ok()
            .and_then(|kd| kernel.dimensions.get(kd))
            .copied()
            .ok_or_else(|| {
                l.err(
                    op.pos,
                    format!("kernel spatial dimension {kd} is out of range"),
                )
            })?;
        window.dimensions.push(WindowDimension {
            size,
            stride: strides[k],
            padding_low: pads[k].0,
            padding_high: pads[k].1,
            window_dilation: rhs[k],
            base_dilation: lhs[k],
            window_reversal: reversal[k],
        });
    }
    let mut attrs = vec![window.to_attribute(), d.to_attribute()];
    for name in ["feature_group_count", "batch_group_count"] {
        let g = opt_int(l, op, name)?.unwrap_or(1);
        if g != 1 {
            attrs.push(int_attr(name, g));
        }
    }
    single(l, s, op, Opcode::Convolution, operands, attrs)
}
