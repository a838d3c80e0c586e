//! The contraction and window family (seed 004: Dot, DotGeneral, Conv / ConvWithGeneralPadding,
//! Reduce, ReduceWindow, SelectAndScatter), exact.
//!
//! Every sum here is EXACT: the exact sum of exact products (and of the init value for
//! reductions), rounded ONCE into the result type, round to nearest, ties to even
//! ([`exact_sum`]; complex: each component exact, rounded once; integers: the exact sum wrapped
//! to the result width). Reducers that are not a plain sum are evaluated in a fixed canonical
//! order ([`reducer`]): init first, then the elements in row-major order of the reduced index
//! space. Operands are read and results written by multi-index (any `minor_to_major`, any
//! padding): each operand is decoded once into logical row-major order, and results are placed
//! at the physical position of each logical index.
//!
//! Per output element the reference also reports what the tolerance needs
//! ([`AccumulationBound`]: the number of summed terms and the sum of their magnitudes), through
//! [`accumulation_bounds`] (re-exported at the crate root).
//!
//! One module per operation: [`dot`] (dot and dot-general), [`convolution`], [`reduce`],
//! [`reduce_window`], [`select_and_scatter`]; [`window`] holds the window index math they share.

pub mod accumulator;
pub mod convolution;
pub mod dot;
pub mod exact_product;
pub mod exact_sum;
pub mod reduce;
pub mod reduce_window;
pub mod reducer;
pub mod select_and_scatter;
pub mod window;

use crate::interpreter::{self, Context, Handler};
use conformance_spec::hlo::ir::{HloInstruction, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::BackendError;

/// Every opcode of the family and its handler (consulted by the interpreter's dispatch).
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::Dot, dot::dot),
    (Opcode::Convolution, convolution::convolution),
    (Opcode::Reduce, reduce::reduce),
    (Opcode::ReduceWindow, reduce_window::reduce_window),
    (
        Opcode::SelectAndScatter,
        select_and_scatter::select_and_scatter,
    ),
];

/// What the tolerance of one output element of a sum (or a product reducer's product) needs
/// (issue 5: |got − exact| <= γ(n)·Σ|terms| + slack + ½ ulp(exact)).
///
/// For a product reducer ([`exact_product`]): `terms` counts the roundings (factors − 1),
/// `abs_sum` is |exact product| rounded up, and `slack` the absolute error roundings in the
/// subnormal range may add.
///
/// - `terms`: the number of terms summed, the init value included for reductions. For a complex
///   result it counts the real terms of ONE component: a complex product contributes two
///   (`ac − bd`, `ad + bc`), a complex element one.
/// - `abs_sum`: Σ|terms| computed exactly and rounded UP to `f64` (+inf when it overflows, or
///   when a term is infinite or NaN). For a complex result it is the larger of the two
///   components' sums, so the bound holds for each component.
///
/// Padding, base-dilation holes and skipped window positions are not terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccumulationBound {
    pub terms: u64,
    pub abs_sum: f64,
    /// An absolute error allowed on top of `γ(terms)·abs_sum` (0 for sums).
    pub slack: f64,
}

/// Per output element of the entry computation's root, the bound inputs of its sum (see
/// [`AccumulationBound`]): one `Vec` per result leaf (one for an array result, N for a tuple),
/// one entry per element in logical row-major order.
///
/// `Some` only when the root is `dot`, `convolution`, or a `reduce`, `reduce-window` or
/// `select-and-scatter` whose reducer (`to_apply` / `scatter`) is a plain sum (its root is `add`
/// of its two parameters, one operand), or a `reduce` or `reduce-window` whose reducer is a real
/// floating-point product (`multiply`); `None` for every other root (max/min or arbitrary
/// reducers, other opcodes) and for a root whose operands carry runtime (dynamic) sizes.
///
/// Errors: those of [`interpreter::execute`] for the root's operands, and of the root itself
/// (see each operation's handler).
pub fn accumulation_bounds(
    module: &HloModule,
    args: &[Literal],
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    let Some(entry) = module.computations.get(module.entry) else {
        return interpreter::invalid(format!("module `{}`: no entry computation", module.name));
    };
    let Some(root) = entry.instructions.get(entry.root) else {
        return interpreter::invalid(format!("computation `{}`: no root", entry.name));
    };
    type Bounds = fn(
        &Context,
        &HloInstruction,
        &[&Literal],
    ) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError>;
    if matches!(root.opcode, Opcode::AllReduce | Opcode::ReduceScatter) {
        return crate::collective::bounds(module, args);
    }
    let bounds: Bounds = match root.opcode {
        Opcode::Dot => dot::bounds,
        Opcode::Convolution => convolution::bounds,
        Opcode::Reduce => reduce::bounds,
        Opcode::ReduceWindow => reduce_window::bounds,
        Opcode::SelectAndScatter => select_and_scatter::bounds,
        _ => return Ok(None),
    };
    let ctx = Context {
        module,
        args,
        depth: 0,
        device: conformance_spec::collective::Device::single(),
    };
    // Cheap refusal before evaluating anything: reductions whose reducer is not a sum.
    if matches!(
        root.opcode,
        Opcode::Reduce | Opcode::ReduceWindow | Opcode::SelectAndScatter
    ) {
        let name = if root.opcode == Opcode::SelectAndScatter {
            "scatter"
        } else {
            "to_apply"
        };
        if !reducer::is_sum_computation(module, root, name)
            && !reducer::is_product_computation(module, root, name)
        {
            return Ok(None);
        }
    }
    let operands = interpreter::root_operands(module, args)?;
    if operands
        .iter()
        .any(|o| matches!(o, Literal::Array(a) if a.runtime_dimensions().is_some()))
    {
        return Ok(None);
    }
    let refs: Vec<&Literal> = operands.iter().collect();
    bounds(&ctx, root, &refs)
}

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(msg.into()))
}

