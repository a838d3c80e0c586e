//! The results file of `conformance run --results FILE.jsonl`: one JSON object per line, appended
//! and flushed as the sweep goes, read back by `--resume` and `conformance report`.
//!
//! Every line has a `"type"`: `run-start` (the sweep's parameters, written when a run or a resumed
//! run begins), `case` (one case and each backend's verdict), `run-end` (written when a run
//! finishes normally). A run killed mid-way leaves no `run-end` and possibly a truncated last line;
//! readers skip a truncated *last* line and report any other malformed line with `file:line`.

use crate::check::BackendOutcome;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// One line of a results file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ResultLine {
    RunStart(RunStart),
    Case(CaseRecord),
    RunEnd(RunEnd),
}

/// The parameters of a sweep: a case is a pure function of these and its index.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStart {
    /// `conformance` version that wrote the file.
    pub version: String,
    pub seed: u64,
    /// `(k, n)`: this run covers the case indices `i` with `i mod n == k - 1` (`--shard k/n`).
    pub shard: Option<(u64, u64)>,
    /// `--ops` and `--dtypes` filters as given. `conformance replay --results` has no filters:
    /// its `ops` is one `replay FILE [--inputs ...]` naming what it replayed (a report keeps
    /// apart the cases of runs with different filters, so a replay's cases never merge with a
    /// sweep's or another replay's of the same seed and indices).
    pub ops: Vec<String>,
    pub dtypes: Vec<String>,
    /// Backend names, the reference first.
    pub backends: Vec<String>,
    /// Hash of the catalog's YAML sources.
    pub catalog_hash: String,
    /// The budget: `"cases:N"` or `"time:SECONDS"` (`conformance replay --results`: `"cases:N"`,
    /// its number of records).
    pub budget: String,
    /// Swarm configuration (`--swarm`), when the sweep used one, as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swarm: Option<String>,
    /// True for a sweep of multi-operation graphs (`--graphs`).
    #[serde(default)]
    pub graphs: bool,
    /// Consecutive cases sharing one module (`--inputs-per-module`); 1 when absent.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub inputs_per_module: u64,
    /// Operands passed as constants (`--constant-operands`): `some` or `all`; absent for `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant_operands: Option<String>,
    /// True when entry roots were wrapped in a tuple (`--tuple-root`); absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tuple_root: bool,
    /// Wall-clock start, seconds since the Unix epoch.
    pub started_unix: u64,
    /// True when this run continued an earlier one in the same file (`--resume`).
    #[serde(default)]
    pub resumed: bool,
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n <= 1
}

/// The end of a run that finished normally.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunEnd {
    /// Cases run by this run (not counting those an earlier run of a resumed file did).
    pub cases: u64,
    /// Wall time of this run, seconds.
    pub elapsed_secs: f64,
}

/// One case and its outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseRecord {
    pub seed: u64,
    /// Index of the case in its sweep.
    pub index: u64,
    /// Catalog id of the operation under test (for graphs: the instruction named at fault, or
    /// `graph` when the graph agrees).
    pub op: String,
    /// Summary row: the catalog id, plus `->target` for conversions.
    pub row: String,
    pub dtype: String,
    pub target: Option<String>,
    /// For graphs (`row` = `graph`): the name of the instruction a disagreement was localized to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// The case's HLO module text (only for cases that did not pass, to keep files small).
    pub hlo: Option<String>,
    /// The command that replays exactly this case.
    #[serde(default)]
    pub replay: String,
    /// Path of the minimized corpus file written for this case (`--minimize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimized: Option<String>,
    pub reference_micros: u64,
    pub reference_error: Option<String>,
    pub outcomes: Vec<BackendOutcome>,
}

