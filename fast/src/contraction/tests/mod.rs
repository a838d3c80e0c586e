//! Tests of the contraction family (helpers here; one file per operation): every kernel against a plain scalar implementation written
//! here (logical multi-index loops in f64 over row-major values), on random shapes and layouts
//! (odd sizes, 1 and 0 included), sequentially and split across threads. Float results must lie
//! within `γ(n)·Σ|terms| + ½ ulp` of the f64 sum (issue 5's bound); integer results are exact.

use super::gemm::{self, MatRef};
use super::simd;
use crate::test_rng::Rng;
use crate::Fast;
use conformance_spec::hlo::{parse_module, ConvolutionDimensionNumbers, Window, WindowDimension};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Layout, Literal};
use num_complex::Complex32;

mod conv;
mod dot;
mod reduce;
mod windows;

fn layout_text(rng: &mut Rng, rank: usize) -> String {
    let p = rng.perm(rank);
    let s: Vec<String> = p.iter().map(|d| d.to_string()).collect();
    format!("{{{}}}", s.join(","))
}

fn dims_text(d: &[i64]) -> String {
    d.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn ints_text(d: &[usize]) -> String {
    d.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// A literal of `ty[dims]{layout}` from logical row-major values.
fn literal(ty: ElementType, dims: &[i64], layout: &str, values: &[f64]) -> Literal {
    let m2m: Vec<i64> = layout
        .trim_matches(|c| c == '{' || c == '}')
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let shape = ArrayShape::new(ty, dims.to_vec()).with_layout(Layout::new(m2m));
    if ty.is_integer() {
        let v: Vec<i128> = values.iter().map(|&x| x as i128).collect();
        return Literal::Array(ArrayLiteral::from_i128s(shape, &v).unwrap());
    }
    Literal::Array(ArrayLiteral::from_f64s(shape, values).unwrap())
}

fn random_values(rng: &mut Rng, ty: ElementType, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            if ty.is_integer() {
                rng.range(-128, 127) as f64
            } else {
                // Values exactly representable in the type (the literal rounds them anyway).
                let f = ty.float_format().unwrap();
                f.decode(f.encode(rng.unit() * 4.0))
            }
        })
        .collect()
}

/// Runs `hlo` with the backend sequential and split across threads (identical results required),
/// returning the logical values.
fn run(hlo: &str, args: &[Literal]) -> Vec<f64> {
    let module = parse_module(hlo).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    let seq = Fast::sequential()
        .execute(&module, args)
        .unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    let par = Fast::with_parallel_threshold(1)
        .execute(&module, args)
        .unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    let (s, p) = (seq.as_array().unwrap(), par.as_array().unwrap());
    // Same bits whatever the number of threads (NaN payloads aside).
    let sv = values_of(s);
    let pv = values_of(p);
    for (a, b) in sv.iter().zip(&pv) {
        assert!(
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            "sequential {a} vs parallel {b}\n{hlo}"
        );
    }
    sv
}

/// Logical values of a float or integer literal.
fn values_of(a: &ArrayLiteral) -> Vec<f64> {
    match a.to_f64s() {
        Some(v) => v,
        None => a
            .to_i128s()
            .unwrap()
            .into_iter()
            .map(|x| x as f64)
            .collect(),
    }
}

fn mantissa_bits(ty: ElementType) -> i32 {
    match ty {
        ElementType::F64 => 52,
        ElementType::F32 => 23,
        ElementType::F16 => 10,
        ElementType::Bf16 => 7,
        _ => 0,
    }
}

/// Checks `|got − exact| <= γ(n)·Σ|terms| + ½ ulp(exact)` (u: f32's for f32 and narrower
/// results, f64's for f64), with slack for the f64 sum used as "exact".
fn check_bound(ty: ElementType, got: f64, exact: f64, n: usize, abs_sum: f64, what: &str) {
    if ty.is_integer() {
        assert_eq!(got, exact, "{what}");
        return;
    }
    let u = if ty == ElementType::F64 {
        2f64.powi(-53)
    } else {
        2f64.powi(-24)
    };
    let nu = n as f64 * u;
    let gamma = nu / (1.0 - nu);
    let half_ulp = exact.abs() * 2f64.powi(-mantissa_bits(ty) - 1) + 1e-300;
    let slack = abs_sum * n as f64 * 2f64.powi(-52);
    let err = (got - exact).abs();
    assert!(
        err <= gamma * abs_sum + half_ulp + slack,
        "{what}: got {got}, exact {exact}, n {n}, Σ|t| {abs_sum}"
    );
}

