//! The report's data: results files merged into one pass matrix and one ULP histogram per
//! (reference, backend) pair, with the failing cases of every cell kept for the drill-down.

use super::ReportError;
use crate::check::{BackendOutcome, Verdict};
use crate::compare::{Comparison, DiffClass};
use crate::known::KnownDeviation;
use crate::results::{self, CaseRecord, ResultLine, RunEnd, RunStart};
use conformance_spec::element_type::ElementType;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How many failing cases (fail, error, timeout) a cell keeps in detail: the first in
/// [`FailingCase::order`] (new discrepancies, then known deviations, each by lowest (seed, case
/// index)); the rest are only counted ([`Cell::failing_omitted`]).
pub const MAX_CASES_PER_CELL: usize = 20;

/// Number of ULP buckets of a [`Histogram`]: `0`, `1`, then `[2^k, 2^(k+1))` for `k = 1..=19`,
/// then `>= 2^20`.
pub const ULP_BUCKETS: usize = 22;

/// Largest minimized reproducer shown inline, in bytes (a longer file is cut there).
pub const MAX_MINIMIZED_BYTES: usize = 64 * 1024;

/// Counts of verdicts (each one a case on one backend).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerdictCounts {
    pub pass: u64,
    pub fail: u64,
    pub error: u64,
    pub timeout: u64,
    pub unsupported: u64,
}

impl VerdictCounts {
    /// All verdicts counted.
    pub fn total(&self) -> u64 {
        self.pass + self.fail + self.error + self.timeout + self.unsupported
    }

    /// Counts one more verdict.
    pub fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail => self.fail += 1,
            Verdict::Error => self.error += 1,
            Verdict::Timeout => self.timeout += 1,
            Verdict::Unsupported => self.unsupported += 1,
        }
    }

    /// Fail, error and timeout verdicts: the cases a drill-down lists.
    pub fn failing(&self) -> u64 {
        self.fail + self.error + self.timeout
    }
}

/// One run of a results file: a `run-start` line and the `run-end` that closed it, if any (a run
/// killed mid-way has none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunInfo {
    /// `None` for case lines that precede any `run-start` in their file.
    pub start: Option<RunStart>,
    pub end: Option<RunEnd>,
}

/// One input file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputFile {
    pub path: PathBuf,
    pub runs: Vec<RunInfo>,
    /// Case lines read (duplicates included).
    pub cases: u64,
    /// Case lines ignored because the same case was already read (this or an earlier file).
    pub duplicates: u64,
    /// What was odd about the file but did not stop the report (an empty file, a truncated last
    /// line), each naming the file and, where there is one, the line.
    pub warnings: Vec<String>,
}

/// Totals over every input.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Totals {
    /// Distinct cases.
    pub cases: u64,
    /// Verdicts of every (case, backend) pair, over every backend pair.
    pub verdicts: VerdictCounts,
    /// Elements left to the implementation and not compared (catalog `implementation_defined`).
    pub masked_elements: u64,
    /// Cases on which the reference itself failed (counted as errors of each backend pair).
    pub reference_errors: u64,
    /// Failures (counted in `verdicts.fail`) explained by accepted deviations of the corpus.
    pub known: u64,
    /// Case lines ignored as duplicates.
    pub duplicates: u64,
    /// Cases and wall time (seconds) of the runs that ended normally, for cases per second.
    pub ended_cases: u64,
    pub ended_secs: f64,
}

/// A minimized reproducer (`CaseRecord::minimized`), read at report time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Minimized {
    /// The file exists: its text (cut at [`MAX_MINIMIZED_BYTES`]).
    File { path: String, text: String },
    /// The file does not exist (or cannot be read) where the record says.
    Missing { path: String },
}

