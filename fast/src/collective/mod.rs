//! Collectives (seed 004: AllReduce, AllGather, AllToAll, CollectivePermute, ReduceScatter,
//! ReplicaId): every device runs on its own thread (`conformance_spec::collective::run_devices`)
//! and exchanges its operands at the rendezvous. Blocks move as row-major byte ranges; a
//! reducer recognized as an element-wise operation of its two parameters combines whole arrays
//! through the element-wise kernels, in group order (each step rounded, as XLA's CPU backend
//! does), any other reducer element by element through the interpreter.

use crate::contraction::reducer;
use crate::op_context::Ctx;
use crate::value::Value;
use conformance_spec::collective::{participants, permute_peers};
use conformance_spec::hlo::{HloInstruction, Opcode};
use conformance_spec::{
    ArrayLiteral, ArrayShape, BackendError, ElementType, Layout, Literal, Shape,
};

/// True for the opcodes of this family.
pub(crate) fn is_collective(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::AllReduce
            | Opcode::AllGather
            | Opcode::AllToAll
            | Opcode::CollectivePermute
            | Opcode::ReduceScatter
            | Opcode::ReplicaId
            | Opcode::PartitionId
    )
}

fn invalid<T>(m: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(m.into()))
}

/// Evaluates a collective on this context's device.
///
/// Errors: [`BackendError::Invalid`] for bad groups, pairs, dimensions or result shapes;
/// [`BackendError::Failure`] for a deadlock; the reducer's errors.
pub(crate) fn evaluate<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let instr = cx.instr;
    let grid = cx.device.grid;
    let id = cx.device.id;
    match instr.opcode {
        Opcode::ReplicaId => device_id(instr, grid.replica_of(id)),
        Opcode::PartitionId => device_id(instr, grid.partition_of(id)),
        Opcode::CollectivePermute => {
            let (source, domain) = permute_peers(instr, grid, id)
                .map_err(|m| BackendError::Invalid(format!("collective-permute: {m}")))?;
            let out = result_shape(instr, 0)?;
            let values = exchange(&cx, &domain)?;
            Ok(Value::owned(match source {
                Some(s) => {
                    let from = domain.iter().position(|&m| m == s).unwrap_or(0);
                    values[from][0].clone()
                }
                None => ArrayLiteral::zeros(row_major(out)),
            }))
        }
        _ => {
            let group = participants(instr, grid, id)
                .map_err(|m| BackendError::Invalid(format!("{}: {m}", instr.opcode)))?;
            let position = group.iter().position(|&m| m == id).unwrap_or(0);
            let values = exchange(&cx, &group)?;
            match instr.opcode {
                Opcode::AllReduce => all_reduce(&cx, &values),
                Opcode::AllGather => all_gather(instr, &values),
                Opcode::ReduceScatter => reduce_scatter(&cx, &values, position),
                _ => all_to_all(instr, &values, position),
            }
        }
    }
}

fn device_id<'a>(instr: &HloInstruction, id: usize) -> Result<Value<'a>, BackendError> {
    match instr.shape.as_array() {
        Some(s) if s.dimensions.is_empty() && s.element_type == ElementType::U32 => Ok(
            Value::owned(ArrayLiteral::scalar_bits(ElementType::U32, id as u128)),
        ),
        _ => invalid(format!("{} gives a u32 scalar", instr.opcode)),
    }
}

fn row_major(shape: &ArrayShape) -> ArrayShape {
    ArrayShape::new(shape.element_type, shape.dimensions.clone())
}

fn result_shape(instr: &HloInstruction, k: usize) -> Result<&ArrayShape, BackendError> {
    match &instr.shape {
        Shape::Array(a) if k == 0 => Ok(a),
        Shape::Tuple(items) => items.get(k).and_then(Shape::as_array).ok_or_else(|| {
            BackendError::Invalid(format!("{}: result {k} is not an array", instr.opcode))
        }),
        _ => invalid(format!("{}: result {k} is not an array", instr.opcode)),
    }
}

