use super::*;
use crate::corpus::{self, CorpusCase};
use conformance_spec::hlo::HloModule;
use conformance_spec::index;
use conformance_spec::literal::Literal;
use conformance_spec::{BackendError, Capabilities};
use layout_index::layout_shape;
use std::collections::BTreeSet;

fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("conformance-fuzzing-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The fast backend with the top bit of every result element flipped (the sign of a float).
struct SignFlip(Fast);

impl Backend for SignFlip {
    fn name(&self) -> &str {
        "sign-flip"
    }
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
    fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
        flip_signs(self.0.execute(module, args)?)
    }
}

/// Every element of every array of `out` with its top bit flipped (through tuples, such as the
/// one-element tuple of a `--tuple-root` case's JAX entry form).
fn flip_signs(out: Literal) -> Result<Literal, BackendError> {
    match out {
        Literal::Array(mut a) => {
            let top = 1u128 << (a.element_type().byte_width() * 8 - 1);
            let dims = a.dimensions().to_vec();
            index::for_each_index(&dims, |i| {
                let b = a.get_bits(i);
                a.set_bits(i, b ^ top);
            });
            Ok(Literal::Array(a))
        }
        Literal::Tuple(elements) => Ok(Literal::Tuple(
            elements
                .into_iter()
                .map(flip_signs)
                .collect::<Result<_, _>>()?,
        )),
        Literal::Token => Err(BackendError::Failure("expected an array".into())),
    }
}

/// A backend that fails on every case.
struct Refuses;

impl Backend for Refuses {
    fn name(&self) -> &str {
        "refuses"
    }
    fn capabilities(&self) -> Capabilities {
        Fast::new().capabilities()
    }
    fn execute(&self, _: &HloModule, _: &[Literal]) -> Result<Literal, BackendError> {
        Err(BackendError::Failure("planted failure".into()))
    }
}

#[test]
fn zero_bytes_build_the_first_combo_without_swarm_and_cases_are_deterministic() {
    let (catalog, combos) = catalog_and_combos().unwrap();
    let fc = diff_op_case(&[]).unwrap();
    assert_eq!(fc.case.op_id, catalog.ops()[combos[0].op_index].id);
    assert!(fc.config.swarm.is_none());
    let data = random_bytes(7, 300);
    let (a, b) = (diff_op_case(&data).unwrap(), diff_op_case(&data).unwrap());
    assert_eq!(a.case.module, b.case.module);
    assert_eq!(
        a.case
            .args
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>(),
        b.case
            .args
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
    );
}

#[test]
fn random_inputs_reach_many_operations_types_and_swarm_configurations() {
    let (mut ops, mut types, mut swarms) = (BTreeSet::new(), BTreeSet::new(), 0);
    for seed in 0..200 {
        let fc = diff_op_case(&random_bytes(seed, 256)).unwrap();
        ops.insert(fc.case.op_id.clone());
        types.insert(fc.case.element_type);
        swarms += fc.config.swarm.is_some() as usize;
    }
    assert!(ops.len() >= 40, "{} operations: {ops:?}", ops.len());
    assert!(types.len() >= 12, "{} element types", types.len());
    assert!(
        (50..150).contains(&swarms),
        "{swarms} swarm configurations of 200"
    );
}

#[test]
fn the_fast_backend_agrees_with_the_reference_on_random_inputs() {
    for seed in 1000..1030 {
        if let Err(d) = diff_op(&random_bytes(seed, 512)) {
            panic!("{d}");
        }
    }
}

#[test]
fn a_planted_bug_is_reported_with_the_module_inputs_differences_and_commands() {
    let flip = SignFlip(Fast::new());
    let backends: [&dyn Backend; 2] = [&Reference, &flip];
    let found = (0..50)
        .find_map(|seed| differential(Target::DiffOp, &random_bytes(seed, 256), &backends).err())
        .expect("a sign-flipping backend is caught within 50 inputs");
    assert_eq!(
        found.kind,
        DiscrepancyKind::Backend {
            backend: "sign-flip".into(),
            verdict: Verdict::Fail
        }
    );
    assert!(!found.diffs.is_empty());
    let text = found.to_string();
    assert!(text.contains("HloModule"), "{text}");
    assert!(text.contains("input 0: "), "{text}");
    assert!(text.contains(" expected "), "{text}");
    assert!(
        text.contains("reproduce: cargo +nightly fuzz run diff_op ARTIFACT"),
        "{text}"
    );
    assert!(
        text.contains(
            "CONFORMANCE_MINIMIZE_DIR=corpus/regressions cargo +nightly fuzz run diff_op"
        ),
        "{text}"
    );
}

