//! Checking multi-operation graphs, and localizing a disagreement to the instruction at fault.
//!
//! A graph's root is first compared with the reference under the root's catalog budget. When it
//! disagrees, the graph is re-run instruction by instruction: the backend's value of each
//! instruction *in context* (the graph truncated there) is compared with the reference's exact
//! evaluation of that one instruction on the backend's own operand values, under that
//! instruction's catalog budget. The first instruction whose value is not explained that way is
//! at fault. When every instruction is explained, the root's difference is the accumulation of
//! rounding each instruction's budget allows, and the graph passes. An instruction without a
//! catalog entry is explained only by bit-exact agreement with the reference; when it differs,
//! localization stops there and the root's failure stands, unlocalized, with the reason.
//!
//! An instruction that calls computations (`while`, `conditional`, `call`, `map`) and is not
//! explained as a whole is stepped into ([`inside`]): its computations are run on the backend one
//! trip, branch or element at a time, each checked as a graph of its own on the backend's own
//! values, so a disagreement inside a loop body names the instruction, the computation and the
//! trip, and rounding that accumulates over trips within each instruction's budget passes.

mod inside;

use crate::check::{check, BackendOutcome, CaseOutcome, Verdict};
use crate::executor::Stage;
use crate::minimize::{called_computations, single_op_module_of};
use conformance_spec::backend::SubnormalMode;
use conformance_spec::catalog::{Catalog, OpEntry};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{transform, HloInstruction, HloModule, Opcode};
use conformance_spec::literal::Literal;
use conformance_spec::{Backend, BackendError, Capabilities};

/// The instruction a disagreement was localized to.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// The backend at fault.
    pub backend: String,
    /// The instruction's name in the graph (in the innermost computation of `within`).
    pub instruction: String,
    /// Its catalog entry's id.
    pub op: String,
    /// The element type of its catalog entry (the case's element type), e.g. `f32`.
    pub dtype: String,
    /// Where the instruction is when it is inside called computations, outermost first (e.g.
    /// "trip 3 of `while.7`, body `region_1.12`"); empty in the entry computation.
    pub within: Vec<String>,
    /// For a fault inside a called computation: that computation as the entry of a module, with
    /// the (backend's) arguments it had when the fault appeared, to reproduce and minimize it.
    pub scope: Option<Box<(HloModule, Vec<Literal>)>>,
}

impl Fault {
    /// "instruction `x` (op)", followed by where it is ("in trip 3 of `while.7`, body `b`").
    pub fn describe(&self) -> String {
        let mut s = format!("instruction `{}` ({})", self.instruction, self.op);
        for w in &self.within {
            s.push_str(" in ");
            s.push_str(w);
        }
        s
    }
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
    /// Every instruction is within its budget; the number of elements explained only as fused
    /// multiply-adds ([`crate::oracles::fused`]).
    Explained(u64),
    /// Localization stopped here: the reason.
    Stopped(String),
}

/// The catalog entry of an instruction (the element type of
/// [`conformance_spec::catalog::entry_element_type`] decides among the entries of one opcode).
pub fn entry_of<'c>(
    catalog: &'c Catalog,
    module: &HloModule,
    instruction: &HloInstruction,
) -> Option<&'c OpEntry> {
    let ty = instruction_element_type(module, instruction)?;
    catalog.entry_for(instruction.opcode.name(), &instruction.attributes, ty)
}

/// The element type that names the catalog entry of an instruction of the entry computation
/// ([`conformance_spec::catalog::entry_element_type`]).
pub fn instruction_element_type(
    module: &HloModule,
    instruction: &HloInstruction,
) -> Option<conformance_spec::ElementType> {
    let entry = module.entry_computation();
    let operand_shapes: Vec<&conformance_spec::Shape> = instruction
        .operands
        .iter()
        .filter_map(|&o| entry.instructions.get(o))
        .map(|i| &i.shape)
        .collect();
    conformance_spec::catalog::entry_element_type(
        instruction.opcode,
        &operand_shapes,
        &instruction.shape,
    )
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
    /// The recorded backend's subnormal mode and the types it flushes (a flushing backend's
    /// values are judged as such).
    subnormals: SubnormalMode,
    subnormals_flushed_in: Vec<ElementType>,
    /// The recorded backend's declared `rng-bit-generator` layout.
    rng_bit_layout: Option<String>,
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
            subnormals: self.subnormals,
            subnormals_flushed_in: self.subnormals_flushed_in.clone(),
            rng_bit_layout: self.rng_bit_layout.clone(),
            devices: conformance_spec::collective::MAX_DEVICES,
        }
    }
    fn execute(&self, _: &HloModule, _: &[Literal]) -> Result<Literal, BackendError> {
        Ok(self.value.clone())
    }
}

