//! Unary functions on integer and PRED types (seed 004: Abs, Clz, Neg, Not, PopulationCount,
//! Sign): exact, with two's-complement wrapping (abs(INT_MIN) = INT_MIN, −INT_MIN = INT_MIN).

use conformance_spec::element_type::{ElementType, TypeKind};
use conformance_spec::hlo::ir::Opcode;

/// Semantics of one unary operation on an integer type: operand bits to result bits.
pub(crate) type UnaryIntFn = fn(ElementType, u64) -> u64;

/// Operations defined on signed and unsigned integers.
const INTEGER: &[(Opcode, UnaryIntFn)] = &[
    (Opcode::Abs, abs),
    (Opcode::Negate, negate),
    (Opcode::Sign, sign),
    (Opcode::Not, not),
    (Opcode::CountLeadingZeros, count_leading_zeros),
    (Opcode::PopulationCount, population_count),
];

/// Operations defined on PRED.
const PRED: &[(Opcode, UnaryIntFn)] = &[(Opcode::Not, not_pred)];

/// The semantics of `op` on integer type `ty`, if defined.
pub(crate) fn lookup(op: Opcode, ty: ElementType) -> Option<UnaryIntFn> {
    let table = if ty.kind() == TypeKind::Pred {
        PRED
    } else {
        INTEGER
    };
    table.iter().find(|&&(o, _)| o == op).map(|&(_, f)| f)
}

/// The value of the bits (sign-extended for signed types).
pub(crate) fn value(ty: ElementType, bits: u64) -> i128 {
    ty.integer_from_bits(bits).expect("integer type")
}

/// Bits of a value, wrapped into the type.
pub(crate) fn wrap(ty: ElementType, v: i128) -> u64 {
    ty.integer_to_bits(v).expect("integer type")
}

/// All-ones mask of the type's width.
pub(crate) fn mask(ty: ElementType) -> u64 {
    let w = ty.bit_width();
    if w == 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

fn abs(ty: ElementType, x: u64) -> u64 {
    wrap(ty, value(ty, x).abs())
}

fn negate(ty: ElementType, x: u64) -> u64 {
    wrap(ty, -value(ty, x))
}

/// −1, 0 or 1 (unsigned: 0 or 1).
fn sign(ty: ElementType, x: u64) -> u64 {
    wrap(ty, value(ty, x).signum())
}

/// Bitwise complement.
fn not(ty: ElementType, x: u64) -> u64 {
    !x & mask(ty)
}

/// Logical negation of a PRED (any non-zero byte reads as true).
fn not_pred(_: ElementType, x: u64) -> u64 {
    u64::from(x & 0xff == 0)
}

/// Leading zero bits in the type's width (the width for 0).
fn count_leading_zeros(ty: ElementType, x: u64) -> u64 {
    let w = ty.bit_width();
    u64::from((x & mask(ty)).leading_zeros() - (64 - w))
}

/// Number of set bits in the type's width.
fn population_count(ty: ElementType, x: u64) -> u64 {
    u64::from((x & mask(ty)).count_ones())
}

#[cfg(test)]
mod tests {
    use super::super::test_util::eval;
    use conformance_spec::hlo::ir::Opcode::*;
    use conformance_spec::ElementType::{self, *};

    fn e(op: conformance_spec::Opcode, ty: ElementType, x: i128) -> i128 {
        let bits = ty.integer_to_bits(x).unwrap() as u128;
        ty.integer_from_bits(eval(op, ty, &[bits]) as u64).unwrap()
    }

    #[test]
    fn wrapping_and_signs() {
        assert_eq!(e(Abs, S8, -128), -128);
        assert_eq!(e(Abs, S8, -5), 5);
        assert_eq!(e(Abs, U8, 200), 200);
        assert_eq!(e(Negate, S32, i32::MIN as i128), i32::MIN as i128);
        assert_eq!(e(Negate, U16, 1), 65535);
        assert_eq!(e(Negate, S64, 7), -7);
        assert_eq!(e(Sign, S16, -300), -1);
        assert_eq!(e(Sign, S16, 0), 0);
        assert_eq!(e(Sign, S16, 9), 1);
        assert_eq!(e(Sign, U64, u64::MAX as i128), 1);
        assert_eq!(e(Sign, U64, 0), 0);
    }

    #[test]
    fn bits() {
        assert_eq!(e(Not, S8, 0), -1);
        assert_eq!(e(Not, U16, 0x00ff), 0xff00);
        assert_eq!(e(Not, Pred, 1), 0);
        assert_eq!(e(Not, Pred, 0), 1);
        assert_eq!(e(CountLeadingZeros, S32, 0), 32);
        assert_eq!(e(CountLeadingZeros, S32, 1), 31);
        assert_eq!(e(CountLeadingZeros, S32, -1), 0);
        assert_eq!(e(CountLeadingZeros, U8, 0x10), 3);
        assert_eq!(e(CountLeadingZeros, U64, 1), 63);
        assert_eq!(e(PopulationCount, S8, -1), 8);
        assert_eq!(e(PopulationCount, U32, 0xf0f0), 8);
        assert_eq!(e(PopulationCount, S64, i64::MIN as i128), 1);
    }
}
