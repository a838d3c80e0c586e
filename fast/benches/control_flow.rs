//! Control flow in the fast backend (`execute()` end to end, output allocation included):
//! - `sort_f32_1M`: `f32[1048576]` sorted with `compare(p0, p1), direction=LT, type=TOTALORDER`;
//! - `sort_kv_f32_s32_1M`: f32 keys with an s32 payload (an iota), the comparator JAX emits for
//!   `jnp.argsort` / `lax.sort(..., num_keys=1)` (NaN and zero canonicalization, TOTALORDER LT);
//! - `topk_f32_1024x1024_k8`: `topk` of `f32[1024,1024]`, k=8, largest;
//! - `while_1000_small_body`: 1000 trips of a body that increments an s32 counter and computes
//!   `x = x * 0.5 + 1` on `f32[16]` (a compiled loop: four kernels and a buffer swap a trip);
//! - `while_1_small_body`: the same loop for one trip (the fixed cost: building the plan and
//!   running the entry).
//!
//! Values are uniform in [-1, 1) from a 64-bit LCG.
//!
//! Measured on the 2-vCPU development guest under load from other work (load average 3.6,
//! criterion medians, warm-up 1 s, measurement 3 s): sort_f32_1M 22 ms, sort_kv_f32_s32_1M
//! 53-65 ms, topk 4.8 ms, while 4.3 ms (4.3 µs a trip). XLA's CPU backend through jaxlib on the
//! same machine at the same time: jnp.sort 346 ms, the (f32, s32) num_keys=1 sort 488 ms,
//! lax.top_k 5.8 ms, the while loop 0.03 ms (compiled).
//!
//! With compiled loops (`control_flow::loop_plan`), on an idle guest (AMD EPYC Zen 3, AVX2):
//! while_1000_small_body 34 µs (5 µs building the plan and running the entry, 29 ns a trip),
//! against 3.7 ms interpreted.
//!
//! AMD EPYC Zen 4 (AVX-512), 2 vCPUs, criterion medians: while_1000_small_body 29.1 µs and
//! while_1_small_body 9.9 µs before shapes stopped comparing empty vectors through `memcmp`
//! (`conformance_spec::shape::slices_equal`: ~85 ns a comparison on Zen 4), 24.2 µs and 3.5 µs
//! after (about 20 ns a trip).

mod common;
use common::{module, values};
use conformance_fast::Fast;
use conformance_spec::{Backend, HloModule, Literal};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

const N: i64 = 1 << 20;

fn sort_f32() -> HloModule {
    module(&format!(
        "HloModule s\ncmp {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}}\nENTRY e {{\n  x = f32[{N}] parameter(0)\n  ROOT s = f32[{N}] sort(x), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n"
    ))
}

fn argsort_f32() -> HloModule {
    module(&format!(
        r#"HloModule kv
cmp {{
  q2 = s32[] parameter(2)
  q3 = s32[] parameter(3)
  a = f32[] parameter(0)
  ne.2 = pred[] compare(a, a), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.2 = pred[] compare(a, zero), direction=EQ
  s4 = f32[] select(eq.2, zero, a)
  s5 = f32[] select(ne.2, nan, s4)
  b = f32[] parameter(1)
  ne.3 = pred[] compare(b, b), direction=NE
  eq.3 = pred[] compare(b, zero), direction=EQ
  s6 = f32[] select(eq.3, zero, b)
  s7 = f32[] select(ne.3, nan, s6)
  ROOT lt = pred[] compare(s5, s7), direction=LT, type=TOTALORDER
}}
ENTRY e {{
  x = f32[{N}] parameter(0)
  i = s32[{N}] iota(), iota_dimension=0
  ROOT s = (f32[{N}], s32[{N}]) sort(x, i), dimensions={{0}}, is_stable=true, to_apply=cmp
}}
"#
    ))
}

fn topk() -> HloModule {
    module("HloModule t\nENTRY e {\n  x = f32[1024,1024] parameter(0)\n  ROOT t = (f32[1024,8], s32[1024,8]) topk(x), k=8, largest=true\n}\n")
}

/// The loop of `trips` trips (its fixed cost, the plan and the entry, is what `trips = 1` shows).
fn while_loop(trips: u32) -> HloModule {
    module(
        &r#"HloModule w
cond {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(TRIPS)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  x = f32[16] get-tuple-element(s), index=1
  half = f32[] constant(0.5)
  h = f32[16] broadcast(half), dimensions={}
  m = f32[16] multiply(x, h)
  onef = f32[] constant(1)
  o = f32[16] broadcast(onef), dimensions={}
  y = f32[16] add(m, o)
  ROOT t = (s32[], f32[16]) tuple(j, y)
}
ENTRY e {
  x = f32[16] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[16]) tuple(zero, x)
  w = (s32[], f32[16]) while(init), condition=cond, body=body
  ROOT r = f32[16] get-tuple-element(w), index=1
}
"#
        .replace("TRIPS", &trips.to_string()),
    )
}

fn bench(c: &mut Criterion) {
    let fast = Fast::new();
    let mut g = c.benchmark_group("control_flow");
    g.sample_size(10);
    let cases: Vec<(&str, HloModule, Vec<Literal>, u64)> = vec![
        ("sort_f32_1M", sort_f32(), vec![values(&[N], 1)], N as u64),
        (
            "sort_kv_f32_s32_1M",
            argsort_f32(),
            vec![values(&[N], 2)],
            N as u64,
        ),
        (
            "topk_f32_1024x1024_k8",
            topk(),
            vec![values(&[1024, 1024], 3)],
            1 << 20,
        ),
        (
            "while_1000_small_body",
            while_loop(1000),
            vec![values(&[16], 4)],
            1000,
        ),
        (
            "while_1_small_body",
            while_loop(1),
            vec![values(&[16], 4)],
            1,
        ),
    ];
    for (name, m, args, elements) in &cases {
        g.throughput(Throughput::Elements(*elements));
        g.bench_function(*name, |b| {
            b.iter(|| black_box(fast.execute(m, black_box(args)).expect(name)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
