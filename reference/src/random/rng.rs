//! `rng(a, b), distribution=rng_uniform|rng_normal` (seed 004, RngUniform, RngNormal): samples of
//! the exact distributions.
//!
//! No backend's bits are compared with these: the harness judges every sample, this one
//! included, against the distribution (`harness/src/oracles/distributions.rs`). What the
//! reference guarantees is that its sample *is* of the stated distribution, so that a test that
//! rejects it is a false alarm of known rate:
//! - uniform integers (and `pred`) in `[a, b)`: 64-bit words by rejection (`w < 2⁶⁴ − 2⁶⁴ mod r`),
//!   `a + w mod r`: exactly uniform;
//! - uniform floats in `[a, b)`: the real `a + (b − a)·U`, `U = w/2⁶⁴`, computed exactly in MPFR
//!   and rounded *down* into the format, so each float `x` of `[a, b)` has probability
//!   `(next(x) − x)/(b − a)` (the continuous uniform law read on the format's grid) and `b` never
//!   appears;
//! - normal: Box–Muller on `U₁ = (w₁ + 1)/2⁶⁴ ∈ (0, 1]`, `U₂ = w₂/2⁶⁴`:
//!   `μ + σ·√(−2 ln U₁)·cos(2πU₂)` at 256 bits, rounded to nearest once.
//!
//! The words come from Philox-4x32-10 under a fixed key, the counter's high half the FNV-1a hash
//! of the instruction's name (two `rng` instructions give independent samples; a module gives the
//! same sample every time). Parameters the seed leaves to the implementation (`b ≤ a`; a NaN or
//! infinite parameter; `σ ≤ 0`) give the parameter `a` (or `μ`) everywhere: the harness masks them.

use super::philox::{philox4x32, words};
use crate::interpreter::{invalid, Context};
use crate::round::{decode, round_exact};
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;
use rug::float::Constant;
use rug::Float;

/// The key of the reference's Philox stream (the first 64 bits of π's fraction).
const KEY: u64 = 0x243f_6a88_85a3_08d3;

/// The distribution of an `rng` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    Uniform,
    Normal,
}

impl Distribution {
    /// The `distribution=` of an instruction.
    ///
    /// Errors: missing, or neither `rng_uniform` nor `rng_normal`.
    pub fn of(instr: &HloInstruction) -> Result<Distribution, String> {
        match instr.attr_enum("distribution") {
            Some("rng_uniform") => Ok(Distribution::Uniform),
            Some("rng_normal") => Ok(Distribution::Normal),
            Some(other) => Err(format!(
                "`distribution={other}` is not rng_uniform or rng_normal"
            )),
            None => Err("missing `distribution=` (rng_uniform or rng_normal)".into()),
        }
    }
}

/// A stream of 64-bit words: Philox blocks from counter `(hash(name), 0)` under [`KEY`].
struct Words {
    key: [u32; 2],
    counter: u128,
    block: [u32; 4],
    used: usize,
}

impl Words {
    fn new(name: &str) -> Words {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        Words {
            key: super::threefry::halves(KEY),
            counter: u128::from(h) << 64,
            block: [0; 4],
            used: 4,
        }
    }

    fn next(&mut self) -> u64 {
        if self.used == 4 {
            self.block = philox4x32(self.key, words(self.counter));
            self.counter = self.counter.wrapping_add(1);
            self.used = 0;
        }
        let w = u64::from(self.block[self.used]) | (u64::from(self.block[self.used + 1]) << 32);
        self.used += 2;
        w
    }
}

/// `rng(a, b)`: a sample of the distribution, in the layout of the instruction's shape.
///
/// Errors: [`BackendError::Invalid`] for operands that are not two scalars of the result's
/// element type, a missing or unknown `distribution`, a normal distribution of a type that is not
/// floating-point, or a complex result.
pub(crate) fn rng(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let distribution = Distribution::of(instr).map_err(BackendError::Invalid)?;
    let Some(shape) = instr.shape.as_array() else {
        return invalid("rng's result must be an array");
    };
    let ty = shape.element_type;
    let (a, b) = match operands {
        [Literal::Array(a), Literal::Array(b)]
            if a.shape().element_count() == 1
                && b.shape().element_count() == 1
                && a.dimensions().is_empty()
                && b.dimensions().is_empty()
                && a.element_type() == ty
                && b.element_type() == ty =>
        {
            (a.get_bits(&[]) as u64, b.get_bits(&[]) as u64)
        }
        _ => {
            return invalid(format!(
                "rng takes two {ty} scalars (the parameters of its result {shape})"
            ))
        }
    };
    let n = shape.element_count();
    let mut w = Words::new(&instr.name);
    let bits: Vec<u128> = match (distribution, ty.float_format()) {
        (Distribution::Uniform, None) if ty.is_integer() || ty.is_pred() => {
            let lo = ty.integer_from_bits(a).unwrap_or(0);
            let hi = ty.integer_from_bits(b).unwrap_or(0);
            (0..n)
                .map(|_| uniform_integer(&mut w, lo, hi))
                .map(|v| u128::from(ty.integer_to_bits(v).unwrap_or(0)))
                .collect()
        }
        (_, Some(fmt)) if ty.is_float() => {
            let (a, b) = (decode(fmt, a), decode(fmt, b));
            (0..n)
                .map(|_| {
                    u128::from(match distribution {
                        Distribution::Uniform => uniform_float(&mut w, fmt, &a, &b),
                        Distribution::Normal => normal(&mut w, fmt, &a, &b),
                    })
                })
                .collect()
        }
        _ => {
            return invalid(format!(
                "rng of {ty} with {distribution:?}: uniform takes integer, pred or real floating-point types, normal real floating-point types"
            ))
        }
    };
    ArrayLiteral::from_bits(shape.clone(), &bits)
        .map(Literal::Array)
        .map_err(|e| BackendError::Invalid(e.to_string()))
}