/// A case that did not pass on one backend (fail, error or timeout).
#[derive(Clone, Debug, PartialEq)]
pub struct FailingCase {
    pub seed: u64,
    pub index: u64,
    pub verdict: Verdict,
    pub comparison: Option<Comparison>,
    /// The backend's error (or the reference's, prefixed `reference failed: `).
    pub error: Option<String>,
    /// Wall time of the backend's execute call, microseconds.
    pub micros: u64,
    pub hlo: Option<String>,
    pub replay: String,
    pub minimized: Option<Minimized>,
    /// Path from the record, resolved into `minimized` when the report is finished.
    pub(super) minimized_path: Option<String>,
    /// The corpus files of the accepted deviations that explain this failure, one per class of
    /// difference ([`crate::known::explaining`]); empty for a new discrepancy.
    pub known: Vec<PathBuf>,
}

impl FailingCase {
    /// `(replicas, partitions)` of the case's module when it runs on several devices
    /// (docs/collectives.md; read from its HLO header), `None` for one device.
    pub fn devices(&self) -> Option<(usize, usize)> {
        let header = self.hlo.as_deref()?.lines().next()?;
        let read = |name: &str| -> usize {
            header
                .split(", ")
                .find_map(|a| a.strip_prefix(name))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(1)
        };
        let grid = (read("replica_count="), read("num_partitions="));
        (grid.0 * grid.1 > 1).then_some(grid)
    }

    /// The order in which a cell keeps and shows its failing cases: new discrepancies before
    /// known deviations, each by (seed, case index).
    pub fn order(&self) -> (bool, u64, u64) {
        (!self.known.is_empty(), self.seed, self.index)
    }
}

/// One cell of a pass matrix: the cases of one row and element type on one backend.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    pub verdicts: VerdictCounts,
    /// Largest per-case `max_ulps` over the compared cases (passing and failing).
    pub max_ulps: u64,
    /// Largest per-case `max_ulps` over the passing cases.
    pub max_ulps_passing: u64,
    /// The catalog's ULP budget for the row's result type, when the catalog knows the row.
    pub budget_ulps: Option<u64>,
    pub masked_elements: u64,
    /// Failing cases per difference class (a case counts once per class it shows).
    pub fail_classes: BTreeMap<DiffClass, u64>,
    /// The first [`MAX_CASES_PER_CELL`] failing cases in [`FailingCase::order`].
    pub failing: Vec<FailingCase>,
    /// Failing cases not kept in `failing`.
    pub failing_omitted: u64,
    /// Reasons given for unsupported verdicts, with their counts.
    pub unsupported_reasons: BTreeMap<String, u64>,
    /// Failures (counted in `verdicts.fail`) explained by accepted deviations of the corpus.
    pub known: u64,
}

impl Cell {
    /// Fail, error and timeout verdicts not explained by an accepted deviation.
    pub fn unexplained(&self) -> u64 {
        self.verdicts.failing() - self.known
    }

    /// The class shown for a cell with failures: the one most failing cases show (ties: the first
    /// in [`DiffClass`] order). `None` when no failure has a comparison.
    pub fn dominant_class(&self) -> Option<DiffClass> {
        let mut best: Option<(DiffClass, u64)> = None;
        for (&c, &n) in &self.fail_classes {
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((c, n));
            }
        }
        best.map(|(c, _)| c)
    }
}

/// Per-case distribution of `max_ulps` of one backend pair. Every compared case counts once:
/// in the bar of the non-ULP class with most elements when it shows one, else in the ULP bucket
/// of its `max_ulps` ([`ulp_bucket`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    pub ulp: [u64; ULP_BUCKETS],
    pub classes: BTreeMap<DiffClass, u64>,
}

impl Histogram {
    fn add(&mut self, c: &Comparison) {
        let non_ulp = c
            .classes
            .iter()
            .filter(|(&k, &n)| k != DiffClass::Ulp && n > 0)
            .fold(None::<(DiffClass, usize)>, |best, (&k, &n)| match best {
                Some((_, m)) if m >= n => best,
                _ => Some((k, n)),
            });
        match non_ulp {
            Some((k, _)) => *self.classes.entry(k).or_insert(0) += 1,
            None => self.ulp[ulp_bucket(c.max_ulps)] += 1,
        }
    }

