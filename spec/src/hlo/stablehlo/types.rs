//! StableHLO spellings of element types, tensor types, constants and attribute values.
//!
//! Types carry no layout (StableHLO types have none): an HLO shape `f32[2,3]{0,1}` is
//! `tensor<2x3xf32>`, its logical row-major dimensions. Constants are written bit-exactly as the
//! hex form of MLIR's dense elements attribute (`dense<"0x...">`: each element's little-endian
//! bytes, elements in row-major order), so NaN payloads, −0, subnormals and f8 encodings survive;
//! predicates, whose storage in MLIR's raw buffers is not one byte per element in every MLIR
//! version, are written as `true`/`false` lists instead.

use crate::element_type::ElementType;
use crate::literal::ArrayLiteral;
use crate::shape::{ArrayShape, Shape};
use std::fmt::Write;

/// The MLIR name of an element type: `pred` → `i1`, `s32` → `i32` (signless), `u8` → `ui8`,
/// `c64` → `complex<f32>`, `f8e4m3fn` → `f8E4M3FN`, ...
pub fn element_type(t: ElementType) -> &'static str {
    use ElementType::*;
    match t {
        Pred => "i1",
        S8 => "i8",
        S16 => "i16",
        S32 => "i32",
        S64 => "i64",
        U8 => "ui8",
        U16 => "ui16",
        U32 => "ui32",
        U64 => "ui64",
        F16 => "f16",
        Bf16 => "bf16",
        F32 => "f32",
        F64 => "f64",
        C64 => "complex<f32>",
        C128 => "complex<f64>",
        F8E4M3FN => "f8E4M3FN",
        F8E5M2 => "f8E5M2",
        F8E4M3FNUZ => "f8E4M3FNUZ",
        F8E5M2FNUZ => "f8E5M2FNUZ",
        F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
        F8E4M3 => "f8E4M3",
        F8E3M4 => "f8E3M4",
    }
}

/// `tensor<2x3xf32>` (`tensor<f32>` for a scalar) for an array shape; the layout is dropped. A
/// bounded dynamic dimension (`f32[<=4,3]`) is `?` with its bound in StableHLO's bounds
/// encoding: `tensor<?x3xf32, #stablehlo.bounds<4, ?>>` (`?` for the static dimensions).
pub fn tensor_type(shape: &ArrayShape) -> String {
    let mut out = String::from("tensor<");
    let dynamic = |k: usize| shape.dynamic_dimensions.get(k).copied().unwrap_or(false);
    for (k, d) in shape.dimensions.iter().enumerate() {
        if dynamic(k) {
            out.push_str("?x");
        } else {
            let _ = write!(out, "{d}x");
        }
    }
    out.push_str(element_type(shape.element_type));
    if (0..shape.dimensions.len()).any(dynamic) {
        let bounds: Vec<String> = shape
            .dimensions
            .iter()
            .enumerate()
            .map(|(k, d)| {
                if dynamic(k) {
                    d.to_string()
                } else {
                    "?".into()
                }
            })
            .collect();
        let _ = write!(out, ", #stablehlo.bounds<{}>", bounds.join(", "));
    }
    out.push('>');
    out
}

/// True when some dimension of some leaf of `shape` is dynamic.
pub fn is_dynamic(shape: &Shape) -> bool {
    match shape {
        Shape::Array(a) => a.dynamic_dimensions.iter().any(|&d| d),
        Shape::Tuple(t) => t.iter().any(is_dynamic),
        Shape::Token => false,
    }
}

/// The StableHLO type of a token (seed 004, AfterAll: a token orders side effects).
pub const TOKEN: &str = "!stablehlo.token";

/// The types of the leaves of a shape, depth-first, left to right: a tensor type per array,
/// [`TOKEN`] per token.
///
/// Errors: none today (the `Result` is kept for leaf kinds without a StableHLO type).
pub fn leaf_types(shape: &Shape) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    fn walk(shape: &Shape, out: &mut Vec<String>) {
        match shape {
            Shape::Array(a) => out.push(tensor_type(a)),
            Shape::Tuple(t) => t.iter().for_each(|s| walk(s, out)),
            Shape::Token => out.push(TOKEN.into()),
        }
    }
    walk(shape, &mut out);
    Ok(out)
}

/// True when some leaf of `shape` is a token.
pub fn has_token(shape: &Shape) -> bool {
    match shape {
        Shape::Array(_) => false,
        Shape::Tuple(t) => t.iter().any(has_token),
        Shape::Token => true,
    }
}

