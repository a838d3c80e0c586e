//! Complex element-wise functions against the exact reference backend, measured normwise as the
//! catalog does (`complex_error: normwise`): each component's error in ULPs of the larger
//! component of the exact result; NaN against non-NaN always fails; signed zeros are not compared.
//! Inputs: every pair of special components (C99 Annex G cases, overflow thresholds, poles) and
//! log-uniform random values. The measured maxima are printed
//! (`cargo test --release -p conformance-fast --test complex_functions -- --nocapture`).

mod common;

use common::single_op;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::element_type::{frexp, pow2};
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, ElementType, FloatFormat, Opcode};

const SPECIALS: [f64; 22] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e-300,
    -3e-310,
    1e-40,
    88.8,
    -95.0,
    709.9,
    -712.0,
    1000.0,
    std::f64::consts::FRAC_PI_2,
    std::f64::consts::PI,
    -std::f64::consts::FRAC_PI_2,
    3e38,
    1.7e308,
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// ±10^u with u uniform in [lo, hi].
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let m = 10f64.powf(lo + (hi - lo) * self.unit());
        if self.next() & 1 == 0 {
            m
        } else {
            -m
        }
    }
}

/// Special pairs, then random values of moderate and wide range (in the component format).
fn values(ty: ElementType, n: usize, seed: u64) -> Vec<(f64, f64)> {
    let f = ty.float_format().unwrap();
    let q = |x: f64| f.decode(f.encode(x));
    let mut v: Vec<(f64, f64)> = SPECIALS
        .iter()
        .flat_map(|&a| SPECIALS.iter().map(move |&b| (a, b)))
        .collect();
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let wide = if ty == ElementType::C64 { 38.0 } else { 307.0 };
    for i in 0..n {
        let (a, b) = match i % 4 {
            0 => (r.log_uniform(-3.0, 1.5), r.log_uniform(-3.0, 1.5)),
            1 => (r.log_uniform(-wide, wide), r.log_uniform(-wide, wide)),
            2 => (r.unit() * 4.0 - 2.0, r.unit() * 8.0 - 4.0),
            _ => (r.log_uniform(-8.0, 3.0), r.log_uniform(-wide, 3.0)),
        };
        v.push((a, b));
    }
    v.into_iter().map(|(a, b)| (q(a), q(b))).collect()
}

/// Normwise error in ULPs (`u64::MAX` for a NaN/non-NaN or infinite mismatch).
fn normwise(f: FloatFormat, e: (u64, u64), g: (u64, u64)) -> u64 {
    let (er, ei, gr, gi) = (f.decode(e.0), f.decode(e.1), f.decode(g.0), f.decode(g.1));
    if [er, ei, gr, gi].iter().any(|v| !v.is_finite()) {
        // Component by component: NaN matches NaN, infinities must agree, zeros of either sign.
        let comp = |a: f64, b: f64, ab: u64, bb: u64| -> u64 {
            match (a.is_nan(), b.is_nan()) {
                (true, true) => 0,
                (false, false) if a == b => 0,
                (false, false) if a.is_finite() && b.is_finite() => {
                    f.to_ordered(ab).abs_diff(f.to_ordered(bb))
                }
                _ => u64::MAX,
            }
        };
        return comp(er, gr, e.0, g.0).max(comp(ei, gi, e.1, g.1));
    }
    let scale = er.abs().max(ei.abs());
    if scale == 0.0 {
        return if gr == 0.0 && gi == 0.0 { 0 } else { u64::MAX };
    }
    let (_, exp) = frexp(scale);
    let ulp_exp = (exp - 1).max(f.min_normal_exponent()) - f.mantissa_bits as i32;
    let ulp = pow2(ulp_exp);
    let err = ((er - gr).abs().max((ei - gi).abs()) / ulp).ceil();
    if err.is_finite() {
        err as u64
    } else {
        u64::MAX
    }
}

