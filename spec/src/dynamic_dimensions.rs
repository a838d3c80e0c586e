//! Dynamic dimensions: how operations act on values whose sizes are set at run time (seed 004,
//! SetDimensionSize: "passes the operand through as the result, with the dynamic dimension
//! tracked by the compiler"; cf. XLA's `DynamicDimensionInference` and `DynamicPadder`).
//!
//! **The model.** A value with runtime sizes is its *logical array* — the elements inside the
//! runtime sizes, stored at the origin of the static bound ([`crate::ArrayLiteral::logical_array`]);
//! elements beyond are unspecified padding. An operation on dynamic values is the same operation
//! on their logical arrays, and its result's runtime sizes are that result's dimensions. This is
//! what XLA's dynamic padder rewrites programs to compute: it packs concatenated operands
//! contiguously, reverses only the valid prefix, masks `pad` operands, and reshapes the
//! row-major logical tensor. [`logical_form`] gives, for one instruction, the static instruction
//! to evaluate on the logical arrays and the sizes each operand is read at. Both backends run
//! that instruction with their static kernels; the comparator compares runtime sizes and the
//! elements inside them only.
//!
//! **The rules** (per XLA's dynamic dimension inference where it defines the case; the logical
//! model decides where XLA leaves garbage, fails, or differs between versions):
//! - Element-wise operations (and `select`, `clamp`, `compare`, `convert`, `copy`): per
//!   dimension, the smallest operand size (XLA: a dynamic operand's size wins over a static one;
//!   XLA's runtime broadcast of a size-1 dynamic operand is not modelled).
//! - `broadcast`: operand dimension `i`'s size moves to output dimension `dimensions[i]`.
//! - `transpose`, `reverse`, `concatenate` (sizes add up along the dimension), `pad`
//!   (`lo + hi + n + (n − 1)·interior`, and `lo + hi` for `n = 0`), `gather`, `scatter`,
//!   `dynamic-update-slice`: shape inference on the logical shapes.
//! - `slice`: the limit becomes `min(limit, n)` (a start beyond it gives an empty dimension); a
//!   full slice `[0:bound:1]` keeps the size `n`, as in XLA.
//! - `dynamic-slice` sizes and `gather` `slice_sizes` equal to the bound follow the runtime size
//!   (XLA propagates full-bound slices); others must fit inside it, with start indices clamped
//!   against the runtime size.
//! - `reshape`: dimensions are grouped by common factors of the bounds; a group whose logical
//!   element count is below its bound gets it in one output dimension — the one marked `<=` in
//!   the result shape, else the only one whose bound is not 1, else the most major — and the
//!   count must divide evenly.
//! - `tuple`, `get-tuple-element`, `call`, `parameter`, `constant`: values pass whole, with
//!   their sizes ([`passes_values_through`]); `set-dimension-size` sets one size (replacing an
//!   earlier one) and `get-dimension-size` reads it.
//!
//! Runtime sizes that make an instruction invalid (a dynamic-slice larger than the runtime
//! size, a negative pad size, ...) are [`DynamicError::Invalid`].

use crate::hlo::ir::{AttrValue, Attribute, HloInstruction, Opcode, SliceDim};
use crate::shape::{ArrayShape, Shape};
use crate::shape_inference::{
    infer_shape_in, is_elementwise_binary, is_elementwise_unary, InferenceContext,
};

/// Why an instruction has no logical form for the given runtime sizes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynamicError {
    /// The instruction is not valid for these runtime sizes (the message names the sizes).
    #[error("with runtime sizes {sizes}: {message}")]
    Invalid { sizes: String, message: String },
}

/// One array operand: its static (bound) shape and its runtime sizes (elements, one per
/// dimension; equal to the bounds for a static value).
#[derive(Clone, Copy, Debug)]
pub struct OperandSizes<'a> {
    pub bound: &'a ArrayShape,
    pub logical: &'a [i64],
}

/// What to evaluate for an instruction with dynamic operands.
#[derive(Clone, Debug, PartialEq)]
pub struct LogicalForm {
    /// The instruction with static shapes: the result shape has the logical dimensions (element
    /// types and layouts as declared), and attributes are rewritten to the runtime sizes.
    pub instruction: HloInstruction,
    /// Per operand, the dimensions to read it at: a prefix (from index 0) of its logical array.
    pub operand_dimensions: Vec<Vec<i64>>,
}

/// True for the opcodes whose values pass whole, runtime sizes included, rather than through a
/// [`logical_form`]: `tuple`, `get-tuple-element`, `call`, `parameter`, `constant`,
/// `set-dimension-size` and `get-dimension-size` (which read and write the sizes themselves).
pub fn passes_values_through(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Tuple
            | GetTupleElement
            | Call
            | Fusion
            | Parameter
            | Constant
            | SetDimensionSize
            | GetDimensionSize
    )
}

