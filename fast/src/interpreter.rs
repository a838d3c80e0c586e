//! The interpreter: runs a computation instruction by instruction (operands are defined before
//! use), moves each value into its last user (so a uniquely owned buffer can be updated in place
//! or re-viewed without a copy), and hands element-wise instructions to [`crate::elementwise`],
//! data-movement instructions to [`crate::data_movement`], contractions (dot, convolution,
//! reduce, reduce-window, select-and-scatter) to [`crate::contraction`] and control flow (while,
//! conditional, map, sort, topk, opt-barrier) to [`crate::control_flow`] and linear algebra (fft,
//! cholesky, triangular-solve, batch-norm-*) to [`crate::linalg`]. Structural
//! instructions: `parameter`, `constant`, `call`, `tuple`, `get-tuple-element`, `copy`.
//!
//! A called computation takes its arguments by value: `parameter` instructions move them out, and
//! `call` moves its operands in, so a buffer at its last use stays uniquely owned in the callee.

use crate::contraction;
use crate::control_flow;
use crate::data_movement;
use crate::elementwise;
use crate::layout;
use crate::linalg;
use crate::op_context::Ctx;
use crate::parallel::Exec;
use crate::value::Value;
use crate::Fast;
use conformance_spec::collective::Device;
use conformance_spec::dynamic_dimensions;
use conformance_spec::hlo::{HloComputation, HloInstruction};
use conformance_spec::{BackendError, HloModule, Literal, Opcode, Shape};

/// Nesting limit of `call`s (a module that calls itself is invalid HLO).
const MAX_CALL_DEPTH: usize = 64;

/// Runs the module's entry computation on `args` (one literal per parameter, any layout; for a
/// module of several devices each device's arguments in turn, each device on its own thread,
/// the result the tuple of the devices' results: `conformance_spec::collective`).
pub(crate) fn execute(
    fast: &Fast,
    module: &HloModule,
    args: &[Literal],
) -> Result<Literal, BackendError> {
    conformance_spec::host_transfer::run_module(module, args, |device, params| {
        execute_device(fast, module, params, device)
    })
}

/// Runs the entry computation on one device.
fn execute_device(
    fast: &Fast,
    module: &HloModule,
    args: &[Literal],
    device: Device<'_>,
) -> Result<Literal, BackendError> {
    let exec = Exec {
        compiled_loops: fast.compiled_loops(),
        threefry_rotations: fast.threefry_rotations,
        isa: fast.isa(),
        ..Exec::new(fast.parallel_threshold())
    }
    .with_split(fast.split_tasks());
    let entry = module.computations.get(module.entry).ok_or_else(|| {
        BackendError::Invalid(format!(
            "entry computation index {} out of range ({} computations)",
            module.entry,
            module.computations.len()
        ))
    })?;
    let params = entry.parameters();
    if params.len() != args.len() {
        return Err(BackendError::Invalid(format!(
            "computation `{}` has {} parameters but {} arguments were given",
            entry.name,
            params.len(),
            args.len()
        )));
    }
    for (p, a) in params.iter().zip(args) {
        check_argument(&p.shape, &a.shape()).map_err(|why| {
            BackendError::Invalid(format!(
                "argument for parameter `{}` ({}) has shape {}: {why}",
                p.name,
                p.shape,
                a.shape()
            ))
        })?;
    }
    let args: Vec<Value<'_>> = args.iter().map(Value::borrow).collect();
    run(module, entry, args, exec, 0, device)?.into_literal()
}

/// Checks an argument's shape against a parameter's: same element types and dimensions, any layout.
fn check_argument(param: &Shape, arg: &Shape) -> Result<(), String> {
    match (param, arg) {
        (Shape::Array(p), Shape::Array(a)) => {
            if p.compatible(a) {
                Ok(())
            } else {
                Err("element type or dimensions differ".into())
            }
        }
        (Shape::Tuple(p), Shape::Tuple(a)) if p.len() == a.len() => {
            p.iter().zip(a).try_for_each(|(p, a)| check_argument(p, a))
        }
        (Shape::Token, Shape::Token) => Ok(()),
        _ => Err("kinds of shape differ".into()),
    }
}

