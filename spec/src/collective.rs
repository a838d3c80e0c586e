//! Running one module on several devices: the device grid, how collectives form their groups,
//! and the rendezvous through which device threads exchange values (seed 004, AllReduce,
//! AllGather, AllToAll, CollectivePermute, ReduceScatter, ReplicaId; XLA's
//! `CollectiveOpGroupMode`).
//!
//! **The case model.** A module runs on `replica_count × num_partitions` devices (its header
//! attributes, as in HLO text: `HloModule m, replica_count=4, num_partitions=2`; both default to
//! 1). Device `d` is replica `d / num_partitions`, partition `d % num_partitions`. When there is
//! more than one device, [`crate::Backend::execute`]'s arguments are the devices' argument lists
//! one after the other (device 0's parameters, then device 1's, ...) and its result is a tuple
//! of the devices' results in device order ([`split_arguments`], [`join_results`]). A
//! one-device module takes and returns exactly what it always did.
//!
//! **Groups.** A collective's `replica_groups` partition the ids its mode names: replica ids
//! without `channel_id` (cross-replica), partition ids with `channel_id` and no
//! `use_global_device_ids` attribute (cross-partition: `all-to-all`, `collective-permute`),
//! replica ids spanning every partition with `use_global_device_ids=false`
//! (cross-replica-and-partition), flattened device ids with `use_global_device_ids=true`. An
//! empty list means one group of every id. [`participants`] gives the devices of a device's
//! group, in group order (the order `all-gather` concatenates in).
//!
//! **Rendezvous.** Each device runs on its own thread; a collective deposits the device's value
//! and waits for its group's ([`Rendezvous::exchange`]). When every device still running waits
//! for a value no running device will deposit, the run ends with a deadlock error instead of
//! hanging.

use crate::backend::BackendError;
use crate::hlo::ir::{AttrValue, Attribute, HloInstruction, HloModule, Opcode};
use crate::literal::Literal;

/// Most devices a module may ask for (seed 004 sets no limit; 64 keeps a malformed header from
/// starting thousands of threads).
pub const MAX_DEVICES: usize = 64;

/// The devices a module runs on: `replicas × partitions`, device `d` = replica
/// `d / partitions`, partition `d % partitions`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceGrid {
    pub replicas: usize,
    pub partitions: usize,
}

impl DeviceGrid {
    /// One device.
    pub const SINGLE: DeviceGrid = DeviceGrid {
        replicas: 1,
        partitions: 1,
    };

    /// The grid of `module`'s header (`replica_count`, `num_partitions`; 1 when absent).
    ///
    /// Errors: [`BackendError::Invalid`] for a value that is not a positive integer or a grid
    /// of more than [`MAX_DEVICES`] devices.
    pub fn of(module: &HloModule) -> Result<DeviceGrid, BackendError> {
        let read = |name: &str| -> Result<usize, BackendError> {
            match module.header_attributes.iter().find(|a| a.name == name) {
                None => Ok(1),
                Some(a) => {
                    let text = match &a.value {
                        AttrValue::Raw(t) => t.clone(),
                        AttrValue::Int(v) => v.to_string(),
                        other => format!("{other:?}"),
                    };
                    match text.trim().parse::<usize>() {
                        Ok(n) if n >= 1 => Ok(n),
                        _ => Err(BackendError::Invalid(format!(
                            "module `{}`: `{name}={text}` is not a positive integer",
                            module.name
                        ))),
                    }
                }
            }
        };
        let grid = DeviceGrid {
            replicas: read("replica_count")?,
            partitions: read("num_partitions")?,
        };
        if grid.devices() > MAX_DEVICES {
            return Err(BackendError::Invalid(format!(
                "module `{}`: {} replicas × {} partitions is more than {MAX_DEVICES} devices",
                module.name, grid.replicas, grid.partitions
            )));
        }
        Ok(grid)
    }

    /// `replicas × partitions`.
    pub fn devices(&self) -> usize {
        self.replicas * self.partitions
    }

