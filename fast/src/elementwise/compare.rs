//! `compare` (seed 004, "Element-wise comparison operations"): `direction=EQ|NE|GE|GT|LE|LT` and
//! `type=FLOAT|TOTALORDER|SIGNED|UNSIGNED` (default from the element type: FLOAT for floating
//! types, SIGNED/UNSIGNED for integers, UNSIGNED for PRED). The result is PRED.
//!
//! FLOAT follows IEEE 754 (NaN is unordered: every direction but NE is false). TOTALORDER follows
//! seed 004: −NaN < −inf < −finite < −0 < +0 < +finite < +inf < +NaN, computed on the sign-magnitude
//! bits (NaNs of one sign ordered by payload), which is the order XLA implements; in FNUZ formats
//! the only NaN (the bit pattern of −0) therefore sorts just below +0. Complex values compare EQ/NE
//! by both components.

use super::narrow::Narrow;
use super::Ctx;
use crate::buffer::with_output;
use crate::parallel::map2;
use conformance_spec::hlo::{AttrValue, HloInstruction};
use conformance_spec::{BackendError, ElementType};
use std::cmp::Ordering;

/// A comparison direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Eq,
    Ne,
    Ge,
    Gt,
    Le,
    Lt,
}

/// A comparison type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareType {
    Float,
    TotalOrder,
    Signed,
    Unsigned,
}

impl Direction {
    pub fn from_name(s: &str) -> Option<Direction> {
        Some(match s {
            "EQ" => Direction::Eq,
            "NE" => Direction::Ne,
            "GE" => Direction::Ge,
            "GT" => Direction::Gt,
            "LE" => Direction::Le,
            "LT" => Direction::Lt,
            _ => return None,
        })
    }

    /// The verdict for an ordering (`None`: unordered, i.e. a NaN under FLOAT).
    #[inline]
    pub fn holds(self, ord: Option<Ordering>) -> bool {
        match ord {
            None => self == Direction::Ne,
            Some(o) => match self {
                Direction::Eq => o == Ordering::Equal,
                Direction::Ne => o != Ordering::Equal,
                Direction::Ge => o != Ordering::Less,
                Direction::Gt => o == Ordering::Greater,
                Direction::Le => o != Ordering::Greater,
                Direction::Lt => o == Ordering::Less,
            },
        }
    }
}

impl CompareType {
    pub fn from_name(s: &str) -> Option<CompareType> {
        Some(match s {
            "FLOAT" => CompareType::Float,
            "TOTALORDER" => CompareType::TotalOrder,
            "SIGNED" => CompareType::Signed,
            "UNSIGNED" => CompareType::Unsigned,
            _ => return None,
        })
    }

    /// The default comparison type of an element type (XLA: FLOAT for floating types, SIGNED for
    /// signed integers, UNSIGNED for unsigned integers and PRED).
    pub fn default_for(ty: ElementType) -> CompareType {
        if ty.is_floating() {
            CompareType::Float
        } else if ty.is_signed_integer() {
            CompareType::Signed
        } else {
            CompareType::Unsigned
        }
    }
}

fn enum_attr<'a>(instr: &'a HloInstruction, name: &str) -> Option<&'a str> {
    match instr.attribute(name)? {
        AttrValue::Enum(s) | AttrValue::Raw(s) | AttrValue::Str(s) => Some(s.as_str()),
        _ => None,
    }
}

/// The direction and comparison type of a `compare` instruction on operands of element type `ty`
/// (the type defaults per [`CompareType::default_for`]).
///
/// Errors: [`BackendError::Invalid`] for a missing or unknown `direction=`, an unknown `type=`, or
/// a type that does not apply to `ty` (e.g. TOTALORDER on integers, an ordering of complex values).
pub(crate) fn comparison(
    instr: &HloInstruction,
    ty: ElementType,
) -> Result<(Direction, CompareType), BackendError> {
    let dir = enum_attr(instr, "direction")
        .ok_or_else(|| BackendError::Invalid("compare without direction=".into()))?;
    let dir = Direction::from_name(dir)
        .ok_or_else(|| BackendError::Invalid(format!("unknown compare direction `{dir}`")))?;
    let ct = match enum_attr(instr, "type") {
        None => CompareType::default_for(ty),
        Some(t) => CompareType::from_name(t)
            .ok_or_else(|| BackendError::Invalid(format!("unknown comparison type `{t}`")))?,
    };
    let valid = match ct {
        CompareType::Float => ty.is_floating(),
        CompareType::TotalOrder => ty.is_float(),
        CompareType::Signed | CompareType::Unsigned => ty.is_integer() || ty.is_pred(),
    };
    if !valid || (ty.is_complex() && !matches!(dir, Direction::Eq | Direction::Ne)) {
        return Err(BackendError::Invalid(format!(
            "compare type {ct:?} direction {dir:?} does not apply to {ty}"
        )));
    }
    Ok((dir, ct))
}

