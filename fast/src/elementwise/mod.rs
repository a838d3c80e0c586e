//! The element-wise family (seed 004: element-wise unary functions, binary arithmetic, comparison,
//! Select, Clamp, ConvertElementType, BitcastConvertType, ReducePrecision) and the CHLO special
//! functions ([`special`]).
//!
//! Every operand is first brought into the *result's* physical layout (borrowed when it already
//! has it, a strided copy otherwise; scalar operands and broadcast scalars stay scalars), then one
//! flat kernel runs over the whole physical buffer — padding positions included, which are then
//! overwritten with the layout's padding value. Dispatch is one table from opcode to sub-family
//! ([`handler`]); each sub-family dispatches on element type.

/// One `map1` call per opcode arm (each closure is inlined into its own loop; a `fn` pointer
/// chosen at run time would cost an indirect call per element). Unlisted opcodes return
/// `ctx.unsupported_type()`.
macro_rules! mono1 {
    ($ctx:expr, $a:expr, $t:ty, $op:expr, { $($p:pat => $f:expr),* $(,)? }) => {
        match $op {
            $($p => $crate::buffer::with_output::<$t>($ctx.n, |o| {
                $crate::parallel::map1($ctx.exec, $a, o, $f)
            }),)*
            _ => return Err($ctx.unsupported_type()),
        }
    };
}

/// [`mono1`] for binary maps.
macro_rules! mono2 {
    ($ctx:expr, $a:expr, $b:expr, $t:ty, $op:expr, { $($p:pat => $f:expr),* $(,)? }) => {
        match $op {
            $($p => $crate::buffer::with_output::<$t>($ctx.n, |o| {
                $crate::parallel::map2($ctx.exec, $a, $b, o, $f)
            }),)*
            _ => return Err($ctx.unsupported_type()),
        }
    };
}

pub mod binary;
pub mod bitcast;
pub mod compare;
pub mod complex;
pub mod convert;
pub mod narrow;
pub mod reduce_precision;
pub mod select;
pub mod special;
pub mod unary;

use crate::buffer::{self, In};
use crate::layout;
use crate::parallel::Exec;
use crate::value::Value;
use bytemuck::Pod;
use conformance_spec::hlo::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, BackendError, ElementType, Opcode};
use std::borrow::Cow;

/// An operand brought into the result's physical layout.
pub(crate) struct Prepared<'v> {
    pub(crate) ty: ElementType,
    data: Data<'v>,
}

enum Data<'v> {
    /// One element per physical position of the result.
    Buffer(Cow<'v, [u8]>),
    /// One element for every position.
    Scalar(u128),
}

/// An operand viewed as elements of `T`.
pub(crate) enum Typed<'p, T: Clone + 'static> {
    Slice(Cow<'p, [T]>),
    Splat(T),
}

impl<T: Pod> Typed<'_, T> {
    pub(crate) fn view(&self) -> In<'_, T> {
        match self {
            Typed::Slice(s) => In::Slice(s),
            Typed::Splat(v) => In::Splat(*v),
        }
    }
}

impl Prepared<'_> {
    /// The operand's elements as `T` (whose size must be the element type's width).
    pub(crate) fn typed<T: Pod>(&self) -> Typed<'_, T> {
        debug_assert_eq!(std::mem::size_of::<T>(), self.ty.byte_width());
        match &self.data {
            Data::Buffer(b) => Typed::Slice(buffer::typed::<T>(b)),
            Data::Scalar(bits) => Typed::Splat(buffer::from_bits::<T>(*bits)),
        }
    }

    /// The operand as a buffer of `n` elements (a scalar is repeated).
    pub(crate) fn to_bytes(&self, n: usize) -> Vec<u8> {
        match &self.data {
            Data::Buffer(b) => b.to_vec(),
            Data::Scalar(bits) => {
                let w = self.ty.byte_width();
                let pattern = &bits.to_le_bytes()[..w];
                let mut out = vec![0u8; n * w];
                if *bits != 0 {
                    for e in out.chunks_exact_mut(w) {
                        e.copy_from_slice(pattern);
                    }
                }
                out
            }
        }
    }

    /// The bits of a scalar operand, `None` for a buffer.
    pub(crate) fn scalar(&self) -> Option<u128> {
        match &self.data {
            Data::Buffer(_) => None,
            Data::Scalar(bits) => Some(*bits),
        }
    }

    /// The raw bytes of a buffer operand, `None` for a scalar.
    pub(crate) fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            Data::Buffer(b) => Some(b),
            Data::Scalar(_) => None,
        }
    }
}

