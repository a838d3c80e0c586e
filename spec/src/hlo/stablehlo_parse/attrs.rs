//! Types and attribute values of MLIR text (MLIR LangRef "Builtin types" and "Builtin
//! attributes"; the StableHLO specification for `#stablehlo` attributes).
//!
//! Types: `tensor<4x8xf32>` (static, or with `?` dimensions bounded by
//! `#stablehlo.bounds<...>`), `tuple<...>`, `!stablehlo.token`, function types `(a, b) -> c`,
//! and scalar builtin types (`i64`, `f32`, `complex<f32>`) as attribute types.
//!
//! Attributes are read into [`Attr`], a tree the lowering interprets per operation: numbers,
//! booleans, strings, symbols, `[...]` lists, `{...}` dictionaries, `array<i64: ...>`,
//! `dense<...> : tensor<...>` (kept as written, converted to a literal once the element type is
//! known, see `constants.rs`), enumerators `#stablehlo<comparison_direction LT>`, structured
//! `#stablehlo.gather<k = v, ...>` and `#stablehlo.conv<...>`; any other `#...` is kept
//! verbatim.

use super::lexer::{parse_int, Cursor, PResult, Tok};
use crate::element_type::ElementType;
use crate::hlo::contraction_numbers::ConvolutionDimensionNumbers;
use crate::shape::ArrayShape;

/// A type as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Type {
    /// `tensor<...>`: an array shape (row-major default layout).
    Tensor(ArrayShape),
    /// `tuple<...>`.
    Tuple(Vec<Type>),
    /// `!stablehlo.token`.
    Token,
    /// `(inputs) -> results`.
    Function(Vec<Type>, Vec<Type>),
    /// Any other type, as spelled (`i64`, `f32`, `complex<f32>`, `index`, `!foo.bar`).
    Other(String),
}

impl Type {
    /// The text of the type as MLIR writes it (for messages).
    pub fn describe(&self) -> String {
        match self {
            Type::Tensor(a) => crate::hlo::stablehlo::types::tensor_type(a),
            Type::Tuple(t) => {
                let items: Vec<String> = t.iter().map(Type::describe).collect();
                format!("tuple<{}>", items.join(", "))
            }
            Type::Token => "!stablehlo.token".into(),
            Type::Function(i, r) => {
                let i: Vec<String> = i.iter().map(Type::describe).collect();
                let r: Vec<String> = r.iter().map(Type::describe).collect();
                format!("({}) -> ({})", i.join(", "), r.join(", "))
            }
            Type::Other(s) => s.clone(),
        }
    }
}

/// The element type of an MLIR element type name: `i1` → pred, `i32`/`si32` → s32, `ui8` → u8,
/// `bf16`, `f8E4M3FN` → f8e4m3fn, `complex<f32>` → c64, ...; `None` for types the IR lacks.
pub(crate) fn element_type(name: &str) -> Option<ElementType> {
    use ElementType::*;
    Some(match name {
        "i1" => Pred,
        "i8" | "si8" => S8,
        "i16" | "si16" => S16,
        "i32" | "si32" => S32,
        "i64" | "si64" => S64,
        "ui8" => U8,
        "ui16" => U16,
        "ui32" => U32,
        "ui64" => U64,
        "f16" => F16,
        "bf16" => Bf16,
        "f32" => F32,
        "f64" => F64,
        "complex<f32>" => C64,
        "complex<f64>" => C128,
        "f8E4M3FN" => F8E4M3FN,
        "f8E5M2" => F8E5M2,
        "f8E4M3FNUZ" => F8E4M3FNUZ,
        "f8E5M2FNUZ" => F8E5M2FNUZ,
        "f8E4M3B11FNUZ" => F8E4M3B11FNUZ,
        "f8E4M3" => F8E4M3,
        "f8E3M4" => F8E3M4,
        _ => return None,
    })
}

