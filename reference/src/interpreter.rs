//! The array interpreter: runs a module's entry computation instruction by instruction.
//!
//! Instructions are evaluated in definition order (every operand is defined before its use).
//! Structural instructions (`parameter`, `constant`, `tuple`, `get-tuple-element`, `call`,
//! width-changing `bitcast-convert`) have their own handlers, found in `STRUCTURAL`; the
//! data-movement family (`broadcast`, `copy`, `reshape`, `slice`, `gather`, `scatter`, ...) has
//! its table in [`crate::data_movement`], the contraction family (`dot`, `convolution`, `reduce`,
//! `reduce-window`, `select-and-scatter`) its table in [`crate::contraction`], the linear-algebra
//! family (`fft`, `cholesky`, `triangular-solve`, `batch-norm-*`) its table in [`crate::linalg`]; every other opcode
//! goes through the element-wise table ([`crate::elementwise`]). Every result is produced in the layout of its instruction's shape
//! (any `minor_to_major`, any padding): elements are addressed by multi-index or by physical
//! position computed from the layout, never by assuming row-major order.

use crate::contraction;
use crate::control_flow;
use crate::data_movement;
use crate::elementwise;
use crate::linalg;
use conformance_spec::collective::{Device, DeviceGrid};
use conformance_spec::dynamic_dimensions;
use conformance_spec::hlo::ir::{HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::BackendError;

/// How deep `call` may nest before the module is declared invalid (a call cycle).
const MAX_CALL_DEPTH: usize = 64;

/// What an instruction handler may need beyond its operands: the module (to find called
/// computations), the arguments of the computation being evaluated, the call depth, and the
/// device it runs on (collectives meet their group through it).
pub(crate) struct Context<'a> {
    pub(crate) module: &'a HloModule,
    pub(crate) args: &'a [Literal],
    pub(crate) depth: usize,
    pub(crate) device: Device<'a>,
}

/// An instruction handler: the instruction and its evaluated operands to the result value (in the
/// layout of the instruction's shape).
pub(crate) type Handler =
    fn(&Context, &HloInstruction, &[&Literal]) -> Result<Literal, BackendError>;

/// Instructions that are neither element-wise nor data movement, and their handlers.
const STRUCTURAL: &[(Opcode, Handler)] = &[
    (Opcode::Parameter, parameter),
    (Opcode::Constant, constant),
    (Opcode::Tuple, tuple),
    (Opcode::GetTupleElement, get_tuple_element),
    (Opcode::Call, call),
    (Opcode::Fusion, call),
    (Opcode::Bitcast, bitcast),
];

/// `bitcast` (XLA's kBitcast, in optimized modules): the operand's elements in the order they lie
/// in memory, read back under the result's shape and layout (a reshape or transpose that moves
/// no data). Errors: [`BackendError::Invalid`] for a tuple operand or result, element counts or
/// element widths that differ.
fn bitcast(
    _ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let ([Literal::Array(a)], Some(result)) = (operands, instr.shape.as_array()) else {
        return invalid("bitcast takes one array operand and gives an array");
    };
    if a.shape().element_count() != result.element_count()
        || a.element_type().bit_width() != result.element_type.bit_width()
    {
        return invalid(format!(
            "bitcast of {} to {result}: the buffers differ in size",
            a.shape()
        ));
    }
    let mut out = ArrayLiteral::zeros(result.clone());
    let from = conformance_spec::index::indices_in_physical_order(a.shape());
    let to = conformance_spec::index::indices_in_physical_order(result);
    for (f, t) in from.iter().zip(&to) {
        out.set_bits(t, a.get_bits(f));
    }
    Ok(Literal::Array(out))
}

pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(msg.into()))
}

