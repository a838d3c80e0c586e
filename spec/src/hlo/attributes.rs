//! Attribute values: typed for the names the IR interprets, verbatim ([`AttrValue::Raw`]) for the rest.

use super::contraction_numbers::{parse_dim_labels, parse_window};
use super::cursor::{Cursor, PResult};
use super::ir::{AttrValue, PaddingDim, SliceDim};
use super::lexer::{scan_string, Tok};

/// The value type of an attribute the IR interprets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// `{1,0}`
    Ints,
    /// `5`
    Int,
    /// `true` / `false`
    Bool,
    /// One of a fixed set of enumerators.
    Enum(&'static [&'static str]),
    /// `%name`
    Computation,
    /// `{%a, %b}`
    Computations,
    /// `"text"`
    Str,
    /// `"text"` when quoted, otherwise kept verbatim (`backend_config`).
    StrOrRaw,
    /// `{[0:2], [1:5:2]}` (`slice`).
    Slice,
    /// `0_0x1_2_1` (`padding` of `pad`).
    Padding,
    /// `{size=3x3 stride=2x1 pad=1_1x0_-1 ...}` (`window`).
    Window,
    /// A floating-point number such as `0.001` or `1e-05` (`epsilon` of the batch-norm
    /// operations), checked and kept as its text ([`AttrValue::Raw`]) so that printing is lossless.
    Float,
    /// `b01f_01io->b01f` (`dim_labels`).
    DimLabels,
}

/// Comparison directions of `compare` (seed 004, element-wise comparison operations).
pub const DIRECTIONS: &[&str] = &["EQ", "NE", "GE", "GT", "LE", "LT"];
/// Comparison types of `compare` (`type=`).
pub const COMPARISON_TYPES: &[&str] = &["FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"];
/// Distributions of `rng`.
pub const DISTRIBUTIONS: &[&str] = &["rng_uniform", "rng_normal"];
/// FFT types of `fft`.
pub const FFT_TYPES: &[&str] = &["FFT", "IFFT", "RFFT", "IRFFT"];
/// `transpose_a` of `triangular-solve` (seed 004, TriangularSolve): op(a) = a, aᵀ or aᴴ.
pub const TRANSPOSE_TYPES: &[&str] = &["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"];

/// The value type of attribute `name`, or `None` when the IR keeps it verbatim.
pub fn attr_kind(name: &str) -> Option<AttrKind> {
    Some(match name {
        "dimensions"
        | "broadcast_dimensions"
        | "lhs_batch_dims"
        | "lhs_contracting_dims"
        | "rhs_batch_dims"
        | "rhs_contracting_dims"
        | "offset_dims"
        | "collapsed_slice_dims"
        | "start_index_map"
        | "slice_sizes"
        | "update_window_dims"
        | "inserted_window_dims"
        | "scatter_dims_to_operand_dims"
        | "dynamic_slice_sizes"
        | "fft_length" => AttrKind::Ints,
        "iota_dimension"
        | "index"
        | "exponent_bits"
        | "mantissa_bits"
        | "index_vector_dim"
        | "feature_group_count"
        | "batch_group_count"
        | "dimension"
        | "feature_index"
        | "k"
        | "channel_id" => AttrKind::Int,
        "indices_are_sorted"
        | "unique_indices"
        | "is_stable"
        | "largest"
        | "lower"
        | "left_side"
        | "unit_diagonal"
        | "use_global_device_ids"
        | "constrain_layout"
        | "is_host_transfer" => AttrKind::Bool,
        "epsilon" => AttrKind::Float,
        "direction" => AttrKind::Enum(DIRECTIONS),
        "type" => AttrKind::Enum(COMPARISON_TYPES),
        "distribution" => AttrKind::Enum(DISTRIBUTIONS),
        "fft_type" => AttrKind::Enum(FFT_TYPES),
        "transpose_a" => AttrKind::Enum(TRANSPOSE_TYPES),
        "to_apply" | "calls" | "condition" | "body" | "select" | "scatter" | "true_computation"
        | "false_computation" => AttrKind::Computation,
        "branch_computations" | "called_computations" => AttrKind::Computations,
        "custom_call_target" => AttrKind::Str,
        "backend_config" => AttrKind::StrOrRaw,
        "slice" => AttrKind::Slice,
        "padding" => AttrKind::Padding,
        "window" => AttrKind::Window,
        "dim_labels" => AttrKind::DimLabels,
        _ => return None,
    })
}

