//! `conformance nnef check | lower | run`: NNEF documents, folders and archives through the
//! front end (seed 003; NNEF 1.0.5) and onto the backends.

use std::path::{Path, PathBuf};
use std::time::Instant;

use conformance_nnef::ast::{Document, ExprKind};
use conformance_nnef::container::{self, GraphSource};
use conformance_nnef::graph::Graph;
use conformance_nnef::{arguments, eval, lower, parse_document_with, Dialect};
use conformance_spec::catalog::Catalog;
use conformance_spec::literal::Literal;
use conformance_spec::Backend;

type CliResult = Result<i32, (i32, String)>;

/// The `nnef` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum NnefCommand {
    /// Parse, validate and propagate shapes, and check each `.dat` tensor file against the shape
    /// and type its `variable` declares; print every tensor's data type and shape.
    ///
    /// By default the grammar is seed 003's, where the `;` ending a `version` or `extension`
    /// line, a fragment declaration or an assignment may be omitted at the end of a line (and
    /// after an assignment, before `}`). `--khronos` follows the Khronos reference parser
    /// (NNEF-Tools) instead: every `;` is required, a missing one is an error at line:col, and
    /// line breaks are plain white space.
    Check {
        /// `.nnef` documents, graph folders (with `graph.nnef`) or `.tgz` archives.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print only `PATH: ok` per graph, not every tensor.
        #[arg(long, short)]
        quiet: bool,
        /// Require every `;` as the Khronos reference parser does (default: seed 003, where a
        /// `;` at the end of a line may be omitted).
        #[arg(long)]
        khronos: bool,
    },
    /// Print the HLO module a graph lowers to.
    Lower {
        /// A `.nnef` document, graph folder or `.tgz` archive.
        path: PathBuf,
        #[command(flatten)]
        shapes: InputShapes,
    },
    /// Run a graph on backends (inputs and missing weights generated from the seed) and compare
    /// each output with the first backend; a disagreement is localized to its operation.
    Run {
        /// A `.nnef` document, graph folder or `.tgz` archive.
        path: PathBuf,
        /// Backends, comma-separated; the first is the one the others are compared with. A
        /// single backend is only run and timed. `tract` (cargo feature `tract`) runs the NNEF
        /// graph itself, not its lowering, in-process with sonos/tract.
        #[arg(long, value_delimiter = ',', default_value = "reference,fast")]
        backends: Vec<String>,
        /// Seed of generated inputs and weights.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        shapes: InputShapes,
        /// Accepted deviations: a tract disagreement that an accepted NNEF corpus file of DIR
        /// records (same operation and class, or the text of its error) is reported as known
        /// and does not fail.
        #[arg(long, value_name = "DIR", default_value = "corpus/regressions")]
        corpus_dir: PathBuf,
    },
}

/// `--input-shape NAME=D,D,...` (repeatable): replace an `external`'s shape, e.g. to shrink a
/// network so that the exact reference stays affordable.
#[derive(clap::Args, Debug, Default)]
pub struct InputShapes {
    /// NAME=D,D,... : the shape of graph input NAME (repeatable).
    #[arg(long = "input-shape", value_name = "NAME=D,D,...", value_parser = parse_input_shape)]
    pub input_shapes: Vec<(String, Vec<i64>)>,
}

