//! Reducer computations (`to_apply` of reduce and reduce-window, `select` and `scatter` of
//! select-and-scatter): recognized forms and their evaluation.
//!
//! The seed leaves the order in which a reducer is applied unspecified (seed 004, Reduce: "the
//! reduction computation may be re-associated"). The reference fixes it (issue 5's shared
//! decisions):
//! - a plain SUM (one operand; the computation's root is `add` of its two parameters) is
//!   evaluated EXACTLY: the exact sum of the init value and every element, rounded once
//!   ([`super::accumulator`]);
//! - a real floating-point PRODUCT (the root is `multiply` of the two parameters, in a reduce or
//!   reduce-window of one operand) is evaluated EXACTLY too: the exact product of the init value
//!   and every element, rounded once ([`super::exact_product`]), with a bound for any order;
//! - any other computation is applied in the canonical order: init first, then the elements in
//!   row-major order of the reduced index space (`f(...f(f(init, e0), e1)..., en)`, accumulators
//!   as the first N arguments, as in the seed's variadic example). A computation whose root is a
//!   single element-wise binary operation of its two parameters (max, min, and, or, multiply,
//!   compare, ...) is evaluated directly with the element-wise reference's function — the same
//!   bits the interpreter would produce, without building literals; every other computation goes
//!   through the interpreter on scalars.

use super::{invalid, AccumulationBound};
use crate::elementwise::{self, ElementFn};
use crate::interpreter::{call_computation, Context};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::{AttrValue, HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::BackendError;

/// How a reducer computation is evaluated (see the module docs).
pub enum Reducer {
    /// `add(p0, p1)`: summed exactly by the caller.
    Sum,
    /// `multiply(p0, p1)` of a real floating-point type: multiplied exactly by the caller
    /// ([`super::exact_product`]), the order being the backend's to choose.
    Product,
    /// One element-wise binary operation of the two parameters: `f([a, b])`, with the
    /// arguments swapped when the root reads `(p1, p0)`.
    Direct { f: ElementFn, swapped: bool },
    /// Anything else: the named computation run by the interpreter.
    Interpreted { name: String },
}

/// The called computation named by attribute `attr` (`to_apply`, `select`, `scatter`).
///
/// Errors: [`BackendError::Invalid`] when the attribute is missing or names no computation of the
/// module.
pub fn called<'m>(
    module: &'m HloModule,
    instr: &HloInstruction,
    attr: &str,
) -> Result<&'m HloComputation, BackendError> {
    let name = match instr.attribute(attr) {
        Some(AttrValue::Computation(c)) => c.as_str(),
        Some(AttrValue::Raw(c)) => c.as_str(),
        _ => {
            return invalid(format!(
                "{}: missing or malformed `{attr}=%computation`",
                instr.opcode
            ))
        }
    };
    module.computation(name).ok_or_else(|| {
        BackendError::Invalid(format!(
            "{}: `{attr}={name}` is not in the module",
            instr.opcode
        ))
    })
}

/// The root of `c` when it is a binary instruction reading parameters 0 and 1 (in either
/// order), both scalars of the same type as the root's operands; with whether they are swapped.
fn binary_of_parameters(c: &HloComputation) -> Option<(&HloInstruction, bool)> {
    let params = c.parameters();
    if params.len() != 2 {
        return None;
    }
    let root = c.instructions.get(c.root)?;
    if root.operands.len() != 2 {
        return None;
    }
    let is = |i: usize, p: i64| {
        c.instructions
            .get(i)
            .is_some_and(|x| x.opcode == Opcode::Parameter && x.parameter_number == Some(p))
    };
    let swapped = if is(root.operands[0], 0) && is(root.operands[1], 1) {
        false
    } else if is(root.operands[0], 1) && is(root.operands[1], 0) {
        true
    } else {
        return None;
    };
    let scalar = |s: &Shape| s.as_array().is_some_and(|a| a.dimensions.is_empty());
    (params.iter().all(|p| scalar(&p.shape)) && scalar(&root.shape)).then_some((root, swapped))
}

/// True when computation `attr` of `instr` is a plain sum (its root is `add` of its two scalar
/// parameters) and `instr` reduces one operand.
pub fn is_sum_computation(module: &HloModule, instr: &HloInstruction, attr: &str) -> bool {
    let one_operand = match instr.opcode {
        Opcode::Reduce | Opcode::ReduceWindow => instr.operands.len() == 2,
        _ => true,
    };
    one_operand
        && called(module, instr, attr)
            .ok()
            .and_then(binary_of_parameters)
            .is_some_and(|(root, _)| root.opcode == Opcode::Add)
}

/// True when computation `attr` of `instr` is a product of a real floating-point type (its root
/// is `multiply` of its two scalar parameters) and `instr` is a `reduce` or `reduce-window` of
/// one operand.
pub fn is_product_computation(module: &HloModule, instr: &HloInstruction, attr: &str) -> bool {
    matches!(instr.opcode, Opcode::Reduce | Opcode::ReduceWindow)
        && instr.operands.len() == 2
        && called(module, instr, attr)
            .ok()
            .and_then(binary_of_parameters)
            .is_some_and(|(root, _)| {
                root.opcode == Opcode::Multiply
                    && root
                        .shape
                        .as_array()
                        .is_some_and(|a| a.element_type.is_float())
            })
}