/// A results file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: expected a JSON results line (run-start, case or run-end): {message}")]
    Malformed {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// Reads every line of a results file. A malformed last line (a run killed while writing it) is
/// skipped; any other malformed line is an error naming `file:line:col`.
///
/// Errors: [`ResultsError::Io`] when the file cannot be read, [`ResultsError::Malformed`].
pub fn read(path: &Path) -> Result<Vec<ResultLine>, ResultsError> {
    let text = std::fs::read_to_string(path).map_err(|source| ResultsError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse(&path.display().to_string(), &text)
}

/// [`read`] on text already in memory; `name` is used in errors.
pub fn parse(name: &str, text: &str) -> Result<Vec<ResultLine>, ResultsError> {
    let lines: Vec<&str> = text.lines().collect();
    let complete = text.ends_with('\n');
    let mut out = Vec::with_capacity(lines.len());
    for (k, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<ResultLine>(line) {
            Ok(l) => out.push(l),
            Err(_) if k + 1 == lines.len() && !complete => break,
            Err(e) => {
                return Err(ResultsError::Malformed {
                    path: name.to_string(),
                    line: k + 1,
                    column: e.column(),
                    message: e.to_string(),
                })
            }
        }
    }
    Ok(out)
}

/// Refuses a results file that already holds something (nothing is written to it), in the
/// words of the command: `remedy` says what to do instead (e.g. "pass --resume to continue that
/// sweep, or give another file"). A missing or empty file is fine, and so is what is not a file
/// (a folder: opening it says why it cannot be written).
///
/// Errors: the message naming the file and its number of lines, then `remedy`.
pub fn refuse_non_empty(path: &Path, remedy: &str) -> Result<(), String> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0) {
        return Ok(());
    }
    let lines = std::fs::read(path)
        .map(|b| b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count())
        .unwrap_or(0);
    Err(format!(
        "{}: the results file is not empty ({lines} line(s) of an earlier run); {remedy} \
         (nothing was written)",
        path.display()
    ))
}

/// Writes one line and flushes it to the file (a line is either entirely written or, after a
/// kill, a partial last line that `--resume` drops).
///
/// Errors: the file cannot be written.
pub fn write_line(file: &mut std::fs::File, line: &ResultLine) -> Result<(), String> {
    let mut text = serde_json::to_string(line).map_err(|e| e.to_string())?;
    text.push('\n');
    file.write_all(text.as_bytes())
        .and_then(|_| file.flush())
        .map_err(|e| format!("writing results: {e}"))
}

/// The byte length of the complete lines of `text` (everything up to and including the last
/// newline): a resumed run truncates a killed run's partial last line to this length before
/// appending.
pub fn complete_prefix_len(text: &str) -> usize {
    text.rfind('\n').map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case_line(index: u64) -> String {
        let r = ResultLine::Case(CaseRecord {
            seed: 1,
            index,
            op: "add".into(),
            row: "add".into(),
            dtype: "f32".into(),
            target: None,
            instruction: None,
            hlo: None,
            replay: format!("conformance run --only-case {index}"),
            minimized: None,
            reference_micros: 3,
            reference_error: None,
            outcomes: vec![],
        });
        serde_json::to_string(&r).unwrap()
    }

    #[test]
    fn lines_round_trip_with_their_type_tag() {
        let start = ResultLine::RunStart(RunStart {
            seed: 7,
            shard: Some((2, 4)),
            ..Default::default()
        });
        let text = serde_json::to_string(&start).unwrap();
        assert!(text.starts_with(r#"{"type":"run-start""#), "{text}");
        let all = format!("{text}\n{}\n", case_line(5));
        let lines = parse("r.jsonl", &all).unwrap();
        assert_eq!(lines.len(), 2);
        assert!(matches!(&lines[0], ResultLine::RunStart(s) if s.shard == Some((2, 4))));
        assert!(matches!(&lines[1], ResultLine::Case(c) if c.index == 5));
    }

    #[test]
    fn a_truncated_last_line_is_skipped_but_not_a_middle_one() {
        let full = case_line(1);
        let text = format!("{full}\n{}", &full[..full.len() / 2]);
        assert_eq!(parse("r.jsonl", &text).unwrap().len(), 1);
        assert_eq!(complete_prefix_len(&text), full.len() + 1);
        let bad = format!("{full}\n{{\"type\": \"case\", \"seed\": }}\n{full}\n");
        let e = parse("r.jsonl", &bad).unwrap_err().to_string();
        assert!(e.starts_with("r.jsonl:2:"), "{e}");
    }
}
