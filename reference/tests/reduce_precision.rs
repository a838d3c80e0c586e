//! reduce-precision against conversion through the narrower type (the `half` crate).
//!
//! (5, 10) equals f32 → f16 → f32 wherever the f16 value is normal, zero or infinite (overflow
//! region included). Where it would be an f16 subnormal, XLA's reduce-precision flushes to a zero
//! of the input's sign (see the module docs of the implementation), and so does the reference.
//! (8, 7) keeps f32's exponent range, so it equals f32 → bf16 → f32 everywhere, subnormals too.

mod common;

use common::element;
use conformance_spec::hlo::ir::{AttrValue, Opcode};
use conformance_spec::ElementType::F32;

fn reduce(x: f32, e: i64, m: i64) -> f32 {
    let attrs = [
        ("exponent_bits", AttrValue::Int(e)),
        ("mantissa_bits", AttrValue::Int(m)),
    ];
    f32::from_bits(element(
        Opcode::ReducePrecision,
        &attrs,
        &[F32],
        &[x.to_bits() as u128],
        F32,
    ) as u32)
}

/// Many f32 values: a geometric sweep over the whole range with perturbations, both signs, plus
/// every f32 bit pattern in windows around the f16 thresholds.
fn samples() -> Vec<f32> {
    let mut xs = Vec::new();
    let mut x = f32::from_bits(1) as f64;
    while x < f32::MAX as f64 {
        for v in [x, x * 1.000_000_3, x * 0.999_999_7, x * 1.37] {
            let v = v as f32;
            xs.push(v);
            xs.push(-v);
        }
        x *= 1.011;
    }
    for center in [
        65504.0f32,
        65520.0,
        6.1035156e-5, /* 2^-14 */
        5.9604645e-8, /* 2^-24 */
        1.0,
    ] {
        let c = center.to_bits();
        for b in c - 3000..c + 3000 {
            xs.push(f32::from_bits(b));
            xs.push(-f32::from_bits(b));
        }
    }
    xs
}

#[test]
fn five_ten_is_f16_round_trip_except_f16_subnormals() {
    let min_normal_f16 = 2f32.powi(-14);
    let (mut normal, mut flushed, mut overflow) = (0, 0, 0);
    for x in samples() {
        let got = reduce(x, 5, 10);
        let h = half::f16::from_f32(x);
        let via_f16 = h.to_f32();
        if h.classify() == std::num::FpCategory::Subnormal {
            assert_eq!(
                got.to_bits(),
                if x < 0.0 { 0x8000_0000 } else { 0 },
                "{x:e}: flushed"
            );
            flushed += 1;
        } else {
            assert_eq!(got.to_bits(), via_f16.to_bits(), "{x:e}");
            if via_f16.is_infinite() {
                overflow += 1;
            } else if via_f16.abs() >= min_normal_f16 {
                normal += 1;
            }
        }
    }
    assert!(
        normal > 10_000 && flushed > 1_000 && overflow > 1_000,
        "{normal} {flushed} {overflow}"
    );
}

#[test]
fn eight_seven_is_bf16_round_trip_everywhere() {
    for x in samples() {
        let via = half::bf16::from_f32(x).to_f32();
        assert_eq!(reduce(x, 8, 7).to_bits(), via.to_bits(), "{x:e}");
    }
    for special in [f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0] {
        assert_eq!(reduce(special, 8, 7).to_bits(), special.to_bits());
        assert_eq!(reduce(special, 5, 10).to_bits(), special.to_bits());
    }
    assert!(reduce(f32::NAN, 5, 10).is_nan());
    assert!(reduce(f32::NAN, 2, 0).is_nan());
}