/// A reference to a computation by name, at a byte offset of the source.
pub(crate) type ComputationRef = (String, usize);

/// Parses the value of attribute `name` (the cursor is after the `=`). Computation references are
/// appended to `refs` with their positions, for resolution once the whole module is read.
///
/// Errors: a value of the wrong type for a known attribute (at the value), an unknown enumerator,
/// or an unbalanced verbatim value.
pub(crate) fn attribute_value(
    c: &mut Cursor,
    name: &str,
    refs: &mut Vec<ComputationRef>,
) -> PResult<AttrValue> {
    let Some(kind) = attr_kind(name) else {
        return raw_value(c, name).map(AttrValue::Raw);
    };
    let t = c.peek()?;
    let wrong = |c: &Cursor, expected: &str| {
        c.error_at(
            t.start,
            format!(
                "attribute `{name}` expects {expected}, found {}",
                t.tok.describe()
            ),
        )
    };
    match kind {
        AttrKind::Ints => {
            if t.tok != Tok::LBrace {
                return Err(wrong(c, "a list of integers such as `{1,0}`"));
            }
            c.int_list("a list of integers").map(AttrValue::Ints)
        }
        AttrKind::Int => match t.tok {
            Tok::Int(_) => Ok(AttrValue::Int(c.int64("an integer")?.0)),
            _ => Err(wrong(c, "an integer")),
        },
        AttrKind::Bool => match &t.tok {
            Tok::Ident(s) if s == "true" || s == "false" => {
                c.pos = t.end;
                Ok(AttrValue::Bool(s == "true"))
            }
            _ => Err(wrong(c, "`true` or `false`")),
        },
        AttrKind::Enum(allowed) => match &t.tok {
            Tok::Ident(s) if allowed.contains(&s.as_str()) => {
                c.pos = t.end;
                Ok(AttrValue::Enum(s.clone()))
            }
            _ => Err(wrong(c, &format!("one of {}", allowed.join(", ")))),
        },
        AttrKind::Computation => match &t.tok {
            Tok::Name(s) | Tok::Ident(s) => {
                c.pos = t.end;
                refs.push((s.clone(), t.start));
                Ok(AttrValue::Computation(s.clone()))
            }
            _ => Err(wrong(c, "a computation name such as `%add`")),
        },
        AttrKind::Computations => {
            if t.tok != Tok::LBrace {
                return Err(wrong(c, "a list of computation names such as `{%a, %b}`"));
            }
            c.pos = t.end;
            let mut names = Vec::new();
            if !c.eat(&Tok::RBrace)? {
                loop {
                    let (n, at) = c.name("a computation name")?;
                    refs.push((n.clone(), at));
                    names.push(n);
                    let t = c.next()?;
                    match t.tok {
                        Tok::Comma => {}
                        Tok::RBrace => break,
                        _ => return Err(c.unexpected(&t, "`,` or `}` in computation list")),
                    }
                }
            }
            Ok(AttrValue::Computations(names))
        }
        AttrKind::Str => match &t.tok {
            Tok::Str(s) => {
                c.pos = t.end;
                Ok(AttrValue::Str(s.clone()))
            }
            _ => Err(wrong(c, "a quoted string")),
        },
        AttrKind::StrOrRaw => match &t.tok {
            Tok::Str(s) => {
                c.pos = t.end;
                Ok(AttrValue::Str(s.clone()))
            }
            _ => raw_value(c, name).map(AttrValue::Raw),
        },
        AttrKind::Slice => {
            let text = raw_value(c, name)?;
            slice_dims(&text).map(AttrValue::Slice).map_err(|m| {
                c.error_at(
                    t.start,
                    format!("attribute `slice` expects `{{[start:limit:stride], ...}}`: {m}"),
                )
            })
        }
        AttrKind::Padding => {
            let text = raw_value(c, name)?;
            padding_dims(&text).map(AttrValue::Padding).map_err(|m| {
                c.error_at(
                    t.start,
                    format!("attribute `{name}` expects `low_high[_interior]` per dimension joined by `x`, such as `0_0x1_2_1`: {m}"),
                )
            })
        }
        AttrKind::Window => {
            if t.tok != Tok::LBrace {
                return Err(wrong(
                    c,
                    "a window such as `{size=3x3 stride=2x1 pad=1_1x0_0}`",
                ));
            }
            raw_value(c, name)?;
            // Parse the source text itself (not the whitespace-normalized copy) so that error
            // offsets point into the source.
            let text = &c.src[t.start..c.pos];
            parse_window(text).map(AttrValue::Window).map_err(|(at, m)| {
                c.error_at(
                    t.start + at,
                    format!("attribute `{name}` expects a window such as `{{size=3x3 stride=2x1 pad=1_1x0_0}}`: {m}"),
                )
            })
        }
        AttrKind::Float => {
            let text = raw_value(c, name)?;
            match text.parse::<f64>() {
                Ok(_) => Ok(AttrValue::Raw(text)),
                Err(_) => Err(c.error_at(
                    t.start,
                    format!("attribute `{name}` expects a floating-point number such as `0.001`, found `{text}`"),
                )),
            }
        }
        AttrKind::DimLabels => {
            raw_value(c, name)?;
            let text = &c.src[t.start..c.pos];
            parse_dim_labels(text)
                .map(AttrValue::DimLabels)
                .map_err(|(at, m)| {
                    c.error_at(
                        t.start + at,
                        format!("attribute `{name}` expects labels such as `b01f_01io->b01f`: {m}"),
                    )
                })
        }
    }
}