/// What a sub-family kernel gets: the instruction, its operands in the result's layout, the result
/// shape, the number of physical positions to compute and the execution settings.
pub(crate) struct Ctx<'a> {
    pub(crate) instr: &'a HloInstruction,
    pub(crate) operands: Vec<Prepared<'a>>,
    pub(crate) result: &'a ArrayShape,
    /// Physical element count of the result (padding included).
    pub(crate) n: usize,
    pub(crate) exec: Exec,
}

impl Ctx<'_> {
    pub(crate) fn opcode(&self) -> Opcode {
        self.instr.opcode
    }
    pub(crate) fn out_type(&self) -> ElementType {
        self.result.element_type
    }
    pub(crate) fn in_type(&self, i: usize) -> ElementType {
        self.operands[i].ty
    }
    /// Error for an element type the operation does not accept.
    pub(crate) fn unsupported_type(&self) -> BackendError {
        let types: Vec<String> = self.operands.iter().map(|p| p.ty.to_string()).collect();
        BackendError::Unsupported(format!(
            "{} on ({}) -> {}",
            self.opcode(),
            types.join(", "),
            self.out_type()
        ))
    }
    /// Checks that the result element type is `expected`.
    pub(crate) fn expect_out(&self, expected: ElementType) -> Result<(), BackendError> {
        if self.out_type() == expected {
            Ok(())
        } else {
            Err(BackendError::Invalid(format!(
                "{} on {} must produce {expected}, the instruction says {}",
                self.opcode(),
                self.in_type(0),
                self.out_type()
            )))
        }
    }
    /// Checks that all operands (from `from` on) have the type of operand `from`.
    pub(crate) fn expect_same_operand_types(&self, from: usize) -> Result<(), BackendError> {
        let t = self.in_type(from);
        match self.operands[from..].iter().find(|p| p.ty != t) {
            None => Ok(()),
            Some(p) => Err(BackendError::Invalid(format!(
                "{} operands have different element types ({t} and {})",
                self.opcode(),
                p.ty
            ))),
        }
    }
}

