//! Tokens and host transfers (seed 004: AfterAll, Infeed, Send, Recv; XLA's Outfeed;
//! `spec/ops/host_transfer.yaml`): the device's queues and channels are
//! `conformance_spec::host_transfer`'s. The interpreter runs instructions in text order, an
//! order that respects every token, and loop plans never take a token, so these instructions
//! always run where the program places them.

use crate::interpreter::conform;
use crate::op_context::Ctx;
use crate::value::Value;
use conformance_spec::host_transfer;
use conformance_spec::{ArrayLiteral, ArrayShape, BackendError, ElementType, Literal, Opcode};

/// True for the opcodes of this family.
pub(crate) use conformance_spec::host_transfer::is_host_transfer;

fn invalid<T>(m: impl Into<String>) -> Result<T, BackendError> {
    Err(BackendError::Invalid(m.into()))
}

/// A literal taken over as a value.
fn owned<'a>(literal: Literal) -> Value<'a> {
    match literal {
        Literal::Array(a) => Value::owned(a),
        Literal::Tuple(t) => Value::Tuple(t.into_iter().map(owned).collect()),
        Literal::Token => Value::Token,
    }
}

/// Evaluates a token or transfer instruction on this context's device.
///
/// Errors: [`BackendError::Invalid`] for operands that are not tokens where tokens go, an empty
/// infeed queue, data of another shape than declared; [`BackendError::Unsupported`] for host
/// transfers; [`BackendError::Failure`] for a deadlock.
pub(crate) fn evaluate<'a>(cx: Ctx<'_, 'a>) -> Result<Value<'a>, BackendError> {
    let instr = cx.instr;
    let device = cx.device;
    let token_at = |k: usize| -> Result<(), BackendError> {
        match cx.operands.get(k) {
            Some(Value::Token) => Ok(()),
            _ => invalid(format!("{}: operand {k} is not a token", instr.opcode)),
        }
    };
    let context = |data: Value<'a>| {
        Value::Tuple(vec![
            data,
            Value::owned(ArrayLiteral::zeros(ArrayShape::new(
                ElementType::U32,
                vec![],
            ))),
            Value::Token,
        ])
    };
    match instr.opcode {
        Opcode::AfterAll => {
            (0..cx.operands.len()).try_for_each(token_at)?;
            Ok(Value::Token)
        }
        Opcode::Infeed => {
            cx.arity(1)?;
            token_at(0)?;
            let shape = host_transfer::data_shape(instr)?;
            let v = device.feeds.infeed(device.id, shape)?;
            Ok(Value::Tuple(vec![
                conform(owned(v), shape, cx.exec)?,
                Value::Token,
            ]))
        }
        Opcode::Outfeed => {
            cx.arity(2)?;
            token_at(1)?;
            let mut operands = cx.operands;
            operands.truncate(1);
            let data = operands.pop().map(Value::into_literal).transpose()?;
            device
                .feeds
                .outfeed(data.unwrap_or(Literal::Tuple(vec![])))?;
            Ok(Value::Token)
        }
        Opcode::Send => {
            cx.arity(2)?;
            token_at(1)?;
            let mut operands = cx.operands;
            operands.truncate(1);
            let Some(data) = operands.pop() else {
                return invalid("send takes the data and a token");
            };
            host_transfer::send(device, instr, data.clone().into_literal()?)?;
            Ok(context(data))
        }
        Opcode::SendDone | Opcode::RecvDone => {
            cx.arity(1)?;
            if !matches!(&cx.operands[0], Value::Tuple(c) if c.len() == 3) {
                return invalid(format!(
                    "{}: the operand is not a send or recv context",
                    instr.opcode
                ));
            }
            if instr.opcode == Opcode::SendDone {
                return Ok(Value::Token);
            }
            let shape = host_transfer::data_shape(instr)?;
            let data = match host_transfer::recv_done(device, instr)? {
                Some(v) => conform(owned((*v).clone()), shape, cx.exec)?,
                None => owned(Literal::zeros(shape)),
            };
            Ok(Value::Tuple(vec![data, Value::Token]))
        }
        Opcode::Recv => {
            cx.arity(1)?;
            token_at(0)?;
            let shape = host_transfer::data_shape(instr)?;
            host_transfer::recv(device, instr)?;
            Ok(context(owned(Literal::zeros(shape))))
        }
        other => invalid(format!("{other} is not a token or transfer instruction")),
    }
}
