//! Scalar f64 functions used by every float path (f64 directly; f32 and the narrow formats compute
//! in f64 and round once).
//!
//! Most come from the platform libm through Rust's `f64` methods (glibc on Linux) or the `libm`
//! crate (erf). Where the measured error exceeded 1 ULP or the composition of two roundings could,
//! the function is refined here (see each item; the measurements are in `tests/f64_accuracy.rs`).

/// `e^x`.
#[inline]
pub fn exp(x: f64) -> f64 {
    x.exp()
}

/// `e^x − 1`.
#[inline]
pub fn expm1(x: f64) -> f64 {
    x.exp_m1()
}

/// Natural logarithm.
#[inline]
pub fn log(x: f64) -> f64 {
    x.ln()
}

/// `ln(1 + x)`.
#[inline]
pub fn log1p(x: f64) -> f64 {
    x.ln_1p()
}

#[inline]
pub fn sin(x: f64) -> f64 {
    x.sin()
}

#[inline]
pub fn cos(x: f64) -> f64 {
    x.cos()
}

#[inline]
pub fn tan(x: f64) -> f64 {
    x.tan()
}

/// Taylor coefficients of (tanh x − x)/x³ in powers of x², highest first (x^29 … x^3):
/// 2^2n (2^2n − 1) B_2n / (2n)! for n = 15 … 2.
const TANH_SERIES: [f64; 14] = [
    2.614_771_151_290_754_6e-6,
    -6.451_689_215_655_431e-6,
    1.591_890_506_932_896_4e-5,
    -3.927_832_388_331_683e-5,
    9.691_537_956_929_451e-5,
    -2.391_291_142_435_524_8e-4,
    5.900_274_409_455_86e-4,
    -1.455_834_387_051_318_3e-3,
    3.592_128_036_572_481e-3,
    -8.863_235_529_902_197e-3,
    2.186_948_853_615_520_3e-2,
    -5.396_825_396_825_397e-2,
    1.333_333_333_333_333_3e-1,
    -3.333_333_333_333_333e-1,
];

/// 1/k! for k = 16 down to 2 (the series of (e^r − 1 − r)/r²).
const EXPM1_SERIES: [f64; 15] = [
    1.0 / 20_922_789_888_000.0,
    1.0 / 1_307_674_368_000.0,
    1.0 / 87_178_291_200.0,
    1.0 / 6_227_020_800.0,
    1.0 / 479_001_600.0,
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5_040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];

/// ln 2 with its low 11 bits clear (k · LN2_HI is exact for |k| < 2^11) and the rest.
const LN2_HI: f64 = 0.693_147_180_559_890_3;
const LN2_LO: f64 = 5.497_923_018_708_371e-14;

/// `e^y` as a double-double `(hi, lo)` with a relative error below about 2^-55 for
/// |y| ≤ 708 (results in the normal range): `y = k ln 2 + r` (|r| ≤ 0.35, ln 2 in two parts),
/// `e^r − 1` by its series with the leading term kept exact, and the scaling by 2^k exact.
pub fn exp_dd(y: f64) -> (f64, f64) {
    exp_dd_with::<true>(y)
}

/// [`exp_dd`] on plain multiplications and additions (the same accuracy: its reduction is exact
/// either way and the series' rounding errors are scaled by r²), for callers that care about
/// speed on targets without FMA, where `mul_add` and `round_ties_even` are libm calls.
pub fn exp_dd_unfused(y: f64) -> (f64, f64) {
    exp_dd_with::<false>(y)
}

