//! `rng(a, b), distribution=rng_uniform|rng_normal` (seed 004, RngUniform, RngNormal): samples
//! drawn in f64 from Philox-4x32-10 words (this backend's own key and counters, unrelated to the
//! reference's: only the distribution is specified), in parallel blocks:
//! - integers uniform in `[a, b)`: 64-bit words by rejection, unbiased;
//! - floats uniform in `[a, b)`: `a·(1 − U) + b·U` with `U` of 53 bits (finite for any finite
//!   `a`, `b`), converted to the format rounding down, and kept below `b`;
//! - normal: the polar-free Box–Muller form `μ + σ·√(−2 ln U₁)·cos(2πU₂)` in f64, then rounded
//!   to nearest into the format.
//!
//! Implementation-defined parameters (`b ≤ a`, non-finite, `σ ≤ 0`) give `a` (or `μ`).

use crate::parallel::Exec;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, BackendError, Layout};
use rayon::prelude::*;

/// Philox-4x32-10 (shared with `rng-bit-generator`).
use super::philox4x32;

/// This backend's key for `rng` (the first 64 bits of e's fraction).
const KEY: u64 = 0xb7e1_5162_8aed_2a6a;

/// Elements per parallel task; each task draws from its own block of counters.
const TASK: usize = 1 << 12;
/// Counters per task: room for rejection sampling (each element takes at most a few words).
const COUNTERS_PER_TASK: u128 = 1 << 20;

/// The words of one task: Philox blocks from counter `base`.
struct Stream {
    counter: u128,
    block: [u32; 4],
    used: usize,
}

impl Stream {
    fn new(base: u128) -> Stream {
        Stream {
            counter: base,
            block: [0; 4],
            used: 4,
        }
    }

    fn next(&mut self) -> u64 {
        if self.used == 4 {
            self.block = philox4x32(KEY, self.counter);
            self.counter = self.counter.wrapping_add(1);
            self.used = 0;
        }
        let w = u64::from(self.block[self.used]) | (u64::from(self.block[self.used + 1]) << 32);
        self.used += 2;
        w
    }

    /// A uniform f64 in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The sample of `rng` of `shape` (row-major), `normal` or uniform, with parameter bits `a`,
/// `b`; `salt` separates the streams of different instructions.
///
/// Errors: [`BackendError::Invalid`] for a normal distribution of a non-float type, or a type
/// with neither law (complex).
pub(crate) fn sample(
    shape: &ArrayShape,
    normal: bool,
    a: u64,
    b: u64,
    salt: u64,
    exec: Exec,
) -> Result<ArrayLiteral, BackendError> {
    let ty = shape.element_type;
    let n = shape.element_count();
    let base = u128::from(salt) << 64;
    let f: Box<dyn Fn(&mut Stream) -> u64 + Sync> = match ty.float_format() {
        Some(fmt) if ty.is_float() => {
            let (a, b) = (fmt.decode(a), fmt.decode(b));
            if normal {
                Box::new(move |s: &mut Stream| gaussian(s, fmt, a, b))
            } else {
                Box::new(move |s: &mut Stream| uniform_float(s, fmt, a, b))
            }
        }
        _ if !normal && (ty.is_integer() || ty.is_pred()) => {
            let lo = ty.integer_from_bits(a).unwrap_or(0);
            let hi = ty.integer_from_bits(b).unwrap_or(0);
            Box::new(move |s: &mut Stream| {
                ty.integer_to_bits(uniform_integer(s, lo, hi)).unwrap_or(0)
            })
        }
        _ => {
            return Err(BackendError::Invalid(format!(
                "rng: no {} distribution of {ty}",
                if normal { "normal" } else { "uniform" }
            )))
        }
    };
    let mut bits = vec![0u64; n];
    let fill = |(t, chunk): (usize, &mut [u64])| {
        let mut s = Stream::new(base.wrapping_add(t as u128 * COUNTERS_PER_TASK));
        for x in chunk {
            *x = f(&mut s);
        }
    };
    if exec.parallel(n) {
        bits.par_chunks_mut(TASK).enumerate().for_each(fill);
    } else {
        bits.chunks_mut(TASK).enumerate().for_each(fill);
    }
    let row_major = ArrayShape::new(ty, shape.dimensions.clone())
        .with_layout(Layout::default_for_rank(shape.rank()));
    let wide: Vec<u128> = bits.into_iter().map(u128::from).collect();
    ArrayLiteral::from_bits(row_major, &wide).map_err(|e| BackendError::Failure(e.to_string()))
}

fn uniform_integer(s: &mut Stream, lo: i128, hi: i128) -> i128 {
    if hi <= lo {
        return lo;
    }
    let r = (hi - lo) as u128;
    let limit = (1u128 << 64) - (1u128 << 64) % r;
    loop {
        let x = u128::from(s.next());
        if x < limit {
            return lo + (x % r) as i128;
        }
    }
}

/// The largest value of the format not above `x` (f64 `x` finite).
fn round_down(fmt: FloatFormat, x: f64) -> u64 {
    let near = fmt.encode(x);
    if fmt.decode(near) > x {
        fmt.from_ordered(fmt.to_ordered(near) - 1)
    } else {
        near
    }
}

fn uniform_float(s: &mut Stream, fmt: FloatFormat, a: f64, b: f64) -> u64 {
    if !(a.is_finite() && b.is_finite() && a < b) {
        return fmt.encode(a);
    }
    let u = s.unit();
    let x = round_down(fmt, a * (1.0 - u) + b * u);
    let below_b = fmt.from_ordered(fmt.to_ordered(fmt.encode(b)) - 1);
    // Rounding of the f64 mix may reach b; a is a floor.
    if fmt.decode(x) >= b {
        below_b
    } else if fmt.decode(x) < a {
        fmt.encode(a)
    } else {
        x
    }
}

fn gaussian(s: &mut Stream, fmt: FloatFormat, mu: f64, sigma: f64) -> u64 {
    if !(mu.is_finite() && sigma.is_finite() && sigma > 0.0) {
        return fmt.encode(mu);
    }
    let u1 = 1.0 - s.unit();
    let u2 = s.unit();
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    fmt.encode(mu + sigma * z)
}
