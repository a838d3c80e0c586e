//! `conformance bench`: the same HLO cases timed on several backends in one run (issue 7), with
//! the ratio of each backend's time to the last one's (by default `fast / xla`).
//!
//! The cases are the sizes the fast backend's criterion benchmarks use (issues 4 and 5):
//! `dot_f32_256`, `dot_f32_2048` (2·n³ flops), `conv_nchw_8x64x56x56_k64x3x3`, `add_f32_16M`,
//! `exp_f32_16M`, `tanh_f32_16M`, `reduce_sum_f32_16M`, `transpose_f32_4096`,
//! `gather_1m_rows_64_f32`, and the control-flow family's (issue 15): `sort_f32_1M` (the
//! comparator `jnp.sort` emits), `sort_kv_f32_s32_1M` (`jnp.argsort`'s key-value sort),
//! `topk_f32_1024x1024_k8` and `while_1000_small_body`, and the numerical family's (issue 17):
//! `fft_c64_1M`, `rfft_f32_1024x1024`, `cholesky_f32_1024` (a diagonally dominant, hence
//! positive-definite, matrix), `trsm_f32_1024x1024` (a diagonally dominant lower triangle) and
//! `batch_norm_training_f32_8x64x56x56`, and two LAPACK custom calls as JAX emits them
//! (column-major, docs/custom-calls.md): `lapack_getrf_f32_512` (`jnp.linalg.solve`'s LU) and
//! `lapack_syevd_f32_256` (`jnp.linalg.eigh`), and random bits (issue 18):
//! `rng_bit_generator_philox_u32_16M` and `rng_bit_generator_three_fry_u32_16M`, and collectives
//! over several devices (docs/collectives.md): `all_reduce_f32_8x1M` (a sum over 8 replicas of
//! 2²⁰ elements each; XLA runs it on 8 host devices). Each is run once to warm up (XLA compiles
//! then; compiled programs are cached by the worker), then repeated until both `repeat` runs and
//! `min_time` have passed; the median is reported. Backends are timed one after the other, not
//! interleaved: a worker's runtime keeps its threads spinning for a while after a run (XLA's
//! thread pools, OpenBLAS), which would be charged to whichever backend runs next (measured:
//! fast's gather took twice as long right after XLA's).
//!
//! What is timed: for in-process backends, `execute()` (output allocation included, inputs
//! already in memory); for a worker that reports `execute_micros` in its results
//! (docs/protocol.md), the worker's own time of the compiled program's execution, so transfers
//! through the pipe are not counted; the round trip is shown beside it.

use crate::backends;
use crate::generate::rng::Rng;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::{Backend, HloModule};
use std::io::Write;
use std::time::{Duration, Instant};

/// One benchmark case: a module and its inputs.
pub struct BenchCase {
    pub name: &'static str,
    pub module: HloModule,
    pub args: Vec<Literal>,
    /// What one run does, for the table (e.g. "2·2048³ flops").
    pub work: String,
}

/// The names of the cases, in order.
pub const CASES: &[&str] = &[
    "dot_f32_256",
    "dot_f32_2048",
    "conv_nchw_8x64x56x56_k64x3x3",
    "add_f32_16M",
    "exp_f32_16M",
    "tanh_f32_16M",
    "reduce_sum_f32_16M",
    "transpose_f32_4096",
    "gather_1m_rows_64_f32",
    "sort_f32_1M",
    "sort_kv_f32_s32_1M",
    "topk_f32_1024x1024_k8",
    "while_1000_small_body",
    "fft_c64_1M",
    "rfft_f32_1024x1024",
    "cholesky_f32_1024",
    "trsm_f32_1024x1024",
    "batch_norm_training_f32_8x64x56x56",
    "lapack_getrf_f32_512",
    "lapack_syevd_f32_256",
    "rng_bit_generator_philox_u32_16M",
    "rng_bit_generator_three_fry_u32_16M",
    "all_reduce_f32_8x1M",
];

