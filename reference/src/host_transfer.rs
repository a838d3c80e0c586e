//! Tokens and host transfers (seed 004: AfterAll, Infeed, Send, Recv; XLA's Outfeed;
//! `spec/ops/host_transfer.yaml`): the device's queues and channels are
//! `conformance_spec::host_transfer`'s; the interpreter runs instructions in text order, which
//! the operands-before-use rule makes an order that respects every token.

use crate::interpreter::{conform, invalid, Context, Handler};
use conformance_spec::hlo::ir::{HloInstruction, Opcode};
use conformance_spec::host_transfer;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use conformance_spec::{BackendError, ElementType};

/// The token and transfer instructions and their handlers.
pub(crate) const HANDLERS: &[(Opcode, Handler)] = &[
    (Opcode::AfterAll, after_all),
    (Opcode::Infeed, infeed),
    (Opcode::Outfeed, outfeed),
    (Opcode::Send, send),
    (Opcode::SendDone, send_done),
    (Opcode::Recv, recv),
    (Opcode::RecvDone, recv_done),
];

fn tokens(instr: &HloInstruction, operands: &[&Literal]) -> Result<(), BackendError> {
    match operands.iter().position(|o| !matches!(o, Literal::Token)) {
        None => Ok(()),
        Some(k) => invalid(format!("{}: operand {k} is not a token", instr.opcode)),
    }
}

/// `after-all(tokens...)`: a token.
fn after_all(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    tokens(instr, operands)?;
    Ok(Literal::Token)
}

/// `infeed(token)`: `(next queue value in the declared layout, token)`.
fn infeed(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    tokens(instr, operands)?;
    let shape = host_transfer::data_shape(instr)?;
    let value = ctx.device.feeds.infeed(ctx.device.id, shape)?;
    Ok(Literal::Tuple(vec![conform(value, shape)?, Literal::Token]))
}

/// `outfeed(data, token)`: appends the data to the outfeed queue; a token.
fn outfeed(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let [data, token] = operands else {
        return invalid("outfeed takes the data and a token");
    };
    tokens(instr, &[token])?;
    ctx.device.feeds.outfeed((*data).clone())?;
    Ok(Literal::Token)
}

fn context(data: Literal) -> Literal {
    Literal::Tuple(vec![
        data,
        Literal::Array(ArrayLiteral::zeros(ArrayShape::new(
            ElementType::U32,
            vec![],
        ))),
        Literal::Token,
    ])
}

/// `send(data, token)`: delivers the data to the channel's targets; the context
/// `(data, u32 0, token)`.
fn send(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let [data, token] = operands else {
        return invalid("send takes the data and a token");
    };
    tokens(instr, &[token])?;
    host_transfer::send(ctx.device, instr, (*data).clone())?;
    Ok(context((*data).clone()))
}

/// `send-done(context)`: a token (the send completed when it was made).
fn send_done(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    match operands {
        [Literal::Tuple(c)] if c.len() == 3 => Ok(Literal::Token),
        _ => invalid(format!(
            "{}: the operand is not a send context",
            instr.opcode
        )),
    }
}

/// `recv(token)`: starts the receive; the context `(zeros, u32 0, token)` (the buffer is
/// filled at `recv-done`).
fn recv(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    tokens(instr, operands)?;
    let shape = host_transfer::data_shape(instr)?;
    host_transfer::recv(ctx.device, instr)?;
    Ok(context(Literal::zeros(shape)))
}

/// `recv-done(context)`: `(received data, token)`, zeros on a device that no pair targets.
fn recv_done(
    ctx: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    if !matches!(operands, [Literal::Tuple(c)] if c.len() == 3) {
        return invalid(format!(
            "{}: the operand is not a recv context",
            instr.opcode
        ));
    }
    let shape = host_transfer::data_shape(instr)?;
    let data = match host_transfer::recv_done(ctx.device, instr)? {
        Some(v) => conform((*v).clone(), shape)?,
        None => Literal::zeros(shape),
    };
    Ok(Literal::Tuple(vec![data, Literal::Token]))
}
