//! Cases of the collectives (seed 004: AllReduce, CrossReplicaSum, AllGather, AllToAll,
//! CollectivePermute, ReduceScatter, ReplicaId), valid by construction: 1 to 8 replicas (now and
//! then 2 or 3 partitions), `replica_groups` a random partition of the group mode's ids (empty:
//! every device), every group mode (`channel_id`, `use_global_device_ids`), reducers that fit the
//! element type, split and gather dimensions whose sizes the group size divides, random layouts,
//! and each device's own argument values (`conformance_spec::collective`: the arguments are each
//! device's in turn).

use super::contraction::{binary_computation, call};
use super::elementwise::{Built, CaseSpec};
use super::movement::Gen;
use super::rng::Rng;

use conformance_spec::catalog::Signature;
use conformance_spec::collective::{groups_text, set_grid, DeviceGrid, GroupMode};
use conformance_spec::hlo::{AttrValue, Attribute, Opcode};
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::shape::{ArrayShape, Shape};
use conformance_spec::ElementType;

/// True for the family's signatures.
pub fn is_collective(signature: Signature) -> bool {
    matches!(
        signature,
        Signature::AllReduce
            | Signature::AllGather
            | Signature::AllToAll
            | Signature::CollectivePermute
            | Signature::ReduceScatter
            | Signature::DeviceId
    )
}

fn attribute(name: &str, value: AttrValue) -> Attribute {
    Attribute {
        name: name.into(),
        value,
    }
}

/// A random grid: 1 to 8 replicas; with `partitions`, now and then 2 or 3 partitions (at most
/// 8 devices).
fn grid(rng: &mut Rng, partitions: bool) -> DeviceGrid {
    let replicas = 1 + rng.below(8) as usize;
    let p = if partitions && rng.chance(0.25) {
        2 + rng.below(2) as usize
    } else {
        1
    };
    DeviceGrid {
        replicas: replicas.min(8 / p).max(1),
        partitions: p,
    }
}

/// The mode's attributes and the number of ids its groups range over.
fn mode(rng: &mut Rng, opcode: Opcode, grid: DeviceGrid) -> (GroupMode, Vec<Attribute>) {
    let channel = || attribute("channel_id", AttrValue::Int(1));
    let global = |v: bool| attribute("use_global_device_ids", AttrValue::Bool(v));
    let permute_like = matches!(opcode, Opcode::AllToAll | Opcode::CollectivePermute);
    match rng.below(4) {
        0 if permute_like => (GroupMode::CrossPartition, vec![channel()]),
        1 if !permute_like => (
            GroupMode::CrossReplicaAndPartition,
            vec![channel(), global(false)],
        ),
        2 if !permute_like => (GroupMode::FlattenedId, vec![channel(), global(true)]),
        _ if !permute_like && grid.partitions == 1 && rng.chance(0.5) => {
            (GroupMode::CrossReplica, vec![global(false)])
        }
        _ => (GroupMode::CrossReplica, vec![]),
    }
}

fn id_count(mode: GroupMode, grid: DeviceGrid) -> usize {
    match mode {
        GroupMode::CrossReplica | GroupMode::CrossReplicaAndPartition => grid.replicas,
        GroupMode::CrossPartition => grid.partitions,
        GroupMode::FlattenedId => grid.devices(),
    }
}

pub(crate) fn shuffled(rng: &mut Rng, n: usize) -> Vec<i64> {
    let mut ids: Vec<i64> = (0..n as i64).collect();
    for k in (1..n).rev() {
        ids.swap(k, rng.below(k as u64 + 1) as usize);
    }
    ids
}

/// Random groups over `n` ids (empty: one group of all, in order), of equal sizes when
/// `equal`; returns the groups and the group size the shapes must follow (for unequal groups,
/// the first group's).
fn groups(rng: &mut Rng, n: usize, equal: bool) -> (Vec<Vec<i64>>, usize) {
    if rng.chance(0.3) {
        return (vec![], n);
    }
    let ids = shuffled(rng, n);
    if equal {
        let sizes: Vec<usize> = (1..=n).filter(|s| n.is_multiple_of(*s)).collect();
        let size = *rng.pick(&sizes);
        return (ids.chunks(size).map(<[i64]>::to_vec).collect(), size);
    }
    let mut out = Vec::new();
    let mut rest = &ids[..];
    while !rest.is_empty() {
        let k = 1 + rng.below(rest.len() as u64) as usize;
        out.push(rest[..k].to_vec());
        rest = &rest[k..];
    }
    let first = out[0].len();
    (out, first)
}

