//! Differential test of the primitive shape rules against the Khronos reference implementation:
//! `shapes_fixtures/khronos_shape_cases.jsonl` holds 2,320 random argument sets for conv,
//! deconv, box, debox, argmax_pool, slice, reshape, split, matmul, pad, tile, transpose, gather,
//! concat and binary broadcasting, each with what the shape function of PyPI `nnef` 1.0.10
//! returns (a shape, a list of shapes, or an error); `shapes_fixtures/generate.py` produced it.
//!
//! [`conformance_nnef::shapes::infer`] must return the same shapes and fail where it fails.
//! The one place where the Khronos functions are laxer than NNEF 1.0.5 inside the generated
//! domain is arithmetic that yields impossible extents (a padded extent smaller than the
//! dilated window, "the nominator must be non-negative", §4.3; a negative padded or up-scaled
//! extent): the Khronos functions return extents <= 0 there, the standard makes it invalid,
//! and so must we.

use std::collections::BTreeMap;
use std::path::Path;

use conformance_nnef::ast::ExprKind;
use conformance_nnef::graph::{Operation, Value};
use conformance_nnef::shapes::{infer, ResultShape};
use conformance_nnef::stdlib::standard_fragment;
use conformance_nnef::Span;
use serde_json::Value as Json;

fn extents(json: &Json) -> Vec<usize> {
    json.as_array()
        .expect("a shape")
        .iter()
        .map(|d| d.as_u64().expect("an extent") as usize)
        .collect()
}

/// A JSON attribute as the value of parameter `param` (`padding` items are pairs).
fn attribute(param: &str, json: &Json) -> Value {
    match json {
        Json::Bool(b) => Value::Logical(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Scalar(n.as_f64().expect("a number")),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) if param == "padding" => Value::Array(
            items
                .iter()
                .map(|pair| {
                    Value::Tuple(
                        pair.as_array()
                            .expect("a pair")
                            .iter()
                            .map(|v| attribute("", v))
                            .collect(),
                    )
                })
                .collect(),
        ),
        Json::Array(items) => Value::Array(items.iter().map(|v| attribute(param, v)).collect()),
        other => panic!("unexpected attribute {other}"),
    }
}

/// A literal default of the standard declaration as a value.
fn default_value(kind: &ExprKind) -> Value {
    match kind {
        ExprKind::Integer(i) => Value::Integer(*i),
        ExprKind::Scalar(x) => Value::Scalar(*x),
        ExprKind::Logical(b) => Value::Logical(*b),
        ExprKind::String(s) => Value::String(s.clone()),
        ExprKind::Array(items) => {
            Value::Array(items.iter().map(|e| default_value(&e.kind)).collect())
        }
        ExprKind::Tuple(items) => {
            Value::Tuple(items.iter().map(|e| default_value(&e.kind)).collect())
        }
        other => panic!("default is not a literal: {other:?}"),
    }
}

/// The operation of one case, every parameter in declaration order, and its tensor shapes.
fn operation(case: &Json) -> (Operation, BTreeMap<String, Vec<usize>>) {
    let name = case["op"].as_str().unwrap();
    let fragment = standard_fragment(name).unwrap_or_else(|| panic!("{name} is not standard"));
    let mut shapes = BTreeMap::new();
    let mut arguments = Vec::new();
    for p in &fragment.declaration.parameters {
        let value = if let Some(input) = case["inputs"].get(&p.name) {
            if p.name == "values" {
                let items = input.as_array().unwrap();
                Value::Array(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            let tensor = format!("values{i}");
                            shapes.insert(tensor.clone(), extents(s));
                            Value::Tensor(tensor)
                        })
                        .collect(),
                )
            } else {
                shapes.insert(p.name.clone(), extents(input));
                Value::Tensor(p.name.clone())
            }
        } else if let Some(attr) = case["attribs"].get(&p.name) {
            attribute(&p.name, attr)
        } else {
            let default = p
                .default
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no value for {}", p.name));
            default_value(&default.kind)
        };
        arguments.push((p.name.clone(), value));
    }
    let op = Operation {
        name: name.to_string(),
        dtype: None,
        arguments,
        results: Vec::new(),
        span: Span::new(1, 1),
        expansion: Vec::new(),
    };
    (op, shapes)
}

/// Whether a Khronos result has an extent the standard rules out: negative anywhere, or zero
/// in a down-scaled window dimension (its numerator p + X + q - fd was negative).
fn impossible(op: &str, result: &Json) -> bool {
    let Some(shape) = result.as_array() else {
        return false;
    };
    if shape.first().is_some_and(Json::is_array) {
        return shape.iter().any(|s| impossible(op, s));
    }
    shape.iter().any(|d| {
        let d = d.as_i64().unwrap();
        d < 0 || (d == 0 && matches!(op, "conv" | "box" | "argmax_pool"))
    })
}

#[test]
fn primitive_shapes_match_the_khronos_implementation() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shapes_fixtures/khronos_shape_cases.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut failures = Vec::new();
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (line, case) in text.lines().enumerate() {
        let case: Json = serde_json::from_str(case).unwrap();
        let (op, shapes) = operation(&case);
        let shape_of = |v: &Value| match v {
            Value::Tensor(t) => shapes.get(t).cloned(),
            _ => Some(Vec::new()),
        };
        let ours = infer(&op, &shape_of);
        let expected = match case.get("result") {
            Some(result) if !impossible(&op.name, result) => Some(result),
            _ => None,
        };
        let entry = counts.entry(op.name.clone()).or_default();
        entry.0 += 1;
        let agree = match (&ours, expected) {
            (Ok(shapes), Some(result)) => {
                entry.1 += 1;
                let want = match result.as_array().unwrap().first() {
                    Some(Json::Array(_)) if op.name == "split" => {
                        vec![ResultShape::Array(
                            result.as_array().unwrap().iter().map(extents).collect(),
                        )]
                    }
                    _ => vec![ResultShape::Tensor(extents(result))],
                };
                *shapes == want
            }
            (Err(_), None) => true,
            _ => false,
        };
        if !agree {
            failures.push(format!("line {}: {case}\n    ours: {ours:?}", line + 1));
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // every family is exercised with both valid and invalid argument sets
    for op in [
        "conv", "deconv", "debox", "slice", "reshape", "split", "matmul", "pad",
    ] {
        let (all, valid) = counts[op];
        assert!(
            valid > 20 && all - valid > 5,
            "{op}: {valid} valid of {all}"
        );
    }
    assert_eq!(counts.values().map(|c| c.0).sum::<usize>(), 2320);
}
