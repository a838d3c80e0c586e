//! Literal values in HLO text, as XLA prints them and `literal.rs` writes them:
//! `{{1, 2.5, 3}, {4, 5, 6}}`, `-7`, `{true, false}` (XLA also prints `{1, 0}` for pred),
//! `{(1, 2), (3, -4)}`, `inf`, `-nan`, `nan(0x1)`, tuples `(1.5, {1, 2})`.
//!
//! Floats are read as the nearest `f64` and then rounded to the element type with
//! [`FloatFormat::encode`] (XLA's parser reads them the same way). `nan(0xP)` sets the mantissa
//! field to the payload `P` (exponent all ones, sign from a leading `-`); the result must be a NaN
//! of the format.

use super::cursor::{Cursor, PResult};
use super::lexer::Tok;
use super::shape_text::{shape, starts_shape};
use crate::element_type::{ElementType, FloatClass, FloatFormat};
use crate::index;
use crate::literal::{complex_bits, ArrayLiteral, Literal};
use crate::shape::{ArrayShape, Shape};

/// Largest physical size (bytes, padding included) of a literal the parser builds (64 MiB).
pub(crate) const MAX_LITERAL_BYTES: usize = 1 << 26;

/// A literal with its shape: `f32[2] {1, 2}`, `s32[] -7`, `(f32[], s32[2]) (1.5, {1, 2})`, or the
/// form `Literal`'s Display writes for tuples, `(f32[] 1.5, s32[2] {1, 2})`; `token` is the token.
pub(crate) fn literal_with_shape(c: &mut Cursor) -> PResult<Literal> {
    let t = c.peek()?;
    match &t.tok {
        Tok::Ident(s) if s == "token" => {
            c.pos = t.end;
            if c.char_at_is(c.pos, b'[') {
                c.expect(&Tok::LBracket, "after `token`")?;
                c.expect(&Tok::RBracket, "in `token[]`")?;
            }
            Ok(Literal::Token)
        }
        Tok::LParen => tuple_literal_with_shape(c),
        _ => {
            let s = shape(c)?;
            values(c, &s)
        }
    }
}

/// `(shape, ...) (values, ...)` or `(shape values, ...)`.
fn tuple_literal_with_shape(c: &mut Cursor) -> PResult<Literal> {
    let open = c.expect(&Tok::LParen, "to open a tuple")?;
    c.enter(open.start)?;
    let mut shapes = Vec::new();
    let mut literals = Vec::new();
    if !c.eat(&Tok::RParen)? {
        loop {
            let element_start = c.peek()?.start;
            let s = shape(c)?;
            let t = c.peek()?;
            let is_shape_only = matches!(t.tok, Tok::Comma | Tok::RParen);
            match (is_shape_only, shapes.is_empty(), literals.is_empty()) {
                (true, _, true) => shapes.push(s),
                (false, true, _) => literals.push(values(c, &s)?),
                _ => {
                    return Err(c.error_at(
                        element_start,
                        "a tuple literal gives either all element shapes first, or a shape and value per element",
                    ))
                }
            }
            let t = c.next()?;
            match t.tok {
                Tok::Comma => {}
                Tok::RParen => break,
                _ => return Err(c.unexpected(&t, "`,` or `)` in tuple")),
            }
        }
    }
    c.leave();
    if literals.is_empty() {
        values(c, &Shape::Tuple(shapes))
    } else {
        Ok(Literal::Tuple(literals))
    }
}

