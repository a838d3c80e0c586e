//! Element-wise unary functions (seed 004, "Element-wise unary functions"): abs, cbrt, ceil,
//! count-leading-zeros, cosine, erf, exponential, exponential-minus-one, floor, imag, is-finite,
//! log, log-plus-one, logistic, negate, not, popcnt, real, round-nearest-afz, round-nearest-even,
//! rsqrt, sign, sine, sqrt, tan, tanh; and the unary CHLO special functions (asin, acos, atan,
//! sinh, cosh, asinh, acosh, atanh, erfc, erf-inv, lgamma, digamma, bessel-i1e; see
//! [`super::special`]).
//!
//! Floats: f64 directly; f32 through the SIMD kernels (exp, tanh, logistic), natively (exact
//! operations) or through f64 with one rounding; f16, bf16 and the f8 types through f64 with one
//! rounding (correctly rounded: verified exhaustively in `tests/narrow_exhaustive.rs`).
//! Integers wrap (two's complement): `abs(INT_MIN) = INT_MIN`, `negate(INT_MIN) = INT_MIN`.

use super::narrow::Narrow;
use super::{complex, Ctx};
use crate::buffer::with_output;
use crate::kernels::{libm64, F32Kernel};
use crate::parallel::{map1, map1_slices};
use conformance_spec::element_type::TypeKind;
use conformance_spec::{BackendError, ElementType, Opcode};

/// Outputs from this many elements (16 MiB of f32, beyond the caches) use streaming stores.
const STREAMING_ELEMENTS: usize = 4 << 20;

/// Runs a unary instruction (dispatch on the operand's element type).
pub(crate) fn evaluate(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 1 {
        return Err(BackendError::Invalid(format!(
            "{} takes 1 operand, {} given",
            ctx.opcode(),
            ctx.operands.len()
        )));
    }
    let ty = ctx.in_type(0);
    match ty.kind() {
        TypeKind::Float => float(ctx, ty),
        TypeKind::Complex => complex::unary(ctx),
        TypeKind::Pred | TypeKind::SignedInteger | TypeKind::UnsignedInteger => integer(ctx, ty),
    }
}

