//! Reading tokens and host transfers (`stablehlo.after_all`, the deprecated
//! `stablehlo.create_token`, `stablehlo.infeed`, `stablehlo.outfeed`, `stablehlo.send`,
//! `stablehlo.recv`) into HLO's instructions (seed 004, AfterAll, Infeed, Send, Recv; XLA's
//! Outfeed). The inverse of the printer's `transfer.rs`:
//!
//! - `after_all` (and `create_token`, an `after_all` without operands) is `after-all`;
//! - `infeed` is an `infeed` of shape `(data, token[])`, the data an array for one data result
//!   and a tuple for several, each array in the layout `layout` names (row-major when absent);
//!   `infeed_config` is kept (left out when empty);
//! - `outfeed` is an `outfeed` of its data (a `tuple` of the data operands when there are
//!   several) with `outfeed_shape` the data's shape and `outfeed_config` kept;
//! - StableHLO's synchronous `send` is HLO's `send` followed at once by its `send-done` (the
//!   operation's token is the `send-done`'s), `recv` is `recv` followed at once by `recv-done`,
//!   whose `(data, token)` are the operation's results. Both carry `channel_handle`'s handle as
//!   `channel_id` (on the `-done` too), `is_host_transfer=true` when the attribute says so (or,
//!   without it, when the channel type is 2 or 3, device to host or host to device), and the
//!   string entries of `mhlo.frontend_attributes` as HLO `frontend_attributes` (the device pairs
//!   `_xla_send_recv_source_target_pairs` among them); newer StableHLO's `source_target_pairs`
//!   (an N×2 tensor) gives those pairs too.

use super::attrs::{Attr, Type};
use super::lexer::{Cursor, PResult};
use super::lower::{attr, int_attr, Binding, LResult, Lowering, Scope};
use super::ops::{base_name, elements, field_int, operands_n, single};
use super::syntax::{optional_attr_dict, parse_use, Op};
use crate::element_type::ElementType;
use crate::hlo::ir::{AttrValue, Attribute, Opcode};
use crate::host_transfer::SEND_RECV_PAIRS;
use crate::layout::Layout;
use crate::shape::Shape;

/// Lowers `op` when it is a token or transfer operation; `None` for other operations.
pub(crate) fn lower(l: &mut Lowering, s: &mut Scope, op: &Op) -> Option<LResult<Vec<Binding>>> {
    Some(match op.name.as_str() {
        "stablehlo.after_all" | "stablehlo.create_token" => after_all(l, s, op),
        "stablehlo.infeed" => infeed(l, s, op),
        "stablehlo.outfeed" => outfeed(l, s, op),
        "stablehlo.send" => send(l, s, op),
        "stablehlo.recv" => recv(l, s, op),
        _ => return None,
    })
}

/// The pretty forms `stablehlo.after_all %a, %b : !stablehlo.token` and
/// `stablehlo.create_token : !stablehlo.token` (StableHLO's `AfterAllOp` / `CreateTokenOp`
/// assembly formats; a function type is read too); `None` for other operations (`short` is the
/// name without `stablehlo.`).
pub(crate) fn pretty(c: &mut Cursor, op: &mut Op, short: &str) -> Option<PResult<()>> {
    if !matches!(short, "after_all" | "create_token") {
        return None;
    }
    Some((|| {
        if matches!(c.peek()?.tok, super::lexer::Tok::Value(..)) {
            loop {
                op.operands.push(parse_use(c)?);
                if !c.eat_punct(',')? {
                    break;
                }
            }
        }
        optional_attr_dict(c, op)?;
        c.expect_punct(':', "and the token type")?;
        match super::attrs::parse_type(c)? {
            Type::Function(i, r) => {
                op.operand_types = i;
                op.result_types = r;
            }
            t => {
                op.operand_types = vec![t.clone(); op.operands.len()];
                op.result_types = vec![t];
            }
        }
        Ok(())
    })())
}

fn after_all(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &[])?;
    if op.name == "stablehlo.create_token" && !op.operands.is_empty() {
        return Err(l.err(op.pos, "`stablehlo.create_token` takes no operands"));
    }
    let operands = l.operands(s, op)?;
    single(l, s, op, Opcode::AfterAll, operands, Vec::new())
}

/// The data results of an operation whose results are data arrays and a token, last.
fn data_results(l: &Lowering, op: &Op) -> LResult<Vec<Shape>> {
    let n = op.result_types.len();
    if n == 0 || l.result_shape(op, n - 1)? != Shape::Token {
        return Err(l.err(
            op.pos,
            format!("`{}` gives its data and a token, last", op.name),
        ));
    }
    (0..n - 1)
        .map(|k| match l.result_shape(op, k)? {
            a @ Shape::Array(_) => Ok(a),
            other => Err(l.err(
                op.pos,
                format!("result {k} of `{}` is `{other}`, not an array", op.name),
            )),
        })
        .collect()
}