    /// Cases counted.
    pub fn total(&self) -> u64 {
        self.ulp.iter().sum::<u64>() + self.classes.values().sum::<u64>()
    }
}

/// The histogram bucket of a ULP distance: 0 → 0, 1 → 1, `[2^k, 2^(k+1))` → `k + 1` for
/// `k = 1..=19`, `>= 2^20` → 21.
pub fn ulp_bucket(ulps: u64) -> usize {
    if ulps == 0 {
        0
    } else {
        let k = 63 - ulps.leading_zeros() as usize;
        (k + 1).min(ULP_BUCKETS - 1)
    }
}

/// One backend compared with a reference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairReport {
    pub reference: String,
    pub backend: String,
    /// Matrix rows (`op` or `op->target`), in catalog order; unknown ids after, by name.
    pub rows: Vec<String>,
    /// Matrix columns: element type names in `ElementType::ALL` order; unknown names after.
    pub dtypes: Vec<String>,
    /// (row, dtype) → cell.
    pub cells: BTreeMap<(String, String), Cell>,
    pub histogram: Histogram,
    /// Row → elements compared within an error bound (sums: dot, convolution, sum reductions),
    /// counted per bucket of |got − exact| / bound ([`crate::compare::BOUND_RATIO_BUCKETS`]).
    pub bound_ratios: BTreeMap<String, Vec<u64>>,
    pub verdicts: VerdictCounts,
    pub masked_elements: u64,
    /// Elements set aside because the backend flushes subnormals, and the cases they are in
    /// ([`crate::oracles::subnormals`]).
    pub flushed_subnormals: u64,
    pub flushing_cases: u64,
    /// Elements set aside as fused multiply-adds, and the cases they are in
    /// ([`crate::oracles::fused`]).
    pub fused_multiply_adds: u64,
    pub fusing_cases: u64,
    /// Failures (counted in `verdicts.fail`) explained by accepted deviations of the corpus.
    pub known: u64,
}

/// Everything the page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub inputs: Vec<InputFile>,
    pub totals: Totals,
    /// In order of first appearance.
    pub pairs: Vec<PairReport>,
}

impl Report {
    /// Every input file's warnings (an empty file, a truncated last line), in input order.
    pub fn warnings(&self) -> Vec<String> {
        self.inputs
            .iter()
            .flat_map(|f| f.warnings.iter().cloned())
            .collect()
    }
}

/// Merges results files; see [`super::build_report`].
pub(super) fn build(inputs: &[PathBuf], known: &[KnownDeviation]) -> Result<Report, ReportError> {
    if inputs.is_empty() {
        return Err(ReportError::NoInputs);
    }
    let mut b = Builder {
        known: known.to_vec(),
        ..Builder::default()
    };
    for path in inputs {
        let name = path.display().to_string();
        let text = crate::text_input::read_text(path).map_err(ReportError::Unreadable)?;
        let lines = results::parse(&name, &text)?;
        b.add_file(path, lines);
        if let Some(file) = b.report.inputs.last_mut() {
            file.warnings = file_warnings(&name, &text);
        }
    }
    Ok(b.finish(inputs))
}

/// Warnings about a results file's text that [`results::parse`] reads without an error: an
/// empty file, and a last line without its newline that is not a complete JSON line (a run
/// killed while writing it), which is skipped.
pub(super) fn file_warnings(name: &str, text: &str) -> Vec<String> {
    if text.trim().is_empty() {
        return vec![format!(
            "{name}: empty results file: no run or case recorded"
        )];
    }
    let mut warnings = Vec::new();
    if !text.ends_with('\n') {
        let start = results::complete_prefix_len(text);
        let last = &text[start..];
        if serde_json::from_str::<ResultLine>(last).is_err() {
            let line = text[..start].matches('\n').count() + 1;
            warnings.push(format!(
                "{name}:{line}: truncated last line ({} bytes, no newline, not a complete JSON results line): skipped (a run killed while writing it; `conformance run --resume` drops it)",
                last.len()
            ));
        }
    }
    warnings
}

