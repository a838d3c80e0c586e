//! Single element values written as HLO literal elements (`true`, `-3`, `0x7f`, `1.5`, `-0`,
//! `inf`, `nan`, `nan(0x1)`, `(1, -2)`), as the catalog's `special_values` write them.
//!
//! Stricter than reading an HLO literal: a value must mean itself in the element type. A finite
//! decimal is rounded to the nearest value of the format (as the HLO parser does), but one that
//! overflows to ±inf/NaN or underflows to zero is rejected; `inf` is rejected in formats without
//! infinities and `-0` in FNUZ formats (which have no −0); integers must be in range.

use crate::element_type::{ElementType, FloatClass, FloatFormat};
use crate::literal::complex_bits;

/// Parses one element of type `ty` into its raw bits (complex: real part in the low half).
///
/// Errors: a message saying what was expected, e.g. "`300` is out of range for u8 [0, 255]".
pub fn parse_element(ty: ElementType, text: &str) -> Result<u128, String> {
    parse(ty, text, false)
}

/// Like [`parse_element`], but a finite decimal must be exactly a value of the format (`5.5` is
/// rejected for f8e5m2, whose neighbours are 5 and 6). For operands of special values, whose
/// meaning would otherwise change with the format.
pub fn parse_element_exact(ty: ElementType, text: &str) -> Result<u128, String> {
    parse(ty, text, true)
}

fn parse(ty: ElementType, text: &str, exact: bool) -> Result<u128, String> {
    let t = text.trim();
    if ty.is_pred() {
        return match t {
            "true" | "1" => Ok(1),
            "false" | "0" => Ok(0),
            _ => Err(format!("expected `true` or `false` for pred, found `{t}`")),
        };
    }
    if let Some((lo, hi)) = ty.integer_range() {
        let v = parse_integer(t).ok_or_else(|| {
            format!("expected a decimal or 0x-hexadecimal integer for {ty}, found `{t}`")
        })?;
        if v < lo || v > hi {
            return Err(format!("`{t}` is out of range for {ty} [{lo}, {hi}]"));
        }
        return Ok(ty.integer_to_bits(v).unwrap_or(0) as u128);
    }
    let Some(f) = ty.float_format() else {
        return Err(format!("element type {ty} has no values"));
    };
    if ty.is_complex() {
        let inner = t
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .ok_or_else(|| format!("expected `(real, imag)` for {ty}, found `{t}`"))?;
        let (re, im) = inner
            .split_once(',')
            .ok_or_else(|| format!("expected `(real, imag)` for {ty}, found `{t}`"))?;
        let re =
            parse_float(f, re.trim(), exact).map_err(|e| format!("{e} (real part of {ty})"))?;
        let im = parse_float(f, im.trim(), exact)
            .map_err(|e| format!("{e} (imaginary part of {ty})"))?;
        return Ok(complex_bits(f, re, im));
    }
    parse_float(f, t, exact)
        .map(u128::from)
        .map_err(|e| format!("{e} ({ty})"))
}

