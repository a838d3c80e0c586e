//! Lowering of an evaluated NNEF graph ([`Graph`], NNEF 1.0.5 chapter 4 semantics) to one HLO
//! module of this project's IR (seed 004 operations), so that every backend can run it.
//!
//! Operations are lowered in graph order. An operation with a direct rule (every primitive of
//! NNEF 1.0.5, and compounds whose expansion would be wasteful: `max_pool`, `avg_pool`,
//! `mean_reduce` and the quantization fragments) is emitted by that rule; any other compound is lowered through its `expansion`,
//! recursively. Shapes and data types come from `graph.tensors` (already propagated); a rule's
//! result whose extents differ from the graph's only by singleton dimensions is reshaped to the
//! graph's shape.
//!
//! Data types: `scalar` → `f32`, `integer` → `s32`, `logical` → `pred` ([`element_type`]).
//! Broadcasting follows NNEF (§4.2.2): shapes align from the left, trailing singleton dimensions
//! are implicit, a singleton extent repeats.
//!
//! One module per family: `elementwise`, `sliding_window` (conv, deconv, box, debox, pools),
//! `index_pool` (argmax_pool, sample, desample), `reduce`, `layout_ops`, `matrix`, `resize`
//! (multilinear_upsample), `roi` (RoI pooling and resampling), `quantize` (the quantization
//! compounds, and `graph.quant` applied by [`lower_quantized`]); `attrs` reads attributes,
//! `border` resolves windows, padding and border modes.

mod attrs;
mod border;
mod elementwise;
mod index_pool;
mod layout_ops;
mod matrix;
mod quantize;
mod reduce;
mod resize;
mod roi;
mod sliding_window;

use std::collections::HashMap;

use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::transform::with_root;
use conformance_spec::hlo::{BuildError, ComputationBuilder, HloComputation, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::shape_inference::verify_module;

use crate::error::{NnefError, Span};
use crate::eval::evaluate::describe;
use crate::graph::{DataType, Graph, Operation, Value};

/// An HLO module computing some tensors of an NNEF graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    /// The module (named after the graph): the entry computation `main` (parameters `p0`, `p1`,
    /// ... in [`Lowered::parameters`] order) plus the scalar reducers it calls.
    pub module: HloModule,
    /// Tensor names in HLO parameter order: the graph inputs (graph.inputs order), then every
    /// `variable` tensor in operation order. (Constants become HLO constants.) A variable whose
    /// label equals an earlier one's (ignoring case) shares that one's parameter and is not
    /// listed.
    pub parameters: Vec<String>,
    /// Tensor names of the root, in order (the root is a tuple when there is not exactly one).
    pub outputs: Vec<String>,
}

/// Element type of an NNEF data type: scalar -> f32, integer -> s32, logical -> pred.
pub fn element_type(dtype: DataType) -> ElementType {
    match dtype {
        DataType::Scalar => ElementType::F32,
        DataType::Integer => ElementType::S32,
        DataType::Logical => ElementType::Pred,
    }
}

/// Lowers `graph` so that the module returns the tensors `outputs` (usually graph.outputs; the
/// lead also asks for every top-level tensor to localize a disagreement operation by
/// operation). Instructions the outputs do not depend on are removed; the parameters stay.
///
/// Errors: [`NnefError::lowering`] at the operation's span naming its fragment when there is no
/// rule and no expansion, when an attribute is outside what the rule supports (e.g. `border =
/// 'reflect'` wider than the input), or when a tensor is unknown; at line 0 when `outputs` is
/// empty or names a tensor the lowering does not compute (one inside an expansion that a direct
/// rule replaced).
pub fn lower(graph: &Graph, outputs: &[String]) -> Result<Lowered, NnefError> {
    lower_with(graph, outputs, false)
}

/// As [`lower`], with fake quantization: every tensor that carries a quantization (from
/// `graph.quant`: a quantization fragment of NNEF 1.0.5 §4.9.5 with its attributes) is replaced,
/// as soon as it is computed (or, for inputs and variables, read), by its quantized value, so
/// that its consumers and the outputs see quantized values.
///
/// Errors: as [`lower`]; a quantization fragment that is not one of the standard's four, or
/// whose attributes do not fit it, at the span of the operation producing the tensor (line 0
/// for inputs and variables).
pub fn lower_quantized(graph: &Graph, outputs: &[String]) -> Result<Lowered, NnefError> {
    lower_with(graph, outputs, true)
}

