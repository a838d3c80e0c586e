//! Implementation-defined elements: the comparator masks (and counts) them instead of failing.
//!
//! Each mask is a named predicate over one output element's operand values. A catalog entry
//! lists the masks that apply to it (`implementation_defined: - mask: ...`); the loader checks the
//! names against [`MASKS`] and that the mask concerns the entry's opcode.
//!
//! NaN payloads and NaN signs are not masks: the comparator matches any NaN with any NaN unless an
//! entry sets `tolerance.exact_nan_bits`.

use crate::element_type::{ElementType, FloatClass, FloatFormat};
use crate::hlo::{AttrValue, Attribute, Opcode};
use crate::literal::complex_parts;

/// What a mask finds, where it applies, and where the semantics leave those elements open.
#[derive(Clone, Copy, Debug)]
pub struct MaskInfo {
    pub name: &'static str,
    /// The opcodes whose elements the mask can select.
    pub opcodes: &'static [Opcode],
    /// The elements it selects.
    pub description: &'static str,
    /// Why they are implementation-defined.
    pub source: &'static str,
}

/// Integer `divide`/`remainder` with a zero divisor.
pub const INTEGER_DIVISION_BY_ZERO: &str = "integer-division-by-zero";
/// Signed `divide`/`remainder` of the type's minimum by −1.
pub const SIGNED_DIVISION_OVERFLOW: &str = "signed-division-overflow";
/// `convert` from a real float type to an integer type of NaN, ±inf or a value out of range.
pub const FLOAT_TO_INTEGER_OUT_OF_RANGE: &str = "float-to-integer-out-of-range";
/// Integer `power` with a negative exponent.
pub const INTEGER_POWER_NEGATIVE_EXPONENT: &str = "integer-power-negative-exponent";
/// Shifts by an amount that is not in `[0, bit width)`.
pub const SHIFT_AMOUNT_OUT_OF_RANGE: &str = "shift-amount-out-of-range";
/// `maximum`/`minimum` (and the steps of `clamp`) between +0 and −0.
pub const MINMAX_MIXED_ZERO_SIGNS: &str = "minmax-mixed-zero-signs";
/// TOTALORDER comparisons whose place in the order the seed does not fix (NaN against NaN).
pub const TOTALORDER_NAN_ORDER: &str = "totalorder-nan-order";
/// `reduce-precision` of values below the reduced format's smallest normal number.
pub const REDUCE_PRECISION_UNDERFLOW: &str = "reduce-precision-underflow";
/// Complex arithmetic and functions with an infinite or NaN component in an operand.
pub const COMPLEX_NONFINITE_OPERAND: &str = "complex-nonfinite-operand";
/// Complex `divide` by 0 + 0i.
pub const COMPLEX_DIVISION_BY_ZERO: &str = "complex-division-by-zero";
/// Complex `power` with base 0 + 0i.
pub const COMPLEX_POWER_ZERO_BASE: &str = "complex-power-zero-base";
/// CHLO `polygamma(n, x)` with x ≤ 0 (poles and the reflection region).
pub const POLYGAMMA_NONPOSITIVE_X: &str = "polygamma-nonpositive-x";
/// CHLO `zeta(s, q)` with s < 1 or q ≤ 0 (outside the defining series' domain).
pub const ZETA_OUTSIDE_SERIES: &str = "zeta-outside-series";
/// `rng` with `b ≤ a` (uniform), a NaN or infinite parameter, or `σ ≤ 0` (normal).
pub const RNG_UNDEFINED_PARAMETERS: &str = "rng-undefined-parameters";
// The numerical family's masks select whole blocks (a transform, a matrix, a feature): the exact
// reference decides them with the error-bound ingredients (`conformance_reference::error_scales`,
// `ErrorScale::masked`), not [`mask_applies`] on one element's operands.
/// `fft` elements of a transform whose input block holds a NaN or an infinity.
pub const FFT_NON_FINITE_BLOCK: &str = "fft-non-finite-block";
/// `cholesky` elements in the triangle not named by `lower`.
pub const CHOLESKY_OTHER_TRIANGLE: &str = "cholesky-other-triangle";
/// `cholesky` elements of a matrix that is not Hermitian positive definite.
pub const CHOLESKY_NOT_POSITIVE_DEFINITE: &str = "cholesky-not-positive-definite";
/// `triangular-solve` elements of a singular or non-finite solve.
pub const TRIANGULAR_SOLVE_SINGULAR: &str = "triangular-solve-singular";
/// Batch-norm outputs of a feature with an infinity or a non-positive `variance + epsilon`.
pub const BATCH_NORM_NON_FINITE_FEATURE: &str = "batch-norm-non-finite-feature";
/// LAPACK custom-call results of a batch element whose input holds a NaN or an infinity.
pub const LAPACK_NON_FINITE: &str = "lapack-non-finite";
/// LAPACK custom-call results left to the routine: a failed factorization's partial factor
/// (potrf `info > 0`), scratch (gesdd/gesvd's `a_out`), vectors not asked for (`mode = N`).
pub const LAPACK_UNDEFINED_RESULT: &str = "lapack-undefined-result";

