//! The README's worked example ("From `jax.jit` to a minimal reproducer") runs as written: the
//! commands between `<!-- worked-example -->` and `<!-- /worked-example -->` are taken from
//! README.md, run one after another from the repository root (with this build's `conformance`
//! binary in place of `./target/release/conformance`, and a fresh directory in place of
//! `/tmp/sinh`), and each does what the README says it does.
//!
//! Needs `.venv/bin/python` with jax (`scripts/setup-python.sh`); without it the test fails.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness crate is inside the workspace")
        .to_path_buf()
}

/// The command lines of the README's worked example block.
fn example_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme
        .find("<!-- worked-example -->")
        .expect("README.md has a worked example");
    let end = readme
        .find("<!-- /worked-example -->")
        .expect("the worked example ends");
    readme[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("<!--") && !l.starts_with("```"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_worked_example_runs_as_written() {
    let commands = example_commands();
    assert_eq!(commands.len(), 5, "{commands:?}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let binary = env!("CARGO_BIN_EXE_conformance");
    let mut results = Vec::new();
    for line in &commands {
        let line = line
            .replace("./target/release/conformance", binary)
            .replace("/tmp/sinh", out);
        let o = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(root())
            .env("CI", "true")
            .output()
            .expect("sh runs");
        results.push((
            line,
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ));
    }
    let show = |k: usize| {
        let (l, c, o, e) = &results[k];
        format!("{l}\nexit {c}\n{o}\n{e}")
    };
    // 1. The dump: the program as JAX prints it, with chlo.sinh, and its input.
    assert_eq!(results[0].1, 0, "{}", show(0));
    let mlir = std::fs::read_to_string(dir.path().join("f.mlir")).unwrap();
    assert!(mlir.contains("chlo.sinh"), "{mlir}");
    // 2. Replay against XLA: XLA's sinh is found outside its budget, named at its instruction.
    assert_eq!(results[1].1, 1, "{}", show(1));
    assert!(results[1].2.contains("xla: Fail"), "{}", show(1));
    assert!(results[1].2.contains("(sinh)"), "{}", show(1));
    // 3. Minimize: one corpus case, on `sinh`, whose command replays it.
    assert_eq!(results[2].1, 0, "{}", show(2));
    let cases: Vec<PathBuf> = std::fs::read_dir(dir.path().join("corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cases.len(), 1, "{cases:?}");
    let case = std::fs::read_to_string(&cases[0]).unwrap();
    assert!(case.contains("sinh"), "{case}");
    assert!(case.contains("in.npz"), "{case}");
    // 4. Eval: the exact outputs written.
    assert_eq!(results[3].1, 0, "{}", show(3));
    let exact = npyz::npz::NpzArchive::open(dir.path().join("exact.npz")).unwrap();
    assert_eq!(
        exact.array_names().collect::<Vec<_>>(),
        ["out0"],
        "{}",
        show(3)
    );
    // 5. Report: the HTML of the replay's verdicts.
    assert_eq!(results[4].1, 0, "{}", show(4));
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("sinh"), "{}", show(4));
}
