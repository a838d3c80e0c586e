use super::super::eval_element;
use super::super::test_util::*;
use conformance_spec::hlo::ir::Opcode::{self, *};
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::{ElementType, FloatFormat};

const C64: ElementType = ElementType::C64;
const F: FloatFormat = FloatFormat::F32;

fn c(re: f32, im: f32) -> u128 {
    complex_bits(F, re.to_bits() as u64, im.to_bits() as u64)
}

fn parts(bits: u128) -> (f32, f32) {
    let (re, im) = complex_parts(F, bits);
    (f32::from_bits(re as u32), f32::from_bits(im as u32))
}

fn un(op: Opcode, re: f32, im: f32) -> (f32, f32) {
    parts(eval(op, C64, &[c(re, im)]))
}

fn bin(op: Opcode, a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    parts(eval(op, C64, &[c(a.0, a.1), c(b.0, b.1)]))
}

fn bits((re, im): (f32, f32)) -> (u32, u32) {
    (re.to_bits(), im.to_bits())
}

#[test]
fn arithmetic() {
    assert_eq!(bin(Add, (1.0, 2.0), (3.0, -4.0)), (4.0, -2.0));
    assert_eq!(bin(Subtract, (1.0, 2.0), (1.0, 2.0)), (0.0, 0.0));
    assert_eq!(bin(Multiply, (1.0, 2.0), (3.0, 4.0)), (-5.0, 10.0));
    assert_eq!(bin(Divide, (-5.0, 10.0), (3.0, 4.0)), (1.0, 2.0));
    // (1 + 2^-12 i)(1 + 2^-12 i) = 1 − 2^-24 + 2^-11 i: the real part is exact in f32 only as
    // 1 − 2^-24 (0x3f7fffff); a product computed as ac − bd in f32 would also get it, but
    // (1 + 2^-13)(1 − 2^-13) = 1 − 2^-26 rounds to 1 when correctly rounded.
    let e = 2f32.powi(-12);
    assert_eq!(
        bits(bin(Multiply, (1.0, e), (1.0, e))),
        (0x3f7f_ffff, (2.0 * e).to_bits())
    );
    let d = 2f32.powi(-13);
    assert_eq!(bin(Multiply, (1.0, d), (1.0, -d)).0, 1.0);
    // Component subnormals: (2^-140)(2^-10) real part = 2^-150, a tie → 0; imaginary exact.
    let r = bin(
        Multiply,
        (2f32.powi(-140), 2f32.powi(-140)),
        (2f32.powi(-10), 0.0),
    );
    assert_eq!(bits(r), (0, 0));
    let r = bin(
        Multiply,
        (2f32.powi(-140), 2f32.powi(-140)),
        (2f32.powi(-9), 0.0),
    );
    assert_eq!(bits(r), (1, 1));
    assert_eq!(bin(Power, (0.0, 2.0), (2.0, 0.0)), (-4.0, 0.0));
    assert_eq!(bin(Power, (3.0, 4.0), (0.0, 0.0)), (1.0, 0.0));
}

#[test]
fn functions() {
    assert_eq!(un(Exponential, 0.0, 0.0), (1.0, 0.0));
    // f32 π is above π: sin(π_f32) = −8.742278e-8, cos(π_f32) = −0.999999999999996 → −1.
    let (re, im) = un(Exponential, 0.0, std::f32::consts::PI);
    assert_eq!(re, -1.0);
    assert_eq!(im, -8.742278e-8);
    assert_eq!(un(Log, 1.0, 0.0), (0.0, 0.0));
    assert_eq!(un(Log, -1.0, 0.0), (0.0, std::f32::consts::PI));
    assert_eq!(un(Log, -1.0, -0.0), (0.0, -std::f32::consts::PI));
    assert_eq!(un(Sqrt, -4.0, 0.0), (0.0, 2.0));
    assert_eq!(un(Sqrt, -4.0, -0.0), (0.0, -2.0));
    assert_eq!(un(Sqrt, 3.0, 4.0), (2.0, 1.0));
    assert_eq!(un(Sine, 0.0, 0.0), (0.0, 0.0));
    assert_eq!(un(Cosine, 0.0, 0.0), (1.0, -0.0));
    assert_eq!(un(Tanh, 0.0, 0.0), (0.0, 0.0));
    assert_eq!(un(Tan, 0.0, 0.0), (0.0, 0.0));
    assert_eq!(
        bits(un(Negate, 0.0, -1.0)),
        ((-0.0f32).to_bits(), 1.0f32.to_bits())
    );
}

