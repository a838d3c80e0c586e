//! `gather` (seed 004, Gather): for each batch position of the start indices, a window of the
//! operand whose start is read from the index vector (through `start_index_map`) and clamped so
//! the window fits; the result places batch dimensions at the dimensions not in `offset_dims`.
//!
//! The windows' source offsets are computed once per batch position (a table), then the copy
//! engine of [`super::plan`] copies rows (`memcpy` when a window row is contiguous in the operand).

use super::plan::{self, DimMap, GatherTable, Plan};
use super::{array_operand, bad, integer_value, result_shape, same_type, Ctx};
use crate::value::{ArrayRef, Value};
use conformance_spec::{index, ArrayShape, BackendError, ElementType};
use rayon::prelude::*;

/// Batch positions per parallel task when reading indices.
const INDEX_CHUNK: usize = 1 << 14;

/// Reads the index vectors of a start-indices array (seed 004: `index_vector_dim` may equal the
/// rank, meaning vectors of length 1).
pub(super) struct IndexVectors<'r, 'a> {
    indices: &'r ArrayRef<'a>,
    strides: Vec<i64>,
    /// Dimensions of the indices other than `index_vector_dim`, in order.
    pub(super) batch_dims: Vec<usize>,
    /// Their sizes.
    pub(super) batch_sizes: Vec<i64>,
    index_vector_dim: usize,
    /// Length of each index vector.
    pub(super) len: usize,
}

impl<'r, 'a> IndexVectors<'r, 'a> {
    /// Errors: a non-integer index type, `index_vector_dim` out of `[0, rank]`.
    pub(super) fn new(
        indices: &'r ArrayRef<'a>,
        index_vector_dim: i64,
    ) -> Result<IndexVectors<'r, 'a>, BackendError> {
        let s = indices.shape();
        if !s.element_type.is_integer() {
            return Err(bad(format!("indices {s} must have an integer type")));
        }
        let rank = s.rank();
        if index_vector_dim < 0 || index_vector_dim as usize > rank {
            return Err(bad(format!(
                "index_vector_dim={index_vector_dim} out of range for indices {s}"
            )));
        }
        let ivd = index_vector_dim as usize;
        let batch_dims: Vec<usize> = (0..rank).filter(|&d| d != ivd).collect();
        let batch_sizes = batch_dims.iter().map(|&d| s.dimensions[d]).collect();
        Ok(IndexVectors {
            indices,
            strides: index::strides(s),
            batch_dims,
            batch_sizes,
            index_vector_dim: ivd,
            len: if ivd < rank {
                s.dimensions[ivd] as usize
            } else {
                1
            },
        })
    }

    /// Number of batch positions.
    pub(super) fn count(&self) -> usize {
        self.batch_sizes.iter().product::<i64>().max(0) as usize
    }

    /// Element `k` of the index vector at batch position `b` (row-major over the batch
    /// dimensions), as a signed value.
    pub(super) fn get(&self, b: usize, k: usize) -> i64 {
        let mut rest = b as i64;
        let mut pos = 0i64;
        for (j, &d) in self.batch_dims.iter().enumerate().rev() {
            let size = self.batch_sizes[j];
            pos += (rest % size) * self.strides[d];
            rest /= size;
        }
        if self.index_vector_dim < self.strides.len() {
            pos += k as i64 * self.strides[self.index_vector_dim];
        }
        let data = self.indices.data();
        let p = pos as usize;
        match self.indices.element_type() {
            ElementType::S32 => {
                i32::from_le_bytes(data[p * 4..p * 4 + 4].try_into().expect("4")) as i64
            }
            ElementType::S64 => i64::from_le_bytes(data[p * 8..p * 8 + 8].try_into().expect("8")),
            ty => integer_value(ty, self.indices.get_bits_linear(p)).unwrap_or(0),
        }
    }
}

/// Dimension numbers of a gather, validated against the operand, indices and result.
struct Numbers {
    offset_dims: Vec<usize>,
    collapsed: Vec<bool>,
    start_index_map: Vec<usize>,
    slice_sizes: Vec<i64>,
}

