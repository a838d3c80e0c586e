//! Complex element types (c64 = two f32, c128 = two f64; real part first, seed 004): the
//! element-wise functions and arithmetic on them, `real`/`imag`/`abs` to the component type, and
//! the `complex` operation that builds complex values.
//!
//! c64 is computed in f64 and each component rounded once to f32; the product is correctly rounded
//! per component (its f64 products are exact and the sum is rounded to odd before the final
//! rounding). c128 multiplies with FMA-based error-free products (error ≈ 0.5 ULP per component
//! away from massive cancellation) and divides with double-double numerators and denominator
//! (see [`div_c128`]); the transcendental functions
//! use `num-complex`'s formulas in f64 (the measured errors are reported by
//! `tests/complex_accuracy.rs`), except the inverse trigonometric and hyperbolic functions
//! (`super::special::complex_inverse`).

use super::Ctx;
use crate::buffer::with_output;
use crate::kernels::libm64::{div_dd, two_prod, two_sum};
use crate::parallel::{map1, map2};
use conformance_spec::element_type::{frexp, ldexp};
use conformance_spec::{BackendError, ElementType, Opcode};
use num_complex::Complex64;

/// Rounds the exact sum `s + t` (with `|t| ≤ ulp(s)/2`, as from [`two_sum`]) to f32 once:
/// `s` is first rounded to odd (its last bit records whether `t` is non-zero), which makes the
/// final rounding to 24 bits exact-rounding (53 ≥ 24 + 2).
#[inline]
pub fn round_sum_to_f32(s: f64, t: f64) -> f32 {
    if t == 0.0 || !s.is_finite() || s.to_bits() & 1 == 1 {
        return s as f32;
    }
    let bits = s.to_bits();
    let odd = if (t > 0.0) == (s > 0.0) {
        bits + 1 // away from zero
    } else {
        bits - 1 // toward zero
    };
    f64::from_bits(odd) as f32
}

/// `p·q + sign·r·s` as `(h + l)·2^e` (|h| < 4): each product is formed exactly from operands
/// scaled to [0.5, 1) with its exponent kept apart, and the two are added as a double-double at the
/// larger exponent. No intermediate overflows or underflows whatever the magnitudes. A zero sum is
/// returned as `(±0, 0, 0)` with the sign IEEE arithmetic gives (+0 for an exact cancellation).
pub fn dot_scaled(p: f64, q: f64, r: f64, s: f64, sign: f64) -> (f64, f64, i32) {
    let term = |u: f64, v: f64| -> Option<(f64, f64, i32)> {
        if u == 0.0 || v == 0.0 {
            return None;
        }
        let ((_, eu), (_, ev)) = (frexp(u), frexp(v));
        let (h, l) = two_prod(ldexp(u, -eu), ldexp(v, -ev));
        Some((h, l, eu + ev))
    };
    let plain = || (p * q + sign * (r * s), 0.0, 0);
    let (t1, t2) = (term(p, q), term(r, s));
    let ((h1, l1, e1), (h2, l2, e2)) = match (t1, t2) {
        (None, None) => return plain(),
        (Some(a), None) => (a, (0.0, 0.0, a.2)),
        (None, Some(b)) => ((0.0, 0.0, b.2), b),
        (Some(a), Some(b)) => (a, b),
    };
    let e = e1.max(e2);
    let (h, t) = two_sum(ldexp(h1, e1 - e), sign * ldexp(h2, e2 - e));
    let l = t + (ldexp(l1, e1 - e) + sign * ldexp(l2, e2 - e));
    if h == 0.0 && l == 0.0 {
        // Exact cancellation of two non-zero products: +0 under round-to-nearest (IEEE 754
        // §6.3). Not the plain formula, whose products may overflow (inf − inf = NaN).
        return (0.0, 0.0, 0);
    }
    (h, l, e)
}

