//! `gather` and `scatter` (seed 004, Gather and Scatter): the dimension-number rules.

use super::rules::{braces, check_dimension_list, Rules};
use super::{shapes_compatible, InferenceContext, ShapeInferenceError};
use crate::hlo::dimension_numbers::{
    flag, has_batching_dims, ints, GatherDimensionNumbers, ScatterDimensionNumbers,
};
use crate::shape::{ArrayShape, Shape};

/// The dimensions of the index array with an explicit index-vector dimension: seed 004 treats
/// `index_vector_dim == rank` as a trailing dimension of size 1.
///
/// Errors: `index_vector_dim` outside `[0, rank]`.
fn expanded_indices(indices: &[i64], index_vector_dim: i64) -> Result<Vec<i64>, String> {
    let rank = indices.len();
    if index_vector_dim < 0 || index_vector_dim as usize > rank {
        return Err(format!(
            "index_vector_dim {index_vector_dim} is out of range [0, {rank}] for indices of rank {rank}"
        ));
    }
    let mut dims = indices.to_vec();
    if index_vector_dim as usize == rank {
        dims.push(1);
    }
    Ok(dims)
}

/// The batch sizes of the index array: its dimensions without `index_vector_dim`.
fn batch_sizes(expanded: &[i64], index_vector_dim: i64) -> Vec<i64> {
    expanded
        .iter()
        .enumerate()
        .filter(|&(d, _)| d as i64 != index_vector_dim)
        .map(|(_, &n)| n)
        .collect()
}

