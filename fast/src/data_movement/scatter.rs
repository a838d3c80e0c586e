//! `scatter` (seed 004, Scatter), variadic: for every index `U` of the updates, the operand index
//! `I` = window part of `U` (through `update_window_dims` and `inserted_window_dims`) + start
//! index read from the index vector (through `scatter_dims_to_operand_dims`); when `I` is a valid
//! index of the output — checked per element, as the seed says (decision of issue 4) — the output
//! element becomes `update_computation(output[I]..., updates[U]...)`.
//!
//! Updates are applied in row-major order of the update index space (the order is unspecified
//! with repeated indices; this one is deterministic). The common update computations — returning
//! the updates (replace), and `add`, `multiply`, `maximum`, `minimum`, `and`, `or` of one operand
//! on integer types (and `add`/`multiply` on f32/f64, `and`/`or` on pred) — are applied directly;
//! any other computation is run by the interpreter on scalars.

use super::gather::IndexVectors;
use super::{array_operand, bad, Ctx};
use crate::value::Value;
use conformance_spec::hlo::HloComputation;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{index, ArrayShape, BackendError, ElementType, Opcode, Shape};

/// How updates combine with the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combiner {
    Replace,
    Add,
    Multiply,
    Maximum,
    Minimum,
    And,
    Or,
    /// Run the computation.
    General,
}

/// Recognizes a one-operand update computation applied directly to element type `ty`.
fn combiner(comp: &HloComputation, n: usize, ty: ElementType) -> Combiner {
    let root = comp.root_instruction();
    let param = |i: usize| {
        comp.instructions
            .get(i)
            .filter(|p| p.opcode == Opcode::Parameter)
            .and_then(|p| p.parameter_number)
    };
    let is_replace = match root.opcode {
        Opcode::Parameter => n == 1 && root.parameter_number == Some(1),
        Opcode::Tuple => {
            root.operands.len() == n
                && root
                    .operands
                    .iter()
                    .enumerate()
                    .all(|(k, &o)| param(o) == Some((n + k) as i64))
        }
        _ => false,
    };
    if is_replace {
        return Combiner::Replace;
    }
    if n != 1 || root.operands.len() != 2 {
        return Combiner::General;
    }
    let mut ps = [param(root.operands[0]), param(root.operands[1])];
    ps.sort();
    if ps != [Some(0), Some(1)] {
        return Combiner::General;
    }
    let int = ty.is_integer();
    let native_float = matches!(ty, ElementType::F32 | ElementType::F64);
    match root.opcode {
        Opcode::Add if int || native_float => Combiner::Add,
        Opcode::Multiply if int || native_float => Combiner::Multiply,
        Opcode::Maximum if int => Combiner::Maximum,
        Opcode::Minimum if int => Combiner::Minimum,
        Opcode::And if int || ty.is_pred() => Combiner::And,
        Opcode::Or if int || ty.is_pred() => Combiner::Or,
        _ => Combiner::General,
    }
}

/// `c(x, y)` on raw bits of type `ty` (for the combiners [`combiner`] accepts for `ty`).
fn combine(c: Combiner, ty: ElementType, x: u128, y: u128) -> u128 {
    let w = ty.bit_width();
    let mask = if w == 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    };
    match (c, ty) {
        (Combiner::Replace, _) => y,
        (Combiner::And, _) => x & y,
        (Combiner::Or, _) => x | y,
        (Combiner::Add, ElementType::F32) => {
            (f32::from_bits(x as u32) + f32::from_bits(y as u32)).to_bits() as u128
        }
        (Combiner::Add, ElementType::F64) => {
            (f64::from_bits(x as u64) + f64::from_bits(y as u64)).to_bits() as u128
        }
        (Combiner::Multiply, ElementType::F32) => {
            (f32::from_bits(x as u32) * f32::from_bits(y as u32)).to_bits() as u128
        }
        (Combiner::Multiply, ElementType::F64) => {
            (f64::from_bits(x as u64) * f64::from_bits(y as u64)).to_bits() as u128
        }
        (Combiner::Add, _) => x.wrapping_add(y) & mask,
        (Combiner::Multiply, _) => x.wrapping_mul(y) & mask,
        (Combiner::Maximum | Combiner::Minimum, _) => {
            let (a, b) = (
                ty.integer_from_bits(x as u64).unwrap_or(0),
                ty.integer_from_bits(y as u64).unwrap_or(0),
            );
            let keep_x = if c == Combiner::Maximum {
                a >= b
            } else {
                a <= b
            };
            if keep_x {
                x
            } else {
                y
            }
        }
        (Combiner::General, _) => y,
    }
}