type Handler = fn(&Ctx<'_>) -> Result<Vec<u8>, BackendError>;

/// The dispatch table: opcode → sub-family kernel.
fn handler(op: Opcode) -> Option<Handler> {
    use Opcode::*;
    Some(match op {
        Abs | Cbrt | Ceil | CountLeadingZeros | Cosine | Erf | Exponential
        | ExponentialMinusOne | Floor | Imag | IsFinite | Log | LogPlusOne | Logistic | Negate
        | Not | PopulationCount | Real | RoundNearestAfz | RoundNearestEven | Rsqrt | Sign
        | Sine | Sqrt | Tan | Tanh => unary::evaluate,
        // CHLO special functions (`special`).
        Asin | Acos | Atan | Sinh | Cosh | Asinh | Acosh | Atanh | Erfc | ErfInv | Lgamma
        | Digamma | BesselI1e => unary::evaluate,
        Add | Subtract | Multiply | Divide | Power | Remainder | Maximum | Minimum | And | Or
        | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Atan2 => binary::evaluate,
        NextAfter | Polygamma | Zeta => binary::evaluate,
        Complex => complex::evaluate_complex_op,
        Compare => compare::evaluate,
        Select => select::evaluate_select,
        Clamp => select::evaluate_clamp,
        Convert => convert::evaluate,
        BitcastConvert => bitcast::evaluate,
        ReducePrecision => reduce_precision::evaluate,
        _ => return None,
    })
}

/// True for the opcodes of the element-wise family this crate implements.
pub fn is_elementwise(op: Opcode) -> bool {
    handler(op).is_some()
}

/// Operands that may be rank-0 scalars although the result is not (seed 004: Clamp's `min`/`max`,
/// Select's `pred`).
fn scalar_operand_allowed(op: Opcode, i: usize) -> bool {
    matches!((op, i), (Opcode::Clamp, 0 | 2) | (Opcode::Select, 0))
}

/// Evaluates one element-wise instruction on operand values; the result has the instruction's
/// shape, layout and padding included.
pub(crate) fn evaluate(
    instr: &HloInstruction,
    operands: &[&Value<'_>],
    exec: Exec,
) -> Result<ArrayLiteral, BackendError> {
    let result = instr.shape.as_array().ok_or_else(|| {
        BackendError::Invalid(format!("{} must have an array shape", instr.opcode))
    })?;
    result
        .validate()
        .map_err(|e| BackendError::Invalid(format!("result shape {result}: {e}")))?;
    let handler = handler(instr.opcode)
        .ok_or_else(|| BackendError::Unsupported(format!("opcode `{}`", instr.opcode)))?;
    if instr.opcode == Opcode::BitcastConvert {
        let width_changes =
            |s: &ArrayShape| s.element_type.bit_width() != result.element_type.bit_width();
        match operands {
            [Value::Array(a)] if width_changes(a.shape()) => {
                return bitcast::evaluate_width_changing(a, result, exec);
            }
            [Value::Splat { shape, bits }] if width_changes(shape) => {
                let a = layout::splat(shape.clone(), *bits)?;
                return bitcast::evaluate_width_changing(&a, result, exec);
            }
            _ => {}
        }
    }
    let parallel = exec.parallel(result.element_count());
    let mut prepared = Vec::with_capacity(operands.len());
    for (i, v) in operands.iter().enumerate() {
        let shape = v.array_shape().ok_or_else(|| {
            BackendError::Invalid(format!("operand {i} of {} is not an array", instr.opcode))
        })?;
        let scalar_ok = shape.rank() == 0 && scalar_operand_allowed(instr.opcode, i);
        if !scalar_ok && !shape.same_dimensions(result) {
            return Err(BackendError::Invalid(format!(
                "operand {i} of {} has shape {shape}, the result {result}: dimensions differ",
                instr.opcode
            )));
        }
        let data = match v {
            Value::Splat { bits, .. } => Data::Scalar(*bits),
            Value::Array(a) if scalar_ok => Data::Scalar(a.get_bits_linear(0)),
            Value::Array(a) => {
                let target = result.clone().with_element_type(a.element_type());
                if layout::same_physical_layout(a.shape(), &target) {
                    Data::Buffer(Cow::Borrowed(a.data()))
                } else {
                    Data::Buffer(Cow::Owned(layout::relayout_bytes(a, &target, parallel)))
                }
            }
            _ => {
                return Err(BackendError::Invalid(format!(
                    "operand {i} of {} is not an array",
                    instr.opcode
                )))
            }
        };
        prepared.push(Prepared {
            ty: shape.element_type,
            data,
        });
    }
    let ctx = Ctx {
        instr,
        operands: prepared,
        result,
        n: index::physical_element_count(result),
        exec,
    };
    let mut data = handler(&ctx)?;
    layout::fill_padding(result, &mut data);
    ArrayLiteral::from_physical_bytes(result.clone(), data)
        .map_err(|e| BackendError::Failure(format!("{}: {e}", instr.opcode)))
}
