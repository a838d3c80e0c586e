//! The fuzz targets' library side (`fuzz/fuzz_targets/*.rs` are a few lines of glue over these
//! functions): building cases from fuzzer bytes, the differential oracle, and minimizing a
//! fuzz-found discrepancy with the same minimizer as `conformance run --minimize`. Plain library
//! code, independent of the fuzzing engine, and tested here like the rest of the harness.
//!
//! The fuzzer's bytes are a choice source (`arbitrary::Unstructured`, zeros once exhausted) for the
//! same generators a sweep uses, so an input of zero bytes is the simplest case and every input
//! builds a valid case by construction.

pub mod layout_index;

use crate::check::{CaseOutcome, Verdict};
use crate::executor::{panic_message, Stage};
use crate::generate::graph::GraphError;
use crate::generate::rng::Rng;
use crate::generate::{self, Case, Combo, Filters, GeneratorConfig, SwarmConfig};
use crate::graph::{self, Fault};
use crate::minimize::{self, Provenance};
use crate::results::CaseRecord;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::Backend;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

pub use layout_index::layout_index;

/// The environment variable that switches a differential target from fuzzing to minimizing:
/// `CONFORMANCE_MINIMIZE_DIR=corpus/regressions cargo +nightly fuzz run diff_op ARTIFACT` writes
/// the minimized case of `ARTIFACT` to that directory (relative to the working directory) instead
/// of panicking.
pub const MINIMIZE_DIR_VAR: &str = "CONFORMANCE_MINIMIZE_DIR";

/// The directory named by [`MINIMIZE_DIR_VAR`], when it is set and not empty.
pub fn minimize_dir() -> Option<PathBuf> {
    std::env::var_os(MINIMIZE_DIR_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// A case built from fuzzer bytes, with the generator configuration that built it.
#[derive(Clone, Debug)]
pub struct FuzzCase {
    pub case: Case,
    pub config: GeneratorConfig,
}

/// The built-in catalog and every (operation, element type) combo of it, loaded once.
fn catalog_and_combos() -> Result<(&'static Catalog, &'static [Combo]), String> {
    static COMBOS: OnceLock<Result<Vec<Combo>, String>> = OnceLock::new();
    let catalog =
        conformance_spec::catalog::shared().ok_or("the built-in catalog does not load")?;
    let combos = COMBOS
        .get_or_init(|| generate::plan(catalog, &Filters::default()))
        .as_ref()
        .map_err(Clone::clone)?;
    if combos.is_empty() {
        return Err("the built-in catalog has no (operation, element type) combo".into());
    }
    Ok((catalog, combos))
}

/// Builds the single-operation case of `data`: the first choice picks a combo among all of the
/// built-in catalog's, the next one whether a swarm configuration (drawn over that combo: layout
/// features and value classes) narrows the generator, and the generator draws the rest
/// (`generate::case_with`, recorded as seed 0, case 0).
///
/// Errors: the catalog does not load, or the generator built an invalid module (a bug).
pub fn diff_op_case(data: &[u8]) -> Result<FuzzCase, String> {
    let (catalog, combos) = catalog_and_combos()?;
    let mut bytes = arbitrary::Unstructured::new(data);
    let mut rng = Rng::from_source(&mut bytes);
    let combo = rng.pick(combos).clone();
    let mut config = GeneratorConfig::default();
    if rng.chance(0.5) {
        let swarm = SwarmConfig::draw(&mut rng, catalog, std::slice::from_ref(&combo));
        config = swarm.apply(&config);
    }
    let case = generate::case_with(catalog, &combo, &config, &mut rng, 0, 0)?;
    Ok(FuzzCase { case, config })
}

/// Builds the multi-operation case of `data`: the first choice decides whether a swarm
/// configuration (drawn from the following choices over every combo of the built-in catalog:
/// operations, element types, layout features, value classes) narrows the generator, and
/// `generate::graph::build_case` draws the graph from the rest (recorded as seed 0, case 0).
///
/// Returns `Ok(None)` when the swarm configuration leaves no operation that can start a graph, or
/// too few to chain (such inputs are not interesting, not failures).
///
/// Errors: the catalog does not load, or the generator built an invalid module (a bug).
pub fn diff_graph_case(data: &[u8]) -> Result<Option<FuzzCase>, String> {
    let (catalog, combos) = catalog_and_combos()?;
    let mut bytes = arbitrary::Unstructured::new(data);
    let mut rng = Rng::from_source(&mut bytes);
    let mut config = GeneratorConfig::default();
    let mut selected = combos.to_vec();
    if rng.chance(0.5) {
        let swarm = SwarmConfig::draw(&mut rng, catalog, combos);
        swarm.restrict(catalog, &mut selected);
        config = swarm.apply(&config);
    }
    match generate::graph::build_case(catalog, &selected, &config, &mut rng, 0, 0) {
        Ok(case) => Ok(Some(FuzzCase { case, config })),
        Err(GraphError::Bug(e)) => Err(e),
        Err(GraphError::Unchainable(_)) => Ok(None),
    }
}

/// The differential fuzz targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One operation per case ([`diff_op_case`]), checked with `check::check`.
    DiffOp,
    /// Graphs of 2–20 operations ([`diff_graph_case`]), checked with `graph::check_graph`, which
    /// names the instruction at fault.
    DiffGraph,
}

impl Target {
    /// The cargo-fuzz target's name: `diff_op` or `diff_graph`.
    pub fn name(self) -> &'static str {
        match self {
            Target::DiffOp => "diff_op",
            Target::DiffGraph => "diff_graph",
        }
    }

    /// The case of `data` for this target (`None`: not a case, see [`diff_graph_case`]).
    ///
    /// Errors: as [`diff_op_case`] and [`diff_graph_case`].
    pub fn case(self, data: &[u8]) -> Result<Option<FuzzCase>, String> {
        match self {
            Target::DiffOp => diff_op_case(data).map(Some),
            Target::DiffGraph => diff_graph_case(data),
        }
    }
}

