//! The CHLO special functions that JAX emits and MPFR does not provide as one correctly rounded
//! primitive: erf⁻¹ ([`erf_inv`]), I₁(x)e^−|x| ([`bessel`]), the Hurwitz ζ and polygamma
//! ([`zeta`]), nextafter ([`next_after`]), and the condition numbers of all the new real
//! functions ([`condition`]).
//!
//! Each is evaluated as a rigorous enclosure (interval arithmetic over correctly rounded MPFR
//! primitives, with proven truncation bounds) and rounded once into the result's format when the
//! enclosure's bounds round to the same bits ([`crate::ziv::round_enclosure`]); nextafter is exact
//! bit manipulation. The MPFR one-liners (erfc, lgamma, digamma, the inverse trigonometric and
//! hyperbolic functions) are in `unary_float`, their complex forms (MPC) in `complex`.

mod bessel;
mod condition;
mod erf_inv;
mod next_after;
mod zeta;

pub(crate) use bessel::bessel_i1e;
pub use condition::condition_number;
pub(crate) use erf_inv::erf_inv;
pub(crate) use next_after::next_after;
pub(crate) use zeta::{polygamma, zeta};

#[cfg(test)]
mod tests {
    use conformance_spec::element_type::FloatFormat;
    use conformance_spec::FloatClass;
    use rug::Float;
    use std::cmp::Ordering;

    /// Asserts that `r` (bits of `fmt`) is the exact value v rounded once to nearest: the
    /// midpoints between r and its finite neighbours lie on either side of v. `side(m)` is the
    /// order of m relative to v (`Less` when m < v); an exact tie fails.
    pub(crate) fn assert_rounds_once(fmt: FloatFormat, r: u64, side: impl Fn(&Float) -> Ordering) {
        let class = fmt.classify(r);
        assert!(
            !matches!(class, FloatClass::Nan | FloatClass::Infinite),
            "result {r:#x} is not finite"
        );
        let o = fmt.to_ordered(r);
        let value = |ord: i64| {
            let bits = fmt.from_ordered(ord);
            let finite = !matches!(fmt.classify(bits), FloatClass::Nan | FloatClass::Infinite);
            let magnitude_ok = ord.unsigned_abs() <= fmt.max_finite_bits();
            (finite && magnitude_ok).then(|| Float::with_val(64, fmt.decode(bits)))
        };
        let here = Float::with_val(64, fmt.decode(r));
        if let Some(below) = value(o - 1) {
            let mid = Float::with_val(64, &here + &below) >> 1u32;
            assert_eq!(
                side(&mid),
                Ordering::Less,
                "{r:#x}: value below the lower midpoint {mid}"
            );
        }
        if let Some(above) = value(o + 1) {
            let mid = Float::with_val(64, &here + &above) >> 1u32;
            assert_eq!(
                side(&mid),
                Ordering::Greater,
                "{r:#x}: value above the upper midpoint {mid}"
            );
        }
    }
}

/// Inputs that once took long or failed (a huge working precision, 0·inf in an enclosure, an
/// exact cancellation): each must finish (the timing report below shows how fast).
#[cfg(test)]
const HARD_REAL: [f64; 21] = [
    -1e15 + 0.5,
    -2.457024738220839,
    -2.4570247382208,
    1.4616321449683622,
    -0.5040830082644554,
    1e300,
    -1e300,
    5e-324,
    -5e-324,
    1.0 - 1e-16,
    0.9999999999999999,
    27.0,
    26.5,
    1e-310,
    -170.5,
    -171.5,
    -1e6 - 0.25,
    3.0,
    1e15,
    710.0,
    4503599627370496.5,
];

