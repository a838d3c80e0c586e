//! Corpus files of NNEF graphs (`corpus/regressions/*-tract-*.yaml`): a deviation of a backend
//! that runs the NNEF graph itself (tract), recorded with the graph text and the seed of its
//! generated inputs and weights, replayed by `cargo test` where the backend is built in.
//!
//! ```yaml
//! op: tanh                 # the NNEF operation the disagreement is localized to
//! dtype: scalar            # its NNEF data type
//! backend: tract
//! verdict: fail            # fail (with class) or error (with the message's text)
//! class: ulp
//! accepted: true           # an accepted deviation must reproduce; false: a bug that must pass
//! note: why
//! seed: 1                  # inputs and `variable`s without a .dat, as `conformance nnef run`
//! graph: |
//!   version 1.0;
//!   graph G( input ) -> ( output ) { ... }
//! provenance:
//!   source: where it was found
//!   command: conformance nnef run GRAPH --backends reference,tract
//! ```
//!
//! An HLO corpus file ([`crate::corpus::CorpusCase`]) has a `hlo:` key instead; a file with a
//! top-level `graph:` key is an NNEF one ([`is_nnef_case`]), and [`crate::corpus::files`] leaves
//! it out.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::Verdict;
use crate::compare::DiffClass;

/// One NNEF corpus file (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NnefCorpusCase {
    /// The NNEF operation (fragment name) at fault.
    pub op: String,
    /// Its NNEF data type: `scalar`, `integer` or `logical`.
    pub dtype: String,
    /// The backend that disagreed with the reference's run of the lowering.
    pub backend: String,
    /// `fail` or `error`.
    pub verdict: Verdict,
    /// For `fail`: the class of difference.
    #[serde(default)]
    pub class: Option<DiffClass>,
    /// For `error`: a part of the backend's message that names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True for an accepted deviation (the replay reproduces it), false for a bug (the replay
    /// agrees once it is fixed).
    #[serde(default)]
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Seed of the generated inputs and weights.
    pub seed: u64,
    /// The graph document (`graph.nnef`).
    pub graph: String,
    pub provenance: NnefProvenance,
}

/// Where an NNEF case came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NnefProvenance {
    /// The graph it was found on (or how it was made).
    pub source: String,
    /// The command that shows the deviation on the original graph.
    pub command: String,
}

/// True when `text` is an NNEF corpus file: a top-level `graph:` key.
pub fn is_nnef_case(text: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("graph:") || l.starts_with("\"graph\":"))
}

/// True when `path` is a YAML file holding an NNEF corpus case.
pub fn is_nnef_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
        && std::fs::read_to_string(path).is_ok_and(|t| is_nnef_case(&t))
}

/// `conformance replay FILE` on an NNEF corpus file: replays it on its backend against the
/// reference and prints each output's verdict; exit 0 when it shows what it records (an accepted
/// deviation reproduced, a fixed bug agreeing), 1 otherwise.
///
/// Errors (exit 2): the file does not load, or conformance was built without the `tract`
/// feature; the graph not lowering or the reference failing (exit 2 or 3, as `nnef run`).
pub fn replay_command(
    catalog: &conformance_spec::catalog::Catalog,
    path: &Path,
) -> Result<i32, (i32, String)> {
    let case = NnefCorpusCase::load(path).map_err(|e| (2, e))?;
    #[cfg(feature = "tract")]
    {
        let r = replay(catalog, &case, &conformance_reference::Reference)
            .map_err(|e| (2, format!("{}: {e}", path.display())))?;
        for l in &r.lines {
            println!("{l}");
        }
        let what = match (case.accepted, r.ok) {
            (true, true) => "accepted deviation: reproduced",
            (true, false) => "accepted deviation: NOT reproduced",
            (false, true) => "bug: fixed (every output agrees)",
            (false, false) => "bug: still there",
        };
        println!("{}: {what}", path.display());
        Ok(if r.ok { 0 } else { 1 })
    }
    #[cfg(not(feature = "tract"))]
    {
        let _ = (catalog, case);
        Err((
            2,
            format!(
                "{}: an NNEF case of backend `tract`: conformance was built without the tract feature",
                path.display()
            ),
        ))
    }
}