/// The output dimensions of `gather` (seed 004, Gather), checking every rule the seed states
/// and XLA's shape inference enforces:
///
/// - `index_vector_dim` in `[0, start_indices.rank]` (equal to the rank: implicit trailing 1);
/// - `offset_dims` ascending, without repeats, in `[0, output rank)`;
/// - `collapsed_slice_dims` ascending, without repeats, in `[0, operand.rank)`, each with slice
///   size 1;
/// - `start_index_map` of `start_indices.shape[index_vector_dim]` entries, without repeats, in
///   `[0, operand.rank)`;
/// - `operand.rank == offset_dims.size + collapsed_slice_dims.size`;
/// - `slice_sizes.size == operand.rank`, `0 ≤ slice_sizes[i] ≤ operand.shape[i]`.
///
/// Output dimension `offset_dims[k]` has the `k`-th non-collapsed slice size; the others (batch
/// dimensions) take the index array's sizes, skipping `index_vector_dim`.
///
/// Errors: the first rule broken, as a message naming the attribute and its value.
pub fn gather_output_dimensions(
    operand: &[i64],
    start_indices: &[i64],
    dnums: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<Vec<i64>, String> {
    let ivd = dnums.index_vector_dim;
    let expanded = expanded_indices(start_indices, ivd)?;
    let batch = batch_sizes(&expanded, ivd);
    let rank = operand.len();
    let output_rank = dnums.offset_dims.len() + batch.len();
    check_dimension_list("offset_dims", &dnums.offset_dims, output_rank, true)?;
    check_dimension_list(
        "collapsed_slice_dims",
        &dnums.collapsed_slice_dims,
        rank,
        true,
    )?;
    let index_vector_size = expanded[ivd as usize];
    if dnums.start_index_map.len() as i64 != index_vector_size {
        return Err(format!(
            "start_index_map {} has {} entries but the index vectors (dimension {ivd} of the start indices) have {index_vector_size}",
            braces(&dnums.start_index_map),
            dnums.start_index_map.len()
        ));
    }
    check_dimension_list("start_index_map", &dnums.start_index_map, rank, false)?;
    if dnums.offset_dims.len() + dnums.collapsed_slice_dims.len() != rank {
        return Err(format!(
            "offset_dims {} and collapsed_slice_dims {} must together have operand-rank ({rank}) entries",
            braces(&dnums.offset_dims),
            braces(&dnums.collapsed_slice_dims)
        ));
    }
    if slice_sizes.len() != rank {
        return Err(format!(
            "slice_sizes {} has {} entries for an operand of rank {rank}",
            braces(slice_sizes),
            slice_sizes.len()
        ));
    }
    for (i, (&s, &n)) in slice_sizes.iter().zip(operand).enumerate() {
        if s < 0 || s > n {
            return Err(format!(
                "slice_sizes[{i}] = {s} is outside [0, {n}] (operand dimension {i})"
            ));
        }
    }
    for &d in &dnums.collapsed_slice_dims {
        let s = slice_sizes[d as usize];
        if s != 1 {
            return Err(format!(
                "collapsed slice dimension {d} must have slice size 1, got {s}"
            ));
        }
    }
    let adjusted: Vec<i64> = dnums
        .offset_operand_dims(rank)
        .into_iter()
        .map(|d| slice_sizes[d])
        .collect();
    let mut offsets = adjusted.into_iter();
    let mut batches = batch.into_iter();
    Ok((0..output_rank as i64)
        .map(|i| {
            if dnums.offset_dims.contains(&i) {
                offsets.next().unwrap_or(0)
            } else {
                batches.next().unwrap_or(0)
            }
        })
        .collect())
}

/// Checks `scatter`'s dimension numbers against one operand, the indices and one update array
/// (seed 004, Scatter):
///
/// - `index_vector_dim` in `[0, scatter_indices.rank]`;
/// - `update_window_dims` ascending, without repeats, in `[0, updates.rank)`;
/// - `inserted_window_dims` ascending, without repeats, in `[0, operand.rank)`;
/// - `operand.rank == update_window_dims.size + inserted_window_dims.size`;
/// - `scatter_dims_to_operand_dims` of `scatter_indices.shape[index_vector_dim]` entries, without
///   repeats, in `[0, operand.rank)`;
/// - `updates.rank == update_window_dims.size + scatter_indices.rank − 1` (with the implicit
///   trailing dimension counted);
/// - window dimension `update_window_dims[k]` is at most the `k`-th non-inserted operand size;
/// - scatter dimension `k` of `updates` equals the indices' `k`-th size, skipping
///   `index_vector_dim`.
///
/// Errors: the first rule broken, as a message naming the attribute and its value.
pub fn check_scatter(
    operand: &[i64],
    scatter_indices: &[i64],
    updates: &[i64],
    dnums: &ScatterDimensionNumbers,
) -> Result<(), String> {
    let ivd = dnums.index_vector_dim;
    let expanded = expanded_indices(scatter_indices, ivd)?;
    let batch = batch_sizes(&expanded, ivd);
    let rank = operand.len();
    check_dimension_list(
        "update_window_dims",
        &dnums.update_window_dims,
        updates.len(),
        true,
    )?;
    check_dimension_list(
        "inserted_window_dims",
        &dnums.inserted_window_dims,
        rank,
        true,
    )?;
    if dnums.update_window_dims.len() + dnums.inserted_window_dims.len() != rank {
        return Err(format!(
            "update_window_dims {} and inserted_window_dims {} must together have operand-rank ({rank}) entries",
            braces(&dnums.update_window_dims),
            braces(&dnums.inserted_window_dims)
        ));
    }
    let index_vector_size = expanded[ivd as usize];
    if dnums.scatter_dims_to_operand_dims.len() as i64 != index_vector_size {
        return Err(format!(
            "scatter_dims_to_operand_dims {} has {} entries but the index vectors (dimension {ivd} of the scatter indices) have {index_vector_size}",
            braces(&dnums.scatter_dims_to_operand_dims),
            dnums.scatter_dims_to_operand_dims.len()
        ));
    }
    check_dimension_list(
        "scatter_dims_to_operand_dims",
        &dnums.scatter_dims_to_operand_dims,
        rank,
        false,
    )?;
    let expected_rank = dnums.update_window_dims.len() + batch.len();
    if updates.len() != expected_rank {
        return Err(format!(
            "updates have rank {} but update_window_dims {} and the scatter indices {:?} (index_vector_dim {ivd}) need rank {expected_rank}",
            updates.len(),
            braces(&dnums.update_window_dims),
            scatter_indices
        ));
    }
    let window_bounds = dnums.window_operand_dims(rank);
    for (k, &u) in dnums.update_window_dims.iter().enumerate() {
        let bound = operand[window_bounds[k]];
        let size = updates[u as usize];
        if size > bound {
            return Err(format!(
                "updates window dimension {u} has size {size}, more than operand dimension {} ({bound})",
                window_bounds[k]
            ));
        }
    }
    for (k, d) in dnums
        .update_scatter_dims(updates.len())
        .into_iter()
        .enumerate()
    {
        if updates[d] != batch[k] {
            return Err(format!(
                "updates scatter dimension {d} has size {}, the scatter indices' matching dimension has {}",
                updates[d], batch[k]
            ));
        }
    }
    Ok(())
}

fn array_operand<'a>(r: &Rules<'a>, i: usize) -> Result<&'a ArrayShape, ShapeInferenceError> {
    let s = r.operands[i];
    s.as_array()
        .ok_or_else(|| r.operand_error(format!("operand {i} must be an array, got `{s}`")))
}