/// Random source-target pairs over `n` ids: each id a source at most once and a target at
/// most once (a partial permutation; self-pairs allowed).
pub(crate) fn pairs(rng: &mut Rng, n: usize) -> Vec<Vec<i64>> {
    let sources = shuffled(rng, n);
    let targets = shuffled(rng, n);
    let k = rng.below(n as u64 + 1) as usize;
    sources
        .into_iter()
        .zip(targets)
        .take(k)
        .map(|(s, t)| vec![s, t])
        .collect()
}

/// A reducer fitting `ty` (a sum for CrossReplicaSum): sums, max and min for numbers, products
/// of integers (exact), and/or for pred. Float products are left out: their rounding depends on
/// the order, which the seed leaves open and the catalog's sum bound does not cover.
fn reducer_opcode(rng: &mut Rng, ty: ElementType, sum_only: bool) -> Opcode {
    let choices: &[Opcode] = if ty.is_pred() {
        &[Opcode::And, Opcode::Or]
    } else if sum_only || ty.is_complex() {
        &[Opcode::Add]
    } else if ty.is_integer() {
        &[
            Opcode::Add,
            Opcode::Maximum,
            Opcode::Minimum,
            Opcode::Multiply,
            Opcode::And,
        ]
    } else {
        &[Opcode::Add, Opcode::Add, Opcode::Maximum, Opcode::Minimum]
    };
    *rng.pick(choices)
}

/// Builds one case of a collective entry.
///
/// Errors: not a signature of the family, or an invalid module (a generator bug).
pub fn build(source: &mut Rng, spec: &CaseSpec) -> Result<Built, String> {
    let opcode = Opcode::from_name(&spec.op.opcode)
        .ok_or_else(|| format!("catalog opcode `{}` is not an HLO opcode", spec.op.opcode))?;
    if !is_collective(spec.op.signature) {
        return Err(format!(
            "{:?} is not a signature of the collective family",
            spec.op.signature
        ));
    }
    let ty = spec.element_type;
    let mut g = Gen::new(source, spec);
    let grid = grid(
        g.rng,
        opcode != Opcode::ReplicaId || g.spec.op.id == "partition-id",
    );
    let grid = if opcode == Opcode::PartitionId && grid.partitions == 1 {
        DeviceGrid {
            replicas: grid.replicas.min(4),
            partitions: 2,
        }
    } else {
        grid
    };
    let devices = grid.devices();
    if spec.op.signature == Signature::DeviceId {
        let root =
            g.b.add_instruction(
                opcode,
                Shape::array(ElementType::U32, vec![]),
                vec![],
                vec![],
            )
            .map_err(|e| format!("{opcode}: {e}"))?;
        return finish(g, root, grid);
    }
    let (mode, mut attrs) = mode(g.rng, opcode, grid);
    let n = id_count(mode, grid);
    let equal = !matches!(opcode, Opcode::AllReduce | Opcode::CollectivePermute);
    let (mut group_list, mut size) = groups(g.rng, n, equal);
    if mode == GroupMode::FlattenedId && group_list.is_empty() {
        // Flattened ids must be listed (XLA's and StableHLO's verifiers).
        group_list = vec![(0..n as i64).collect()];
        size = n;
    }
    // For cross-replica-and-partition a group of replicas spans every partition.
    let group_size = if mode == GroupMode::CrossReplicaAndPartition {
        size * grid.partitions
    } else {
        size
    } as i64;
    if opcode == Opcode::CollectivePermute {
        attrs.push(attribute(
            "source_target_pairs",
            AttrValue::Raw(groups_text(&pairs(g.rng, n))),
        ));
    } else {
        attrs.push(attribute(
            "replica_groups",
            AttrValue::Raw(groups_text(&group_list)),
        ));
    }
    // The operand's dimensions: the split or gather dimension sized for the group.
    let mut dims = g.dims(match opcode {
        Opcode::AllGather | Opcode::AllToAll | Opcode::ReduceScatter => 1,
        _ => 0,
    });
    let d = if dims.is_empty() {
        0
    } else {
        g.rng.below(dims.len() as u64) as usize
    };
    // StableHLO's verifier refuses a zero-size gather or scatter dimension, so those have at
    // least one element per device; all-to-all keeps zero-size splits (seed 004 allows them).
    match opcode {
        Opcode::AllToAll => dims[d] = group_size * g.rng.range_i64(0, 3),
        Opcode::ReduceScatter => dims[d] = group_size * g.rng.range_i64(1, 3),
        Opcode::AllGather => dims[d] = dims[d].max(1),
        _ => {}
    }
    if matches!(
        opcode,
        Opcode::AllGather | Opcode::AllToAll | Opcode::ReduceScatter
    ) {
        attrs.push(attribute("dimensions", AttrValue::Ints(vec![d as i64])));
    }
    let operands = if opcode == Opcode::AllReduce && g.rng.chance(0.15) {
        2
    } else {
        1
    };
    let mut params = Vec::with_capacity(operands);
    let mut per_device: Vec<Vec<ArrayLiteral>> = vec![Vec::new(); devices];
    for _ in 0..operands {
        let layout = g.layout(&dims);
        let shape = ArrayShape::new(ty, dims.clone()).with_layout(layout.clone());
        params.push(
            g.b.parameter(Shape::Array(shape.clone()))
                .map_err(|e| e.to_string())?,
        );
        for values_of in per_device.iter_mut() {
            values_of.push(g.values(&shape)?);
        }
    }
    g.args = per_device.into_iter().flatten().map(Into::into).collect();
    if matches!(opcode, Opcode::AllReduce | Opcode::ReduceScatter) {
        let sum_only = spec.op.builder == "CrossReplicaSum";
        let r = reducer_opcode(g.rng, ty, sum_only);
        let c = binary_computation("reducer", ty, r, None)?;
        let c = call(&mut g, c);
        attrs.push(attribute("to_apply", AttrValue::Computation(c.name)));
    }
    let mut out_dims = dims.clone();
    match opcode {
        Opcode::AllGather => out_dims[d] *= group_size,
        Opcode::ReduceScatter => out_dims[d] /= group_size.max(1),
        _ => {}
    }
    let mut results = Vec::with_capacity(operands);
    for _ in 0..operands {
        let layout = g.layout(&out_dims);
        results.push(Shape::Array(
            ArrayShape::new(ty, out_dims.clone()).with_layout(layout),
        ));
    }
    let shape = if results.len() == 1 {
        results.remove(0)
    } else {
        Shape::Tuple(results)
    };
    let root =
        g.b.add_instruction(opcode, shape, params, attrs)
            .map_err(|e| format!("{opcode}: {e}"))?;
    finish(g, root, grid)
}

