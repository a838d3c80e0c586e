//! Collectives judged and minimized by the harness (docs/collectives.md): planted bugs in a
//! backend's collectives (an all-reduce that skips the last replica of each group, a
//! collective-permute that sends to the source instead of the target) are found by a sweep of
//! the generator and minimized to a few replicas and elements.

#[path = "common/planted.rs"]
mod planted;

use conformance_fast::Fast;
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

#[test]
fn an_all_reduce_that_skips_the_last_replica_is_found_and_minimized() {
    let (module, args) = planted::found_and_minimized(
        "all-reduce",
        11,
        &Planted {
            bug: skips_last_replica,
        },
    );
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
    let (module, args) = planted::found_and_minimized(
        "collective-permute",
        11,
        &Planted {
            bug: sends_to_source,
        },
    );
    let grid = DeviceGrid::of(&module).unwrap();
    assert_eq!(grid.replicas, 2, "{module}");
    let root = module.entry_computation().root_instruction();
    assert_eq!(source_target_pairs(root).unwrap().len(), 1, "{module}");
    for a in &args {
        assert_eq!(a.as_array().unwrap().shape().element_count(), 1, "{module}");
    }
}

/// Fast, with the sign of every NaN in a device's result flipped: a disagreement wherever the
/// generator put a NaN, at the end of an array as often as at its start, which the minimizer
/// reaches by keeping leading or trailing elements.
struct NanSignFlipped;

impl Backend for NanSignFlipped {
    fn name(&self) -> &str {
        "nan-sign-flipped"
    }
    fn capabilities(&self) -> Capabilities {
        Fast::new().capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        let flip = |l: Literal| match l {
            Literal::Array(mut a) if a.element_type() == conformance_spec::ElementType::F32 => {
                let bits: Vec<u128> = a
                    .logical_bits()
                    .into_iter()
                    .map(|b| {
                        if f32::from_bits(b as u32).is_nan() {
                            b ^ 0x8000_0000
                        } else {
                            b
                        }
                    })
                    .collect();
                a = conformance_spec::ArrayLiteral::from_bits(a.shape().clone(), &bits)
                    .map_err(|e| BackendError::Failure(e.to_string()))?;
                Ok(Literal::Array(a))
            }
            other => Ok(other),
        };
        match Fast::new().execute(module, args)? {
            Literal::Tuple(devices) => devices
                .into_iter()
                .map(flip)
                .collect::<Result<_, _>>()
                .map(Literal::Tuple),
            one => flip(one),
        }
    }
}

#[test]
fn a_nan_anywhere_in_the_operands_is_minimized_to_one_element() {
    let (module, args) = planted::found_and_minimized("all-gather", 11, &NanSignFlipped);
    for a in &args {
        assert_eq!(a.as_array().unwrap().shape().element_count(), 1, "{module}");
    }
}

/// Collectives in JAX's entry form (`--tuple-root`): each device returns a one-element tuple, and
/// the harness judges every device's element by the collective's own tolerance model (a
/// cross-replica sum in bf16 differs from the reference's order by ULPs inside its sum bound):
/// fast agrees on every case; a backend that drops the tuple fails.
#[test]
fn tuple_rooted_collectives_are_judged_per_device_element() {
    use conformance::run::{run_with_backends, Budget, RunOptions};
    use std::sync::Arc;

    /// Fast's results with each device's one-element tuple dropped.
    struct Untupling;
    impl Backend for Untupling {
        fn name(&self) -> &str {
            "untupling"
        }
        fn capabilities(&self) -> Capabilities {
            Fast::new().capabilities()
        }
        fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
            let drop = |l: Literal| match l {
                Literal::Tuple(mut v) if v.len() == 1 => v.remove(0),
                other => other,
            };
            Ok(match Fast::new().execute(module, args)? {
                Literal::Tuple(per_device) if DeviceGrid::of(module)?.devices() > 1 => {
                    Literal::Tuple(per_device.into_iter().map(drop).collect())
                }
                other => drop(other),
            })
        }
    }

    let catalog = conformance_spec::catalog::Catalog::builtin().unwrap();
    let mut options = RunOptions::new(11, Budget::Cases(60));
    options.filters.ops = vec![
        "all-reduce".into(),
        "cross-replica-sum".into(),
        "all-gather".into(),
        "reduce-scatter".into(),
    ];
    options.filters.dtypes = vec!["bf16".into(), "f32".into()];
    options.generator.tuple_root = true;
    options.workers = Some(2);
    let run = |b: Arc<dyn Backend>| {
        let backends: Vec<Arc<dyn Backend>> = vec![Arc::new(conformance_reference::Reference), b];
        run_with_backends(&catalog, &options, backends, &mut std::io::sink()).unwrap()
    };
    let fast = run(Arc::new(Fast::new()));
    let count = |s: &conformance::run::RunSummary,
                 f: &dyn Fn(&conformance::run::CellStats) -> u64| {
        s.cells.values().map(f).sum::<u64>()
    };
    assert_eq!(
        count(&fast, &|c| c.fail + c.error),
        0,
        "{:#?}",
        fast.failures
    );
    assert!(count(&fast, &|c| c.pass) >= 55);
    let untupling = run(Arc::new(Untupling));
    // Roots that already were tuples (variadic all-reduce) are not wrapped: those pass.
    let combos =
        conformance::generate::plan_sweep(&catalog, &options.filters, &options.generator).unwrap();
    let wrapped = (0..60)
        .filter(|&i| {
            let case =
                conformance::generate::case(&catalog, &combos, &options.generator, 11, i).unwrap();
            let root = case.module.entry_computation().root_instruction();
            root.opcode == Opcode::Tuple && root.operands.len() == 1
        })
        .count() as u64;
    let (fail, pass) = (
        count(&untupling, &|c| c.fail),
        count(&untupling, &|c| c.pass),
    );
    assert!(wrapped >= 40, "{wrapped} of 60 wrapped");
    assert_eq!(
        (fail, pass),
        (wrapped, 60 - wrapped),
        "every wrapped case fails without its tuple"
    );
}
