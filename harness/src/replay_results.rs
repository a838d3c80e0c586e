//! What `conformance replay` and `conformance minimize` record: the results file of `replay
//! --results FILE.jsonl` (the format of `conformance run --results`, [`crate::results`]: a
//! run-start line, one case line per checked target — of every module of an XLA dump folder, in
//! order — and a run-end line, so that `conformance report` renders it), and the command that
//! replays a program with the same inputs (each record's `replay`, a minimized case's
//! provenance).

use crate::check::Verdict;
use crate::corpus::Provenance;
use crate::replay::{Checked, Target};
use crate::results::{self, CaseRecord, ResultLine, RunEnd, RunStart};
use conformance_spec::catalog::{Catalog, OpEntry, ResultRule, Signature};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::HloModule;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where the inputs of a loaded program come from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum InputSource {
    /// `--inputs`: an `.npz` archive or `.npy` files.
    Given(Vec<PathBuf>),
    /// The corpus file's own.
    Corpus,
    /// A program folder's `inputs.npz`.
    Folder(PathBuf),
    /// Generated from this seed.
    Generated(u64),
}

impl InputSource {
    /// The options that give a replay these inputs: ` --inputs A,B`, ` --seed N`, or nothing
    /// (the file's own).
    fn options(&self) -> String {
        match self {
            InputSource::Given(files) => {
                let files: Vec<String> = files.iter().map(|f| quoted(f)).collect();
                format!(" --inputs {}", files.join(","))
            }
            InputSource::Corpus | InputSource::Folder(_) => String::new(),
            InputSource::Generated(seed) => format!(" --seed {seed}"),
        }
    }

    /// The provenance of a case minimized from a program with these inputs, replayed by
    /// `command`.
    pub(crate) fn provenance(&self, command: String) -> Provenance {
        let files = |f: &[PathBuf]| {
            f.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (seed, generator) = match self {
            InputSource::Given(f) => (0, format!("inputs from {}", files(f))),
            InputSource::Corpus => (0, "inputs of the corpus file".to_string()),
            InputSource::Folder(npz) => (0, format!("inputs from {}", npz.display())),
            InputSource::Generated(seed) => (
                *seed,
                format!("inputs generated from seed {seed} (every value class)"),
            ),
        };
        Provenance {
            seed,
            case_index: 0,
            generator,
            command,
        }
    }
}

/// `conformance replay FILE [--inputs ... | --seed N] --backends A,B`: the command that replays
/// `file` with the inputs of `inputs` on `backends`.
pub(crate) fn replay_invocation(file: &Path, inputs: &InputSource, backends: &[String]) -> String {
    format!(
        "conformance replay {}{} --backends {}",
        quoted(file),
        inputs.options(),
        backends.join(",")
    )
}

/// A path as a shell word: as it is when it holds only safe characters, else single-quoted.
fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./,:=+@%".contains(c));
    if safe {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// The results file of one `conformance replay --results`: opened (and refused when it holds
/// anything) before the replay, its lines written when the replay has finished. Dropped
/// unfinished (the replay failed: exit 2 or 3), a file it created is removed again.
pub(crate) struct ReplayResults {
    path: PathBuf,
    file: std::fs::File,
    created: bool,
    finished: bool,
    records: Vec<CaseRecord>,
    started: Instant,
    started_unix: u64,
}

impl ReplayResults {
    /// Opens `path` for appending, creating it.
    ///
    /// Errors (exit 2): the file already holds something (nothing is written to it), or cannot
    /// be opened (a folder, a missing parent folder, no permission), naming it.
    pub(crate) fn create(path: &Path) -> Result<ReplayResults, (i32, String)> {
        results::refuse_non_empty(path, "give another file or remove this one")
            .map_err(|e| (2, e))?;
        let created = !path.exists();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                (
                    2,
                    format!("{}: cannot open results file: {e}", path.display()),
                )
            })?;
        Ok(ReplayResults {
            path: path.to_path_buf(),
            file,
            created,
            finished: false,
            records: Vec::new(),
            started: Instant::now(),
            started_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        })
    }

