//! Tokens and host transfers (seed 004: AfterAll, Infeed, Send, Recv; XLA's Outfeed) in
//! StableHLO. Tokens are `!stablehlo.token` leaves ([`types::TOKEN`]).
//!
//! - `after-all(t...)` is `"stablehlo.after_all"(%t...) : (...) -> !stablehlo.token` (no operands
//!   allowed: a fresh token).
//! - `infeed(t)` of shape `(data, token[])` is `"stablehlo.infeed"(%t) <{infeed_config = "...",
//!   layout = [[...], ...]}>` with one result per array of the data and the token last; `layout`
//!   holds each array's minor-to-major order (the layout the value is read in), `infeed_config`
//!   the HLO text (`""` when absent).
//! - `outfeed(data, t)` is `"stablehlo.outfeed"(%data leaves..., %t) <{outfeed_config = "..."}>
//!   : (...) -> !stablehlo.token`; `outfeed_shape` is checked against the data and dropped (the
//!   reader sets it to the data's shape).
//! - HLO splits a transfer over a channel into `send` (the context `(data, u32[], token[])`) and
//!   `send-done` (a token), `recv` (the context) and `recv-done` (`(data, token[])`); StableHLO
//!   has one synchronous `stablehlo.send(%data leaves..., %t) -> !stablehlo.token` and
//!   `stablehlo.recv(%t) -> (data leaves..., !stablehlo.token)`, both with `channel_handle =
//!   #stablehlo.channel_handle<handle = C, type = T>` (T = 1 device to device; with
//!   `is_host_transfer=true`, 2 device to host for a send, 3 host to device for a recv),
//!   `is_host_transfer = true|false`, and the device pairs of the frontend attribute
//!   `_xla_send_recv_source_target_pairs` as the discardable `mhlo.frontend_attributes =
//!   {_xla_send_recv_source_target_pairs = "{{0,1}}"}`.
//!
//!   `stablehlo.send` is written where the HLO `send` is: a send is buffered and completes at
//!   once (`crate::host_transfer`), so the send is where its data leaves. The context value is
//!   the tuple of leaves (the data, a `stablehlo.constant dense<0> : tensor<ui32>`, the send's
//!   token), and `send-done` is that token (no operation).
//!
//!   `stablehlo.recv` is written where the HLO `recv-done` is, not at the `recv`: the
//!   `recv-done` is where a device waits for its value, and a blocking receive at the `recv`
//!   would deadlock a program that sends between its `recv` and `recv-done` (two devices that
//!   each receive from the other, for instance). The k-th `recv-done` of a channel completes its
//!   k-th `recv` (`crate::host_transfer::recv_done`), so the k-th `stablehlo.recv` of the channel
//!   receives what the k-th `recv-done` does. A `recv` whose context is read by anything but one
//!   `recv-done` (a tuple, a loop, a `get-tuple-element`) is therefore unsupported, and its
//!   context is never written.
//!
//! A `constant` of a token literal is written as `stablehlo.after_all` without operands (see
//! `control.rs`).

use super::types::{self, string, TOKEN};
use super::{operand, At, Emitter, Leaf, Value, R};
use crate::hlo::ir::{AttrValue, HloInstruction, Opcode};
use crate::host_transfer::SEND_RECV_PAIRS;
use crate::shape::{ArrayShape, Shape};

/// Whether an instruction of `opcode` has a side effect, which keeps it in the output whether or
/// not the root uses it: the transfers of `crate::host_transfer` but `after-all` (seed 004,
/// AfterAll: a token only orders effects).
pub(super) fn has_side_effect(opcode: Opcode) -> bool {
    crate::host_transfer::is_host_transfer(opcode) && opcode != Opcode::AfterAll
}