/// c128 product: each component `ac − bd`, `ad + bc` from [`dot_scaled`], rounded once to f64 and
/// scaled back. Non-finite operands use the textbook formula.
#[inline]
pub fn mul_c128(x: Complex64, y: Complex64) -> Complex64 {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    if !(a.is_finite() && b.is_finite() && c.is_finite() && d.is_finite()) {
        return mul_annex_g(x, y);
    }
    let (rh, rl, re) = dot_scaled(a, c, b, d, -1.0);
    let (ih, il, ie) = dot_scaled(a, d, b, c, 1.0);
    Complex64::new(ldexp(rh + rl, re), ldexp(ih + il, ie))
}

/// The textbook product with the C99 Annex G (G.5.1) recovery of infinities: a NaN + iNaN result
/// from an infinite operand is an infinity.
pub fn mul_annex_g(x: Complex64, y: Complex64) -> Complex64 {
    let (mut a, mut b, mut c, mut d) = (x.re, x.im, y.re, y.im);
    let (re, im) = (a * c - b * d, a * d + b * c);
    if !(re.is_nan() && im.is_nan()) {
        return Complex64::new(re, im);
    }
    let box_inf = |u: f64| if u.is_infinite() { 1.0f64 } else { 0.0 }.copysign(u);
    let unnan = |u: f64| if u.is_nan() { 0.0f64.copysign(u) } else { u };
    let mut recalc = false;
    if a.is_infinite() || b.is_infinite() {
        (a, b) = (box_inf(a), box_inf(b));
        (c, d) = (unnan(c), unnan(d));
        recalc = true;
    }
    if c.is_infinite() || d.is_infinite() {
        (c, d) = (box_inf(c), box_inf(d));
        (a, b) = (unnan(a), unnan(b));
        recalc = true;
    }
    if !recalc && [a * c, b * d, a * d, b * c].iter().any(|p| p.is_infinite()) {
        (a, b, c, d) = (unnan(a), unnan(b), unnan(c), unnan(d));
        recalc = true;
    }
    if recalc {
        let inf = f64::INFINITY;
        return Complex64::new(inf * (a * c - b * d), inf * (a * d + b * c));
    }
    Complex64::new(re, im)
}

/// `1/z` with the C99 Annex G division rules for infinite and zero `z`.
pub fn recip(z: Complex64) -> Complex64 {
    if z.re.is_infinite() || z.im.is_infinite() {
        return Complex64::new(0.0f64.copysign(z.re), -0.0f64.copysign(z.im));
    }
    div_c128(Complex64::new(1.0, 0.0), z)
}

/// Scales `(a, b)` by `2^-e` so that the larger magnitude lies in [0.5, 1) (exact), returning `e`
/// (0 for a zero pair).
#[inline]
fn scale_pair(a: f64, b: f64) -> (f64, f64, i32) {
    let m = a.abs().max(b.abs());
    if m == 0.0 {
        return (a, b, 0);
    }
    let (_, e) = frexp(m);
    (ldexp(a, -e), ldexp(b, -e), e)
}

/// c64 product, correctly rounded per component (products exact in f64, sum rounded to odd).
#[inline]
pub fn mul_c64(x: [f32; 2], y: [f32; 2]) -> [f32; 2] {
    let (a, b, c, d) = (x[0] as f64, x[1] as f64, y[0] as f64, y[1] as f64);
    let (re, re_t) = two_sum(a * c, -(b * d));
    let (im, im_t) = two_sum(a * d, b * c);
    [round_sum_to_f32(re, re_t), round_sum_to_f32(im, im_t)]
}

/// Complex division by Smith's algorithm (scaled by the larger component of the divisor).
#[inline]
pub fn div_smith(x: Complex64, y: Complex64) -> Complex64 {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    if c.abs() >= d.abs() {
        if c == 0.0 && d == 0.0 {
            return Complex64::new(a / c.abs(), b / c.abs());
        }
        let r = d / c;
        let den = c + d * r;
        Complex64::new((a + b * r) / den, (b - a * r) / den)
    } else {
        let r = c / d;
        let den = c * r + d;
        Complex64::new((a * r + b) / den, (b * r - a) / den)
    }
}