/// Identity of a case across files: (filters id, seed, index); the filters id interns
/// (`--ops`, `--dtypes`, `--swarm`, `--graphs`, `--inputs-per-module`) of the run that wrote it.
type CaseKey = (u32, u64, u64);

/// The options of a run that select its cases: (`--ops`, `--dtypes`, `--swarm`, `--graphs`,
/// `--inputs-per-module`).
type Filters = (Vec<String>, Vec<String>, Option<String>, bool, u64);

#[derive(Default)]
struct Builder {
    report: Report,
    filters: HashMap<Filters, u32>,
    seen: HashSet<CaseKey>,
    /// (case, backend) outcomes already counted: files of other backends on the same cases (a
    /// job matrix of backends × shards) add their outcomes to the same cases.
    seen_outcomes: HashSet<(CaseKey, String)>,
    pair_index: HashMap<(String, String), usize>,
    known: Vec<KnownDeviation>,
}

impl Builder {
    fn add_file(&mut self, path: &Path, lines: Vec<ResultLine>) {
        let mut file = InputFile {
            path: path.to_path_buf(),
            ..Default::default()
        };
        for line in lines {
            match line {
                ResultLine::RunStart(s) => file.runs.push(RunInfo {
                    start: Some(s),
                    end: None,
                }),
                ResultLine::RunEnd(e) => {
                    self.report.totals.ended_cases += e.cases;
                    self.report.totals.ended_secs += e.elapsed_secs;
                    match file.runs.last_mut() {
                        Some(r) if r.end.is_none() => r.end = Some(e),
                        _ => file.runs.push(RunInfo {
                            start: None,
                            end: Some(e),
                        }),
                    }
                }
                ResultLine::Case(c) => {
                    file.cases += 1;
                    let start = file.runs.last().and_then(|r| r.start.as_ref());
                    if self.add_case(start, c) {
                        file.duplicates += 1;
                        self.report.totals.duplicates += 1;
                    }
                }
            }
        }
        self.report.inputs.push(file);
    }

    /// Adds one case record; returns true (and adds nothing) when it is a duplicate: the same
    /// case (seed, index, sweep filters) with no outcome of a backend not counted yet.
    fn add_case(&mut self, start: Option<&RunStart>, mut c: CaseRecord) -> bool {
        let filters = match start {
            Some(s) => (
                s.ops.clone(),
                s.dtypes.clone(),
                s.swarm.clone(),
                s.graphs,
                s.inputs_per_module.max(1),
            ),
            None => (Vec::new(), Vec::new(), None, false, 1),
        };
        let next = self.filters.len() as u32;
        let fid = *self.filters.entry(filters).or_insert(next);
        let key = (fid, c.seed, c.index);
        let mut outcomes: Vec<BackendOutcome> = std::mem::take(&mut c.outcomes);
        if let Some(e) = &c.reference_error {
            // Nothing was compared: each backend of the run gets an error naming the reference.
            let others = start
                .map(|s| s.backends.iter().skip(1))
                .into_iter()
                .flatten();
            for b in others {
                if !outcomes.iter().any(|o| &o.backend == b) {
                    outcomes.push(BackendOutcome {
                        backend: b.clone(),
                        verdict: Verdict::Error,
                        comparison: None,
                        error: Some(format!("reference failed: {e}")),
                        micros: 0,
                    });
                }
            }
        }
        outcomes.retain(|o| !self.seen_outcomes.contains(&(key, o.backend.clone())));
        let new_case = self.seen.insert(key);
        if !new_case && outcomes.is_empty() {
            return true;
        }
        if new_case {
            let totals = &mut self.report.totals;
            totals.cases += 1;
            if c.reference_error.is_some() {
                totals.reference_errors += 1;
            }
        }
        let reference = start
            .and_then(|s| s.backends.first().cloned())
            .unwrap_or_else(|| "reference".to_string());
        for o in outcomes {
            self.seen_outcomes.insert((key, o.backend.clone()));
            self.add_outcome(&reference, &c, o);
        }
        false
    }