    /// Records the targets of one program (in order) with what checking each found; `replay` is
    /// the command that replays the program. Case indices continue over the programs recorded.
    pub(crate) fn add(
        &mut self,
        catalog: &Catalog,
        targets: &[Target<'_>],
        checked: Vec<Checked>,
        seed: u64,
        replay: &str,
    ) {
        for (target, checked) in targets.iter().zip(checked) {
            let index = self.records.len() as u64;
            self.records
                .push(record(catalog, target, checked, seed, index, replay));
        }
    }

    /// Writes the run-start line of the replay `args` (its only `--ops` entry `replay FILE
    /// [--inputs ...]`: see [`RunStart::ops`]), the case lines and the run-end line, and prints
    /// how many cases were written.
    ///
    /// Errors (exit 2): the file cannot be written.
    pub(crate) fn finish(
        mut self,
        catalog: &Catalog,
        args: &crate::cli::ReplayArgs,
    ) -> Result<(), (i32, String)> {
        let mut what = format!("replay {}", quoted(&args.file));
        if !args.inputs.is_empty() {
            what += &InputSource::Given(args.inputs.clone()).options();
        }
        let start = RunStart {
            version: env!("CARGO_PKG_VERSION").to_string(),
            seed: args.seed,
            shard: None,
            ops: vec![what],
            dtypes: vec![],
            backends: args.backends.clone(),
            catalog_hash: catalog.hash(),
            budget: format!("cases:{}", self.records.len()),
            swarm: None,
            graphs: false,
            inputs_per_module: 1,
            constant_operands: None,
            tuple_root: false,
            started_unix: self.started_unix,
            resumed: false,
        };
        let end = RunEnd {
            cases: self.records.len() as u64,
            elapsed_secs: self.started.elapsed().as_secs_f64(),
        };
        let cases = std::mem::take(&mut self.records);
        let n = cases.len();
        let lines = std::iter::once(ResultLine::RunStart(start))
            .chain(cases.into_iter().map(ResultLine::Case))
            .chain(std::iter::once(ResultLine::RunEnd(end)));
        // Once a line is written the file is kept, whatever happens next.
        self.finished = true;
        for line in lines {
            results::write_line(&mut self.file, &line)
                .map_err(|e| (2, format!("{}: {e}", self.path.display())))?;
        }
        println!("{}: {n} case(s) written", self.path.display());
        Ok(())
    }
}

impl Drop for ReplayResults {
    fn drop(&mut self) {
        if self.created && !self.finished {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The record of one checked target: its operation, element type and row (as `run` names them:
/// `op`, or `op->result type` for conversions and wider accumulations) are those of the
/// instruction at fault when the disagreement was localized, else of the target's root; its
/// HLO is recorded when a backend did not pass.
fn record(
    catalog: &Catalog,
    target: &Target<'_>,
    checked: Checked,
    seed: u64,
    index: u64,
    replay: &str,
) -> CaseRecord {
    let root = target.module.entry_computation().root_instruction();
    let root_dtype = crate::graph::instruction_element_type(&target.module, root);
    let mut op: &OpEntry = target.op;
    let mut dtype = root_dtype.map(|t| t.to_string()).unwrap_or_default();
    let mut result = root.shape.as_array().map(|a| a.element_type);
    if let Some(f) = &checked.fault {
        if let Some(entry) = catalog.op(&f.op) {
            op = entry;
            dtype = f.dtype.clone();
            let scope = f.scope.as_deref().map_or(&target.module, |(m, _)| m);
            result = result_type(scope, &f.instruction).or(result);
        }
    }
    let target_type = result.filter(|&r| {
        op.signature == Signature::Convert
            || (op.result == ResultRule::SameOrAccumulation && r.to_string() != dtype)
    });
    let row = match target_type {
        Some(t) => format!("{}->{t}", op.id),
        None => op.id.clone(),
    };
    let passed = checked
        .outcome
        .outcomes
        .iter()
        .all(|o| matches!(o.verdict, Verdict::Pass | Verdict::Unsupported));
    CaseRecord {
        seed,
        index,
        op: op.id.clone(),
        row,
        dtype,
        target: target_type.map(|t| t.to_string()),
        instruction: checked.fault.as_ref().map(|f| f.instruction.clone()),
        hlo: (!passed).then(|| target.module.to_string()),
        replay: replay.to_string(),
        minimized: None,
        reference_micros: checked.outcome.reference_micros,
        reference_error: checked.outcome.reference_error,
        outcomes: checked.outcome.outcomes,
    }
}

/// The element type of the instruction named `name` in any computation of `module`.
fn result_type(module: &HloModule, name: &str) -> Option<ElementType> {
    module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .find(|i| i.name == name)
        .and_then(|i| i.shape.as_array())
        .map(|a| a.element_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_commands_quote_what_the_shell_would_split() {
        let backends = ["reference".to_string(), "fast".to_string()];
        assert_eq!(
            replay_invocation(
                Path::new("prog.hlo"),
                &InputSource::Given(vec!["a.npy".into(), "b c.npy".into()]),
                &backends
            ),
            "conformance replay prog.hlo --inputs a.npy,'b c.npy' --backends reference,fast"
        );
        assert_eq!(
            replay_invocation(
                Path::new("it's.mlir"),
                &InputSource::Generated(7),
                &backends
            ),
            r"conformance replay 'it'\''s.mlir' --seed 7 --backends reference,fast"
        );
        let p = InputSource::Given(vec!["in.npz".into()]).provenance("cmd".into());
        assert_eq!(p.generator, "inputs from in.npz");
        assert_eq!(p.command, "cmd");
    }
}
