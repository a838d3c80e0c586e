//! The linear-algebra family of seed 004: `fft`, `cholesky`, `triangular-solve` and the three
//! batch-norm operations (`batch-norm-training`, `batch-norm-inference`, `batch-norm-grad`), with
//! the semantics of `docs/linalg-semantics.md`.
//!
//! - [`fft`]: `rustfft` (complex lines) and `realfft` (the real last axis of RFFT and IRFFT), plans
//!   cached per (length, direction) across calls; multi-axis transforms go axis by axis, strided
//!   axes through cache-friendly column tiles, lines in parallel on rayon's pool.
//! - [`cholesky`] and [`triangular_solve`]: `faer`'s blocked, rayon-parallel kernels on row-major
//!   matrices (f32, f64, c64, c128); batches in parallel when the matrices are small.
//! - [`lapack`]: `custom-call`s to JAX's LAPACK targets (`lapack_<t><routine>_ffi`,
//!   `docs/custom-calls.md`): potrf, trsm, getrf, geqrf, orgqr/ungqr, syevd/heevd, gesdd, gesvd.
//! - [`batch_norm`]: our own kernels (sums in f64 in two passes, rayon-parallel over blocks of
//!   rows and features) for f32, f64, bf16 and f16.
//!
//! Every operand is read in any layout (a row-major copy is made when needed: the operations work
//! in place on it) and every result comes out in the layout of the instruction's shape.

pub mod batch_norm;
pub mod cholesky;
pub mod fft;
pub mod lapack;
pub mod triangular_solve;

use crate::buffer::typed;
use crate::layout;
use crate::parallel::Exec;
use crate::value::{ArrayRef, Value};
use conformance_spec::hlo::{AttrValue, HloInstruction};
use conformance_spec::{ArrayShape, BackendError, Layout, Opcode, Shape};
use rayon::prelude::*;

/// True for the opcodes this module implements.
pub(crate) fn is_linalg(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Fft
            | Opcode::Cholesky
            | Opcode::TriangularSolve
            | Opcode::BatchNormTraining
            | Opcode::BatchNormInference
            | Opcode::BatchNormGrad
            | Opcode::CustomCall
    )
}

/// Evaluates a linear-algebra instruction on its operands; the result has the instruction's shape
/// (layouts included). Errors: [`BackendError::Invalid`] for malformed instructions (operand
/// counts, attributes, shapes); [`BackendError::Unsupported`] for element types an operation does
/// not accept.
pub(crate) fn evaluate<'a>(
    instr: &HloInstruction,
    operands: &[&Value<'a>],
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    if instr.opcode == Opcode::CustomCall {
        // An unknown target is refused by name whatever its operands are.
        lapack::refuse_unknown_target(instr)?;
    }
    let arrays = operands
        .iter()
        .enumerate()
        .map(|(i, v)| array(instr, i, v))
        .collect::<Result<Vec<_>, _>>()?;
    match instr.opcode {
        Opcode::Fft => fft::fft(instr, &arrays, exec),
        Opcode::Cholesky => cholesky::cholesky(instr, &arrays, exec),
        Opcode::TriangularSolve => triangular_solve::triangular_solve(instr, &arrays, exec),
        Opcode::BatchNormTraining => batch_norm::training(instr, &arrays, exec),
        Opcode::BatchNormInference => batch_norm::inference(instr, &arrays, exec),
        Opcode::BatchNormGrad => batch_norm::grad(instr, &arrays, exec),
        Opcode::CustomCall => lapack::custom_call(instr, &arrays, exec),
        op => Err(BackendError::Unsupported(format!(
            "`{op}` is not a linear-algebra operation"
        ))),
    }
}

pub(crate) fn bad(msg: impl Into<String>) -> BackendError {
    BackendError::Invalid(msg.into())
}

/// Operand `i` as an array (a splat is materialized).
fn array<'a>(
    instr: &HloInstruction,
    i: usize,
    v: &Value<'a>,
) -> Result<ArrayRef<'a>, BackendError> {
    match v {
        Value::Array(a) => Ok(a.clone()),
        Value::Splat { shape, bits } => match Value::owned(layout::splat(shape.clone(), *bits)?) {
            Value::Array(a) => Ok(a),
            _ => Err(BackendError::Failure("Value::owned is an array".into())),
        },
        _ => Err(bad(format!(
            "operand {i} of {} is not an array",
            instr.opcode
        ))),
    }
}