fn int(text: &str, what: &str) -> Result<i64, String> {
    text.trim()
        .parse::<i64>()
        .map_err(|_| format!("`{}` is not an integer ({what})", text.trim()))
}

/// `{[0:2], [1:5:2]}` → slice dimensions (stride 1 when omitted); `{}` for rank 0.
fn slice_dims(text: &str) -> Result<Vec<SliceDim>, String> {
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or("missing `{ }`")?
        .trim();
    if inner.is_empty() {
        return Ok(vec![]);
    }
    inner
        .split(',')
        .map(|part| {
            let part = part.trim();
            let body = part
                .strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .ok_or_else(|| {
                    format!("`{part}` is not `[start:limit]` or `[start:limit:stride]`")
                })?;
            let fields: Vec<&str> = body.split(':').collect();
            let (start, limit, stride) = match fields.as_slice() {
                [a, b] => (int(a, "start")?, int(b, "limit")?, 1),
                [a, b, s] => (int(a, "start")?, int(b, "limit")?, int(s, "stride")?),
                _ => {
                    return Err(format!(
                        "`{part}` has {} fields, expected 2 or 3",
                        fields.len()
                    ))
                }
            };
            Ok(SliceDim {
                start,
                limit,
                stride,
            })
        })
        .collect()
}

/// `0_0x1_2_1` → padding dimensions (interior 0 when omitted); empty text is not allowed, rank 0
/// pads are written `padding={}`.
fn padding_dims(text: &str) -> Result<Vec<PaddingDim>, String> {
    let text = text.trim();
    if text == "{}" {
        return Ok(vec![]);
    }
    text.split('x')
        .map(|part| {
            let fields: Vec<&str> = part.split('_').collect();
            let (low, high, interior) = match fields.as_slice() {
                [l, h] => (int(l, "low")?, int(h, "high")?, 0),
                [l, h, i] => (int(l, "low")?, int(h, "high")?, int(i, "interior")?),
                _ => {
                    return Err(format!(
                        "`{part}` has {} fields, expected 2 or 3",
                        fields.len()
                    ))
                }
            };
            Ok(PaddingDim {
                low,
                high,
                interior,
            })
        })
        .collect()
}