#[inline(always)]
fn exp_dd_with<const FUSED: bool>(y: f64) -> (f64, f64) {
    let k = if FUSED {
        (y * std::f64::consts::LOG2_E).round_ties_even()
    } else {
        // Round to nearest even by the 1.5·2^52 shift (|y·log2 e| < 2^51 here).
        const SHIFT: f64 = 6_755_399_441_055_744.0;
        (y * std::f64::consts::LOG2_E + SHIFT) - SHIFT
    };
    let r_hi = if FUSED {
        (-k).mul_add(LN2_HI, y) // exact: y and k·LN2_HI are within a factor 2
    } else {
        y - k * LN2_HI // k·LN2_HI is exact, and so is the difference
    };
    let r_lo = -k * LN2_LO;
    let r = r_hi + r_lo;
    let q = if FUSED {
        let mut q = EXPM1_SERIES[0];
        for &c in &EXPM1_SERIES[1..] {
            q = q.mul_add(r, c);
        }
        q
    } else {
        series_split(r)
    };
    // p = e^r − 1 = r_hi + r_lo + r²·q, as a double-double (ph, pl).
    let (ph, pl) = two_sum(r_hi, r_lo + r * r * q);
    // 1 + p, scaled by 2^k (exact for normal results).
    let (h1, l1) = two_sum(1.0, ph);
    let (h1, l1) = two_sum(h1, l1 + pl);
    let e = k as i64;
    let (e1, e2) = (e / 2, e - e / 2); // two steps keep each factor a normal power of two
    let s1 = f64::from_bits(((e1 + 1023) as u64) << 52);
    let s2 = f64::from_bits(((e2 + 1023) as u64) << 52);
    (h1 * s1 * s2, l1 * s1 * s2)
}

/// `e^r − 1` as a double-double `(hi, lo)` for |r| ≤ 0.35, with a relative error below about
/// 2^-54.5 (the series of [`exp_dd`] without the scaling: the leading term `r` is kept exact and
/// only `r²·q` carries rounding errors, of relative size |r|/2 · 2^-53 of the result).
///
/// The series runs on plain multiplications and additions ([`series_split`]; its rounding errors
/// are scaled by r² in the result; `mul_add` would be a libm call on targets without FMA).
pub fn expm1_dd(r: f64) -> (f64, f64) {
    debug_assert!(r.abs() <= 0.35 || r.is_nan());
    two_sum(r, r * r * series_split(r))
}

/// `Σ r^k/(k+2)!` (the [`EXPM1_SERIES`] polynomial) on plain operations, its even and odd powers
/// as two independent Horner chains in r² (half the latency of one chain).
#[inline(always)]
fn series_split(r: f64) -> f64 {
    let r2 = r * r;
    let d = EXPM1_SERIES.len() - 1;
    let (mut e, mut o) = (0.0f64, 0.0f64);
    for (i, &c) in EXPM1_SERIES.iter().enumerate() {
        if (d - i) & 1 == 0 {
            e = e * r2 + c;
        } else {
            o = o * r2 + c;
        }
    }
    e + r * o
}

/// `(nh + nl) / (dh + dl)` for double-doubles, rounded to f64 (one correction step).
#[inline]
pub fn div_dd(nh: f64, nl: f64, dh: f64, dl: f64) -> f64 {
    let q1 = nh / dh;
    let (m, me) = two_prod(q1, dh);
    let rem = ((nh - m) - me) + nl - q1 * dl;
    q1 + rem / dh
}

/// Hyperbolic tangent within 1 ULP (glibc's `tanh` was measured at 2 ULP; see
/// `tests/f64_accuracy.rs`).
///
/// |x| < 0.4: `x + x³·P(x²)`, the Taylor series to x^29 (truncation < 2^-58 relative), whose
/// correction term is below 6% of x, so the error is ≈ 0.5 ULP + 0.06·(a few ULP).
/// 0.4 ≤ |x| < 19.1: `(E − 1)/(E + 1)` with `E = e^{2|x|} = 2^k (1 + p)` carried as a
/// double-double (`p = e^r − 1` by its series, `r = 2|x| − k ln 2` with a two-part ln 2) and a
/// double-double division, leaving a relative error of a fraction of 2^-53 before the final
/// rounding. |x| ≥ 19.1: ±1 (1 − tanh |x| < 2^-54).
pub fn tanh(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() || a >= 19.1 {
        return if x.is_nan() { x } else { 1.0f64.copysign(x) };
    }
    if a < 0.4 {
        let x2 = a * a;
        let mut q = TANH_SERIES[0];
        for &c in &TANH_SERIES[1..] {
            q = q.mul_add(x2, c);
        }
        return (a * x2).mul_add(q, a).copysign(x);
    }
    let (eh, el) = exp_dd(a + a);
    let (nh, nl) = two_sum(eh, -1.0);
    let (dh, dl) = two_sum(eh, 1.0);
    let (nl, dl) = (nl + el, dl + el);
    div_dd(nh, nl, dh, dl).copysign(x)
}

