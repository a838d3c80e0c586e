//! Element-wise operations: unary and binary arithmetic, `compare`, `select`, `clamp`,
//! `convert`, `bitcast-convert`, `reduce-precision` (seed 004), and XlaBuilder's implicit
//! broadcasting rules for binary operations.

use super::rules::Rules;
use super::{InferenceContext, ShapeInferenceError};
use crate::element_type::ElementType;
use crate::hlo::attributes::{COMPARISON_TYPES, DIRECTIONS};
use crate::hlo::ir::Opcode;
use crate::shape::{ArrayShape, Shape};

/// The element-wise unary opcodes (seed 004, "Element-wise unary functions"), plus `not`,
/// `popcnt`, `count-leading-zeros` and CHLO's unary functions (`asin`, `erf-inv`, `lgamma`, ...).
pub fn is_elementwise_unary(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Abs | Acos
            | Acosh
            | Asin
            | Asinh
            | Atan
            | Atanh
            | BesselI1e
            | Cbrt
            | Ceil
            | Cosh
            | Digamma
            | ErfInv
            | Erfc
            | Lgamma
            | Sinh
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

/// The element-wise binary opcodes (seed 004, "Element-wise binary arithmetic operations"), plus
/// CHLO's `next-after`, `polygamma` and `zeta`.
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
            | NextAfter
            | Polygamma
            | Zeta
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

/// `opcode` is element-wise unary: one array, result of its dimensions.
pub(super) fn unary(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let result = unary_result_type(r.opcode, x.element_type);
    r.types_ok(x.element_type, result)?;
    Ok(Shape::array(result, x.dimensions.clone()))
}

/// `opcode` is element-wise binary: two arrays of identical dimensions and element type.
pub(super) fn binary(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [lhs, rhs] = r.arrays::<2>("2")?;
    r.same_dimensions(lhs, rhs, "lhs", "rhs")?;
    r.same_type(lhs, rhs, "lhs", "rhs")?;
    let result = if r.opcode == Opcode::Complex {
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
    Ok(Shape::array(result, lhs.dimensions.clone()))
}

/// `compare` with `direction=` and optional `type=`.
pub(super) fn compare(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [lhs, rhs] = r.arrays::<2>("2")?;
    r.same_dimensions(lhs, rhs, "lhs", "rhs")?;
    r.same_type(lhs, rhs, "lhs", "rhs")?;
    let direction = r
        .enum_attr("direction")?
        .ok_or_else(|| r.attr_error("missing `direction=` (EQ, NE, GE, GT, LE or LT)".into()))?;
    if !DIRECTIONS.contains(&direction) {
        return Err(r.attr_error(format!("unknown direction `{direction}`")));
    }
    if let Some(ty) = r.enum_attr("type")? {
        comparison_type_fits(ty, lhs.element_type).map_err(|m| r.attr_error(m))?;
    }
    r.types_ok(lhs.element_type, ElementType::Pred)?;
    Ok(Shape::array(ElementType::Pred, lhs.dimensions.clone()))
}

/// `select(pred, on_true, on_false)`; `pred` may be a scalar.
pub(super) fn select(r: &Rules) -> Result<Shape, ShapeInferenceError> {
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

/// `clamp(min, operand, max)`.
pub(super) fn clamp(r: &Rules) -> Result<Shape, ShapeInferenceError> {
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

/// `convert` to the context's new element type.
pub(super) fn convert(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
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

/// `bitcast-convert` to the context's new element type.
pub(super) fn bitcast_convert(
    r: &Rules,
    context: &InferenceContext,
) -> Result<Shape, ShapeInferenceError> {
    let [x] = r.arrays::<1>("1")?;
    let to = r.new_type(context)?;
    let dims = bitcast_convert_dimensions(x, to).map_err(|m| r.operand_error(m))?;
    r.types_ok(x.element_type, to)?;
    Ok(Shape::array(to, dims))
}

/// `reduce-precision` with `exponent_bits=` (at least 1) and `mantissa_bits=` (non-negative).
pub(super) fn reduce_precision(r: &Rules) -> Result<Shape, ShapeInferenceError> {
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