/// The comparator `jnp.sort` / `jnp.argsort` emit for f32 keys (NaN → +NaN, −0 → +0, then LT in
/// the total order), over `extra` further operand types (their parameters unused).
fn jax_comparator(extra: &[&str]) -> String {
    let mut params = String::new();
    for (k, t) in extra.iter().enumerate() {
        params += &format!(
            "  q{a} = {t}[] parameter({a})\n  q{b} = {t}[] parameter({b})\n",
            a = 2 + 2 * k,
            b = 3 + 2 * k
        );
    }
    format!(
        "cmp {{\n{params}  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  nan = f32[] constant(nan)\n  zero = f32[] constant(0)\n  an = pred[] compare(a, a), direction=NE\n  az = pred[] compare(a, zero), direction=EQ\n  a1 = f32[] select(az, zero, a)\n  a2 = f32[] select(an, nan, a1)\n  bn = pred[] compare(b, b), direction=NE\n  bz = pred[] compare(b, zero), direction=EQ\n  b1 = f32[] select(bz, zero, b)\n  b2 = f32[] select(bn, nan, b1)\n  ROOT lt = pred[] compare(a2, b2), direction=LT, type=TOTALORDER\n}}\n"
    )
}

/// Deterministic bits for every element of the parameter's shape: floats uniform in `[lo, hi)`,
/// integers uniform in `[lo, hi)` (the sweep's [`Rng`] seeded by `seed`).
fn values(module: &HloModule, parameter: usize, lo: f64, hi: f64, seed: u64) -> Literal {
    let params = module.entry_computation().parameters();
    let Some(Shape::Array(shape)) = params.get(parameter).map(|p| p.shape.clone()) else {
        return Literal::Token;
    };
    let ty = shape.element_type;
    let mut rng = Rng::new(seed);
    let bits: Vec<u128> = (0..shape.element_count())
        .map(|_| {
            let x = lo + (hi - lo) * rng.unit();
            match ty.float_format() {
                Some(f) if ty.is_complex() => {
                    let y = lo + (hi - lo) * rng.unit();
                    conformance_spec::literal::complex_bits(f, f.encode(x), f.encode(y))
                }
                Some(f) => u128::from(f.encode(x)),
                None => ty.integer_to_bits(x.floor() as i128).map_or(0, u128::from),
            }
        })
        .collect();
    ArrayLiteral::from_bits(shape, &bits).map_or(Literal::Token, Literal::Array)
}

fn case(name: &'static str, hlo: &str, ranges: &[(f64, f64)], work: String) -> BenchCase {
    // The texts below are fixed and valid; a parse error is a bug caught by the unit test.
    let module = parse_module(hlo).unwrap_or_else(|e| panic!("bench case {name}: {e}"));
    let args = ranges
        .iter()
        .enumerate()
        .map(|(k, &(lo, hi))| values(&module, k, lo, hi, k as u64 + 1))
        .collect();
    BenchCase {
        name,
        module,
        args,
        work,
    }
}

/// `case` with the diagonal of its first (square, real) parameter set to its order `n`: with the
/// other entries in [−1, 1) the matrix is diagonally dominant, so the Hermitian matrix read from
/// either triangle is positive definite and a triangle is well-conditioned.
fn dominant(name: &'static str, hlo: &str, ranges: &[(f64, f64)], work: String) -> BenchCase {
    let mut c = case(name, hlo, ranges, work);
    if let Some(Literal::Array(a)) = c.args.first_mut() {
        let n = a.dimensions().last().copied().unwrap_or(0);
        if let Some(f) = a.element_type().float_format() {
            for i in 0..n {
                a.set_bits(&[i, i], u128::from(f.encode(n as f64)));
            }
        }
    }
    c
}

