//! `conformance replay FILE` and `conformance minimize FILE`: a corpus YAML file, or any HLO text
//! file (a JAX dump, say) whose inputs are generated from a seed.

use crate::backends;
use crate::check::{check, CaseOutcome, Verdict};
use crate::corpus::{self, CorpusCase, Provenance};
use crate::executor::Stage;
use crate::generate::rng::Rng;
use crate::generate::values::{self, ValueClass, ValueHints};
use crate::graph::{self, Fault};
use crate::minimize;
use crate::results::CaseRecord;
use conformance_spec::catalog::{Catalog, OpEntry};
use conformance_spec::hlo::{parse_module, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::Backend;
use std::path::Path;
use std::sync::Arc;

type CliResult = Result<i32, (i32, String)>;

/// A case read from a file: a module, its inputs, its catalog entry.
struct Loaded<'c> {
    op: &'c OpEntry,
    module: HloModule,
    args: Vec<Literal>,
    corpus: Option<CorpusCase>,
}

fn load<'c>(catalog: &'c Catalog, file: &Path, seed: u64) -> Result<Loaded<'c>, (i32, String)> {
    let is_yaml = file.extension().is_some_and(|e| e == "yaml" || e == "yml");
    if is_yaml {
        let case = CorpusCase::load(file).map_err(|e| (2, e))?;
        let op = catalog.op(&case.op).ok_or_else(|| {
            (
                2,
                format!("{}: no catalog entry `{}`", file.display(), case.op),
            )
        })?;
        let module = case
            .module()
            .map_err(|e| (2, format!("{}: {e}", file.display())))?;
        let args = case
            .args()
            .map_err(|e| (2, format!("{}: {e}", file.display())))?;
        return Ok(Loaded {
            op,
            module,
            args,
            corpus: Some(case),
        });
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| (2, format!("{}: cannot read: {e}", file.display())))?;
    let module = parse_module(&text).map_err(|e| (2, format!("{}:{e}", file.display())))?;
    conformance_spec::shape_inference::verify_module(&module)
        .map_err(|e| (2, format!("{}: {e}", file.display())))?;
    let root = module.entry_computation().root_instruction();
    let operand_type = root
        .operands
        .first()
        .and_then(|&o| module.entry_computation().instructions[o].shape.as_array())
        .map(|a| a.element_type)
        .ok_or_else(|| {
            (
                2,
                format!(
                    "{}: the root `{}` has no array operand to check",
                    file.display(),
                    root.name
                ),
            )
        })?;
    let op = catalog
        .entry_for(root.opcode.name(), &root.attributes, operand_type)
        .ok_or_else(|| {
            (
                2,
                format!(
                    "{}: no catalog entry describes the root `{}` ({} on {operand_type})",
                    file.display(),
                    root.name,
                    root.opcode.name()
                ),
            )
        })?;
    let args = generated_inputs(&module, seed)?;
    Ok(Loaded {
        op,
        module,
        args,
        corpus: None,
    })
}

/// Inputs for every entry parameter, values drawn from every value class.
fn generated_inputs(module: &HloModule, seed: u64) -> Result<Vec<Literal>, (i32, String)> {
    let mut rng = Rng::new(seed);
    module
        .entry_computation()
        .parameters()
        .iter()
        .map(|p| {
            let shape = p.shape.as_array().ok_or_else(|| {
                (
                    2,
                    format!(
                        "parameter `{}` is not an array: give inputs in a corpus file",
                        p.name
                    ),
                )
            })?;
            let bits: Vec<u128> = (0..shape.element_count())
                .map(|_| {
                    values::element(
                        &mut rng,
                        shape.element_type,
                        &ValueHints::default(),
                        &ValueClass::ALL,
                    )
                })
                .collect();
            ArrayLiteral::from_bits(shape.clone(), &bits)
                .map(Literal::Array)
                .map_err(|e| (3, format!("generated input for `{}`: {e}", p.name)))
        })
        .collect()
}

/// Checks a loaded case: a module of one instruction against its catalog entry, a graph (more
/// than one instruction, e.g. a JAX dump) instruction by instruction, with the instruction at
/// fault. The reference failing is an internal error (exit 3).
fn check_loaded(
    catalog: &Catalog,
    loaded: &Loaded,
    refs: &[&dyn Backend],
) -> Result<(CaseOutcome, Option<Fault>), (i32, String)> {
    let instructions = loaded
        .module
        .entry_computation()
        .instructions
        .iter()
        .filter(|i| i.opcode != Opcode::Parameter)
        .count();
    let (outcome, fault) = if instructions > 1 {
        let g = graph::check_graph(
            catalog,
            &loaded.module,
            &loaded.args,
            refs,
            &Stage::default(),
        );
        (g.outcome, g.fault)
    } else {
        let o = check(
            loaded.op,
            &loaded.module,
            &loaded.args,
            refs,
            &Stage::default(),
        );
        (o, None)
    };
    match outcome.reference_error {
        Some(e) => Err((3, format!("the reference failed: {e}"))),
        None => Ok((outcome, fault)),
    }
}

