//! Binary operations on integer and PRED types (seed 004, "Element-wise binary arithmetic
//! operations"): exact, two's-complement wrapping.
//!
//! The cases seed 004 leaves implementation-defined produce XLA's values (the comparator masks
//! them): x / 0 = −1 (all bits set), INT_MIN / −1 = INT_MIN, x % 0 = x, INT_MIN % −1 = 0. Shift
//! amounts are read as unsigned; an amount ≥ the bit width gives 0 for shift-left and
//! shift-right-logical and the sign fill for shift-right-arithmetic (XLA's semantics);
//! shift-right-arithmetic reads the bits as signed and shift-right-logical as unsigned, whatever
//! the type's signedness.
//! Integer power follows XLA's evaluator (`HandlePower`): x^0 = 1, 1^y = 1, a negative exponent
//! gives 1 when the base is 1 and 0 otherwise, else exponentiation by squaring with wrapping.

use super::unary_int::{mask, value, wrap};
use conformance_spec::element_type::{ElementType, TypeKind};
use conformance_spec::hlo::ir::Opcode;

/// Semantics of a binary operation on an integer type: operand bits to result bits.
pub(crate) type BinaryIntFn = fn(ElementType, u64, u64) -> u64;

const INTEGER: &[(Opcode, BinaryIntFn)] = &[
    (Opcode::Add, add),
    (Opcode::Subtract, subtract),
    (Opcode::Multiply, multiply),
    (Opcode::Divide, divide),
    (Opcode::Remainder, remainder),
    (Opcode::Power, power),
    (Opcode::Maximum, maximum),
    (Opcode::Minimum, minimum),
    (Opcode::And, and),
    (Opcode::Or, or),
    (Opcode::Xor, xor),
    (Opcode::ShiftLeft, shift_left),
    (Opcode::ShiftRightArithmetic, shift_right_arithmetic),
    (Opcode::ShiftRightLogical, shift_right_logical),
];

/// PRED is a one-bit unsigned integer: max = or, min = and; power is `x || !y` (XLA's evaluator);
/// add = or and multiply = and (StableHLO's `add`/`multiply` on i1; XLA's shape inference accepts them).
const PRED: &[(Opcode, BinaryIntFn)] = &[
    (Opcode::Add, pred_or),
    (Opcode::Multiply, pred_and),
    (Opcode::And, pred_and),
    (Opcode::Or, pred_or),
    (Opcode::Xor, pred_xor),
    (Opcode::Maximum, pred_or),
    (Opcode::Minimum, pred_and),
    (Opcode::Power, pred_power),
];

pub(crate) fn lookup(op: Opcode, ty: ElementType) -> Option<BinaryIntFn> {
    let table = if ty.kind() == TypeKind::Pred {
        PRED
    } else {
        INTEGER
    };
    table.iter().find(|&&(o, _)| o == op).map(|&(_, f)| f)
}

fn add(ty: ElementType, x: u64, y: u64) -> u64 {
    x.wrapping_add(y) & mask(ty)
}

fn subtract(ty: ElementType, x: u64, y: u64) -> u64 {
    x.wrapping_sub(y) & mask(ty)
}

fn multiply(ty: ElementType, x: u64, y: u64) -> u64 {
    x.wrapping_mul(y) & mask(ty)
}

fn is_int_min_over_minus_one(ty: ElementType, a: i128, b: i128) -> bool {
    ty.is_signed_integer() && b == -1 && Some(a) == ty.integer_range().map(|(lo, _)| lo)
}

/// Truncating division; x / 0 = −1 (all bits set) and INT_MIN / −1 = INT_MIN.
fn divide(ty: ElementType, x: u64, y: u64) -> u64 {
    let (a, b) = (value(ty, x), value(ty, y));
    if b == 0 {
        return mask(ty);
    }
    if is_int_min_over_minus_one(ty, a, b) {
        return x & mask(ty);
    }
    wrap(ty, a / b)
}

/// Truncating remainder (sign of the dividend); x % 0 = x and INT_MIN % −1 = 0.
fn remainder(ty: ElementType, x: u64, y: u64) -> u64 {
    let (a, b) = (value(ty, x), value(ty, y));
    if b == 0 {
        return x & mask(ty);
    }
    if is_int_min_over_minus_one(ty, a, b) {
        return 0;
    }
    wrap(ty, a % b)
}

