//! Reading the collectives (`stablehlo.all_reduce`, `stablehlo.all_gather`,
//! `stablehlo.reduce_scatter`, `stablehlo.all_to_all`, `stablehlo.collective_permute`,
//! `stablehlo.replica_id`, `stablehlo.partition_id`) into HLO's instructions (seed 004,
//! AllReduce ... ReplicaId): `replica_groups` (a groups × size tensor) in HLO's
//! `{{0,1},{2,3}}` form, `channel_handle` as `channel_id`, the unit `use_global_device_ids` as
//! `use_global_device_ids=true`.

use super::attrs::{dense_ints, Attr};
use super::lower::{attr, int_attr, ints_attr, Binding, LResult, Lowering, Scope};
use super::ops::{base_name, operands_n, req_int, single};
use super::syntax::Op;
use crate::hlo::ir::{AttrValue, Opcode};

/// Lowers `op` when it is a collective; `None` for other operations.
pub(crate) fn lower(l: &mut Lowering, s: &mut Scope, op: &Op) -> Option<LResult<Vec<Binding>>> {
    let opcode = match op.name.as_str() {
        "stablehlo.all_reduce" => Opcode::AllReduce,
        "stablehlo.all_gather" => Opcode::AllGather,
        "stablehlo.reduce_scatter" => Opcode::ReduceScatter,
        "stablehlo.all_to_all" => Opcode::AllToAll,
        "stablehlo.collective_permute" => Opcode::CollectivePermute,
        "stablehlo.replica_id" => Opcode::ReplicaId,
        "stablehlo.partition_id" => Opcode::PartitionId,
        _ => return None,
    };
    Some(collective(l, s, op, opcode))
}

/// A `groups × size` integer tensor as rows.
pub(crate) fn rows(l: &Lowering, op: &Op, name: &str) -> LResult<Option<Vec<Vec<i64>>>> {
    let Some(a) = op.attr(name) else {
        return Ok(None);
    };
    let bad = || {
        l.err(
            op.attr_pos(name),
            format!("`{name}` expects a dense i64 tensor of shape N×M"),
        )
    };
    let Attr::Dense(d, ty) = a else {
        return Err(bad());
    };
    let dims = match ty {
        super::attrs::Type::Tensor(t) if t.rank() == 2 => t.dimensions.clone(),
        _ => return Err(bad()),
    };
    let values = if dims.contains(&0) {
        vec![]
    } else {
        dense_ints(d).ok_or_else(bad)?
    };
    let width = dims[1].max(1) as usize;
    if values.len() as i64 != dims[0] * dims[1] {
        // A splat (`dense<0> : tensor<2x2xi64>`) names every entry at once.
        let [v] = values[..] else {
            return Err(bad());
        };
        return Ok(Some(vec![vec![v; width]; dims[0] as usize]));
    }
    // −1 pads the shorter rows of groups of different sizes.
    Ok(Some(
        values
            .chunks(width)
            .map(|r| r.iter().copied().filter(|&v| v != -1).collect())
            .collect(),
    ))
}

fn collective(l: &mut Lowering, s: &mut Scope, op: &Op, opcode: Opcode) -> LResult<Vec<Binding>> {
    if matches!(opcode, Opcode::ReplicaId | Opcode::PartitionId) {
        l.check_attributes(op, &[])?;
        return single(l, s, op, opcode, vec![], vec![]);
    }
    let mut attrs = Vec::new();
    let used: &[&str] = match opcode {
        Opcode::AllReduce => &["replica_groups", "channel_handle", "use_global_device_ids"],
        Opcode::AllGather => &[
            "all_gather_dim",
            "replica_groups",
            "channel_handle",
            "use_global_device_ids",
        ],
        Opcode::ReduceScatter => &[
            "scatter_dimension",
            "replica_groups",
            "channel_handle",
            "use_global_device_ids",
        ],
        Opcode::AllToAll => &[
            "split_dimension",
            "concat_dimension",
            "split_count",
            "replica_groups",
            "channel_handle",
        ],
        _ => &["source_target_pairs", "channel_handle"],
    };
    l.check_attributes(op, used)?;
    // all_reduce is variadic (a tuple all-reduce in HLO); the others take one operand.
    let operands = if opcode == Opcode::AllReduce && !op.operands.is_empty() {
        l.operands(s, op)?
    } else {
        operands_n(l, s, op, 1)?
    };
    match opcode {
        Opcode::AllGather => attrs.push(ints_attr(
            "dimensions",
            &[req_int(l, op, "all_gather_dim")?],
        )),
        Opcode::ReduceScatter => attrs.push(ints_attr(
            "dimensions",
            &[req_int(l, op, "scatter_dimension")?],
        )),
        Opcode::AllToAll => {
            let split = req_int(l, op, "split_dimension")?;
            if req_int(l, op, "concat_dimension")? != split {
                return Err(l.err(
                    op.attr_pos("concat_dimension"),
                    "an all_to_all whose concat_dimension differs from its split_dimension has no \
                     single HLO all-to-all (XLA adds transposes); not read here",
                ));
            }
            attrs.push(ints_attr("dimensions", &[split]));
        }
        _ => {}
    }
    if opcode == Opcode::CollectivePermute {
        let pairs = rows(l, op, "source_target_pairs")?.unwrap_or_default();
        if pairs.iter().any(|p| p.len() != 2) {
            return Err(l.err(
                op.attr_pos("source_target_pairs"),
                "`source_target_pairs` expects a tensor of shape N×2",
            ));
        }
        attrs.push(attr(
            "source_target_pairs",
            AttrValue::Raw(crate::collective::groups_text(&pairs)),
        ));
    } else {
        let groups = rows(l, op, "replica_groups")?.unwrap_or_default();
        attrs.push(attr(
            "replica_groups",
            AttrValue::Raw(crate::collective::groups_text(&groups)),
        ));
    }
    match op.attr("channel_handle") {
        None => {}
        Some(Attr::Struct(_, fields)) => match fields.iter().find(|(k, _)| k == "handle") {
            Some((_, Attr::Int(h))) => attrs.push(int_attr("channel_id", *h as i64)),
            _ => {
                return Err(l.err(
                    op.attr_pos("channel_handle"),
                    "`channel_handle` expects #stablehlo.channel_handle<handle = N, type = T>",
                ))
            }
        },
        Some(_) => {
            return Err(l.err(
                op.attr_pos("channel_handle"),
                "`channel_handle` expects #stablehlo.channel_handle<handle = N, type = T>",
            ))
        }
    }
    if matches!(
        opcode,
        Opcode::AllReduce | Opcode::AllGather | Opcode::ReduceScatter
    ) {
        let global = matches!(
            op.attr("use_global_device_ids"),
            Some(Attr::Unit | Attr::Bool(true))
        );
        attrs.push(attr("use_global_device_ids", AttrValue::Bool(global)));
    }
    if matches!(opcode, Opcode::AllReduce | Opcode::ReduceScatter) {
        let comp = super::regions::to_apply(l, s, op, 0, 2, &format!("{}.reducer", base_name(op)))?;
        attrs.push(attr("to_apply", AttrValue::Computation(comp)));
    }
    if operands.len() > 1 {
        let n = operands.len();
        let leaves = (0..n)
            .map(|k| l.result_shape(op, k))
            .collect::<LResult<Vec<_>>>()?;
        let base = base_name(op);
        let i = l.add(
            s,
            opcode,
            crate::shape::Shape::Tuple(leaves),
            operands,
            attrs,
            &base,
            op.pos,
        )?;
        return Ok(super::ops::elements(i, n, &base));
    }
    single(l, s, op, opcode, operands, attrs)
}