    fn add_outcome(&mut self, reference: &str, c: &CaseRecord, o: BackendOutcome) {
        let key = (reference.to_string(), o.backend.clone());
        let next = self.report.pairs.len();
        let k = *self.pair_index.entry(key).or_insert(next);
        if k == next {
            self.report.pairs.push(PairReport {
                reference: reference.to_string(),
                backend: o.backend.clone(),
                ..Default::default()
            });
        }
        let totals = &mut self.report.totals;
        let pair = &mut self.report.pairs[k];
        totals.verdicts.add(o.verdict);
        pair.verdicts.add(o.verdict);
        let cell = pair
            .cells
            .entry((c.row.clone(), c.dtype.clone()))
            .or_default();
        cell.verdicts.add(o.verdict);
        if let Some(cmp) = &o.comparison {
            totals.masked_elements += cmp.masked as u64;
            pair.masked_elements += cmp.masked as u64;
            cell.masked_elements += cmp.masked as u64;
            cell.max_ulps = cell.max_ulps.max(cmp.max_ulps);
            if o.verdict == Verdict::Pass {
                cell.max_ulps_passing = cell.max_ulps_passing.max(cmp.max_ulps);
            }
            pair.histogram.add(cmp);
            if cmp.flushed_subnormals > 0 {
                pair.flushed_subnormals += cmp.flushed_subnormals;
                pair.flushing_cases += 1;
            }
            if cmp.fused_multiply_adds > 0 {
                pair.fused_multiply_adds += cmp.fused_multiply_adds;
                pair.fusing_cases += 1;
            }
            if !cmp.bound_ratios.is_empty() {
                let counts = pair
                    .bound_ratios
                    .entry(c.row.clone())
                    .or_insert_with(|| vec![0; crate::compare::BOUND_RATIO_BUCKETS.len()]);
                for (total, n) in counts.iter_mut().zip(&cmp.bound_ratios) {
                    *total += n;
                }
            }
        }
        match o.verdict {
            Verdict::Pass => {}
            Verdict::Unsupported => {
                let reason = o
                    .error
                    .clone()
                    .unwrap_or_else(|| "(no reason given)".into());
                *cell.unsupported_reasons.entry(reason).or_insert(0) += 1;
            }
            Verdict::Fail | Verdict::Error | Verdict::Timeout => {
                let known: Vec<PathBuf> =
                    crate::known::explaining(&self.known, &c.op, &c.dtype, &o)
                        .into_iter()
                        .map(|k| k.path.clone())
                        .collect();
                if !known.is_empty() {
                    totals.known += 1;
                    pair.known += 1;
                    cell.known += 1;
                }
                if let Some(cmp) = &o.comparison {
                    for (&class, &n) in &cmp.classes {
                        if n > 0 {
                            *cell.fail_classes.entry(class).or_insert(0) += 1;
                        }
                    }
                }
                keep_failing(cell, c, o, known);
            }
        }
    }

    fn finish(mut self, inputs: &[PathBuf]) -> Report {
        let catalog = conformance_spec::catalog::shared();
        let op_position: HashMap<&str, usize> = catalog
            .map(|cat| {
                cat.ops()
                    .iter()
                    .enumerate()
                    .map(|(i, op)| (op.id.as_str(), i))
                    .collect()
            })
            .unwrap_or_default();
        let bases: Vec<&Path> = inputs.iter().filter_map(|p| p.parent()).collect();
        for pair in &mut self.report.pairs {
            let rows: BTreeSet<&String> = pair.cells.keys().map(|(r, _)| r).collect();
            let dtypes: BTreeSet<&String> = pair.cells.keys().map(|(_, d)| d).collect();
            let mut rows: Vec<String> = rows.into_iter().cloned().collect();
            let mut dtypes: Vec<String> = dtypes.into_iter().cloned().collect();
            rows.sort_by_cached_key(|r| row_sort_key(r, &op_position));
            dtypes.sort_by_cached_key(|d| dtype_sort_key(d));
            pair.rows = rows;
            pair.dtypes = dtypes;
            for ((row, dtype), cell) in &mut pair.cells {
                cell.budget_ulps = catalog.and_then(|cat| budget(cat, row, dtype));
                cell.failing.sort_by_key(FailingCase::order);
                if cell.failing.len() > MAX_CASES_PER_CELL {
                    cell.failing_omitted += (cell.failing.len() - MAX_CASES_PER_CELL) as u64;
                    cell.failing.truncate(MAX_CASES_PER_CELL);
                }
                for f in &mut cell.failing {
                    f.minimized = f
                        .minimized_path
                        .as_deref()
                        .map(|p| read_minimized(p, &bases));
                }
            }
        }
        self.report
    }
}

