//! Evaluation of a checked document into a [`Graph`]: invocations bound to their fragments,
//! compound fragments expanded (recursively, lazily through `if`/`else`), attribute expressions
//! computed, and shapes propagated through every primitive (seed 003 §3.3.3, §3.3.4).

use std::collections::HashMap;

use crate::ast::{Argument, Assignment, BinaryOp, Expr, ExprKind, Invocation, TypeName};
use crate::error::{NnefError, Result, Span};
use crate::eval::declarations::{Declarations, Prototype};
use crate::eval::operators;
use crate::eval::typecheck::generic_data_type;
use crate::eval::types::{data_type, type_name_of, Type};
use crate::graph::{DataType, Graph, Operation, Tensor, Value};
use crate::shapes::{self, ResultShape};

/// Deepest nesting of fragment invocations (recursive fragments must terminate before it).
pub const MAX_INVOCATION_DEPTH: usize = 256;

/// Identifier values of a body being evaluated.
pub type Env = HashMap<String, Value>;

/// Builds a graph by evaluating assignments.
pub struct Evaluator<'d, 'a> {
    declarations: &'d Declarations<'a>,
    /// The graph being built.
    pub graph: Graph,
    counter: usize,
    depth: usize,
    /// Labels of variables seen so far, with their shapes (shared weights must agree).
    labels: HashMap<String, Vec<usize>>,
}

impl<'d, 'a> Evaluator<'d, 'a> {
    /// An evaluator over `declarations`, producing a graph called `name`.
    pub fn new(declarations: &'d Declarations<'a>, name: &str) -> Evaluator<'d, 'a> {
        Evaluator {
            declarations,
            graph: Graph {
                name: name.to_string(),
                ..Graph::default()
            },
            counter: 0,
            depth: 0,
            labels: HashMap::new(),
        }
    }

    /// Evaluates one graph-body assignment: its operations join the graph and the tensors it
    /// assigns take the names of its left side.
    pub fn graph_assignment(&mut self, assignment: &Assignment, env: &mut Env) -> Result<()> {
        let mut ops = Vec::new();
        let first_fresh = self.counter;
        let value = self.expr(&assignment.rhs, env, &mut ops)?;
        let mut renames = HashMap::new();
        let mut aliases = Vec::new();
        self.destructure(&assignment.lhs, value, env, &mut |name, v| {
            if let Value::Tensor(t) = v {
                if is_fresh(t, first_fresh) && !renames.contains_key(t) {
                    renames.insert(t.clone(), name.to_string());
                } else {
                    aliases.push((name.to_string(), t.clone()));
                }
                *v = Value::Tensor(name.to_string());
            }
        })?;
        if !renames.is_empty() {
            for op in &mut ops {
                rename_operation(op, &renames);
            }
            for (old, new) in &renames {
                if let Some(mut t) = self.graph.tensors.remove(old) {
                    t.name = new.clone();
                    self.graph.tensors.insert(new.clone(), t);
                }
            }
        }
        // Each identifier of the graph body names its own tensor (seed 003 §3.3.1): one bound
        // to a tensor that already has a name (a fragment returning its input, `y = x`) gets a
        // copy, inside the operation that produced the binding.
        for (name, existing) in aliases {
            let source = renames.get(&existing).cloned().unwrap_or(existing);
            let Some(tensor) = self.graph.tensor(&source).cloned() else {
                continue;
            };
            self.graph.tensors.insert(
                name.clone(),
                Tensor {
                    name: name.clone(),
                    ..tensor.clone()
                },
            );
            let copy = Operation {
                name: "copy".into(),
                dtype: Some(tensor.dtype),
                arguments: vec![("x".into(), Value::Tensor(source))],
                results: vec![("y".into(), Value::Tensor(name))],
                span: assignment.rhs.span,
                expansion: Vec::new(),
            };
            match ops.last_mut() {
                Some(op) => op.expansion.push(copy),
                None => ops.push(copy),
            }
        }
        self.graph.operations.extend(ops);
        Ok(())
    }