/// Parses a type.
///
/// Errors: a malformed type; a tensor whose element type the IR lacks (`i4`, `index`, ...),
/// unranked (`tensor<*xf32>`) or with an unbounded dynamic dimension.
pub(crate) fn parse_type(c: &mut Cursor) -> PResult<Type> {
    let t = c.next()?;
    match &t.tok {
        Tok::Ident(s) if s == "tensor" && c.src[t.end..].starts_with('<') => {
            c.pos = t.end + 1;
            c.enter(t.start)?;
            let r = tensor_body(c, t.start);
            c.leave();
            r.map(Type::Tensor)
        }
        Tok::Ident(s) if s == "tuple" && c.src[t.end..].starts_with('<') => {
            c.pos = t.end + 1;
            c.enter(t.start)?;
            let mut items = Vec::new();
            if !c.eat_punct('>')? {
                loop {
                    items.push(parse_type(c)?);
                    if c.eat_punct('>')? {
                        break;
                    }
                    c.expect_punct(',', "or `>` in a tuple type")?;
                }
            }
            c.leave();
            Ok(Type::Tuple(items))
        }
        Tok::Ident(s) if s == "complex" && c.src[t.end..].starts_with('<') => {
            c.pos = t.end + 1;
            let inner = c.next()?;
            let Tok::Ident(e) = &inner.tok else {
                return Err(c.unexpected(&inner, "a floating-point type in `complex<...>`"));
            };
            let e = e.clone();
            c.expect_punct('>', "to close `complex<`")?;
            Ok(Type::Other(format!("complex<{e}>")))
        }
        Tok::Ident(s) => Ok(Type::Other(s.clone())),
        Tok::Bang(s) if s == "stablehlo.token" || s == "mhlo.token" => Ok(Type::Token),
        Tok::Bang(s) => Ok(Type::Other(format!("!{s}"))),
        Tok::Punct('(') => {
            c.enter(t.start)?;
            let inputs = type_list_until_paren(c)?;
            c.expect_arrow("after the input types of a function type")?;
            let results = if c.peek()?.tok == Tok::Punct('(') {
                c.next()?;
                type_list_until_paren(c)?
            } else {
                vec![parse_type(c)?]
            };
            c.leave();
            Ok(Type::Function(inputs, results))
        }
        _ => Err(c.unexpected(&t, "a type")),
    }
}

/// Types separated by commas up to `)` (consumed); the `(` is already consumed.
pub(crate) fn type_list_until_paren(c: &mut Cursor) -> PResult<Vec<Type>> {
    let mut out = Vec::new();
    if c.eat_punct(')')? {
        return Ok(out);
    }
    loop {
        out.push(parse_type(c)?);
        skip_attr_dict(c)?;
        if c.eat_punct(')')? {
            return Ok(out);
        }
        c.expect_punct(',', "or `)` in a type list")?;
    }
}

/// Skips an optional `{...}` attribute dictionary after a type (result attributes such as
/// `{jax.result_info = "..."}`), which carries no meaning for the IR.
pub(crate) fn skip_attr_dict(c: &mut Cursor) -> PResult<()> {
    if c.peek()?.tok == Tok::Punct('{') {
        parse_dict(c)?;
    }
    Ok(())
}