fn power(ty: ElementType, x: u64, y: u64) -> u64 {
    let (base, exponent) = (value(ty, x), value(ty, y));
    if exponent < 0 {
        return u64::from(base == 1);
    }
    let mut result: u64 = 1;
    let mut square = x;
    let mut e = exponent as u128;
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(square);
        }
        square = square.wrapping_mul(square);
        e >>= 1;
    }
    result & mask(ty)
}

fn maximum(ty: ElementType, x: u64, y: u64) -> u64 {
    if value(ty, x) >= value(ty, y) {
        x & mask(ty)
    } else {
        y & mask(ty)
    }
}

fn minimum(ty: ElementType, x: u64, y: u64) -> u64 {
    if value(ty, x) <= value(ty, y) {
        x & mask(ty)
    } else {
        y & mask(ty)
    }
}

fn and(ty: ElementType, x: u64, y: u64) -> u64 {
    x & y & mask(ty)
}

fn or(ty: ElementType, x: u64, y: u64) -> u64 {
    (x | y) & mask(ty)
}

fn xor(ty: ElementType, x: u64, y: u64) -> u64 {
    (x ^ y) & mask(ty)
}

/// The shift amount read as unsigned, or `None` when it is at least the bit width.
fn amount(ty: ElementType, y: u64) -> Option<u32> {
    let n = y & mask(ty);
    (n < u64::from(ty.bit_width())).then_some(n as u32)
}

fn shift_left(ty: ElementType, x: u64, y: u64) -> u64 {
    amount(ty, y).map_or(0, |n| (x << n) & mask(ty))
}

fn shift_right_logical(ty: ElementType, x: u64, y: u64) -> u64 {
    amount(ty, y).map_or(0, |n| (x & mask(ty)) >> n)
}

/// Arithmetic right shift of the bits read as a signed integer of the type's width, for unsigned
/// types too (XLA's evaluator casts to the signed type; its emitter uses LLVM `ashr`).
fn shift_right_arithmetic(ty: ElementType, x: u64, y: u64) -> u64 {
    let width = ty.bit_width();
    let signed = ((x << (64 - width)) as i64) >> (64 - width);
    let shifted = match amount(ty, y) {
        Some(n) => signed >> n,
        None => signed >> (width - 1),
    };
    shifted as u64 & mask(ty)
}

fn truth(x: u64) -> bool {
    x & 0xff != 0
}

fn pred_and(_: ElementType, x: u64, y: u64) -> u64 {
    u64::from(truth(x) && truth(y))
}

fn pred_or(_: ElementType, x: u64, y: u64) -> u64 {
    u64::from(truth(x) || truth(y))
}

fn pred_xor(_: ElementType, x: u64, y: u64) -> u64 {
    u64::from(truth(x) != truth(y))
}

