//! Every real NNEF graph under `corpus/external/nnef` (4 Khronos model graphs and 301 TVM test
//! cases, none written by this project) parses, and its graph name, inputs, outputs and the
//! operations its body invokes, in order, equal what the Khronos reference parser reported
//! (`khronos-parser-shapes.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use conformance_nnef::ast::ExprKind;
use conformance_nnef::parse_document;
use serde_json::Value;

/// The folder of the external graphs, relative to this crate.
fn external_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/external/nnef")
}

/// `folder/*.nnef`, sorted, as paths relative to [`external_dir`].
fn nnef_files(root: &Path, folder: &str) -> Vec<String> {
    let dir = root.join(folder);
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut files: Vec<String> = entries
        .map(|entry| {
            entry
                .expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".nnef"))
        .map(|name| format!("{folder}/{name}"))
        .collect();
    files.sort();
    files
}

/// The strings of a JSON array field.
fn strings(entry: &Value, field: &str, file: &str) -> Vec<String> {
    entry[field]
        .as_array()
        .unwrap_or_else(|| panic!("{file}: field '{field}' is not an array in the oracle json"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("{file}: non-string in '{field}'"))
                .to_string()
        })
        .collect()
}

#[test]
fn every_external_graph_parses_like_the_khronos_parser() {
    let root = external_dir();
    assert!(
        root.is_dir(),
        "the external NNEF graphs are missing: expected the folder {} (corpus/external/nnef); \
         this test must not pass without them",
        root.display()
    );
    let oracle_path = root.join("khronos-parser-shapes.json");
    let oracle_text = std::fs::read_to_string(&oracle_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", oracle_path.display()));
    let oracle: BTreeMap<String, Value> =
        serde_json::from_str(&oracle_text).expect("khronos-parser-shapes.json is a JSON object");

    let mut files = nnef_files(&root, "khronos");
    files.extend(nnef_files(&root, "tvm-cases"));
    assert_eq!(
        files.len(),
        305,
        "expected 4 Khronos graphs and 301 TVM cases"
    );
    let listed: Vec<&String> = oracle.keys().collect();
    let found: Vec<&String> = files.iter().collect();
    assert_eq!(
        listed, found,
        "the oracle json and the folders list different files"
    );

    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).expect("readable graph file");
        let doc = match parse_document(&text) {
            Ok(doc) => doc,
            Err(e) => {
                failures.push(e.in_file(file));
                continue;
            }
        };
        let expected = &oracle[file];
        let graph = &doc.graph;
        let name = expected["graph"].as_str().unwrap_or_default();
        if graph.name != name {
            failures.push(format!("{file}: graph name '{}' != '{name}'", graph.name));
        }
        let inputs: Vec<String> = graph.inputs.iter().map(|(n, _)| n.clone()).collect();
        if inputs != strings(expected, "inputs", file) {
            failures.push(format!(
                "{file}: inputs {inputs:?} != {:?}",
                strings(expected, "inputs", file)
            ));
        }
        let outputs: Vec<String> = graph.outputs.iter().map(|(n, _)| n.clone()).collect();
        if outputs != strings(expected, "outputs", file) {
            failures.push(format!(
                "{file}: outputs {outputs:?} != {:?}",
                strings(expected, "outputs", file)
            ));
        }
        let mut ops = Vec::new();
        for assignment in &graph.body {
            match &assignment.rhs.kind {
                ExprKind::Invocation(invocation) => ops.push(invocation.name.clone()),
                other => failures.push(format!(
                    "{file}:{}: a flat graph's right side should be an invocation, found {other:?}",
                    assignment.rhs.span
                )),
            }
        }
        if ops != strings(expected, "ops", file) {
            failures.push(format!(
                "{file}: ops {ops:?} != {:?}",
                strings(expected, "ops", file)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
