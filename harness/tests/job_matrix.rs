//! The CI job matrix of backends × shards (.github/workflows/backend-sweep.yml), run locally:
//! two backends (`fast`, and the faulty worker as a second, out-of-process backend) × two shards
//! through `scripts/matrix-job`, exactly as the workflow's jobs call it, then merged by the report
//! builder as the workflow's last job does. The merged report must equal the report of the
//! unsharded sweep of both backends at once: same cases, same verdicts in every cell.

use conformance::report::build_report;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The sweep every job runs: add, negate and exponential (which the faulty worker refuses: its
/// cells are unsupported) in f32 and s32.
fn sweep_options(faulty: &str) -> Vec<String> {
    [
        "--ops",
        "add,negate,exponential",
        "--dtypes",
        "f32,s32",
        "--cases",
        "48",
        "--jobs",
        "1",
        "--worker",
        faulty,
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn two_shards_of_two_backends_merge_into_the_unsharded_report() {
    let root = root();
    let workflow =
        std::fs::read_to_string(root.join(".github/workflows/backend-sweep.yml")).unwrap();
    assert!(
        workflow.contains(
            "bash scripts/matrix-job ${{ matrix.backend }} ${{ matrix.shard }}/$SHARDS out"
        ) && workflow.contains("conformance report out/*.jsonl"),
        "the test runs the workflow's commands"
    );
    let dir = std::env::temp_dir().join(format!("conformance-job-matrix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("out");
    let faulty = format!(
        "faulty=python3 {}",
        root.join("workers/faulty/faulty_worker.py").display()
    );
    let bin = env!("CARGO_BIN_EXE_conformance");
    for backend in ["fast", "faulty"] {
        for shard in ["1/2", "2/2"] {
            let status = Command::new("bash")
                .arg(root.join("scripts/matrix-job"))
                .args([backend, shard])
                .arg(&out)
                .args(sweep_options(&faulty))
                .env("CONFORMANCE", bin)
                .env("MATRIX_SEED", "7")
                .current_dir(&root)
                .status()
                .unwrap();
            assert_eq!(status.code(), Some(0), "{backend} shard {shard}");
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "{files:?}");

    let whole = dir.join("whole.jsonl");
    let status = Command::new(bin)
        .args(["run", "--backends", "reference,fast,faulty", "--seed", "7"])
        .args(["--inputs-per-module", "8", "--no-progress", "--results"])
        .arg(&whole)
        .args(sweep_options(&faulty))
        .current_dir(&root)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));

    let merged = build_report(&files, &[]).unwrap();
    let unsharded = build_report(&[whole], &[]).unwrap();
    assert_eq!(merged.totals.cases, 48);
    assert_eq!(merged.totals.duplicates, 0);
    assert_eq!(merged.totals.cases, unsharded.totals.cases);
    assert_eq!(merged.totals.verdicts, unsharded.totals.verdicts);
    assert_eq!(merged.pairs.len(), 2);
    assert!(merged
        .pairs
        .iter()
        .all(|p| p.verdicts.unsupported > 0 || p.backend == "fast"));
    assert_eq!(merged.pairs, unsharded.pairs, "cell by cell");
    let _ = std::fs::remove_dir_all(&dir);
}