/// What kind of discrepancy a differential target found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiscrepancyKind {
    /// A backend's verdict against the reference was `fail`, `error` or `timeout`.
    Backend { backend: String, verdict: Verdict },
    /// The reference failed on a generated case (a bug of the reference or the generator).
    ReferenceError,
    /// The generator failed or panicked (a bug of the generator).
    GeneratorError,
    /// The harness panicked outside a backend's `execute` (while comparing, or computing the
    /// root's operands for the report).
    Panic,
}

/// A disagreement found by a differential fuzz target: everything needed to understand it, and
/// (in its `Display`) the commands that reproduce and minimize it.
#[derive(Clone, Debug)]
pub struct Discrepancy {
    pub target: Target,
    pub kind: DiscrepancyKind,
    /// Summary row (catalog id, `->target` for conversions, `graph`) and element type, when a case
    /// was built.
    pub row: String,
    pub dtype: String,
    /// For graphs: the instruction the disagreement was localized to, and its catalog id.
    pub fault: Option<Fault>,
    /// The generator configuration ([`GeneratorConfig::describe`]).
    pub generator: String,
    /// One line: the classes of difference, or the error text.
    pub message: String,
    /// The module, HLO text.
    pub hlo: Option<String>,
    /// Each argument in HLO literal syntax (shape with layout, then the values).
    pub inputs: Vec<String>,
    /// The differing elements (at most `compare::MAX_DIFFS`), one line each.
    pub diffs: Vec<String>,
}

impl Discrepancy {
    fn without_case(target: Target, kind: DiscrepancyKind, message: String) -> Box<Discrepancy> {
        Box::new(Discrepancy {
            target,
            kind,
            row: String::new(),
            dtype: String::new(),
            fault: None,
            generator: String::new(),
            message,
            hlo: None,
            inputs: vec![],
            diffs: vec![],
        })
    }

    fn of_case(
        target: Target,
        kind: DiscrepancyKind,
        fc: &FuzzCase,
        message: String,
    ) -> Box<Discrepancy> {
        Box::new(Discrepancy {
            target,
            kind,
            row: fc.case.row.clone(),
            dtype: fc.case.element_type.to_string(),
            fault: None,
            generator: fc.config.describe(),
            message,
            hlo: Some(fc.case.module.to_string()),
            inputs: fc.case.args.iter().map(|a| a.to_string()).collect(),
            diffs: vec![],
        })
    }
}

