//! Accuracy of the CHLO special functions (`elementwise::special`) against exact evaluation
//! (MPFR/MPC at 200+ bits, `common/special_exact.rs` where MPFR lacks the function), through the
//! backend (`Fast::execute`) on f64, f32, c128 and c64.
//!
//! Every function prints its worst error in ULPs of the result format (fractional, against the
//! exact value) and where (`cargo test -p conformance-fast --test special_accuracy --
//! --nocapture`). The assertions are the catalog's budgets (`spec/ops/chlo.yaml`) as distances
//! from the correctly rounded result, widened by 8κ (κ the condition number) where the catalog
//! says `conditioning: function`; complex results normwise (each component's error in ULPs of
//! the larger exact component).

mod common;
#[path = "common/mpfr.rs"]
mod mpfr;
#[path = "common/special_exact.rs"]
mod special_exact;

use common::single_op;
use conformance_fast::Fast;
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, ElementType, FloatFormat, Opcode};
use rug::{Complex, Float};

struct Xorshift(u64);
impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// ±10^u, u uniform in [lo, hi].
    fn log(&mut self, lo: f64, hi: f64, signed: bool) -> f64 {
        let v = 10f64.powf(self.uniform(lo, hi));
        if signed && self.next() & 1 == 1 {
            -v
        } else {
            v
        }
    }
}

/// Runs `op` on `inputs` (each rounded to `ty` first) through the backend; returns the inputs
/// as rounded and the result bits.
fn run(ty: ElementType, op: Opcode, inputs: &[Vec<f64>]) -> (Vec<Vec<f64>>, Vec<u64>) {
    let fmt = ty.float_format().unwrap();
    let n = inputs[0].len();
    let shape = ArrayShape::new(ty, vec![n as i64]);
    let rounded: Vec<Vec<f64>> = inputs
        .iter()
        .map(|v| v.iter().map(|&x| fmt.decode(fmt.encode(x))).collect())
        .collect();
    let args: Vec<_> = rounded
        .iter()
        .map(|v| {
            let bits: Vec<u128> = v.iter().map(|&x| fmt.encode(x) as u128).collect();
            ArrayLiteral::from_bits(shape.clone(), &bits)
                .unwrap()
                .into()
        })
        .collect();
    let m = single_op(op, &vec![shape.clone(); inputs.len()], shape, vec![]);
    let out = Fast::new().execute(&m, &args).unwrap();
    let bits = out.as_array().unwrap().logical_bits();
    (rounded, bits.into_iter().map(|b| b as u64).collect())
}

/// The exact value of a real special function.
fn exact(op: Opcode, x: &[f64]) -> Float {
    match op {
        Opcode::ErfInv => special_exact::erf_inv(x[0]),
        Opcode::BesselI1e => special_exact::bessel_i1e(x[0]),
        Opcode::Zeta => special_exact::zeta(x[0], x[1]),
        Opcode::Polygamma => special_exact::polygamma(x[0], x[1]),
        _ => mpfr::unary(op, x[0]).unwrap(),
    }
}

/// The condition number κ of the catalog's `conditioning: function` entries (0 elsewhere).
fn kappa(op: Opcode, x: &[f64], value: &Float) -> f64 {
    let v = value.to_f64();
    if !v.is_finite() || v == 0.0 {
        return 0.0;
    }
    let k = match op {
        // |x ψ(x) / lgamma(x)|
        Opcode::Lgamma => (x[0] * mpfr::mpfr(x[0]).digamma().to_f64() / v).abs(),
        // |x ψ₁(x) / ψ(x)|
        Opcode::Digamma => (x[0] * special_exact::polygamma(1.0, x[0]).to_f64() / v).abs(),
        // Sensitivity to x: |x ψ^{(n+1)}(x) / ψ^{(n)}(x)|.
        Opcode::Polygamma => (x[1] * special_exact::polygamma(x[0] + 1.0, x[1]).to_f64() / v).abs(),
        // Sensitivity to q (|q s ζ(s+1, q)/ζ(s, q)|) and to s (|s ∂ζ/∂s / ζ| ≤ |s ln q| + …,
        // estimated by a difference quotient of the exact function).
        Opcode::Zeta => {
            let (s, q) = (x[0], x[1]);
            let dq = (q * s * special_exact::zeta(s + 1.0, q).to_f64() / v).abs();
            let h = s * 1e-6;
            let ds = (special_exact::zeta(s + h, q).to_f64() - v) / h;
            dq + (s * ds / v).abs()
        }
        _ => 0.0,
    };
    if k.is_finite() {
        k
    } else {
        0.0
    }
}

struct Report {
    lines: Vec<String>,
    failures: Vec<String>,
}

