//! Broadcast, BroadcastInDim, Reshape (plain, dimension-reordering, Collapse), Transpose, Rev,
//! Copy (into another layout), Iota, Tuple, GetTupleElement, Get/SetDimensionSize (seed 004).

use super::{array, int, ints, Gen};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::Opcode;
use conformance_spec::shape::Shape;

/// XlaBuilder's Broadcast: new major dimensions before the operand's.
pub(super) fn broadcast(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let mut dims = g.dims(0);
    dims.truncate(3);
    let x = g.data(ty, &dims)?;
    let new: Vec<i64> = (0..1 + g.rng.below(2))
        .map(|_| g.rng.range_i64(1, 4))
        .collect();
    let out: Vec<i64> = new.iter().chain(&dims).copied().collect();
    let mapping: Vec<i64> = (new.len() as i64..out.len() as i64).collect();
    g.add(
        Opcode::Broadcast,
        array(ty, &out),
        vec![x],
        vec![ints("dimensions", &mapping)],
    )
}

/// BroadcastInDim: operand dimension `i` becomes output dimension `dimensions[i]` (increasing).
/// A quarter of the operand's dimensions have size 1 where the output's is larger: XlaBuilder
/// lowers that to a `reshape` dropping them, then the HLO `broadcast` (whose mapped sizes must be
/// equal), as XLA does.
pub(super) fn broadcast_in_dim(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let out = g.dims(0);
    let mapping: Vec<i64> = (0..out.len() as i64)
        .filter(|_| g.rng.chance(0.5))
        .collect();
    let operand: Vec<i64> = mapping
        .iter()
        .map(|&d| {
            if g.rng.chance(0.25) {
                1
            } else {
                out[d as usize]
            }
        })
        .collect();
    let mut x = g.data(ty, &operand)?;
    let kept: Vec<usize> = (0..mapping.len())
        .filter(|&i| operand[i] == out[mapping[i] as usize])
        .collect();
    if kept.len() < mapping.len() {
        let dims: Vec<i64> = kept.iter().map(|&i| operand[i]).collect();
        x = g.add(Opcode::Reshape, array(ty, &dims), vec![x], vec![])?;
    }
    let mapping: Vec<i64> = kept.iter().map(|&i| mapping[i]).collect();
    g.add(
        Opcode::Broadcast,
        array(ty, &out),
        vec![x],
        vec![ints("dimensions", &mapping)],
    )
}

/// Dimensions with `count` elements in all: the prime factors of `count` distributed over a
/// random rank, with sizes of 1 inserted; some dimension 0 when `count` is 0.
fn factorization(g: &mut Gen, count: i64) -> Vec<i64> {
    let rank = g.rng.below(5) as usize;
    if count == 0 {
        let rank = rank.max(1);
        let mut d: Vec<i64> = (0..rank).map(|_| g.rng.range_i64(0, 4)).collect();
        let k = g.rng.below(rank as u64) as usize;
        d[k] = 0;
        return d;
    }
    let mut factors = Vec::new();
    let mut n = count;
    let mut p = 2;
    while n > 1 {
        while n % p == 0 {
            factors.push(p);
            n /= p;
        }
        p += 1;
    }
    let rank = rank.max(usize::from(!factors.is_empty()));
    if rank == 0 {
        return vec![];
    }
    let mut d = vec![1i64; rank];
    for f in factors {
        let k = g.rng.below(rank as u64) as usize;
        d[k] *= f;
    }
    d
}

/// Reshape to another factorization of the element count (row-major logical order).
pub(super) fn reshape(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    let out = factorization(g, dims.iter().product());
    // The `bitcast` entry: the same shapes, the operand's buffer read under the result's layout.
    let opcode = if g.spec.op.opcode == "bitcast" {
        Opcode::Bitcast
    } else {
        Opcode::Reshape
    };
    g.add(opcode, array(ty, &out), vec![x], vec![])
}

