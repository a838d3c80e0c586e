//! The exact product of real floating-point values, rounded once (a product reducer:
//! `to_apply` whose root is `multiply` of its two parameters).
//!
//! Seed 004 lets a backend re-associate a reduction ("the reduction computation may be
//! re-associated"), so a product of n factors may be computed in any order, each step rounded.
//! The reference gives the exact product rounded once, as for sums, and reports what the
//! tolerance of any order needs ([`ExactProduct::bound`]): with `n` factors there are `n − 1`
//! roundings, each a relative error of at most `u` while the partial product stays normal, so
//! `|got − exact| <= γ(n − 1)·|exact| + (n − 1)·η·Π max(1, |x_i|)` where `η` is half the smallest
//! subnormal of the format: a rounding in the subnormal range is an absolute error of at most
//! `η`, and the factors multiplied in afterwards scale it by at most the product of the
//! magnitudes above 1. (The bound uses the whole smallest subnormal for `η`: half of f64's is
//! not an f64.)
//!
//! Special values follow IEEE 754 multiplication, whatever the order: a NaN factor, or an
//! infinity and a zero, give NaN; otherwise an infinity gives an infinity and a zero a zero, with
//! the exclusive or of the signs. When the factors above 1 multiply past the format's largest
//! finite value, some order overflows whatever the exact product: the bound is then unbounded
//! (`slack` = +inf) and the element is not compared.

use super::exact_sum::Real;
use super::AccumulationBound;
use crate::round;
use conformance_spec::element_type::FloatFormat;
use rug::float::Round;
use rug::{Float, Integer};

/// The exact product of the factors given so far.
#[derive(Clone, Debug)]
pub struct ExactProduct {
    factors: u64,
    nan: bool,
    infinite: bool,
    zero: bool,
    negative: bool,
    /// `|Π finite non-zero factors| = Π mantissas · 2^exponent` (multiplied out by a balanced
    /// product tree when needed: long products stay fast).
    mantissas: Vec<u64>,
    exponent: i64,
    /// `Π max(1, |x_i|)` over the finite factors, rounded up (+inf when it overflows `f64`).
    magnitude_above_one: f64,
}

impl Default for ExactProduct {
    fn default() -> Self {
        ExactProduct::new()
    }
}

impl ExactProduct {
    /// The empty product (1).
    pub fn new() -> ExactProduct {
        ExactProduct {
            factors: 0,
            nan: false,
            infinite: false,
            zero: false,
            negative: false,
            mantissas: Vec::new(),
            exponent: 0,
            magnitude_above_one: 1.0,
        }
    }

    /// Multiplies by `x` (exactly).
    pub fn multiply(&mut self, x: Real) {
        self.factors += 1;
        match x {
            Real::Nan => self.nan = true,
            Real::Zero { negative } => {
                self.zero = true;
                self.negative ^= negative;
            }
            Real::Infinite { negative } => {
                self.infinite = true;
                self.negative ^= negative;
            }
            Real::Finite { m, e } => {
                self.negative ^= m < 0;
                self.mantissas.push(m.unsigned_abs());
                self.exponent += i64::from(e);
                let magnitude = (m.unsigned_abs() as f64) * 2f64.powi(e);
                if magnitude > 1.0 {
                    // Rounded up: one ULP of slack per factor keeps it an upper bound.
                    self.magnitude_above_one =
                        (self.magnitude_above_one * magnitude) * (1.0 + f64::EPSILON);
                }
            }
        }
    }

    /// The number of factors given.
    pub fn factors(&self) -> u64 {
        self.factors
    }

    fn is_nan(&self) -> bool {
        self.nan || (self.infinite && self.zero)
    }

    /// The exact value of the finite non-zero product.
    fn value(&self) -> Float {
        let mantissa = tree_product(&self.mantissas);
        let prec = mantissa.significant_bits().max(1);
        let mut v = Float::with_val(prec, &mantissa);
        // Exponents of many factors stay far inside MPFR's range.
        let shift = self
            .exponent
            .clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        v <<= shift;
        if self.negative {
            -v
        } else {
            v
        }
    }