/// Runs one computation with argument values; the result has the root's shape, layout included.
///
/// The arguments are taken by value: each `parameter` instruction moves its argument out, so a
/// uniquely owned buffer passed in (a loop state, a call's operand at its last use) stays uniquely
/// owned inside and can be updated in place.
fn run<'a>(
    module: &'a HloModule,
    comp: &'a HloComputation,
    args: Vec<Value<'a>>,
    exec: Exec,
    depth: usize,
    device: Device<'_>,
) -> Result<Value<'a>, BackendError> {
    let n = comp.instructions.len();
    if comp.root >= n {
        return Err(BackendError::Invalid(format!(
            "computation `{}`: root index {} out of range",
            comp.name, comp.root
        )));
    }
    // Index of the last instruction that reads each value.
    let mut last_use = vec![0usize; n];
    for (i, instr) in comp.instructions.iter().enumerate() {
        for &o in &instr.operands {
            if o >= i {
                return Err(BackendError::Invalid(format!(
                    "computation `{}`: instruction `{}` uses operand #{o}, which is not defined before it",
                    comp.name, instr.name
                )));
            }
            last_use[o] = i;
        }
    }
    let mut args: Vec<Option<Value<'a>>> = args.into_iter().map(Some).collect();
    let mut values: Vec<Option<Value<'a>>> = vec![None; n];
    for (i, instr) in comp.instructions.iter().enumerate() {
        if instr.opcode == Opcode::Parameter {
            values[i] =
                Some(parameter(instr, &mut args).map_err(|e| with_context(e, comp, instr))?);
            continue;
        }
        // Operands whose last use this is are moved (a uniquely owned buffer can then be updated
        // in place); the others are shared.
        let mut operands: Vec<Value<'a>> = Vec::with_capacity(instr.operands.len());
        for (k, &o) in instr.operands.iter().enumerate() {
            let last = last_use[o] == i && o != comp.root && !instr.operands[k + 1..].contains(&o);
            let v = if last {
                values[o].take()
            } else {
                values[o].clone()
            };
            operands.push(v.ok_or_else(|| {
                BackendError::Failure(format!("value #{o} was freed before its use"))
            })?);
        }
        let value = eval_instruction(module, instr, operands, exec, depth, device)
            .map_err(|e| with_context(e, comp, instr))?;
        values[i] = Some(value);
    }
    let root = comp.root_instruction();
    let value = values[comp.root]
        .take()
        .ok_or_else(|| BackendError::Failure("root value missing".into()))?;
    conform(value, &root.shape, exec)
}

/// The argument of a `parameter` instruction, moved out of `args` (each parameter number is
/// read once). Errors: [`BackendError::Invalid`] for a missing number, a number without an
/// argument or a number read twice.
fn parameter<'a>(
    instr: &HloInstruction,
    args: &mut [Option<Value<'a>>],
) -> Result<Value<'a>, BackendError> {
    if !instr.operands.is_empty() {
        return Err(BackendError::Invalid(format!(
            "parameter takes 0 operands, {} given",
            instr.operands.len()
        )));
    }
    let number = instr
        .parameter_number
        .ok_or_else(|| BackendError::Invalid("parameter without a number".into()))?;
    let count = args.len();
    let slot = usize::try_from(number)
        .ok()
        .and_then(|k| args.get_mut(k))
        .ok_or_else(|| {
            BackendError::Invalid(format!("parameter({number}) but {count} arguments"))
        })?;
    slot.take()
        .ok_or_else(|| BackendError::Invalid(format!("parameter({number}) appears more than once")))
}

fn with_context(e: BackendError, comp: &HloComputation, instr: &HloInstruction) -> BackendError {
    e.map_message(|m| format!("{m} (instruction `{}` in `{}`)", instr.name, comp.name))
}