    /// The device of (replica, partition).
    pub fn device(&self, replica: usize, partition: usize) -> usize {
        replica * self.partitions + partition
    }

    /// The replica of device `d`.
    pub fn replica_of(&self, d: usize) -> usize {
        d / self.partitions
    }

    /// The partition of device `d`.
    pub fn partition_of(&self, d: usize) -> usize {
        d % self.partitions
    }
}

/// Sets `module`'s header to `grid` (`replica_count` and `num_partitions`, left out when 1).
pub fn set_grid(module: &mut HloModule, grid: DeviceGrid) {
    module
        .header_attributes
        .retain(|a| a.name != "replica_count" && a.name != "num_partitions");
    for (name, n) in [
        ("replica_count", grid.replicas),
        ("num_partitions", grid.partitions),
    ] {
        if n != 1 {
            module.header_attributes.push(Attribute {
                name: name.into(),
                value: AttrValue::Raw(n.to_string()),
            });
        }
    }
}

/// True for the collectives of seed 004 this module describes (`all-reduce`, `all-gather`,
/// `all-to-all`, `collective-permute`, `reduce-scatter`) and the device ids (`replica-id`,
/// `partition-id`).
pub fn is_collective(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::AllReduce
            | Opcode::AllGather
            | Opcode::AllToAll
            | Opcode::CollectivePermute
            | Opcode::ReduceScatter
            | Opcode::ReplicaId
            | Opcode::PartitionId
    )
}

/// How a collective's `replica_groups` name devices (XLA's `CollectiveOpGroupMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupMode {
    /// Replica ids; each partition forms its groups on its own.
    CrossReplica,
    /// Partition ids; each replica forms its groups on its own.
    CrossPartition,
    /// Replica ids, each standing for every partition of that replica.
    CrossReplicaAndPartition,
    /// Flattened device ids (`replica × partitions + partition`).
    FlattenedId,
}

/// The group mode of a collective: from `channel_id` and `use_global_device_ids` (which
/// `all-to-all` and `collective-permute` do not have).
///
/// Errors: `use_global_device_ids=true` without `channel_id`.
pub fn group_mode(instr: &HloInstruction) -> Result<GroupMode, String> {
    let channel = instr.attribute("channel_id").is_some();
    let global = match instr.opcode {
        Opcode::AllToAll | Opcode::CollectivePermute => None,
        _ => Some(instr.attr_bool("use_global_device_ids").unwrap_or(false)),
    };
    match (channel, global) {
        (false, Some(true)) => Err(format!(
            "`{}`: use_global_device_ids=true needs a channel_id",
            instr.name
        )),
        (false, _) => Ok(GroupMode::CrossReplica),
        (true, None) => Ok(GroupMode::CrossPartition),
        (true, Some(false)) => Ok(GroupMode::CrossReplicaAndPartition),
        (true, Some(true)) => Ok(GroupMode::FlattenedId),
    }
}