/// HLO's data of a transfer: the array itself, or the tuple of several (or none).
fn data_shape(arrays: &[Shape]) -> Shape {
    match arrays {
        [one] => one.clone(),
        many => Shape::Tuple(many.to_vec()),
    }
}

/// The bindings of the results (data arrays..., token) of instruction `i` of shape
/// `(data, token[])` holding `n` arrays.
fn data_and_token(
    l: &mut Lowering,
    s: &mut Scope,
    op: &Op,
    i: usize,
    arrays: &[Shape],
    base: &str,
) -> LResult<Vec<Binding>> {
    if arrays.len() == 1 {
        return Ok(elements(i, 2, base));
    }
    let data = l.add(
        s,
        Opcode::GetTupleElement,
        data_shape(arrays),
        vec![i],
        vec![int_attr("index", 0)],
        &format!("{base}.data"),
        op.pos,
    )?;
    let mut out = elements(data, arrays.len(), base);
    out.push(Binding::Element {
        tuple: i,
        index: 1,
        hint: format!("{base}.token"),
    });
    Ok(out)
}

/// String attribute `name` as the HLO text `name="..."` (`None` when absent or empty).
fn config(l: &Lowering, op: &Op, name: &str) -> LResult<Option<Attribute>> {
    match op.attr(name) {
        None => Ok(None),
        Some(Attr::Str(v)) if v.is_empty() => Ok(None),
        Some(Attr::Str(v)) => Ok(Some(attr(
            name,
            AttrValue::Raw(crate::hlo::lexer::quote(v)),
        ))),
        Some(_) => Err(l.err(op.attr_pos(name), format!("`{name}` is not a string"))),
    }
}

fn infeed(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["infeed_config", "layout"])?;
    let operands = operands_n(l, s, op, 1)?;
    let mut arrays = data_results(l, op)?;
    if let Some(a) = op.attr("layout") {
        let at = op.attr_pos("layout");
        let orders: Vec<Vec<i64>> = match a {
            Attr::List(items) => items
                .iter()
                .map(super::attrs::int_list)
                .collect::<Option<_>>()
                .ok_or_else(|| l.err(at, "`layout` expects a list of integer lists"))?,
            _ => return Err(l.err(at, "`layout` expects a list of integer lists")),
        };
        if orders.len() != arrays.len() {
            return Err(l.err(
                at,
                format!(
                    "`layout` has {} entries for {} data result(s)",
                    orders.len(),
                    arrays.len()
                ),
            ));
        }
        for (k, (shape, order)) in arrays.iter_mut().zip(orders).enumerate() {
            if let Shape::Array(a) = shape {
                let layout = Layout::new(order);
                layout
                    .validate(&a.dimensions)
                    .map_err(|e| l.err(at, format!("`layout` of result {k}: {e}")))?;
                a.layout = layout;
            }
        }
    }
    let attrs: Vec<Attribute> = config(l, op, "infeed_config")?.into_iter().collect();
    let base = base_name(op);
    let shape = Shape::Tuple(vec![data_shape(&arrays), Shape::Token]);
    let i = l.add(s, Opcode::Infeed, shape, operands, attrs, &base, op.pos)?;
    data_and_token(l, s, op, i, &arrays, &base)
}