/// Puts a value into the layout its instruction's shape declares (arguments may come in any layout).
pub(crate) fn conform<'a>(
    value: Value<'a>,
    shape: &Shape,
    exec: Exec,
) -> Result<Value<'a>, BackendError> {
    match (value, shape) {
        (Value::Array(a), Shape::Array(s)) => {
            if a.shape() == s {
                Ok(Value::Array(a))
            } else if a.shape().compatible(s) {
                let same_bytes = layout::same_physical_layout(a.shape(), s)
                    && (!s.layout.is_padded()
                        || a.shape().layout.padding_value == s.layout.padding_value);
                let v = match a.view_as(s.clone()) {
                    Some(v) if same_bytes => v,
                    _ => match data_movement::relayout(
                        &a,
                        s,
                        exec.parallel(a.shape().element_count()),
                    )? {
                        Value::Array(r) => r,
                        _ => return Err(BackendError::Failure("relayout gives an array".into())),
                    },
                };
                // Runtime sizes (seed 004, SetDimensionSize) stay with the values.
                Ok(Value::Array(v.with_runtime_sizes(
                    s.clone(),
                    a.logical_dimensions().to_vec(),
                )))
            } else {
                Err(BackendError::Invalid(format!(
                    "value of shape {} where {s} is declared",
                    a.shape()
                )))
            }
        }
        (Value::Splat { shape: vs, bits }, Shape::Array(s)) if vs.compatible(s) => {
            Ok(Value::Splat {
                shape: s.clone(),
                bits,
            })
        }
        (Value::Tuple(t), Shape::Tuple(ss)) if t.len() == ss.len() => Ok(Value::Tuple(
            t.into_iter()
                .zip(ss)
                .map(|(v, s)| conform(v, s, exec))
                .collect::<Result<_, _>>()?,
        )),
        (Value::Token, Shape::Token) => Ok(Value::Token),
        (v, s) => Err(BackendError::Invalid(format!(
            "value of shape {:?} where {s} is declared",
            v.array_shape().map(|a| a.to_string())
        ))),
    }
}

/// `bitcast` (XLA's kBitcast): the operand's elements in memory order read back under `shape`
/// (its layout included). Element by element through the literal; optimized modules use it for
/// reshapes and transposes that move no data, which are rare and small outside fusions.
/// Errors: [`BackendError::Invalid`] for tuples, or buffers of different sizes.
fn bitcast<'a>(value: &Value<'a>, shape: &Shape) -> Result<Value<'a>, BackendError> {
    let (Some(result), Literal::Array(a)) = (shape.as_array(), value.clone().into_literal()?)
    else {
        return Err(BackendError::Invalid(
            "bitcast takes one array operand and gives an array".into(),
        ));
    };
    if a.shape().element_count() != result.element_count()
        || a.element_type().bit_width() != result.element_type.bit_width()
    {
        return Err(BackendError::Invalid(format!(
            "bitcast of {} to {result}: the buffers differ in size",
            a.shape()
        )));
    }
    let mut out = conformance_spec::literal::ArrayLiteral::zeros(result.clone());
    let from = conformance_spec::index::indices_in_physical_order(a.shape());
    let to = conformance_spec::index::indices_in_physical_order(result);
    for (f, t) in from.iter().zip(&to) {
        out.set_bits(t, a.get_bits(f));
    }
    Ok(Value::owned(out))
}