/// True for the opcodes whose operands are read element by element at the same index.
fn is_elementwise(opcode: Opcode) -> bool {
    use Opcode::*;
    is_elementwise_unary(opcode)
        || is_elementwise_binary(opcode)
        || matches!(
            opcode,
            Compare | Select | Clamp | Convert | BitcastConvert | ReducePrecision | Copy
        )
}

/// The static instruction that computes `instr` on the logical arrays of its operands (see the
/// module docs), with the dimensions each operand is read at. `operands` has one entry per
/// operand, in order; every operand must be an array (tuple operands only reach opcodes for
/// which [`passes_values_through`] holds).
///
/// Errors: [`DynamicError::Invalid`] when the instruction is not valid for these sizes (also
/// when it is not valid at all: the message is shape inference's).
pub fn logical_form(
    instr: &HloInstruction,
    operands: &[OperandSizes],
) -> Result<LogicalForm, DynamicError> {
    let invalid = |message: String| DynamicError::Invalid {
        sizes: operands
            .iter()
            .map(|o| format!("{:?}", o.logical))
            .collect::<Vec<_>>()
            .join(", "),
        message,
    };
    let mut operand_dimensions: Vec<Vec<i64>> =
        operands.iter().map(|o| o.logical.to_vec()).collect();
    if is_elementwise(instr.opcode) {
        // Per dimension, the smallest size among the operands of the result's rank.
        let rank = instr.shape.as_array().map_or(0, ArrayShape::rank);
        let mut common: Option<Vec<i64>> = None;
        for o in operands
            .iter()
            .filter(|o| o.logical.len() == rank && rank > 0)
        {
            common = Some(match common {
                None => o.logical.to_vec(),
                Some(c) => c.iter().zip(o.logical).map(|(&a, &b)| a.min(b)).collect(),
            });
        }
        if let Some(c) = common {
            for d in operand_dimensions.iter_mut().filter(|d| d.len() == rank) {
                d.clone_from(&c);
            }
        }
    }
    let mut attributes = instr.attributes.clone();
    match instr.opcode {
        Opcode::Slice => {
            if let (Some(AttrValue::Slice(dims)), Some(x)) =
                (attribute_mut(&mut attributes, "slice"), operands.first())
            {
                for (s, &n) in dims.iter_mut().zip(x.logical) {
                    let limit = s.limit.min(n);
                    *s = SliceDim {
                        start: s.start.min(limit),
                        limit,
                        stride: s.stride,
                    };
                }
            }
        }
        Opcode::DynamicSlice => follow_full_sizes(&mut attributes, "dynamic_slice_sizes", operands),
        Opcode::Gather => follow_full_sizes(&mut attributes, "slice_sizes", operands),
        _ => {}
    }
    let declared = instr.shape.as_array();
    let result_dimensions = match (instr.opcode, declared, operands.first()) {
        (Opcode::Broadcast, Some(out), Some(x)) => {
            let mut dims = out.dimensions.clone();
            for (i, &d) in instr
                .attr_ints("dimensions")
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                if let (Some(slot), Some(&n)) = (
                    usize::try_from(d).ok().and_then(|d| dims.get_mut(d)),
                    x.logical.get(i),
                ) {
                    *slot = n;
                }
            }
            Some(dims)
        }
        (Opcode::Reshape, Some(out), Some(x)) => {
            Some(reshape_dimensions(*x, out).map_err(invalid)?)
        }
        _ => None,
    };
    let logical_shapes: Vec<Shape> = operands
        .iter()
        .zip(&operand_dimensions)
        .map(|(o, dims)| Shape::Array(ArrayShape::new(o.bound.element_type, dims.clone())))
        .collect();
    let refs: Vec<&Shape> = logical_shapes.iter().collect();
    let context = InferenceContext {
        new_element_type: declared.map(|a| a.element_type),
        result_dimensions: result_dimensions.as_deref(),
        callee: None,
        called: &[],
        given: None,
    };
    let inferred = infer_shape_in(instr.opcode, &refs, &attributes, &context)
        .map_err(|e| invalid(e.to_string()))?;
    let shape = with_declared_layouts(inferred, &instr.shape).map_err(invalid)?;
    Ok(LogicalForm {
        instruction: HloInstruction {
            shape,
            attributes,
            ..instr.clone()
        },
        operand_dimensions,
    })
}

fn attribute_mut<'a>(attributes: &'a mut [Attribute], name: &str) -> Option<&'a mut AttrValue> {
    attributes
        .iter_mut()
        .find(|a| a.name == name)
        .map(|a| &mut a.value)
}