/// Checks a generated case of catalog entry `op` on `backends` (the reference first): with
/// [`check`], or, when the operation calls computations whose instructions carry their own
/// budgets (`call`, `map`, `conditional`, `while`: a NaN or a rounding inside is judged by the
/// instruction that makes it), as a graph, so that its value is stepped into when it is not
/// reproduced as a whole. Returns the outcome and the instruction at fault inside, if any.
pub fn check_operation(
    catalog: &Catalog,
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
    stage: &Stage,
) -> (CaseOutcome, Option<Fault>) {
    use conformance_spec::catalog::Signature;
    if matches!(
        op.signature,
        Signature::Call | Signature::Map | Signature::Conditional | Signature::While
    ) {
        let g = check_graph(catalog, module, args, backends, stage);
        (g.outcome, g.fault)
    } else {
        (check(op, module, args, backends, stage), None)
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
            Localized::Explained(contracted) => {
                // Every instruction is within its budget: accumulated rounding.
                o.verdict = Verdict::Pass;
                if let Some(c) = o.comparison.as_mut() {
                    c.fused_multiply_adds += contracted;
                }
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
    let mut values: Vec<Option<Literal>> = vec![None; entry.instructions.len()];
    let mut contracted = 0u64;
    // What a cut-out instruction may call (scatter's update computation, a loop's body, ...).
    let called = called_computations(module);
    // A module of several devices (docs/collectives.md): each value is the tuple of the
    // devices' values, and each cut-out instruction runs on the same devices.
    let grid = conformance_spec::collective::DeviceGrid::of(module)
        .unwrap_or(conformance_spec::collective::DeviceGrid::SINGLE);
    let devices = grid.devices();
    let params = entry.parameters().len();
    for (i, instruction) in entry.instructions.iter().enumerate() {
        if instruction.opcode == Opcode::Parameter {
            let n = instruction.parameter_number.unwrap_or(0) as usize;
            values[i] = if devices == 1 {
                args.get(n).cloned()
            } else {
                (0..devices)
                    .map(|d| args.get(d * params + n).cloned())
                    .collect::<Option<Vec<Literal>>>()
                    .map(Literal::Tuple)
            };
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
            Ok(v) => v,
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
            // A constant is explained only by its literal, bit for bit (on every device).
            let literal = instruction.literal.as_ref();
            if per_device(&in_context, devices)
                .iter()
                .any(|v| literal != Some(v))
            {
                return stopped("evaluates to something other than its literal");
            }
            values[i] = Some(in_context);
            continue;
        }
        let operands: Option<Vec<Literal>> = instruction
            .operands
            .iter()
            .map(|&o| values[o].clone())
            .collect();
        let Some(operands) = operands else {
            return stopped("has an operand without a value");
        };
        let (single, single_args) = if devices == 1 {
            single_op_module_of(instruction, &operands, &called)
        } else {
            // The same cut-out module on every device, each with its own operand values.
            let each: Vec<Vec<Literal>> = operands.iter().map(|o| per_device(o, devices)).collect();
            let mut all = Vec::new();
            let mut module = None;
            for d in 0..devices {
                let mine: Vec<Literal> = each.iter().map(|o| o[d].clone()).collect();
                let (m, a) = single_op_module_of(instruction, &mine, &called);
                module.get_or_insert(m);
                all.extend(a);
            }
            let mut m = module.unwrap_or_else(|| single_op_module_of(instruction, &[], &called).0);
            conformance_spec::collective::set_grid(&mut m, grid);
            (m, all)
        };
        let Some(op) = entry_of(catalog, module, instruction) else {
            // Without a catalog entry only bit-exact agreement with the reference explains it.
            match reference.execute(&single, &single_args) {
                Ok(exact) if exact.logical_eq(&in_context) => {
                    values[i] = Some(in_context);
                    continue;
                }
                _ => return stopped("differs from the reference and has no catalog entry"),
            }
        };
        let recorded = Recorded {
            name: backend.name(),
            value: in_context.clone(),
            subnormals: backend.capabilities().subnormals,
            subnormals_flushed_in: backend.capabilities().subnormals_flushed_in,
            rng_bit_layout: backend.capabilities().rng_bit_layout,
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
                let here = fault_at(catalog, module, instruction, backend);
                if let Some(n) = contraction(
                    op,
                    entry,
                    instruction,
                    &values,
                    &single,
                    &single_args,
                    &in_context,
                    reference,
                    &backend.capabilities(),
                ) {
                    contracted += n;
                    values[i] = Some(in_context);
                    continue;
                }
                match inside::explain(
                    catalog,
                    module,
                    instruction,
                    &operands,
                    &in_context,
                    reference,
                    backend,
                ) {
                    inside::Inside::NotApplicable => {
                        return Localized::Fault(here, Box::new(outcome))
                    }
                    inside::Inside::Explained(n) => contracted += n,
                    inside::Inside::Fault(f, o) => return Localized::Fault(*f, o),
                    inside::Inside::AtInstruction(why) => {
                        return Localized::Fault(here, Box::new(inside::with_reason(outcome, &why)))
                    }
                    inside::Inside::Stopped(why) => return stopped(&why),
                }
            }
        }
        values[i] = Some(in_context);
    }
    Localized::Explained(contracted)
}

/// The devices' values of a value of a module of `devices` devices: its items when it is their
/// tuple, itself for one device.
fn per_device(value: &Literal, devices: usize) -> Vec<Literal> {
    match value {
        Literal::Tuple(items) if devices > 1 && items.len() == devices => items.clone(),
        other => vec![other.clone()],
    }
}

/// When `instruction` is an add or subtract fed by a multiply and its value `in_context` is
/// within budget once the elements equal to the fused multiply-add are taken as the backend's
/// ([`crate::oracles::fused`]) — and, for a backend that flushes subnormals (`caps`), the
/// others as flushed — the number of such elements; `None` otherwise.
#[allow(clippy::too_many_arguments)]
fn contraction(
    op: &OpEntry,
    computation: &conformance_spec::hlo::HloComputation,
    instruction: &HloInstruction,
    values: &[Option<Literal>],
    single: &HloModule,
    single_args: &[Literal],
    in_context: &Literal,
    reference: &dyn Backend,
    caps: &Capabilities,
) -> Option<u64> {
    let fused = crate::oracles::fused::contracted_values(computation, instruction, values)?;
    let exact = reference.execute(single, single_args).ok()?;
    let (exact, got) = (exact.as_array()?, in_context.as_array()?);
    let (accepted, n) = crate::oracles::fused::accept_contracted(exact, got, &fused);
    let budget = crate::check::budget(op, accepted.element_type());
    let accepted = Literal::Array(accepted);
    let mut c = crate::compare::compare(&accepted, in_context, &budget, &[]);
    if !c.agrees() && caps.subnormals == SubnormalMode::Flush {
        // A backend that both contracts and flushes subnormals (XLA's CPU backend): the
        // elements the contraction does not explain may be explained by the flushing.
        c = crate::oracles::subnormals::recompare_flushing(
            single,
            single_args,
            reference,
            caps,
            op.signature.is_elementwise(),
            &accepted,
            in_context,
            &budget,
            &[],
            c,
        );
    }
    (n > 0 && c.agrees()).then_some(n)
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
        dtype: instruction_element_type(module, instruction)
            .map(|t| t.hlo_name().to_string())
            .unwrap_or_default(),
        within: vec![],
        scope: None,
    }
}
