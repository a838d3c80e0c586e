//! Collectives judged and minimized by the harness (docs/collectives.md): planted bugs in a
//! backend's collectives (an all-reduce that skips the last replica of each group, a
//! collective-permute that sends to the source instead of the target) are found by a sweep of
//! the generator and minimized to a few replicas and elements.

use conformance::check::{check, Verdict};
use conformance::executor::Stage;
use conformance::generate::{case, plan, Filters, GeneratorConfig};
use conformance::minimize::{minimize, Target};
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::collective::{groups_text, replica_groups, source_target_pairs, DeviceGrid};
use conformance_spec::hlo::{AttrValue, Opcode};
use conformance_spec::{Backend, BackendError, Capabilities, HloModule, Literal};

/// Fast, with its collective rewritten by `bug` before running.
struct Planted {
    bug: fn(&mut conformance_spec::HloInstruction),
}

impl Backend for Planted {
    fn name(&self) -> &str {
        "planted"
    }
    fn capabilities(&self) -> Capabilities {
        Fast::new().capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        let mut m = module.clone();
        let entry = &mut m.computations[m.entry];
        for instr in entry.instructions.iter_mut() {
            (self.bug)(instr);
        }
        Fast::new().execute(&m, args)
    }
}

fn set(instr: &mut conformance_spec::HloInstruction, name: &str, text: String) {
    instr.attributes.retain(|a| a.name != name);
    instr.attributes.push(conformance_spec::hlo::Attribute {
        name: name.into(),
        value: AttrValue::Raw(text),
    });
}

/// The last replica of each group is left out of its group's reduction (it reduces alone).
fn skips_last_replica(instr: &mut conformance_spec::HloInstruction) {
    if instr.opcode != Opcode::AllReduce || instr.attribute("channel_id").is_some() {
        return;
    }
    let Ok(groups) = replica_groups(instr) else {
        return;
    };
    if groups.is_empty() {
        return; // the number of replicas is the module's; left to the groups given.
    }
    let mut out = Vec::new();
    for g in groups {
        match g.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                out.push(rest.to_vec());
                out.push(vec![*last]);
            }
            _ => out.push(g),
        }
    }
    set(instr, "replica_groups", groups_text(&out));
}

/// Each pair's operand goes back to its source.
fn sends_to_source(instr: &mut conformance_spec::HloInstruction) {
    if instr.opcode != Opcode::CollectivePermute {
        return;
    }
    let Ok(pairs) = source_target_pairs(instr) else {
        return;
    };
    let swapped: Vec<Vec<i64>> = pairs.iter().map(|&(s, t)| vec![t, s]).collect();
    set(instr, "source_target_pairs", groups_text(&swapped));
}

/// Sweeps `op` until the planted bug shows, then minimizes the case.
fn found_and_minimized(
    op_id: &str,
    bug: fn(&mut conformance_spec::HloInstruction),
) -> (HloModule, Vec<Literal>) {
    let catalog = Catalog::builtin().unwrap();
    let op = catalog.op(op_id).unwrap();
    let filters = Filters {
        ops: vec![op_id.into()],
        dtypes: vec!["s32".into(), "f32".into()],
    };
    let combos = plan(&catalog, &filters).unwrap();
    let config = GeneratorConfig::default();
    let planted = Planted { bug };
    let backends: [&dyn Backend; 2] = [&Reference, &planted];
    for index in 0..400u64 {
        let c = case(&catalog, &combos, &config, 11, index).unwrap();
        let outcome = check(op, &c.module, &c.args, &backends, &Stage::default());
        let o = &outcome.outcomes[0];
        if o.verdict != Verdict::Fail {
            continue;
        }
        let target = Target {
            backend: 1,
            verdict: Verdict::Fail,
            class: o
                .comparison
                .as_ref()
                .and_then(|c| c.classes.keys().next().copied()),
        };
        let m = minimize(op, &c.module, &c.args, &backends, target).unwrap();
        // Still the planted bug, and the fixed backend agrees on the minimized case.
        let again = check(op, &m.module, &m.args, &backends, &Stage::default());
        assert_eq!(again.outcomes[0].verdict, Verdict::Fail);
        let fixed: [&dyn Backend; 2] = [&Reference, &Fast::new()];
        let fine = check(op, &m.module, &m.args, &fixed, &Stage::default());
        assert_eq!(fine.outcomes[0].verdict, Verdict::Pass, "{}", m.module);
        return (m.module, m.args);
    }
    panic!("the planted bug in {op_id} was not found in 400 cases");
}

#[test]
fn an_all_reduce_that_skips_the_last_replica_is_found_and_minimized() {
    let (module, args) = found_and_minimized("all-reduce", skips_last_replica);
    let grid = DeviceGrid::of(&module).unwrap();
    // Two replicas in one group suffice; one element each.
    assert_eq!(grid.replicas, 2, "{module}");
    assert_eq!(args.len(), 2, "{module}");
    for a in &args {
        assert_eq!(a.as_array().unwrap().shape().element_count(), 1, "{module}");
    }
}

#[test]
fn a_collective_permute_that_sends_to_the_source_is_found_and_minimized() {
    let (module, args) = found_and_minimized("collective-permute", sends_to_source);
    let grid = DeviceGrid::of(&module).unwrap();
    assert_eq!(grid.replicas, 2, "{module}");
    let root = module.entry_computation().root_instruction();
    assert_eq!(source_target_pairs(root).unwrap().len(), 1, "{module}");
    for a in &args {
        assert_eq!(a.as_array().unwrap().shape().element_count(), 1, "{module}");
    }
}
