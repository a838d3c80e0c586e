//! Collectives (seed 004: AllReduce, CrossReplicaSum, AllGather, AllToAll, CollectivePermute,
//! ReduceScatter, ReplicaId; `spec/ops/collective.yaml`): each device runs on its own thread
//! ([`conformance_spec::collective::run_devices`]) and meets its group at the rendezvous. The
//! values of a group are combined in group order, which makes the result a function of the
//! inputs alone: a sum is exact and rounded once (as `reduce`'s), other reducers are applied in
//! group order.

use crate::contraction::accumulator::{decode, Accumulator, Mode};
use crate::contraction::reducer::Reducer;
use crate::contraction::{array_from_row_major, collate, AccumulationBound};
use crate::interpreter::{self, invalid, Context, Handler};
use conformance_spec::collective::{participants, permute_peers, Device, DeviceGrid};
use conformance_spec::hlo::ir::{HloInstruction, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::BackendError;

/// The collectives and their handlers.
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::AllReduce, all_reduce),
    (Opcode::AllGather, all_gather),
    (Opcode::AllToAll, all_to_all),
    (Opcode::CollectivePermute, collective_permute),
    (Opcode::ReduceScatter, reduce_scatter),
    (Opcode::ReplicaId, replica_id),
    (Opcode::PartitionId, partition_id),
];

fn group_of(device: Device, instr: &HloInstruction) -> Result<Vec<usize>, BackendError> {
    participants(instr, device.grid, device.id)
        .map_err(|m| BackendError::Invalid(format!("{}: {m}", instr.opcode)))
}

/// Deposits this device's operands (a tuple) and returns every group member's, in group order.
fn exchange(
    ctx: &Context,
    instr: &HloInstruction,
    group: &[usize],
    operands: &[&Literal],
) -> Result<Vec<Vec<ArrayLiteral>>, BackendError> {
    let mine = Literal::Tuple(operands.iter().map(|&o| o.clone()).collect());
    let all = ctx.device.exchange(&instr.name, group, mine)?;
    all.into_iter()
        .map(|v| match v.as_ref() {
            Literal::Tuple(items) => items
                .iter()
                .map(|i| match i {
                    Literal::Array(a) => Ok(a.clone()),
                    _ => invalid(format!("{}: an operand is not an array", instr.opcode)),
                })
                .collect(),
            _ => invalid("a collective exchanged something other than a tuple"),
        })
        .collect()
}

fn result_shapes(instr: &HloInstruction, n: usize) -> Result<Vec<&ArrayShape>, BackendError> {
    crate::contraction::result_shapes(instr.opcode.name(), instr, n)
}

/// `values[g]` combined element by element with the `to_apply` reducer of `instr`, in group
/// order: a sum exactly (with its bound when `track`), other reducers folded from the first.
fn combine(
    ctx: &Context,
    instr: &HloInstruction,
    values: &[&ArrayLiteral],
    track: bool,
) -> Result<(Vec<u128>, Vec<AccumulationBound>), BackendError> {
    let t = values[0].element_type();
    if values
        .iter()
        .any(|v| v.dimensions() != values[0].dimensions())
    {
        return invalid(format!(
            "{}: the devices of a group hold operands of different dimensions",
            instr.opcode
        ));
    }
    let reducer = Reducer::new(ctx.module, instr, "to_apply", &[t], t, true)?;
    let bits: Vec<Vec<u128>> = values.iter().map(|v| v.logical_bits()).collect();
    let n = bits[0].len();
    let mut out = Vec::with_capacity(n);
    let mut bounds = Vec::new();
    if reducer.is_sum() {
        let mode = Mode::new(instr.opcode.name(), t, t)?;
        for e in 0..n {
            let mut acc = Accumulator::new(mode, track);
            for b in &bits {
                acc.add_value(&decode(t, b[e]));
            }
            out.push(acc.finish());
            if track {
                bounds.push(acc.bound());
            }
        }
    } else {
        for e in 0..n {
            let mut acc = vec![bits[0][e]];
            for b in &bits[1..] {
                acc = reducer.apply(ctx, &[t], &[t], &acc, &[b[e]])?;
            }
            out.push(acc[0]);
        }
    }
    Ok((out, bounds))
}

