//! A fast path for the reference's transcendental functions: CORE-MATH's correctly rounded f32
//! and f64 functions (the `core-math` crate), used where they give the same bits as MPFR.
//!
//! MPFR stays the definition. A function of this table is evaluated by CORE-MATH when
//! - the format is f64 (`cr_*`) or f32 (`cr_*f`): both libraries round the exact value to nearest,
//!   ties to even, in the same format, so they agree bit for bit (NaN results are replaced by the
//!   format's canonical NaN, as MPFR's are);
//! - the format is narrower than f32 in precision and range (bf16, f16, every f8 type): the
//!   operands widen exactly to f32, CORE-MATH rounds the exact value once to f32 (`r`), and `r` is
//!   rounded into the format. Rounding twice can differ from rounding once only where `r` lies at a
//!   midpoint of the narrow format (every such midpoint is an f32, so an exact value on the other
//!   side of it would have a nearer f32 than `r`). The narrow result is used only when `r`'s f32
//!   neighbours round to the same narrow value as `r` (then every value that rounds to `r` does;
//!   a zero `r` has the exact value's sign, so only its neighbour of that sign counts); otherwise
//!   — and for every other format — the caller evaluates with MPFR.
//!
//! Builds with debug assertions (every `cargo test`) evaluate MPFR as well on every call and
//! assert the same bits, so every case the tests run verifies the fast path.

use conformance_spec::element_type::FloatFormat;

/// A function of one or two real operands in CORE-MATH's f32 and f64 forms.
#[derive(Clone, Copy)]
pub(crate) enum CrFn {
    Unary(fn(f32) -> f32, fn(f64) -> f64),
    Binary(fn(f32, f32) -> f32, fn(f64, f64) -> f64),
}

impl CrFn {
    /// The result's bits in `fmt` for operand bits `args` (one or two, matching the arity), or
    /// `None` when the fast path does not decide it and MPFR must.
    pub(crate) fn eval(self, fmt: FloatFormat, args: &[u64]) -> Option<u64> {
        if fmt == FloatFormat::F64 {
            let a = |i: usize| f64::from_bits(args[i]);
            let r = match self {
                CrFn::Unary(_, f) => f(a(0)),
                CrFn::Binary(_, f) => f(a(0), a(1)),
            };
            return Some(if r.is_nan() {
                fmt.nan_bits()
            } else {
                r.to_bits()
            });
        }
        if !widens_exactly_to_f32(fmt) {
            return None;
        }
        // Exact: the format's values are f32 values.
        let a = |i: usize| fmt.decode(args[i]) as f32;
        let r = match self {
            CrFn::Unary(f, _) => f(a(0)),
            CrFn::Binary(f, _) => f(a(0), a(1)),
        };
        if r.is_nan() {
            return Some(fmt.nan_bits());
        }
        if fmt == FloatFormat::F32 {
            return Some(u64::from(r.to_bits()));
        }
        // A zero result is not crossed: CORE-MATH's zero carries the sign of the exact value.
        let bits = fmt.encode(f64::from(r));
        let (below, above) = match (r == 0.0, r.is_sign_negative()) {
            (true, false) => (r, r.next_up()),
            (true, true) => (r.next_down(), r),
            (false, _) => (r.next_down(), r.next_up()),
        };
        let same = |v: f32| fmt.encode(f64::from(v)) == bits;
        (same(below) && same(above)).then_some(bits)
    }
}

/// True when every value of `fmt` is an f32 and every midpoint between neighbours of `fmt` (the
/// boundaries of its rounding) is one too: precision ≤ 24 bits and an exponent range inside
/// f32's, subnormals included.
fn widens_exactly_to_f32(fmt: FloatFormat) -> bool {
    let f32 = FloatFormat::F32;
    // The smallest positive midpoint is 2^(min_normal_exponent − precision); f32's smallest
    // subnormal is 2^(min_normal_exponent − precision + 1) of f32.
    let smallest_midpoint = fmt.min_normal_exponent() - fmt.precision() as i32;
    let f32_smallest_subnormal = f32.min_normal_exponent() - f32.precision() as i32 + 1;
    fmt == f32
        || (fmt.precision() < f32.precision()
            && fmt.max_exponent() <= f32.max_exponent()
            && smallest_midpoint >= f32_smallest_subnormal)
}

