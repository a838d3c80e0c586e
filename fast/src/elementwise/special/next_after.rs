//! `next-after(x, y)` (CHLO `chlo.next_after`, C99 `nextafter`, IEEE 754-2019 §5.3.1
//! nextUp/nextDown): the representable value next to x in the direction of y, computed on the
//! bits of the operands' own format (bit-exact in every format, f8 types included):
//! - NaN (the format's canonical NaN) when x or y is NaN;
//! - y when x == y (so `next_after(+0, −0) = −0`);
//! - from ±0, the smallest subnormal with the sign of y;
//! - otherwise the magnitude of x one unit up (toward y away from zero) or down, on the
//!   sign-magnitude encoding: the largest finite value steps to ±inf in IEEE formats, and the
//!   smallest subnormal steps to a zero with x's sign (+0 in the formats without −0).

use super::super::narrow::Narrow;
use super::super::Ctx;
use crate::buffer::with_output;
use crate::parallel::map2;
use conformance_spec::{BackendError, ElementType, FloatFormat};

/// nextafter on f64.
#[inline]
pub fn next_after_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f64::from_bits(1).copysign(y);
    }
    let b = x.to_bits();
    f64::from_bits(if (y > x) == (x > 0.0) { b + 1 } else { b - 1 })
}

/// nextafter on f32.
#[inline]
pub fn next_after_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(y);
    }
    let b = x.to_bits();
    f32::from_bits(if (y > x) == (x > 0.0) { b + 1 } else { b - 1 })
}

/// nextafter on the bits of any float format (`x`, `y` and the result are bit patterns of
/// `fmt`), through its ordered encoding ([`FloatFormat::to_ordered`]: ±0 both map to 0).
pub fn next_after_bits(fmt: FloatFormat, x: u64, y: u64) -> u64 {
    if fmt.decode(x).is_nan() || fmt.decode(y).is_nan() {
        return fmt.nan_bits();
    }
    let (ox, oy) = (fmt.to_ordered(x), fmt.to_ordered(y));
    if ox == oy {
        return y;
    }
    let step = if oy > ox { 1 } else { -1 };
    let r = ox + step;
    if r == 0 {
        // From the smallest subnormal toward zero: a zero with x's sign.
        return if ox < 0 { fmt.negative_zero_bits() } else { 0 };
    }
    fmt.from_ordered(r)
}

