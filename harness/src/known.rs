//! Accepted deviations: corpus files marked `accepted: true` (a backend's documented behaviour,
//! minimized and replayed by `cargo test`) explain later failures of the same family — and
//! errors whose message holds the file's `error` text — so a sweep
//! (`conformance run`) and its report (`conformance report`) can tell a known deviation from a
//! new discrepancy.
//!
//! The corpus stays the single record of an accepted deviation: nothing is declared twice.

use crate::check::{BackendOutcome, Verdict};
use crate::compare::DiffClass;
use conformance_spec::element_type::{ElementType, TypeKind};
use std::path::{Path, PathBuf};

/// An accepted deviation of the corpus (`accepted: true` in a file of a corpus directory): a
/// failure of `backend` on `op` for an element type of the same kind (float, complex, signed,
/// unsigned, pred) whose every class of difference is recorded for that backend, operation and
/// kind is known, not a new discrepancy (the JSONL record still says `fail`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownDeviation {
    pub backend: String,
    pub op: String,
    /// The kinds of the file's `dtype` (its first operand) and of its root's result type
    /// (`select` records `pred` as its dtype, a sweep the type of the values selected).
    pub kinds: Vec<TypeKind>,
    /// For a failure: the class of difference it records.
    pub class: Option<DiffClass>,
    /// For an error: the part of the message that names it.
    pub error: Option<String>,
    /// The corpus file that records it.
    pub path: PathBuf,
}

/// The accepted deviations of the corpus files under `dir`, in path order. Files that do not
/// load are skipped (`cargo test` checks every corpus file); a missing `dir` gives none.
pub fn load(dir: &Path) -> Vec<KnownDeviation> {
    let mut files = crate::corpus::files(dir);
    files.sort();
    files
        .iter()
        .filter_map(|f| Some((f, crate::corpus::CorpusCase::load(f).ok()?)))
        .filter(|(_, c)| {
            c.accepted
                && (c.verdict == Verdict::Fail
                    || (c.verdict == Verdict::Error && c.error.is_some()))
        })
        .filter_map(|(f, c)| {
            let mut kinds = vec![ElementType::from_hlo_name(&c.dtype)?.kind()];
            if let Some(t) = c.module().ok().as_ref().and_then(crate::check::result_type) {
                kinds.push(t.kind());
            }
            if c.verdict == Verdict::Fail && c.class.is_none() {
                return None;
            }
            Some(KnownDeviation {
                kinds,
                class: c.class.filter(|_| c.verdict == Verdict::Fail),
                error: c.error.filter(|_| c.verdict == Verdict::Error),
                backend: c.backend,
                op: c.op,
                path: f.clone(),
            })
        })
        .collect()
}

