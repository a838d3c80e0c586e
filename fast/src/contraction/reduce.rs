//! `reduce` (seed 004, Reduce): N operands and N init values, any set of reduced dimensions, any
//! layouts; the result keeps the other dimensions in order (a tuple when N > 1).
//!
//! One operand with a recognized reducer ([`reducer::recognize`]) on f32, f64, the narrow floats
//! (accumulated in f32, rounded once into the result type) or integers (64-bit wrapping,
//! exact modulo the result width) runs on typed loops: the operand is seen as a row-major
//! `outer × reduced` matrix (its own buffer when the reduced dimensions are the most minor ones
//! and the type is native, else gathered in that order), each row folded — f32 sums by the
//! AVX-512 kernel of [`super::simd`] in fixed blocks, so results do not depend on the number of
//! threads. Any other reduction evaluates the computation element by element in the canonical
//! order: init first, then the reduced elements in row-major order of the reduced dimensions.

use super::elements::{self, Arith};
use super::reducer::{self, Kind};
use super::{bad, finish_in_layout, finish_row_major, simd, Ctx};
use crate::buffer::typed;
use crate::kernels::Isa;
use crate::value::{ArrayRef, Value};
use conformance_spec::shape::slices_equal;
use conformance_spec::{index, ArrayShape, BackendError, ElementType, Layout};
use rayon::prelude::*;
use std::borrow::Cow;

/// Elements per block of a parallel f32 sum (fixed: the result does not depend on the threads).
const SUM_BLOCK: usize = 1 << 16;

/// `reduce` of seed 004. Errors: operand/init counts, mismatched dimensions, reduced dimensions
/// out of range or repeated, result shapes that do not match.
pub(super) fn reduce<'a>(cx: &Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let (operands, inits) = cx.reduction_inputs()?;
    let n = operands.len();
    let dims = cx
        .instr
        .attr_ints("dimensions")
        .ok_or_else(|| bad("reduce without `dimensions`"))?;
    let shape0 = operands[0].shape();
    let rank = shape0.rank();
    let mut reduced = vec![false; rank];
    for &d in dims {
        let d = usize::try_from(d)
            .ok()
            .filter(|&d| d < rank)
            .ok_or_else(|| {
                bad(format!(
                    "reduced dimension {d} out of range for rank {rank}"
                ))
            })?;
        if std::mem::replace(&mut reduced[d], true) {
            return Err(bad(format!("reduced dimension {d} repeated")));
        }
    }
    let kept_dims: Vec<i64> = (0..rank)
        .filter(|&d| !reduced[d])
        .map(|d| shape0.dimensions[d])
        .collect();
    let results = cx.reduction_results(n)?;
    for (i, (o, r)) in operands.iter().zip(&results).enumerate() {
        if o.dimensions() != shape0.dimensions.as_slice() {
            return Err(bad(format!("operand {i} dimensions differ from operand 0")));
        }
        if !slices_equal(&r.dimensions, &kept_dims) || r.element_type != inits[i].0 {
            return Err(bad(format!(
                "result {r} does not match the kept dimensions {kept_dims:?} of type {}",
                inits[i].0
            )));
        }
        r.validate()
            .map_err(|e| bad(format!("result shape {r}: {e}")))?;
    }
    let comp = cx.computation("to_apply")?;
    if n == 1 && operands[0].element_type() == inits[0].0 {
        if let Some(kind) = reducer::recognize(comp) {
            if let Some(v) = fast_reduce(cx, &operands[0], inits[0].1, &reduced, kind, results[0])?
            {
                return Ok(v);
            }
        }
    }
    general_reduce(cx, comp, &operands, &inits, &reduced, &results)
}

/// How a fast reduction folds one row.
#[derive(Clone, Copy)]
enum Arithmetic {
    F32,
    F64,
    Int,
}

