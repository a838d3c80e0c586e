//! Element-wise binary arithmetic (seed 004, "Element-wise binary arithmetic operations"): add,
//! subtract, multiply, divide, power, remainder, maximum, minimum, and, or, xor, shift-left,
//! shift-right-arithmetic, shift-right-logical, atan2; and the binary CHLO special functions
//! (next-after on the operands' own bits, polygamma and zeta in f64; see [`super::special`]).
//!
//! Floats: +, −, ×, ÷ are IEEE operations of the format (f16/bf16 via f32, the f8 types via f64:
//! both exact after one rounding, see [`Narrow::arithmetic_in_f32`]); remainder is `fmod` (exact,
//! sign of the dividend); maximum/minimum propagate NaN and order −0 < +0; power and atan2 are
//! computed in f64 and rounded once (atan2 into f32 and narrower types guarding against a double
//! rounding of exact tiny quotients, [`libm64::atan2_for_narrower`]). Integers (XLA semantics):
//! wrapping +, −, ×; `x / 0 = −1` (all bits set), `INT_MIN / −1 = INT_MIN`, `x % 0 = x`, `INT_MIN % −1 = 0`; shift amounts are read as
//! unsigned and amounts ≥ the bit width give 0 (shift-left, shift-right-logical) or the sign fill
//! (shift-right-arithmetic); power by repeated squaring with wrapping, and for a negative exponent
//! XLA's evaluator rule (1 for a base of 1, else 0; implementation-defined, masked).

use super::narrow::{bf16_from_f32, bf16_to_f32, Narrow};
use super::{complex, special, Ctx};
use crate::buffer::with_output;
use crate::buffer::In;
use crate::kernels::arith::{stream_f32, Arith};
use crate::kernels::libm64;
use crate::parallel::{map2, Exec};
use conformance_spec::element_type::{FloatFormat, TypeKind};
use conformance_spec::{BackendError, ElementType, Opcode};

/// Outputs from this many elements (16 MiB of f32, beyond the caches) use streaming stores.
const STREAMING_ELEMENTS: usize = 4 << 20;

/// Runs a binary instruction (dispatch on the operands' element type).
pub(crate) fn evaluate(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 2 {
        return Err(BackendError::Invalid(format!(
            "{} takes 2 operands, {} given",
            ctx.opcode(),
            ctx.operands.len()
        )));
    }
    ctx.expect_same_operand_types(0)?;
    let ty = ctx.in_type(0);
    ctx.expect_out(ty)?;
    match ty.kind() {
        TypeKind::Float => float(ctx, ty),
        TypeKind::Complex => complex::binary(ctx),
        _ => integer(ctx, ty),
    }
}

/// IEEE maximum with NaN propagation and −0 < +0 (XLA `maximum`).
#[inline]
pub fn max_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a > b {
        a
    } else if b > a {
        b
    } else {
        f64::from_bits(a.to_bits() & b.to_bits()) // equal: +0 wins over −0
    }
}

/// IEEE minimum with NaN propagation and −0 < +0 (XLA `minimum`).
#[inline]
pub fn min_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a < b {
        a
    } else if b < a {
        b
    } else {
        f64::from_bits(a.to_bits() | b.to_bits()) // equal: −0 wins over +0
    }
}

/// [`max_f64`] in f32.
#[inline]
pub(crate) fn max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a > b {
        a
    } else if b > a {
        b
    } else {
        f32::from_bits(a.to_bits() & b.to_bits())
    }
}

/// [`min_f64`] in f32.
#[inline]
pub(crate) fn min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        a + b
    } else if a < b {
        a
    } else if b < a {
        b
    } else {
        f32::from_bits(a.to_bits() | b.to_bits())
    }
}

/// The f64 function of a real binary opcode.
pub fn f64_function(op: Opcode) -> Option<fn(f64, f64) -> f64> {
    use Opcode::*;
    Some(match op {
        Add => |a, b| a + b,
        Subtract => |a, b| a - b,
        Multiply => |a, b| a * b,
        Divide => |a, b| a / b,
        Remainder => |a, b| a % b,
        Maximum => max_f64,
        Minimum => min_f64,
        Power => libm64::pow,
        Atan2 => libm64::atan2,
        Polygamma => super::special::zeta::polygamma,
        Zeta => super::special::zeta::zeta,
        _ => return None,
    })
}

