//! The f32 SIMD kernels (exp, tanh, logistic): every instruction set gives the same bits as the
//! scalar fallback, and the result is within 1 ULP of the correctly rounded value (MPFR), with the
//! error bounds the kernels document, over special values, subnormals, the overflow/underflow
//! thresholds and a dense sweep; and the accuracy scan (whose full run over all 2^32 inputs is
//! `examples/scan_f32_kernels.rs`) passes on a dense sample of every binade.

mod common;
#[path = "common/mpfr.rs"]
mod mpfr;

use conformance_fast::kernels::{F32Kernel, Isa};
use conformance_spec::{FloatFormat, Opcode};

fn inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fa0_0000), // signaling NaN
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        0.25,
        -0.25,
        0.249_999_99,
        9.010_913,
        -9.010_913,
    ];
    // exp overflow threshold (88.7228391...) and the underflow thresholds through the subnormals
    // (exp(x) < 2^-149 / 2 below about −103.972...; subnormal results below −87.336...).
    for base in [
        88.722_84f32,
        -103.972_08,
        -87.336_55,
        -88.0,
        -100.0,
        87.3,
        -9.0,
        20.0,
        -20.0,
    ] {
        let b = base.to_bits();
        for d in 0..64u32 {
            v.push(f32::from_bits(b.wrapping_add(d).wrapping_sub(32)));
        }
    }
    // Dense sweep over [-110, 110] and a log-spaced sweep of small magnitudes.
    let mut x = -110.0f32;
    while x < 110.0 {
        v.push(x);
        x += 0.000_7;
    }
    let mut t = 1e-40f32;
    while t < 1.0 {
        v.push(t);
        v.push(-t);
        t *= 1.001;
    }
    // Pseudo-random bit patterns.
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push(f32::from_bits(s as u32));
    }
    v
}

const KERNELS: [(F32Kernel, Opcode); 3] = [
    (F32Kernel::Exp, Opcode::Exponential),
    (F32Kernel::Tanh, Opcode::Tanh),
    (F32Kernel::Logistic, Opcode::Logistic),
];

/// The largest error (ULPs) each kernel may show: the bound its module documents (proven by the
/// exhaustive scan), so a change that loses accuracy fails here even while under the 1-ULP budget.
fn bound(k: F32Kernel) -> f64 {
    match k {
        F32Kernel::Exp => 0.77,
        F32Kernel::Tanh => 0.64,
        F32Kernel::Logistic => 0.77,
    }
}

#[test]
fn every_instruction_set_gives_the_scalar_bits() {
    let x = inputs();
    for (k, _) in KERNELS {
        let mut scalar = vec![0f32; x.len()];
        k.run(Isa::Scalar, &x, &mut scalar, false);
        for (isa, stream) in Isa::available()
            .into_iter()
            .flat_map(|i| [(i, false), (i, true)])
        {
            // Odd lengths exercise the padded tail of the vector loops; the offset moves the
            // output's alignment (the streaming path splits off an unaligned head).
            for (len, offset) in [
                (x.len() - 3, 3),
                (x.len(), 0),
                (1, 0),
                (3, 1),
                (7, 2),
                (9, 5),
                (17, 7),
            ] {
                let mut buf = vec![0f32; len + offset];
                let out = &mut buf[offset..];
                k.run(isa, &x[..len], out, stream);
                for i in 0..len {
                    let (a, b) = (out[i], scalar[i]);
                    assert!(
                        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                        "{k:?} {isa:?} x = {:e} ({:#x}): {a:e} vs scalar {b:e}",
                        x[i],
                        x[i].to_bits()
                    );
                }
            }
        }
    }
    assert!(Isa::available().contains(&Isa::detect()));
}

