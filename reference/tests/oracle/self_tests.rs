//! Tests of the oracle itself (`tests/oracle/mod.rs`), against independent paths: the shared
//! `FloatFormat::decode`, the hardware's IEEE 754 arithmetic and conversions (`f64` ops,
//! `f64 as f32`), the `half` crate's `f32 → f16/bf16` conversions, and glibc's `f64` functions
//! where the `f32` answer cannot depend on glibc's last-bit error.
//!
//! Included (through `#[path]`) by exactly one test binary, `correctly_rounded_16bit.rs`.

use std::cmp::Ordering;

use conformance_spec::{ElementType, FloatFormat, Opcode};
use proptest::prelude::*;
use rug::Float;

use crate::oracle::{self, SplitMix64, WORKING_PRECISION};

fn small_formats() -> Vec<(ElementType, FloatFormat)> {
    ElementType::ALL
        .into_iter()
        .filter(|t| t.is_float() && t.bit_width() <= 16)
        .map(|t| (t, t.float_format().expect("float type has a format")))
        .collect()
}

fn exact(x: f64) -> Float {
    Float::with_val(WORKING_PRECISION, x)
}

#[test]
fn decode_agrees_with_the_shared_decoder_on_every_small_pattern() {
    for (t, f) in small_formats() {
        for bits in 0..(1u64 << f.bit_width()) {
            let ours = oracle::decode(f, bits);
            let theirs = f.decode(bits);
            if theirs.is_nan() {
                assert!(ours.is_nan(), "{t} {bits:#x}: {ours} should be NaN");
                assert!(oracle::is_nan(f, bits));
                continue;
            }
            assert!(!oracle::is_nan(f, bits), "{t} {bits:#x}");
            assert_eq!(ours, theirs, "{t} {bits:#x}");
            assert_eq!(
                ours.is_sign_negative(),
                theirs.is_sign_negative(),
                "{t} {bits:#x}: sign"
            );
        }
    }
}

#[test]
fn rounding_a_representable_value_is_the_identity() {
    for (t, f) in small_formats() {
        for bits in 0..(1u64 << f.bit_width()) {
            if oracle::is_nan(f, bits) {
                assert!(oracle::is_nan(
                    f,
                    oracle::round_to_format(f, &oracle::decode(f, bits), Ordering::Equal)
                ));
                continue;
            }
            let x = oracle::decode(f, bits);
            // Any ternary: the exact value is within a 256-bit ulp of a representable value.
            for t_ in [Ordering::Less, Ordering::Equal, Ordering::Greater] {
                assert_eq!(
                    oracle::round_to_format(f, &x, t_),
                    bits,
                    "{t} {bits:#x} {t_:?}"
                );
            }
        }
    }
}

#[test]
fn ties_go_to_even_or_follow_the_ternary() {
    let f = FloatFormat::F32;
    // 1 + 2^-24 is the midpoint between 1 (even) and 1 + 2^-23.
    let mid = Float::with_val(WORKING_PRECISION, 1.0f64 + 2f64.powi(-24));
    assert_eq!(
        oracle::round_to_format(f, &mid, Ordering::Equal),
        0x3f80_0000
    );
    // The 256-bit value was rounded up: the exact value is below the midpoint.
    assert_eq!(
        oracle::round_to_format(f, &mid, Ordering::Greater),
        0x3f80_0000
    );
    // Rounded down: the exact value is above the midpoint.
    assert_eq!(
        oracle::round_to_format(f, &mid, Ordering::Less),
        0x3f80_0001
    );
    // 1 + 3·2^-24: between 1 + 2^-23 (odd) and 1 + 2^-22 (even).
    let mid = Float::with_val(WORKING_PRECISION, 1.0f64 + 3.0 * 2f64.powi(-24));
    assert_eq!(
        oracle::round_to_format(f, &mid, Ordering::Equal),
        0x3f80_0002
    );
    assert_eq!(
        oracle::round_to_format(f, &mid, Ordering::Greater),
        0x3f80_0001
    );
    // Negative values: the ternary is about the signed value.
    let neg = Float::with_val(WORKING_PRECISION, -(1.0f64 + 2f64.powi(-24)));
    assert_eq!(
        oracle::round_to_format(f, &neg, Ordering::Greater),
        0xbf80_0001
    );
    assert_eq!(
        oracle::round_to_format(f, &neg, Ordering::Less),
        0xbf80_0000
    );
    // Subnormal midpoint 1.5 · 2^-149 (between 1 and 2 quanta): even is 2.
    let sub = Float::with_val(WORKING_PRECISION, 1.5 * 2f64.powi(-149));
    assert_eq!(oracle::round_to_format(f, &sub, Ordering::Equal), 2);
    assert_eq!(oracle::round_to_format(f, &sub, Ordering::Greater), 1);
    // Half the smallest subnormal: ties to +0, or up when the exact value is larger.
    let half = Float::with_val(WORKING_PRECISION, 2f64.powi(-150));
    assert_eq!(oracle::round_to_format(f, &half, Ordering::Equal), 0);
    assert_eq!(oracle::round_to_format(f, &half, Ordering::Less), 1);
    assert_eq!(
        oracle::round_to_format(f, &-half, Ordering::Equal),
        0x8000_0000
    );
    // Overflow threshold: max + half ulp = 2^128 − 2^103 ties to 2^128 (even), i.e. overflows.
    let thr = Float::with_val(WORKING_PRECISION, 2f64.powi(128) - 2f64.powi(103));
    assert_eq!(
        oracle::round_to_format(f, &thr, Ordering::Equal),
        0x7f80_0000
    );
    assert_eq!(
        oracle::round_to_format(f, &thr, Ordering::Greater),
        0x7f7f_ffff
    );
}