fn numbers(
    cx: &Ctx<'_, '_>,
    operand: &ArrayShape,
    iv: &IndexVectors<'_, '_>,
    result: &ArrayShape,
) -> Result<Numbers, BackendError> {
    let ints = |name: &str| {
        cx.instr
            .attr_ints(name)
            .ok_or_else(|| bad(format!("gather without {name}")))
    };
    let rank = operand.rank();
    let as_dims = |v: &[i64], bound: usize, what: &str| -> Result<Vec<usize>, BackendError> {
        v.iter()
            .map(|&d| {
                (d >= 0 && (d as usize) < bound)
                    .then_some(d as usize)
                    .ok_or_else(|| bad(format!("{what}: dimension {d} out of range")))
            })
            .collect()
    };
    if cx
        .instr
        .attr_ints("operand_batching_dims")
        .is_some_and(|v| !v.is_empty())
    {
        return Err(BackendError::Unsupported(
            "gather with operand_batching_dims".into(),
        ));
    }
    let offset_dims = as_dims(ints("offset_dims")?, result.rank(), "offset_dims")?;
    let collapsed_list = as_dims(ints("collapsed_slice_dims")?, rank, "collapsed_slice_dims")?;
    let start_index_map = as_dims(ints("start_index_map")?, rank, "start_index_map")?;
    let slice_sizes = ints("slice_sizes")?.to_vec();
    if slice_sizes.len() != rank
        || (0..rank).any(|d| slice_sizes[d] < 0 || slice_sizes[d] > operand.dimensions[d])
    {
        return Err(bad(format!(
            "slice_sizes={slice_sizes:?} does not fit {operand}"
        )));
    }
    if start_index_map.len() != iv.len {
        return Err(bad(format!(
            "start_index_map has {} entries for index vectors of {}",
            start_index_map.len(),
            iv.len
        )));
    }
    let mut collapsed = vec![false; rank];
    for &d in &collapsed_list {
        if slice_sizes[d] > 1 || std::mem::replace(&mut collapsed[d], true) {
            return Err(bad(format!("collapsed_slice_dims: dimension {d}")));
        }
    }
    if offset_dims.windows(2).any(|w| w[0] >= w[1])
        || offset_dims.len() != rank - collapsed_list.len()
        || result.rank() != offset_dims.len() + iv.batch_dims.len()
    {
        return Err(bad(format!(
            "offset_dims={offset_dims:?} do not fit operand {operand} and result {result}"
        )));
    }
    // Expected result dimensions.
    let window: Vec<usize> = (0..rank).filter(|&d| !collapsed[d]).collect();
    let mut batch = iv.batch_sizes.iter();
    let mut off = window.iter();
    for (d, &size) in result.dimensions.iter().enumerate() {
        let want = if offset_dims.contains(&d) {
            slice_sizes[*off.next().expect("counted")]
        } else {
            *batch.next().expect("counted")
        };
        if size != want {
            return Err(bad(format!(
                "gather result dimension {d} must be {want}, not {size}"
            )));
        }
    }
    Ok(Numbers {
        offset_dims,
        collapsed,
        start_index_map,
        slice_sizes,
    })
}

/// HLO `gather(operand, start_indices)` with `offset_dims`, `collapsed_slice_dims`,
/// `start_index_map`, `index_vector_dim`, `slice_sizes` (seed 004, Gather; `indices_are_sorted`
/// changes nothing here). Errors: dimension numbers that do not fit the shapes;
/// [`BackendError::Unsupported`] for a non-empty `operand_batching_dims`.
pub(super) fn gather<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(2)?;
    let a = array_operand(cx, 0)?;
    let indices = array_operand(cx, 1)?;
    let result = result_shape(cx)?;
    same_type(a.shape(), result)?;
    let ivd = cx
        .instr
        .attr_int("index_vector_dim")
        .ok_or_else(|| bad("gather without index_vector_dim"))?;
    let iv = IndexVectors::new(&indices, ivd)?;
    let n = numbers(cx, a.shape(), &iv, result)?;
    let op_strides = index::strides(a.shape());
    let dims = a.dimensions();
    // Source offset of each window's start (clamped so the window fits).
    let batches = iv.count();
    let mut table = vec![0i64; batches];
    let par = cx.par(batches * 8);
    let chunk = par.task(INDEX_CHUNK);
    let fill_table = |(c, part): (usize, &mut [i64])| {
        for (j, t) in part.iter_mut().enumerate() {
            let b = c * chunk + j;
            *t = (0..iv.len)
                .map(|k| {
                    let d = n.start_index_map[k];
                    let hi = dims[d] - n.slice_sizes[d];
                    iv.get(b, k).clamp(0, hi.max(0)) * op_strides[d]
                })
                .sum();
        }
    };
    if par.on {
        table.par_chunks_mut(chunk).enumerate().for_each(fill_table);
    } else {
        table.chunks_mut(chunk).enumerate().for_each(fill_table);
    }
    // Maps: offset dimensions walk the window; batch dimensions index the table (row-major).
    let rank = result.rank();
    let mut maps = vec![
        DimMap::Affine {
            start: 0,
            stride: 0
        };
        rank
    ];
    let mut tstrides = vec![0i64; rank];
    let window: Vec<usize> = (0..dims.len()).filter(|&d| !n.collapsed[d]).collect();
    let batch_out: Vec<usize> = (0..rank).filter(|d| !n.offset_dims.contains(d)).collect();
    // The k-th offset dimension walks the k-th operand dimension that is not collapsed.
    for (&d, &w) in n.offset_dims.iter().zip(&window) {
        maps[d] = DimMap::Affine {
            start: 0,
            stride: op_strides[w],
        };
    }
    let mut step = 1i64;
    for &d in batch_out.iter().rev() {
        tstrides[d] = step;
        step *= result.dimensions[d];
    }
    let p = Plan {
        width: a.element_type().byte_width(),
        src: a.data(),
        base: 0,
        maps,
        fill: 0,
        gather: Some(GatherTable {
            table: &table,
            strides: tstrides,
        }),
        lo: vec![0; rank],
        hi: result.dimensions.clone(),
    };
    super::build(result, cx.par(result.element_count()), |dst, par| {
        plan::execute(&p, result, dst, par)
    })
}
