//! The exact accumulator: the exact sum of exact terms (products of two operand values, or plain
//! values), rounded ONCE into a result format (round to nearest, ties to even).
//!
//! Every finite value of every float format here (f8 types, bf16, f16, f32, f64) is `m × 2^e`
//! with `|m| < 2^53`, so the product of two of them is `m × 2^e` with `|m| < 2^106`: an `i128`
//! holds it exactly. [`ExactSum`] keeps the running sum as a fixed-point integer scaled by
//! `2^base`, where `base` is the smallest exponent seen so far (a "long accumulator"): adding is
//! integer addition, so nothing is ever rounded until [`ExactSum::round_to`]. The integer is an
//! `i128` while it fits (the common case: terms of similar magnitude) and spills into a `rug`
//! [`Integer`] otherwise, so the width grows only with the actual exponent span of the terms
//! (at most about 4,300 bits for f64 products, 2^-2148 to 2^2048, plus log2 of the term count).
//!
//! Special values (issue 5's shared decisions): any NaN term, or +inf and −inf terms together,
//! give NaN; otherwise an infinite term gives that infinity (`inf × 0` is a NaN term, see
//! [`product`]); an exact sum whose rounded magnitude exceeds the format's largest finite value
//! gives ±inf (NaN in formats without infinities, as [`FloatFormat::encode`] does). An exact zero
//! sum is −0 only when every term is −0 (IEEE 754's sign rule for sums: `x + (−x) = +0` under
//! round-to-nearest, `−0 + −0 = −0`); an empty sum is +0. A sum of products (dot, convolution)
//! starts from an implicit +0 ([`ExactSum::from_positive_zero`], as every implementation's
//! accumulator does), so its exact zero is always +0.

use crate::round;
use conformance_spec::element_type::{FloatClass, FloatFormat};
use rug::float::Round;
use rug::{Assign, Float, Integer};

/// A decoded real operand value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Real {
    /// `m × 2^e`, `m != 0` (signed).
    Finite {
        m: i64,
        e: i32,
    },
    Zero {
        negative: bool,
    },
    Infinite {
        negative: bool,
    },
    Nan,
}

impl Real {
    /// The value of a bit pattern of `fmt` (exact; NaN payloads are not kept).
    pub fn from_bits(fmt: FloatFormat, bits: u64) -> Real {
        match fmt.classify(bits) {
            FloatClass::Nan => Real::Nan,
            FloatClass::Infinite => Real::Infinite {
                negative: fmt.sign_bit(bits),
            },
            FloatClass::Zero => Real::Zero {
                negative: fmt.sign_bit(bits),
            },
            // Exact: every supported format's values are f64 values.
            FloatClass::Normal | FloatClass::Subnormal => Real::from_f64(fmt.decode(bits)),
        }
    }

    /// The value of an `f64` (exact).
    pub fn from_f64(x: f64) -> Real {
        if x.is_nan() {
            return Real::Nan;
        }
        let negative = x.is_sign_negative();
        if x.is_infinite() {
            return Real::Infinite { negative };
        }
        if x == 0.0 {
            return Real::Zero { negative };
        }
        let bits = x.to_bits();
        let field = ((bits >> 52) & 0x7ff) as i32;
        let frac = (bits & ((1u64 << 52) - 1)) as i64;
        let (mut m, e) = if field == 0 {
            (frac, -1074)
        } else {
            (frac | (1i64 << 52), field - 1075)
        };
        if negative {
            m = -m;
        }
        Real::Finite { m, e }
    }

    /// `−x`.
    pub fn negate(self) -> Real {
        match self {
            Real::Finite { m, e } => Real::Finite { m: -m, e },
            Real::Zero { negative } => Real::Zero {
                negative: !negative,
            },
            Real::Infinite { negative } => Real::Infinite {
                negative: !negative,
            },
            Real::Nan => Real::Nan,
        }
    }
}

/// One exact term of a sum: a product of two [`Real`]s or a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// `m × 2^e`, `m != 0` (signed).
    Finite {
        m: i128,
        e: i32,
    },
    Zero {
        negative: bool,
    },
    Infinite {
        negative: bool,
    },
    Nan,
}

impl From<Real> for Term {
    fn from(r: Real) -> Term {
        match r {
            Real::Finite { m, e } => Term::Finite {
                m: i128::from(m),
                e,
            },
            Real::Zero { negative } => Term::Zero { negative },
            Real::Infinite { negative } => Term::Infinite { negative },
            Real::Nan => Term::Nan,
        }
    }
}

