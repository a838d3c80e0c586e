//! The reference is correctly rounded: `conformance_reference::eval_element` against the
//! independent oracle of `tests/oracle` (MPFR at 256 bits + this suite's own single rounding).
//!
//! - Unary functions of the element-wise family (seed 004, element-wise unary functions: cbrt,
//!   cosine, erf, exponential, exponential-minus-one, log, log-plus-one, logistic, rsqrt, sine,
//!   sqrt, tan, tanh, and the exact abs, ceil, floor, negate, round-nearest-afz,
//!   round-nearest-even, sign): EVERY bit pattern of bf16 and f16 (65 536 each) and of the seven
//!   f8 types (256 each).
//! - Binary arithmetic (add, subtract, multiply, divide, power, atan2, remainder): every pair of
//!   every f8 type (65 536 pairs), and 200 000 deterministic pairs per operation for bf16 and
//!   f16, biased to specials, subnormals, the overflow region and cancellation.
//!
//! A result matches when the bits are identical, or both are NaN (any NaN): signed zeros,
//! subnormals and overflow (±inf, or NaN in formats without infinities) are compared exactly.
//! Every mismatch is reported as `op type inputs: expected bits, got bits`.
//!
//! Run: `cargo test -p conformance-reference --test correctly_rounded_16bit` (the test profile
//! has opt-level 2). The oracle's own tests (`tests/oracle/self_tests.rs`) run in this binary too.

mod oracle;
#[path = "oracle/self_tests.rs"]
mod oracle_self_tests;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use conformance_reference::eval_element;
use conformance_spec::{ElementType, FloatFormat, HloInstruction, Opcode, Shape};
use oracle::SplitMix64;
use rug::Float;

/// The f8 element types (each with 256 bit patterns).
const F8_TYPES: [ElementType; 7] = [
    ElementType::F8E4M3FN,
    ElementType::F8E5M2,
    ElementType::F8E4M3FNUZ,
    ElementType::F8E5M2FNUZ,
    ElementType::F8E4M3B11FNUZ,
    ElementType::F8E4M3,
    ElementType::F8E3M4,
];

/// Pairs sampled per binary operation for bf16 and f16.
const SAMPLED_PAIRS: usize = 200_000;

/// Mismatches shown per (operation, type); the rest are counted.
const SHOWN_PER_KEY: usize = 10;

fn format_of(t: ElementType) -> FloatFormat {
    t.float_format().expect("a floating-point type")
}

/// A scalar instruction `op(p0[, p1])` of type `t`: all `eval_element` reads.
fn instruction(op: Opcode, t: ElementType, arity: usize) -> HloInstruction {
    HloInstruction {
        name: format!("{}.1", op.name()),
        opcode: op,
        shape: Shape::array(t, vec![]),
        operands: (0..arity).collect(),
        parameter_number: None,
        literal: None,
        attributes: vec![],
    }
}

/// Collected disagreements between the reference and the oracle.
#[derive(Default)]
struct Mismatches {
    by_key: BTreeMap<(Opcode, ElementType), (usize, Vec<String>)>,
    compared: usize,
}

impl Mismatches {
    fn record(&mut self, op: Opcode, t: ElementType, line: String) {
        let entry = self.by_key.entry((op, t)).or_default();
        entry.0 += 1;
        if entry.1.len() < SHOWN_PER_KEY {
            entry.1.push(line);
        }
    }

    /// Compares one element: `inputs` are the operand bits, `expected` the oracle's result.
    fn compare(&mut self, op: Opcode, t: ElementType, inputs: &[u64], expected: u64) {
        self.compared += 1;
        let f = format_of(t);
        let types = vec![t; inputs.len()];
        let operands: Vec<u128> = inputs.iter().map(|&b| b as u128).collect();
        let hex = |b: u64| format!("{b:#0w$x}", w = 2 + f.bit_width() as usize / 4);
        let args = inputs.iter().map(|&b| hex(b)).collect::<Vec<_>>().join(" ");
        match eval_element(&instruction(op, t, inputs.len()), &types, &operands, t) {
            Ok(got)
                if got >> f.bit_width() == 0 && oracle::same_result(f, expected, got as u64) => {}
            Ok(got) => self.record(
                op,
                t,
                format!(
                    "{op} {t} {args}: expected {}, got {}",
                    hex(expected),
                    hex(got as u64)
                ),
            ),
            Err(e) => self.record(
                op,
                t,
                format!(
                    "{op} {t} {args}: expected {}, got error: {e}",
                    hex(expected)
                ),
            ),
        }
    }