fn rm(dims: &[i64], idx: &[i64]) -> usize {
    idx.iter().zip(dims).fold(0i64, |acc, (&i, &d)| acc * d + i) as usize
}

/// A random window over `dims` (optionally with dilations and reversal).
fn random_window(rng: &mut Rng, inputs: &[i64], dilations: bool, reversal: bool) -> Window {
    Window {
        dimensions: inputs
            .iter()
            .map(|_| WindowDimension {
                size: rng.range(1, 3),
                stride: rng.range(1, 3),
                padding_low: rng.range(-1, 2),
                padding_high: rng.range(-1, 2),
                window_dilation: if dilations { rng.range(1, 2) } else { 1 },
                base_dilation: if dilations { rng.range(1, 2) } else { 1 },
                window_reversal: reversal && rng.below(2) == 0,
            })
            .collect(),
    }
}

/// Input index of output `o`, window `k` in one dimension, or None (padding, holes).
fn source(w: &WindowDimension, input: i64, o: i64, k: i64) -> Option<i64> {
    let p = o * w.stride + k * w.window_dilation - w.padding_low;
    (p >= 0 && p % w.base_dilation == 0 && p / w.base_dilation < input).then(|| p / w.base_dilation)
}

/// The input multi-index of output `o`, window position `k` in every dimension of `window` over
/// inputs of sizes `inputs`, or None when any dimension falls on padding or a hole ([`source`]).
fn window_source(window: &Window, inputs: &[i64], o: &[i64], k: &[i64]) -> Option<Vec<i64>> {
    (0..inputs.len())
        .map(|d| source(&window.dimensions[d], inputs[d], o[d], k[d]))
        .collect()
}

fn out_size(w: &WindowDimension, input: i64) -> i64 {
    let dil = if input == 0 {
        0
    } else {
        (input - 1) * w.base_dilation + 1
    };
    let padded = dil + w.padding_low + w.padding_high;
    let ext = (w.size - 1) * w.window_dilation + 1;
    if padded < ext {
        0
    } else {
        (padded - ext) / w.stride + 1
    }
}

/// The output size of every dimension of `window` over inputs of sizes `inputs` ([`out_size`]).
fn out_sizes(window: &Window, inputs: &[i64]) -> Vec<i64> {
    window
        .dimensions
        .iter()
        .zip(inputs)
        .map(|(w, &i)| out_size(w, i))
        .collect()
}