impl Term {
    /// `−t`.
    pub fn negate(self) -> Term {
        match self {
            Term::Finite { m, e } => Term::Finite { m: -m, e },
            Term::Zero { negative } => Term::Zero {
                negative: !negative,
            },
            Term::Infinite { negative } => Term::Infinite {
                negative: !negative,
            },
            Term::Nan => Term::Nan,
        }
    }

    /// `|t|` (NaN stays NaN).
    pub fn abs(self) -> Term {
        match self {
            Term::Finite { m, e } => Term::Finite { m: m.abs(), e },
            Term::Zero { .. } => Term::Zero { negative: false },
            Term::Infinite { .. } => Term::Infinite { negative: false },
            Term::Nan => Term::Nan,
        }
    }
}

/// The exact product `a × b` (IEEE 754 signs; `inf × 0` and NaN operands give NaN).
pub fn product(a: Real, b: Real) -> Term {
    use Real::*;
    match (a, b) {
        (Nan, _) | (_, Nan) => Term::Nan,
        (Infinite { .. }, Zero { .. }) | (Zero { .. }, Infinite { .. }) => Term::Nan,
        (Finite { m: x, e: ex }, Finite { m: y, e: ey }) => Term::Finite {
            // |x|, |y| < 2^53: the product is below 2^106.
            m: i128::from(x) * i128::from(y),
            e: ex + ey,
        },
        _ => {
            let negative = sign(a) != sign(b);
            if matches!(a, Infinite { .. }) || matches!(b, Infinite { .. }) {
                Term::Infinite { negative }
            } else {
                Term::Zero { negative }
            }
        }
    }
}

fn sign(r: Real) -> bool {
    match r {
        Real::Finite { m, .. } => m < 0,
        Real::Zero { negative } | Real::Infinite { negative } => negative,
        Real::Nan => false,
    }
}

/// Bits an `i128` may use in the fast path before spilling into the big integer (headroom for
/// the carries of many additions is checked by `checked_add`).
const FAST_BITS: u32 = 124;

/// The exact sum of [`Term`]s (see the module docs); rounded once by [`ExactSum::round_to`].
#[derive(Clone, Debug)]
pub struct ExactSum {
    nan: bool,
    positive_infinity: bool,
    negative_infinity: bool,
    /// True once a finite non-zero term was added (`base` is then meaningful).
    started: bool,
    /// True while every term added so far is −0 (and at least one was added).
    all_negative_zero: bool,
    any: bool,
    /// The sum of finite terms is `(big + fast) × 2^base`.
    base: i32,
    fast: i128,
    big: Integer,
    scratch: Integer,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum::new()
    }
}

impl ExactSum {
    /// The empty sum (+0).
    pub fn new() -> ExactSum {
        ExactSum {
            nan: false,
            positive_infinity: false,
            negative_infinity: false,
            started: false,
            all_negative_zero: true,
            any: false,
            base: 0,
            fast: 0,
            big: Integer::new(),
            scratch: Integer::new(),
        }
    }

    /// The sum `+0 + ...`: like [`ExactSum::new`], but an exact zero result is +0 even when
    /// every term is −0 (the implicit +0 is not a term).
    pub fn from_positive_zero() -> ExactSum {
        ExactSum {
            all_negative_zero: false,
            ..ExactSum::new()
        }
    }

    /// Adds one term exactly.
    pub fn add(&mut self, t: Term) {
        self.any = true;
        match t {
            Term::Nan => {
                self.nan = true;
                self.all_negative_zero = false;
            }
            Term::Infinite { negative } => {
                if negative {
                    self.negative_infinity = true;
                } else {
                    self.positive_infinity = true;
                }
                self.all_negative_zero = false;
            }
            Term::Zero { negative } => {
                self.all_negative_zero &= negative;
            }
            Term::Finite { m, e } => {
                self.all_negative_zero = false;
                self.add_finite(m, e);
            }
        }
    }

    /// Adds the exact integer product `a × b` (integer operands accumulated into a float result).
    pub fn add_integer_product(&mut self, a: i128, b: i128) {
        match a.checked_mul(b) {
            Some(0) => self.add(Term::Zero { negative: false }),
            Some(p) => self.add(Term::Finite { m: p, e: 0 }),
            None => {
                self.any = true;
                self.all_negative_zero = false;
                self.scratch.assign(a);
                self.scratch *= b;
                let big = std::mem::take(&mut self.scratch);
                self.add_big(&big, 0);
                self.scratch = big;
            }
        }
    }