/// Checks the operand count. Errors: [`BackendError::Invalid`] naming both counts.
pub(crate) fn arity(
    instr: &HloInstruction,
    arrays: &[ArrayRef<'_>],
    k: usize,
) -> Result<(), BackendError> {
    if arrays.len() == k {
        Ok(())
    } else {
        Err(bad(format!(
            "{} takes {k} operands, {} given",
            instr.opcode,
            arrays.len()
        )))
    }
}

/// The instruction's array shape, validated. Errors: [`BackendError::Invalid`].
pub(crate) fn result_array(instr: &HloInstruction) -> Result<&ArrayShape, BackendError> {
    let s = instr
        .shape
        .as_array()
        .ok_or_else(|| bad(format!("{} must have an array shape", instr.opcode)))?;
    s.validate()
        .map_err(|e| bad(format!("result shape {s}: {e}")))?;
    Ok(s)
}

/// The instruction's tuple of `k` array shapes, validated. Errors: [`BackendError::Invalid`].
pub(crate) fn result_tuple(
    instr: &HloInstruction,
    k: usize,
) -> Result<Vec<&ArrayShape>, BackendError> {
    match &instr.shape {
        Shape::Tuple(t) if t.len() == k => t
            .iter()
            .map(|s| {
                let a = s
                    .as_array()
                    .ok_or_else(|| bad(format!("{} result tuple of non-arrays", instr.opcode)))?;
                a.validate()
                    .map_err(|e| bad(format!("result shape {a}: {e}")))?;
                Ok(a)
            })
            .collect(),
        s => Err(bad(format!(
            "{} must have a tuple of {k} arrays as its shape, not {s}",
            instr.opcode
        ))),
    }
}

/// A boolean attribute, `false` when omitted. Errors: a value that is not a boolean.
pub(crate) fn flag(instr: &HloInstruction, name: &str) -> Result<bool, BackendError> {
    match instr.attribute(name) {
        None => Ok(false),
        Some(AttrValue::Bool(b)) => Ok(*b),
        Some(AttrValue::Raw(r)) if r == "true" || r == "false" => Ok(r == "true"),
        Some(v) => Err(bad(format!(
            "{}: `{name}` must be true or false, not {v:?}",
            instr.opcode
        ))),
    }
}

/// An enumerator attribute (`fft_type=RFFT`), `None` when omitted.
pub(crate) fn enumerator<'i>(instr: &'i HloInstruction, name: &str) -> Option<&'i str> {
    match instr.attribute(name)? {
        AttrValue::Enum(s) | AttrValue::Raw(s) => Some(s.as_str()),
        _ => None,
    }
}

/// The shape with the same dimensions and element type, row-major and unpadded.
pub(crate) fn row_major(shape: &ArrayShape) -> ArrayShape {
    ArrayShape::new(shape.element_type, shape.dimensions.clone())
        .with_layout(Layout::default_for_rank(shape.rank()))
}

/// True when the array's buffer is its elements in row-major order, without padding.
fn is_row_major(shape: &ArrayShape) -> bool {
    !shape.layout.is_padded() && layout::same_physical_layout(shape, &row_major(shape))
}

/// A fresh buffer holding the array's elements in row-major order (raw bytes of its element type).
pub(crate) fn row_major_bytes(a: &ArrayRef<'_>, parallel: bool) -> Vec<u8> {
    if is_row_major(a.shape()) {
        let n = a.shape().element_count() * a.element_type().byte_width();
        let mut out = crate::alloc::zeroed(n);
        out.copy_from_slice(&a.data()[..n]);
        out
    } else {
        layout::relayout_bytes(a, &row_major(a.shape()), parallel)
    }
}

/// The array's elements in row-major order as `T` (borrowed when the buffer already is that).
pub(crate) fn row_major_elements<'s, T: bytemuck::Pod>(
    a: &'s ArrayRef<'_>,
    parallel: bool,
) -> std::borrow::Cow<'s, [T]> {
    if is_row_major(a.shape()) {
        let n = a.shape().element_count() * a.element_type().byte_width();
        typed::<T>(&a.data()[..n])
    } else {
        std::borrow::Cow::Owned(typed::<T>(&row_major_bytes(a, parallel)).into_owned())
    }
}

/// Runs `f` on a byte buffer seen as a mutable slice of `T` (copied when misaligned).
pub(crate) fn with_typed_mut<T: bytemuck::Pod, R>(
    bytes: &mut [u8],
    f: impl FnOnce(&mut [T]) -> R,
) -> R {
    match bytemuck::try_cast_slice_mut::<u8, T>(bytes) {
        Ok(s) => f(s),
        Err(_) => {
            let mut tmp: Vec<T> = typed::<T>(bytes).into_owned();
            let r = f(&mut tmp);
            bytes.copy_from_slice(bytemuck::cast_slice(&tmp));
            r
        }
    }
}

/// A buffer laid out as `have` (same dimensions and element type as `result`) placed in
/// `result`'s layout as a value (no copy when the physical layouts agree).
pub(crate) fn finish<'a>(
    result: &ArrayShape,
    have: &ArrayShape,
    bytes: Vec<u8>,
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    crate::contraction::finish_in_layout(result, have, bytes, parallel)
}

/// A row-major buffer of `result`'s dimensions placed in `result`'s layout.
pub(crate) fn finish_row_major<'a>(
    result: &ArrayShape,
    bytes: Vec<u8>,
    parallel: bool,
) -> Result<Value<'a>, BackendError> {
    finish(result, &row_major(result), bytes, parallel)
}

/// Calls `f(index, chunk)` on consecutive chunks of `chunk` elements of `data` (the last one may
/// be shorter), on rayon's pool when `parallel`. The chunks do not depend on the thread count.
pub(crate) fn for_chunks<T: Send>(
    data: &mut [T],
    chunk: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    let chunk = chunk.max(1);
    if parallel {
        data.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| f(i, c));
    } else {
        data.chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, c)| f(i, c));
    }
}

/// `f(i)` for `i` in `0..n`, collected in order, on rayon's pool when `parallel`.
pub(crate) fn map_range<R: Send>(
    n: usize,
    parallel: bool,
    f: impl Fn(usize) -> R + Sync + Send,
) -> Vec<R> {
    if parallel {
        (0..n).into_par_iter().map(f).collect()
    } else {
        (0..n).map(f).collect()
    }
}

/// The dimensions as `usize` (validated shapes have non-negative sizes).
pub(crate) fn dims(shape: &ArrayShape) -> Vec<usize> {
    shape
        .dimensions
        .iter()
        .map(|&d| d.max(0) as usize)
        .collect()
}