impl fmt::Display for Discrepancy {
    /// A multi-line report: what disagreed (and, for graphs, the instruction at fault), the
    /// generator configuration, the HLO module, the inputs, the differing elements, and the
    /// commands that reproduce and minimize the input (run from the repository root; `ARTIFACT`
    /// is the file libFuzzer names after the crash).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = self.target.name();
        let what = match &self.kind {
            DiscrepancyKind::Backend { backend, verdict } => {
                format!(
                    "{backend} disagrees with the reference ({})",
                    verdict.name()
                )
            }
            DiscrepancyKind::ReferenceError => "the reference failed".into(),
            DiscrepancyKind::GeneratorError => "the generator failed".into(),
            DiscrepancyKind::Panic => "the harness panicked".into(),
        };
        write!(f, "{target}: {what}")?;
        if !self.row.is_empty() {
            write!(f, " on {} {}", self.row, self.dtype)?;
        }
        if let Some(fault) = &self.fault {
            write!(f, " at instruction `{}` ({})", fault.instruction, fault.op)?;
        }
        writeln!(f, ": {}", self.message)?;
        if !self.generator.is_empty() {
            writeln!(f, "generator: {}", self.generator)?;
        }
        if let Some(hlo) = &self.hlo {
            writeln!(f, "HLO module:")?;
            for line in hlo.lines() {
                writeln!(f, "  {line}")?;
            }
        }
        for (k, input) in self.inputs.iter().enumerate() {
            writeln!(f, "input {k}: {input}")?;
        }
        if !self.diffs.is_empty() {
            writeln!(f, "differences (first {}):", self.diffs.len())?;
            for d in &self.diffs {
                writeln!(f, "  {d}")?;
            }
        }
        writeln!(f, "reproduce: cargo +nightly fuzz run {target} ARTIFACT")?;
        if matches!(self.kind, DiscrepancyKind::Backend { .. }) {
            writeln!(
                f,
                "minimize:  {MINIMIZE_DIR_VAR}=corpus/regressions cargo +nightly fuzz run {target} ARTIFACT"
            )?;
        }
        Ok(())
    }
}

/// Runs `f` with panics caught and the panic hook silenced (libFuzzer's hook aborts the process,
/// which would bypass the `catch_unwind` of `check::execute_guarded` and lose the report). The hook
/// is restored afterwards; calls are serialized so that concurrent callers restore it correctly.
///
/// Errors: the panic message, when `f` panicked.
pub fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Mutex<()> = Mutex::new(());
    let _guard = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    result.map_err(|payload| panic_message(payload.as_ref()))
}

/// The exact reference and the fast backend, in that order.
fn default_backends() -> (Reference, Fast) {
    (Reference, Fast::new())
}

/// The single-operation differential oracle: builds the case of `data` ([`diff_op_case`]) and
/// checks it on the exact reference and the fast backend.
///
/// Errors: a [`Discrepancy`] when the fast backend's verdict is `fail` or `error`, the reference
/// fails, the generator fails, or the harness panics.
pub fn diff_op(data: &[u8]) -> Result<(), Box<Discrepancy>> {
    let (reference, fast) = default_backends();
    differential(Target::DiffOp, data, &[&reference, &fast])
}

/// The graph differential oracle: builds the graph of `data` ([`diff_graph_case`]) and checks it
/// on the exact reference and the fast backend with `graph::check_graph`.
///
/// Errors: as [`diff_op`]; a discrepancy names the instruction at fault.
pub fn diff_graph(data: &[u8]) -> Result<(), Box<Discrepancy>> {
    let (reference, fast) = default_backends();
    differential(Target::DiffGraph, data, &[&reference, &fast])
}

/// [`diff_op`] or [`diff_graph`] on given backends (`backends[0]` is the reference): tests plant
/// bugs this way.
///
/// Errors: as [`diff_op`].
pub fn differential(
    target: Target,
    data: &[u8],
    backends: &[&dyn Backend],
) -> Result<(), Box<Discrepancy>> {
    match build(target, data)? {
        Some(fc) => examine(target, &fc, backends).map(|_| ()),
        None => Ok(()),
    }
}