/// The error function.
#[inline]
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// Cube root.
#[inline]
pub fn cbrt(x: f64) -> f64 {
    x.cbrt()
}

/// `x^y` with C99 Annex F special cases (`pow(x, ±0) = 1`, `pow(1, y) = 1`, ...).
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}

/// `atan2(y, x)`.
#[inline]
pub fn atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}

/// `atan2(y, x)` as an f64 that rounds correctly once more into a narrower format (f32 and
/// below, operands of at most 24 significant bits).
///
/// For a tiny quotient `y/x` (x > 0) the correction `−(y/x)³/3` of `atan` is below half an f64
/// ULP, so [`atan2`] returns `y/x` itself. When that quotient is exact it can be a midpoint of
/// the narrower grid (e.g. `3·2^−149 / 2` for f32 subnormals) and rounding it again goes to even,
/// although the exact `atan2` lies just below it in magnitude (`atan t < t` for `t > 0`). The
/// value is then moved one f64 ULP toward zero: it stays inside the same narrow rounding interval
/// as the exact result, since an exact quotient of narrow operands has at most 24 significant
/// bits and its f64 neighbour 53. An inexact quotient of such operands is at least about 2^−50
/// (relative) away from any narrow midpoint, beyond the f64 error, so it needs nothing.
#[inline]
pub fn atan2_for_narrower(y: f64, x: f64) -> f64 {
    let r = atan2(y, x);
    if x > 0.0
        && x.is_finite()
        && r != 0.0
        && r.is_finite()
        && r == y / x
        && (-r).mul_add(x, y) == 0.0
    {
        return f64::from_bits(r.to_bits() - 1); // one ULP toward zero, either sign
    }
    r
}

/// The error-free product: `a × b = p + e` exactly (FMA based).
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// The error-free sum: `a + b = s + e` exactly (Knuth's TwoSum).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `1/√x`: the quotient `1/√x` rounded twice (error up to about 1 ULP) corrected by one
/// Newton step on the exactly computed residual `1 − x·r²`, which leaves about 0.5 ULP.
#[inline]
pub fn rsqrt(x: f64) -> f64 {
    let r = 1.0 / x.sqrt();
    if !r.is_normal() || !x.is_normal() {
        return r; // 0, inf, NaN, and subnormal x (r large but finite): no refinement needed
    }
    // e = 1 − x·r² computed with two FMAs: x·r = h + hl exactly, then (h + hl)·r.
    let (h, hl) = two_prod(x, r);
    let e = (-h).mul_add(r, 1.0) - hl * r;
    r + r * (0.5 * e)
}

/// The logistic function `1 / (1 + e^−x)` within 1 ULP.
///
/// With `E = e^−|x|` as a double-double ([`exp_dd`]): `1/(1 + E)` for x ≥ 0 and `E/(1 + E)` for
/// x < 0, each a double-double division rounded once (measured worst ≈ 0.5 ULP; the plain formula
/// reached 1.4 ULP). Below −700 the result is `e^x` itself (1 + E rounds to 1 long before).
pub fn logistic(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a > 700.0 {
        return if x > 0.0 { 1.0 } else { x.exp() };
    }
    let (eh, el) = exp_dd(-a);
    let (dh, dl) = two_sum(1.0, eh);
    let dl = dl + el;
    if x >= 0.0 {
        div_dd(1.0, 0.0, dh, dl)
    } else {
        div_dd(eh, el, dh, dl)
    }
}