/// The inside of `tensor<...>` after the `<`: dimensions (`4x`, `?x`), the element type, an
/// optional encoding (`, #stablehlo.bounds<4, ?>`), and the closing `>`.
fn tensor_body(c: &mut Cursor, start: usize) -> PResult<ArrayShape> {
    let b = c.src.as_bytes();
    let mut dims: Vec<Option<i64>> = Vec::new();
    loop {
        c.pos = super::lexer::skip_trivia(c.src, c.pos);
        let p = c.pos;
        match b.get(p) {
            Some(b'*') => return Err(c.error_at(p, "unranked tensors have no HLO shape")),
            Some(b'?') if b.get(p + 1) == Some(&b'x') => {
                dims.push(None);
                c.pos = p + 2;
            }
            Some(d) if d.is_ascii_digit() => {
                let mut e = p;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                if b.get(e) != Some(&b'x') {
                    return Err(c.error_at(e, "expected `x` after a tensor dimension"));
                }
                let v: i64 = c.src[p..e]
                    .parse()
                    .map_err(|_| c.error_at(p, "tensor dimension out of range"))?;
                dims.push(Some(v));
                c.pos = e + 1;
            }
            _ => break,
        }
    }
    let et_at = c.peek()?.start;
    let et = match parse_type(c)? {
        // `index` appears only in attributes (a custom call's `operand_layouts =
        // [dense<[0, 1]> : tensor<2xindex>]`): its values are 64-bit integers.
        Type::Other(name) if name == "index" => ElementType::S64,
        Type::Other(name) => element_type(&name).ok_or_else(|| {
            c.error_at(
                et_at,
                format!("element type `{name}` has no counterpart in the IR's element types"),
            )
        })?,
        other => {
            return Err(c.error_at(
                et_at,
                format!("expected an element type, found `{}`", other.describe()),
            ))
        }
    };
    let mut bounds: Option<Vec<Option<i64>>> = None;
    if c.eat_punct(',')? {
        let t = c.next()?;
        match &t.tok {
            Tok::Hash(h) if h == "stablehlo.bounds" || h == "mhlo.bounds" => {
                c.expect_punct('<', "after `#stablehlo.bounds`")?;
                let mut bs = Vec::new();
                if !c.eat_punct('>')? {
                    loop {
                        if c.eat_punct('?')? {
                            bs.push(None);
                        } else {
                            bs.push(Some(c.i64("a bound or `?`")?));
                        }
                        if c.eat_punct('>')? {
                            break;
                        }
                        c.expect_punct(',', "or `>` in `#stablehlo.bounds<...>`")?;
                    }
                }
                bounds = Some(bs);
            }
            _ => return Err(c.unexpected(&t, "`#stablehlo.bounds<...>` as the tensor encoding")),
        }
    }
    c.expect_punct('>', "to close `tensor<`")?;
    let mut shape_dims = Vec::with_capacity(dims.len());
    let mut dynamic = Vec::with_capacity(dims.len());
    for (k, d) in dims.iter().enumerate() {
        match d {
            Some(v) => {
                shape_dims.push(*v);
                dynamic.push(false);
            }
            None => {
                let bound = bounds
                    .as_ref()
                    .and_then(|b| b.get(k).copied().flatten())
                    .ok_or_else(|| {
                        c.error_at(
                            start,
                            format!(
                                "dimension {k} is dynamic without a bound; HLO shapes need a \
                                 static size or a bound"
                            ),
                        )
                    })?;
                shape_dims.push(bound);
                dynamic.push(true);
            }
        }
    }
    if let Some(b) = &bounds {
        if b.len() != dims.len() {
            return Err(c.error_at(
                start,
                format!("{} bounds for a tensor of rank {}", b.len(), dims.len()),
            ));
        }
    }
    let mut shape = ArrayShape::new(et, shape_dims);
    shape.dynamic_dimensions = dynamic;
    Ok(shape)
}

/// One element of a `dense<...>` literal, with its byte offset.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Elem {
    /// An integer token's text (a value for integer types, a bit pattern when hex for floats).
    Int(String, usize),
    /// A decimal float's text.
    Float(String, usize),
    Bool(bool, usize),
    /// `(re, im)` of a complex element.
    Complex(Box<Elem>, Box<Elem>),
}

/// The body of `dense<...>` as written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Dense {
    /// `dense<"0x...">`: raw little-endian element bytes (one element: a splat), and the offset.
    Hex(Vec<u8>, usize),
    /// A scalar (a splat) or nested `[...]` lists in row-major order.
    Scalar(Elem),
    List(Vec<Dense>, usize),
}

