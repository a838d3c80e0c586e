//! Element-wise operations (seed 004, element-wise unary and binary operations, Compare, Select,
//! Clamp, ConvertElementType, BitcastConvertType, ReducePrecision): one StableHLO operation per
//! HLO instruction, operands and result as HLO types them.

use super::{array_operands, At, Emitter, Value, R};
use crate::element_type::TypeKind;
use crate::hlo::ir::Opcode;

/// The StableHLO (or CHLO) operation of an element-wise opcode that needs no attributes, or
/// `None` for other opcodes (`compare` and `reduce-precision` carry attributes and are written
/// by [`emit`] too).
pub(super) fn stablehlo_name(op: Opcode) -> Option<&'static str> {
    use Opcode::*;
    Some(match op {
        Abs => "stablehlo.abs",
        Add => "stablehlo.add",
        And => "stablehlo.and",
        Atan2 => "stablehlo.atan2",
        BitcastConvert => "stablehlo.bitcast_convert",
        Cbrt => "stablehlo.cbrt",
        Ceil => "stablehlo.ceil",
        Clamp => "stablehlo.clamp",
        Complex => "stablehlo.complex",
        Convert => "stablehlo.convert",
        Cosine => "stablehlo.cosine",
        CountLeadingZeros => "stablehlo.count_leading_zeros",
        Divide => "stablehlo.divide",
        // StableHLO has no erf; CHLO's is what JAX emits and XLA legalizes.
        Erf => "chlo.erf",
        Exponential => "stablehlo.exponential",
        ExponentialMinusOne => "stablehlo.exponential_minus_one",
        Floor => "stablehlo.floor",
        Imag => "stablehlo.imag",
        IsFinite => "stablehlo.is_finite",
        Log => "stablehlo.log",
        LogPlusOne => "stablehlo.log_plus_one",
        Logistic => "stablehlo.logistic",
        Maximum => "stablehlo.maximum",
        Minimum => "stablehlo.minimum",
        Multiply => "stablehlo.multiply",
        Negate => "stablehlo.negate",
        Not => "stablehlo.not",
        Or => "stablehlo.or",
        PopulationCount => "stablehlo.popcnt",
        Power => "stablehlo.power",
        Real => "stablehlo.real",
        Remainder => "stablehlo.remainder",
        RoundNearestAfz => "stablehlo.round_nearest_afz",
        RoundNearestEven => "stablehlo.round_nearest_even",
        Rsqrt => "stablehlo.rsqrt",
        Select => "stablehlo.select",
        ShiftLeft => "stablehlo.shift_left",
        ShiftRightArithmetic => "stablehlo.shift_right_arithmetic",
        ShiftRightLogical => "stablehlo.shift_right_logical",
        Sign => "stablehlo.sign",
        Sine => "stablehlo.sine",
        Sqrt => "stablehlo.sqrt",
        Subtract => "stablehlo.subtract",
        Tan => "stablehlo.tan",
        // CHLO's functions (JAX's lowering of lax.asin, lax.lgamma, ...; XLA legalizes them).
        Acos => "chlo.acos",
        Acosh => "chlo.acosh",
        Asin => "chlo.asin",
        Asinh => "chlo.asinh",
        Atan => "chlo.atan",
        Atanh => "chlo.atanh",
        BesselI1e => "chlo.bessel_i1e",
        Cosh => "chlo.cosh",
        Digamma => "chlo.digamma",
        ErfInv => "chlo.erf_inv",
        Erfc => "chlo.erfc",
        Lgamma => "chlo.lgamma",
        NextAfter => "chlo.next_after",
        Polygamma => "chlo.polygamma",
        Sinh => "chlo.sinh",
        Zeta => "chlo.zeta",
        Tanh => "stablehlo.tanh",
        Xor => "stablehlo.xor",
        _ => return None,
    })
}

/// The number of operands of an element-wise opcode.
fn arity(op: Opcode) -> usize {
    use Opcode::*;
    match op {
        Add | And | Atan2 | Complex | Divide | Maximum | Minimum | Multiply | Or | Power
        | Remainder | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Subtract | Xor
        | Compare | NextAfter | Polygamma | Zeta => 2,
        Select | Clamp => 3,
        _ => 1,
    }
}