#[cfg(test)]
const HARD_PAIRS: [(f64, f64); 16] = [
    (1.0 + f64::EPSILON, 1e-300),
    (1.0 + f64::EPSILON, 1e300),
    (1e300, 1.0),
    (1e300, 0.5),
    (2.0, -0.5),
    (63.0, -1e15 - 0.5),
    (64.0, -3.5),
    (65.0, -1000.5),
    (3.0, -1e-300),
    (1e6, 5e5),
    (1e6, 1.27e6),
    (1e15, 1e15),
    (1e9, 1e15),
    (30.0, 1e-300),
    (2.0, 5e-324),
    (1.5, 1e300),
];

#[cfg(test)]
mod hard_inputs {
    use super::super::{eval_element, test_util::instr};
    use super::{HARD_PAIRS, HARD_REAL};
    use conformance_spec::hlo::ir::Opcode::{self, *};
    use conformance_spec::ElementType;

    pub(super) const UNARY: [Opcode; 13] = [
        Lgamma, Digamma, Erfc, ErfInv, BesselI1e, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh,
    ];

    #[test]
    fn hard_inputs_finish_without_failure() {
        let t = ElementType::F64;
        for op in UNARY {
            for x in HARD_REAL {
                eval_element(&instr(op, &[]), &[t], &[x.to_bits() as u128], t)
                    .unwrap_or_else(|e| panic!("{op}({x}): {e}"));
            }
        }
        for op in [Zeta, Polygamma, NextAfter] {
            for (a, b) in HARD_PAIRS {
                let a = if op == Polygamma { a.floor() } else { a };
                let args = [a.to_bits() as u128, b.to_bits() as u128];
                eval_element(&instr(op, &[]), &[t, t], &args, t)
                    .unwrap_or_else(|e| panic!("{op}({a}, {b}): {e}"));
            }
        }
    }
}

/// Not a test of speed: `cargo test -p conformance-reference --lib timing_report -- --ignored
/// --nocapture` prints mean and worst evaluation times (random f32/f64 inputs over 10^±8, the
/// hard inputs above, complex inputs, condition numbers).
#[cfg(test)]
mod timing {
    use super::super::test_util::eval;
    use super::hard_inputs::UNARY;
    use super::{HARD_PAIRS, HARD_REAL};
    use conformance_spec::hlo::ir::Opcode::{self, *};
    use conformance_spec::literal::complex_bits;
    use conformance_spec::{ElementType, FloatFormat};
    use std::time::Instant;

    /// (mean, worst) seconds of `op` over the argument lists.
    fn time(op: Opcode, ty: ElementType, inputs: &[Vec<u128>]) -> (f64, f64) {
        let mut worst = 0f64;
        let start = Instant::now();
        for args in inputs {
            let t = Instant::now();
            let _ = eval(op, ty, args);
            worst = worst.max(t.elapsed().as_secs_f64());
        }
        (start.elapsed().as_secs_f64() / inputs.len() as f64, worst)
    }

    fn report(op: Opcode, a32: &[Vec<u128>], a64: &[Vec<u128>]) {
        let (m32, w32) = time(op, ElementType::F32, a32);
        let (m64, w64) = time(op, ElementType::F64, a64);
        eprintln!(
            "{op}: f32 mean {:.1} µs, worst {:.1} µs; f64 mean {:.1} µs, worst {:.1} µs",
            m32 * 1e6,
            w32 * 1e6,
            m64 * 1e6,
            w64 * 1e6
        );
    }

