//! Unit tests of `conformance replay` and `minimize` on planted bugs (a backend wrong in one
//! kernel) in JAX dumps.

use super::*;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::{BackendError, Capabilities};
use std::path::PathBuf;

/// The fast backend run instruction by instruction, except that every `opcode` instruction
/// (producing `element_type` when given) has the lowest bit of its first element flipped: a
/// bug in one kernel, wherever the instruction sits in the graph.
struct Buggy {
    opcode: Opcode,
    element_type: Option<&'static str>,
}

impl Backend for Buggy {
    fn name(&self) -> &str {
        "buggy"
    }
    fn capabilities(&self) -> Capabilities {
        Fast::new().capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        let entry = module.entry_computation();
        let mut values: Vec<Literal> = Vec::new();
        for instruction in &entry.instructions {
            let value = match instruction.opcode {
                Opcode::Parameter => args[instruction.parameter_number.unwrap() as usize].clone(),
                Opcode::Tuple => Literal::Tuple(
                    instruction
                        .operands
                        .iter()
                        .map(|&o| values[o].clone())
                        .collect(),
                ),
                _ => {
                    let operands: Vec<ArrayLiteral> = instruction
                        .operands
                        .iter()
                        .map(|&o| values[o].as_array().unwrap().clone())
                        .collect();
                    let (single, single_args) =
                        crate::minimize::single_op_module(instruction, &operands);
                    let mut out = Fast::new().execute(&single, &single_args)?;
                    let type_matches = self.element_type.is_none_or(|t| {
                        out.as_array()
                            .is_some_and(|a| a.element_type().to_string() == t)
                    });
                    if let (true, true, Literal::Array(a)) =
                        (instruction.opcode == self.opcode, type_matches, &mut out)
                    {
                        let bits = a.get_bits_linear(0);
                        a.set_bits_linear(0, bits ^ 1);
                    }
                    out
                }
            };
            values.push(value);
        }
        Ok(values.swap_remove(entry.root))
    }
}

fn dump(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/tests/data/jax")
        .join(name)
}

fn f32s(dims: &[i64], values: &[f64]) -> Literal {
    let shape = conformance_spec::hlo::parse_shape(&format!(
        "f32[{}]",
        dims.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    ))
    .unwrap();
    Literal::Array(ArrayLiteral::from_f64s(shape.as_array().unwrap().clone(), values).unwrap())
}

fn run(file: &str, bug: &Buggy, args: Option<Vec<Literal>>) -> (Vec<Checked>, Vec<String>) {
    run_with(&Catalog::builtin().unwrap(), file, bug, args)
}

fn run_with(
    catalog: &Catalog,
    file: &str,
    bug: &Buggy,
    args: Option<Vec<Literal>>,
) -> (Vec<Checked>, Vec<String>) {
    let catalog = catalog.clone();
    let mut loaded = load(&catalog, &dump(file), 1, &[]).unwrap();
    if let Some(args) = args {
        loaded.args = args;
    }
    let refs: [&dyn Backend; 2] = [&Reference, bug];
    let checked = loaded
        .targets
        .iter()
        .map(|t| check_target(&catalog, t, &loaded.args, &refs).unwrap())
        .collect();
    let leaves = loaded
        .targets
        .iter()
        .filter_map(|t| t.leaf.clone())
        .collect();
    (checked, leaves)
}

fn clip_args(x0: f64) -> Option<Vec<Literal>> {
    Some(vec![f32s(&[2, 3], &[x0, -0.25, 0.1, 2.0, -3.0, 0.0])])
}

#[test]
fn a_bug_inside_a_called_computation_is_localized_there() {
    let bug = Buggy {
        opcode: Opcode::Maximum,
        element_type: None,
    };
    let (checked, _) = run("clip.hlo", &bug, clip_args(0.5));
    let [c] = checked.as_slice() else {
        panic!("one target")
    };
    assert_eq!(c.outcome.outcomes[0].verdict, Verdict::Fail);
    let fault = c.fault.as_ref().expect("localized");
    assert_eq!(
        fault.instruction, "max.3",
        "the instruction inside `clip.1`"
    );
    assert_eq!(fault.op, "maximum");
    // Without the bug the dump passes.
    let fine = Buggy {
        opcode: Opcode::Tuple,
        element_type: None,
    };
    let (checked, _) = run("clip.hlo", &fine, clip_args(0.5));
    assert_eq!(checked[0].outcome.outcomes[0].verdict, Verdict::Pass);
}

#[test]
fn a_call_rooted_dump_is_minimized_from_the_instruction_at_fault() {
    let catalog = Catalog::builtin().unwrap();
    let file = dump("clip.hlo");
    let mut loaded = load(&catalog, &file, 1, &[]).unwrap();
    loaded.args = clip_args(0.5).unwrap();
    let bug = Buggy {
        opcode: Opcode::Maximum,
        element_type: None,
    };
    let refs: [&dyn Backend; 2] = [&Reference, &bug];
    let dir = std::env::temp_dir().join(format!("conformance-replay-{}", std::process::id()));
    let replay = replay_invocation(&file, &loaded.inputs_from, &["buggy".to_string()]);
    let provenance = loaded.inputs_from.provenance(replay.clone());
    let case = minimize_loaded(&catalog, loaded, &refs, replay, provenance, &dir)
        .unwrap()
        .expect("a disagreement");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(case.op, "maximum");
    let module = case.module().unwrap();
    let instructions = &module.entry_computation().instructions;
    assert_eq!(
        instructions.len(),
        3,
        "maximum of two parameters: {}",
        case.hlo
    );
    assert_eq!(
        module.entry_computation().root_instruction().opcode,
        Opcode::Maximum
    );
}

#[test]
fn a_bug_in_an_instruction_without_catalog_entry_stays_a_failure() {
    let bug = Buggy {
        opcode: Opcode::Broadcast,
        element_type: None,
    };
    // With the data-movement family, the wrong broadcast is localized.
    let (checked, _) = run("clip.hlo", &bug, clip_args(2.0));
    let fault = checked[0].fault.as_ref().expect("localized");
    assert_eq!(fault.instruction, "min.2");
    // Without it (a catalog of the element-wise family only), the broadcast cannot be judged
    // alone: the root's failure stands, unlocalized, naming where localization stopped.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/ops/elementwise.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let elementwise = Catalog::from_sources(&[(root.display().to_string(), text)]).unwrap();
    let (checked, _) = run_with(&elementwise, "clip.hlo", &bug, clip_args(2.0));
    let c = &checked[0];
    assert_eq!(c.outcome.outcomes[0].verdict, Verdict::Fail);
    assert!(c.fault.is_none());
    let why = c.unlocalized.as_deref().unwrap_or_default();
    assert!(why.contains("`min.2` (broadcast)"), "{why}");
}

#[test]
fn a_tuple_root_is_checked_leaf_by_leaf() {
    let bug = Buggy {
        opcode: Opcode::BitcastConvert,
        element_type: Some("u8"),
    };
    let (checked, leaves) = run("bitcast.hlo", &bug, None);
    assert_eq!(leaves, ["bitcast_convert_type.2", "bitcast_convert_type.3"]);
    assert_eq!(checked[0].outcome.outcomes[0].verdict, Verdict::Pass);
    assert_eq!(checked[1].outcome.outcomes[0].verdict, Verdict::Fail);
}