fn float(ctx: &Ctx<'_>, ty: ElementType) -> Result<Vec<u8>, BackendError> {
    let op = ctx.opcode();
    let (exec, n) = (ctx.exec, ctx.n);
    if op == Opcode::NextAfter {
        return special::next_after::evaluate(ctx, ty); // on the format's own bits
    }
    let f = f64_function(op).ok_or_else(|| ctx.unsupported_type())?;
    // Results rounded again from f64 into f32 or a narrower type (see
    // [`libm64::atan2_for_narrower`]).
    let g = match op {
        Opcode::Atan2 => libm64::atan2_for_narrower,
        _ => f,
    };
    // pow of a signaling NaN is NaN: IEEE 754-2019 §9.2.1 exempts only the quiet NaN from
    // pow(x, ±0) = 1 and pow(1, y) = 1. Widening f32 and narrower operands to f64 would quiet it.
    let signals = |fmt: FloatFormat, x: u64, y: u64| {
        op == Opcode::Power && (fmt.is_signaling_nan(x) || fmt.is_signaling_nan(y))
    };
    Ok(match ty {
        ElementType::F64 => {
            let (a, b) = (
                ctx.operands[0].typed::<f64>(),
                ctx.operands[1].typed::<f64>(),
            );
            if matches!(
                op,
                Opcode::Power | Opcode::Atan2 | Opcode::Polygamma | Opcode::Zeta
            ) {
                let exec = exec.heavy();
                return Ok(with_output::<f64>(n, |o| {
                    map2(exec, a.view(), b.view(), o, f)
                }));
            }
            mono2!(ctx, a.view(), b.view(), f64, op, {
                Opcode::Add => |x: f64, y: f64| x + y,
                Opcode::Subtract => |x: f64, y: f64| x - y,
                Opcode::Multiply => |x: f64, y: f64| x * y,
                Opcode::Divide => |x: f64, y: f64| x / y,
                Opcode::Remainder => |x: f64, y: f64| x % y,
                Opcode::Maximum => max_f64,
                Opcode::Minimum => min_f64,
            })
        }
        ElementType::F32 => {
            let (a, b) = (
                ctx.operands[0].typed::<f32>(),
                ctx.operands[1].typed::<f32>(),
            );
            let arith = match op {
                Opcode::Add => Some(Arith::Add),
                Opcode::Subtract => Some(Arith::Subtract),
                Opcode::Multiply => Some(Arith::Multiply),
                Opcode::Divide => Some(Arith::Divide),
                _ => None,
            };
            if let (Some(k), In::Slice(x), In::Slice(y)) = (arith, a.view(), b.view()) {
                if n >= STREAMING_ELEMENTS {
                    let isa = exec.isa;
                    return Ok(with_output::<f32>(n, |o| {
                        exec.run(o, |start, o| {
                            let r = start..start + o.len();
                            stream_f32(k, isa, &x[r.clone()], &y[r], o)
                        })
                    }));
                }
            }
            if matches!(
                op,
                Opcode::Power | Opcode::Atan2 | Opcode::Polygamma | Opcode::Zeta
            ) {
                let exec = exec.heavy();
                return Ok(with_output::<f32>(n, |o| {
                    map2(exec, a.view(), b.view(), o, |x, y| {
                        if signals(FloatFormat::F32, x.to_bits().into(), y.to_bits().into()) {
                            f32::NAN
                        } else {
                            g(x as f64, y as f64) as f32
                        }
                    })
                }));
            }
            mono2!(ctx, a.view(), b.view(), f32, op, {
                Opcode::Add => |x: f32, y: f32| x + y,
                Opcode::Subtract => |x: f32, y: f32| x - y,
                Opcode::Multiply => |x: f32, y: f32| x * y,
                Opcode::Divide => |x: f32, y: f32| x / y,
                Opcode::Remainder => |x: f32, y: f32| x % y,
                Opcode::Maximum => max_f32,
                Opcode::Minimum => min_f32,
            })
        }
        _ => {
            let nw = Narrow::new(ty).ok_or_else(|| ctx.unsupported_type())?;
            let nw = &nw;
            let basic = matches!(
                op,
                Opcode::Add | Opcode::Subtract | Opcode::Multiply | Opcode::Divide
            );
            match (ty.bit_width(), op) {
                (16, _) if basic && nw.arithmetic_in_f32() => {
                    let (a, b) = (
                        ctx.operands[0].typed::<u16>(),
                        ctx.operands[1].typed::<u16>(),
                    );
                    let (a, b) = (a.view(), b.view());
                    if ty == ElementType::Bf16 {
                        arith16(exec, n, op, a, b, bf16_to_f32, bf16_from_f32)
                    } else {
                        let dec = |x: u16| half::f16::from_bits(x).to_f32();
                        let enc = |x: f32| half::f16::from_f32(x).to_bits();
                        arith16(exec, n, op, a, b, dec, enc)
                    }
                }
                (16, Opcode::Maximum | Opcode::Minimum) => {
                    let (a, b) = (
                        ctx.operands[0].typed::<u16>(),
                        ctx.operands[1].typed::<u16>(),
                    );
                    with_output::<u16>(n, |o| {
                        map2(exec, a.view(), b.view(), o, |x, y| {
                            pick(nw, op, x as u64, y as u64) as u16
                        })
                    })
                }
                (16, _) => {
                    let exec = exec.heavy();
                    let (a, b) = (
                        ctx.operands[0].typed::<u16>(),
                        ctx.operands[1].typed::<u16>(),
                    );
                    with_output::<u16>(n, |o| {
                        map2(exec, a.view(), b.view(), o, |x, y| {
                            if signals(nw.fmt, x as u64, y as u64) {
                                return nw.fmt.nan_bits() as u16;
                            }
                            nw.encode(g(nw.decode(x as u64), nw.decode(y as u64))) as u16
                        })
                    })
                }
                (_, Opcode::Maximum | Opcode::Minimum) => {
                    let (a, b) = (ctx.operands[0].typed::<u8>(), ctx.operands[1].typed::<u8>());
                    with_output::<u8>(n, |o| {
                        map2(exec, a.view(), b.view(), o, |x, y| {
                            pick(nw, op, x as u64, y as u64) as u8
                        })
                    })
                }
                _ => {
                    let (a, b) = (ctx.operands[0].typed::<u8>(), ctx.operands[1].typed::<u8>());
                    with_output::<u8>(n, |o| {
                        map2(exec, a.view(), b.view(), o, |x, y| {
                            if signals(nw.fmt, x as u64, y as u64) {
                                return nw.fmt.nan_bits() as u8;
                            }
                            nw.encode(g(nw.decode(x as u64), nw.decode(y as u64))) as u8
                        })
                    })
                }
            }
        }
    })
}