    /// The product rounded once into `fmt` (see the module docs for special values).
    pub fn round_to(&self, fmt: FloatFormat) -> u64 {
        if self.is_nan() {
            fmt.nan_bits()
        } else if self.infinite {
            round::infinity_bits(fmt, self.negative)
        } else if self.zero {
            round::zero_bits(fmt, self.negative)
        } else {
            round::round_exact(fmt, &self.value())
        }
    }

    /// What the tolerance of this product in format `fmt`, computed in any order, needs (see
    /// the module docs): `terms` = the roundings (factors − 1); `abs_sum` = `|exact|` rounded up
    /// (+inf for a NaN or infinite product); `slack` = `(factors − 1)·η·Π max(1, |x_i|)`.
    pub fn bound(&self, fmt: FloatFormat) -> AccumulationBound {
        let roundings = self.factors.saturating_sub(1);
        if self.is_nan() || self.infinite {
            return AccumulationBound {
                terms: roundings,
                abs_sum: f64::INFINITY,
                slack: 0.0,
            };
        }
        let abs = if self.zero {
            0.0
        } else {
            self.value().abs().to_f64_round(Round::Up)
        };
        // η, half the smallest subnormal, is not an f64 for f64 itself (it rounds to 0): the
        // whole smallest subnormal stands for it, an upper bound in every format.
        let eta = fmt.min_subnormal();
        // Some order multiplies every factor above 1 first: when that overflows the format, an
        // order may give an infinity (or NaN) whatever the exact product: no bound.
        let slack = if self.magnitude_above_one > fmt.max_finite() {
            f64::INFINITY
        } else {
            roundings as f64 * eta * self.magnitude_above_one
        };
        AccumulationBound {
            terms: roundings,
            abs_sum: abs,
            slack,
        }
    }
}

