//! Shapes and layouts in HLO text (seed 000): `f32[2,3]{1,0}`, `pred[]`, `(f32[2]{0}, s32[])`,
//! `token[]`, dynamic bounds `f32[<=4]`, and layouts with a `:` section.
//!
//! In the `:` section of a layout, our padding extension `P(3,5)` (padded_dimensions) and
//! `V(ZERO_PAD)` (padding_value) are read (see `Layout`'s Display); XLA's other items — tiling
//! `T(8,128)(2,1)`, memory space `S(1)`, element size `E(4)`, index types `L(..)`, dimension level
//! types `D(..)` and the like — are accepted and dropped, since the IR's layout has no place for them.

use super::cursor::{Cursor, PResult};
use super::lexer::Tok;
use crate::element_type::ElementType;
use crate::layout::{Layout, PaddingValue};
use crate::shape::{ArrayShape, Shape};

/// True when the token at the cursor starts a shape: `(`, or an element type (or `token`)
/// immediately followed by `[`.
pub(crate) fn starts_shape(c: &mut Cursor) -> PResult<bool> {
    let t = c.peek()?;
    Ok(match &t.tok {
        Tok::LParen => true,
        Tok::Ident(s) => {
            (s == "token" || ElementType::from_hlo_name(s).is_some()) && c.char_at_is(t.end, b'[')
        }
        _ => false,
    })
}

/// Parses a shape at the cursor.
///
/// Errors: anything that is not a shape, a dimension that is negative or beyond 64 bits, a layout
/// that does not fit the dimensions (`Shape::validate`), or an element count beyond `i64`.
pub(crate) fn shape(c: &mut Cursor) -> PResult<Shape> {
    let t = c.peek()?;
    match &t.tok {
        Tok::LParen => {
            c.enter(t.start)?;
            c.pos = t.end;
            let mut elements = Vec::new();
            if !c.eat(&Tok::RParen)? {
                loop {
                    elements.push(shape(c)?);
                    let t = c.next()?;
                    match t.tok {
                        Tok::Comma => {}
                        Tok::RParen => break,
                        _ => return Err(c.unexpected(&t, "`,` or `)` in tuple shape")),
                    }
                }
            }
            c.leave();
            Ok(Shape::Tuple(elements))
        }
        Tok::Ident(s) if s == "token" => {
            c.pos = t.end;
            c.expect(&Tok::LBracket, "after `token`")?;
            c.expect(&Tok::RBracket, "in `token[]`")?;
            Ok(Shape::Token)
        }
        Tok::Ident(s) => match ElementType::from_hlo_name(s) {
            Some(ty) => {
                c.pos = t.end;
                array_shape(c, ty, t.start).map(Shape::Array)
            }
            None => Err(c.error_at(
                t.start,
                format!("expected a shape, found unknown element type `{s}`"),
            )),
        },
        _ => Err(c.unexpected(&t, "a shape")),
    }
}

/// The dimensions and optional layout after an element type name.
fn array_shape(c: &mut Cursor, ty: ElementType, start: usize) -> PResult<ArrayShape> {
    c.expect(&Tok::LBracket, &format!("after element type `{ty}`"))?;
    let mut dimensions = Vec::new();
    let mut dynamic = Vec::new();
    if !c.eat(&Tok::RBracket)? {
        loop {
            let is_dynamic = c.eat(&Tok::Le)?;
            let (d, at) = c.int64("a dimension size")?;
            if d < 0 {
                return Err(c.error_at(at, format!("dimension size {d} is negative")));
            }
            dimensions.push(d);
            dynamic.push(is_dynamic);
            let t = c.next()?;
            match t.tok {
                Tok::Comma => {}
                Tok::RBracket => break,
                _ => return Err(c.unexpected(&t, "`,` or `]` in dimensions")),
            }
        }
    }
    let mut shape = ArrayShape::new(ty, dimensions);
    shape.dynamic_dimensions = dynamic;
    // A layout is written directly after `]`; `f32[2] {1, 2}` (with a space) is a literal's values.
    if c.char_at_is(c.pos, b'{') {
        shape.layout = layout(c)?;
    }
    if let Err(e) = shape.validate() {
        return Err(c.error_at(start, format!("invalid shape `{shape}`: {e}")));
    }
    check_size(c, &shape, start)?;
    Ok(shape)
}

/// Rejects shapes whose element count (logical or padded) overflows `i64`.
fn check_size(c: &Cursor, shape: &ArrayShape, start: usize) -> PResult<()> {
    let fits = |dims: &[i64]| {
        dims.iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
            .is_some()
    };
    if fits(&shape.dimensions) && fits(&shape.layout.padded_dimensions) {
        Ok(())
    } else {
        Err(c.error_at(start, "shape has more elements than fit in a 64-bit count"))
    }
}

