//! Corpus files: minimized cases kept as regression tests (`corpus/regressions/*.yaml`), replayed
//! by `cargo test` and by `conformance replay`.
//!
//! A file holds the HLO text, every input with its exact bit patterns, the verdict that was
//! observed (backend, verdict, class of difference, instruction at fault) and where the case came
//! from. `accepted: false` (the default) says the disagreement is a bug: once fixed, the backends
//! must agree, and the replay test fails until then. `accepted: true` documents a deviation that
//! is accepted: the replay must then reproduce the recorded verdict.

use crate::check::Verdict;
use crate::compare::DiffClass;
use crate::executor::Stage;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{parse_module, parse_shape, HloModule};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::Backend;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One corpus file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusCase {
    /// Catalog id of the instruction at fault.
    pub op: String,
    /// Element type of the case (its first operand), e.g. `f32`.
    pub dtype: String,
    /// The backend that disagreed with the reference.
    pub backend: String,
    /// What was observed: `fail`, `error` or `timeout`.
    pub verdict: Verdict,
    /// For `fail`: the class of difference (`ulp`, `nan`, `zero-sign`, ...).
    #[serde(default)]
    pub class: Option<DiffClass>,
    /// For an accepted `error`: a part of the backend's error message that names the deviation
    /// (a later error of the same backend, operation and kind of element type whose message
    /// holds it is known, `crate::known`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True when the deviation is accepted (the replay must reproduce it); false for a bug (the
    /// replay must agree once it is fixed).
    #[serde(default)]
    pub accepted: bool,
    /// Why, for an accepted deviation or a note on the bug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The module, HLO text.
    #[serde(serialize_with = "literal_block")]
    pub hlo: String,
    /// One per entry parameter.
    pub inputs: Vec<CorpusInput>,
    pub provenance: Provenance,
}

/// One input: its shape (with layout) and its elements' bit patterns in row-major logical order
/// (hex), plus the same values in HLO literal syntax for reading.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusInput {
    pub shape: String,
    pub bits: Vec<String>,
    pub literal: String,
}

/// Where a case came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub seed: u64,
    pub case_index: u64,
    /// The generator configuration ([`crate::generate::GeneratorConfig::describe`]).
    pub generator: String,
    /// The command that reproduces the original (unminimized) case.
    pub command: String,
}

fn literal_block<S: serde::Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    serde_saphyr::LitStr(text).serialize(s)
}

impl CorpusInput {
    /// The input of `literal` (an array).
    pub fn from_array(a: &ArrayLiteral) -> CorpusInput {
        let width = a.element_type().byte_width() * 2;
        CorpusInput {
            shape: a.shape().to_string(),
            bits: a
                .logical_bits()
                .iter()
                .map(|b| format!("0x{b:0width$x}"))
                .collect(),
            literal: Literal::Array(a.clone()).to_string(),
        }
    }

    /// The literal, from `shape` and `bits` (the `literal` text is for readers).
    ///
    /// Errors: a shape that does not parse or is not an array, a bit pattern that is not hex, or
    /// a count that does not match the shape.
    pub fn to_literal(&self) -> Result<Literal, String> {
        let shape = parse_shape(&self.shape).map_err(|e| format!("input shape: {e}"))?;
        let shape = shape
            .as_array()
            .ok_or_else(|| format!("input shape `{}` is not an array", self.shape))?
            .clone();
        let bits: Vec<u128> = self
            .bits
            .iter()
            .map(|b| {
                u128::from_str_radix(b.trim_start_matches("0x"), 16)
                    .map_err(|e| format!("input bits `{b}`: {e}"))
            })
            .collect::<Result<_, _>>()?;
        ArrayLiteral::from_bits(shape, &bits)
            .map(Literal::Array)
            .map_err(|e| format!("input `{}`: {e}", self.shape))
    }
}

impl CorpusCase {
    /// Reads a corpus file.
    ///
    /// Errors: the file cannot be read or is not UTF-8 (naming the byte offset), or its YAML
    /// does not match the format (with line:col), or its HLO or inputs do not parse.
    pub fn load(path: &Path) -> Result<CorpusCase, String> {
        let text = crate::text_input::read_text(path)?;
        CorpusCase::parse(&path.display().to_string(), &text)
    }

    /// [`CorpusCase::load`] on text; `name` is used in errors.
    pub fn parse(name: &str, text: &str) -> Result<CorpusCase, String> {
        let case: CorpusCase = serde_saphyr::from_str(text).map_err(|e| format!("{name}: {e}"))?;
        case.module().map_err(|e| format!("{name}: hlo: {e}"))?;
        case.args().map_err(|e| format!("{name}: {e}"))?;
        Ok(case)
    }

    /// The YAML text of this case.
    pub fn to_yaml(&self) -> String {
        let body = serde_saphyr::to_string(self).unwrap_or_else(|e| format!("# {e}\n"));
        format!(
            "# conformance regression: {} {} on {} ({}{}). Replay: conformance replay <this file>\n{body}",
            self.op,
            self.dtype,
            self.backend,
            self.verdict.name(),
            self.class.map(|c| format!(", {c}")).unwrap_or_default()
        )
    }

    /// The parsed module.
    ///
    /// Errors: the HLO text does not parse (line:col).
    pub fn module(&self) -> Result<HloModule, String> {
        parse_module(&self.hlo).map_err(|e| e.to_string())
    }

