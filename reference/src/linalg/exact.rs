//! Exact arithmetic shared by the linear-algebra family: complex rationals, exact decoding of
//! element bits, and rounding an exact rational, or `a·s^{±1/2} + b` with rational `a`, `s`, `b`,
//! into a format ONCE.

use crate::round::{self, round_nearest_result};
use crate::ziv::{round_enclosure, Interval};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::literal::{complex_bits, complex_parts};
use conformance_spec::BackendError;
use rug::float::Round;
use rug::{Float, Rational};
use std::cmp::Ordering;

/// A complex rational `re + i·im` (`im = 0` for real data).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CRat {
    /// Real part.
    pub re: Rational,
    /// Imaginary part.
    pub im: Rational,
}

impl CRat {
    /// The real number `re`.
    pub fn real(re: Rational) -> CRat {
        CRat {
            re,
            im: Rational::new(),
        }
    }

    /// 1.
    pub fn one() -> CRat {
        CRat::real(Rational::from(1))
    }

    /// True for 0.
    pub fn is_zero(&self) -> bool {
        self.re.is_zero() && self.im.is_zero()
    }

    /// `self + o`.
    pub fn add(&self, o: &CRat) -> CRat {
        CRat {
            re: Rational::from(&self.re + &o.re),
            im: Rational::from(&self.im + &o.im),
        }
    }

    /// `self − o`.
    pub fn sub(&self, o: &CRat) -> CRat {
        CRat {
            re: Rational::from(&self.re - &o.re),
            im: Rational::from(&self.im - &o.im),
        }
    }

    /// `self × o`.
    pub fn mul(&self, o: &CRat) -> CRat {
        if self.im.is_zero() && o.im.is_zero() {
            return CRat::real(Rational::from(&self.re * &o.re));
        }
        let re = Rational::from(&self.re * &o.re) - Rational::from(&self.im * &o.im);
        let im = Rational::from(&self.re * &o.im) + Rational::from(&self.im * &o.re);
        CRat { re, im }
    }

    /// `self × r` for a real rational `r`.
    pub fn scale(&self, r: &Rational) -> CRat {
        CRat {
            re: Rational::from(&self.re * r),
            im: Rational::from(&self.im * r),
        }
    }

    /// `self / o`, or `None` when `o = 0`.
    pub fn div(&self, o: &CRat) -> Option<CRat> {
        if o.is_zero() {
            return None;
        }
        if o.im.is_zero() {
            return Some(CRat {
                re: Rational::from(&self.re / &o.re),
                im: Rational::from(&self.im / &o.re),
            });
        }
        let n = o.norm_sqr();
        Some(self.mul(&o.conj()).scale(&n.recip()))
    }

    /// The complex conjugate.
    pub fn conj(&self) -> CRat {
        CRat {
            re: self.re.clone(),
            im: Rational::from(-&self.im),
        }
    }

    /// `|self|²` (exact).
    pub fn norm_sqr(&self) -> Rational {
        Rational::from(self.re.square_ref()) + Rational::from(self.im.square_ref())
    }
}

/// The exact value of a finite bit pattern of `fmt`, or `None` for NaN and ±inf.
pub fn rational(fmt: FloatFormat, bits: u64) -> Option<Rational> {
    round::decode(fmt, bits).to_rational()
}

/// The exact value of an element of a real (`complex = false`) or complex type, or `None` when a
/// component is NaN or infinite.
pub fn element(fmt: FloatFormat, complex: bool, bits: u128) -> Option<CRat> {
    if complex {
        let (re, im) = complex_parts(fmt, bits);
        Some(CRat {
            re: rational(fmt, re)?,
            im: rational(fmt, im)?,
        })
    } else {
        Some(CRat::real(rational(fmt, bits as u64)?))
    }
}

/// The bits of NaN in a real or complex element type.
pub fn nan_element(fmt: FloatFormat, complex: bool) -> u128 {
    if complex {
        complex_bits(fmt, fmt.nan_bits(), fmt.nan_bits())
    } else {
        u128::from(fmt.nan_bits())
    }
}

/// The exact rational `r` rounded once into `fmt` (nearest, ties to even; subnormals and overflow
/// as the format has them). An exact zero is +0.
///
/// MPFR's `mpfr_set_q` rounds a rational correctly at the format's precision and reports the
/// direction (ternary value); [`round_nearest_result`] then places the value in the format's
/// exponent range using that ternary value, so no double rounding happens (also near ties).
pub fn round_rational(fmt: FloatFormat, r: &Rational) -> u64 {
    if r.is_zero() {
        return 0;
    }
    let (f, t): (Float, Ordering) = Float::with_val_round(fmt.precision(), r, Round::Nearest);
    round_nearest_result(fmt, f, t)
}

/// Encloses the rational `r` at precision `w` (bounds rounded down and up).
pub fn rational_interval(r: &Rational, w: u32) -> Interval {
    Interval {
        lo: Float::with_val_round(w, r, Round::Down).0,
        hi: Float::with_val_round(w, r, Round::Up).0,
    }
}

/// Encloses `√s` (`s > 0` rational) at precision `w`.
pub fn sqrt_interval(s: &Rational, w: u32) -> Interval {
    let iv = rational_interval(s, w);
    Interval {
        lo: Float::with_val_round(w, iv.lo.sqrt_ref(), Round::Down).0,
        hi: Float::with_val_round(w, iv.hi.sqrt_ref(), Round::Up).0,
    }
}

