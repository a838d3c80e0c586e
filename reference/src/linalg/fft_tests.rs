//! FFT against an independent direct evaluation with `rug::Complex` at 1200 bits (the multi-
//! dimensional sum written out, not composed axis by axis), every fft_type, 1–3 axes, lengths
//! 0, 1, odd and even; exact zeros; layouts; non-finite blocks; errors.

#![allow(clippy::needless_range_loop)] // index arithmetic mirrors the formulas

use super::super::test_util::*;
use crate::round::round_exact;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::BackendError;
use rug::{Complex, Float};
use std::time::Instant;

const PREC: u32 = 1200;

/// `exp(sign·2πi·num/den)` at 1200 bits (the angle's error is far below the rounding of interest).
fn phase(sign: i64, num: i64, den: i64) -> Complex {
    let pi = Float::with_val(PREC, rug::float::Constant::Pi);
    let angle = pi * Float::with_val(PREC, 2 * sign * num) / den;
    let i_angle = Complex::with_val(PREC, (0, angle));
    i_angle.exp()
}

/// The direct DFT of docs/linalg-semantics.md on one block (row-major), as values at 1200 bits.
/// `x` are the input block's values, `ty` the fft_type, `n` the lengths; returns per output
/// element (re, im).
fn direct(ty: &str, n: &[usize], x: &[(f64, f64)]) -> Vec<(Float, Float)> {
    let l = n.len();
    let nn: usize = n.iter().product();
    let half = n[l - 1] / 2 + 1;
    let mut in_dims = n.to_vec();
    let mut out_dims = n.to_vec();
    match ty {
        "RFFT" => out_dims[l - 1] = half,
        "IRFFT" => in_dims[l - 1] = half,
        _ => {}
    }
    let unravel = |mut i: usize, dims: &[usize]| -> Vec<usize> {
        let mut idx = vec![0; dims.len()];
        for a in (0..dims.len()).rev() {
            idx[a] = i % dims[a];
            i /= dims[a];
        }
        idx
    };
    let lcm = n.iter().fold(1i64, |acc, &v| {
        let v = v as i64;
        let g = (1..=acc.min(v))
            .rev()
            .find(|d| acc % d == 0 && v % d == 0)
            .unwrap_or(1);
        acc * v / g
    });
    let sign = if ty == "FFT" || ty == "RFFT" { -1 } else { 1 };
    let out_count: usize = out_dims.iter().product();
    (0..out_count)
        .map(|o| {
            let j = unravel(o, &out_dims);
            let mut acc = Complex::new(PREC);
            for (i, &(re, im)) in x.iter().enumerate() {
                let k = unravel(i, &in_dims);
                let num: i64 = (0..l)
                    .map(|a| (j[a] * k[a]) as i64 * (lcm / n[a] as i64))
                    .sum();
                let term = Complex::with_val(PREC, (re, im)) * phase(sign, num % lcm, lcm);
                if ty == "IRFFT" {
                    let kl = k[l - 1];
                    let weight = if kl == 0 || 2 * kl == n[l - 1] { 1 } else { 2 };
                    acc += Complex::with_val(PREC, (term.real() * weight, 0));
                } else {
                    acc += term;
                }
            }
            if ty == "IFFT" || ty == "IRFFT" {
                acc /= nn as u32;
            }
            let (re, im) = acc.into_real_imag();
            (re, im)
        })
        .collect()
}

/// Bits equal, or both zeros (the direct sum may leave −tiny where the exact value is 0).
fn same(fmt: FloatFormat, a: u64, b: u64) -> bool {
    let mag = |v: u64| v & !(1u64 << (fmt.bit_width() - 1));
    a == b || (mag(a) == 0 && mag(b) == 0)
}

