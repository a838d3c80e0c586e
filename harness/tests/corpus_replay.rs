//! Replays every corpus file (`corpus/regressions/**.yaml`) on every in-process backend: a
//! regression for a fixed bug must now agree; an accepted deviation must reproduce its recorded
//! verdict. A file recorded on an external backend (xla, iree, iree-f64, stablehlo-interpreter)
//! replays on it where it is installed (`scripts/setup.sh` installs them all); where it is not,
//! the file replays on the in-process backends only and the skip is printed once. NNEF corpus
//! files (`*-tract-*.yaml`, `conformance::corpus_nnef`) are replayed on tract by
//! `tests/nnef_tract.rs`.

use conformance::check::Verdict;
use conformance::corpus::{self, CorpusCase};
use conformance_spec::catalog::Catalog;
use conformance_spec::Backend;
use std::path::Path;

#[test]
fn every_corpus_file_replays_to_its_expected_verdict() {
    let catalog = Catalog::builtin().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions");
    let files = corpus::files(&dir);
    assert!(!files.is_empty(), "no corpus files under {}", dir.display());
    let reference = conformance_reference::Reference;
    let fast = conformance_fast::Fast::new();
    // Files recorded on another backend (an external one: `xla`) replay on it too; it is opened
    // once, at its first file.
    let mut external: Vec<Box<dyn Backend>> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut problems = Vec::new();
    for f in &files {
        let case = match CorpusCase::load(f) {
            Ok(c) => c,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if let Err(e) = conformance::backends::installed(&case.backend) {
            if !missing.contains(&case.backend) {
                eprintln!("{e}: its corpus files replay on reference and fast only");
                missing.push(case.backend.clone());
            }
        } else if !["reference", "fast"].contains(&case.backend.as_str())
            && !external.iter().any(|b| b.name() == case.backend)
        {
            match conformance::backends::by_name(&case.backend) {
                Ok(b) => external.push(b),
                Err(e) => {
                    problems.push(format!("{}: {e}", f.display()));
                    continue;
                }
            }
        }
        let mut backends: Vec<&dyn Backend> = vec![&reference, &fast];
        backends.extend(
            external
                .iter()
                .filter(|b| b.name() == case.backend)
                .map(|b| b.as_ref()),
        );
        let replayed = match corpus::replay(&catalog, &case, &backends) {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{}: {e}", f.display()));
                continue;
            }
        };
        for r in replayed {
            let ok = if case.accepted && r.backend == case.backend {
                r.reproduces(&case)
            } else {
                matches!(r.verdict, Verdict::Pass | Verdict::Unsupported)
            };
            if !ok {
                problems.push(format!(
                    "{}: {} gave {:?} {:?} (expected {}):\n  {}",
                    f.display(),
                    r.backend,
                    r.verdict,
                    r.classes,
                    if case.accepted {
                        "the recorded deviation"
                    } else {
                        "agreement"
                    },
                    r.details.join("\n  ")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