/// Total-order key of a float's bits: a signed integer monotone in seed 004's total order.
#[inline]
pub fn total_order_key(bits: u64, width: u32) -> i64 {
    let shift = 64 - width;
    let v = ((bits << shift) as i64) >> shift; // sign-extended bit pattern
                                               // Negative patterns: flip the magnitude bits so that larger magnitudes sort lower.
    v ^ (((v >> 63) as u64) >> (shift + 1)) as i64
}

/// Runs `compare`.
pub(crate) fn evaluate(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 2 {
        return Err(BackendError::Invalid(format!(
            "compare takes 2 operands, {} given",
            ctx.operands.len()
        )));
    }
    ctx.expect_same_operand_types(0)?;
    ctx.expect_out(ElementType::Pred)?;
    let ty = ctx.in_type(0);
    let (dir, ct) = comparison(ctx.instr, ty)?;
    let (exec, n) = (ctx.exec, ctx.n);
    macro_rules! by {
        ($t:ty, $key:expr) => {{
            let (a, b) = (ctx.operands[0].typed::<$t>(), ctx.operands[1].typed::<$t>());
            let key = $key;
            with_output::<u8>(n, |o| {
                map2(exec, a.view(), b.view(), o, |x: $t, y: $t| {
                    dir.holds(key(x).partial_cmp(&key(y))) as u8
                })
            })
        }};
    }
    let w = ty.bit_width();
    Ok(match (ct, ty) {
        (CompareType::Float, ElementType::F32) => by!(f32, |x: f32| x),
        (CompareType::Float, ElementType::F64) => by!(f64, |x: f64| x),
        (CompareType::Float, ElementType::C64) => by!([f32; 2], |x: [f32; 2]| x),
        (CompareType::Float, ElementType::C128) => by!([f64; 2], |x: [f64; 2]| x),
        (CompareType::Float, _) => {
            let nw = Narrow::new(ty).ok_or_else(|| ctx.unsupported_type())?;
            let nw = &nw;
            if w == 8 {
                by!(u8, |x: u8| nw.decode(x as u64))
            } else {
                by!(u16, |x: u16| nw.decode(x as u64))
            }
        }
        (CompareType::TotalOrder, _) => match w {
            8 => by!(u8, |x: u8| total_order_key(x as u64, 8)),
            16 => by!(u16, |x: u16| total_order_key(x as u64, 16)),
            32 => by!(u32, |x: u32| total_order_key(x as u64, 32)),
            _ => by!(u64, |x: u64| total_order_key(x, 64)),
        },
        (CompareType::Signed, ElementType::Pred) => by!(u8, |x: u8| x != 0),
        (CompareType::Signed, _) => match w {
            8 => by!(u8, |x: u8| x as i8 as i64),
            16 => by!(u16, |x: u16| x as i16 as i64),
            32 => by!(u32, |x: u32| x as i32 as i64),
            _ => by!(u64, |x: u64| x as i64),
        },
        (CompareType::Unsigned, ElementType::Pred) => by!(u8, |x: u8| x != 0),
        (CompareType::Unsigned, _) => match w {
            8 => by!(u8, |x: u8| x),
            16 => by!(u16, |x: u16| x),
            32 => by!(u32, |x: u32| x),
            _ => by!(u64, |x: u64| x),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_order_keys_follow_seed_004() {
        // −NaN < −inf < −1 < −0 < +0 < 1 < inf < +NaN (f32 bit patterns).
        let seq = [
            0xffc0_0000u64,
            0xff80_0000,
            0xbf80_0000,
            0x8000_0000,
            0x0000_0000,
            0x3f80_0000,
            0x7f80_0000,
            0x7fc0_0000,
        ];
        for w in seq.windows(2) {
            assert!(
                total_order_key(w[0], 32) < total_order_key(w[1], 32),
                "{w:x?}"
            );
        }
        assert!(total_order_key(0x80, 8) < total_order_key(0x00, 8));
        assert!(total_order_key(0xff, 8) < total_order_key(0x80, 8));
    }
}
