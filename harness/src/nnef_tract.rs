//! The `tract` backend of `conformance nnef run` (cargo feature `tract`, on by default): the NNEF
//! graph itself, not its HLO lowering, run in-process by sonos/tract (`tract-nnef`), with exactly
//! the inputs and weights the other backends get.
//!
//! tract is given the graph text (with `--input-shape` overrides applied) and, in memory, one
//! tensor per `variable` label and one per graph input: the values of
//! [`conformance_nnef::arguments::arguments`] (`.dat` files where the container has them, values
//! generated from the seed otherwise). Data types: `scalar` is f32, `integer` is i64 in tract and
//! s32 here (values converted), `logical` is bool. Quantized graphs (`graph.quant`) are refused.
//!
//! Judging an output: first as every backend's root is judged (the reference runs the output's
//! lowering; [`crate::check::check`] compares under the root's catalog budget). tract cannot run
//! single HLO instructions, so a failure is then re-judged at NNEF-tensor granularity: every
//! top-level tensor is lowered, the reference evaluates it instruction by instruction, and each
//! instruction's catalog budget (ULPs, or the summation bound of a contraction or reduction) is
//! propagated forward as a per-element absolute error bound (first-order: sums add, products
//! scale, monotone functions map interval ends, data movement moves the bounds, a comparison whose
//! operands are within their bounds of each other may go either way). An output within its bound is
//! explained by accumulated rounding and passes; otherwise tract is asked for every top-level
//! tensor and the first NNEF operation, in body order, whose result is outside its bound is named.
//! tract implements NNEF operations, not our lowering of them, so an instruction inside one
//! operation's lowering (not the one computing the operation's result) that rounds is allowed
//! one ULP more than its budget: tract need not round where the lowering does.

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use conformance_nnef::container::GraphSource;
use conformance_nnef::graph::{DataType, Graph, Value};
use conformance_nnef::{arguments, lower, parse_document_with, printer, Dialect};
use conformance_spec::backend::SubnormalMode;
use conformance_spec::catalog::Catalog;
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::HloModule;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{Backend, BackendError, Capabilities};
use tract_nnef::internal::{anyhow, Identifier};
use tract_nnef::prelude::{Framework, IntoRunnable, IntoTValue, TVec, Tensor, TractResult};

use crate::check::{BackendOutcome, Verdict};
use crate::compare::Comparison;
use crate::executor::Stage;
use crate::nnef_cmd::InputShapes;
use crate::oracles::propagated::Bounds;

/// The backend's name on the command line and in verdicts.
pub const NAME: &str = "tract";

/// tract's verdict on one output of a graph.
#[derive(Debug, Clone)]
pub struct TractOutput {
    /// The NNEF output tensor.
    pub tensor: String,
    /// Verdict against the reference (`Unsupported` with tract's message when tract refuses the
    /// graph), the comparison, and tract's run time in microseconds.
    pub outcome: BackendOutcome,
    /// For a disagreement: the NNEF operation at fault, `NAME at LINE:COL` of its invocation.
    pub at: Option<String>,
    /// How the verdict was reached when not by the root's budget alone, or why a disagreement
    /// was not localized.
    pub note: Option<String>,
}

impl TractOutput {
    fn new(tensor: &str, outcome: BackendOutcome) -> TractOutput {
        TractOutput {
            tensor: tensor.to_string(),
            outcome,
            at: None,
            note: None,
        }
    }
}

/// tract's outcome with `verdict`, `comparison` and `error`.
fn outcome(
    verdict: Verdict,
    comparison: Option<Comparison>,
    error: Option<String>,
) -> BackendOutcome {
    BackendOutcome {
        backend: NAME.into(),
        verdict,
        comparison,
        error,
        micros: 0,
    }
}

/// Why tract produced no values.
enum Refusal {
    /// tract's error (parse, unsupported operation, shape, run).
    Refused(String),
    /// tract panicked.
    Panicked(String),
}

/// Runs the graph at `path` on tract and judges each output against `reference` (see the module
/// documentation). `shapes` overrides input shapes; inputs and missing weights come from `seed`.
///
/// Errors (exit code, message naming the file): the graph does not load or lower (2), or the
/// reference fails on it (3). tract refusing or failing is a verdict, not an error.
pub fn check_graph(
    catalog: &Catalog,
    path: &Path,
    shapes: &InputShapes,
    seed: u64,
    reference: &dyn Backend,
) -> Result<Vec<TractOutput>, (i32, String)> {
    check_graph_with(catalog, path, shapes, seed, reference, &|_, _| {})
}