fn lower_with(graph: &Graph, outputs: &[String], quantize: bool) -> Result<Lowered, NnefError> {
    if outputs.is_empty() {
        return Err(NnefError::lowering(
            Span::default(),
            "no output tensors requested",
        ));
    }
    let mut l = Lowerer::new(graph);
    l.quantize = quantize;
    let parameters = l.parameters()?;
    for op in &graph.operations {
        l.operation(op)?;
    }
    let mut roots = Vec::with_capacity(outputs.len());
    for name in outputs {
        let Some(&i) = l.values.get(name) else {
            let why = if graph.tensor(name).is_some() {
                "it is inside a fragment that a direct rule lowers as a whole"
            } else {
                "the graph has no such tensor"
            };
            return Err(NnefError::lowering(
                Span::default(),
                format!("output tensor '{name}' is not computed by the lowering: {why}"),
            ));
        };
        roots.push(i);
    }
    let root = if roots.len() == 1 {
        roots[0]
    } else {
        l.b.tuple(&roots).map_err(|e| internal(&e.to_string()))?
    };
    let entry = l.b.try_build(root).map_err(|e| internal(&e.to_string()))?;
    let module = HloModule::with_entry(&hlo_name(&graph.name), entry, l.called);
    let root = module.entry_computation().root;
    let module = with_root(&module, root);
    verify_module(&module).map_err(|e| internal(&format!("the lowered module is invalid: {e}")))?;
    Ok(Lowered {
        module,
        parameters,
        outputs: outputs.to_vec(),
    })
}

/// Names of the fragments with a direct lowering rule (every NNEF 1.0.5 primitive, plus the
/// compounds lowered as a whole).
pub fn direct_rules() -> Vec<&'static str> {
    TABLES
        .iter()
        .flat_map(|t| t.iter().map(|(n, _)| *n))
        .collect()
}

fn internal(message: &str) -> NnefError {
    NnefError::lowering(
        Span::default(),
        format!("internal lowering error: {message}"),
    )
}

/// An HLO identifier (`[A-Za-z0-9_.-]+`) made from a graph name.
fn hlo_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "nnef".into()
    } else {
        s
    }
}

/// A lowering rule: emits the HLO of one operation and binds its results.
type Rule = fn(&mut Lowerer<'_>, &Operation) -> Result<(), NnefError>;

const TABLES: &[&[(&str, Rule)]] = &[
    elementwise::RULES,
    sliding_window::RULES,
    index_pool::RULES,
    reduce::RULES,
    layout_ops::RULES,
    matrix::RULES,
    quantize::RULES,
    resize::RULES,
    roi::RULES,
];

fn rule(name: &str) -> Option<Rule> {
    TABLES
        .iter()
        .flat_map(|t| t.iter())
        .find(|(n, _)| *n == name)
        .map(|(_, r)| *r)
}

/// The error of `op` (its span and fragment name).
fn fail(op: &Operation, message: impl std::fmt::Display) -> NnefError {
    NnefError::lowering(op.span, format!("{}: {message}", op.name))
}

/// Attaches an operation to builder errors.
trait At<T> {
    fn at(self, op: &Operation) -> Result<T, NnefError>;
}

impl<T> At<T> for Result<T, BuildError> {
    fn at(self, op: &Operation) -> Result<T, NnefError> {
        self.map_err(|e| fail(op, e))
    }
}

/// The state of one lowering: the entry computation being built, the instruction of every
/// tensor lowered so far, and the called computations (reducers).
pub(crate) struct Lowerer<'g> {
    graph: &'g Graph,
    b: ComputationBuilder,
    values: HashMap<String, usize>,
    called: Vec<HloComputation>,
    /// Whether tensors with a quantization are replaced by their quantized values.
    quantize: bool,
}