/// The masks the exact reference decides per block ([`FFT_NON_FINITE_BLOCK`], ...);
/// [`mask_applies`] is false for them.
pub const BLOCK_MASKS: &[&str] = &[
    FFT_NON_FINITE_BLOCK,
    CHOLESKY_OTHER_TRIANGLE,
    CHOLESKY_NOT_POSITIVE_DEFINITE,
    TRIANGULAR_SOLVE_SINGULAR,
    BATCH_NORM_NON_FINITE_FEATURE,
    LAPACK_NON_FINITE,
    LAPACK_UNDEFINED_RESULT,
];

/// Every mask, with its documentation.
pub const MASK_INFO: &[MaskInfo] = &[
    MaskInfo {
        name: INTEGER_DIVISION_BY_ZERO,
        opcodes: &[Opcode::Divide, Opcode::Remainder],
        description: "integer divide or remainder whose divisor is 0",
        source: "seed 004, Element-wise binary arithmetic operations: integer division overflow \
                 (division or remainder by zero) produces an implementation-defined value",
    },
    MaskInfo {
        name: SIGNED_DIVISION_OVERFLOW,
        opcodes: &[Opcode::Divide, Opcode::Remainder],
        description: "signed divide or remainder of INT_SMIN by -1",
        source: "seed 004, Element-wise binary arithmetic operations: signed division or \
                 remainder of INT_SMIN with -1 produces an implementation-defined value",
    },
    MaskInfo {
        name: FLOAT_TO_INTEGER_OUT_OF_RANGE,
        opcodes: &[Opcode::Convert],
        description: "convert from a real floating-point type to an integer type (not pred) of \
                      NaN, +-inf, or a value whose truncation toward zero is outside the \
                      integer type's range",
        source: "seed 004, ConvertElementType: a conversion like C++ static_cast, which leaves \
                 these cases undefined ([conv.fpint]); StableHLO convert: behaviour TBD",
    },
    MaskInfo {
        name: INTEGER_POWER_NEGATIVE_EXPONENT,
        opcodes: &[Opcode::Power],
        description: "integer power whose exponent is negative",
        source: "seed 004 defines Pow on integers without saying what a negative exponent \
                 gives (the result is not an integer except for bases 1 and -1)",
    },
    MaskInfo {
        name: SHIFT_AMOUNT_OUT_OF_RANGE,
        opcodes: &[
            Opcode::ShiftLeft,
            Opcode::ShiftRightArithmetic,
            Opcode::ShiftRightLogical,
        ],
        description: "shift whose amount, read as unsigned, is at least the bit width",
        source: "seed 004 and the StableHLO spec do not say what such shifts give (in C++ and \
                 LLVM IR they are undefined); XLA's emitters give 0, or the sign fill for \
                 shift-right-arithmetic",
    },
    MaskInfo {
        name: MINMAX_MIXED_ZERO_SIGNS,
        opcodes: &[Opcode::Maximum, Opcode::Minimum, Opcode::Clamp],
        description: "maximum or minimum of a +0 and a -0 (for clamp: at either of its \
                      max(min, operand) and min(., max) steps)",
        source: "seed 004 does not order -0 and +0 for Max/Min; IEEE 754-2008 maxNum/minNum \
                 leave the choice open (754-2019 maximum/minimum order -0 < +0); XLA's CPU \
                 emitter returns an operand-order-dependent zero",
    },
    MaskInfo {
        name: TOTALORDER_NAN_ORDER,
        opcodes: &[Opcode::Compare],
        description: "TOTALORDER compare of two NaNs of the same sign with different bits, or \
                      of a NaN of an FNUZ type (whose single NaN has no sign)",
        source: "seed 004, Element-wise comparison operations: the order -NaN < -Inf < ... < \
                 +Inf < +NaN places NaNs only by sign; IEEE 754 totalOrder leaves the order of \
                 same-sign NaNs by payload to the implementation",
    },
    MaskInfo {
        name: REDUCE_PRECISION_UNDERFLOW,
        opcodes: &[Opcode::ReducePrecision],
        description: "reduce-precision of a non-zero finite value whose magnitude is below the \
                      smallest normal number of the reduced format, when exponent_bits is \
                      smaller than the operand type's",
        source: "seed 004, ReducePrecision: says values beyond the exponent range clamp to \
                 +-inf but not whether values below it keep subnormal precision or flush to \
                 +-0 (XLA flushes)",
    },
    MaskInfo {
        name: COMPLEX_NONFINITE_OPERAND,
        opcodes: &[
            Opcode::Multiply,
            Opcode::Divide,
            Opcode::Power,
            Opcode::Exponential,
            Opcode::ExponentialMinusOne,
            Opcode::Log,
            Opcode::LogPlusOne,
            Opcode::Logistic,
            Opcode::Sine,
            Opcode::Cosine,
            Opcode::Tan,
            Opcode::Tanh,
            Opcode::Sqrt,
            Opcode::Rsqrt,
            Opcode::Sign,
            Opcode::Abs,
            Opcode::Asin,
            Opcode::Acos,
            Opcode::Atan,
            Opcode::Sinh,
            Opcode::Cosh,
            Opcode::Asinh,
            Opcode::Acosh,
            Opcode::Atanh,
        ],
        description: "complex operation with an infinite or NaN component in some operand",
        source: "seed 004 defines complex arithmetic without special values; the C99 Annex G \
                 rules for infinities and NaNs are informative and XLA does not follow them",
    },
    MaskInfo {
        name: POLYGAMMA_NONPOSITIVE_X,
        opcodes: &[Opcode::Polygamma],
        description: "polygamma(n, x) with x <= 0 (or NaN-free x at a pole)",
        source: "CHLO defines polygamma through zeta(n + 1, x), whose series needs x > 0; at the \
                 poles (non-positive integers) and for negative x XLA's expansion returns NaN or \
                 a value of the continuation by convention (DLMF 5.15 defines the function there, \
                 XLA does not claim it)",
    },
    MaskInfo {
        name: ZETA_OUTSIDE_SERIES,
        opcodes: &[Opcode::Zeta],
        description: "zeta(s, q) with s < 1 or q <= 0",
        source: "the Hurwitz series sum (q + k)^-s (DLMF 25.11.1) converges only for s > 1 and \
                 needs q > 0 for real powers; XLA (like Cephes) returns NaN or +inf there by \
                 convention, not the analytic continuation",
    },
    MaskInfo {
        name: RNG_UNDEFINED_PARAMETERS,
        opcodes: &[Opcode::Rng],
        description: "every element of an rng whose interval is empty (b <= a), whose parameters are not finite, or whose sigma is not positive",
        source: "seed 004, RngUniform: \"if b <= a the result is implementation-defined\"; a \
                 distribution with a NaN or infinite parameter, or a normal one with sigma <= 0, \
                 is not a distribution",
    },
    MaskInfo {
        name: FFT_NON_FINITE_BLOCK,
        opcodes: &[Opcode::Fft],
        description: "every element of a transform (the fft_length block of one batch index) \
                      whose input holds a NaN or an infinity",
        source: "seed 004, Fft fixes no algorithm, and IEEE 754 arithmetic on infinities in a \
                 sum depends on its order: which outputs become NaN is the algorithm's",
    },
    MaskInfo {
        name: CHOLESKY_OTHER_TRIANGLE,
        opcodes: &[Opcode::Cholesky],
        description: "the elements above the diagonal (lower=true) or below it (lower=false)",
        source: "seed 004, Cholesky: the values of the other triangle are \
                 implementation-defined and can be anything",
    },
    MaskInfo {
        name: CHOLESKY_NOT_POSITIVE_DEFINITE,
        opcodes: &[Opcode::Cholesky],
        description: "every element of a matrix whose Hermitian matrix (from the read triangle) \
                      is not positive definite, holds a NaN or an infinity, or has a diagonal \
                      element with a nonzero imaginary part",
        source: "seed 004, Cholesky: if a is not symmetric (Hermitian) positive definite, the \
                 result is implementation-defined",
    },
    MaskInfo {
        name: TRIANGULAR_SOLVE_SINGULAR,
        opcodes: &[Opcode::TriangularSolve],
        description: "every element of a solve whose matrix has a zero diagonal element \
                      (unit_diagonal=false) or whose matrix triangle or right-hand side holds \
                      a NaN or an infinity",
        source: "seed 004, TriangularSolve does not define singular systems; substitution and \
                 block inversion give infinities and NaNs in different places",
    },
    MaskInfo {
        name: BATCH_NORM_NON_FINITE_FEATURE,
        opcodes: &[
            Opcode::BatchNormTraining,
            Opcode::BatchNormInference,
            Opcode::BatchNormGrad,
        ],
        description: "every output of a feature whose elements hold an infinity, or whose \
                      variance + epsilon is not positive",
        source: "seed 004, BatchNorm*: the formulas divide by sqrt(variance + epsilon); with an \
                 infinity, one-pass and two-pass variances give inf or NaN in order-dependent \
                 ways",
    },
    MaskInfo {
        name: LAPACK_NON_FINITE,
        opcodes: &[Opcode::CustomCall],
        description: "every result of a LAPACK custom call's batch element whose input holds a \
                      NaN or an infinity",
        source: "LAPACK documents no behaviour for non-finite input (docs/custom-calls.md); \
                 blocked algorithms propagate NaN into different elements",
    },
    MaskInfo {
        name: LAPACK_UNDEFINED_RESULT,
        opcodes: &[Opcode::CustomCall],
        description: "results LAPACK leaves undefined: the partial factor of a failed potrf \
                      (info > 0), gesdd/gesvd's overwritten input (a_out), u/vt or v with \
                      mode = N",
        source: "LAPACK's documentation of ?POTRF (INFO > 0: the factorization could not be \
                 completed), ?GESDD/?GESVD (A is destroyed on exit; JOBZ = 'N': U, VT not \
                 referenced), ?SYEVD (JOBZ = 'N': A is destroyed)",
    },
    MaskInfo {
        name: COMPLEX_DIVISION_BY_ZERO,
        opcodes: &[Opcode::Divide],
        description: "complex divide whose divisor is 0 + 0i (either zero sign)",
        source: "seed 004 does not define it; C99 Annex G (informative) suggests an infinity",
    },
    MaskInfo {
        name: COMPLEX_POWER_ZERO_BASE,
        opcodes: &[Opcode::Power],
        description: "complex power whose base is 0 + 0i (either zero sign)",
        source: "seed 004 does not define it; C99 cpow leaves it to the implementation",
    },
];