/// c128 division: numerators `ac + bd`, `bc − ad` and the denominator `c² + d²` are formed by
/// [`dot_scaled`] (double-doubles with separate exponents), and each quotient is a double-double
/// division rounded once, then scaled. Non-finite or zero operands take Smith's algorithm.
#[inline]
pub fn div_c128(x: Complex64, y: Complex64) -> Complex64 {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    let finite = a.is_finite() && b.is_finite() && c.is_finite() && d.is_finite();
    if !finite || (c == 0.0 && d == 0.0) {
        return div_smith(x, y);
    }
    let (dh, dl, de) = dot_scaled(c, c, d, d, 1.0);
    let quotient = |(nh, nl, ne): (f64, f64, i32)| {
        if nh == 0.0 {
            nh / dh // a signed zero
        } else {
            ldexp(div_dd(nh, nl, dh, dl), ne - de)
        }
    };
    Complex64::new(
        quotient(dot_scaled(a, c, b, d, 1.0)),
        quotient(dot_scaled(b, c, a, d, -1.0)),
    )
}

/// `|z|` and the direction `z/|z|`, components correctly rounded up to a few 2^-100 (double-double
/// sum of squares of the scaled components, double-double square root and division).
#[inline]
pub fn sign(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if x.is_nan() || y.is_nan() {
        return Complex64::new(f64::NAN, f64::NAN);
    }
    if x == 0.0 && y == 0.0 {
        return Complex64::new(0.0, 0.0);
    }
    if x.is_infinite() || y.is_infinite() {
        // Directions of infinite values: the infinite components, as ±1 or 0.
        let f = |v: f64| {
            if v.is_infinite() {
                v.signum()
            } else {
                0.0 * v.signum()
            }
        };
        let (re, im) = (f(x), f(y));
        let k = re.hypot(im);
        return Complex64::new(re / k, im / k);
    }
    let (x, y, _) = scale_pair(x, y);
    let (p1, e1) = two_prod(x, x);
    let (p2, e2) = two_prod(y, y);
    let (sh, sl) = two_sum(p1, p2);
    let sl = sl + (e1 + e2);
    // √(sh + sl) as a double-double: r + (sh − r² + sl)/(2r).
    let r = sh.sqrt();
    let (r2, r2e) = two_prod(r, r);
    let rl = ((sh - r2) - r2e + sl) / (2.0 * r);
    Complex64::new(div_dd(x, 0.0, r, rl), div_dd(y, 0.0, r, rl))
}

/// Principal square root: `t = √((|x| + |z|)/2)`, then `(t, y/2t)` for x ≥ 0 and
/// `(|y|/2t, ±t)` otherwise (no cancellation; Kahan's formulation), with the C99 special cases
/// for infinite parts.
#[inline]
pub fn sqrt(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if y.is_infinite() {
        return Complex64::new(f64::INFINITY, y);
    }
    if x.is_infinite() && y.is_nan() {
        return if x > 0.0 {
            Complex64::new(x, y)
        } else {
            Complex64::new(y, f64::INFINITY)
        };
    }
    if x.is_nan() || y.is_nan() {
        return Complex64::new(f64::NAN, f64::NAN);
    }
    if x == 0.0 && y == 0.0 {
        return Complex64::new(0.0, y);
    }
    if x.is_infinite() {
        return if x > 0.0 {
            Complex64::new(x, 0.0f64.copysign(y))
        } else {
            Complex64::new(0.0, f64::INFINITY.copysign(y))
        };
    }
    // Scale by an even power of two so that |x| + |z| cannot overflow or lose precision.
    let (_, e) = frexp(x.abs().max(y.abs()));
    let e = e & !1;
    let (xs, ys) = (ldexp(x, -e), ldexp(y, -e));
    let t = ldexp(((xs.abs() + xs.hypot(ys)) * 0.5).sqrt(), e / 2);
    if x >= 0.0 {
        Complex64::new(t, y / (2.0 * t))
    } else {
        Complex64::new(y.abs() / (2.0 * t), t.copysign(y))
    }
}

