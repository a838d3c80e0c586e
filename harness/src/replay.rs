//! `conformance replay FILE` and `conformance minimize FILE`: a corpus YAML file, an HLO text
//! file (a JAX dump, say), a StableHLO file, a program folder or an XLA dump folder, with the
//! user's inputs (`--inputs`), the file's own or inputs generated from a seed. What they record
//! (results files, reproducing commands): [`crate::replay_results`].

use crate::backends;
use crate::check::{CaseOutcome, Verdict};
use crate::corpus::{self, CorpusCase, Provenance};
use crate::executor::Stage;
use crate::generate::rng::Rng;
use crate::generate::values::{self, ValueClass, ValueHints};
use crate::graph::{self, Fault};
use crate::minimize;
use crate::replay_results::{replay_invocation, InputSource, ReplayResults};
use crate::results::CaseRecord;
use conformance_spec::catalog::{Catalog, OpEntry};
use conformance_spec::hlo::{parse_module, transform, HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::Backend;
use std::path::Path;
use std::sync::Arc;

type CliResult = Result<i32, (i32, String)>;

/// A case read from a file: its inputs and what to check.
pub(crate) struct Loaded<'c> {
    /// The program whose parameters `args` are (a call-rooted dump with its callee as the
    /// entry: the same values).
    pub(crate) program: HloModule,
    pub(crate) args: Vec<Literal>,
    /// Where `args` come from.
    pub(crate) inputs_from: InputSource,
    corpus: Option<CorpusCase>,
    targets: Vec<Target<'c>>,
    /// Leaves of a tuple root that nothing computes (parameters, constants): not checked.
    passed_through: Vec<String>,
}

/// One value to check: the module rooted at it and the catalog entry of its root.
pub(crate) struct Target<'c> {
    /// The root leaf's name when the file's root is a tuple.
    pub(crate) leaf: Option<String>,
    pub(crate) op: &'c OpEntry,
    pub(crate) module: HloModule,
}

/// Reads `file` (a corpus YAML file, an HLO text file or a program folder) with its inputs:
/// `inputs` when given (an `.npz` archive or `.npy` files, [`crate::npz::read_inputs`]), else the
/// corpus file's, the folder's `inputs.npz`, or values generated from `seed`. Errors: exit 2 with
/// a message naming the file for anything unreadable or unsupported.
pub(crate) fn load<'c>(
    catalog: &'c Catalog,
    file: &Path,
    seed: u64,
    inputs: &[std::path::PathBuf],
) -> Result<Loaded<'c>, (i32, String)> {
    let given = |module: &HloModule| -> Option<Result<Vec<Literal>, (i32, String)>> {
        if inputs.is_empty() {
            return None;
        }
        let (shapes, names) = device_parameters(module);
        Some(crate::npz::read_inputs(inputs, &shapes, &names).map_err(|e| (2, e)))
    };
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
        let (args, inputs_from) = match given(&module) {
            Some(args) => (args?, InputSource::Given(inputs.to_vec())),
            None => (
                case.args()
                    .map_err(|e| (2, format!("{}: {e}", file.display())))?,
                InputSource::Corpus,
            ),
        };
        return Ok(Loaded {
            program: module.clone(),
            args,
            inputs_from,
            corpus: Some(case),
            targets: vec![Target {
                leaf: None,
                op,
                module,
            }],
            passed_through: vec![],
        });
    }
    // A program folder (corpus/programs/NAME/): its module.hlo and, when present, inputs.npz.
    let (hlo, folder_inputs) = if file.is_dir() {
        let npz = file.join("inputs.npz");
        (file.join("module.hlo"), npz.exists().then_some(npz))
    } else {
        (file.to_path_buf(), None)
    };
    let text = crate::text_input::read_text(&hlo).map_err(|e| (2, e))?;
    let label = hlo.display().to_string();
    let module = if hlo.extension().is_some_and(|e| e == "mlir") {
        // StableHLO (what `jax.jit(f).lower(x).as_text()` prints), pretty or generic form.
        let (module, map) = conformance_spec::hlo::parse_stablehlo_with_positions(&text)
            .map_err(|e| (2, format!("{label}:{e}")))?;
        unsupported_construct(catalog, &module, &|c, i, _| map.position(c, i), &label)?;
        module
    } else {
        let module = parse_module(&text).map_err(|e| (2, format!("{label}:{e}")))?;
        let position = |c: &str, i: &str, opcode: &str| {
            conformance_spec::hlo::instruction_position(&text, Some(c), i, opcode)
        };
        unsupported_construct(catalog, &module, &position, &label)?;
        module
    };
    let (module, targets, passed_through) =
        targets_of(catalog, &module, &hlo.display().to_string())?;
    let (shapes, names) = device_parameters(&module);
    let (args, inputs_from) = match (given(&module), folder_inputs) {
        (Some(args), _) => (args?, InputSource::Given(inputs.to_vec())),
        (None, Some(npz)) => (
            crate::npz::read_arguments(&npz, &shapes, &names).map_err(|e| (2, e))?,
            InputSource::Folder(npz),
        ),
        (None, None) => (
            generated_inputs(&module, seed)?,
            InputSource::Generated(seed),
        ),
    };
    Ok(Loaded {
        program: module,
        args,
        inputs_from,
        corpus: None,
        targets,
        passed_through,
    })
}