/// The names of every mask (the values `implementation_defined.mask` may take).
pub const MASKS: &[&str] = &[
    INTEGER_DIVISION_BY_ZERO,
    SIGNED_DIVISION_OVERFLOW,
    FLOAT_TO_INTEGER_OUT_OF_RANGE,
    INTEGER_POWER_NEGATIVE_EXPONENT,
    SHIFT_AMOUNT_OUT_OF_RANGE,
    MINMAX_MIXED_ZERO_SIGNS,
    TOTALORDER_NAN_ORDER,
    REDUCE_PRECISION_UNDERFLOW,
    COMPLEX_NONFINITE_OPERAND,
    POLYGAMMA_NONPOSITIVE_X,
    ZETA_OUTSIDE_SERIES,
    RNG_UNDEFINED_PARAMETERS,
    FFT_NON_FINITE_BLOCK,
    CHOLESKY_OTHER_TRIANGLE,
    CHOLESKY_NOT_POSITIVE_DEFINITE,
    TRIANGULAR_SOLVE_SINGULAR,
    BATCH_NORM_NON_FINITE_FEATURE,
    LAPACK_NON_FINITE,
    LAPACK_UNDEFINED_RESULT,
    COMPLEX_DIVISION_BY_ZERO,
    COMPLEX_POWER_ZERO_BASE,
];

