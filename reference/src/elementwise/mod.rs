//! The element-wise family, one element at a time (seed 004: "Element-wise unary functions",
//! "Element-wise binary arithmetic operations", "Element-wise comparison operations", Clamp,
//! Select, ConvertElementType, BitcastConvertType, ReducePrecision).
//!
//! Dispatch is a table keyed by opcode (`TABLE`): each entry builds, from the instruction and its
//! element types, an [`ElementFn`] that maps raw operand bits to raw result bits. Building checks
//! the types and attributes once; the function then runs per element. Each sub-family lives in its
//! own module and keeps its own table of per-opcode semantics.

mod binary_float;
mod binary_int;
mod bitcast;
pub(crate) mod compare;
mod complex;
pub(crate) mod convert;
mod core_math;
mod reduce_precision;
mod select_clamp;
mod special;
mod unary_float;
mod unary_int;

pub use bitcast::bitcast_convert_array;
pub use special::condition_number;

use conformance_spec::element_type::{ElementType, FloatFormat, TypeKind};
use conformance_spec::hlo::ir::{AttrValue, HloInstruction, Opcode};
use conformance_spec::BackendError;

/// A prepared element function: raw operand bits (one per operand, low bits significant) to raw
/// result bits.
pub type ElementFn = Box<dyn Fn(&[u128]) -> Result<u128, BackendError> + Send + Sync>;

/// What a builder needs to know about an instruction: the instruction (opcode, attributes) and the
/// element types of its operands and result.
pub(crate) struct Signature<'a> {
    pub instr: &'a HloInstruction,
    pub operands: &'a [ElementType],
    pub result: ElementType,
}

type Builder = fn(&Signature) -> Result<ElementFn, BackendError>;

/// Every element-wise opcode and the builder of its element function.
const TABLE: &[(Opcode, Builder)] = &[
    (Opcode::Abs, unary_abs),
    (Opcode::Cbrt, unary_same_type),
    (Opcode::Ceil, unary_same_type),
    (Opcode::CountLeadingZeros, unary_same_type),
    (Opcode::Cosine, unary_same_type),
    (Opcode::Erf, unary_same_type),
    (Opcode::Exponential, unary_same_type),
    (Opcode::ExponentialMinusOne, unary_same_type),
    (Opcode::Floor, unary_same_type),
    (Opcode::Imag, complex::build_real_imag),
    (Opcode::IsFinite, unary_float::build_is_finite),
    (Opcode::Log, unary_same_type),
    (Opcode::LogPlusOne, unary_same_type),
    (Opcode::Logistic, unary_same_type),
    (Opcode::Negate, unary_same_type),
    (Opcode::Not, unary_same_type),
    (Opcode::PopulationCount, unary_same_type),
    (Opcode::Real, complex::build_real_imag),
    (Opcode::RoundNearestAfz, unary_same_type),
    (Opcode::RoundNearestEven, unary_same_type),
    (Opcode::Rsqrt, unary_same_type),
    (Opcode::Sign, unary_same_type),
    (Opcode::Sine, unary_same_type),
    (Opcode::Sqrt, unary_same_type),
    (Opcode::Tan, unary_same_type),
    (Opcode::Tanh, unary_same_type),
    (Opcode::Add, binary_same_type),
    (Opcode::Subtract, binary_same_type),
    (Opcode::Multiply, binary_same_type),
    (Opcode::Divide, binary_same_type),
    (Opcode::Power, binary_same_type),
    (Opcode::Remainder, binary_same_type),
    (Opcode::Maximum, binary_same_type),
    (Opcode::Minimum, binary_same_type),
    (Opcode::And, binary_same_type),
    (Opcode::Or, binary_same_type),
    (Opcode::Xor, binary_same_type),
    (Opcode::ShiftLeft, binary_same_type),
    (Opcode::ShiftRightArithmetic, binary_same_type),
    (Opcode::ShiftRightLogical, binary_same_type),
    (Opcode::Atan2, binary_same_type),
    (Opcode::Complex, complex::build_complex),
    (Opcode::Compare, compare::build),
    (Opcode::Select, select_clamp::build_select),
    (Opcode::Clamp, select_clamp::build_clamp),
    (Opcode::Convert, convert::build),
    (Opcode::BitcastConvert, bitcast::build),
    (Opcode::ReducePrecision, reduce_precision::build),
    // CHLO special functions (`special`, `unary_float`, `binary_float`, `complex`).
    (Opcode::Erfc, unary_same_type),
    (Opcode::ErfInv, unary_same_type),
    (Opcode::Lgamma, unary_same_type),
    (Opcode::Digamma, unary_same_type),
    (Opcode::BesselI1e, unary_same_type),
    (Opcode::Asin, unary_same_type),
    (Opcode::Acos, unary_same_type),
    (Opcode::Atan, unary_same_type),
    (Opcode::Sinh, unary_same_type),
    (Opcode::Cosh, unary_same_type),
    (Opcode::Asinh, unary_same_type),
    (Opcode::Acosh, unary_same_type),
    (Opcode::Atanh, unary_same_type),
    (Opcode::NextAfter, binary_same_type),
    (Opcode::Polygamma, binary_same_type),
    (Opcode::Zeta, binary_same_type),
];