/// `all-reduce(operands...)` (seed 004, AllReduce; CrossReplicaSum is the one with a sum): each
/// operand combined over the device's group; a tuple for several operands.
///
/// Errors: [`BackendError::Invalid`] for bad groups, results that are not the operands'
/// shapes, group members whose operands differ in dimensions; a deadlock
/// ([`BackendError::Failure`]) when a group member never reaches the instruction.
fn all_reduce(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let group = group_of(ctx.device, instr)?;
    let shapes = result_shapes(instr, operands.len())?;
    let values = exchange(ctx, instr, &group, operands)?;
    let mut results = Vec::with_capacity(operands.len());
    for (k, shape) in shapes.iter().enumerate() {
        let column: Vec<&ArrayLiteral> = values.iter().map(|v| &v[k]).collect();
        if column[0].dimensions() != shape.dimensions.as_slice() {
            return invalid(format!(
                "all-reduce: result {k} is {shape}, operand {k} {}",
                column[0].shape()
            ));
        }
        let (bits, _) = combine(ctx, instr, &column, false)?;
        results.push(array_from_row_major(shape, &bits));
    }
    Ok(collate(results))
}

/// The one dimension of `dimensions={d}`.
fn dimension(instr: &HloInstruction, rank: usize) -> Result<usize, BackendError> {
    match instr.attr_ints("dimensions") {
        Some(&[d]) if (0..rank as i64).contains(&d) => Ok(d as usize),
        _ => invalid(format!(
            "{}: `dimensions` must name one dimension of the rank-{rank} operand",
            instr.opcode
        )),
    }
}

fn single_array<'a>(
    instr: &HloInstruction,
    operands: &[&'a Literal],
) -> Result<&'a ArrayLiteral, BackendError> {
    match operands {
        [Literal::Array(a)] => Ok(a),
        _ => invalid(format!("{} takes one array operand", instr.opcode)),
    }
}

/// `all-gather(operand), dimensions={d}` (seed 004, AllGather): the group's operands
/// concatenated along `d` in group order.
///
/// Errors: [`BackendError::Invalid`] for a result that is not the operand with dimension `d`
/// times the group size; group errors as for `all-reduce`.
fn all_gather(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let a = single_array(instr, operands)?;
    let d = dimension(instr, a.shape().rank())?;
    let group = group_of(ctx.device, instr)?;
    let out = interpreter::result_array_shape(instr)?;
    let n = a.dimensions()[d];
    let mut expected = a.dimensions().to_vec();
    expected[d] = n * group.len() as i64;
    if out.dimensions != expected {
        return invalid(format!(
            "all-gather: the result is {out}, expected dimensions {expected:?} for a group of {}",
            group.len()
        ));
    }
    let values = exchange(ctx, instr, &group, operands)?;
    let mut result = ArrayLiteral::zeros(out.clone());
    let mut src = vec![0i64; expected.len()];
    index::for_each_index(&expected, |idx| {
        src.copy_from_slice(idx);
        src[d] = idx[d] % n;
        result.set_bits(idx, values[(idx[d] / n) as usize][0].get_bits(&src));
    });
    Ok(Literal::Array(result))
}

