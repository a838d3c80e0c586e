//! Collectives (seed 004: AllReduce, AllGather, AllToAll, CollectivePermute, ReduceScatter,
//! ReplicaId) in StableHLO: `stablehlo.all_reduce` and `stablehlo.reduce_scatter` with their
//! reducer as a region, `stablehlo.all_gather`, `stablehlo.all_to_all` (HLO's array form: the
//! split and concatenation dimensions are the one `dimensions={d}`, `split_count` the group
//! size), `stablehlo.collective_permute`, `stablehlo.replica_id`, `stablehlo.partition_id`.
//! `replica_groups` become an `i64` tensor of shape groups × group size — HLO's empty
//! `replica_groups={}` (one group of every id) as that group written out, since StableHLO's
//! process grouping finds no group for a process in an empty tensor — `channel_id` a `#stablehlo.channel_handle` of type 1 (device to device), and
//! `use_global_device_ids=true` the unit attribute. The device grid goes in the module's
//! `mhlo.num_replicas` / `mhlo.num_partitions` (see `print_stablehlo`).

use super::{array_operands, At, Emitter, Value, R};
use crate::collective::{
    check_groups, group_mode, id_count, replica_groups, source_target_pairs, DeviceGrid,
};
use crate::hlo::ir::Opcode;

/// `dense<[[a, b], [c, d]]> : tensor<2x2xi64>`; shorter rows are padded with −1, which XLA
/// reads as no id (groups of different sizes).
fn dense_rows(rows: &[Vec<i64>]) -> Option<String> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if rows.is_empty() {
        return Some("dense<> : tensor<0x0xi64>".into());
    }
    let inner: Vec<String> = rows
        .iter()
        .map(|r| {
            let ids: Vec<String> = r
                .iter()
                .copied()
                .chain(std::iter::repeat(-1))
                .take(width)
                .map(|v| v.to_string())
                .collect();
            format!("[{}]", ids.join(", "))
        })
        .collect();
    Some(format!(
        "dense<[{}]> : tensor<{}x{width}xi64>",
        inner.join(", "),
        rows.len()
    ))
}

pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    if matches!(instr.opcode, Opcode::ReplicaId | Opcode::PartitionId) {
        let name = if instr.opcode == Opcode::ReplicaId {
            "stablehlo.replica_id"
        } else {
            "stablehlo.partition_id"
        };
        return e.op_shaped(instr, name, &[], &[], &[]);
    }
    let mut attributes: Vec<(&str, String)> = Vec::new();
    if let Some(channel) = instr.attr_int("channel_id") {
        attributes.push((
            "channel_handle",
            format!("#stablehlo.channel_handle<handle = {channel}, type = 1>"),
        ));
    }
    if instr.opcode == Opcode::CollectivePermute {
        let pairs = source_target_pairs(instr).map_err(|m| at.error(m))?;
        let rows: Vec<Vec<i64>> = pairs.iter().map(|&(s, t)| vec![s, t]).collect();
        let value = if rows.is_empty() {
            "dense<> : tensor<0x2xi64>".to_string()
        } else {
            dense_rows(&rows).ok_or_else(|| at.error("malformed source_target_pairs"))?
        };
        attributes.push(("source_target_pairs", value));
        return e.op_shaped(
            instr,
            "stablehlo.collective_permute",
            &operands,
            &attributes,
            &[],
        );
    }
    let mut groups = replica_groups(instr).map_err(|m| at.error(m))?;
    if groups.is_empty() {
        let mode = group_mode(instr).map_err(|m| at.error(m))?;
        let grid = DeviceGrid::of(e.printer.module).map_err(|m| at.error(m.to_string()))?;
        groups = vec![(0..id_count(mode, grid) as i64).collect()];
    }
    attributes.push((
        "replica_groups",
        dense_rows(&groups).ok_or_else(|| {
            at.error(
                "replica_groups of different sizes have no StableHLO form (a rectangular tensor)",
            )
        })?,
    ));
    if instr.attr_bool("use_global_device_ids") == Some(true) {
        attributes.push(("use_global_device_ids", "unit".into()));
    }
    let dimension = || -> R<i64> {
        match instr.attr_ints("dimensions") {
            Some(&[d]) => Ok(d),
            _ => Err(at.error("expects `dimensions={d}`")),
        }
    };
    match instr.opcode {
        Opcode::AllReduce => {
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.all_reduce",
                &operands,
                &attributes,
                &[region],
            )
        }
        Opcode::ReduceScatter => {
            attributes.insert(0, ("scatter_dimension", format!("{} : i64", dimension()?)));
            let (region, _) = e.region(instr, at.called("to_apply")?, None)?;
            e.op_shaped(
                instr,
                "stablehlo.reduce_scatter",
                &operands,
                &attributes,
                &[region],
            )
        }
        Opcode::AllGather => {
            attributes.insert(0, ("all_gather_dim", format!("{} : i64", dimension()?)));
            e.op_shaped(instr, "stablehlo.all_gather", &operands, &attributes, &[])
        }
        Opcode::AllToAll => {
            if instr.attribute("dimensions").is_none() {
                return Err(at.error(
                    "the tuple form of all-to-all (no `dimensions`) has no StableHLO counterpart",
                ));
            }
            let d = dimension()?;
            // The split count is the group size (the groups are never empty here).
            let count = groups.first().map_or(1, Vec::len);
            check_groups(&groups, groups.iter().map(Vec::len).sum(), true)
                .map_err(|m| at.error(m))?;
            let mut all = vec![
                ("split_dimension", format!("{d} : i64")),
                ("concat_dimension", format!("{d} : i64")),
                ("split_count", format!("{count} : i64")),
            ];
            all.extend(attributes);
            e.op_shaped(instr, "stablehlo.all_to_all", &operands, &all, &[])
        }
        other => Err(at.error(format!("`{other}` is not a collective"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::print;

    /// HLO's empty `replica_groups` (one group of every id of the mode) is written out: replicas
    /// without a channel, partitions for an all-to-all with one, replicas for
    /// cross-replica-and-partition.
    #[test]
    fn empty_replica_groups_print_as_the_group_of_every_id() {
        let text = print(
            "HloModule m, replica_count=3, num_partitions=2
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[6] parameter(0)
  r = f32[6] all-reduce(a), replica_groups={}, to_apply=add
  g = f32[12] all-gather(r), replica_groups={}, dimensions={0}, channel_id=1
  ROOT t = f32[12] all-to-all(g), replica_groups={}, dimensions={0}, channel_id=2
}",
        );
        assert!(!text.contains("tensor<0x0xi64>"), "{text}");
        let groups: Vec<&str> = text
            .match_indices("replica_groups = ")
            .map(|(i, _)| text[i..].split(" : ").next().unwrap_or(""))
            .collect();
        assert_eq!(
            groups,
            [
                "replica_groups = dense<[[0, 1, 2]]>",
                "replica_groups = dense<[[0, 1, 2]]>",
                "replica_groups = dense<[[0, 1]]>",
            ],
            "{text}"
        );
        assert!(text.contains("split_count = 2 : i64"), "{text}");
    }
}