/// Every opcode the interpreter runs: the structural ones and the element-wise table.
pub fn opcodes() -> Vec<Opcode> {
    let mut ops: Vec<Opcode> = STRUCTURAL.iter().map(|&(op, _)| op).collect();
    ops.extend(data_movement::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(contraction::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(control_flow::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(linalg::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(crate::random::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(crate::collective::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(crate::host_transfer::HANDLERS.iter().map(|&(op, _)| op));
    ops.extend(elementwise::opcodes());
    ops.sort();
    ops
}

/// Runs the entry computation of `module` on `args` (one literal per parameter, any layout; for
/// a module of several devices, each device's arguments in turn, and the result is the tuple of
/// the devices' results: `conformance_spec::collective`). Each device runs on its own thread.
///
/// Errors: [`BackendError::Invalid`] for a wrong argument count, an argument whose element type or
/// dimensions differ from its parameter's, an operand used before its definition, a malformed
/// instruction or shape, a bad device grid; [`BackendError::Unsupported`] naming an opcode or
/// element type the reference does not implement; [`BackendError::Failure`] for a deadlock
/// between devices.
pub fn execute(module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
    let Some(entry) = module.computations.get(module.entry) else {
        return invalid(format!(
            "module `{}`: entry index {} is out of range ({} computations)",
            module.name,
            module.entry,
            module.computations.len()
        ));
    };
    conformance_spec::host_transfer::run_module(module, args, |device, params| {
        evaluate(
            &Context {
                module,
                args: params,
                depth: 0,
                device,
            },
            entry,
        )
    })
}

/// Checks arguments against the computation's parameters (element type and dimensions; layouts
/// may differ).
fn check_arguments(computation: &HloComputation, args: &[Literal]) -> Result<(), BackendError> {
    let params = computation.parameters();
    if params.len() != args.len() {
        return invalid(format!(
            "computation `{}` has {} parameter(s), {} argument(s) given",
            computation.name,
            params.len(),
            args.len()
        ));
    }
    for (i, p) in params.iter().enumerate() {
        if p.parameter_number != Some(i as i64) {
            return invalid(format!(
                "computation `{}`: parameters must be numbered 0..{}, found {:?} at position {i}",
                computation.name,
                params.len(),
                p.parameter_number
            ));
        }
        shapes_agree(&p.shape, &args[i].shape()).map_err(|why| {
            BackendError::Invalid(format!(
                "argument {i} of `{}` does not match parameter `{}` of shape {}: {why}",
                computation.name, p.name, p.shape
            ))
        })?;
        args[i]
            .shape()
            .validate()
            .map_err(|e| BackendError::Invalid(format!("argument {i}: {e}")))?;
    }
    Ok(())
}

/// Element types and dimensions agree (layouts are free), through tuples.
fn shapes_agree(expected: &Shape, got: &Shape) -> Result<(), String> {
    match (expected, got) {
        (Shape::Array(e), Shape::Array(g)) => {
            if e.compatible(g) {
                Ok(())
            } else {
                Err(format!("got {g}"))
            }
        }
        (Shape::Tuple(e), Shape::Tuple(g)) if e.len() == g.len() => {
            e.iter().zip(g).try_for_each(|(e, g)| shapes_agree(e, g))
        }
        (Shape::Token, Shape::Token) => Ok(()),
        (_, g) => Err(format!("got {g}")),
    }
}

/// Puts a value into the layout of `shape` (checking element types and dimensions).
pub(crate) fn conform(value: Literal, shape: &Shape) -> Result<Literal, BackendError> {
    shapes_agree(shape, &value.shape()).map_err(|why| {
        BackendError::Invalid(format!("value does not have shape {shape}: {why}"))
    })?;
    Ok(match (value, shape) {
        (Literal::Array(a), Shape::Array(s)) => {
            validate(s)?;
            if a.shape().layout == s.layout {
                Literal::Array(a)
            } else {
                Literal::Array(a.relayout(s.layout.clone()))
            }
        }
        (Literal::Tuple(items), Shape::Tuple(shapes)) => Literal::Tuple(
            items
                .into_iter()
                .zip(shapes)
                .map(|(v, s)| conform(v, s))
                .collect::<Result<_, _>>()?,
        ),
        (v, _) => v,
    })
}

fn validate(shape: &ArrayShape) -> Result<(), BackendError> {
    shape
        .validate()
        .map_err(|e| BackendError::Invalid(format!("shape {shape}: {e}")))
}

fn evaluate(ctx: &Context, computation: &HloComputation) -> Result<Literal, BackendError> {
    check_arguments(computation, ctx.args)?;
    let mut values: Vec<Option<Literal>> = Vec::with_capacity(computation.instructions.len());
    for (i, instr) in computation.instructions.iter().enumerate() {
        let mut operands = Vec::with_capacity(instr.operands.len());
        for &o in &instr.operands {
            match values.get(o).and_then(Option::as_ref) {
                Some(v) if o < i => operands.push(v),
                _ => {
                    return invalid(format!(
                        "`{}` in `{}` uses operand #{o}, which is not defined before it",
                        instr.name, computation.name
                    ))
                }
            }
        }
        let value = if has_runtime_sizes(instr, &operands) {
            eval_logical(ctx, instr, &operands)
        } else {
            eval_instruction(ctx, instr, &operands)
        }
        .map_err(|e| annotate(e, instr))?;
        values.push(Some(value));
    }
    match values.get_mut(computation.root).and_then(Option::take) {
        Some(v) => Ok(v),
        None => invalid(format!(
            "computation `{}`: root index {} is out of range",
            computation.name, computation.root
        )),
    }
}

/// True when an operand of `instr` is a dynamic value that `instr` acts on through its logical
/// array (see [`dynamic_dimensions`]).
fn has_runtime_sizes(instr: &HloInstruction, operands: &[&Literal]) -> bool {
    !dynamic_dimensions::passes_values_through(instr.opcode)
        && operands
            .iter()
            .any(|o| matches!(o, Literal::Array(a) if a.runtime_dimensions().is_some()))
}

/// Evaluates `instr` on the logical arrays of its operands (seed 004, SetDimensionSize; the
/// rules are [`dynamic_dimensions::logical_form`]) and embeds the result in the declared shape,
/// with the result's dimensions as runtime sizes.
///
/// Errors: [`BackendError::Invalid`] when an operand is not an array or the instruction is not
/// valid for the runtime sizes; the static evaluation's errors.
fn eval_logical(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let arrays = (0..operands.len())
        .map(|i| array(instr, operands, i))
        .collect::<Result<Vec<_>, _>>()?;
    let sizes: Vec<dynamic_dimensions::OperandSizes> = arrays
        .iter()
        .map(|a| dynamic_dimensions::OperandSizes {
            bound: a.shape(),
            logical: a.logical_dimensions(),
        })
        .collect();
    let form = dynamic_dimensions::logical_form(instr, &sizes)
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let blocks = arrays
        .iter()
        .zip(&form.operand_dimensions)
        .map(|(a, dims)| a.leading_block(dims).map(Literal::Array))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let refs: Vec<&Literal> = blocks.iter().collect();
    let logical = eval_instruction(ctx, &form.instruction, &refs)?;
    embed(logical, &instr.shape)
}

/// Places a logical result at the origin of the declared shape, leaf by leaf.
fn embed(value: Literal, shape: &Shape) -> Result<Literal, BackendError> {
    match (value, shape) {
        (Literal::Array(a), Shape::Array(bound)) => ArrayLiteral::embed(&a, bound.clone())
            .map(Literal::Array)
            .map_err(|e| BackendError::Invalid(format!("{e} (declared shape {shape})"))),
        (Literal::Tuple(items), Shape::Tuple(shapes)) if items.len() == shapes.len() => items
            .into_iter()
            .zip(shapes)
            .map(|(v, s)| embed(v, s))
            .collect::<Result<_, _>>()
            .map(Literal::Tuple),
        (v, _) => invalid(format!(
            "the logical result `{}` does not fit the declared shape `{shape}`",
            v.shape()
        )),
    }
}

/// Names the instruction in an error.
fn annotate(e: BackendError, instr: &HloInstruction) -> BackendError {
    e.map_message(|m| format!("{m} (instruction `{}`)", instr.name))
}

fn eval_instruction(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    if let Some(&(_, handler)) = STRUCTURAL
        .iter()
        .chain(data_movement::HANDLERS)
        .chain(contraction::HANDLERS)
        .chain(control_flow::HANDLERS)
        .chain(linalg::HANDLERS)
        .chain(crate::random::HANDLERS)
        .chain(crate::collective::HANDLERS)
        .chain(crate::host_transfer::HANDLERS)
        .find(|&&(op, _)| op == instr.opcode)
    {
        return handler(ctx, instr, operands);
    }
    if instr.opcode == Opcode::BitcastConvert {
        let (operand, shape) = (array(instr, operands, 0)?, result_array_shape(instr)?);
        if operand.element_type().bit_width() != shape.element_type.bit_width() {
            return elementwise::bitcast_convert_array(operand, shape).map(Literal::Array);
        }
    }
    if elementwise::is_elementwise(instr.opcode) {
        return elementwise_array(instr, operands).map(Literal::Array);
    }
    Err(BackendError::Unsupported(format!(
        "opcode `{}` is not implemented by the reference",
        instr.opcode
    )))
}

/// Operand `i` as an array. Errors: [`BackendError::Invalid`] when it is missing or not an array.
pub(crate) fn array<'a>(
    instr: &HloInstruction,
    operands: &[&'a Literal],
    i: usize,
) -> Result<&'a ArrayLiteral, BackendError> {
    match operands.get(i) {
        Some(Literal::Array(a)) => Ok(a),
        Some(_) => invalid(format!("{}: operand {i} must be an array", instr.opcode)),
        None => invalid(format!("{}: missing operand {i}", instr.opcode)),
    }
}

/// The instruction's shape as a (validated) array shape. Errors: [`BackendError::Invalid`] for a
/// tuple or token shape or a malformed shape.
pub(crate) fn result_array_shape(instr: &HloInstruction) -> Result<&ArrayShape, BackendError> {
    match &instr.shape {
        Shape::Array(s) => {
            validate(s)?;
            Ok(s)
        }
        other => invalid(format!(
            "{}: result shape {other} must be an array",
            instr.opcode
        )),
    }
}

/// Operands that may be scalars standing for a broadcast (seed 004: Select's `pred`, Clamp's
/// `min` and `max`).
fn scalar_broadcast_allowed(opcode: Opcode, operand: usize) -> bool {
    matches!(
        (opcode, operand),
        (Opcode::Select, 0) | (Opcode::Clamp, 0) | (Opcode::Clamp, 2)
    )
}

/// Applies an element-wise instruction to arrays of the result's dimensions.
fn elementwise_array(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<ArrayLiteral, BackendError> {
    let shape = result_array_shape(instr)?;
    let arrays: Vec<&ArrayLiteral> = (0..operands.len())
        .map(|i| array(instr, operands, i))
        .collect::<Result<_, _>>()?;
    let types: Vec<_> = arrays.iter().map(|a| a.element_type()).collect();
    let f = elementwise::prepare(instr, &types, shape.element_type)?;
    // Physical position of every logical element (row-major logical order), per operand; `None`
    // for a scalar operand broadcast to every element.
    let mut positions: Vec<Option<Vec<usize>>> = Vec::with_capacity(arrays.len());
    for (i, a) in arrays.iter().enumerate() {
        if a.dimensions() == shape.dimensions.as_slice() {
            positions.push(Some(index::physical_positions(a.shape())));
        } else if a.dimensions().is_empty() && scalar_broadcast_allowed(instr.opcode, i) {
            positions.push(None);
        } else {
            return invalid(format!(
                "{}: operand {i} has dimensions {:?}, the result {:?}",
                instr.opcode,
                a.dimensions(),
                shape.dimensions
            ));
        }
    }
    let mut out = ArrayLiteral::zeros(shape.clone());
    let mut element = vec![0u128; arrays.len()];
    for (n, &target) in index::physical_positions(shape).iter().enumerate() {
        for (k, a) in arrays.iter().enumerate() {
            let p = positions[k].as_ref().map_or(0, |p| p[n]);
            element[k] = a.get_bits_linear(p);
        }
        out.set_bits_linear(target, f(&element)?);
    }
    Ok(out)
}

// --- structural handlers ----------------------------------------------------------------------

fn parameter(
    ctx: &Context,
    instr: &HloInstruction,
    _: &[&Literal],
) -> Result<Literal, BackendError> {
    let n = instr
        .parameter_number
        .ok_or_else(|| BackendError::Invalid("parameter without a number".into()))?;
    let Some(arg) = usize::try_from(n).ok().and_then(|n| ctx.args.get(n)) else {
        return invalid(format!("parameter({n}) has no argument"));
    };
    conform(arg.clone(), &instr.shape)
}

fn constant(_: &Context, instr: &HloInstruction, _: &[&Literal]) -> Result<Literal, BackendError> {
    let Some(value) = &instr.literal else {
        return invalid("constant without a literal");
    };
    conform(value.clone(), &instr.shape)
}

fn tuple(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let value = Literal::Tuple(operands.iter().map(|&l| l.clone()).collect());
    conform(value, &instr.shape)
}

fn get_tuple_element(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let index = instr
        .attr_int("index")
        .ok_or_else(|| BackendError::Invalid("get-tuple-element without `index=`".into()))?;
    let Some(Literal::Tuple(items)) = operands.first() else {
        return invalid("get-tuple-element: the operand must be a tuple");
    };
    let Some(item) = usize::try_from(index).ok().and_then(|i| items.get(i)) else {
        return invalid(format!(
            "get-tuple-element: index {index} out of range for a tuple of {}",
            items.len()
        ));
    };
    conform(item.clone(), &instr.shape)
}

/// `call`: evaluates the called computation (`to_apply=`) on the operands.
fn call(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let called = instr.called_computations();
    let Some(&name) = called.first() else {
        return invalid("call without a called computation (`to_apply=`)");
    };
    let args: Vec<Literal> = operands.iter().map(|&l| l.clone()).collect();
    let result = call_computation(ctx, name, &args)?;
    conform(result, &instr.shape)
}

/// Evaluates computation `name` of the context's module on `args` one call level deeper (the
/// evaluation `call` and the update computation of `scatter` use).
///
/// Errors: [`BackendError::Invalid`] when the computation is not in the module, the nesting is
/// deeper than 64 (a call cycle), or the arguments do not match its parameters; any error of the
/// callee's instructions.
pub(crate) fn call_computation(
    ctx: &Context,
    name: &str,
    args: &[Literal],
) -> Result<Literal, BackendError> {
    let Some(callee) = ctx.module.computation(name) else {
        return invalid(format!("computation `{name}` is not in the module"));
    };
    if ctx.depth >= MAX_CALL_DEPTH {
        return invalid(format!(
            "nesting deeper than {MAX_CALL_DEPTH} (a call cycle through `{name}`?)"
        ));
    }
    let inner = Context {
        module: ctx.module,
        args,
        depth: ctx.depth + 1,
        device: ctx.device,
    };
    evaluate(&inner, callee)
}

/// The values of the entry root's operands: the entry computation evaluated with a `tuple` of
/// those operands as its root.
///
/// Errors: those of [`execute`]; [`BackendError::Unsupported`] for a module of several devices
/// (see [`root_operands_per_device`]).
pub(crate) fn root_operands(
    module: &HloModule,
    args: &[Literal],
) -> Result<Vec<Literal>, BackendError> {
    if DeviceGrid::of(module)?.devices() > 1 {
        return Err(BackendError::Unsupported(
            "the root operands of a module of several devices are per device".into(),
        ));
    }
    let mut per_device = root_operands_per_device(module, args)?;
    Ok(per_device.remove(0))
}

/// Per device, the values of the entry root's operands (see [`root_operands`]).
///
/// Errors: those of [`execute`].
pub(crate) fn root_operands_per_device(
    module: &HloModule,
    args: &[Literal],
) -> Result<Vec<Vec<Literal>>, BackendError> {
    let devices = DeviceGrid::of(module)?.devices();
    let mut m = module.clone();
    let entry = &mut m.computations[module.entry];
    let root = &entry.instructions[entry.root];
    let shapes: Vec<Shape> = root
        .operands
        .iter()
        .map(|&o| {
            entry
                .instructions
                .get(o)
                .map(|i| i.shape.clone())
                .ok_or_else(|| BackendError::Invalid(format!("root operand #{o} is undefined")))
        })
        .collect::<Result<_, _>>()?;
    let gather = HloInstruction {
        name: format!("{}.operands", root.name),
        opcode: Opcode::Tuple,
        shape: Shape::Tuple(shapes),
        operands: root.operands.clone(),
        parameter_number: None,
        literal: None,
        attributes: Vec::new(),
    };
    entry.instructions.push(gather);
    entry.root = entry.instructions.len() - 1;
    let tuple = |l: Literal| match l {
        Literal::Tuple(items) => Ok(items),
        other => invalid(format!("root operands evaluated to {}", other.shape())),
    };
    match execute(&m, args)? {
        Literal::Tuple(items) if devices > 1 => items.into_iter().map(tuple).collect(),
        one => Ok(vec![tuple(one)?]),
    }
}
