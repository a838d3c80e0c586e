//! The CHLO trigonometric and hyperbolic functions on complex numbers (`chlo.asin`, `chlo.acos`,
//! `chlo.atan`, `chlo.sinh`, `chlo.cosh`, `chlo.asinh`, `chlo.acosh`, `chlo.atanh`): MPC's, each
//! component correctly rounded at the component precision and placed in the component format once
//! (subnormals, overflow) from MPC's ternary values, as the other MPC functions here.
//!
//! Branch cuts and special values are MPC's, which follow ISO C99 Annex G (G.6.1–G.6.2) and the
//! principal values of DLMF 4.23 and 4.37: asin and acos have their cuts on the real axis outside
//! [−1, 1], atan on the imaginary axis outside [−i, i], asinh on the imaginary axis outside
//! [−i, i], acosh on the real axis below 1, atanh on the real axis outside [−1, 1]; the sign of a
//! zero component selects the side of a cut (e.g. asin(2 ± 0i) = π/2 ± 1.3169...i).
//! Re acos ∈ [0, π], Re acosh ≥ 0, |Re asin|, |Re atan| ≤ π/2, |Im asinh|, |Im atanh| ≤ π/2.

use super::{mpc_unary, NN};
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;

/// asin z = −i·log(iz + √(1 − z²)), principal branch (MPC `mpc_asin`).
pub(super) fn asin(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.asin_round(NN)))
}

/// acos z = π/2 − asin z, principal branch (MPC `mpc_acos`).
pub(super) fn acos(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.acos_round(NN)))
}

/// atan z = (i/2)·(log(1 − iz) − log(1 + iz)), principal branch (MPC `mpc_atan`); atan(±i) has
/// an infinite imaginary part.
pub(super) fn atan(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.atan_round(NN)))
}

/// sinh z = sinh x cos y + i cosh x sin y (MPC `mpc_sinh`).
pub(super) fn sinh(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.sinh_round(NN)))
}

/// cosh z = cosh x cos y + i sinh x sin y (MPC `mpc_cosh`).
pub(super) fn cosh(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.cosh_round(NN)))
}

/// asinh z = −i·asin(iz), principal branch (MPC `mpc_asinh`).
pub(super) fn asinh(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.asinh_round(NN)))
}

/// acosh z = log(z + √(z+1)·√(z−1)), principal branch with Re ≥ 0 (MPC `mpc_acosh`).
pub(super) fn acosh(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.acosh_round(NN)))
}

/// atanh z = ½(log(1 + z) − log(1 − z)), principal branch (MPC `mpc_atanh`); atanh(±1) has an
/// infinite real part.
pub(super) fn atanh(fmt: FloatFormat, x: u128) -> Result<u128, BackendError> {
    Ok(mpc_unary(fmt, x, |z| z.atanh_round(NN)))
}

#[cfg(test)]
mod tests {
    use super::super::super::test_util::eval;
    use crate::round::round_exact;
    use conformance_spec::hlo::ir::Opcode::{self, *};
    use conformance_spec::literal::{complex_bits, complex_parts};
    use conformance_spec::{ElementType, FloatFormat};
    use rug::float::Constant;
    use rug::{Complex, Float};

    const OPS: [Opcode; 8] = [Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh];

