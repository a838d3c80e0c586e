//! Shape inference and verification of HLO instructions (cf. XLA `ShapeInference`, `HloVerifier`).
//!
//! [`infer_shape`] computes an instruction's result shape from its operands' shapes and its
//! attributes, following seed 004 (XlaBuilder semantics) and the HLO rules that XLA's verifier
//! enforces (e.g. element-wise binary operations take operands of identical dimensions: implicit
//! broadcasting is lowered to explicit `broadcast` instructions by the builder). Inferred shapes
//! carry the default layout; layouts are free in verification.
//!
//! Some results are not determined by operands and attributes — the new element type of
//! `convert`, the output dimensions of `broadcast` and `reshape`, the callee of `call` and the
//! update computation of `scatter`, the shape of a `parameter`, `constant` or `iota` — XLA passes
//! those as extra arguments; here they come in an [`InferenceContext`] ([`infer_shape_in`]).
//!
//! [`verify_module`] checks a whole module: structure (operands defined before use, parameter
//! numbers `0..n`, called computations exist with the right parameter counts) and each declared
//! shape against inference, where inference is implemented.
//!
//! The rules live in one module per family: [`elementwise`] (arithmetic, compare, select, clamp,
//! conversions), [`movement`] (data movement), [`gather_scatter`], [`contraction`] (dot,
//! convolution, reduce, reduce-window, select-and-scatter), `linalg` (fft, cholesky,
//! triangular-solve, batch norm).

mod collective;
pub mod contraction;
mod control_flow;
pub mod elementwise;
pub mod gather_scatter;
mod host_transfer;
mod linalg;
pub mod movement;
mod random;
mod rules;
mod verify;

pub use contraction::{
    check_reducer, check_select_computation, contraction_result_type,
    convolution_output_dimensions, dot_output_dimensions, reduce_output_dimensions,
    window_output_dimensions, window_output_size,
};
pub use elementwise::{
    bitcast_convert_dimensions, broadcast_binary_dimensions, complex_of, is_elementwise_binary,
    is_elementwise_unary, unary_result_type,
};
pub use gather_scatter::{check_scatter, gather_output_dimensions};
pub use movement::{check_broadcast, pad_dimensions, slice_dimensions};
pub use verify::{called_in_order, verify_module, VerifyError};

use crate::element_type::ElementType;
use crate::hlo::ir::{Attribute, Opcode};
use crate::shape::Shape;
use rules::Rules;

/// Why a shape cannot be inferred (or an instruction is ill-formed).
///
/// Every variant names the `opcode`; `message`s say what was expected and what was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeInferenceError {
    /// The wrong number of operands (`expected` is written as text, e.g. "2").
    #[error("{opcode} takes {expected} operand(s), got {got}")]
    OperandCount {
        opcode: Opcode,
        expected: &'static str,
        got: usize,
    },
    /// The operands' shapes do not fit the operation.
    #[error("{opcode}: {message}")]
    Operands { opcode: Opcode, message: String },
    /// A missing or invalid attribute.
    #[error("{opcode}: {message}")]
    Attribute { opcode: Opcode, message: String },
    /// An element type the operation does not accept.
    #[error("{opcode}: {message}")]
    ElementType { opcode: Opcode, message: String },
    /// The result needs information that operands and attributes do not carry (see [`InferenceContext`]).
    #[error("{opcode}: shape inference needs {what}")]
    MissingContext { opcode: Opcode, what: &'static str },
    /// Inference is not implemented for this opcode.
    #[error("shape inference is not implemented for {0}")]
    Unsupported(Opcode),
}

impl ShapeInferenceError {
    /// True when the error says only that the shape cannot be inferred here
    /// ([`ShapeInferenceError::MissingContext`], [`ShapeInferenceError::Unsupported`]), not that the
    /// instruction is wrong.
    pub fn is_not_inferable(&self) -> bool {
        matches!(
            self,
            ShapeInferenceError::MissingContext { .. } | ShapeInferenceError::Unsupported(_)
        )
    }
}

