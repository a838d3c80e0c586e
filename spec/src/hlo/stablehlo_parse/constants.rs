//! `dense<...>` attributes as literals (MLIR LangRef, "DenseElementsAttr"), bit-exact:
//!
//! - `dense<"0x...">`: each element's little-endian bytes in row-major order (what the StableHLO
//!   printer of this crate writes, and what MLIR prints for large constants); one element's
//!   worth of bytes is a splat. Predicates take one byte per element (nonzero is true).
//! - a scalar (a splat: every element equal) or nested `[...]` lists in row-major order;
//! - integers are values of the element type (signless `iN` accepts `-2^(N-1)..2^N-1` and keeps
//!   the low N bits, as MLIR does); in a floating-point type a hex integer (`0x7FC00000`) is the
//!   bit pattern, a decimal is rounded to nearest-even (f32 and f64 directly from the decimal, the
//!   narrower formats from the nearest f64, as `FloatFormat::encode` and XLA's HLO parser do);
//! - complex elements are `(re, im)` pairs.

use super::attrs::{Dense, Elem};
use crate::element_type::{ElementType, FloatFormat};
use crate::literal::{complex_bits, ArrayLiteral};
use crate::shape::ArrayShape;

/// A conversion error: the byte offset and the message.
pub(crate) type ConstError = (usize, String);

/// The literal of `dense` with `shape` (a static array shape).
///
/// Errors (with the offset of the offending element): a count or nesting that does not match
/// the shape, a value of the wrong kind or out of range for the element type, hex data of the
/// wrong length.
pub(crate) fn dense_literal(dense: &Dense, shape: &ArrayShape) -> Result<ArrayLiteral, ConstError> {
    let et = shape.element_type;
    let n = shape.element_count();
    let bits: Vec<u128> = match dense {
        Dense::Hex(bytes, at) => {
            let width = if et == ElementType::Pred {
                1
            } else {
                et.byte_width()
            };
            let element = |k: usize| -> u128 {
                let mut v = 0u128;
                for (i, &b) in bytes[k * width..(k + 1) * width].iter().enumerate() {
                    v |= (b as u128) << (8 * i);
                }
                if et == ElementType::Pred {
                    (v != 0) as u128
                } else {
                    v
                }
            };
            if bytes.len() == n * width {
                (0..n).map(element).collect()
            } else if bytes.len() == width {
                vec![element(0); n]
            } else {
                return Err((
                    *at,
                    format!(
                        "hex data of {} bytes for {n} element(s) of {et} ({width} byte(s) each)",
                        bytes.len()
                    ),
                ));
            }
        }
        Dense::Scalar(e) => vec![element_bits(e, et)?; n],
        Dense::List(_, at) => {
            let mut out = Vec::with_capacity(n);
            nested(dense, &shape.dimensions, et, &mut out)?;
            if out.len() != n {
                return Err((*at, format!("{} elements for a shape of {n}", out.len())));
            }
            out
        }
    };
    ArrayLiteral::from_bits(shape.clone(), &bits).map_err(|e| (0, e.to_string()))
}

/// Row-major elements of nested lists, checking each level's length against the dimensions.
fn nested(d: &Dense, dims: &[i64], et: ElementType, out: &mut Vec<u128>) -> Result<(), ConstError> {
    match (d, dims.split_first()) {
        (Dense::List(items, at), Some((&n, rest))) => {
            if items.len() as i64 != n {
                return Err((
                    *at,
                    format!(
                        "a list of {} elements where dimension size {n} is expected",
                        items.len()
                    ),
                ));
            }
            for i in items {
                nested(i, rest, et, out)?;
            }
            Ok(())
        }
        (Dense::Scalar(e), None) => {
            out.push(element_bits(e, et)?);
            Ok(())
        }
        (Dense::List(_, at), None) => Err((*at, "a list where an element is expected".into())),
        (Dense::Scalar(e), Some(_)) => {
            Err((elem_at(e), "an element where a list is expected".into()))
        }
        (Dense::Hex(_, at), _) => Err((*at, "hex data inside a list".into())),
    }
}

fn elem_at(e: &Elem) -> usize {
    match e {
        Elem::Int(_, at) | Elem::Float(_, at) | Elem::Bool(_, at) => *at,
        Elem::Complex(re, _) => elem_at(re),
    }
}