    /// The parsed inputs.
    ///
    /// Errors: as [`CorpusInput::to_literal`].
    pub fn args(&self) -> Result<Vec<Literal>, String> {
        self.inputs.iter().map(CorpusInput::to_literal).collect()
    }

    /// `<op>-<dtype>-<hash>.yaml`, the hash over the HLO text and inputs (16 hex digits).
    pub fn file_name(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |s: &str| {
            for b in s.bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        feed(&self.hlo);
        for i in &self.inputs {
            feed(&i.shape);
            for b in &i.bits {
                feed(b);
            }
        }
        let safe = |s: &str| {
            s.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect::<String>()
        };
        format!("{}-{}-{h:016x}.yaml", safe(&self.op), safe(&self.dtype))
    }

    /// Writes the case into `dir` (created if needed) under [`CorpusCase::file_name`].
    ///
    /// Errors: the directory or file cannot be written.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(self.file_name());
        std::fs::write(&path, self.to_yaml()).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

/// What replaying a corpus case on one backend gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    pub backend: String,
    pub verdict: Verdict,
    /// Classes of difference (for `fail`).
    pub classes: Vec<DiffClass>,
    /// The per-element differences and errors, one per line, for printing.
    pub details: Vec<String>,
}

impl Replayed {
    /// True when this replay shows the case's recorded verdict (and class).
    pub fn reproduces(&self, case: &CorpusCase) -> bool {
        self.verdict == case.verdict && case.class.is_none_or(|c| self.classes.contains(&c))
    }
}

/// Replays `case` on `backends` (the reference first): one [`Replayed`] per other backend.
///
/// Errors: the case's op is not in the catalog, its module or inputs do not parse, or the
/// reference fails on it.
pub fn replay(
    catalog: &Catalog,
    case: &CorpusCase,
    backends: &[&dyn Backend],
) -> Result<Vec<Replayed>, String> {
    let op = catalog
        .op(&case.op)
        .ok_or_else(|| format!("no catalog entry `{}`", case.op))?;
    let module = case.module()?;
    let args = case.args()?;
    let (outcome, _) =
        crate::graph::check_operation(catalog, op, &module, &args, backends, &Stage::default());
    if let Some(e) = outcome.reference_error {
        return Err(format!("the reference failed: {e}"));
    }
    Ok(outcome
        .outcomes
        .into_iter()
        .map(|o| {
            let mut details: Vec<String> = o
                .comparison
                .as_ref()
                .map(|c| c.diffs.iter().map(|d| d.to_string()).collect())
                .unwrap_or_default();
            if let Some(e) = &o.error {
                details.push(format!("error: {e}"));
            }
            Replayed {
                backend: o.backend,
                verdict: o.verdict,
                classes: o
                    .comparison
                    .map(|c| c.classes.keys().copied().collect())
                    .unwrap_or_default(),
                details,
            }
        })
        .collect())
}

/// The HLO corpus files under `dir` (recursively), sorted: the YAML files that are not NNEF
/// cases ([`crate::corpus_nnef`]).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    yaml_files(dir)
        .into_iter()
        .filter(|p| {
            std::fs::read_to_string(p).map_or(true, |t| !crate::corpus_nnef::is_nnef_case(&t))
        })
        .collect()
}

/// Every YAML file under `dir` (recursively), sorted.
pub fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::parse_literal;

    fn sample() -> CorpusCase {
        let a = parse_literal("f32[2]{0} {1.5, nan}").unwrap();
        CorpusCase {
            op: "add".into(),
            dtype: "f32".into(),
            backend: "fast".into(),
            verdict: Verdict::Fail,
            class: Some(DiffClass::Ulp),
            error: None,
            accepted: false,
            note: None,
            hlo: "HloModule m\n\nENTRY e {\n  a = f32[2]{0} parameter(0)\n  ROOT r = f32[2]{0} add(a, a)\n}\n".into(),
            inputs: vec![CorpusInput::from_array(a.as_array().unwrap())],
            provenance: Provenance {
                seed: 3,
                case_index: 9,
                generator: "max_rank=4".into(),
                command: "conformance run --seed 3 --only-case 9".into(),
            },
        }
    }

    #[test]
    fn yaml_round_trips_with_exact_bits() {
        let c = sample();
        let text = c.to_yaml();
        assert!(text.contains("hlo: |"), "{text}");
        assert!(text.contains("0x3fc00000"), "{text}");
        let back = CorpusCase::parse("c.yaml", &text).unwrap();
        assert_eq!(back, c);
        let args = back.args().unwrap();
        assert_eq!(args[0].as_array().unwrap().get_bits(&[0]), 0x3fc0_0000);
        assert!(c.file_name().starts_with("add-f32-") && c.file_name().ends_with(".yaml"));
    }

    #[test]
    fn bad_files_name_the_problem() {
        let e = CorpusCase::parse("c.yaml", "op: add\nverdict: maybe\n").unwrap_err();
        assert!(e.starts_with("c.yaml"), "{e}");
        let mut c = sample();
        c.inputs[0].bits.pop();
        let e = CorpusCase::parse("c.yaml", &c.to_yaml()).unwrap_err();
        assert!(e.contains("input"), "{e}");
        let mut c = sample();
        c.hlo = "HloModule m\nENTRY {".into();
        let e = CorpusCase::parse("c.yaml", &c.to_yaml()).unwrap_err();
        assert!(e.contains("hlo"), "{e}");
    }
}