    /// Panics with every mismatch (up to [`SHOWN_PER_KEY`] shown per key) if there is any.
    fn assert_none(&self, what: &str) {
        assert!(self.compared > 0, "{what}: nothing compared");
        if self.by_key.is_empty() {
            return;
        }
        let mut msg = format!("{what}: the reference disagrees with the oracle\n");
        let total: usize = self.by_key.values().map(|v| v.0).sum();
        for ((op, t), (count, lines)) in &self.by_key {
            let _ = writeln!(msg, "{op} {t}: {count} mismatch(es)");
            for l in lines {
                let _ = writeln!(msg, "    {l}");
            }
        }
        let _ = write!(msg, "{total} mismatch(es) among {} elements", self.compared);
        panic!("{msg}");
    }
}

fn check_all_unary(types: &[ElementType], what: &str) {
    let mut m = Mismatches::default();
    for &t in types {
        let f = format_of(t);
        for op in oracle::UNARY_OPS {
            for x in 0..(1u64 << f.bit_width()) {
                let expected = oracle::unary(op, f, x).expect("oracle covers UNARY_OPS");
                m.compare(op, t, &[x], expected);
            }
        }
    }
    m.assert_none(what);
}

#[test]
fn bf16_unary_every_input() {
    check_all_unary(&[ElementType::Bf16], "bf16 unary, every input");
}

#[test]
fn f16_unary_every_input() {
    check_all_unary(&[ElementType::F16], "f16 unary, every input");
}

#[test]
fn f8_unary_every_input() {
    check_all_unary(&F8_TYPES, "f8 unary, every input");
}

fn check_f8_binary_every_pair(op: Opcode) {
    let mut m = Mismatches::default();
    for t in F8_TYPES {
        let f = format_of(t);
        for a in 0..256u64 {
            for b in 0..256u64 {
                let expected = oracle::binary(op, f, a, b).expect("oracle covers BINARY_OPS");
                m.compare(op, t, &[a, b], expected);
            }
        }
    }
    m.assert_none(&format!("{op} on every f8 pair"));
}

#[test]
fn f8_add_every_pair() {
    check_f8_binary_every_pair(Opcode::Add);
}

#[test]
fn f8_subtract_every_pair() {
    check_f8_binary_every_pair(Opcode::Subtract);
}

#[test]
fn f8_multiply_every_pair() {
    check_f8_binary_every_pair(Opcode::Multiply);
}

#[test]
fn f8_divide_every_pair() {
    check_f8_binary_every_pair(Opcode::Divide);
}

#[test]
fn f8_power_every_pair() {
    check_f8_binary_every_pair(Opcode::Power);
}

#[test]
fn f8_atan2_every_pair() {
    check_f8_binary_every_pair(Opcode::Atan2);
}

#[test]
fn f8_remainder_every_pair() {
    check_f8_binary_every_pair(Opcode::Remainder);
}

/// Draws operand bits of a 16-bit format, biased to the cases that break implementations:
/// specials (±0, ±inf, NaN, ±1, extreme finite values), subnormals, the top binades (overflow),
/// the binades around 1, and uniform bit patterns.
fn interesting_operand(f: FloatFormat, rng: &mut SplitMix64) -> u64 {
    let sign = (rng.next_u64() & 1) << (f.bit_width() - 1);
    let m_mask = (1u64 << f.mantissa_bits) - 1;
    let e_max_finite = (1u64 << f.exponent_bits) - 2; // IEEE formats (bf16, f16).
    let exponent = |e: u64| e << f.mantissa_bits;
    match rng.below(8) {
        0 => {
            let one = exponent(f.bias as u64);
            let specials = [
                0,
                exponent(e_max_finite + 1),      // inf
                exponent(e_max_finite + 1) | 1,  // NaN
                1,                               // min subnormal
                m_mask,                          // max subnormal
                exponent(1),                     // min normal
                exponent(e_max_finite) | m_mask, // max finite
                one,
                one | 1,
                one - 1,
                exponent(f.bias as u64 + 1), // 2
                exponent(f.bias as u64 - 1), // 0.5
            ];
            sign | specials[rng.below(specials.len() as u64) as usize]
        }
        1 => sign | (rng.next_u64() & m_mask),
        2 => sign | exponent(e_max_finite - rng.below(2)) | (rng.next_u64() & m_mask),
        3 => sign | exponent(f.bias as u64 - 1 + rng.below(3)) | (rng.next_u64() & m_mask),
        _ => rng.next_u64() & ((1u64 << f.bit_width()) - 1),
    }
}