/// The bits of one element of type `et`.
fn element_bits(e: &Elem, et: ElementType) -> Result<u128, ConstError> {
    let at = elem_at(e);
    if et == ElementType::Pred {
        return match e {
            Elem::Bool(b, _) => Ok(*b as u128),
            Elem::Int(s, _) if s == "0" || s == "1" => Ok((s == "1") as u128),
            _ => Err((at, "expected `true` or `false` for an i1 element".into())),
        };
    }
    if et.is_integer() {
        let Elem::Int(text, _) = e else {
            return Err((at, format!("expected an integer for a {et} element")));
        };
        let v = super::lexer::parse_int("", 0, text)
            .map_err(|_| (at, format!("`{text}` is out of range")))?;
        let (lo, hi) = et.integer_range().unwrap_or((0, 0));
        let w = et.bit_width();
        // Signless types (written `iN`, read as signed here) also take N-bit patterns.
        let hi_pattern = if et.is_signed_integer() {
            (1i128 << w) - 1
        } else {
            hi
        };
        if v < lo || v > hi_pattern {
            return Err((at, format!("{text} is out of range for {et}")));
        }
        return Ok(et.integer_to_bits(v).unwrap_or(0) as u128);
    }
    let Some(f) = et.float_format() else {
        return Err((at, format!("no element syntax for {et}")));
    };
    if et.is_complex() {
        return match e {
            Elem::Complex(re, im) => Ok(complex_bits(f, float_bits(re, f)?, float_bits(im, f)?)),
            _ => Err((at, format!("expected `(re, im)` for a {et} element"))),
        };
    }
    float_bits(e, f).map(u128::from)
}

/// The bits of a real float element in format `f`.
fn float_bits(e: &Elem, f: FloatFormat) -> Result<u64, ConstError> {
    let at = elem_at(e);
    match e {
        Elem::Int(text, _) if text.starts_with("0x") || text.starts_with("-0x") => {
            let v = super::lexer::parse_int("", 0, text)
                .map_err(|_| (at, "out of range".to_string()))?;
            let w = f.bit_width();
            if v < 0 || (w < 64 && v >> w != 0) || v > u64::MAX as i128 {
                return Err((at, format!("bit pattern {text} is wider than {w} bits")));
            }
            Ok(v as u64)
        }
        Elem::Int(text, _) | Elem::Float(text, _) => {
            if f == FloatFormat::F32 {
                let x: f32 = text
                    .parse()
                    .map_err(|_| (at, format!("malformed number `{text}`")))?;
                return Ok(x.to_bits() as u64);
            }
            let x: f64 = text
                .parse()
                .map_err(|_| (at, format!("malformed number `{text}`")))?;
            Ok(f.encode(x))
        }
        Elem::Bool(..) | Elem::Complex(..) => Err((at, "expected a floating-point value".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::stablehlo_parse::attrs::{parse_attr, Attr, Type};
    use crate::hlo::stablehlo_parse::lexer::Cursor;

    fn lit(text: &str) -> Result<ArrayLiteral, ConstError> {
        let mut c = Cursor::new(text);
        match parse_attr(&mut c).unwrap() {
            Attr::Dense(d, Type::Tensor(t)) => dense_literal(&d, &t),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn splats_lists_and_hex() {
        let l = lit("dense<0xFF800000> : tensor<2xf32>").unwrap();
        assert_eq!(l.logical_bits(), vec![0xFF80_0000, 0xFF80_0000]);
        let l = lit("dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>").unwrap();
        assert_eq!(l.logical_bits(), vec![1, 0xFE, 3, 4]);
        let l = lit("dense<\"0x0100020003000400\"> : tensor<2x2xi16>").unwrap();
        assert_eq!(l.logical_bits(), vec![1, 2, 3, 4]);
        let l = lit("dense<[true, false]> : tensor<2xi1>").unwrap();
        assert_eq!(l.logical_bits(), vec![1, 0]);
        let l = lit("dense<1.000000e-01> : tensor<f32>").unwrap();
        assert_eq!(l.logical_bits(), vec![0.1f32.to_bits() as u128]);
        let l = lit("dense<(1.0, -2.0)> : tensor<complex<f32>>").unwrap();
        assert_eq!(l.logical_bits(), vec![0xC000_0000_3F80_0000]);
        let l = lit("dense<4294967295> : tensor<i32>").unwrap();
        assert_eq!(l.logical_bits(), vec![0xFFFF_FFFF]);
        let l = lit("dense<\"0x7E81\"> : tensor<2xf8E4M3FN>").unwrap();
        assert_eq!(l.logical_bits(), vec![0x7E, 0x81]);
    }

    #[test]
    fn mismatches_are_errors() {
        assert!(lit("dense<[1, 2, 3]> : tensor<2xi32>")
            .unwrap_err()
            .1
            .contains("dimension size 2"));
        assert!(lit("dense<256> : tensor<ui8>")
            .unwrap_err()
            .1
            .contains("out of range"));
        assert!(lit("dense<1.5> : tensor<i32>")
            .unwrap_err()
            .1
            .contains("integer"));
        assert!(lit("dense<\"0x0102\"> : tensor<3xi8>")
            .unwrap_err()
            .1
            .contains("hex data"));
    }
}
