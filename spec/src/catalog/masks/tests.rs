//! Unit tests of the masks.

use super::*;
use ElementType::*;

fn applies(
    mask: &str,
    op: Opcode,
    types: &[ElementType],
    inputs: &[u128],
    out: ElementType,
) -> bool {
    mask_applies(mask, op, &[], types, inputs, out)
}

#[test]
fn table_and_names_agree() {
    assert_eq!(MASKS.len(), MASK_INFO.len());
    for (name, info) in MASKS.iter().zip(MASK_INFO) {
        assert_eq!(*name, info.name);
        assert!(!info.opcodes.is_empty() && !info.source.is_empty());
    }
    assert!(mask_info("nope").is_none());
    assert!(!applies("nope", Opcode::Divide, &[S32, S32], &[1, 0], S32));
}

#[test]
fn integer_division() {
    let m1 = 0xffff_ffffu128; // -1 as s32
    let min = 0x8000_0000u128;
    assert!(applies(
        INTEGER_DIVISION_BY_ZERO,
        Opcode::Divide,
        &[S32, S32],
        &[7, 0],
        S32
    ));
    assert!(applies(
        INTEGER_DIVISION_BY_ZERO,
        Opcode::Remainder,
        &[U8, U8],
        &[7, 0],
        U8
    ));
    assert!(!applies(
        INTEGER_DIVISION_BY_ZERO,
        Opcode::Divide,
        &[S32, S32],
        &[7, 1],
        S32
    ));
    assert!(!applies(
        INTEGER_DIVISION_BY_ZERO,
        Opcode::Divide,
        &[F32, F32],
        &[0x3f80_0000, 0],
        F32
    ));
    assert!(!applies(
        INTEGER_DIVISION_BY_ZERO,
        Opcode::Add,
        &[S32, S32],
        &[7, 0],
        S32
    ));
    assert!(applies(
        SIGNED_DIVISION_OVERFLOW,
        Opcode::Divide,
        &[S32, S32],
        &[min, m1],
        S32
    ));
    assert!(applies(
        SIGNED_DIVISION_OVERFLOW,
        Opcode::Remainder,
        &[S32, S32],
        &[min, m1],
        S32
    ));
    assert!(!applies(
        SIGNED_DIVISION_OVERFLOW,
        Opcode::Divide,
        &[S32, S32],
        &[min + 1, m1],
        S32
    ));
    assert!(!applies(
        SIGNED_DIVISION_OVERFLOW,
        Opcode::Divide,
        &[U32, U32],
        &[min, m1],
        U32
    ));
    assert!(applies(
        SIGNED_DIVISION_OVERFLOW,
        Opcode::Divide,
        &[S8, S8],
        &[0x80, 0xff],
        S8
    ));
    // Missing operands never panic.
    assert!(!applies(
        SIGNED_DIVISION_OVERFLOW,
        Opcode::Divide,
        &[S8],
        &[0x80],
        S8
    ));
}

#[test]
fn float_to_integer() {
    let f = |x: f32| x.to_bits() as u128;
    let m = FLOAT_TO_INTEGER_OUT_OF_RANGE;
    assert!(applies(m, Opcode::Convert, &[F32], &[f(f32::NAN)], S32));
    assert!(applies(m, Opcode::Convert, &[F32], &[f(f32::INFINITY)], U8));
    assert!(applies(m, Opcode::Convert, &[F32], &[f(256.0)], U8));
    assert!(!applies(m, Opcode::Convert, &[F32], &[f(255.9)], U8));
    assert!(!applies(m, Opcode::Convert, &[F32], &[f(-0.9)], U8));
    assert!(applies(m, Opcode::Convert, &[F32], &[f(-1.0)], U8));
    assert!(!applies(m, Opcode::Convert, &[F32], &[f(-128.5)], S8));
    assert!(applies(m, Opcode::Convert, &[F32], &[f(-129.0)], S8));
    assert!(!applies(
        m,
        Opcode::Convert,
        &[F32],
        &[f(-2147483648.0)],
        S32
    ));
    assert!(applies(m, Opcode::Convert, &[F32], &[f(2147483648.0)], S32));
    let d = |x: f64| x.to_bits() as u128;
    assert!(!applies(
        m,
        Opcode::Convert,
        &[F64],
        &[d(2147483647.9)],
        S32
    ));
    assert!(applies(
        m,
        Opcode::Convert,
        &[F64],
        &[d(9223372036854775808.0)],
        S64
    ));
    assert!(!applies(
        m,
        Opcode::Convert,
        &[F64],
        &[d(-9223372036854775808.0)],
        S64
    ));
    assert!(applies(
        m,
        Opcode::Convert,
        &[F64],
        &[d(18446744073709551616.0)],
        U64
    ));
    assert!(!applies(
        m,
        Opcode::Convert,
        &[F64],
        &[d(18446744073709549568.0)],
        U64
    ));
    // To pred (x != 0) and from integers: defined.
    assert!(!applies(m, Opcode::Convert, &[F32], &[f(f32::NAN)], Pred));
    assert!(!applies(m, Opcode::Convert, &[S32], &[300], U8));
    // bf16 NaN.
    assert!(applies(m, Opcode::Convert, &[Bf16], &[0x7fc0], S16));
}