/// A decimal (`-12`) or hexadecimal (`0x7f`, `-0x80`) integer, without overflow.
fn parse_integer(t: &str) -> Option<i128> {
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let magnitude = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i128::from_str_radix(hex, 16).ok()?
    } else {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<i128>().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// One real floating-point value in format `f` (see the module docs for what is rejected).
fn parse_float(f: FloatFormat, t: &str, exact: bool) -> Result<u64, String> {
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let sign = if negative {
        1u64 << (f.bit_width() - 1)
    } else {
        0
    };
    if body == "nan" {
        return Ok(if f.has_negative_zero() {
            f.nan_bits() | sign
        } else {
            f.nan_bits()
        });
    }
    if let Some(payload) = body.strip_prefix("nan(").and_then(|s| s.strip_suffix(')')) {
        let p = parse_integer(payload)
            .filter(|&p| p > 0 && p < (1i128 << f.mantissa_bits))
            .ok_or_else(|| {
                format!(
                    "expected a NaN payload in [1, 2^{}) in `{t}`",
                    f.mantissa_bits
                )
            })? as u64;
        let Some(inf) = f.infinity_bits() else {
            return Err(format!(
                "`{t}`: NaN payloads exist only in formats with infinities"
            ));
        };
        return Ok(inf | p | sign);
    }
    if body == "inf" {
        return f
            .infinity_bits()
            .map(|b| b | sign)
            .ok_or_else(|| format!("`{t}`: this format has no infinities"));
    }
    let decimal_chars = |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
    if body.is_empty()
        || !body.bytes().all(decimal_chars)
        || !body
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.')
    {
        return Err(format!(
            "expected a number, `inf`, `nan` or `nan(0x..)`, found `{t}`"
        ));
    }
    let magnitude: f64 = body
        .parse()
        .map_err(|_| format!("expected a number, found `{t}`"))?;
    let value = if negative { -magnitude } else { magnitude };
    let bits = f.encode(value);
    match f.classify(bits) {
        FloatClass::Infinite | FloatClass::Nan => Err(format!(
            "`{t}` overflows the format (largest finite value {})",
            f.max_finite()
        )),
        FloatClass::Zero if magnitude != 0.0 => Err(format!("`{t}` underflows to zero")),
        FloatClass::Zero if negative && !f.has_negative_zero() => {
            Err(format!("`{t}`: this format has no negative zero"))
        }
        _ if exact && f.decode(bits) != value => Err(format!(
            "`{t}` is not a value of the format (the nearest is {})",
            f.decode(bits)
        )),
        _ => Ok(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ElementType::*;

    #[test]
    fn predicates_and_integers() {
        assert_eq!(parse_element(Pred, "true"), Ok(1));
        assert_eq!(parse_element(Pred, "false"), Ok(0));
        assert!(parse_element(Pred, "yes").is_err());
        assert_eq!(parse_element(S8, "-128"), Ok(0x80));
        assert_eq!(parse_element(S8, "-0x80"), Ok(0x80));
        assert_eq!(parse_element(U8, "0xff"), Ok(0xff));
        assert!(parse_element(S8, "128")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_element(U32, "-1").is_err());
        assert!(parse_element(S32, "1.5").is_err());
        assert_eq!(parse_element(S64, "-9223372036854775808"), Ok(1u128 << 63));
        assert_eq!(
            parse_element(U64, "18446744073709551615"),
            Ok(u64::MAX as u128)
        );
    }

    #[test]
    fn floats_and_specials() {
        assert_eq!(parse_element(F32, "1.5"), Ok(0x3fc0_0000));
        assert_eq!(parse_element(F32, "-0"), Ok(0x8000_0000));
        assert_eq!(parse_element(F32, "-inf"), Ok(0xff80_0000));
        assert_eq!(parse_element(F32, "nan"), Ok(0x7fc0_0000));
        assert_eq!(parse_element(F32, "-nan"), Ok(0xffc0_0000));
        assert_eq!(parse_element(F32, "nan(0x1)"), Ok(0x7f80_0001));
        assert_eq!(parse_element(F16, "65504"), Ok(0x7bff));
        assert!(parse_element(F16, "65520")
            .unwrap_err()
            .contains("overflows"));
        assert!(parse_element(F16, "1e-10")
            .unwrap_err()
            .contains("underflows"));
        assert!(parse_element(F8E4M3FN, "inf")
            .unwrap_err()
            .contains("no infinities"));
        assert_eq!(parse_element(F8E4M3FN, "nan"), Ok(0x7f));
        assert_eq!(parse_element(F8E4M3FN, "448"), Ok(0x7e));
        assert!(parse_element(F8E5M2FNUZ, "-0")
            .unwrap_err()
            .contains("negative zero"));
        assert_eq!(parse_element(F8E5M2FNUZ, "nan"), Ok(0x80));
        assert_eq!(parse_element(F8E5M2FNUZ, "-nan"), Ok(0x80));
        assert!(parse_element(F32, "infinity").is_err());
        assert!(parse_element(F32, "").is_err());
        assert!(parse_element(F32, "1..2").is_err());
        assert!(parse_element(F32, "e5").is_err());
    }

    #[test]
    fn exact_parsing_rejects_rounded_values() {
        assert_eq!(parse_element(F8E5M2, "5.5"), Ok(0x46)); // a tie, rounded to even: 6
        assert!(parse_element_exact(F8E5M2, "5.5")
            .unwrap_err()
            .contains("nearest is 6"));
        assert_eq!(parse_element_exact(F8E4M3FN, "5.5"), Ok(0x4b));
        assert_eq!(parse_element_exact(F32, "-0"), Ok(0x8000_0000));
        assert!(parse_element_exact(F32, "0.1").is_err());
        assert!(parse_element_exact(F64, "0.5").is_ok());
        assert!(parse_element_exact(C64, "(1, 0.1)").is_err());
        assert_eq!(parse_element_exact(S8, "-5"), Ok(0xfb));
    }

    #[test]
    fn complex_values() {
        assert_eq!(
            parse_element(C64, "(1, -2)"),
            Ok(0x3f80_0000 | (0xc000_0000u128 << 32))
        );
        assert!(parse_element(C64, "1").is_err());
        assert!(parse_element(C128, "(1, x)").is_err());
    }

    #[test]
    fn never_panics_on_odd_text() {
        for t in [
            "-", "+", "0x", "-0x", "nan(", "nan()", "nan(0x0)", "(", "()", "(,)", "1e999",
            "-1e-999", "+-1", "\u{e9}",
        ] {
            for ty in ElementType::ALL {
                let _ = parse_element(ty, t);
            }
        }
    }
}
