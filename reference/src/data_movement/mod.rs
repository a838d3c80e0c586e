//! The data-movement family (seed 004: Broadcast, BroadcastInDim, Reshape, Collapse, Transpose,
//! Slice, DynamicSlice, DynamicUpdateSlice, ConcatInDim, Pad, Rev, Iota, Gather, Scatter,
//! GetDimensionSize, SetDimensionSize, and `copy`).
//!
//! Every operation here moves element bits (`u128`, through [`ArrayLiteral::get_bits`] and
//! [`ArrayLiteral::set_bits`]) from one multi-index to another, so one code path serves every
//! element type (pred, integers, every float format, complex) bit-exactly, NaN payloads included;
//! `iota` computes values, and `scatter` applies its update computation through the interpreter.
//! Each operation is a literal transcription of the seed's definition: it walks the result's
//! index space in row-major order and computes, for each result index, where its value comes
//! from. Results are produced in the layout of the instruction's shape (any `minor_to_major`, any
//! padding); the result shape is the instruction's declared shape, checked against the operands.
//!
//! One module per group: [`shape_ops`] (broadcast, reshape, transpose, reverse, copy),
//! [`slicing`] (slice, dynamic-slice, dynamic-update-slice, pad, concatenate), [`iota`],
//! [`gather`], [`scatter`], [`dynamic_size`] (get-/set-dimension-size).

pub mod dynamic_size;
pub mod gather;
pub mod iota;
pub mod scatter;
pub mod shape_ops;
pub mod slicing;

use crate::interpreter::Handler;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::{HloInstruction, Opcode};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::shape::ArrayShape;
use conformance_spec::BackendError;

/// Every data-movement opcode and its handler (consulted by the interpreter's dispatch).
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::Broadcast, shape_ops::broadcast),
    (Opcode::Copy, shape_ops::copy),
    (Opcode::Reshape, shape_ops::reshape),
    (Opcode::Transpose, shape_ops::transpose),
    (Opcode::Reverse, shape_ops::reverse),
    (Opcode::Slice, slicing::slice),
    (Opcode::DynamicSlice, slicing::dynamic_slice),
    (Opcode::DynamicUpdateSlice, slicing::dynamic_update_slice),
    (Opcode::Pad, slicing::pad),
    (Opcode::Concatenate, slicing::concatenate),
    (Opcode::Iota, iota::iota),
    (Opcode::Gather, gather::gather),
    (Opcode::Scatter, scatter::scatter),
    (Opcode::SetDimensionSize, dynamic_size::set_dimension_size),
    (Opcode::GetDimensionSize, dynamic_size::get_dimension_size),
];

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(msg.into()))
}

/// The integer attribute list `name`, or an error naming the opcode.
pub(crate) fn ints<'a>(instr: &'a HloInstruction, name: &str) -> Result<&'a [i64], BackendError> {
    instr.attr_ints(name).ok_or_else(|| {
        BackendError::Invalid(format!(
            "{}: missing or malformed `{name}={{...}}`",
            instr.opcode
        ))
    })
}

/// The integer attribute `name`, or an error naming the opcode.
pub(crate) fn int(instr: &HloInstruction, name: &str) -> Result<i64, BackendError> {
    instr.attr_int(name).ok_or_else(|| {
        BackendError::Invalid(format!("{}: missing or malformed `{name}=N`", instr.opcode))
    })
}

/// The result's element type must be the operand's (data movement does not convert).
pub(crate) fn same_type(
    instr: &HloInstruction,
    what: &str,
    got: ElementType,
    result: &ArrayShape,
) -> Result<(), BackendError> {
    if got == result.element_type {
        Ok(())
    } else {
        invalid(format!(
            "{}: {what} has element type {got}, the result {}",
            instr.opcode, result.element_type
        ))
    }
}

/// The declared result dimensions must be the ones the operation produces.
pub(crate) fn expect_dims(
    instr: &HloInstruction,
    result: &ArrayShape,
    expected: &[i64],
) -> Result<(), BackendError> {
    if result.dimensions == expected {
        Ok(())
    } else {
        invalid(format!(
            "{}: the result has dimensions {:?}, the operation produces {expected:?}",
            instr.opcode, result.dimensions
        ))
    }
}

/// A dimension number in `[0, rank)`.
pub(crate) fn dimension(
    instr: &HloInstruction,
    what: &str,
    d: i64,
    rank: usize,
) -> Result<usize, BackendError> {
    match usize::try_from(d) {
        Ok(u) if u < rank => Ok(u),
        _ => invalid(format!(
            "{}: {what} {d} is not a dimension number in [0, {rank})",
            instr.opcode
        )),
    }
}

/// True when `perm` is a permutation of `0..rank`.
pub(crate) fn is_permutation(perm: &[i64], rank: usize) -> bool {
    let mut seen = vec![false; rank];
    perm.len() == rank
        && perm.iter().all(|&p| {
            usize::try_from(p)
                .ok()
                .filter(|&p| p < rank && !seen[p])
                .map(|p| seen[p] = true)
                .is_some()
        })
}