/// Measures `op` on `ty`: prints the worst error, records results beyond `budget` (+ 8κ) ULPs of
/// the correctly rounded value.
fn measure(r: &mut Report, ty: ElementType, op: Opcode, inputs: &[Vec<f64>], budget: u64) {
    let fmt = ty.float_format().unwrap();
    let (xs, got) = run(ty, op, inputs);
    let conditioned = matches!(
        op,
        Opcode::Lgamma | Opcode::Digamma | Opcode::Polygamma | Opcode::Zeta
    );
    let (mut worst, mut at) = (0.0f64, vec![]);
    let (mut worst_plain, mut at_plain) = (0.0f64, vec![]);
    let mut bad = 0;
    for (i, &g) in got.iter().enumerate() {
        let x: Vec<f64> = xs.iter().map(|v| v[i]).collect();
        let e = exact(op, &x);
        let want = mpfr::round_to(&e, fmt);
        let err = mpfr::ulp_error(fmt, g, &e);
        let k = if conditioned { kappa(op, &x, &e) } else { 0.0 };
        if err > worst {
            (worst, at) = (err, x.clone());
        }
        if k < 1.0 && err > worst_plain {
            (worst_plain, at_plain) = (err, x.clone());
        }
        let allowed = budget as f64 + 8.0 * k;
        if mpfr::ulps(fmt, want, g) as f64 > allowed {
            bad += 1;
            if bad <= 3 {
                r.failures.push(format!(
                    "{ty} {op}{x:?} = {:e}, correctly rounded {:e} (budget {allowed:.1} ULP)",
                    fmt.decode(g),
                    fmt.decode(want)
                ));
            }
        }
    }
    let mut line = format!("{ty} {op}: worst {worst:.3} ULP at {at:?}");
    if conditioned {
        line += &format!("; where κ < 1: {worst_plain:.3} ULP at {at_plain:?}");
    }
    r.lines.push(line);
}

fn unary_samples(op: Opcode, rng: &mut Xorshift, n: usize) -> Vec<f64> {
    use Opcode::*;
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for _ in 0..n {
        v.push(match op {
            Asin | Acos | Atanh | ErfInv => match rng.next() % 4 {
                0 => rng.uniform(-1.0, 1.0),
                3 => rng.uniform(-3.0, 3.0), // the domain errors too
                1 => {
                    (1.0 - rng.log(-16.0, -0.3, false))
                        * if rng.next() & 1 == 0 { 1.0 } else { -1.0 }
                }
                _ => rng.log(-30.0, 0.0, true),
            },
            Atan | Asinh | Sinh | Cosh | BesselI1e => match rng.next() % 2 {
                0 => rng.uniform(-30.0, 30.0),
                _ if op == Sinh || op == Cosh => rng.log(-20.0, 2.86, true),
                _ => rng.log(-30.0, 30.0, true),
            },
            Acosh => match rng.next() % 3 {
                0 => 1.0 + rng.log(-16.0, 1.0, false),
                1 => rng.log(0.0, 300.0, false),
                _ => rng.log(-3.0, 30.0, true), // x < 1: NaN
            },
            Erfc => rng.uniform(-6.0, 27.5),
            Lgamma => match rng.next() % 4 {
                0 => rng.uniform(0.0, 10.0),
                1 => rng.log(-10.0, 5.0, false),
                2 => 1.0 + rng.uniform(-0.1, 1.1),
                _ => rng.uniform(-30.0, 0.0),
            },
            Digamma => match rng.next() % 4 {
                0 => rng.uniform(0.0, 12.0),
                1 => rng.log(-10.0, 8.0, false),
                2 => 1.461_632_144_968_362 + rng.uniform(-0.01, 0.01),
                _ => rng.uniform(-30.0, 0.0),
            },
            _ => unreachable!(),
        });
    }
    v
}

/// Catalog budgets (f32 and f64, before the conditioning allowance).
fn budget(op: Opcode) -> u64 {
    use Opcode::*;
    match op {
        Asin | Acos | Atan | Sinh | Cosh | Asinh | Acosh | Atanh => 1,
        Polygamma | Zeta => 4,
        _ => 2,
    }
}

#[test]
fn real_unary_special_functions_are_within_the_catalog_budgets() {
    use Opcode::*;
    let mut r = Report {
        lines: vec![],
        failures: vec![],
    };
    for op in [
        Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Erfc, ErfInv, Lgamma, Digamma, BesselI1e,
    ] {
        for (ty, n) in [(ElementType::F64, 6000), (ElementType::F32, 3000)] {
            let x = unary_samples(op, &mut Xorshift(0x5eed ^ (op as u64) << 8 ^ n as u64), n);
            measure(&mut r, ty, op, &[x], budget(op));
        }
    }
    println!("{}", r.lines.join("\n"));
    assert!(
        r.failures.is_empty(),
        "beyond the budget:\n{}",
        r.failures.join("\n")
    );
}