/// Writes `after-all`, `infeed`, `outfeed`, `send`, `send-done`, `recv` and `recv-done` as the
/// module documentation says.
///
/// Errors: operands of the wrong kind (a token expected, nested data tuples), shapes that do not
/// fit the opcode, a `send`/`recv` without `channel_id`, malformed `infeed_config`,
/// `outfeed_config`, `outfeed_shape` or device pairs, a padded infeed layout, a `recv` context
/// read by anything but one `recv-done`, a `recv-done` whose channel is not its `recv`'s.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    match instr.opcode {
        Opcode::AfterAll => {
            let tokens = (0..ops.len())
                .map(|k| token(at, ops, k))
                .collect::<R<Vec<_>>>()?;
            expect_token(at, &instr.shape)?;
            let t = e.op("stablehlo.after_all", &tokens, &[], &[], &[TOKEN.into()]);
            one_leaf(at, t)
        }
        Opcode::Infeed => infeed(e, at, ops),
        Opcode::Outfeed => {
            arity(at, ops, 2)?;
            data_shape(at, operand_shape(at, 0)?, "the outfeed data")?;
            let t = token(at, ops, 1)?;
            if let Some(text) = text_attribute(at, "outfeed_shape")? {
                let declared = crate::hlo::parse_shape(&text)
                    .map_err(|m| at.error(format!("outfeed_shape `{text}`: {m}")))?;
                let data = operand_shape(at, 0)?;
                if !declared.compatible(data) {
                    return Err(at.error(format!(
                        "outfeed_shape is `{declared}`, the data is `{data}`"
                    )));
                }
            }
            expect_token(at, &instr.shape)?;
            let config = string_attribute(at, "outfeed_config")?;
            let mut operands = ops[0].leaves();
            operands.push(t);
            let r = e.op(
                "stablehlo.outfeed",
                &operands,
                &[("outfeed_config", string(&config))],
                &[],
                &[TOKEN.into()],
            );
            one_leaf(at, r)
        }
        Opcode::Send => send(e, at, ops),
        Opcode::SendDone => {
            arity(at, ops, 1)?;
            expect_token(at, &instr.shape)?;
            match ops[0] {
                Value::Tuple(c)
                    if c.len() == 3 && matches!(&c[2], Value::Leaf(l) if l.ty == TOKEN) =>
                {
                    Ok(c[2].clone())
                }
                _ => Err(at.error("the operand is not a send context `(data, u32[], token[])`")),
            }
        }
        Opcode::Recv => recv(at, ops),
        Opcode::RecvDone => recv_done(e, at, ops),
        other => Err(at.error(format!("`{other}` is not a token or transfer opcode"))),
    }
}

/// `infeed(t)`: `stablehlo.infeed` with the data arrays' layouts and the configuration.
fn infeed(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    arity(at, ops, 1)?;
    let t = token(at, ops, 0)?;
    let arrays = match &instr.shape {
        Shape::Tuple(p) if p.len() == 2 && p[1] == Shape::Token => {
            data_shape(at, &p[0], "the infeed data")?
        }
        other => return Err(at.error(format!("an infeed gives `(data, token[])`, not `{other}`"))),
    };
    let mut layouts = Vec::with_capacity(arrays.len());
    for a in arrays {
        if a.layout.is_padded() {
            return Err(at.error(format!(
                "the infeed reads `{a}` in a padded layout, which StableHLO's `layout` cannot \
                 express"
            )));
        }
        let order: Vec<i64> = if a.layout.minor_to_major.len() == a.dimensions.len() {
            a.layout.minor_to_major.clone()
        } else {
            (0..a.dimensions.len() as i64).rev().collect()
        };
        layouts.push(types::int_list(&order));
    }
    let config = string_attribute(at, "infeed_config")?;
    e.op_shaped(
        instr,
        "stablehlo.infeed",
        &[t],
        &[
            ("infeed_config", string(&config)),
            ("layout", format!("[{}]", layouts.join(", "))),
        ],
        &[],
    )
}