    /// The function by its textbook formula (log, sqrt, exp: other MPC code paths) at `prec` bits.
    fn formula(op: Opcode, z: &Complex, prec: u32) -> Complex {
        let z = Complex::with_val(prec, z);
        let one = Complex::with_val(prec, (1, 0));
        let i = Complex::with_val(prec, (0, 1));
        let minus_i = Complex::with_val(prec, (0, -1));
        let asin = |z: &Complex| {
            let iz = Complex::with_val(prec, &i * z);
            let root =
                Complex::with_val(prec, &one - Complex::with_val(prec, z.square_ref())).sqrt();
            Complex::with_val(prec, &minus_i * Complex::with_val(prec, iz + root).ln())
        };
        match op {
            Asin => asin(&z),
            Acos => {
                let half_pi = Float::with_val(prec, Constant::Pi) / 2u32;
                Complex::with_val(prec, Complex::with_val(prec, (half_pi, 0)) - asin(&z))
            }
            Atan => {
                let iz = Complex::with_val(prec, &i * &z);
                let a = Complex::with_val(prec, &one - &iz).ln();
                let b = Complex::with_val(prec, &one + &iz).ln();
                Complex::with_val(prec, Complex::with_val(prec, a - b) * &i) / 2u32
            }
            Sinh | Cosh => {
                let e = Complex::with_val(prec, z.exp_ref());
                let f = Complex::with_val(prec, (-z.clone()).exp_ref());
                let v = if op == Sinh { e - f } else { e + f };
                Complex::with_val(prec, v) / 2u32
            }
            Asinh => {
                let iz = Complex::with_val(prec, &i * &z);
                Complex::with_val(prec, &minus_i * asin(&iz))
            }
            Acosh => {
                let a = Complex::with_val(prec, &z + 1u32).sqrt();
                let b = Complex::with_val(prec, &z - 1u32).sqrt();
                Complex::with_val(prec, &z + Complex::with_val(prec, a * b)).ln()
            }
            Atanh => {
                let a = Complex::with_val(prec, &one + &z).ln();
                let b = Complex::with_val(prec, &one - &z).ln();
                Complex::with_val(prec, a - b) / 2u32
            }
            _ => unreachable!(),
        }
    }

    fn c64(re: f32, im: f32) -> u128 {
        complex_bits(FloatFormat::F32, re.to_bits() as u64, im.to_bits() as u64)
    }

    fn parts(bits: u128) -> (f32, f32) {
        let (re, im) = complex_parts(FloatFormat::F32, bits);
        (f32::from_bits(re as u32), f32::from_bits(im as u32))
    }

