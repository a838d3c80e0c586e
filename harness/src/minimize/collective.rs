//! Minimizing a collective (seed 004: AllReduce ... ReplicaId) over its devices: the case is
//! the root over parameters, each device's arguments in turn (`conformance_spec::collective`).
//! Candidates, each kept only while the disagreement persists (and the module verifies):
//! fewer replicas (the groups and pairs restricted to the remaining ids, the last devices'
//! arguments dropped), groups merged into one or left empty, pairs dropped, `channel_id` and
//! `use_global_device_ids` dropped, default layouts, smaller operands (every device's alike,
//! keeping the leading or the trailing elements of a dimension,
//! the root's shape following), then every element set to zero or one, device by device.

use super::Oracle;
use conformance_spec::collective::{
    groups_text, replica_groups, set_grid, source_target_pairs, DeviceGrid,
};
use conformance_spec::hlo::{AttrValue, HloInstruction, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::layout::Layout;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::{ArrayShape, Shape};

/// True for roots this module minimizes.
pub(super) use conformance_spec::collective::is_collective;

/// A collective case: the root over one parameter per operand, on every device (each
/// device's arguments of the same shapes); the module is rebuilt from it.
#[derive(Clone)]
struct Case {
    name: String,
    root: HloInstruction,
    called: Vec<conformance_spec::HloComputation>,
    grid: DeviceGrid,
    /// Per device, its arguments.
    args: Vec<Vec<ArrayLiteral>>,
}

impl Case {
    /// The module: parameters of the first device's argument shapes, the root over them.
    fn module(&self) -> Option<HloModule> {
        let mut b = conformance_spec::hlo::builder::ComputationBuilder::new("main");
        let mut params = Vec::new();
        let shapes: Vec<Shape> = match self.args.first() {
            Some(a) => a.iter().map(|x| Shape::Array(x.shape().clone())).collect(),
            None => vec![],
        };
        for shape in shapes {
            params.push(b.parameter(shape).ok()?);
        }
        let root = b
            .add_instruction(
                self.root.opcode,
                self.root.shape.clone(),
                params,
                self.root.attributes.clone(),
            )
            .ok()?;
        let entry = b.try_build(root).ok()?;
        let mut m = HloModule::with_entry(&self.name, entry, self.called.clone());
        set_grid(&mut m, self.grid);
        Some(m)
    }

    fn flat_args(&self) -> Vec<Literal> {
        self.args
            .iter()
            .flatten()
            .cloned()
            .map(Literal::Array)
            .collect()
    }

    /// The case with attribute `name` set to `value` (in place when present) or removed.
    fn with_attribute(&self, name: &str, value: Option<AttrValue>) -> Case {
        let mut c = self.clone();
        let attrs = &mut c.root.attributes;
        match (attrs.iter().position(|a| a.name == name), value) {
            (Some(k), Some(v)) => attrs[k].value = v,
            (Some(k), None) => {
                attrs.remove(k);
            }
            (None, Some(v)) => attrs.push(conformance_spec::hlo::Attribute {
                name: name.into(),
                value: v,
            }),
            (None, None) => {}
        }
        c
    }
}

/// The case's parameters must be the root's operands, in order (as the sweep builds them).
fn case_of(module: &HloModule, args: &[Literal]) -> Option<Case> {
    let entry = module.entry_computation();
    let root = entry.root_instruction();
    let params = entry.parameters();
    if params.len() != root.operands.len()
        || root
            .operands
            .iter()
            .enumerate()
            .any(|(k, &o)| entry.instructions[o].parameter_number != Some(k as i64))
    {
        return None;
    }
    let grid = DeviceGrid::of(module).ok()?;
    let arrays: Vec<ArrayLiteral> = args
        .iter()
        .cloned()
        .map(Literal::into_array)
        .collect::<Option<_>>()?;
    if arrays.len() != params.len() * grid.devices() {
        return None;
    }
    let per = params.len();
    let per_device = (0..grid.devices())
        .map(|d| arrays[d * per..(d + 1) * per].to_vec())
        .collect();
    Some(Case {
        name: module.name.clone(),
        root: root.clone(),
        called: super::called_computations(module),
        grid,
        args: per_device,
    })
}

/// Keeps `candidate` when it still fails (and its module builds and verifies).
fn try_keep(oracle: &mut Oracle, best: &mut Case, mut candidate: Case) -> bool {
    if resize_root(&mut candidate).is_none() {
        return false;
    }
    let Some(module) = candidate.module() else {
        return false;
    };
    if oracle.fails(&module, &candidate.flat_args()) {
        *best = candidate;
        true
    } else {
        false
    }
}

/// The case on `replicas` replicas: ids at or past the new device count dropped from groups
/// and pairs, the last devices dropped.
fn fewer_replicas(c: &Case, replicas: usize) -> Case {
    let grid = DeviceGrid {
        replicas,
        partitions: c.grid.partitions,
    };
    let limit = replicas * c.grid.partitions;
    let keep = |ids: &[i64]| -> Vec<i64> {
        ids.iter()
            .copied()
            .filter(|&i| (i as usize) < limit)
            .collect()
    };
    let mut n = c.clone();
    if let Ok(groups) = replica_groups(&c.root) {
        if !groups.is_empty() {
            let g: Vec<Vec<i64>> = groups
                .iter()
                .map(|g| keep(g))
                .filter(|g| !g.is_empty())
                .collect();
            n = n.with_attribute("replica_groups", Some(AttrValue::Raw(groups_text(&g))));
        }
    }
    if c.root.opcode == Opcode::CollectivePermute {
        if let Ok(pairs) = source_target_pairs(&c.root) {
            let kept: Vec<Vec<i64>> = pairs
                .into_iter()
                .filter(|&(s, t)| (s as usize) < limit && (t as usize) < limit)
                .map(|(s, t)| vec![s, t])
                .collect();
            n = n.with_attribute(
                "source_target_pairs",
                Some(AttrValue::Raw(groups_text(&kept))),
            );
        }
    }
    n.grid = grid;
    n.args.truncate(grid.devices());
    n
}

/// The size of device 0's group (for the shape rules).
fn group_size(c: &Case) -> Option<i64> {
    conformance_spec::collective::participants(&c.root, c.grid, 0)
        .ok()
        .map(|g| g.len() as i64)
}

/// Recomputes the root's result shape from its operands (and the group size for all-gather
/// and reduce-scatter), keeping result layouts where the rank stays; `None` when the operands
/// no longer fit the group.
fn resize_root(c: &mut Case) -> Option<()> {
    let opcode = c.root.opcode;
    let operands: Vec<ArrayShape> = match c.args.first() {
        Some(a) => a.iter().map(|x| x.shape().clone()).collect(),
        None => return Some(()),
    };
    let mut results: Vec<ArrayShape> = operands.clone();
    if matches!(
        opcode,
        Opcode::AllGather | Opcode::ReduceScatter | Opcode::AllToAll
    ) {
        let g = group_size(c)?;
        let d = *c.root.attr_ints("dimensions")?.first()? as usize;
        let dims = &mut results.first_mut()?.dimensions;
        if d >= dims.len() {
            return None;
        }
        match opcode {
            Opcode::AllGather => dims[d] *= g,
            Opcode::ReduceScatter if dims[d] % g == 0 => dims[d] /= g,
            Opcode::AllToAll if dims[d] % g == 0 => {}
            _ => return None,
        }
    }
    let old: Vec<Shape> = match &c.root.shape {
        Shape::Tuple(items) => items.clone(),
        other => vec![other.clone()],
    };
    let shapes: Vec<Shape> = results
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            let layout = match old.get(k).and_then(Shape::as_array) {
                Some(o) if o.dimensions.len() == r.dimensions.len() => o.layout.clone(),
                _ => Layout::default_for_rank(r.dimensions.len()),
            };
            Shape::Array(ArrayShape::new(r.element_type, r.dimensions).with_layout(layout))
        })
        .collect();
    c.root.shape = if shapes.len() == 1 {
        shapes.into_iter().next()?
    } else {
        Shape::Tuple(shapes)
    };
    Some(())
}

