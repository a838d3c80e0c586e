//! Throughput of the linear-algebra family in the fast backend (`execute()` end to end, including
//! the copy of the operand and the allocation of the output literal):
//! - `fft_c64_1M`: 1-D FFT of `c64[1048576]`;
//! - `rfft_f32_1024x1024`: 2-D RFFT of `f32[1024,1024]` to `c64[1024,513]`;
//! - `cholesky_f32_1024`: `f32[1024,1024]` (symmetric positive definite), `lower=true`;
//! - `trsm_f32_1024x1024`: `triangular-solve` of `f32[1024,1024]` (lower, left side) with
//!   `f32[1024,1024]`;
//! - `batch_norm_training_f32_8x64x56x56`: `feature_index=1`.
//!
//! Throughput "elements" are the conventional flop counts (`5·N·log2 N` for an FFT, `2.5·N·log2 N`
//! for the real one, `n³/3` for Cholesky, `n²·k` for the solve) so criterion's `Gelem/s` reads
//! GFLOP/s; for batch norm they are elements of `x`.

mod common;
use common::{module, values};
use conformance_fast::Fast;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, HloModule, Literal};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// A row-major c64 literal with components in [-1, 1).
fn complex_values(n: usize, seed: u64) -> Literal {
    let re = values(&[n as i64], seed).into_array().expect("array");
    let im = values(&[n as i64], seed + 1).into_array().expect("array");
    let (re, im) = (re.to_f64s().expect("f32"), im.to_f64s().expect("f32"));
    let v: Vec<(f64, f64)> = re.into_iter().zip(im).collect();
    ArrayLiteral::from_complex(ArrayShape::new(ElementType::C64, vec![n as i64]), &v)
        .expect("sized")
        .into()
}

/// An `n × n` symmetric positive definite f32 matrix: random entries in [-1, 1) symmetrized, plus
/// `n` on the diagonal (diagonally dominant).
fn spd(n: usize) -> Literal {
    let r = values(&[n as i64, n as i64], 7)
        .into_array()
        .expect("array")
        .to_f64s()
        .expect("f32");
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] =
                0.5 * (r[i * n + j] + r[j * n + i]) + if i == j { n as f64 } else { 0.0 };
        }
    }
    ArrayLiteral::from_f64s(
        ArrayShape::new(ElementType::F32, vec![n as i64, n as i64]),
        &a,
    )
    .expect("sized")
    .into()
}

/// The five workloads: name, module, arguments, work units per call.
fn workloads() -> Vec<(&'static str, HloModule, Vec<Literal>, f64)> {
    let n = 1usize << 20;
    let log = |n: usize| (n as f64).log2();
    let mut out = vec![(
        "fft_c64_1M",
        module("HloModule f\nENTRY e {\n  x = c64[1048576] parameter(0)\n  ROOT f = c64[1048576] fft(x), fft_type=FFT, fft_length={1048576}\n}\n"),
        vec![complex_values(n, 1)],
        5.0 * n as f64 * log(n),
    )];
    out.push((
        "rfft_f32_1024x1024",
        module("HloModule r\nENTRY e {\n  x = f32[1024,1024] parameter(0)\n  ROOT f = c64[1024,513] fft(x), fft_type=RFFT, fft_length={1024,1024}\n}\n"),
        vec![values(&[1024, 1024], 2)],
        2.5 * n as f64 * log(n),
    ));
    out.push((
        "cholesky_f32_1024",
        module("HloModule c\nENTRY e {\n  a = f32[1024,1024] parameter(0)\n  ROOT c = f32[1024,1024] cholesky(a), lower=true\n}\n"),
        vec![spd(1024)],
        1024f64.powi(3) / 3.0,
    ));
    out.push((
        "trsm_f32_1024x1024",
        module("HloModule t\nENTRY e {\n  a = f32[1024,1024] parameter(0)\n  b = f32[1024,1024] parameter(1)\n  ROOT x = f32[1024,1024] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}\n"),
        vec![spd(1024), values(&[1024, 1024], 3)],
        1024f64.powi(3),
    ));
    out.push((
        "batch_norm_training_f32_8x64x56x56",
        module("HloModule b\nENTRY e {\n  x = f32[8,64,56,56] parameter(0)\n  s = f32[64] parameter(1)\n  o = f32[64] parameter(2)\n  ROOT t = (f32[8,64,56,56], f32[64], f32[64]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1\n}\n"),
        vec![values(&[8, 64, 56, 56], 4), values(&[64], 5), values(&[64], 6)],
        (8 * 64 * 56 * 56) as f64,
    ));
    out
}

fn bench(c: &mut Criterion) {
    let fast = Fast::new();
    let mut group = c.benchmark_group("linalg");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (name, m, args, work) in workloads() {
        fast.execute(&m, &args).expect("bench module runs");
        group.throughput(Throughput::Elements(work as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(fast.execute(&m, &args).expect("runs")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