/// `reduce-scatter(operand), dimensions={d}` (seed 004, ReduceScatter): the all-reduce of the
/// group, of which the device at position `k` of its group keeps block `k` along `d`.
///
/// Errors: as `all-reduce`, and a result that is not dimension `d` divided by the group size.
fn reduce_scatter(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let a = single_array(instr, operands)?;
    let d = dimension(instr, a.shape().rank())?;
    let group = group_of(ctx.device, instr)?;
    let out = interpreter::result_array_shape(instr)?;
    let g = group.len() as i64;
    let n = a.dimensions()[d];
    let mut expected = a.dimensions().to_vec();
    expected[d] = n / g;
    if n % g != 0 || out.dimensions != expected {
        return invalid(format!(
            "reduce-scatter: the result is {out}; dimension {d} ({n}) divided among {g} devices gives {expected:?}"
        ));
    }
    let k = group.iter().position(|&m| m == ctx.device.id).unwrap_or(0) as i64;
    let values = exchange(ctx, instr, &group, operands)?;
    let column: Vec<&ArrayLiteral> = values.iter().map(|v| &v[0]).collect();
    let (bits, _) = combine(ctx, instr, &column, false)?;
    let strides = crate::contraction::row_major_strides(a.dimensions());
    let block = expected[d];
    let mut shard = Vec::with_capacity(out.element_count());
    index::for_each_index(&expected, |idx| {
        let offset: usize = idx
            .iter()
            .enumerate()
            .map(|(j, &i)| {
                let i = if j == d { i + k * block } else { i };
                i as usize * strides[j]
            })
            .sum();
        shard.push(bits[offset]);
    });
    Ok(Literal::Array(array_from_row_major(out, &shard)))
}

/// `all-to-all` (seed 004, AllToAll). The array form (`dimensions={d}`): each device splits
/// its operand into as many blocks along `d` as its group has devices, sends block `j` to the
/// group's `j`-th device, and concatenates the blocks it receives along `d` in group order. The
/// tuple form (one operand per group member, no `dimensions`): result `j` is the `k`-th operand
/// of the group's `j`-th device, `k` this device's position.
///
/// Errors: [`BackendError::Invalid`] for a split dimension the group size does not divide,
/// results that are not the operands' shapes; group errors as for `all-reduce`.
fn all_to_all(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let group = group_of(ctx.device, instr)?;
    let g = group.len();
    let k = group.iter().position(|&m| m == ctx.device.id).unwrap_or(0);
    if instr.attribute("dimensions").is_none() {
        if operands.len() != g {
            return invalid(format!(
                "all-to-all (tuple form): {} operands for a group of {g}",
                operands.len()
            ));
        }
        let shapes = result_shapes(instr, g)?;
        let values = exchange(ctx, instr, &group, operands)?;
        let results = values
            .iter()
            .zip(shapes)
            .map(|(v, s)| v[k].relayout(s.layout.clone()))
            .collect();
        return Ok(collate(results));
    }
    let a = single_array(instr, operands)?;
    let d = dimension(instr, a.shape().rank())?;
    let n = a.dimensions()[d];
    let out = interpreter::result_array_shape(instr)?;
    if n % g as i64 != 0 || out.dimensions != a.dimensions() {
        return invalid(format!(
            "all-to-all: dimension {d} ({n}) must split into {g} blocks and the result keep the operand's dimensions"
        ));
    }
    let block = n / g as i64;
    let values = exchange(ctx, instr, &group, operands)?;
    let mut result = ArrayLiteral::zeros(out.clone());
    let mut src = vec![0i64; a.shape().rank()];
    index::for_each_index(a.dimensions(), |idx| {
        src.copy_from_slice(idx);
        src[d] = k as i64 * block + idx[d] % block;
        result.set_bits(idx, values[(idx[d] / block) as usize][0].get_bits(&src));
    });
    Ok(Literal::Array(result))
}

/// `collective-permute(operand), source_target_pairs` (seed 004, CollectivePermute): the
/// operand of the device whose pair targets this one, or zeros when none does.
///
/// Errors: [`BackendError::Invalid`] for pairs that name an id twice or out of range.
fn collective_permute(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let a = single_array(instr, operands)?;
    let out = interpreter::result_array_shape(instr)?;
    let (source, domain) = permute_peers(instr, ctx.device.grid, ctx.device.id)
        .map_err(|m| BackendError::Invalid(format!("collective-permute: {m}")))?;
    let values = exchange(ctx, instr, &domain, operands)?;
    Ok(Literal::Array(match source {
        Some(s) => {
            let from = domain.iter().position(|&m| m == s).unwrap_or(0);
            values[from][0].relayout(out.layout.clone())
        }
        None => ArrayLiteral::zeros(ArrayShape {
            element_type: a.element_type(),
            ..out.clone()
        }),
    }))
}

