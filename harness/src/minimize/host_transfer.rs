//! Minimizing a case of tokens and host transfers (seed 004: AfterAll, Infeed, Send, Recv;
//! XLA's Outfeed; `conformance_spec::host_transfer`): the module is edited as a whole, each
//! candidate kept only while the disagreement persists (and the module verifies). Candidates:
//! fewer replicas (the channels' pairs restricted to the remaining devices, the last devices'
//! arguments dropped); a shorter queue, an infeed of the entry turned into a parameter holding
//! the value it read (the queue shrinks by one); an outfeed removed (its token users take its
//! token operand); an element of the root tuple dropped; everything the root does not use
//! removed; then each argument set to zeros or ones.

use super::Oracle;
use conformance_spec::collective::{groups_text, set_grid, DeviceGrid};
use conformance_spec::hlo::{AttrValue, HloComputation, HloInstruction, HloModule, Opcode};
use conformance_spec::host_transfer::{module_has, SEND_RECV_PAIRS};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;

/// True for the modules this module minimizes: those with a token or transfer instruction.
pub(super) fn applies(module: &HloModule) -> bool {
    module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .any(|i| conformance_spec::host_transfer::is_host_transfer(i.opcode))
}

#[derive(Clone)]
struct Case {
    module: HloModule,
    /// Per device, its arguments (parameters, then its infeed queue).
    args: Vec<Vec<Literal>>,
}

impl Case {
    fn flat(&self) -> Vec<Literal> {
        self.args.iter().flatten().cloned().collect()
    }

    fn entry(&self) -> &HloComputation {
        self.module.entry_computation()
    }

    /// The case with the entry computation replaced.
    fn with_entry(&self, entry: HloComputation) -> Case {
        let mut c = self.clone();
        let e = c.module.entry;
        c.module.computations[e] = entry;
        c
    }
}

/// Keeps `edit(best)` when it still fails.
fn try_edit(
    oracle: &mut Oracle,
    best: &mut Case,
    edit: impl FnOnce(&Case) -> Option<Case>,
) -> bool {
    let candidate = edit(best);
    keep(oracle, best, candidate)
}

fn keep(oracle: &mut Oracle, best: &mut Case, candidate: Option<Case>) -> bool {
    let Some(c) = candidate else {
        return false;
    };
    if oracle.fails(&c.module, &c.flat()) {
        *best = c;
        true
    } else {
        false
    }
}

/// `comp` without instruction `j`, its uses replaced by instruction `by` (`by < j`).
fn remove(comp: &HloComputation, j: usize, by: usize) -> Option<HloComputation> {
    if by >= j || comp.root == j {
        return None;
    }
    let map = |o: usize| match o.cmp(&j) {
        std::cmp::Ordering::Less => o,
        std::cmp::Ordering::Equal => by,
        std::cmp::Ordering::Greater => o - 1,
    };
    let mut instructions = Vec::with_capacity(comp.instructions.len() - 1);
    for (i, instr) in comp.instructions.iter().enumerate() {
        if i == j {
            continue;
        }
        let mut copy = instr.clone();
        copy.operands = copy.operands.iter().map(|&o| map(o)).collect();
        instructions.push(copy);
    }
    Some(HloComputation {
        name: comp.name.clone(),
        instructions,
        root: map(comp.root),
    })
}

/// The first `r` replicas: pairs restricted to them, the other devices' arguments dropped.
fn fewer_replicas(c: &Case, r: usize) -> Option<Case> {
    let mut n = c.clone();
    for comp in &mut n.module.computations {
        for instr in &mut comp.instructions {
            if !matches!(instr.opcode, Opcode::Send | Opcode::Recv) {
                continue;
            }
            let pairs = conformance_spec::host_transfer::channel_pairs(
                instr,
                DeviceGrid {
                    replicas: c.args.len(),
                    partitions: 1,
                },
            )
            .ok()?;
            let kept: Vec<Vec<i64>> = pairs
                .into_iter()
                .filter(|&(s, t)| s < r && t < r)
                .map(|(s, t)| vec![s as i64, t as i64])
                .collect();
            let a = instr
                .attributes
                .iter_mut()
                .find(|a| a.name == "frontend_attributes")?;
            a.value = AttrValue::Raw(format!("{{{SEND_RECV_PAIRS}=\"{}\"}}", groups_text(&kept)));
        }
    }
    set_grid(
        &mut n.module,
        DeviceGrid {
            replicas: r,
            partitions: 1,
        },
    );
    n.args.truncate(r);
    Some(n)
}