/// The values of a literal of a known shape (the shape is not written): a scalar element, nested
/// braces for arrays (logical row-major order, whatever the layout), `(a, b)` or `{a, b}` for tuples.
///
/// Errors: a value of the wrong kind for the element type, an integer out of range, a NaN payload
/// that is not a NaN of the format, a brace nesting or element count that does not match the
/// dimensions, or a literal beyond [`MAX_LITERAL_BYTES`].
pub(crate) fn values(c: &mut Cursor, shape: &Shape) -> PResult<Literal> {
    match shape {
        Shape::Token => {
            let t = c.next()?;
            match &t.tok {
                Tok::Ident(s) if s == "token" => Ok(Literal::Token),
                _ => Err(c.unexpected(&t, "`token`")),
            }
        }
        Shape::Tuple(elements) => {
            let open = c.next()?;
            let close = match open.tok {
                Tok::LParen => Tok::RParen,
                Tok::LBrace => Tok::RBrace,
                _ => return Err(c.unexpected(&open, "`(` to open tuple values")),
            };
            c.enter(open.start)?;
            let mut out = Vec::with_capacity(elements.len());
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    c.expect(&Tok::Comma, "between tuple elements")?;
                }
                out.push(element_with_optional_shape(c, element)?);
            }
            let t = c.next()?;
            if t.tok != close {
                let what = format!(
                    "{} after {} tuple element(s)",
                    close.describe(),
                    elements.len()
                );
                return Err(c.unexpected(&t, &what));
            }
            c.leave();
            Ok(Literal::Tuple(out))
        }
        Shape::Array(a) => array_values(c, a).map(Literal::Array),
    }
}

/// A tuple element's values, optionally preceded by its shape (XLA's older constant syntax).
fn element_with_optional_shape(c: &mut Cursor, expected: &Shape) -> PResult<Literal> {
    let t = c.peek()?;
    if matches!(t.tok, Tok::Ident(_)) && starts_shape(c)? {
        let s = shape(c)?;
        if !same_structure(&s, expected) {
            return Err(c.error_at(
                t.start,
                format!("element shape `{s}` does not match the tuple's `{expected}`"),
            ));
        }
        return values(c, &s);
    }
    values(c, expected)
}

/// Same element types and dimensions (layouts may differ).
pub(crate) fn same_structure(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.compatible(y),
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_structure(p, q))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

fn array_values(c: &mut Cursor, shape: &ArrayShape) -> PResult<ArrayLiteral> {
    let start = c.peek()?.start;
    if c.src[start..].starts_with("{...}") {
        return Err(c.error_at(
            start,
            "elided constant `{...}`: its values are not in the text (print with print_large_constants)",
        ));
    }
    let bytes = index::physical_dimensions(shape)
        .iter()
        .try_fold(shape.element_type.byte_width(), |acc, &d| {
            acc.checked_mul(usize::try_from(d).ok()?)
        });
    if bytes.is_none_or(|n| n > MAX_LITERAL_BYTES) {
        return Err(c.error_at(
            start,
            format!("literal of shape `{shape}` is larger than {MAX_LITERAL_BYTES} bytes"),
        ));
    }
    let mut bits = Vec::new();
    // Per dimension, the element count found (a dynamic dimension's runtime size).
    let mut counts: Vec<Option<i64>> = vec![None; shape.rank()];
    if shape.dimensions.is_empty() {
        bits.push(element(c, shape.element_type)?);
    } else {
        nested(c, shape, 0, &mut bits, &mut counts)?;
    }
    let invalid =
        |e: crate::literal::LiteralError| c.error_at(start, format!("invalid literal: {e}"));
    if !shape.dynamic_dimensions.contains(&true) {
        return ArrayLiteral::from_bits(shape.clone(), &bits).map_err(invalid);
    }
    // A dynamic value (XLA's form): the values of the logical array, whose sizes give the
    // runtime sizes of the dynamic dimensions.
    // Inside an empty dimension a size cannot be seen: it is the bound.
    let sizes: Vec<i64> = counts
        .iter()
        .zip(&shape.dimensions)
        .map(|(n, &bound)| n.unwrap_or(bound))
        .collect();
    let mut logical = shape.clone();
    logical.dimensions.clone_from(&sizes);
    logical.dynamic_dimensions = vec![false; sizes.len()];
    let logical = ArrayLiteral::from_bits(logical, &bits).map_err(invalid)?;
    ArrayLiteral::embed(&logical, shape.clone()).map_err(invalid)
}