/// The element-wise opcodes this crate implements, in table order.
pub fn opcodes() -> impl Iterator<Item = Opcode> {
    TABLE.iter().map(|&(op, _)| op)
}

/// True when the opcode is in the element-wise table.
pub fn is_elementwise(opcode: Opcode) -> bool {
    TABLE.iter().any(|&(op, _)| op == opcode)
}

/// Prepares the element function of an element-wise instruction.
///
/// `operand_types` are the element types of the operands in order and `result_type` the element
/// type of the result. Errors: [`BackendError::Unsupported`] for an opcode outside the element-wise
/// family or an element type the operation does not define (e.g. `sine` on `s32`);
/// [`BackendError::Invalid`] for a wrong operand count, mismatched types or a missing/malformed
/// attribute (`direction=` of compare, `exponent_bits=`/`mantissa_bits=` of reduce-precision).
pub fn prepare(
    instr: &HloInstruction,
    operand_types: &[ElementType],
    result_type: ElementType,
) -> Result<ElementFn, BackendError> {
    let builder = TABLE
        .iter()
        .find(|&&(op, _)| op == instr.opcode)
        .map(|&(_, b)| b)
        .ok_or_else(|| {
            BackendError::Unsupported(format!(
                "opcode `{}` is not an element-wise operation of the reference",
                instr.opcode
            ))
        })?;
    builder(&Signature {
        instr,
        operands: operand_types,
        result: result_type,
    })
}

/// Evaluates one element of an element-wise instruction from raw operand bits.
///
/// `operands` holds one bit pattern per operand (after broadcast), in the low bits of each `u128`
/// (e.g. an `f32` in the low 32 bits, a `c64` as real | imag << 32); the result comes back the same
/// way in `result_type`. Only the instruction's `opcode` and `attributes` are read (its shape is
/// not). Floating-point results are correctly rounded in their own format (MPFR/MPC), with
/// subnormals; NaN results are the format's canonical NaN.
///
/// A width-changing `bitcast-convert` is not element-wise (seed 004, BitcastConvertType) and is
/// rejected here with [`BackendError::Invalid`]; the array path handles it.
///
/// Errors: as [`prepare`], plus [`BackendError::Invalid`] when `operands.len()` differs from
/// `operand_types.len()`, and [`BackendError::Failure`] if a composite function's precision loop
/// did not converge (not expected; see `ziv`).
pub fn eval_element(
    instr: &HloInstruction,
    operand_types: &[ElementType],
    operands: &[u128],
    result_type: ElementType,
) -> Result<u128, BackendError> {
    if operands.len() != operand_types.len() {
        return Err(BackendError::Invalid(format!(
            "{}: {} operand values given for {} operand types",
            instr.opcode,
            operands.len(),
            operand_types.len()
        )));
    }
    prepare(instr, operand_types, result_type)?(operands)
}

// ---------------------------------------------------------------------------------------------
// Shared checks.

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(msg.into()))
}

pub(crate) fn unsupported<T>(msg: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Unsupported(msg.into()))
}