#[test]
fn power_and_shifts() {
    assert!(applies(
        INTEGER_POWER_NEGATIVE_EXPONENT,
        Opcode::Power,
        &[S32, S32],
        &[2, 0xffff_ffff],
        S32
    ));
    assert!(!applies(
        INTEGER_POWER_NEGATIVE_EXPONENT,
        Opcode::Power,
        &[S32, S32],
        &[2, 3],
        S32
    ));
    assert!(!applies(
        INTEGER_POWER_NEGATIVE_EXPONENT,
        Opcode::Power,
        &[U8, U8],
        &[2, 0xff],
        U8
    ));
    let m = SHIFT_AMOUNT_OUT_OF_RANGE;
    assert!(applies(m, Opcode::ShiftLeft, &[S32, S32], &[1, 32], S32));
    assert!(applies(
        m,
        Opcode::ShiftRightLogical,
        &[S32, S32],
        &[1, 0xffff_ffff],
        S32
    ));
    assert!(!applies(
        m,
        Opcode::ShiftRightArithmetic,
        &[S32, S32],
        &[1, 31],
        S32
    ));
    assert!(applies(m, Opcode::ShiftLeft, &[U8, U8], &[1, 8], U8));
    assert!(!applies(m, Opcode::ShiftLeft, &[U64, U64], &[1, 63], U64));
    assert!(applies(m, Opcode::ShiftLeft, &[U64, U64], &[1, 64], U64));
}

#[test]
fn zero_signs_of_max_min_clamp() {
    let (p, n) = (0u128, 0x8000_0000u128);
    let one = 0x3f80_0000u128;
    let m = MINMAX_MIXED_ZERO_SIGNS;
    assert!(applies(m, Opcode::Maximum, &[F32, F32], &[n, p], F32));
    assert!(applies(m, Opcode::Minimum, &[F32, F32], &[p, n], F32));
    assert!(!applies(m, Opcode::Maximum, &[F32, F32], &[n, n], F32));
    assert!(!applies(m, Opcode::Maximum, &[F32, F32], &[n, one], F32));
    assert!(!applies(m, Opcode::Maximum, &[S32, S32], &[n, p], S32));
    // clamp(-0, +0, 1): max step mixes zeros.
    assert!(applies(
        m,
        Opcode::Clamp,
        &[F32, F32, F32],
        &[n, p, one],
        F32
    ));
    // clamp(-1, +0, -0): max(-1, +0) = +0, then min(+0, -0) mixes.
    let m1 = 0xbf80_0000u128;
    assert!(applies(
        m,
        Opcode::Clamp,
        &[F32, F32, F32],
        &[m1, p, n],
        F32
    ));
    // clamp(-1, 0.5, -0): min(0.5, -0) = -0, no mixed pair.
    assert!(!applies(
        m,
        Opcode::Clamp,
        &[F32, F32, F32],
        &[m1, 0x3f00_0000, n],
        F32
    ));
}

#[test]
fn totalorder_nans() {
    let total = [Attribute {
        name: "type".into(),
        value: AttrValue::Enum("TOTALORDER".into()),
    }];
    let m = TOTALORDER_NAN_ORDER;
    let q = 0x7fc0_0000u128;
    let q1 = 0x7fc0_0001u128;
    assert!(mask_applies(
        m,
        Opcode::Compare,
        &total,
        &[F32, F32],
        &[q, q1],
        Pred
    ));
    assert!(!mask_applies(
        m,
        Opcode::Compare,
        &total,
        &[F32, F32],
        &[q, q],
        Pred
    ));
    assert!(!mask_applies(
        m,
        Opcode::Compare,
        &total,
        &[F32, F32],
        &[q, q1 | 0x8000_0000],
        Pred
    ));
    assert!(!mask_applies(
        m,
        Opcode::Compare,
        &[],
        &[F32, F32],
        &[q, q1],
        Pred
    ));
    // FNUZ: its NaN (0x80) against anything.
    assert!(mask_applies(
        m,
        Opcode::Compare,
        &total,
        &[F8E4M3FNUZ, F8E4M3FNUZ],
        &[0x80, 0x01],
        Pred
    ));
    assert!(!mask_applies(
        m,
        Opcode::Compare,
        &total,
        &[F8E4M3FNUZ, F8E4M3FNUZ],
        &[0x81, 0x01],
        Pred
    ));
}