fn elementwise(name: &'static str, op: &str, arity: usize, lo: f64, hi: f64) -> BenchCase {
    let n = 16 << 20;
    let params: String = (0..arity)
        .map(|k| format!("  p{k} = f32[{n}] parameter({k})\n"))
        .collect();
    let operands: Vec<String> = (0..arity).map(|k| format!("p{k}")).collect();
    let hlo = format!(
        "HloModule {name}\nENTRY e {{\n{params}  ROOT r = f32[{n}] {op}({})\n}}\n",
        operands.join(", ")
    );
    case(name, &hlo, &vec![(lo, hi); arity], format!("{n} elements"))
}

fn dot(name: &'static str, n: i64) -> BenchCase {
    let hlo = format!(
        "HloModule {name}\nENTRY e {{\n  a = f32[{n},{n}] parameter(0)\n  b = f32[{n},{n}] parameter(1)\n  ROOT d = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n"
    );
    case(
        name,
        &hlo,
        &[(-1.0, 1.0), (-1.0, 1.0)],
        format!("2·{n}³ flops"),
    )
}

/// The case named `name` (one of [`CASES`]).
pub fn bench_case(name: &str) -> Option<BenchCase> {
    Some(match name {
        "dot_f32_256" => dot("dot_f32_256", 256),
        "dot_f32_2048" => dot("dot_f32_2048", 2048),
        "conv_nchw_8x64x56x56_k64x3x3" => case(
            "conv_nchw_8x64x56x56_k64x3x3",
            "HloModule conv\nENTRY e {\n  x = f32[8,64,56,56] parameter(0)\n  w = f32[64,64,3,3] parameter(1)\n  ROOT c = f32[8,64,56,56] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01\n}\n",
            &[(-1.0, 1.0), (-1.0, 1.0)],
            "2·8·64·56·56·64·9 flops".into(),
        ),
        "add_f32_16M" => elementwise("add_f32_16M", "add", 2, -10.0, 10.0),
        "exp_f32_16M" => elementwise("exp_f32_16M", "exponential", 1, -20.0, 20.0),
        "tanh_f32_16M" => elementwise("tanh_f32_16M", "tanh", 1, -5.0, 5.0),
        "reduce_sum_f32_16M" => case(
            "reduce_sum_f32_16M",
            "HloModule r\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}\nENTRY e {\n  a = f32[16777216] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add\n}\n",
            &[(-1.0, 1.0)],
            "16777216 elements".into(),
        ),
        "transpose_f32_4096" => case(
            "transpose_f32_4096",
            "HloModule t\nENTRY e {\n  a = f32[4096,4096] parameter(0)\n  ROOT t = f32[4096,4096] transpose(a), dimensions={1,0}\n}\n",
            &[(-1.0, 1.0)],
            "64 MiB read + 64 MiB written".into(),
        ),
        "gather_1m_rows_64_f32" => case(
            "gather_1m_rows_64_f32",
            "HloModule g\nENTRY e {\n  t = f32[65536,64] parameter(0)\n  i = s32[1048576,1] parameter(1)\n  ROOT g = f32[1048576,64] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}\n}\n",
            &[(-1.0, 1.0), (0.0, 65536.0)],
            "1048576 rows of 64 f32".into(),
        ),
        "sort_f32_1M" => case(
            "sort_f32_1M",
            &format!(
                "HloModule s\n{}ENTRY e {{\n  x = f32[1048576] parameter(0)\n  ROOT s = f32[1048576] sort(x), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n",
                jax_comparator(&[])
            ),
            &[(-1.0, 1.0)],
            "1048576 f32 keys (jnp.sort)".into(),
        ),
        "sort_kv_f32_s32_1M" => case(
            "sort_kv_f32_s32_1M",
            &format!(
                "HloModule kv\n{}ENTRY e {{\n  x = f32[1048576] parameter(0)\n  i = s32[1048576] parameter(1)\n  ROOT s = (f32[1048576], s32[1048576]) sort(x, i), dimensions={{0}}, is_stable=true, to_apply=cmp\n}}\n",
                jax_comparator(&["s32"])
            ),
            &[(-1.0, 1.0), (0.0, 1048576.0)],
            "1048576 (f32 key, s32 value) pairs (jnp.argsort)".into(),
        ),
        "topk_f32_1024x1024_k8" => case(
            "topk_f32_1024x1024_k8",
            "HloModule t\nENTRY e {\n  x = f32[1024,1024] parameter(0)\n  ROOT t = (f32[1024,8], s32[1024,8]) topk(x), k=8, largest=true\n}\n",
            &[(-1.0, 1.0)],
            "1024 rows of 1024, k = 8 (lax.top_k)".into(),
        ),
        "while_1000_small_body" => case(
            "while_1000_small_body",
            "HloModule w\ncond {\n  s = (s32[], f32[16]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(1000)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\nbody {\n  s = (s32[], f32[16]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  x = f32[16] get-tuple-element(s), index=1\n  half = f32[] constant(0.5)\n  h = f32[16] broadcast(half), dimensions={}\n  m = f32[16] multiply(x, h)\n  onef = f32[] constant(1)\n  o = f32[16] broadcast(onef), dimensions={}\n  y = f32[16] add(m, o)\n  ROOT t = (s32[], f32[16]) tuple(j, y)\n}\nENTRY e {\n  x = f32[16] parameter(0)\n  zero = s32[] constant(0)\n  init = (s32[], f32[16]) tuple(zero, x)\n  w = (s32[], f32[16]) while(init), condition=cond, body=body\n  ROOT r = f32[16] get-tuple-element(w), index=1\n}\n",
            &[(-1.0, 1.0)],
            "1000 trips of x·0.5 + 1 on f32[16]".into(),
        ),
        "fft_c64_1M" => case(
            "fft_c64_1M",
            "HloModule f\nENTRY e {\n  x = c64[1048576] parameter(0)\n  ROOT y = c64[1048576] fft(x), fft_type=FFT, fft_length={1048576}\n}\n",
            &[(-1.0, 1.0)],
            "a 2^20-point complex FFT".into(),
        ),
        "rfft_f32_1024x1024" => case(
            "rfft_f32_1024x1024",
            "HloModule f\nENTRY e {\n  x = f32[1024,1024] parameter(0)\n  ROOT y = c64[1024,513] fft(x), fft_type=RFFT, fft_length={1024,1024}\n}\n",
            &[(-1.0, 1.0)],
            "a 1024x1024 real-to-complex 2-D FFT".into(),
        ),
        "cholesky_f32_1024" => dominant(
            "cholesky_f32_1024",
            "HloModule c\nENTRY e {\n  a = f32[1024,1024] parameter(0)\n  ROOT l = f32[1024,1024] cholesky(a), lower=true\n}\n",
            &[(-1.0, 1.0)],
            "n³/3 flops, n = 1024".into(),
        ),
        "trsm_f32_1024x1024" => dominant(
            "trsm_f32_1024x1024",
            "HloModule t\nENTRY e {\n  a = f32[1024,1024] parameter(0)\n  b = f32[1024,1024] parameter(1)\n  ROOT x = f32[1024,1024] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE\n}\n",
            &[(-1.0, 1.0), (-1.0, 1.0)],
            "n²·k flops, n = k = 1024".into(),
        ),
        "lapack_getrf_f32_512" => case(
            "lapack_getrf_f32_512",
            "HloModule g\nENTRY e {\n  a = f32[512,512]{0,1} parameter(0)\n  ROOT r = (f32[512,512]{0,1}, s32[512]{0}, s32[]) custom-call(a), custom_call_target=\"lapack_sgetrf_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={}\n}\n",
            &[(-1.0, 1.0)],
            "2n³/3 flops, n = 512".into(),
        ),
        "lapack_syevd_f32_256" => case(
            "lapack_syevd_f32_256",
            "HloModule s\nENTRY e {\n  a = f32[256,256]{0,1} parameter(0)\n  ROOT r = (f32[256,256]{0,1}, f32[256]{0}, s32[]) custom-call(a), custom_call_target=\"lapack_ssyevd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 76 : ui8}\n}\n",
            &[(-1.0, 1.0)],
            "eigenvalues and vectors, n = 256".into(),
        ),
        "batch_norm_training_f32_8x64x56x56" => case(
            "batch_norm_training_f32_8x64x56x56",
            "HloModule b\nENTRY e {\n  x = f32[8,64,56,56] parameter(0)\n  s = f32[64] parameter(1)\n  o = f32[64] parameter(2)\n  ROOT t = (f32[8,64,56,56], f32[64], f32[64]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1\n}\n",
            &[(-1.0, 3.0), (0.5, 2.0), (-1.0, 1.0)],
            "1605632 elements, 64 features".into(),
        ),
        "rng_bit_generator_philox_u32_16M" => case(
            "rng_bit_generator_philox_u32_16M",
            "HloModule r\nENTRY e {\n  s = u64[3]{0} parameter(0)\n  ROOT r = (u64[3]{0}, u32[16777216]{0}) rng-bit-generator(s), algorithm=rng_philox\n}\n",
            &[(0.0, 1e9)],
            "2²⁴ words, 2²² Philox-4x32-10 blocks".into(),
        ),
        "rng_bit_generator_three_fry_u32_16M" => case(
            "rng_bit_generator_three_fry_u32_16M",
            "HloModule r\nENTRY e {\n  s = u64[2]{0} parameter(0)\n  ROOT r = (u64[2]{0}, u32[4096,4096]{1,0}) rng-bit-generator(s), algorithm=rng_three_fry\n}\n",
            &[(0.0, 1e9)],
            "2²⁴ words, 2²³ Threefry-2x32-20 blocks".into(),
        ),
        "all_reduce_f32_8x1M" => replicated(
            "all_reduce_f32_8x1M",
            "HloModule a, replica_count=8\nsum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[1048576]{0} parameter(0)\n  ROOT r = f32[1048576]{0} all-reduce(x), replica_groups={}, to_apply=sum\n}\n",
            8,
            (-1.0, 1.0),
            "8 replicas × 2²⁰ elements summed".into(),
        ),
        _ => return None,
    })
}