/// The documentation of a mask.
pub fn mask_info(name: &str) -> Option<&'static MaskInfo> {
    MASK_INFO.iter().find(|m| m.name == name)
}

/// Whether `mask` selects the output element whose operands are `inputs` (raw element bits of each
/// operand at this element, in operand order; complex: real part in the low half) for an
/// instruction `opcode` with `attributes`, operand element types `input_types` and result element
/// type `output_type`.
///
/// False for an unknown mask, an opcode the mask does not concern, or operands missing from
/// `inputs`/`input_types` (never panics).
pub fn mask_applies(
    mask: &str,
    opcode: Opcode,
    attributes: &[Attribute],
    input_types: &[ElementType],
    inputs: &[u128],
    output_type: ElementType,
) -> bool {
    let Some(info) = mask_info(mask) else {
        return false;
    };
    if !info.opcodes.contains(&opcode) {
        return false;
    }
    let operand = |k: usize| Some((*input_types.get(k)?, *inputs.get(k)?));
    match mask {
        INTEGER_DIVISION_BY_ZERO => {
            binary_integers(operand(0), operand(1)).is_some_and(|(_, _, rhs)| rhs == 0)
        }
        SIGNED_DIVISION_OVERFLOW => {
            binary_integers(operand(0), operand(1)).is_some_and(|(ty, lhs, rhs)| {
                ty.is_signed_integer()
                    && rhs == -1
                    && ty.integer_range().is_some_and(|(min, _)| lhs == min)
            })
        }
        FLOAT_TO_INTEGER_OUT_OF_RANGE => {
            let Some((ty, bits)) = operand(0) else {
                return false;
            };
            let (Some(f), Some((min, max))) = (real_format(ty), output_type.integer_range()) else {
                return false;
            };
            if output_type.is_pred() {
                return false;
            }
            let x = f.decode(bits as u64);
            if !x.is_finite() {
                return true;
            }
            // Truncation toward zero, compared exactly as an integer (every integer type's range
            // lies within ±2^64, far inside ±2^120).
            let t = x.trunc();
            if t.abs() >= crate::element_type::pow2(120) {
                return true;
            }
            let t = t as i128;
            t < min || t > max
        }
        INTEGER_POWER_NEGATIVE_EXPONENT => binary_integers(operand(0), operand(1))
            .is_some_and(|(ty, _, rhs)| ty.is_signed_integer() && rhs < 0),
        SHIFT_AMOUNT_OUT_OF_RANGE => {
            let Some((ty, amount)) = operand(1) else {
                return false;
            };
            if !ty.is_integer() {
                return false;
            }
            let width = ty.bit_width() as u128;
            let mask = (1u128 << width) - 1;
            amount & mask >= width
        }
        MINMAX_MIXED_ZERO_SIGNS => minmax_mixed_zero_signs(opcode, input_types, inputs),
        TOTALORDER_NAN_ORDER => {
            if !attributes.iter().any(|a| {
                a.name == "type" && matches!(&a.value, AttrValue::Enum(v) | AttrValue::Raw(v) if v == "TOTALORDER")
            }) {
                return false;
            }
            let (Some((ty, a)), Some((_, b))) = (operand(0), operand(1)) else {
                return false;
            };
            let Some(f) = real_format(ty) else {
                return false;
            };
            let (a, b) = (a as u64, b as u64);
            let a_nan = f.classify(a) == FloatClass::Nan;
            let b_nan = f.classify(b) == FloatClass::Nan;
            if !f.has_negative_zero() {
                return a_nan || b_nan;
            }
            a_nan && b_nan && f.sign_bit(a) == f.sign_bit(b) && a != b
        }
        REDUCE_PRECISION_UNDERFLOW => {
            let Some((ty, bits)) = operand(0) else {
                return false;
            };
            let Some(f) = real_format(ty) else {
                return false;
            };
            let Some(exponent_bits) = int_attribute(attributes, "exponent_bits") else {
                return false;
            };
            if exponent_bits < 1 || exponent_bits >= f.exponent_bits as i64 {
                return false;
            }
            let x = f.decode(bits as u64).abs();
            // Smallest normal of the reduced format: 2^(1 - bias), bias = 2^(e-1) - 1.
            let bias = (1i64 << (exponent_bits - 1)) - 1;
            let min_normal = crate::element_type::pow2((1 - bias) as i32);
            x.is_finite() && x != 0.0 && x < min_normal
        }
        COMPLEX_NONFINITE_OPERAND => input_types.iter().zip(inputs).any(|(&ty, &bits)| {
            complex_components(ty, bits).is_some_and(|(re, im)| !re.is_finite() || !im.is_finite())
        }),
        COMPLEX_DIVISION_BY_ZERO => operand(1)
            .and_then(|(ty, bits)| complex_components(ty, bits))
            .is_some_and(|(re, im)| re == 0.0 && im == 0.0),
        POLYGAMMA_NONPOSITIVE_X => operand(1)
            .and_then(|(ty, bits)| Some(real_format(ty)?.decode(bits as u64)))
            .is_some_and(|x| x <= 0.0),
        ZETA_OUTSIDE_SERIES => {
            let real = |k: usize| {
                operand(k).and_then(|(ty, bits)| Some(real_format(ty)?.decode(bits as u64)))
            };
            matches!((real(0), real(1)), (Some(s), Some(q)) if s < 1.0 || q <= 0.0)
        }
        RNG_UNDEFINED_PARAMETERS => {
            let normal = attributes.iter().any(|a| {
                a.name == "distribution"
                    && matches!(&a.value, AttrValue::Enum(v) | AttrValue::Raw(v) if v == "rng_normal")
            });
            let (Some((ty, a)), Some((_, b))) = (operand(0), operand(1)) else {
                return false;
            };
            match real_format(ty) {
                Some(f) => {
                    let (a, b) = (f.decode(a as u64), f.decode(b as u64));
                    !(a.is_finite() && b.is_finite()) || if normal { b <= 0.0 } else { b <= a }
                }
                None => match (
                    ty.integer_from_bits(a as u64),
                    ty.integer_from_bits(b as u64),
                ) {
                    (Some(a), Some(b)) => normal || b <= a,
                    _ => false,
                },
            }
        }
        COMPLEX_POWER_ZERO_BASE => operand(0)
            .and_then(|(ty, bits)| complex_components(ty, bits))
            .is_some_and(|(re, im)| re == 0.0 && im == 0.0),
        _ => false,
    }
}

