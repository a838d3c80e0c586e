//! `map` (seed 004, Map): `map(op_0, ..., op_{N-1}), dimensions={0, ..., rank-1}, to_apply=%f` on
//! operands of identical dimensions; `%f` takes one scalar per operand and returns a scalar, and
//! result element `i` is `%f(op_0[i], ..., op_{N-1}[i])`, of the instruction's element type.
//!
//! A computation made only of element-wise instructions (and scalar constants) over its parameters
//! — `add(p0, p1)`, `exponential(p0)`, `select(compare(p0, p1), p0, p1)` — runs once over whole
//! arrays with the element-wise kernels (each instruction on the full dimensions, constants as
//! broadcast scalars): the same values as element by element, since every element-wise kernel
//! computes each element on its own. Any other computation (calls, reductions, loops inside) is
//! interpreted per element, elements split across threads when there are many.

use super::{bad, expect_parameters, packed, read_bits, Ctx};
use crate::contraction::finish_in_layout;
use crate::elementwise;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::{HloComputation, HloInstruction};
use conformance_spec::literal::Literal;
use conformance_spec::{ArrayShape, BackendError, ElementType, Layout, Opcode, Shape};
use rayon::prelude::*;

/// Elements per parallel task of the interpreted path (each costs an interpreter call, about a
/// microsecond).
const CALLS_PER_TASK: usize = 64;

/// Runs `map`. Errors: [`BackendError::Invalid`] for operands whose dimensions differ from the
/// result's, a `dimensions` attribute other than all dimensions in order, a computation whose
/// parameters or result do not match the operands' and the instruction's element types; the
/// computation's own errors.
pub(super) fn map<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let result = cx
        .instr
        .shape
        .as_array()
        .ok_or_else(|| bad("map must have an array shape"))?;
    result
        .validate()
        .map_err(|e| bad(format!("result shape {result}: {e}")))?;
    let comp = cx.computation("to_apply")?;
    let n = cx.operands.len();
    expect_parameters(comp, n, "the mapped computation")?;
    if let Some(dims) = cx.instr.attr_ints("dimensions") {
        if !dims.iter().copied().eq(0..result.rank() as i64) {
            return Err(bad(format!(
                "map dimensions {dims:?}: every dimension in order expected"
            )));
        }
    }
    for (i, (v, p)) in cx.operands.iter().zip(comp.parameters()).enumerate() {
        let shape = v
            .array_shape()
            .ok_or_else(|| bad(format!("map operand {i} is not an array")))?;
        if !shape.same_dimensions(result) {
            return Err(bad(format!(
                "map operand {i} {shape} and result {result}: dimensions differ"
            )));
        }
        if p.shape != Shape::Array(ArrayShape::scalar(shape.element_type)) {
            return Err(bad(format!(
                "parameter {i} of `{}` is {}, the operand's elements are {}",
                comp.name, p.shape, shape.element_type
            )));
        }
    }
    let root = comp.root_instruction();
    if root.shape != Shape::Array(ArrayShape::scalar(result.element_type)) {
        return Err(bad(format!(
            "`{}` returns {}, the map's elements are {}",
            comp.name, root.shape, result.element_type
        )));
    }
    if is_elementwise_computation(comp) {
        whole_arrays(cx, comp, result)
    } else {
        per_element(cx, comp, result)
    }
}

/// True when every instruction of `comp` is a scalar parameter, a scalar constant or an
/// element-wise instruction on scalars.
fn is_elementwise_computation(comp: &HloComputation) -> bool {
    comp.instructions.iter().all(|i| {
        matches!(&i.shape, Shape::Array(a) if a.rank() == 0)
            && (matches!(i.opcode, Opcode::Parameter | Opcode::Constant)
                || elementwise::is_elementwise(i.opcode))
    })
}

