//! Exhaustive accuracy proof of the f32 kernels: runs `exp`, `tanh` and `logistic` over all 2^32
//! f32 inputs with the best instruction set, against an f64 reference
//! ([`conformance_fast::kernels::scan`]), and checks that every other available instruction set
//! (AVX2+FMA, the scalar fallback) gives the same bits.
//!
//! ```text
//! cargo run --release -p conformance-fast --example scan_f32_kernels \
//!     [-- [exp] [tanh] [logistic] [--fast]]
//! ```
//!
//! With no function named, all three are scanned. `--fast` compares only the SIMD instruction sets
//! (comparing the scalar fallback too makes the run about three times longer). Uses rayon's global pool (set
//! `RAYON_NUM_THREADS` to limit it). Prints one report per function; exits with status 1 if any
//! input fails (distance above 1 ULP, NaN or zero-sign mismatch) or the instruction sets disagree,
//! 2 on a bad argument.

use conformance_fast::kernels::scan::{scan, ScanReport};
use conformance_fast::kernels::{F32Kernel, Isa};
use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let mut kernels = Vec::new();
    let mut with_scalar = true;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "exp" => kernels.push(F32Kernel::Exp),
            "tanh" => kernels.push(F32Kernel::Tanh),
            "logistic" => kernels.push(F32Kernel::Logistic),
            "--fast" => with_scalar = false,
            other => {
                eprintln!("unknown argument {other:?} (expected exp, tanh, logistic, --fast)");
                std::process::exit(2);
            }
        }
    }
    if kernels.is_empty() {
        kernels = vec![F32Kernel::Exp, F32Kernel::Tanh, F32Kernel::Logistic];
    }
    let best = Isa::detect();
    let mut isas = vec![best];
    isas.extend(
        Isa::available()
            .into_iter()
            .filter(|&i| i != best && (with_scalar || i != Isa::Scalar)),
    );
    println!("instruction sets: {isas:?} (results measured with {best:?})");
    let mut ok = true;
    for k in kernels {
        let t = Instant::now();
        let report = (0u32..1 << 16)
            .into_par_iter()
            .map(|hi| scan(k, (hi << 16)..=(hi << 16 | 0xffff), &isas))
            .reduce(ScanReport::default, ScanReport::merge);
        let w = f32::from_bits(report.worst_input);
        println!(
            "{k:?}: {} inputs in {:.0} s: max distance {} ULP, \
             max error {:.4} ULP at {w:e} ({:#010x}), {:.4} ULP over normal results; \
             {} not correctly rounded ({} at the overflow/underflow thresholds); {} failures; \
             {} instruction-set mismatches{}",
            report.inputs,
            t.elapsed().as_secs_f64(),
            report.max_ulp_distance,
            report.max_error,
            report.worst_input,
            report.max_error_normal,
            report.not_correctly_rounded,
            report.threshold_mismatches,
            report.failures,
            report.isa_mismatches,
            report
                .first_problem
                .map(|b| format!(" (first at {:e} = {b:#010x})", f32::from_bits(b)))
                .unwrap_or_default(),
        );
        ok &= report.passed() && report.inputs == 1 << 32;
    }
    std::process::exit(if ok { 0 } else { 1 });
}
