use super::super::super::test_util::*;
use super::super::tests::assert_rounds_once;
use super::*;
use conformance_spec::hlo::ir::Opcode::{Digamma, Polygamma, Zeta};
use conformance_spec::ElementType;
use rug::float::Constant;

const F64: FloatFormat = FloatFormat::F64;

fn pi(prec: u32) -> Float {
    Float::with_val(prec, Constant::Pi)
}

/// ζ(s) by MPFR at 400 bits (an independent implementation of the q = 1 case).
fn riemann(s: f64) -> Float {
    Float::with_val(400, Float::with_val(53, s).zeta_ref())
}

#[test]
fn zeta_known_values() {
    let round = |v: Float| crate::round::round_exact(F64, &v);
    let pi2 = Float::with_val(400, pi(400).square_ref());
    assert_eq!(
        f64op(Zeta, &[2.0, 1.0]).to_bits(),
        round(Float::with_val(400, &pi2 / 6u32))
    );
    assert_eq!(f64op(Zeta, &[2.0, 1.0]), 1.6449340668482264);
    let pi4 = Float::with_val(400, pi2.square_ref());
    assert_eq!(f64op(Zeta, &[4.0, 1.0]).to_bits(), round(pi4 / 90u32));
    assert_eq!(f64op(Zeta, &[3.0, 1.0]), 1.2020569031595942); // Apéry's constant
    assert_eq!(
        f64op(Zeta, &[2.0, 0.5]).to_bits(),
        round(Float::with_val(400, &pi2 / 2u32))
    );
    // mpmath.zeta(s, q) at 400 bits, rounded to f64.
    for (s, q, want) in [
        (2.5, 0.1, 0x4073d53ea48f9663u64),
        (1.0000001, 3.0, 0x416312cfe248b87e),
        (7.25, 1234.5, 0x3bc20d5af0e7ba4a),
        (40.0, 0.75, 0x40f846d550e37b5d),
        (3.0, 1e-05, 0x430c6bf526340008),
        (1.5, 1000000.0, 0x3f60624e17a9dabd),
    ] {
        assert_eq!(f64op(Zeta, &[s, q]).to_bits(), want, "zeta({s}, {q})");
    }
    // mpmath at 400 bits (900 for the random sweeps), rounded to f32; inputs as f32 bits.
    for (s, q, want) in [
        (0x40fd1335, 0x40ce6bdc, 0x3522b55c),
        (0x413bc290, 0x41870fa4, 0x28175a47),
        (0x41993272, 0x3b3c719f, 0x7f800000),
        (0x3fb2248a, 0x44361055, 0x3e45c39f),
        (0x41087572, 0x3d32ed65, 0x52b7cedb),
        (0x41eefd6d, 0x3ffaa474, 0x3103662a),
        (0x41ca1278, 0x400a3ef7, 0x3174b765),
        (0x419c4aed, 0x3c39aac6, 0x7e9ab172),
    ] {
        let (s, q) = (f32::from_bits(s), f32::from_bits(q));
        assert_eq!(f32op(Zeta, &[s, q]).to_bits(), want, "zeta({s}, {q})");
    }
}

#[test]
fn zeta_matches_riemann_zeta_relations() {
    // ζ(s, 1) = ζ(s), ζ(s, 2) = ζ(s) − 1, ζ(s, ½) = (2^s − 1)ζ(s), over s in (1, 70).
    let mut state = 99u64;
    for _ in 0..150 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let s = 1.0 + (state >> 11) as f64 / (1u64 << 53) as f64 * 69.0;
        let z = riemann(s);
        let at_two = Float::with_val(400, &z - 1u32);
        let two_s = Float::with_val(
            400,
            Pow::pow(Float::with_val(400, 2u32), &Float::with_val(53, s)),
        );
        let at_half = Float::with_val(400, Float::with_val(400, two_s - 1u32) * &z);
        for (q, v) in [(1.0, &z), (2.0, &at_two), (0.5, &at_half)] {
            let want = crate::round::round_exact(F64, v);
            assert_eq!(f64op(Zeta, &[s, q]).to_bits(), want, "zeta({s}, {q})");
        }
    }
}

