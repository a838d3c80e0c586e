//! Scans `f32` inputs for double-rounding traps: inputs `x` where rounding the correctly rounded
//! `f64` value of `f(x)` to `f32` (what an evaluator computing in double does, e.g. the StableHLO
//! reference interpreter) differs from the correctly rounded `f32` value of `f(x)`.
//!
//! Method, per function:
//! 1. Filter (fast, both cores): for every input (unary functions: all `2^32` bit patterns, using
//!    the function's symmetry where it has one; `pow`, `atan2`: a deterministic random sample of
//!    pairs), compute `f` in `f64` with the platform libm (Rust's `f64` methods) and keep the
//!    inputs whose `f64` result lies within `--max-distance` `f64` ulps of an `f32` rounding
//!    midpoint (`oracle::f32_midpoint_distance`; coarser grid in the `f32` subnormal range).
//!    A trap needs the correctly rounded `f64` ON a midpoint, so a libm error of a few ulps
//!    cannot hide one.
//! 2. Decide (MPFR at 256 bits, `tests/oracle`): for each kept input, the correctly rounded `f32`
//!    and the `f32` of the correctly rounded `f64`; keep the inputs where they differ.
//!
//! Usage (the list in `reference/tests/data/f32_double_rounding_traps.txt` was made with the first):
//! ```text
//! nice -n 10 cargo run --release -p conformance-reference --example scan_double_rounding -- \
//!     --out reference/tests/data/f32_double_rounding_traps.txt
//! cargo run --release -p conformance-reference --example scan_double_rounding -- \
//!     --functions log --range 0x3f800000:0x3f900000        # a quick check of the logic
//! ```
//! Options: `--functions a,b,..` (log, sin, cos, tan, tanh, expm1, log1p, pow, atan2; default all),
//! `--range LO:HI` (unary functions: only bit patterns in `[LO, HI)`, no mirroring),
//! `--samples N` (pairs per binary function, default 2^34 for pow and 2^33 for atan2),
//! `--max-distance K` (f64 ulps, default 4), `--threads N` (default: available parallelism),
//! `--out FILE` (default: stdout only).

#[path = "../tests/oracle/mod.rs"]
mod oracle;

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Mutex;
use std::time::Instant;

use conformance_spec::{FloatFormat, Opcode};
use rug::Float;

/// How the inputs of a unary function are enumerated.
#[derive(Clone, Copy)]
enum Symmetry {
    /// `f(−x) = −f(x)`: scan `x ≥ 0`, mirror each trap.
    Odd,
    /// `f(−x) = f(x)`: scan `x ≥ 0`, mirror each trap.
    Even,
    /// No symmetry: scan the listed ranges as they are.
    None,
}

struct Unary {
    name: &'static str,
    op: Opcode,
    libm: fn(f64) -> f64,
    symmetry: Symmetry,
    /// Half-open ranges of `f32` bit patterns whose results are finite and non-trivial.
    ranges: &'static [(u64, u64)],
}

struct Binary {
    name: &'static str,
    op: Opcode,
    libm: fn(f64, f64) -> f64,
    /// Draws one `(lhs, rhs)` pair of `f32` bit patterns.
    sample: fn(&mut oracle::SplitMix64) -> (u32, u32),
    default_samples: u64,
}

const POSITIVE: (u64, u64) = (0x0000_0001, 0x7f80_0000);

