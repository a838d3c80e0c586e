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
//! `tests/complex_accuracy.rs`).

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
/// returned as `(±0, 0, 0)` with the sign IEEE arithmetic gives.
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
        return plain();
    }
    (h, l, e)
}

/// c128 product: each component `ac − bd`, `ad + bc` from [`dot_scaled`], rounded once to f64 and
/// scaled back. Non-finite operands use the textbook formula.
#[inline]
pub fn mul_c128(x: Complex64, y: Complex64) -> Complex64 {
    let (a, b, c, d) = (x.re, x.im, y.re, y.im);
    if !(a.is_finite() && b.is_finite() && c.is_finite() && d.is_finite()) {
        return Complex64::new(a * c - b * d, a * d + b * c);
    }
    let (rh, rl, re) = dot_scaled(a, c, b, d, -1.0);
    let (ih, il, ie) = dot_scaled(a, d, b, c, 1.0);
    Complex64::new(ldexp(rh + rl, re), ldexp(ih + il, ie))
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
/// re = expm1(x)·cos y − 2 sin²(y/2), im = e^x · sin y.
#[inline]
pub fn expm1(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    let s = (0.5 * y).sin();
    Complex64::new(x.exp_m1() * y.cos() - 2.0 * s * s, x.exp() * y.sin())
}

/// `ln(1 + z)` without cancellation for small `z`:
/// re = ½·log1p(2x + x² + y²) (the argument summed from exact terms), im = atan2(y, 1 + x).
#[inline]
pub fn log1p(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    let h = x.hypot(y);
    if h.is_nan() || h >= 0.5 {
        // No cancellation in 1 + z worth avoiding (1 + x is exact near x = −1).
        return (Complex64::new(1.0, 0.0) + z).ln();
    }
    // |1 + z|² − 1 = 2x + x² + y², summed from exact terms (it may cancel).
    let (x2, ex) = two_prod(x, x);
    let (y2, ey) = two_prod(y, y);
    let (s1, t1) = two_sum(2.0 * x, x2);
    let (s2, t2) = two_sum(s1, y2);
    let m = s2 + (t1 + t2 + ex + ey);
    Complex64::new(0.5 * m.ln_1p(), y.atan2(1.0 + x))
}

/// `tanh z` = (sinh 2x + i sin 2y)/(cosh 2x + cos 2y), with the limit (±1, 4 sin y cos y e^{−2|x|})
/// for |x| > 22 where the hyperbolic functions would overflow to inf/inf.
pub fn tanh(z: Complex64) -> Complex64 {
    let (x, y) = (z.re, z.im);
    if x.abs() > 22.0 {
        let e = (-2.0 * x.abs()).exp();
        return Complex64::new(1.0f64.copysign(x), 4.0 * y.sin() * y.cos() * e);
    }
    z.tanh()
}

/// `tan z = −i tanh(i z)`.
pub fn tan(z: Complex64) -> Complex64 {
    let t = tanh(Complex64::new(-z.im, z.re));
    Complex64::new(t.im, -t.re)
}

/// `1 / (1 + e^−z)`; for x < −700 (e^−z overflows) the result is e^z to double precision.
pub fn logistic(z: Complex64) -> Complex64 {
    if z.re < -700.0 {
        return z.exp();
    }
    let one = Complex64::new(1.0, 0.0);
    div_c128(one, one + (-z).exp())
}

/// The complex function of a unary opcode.
pub fn c_function(op: Opcode) -> Option<fn(Complex64) -> Complex64> {
    use Opcode::*;
    Some(match op {
        Negate => |z: Complex64| -z,
        Exponential => |z: Complex64| z.exp(),
        ExponentialMinusOne => expm1,
        Log => |z: Complex64| z.ln(),
        LogPlusOne => log1p,
        Sqrt => sqrt,
        Rsqrt => |z: Complex64| div_c128(Complex64::new(1.0, 0.0), sqrt(z)),
        Cbrt => |z: Complex64| z.cbrt(),
        Sine => |z: Complex64| z.sin(),
        Cosine => |z: Complex64| z.cos(),
        Tan => tan,
        Tanh => tanh,
        Logistic => logistic,
        Sign => sign,
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
    let pow = |x: Complex64, y: Complex64| {
        if y.re == 0.0 && y.im == 0.0 {
            Complex64::new(1.0, 0.0)
        } else if x.re == 0.0 && x.im == 0.0 && y.im == 0.0 && y.re > 0.0 {
            Complex64::new(0.0, 0.0)
        } else {
            x.powc(y)
        }
    };
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
                let (x, y) = (c(x), c(y));
                let r = if y.re == 0.0 && y.im == 0.0 {
                    Complex64::new(1.0, 0.0)
                } else if x.re == 0.0 && x.im == 0.0 && y.im == 0.0 && y.re > 0.0 {
                    Complex64::new(0.0, 0.0)
                } else {
                    x.powc(y)
                };
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