#[test]
fn small_format_specials_follow_the_format_rules() {
    let fmt = |t: ElementType| t.float_format().expect("float type");
    let e4m3fn = fmt(ElementType::F8E4M3FN);
    assert_eq!(
        oracle::round_to_format(e4m3fn, &exact(464.0), Ordering::Equal),
        0x7e
    );
    assert!(oracle::is_nan(
        e4m3fn,
        oracle::round_to_format(e4m3fn, &exact(470.0), Ordering::Equal)
    ));
    assert!(oracle::is_nan(
        e4m3fn,
        oracle::round_to_format(e4m3fn, &exact(f64::INFINITY), Ordering::Equal)
    ));
    let fnuz = fmt(ElementType::F8E4M3FNUZ);
    assert_eq!(
        oracle::round_to_format(fnuz, &exact(-0.0), Ordering::Equal),
        0
    );
    assert_eq!(
        oracle::round_to_format(fnuz, &exact(240.0), Ordering::Equal),
        0x7f
    );
    assert_eq!(
        oracle::round_to_format(fnuz, &exact(248.0), Ordering::Equal),
        0x80
    );
    assert_eq!(oracle::unary(Opcode::Negate, fnuz, 0).unwrap(), 0);
    assert_eq!(oracle::binary(Opcode::Divide, fnuz, 0x38, 0).unwrap(), 0x80);
    let f16 = FloatFormat::F16;
    assert_eq!(
        oracle::round_to_format(f16, &exact(65519.99), Ordering::Equal),
        0x7bff
    );
    assert_eq!(
        oracle::round_to_format(f16, &exact(65520.0), Ordering::Equal),
        0x7c00
    );
    assert_eq!(
        oracle::round_to_format(f16, &exact(-65520.0), Ordering::Equal),
        0xfc00
    );
    // Seed 004: Sign of -0 is -0, Rsqrt is 1/sqrt(x) so rsqrt(-0) = -inf, Rem takes the dividend's sign.
    assert_eq!(oracle::unary(Opcode::Sign, f16, 0x8000).unwrap(), 0x8000);
    assert_eq!(oracle::unary(Opcode::Sign, f16, 0xc500).unwrap(), 0xbc00);
    assert_eq!(oracle::unary(Opcode::Rsqrt, f16, 0x8000).unwrap(), 0xfc00);
    assert_eq!(oracle::unary(Opcode::Rsqrt, f16, 0x4400).unwrap(), 0x3800); // 1/sqrt(4) = 0.5
    assert_eq!(
        oracle::binary(Opcode::Remainder, f16, 0xc500, 0x4000).unwrap(),
        0xbc00
    ); // -5 % 2 = -1
    assert_eq!(
        oracle::unary(Opcode::RoundNearestAfz, f16, 0x3800).unwrap(),
        0x3c00
    ); // 0.5 -> 1
    assert_eq!(
        oracle::unary(Opcode::RoundNearestEven, f16, 0x3800).unwrap(),
        0x0000
    ); // 0.5 -> 0
    assert_eq!(oracle::unary(Opcode::Ceil, f16, 0xb800).unwrap(), 0x8000); // ceil(-0.5) = -0
    assert_eq!(oracle::unary(Opcode::Logistic, f16, 0).unwrap(), 0x3800); // exactly 1/2
    assert_eq!(
        oracle::unary(Opcode::Logistic, f16, 0x7c00).unwrap(),
        0x3c00
    );
    assert_eq!(oracle::unary(Opcode::Logistic, f16, 0xfc00).unwrap(), 0);
    assert!(oracle::is_nan(
        f16,
        oracle::unary(Opcode::Log, f16, 0xbc00).unwrap()
    ));
    assert_eq!(oracle::unary(Opcode::Log, f16, 0x8000).unwrap(), 0xfc00);
}