const UNARY: [Unary; 7] = [
    Unary {
        name: "log",
        op: Opcode::Log,
        libm: f64::ln,
        symmetry: Symmetry::None,
        ranges: &[POSITIVE],
    },
    Unary {
        name: "sin",
        op: Opcode::Sine,
        libm: f64::sin,
        symmetry: Symmetry::Odd,
        ranges: &[POSITIVE],
    },
    Unary {
        name: "cos",
        op: Opcode::Cosine,
        libm: f64::cos,
        symmetry: Symmetry::Even,
        ranges: &[POSITIVE],
    },
    Unary {
        name: "tan",
        op: Opcode::Tan,
        libm: f64::tan,
        symmetry: Symmetry::Odd,
        ranges: &[POSITIVE],
    },
    Unary {
        name: "tanh",
        op: Opcode::Tanh,
        libm: f64::tanh,
        symmetry: Symmetry::Odd,
        ranges: &[POSITIVE],
    },
    Unary {
        name: "expm1",
        op: Opcode::ExponentialMinusOne,
        libm: f64::exp_m1,
        symmetry: Symmetry::None,
        ranges: &[POSITIVE, (0x8000_0001, 0xff80_0000)],
    },
    Unary {
        name: "log1p",
        op: Opcode::LogPlusOne,
        libm: f64::ln_1p,
        symmetry: Symmetry::None,
        // x > −1 (−1 itself gives −inf).
        ranges: &[POSITIVE, (0x8000_0001, 0xbf80_0000)],
    },
];

const BINARY: [Binary; 2] = [
    Binary {
        name: "pow",
        op: Opcode::Power,
        libm: f64::powf,
        sample: sample_pow,
        default_samples: 1 << 34,
    },
    Binary {
        name: "atan2",
        op: Opcode::Atan2,
        libm: f64::atan2,
        sample: sample_atan2,
        default_samples: 1 << 33,
    },
];

/// `pow(x, y)` with `x > 0` uniform over the positive finite bit patterns and `y` chosen so that
/// `x^y ≈ 2^t` for `t` uniform in `[−149, 128)`: results spread over the whole `f32` range.
fn sample_pow(rng: &mut oracle::SplitMix64) -> (u32, u32) {
    loop {
        let x_bits = 1 + rng.below(0x7f80_0000 - 1) as u32;
        let x = f32::from_bits(x_bits) as f64;
        let t = -149.0 + 277.0 * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let y = (t / x.log2()) as f32;
        if x != 1.0 && y.is_finite() && y != 0.0 {
            return (x_bits, y.to_bits());
        }
    }
}

/// `atan2(y, x)` with random signs and fractions, `x`'s biased exponent uniform over the normal
/// range and `y`'s within ±40 of it (so the quotient is neither huge nor negligible).
fn sample_atan2(rng: &mut oracle::SplitMix64) -> (u32, u32) {
    let r = rng.next_u64();
    let ex = 1 + rng.below(254) as i64;
    let ey = (ex + rng.below(81) as i64 - 40).clamp(1, 254);
    let fx = (r & 0x7f_ffff) as u32;
    let fy = ((r >> 23) & 0x7f_ffff) as u32;
    let sx = ((r >> 46) & 1) as u32;
    let sy = ((r >> 47) & 1) as u32;
    let y = (sy << 31) | ((ey as u32) << 23) | fy;
    let x = (sx << 31) | ((ex as u32) << 23) | fx;
    (y, x)
}

struct Options {
    functions: Vec<String>,
    range: Option<(u64, u64)>,
    samples: Option<u64>,
    max_distance: u64,
    threads: usize,
    out: Option<String>,
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let r = if let Some(hex) = s.strip_prefix("0x") {
        u64::from_str_radix(hex, 16)
    } else if let Some(exp) = s.strip_prefix("2^") {
        exp.parse::<u32>().map(|e| 1u64 << e.min(63))
    } else {
        s.parse()
    };
    r.map_err(|e| format!("bad number `{s}`: {e}"))
}