#[test]
fn composites() {
    assert_eq!(un(Sign, 3.0, 4.0), (0.6, 0.8));
    assert_eq!(un(Sign, 0.0, -2.0), (0.0, -1.0));
    assert_eq!(bits(un(Sign, -0.0, 0.0)), (0, 0));
    let (re, im) = un(Sign, 1.0, 1.0);
    assert_eq!(
        (re, im),
        (
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2
        )
    );
    let (re, im) = un(Sign, f32::INFINITY, 1.0);
    assert!(re.is_nan() && im == 0.0);
    assert!(un(Sign, f32::NAN, 1.0).0.is_nan());
    assert_eq!(bits(un(ExponentialMinusOne, -0.0, 0.0)), (0x8000_0000, 0));
    // e − 1 = 1.71828183.
    assert_eq!(bits(un(ExponentialMinusOne, 1.0, 0.0)), (0x3fdb_f0a9, 0));
    // expm1(i·2^-20): re = cos(2^-20) − 1 = −2^-41 (1 − ...), im = sin(2^-20).
    let (re, im) = un(ExponentialMinusOne, 0.0, 2f32.powi(-20));
    assert_eq!(re, -(2f32.powi(-41)));
    assert_eq!(im, 2f32.powi(-20));
    assert_eq!(un(ExponentialMinusOne, f32::NEG_INFINITY, 1.0), (-1.0, 0.0));
    assert_eq!(bits(un(LogPlusOne, -0.0, 0.0)), (0x8000_0000, 0));
    assert_eq!(un(LogPlusOne, -2.0, 0.0), (0.0, std::f32::consts::PI));
    // log1p(2^-30 + i 2^-30): log|1 + z| ≈ 2^-30 (tiny correction), arg ≈ 2^-30.
    let t = 2f32.powi(-30);
    assert_eq!(un(LogPlusOne, t, t), (t, t));
    assert_eq!(un(Rsqrt, 4.0, 0.0), (0.5, -0.0));
    assert_eq!(un(Rsqrt, -4.0, 0.0), (0.0, -0.5));
    assert_eq!(un(Rsqrt, 3.0, 4.0), (0.4, -0.2));
    assert_eq!(un(Logistic, 0.0, 0.0), (0.5, 0.0));
    // Far out on either side the exponential would overflow MPFR's range: no trouble.
    assert_eq!(bits(un(Logistic, -3e38, 1.0)), (0, 0));
    assert_eq!(bits(un(Logistic, -3e38, -2.0)), (0x8000_0000, 0x8000_0000));
    assert_eq!(bits(un(Logistic, 3e38, 1.0)), (0x3f80_0000, 0));
    assert_eq!(bits(un(Logistic, 5000.0, -1.0)), (0x3f80_0000, 0x8000_0000));
    // Just inside the threshold the enclosure decides the signs itself.
    assert_eq!(
        bits(un(Logistic, -4000.0, -2.0)),
        (0x8000_0000, 0x8000_0000)
    );
    assert_eq!(bits(un(Logistic, 4000.0, -1.0)), (0x3f80_0000, 0x8000_0000));
    assert_eq!(
        bits(un(Logistic, -1.0, -0.0)),
        (0.26894143f32.to_bits(), 0x8000_0000)
    );
    // logistic(-1 + i) = 0.21795842936625 + 0.20194822765801i, logistic(2 − 3i) =
    // 1.1541 − 0.0254i: bits from mpmath at 200 bits, rounded once.
    assert_eq!(bits(un(Logistic, -1.0, 1.0)), (0x3e5f_307f, 0x3e4e_cb84));
    assert_eq!(bits(un(Logistic, 2.0, -3.0)), (0x3f93_bb1c, 0xbcd0_8224));
    let (re, im) = un(Logistic, 1.0, 0.0);
    assert_eq!((re, im.to_bits()), (0.7310586, 0));
}

fn un128(op: Opcode, re: f64, im: f64) -> (u64, u64) {
    let z = complex_bits(FloatFormat::F64, re.to_bits(), im.to_bits());
    complex_parts(FloatFormat::F64, eval(op, ElementType::C128, &[z]))
}

/// Regressions: forming 1 + z and taking MPC's log lost x in Re log(1 + z) for small x.
/// Expected bits from mpmath at 400 bits, rounded once (the subnormal imaginary part by
/// rounding the exact value to a multiple of 2^-1074).
#[test]
fn log1p_small_real_part() {
    // log1p(3.3e-13 − 7.2e-22 i) = 3.2999999999994556e-13 − 7.199999999997623e-22 i.
    assert_eq!(
        un128(LogPlusOne, 3.3e-13, -7.2e-22),
        (0x3d57_38c0_62d6_30c2, 0xbb8b_3369_a814_febc)
    );
    // log1p(3.3e-13 + 1.6e-308 i): the old real part was 0.
    assert_eq!(
        un128(LogPlusOne, 3.3e-13, 1.6e-308),
        (0x3d57_38c0_62d6_30c2, 0x000b_8157_268f_d6bd)
    );
    // Re = 1.70117606593701245e-6 (the old result was 1.7011760659369044e-6).
    assert_eq!(
        un128(LogPlusOne, 1.7011775129378366e-6, 1e-20),
        (0x3ebc_8a7e_dd8a_541d, 0x3bc7_9c9e_6aaa_a7fd)
    );
    assert_eq!(
        un128(LogPlusOne, 1.7011775129378366e-6, -3.5e-9),
        (0x3ebc_8a7e_dd8a_c51a, 0xbe2e_1091_7c30_0980)
    );
    // |1 + z| = 1 exactly at z = −1 ± i: Re = +0, Im = ±π/2.
    assert_eq!(
        un128(LogPlusOne, -1.0, 1.0),
        (0, std::f64::consts::FRAC_PI_2.to_bits())
    );
    // y = ±0 with x < −1: (ln|1 + x|, ±π).
    assert_eq!(
        un128(LogPlusOne, -3.0, -0.0),
        (
            std::f64::consts::LN_2.to_bits(),
            (-std::f64::consts::PI).to_bits()
        )
    );
}

