//! `reduce` (seed 004, Reduce and Variadic Reduce): N arrays reduced along `dimensions` with a
//! computation and N init values.
//!
//! Operands `(operands[0..N], init_values[0..N])`, N >= 1: arrays of one shape and scalars of
//! their element types; attributes `dimensions={...}` (distinct, any order) and
//! `to_apply=%computation` (2N scalar parameters — the N accumulators, then the N elements — and
//! N results, a tuple when N > 1). The result keeps the other dimensions in their order: an array
//! (N = 1) or a tuple of N arrays.
//!
//! Evaluation ([`super::reducer`]): a plain sum is exact (init + every element, rounded once), as
//! is a real product (init × every element, rounded once); any other computation runs in the canonical order, init first, then the elements in
//! row-major order of the reduced index space (the reduced dimensions in increasing order),
//! `f(...f(f(init, e0), e1)..., en)` — seed 004's variadic example's `f_0 = f(I_V, I_K, V_0,
//! K_0)`, `f_1 = f(f_0, V_1, K_1)`, ... — which makes argmax a (value, index) reduction.

use super::accumulator::{decode_array, Accumulator, Mode};
use super::exact_product::ExactProduct;
use super::exact_sum::Real;
use super::reducer::Reducer;
use super::{
    array_from_row_major, arrays, collate, dimension, expect_dims, invalid, result_shapes,
    row_major_strides, AccumulationBound,
};
use crate::interpreter::Context;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::BackendError;

/// The N inputs and init values of a reduction, split and checked (`op` names it in errors).
pub(crate) struct Inputs<'a> {
    pub arrays: Vec<&'a ArrayLiteral>,
    pub types: Vec<ElementType>,
    /// The init values' bits.
    pub inits: Vec<u128>,
}

impl<'a> Inputs<'a> {
    /// Splits `(operands[0..N], init_values[0..N])`.
    ///
    /// Errors: [`BackendError::Invalid`] for an odd or zero operand count, arrays of different
    /// dimensions, or an init value that is not a scalar of its array's element type.
    pub fn new(
        op: &str,
        instr: &HloInstruction,
        operands: &[&'a Literal],
    ) -> Result<Inputs<'a>, BackendError> {
        let count = operands.len();
        if count < 2 || !count.is_multiple_of(2) {
            return invalid(format!(
                "{op}: needs N operands and N init values (2N >= 2), got {count}"
            ));
        }
        let all = arrays(instr, operands, count)?;
        let (ops, inits) = all.split_at(count / 2);
        let dims = ops[0].dimensions();
        for (j, (a, init)) in ops.iter().zip(inits).enumerate() {
            if a.dimensions() != dims {
                return invalid(format!(
                    "{op}: operand {j} has dimensions {:?}, operand 0 {dims:?}",
                    a.dimensions()
                ));
            }
            if !init.dimensions().is_empty() || init.element_type() != a.element_type() {
                return invalid(format!(
                    "{op}: init value {j} is {}, expected a {} scalar",
                    init.shape(),
                    a.element_type()
                ));
            }
        }
        Ok(Inputs {
            arrays: ops.to_vec(),
            types: ops.iter().map(|a| a.element_type()).collect(),
            inits: inits.iter().map(|i| i.get_bits(&[])).collect(),
        })
    }
}