/// The data operand of an outfeed or send (a `tuple` of several) and the token, last.
fn data_then_token(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<(usize, usize)> {
    let operands = l.operands(s, op)?;
    let Some((&token, data)) = operands.split_last() else {
        return Err(l.err(
            op.pos,
            format!("`{}` takes its data and a token, last", op.name),
        ));
    };
    let data = match data {
        [one] => *one,
        many => l.tuple(s, many, &format!("{}.data", base_name(op)), op.pos)?,
    };
    Ok((data, token))
}

fn outfeed(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(op, &["outfeed_config"])?;
    let (data, token) = data_then_token(l, s, op)?;
    let mut attrs = vec![attr(
        "outfeed_shape",
        AttrValue::Raw(s.shape(data).to_string()),
    )];
    attrs.extend(config(l, op, "outfeed_config")?);
    single(l, s, op, Opcode::Outfeed, vec![data, token], attrs)
}

/// The attributes of a `send`/`recv` and of its `-done`: `channel_id`, `is_host_transfer=true`
/// for a host transfer, and (on the first only) `frontend_attributes`.
fn channel(l: &Lowering, op: &Op) -> LResult<(Vec<Attribute>, Vec<Attribute>)> {
    let at = op.attr_pos("channel_handle");
    let fields = match op.attr("channel_handle") {
        Some(Attr::Struct(_, f)) => f,
        _ => {
            return Err(l.err(
                at,
                format!(
                    "`{}` needs `channel_handle = #stablehlo.channel_handle<handle = N, type = T>`",
                    op.name
                ),
            ))
        }
    };
    let handle = field_int(l, at, fields, "handle")?;
    let host = match op.attr("is_host_transfer") {
        None => fields
            .iter()
            .any(|(k, v)| k == "type" && matches!(v, Attr::Int(2 | 3))),
        Some(Attr::Bool(b)) => *b,
        Some(_) => {
            return Err(l.err(
                op.attr_pos("is_host_transfer"),
                "`is_host_transfer` is not `true` or `false`",
            ))
        }
    };
    let mut done = vec![int_attr("channel_id", handle)];
    if host {
        done.push(attr("is_host_transfer", AttrValue::Bool(true)));
    }
    let mut first = done.clone();
    // The string entries of `mhlo.frontend_attributes`, in order.
    let fa_at = op.attr_pos("mhlo.frontend_attributes");
    let mut entries: Vec<(String, String)> = match op.attr("mhlo.frontend_attributes") {
        None => Vec::new(),
        Some(Attr::Dict(d)) => d
            .iter()
            .filter_map(|(k, v)| match v {
                Attr::Str(v) => Some((k.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        Some(_) => {
            return Err(l.err(
                fa_at,
                "`mhlo.frontend_attributes` is not a dictionary of strings",
            ))
        }
    };
    let listed_pairs = match entries.iter().find(|(k, _)| k == SEND_RECV_PAIRS) {
        Some((_, text)) => Some(
            crate::collective::parse_nested(text, SEND_RECV_PAIRS).map_err(|m| l.err(fa_at, m))?,
        ),
        None => None,
    };
    if let Some(rows) = super::collective::rows(l, op, "source_target_pairs")? {
        let stp_at = op.attr_pos("source_target_pairs");
        if rows.iter().any(|p| p.len() != 2) {
            return Err(l.err(
                stp_at,
                "`source_target_pairs` expects a tensor of shape N×2",
            ));
        }
        match &listed_pairs {
            Some(p) if *p != rows => {
                return Err(l.err(
                    stp_at,
                    format!(
                        "`source_target_pairs` and the frontend attribute {SEND_RECV_PAIRS} \
                         name different pairs"
                    ),
                ))
            }
            Some(_) => {}
            None => entries.push((
                SEND_RECV_PAIRS.to_string(),
                crate::collective::groups_text(&rows),
            )),
        }
    }
    if let Some(p) = listed_pairs.iter().flatten().find(|p| p.len() != 2) {
        return Err(l.err(
            fa_at,
            format!("{SEND_RECV_PAIRS}: {p:?} is not a pair of device ids"),
        ));
    }
    if !entries.is_empty() {
        let items: Vec<String> = entries
            .iter()
            .map(|(k, v)| format!("{k}={}", crate::hlo::lexer::quote(v)))
            .collect();
        first.push(attr(
            "frontend_attributes",
            AttrValue::Raw(format!("{{{}}}", items.join(","))),
        ));
    }
    Ok((first, done))
}

fn send(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(
        op,
        &["channel_handle", "is_host_transfer", "source_target_pairs"],
    )?;
    let (first, done) = channel(l, op)?;
    let (data, token) = data_then_token(l, s, op)?;
    if op.result_types.len() != 1 || l.result_shape(op, 0)? != Shape::Token {
        return Err(l.err(op.pos, "`stablehlo.send` gives one token"));
    }
    let base = base_name(op);
    let context = Shape::Tuple(vec![
        s.shape(data),
        Shape::array(ElementType::U32, vec![]),
        Shape::Token,
    ]);
    let send = l.add(
        s,
        Opcode::Send,
        context,
        vec![data, token],
        first,
        &base,
        op.pos,
    )?;
    let sent = l.add(
        s,
        Opcode::SendDone,
        Shape::Token,
        vec![send],
        done,
        &format!("{base}.done"),
        op.pos,
    )?;
    Ok(vec![Binding::Instr(sent)])
}

fn recv(l: &mut Lowering, s: &mut Scope, op: &Op) -> LResult<Vec<Binding>> {
    l.check_attributes(
        op,
        &["channel_handle", "is_host_transfer", "source_target_pairs"],
    )?;
    let (first, done) = channel(l, op)?;
    let operands = operands_n(l, s, op, 1)?;
    let arrays = data_results(l, op)?;
    let data = data_shape(&arrays);
    let base = base_name(op);
    let context = Shape::Tuple(vec![
        data.clone(),
        Shape::array(ElementType::U32, vec![]),
        Shape::Token,
    ]);
    let recv = l.add(s, Opcode::Recv, context, operands, first, &base, op.pos)?;
    let received = l.add(
        s,
        Opcode::RecvDone,
        Shape::Tuple(vec![data, Shape::Token]),
        vec![recv],
        done,
        &format!("{base}.done"),
        op.pos,
    )?;
    data_and_token(l, s, op, received, &arrays, &base)
}