/// Validated dimension numbers.
struct Numbers {
    update_window_dims: Vec<usize>,
    /// Update dimensions that are not window dimensions, in order.
    update_scatter_dims: Vec<usize>,
    /// Operand dimension of each window dimension (the operand dimensions not inserted, in order).
    window_operand_dims: Vec<usize>,
    scatter_dims_to_operand_dims: Vec<usize>,
}

fn numbers(
    cx: &Ctx<'_, '_>,
    operand: &ArrayShape,
    update: &ArrayShape,
    iv: &IndexVectors<'_, '_>,
) -> Result<Numbers, BackendError> {
    let ints = |name: &str| {
        cx.instr
            .attr_ints(name)
            .ok_or_else(|| bad(format!("scatter without {name}")))
    };
    let dims = |v: &[i64], bound: usize, what: &str| -> Result<Vec<usize>, BackendError> {
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
        .attr_ints("input_batching_dims")
        .is_some_and(|v| !v.is_empty())
    {
        return Err(BackendError::Unsupported(
            "scatter with input_batching_dims".into(),
        ));
    }
    let rank = operand.rank();
    let uw = dims(
        ints("update_window_dims")?,
        update.rank(),
        "update_window_dims",
    )?;
    let inserted = dims(ints("inserted_window_dims")?, rank, "inserted_window_dims")?;
    let sdod = dims(
        ints("scatter_dims_to_operand_dims")?,
        rank,
        "scatter_dims_to_operand_dims",
    )?;
    if uw.windows(2).any(|w| w[0] >= w[1]) || inserted.windows(2).any(|w| w[0] >= w[1]) {
        return Err(bad(
            "update_window_dims and inserted_window_dims must be sorted",
        ));
    }
    if uw.len() + inserted.len() != rank {
        return Err(bad(format!(
            "{} window and {} inserted dimensions for an operand of rank {rank}",
            uw.len(),
            inserted.len()
        )));
    }
    if sdod.len() != iv.len {
        return Err(bad(format!(
            "scatter_dims_to_operand_dims has {} entries for index vectors of {}",
            sdod.len(),
            iv.len
        )));
    }
    let usd: Vec<usize> = (0..update.rank()).filter(|d| !uw.contains(d)).collect();
    if usd.len() != iv.batch_sizes.len()
        || usd
            .iter()
            .zip(&iv.batch_sizes)
            .any(|(&d, &s)| update.dimensions[d] != s)
    {
        return Err(bad(format!(
            "updates {update}: scatter dimensions do not match the indices' batch dimensions {:?}",
            iv.batch_sizes
        )));
    }
    let wod: Vec<usize> = (0..rank).filter(|d| !inserted.contains(d)).collect();
    for (k, &d) in uw.iter().enumerate() {
        if update.dimensions[d] > operand.dimensions[wod[k]] {
            return Err(bad(format!(
                "update window dimension {d} larger than operand dimension {}",
                wod[k]
            )));
        }
    }
    Ok(Numbers {
        update_window_dims: uw,
        update_scatter_dims: usd,
        window_operand_dims: wod,
        scatter_dims_to_operand_dims: sdod,
    })
}

/// HLO `scatter(operand..., scatter_indices, updates...)`, `to_apply=` a computation of `2N`
/// scalars returning `N` (a tuple when `N > 1`). Errors: operand counts, shapes or dimension
/// numbers that do not fit; [`BackendError::Unsupported`] for `input_batching_dims`.
pub(super) fn scatter<'a>(cx: &mut Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let total = cx.operands.len();
    if total < 3 || total.is_multiple_of(2) {
        return Err(bad(format!("scatter takes 2N + 1 operands, {total} given")));
    }
    let n = total / 2;
    let result_shapes: Vec<&ArrayShape> = match &cx.instr.shape {
        Shape::Array(s) if n == 1 => vec![s],
        Shape::Tuple(t) if t.len() == n => t
            .iter()
            .map(|s| {
                s.as_array()
                    .ok_or_else(|| bad("scatter results must be arrays"))
            })
            .collect::<Result<_, _>>()?,
        s => {
            return Err(bad(format!(
                "scatter of {n} operands cannot have shape {s}"
            )))
        }
    };
    let comp = cx
        .instr
        .called_computations()
        .first()
        .and_then(|name| cx.module.computation(name))
        .ok_or_else(|| bad("scatter without a known `to_apply` computation"))?;
    let indices = array_operand(cx, n)?;
    let updates = (0..n)
        .map(|k| array_operand(cx, n + 1 + k))
        .collect::<Result<Vec<_>, _>>()?;
    let ivd = cx
        .instr
        .attr_int("index_vector_dim")
        .ok_or_else(|| bad("scatter without index_vector_dim"))?;
    let iv = IndexVectors::new(&indices, ivd)?;
    let op0 = array_operand(cx, 0)?.shape().clone();
    let nums = numbers(cx, &op0, updates[0].shape(), &iv)?;
    // The outputs: the operands' buffers in the results' layouts (taken over when unique).
    let mut outs: Vec<ArrayLiteral> = Vec::with_capacity(n);
    for k in 0..n {
        let rs = result_shapes[k];
        let a = array_operand(cx, k)?;
        if a.shape().element_type != rs.element_type
            || a.dimensions() != op0.dimensions.as_slice()
            || !rs.same_dimensions(&op0)
            || updates[k].element_type() != rs.element_type
            || updates[k].dimensions() != updates[0].dimensions()
        {
            return Err(bad(format!(
                "scatter operand {k} {}, update {} and result {rs} do not match",
                a.shape(),
                updates[k].shape()
            )));
        }
        drop(a);
        let v = std::mem::replace(&mut cx.operands[k], Value::Token);
        let parallel = cx.parallel(rs.element_count());
        outs.push(match v {
            Value::Array(a) if a.shape() == rs => match a.try_into_unique() {
                Ok(lit) => lit,
                Err(a) => a.into_array_literal(),
            },
            Value::Array(a) => match super::relayout(&a, rs, parallel)? {
                Value::Array(r) => r.into_array_literal(),
                _ => unreachable!("relayout gives an array"),
            },
            Value::Splat { shape, bits } => {
                crate::layout::splat(shape.with_layout(rs.layout.clone()), bits)?
            }
            _ => return Err(bad(format!("scatter operand {k} is not an array"))),
        });
    }
    let types: Vec<ElementType> = result_shapes.iter().map(|s| s.element_type).collect();
    let comb = if types.iter().all(|&t| t == types[0]) {
        combiner(comp, n, types[0])
    } else if combiner(comp, n, types[0]) == Combiner::Replace {
        Combiner::Replace
    } else {
        Combiner::General
    };
    apply(cx, comp, comb, &nums, &iv, &updates, &mut outs, &types)?;
    let mut values: Vec<Value<'a>> = outs.into_iter().map(Value::owned).collect();
    Ok(if n == 1 {
        values.pop().expect("one output")
    } else {
        Value::Tuple(values)
    })
}

