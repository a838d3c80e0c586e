//! Verification of a whole module (cf. XLA `HloVerifier`).

use super::{infer_shape_in, shapes_compatible, InferenceContext};
use crate::hlo::ir::{AttrValue, HloComputation, HloInstruction, HloModule, Opcode};
use crate::shape::Shape;
use std::collections::HashSet;
use std::fmt;

/// A verification failure, naming the computation and (when it concerns one) the instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyError {
    /// The computation's name (without `%`).
    pub computation: String,
    /// `None` for errors about the computation or module as a whole.
    pub instruction: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyError {
    /// `computation %c, instruction %i: message` (or `computation %c: message`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "computation %{}", self.computation)?;
        if let Some(i) = &self.instruction {
            write!(f, ", instruction %{i}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Verifies a module:
///
/// - the entry index is valid and computation names are unique;
/// - in each computation: at least one instruction, a valid root, unique instruction names,
///   operands defined before use, parameter numbers exactly `0..n`, a parameter number only on
///   `parameter`, a literal (of the declared shape) on every `constant` and only there;
/// - every declared shape is well formed (`Shape::validate`);
/// - called computations exist and take the number of parameters their caller passes
///   (`call`, `map`, `fusion`: one per operand; `reduce`, `reduce-window`: one per operand;
///   `scatter`: one per operand but the indices; `sort`: two per operand; `all-reduce`,
///   `reduce-scatter`, `select-and-scatter`'s `select`/`scatter`: two; `while`, `conditional`: one);
/// - each declared shape matches inference (dimensions and element types; layouts and
///   dynamic-dimension flags are free) for the opcodes `infer_shape` implements; others are not
///   checked. A `scatter`'s update computation is checked against its operands' element types.
///
/// Errors: the first failure found, in computation and instruction order.
pub fn verify_module(m: &HloModule) -> Result<(), VerifyError> {
    let module_error = |message: String| VerifyError {
        computation: m
            .computations
            .get(m.entry)
            .map_or_else(|| m.name.clone(), |c| c.name.clone()),
        instruction: None,
        message,
    };
    if m.entry >= m.computations.len() {
        return Err(module_error(format!(
            "module `{}` has {} computation(s) but entry index {}",
            m.name,
            m.computations.len(),
            m.entry
        )));
    }
    let mut names = HashSet::new();
    for c in &m.computations {
        if !names.insert(c.name.as_str()) {
            return Err(VerifyError {
                computation: c.name.clone(),
                instruction: None,
                message: "duplicate computation name".into(),
            });
        }
    }
    m.computations
        .iter()
        .try_for_each(|c| verify_computation(m, c))
}

fn verify_computation(m: &HloModule, c: &HloComputation) -> Result<(), VerifyError> {
    let comp_error = |message: String| VerifyError {
        computation: c.name.clone(),
        instruction: None,
        message,
    };
    if c.instructions.is_empty() {
        return Err(comp_error("computation has no instructions".into()));
    }
    if c.root >= c.instructions.len() {
        return Err(comp_error(format!(
            "root index {} is out of range ({} instructions)",
            c.root,
            c.instructions.len()
        )));
    }
    let mut names = HashSet::new();
    let mut parameter_numbers = Vec::new();
    for (index, instr) in c.instructions.iter().enumerate() {
        let error = |message: String| VerifyError {
            computation: c.name.clone(),
            instruction: Some(instr.name.clone()),
            message,
        };
        if !names.insert(instr.name.as_str()) {
            return Err(error("duplicate instruction name".into()));
        }
        verify_instruction(m, c, index, instr, &mut parameter_numbers).map_err(error)?;
    }
    parameter_numbers.sort_unstable();
    for (expected, &(n, ref name)) in parameter_numbers.iter().enumerate() {
        if n != expected as i64 {
            return Err(VerifyError {
                computation: c.name.clone(),
                instruction: Some(name.clone()),
                message: format!(
                    "parameter numbers must be 0..{} without gaps or repeats; found parameter({n})",
                    parameter_numbers.len()
                ),
            });
        }
    }
    Ok(())
}

fn verify_instruction(
    m: &HloModule,
    c: &HloComputation,
    index: usize,
    instr: &HloInstruction,
    parameter_numbers: &mut Vec<(i64, String)>,
) -> Result<(), String> {
    for (k, &op) in instr.operands.iter().enumerate() {
        if op >= index {
            return Err(format!(
                "operand {k} refers to instruction #{op}, which is not defined before this one (#{index})"
            ));
        }
    }
    instr
        .shape
        .validate()
        .map_err(|e| format!("invalid shape `{}`: {e}", instr.shape))?;
    match (instr.opcode, instr.parameter_number) {
        (Opcode::Parameter, Some(n)) => parameter_numbers.push((n, instr.name.clone())),
        (Opcode::Parameter, None) => return Err("parameter without a parameter number".into()),
        (_, Some(n)) => {
            return Err(format!(
                "parameter number {n} on a {} instruction",
                instr.opcode
            ))
        }
        _ => {}
    }
    match (instr.opcode, &instr.literal) {
        (Opcode::Constant, Some(l)) => {
            let ls = l.shape();
            if !shapes_compatible(&ls, &instr.shape) {
                return Err(format!(
                    "constant's literal has shape `{ls}`, the instruction declares `{}`",
                    instr.shape
                ));
            }
        }
        (Opcode::Constant, None) => return Err("constant without a literal".into()),
        (_, Some(_)) => return Err(format!("literal on a {} instruction", instr.opcode)),
        _ => {}
    }
    for attr in &instr.attributes {
        let called: Vec<&str> = match &attr.value {
            AttrValue::Computation(n) => vec![n.as_str()],
            AttrValue::Computations(ns) => ns.iter().map(String::as_str).collect(),
            _ => continue,
        };
        for name in called {
            let callee = m
                .computation(name)
                .ok_or_else(|| format!("`{}` calls unknown computation %{name}", attr.name))?;
            if let Some(expected) =
                expected_parameter_count(instr.opcode, &attr.name, instr.operands.len())
            {
                let got = callee.parameters().len();
                if got != expected {
                    return Err(format!(
                        "`{}=%{name}` must take {expected} parameter(s), it takes {got}",
                        attr.name
                    ));
                }
            }
        }
    }
    let operand_shapes: Vec<&Shape> = instr
        .operands
        .iter()
        .map(|&i| &c.instructions[i].shape)
        .collect();
    let mut context = InferenceContext::from_declared(&instr.shape);
    let callee_shapes;
    if matches!(
        instr.opcode,
        Opcode::Call
            | Opcode::Fusion
            | Opcode::Scatter
            | Opcode::Reduce
            | Opcode::ReduceWindow
            | Opcode::SelectAndScatter
            | Opcode::AllReduce
            | Opcode::ReduceScatter
    ) {
        // `call`: the callee; `scatter`, `reduce`, `reduce-window`: `to_apply`;
        // `select-and-scatter`: its `scatter` computation.
        let called = if instr.opcode == Opcode::SelectAndScatter {
            match instr.attribute("scatter") {
                Some(AttrValue::Computation(n)) => Some(n.as_str()),
                _ => None,
            }
        } else {
            instr.called_computations().first().copied()
        };
        if let Some(callee) = called.and_then(|n| m.computation(n)) {
            callee_shapes = (
                callee.parameter_shapes(),
                callee.root_instruction().shape.clone(),
            );
            context.callee = Some((&callee_shapes.0, &callee_shapes.1));
        }
    }
    if instr.opcode == Opcode::SelectAndScatter {
        // The `select` computation: (T, T) -> pred[] for the operand's element type T.
        if let (Some(AttrValue::Computation(n)), Some(operand)) = (
            instr.attribute("select"),
            operand_shapes.first().and_then(|s| s.as_array()),
        ) {
            if let Some(select) = m.computation(n) {
                super::check_select_computation(
                    &select.parameter_shapes(),
                    &select.root_instruction().shape,
                    operand.element_type,
                )
                .map_err(|e| format!("select-and-scatter: {e}"))?;
            }
        }
    }
    let called_shapes: Vec<(Vec<Shape>, Shape)> = called_in_order(instr)
        .iter()
        .filter_map(|n| m.computation(n))
        .map(|c| (c.parameter_shapes(), c.root_instruction().shape.clone()))
        .collect();
    context.called = &called_shapes;
    match infer_shape_in(instr.opcode, &operand_shapes, &instr.attributes, &context) {
        Ok(inferred) if shapes_compatible(&inferred, &instr.shape) => Ok(()),
        Ok(inferred) => Err(format!(
            "declared shape `{}` does not match the inferred `{inferred}`",
            instr.shape
        )),
        Err(e) if e.is_not_inferable() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// The computations a control-flow instruction calls, in the order shape inference reads them
/// ([`InferenceContext::called`]): `while`: condition, body; `conditional`: true_computation,
/// false_computation, or branch_computations in order; `map`, `sort`: `to_apply`. Empty for other
/// opcodes.
pub fn called_in_order(instr: &HloInstruction) -> Vec<&str> {
    let named = |attr: &str| match instr.attribute(attr) {
        Some(AttrValue::Computation(n)) => vec![n.as_str()],
        Some(AttrValue::Computations(ns)) => ns.iter().map(String::as_str).collect(),
        _ => vec![],
    };
    match instr.opcode {
        Opcode::While => [named("condition"), named("body")].concat(),
        Opcode::Conditional if instr.attribute("branch_computations").is_some() => {
            named("branch_computations")
        }
        Opcode::Conditional => [named("true_computation"), named("false_computation")].concat(),
        Opcode::Map | Opcode::Sort => named("to_apply"),
        _ => vec![],
    }
}

/// How many parameters the computation in attribute `attr` of an `opcode` instruction with
/// `operands` operands must take, where XLA fixes it.
fn expected_parameter_count(opcode: Opcode, attr: &str, operands: usize) -> Option<usize> {
    use Opcode::*;
    Some(match (opcode, attr) {
        (Call | Map | Fusion | Reduce | ReduceWindow, _) => operands,
        (Scatter, "to_apply") => operands.checked_sub(1)?,
        (Sort, "to_apply") => 2 * operands,
        (AllReduce | AllReduceStart | ReduceScatter, "to_apply") => 2,
        (SelectAndScatter, "select" | "scatter") => 2,
        (While, "condition" | "body") => 1,
        (Conditional, _) => 1,
        _ => return None,
    })
}
