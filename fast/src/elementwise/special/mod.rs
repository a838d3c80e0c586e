//! The CHLO special functions (`spec/ops/chlo.yaml`): the inverse trigonometric and hyperbolic
//! functions, sinh and cosh (real and complex), erfc, erf⁻¹, lgamma, digamma, polygamma, the
//! Hurwitz zeta function, the scaled Bessel function I₁e and nextafter.
//!
//! Every real function is an `f64 → f64` function (or `(f64, f64) → f64`): f64 operands use it
//! directly, f32 and the narrow formats compute in f64 and round once (the element-wise paths of
//! [`super::unary`] and [`super::binary`]), except `next-after`, which steps on the bits of the
//! operands' own format ([`next_after`]). Complex operands of the inverse functions use
//! [`complex_inverse`]; complex sinh and cosh are [`super::complex::sinh`] and
//! [`super::complex::cosh`].
//!
//! Where a well-kept library is accurate enough it is used: the platform libm through `f64`'s
//! methods for asin, acos and atan (glibc's are correctly rounded in practice: 0.51 ULP
//! measured), the `libm` crate for erfc and lgamma. The rest is written here ([`elementary`],
//! [`digamma`], [`erf_inv`], [`bessel`], [`zeta`]); the polynomial constants come from
//! `fit_special.py` (mpmath). Measured accuracies are in each function's documentation and in
//! `tests/special_accuracy.rs`.

pub mod bessel;
pub mod complex_inverse;
pub mod digamma;
pub mod elementary;
pub mod erf_inv;
pub mod next_after;
pub mod zeta;

use crate::kernels::libm64::two_sum;
use conformance_spec::Opcode;

/// Evaluates the polynomial with coefficients `c` (highest degree first) at `u` by Horner's rule.
///
/// Plain multiplications and additions, not `mul_add`: without the FMA target feature (the
/// default x86-64 target) `mul_add` is a call into libm's `fma`, which made these polynomials
/// three times slower; the extra rounding of each product is harmless here, where the terms
/// beyond the constant are small (the exact final step of [`horner_dd`] keeps an FMA).
///
/// The even and odd powers run as two independent Horner chains in u² (`p(u) = E(u²) + u·O(u²)`),
/// which halves the latency of these long polynomials.
#[inline(always)]
pub(crate) fn horner(c: &[f64], u: f64) -> f64 {
    let d = c.len() - 1;
    let v = u * u;
    let (mut e, mut o) = (0.0f64, 0.0f64);
    for (i, &k) in c.iter().enumerate() {
        if (d - i) & 1 == 0 {
            e = e * v + k;
        } else {
            o = o * v + k;
        }
    }
    e + u * o
}

/// `P(u) = c₀ + u·Q(u)` for the coefficient layout of `fit_special.py` (`c` = Q's coefficients,
/// highest degree first, then c₀ as a double-double `(hi, lo)`), as an unevaluated sum
/// `(hi, lo)`: the last addition is exact, so neither c₀'s rounding nor that addition's error is
/// lost (what remains is the rounding of u·Q, at most a fifth of c₀ in every piece here).
#[inline(always)]
pub(crate) fn horner_dd(c: &[f64], u: f64) -> (f64, f64) {
    let n = c.len();
    let q = horner(&c[..n - 2], u);
    let (h, l) = two_sum(c[n - 2], u * q);
    (h, l + c[n - 1])
}

/// [`horner_dd`] rounded once.
#[inline(always)]
pub(crate) fn poly(c: &[f64], u: f64) -> f64 {
    let (h, l) = horner_dd(c, u);
    h + l
}

/// `ln |Γ(x)|` (CHLO `chlo.lgamma`, DLMF 5.2.1): the `libm` crate's `lgamma_r` (FreeBSD's
/// `e_lgamma_r.c`: rational approximations around 1 and 2 and on [2, 8], Stirling's series
/// beyond, the reflection formula for x < 0). +inf at the poles 0, −1, −2, ... and at ±inf.
///
/// Measured against MPFR (`tests/special_accuracy.rs`): ≤ 1.9 ULP for x > 0 in f64; near the
/// negative zeros (x ≈ −2.457, −2.748, ...) the reflection formula cancels and the relative
/// error is unbounded (the absolute error stays about 2^-52 · |x ψ(x)|, the catalog's
/// conditioning allowance).
pub fn lgamma(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::INFINITY; // ln|Γ(±∞)| = +∞
    }
    libm::lgamma_r(x).0
}

/// `erfc x = 1 − erf x` (CHLO `chlo.erfc`, DLMF 7.2.2): the `libm` crate's `erfc` (FreeBSD's
/// `s_erf.c`: rational approximations on four intervals, `e^{−x²}` split into two exponentials).
/// Measured ≤ 2.4 ULP in f64 (beyond x ≈ 10), ≤ 1 ULP below.
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// The real `f64` function of a unary CHLO opcode of this module.
pub fn f64_function(op: Opcode) -> Option<fn(f64) -> f64> {
    use Opcode::*;
    Some(match op {
        Asin => f64::asin,
        Acos => f64::acos,
        Atan => f64::atan,
        Sinh => elementary::sinh,
        Cosh => elementary::cosh,
        Asinh => elementary::asinh,
        Acosh => elementary::acosh,
        Atanh => elementary::atanh,
        Erfc => erfc,
        ErfInv => erf_inv::erf_inv,
        Lgamma => lgamma,
        Digamma => digamma::digamma,
        BesselI1e => bessel::bessel_i1e,
        _ => return None,
    })
}

/// The function to use instead of [`f64_function`]'s when the f64 result is rounded again into
/// f32 or a narrower format, where it differs: a cheaper one where a few f64 ULPs are far below
/// the target's (the platform's sinh and cosh, the `libm` crate's asinh, acosh and atanh — at
/// most 2.1 ULP of f64 measured —), and I₁e's guard against
/// a double rounding of exact ties ([`bessel::bessel_i1e_for_narrower`]). Every one of them is
/// checked exhaustively for correct rounding on f16, bf16 and the f8 types
/// (`tests/narrow_exhaustive.rs`) and within the f32 budgets (`tests/special_accuracy.rs`).
pub fn for_narrower(op: Opcode) -> Option<fn(f64) -> f64> {
    use Opcode::*;
    Some(match op {
        Sinh => f64::sinh,
        Cosh => f64::cosh,
        Asinh => libm::asinh,
        // The crate's acosh returns finite values for x ≤ −2 (it reads only the exponent).
        Acosh => |x: f64| if x >= 1.0 { libm::acosh(x) } else { f64::NAN },
        Atanh => libm::atanh,
        BesselI1e => bessel::bessel_i1e_for_narrower,
        _ => return None,
    })
}