impl Signature<'_> {
    pub fn opcode(&self) -> Opcode {
        self.instr.opcode
    }

    /// Checks the operand count.
    pub fn arity(&self, n: usize) -> Result<(), BackendError> {
        if self.operands.len() != n {
            return invalid(format!(
                "{} takes {n} operand(s), got {}",
                self.opcode(),
                self.operands.len()
            ));
        }
        Ok(())
    }

    /// Checks that every operand has the same type and returns it.
    pub fn common_operand_type(&self) -> Result<ElementType, BackendError> {
        let first = self.operands[0];
        if let Some(other) = self.operands.iter().find(|&&t| t != first) {
            return invalid(format!(
                "{}: operands must have one element type, got {first} and {other}",
                self.opcode()
            ));
        }
        Ok(first)
    }

    /// Checks the result element type.
    pub fn expect_result(&self, expected: ElementType) -> Result<(), BackendError> {
        if self.result != expected {
            return invalid(format!(
                "{}: result element type must be {expected}, got {}",
                self.opcode(),
                self.result
            ));
        }
        Ok(())
    }

    pub fn not_defined_for<T>(&self, ty: ElementType) -> Result<T, BackendError> {
        unsupported(format!(
            "{} is not defined for element type {ty}",
            self.opcode()
        ))
    }

    /// An attribute written as a bare word (`direction=LT`), whatever form the parser kept it in.
    pub fn attr_word(&self, name: &str) -> Option<String> {
        match self.instr.attribute(name)? {
            AttrValue::Enum(s) | AttrValue::Raw(s) | AttrValue::Str(s) => {
                Some(s.trim().to_string())
            }
            _ => None,
        }
    }

    /// An integer attribute (`exponent_bits=5`), also accepted in raw form.
    pub fn attr_integer(&self, name: &str) -> Result<i64, BackendError> {
        match self.instr.attribute(name) {
            Some(AttrValue::Int(v)) => Ok(*v),
            Some(AttrValue::Raw(s)) | Some(AttrValue::Enum(s)) => s.trim().parse().or_else(|_| {
                invalid(format!(
                    "{}: attribute `{name}` must be an integer, got `{s}`",
                    self.opcode()
                ))
            }),
            Some(other) => invalid(format!(
                "{}: attribute `{name}` must be an integer, got {other:?}",
                self.opcode()
            )),
            None => invalid(format!("{}: missing attribute `{name}`", self.opcode())),
        }
    }
}

/// The float format of a real floating-point type.
pub(crate) fn real_format(ty: ElementType) -> Option<FloatFormat> {
    if ty.is_float() {
        ty.float_format()
    } else {
        None
    }
}

fn low_u64(bits: u128) -> u64 {
    bits as u64
}

// ---------------------------------------------------------------------------------------------
// Generic builders: one operand type, result of the same type; the semantics come from the
// sub-family tables.

fn unary_same_type(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    let ty = sig.operands[0];
    sig.expect_result(ty)?;
    let op = sig.opcode();
    match ty.kind() {
        TypeKind::Float => {
            let fmt = ty.float_format().expect("float type");
            let Some(f) = unary_float::lookup(op) else {
                return sig.not_defined_for(ty);
            };
            Ok(Box::new(move |x| f(fmt, low_u64(x[0])).map(u128::from)))
        }
        TypeKind::SignedInteger | TypeKind::UnsignedInteger | TypeKind::Pred => {
            let Some(f) = unary_int::lookup(op, ty) else {
                return sig.not_defined_for(ty);
            };
            Ok(Box::new(move |x| Ok(u128::from(f(ty, low_u64(x[0]))))))
        }
        TypeKind::Complex => {
            let fmt = ty.float_format().expect("complex type");
            let Some(f) = complex::lookup_unary(op) else {
                return sig.not_defined_for(ty);
            };
            Ok(Box::new(move |x| f(fmt, x[0])))
        }
    }
}

fn unary_abs(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    if sig.operands[0].is_complex() {
        return complex::build_abs(sig);
    }
    unary_same_type(sig)
}