fn pred_power(_: ElementType, x: u64, y: u64) -> u64 {
    u64::from(truth(x) || !truth(y))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::eval;
    use conformance_spec::hlo::ir::Opcode::{self, *};
    use conformance_spec::ElementType::{self, *};

    fn e(op: Opcode, ty: ElementType, x: i128, y: i128) -> i128 {
        let b = |v: i128| ty.integer_to_bits(v).unwrap() as u128;
        ty.integer_from_bits(eval(op, ty, &[b(x), b(y)]) as u64)
            .unwrap()
    }

    #[test]
    fn wrapping_arithmetic() {
        assert_eq!(e(Add, S8, 127, 1), -128);
        assert_eq!(e(Add, U8, 255, 1), 0);
        assert_eq!(e(Subtract, U32, 0, 1), u32::MAX as i128);
        assert_eq!(e(Multiply, S16, 300, 300), (90000i32 as i16) as i128);
        assert_eq!(e(Multiply, S64, i64::MIN as i128, -1), i64::MIN as i128);
        assert_eq!(e(Multiply, U64, u64::MAX as i128, u64::MAX as i128), 1);
    }

    #[test]
    fn division_corner_cases() {
        assert_eq!(e(Divide, S32, 7, -2), -3);
        assert_eq!(e(Divide, S32, -7, 2), -3);
        assert_eq!(e(Divide, S32, 7, 0), -1);
        assert_eq!(e(Divide, U32, 7, 0), u32::MAX as i128);
        assert_eq!(e(Divide, S8, -128, -1), -128);
        assert_eq!(e(Remainder, S32, -7, 2), -1);
        assert_eq!(e(Remainder, S32, 7, -2), 1);
        assert_eq!(e(Remainder, S32, 7, 0), 7);
        assert_eq!(e(Remainder, U16, 65535, 0), 65535);
        assert_eq!(e(Remainder, S64, i64::MIN as i128, -1), 0);
        assert_eq!(e(Divide, U8, 200, 3), 66);
    }

    #[test]
    fn shifts() {
        assert_eq!(e(ShiftLeft, S32, 1, 31), i32::MIN as i128);
        assert_eq!(e(ShiftLeft, S32, 1, 32), 0);
        assert_eq!(e(ShiftLeft, S32, 1, -1), 0); // -1 reads as 2^32 - 1
        assert_eq!(e(ShiftRightLogical, S8, -128, 7), 1);
        assert_eq!(e(ShiftRightLogical, S8, -128, 8), 0);
        assert_eq!(e(ShiftRightArithmetic, S8, -128, 7), -1);
        assert_eq!(e(ShiftRightArithmetic, S8, -128, 8), -1);
        assert_eq!(e(ShiftRightArithmetic, S8, 64, 100), 0);
        assert_eq!(e(ShiftRightArithmetic, U8, 0x80, 7), 0xff);
        assert_eq!(e(ShiftRightArithmetic, U8, 0x80, 8), 0xff);
        assert_eq!(e(ShiftRightArithmetic, U8, 0x40, 9), 0);
        assert_eq!(
            e(ShiftRightArithmetic, U64, 1 << 63, 1),
            0xc000_0000_0000_0000
        );
        assert_eq!(e(ShiftLeft, U64, 3, 63), 1i128 << 63);
    }

    #[test]
    fn power_follows_xla() {
        assert_eq!(e(Power, S32, 3, 4), 81);
        assert_eq!(e(Power, S32, -2, 3), -8);
        assert_eq!(e(Power, S32, 2, 31), i32::MIN as i128);
        assert_eq!(e(Power, S32, 2, 32), 0);
        assert_eq!(e(Power, S32, 0, 0), 1);
        assert_eq!(e(Power, S32, 1, -5), 1);
        assert_eq!(e(Power, S32, -1, -1), 0);
        assert_eq!(e(Power, S32, 2, -1), 0);
        assert_eq!(e(Power, U8, 3, 5), 243);
        assert_eq!(e(Power, U8, 3, 6), (729 % 256) as i128);
        // 3^100 mod 2^64, checked against repeated multiplication.
        let mut p: u64 = 1;
        for _ in 0..100 {
            p = p.wrapping_mul(3);
        }
        assert_eq!(e(Power, U64, 3, 100), p as i128);
    }

    #[test]
    fn logic_and_extrema() {
        assert_eq!(e(And, U8, 0b1100, 0b1010), 0b1000);
        assert_eq!(e(Or, S16, -256, 255), -1);
        assert_eq!(e(Xor, S8, -1, 1), -2);
        assert_eq!(e(Maximum, S8, -1, 1), 1);
        assert_eq!(e(Maximum, U8, 255, 1), 255);
        assert_eq!(e(Minimum, S64, i64::MIN as i128, 0), i64::MIN as i128);
        assert_eq!(e(And, Pred, 1, 0), 0);
        assert_eq!(e(Or, Pred, 1, 0), 1);
        assert_eq!(e(Xor, Pred, 1, 1), 0);
        assert_eq!(e(Maximum, Pred, 0, 1), 1);
        assert_eq!(e(Minimum, Pred, 0, 1), 0);
        assert_eq!(e(Power, Pred, 0, 0), 1);
        assert_eq!(e(Power, Pred, 0, 1), 0);
        assert_eq!(e(Add, Pred, 1, 1), 1);
        assert_eq!(e(Add, Pred, 0, 0), 0);
        assert_eq!(e(Multiply, Pred, 1, 0), 0);
        assert_eq!(e(Multiply, Pred, 1, 1), 1);
    }
}