/// The module on `grid`, verified (the shape rules read `replica_groups`; the grid is set after).
fn finish(g: Gen, root: usize, grid: DeviceGrid) -> Result<Built, String> {
    let no_params = g.args.is_empty();
    let mut built = g.into_built(root)?;
    set_grid(&mut built.module, grid);
    debug_assert!(no_params || built.args.len() % grid.devices() == 0);
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{plan, Filters, GeneratorConfig};

    /// Every entry of the family, on every element type it lists, builds valid modules whose
    /// arguments are each device's in turn, and the reference runs them.
    #[test]
    fn every_entry_builds_valid_cases() {
        let built = crate::generate::test_support::build_every_entry(
            |op| is_collective(op.signature),
            4,
            build,
        );
        assert!(built > 400, "only {built} collective cases built");
    }

    /// Every generated case runs on the reference and fast, and the harness's check (the
    /// catalog's tolerance: exact data movement, the sum bound) passes fast, over every entry
    /// of the family.
    #[test]
    fn generated_cases_run_and_agree() {
        let catalog = conformance_spec::catalog::shared().expect("catalog");
        let config = GeneratorConfig::default();
        let filters = Filters {
            ops: [
                "all-*",
                "collective-permute",
                "reduce-scatter",
                "replica-id",
                "partition-id",
                "cross-replica-sum",
            ]
            .map(String::from)
            .to_vec(),
            dtypes: vec![],
        };
        let all = plan(catalog, &filters).unwrap();
        assert!(!all.is_empty());
        let mut devices_seen = std::collections::BTreeSet::new();
        let reference = conformance_reference::Reference;
        let fast = conformance_fast::Fast::new();
        for index in 0..300u64 {
            let case = crate::generate::case(catalog, &all, &config, 7, index).unwrap();
            let grid = DeviceGrid::of(&case.module).unwrap();
            devices_seen.insert(grid.devices());
            let op = catalog.op(&case.op_id).unwrap();
            let outcome = crate::check::check(
                op,
                &case.module,
                &case.args,
                &[&reference, &fast],
                &crate::executor::Stage::default(),
            );
            assert!(
                outcome.reference_error.is_none(),
                "{}\n{outcome:?}",
                case.module
            );
            let o = &outcome.outcomes[0];
            assert_eq!(
                o.verdict,
                crate::check::Verdict::Pass,
                "{}\n{o:?}",
                case.module
            );
        }
        assert!(devices_seen.len() >= 5, "{devices_seen:?}");
    }
}
