//! Stepping into called computations: explains (or localizes) the value of a `while`,
//! `conditional`, `call` or `map` that the reference does not reproduce as a whole.
//!
//! The instruction's computations are run on the backend one trip, branch or element at a time,
//! on the backend's own values (its loop state after each trip, its operands), and each run is
//! checked as a graph of its own against the reference ([`super::check_graph`]). So:
//! - an instruction inside a body, branch or mapped computation whose value is not explained by
//!   its operands is the fault, named with the computation and the trip (or branch, or element);
//! - when every run is explained (each instruction within its catalog budget), the instruction's
//!   value is explained too, provided it is what those runs give: a loop's result is the state
//!   its own condition and body reach, a conditional's is its selected branch's, a map's element
//!   is its computation of the operands' elements. Otherwise the control-flow instruction itself
//!   is at fault (`AtInstruction`).

use super::{check_graph, BackendOutcome, Catalog, Fault, Stage, Verdict};
use conformance_reference::control_flow::branch_taken;
use conformance_spec::backend::max_while_iterations;
use conformance_spec::hlo::{AttrValue, HloInstruction, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape_inference::called_in_order;
use conformance_spec::Backend;

/// A backend that gives `value` for `module` (a computation run in context) and runs anything
/// else (the computation's instructions cut out one by one) on the real backend.
struct Substituted<'b> {
    inner: &'b dyn Backend,
    module: &'b HloModule,
    value: Literal,
}

impl Backend for Substituted<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn capabilities(&self) -> conformance_spec::Capabilities {
        self.inner.capabilities()
    }
    fn execute(
        &self,
        module: &HloModule,
        args: &[Literal],
    ) -> Result<Literal, conformance_spec::BackendError> {
        // The computation itself, however the localization cuts it out again (re-rooted at
        // its root): the value in context.
        let whole = |m: &HloModule| super::truncated(m, m.entry_computation().root);
        if module == self.module || whole(module) == whole(self.module) {
            Ok(self.value.clone())
        } else {
            self.inner.execute(module, args)
        }
    }
}

/// Most elements of one `map` stepped into before localization gives up.
pub const MAX_MAP_ELEMENTS: usize = 256;

/// What stepping into an instruction's computations found.
pub(super) enum Inside {
    /// The instruction calls no computation to step into (its own value is at fault).
    NotApplicable,
    /// Every run is within its budgets and the instruction's value is what they give; the
    /// elements explained as fused multiply-adds inside.
    Explained(u64),
    /// An instruction inside a computation is at fault.
    Fault(Box<Fault>, Box<BackendOutcome>),
    /// The computations are explained but the instruction's value is not what they give.
    AtInstruction(String),
    /// Localization cannot go further: why.
    Stopped(String),
}

/// The outcome `o` with `why` added to its error text (the reason an instruction is at fault).
pub(super) fn with_reason(mut o: BackendOutcome, why: &str) -> BackendOutcome {
    o.error = Some(match o.error.take() {
        Some(e) => format!("{e}; {why}"),
        None => why.to_string(),
    });
    o
}

/// The backend's and reference's view of one instruction being explained.
struct Step<'a> {
    catalog: &'a Catalog,
    module: &'a HloModule,
    instruction: &'a HloInstruction,
    reference: &'a dyn Backend,
    backend: &'a dyn Backend,
}

/// Steps into `instruction` (of `module`'s entry), whose operands had the values `operands` and
/// whose value on the backend was `in_context`.
pub(super) fn explain(
    catalog: &Catalog,
    module: &HloModule,
    instruction: &HloInstruction,
    operands: &[Literal],
    in_context: &Literal,
    reference: &dyn Backend,
    backend: &dyn Backend,
) -> Inside {
    let step = Step {
        catalog,
        module,
        instruction,
        reference,
        backend,
    };
    match instruction.opcode {
        Opcode::While => step.while_loop(operands, in_context),
        Opcode::Conditional => step.conditional(operands, in_context),
        Opcode::Call | Opcode::Fusion => step.call(operands, in_context),
        Opcode::Map => step.map(operands, in_context),
        _ => Inside::NotApplicable,
    }
}