/// The f32 result of glibc's f64 function, when it cannot depend on glibc's last-bit error
/// (the f64 value is more than 2^10 f64 ulps from every f32 midpoint).
fn glibc_f32_when_safe(y: f64) -> Option<u32> {
    match oracle::f32_midpoint_distance(y) {
        Some(d) if d > 1 << 10 => Some((y as f32).to_bits()),
        None if y.is_infinite() || y == 0.0 => Some((y as f32).to_bits()),
        _ => None,
    }
}

/// An f64 function of the platform's libm.
type LibmFn = fn(f64) -> f64;

#[test]
fn f32_transcendentals_agree_with_glibc_away_from_midpoints() {
    let cases: [(Opcode, LibmFn); 13] = [
        (Opcode::Exponential, f64::exp),
        (Opcode::ExponentialMinusOne, f64::exp_m1),
        (Opcode::Log, f64::ln),
        (Opcode::LogPlusOne, f64::ln_1p),
        (Opcode::Sine, f64::sin),
        (Opcode::Cosine, f64::cos),
        (Opcode::Tan, f64::tan),
        (Opcode::Tanh, f64::tanh),
        (Opcode::Cbrt, f64::cbrt),
        (Opcode::Sqrt, f64::sqrt),
        (Opcode::Rsqrt, |x| 1.0 / x.sqrt()),
        (Opcode::Logistic, |x| 1.0 / (1.0 + (-x).exp())),
        (Opcode::Erf, erf_f64),
    ];
    let mut rng = SplitMix64(7);
    let mut compared = 0;
    for (op, libm) in cases {
        for i in 0..3000 {
            // Half the inputs in [-20, 20], half over all bit patterns.
            let x_bits = if i % 2 == 0 {
                ((rng.next_u64() as f64 / u64::MAX as f64 * 40.0 - 20.0) as f32).to_bits()
            } else {
                rng.next_u64() as u32
            };
            let x = f32::from_bits(x_bits);
            if x.is_nan() {
                continue;
            }
            let Some(expected) = glibc_f32_when_safe(libm(x as f64)) else {
                continue;
            };
            if op == Opcode::Logistic && x.abs() > 80.0 {
                continue; // The f64 formula loses the tail below 2^-126 relative.
            }
            let got = oracle::unary(op, FloatFormat::F32, x_bits as u64).unwrap() as u32;
            let both_nan = f32::from_bits(expected).is_nan() && f32::from_bits(got).is_nan();
            assert!(
                both_nan || got == expected,
                "{op} f32 {x_bits:#010x}: oracle {got:#010x}, glibc {expected:#010x}"
            );
            compared += 1;
        }
    }
    assert!(compared > 30_000, "only {compared} comparisons");
}

/// erf in f64 from the `libm` crate (Rust has no `f64::erf`; error below 1 f64 ulp).
fn erf_f64(x: f64) -> f64 {
    libm::erf(x)
}