impl<'g> Lowerer<'g> {
    fn new(graph: &'g Graph) -> Lowerer<'g> {
        Lowerer {
            graph,
            // Called computations are named after their operation and types (`add_f32`, ...);
            // the entry is `main`, so no name can clash.
            b: ComputationBuilder::new("main"),
            values: HashMap::new(),
            called: Vec::new(),
            quantize: false,
        }
    }

    /// One parameter per graph input, then per `variable` (operation order, expansions
    /// included; variables whose labels are equal ignoring case share the data, NNEF 1.0.5
    /// §4.1.3, so they share the first one's parameter); returns their tensor names.
    fn parameters(&mut self) -> Result<Vec<String>, NnefError> {
        let mut names: Vec<String> = self.graph.inputs.clone();
        // (tensor, label) of every variable, in operation order.
        fn variables(ops: &[Operation], out: &mut Vec<(String, String)>) {
            for op in ops {
                if op.name == "variable" {
                    if let Some(Value::Tensor(t)) = op.result("output") {
                        let label = op.argument("label").and_then(Value::as_str).unwrap_or(t);
                        out.push((t.clone(), label.to_lowercase()));
                    }
                }
                variables(&op.expansion, out);
            }
        }
        let mut found = Vec::new();
        variables(&self.graph.operations, &mut found);
        let mut aliases = Vec::new();
        let mut labels: HashMap<String, String> = HashMap::new();
        for (tensor, label) in found {
            if names.contains(&tensor) {
                continue;
            }
            match labels.get(&label) {
                Some(first) => aliases.push((tensor, first.clone())),
                None => {
                    labels.insert(label, tensor.clone());
                    names.push(tensor);
                }
            }
        }
        for name in &names {
            let t = self.graph.tensor(name).ok_or_else(|| {
                NnefError::lowering(
                    Span::default(),
                    format!("input tensor '{name}' is not in the graph"),
                )
            })?;
            let shape = Shape::array(element_type(t.dtype), dims_i64(&t.shape));
            let p = self
                .b
                .parameter(shape)
                .map_err(|e| internal(&e.to_string()))?;
            let p = match (&t.quantization, self.quantize) {
                (Some(q), true) => self.quantize_tensor(Span::default(), name, p, q)?,
                _ => p,
            };
            self.values.insert(name.clone(), p);
        }
        for (tensor, first) in aliases {
            if let Some(&p) = self.values.get(&first) {
                self.values.insert(tensor, p);
            }
        }
        Ok(names)
    }

    /// Lowers one operation: its direct rule, or else its expansion.
    fn operation(&mut self, op: &Operation) -> Result<(), NnefError> {
        if let Some(rule) = rule(&op.name) {
            return rule(self, op);
        }
        for inner in &op.expansion {
            self.operation(inner)?;
        }
        for (name, v) in &op.results {
            for t in v.tensor_names() {
                if !self.values.contains_key(t) {
                    return Err(if op.expansion.is_empty() {
                        fail(
                            op,
                            "no lowering rule for this fragment, and it has no body to expand",
                        )
                    } else {
                        fail(op, format!("result '{name}' (tensor '{t}') is not computed by the fragment's body"))
                    });
                }
            }
        }
        Ok(())
    }

    // ----- tensors and results -------------------------------------------------------------

    /// The graph tensor called `name`.
    fn tensor(&self, op: &Operation, name: &str) -> Result<&'g crate::graph::Tensor, NnefError> {
        self.graph
            .tensor(name)
            .ok_or_else(|| fail(op, format!("tensor '{name}' is not in the graph")))
    }