/// Draws a pair for `op`: two interesting operands, or (a quarter of the time) a right operand
/// chosen for the operation: a near neighbour of the left one (cancellation in add/subtract,
/// quotients near 1), or for `power` a small integer or half-integer exponent.
fn interesting_pair(op: Opcode, f: FloatFormat, rng: &mut SplitMix64) -> (u64, u64) {
    let a = interesting_operand(f, rng);
    if rng.below(4) != 0 {
        return (a, interesting_operand(f, rng));
    }
    let b = if op == Opcode::Power {
        let k = rng.below(41) as i64 - 20;
        let exact = Float::with_val(oracle::WORKING_PRECISION, k) / 2u32;
        oracle::round_to_format(f, &exact, std::cmp::Ordering::Equal)
    } else {
        let delta = rng.below(9) as i64 - 4;
        let flip = if op == Opcode::Add {
            1u64 << (f.bit_width() - 1)
        } else {
            0
        };
        (a as i64 + delta).clamp(0, (1i64 << f.bit_width()) - 1) as u64 ^ flip
    };
    (a, b)
}

fn check_sampled_binary(t: ElementType, ops: &[Opcode]) {
    let f = format_of(t);
    let mut m = Mismatches::default();
    for &op in ops {
        let mut rng = SplitMix64(
            0x0dd5_eed0 ^ ((op as u64) << 32) ^ t.bit_width() as u64 ^ f.mantissa_bits as u64,
        );
        for _ in 0..SAMPLED_PAIRS {
            let (a, b) = interesting_pair(op, f, &mut rng);
            let expected = oracle::binary(op, f, a, b).expect("oracle covers BINARY_OPS");
            m.compare(op, t, &[a, b], expected);
        }
    }
    m.assert_none(&format!(
        "{t} binary, {SAMPLED_PAIRS} sampled pairs per operation"
    ));
}

const ARITHMETIC: [Opcode; 5] = [
    Opcode::Add,
    Opcode::Subtract,
    Opcode::Multiply,
    Opcode::Divide,
    Opcode::Remainder,
];

#[test]
fn bf16_arithmetic_sampled_pairs() {
    check_sampled_binary(ElementType::Bf16, &ARITHMETIC);
}

#[test]
fn f16_arithmetic_sampled_pairs() {
    check_sampled_binary(ElementType::F16, &ARITHMETIC);
}

#[test]
fn bf16_power_atan2_sampled_pairs() {
    check_sampled_binary(ElementType::Bf16, &[Opcode::Power, Opcode::Atan2]);
}

#[test]
fn f16_power_atan2_sampled_pairs() {
    check_sampled_binary(ElementType::F16, &[Opcode::Power, Opcode::Atan2]);
}

#[test]
fn the_sampler_reaches_every_class() {
    // The bias is real: specials, subnormals and the overflow binade all occur often.
    for t in [ElementType::Bf16, ElementType::F16] {
        let f = format_of(t);
        let mut rng = SplitMix64(1);
        let mut classes = BTreeMap::new();
        for _ in 0..10_000 {
            let x = interesting_operand(f, &mut rng);
            let v = oracle::decode(f, x);
            let class = if v.is_nan() {
                "nan"
            } else if v.is_infinite() {
                "inf"
            } else if v.is_zero() {
                "zero"
            } else if x & (((1u64 << f.exponent_bits) - 1) << f.mantissa_bits) == 0 {
                "subnormal"
            } else {
                "normal"
            };
            *classes.entry(class).or_insert(0) += 1;
        }
        for class in ["nan", "inf", "zero", "subnormal", "normal"] {
            assert!(
                classes.get(class).copied().unwrap_or(0) >= 50,
                "{t}: {classes:?}"
            );
        }
    }
}
