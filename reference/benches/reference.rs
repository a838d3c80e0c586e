//! Throughput of the exact reference (elements per second) on representative element-wise ops,
//! 4096 elements each: `CARGO_TARGET_DIR=... cargo bench -p conformance-reference`.

use conformance_reference::Reference;
use conformance_spec::hlo::ir::{HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::literal::{complex_bits, ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::{Backend, ElementType, FloatFormat};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const N: usize = 4096;

fn instruction(name: &str, opcode: Opcode, shape: Shape, operands: Vec<usize>) -> HloInstruction {
    HloInstruction {
        name: name.into(),
        opcode,
        shape,
        operands,
        parameter_number: None,
        literal: None,
        attributes: vec![],
    }
}

/// `ROOT op = out[N] opcode(p0, ...)` over `arity` parameters of type `input`.
fn module(opcode: Opcode, input: ElementType, arity: usize, output: ElementType) -> HloModule {
    let mut instructions: Vec<HloInstruction> = (0..arity)
        .map(|i| {
            let mut p = instruction(
                &format!("p{i}"),
                Opcode::Parameter,
                Shape::array(input, vec![N as i64]),
                vec![],
            );
            p.parameter_number = Some(i as i64);
            p
        })
        .collect();
    instructions.push(instruction(
        "op",
        opcode,
        Shape::array(output, vec![N as i64]),
        (0..arity).collect(),
    ));
    HloModule {
        name: format!("bench_{opcode}"),
        header_attributes: vec![],
        computations: vec![HloComputation {
            name: "main".into(),
            root: arity,
            instructions,
        }],
        entry: 0,
    }
}

/// Deterministic values spread over a useful range (a simple LCG; no RNG dependency).
fn values(seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed;
    (0..N)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

fn floats(ty: ElementType, seed: u64, lo: f64, hi: f64) -> Literal {
    ArrayLiteral::from_f64s(ArrayShape::new(ty, vec![N as i64]), &values(seed, lo, hi))
        .expect("shape")
        .into()
}

fn complexes(seed: u64) -> Literal {
    let f = FloatFormat::F32;
    let re = values(seed, -10.0, 10.0);
    let im = values(seed + 1, -10.0, 10.0);
    let bits: Vec<u128> = re
        .iter()
        .zip(&im)
        .map(|(&a, &b)| complex_bits(f, f.encode(a), f.encode(b)))
        .collect();
    ArrayLiteral::from_bits(ArrayShape::new(ElementType::C64, vec![N as i64]), &bits)
        .expect("shape")
        .into()
}

fn bench(c: &mut Criterion) {
    use ElementType::*;
    let cases: Vec<(&str, HloModule, Vec<Literal>)> = vec![
        (
            "add_f32",
            module(Opcode::Add, F32, 2, F32),
            vec![floats(F32, 1, -1e3, 1e3), floats(F32, 2, -1e3, 1e3)],
        ),
        (
            "exp_f32",
            module(Opcode::Exponential, F32, 1, F32),
            vec![floats(F32, 3, -90.0, 90.0)],
        ),
        (
            "exp_f64",
            module(Opcode::Exponential, F64, 1, F64),
            vec![floats(F64, 4, -700.0, 700.0)],
        ),
        (
            "tanh_bf16",
            module(Opcode::Tanh, Bf16, 1, Bf16),
            vec![floats(Bf16, 5, -5.0, 5.0)],
        ),
        (
            "logistic_f32",
            module(Opcode::Logistic, F32, 1, F32),
            vec![floats(F32, 6, -20.0, 20.0)],
        ),
        (
            "multiply_c64",
            module(Opcode::Multiply, C64, 2, C64),
            vec![complexes(7), complexes(9)],
        ),
        (
            "convert_f32_f8e4m3fn",
            module(Opcode::Convert, F32, 1, F8E4M3FN),
            vec![floats(F32, 11, -500.0, 500.0)],
        ),
    ];
    let mut group = c.benchmark_group("reference");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(N as u64));
    for (name, m, args) in &cases {
        group.bench_function(*name, |b| {
            b.iter(|| {
                Reference
                    .execute(black_box(m), black_box(args))
                    .expect("runs")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