/// c64 division in f64: numerators and denominator of `(ac + bd, bc − ad) / (c² + d²)` are formed
/// from exact products (f32 ranges cannot overflow f64 here), then each component rounds to f32.
#[inline]
pub fn div_c64(x: [f32; 2], y: [f32; 2]) -> [f32; 2] {
    let (a, b, c, d) = (x[0] as f64, x[1] as f64, y[0] as f64, y[1] as f64);
    let den = c * c + d * d;
    if den == 0.0 || !den.is_finite() {
        let q = div_smith(Complex64::new(a, b), Complex64::new(c, d));
        return [q.re as f32, q.im as f32];
    }
    [
        ((a * c + b * d) / den) as f32,
        ((b * c - a * d) / den) as f32,
    ]
}

/// `e^z − 1` without cancellation for small `z`:
/// re = expm1(x)·cos y − 2 sin²(y/2), im = e^x · sin y; for x > 1 (no cancellation left worth
/// avoiding) and non-finite z, `e^z − 1` from [`exp`].
#[inline]
pub fn expm1(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if y == 0.0 {
        return Complex64::new(x.exp_m1(), y);
    }
    if !(x.is_finite() && y.is_finite()) || x > 1.0 {
        let e = exp(z);
        return Complex64::new(e.re - 1.0, e.im);
    }
    let s = (0.5 * y).sin();
    let (sy, cy) = y.sin_cos();
    Complex64::new(x.exp_m1() * cy - 2.0 * s * s, x.exp() * sy)
}

/// `ln(1 + z)` without cancellation: re = ½·log1p(2x + x² + y²) (the argument summed from exact
/// terms) while |1 + z|² − 1 ≥ −¾, otherwise `ln |1 + x + iy|` (1 + x is then exact);
/// im = atan2(y, 1 + x).
#[inline]
pub fn log1p(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if y == 0.0 && x >= -1.0 {
        return Complex64::new(x.ln_1p(), y);
    }
    if !(x.abs() < 4.0 && y.abs() < 4.0) {
        return log(Complex64::new(1.0 + x, y));
    }
    // |1 + z|² − 1 = 2x + x² + y², summed from exact terms (it may cancel).
    let (x2, ex) = two_prod(x, x);
    let (y2, ey) = two_prod(y, y);
    let (s1, t1) = two_sum(2.0 * x, x2);
    let (s2, t2) = two_sum(s1, y2);
    let m = s2 + (t1 + t2 + ex + ey);
    if m < -0.75 {
        return log(Complex64::new(1.0 + x, y));
    }
    Complex64::new(0.5 * m.ln_1p(), y.atan2(1.0 + x))
}

/// `tan z = −i tanh(i z)`.
pub fn tan(z: Complex64) -> Complex64 {
    let t = tanh(Complex64::new(-z.im, z.re));
    Complex64::new(t.im, -t.re)
}

/// `1 / (1 + e^−z)` for finite z: for x ≥ 0, w = e^−z and `1/(1 + w)`; for x < 0, w = e^z and
/// `w/(1 + w)` (|w| ≤ 1, no overflow). Re(1 + w) = 2cos²(y/2) + expm1(∓x)·cos y has no
/// cancellation (both terms have one sign when cos y < 0), so the poles at x = 0 keep full
/// accuracy. Non-finite z: the steps `e^−z`, `+ 1`, reciprocal with C99 special values.
pub fn logistic(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    let one = Complex64::new(1.0, 0.0);
    if !(x.is_finite() && y.is_finite()) {
        let d = exp(-z) + one;
        if d.re.is_infinite() || d.im.is_infinite() {
            return Complex64::new(0.0, 0.0);
        }
        return div_smith(one, d);
    }
    if x.abs() > 4096.0 {
        let (s, c) = y.sin_cos();
        return if x < 0.0 {
            Complex64::new(0.0f64.copysign(c), 0.0f64.copysign(s))
        } else {
            Complex64::new(1.0, 0.0f64.copysign(s))
        };
    }
    let ax = -x.abs();
    let (s, c) = y.sin_cos();
    let h = (0.5 * y).cos();
    let e = ax.exp();
    let re = 2.0 * h * h + ax.exp_m1() * c;
    if x >= 0.0 {
        div_c128(one, Complex64::new(re, -e * s))
    } else {
        div_c128(Complex64::new(e * c, e * s), Complex64::new(re, e * s))
    }
}