/// The NNEF corpus files under `dir` (recursively), sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    crate::corpus::yaml_files(dir)
        .into_iter()
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| is_nnef_case(&t)))
        .collect()
}

impl NnefCorpusCase {
    /// Reads an NNEF corpus file.
    ///
    /// Errors: the file cannot be read, its YAML does not match the format (with line:col), the
    /// verdict is not `fail` with a class or `error` with a message, or the graph does not parse
    /// (file, then the graph's line:col).
    pub fn load(path: &Path) -> Result<NnefCorpusCase, String> {
        let text = crate::text_input::read_text(path)?;
        NnefCorpusCase::parse(&path.display().to_string(), &text)
    }

    /// [`NnefCorpusCase::load`] on text; `name` is used in errors.
    pub fn parse(name: &str, text: &str) -> Result<NnefCorpusCase, String> {
        let case: NnefCorpusCase =
            serde_saphyr::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        match (case.verdict, &case.class, &case.error) {
            (Verdict::Fail, Some(_), None) | (Verdict::Error, None, Some(_)) => {}
            _ => {
                return Err(format!(
                    "{name}: expected `verdict: fail` with a `class`, or `verdict: error` with an `error` text"
                ))
            }
        }
        conformance_nnef::parse_document_with(&case.graph, conformance_nnef::Dialect::Seed003)
            .map_err(|e| format!("{name}: graph: {e}"))?;
        Ok(case)
    }

    /// The YAML text of this case.
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).unwrap_or_else(|e| format!("# {e}\n"))
    }

    /// True when `o` (the backend's verdict on one output, localized to `at` = `OP at L:C`
    /// where it was) shows this deviation: the same backend and verdict, for a failure the
    /// recorded class among its classes and, when localized, the same operation; for an error,
    /// the recorded text in its message.
    pub fn matches(&self, o: &crate::check::BackendOutcome, at: Option<&str>) -> bool {
        if o.backend != self.backend || o.verdict != self.verdict {
            return false;
        }
        match self.verdict {
            Verdict::Fail => {
                let class = self.class.expect("checked at load");
                let has_class = o
                    .comparison
                    .as_ref()
                    .is_some_and(|c| c.classes.contains_key(&class));
                let same_op = at.is_none_or(|at| at.split(" at ").next() == Some(&self.op));
                has_class && same_op
            }
            _ => {
                let text = self.error.as_deref().unwrap_or_default();
                o.error.as_deref().is_some_and(|e| e.contains(text))
            }
        }
    }
}

/// The accepted NNEF cases under `dir` (files that do not load are skipped: `cargo test`
/// reports them).
pub fn accepted(dir: &Path) -> Vec<(PathBuf, NnefCorpusCase)> {
    files(dir)
        .into_iter()
        .filter_map(|f| Some((f.clone(), NnefCorpusCase::load(&f).ok()?)))
        .filter(|(_, c)| c.accepted)
        .collect()
}

/// What replaying a case on its backend gave.
#[derive(Debug)]
pub struct NnefReplay {
    /// True when the case reproduces (accepted) or every output agrees (a fixed bug).
    pub ok: bool,
    /// One line per output: its verdict, classes, error and where it was localized.
    pub lines: Vec<String>,
}