/// The exact square root of a rational when it is rational (`s = p/q` in lowest terms with `p`
/// and `q` perfect squares), else `None`.
pub fn rational_sqrt(s: &Rational) -> Option<Rational> {
    if s.is_negative() {
        return None;
    }
    let (p, q) = (s.numer(), s.denom());
    if p.is_perfect_square() && q.is_perfect_square() {
        Some(Rational::from((p.clone().sqrt(), q.clone().sqrt())))
    } else {
        None
    }
}

/// `a·√s + b` (`inverse = false`) or `a/√s + b` (`inverse = true`) for rationals `a`, `b` and
/// `s > 0`, rounded once into `fmt`.
///
/// When `a = 0` or `√s` is rational the value is rational and rounded exactly
/// ([`round_rational`]); otherwise `a·√s` is irrational (a nonzero rational times an irrational),
/// so the value is neither representable nor a midpoint between two representable numbers (both
/// are rational) and Ziv's loop ([`round_enclosure`]) terminates. Errors:
/// [`BackendError::Invalid`] for `s ≤ 0`; [`BackendError::Failure`] if the loop gives up.
pub fn round_affine_sqrt(
    fmt: FloatFormat,
    a: &Rational,
    s: &Rational,
    b: &Rational,
    inverse: bool,
) -> Result<u64, BackendError> {
    if *s <= 0 {
        return Err(BackendError::Invalid(format!(
            "square root of the non-positive value {s}"
        )));
    }
    if a.is_zero() {
        return Ok(round_rational(fmt, b));
    }
    if let Some(root) = rational_sqrt(s) {
        let factor = if inverse { root.recip() } else { root };
        return Ok(round_rational(fmt, &(Rational::from(a * &factor) + b)));
    }
    round_enclosure(fmt, |w| {
        let root = sqrt_interval(s, w);
        let factor = if inverse {
            Interval::point(&Float::with_val(w, 1)).div(&root, w)?
        } else {
            root
        };
        let y = rational_interval(a, w).mul(&factor, w);
        Some(y.add(&rational_interval(b, w), w))
    })
}

/// An upper bound of a non-negative rational as `f64` (+inf when it overflows).
pub fn up_f64(r: &Rational) -> f64 {
    Float::with_val_round(64, r, Round::Up)
        .0
        .to_f64_round(Round::Up)
}

/// An upper bound of `√r` (`r ≥ 0`) as a [`Float`] of precision 64.
pub fn sqrt_up(r: &Rational) -> Float {
    let x = Float::with_val_round(64, r, Round::Up).0;
    Float::with_val_round(64, x.sqrt_ref(), Round::Up).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rational_rounding_is_correct_near_ties() {
        // 1 + 2^-24 is the midpoint between 1 and 1 + 2^-23: ties to even gives 1; a hair above
        // gives 1 + 2^-23.
        let mid = Rational::from(1) + Rational::from((1, 1u32 << 24));
        assert_eq!(
            round_rational(FloatFormat::F32, &mid) as u32,
            1f32.to_bits()
        );
        let above = mid.clone() + Rational::from((1, Rational::from(1u64 << 60).numer().clone()));
        assert_eq!(
            round_rational(FloatFormat::F32, &above) as u32,
            (1.0f32 + f32::EPSILON).to_bits()
        );
        // 1/3 in f64.
        assert_eq!(
            f64::from_bits(round_rational(FloatFormat::F64, &Rational::from((1, 3)))),
            1.0 / 3.0
        );
        // Subnormal: 3/2 of the smallest f32 subnormal, exactly a tie → 2 quanta (even).
        let q =
            Rational::from((3, 1)) / Rational::from(Rational::from(2).numer().clone() << 149u32);
        assert_eq!(round_rational(FloatFormat::F32, &q), 2);
    }

    #[test]
    fn affine_sqrt_exact_and_irrational() {
        let f = FloatFormat::F64;
        let r = |x: f64| Rational::from_f64(x).unwrap();
        // 3·√4 + 1 = 7 exactly.
        let v = round_affine_sqrt(f, &r(3.0), &r(4.0), &r(1.0), false).unwrap();
        assert_eq!(f64::from_bits(v), 7.0);
        // 1/√2.
        let v = round_affine_sqrt(f, &r(1.0), &r(2.0), &r(0.0), true).unwrap();
        assert_eq!(f64::from_bits(v), std::f64::consts::FRAC_1_SQRT_2);
        // √2 − 1 in f32.
        let v = round_affine_sqrt(FloatFormat::F32, &r(1.0), &r(2.0), &r(-1.0), false).unwrap();
        assert_eq!(f32::from_bits(v as u32), (2f64.sqrt() - 1.0) as f32);
        assert!(round_affine_sqrt(f, &r(1.0), &r(0.0), &r(0.0), true).is_err());
    }

    #[test]
    fn complex_rationals() {
        let z = CRat {
            re: Rational::from(3),
            im: Rational::from(4),
        };
        assert_eq!(z.norm_sqr(), 25);
        let q = z.div(&z).unwrap();
        assert_eq!(q, CRat::one());
        assert!(z.div(&CRat::default()).is_none());
        assert_eq!(z.mul(&z.conj()), CRat::real(Rational::from(25)));
    }
}
