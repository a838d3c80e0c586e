//! `topk` (XLA TopK; seed 004's order): `topk(x), k=K, largest=true|false` gives the tuple
//! `(T[..., K], s32[..., K])` of the K largest elements of each row along x's last dimension in
//! descending order (or the K smallest in ascending order with `largest=false`) and their indices
//! in that dimension. Elements are ordered by seed 004's total order (floats: −NaN < −inf < … < −0
//! < +0 < … < +inf < +NaN, so +NaN is the largest; integers by value, `false < true`); equal
//! elements come lowest index first.
//!
//! No row is sorted: each is scanned once. For K up to [`INSERTION_K`] the K best so far are kept
//! in order and a new element enters only when it beats the last of them (rarely, after the first
//! few hundred elements of random data); for larger K the row's candidates are partitioned around
//! the K-th (`select_nth_unstable`, linear) and only those K are sorted. Rows run in parallel.

use super::{bad, packed, result_arrays, Ctx};
use crate::buffer::typed;
use crate::contraction::finish_in_layout;
use crate::value::Value;
use conformance_spec::hlo::comparator::KeyMap;
use conformance_spec::shape::slices_equal;
use conformance_spec::{ArrayShape, BackendError, ElementType, Layout};
use rayon::prelude::*;

/// Largest K for the insertion scan.
const INSERTION_K: usize = 32;

/// Runs `topk`. Errors: [`BackendError::Invalid`] for an operand count other than 1, a rank-0
/// operand, K missing or outside `[0, n]`, a result shape other than `(T[..., K], s32[..., K])`;
/// [`BackendError::Unsupported`] for complex elements (they have no order).
pub(super) fn topk<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    cx.arity(1)?;
    let x = cx.array(0)?;
    let ty = x.element_type();
    let dims = x.dimensions().to_vec();
    let rank = dims.len();
    if rank == 0 {
        return Err(bad("topk of a scalar"));
    }
    let n = dims[rank - 1] as usize;
    let k = cx
        .instr
        .attr_int("k")
        .and_then(|k| usize::try_from(k).ok())
        .filter(|&k| k <= n)
        .ok_or_else(|| bad(format!("topk needs k in [0, {n}]")))?;
    let largest = cx.instr.attr_bool("largest").unwrap_or(true);
    let results = result_arrays(cx, 2, false)?;
    let mut out_dims = dims.clone();
    out_dims[rank - 1] = k as i64;
    if !slices_equal(&results[0].dimensions, &out_dims)
        || results[0].element_type != ty
        || !slices_equal(&results[1].dimensions, &out_dims)
        || results[1].element_type != ElementType::S32
    {
        return Err(bad(format!(
            "topk of {} with k={k} gives ({ty}{out_dims:?}, s32{out_dims:?}), not {}",
            x.shape(),
            cx.instr.shape
        )));
    }
    let map = KeyMap::total_order(ty)
        .ok_or_else(|| BackendError::Unsupported(format!("topk of {ty} (no order)")))?;
    let total = dims.iter().product::<i64>() as usize;
    let rows = total.checked_div(n).unwrap_or(0);
    let row_major = Layout::default_for_rank(rank);
    let parallel = cx.parallel(total);
    let (_, data) = packed(&x, &row_major.minor_to_major, parallel);
    let w = ty.byte_width();
    // Order key: ascending in what comes first (so the best K are the smallest keys).
    let mask = if map.width == 64 {
        u64::MAX
    } else {
        (1u64 << map.width) - 1
    };
    let order = move |bits: u64| {
        let key = map.apply(bits);
        if largest {
            !key & mask
        } else {
            key
        }
    };
    let mut values = vec![0u8; rows * k * w];
    let mut indices = vec![0i32; rows * k];
    if k > 0 {
        let body = |r: usize, vals: &mut [u8], idx: &mut [i32]| match w {
            1 => select_row::<u8>(&data, r, n, k, &order, vals, idx),
            2 => select_row::<u16>(&data, r, n, k, &order, vals, idx),
            4 => select_row::<u32>(&data, r, n, k, &order, vals, idx),
            _ => select_row::<u64>(&data, r, n, k, &order, vals, idx),
        };
        if parallel && rows > 1 {
            values
                .par_chunks_mut(k * w)
                .zip(indices.par_chunks_mut(k))
                .enumerate()
                .for_each(|(r, (v, i))| body(r, v, i));
        } else {
            for (r, (v, i)) in values
                .chunks_mut(k * w)
                .zip(indices.chunks_mut(k))
                .enumerate()
            {
                body(r, v, i);
            }
        }
    }
    let have = |t: ElementType| ArrayShape::new(t, out_dims.clone()).with_layout(row_major.clone());
    let v = finish_in_layout(results[0], &have(ty), values, parallel)?;
    let i = finish_in_layout(
        results[1],
        &have(ElementType::S32),
        bytemuck::cast_slice(&indices).to_vec(),
        parallel,
    )?;
    Ok(Value::Tuple(vec![v, i]))
}

/// The best `k` of row `r` (`n` elements of type `T` in `data`) under `order` (smaller first, ties
/// by lower index), written to `vals` (raw bytes) and `idx`.
fn select_row<T: bytemuck::Pod + Into<u64>>(
    data: &[u8],
    r: usize,
    n: usize,
    k: usize,
    order: &impl Fn(u64) -> u64,
    vals: &mut [u8],
    idx: &mut [i32],
) {
    let all = typed::<T>(data);
    let row = &all[r * n..(r + 1) * n];
    let mut best: Vec<(u64, u32)> = Vec::with_capacity(k + 1);
    if k <= INSERTION_K {
        for (j, &x) in row.iter().enumerate() {
            let key = order(x.into());
            if best.len() == k {
                if key >= best[k - 1].0 {
                    continue; // not better than the K-th (ties: the earlier index stays)
                }
                best.pop();
            }
            // After every equal key already kept (they have lower indices).
            let at = best.partition_point(|&(b, _)| b <= key);
            best.insert(at, (key, j as u32));
        }
    } else {
        best.extend(
            row.iter()
                .enumerate()
                .map(|(j, &x)| (order(x.into()), j as u32)),
        );
        if k < n {
            best.select_nth_unstable(k - 1);
            best.truncate(k);
        }
        best.sort_unstable();
    }
    let w = std::mem::size_of::<T>();
    for ((_, j), (v, i)) in best
        .iter()
        .zip(vals.chunks_exact_mut(w).zip(idx.iter_mut()))
    {
        v.copy_from_slice(bytemuck::bytes_of(&row[*j as usize]));
        *i = *j as i32;
    }
}
