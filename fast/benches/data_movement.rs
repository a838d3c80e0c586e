//! Throughput of data movement in the fast backend (`execute()` including the allocation of the
//! output literal), in bytes of memory traffic per call:
//! - `transpose_f32_4096`: `transpose(f32[4096,4096]), dimensions={1,0}`, default layouts
//!   (64 MiB read + 64 MiB written);
//! - `gather_1m_rows_64_f32`: 1,048,576 rows of 64 f32 gathered from `f32[65536,64]` by
//!   `s32[1048576,1]` indices (256 MiB read + 4 MiB of indices + 256 MiB written).

use conformance_fast::Fast;
use conformance_spec::hlo::{AttrValue, Attribute};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, Backend, ElementType, Literal, Opcode};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

#[path = "../tests/common/mod.rs"]
mod common;

/// A literal of `shape` whose physical bytes follow a 64-bit LCG (any bits: data movement does not
/// look at values).
fn noise(shape: ArrayShape, seed: u64) -> Literal {
    let bytes =
        conformance_spec::index::physical_element_count(&shape) * shape.element_type.byte_width();
    let mut s = seed;
    let data: Vec<u8> = (0..bytes)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 56) as u8
        })
        .collect();
    ArrayLiteral::from_physical_bytes(shape, data)
        .expect("sized")
        .into()
}

fn ints(name: &str, v: &[i64]) -> Attribute {
    Attribute {
        name: name.into(),
        value: AttrValue::Ints(v.to_vec()),
    }
}

fn bench(c: &mut Criterion) {
    let fast = Fast::new();
    let mut g = c.benchmark_group("data_movement");
    g.sample_size(20).measurement_time(Duration::from_secs(8));

    let n = 4096i64;
    let shape = ArrayShape::new(ElementType::F32, vec![n, n]);
    let m = common::single_op(
        Opcode::Transpose,
        std::slice::from_ref(&shape),
        shape.clone(),
        vec![ints("dimensions", &[1, 0])],
    );
    let args = [noise(shape, 1)];
    g.throughput(Throughput::Bytes(2 * (n * n * 4) as u64));
    g.bench_function("transpose_f32_4096", |b| {
        b.iter(|| black_box(fast.execute(&m, black_box(&args)).expect("transpose")))
    });

    let rows = 1i64 << 20;
    let table = 1i64 << 16;
    let operand = ArrayShape::new(ElementType::F32, vec![table, 64]);
    let indices = ArrayShape::new(ElementType::S32, vec![rows, 1]);
    let result = ArrayShape::new(ElementType::F32, vec![rows, 64]);
    let m = common::single_op(
        Opcode::Gather,
        &[operand.clone(), indices.clone()],
        result,
        vec![
            ints("offset_dims", &[1]),
            ints("collapsed_slice_dims", &[0]),
            ints("start_index_map", &[0]),
            common::attr_int("index_vector_dim", 1),
            ints("slice_sizes", &[1, 64]),
        ],
    );
    let mut s = 7u64;
    let idx: Vec<i128> = (0..rows)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % table as u64) as i128
        })
        .collect();
    let args = [
        noise(operand, 2),
        ArrayLiteral::from_i128s(indices, &idx)
            .expect("indices")
            .into(),
    ];
    g.throughput(Throughput::Bytes((rows * 64 * 4 * 2 + rows * 4) as u64));
    g.bench_function("gather_1m_rows_64_f32", |b| {
        b.iter(|| black_box(fast.execute(&m, black_box(&args)).expect("gather")))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
