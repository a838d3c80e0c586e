//! Helpers for the shape-function unit tests: building operations and shape lookups by hand.

use std::collections::BTreeMap;

use crate::error::Span;
use crate::graph::{Operation, Value};
use crate::shapes::ResultShape;

/// An operation `name` with the given arguments (no results, no expansion).
pub(crate) fn op(name: &str, arguments: Vec<(&str, Value)>) -> Operation {
    Operation {
        name: name.to_string(),
        dtype: None,
        arguments: arguments
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
        results: Vec::new(),
        span: Span::new(1, 1),
        expansion: Vec::new(),
    }
}

/// A reference to tensor `name`.
pub(crate) fn t(name: &str) -> Value {
    Value::Tensor(name.to_string())
}

/// An `integer[]` value.
pub(crate) fn ints(items: &[i64]) -> Value {
    Value::Array(items.iter().map(|&i| Value::Integer(i)).collect())
}

/// A `string` value.
pub(crate) fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// A `(integer,integer)[]` value.
pub(crate) fn pads(items: &[(i64, i64)]) -> Value {
    Value::Array(
        items
            .iter()
            .map(|&(p, q)| Value::Tuple(vec![Value::Integer(p), Value::Integer(q)]))
            .collect(),
    )
}

/// A `shape_of` function over named tensors; literals have shape `[]`.
pub(crate) fn tensor_shapes(table: &[(&str, &[usize])]) -> impl Fn(&Value) -> Option<Vec<usize>> {
    let map: BTreeMap<String, Vec<usize>> = table
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_vec()))
        .collect();
    move |v: &Value| match v {
        Value::Tensor(name) => map.get(name).cloned(),
        Value::Integer(_) | Value::Scalar(_) | Value::Logical(_) => Some(Vec::new()),
        _ => None,
    }
}

/// The single tensor shape of a successful result (panics otherwise: tests only).
pub(crate) fn one(result: Result<Vec<ResultShape>, String>) -> Vec<usize> {
    match result {
        Ok(shapes) => match shapes.as_slice() {
            [ResultShape::Tensor(s)] => s.clone(),
            other => panic!("expected one tensor shape, got {other:?}"),
        },
        Err(e) => panic!("unexpected error: {e}"),
    }
}
