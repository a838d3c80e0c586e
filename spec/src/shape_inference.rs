//! Shape inference and verification of HLO instructions (cf. XLA `ShapeInference`, `HloVerifier`).
//!
//! [`infer_shape`] computes an instruction's result shape from its operands' shapes and its
//! attributes, following seed 004 (XlaBuilder semantics) and the HLO rules that XLA's verifier
//! enforces (e.g. element-wise binary operations take operands of identical dimensions: implicit
//! broadcasting is lowered to explicit `broadcast` instructions by the builder). Inferred shapes
//! carry the default layout; layouts are free in verification.
//!
//! Some results are not determined by operands and attributes — the new element type of
//! `convert`, the output dimensions of `broadcast` and `reshape`, the callee of `call`, the shape of
//! a `parameter` or `constant` — XLA passes those as extra arguments; here they come in an
//! [`InferenceContext`] ([`infer_shape_in`]).
//!
//! [`verify_module`] checks a whole module: structure (operands defined before use, parameter
//! numbers `0..n`, called computations exist with the right parameter counts) and each declared
//! shape against inference, where inference is implemented.

mod verify;

pub use verify::{verify_module, VerifyError};

use crate::element_type::ElementType;
use crate::hlo::attributes::{COMPARISON_TYPES, DIRECTIONS};
use crate::hlo::ir::{AttrValue, Attribute, Opcode};
use crate::shape::{ArrayShape, Shape};

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
    /// `call`: the callee's parameter shapes (by parameter number) and root shape.
    pub callee: Option<(&'a [Shape], &'a Shape)>,
    /// `parameter` / `constant`: the shape itself.
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
            given: Some(shape),
        }
    }
}

