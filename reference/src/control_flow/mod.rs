//! Computations and control flow (seed 004: Conditional; Map; OptimizationBarrier; Sort; While;
//! and XLA's `topk`), exactly: loops and branches pass values unchanged between computations the
//! interpreter evaluates exactly; `map` applies its scalar computation element by element; `sort`
//! and `topk` move element bits (a stable merge sort under any comparator computation; `topk` by
//! seed 004's total order).
//!
//! `call` is a structural instruction of [`crate::interpreter`].

mod scalar;
pub mod sort;
pub mod topk;

use crate::interpreter::{array, call_computation, conform, invalid, Context, Handler};
use conformance_spec::backend::max_while_iterations;
use conformance_spec::hlo::{AttrValue, HloInstruction, Opcode};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::{BackendError, ElementType};
use scalar::ScalarFn;

/// The family's handlers.
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::While, while_loop),
    (Opcode::Conditional, conditional),
    (Opcode::Map, map),
    (Opcode::Sort, sort::sort),
    (Opcode::TopK, topk::topk),
    (Opcode::OptimizationBarrier, optimization_barrier),
];

/// The computation named by attribute `attr`. Errors: [`BackendError::Invalid`] when absent.
pub(crate) fn computation_attr<'a>(
    instr: &'a HloInstruction,
    attr: &str,
) -> Result<&'a str, BackendError> {
    match instr.attribute(attr) {
        Some(AttrValue::Computation(n)) => Ok(n),
        _ => invalid(format!("{} without `{attr}=`", instr.opcode)),
    }
}

/// `while(init), condition=c, body=b` (seed 004, While): runs `b` on the state while `c` of the
/// state is true and returns the last state.
///
/// Errors: [`BackendError::NonTerminating`] when the body has run
/// [`max_while_iterations`] times and the condition still holds; [`BackendError::Invalid`] for a
/// condition that does not return a `pred[]`; any error of the computations, named with the trip
/// it happened in.
fn while_loop(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let condition = computation_attr(instr, "condition")?;
    let body = computation_attr(instr, "body")?;
    let Some(&init) = operands.first() else {
        return invalid("while takes one operand (the initial state)");
    };
    let limit = max_while_iterations();
    let mut state = init.clone();
    let mut trip: u64 = 0;
    loop {
        let at = |e: BackendError, what: &str| {
            e.map_message(|m| format!("{m} ({what} `{}`, trip {trip})", instr.name))
        };
        let go = call_computation(ctx, condition, std::slice::from_ref(&state))
            .map_err(|e| at(e, "condition of"))?;
        match go.as_array() {
            Some(a) if a.element_type() == ElementType::Pred && a.dimensions().is_empty() => {
                if a.get_bits(&[]) == 0 {
                    break;
                }
            }
            _ => {
                return invalid(format!(
                    "the condition `{condition}` returned {}, not pred[]",
                    go.shape()
                ))
            }
        }
        if trip >= limit {
            return Err(BackendError::NonTerminating(format!(
                "`{}` still loops after {limit} trips (the limit set by --max-iterations)",
                instr.name
            )));
        }
        state = call_computation(ctx, body, std::slice::from_ref(&state))
            .map_err(|e| at(e, "body of"))?;
        trip += 1;
    }
    conform(state, &instr.shape)
}

/// The index of the branch a conditional runs: the pred form's true → 0, false → 1; the index
/// form's `index` when in `0..n`, else `n - 1` (seed 004, Conditional).
pub fn branch_taken(selector_type: ElementType, selector_bits: u128, branches: usize) -> usize {
    if selector_type == ElementType::Pred && branches == 2 {
        if selector_bits != 0 {
            0
        } else {
            1
        }
    } else {
        let index = selector_bits as u32 as i32;
        usize::try_from(index)
            .ok()
            .filter(|&i| i < branches)
            .unwrap_or(branches - 1)
    }
}

/// `conditional(selector, operands...)` (seed 004, Conditional): evaluates only the chosen
/// branch on its operand.
///
/// Errors: [`BackendError::Invalid`] for a selector that is not a `pred[]`/`s32[]` scalar, no
/// branches, or an operand count other than the branch count; the branch's errors.
fn conditional(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let branches = conformance_spec::shape_inference::called_in_order(instr);
    let selector = array(instr, operands, 0)?;
    if !selector.dimensions().is_empty() {
        return invalid("the conditional's selector must be a scalar");
    }
    if branches.is_empty() || operands.len() != branches.len() + 1 {
        return invalid(format!(
            "conditional: {} branch(es), {} branch operand(s)",
            branches.len(),
            operands.len().saturating_sub(1)
        ));
    }
    let pred_form = instr.attribute("true_computation").is_some();
    let ty = selector.element_type();
    if !(ty == ElementType::S32 || ty == ElementType::Pred && (pred_form || branches.len() == 2)) {
        return invalid(format!(
            "conditional: a {ty} selector (pred[] or s32[] expected)"
        ));
    }
    let b = branch_taken(ty, selector.get_bits(&[]), branches.len());
    let value = call_computation(ctx, branches[b], &[operands[b + 1].clone()])
        .map_err(|e| e.map_message(|m| format!("{m} (branch {b} `{}`)", branches[b])))?;
    conform(value, &instr.shape)
}

/// `map(operands...), dimensions, to_apply=f` (seed 004, Map): `f` of the elements at each index.
///
/// Errors: [`BackendError::Invalid`] for operands of different dimensions or a computation that
/// does not take one scalar per operand; `f`'s errors, naming the element's index.
fn map(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let name = computation_attr(instr, "to_apply")?;
    let arrays: Vec<&ArrayLiteral> = (0..operands.len())
        .map(|i| array(instr, operands, i))
        .collect::<Result<_, _>>()?;
    let shape = crate::interpreter::result_array_shape(instr)?;
    for (i, a) in arrays.iter().enumerate() {
        if a.dimensions() != shape.dimensions.as_slice() {
            return invalid(format!(
                "map: operand {i} has dimensions {:?}, the result {:?}",
                a.dimensions(),
                shape.dimensions
            ));
        }
    }
    let types: Vec<ElementType> = arrays.iter().map(|a| a.element_type()).collect();
    let f = ScalarFn::new(ctx, name, &types)?;
    if f.result_type() != shape.element_type {
        return invalid(format!(
            "map: `{name}` returns {}, the result is {}",
            f.result_type(),
            shape.element_type
        ));
    }
    let positions: Vec<Vec<usize>> = arrays
        .iter()
        .map(|a| index::physical_positions(a.shape()))
        .collect();
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut args = vec![0u128; arrays.len()];
    for (n, &target) in index::physical_positions(shape).iter().enumerate() {
        for (k, a) in arrays.iter().enumerate() {
            args[k] = a.get_bits_linear(positions[k][n]);
        }
        let v = f.apply(ctx, &args).map_err(|e| {
            e.map_message(|m| {
                let at = index::linear_to_multi_index(
                    &conformance_spec::ArrayShape::new(
                        shape.element_type,
                        shape.dimensions.clone(),
                    ),
                    n,
                )
                .unwrap_or_default();
                format!("{m} (element {at:?} of `{}`)", instr.name)
            })
        })?;
        out.set_bits_linear(target, v);
    }
    Ok(Literal::Array(out))
}

/// `opt-barrier(operand)` (seed 004, OptimizationBarrier): the operand, unchanged.
fn optimization_barrier(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    match operands {
        [x] => conform((*x).clone(), &instr.shape),
        _ => invalid("opt-barrier takes one operand"),
    }
}