/// Slice sizes equal to operand 0's bound become its runtime size.
fn follow_full_sizes(attributes: &mut [Attribute], name: &str, operands: &[OperandSizes]) {
    if let (Some(AttrValue::Ints(sizes)), Some(x)) =
        (attribute_mut(attributes, name), operands.first())
    {
        for ((s, &bound), &n) in sizes.iter_mut().zip(&x.bound.dimensions).zip(x.logical) {
            if *s == bound {
                *s = n;
            }
        }
    }
}

/// The inferred (logical) shape with the element types and layouts of the declared shape, leaf
/// by leaf.
fn with_declared_layouts(inferred: Shape, declared: &Shape) -> Result<Shape, String> {
    match (inferred, declared) {
        (Shape::Array(a), Shape::Array(d)) => {
            if a.rank() != d.rank() {
                return Err(format!(
                    "the logical result has rank {}, the declared shape `{declared}` {}",
                    a.rank(),
                    d.rank()
                ));
            }
            Ok(Shape::Array(
                ArrayShape::new(d.element_type, a.dimensions).with_layout(d.layout.clone()),
            ))
        }
        (Shape::Tuple(items), Shape::Tuple(decl)) if items.len() == decl.len() => Ok(Shape::Tuple(
            items
                .into_iter()
                .zip(decl)
                .map(|(i, d)| with_declared_layouts(i, d))
                .collect::<Result<_, _>>()?,
        )),
        (i, _) => Err(format!(
            "the logical result `{i}` does not match the declared shape `{declared}`"
        )),
    }
}

/// The logical result dimensions of `reshape` (see the module docs).
fn reshape_dimensions(x: OperandSizes, out: &ArrayShape) -> Result<Vec<i64>, String> {
    let mut dims = out.dimensions.clone();
    if x.bound.dimensions.iter().product::<i64>() == 0 {
        return Ok(dims);
    }
    for (ins, outs) in common_factors(&x.bound.dimensions, &out.dimensions) {
        let count: i64 = x.logical[ins.clone()].iter().product();
        let bound: i64 = out.dimensions[outs.clone()].iter().product();
        if count == bound {
            continue;
        }
        let marked: Vec<usize> = outs
            .clone()
            .filter(|&d| out.dynamic_dimensions.get(d) == Some(&true))
            .collect();
        let not_one: Vec<usize> = outs.clone().filter(|&d| out.dimensions[d] != 1).collect();
        let k = match (marked.as_slice(), not_one.as_slice()) {
            ([k], _) | ([], [k]) => *k,
            _ => outs.start,
        };
        if outs.start >= outs.end {
            return Err(format!(
                "operand dimensions {ins:?} hold {count} elements and map to no result dimension"
            ));
        }
        let others: i64 = outs
            .clone()
            .filter(|&d| d != k)
            .map(|d| out.dimensions[d])
            .product();
        if others == 0 || count % others != 0 {
            return Err(format!(
                "reshape: the {count} runtime elements of operand dimensions {ins:?} do not fill result dimensions {outs:?} of bounds {:?} (dimension {k} is the dynamic one)",
                &out.dimensions[outs.clone()]
            ));
        }
        dims[k] = count / others;
    }
    Ok(dims)
}

/// Groups of consecutive dimensions with equal element counts in `a` and `b` (XLA's
/// `CommonFactors`): pairs of index ranges, covering both lists in order, each taking at least
/// one dimension from each list while that list has any left. Both lists must have the same
/// nonzero product.
fn common_factors(a: &[i64], b: &[i64]) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let mut groups = Vec::new();
    let (mut i, mut j, mut gi, mut gj) = (0, 0, 0, 0);
    let (mut pa, mut pb) = (1i64, 1i64);
    while i < a.len() || j < b.len() {
        if (pa <= pb && i < a.len()) || j == b.len() {
            pa = pa.saturating_mul(a[i]);
            i += 1;
        } else {
            pb = pb.saturating_mul(b[j]);
            j += 1;
        }
        // A group takes at least one dimension from each side that has any left.
        let both = (i > gi || i == a.len()) && (j > gj || j == b.len());
        if pa == pb && both {
            groups.push((gi..i, gj..j));
            (gi, gj, pa, pb) = (i, j, 1, 1);
        }
    }
    if gi < a.len() || gj < b.len() {
        groups.push((gi..a.len(), gj..b.len()));
    }
    // A group with no dimension on one side (trailing size-1 dimensions) joins its neighbour,
    // so that a dynamic size-1 dimension always has result dimensions to go to.
    let mut merged: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    let empty = |r: &std::ops::Range<usize>| r.start >= r.end;
    for (x, y) in groups {
        match merged.last_mut() {
            Some((px, py)) if empty(&x) || empty(&y) || empty(px) || empty(py) => {
                px.end = x.end;
                py.end = y.end;
            }
            _ => merged.push((x, y)),
        }
    }
    merged
}

#[cfg(test)]
mod tests;