/// Infers the result shape of `opcode` applied to operands of the given shapes, with the given
/// attributes, and no context (see [`infer_shape_in`] for `convert`, `broadcast`, `call`, ...).
///
/// Implemented: every element-wise unary and binary opcode, `compare` (`direction=`, optional
/// `type=`), `select`, `clamp`, `convert`, `bitcast-convert` (incl. width-changing), `reduce-precision`
/// (`exponent_bits=`, `mantissa_bits=`), `broadcast` (`dimensions=`), `reshape`, `tuple`,
/// `get-tuple-element` (`index=`), `call`, `parameter`, `constant`, `copy`.
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
    if is_elementwise_unary(opcode) {
        let [x] = r.arrays::<1>("1")?;
        let result = unary_result_type(opcode, x.element_type);
        r.types_ok(x.element_type, result)?;
        return Ok(Shape::array(result, x.dimensions.clone()));
    }
    if is_elementwise_binary(opcode) {
        let [lhs, rhs] = r.arrays::<2>("2")?;
        r.same_dimensions(lhs, rhs, "lhs", "rhs")?;
        r.same_type(lhs, rhs, "lhs", "rhs")?;
        let result = if opcode == Complex {
            complex_of(lhs.element_type).ok_or_else(|| {
                r.type_error(format!(
                    "operands must be f32 or f64 (giving c64 or c128), got {}",
                    lhs.element_type
                ))
            })?
        } else {
            lhs.element_type
        };
        r.types_ok(lhs.element_type, result)?;
        return Ok(Shape::array(result, lhs.dimensions.clone()));
    }
    match opcode {
        Compare => {
            let [lhs, rhs] = r.arrays::<2>("2")?;
            r.same_dimensions(lhs, rhs, "lhs", "rhs")?;
            r.same_type(lhs, rhs, "lhs", "rhs")?;
            let direction = r.enum_attr("direction")?.ok_or_else(|| {
                r.attr_error("missing `direction=` (EQ, NE, GE, GT, LE or LT)".into())
            })?;
            if !DIRECTIONS.contains(&direction) {
                return Err(r.attr_error(format!("unknown direction `{direction}`")));
            }
            if let Some(ty) = r.enum_attr("type")? {
                comparison_type_fits(ty, lhs.element_type).map_err(|m| r.attr_error(m))?;
            }
            r.types_ok(lhs.element_type, ElementType::Pred)?;
            Ok(Shape::array(ElementType::Pred, lhs.dimensions.clone()))
        }
        Select => {
            let [pred, on_true, on_false] = r.arrays::<3>("3")?;
            if pred.element_type != ElementType::Pred {
                return Err(r.operand_error(format!(
                    "the predicate must be pred, got {}",
                    pred.element_type
                )));
            }
            r.same_dimensions(on_true, on_false, "on_true", "on_false")?;
            r.same_type(on_true, on_false, "on_true", "on_false")?;
            if !pred.is_scalar() {
                r.same_dimensions(pred, on_true, "pred", "on_true")?;
            }
            r.types_ok(on_true.element_type, on_true.element_type)?;
            Ok(Shape::array(
                on_true.element_type,
                on_true.dimensions.clone(),
            ))
        }
        Clamp => {
            let [min, x, max] = r.arrays::<3>("3")?;
            r.same_type(min, x, "min", "operand")?;
            r.same_type(max, x, "max", "operand")?;
            // seed 004, Clamp: min and max are scalars or of the operand's shape. (XLA also lets a
            // scalar operand take the dimensions of array bounds.)
            let dims = if x.is_scalar() && !(min.is_scalar() && max.is_scalar()) {
                let bound = if min.is_scalar() { max } else { min };
                if !max.is_scalar() && !min.is_scalar() {
                    r.same_dimensions(min, max, "min", "max")?;
                }
                bound.dimensions.clone()
            } else {
                for (b, name) in [(min, "min"), (max, "max")] {
                    if !b.is_scalar() {
                        r.same_dimensions(b, x, name, "operand")?;
                    }
                }
                x.dimensions.clone()
            };
            r.types_ok(x.element_type, x.element_type)?;
            Ok(Shape::array(x.element_type, dims))
        }
        Convert => {
            let [x] = r.arrays::<1>("1")?;
            let to = r.new_type(context)?;
            if x.element_type.is_complex() && !to.is_complex() {
                return Err(r.type_error(format!(
                    "conversion from complex {} to real {to} is not defined (use real/imag)",
                    x.element_type
                )));
            }
            r.types_ok(x.element_type, to)?;
            Ok(Shape::array(to, x.dimensions.clone()))
        }
        BitcastConvert => {
            let [x] = r.arrays::<1>("1")?;
            let to = r.new_type(context)?;
            let dims = bitcast_convert_dimensions(x, to).map_err(|m| r.operand_error(m))?;
            r.types_ok(x.element_type, to)?;
            Ok(Shape::array(to, dims))
        }
        ReducePrecision => {
            let [x] = r.arrays::<1>("1")?;
            let e = r.int_attr("exponent_bits")?;
            let m = r.int_attr("mantissa_bits")?;
            if e < 1 {
                return Err(r.attr_error(format!("exponent_bits must be at least 1, got {e}")));
            }
            if m < 0 {
                return Err(r.attr_error(format!("mantissa_bits must be non-negative, got {m}")));
            }
            r.types_ok(x.element_type, x.element_type)?;
            Ok(Shape::array(x.element_type, x.dimensions.clone()))
        }
        Broadcast => {
            let [x] = r.arrays::<1>("1")?;
            let out = context
                .result_dimensions
                .ok_or(ShapeInferenceError::MissingContext {
                    opcode,
                    what: "the output dimensions",
                })?;
            let dims = r.ints_attr("dimensions")?;
            check_broadcast(x, out, dims).map_err(|m| r.attr_error(m))?;
            Ok(Shape::array(x.element_type, out.to_vec()))
        }
        Reshape => {
            let [x] = r.arrays::<1>("1")?;
            let out = context
                .result_dimensions
                .ok_or(ShapeInferenceError::MissingContext {
                    opcode,
                    what: "the new dimensions",
                })?;
            let count = |d: &[i64]| {
                d.iter().try_fold(
                    1i64,
                    |acc, &v| if v < 0 { None } else { acc.checked_mul(v) },
                )
            };
            match (count(&x.dimensions), count(out)) {
                (Some(a), Some(b)) if a == b => Ok(Shape::array(x.element_type, out.to_vec())),
                _ => Err(r.operand_error(format!(
                    "cannot reshape {:?} to {out:?}: element counts differ",
                    x.dimensions
                ))),
            }
        }
        Copy => {
            let [x] = r.exactly::<1>("1")?;
            Ok(x.clone())
        }
        Tuple => Ok(Shape::Tuple(
            operands.iter().map(|s| (*s).clone()).collect(),
        )),
        GetTupleElement => {
            let [t] = r.exactly::<1>("1")?;
            let Shape::Tuple(elements) = t else {
                return Err(r.operand_error(format!("the operand must be a tuple, got `{t}`")));
            };
            let i = r.int_attr("index")?;
            usize::try_from(i)
                .ok()
                .and_then(|i| elements.get(i))
                .cloned()
                .ok_or_else(|| {
                    r.attr_error(format!(
                        "index {i} is out of range for a {}-tuple",
                        elements.len()
                    ))
                })
        }
        Call => {
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

/// The element-wise unary opcodes (seed 004, "Element-wise unary functions"), plus `not`,
/// `popcnt`, `count-leading-zeros`.
pub fn is_elementwise_unary(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Abs | Cbrt
            | Ceil
            | Cosine
            | CountLeadingZeros
            | Erf
            | Exponential
            | ExponentialMinusOne
            | Floor
            | Imag
            | IsFinite
            | Log
            | LogPlusOne
            | Logistic
            | Negate
            | Not
            | PopulationCount
            | Real
            | RoundNearestAfz
            | RoundNearestEven
            | Rsqrt
            | Sign
            | Sine
            | Sqrt
            | Tan
            | Tanh
    )
}

/// The element-wise binary opcodes (seed 004, "Element-wise binary arithmetic operations").
pub fn is_elementwise_binary(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Add | Subtract
            | Multiply
            | Divide
            | Power
            | Remainder
            | Maximum
            | Minimum
            | And
            | Or
            | Xor
            | ShiftLeft
            | ShiftRightArithmetic
            | ShiftRightLogical
            | Atan2
            | Complex
    )
}