    /// Binds `value` to the identifiers of `lhs`, calling `on_bind` on each (it may rewrite the
    /// value, e.g. to rename a tensor).
    fn destructure(
        &mut self,
        lhs: &Expr,
        value: Value,
        env: &mut Env,
        on_bind: &mut dyn FnMut(&str, &mut Value),
    ) -> Result<()> {
        match (&lhs.kind, value) {
            (ExprKind::Identifier(name), mut v) => {
                on_bind(name, &mut v);
                env.insert(name.clone(), v);
                Ok(())
            }
            (ExprKind::Array(items), Value::Array(values))
            | (ExprKind::Tuple(items), Value::Tuple(values)) => {
                if items.len() != values.len() {
                    return Err(NnefError::semantic(
                        lhs.span,
                        format!(
                            "cannot unpack {} values into {} identifiers",
                            values.len(),
                            items.len()
                        ),
                    ));
                }
                for (item, v) in items.iter().zip(values) {
                    self.destructure(item, v, env, on_bind)?;
                }
                Ok(())
            }
            (_, v) => Err(NnefError::semantic(
                lhs.span,
                format!("cannot unpack {} into this left side", describe(&v)),
            )),
        }
    }

    /// Evaluates an expression; tensor operations it implies are appended to `ops`.
    pub fn expr(&mut self, expr: &Expr, env: &Env, ops: &mut Vec<Operation>) -> Result<Value> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Identifier(name) => env.get(name).cloned().ok_or_else(|| {
                NnefError::semantic(
                    span,
                    format!("identifier '{name}' is used before it is assigned"),
                )
            }),
            ExprKind::Integer(i) => Ok(Value::Integer(*i)),
            ExprKind::Scalar(x) => Ok(Value::Scalar(*x)),
            ExprKind::Logical(b) => Ok(Value::Logical(*b)),
            ExprKind::String(s) => Ok(Value::String(s.clone())),
            ExprKind::Array(items) => Ok(Value::Array(
                items
                    .iter()
                    .map(|e| self.expr(e, env, ops))
                    .collect::<Result<_>>()?,
            )),
            ExprKind::Tuple(items) => Ok(Value::Tuple(
                items
                    .iter()
                    .map(|e| self.expr(e, env, ops))
                    .collect::<Result<_>>()?,
            )),
            ExprKind::Unary(op, operand) => {
                let v = self.expr(operand, env, ops)?;
                if v.as_tensor().is_some() {
                    let fragment = operators::unary_fragment(*op);
                    return self.invoke_values(fragment, span, None, vec![("x".into(), v)], ops);
                }
                operators::unary(*op, v).map_err(|m| NnefError::semantic(span, m))
            }
            ExprKind::Binary(op, lhs, rhs) => {
                let a = self.expr(lhs, env, ops)?;
                // `false && x` and `true || x` do not evaluate `x`.
                match (op, &a) {
                    (BinaryOp::And, Value::Logical(false))
                    | (BinaryOp::Or, Value::Logical(true)) => return Ok(a),
                    _ => {}
                }
                let b = self.expr(rhs, env, ops)?;
                if a.as_tensor().is_some() || b.as_tensor().is_some() {
                    let fragment = operators::binary_fragment(*op).ok_or_else(|| {
                        NnefError::semantic(span, "operator `in` does not apply to tensors")
                    })?;
                    return self.invoke_values(
                        fragment,
                        span,
                        None,
                        vec![("x".into(), a), ("y".into(), b)],
                        ops,
                    );
                }
                operators::binary(*op, a, b).map_err(|m| NnefError::semantic(span, m))
            }
            ExprKind::Select {
                condition,
                then,
                otherwise,
            } => match self.expr(condition, env, ops)? {
                Value::Logical(true) => self.expr(then, env, ops),
                Value::Logical(false) => self.expr(otherwise, env, ops),
                other => Err(NnefError::semantic(
                    condition.span,
                    format!(
                        "the condition of a select must be a logical value, found {}",
                        describe(&other)
                    ),
                )),
            },
            ExprKind::Comprehension {
                iterators,
                condition,
                body,
            } => {
                let mut arrays = Vec::with_capacity(iterators.len());
                for (name, iterable) in iterators {
                    match self.expr(iterable, env, ops)? {
                        Value::Array(items) => arrays.push((name, items)),
                        other => {
                            return Err(NnefError::semantic(
                                iterable.span,
                                format!(
                                    "a comprehension iterates arrays, found {}",
                                    describe(&other)
                                ),
                            ))
                        }
                    }
                }
                let len = arrays.first().map_or(0, |(_, a)| a.len());
                if let Some((name, a)) = arrays.iter().find(|(_, a)| a.len() != len) {
                    return Err(NnefError::semantic(
                        span,
                        format!(
                            "arrays iterated together must have equal lengths: '{name}' iterates {} items, the first {len}",
                            a.len()
                        ),
                    ));
                }
                let mut out = Vec::new();
                let mut inner = env.clone();
                for i in 0..len {
                    for (name, items) in &arrays {
                        inner.insert((*name).clone(), items[i].clone());
                    }
                    if let Some(c) = condition {
                        match self.expr(c, &inner, ops)? {
                            Value::Logical(true) => {}
                            Value::Logical(false) => continue,
                            other => {
                                return Err(NnefError::semantic(
                                    c.span,
                                    format!(
                                        "a comprehension condition must be logical, found {}",
                                        describe(&other)
                                    ),
                                ))
                            }
                        }
                    }
                    out.push(self.expr(body, &inner, ops)?);
                }
                Ok(Value::Array(out))
            }
            ExprKind::Subscript(base, index) => {
                let v = self.expr(base, env, ops)?;
                let index = match index {
                    crate::ast::Subscript::Index(i) => {
                        operators::Index::At(self.expr(i, env, ops)?)
                    }
                    crate::ast::Subscript::Range(b, e) => operators::Index::Range(
                        b.as_ref().map(|b| self.expr(b, env, ops)).transpose()?,
                        e.as_ref().map(|e| self.expr(e, env, ops)).transpose()?,
                    ),
                };
                operators::subscript(v, index).map_err(|m| NnefError::semantic(span, m))
            }
            ExprKind::Builtin(builtin, arg) => {
                let v = self.expr(arg, env, ops)?;
                let graph = &self.graph;
                operators::builtin(*builtin, v, &|t| graph.tensor(t).map(|t| t.shape.clone()))
                    .map_err(|m| NnefError::semantic(span, m))
            }
            ExprKind::Invocation(inv) => self.invocation(inv, span, env, ops),
        }
    }

    fn invocation(
        &mut self,
        inv: &Invocation,
        span: Span,
        env: &Env,
        ops: &mut Vec<Operation>,
    ) -> Result<Value> {
        let proto = self.prototype(&inv.name, span)?;
        let decl = proto.declaration();
        let mut values: Vec<Option<Value>> = vec![None; decl.parameters.len()];
        let mut named = false;
        for (position, Argument { name, value }) in inv.arguments.iter().enumerate() {
            let index = match name {
                Some((n, s)) => {
                    named = true;
                    proto.parameter_index(n).ok_or_else(|| {
                        NnefError::semantic(
                            *s,
                            format!("operation '{}' has no parameter called '{n}'", decl.name),
                        )
                    })?
                }
                None if !named && position < values.len() => position,
                None => {
                    return Err(NnefError::semantic(
                        value.span,
                        "misplaced positional argument",
                    ));
                }
            };
            values[index] = Some(self.expr(value, env, ops)?);
        }
        let arguments = decl
            .parameters
            .iter()
            .zip(values)
            .map(|(p, v)| (p.name.clone(), v))
            .collect::<Vec<_>>();
        self.invoke(&proto, span, inv.generic, arguments, ops)
    }

    fn prototype(&self, name: &str, span: Span) -> Result<Prototype<'a>> {
        self.declarations
            .get(name)
            .cloned()
            .ok_or_else(|| NnefError::semantic(span, format!("operation '{name}' is not declared")))
    }

    /// Invokes `fragment` with arguments given by parameter name (operators on tensors).
    fn invoke_values(
        &mut self,
        fragment: &str,
        span: Span,
        generic: Option<TypeName>,
        given: Vec<(String, Value)>,
        ops: &mut Vec<Operation>,
    ) -> Result<Value> {
        let proto = self.prototype(fragment, span)?;
        let arguments = proto
            .declaration()
            .parameters
            .iter()
            .map(|p| {
                let v = given
                    .iter()
                    .find(|(n, _)| *n == p.name)
                    .map(|(_, v)| v.clone());
                (p.name.clone(), v)
            })
            .collect();
        self.invoke(&proto, span, generic, arguments, ops)
    }

    /// Invokes a fragment: fills defaults, binds the generic type, then either propagates
    /// shapes through a primitive or evaluates the compound fragment's body.
    fn invoke(
        &mut self,
        proto: &Prototype<'a>,
        span: Span,
        generic: Option<TypeName>,
        arguments: Vec<(String, Option<Value>)>,
        ops: &mut Vec<Operation>,
    ) -> Result<Value> {
        let decl = proto.declaration();
        let mut filled = Vec::with_capacity(arguments.len());
        for ((name, value), param) in arguments.into_iter().zip(&decl.parameters) {
            let value = match value {
                Some(v) => v,
                None => match &param.default {
                    Some(d) => self.expr(d, &Env::new(), &mut Vec::new())?,
                    None => {
                        return Err(NnefError::semantic(
                            span,
                            format!("missing argument for parameter '{name}' of '{}'", decl.name),
                        ))
                    }
                },
            };
            filled.push((name, value));
        }
        let arg_types: Vec<(Option<&Argument>, Option<Type>)> = filled
            .iter()
            .map(|(_, v)| (None, Some(self.type_of(v))))
            .collect();
        let data = generic_data_type(proto, generic, &arg_types, span)?;
        let dtype = data.and_then(data_type);
        if self.depth >= MAX_INVOCATION_DEPTH {
            return Err(NnefError::semantic(
                span,
                format!(
                    "fragment invocations nest deeper than {MAX_INVOCATION_DEPTH} at '{}': does its recursion terminate?",
                    decl.name
                ),
            ));
        }
        let mut op = Operation {
            name: decl.name.clone(),
            dtype,
            arguments: filled,
            results: Vec::new(),
            span,
            expansion: Vec::new(),
        };
        let result_types: Vec<Type> = proto
            .result_types
            .iter()
            .map(|t| data.map_or_else(|| t.clone(), |d| t.bind(d)))
            .collect();
        match &proto.fragment.body {
            Some(body) => {
                self.depth += 1;
                let outcome = self.expand(proto, body, &mut op, &result_types);
                self.depth -= 1;
                outcome.map_err(|e| {
                    if proto.standard && e.span != span {
                        NnefError {
                            span,
                            message: format!("in '{}': {}", decl.name, e.message),
                            ..e
                        }
                    } else {
                        e
                    }
                })?;
            }
            None => self.primitive(&mut op, &result_types)?,
        }
        let attribute_results = result_types.iter().all(Type::is_attribute);
        let mut results: Vec<Value> = op.results.iter().map(|(_, v)| v.clone()).collect();
        let value = if results.len() == 1 {
            results.remove(0)
        } else {
            Value::Tuple(results)
        };
        if attribute_results {
            ops.append(&mut op.expansion);
        } else {
            ops.push(op);
        }
        Ok(value)
    }

    fn expand(
        &mut self,
        proto: &Prototype<'a>,
        body: &[Assignment],
        op: &mut Operation,
        result_types: &[Type],
    ) -> Result<()> {
        let mut env: Env = op.arguments.iter().cloned().collect();
        for assignment in body {
            let value = self.expr(&assignment.rhs, &env, &mut op.expansion)?;
            self.destructure(&assignment.lhs, value, &mut env, &mut |_, _| {})?;
        }
        for (r, ty) in proto.declaration().results.iter().zip(result_types) {
            let v = env.get(&r.name).cloned().ok_or_else(|| {
                NnefError::semantic(
                    r.span,
                    format!("result '{}' of '{}' is not assigned", r.name, op.name),
                )
            })?;
            // A literal assigned to a tensor result stands for a constant tensor.
            let v = match (&v, ty) {
                (Value::Scalar(_) | Value::Integer(_) | Value::Logical(_), Type::Tensor(_)) => {
                    self.literal_tensor(v, ty, op)?
                }
                _ => v,
            };
            op.results.push((r.name.clone(), v));
        }
        Ok(())
    }

    /// A `constant` operation holding a literal that was assigned to a tensor result.
    fn literal_tensor(&mut self, v: Value, ty: &Type, op: &mut Operation) -> Result<Value> {
        let dtype = match ty {
            Type::Tensor(Some(t)) => data_type(*t),
            _ => None,
        }
        .unwrap_or(match v {
            Value::Integer(_) => DataType::Integer,
            Value::Logical(_) => DataType::Logical,
            _ => DataType::Scalar,
        });
        let name = self.fresh_name("constant");
        self.graph.tensors.insert(
            name.clone(),
            Tensor {
                name: name.clone(),
                dtype,
                shape: vec![],
                quantization: None,
            },
        );
        op.expansion.push(Operation {
            name: "constant".into(),
            dtype: Some(dtype),
            arguments: vec![
                ("shape".into(), Value::Array(vec![])),
                ("value".into(), Value::Array(vec![v])),
            ],
            results: vec![("output".into(), Value::Tensor(name.clone()))],
            span: op.span,
            expansion: Vec::new(),
        });
        Ok(Value::Tensor(name))
    }

    fn primitive(&mut self, op: &mut Operation, result_types: &[Type]) -> Result<()> {
        let shapes = match op.name.as_str() {
            "external" | "variable" | "constant" => vec![ResultShape::Tensor(self.introduced_shape(op)?)],
            name if shapes::has_shape_function(name) => {
                let graph = &self.graph;
                let shape_of = |v: &Value| -> Option<Vec<usize>> {
                    match v {
                        Value::Tensor(t) => graph.tensor(t).map(|t| t.shape.clone()),
                        Value::Integer(_) | Value::Scalar(_) | Value::Logical(_) => Some(vec![]),
                        _ => None,
                    }
                };
                shapes::infer(op, &shape_of).map_err(|m| NnefError::shape(op.span, m))?
            }
            name => {
                return Err(NnefError::semantic(
                    op.span,
                    format!("fragment '{name}' has no body and is not a standard primitive: its results cannot be computed"),
                ))
            }
        };
        if shapes.len() != result_types.len() {
            return Err(NnefError::shape(
                op.span,
                format!(
                    "{}: {} result shapes for {} results",
                    op.name,
                    shapes.len(),
                    result_types.len()
                ),
            ));
        }
        let decl_results: Vec<String> = self
            .declarations
            .get(&op.name)
            .map(|p| {
                p.declaration()
                    .results
                    .iter()
                    .map(|r| r.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        for ((shape, ty), name) in shapes.into_iter().zip(result_types).zip(decl_results) {
            let dtype = tensor_data_type(ty, op.dtype);
            let value = match shape {
                ResultShape::Tensor(s) => Value::Tensor(self.new_tensor(&op.name, dtype, s)),
                ResultShape::Array(list) => Value::Array(
                    list.into_iter()
                        .map(|s| Value::Tensor(self.new_tensor(&op.name, dtype, s)))
                        .collect(),
                ),
            };
            op.results.push((name, value));
        }
        Ok(())
    }

    /// Shape of `external`, `variable` and `constant` from their `shape` attribute (NNEF 1.0.5
    /// §4.1): extents ≥ 0; a constant's `value` has one item or one per element; a variable
    /// label used twice names one tensor and must keep its shape.
    fn introduced_shape(&mut self, op: &Operation) -> Result<Vec<usize>> {
        let shape = op
            .argument("shape")
            .and_then(Value::as_integers)
            .ok_or_else(|| {
                NnefError::shape(
                    op.span,
                    format!("{}: `shape` must be an integer array", op.name),
                )
            })?;
        let mut dims = Vec::with_capacity(shape.len());
        for e in shape {
            let e = usize::try_from(e).map_err(|_| {
                NnefError::shape(
                    op.span,
                    format!("{}: extent {e} of `shape` is negative", op.name),
                )
            })?;
            dims.push(e);
        }
        let elements = dims
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| {
                NnefError::shape(
                    op.span,
                    format!(
                        "{}: shape {dims:?} has more elements than fit in memory",
                        op.name
                    ),
                )
            })?;
        match op.name.as_str() {
            "constant" => {
                let n = op
                    .argument("value")
                    .and_then(Value::items)
                    .map_or(0, <[Value]>::len);
                if n != 1 && n != elements {
                    return Err(NnefError::shape(
                        op.span,
                        format!(
                            "constant: `value` has {n} items; shape {dims:?} needs 1 or {elements}"
                        ),
                    ));
                }
            }
            "variable" => {
                let label = op
                    .argument("label")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                if label.is_empty() {
                    return Err(NnefError::shape(
                        op.span,
                        "variable: `label` must not be empty",
                    ));
                }
                if let Some(previous) = self.labels.get(&label) {
                    if *previous != dims {
                        return Err(NnefError::shape(
                            op.span,
                            format!("variable: label '{label}' is shared with a variable of shape {previous:?}, not {dims:?}"),
                        ));
                    }
                }
                self.labels.insert(label, dims.clone());
            }
            _ => {}
        }
        Ok(dims)
    }

    fn fresh_name(&mut self, fragment: &str) -> String {
        self.counter += 1;
        format!("{fragment}${}", self.counter)
    }

    fn new_tensor(&mut self, fragment: &str, dtype: DataType, shape: Vec<usize>) -> String {
        let name = self.fresh_name(fragment);
        self.graph.tensors.insert(
            name.clone(),
            Tensor {
                name: name.clone(),
                dtype,
                shape,
                quantization: None,
            },
        );
        name
    }

    /// The type of a value (tensors by their data type).
    fn type_of(&self, v: &Value) -> Type {
        match v {
            Value::Integer(_) => Type::Primitive(TypeName::Integer),
            Value::Scalar(_) => Type::Primitive(TypeName::Scalar),
            Value::Logical(_) => Type::Primitive(TypeName::Logical),
            Value::String(_) => Type::Primitive(TypeName::String),
            Value::Tensor(t) => Type::Tensor(self.graph.tensor(t).map(|t| type_name_of(t.dtype))),
            Value::Array(items) => Type::Array(items.first().map(|i| Box::new(self.type_of(i)))),
            Value::Tuple(items) => Type::Tuple(items.iter().map(|i| self.type_of(i)).collect()),
        }
    }
}

fn tensor_data_type(ty: &Type, generic: Option<DataType>) -> DataType {
    match ty {
        Type::Tensor(Some(t)) => data_type(*t).or(generic).unwrap_or(DataType::Scalar),
        Type::Array(Some(inner)) => tensor_data_type(inner, generic),
        _ => generic.unwrap_or(DataType::Scalar),
    }
}

fn is_fresh(name: &str, first_counter: usize) -> bool {
    name.rsplit_once('$')
        .and_then(|(_, n)| n.parse::<usize>().ok())
        .is_some_and(|n| n > first_counter)
}

fn rename_value(v: &mut Value, renames: &HashMap<String, String>) {
    match v {
        Value::Tensor(t) => {
            if let Some(new) = renames.get(t) {
                *t = new.clone();
            }
        }
        Value::Array(items) | Value::Tuple(items) => {
            items.iter_mut().for_each(|i| rename_value(i, renames))
        }
        _ => {}
    }
}

fn rename_operation(op: &mut Operation, renames: &HashMap<String, String>) {
    for (_, v) in op.arguments.iter_mut().chain(op.results.iter_mut()) {
        rename_value(v, renames);
    }
    for inner in &mut op.expansion {
        rename_operation(inner, renames);
    }
}

/// A short description of a value for error messages.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Integer(i) => format!("the integer {i}"),
        Value::Scalar(x) => format!("the scalar {x}"),
        Value::Logical(b) => format!("the logical {b}"),
        Value::String(s) => format!("the string '{s}'"),
        Value::Tensor(t) => format!("the tensor '{t}'"),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Tuple(items) => format!("a tuple of {} items", items.len()),
    }
}