/// Infeed `j` of the entry (the `k`-th that reads a value) turned into a new last parameter
/// holding, on each device, the value it read; its token users take its token operand.
fn infeed_to_parameter(c: &Case, j: usize, k: usize) -> Option<Case> {
    let entry = c.entry();
    let infeed = &entry.instructions[j];
    let Shape::Tuple(parts) = &infeed.shape else {
        return None;
    };
    let data = parts.first()?.clone();
    let token = *infeed.operands.first()?;
    let params = entry.parameters().len();
    // The parameter goes first (indices shift by one); then the infeed's uses are rewired.
    let mut instructions = Vec::with_capacity(entry.instructions.len() + 1);
    instructions.push(HloInstruction {
        name: format!("{}.read", infeed.name),
        opcode: Opcode::Parameter,
        shape: data.clone(),
        operands: vec![],
        parameter_number: Some(params as i64),
        literal: None,
        attributes: vec![],
    });
    for instr in &entry.instructions {
        let mut copy = instr.clone();
        copy.operands = copy.operands.iter().map(|&o| o + 1).collect();
        instructions.push(copy);
    }
    let j1 = j + 1;
    let mut comp = HloComputation {
        name: entry.name.clone(),
        instructions,
        root: entry.root + 1,
    };
    // get-tuple-element(infeed, 0) becomes the parameter, (infeed, 1) its token operand.
    for i in (j1 + 1..comp.instructions.len()).rev() {
        let instr = &comp.instructions[i];
        if instr.opcode == Opcode::GetTupleElement && instr.operands == [j1] {
            let by = match instr.attr_int("index") {
                Some(0) => 0,
                Some(1) => token + 1,
                _ => return None,
            };
            comp = remove(&comp, i, by)?;
        }
    }
    if comp.instructions.iter().any(|i| i.operands.contains(&j1)) {
        return None;
    }
    // The infeed itself, now used by no one.
    comp.instructions.remove(j1);
    for instr in &mut comp.instructions {
        for o in &mut instr.operands {
            if *o > j1 {
                *o -= 1;
            }
        }
    }
    if comp.root > j1 {
        comp.root -= 1;
    }
    let mut n = c.with_entry(comp);
    for device in &mut n.args {
        let value = device.get(params + k)?.clone();
        if !data.compatible(&value.shape()) {
            return None;
        }
        device.remove(params + k);
        device.insert(params, value);
    }
    Some(n)
}

/// Outfeed `j` removed, its users given its token operand.
fn without_outfeed(c: &Case, j: usize) -> Option<Case> {
    let token = *c.entry().instructions[j].operands.get(1)?;
    Some(c.with_entry(remove(c.entry(), j, token)?))
}

/// The root tuple without element `k` (the rest kept, side effects included).
fn without_root_element(c: &Case, k: usize) -> Option<Case> {
    let entry = c.entry();
    let root = entry.root_instruction();
    if root.opcode != Opcode::Tuple || root.operands.len() < 2 {
        return None;
    }
    let Shape::Tuple(parts) = &root.shape else {
        return None;
    };
    let mut comp = entry.clone();
    let r = &mut comp.instructions[comp.root];
    r.operands.remove(k);
    let mut parts = parts.clone();
    parts.remove(k);
    r.shape = Shape::Tuple(parts);
    Some(c.with_entry(comp))
}