/// `"text"` as an MLIR string literal: `"` and `\` escaped, every byte outside printable
/// ASCII as `\XX` (MLIR LangRef, "String literals"); the reader's lexer gives `text` back.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for &b in text.as_bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
    out
}

/// The array shape of a value, or why it is not one.
pub fn array_shape(shape: &Shape) -> Result<&ArrayShape, String> {
    match shape {
        Shape::Array(a) => Ok(a),
        Shape::Tuple(_) => Err(format!("expected an array shape, found the tuple {shape}")),
        Shape::Token => Err("expected an array shape, found a token".into()),
    }
}

/// The dense elements attribute of an array constant with its type:
/// `dense<"0x0000803F"> : tensor<f32>` (hex of the elements' little-endian bytes in row-major
/// order), or `dense<[true, false]> : tensor<2xi1>` for predicates.
///
/// Errors: a literal with runtime (dynamic) sizes or dynamic dimensions.
pub fn dense_constant(literal: &ArrayLiteral) -> Result<String, String> {
    if literal.runtime_dimensions().is_some() || is_dynamic(&Shape::Array(literal.shape().clone()))
    {
        return Err("a constant with dynamic runtime sizes has no static StableHLO form".into());
    }
    let ty = tensor_type(literal.shape());
    let et = literal.element_type();
    let bits = literal.logical_bits();
    if et == ElementType::Pred {
        let mut out = String::from("dense<");
        if bits.is_empty() {
            out.push_str("\"0x\"");
        } else {
            write_bools(&mut out, literal.dimensions(), &bits);
        }
        let _ = write!(out, "> : {ty}");
        return Ok(out);
    }
    let width = et.byte_width();
    let mut out = String::with_capacity(bits.len() * width * 2 + 32);
    out.push_str("dense<\"0x");
    for b in &bits {
        for byte in &b.to_le_bytes()[..width] {
            let _ = write!(out, "{byte:02X}");
        }
    }
    let _ = write!(out, "\"> : {ty}");
    Ok(out)
}

/// Nested `[...]` lists of `true`/`false` in row-major order (a bare value for rank 0).
fn write_bools(out: &mut String, dims: &[i64], bits: &[u128]) {
    match dims.split_first() {
        None => out.push_str(if bits[0] & 1 != 0 { "true" } else { "false" }),
        Some((&n, rest)) => {
            let stride: usize = rest.iter().map(|&d| d as usize).product();
            out.push('[');
            for i in 0..n as usize {
                if i > 0 {
                    out.push_str(", ");
                }
                write_bools(out, rest, &bits[i * stride..(i + 1) * stride]);
            }
            out.push(']');
        }
    }
}

/// `array<i64: 1, 2>` (`array<i64>` when empty): a dimension list attribute.
pub fn i64_array(values: &[i64]) -> String {
    if values.is_empty() {
        return "array<i64>".into();
    }
    format!("array<i64: {}>", join(values))
}

/// `array<i1: false, true>`.
pub fn bool_array(values: &[bool]) -> String {
    if values.is_empty() {
        return "array<i1>".into();
    }
    let items: Vec<&str> = values
        .iter()
        .map(|&b| if b { "true" } else { "false" })
        .collect();
    format!("array<i1: {}>", items.join(", "))
}

/// `[1, 2]`: a list inside a structured attribute (`#stablehlo.dot<...>`, ...).
pub fn int_list(values: &[i64]) -> String {
    format!("[{}]", join(values))
}

/// `dense<[[1, 0], [0, 2]]> : tensor<2x2xi64>`: per dimension (low, high) padding.
pub fn padding(pairs: &[(i64, i64)]) -> String {
    let items: Vec<String> = pairs.iter().map(|(l, h)| format!("[{l}, {h}]")).collect();
    format!(
        "dense<[{}]> : tensor<{}x2xi64>",
        items.join(", "),
        pairs.len()
    )
}

/// A symbol reference `@name`, quoted (`@"name-1"`) when the name is not a bare MLIR identifier.
pub fn symbol(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        let escaped: String = name
            .chars()
            .flat_map(|c| match c {
                '"' | '\\' => vec!['\\', c],
                _ => vec![c],
            })
            .collect();
        format!("@\"{escaped}\"")
    }
}