    fn add_finite(&mut self, mut m: i128, mut e: i32) {
        let tz = m.trailing_zeros();
        m >>= tz;
        e += tz as i32;
        if !self.started {
            self.started = true;
            self.base = e;
            self.fast = m;
            return;
        }
        if e < self.base {
            self.rebase(e);
        }
        let shift = (e - self.base) as u32;
        let bits = 128 - m.unsigned_abs().leading_zeros();
        if shift + bits <= FAST_BITS {
            if let Some(s) = self.fast.checked_add(m << shift) {
                self.fast = s;
                return;
            }
        }
        self.scratch.assign(m);
        self.scratch <<= shift;
        self.big += &self.scratch;
    }

    /// Adds `v × 2^e` for a big integer `v`.
    fn add_big(&mut self, v: &Integer, e: i32) {
        if v.is_zero() {
            return;
        }
        if !self.started {
            self.started = true;
            self.base = e;
        }
        if e < self.base {
            self.rebase(e);
        }
        let shift = (e - self.base) as u32;
        let mut shifted = v.clone();
        shifted <<= shift;
        self.big += &shifted;
    }

    /// Lowers `base` to `e` (shifting the accumulated integer left).
    fn rebase(&mut self, e: i32) {
        let d = (self.base - e) as u32;
        let bits = 128 - self.fast.unsigned_abs().leading_zeros();
        if self.fast != 0 {
            if bits + d > FAST_BITS {
                self.big += self.fast;
                self.fast = 0;
            } else {
                self.fast <<= d;
            }
        }
        if !self.big.is_zero() {
            self.big <<= d;
        }
        self.base = e;
    }

    /// True when the sum is NaN (a NaN term, or both infinities).
    pub fn is_nan(&self) -> bool {
        self.nan || (self.positive_infinity && self.negative_infinity)
    }

    /// The exact finite part `(big + fast) × 2^base` as a `Float` of exactly enough precision,
    /// or `None` when it is zero.
    pub fn finite_value(&self) -> Option<Float> {
        let mut total = self.big.clone();
        total += self.fast;
        if total.is_zero() {
            return None;
        }
        let prec = total.significant_bits().max(1);
        let mut value = Float::with_val(prec, &total);
        value <<= self.base;
        Some(value)
    }

    /// The sum rounded once into `fmt` (bits of the format; see the module docs for special
    /// values and the sign of zero).
    pub fn round_to(&self, fmt: FloatFormat) -> u64 {
        if self.is_nan() {
            return fmt.nan_bits();
        }
        if self.positive_infinity || self.negative_infinity {
            return round::infinity_bits(fmt, self.negative_infinity);
        }
        match self.finite_value() {
            Some(v) => round::round_exact(fmt, &v),
            None => round::zero_bits(fmt, self.any && self.all_negative_zero),
        }
    }