/// The result element type of an element-wise unary op: `pred` for `is-finite`; the component
/// type for `real`, `imag`, `abs` of complex (c64 → f32, c128 → f64); else the operand's type.
pub fn unary_result_type(opcode: Opcode, operand: ElementType) -> ElementType {
    match opcode {
        Opcode::IsFinite => ElementType::Pred,
        Opcode::Real | Opcode::Imag | Opcode::Abs => operand.complex_component().unwrap_or(operand),
        _ => operand,
    }
}

/// The complex type whose components have type `t` (f32 → c64, f64 → c128).
pub fn complex_of(t: ElementType) -> Option<ElementType> {
    match t {
        ElementType::F32 => Some(ElementType::C64),
        ElementType::F64 => Some(ElementType::C128),
        _ => None,
    }
}

/// Result dimensions of `bitcast-convert` (seed 004, BitcastConvertType): equal widths keep the
/// dimensions; from B to B' < B bits adds a minor-most dimension of size B/B'; from B to B' > B
/// bits requires the last dimension to be B'/B and drops it. Complex and real types do not mix.
pub fn bitcast_convert_dimensions(x: &ArrayShape, to: ElementType) -> Result<Vec<i64>, String> {
    let from = x.element_type;
    if from.is_complex() != to.is_complex() {
        return Err(format!(
            "bitcast between complex and real types ({from} → {to}) is not defined"
        ));
    }
    let (b, b2) = (from.bit_width() as i64, to.bit_width() as i64);
    let mut dims = x.dimensions.clone();
    if b > b2 {
        dims.push(b / b2);
    } else if b2 > b {
        let ratio = b2 / b;
        if dims.last() != Some(&ratio) {
            return Err(format!(
                "bitcast from {from} to the wider {to} needs a last dimension of size {ratio}, got {:?}",
                x.dimensions
            ));
        }
        dims.pop();
    }
    Ok(dims)
}

/// Checks HLO `broadcast`: `dimensions` has one entry per operand dimension, each a distinct
/// output dimension whose size equals the operand dimension's (degenerate dimensions are expanded
/// by a `reshape` first, as XlaBuilder does).
pub fn check_broadcast(x: &ArrayShape, out: &[i64], dimensions: &[i64]) -> Result<(), String> {
    if dimensions.len() != x.rank() {
        return Err(format!(
            "dimensions={dimensions:?} has {} entries for an operand of rank {}",
            dimensions.len(),
            x.rank()
        ));
    }
    let mut used = vec![false; out.len()];
    for (i, &d) in dimensions.iter().enumerate() {
        let Some(slot) = usize::try_from(d).ok().filter(|&d| d < out.len()) else {
            return Err(format!(
                "dimension {d} is out of range for output rank {}",
                out.len()
            ));
        };
        if std::mem::replace(&mut used[slot], true) {
            return Err(format!(
                "output dimension {d} appears twice in dimensions={dimensions:?}"
            ));
        }
        if out[slot] != x.dimensions[i] {
            return Err(format!(
                "operand dimension {i} (size {}) maps to output dimension {d} of size {}",
                x.dimensions[i], out[slot]
            ));
        }
    }
    Ok(())
}