/// The first instruction, in any computation of `module`, that the harness cannot check: an
/// opcode the reference does not implement. Exit 2 with `file:line:col` of its opcode in `text`, its name and its
/// computation — wherever it sits (inside a loop body, behind a get-tuple-element).
/// The (line, column) in its file of an instruction, given its computation, name and opcode.
type Position<'p> = &'p dyn Fn(&str, &str, &str) -> Option<(usize, usize)>;

fn unsupported_construct(
    catalog: &Catalog,
    module: &HloModule,
    position: Position<'_>,
    label: &str,
) -> Result<(), (i32, String)> {
    use conformance_spec::Backend as _;
    let implemented = conformance_reference::Reference.capabilities().opcodes;
    for c in &module.computations {
        for i in &c.instructions {
            let unknown_call = i.opcode == conformance_spec::hlo::Opcode::CustomCall
                && conformance_spec::custom_call::routine_of(i).is_none();
            if implemented.contains(&i.opcode) && !unknown_call {
                // An instruction without a catalog entry is still checked, bit-exactly (graph).
                continue;
            }
            let cataloged = catalog.ops().iter().any(|op| op.opcode == i.opcode.name());
            let (line, column) = position(&c.name, &i.name, i.opcode.name()).unwrap_or((1, 1));
            let target = match i.attribute("custom_call_target") {
                Some(conformance_spec::hlo::AttrValue::Str(t)) => Some(t.as_str()),
                _ => None,
            };
            let why = match target {
                // Custom calls are named by their target: what a target computes is not the
                // opcode's to say (docs/custom-calls.md lists the targets JAX emits).
                Some(t) => conformance_spec::custom_call::unknown_target_message(t),
                None if cataloged => "the reference does not implement it".to_string(),
                None => "the catalog does not describe it yet (see `conformance spec`)".to_string(),
            };
            return Err((
                2,
                format!(
                    "{label}:{line}:{column}: unsupported: `{}` (instruction `{}` in computation `{}`): {why}",
                    i.opcode.name(),
                    i.name,
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// A module with its calls inlined, the values to check, and the inputs its root passes through.
pub(crate) type Targets<'c> = (HloModule, Vec<Target<'c>>, Vec<String>);

/// The values a module's root makes up, each to check on its own: the root, or each leaf of a
/// tuple root (inputs passed through are listed, not checked). Calls are inlined first (as XLA's
/// call inliner does). `label` names the input in errors (a file name).
pub(crate) fn targets_of<'c>(
    catalog: &'c Catalog,
    module: &HloModule,
    label: &str,
) -> Result<Targets<'c>, (i32, String)> {
    conformance_spec::shape_inference::verify_module(module)
        .map_err(|e| (2, format!("{label}: {e}")))?;
    let module = transform::inline_calls(module).map_err(|e| (2, format!("{label}: {e}")))?;
    let entry = module.entry_computation();
    let mut leaves = Vec::new();
    tuple_leaves(&module, entry.root, &mut leaves);
    let tuple_root = entry.root_instruction().opcode == Opcode::Tuple;
    let mut targets = Vec::new();
    let mut passed_through = Vec::new();
    for leaf in leaves {
        let instruction = &entry.instructions[leaf];
        if tuple_root && matches!(instruction.opcode, Opcode::Parameter | Opcode::Constant) {
            passed_through.push(instruction.name.clone());
            continue;
        }
        if tuple_root && instruction.shape == conformance_spec::Shape::Token {
            // A token is not a value (JAX returns the token of its ordered effects): nothing
            // to check; the side effects it orders are checked where they write.
            continue;
        }
        let op = graph::entry_of(catalog, &module, instruction).ok_or_else(|| {
            let operand_type = instruction
                .operands
                .first()
                .and_then(|&o| entry.instructions[o].shape.as_array())
                .map_or_else(
                    || "no array operand".to_string(),
                    |a| a.element_type.to_string(),
                );
            (
                2,
                format!(
                    "{}: no catalog entry describes `{}` ({} on {operand_type})",
                    label,
                    instruction.name,
                    instruction.opcode.name()
                ),
            )
        })?;
        targets.push(Target {
            leaf: tuple_root.then(|| instruction.name.clone()),
            op,
            module: if tuple_root {
                graph::truncated(&module, leaf)
            } else {
                module.clone()
            },
        });
    }
    if targets.is_empty() {
        return Err((
            2,
            format!(
                "{}: the root only passes inputs through; nothing to check",
                label
            ),
        ));
    }
    Ok((module, targets, passed_through))
}

/// The entry instructions whose values make up instruction `i`'s: `i` itself, or the leaves of
/// the operands of a `tuple`, in order.
fn tuple_leaves(module: &HloModule, i: usize, out: &mut Vec<usize>) {
    let instruction = &module.entry_computation().instructions[i];
    if instruction.opcode == Opcode::Tuple {
        for &o in &instruction.operands {
            tuple_leaves(module, o, out);
        }
    } else {
        out.push(i);
    }
}

/// The shapes of the arguments a module takes, and their parameters' names: each parameter of
/// the entry computation once per device (docs/collectives.md: each device's arguments in turn;
/// archive arrays are then found by number only, `argK` for argument K).
fn device_parameters(module: &HloModule) -> (Vec<Shape>, Vec<String>) {
    let entry = module.entry_computation();
    let devices = conformance_spec::collective::DeviceGrid::of(module).map_or(1, |g| g.devices());
    let names: Vec<String> = if devices == 1 {
        entry.parameters().iter().map(|p| p.name.clone()).collect()
    } else {
        vec![]
    };
    (conformance_spec::collective::argument_shapes(module), names)
}

/// Most bytes of inputs `replay` generates for a program (all parameters together); larger
/// programs take their inputs from files (`--inputs`).
pub const MAX_GENERATED_BYTES: u128 = 1 << 30;

/// Inputs for every entry parameter, values drawn from every value class. Errors (exit 2): a
/// tuple or token parameter; more than [`MAX_GENERATED_BYTES`] of inputs in all.
fn generated_inputs(module: &HloModule, seed: u64) -> Result<Vec<Literal>, (i32, String)> {
    let mut rng = Rng::new(seed);
    let one = module.entry_computation().parameters();
    // Each device's own values (docs/collectives.md).
    let devices = conformance_spec::collective::DeviceGrid::of(module).map_or(1, |g| g.devices());
    let params: Vec<_> = (0..devices).flat_map(|_| one.iter().copied()).collect();
    let mut total: u128 = 0;
    for p in &params {
        if let Some(a) = p.shape.as_array() {
            let elements = a
                .dimensions
                .iter()
                .try_fold(1u128, |n, &d| n.checked_mul(u128::try_from(d).unwrap_or(0)))
                .unwrap_or(u128::MAX);
            let bytes = elements.saturating_mul(a.element_type.byte_width() as u128);
            total = total.saturating_add(bytes);
            if total > MAX_GENERATED_BYTES {
                return Err((
                    2,
                    format!(
                        "parameter `{}` ({}) has {elements} elements: inputs of more than {} \
                         bytes in all are too large to generate; give them with --inputs FILE.npz",
                        p.name, p.shape, MAX_GENERATED_BYTES
                    ),
                ));
            }
        }
    }
    params
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

/// What checking one target found.
pub(crate) struct Checked {
    pub(crate) outcome: CaseOutcome,
    pub(crate) fault: Option<Fault>,
    pub(crate) unlocalized: Option<String>,
}

/// Checks a target: a module of one instruction against its catalog entry, a graph (more than
/// one instruction, e.g. a JAX dump) instruction by instruction, with the instruction at fault.
/// The reference failing is an internal error (exit 3).
pub(crate) fn check_target(
    catalog: &Catalog,
    target: &Target,
    args: &[Literal],
    refs: &[&dyn Backend],
) -> Result<Checked, (i32, String)> {
    let instructions = target
        .module
        .entry_computation()
        .instructions
        .iter()
        .filter(|i| i.opcode != Opcode::Parameter)
        .count();
    let checked = if instructions > 1 {
        let g = graph::check_graph(catalog, &target.module, args, refs, &Stage::default());
        Checked {
            outcome: g.outcome,
            fault: g.fault,
            unlocalized: g.unlocalized,
        }
    } else {
        // One instruction: judged as `run` judges it (a while, conditional, call or map that
        // the reference does not reproduce as a whole is stepped into).
        let (outcome, fault) = graph::check_operation(
            catalog,
            target.op,
            &target.module,
            args,
            refs,
            &Stage::default(),
        );
        Checked {
            outcome,
            fault,
            unlocalized: None,
        }
    };
    match &checked.outcome.reference_error {
        // What the reference does not implement is unsupported input, not our bug.
        Some(e) if e.starts_with("unsupported:") => Err((2, format!("the reference: {e}"))),
        Some(e) if e.starts_with("no exit:") => Err((
            2,
            format!("the program does not terminate on the reference: {e}"),
        )),
        Some(e) => Err((3, format!("the reference failed: {e}"))),
        None => Ok(checked),
    }
}

pub(crate) fn open_backends(names: &[String]) -> Result<Vec<Arc<dyn Backend>>, (i32, String)> {
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
/// differences (per leaf when the root is a tuple). Exit 0 when every backend agrees (or, for an
/// accepted corpus deviation, when it is reproduced), 1 otherwise, 2 on bad input.
///
/// `args.inputs`: the program's arguments from `.npz`/`.npy` files instead of the file's own or
/// generated ones. `args.outputs`: an `.npz` archive to write every backend's results into,
/// named `<backend>.out0`, `<backend>.out1`, ... (the root's array leaves, depth first); a
/// backend that fails on the program writes none (its error is printed). `args.results`: a
/// results file (the format of `run --results`) with one case per checked target, of every
/// module of an XLA dump folder; refused (exit 2, nothing written) when it already holds
/// something, and written only when the replay finishes (exit 0 or 1).
pub fn replay_command(
    catalog: &Catalog,
    args: &crate::cli::ReplayArgs,
    known: &[crate::known::KnownDeviation],
) -> CliResult {
    if crate::corpus_nnef::is_nnef_file(&args.file) {
        return crate::corpus_nnef::replay_command(catalog, &args.file);
    }
    let mut results = args
        .results
        .as_deref()
        .map(ReplayResults::create)
        .transpose()?;
    let code = replay_file(
        catalog,
        args,
        &args.file,
        known,
        args.outputs.as_deref(),
        results.as_mut(),
    )?;
    if let Some(r) = results {
        r.finish(catalog, args)?;
    }
    Ok(code)
}

/// [`replay_command`] on `file` (`args.file`, or a module of its XLA dump folder), adding its
/// records to `results`.
fn replay_file(
    catalog: &Catalog,
    args: &crate::cli::ReplayArgs,
    file: &Path,
    known: &[crate::known::KnownDeviation],
    outputs: Option<&Path>,
    mut results: Option<&mut ReplayResults>,
) -> CliResult {
    if let Some(modules) = xla_dump_modules(file)? {
        // An XLA dump folder: each module (un-optimized and optimized) replayed on its own.
        let mut code = 0;
        for m in &modules {
            println!("== {}", m.display());
            code = code.max(replay_file(
                catalog,
                args,
                m,
                known,
                None,
                results.as_deref_mut(),
            )?);
        }
        return Ok(code);
    }
    let loaded = load(catalog, file, args.seed, &args.inputs)?;
    let owned = open_backends(&args.backends)?;
    let refs: Vec<&dyn Backend> = owned.iter().map(|b| b.as_ref()).collect();
    for name in &loaded.passed_through {
        println!("`{name}`: an input passed through; not checked");
    }
    let (code, checked) = report_targets(
        catalog,
        &loaded.targets,
        &loaded.args,
        &refs,
        loaded.corpus.as_ref(),
        known,
    )?;
    if let Some(r) = results {
        let replay = replay_invocation(file, &loaded.inputs_from, &args.backends);
        r.add(catalog, &loaded.targets, checked, args.seed, &replay);
    }
    if let Some(path) = outputs {
        let mut results = Vec::new();
        for b in &refs {
            match b.execute(&loaded.program, &loaded.args) {
                Ok(v) => results.push((b.name().to_string(), v)),
                Err(e) => eprintln!("{}: no outputs written: {e}", b.name()),
            }
        }
        let arrays: Vec<(String, &ArrayLiteral)> = results
            .iter()
            .flat_map(|(name, v)| {
                v.array_leaves()
                    .into_iter()
                    .enumerate()
                    .map(move |(k, a)| (format!("{name}.out{k}"), a))
            })
            .collect();
        crate::npz::write_arrays(path, &arrays).map_err(|e| (2, e))?;
        println!("{}: {} array(s) written", path.display(), arrays.len());
    }
    Ok(code)
}

/// Checks each target on `refs` (the reference first) and prints each backend's verdict, the
/// per-element differences and the instruction at fault. Returns the exit status — 0 when every
/// backend agrees (or an accepted corpus deviation is reproduced), 1 otherwise — and what
/// checking each target found, in order; the reference failing is exit 3.
pub(crate) fn report_targets(
    catalog: &Catalog,
    targets: &[Target<'_>],
    args: &[Literal],
    refs: &[&dyn Backend],
    corpus: Option<&CorpusCase>,
    known: &[crate::known::KnownDeviation],
) -> Result<(i32, Vec<Checked>), (i32, String)> {
    let mut code = 0;
    let mut all = Vec::with_capacity(targets.len());
    for target in targets {
        let indent = match &target.leaf {
            Some(leaf) => {
                println!("`{leaf}` ({}):", target.op.id);
                "  "
            }
            None => "",
        };
        let checked = check_target(catalog, target, args, refs)?;
        if let Some(f) = &checked.fault {
            println!(
                "{indent}{}: the disagreement is at {}",
                f.backend,
                f.describe()
            );
        }
        if let Some(why) = &checked.unlocalized {
            println!("{indent}not localized: {why}");
        }
        for o in &checked.outcome.outcomes {
            println!("{indent}{}: {:?}", o.backend, o.verdict);
            if let Some(e) = &o.error {
                println!("{indent}  error: {e}");
            }
            if let Some(c) = &o.comparison {
                if c.fused_multiply_adds > 0 {
                    println!(
                        "{indent}  {} element(s) agree only as fused multiply-adds (x·y ± z rounded once): set aside",
                        c.fused_multiply_adds
                    );
                }
                if c.flushed_subnormals > 0 {
                    println!(
                        "{indent}  {} element(s) agree only with subnormals flushed: set aside",
                        c.flushed_subnormals
                    );
                }
                let graph = target
                    .module
                    .entry_computation()
                    .instructions
                    .iter()
                    .filter(|i| i.opcode != Opcode::Parameter)
                    .count()
                    > 1;
                if o.verdict == Verdict::Pass && graph && !c.diffs.is_empty() {
                    // A program whose every instruction is within its budget on the backend's
                    // own operands: the outputs' distance from the exact program is a figure.
                    print_figures(indent, target, args, refs, &o.backend);
                } else {
                    for d in &c.diffs {
                        println!("{indent}  {d}");
                    }
                }
            }
            let agrees = matches!(o.verdict, Verdict::Pass | Verdict::Unsupported);
            let expected = match corpus {
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
                        "{indent}  accepted deviation: {}",
                        if ok { "reproduced" } else { "NOT reproduced" }
                    );
                    ok
                }
                _ if agrees => true,
                _ => {
                    // A failure an accepted corpus file records (of the instruction at fault, or
                    // of the target's root) is known.
                    let (op, dtype) = match &checked.fault {
                        Some(f) if f.backend == o.backend => (f.op.clone(), f.dtype.clone()),
                        _ => (
                            target.op.id.clone(),
                            graph::instruction_element_type(
                                &target.module,
                                target.module.entry_computation().root_instruction(),
                            )
                            .map(|t| t.hlo_name().to_string())
                            .unwrap_or_default(),
                        ),
                    };
                    let files = crate::known::explaining(known, &op, &dtype, o);
                    for k in &files {
                        println!(
                            "{indent}  known deviation, recorded in {}",
                            k.path.display()
                        );
                    }
                    !files.is_empty()
                }
            };
            if !expected {
                code = 1;
            }
        }
        all.push(checked);
    }
    Ok((code, all))
}

/// The modules of an XLA dump folder (what `XLA_FLAGS=--xla_dump_to=DIR` writes), sorted:
/// `*.before_optimizations.txt` (the module as compiled) and `*after_optimizations.txt` (as
/// optimized: fusions, assigned layouts, copies); the buffer-assignment, memory-usage and
/// live-range reports beside them are not modules. `None` when `dir` is not such a folder (a
/// file, or a program folder with its `module.hlo`). Errors (exit 2): an unreadable folder, or
/// one with neither a `module.hlo` nor any dumped module.
pub(crate) fn xla_dump_modules(
    dir: &Path,
) -> Result<Option<Vec<std::path::PathBuf>>, (i32, String)> {
    if !dir.is_dir() || dir.join("module.hlo").exists() {
        return Ok(None);
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| (2, format!("{}: cannot read the folder: {e}", dir.display())))?;
    let mut modules: Vec<std::path::PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".before_optimizations.txt") || n.ends_with("after_optimizations.txt")
            })
        })
        .collect();
    if modules.is_empty() {
        return Err((
            2,
            format!(
                "{}: neither a program folder (module.hlo) nor an XLA dump folder \
                 (*.before_optimizations.txt, *after_optimizations.txt)",
                dir.display()
            ),
        ));
    }
    modules.sort();
    Ok(Some(modules))
}