pub(crate) const SQRT: CrFn = CrFn::Unary(f32::sqrt, f64::sqrt);
pub(crate) const CBRT: CrFn = CrFn::Unary(core_math::cbrtf, core_math::cbrt);
pub(crate) const RSQRT: CrFn = CrFn::Unary(core_math::rsqrtf, core_math::rsqrt);
pub(crate) const EXP: CrFn = CrFn::Unary(core_math::expf, core_math::exp);
pub(crate) const EXPM1: CrFn = CrFn::Unary(core_math::expm1f, core_math::expm1);
pub(crate) const LOG: CrFn = CrFn::Unary(core_math::logf, core_math::log);
pub(crate) const LOG1P: CrFn = CrFn::Unary(core_math::log1pf, core_math::log1p);
pub(crate) const SIN: CrFn = CrFn::Unary(core_math::sinf, core_math::sin);
pub(crate) const COS: CrFn = CrFn::Unary(core_math::cosf, core_math::cos);
pub(crate) const TAN: CrFn = CrFn::Unary(core_math::tanf, core_math::tan);
pub(crate) const TANH: CrFn = CrFn::Unary(core_math::tanhf, core_math::tanh);
pub(crate) const ERF: CrFn = CrFn::Unary(core_math::erff, core_math::erf);
pub(crate) const ERFC: CrFn = CrFn::Unary(core_math::erfcf, core_math::erfc);
pub(crate) const LGAMMA: CrFn = CrFn::Unary(core_math::lgammaf, core_math::lgamma);
pub(crate) const ASIN: CrFn = CrFn::Unary(core_math::asinf, core_math::asin);
pub(crate) const ACOS: CrFn = CrFn::Unary(core_math::acosf, core_math::acos);
pub(crate) const ATAN: CrFn = CrFn::Unary(core_math::atanf, core_math::atan);
pub(crate) const SINH: CrFn = CrFn::Unary(core_math::sinhf, core_math::sinh);
pub(crate) const COSH: CrFn = CrFn::Unary(core_math::coshf, core_math::cosh);
pub(crate) const ASINH: CrFn = CrFn::Unary(core_math::asinhf, core_math::asinh);
pub(crate) const ACOSH: CrFn = CrFn::Unary(core_math::acoshf, core_math::acosh);
pub(crate) const ATANH: CrFn = CrFn::Unary(core_math::atanhf, core_math::atanh);
pub(crate) const POW: CrFn = CrFn::Binary(core_math::powf, core_math::pow);
pub(crate) const ATAN2: CrFn = CrFn::Binary(core_math::atan2f, core_math::atan2);

#[cfg(test)]
mod tests {
    //! Every function of the fast path against MPFR. The element functions assert, in builds with
    //! debug assertions, that the fast path's bits are MPFR's ([`super`]); these tests run them on
    //! every value of the narrow formats and on many f32 and f64 values, and check that the fast
    //! path decides most of them (so the assertion is exercised, not bypassed).
    use super::super::{binary_float, unary_float};
    use super::*;
    use conformance_spec::hlo::ir::Opcode::{self, *};
    use conformance_spec::ElementType;

    const UNARY: &[(Opcode, CrFn)] = &[
        (Sqrt, SQRT),
        (Cbrt, CBRT),
        (Rsqrt, RSQRT),
        (Exponential, EXP),
        (ExponentialMinusOne, EXPM1),
        (Log, LOG),
        (LogPlusOne, LOG1P),
        (Sine, SIN),
        (Cosine, COS),
        (Tan, TAN),
        (Tanh, TANH),
        (Erf, ERF),
        (Erfc, ERFC),
        (Lgamma, LGAMMA),
        (Asin, ASIN),
        (Acos, ACOS),
        (Atan, ATAN),
        (Sinh, SINH),
        (Cosh, COSH),
        (Asinh, ASINH),
        (Acosh, ACOSH),
        (Atanh, ATANH),
    ];
    const BINARY: &[(Opcode, CrFn)] = &[(Power, POW), (Atan2, ATAN2)];