/// The output dimensions of an XlaBuilder element-wise binary operation with implicit
/// broadcasting (seed 004, "Element-wise binary arithmetic operations"; XLA "Broadcasting"):
///
/// - equal ranks: each pair of sizes is equal or one is 1 (degenerate), which expands;
///   `broadcast_dimensions` must be empty or the identity;
/// - a scalar broadcasts to the other operand without `broadcast_dimensions`;
/// - otherwise the lower-rank operand's dimension `i` maps to the higher-rank operand's dimension
///   `broadcast_dimensions[i]` (strictly increasing), where sizes are equal or one is 1.
///
/// Errors: incompatible sizes, bad or missing `broadcast_dimensions` (as a message).
pub fn broadcast_binary_dimensions(
    lhs: &[i64],
    rhs: &[i64],
    broadcast_dimensions: &[i64],
) -> Result<Vec<i64>, String> {
    let merge = |a: i64, b: i64| -> Option<i64> {
        if a == b || b == 1 {
            Some(a)
        } else if a == 1 {
            Some(b)
        } else {
            None
        }
    };
    if lhs.len() == rhs.len() {
        let identity: Vec<i64> = (0..lhs.len() as i64).collect();
        if !broadcast_dimensions.is_empty() && broadcast_dimensions != identity {
            return Err(format!(
                "broadcast_dimensions must be empty or the identity for operands of equal rank, got {broadcast_dimensions:?}"
            ));
        }
        return lhs
            .iter()
            .zip(rhs)
            .map(|(&a, &b)| merge(a, b))
            .collect::<Option<Vec<i64>>>()
            .ok_or_else(|| format!("dimensions {lhs:?} and {rhs:?} are not compatible"));
    }
    let (small, large) = if lhs.len() < rhs.len() {
        (lhs, rhs)
    } else {
        (rhs, lhs)
    };
    if small.is_empty() && broadcast_dimensions.is_empty() {
        return Ok(large.to_vec());
    }
    if broadcast_dimensions.len() != small.len() {
        return Err(format!(
            "broadcast_dimensions {broadcast_dimensions:?} must have one entry per dimension of the lower-rank operand {small:?}"
        ));
    }
    let mut out = large.to_vec();
    for (i, &d) in broadcast_dimensions.iter().enumerate() {
        let Some(slot) = usize::try_from(d).ok().filter(|&d| d < large.len()) else {
            return Err(format!(
                "broadcast dimension {d} is out of range for rank {}",
                large.len()
            ));
        };
        if i > 0 && broadcast_dimensions[i - 1] >= d {
            return Err(format!(
                "broadcast_dimensions {broadcast_dimensions:?} must be strictly increasing"
            ));
        }
        out[slot] = merge(large[slot], small[i]).ok_or_else(|| {
            format!(
                "dimension {i} (size {}) does not match dimension {d} (size {}) of the higher-rank operand",
                small[i], large[slot]
            )
        })?;
    }
    Ok(out)
}

/// Whether `compare`'s `type=` fits the element type: FLOAT/TOTALORDER for floating types, SIGNED
/// for signed integers, UNSIGNED for unsigned integers and pred.
fn comparison_type_fits(ty: &str, t: ElementType) -> Result<(), String> {
    let ok = match ty {
        "FLOAT" | "TOTALORDER" => t.is_floating(),
        "SIGNED" => t.is_signed_integer(),
        "UNSIGNED" => t.is_unsigned_integer() || t.is_pred(),
        _ => {
            return Err(format!(
                "unknown comparison type `{ty}` (expected {})",
                COMPARISON_TYPES.join(", ")
            ))
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("comparison type {ty} does not apply to {t}"))
    }
}

/// Per-element-type legality of an operation: `operand` is the type of its (first data) operand,
/// `result` the result element type, `attributes` the instruction's (a compare's `direction` and
/// `type` select its catalog entry).
///
/// The catalog (`spec/ops/*.yaml`, [`crate::catalog::shared`]) is the one source of which element
/// types an operation takes: an opcode with catalog entries is legal on a type pair exactly when
/// some entry accepts it. Opcodes the catalog does not list yet are not restricted here. While the
/// catalog itself is loading (its validation verifies the examples) this check is skipped; the
/// loader checks each example against its own entry.
pub(crate) fn element_types_ok(
    opcode: Opcode,
    attributes: &[Attribute],
    operand: ElementType,
    result: ElementType,
) -> Result<(), String> {
    let Some(catalog) = crate::catalog::shared() else {
        return Ok(());
    };
    if !catalog.ops().iter().any(|op| op.opcode == opcode.name()) {
        return Ok(());
    }
    if catalog.accepts(opcode, attributes, operand, result) {
        Ok(())
    } else {
        let mut types: Vec<String> = Vec::new();
        for op in catalog.ops().iter().filter(|op| op.opcode == opcode.name()) {
            for t in catalog.element_types(op) {
                let name = t.to_string();
                if !types.contains(&name) {
                    types.push(name);
                }
            }
        }
        Err(format!(
            "element type {operand} (result {result}) is not supported by `{opcode}` with these attributes (catalog: {})",
            types.join(", ")
        ))
    }
}

