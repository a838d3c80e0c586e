//! Shared helpers of the `lower_*` tests: graphs built by hand (operations with every argument
//! given, as the evaluator fills defaults), lowering, and execution on both backends.

#![allow(dead_code)]

use conformance_fast::Fast;
use conformance_nnef::graph::{DataType, Graph, Operation, Tensor, Value};
use conformance_nnef::lower::{lower, Lowered};
use conformance_nnef::Span;
use conformance_reference::Reference;
use conformance_spec::backend::Backend;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::ElementType;

#[allow(unused_imports)]
pub use DataType::{Integer, Logical, Scalar};

/// A graph under construction.
#[derive(Default)]
pub struct G {
    pub graph: Graph,
    line: u32,
}

/// `Value::Tensor(name)`.
pub fn t(name: &str) -> Value {
    Value::Tensor(name.into())
}

/// An `integer[]` value.
pub fn ints(v: &[i64]) -> Value {
    Value::Array(v.iter().map(|&i| Value::Integer(i)).collect())
}

/// A `(integer, integer)[]` value.
pub fn pairs(v: &[(i64, i64)]) -> Value {
    Value::Array(
        v.iter()
            .map(|&(a, b)| Value::Tuple(vec![Value::Integer(a), Value::Integer(b)]))
            .collect(),
    )
}

pub fn s(x: f64) -> Value {
    Value::Scalar(x)
}

pub fn i(x: i64) -> Value {
    Value::Integer(x)
}

pub fn b(x: bool) -> Value {
    Value::Logical(x)
}

pub fn st(x: &str) -> Value {
    Value::String(x.into())
}

/// An array of tensor references.
pub fn tensors(names: &[&str]) -> Value {
    Value::Array(names.iter().map(|n| t(n)).collect())
}

impl G {
    pub fn new() -> G {
        G {
            graph: Graph {
                name: "test".into(),
                ..Graph::default()
            },
            line: 0,
        }
    }

    fn tensor(&mut self, name: &str, dtype: DataType, shape: &[usize]) {
        self.graph.tensors.insert(
            name.into(),
            Tensor {
                name: name.into(),
                dtype,
                shape: shape.to_vec(),
                quantization: None,
            },
        );
    }

    fn operation(
        &mut self,
        name: &str,
        args: Vec<(&str, Value)>,
        results: Vec<(&str, Value)>,
    ) -> Operation {
        self.line += 1;
        Operation {
            name: name.into(),
            dtype: None,
            arguments: args.into_iter().map(|(n, v)| (n.to_string(), v)).collect(),
            results: results
                .into_iter()
                .map(|(n, v)| (n.to_string(), v))
                .collect(),
            span: Span::new(self.line, 1),
            expansion: vec![],
        }
    }

    /// `name = external<dtype>(shape)`, a graph input.
    pub fn input(&mut self, name: &str, dtype: DataType, shape: &[usize]) -> &mut G {
        self.tensor(name, dtype, shape);
        let op = self.operation(
            "external",
            vec![(
                "shape",
                ints(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>()),
            )],
            vec![("output", t(name))],
        );
        self.graph.inputs.push(name.into());
        self.graph.operations.push(op);
        self
    }

    /// `name = variable(shape, label = name)`.
    pub fn variable(&mut self, name: &str, shape: &[usize]) -> &mut G {
        self.tensor(name, Scalar, shape);
        let op = self.operation(
            "variable",
            vec![
                (
                    "shape",
                    ints(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>()),
                ),
                ("label", st(name)),
            ],
            vec![("output", t(name))],
        );
        self.graph.operations.push(op);
        self
    }

    /// A top-level operation with one single-tensor result `result = out` of `dtype`, `shape`.
    pub fn op(
        &mut self,
        name: &str,
        args: Vec<(&str, Value)>,
        result: &str,
        out: &str,
        dtype: DataType,
        shape: &[usize],
    ) -> &mut G {
        self.tensor(out, dtype, shape);
        let op = self.operation(name, args, vec![(result, t(out))]);
        self.graph.operations.push(op);
        self
    }

    /// A top-level operation with an array result `result = [outs...]`.
    pub fn op_array(
        &mut self,
        name: &str,
        args: Vec<(&str, Value)>,
        result: &str,
        outs: &[(&str, &[usize])],
        dtype: DataType,
    ) -> &mut G {
        for (n, shape) in outs {
            self.tensor(n, dtype, shape);
        }
        let names: Vec<&str> = outs.iter().map(|(n, _)| *n).collect();
        let op = self.operation(name, args, vec![(result, tensors(&names))]);
        self.graph.operations.push(op);
        self
    }

    /// A compound operation (no direct rule is assumed) with the given expansion; its
    /// expansion's tensors are declared with `inner`.
    pub fn compound(&mut self, op: Operation, inner: &[(&str, DataType, &[usize])]) -> &mut G {
        for (n, d, s) in inner {
            self.tensor(n, *d, s);
        }
        self.graph.operations.push(op);
        self
    }

    /// A bare operation value (for expansions).
    pub fn make(
        &mut self,
        name: &str,
        args: Vec<(&str, Value)>,
        results: Vec<(&str, Value)>,
    ) -> Operation {
        self.operation(name, args, results)
    }

    pub fn declare(&mut self, name: &str, dtype: DataType, shape: &[usize]) -> &mut G {
        self.tensor(name, dtype, shape);
        self
    }