fn parse_input_shape(text: &str) -> Result<(String, Vec<i64>), String> {
    let (name, dims) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=D,D,... (e.g. input=1,3,32,32), got `{text}`"))?;
    let dims = dims
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<i64>()
                .ok()
                .filter(|d| *d >= 0)
                .ok_or_else(|| format!("expected non-negative extents in `{text}`, found `{d}`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((name.trim().to_string(), dims))
}

/// Runs an `nnef` subcommand. Exit status: 0 ok / all agree, 1 discrepancies, 2 bad input.
pub fn nnef_command(catalog: &Catalog, command: NnefCommand) -> CliResult {
    match command {
        NnefCommand::Check {
            paths,
            quiet,
            khronos,
        } => {
            let dialect = if khronos {
                Dialect::Khronos
            } else {
                Dialect::Seed003
            };
            let mut bad = 0;
            for path in &paths {
                let checked = load(path, &InputShapes::default(), dialect).and_then(|(s, g)| {
                    arguments::check_variable_files(&g, &s).map_err(|e| (2, e.to_string()))?;
                    Ok((s, g))
                });
                match checked {
                    Ok((_, graph)) => {
                        println!("{}: ok (graph {})", path.display(), graph.name);
                        if !quiet {
                            print_tensors(&graph);
                        }
                    }
                    Err((_, e)) => {
                        eprintln!("{e}");
                        bad += 1;
                    }
                }
            }
            Ok(if bad > 0 { 2 } else { 0 })
        }
        NnefCommand::Lower { path, shapes } => {
            let (_, graph) = load(&path, &shapes, Dialect::Seed003)?;
            let lowered = lower::lower_quantized(&graph, &graph.outputs)
                .map_err(|e| (2, e.in_file(&path.display().to_string())))?;
            print!("{}", lowered.module);
            Ok(0)
        }
        NnefCommand::Run {
            path,
            backends,
            seed,
            shapes,
            corpus_dir,
        } => run(catalog, &path, &backends, seed, &shapes, &corpus_dir),
    }
}

/// Loads, parses (under `dialect`'s statement-end rule) and evaluates a graph with the input
/// shapes overridden.
pub(crate) fn load(
    path: &Path,
    shapes: &InputShapes,
    dialect: Dialect,
) -> Result<(GraphSource, Graph), (i32, String)> {
    let source = container::load(path).map_err(|e| (2, e.to_string()))?;
    let file = match source.kind {
        container::SourceKind::Document => path.display().to_string(),
        _ => format!("{}/{}", path.display(), container::GRAPH_FILE),
    };
    let mut document =
        parse_document_with(&source.text, dialect).map_err(|e| (2, e.in_file(&file)))?;
    override_shapes(&mut document, shapes).map_err(|e| (2, format!("{file}: {e}")))?;
    let mut graph = eval::evaluate(&document).map_err(|e| (2, e.in_file(&file)))?;
    source
        .apply_quantization(&mut graph)
        .map_err(|e| (2, e.to_string()))?;
    Ok((source, graph))
}

/// Loads a graph, lowers it for its outputs (quantized where `graph.quant` says) and builds its
/// arguments: inputs and missing weights generated from `seed`, `.dat` files where present.
fn prepare(
    path: &Path,
    shapes: &InputShapes,
    seed: u64,
) -> Result<(Graph, lower::Lowered, Vec<Literal>), (i32, String)> {
    let (source, graph) = load(path, shapes, Dialect::Seed003)?;
    let lowered = lower::lower_quantized(&graph, &graph.outputs)
        .map_err(|e| (2, e.in_file(&path.display().to_string())))?;
    let args = arguments::arguments(&graph, &lowered.parameters, Some(&source), seed)
        .map_err(|e| (2, e.to_string()))?;
    Ok((graph, lowered, args))
}

/// Replaces the `shape` argument of the `external` assigning each named input.
pub(crate) fn override_shapes(document: &mut Document, shapes: &InputShapes) -> Result<(), String> {
    for (name, dims) in &shapes.input_shapes {
        let assignment = document
            .graph
            .body
            .iter_mut()
            .find(|a| matches!(&a.lhs.kind, ExprKind::Identifier(n) if n == name))
            .ok_or_else(|| format!("--input-shape: the graph has no input '{name}'"))?;
        let ExprKind::Invocation(inv) = &mut assignment.rhs.kind else {
            return Err(format!(
                "--input-shape: '{name}' is not assigned by `external`"
            ));
        };
        if inv.name != "external" {
            return Err(format!(
                "--input-shape: '{name}' is assigned by '{}', not `external`",
                inv.name
            ));
        }
        let span = assignment.rhs.span;
        let value = conformance_nnef::ast::Expr::new(
            ExprKind::Array(
                dims.iter()
                    .map(|d| conformance_nnef::ast::Expr::new(ExprKind::Integer(*d), span))
                    .collect(),
            ),
            span,
        );
        match inv
            .arguments
            .iter_mut()
            .find(|a| a.name.as_ref().is_some_and(|(n, _)| n == "shape"))
        {
            Some(arg) => arg.value = value,
            None => inv.arguments.push(conformance_nnef::ast::Argument {
                name: Some(("shape".into(), span)),
                value,
            }),
        }
    }
    Ok(())
}

/// Prints `name: dtype[d0,d1,...]` for the graph's inputs, every tensor the graph body assigns
/// (not those inside expansions) and outputs, in body order.
fn print_tensors(graph: &Graph) {
    let mut seen = std::collections::HashSet::new();
    for op in &graph.operations {
        for (_, v) in &op.results {
            for t in v.tensor_names() {
                if seen.insert(t) {
                    if let Some(tensor) = graph.tensor(t) {
                        let dims: Vec<String> = tensor.shape.iter().map(usize::to_string).collect();
                        let quantized = tensor
                            .quantization
                            .as_ref()
                            .map_or(String::new(), |(q, _)| format!(" (quantized: {q})"));
                        println!(
                            "  {t}: {}[{}]{quantized}",
                            tensor.dtype.name(),
                            dims.join(",")
                        );
                    }
                }
            }
        }
    }
}

/// What checking one output of an NNEF graph found.
#[derive(Debug, Clone)]
pub struct OutputCheck {
    /// The output tensor.
    pub tensor: String,
    /// Each compared backend's verdict and differences (the reference first, not listed).
    pub outcome: crate::check::CaseOutcome,
    /// The HLO instruction a disagreement was localized to, and the NNEF operation (fragment
    /// name and line:col of its invocation in the graph body) it lowers.
    pub fault: Option<(crate::graph::Fault, Option<String>)>,
    /// Why a disagreement could not be localized.
    pub unlocalized: Option<String>,
}

impl OutputCheck {
    /// True when every backend agrees with the reference (or does not support the graph).
    pub fn agrees(&self) -> bool {
        self.outcome.reference_error.is_none()
            && self.outcome.outcomes.iter().all(|o| {
                matches!(
                    o.verdict,
                    crate::check::Verdict::Pass | crate::check::Verdict::Unsupported
                )
            })
    }
}

/// Loads the graph at `path` (document, folder or archive), lowers it, generates its inputs and
/// missing weights from `seed`, runs it on `backends` (the reference first) and compares every
/// output. A disagreeing output is localized to the HLO instruction at fault and to the graph
/// operation that instruction belongs to.
///
/// Errors: bad input (exit 2) with file:line:col; the reference failing (exit 3).
pub fn check_nnef(
    catalog: &Catalog,
    path: &Path,
    backends: &[&dyn Backend],
    seed: u64,
    shapes: &InputShapes,
) -> Result<Vec<OutputCheck>, (i32, String)> {
    let label = path.display().to_string();
    let (graph, lowered, args) = prepare(path, shapes, seed)?;
    let (_, targets, _) = crate::replay::targets_of(catalog, &lowered.module, &label)?;
    let mut checks = Vec::new();
    for (k, target) in targets.iter().enumerate() {
        let checked = crate::replay::check_target(catalog, target, &args, backends)?;
        // A tuple root's leaf is named by the output tensor it computes.
        let entry = lowered.module.entry_computation();
        let tensor = match &target.leaf {
            Some(leaf) => entry
                .root_instruction()
                .operands
                .iter()
                .position(|&o| entry.instructions.get(o).is_some_and(|i| i.name == *leaf))
                .and_then(|p| lowered.outputs.get(p))
                .unwrap_or(leaf)
                .clone(),
            None => lowered.outputs.get(k).cloned().unwrap_or_default(),
        };
        let fault = checked.fault.map(|f| {
            let op = operation_of(&graph, &lowered.module, &f.instruction);
            (f, op)
        });
        checks.push(OutputCheck {
            tensor,
            outcome: checked.outcome,
            fault,
            unlocalized: checked.unlocalized,
        });
    }
    Ok(checks)
}

/// The graph operation whose lowering emitted the HLO instruction `instruction` of `module`:
/// the first top-level operation whose results are computed at or after it.
fn operation_of(
    graph: &Graph,
    module: &conformance_spec::hlo::HloModule,
    instruction: &str,
) -> Option<String> {
    let entry = module.entry_computation();
    let position = entry
        .instructions
        .iter()
        .position(|i| i.name == instruction)?;
    // Lower every top-level tensor as an output: the root tuple says where each is computed.
    let mut tensors = Vec::new();
    let mut owner = Vec::new();
    for (k, op) in graph.operations.iter().enumerate() {
        for (_, v) in &op.results {
            for t in v.tensor_names() {
                tensors.push(t.to_string());
                owner.push(k);
            }
        }
    }
    let all = lower::lower_quantized(graph, &tensors).ok()?;
    let all_entry = all.module.entry_computation();
    let root = all_entry.root_instruction();
    let operands: Vec<usize> = if tensors.len() == 1 {
        vec![all_entry.root]
    } else {
        root.operands.clone()
    };
    let index_of = |name: &str| all_entry.instructions.iter().position(|i| i.name == name);
    let fault_index = index_of(&entry.instructions[position].name)?;
    let k = operands
        .iter()
        .zip(&owner)
        .filter(|(&i, _)| i >= fault_index)
        .map(|(_, &k)| k)
        .min()?;
    let op = &graph.operations[k];
    Some(format!("{} at {}", op.name, op.span))
}

fn run(
    catalog: &Catalog,
    path: &Path,
    names: &[String],
    seed: u64,
    shapes: &InputShapes,
    corpus_dir: &Path,
) -> CliResult {
    let label = path.display().to_string();
    let started = Instant::now();
    let with_tract = names.iter().any(|n| n == "tract");
    if with_tract && cfg!(not(feature = "tract")) {
        return Err((
            2,
            "backend `tract`: conformance was built without the tract feature (build with `--features tract`)".into(),
        ));
    }
    if names.first().is_some_and(|n| n == "tract") {
        return Err((
            2,
            "--backends: `tract` cannot come first: it is compared with the first backend, which runs the HLO lowering (e.g. reference,tract)".into(),
        ));
    }
    if names.len() == 1 {
        let (graph, lowered, args) = prepare(path, shapes, seed)?;
        println!(
            "{label}: graph {}, {} operations, {} HLO instructions (loaded and lowered in {:.2} s)",
            graph.name,
            graph.operations.len(),
            lowered.module.entry_computation().instructions.len(),
            started.elapsed().as_secs_f64()
        );
        let backend = crate::backends::by_name(&names[0]).map_err(|e| (2, e))?;
        let t = Instant::now();
        let out = backend
            .execute(&lowered.module, &args)
            .map_err(|e| (1, format!("{}: {e}", backend.name())))?;
        println!(
            "{}: ran in {:.3} s",
            backend.name(),
            t.elapsed().as_secs_f64()
        );
        print_outputs(&lowered.outputs, &out);
        return Ok(0);
    }
    let hlo_names: Vec<String> = names.iter().filter(|n| *n != "tract").cloned().collect();
    let owned = if hlo_names.len() == 1 {
        vec![std::sync::Arc::from(
            crate::backends::by_name(&hlo_names[0]).map_err(|e| (2, e))?,
        )]
    } else {
        crate::replay::open_backends(&hlo_names)?
    };
    let refs: Vec<&dyn Backend> = owned.iter().map(|b| b.as_ref()).collect();
    #[cfg_attr(not(feature = "tract"), allow(unused_mut))]
    let mut checks = check_nnef(catalog, path, &refs, seed, shapes)?;
    // tract's verdicts join the others'; where it localizes a disagreement, the operation.
    #[cfg_attr(not(feature = "tract"), allow(unused_mut))]
    let mut tract_at: Vec<Option<String>> = vec![None; checks.len()];
    // Per output: the accepted NNEF corpus file that explains tract's disagreement.
    #[cfg_attr(not(feature = "tract"), allow(unused_mut))]
    let mut tract_known: Vec<Option<PathBuf>> = vec![None; checks.len()];
    #[cfg(feature = "tract")]
    if with_tract {
        let known = crate::corpus_nnef::accepted(corpus_dir);
        let results = crate::nnef_tract::check_graph(catalog, path, shapes, seed, refs[0])?;
        for r in results {
            let k = match checks.iter().position(|c| c.tensor == r.tensor) {
                Some(k) => k,
                None => {
                    // An output the lowering passes through (an input): not checked above.
                    checks.push(OutputCheck {
                        tensor: r.tensor.clone(),
                        outcome: crate::check::CaseOutcome {
                            reference_micros: 0,
                            reference_error: None,
                            outcomes: vec![],
                        },
                        fault: None,
                        unlocalized: None,
                    });
                    tract_at.push(None);
                    tract_known.push(None);
                    checks.len() - 1
                }
            };
            tract_known[k] = known
                .iter()
                .find(|(_, c)| c.matches(&r.outcome, r.at.as_deref()))
                .map(|(f, _)| f.clone());
            checks[k].outcome.outcomes.push(r.outcome);
            tract_at[k] = match (r.at, r.note) {
                (Some(at), note) => Some(format!(
                    "tract: the disagreement is at NNEF operation {at}{}",
                    note.map_or(String::new(), |n| format!(" ({n})"))
                )),
                (None, Some(note)) => Some(format!("tract: {note}")),
                (None, None) => None,
            };
        }
    }
    let mut code = 0;
    #[cfg(not(feature = "tract"))]
    let _ = corpus_dir;
    for ((c, tract_line), known) in checks.iter().zip(&tract_at).zip(&tract_known) {
        println!("output `{}`:", c.tensor);
        for o in &c.outcome.outcomes {
            let diffs = o.comparison.as_ref().map_or(0, |c| c.diffs.len());
            println!(
                "  {}: {:?} ({diffs} elements differ within or beyond tolerance, {:.3} s)",
                o.backend,
                o.verdict,
                o.micros as f64 / 1e6
            );
            if let Some(e) = &o.error {
                println!("    error: {e}");
            }
            if o.verdict == crate::check::Verdict::Fail {
                for d in o.comparison.iter().flat_map(|c| c.diffs.iter()).take(10) {
                    println!("    {d}");
                }
            }
        }
        if let Some((f, op)) = &c.fault {
            println!(
                "  {}: the disagreement is at instruction `{}` ({}){}",
                f.backend,
                f.instruction,
                f.op,
                op.as_ref()
                    .map_or(String::new(), |op| format!(", lowered from operation {op}"))
            );
        }
        if let Some(why) = &c.unlocalized {
            println!("  not localized: {why}");
        }
        if let Some(line) = tract_line {
            println!("  {line}");
        }
        if let Some(f) = known {
            println!("  tract: known deviation, recorded in {}", f.display());
        }
        // A disagreement of tract's that an accepted corpus file records does not fail.
        let explained = |o: &crate::check::BackendOutcome| known.is_some() && o.backend == "tract";
        let new = c.outcome.reference_error.is_some()
            || c.outcome.outcomes.iter().any(|o| {
                let agrees = matches!(
                    o.verdict,
                    crate::check::Verdict::Pass | crate::check::Verdict::Unsupported
                );
                !agrees && !explained(o)
            });
        if new {
            code = 1;
        }
    }
    println!(
        "{label}: checked in {:.3} s",
        started.elapsed().as_secs_f64()
    );
    Ok(code)
}

fn print_outputs(names: &[String], out: &Literal) {
    let leaves: Vec<&Literal> = match out {
        Literal::Tuple(items) => items.iter().collect(),
        other => vec![other],
    };
    for (name, leaf) in names.iter().zip(leaves) {
        if let Literal::Array(a) = leaf {
            let values = a.to_f64s().unwrap_or_default();
            let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
            let mean = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
            println!(
                "  {name}: {} elements, {} non-finite, mean {mean:.6}",
                values.len(),
                values.len() - finite.len()
            );
        }
    }
}