/// `send(data, t)`: the u32 constant of the context, then `stablehlo.send`; the value is the
/// context tuple (data, constant, token).
fn send(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    arity(at, ops, 2)?;
    data_shape(at, operand_shape(at, 0)?, "the sent data")?;
    let t = token(at, ops, 1)?;
    if !matches!(&instr.shape, Shape::Tuple(p) if p.len() == 3 && p[2] == Shape::Token) {
        return Err(at.error(format!(
            "a send gives `(data, u32[], token[])`, not `{}`",
            instr.shape
        )));
    }
    let (properties, discardable) = channel(at, instr, 2)?;
    let u32_type = types::tensor_type(&ArrayShape::scalar(crate::ElementType::U32));
    let value = format!("dense<0> : {u32_type}");
    let zero = e.op(
        "stablehlo.constant",
        &[],
        &[("value", value)],
        &[],
        &[u32_type],
    );
    let zero = one_leaf(at, zero)?;
    let mut operands = ops[0].leaves();
    operands.push(t);
    let sent = e.op_with(
        "stablehlo.send",
        &operands,
        &properties,
        &discardable,
        &[],
        &[TOKEN.into()],
    );
    let sent = one_leaf(at, sent)?;
    Ok(Value::Tuple(vec![ops[0].clone(), zero, sent]))
}

/// The name of the leaves of a `recv` context that no operation defines: the checks of
/// [`recv`] keep them out of the output.
const UNWRITTEN: &str = "%recv-context";

