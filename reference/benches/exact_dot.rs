//! Throughput of the exact reference `dot` in multiply-accumulates per second (MAC/s) for f32
//! matrix products (64x64x64 and 128x128x128; every result element an exact sum of exact
//! products rounded once): `CARGO_TARGET_DIR=... cargo bench -p conformance-reference --bench
//! exact_dot`. Criterion's "elements" throughput is MAC/s (m·n·k MACs per iteration).

use conformance_reference::Reference;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{Backend, ElementType};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// Deterministic f32 values in [-1, 1) (an LCG; no RNG dependency).
fn values(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 40) as f64 / (1u64 << 24) as f64;
            f64::from((2.0 * u - 1.0) as f32)
        })
        .collect()
}

fn matrix(rows: i64, cols: i64, seed: u64) -> Literal {
    let shape = ArrayShape::new(ElementType::F32, vec![rows, cols]);
    let v = values(seed, (rows * cols) as usize);
    Literal::Array(ArrayLiteral::from_f64s(shape, &v).expect("shape and values agree"))
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("exact_dot_f32");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1));
    for n in [64i64, 128] {
        let hlo = format!(
            "HloModule dot\nENTRY e {{\n  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{n}] parameter(1)\n  ROOT d = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
        );
        let module = parse_module(&hlo).expect("benchmark HLO parses");
        let args = [matrix(n, n, 1), matrix(n, n, 2)];
        group.throughput(Throughput::Elements((n * n * n) as u64));
        group.bench_function(format!("{n}x{n}x{n}"), |b| {
            b.iter(|| {
                Reference
                    .execute(black_box(&module), black_box(&args))
                    .expect("dot runs")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
