//! Differential test against the exact reference backend (`conformance-reference`): every
//! element-wise operation on every element type both backends accept, on special values and
//! random bit patterns. Exact operations and the narrow formats must agree bit for bit (any NaN
//! matches any NaN); f32/f64 transcendental functions within 1 ULP; complex arithmetic within
//! 1 ULP per component. Complex transcendental functions are measured and printed, not asserted.

mod common;

use common::{attr_enum, attr_int, single_op};
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::hlo::Attribute;
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, ElementType, FloatFormat, Literal, Opcode};

const N: usize = 384;

fn inputs(ty: ElementType, seed: u64) -> ArrayLiteral {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let w = ty.bit_width();
    let mask = if w == 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    };
    let specials: Vec<u128> = match ty.float_format() {
        Some(f) if ty.is_float() => [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            f64::INFINITY,
            -f64::INFINITY,
            f64::NAN,
            1e-300,
            3.0,
            -2.5,
        ]
        .iter()
        .map(|&x| f.encode(x) as u128)
        .chain([f.max_finite_bits() as u128, 1, f.nan_bits() as u128])
        .collect(),
        _ if ty == ElementType::Pred => vec![0, 1],
        _ => vec![0, 1, mask, mask >> 1, (mask >> 1) + 1, 2, 7],
    };
    let bits: Vec<u128> = (0..N)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i < specials.len() {
                specials[i]
            } else if ty.is_float() && i % 3 == 0 {
                // Moderate values, where most functions are interesting.
                let f = ty.float_format().unwrap();
                f.encode(((s >> 11) as f64 / (1u64 << 53) as f64) * 20.0 - 10.0) as u128
            } else if ty == ElementType::Pred {
                (s & 1) as u128 // PRED values are 0 or 1
            } else {
                ((s as u128) << 64 | s.rotate_left(17) as u128) & mask
            }
        })
        .collect();
    ArrayLiteral::from_bits(ArrayShape::new(ty, vec![N as i64]), &bits).unwrap()
}

fn transcendental(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Cbrt | Cosine
            | Erf
            | Exponential
            | ExponentialMinusOne
            | Log
            | LogPlusOne
            | Logistic
            | Rsqrt
            | Sine
            | Tan
            | Tanh
            | Power
            | Atan2
    )
}

/// Allowed distance in ULPs; `None`: measured only.
fn budget(op: Opcode, ty: ElementType) -> Option<u64> {
    match ty {
        ElementType::F32 | ElementType::F64 if transcendental(op) => Some(1),
        ElementType::C64 | ElementType::C128 if transcendental(op) => None,
        ElementType::C64 | ElementType::C128
            if matches!(
                op,
                Opcode::Multiply | Opcode::Divide | Opcode::Sqrt | Opcode::Sign
            ) =>
        {
            Some(1)
        }
        _ => Some(0),
    }
}

fn distance(ty: ElementType, a: u128, b: u128) -> u64 {
    let ulps = |f: FloatFormat, x: u64, y: u64| {
        let nan = |v: u64| f.decode(v).is_nan();
        match (nan(x), nan(y)) {
            (true, true) => 0,
            (false, false) if x == y => 0,
            // Distinct zeros differ (the sign of zero is part of the result).
            (false, false) if f.to_ordered(x) == f.to_ordered(y) => 1,
            (false, false) => f.to_ordered(x).abs_diff(f.to_ordered(y)),
            _ => u64::MAX,
        }
    };
    match ty.float_format() {
        Some(f) if ty.is_complex() => {
            let (ar, ai) = complex_parts(f, a);
            let (br, bi) = complex_parts(f, b);
            ulps(f, ar, br).max(ulps(f, ai, bi))
        }
        Some(f) => ulps(f, a as u64, b as u64),
        None => (a != b) as u64 * u64::MAX,
    }
}

struct Tally {
    compared: usize,
    failures: Vec<String>,
    measured: Vec<String>,
}