/// Uniform in `[lo, hi)` by rejection; `lo` when the interval is empty.
fn uniform_integer(w: &mut Words, lo: i128, hi: i128) -> i128 {
    if hi <= lo {
        return lo;
    }
    let r = (hi - lo) as u128;
    let limit = (1u128 << 64) - (1u128 << 64) % r;
    loop {
        let x = u128::from(w.next());
        if x < limit {
            return lo + (x % r) as i128;
        }
    }
}

/// Precision enough for `a + (b − a)·U` exactly with `U` of 64 bits, for any two values of the
/// formats here (exponents within ±2¹⁰ plus the subnormal range).
const EXACT_PREC: u32 = 2400;

/// `a + (b − a)·w/2⁶⁴` rounded down into `fmt`; `a` when the interval is empty or not finite.
fn uniform_float(w: &mut Words, fmt: conformance_spec::FloatFormat, a: &Float, b: &Float) -> u64 {
    let a_bits = round_exact(fmt, a);
    if !(a.is_finite() && b.is_finite() && a < b) {
        return a_bits;
    }
    let u = Float::with_val(EXACT_PREC, w.next()) >> 64u32;
    let x = Float::with_val(EXACT_PREC, b - a) * u + a;
    let nearest = round_exact(fmt, &x);
    if decode(fmt, nearest) > x {
        fmt.from_ordered(fmt.to_ordered(nearest) - 1)
    } else {
        nearest
    }
}

/// `μ + σ·√(−2 ln U₁)·cos(2πU₂)` rounded to nearest; `μ` when a parameter is not finite or
/// `σ ≤ 0`.
fn normal(w: &mut Words, fmt: conformance_spec::FloatFormat, mu: &Float, sigma: &Float) -> u64 {
    if !(mu.is_finite() && sigma.is_finite() && *sigma > 0) {
        return round_exact(fmt, mu);
    }
    const P: u32 = 256;
    let u1 = (Float::with_val(P, w.next()) + 1u32) >> 64u32;
    let u2 = Float::with_val(P, w.next()) >> 64u32;
    let radius = (Float::with_val(P, u1.ln()) * -2i32).sqrt();
    let angle = Float::with_val(P, Constant::Pi) * 2u32 * u2;
    let z = radius * angle.cos();
    round_exact(fmt, &(Float::with_val(P, sigma * z) + mu))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_integers_cover_the_interval_evenly_and_never_reach_b() {
        let mut w = Words::new("r");
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            let v = uniform_integer(&mut w, -1, 2);
            counts[(v + 1) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        // A range that does not divide 2^64 is still exact (rejection): 3·2^62.
        let r = 3i128 << 62;
        let mut low = 0;
        for _ in 0..30_000 {
            if uniform_integer(&mut w, 0, r) < (1i128 << 62) {
                low += 1;
            }
        }
        assert!((9_400..10_600).contains(&low), "{low}");
        assert_eq!(uniform_integer(&mut w, 5, 5), 5);
    }

    #[test]
    fn uniform_floats_stay_in_a_half_open_interval_even_when_it_is_one_ulp_wide() {
        let fmt = conformance_spec::FloatFormat::F32;
        let a = Float::with_val(24, 1.0f32);
        let b = Float::with_val(24, f32::from_bits(1.0f32.to_bits() + 1));
        let mut w = Words::new("u");
        for _ in 0..1000 {
            assert_eq!(uniform_float(&mut w, fmt, &a, &b), 1.0f32.to_bits() as u64);
        }
        // The whole finite range: no overflow, no b.
        let lo = Float::with_val(24, f32::MIN);
        let hi = Float::with_val(24, f32::MAX);
        for _ in 0..1000 {
            let x = f32::from_bits(uniform_float(&mut w, fmt, &lo, &hi) as u32);
            assert!(x.is_finite() && x < f32::MAX, "{x}");
        }
    }

    #[test]
    fn normal_samples_have_the_stated_mean_and_spread() {
        let fmt = conformance_spec::FloatFormat::F64;
        let (mu, sigma) = (Float::with_val(53, 3.0), Float::with_val(53, 0.5));
        let mut w = Words::new("n");
        let xs: Vec<f64> = (0..20_000)
            .map(|_| f64::from_bits(normal(&mut w, fmt, &mu, &sigma)))
            .collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64;
        assert!((mean - 3.0).abs() < 0.02, "{mean}");
        assert!((var.sqrt() - 0.5).abs() < 0.02, "{var}");
        assert_eq!(
            normal(&mut w, fmt, &mu, &Float::with_val(53, -1.0)),
            3.0f64.to_bits()
        );
    }
}
