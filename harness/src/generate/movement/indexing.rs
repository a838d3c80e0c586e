//! Gather and Scatter with full dimension numbers, valid by construction (seed 004, Gather and
//! Scatter): the operand, the batch ("scatter") dimensions of the indices and the index vector's
//! position are drawn first, then the window dimensions and their positions in the result (or
//! the updates).

use super::{array, boolean, int, ints, Gen};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{AttrValue, Attribute, HloComputation, Opcode};
use conformance_spec::shape::{ArrayShape, Shape};

/// A random subset of `0..n`, sorted.
fn subset(g: &mut Gen, n: usize, p: f64) -> Vec<usize> {
    (0..n).filter(|_| g.rng.chance(p)).collect()
}

/// The indices operand: batch dimensions `batch`, the index vector (of `k` components) at
/// position `index_vector_dim` — or implicit (`index_vector_dim` = rank) when `k` is 1 and the
/// draw says so. Values come from `value(g, batch position, component)`. Returns the parameter
/// and `index_vector_dim`.
fn indices(
    g: &mut Gen,
    batch: &[i64],
    k: usize,
    value: &mut dyn FnMut(&mut Gen, usize) -> i128,
) -> Result<(usize, i64), String> {
    let t = g.index_type();
    let implicit = k == 1 && g.rng.chance(0.3);
    let (dims, ivd) = if implicit {
        (batch.to_vec(), batch.len())
    } else {
        let ivd = g.rng.below(batch.len() as u64 + 1) as usize;
        let mut d = batch.to_vec();
        d.insert(ivd, k as i64);
        (d, ivd)
    };
    // Row-major over `dims`; the component is the coordinate at `ivd` (0 when implicit).
    let count: i64 = dims.iter().product();
    let mut values = Vec::with_capacity(count as usize);
    let mut idx = vec![0i64; dims.len()];
    for _ in 0..count {
        let component = if implicit { 0 } else { idx[ivd] as usize };
        values.push(value(g, component));
        for a in (0..dims.len()).rev() {
            idx[a] += 1;
            if idx[a] < dims[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    let p = g.index_param(t, &dims, &values)?;
    Ok((p, ivd as i64))
}

/// Gather: windows of `slice_sizes` from the operand at clamped starts, some dimensions
/// collapsed, the offset dimensions placed anywhere in the result.
pub(super) fn gather(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let rank = dims.len();
    let x = g.data(ty, &dims)?;
    // start_index_map: distinct operand dimensions in random order.
    let perm = g.rng.permutation(rank);
    let k = g.rng.below(rank as u64 + 1) as usize;
    let start_index_map: Vec<i64> = perm[..k].to_vec();
    // Collapsed dimensions need a window of size 1, so an operand dimension of size >= 1.
    let collapsed: Vec<usize> = subset(g, rank, 0.4)
        .into_iter()
        .filter(|&d| dims[d] >= 1)
        .collect();
    let slice_sizes: Vec<i64> = (0..rank)
        .map(|d| {
            if collapsed.contains(&d) {
                1
            } else {
                g.rng.range_i64(0, dims[d])
            }
        })
        .collect();
    let batch: Vec<i64> = (0..g.rng.below(3)).map(|_| g.rng.range_i64(0, 3)).collect();
    let sizes_for_value = slice_sizes.clone();
    let map = start_index_map.clone();
    // An empty start_index_map takes an index vector of 0 components (all starts 0).
    let (indices_param, ivd) = indices(g, &batch, k, &mut |g, c| {
        let d = map[c] as usize;
        g.start_index(dims[d], sizes_for_value[d])
    })?;
    let offset_count = rank - collapsed.len();
    let out_rank = batch.len() + offset_count;
    let offset_dims: Vec<i64> = {
        let mut positions: Vec<usize> = (0..out_rank).collect();
        // A random sorted subset of size `offset_count`.
        while positions.len() > offset_count {
            let i = g.rng.below(positions.len() as u64) as usize;
            positions.remove(i);
        }
        positions.iter().map(|&p| p as i64).collect()
    };
    let window: Vec<i64> = (0..rank)
        .filter(|d| !collapsed.contains(d))
        .map(|d| slice_sizes[d])
        .collect();
    let mut out = Vec::with_capacity(out_rank);
    let (mut w, mut b) = (0, 0);
    for p in 0..out_rank as i64 {
        if offset_dims.contains(&p) {
            out.push(window[w]);
            w += 1;
        } else {
            out.push(batch[b]);
            b += 1;
        }
    }
    let collapsed: Vec<i64> = collapsed.iter().map(|&d| d as i64).collect();
    let sorted = batch.iter().product::<i64>() <= 1 && g.rng.chance(0.5);
    g.add(
        Opcode::Gather,
        array(ty, &out),
        vec![x, indices_param],
        vec![
            ints("offset_dims", &offset_dims),
            ints("collapsed_slice_dims", &collapsed),
            ints("start_index_map", &start_index_map),
            int("index_vector_dim", ivd),
            ints("slice_sizes", &slice_sizes),
            boolean("indices_are_sorted", sorted),
        ],
    )
}

/// A combiner `(current..., update...) -> new...` for `n` operands of `ty`, named `update`.
/// Returns the computation and a short description.
fn update_computation(g: &mut Gen, ty: ElementType, n: usize) -> Result<HloComputation, String> {
    let mut b = ComputationBuilder::new("update");
    let scalar = Shape::Array(ArrayShape::new(ty, vec![]));
    let params: Vec<usize> = (0..2 * n)
        .map(|_| b.parameter(scalar.clone()))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let choices: &[Option<Opcode>] = if ty.is_pred() {
        &[Some(Opcode::Or), Some(Opcode::And), Some(Opcode::Xor), None]
    } else if ty.is_integer() {
        &[
            Some(Opcode::Add),
            Some(Opcode::Multiply),
            Some(Opcode::Maximum),
            Some(Opcode::Minimum),
            Some(Opcode::Subtract),
            Some(Opcode::Xor),
            None,
        ]
    } else if ty.is_complex() {
        // Complex multiply is not correctly rounded in working precision (its budget is that of
        // the element-wise entry, not 0): left to the element-wise sweeps.
        &[Some(Opcode::Add), Some(Opcode::Subtract), None]
    } else {
        &[
            Some(Opcode::Add),
            Some(Opcode::Multiply),
            Some(Opcode::Maximum),
            Some(Opcode::Minimum),
            Some(Opcode::Subtract),
            None,
        ]
    };
    let mut results = Vec::with_capacity(n);
    for i in 0..n {
        let (current, update) = (params[i], params[n + i]);
        let r = match *g.rng.pick(choices) {
            // Replace: the update wins (non-commutative: order matters).
            None => update,
            Some(op) => b.binary(op, current, update).map_err(|e| e.to_string())?,
        };
        results.push(r);
    }
    let root = if n == 1 {
        results[0]
    } else {
        let shapes = vec![scalar; n];
        b.add_instruction(Opcode::Tuple, Shape::Tuple(shapes), results, vec![])
            .map_err(|e| e.to_string())?
    };
    b.try_build(root).map_err(|e| e.to_string())
}

/// Scatter: N (1 or 2) operands updated through windows at (mostly valid) indices, with an
/// update computation drawn from add, multiply, max, min, subtract, xor/or/and and replace.
/// Repeated indices are frequent (small operands), so the order of updates matters for
/// non-associative combiners and rounding: the comparator accepts every order.
pub(super) fn scatter(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let rank = dims.len();
    let n = if g.rng.chance(0.2) { 2 } else { 1 };
    let mut operands = Vec::with_capacity(2 * n + 1);
    for _ in 0..n {
        operands.push(g.data(ty, &dims)?);
    }
    let perm = g.rng.permutation(rank);
    let k = 1 + g.rng.below(rank as u64) as usize;
    let to_operand: Vec<i64> = perm[..k].to_vec();
    let inserted: Vec<usize> = subset(g, rank, 0.4)
        .into_iter()
        .filter(|&d| dims[d] >= 1)
        .collect();
    let window: Vec<i64> = (0..rank)
        .filter(|d| !inserted.contains(d))
        .map(|d| g.rng.range_i64(0, dims[d].min(3)))
        .collect();
    let full_window: Vec<i64> = {
        let mut w = window.iter();
        (0..rank)
            .map(|d| {
                if inserted.contains(&d) {
                    1
                } else {
                    *w.next().unwrap_or(&0)
                }
            })
            .collect()
    };
    let batch: Vec<i64> = (0..g.rng.below(3)).map(|_| g.rng.range_i64(0, 3)).collect();
    let map = to_operand.clone();
    let (indices_param, ivd) = indices(g, &batch, k, &mut |g, c| {
        let d = map[c] as usize;
        g.start_index(dims[d], full_window[d])
    })?;
    operands.push(indices_param);
    // The updates: batch dimensions and window dimensions interleaved.
    let updates_rank = batch.len() + window.len();
    let update_window_dims: Vec<i64> = {
        let mut positions: Vec<usize> = (0..updates_rank).collect();
        while positions.len() > window.len() {
            let i = g.rng.below(positions.len() as u64) as usize;
            positions.remove(i);
        }
        positions.iter().map(|&p| p as i64).collect()
    };
    let mut update_dims = Vec::with_capacity(updates_rank);
    let (mut w, mut b) = (0, 0);
    for p in 0..updates_rank as i64 {
        if update_window_dims.contains(&p) {
            update_dims.push(window[w]);
            w += 1;
        } else {
            update_dims.push(batch[b]);
            b += 1;
        }
    }
    for _ in 0..n {
        operands.push(g.data(ty, &update_dims)?);
    }
    let computation = update_computation(g, ty, n)?;
    let name = format!("update_{}", g.called.len());
    let computation = HloComputation {
        name,
        ..computation
    };
    let callee = computation.name.clone();
    g.called.push(computation);
    // One window only: trivially sorted and unique.
    let single = batch.iter().product::<i64>() <= 1;
    let inserted: Vec<i64> = inserted.iter().map(|&d| d as i64).collect();
    let shape = if n == 1 {
        array(ty, &dims)
    } else {
        Shape::Tuple(vec![Shape::Array(ArrayShape::new(ty, dims.clone())); n])
    };
    let unique = single && g.rng.chance(0.5);
    let sorted = single && g.rng.chance(0.5);
    g.add(
        Opcode::Scatter,
        shape,
        operands,
        vec![
            ints("update_window_dims", &update_window_dims),
            ints("inserted_window_dims", &inserted),
            ints("scatter_dims_to_operand_dims", &to_operand),
            int("index_vector_dim", ivd),
            boolean("indices_are_sorted", sorted),
            boolean("unique_indices", unique),
            Attribute {
                name: "to_apply".into(),
                value: AttrValue::Computation(callee),
            },
        ],
    )
}