/// The format of a real floating-point type.
fn real_format(ty: ElementType) -> Option<FloatFormat> {
    if ty.is_float() {
        ty.float_format()
    } else {
        None
    }
}

/// (type, lhs, rhs) of a binary operation on integers (same type).
fn binary_integers(
    lhs: Option<(ElementType, u128)>,
    rhs: Option<(ElementType, u128)>,
) -> Option<(ElementType, i128, i128)> {
    let (ty, a) = lhs?;
    let (_, b) = rhs?;
    if !ty.is_integer() {
        return None;
    }
    Some((
        ty,
        ty.integer_from_bits(a as u64)?,
        ty.integer_from_bits(b as u64)?,
    ))
}

/// The components of a complex element, as f64 values.
/// The components of a complex element, as f64 (exact for c64 and c128); `None` for other types.
pub(crate) fn complex_components(ty: ElementType, bits: u128) -> Option<(f64, f64)> {
    if !ty.is_complex() {
        return None;
    }
    let f = ty.float_format()?;
    let (re, im) = complex_parts(f, bits);
    Some((f.decode(re), f.decode(im)))
}

fn int_attribute(attributes: &[Attribute], name: &str) -> Option<i64> {
    attributes
        .iter()
        .find(|a| a.name == name)
        .and_then(|a| match &a.value {
            AttrValue::Int(v) => Some(*v),
            AttrValue::Raw(s) | AttrValue::Enum(s) => s.trim().parse().ok(),
            _ => None,
        })
}

