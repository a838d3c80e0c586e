//! `conformance run`: a sweep of generated cases over the catalog, on every backend, compared with
//! the reference; results appended to JSONL (flushed per case) and summarized op × element type.

use crate::backends;
use crate::check::{check, BackendOutcome, Verdict};
use crate::generate::{self, Filters, GeneratorConfig};
use conformance_spec::catalog::Catalog;
use conformance_spec::Backend;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long a sweep runs.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// Exactly this many cases.
    Cases(u64),
    /// Cases until this much wall time has passed (whole batches).
    Time(Duration),
}

/// Options of a sweep.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub seed: u64,
    pub budget: Budget,
    pub filters: Filters,
    /// Backend names; the first is the one the others are compared with.
    pub backends: Vec<String>,
    pub results: Option<PathBuf>,
    /// Show a progress bar (otherwise plain progress lines every few seconds).
    pub progress_bar: bool,
    pub generator: GeneratorConfig,
    /// Run only this case index of the sweep (to replay one case).
    pub only_case: Option<u64>,
}

/// One JSONL line: a case and its outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseRecord {
    pub seed: u64,
    pub index: u64,
    pub op: String,
    pub row: String,
    pub dtype: String,
    pub target: Option<String>,
    /// The case's HLO module text (only for cases that did not pass, to keep files small).
    pub hlo: Option<String>,
    pub reference_micros: u64,
    pub reference_error: Option<String>,
    pub outcomes: Vec<BackendOutcome>,
}

/// Counts of one summary cell (row × element type × backend).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CellStats {
    pub cases: u64,
    pub pass: u64,
    pub fail: u64,
    pub error: u64,
    pub unsupported: u64,
    pub masked_elements: u64,
    pub max_ulps: u64,
}

/// What a sweep found.
#[derive(Debug, Default)]
pub struct RunSummary {
    pub cases: u64,
    pub elapsed: Duration,
    /// (row, dtype, backend) → stats, rows in catalog order via `row_order`.
    pub cells: BTreeMap<(String, String, String), CellStats>,
    pub row_order: Vec<String>,
    /// Records of cases that did not pass (first 50).
    pub failures: Vec<CaseRecord>,
    /// Generator or reference failures (bugs of this project), with their case coordinates.
    pub internal_errors: Vec<String>,
}

impl RunSummary {
    /// Exit status per DESIGN.md: 0 all agree, 1 discrepancies found, 3 internal error.
    pub fn exit_code(&self) -> i32 {
        if !self.internal_errors.is_empty() {
            3
        } else if self.cells.values().any(|c| c.fail > 0 || c.error > 0) {
            1
        } else {
            0
        }
    }
}