/// Prints, per output of `target`, how far `backend`'s result is from the reference's (the exact
/// program), as program-level figures ([`crate::figures`]).
fn print_figures(
    indent: &str,
    target: &Target<'_>,
    args: &[Literal],
    refs: &[&dyn Backend],
    backend: &str,
) {
    let (Some(reference), Some(b)) = (refs.first(), refs.iter().find(|b| b.name() == backend))
    else {
        return;
    };
    let (Ok(exact), Ok(got)) = (
        reference.execute(&target.module, args),
        b.execute(&target.module, args),
    ) else {
        return;
    };
    let figures: Vec<String> = exact
        .array_leaves()
        .iter()
        .zip(got.array_leaves())
        .enumerate()
        .map(|(k, (e, g))| format!("out{k}: {}", crate::figures::figure(e, g)))
        .collect();
    println!(
        "{indent}  every instruction within its budget; the outputs' distance from the exact \
         program (max/median over the elements; rounding accumulated over the program): {}",
        figures.join("; ")
    );
}

/// `conformance minimize FILE`: minimizes the first disagreement (of the first disagreeing leaf
/// when the root is a tuple; of the first disagreeing module of an XLA dump folder) of the
/// program run on `args.inputs` (else the file's own inputs or inputs generated from
/// `args.seed`) and writes a corpus file whose provenance names those inputs and the command
/// that replays the program with them. Exit 0 with the file written, 1 when the case shows no
/// disagreement, 2 on bad input.
pub fn minimize_command(catalog: &Catalog, args: &crate::cli::MinimizeArgs) -> CliResult {
    let (modules, dump) = match xla_dump_modules(&args.file)? {
        Some(modules) => (modules, true),
        None => (vec![args.file.clone()], false),
    };
    let mut owned = None;
    for m in &modules {
        if dump {
            println!("== {}", m.display());
        }
        let loaded = load(catalog, m, args.seed, &args.inputs)?;
        let owned = match &mut owned {
            Some(owned) => owned,
            None => owned.insert(open_backends(&args.backends)?),
        };
        let refs: Vec<&dyn Backend> = owned.iter().map(|b| b.as_ref()).collect();
        let replay = replay_invocation(m, &loaded.inputs_from, &args.backends);
        let provenance = match (&loaded.inputs_from, &loaded.corpus) {
            (InputSource::Corpus, Some(case)) => case.provenance.clone(),
            (from, _) => from.provenance(replay.clone()),
        };
        if minimize_loaded(catalog, loaded, &refs, replay, provenance, &args.corpus_dir)?.is_some()
        {
            return Ok(0);
        }
    }
    println!(
        "{}: every backend agrees; nothing to minimize",
        args.file.display()
    );
    Ok(1)
}

