//! Shape rules of tokens and host transfers (seed 004, AfterAll, Infeed, Send, Recv; XLA's
//! Outfeed; `spec/ops/host_transfer.yaml`). The data an `infeed` or `recv` produces has no
//! operand to come from: the declared result (context `given`) supplies it.

use super::rules::Rules;
use super::{InferenceContext, ShapeInferenceError};
use crate::element_type::ElementType;
use crate::hlo::ir::AttrValue;
use crate::shape::Shape;

fn token(r: &Rules, i: usize) -> Result<(), ShapeInferenceError> {
    match r.operands.get(i) {
        Some(Shape::Token) => Ok(()),
        Some(s) => Err(r.operand_error(format!("operand {i} must be a token, got `{s}`"))),
        None => Err(r.operand_error(format!("operand {i} (a token) is missing"))),
    }
}

/// The data a transfer moves: an array or a tuple of arrays (seed 004, Infeed: nested tuples
/// are not supported).
fn data(r: &Rules, s: &Shape, what: &str) -> Result<(), ShapeInferenceError> {
    match s {
        Shape::Array(_) => Ok(()),
        Shape::Tuple(parts) if parts.iter().all(|p| p.as_array().is_some()) => Ok(()),
        _ => Err(r.operand_error(format!(
            "{what} must be an array or a tuple of arrays, got `{s}`"
        ))),
    }
}

fn given<'a>(r: &Rules, context: &InferenceContext<'a>) -> Result<&'a Shape, ShapeInferenceError> {
    context.given.ok_or(ShapeInferenceError::MissingContext {
        opcode: r.opcode,
        what: "the declared result shape (the data it produces)",
    })
}

/// `after-all(tokens...)`: a token; any number of token operands (none included).
pub(super) fn after_all(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    (0..r.operands.len()).try_for_each(|i| token(r, i))?;
    Ok(Shape::Token)
}

/// `infeed(token)`: `(data, token[])`, the data shape declared.
pub(super) fn infeed(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    r.exactly::<1>("1")?;
    token(r, 0)?;
    match given(r, context)? {
        Shape::Tuple(p) if p.len() == 2 && p[1] == Shape::Token => {
            data(r, &p[0], "the infeed data")?;
            Ok(Shape::Tuple(p.clone()))
        }
        other => Err(r.operand_error(format!(
            "an infeed gives `(data, token[])`, declared `{other}`"
        ))),
    }
}

/// `outfeed(data, token), outfeed_shape=S`: a token; the data must have `outfeed_shape` when
/// given.
pub(super) fn outfeed(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [d, _] = r.exactly::<2>("2")?;
    token(r, 1)?;
    data(r, d, "the outfeed data")?;
    if let Some(AttrValue::Raw(text) | AttrValue::Str(text)) = r.attr("outfeed_shape") {
        let expected = crate::hlo::parse_shape(text)
            .map_err(|e| r.attr_error(format!("outfeed_shape `{text}`: {e}")))?;
        if !expected.compatible(d) {
            return Err(r.attr_error(format!("outfeed_shape is `{expected}`, the data is `{d}`")));
        }
    }
    Ok(Shape::Token)
}

fn context_tuple(d: &Shape) -> Shape {
    Shape::Tuple(vec![
        d.clone(),
        Shape::array(ElementType::U32, vec![]),
        Shape::Token,
    ])
}

/// `send(data, token), channel_id`: the context `(data, u32[], token[])`.
pub(super) fn send(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let [d, _] = r.exactly::<2>("2")?;
    token(r, 1)?;
    data(r, d, "the sent data")?;
    Ok(context_tuple(d))
}

/// `recv(token), channel_id`: the context `(data, u32[], token[])`, the data shape declared.
pub(super) fn recv(r: &Rules, context: &InferenceContext) -> Result<Shape, ShapeInferenceError> {
    r.exactly::<1>("1")?;
    token(r, 0)?;
    match given(r, context)? {
        Shape::Tuple(p)
            if p.len() == 3 && context_tuple(&p[0]).compatible(&Shape::Tuple(p.clone())) =>
        {
            data(r, &p[0], "the received data")?;
            Ok(Shape::Tuple(p.clone()))
        }
        other => Err(r.operand_error(format!(
            "a recv gives `(data, u32[], token[])`, declared `{other}`"
        ))),
    }
}

/// The data of a `send` / `recv` context operand.
fn context_data<'a>(r: &Rules<'a>) -> Result<&'a Shape, ShapeInferenceError> {
    let [c] = r.exactly::<1>("1")?;
    match c {
        Shape::Tuple(p) if p.len() == 3 && context_tuple(&p[0]).compatible(c) => Ok(&p[0]),
        other => Err(r.operand_error(format!(
            "the operand is a send or recv context `(data, u32[], token[])`, got `{other}`"
        ))),
    }
}

/// `send-done(context)`: a token.
pub(super) fn send_done(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    context_data(r)?;
    Ok(Shape::Token)
}

/// `recv-done(context)`: `(data, token[])`.
pub(super) fn recv_done(r: &Rules) -> Result<Shape, ShapeInferenceError> {
    let d = context_data(r)?;
    Ok(Shape::Tuple(vec![d.clone(), Shape::Token]))
}
