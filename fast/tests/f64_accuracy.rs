//! Accuracy of the f64 and f32 transcendental paths against MPFR (200 bits): every result within
//! 1 ULP of the correctly rounded value; the worst fractional errors are printed
//! (`cargo test -p conformance-fast --test f64_accuracy -- --nocapture`).

mod common;
#[path = "common/mpfr.rs"]
mod mpfr;

use common::single_op;
use conformance_fast::Fast;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Opcode};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Sample inputs: specials, uniform in [lo, hi], log-spaced magnitudes and random finite patterns.
fn samples(lo: f64, hi: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut r = Rng(seed);
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
    ];
    for _ in 0..n {
        v.push(r.uniform(lo, hi));
    }
    for _ in 0..n / 4 {
        let m = r.uniform(-30.0, 30.0);
        let s = if r.next() & 1 == 0 { 1.0 } else { -1.0 };
        v.push(s * 10f64.powf(m));
    }
    for _ in 0..n / 4 {
        let x = f64::from_bits(r.next());
        if x.is_finite() {
            v.push(x);
        }
    }
    v
}

fn run(ty: ElementType, op: Opcode, inputs: &[&[f64]]) -> Vec<u64> {
    let fmt = ty.float_format().unwrap();
    let n = inputs[0].len();
    let shape = ArrayShape::new(ty, vec![n as i64]);
    let args: Vec<_> = inputs
        .iter()
        .map(|v| {
            let bits: Vec<u128> = v.iter().map(|&x| fmt.encode(x) as u128).collect();
            ArrayLiteral::from_bits(shape.clone(), &bits)
                .unwrap()
                .into()
        })
        .collect();
    let shapes = vec![shape.clone(); inputs.len()];
    let m = single_op(op, &shapes, shape, vec![]);
    let out = Fast::new().execute(&m, &args).unwrap();
    out.as_array()
        .unwrap()
        .logical_bits()
        .into_iter()
        .map(|b| b as u64)
        .collect()
}

/// Measures against the correctly rounded result: (worst error, its input, results > 1 ULP off).
fn measure(ty: ElementType, op: Opcode, inputs: &[&[f64]]) -> (f64, Vec<f64>, Vec<String>) {
    let fmt = ty.float_format().unwrap();
    let got = run(ty, op, inputs);
    let (mut worst, mut at) = (0.0f64, vec![]);
    let mut bad = Vec::new();
    for i in 0..got.len() {
        let xs: Vec<f64> = inputs
            .iter()
            .map(|v| fmt.decode(fmt.encode(v[i])))
            .collect();
        let exact = if xs.len() == 1 {
            mpfr::unary(op, xs[0]).unwrap()
        } else {
            mpfr::binary(op, xs[0], xs[1]).unwrap()
        };
        let want = mpfr::round_to(&exact, fmt);
        if mpfr::ulps(fmt, want, got[i]) > 1 && bad.len() < 5 {
            bad.push(format!(
                "{op}{xs:?} = {:e}, correctly rounded {:e}",
                fmt.decode(got[i]),
                fmt.decode(want)
            ));
        }
        let e = mpfr::ulp_error(fmt, got[i], &exact);
        if e > worst {
            worst = e;
            at = xs;
        }
    }
    (worst, at, bad)
}

fn unary_ranges() -> Vec<(Opcode, f64, f64)> {
    use Opcode::*;
    vec![
        (Exponential, -745.0, 710.0),
        (ExponentialMinusOne, -40.0, 710.0),
        (Log, 0.0, 1e6),
        (LogPlusOne, -1.0, 10.0),
        (Sine, -10.0, 10.0),
        (Cosine, -10.0, 10.0),
        (Tan, -10.0, 10.0),
        (Tanh, -20.0, 20.0),
        (Logistic, -750.0, 40.0),
        (Erf, -6.0, 6.0),
        (Cbrt, -1e3, 1e3),
        (Rsqrt, 0.0, 1e6),
    ]
}

#[test]
fn f64_unary_functions_are_within_one_ulp() {
    let (mut report, mut bad) = (Vec::new(), Vec::new());
    for (op, lo, hi) in unary_ranges() {
        let x = samples(lo, hi, 20_000, 0x1234_5678 ^ op as u64);
        let (worst, at, b) = measure(ElementType::F64, op, &[&x]);
        report.push(format!("f64 {op}: worst {worst:.4} ULP at {at:?}"));
        bad.extend(b);
    }
    println!("{}", report.join("\n"));
    assert!(bad.is_empty(), "more than 1 ULP:\n{}", bad.join("\n"));
}

#[test]
fn f64_binary_functions_are_within_one_ulp() {
    let mut r = Rng(77);
    let n = 20_000;
    let x: Vec<f64> = (0..n).map(|_| r.uniform(0.0, 10.0)).collect();
    let y: Vec<f64> = (0..n).map(|_| r.uniform(-30.0, 30.0)).collect();
    let (w, at, mut bad) = measure(ElementType::F64, Opcode::Power, &[&x, &y]);
    println!("f64 power: worst {w:.4} ULP at {at:?}");
    let x: Vec<f64> = (0..n).map(|_| r.uniform(-10.0, 10.0)).collect();
    let y: Vec<f64> = (0..n).map(|_| r.uniform(-10.0, 10.0)).collect();
    let (w, at, b) = measure(ElementType::F64, Opcode::Atan2, &[&x, &y]);
    println!("f64 atan2: worst {w:.4} ULP at {at:?}");
    bad.extend(b);
    assert!(bad.is_empty(), "more than 1 ULP:\n{}", bad.join("\n"));
}

#[test]
fn f32_functions_through_f64_are_within_one_ulp() {
    let (mut report, mut bad) = (Vec::new(), Vec::new());
    for (op, lo, hi) in unary_ranges() {
        let x = samples(lo.max(-200.0), hi.min(200.0), 20_000, 0x9876 ^ op as u64);
        let (worst, at, b) = measure(ElementType::F32, op, &[&x]);
        report.push(format!("f32 {op}: worst {worst:.4} ULP at {at:?}"));
        bad.extend(b);
    }
    let mut r = Rng(99);
    let x: Vec<f64> = (0..20_000).map(|_| r.uniform(0.0, 10.0)).collect();
    let y: Vec<f64> = (0..20_000).map(|_| r.uniform(-30.0, 30.0)).collect();
    let (w, _, b) = measure(ElementType::F32, Opcode::Power, &[&x, &y]);
    report.push(format!("f32 power: worst {w:.4} ULP"));
    bad.extend(b);
    let (w, _, b) = measure(ElementType::F32, Opcode::Atan2, &[&y, &x]);
    report.push(format!("f32 atan2: worst {w:.4} ULP"));
    bad.extend(b);
    println!("{}", report.join("\n"));
    assert!(bad.is_empty(), "more than 1 ULP:\n{}", bad.join("\n"));
}
