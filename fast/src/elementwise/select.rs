//! `select` and `clamp` (seed 004, Select and Clamp).
//!
//! `select(pred, on_true, on_false)` picks element bits (any element type; `pred` may be a scalar).
//! `clamp(min, operand, max) = minimum(maximum(operand, min), max)` with the maximum/minimum of
//! [`super::binary`] (NaN propagates, −0 < +0); `min` and `max` may be scalars and are then never
//! materialized.

use super::binary::{max_f64, min_f64};
use super::narrow::Narrow;
use super::Ctx;
use crate::buffer::with_output;
use crate::parallel::map3;
use conformance_spec::{BackendError, ElementType};

/// Runs `select`.
pub(crate) fn evaluate_select(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 3 {
        return Err(BackendError::Invalid(format!(
            "select takes 3 operands, {} given",
            ctx.operands.len()
        )));
    }
    if ctx.in_type(0) != ElementType::Pred {
        return Err(BackendError::Invalid(format!(
            "select's first operand must be pred, not {}",
            ctx.in_type(0)
        )));
    }
    ctx.expect_same_operand_types(1)?;
    ctx.expect_out(ctx.in_type(1))?;
    let (exec, n) = (ctx.exec, ctx.n);
    let p = ctx.operands[0].typed::<u8>();
    macro_rules! by {
        ($t:ty) => {{
            let (a, b) = (ctx.operands[1].typed::<$t>(), ctx.operands[2].typed::<$t>());
            with_output::<$t>(n, |o| {
                map3(exec, p.view(), a.view(), b.view(), o, |p, a, b| {
                    if p != 0 {
                        a
                    } else {
                        b
                    }
                })
            })
        }};
    }
    Ok(match ctx.out_type().byte_width() {
        1 => by!(u8),
        2 => by!(u16),
        4 => by!(u32),
        8 => by!(u64),
        _ => by!([u64; 2]),
    })
}

/// Runs `clamp`.
pub(crate) fn evaluate_clamp(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 3 {
        return Err(BackendError::Invalid(format!(
            "clamp takes 3 operands, {} given",
            ctx.operands.len()
        )));
    }
    ctx.expect_same_operand_types(0)?;
    let ty = ctx.in_type(1);
    ctx.expect_out(ty)?;
    let (exec, n) = (ctx.exec, ctx.n);
    macro_rules! by {
        ($t:ty, $f:expr) => {{
            let lo = ctx.operands[0].typed::<$t>();
            let x = ctx.operands[1].typed::<$t>();
            let hi = ctx.operands[2].typed::<$t>();
            with_output::<$t>(n, |o| map3(exec, lo.view(), x.view(), hi.view(), o, $f))
        }};
    }
    macro_rules! int {
        ($t:ty) => {
            by!($t, |lo: $t, x: $t, hi: $t| x.max(lo).min(hi))
        };
    }
    Ok(match ty {
        ElementType::S8 => int!(i8),
        ElementType::S16 => int!(i16),
        ElementType::S32 => int!(i32),
        ElementType::S64 => int!(i64),
        ElementType::U8 => int!(u8),
        // PRED: any non-zero byte is true; the result is 0 or 1.
        ElementType::Pred => by!(
            u8,
            |lo: u8, x: u8, hi: u8| (x != 0).max(lo != 0).min(hi != 0) as u8
        ),
        ElementType::U16 => int!(u16),
        ElementType::U32 => int!(u32),
        ElementType::U64 => int!(u64),
        ElementType::F32 => by!(f32, |lo: f32, x: f32, hi: f32| {
            min_f64(max_f64(x as f64, lo as f64), hi as f64) as f32
        }),
        ElementType::F64 => by!(f64, |lo: f64, x: f64, hi: f64| min_f64(max_f64(x, lo), hi)),
        _ => {
            let nw = Narrow::new(ty).ok_or_else(|| ctx.unsupported_type())?;
            let nw = &nw;
            let f = move |lo: u64, x: u64, hi: u64| {
                nw.encode(min_f64(max_f64(nw.decode(x), nw.decode(lo)), nw.decode(hi)))
            };
            if ty.bit_width() == 8 {
                by!(
                    u8,
                    |lo: u8, x: u8, hi: u8| f(lo as u64, x as u64, hi as u64) as u8
                )
            } else {
                by!(
                    u16,
                    |lo: u16, x: u16, hi: u16| f(lo as u64, x as u64, hi as u64) as u16
                )
            }
        }
    })
}