fn binary_same_type(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(2)?;
    let ty = sig.common_operand_type()?;
    sig.expect_result(ty)?;
    let op = sig.opcode();
    match ty.kind() {
        TypeKind::Float => {
            let fmt = ty.float_format().expect("float type");
            let Some(f) = binary_float::lookup(op) else {
                return sig.not_defined_for(ty);
            };
            Ok(Box::new(move |x| {
                f(fmt, low_u64(x[0]), low_u64(x[1])).map(u128::from)
            }))
        }
        TypeKind::SignedInteger | TypeKind::UnsignedInteger | TypeKind::Pred => {
            let Some(f) = binary_int::lookup(op, ty) else {
                return sig.not_defined_for(ty);
            };
            Ok(Box::new(move |x| {
                Ok(u128::from(f(ty, low_u64(x[0]), low_u64(x[1]))))
            }))
        }
        TypeKind::Complex => {
            let fmt = ty.float_format().expect("complex type");
            let Some(f) = complex::lookup_binary(op) else {
                return sig.not_defined_for(ty);
            };
            Ok(Box::new(move |x| f(fmt, x[0], x[1])))
        }
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Builds instructions for unit tests.
    use conformance_spec::hlo::ir::{AttrValue, Attribute, HloInstruction, Opcode};
    use conformance_spec::{ElementType, Shape};

    pub fn instr(opcode: Opcode, attrs: &[(&str, AttrValue)]) -> HloInstruction {
        HloInstruction {
            name: "op".into(),
            opcode,
            shape: Shape::array(ElementType::F32, vec![]),
            operands: vec![],
            parameter_number: None,
            literal: None,
            attributes: attrs
                .iter()
                .map(|(n, v)| Attribute {
                    name: n.to_string(),
                    value: v.clone(),
                })
                .collect(),
        }
    }

    /// Evaluates `opcode` on one element of type `ty` (result of the same type).
    pub fn eval(opcode: Opcode, ty: ElementType, operands: &[u128]) -> u128 {
        let types = vec![ty; operands.len()];
        super::eval_element(&instr(opcode, &[]), &types, operands, ty)
            .unwrap_or_else(|e| panic!("{opcode} on {ty}: {e}"))
    }

    pub fn f32op(opcode: Opcode, operands: &[f32]) -> f32 {
        let bits: Vec<u128> = operands.iter().map(|x| x.to_bits() as u128).collect();
        f32::from_bits(eval(opcode, ElementType::F32, &bits) as u32)
    }

    pub fn f64op(opcode: Opcode, operands: &[f64]) -> f64 {
        let bits: Vec<u128> = operands.iter().map(|x| x.to_bits() as u128).collect();
        f64::from_bits(eval(opcode, ElementType::F64, &bits) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;
    use super::*;

    #[test]
    fn every_table_entry_is_unique_and_named() {
        for (i, &(op, _)) in TABLE.iter().enumerate() {
            assert!(TABLE[i + 1..].iter().all(|&(o, _)| o != op), "{op} twice");
        }
        assert_eq!(TABLE.len(), 64);
    }

    #[test]
    fn errors_name_the_problem() {
        let sine = instr(Opcode::Sine, &[]);
        let e = eval_element(&sine, &[ElementType::S32], &[1], ElementType::S32).unwrap_err();
        assert!(
            matches!(e, BackendError::Unsupported(m) if m.contains("sine") && m.contains("s32"))
        );
        let e = eval_element(&sine, &[ElementType::F32], &[1], ElementType::F64).unwrap_err();
        assert!(matches!(e, BackendError::Invalid(m) if m.contains("f64")));
        let add = instr(Opcode::Add, &[]);
        let e = eval_element(&add, &[ElementType::F32], &[1], ElementType::F32).unwrap_err();
        assert!(matches!(e, BackendError::Invalid(m) if m.contains("2 operand")));
        let e = eval_element(&add, &[ElementType::F32; 2], &[1], ElementType::F32).unwrap_err();
        assert!(matches!(e, BackendError::Invalid(_)));
        let dot = instr(Opcode::Dot, &[]);
        let e = eval_element(&dot, &[ElementType::F32; 2], &[1, 1], ElementType::F32).unwrap_err();
        assert!(matches!(e, BackendError::Unsupported(m) if m.contains("dot")));
    }
}