/// Deposits this device's operands (row-major) and returns every member's, in group order.
fn exchange(cx: &Ctx<'_, '_>, group: &[usize]) -> Result<Vec<Vec<ArrayLiteral>>, BackendError> {
    let mut mine = Vec::with_capacity(cx.operands.len());
    for v in &cx.operands {
        match v.clone().into_literal()? {
            Literal::Array(a) => {
                let rank = a.shape().rank();
                mine.push(Literal::Array(a.relayout(Layout::default_for_rank(rank))));
            }
            _ => return invalid(format!("{}: an operand is not an array", cx.instr.opcode)),
        }
    }
    let all =
        cx.device
            .rendezvous
            .exchange(cx.device.id, &cx.instr.name, group, Literal::Tuple(mine))?;
    all.into_iter()
        .map(|l| match l {
            Literal::Tuple(items) => items
                .into_iter()
                .map(|i| {
                    i.into_array()
                        .ok_or_else(|| BackendError::Failure("a non-array was exchanged".into()))
                })
                .collect(),
            _ => Err(BackendError::Failure("a non-tuple was exchanged".into())),
        })
        .collect()
}

/// The group's arrays combined with the `to_apply` reducer, in group order.
fn combine(cx: &Ctx<'_, '_>, arrays: &[&ArrayLiteral]) -> Result<ArrayLiteral, BackendError> {
    let instr = cx.instr;
    let first = arrays[0];
    if arrays.iter().any(|a| a.dimensions() != first.dimensions()) {
        return invalid(format!(
            "{}: the devices of a group hold operands of different dimensions",
            instr.opcode
        ));
    }
    let comp = instr
        .called_computations()
        .first()
        .and_then(|n| cx.module.computation(n))
        .ok_or_else(|| {
            BackendError::Invalid(format!("{}: no `to_apply` computation", instr.opcode))
        })?;
    let ty = first.element_type();
    let root = comp.root_instruction();
    if reducer::recognize(comp).is_some()
        && root.shape.as_array().map(|a| a.element_type) == Some(ty)
    {
        // The reducer's own operation on whole arrays.
        let step = HloInstruction {
            name: format!("{}.combine", instr.name),
            opcode: root.opcode,
            shape: Shape::Array(row_major(first.shape())),
            operands: vec![0, 1],
            parameter_number: None,
            literal: None,
            attributes: root.attributes.clone(),
        };
        let mut acc = first.clone();
        for a in &arrays[1..] {
            let (x, y) = (Value::owned(acc), Value::owned((*a).clone()));
            acc = crate::elementwise::evaluate(&step, &[&x, &y], cx.exec)?;
        }
        return Ok(acc);
    }
    let n = first.shape().element_count();
    let mut out = ArrayLiteral::zeros(row_major(first.shape()));
    let mut res = Vec::new();
    for e in 0..n {
        let mut acc = [first.get_bits_linear(e)];
        for a in &arrays[1..] {
            let args = [(ty, acc[0]), (ty, a.get_bits_linear(e))];
            reducer::fold_step(cx, comp, &args, &mut res, &mut acc)?;
        }
        out.set_bits_linear(e, acc[0]);
    }
    Ok(out)
}

fn all_reduce<'a>(
    cx: &Ctx<'_, 'a>,
    values: &[Vec<ArrayLiteral>],
) -> Result<Value<'a>, BackendError> {
    let n = cx.operands.len();
    let mut results = Vec::with_capacity(n);
    for k in 0..n {
        let column: Vec<&ArrayLiteral> = values.iter().map(|v| &v[k]).collect();
        let out = result_shape(cx.instr, k)?;
        if out.dimensions != column[0].dimensions() {
            return invalid(format!(
                "all-reduce: result {k} is {out}, operand {}",
                column[0].shape()
            ));
        }
        results.push(Value::owned(combine(cx, &column)?));
    }
    Ok(if results.len() == 1 {
        results.remove(0)
    } else {
        Value::Tuple(results)
    })
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

/// (rows, bytes per row) of a row-major array split at dimension `d`: `rows` is the product of
/// the dimensions before `d`, a row holds dimension `d` and everything after it.
fn split_at(shape: &ArrayShape, d: usize) -> (usize, usize) {
    let rows: i64 = shape.dimensions[..d].iter().product();
    let row: i64 = shape.dimensions[d..].iter().product();
    (
        rows as usize,
        row as usize * shape.element_type.byte_width(),
    )
}