/// An attribute value as written (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Attr {
    /// An integer with its optional type (`5 : i64`).
    Int(i128),
    /// A float's text (`1.0 : f32`).
    Float(String),
    Bool(bool),
    Str(String),
    Symbol(String),
    Unit,
    List(Vec<Attr>),
    Dict(Vec<(String, Attr)>),
    /// `array<T: ...>`: the element type name and the values (booleans as 0/1).
    DenseArray(String, Vec<i128>),
    /// `dense<...> : type`.
    Dense(Dense, Type),
    /// `#stablehlo<kind VALUE>`: (kind, value).
    Enum(String, String),
    /// `#dialect.name<field = value, ...>`: (name, fields).
    Struct(String, Vec<(String, Attr)>),
    /// `#stablehlo.conv<...>` in either form.
    Conv(ConvolutionDimensionNumbers),
    Type(Type),
    /// Anything else, verbatim (`#loc`, `#sdy.sharding<...>`, ...).
    Opaque(String),
}

/// Parses an attribute value (with the optional `: type` of a number or string).
///
/// Errors: a malformed attribute.
pub(crate) fn parse_attr(c: &mut Cursor) -> PResult<Attr> {
    let t = c.peek()?;
    c.enter(t.start)?;
    let r = parse_attr_inner(c);
    c.leave();
    r
}

fn parse_attr_inner(c: &mut Cursor) -> PResult<Attr> {
    let t = c.next()?;
    let typed = |c: &mut Cursor, a: Attr| -> PResult<Attr> {
        if c.eat_punct(':')? {
            parse_type(c)?;
        }
        Ok(a)
    };
    match &t.tok {
        Tok::Int(text) => typed(c, Attr::Int(parse_int(c.src, t.start, text)?)),
        Tok::Float(text) => typed(c, Attr::Float(text.clone())),
        Tok::Str(s) => typed(c, Attr::Str(s.clone())),
        Tok::Symbol(s) => Ok(Attr::Symbol(s.clone())),
        Tok::Ident(s) if s == "true" || s == "false" => Ok(Attr::Bool(s == "true")),
        Tok::Ident(s) if s == "unit" => Ok(Attr::Unit),
        Tok::Ident(s) if s == "dense" => {
            c.expect_punct('<', "after `dense`")?;
            let d = if c.eat_punct('>')? {
                Dense::List(Vec::new(), t.start)
            } else {
                let d = dense_body(c)?;
                c.expect_punct('>', "to close `dense<`")?;
                d
            };
            c.expect_punct(':', "and the type after `dense<...>`")?;
            let ty = parse_type(c)?;
            Ok(Attr::Dense(d, ty))
        }
        Tok::Ident(s) if s == "array" => {
            c.expect_punct('<', "after `array`")?;
            let et = c.next()?;
            let Tok::Ident(name) = &et.tok else {
                return Err(c.unexpected(&et, "an element type in `array<...>`"));
            };
            let name = name.clone();
            let mut values = Vec::new();
            if c.eat_punct(':')? {
                loop {
                    let v = c.next()?;
                    values.push(match &v.tok {
                        Tok::Int(text) => parse_int(c.src, v.start, text)?,
                        Tok::Ident(b) if b == "true" => 1,
                        Tok::Ident(b) if b == "false" => 0,
                        _ => return Err(c.unexpected(&v, "an integer or boolean")),
                    });
                    if !c.eat_punct(',')? {
                        break;
                    }
                }
            }
            c.expect_punct('>', "to close `array<`")?;
            Ok(Attr::DenseArray(name, values))
        }
        Tok::Punct('[') => {
            let mut items = Vec::new();
            if !c.eat_punct(']')? {
                loop {
                    items.push(parse_attr(c)?);
                    if c.eat_punct(']')? {
                        break;
                    }
                    c.expect_punct(',', "or `]` in a list")?;
                }
            }
            Ok(Attr::List(items))
        }
        Tok::Punct('{') => {
            c.pos = t.start;
            parse_dict(c).map(Attr::Dict)
        }
        Tok::Hash(name) => hash_attr(c, name.clone(), t.start),
        Tok::Ident(_) | Tok::Bang(_) | Tok::Punct('(') => {
            c.pos = t.start;
            parse_type(c).map(Attr::Type)
        }
        _ => Err(c.unexpected(&t, "an attribute value")),
    }
}

