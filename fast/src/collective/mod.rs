//! Collectives (seed 004: AllReduce, AllGather, AllToAll, CollectivePermute, ReduceScatter,
//! ReplicaId): every device runs on its own thread (`conformance_spec::collective::run_devices`)
//! and exchanges its operands at the rendezvous. Blocks move as row-major byte ranges; a
//! reducer recognized as an element-wise operation of its two parameters combines whole arrays
//! through the element-wise kernels, in group order (each step rounded, as XLA's CPU backend
//! does), any other reducer element by element through the interpreter.

use crate::contraction::reducer;
use crate::op_context::Ctx;
use crate::value::Storage;
use crate::value::Value;
use conformance_spec::collective::{participants, permute_peers, Device, Lent};
use conformance_spec::hlo::{HloInstruction, Opcode};
use conformance_spec::shape::slices_equal;
use conformance_spec::{ArrayLiteral, ArrayShape, BackendError, ElementType, Literal, Shape};
use std::sync::Arc;

/// True for the opcodes of this family.
pub(crate) use conformance_spec::collective::is_collective;

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
                    values.item(from, 0)?.clone()
                }
                None => ArrayLiteral::zeros(row_major(out)),
            }))
        }
        _ => {
            let group = participants(instr, grid, id)
                .map_err(|m| BackendError::Invalid(format!("{}: {m}", instr.opcode)))?;
            let position = group.iter().position(|&m| m == id).unwrap_or(0);
            if instr.opcode == Opcode::AllReduce {
                return all_reduce(&cx, &group, position);
            }
            let values = exchange(&cx, &group)?;
            match instr.opcode {
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

/// Every member's lent arrays (row-major), in group order: nothing is copied to exchange
/// them (a parameter is read where the run holds it, other values are shared).
struct Exchanged<'d> {
    device: Device<'d>,
    group: Vec<usize>,
    lent: Vec<Arc<[Lent]>>,
}

impl Exchanged<'_> {
    /// Array `k` of the member at position `i` of the group.
    fn item(&self, i: usize, k: usize) -> Result<&ArrayLiteral, BackendError> {
        let lent = self
            .lent
            .get(i)
            .and_then(|l| l.get(k))
            .ok_or_else(|| BackendError::Failure(format!("member {i} lent no array {k}")))?;
        self.device.lent(self.group[i], lent)
    }

    /// Array `k` of every member, in group order.
    fn column(&self, k: usize) -> Result<Vec<&ArrayLiteral>, BackendError> {
        (0..self.lent.len()).map(|i| self.item(i, k)).collect()
    }

    fn len(&self) -> usize {
        self.lent.len()
    }
}

/// Lends this device's `arrays` at `site` and returns every member's, in group order.
fn exchange_at<'d>(
    cx: &Ctx<'d, '_>,
    site: &str,
    group: &[usize],
    arrays: Vec<Lent>,
) -> Result<Exchanged<'d>, BackendError> {
    Ok(Exchanged {
        device: cx.device,
        group: group.to_vec(),
        lent: cx.device.lend(site, group, arrays)?,
    })
}

/// The operands in row-major layout, as they can be lent: a parameter by its number, a shared
/// buffer by reference; other values (another layout, a view, a splat, a constant) are
/// materialized once.
fn lendable_operands(cx: &Ctx<'_, '_>) -> Result<Vec<Lent>, BackendError> {
    cx.operands
        .iter()
        .map(|v| {
            let shape = match v.array_shape() {
                Some(a) => Shape::Array(row_major(a)),
                None => return invalid(format!("{}: an operand is not an array", cx.instr.opcode)),
            };
            let v = crate::interpreter::conform(v.clone(), &shape, cx.exec)?;
            if let Value::Array(a) = &v {
                match a.plain_storage() {
                    Some(Storage::Shared(s)) => return Ok(Lent::Shared(s.clone())),
                    Some(Storage::Borrowed(b)) => {
                        if let Some(p) = cx.device.as_parameter(b) {
                            return Ok(p);
                        }
                    }
                    None => {}
                }
            }
            match v.into_literal()? {
                Literal::Array(a) => Ok(Lent::Shared(Arc::new(a))),
                _ => invalid(format!("{}: an operand is not an array", cx.instr.opcode)),
            }
        })
        .collect()
}

/// Lends this device's operands (row-major) and returns every member's, in group order.
fn exchange<'d>(cx: &Ctx<'d, '_>, group: &[usize]) -> Result<Exchanged<'d>, BackendError> {
    let mine = lendable_operands(cx)?;
    exchange_at(cx, &cx.instr.name, group, mine)
}

/// The `to_apply` computation.
fn to_apply<'a>(
    cx: &Ctx<'_, 'a>,
) -> Result<&'a conformance_spec::hlo::HloComputation, BackendError> {
    cx.instr
        .called_computations()
        .first()
        .and_then(|n| cx.module.computation(n))
        .ok_or_else(|| {
            BackendError::Invalid(format!("{}: no `to_apply` computation", cx.instr.opcode))
        })
}