/// +, −, ×, ÷ of f16/bf16 through f32 (exact after one rounding, see
/// [`Narrow::arithmetic_in_f32`]), monomorphized per operation so the loop vectorizes.
fn arith16<D, E>(
    exec: Exec,
    n: usize,
    op: Opcode,
    a: In<'_, u16>,
    b: In<'_, u16>,
    dec: D,
    enc: E,
) -> Vec<u8>
where
    D: Fn(u16) -> f32 + Copy + Sync + Send,
    E: Fn(f32) -> u16 + Copy + Sync + Send,
{
    with_output::<u16>(n, |o| match op {
        Opcode::Add => map2(exec, a, b, o, |x, y| enc(dec(x) + dec(y))),
        Opcode::Subtract => map2(exec, a, b, o, |x, y| enc(dec(x) - dec(y))),
        Opcode::Multiply => map2(exec, a, b, o, |x, y| enc(dec(x) * dec(y))),
        _ => map2(exec, a, b, o, |x, y| enc(dec(x) / dec(y))),
    })
}

/// maximum/minimum of narrow floats: one of the operands' bits (exact), NaN → canonical NaN.
#[inline]
fn pick(nw: &Narrow, op: Opcode, x: u64, y: u64) -> u64 {
    let (a, b) = (nw.decode(x), nw.decode(y));
    if a.is_nan() || b.is_nan() {
        return nw.fmt.nan_bits();
    }
    let take_x = match op {
        Opcode::Maximum => a > b || (a == b && !nw.fmt.sign_bit(x)),
        _ => a < b || (a == b && nw.fmt.sign_bit(x)),
    };
    if take_x {
        x
    } else {
        y
    }
}

/// Integer operations on one type; `$s` is the signed and `$u` the unsigned type of that width.
macro_rules! int_binary {
    ($ctx:expr, $op:expr, $t:ty, $s:ty, $u:ty) => {{
        let ctx = $ctx;
        const BITS: u32 = <$t>::BITS;
        let (a, b) = (ctx.operands[0].typed::<$t>(), ctx.operands[1].typed::<$t>());
        mono2!(ctx, a.view(), b.view(), $t, $op, {
            Opcode::Add => |a: $t, b: $t| a.wrapping_add(b),
            Opcode::Subtract => |a: $t, b: $t| a.wrapping_sub(b),
            Opcode::Multiply => |a: $t, b: $t| a.wrapping_mul(b),
            Opcode::Divide => |a: $t, b: $t| {
                if b == 0 {
                    !(0 as $t)
                } else {
                    a.wrapping_div(b) // INT_MIN / −1 wraps to INT_MIN
                }
            },
            Opcode::Remainder => |a: $t, b: $t| {
                if b == 0 {
                    a
                } else {
                    a.wrapping_rem(b) // INT_MIN % −1 = 0
                }
            },
            Opcode::Maximum => |a: $t, b: $t| a.max(b),
            Opcode::Minimum => |a: $t, b: $t| a.min(b),
            Opcode::And => |a: $t, b: $t| a & b,
            Opcode::Or => |a: $t, b: $t| a | b,
            Opcode::Xor => |a: $t, b: $t| a ^ b,
            Opcode::ShiftLeft => |a: $t, b: $t| {
                let s = b as $u;
                if s >= BITS as $u {
                    0
                } else {
                    ((a as $u) << s) as $t
                }
            },
            Opcode::ShiftRightLogical => |a: $t, b: $t| {
                let s = b as $u;
                if s >= BITS as $u {
                    0
                } else {
                    ((a as $u) >> s) as $t
                }
            },
            Opcode::ShiftRightArithmetic => |a: $t, b: $t| {
                let s = (b as $u).min((BITS - 1) as $u);
                ((a as $s) >> s) as $t
            },
            Opcode::Power => |a: $t, b: $t| {
                #[allow(unused_comparisons)]
                let negative = b < 0;
                if negative {
                    // XLA's evaluator: a negative exponent gives 1 for a base of 1, else 0.
                    return (a == 1) as $t;
                }
                let (mut base, mut e, mut acc) = (a, b as $u, 1 as $t);
                while e != 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            },
        })
    }};
}