fn check(ty: &str, lengths: &[usize], batch: usize, double: bool, seed: u64) {
    let (re_ty, cplx) = if double {
        ("f64", "c128")
    } else {
        ("f32", "c64")
    };
    let fmt = if double {
        FloatFormat::F64
    } else {
        FloatFormat::F32
    };
    let l = lengths.len();
    let mut in_dims = lengths.to_vec();
    let mut out_dims = lengths.to_vec();
    match ty {
        "RFFT" => out_dims[l - 1] = lengths[l - 1] / 2 + 1,
        "IRFFT" => in_dims[l - 1] = lengths[l - 1] / 2 + 1,
        _ => {}
    }
    let (in_ty, out_ty) = match ty {
        "RFFT" => (re_ty, cplx),
        "IRFFT" => (cplx, re_ty),
        _ => (cplx, cplx),
    };
    let dims = |d: &[usize]| {
        std::iter::once(batch)
            .chain(d.iter().copied())
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let in_shape = format!("{in_ty}[{}]", dims(&in_dims));
    let out_shape = format!("{out_ty}[{}]", dims(&out_dims));
    let fl = lengths
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let hlo = module_text(
        &[&in_shape],
        &format!("{out_shape} fft(p0), fft_type={ty}, fft_length={{{fl}}}"),
    );
    let block: usize = in_dims.iter().product();
    let mut g = Gen(seed);
    let x: Vec<(f64, f64)> = (0..batch * block)
        .map(|_| {
            let re = g.unit();
            let im = if ty == "RFFT" { 0.0 } else { g.unit() };
            (re, im)
        })
        .collect();
    let arg = if ty == "RFFT" {
        real(&in_shape, &x.iter().map(|v| v.0).collect::<Vec<_>>())
    } else {
        complex(&in_shape, &x)
    };
    let got = bits_of(&run(&hlo, &[arg]).unwrap_or_else(|e| panic!("{e}\n{hlo}")));
    let out_block: usize = out_dims.iter().product();
    assert_eq!(got.len(), batch * out_block, "{hlo}");
    for t in 0..batch {
        let want = direct(ty, lengths, &x[t * block..(t + 1) * block]);
        for (o, (re, im)) in want.iter().enumerate() {
            let bits = got[t * out_block + o];
            let (r, i) = if out_ty == re_ty {
                (bits as u64, 0)
            } else {
                complex_parts(fmt, bits)
            };
            let (wr, wi) = (round_exact(fmt, re), round_exact(fmt, im));
            assert!(
                same(fmt, r, wr) && (out_ty == re_ty || same(fmt, i, wi)),
                "{ty} {lengths:?} batch {t} output {o}: got ({r:x}, {i:x}), want ({wr:x}, {wi:x})"
            );
        }
    }
}

#[test]
fn every_type_and_length_matches_the_direct_sum() {
    let start = Instant::now();
    let cases: &[&[usize]] = &[
        &[1],
        &[5],
        &[8],
        &[7],
        &[3, 4],
        &[4, 5],
        &[2, 3, 2],
        &[2, 1, 3],
    ];
    for ty in ["FFT", "IFFT", "RFFT", "IRFFT"] {
        for (c, lengths) in cases.iter().enumerate() {
            check(ty, lengths, 2, c % 2 == 1, 17 + c as u64);
        }
    }
    eprintln!("fft direct checks: {:?}", start.elapsed());
}

#[test]
fn length_zero_gives_empty_results() {
    for (ty, in_s, out_s) in [
        ("FFT", "c64[2,0]", "c64[2,0]"),
        ("IRFFT", "c64[2,0]", "f32[2,0]"),
    ] {
        let hlo = module_text(
            &[in_s],
            &format!("{out_s} fft(p0), fft_type={ty}, fft_length={{0}}"),
        );
        let x = complex(in_s, &[]);
        assert!(bits_of(&run(&hlo, &[x]).unwrap()).is_empty());
    }
    // RFFT of length 0 has no outputs (XLA's shape rule: n/2+1 only for n > 0).
    let hlo = module_text(
        &["f32[3,0]"],
        "c64[3,0] fft(p0), fft_type=RFFT, fft_length={0}",
    );
    let got = bits_of(&run(&hlo, &[real("f32[3,0]", &[])]).unwrap());
    assert!(got.is_empty());
    // IRFFT's operand must have the matching half length.
    let hlo = module_text(
        &["c64[2,1]"],
        "f32[2,0] fft(p0), fft_type=IRFFT, fft_length={0}",
    );
    assert!(run(&hlo, &[complex("c64[2,1]", &[(1.0, 0.0); 2])]).is_err());
}

#[test]
fn exact_zeros_are_positive_zero() {
    // A real symmetric sequence x_k = x_{n−k}: its DFT is real; the imaginary parts are exactly
    // 0 (→ +0) while the real parts are exact sums of cosines.
    let n = 7;
    let x = [3.0, 1.0, -2.0, 0.5, 0.5, -2.0, 1.0];
    let hlo = module_text(&["c64[7]"], "c64[7] fft(p0), fft_type=FFT, fft_length={7}");
    let arg = complex("c64[7]", &x.iter().map(|&v| (v, 0.0)).collect::<Vec<_>>());
    let got = bits_of(&run(&hlo, &[arg]).unwrap());
    let want = direct(
        "FFT",
        &[n],
        &x.iter().map(|&v| (v, 0.0)).collect::<Vec<_>>(),
    );
    for (g, (re, _)) in got.iter().zip(&want) {
        let (r, i) = complex_parts(FloatFormat::F32, *g);
        assert_eq!(i, 0, "imaginary part must be +0");
        assert_eq!(r, round_exact(FloatFormat::F32, re));
    }
    // Power-of-two lengths with a constant input: y_0 = n·c exactly, the others exactly 0.
    let hlo = module_text(
        &["c128[8]"],
        "c128[8] fft(p0), fft_type=FFT, fft_length={8}",
    );
    let got = bits_of(&run(&hlo, &[complex("c128[8]", &[(1.5, -0.25); 8])]).unwrap());
    assert_eq!(
        got[0],
        complex_bits(FloatFormat::F64, 12f64.to_bits(), (-2f64).to_bits())
    );
    assert!(got[1..].iter().all(|&b| b == 0), "{got:x?}");
}

#[test]
fn layout_does_not_change_logical_values() {
    let x: Vec<(f64, f64)> = {
        let mut g = Gen(5);
        (0..12).map(|_| (g.unit(), g.unit())).collect()
    };
    let run_with = |out: &str| {
        let hlo = module_text(
            &["c64[3,4]{0,1}"],
            &format!("{out} fft(p0), fft_type=FFT, fft_length={{3,4}}"),
        );
        let arg = complex("c64[3,4]{0,1}", &x);
        bits_of(&run(&hlo, &[arg]).unwrap())
    };
    assert_eq!(run_with("c64[3,4]{0,1}"), run_with("c64[3,4]{1,0}"));
}

#[test]
fn non_finite_inputs_poison_only_their_block() {
    let hlo = module_text(
        &["c64[2,4]"],
        "c64[2,4] fft(p0), fft_type=FFT, fft_length={4}",
    );
    let mut x = vec![(1.0, 0.0); 8];
    x[1] = (f64::NAN, 0.0);
    let got = bits_of(&run(&hlo, &[complex("c64[2,4]", &x)]).unwrap());
    let nan = FloatFormat::F32.nan_bits();
    assert!(got[..4]
        .iter()
        .all(|&b| complex_parts(FloatFormat::F32, b) == (nan, nan)));
    assert_eq!(
        got[4],
        complex_bits(FloatFormat::F32, 4f32.to_bits() as u64, 0)
    );
    assert!(got[5..].iter().all(|&b| b == 0));
}

#[test]
fn bad_types_and_shapes_are_errors() {
    let hlo = module_text(&["f32[4]"], "c64[4] fft(p0), fft_type=FFT, fft_length={4}");
    let r = run(&hlo, &[real("f32[4]", &[0.0; 4])]);
    assert!(matches!(r, Err(BackendError::Unsupported(_))), "{r:?}");
    let hlo = module_text(&["c64[5]"], "c64[5] fft(p0), fft_type=FFT, fft_length={4}");
    let r = run(&hlo, &[complex("c64[5]", &[(0.0, 0.0); 5])]);
    assert!(matches!(r, Err(BackendError::Invalid(_))), "{r:?}");
    let hlo = module_text(&["s32[4]"], "s32[4] fft(p0), fft_type=FFT, fft_length={4}");
    let r = run(
        &hlo,
        &[crate::contraction::test_util::ints("s32[4]", &[0; 4])],
    );
    assert!(matches!(r, Err(BackendError::Unsupported(_))), "{r:?}");
}

#[test]
fn a_64_by_64_block_is_fast_enough() {
    let mut g = Gen(99);
    let x: Vec<(f64, f64)> = (0..4096).map(|_| (g.unit(), g.unit())).collect();
    let hlo = module_text(
        &["c64[64,64]"],
        "c64[64,64] fft(p0), fft_type=FFT, fft_length={64,64}",
    );
    let start = Instant::now();
    let got = bits_of(&run(&hlo, &[complex("c64[64,64]", &x)]).unwrap());
    eprintln!("fft 64x64: {:?}", start.elapsed());
    // Spot-check a few outputs against the direct sum of one element.
    let sum: (f64, f64) = x.iter().fold((0.0, 0.0), |a, v| (a.0 + v.0, a.1 + v.1));
    let (r, i) = complex_parts(FloatFormat::F32, got[0]);
    assert_eq!(f32::from_bits(r as u32), sum.0 as f32);
    assert_eq!(f32::from_bits(i as u32), sum.1 as f32);
}