/// The root of `to_apply` when it is one element-wise operation of its two parameters
/// (`reducer::recognize`), which then combines whole arrays.
fn reducer_step<'a>(cx: &Ctx<'_, 'a>) -> Result<Option<&'a HloInstruction>, BackendError> {
    let comp = to_apply(cx)?;
    Ok(reducer::recognize(comp).map(|_| comp.root_instruction()))
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
        // The members are borrowed; only the running value is owned.
        let mut acc: Option<ArrayLiteral> = None;
        for a in &arrays[1..] {
            let x = match acc.take() {
                Some(v) => Value::owned(v),
                None => Value::borrow_array(first),
            };
            let y = Value::borrow_array(a);
            acc = Some(crate::elementwise::evaluate(&step, &[&x, &y], cx.exec)?);
        }
        return Ok(acc.unwrap_or_else(|| first.clone()));
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

/// `all-reduce`. With a recognized reducer the work is split as a reduce-scatter then an
/// all-gather: the device at position `k` of its group combines the `k`-th of `G` slices of
/// every operand (in group order), then the slices are exchanged and concatenated, so each
/// element is combined once per group, by one device.
fn all_reduce<'a>(
    cx: &Ctx<'_, 'a>,
    group: &[usize],
    position: usize,
) -> Result<Value<'a>, BackendError> {
    let n = cx.operands.len();
    let values = exchange(cx, group)?;
    let recognized = reducer_step(cx)?.is_some();
    let mut results = Vec::with_capacity(n);
    for k in 0..n {
        let column = values.column(k)?;
        let out = result_shape(cx.instr, k)?;
        if !slices_equal(&out.dimensions, column[0].dimensions()) {
            return invalid(format!(
                "all-reduce: result {k} is {out}, operand {}",
                column[0].shape()
            ));
        }
        if !recognized || group.len() == 1 {
            results.push(combine(cx, &column)?);
            continue;
        }
        // This device's slice, combined; then every member's slice, in order.
        let count = column[0].shape().element_count();
        let (lo, hi) = (
            count * position / group.len(),
            count * (position + 1) / group.len(),
        );
        let w = column[0].element_type().byte_width();
        let ty = column[0].element_type();
        let slice_shape = ArrayShape::new(ty, vec![(hi - lo) as i64]);
        let folded = reducer::recognize(to_apply(cx)?)
            .filter(|_| root_type(cx) == Some(ty))
            .and_then(|kind| fold_slices(kind, &column, lo, hi));
        let mine = match folded {
            Some(bytes) => ArrayLiteral::from_physical_bytes(slice_shape, bytes)
                .map_err(|e| BackendError::Failure(e.to_string()))?,
            None => {
                let slices: Vec<ArrayLiteral> = column
                    .iter()
                    .map(|a| {
                        ArrayLiteral::from_physical_bytes(
                            slice_shape.clone(),
                            a.data()[lo * w..hi * w].to_vec(),
                        )
                        .map_err(|e| BackendError::Failure(e.to_string()))
                    })
                    .collect::<Result<_, _>>()?;
                let refs: Vec<&ArrayLiteral> = slices.iter().collect();
                combine(cx, &refs)?
            }
        };
        let site = format!("{}#{k}.slices", cx.instr.name);
        let parts = exchange_at(cx, &site, group, vec![Lent::Shared(Arc::new(mine))])?;
        let mut data = Vec::with_capacity(count * w);
        for p in parts.column(0)? {
            data.extend_from_slice(p.data());
        }
        results.push(
            ArrayLiteral::from_physical_bytes(row_major(column[0].shape()), data)
                .map_err(|e| BackendError::Failure(e.to_string()))?,
        );
    }
    let mut results: Vec<Value<'a>> = results.into_iter().map(Value::owned).collect();
    Ok(if results.len() == 1 {
        results.remove(0)
    } else {
        Value::Tuple(results)
    })
}

/// The element type of `to_apply`'s root, when it is an array.
fn root_type(cx: &Ctx<'_, '_>) -> Option<ElementType> {
    let comp = to_apply(cx).ok()?;
    comp.root_instruction()
        .shape
        .as_array()
        .map(|a| a.element_type)
}

