//! Throughput of the fast backend on 16M-element arrays (`execute()` including the allocation of
//! the output literal): add f32 (GB/s of traffic: two inputs and one output, 3 × 64 MiB per call),
//! exp, tanh and logistic f32 (elements/s), and for information add bf16 and exp f64.

use conformance_fast::Fast;
use conformance_spec::{ArrayShape, Backend, ElementType, Literal, Opcode};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/mod.rs"]
mod common;

const N: usize = 16 << 20;

/// `n` deterministic values in [lo, hi) of `ty` ([`common::uniform_values`]).
fn values(ty: ElementType, lo: f64, hi: f64, seed: u64) -> Literal {
    common::uniform_values(ty, N, lo, hi, seed)
}

fn bench(c: &mut Criterion) {
    let fast = Fast::new();
    let mut g = c.benchmark_group("elementwise");
    g.sample_size(20).measurement_time(Duration::from_secs(6));

    for ty in [ElementType::F32, ElementType::Bf16] {
        let shape = ArrayShape::new(ty, vec![N as i64]);
        let m = common::single_op(Opcode::Add, &[shape.clone(), shape.clone()], shape, vec![]);
        let args = [values(ty, -10.0, 10.0, 1), values(ty, -10.0, 10.0, 2)];
        g.throughput(Throughput::Bytes((3 * N * ty.byte_width()) as u64));
        g.bench_function(format!("add_{ty}_16M"), |b| {
            b.iter(|| black_box(fast.execute(&m, black_box(&args)).expect("add")))
        });
    }

    for (op, ty, lo, hi) in [
        (Opcode::Exponential, ElementType::F32, -20.0, 20.0),
        (Opcode::Tanh, ElementType::F32, -5.0, 5.0),
        (Opcode::Logistic, ElementType::F32, -20.0, 20.0),
        (Opcode::Exponential, ElementType::F64, -20.0, 20.0),
    ] {
        let shape = ArrayShape::new(ty, vec![N as i64]);
        let m = common::single_op(op, std::slice::from_ref(&shape), shape.clone(), vec![]);
        let args = [values(ty, lo, hi, 3)];
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(format!("{op}_{ty}_16M"), |b| {
            b.iter(|| black_box(fast.execute(&m, black_box(&args)).expect("op")))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
