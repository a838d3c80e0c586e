//! Exhaustive correct-rounding check of every unary float operation on bf16, f16 and the f8 types:
//! each of the 2^16 (2^8) inputs against MPFR at 200 bits rounded once into the format.

mod common;
#[path = "common/mpfr.rs"]
mod mpfr;
#[path = "common/special_exact.rs"]
mod special_exact;

use common::single_op;
use conformance_fast::Fast;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Opcode};

/// The seed-004 unary functions; the CHLO ones are added from `Opcode::is_chlo_function`.
const OPS: [Opcode; 20] = [
    Opcode::Abs,
    Opcode::Cbrt,
    Opcode::Ceil,
    Opcode::Cosine,
    Opcode::Erf,
    Opcode::Exponential,
    Opcode::ExponentialMinusOne,
    Opcode::Floor,
    Opcode::Log,
    Opcode::LogPlusOne,
    Opcode::Logistic,
    Opcode::Negate,
    Opcode::RoundNearestAfz,
    Opcode::RoundNearestEven,
    Opcode::Rsqrt,
    Opcode::Sign,
    Opcode::Sine,
    Opcode::Sqrt,
    Opcode::Tan,
    Opcode::Tanh,
];

/// The exact value of `op` at `x` (MPFR, or `special_exact` where MPFR lacks the function).
fn exact(op: Opcode, x: f64) -> rug::Float {
    match op {
        Opcode::ErfInv => special_exact::erf_inv(x),
        Opcode::BesselI1e => special_exact::bessel_i1e(x),
        _ => mpfr::unary(op, x).unwrap(),
    }
}

/// Runs every op on every bit pattern of `ty`; returns the failures as text.
fn check_type(ty: ElementType) -> Vec<String> {
    let fmt = ty.float_format().unwrap();
    let count = 1usize << ty.bit_width();
    let shape = ArrayShape::new(ty, vec![count as i64]);
    let input: Vec<u128> = (0..count as u128).collect();
    let arg = ArrayLiteral::from_bits(shape.clone(), &input).unwrap();
    let fast = Fast::new();
    let mut failures = Vec::new();
    // The unary CHLO functions (the binary ones, next-after, polygamma and zeta, take two).
    let chlo = Opcode::ALL.iter().copied().filter(|o| {
        o.is_chlo_function() && !matches!(o, Opcode::NextAfter | Opcode::Polygamma | Opcode::Zeta)
    });
    for op in OPS.into_iter().chain(chlo) {
        let m = single_op(op, std::slice::from_ref(&shape), shape.clone(), vec![]);
        let out = fast.execute(&m, &[arg.clone().into()]).unwrap();
        let got = out.as_array().unwrap().logical_bits();
        let mut bad = 0;
        for (bits, &g) in input.iter().zip(&got) {
            let x = fmt.decode(*bits as u64);
            let exact = exact(op, x);
            let want = mpfr::round_to(&exact, fmt);
            let ok = if fmt.decode(want).is_nan() {
                fmt.decode(g as u64).is_nan()
            } else {
                want == g as u64
            };
            if !ok {
                bad += 1;
                if bad <= 3 {
                    failures.push(format!(
                        "{ty} {op}({x:e} = {bits:#x}): got {g:#x} ({}), want {want:#x} ({})",
                        fmt.decode(g as u64),
                        fmt.decode(want)
                    ));
                }
            }
        }
        if bad > 3 {
            failures.push(format!("{ty} {op}: {bad} wrong results in total"));
        }
    }
    failures
}

#[test]
fn f8_types_are_correctly_rounded_for_every_input() {
    let mut failures = Vec::new();
    for ty in ElementType::ALL {
        if ty.is_float() && ty.bit_width() == 8 {
            failures.extend(check_type(ty));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn bf16_is_correctly_rounded_for_every_input() {
    let failures = check_type(ElementType::Bf16);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn f16_is_correctly_rounded_for_every_input() {
    let failures = check_type(ElementType::F16);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Binary operations on the f8 types: every pair of inputs (2^16 pairs).
#[test]
fn f8_binary_operations_are_correctly_rounded_for_every_pair() {
    let fast = Fast::new();
    let mut failures = Vec::new();
    for ty in ElementType::ALL {
        if !(ty.is_float() && ty.bit_width() == 8) {
            continue;
        }
        let fmt = ty.float_format().unwrap();
        let shape = ArrayShape::new(ty, vec![1 << 16]);
        let a: Vec<u128> = (0..1u128 << 16).map(|i| i >> 8).collect();
        let b: Vec<u128> = (0..1u128 << 16).map(|i| i & 0xff).collect();
        let la = ArrayLiteral::from_bits(shape.clone(), &a).unwrap();
        let lb = ArrayLiteral::from_bits(shape.clone(), &b).unwrap();
        for op in [
            Opcode::Add,
            Opcode::Subtract,
            Opcode::Multiply,
            Opcode::Divide,
            Opcode::Remainder,
            Opcode::Power,
            Opcode::Atan2,
        ] {
            let m = single_op(op, &[shape.clone(), shape.clone()], shape.clone(), vec![]);
            let out = fast
                .execute(&m, &[la.clone().into(), lb.clone().into()])
                .unwrap();
            let got = out.as_array().unwrap().logical_bits();
            for i in 0..got.len() {
                let (x, y) = (fmt.decode(a[i] as u64), fmt.decode(b[i] as u64));
                // pow of a signaling NaN (f8e5m2 has them) is NaN (IEEE 754-2019 §9.2.1).
                let signaling = op == Opcode::Power
                    && (fmt.is_signaling_nan(a[i] as u64) || fmt.is_signaling_nan(b[i] as u64));
                let want = if signaling {
                    fmt.nan_bits()
                } else {
                    mpfr::round_to(&mpfr::binary(op, x, y).unwrap(), fmt)
                };
                if mpfr::ulps(fmt, want, got[i] as u64) != 0 && failures.len() < 20 {
                    failures.push(format!(
                        "{ty} {op}({x}, {y}): got {:#x}, want {want:#x}",
                        got[i]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
