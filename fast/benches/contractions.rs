//! Throughput of the contraction family in the fast backend (`execute()` including the allocation
//! of the output literal). Throughput "elements" are floating-point operations for dot and
//! convolution (so criterion's `Gelem/s` reads GFLOP/s) and bytes read for the reduction:
//! - `dot_f32_2048`: `f32[2048,2048] · f32[2048,2048]`, 2·2048³ flops;
//! - `dot_f32_256`: `f32[256,256] · f32[256,256]`, 2·256³ flops;
//! - `conv_nchw_8x64x56x56_k64x3x3`: `f32[8,64,56,56]` (NCHW) with `f32[64,64,3,3]` (OIHW), stride
//!   1, SAME padding (1 on each side), 2·N·K·C·R·S·H·W flops;
//! - `reduce_sum_f32_16m`: sum of `f32[16777216]` to a scalar, 64 MiB read.
//!
//! Measured 2026-11-22 on the 2-vCPU AMD EPYC development guest (load average 1.9, criterion
//! medians): dot 2048³ 205 GFLOP/s, dot 256³ 192 GFLOP/s, convolution 147 GFLOP/s, reduce-sum
//! 52.8 GiB/s; one thread, per second of its CPU time: 103.7, 110.9, 81.5 GFLOP/s and 26.5 GB/s.
//!
//! On a shared machine wall-clock figures depend on the other load. With the environment variable
//! `CONTRACTIONS_CPU_TIME=1` the binary instead runs each workload on one thread
//! (`Fast::sequential()`) and prints its throughput per second of that thread's CPU time (Linux
//! `CLOCK_THREAD_CPUTIME_ID`): a per-core figure that other processes barely disturb (they still
//! share the L3 cache and memory bandwidth).

mod common;
use common::{module, values};
use conformance_fast::Fast;
use conformance_spec::{Backend, HloModule, Literal};
use criterion::{criterion_group, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

/// The four workloads: name, module, arguments, work units per call (flops or bytes), unit.
fn workloads() -> Vec<(String, HloModule, Vec<Literal>, f64, &'static str)> {
    let mut out = Vec::new();
    for n in [2048i64, 256] {
        let m = module(&format!(
            "HloModule d\nENTRY e {{\n  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{n}] parameter(1)\n  ROOT d = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
        ));
        let args = vec![values(&[n, n], 1), values(&[n, n], 2)];
        out.push((
            format!("dot_f32_{n}"),
            m,
            args,
            (2 * n * n * n) as f64,
            "FLOP",
        ));
    }
    let m = module(
        "HloModule c\nENTRY e {\n  x = f32[8,64,56,56] parameter(0)\n  w = f32[64,64,3,3] parameter(1)\n  ROOT c = f32[8,64,56,56] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01\n}\n",
    );
    let args = vec![values(&[8, 64, 56, 56], 3), values(&[64, 64, 3, 3], 4)];
    out.push((
        "conv_nchw_8x64x56x56_k64x3x3".into(),
        m,
        args,
        (2 * 8 * 64 * 64 * 9 * 56 * 56) as f64,
        "FLOP",
    ));
    let n = 1i64 << 24;
    let m = module(&format!(
        "HloModule r\nadd {{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}}\nENTRY e {{\n  a = f32[{n}] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(a, z), dimensions={{0}}, to_apply=add\n}}\n"
    ));
    out.push((
        "reduce_sum_f32_16m".into(),
        m,
        vec![values(&[n], 5)],
        (n * 4) as f64,
        "B",
    ));
    out
}

/// Seconds of CPU time used by the calling thread.
#[cfg(target_os = "linux")]
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a constant Linux supports.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Per-core throughput per second of thread CPU time (see the module docs).
#[cfg(target_os = "linux")]
fn cpu_time_report() {
    let fast = Fast::sequential();
    for (name, m, args, work, unit) in workloads() {
        black_box(fast.execute(&m, &args).expect("runs"));
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t0 = thread_cpu_seconds();
            black_box(fast.execute(&m, black_box(&args)).expect("runs"));
            best = best.min(thread_cpu_seconds() - t0);
        }
        println!(
            "{name}: {:.1} G{unit}/s per core ({:.3} ms of CPU time, one thread)",
            work / best * 1e-9,
            best * 1e3
        );
    }
}

fn bench(c: &mut Criterion) {
    let fast = Fast::new();
    let mut g = c.benchmark_group("contractions");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for (name, m, args, work, unit) in workloads() {
        g.throughput(if unit == "B" {
            Throughput::Bytes(work as u64)
        } else {
            Throughput::Elements(work as u64)
        });
        g.bench_function(name, |b| {
            b.iter(|| black_box(fast.execute(&m, black_box(&args)).expect("runs")))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);

fn main() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("CONTRACTIONS_CPU_TIME").is_some() {
        cpu_time_report();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