/// As [`check_graph`], with `feed` called on each value given to tract (graph input or variable,
/// by tensor name) before tract sees it, and never on what the reference gets: a test hook that
/// plants a disagreement.
pub fn check_graph_with(
    catalog: &Catalog,
    path: &Path,
    shapes: &InputShapes,
    seed: u64,
    reference: &dyn Backend,
    feed: &dyn Fn(&str, &mut Literal),
) -> Result<Vec<TractOutput>, (i32, String)> {
    let file = path.display().to_string();
    let (source, graph) = crate::nnef_cmd::load(path, shapes, Dialect::Seed003)?;
    let verdict = |verdict, error: Option<String>, micros| {
        let o = BackendOutcome {
            micros,
            ..outcome(verdict, None, error)
        };
        Ok(graph
            .outputs
            .iter()
            .map(|t| TractOutput::new(t, o.clone()))
            .collect())
    };
    if let Some(why) = quantized(&graph) {
        return verdict(Verdict::Unsupported, Some(why), 0);
    }
    let tract = TractGraph::new(&graph, &source, shapes, seed, feed, &file)?;
    let started = Instant::now();
    let values = tract.run(&graph.outputs);
    let micros = started.elapsed().as_micros() as u64;
    let values = match values {
        Ok(v) => v,
        Err(Refusal::Refused(e)) => return verdict(Verdict::Unsupported, Some(e), micros),
        Err(Refusal::Panicked(e)) => return verdict(Verdict::Error, Some(e), micros),
    };
    let mut bounds = None;
    let mut intermediates = None;
    let mut checks = Vec::new();
    for (tensor, got) in graph.outputs.iter().zip(values) {
        let mut outcome = root_check(catalog, &graph, &source, seed, reference, tensor, &got)?;
        outcome.micros = micros;
        let mut check = TractOutput::new(tensor, outcome);
        if check.outcome.verdict == Verdict::Fail {
            let b = bounds.get_or_insert_with(|| {
                Bounds::new(catalog, &graph, &source, seed, reference, &file)
            });
            match b {
                Err(why) => check.note = Some(format!("not localized: {why}")),
                Ok(b) => judge_failure(&mut check, b, &tract, &graph, &got, &mut intermediates),
            }
        }
        checks.push(check);
    }
    Ok(checks)
}

/// Why tract is not given the graph: a tensor quantized by `graph.quant`.
fn quantized(graph: &Graph) -> Option<String> {
    let t = graph.tensors.values().find(|t| t.quantization.is_some())?;
    Some(format!(
        "quantized graphs are not passed to tract ('{}' is quantized)",
        t.name
    ))
}

/// Re-judges a failing output against its propagated bound and, if it still fails, names the
/// first top-level operation whose result tract computes outside its bound.
fn judge_failure(
    check: &mut TractOutput,
    bounds: &Bounds,
    tract: &TractGraph,
    graph: &Graph,
    got: &Literal,
    intermediates: &mut Option<Result<BTreeMap<String, Literal>, String>>,
) {
    let Some(c) = bounds.judge(&check.tensor, got) else {
        check.note = Some("not localized: the output is not computed by the lowering".into());
        return;
    };
    let agrees = c.agrees();
    check.outcome.comparison = Some(c);
    if agrees {
        check.outcome.verdict = Verdict::Pass;
        check.note = Some("beyond the root's budget, within the bound each instruction's budget propagates to it (accumulated rounding)".into());
        return;
    }
    let values = intermediates.get_or_insert_with(|| {
        let names = bounds.tensors.clone();
        match tract.run(&names) {
            Ok(v) => Ok(names.into_iter().zip(v).collect()),
            Err(Refusal::Refused(e) | Refusal::Panicked(e)) => Err(e),
        }
    });
    let values = match values {
        Ok(v) => v,
        Err(e) => {
            check.note = Some(format!(
                "not localized: tract fails with every tensor as an output: {e}"
            ));
            return;
        }
    };
    for op in &graph.operations {
        for t in op.results.iter().flat_map(|(_, v)| v.tensor_names()) {
            let judged = values.get(t).and_then(|v| bounds.judge(t, v));
            if judged.is_some_and(|c| !c.agrees()) {
                check.at = Some(format!("{} at {}", op.name, op.span));
                check.note = bounds.unbounded_note();
                return;
            }
        }
    }
    check.note = Some("not localized: with every tensor as an output, each is within its bound (tract computes that model differently)".into());
}