fn compare(
    t: &mut Tally,
    op: Opcode,
    attrs: Vec<Attribute>,
    args: Vec<ArrayLiteral>,
    out: ElementType,
) {
    let shapes: Vec<ArrayShape> = args.iter().map(|a| a.shape().clone()).collect();
    let m = single_op(
        op,
        &shapes,
        ArrayShape::new(out, vec![N as i64]),
        attrs.clone(),
    );
    let args: Vec<Literal> = args.into_iter().map(Literal::from).collect();
    let (Ok(f), Ok(r)) = (Fast::new().execute(&m, &args), Reference.execute(&m, &args)) else {
        return;
    };
    t.compared += 1;
    let (f, r) = (
        f.as_array().unwrap().logical_bits(),
        r.as_array().unwrap().logical_bits(),
    );
    let in_ty = shapes[0].element_type;
    let budget = budget(op, in_ty);
    let (mut worst, mut shown) = (0u64, 0);
    for i in 0..N {
        let d = distance(out, f[i], r[i]);
        worst = worst.max(d);
        if budget.is_some_and(|b| d > b) && shown < 2 && t.failures.len() < 60 {
            shown += 1;
            let ins: Vec<String> = args
                .iter()
                .map(|a| format!("{:#x}", a.as_array().unwrap().logical_bits()[i]))
                .collect();
            t.failures.push(format!(
                "{op} {attrs:?} ({}) -> {out}: inputs {ins:?}: fast {:#x}, reference {:#x}",
                in_ty, f[i], r[i]
            ));
        }
    }
    if budget.is_none() {
        t.measured.push(format!("{op} {in_ty}: worst {worst} ULP"));
    }
}

#[test]
fn fast_agrees_with_the_reference() {
    use Opcode::*;
    let mut t = Tally {
        compared: 0,
        failures: vec![],
        measured: vec![],
    };
    let unary = [
        Abs,
        Cbrt,
        Ceil,
        CountLeadingZeros,
        Cosine,
        Erf,
        Exponential,
        ExponentialMinusOne,
        Floor,
        Imag,
        IsFinite,
        Log,
        LogPlusOne,
        Logistic,
        Negate,
        Not,
        PopulationCount,
        Real,
        RoundNearestAfz,
        RoundNearestEven,
        Rsqrt,
        Sign,
        Sine,
        Sqrt,
        Tan,
        Tanh,
    ];
    let binary = [
        Add,
        Subtract,
        Multiply,
        Divide,
        Power,
        Remainder,
        Maximum,
        Minimum,
        And,
        Or,
        Xor,
        ShiftLeft,
        ShiftRightArithmetic,
        ShiftRightLogical,
        Atan2,
    ];
    for ty in ElementType::ALL {
        let a = inputs(ty, 1 + ty as u64);
        let b = inputs(ty, 100 + ty as u64);
        for op in unary {
            let out = match op {
                IsFinite => ElementType::Pred,
                Real | Imag | Abs if ty.is_complex() => ty.complex_component().unwrap(),
                _ => ty,
            };
            compare(&mut t, op, vec![], vec![a.clone()], out);
        }
        for op in binary {
            compare(&mut t, op, vec![], vec![a.clone(), b.clone()], ty);
        }
        for dir in ["EQ", "NE", "LT", "LE", "GT", "GE"] {
            compare(
                &mut t,
                Compare,
                vec![attr_enum("direction", dir)],
                vec![a.clone(), b.clone()],
                ElementType::Pred,
            );
            compare(
                &mut t,
                Compare,
                vec![attr_enum("direction", dir), attr_enum("type", "TOTALORDER")],
                vec![a.clone(), b.clone()],
                ElementType::Pred,
            );
        }
        let p = inputs(ElementType::Pred, 7);
        compare(&mut t, Select, vec![], vec![p, a.clone(), b.clone()], ty);
        let c = inputs(ty, 300 + ty as u64);
        compare(&mut t, Clamp, vec![], vec![a.clone(), b.clone(), c], ty);
        for to in ElementType::ALL {
            compare(&mut t, Convert, vec![], vec![a.clone()], to);
            if to.bit_width() == ty.bit_width() {
                compare(&mut t, BitcastConvert, vec![], vec![a.clone()], to);
            }
        }
        for (e, m) in [(5, 10), (8, 7), (4, 3), (2, 1), (11, 52), (1, 0)] {
            compare(
                &mut t,
                ReducePrecision,
                vec![attr_int("exponent_bits", e), attr_int("mantissa_bits", m)],
                vec![a.clone()],
                ty,
            );
        }
    }
    let f32s = inputs(ElementType::F32, 5);
    compare(
        &mut t,
        Complex,
        vec![],
        vec![f32s.clone(), inputs(ElementType::F32, 6)],
        ElementType::C64,
    );
    println!(
        "{} op/type combinations compared\n{}",
        t.compared,
        t.measured.join("\n")
    );
    assert!(
        t.compared > 500,
        "only {} combinations compared",
        t.compared
    );
    assert!(
        t.failures.is_empty(),
        "{} disagreements:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
}
