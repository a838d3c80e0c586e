//! `compare` (seed 004, "Element-wise comparison operations"): `direction=EQ|NE|GE|GT|LE|LT` and
//! `type=FLOAT|TOTALORDER|SIGNED|UNSIGNED`, two operands of one type → PRED.
//!
//! The default `type` follows the element type: FLOAT for floating-point and complex types,
//! SIGNED for signed integers, UNSIGNED for unsigned integers and PRED. FLOAT is IEEE 754
//! comparison (every ordered comparison with NaN is false, NE is true; −0 = +0); TOTALORDER is
//! −NaN < −inf < −finite < −0 < +0 < +finite < +inf < +NaN. Complex types compare EQ and NE only,
//! component-wise.

use super::{invalid, ElementFn, Signature};
use conformance_spec::element_type::{ElementType, FloatFormat, TypeKind};
use conformance_spec::literal::complex_parts;
use conformance_spec::BackendError;
use std::cmp::Ordering;

/// `direction=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Eq,
    Ne,
    Ge,
    Gt,
    Le,
    Lt,
}

/// `type=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CompareType {
    Float,
    TotalOrder,
    Signed,
    Unsigned,
}

const DIRECTIONS: &[(&str, Direction)] = &[
    ("EQ", Direction::Eq),
    ("NE", Direction::Ne),
    ("GE", Direction::Ge),
    ("GT", Direction::Gt),
    ("LE", Direction::Le),
    ("LT", Direction::Lt),
];

const TYPES: &[(&str, CompareType)] = &[
    ("FLOAT", CompareType::Float),
    ("TOTALORDER", CompareType::TotalOrder),
    ("SIGNED", CompareType::Signed),
    ("UNSIGNED", CompareType::Unsigned),
];