/// Parses a list of integer lists: `{{0,1},{2,3}}`, `{}` (none), or `{{}}`.
pub(crate) fn parse_nested(text: &str, what: &str) -> Result<Vec<Vec<i64>>, String> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = t
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .ok_or_else(|| format!("{what} `{text}`: expected `{{{{a,b,...}},...}}`"))?;
    let mut groups = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let body = rest
            .strip_prefix('{')
            .ok_or_else(|| format!("{what} `{text}`: expected `{{` to open a group"))?;
        let end = body
            .find('}')
            .ok_or_else(|| format!("{what} `{text}`: a group is not closed"))?;
        let ids = &body[..end];
        let group = if ids.is_empty() {
            vec![]
        } else {
            ids.split(',')
                .map(|n| {
                    n.parse::<i64>()
                        .map_err(|_| format!("{what} `{text}`: `{n}` is not an integer"))
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        groups.push(group);
        rest = &body[end + 1..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
    Ok(groups)
}

/// Parses XLA's iota form of `replica_groups`: `[G,S]<=[N]` (ids 0..N in order, G groups of
/// S) or `[G,S]<=[d0,d1,...]T(p0,p1,...)` (ids 0..N reshaped to `d`, transposed by `p`, then
/// read in order).
fn parse_iota(text: &str) -> Result<Vec<Vec<i64>>, String> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let bad =
        || format!("replica_groups `{text}`: expected `[G,S]<=[dims]` or `[G,S]<=[dims]T(perm)`");
    let list = |s: &str| -> Result<Vec<i64>, String> {
        s.split(',')
            .map(|n| n.parse::<i64>().map_err(|_| bad()))
            .collect()
    };
    let (head, tail) = t.split_once("<=").ok_or_else(bad)?;
    let gs = list(
        head.strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or_else(bad)?,
    )?;
    let (dims_text, perm_text) = match tail.split_once("T(") {
        Some((d, p)) => (d, Some(p.strip_suffix(')').ok_or_else(bad)?)),
        None => (tail, None),
    };
    let dims = list(
        dims_text
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or_else(bad)?,
    )?;
    let perm: Vec<usize> = match perm_text {
        Some(p) => list(p)?.into_iter().map(|v| v as usize).collect(),
        None => (0..dims.len()).collect(),
    };
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    if gs.len() != 2 || dims.iter().any(|&d| d < 1) || sorted != (0..dims.len()).collect::<Vec<_>>()
    {
        return Err(bad());
    }
    let n: i64 = dims.iter().product();
    if gs[0] < 1 || gs[1] < 1 || gs[0] * gs[1] != n || n > MAX_DEVICES as i64 * 64 {
        return Err(format!(
            "replica_groups `{text}`: {} groups of {} is not the {n} ids of the iota",
            gs[0], gs[1]
        ));
    }
    // Row-major strides of `dims`, read in the transposed order.
    let mut strides = vec![1i64; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    let tdims: Vec<i64> = perm.iter().map(|&p| dims[p]).collect();
    let mut ids = Vec::with_capacity(n as usize);
    crate::index::for_each_index(&tdims, |idx| {
        ids.push(
            idx.iter()
                .zip(&perm)
                .map(|(&i, &p)| i * strides[p])
                .sum::<i64>(),
        );
    });
    Ok(ids.chunks(gs[1] as usize).map(<[i64]>::to_vec).collect())
}

/// The `replica_groups` of a collective as lists of ids (empty: one group of every id). Reads
/// the explicit form `{{0,2},{1,3}}` and the iota form `[2,2]<=[4]`, `[2,2]<=[2,2]T(1,0)`.
///
/// Errors: a malformed value.
pub fn replica_groups(instr: &HloInstruction) -> Result<Vec<Vec<i64>>, String> {
    replica_groups_of(&instr.attributes)
}

/// [`replica_groups`] from an attribute list.
///
/// Errors: a malformed value.
pub fn replica_groups_of(attributes: &[Attribute]) -> Result<Vec<Vec<i64>>, String> {
    let text = match attributes
        .iter()
        .find(|a| a.name == "replica_groups")
        .map(|a| &a.value)
    {
        None => return Ok(vec![]),
        Some(AttrValue::Raw(t)) => t.clone(),
        Some(other) => return Err(format!("replica_groups: unexpected value {other:?}")),
    };
    let groups = if text.trim_start().starts_with('[') {
        parse_iota(&text)?
    } else {
        parse_nested(&text, "replica_groups")?
    };
    // `{{}}` is XLA's other spelling of "no groups".
    Ok(if groups.iter().all(Vec::is_empty) {
        vec![]
    } else {
        groups
    })
}

/// Renders groups in HLO's explicit form: `{{0,2},{1,3}}`.
pub fn groups_text(groups: &[Vec<i64>]) -> String {
    let inner: Vec<String> = groups
        .iter()
        .map(|g| {
            let ids: Vec<String> = g.iter().map(i64::to_string).collect();
            format!("{{{}}}", ids.join(","))
        })
        .collect();
    format!("{{{}}}", inner.join(","))
}

/// The `source_target_pairs` of a `collective-permute`: `{{0,1},{1,2}}`.
///
/// Errors: a malformed value or a pair of other than two ids.
pub fn source_target_pairs(instr: &HloInstruction) -> Result<Vec<(i64, i64)>, String> {
    source_target_pairs_of(&instr.attributes)
}

/// [`source_target_pairs`] from an attribute list.
///
/// Errors: a malformed value or a pair of other than two ids.
pub fn source_target_pairs_of(attributes: &[Attribute]) -> Result<Vec<(i64, i64)>, String> {
    let text = match attributes
        .iter()
        .find(|a| a.name == "source_target_pairs")
        .map(|a| &a.value)
    {
        None => return Ok(vec![]),
        Some(AttrValue::Raw(t)) => t.clone(),
        Some(other) => return Err(format!("source_target_pairs: unexpected value {other:?}")),
    };
    parse_nested(&text, "source_target_pairs")?
        .into_iter()
        .map(|p| match p.as_slice() {
            [s, t] => Ok((*s, *t)),
            _ => Err(format!(
                "source_target_pairs `{text}`: each pair has two ids, not {p:?}"
            )),
        })
        .collect()
}

/// The number of ids the groups of `mode` range over on `grid`.
/// How many ids a collective's `replica_groups` range over in `mode` on `grid` (replicas,
/// partitions or devices): the one group of an empty `replica_groups` holds them all.
pub fn id_count(mode: GroupMode, grid: DeviceGrid) -> usize {
    match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => grid.replicas,
        GroupMode::CrossPartition => grid.partitions,
        GroupMode::FlattenedId => grid.devices(),
    }
}

/// Checks that `groups` partition `0..n`: every id in range and named once, every id named
/// (XLA's verifier asks for both), and, where `equal_sizes`, groups of one size.
pub fn check_groups(groups: &[Vec<i64>], n: usize, equal_sizes: bool) -> Result<(), String> {
    if groups.is_empty() {
        return Ok(());
    }
    let mut seen = vec![false; n];
    for &id in groups.iter().flatten() {
        let Some(slot) = usize::try_from(id).ok().filter(|&i| i < n) else {
            return Err(format!("replica_groups name id {id}, outside 0..{n}"));
        };
        if std::mem::replace(&mut seen[slot], true) {
            return Err(format!("replica_groups name id {id} twice"));
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(format!("replica_groups leave out id {missing} of 0..{n}"));
    }
    if equal_sizes && groups.iter().any(|g| g.len() != groups[0].len()) {
        return Err("replica_groups of different sizes".into());
    }
    Ok(())
}

/// The devices in `device`'s group for collective `instr` on `grid`, in group order (for
/// cross-replica-and-partition: each replica of the group with all its partitions, partitions
/// minor).
///
/// Errors: groups that do not partition the mode's ids, or a bad attribute.
pub fn participants(
    instr: &HloInstruction,
    grid: DeviceGrid,
    device: usize,
) -> Result<Vec<usize>, String> {
    let mode = group_mode(instr)?;
    let groups = replica_groups(instr)?;
    let n = id_count(mode, grid);
    check_groups(&groups, n, false)?;
    if mode == GroupMode::FlattenedId && groups.is_empty() {
        // XLA's verifier (and StableHLO's) ask flattened ids to be listed.
        return Err(format!(
            "`{}`: use_global_device_ids=true needs explicit replica_groups",
            instr.name
        ));
    }
    let (replica, partition) = (grid.replica_of(device), grid.partition_of(device));
    let own_id = match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => replica,
        GroupMode::CrossPartition => partition,
        GroupMode::FlattenedId => device,
    } as i64;
    let group: Vec<i64> = if groups.is_empty() {
        (0..n as i64).collect()
    } else {
        groups
            .into_iter()
            .find(|g| g.contains(&own_id))
            .ok_or_else(|| format!("device {device} is in no replica group"))?
    };
    let ids = group.iter().map(|&g| g as usize);
    Ok(match mode {
        GroupMode::CrossReplica => ids.map(|r| grid.device(r, partition)).collect(),
        GroupMode::CrossPartition => ids.map(|p| grid.device(replica, p)).collect(),
        GroupMode::CrossReplicaAndPartition => ids
            .flat_map(|r| (0..grid.partitions).map(move |p| grid.device(r, p)))
            .collect(),
        GroupMode::FlattenedId => ids.collect(),
    })
}

/// For a `collective-permute` on `device`: the devices it sends to and the device it receives
/// from (`None`: it receives nothing and its result is zeros), and every device of its domain
/// (the devices the pairs' ids range over, which all take part in the exchange).
///
/// Errors: a pair naming an id out of range, or an id that is a source or a target twice.
pub fn permute_peers(
    instr: &HloInstruction,
    grid: DeviceGrid,
    device: usize,
) -> Result<(Option<usize>, Vec<usize>), String> {
    let mode = group_mode(instr)?;
    let pairs = source_target_pairs(instr)?;
    let n = id_count(mode, grid) as i64;
    let (replica, partition) = (grid.replica_of(device), grid.partition_of(device));
    let to_device = |id: i64| match mode {
        GroupMode::CrossPartition => grid.device(replica, id as usize),
        _ => grid.device(id as usize, partition),
    };
    let mut sources = std::collections::BTreeSet::new();
    let mut targets = std::collections::BTreeSet::new();
    for &(s, t) in &pairs {
        if !(0..n).contains(&s) || !(0..n).contains(&t) {
            return Err(format!(
                "source_target_pairs: pair {{{s},{t}}} names an id outside 0..{n}"
            ));
        }
        if !sources.insert(s) || !targets.insert(t) {
            return Err(format!(
                "source_target_pairs: id {} is a source or a target twice",
                if sources.contains(&s) { s } else { t }
            ));
        }
    }
    let own = match mode {
        GroupMode::CrossPartition => partition,
        _ => replica,
    } as i64;
    let source = pairs.iter().find(|p| p.1 == own).map(|p| to_device(p.0));
    let domain = (0..n).map(to_device).collect();
    Ok((source, domain))
}

/// Splits a flattened argument list into one list per device (see the module docs).
///
/// Errors: [`BackendError::Invalid`] when the count is not a multiple of the device count.
pub fn split_arguments(
    grid: DeviceGrid,
    args: &[Literal],
) -> Result<Vec<&[Literal]>, BackendError> {
    let d = grid.devices();
    if !args.len().is_multiple_of(d) {
        return Err(BackendError::Invalid(format!(
            "{} arguments for {d} devices: expected each device's parameters in turn",
            args.len()
        )));
    }
    let per = args.len() / d;
    Ok((0..d).map(|k| &args[k * per..(k + 1) * per]).collect())
}

/// The shapes of the arguments `module` takes: its entry parameters' shapes followed by the
/// infeed queue the entry computation's own infeeds read
/// ([`crate::host_transfer::static_infeed_shapes`]), once per device (each device's in turn).
pub fn argument_shapes(module: &HloModule) -> Vec<crate::shape::Shape> {
    let devices = DeviceGrid::of(module).map_or(1, |g| g.devices());
    let mut one = module.entry_computation().parameter_shapes();
    one.extend(crate::host_transfer::static_infeed_shapes(module));
    (0..devices).flat_map(|_| one.iter().cloned()).collect()
}

/// The result of a run from the devices' results: the one result of a single device, a tuple
/// in device order otherwise.
pub fn join_results(mut results: Vec<Literal>) -> Literal {
    if results.len() == 1 {
        results.remove(0)
    } else {
        Literal::Tuple(results)
    }
}

mod rendezvous;
pub use rendezvous::{
    run_devices, run_devices_lending, run_devices_with, Device, Lent, Rendezvous,
};

#[cfg(test)]
mod tests;