/// Replays `case` on tract against `reference` (the graph written to a temporary folder, run by
/// [`crate::nnef_tract::check_graph`] with the case's seed).
///
/// Errors: the backend is not `tract`, the temporary folder cannot be written, or the graph does
/// not load or lower or the reference fails on it.
#[cfg(feature = "tract")]
pub fn replay(
    catalog: &conformance_spec::catalog::Catalog,
    case: &NnefCorpusCase,
    reference: &dyn conformance_spec::Backend,
) -> Result<NnefReplay, String> {
    if case.backend != crate::nnef_tract::NAME {
        return Err(format!(
            "backend `{}`: NNEF corpus files replay on `{}` only",
            case.backend,
            crate::nnef_tract::NAME
        ));
    }
    let dir = std::env::temp_dir().join(format!(
        "conformance-nnef-case-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let graph = dir.join("graph.nnef");
    let result = std::fs::write(&graph, &case.graph)
        .map_err(|e| format!("{}: {e}", graph.display()))
        .and_then(|()| {
            crate::nnef_tract::check_graph(
                catalog,
                &graph,
                &crate::nnef_cmd::InputShapes::default(),
                case.seed,
                reference,
            )
            .map_err(|(_, e)| e)
        });
    let _ = std::fs::remove_dir_all(&dir);
    let outputs = result?;
    let mut lines = Vec::new();
    let mut reproduced = false;
    for o in &outputs {
        reproduced |= case.matches(&o.outcome, o.at.as_deref());
        lines.push(format!(
            "output `{}`: {} {:?}{}{}{}",
            o.tensor,
            o.outcome.backend,
            o.outcome.verdict,
            o.outcome
                .comparison
                .as_ref()
                .map_or(String::new(), |c| format!(
                    " {:?}",
                    c.classes.keys().collect::<Vec<_>>()
                )),
            o.at.as_ref()
                .map_or(String::new(), |at| format!(", at NNEF operation {at}")),
            o.outcome
                .error
                .as_ref()
                .map_or(String::new(), |e| format!(": {e}")),
        ));
    }
    let agrees = outputs
        .iter()
        .all(|o| matches!(o.outcome.verdict, Verdict::Pass | Verdict::Unsupported));
    Ok(NnefReplay {
        ok: if case.accepted { reproduced } else { agrees },
        lines,
    })
}

#[cfg(feature = "tract")]
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::BackendOutcome;
    use crate::compare::Comparison;

    const CASE: &str = "op: tanh
dtype: scalar
backend: tract
verdict: fail
class: ulp
accepted: true
note: why
seed: 1
graph: |
  version 1.0;
  graph G( input ) -> ( output )
  {
      input = external(shape = [1, 4]);
      output = tanh(input);
  }
provenance:
  source: hand-made
  command: conformance nnef run g.nnef --backends reference,tract
";

    fn failing(classes: &[DiffClass]) -> BackendOutcome {
        BackendOutcome {
            backend: "tract".into(),
            verdict: Verdict::Fail,
            comparison: Some(Comparison {
                classes: classes.iter().map(|&c| (c, 1)).collect(),
                ..Comparison::default()
            }),
            error: None,
            micros: 0,
        }
    }

    #[test]
    fn a_case_parses_round_trips_and_is_told_from_an_hlo_case() {
        let case = NnefCorpusCase::parse("c.yaml", CASE).unwrap();
        assert_eq!((case.op.as_str(), case.seed), ("tanh", 1));
        assert!(is_nnef_case(CASE));
        assert!(!is_nnef_case("op: add\nhlo: |\n  HloModule m\n"));
        let again = NnefCorpusCase::parse("again", &case.to_yaml()).unwrap();
        assert_eq!(again, case);
    }

    #[test]
    fn bad_cases_are_errors_naming_the_file() {
        let e = NnefCorpusCase::parse("c.yaml", &CASE.replace("class: ulp\n", "")).unwrap_err();
        assert!(
            e.starts_with("c.yaml: expected `verdict: fail` with a `class`"),
            "{e}"
        );
        let e = NnefCorpusCase::parse("c.yaml", &CASE.replace("tanh(input)", "tanh(input"))
            .unwrap_err();
        assert!(e.starts_with("c.yaml: graph: "), "{e}");
        let e = NnefCorpusCase::parse("c.yaml", &CASE.replace("seed: 1", "seed: x")).unwrap_err();
        assert!(e.starts_with("c.yaml: "), "{e}");
    }

    #[test]
    fn a_failure_matches_by_backend_class_and_operation() {
        let case = NnefCorpusCase::parse("c.yaml", CASE).unwrap();
        assert!(case.matches(&failing(&[DiffClass::Ulp]), Some("tanh at 5:5")));
        assert!(case.matches(&failing(&[DiffClass::Ulp, DiffClass::Nan]), None));
        assert!(!case.matches(&failing(&[DiffClass::Nan]), Some("tanh at 5:5")));
        assert!(!case.matches(&failing(&[DiffClass::Ulp]), Some("sigmoid at 5:5")));
        let mut other = failing(&[DiffClass::Ulp]);
        other.backend = "fast".into();
        assert!(!case.matches(&other, None));
    }
}
