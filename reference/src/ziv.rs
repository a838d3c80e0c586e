//! Ziv's strategy for functions that MPFR/MPC do not provide as one correctly rounded primitive.
//!
//! A composite function (`logistic`, complex `sign`, `expm1`, `rsqrt`, ...) is evaluated with
//! interval arithmetic at a working precision `w`: every primitive is either exact or a correctly
//! rounded MPFR/MPC call evaluated twice, rounded down and rounded up, so the true value lies in
//! `[lo, hi]`. Rounding to nearest into a format (with subnormals and overflow) is monotone, so
//! when `lo` and `hi` round to the same bits, so does the true value. Otherwise `w` doubles.
//!
//! The loop terminates unless the true value is itself a rounding boundary (a midpoint between two
//! representable values) or an exactly representable value that the enclosure cannot pin down;
//! each caller explains why its function has neither, or handles such inputs exactly first.

use crate::round::round_exact;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;
use rug::float::Round;
use rug::Float;

/// The largest working precision tried, in bits, before giving up.
pub const MAX_PRECISION: u32 = 1 << 15;

/// A closed interval `[lo, hi]` of reals known to contain a value.
#[derive(Clone, Debug)]
pub struct Interval {
    /// Lower bound.
    pub lo: Float,
    /// Upper bound.
    pub hi: Float,
}

impl Interval {
    /// The degenerate interval of an exact value.
    pub fn point(x: &Float) -> Interval {
        Interval {
            lo: x.clone(),
            hi: x.clone(),
        }
    }

    /// An interval with no information (the whole extended line).
    pub fn everything() -> Interval {
        Interval {
            lo: Float::with_val(2, f64::NEG_INFINITY),
            hi: Float::with_val(2, f64::INFINITY),
        }
    }

    /// Encloses `f(x)` for a correctly rounded MPFR function `f` at an exact point `x`, at
    /// precision `w`: `f(x, w, round)` must return `f(x)` rounded in direction `round`.
    pub fn of_point(x: &Float, w: u32, f: fn(&Float, u32, Round) -> Float) -> Interval {
        Interval {
            lo: f(x, w, Round::Down),
            hi: f(x, w, Round::Up),
        }
    }

    /// e^x over the interval (e^x is increasing).
    pub fn exp(&self, w: u32) -> Interval {
        Interval {
            lo: Float::with_val_round(w, self.lo.exp_ref(), Round::Down).0,
            hi: Float::with_val_round(w, self.hi.exp_ref(), Round::Up).0,
        }
    }

    /// −x over the interval (exact).
    pub fn neg(&self) -> Interval {
        Interval {
            lo: -self.hi.clone(),
            hi: -self.lo.clone(),
        }
    }

    /// `self + o`, bounds rounded outward at precision `w`.
    pub fn add(&self, o: &Interval, w: u32) -> Interval {
        Interval {
            lo: Float::with_val_round(w, &self.lo + &o.lo, Round::Down).0,
            hi: Float::with_val_round(w, &self.hi + &o.hi, Round::Up).0,
        }
    }

    /// `self − o`, bounds rounded outward at precision `w`.
    pub fn sub(&self, o: &Interval, w: u32) -> Interval {
        Interval {
            lo: Float::with_val_round(w, &self.lo - &o.hi, Round::Down).0,
            hi: Float::with_val_round(w, &self.hi - &o.lo, Round::Up).0,
        }
    }

    /// `self × o` (hull of the corner products), bounds rounded outward at precision `w`; the
    /// whole line when a corner is 0 × ∞.
    pub fn mul(&self, o: &Interval, w: u32) -> Interval {
        hull(self, o, |a, b, r| Float::with_val_round(w, a * b, r).0)
            .unwrap_or_else(Interval::everything) // 0 × inf
    }

    /// `self / o` (hull of the corner quotients, rounded outward at precision `w`), or `None` when
    /// `o` contains zero.
    pub fn div(&self, o: &Interval, w: u32) -> Option<Interval> {
        if !(o.lo > 0 || o.hi < 0) {
            return None;
        }
        Some(
            hull(self, o, |a, b, r| Float::with_val_round(w, a / b, r).0)
                .unwrap_or_else(Interval::everything), // inf / inf
        )
    }