#[test]
fn zeta_and_polygamma_are_within_the_catalog_budgets() {
    let mut r = Report {
        lines: vec![],
        failures: vec![],
    };
    let mut rng = Xorshift(0x7e7a);
    let n = 1500;
    let mut s = vec![2.0, 3.0, 1.5, f64::INFINITY, 1.0];
    let mut q = vec![1.0, 0.5, 10.0, 2.0, 3.0];
    for i in 0..n {
        s.push(match i % 3 {
            0 => 1.0 + rng.log(-8.0, 0.0, false),
            1 => rng.uniform(1.0, 12.0),
            _ => rng.uniform(12.0, 60.0),
        });
        q.push(rng.log(-3.0, 2.0, false));
    }
    for ty in [ElementType::F64, ElementType::F32] {
        measure(&mut r, ty, Opcode::Zeta, &[s.clone(), q.clone()], 4);
    }
    let mut nn = vec![1.0, 2.0, 0.0, 3.0];
    let mut x = vec![1.0, 0.5, 2.0, 4.0];
    for i in 0..n {
        nn.push(((i % 41) as f64).max(1.0));
        x.push(rng.log(-3.0, 2.0, false));
    }
    for ty in [ElementType::F64, ElementType::F32] {
        measure(&mut r, ty, Opcode::Polygamma, &[nn.clone(), x.clone()], 4);
    }
    println!("{}", r.lines.join("\n"));
    assert!(
        r.failures.is_empty(),
        "beyond the budget:\n{}",
        r.failures.join("\n")
    );
}

/// Exact complex function value with MPC.
fn exact_complex(op: Opcode, z: (f64, f64)) -> Complex {
    let c = Complex::with_val(200, z);
    match op {
        Opcode::Asin => c.asin(),
        Opcode::Acos => c.acos(),
        Opcode::Atan => c.atan(),
        Opcode::Asinh => c.asinh(),
        Opcode::Acosh => c.acosh(),
        Opcode::Atanh => c.atanh(),
        Opcode::Sinh => c.sinh(),
        Opcode::Cosh => c.cosh(),
        _ => unreachable!(),
    }
}

#[test]
fn complex_functions_are_within_the_catalog_budgets() {
    use Opcode::*;
    let (mut lines, mut failures) = (vec![], vec![]);
    let mut rng = Xorshift(0xc0de);
    let n = 3000;
    let mut zs = vec![];
    for i in 0..n {
        let comp = |rng: &mut Xorshift| match i % 4 {
            0 => rng.uniform(-3.0, 3.0),
            1 => rng.log(-20.0, 20.0, true),
            2 => rng.log(-300.0, 300.0, true),
            _ => rng.uniform(-1.1, 1.1),
        };
        let (a, b) = (comp(&mut rng), comp(&mut rng));
        // A few points on and next to the branch cuts.
        zs.push(match i % 10 {
            0 => (a * 3.0, 0.0),
            1 => (a * 3.0, -0.0),
            2 => (0.0, a * 3.0),
            3 => (-0.0, b * 3.0),
            _ => (a, b),
        });
    }
    for op in [Asin, Acos, Atan, Asinh, Acosh, Atanh, Sinh, Cosh] {
        for ty in [ElementType::C128, ElementType::C64] {
            let f = ty.float_format().unwrap();
            let shape = ArrayShape::new(ty, vec![zs.len() as i64]);
            let v: Vec<(f64, f64)> = zs
                .iter()
                .map(|&(r, i)| (f.decode(f.encode(r)), f.decode(f.encode(i))))
                .collect();
            let arg = ArrayLiteral::from_complex(shape.clone(), &v).unwrap();
            let m = single_op(op, std::slice::from_ref(&shape), shape.clone(), vec![]);
            let out = Fast::new().execute(&m, &[arg.into()]).unwrap();
            let got = out.as_array().unwrap().logical_bits();
            let (mut worst_c, mut worst_n, mut at_c, mut at_n) = (0.0f64, 0u64, v[0], v[0]);
            for (i, &z) in v.iter().enumerate() {
                let e = exact_complex(op, z);
                let (er, ei) = (e.real(), e.imag());
                let (wr, wi) = (mpfr::round_to(er, f), mpfr::round_to(ei, f));
                if !(f.decode(wr).is_finite() && f.decode(wi).is_finite()) {
                    continue; // overflow (sinh, cosh): the C99 special values, masked
                }
                let (gr, gi) = complex_parts(f, got[i]);
                // Componentwise error in each component's own ULPs.
                let ec = mpfr::ulp_error(f, gr, er).max(mpfr::ulp_error(f, gi, ei));
                if ec > worst_c {
                    (worst_c, at_c) = (ec, z);
                }
                let nw = normwise(f, (wr, wi), (gr, gi));
                if nw > worst_n {
                    (worst_n, at_n) = (nw, z);
                }
                if nw > 4 && failures.len() < 20 {
                    failures.push(format!(
                        "{ty} {op}({z:?}) = ({:e}, {:e}), exact ({:e}, {:e}): {nw} ULP normwise",
                        f.decode(gr),
                        f.decode(gi),
                        er.to_f64(),
                        ei.to_f64()
                    ));
                }
            }
            lines.push(format!(
                "{ty} {op}: componentwise worst {worst_c:.2} ULP at {at_c:?}; normwise worst \
                 {worst_n} ULP at {at_n:?}"
            ));
        }
    }
    println!("{}", lines.join("\n"));
    assert!(
        failures.is_empty(),
        "beyond 4 ULP normwise:\n{}",
        failures.join("\n")
    );
}