/// Runs a reduction: for every output index (row-major over `out_dims`), `elements` lists the
/// logical row-major offsets of the input elements it reduces, in canonical order; each output
/// element is `init` reduced with them by `reducer`. Returns the N arrays (in `shapes`) and, with
/// `track` and a sum, the bound of each element (`None` otherwise).
///
/// Errors: [`BackendError::Invalid`] when the result element types differ from the inputs'; the
/// errors of [`Reducer::apply`]; [`BackendError::Unsupported`] for a sum of a type that has none.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce_each(
    ctx: &Context,
    op: &str,
    reducer: &Reducer,
    inputs: &Inputs,
    shapes: &[&ArrayShape],
    out_dims: &[i64],
    mut elements: impl FnMut(&[i64], &mut Vec<usize>),
    track: bool,
) -> Result<(Vec<ArrayLiteral>, Option<Vec<AccumulationBound>>), BackendError> {
    for (j, (s, &t)) in shapes.iter().zip(&inputs.types).enumerate() {
        if s.element_type != t {
            return invalid(format!(
                "{op}: result {j} has element type {}, operand {j} {t}",
                s.element_type
            ));
        }
        expect_dims(op, s, out_dims)?;
    }
    let n = inputs.arrays.len();
    let mut results: Vec<Vec<u128>> = vec![Vec::new(); n];
    let mut bounds = Vec::new();
    let mut offsets = Vec::new();
    let mut failure = None;
    if reducer.is_sum() {
        let mode = Mode::new(op, inputs.types[0], inputs.types[0])?;
        let values = decode_array(inputs.arrays[0]);
        let init = super::accumulator::decode(inputs.types[0], inputs.inits[0]);
        index::for_each_index(out_dims, |j| {
            offsets.clear();
            elements(j, &mut offsets);
            let mut acc = Accumulator::new(mode, track);
            acc.add_value(&init);
            for &o in &offsets {
                acc.add_value(&values[o]);
            }
            results[0].push(acc.finish());
            if track {
                bounds.push(acc.bound());
            }
        });
    } else if reducer.is_product() {
        let fmt = inputs.types[0]
            .float_format()
            .ok_or_else(|| BackendError::Invalid(format!("{op}: a product of a non-float type")))?;
        let bits = inputs.arrays[0].logical_bits();
        let init = Real::from_bits(fmt, inputs.inits[0] as u64);
        index::for_each_index(out_dims, |j| {
            offsets.clear();
            elements(j, &mut offsets);
            let mut p = ExactProduct::new();
            p.multiply(init);
            for &o in &offsets {
                p.multiply(Real::from_bits(fmt, bits[o] as u64));
            }
            results[0].push(u128::from(p.round_to(fmt)));
            if track {
                bounds.push(p.bound(fmt));
            }
        });
    } else {
        let bits: Vec<Vec<u128>> = inputs.arrays.iter().map(|a| a.logical_bits()).collect();
        let mut element = vec![0u128; n];
        index::for_each_index(out_dims, |j| {
            if failure.is_some() {
                return;
            }
            offsets.clear();
            elements(j, &mut offsets);
            let mut acc = inputs.inits.clone();
            for &o in &offsets {
                for (e, b) in element.iter_mut().zip(&bits) {
                    *e = b[o];
                }
                match reducer.apply(ctx, &inputs.types, &inputs.types, &acc, &element) {
                    Ok(v) => acc = v,
                    Err(e) => {
                        failure = Some(e);
                        return;
                    }
                }
            }
            for (r, v) in results.iter_mut().zip(acc) {
                r.push(v);
            }
        });
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let arrays = shapes
        .iter()
        .zip(&results)
        .map(|(s, bits)| array_from_row_major(s, bits))
        .collect();
    Ok((
        arrays,
        (track && (reducer.is_sum() || reducer.is_product())).then_some(bounds),
    ))
}

/// Runs the reduction of `reduce` and `reduce-window` (`op` names it in errors): the
/// `to_apply` computation of `instr` over `inputs`, `elements` as in [`reduce_each`], into the
/// result shapes of `instr` (`out_dims` each). Returns the result (an array for N = 1, a tuple of
/// N arrays otherwise) and, with `track` and a sum, the bound of each element.
///
/// Errors: those of [`result_shapes`], [`Reducer::new`] and [`reduce_each`].
pub(crate) fn reduce_to_apply(
    ctx: &Context,
    op: &str,
    instr: &HloInstruction,
    inputs: &Inputs,
    out_dims: &[i64],
    elements: impl FnMut(&[i64], &mut Vec<usize>),
    track: bool,
) -> Result<(Literal, Option<Vec<AccumulationBound>>), BackendError> {
    let shapes = result_shapes(op, instr, inputs.arrays.len())?;
    let reducer = Reducer::new(
        ctx.module,
        instr,
        "to_apply",
        &inputs.types,
        inputs.types[0],
        true,
    )?;
    let (arrays, bounds) = reduce_each(
        ctx, op, &reducer, inputs, &shapes, out_dims, elements, track,
    )?;
    Ok((collate(arrays), bounds))
}

/// Evaluates the reduce; with `track` and a sum, also the bounds.
fn evaluate(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
    track: bool,
) -> Result<(Literal, Option<Vec<AccumulationBound>>), BackendError> {
    let op = "reduce";
    let inputs = Inputs::new(op, instr, operands)?;
    let dims = inputs.arrays[0].dimensions();
    let rank = dims.len();
    let listed = instr.attr_ints("dimensions").ok_or_else(|| {
        BackendError::Invalid(format!("{op}: missing or malformed `dimensions={{...}}`"))
    })?;
    let mut reduced: Vec<usize> = listed
        .iter()
        .map(|&d| dimension(op, "dimensions entry", d, rank))
        .collect::<Result<_, _>>()?;
    reduced.sort_unstable();
    if reduced.windows(2).any(|w| w[0] == w[1]) {
        return invalid(format!("{op}: dimensions {listed:?} repeat a dimension"));
    }
    let kept: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
    let out_dims: Vec<i64> = kept.iter().map(|&d| dims[d]).collect();
    let reduced_dims: Vec<i64> = reduced.iter().map(|&d| dims[d]).collect();
    let strides = row_major_strides(dims);
    // Offsets of the reduced index space (row-major), relative to an output element's base.
    let mut inner = Vec::new();
    index::for_each_index(&reduced_dims, |r| {
        inner.push(
            r.iter()
                .zip(&reduced)
                .map(|(&i, &d)| i as usize * strides[d])
                .sum::<usize>(),
        );
    });
    reduce_to_apply(
        ctx,
        op,
        instr,
        &inputs,
        &out_dims,
        |j, offsets| {
            let base: usize = j
                .iter()
                .zip(&kept)
                .map(|(&i, &d)| i as usize * strides[d])
                .sum();
            offsets.extend(inner.iter().map(|&o| base + o));
        },
        track,
    )
}

/// `reduce` (see the module docs).
///
/// Errors: [`BackendError::Invalid`] for an odd or zero operand count, arrays of different
/// dimensions, init values that are not scalars of their array's type, `dimensions` out of range
/// or repeated, a result that is not the kept dimensions with the operands' element types (an
/// array for N = 1, a tuple of N arrays otherwise), a missing `to_apply`, or a computation that
/// does not return N scalars of those types; any error of the computation.
pub(crate) fn reduce(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    evaluate(ctx, instr, operands, false).map(|(v, _)| v)
}

/// The bounds of every result element when `to_apply` is a sum (else `None`), as
/// [`super::accumulation_bounds`] reports them.
pub(crate) fn bounds(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    super::reducer::bounds_of_sum(ctx, instr, "to_apply", |track| {
        evaluate(ctx, instr, operands, track)
    })
}

#[cfg(test)]
#[path = "reduce_tests.rs"]
mod tests;