    /// The graph tensor of the single-tensor result `result`.
    fn result_tensor(
        &self,
        op: &Operation,
        result: &str,
    ) -> Result<&'g crate::graph::Tensor, NnefError> {
        match op.result(result) {
            Some(Value::Tensor(t)) => self.tensor(op, t),
            _ => Err(fail(
                op,
                format!("result '{result}' is not a single tensor"),
            )),
        }
    }

    /// The extents of result `result` (from the graph).
    fn result_dims(&self, op: &Operation, result: &str) -> Result<Vec<i64>, NnefError> {
        Ok(dims_i64(&self.result_tensor(op, result)?.shape))
    }

    /// Binds instruction `x` to tensor `name`: the element type must be the tensor's; extents
    /// that differ only in singleton dimensions (same element count) are reshaped.
    fn bind_tensor(&mut self, op: &Operation, name: &str, x: usize) -> Result<(), NnefError> {
        let t = self.tensor(op, name)?;
        let want = dims_i64(&t.shape);
        let ty = element_type(t.dtype);
        if self.ety(x) != ty {
            return Err(fail(
                op,
                format!(
                    "tensor '{name}' is {} but the rule computes {}",
                    t.dtype.name(),
                    self.ety(x)
                ),
            ));
        }
        let have = self.dims(x);
        let x = if have == want {
            x
        } else if have.iter().product::<i64>() == want.iter().product::<i64>() {
            self.b.reshape(x, &want).at(op)?
        } else {
            return Err(fail(op, format!("tensor '{name}' has shape {want:?} in the graph but the rule computes {have:?}")));
        };
        let x = match (&t.quantization, self.quantize) {
            (Some(q), true) => self.quantize_tensor(op.span, name, x, q)?,
            _ => x,
        };
        self.values.insert(name.to_string(), x);
        Ok(())
    }

    /// Binds the single-tensor result `result` to `x`.
    fn bind(&mut self, op: &Operation, result: &str, x: usize) -> Result<(), NnefError> {
        match op.result(result) {
            Some(Value::Tensor(t)) => {
                let t = t.clone();
                self.bind_tensor(op, &t, x)
            }
            _ => Err(fail(
                op,
                format!("result '{result}' is not a single tensor"),
            )),
        }
    }

    /// Binds the array result `result` (e.g. `split`'s `values`) item by item.
    fn bind_array(&mut self, op: &Operation, result: &str, xs: &[usize]) -> Result<(), NnefError> {
        let names = self.result_array(op, result)?;
        if names.len() != xs.len() {
            return Err(fail(
                op,
                format!(
                    "result '{result}' has {} tensors, the rule computes {}",
                    names.len(),
                    xs.len()
                ),
            ));
        }
        for (t, &x) in names.iter().zip(xs) {
            self.bind_tensor(op, t, x)?;
        }
        Ok(())
    }

    /// The tensor names of the array result `result`.
    fn result_array(&self, op: &Operation, result: &str) -> Result<Vec<String>, NnefError> {
        let items = op
            .result(result)
            .and_then(Value::items)
            .ok_or_else(|| fail(op, format!("result '{result}' is not an array of tensors")))?;
        items
            .iter()
            .map(|v| {
                v.as_tensor()
                    .map(str::to_string)
                    .ok_or_else(|| fail(op, format!("result '{result}' holds a non-tensor item")))
            })
            .collect()
    }

    /// The instruction of tensor argument `param`; a literal becomes a constant of `want` (a
    /// singleton tensor of rank 0).
    fn input(&mut self, op: &Operation, param: &str, want: DataType) -> Result<usize, NnefError> {
        let v = op
            .argument(param)
            .ok_or_else(|| fail(op, format!("missing argument '{param}'")))?;
        self.value(op, v, want)
    }

    /// The instruction of a tensor-position value (a tensor reference or a literal).
    fn value(&mut self, op: &Operation, v: &Value, want: DataType) -> Result<usize, NnefError> {
        match v {
            Value::Tensor(t) => self
                .values
                .get(t)
                .copied()
                .ok_or_else(|| fail(op, format!("tensor '{t}' is used before it is computed"))),
            Value::Scalar(_) | Value::Integer(_) | Value::Logical(_) => {
                let x = literal_number(op, v, want)?;
                self.scalar(op, element_type(want), x)
            }
            other => Err(fail(
                op,
                format!("expected a tensor, found {}", describe(other)),
            )),
        }
    }

    /// The instructions of an array of tensor-position values (`concat`'s `values`).
    fn inputs(
        &mut self,
        op: &Operation,
        param: &str,
        want: DataType,
    ) -> Result<Vec<usize>, NnefError> {
        let items = op
            .argument(param)
            .and_then(Value::items)
            .ok_or_else(|| fail(op, format!("argument '{param}' is not an array of tensors")))?
            .to_vec();
        items.iter().map(|v| self.value(op, v, want)).collect()
    }

    /// The NNEF data type of a tensor argument (its graph tensor's, or the literal's).
    fn input_dtype(&self, op: &Operation, param: &str) -> Result<DataType, NnefError> {
        match op.argument(param) {
            Some(Value::Tensor(t)) => Ok(self.tensor(op, t)?.dtype),
            Some(Value::Scalar(_)) => Ok(DataType::Scalar),
            Some(Value::Integer(_)) => Ok(DataType::Integer),
            Some(Value::Logical(_)) => Ok(DataType::Logical),
            _ => Err(fail(op, format!("argument '{param}' is not a tensor"))),
        }
    }

    // ----- instructions --------------------------------------------------------------------

    /// Extents of instruction `x` (empty for a tuple).
    fn dims(&self, x: usize) -> Vec<i64> {
        self.b
            .shape(x)
            .ok()
            .and_then(Shape::as_array)
            .map(|a| a.dimensions.clone())
            .unwrap_or_default()
    }

    /// Element type of instruction `x` (pred for a tuple, which no rule asks for).
    fn ety(&self, x: usize) -> ElementType {
        self.b
            .shape(x)
            .ok()
            .and_then(Shape::as_array)
            .map_or(ElementType::Pred, |a| a.element_type)
    }

    /// A constant of extents `dims` from row-major values (floats rounded to nearest even,
    /// integers exact, pred true when non-zero).
    fn constant(
        &mut self,
        op: &Operation,
        ty: ElementType,
        dims: &[i64],
        values: &[f64],
    ) -> Result<usize, NnefError> {
        let shape = ArrayShape::new(ty, dims.to_vec());
        let literal = if ty.float_format().is_some() {
            ArrayLiteral::from_f64s(shape, values)
        } else {
            let ints: Vec<i128> = values
                .iter()
                .map(|&v| {
                    if ty.is_pred() {
                        i128::from(v != 0.0)
                    } else {
                        v as i128
                    }
                })
                .collect();
            ArrayLiteral::from_i128s(shape, &ints)
        }
        .map_err(|e| fail(op, format!("constant: {e}")))?;
        Ok(self.b.constant(Literal::Array(literal)))
    }

    /// A rank-0 constant.
    fn scalar(&mut self, op: &Operation, ty: ElementType, v: f64) -> Result<usize, NnefError> {
        self.constant(op, ty, &[], &[v])
    }

    /// A constant `v` of extents `dims` (a scalar broadcast).
    fn full(
        &mut self,
        op: &Operation,
        ty: ElementType,
        v: f64,
        dims: &[i64],
    ) -> Result<usize, NnefError> {
        let s = self.scalar(op, ty, v)?;
        if dims.is_empty() {
            return Ok(s);
        }
        self.b.broadcast(s, dims, &[]).at(op)
    }

    /// `x` reshaped to `dims` (no instruction when it already has them).
    fn reshape(&mut self, op: &Operation, x: usize, dims: &[i64]) -> Result<usize, NnefError> {
        if self.dims(x) == dims {
            return Ok(x);
        }
        self.b.reshape(x, dims).at(op)
    }

    /// NNEF broadcasting of `x` to extents `out` (§4.2.2): dimensions align from the left,
    /// missing trailing dimensions are singletons, a singleton extent repeats. Trailing
    /// singleton dimensions beyond `out`'s rank are dropped.
    fn broadcast_to(&mut self, op: &Operation, x: usize, out: &[i64]) -> Result<usize, NnefError> {
        let mut d = self.dims(x);
        if d == out {
            return Ok(x);
        }
        let mut x = x;
        if d.len() > out.len() {
            if d[out.len()..].iter().any(|&e| e != 1) {
                return Err(fail(
                    op,
                    format!("shape {d:?} does not broadcast to {out:?}"),
                ));
            }
            d.truncate(out.len());
            x = self.reshape(op, x, &d)?;
        }
        if d.iter().zip(out).any(|(&a, &b)| a != b && a != 1) {
            return Err(fail(
                op,
                format!("shape {d:?} does not broadcast to {out:?}"),
            ));
        }
        let mapping: Vec<i64> = (0..d.len() as i64).collect();
        self.b.broadcast_in_dim(x, out, &mapping).at(op)
    }

    /// The scalar computation `(a, b) -> opcode(a, b)` on `ty` (a reducer), added once.
    fn reducer(
        &mut self,
        op: &Operation,
        opcode: Opcode,
        ty: ElementType,
    ) -> Result<HloComputation, NnefError> {
        let name = format!("{}_{}", opcode.name().replace('-', "_"), ty.hlo_name());
        self.computation(op, &name, |b| {
            let s = Shape::array(ty, vec![]);
            let x = b.parameter(s.clone())?;
            let y = b.parameter(s)?;
            b.binary(opcode, x, y)
        })
    }

    /// The called computation `name`, built by `build` the first time it is asked for.
    fn computation(
        &mut self,
        op: &Operation,
        name: &str,
        build: impl FnOnce(&mut ComputationBuilder) -> Result<usize, BuildError>,
    ) -> Result<HloComputation, NnefError> {
        if let Some(c) = self.called.iter().find(|c| c.name == name) {
            return Ok(c.clone());
        }
        let mut b = ComputationBuilder::new(name);
        let root = build(&mut b).at(op)?;
        let c = b.try_build(root).at(op)?;
        self.called.push(c.clone());
        Ok(c)
    }
}

/// Extents as HLO dimension sizes.
fn dims_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

/// The number a literal in a tensor position stands for, as data type `want` (an integer
/// literal may stand for a scalar; integers must fit s32).
fn literal_number(op: &Operation, v: &Value, want: DataType) -> Result<f64, NnefError> {
    match (v, want) {
        (Value::Scalar(x), DataType::Scalar) => Ok(*x),
        (Value::Integer(i), DataType::Scalar) => Ok(*i as f64),
        (Value::Integer(i), DataType::Integer) if i32::try_from(*i).is_ok() => Ok(*i as f64),
        (Value::Integer(i), DataType::Integer) => Err(fail(
            op,
            format!("integer literal {i} does not fit the s32 integer tensors are lowered to"),
        )),
        (Value::Logical(b), DataType::Logical) => Ok(f64::from(u8::from(*b))),
        (v, want) => Err(fail(
            op,
            format!("{} cannot stand for a tensor<{}>", describe(v), want.name()),
        )),
    }
}