/// XlaBuilder's Reshape with `dimensions`: the operand's dimensions are first put in that order
/// (a `transpose`), then reshaped.
pub(super) fn reshape_reordering(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let x = g.data(ty, &dims)?;
    let perm = g.rng.permutation(dims.len());
    let permuted: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    let t = g.add(
        Opcode::Transpose,
        array(ty, &permuted),
        vec![x],
        vec![ints("dimensions", &perm)],
    )?;
    let out = factorization(g, dims.iter().product());
    g.add(Opcode::Reshape, array(ty, &out), vec![t], vec![])
}

/// XlaBuilder's Collapse: consecutive dimensions merged into one.
pub(super) fn collapse(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let x = g.data(ty, &dims)?;
    let first = g.rng.below(dims.len() as u64) as usize;
    let last = first + g.rng.below((dims.len() - first) as u64) as usize;
    let mut out: Vec<i64> = dims[..first].to_vec();
    out.push(dims[first..=last].iter().product());
    out.extend_from_slice(&dims[last + 1..]);
    g.add(Opcode::Reshape, array(ty, &out), vec![x], vec![])
}

/// Transpose by a random permutation.
pub(super) fn transpose(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    let perm = g.rng.permutation(dims.len());
    let out: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    g.add(
        Opcode::Transpose,
        array(ty, &out),
        vec![x],
        vec![ints("dimensions", &perm)],
    )
}

/// Rev over a random subset of the dimensions.
pub(super) fn reverse(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    let which: Vec<i64> = (0..dims.len() as i64)
        .filter(|_| g.rng.chance(0.5))
        .collect();
    g.add(
        Opcode::Reverse,
        array(ty, &dims),
        vec![x],
        vec![ints("dimensions", &which)],
    )
}

/// Copy, the result in its own random layout (a layout change most of the time).
pub(super) fn copy(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(0);
    let x = g.data(ty, &dims)?;
    g.add(Opcode::Copy, array(ty, &dims), vec![x], vec![])
}

/// Iota along a random dimension of a shape of rank >= 1.
pub(super) fn iota(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let d = g.rng.below(dims.len() as u64) as i64;
    g.add(
        Opcode::Iota,
        array(ty, &dims),
        vec![],
        vec![int("iota_dimension", d)],
    )
}

/// A tuple of 1–3 arrays (the first of the entry's type, the others of any type).
pub(super) fn tuple(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let n = 1 + g.rng.below(3) as usize;
    let mut parts = Vec::with_capacity(n);
    let mut shapes = Vec::with_capacity(n);
    for k in 0..n {
        let t = if k == 0 {
            ty
        } else {
            *g.rng.pick(&ElementType::ALL)
        };
        let dims = g.dims(0);
        let x = g.data(t, &dims)?;
        shapes.push(g.b.shape(x).map_err(|e| e.to_string())?.clone());
        parts.push(x);
    }
    g.add(Opcode::Tuple, Shape::Tuple(shapes), parts, vec![])
}

/// GetTupleElement of a tuple built in the computation.
pub(super) fn get_tuple_element(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let t = tuple(g, ty)?;
    let Shape::Tuple(parts) = g.b.shape(t).map_err(|e| e.to_string())?.clone() else {
        return Err("tuple: not a tuple shape".into());
    };
    let i = g.rng.below(parts.len() as u64) as usize;
    g.add(
        Opcode::GetTupleElement,
        parts[i].clone(),
        vec![t],
        vec![int("index", i as i64)],
    )
}

/// GetDimensionSize of a static operand: the dimension's size (an s32 scalar). Dynamic
/// operands are built by [`super::dynamic::chain`].
pub(super) fn get_dimension_size(g: &mut Gen, ty: ElementType) -> Result<usize, String> {
    let dims = g.dims(1);
    let x = g.data(ty, &dims)?;
    let d = g.rng.below(dims.len() as u64) as i64;
    g.add(
        Opcode::GetDimensionSize,
        array(ElementType::S32, &[]),
        vec![x],
        vec![ints("dimensions", &[d])],
    )
}