/// The bounds of every result element (one leaf), as [`super::accumulation_bounds`] reports
/// them, when the computation `attr` of `instr` is a plain sum ([`is_sum_computation`]) or a real
/// product ([`is_product_computation`]); `Ok(None)` otherwise. `evaluate(track)` evaluates the
/// instruction, with `track` = true here.
///
/// Errors: those of `evaluate`.
pub(crate) fn bounds_of_sum<T>(
    ctx: &Context,
    instr: &HloInstruction,
    attr: &str,
    evaluate: impl FnOnce(bool) -> Result<(T, Option<Vec<AccumulationBound>>), BackendError>,
) -> Result<Option<Vec<Vec<AccumulationBound>>>, BackendError> {
    if !is_sum_computation(ctx.module, instr, attr)
        && !is_product_computation(ctx.module, instr, attr)
    {
        return Ok(None);
    }
    evaluate(true).map(|(_, b)| b.map(|b| vec![b]))
}

impl Reducer {
    /// Classifies computation `attr` of `instr` for `n` operands of element types `types`
    /// (parameters `types ++ types`); `result` is the element type the computation returns
    /// (`types[0]` for reducers, `pred` for `select`). With `exact_sum` false a sum is evaluated
    /// like any other binary operation (select-and-scatter's `select`).
    ///
    /// Errors: those of [`called`]; [`BackendError::Invalid`] when a direct operation's types do
    /// not match.
    pub fn new(
        module: &HloModule,
        instr: &HloInstruction,
        attr: &str,
        types: &[ElementType],
        result: ElementType,
        exact_sum: bool,
    ) -> Result<Reducer, BackendError> {
        let c = called(module, instr, attr)?;
        if types.len() == 1 {
            if let Some((root, swapped)) = binary_of_parameters(c) {
                let declared = c
                    .parameters()
                    .iter()
                    .all(|p| p.shape.as_array().map(|a| a.element_type) == Some(types[0]))
                    && root.shape.as_array().map(|a| a.element_type) == Some(result);
                if declared {
                    if root.opcode == Opcode::Add && exact_sum && result == types[0] {
                        return Ok(Reducer::Sum);
                    }
                    let reduction = matches!(instr.opcode, Opcode::Reduce | Opcode::ReduceWindow);
                    if root.opcode == Opcode::Multiply
                        && exact_sum
                        && reduction
                        && result == types[0]
                        && types[0].is_float()
                    {
                        return Ok(Reducer::Product);
                    }
                    if elementwise::is_elementwise(root.opcode) {
                        let f = elementwise::prepare(root, &[types[0], types[0]], result)?;
                        return Ok(Reducer::Direct { f, swapped });
                    }
                }
            }
        }
        Ok(Reducer::Interpreted {
            name: c.name.clone(),
        })
    }

    /// True for [`Reducer::Sum`].
    pub fn is_sum(&self) -> bool {
        matches!(self, Reducer::Sum)
    }

    /// True for [`Reducer::Product`].
    pub fn is_product(&self) -> bool {
        matches!(self, Reducer::Product)
    }

    /// Applies the computation to N accumulator bits and N element bits (types `types`), giving N
    /// result bits of types `results`.
    ///
    /// Errors: [`BackendError::Invalid`] for [`Reducer::Sum`] (summed by the caller), a
    /// computation that does not return N scalars of `results`' types; any error of the
    /// computation.
    pub(crate) fn apply(
        &self,
        ctx: &Context,
        types: &[ElementType],
        results: &[ElementType],
        acc: &[u128],
        elements: &[u128],
    ) -> Result<Vec<u128>, BackendError> {
        match self {
            Reducer::Sum => invalid("a sum reducer is accumulated exactly, not applied"),
            Reducer::Product => invalid("a product reducer is multiplied exactly, not applied"),
            Reducer::Direct { f, swapped } => {
                let args = if *swapped {
                    [elements[0], acc[0]]
                } else {
                    [acc[0], elements[0]]
                };
                Ok(vec![f(&args)?])
            }
            Reducer::Interpreted { name } => {
                let scalar =
                    |t: ElementType, b: u128| Literal::Array(ArrayLiteral::scalar_bits(t, b));
                let args: Vec<Literal> = types
                    .iter()
                    .zip(acc)
                    .chain(types.iter().zip(elements))
                    .map(|(&t, &b)| scalar(t, b))
                    .collect();
                let value = call_computation(ctx, name, &args)
                    .map_err(|e| prefix(e, &format!("computation `{name}`")))?;
                let values = match value {
                    Literal::Tuple(items) => items,
                    v @ Literal::Array(_) if results.len() == 1 => vec![v],
                    other => {
                        return invalid(format!(
                            "computation `{name}` returned {}, expected {} scalars",
                            other.shape(),
                            results.len()
                        ))
                    }
                };
                if values.len() != results.len() {
                    return invalid(format!(
                        "computation `{name}` returned {} values, expected {}",
                        values.len(),
                        results.len()
                    ));
                }
                values
                    .iter()
                    .zip(results)
                    .map(|(v, &t)| match v {
                        Literal::Array(a) if a.dimensions().is_empty() && a.element_type() == t => {
                            Ok(a.get_bits(&[]))
                        }
                        other => invalid(format!(
                            "computation `{name}` returned {}, expected a {t} scalar",
                            other.shape()
                        )),
                    })
                    .collect()
            }
        }
    }
}

fn prefix(e: BackendError, what: &str) -> BackendError {
    e.map_message(|m| format!("{what}: {m}"))
}