/// Minimizes the first disagreement of `loaded` on `refs` and writes it to `corpus_dir` with
/// `provenance`, printing it; `None` when every backend agrees. `replay`: the command that
/// replays `loaded` (its record's).
fn minimize_loaded(
    catalog: &Catalog,
    loaded: Loaded,
    refs: &[&dyn Backend],
    replay: String,
    provenance: Provenance,
    corpus_dir: &Path,
) -> Result<Option<CorpusCase>, (i32, String)> {
    for target in &loaded.targets {
        let checked = check_target(catalog, target, &loaded.args, refs)?;
        // A graph is minimized from its instruction at fault.
        // A fault inside a called computation is minimized in that computation, from the
        // arguments it had when the fault appeared.
        let (scope_module, args) = match checked.fault.as_ref().and_then(|f| f.scope.as_deref()) {
            Some((m, a)) => (m.clone(), a.clone()),
            None => (target.module.clone(), loaded.args.clone()),
        };
        let (op, module) = match &checked.fault {
            Some(f) => {
                let entry = scope_module.entry_computation();
                let i = entry
                    .instructions
                    .iter()
                    .position(|i| i.name == f.instruction)
                    .ok_or((3, format!("instruction `{}` vanished", f.instruction)))?;
                let op = catalog
                    .op(&f.op)
                    .ok_or((3, format!("no catalog entry `{}`", f.op)))?;
                (op, graph::truncated(&scope_module, i))
            }
            None => (target.op, target.module.clone()),
        };
        let record = CaseRecord {
            seed: provenance.seed,
            index: 0,
            op: op.id.clone(),
            row: op.id.clone(),
            dtype: String::new(),
            target: None,
            instruction: checked.fault.as_ref().map(|f| f.instruction.clone()),
            hlo: None,
            replay: replay.clone(),
            minimized: None,
            reference_micros: checked.outcome.reference_micros,
            reference_error: None,
            outcomes: checked.outcome.outcomes,
        };
        let Some(target_class) = minimize::target_of(&record) else {
            continue;
        };
        let started = std::time::Instant::now();
        let m = minimize::minimize(op, &module, &args, refs, target_class).map_err(|e| (1, e))?;
        let case = minimize::corpus_case(&record, target_class, &m, provenance, refs);
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
        let again = corpus::replay(catalog, &case, refs).map_err(|e| (3, e))?;
        for r in again {
            for d in &r.details {
                println!("  {} {d}", r.backend);
            }
        }
        return Ok(Some(case));
    }
    Ok(None)
}

#[cfg(test)]
mod tests;