/// Scans a value kept verbatim: a run of characters and balanced `{}`, `[]`, `()` groups and
/// strings, ending at a top-level `,`, whitespace or unmatched closer. Whitespace runs inside
/// groups (outside strings) are normalized to one space.
///
/// Errors: an empty value, an unclosed group (at its opener) or a mismatched closer.
pub(crate) fn raw_value(c: &mut Cursor, name: &str) -> PResult<String> {
    let b = c.src.as_bytes();
    while c.pos < b.len() && b[c.pos].is_ascii_whitespace() {
        c.pos += 1;
    }
    let start = c.pos;
    let mut out = String::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    loop {
        let Some(&ch) = b.get(c.pos) else {
            if let Some(&(_, open)) = stack.last() {
                return Err(c.error_at(
                    open,
                    format!("unclosed `{}` in the value of `{name}`", b[open] as char),
                ));
            }
            break;
        };
        if stack.is_empty() && (ch.is_ascii_whitespace() || matches!(ch, b',' | b')' | b'}' | b']'))
        {
            break;
        }
        match ch {
            b'"' => {
                let (_, end) = scan_string(c.src, c.pos)?;
                out.push_str(&c.src[c.pos..end]);
                c.pos = end;
                continue;
            }
            b'{' => stack.push((b'}', c.pos)),
            b'[' => stack.push((b']', c.pos)),
            b'(' => stack.push((b')', c.pos)),
            b'}' | b']' | b')' => match stack.pop() {
                Some((close, _)) if close == ch => {}
                Some((close, open)) => {
                    return Err(c.error_at(
                        c.pos,
                        format!(
                            "expected `{}` to close the `{}` at {}, found `{}`",
                            close as char,
                            b[open] as char,
                            position(c, open),
                            ch as char
                        ),
                    ))
                }
                None => break, // not reached: a top-level closer ends the value above
            },
            w if w.is_ascii_whitespace() => {
                while b.get(c.pos).is_some_and(u8::is_ascii_whitespace) {
                    c.pos += 1;
                }
                out.push(' ');
                continue;
            }
            _ => {}
        }
        let len = c.src[c.pos..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&c.src[c.pos..c.pos + len]);
        c.pos += len;
    }
    if out.is_empty() {
        let t = c.peek()?;
        return Err(c.error_at(
            start,
            format!(
                "expected a value for attribute `{name}`, found {}",
                t.tok.describe()
            ),
        ));
    }
    Ok(out)
}

