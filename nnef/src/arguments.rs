//! The arguments of a lowered graph: graph inputs and variables, from `.dat` files where the
//! container has them and generated deterministically otherwise ([`crate::weights`]).

use conformance_spec::literal::Literal;

use crate::container::{GraphSource, LoadError};
use crate::graph::{Graph, Operation, Value};
use crate::weights::{self, WeightRole};

/// The most elements an argument may have (2^30: 4 GiB of f32).
pub const MAX_ARGUMENT_ELEMENTS: usize = 1 << 30;

/// One argument per name of `parameters` (tensor names in HLO parameter order, as
/// [`crate::lower::Lowered::parameters`]): a graph input gets [`weights::generate_input`]; a
/// `variable` gets its `.dat` file from `source`, or generated values whose range follows how
/// the graph uses it ([`role_of`]).
///
/// Errors: a name that is neither an input nor a variable's tensor; a tensor of more than
/// [`MAX_ARGUMENT_ELEMENTS`] elements; a `.dat` file that does not match its variable
/// ([`LoadError`] naming the file).
pub fn arguments(
    graph: &Graph,
    parameters: &[String],
    source: Option<&GraphSource>,
    seed: u64,
) -> Result<Vec<Literal>, LoadError> {
    let file = || source.map_or_else(|| "graph".to_string(), |s| s.path.display().to_string());
    parameters
        .iter()
        .map(|name| {
            let tensor = graph.tensor(name).ok_or_else(|| {
                LoadError::message(
                    file(),
                    format!("parameter '{name}' is not a tensor of the graph"),
                )
            })?;
            let elements = tensor.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
            if elements.is_none_or(|n| n > MAX_ARGUMENT_ELEMENTS) {
                return Err(LoadError::message(
                    file(),
                    format!(
                        "tensor '{name}' of shape {:?} has more than {MAX_ARGUMENT_ELEMENTS} elements: too large to generate (use --input-shape)",
                        tensor.shape
                    ),
                ));
            }
            if graph.inputs.contains(name) {
                return Ok(weights::generate_input(
                    name,
                    &tensor.shape,
                    tensor.dtype,
                    seed,
                ));
            }
            let label = variable_label(graph, name).ok_or_else(|| {
                LoadError::message(
                    file(),
                    format!("parameter '{name}' is neither an input nor a variable"),
                )
            })?;
            let role = role_of(graph, name);
            match source {
                Some(s) => s.variable_value(&label, tensor, role, seed),
                None => Ok(weights::generate(
                    &label,
                    &tensor.shape,
                    tensor.dtype,
                    role,
                    seed,
                )),
            }
        })
        .collect()
}

/// Checks every `.dat` file of `source` that a `variable` of `graph` reads against the tensor the
/// variable declares, exactly as [`arguments`] reads it for a run: the shape (trailing extents of
/// 1 aside, [`crate::dat::same_shape`]), the item type against the tensor's data type, and a
/// quantized file's quantization. `nnef check` uses it to find a mismatch without running the
/// graph. Variables without a file are not checked (their values are generated).
///
/// Errors: the first variable, in graph order, whose file does not match ([`LoadError`] naming
/// the `.dat` file), or a variable whose result is not a tensor of the graph.
pub fn check_variable_files(graph: &Graph, source: &GraphSource) -> Result<(), LoadError> {
    let mut variables = Vec::new();
    visit(&graph.operations, &mut |op| {
        if op.name != "variable" {
            return;
        }
        let label = op.argument("label").and_then(Value::as_str);
        let tensor = op.result("output").and_then(Value::as_tensor);
        if let (Some(label), Some(tensor)) = (label, tensor) {
            variables.push((label.to_string(), tensor.to_string()));
        }
    });
    for (label, name) in variables {
        if !source.variables.contains_key(&label) {
            continue;
        }
        let tensor = graph.tensor(&name).ok_or_else(|| {
            LoadError::message(
                source.path.display().to_string(),
                format!("variable '{label}' assigns '{name}', which is not a tensor of the graph"),
            )
        })?;
        source.variable_value(&label, tensor, role_of(graph, &name), 0)?;
    }
    Ok(())
}

/// The label of the `variable` producing tensor `name`.
pub fn variable_label(graph: &Graph, name: &str) -> Option<String> {
    let mut found = None;
    visit(&graph.operations, &mut |op| {
        if op.name == "variable" && op.result("output").and_then(Value::as_tensor) == Some(name) {
            found = op
                .argument("label")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
    });
    found
}

/// How generated values for variable `tensor` are drawn, from the parameters it is passed to:
/// `variance` (normalizations) → positive; a filter or matrix operand (`filter`, `plane_filter`,
/// `point_filter`, `A`, `B`, `weights`) → scaled by fan-in; anything else (biases, means,
/// offsets) → uniform in [-1, 1].
pub fn role_of(graph: &Graph, tensor: &str) -> WeightRole {
    let mut role = WeightRole::Any;
    visit(&graph.operations, &mut |op| {
        for (param, value) in &op.arguments {
            if !value.mentions(tensor) {
                continue;
            }
            match param.as_str() {
                "variance" => role = WeightRole::Positive,
                "filter" | "plane_filter" | "point_filter" | "A" | "B" | "weights"
                    if role == WeightRole::Any =>
                {
                    role = WeightRole::Weight
                }
                _ => {}
            }
        }
    });
    role
}

/// Calls `f` on every operation, top-level and inside expansions, in order.
pub fn visit(ops: &[Operation], f: &mut dyn FnMut(&Operation)) {
    for op in ops {
        f(op);
        visit(&op.expansion, f);
    }
}