/// `module` with computation `name` as its entry (`None` when there is no such computation).
pub fn as_entry(module: &HloModule, name: &str) -> Option<HloModule> {
    let name = name.strip_prefix('%').unwrap_or(name);
    let k = module.computations.iter().position(|c| c.name == name)?;
    let mut m = module.clone();
    m.entry = k;
    Some(m)
}

/// Computation `name` of `module` as a module to run on `args`, and the arguments to give it.
/// When every argument is an array, the computation is the entry as it is; otherwise (a loop's
/// tuple state) the entry takes the arrays of the arguments' tuples as parameters, rebuilds the
/// tuples and runs the computation's instructions on them (a call, inlined), since a backend's
/// worker takes arrays only (docs/protocol.md).
pub fn computation_module(
    module: &HloModule,
    name: &str,
    args: &[Literal],
) -> Option<(HloModule, Vec<Literal>)> {
    let m = as_entry(module, name)?;
    if args.iter().all(|a| a.as_array().is_some()) {
        return Some((m, args.to_vec()));
    }
    let callee = m.entry_computation();
    let (mut instructions, leaves, operands) = crate::minimize::structured::parameters_of(args);
    instructions.push(HloInstruction {
        name: "stepped.call".into(),
        opcode: Opcode::Call,
        shape: callee.root_instruction().shape.clone(),
        operands,
        parameter_number: None,
        literal: None,
        attributes: vec![conformance_spec::hlo::Attribute {
            name: "to_apply".into(),
            value: AttrValue::Computation(callee.name.clone()),
        }],
    });
    let mut out = module.clone();
    out.computations
        .push(conformance_spec::hlo::HloComputation {
            name: format!("stepped.{}", callee.name),
            root: instructions.len() - 1,
            instructions,
        });
    out.entry = out.computations.len() - 1;
    let out = conformance_spec::hlo::transform::inline_calls(&out).ok()?;
    Some((out, leaves))
}

/// Whether two values a backend gave agree bit for bit, a NaN matching any NaN (a NaN made
/// inside a computation has no specified bits, and a backend may give it other bits there than
/// when it runs the computation alone).
fn same(a: &Literal, b: &Literal) -> bool {
    crate::compare::compare(a, b, &crate::compare::Budget::default(), &[]).agrees()
}

/// The value of a `pred[]` literal.
fn pred(v: &Literal) -> Option<bool> {
    let a = v.as_array()?;
    (a.dimensions().is_empty()).then(|| a.get_bits(&[]) != 0)
}