#[test]
fn a_failing_backend_is_minimized_to_a_corpus_file_that_replays_its_verdict() {
    let backends: [&dyn Backend; 2] = [&Reference, &Refuses];
    let data = random_bytes(3, 400);
    let d = differential(Target::DiffOp, &data, &backends).unwrap_err();
    assert_eq!(
        d.kind,
        DiscrepancyKind::Backend {
            backend: "refuses".into(),
            verdict: Verdict::Error
        }
    );
    let dir = scratch_dir("minimize");
    let path = minimize_input(Target::DiffOp, &data, &dir, &backends).unwrap();
    let case = CorpusCase::load(&path).unwrap();
    assert_eq!(case.backend, "refuses");
    assert_eq!(case.verdict, Verdict::Error);
    assert!(case
        .provenance
        .command
        .contains("cargo +nightly fuzz run diff_op"));
    assert!(case.provenance.generator.starts_with("diff_op fuzz target"));
    // Cut to the root over parameters, with few elements.
    assert_eq!(case.hlo.matches(" parameter(").count(), case.inputs.len());
    let elements: usize = case.inputs.iter().map(|i| i.bits.len()).sum();
    assert!(elements <= 8, "{:?}", case.inputs);
    let (catalog, _) = catalog_and_combos().unwrap();
    let replayed = corpus::replay(catalog, &case, &backends).unwrap();
    assert!(replayed[0].reproduces(&case));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn minimizing_an_input_on_which_the_backends_agree_is_an_error() {
    let e = diff_op_minimize(&[], &scratch_dir("agree")).unwrap_err();
    assert!(e.contains("nothing to minimize"), "{e}");
}

#[test]
fn quietly_turns_a_panic_into_its_message() {
    assert_eq!(quietly(|| 5), Ok(5));
    assert_eq!(
        quietly(|| -> i32 { panic!("planted {}", 1) }),
        Err("planted 1".to_string())
    );
}

#[test]
fn the_reproduce_command_recreates_the_input_bytes() {
    assert_eq!(
        reproduce_command("diff_op", &[0, 0xab, 7]),
        "printf %s '00ab07' | xxd -r -p > diff_op.input && cargo +nightly fuzz run diff_op diff_op.input"
    );
}

#[test]
fn random_inputs_build_varied_graphs_that_the_fast_backend_computes_like_the_reference() {
    let (mut built, mut swarms, mut instructions) = (0, 0, BTreeSet::new());
    for seed in 0..60 {
        let data = random_bytes(seed, 1500);
        let Some(fc) = diff_graph_case(&data).unwrap() else {
            continue;
        };
        assert_eq!(fc.case.row, "graph");
        built += 1;
        swarms += fc.config.swarm.is_some() as usize;
        instructions.insert(fc.case.module.entry_computation().instructions.len());
        if seed < 15 {
            if let Err(d) = diff_graph(&data) {
                panic!("{d}");
            }
        }
    }
    assert!(built >= 50, "{built} of 60 inputs built a graph");
    assert!(
        swarms >= 10 && swarms < built,
        "{swarms} swarm configurations"
    );
    assert!(instructions.len() >= 6, "graph sizes {instructions:?}");
    assert!(diff_graph_case(&[]).unwrap().is_some());
}

#[test]
fn a_planted_bug_in_a_graph_is_localized_and_minimized_from_the_instruction_at_fault() {
    let flip = SignFlip(Fast::new());
    let backends: [&dyn Backend; 2] = [&Reference, &flip];
    let (data, found) = (0..50)
        .find_map(|seed| {
            let data = random_bytes(seed, 1200);
            differential(Target::DiffGraph, &data, &backends)
                .err()
                .map(|d| (data, d))
        })
        .expect("a sign-flipping backend is caught within 50 graphs");
    let fault = found.fault.clone().expect("the disagreement is localized");
    assert_eq!(fault.backend, "sign-flip");
    let text = found.to_string();
    assert!(
        text.contains(&format!("at instruction `{}`", fault.instruction)),
        "{text}"
    );
    assert!(
        text.contains("cargo +nightly fuzz run diff_graph ARTIFACT"),
        "{text}"
    );
    let dir = scratch_dir("graph");
    let path = minimize_input(Target::DiffGraph, &data, &dir, &backends).unwrap();
    let case = CorpusCase::load(&path).unwrap();
    assert_eq!(case.op, fault.op);
    assert_eq!(case.verdict, Verdict::Fail);
    assert!(case.provenance.command.contains("fuzz run diff_graph"));
    let (catalog, _) = catalog_and_combos().unwrap();
    assert!(corpus::replay(catalog, &case, &backends).unwrap()[0].reproduces(&case));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The seed corpora build cases of varied operations (diff_op) and check (layout_index).
#[test]
fn the_seed_corpora_build_varied_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/fuzz");
    let read = |target: &str| -> Vec<Vec<u8>> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(target))
            .unwrap_or_else(|e| panic!("{target} seed corpus: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files.iter().map(|f| std::fs::read(f).unwrap()).collect()
    };
    let seeds = read("diff_op");
    let mut ops = BTreeSet::new();
    for data in &seeds {
        ops.insert(diff_op_case(data).unwrap().case.op_id);
    }
    assert!(seeds.len() >= 8 && ops.len() >= 6, "{ops:?}");
    let seeds = read("diff_graph");
    let built = seeds
        .iter()
        .filter(|d| diff_graph_case(d).unwrap().is_some())
        .count();
    assert!(
        seeds.len() >= 6 && built + 1 >= seeds.len(),
        "{built} graphs"
    );
    let seeds = read("layout_index");
    let ranks: BTreeSet<usize> = seeds.iter().map(|d| layout_shape(d).rank()).collect();
    assert!(ranks.len() >= 4, "ranks {ranks:?}");
    for data in &seeds {
        layout_index(data).unwrap();
    }
}

/// A selection that cannot form a graph skips the input; an invalid module is a generator bug.
#[test]
fn graph_generator_errors_are_told_apart() {
    let (catalog, combos) = catalog_and_combos().unwrap();
    let selects: Vec<Combo> = combos
        .iter()
        .filter(|c| catalog.ops()[c.op_index].id == "select")
        .cloned()
        .collect();
    assert!(!selects.is_empty());
    let mut rng = Rng::new(1);
    let e = generate::graph::build_case(
        catalog,
        &selects,
        &GeneratorConfig::default(),
        &mut rng,
        0,
        0,
    )
    .unwrap_err();
    assert!(matches!(e, GraphError::Unchainable(_)), "{e}");
}