/// `Π xs` exactly, multiplying neighbours pairwise (a balanced tree: operands of similar sizes,
/// which GMP multiplies fastest).
fn tree_product(xs: &[u64]) -> Integer {
    let mut level: Vec<Integer> = xs.iter().map(|&x| Integer::from(x)).collect();
    if level.is_empty() {
        return Integer::from(1);
    }
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|pair| match pair {
                [a, b] => Integer::from(a * b),
                [a] => a.clone(),
                _ => unreachable!("chunks of two"),
            })
            .collect();
    }
    level.pop().expect("one left")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::ops::Pow;

    fn product(xs: &[f64]) -> ExactProduct {
        let mut p = ExactProduct::new();
        for &x in xs {
            p.multiply(Real::from_f64(x));
        }
        p
    }

    #[test]
    fn the_exact_product_is_rounded_once() {
        let f32s = FloatFormat::F32;
        // (1 + 2^-12)^2·(1 - 2^-12)^2 is exactly 1 - 2^-23 + 2^-48: rounded once, 1 - 2^-23;
        // left to right in f32 the first product ties to even and the result is 1 - 3·2^-24.
        let a = 1.0 + 2f64.powi(-12);
        let b = 1.0 - 2f64.powi(-12);
        let p = product(&[a, a, b, b]);
        let exact = (a * a) * (b * b); // exact in f64: 48 bits
        assert_eq!(p.round_to(f32s) as u32, (exact as f32).to_bits());
        assert_eq!(p.factors(), 4);
        // One rounding per step in f32, left to right, gives another value.
        let stepwise = ((a as f32 * a as f32) * b as f32) * b as f32;
        assert_ne!(stepwise.to_bits(), p.round_to(f32s) as u32);
    }

    #[test]
    fn special_values_follow_ieee_multiplication() {
        let f = FloatFormat::F32;
        let bits = |xs: &[f64]| f32::from_bits(product(xs).round_to(f) as u32);
        assert!(bits(&[2.0, f64::NAN, 0.0]).is_nan());
        assert!(bits(&[f64::INFINITY, 3.0, 0.0]).is_nan());
        assert_eq!(bits(&[-2.0, f64::INFINITY]), f32::NEG_INFINITY);
        assert_eq!(bits(&[-2.0, 0.0]).to_bits(), (-0.0f32).to_bits());
        assert_eq!(bits(&[-2.0, -0.0]).to_bits(), 0.0f32.to_bits());
        // Overflow and underflow of the exact product, rounded once.
        assert_eq!(bits(&[1e30, 1e30]), f32::INFINITY);
        assert_eq!(bits(&[1e-30, 1e-30]), 0.0);
        assert_eq!(bits(&[1e-30, 1e-30, 1e30, 1e30]), 1.0);
        assert_eq!(bits(&[]), 1.0);
    }

    #[test]
    fn an_f64_product_through_the_subnormal_range_is_within_the_slack() {
        // A subnormal times 0.0092 underflows further (an absolute error up to η), then times
        // 3.3e253: 69 ULPs of the exact product -3.25e-57, found by the mutation-testing sweeps
        // once floats got product reducers. The slack of f64 was 0 (η = 2^-1075 rounds to 0).
        let xs = [
            f64::from_bits(0x000f_a622_c6a0_76b2),
            f64::from_bits(0x3f82_e526_0b39_1713),
            f64::from_bits(0xf481_a9f0_e71f_0663),
        ];
        let b = product(&xs).bound(FloatFormat::F64);
        let exact = f64::from_bits(0xb434_6700_3a71_29ff);
        let got = (xs[0] * xs[1]) * xs[2];
        let nu = b.terms as f64 * f64::EPSILON / 2.0;
        let allowed = nu / (1.0 - nu) * b.abs_sum + b.slack;
        assert!(b.slack > 0.0);
        assert!(
            (got - exact).abs() <= allowed,
            "{} > {allowed}",
            (got - exact).abs()
        );
    }

    #[test]
    fn the_bound_covers_every_order() {
        let f = FloatFormat::BF16;
        // bf16 values (8-bit significands): their exact product fits an f64.
        let xs = [1.0078125, 0.99609375, 3.0, 0.33203125, 7.0, 1.5];
        let p = product(&xs);
        let b = p.bound(f);
        assert_eq!(b.terms, 5);
        let exact: f64 = xs.iter().product();
        assert!(b.abs_sum >= exact.abs());
        let u = 2f64.powi(-8);
        let nu = b.terms as f64 * u;
        let allowed = nu / (1.0 - nu) * b.abs_sum + b.slack;
        // Every left-to-right order of the factors, rounded to bf16 at each step, is within it.
        let round = |x: f64| f.decode(f.encode(x));
        let mut perm: Vec<usize> = (0..xs.len()).collect();
        let mut worst: f64 = 0.0;
        for _ in 0..200 {
            perm.rotate_left(1);
            let k = (perm[1] + perm[2]) % xs.len();
            perm.swap(0, k);
            let got = perm.iter().fold(1.0, |acc, &i| round(acc * round(xs[i])));
            worst = worst.max((got - exact).abs());
        }
        assert!(worst <= allowed, "{worst} > {allowed}");
        // A long product is exact too: (1 + 2^-20)^3000 against MPFR's power at a precision
        // that holds it exactly (3000 · 21 bits), rounded once to f32 and to bf16.
        let x = 1.0 + 2f64.powi(-20);
        let mut long = ExactProduct::new();
        for _ in 0..3000 {
            long.multiply(Real::from_f64(x));
        }
        let exact = Float::with_val(3000 * 21 + 64, x).pow(3000u32);
        for fmt in [FloatFormat::F32, FloatFormat::BF16] {
            assert_eq!(
                long.round_to(fmt),
                round::round_exact(fmt, &exact),
                "{fmt:?}"
            );
        }
        // Factors whose product above 1 overflows bf16 leave the element without a bound (some
        // order overflows), though the exact product is small.
        let overflowing = product(&[1e30, 1e20, 1e-30, 1e-20, 3.0]);
        assert!(overflowing.bound(f).slack.is_infinite());
        // A product through the subnormal range carries the slack.
        let tiny = product(&[1e-38, 1e-3, 1e6]);
        assert!(tiny.bound(f).slack > 0.0);
    }
}