fn position(c: &Cursor, offset: usize) -> String {
    let (line, column) = super::error::line_col(c.src, offset);
    format!("{line}:{column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(name: &str, text: &str) -> PResult<(AttrValue, usize)> {
        let mut c = Cursor::new(text);
        let mut refs = Vec::new();
        let v = attribute_value(&mut c, name, &mut refs)?;
        Ok((v, c.pos))
    }

    #[test]
    fn typed_values() {
        assert_eq!(
            value("dimensions", "{1,0}").unwrap().0,
            AttrValue::Ints(vec![1, 0])
        );
        assert_eq!(
            value("dimensions", "{}").unwrap().0,
            AttrValue::Ints(vec![])
        );
        assert_eq!(value("index", "3").unwrap().0, AttrValue::Int(3));
        assert_eq!(value("is_stable", "true").unwrap().0, AttrValue::Bool(true));
        assert_eq!(
            value("direction", "LT").unwrap().0,
            AttrValue::Enum("LT".into())
        );
        assert_eq!(
            value("type", "TOTALORDER").unwrap().0,
            AttrValue::Enum("TOTALORDER".into())
        );
        assert_eq!(
            value("to_apply", "%add.1").unwrap().0,
            AttrValue::Computation("add.1".into())
        );
        assert_eq!(
            value("branch_computations", "{%a, b}").unwrap().0,
            AttrValue::Computations(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            value("custom_call_target", "\"x\\\"y\"").unwrap().0,
            AttrValue::Str("x\"y".into())
        );
        assert_eq!(
            value("backend_config", "\"{}\"").unwrap().0,
            AttrValue::Str("{}".into())
        );
        assert_eq!(
            value("backend_config", "{\"a\":1}").unwrap().0,
            AttrValue::Raw("{\"a\":1}".into())
        );
    }

    #[test]
    fn slice_and_padding_are_typed_and_print_back() {
        let (v, _) = value("slice", "{[0:2], [1:5:2]}").unwrap();
        let d = |start, limit, stride| SliceDim {
            start,
            limit,
            stride,
        };
        assert_eq!(v, AttrValue::Slice(vec![d(0, 2, 1), d(1, 5, 2)]));
        assert_eq!(v.to_string(), "{[0:2], [1:5:2]}");
        assert_eq!(value("slice", "{}").unwrap().0, AttrValue::Slice(vec![]));
        let (v, _) = value("padding", "0_0x-1_2_3").unwrap();
        let p = |low, high, interior| PaddingDim {
            low,
            high,
            interior,
        };
        assert_eq!(v, AttrValue::Padding(vec![p(0, 0, 0), p(-1, 2, 3)]));
        assert_eq!(v.to_string(), "0_0x-1_2_3");
        for (name, bad) in [
            ("slice", "{[0:2:1:4]}"),
            ("slice", "{[a:2]}"),
            ("slice", "{0:2}"),
            ("padding", "0_0_0_0"),
            ("padding", "1x2"),
            ("padding", "0_zx1_1"),
        ] {
            let e = value(name, bad).unwrap_err().to_string();
            assert!(
                e.contains(&format!("attribute `{name}` expects")),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn wrong_types_are_errors_at_the_value() {
        let cases = [
            ("dimensions", "3", "expects a list of integers"),
            ("index", "{1}", "expects an integer"),
            ("is_stable", "1", "expects `true` or `false`"),
            ("direction", "LESS", "expects one of EQ, NE, GE, GT, LE, LT"),
            ("type", "\"FLOAT\"", "expects one of FLOAT"),
            ("to_apply", "{%a}", "expects a computation name"),
            ("custom_call_target", "foo", "expects a quoted string"),
        ];
        for (name, text, msg) in cases {
            let e = value(name, text).unwrap_err();
            assert_eq!((e.line, e.column), (1, 1), "{name}={text}");
            assert!(e.message.contains(msg), "{name}={text}: {e}");
            assert!(e.message.contains(name), "{e}");
        }
    }

    #[test]
    fn raw_values_are_verbatim_and_balanced() {
        let cases = [
            (
                "metadata={op_name=\"jit(f)/mul\" source_file=\"/t/a, b.py\" source_line=3}, x",
                "{op_name=\"jit(f)/mul\" source_file=\"/t/a, b.py\" source_line=3}",
            ),
            ("slice={[0:2:1], [1:3]}\n", "{[0:2:1], [1:3]}"),
            ("padding=0_0x1_1, next", "0_0x1_1"),
            ("window={size=3 stride=2}", "{size=3 stride=2}"),
            ("dim_labels=b01f_01io->b01f\n", "b01f_01io->b01f"),
            ("sharding={replicated}}", "{replicated}"),
            ("frontend_attributes={a=\"}\",b={{}}}", "{a=\"}\",b={{}}}"),
            (
                "statistics={visualizing_index=1,stat-index-0=0.5}",
                "{visualizing_index=1,stat-index-0=0.5}",
            ),
            ("origin={{\"v\"}\n   {\"w\"}}", "{{\"v\"} {\"w\"}}"),
        ];
        for (text, expected) in cases {
            let eq = text.find('=').unwrap();
            let mut c = Cursor::new(text);
            c.pos = eq + 1;
            let v = raw_value(&mut c, &text[..eq]).unwrap();
            assert_eq!(v, expected, "{text}");
        }
        let mut c = Cursor::new("x={a, (b}");
        c.pos = 2;
        let e = raw_value(&mut c, "x").unwrap_err();
        assert_eq!((e.line, e.column), (1, 9));
        let mut c = Cursor::new("x={a\n");
        c.pos = 2;
        let e = raw_value(&mut c, "x").unwrap_err();
        assert_eq!((e.line, e.column), (1, 3));
        assert!(e.message.contains("unclosed `{`"));
        let mut c = Cursor::new("x=, y");
        c.pos = 2;
        let e = raw_value(&mut c, "x").unwrap_err();
        assert_eq!((e.line, e.column), (1, 3));
        assert!(e.message.contains("expected a value for attribute `x`"));
    }
}