/// Keeps `o` among the cell's failing cases, bounded: when the list grows past twice the limit it
/// is cut back to the limit in [`FailingCase::order`].
fn keep_failing(cell: &mut Cell, c: &CaseRecord, o: BackendOutcome, known: Vec<PathBuf>) {
    cell.failing.push(FailingCase {
        seed: c.seed,
        index: c.index,
        verdict: o.verdict,
        comparison: o.comparison,
        error: o.error.or_else(|| {
            c.reference_error
                .as_ref()
                .map(|e| format!("reference failed: {e}"))
        }),
        micros: o.micros,
        hlo: c.hlo.clone(),
        replay: c.replay.clone(),
        minimized: None,
        minimized_path: c.minimized.clone(),
        known,
    });
    if cell.failing.len() >= 2 * MAX_CASES_PER_CELL {
        cell.failing.sort_by_key(FailingCase::order);
        cell.failing_omitted += (cell.failing.len() - MAX_CASES_PER_CELL) as u64;
        cell.failing.truncate(MAX_CASES_PER_CELL);
    }
}

/// Rows in catalog order of their op id (the part before `->`), then by target type order.
fn row_sort_key(row: &str, op_position: &HashMap<&str, usize>) -> (usize, (usize, String), String) {
    let (id, target) = match row.split_once("->") {
        Some((id, t)) => (id, Some(t)),
        None => (row, None),
    };
    let pos = op_position.get(id).copied().unwrap_or(usize::MAX);
    let target = target.map_or((0, String::new()), dtype_sort_key);
    (pos, target, row.to_string())
}

/// Element types in `ElementType::ALL` order, unknown names after (by name).
fn dtype_sort_key(d: &str) -> (usize, String) {
    let pos = ElementType::from_hlo_name(d)
        .and_then(|t| ElementType::ALL.iter().position(|&x| x == t))
        .unwrap_or(ElementType::ALL.len());
    (pos, d.to_string())
}

/// The catalog's ULP budget of a row's result type (the conversion target, else the row's type).
fn budget(catalog: &conformance_spec::catalog::Catalog, row: &str, dtype: &str) -> Option<u64> {
    let (id, result) = match row.split_once("->") {
        Some((id, t)) => (id, t),
        None => (row, dtype),
    };
    let op = catalog.op(id)?;
    let ty = ElementType::from_hlo_name(result)?;
    Some(op.tolerance.ulp_for(ty))
}

/// Reads a minimized reproducer: `path` as given (relative to the working directory), else
/// relative to each input file's directory.
fn read_minimized(path: &str, bases: &[&Path]) -> Minimized {
    let given = Path::new(path);
    let candidates = std::iter::once(given.to_path_buf()).chain(
        bases
            .iter()
            .filter(|_| given.is_relative())
            .map(|b| b.join(given)),
    );
    for p in candidates {
        if let Ok(bytes) = std::fs::read(&p) {
            let cut = &bytes[..bytes.len().min(MAX_MINIMIZED_BYTES)];
            let mut text = String::from_utf8_lossy(cut).into_owned();
            if bytes.len() > MAX_MINIMIZED_BYTES {
                text.push_str("\n… (cut)\n");
            }
            return Minimized::File {
                path: path.to_string(),
                text,
            };
        }
    }
    Minimized::Missing {
        path: path.to_string(),
    }
}
