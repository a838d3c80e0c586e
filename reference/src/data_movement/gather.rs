//! `gather` (seed 004, Gather, "General semantics"): many slices of the operand, each at a start
//! index read from `start_indices`, stacked along the batch dimensions of the result.
//!
//! For a result index `Out` (the seed's formal description, transcribed step by step):
//! 1. `batch_dims` are the result dimensions not in `offset_dims`, ascending; `G = Out[batch_dims]`.
//! 2. `S[i] = start_indices[Combine(G, i)]`, where `Combine` inserts `i` at position
//!    `index_vector_dim` (when `index_vector_dim == start_indices.rank` the indices have an
//!    implicit trailing dimension of size 1).
//! 3. `S_in[start_index_map[k]] = S[k]`, 0 elsewhere; each `S_in[d]` is then clamped into
//!    `[0, operand.dims[d] - slice_sizes[d]]` — the seed's informal description: "dynamically
//!    slice a slice of size `slice_sizes` at the full start index" (DynamicSlice semantics, which
//!    clamp so the slice is in bounds; XLA does the same).
//! 4. `O_in[remapped_offset_dims(k)] = Out[offset_dims[k]]`, 0 elsewhere, where
//!    `remapped_offset_dims` is the increasing map of `[0, offset_dims.size)` onto the operand
//!    dimensions not in `collapsed_slice_dims`.
//! 5. `In = O_in + S_in`, and `result[Out] = operand[In]`.
//!
//! `indices_are_sorted` only promises an order; it does not change the result here. XLA's newer
//! batching dimensions (`operand_batching_dims`, `start_indices_batching_dims`) are not
//! implemented: an instruction that uses them is [`BackendError::Unsupported`].

use super::{dimension, in_bounds, index_vectors, integer_at, ints, invalid, same_type};
use crate::interpreter::{array, result_array_shape, Context};
use conformance_spec::hlo::ir::{AttrValue, HloInstruction};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// The checked attributes of a gather: everything the index map needs.
struct Gather<'a> {
    offset_dims: &'a [i64],
    start_index_map: Vec<usize>,
    index_vector_dim: usize,
    slice_sizes: &'a [i64],
    batch_dims: Vec<usize>,
    /// `remapped_offset_dims(k)` for each `k`.
    remapped_offset_dims: Vec<usize>,
}

/// Errors unless the batching attributes are absent or empty.
pub(crate) fn reject_batching_dims(
    instr: &HloInstruction,
    names: &[&str],
) -> Result<(), BackendError> {
    for name in names {
        let empty = match instr.attribute(name) {
            None => true,
            Some(AttrValue::Ints(v)) => v.is_empty(),
            Some(AttrValue::Raw(text)) => text
                .chars()
                .all(|c| c == '{' || c == '}' || c.is_whitespace()),
            Some(_) => false,
        };
        if !empty {
            return Err(BackendError::Unsupported(format!(
                "{}: `{name}` (batching dimensions) is not implemented by the reference",
                instr.opcode
            )));
        }
    }
    Ok(())
}

/// Strictly increasing dimension numbers in `[0, rank)`.
pub(crate) fn sorted_dims(
    instr: &HloInstruction,
    what: &str,
    dims: &[i64],
    rank: usize,
) -> Result<Vec<usize>, BackendError> {
    let out: Vec<usize> = dims
        .iter()
        .map(|&d| dimension(instr, what, d, rank))
        .collect::<Result<_, _>>()?;
    if out.windows(2).any(|w| w[0] >= w[1]) {
        return invalid(format!(
            "{}: {what}={dims:?} must be strictly increasing",
            instr.opcode
        ));
    }
    Ok(out)
}

/// The increasing map of `[0, count)` onto `[0, rank) \ removed`.
pub(crate) fn remaining_dims(rank: usize, removed: &[usize]) -> Vec<usize> {
    (0..rank).filter(|d| !removed.contains(d)).collect()
}

/// `Combine(G, i)`: `G` with `i` inserted at `index_vector_dim` (dropped when the index vector
/// dimension is implicit, i.e. `index_vector_dim == G.len()` and the indices have rank `G.len()`).
pub(crate) fn combine(g: &[i64], i: i64, index_vector_dim: usize, indices_rank: usize) -> Vec<i64> {
    let mut out = g.to_vec();
    if index_vector_dim < indices_rank {
        out.insert(index_vector_dim, i);
    }
    out
}

/// The dimensions of `indices` with `index_vector_dim` removed (the batch / scatter bounds).
pub(crate) fn indices_batch_bounds(dims: &[i64], index_vector_dim: usize) -> Vec<i64> {
    dims.iter()
        .enumerate()
        .filter(|&(k, _)| k != index_vector_dim)
        .map(|(_, &n)| n)
        .collect()
}