    /// True when both bounds are the same number (signed zeros count as equal).
    pub fn is_point(&self) -> bool {
        self.lo == self.hi
    }
}

/// The hull of `op` over the four corner pairs, each rounded outward; `None` if one is NaN.
fn hull(
    a: &Interval,
    b: &Interval,
    op: impl Fn(&Float, &Float, Round) -> Float,
) -> Option<Interval> {
    let mut lo: Option<Float> = None;
    let mut hi: Option<Float> = None;
    for (x, y) in [
        (&a.lo, &b.lo),
        (&a.lo, &b.hi),
        (&a.hi, &b.lo),
        (&a.hi, &b.hi),
    ] {
        let d = op(x, y, Round::Down);
        let u = op(x, y, Round::Up);
        if d.is_nan() || u.is_nan() {
            return None;
        }
        if lo.as_ref().is_none_or(|l| d < *l) {
            lo = Some(d);
        }
        if hi.as_ref().is_none_or(|h| u > *h) {
            hi = Some(u);
        }
    }
    Some(Interval { lo: lo?, hi: hi? })
}

/// Rounds the value enclosed by `enclose(w)` into `fmt`, doubling `w` from `fmt.precision() + 32`
/// until both bounds round to the same bits.
///
/// `enclose` returns `None` when the enclosure at that precision carries no information (e.g. a
/// divisor interval containing zero); the loop then continues at a higher precision. A degenerate
/// enclosure (`lo == hi`) is the exact value and is rounded directly (its zero sign is the
/// caller's). Errors: [`BackendError::Failure`] after [`MAX_PRECISION`] bits.
pub fn round_enclosure(
    fmt: FloatFormat,
    mut enclose: impl FnMut(u32) -> Option<Interval>,
) -> Result<u64, BackendError> {
    let mut w = fmt.precision() + 32;
    while w <= MAX_PRECISION {
        if let Some(iv) = enclose(w) {
            if !iv.lo.is_nan() && !iv.hi.is_nan() {
                let a = round_exact(fmt, &iv.lo);
                if iv.is_point() {
                    return Ok(a);
                }
                let b = round_exact(fmt, &iv.hi);
                if a == b {
                    return Ok(a);
                }
            }
        }
        w *= 2;
    }
    Err(BackendError::Failure(format!(
        "the enclosure did not round to one value in {} bits",
        MAX_PRECISION
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_encloses() {
        let third = Interval::point(&Float::with_val(10, 1))
            .div(&Interval::point(&Float::with_val(10, 3)), 60)
            .unwrap();
        assert!(third.lo < third.hi);
        let back = third.mul(&Interval::point(&Float::with_val(10, 3)), 60);
        assert!(back.lo <= 1 && back.hi >= 1);
        let zero = Interval::point(&Float::with_val(10, 0));
        assert!(third.div(&zero, 60).is_none());
        let e = Interval::point(&Float::with_val(10, 1)).exp(80);
        let width = Float::with_val(80, &e.hi - &e.lo);
        let e64 = std::f64::consts::E;
        assert!(e.lo > e64 - 1e-15 && e.hi < e64 + 1e-15 && width < 1e-20);
        let d = e.sub(&e, 80);
        assert!(d.lo <= 0 && d.hi >= 0);
    }

    #[test]
    fn rounds_when_bounds_agree() {
        // 1/3 in f32.
        let r = round_enclosure(FloatFormat::F32, |w| {
            Interval::point(&Float::with_val(w, 1)).div(&Interval::point(&Float::with_val(w, 3)), w)
        })
        .unwrap();
        assert_eq!(r as u32, (1.0f32 / 3.0).to_bits());
    }

    #[test]
    fn gives_up_on_a_midpoint_enclosure() {
        // An enclosure that always straddles the midpoint 1 + 2^-24 never decides.
        let r = round_enclosure(FloatFormat::F32, |w| {
            let mid = Float::with_val(64, 1.0) + Float::with_val(64, 2f64.powi(-24));
            let eps = Float::with_val(w, 1) >> (w - 8);
            Some(Interval {
                lo: Float::with_val(w + 64, &mid - &eps),
                hi: Float::with_val(w + 64, &mid + &eps),
            })
        });
        assert!(matches!(r, Err(BackendError::Failure(_))));
    }
}