/// `sign` of a real float (seed 004, Sign): −1, +1, or the input for ±0 and NaN.
#[inline]
pub fn sign_f64(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

#[inline]
fn sign_f32(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// The f64 function of a real-valued unary opcode, if it has one.
pub fn f64_function(op: Opcode) -> Option<fn(f64) -> f64> {
    use Opcode::*;
    Some(match op {
        Abs => f64::abs,
        Cbrt => libm64::cbrt,
        Ceil => f64::ceil,
        Cosine => libm64::cos,
        Erf => libm64::erf,
        Exponential => libm64::exp,
        ExponentialMinusOne => libm64::expm1,
        Floor => f64::floor,
        Log => libm64::log,
        LogPlusOne => libm64::log1p,
        Logistic => libm64::logistic,
        Negate => |x: f64| -x,
        RoundNearestAfz => f64::round,
        RoundNearestEven => f64::round_ties_even,
        Rsqrt => libm64::rsqrt,
        Sign => sign_f64,
        Sine => libm64::sin,
        Sqrt => f64::sqrt,
        Tan => libm64::tan,
        Tanh => libm64::tanh,
        _ => return super::special::f64_function(op),
    })
}

fn float(ctx: &Ctx<'_>, ty: ElementType) -> Result<Vec<u8>, BackendError> {
    let op = ctx.opcode();
    let (exec, n) = (ctx.exec, ctx.n);
    if op == Opcode::IsFinite {
        ctx.expect_out(ElementType::Pred)?;
        return Ok(match ty {
            ElementType::F32 => {
                let a = ctx.operands[0].typed::<f32>();
                with_output::<u8>(n, |o| map1(exec, a.view(), o, |x| x.is_finite() as u8))
            }
            ElementType::F64 => {
                let a = ctx.operands[0].typed::<f64>();
                with_output::<u8>(n, |o| map1(exec, a.view(), o, |x| x.is_finite() as u8))
            }
            _ => narrow_map(ctx, ty, |nw, b| nw.decode(b).is_finite() as u64, true),
        });
    }
    ctx.expect_out(ty)?;
    if op == Opcode::Real {
        return Ok(ctx.operands[0].to_bytes(ctx.n));
    }
    if op == Opcode::Imag {
        return Ok(vec![0u8; n * ty.byte_width()]); // +0 everywhere
    }
    let f = f64_function(op).ok_or_else(|| ctx.unsupported_type())?;
    // The f64 function whose result is rounded again into f32 or a narrower format.
    let g = super::special::for_narrower(op).unwrap_or(f);
    Ok(match ty {
        ElementType::F64 => {
            let a = ctx.operands[0].typed::<f64>();
            mono_or_libm_f64(ctx, a.view(), op, f)?
        }
        ElementType::F32 => {
            let a = ctx.operands[0].typed::<f32>();
            let kernel = match op {
                Opcode::Exponential => Some(F32Kernel::Exp),
                Opcode::Tanh => Some(F32Kernel::Tanh),
                Opcode::Logistic => Some(F32Kernel::Logistic),
                _ => None,
            };
            if let Some(k) = kernel {
                let isa = exec.isa;
                let stream = n >= STREAMING_ELEMENTS;
                with_output::<f32>(n, |o| {
                    map1_slices(exec, a.view(), o, |x, y| k.run(isa, x, y, stream))
                })
            } else {
                let exact = matches!(
                    op,
                    Opcode::Abs
                        | Opcode::Negate
                        | Opcode::Ceil
                        | Opcode::Floor
                        | Opcode::RoundNearestAfz
                        | Opcode::RoundNearestEven
                        | Opcode::Sqrt
                        | Opcode::Sign
                );
                if !exact {
                    let exec = exec.heavy();
                    return Ok(with_output::<f32>(n, |o| {
                        map1(exec, a.view(), o, |x| g(x as f64) as f32)
                    }));
                }
                mono1!(ctx, a.view(), f32, op, {
                    Opcode::Abs => f32::abs,
                    Opcode::Negate => |x: f32| -x,
                    Opcode::Ceil => f32::ceil,
                    Opcode::Floor => f32::floor,
                    Opcode::RoundNearestAfz => f32::round,
                    Opcode::RoundNearestEven => f32::round_ties_even,
                    Opcode::Sqrt => f32::sqrt,
                    Opcode::Sign => sign_f32,
                })
            }
        }
        _ => {
            let nw = Narrow::new(ty).ok_or_else(|| ctx.unsupported_type())?;
            match op {
                Opcode::Negate => narrow_map(ctx, ty, |nw, b| nw.fmt.negate_bits(b), false),
                Opcode::Abs => narrow_map(
                    ctx,
                    ty,
                    |nw, b| {
                        if nw.fmt.sign_bit(b) {
                            nw.fmt.negate_bits(b)
                        } else {
                            b
                        }
                    },
                    false,
                ),
                Opcode::Sqrt if nw.arithmetic_in_f32() => narrow_map(
                    ctx,
                    ty,
                    |nw, b| nw.encode_f32(nw.decode_f32(b).sqrt()),
                    false,
                ),
                _ => narrow_map(ctx, ty, move |nw, b| nw.encode(g(nw.decode(b))), false),
            }
        }
    })
}

/// f64 unary: exact operations monomorphized, the others through their (library) function on the
/// pool's heavy-work threshold.
fn mono_or_libm_f64(
    ctx: &Ctx<'_>,
    a: crate::buffer::In<'_, f64>,
    op: Opcode,
    f: fn(f64) -> f64,
) -> Result<Vec<u8>, BackendError> {
    use Opcode::*;
    if !matches!(
        op,
        Abs | Negate | Ceil | Floor | RoundNearestAfz | RoundNearestEven | Sqrt | Sign
    ) {
        let exec = ctx.exec.heavy();
        return Ok(with_output::<f64>(ctx.n, |o| map1(exec, a, o, f)));
    }
    Ok(mono1!(ctx, a, f64, op, {
        Abs => f64::abs,
        Negate => |x: f64| -x,
        Ceil => f64::ceil,
        Floor => f64::floor,
        RoundNearestAfz => f64::round,
        RoundNearestEven => f64::round_ties_even,
        Sqrt => f64::sqrt,
        Sign => sign_f64,
    }))
}

/// Maps a narrow float operand element-wise; the result is narrow of the same width, or PRED.
fn narrow_map(
    ctx: &Ctx<'_>,
    ty: ElementType,
    f: impl Fn(&Narrow, u64) -> u64 + Sync + Send,
    to_pred: bool,
) -> Vec<u8> {
    let (exec, n) = (ctx.exec.heavy(), ctx.n);
    let Some(nw) = Narrow::new(ty) else {
        return Vec::new();
    };
    let nw = &nw;
    match (ty.bit_width(), to_pred) {
        (8, _) => {
            let a = ctx.operands[0].typed::<u8>();
            with_output::<u8>(n, |o| map1(exec, a.view(), o, |b| f(nw, b as u64) as u8))
        }
        (_, true) => {
            let a = ctx.operands[0].typed::<u16>();
            with_output::<u8>(n, |o| map1(exec, a.view(), o, |b| f(nw, b as u64) as u8))
        }
        _ => {
            let a = ctx.operands[0].typed::<u16>();
            with_output::<u16>(n, |o| map1(exec, a.view(), o, |b| f(nw, b as u64) as u16))
        }
    }
}

macro_rules! int_unary {
    ($ctx:expr, $op:expr, $t:ty) => {{
        let ctx = $ctx;
        let a = ctx.operands[0].typed::<$t>();
        mono1!(ctx, a.view(), $t, $op, {
            Opcode::Abs => |x: $t| {
                #[allow(unused_comparisons)]
                if x < 0 {
                    x.wrapping_neg()
                } else {
                    x
                }
            },
            Opcode::Negate => |x: $t| x.wrapping_neg(),
            Opcode::Not => |x: $t| !x,
            Opcode::PopulationCount => |x: $t| x.count_ones() as $t,
            Opcode::CountLeadingZeros => |x: $t| x.leading_zeros() as $t,
            Opcode::Sign => |x: $t| {
                #[allow(unused_comparisons)]
                if x < 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    (x != 0) as $t
                }
            },
        })
    }};
}

fn integer(ctx: &Ctx<'_>, ty: ElementType) -> Result<Vec<u8>, BackendError> {
    let op = ctx.opcode();
    ctx.expect_out(ty)?;
    let (exec, n) = (ctx.exec, ctx.n);
    Ok(match ty {
        ElementType::Pred => {
            if op != Opcode::Not {
                return Err(ctx.unsupported_type());
            }
            let a = ctx.operands[0].typed::<u8>();
            with_output::<u8>(n, |o| map1(exec, a.view(), o, |x| (x == 0) as u8))
        }
        ElementType::S8 => int_unary!(ctx, op, i8),
        ElementType::S16 => int_unary!(ctx, op, i16),
        ElementType::S32 => int_unary!(ctx, op, i32),
        ElementType::S64 => int_unary!(ctx, op, i64),
        ElementType::U8 => int_unary!(ctx, op, u8),
        ElementType::U16 => int_unary!(ctx, op, u16),
        ElementType::U32 => int_unary!(ctx, op, u32),
        ElementType::U64 => int_unary!(ctx, op, u64),
        _ => return Err(ctx.unsupported_type()),
    })
}