/// Runs an element-wise computation once over whole arrays: each instruction on the result's
/// dimensions (the result's element order, unpadded; the root in the result's exact layout).
fn whole_arrays<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &HloComputation,
    result: &ArrayShape,
) -> Result<Value<'a>, BackendError> {
    let k = comp.instructions.len();
    let mut last_use = vec![usize::MAX; k];
    for (i, ins) in comp.instructions.iter().enumerate() {
        for &o in &ins.operands {
            if o >= i {
                return Err(bad(format!(
                    "`{}`: operand #{o} of `{}` is not defined before it",
                    comp.name, ins.name
                )));
            }
            last_use[o] = i;
        }
    }
    let inner = Layout::new(result.layout.minor_to_major.clone());
    let mut values: Vec<Option<Value<'a>>> = vec![None; k];
    for (i, ins) in comp.instructions.iter().enumerate() {
        let ty = ins
            .shape
            .as_array()
            .map(|a| a.element_type)
            .unwrap_or(ElementType::Pred);
        let shape = if i == comp.root {
            result.clone()
        } else {
            ArrayShape::new(ty, result.dimensions.clone()).with_layout(inner.clone())
        };
        let v = match ins.opcode {
            Opcode::Parameter => {
                let p = ins
                    .parameter_number
                    .and_then(|p| usize::try_from(p).ok())
                    .and_then(|p| cx.operands.get(p))
                    .ok_or_else(|| bad(format!("`{}`: bad parameter `{}`", comp.name, ins.name)))?;
                p.clone()
            }
            Opcode::Constant => match &ins.literal {
                Some(Literal::Array(a)) if a.shape().rank() == 0 => Value::Splat {
                    shape,
                    bits: a.get_bits_linear(0),
                },
                _ => return Err(bad(format!("`{}`: constant without a scalar", ins.name))),
            },
            _ => {
                let operands = ins
                    .operands
                    .iter()
                    .map(|&o| {
                        values[o]
                            .as_ref()
                            .ok_or_else(|| BackendError::Failure(format!("value #{o} freed")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let whole = HloInstruction {
                    shape: Shape::Array(shape),
                    ..ins.clone()
                };
                Value::owned(elementwise::evaluate(&whole, &operands, cx.exec)?)
            }
        };
        values[i] = Some(v);
        for &o in &ins.operands {
            if last_use[o] == i {
                values[o] = None;
            }
        }
    }
    values[comp.root]
        .take()
        .ok_or_else(|| BackendError::Failure("root value missing".into()))
}

/// Interprets the computation once per element (row-major order), in parallel tasks of
/// [`CALLS_PER_TASK`] elements when large.
fn per_element<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a HloComputation,
    result: &ArrayShape,
) -> Result<Value<'a>, BackendError> {
    let rank = result.rank();
    let row_major: Vec<i64> = (0..rank as i64).rev().collect();
    let count = result.element_count();
    let arrays: Vec<ArrayRef<'a>> = (0..cx.operands.len())
        .map(|i| cx.array(i))
        .collect::<Result<_, _>>()?;
    let parallel = cx.parallel(count);
    let inputs: Vec<(ElementType, std::borrow::Cow<'_, [u8]>)> = arrays
        .iter()
        .map(|a| (a.element_type(), packed(a, &row_major, parallel).1))
        .collect();
    let out_ty = result.element_type;
    let w = out_ty.byte_width();
    let mut out = vec![0u8; count * w];
    let run = |start: usize, chunk: &mut [u8]| -> Result<(), BackendError> {
        for (j, e) in chunk.chunks_exact_mut(w).enumerate() {
            let i = start + j;
            let args: Vec<Value<'a>> = inputs
                .iter()
                .map(|(ty, data)| Value::Splat {
                    shape: ArrayShape::scalar(*ty),
                    bits: read_bits(data, i, ty.byte_width()),
                })
                .collect();
            let bits = match (cx.call)(comp, args)? {
                Value::Splat { bits, .. } => bits,
                Value::Array(a) if a.shape().rank() == 0 => a.get_bits_linear(0),
                _ => return Err(bad(format!("`{}` must return a scalar", comp.name))),
            };
            e.copy_from_slice(&bits.to_le_bytes()[..w]);
        }
        Ok(())
    };
    if cx.exec.threshold != usize::MAX && count > CALLS_PER_TASK && rayon::current_num_threads() > 1
    {
        out.par_chunks_mut(CALLS_PER_TASK * w)
            .enumerate()
            .try_for_each(|(t, c)| run(t * CALLS_PER_TASK, c))?;
    } else {
        run(0, &mut out)?;
    }
    let have =
        ArrayShape::new(out_ty, result.dimensions.clone()).with_layout(Layout::new(row_major));
    finish_in_layout(result, &have, out, parallel)
}