impl<'a> Gather<'a> {
    fn new(
        instr: &'a HloInstruction,
        operand: &ArrayLiteral,
        indices: &ArrayLiteral,
        result_dims: &[i64],
    ) -> Result<Gather<'a>, BackendError> {
        reject_batching_dims(
            instr,
            &["operand_batching_dims", "start_indices_batching_dims"],
        )?;
        let op_dims = operand.dimensions();
        let rank = op_dims.len();
        let out_rank = result_dims.len();
        let offset_dims = ints(instr, "offset_dims")?;
        let offsets = sorted_dims(instr, "offset_dims", offset_dims, out_rank)?;
        let collapsed = sorted_dims(
            instr,
            "collapsed_slice_dims",
            ints(instr, "collapsed_slice_dims")?,
            rank,
        )?;
        let slice_sizes = ints(instr, "slice_sizes")?;
        if slice_sizes.len() != rank
            || slice_sizes
                .iter()
                .zip(op_dims)
                .any(|(&s, &n)| s < 0 || s > n)
        {
            return invalid(format!(
                "gather: slice_sizes={slice_sizes:?} must give a size in [0, size] for each of {op_dims:?}"
            ));
        }
        if let Some(&c) = collapsed.iter().find(|&&c| slice_sizes[c] > 1) {
            return invalid(format!(
                "gather: collapsed slice dimension {c} has slice size {} (must be at most 1)",
                slice_sizes[c]
            ));
        }
        if offsets.len() + collapsed.len() != rank {
            return invalid(format!(
                "gather: {} offset dims + {} collapsed dims must equal the operand rank {rank}",
                offsets.len(),
                collapsed.len()
            ));
        }
        let ind_dims = indices.dimensions();
        let (index_vector_dim, start_index_map) =
            index_vectors(instr, "gather", ind_dims, "start_index_map", rank)?;
        let batch_dims = remaining_dims(out_rank, &offsets);
        let batch_bounds = indices_batch_bounds(ind_dims, index_vector_dim);
        let remapped = remaining_dims(rank, &collapsed);
        let mut expected = vec![0i64; out_rank];
        if batch_dims.len() != batch_bounds.len() {
            return invalid(format!(
                "gather: the result has {} batch dimensions, the start indices {}",
                batch_dims.len(),
                batch_bounds.len()
            ));
        }
        for (k, &b) in batch_dims.iter().enumerate() {
            expected[b] = batch_bounds[k];
        }
        for (k, &o) in offsets.iter().enumerate() {
            expected[o] = slice_sizes[remapped[k]];
        }
        if expected != result_dims {
            return invalid(format!(
                "gather: the result has dimensions {result_dims:?}, the operation produces {expected:?}"
            ));
        }
        Ok(Gather {
            offset_dims,
            start_index_map,
            index_vector_dim,
            slice_sizes,
            batch_dims,
            remapped_offset_dims: remapped,
        })
    }

    /// The operand index `In` of result index `Out` (steps 1–5 of the module docs).
    fn operand_index(
        &self,
        instr: &HloInstruction,
        operand_dims: &[i64],
        indices: &ArrayLiteral,
        out: &[i64],
    ) -> Result<Vec<i64>, BackendError> {
        let g: Vec<i64> = self.batch_dims.iter().map(|&b| out[b]).collect();
        let rank = operand_dims.len();
        let mut start = vec![0i128; rank];
        for (k, &d) in self.start_index_map.iter().enumerate() {
            let at = combine(
                &g,
                k as i64,
                self.index_vector_dim,
                indices.dimensions().len(),
            );
            start[d] = integer_at(instr, "a start index", indices, &at)?;
        }
        let mut input = vec![0i64; rank];
        for d in 0..rank {
            let hi = i128::from(operand_dims[d] - self.slice_sizes[d]);
            input[d] = start[d].clamp(0, hi) as i64;
        }
        for (k, &o) in self.offset_dims.iter().enumerate() {
            input[self.remapped_offset_dims[k]] += out[o as usize];
        }
        Ok(input)
    }
}