/// Operand and attribute access with errors naming the opcode.
struct Rules<'a> {
    opcode: Opcode,
    operands: &'a [&'a Shape],
    attributes: &'a [Attribute],
}

impl<'a> Rules<'a> {
    fn exactly<const N: usize>(
        &self,
        expected: &'static str,
    ) -> Result<[&'a Shape; N], ShapeInferenceError> {
        <[&Shape; N]>::try_from(self.operands).map_err(|_| ShapeInferenceError::OperandCount {
            opcode: self.opcode,
            expected,
            got: self.operands.len(),
        })
    }

    fn arrays<const N: usize>(
        &self,
        expected: &'static str,
    ) -> Result<[&'a ArrayShape; N], ShapeInferenceError> {
        let shapes = self.exactly::<N>(expected)?;
        let mut out = Vec::with_capacity(N);
        for (i, s) in shapes.iter().enumerate() {
            match s.as_array() {
                Some(a) => out.push(a),
                None => {
                    return Err(
                        self.operand_error(format!("operand {i} must be an array, got `{s}`"))
                    )
                }
            }
        }
        out.try_into()
            .map_err(|_| self.operand_error("operand count".into()))
    }

    fn operand_error(&self, message: String) -> ShapeInferenceError {
        ShapeInferenceError::Operands {
            opcode: self.opcode,
            message,
        }
    }

    fn attr_error(&self, message: String) -> ShapeInferenceError {
        ShapeInferenceError::Attribute {
            opcode: self.opcode,
            message,
        }
    }

    fn type_error(&self, message: String) -> ShapeInferenceError {
        ShapeInferenceError::ElementType {
            opcode: self.opcode,
            message,
        }
    }

    fn types_ok(
        &self,
        operand: ElementType,
        result: ElementType,
    ) -> Result<(), ShapeInferenceError> {
        element_types_ok(self.opcode, self.attributes, operand, result)
            .map_err(|m| self.type_error(m))
    }

    fn same_dimensions(
        &self,
        a: &ArrayShape,
        b: &ArrayShape,
        an: &str,
        bn: &str,
    ) -> Result<(), ShapeInferenceError> {
        if a.dimensions == b.dimensions {
            Ok(())
        } else {
            Err(self.operand_error(format!(
                "{an} dimensions {:?} differ from {bn} dimensions {:?} (HLO has no implicit broadcasting)",
                a.dimensions, b.dimensions
            )))
        }
    }

    fn same_type(
        &self,
        a: &ArrayShape,
        b: &ArrayShape,
        an: &str,
        bn: &str,
    ) -> Result<(), ShapeInferenceError> {
        if a.element_type == b.element_type {
            Ok(())
        } else {
            Err(self.operand_error(format!(
                "{an} has element type {}, {bn} has {}",
                a.element_type, b.element_type
            )))
        }
    }

    fn new_type(&self, context: &InferenceContext) -> Result<ElementType, ShapeInferenceError> {
        context
            .new_element_type
            .ok_or(ShapeInferenceError::MissingContext {
                opcode: self.opcode,
                what: "the new element type",
            })
    }

    fn attr(&self, name: &str) -> Option<&'a AttrValue> {
        self.attributes
            .iter()
            .find(|a| a.name == name)
            .map(|a| &a.value)
    }

    fn int_attr(&self, name: &str) -> Result<i64, ShapeInferenceError> {
        match self.attr(name) {
            Some(AttrValue::Int(v)) => Ok(*v),
            Some(v) => Err(self.attr_error(format!("`{name}={v}` is not an integer"))),
            None => Err(self.attr_error(format!("missing `{name}=`"))),
        }
    }

    fn ints_attr(&self, name: &str) -> Result<&'a [i64], ShapeInferenceError> {
        match self.attr(name) {
            Some(AttrValue::Ints(v)) => Ok(v),
            Some(v) => Err(self.attr_error(format!("`{name}={v}` is not a list of integers"))),
            None => Err(self.attr_error(format!("missing `{name}=`"))),
        }
    }

    fn enum_attr(&self, name: &str) -> Result<Option<&'a str>, ShapeInferenceError> {
        match self.attr(name) {
            Some(AttrValue::Enum(v)) => Ok(Some(v)),
            Some(v) => Err(self.attr_error(format!("`{name}={v}` is not an enumerator"))),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;