/// `recv(t)`: nothing is written (see the module documentation); the value is the context
/// `(data, u32, token)` whose data and u32 leaves are never written and whose token is the
/// recv's operand, which [`recv_done`] receives on.
fn recv(at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    arity(at, ops, 1)?;
    let t = token(at, ops, 0)?;
    let data = match &instr.shape {
        Shape::Tuple(p) if p.len() == 3 && p[2] == Shape::Token => &p[0],
        other => {
            return Err(at.error(format!(
                "a recv gives `(data, u32[], token[])`, not `{other}`"
            )))
        }
    };
    data_shape(at, data, "the received data")?;
    if instr.attr_int("channel_id").is_none() {
        return Err(at.error("a recv needs `channel_id=N`"));
    }
    let me = at
        .comp
        .instructions
        .iter()
        .position(|i| std::ptr::eq(i, instr));
    let users: Vec<&HloInstruction> = at
        .comp
        .instructions
        .iter()
        .filter(|i| me.is_some_and(|m| i.operands.contains(&m)))
        .collect();
    match users[..] {
        [done] if done.opcode == Opcode::RecvDone && done.operands.len() == 1 => {}
        _ => {
            return Err(at.error(format!(
                "the context of a recv is read here by exactly one recv-done, which is where \
                 `stablehlo.recv` is written; it is read by {}",
                if users.is_empty() {
                    "nothing".to_string()
                } else {
                    users
                        .iter()
                        .map(|u| format!("%{} ({})", u.name, u.opcode))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )))
        }
    }
    let unwritten = |ty: String| Leaf {
        name: UNWRITTEN.into(),
        ty,
    };
    let leaves = types::leaf_types(data).map_err(|m| at.error(m))?;
    let data = Value::from_leaves(data, &mut leaves.into_iter().map(unwritten))
        .ok_or_else(|| at.error("data shape and leaves disagree"))?;
    let u32_type = types::tensor_type(&ArrayShape::scalar(crate::ElementType::U32));
    Ok(Value::Tuple(vec![
        data,
        Value::Leaf(unwritten(u32_type)),
        Value::Leaf(t.clone()),
    ]))
}

/// `recv-done(r)`: `stablehlo.recv` on the token of `recv` `r`, with `r`'s channel; its results
/// are the `(data, token)` value.
fn recv_done(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    arity(at, ops, 1)?;
    let recv = instr
        .operands
        .first()
        .and_then(|&k| at.comp.instructions.get(k))
        .filter(|r| r.opcode == Opcode::Recv)
        .ok_or_else(|| at.error("a recv-done reads the context of a `recv` directly here"))?;
    let t = match ops[0] {
        Value::Tuple(c) if c.len() == 3 => match &c[2] {
            Value::Leaf(l) if l.ty == TOKEN && l.name != UNWRITTEN => l,
            _ => return Err(at.error("the operand is not a recv context")),
        },
        _ => return Err(at.error("the operand is not a recv context")),
    };
    let (mine, its) = (instr.attr_int("channel_id"), recv.attr_int("channel_id"));
    if mine != its {
        let text = |c: Option<i64>| c.map_or("no channel_id".to_string(), |c| c.to_string());
        return Err(at.error(format!(
            "the recv-done is on channel {}, its recv %{} on channel {}: a recv-done completes \
             the oldest recv of its own channel",
            text(mine),
            recv.name,
            text(its)
        )));
    }
    if !matches!(&instr.shape, Shape::Tuple(p) if p.len() == 2 && p[1] == Shape::Token) {
        return Err(at.error(format!(
            "a recv-done gives `(data, token[])`, not `{}`",
            instr.shape
        )));
    }
    let (properties, discardable) = channel(at, recv, 3)?;
    let results = types::leaf_types(&instr.shape).map_err(|m| at.error(m))?;
    let leaves = e.op_with(
        "stablehlo.recv",
        &[t],
        &properties,
        &discardable,
        &[],
        &results,
    );
    Value::from_leaves(&instr.shape, &mut leaves.into_iter())
        .ok_or_else(|| at.error("result shape and leaves disagree"))
}

type Attributes = Vec<(&'static str, String)>;

/// The properties (`channel_handle`, `is_host_transfer`) and discardable attributes (the device
/// pairs in `mhlo.frontend_attributes`) of a `send` or `recv`; `host_type` is the channel type
/// of a host transfer (2 device to host, 3 host to device).
fn channel(at: At, instr: &HloInstruction, host_type: u8) -> R<(Attributes, Attributes)> {
    let handle = instr
        .attr_int("channel_id")
        .ok_or_else(|| at.error(format!("a {} needs `channel_id=N`", instr.opcode)))?;
    let host = match instr.attribute("is_host_transfer") {
        None => false,
        Some(AttrValue::Bool(b)) => *b,
        Some(other) => {
            return Err(at.error(format!("is_host_transfer={other} is not `true` or `false`")))
        }
    };
    let kind = if host { host_type } else { 1 };
    let properties = vec![
        (
            "channel_handle",
            format!("#stablehlo.channel_handle<handle = {handle}, type = {kind}>"),
        ),
        ("is_host_transfer", host.to_string()),
    ];
    let pairs = match instr.attribute("frontend_attributes") {
        Some(AttrValue::Raw(text) | AttrValue::Str(text)) => {
            crate::custom_call::dictionary_entry(text, SEND_RECV_PAIRS)
        }
        _ => None,
    };
    let mut discardable = Vec::new();
    if let Some(value) = pairs {
        let text = if value.starts_with('"') {
            hlo_string(at, value)?
        } else {
            value.to_string()
        };
        let pairs =
            crate::collective::parse_nested(&text, SEND_RECV_PAIRS).map_err(|m| at.error(m))?;
        if let Some(p) = pairs.iter().find(|p| p.len() != 2) {
            return Err(at.error(format!(
                "{SEND_RECV_PAIRS}: {p:?} is not a pair of device ids"
            )));
        }
        discardable.push((
            "mhlo.frontend_attributes",
            format!(
                "{{{SEND_RECV_PAIRS} = {}}}",
                string(&crate::collective::groups_text(&pairs))
            ),
        ));
    }
    Ok((properties, discardable))
}

/// Errors unless there are `n` operands.
fn arity(at: At, ops: &[&Value], n: usize) -> R<()> {
    if ops.len() == n {
        Ok(())
    } else {
        Err(at.error(format!("expects {n} operand(s), found {}", ops.len())))
    }
}

/// Operand `k`, which must be a token.
fn token<'v>(at: At, ops: &[&'v Value], k: usize) -> R<&'v Leaf> {
    let l = operand(at.instr, ops, k)?;
    if l.ty == TOKEN {
        Ok(l)
    } else {
        Err(at.error(format!("operand {k} must be a token, found {}", l.ty)))
    }
}