/// The root check of output `tensor`: the reference runs the output's lowering and
/// [`crate::check::check`] compares tract's value `got` with it under the root's catalog entry.
fn root_check(
    catalog: &Catalog,
    graph: &Graph,
    source: &GraphSource,
    seed: u64,
    reference: &dyn Backend,
    tensor: &str,
    got: &Literal,
) -> Result<BackendOutcome, (i32, String)> {
    let file = source.path.display().to_string();
    let lowered = lower::lower_quantized(graph, &[tensor.to_string()]);
    let lowered = lowered.map_err(|e| (2, e.in_file(&file)))?;
    let args = arguments::arguments(graph, &lowered.parameters, Some(source), seed);
    let args = args.map_err(|e| (2, e.to_string()))?;
    let (_, targets, _) = crate::replay::targets_of(catalog, &lowered.module, &file)?;
    let fixed = Fixed(got.clone());
    let refs: [&dyn Backend; 2] = [reference, &fixed];
    let failed = |e: &str| {
        (
            3,
            format!("{file}: the reference failed on output '{tensor}': {e}"),
        )
    };
    let t = targets.first().ok_or_else(|| failed("nothing to check"))?;
    let case = crate::check::check(t.op, &t.module, &args, &refs, &Stage::default());
    if let Some(e) = case.reference_error {
        return Err(failed(&e));
    }
    case.outcomes
        .into_iter()
        .next()
        .ok_or_else(|| failed("no verdict"))
}

/// A backend that returns one fixed value: tract's, for [`crate::check::check`].
struct Fixed(Literal);

impl Backend for Fixed {
    fn name(&self) -> &str {
        NAME
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            opcodes: vec![],
            element_types: vec![],
            any_layout: true,
            subnormals: SubnormalMode::Preserve,
            subnormals_flushed_in: vec![],
            rng_bit_layout: None,
            devices: 1,
        }
    }
    fn execute(&self, _: &HloModule, _: &[Literal]) -> Result<Literal, BackendError> {
        Ok(self.0.clone())
    }
}

/// A graph as tract gets it: its text and the values of its inputs and variables.
struct TractGraph {
    text: String,
    /// Graph inputs (in declaration order) and their values.
    inputs: Vec<(String, Literal)>,
    /// Variable labels and their values.
    variables: Vec<(String, Literal)>,
    /// Each tensor's data type, for tract's results.
    types: BTreeMap<String, DataType>,
}

impl TractGraph {
    /// The graph's text (shape overrides applied) and its arguments as
    /// [`arguments::arguments`] makes them, each passed through `feed`.
    fn new(
        graph: &Graph,
        source: &GraphSource,
        shapes: &InputShapes,
        seed: u64,
        feed: &dyn Fn(&str, &mut Literal),
        file: &str,
    ) -> Result<TractGraph, (i32, String)> {
        let text = if shapes.input_shapes.is_empty() {
            source.text.clone()
        } else {
            let document = parse_document_with(&source.text, Dialect::Seed003);
            let mut document = document.map_err(|e| (2, e.in_file(file)))?;
            let overridden = crate::nnef_cmd::override_shapes(&mut document, shapes);
            overridden.map_err(|e| (2, format!("{file}: {e}")))?;
            printer::print_document(&document)
        };
        let mut variables: Vec<(String, String)> = Vec::new();
        arguments::visit(&graph.operations, &mut |op| {
            let label = op.argument("label").and_then(Value::as_str);
            let tensor = op.result("output").and_then(Value::as_tensor);
            if let (true, Some(l), Some(t)) = (op.name == "variable", label, tensor) {
                if !variables.iter().any(|(v, _)| v == l) {
                    variables.push((l.to_string(), t.to_string()));
                }
            }
        });
        let names: Vec<String> = graph
            .inputs
            .iter()
            .chain(variables.iter().map(|(_, t)| t))
            .cloned()
            .collect();
        let values = arguments::arguments(graph, &names, Some(source), seed);
        let values = values.map_err(|e| (2, e.to_string()))?;
        let mut inputs: Vec<(String, Literal)> = names.into_iter().zip(values).collect();
        for (name, value) in &mut inputs {
            feed(name, value);
        }
        let values = inputs
            .split_off(graph.inputs.len())
            .into_iter()
            .map(|(_, v)| v);
        let variables = variables.into_iter().map(|(l, _)| l).zip(values).collect();
        let types = graph
            .tensors
            .iter()
            .map(|(n, t)| (n.clone(), t.dtype))
            .collect();
        Ok(TractGraph {
            text,
            inputs,
            variables,
            types,
        })
    }