/// The worst normwise error of `op` over the inputs, with the input that gives it.
fn worst(op: Opcode, ty: ElementType, args: &[Vec<(f64, f64)>]) -> (u64, String) {
    let f = ty.float_format().unwrap();
    let n = args[0].len();
    let shape = ArrayShape::new(ty, vec![n as i64]);
    let lits: Vec<_> = args
        .iter()
        .map(|v| ArrayLiteral::from_complex(shape.clone(), v).unwrap().into())
        .collect();
    let m = single_op(op, &vec![shape.clone(); args.len()], shape.clone(), vec![]);
    let got = Fast::new().execute(&m, &lits).unwrap();
    let exact = Reference.execute(&m, &lits).unwrap();
    let (got, exact) = (
        got.as_array().unwrap().logical_bits(),
        exact.as_array().unwrap().logical_bits(),
    );
    let mut w = (0u64, String::new());
    let mut shown = 0;
    for i in 0..n {
        let (g, e) = (complex_parts(f, got[i]), complex_parts(f, exact[i]));
        let x = args[0][i];
        if op == Opcode::LogPlusOne && x.1 != 0.0 && x.0 != 0.0 && x.0.abs() < 1e-2 {
            // Known reference defect: log1p(x + iy) with small non-zero x and y ≠ 0 gives a real
            // part far from the exact one (0 for x = 3e-13; 511 ULP off at x = 1.7e-6). Not measured.
            continue;
        }
        let (ge, gg) = (
            (f.decode(e.0), f.decode(e.1)),
            (f.decode(g.0), f.decode(g.1)),
        );
        if op == Opcode::Power && [ge.0, ge.1, gg.0, gg.1].iter().all(|v| v.is_infinite()) {
            // Overflowing powers: the signs of the infinities follow the angle of y·ln x, which
            // double precision cannot resolve when |y·ln x| is huge. Not measured here.
            continue;
        }
        let err = normwise(f, e, g);
        if err == u64::MAX && shown < 6 && std::env::var_os("SHOW").is_some() {
            shown += 1;
            let d = |c: (u64, u64)| (f.decode(c.0), f.decode(c.1));
            println!(
                "  {op:?} {ty} {:?}: expected {:?} got {:?}",
                args[0][i],
                d(e),
                d(g)
            );
        }
        if err > w.0 || w.1.is_empty() {
            let show = |c: (u64, u64)| format!("({:e}, {:e})", f.decode(c.0), f.decode(c.1));
            let input: Vec<String> = args.iter().map(|a| format!("{:?}", a[i])).collect();
            w = (
                err,
                format!(
                    "{} -> expected {} got {}",
                    input.join(", "),
                    show(e),
                    show(g)
                ),
            );
        }
    }
    w
}

fn budget(op: Opcode) -> u64 {
    use Opcode::*;
    match op {
        ExponentialMinusOne | LogPlusOne | Logistic | Tan | Tanh => 8,
        Power => 16,
        _ => 4,
    }
}

#[test]
fn complex_functions_within_normwise_budgets() {
    use Opcode::*;
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for ty in [ElementType::C64, ElementType::C128] {
        for op in [
            Exponential,
            ExponentialMinusOne,
            Log,
            LogPlusOne,
            Sine,
            Cosine,
            Tan,
            Tanh,
            Logistic,
            Sqrt,
            Rsqrt,
            Power,
        ] {
            let arity = if op == Power { 2 } else { 1 };
            let args: Vec<_> = (0..arity)
                .map(|k| values(ty, 3000, 7 + k as u64 + op as u64))
                .collect();
            let (err, at) = worst(op, ty, &args);
            let line = format!("{op:?} {ty}: {err} ULP at {at}");
            report.push(line.clone());
            // Power is measured only: y·ln x is formed in double precision, so the angle of the
            // result is off by |y|·ulp(ln x) radians (up to all of it for huge |y|).
            if op != Power && err > budget(op) {
                failures.push(line);
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "over budget:\n{}", failures.join("\n"));
}

/// Regression (sweep seed 1): cos/sin of (smallest subnormal, huge y) scaled the subnormal factor
/// below 2^-1074 before multiplying by e^|y| = ∞, giving 0 · ∞ = NaN instead of ±∞.
#[test]
fn huge_imaginary_part_with_subnormal_real_part_overflows_to_infinity() {
    use conformance_fast::elementwise::complex::{cos, sin};
    use num_complex::Complex64;
    let tiny = f64::from_bits(1);
    let c = cos(Complex64::new(tiny, -1.7976931348623155e308));
    assert_eq!((c.re, c.im), (f64::INFINITY, f64::INFINITY));
    let c = cos(Complex64::new(tiny, 1.4885617143363216e282));
    assert_eq!((c.re, c.im), (f64::INFINITY, f64::NEG_INFINITY));
    let s = sin(Complex64::new(tiny, -7.081260130710146e123));
    assert_eq!((s.re, s.im), (f64::INFINITY, f64::NEG_INFINITY));
}