/// Errors unless `shape` is a token.
fn expect_token(at: At, shape: &Shape) -> R<()> {
    match shape {
        Shape::Token => Ok(()),
        other => Err(at.error(format!("the result is a token, not `{other}`"))),
    }
}

/// The one leaf of an operation's results.
fn one_leaf(at: At, leaves: Vec<Leaf>) -> R<Value> {
    match <[Leaf; 1]>::try_from(leaves) {
        Ok([l]) => Ok(Value::Leaf(l)),
        Err(_) => Err(at.error("expected one result")),
    }
}

/// The HLO shape of operand `k`.
fn operand_shape<'a>(at: At<'a>, k: usize) -> R<&'a Shape> {
    at.instr
        .operands
        .get(k)
        .and_then(|&o| at.comp.instructions.get(o))
        .map(|o| &o.shape)
        .ok_or_else(|| at.error(format!("operand {k} does not exist")))
}

/// The arrays of transferred data: an array, or a tuple of arrays (seed 004, Infeed: nested
/// tuples are not supported).
fn data_shape<'s>(at: At, shape: &'s Shape, what: &str) -> R<Vec<&'s ArrayShape>> {
    match shape {
        Shape::Array(a) => Ok(vec![a]),
        Shape::Tuple(p) => p
            .iter()
            .map(|s| {
                s.as_array().ok_or_else(|| {
                    at.error(format!(
                        "{what} must be an array or a tuple of arrays, not `{shape}`"
                    ))
                })
            })
            .collect(),
        Shape::Token => Err(at.error(format!("{what} must be an array, not a token"))),
    }
}

/// The value of attribute `name` as HLO text (`None` when absent).
fn text_attribute(at: At, name: &str) -> R<Option<String>> {
    match at.instr.attribute(name) {
        None => Ok(None),
        Some(AttrValue::Raw(t) | AttrValue::Str(t)) => Ok(Some(t.clone())),
        Some(other) => Err(at.error(format!("`{name}={other}` is not text"))),
    }
}

/// The string value of attribute `name` (`infeed_config="..."`; empty when absent).
fn string_attribute(at: At, name: &str) -> R<String> {
    match at.instr.attribute(name) {
        None => Ok(String::new()),
        Some(AttrValue::Str(s)) => Ok(s.clone()),
        Some(AttrValue::Raw(t)) if t.starts_with('"') => hlo_string(at, t),
        Some(other) => Err(at.error(format!("`{name}={other}` is not a string"))),
    }
}