    /// The sum rounded UP (toward +inf) to `f64`: an upper bound for a sum of magnitudes. A NaN
    /// or infinite term gives +inf (the sum is unbounded).
    pub fn round_up_f64(&self) -> f64 {
        if self.nan || self.positive_infinity || self.negative_infinity {
            return f64::INFINITY;
        }
        match self.finite_value() {
            // MPFR's conversion rounds correctly in the requested direction, subnormals and
            // overflow to +inf included.
            Some(v) => v.to_f64_round(Round::Up),
            None => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_term(x: f32) -> Term {
        Real::from_f64(f64::from(x)).into()
    }

    fn sum_f32(terms: &[f32]) -> f32 {
        let mut s = ExactSum::new();
        for &t in terms {
            s.add(f32_term(t));
        }
        f32::from_bits(s.round_to(FloatFormat::F32) as u32)
    }

    #[test]
    fn decoding_is_exact_for_every_class() {
        assert_eq!(Real::from_f64(1.5), Real::Finite { m: 3 << 51, e: -52 });
        assert_eq!(Real::from_f64(-5e-324), Real::Finite { m: -1, e: -1074 });
        assert_eq!(Real::from_f64(-0.0), Real::Zero { negative: true });
        let bf16 = FloatFormat::BF16;
        assert_eq!(Real::from_bits(bf16, 0x3fc0), Real::from_f64(1.5));
        assert_eq!(
            Real::from_bits(bf16, 0xff80),
            Real::Infinite { negative: true }
        );
        assert_eq!(Real::from_bits(bf16, 0x7fc1), Real::Nan);
        assert_eq!(
            Real::from_bits(bf16, 0x0001),
            Real::from_f64(2f64.powi(-133))
        );
    }

    #[test]
    fn catastrophic_cancellation_keeps_the_small_terms() {
        // Naive f32 summation left to right: (1e8 + 1) - 1e8 + 1 = 0 + 1 = 1; exact: 2.
        let xs = [1e8f32, 1.0, -1e8, 1.0];
        let naive = xs.iter().fold(0f32, |a, &x| a + x);
        assert_eq!(naive, 1.0);
        assert_eq!(sum_f32(&xs), 2.0);
        // A tiny term survives the cancellation of two huge ones.
        assert_eq!(sum_f32(&[3e38, 1e-45, -3e38]), 1e-45);
        assert_eq!(sum_f32(&[f32::MAX, f32::MAX, -f32::MAX]), f32::MAX);
    }

    #[test]
    fn rounds_once_to_nearest_even() {
        // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: even gives 1; any extra bit breaks the tie.
        let t = 2f32.powi(-24);
        assert_eq!(sum_f32(&[1.0, t]), 1.0);
        assert_eq!(sum_f32(&[1.0, t, 2f32.powi(-100)]), 1.0 + f32::EPSILON);
        assert_eq!(sum_f32(&[1.0, t, -(2f32.powi(-100))]), 1.0);
        // The same terms in another order give the same bits.
        assert_eq!(sum_f32(&[2f32.powi(-100), t, 1.0]), 1.0 + f32::EPSILON);
    }

    #[test]
    fn special_values() {
        assert!(sum_f32(&[1.0, f32::NAN]).is_nan());
        assert!(sum_f32(&[f32::INFINITY, f32::NEG_INFINITY]).is_nan());
        assert_eq!(sum_f32(&[f32::INFINITY, -1e30]), f32::INFINITY);
        assert_eq!(sum_f32(&[f32::MAX, f32::MAX]), f32::INFINITY);
        assert_eq!(sum_f32(&[-f32::MAX, -f32::MAX]), f32::NEG_INFINITY);
        // Zero signs: all −0 gives −0; a cancellation gives +0; the empty sum +0.
        assert_eq!(sum_f32(&[-0.0, -0.0]).to_bits(), (-0f32).to_bits());
        assert_eq!(sum_f32(&[-0.0, 0.0]).to_bits(), 0);
        assert_eq!(sum_f32(&[0.0, -0.0]).to_bits(), 0);
        assert_eq!(sum_f32(&[1.0, -1.0]).to_bits(), 0);
        assert_eq!(sum_f32(&[]).to_bits(), 0);
        let mut s = ExactSum::from_positive_zero();
        s.add(Term::Zero { negative: true });
        assert_eq!(s.round_to(FloatFormat::F32), 0);
        assert_eq!(
            product(
                Real::Infinite { negative: false },
                Real::Zero { negative: true }
            ),
            Term::Nan
        );
        assert_eq!(
            product(Real::from_f64(-2.0), Real::Infinite { negative: true }),
            Term::Infinite { negative: false }
        );
        assert_eq!(
            product(Real::from_f64(-2.0), Real::Zero { negative: false }),
            Term::Zero { negative: true }
        );
    }

    #[test]
    fn f64_products_across_the_whole_exponent_range() {
        let mut s = ExactSum::new();
        let tiny = Real::from_f64(f64::from_bits(1)); // 2^-1074
        let huge = Real::from_f64(f64::MAX);
        s.add(product(huge, Real::from_f64(2.0))); // overflows f64 but is exact here
        s.add(product(tiny, tiny)); // 2^-2148
        s.add(product(huge, Real::from_f64(-2.0)));
        let v = s.finite_value().unwrap();
        assert_eq!(v, Float::with_val(10, 1) >> 2148u32);
        assert_eq!(s.round_to(FloatFormat::F64), 0);
        assert!(s.round_up_f64() > 0.0);
        // A huge exact sum that does not overflow after the cancellation.
        let mut s = ExactSum::new();
        s.add(product(huge, Real::from_f64(4.0)));
        s.add(product(huge, Real::from_f64(-3.0)));
        assert_eq!(f64::from_bits(s.round_to(FloatFormat::F64)), f64::MAX);
    }

    #[test]
    fn spills_and_rebases_stay_exact() {
        // Terms spread over 200 binades in both directions, summed in a scrambled order, against
        // the exact rational sum.
        let mut terms = Vec::new();
        for k in 0..200 {
            let x =
                (k as f64 - 100.0) * 1.25f64.powi(k - 100) * if k % 3 == 0 { -1.0 } else { 1.0 };
            terms.push(x);
        }
        let mut exact = rug::Rational::new();
        for &x in &terms {
            exact += rug::Rational::from_f64(x).unwrap();
        }
        for order in [1usize, 7, 13] {
            let mut s = ExactSum::new();
            for k in 0..terms.len() {
                s.add(Real::from_f64(terms[(k * order) % terms.len()]).into());
            }
            let got = s.finite_value().unwrap().to_rational().unwrap();
            assert_eq!(got, exact, "order {order}");
        }
    }

    #[test]
    fn rebasing_after_a_cancellation() {
        // The fast part is 0 after 1 − 1; a far smaller term then lowers the base by 1074 bits.
        let mut s = ExactSum::new();
        s.add(Real::from_f64(1.0).into());
        s.add(Real::from_f64(-1.0).into());
        s.add(Real::from_f64(f64::from_bits(1)).into());
        s.add(Real::from_f64(2f64.powi(100)).into());
        s.add(Real::from_f64(-(2f64.powi(100))).into());
        assert_eq!(s.round_to(FloatFormat::F64), 1);
        assert_eq!(s.round_to(FloatFormat::F32), 0);
    }

    #[test]
    fn integer_products_beyond_i128() {
        let mut s = ExactSum::new();
        let m = i128::from(u64::MAX);
        s.add_integer_product(m, m);
        s.add_integer_product(-m, m);
        s.add_integer_product(3, 1);
        assert_eq!(f64::from_bits(s.round_to(FloatFormat::F64)), 3.0);
    }

    /// The correctly rounded value of an exact rational sum, computed independently of
    /// [`ExactSum`] (MPFR rounds the rational directly).
    fn rational_round(fmt: FloatFormat, q: &rug::Rational) -> u64 {
        let (v, t) = Float::with_val_round(fmt.precision(), q, Round::Nearest);
        round::round_nearest_result(fmt, v, t)
    }

    fn finite_f64() -> impl proptest::strategy::Strategy<Value = f64> {
        use proptest::prelude::*;
        prop_oneof![
            any::<f64>().prop_filter("finite", |x| x.is_finite()),
            (-1000i32..1000, -60i32..60).prop_map(|(m, e)| f64::from(m) * 2f64.powi(e)),
            any::<f32>()
                .prop_filter("finite", |x| x.is_finite())
                .prop_map(f64::from),
        ]
    }

    proptest::proptest! {
        #[test]
        fn products_sum_exactly_and_round_once(
            pairs in proptest::collection::vec((finite_f64(), finite_f64()), 0..40)
        ) {
            let mut s = ExactSum::new();
            let mut q = rug::Rational::new();
            for &(a, b) in &pairs {
                s.add(product(Real::from_f64(a), Real::from_f64(b)));
                q += rug::Rational::from_f64(a).unwrap() * rug::Rational::from_f64(b).unwrap();
            }
            for fmt in [FloatFormat::F64, FloatFormat::F32, FloatFormat::BF16, FloatFormat::F16] {
                let got = s.round_to(fmt);
                if q == 0 {
                    proptest::prop_assert_eq!(fmt.decode(got), 0.0);
                } else {
                    proptest::prop_assert_eq!(got, rational_round(fmt, &q));
                }
            }
            let mut abs = ExactSum::new();
            let mut qa = rug::Rational::new();
            for &(a, b) in &pairs {
                abs.add(product(Real::from_f64(a), Real::from_f64(b)).abs());
                qa += (rug::Rational::from_f64(a).unwrap() * rug::Rational::from_f64(b).unwrap()).abs();
            }
            let up = abs.round_up_f64();
            if up.is_finite() {
                proptest::prop_assert!(rug::Rational::from_f64(up).unwrap() >= qa);
                let below = f64::from_bits(up.to_bits().saturating_sub(1));
                proptest::prop_assert!(up == 0.0 || rug::Rational::from_f64(below).unwrap() < qa);
            }
        }
    }

    #[test]
    fn round_up_bounds_from_above() {
        let mut s = ExactSum::new();
        s.add(Real::from_f64(1.0).into());
        s.add(Real::from_f64(2f64.powi(-80)).into());
        assert_eq!(s.round_up_f64(), 1.0 + f64::EPSILON);
        s.add(Term::Infinite { negative: false });
        assert_eq!(s.round_up_f64(), f64::INFINITY);
    }
}