#[test]
fn zeta_special_values_and_domain() {
    let z = |s: f32, q: f32| f32op(Zeta, &[s, q]);
    let inf = f32::INFINITY;
    assert!(z(f32::NAN, 1.0).is_nan() && z(2.0, f32::NAN).is_nan());
    assert!(z(0.5, 1.0).is_nan()); // s < 1: not computed
    assert!(z(-2.0, 1.0).is_nan() && z(f32::NEG_INFINITY, 1.0).is_nan());
    assert_eq!(z(1.0, 1.0), inf);
    assert_eq!(z(1.0, -0.5), inf);
    assert!(z(1.0, -3.0).is_nan());
    assert_eq!(z(inf, 2.0).to_bits(), 0);
    assert_eq!(z(inf, 1.0), 1.0);
    assert_eq!(z(inf, 0.5), inf);
    assert!(z(inf, -0.5).is_nan());
    assert_eq!(z(2.0, inf).to_bits(), 0);
    assert!(z(2.0, f32::NEG_INFINITY).is_nan());
    // Poles at non-positive integer q: +inf for even s, NaN for odd s.
    assert_eq!(z(2.0, 0.0), inf);
    assert_eq!(z(4.0, -0.0), inf);
    assert_eq!(z(2.0, -3.0), inf);
    assert!(z(3.0, -3.0).is_nan());
    // q < 0 with non-integer s: not real.
    assert!(z(2.5, -0.5).is_nan());
    // Huge s: 1 + 2^−s... rounds to 1; q < 1 overflows; q > 1 underflows.
    assert_eq!(z(1e30, 1.0), 1.0);
    assert_eq!(z(f32::MAX, 1.0), 1.0);
    assert_eq!(z(1e30, 0.999), inf);
    assert_eq!(z(1e30, 1.001).to_bits(), 0);
    assert_eq!(z(f32::MAX, f32::from_bits(1)), inf);
    // Subnormal results: ζ(s, q) ≈ q^(1−s)/(s−1) for large q.
    let r = z(2.0, 1e38);
    assert!(r > 0.0 && r < f32::MIN_POSITIVE, "{r}");
    // 1/q + 1/(2q²) + ...: the correction is 10^−38 relative, far below the subnormal spacing.
    assert_eq!(r.to_bits(), ((1.0 / (1e38f32 as f64)) as f32).to_bits());
    // s barely above 1: ζ(1 + 2⁻²³, 1) ≈ 2²³ + γ.
    let r = z(1.0 + f32::EPSILON, 1.0);
    assert_eq!(r, 8_388_608.0 + 0.577_215_7);
    // ζ(53, 1) = 1 + 2^−53 + 3^−53 + ...: just above the f64 tie 1 + 2^−53, so 1 + 2^−52.
    assert_eq!(f64op(Zeta, &[53.0, 1.0]), 1.0 + f64::EPSILON);
    assert_eq!(f64op(Zeta, &[54.0, 1.0]), 1.0);
}