fn join(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    items.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::parse_literal;
    use crate::layout::Layout;

    #[test]
    fn element_types_have_their_mlir_names() {
        assert_eq!(element_type(ElementType::Pred), "i1");
        assert_eq!(element_type(ElementType::S16), "i16");
        assert_eq!(element_type(ElementType::U64), "ui64");
        assert_eq!(element_type(ElementType::C128), "complex<f64>");
        assert_eq!(element_type(ElementType::F8E4M3B11FNUZ), "f8E4M3B11FNUZ");
        for t in ElementType::ALL {
            assert!(!element_type(t).is_empty());
        }
    }

    #[test]
    fn tensor_types_drop_the_layout_and_bound_dynamic_dimensions() {
        let s = ArrayShape::new(ElementType::F32, vec![2, 3]).with_layout(Layout::new(vec![0, 1]));
        assert_eq!(tensor_type(&s), "tensor<2x3xf32>");
        assert_eq!(
            tensor_type(&ArrayShape::scalar(ElementType::Bf16)),
            "tensor<bf16>"
        );
        assert_eq!(
            tensor_type(&ArrayShape::new(ElementType::U8, vec![0, 4])),
            "tensor<0x4xui8>"
        );
        let mut d = ArrayShape::new(ElementType::F32, vec![4, 3]);
        d.dynamic_dimensions[0] = true;
        assert_eq!(tensor_type(&d), "tensor<?x3xf32, #stablehlo.bounds<4, ?>>");
        assert!(is_dynamic(&Shape::Tuple(vec![Shape::Array(d)])));
        assert!(!is_dynamic(&Shape::Array(s)));
    }

    #[test]
    fn constants_are_bit_exact_hex_in_row_major_order() {
        // Column-major storage: the hex must still be row-major (1, 2, 3, 4).
        let lit = parse_literal("s16[2,2]{0,1} {{1, 2}, {3, 4}}").unwrap();
        let lit = lit.as_array().unwrap();
        assert_eq!(
            dense_constant(lit).unwrap(),
            "dense<\"0x0100020003000400\"> : tensor<2x2xi16>"
        );
        let lit = parse_literal("f32[3] {-0, nan, 1.4e-45}").unwrap();
        assert_eq!(
            dense_constant(lit.as_array().unwrap()).unwrap(),
            "dense<\"0x000000800000C07F01000000\"> : tensor<3xf32>"
        );
        let lit = parse_literal("c64[] (1, -2)").unwrap();
        assert_eq!(
            dense_constant(lit.as_array().unwrap()).unwrap(),
            "dense<\"0x0000803F000000C0\"> : tensor<complex<f32>>"
        );
        let lit = parse_literal("pred[2,2] {{1, 0}, {0, 1}}").unwrap();
        assert_eq!(
            dense_constant(lit.as_array().unwrap()).unwrap(),
            "dense<[[true, false], [false, true]]> : tensor<2x2xi1>"
        );
        let lit = parse_literal("pred[] 1").unwrap();
        assert_eq!(
            dense_constant(lit.as_array().unwrap()).unwrap(),
            "dense<true> : tensor<i1>"
        );
        let lit = parse_literal("f8e4m3fn[2] {448, -0.001953125}").unwrap();
        assert_eq!(
            dense_constant(lit.as_array().unwrap()).unwrap(),
            "dense<\"0x7E81\"> : tensor<2xf8E4M3FN>"
        );
    }

    #[test]
    fn attribute_values() {
        assert_eq!(i64_array(&[1, -2]), "array<i64: 1, -2>");
        assert_eq!(i64_array(&[]), "array<i64>");
        assert_eq!(bool_array(&[false, true]), "array<i1: false, true>");
        assert_eq!(int_list(&[0, 2]), "[0, 2]");
        assert_eq!(
            padding(&[(1, 0), (-1, 2)]),
            "dense<[[1, 0], [-1, 2]]> : tensor<2x2xi64>"
        );
        assert_eq!(symbol("main"), "@main");
        assert_eq!(symbol("add.1"), "@add.1");
        assert_eq!(symbol("reducer-0"), "@\"reducer-0\"");
        assert_eq!(symbol("0x"), "@\"0x\"");
    }

    #[test]
    fn tokens_are_leaves_and_strings_are_escaped() {
        let s = Shape::Tuple(vec![
            Shape::Array(ArrayShape::scalar(ElementType::F32)),
            Shape::Token,
        ]);
        assert_eq!(leaf_types(&s).unwrap(), ["tensor<f32>", "!stablehlo.token"]);
        assert!(has_token(&s));
        assert!(!has_token(&Shape::Tuple(vec![])));
        assert_eq!(string(""), r#""""#);
        assert_eq!(string("a\"b\\c\n\u{e9}"), r#""a\"b\\c\0A\C3\A9""#);
    }
}