    /// tract's values of the top-level tensors `outputs` (the graph's results replaced by them),
    /// each as a literal of the tensor's NNEF type (f32, s32, pred).
    fn run(&self, outputs: &[String]) -> Result<Vec<Literal>, Refusal> {
        // tract asserts on some inputs: its panic is a verdict, reported rather than printed.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let result = catch_unwind(AssertUnwindSafe(|| self.run_unguarded(outputs)));
        std::panic::set_hook(hook);
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(Refusal::Refused(format!("{e:#}"))),
            Err(payload) => {
                let message = crate::executor::panic_message(payload.as_ref()).replace('\n', " ");
                Err(Refusal::Panicked(format!("tract panicked: {message}")))
            }
        }
    }

    fn run_unguarded(&self, outputs: &[String]) -> TractResult<Vec<Literal>> {
        let mut doc = tract_nnef::ast::parse::parse_document(&self.text)?;
        doc.graph_def.results = outputs.iter().map(|o| Identifier(o.clone())).collect();
        let mut tensors = HashMap::new();
        for (label, value) in &self.variables {
            tensors.insert(Identifier(label.clone()), Arc::new(to_tract(value)?));
        }
        let resources = HashMap::new();
        let proto = tract_nnef::ProtoModel {
            doc,
            tensors,
            quantization: None,
            resources,
        };
        proto.validate()?;
        let model = tract_nnef::nnef().model_for_proto_model(&proto)?;
        let mut inputs: TVec<_> = TVec::new();
        for (k, outlet) in model.input_outlets()?.iter().enumerate() {
            let name = &model.node(outlet.node).name;
            let value = self
                .inputs
                .iter()
                .find(|(n, _)| n == name)
                .or(self.inputs.get(k));
            let value = value.ok_or_else(|| anyhow!("no value for tract's input {name}"))?;
            inputs.push(to_tract(&value.1)?.into_tvalue());
        }
        let plan = IntoRunnable::into_runnable(model.into_optimized()?)?;
        let results = plan.run(inputs)?;
        let types = outputs
            .iter()
            .map(|n| self.types.get(n).copied().unwrap_or(DataType::Scalar));
        types
            .zip(results.iter())
            .map(|(dtype, t)| from_tract(t, dtype))
            .collect()
    }
}

/// A literal (f32, s32 or pred array) as a tract tensor (f32, i64, bool).
fn to_tract(value: &Literal) -> TractResult<Tensor> {
    let a = value
        .as_array()
        .ok_or_else(|| anyhow!("a tuple is not a tensor"))?;
    let shape: Vec<usize> = a.dimensions().iter().map(|&d| d.max(0) as usize).collect();
    let ints = || a.to_i128s().unwrap_or_default().into_iter();
    match a.element_type() {
        ElementType::Pred => {
            Tensor::from_shape(&shape, &ints().map(|x| x != 0).collect::<Vec<_>>())
        }
        t if t.is_integer() => {
            Tensor::from_shape(&shape, &ints().map(|x| x as i64).collect::<Vec<_>>())
        }
        _ => {
            let v: Vec<f32> = a
                .to_f64s()
                .unwrap_or_default()
                .iter()
                .map(|&x| x as f32)
                .collect();
            Tensor::from_shape(&shape, &v)
        }
    }
}

/// A tract tensor as a literal of NNEF type `dtype`, with tract's shape.
fn from_tract(t: &Tensor, dtype: DataType) -> TractResult<Literal> {
    let dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let shape = ArrayShape::new(lower::element_type(dtype), dims);
    let t = t.cast_to::<f64>()?;
    let v: Vec<f64> = t.to_plain_array_view::<f64>()?.iter().copied().collect();
    let literal = match dtype {
        DataType::Scalar => ArrayLiteral::from_f64s(shape, &v),
        _ => ArrayLiteral::from_i128s(shape, &v.iter().map(|&x| x as i128).collect::<Vec<_>>()),
    };
    literal
        .map(Literal::Array)
        .map_err(|e| anyhow!("tract's result: {e}"))
}