/// `{name = value, name, ...}` (a bare name is a unit attribute); the cursor is at `{`.
pub(crate) fn parse_dict(c: &mut Cursor) -> PResult<Vec<(String, Attr)>> {
    let open = c.expect_punct('{', "to open an attribute dictionary")?;
    c.enter(open.start)?;
    let mut out = Vec::new();
    if !c.eat_punct('}')? {
        loop {
            let k = c.next()?;
            let name = match &k.tok {
                Tok::Ident(s) | Tok::Str(s) => s.clone(),
                _ => return Err(c.unexpected(&k, "an attribute name")),
            };
            let value = if c.eat_punct('=')? {
                parse_attr(c)?
            } else {
                Attr::Unit
            };
            out.push((name, value));
            if c.eat_punct('}')? {
                break;
            }
            c.expect_punct(',', "or `}` in an attribute dictionary")?;
        }
    }
    c.leave();
    Ok(out)
}

/// The body of `dense<...>`: a hex string, a scalar, or nested lists.
fn dense_body(c: &mut Cursor) -> PResult<Dense> {
    let t = c.peek()?;
    match &t.tok {
        Tok::Str(s) => {
            c.next()?;
            let hex = s
                .strip_prefix("0x")
                .or_else(|| s.strip_prefix("0X"))
                .ok_or_else(|| {
                    c.error_at(t.start, "expected a `\"0x...\"` hex string in `dense<...>`")
                })?;
            if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(c.error_at(t.start, "malformed hex data in `dense<\"0x...\">`"));
            }
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0))
                .collect();
            Ok(Dense::Hex(bytes, t.start))
        }
        Tok::Punct('[') => {
            c.next()?;
            c.enter(t.start)?;
            let mut items = Vec::new();
            if !c.eat_punct(']')? {
                loop {
                    items.push(dense_body(c)?);
                    if c.eat_punct(']')? {
                        break;
                    }
                    c.expect_punct(',', "or `]` in `dense<[...]>`")?;
                }
            }
            c.leave();
            Ok(Dense::List(items, t.start))
        }
        _ => dense_elem(c).map(Dense::Scalar),
    }
}

/// One element: an integer, a float, `true`/`false`, or `(re, im)`.
fn dense_elem(c: &mut Cursor) -> PResult<Elem> {
    let t = c.next()?;
    match &t.tok {
        Tok::Int(s) => Ok(Elem::Int(s.clone(), t.start)),
        Tok::Float(s) => Ok(Elem::Float(s.clone(), t.start)),
        Tok::Ident(s) if s == "true" || s == "false" => Ok(Elem::Bool(s == "true", t.start)),
        Tok::Punct('(') => {
            let re = dense_elem(c)?;
            c.expect_punct(',', "between the parts of a complex element")?;
            let im = dense_elem(c)?;
            c.expect_punct(')', "to close a complex element")?;
            Ok(Elem::Complex(Box::new(re), Box::new(im)))
        }
        _ => Err(c.unexpected(&t, "an element value")),
    }
}