/// Applies every update element in row-major order of the update index space.
#[allow(clippy::too_many_arguments)]
fn apply<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a HloComputation,
    comb: Combiner,
    nums: &Numbers,
    iv: &IndexVectors<'_, '_>,
    updates: &[crate::value::ArrayRef<'a>],
    outs: &mut [ArrayLiteral],
    types: &[ElementType],
) -> Result<(), BackendError> {
    let n = outs.len();
    let op_dims = outs[0].dimensions().to_vec();
    let rank = op_dims.len();
    let out_strides: Vec<Vec<i64>> = outs.iter().map(|o| index::strides(o.shape())).collect();
    let up_strides: Vec<Vec<i64>> = updates.iter().map(|u| index::strides(u.shape())).collect();
    let up_dims = updates[0].dimensions().to_vec();
    // Start index (per operand dimension) of each batch position.
    let batches = iv.count();
    let mut starts = vec![0i64; batches * rank];
    for b in 0..batches {
        for (k, &d) in nums.scatter_dims_to_operand_dims.iter().enumerate() {
            starts[b * rank + d] = starts[b * rank + d].saturating_add(iv.get(b, k));
        }
    }
    let widths: Vec<usize> = types.iter().map(|t| t.byte_width()).collect();
    let read = |data: &[u8], pos: usize, w: usize| {
        let mut b = [0u8; 16];
        b[..w].copy_from_slice(&data[pos * w..(pos + 1) * w]);
        u128::from_le_bytes(b)
    };
    let mut target = vec![0i64; rank];
    let mut result: Result<(), BackendError> = Ok(());
    // Per-element scratch, reused: (output, update) bits, output positions, new bits.
    let mut cur: Vec<u128> = Vec::with_capacity(2 * n);
    let mut positions: Vec<usize> = Vec::with_capacity(n);
    let mut new: Vec<u128> = Vec::with_capacity(n);
    index::for_each_index(&up_dims, |u| {
        if result.is_err() {
            return;
        }
        let mut b = 0usize;
        for &d in &nums.update_scatter_dims {
            b = b * up_dims[d] as usize + u[d] as usize;
        }
        target.copy_from_slice(&starts[b * rank..(b + 1) * rank]);
        for (k, &d) in nums.update_window_dims.iter().enumerate() {
            let od = nums.window_operand_dims[k];
            target[od] = target[od].saturating_add(u[d]);
        }
        if (0..rank).any(|d| target[d] < 0 || target[d] >= op_dims[d]) {
            return;
        }
        cur.clear();
        positions.clear();
        for k in 0..n {
            let o: i64 = (0..rank).map(|d| target[d] * out_strides[k][d]).sum();
            let p: i64 = u.iter().zip(&up_strides[k]).map(|(&i, &s)| i * s).sum();
            positions.push(o as usize);
            cur.push(read(outs[k].data(), o as usize, widths[k]));
            cur.push(read(updates[k].data(), p as usize, widths[k]));
        }
        if comb == Combiner::General {
            match call(cx, comp, &cur, types) {
                Ok(v) => new = v,
                Err(e) => {
                    result = Err(e);
                    return;
                }
            }
        } else {
            new.clear();
            new.extend((0..n).map(|k| combine(comb, types[k], cur[2 * k], cur[2 * k + 1])));
        }
        for k in 0..n {
            let w = widths[k];
            let pos = positions[k];
            outs[k].data_mut()[pos * w..(pos + 1) * w].copy_from_slice(&new[k].to_le_bytes()[..w]);
        }
    });
    result
}