#[test]
fn gemm_matches_the_scalar_reference() {
    let mut rng = Rng(7);
    for &(m, n, k) in &[
        (0, 3, 2),
        (3, 0, 2),
        (2, 3, 0),
        (1, 1, 1),
        (3, 5, 7),
        (17, 33, 65),
        (64, 1, 100),
        (100, 70, 130),
    ] {
        for col_major in [false, true] {
            let a: Vec<f32> = (0..m * k).map(|_| rng.unit() as f32).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rng.unit() as f32).collect();
            let (ars, acs) = if col_major { (1, m) } else { (k, 1) };
            let lhs = MatRef {
                data: &a,
                offset: 0,
                row_stride: ars,
                col_stride: acs,
            };
            let rhs = MatRef {
                data: &b,
                offset: 0,
                row_stride: n,
                col_stride: 1,
            };
            let mut out = vec![f32::NAN; m * n];
            for threads in [1, 2] {
                gemm::gemm(m, n, k, &mut out, 0, n, false, lhs, rhs, threads).unwrap();
                let a64: Vec<f64> = a.iter().map(|&x| x as f64).collect();
                let b64: Vec<f64> = b.iter().map(|&x| x as f64).collect();
                let want = gemm::reference_gemm(
                    m,
                    n,
                    k,
                    MatRef {
                        data: &a64,
                        offset: 0,
                        row_stride: ars,
                        col_stride: acs,
                    },
                    MatRef {
                        data: &b64,
                        offset: 0,
                        row_stride: n,
                        col_stride: 1,
                    },
                );
                for i in 0..m {
                    for j in 0..n {
                        let abs: f64 = (0..k)
                            .map(|p| (a64[i * ars + p * acs] * b64[p * n + j]).abs())
                            .sum();
                        check_bound(
                            ElementType::F32,
                            out[i * n + j] as f64,
                            want[i * n + j],
                            k,
                            abs,
                            "gemm",
                        );
                    }
                }
            }
        }
    }
    // Complex: against the reference in c32 with a loose bound.
    let (m, n, k) = (5, 6, 9);
    let a: Vec<Complex32> = (0..m * k)
        .map(|_| Complex32::new(rng.unit() as f32, rng.unit() as f32))
        .collect();
    let b: Vec<Complex32> = (0..k * n)
        .map(|_| Complex32::new(rng.unit() as f32, rng.unit() as f32))
        .collect();
    let lhs = MatRef {
        data: &a,
        offset: 0,
        row_stride: k,
        col_stride: 1,
    };
    let rhs = MatRef {
        data: &b,
        offset: 0,
        row_stride: n,
        col_stride: 1,
    };
    let mut out = vec![Complex32::new(0.0, 0.0); m * n];
    gemm::gemm(m, n, k, &mut out, 0, n, false, lhs, rhs, 1).unwrap();
    let want = gemm::reference_gemm(m, n, k, lhs, rhs);
    for (g, w) in out.iter().zip(&want) {
        assert!((g - w).norm() <= 1e-5, "{g} vs {w}");
    }
    // A matrix reaching outside its buffer is an error, not undefined behaviour.
    let short = MatRef {
        data: &a[..3],
        offset: 0,
        row_stride: k,
        col_stride: 1,
    };
    assert!(gemm::gemm(m, n, k, &mut out, 0, n, false, short, rhs, 1).is_err());
}

#[test]
fn int_gemm_wraps() {
    let lhs = [i64::MAX, 2, -3, 4];
    let rhs_t = [2, 1, 5, -7];
    let out = gemm::int_gemm(2, 2, 2, &lhs, &rhs_t, false);
    assert_eq!(
        out,
        vec![
            i64::MAX.wrapping_mul(2).wrapping_add(2),
            i64::MAX.wrapping_mul(5).wrapping_sub(14),
            -6 + 4,
            -15 - 28
        ]
    );
}

#[test]
fn simd_sum_is_the_scalar_sum_bit_for_bit() {
    let mut rng = Rng(3);
    for len in (0..300).chain([1000, 4099, 65_537]) {
        let x: Vec<f32> = (0..len).map(|_| (rng.unit() * 1e3) as f32).collect();
        assert_eq!(
            simd::sum_f32(&x).to_bits(),
            simd::sum_f32_scalar(&x).to_bits(),
            "len {len}"
        );
    }
    // −0 survives (no `+ 0.0` on unused lanes).
    assert_eq!(simd::sum_f32(&[-0.0; 3]).to_bits(), (-0.0f32).to_bits());
    assert_eq!(simd::sum_f32(&[]).to_bits(), (-0.0f32).to_bits());
}

#[test]
fn every_available_sum_path_gives_the_scalar_bits() {
    // AVX-512F and AVX2 where this CPU has them (the scalar path always), on every tail length
    // and on values whose sums depend on the order (mixed signs and magnitudes, -0, infinities).
    let mut rng = Rng(11);
    let isas = crate::kernels::Isa::available();
    for len in (0..200).chain([257, 4099, 65_537]) {
        let x: Vec<f32> = (0..len)
            .map(|k| match k % 97 {
                13 => -0.0,
                41 if len > 150 => f32::INFINITY,
                _ => ((rng.unit() - 0.5) * 1e3) as f32 * 10f32.powi(k % 7 - 3),
            })
            .collect();
        let want = simd::sum_f32_scalar(&x).to_bits();
        for &isa in &isas {
            assert_eq!(
                simd::sum_f32_with(isa, &x).to_bits(),
                want,
                "{isa:?} len {len}"
            );
        }
    }
    for &isa in &isas {
        for len in 0..70 {
            let x = vec![-0.0f32; len];
            assert_eq!(
                simd::sum_f32_with(isa, &x).to_bits(),
                (-0.0f32).to_bits(),
                "{isa:?}"
            );
        }
    }
}