/// What XLA passes to shape inference besides operand shapes and attributes.
#[derive(Clone, Copy, Debug, Default)]
pub struct InferenceContext<'a> {
    /// `convert` / `bitcast-convert`: the new element type (XlaBuilder's `new_element_type`).
    pub new_element_type: Option<ElementType>,
    /// `broadcast`: the output dimension sizes (`out_dim_size`); `reshape`: the new sizes.
    pub result_dimensions: Option<&'a [i64]>,
    /// `call`: the callee's parameter shapes (by parameter number) and root shape; `scatter`: the
    /// update computation's (`to_apply`), whose signature is checked when present.
    pub callee: Option<(&'a [Shape], &'a Shape)>,
    /// `map`, `sort` (`to_apply`), `while` (condition, then body) and `conditional`
    /// (true_computation then false_computation, or branch_computations in order): each called
    /// computation's parameter shapes (by parameter number) and root shape.
    pub called: &'a [(Vec<Shape>, Shape)],
    /// `parameter` / `constant` / `iota`: the shape itself.
    pub given: Option<&'a Shape>,
}

impl<'a> InferenceContext<'a> {
    /// The context an instruction's declared shape supplies: its element type and dimensions (for
    /// an array shape) and the shape itself as given.
    pub fn from_declared(shape: &'a Shape) -> InferenceContext<'a> {
        let array = shape.as_array();
        InferenceContext {
            new_element_type: array.map(|a| a.element_type),
            result_dimensions: array.map(|a| a.dimensions.as_slice()),
            callee: None,
            called: &[],
            given: Some(shape),
        }
    }
}

/// Infers the result shape of `opcode` applied to operands of the given shapes, with the given
/// attributes, and no context (see [`infer_shape_in`] for `convert`, `broadcast`, `call`, ...).
///
/// Implemented: every element-wise unary and binary opcode, `compare` (`direction=`, optional
/// `type=`), `select`, `clamp`, `convert`, `bitcast-convert` (incl. width-changing), `reduce-precision`
/// (`exponent_bits=`, `mantissa_bits=`); data movement: `broadcast` (`dimensions=`), `reshape`,
/// `transpose`, `slice`, `dynamic-slice`, `dynamic-update-slice`, `concatenate`, `pad`, `reverse`,
/// `iota`, `gather`, `scatter`, `get-dimension-size`, `set-dimension-size`, `copy`, `tuple`,
/// `get-tuple-element` (`index=`); `call`, `parameter`, `constant`; contractions and windows
/// ([`contraction`]): `dot`, `convolution`, `reduce`, `reduce-window`, `select-and-scatter`
/// (the result element type of `dot` / `convolution` from the context's `new_element_type`, the
/// reducer / `scatter` computation checked when the context's `callee` is given); computations and
/// control flow: `map`, `conditional`, `while`, `sort` (from the context's `called` signatures),
/// `topk` (`k=`), `opt-barrier`; the numerical family ([`linalg`]): `fft`, `cholesky`,
/// `triangular-solve`, `batch-norm-training`, `batch-norm-inference`, `batch-norm-grad`; a
/// `custom-call` to a target of the registry ([`crate::custom_call`]).
///
/// Errors: [`ShapeInferenceError`]; `Unsupported` for other opcodes, `MissingContext` when the
/// result needs an [`InferenceContext`].
pub fn infer_shape(
    opcode: Opcode,
    operands: &[&Shape],
    attributes: &[Attribute],
) -> Result<Shape, ShapeInferenceError> {
    infer_shape_in(opcode, operands, attributes, &InferenceContext::default())
}

/// [`infer_shape`] with the information XLA passes besides operands and attributes.
pub fn infer_shape_in(
    opcode: Opcode,
    operands: &[&Shape],
    attributes: &[Attribute],
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    use Opcode::*;
    let r = Rules {
        opcode,
        operands,
        attributes,
    };
    match opcode {
        _ if is_elementwise_unary(opcode) => elementwise::unary(&r),
        _ if is_elementwise_binary(opcode) => elementwise::binary(&r),
        Compare => elementwise::compare(&r),
        Select => elementwise::select(&r),
        Clamp => elementwise::clamp(&r),
        Convert => elementwise::convert(&r, context),
        BitcastConvert => elementwise::bitcast_convert(&r, context),
        ReducePrecision => elementwise::reduce_precision(&r),
        Broadcast => movement::broadcast(&r, context),
        Reshape => movement::reshape(&r, context),
        // A bitcast may also reinterpret the elements as another type of the same width (XLA
        // writes `s32[] bitcast(f32[] x)` in optimized sort comparators).
        Bitcast => {
            movement::reshape(&r, context).and_then(|s| match (s, context.new_element_type) {
                (Shape::Array(a), Some(t)) if t.bit_width() == a.element_type.bit_width() => {
                    Ok(Shape::Array(a.with_element_type(t)))
                }
                (Shape::Array(a), Some(t)) if t != a.element_type => Err(r.operand_error(format!(
                    "a bitcast from {} to {t} changes the element width",
                    a.element_type
                ))),
                (s, _) => Ok(s),
            })
        }
        Transpose => movement::transpose(&r),
        Slice => movement::slice(&r),
        DynamicSlice => movement::dynamic_slice(&r),
        DynamicUpdateSlice => movement::dynamic_update_slice(&r),
        Concatenate => movement::concatenate(&r),
        Pad => movement::pad(&r),
        Reverse => movement::reverse(&r),
        Iota => movement::iota(&r, context),
        GetDimensionSize => movement::get_dimension_size(&r),
        SetDimensionSize => movement::set_dimension_size(&r),
        Copy => movement::copy(&r),
        Tuple => Ok(Shape::Tuple(
            operands.iter().map(|s| (*s).clone()).collect(),
        )),
        GetTupleElement => movement::get_tuple_element(&r),
        Gather => gather_scatter::gather(&r),
        Scatter => gather_scatter::scatter(&r, context),
        Dot => contraction::dot(&r, context),
        Convolution => contraction::convolution(&r, context),
        Reduce => contraction::reduce(&r, context),
        ReduceWindow => contraction::reduce_window(&r, context),
        SelectAndScatter => contraction::select_and_scatter(&r, context),
        Map => control_flow::map(&r, context),
        Conditional => control_flow::conditional(&r, context),
        While => control_flow::while_loop(&r, context),
        Sort => control_flow::sort(&r, context),
        TopK => control_flow::topk(&r),
        OptimizationBarrier => control_flow::optimization_barrier(&r),
        Fft => linalg::fft(&r),
        Cholesky => linalg::cholesky(&r),
        TriangularSolve => linalg::triangular_solve(&r),
        BatchNormTraining => linalg::batch_norm_training(&r),
        BatchNormInference => linalg::batch_norm_inference(&r),
        BatchNormGrad => linalg::batch_norm_grad(&r),
        CustomCall => linalg::custom_call(&r),
        RngBitGenerator => random::rng_bit_generator(&r, context),
        Rng => random::rng(&r, context),
        AllReduce => collective::all_reduce(&r, context),
        AllGather => collective::all_gather(&r, context),
        ReduceScatter => collective::reduce_scatter(&r, context),
        AllToAll => collective::all_to_all(&r),
        CollectivePermute => collective::collective_permute(&r),
        ReplicaId | PartitionId => collective::device_id(&r),
        AfterAll => host_transfer::after_all(&r),
        Infeed => host_transfer::infeed(&r, context),
        Outfeed => host_transfer::outfeed(&r),
        Send => host_transfer::send(&r),
        SendDone => host_transfer::send_done(&r),
        Recv => host_transfer::recv(&r, context),
        RecvDone => host_transfer::recv_done(&r),
        Call | Fusion => {
            let (params, root) = context.callee.ok_or(ShapeInferenceError::MissingContext {
                opcode,
                what: "the callee's parameter and root shapes",
            })?;
            if params.len() != operands.len() {
                return Err(r.operand_error(format!(
                    "the callee takes {} parameter(s), {} operand(s) given",
                    params.len(),
                    operands.len()
                )));
            }
            for (i, (p, a)) in params.iter().zip(operands).enumerate() {
                if !shapes_compatible(p, a) {
                    return Err(r.operand_error(format!(
                        "operand {i} has shape `{a}`, the callee's parameter {i} is `{p}`"
                    )));
                }
            }
            Ok(root.clone())
        }
        Parameter | Constant => {
            r.exactly::<0>("0")?;
            context
                .given
                .cloned()
                .ok_or(ShapeInferenceError::MissingContext {
                    opcode,
                    what: "the given shape",
                })
        }
        _ => Err(ShapeInferenceError::Unsupported(opcode)),
    }
}

/// Same element types and dimensions through tuples (layouts and dynamic-dimension flags may differ).
pub fn shapes_compatible(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.compatible(y),
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| shapes_compatible(p, q))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_contraction;
#[cfg(test)]
mod tests_linalg;
#[cfg(test)]
mod tests_movement;