/// Runs the update computation on `cur` = (output, update) pairs of bits; returns the new bits.
fn call<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a HloComputation,
    pairs: &[u128],
    types: &[ElementType],
) -> Result<Vec<u128>, BackendError> {
    let n = types.len();
    let scalar = |k: usize, bits: u128| Value::Splat {
        shape: ArrayShape::scalar(types[k]),
        bits,
    };
    let mut args: Vec<Value<'a>> = (0..n).map(|k| scalar(k, pairs[2 * k])).collect();
    args.extend((0..n).map(|k| scalar(k, pairs[2 * k + 1])));
    let v = (cx.call)(comp, args)?;
    let bits = |v: &Value<'_>, k: usize| -> Result<u128, BackendError> {
        match v {
            Value::Splat { shape, bits } if shape.element_type == types[k] => Ok(*bits),
            Value::Array(a) if a.shape().element_count() == 1 && a.element_type() == types[k] => {
                Ok(a.get_bits(&vec![0; a.shape().rank()]))
            }
            _ => Err(bad(format!(
                "the update computation must return a {} scalar",
                types[k]
            ))),
        }
    };
    match &v {
        Value::Tuple(t) if t.len() == n => (0..n).map(|k| bits(&t[k], k)).collect(),
        v if n == 1 => Ok(vec![bits(v, 0)?]),
        _ => Err(bad(
            "the update computation returns the wrong number of values",
        )),
    }
}
