//! `conformance report`: one self-contained HTML page (inline CSS, SVG and script; no network, no
//! external assets) from one or more results files of `conformance run --results`.
//!
//! Files are merged: the shards of one sweep add up cell by cell, the files of several backends
//! on the same cases (a CI job matrix of backends × shards) add each backend's outcomes to the same
//! cases, and an outcome that appears more than once for the same (seed, index, `--ops`,
//! `--dtypes`, `--swarm`, `--graphs`, `--inputs-per-module`) and backend — overlapping files, a
//! file given twice — counts once (the first occurrence). The reference of a case is the first backend of the
//! `run-start` line before it; every other backend is compared with it.
//!
//! The page has: totals and run metadata; a table of backends × op families (pass, fail, known,
//! unsupported: [`families`]); per (reference, backend) pair a pass matrix (rows = the
//! summary row, `op` or `op->target`, in catalog order; columns = element types in
//! `ElementType::ALL` order), coloured by verdict, worst ULP distance and failure class; a
//! histogram of per-case maximum ULP distance; and per cell a drill-down section
//! `#cell-<row>-<dtype>-<backend>` with the first failing cases (differing elements, HLO,
//! minimized reproducer, replay command).
//!
//! Failures explained by accepted deviations of the corpus ([`crate::known`]) are counted as
//! known: a cell whose every failure is known is shown as such (`K<n>`), and each known case
//! names its corpus files.

mod drill;
pub mod families;
pub mod html;
pub mod model;
mod style;
pub mod svg;

pub use model::{
    Cell, FailingCase, Histogram, InputFile, Minimized, PairReport, Report, RunInfo, Totals,
    VerdictCounts, MAX_CASES_PER_CELL, ULP_BUCKETS,
};

use crate::known::KnownDeviation;
use crate::results::ResultsError;
use std::path::{Path, PathBuf};

/// Why a report could not be built or written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No input file was given.
    #[error("no results files given")]
    NoInputs,
    /// An input cannot be read, or is not UTF-8 (the message names the file and the offset of
    /// the first invalid byte).
    #[error("{0}")]
    Unreadable(String),
    /// An input has a malformed line (the message names `file:line:col`).
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// The output file or its parent directories cannot be written.
    #[error("{path}: cannot write the report: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// What [`write_report`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportStats {
    pub output: PathBuf,
    /// Size of the page, bytes.
    pub bytes: usize,
    /// Distinct cases.
    pub cases: u64,
    /// Verdicts over every backend pair.
    pub verdicts: VerdictCounts,
    /// Backend pairs (reference, backend).
    pub pairs: usize,
    /// Matrix cells with at least one fail, error or timeout that no accepted deviation explains.
    pub failing_cells: usize,
    /// Failures explained by accepted deviations, over every backend pair.
    pub known: u64,
    /// Warnings about the inputs ([`Report::warnings`]), for the command to print.
    pub warnings: Vec<String>,
}

/// Reads and merges results files (see the module documentation for the merge rules); failures
/// that `known` explains are counted as known.
///
/// Errors: [`ReportError::NoInputs`] for an empty list; [`ReportError::Unreadable`] naming a file
/// that cannot be read or is not UTF-8; [`ReportError::Results`] naming the file and `line:col`
/// of a malformed line. An empty file or a truncated last line is not an error: see
/// [`Report::warnings`].
pub fn build_report(inputs: &[PathBuf], known: &[KnownDeviation]) -> Result<Report, ReportError> {
    model::build(inputs, known)
}

/// Renders a report as one self-contained HTML page.
pub fn render_html(report: &Report) -> String {
    html::render(report)
}

/// Builds the report of `inputs` and writes it to `output`, creating its parent directories.
///
/// Errors: those of [`build_report`]; [`ReportError::Write`] when the page cannot be written.
pub fn write_report(
    inputs: &[PathBuf],
    output: &Path,
    known: &[KnownDeviation],
) -> Result<ReportStats, ReportError> {
    let report = build_report(inputs, known)?;
    let page = render_html(&report);
    let write_err = |source| ReportError::Write {
        path: output.display().to_string(),
        source,
    };
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write_err)?;
    }
    std::fs::write(output, &page).map_err(write_err)?;
    Ok(ReportStats {
        output: output.to_path_buf(),
        bytes: page.len(),
        cases: report.totals.cases,
        verdicts: report.totals.verdicts,
        pairs: report.pairs.len(),
        failing_cells: report
            .pairs
            .iter()
            .flat_map(|p| p.cells.values())
            .filter(|c| c.unexplained() > 0)
            .count(),
        known: report.totals.known,
        warnings: report.warnings(),
    })
}

#[cfg(test)]
mod tests;
