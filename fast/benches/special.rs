//! Throughput of the CHLO special functions (`elementwise::special`) on 1M-element f32 and f64
//! arrays (`execute()` including the output allocation), for comparison with XLA's CPU backend
//! (`jax.jit(jax.lax.<op>)` on the same sizes and ranges).

use conformance_fast::Fast;
use conformance_spec::{ArrayShape, Backend, ElementType, Literal, Opcode};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/mod.rs"]
mod common;

const N: usize = 1 << 20;

/// `n` deterministic values in [lo, hi) of `ty` ([`common::uniform_values`]).
fn values(ty: ElementType, lo: f64, hi: f64, seed: u64) -> Literal {
    common::uniform_values(ty, N, lo, hi, seed)
}

fn bench(c: &mut Criterion) {
    use Opcode::*;
    let fast = Fast::new();
    let mut g = c.benchmark_group("special");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(N as u64));
    let ranges: [(Opcode, &[(f64, f64)]); 16] = [
        (Asin, &[(-1.0, 1.0)]),
        (Acos, &[(-1.0, 1.0)]),
        (Atan, &[(-10.0, 10.0)]),
        (Sinh, &[(-10.0, 10.0)]),
        (Cosh, &[(-10.0, 10.0)]),
        (Asinh, &[(-10.0, 10.0)]),
        (Acosh, &[(1.0, 10.0)]),
        (Atanh, &[(-1.0, 1.0)]),
        (Erfc, &[(-3.0, 8.0)]),
        (ErfInv, &[(-1.0, 1.0)]),
        (Lgamma, &[(0.1, 20.0)]),
        (Digamma, &[(0.1, 20.0)]),
        (BesselI1e, &[(-20.0, 20.0)]),
        (NextAfter, &[(-10.0, 10.0), (-10.0, 10.0)]),
        (Zeta, &[(1.5, 10.0), (0.1, 10.0)]),
        (Polygamma, &[(1.0, 1.0), (0.1, 10.0)]),
    ];
    for ty in [ElementType::F32, ElementType::F64] {
        let shape = ArrayShape::new(ty, vec![N as i64]);
        for (op, r) in ranges {
            let args: Vec<Literal> = r
                .iter()
                .enumerate()
                .map(|(i, &(lo, hi))| values(ty, lo, hi, 3 + i as u64))
                .collect();
            let m = common::single_op(op, &vec![shape.clone(); args.len()], shape.clone(), vec![]);
            g.bench_function(format!("{op}_{ty}_1M"), |b| {
                b.iter(|| black_box(fast.execute(&m, black_box(&args)).expect("op")))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