fn open_backends(names: &[String]) -> Result<Vec<Arc<dyn Backend>>, (i32, String)> {
    let owned: Vec<Arc<dyn Backend>> = names
        .iter()
        .map(|n| backends::by_name(n).map(Arc::from))
        .collect::<Result<_, _>>()
        .map_err(|e| (2, e))?;
    if owned.len() < 2 {
        return Err((2, "--backends needs at least two backends".into()));
    }
    Ok(owned)
}

/// `conformance replay FILE`: runs the case, prints each backend's verdict and per-element
/// differences. Exit 0 when every backend agrees (or, for an accepted corpus deviation, when it
/// is reproduced), 1 otherwise, 2 on bad input.
pub fn replay_command(catalog: &Catalog, file: &Path, names: &[String], seed: u64) -> CliResult {
    let loaded = load(catalog, file, seed)?;
    let owned = open_backends(names)?;
    let refs: Vec<&dyn Backend> = owned.iter().map(|b| b.as_ref()).collect();
    let (outcome, fault) = check_loaded(catalog, &loaded, &refs)?;
    if let Some(f) = &fault {
        println!(
            "{}: the disagreement is at instruction `{}` ({})",
            f.backend, f.instruction, f.op
        );
    }
    let mut code = 0;
    for o in &outcome.outcomes {
        println!("{}: {:?}", o.backend, o.verdict);
        if let Some(e) = &o.error {
            println!("  error: {e}");
        }
        if let Some(c) = &o.comparison {
            for d in &c.diffs {
                println!("  {d}");
            }
        }
        let agrees = matches!(o.verdict, Verdict::Pass | Verdict::Unsupported);
        let expected = match &loaded.corpus {
            Some(case) if case.accepted && case.backend == o.backend => {
                let replayed = corpus::Replayed {
                    backend: o.backend.clone(),
                    verdict: o.verdict,
                    classes: o
                        .comparison
                        .as_ref()
                        .map(|c| c.classes.keys().copied().collect())
                        .unwrap_or_default(),
                    details: vec![],
                };
                let ok = replayed.reproduces(case);
                println!(
                    "  accepted deviation: {}",
                    if ok { "reproduced" } else { "NOT reproduced" }
                );
                ok
            }
            _ => agrees,
        };
        if !expected {
            code = 1;
        }
    }
    Ok(code)
}

/// `conformance minimize FILE`: minimizes the first disagreement and writes a corpus file.
/// Exit 0 with the file written, 1 when the case shows no disagreement, 2 on bad input.
pub fn minimize_command(
    catalog: &Catalog,
    file: &Path,
    names: &[String],
    seed: u64,
    corpus_dir: &Path,
) -> CliResult {
    let loaded = load(catalog, file, seed)?;
    let owned = open_backends(names)?;
    let refs: Vec<&dyn Backend> = owned.iter().map(|b| b.as_ref()).collect();
    let (outcome, fault) = check_loaded(catalog, &loaded, &refs)?;
    // A graph is minimized from its instruction at fault.
    let (op, module) = match &fault {
        Some(f) => {
            let entry = loaded.module.entry_computation();
            let i = entry
                .instructions
                .iter()
                .position(|i| i.name == f.instruction)
                .ok_or((3, format!("instruction `{}` vanished", f.instruction)))?;
            let op = catalog
                .op(&f.op)
                .ok_or((3, format!("no catalog entry `{}`", f.op)))?;
            (op, graph::truncated(&loaded.module, i))
        }
        None => (loaded.op, loaded.module.clone()),
    };
    let record = CaseRecord {
        seed,
        index: 0,
        op: op.id.clone(),
        row: op.id.clone(),
        dtype: String::new(),
        target: None,
        instruction: fault.as_ref().map(|f| f.instruction.clone()),
        hlo: None,
        replay: format!("conformance replay {}", file.display()),
        minimized: None,
        reference_micros: outcome.reference_micros,
        reference_error: None,
        outcomes: outcome.outcomes,
    };
    let Some(target) = minimize::target_of(&record) else {
        println!(
            "{}: every backend agrees; nothing to minimize",
            file.display()
        );
        return Ok(1);
    };
    let started = std::time::Instant::now();
    let m = minimize::minimize(op, &module, &loaded.args, &refs, target).map_err(|e| (1, e))?;
    let provenance = loaded.corpus.map(|c| c.provenance).unwrap_or(Provenance {
        seed,
        case_index: 0,
        generator: "inputs generated by `conformance minimize`".into(),
        command: record.replay.clone(),
    });
    let case = minimize::corpus_case(&record, target, &m, provenance, &refs);
    let path = case.save(corpus_dir).map_err(|e| (2, e))?;
    println!(
        "minimized in {:.1}s ({} attempts) to {} instruction(s), {} element(s): {}",
        started.elapsed().as_secs_f64(),
        m.attempts,
        m.instruction_count(),
        m.element_count(),
        path.display()
    );
    print!("{}", case.hlo);
    for (k, i) in case.inputs.iter().enumerate() {
        println!("input {k}: {}", i.literal);
    }
    let again = corpus::replay(catalog, &case, &refs).map_err(|e| (3, e))?;
    for r in again {
        for d in &r.details {
            println!("  {} {d}", r.backend);
        }
    }
    Ok(0)
}