/// `x^y = e^(y ln x)` (principal branch; `x^0 = 1`, `0^y = 0` for real y > 0).
pub fn pow(x: Complex64, y: Complex64) -> Complex64 {
    if y.re == 0.0 && y.im == 0.0 {
        return Complex64::new(1.0, 0.0);
    }
    if x.re == 0.0 && x.im == 0.0 && y.im == 0.0 && y.re > 0.0 {
        return Complex64::new(0.0, 0.0);
    }
    exp(mul_c128(y, log(x)))
}

// --- C99 Annex G special values and overflow-free transcendental functions ------------------

/// `e^x · c · 2^k` without spurious overflow or underflow: `c` is split as `m·2^e` (exact, so a
/// subnormal `c` keeps its bits), for |x| > 700 the exponential is applied in two halves, and the
/// power of two is applied last (one rounding). A zero `c` gives a zero (`e^∞ · 0` is not NaN).
#[inline]
fn exp_times_pow2(x: f64, c: f64, k: i32) -> f64 {
    if c == 0.0 {
        return c;
    }
    if !c.is_finite() {
        return c * x.exp();
    }
    let (m, e) = frexp(c);
    if x.abs() > 700.0 {
        if x.abs() > 3000.0 {
            // Far beyond any finite result (2^-1074 ≤ |c| < 2^1024, |k| small): ±∞ or ±0 with the
            // sign of c. (Scaling c first could underflow it to 0 and give 0 · ∞ = NaN.)
            return if x > 0.0 {
                c.signum() * f64::INFINITY
            } else {
                c.signum() * 0.0
            };
        }
        // e^x = 2^n e^r with r = x − n ln 2 (ln 2 split so that n·LN2_HI is exact).
        const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
        const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
        let n = (x / std::f64::consts::LN_2).round();
        let r = (x - n * LN2_HI) - n * LN2_LO;
        return ldexp(r.exp() * m, n as i32 + e + k);
    }
    ldexp(x.exp() * m, e + k)
}

#[inline]
fn exp_times(x: f64, c: f64) -> f64 {
    exp_times_pow2(x, c, 0)
}

/// `cosh x · c` and `sinh x · c` without spurious overflow (for |x| > 700 both are `e^|x|/2`).
#[inline]
fn cosh_times(x: f64, c: f64) -> f64 {
    if c == 0.0 {
        return c;
    }
    if x.abs() > 700.0 {
        exp_times_pow2(x.abs(), c, -1)
    } else {
        x.cosh() * c
    }
}

#[inline]
fn sinh_times(x: f64, c: f64) -> f64 {
    if c == 0.0 {
        return c;
    }
    if x.abs() > 700.0 {
        let v = exp_times_pow2(x.abs(), c, -1);
        if x < 0.0 {
            -v
        } else {
            v
        }
    } else {
        x.sinh() * c
    }
}

/// `e^z` with the C99 Annex G special values (`e^(x ± i0) = e^x ± i0` for every x).
pub fn exp(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if y == 0.0 {
        return Complex64::new(x.exp(), y);
    }
    if x.is_nan() {
        return Complex64::new(f64::NAN, f64::NAN);
    }
    if x.is_infinite() {
        if !y.is_finite() {
            return if x > 0.0 {
                Complex64::new(x, f64::NAN)
            } else {
                Complex64::new(0.0, 0.0)
            };
        }
        let (s, c) = y.sin_cos();
        let m = if x > 0.0 { x } else { 0.0 };
        return Complex64::new(m * c, m * s);
    }
    if !y.is_finite() {
        return Complex64::new(f64::NAN, f64::NAN);
    }
    let (s, c) = y.sin_cos();
    Complex64::new(exp_times(x, c), exp_times(x, s))
}