/// `gather`: operands `(operand, start_indices)` with `offset_dims`, `collapsed_slice_dims`,
/// `start_index_map`, `index_vector_dim`, `slice_sizes` (see the module docs for the index map).
///
/// Errors: [`BackendError::Invalid`] for attributes that break the seed's constraints (offset
/// and collapsed dims not increasing or out of range, their counts not adding up to the operand
/// rank, slice sizes outside `[0, size]` or above 1 on a collapsed dimension, a start index map
/// whose size differs from the index vectors'), start indices of a non-integer type, or a result
/// of other dimensions or element type; [`BackendError::Unsupported`] for batching dimensions.
pub(crate) fn gather(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let operand = array(instr, operands, 0)?;
    let indices = array(instr, operands, 1)?;
    let shape = result_array_shape(instr)?;
    same_type(instr, "the operand", operand.element_type(), shape)?;
    if !indices.element_type().is_integer() {
        return invalid(format!(
            "gather: start indices must be integers, not {}",
            indices.element_type()
        ));
    }
    let g = Gather::new(instr, operand, indices, &shape.dimensions)?;
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut failure = None;
    index::for_each_index(&shape.dimensions, |idx| {
        if failure.is_some() {
            return;
        }
        match g.operand_index(instr, operand.dimensions(), indices, idx) {
            Ok(input) if in_bounds(&input, operand.dimensions()) => {
                out.set_bits(idx, operand.get_bits(&input))
            }
            Ok(input) => {
                failure = Some(BackendError::Invalid(format!(
                    "gather: operand index {input:?} out of range (internal check)"
                )))
            }
            Err(e) => failure = Some(e),
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(Literal::Array(out)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use conformance_spec::literal::{ArrayLiteral, Literal};
    use conformance_spec::BackendError;

    fn module(op: &str, ind: &str, result: &str, attrs: &str) -> String {
        format!(
            "HloModule m\nENTRY e {{\n  p = {op} parameter(0)\n  i = {ind} parameter(1)\n  ROOT r = {result} gather(p, i), {attrs}\n}}\n"
        )
    }

    fn s32s(shape: &str, v: &[i32]) -> Literal {
        let s = parse_shape_array(shape);
        let bits: Vec<u128> = v.iter().map(|&x| x as u32 as u128).collect();
        ArrayLiteral::from_bits(s, &bits).unwrap().into()
    }

    #[test]
    fn gather_rows_like_tf_gather_nd_under_layouts() {
        // Seed 004's tf.gather_nd example shape: [16,11] operand, slice [1,11], one index each.
        let a = numbered("f32[16,11]{0,1:P(17,12)}", |n| n as u128 * 3);
        let hlo = module(
            "f32[16,11]{0,1:P(17,12)}",
            "s32[2,2,1]{0,2,1}",
            "f32[2,2,11]{1,0,2}",
            "offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,11}",
        );
        let idx = [3, 15, 0, 40]; // 40 clamps to 15
        let r = run_array(&hlo, &[a.clone().into(), s32s("s32[2,2,1]{0,2,1}", &idx)]);
        for g0 in 0..2i64 {
            for g1 in 0..2i64 {
                let row = idx[(g0 * 2 + g1) as usize].clamp(0, 15) as i64;
                for o in 0..11i64 {
                    assert_eq!(r.get_bits(&[g0, g1, o]), a.get_bits(&[row, o]));
                }
            }
        }
    }

    #[test]
    fn gather_windows_with_clamping_and_index_vector_dim_0() {
        // [8,6] windows of a [16,11] operand at (X, Y) from an s8 [2,5] array (index_vector_dim=0).
        let a = numbered("s16[16,11]{0,1}", |n| n as u128);
        let hlo = module(
            "s16[16,11]{0,1}",
            "s8[2,5]",
            "s16[5,8,6]{2,1,0}",
            "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={8,6}",
        );
        let xs = [0i8, 8, 9, -3, 4];
        let ys = [0i8, 5, 7, 2, -1];
        let bits: Vec<u128> = xs.iter().chain(&ys).map(|&v| v as u8 as u128).collect();
        let ind = ArrayLiteral::from_bits(parse_shape_array("s8[2,5]"), &bits).unwrap();
        let r = run_array(&hlo, &[a.clone().into(), ind.into()]);
        for g in 0..5usize {
            let x = i64::from(xs[g]).clamp(0, 8);
            let y = i64::from(ys[g]).clamp(0, 5);
            for o0 in 0..8i64 {
                for o1 in 0..6i64 {
                    let got = r.get_bits(&[g as i64, o0, o1]);
                    assert_eq!(got, a.get_bits(&[x + o0, y + o1]), "g={g} o=({o0},{o1})");
                }
            }
        }
    }

    #[test]
    fn gather_element_types_and_errors() {
        // c128 and pred move unchanged.
        for (ty, f) in [
            (
                "c128",
                (|n: usize| (n as u128) << 64 | 7) as fn(usize) -> u128,
            ),
            ("pred", |n: usize| n.is_multiple_of(3) as u128),
            ("f8e4m3fn", |n: usize| n as u128 + 0x70),
        ] {
            let a = numbered(&format!("{ty}[4,3]"), f);
            let hlo = module(
                &format!("{ty}[4,3]"),
                "u32[2]",
                &format!("{ty}[2,3]{{0,1}}"),
                "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}",
            );
            let ind = ArrayLiteral::from_bits(
                parse_shape_array("u32[2]"),
                &[2, u32::MAX as u128], // u32 max is large and positive: clamps to 3
            )
            .unwrap();
            let r = run_array(&hlo, &[a.clone().into(), ind.into()]);
            for o in 0..3i64 {
                assert_eq!(r.get_bits(&[0, o]), a.get_bits(&[2, o]), "{ty}");
                assert_eq!(r.get_bits(&[1, o]), a.get_bits(&[3, o]), "{ty}");
            }
        }
        let a = numbered("f32[4,3]", |n| n as u128);
        let bad = module(
            "f32[4,3]",
            "s32[2]",
            "f32[2,3]",
            "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}",
        );
        let e = run(&bad, &[a.into(), s32s("s32[2]", &[0, 1])]);
        assert!(matches!(e, Err(BackendError::Invalid(_))), "{e:?}");
    }
}