#[test]
fn zeta_negative_q_paths() {
    // ζ(2, −½) = 4 + π²/2 (one negative term, then ζ(2, ½) = 3ζ(2)).
    let pi2 = Float::with_val(400, pi(400).square_ref());
    let want = Float::with_val(400, Float::with_val(400, &pi2 / 2u32) + 4u32);
    assert_eq!(
        f64op(Zeta, &[2.0, -0.5]).to_bits(),
        crate::round::round_exact(F64, &want)
    );
    // s = 65 > 64 takes the direct negative sum: ζ(65, −½) = 2^65·(λ(65) − 1), λ(s) =
    // (1 − 2^−s)ζ(s), a cancellation of 65 bits; mpmath: 3.5815264381056028e-12.
    assert_eq!(f64op(Zeta, &[65.0, -0.5]).to_bits(), 0x3d8f80e16cc6923c);
    // Against the plain sum of the m = ⌈−q⌉ negative terms (exact bases, 2000 bits) plus
    // ζ(s, q + m), including odd s at half-integers (where the three-term formula skips an exact
    // cancellation) and near them.
    for (s, q) in [
        (2u32, -0.3),
        (3, -2.7),
        (3, -2.5),
        (5, -7.125),
        (8, -0.999),
        (17, -30.5),
        (17, -30.500000000000004),
        (64, -1.5),
        (65, -1.25),
        (101, -3.5),
    ] {
        let q = Float::with_val(53, q);
        let m = Float::with_val(53, -&q).ceil().to_u32_saturating().unwrap();
        let mut sum = Float::with_val(2000, 0u32);
        for k in 0..m {
            let base = Float::with_val(2000, &q + k);
            sum += Float::with_val(2000, Pow::pow(&base, -(s as i32)));
        }
        let rest = hurwitz(
            &Float::with_val(32, s),
            &Interval::point(&Float::with_val(200, &q + m)),
            1500,
        )
        .unwrap();
        let (lo, hi) = (
            Float::with_val(2000, &sum + &rest.lo),
            Float::with_val(2000, &sum + &rest.hi),
        );
        let got = negative_q(s, &q, 200).unwrap();
        let slack = Float::with_val(64, Float::with_val(64, hi.abs_ref()) >> 1400u32);
        assert!(got.lo <= Float::with_val(2000, &hi + &slack), "s={s} q={q}");
        assert!(Float::with_val(2000, &lo - &slack) <= got.hi, "s={s} q={q}");
        let width = Float::with_val(300, &got.hi - &got.lo);
        assert!(
            width <= Float::with_val(300, got.hi.abs_ref()) >> 150u32,
            "s={s} q={q}: too wide"
        );
    }
    // Odd s at a half-integer: ζ(s, −m − ½) = ζ(s, m + 3/2) exactly (the negative terms cancel
    // the first terms of the positive ones); far from zero it is tiny but exact.
    let a = f64op(Zeta, &[65.0, -1000.5]);
    let b = f64op(Zeta, &[65.0, 1001.5]);
    assert_eq!(a.to_bits(), b.to_bits());
    assert!(a > 0.0 && a < 1e-190, "{a}");
    // Far from zero (q = −1e15 + ½): ζ(2, q) = π²/sin²(πq) − ζ(2, 1e15 + ½) ≈ π² − 1e−15.
    let r = f64op(Zeta, &[2.0, -1e15 + 0.5]);
    let want = crate::round::round_exact(F64, &pi2);
    assert!(r.to_bits().abs_diff(want) <= 1, "{r}");
    // Beyond the limit s ≤ 2^19: NaN (not computed).
    assert!(f64op(Zeta, &[524289.0, -0.5]).is_nan());
    assert!(
        f64op(Zeta, &[524288.0, -0.25]).is_finite()
            || f64op(Zeta, &[524288.0, -0.25]).is_infinite()
    );
}

#[test]
fn zeta_is_decreasing_in_q_and_consistent_on_random_f32() {
    let mut state = 5u64;
    for _ in 0..300 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let s = 1.0 + ((state >> 40) as f32 / (1u32 << 24) as f32) * 20.0;
        let q = f32::from_bits(0x3000_0000 + ((state >> 8) as u32 % 0x1400_0000)); // 4.7e-10 .. 8.6e3
        let q2 = f32::from_bits(q.to_bits() + 1 + (state as u32 % 1000));
        let (a, b) = (f32op(Zeta, &[s, q]), f32op(Zeta, &[s, q2]));
        assert!(a >= b, "zeta({s}, {q}) = {a} < zeta({s}, {q2}) = {b}");
        // ζ(s, q) = q^−s + ζ(s, q+1): the enclosures at 200 bits intersect.
        let sf = Float::with_val(24, s);
        let qf = Float::with_val(24, q);
        let left = hurwitz(&sf, &Interval::point(&qf), 200).unwrap();
        let q1 = Float::with_val(200, &qf + 1u32);
        let right = hurwitz(&sf, &Interval::point(&q1), 200).unwrap();
        let first = Float::with_val(220, Pow::pow(&qf, &Float::with_val(24, -s)));
        let lo = Float::with_val(300, &right.lo + &first);
        let hi = Float::with_val(300, &right.hi + &first);
        let tol = Float::with_val(300, &hi >> 190u32);
        assert!(
            left.lo <= Float::with_val(300, &hi + &tol)
                && Float::with_val(300, &lo - &tol) <= left.hi,
            "{s} {q}"
        );
    }
}