/// True when an operand of `instr` is a dynamic value that `instr` acts on through its logical
/// array ([`dynamic_dimensions`]).
fn has_runtime_sizes(instr: &HloInstruction, operands: &[Value<'_>]) -> bool {
    !dynamic_dimensions::passes_values_through(instr.opcode)
        && operands
            .iter()
            .any(|o| matches!(o, Value::Array(a) if a.runtime_sizes().is_some()))
}

/// Evaluates `instr` on the logical arrays of its operands (seed 004, SetDimensionSize; rules in
/// [`dynamic_dimensions::logical_form`]): cuts each operand to its leading block, runs the static
/// instruction, and embeds the result in the declared shape with its dimensions as runtime sizes.
///
/// Errors: [`BackendError::Invalid`] for tuple operands or runtime sizes the instruction does not
/// accept; the static evaluation's errors.
fn eval_logical<'a>(
    module: &'a HloModule,
    instr: &'a HloInstruction,
    operands: Vec<Value<'a>>,
    exec: Exec,
    depth: usize,
    device: Device<'_>,
) -> Result<Value<'a>, BackendError> {
    let shapes = operands
        .iter()
        .map(|v| match v {
            Value::Array(a) => Ok((a.shape(), a.logical_dimensions())),
            Value::Splat { shape, .. } => Ok((shape, shape.dimensions.as_slice())),
            _ => Err(BackendError::Invalid(format!(
                "{}: a tuple operand beside a dynamic one",
                instr.opcode
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sizes: Vec<dynamic_dimensions::OperandSizes> = shapes
        .iter()
        .map(|&(bound, logical)| dynamic_dimensions::OperandSizes { bound, logical })
        .collect();
    let form = dynamic_dimensions::logical_form(instr, &sizes)
        .map_err(|e| BackendError::Invalid(e.to_string()))?;
    let blocks = operands
        .iter()
        .zip(&form.operand_dimensions)
        .map(|(v, dims)| match v {
            Value::Array(a) => data_movement::dynamic_size::leading_block(
                a,
                dims,
                exec.parallel(a.shape().element_count()),
            ),
            Value::Splat { shape, bits } => {
                let mut shape = shape.clone();
                shape.dimensions.clone_from(dims);
                Ok(Value::Splat { shape, bits: *bits })
            }
            _ => Err(BackendError::Failure("operands were checked above".into())),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let logical = eval_instruction(module, &form.instruction, blocks, exec, depth, device)?;
    embed(logical, &instr.shape, exec)
}

/// A logical result placed at the origin of the declared shape, leaf by leaf (a new buffer).
fn embed<'a>(value: Value<'_>, shape: &Shape, exec: Exec) -> Result<Value<'a>, BackendError> {
    match (value, shape) {
        (Value::Tuple(items), Shape::Tuple(shapes)) if items.len() == shapes.len() => {
            Ok(Value::Tuple(
                items
                    .into_iter()
                    .zip(shapes)
                    .map(|(v, s)| embed(v, s, exec))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (v @ (Value::Array(_) | Value::Splat { .. }), Shape::Array(bound)) => {
            let a = match v {
                Value::Array(a) => a,
                Value::Splat { shape, bits } => match Value::owned(layout::splat(shape, bits)?) {
                    Value::Array(a) => a,
                    _ => return Err(BackendError::Failure("owned gives an array".into())),
                },
                _ => return Err(BackendError::Failure("matched above".into())),
            };
            data_movement::dynamic_size::embed(&a, bound, exec.parallel(bound.element_count()))
                .map(Value::Array)
        }
        (v, s) => Err(BackendError::Invalid(format!(
            "the logical result {:?} does not fit the declared shape {s}",
            v.array_shape().map(ToString::to_string)
        ))),
    }
}

fn eval_instruction<'a>(
    module: &'a HloModule,
    instr: &'a HloInstruction,
    owned: Vec<Value<'a>>,
    exec: Exec,
    depth: usize,
    device: Device<'_>,
) -> Result<Value<'a>, BackendError> {
    if has_runtime_sizes(instr, &owned) {
        return eval_logical(module, instr, owned, exec, depth, device);
    }
    // The families that take their operands by value and may call computations.
    let family: Option<fn(Ctx<'_, 'a>) -> Result<Value<'a>, BackendError>> =
        if data_movement::is_data_movement(instr.opcode) {
            Some(data_movement::evaluate)
        } else if contraction::is_contraction(instr.opcode) {
            Some(contraction::evaluate)
        } else if control_flow::is_control_flow(instr.opcode) {
            Some(control_flow::evaluate)
        } else if crate::collective::is_collective(instr.opcode) {
            Some(crate::collective::evaluate)
        } else if crate::host_transfer::is_host_transfer(instr.opcode) {
            Some(crate::host_transfer::evaluate)
        } else {
            None
        };
    if let Some(evaluate) = family {
        if depth >= MAX_CALL_DEPTH {
            return Err(BackendError::Invalid(format!(
                "calls nested deeper than {MAX_CALL_DEPTH} (recursive call?)"
            )));
        }
        let call =
            |c: &'a HloComputation, a: Vec<Value<'a>>| run(module, c, a, exec, depth + 1, device);
        let eval = |i: &'a HloInstruction, a: Vec<Value<'a>>| {
            eval_instruction(module, i, a, exec, depth + 1, device)
        };
        let v = evaluate(Ctx {
            module,
            instr,
            operands: owned,
            exec,
            call: &call,
            eval: &eval,
            device,
        })?;
        return conform(v, &instr.shape, exec);
    }
    if matches!(instr.opcode, Opcode::Call | Opcode::Fusion) {
        // The operands move into the callee (its parameters own them).
        let callee = instr
            .called_computations()
            .first()
            .and_then(|name| module.computation(name))
            .ok_or_else(|| {
                BackendError::Invalid("call without a known `to_apply` computation".into())
            })?;
        if depth >= MAX_CALL_DEPTH {
            return Err(BackendError::Invalid(format!(
                "calls nested deeper than {MAX_CALL_DEPTH} (recursive call?)"
            )));
        }
        if callee.parameters().len() != owned.len() {
            return Err(BackendError::Invalid(format!(
                "call of `{}` with {} operands for {} parameters",
                callee.name,
                owned.len(),
                callee.parameters().len()
            )));
        }
        let v = run(module, callee, owned, exec, depth + 1, device)?;
        return conform(v, &instr.shape, exec);
    }
    let operands: Vec<&Value<'a>> = owned.iter().collect();
    let operands = &operands[..];
    let arity = |k: usize| {
        if operands.len() == k {
            Ok(())
        } else {
            Err(BackendError::Invalid(format!(
                "{} takes {k} operands, {} given",
                instr.opcode,
                operands.len()
            )))
        }
    };
    match instr.opcode {
        Opcode::Constant => {
            arity(0)?;
            let lit = instr
                .literal
                .as_ref()
                .ok_or_else(|| BackendError::Invalid("constant without a literal".into()))?;
            conform(Value::borrow(lit), &instr.shape, exec)
        }
        Opcode::Tuple => Ok(Value::Tuple(operands.iter().map(|&v| v.clone()).collect())),
        Opcode::Bitcast => {
            arity(1)?;
            bitcast(operands[0], &instr.shape)
        }
        Opcode::GetTupleElement => {
            arity(1)?;
            let index = instr
                .attr_int("index")
                .ok_or_else(|| BackendError::Invalid("get-tuple-element without index".into()))?;
            match operands[0] {
                Value::Tuple(t) => usize::try_from(index)
                    .ok()
                    .and_then(|k| t.get(k))
                    .cloned()
                    .ok_or_else(|| {
                        BackendError::Invalid(format!(
                            "index {index} out of range for a tuple of {}",
                            t.len()
                        ))
                    }),
                _ => Err(BackendError::Invalid(
                    "get-tuple-element of a non-tuple".into(),
                )),
            }
        }
        Opcode::Copy => {
            // A layout-changing copy is a relayout (cache-blocked when the layouts transpose each
            // other).
            arity(1)?;
            conform(operands[0].clone(), &instr.shape, exec)
        }
        op if elementwise::is_elementwise(op) => {
            let out = elementwise::evaluate(instr, operands, exec)?;
            Ok(Value::owned(out))
        }
        op if linalg::is_linalg(op) => {
            let v = linalg::evaluate(instr, operands, exec)?;
            conform(v, &instr.shape, exec)
        }
        op if crate::random::is_random(op) => {
            let v = crate::random::evaluate(instr, operands, exec)?;
            conform(v, &instr.shape, exec)
        }
        op => Err(BackendError::Unsupported(format!(
            "opcode `{op}` is not implemented by the fast backend"
        ))),
    }
}