/// The row-major strides (in elements) of `dims`.
pub(crate) fn row_major_strides(dims: &[i64]) -> Vec<usize> {
    let mut strides = vec![0usize; dims.len()];
    let mut step = 1usize;
    for d in (0..dims.len()).rev() {
        strides[d] = step;
        step *= dims[d].max(0) as usize;
    }
    strides
}

/// A dimension number in `[0, rank)`, or an error naming `what`.
pub(crate) fn dimension(op: &str, what: &str, d: i64, rank: usize) -> Result<usize, BackendError> {
    match usize::try_from(d) {
        Ok(u) if u < rank => Ok(u),
        _ => invalid(format!(
            "{op}: {what} {d} is not a dimension number in [0, {rank})"
        )),
    }
}

/// The N array shapes of the result: the instruction's array shape (N = 1) or its tuple of N
/// arrays (N > 1), each validated.
///
/// Errors: [`BackendError::Invalid`] for another form.
pub(crate) fn result_shapes<'s>(
    op: &str,
    instr: &'s HloInstruction,
    n: usize,
) -> Result<Vec<&'s ArrayShape>, BackendError> {
    let shapes: Vec<&ArrayShape> = match (&instr.shape, n) {
        (Shape::Array(a), 1) => vec![a],
        (Shape::Tuple(items), n) if items.len() == n && n > 1 => items
            .iter()
            .map(Shape::as_array)
            .collect::<Option<_>>()
            .ok_or_else(|| BackendError::Invalid(format!("{op}: tuple items must be arrays")))?,
        (s, n) => {
            return invalid(format!(
                "{op}: with {n} operand(s) the result must be {}, not {s}",
                if n == 1 {
                    "an array"
                } else {
                    "a tuple of arrays"
                }
            ))
        }
    };
    for (j, s) in shapes.iter().enumerate() {
        s.validate()
            .map_err(|e| BackendError::Invalid(format!("{op}: result {j}: {e}")))?;
    }
    Ok(shapes)
}

/// Checks a result shape's dimensions against the ones the operation produces.
pub(crate) fn expect_dims(
    op: &str,
    shape: &ArrayShape,
    expected: &[i64],
) -> Result<(), BackendError> {
    if shape.dimensions == expected {
        Ok(())
    } else {
        invalid(format!(
            "{op}: the result has dimensions {:?}, the operation produces {expected:?}",
            shape.dimensions
        ))
    }
}

/// An array of `shape` whose logical row-major element `n` has bits `bits[n]`.
pub(crate) fn array_from_row_major(shape: &ArrayShape, bits: &[u128]) -> ArrayLiteral {
    let mut out = ArrayLiteral::zeros(shape.clone());
    for (&p, &b) in conformance_spec::index::physical_positions(shape)
        .iter()
        .zip(bits)
    {
        out.set_bits_linear(p, b);
    }
    out
}

/// One array per result leaf: the array itself (N = 1) or a tuple.
pub(crate) fn collate(mut arrays: Vec<ArrayLiteral>) -> Literal {
    if arrays.len() == 1 {
        Literal::Array(arrays.remove(0))
    } else {
        Literal::Tuple(arrays.into_iter().map(Literal::Array).collect())
    }
}

/// Operands `0..n` as arrays.
pub(crate) fn arrays<'a>(
    instr: &HloInstruction,
    operands: &[&'a Literal],
    n: usize,
) -> Result<Vec<&'a ArrayLiteral>, BackendError> {
    (0..n)
        .map(|i| interpreter::array(instr, operands, i))
        .collect()
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers for the unit tests of this family.

    pub use crate::data_movement::test_util::{parse_shape_array, run, run_array};
    use conformance_spec::literal::{ArrayLiteral, Literal};

    /// An f32 array of the shape (HLO text, layout allowed) from logical row-major values.
    pub fn f32s(shape: &str, values: &[f32]) -> Literal {
        let shape = parse_shape_array(shape);
        let bits: Vec<u128> = values.iter().map(|v| u128::from(v.to_bits())).collect();
        Literal::Array(ArrayLiteral::from_bits(shape, &bits).unwrap())
    }

    /// An array of any type from logical row-major f64 values (exactly representable).
    pub fn values(shape: &str, values: &[f64]) -> Literal {
        let shape = parse_shape_array(shape);
        Literal::Array(ArrayLiteral::from_f64s(shape, values).unwrap())
    }

    /// An integer array from logical row-major values.
    pub fn ints(shape: &str, values: &[i128]) -> Literal {
        let shape = parse_shape_array(shape);
        Literal::Array(ArrayLiteral::from_i128s(shape, values).unwrap())
    }

    /// The logical row-major values of an f32 array result.
    pub fn f32_values(a: &ArrayLiteral) -> Vec<f32> {
        a.logical_bits()
            .iter()
            .map(|&b| f32::from_bits(b as u32))
            .collect()
    }

    /// The logical row-major values of a float array result, as f64.
    pub fn f64_values(a: &ArrayLiteral) -> Vec<f64> {
        a.to_f64s().expect("float array")
    }

    /// The logical row-major values of an integer array result.
    pub fn int_values(a: &ArrayLiteral) -> Vec<i128> {
        a.to_i128s().expect("integer array")
    }
}