#[test]
fn zeta_narrow_formats_round_once() {
    for (t, stride) in [
        (ElementType::Bf16, 13),
        (ElementType::F16, 13),
        (ElementType::F8E4M3FN, 1),
    ] {
        let f = t.float_format().unwrap();
        let two = f.encode(2.0) as u128;
        let three_and_half = f.encode(3.5) as u128;
        for bits in (0..(1u64 << f.bit_width())).step_by(stride) {
            let x = f.decode(bits);
            if !x.is_finite() || x <= 0.0 {
                continue;
            }
            for s in [two, three_and_half] {
                let r = eval(Zeta, t, &[s, bits as u128]) as u64;
                if !f.decode(r).is_finite() {
                    continue; // overflow: checked in zeta_special_values_and_domain
                }
                let sv = Float::with_val(53, f.decode(s as u64));
                let v = hurwitz(&sv, &Interval::point(&Float::with_val(53, x)), 150).unwrap();
                assert_rounds_once(f, r, |m| {
                    if *m < v.lo {
                        Ordering::Less
                    } else if *m > v.hi {
                        Ordering::Greater
                    } else {
                        Ordering::Equal
                    }
                });
            }
        }
    }
}

#[test]
fn polygamma_known_values() {
    // ψ⁽⁰⁾ = digamma: ψ(1) = −γ = −0.5772156649015329.
    assert_eq!(f64op(Polygamma, &[0.0, 1.0]), -0.5772156649015329);
    assert_eq!(f64op(Digamma, &[1.0]), -0.5772156649015329);
    let pi2 = Float::with_val(400, pi(400).square_ref());
    assert_eq!(
        f64op(Polygamma, &[1.0, 1.0]).to_bits(),
        crate::round::round_exact(F64, &Float::with_val(400, &pi2 / 6u32))
    );
    // ψ⁽²⁾(1) = −2ζ(3).
    assert_eq!(
        f64op(Polygamma, &[2.0, 1.0]).to_bits(),
        crate::round::round_exact(F64, &Float::with_val(400, riemann(3.0) * -2i32))
    );
    // mpmath.psi(n, x) at 400 bits; x as f32 bits.
    for (n, x, want) in [
        (1.0f32, 0x416f0393u32, 0x3d8dc9a2u32),
        (2.0f32, 0x435ae3ebu32, 0xb7afe1beu32),
        (3.0f32, 0x40842588u32, 0x3d253674u32),
        (4.0f32, 0x424b629au32, 0xb57a9938u32),
        (7.0f32, 0x41b60827u32, 0x348e5578u32),
        (1.0f32, 0xbf000000u32, 0x410ef4f3u32),
        (2.0f32, 0xc0100000u32, 0x42f7cb3du32),
        (3.0f32, 0xc0fa0000u32, 0x459842e8u32),
        (1.0f32, 0xc7c34fc0u32, 0x411de9dcu32),
    ] {
        let x = f32::from_bits(x);
        assert_eq!(f32op(Polygamma, &[n, x]).to_bits(), want, "psi({n}, {x})");
    }
    for (n, x, want) in [
        (1.0, 0.25, 0x4031328429d927c6u64),
        (2.0, 3.5, 0xbfbbb342bf188dd7),
        (5.0, 0.001, 0x441a055690d9db7f),
        (1.0, -3.75, 0x403381465f8d6843),
        (6.0, -0.1, 0x41fad2742161e74a),
        (10.0, 17.0, 0xbe9003212c84e7c5),
    ] {
        assert_eq!(f64op(Polygamma, &[n, x]).to_bits(), want, "psi({n}, {x})");
    }
}