/// `#name...` after the `#` token: enumerators, structured attributes, convolution dimension
/// numbers, or an opaque attribute.
fn hash_attr(c: &mut Cursor, name: String, start: usize) -> PResult<Attr> {
    let has_body = c.src[c.pos..].starts_with('<');
    if !has_body {
        return Ok(Attr::Opaque(format!("#{name}")));
    }
    match name.as_str() {
        "stablehlo" | "chlo" | "mhlo" => {
            c.expect_punct('<', "")?;
            let kind = c.next()?;
            let Tok::Ident(kind) = &kind.tok else {
                return Err(c.unexpected(&kind, "an enumeration name"));
            };
            let kind = kind.clone();
            let v = c.next()?;
            let Tok::Ident(value) = &v.tok else {
                return Err(c.unexpected(&v, &format!("a `{kind}` value")));
            };
            let value = value.clone();
            c.expect_punct('>', "to close the enumerator")?;
            Ok(Attr::Enum(kind, value))
        }
        "stablehlo.conv" | "mhlo.conv" => {
            c.expect_punct('<', "")?;
            let d = if c.eat_keyword("raw")? {
                let fields = struct_fields(c)?;
                raw_conv(c, &fields, start)?
            } else {
                let d = pretty_conv_dims(c)?;
                c.expect_punct('>', "to close `#stablehlo.conv<`")?;
                d
            };
            Ok(Attr::Conv(d))
        }
        n if n.starts_with("stablehlo.") || n.starts_with("mhlo.") => {
            c.expect_punct('<', "")?;
            if c.eat_punct('>')? {
                return Ok(Attr::Struct(name, Vec::new()));
            }
            // `#stablehlo.result_accuracy_mode<DEFAULT>`: an enumerator in the name's form.
            if let (Tok::Ident(value), Tok::Punct('>')) = (c.peek()?.tok, c.peek2()?.tok) {
                c.next()?;
                c.next()?;
                return Ok(Attr::Enum(name, value));
            }
            let fields = struct_fields(c)?;
            Ok(Attr::Struct(name, fields))
        }
        _ => {
            let from = c.pos;
            skip_angle(c)?;
            Ok(Attr::Opaque(format!("#{name}{}", &c.src[from..c.pos])))
        }
    }
}

/// `field = value, ...>` (the closing `>` consumed).
fn struct_fields(c: &mut Cursor) -> PResult<Vec<(String, Attr)>> {
    let mut out = Vec::new();
    loop {
        let k = c.next()?;
        let Tok::Ident(name) = &k.tok else {
            return Err(c.unexpected(&k, "a field name"));
        };
        let name = name.clone();
        c.expect_punct('=', &format!("after `{name}`"))?;
        out.push((name, parse_attr(c)?));
        if c.eat_punct('>')? {
            return Ok(out);
        }
        c.expect_punct(',', "or `>` between fields")?;
    }
}

/// Skips a balanced `<...>` (nested angle brackets counted; `->` is its own token).
fn skip_angle(c: &mut Cursor) -> PResult<()> {
    c.skip_balanced('<', '>')
}

/// The dimension numbers of `#stablehlo.conv<raw input_batch_dimension = 0, ...>`.
fn raw_conv(
    c: &Cursor,
    fields: &[(String, Attr)],
    at: usize,
) -> PResult<ConvolutionDimensionNumbers> {
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .ok_or_else(|| c.error_at(at, format!("`#stablehlo.conv<raw ...>` lacks `{name}`")))
    };
    let int = |name: &str| -> PResult<i64> {
        match get(name)? {
            Attr::Int(v) => i64::try_from(*v).map_err(|_| c.error_at(at, "out of range")),
            _ => Err(c.error_at(at, format!("`{name}` is not an integer"))),
        }
    };
    let list = |name: &str| -> PResult<Vec<i64>> {
        int_list(get(name)?).ok_or_else(|| c.error_at(at, format!("`{name}` is not a list")))
    };
    Ok(ConvolutionDimensionNumbers {
        input_batch_dimension: int("input_batch_dimension")?,
        input_feature_dimension: int("input_feature_dimension")?,
        input_spatial_dimensions: list("input_spatial_dimensions")?,
        kernel_input_feature_dimension: int("kernel_input_feature_dimension")?,
        kernel_output_feature_dimension: int("kernel_output_feature_dimension")?,
        kernel_spatial_dimensions: list("kernel_spatial_dimensions")?,
        output_batch_dimension: int("output_batch_dimension")?,
        output_feature_dimension: int("output_feature_dimension")?,
        output_spatial_dimensions: list("output_spatial_dimensions")?,
    })
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: the position of each letter or spatial digit is
/// the dimension number (StableHLO's `ConvolutionDimensions` form).
pub(crate) fn pretty_conv_dims(c: &mut Cursor) -> PResult<ConvolutionDimensionNumbers> {
    let start = c.peek()?.start;
    let lhs = conv_part(c)?;
    let x = c.next()?;
    if !matches!(&x.tok, Tok::Ident(s) if s == "x") {
        return Err(c.unexpected(&x, "`x` between the input and kernel dimensions"));
    }
    let rhs = conv_part(c)?;
    c.expect_arrow("before the output dimensions")?;
    let out = conv_part(c)?;
    let text = |p: &[String]| p.concat();
    let labels = format!("{}_{}->{}", text(&lhs), text(&rhs), text(&out));
    ConvolutionDimensionNumbers::from_dim_labels(&labels)
        .map_err(|e| c.error_at(start, format!("convolution dimensions: {e}")))
}