/// Every operand (on every device) cut to the `size.0` elements from index `size.1` along `d`,
/// or without dimension `d` when `size` is `None` (a dimension of size 1).
fn smaller_operands(c: &Case, d: usize, size: Option<(i64, i64)>) -> Case {
    let mut n = c.clone();
    for device in &mut n.args {
        for a in device.iter_mut() {
            let mut sizes = a.dimensions().to_vec();
            let mut out_dims = sizes.clone();
            match size {
                Some((s, _)) => {
                    sizes[d] = s;
                    out_dims[d] = s;
                }
                None => {
                    sizes[d] = 1;
                    out_dims.remove(d);
                }
            }
            let mut out = ArrayLiteral::zeros(ArrayShape::new(a.element_type(), out_dims));
            let offset = size.map_or(0, |(_, o)| o);
            index::for_each_index(&sizes, |i| {
                let to: Vec<i64> = match size {
                    Some(_) => i.to_vec(),
                    None => i
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| k != d)
                        .map(|(_, &x)| x)
                        .collect(),
                };
                let mut from = i.to_vec();
                from[d] += offset;
                out.set_bits(&to, a.get_bits(&from));
            });
            *a = out;
        }
    }
    if size.is_none() {
        // The split or gather dimension moves down past a dropped dimension before it.
        if let Some(&[k]) = n.root.attr_ints("dimensions") {
            let k = k as usize;
            if k == d {
                return c.clone();
            }
            if k > d {
                n = n.with_attribute("dimensions", Some(AttrValue::Ints(vec![k as i64 - 1])));
            }
        }
    }
    n
}

/// Every layout back to the default, arguments included.
fn default_layouts(c: &Case) -> Case {
    let mut n = c.clone();
    for device in &mut n.args {
        for a in device.iter_mut() {
            *a = a.relayout(Layout::default_for_rank(a.shape().rank()));
        }
    }
    let strip = |a: &mut ArrayShape| a.layout = Layout::default_for_rank(a.dimensions.len());
    match &mut n.root.shape {
        Shape::Array(a) => strip(a),
        Shape::Tuple(items) => items
            .iter_mut()
            .filter_map(Shape::as_array_mut)
            .for_each(strip),
        Shape::Token => {}
    }
    n
}