fn device_id(instr: &HloInstruction, id: usize) -> Result<Literal, BackendError> {
    let out = interpreter::result_array_shape(instr)?;
    if !out.dimensions.is_empty() || out.element_type != conformance_spec::ElementType::U32 {
        return invalid(format!("{} gives a u32 scalar, not {out}", instr.opcode));
    }
    Ok(Literal::Array(ArrayLiteral::scalar_bits(
        out.element_type,
        id as u128,
    )))
}

/// `replica-id()` (seed 004, ReplicaId): the device's replica, a u32 scalar.
fn replica_id(
    ctx: &Context,
    instr: &HloInstruction,
    _: &[&Literal],
) -> Result<Literal, BackendError> {
    device_id(instr, ctx.device.grid.replica_of(ctx.device.id))
}

/// `partition-id()`: the device's partition, a u32 scalar.
fn partition_id(
    ctx: &Context,
    instr: &HloInstruction,
    _: &[&Literal],
) -> Result<Literal, BackendError> {
    device_id(instr, ctx.device.grid.partition_of(ctx.device.id))
}

/// Per result leaf (each device's in turn; an all-reduce of several operands has one leaf per
/// operand), per element of an `all-reduce` or `reduce-scatter` root whose reducer is a sum:
/// the terms and Σ|terms| of the element's sum (for the order-independent bound). `None` for
/// other roots or reducers.
///
/// Errors: those of evaluating the root's operands.
pub fn bounds(
    module: &HloModule,
    args: &[Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    let entry = module.entry_computation();
    let root = entry.root_instruction();
    if !matches!(root.opcode, Opcode::AllReduce | Opcode::ReduceScatter)
        || !crate::contraction::reducer::is_sum_computation(module, root, "to_apply")
    {
        return Ok(None);
    }
    let grid = DeviceGrid::of(module)?;
    let per_device = interpreter::root_operands_per_device(module, args)?;
    let ctx = Context {
        module,
        args,
        depth: 0,
        device: Device::single(),
    };
    let mut out = Vec::new();
    for d in 0..grid.devices() {
        let group = participants(root, grid, d).map_err(BackendError::Invalid)?;
        for k in 0..root.operands.len() {
            let column: Vec<&ArrayLiteral> = group
                .iter()
                .map(|&m| match per_device.get(m).and_then(|o| o.get(k)) {
                    Some(Literal::Array(a)) => Ok(a),
                    _ => invalid("a collective's operand is not an array"),
                })
                .collect::<Result<_, _>>()?;
            let (_, bounds) = combine(&ctx, root, &column, true)?;
            if root.opcode == Opcode::AllReduce {
                out.push(bounds);
                continue;
            }
            // reduce-scatter: the device's block of the row-major bounds.
            let dims = column[0].dimensions();
            let axis = dimension(root, dims.len())?;
            let position = group.iter().position(|&m| m == d).unwrap_or(0) as i64;
            let block = dims[axis] / group.len() as i64;
            let mut shard_dims = dims.to_vec();
            shard_dims[axis] = block;
            let strides = crate::contraction::row_major_strides(dims);
            let mut shard = Vec::new();
            index::for_each_index(&shard_dims, |idx| {
                let offset: usize = idx
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| {
                        let i = if j == axis { i + position * block } else { i };
                        i as usize * strides[j]
                    })
                    .sum();
                shard.push(bounds[offset]);
            });
            out.push(shard);
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
#[path = "collective_tests.rs"]
mod tests;