/// The accepted deviations that explain outcome `o` of a case of operation `op` whose element
/// type is `dtype` (an HLO name): one per class of difference the comparison shows, each the
/// first file recording that class. Empty unless `o` is a failure with a comparison and every
/// one of its classes is recorded for the same backend, operation and kind of element type, or
/// an error whose message holds the `error` text of a file of the same backend and operation,
/// of any element type (then that file).
pub fn explaining<'a>(
    known: &'a [KnownDeviation],
    op: &str,
    dtype: &str,
    o: &BackendOutcome,
) -> Vec<&'a KnownDeviation> {
    let Some(kind) = ElementType::from_hlo_name(dtype).map(ElementType::kind) else {
        return Vec::new();
    };
    if o.verdict == Verdict::Error {
        // An error's message names its cause; the element type is not part of it (IREE's
        // missing f8 lowering of an operation fails alike for every f8 type).
        let message = o.error.as_deref().unwrap_or_default();
        return known
            .iter()
            .find(|k| {
                k.backend == o.backend
                    && k.op == op
                    && k.error.as_deref().is_some_and(|e| message.contains(e))
            })
            .into_iter()
            .collect();
    }
    let Some(cmp) = o.comparison.as_ref().filter(|_| o.verdict == Verdict::Fail) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(cmp.classes.len());
    for &class in cmp.classes.keys() {
        let found = known.iter().find(|k| {
            k.backend == o.backend
                && k.op == op
                && k.class == Some(class)
                && k.kinds.contains(&kind)
        });
        match found {
            Some(k) => out.push(k),
            None => return Vec::new(),
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::compare::Comparison;

    /// A failing outcome of `backend` whose comparison shows `classes`, one element each.
    pub(crate) fn failing(backend: &str, classes: &[DiffClass]) -> BackendOutcome {
        BackendOutcome {
            backend: backend.into(),
            verdict: Verdict::Fail,
            comparison: Some(Comparison {
                classes: classes.iter().map(|&c| (c, 1)).collect(),
                ..Comparison::default()
            }),
            error: None,
            micros: 0,
        }
    }

    fn power_s8() -> Vec<KnownDeviation> {
        vec![KnownDeviation {
            backend: "xla".into(),
            op: "power".into(),
            kinds: vec![TypeKind::SignedInteger],
            class: Some(DiffClass::Exact),
            error: None,
            path: "corpus/regressions/power-xla-s8.yaml".into(),
        }]
    }

    #[test]
    fn a_failure_is_explained_only_by_the_same_backend_op_kind_and_every_class() {
        let known = power_s8();
        // Same backend, operation, kind (s64 against a recorded s8) and class.
        let got = explaining(&known, "power", "s64", &failing("xla", &[DiffClass::Exact]));
        assert_eq!(got, vec![&known[0]]);
        for (b, op, t, classes) in [
            ("fast", "power", "s64", vec![DiffClass::Exact]),
            ("xla", "power", "u64", vec![DiffClass::Exact]),
            ("xla", "add", "s64", vec![DiffClass::Exact]),
            (
                "xla",
                "power",
                "s64",
                vec![DiffClass::Exact, DiffClass::Nan],
            ),
            ("xla", "power", "s64", vec![]),
            ("xla", "power", "no-such-type", vec![DiffClass::Exact]),
        ] {
            assert!(
                explaining(&known, op, t, &failing(b, &classes)).is_empty(),
                "{b} {op} {t} {classes:?}"
            );
        }
        // A failure's file does not explain an error.
        let mut o = failing("xla", &[DiffClass::Exact]);
        o.verdict = Verdict::Error;
        assert!(explaining(&known, "power", "s64", &o).is_empty());
    }

    /// An error is explained by a file of the same backend and operation whose `error` text its
    /// message holds, whatever the element type; another message, operation or backend is new.
    #[test]
    fn an_error_is_explained_by_the_text_its_file_names() {
        let known = vec![KnownDeviation {
            backend: "xla".into(),
            op: "rng-UNIFORM".into(),
            kinds: vec![TypeKind::UnsignedInteger],
            class: None,
            error: Some("exited with signal: 6".into()),
            path: "corpus/regressions/rng-uniform-u8-xla-check-failure.yaml".into(),
        }];
        let error = |backend: &str, message: &str| BackendOutcome {
            backend: backend.into(),
            verdict: Verdict::Error,
            comparison: None,
            error: Some(message.into()),
            micros: 0,
        };
        let crash = "backend failure: worker `xla` crashed: exited with signal: 6 (SIGABRT)";
        assert_eq!(
            explaining(&known, "rng-UNIFORM", "u16", &error("xla", crash)),
            vec![&known[0]]
        );
        let timeout = "backend failure: worker `xla` timed out";
        assert_eq!(
            explaining(&known, "rng-UNIFORM", "f8e5m2", &error("xla", crash)),
            vec![&known[0]]
        );
        for (b, op, t, m) in [
            ("xla", "rng-UNIFORM", "u16", timeout),
            ("xla", "rng-NORMAL", "u16", crash),
            ("iree", "rng-UNIFORM", "u16", crash),
        ] {
            assert!(
                explaining(&known, op, t, &error(b, m)).is_empty(),
                "{b} {op} {t} {m}"
            );
        }
    }

    #[test]
    fn the_corpus_accepted_deviations_load_with_both_kinds_and_their_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
        let known = load(&dir);
        assert!(known.len() >= 70, "{}", known.len());
        // select's file records `pred` (its first operand) and an f8e3m4 root.
        assert!(known.iter().any(|k| k.op == "select"
            && k.kinds.contains(&TypeKind::Pred)
            && k.kinds.contains(&TypeKind::Float)));
        assert!(known
            .iter()
            .all(|k| k.path.starts_with(&dir) && k.path.is_file()));
        // Accepted errors load with the text that names them.
        assert!(known
            .iter()
            .any(|k| k.op == "rng-bit-generator-PHILOX" && k.error.is_some() && k.class.is_none()));
        assert!(load(&dir.join("no-such-directory")).is_empty());
    }
}