/// Elements `lo..hi` of every member's row-major array combined by `kind` in group order
/// (`((a₀ ∘ a₁) ∘ a₂) ∘ …`, each step rounded), as row-major bytes: the element-wise kernels'
/// operations (IEEE `+` and `×`, [`binary::max_f32`] …) in one pass over each member's slice,
/// with no intermediate arrays. `None` for element types other than f32 and f64, for `and`/`or`,
/// and when a buffer is not aligned for its element type (the caller then combines through the
/// element-wise kernels, which compute the same bits).
fn fold_slices(
    kind: reducer::Kind,
    column: &[&ArrayLiteral],
    lo: usize,
    hi: usize,
) -> Option<Vec<u8>> {
    use crate::elementwise::binary;
    use reducer::Kind;
    let (c, l, h) = (column, lo, hi);
    match (column.first()?.element_type(), kind) {
        (ElementType::F32, Kind::Add) => fold_typed(c, l, h, |a: f32, b| a + b),
        (ElementType::F32, Kind::Multiply) => fold_typed(c, l, h, |a: f32, b| a * b),
        (ElementType::F32, Kind::Maximum) => fold_typed(c, l, h, binary::max_f32),
        (ElementType::F32, Kind::Minimum) => fold_typed(c, l, h, binary::min_f32),
        (ElementType::F64, Kind::Add) => fold_typed(c, l, h, |a: f64, b| a + b),
        (ElementType::F64, Kind::Multiply) => fold_typed(c, l, h, |a: f64, b| a * b),
        (ElementType::F64, Kind::Maximum) => fold_typed(c, l, h, binary::max_f64),
        (ElementType::F64, Kind::Minimum) => fold_typed(c, l, h, binary::min_f64),
        _ => None,
    }
}

/// [`fold_slices`] for one element type `T` and step `f` (inlined into the loop).
fn fold_typed<T: bytemuck::Pod>(
    column: &[&ArrayLiteral],
    lo: usize,
    hi: usize,
    f: impl Fn(T, T) -> T,
) -> Option<Vec<u8>> {
    fn slice<T: bytemuck::Pod>(a: &ArrayLiteral, lo: usize, hi: usize) -> Option<&[T]> {
        bytemuck::try_cast_slice::<u8, T>(a.data())
            .ok()?
            .get(lo..hi)
    }
    let mut out = crate::alloc::zeroed((hi - lo) * std::mem::size_of::<T>());
    let acc: &mut [T] = bytemuck::try_cast_slice_mut(&mut out).ok()?;
    let first = slice(column.first()?, lo, hi)?;
    match column.get(1) {
        // The first step reads both members: no copy of the first one.
        Some(second) => {
            for ((x, &a), &b) in acc.iter_mut().zip(first).zip(slice(second, lo, hi)?) {
                *x = f(a, b);
            }
        }
        None => acc.copy_from_slice(first),
    }
    for a in column.iter().skip(2) {
        for (x, &y) in acc.iter_mut().zip(slice(a, lo, hi)?) {
            *x = f(*x, y);
        }
    }
    Some(out)
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

fn all_gather<'a>(instr: &HloInstruction, values: &Exchanged) -> Result<Value<'a>, BackendError> {
    let parts = values.column(0)?;
    let part = parts[0].shape();
    let d = dimension(instr, part.rank())?;
    let out = result_shape(instr, 0)?;
    let mut expected = part.dimensions.clone();
    expected[d] *= values.len() as i64;
    if !slices_equal(&out.dimensions, &expected) {
        return invalid(format!(
            "all-gather: the result is {out}, expected dimensions {expected:?} for a group of {}",
            values.len()
        ));
    }
    let (rows, row) = split_at(part, d);
    let mut data = Vec::with_capacity(rows * row * values.len());
    for r in 0..rows {
        for p in &parts {
            data.extend_from_slice(&p.data()[r * row..(r + 1) * row]);
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
    values: &Exchanged,
    position: usize,
) -> Result<Value<'a>, BackendError> {
    let column = values.column(0)?;
    let operand = column[0].shape().clone();
    let d = dimension(cx.instr, operand.rank())?;
    let g = values.len();
    let out = result_shape(cx.instr, 0)?;
    let mut expected = operand.dimensions.clone();
    expected[d] /= g as i64;
    if operand.dimensions[d] % g as i64 != 0 || !slices_equal(&out.dimensions, &expected) {
        return invalid(format!(
            "reduce-scatter: the result is {out}; dimension {d} divided among {g} devices gives {expected:?}"
        ));
    }
    let full = combine(cx, &column)?;
    owned(row_major(out), block(&full, d, g, position))
}

fn all_to_all<'a>(
    instr: &HloInstruction,
    values: &Exchanged,
    position: usize,
) -> Result<Value<'a>, BackendError> {
    let g = values.len();
    if instr.attribute("dimensions").is_none() {
        // The tuple form: result j is member j's operand for this position.
        return (0..g)
            .map(|j| values.item(j, position).map(|a| Value::owned(a.clone())))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| {
                BackendError::Invalid(format!(
                    "all-to-all (tuple form): a group of {g} needs {g} operands"
                ))
            })
            .map(Value::Tuple);
    }
    let parts = values.column(0)?;
    let operand = parts[0].shape();
    let d = dimension(instr, operand.rank())?;
    let out = result_shape(instr, 0)?;
    if operand.dimensions[d] % g as i64 != 0 || !out.same_dimensions(operand) {
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
        for p in &parts {
            let start = r * row + position * part;
            data.extend_from_slice(&p.data()[start..start + part]);
        }
    }
    owned(row_major(out), data)
}

#[cfg(test)]
mod tests;
