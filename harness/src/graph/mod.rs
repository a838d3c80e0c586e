//! Checking multi-operation graphs, and localizing a disagreement to the instruction at fault.
//!
//! A graph's root is first compared with the reference under the root's catalog budget. When it
//! disagrees, the graph is re-run instruction by instruction: the backend's value of each
//! instruction *in context* (the graph truncated there) is compared with the reference's exact
//! evaluation of that one instruction on the backend's own operand values, under that
//! instruction's catalog budget. The first instruction whose value is not explained that way is
//! at fault. When every instruction is explained, the root's difference is the accumulation of
//! rounding each instruction's budget allows, and the graph passes. An instruction without a
//! catalog entry is explained only by bit-exact agreement with the reference; when it differs, or
//! its value is not an array, localization stops there and the root's failure stands, unlocalized,
//! with the reason.

use crate::check::{check, BackendOutcome, CaseOutcome, Verdict};
use crate::executor::Stage;
use crate::minimize::{called_computations, single_op_module_in};
use conformance_spec::backend::SubnormalMode;
use conformance_spec::catalog::{Catalog, OpEntry};
use conformance_spec::hlo::{transform, HloInstruction, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::{Backend, BackendError, Capabilities};

/// The instruction a disagreement was localized to.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// The backend at fault.
    pub backend: String,
    /// The instruction's name in the graph.
    pub instruction: String,
    /// Its catalog entry's id.
    pub op: String,
}

/// The outcome of a graph: per backend, the root's verdict (`fail` when an instruction is at
/// fault, with that instruction's comparison, or when the failure could not be localized, with the
/// root's), the first fault found, and why a failure was not localized.
#[derive(Clone, Debug)]
pub struct GraphCheck {
    pub outcome: CaseOutcome,
    pub fault: Option<Fault>,
    /// Set when a backend's root disagrees but localization stopped at an instruction it cannot
    /// judge alone: names that instruction and the reason.
    pub unlocalized: Option<String>,
}

/// What re-running a graph instruction by instruction found for one backend.
enum Localized {
    /// This instruction's value is not explained by its operands' values.
    Fault(Fault, Box<BackendOutcome>),
    /// Every instruction is within its budget.
    Explained,
    /// Localization stopped here: the reason.
    Stopped(String),
}

/// The catalog entry of an instruction (its first operand's element type decides among entries
/// of one opcode; the result's for an instruction without operands, such as `iota`).
pub fn entry_of<'c>(
    catalog: &'c Catalog,
    module: &HloModule,
    instruction: &HloInstruction,
) -> Option<&'c OpEntry> {
    let entry = module.entry_computation();
    let ty = match instruction.operands.first() {
        Some(&o) => entry.instructions[o].shape.as_array(),
        None => instruction.shape.as_array(),
    }
    .map(|a| a.element_type)?;
    catalog.entry_for(instruction.opcode.name(), &instruction.attributes, ty)
}

/// `module` with instruction `i` of the entry computation as its root, without the instructions
/// `i` does not depend on (parameters stay).
pub fn truncated(module: &HloModule, i: usize) -> HloModule {
    transform::with_root(module, i)
}

/// A backend that returns one fixed result: lets [`check`] compare a value computed elsewhere
/// (an instruction's value in context) with the reference's evaluation.
struct Recorded<'a> {
    name: &'a str,
    value: Literal,
}

impl Backend for Recorded<'_> {
    fn name(&self) -> &str {
        self.name
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            opcodes: vec![],
            element_types: vec![],
            any_layout: true,
            subnormals: SubnormalMode::Preserve,
        }
    }
    fn execute(&self, _: &HloModule, _: &[Literal]) -> Result<Literal, BackendError> {
        Ok(self.value.clone())
    }
}