/// Runs a sweep. `log` receives progress lines when no progress bar is shown.
///
/// Errors: bad filters or backend names (exit status 2), or the results file cannot be written.
pub fn run(
    catalog: &Catalog,
    options: &RunOptions,
    log: &mut dyn Write,
) -> Result<RunSummary, String> {
    let combos = generate::plan(catalog, &options.filters)?;
    if combos.is_empty() {
        return Err("the filters select no (operation, element type) combination".to_string());
    }
    let owned: Vec<Box<dyn Backend>> = options
        .backends
        .iter()
        .map(|n| backends::by_name(n))
        .collect::<Result<_, _>>()?;
    if owned.len() < 2 {
        return Err(
            "--backends needs at least two backends (the first is the reference)".to_string(),
        );
    }
    let backends: Vec<&dyn Backend> = owned.iter().map(|b| b.as_ref()).collect();
    let mut results = match &options.results {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| format!("{}: cannot open results file: {e}", p.display()))?,
        )),
        None => None,
    };

    let mut summary = RunSummary::default();
    let mut seen_rows = std::collections::HashSet::new();
    for c in &combos {
        let op = &catalog.ops()[c.op_index];
        let row = match c.target_type {
            Some(t) => format!("{}->{}", op.id, t),
            None => op.id.clone(),
        };
        if seen_rows.insert(row.clone()) {
            summary.row_order.push(row);
        }
    }
    let start = Instant::now();
    let total = match options.budget {
        Budget::Cases(n) => Some(n),
        Budget::Time(_) => None,
    };
    let bar = options.progress_bar.then(|| {
        let pb = match total {
            Some(n) => indicatif::ProgressBar::new(n),
            None => indicatif::ProgressBar::new_spinner(),
        };
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos} cases {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let batch = (rayon::current_num_threads() * 16) as u64;
    let mut next: u64 = options.only_case.unwrap_or(0);
    let mut last_line = Instant::now();
    loop {
        let end = match (options.only_case, options.budget) {
            (Some(i), _) => {
                if next > i {
                    break;
                }
                i + 1
            }
            (None, Budget::Cases(n)) => (next + batch).min(n),
            (None, Budget::Time(limit)) => {
                if start.elapsed() >= limit {
                    break;
                }
                next + batch
            }
        };
        if next >= end {
            break;
        }
        let records: Vec<Result<CaseRecord, String>> = (next..end)
            .into_par_iter()
            .map(|index| {
                let case =
                    generate::case(catalog, &combos, &options.generator, options.seed, index)?;
                let op = catalog.op(&case.op_id).ok_or("op vanished")?;
                let outcome = check(op, &case.module, &case.args, &backends);
                let passed = outcome.reference_error.is_none()
                    && outcome
                        .outcomes
                        .iter()
                        .all(|o| o.verdict == Verdict::Pass || o.verdict == Verdict::Unsupported);
                Ok(CaseRecord {
                    seed: case.seed,
                    index: case.index,
                    op: case.op_id.clone(),
                    row: case.row.clone(),
                    dtype: case.element_type.to_string(),
                    target: case.target_type.map(|t| t.to_string()),
                    hlo: (!passed).then(|| case.module.to_string()),
                    reference_micros: outcome.reference_micros,
                    reference_error: outcome.reference_error,
                    outcomes: outcome.outcomes,
                })
            })
            .collect();
        for record in records {
            summary.cases += 1;
            let record = match record {
                Ok(r) => r,
                Err(e) => {
                    summary.internal_errors.push(e);
                    continue;
                }
            };
            if let Some(w) = results.as_mut() {
                let line = serde_json::to_string(&record).map_err(|e| e.to_string())?;
                writeln!(w, "{line}")
                    .and_then(|_| w.flush())
                    .map_err(|e| format!("writing results: {e}"))?;
            }
            tally(&mut summary, record);
        }
        next = end;
        if let Some(pb) = &bar {
            pb.set_position(next);
            pb.set_message(failure_message(&summary));
        } else if last_line.elapsed() > Duration::from_secs(10) {
            let _ = writeln!(
                log,
                "{} cases, {:.0}s, {}",
                next,
                start.elapsed().as_secs_f64(),
                failure_message(&summary)
            );
            last_line = Instant::now();
        }
    }
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    summary.elapsed = start.elapsed();
    Ok(summary)
}

fn failure_message(s: &RunSummary) -> String {
    let fails: u64 = s.cells.values().map(|c| c.fail + c.error).sum();
    format!("{fails} disagreements")
}

fn tally(summary: &mut RunSummary, record: CaseRecord) {
    let mut failed = false;
    if let Some(e) = &record.reference_error {
        summary.internal_errors.push(format!(
            "reference failed on {} {} (seed {}, case {}): {e}",
            record.row, record.dtype, record.seed, record.index
        ));
        failed = true;
    }
    for o in &record.outcomes {
        let cell = summary
            .cells
            .entry((record.row.clone(), record.dtype.clone(), o.backend.clone()))
            .or_default();
        cell.cases += 1;
        match o.verdict {
            Verdict::Pass => cell.pass += 1,
            Verdict::Fail => cell.fail += 1,
            Verdict::Error => cell.error += 1,
            Verdict::Unsupported => cell.unsupported += 1,
        }
        if let Some(c) = &o.comparison {
            cell.max_ulps = cell.max_ulps.max(c.max_ulps);
            cell.masked_elements += c.masked as u64;
        }
        failed |= matches!(o.verdict, Verdict::Fail | Verdict::Error);
    }
    if failed && summary.failures.len() < 50 {
        summary.failures.push(record);
    }
}

/// Prints the op × element type table for each compared backend, then the first failures.
pub fn print_summary(
    summary: &RunSummary,
    options: &RunOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut dtypes: Vec<String> = Vec::new();
    for t in conformance_spec::ElementType::ALL {
        if summary.cells.keys().any(|(_, d, _)| d == t.hlo_name()) {
            dtypes.push(t.to_string());
        }
    }
    for backend in options.backends.iter().skip(1) {
        writeln!(out, "\n{} vs {}: cells show passing cases, `F<n>` failures, `E<n>` errors, `U` unsupported, `.` no case", backend, options.backends[0])?;
        let width = summary
            .row_order
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(4)
            .max(4);
        write!(out, "{:width$}", "op")?;
        for d in &dtypes {
            write!(out, " {d:>7}")?;
        }
        writeln!(out)?;
        for row in &summary.row_order {
            let cells: Vec<Option<&CellStats>> = dtypes
                .iter()
                .map(|d| {
                    summary
                        .cells
                        .get(&(row.clone(), d.clone(), backend.clone()))
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                continue;
            }
            write!(out, "{row:width$}")?;
            for c in cells {
                let text = match c {
                    None => ".".to_string(),
                    Some(c) if c.fail > 0 => format!("F{}", c.fail),
                    Some(c) if c.error > 0 => format!("E{}", c.error),
                    Some(c) if c.pass == 0 && c.unsupported > 0 => "U".to_string(),
                    Some(c) => c.pass.to_string(),
                };
                write!(out, " {text:>7}")?;
            }
            writeln!(out)?;
        }
    }
    let totals = summary
        .cells
        .values()
        .fold(CellStats::default(), |mut t, c| {
            t.cases += c.cases;
            t.pass += c.pass;
            t.fail += c.fail;
            t.error += c.error;
            t.unsupported += c.unsupported;
            t.masked_elements += c.masked_elements;
            t
        });
    writeln!(
        out,
        "\n{} cases in {:.1}s (seed {}): {} comparisons, {} pass, {} fail, {} error, {} unsupported; {} implementation-defined elements masked",
        summary.cases,
        summary.elapsed.as_secs_f64(),
        options.seed,
        totals.cases,
        totals.pass,
        totals.fail,
        totals.error,
        totals.unsupported,
        totals.masked_elements
    )?;
    for e in summary.internal_errors.iter().take(20) {
        writeln!(out, "internal error: {e}")?;
    }
    for r in summary.failures.iter().take(10) {
        for o in r
            .outcomes
            .iter()
            .filter(|o| matches!(o.verdict, Verdict::Fail | Verdict::Error))
        {
            writeln!(
                out,
                "\nFAIL {} {} on {} (seed {}, case {}); replay: {}",
                r.row,
                r.dtype,
                o.backend,
                r.seed,
                r.index,
                replay_command(options, r.index)
            )?;
            if let Some(e) = &o.error {
                writeln!(out, "  error: {e}")?;
            }
            if let Some(c) = &o.comparison {
                for d in c.diffs.iter().take(5) {
                    writeln!(out, "  {d}")?;
                }
            }
            if let Some(h) = &r.hlo {
                for line in h.lines().take(12) {
                    writeln!(out, "  | {line}")?;
                }
            }
        }
    }
    if let Some(p) = &options.results {
        writeln!(out, "results: {}", p.display())?;
    }
    Ok(())
}

/// The command that re-runs exactly case `index` of this sweep.
pub fn replay_command(options: &RunOptions, index: u64) -> String {
    let mut cmd = format!("conformance run --seed {}", options.seed);
    if !options.filters.ops.is_empty() {
        cmd += &format!(" --ops {}", options.filters.ops.join(","));
    }
    if !options.filters.dtypes.is_empty() {
        cmd += &format!(" --dtypes {}", options.filters.dtypes.join(","));
    }
    cmd += &format!(
        " --backends {} --only-case {index}",
        options.backends.join(",")
    );
    cmd
}

/// True when progress should be a bar: standard error is a terminal and this is not CI.
pub fn wants_progress_bar() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}