/// Writes an element-wise instruction: `compare` with its direction and comparison type (HLO's
/// default type when `type=` is absent: FLOAT for floating-point and complex operands, SIGNED
/// for signed integers, UNSIGNED for unsigned integers and predicates), `reduce-precision` with
/// its bit counts, every other opcode as its StableHLO namesake.
///
/// Errors: a wrong operand count, a tuple operand, a non-array result, or a missing attribute.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let n = arity(instr.opcode);
    if ops.len() != n {
        return Err(at.error(format!("expects {n} operand(s), found {}", ops.len())));
    }
    let operands = array_operands(instr, ops)?;
    at.shape()?;
    match instr.opcode {
        Opcode::Compare => {
            let direction = instr
                .attr_enum("direction")
                .ok_or_else(|| at.error("missing `direction=`"))?;
            let ty = match instr.attr_enum("type") {
                Some(t) => t,
                None => match at.operand_shape(0)?.element_type.kind() {
                    TypeKind::Float | TypeKind::Complex => "FLOAT",
                    TypeKind::SignedInteger => "SIGNED",
                    TypeKind::UnsignedInteger | TypeKind::Pred => "UNSIGNED",
                },
            };
            e.op_shaped(
                instr,
                "stablehlo.compare",
                &operands,
                &[
                    (
                        "comparison_direction",
                        format!("#stablehlo<comparison_direction {direction}>"),
                    ),
                    ("compare_type", format!("#stablehlo<comparison_type {ty}>")),
                ],
                &[],
            )
        }
        Opcode::ReducePrecision => {
            let bits = |name: &str| {
                instr
                    .attr_int(name)
                    .ok_or_else(|| at.error(format!("missing `{name}=`")))
            };
            let (exponent, mantissa) = (bits("exponent_bits")?, bits("mantissa_bits")?);
            e.op_shaped(
                instr,
                "stablehlo.reduce_precision",
                &operands,
                &[
                    ("exponent_bits", format!("{exponent} : i32")),
                    ("mantissa_bits", format!("{mantissa} : i32")),
                ],
                &[],
            )
        }
        op => {
            let name = stablehlo_name(op).ok_or_else(|| at.error("not an element-wise opcode"))?;
            e.op_shaped(instr, name, &operands, &[], &[])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{print, print_err};

    #[test]
    fn unary_and_binary_operations_keep_their_types() {
        let text = print(
            "HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  s = f32[2,3]{1,0} add(a, b)
  ROOT t = f32[2,3]{1,0} exponential-minus-one(s)
}",
        );
        assert_eq!(
            text,
            r#"module {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.exponential_minus_one"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%1) : (tensor<2x3xf32>) -> ()
  }
}
"#
        );
    }

    #[test]
    fn compare_has_direction_and_default_or_given_type() {
        let text = print(
            "HloModule m
ENTRY e {
  a = u8[4] parameter(0)
  b = u8[4] parameter(1)
  c = pred[4] compare(a, b), direction=LT
  x = f16[4] parameter(2)
  d = pred[4] compare(x, x), direction=GE, type=TOTALORDER
  e = pred[4] compare(x, x), direction=NE
  ROOT t = (pred[4], pred[4], pred[4]) tuple(c, d, e)
}",
        );
        assert!(text.contains(r#"%0 = "stablehlo.compare"(%arg0, %arg1) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type UNSIGNED>}> : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>"#), "{text}");
        assert!(text.contains(r#"<{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type TOTALORDER>}> : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>"#), "{text}");
        assert!(
            text.contains(
                r#"comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                r#""func.return"(%0, %1, %2) : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) -> ()"#
            ),
            "{text}"
        );
    }

    #[test]
    fn conversions_select_clamp_reduce_precision_and_erf() {
        let text = print(
            "HloModule m
ENTRY e {
  a = bf16[3] parameter(0)
  p = pred[3] parameter(1)
  c = s8[3] convert(a)
  b = u16[3] bitcast-convert(a)
  lo = bf16[] parameter(2)
  k = bf16[3] clamp(lo, a, a)
  s = bf16[3] select(p, a, k)
  r = bf16[3] reduce-precision(s), exponent_bits=5, mantissa_bits=2
  f = bf16[3] erf(r)
  ROOT t = (s8[3], u16[3], bf16[3]) tuple(c, b, f)
}",
        );
        for expected in [
            r#"%0 = "stablehlo.convert"(%arg0) : (tensor<3xbf16>) -> tensor<3xi8>"#,
            r#"%1 = "stablehlo.bitcast_convert"(%arg0) : (tensor<3xbf16>) -> tensor<3xui16>"#,
            r#"%2 = "stablehlo.clamp"(%arg2, %arg0, %arg0) : (tensor<bf16>, tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>"#,
            r#"%3 = "stablehlo.select"(%arg1, %arg0, %2) : (tensor<3xi1>, tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>"#,
            r#"%4 = "stablehlo.reduce_precision"(%3) <{exponent_bits = 5 : i32, mantissa_bits = 2 : i32}> : (tensor<3xbf16>) -> tensor<3xbf16>"#,
            r#"%5 = "chlo.erf"(%4) : (tensor<3xbf16>) -> tensor<3xbf16>"#,
        ] {
            assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        }
    }

    #[test]
    fn unknown_attributes_are_refused() {
        let e = print_err(
            "HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  ROOT x = f32[3] exponential(a), result_accuracy={tolerance={atol=0,rtol=0,ulps=1}}
}",
        );
        assert!(e.contains("%x (exponential)"), "{e}");
        assert!(e.contains("result_accuracy"), "{e}");
    }
}