    #[test]
    #[ignore]
    fn timing_report() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        let xs: Vec<f64> = (0..400)
            .map(|i| {
                let mag = ((next() >> 40) as f64 / (1u64 << 24) as f64) * 16.0 - 8.0;
                10f64.powf(mag) * if i % 3 == 0 { -1.0 } else { 1.0 }
            })
            .collect();
        let unit: Vec<f64> = xs.iter().map(|v| v % 1.0).collect();
        let bits32 = |v: f64| (v as f32).to_bits() as u128;
        let bits64 = |v: f64| v.to_bits() as u128;
        for op in UNARY {
            let src = if matches!(op, ErfInv | Asin | Acos | Atanh) {
                &unit
            } else {
                &xs
            };
            let a32: Vec<Vec<u128>> = src.iter().map(|&x| vec![bits32(x)]).collect();
            let a64: Vec<Vec<u128>> = src.iter().map(|&x| vec![bits64(x)]).collect();
            report(op, &a32, &a64);
        }
        let orders = [0.0, 1.0, 2.0, 3.0, 5.0, 10.0];
        for op in [Zeta, Polygamma, NextAfter] {
            let pairs: Vec<(f64, f64)> = (0..xs.len())
                .map(|i| match op {
                    Zeta => (1.0 + unit[i].abs() * 10.0 + (i % 7) as f64, xs[i].abs()),
                    Polygamma => (orders[i % orders.len()], xs[i]),
                    _ => (xs[i], xs[(i + 1) % xs.len()]),
                })
                .collect();
            let a32: Vec<Vec<u128>> = pairs
                .iter()
                .map(|&(a, b)| vec![bits32(a), bits32(b)])
                .collect();
            let a64: Vec<Vec<u128>> = pairs
                .iter()
                .map(|&(a, b)| vec![bits64(a), bits64(b)])
                .collect();
            report(op, &a32, &a64);
        }
        for op in UNARY {
            let args: Vec<Vec<u128>> = HARD_REAL.iter().map(|&x| vec![bits64(x)]).collect();
            eprintln!(
                "{op} hard f64 inputs: worst {:.1} µs",
                time(op, ElementType::F64, &args).1 * 1e6
            );
        }
        for op in [Zeta, Polygamma] {
            let args: Vec<Vec<u128>> = HARD_PAIRS
                .iter()
                .map(|&(a, b)| {
                    vec![
                        bits64(if op == Polygamma { a.floor() } else { a }),
                        bits64(b),
                    ]
                })
                .collect();
            eprintln!(
                "{op} hard f64 inputs: worst {:.1} µs",
                time(op, ElementType::F64, &args).1 * 1e6
            );
        }
        let f = FloatFormat::F64;
        let zs = [
            (1.0, 1e-300),
            (1.0, 0.0),
            (-1.0, -0.0),
            (1e300, 1e300),
            (1e-300, 1e300),
            (1e300, 1e-300),
            (700.0, 1e308),
            (1e-320, 1e-320),
            (0.0, 1.0),
            (5e-324, 1.0),
            (-1e308, 2.0),
            (0.5, 1e-310),
        ];
        let complex: Vec<Vec<u128>> = zs
            .iter()
            .map(|&(re, im)| vec![complex_bits(f, f64::to_bits(re), f64::to_bits(im))])
            .collect();
        for op in [Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh] {
            let (mean, worst) = time(op, ElementType::C128, &complex);
            eprintln!(
                "{op} c128 hard inputs: mean {:.1} µs, worst {:.1} µs",
                mean * 1e6,
                worst * 1e6
            );
        }
        for (op, args) in [
            (Zeta, vec![2.0f64, 1.0]),
            (Polygamma, vec![3.0, -2.5]),
            (BesselI1e, vec![100.0]),
            (ErfInv, vec![0.999]),
            (Lgamma, vec![-2.5]),
            (Asin, vec![0.3]),
        ] {
            let bits: Vec<u128> = args.iter().map(|&x| bits64(x)).collect();
            for ty in [ElementType::F32, ElementType::F64] {
                let bits: Vec<u128> = if ty == ElementType::F32 {
                    args.iter().map(|&x| bits32(x)).collect()
                } else {
                    bits.clone()
                };
                let t = Instant::now();
                let k = crate::condition_number(op, ty, &bits);
                eprintln!(
                    "condition_number({op}, {ty}, {args:?}) = {k:?}: {:.1} µs",
                    t.elapsed().as_secs_f64() * 1e6
                );
            }
        }
    }
}