/// Reads the integer element at `index` of an array of an integer type, as a signed or unsigned
/// value per its type (seed 004, DynamicSlice: start indices are integers of their own type).
///
/// Errors: [`BackendError::Invalid`] when the element type is not an integer type.
pub(crate) fn integer_at(
    instr: &HloInstruction,
    what: &str,
    array: &ArrayLiteral,
    index: &[i64],
) -> Result<i128, BackendError> {
    let ty = array.element_type();
    if !ty.is_integer() {
        return invalid(format!(
            "{}: {what} must have an integer element type, not {ty}",
            instr.opcode
        ));
    }
    ty.integer_from_bits(array.get_bits(index) as u64)
        .ok_or_else(|| BackendError::Invalid(format!("{}: {what}: not an integer", instr.opcode)))
}

/// An array of `shape` whose element at each index `j` is `operand`'s element at the index
/// `source(j, &mut i)` writes into `i`: the one loop of broadcast, transpose, reverse, slice and
/// dynamic-slice, which differ only in how `i` follows from `j`.
pub(crate) fn read_each(
    operand: &ArrayLiteral,
    shape: &ArrayShape,
    mut source: impl FnMut(&[i64], &mut [i64]),
) -> ArrayLiteral {
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut from = vec![0i64; operand.dimensions().len()];
    conformance_spec::index::for_each_index(&shape.dimensions, |j| {
        source(j, &mut from);
        out.set_bits(j, operand.get_bits(&from));
    });
    out
}

/// The `index_vector_dim` of a gather or scatter (in `[0, rank of indices]`; equal to the rank
/// means an implicit trailing dimension of size 1) and the operand dimensions named by `map`
/// (`start_index_map` / `scatter_dims_to_operand_dims`), one per index-vector component, distinct
/// (seed 004, Gather and Scatter).
///
/// Errors: [`BackendError::Invalid`] naming `op` for an `index_vector_dim` out of range, a map
/// entry out of `[0, rank)`, a map of another length than the index vectors, or a repeated entry.
pub(crate) fn index_vectors(
    instr: &HloInstruction,
    op: &str,
    indices_dims: &[i64],
    map: &str,
    rank: usize,
) -> Result<(usize, Vec<usize>), BackendError> {
    let ivd = int(instr, "index_vector_dim")?;
    let index_vector_dim = match usize::try_from(ivd) {
        Ok(v) if v <= indices_dims.len() => v,
        _ => {
            return invalid(format!(
                "{op}: index_vector_dim={ivd} is outside [0, {}]",
                indices_dims.len()
            ))
        }
    };
    let vector_size = indices_dims.get(index_vector_dim).copied().unwrap_or(1);
    let dims: Vec<usize> = ints(instr, map)?
        .iter()
        .map(|&d| dimension(instr, &format!("{map} entry"), d, rank))
        .collect::<Result<_, _>>()?;
    if dims.len() as i64 != vector_size {
        return invalid(format!(
            "{op}: {map} has {} entries, the index vectors {vector_size}",
            dims.len()
        ));
    }
    if (1..dims.len()).any(|k| dims[..k].contains(&dims[k])) {
        return invalid(format!("{op}: {map} repeats a dimension"));
    }
    Ok((index_vector_dim, dims))
}

/// True when `index` is a valid multi-index of `dims` (every entry in `[0, size)`).
pub(crate) fn in_bounds(index: &[i64], dims: &[i64]) -> bool {
    index.len() == dims.len() && index.iter().zip(dims).all(|(&i, &n)| 0 <= i && i < n)
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers for the unit tests of this family: run one HLO module on literals, build arrays.

    use crate::interpreter;
    use conformance_spec::hlo::parse_module;
    use conformance_spec::literal::{ArrayLiteral, Literal};
    use conformance_spec::shape::ArrayShape;
    use conformance_spec::BackendError;

    /// Parses `hlo` and runs its entry computation on `args`.
    pub fn run(hlo: &str, args: &[Literal]) -> Result<Literal, BackendError> {
        let m = parse_module(hlo).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
        interpreter::execute(&m, args)
    }

    /// Runs and unwraps an array result.
    pub fn run_array(hlo: &str, args: &[Literal]) -> ArrayLiteral {
        match run(hlo, args) {
            Ok(Literal::Array(a)) => a,
            Ok(other) => panic!("not an array: {other}"),
            Err(e) => panic!("{e}\n{hlo}"),
        }
    }

    /// An array of the shape (HLO text, with layout) whose row-major logical element `n` has
    /// bits `f(n)`.
    pub fn numbered(shape: &str, f: impl Fn(usize) -> u128) -> ArrayLiteral {
        let shape = parse_shape_array(shape);
        let bits: Vec<u128> = (0..shape.element_count()).map(f).collect();
        ArrayLiteral::from_bits(shape, &bits).unwrap()
    }

    pub fn parse_shape_array(text: &str) -> ArrayShape {
        conformance_spec::hlo::parse_shape(text)
            .unwrap_or_else(|e| panic!("{e}"))
            .as_array()
            .expect("array shape")
            .clone()
    }

    /// The logical row-major number of a multi-index in `dims`.
    pub fn row_major(index: &[i64], dims: &[i64]) -> usize {
        index
            .iter()
            .zip(dims)
            .fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
    }

    /// A scalar s32 literal.
    pub fn s32(v: i32) -> Literal {
        Literal::Array(ArrayLiteral::scalar_bits(
            conformance_spec::ElementType::S32,
            v as u32 as u128,
        ))
    }
}