/// `{minor_to_major[:items]}` at the cursor (which is at the `{`).
fn layout(c: &mut Cursor) -> PResult<Layout> {
    c.expect(&Tok::LBrace, "to open a layout")?;
    let mut minor_to_major = Vec::new();
    let t = c.peek()?;
    match t.tok {
        Tok::RBrace => {
            c.pos = t.end;
            return Ok(Layout::new(minor_to_major));
        }
        Tok::Colon => {}
        _ => loop {
            minor_to_major.push(c.int64("a dimension number in the layout")?.0);
            let t = c.peek()?;
            match t.tok {
                Tok::Comma => c.pos = t.end,
                Tok::RBrace => {
                    c.pos = t.end;
                    return Ok(Layout::new(minor_to_major));
                }
                Tok::Colon => break,
                _ => return Err(c.unexpected(&t, "`,`, `:` or `}` in layout")),
            }
        },
    }
    c.expect(&Tok::Colon, "in layout")?;
    let mut layout = Layout::new(minor_to_major);
    layout_items(c, &mut layout)?;
    Ok(layout)
}

/// The items after `:` up to and including the closing `}`, read character by character.
fn layout_items(c: &mut Cursor, layout: &mut Layout) -> PResult<()> {
    let b = c.src.as_bytes();
    let mut padding_value: Option<(PaddingValue, usize)> = None;
    loop {
        while c.pos < b.len() && (b[c.pos].is_ascii_whitespace() || b[c.pos] == b',') {
            c.pos += 1;
        }
        let item_start = c.pos;
        match b.get(c.pos) {
            None => {
                return Err(c.error_at(
                    c.pos,
                    "expected `}` to close the layout, found end of input",
                ))
            }
            Some(b'}') => {
                c.pos += 1;
                break;
            }
            Some(ch) if ch.is_ascii_alphabetic() || matches!(ch, b'#' | b'_' | b'*') => {}
            Some(_) => {
                let t = c.peek()?;
                return Err(c.unexpected(&t, "a layout item such as `T(8,128)` or `P(3,5)`"));
            }
        }
        while c.pos < b.len()
            && (b[c.pos].is_ascii_alphanumeric() || matches!(b[c.pos], b'#' | b'_' | b'*'))
        {
            c.pos += 1;
        }
        let item = &c.src[item_start..c.pos];
        let mut groups: Vec<(usize, &str)> = Vec::new();
        while c.char_at_is(c.pos, b'(') {
            let open = c.pos;
            let mut depth = 0usize;
            loop {
                match b.get(c.pos) {
                    None => return Err(c.error_at(open, "unclosed `(` in layout")),
                    Some(b'(') => depth += 1,
                    Some(b')') => {
                        depth -= 1;
                        if depth == 0 {
                            c.pos += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                c.pos += 1;
            }
            groups.push((open + 1, &c.src[open + 1..c.pos - 1]));
        }
        match item {
            "P" => {
                let [(at, text)] = groups[..] else {
                    return Err(
                        c.error_at(item_start, "expected one group after `P`, as in `P(3,5)`")
                    );
                };
                let mut dims = Vec::new();
                for part in text.split(',') {
                    let part = part.trim();
                    match part.parse::<i64>() {
                        Ok(d) => dims.push(d),
                        Err(_) => {
                            return Err(c.error_at(
                                at,
                                format!(
                                    "expected padded dimension sizes in `P(...)`, found `{part}`"
                                ),
                            ))
                        }
                    }
                }
                layout.padded_dimensions = dims;
            }
            "V" => {
                let [(at, text)] = groups[..] else {
                    return Err(c.error_at(
                        item_start,
                        "expected one group after `V`, as in `V(ZERO_PAD)`",
                    ));
                };
                let v = PaddingValue::from_proto_name(text.trim()).ok_or_else(|| {
                    c.error_at(
                        at,
                        format!(
                            "unknown padding value `{}` (expected ZERO_PAD, ONE_PAD, LOWEST_PAD, HIGHEST_PAD or UNKNOWN_PAD)",
                            text.trim()
                        ),
                    )
                })?;
                padding_value = Some((v, item_start));
            }
            _ => {} // XLA tiling / memory-space / element-size items: accepted and dropped.
        }
    }
    if let Some((v, at)) = padding_value {
        if !layout.is_padded() {
            return Err(c.error_at(
                at,
                "`V(...)` needs padded dimensions `P(...)` in the same layout",
            ));
        }
        layout.padding_value = v;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_shape;

    #[test]
    fn array_shapes_and_layouts() {
        let s = parse_shape("f32[2,3]{1,0}").unwrap();
        assert_eq!(s, Shape::array(ElementType::F32, vec![2, 3]));
        let s = parse_shape("f32[2,3]").unwrap();
        assert_eq!(s, Shape::array(ElementType::F32, vec![2, 3]));
        let s = parse_shape("bf16[2,3]{0,1}").unwrap();
        assert_eq!(s.as_array().unwrap().layout, Layout::new(vec![0, 1]));
        assert_eq!(
            parse_shape("pred[]").unwrap(),
            Shape::array(ElementType::Pred, vec![])
        );
        assert_eq!(
            parse_shape("pred[0]{0}").unwrap(),
            Shape::array(ElementType::Pred, vec![0])
        );
        assert_eq!(parse_shape("token[]").unwrap(), Shape::Token);
        assert_eq!(parse_shape("()").unwrap(), Shape::Tuple(vec![]));
        let t = parse_shape("(f32[2]{0}, (s32[], token[]))").unwrap();
        assert_eq!(
            t,
            Shape::Tuple(vec![
                Shape::array(ElementType::F32, vec![2]),
                Shape::Tuple(vec![Shape::array(ElementType::S32, vec![]), Shape::Token]),
            ])
        );
    }

    #[test]
    fn dynamic_dimensions() {
        let s = parse_shape("f32[<=4,3]").unwrap();
        let a = s.as_array().unwrap();
        assert_eq!(a.dimensions, vec![4, 3]);
        assert_eq!(a.dynamic_dimensions, vec![true, false]);
        assert_eq!(s.to_string(), "f32[<=4,3]{1,0}");
    }

    #[test]
    fn padded_layouts_round_trip() {
        let text = "f32[2,3]{0,1:P(3,5)V(ZERO_PAD)}";
        let s = parse_shape(text).unwrap();
        let l = &s.as_array().unwrap().layout;
        assert_eq!(l.padded_dimensions, vec![3, 5]);
        assert_eq!(l.padding_value, PaddingValue::Zero);
        assert_eq!(s.to_string(), text);
        let s = parse_shape("s8[4]{0:P(6)}").unwrap();
        assert_eq!(
            s.as_array().unwrap().layout.padding_value,
            PaddingValue::Unknown
        );
        // A padded width below the dimension size is a layout error.
        let e = parse_shape("f32[4,3]{0,1:P(3,5)V(ONE_PAD)}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert!(e.message.contains("smaller than the dimension size"), "{e}");
        let e = parse_shape("f32[4]{0:V(ZERO_PAD)}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 10));
        let e = parse_shape("f32[4]{0:P(4)V(BOGUS)}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 16));
        assert!(e.message.contains("BOGUS"));
    }

    #[test]
    fn xla_tiling_items_are_accepted_and_dropped() {
        let s = parse_shape("f32[8,128]{1,0:T(8,128)(2,1)S(1)E(32)}").unwrap();
        assert_eq!(s, Shape::array(ElementType::F32, vec![8, 128]));
        let s = parse_shape("f32[8,128]{1,0:T(8,128)P(8,256)V(HIGHEST_PAD)S(1)}").unwrap();
        let l = &s.as_array().unwrap().layout;
        assert_eq!(l.padded_dimensions, vec![8, 256]);
        assert_eq!(l.padding_value, PaddingValue::Highest);
    }

    #[test]
    fn malformed_shapes_name_the_position() {
        let cases = [
            (
                "f32[2,3",
                (1, 8),
                "expected `,` or `]` in dimensions, found end of input",
            ),
            ("f32[2,-3]", (1, 7), "dimension size -3 is negative"),
            ("f33[2]", (1, 1), "unknown element type `f33`"),
            ("f32[2]{1}", (1, 1), "not a permutation"),
            (
                "(f32[], s32[]",
                (1, 14),
                "expected `,` or `)` in tuple shape",
            ),
            ("f32[2]{0:T(8", (1, 11), "unclosed `(` in layout"),
            (
                "f32[4294967296,4294967296,4294967296]",
                (1, 1),
                "more elements",
            ),
        ];
        for (text, (line, column), msg) in cases {
            let e = parse_shape(text).unwrap_err();
            assert_eq!((e.line, e.column), (line, column), "{text}: {e}");
            assert!(e.message.contains(msg), "{text}: {e}");
        }
        let deep = "(".repeat(200);
        assert!(parse_shape(&deep).unwrap_err().message.contains("nesting"));
    }
}