/// A case of a module of `devices` devices with one parameter: each device's argument drawn
/// from `range` with its own seed (docs/collectives.md: each device's arguments in turn).
fn replicated(
    name: &'static str,
    hlo: &str,
    devices: usize,
    (lo, hi): (f64, f64),
    work: String,
) -> BenchCase {
    let module = parse_module(hlo).unwrap_or_else(|e| panic!("bench case {name}: {e}"));
    let args = (0..devices)
        .map(|d| values(&module, 0, lo, hi, d as u64 + 1))
        .collect();
    BenchCase {
        name,
        module,
        args,
        work,
    }
}

/// The median of a backend's runs of one case.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// The backend's own execution time (see the module docs), median, in seconds.
    pub execute: f64,
    /// Wall time of the `execute()` call, median, in seconds.
    pub round_trip: f64,
    pub runs: usize,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `case` on `backend`: one warm-up run, then `repeat` runs or more until `min_time`.
///
/// Errors: the backend's error, with its name.
pub fn time_case(
    backend: &dyn Backend,
    case: &BenchCase,
    repeat: usize,
    min_time: Duration,
) -> Result<Timing, String> {
    let run = || -> Result<(f64, f64), String> {
        let start = Instant::now();
        let out = backend
            .execute(&case.module, &case.args)
            .map_err(|e| format!("{}: {e}", backend.name()))?;
        let wall = start.elapsed().as_secs_f64();
        drop(out);
        let own = backend
            .last_execute_micros()
            .map_or(wall, |us| us as f64 / 1e6);
        Ok((own, wall))
    };
    run()?;
    let (mut own, mut wall) = (Vec::new(), Vec::new());
    let start = Instant::now();
    while own.len() < repeat.max(1) || start.elapsed() < min_time {
        let (o, w) = run()?;
        own.push(o);
        wall.push(w);
        if own.len() >= 1000 {
            break;
        }
    }
    Ok(Timing {
        runs: own.len(),
        execute: median(own),
        round_trip: median(wall),
    })
}

fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// `machine: MODEL (N CPUs), fast kernels: ISA`: the CPU model (`/proc/cpuinfo`'s `model name`,
/// `unknown CPU` elsewhere), the logical CPUs this process may use, and the instruction set
/// `fast` selects at run time ([`conformance_fast::kernels::Isa::detect`]). When that set is
/// capped below the CPU's by `CONFORMANCE_FAST_ISA`, the line says so (and that `dot`'s `gemm`
/// kernels follow the CPU, not the cap); a set `XLA_FLAGS` (e.g. `--xla_cpu_max_isa=AVX2`, the
/// same cap for XLA) is appended.
pub fn machine_line() -> String {
    use conformance_fast::kernels::Isa;
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let label = |isa: Isa| match isa {
        Isa::Avx512 => "AVX-512F",
        Isa::Avx2Fma => "AVX2+FMA",
        Isa::Scalar => "scalar",
    };
    let (isa, hardware) = (Isa::detect(), Isa::hardware());
    let mut line = format!(
        "machine: {model} ({cpus} CPUs), fast kernels: {}",
        label(isa)
    );
    if isa < hardware {
        line.push_str(&format!(
            " (capped by {}; the CPU has {}, which dot's gemm kernels still use)",
            conformance_fast::kernels::ISA_ENV,
            label(hardware)
        ));
    }
    if let Ok(flags) = std::env::var("XLA_FLAGS") {
        if !flags.trim().is_empty() {
            line.push_str(&format!(", XLA_FLAGS={}", flags.trim()));
        }
    }
    line
}