/// Runs `next-after` on two operands of one real float type.
pub(crate) fn evaluate(ctx: &Ctx<'_>, ty: ElementType) -> Result<Vec<u8>, BackendError> {
    let (exec, n) = (ctx.exec, ctx.n);
    Ok(match ty {
        ElementType::F64 => {
            let (a, b) = (
                ctx.operands[0].typed::<f64>(),
                ctx.operands[1].typed::<f64>(),
            );
            with_output::<f64>(n, |o| map2(exec, a.view(), b.view(), o, next_after_f64))
        }
        ElementType::F32 => {
            let (a, b) = (
                ctx.operands[0].typed::<f32>(),
                ctx.operands[1].typed::<f32>(),
            );
            with_output::<f32>(n, |o| map2(exec, a.view(), b.view(), o, next_after_f32))
        }
        _ => {
            let nw = Narrow::new(ty).ok_or_else(|| ctx.unsupported_type())?;
            let fmt = nw.fmt;
            if ty.bit_width() == 8 {
                let (a, b) = (ctx.operands[0].typed::<u8>(), ctx.operands[1].typed::<u8>());
                with_output::<u8>(n, |o| {
                    map2(exec, a.view(), b.view(), o, |x, y| {
                        next_after_bits(fmt, x as u64, y as u64) as u8
                    })
                })
            } else {
                let (a, b) = (
                    ctx.operands[0].typed::<u16>(),
                    ctx.operands[1].typed::<u16>(),
                );
                with_output::<u16>(n, |o| {
                    map2(exec, a.view(), b.view(), o, |x, y| {
                        next_after_bits(fmt, x as u64, y as u64) as u16
                    })
                })
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::element_type::FloatClass;

    /// The expected result by explicit stepping through the sorted list of the format's values.
    fn by_stepping(fmt: FloatFormat, sorted: &[u64], x: u64, y: u64) -> u64 {
        let (vx, vy) = (fmt.decode(x), fmt.decode(y));
        if vx.is_nan() || vy.is_nan() {
            return fmt.nan_bits();
        }
        if vx == vy {
            return y;
        }
        if vx == 0.0 {
            let tiny = fmt.encode(fmt.min_subnormal());
            return if vy < 0.0 {
                fmt.negate_bits(tiny)
            } else {
                tiny
            };
        }
        // Position of x among the values (−0 and +0 sorted together: x is not zero here).
        let i = sorted.iter().position(|&b| b == x).unwrap();
        let j = if vy > vx { i + 1 } else { i - 1 };
        let r = sorted[j];
        if fmt.decode(r) == 0.0 {
            // Both zeros are in the list, −0 first: the one with x's sign.
            return if vx < 0.0 {
                fmt.negative_zero_bits()
            } else {
                0
            };
        }
        r
    }

    fn check_format(ty: ElementType, pairs: impl Iterator<Item = (u64, u64)>) {
        let fmt = ty.float_format().unwrap();
        let count = 1u64 << fmt.bit_width();
        let mut sorted: Vec<u64> = (0..count)
            .filter(|&b| fmt.classify(b) != FloatClass::Nan)
            .collect();
        sorted.sort_by(|&a, &b| fmt.decode(a).total_cmp(&fmt.decode(b)));
        for (x, y) in pairs {
            let want = by_stepping(fmt, &sorted, x, y);
            let got = next_after_bits(fmt, x, y);
            let same = got == want || (fmt.decode(got).is_nan() && fmt.decode(want).is_nan());
            assert!(
                same,
                "{ty} next_after({x:#x}, {y:#x}) = {got:#x}, want {want:#x}"
            );
            match ty {
                ElementType::F32 => {
                    let r = next_after_f32(f32::from_bits(x as u32), f32::from_bits(y as u32));
                    let want = f32::from_bits(want as u32);
                    assert!(r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan()));
                }
                ElementType::F64 => unreachable!(),
                _ => {}
            }
        }
    }

    #[test]
    fn every_pair_of_every_8_bit_format() {
        for ty in [
            ElementType::F8E4M3FN,
            ElementType::F8E5M2,
            ElementType::F8E4M3FNUZ,
            ElementType::F8E5M2FNUZ,
            ElementType::F8E4M3B11FNUZ,
            ElementType::F8E4M3,
            ElementType::F8E3M4,
        ] {
            check_format(
                ty,
                (0..256u64).flat_map(|x| (0..256u64).map(move |y| (x, y))),
            );
        }
    }

    #[test]
    fn sixteen_bit_formats_every_x_against_classes_of_y() {
        for ty in [ElementType::F16, ElementType::Bf16] {
            let fmt = ty.float_format().unwrap();
            let inf = fmt.infinity_bits().unwrap();
            let ys = [
                0,
                fmt.negative_zero_bits(),
                1,
                fmt.negate_bits(1),
                fmt.encode(1.0),
                fmt.encode(-1.0),
                fmt.max_finite_bits(),
                inf,
                fmt.negate_bits(inf),
                fmt.nan_bits(),
            ];
            check_format(
                ty,
                (0..1u64 << 16).flat_map(|x| ys.iter().map(move |&y| (x, y))),
            );
        }
    }

    #[test]
    fn f32_classes_against_bit_stepping() {
        let vals = [
            0.0f32,
            -0.0,
            f32::from_bits(1),
            -f32::from_bits(1),
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3.5,
        ];
        for &x in &vals {
            for &y in &vals {
                let r = next_after_f32(x, y);
                let bits =
                    next_after_bits(FloatFormat::F32, x.to_bits() as u64, y.to_bits() as u64);
                assert!(
                    r.to_bits() as u64 == bits
                        || (r.is_nan() && f32::from_bits(bits as u32).is_nan()),
                    "{x:e} {y:e}"
                );
                let r64 = next_after_f64(x as f64, y as f64);
                let b64 =
                    next_after_bits(FloatFormat::F64, (x as f64).to_bits(), (y as f64).to_bits());
                assert!(r64.to_bits() == b64 || (r64.is_nan() && f64::from_bits(b64).is_nan()));
            }
        }
        assert_eq!(next_after_f32(1.0, 2.0), 1.000_000_1);
        assert_eq!(next_after_f32(1.0, 0.0), 0.999_999_94);
        assert_eq!(next_after_f32(0.0, -1.0).to_bits(), 0x8000_0001);
        assert_eq!(next_after_f32(-0.0, 0.0).to_bits(), 0);
        assert_eq!(next_after_f32(f32::MAX, f32::INFINITY), f32::INFINITY);
        assert_eq!(next_after_f32(f32::INFINITY, 0.0), f32::MAX);
        assert_eq!(
            next_after_f32(-f32::from_bits(1), 1.0).to_bits(),
            0x8000_0000
        );
        assert_eq!(next_after_f64(1.0, 2.0), 1.0 + f64::EPSILON);
        assert_eq!(next_after_f64(f64::from_bits(1), 0.0).to_bits(), 0);
    }

    #[test]
    fn fnuz_formats_never_produce_negative_zero() {
        let fmt = ElementType::F8E4M3FNUZ.float_format().unwrap();
        let tiny_neg = fmt.negate_bits(1);
        assert_eq!(next_after_bits(fmt, tiny_neg, 0), 0);
        assert_eq!(next_after_bits(fmt, 0, tiny_neg), tiny_neg);
        // f8e4m3fn has no infinity: the largest finite value steps down from there.
        let fmt = ElementType::F8E4M3FN.float_format().unwrap();
        let max = fmt.max_finite_bits();
        assert_eq!(next_after_bits(fmt, max, 0), max - 1);
        assert_eq!(next_after_bits(fmt, max - 1, max), max);
    }
}