    #[test]
    fn complex_inverse_functions_agree_with_their_formulas_on_random_c64() {
        let mut state = 0x5eed_u64;
        let f = FloatFormat::F32;
        for n in 0..1500 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Components with exponents spread over [2^-40, 2^40] (and some near 1).
            let component = |bits: u64| {
                let mantissa = (bits & 0x7f_ffff) as u32;
                let exponent = 127 - 40 + (bits >> 23) as u32 % 81;
                let sign = (bits >> 40) as u32 & 1;
                f32::from_bits(sign << 31 | exponent << 23 | mantissa)
            };
            let (re, im) = (component(state), component(state >> 20 ^ state << 7));
            let op = OPS[n % OPS.len()];
            if matches!(op, Sinh | Cosh) && (re.abs() > 80.0) {
                continue; // the formula's e^z overflows nothing at 2000 bits, but keep it quick
            }
            let z = Complex::with_val(24, (re, im));
            let want = formula(op, &z, 2000);
            let want = (round_exact(f, want.real()), round_exact(f, want.imag()));
            let got = complex_parts(f, eval(op, ElementType::C64, &[c64(re, im)]));
            assert_eq!(
                got,
                want,
                "{op} ({re:e}, {im:e}): {:?}",
                parts(eval(op, ElementType::C64, &[c64(re, im)]))
            );
        }
    }

    #[test]
    fn complex_inverse_functions_agree_with_their_formulas_at_extreme_c128() {
        // Huge, tiny and mixed components, near the branch points ±1, ±i (formulas at 6000 bits:
        // their cancellations cost at most a few thousand bits here).
        let f = FloatFormat::F64;
        let points = [
            (1.0, 1e-300),
            (1e300, 1e300),
            (1e-300, 1e300),
            (1e300, -1e-300),
            (1e-320, 1e-320),
            (1.0 + f64::EPSILON, -1e-300),
            (5e-324, 1.0),
            (0.5, 1e-310),
            (-1e10, 1e10),
            (3.0, -1e-200),
            (-0.75, 1e-20),
            (1e-5, -1.0 + 1e-12),
        ];
        for &(re, im) in &points {
            let bits = complex_bits(f, f64::to_bits(re), f64::to_bits(im));
            for op in OPS {
                if matches!(op, Sinh | Cosh) && re.abs() > 700.0 {
                    continue;
                }
                let want = formula(op, &Complex::with_val(53, (re, im)), 6000);
                let want = (round_exact(f, want.real()), round_exact(f, want.imag()));
                let got = complex_parts(f, eval(op, ElementType::C128, &[bits]));
                assert_eq!(got, want, "{op} ({re:e}, {im:e})");
            }
        }
    }

    #[test]
    fn complex_inverse_functions_agree_with_mpc_directly_on_c128() {
        let f = FloatFormat::F64;
        for &(re, im) in &[
            (0.5, 0.25),
            (-3.0, 1e-300),
            (1e300, -2.0),
            (1.0, 1e-20),
            (-0.0, 2.0),
        ] {
            let bits = complex_bits(f, f64::to_bits(re), f64::to_bits(im));
            for op in OPS {
                let z = Complex::with_val(53, (re, im));
                let want = match op {
                    Asin => z.asin(),
                    Acos => z.acos(),
                    Atan => z.atan(),
                    Sinh => z.sinh(),
                    Cosh => z.cosh(),
                    Asinh => z.asinh(),
                    Acosh => z.acosh(),
                    _ => z.atanh(),
                };
                let want = (
                    want.real().to_f64().to_bits(),
                    want.imag().to_f64().to_bits(),
                );
                let got = complex_parts(f, eval(op, ElementType::C128, &[bits]));
                assert_eq!(got, want, "{op} ({re}, {im})");
            }
        }
    }

    #[test]
    fn complex_inverse_functions_special_points() {
        let un = |op, re, im| parts(eval(op, ElementType::C64, &[c64(re, im)]));
        use std::f32::consts::{FRAC_PI_2, PI};
        assert_eq!(un(Asin, 0.0, 0.0), (0.0, 0.0));
        assert_eq!(un(Acos, 1.0, 0.0), (0.0, -0.0));
        assert_eq!(un(Acos, -1.0, 0.0), (PI, -0.0));
        assert_eq!(un(Asin, 1.0, 0.0), (FRAC_PI_2, 0.0));
        // Branch cut: asin(2 ± 0i) = π/2 ± 1.3169579i (acosh 2 = 1.3169578969248166).
        assert_eq!(un(Asin, 2.0, 0.0), (FRAC_PI_2, 1.316_958));
        assert_eq!(un(Asin, 2.0, -0.0), (FRAC_PI_2, -1.316_958));
        assert_eq!(un(Atan, 0.0, 1.0), (0.0, f32::INFINITY));
        assert_eq!(un(Atanh, 1.0, 0.0), (f32::INFINITY, 0.0));
        assert_eq!(un(Acosh, 1.0, 0.0), (0.0, 0.0));
        // sinh(i·fl(π/2)) = i·sin(fl(π/2)) + sinh(0)·cos(fl(π/2)): fl(π/2) > π/2, so the real
        // part is 0·(negative) = −0.
        assert_eq!(un(Sinh, 0.0, FRAC_PI_2).0.to_bits(), 0x8000_0000);
        assert_eq!(un(Sinh, 0.0, FRAC_PI_2).1, 1.0);
        assert_eq!(un(Cosh, 1.0, 0.0), (1.543_080_7, 0.0));
        // Overflow per component: cosh(100 + i) = cosh 100 cos 1 + i sinh 100 sin 1, both inf.
        assert_eq!(un(Cosh, 100.0, 1.0), (f32::INFINITY, f32::INFINITY));
        assert_eq!(un(Sinh, -100.0, 2.0), (f32::INFINITY, f32::INFINITY)); // (−big)(cos 2 < 0), big·sin 2
                                                                           // Tiny arguments: asin z ≈ z, component-wise subnormals preserved.
        let tiny = f32::from_bits(5);
        assert_eq!(un(Asin, tiny, -tiny), (tiny, -tiny));
        assert_eq!(un(Atanh, tiny, tiny), (tiny, tiny));
    }
}