/// `[b, 0, 1, f]` as its labels.
fn conv_part(c: &mut Cursor) -> PResult<Vec<String>> {
    c.expect_punct('[', "to open convolution dimension labels")?;
    let mut out = Vec::new();
    loop {
        let t = c.next()?;
        match &t.tok {
            Tok::Ident(s) => out.push(s.clone()),
            Tok::Int(s) => out.push(s.clone()),
            _ => return Err(c.unexpected(&t, "a dimension label (`b`, `f`, `i`, `o` or a digit)")),
        }
        if c.eat_punct(']')? {
            return Ok(out);
        }
        c.expect_punct(',', "or `]` in dimension labels")?;
    }
}

/// The integers of `[1, 2]`, `array<i64: 1, 2>` or `dense<[1, 2]> : tensor<2xi64>` (a rank-1
/// or splat dense attribute, as older StableHLO wrote dimension lists).
pub(crate) fn int_list(a: &Attr) -> Option<Vec<i64>> {
    match a {
        Attr::List(items) => items
            .iter()
            .map(|x| match x {
                Attr::Int(v) => i64::try_from(*v).ok(),
                _ => None,
            })
            .collect(),
        Attr::DenseArray(_, v) => v.iter().map(|&x| i64::try_from(x).ok()).collect(),
        Attr::Dense(d, Type::Tensor(t)) => {
            let flat = dense_ints(d)?;
            let n = t.element_count();
            match flat.len() {
                1 if n != 1 => Some(vec![flat[0]; n]),
                _ if flat.len() == n => Some(flat),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The integers of a dense attribute written as decimal lists (row-major), or `None`.
pub(crate) fn dense_ints(d: &Dense) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    fn walk(d: &Dense, out: &mut Vec<i64>) -> Option<()> {
        match d {
            Dense::Scalar(Elem::Int(s, _)) => out.push(parse_int("", 0, s).ok()?.try_into().ok()?),
            Dense::Scalar(Elem::Bool(b, _)) => out.push(*b as i64),
            Dense::List(items, _) => {
                for i in items {
                    walk(i, out)?;
                }
            }
            _ => return None,
        }
        Some(())
    }
    walk(d, &mut out)?;
    Some(out)
}

/// The booleans of `array<i1: ...>`, `[true, false]` or `dense<[...]> : tensor<Nxi1>`.
pub(crate) fn bool_list(a: &Attr) -> Option<Vec<bool>> {
    match a {
        Attr::List(items) => items
            .iter()
            .map(|x| match x {
                Attr::Bool(b) => Some(*b),
                Attr::Int(v) => Some(*v != 0),
                _ => None,
            })
            .collect(),
        _ => int_list(a).map(|v| v.into_iter().map(|x| x != 0).collect()),
    }
}
