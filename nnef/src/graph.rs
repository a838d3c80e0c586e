//! The evaluated graph: what a document means once fragments are invoked, attribute expressions
//! evaluated and shapes propagated (the counterpart of the Khronos parser's `nnef.Graph`).
//!
//! Top-level operations are the graph body's invocations. An operation whose fragment has a
//! body (a compound fragment: standard, like `relu`, or defined in the document) also carries
//! its `expansion`, the operations its body invokes, recursively, down to primitives; lowering
//! uses a direct rule where it has one and the expansion otherwise.

use std::collections::BTreeMap;

use crate::error::Span;

/// The data type of a tensor (NNEF 1.0.5 §3.3.2: `scalar`, `integer`, `logical`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DataType {
    /// Real values (lowered to f32).
    Scalar,
    /// Integers, also indices ("coordinate" in seed 003; lowered to s32).
    Integer,
    /// Booleans (lowered to pred).
    Logical,
}

impl DataType {
    /// The NNEF name: `scalar`, `integer` or `logical`.
    pub fn name(self) -> &'static str {
        match self {
            DataType::Scalar => "scalar",
            DataType::Integer => "integer",
            DataType::Logical => "logical",
        }
    }
}

/// An evaluated value: an attribute (known when the graph is built) or a reference to a tensor.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `integer` (seed 003 `extent`).
    Integer(i64),
    /// `scalar`.
    Scalar(f64),
    /// `logical`.
    Logical(bool),
    /// `string`.
    String(String),
    /// A tensor of the graph, by name.
    Tensor(String),
    /// An array value (items of one type).
    Array(Vec<Value>),
    /// A tuple value.
    Tuple(Vec<Value>),
}

impl Value {
    /// The integer, if this is one.
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }
    /// The real value of a scalar or integer.
    pub fn as_scalar(&self) -> Option<f64> {
        match self {
            Value::Scalar(x) => Some(*x),
            Value::Integer(i) => Some(*i as f64),
            _ => None,
        }
    }
    /// The boolean, if this is a logical.
    pub fn as_logical(&self) -> Option<bool> {
        match self {
            Value::Logical(b) => Some(*b),
            _ => None,
        }
    }
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    /// The tensor name, if this references a tensor.
    pub fn as_tensor(&self) -> Option<&str> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
    /// The items of an array or tuple.
    pub fn items(&self) -> Option<&[Value]> {
        match self {
            Value::Array(v) | Value::Tuple(v) => Some(v),
            _ => None,
        }
    }
    /// The tensor names in this value (a tensor, or arrays and tuples of them), in order.
    pub fn tensor_names(&self) -> Vec<&str> {
        match self {
            Value::Tensor(t) => vec![t.as_str()],
            Value::Array(items) | Value::Tuple(items) => {
                items.iter().flat_map(Value::tensor_names).collect()
            }
            _ => vec![],
        }
    }

    /// True when the tensor `name` occurs in this value.
    pub fn mentions(&self, name: &str) -> bool {
        self.tensor_names().contains(&name)
    }

    /// An array of integers (`integer[]`).
    pub fn as_integers(&self) -> Option<Vec<i64>> {
        self.items()?.iter().map(Value::as_integer).collect()
    }
}

/// A tensor of the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Unique name (graph identifiers keep their names; tensors inside expansions get
    /// generated names `name$k`).
    pub name: String,
    /// Data type.
    pub dtype: DataType,
    /// Extents, outermost first (elements).
    pub shape: Vec<usize>,
    /// Quantization from `graph.quant`: the quantization fragment's name and attributes.
    pub quantization: Option<(String, BTreeMap<String, Value>)>,
}

/// One invocation of a fragment, with every argument evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// Fragment name (`conv`, `relu`, a document's own fragment, ...).
    pub name: String,
    /// The generic type the fragment was invoked with (`external<scalar>`), if generic.
    pub dtype: Option<DataType>,
    /// Every formal parameter in declaration order with its value (defaults filled in; tensor
    /// parameters hold [`Value::Tensor`] or a literal standing for a singleton tensor).
    pub arguments: Vec<(String, Value)>,
    /// Every result in declaration order with the tensor(s) it produced.
    pub results: Vec<(String, Value)>,
    /// Where the invocation is in the document (inside a fragment body for expansions).
    pub span: Span,
    /// The operations of the fragment's body, for compound fragments; empty for primitives.
    pub expansion: Vec<Operation>,
}

impl Operation {
    /// The value of the formal parameter `name`.
    pub fn argument(&self, name: &str) -> Option<&Value> {
        self.arguments
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
    /// The value of the result `name`.
    pub fn result(&self, name: &str) -> Option<&Value> {
        self.results.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// An evaluated graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graph {
    /// Graph name.
    pub name: String,
    /// Input tensor names (each defined by `external`), in declaration order.
    pub inputs: Vec<String>,
    /// Output tensor names, in declaration order.
    pub outputs: Vec<String>,
    /// Every tensor by name, including those inside expansions.
    pub tensors: BTreeMap<String, Tensor>,
    /// Top-level operations in body order (a valid topological order).
    pub operations: Vec<Operation>,
}

impl Graph {
    /// The tensor called `name`.
    pub fn tensor(&self, name: &str) -> Option<&Tensor> {
        self.tensors.get(name)
    }
}