/// Property: for many small |x| (and a few large ones) with y ≠ 0, both components match a
/// 300-bit MPFR evaluation of Re = ½·log1p(x(2 + x) + y²), Im = atan2(y, 1 + x), rounded once.
#[test]
fn log1p_matches_wide_evaluation() {
    use crate::round::round_exact;
    use rug::Float;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (fmt, ty) in [(FloatFormat::F64, ElementType::C128), (F, C64)] {
        let (min_exp, max_exp) = if fmt == F { (-149, 127) } else { (-1074, 1023) };
        let mut random = |lo: i32, hi: i32| -> f64 {
            let r = next();
            let e = lo + (r % (hi - lo + 1) as u64) as i32;
            let m = 1.0 + (next() >> 11) as f64 / (1u64 << 53) as f64;
            let v = m * 2f64.powi(e.max(-1022)) * 2f64.powi((e + 1022).min(0));
            let v = if fmt == F { v as f32 as f64 } else { v };
            if r & (1 << 40) != 0 {
                -v
            } else {
                v
            }
        };
        for k in 0..3000 {
            let x = if k % 10 == 9 {
                random(-4, 60)
            } else {
                random(-70, -1)
            };
            let mut y = random(min_exp, if k % 3 == 0 { 0 } else { max_exp.min(40) });
            if y == 0.0 {
                y = 1.0;
            }
            let enc = |v: f64| fmt.encode(v);
            let z = complex_bits(fmt, enc(x), enc(y));
            let got = complex_parts(fmt, eval(LogPlusOne, ty, &[z]));
            let (xf, yf) = (Float::with_val(300, x), Float::with_val(300, y));
            let u = Float::with_val(300, &xf * Float::with_val(300, &xf + 2u32))
                + Float::with_val(300, &yf * &yf);
            let re = Float::with_val(300, u.ln_1p_ref()) / 2u32;
            let im = Float::with_val(300, yf.atan2_ref(&Float::with_val(300, &xf + 1u32)));
            let want = (round_exact(fmt, &re), round_exact(fmt, &im));
            assert_eq!(got, want, "log1p({x:e} + {y:e} i) in {ty}");
        }
    }
}

#[test]
fn real_imag_complex_abs() {
    let i = |op| instr(op, &[]);
    let f32t = ElementType::F32;
    let z = c(3.0, -4.0);
    assert_eq!(
        eval_element(&i(Real), &[C64], &[z], f32t).unwrap(),
        3f32.to_bits() as u128
    );
    assert_eq!(
        eval_element(&i(Imag), &[C64], &[z], f32t).unwrap(),
        (-4f32).to_bits() as u128
    );
    assert_eq!(
        eval_element(&i(Abs), &[C64], &[z], f32t).unwrap(),
        5f32.to_bits() as u128
    );
    assert_eq!(eval_element(&i(Imag), &[f32t], &[z], f32t).unwrap(), 0);
    let one = 1f32.to_bits() as u128;
    assert_eq!(eval_element(&i(Real), &[f32t], &[one], f32t).unwrap(), one);
    let two = 2f32.to_bits() as u128;
    assert_eq!(
        eval_element(&i(Complex), &[f32t, f32t], &[one, two], C64).unwrap(),
        c(1.0, 2.0)
    );
    assert!(eval_element(&i(Complex), &[f32t, f32t], &[one, two], ElementType::C128).is_err());
    assert!(eval_element(&i(Abs), &[C64], &[z], C64).is_err());
    // |(inf, NaN)| = inf (hypot).
    let r = eval_element(&i(Abs), &[C64], &[c(f32::INFINITY, f32::NAN)], f32t).unwrap();
    assert_eq!(r, f32::INFINITY.to_bits() as u128);
    // |(2^-149, 2^-149)| = √2 · 2^-149 → 1 quantum.
    let tiny = f32::from_bits(1);
    assert_eq!(
        eval_element(&i(Abs), &[C64], &[c(tiny, tiny)], f32t).unwrap(),
        1
    );
}
