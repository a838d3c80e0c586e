//! The `tract` backend of `conformance nnef run` (feature `tract`): real graphs of
//! `corpus/external/nnef/tvm-cases` agree with the reference; a graph tract refuses is reported
//! unsupported with tract's message; a planted disagreement (a weight perturbed on tract's side
//! only) is localized to the NNEF operation that reads it.
#![cfg(feature = "tract")]

use std::path::{Path, PathBuf};

use conformance::check::Verdict;
use conformance::nnef_cmd::InputShapes;
use conformance::nnef_tract::{check_graph, check_graph_with, TractOutput};
use conformance_spec::catalog::Catalog;
use conformance_spec::literal::{ArrayLiteral, Literal};

fn tvm_case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/external/nnef/tvm-cases")
        .join(format!("{name}.nnef"))
}

fn check(path: &Path, shapes: &InputShapes) -> Vec<TractOutput> {
    let catalog = Catalog::builtin().unwrap();
    check_graph(&catalog, path, shapes, 1, &conformance_reference::Reference).unwrap()
}

/// A graph document in a fresh temporary folder.
fn document(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("graph.nnef");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

#[test]
fn tract_agrees_with_the_reference_on_real_graphs() {
    // A convolution with bias, a pooling, an element-wise and a reduction, shrunk to keep the
    // exact reference quick.
    for (case, input) in [
        ("conv3x3", "input=1,8,12,12"),
        ("max_pool3x3", "input=2,4,16,16"),
        ("add_4d", ""),
        ("sum_reduce_channel", "input=2,16,8,8"),
        ("softmax_2d_standalone", ""),
    ] {
        let mut shapes = InputShapes::default();
        if let Some((name, dims)) = input.split_once('=') {
            let dims = dims.split(',').map(|d| d.parse().unwrap()).collect();
            shapes.input_shapes.push((name.to_string(), dims));
        }
        let checks = check(&tvm_case(case), &shapes);
        assert!(!checks.is_empty(), "{case}");
        for c in checks {
            assert_eq!(c.outcome.backend, "tract");
            assert_eq!(c.outcome.verdict, Verdict::Pass, "{case}: {c:?}");
            assert!(c.at.is_none(), "{case}: {c:?}");
        }
    }
}

#[test]
fn a_graph_tract_refuses_is_unsupported_with_its_message() {
    // tract declares `split` but cannot build it: every output is `unsupported`, with tract's
    // message, and nothing panics.
    let checks = check(&tvm_case("split_channel"), &InputShapes::default());
    assert_eq!(checks.len(), 2);
    for c in &checks {
        let o = &c.outcome;
        assert_eq!(o.verdict, Verdict::Unsupported, "{o:?}");
        let message = o.error.as_deref().unwrap_or_default();
        assert!(
            message.contains("No definition for operator Identifier(\"split\")"),
            "{message}"
        );
    }
}

#[test]
fn a_perturbed_weight_is_localized_to_the_operation_reading_it() {
    let (_dir, file) = document(
        "version 1.0;\n\
         graph G( input ) -> ( output )\n\
         {\n\
         \x20   input = external(shape = [1, 4, 6, 6]);\n\
         \x20   a = relu(input);\n\
         \x20   filter = variable(shape = [4, 4, 3, 3], label = 'filter');\n\
         \x20   b = conv(a, filter, 0.0, padding = [(1, 1), (1, 1)]);\n\
         \x20   output = sigmoid(b);\n\
         }\n",
    );
    let catalog = Catalog::builtin().unwrap();
    let reference = conformance_reference::Reference;
    let shapes = InputShapes::default();
    // Unperturbed, tract agrees.
    let checks = check_graph(&catalog, &file, &shapes, 1, &reference).unwrap();
    assert_eq!(checks[0].outcome.verdict, Verdict::Pass, "{:?}", checks[0]);
    // tract alone gets a filter whose first element is off by 0.5.
    let perturb = |name: &str, value: &mut Literal| {
        if name == "filter" {
            if let Literal::Array(a) = value {
                let mut v = a.to_f64s().unwrap();
                v[0] += 0.5;
                *a = ArrayLiteral::from_f64s(a.shape().clone(), &v).unwrap();
            }
        }
    };
    let checks = check_graph_with(&catalog, &file, &shapes, 1, &reference, &perturb).unwrap();
    assert_eq!(checks[0].outcome.verdict, Verdict::Fail, "{:?}", checks[0]);
    assert_eq!(
        checks[0].at.as_deref(),
        Some("conv at 7:9"),
        "{:?}",
        checks[0]
    );
}

#[test]
fn the_run_command_prints_tract_verdicts_beside_the_others() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["nnef", "run"])
        .arg(tvm_case("unstack"))
        .args(["--backends", "reference,fast,tract"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("output `output1`:"), "{stdout}");
    assert!(stdout.contains("output `output2`:"), "{stdout}");
    assert!(stdout.contains("output `output3`:"), "{stdout}");
    assert_eq!(stdout.matches("  tract: Pass").count(), 3, "{stdout}");
    // `tract` cannot be the backend the others are compared with.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["nnef", "run"])
        .arg(tvm_case("split_channel"))
        .args(["--backends", "tract,reference"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/regressions")
}

#[test]
fn every_nnef_corpus_file_replays_to_its_recorded_verdict_on_tract() {
    let catalog = Catalog::builtin().unwrap();
    let files = conformance::corpus_nnef::files(&regressions());
    assert!(files.len() >= 10, "{files:?}");
    let mut problems = Vec::new();
    for f in &files {
        let case = match conformance::corpus_nnef::NnefCorpusCase::load(f) {
            Ok(c) => c,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        match conformance::corpus_nnef::replay(&catalog, &case, &conformance_reference::Reference) {
            Ok(r) if r.ok => {}
            Ok(r) => problems.push(format!("{}:\n  {}", f.display(), r.lines.join("\n  "))),
            Err(e) => problems.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The HLO corpus leaves them out.
    assert!(conformance::corpus::files(&regressions())
        .iter()
        .all(|f| !files.contains(f)));
}

#[test]
fn a_recorded_deviation_tract_does_not_show_is_not_reproduced() {
    // tract's `add` is correctly rounded: a file claiming it is 1 ULP off must fail to replay.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("add-scalar-tract-claimed.yaml");
    std::fs::write(
        &file,
        "op: add\ndtype: scalar\nbackend: tract\nverdict: fail\nclass: ulp\naccepted: true\n\
         seed: 1\ngraph: |\n  version 1.0;\n  graph G( x, y ) -> ( z )\n  {\n      \
         x = external(shape = [1, 16]);\n      y = external(shape = [1, 16]);\n      \
         z = add(x, y);\n  }\nprovenance:\n  source: test\n  command: none\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
        .arg("replay")
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("output `z`: tract Pass"), "{stdout}");
    assert!(
        stdout.contains("accepted deviation: NOT reproduced"),
        "{stdout}"
    );
}

#[test]
fn a_known_tract_deviation_does_not_fail_nnef_run_and_is_named() {
    let (_dir, graph) = document(
        "version 1.0;\ngraph G( input ) -> ( output )\n{\n    \
         input = external(shape = [1, 64]);\n    y = mul(input, 100.0);\n    \
         output = tanh(y);\n}\n",
    );
    let run = |corpus: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_conformance"))
            .args(["nnef", "run"])
            .arg(&graph)
            .args(["--backends", "reference,tract", "--corpus-dir"])
            .arg(corpus)
            .output()
            .unwrap()
    };
    let out = run(&regressions());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("tract: known deviation, recorded in")
            && stdout.contains("tanh-scalar-tract-rational-approximation.yaml"),
        "{stdout}"
    );
    // Without the corpus it is a disagreement.
    let empty = tempfile::tempdir().unwrap();
    let out = run(empty.path());
    assert_eq!(out.status.code(), Some(1));
}
