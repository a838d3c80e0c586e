//! Every one of the 301 small NNEF graphs in `corpus/external/nnef/tvm-cases` lowers to HLO
//! and runs on the exact reference and the fast backend, and every output agrees within the
//! catalog's tolerance: the fast backend's verdict is `pass` for every output (`unsupported` is
//! a failure here; a disagreement would be localized to its operation and listed).

use std::path::PathBuf;

use conformance::check::Verdict;
use conformance::nnef_cmd::{check_nnef, InputShapes};
use conformance_spec::catalog::Catalog;
use conformance_spec::Backend;
use rayon::prelude::*;

#[test]
fn every_tvm_case_agrees_on_reference_and_fast() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/external/nnef/tvm-cases");
    assert!(
        dir.is_dir(),
        "the external NNEF inputs are missing: expected {}",
        dir.display()
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nnef"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 301);
    let catalog = Catalog::builtin().unwrap();
    let reference = conformance_reference::Reference;
    let fast = conformance_fast::Fast::sequential();
    let backends: [&dyn Backend; 2] = [&reference, &fast];
    let failures: Vec<String> = files
        .par_iter()
        .filter_map(|file| {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            match check_nnef(&catalog, file, &backends, 1, &InputShapes::default()) {
                Err((_, e)) => Some(format!("{name}: {e}")),
                Ok(checks) => {
                    let bad: Vec<String> = checks
                        .iter()
                        .filter(|c| {
                            c.outcome.reference_error.is_some()
                                || c.outcome
                                    .outcomes
                                    .iter()
                                    .any(|o| o.verdict != Verdict::Pass)
                        })
                        .map(|c| {
                            let verdicts: Vec<String> = c
                                .outcome
                                .outcomes
                                .iter()
                                .map(|o| {
                                    format!(
                                        "{}: {:?} {}",
                                        o.backend,
                                        o.verdict,
                                        o.error.clone().unwrap_or_default()
                                    )
                                })
                                .collect();
                            format!(
                                "{name}: output {}: {} fault {:?}",
                                c.tensor,
                                verdicts.join("; "),
                                c.fault
                            )
                        })
                        .collect();
                    (!bad.is_empty()).then(|| bad.join("\n"))
                }
            }
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of 301 cases disagree or fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
