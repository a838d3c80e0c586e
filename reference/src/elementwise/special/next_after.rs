//! IEEE 754 nextafter on the bit patterns of any real format.

use crate::round::is_nan;
use conformance_spec::element_type::FloatFormat;
use conformance_spec::BackendError;

/// nextafter(x, y): the representable neighbour of x in the direction of y (CHLO
/// `chlo.next_after`; XLA client library `math.h` `NextAfter`; C99 `nextafter`). Exact.
///
/// - NaN if either operand is NaN (the canonical NaN).
/// - y itself (its bits) if x == y numerically, so nextafter(−0, +0) = +0 and nextafter(+0, −0) = −0.
/// - From ±0: the smallest subnormal with the sign of y.
/// - Otherwise x's magnitude moves one unit toward y (the encodings of a sign are consecutive
///   integers): toward zero it may reach a zero of x's sign (−0 from the negative side; +0 in the
///   FNUZ formats, which have no −0); away from zero the largest finite value steps to ±inf in the
///   IEEE formats, and ±inf steps back to ±max toward any finite y.
/// - Formats without infinities (f8e4m3fn, the FNUZ types): stepping past the largest finite value
///   would need a y beyond it, which the format cannot hold, so it never happens; were it asked
///   for, the result would be NaN (the overflow value of those formats).
pub(crate) fn next_after(fmt: FloatFormat, x: u64, y: u64) -> Result<u64, BackendError> {
    if is_nan(fmt, x) || is_nan(fmt, y) {
        return Ok(fmt.nan_bits());
    }
    let (a, b) = (fmt.decode(x), fmt.decode(y));
    if a == b {
        return Ok(y);
    }
    if a == 0.0 {
        return Ok(if b < 0.0 { fmt.negate_bits(1) } else { 1 });
    }
    let negative = fmt.sign_bit(x);
    let magnitude = if negative { fmt.negate_bits(x) } else { x };
    let away = (b > a) != negative;
    let stepped = if away { magnitude + 1 } else { magnitude - 1 };
    if stepped > fmt.max_finite_bits() && !fmt.has_infinity() {
        return Ok(fmt.nan_bits());
    }
    Ok(match (negative, stepped) {
        (false, m) => m,
        (true, 0) => fmt.negative_zero_bits(),
        (true, m) => fmt.negate_bits(m),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::test_util::*;
    use conformance_spec::hlo::ir::Opcode::NextAfter;
    use conformance_spec::ElementType;

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn next_after_f32_agrees_with_libm_on_every_class() {
        let specials = [
            0.0f32,
            -0.0,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::from_bits(0x007f_ffff),
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1.0,
            -1.0,
            1.5,
            f32::MAX,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for &x in &specials {
            for &y in &specials {
                let got = f32op(NextAfter, &[x, y]);
                assert!(same(got, libm::nextafterf(x, y)), "{x} {y}: {got}");
            }
        }
        let mut state = 42u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = f32::from_bits((state >> 32) as u32);
            let y = f32::from_bits(state as u32);
            let got = f32op(NextAfter, &[x, y]);
            assert!(same(got, libm::nextafterf(x, y)), "{x} {y}: {got}");
            let got = f32op(NextAfter, &[x, -x]);
            assert!(same(got, libm::nextafterf(x, -x)), "{x}");
        }
        assert_eq!(f32op(NextAfter, &[-0.0, 0.0]).to_bits(), 0);
        assert_eq!(f32op(NextAfter, &[0.0, -0.0]).to_bits(), 0x8000_0000);
        assert_eq!(f32op(NextAfter, &[f32::MAX, f32::INFINITY]), f32::INFINITY);
        assert_eq!(f32op(NextAfter, &[f32::INFINITY, 0.0]), f32::MAX);
        assert_eq!(
            f32op(NextAfter, &[-f32::from_bits(1), 1.0]).to_bits(),
            0x8000_0000
        );
        assert_eq!(f64op(NextAfter, &[1.0, 2.0]), 1.0 + f64::EPSILON);
        assert_eq!(f64op(NextAfter, &[0.0, -1.0]), -5e-324);
    }

    #[test]
    fn next_after_steps_every_narrow_format_by_one_value() {
        for t in [
            ElementType::F8E4M3FN,
            ElementType::F8E4M3FNUZ,
            ElementType::F8E5M2FNUZ,
            ElementType::F8E4M3B11FNUZ,
            ElementType::F8E5M2,
            ElementType::F8E4M3,
            ElementType::F8E3M4,
        ] {
            let f = t.float_format().unwrap();
            let values: Vec<u64> = (0..256u64).filter(|&b| !f.decode(b).is_nan()).collect();
            for &x in &values {
                for &y in &values {
                    let r = eval(NextAfter, t, &[x as u128, y as u128]) as u64;
                    let (a, b, v) = (f.decode(x), f.decode(y), f.decode(r));
                    if a == b {
                        assert_eq!(r, y, "{t} {a} {b}");
                        continue;
                    }
                    // r lies strictly between x and y's side, adjacent to x: no value in between.
                    assert!(!v.is_nan(), "{t} {a} {b}");
                    assert!((v - a) * (b - a) > 0.0, "{t} {a} {b} {v}");
                    let between = values
                        .iter()
                        .map(|&c| f.decode(c))
                        .any(|c| (c - a) * (c - v) < 0.0);
                    assert!(!between, "{t} {a} → {b}: {v} skips a value");
                }
            }
            // Toward zero from the smallest negative subnormal: −0, or +0 without −0.
            let r = eval(NextAfter, t, &[f.negate_bits(1) as u128, 0]) as u64;
            assert_eq!(r, f.negative_zero_bits(), "{t}");
        }
    }
}