/// Builds the case of `data` with panics caught; failures become
/// [`DiscrepancyKind::GeneratorError`].
fn build(target: Target, data: &[u8]) -> Result<Option<FuzzCase>, Box<Discrepancy>> {
    let generator_error = |m| Discrepancy::without_case(target, DiscrepancyKind::GeneratorError, m);
    match quietly(|| target.case(data)) {
        Ok(Ok(fc)) => Ok(fc),
        Ok(Err(e)) => Err(generator_error(e)),
        Err(p) => Err(generator_error(format!("panicked: {p}"))),
    }
}

/// Checks a fuzz case on `backends` (with `graph::check_graph` for graphs) and returns the outcome
/// with the instruction at fault, if any.
///
/// Errors: the catalog lacks the case's operation, or the check panicked.
fn run_check(
    target: Target,
    fc: &FuzzCase,
    backends: &[&dyn Backend],
) -> Result<(CaseOutcome, Option<Fault>), (DiscrepancyKind, String)> {
    let (catalog, _) = catalog_and_combos().map_err(|e| (DiscrepancyKind::GeneratorError, e))?;
    let (module, args) = (&fc.case.module, &fc.case.args);
    let checked = match target {
        Target::DiffOp => {
            let op = catalog.op(&fc.case.op_id).ok_or_else(|| {
                (
                    DiscrepancyKind::GeneratorError,
                    format!("no catalog entry `{}`", fc.case.op_id),
                )
            })?;
            quietly(|| {
                graph::check_operation(catalog, op, module, args, backends, &Stage::default())
            })
        }
        Target::DiffGraph => quietly(|| {
            let g = graph::check_graph(catalog, module, args, backends, &Stage::default());
            (g.outcome, g.fault)
        }),
    };
    checked.map_err(|p| (DiscrepancyKind::Panic, format!("panicked: {p}")))
}

/// Checks a fuzz case; returns the outcome when every backend agrees (or does not support it).
fn examine(
    target: Target,
    fc: &FuzzCase,
    backends: &[&dyn Backend],
) -> Result<CaseOutcome, Box<Discrepancy>> {
    let (outcome, fault) = run_check(target, fc, backends)
        .map_err(|(kind, m)| Discrepancy::of_case(target, kind, fc, m))?;
    match disagreement(target, fc, &outcome) {
        Some(mut d) => {
            d.fault = fault;
            Err(d)
        }
        None => Ok(outcome),
    }
}

/// The first disagreement of an outcome, as a [`Discrepancy`].
fn disagreement(target: Target, fc: &FuzzCase, outcome: &CaseOutcome) -> Option<Box<Discrepancy>> {
    if let Some(e) = &outcome.reference_error {
        return Some(Discrepancy::of_case(
            target,
            DiscrepancyKind::ReferenceError,
            fc,
            e.clone(),
        ));
    }
    let o = outcome
        .outcomes
        .iter()
        .find(|o| matches!(o.verdict, Verdict::Fail | Verdict::Error | Verdict::Timeout))?;
    let message = match (&o.comparison, &o.error) {
        (_, Some(e)) => e.clone(),
        (Some(c), None) => {
            let classes: Vec<String> = c.classes.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
            format!(
                "{} of {} compared element(s) differ ({}); largest distance {} ULP",
                c.classes.values().sum::<usize>(),
                c.compared,
                classes.join(", "),
                c.max_ulps
            )
        }
        (None, None) => o.verdict.name().to_string(),
    };
    let mut d = Discrepancy::of_case(
        target,
        DiscrepancyKind::Backend {
            backend: o.backend.clone(),
            verdict: o.verdict,
        },
        fc,
        message,
    );
    if let Some(c) = &o.comparison {
        d.diffs = c.diffs.iter().map(|x| x.to_string()).collect();
    }
    Some(d)
}