/// Every argument of `(device, index)` set to all zeros or all ones.
fn constant_argument(c: &Case, device: usize, index: usize, one: bool) -> Option<Case> {
    let mut n = c.clone();
    let Literal::Array(a) = n.args.get(device)?.get(index)? else {
        return None;
    };
    let bits = super::simple_bits(a.element_type(), u8::from(one));
    let values = vec![bits; a.shape().element_count()];
    let lit = ArrayLiteral::from_bits(
        conformance_spec::ArrayShape::new(a.element_type(), a.dimensions().to_vec()),
        &values,
    )
    .ok()?
    .relayout(a.shape().layout.clone());
    if lit.logical_eq(a) {
        return None;
    }
    n.args[device][index] = Literal::Array(lit);
    Some(n)
}

/// Minimizes a transfer case; `None` when the case does not split into devices or does not
/// fail to begin with.
pub(super) fn minimize(
    oracle: &mut Oracle,
    module: &HloModule,
    args: &[Literal],
) -> Option<(HloModule, Vec<Literal>)> {
    let grid = DeviceGrid::of(module).ok()?;
    let per_device = conformance_spec::collective::split_arguments(grid, args).ok()?;
    let mut best = Case {
        module: module.clone(),
        args: per_device.into_iter().map(<[Literal]>::to_vec).collect(),
    };
    if grid.partitions != 1 || !oracle.fails(&best.module, &best.flat()) {
        return None;
    }
    let mut rounds = 0;
    let mut progress = true;
    while progress && rounds < 64 {
        rounds += 1;
        progress = false;
        for r in 1..best.args.len() {
            if try_edit(oracle, &mut best, |b| fewer_replicas(b, r)) {
                progress = true;
                break;
            }
        }
        // Infeeds of the entry read the queue in text order when no other computation reads.
        let entry_only = best.module.computations.iter().enumerate().all(|(k, c)| {
            k == best.module.entry || !c.instructions.iter().any(|i| i.opcode == Opcode::Infeed)
        });
        if entry_only {
            let mut k = 0;
            let reads: Vec<(usize, usize)> = best
                .entry()
                .instructions
                .iter()
                .enumerate()
                .filter(|(_, i)| i.opcode == Opcode::Infeed)
                .filter(|(_, i)| !matches!(&i.shape, Shape::Tuple(p) if matches!(p.first(), Some(Shape::Tuple(t)) if t.is_empty())))
                .map(|(j, _)| {
                    k += 1;
                    (j, k - 1)
                })
                .collect();
            for &(j, k) in reads.iter().rev() {
                if try_edit(oracle, &mut best, |b| infeed_to_parameter(b, j, k)) {
                    progress = true;
                    break;
                }
            }
        }
        // A queue value nobody reads.
        if module_has(&best.module, Opcode::Infeed) {
            let params = best.entry().parameters().len();
            if best.args.iter().all(|a| a.len() > params) {
                let mut c = best.clone();
                c.args.iter_mut().for_each(|a| {
                    a.pop();
                });
                progress |= keep(oracle, &mut best, Some(c));
            }
        }
        let outfeeds: Vec<usize> = best
            .entry()
            .instructions
            .iter()
            .enumerate()
            .filter(|(_, i)| i.opcode == Opcode::Outfeed)
            .map(|(j, _)| j)
            .collect();
        for &j in outfeeds.iter().rev() {
            if try_edit(oracle, &mut best, |b| without_outfeed(b, j)) {
                progress = true;
                break;
            }
        }
        let width = match &best.entry().root_instruction().shape {
            Shape::Tuple(p) => p.len(),
            _ => 0,
        };
        for k in (0..width).rev() {
            if try_edit(oracle, &mut best, |b| without_root_element(b, k)) {
                progress = true;
                break;
            }
        }
        let root = best.entry().root;
        let dead = conformance_spec::hlo::transform::with_root(&best.module, root);
        if dead.entry_computation().instructions.len() < best.entry().instructions.len() {
            let c = Case {
                module: dead,
                args: best.args.clone(),
            };
            progress |= keep(oracle, &mut best, Some(c));
        }
    }
    for one in [false, true] {
        for d in 0..best.args.len() {
            for i in 0..best.args[d].len() {
                try_edit(oracle, &mut best, |b| constant_argument(b, d, i, one));
            }
        }
    }
    let args = best.flat();
    Some((best.module, args))
}