/// `sinh z` with the C99 Annex G special values.
pub fn sinh(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if y == 0.0 {
            return Complex64::new(x.sinh(), y);
        }
        let (s, c) = y.sin_cos();
        return Complex64::new(sinh_times(x, c), cosh_times(x, s));
    }
    if x == 0.0 {
        return Complex64::new(x, f64::NAN);
    }
    if x.is_infinite() {
        if y == 0.0 {
            return Complex64::new(x, y);
        }
        if y.is_finite() {
            let (s, c) = y.sin_cos();
            return Complex64::new(x * c, f64::INFINITY * s);
        }
        return Complex64::new(x, f64::NAN);
    }
    if x.is_nan() && y == 0.0 {
        return Complex64::new(x, y);
    }
    Complex64::new(f64::NAN, f64::NAN)
}

/// `cosh z` with the C99 Annex G special values.
pub fn cosh(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if x.is_finite() && y.is_finite() {
        if y == 0.0 {
            return Complex64::new(x.cosh(), y * x.signum());
        }
        let (s, c) = y.sin_cos();
        return Complex64::new(cosh_times(x, c), sinh_times(x, s));
    }
    if x == 0.0 {
        return Complex64::new(f64::NAN, 0.0);
    }
    if x.is_infinite() {
        if y == 0.0 {
            return Complex64::new(f64::INFINITY, y * x.signum());
        }
        if y.is_finite() {
            let (s, c) = y.sin_cos();
            return Complex64::new(f64::INFINITY * c, x * s);
        }
        // MPC's sign for cos(±∞ ± i∞) (C99 leaves it unspecified).
        let re = if y.is_nan() {
            f64::INFINITY
        } else {
            x.signum() * y.signum() * f64::INFINITY
        };
        return Complex64::new(re, f64::NAN);
    }
    if x.is_nan() && y == 0.0 {
        return Complex64::new(x, 0.0);
    }
    Complex64::new(f64::NAN, f64::NAN)
}

/// `sin z = −i sinh(i z)`.
pub fn sin(z: Complex64) -> Complex64 {
    let s = sinh(Complex64::new(-z.im, z.re));
    Complex64::new(s.im, -s.re)
}

/// `cos z = cosh(i z)`.
pub fn cos(z: Complex64) -> Complex64 {
    cosh(Complex64::new(-z.im, z.re))
}

/// `ln |z|` for finite non-zero z: the sum of squares as a double-double, `½·log1p(|z|² − 1)` near
/// |z| = 1 (no cancellation), and a power-of-two scaling far from 1 (no overflow or underflow).
fn log_abs(x: f64, y: f64) -> f64 {
    let (a, b) = (x.abs().max(y.abs()), x.abs().min(y.abs()));
    let sq = |a: f64, b: f64| {
        let (p1, e1) = two_prod(a, a);
        let (p2, e2) = two_prod(b, b);
        let (sh, sl) = two_sum(p1, p2);
        (sh, sl + (e1 + e2))
    };
    const LO: f64 = 1.0 / (1u128 << 100) as f64 / (1u128 << 100) as f64 / (1u128 << 100) as f64;
    if (LO..1.0 / LO).contains(&a) {
        let (sh, sl) = sq(a, b);
        if (0.5..=2.0).contains(&sh) {
            return 0.5 * ((sh - 1.0) + sl).ln_1p();
        }
        return 0.5 * (sh.ln() + sl / sh);
    }
    let (a, b, e) = scale_pair(a, b);
    let (sh, sl) = sq(a, b);
    (e as f64).mul_add(std::f64::consts::LN_2, 0.5 * (sh.ln() + sl / sh))
}

/// Principal `ln z` with the C99 Annex G special values.
pub fn log(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if x.is_infinite() || y.is_infinite() {
        return Complex64::new(f64::INFINITY, y.atan2(x));
    }
    if x.is_nan() || y.is_nan() {
        return Complex64::new(f64::NAN, f64::NAN);
    }
    if x == 0.0 && y == 0.0 {
        return Complex64::new(f64::NEG_INFINITY, y.atan2(x));
    }
    Complex64::new(log_abs(x, y), y.atan2(x))
}