/// `{ ... }` for dimension `dim` and the ones inside it. A static dimension holds exactly its
/// size; a dynamic one (`<=N`) up to `N` elements, the same number in every brace
/// (`counts[dim]`: the runtime size).
fn nested(
    c: &mut Cursor,
    shape: &ArrayShape,
    dim: usize,
    bits: &mut Vec<u128>,
    counts: &mut [Option<i64>],
) -> PResult<()> {
    let open = c.expect(
        &Tok::LBrace,
        &format!("to open dimension {dim} of `{shape}`"),
    )?;
    c.enter(open.start)?;
    let size = shape.dimensions[dim];
    let dynamic = shape.dynamic_dimensions.get(dim) == Some(&true);
    let last = dim + 1 == shape.rank();
    let mut count = 0i64;
    loop {
        let t = c.peek()?;
        if t.tok == Tok::RBrace {
            let expected = if dynamic { counts[dim] } else { Some(size) };
            if expected.is_some_and(|n| n != count) {
                return Err(c.error_at(
                    t.start,
                    format!(
                        "expected {} elements in dimension {dim} of `{shape}`, found {count}",
                        expected.unwrap_or(size)
                    ),
                ));
            }
            counts[dim] = Some(count);
            c.pos = t.end;
            break;
        }
        if count > 0 {
            let comma = c.next()?;
            if comma.tok != Tok::Comma {
                return Err(c.unexpected(&comma, "`,` or `}` between elements"));
            }
        }
        if count == size {
            let t = c.peek()?;
            return Err(c.error_at(
                t.start,
                format!("too many elements in dimension {dim} of `{shape}` (expected {size})"),
            ));
        }
        if last {
            bits.push(element(c, shape.element_type)?);
        } else {
            nested(c, shape, dim + 1, bits, counts)?;
        }
        count += 1;
    }
    c.leave();
    Ok(())
}

/// One element's bits (see [`crate::literal::format_element`] for the printed forms).
pub(crate) fn element(c: &mut Cursor, ty: ElementType) -> PResult<u128> {
    if ty.is_pred() {
        let t = c.next()?;
        return match &t.tok {
            Tok::Ident(s) if s == "true" => Ok(1),
            Tok::Ident(s) if s == "false" => Ok(0),
            // XLA prints pred arrays as 1 and 0.
            Tok::Int(v @ (0 | 1)) => Ok(*v as u128),
            _ => Err(c.unexpected(&t, "`true` or `false` for a pred element")),
        };
    }
    if let Some((lo, hi)) = ty.integer_range() {
        let t = c.next()?;
        let Tok::Int(v) = t.tok else {
            return Err(c.unexpected(&t, &format!("an integer for a {ty} element")));
        };
        if v < lo || v > hi {
            return Err(c.error_at(
                t.start,
                format!("{v} is out of range for {ty} ([{lo}, {hi}])"),
            ));
        }
        return Ok(ty.integer_to_bits(v).unwrap_or(0) as u128);
    }
    let Some(f) = ty.float_format() else {
        let t = c.peek()?;
        return Err(c.unexpected(&t, &format!("a value of type {ty}")));
    };
    if ty.is_complex() {
        c.expect(&Tok::LParen, &format!("to open a {ty} element `(re, im)`"))?;
        let re = float(c, f)?;
        c.expect(&Tok::Comma, "between the real and imaginary parts")?;
        let im = float(c, f)?;
        c.expect(&Tok::RParen, "to close a complex element")?;
        return Ok(complex_bits(f, re, im));
    }
    Ok(float(c, f)? as u128)
}

/// A real floating-point value in format `f`: a decimal, `inf`, `nan` or `nan(0xPAYLOAD)`, signed.
fn float(c: &mut Cursor, f: FloatFormat) -> PResult<u64> {
    let t = c.next()?;
    let x = match &t.tok {
        Tok::Int(v) => {
            let text = &c.src[t.start..t.end];
            text.parse::<f64>().unwrap_or(*v as f64)
        }
        Tok::Float(text) => text
            .parse::<f64>()
            .map_err(|_| c.error_at(t.start, format!("malformed number `{text}`")))?,
        Tok::Ident(_) => return special(c, f, false, t.start, &t.tok),
        Tok::Minus => {
            let u = c.next()?;
            if u.start != t.end {
                return Err(c.unexpected(&u, "`inf` or `nan` directly after `-`"));
            }
            return special(c, f, true, u.start, &u.tok);
        }
        _ => return Err(c.unexpected(&t, "a floating-point value")),
    };
    Ok(f.encode(x))
}