    pub fn output(&mut self, name: &str) -> &mut G {
        self.graph.outputs.push(name.into());
        self
    }
}

/// An f32 literal.
pub fn f32s(dims: &[i64], values: &[f64]) -> Literal {
    Literal::Array(
        ArrayLiteral::from_f64s(ArrayShape::new(ElementType::F32, dims.to_vec()), values).unwrap(),
    )
}

/// An s32 literal.
pub fn s32s(dims: &[i64], values: &[i64]) -> Literal {
    let v: Vec<i128> = values.iter().map(|&x| x as i128).collect();
    Literal::Array(
        ArrayLiteral::from_i128s(ArrayShape::new(ElementType::S32, dims.to_vec()), &v).unwrap(),
    )
}

/// A pred literal.
pub fn preds(dims: &[i64], values: &[bool]) -> Literal {
    let v: Vec<i128> = values.iter().map(|&x| x as i128).collect();
    Literal::Array(
        ArrayLiteral::from_i128s(ArrayShape::new(ElementType::Pred, dims.to_vec()), &v).unwrap(),
    )
}

/// `0, 1, 2, ...` as an f32 literal.
pub fn iota(dims: &[i64]) -> Literal {
    let n: i64 = dims.iter().product();
    f32s(dims, &(0..n).map(|v| v as f64).collect::<Vec<_>>())
}

/// The values of an array literal (floats as is, integers and preds converted).
pub fn values(l: &Literal) -> Vec<f64> {
    let a = l.as_array().expect("an array result");
    a.to_f64s().unwrap_or_else(|| {
        a.to_i128s()
            .expect("numeric")
            .into_iter()
            .map(|v| v as f64)
            .collect()
    })
}

/// The dimensions of an array literal.
pub fn dims(l: &Literal) -> Vec<i64> {
    l.as_array().expect("an array result").dimensions().to_vec()
}

/// Lowers `g` for `outputs`, checks the module prints and parses back to itself, runs it on
/// the reference and on the fast backend, checks they agree (to 1e-5 relative for floats,
/// exactly otherwise, NaN with NaN), and returns the reference's outputs.
pub fn run(g: &G, outputs: &[&str], args: &[Literal]) -> Vec<Literal> {
    let outs: Vec<String> = outputs.iter().map(|s| s.to_string()).collect();
    let lowered = lower(&g.graph, &outs).unwrap_or_else(|e| panic!("lowering failed: {e}"));
    check_round_trip(&lowered);
    let r = Reference
        .execute(&lowered.module, args)
        .unwrap_or_else(|e| panic!("reference: {e}\n{}", lowered.module));
    let f = Fast::new()
        .execute(&lowered.module, args)
        .unwrap_or_else(|e| panic!("fast: {e}\n{}", lowered.module));
    let split = |l: Literal| -> Vec<Literal> {
        match l {
            Literal::Tuple(items) if outputs.len() != 1 => items,
            other => vec![other],
        }
    };
    let (r, f) = (split(r), split(f));
    assert_eq!(r.len(), outputs.len());
    for (k, (x, y)) in r.iter().zip(&f).enumerate() {
        assert_eq!(dims(x), dims(y), "output {}", outputs[k]);
        for (a, b) in values(x).iter().zip(values(y)) {
            let close = (a.is_nan() && b.is_nan())
                || a == &b
                || (a - b).abs() <= 1e-5 * a.abs().max(b.abs());
            assert!(
                close,
                "output {}: reference {a} vs fast {b}\n{}",
                outputs[k], lowered.module
            );
        }
    }
    r
}

/// The printed module parses back to an equal module.
pub fn check_round_trip(lowered: &Lowered) {
    let text = lowered.module.to_string();
    let parsed = parse_module(&text)
        .unwrap_or_else(|e| panic!("printed module does not parse: {e}\n{text}"));
    assert_eq!(
        parsed, lowered.module,
        "print/parse round trip changed the module:\n{text}"
    );
}

/// Asserts `got` equals `want` elementwise within `tol` (absolute), NaN matching NaN.
pub fn assert_close(got: &Literal, want_dims: &[i64], want: &[f64], tol: f64) {
    assert_eq!(dims(got), want_dims, "dimensions");
    let v = values(got);
    assert_eq!(v.len(), want.len());
    for (k, (a, b)) in v.iter().zip(want).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol;
        assert!(ok, "element {k}: got {a}, want {b} (all: {v:?})");
    }
}

/// Lowers and runs one operation `name(args)` whose single result `result` has `shape` and
/// `dtype`, on inputs `x` (and more) given as (name, dtype, literal).
pub fn one_op(
    name: &str,
    inputs: &[(&str, DataType, Literal)],
    args: Vec<(&str, Value)>,
    result: &str,
    dtype: DataType,
    shape: &[usize],
) -> Literal {
    let mut g = G::new();
    for (n, d, l) in inputs {
        let shape: Vec<usize> = dims(l).iter().map(|&e| e as usize).collect();
        g.input(n, *d, &shape);
    }
    g.op(name, args, result, "out", dtype, shape).output("out");
    let lits: Vec<Literal> = inputs.iter().map(|(_, _, l)| l.clone()).collect();
    run(&g, &["out"], &lits).remove(0)
}
