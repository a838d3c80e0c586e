//! Scalar computations (a `map`'s function, a `sort`'s comparator) evaluated on element bits.
//!
//! A computation whose instructions are all scalar — parameters, constants and element-wise
//! operations — is prepared once into a list of steps, each with the exact element function of
//! [`crate::elementwise::prepare`], and then evaluated on raw bits without building literals.
//! Any other computation (tuples, calls, arrays inside) is evaluated by the interpreter through
//! [`call_computation`]. Both give the same exact result; the first is only faster.

use crate::elementwise::{self, ElementFn};
use crate::interpreter::{call_computation, invalid, Context};
use conformance_spec::hlo::{HloComputation, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::{BackendError, ElementType};

/// One step of a prepared scalar computation.
pub(crate) enum Step {
    /// The computation's parameter N.
    Parameter(usize),
    /// A constant's bits.
    Constant(u128),
    /// An element-wise function of earlier steps' values.
    Apply(ElementFn, Vec<usize>),
}

/// A computation of scalars to one scalar, ready to evaluate on element bits.
pub(crate) enum ScalarFn {
    /// Every instruction is scalar: evaluated step by step on bits.
    Steps {
        steps: Vec<Step>,
        root: usize,
        result: ElementType,
    },
    /// Evaluated by the interpreter.
    Interpreted { name: String, result: ElementType },
}

impl ScalarFn {
    /// Prepares computation `name` of the context's module, which takes scalars of
    /// `parameter_types` and returns a scalar.
    ///
    /// Errors: [`BackendError::Invalid`] when the computation is missing, takes other parameters
    /// or does not return a scalar.
    pub(crate) fn new(
        ctx: &Context,
        name: &str,
        parameter_types: &[ElementType],
    ) -> Result<ScalarFn, BackendError> {
        let Some(c) = ctx.module.computation(name) else {
            return invalid(format!("computation `{name}` is not in the module"));
        };
        let params = c.parameter_shapes();
        let scalar_params = params.len() == parameter_types.len()
            && params.iter().zip(parameter_types).all(|(s, &t)| {
                s.as_array()
                    .is_some_and(|a| a.dimensions.is_empty() && a.element_type == t)
            });
        if !scalar_params {
            return invalid(format!(
                "computation `{name}` must take {} scalar(s) of types {:?}",
                parameter_types.len(),
                parameter_types
                    .iter()
                    .map(|t| t.hlo_name())
                    .collect::<Vec<_>>()
            ));
        }
        let result = match c.root_instruction().shape.as_array() {
            Some(a) if a.dimensions.is_empty() => a.element_type,
            _ => {
                return invalid(format!(
                    "computation `{name}` must return a scalar, it returns {}",
                    c.root_instruction().shape
                ))
            }
        };
        Ok(match steps_of(c) {
            Some(steps) => ScalarFn::Steps {
                steps,
                root: c.root,
                result,
            },
            None => ScalarFn::Interpreted {
                name: name.to_string(),
                result,
            },
        })
    }

    /// The computation's value on `args` (one element's bits per parameter).
    ///
    /// Errors: any error of the computation's instructions.
    pub(crate) fn apply(&self, ctx: &Context, args: &[u128]) -> Result<u128, BackendError> {
        match self {
            ScalarFn::Steps { steps, root, .. } => {
                let mut values = Vec::with_capacity(steps.len());
                let mut operands = Vec::with_capacity(4);
                for step in steps {
                    let v = match step {
                        Step::Parameter(n) => args[*n],
                        Step::Constant(bits) => *bits,
                        Step::Apply(f, from) => {
                            operands.clear();
                            operands.extend(from.iter().map(|&i| values[i]));
                            f(&operands)?
                        }
                    };
                    values.push(v);
                }
                Ok(values[*root])
            }
            ScalarFn::Interpreted { name, result } => {
                let c = ctx
                    .module
                    .computation(name)
                    .ok_or_else(|| BackendError::Invalid(format!("no computation `{name}`")))?;
                let literals: Vec<Literal> = c
                    .parameter_shapes()
                    .iter()
                    .zip(args)
                    .map(|(s, &b)| {
                        let t = s.as_array().map_or(*result, |a| a.element_type);
                        Literal::Array(ArrayLiteral::scalar_bits(t, b))
                    })
                    .collect();
                match call_computation(ctx, name, &literals)? {
                    Literal::Array(a) if a.dimensions().is_empty() => Ok(a.get_bits(&[])),
                    other => invalid(format!(
                        "computation `{name}` returned {}, expected a scalar",
                        other.shape()
                    )),
                }
            }
        }
    }

    /// The element type of the computation's result.
    pub(crate) fn result_type(&self) -> ElementType {
        match self {
            ScalarFn::Steps { result, .. } | ScalarFn::Interpreted { result, .. } => *result,
        }
    }
}

/// The steps of a computation whose every instruction is a scalar parameter, constant or
/// element-wise operation; `None` otherwise.
fn steps_of(c: &HloComputation) -> Option<Vec<Step>> {
    let mut steps = Vec::with_capacity(c.instructions.len());
    for instr in &c.instructions {
        let shape = instr.shape.as_array().filter(|a| a.dimensions.is_empty())?;
        let step = match instr.opcode {
            Opcode::Parameter => Step::Parameter(usize::try_from(instr.parameter_number?).ok()?),
            Opcode::Constant => {
                let lit = instr.literal.as_ref()?.as_array()?;
                if lit.element_type() != shape.element_type || !lit.dimensions().is_empty() {
                    return None;
                }
                Step::Constant(lit.get_bits(&[]))
            }
            op if elementwise::is_elementwise(op) => {
                let types: Vec<ElementType> = instr
                    .operands
                    .iter()
                    .map(|&o| {
                        c.instructions
                            .get(o)
                            .and_then(|i| i.shape.as_array())
                            .filter(|a| a.dimensions.is_empty())
                            .map(|a| a.element_type)
                    })
                    .collect::<Option<_>>()?;
                if instr.operands.iter().any(|&o| o >= steps.len()) {
                    return None;
                }
                let f = elementwise::prepare(instr, &types, shape.element_type).ok()?;
                Step::Apply(f, instr.operands.clone())
            }
            _ => return None,
        };
        steps.push(step);
    }
    Some(steps)
}