#[test]
fn kernels_are_within_one_ulp_of_the_correctly_rounded_result() {
    let x = inputs();
    let f = FloatFormat::F32;
    for (k, op) in KERNELS {
        let mut out = vec![0f32; x.len()];
        k.run(Isa::detect(), &x, &mut out, false);
        let (mut worst, mut worst_at, mut not_cr) = (0.0f64, 0.0f32, 0usize);
        for (&xi, &yi) in x.iter().zip(&out) {
            let exact = mpfr::unary(op, xi as f64).unwrap();
            let want = mpfr::round_to(&exact, f);
            let d = mpfr::ulps(f, want, yi.to_bits() as u64);
            assert!(
                d <= 1,
                "{k:?}({xi:e}) = {yi:e}, correctly rounded {:e}",
                f.decode(want)
            );
            if d != 0 {
                not_cr += 1;
            }
            // NaN results are excluded from the fractional error (`ulp_error` gives 0 for them).
            let e = mpfr::ulp_error(f, yi.to_bits() as u64, &exact);
            if e > worst {
                worst = e;
                worst_at = xi;
            }
            // Signed zeros must match exactly.
            if yi == 0.0 {
                assert_eq!(yi.to_bits(), want as u32, "{k:?}({xi:e}) sign of zero");
            }
        }
        println!(
            "{k:?}: worst error {worst:.4} ULP at {worst_at:e}; {not_cr} of {} not correctly rounded",
            x.len()
        );
        assert!(worst <= bound(k), "{k:?}: worst error {worst} ULP");
    }
}

#[test]
fn dense_sample_passes_the_accuracy_scan() {
    use conformance_fast::kernels::scan::scan;
    // Every 4093rd bit pattern (about a million inputs, every binade of both signs, NaNs and
    // infinities included) with every instruction set compared against the first.
    let mut isas = vec![Isa::detect()];
    isas.extend(Isa::available().into_iter().filter(|&i| i != Isa::detect()));
    for (k, _) in KERNELS {
        let r = scan(k, (0..=u32::MAX).step_by(4093), &isas);
        println!("{k:?}: {r:?}");
        assert_eq!(r.inputs, (1u64 << 32).div_ceil(4093));
        assert!(r.passed(), "{k:?}: {r:?}");
        assert!(r.max_ulp_distance <= 1);
        assert!(r.max_error <= bound(k), "{k:?}: {r:?}");
        // Most results are correctly rounded (the f64 reference decides all but exact midpoints).
        assert!(r.not_correctly_rounded * 100 < r.inputs, "{k:?}: {r:?}");
    }
}

#[test]
fn streaming_arithmetic_matches_the_scalar_operations() {
    use conformance_fast::kernels::arith::{stream_f32, Arith};
    let x = inputs();
    let y: Vec<f32> = x.iter().rev().copied().collect();
    for op in [Arith::Add, Arith::Subtract, Arith::Multiply, Arith::Divide] {
        for isa in Isa::available() {
            // Offsets move the output's alignment through every case of the aligned split.
            for offset in 0..17 {
                let (a, b) = (&x[offset..], &y[offset..]);
                let mut out = vec![0f32; a.len() + offset];
                let out = &mut out[offset..];
                stream_f32(op, isa, a, b, out);
                for i in 0..a.len() {
                    let want = match op {
                        Arith::Add => a[i] + b[i],
                        Arith::Subtract => a[i] - b[i],
                        Arith::Multiply => a[i] * b[i],
                        Arith::Divide => a[i] / b[i],
                    };
                    assert!(
                        out[i].to_bits() == want.to_bits() || (out[i].is_nan() && want.is_nan()),
                        "{op:?} {isa:?} {} {}",
                        a[i],
                        b[i]
                    );
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Any slice, at any output alignment, streaming or not, gives for each element the bits the
    /// scalar kernel gives for that element alone (the vector loops, padded tails and aligned
    /// heads do not change results).
    #[test]
    fn each_element_is_computed_as_if_alone(
        bits in proptest::collection::vec(proptest::prelude::any::<u32>(), 0..80),
        offset in 0usize..16,
        stream in proptest::prelude::any::<bool>(),
        kernel in 0usize..3,
    ) {
        let (k, _) = KERNELS[kernel];
        let x: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        for isa in Isa::available() {
            let mut buf = vec![0f32; x.len() + offset];
            let out = &mut buf[offset..];
            k.run(isa, &x, out, stream);
            for (i, &xi) in x.iter().enumerate() {
                let mut one = [0f32];
                k.run(Isa::Scalar, &[xi], &mut one, false);
                proptest::prop_assert!(
                    out[i].to_bits() == one[0].to_bits() || (out[i].is_nan() && one[0].is_nan()),
                    "{:?} {:?} x = {:#x}: {} vs {}", k, isa, bits[i], out[i], one[0]
                );
            }
        }
    }
}