    /// A deterministic stream of 64-bit values (SplitMix64).
    fn stream(seed: u64) -> impl Iterator<Item = u64> {
        let mut s = seed;
        std::iter::repeat_with(move || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
    }

    /// Values of `fmt` to try: every bit pattern of formats up to 16 bits, else `n` random bit
    /// patterns and `n` values of moderate magnitude (where the functions are not saturated).
    fn inputs(fmt: FloatFormat, n: usize, seed: u64) -> Vec<u64> {
        let width = fmt.bit_width();
        if width <= 16 {
            return (0..1u64 << width).collect();
        }
        let mut r = stream(seed);
        let mut v: Vec<u64> = (0..n)
            .map(|_| r.next().unwrap() & ((1u128 << width) - 1) as u64)
            .collect();
        for _ in 0..n {
            let m = (r.next().unwrap() >> 11) as f64 / (1u64 << 53) as f64;
            let e = (r.next().unwrap() % 24) as i32 - 12;
            let x = (m * 2.0 - 1.0) * 2f64.powi(e);
            v.push(fmt.encode(x));
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            v.push(fmt.encode(x));
        }
        v
    }

    fn formats() -> Vec<FloatFormat> {
        ElementType::ALL
            .iter()
            .filter_map(|t| t.float_format())
            .collect()
    }

    #[test]
    #[cfg_attr(not(debug_assertions), ignore = "compares through a debug assertion")]
    fn unary_functions_agree_with_mpfr_on_every_narrow_value_and_many_wide_ones() {
        for &(op, cr) in UNARY {
            let f = unary_float::lookup(op).unwrap();
            for fmt in formats() {
                let xs = inputs(fmt, 20_000, op as u64);
                let mut decided = 0;
                for &x in &xs {
                    // Panics (debug assertion) where the fast path and MPFR differ.
                    f(fmt, x).unwrap();
                    decided += usize::from(cr.eval(fmt, &[x]).is_some());
                }
                assert!(
                    decided * 10 >= xs.len() * 9,
                    "{op} in {fmt:?}: the fast path decided only {decided} of {}",
                    xs.len()
                );
            }
        }
    }

    #[test]
    #[cfg_attr(not(debug_assertions), ignore = "compares through a debug assertion")]
    fn binary_functions_agree_with_mpfr_on_many_pairs() {
        for &(op, cr) in BINARY {
            let f = binary_float::lookup(op).unwrap();
            for fmt in formats() {
                let xs = inputs(fmt, 20_000, op as u64);
                let mut r = stream(7 + op as u64);
                let mut decided = 0;
                let n = 60_000;
                for _ in 0..n {
                    let x = xs[r.next().unwrap() as usize % xs.len()];
                    let y = xs[r.next().unwrap() as usize % xs.len()];
                    f(fmt, x, y).unwrap();
                    decided += usize::from(cr.eval(fmt, &[x, y]).is_some());
                }
                assert!(decided * 10 >= n * 9, "{op} in {fmt:?}: {decided} of {n}");
            }
        }
    }

    #[test]
    fn a_narrow_result_at_or_next_to_a_midpoint_is_left_to_mpfr() {
        let bf16 = FloatFormat::BF16;
        let one = bf16.encode(1.0);
        // 1 + 2^-8 is the midpoint of the bf16 neighbours 1 and 1 + 2^-7.
        let at = CrFn::Unary(|x| x + 2f32.powi(-8), |x| x);
        assert_eq!(at.eval(bf16, &[one]), None);
        let next_to = CrFn::Unary(|x| (x + 2f32.powi(-8)).next_up(), |x| x);
        assert_eq!(next_to.eval(bf16, &[one]), None);
        let clear = CrFn::Unary(|x| x + 2f32.powi(-6), |x| x);
        assert_eq!(
            clear.eval(bf16, &[one]),
            Some(bf16.encode(1.0 + 2f64.powi(-6)))
        );
        // f32 and f64 take the result as it is, NaN made canonical.
        let nan = CrFn::Unary(|_| f32::from_bits(0xffc0_0001), |_| f64::NAN);
        assert_eq!(
            nan.eval(FloatFormat::F32, &[0]),
            Some(FloatFormat::F32.nan_bits())
        );
        assert_eq!(
            nan.eval(FloatFormat::F64, &[0]),
            Some(FloatFormat::F64.nan_bits())
        );
        assert!(widens_exactly_to_f32(FloatFormat::BF16));
        assert!(widens_exactly_to_f32(FloatFormat::F16));
        assert!(!widens_exactly_to_f32(FloatFormat::F64));
    }
}