#[test]
fn known_values() {
    let f32f = FloatFormat::F32;
    // exp(-88) ≈ 6.0546e-39 is an f32 subnormal.
    let r = oracle::unary(Opcode::Exponential, f32f, (-88.0f32).to_bits() as u64).unwrap();
    assert_eq!(f32::from_bits(r as u32), (-88.0f64).exp() as f32);
    assert!(f32::from_bits(r as u32).is_subnormal());
    assert_eq!(
        oracle::unary(Opcode::Sqrt, f32f, 4.0f32.to_bits() as u64).unwrap(),
        2.0f32.to_bits() as u64
    );
    assert_eq!(
        oracle::unary(Opcode::Log, f32f, 1.0f32.to_bits() as u64).unwrap(),
        0
    );
    assert_eq!(
        oracle::unary(Opcode::Sine, f32f, 0x8000_0000).unwrap(),
        0x8000_0000
    );
    assert_eq!(
        oracle::unary(Opcode::Tanh, f32f, 0x7f80_0000).unwrap(),
        1.0f32.to_bits() as u64
    );
    assert_eq!(
        oracle::unary(Opcode::Erf, f32f, 0xff80_0000).unwrap(),
        (-1.0f32).to_bits() as u64
    );
    // pow and atan2 special values (C99 Annex F).
    assert_eq!(
        oracle::binary(Opcode::Power, f32f, f32::NAN.to_bits() as u64, 0).unwrap(),
        1.0f32.to_bits() as u64
    );
    assert_eq!(
        oracle::binary(
            Opcode::Power,
            f32f,
            2.0f32.to_bits() as u64,
            10.0f32.to_bits() as u64
        )
        .unwrap(),
        1024.0f32.to_bits() as u64
    );
    assert_eq!(
        oracle::binary(Opcode::Atan2, f32f, 0, 0x8000_0000).unwrap(),
        std::f32::consts::PI.to_bits() as u64
    );
    assert_eq!(
        oracle::binary(Opcode::Atan2, f32f, 0x8000_0000, 0).unwrap(),
        0x8000_0000
    );
    assert!(oracle::is_nan(
        f32f,
        oracle::binary(Opcode::Remainder, f32f, 1.0f32.to_bits() as u64, 0).unwrap()
    ));
}

#[test]
fn midpoint_distance_counts_f64_ulps() {
    let mid = 1.0f64 + 2f64.powi(-24);
    assert_eq!(oracle::f32_midpoint_distance(mid), Some(0));
    assert_eq!(
        oracle::f32_midpoint_distance(f64::from_bits(mid.to_bits() + 3)),
        Some(3)
    );
    assert_eq!(
        oracle::f32_midpoint_distance(-f64::from_bits(mid.to_bits() - 2)),
        Some(2)
    );
    assert_eq!(oracle::f32_midpoint_distance(1.0), Some(1 << 28));
    // f32 subnormal range: midpoints at odd multiples of 2^-150.
    assert_eq!(
        oracle::f32_midpoint_distance(3.0 * 2f64.powi(-150)),
        Some(0)
    );
    assert_eq!(oracle::f32_midpoint_distance(2f64.powi(-150)), Some(0));
    let near = f64::from_bits((5.0 * 2f64.powi(-150)).to_bits() + 1);
    assert_eq!(oracle::f32_midpoint_distance(near), Some(1));
    // The overflow threshold is a midpoint; 2^128 and beyond round to inf either way.
    assert_eq!(
        oracle::f32_midpoint_distance(2f64.powi(128) - 2f64.powi(103)),
        Some(0)
    );
    assert_eq!(oracle::f32_midpoint_distance(2f64.powi(128)), None);
    assert_eq!(oracle::f32_midpoint_distance(f64::NAN), None);
    assert_eq!(oracle::f32_midpoint_distance(0.0), None);
}

fn arbitrary_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        // Around the f32 range, including its subnormals and overflow threshold.
        (-160i32..=130, any::<u64>(), any::<bool>()).prop_map(|(e, m, neg)| {
            let x = f64::from_bits((((1023 + e) as u64) << 52) | (m >> 12));
            if neg {
                -x
            } else {
                x
            }
        }),
        // Exact midpoints between neighbouring f32 values (ties), subnormal ones and the
        // overflow threshold included.
        (any::<u32>(), any::<bool>()).prop_map(|(bits, neg)| {
            let lo = f32::from_bits(bits & 0x7f7f_ffff) as f64;
            let hi = f32::from_bits((bits & 0x7f7f_ffff) + 1) as f64;
            let hi = if hi.is_infinite() { 2f64.powi(128) } else { hi };
            let mid = (lo + hi) / 2.0;
            if neg {
                -mid
            } else {
                mid
            }
        }),
    ]
}