/// Checks a graph on `backends` (the reference first). `stage` as in [`check`].
pub fn check_graph(
    catalog: &Catalog,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
    stage: &Stage,
) -> GraphCheck {
    let root = module.entry_computation().root_instruction();
    let Some(root_op) = entry_of(catalog, module, root) else {
        return GraphCheck {
            outcome: CaseOutcome {
                reference_micros: 0,
                reference_error: Some(format!(
                    "the root `{}` ({}) has no catalog entry",
                    root.name,
                    root.opcode.name()
                )),
                outcomes: vec![],
            },
            fault: None,
            unlocalized: None,
        };
    };
    let mut outcome = check(root_op, module, args, backends, stage);
    let mut fault = None;
    let mut unlocalized = None;
    if outcome.reference_error.is_some() {
        return GraphCheck {
            outcome,
            fault,
            unlocalized,
        };
    }
    for (k, o) in outcome.outcomes.iter_mut().enumerate() {
        if o.verdict != Verdict::Fail {
            continue;
        }
        match localize(catalog, module, args, backends[0], backends[k + 1]) {
            Localized::Fault(f, at_fault) => {
                *o = *at_fault;
                fault.get_or_insert(f);
            }
            Localized::Explained => {
                // Every instruction is within its budget: accumulated rounding.
                o.verdict = Verdict::Pass;
            }
            Localized::Stopped(reason) => {
                unlocalized.get_or_insert(format!("{}: {reason}", o.backend));
            }
        }
    }
    GraphCheck {
        outcome,
        fault,
        unlocalized,
    }
}

/// The first instruction whose in-context value on `backend` the reference does not reproduce
/// from the backend's operand values, with that comparison.
fn localize(
    catalog: &Catalog,
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
    backend: &dyn Backend,
) -> Localized {
    let entry = module.entry_computation();
    let mut values: Vec<Option<ArrayLiteral>> = vec![None; entry.instructions.len()];
    // What a cut-out instruction may call (scatter's update computation, ...).
    let called = called_computations(module);
    for (i, instruction) in entry.instructions.iter().enumerate() {
        if instruction.opcode == Opcode::Parameter {
            let n = instruction.parameter_number.unwrap_or(0) as usize;
            values[i] = args.get(n).and_then(Literal::as_array).cloned();
            continue;
        }
        let stopped = |why: &str| {
            Localized::Stopped(format!(
                "instruction `{}` ({}) {why}",
                instruction.name,
                instruction.opcode.name()
            ))
        };
        let in_context = match backend.execute(&truncated(module, i), args) {
            Ok(Literal::Array(a)) => a,
            Ok(_) => return stopped("is not an array"),
            Err(e) => {
                return Localized::Fault(
                    fault_at(catalog, module, instruction, backend),
                    Box::new(BackendOutcome {
                        backend: backend.name().to_string(),
                        verdict: Verdict::Error,
                        comparison: None,
                        error: Some(e.to_string()),
                        micros: 0,
                    }),
                )
            }
        };
        if instruction.opcode == Opcode::Constant {
            // A constant is explained only by its literal, bit for bit.
            if instruction.literal.as_ref() != Some(&Literal::Array(in_context.clone())) {
                return stopped("evaluates to something other than its literal");
            }
            values[i] = Some(in_context);
            continue;
        }
        let operands: Option<Vec<ArrayLiteral>> = instruction
            .operands
            .iter()
            .map(|&o| values[o].clone())
            .collect();
        let Some(operands) = operands else {
            return stopped("has an operand that is not an array");
        };
        let (single, single_args) = single_op_module_in(instruction, &operands, &called);
        let Some(op) = entry_of(catalog, module, instruction) else {
            // Without a catalog entry only bit-exact agreement with the reference explains it.
            match reference.execute(&single, &single_args) {
                Ok(Literal::Array(exact)) if exact.logical_eq(&in_context) => {
                    values[i] = Some(in_context);
                    continue;
                }
                _ => return stopped("differs from the reference and has no catalog entry"),
            }
        };
        let recorded = Recorded {
            name: backend.name(),
            value: Literal::Array(in_context.clone()),
        };
        let o = check(
            op,
            &single,
            &single_args,
            &[reference, &recorded],
            &Stage::default(),
        );
        if let Some(outcome) = o.outcomes.into_iter().next() {
            if outcome.verdict == Verdict::Fail {
                return Localized::Fault(
                    fault_at(catalog, module, instruction, backend),
                    Box::new(outcome),
                );
            }
        }
        values[i] = Some(in_context);
    }
    Localized::Explained
}

fn fault_at(
    catalog: &Catalog,
    module: &HloModule,
    instruction: &HloInstruction,
    backend: &dyn Backend,
) -> Fault {
    Fault {
        backend: backend.name().to_string(),
        instruction: instruction.name.clone(),
        op: entry_of(catalog, module, instruction)
            .map_or_else(|| instruction.opcode.name().to_string(), |e| e.id.clone()),
    }
}