/// The case with the first operand only (a variadic all-reduce).
fn first_operand_only(c: &Case) -> Case {
    let mut n = c.clone();
    for device in &mut n.args {
        device.truncate(1);
    }
    n
}

/// Minimizes a collective case; `None` when the case is not one this module reads (then the
/// generic steps run).
pub(super) fn minimize(
    oracle: &mut Oracle,
    module: &HloModule,
    args: &[Literal],
) -> Option<(HloModule, Vec<Literal>)> {
    let mut best = case_of(module, args)?;
    let start = best.module()?;
    if !oracle.fails(&start, &best.flat_args()) {
        return None;
    }
    // Each kept step makes the case smaller or simpler; the cap guards against two edits that
    // undo each other.
    let mut progress = true;
    let mut rounds = 0;
    while progress && rounds < 64 {
        rounds += 1;
        progress = false;
        // Fewer replicas, the fewest first.
        for r in 1..best.grid.replicas {
            let c = fewer_replicas(&best, r);
            if try_keep(oracle, &mut best, c) {
                progress = true;
                break;
            }
        }
        // Simpler groups, pairs and modes; one operand; default layouts.
        let root = best.root.clone();
        let mut edits: Vec<Case> = Vec::new();
        if let Ok(groups) = replica_groups(&root) {
            if !groups.is_empty() {
                edits.push(
                    best.with_attribute("replica_groups", Some(AttrValue::Raw(groups_text(&[])))),
                );
                if groups.len() > 1 {
                    let all: Vec<i64> = groups.iter().flatten().copied().collect();
                    edits.push(best.with_attribute(
                        "replica_groups",
                        Some(AttrValue::Raw(groups_text(&[all]))),
                    ));
                }
            }
        }
        if root.opcode == Opcode::CollectivePermute {
            if let Ok(pairs) = source_target_pairs(&root) {
                for k in 0..pairs.len() {
                    let rest: Vec<Vec<i64>> = pairs
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != k)
                        .map(|(_, &(s, t))| vec![s, t])
                        .collect();
                    edits.push(best.with_attribute(
                        "source_target_pairs",
                        Some(AttrValue::Raw(groups_text(&rest))),
                    ));
                }
            }
        }
        for name in ["use_global_device_ids", "channel_id"] {
            if root.attribute(name).is_some() {
                edits.push(best.with_attribute(name, None));
            }
        }
        if best.args.first().is_some_and(|a| a.len() > 1) {
            edits.push(first_operand_only(&best));
        }
        let plain = default_layouts(&best);
        if plain.root.shape != best.root.shape
            || plain
                .args
                .iter()
                .flatten()
                .zip(best.args.iter().flatten())
                .any(|(x, y)| x.shape() != y.shape())
        {
            edits.push(plain);
        }
        for e in edits {
            if try_keep(oracle, &mut best, e) {
                progress = true;
            }
        }
        // Smaller operands: each dimension halved, cut to 1 or by one, keeping its first or its
        // last elements (where the disagreement is), or dropped when 1.
        let dims = best
            .args
            .first()
            .and_then(|a| a.first())
            .map(|a| a.dimensions().to_vec())
            .unwrap_or_default();
        for (d, &size) in dims.iter().enumerate().rev() {
            let mut tries: Vec<Option<(i64, i64)>> = [1, size / 2, size - 1]
                .into_iter()
                .filter(|s| (1..size).contains(s))
                .flat_map(|s| [Some((s, 0)), Some((s, size - s))])
                .collect();
            if size == 1 {
                tries.push(None);
            }
            for t in tries {
                let c = smaller_operands(&best, d, t);
                if try_keep(oracle, &mut best, c) {
                    progress = true;
                    break;
                }
            }
        }
    }
    // Values: every element set to zero then one, device by device, by halves.
    for value in [0u8, 1] {
        for d in 0..best.args.len() {
            for k in 0..best.args[d].len() {
                let n = best.args[d][k].shape().element_count();
                let mut chunk = n.max(1);
                loop {
                    let mut start = 0;
                    while start < n {
                        let mut c = best.clone();
                        let a = &mut c.args[d][k];
                        let bits = super::simple_bits(a.element_type(), value);
                        let mut changed = false;
                        let dims = a.dimensions().to_vec();
                        let mut linear = 0usize;
                        index::for_each_index(&dims, |i| {
                            if (start..start + chunk).contains(&linear) && a.get_bits(i) != bits {
                                a.set_bits(i, bits);
                                changed = true;
                            }
                            linear += 1;
                        });
                        if changed {
                            try_keep(oracle, &mut best, c);
                        }
                        start += chunk;
                    }
                    if chunk == 1 {
                        break;
                    }
                    chunk /= 2;
                }
            }
        }
    }
    let module = best.module()?;
    Some((module, best.flat_args()))
}