/// f32 bit patterns: uniform, or exact midpoints between neighbouring f16 or bf16 values.
fn f32_for_half() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        any::<u16>().prop_map(|b| {
            let lo = half::f16::from_bits(b & 0x7bff).to_f32() as f64;
            let hi = half::f16::from_bits((b & 0x7bff) + 1).to_f32() as f64;
            let hi = if hi.is_infinite() { 65536.0 } else { hi };
            let mid = ((lo + hi) / 2.0) as f32; // exact: 12 significant bits
            mid.to_bits() | (b as u32 & 0x8000) << 16
        }),
        any::<u16>().prop_map(|b| {
            let lo = half::bf16::from_bits(b & 0x7f7f).to_f32() as f64;
            let hi = half::bf16::from_bits((b & 0x7f7f) + 1).to_f32() as f64;
            let hi = if hi.is_infinite() { 2f64.powi(128) } else { hi };
            let mid = ((lo + hi) / 2.0) as f32; // exact: 9 significant bits (or 2^128 − 2^119)
            mid.to_bits() | (b as u32 & 0x8000) << 16
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Rounding an exact f64 into f32 matches the hardware's `f64 as f32` (IEEE 754
    /// convertFormat, round to nearest even, with subnormals and overflow).
    #[test]
    fn f64_to_f32_matches_the_hardware(x in arbitrary_f64()) {
        let got = oracle::round_to_format(FloatFormat::F32, &exact(x), Ordering::Equal) as u32;
        let want = (x as f32).to_bits();
        prop_assert!(got == want || (f32::from_bits(got).is_nan() && x.is_nan()),
            "{x:e}: {got:#010x} != {want:#010x}");
    }

    /// Rounding into f16 and bf16 matches the `half` crate on f32 inputs.
    #[test]
    fn f32_to_half_matches_the_half_crate(bits in f32_for_half()) {
        let x = f32::from_bits(bits);
        prop_assume!(!x.is_nan());
        let v = exact(x as f64);
        prop_assert_eq!(oracle::round_to_format(FloatFormat::F16, &v, Ordering::Equal),
            half::f16::from_f32(x).to_bits() as u64);
        prop_assert_eq!(oracle::round_to_format(FloatFormat::BF16, &v, Ordering::Equal),
            half::bf16::from_f32(x).to_bits() as u64);
    }

    /// f64 and f32 add, subtract, multiply, divide, sqrt and remainder are correctly rounded in
    /// hardware (IEEE 754): the oracle's results must be the same bits.
    #[test]
    fn ieee_arithmetic_matches_the_hardware(a in arbitrary_f64(), b in arbitrary_f64()) {
        let f64f = FloatFormat::F64;
        let hw: [(Opcode, f64); 5] = [
            (Opcode::Add, a + b),
            (Opcode::Subtract, a - b),
            (Opcode::Multiply, a * b),
            (Opcode::Divide, a / b),
            (Opcode::Remainder, a % b),
        ];
        for (op, want) in hw {
            let got = oracle::binary(op, f64f, a.to_bits(), b.to_bits()).unwrap();
            prop_assert!(got == want.to_bits() || (want.is_nan() && oracle::is_nan(f64f, got)),
                "{op} {a:e} {b:e}: {got:#x} != {:#x}", want.to_bits());
        }
        let got = oracle::unary(Opcode::Sqrt, f64f, a.to_bits()).unwrap();
        prop_assert!(got == a.sqrt().to_bits() || (a.sqrt().is_nan() && oracle::is_nan(f64f, got)));
        let (a32, b32) = (a as f32, b as f32);
        let f32f = FloatFormat::F32;
        let hw32: [(Opcode, f32); 4] = [
            (Opcode::Add, a32 + b32),
            (Opcode::Multiply, a32 * b32),
            (Opcode::Divide, a32 / b32),
            (Opcode::Remainder, a32 % b32),
        ];
        for (op, want) in hw32 {
            let got = oracle::binary(op, f32f, a32.to_bits() as u64, b32.to_bits() as u64).unwrap();
            prop_assert!(got == want.to_bits() as u64 || (want.is_nan() && oracle::is_nan(f32f, got)),
                "{op} f32 {a32:e} {b32:e}: {got:#x} != {:#x}", want.to_bits());
        }
    }
}
