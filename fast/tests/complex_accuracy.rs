//! Accuracy of complex arithmetic against exact evaluation with MPFR (per component, ULPs of the
//! component format). The measured maxima are printed
//! (`cargo test -p conformance-fast --test complex_accuracy -- --nocapture`); the assertions are the
//! bounds the implementation guarantees: c64 multiply correctly rounded, the others a few ULPs.

mod common;
#[path = "common/mpfr.rs"]
mod mpfr;

use common::single_op;
use conformance_fast::Fast;
use conformance_spec::literal::{complex_parts, ArrayLiteral};
use conformance_spec::{ArrayShape, Backend, ElementType, Opcode};
use rug::Float;

fn pairs(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<(f64, f64)> {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let u = (s >> 11) as f64 / (1u64 << 53) as f64;
        let m = lo + (hi - lo) * u;
        let sign = if s & 1 == 0 { 1.0 } else { -1.0 };
        sign * 10f64.powf(m)
    };
    (0..n).map(|_| (next(), next())).collect()
}

/// Exact product or quotient components at 200 bits.
fn exact(op: Opcode, x: (f64, f64), y: (f64, f64)) -> (Float, Float) {
    let p = mpfr::PREC;
    let (a, b, c, d) = (
        mpfr::mpfr(x.0),
        mpfr::mpfr(x.1),
        mpfr::mpfr(y.0),
        mpfr::mpfr(y.1),
    );
    let ac = Float::with_val(p, &a * &c);
    let bd = Float::with_val(p, &b * &d);
    let ad = Float::with_val(p, &a * &d);
    let bc = Float::with_val(p, &b * &c);
    match op {
        Opcode::Multiply => (Float::with_val(p, &ac - &bd), Float::with_val(p, &ad + &bc)),
        _ => {
            let den = Float::with_val(p, Float::with_val(p, &c * &c) + Float::with_val(p, &d * &d));
            let re = Float::with_val(p, &ac + &bd) / &den;
            let im = Float::with_val(p, &bc - &ad) / &den;
            (re, im)
        }
    }
}

fn worst(ty: ElementType, op: Opcode, xs: &[(f64, f64)], ys: &[(f64, f64)]) -> (f64, u64) {
    let f = ty.float_format().unwrap();
    let shape = ArrayShape::new(ty, vec![xs.len() as i64]);
    let q = |v: &[(f64, f64)]| {
        // Round the inputs into the component format first, so the exact values use them.
        let v: Vec<(f64, f64)> = v
            .iter()
            .map(|&(r, i)| (f.decode(f.encode(r)), f.decode(f.encode(i))))
            .collect();
        (ArrayLiteral::from_complex(shape.clone(), &v).unwrap(), v)
    };
    let ((lx, xs), (ly, ys)) = (q(xs), q(ys));
    let m = single_op(op, &[shape.clone(), shape.clone()], shape.clone(), vec![]);
    let out = Fast::new().execute(&m, &[lx.into(), ly.into()]).unwrap();
    let got = out.as_array().unwrap().logical_bits();
    let (mut w, mut wi) = (0.0f64, 0u64);
    for i in 0..got.len() {
        let (re, im) = exact(op, xs[i], ys[i]);
        let (gr, gi) = complex_parts(f, got[i]);
        for (g, e) in [(gr, &re), (gi, &im)] {
            let err = mpfr::ulp_error(f, g, e);
            let ints = mpfr::ulps(f, g, mpfr::round_to(e, f));
            w = w.max(err);
            wi = wi.max(ints);
        }
    }
    (w, wi)
}

#[test]
fn complex_multiply_and_divide_errors() {
    let n = 20_000;
    let mut report = Vec::new();
    for (ty, lo, hi) in [
        (ElementType::C64, -15.0, 15.0),
        (ElementType::C128, -100.0, 100.0),
    ] {
        let xs = pairs(n, 3, lo, hi);
        let ys = pairs(n, 5, lo, hi);
        let (wm, im) = worst(ty, Opcode::Multiply, &xs, &ys);
        let (wd, id) = worst(ty, Opcode::Divide, &xs, &ys);
        report.push(format!(
            "{ty}: multiply worst {wm:.3} ULP ({im} from correctly rounded), divide worst {wd:.3} ULP ({id})"
        ));
        assert!(im <= 1, "{ty} multiply: {im} ULP");
        assert!(id <= 1, "{ty} divide: {id} ULP");
    }
    println!("{}", report.join("\n"));
}