impl Direction {
    /// The result for an ordering of lhs against rhs (`None`: unordered, i.e. NaN involved).
    fn holds(self, ord: Option<Ordering>) -> bool {
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

/// The key of a float bit pattern in the total order: sign-magnitude to two's complement, so that
/// negative patterns (−NaN, −inf, …, −0) come before positive ones. This is the ordering XLA
/// implements for TOTALORDER; in FNUZ formats the only NaN (the −0 pattern) sorts just below +0.
pub(crate) fn total_order_key(fmt: FloatFormat, bits: u64) -> i64 {
    let magnitude_bits = fmt.bit_width() - 1;
    let magnitude = (bits & ((1u64 << magnitude_bits) - 1)) as i64;
    if fmt.sign_bit(bits) {
        -magnitude - 1
    } else {
        magnitude
    }
}

/// IEEE comparison of two values of a real format.
fn float_order(fmt: FloatFormat, x: u64, y: u64) -> Option<Ordering> {
    fmt.decode(x).partial_cmp(&fmt.decode(y))
}

pub(crate) fn build(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(2)?;
    let ty = sig.common_operand_type()?;
    sig.expect_result(ElementType::Pred)?;
    let word = sig
        .attr_word("direction")
        .ok_or_else(|| BackendError::Invalid("compare: missing attribute `direction`".into()))?;
    let direction = DIRECTIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&word))
        .map(|&(_, d)| d)
        .ok_or_else(|| {
            BackendError::Invalid(format!(
                "compare: direction `{word}` is not one of EQ, NE, GE, GT, LE, LT"
            ))
        })?;
    let default = match ty.kind() {
        TypeKind::Float | TypeKind::Complex => CompareType::Float,
        TypeKind::SignedInteger => CompareType::Signed,
        TypeKind::UnsignedInteger | TypeKind::Pred => CompareType::Unsigned,
    };
    let compare_type = match sig.attr_word("type") {
        None => default,
        Some(w) => TYPES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&w))
            .map(|&(_, t)| t)
            .ok_or_else(|| {
                BackendError::Invalid(format!(
                    "compare: type `{w}` is not one of FLOAT, TOTALORDER, SIGNED, UNSIGNED"
                ))
            })?,
    };
    let float_type = matches!(compare_type, CompareType::Float | CompareType::TotalOrder);
    if float_type != ty.is_floating() {
        return invalid(format!(
            "compare: type={compare_type:?} does not apply to element type {ty}"
        ));
    }
    let out = |b: bool| Ok(u128::from(b));
    match (ty.kind(), compare_type) {
        (TypeKind::Complex, CompareType::Float)
            if matches!(direction, Direction::Eq | Direction::Ne) =>
        {
            let fmt = ty.float_format().expect("complex");
            Ok(Box::new(move |x| {
                let (a, b) = (complex_parts(fmt, x[0]), complex_parts(fmt, x[1]));
                let equal = float_order(fmt, a.0, b.0) == Some(Ordering::Equal)
                    && float_order(fmt, a.1, b.1) == Some(Ordering::Equal);
                out(if direction == Direction::Eq {
                    equal
                } else {
                    !equal
                })
            }))
        }
        (TypeKind::Complex, _) => Err(BackendError::Unsupported(format!(
            "compare direction={word} type={compare_type:?} is not defined for {ty} (only EQ, NE)"
        ))),
        (_, CompareType::Float) => {
            let fmt = ty.float_format().expect("float");
            Ok(Box::new(move |x| {
                out(direction.holds(float_order(fmt, x[0] as u64, x[1] as u64)))
            }))
        }
        (_, CompareType::TotalOrder) => {
            let fmt = ty.float_format().expect("float");
            Ok(Box::new(move |x| {
                let (a, b) = (
                    total_order_key(fmt, x[0] as u64),
                    total_order_key(fmt, x[1] as u64),
                );
                out(direction.holds(Some(a.cmp(&b))))
            }))
        }
        (_, CompareType::Signed) | (_, CompareType::Unsigned) => {
            let width = ty.bit_width();
            let signed = compare_type == CompareType::Signed;
            Ok(Box::new(move |x| {
                let read = |b: u128| -> i128 {
                    let b = if ty.is_pred() {
                        u128::from(b & 0xff != 0)
                    } else {
                        b
                    };
                    let m = b & ((1u128 << width) - 1);
                    if signed && width < 128 && m >> (width - 1) == 1 {
                        m as i128 - (1i128 << width)
                    } else {
                        m as i128
                    }
                };
                out(direction.holds(Some(read(x[0]).cmp(&read(x[1])))))
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::eval_element;
    use super::super::test_util::instr;
    use conformance_spec::hlo::ir::{AttrValue, Opcode};
    use conformance_spec::ElementType::{self, *};

    fn cmp(ty: ElementType, dir: &str, typ: Option<&str>, a: u128, b: u128) -> bool {
        let mut attrs = vec![("direction", AttrValue::Enum(dir.into()))];
        if let Some(t) = typ {
            attrs.push(("type", AttrValue::Enum(t.into())));
        }
        let i = instr(Opcode::Compare, &attrs);
        eval_element(&i, &[ty, ty], &[a, b], Pred).unwrap() == 1
    }

    fn f(x: f32) -> u128 {
        x.to_bits() as u128
    }

    #[test]
    fn ieee_float_comparison() {
        assert!(cmp(F32, "EQ", None, f(0.0), f(-0.0)));
        assert!(!cmp(F32, "EQ", None, f(f32::NAN), f(f32::NAN)));
        assert!(cmp(F32, "NE", None, f(f32::NAN), f(f32::NAN)));
        for d in ["GE", "GT", "LE", "LT"] {
            assert!(!cmp(F32, d, None, f(f32::NAN), f(1.0)), "{d}");
        }
        assert!(cmp(F32, "LT", Some("FLOAT"), f(-1.0), f(1.0)));
        assert!(cmp(F32, "GE", None, f(f32::INFINITY), f(f32::MAX)));
        assert!(cmp(F32, "LE", None, f(-0.0), f(0.0)));
    }

    #[test]
    fn total_order_of_seed_004() {
        // −NaN < −inf < −1 < −0 < +0 < 1 < inf < +NaN
        let seq = [
            f32::from_bits(0xffc0_0000),
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for (i, &a) in seq.iter().enumerate() {
            for (j, &b) in seq.iter().enumerate() {
                let t = Some("TOTALORDER");
                assert_eq!(cmp(F32, "LT", t, f(a), f(b)), i < j, "{a} < {b}");
                assert_eq!(cmp(F32, "EQ", t, f(a), f(b)), i == j, "{a} == {b}");
                assert_eq!(cmp(F32, "GE", t, f(a), f(b)), i >= j, "{a} >= {b}");
            }
        }
        // The same in an f8 format with infinities.
        let t = Some("TOTALORDER");
        assert!(cmp(F8E5M2, "LT", t, 0xff, 0xfc)); // -NaN < -inf
        assert!(cmp(F8E5M2, "LT", t, 0x80, 0x00)); // -0 < +0
        assert!(cmp(F8E5M2, "LT", t, 0x7c, 0x7f)); // inf < NaN
    }

    #[test]
    fn integers_and_pred() {
        let n1 = u128::from(u32::MAX);
        assert!(cmp(S32, "LT", None, n1, 1));
        assert!(!cmp(U32, "LT", None, n1, 1));
        assert!(!cmp(S32, "LT", Some("UNSIGNED"), n1, 1));
        assert!(cmp(U32, "LT", Some("SIGNED"), n1, 1));
        assert!(cmp(S64, "GT", None, 0, u128::from(u64::MAX)));
        assert!(cmp(Pred, "GT", None, 1, 0));
        assert!(cmp(Pred, "EQ", None, 1, 1));
        assert!(cmp(S8, "EQ", None, 0x80, 0x80));
        assert!(cmp(S8, "LE", None, 0x80, 0x7f));
    }

    #[test]
    fn complex_equality_only() {
        use conformance_spec::literal::complex_bits;
        use conformance_spec::FloatFormat;
        let z =
            |a: f32, b: f32| complex_bits(FloatFormat::F32, a.to_bits() as u64, b.to_bits() as u64);
        assert!(cmp(C64, "EQ", None, z(1.0, -0.0), z(1.0, 0.0)));
        assert!(cmp(C64, "NE", None, z(1.0, 2.0), z(1.0, 3.0)));
        assert!(cmp(C64, "NE", None, z(f32::NAN, 0.0), z(f32::NAN, 0.0)));
        let i = instr(
            Opcode::Compare,
            &[("direction", AttrValue::Enum("LT".into()))],
        );
        assert!(eval_element(&i, &[C64, C64], &[0, 0], Pred).is_err());
    }

    #[test]
    fn attribute_errors() {
        let i = instr(Opcode::Compare, &[]);
        assert!(eval_element(&i, &[F32, F32], &[0, 0], Pred).is_err());
        let i = instr(
            Opcode::Compare,
            &[("direction", AttrValue::Enum("XX".into()))],
        );
        assert!(eval_element(&i, &[F32, F32], &[0, 0], Pred).is_err());
        let i = instr(
            Opcode::Compare,
            &[
                ("direction", AttrValue::Enum("LT".into())),
                ("type", AttrValue::Enum("SIGNED".into())),
            ],
        );
        assert!(eval_element(&i, &[F32, F32], &[0, 0], Pred).is_err());
    }
}