#[test]
fn reduce_precision_underflow() {
    let attrs = |e: i64, m: i64| {
        vec![
            Attribute {
                name: "exponent_bits".into(),
                value: AttrValue::Int(e),
            },
            Attribute {
                name: "mantissa_bits".into(),
                value: AttrValue::Int(m),
            },
        ]
    };
    let f = |x: f32| x.to_bits() as u128;
    let m = REDUCE_PRECISION_UNDERFLOW;
    let rp = Opcode::ReducePrecision;
    // f16's smallest normal is 2^-14.
    assert!(mask_applies(
        m,
        rp,
        &attrs(5, 10),
        &[F32],
        &[f(2f32.powi(-15))],
        F32
    ));
    assert!(mask_applies(m, rp, &attrs(5, 10), &[F32], &[f(-1e-6)], F32));
    assert!(!mask_applies(
        m,
        rp,
        &attrs(5, 10),
        &[F32],
        &[f(2f32.powi(-14))],
        F32
    ));
    assert!(!mask_applies(m, rp, &attrs(5, 10), &[F32], &[f(0.0)], F32));
    assert!(!mask_applies(m, rp, &attrs(8, 7), &[F32], &[f(1e-40)], F32));
    assert!(!mask_applies(
        m,
        rp,
        &attrs(5, 10),
        &[F32],
        &[f(f32::NAN)],
        F32
    ));
    assert!(!mask_applies(m, rp, &[], &[F32], &[f(1e-6)], F32));
}

#[test]
fn complex_corners() {
    let c = |re: f32, im: f32| (re.to_bits() as u128) | ((im.to_bits() as u128) << 32);
    assert!(applies(
        COMPLEX_NONFINITE_OPERAND,
        Opcode::Multiply,
        &[C64, C64],
        &[c(1.0, f32::INFINITY), c(1.0, 0.0)],
        C64
    ));
    assert!(applies(
        COMPLEX_NONFINITE_OPERAND,
        Opcode::Exponential,
        &[C64],
        &[c(f32::NAN, 0.0)],
        C64
    ));
    assert!(!applies(
        COMPLEX_NONFINITE_OPERAND,
        Opcode::Exponential,
        &[C64],
        &[c(1.0, 0.0)],
        C64
    ));
    assert!(!applies(
        COMPLEX_NONFINITE_OPERAND,
        Opcode::Exponential,
        &[F32],
        &[f32::NAN.to_bits() as u128],
        F32
    ));
    assert!(!applies(
        COMPLEX_NONFINITE_OPERAND,
        Opcode::Add,
        &[C64, C64],
        &[c(f32::NAN, 0.0), 0],
        C64
    ));
    assert!(applies(
        COMPLEX_DIVISION_BY_ZERO,
        Opcode::Divide,
        &[C64, C64],
        &[c(1.0, 0.0), c(-0.0, 0.0)],
        C64
    ));
    assert!(!applies(
        COMPLEX_DIVISION_BY_ZERO,
        Opcode::Divide,
        &[C64, C64],
        &[c(1.0, 0.0), c(0.0, 1.0)],
        C64
    ));
    assert!(applies(
        COMPLEX_POWER_ZERO_BASE,
        Opcode::Power,
        &[C128, C128],
        &[0, 1],
        C128
    ));
}

#[test]
fn chlo_domain_edges() {
    let f = |x: f32| x.to_bits() as u128;
    // polygamma(n, x): x <= 0 is masked, x > 0 is not; the mask reads operand 1 (x), not n.
    let p = POLYGAMMA_NONPOSITIVE_X;
    assert!(applies(
        p,
        Opcode::Polygamma,
        &[F32, F32],
        &[f(1.0), f(-0.5)],
        F32
    ));
    assert!(applies(
        p,
        Opcode::Polygamma,
        &[F32, F32],
        &[f(1.0), f(-0.0)],
        F32
    ));
    assert!(!applies(
        p,
        Opcode::Polygamma,
        &[F32, F32],
        &[f(-1.0), f(0.5)],
        F32
    ));
    assert!(!applies(
        p,
        Opcode::Polygamma,
        &[F32, F32],
        &[f(1.0), f(f32::NAN)],
        F32
    ));
    // zeta(s, q): s < 1 or q <= 0.
    let z = ZETA_OUTSIDE_SERIES;
    assert!(applies(
        z,
        Opcode::Zeta,
        &[F32, F32],
        &[f(0.5), f(1.0)],
        F32
    ));
    assert!(applies(
        z,
        Opcode::Zeta,
        &[F32, F32],
        &[f(2.0), f(0.0)],
        F32
    ));
    assert!(applies(
        z,
        Opcode::Zeta,
        &[F32, F32],
        &[f(3.0), f(-2.5)],
        F32
    ));
    assert!(!applies(
        z,
        Opcode::Zeta,
        &[F32, F32],
        &[f(1.0), f(1.0)],
        F32
    ));
    assert!(!applies(
        z,
        Opcode::Zeta,
        &[F32, F32],
        &[f(2.0), f(0.25)],
        F32
    ));
    // Not the mask's opcode.
    assert!(!applies(
        z,
        Opcode::Polygamma,
        &[F32, F32],
        &[f(0.5), f(1.0)],
        F32
    ));
}