/// The typed path; `None` when the type/reducer pair has none (then the general path runs).
fn fast_reduce<'a>(
    cx: &Ctx<'_, 'a>,
    a: &ArrayRef<'a>,
    init: u128,
    reduced: &[bool],
    kind: Kind,
    result: &ArrayShape,
) -> Result<Option<Value<'a>>, BackendError> {
    let ty = a.element_type();
    use ElementType::*;
    let arith = match (ty, kind) {
        (F64, Kind::Add | Kind::Multiply | Kind::Maximum | Kind::Minimum) => Arithmetic::F64,
        (_, Kind::Add | Kind::Multiply | Kind::Maximum | Kind::Minimum)
            if ty.is_float() && ty != F64 =>
        {
            Arithmetic::F32
        }
        (U64, Kind::Maximum | Kind::Minimum) => return Ok(None),
        (_, _) if ty.is_integer() => Arithmetic::Int,
        (Pred, Kind::And | Kind::Or | Kind::Maximum | Kind::Minimum) => Arithmetic::Int,
        _ => return Ok(None),
    };
    let shape = a.shape();
    // Kept dimensions in the operand's physical order (major to minor), then the reduced ones.
    let major_to_minor = shape.layout.major_to_minor();
    let kept: Vec<usize> = major_to_minor
        .iter()
        .map(|&d| d as usize)
        .filter(|&d| !reduced[d])
        .collect();
    let red: Vec<usize> = major_to_minor
        .iter()
        .map(|&d| d as usize)
        .filter(|&d| reduced[d])
        .collect();
    let outer: usize = kept.iter().map(|&d| shape.dimensions[d] as usize).product();
    let len: usize = red.iter().map(|&d| shape.dimensions[d] as usize).product();
    let parallel = cx.parallel(outer * len);
    let isa = cx.exec.isa;
    let values: Vec<u8> = match arith {
        Arithmetic::F32 => {
            let rows = matrix::<f32>(a, &kept, &red, ElementType::F32);
            let init = f32::from_element(ty, init);
            let out = fold_rows(&rows, outer, len, parallel, |row, par| {
                fold_f32(kind, init, row, par, isa)
            });
            elements::to_bytes(&out, result.element_type)
        }
        Arithmetic::F64 => {
            let rows = matrix::<f64>(a, &kept, &red, ElementType::F64);
            let init = f64::from_element(ty, init);
            let out = fold_rows(&rows, outer, len, parallel, |row, _| {
                fold_f64(kind, init, row)
            });
            elements::to_bytes(&out, result.element_type)
        }
        Arithmetic::Int => {
            let rows = elements::pack::<i64>(shape, a.data(), &[kept.clone(), red].concat());
            let init = i64::from_element(ty, init);
            let out = fold_rows(&rows, outer, len, parallel, |row, _| {
                fold_int(kind, init, row)
            });
            elements::to_bytes(&out, result.element_type)
        }
    };
    // The output is in the order of `kept`: a layout of the result listing them minor to major.
    let pos = |d: usize| (0..d).filter(|&e| !reduced[e]).count() as i64;
    let have = ArrayShape::new(result.element_type, result.dimensions.clone())
        .with_layout(Layout::new(kept.iter().rev().map(|&d| pos(d)).collect()));
    finish_in_layout(result, &have, values, cx.parallel(outer)).map(Some)
}

/// The operand as a row-major `outer × len` matrix of `T` (kept dimensions `kept` major): its own
/// buffer when `T` is its type, the reduced dimensions are the most minor, contiguous and unpadded;
/// gathered otherwise.
fn matrix<'s, T: Arith + bytemuck::Pod>(
    a: &'s ArrayRef<'_>,
    kept: &[usize],
    red: &[usize],
    native: ElementType,
) -> Cow<'s, [T]> {
    let shape = a.shape();
    if shape.element_type == native && !shape.layout.is_padded() {
        // Reduced dimensions most minor: then the physical order is exactly kept then reduced.
        let minor: Vec<usize> = shape.layout.minor_to_major[..red.len()]
            .iter()
            .map(|&d| d as usize)
            .collect();
        if minor.iter().all(|d| red.contains(d)) {
            return typed::<T>(a.data());
        }
    }
    Cow::Owned(elements::pack::<T>(shape, a.data(), &[kept, red].concat()))
}

/// `f(row)` for each of `outer` rows of `len` elements; rows across threads when there are
/// several, the row itself told to split (`par`) when there is one.
fn fold_rows<T: Sync, R: Send + Default + Clone>(
    data: &[T],
    outer: usize,
    len: usize,
    parallel: bool,
    f: impl Fn(&[T], bool) -> R + Sync + Send,
) -> Vec<R> {
    if len == 0 {
        return (0..outer).map(|_| f(&[], false)).collect();
    }
    if parallel && outer > 1 {
        data[..outer * len]
            .par_chunks(len)
            .map(|r| f(r, false))
            .collect()
    } else {
        data[..outer * len]
            .chunks(len)
            .map(|r| f(r, parallel))
            .collect()
    }
}

/// The f32 sum of `x`: blocks of [`SUM_BLOCK`] elements summed by the SIMD kernel (in parallel
/// when `par`), block sums added left to right; the kernel compiled for `isa` (every instruction
/// set gives the same bits).
pub(crate) fn sum_f32(x: &[f32], par: bool, isa: Isa) -> f32 {
    let block = |b: &[f32]| simd::sum_f32_with(isa, b);
    if x.len() <= SUM_BLOCK {
        return block(x);
    }
    let parts: Vec<f32> = if par {
        x.par_chunks(SUM_BLOCK).map(block).collect()
    } else {
        x.chunks(SUM_BLOCK).map(block).collect()
    };
    simd::sum_f32_scalar(&parts)
}

fn fold_f32(kind: Kind, init: f32, row: &[f32], par: bool, isa: Isa) -> f32 {
    match kind {
        Kind::Add => init + sum_f32(row, par, isa),
        Kind::Multiply => row.iter().fold(init, |a, &b| a * b),
        Kind::Maximum => row.iter().fold(init, |a, &b| reducer::max_f32(a, b)),
        Kind::Minimum => row.iter().fold(init, |a, &b| reducer::min_f32(a, b)),
        Kind::And | Kind::Or => init,
    }
}