/// `tanh z` by Kahan's formulation: with t = tan y, s = sinh x, ρ = cosh x, β = 1 + t²,
/// tanh z = (βρs + i t)/(1 + βs²) (no cancellation near the poles), the limit
/// (±1, 4 sin y cos y e^{−2|x|}) for |x| > 22, and the C99 Annex G special values.
pub fn tanh(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if x.is_infinite() {
        let im = if y.is_finite() {
            0.0f64.copysign((2.0 * y).sin())
        } else {
            0.0
        };
        return Complex64::new(1.0f64.copysign(x), im);
    }
    if !y.is_finite() {
        // MPC gives NaN + iNaN here even for x = 0 (C99 leaves the real part's value open).
        return Complex64::new(f64::NAN, f64::NAN);
    }
    if x.is_nan() {
        return if y == 0.0 {
            Complex64::new(x, y)
        } else {
            Complex64::new(f64::NAN, f64::NAN)
        };
    }
    if x.abs() > 22.0 {
        let e = (-2.0 * x.abs()).exp();
        let (s, c) = y.sin_cos();
        return Complex64::new(1.0f64.copysign(x), 4.0 * s * c * e);
    }
    let t = y.tan();
    let (s, rho) = (x.sinh(), x.cosh());
    let beta = 1.0 + t * t;
    let d = 1.0 + beta * s * s;
    Complex64::new(beta * rho * s / d, t / d)
}

/// The complex function of a unary opcode.
pub fn c_function(op: Opcode) -> Option<fn(Complex64) -> Complex64> {
    use Opcode::*;
    Some(match op {
        Negate => |z: Complex64| -z,
        Exponential => exp,
        ExponentialMinusOne => expm1,
        Log => log,
        LogPlusOne => log1p,
        Sqrt => sqrt,
        Rsqrt => |z: Complex64| recip(sqrt(z)),
        Cbrt => |z: Complex64| z.cbrt(),
        Sine => sin,
        Cosine => cos,
        Tan => tan,
        Tanh => tanh,
        Logistic => logistic,
        Sign => sign,
        Sinh => sinh,
        Cosh => cosh,
        Asin => super::special::complex_inverse::asin,
        Acos => super::special::complex_inverse::acos,
        Atan => super::special::complex_inverse::atan,
        Asinh => super::special::complex_inverse::asinh,
        Acosh => super::special::complex_inverse::acosh,
        Atanh => super::special::complex_inverse::atanh,
        _ => return None,
    })
}

/// Unary operations on c64/c128.
pub(crate) fn unary(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    let ty = ctx.in_type(0);
    let comp = ty
        .complex_component()
        .ok_or_else(|| ctx.unsupported_type())?;
    let op = ctx.opcode();
    let (exec, n) = (ctx.exec, ctx.n);
    if matches!(op, Opcode::Real | Opcode::Imag | Opcode::Abs) {
        ctx.expect_out(comp)?;
        let k = (op == Opcode::Imag) as usize;
        return Ok(match (ty, op) {
            (ElementType::C64, Opcode::Abs) => {
                let a = ctx.operands[0].typed::<[f32; 2]>();
                with_output::<f32>(n, |o| {
                    map1(exec, a.view(), o, |z| {
                        (z[0] as f64).hypot(z[1] as f64) as f32
                    })
                })
            }
            (ElementType::C64, _) => {
                let a = ctx.operands[0].typed::<[f32; 2]>();
                with_output::<f32>(n, |o| map1(exec, a.view(), o, |z| z[k]))
            }
            (_, Opcode::Abs) => {
                let a = ctx.operands[0].typed::<[f64; 2]>();
                with_output::<f64>(n, |o| map1(exec, a.view(), o, |z| z[0].hypot(z[1])))
            }
            _ => {
                let a = ctx.operands[0].typed::<[f64; 2]>();
                with_output::<f64>(n, |o| map1(exec, a.view(), o, |z| z[k]))
            }
        });
    }
    ctx.expect_out(ty)?;
    let f = c_function(op).ok_or_else(|| ctx.unsupported_type())?;
    Ok(if ty == ElementType::C64 {
        let a = ctx.operands[0].typed::<[f32; 2]>();
        with_output::<[f32; 2]>(n, |o| {
            map1(exec, a.view(), o, |z| {
                let r = f(Complex64::new(z[0] as f64, z[1] as f64));
                [r.re as f32, r.im as f32]
            })
        })
    } else {
        let a = ctx.operands[0].typed::<[f64; 2]>();
        with_output::<[f64; 2]>(n, |o| {
            map1(exec, a.view(), o, |z| {
                let r = f(Complex64::new(z[0], z[1]));
                [r.re, r.im]
            })
        })
    })
}