/// The command that recreates `data` as a file and runs `target` on it (from the repository root).
pub fn reproduce_command(target: &str, data: &[u8]) -> String {
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "printf %s '{hex}' | xxd -r -p > {target}.input && cargo +nightly fuzz run {target} {target}.input"
    )
}

/// Rebuilds the case of `data` exactly as [`diff_op`] does, minimizes its first disagreement with
/// the sweep's minimizer (`minimize::minimize`: cut to the root, default layouts, one element,
/// simple values, narrower types) and writes the corpus file to `dir`.
///
/// Errors: the case cannot be built, the reference fails on it, every backend agrees on it
/// (nothing to minimize), the minimizer panics or loses the disagreement, or the file cannot be
/// written.
pub fn diff_op_minimize(data: &[u8], dir: &Path) -> Result<PathBuf, String> {
    let (reference, fast) = default_backends();
    minimize_input(Target::DiffOp, data, dir, &[&reference, &fast])
}

/// As [`diff_op_minimize`] for a graph: minimized from its instruction at fault (the graph
/// truncated there), as `conformance run --graphs --minimize` does.
///
/// Errors: as [`diff_op_minimize`], and a disagreement that was not localized to an instruction
/// (a backend error on the whole graph).
pub fn diff_graph_minimize(data: &[u8], dir: &Path) -> Result<PathBuf, String> {
    let (reference, fast) = default_backends();
    minimize_input(Target::DiffGraph, data, dir, &[&reference, &fast])
}

/// [`diff_op_minimize`] or [`diff_graph_minimize`] on given backends (`backends[0]` is the
/// reference).
///
/// Errors: as [`diff_op_minimize`].
pub fn minimize_input(
    target: Target,
    data: &[u8],
    dir: &Path,
    backends: &[&dyn Backend],
) -> Result<PathBuf, String> {
    let (catalog, _) = catalog_and_combos()?;
    let fc = build(target, data)
        .map_err(|d| d.to_string())?
        .ok_or("this input builds no case: nothing to minimize")?;
    let (outcome, fault) = run_check(target, &fc, backends).map_err(|(_, m)| m)?;
    if let Some(e) = outcome.reference_error {
        return Err(format!(
            "the reference failed on this input ({e}): nothing to minimize"
        ));
    }
    let command = reproduce_command(target.name(), data);
    let record = CaseRecord {
        seed: fc.case.seed,
        index: fc.case.index,
        op: fault
            .as_ref()
            .map_or(fc.case.op_id.clone(), |f| f.op.clone()),
        row: fc.case.row.clone(),
        dtype: fc.case.element_type.to_string(),
        target: fc.case.target_type.map(|t| t.to_string()),
        instruction: fault.as_ref().map(|f| f.instruction.clone()),
        hlo: Some(fc.case.module.to_string()),
        replay: command.clone(),
        minimized: None,
        reference_micros: outcome.reference_micros,
        reference_error: None,
        outcomes: outcome.outcomes,
    };
    let goal = minimize::target_of(&record)
        .ok_or("every backend agrees with the reference on this input: nothing to minimize")?;
    let op = catalog.op(&record.op).ok_or_else(|| {
        format!(
            "the disagreement was not localized to an operation (`{}`): nothing to minimize",
            record.op
        )
    })?;
    // A graph is minimized from its instruction at fault (the graph truncated there).
    let module = match &fault {
        Some(f) => {
            let entry = fc.case.module.entry_computation();
            match entry
                .instructions
                .iter()
                .position(|i| i.name == f.instruction)
            {
                Some(i) => graph::truncated(&fc.case.module, i),
                None => fc.case.module.clone(),
            }
        }
        None => fc.case.module.clone(),
    };
    let m = quietly(|| minimize::minimize(op, &module, &fc.case.args, backends, goal))
        .map_err(|p| format!("the minimizer panicked: {p}"))??;
    let provenance = Provenance {
        seed: fc.case.seed,
        case_index: fc.case.index,
        generator: format!("{} fuzz target; {}", target.name(), fc.config.describe()),
        command,
    };
    minimize::corpus_case(&record, goal, &m, provenance, backends).save(dir)
}

#[cfg(test)]
mod tests;