/// The value of the HLO string literal `text` (`"a\"b"`).
fn hlo_string(at: At, text: &str) -> R<String> {
    match crate::hlo::lexer::scan_string(text, 0) {
        Ok((value, end)) if end == text.len() => Ok(value),
        _ => Err(at.error(format!("`{text}` is not one string literal"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{print, print_err};

    #[test]
    fn feeds_and_tokens_have_their_forms() {
        let text = print(
            r#"HloModule m
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  t0 = token[] after-all()
  i = ((f32[2,3]{0,1}, s32[]), token[]) infeed(t0), infeed_config="cfg \"q\""
  d = (f32[2,3]{0,1}, s32[]) get-tuple-element(i), index=0
  t1 = token[] get-tuple-element(i), index=1
  o = token[] outfeed(d, t1), outfeed_shape=(f32[2,3]{0,1}, s32[]), outfeed_config="out"
  j = token[] after-all(t0, o)
  e = (f32[], token[]) infeed(j)
  w = token[] outfeed(x, j), outfeed_shape=f32[2,3]{0,1}
  ROOT v = f32[] get-tuple-element(e), index=0
}"#,
        );
        // The last outfeed is printed though the root does not use it: it has a side effect.
        assert_eq!(
            text,
            r#"module {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<f32>) {
    %0 = "stablehlo.after_all"() : () -> !stablehlo.token
    %1:3 = "stablehlo.infeed"(%0) <{infeed_config = "cfg \"q\"", layout = [[0, 1], []]}> : (!stablehlo.token) -> (tensor<2x3xf32>, tensor<i32>, !stablehlo.token)
    %2 = "stablehlo.outfeed"(%1#0, %1#1, %1#2) <{outfeed_config = "out"}> : (tensor<2x3xf32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    %3 = "stablehlo.after_all"(%0, %2) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
    %4:2 = "stablehlo.infeed"(%3) <{infeed_config = "", layout = [[]]}> : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    %5 = "stablehlo.outfeed"(%arg0, %3) <{outfeed_config = ""}> : (tensor<2x3xf32>, !stablehlo.token) -> !stablehlo.token
    "func.return"(%4#0) : (tensor<f32>) -> ()
  }
}
"#
        );
    }

    /// `stablehlo.send` where the `send` is, `stablehlo.recv` where the `recv-done` is (after
    /// the send here: receiving at the `recv` would wait before this device sends); the send
    /// context's u32 is a constant 0; a host transfer has channel type 2 (send) or 3 (recv).
    #[test]
    fn send_and_recv_are_synchronous_where_their_effects_are() {
        let pairs = r#"frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}"#;
        let text = print(&format!(
            "HloModule m, replica_count=2
ENTRY e {{
  x = f32[2] parameter(0)
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1, {pairs}
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, {pairs}
  d = (f32[2], token[]) recv-done(r), channel_id=1
  sd = token[] send-done(s), channel_id=1
  u = u32[] get-tuple-element(s), index=1
  hr = (s32[], u32[], token[]) recv(sd), channel_id=2, is_host_transfer=true
  hd = (s32[], token[]) recv-done(hr), channel_id=2, is_host_transfer=true
  hs = (s32[], u32[], token[]) send(u, sd), channel_id=3, is_host_transfer=true
  v = f32[2] get-tuple-element(d), index=0
  h = s32[] get-tuple-element(hd), index=0
  ROOT out = (f32[2], u32[], s32[]) tuple(v, u, h)
}}"
        ));
        let attrs = r#"{mhlo.frontend_attributes = {_xla_send_recv_source_target_pairs = "{{0,1},{1,0}}"}}"#;
        let expected = format!(
            r#"module attributes {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32}} {{
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>, tensor<i32>) {{
    %0 = "stablehlo.after_all"() : () -> !stablehlo.token
    %1 = "stablehlo.constant"() <{{value = dense<0> : tensor<ui32>}}> : () -> tensor<ui32>
    %2 = "stablehlo.send"(%arg0, %0) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false}}> {attrs} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    %3:2 = "stablehlo.recv"(%0) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false}}> {attrs} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %4:2 = "stablehlo.recv"(%2) <{{channel_handle = #stablehlo.channel_handle<handle = 2, type = 3>, is_host_transfer = true}}> : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    %5 = "stablehlo.constant"() <{{value = dense<0> : tensor<ui32>}}> : () -> tensor<ui32>
    %6 = "stablehlo.send"(%1, %2) <{{channel_handle = #stablehlo.channel_handle<handle = 3, type = 2>, is_host_transfer = true}}> : (tensor<ui32>, !stablehlo.token) -> !stablehlo.token
    "func.return"(%3#0, %1, %4#0) : (tensor<2xf32>, tensor<ui32>, tensor<i32>) -> ()
  }}
}}
"#
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn tokens_cross_calls_and_a_token_constant_is_a_fresh_token() {
        let mut module = crate::hlo::parse_module(
            "HloModule m
feed {
  t = token[] parameter(0)
  ROOT i = (f32[2], token[]) infeed(t)
}
ENTRY e {
  t = token[] after-all()
  c = (f32[2], token[]) call(t), to_apply=feed
  ROOT v = f32[2] get-tuple-element(c), index=0
}",
        )
        .unwrap();
        let entry = module.entry;
        let t = &mut module.computations[entry].instructions[0];
        t.opcode = crate::hlo::Opcode::Constant;
        t.literal = Some(crate::literal::Literal::Token);
        let text = super::super::print_stablehlo(&module).unwrap();
        assert!(
            text.contains(
                r#"    %0 = "stablehlo.after_all"() : () -> !stablehlo.token
    %1:2 = "func.call"(%0) <{callee = @feed}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)"#
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "func.func private @feed(%arg0: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)"
            ),
            "{text}"
        );
    }

    /// (HLO body of the entry, words of the error).
    const REFUSED: &[(&str, &str)] = &[
        (
            "x = f32[2] parameter(0)
  t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1
  p = ((f32[2], u32[], token[])) tuple(r)
  g = (f32[2], u32[], token[]) get-tuple-element(p), index=0
  d = (f32[2], token[]) recv-done(g), channel_id=1
  ROOT n = f32[2] negate(x)",
            "%r (recv) as StableHLO: the context of a recv is read here by exactly one recv-done, which is \
             where `stablehlo.recv` is written; it is read by %p (tuple)",
        ),
        (
            "t = token[] after-all()
  r = (f32[2], u32[], token[]) recv(t), channel_id=1
  d = (f32[2], token[]) recv-done(r), channel_id=2
  ROOT v = f32[2] get-tuple-element(d), index=0",
            "%d (recv-done) as StableHLO: the recv-done is on channel 2, its recv %r on channel 1",
        ),
        (
            "x = f32[2] parameter(0)
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, t)
  ROOT n = f32[2] negate(x)",
            "%s (send) as StableHLO: a send needs `channel_id=N`",
        ),
        (
            "x = f32[2] parameter(0)
  t = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1,2}}\"}
  ROOT n = f32[2] negate(x)",
            "[0, 1, 2] is not a pair of device ids",
        ),
        (
            "x = f32[2] parameter(0)
  t = token[] after-all()
  o = token[] outfeed(x, t), outfeed_shape=f32[3]
  ROOT n = f32[2] negate(x)",
            "%o (outfeed) as StableHLO: outfeed_shape is `f32[3]{0}`, the data is `f32[2]{0}`",
        ),
        (
            "t = token[] parameter(0)
  ROOT i = (f32[2], token[]) infeed(t)",
            "%t (parameter) as StableHLO: the entry parameter has shape token[]",
        ),
    ];

    /// A token result of `@main` (JAX's ordered effects) prints as `!stablehlo.token`.
    #[test]
    fn a_token_result_of_main_is_printed() {
        let m = crate::hlo::parse_module(
            "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  t = token[] after-all()\n  ROOT r = (f32[2], token[]) tuple(x, t)\n}",
        )
        .unwrap();
        let text = crate::hlo::stablehlo::print_stablehlo(&m).unwrap();
        assert!(
            text.contains("-> (tensor<2xf32>, !stablehlo.token)"),
            "{text}"
        );
    }

    #[test]
    fn what_has_no_faithful_form_is_refused_by_name() {
        for (body, words) in REFUSED {
            let e = print_err(&format!("HloModule m\nENTRY e {{\n  {body}\n}}"));
            assert!(e.contains(words), "{words}\nnot in\n{e}");
        }
    }
}