/// `inf` / `nan` / `nan(0xP)` after an optional `-`.
fn special(c: &mut Cursor, f: FloatFormat, negative: bool, at: usize, tok: &Tok) -> PResult<u64> {
    // Negation (not multiplication by -1, which need not keep a NaN's sign) sets the sign bit.
    let signed = |x: f64| if negative { -x } else { x };
    match tok {
        Tok::Ident(s) if s == "inf" => Ok(f.encode(signed(f64::INFINITY))),
        Tok::Ident(s) if s == "nan" => {
            if !c.char_at_is(c.pos, b'(') {
                return Ok(f.encode(signed(f64::NAN)));
            }
            c.expect(&Tok::LParen, "after `nan`")?;
            let (payload, pat) = c.int("a NaN payload such as `0x1`")?;
            c.expect(&Tok::RParen, "after the NaN payload")?;
            let mantissa_mask = (1i128 << f.mantissa_bits) - 1;
            if payload <= 0 || payload > mantissa_mask {
                return Err(c.error_at(
                    pat,
                    format!(
                        "NaN payload {payload:#x} does not fit the {} mantissa bits",
                        f.mantissa_bits
                    ),
                ));
            }
            let exponent = ((1u64 << f.exponent_bits) - 1) << f.mantissa_bits;
            let sign_bit = if negative {
                1u64 << (f.exponent_bits + f.mantissa_bits)
            } else {
                0
            };
            let bits = sign_bit | exponent | payload as u64;
            if f.classify(bits) != FloatClass::Nan {
                return Err(c.error_at(
                    at,
                    format!("nan({payload:#x}) is not a NaN encoding of this format"),
                ));
            }
            Ok(bits)
        }
        _ => Err(c.error_at(
            at,
            format!("expected a floating-point value, found {}", tok.describe()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::element_type::ElementType;
    use crate::hlo::parse_literal;
    use crate::layout::Layout;
    use crate::literal::{ArrayLiteral, Literal};
    use crate::shape::ArrayShape;

    fn lit(text: &str) -> Literal {
        parse_literal(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn f32s(dims: Vec<i64>, v: &[f64]) -> Literal {
        ArrayLiteral::from_f64s(ArrayShape::new(ElementType::F32, dims), v)
            .unwrap()
            .into()
    }

    #[test]
    fn arrays_in_row_major_nesting() {
        let l = lit("f32[2,3] {{1, 2.5, 3}, {4, 5, 6}}");
        assert_eq!(l, f32s(vec![2, 3], &[1., 2.5, 3., 4., 5., 6.]));
        // With a column-major layout the values are still given in logical order.
        let l = lit("f32[2,3]{0,1} {{1, 2.5, 3}, {4, 5, 6}}");
        let a = l.as_array().unwrap();
        assert_eq!(a.shape().layout, Layout::new(vec![0, 1]));
        assert_eq!(a.to_f64s().unwrap(), vec![1., 2.5, 3., 4., 5., 6.]);
        assert_eq!(a.get_bits_linear(1), 4f32.to_bits() as u128);
        assert_eq!(lit("f32[0] {}").as_array().unwrap().dimensions(), &[0]);
        assert_eq!(
            lit("f32[2,0] {{}, {}}").as_array().unwrap().dimensions(),
            &[2, 0]
        );
    }

    #[test]
    fn scalars_integers_preds_complex() {
        assert_eq!(
            lit("s32[] -7").as_array().unwrap().to_i128s().unwrap(),
            vec![-7]
        );
        assert_eq!(
            lit("u8[3] {0x10, 255, 0}")
                .as_array()
                .unwrap()
                .to_i128s()
                .unwrap(),
            vec![16, 255, 0]
        );
        assert_eq!(
            lit("s64[2] {-9223372036854775808, 9223372036854775807}")
                .as_array()
                .unwrap()
                .to_i128s()
                .unwrap(),
            vec![i64::MIN as i128, i64::MAX as i128]
        );
        assert_eq!(
            lit("u64[] 18446744073709551615")
                .as_array()
                .unwrap()
                .to_i128s()
                .unwrap(),
            vec![u64::MAX as i128]
        );
        assert_eq!(
            lit("pred[2] {true, false}")
                .as_array()
                .unwrap()
                .to_i128s()
                .unwrap(),
            vec![1, 0]
        );
        let c = lit("c64[2] {(1, 2), (3, -4)}");
        let expected = ArrayLiteral::from_complex(
            ArrayShape::new(ElementType::C64, vec![2]),
            &[(1., 2.), (3., -4.)],
        )
        .unwrap();
        assert_eq!(c, Literal::Array(expected));
        let c = lit("c128[] (-inf, nan)");
        assert_eq!(c.to_string(), "c128[] (-inf, nan)");
    }

    #[test]
    fn specials_and_payloads() {
        let l = lit("f32[6] {inf, -inf, nan, -nan, nan(0x1), -0}");
        let bits = l.as_array().unwrap().logical_bits();
        assert_eq!(
            bits,
            vec![
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7f80_0001,
                0x8000_0000
            ]
        );
        let l = lit("bf16[] -nan(0x3)");
        assert_eq!(l.as_array().unwrap().logical_bits(), vec![0xff83]);
        // f8e4m3fn has one NaN per sign; no infinity (inf rounds to NaN, as FloatFormat::encode does).
        let l = lit("f8e4m3fn[3] {nan, -nan, nan(0x7)}");
        assert_eq!(l.as_array().unwrap().logical_bits(), vec![0x7f, 0xff, 0x7f]);
        // Decimal → nearest f64 → nearest in the format.
        assert_eq!(
            lit("f16[] 0.1").as_array().unwrap().logical_bits(),
            vec![0x2e66]
        );
        assert_eq!(
            lit("f32[] 1e-45").as_array().unwrap().logical_bits(),
            vec![1]
        );
    }

    #[test]
    fn tuples_in_both_forms() {
        let l = lit("(f32[], s32[2]) (1.5, {1, 2})");
        let Literal::Tuple(t) = &l else { panic!() };
        assert_eq!(t.len(), 2);
        assert_eq!(t[0], f32s(vec![], &[1.5]));
        // Literal's Display writes a shape before each element; that form reads back too.
        assert_eq!(lit(&l.to_string()), l);
        assert_eq!(l.to_string(), "(f32[] 1.5, s32[2] {1, 2})");
        assert_eq!(lit("() ()"), Literal::Tuple(vec![]));
        assert_eq!(lit("token"), Literal::Token);
    }

    #[test]
    fn malformed_literals_name_the_position() {
        let cases = [
            ("f32[2] {1, 2, 3}", (1, 15), "too many elements"),
            (
                "f32[2,2] {{1, 2}, {3}}",
                (1, 21),
                "expected 2 elements in dimension 1",
            ),
            ("s8[] 128", (1, 6), "out of range for s8"),
            ("u8[] -1", (1, 6), "out of range for u8"),
            ("s32[] 1.5", (1, 7), "expected an integer for a s32 element"),
            ("pred[] 2", (1, 8), "`true` or `false`"),
            (
                "f32[] nan(0x800000)",
                (1, 11),
                "does not fit the 23 mantissa bits",
            ),
            ("f8e4m3fn[] nan(0x1)", (1, 12), "not a NaN encoding"),
            ("f8e4m3fnuz[] -nan(0x7)", (1, 15), "not a NaN encoding"),
            ("f32[] - inf", (1, 9), "directly after `-`"),
            ("c64[] 1", (1, 7), "expected `(` to open a c64 element"),
            (
                "(f32[], s32[] 1) (1, 2)",
                (1, 9),
                "either all element shapes first",
            ),
            ("f32[1000000,1000000] {1}", (1, 22), "larger than"),
            ("f32[2]{0:P(100000000000)} {1, 2}", (1, 27), "larger than"),
            ("f32[2] {...}", (1, 8), "elided constant"),
        ];
        for (text, (line, column), msg) in cases {
            let e = parse_literal(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, column), "{text}: {e}");
            assert!(e.message.contains(msg), "{text}: {e}");
        }
    }
}