fn all_gather<'a>(
    instr: &HloInstruction,
    values: &[Vec<ArrayLiteral>],
) -> Result<Value<'a>, BackendError> {
    let part = values[0][0].shape();
    let d = dimension(instr, part.rank())?;
    let out = result_shape(instr, 0)?;
    let mut expected = part.dimensions.clone();
    expected[d] *= values.len() as i64;
    if out.dimensions != expected {
        return invalid(format!(
            "all-gather: the result is {out}, expected dimensions {expected:?} for a group of {}",
            values.len()
        ));
    }
    let (rows, row) = split_at(part, d);
    let mut data = Vec::with_capacity(rows * row * values.len());
    for r in 0..rows {
        for v in values {
            data.extend_from_slice(&v[0].data()[r * row..(r + 1) * row]);
        }
    }
    owned(row_major(out), data)
}

fn owned<'a>(shape: ArrayShape, data: Vec<u8>) -> Result<Value<'a>, BackendError> {
    ArrayLiteral::from_physical_bytes(shape, data)
        .map(Value::owned)
        .map_err(|e| BackendError::Failure(e.to_string()))
}

/// Block `k` of `a` along dimension `d` when split into `g` blocks (row-major bytes).
fn block(a: &ArrayLiteral, d: usize, g: usize, k: usize) -> Vec<u8> {
    let (rows, row) = split_at(a.shape(), d);
    let part = row / g;
    let mut data = Vec::with_capacity(rows * part);
    for r in 0..rows {
        let start = r * row + k * part;
        data.extend_from_slice(&a.data()[start..start + part]);
    }
    data
}

fn reduce_scatter<'a>(
    cx: &Ctx<'_, 'a>,
    values: &[Vec<ArrayLiteral>],
    position: usize,
) -> Result<Value<'a>, BackendError> {
    let operand = values[0][0].shape().clone();
    let d = dimension(cx.instr, operand.rank())?;
    let g = values.len();
    let out = result_shape(cx.instr, 0)?;
    let mut expected = operand.dimensions.clone();
    expected[d] /= g as i64;
    if operand.dimensions[d] % g as i64 != 0 || out.dimensions != expected {
        return invalid(format!(
            "reduce-scatter: the result is {out}; dimension {d} divided among {g} devices gives {expected:?}"
        ));
    }
    let column: Vec<&ArrayLiteral> = values.iter().map(|v| &v[0]).collect();
    let full = combine(cx, &column)?;
    owned(row_major(out), block(&full, d, g, position))
}

fn all_to_all<'a>(
    instr: &HloInstruction,
    values: &[Vec<ArrayLiteral>],
    position: usize,
) -> Result<Value<'a>, BackendError> {
    let g = values.len();
    if instr.attribute("dimensions").is_none() {
        // The tuple form: result j is member j's operand for this position.
        if values[0].len() != g {
            return invalid(format!(
                "all-to-all (tuple form): {} operands for a group of {g}",
                values[0].len()
            ));
        }
        return Ok(Value::Tuple(
            values
                .iter()
                .map(|v| Value::owned(v[position].clone()))
                .collect(),
        ));
    }
    let operand = values[0][0].shape();
    let d = dimension(instr, operand.rank())?;
    let out = result_shape(instr, 0)?;
    if operand.dimensions[d] % g as i64 != 0 || out.dimensions != operand.dimensions {
        return invalid(format!(
            "all-to-all: dimension {d} ({}) must split into {g} blocks and the result keep the operand's dimensions",
            operand.dimensions[d]
        ));
    }
    // Member j's block `position`, concatenated along d in group order.
    let (rows, row) = split_at(operand, d);
    let part = row / g;
    let mut data = Vec::with_capacity(rows * row);
    for r in 0..rows {
        for v in values {
            let start = r * row + position * part;
            data.extend_from_slice(&v[0].data()[start..start + part]);
        }
    }
    owned(row_major(out), data)
}

#[cfg(test)]
mod tests;
