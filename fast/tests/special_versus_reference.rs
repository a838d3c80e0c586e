//! Differential test of the CHLO special functions against the exact reference backend
//! (`conformance-reference`, correctly rounded): every function on f32, f64, bf16, f16, an f8
//! type and (for the elementary ones) c64 and c128, on moderate values, values in (−1, 1),
//! special values and log-spaced magnitudes.
//!
//! Budgets (distance from the reference's correctly rounded result): 0 ULP on the narrow types
//! (the unary functions are checked exhaustively in `narrow_exhaustive.rs`), 1 ULP on f32, the
//! catalog's f64 budgets, normwise 4 ULP on complex results. Regions the catalog masks or
//! widens by the condition number are left out: lgamma and digamma at x < 0 (next to their
//! negative zeros the error is absolute), zeta at q ≤ 0, polygamma at x ≤ 0, complex operands
//! with non-finite components. Worst distances are printed.

mod common;

use common::single_op;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, ElementType, FloatFormat, Literal, Opcode};

const N: usize = 256;

fn ulps(f: FloatFormat, x: u64, y: u64) -> u64 {
    let nan = |v: u64| f.decode(v).is_nan();
    match (nan(x), nan(y)) {
        (true, true) => 0,
        (false, false) if x == y => 0,
        (false, false) if f.to_ordered(x) == f.to_ordered(y) => 1, // ±0
        (false, false) => f.to_ordered(x).abs_diff(f.to_ordered(y)),
        _ => u64::MAX,
    }
}

/// Normwise distance: each component's error in ULPs of the larger reference component.
fn normwise(f: FloatFormat, got: (u64, u64), want: (u64, u64)) -> u64 {
    let (gr, gi, wr, wi) = (
        f.decode(got.0),
        f.decode(got.1),
        f.decode(want.0),
        f.decode(want.1),
    );
    if [gr, gi, wr, wi].iter().any(|v| !v.is_finite()) {
        return ulps(f, got.0, want.0).max(ulps(f, got.1, want.1));
    }
    let scale = wr.abs().max(wi.abs());
    if scale == 0.0 {
        return if gr == 0.0 && gi == 0.0 { 0 } else { u64::MAX };
    }
    let (_, e) = conformance_spec::element_type::frexp(scale);
    let ulp = conformance_spec::element_type::pow2(e - 1 - f.mantissa_bits as i32);
    ((gr - wr).abs().max((gi - wi).abs()) / ulp).ceil() as u64
}

fn inputs(ty: ElementType, seed: u64) -> Vec<u128> {
    let f = ty.float_format().unwrap();
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -2.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-30,
        3.0,
    ];
    (0..N)
        .map(|i| {
            let r = next();
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            let v = match i % 4 {
                0 => u * 20.0 - 10.0,
                1 => u * 2.0 - 1.0,
                2 => specials[(r >> 40) as usize % specials.len()],
                _ => 10f64.powf(u * 10.0 - 5.0),
            };
            if ty.is_complex() {
                let w = ((next() >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0;
                f.encode(v) as u128 | (f.encode(w) as u128) << f.bit_width()
            } else {
                f.encode(v) as u128
            }
        })
        .collect()
}

/// Masked (left out) elements: see the module documentation.
fn masked(op: Opcode, f: FloatFormat, ty: ElementType, a: u128, b: u128) -> bool {
    if ty.is_complex() {
        let (x, y) = complex_parts(f, a);
        return !(f.decode(x).is_finite() && f.decode(y).is_finite());
    }
    let (x, y) = (f.decode(a as u64), f.decode(b as u64));
    match op {
        Opcode::Lgamma | Opcode::Digamma => x < 0.0,
        Opcode::Zeta | Opcode::Polygamma => y <= 0.0,
        _ => false,
    }
}

fn budget(op: Opcode, ty: ElementType) -> u64 {
    use Opcode::*;
    match ty {
        ElementType::F64 => match op {
            Erfc | Lgamma | Digamma | Zeta | Polygamma => 2,
            _ => 1,
        },
        ElementType::F32 => 1,
        ElementType::C64 | ElementType::C128 => 4,
        _ => 0,
    }
}

#[test]
fn special_functions_agree_with_the_reference() {
    use Opcode::*;
    let unary = [
        Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Erfc, ErfInv, Lgamma, Digamma, BesselI1e,
    ];
    let binary = [NextAfter, Polygamma, Zeta];
    let (mut lines, mut failures) = (vec![], vec![]);
    for ty in [
        ElementType::F32,
        ElementType::F64,
        ElementType::Bf16,
        ElementType::F16,
        ElementType::F8E4M3FN,
        ElementType::C64,
        ElementType::C128,
    ] {
        let f = ty.float_format().unwrap();
        let (a, b) = (inputs(ty, 7 + ty as u64), inputs(ty, 1000 + ty as u64));
        let shape = ArrayShape::new(ty, vec![N as i64]);
        let la: Literal = ArrayLiteral::from_bits(shape.clone(), &a).unwrap().into();
        let lb: Literal = ArrayLiteral::from_bits(shape.clone(), &b).unwrap().into();
        for &op in unary.iter().chain(&binary) {
            let is_binary = binary.contains(&op);
            if ty.is_complex()
                && (is_binary || matches!(op, Erfc | ErfInv | Lgamma | Digamma | BesselI1e))
            {
                continue; // real functions only (both backends reject complex operands)
            }
            let shapes = vec![shape.clone(); 1 + is_binary as usize];
            let m = single_op(op, &shapes, shape.clone(), vec![]);
            let args = if is_binary {
                vec![la.clone(), lb.clone()]
            } else {
                vec![la.clone()]
            };
            let Ok(want) = Reference.execute(&m, &args) else {
                lines.push(format!("{ty} {op}: not in the reference (yet)"));
                continue;
            };
            let got = Fast::new().execute(&m, &args).unwrap();
            let (g, w) = (
                got.as_array().unwrap().logical_bits(),
                want.as_array().unwrap().logical_bits(),
            );
            let mut worst = 0;
            for i in 0..N {
                // For the binary functions the second operand decides the masked region.
                let (first, second) = if is_binary {
                    (a[i], b[i])
                } else {
                    (a[i], a[i])
                };
                if masked(op, f, ty, first, second) {
                    continue;
                }
                let d = if ty.is_complex() {
                    normwise(f, complex_parts(f, g[i]), complex_parts(f, w[i]))
                } else {
                    ulps(f, g[i] as u64, w[i] as u64)
                };
                worst = worst.max(d);
                if d > budget(op, ty) && failures.len() < 30 {
                    failures.push(format!(
                        "{ty} {op} inputs {:#x} {:#x}: fast {:#x}, reference {:#x} ({d} ULP)",
                        a[i], b[i], g[i], w[i]
                    ));
                }
            }
            lines.push(format!("{ty} {op}: worst {worst} ULP"));
        }
    }
    println!("{}", lines.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