#[test]
fn polygamma_special_values_and_domain() {
    let p = |n: f32, x: f32| f32op(Polygamma, &[n, x]);
    assert!(p(f32::NAN, 1.0).is_nan() && p(1.0, f32::NAN).is_nan());
    assert!(p(-1.0, 1.0).is_nan() && p(1.5, 1.0).is_nan() && p(f32::INFINITY, 1.0).is_nan());
    assert_eq!(p(-0.0, 1.0), p(0.0, 1.0)); // −0 is the order 0
    assert!(p(1.0, 0.0).is_nan() && p(1.0, -0.0).is_nan() && p(2.0, -4.0).is_nan());
    assert!(p(0.0, 0.0).is_nan() && p(0.0, -2.0).is_nan());
    assert!(p(1.0, f32::NEG_INFINITY).is_nan());
    assert_eq!(p(1.0, f32::INFINITY).to_bits(), 0);
    assert_eq!(p(2.0, f32::INFINITY).to_bits(), 0x8000_0000);
    assert_eq!(p(0.0, f32::INFINITY), f32::INFINITY);
    // Large orders overflow f32 quickly: ψ⁽⁴⁰⁾(1) = 40!·ζ(41) ≈ 8.2e47.
    // The sign is (−1)^(n+1).
    assert_eq!(p(40.0, 1.0), f32::NEG_INFINITY);
    assert_eq!(p(41.0, 1.0), f32::INFINITY);
    // ... and underflow for large x: ψ⁽⁵⁰⁾(1e6) ≈ 49!/1e300.
    assert_eq!(p(50.0, 1e6).to_bits(), 0x8000_0000);
    assert_eq!(p(51.0, 1e6).to_bits(), 0);
    // Huge n: +inf/−inf or a zero decided by the enclosure, quickly.
    assert_eq!(p(1e9, 0.5), f32::NEG_INFINITY);
    // Any n, up to the largest finite: 3e9!/2^(3e9) and (3.4e38)!·2^(3.4e38) overflow (n even:
    // −inf); 1e200!/(1e300)^(1e200+1) underflows (−0).
    assert_eq!(p(3e9, 2.0), f32::NEG_INFINITY);
    assert_eq!(p(f32::MAX, 0.5), f32::NEG_INFINITY);
    assert_eq!(
        f64op(Polygamma, &[1e200, 1e300]).to_bits(),
        0x8000_0000_0000_0000
    );
    assert_eq!(f64op(Polygamma, &[f64::MAX, 4.0]), f64::NEG_INFINITY);
    assert_eq!(
        f64op(Polygamma, &[1e9, 1e15]).to_bits(),
        0x8000_0000_0000_0000
    ); // underflow
       // n > 2^24 where the result may be finite (x ≈ n/e): not computed.
    assert!(f64op(Polygamma, &[3e7, 11036380.75]).is_nan());
    // ... while n = 2^24 there is computed: log₂|ψ| ≈ 0 near x = (n!)^(1/(n+1)) = 6171990.49.
    let v = f64op(Polygamma, &[16777216.0, 6171990.5]);
    assert!(v.is_finite() && v < 0.0 && v != 0.0, "{v}");
    // Subnormal x: ψ⁽¹⁾(x) ≈ 1/x², overflow.
    assert_eq!(p(1.0, f32::from_bits(1)), f32::INFINITY);
    // Negative x: any |x| for n < 2^19; beyond, NaN (not computed).
    assert!(p(70.0, -5000.5).is_finite());
    assert!(p(1e6, -0.5).is_nan());
}

#[test]
fn polygamma_consistent_with_zeta_and_digamma_on_random_f32() {
    let mut state = 11u64;
    for i in 0..300 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = f32::from_bits(0x3800_0000 + ((state >> 8) as u32 % 0x1000_0000));
        let x = if i % 4 == 0 { -x } else { x };
        if x == x.floor() && x <= 0.0 {
            continue;
        }
        assert_eq!(
            f32op(Polygamma, &[0.0, x]).to_bits(),
            f32op(Digamma, &[x]).to_bits()
        );
        // ψ⁽¹⁾(x) = ζ(2, x) exactly (1! = 1), including x < 0.
        assert_eq!(
            f32op(Polygamma, &[1.0, x]).to_bits(),
            f32op(Zeta, &[2.0, x]).to_bits(),
            "{x}"
        );
        // ψ⁽²⁾(x) = −2ζ(3, x): doubling commutes with rounding (no subnormal results here; an
        // overflow gives inf on both sides).
        let a = f32op(Polygamma, &[2.0, x]);
        let b = -2.0 * f32op(Zeta, &[3.0, x]);
        assert_eq!(a.to_bits(), b.to_bits(), "{x}");
    }
}

#[test]
fn bernoulli_coefficients_are_exact() {
    let c = bernoulli_coefficients(4);
    assert_eq!(c[0], Rational::from((1, 12)));
    assert_eq!(c[1], Rational::from((-1, 720)));
    assert_eq!(c[2], Rational::from((1, 30240)));
    assert_eq!(c[3], Rational::from((-1, 1209600)));
}