fn parse_options() -> Result<Options, String> {
    let mut o = Options {
        functions: UNARY
            .iter()
            .map(|u| u.name)
            .chain(BINARY.iter().map(|b| b.name))
            .map(String::from)
            .collect(),
        range: None,
        samples: None,
        max_distance: 4,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        out: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--functions" => o.functions = value()?.split(',').map(String::from).collect(),
            "--range" => {
                let v = value()?;
                let (lo, hi) = v.split_once(':').ok_or("--range takes LO:HI")?;
                o.range = Some((parse_u64(lo)?, parse_u64(hi)?));
            }
            "--samples" => o.samples = Some(parse_u64(&value()?)?),
            "--max-distance" => o.max_distance = parse_u64(&value()?)?,
            "--threads" => o.threads = parse_u64(&value()?)?.max(1) as usize,
            "--out" => o.out = Some(value()?),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    for f in &o.functions {
        if !UNARY.iter().any(|u| u.name == f) && !BINARY.iter().any(|b| b.name == f) {
            return Err(format!("unknown function `{f}`"));
        }
    }
    Ok(o)
}

/// Runs `work(chunk_index)` for every chunk in `0..chunks` on `threads` threads, collecting the
/// results, with a progress line on stderr.
fn parallel_chunks<T: Send>(
    label: &str,
    chunks: u64,
    threads: usize,
    work: impl Fn(u64) -> Vec<T> + Sync,
) -> Vec<T> {
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let out = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let c = next.fetch_add(1, AtomicOrdering::Relaxed);
                if c >= chunks {
                    break;
                }
                let found = work(c);
                if !found.is_empty() {
                    out.lock().unwrap_or_else(|e| e.into_inner()).extend(found);
                }
                let d = done.fetch_add(1, AtomicOrdering::Relaxed) + 1;
                if d & 63 == 0 || d == chunks {
                    eprint!(
                        "\r{label}: {:5.1}% ({:.0} s)   ",
                        100.0 * d as f64 / chunks as f64,
                        start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    eprintln!();
    out.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// What MPFR says about one kept input.
struct Verdict {
    correct: u32,
    double_rounded: u32,
    /// `f32` of the platform libm's `f64` result.
    libm_rounded: u32,
    /// log2 of the distance from the exact value to the nearest `f32` midpoint, in `f32` ulps.
    log2_distance: f64,
}

fn verdict(value: &Float, ternary: Ordering, libm_f64: f64) -> Verdict {
    let (correct, double_rounded) = oracle::f32_correct_and_double_rounded(value, ternary);
    Verdict {
        correct,
        double_rounded,
        libm_rounded: (libm_f64 as f32).to_bits(),
        log2_distance: log2_midpoint_distance(value),
    }
}

/// log2 of `|v/q − (⌊v/q⌋ + 1/2)|` where `q` is the `f32` quantum at `v` (−inf when exact).
fn log2_midpoint_distance(v: &Float) -> f64 {
    if !v.is_normal() {
        return f64::NAN;
    }
    let e = v.get_exp().unwrap_or(0) - 1;
    let q = e.max(-126) - 23;
    let mut t = Float::with_val(oracle::WORKING_PRECISION, v.abs_ref());
    t >>= q;
    let floor = Float::with_val(oracle::WORKING_PRECISION, t.floor_ref());
    let frac = Float::with_val(oracle::WORKING_PRECISION, &t - &floor);
    let d = Float::with_val(oracle::WORKING_PRECISION, frac - 0.5f64).abs();
    if d.is_zero() {
        f64::NEG_INFINITY
    } else {
        d.log2().to_f64()
    }
}

struct Section {
    text: String,
    traps: usize,
}

fn scan_unary(u: &Unary, o: &Options) -> Section {
    const CHUNK: u64 = 1 << 20;
    let ranges: Vec<(u64, u64)> = match o.range {
        Some(r) => vec![r],
        None => u.ranges.to_vec(),
    };
    let mirror = o.range.is_none();
    let total: u64 = ranges.iter().map(|(lo, hi)| hi - lo).sum();
    let chunks = total.div_ceil(CHUNK);
    let k = o.max_distance;
    let start = Instant::now();
    let mut candidates = parallel_chunks(u.name, chunks, o.threads, |c| {
        // Map the chunk to a slice of the concatenated ranges.
        let mut begin = c * CHUNK;
        let mut end = begin + CHUNK;
        let mut found = Vec::new();
        for &(lo, hi) in &ranges {
            let len = hi - lo;
            if begin < len {
                let (b, e) = (lo + begin, lo + end.min(len));
                for bits in b..e {
                    let y = (u.libm)(f32::from_bits(bits as u32) as f64);
                    if let Some(d) = oracle::f32_midpoint_distance(y) {
                        if d <= k {
                            found.push((bits as u32, y));
                        }
                    }
                }
            }
            begin = begin.saturating_sub(len);
            end = end.saturating_sub(len);
            if end == 0 {
                break;
            }
        }
        found
    });
    candidates.sort_by_key(|c| c.0);
    let filter_secs = start.elapsed().as_secs_f64();
    let mut traps = Vec::new();
    let mut libm_only = Vec::new();
    for &(bits, y) in &candidates {
        let x = oracle::decode(FloatFormat::F32, bits as u64);
        let Ok((v, t)) = oracle::exact_unary(u.op, &x) else {
            continue;
        };
        let vd = verdict(&v, t, y);
        if vd.correct != vd.double_rounded {
            traps.push((bits, vd));
        } else if vd.correct != vd.libm_rounded {
            libm_only.push((bits, vd));
        }
    }
    let mut text = String::new();
    let mut lines = Vec::new();
    for (bits, vd) in &traps {
        lines.push((*bits, vd.correct, vd.double_rounded, vd.log2_distance));
        if mirror {
            match u.symmetry {
                Symmetry::Odd => lines.push((
                    bits ^ 0x8000_0000,
                    vd.correct ^ 0x8000_0000,
                    vd.double_rounded ^ 0x8000_0000,
                    vd.log2_distance,
                )),
                Symmetry::Even => lines.push((
                    bits ^ 0x8000_0000,
                    vd.correct,
                    vd.double_rounded,
                    vd.log2_distance,
                )),
                Symmetry::None => {}
            }
        }
    }
    lines.sort_by_key(|l| l.0);
    let scanned = if mirror {
        match u.symmetry {
            Symmetry::None => format!("all {total} inputs with a finite result"),
            _ => format!("all {total} positive inputs, mirrored to the negative ones"),
        }
    } else {
        format!("inputs {:#010x}..{:#010x}", ranges[0].0, ranges[0].1)
    };
    let _ = writeln!(
        text,
        "# {}: {} trap(s); scanned {scanned}; {} input(s) within {k} f64 ulps of an f32 midpoint \
         checked with MPFR; filter {filter_secs:.0} s",
        u.name,
        lines.len(),
        candidates.len()
    );
    if lines.is_empty() {
        let _ = writeln!(text, "# {}: no trap", u.name);
    }
    for (bits, correct, dr, dist) in &lines {
        let _ = writeln!(
            text,
            "{} {bits:#010x} {correct:#010x} {dr:#010x}    # |exact - midpoint| = 2^{dist:.1} f32 ulp",
            u.name
        );
    }
    for (bits, vd) in &libm_only {
        let _ = writeln!(
            text,
            "# {} {bits:#010x}: not a trap of the correctly rounded f64, but this platform's libm \
             f64 rounds to {:#010x} instead of {:#010x}",
            u.name, vd.libm_rounded, vd.correct
        );
    }
    Section {
        text,
        traps: lines.len(),
    }
}

fn scan_binary(b: &Binary, o: &Options) -> Section {
    const CHUNK: u64 = 1 << 20;
    let samples = o.samples.unwrap_or(b.default_samples);
    let chunks = samples.div_ceil(CHUNK);
    let k = o.max_distance;
    let seed = 0x5eed_0000_0000_0000u64 ^ (b.op as u64);
    let start = Instant::now();
    let mut candidates = parallel_chunks(b.name, chunks, o.threads, |c| {
        let mut rng = oracle::SplitMix64(seed ^ c.wrapping_mul(0xd1b5_4a32_d192_ed03));
        let n = CHUNK.min(samples - c * CHUNK);
        let mut found = Vec::new();
        for _ in 0..n {
            let (lhs, rhs) = (b.sample)(&mut rng);
            let y = (b.libm)(f32::from_bits(lhs) as f64, f32::from_bits(rhs) as f64);
            if let Some(d) = oracle::f32_midpoint_distance(y) {
                if d <= k {
                    found.push((lhs, rhs, y));
                }
            }
        }
        found
    });
    candidates.sort_by_key(|c| (c.0, c.1));
    candidates.dedup_by_key(|c| (c.0, c.1));
    let filter_secs = start.elapsed().as_secs_f64();
    let mut traps = Vec::new();
    let mut others = Vec::new();
    for &(lhs, rhs, y) in &candidates {
        let a = oracle::decode(FloatFormat::F32, lhs as u64);
        let c = oracle::decode(FloatFormat::F32, rhs as u64);
        let Ok((v, t)) = oracle::exact_binary(b.op, &a, &c) else {
            continue;
        };
        let vd = verdict(&v, t, y);
        if vd.correct != vd.double_rounded {
            traps.push((lhs, rhs, vd));
        } else {
            others.push((lhs, rhs, vd));
        }
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# {}: {} trap(s) among {samples} deterministic random pairs (seed {seed:#x}); {} pair(s) \
         within {k} f64 ulps of an f32 midpoint checked with MPFR; filter {filter_secs:.0} s",
        b.name,
        traps.len(),
        candidates.len()
    );
    if traps.is_empty() {
        let _ = writeln!(text, "# {}: no trap found in this budget", b.name);
    }
    for (lhs, rhs, vd) in &traps {
        let _ = writeln!(
            text,
            "{} {lhs:#010x} {rhs:#010x} {:#010x} {:#010x}    # |exact - midpoint| = 2^{:.1} f32 ulp",
            b.name, vd.correct, vd.double_rounded, vd.log2_distance
        );
    }
    others.sort_by(|p, q| p.2.log2_distance.total_cmp(&q.2.log2_distance));
    for (lhs, rhs, vd) in others.iter().take(5) {
        let _ = writeln!(
            text,
            "# {} hardest non-trap: {lhs:#010x} {rhs:#010x} -> {:#010x}, |exact - midpoint| = \
             2^{:.1} f32 ulp",
            b.name, vd.correct, vd.log2_distance
        );
    }
    Section {
        text,
        traps: traps.len(),
    }
}

fn main() {
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("scan_double_rounding: {e}");
            std::process::exit(2);
        }
    };
    let mut body = String::new();
    let mut total = 0;
    for name in &o.functions {
        let section = if let Some(u) = UNARY.iter().find(|u| u.name == name) {
            scan_unary(u, &o)
        } else if let Some(b) = BINARY.iter().find(|b| b.name == name) {
            scan_binary(b, &o)
        } else {
            continue;
        };
        print!("{}", section.text);
        total += section.traps;
        body.push_str(&section.text);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let header = format!(
        "# f32 double-rounding traps: inputs x where RN_f32(f(x)) != RN_f32(RN_f64(f(x))),\n\
         # i.e. rounding the correctly rounded f64 result to f32 (an evaluator computing in\n\
         # double) gives the wrong f32.\n\
         # Produced by reference/examples/scan_double_rounding.rs:\n\
         #   nice -n 10 cargo run --release -p conformance-reference --example scan_double_rounding -- {}\n\
         # Filter: platform libm f64 result within {} f64 ulps of an f32 rounding midpoint; decision:\n\
         # MPFR at {} bits, rounded once into f32 (and into f64, then f64 -> f32).\n\
         # Columns: function, input bits (two for pow and atan2: lhs rhs, atan2(y, x) = lhs, rhs),\n\
         # correctly rounded f32 bits, double-rounded f32 bits. '#' starts a comment.\n",
        args.join(" "),
        o.max_distance,
        oracle::WORKING_PRECISION
    );
    eprintln!("{total} trap(s) in all");
    if let Some(path) = &o.out {
        if let Err(e) = std::fs::write(path, format!("{header}{body}")) {
            eprintln!("scan_double_rounding: cannot write {path}: {e}");
            std::process::exit(3);
        }
        eprintln!("wrote {path}");
    }
}