impl Step<'_> {
    /// The computation named by `attr`.
    fn computation(&self, attr: &str) -> Option<&str> {
        match self.instruction.attribute(attr) {
            Some(AttrValue::Computation(n)) => Some(n.as_str()),
            _ => None,
        }
    }

    /// Runs computation `name` on `args` on the backend and, when the reference disagrees, checks
    /// it as a graph. `Ok(value)` is the backend's value when it is explained.
    fn run(&self, name: &str, args: &[Literal], place: &str) -> Result<(Literal, u64), Inside> {
        let Some((m, args)) = computation_module(self.module, name, args) else {
            return Err(Inside::Stopped(format!("no computation `{name}`")));
        };
        let args = args.as_slice();
        let got = self.backend.execute(&m, args).map_err(|e| {
            Inside::Stopped(format!(
                "{place}: the backend fails on the computation alone: {e}"
            ))
        })?;
        match self.reference.execute(&m, args) {
            Ok(exact) if same(&exact, &got) => return Ok((got, 0)),
            Ok(_) => {}
            Err(e) => {
                return Err(Inside::Stopped(format!(
                    "{place}: the reference fails: {e}"
                )))
            }
        }
        let g = check_graph(
            self.catalog,
            &m,
            args,
            &[self.reference, self.backend],
            &Stage::default(),
        );
        if let Some(e) = g.outcome.reference_error {
            return Err(Inside::Stopped(format!("{place}: {e}")));
        }
        let Some(o) = g.outcome.outcomes.into_iter().next() else {
            return Err(Inside::Stopped(format!("{place}: nothing compared")));
        };
        match (o.verdict, g.fault) {
            (Verdict::Pass, _) => Ok((got, o.comparison.map_or(0, |c| c.fused_multiply_adds))),
            (_, Some(mut f)) => {
                f.within.insert(0, place.to_string());
                if f.scope.is_none() {
                    f.scope = Some(Box::new((m, args.to_vec())));
                }
                Err(Inside::Fault(Box::new(f), Box::new(o)))
            }
            (_, None) => Err(Inside::Stopped(format!(
                "{place}: {}",
                g.unlocalized
                    .unwrap_or_else(|| format!("{:?} without a localized fault", o.verdict))
            ))),
        }
    }

    /// Whether `value`, which the backend gave for computation `name` on `args` inside the
    /// instruction, differs from its stand-alone run only by what the computation's instructions
    /// allow: the computation is checked as a graph with the backend's own values of its inner
    /// instructions (run stand-alone) and `value` as its result. A compiler may evaluate a branch,
    /// a callee or a loop body differently in context than alone (another vector width, another
    /// approximation of `exp`); each evaluation is right when within the budgets.
    fn explains_as(&self, name: &str, args: &[Literal], value: &Literal) -> bool {
        let Some((m, args)) = computation_module(self.module, name, args) else {
            return false;
        };
        let substituted = Substituted {
            inner: self.backend,
            module: &m,
            value: value.clone(),
        };
        let g = check_graph(
            self.catalog,
            &m,
            &args,
            &[self.reference, &substituted],
            &Stage::default(),
        );
        g.outcome.reference_error.is_none()
            && g.outcome
                .outcomes
                .first()
                .is_some_and(|o| o.verdict == Verdict::Pass)
    }

    /// `while`: one trip at a time from the backend's initial state.
    fn while_loop(&self, operands: &[Literal], in_context: &Literal) -> Inside {
        let (Some(condition), Some(body), Some(init)) = (
            self.computation("condition"),
            self.computation("body"),
            operands.first(),
        ) else {
            return Inside::NotApplicable;
        };
        let name = &self.instruction.name;
        let limit = max_while_iterations();
        let mut state = init.clone();
        let mut previous: Option<Literal> = None;
        let mut trip: u64 = 0;
        let mut contracted = 0;
        loop {
            let place = format!("trip {trip} of `{name}`, condition `{condition}`");
            let go = match self.run(condition, std::slice::from_ref(&state), &place) {
                Ok((v, n)) => {
                    contracted += n;
                    v
                }
                Err(inside) => return inside,
            };
            let Some(go) = pred(&go) else {
                return Inside::Stopped(format!("{place} does not give a pred[]"));
            };
            if !go {
                break;
            }
            if trip >= limit {
                return Inside::Stopped(format!(
                    "`{name}` stepped {limit} trips without exit (--max-iterations)"
                ));
            }
            let place = format!("trip {trip} of `{name}`, body `{body}`");
            previous = Some(state.clone());
            state = match self.run(body, std::slice::from_ref(&state), &place) {
                Ok((v, n)) => {
                    contracted += n;
                    v
                }
                Err(inside) => return inside,
            };
            trip += 1;
        }
        // The last trip computed in context may differ from it run alone (see `explains_as`).
        let last_trip =
            |prev: &Literal| self.explains_as(body, std::slice::from_ref(prev), in_context);
        if same(&state, in_context) || previous.as_ref().is_some_and(last_trip) {
            Inside::Explained(contracted)
        } else {
            Inside::AtInstruction(format!(
                "the loop's result is not the state its condition and body reach when run one trip at a time ({trip} trips)"
            ))
        }
    }

    /// `conditional`: the branch the selector chooses, on its operand.
    fn conditional(&self, operands: &[Literal], in_context: &Literal) -> Inside {
        let branches = called_in_order(self.instruction);
        let Some(selector) = operands.first().and_then(Literal::as_array) else {
            return Inside::NotApplicable;
        };
        if branches.is_empty() || operands.len() != branches.len() + 1 {
            return Inside::NotApplicable;
        }
        let b = branch_taken(
            selector.element_type(),
            selector.get_bits(&[]),
            branches.len(),
        );
        let place = format!(
            "branch {b} of `{}`, `{}`",
            self.instruction.name, branches[b]
        );
        let operand = &operands[b + 1..b + 2];
        match self.run(branches[b], operand, &place) {
            Ok((v, n)) if same(&v, in_context) => Inside::Explained(n),
            Ok((_, n)) if self.explains_as(branches[b], operand, in_context) => Inside::Explained(n),
            Ok(_) => Inside::AtInstruction(format!(
                "its result is not that of branch {b} (`{}`), which the selector chooses (seed 004, Conditional)",
                branches[b]
            )),
            Err(inside) => inside,
        }
    }

    /// `call`: the callee on the operands.
    fn call(&self, operands: &[Literal], in_context: &Literal) -> Inside {
        let Some(callee) = self.computation("to_apply").or(self.computation("calls")) else {
            return Inside::NotApplicable;
        };
        let place = format!("`{}`, callee `{callee}`", self.instruction.name);
        match self.run(callee, operands, &place) {
            Ok((v, n)) if same(&v, in_context) => Inside::Explained(n),
            Ok((_, n)) if self.explains_as(callee, operands, in_context) => Inside::Explained(n),
            Ok(_) => Inside::AtInstruction(format!("its result is not that of `{callee}`")),
            Err(inside) => inside,
        }
    }

    /// `map`: the mapped computation on the elements where the backend's map and the
    /// reference's disagree.
    fn map(&self, operands: &[Literal], in_context: &Literal) -> Inside {
        let Some(f) = self.computation("to_apply") else {
            return Inside::NotApplicable;
        };
        let arrays: Option<Vec<&ArrayLiteral>> = operands.iter().map(Literal::as_array).collect();
        let (Some(arrays), Some(got)) = (arrays, in_context.as_array()) else {
            return Inside::NotApplicable;
        };
        let called = crate::minimize::called_computations(self.module);
        let (single, args) =
            crate::minimize::single_op_module_of(self.instruction, operands, &called);
        let exact = match self.reference.execute(&single, &args) {
            Ok(Literal::Array(a)) => a,
            _ => return Inside::Stopped("the reference does not give the map's array".into()),
        };
        let mut stepped = 0;
        let mut contracted = 0;
        let mut result = Inside::Explained(0);
        index::for_each_index(got.dimensions(), |i| {
            if !matches!(result, Inside::Explained(_)) || got.get_bits(i) == exact.get_bits(i) {
                return;
            }
            stepped += 1;
            if stepped > MAX_MAP_ELEMENTS {
                result = Inside::Stopped(format!(
                    "more than {MAX_MAP_ELEMENTS} elements of `{}` differ from the reference",
                    self.instruction.name
                ));
                return;
            }
            let scalars: Vec<Literal> = arrays
                .iter()
                .map(|a| Literal::Array(ArrayLiteral::scalar_bits(a.element_type(), a.get_bits(i))))
                .collect();
            let place = format!(
                "element {i:?} of `{}`, computation `{f}`",
                self.instruction.name
            );
            // Which NaN an operation returns is the implementation's choice (seed 004 fixes no
            // payload), so one NaN explains another; any other value must match bit for bit.
            let ty = got.element_type();
            let explains = |v: u128, g: u128| {
                v == g || (crate::compare::is_nan(ty, v) && crate::compare::is_nan(ty, g))
            };
            result = match self.run(f, &scalars, &place) {
                Ok((Literal::Array(v), n)) if explains(v.get_bits(&[]), got.get_bits(i)) => {
                    contracted += n;
                    Inside::Explained(0)
                }
                Ok((_, n))
                    if self.explains_as(
                        f,
                        &scalars,
                        &Literal::Array(ArrayLiteral::scalar_bits(ty, got.get_bits(i))),
                    ) =>
                {
                    contracted += n;
                    Inside::Explained(0)
                }
                Ok(_) => Inside::AtInstruction(format!(
                    "element {i:?} is not `{f}` of the operands' elements there (seed 004, Map)"
                )),
                Err(inside) => inside,
            };
        });
        match result {
            Inside::Explained(_) => Inside::Explained(contracted),
            other => other,
        }
    }
}