/// `conformance bench`: times `cases` (all when empty) on `names` and prints a header naming the
/// machine ([`machine_line`]), then one line per case with each backend's median and the ratio
/// of the first backend's time to each other's (a backend that is not installed is left out,
/// with one line on standard error). Exit 0; 2 for an unknown case or backend; 3 when a backend
/// fails a case (the others are still timed).
pub fn bench_command(
    names: &[String],
    cases: &[String],
    repeat: usize,
    min_time: Duration,
    out: &mut dyn Write,
) -> Result<i32, (i32, String)> {
    if names.len() < 2 {
        return Err((
            2,
            "--backends needs at least two backends to compare".into(),
        ));
    }
    let selected: Vec<&str> = if cases.is_empty() {
        CASES.to_vec()
    } else {
        cases
            .iter()
            .map(|c| {
                CASES.iter().copied().find(|k| k == c).ok_or_else(|| {
                    (
                        2,
                        format!("unknown bench case `{c}` (known: {})", CASES.join(", ")),
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut owned: Vec<Box<dyn Backend>> = Vec::with_capacity(names.len());
    let mut shown: Vec<&String> = Vec::with_capacity(names.len());
    for n in names {
        // A compiler that is not installed here is one line; the others are still timed.
        if let Err(e) = backends::installed(n) {
            eprintln!("{e}; benchmarking the others");
            continue;
        }
        let limits = backends::process::Limits {
            request: Duration::from_secs(600),
            ..Default::default()
        };
        owned.push(backends::by_name_with(n, limits).map_err(|e| (2, e))?);
        shown.push(n);
    }
    if owned.len() < 2 {
        return Err((2, "fewer than two of --backends can run here".into()));
    }
    let first = shown[0];
    let io = |e: std::io::Error| (3, e.to_string());
    // Every figure names its machine: the CPU and the instruction set fast's kernels use.
    writeln!(out, "{}", machine_line()).map_err(io)?;
    write!(out, "{:<30}", "case").map_err(io)?;
    for n in &shown {
        write!(out, " {:>22}", n).map_err(io)?;
    }
    for n in &shown[1..] {
        write!(out, " {:>12}", format!("{first}/{n}")).map_err(io)?;
    }
    writeln!(out).map_err(io)?;
    let mut code = 0;
    for name in selected {
        let Some(case) = bench_case(name) else {
            continue;
        };
        write!(out, "{:<30}", case.name).map_err(io)?;
        out.flush().map_err(io)?;
        let mut times = Vec::new();
        for b in &owned {
            match time_case(b.as_ref(), &case, repeat, min_time) {
                Ok(t) => {
                    let shown = if (t.round_trip - t.execute).abs() > 1e-4 {
                        format!("{} ({})", seconds(t.execute), seconds(t.round_trip))
                    } else {
                        seconds(t.execute)
                    };
                    write!(out, " {shown:>22}").map_err(io)?;
                    times.push(Some(t.execute));
                }
                Err(e) => {
                    write!(out, " {:>22}", "error").map_err(io)?;
                    eprintln!("{}: {e}", case.name);
                    times.push(None);
                    code = 3;
                }
            }
            out.flush().map_err(io)?;
        }
        for other in &times[1..] {
            let ratio = match (times[0], *other) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                _ => "-".into(),
            };
            write!(out, " {ratio:>12}").map_err(io)?;
        }
        writeln!(out, "   {}", case.work).map_err(io)?;
    }
    writeln!(
        out,
        "median of the runs; a worker's own execution time, its round trip through the pipe in \
         parentheses; {first}/X < 1 means {first} is faster than X"
    )
    .map_err(io)?;
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_builds_and_verifies() {
        for name in CASES {
            let c = bench_case(name).unwrap();
            conformance_spec::shape_inference::verify_module(&c.module).unwrap();
            assert_eq!(
                c.args.len(),
                conformance_spec::collective::argument_shapes(&c.module).len(),
                "{name}"
            );
            assert!(c.args.iter().all(|a| a.as_array().is_some()), "{name}");
        }
        assert!(bench_case("nonesuch").is_none());
    }

    #[test]
    fn gather_indices_stay_in_range() {
        let c = bench_case("gather_1m_rows_64_f32").unwrap();
        let idx = c.args[1].as_array().unwrap().to_i128s().unwrap();
        assert!(idx.iter().all(|&i| (0..65536).contains(&i)));
        assert!(idx.iter().any(|&i| i > 60000));
    }

    #[test]
    fn fewer_than_two_backends_or_unknown_cases_are_usage_errors() {
        let mut out = Vec::new();
        let one = ["fast".to_string()];
        assert_eq!(
            bench_command(&one, &[], 1, Duration::ZERO, &mut out)
                .unwrap_err()
                .0,
            2
        );
        let two = ["fast".to_string(), "reference".to_string()];
        let e = bench_command(&two, &["dot_f64".into()], 1, Duration::ZERO, &mut out).unwrap_err();
        assert!(e.1.contains("dot_f32_2048"));
    }

    #[test]
    fn a_small_case_is_timed_on_two_backends() {
        let mut out = Vec::new();
        let two = ["fast".to_string(), "fast".to_string()];
        let code =
            bench_command(&two, &["dot_f32_256".into()], 2, Duration::ZERO, &mut out).unwrap();
        assert_eq!(code, 0);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("dot_f32_256"), "{text}");
        assert!(text.contains("fast/fast"), "{text}");
        // The header names the machine and the instruction set.
        let first = text.lines().next().unwrap();
        assert!(first.starts_with("machine: "), "{text}");
        assert!(
            ["AVX-512F", "AVX2+FMA", "scalar"]
                .iter()
                .any(|isa| first.ends_with(&format!("fast kernels: {isa}"))),
            "{first}"
        );
    }
}