/// Each component's distance from the correctly rounded one in ULPs of the larger exact
/// component (the harness's normwise measure).
fn normwise(f: FloatFormat, want: (u64, u64), got: (u64, u64)) -> u64 {
    let (wr, wi, gr, gi) = (
        f.decode(want.0),
        f.decode(want.1),
        f.decode(got.0),
        f.decode(got.1),
    );
    let scale = wr.abs().max(wi.abs());
    if scale == 0.0 {
        return if gr == 0.0 && gi == 0.0 { 0 } else { u64::MAX };
    }
    let big = if wr.abs() >= wi.abs() { want.0 } else { want.1 };
    let e = (f.to_ordered(big).unsigned_abs() >> f.mantissa_bits) as i32; // biased exponent
    let exp = (e.max(1) - f.bias) - f.mantissa_bits as i32;
    let ulp = conformance_spec::element_type::pow2(exp);
    let d = ((wr - gr).abs().max((wi - gi).abs()) / ulp).ceil();
    if d.is_finite() {
        d as u64
    } else {
        u64::MAX
    }
}

/// `next-after` through the backend on every real float type (random bit patterns, specials
/// among them) agrees bit for bit with the format-level step `next_after_bits` (itself checked
/// against explicit stepping through sorted values in its unit tests).
#[test]
fn next_after_through_the_backend_is_bit_exact_in_every_format() {
    use conformance_fast::elementwise::special::next_after::next_after_bits;
    let mut rng = Xorshift(0x0ddba11);
    for ty in ElementType::ALL {
        if !ty.is_float() {
            continue;
        }
        let fmt = ty.float_format().unwrap();
        let mask = if fmt.bit_width() == 64 {
            u64::MAX
        } else {
            (1u64 << fmt.bit_width()) - 1
        };
        let specials: Vec<u64> = [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY]
            .iter()
            .map(|&v| fmt.encode(v))
            .chain([1, fmt.negate_bits(1), fmt.max_finite_bits(), fmt.nan_bits()])
            .collect();
        let n = 4096;
        let pick = |rng: &mut Xorshift| {
            let r = rng.next();
            if r & 3 == 0 {
                specials[(r >> 8) as usize % specials.len()]
            } else {
                (r >> 3) & mask
            }
        };
        let xs: Vec<u64> = (0..n).map(|_| pick(&mut rng)).collect();
        let ys: Vec<u64> = (0..n).map(|_| pick(&mut rng)).collect();
        let shape = ArrayShape::new(ty, vec![n as i64]);
        let lit = |v: &[u64]| {
            let bits: Vec<u128> = v.iter().map(|&b| b as u128).collect();
            ArrayLiteral::from_bits(shape.clone(), &bits)
                .unwrap()
                .into()
        };
        let m = single_op(
            Opcode::NextAfter,
            &[shape.clone(), shape.clone()],
            shape.clone(),
            vec![],
        );
        let out = Fast::new().execute(&m, &[lit(&xs), lit(&ys)]).unwrap();
        let got = out.as_array().unwrap().logical_bits();
        for i in 0..n {
            let want = next_after_bits(fmt, xs[i], ys[i]);
            let g = got[i] as u64;
            let nan = |b: u64| fmt.decode(b).is_nan();
            assert!(
                g == want || (nan(g) && nan(want)),
                "{ty} next-after({:#x}, {:#x}) = {g:#x}, want {want:#x}",
                xs[i],
                ys[i]
            );
        }
    }
}