fn integer(ctx: &Ctx<'_>, ty: ElementType) -> Result<Vec<u8>, BackendError> {
    let op = ctx.opcode();
    Ok(match ty {
        ElementType::Pred => {
            let (a, b) = (ctx.operands[0].typed::<u8>(), ctx.operands[1].typed::<u8>());
            mono2!(ctx, a.view(), b.view(), u8, op, {
                // PRED add is OR and multiply is AND (StableHLO's add/multiply on i1).
                Opcode::And | Opcode::Minimum | Opcode::Multiply => |a: u8, b: u8| ((a != 0) & (b != 0)) as u8,
                Opcode::Or | Opcode::Maximum | Opcode::Add => |a: u8, b: u8| ((a != 0) | (b != 0)) as u8,
                Opcode::Xor => |a: u8, b: u8| ((a != 0) ^ (b != 0)) as u8,
            })
        }
        ElementType::S8 => int_binary!(ctx, op, i8, i8, u8),
        ElementType::S16 => int_binary!(ctx, op, i16, i16, u16),
        ElementType::S32 => int_binary!(ctx, op, i32, i32, u32),
        ElementType::S64 => int_binary!(ctx, op, i64, i64, u64),
        ElementType::U8 => int_binary!(ctx, op, u8, i8, u8),
        ElementType::U16 => int_binary!(ctx, op, u16, i16, u16),
        ElementType::U32 => int_binary!(ctx, op, u32, i32, u32),
        ElementType::U64 => int_binary!(ctx, op, u64, i64, u64),
        _ => return Err(ctx.unsupported_type()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// atan2 of bf16 (and f32) operands whose exact quotient is a midpoint of the subnormal grid:
    /// the exact result lies just below it in magnitude, so it rounds down, not to even.
    #[test]
    fn atan2_tiny_exact_quotient_is_not_double_rounded() {
        let nw = Narrow::new(ElementType::Bf16).unwrap();
        let q = 2f64.powi(-133); // smallest bf16 subnormal
        let bf = |y: f64, x: f64| nw.encode(libm64::atan2_for_narrower(y, x));
        // 3q/2 = 1.5q: a tie in f64, but atan2 < 1.5q, so q (0x0001), not 2q.
        assert_eq!(libm64::atan2(3.0 * q, 2.0), 1.5 * q);
        assert_eq!(bf(3.0 * q, 2.0), 0x0001);
        assert_eq!(bf(-3.0 * q, 2.0), 0x8001);
        // The sweep's case: 0x0107 / 4 = 67.5q exactly → 67q (0x0043).
        assert_eq!(bf(nw.decode(0x0107), 4.0), 0x0043);
        // Exactly representable quotients and ordinary results are unchanged.
        assert_eq!(bf(4.0 * q, 2.0), 0x0002);
        assert_eq!(bf(1.0, 1.0), nw.encode(std::f64::consts::FRAC_PI_4));
        assert_eq!(bf(3.0 * q, -2.0), nw.encode(std::f64::consts::PI));
        assert_eq!(bf(0.0, 2.0), 0x0000);
        // f32: 3·2^−149 / 2 → 2^−149.
        let t = f32::from_bits(3) as f64;
        assert_eq!(libm64::atan2_for_narrower(t, 2.0) as f32, f32::from_bits(1));
        assert_eq!(libm64::atan2(t, 2.0) as f32, f32::from_bits(2)); // the double rounding
                                                                     // f64 itself keeps the correctly rounded f64 result (the quotient).
        assert_eq!(f64_function(Opcode::Atan2).unwrap()(t, 2.0), t / 2.0);
    }
}