/// `gather(operand, start_indices)` with its dimension numbers, `slice_sizes={...}` and optional
/// `indices_are_sorted=`.
pub(super) fn gather(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x, indices] = r.arrays::<2>("2")?;
    if has_batching_dims(r.attributes) {
        return Err(ShapeInferenceError::Unsupported(r.opcode));
    }
    if !indices.element_type.is_integer() {
        return Err(r.operand_error(format!(
            "start_indices must be of an integer type, got {}",
            indices.element_type
        )));
    }
    let dnums =
        GatherDimensionNumbers::from_attributes(r.attributes).map_err(|m| r.attr_error(m))?;
    let slice_sizes = ints(r.attributes, "slice_sizes").map_err(|m| r.attr_error(m))?;
    flag(r.attributes, "indices_are_sorted").map_err(|m| r.attr_error(m))?;
    let dims = gather_output_dimensions(&x.dimensions, &indices.dimensions, &dnums, &slice_sizes)
        .map_err(|m| r.attr_error(m))?;
    r.types_ok(x.element_type, x.element_type)?;
    Ok(Shape::array(x.element_type, dims))
}

/// `scatter(operands..., scatter_indices, updates...)`: N ≥ 1 operands of equal dimensions, N
/// updates of equal dimensions with the operands' element types; the result is the operand's
/// shape for N = 1, the tuple of the operands' shapes for N > 1. When the context carries the
/// update computation (`callee`), it must take 2N scalars (N of the operands' types, then the same
/// N again) and return one scalar (N = 1) or an N-tuple of scalars of those types.
pub(super) fn scatter(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    let count = r.operands.len();
    if count < 3 || count.is_multiple_of(2) {
        return Err(ShapeInferenceError::OperandCount {
            opcode: r.opcode,
            expected: "2N + 1 (N operands, the indices, N updates; N >= 1)",
            got: count,
        });
    }
    if has_batching_dims(r.attributes) {
        return Err(ShapeInferenceError::Unsupported(r.opcode));
    }
    let n = count / 2;
    let operands: Vec<&ArrayShape> = (0..n)
        .map(|i| array_operand(r, i))
        .collect::<Result<_, _>>()?;
    let indices = array_operand(r, n)?;
    let updates: Vec<&ArrayShape> = (n + 1..count)
        .map(|i| array_operand(r, i))
        .collect::<Result<_, _>>()?;
    if !indices.element_type.is_integer() {
        return Err(r.operand_error(format!(
            "scatter_indices must be of an integer type, got {}",
            indices.element_type
        )));
    }
    for i in 1..n {
        if operands[i].dimensions != operands[0].dimensions {
            return Err(r.operand_error(format!(
                "operand {i} has dimensions {:?}, operand 0 has {:?}; all operands must have the same dimensions",
                operands[i].dimensions, operands[0].dimensions
            )));
        }
        if updates[i].dimensions != updates[0].dimensions {
            return Err(r.operand_error(format!(
                "updates {i} has dimensions {:?}, updates 0 has {:?}; all updates must have the same dimensions",
                updates[i].dimensions, updates[0].dimensions
            )));
        }
    }
    for i in 0..n {
        r.same_type(
            operands[i],
            updates[i],
            &format!("operand {i}"),
            &format!("updates {i}"),
        )?;
    }
    let dnums =
        ScatterDimensionNumbers::from_attributes(r.attributes).map_err(|m| r.attr_error(m))?;
    flag(r.attributes, "indices_are_sorted").map_err(|m| r.attr_error(m))?;
    flag(r.attributes, "unique_indices").map_err(|m| r.attr_error(m))?;
    check_scatter(
        &operands[0].dimensions,
        &indices.dimensions,
        &updates[0].dimensions,
        &dnums,
    )
    .map_err(|m| r.attr_error(m))?;
    let scalars: Vec<Shape> = operands
        .iter()
        .map(|o| Shape::array(o.element_type, vec![]))
        .collect();
    if let Some((params, root)) = context.callee {
        if params.len() != 2 * n {
            return Err(r.attr_error(format!(
                "the update computation takes {} parameter(s), scatter with {n} operand(s) passes {}",
                params.len(),
                2 * n
            )));
        }
        for (k, p) in params.iter().enumerate() {
            let want = &scalars[k % n];
            if !shapes_compatible(p, want) {
                return Err(r.attr_error(format!(
                    "parameter {k} of the update computation is `{p}`, expected `{want}`"
                )));
            }
        }
        let want_root = if n == 1 {
            scalars[0].clone()
        } else {
            Shape::Tuple(scalars.clone())
        };
        if !shapes_compatible(root, &want_root) {
            return Err(r.attr_error(format!(
                "the update computation returns `{root}`, expected `{want_root}`"
            )));
        }
    }
    for o in &operands {
        r.types_ok(o.element_type, o.element_type)?;
    }
    let results: Vec<Shape> = operands
        .iter()
        .map(|o| Shape::array(o.element_type, o.dimensions.clone()))
        .collect();
    Ok(if n == 1 {
        results.into_iter().next().unwrap_or(Shape::Tuple(vec![]))
    } else {
        Shape::Tuple(results)
    })
}