/// Binary arithmetic on c64/c128: add, subtract, multiply, divide, power.
pub(crate) fn binary(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    let ty = ctx.in_type(0);
    let op = ctx.opcode();
    let (exec, n) = (ctx.exec, ctx.n);
    Ok(if ty == ElementType::C64 {
        let (a, b) = (
            ctx.operands[0].typed::<[f32; 2]>(),
            ctx.operands[1].typed::<[f32; 2]>(),
        );
        let f: fn([f32; 2], [f32; 2]) -> [f32; 2] = match op {
            Opcode::Add => |x, y| [x[0] + y[0], x[1] + y[1]],
            Opcode::Subtract => |x, y| [x[0] - y[0], x[1] - y[1]],
            Opcode::Multiply => mul_c64,
            Opcode::Divide => div_c64,
            Opcode::Power => |x, y| {
                let c = |v: [f32; 2]| Complex64::new(v[0] as f64, v[1] as f64);
                let r = pow(c(x), c(y));
                [r.re as f32, r.im as f32]
            },
            _ => return Err(ctx.unsupported_type()),
        };
        with_output::<[f32; 2]>(n, |o| map2(exec, a.view(), b.view(), o, f))
    } else {
        let (a, b) = (
            ctx.operands[0].typed::<[f64; 2]>(),
            ctx.operands[1].typed::<[f64; 2]>(),
        );
        let c = |v: [f64; 2]| Complex64::new(v[0], v[1]);
        let g: fn(Complex64, Complex64) -> Complex64 = match op {
            Opcode::Add => |x, y| x + y,
            Opcode::Subtract => |x, y| x - y,
            Opcode::Multiply => mul_c128,
            Opcode::Divide => div_c128,
            Opcode::Power => {
                return Ok(with_output::<[f64; 2]>(n, |o| {
                    map2(exec, a.view(), b.view(), o, |x, y| {
                        let r = pow(c(x), c(y));
                        [r.re, r.im]
                    })
                }))
            }
            _ => return Err(ctx.unsupported_type()),
        };
        with_output::<[f64; 2]>(n, |o| {
            map2(exec, a.view(), b.view(), o, |x, y| {
                let r = g(c(x), c(y));
                [r.re, r.im]
            })
        })
    })
}

/// `complex(real, imag)`: f32 → c64, f64 → c128.
pub(crate) fn evaluate_complex_op(ctx: &Ctx<'_>) -> Result<Vec<u8>, BackendError> {
    if ctx.operands.len() != 2 {
        return Err(BackendError::Invalid(format!(
            "complex takes 2 operands, {} given",
            ctx.operands.len()
        )));
    }
    ctx.expect_same_operand_types(0)?;
    let (exec, n) = (ctx.exec, ctx.n);
    Ok(match ctx.in_type(0) {
        ElementType::F32 => {
            ctx.expect_out(ElementType::C64)?;
            let (a, b) = (
                ctx.operands[0].typed::<f32>(),
                ctx.operands[1].typed::<f32>(),
            );
            with_output::<[f32; 2]>(n, |o| map2(exec, a.view(), b.view(), o, |x, y| [x, y]))
        }
        ElementType::F64 => {
            ctx.expect_out(ElementType::C128)?;
            let (a, b) = (
                ctx.operands[0].typed::<f64>(),
                ctx.operands[1].typed::<f64>(),
            );
            with_output::<[f64; 2]>(n, |o| map2(exec, a.view(), b.view(), o, |x, y| [x, y]))
        }
        _ => return Err(ctx.unsupported_type()),
    })
}