/// A real float value's class and sign, or `None` for other types.
fn float_value(ty: ElementType, bits: u128) -> Option<(FloatFormat, u64)> {
    Some((real_format(ty)?, bits as u64))
}

fn is_zero(f: FloatFormat, bits: u64) -> bool {
    f.classify(bits) == FloatClass::Zero
}

/// True when `a` and `b` are zeros of different signs.
fn mixed_zeros(f: FloatFormat, a: u64, b: u64) -> bool {
    is_zero(f, a) && is_zero(f, b) && f.sign_bit(a) != f.sign_bit(b)
}

/// NaN-propagating maximum or minimum by value (zeros of different signs are not ordered: the
/// first is returned; callers mask that case).
fn min_or_max(f: FloatFormat, a: u64, b: u64, max: bool) -> u64 {
    if f.classify(a) == FloatClass::Nan {
        return a;
    }
    if f.classify(b) == FloatClass::Nan {
        return b;
    }
    let (x, y) = (f.decode(a), f.decode(b));
    if (max && y > x) || (!max && y < x) {
        b
    } else {
        a
    }
}

fn minmax_mixed_zero_signs(opcode: Opcode, input_types: &[ElementType], inputs: &[u128]) -> bool {
    let value = |k: usize| float_value(*input_types.get(k)?, *inputs.get(k)?);
    match opcode {
        Opcode::Maximum | Opcode::Minimum => match (value(0), value(1)) {
            (Some((f, a)), Some((_, b))) => mixed_zeros(f, a, b),
            _ => false,
        },
        Opcode::Clamp => {
            // clamp(lo, x, hi) = min(max(lo, x), hi) (seed 004, Clamp).
            let (Some((f, lo)), Some((_, x)), Some((_, hi))) = (value(0), value(1), value(2))
            else {
                return false;
            };
            if mixed_zeros(f, lo, x) {
                return true;
            }
            let m = min_or_max(f, lo, x, true);
            mixed_zeros(f, m, hi)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