fn fold_f64(kind: Kind, init: f64, row: &[f64]) -> f64 {
    match kind {
        Kind::Add => {
            // Four partial sums (the error bound is that of any summation order).
            let mut p = [0.0f64; 4];
            let mut c = row.chunks_exact(4);
            for q in &mut c {
                for (a, &v) in p.iter_mut().zip(q) {
                    *a += v;
                }
            }
            let tail: f64 = c.remainder().iter().sum();
            init + ((p[0] + p[1]) + (p[2] + p[3]) + tail)
        }
        Kind::Multiply => row.iter().fold(init, |a, &b| a * b),
        Kind::Maximum => row.iter().fold(init, |a, &b| reducer::max_f64(a, b)),
        Kind::Minimum => row.iter().fold(init, |a, &b| reducer::min_f64(a, b)),
        Kind::And | Kind::Or => init,
    }
}

fn fold_int(kind: Kind, init: i64, row: &[i64]) -> i64 {
    match kind {
        Kind::Add => row.iter().fold(init, |a, &b| a.wrapping_add(b)),
        Kind::Multiply => row.iter().fold(init, |a, &b| a.wrapping_mul(b)),
        Kind::Maximum => row.iter().fold(init, |a, &b| a.max(b)),
        Kind::Minimum => row.iter().fold(init, |a, &b| a.min(b)),
        Kind::And => row.iter().fold(init, |a, &b| a & b),
        Kind::Or => row.iter().fold(init, |a, &b| a | b),
    }
}

/// Any reduction: for each result index (row-major), the accumulators start at the inits and take
/// `comp(accumulators..., elements...)` for each reduced index in row-major order.
fn general_reduce<'a>(
    cx: &Ctx<'_, 'a>,
    comp: &'a conformance_spec::hlo::HloComputation,
    operands: &[ArrayRef<'a>],
    inits: &[(ElementType, u128)],
    reduced: &[bool],
    results: &[&ArrayShape],
) -> Result<Value<'a>, BackendError> {
    let n = operands.len();
    let shape0 = operands[0].shape();
    let rank = shape0.rank();
    let kept: Vec<usize> = (0..rank).filter(|&d| !reduced[d]).collect();
    let red: Vec<usize> = (0..rank).filter(|&d| reduced[d]).collect();
    let ksizes: Vec<usize> = kept
        .iter()
        .map(|&d| shape0.dimensions[d] as usize)
        .collect();
    let rsizes: Vec<usize> = red.iter().map(|&d| shape0.dimensions[d] as usize).collect();
    let outer: usize = ksizes.iter().product();
    let inner: usize = rsizes.iter().product();
    let strides: Vec<Vec<i64>> = operands.iter().map(|o| index::strides(o.shape())).collect();
    let widths: Vec<usize> = operands
        .iter()
        .map(|o| o.element_type().byte_width())
        .collect();
    let types: Vec<ElementType> = operands.iter().map(|o| o.element_type()).collect();
    let mut out: Vec<Vec<u8>> = results
        .iter()
        .map(|r| Vec::with_capacity(outer * r.element_type.byte_width()))
        .collect();
    let mut kidx = vec![0usize; kept.len()];
    let mut args: Vec<(ElementType, u128)> = Vec::with_capacity(2 * n);
    let mut res: Vec<u128> = Vec::with_capacity(n);
    for _ in 0..outer {
        let mut acc: Vec<u128> = inits.iter().map(|i| i.1).collect();
        let mut ridx = vec![0usize; red.len()];
        for _ in 0..inner {
            args.clear();
            args.extend(inits.iter().zip(&acc).map(|(i, &a)| (i.0, a)));
            for j in 0..n {
                let off: i64 = kept
                    .iter()
                    .zip(&kidx)
                    .chain(red.iter().zip(&ridx))
                    .map(|(&d, &i)| strides[j][d] * i as i64)
                    .sum();
                let bits =
                    elements::read_bits(operands[j].data(), off as usize * widths[j], widths[j]);
                args.push((types[j], bits));
            }
            reducer::fold_step(cx, comp, &args, &mut res, &mut acc)?;
            elements::advance(&mut ridx, &rsizes);
        }
        for (o, (r, a)) in out.iter_mut().zip(results.iter().zip(&acc)) {
            o.extend_from_slice(&a.to_le_bytes()[..r.element_type.byte_width()]);
        }
        elements::advance(&mut kidx, &ksizes);
    }
    let mut values: Vec<Value<'a>> = out
        .into_iter()
        .zip(results)
        .map(|(bytes, r)| finish_row_major(r, bytes, false))
        .collect::<Result<_, _>>()?;
    Ok(if n == 1 {
        values.remove(0)
    } else {
        Value::Tuple(values)
    })
}
