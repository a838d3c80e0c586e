//! The 305 real NNEF documents in `corpus/external/nnef` (Khronos example networks and the
//! TVM front end's test graphs) parse, pass every semantic rule, and the shape and data type of
//! every tensor equal what the Khronos reference parser infers (`khronos-parser-shapes.json`).

use std::path::PathBuf;

use conformance_nnef::{eval, parse_document};

fn external() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/external/nnef");
    assert!(
        dir.join("khronos-parser-shapes.json").is_file(),
        "the external NNEF inputs are missing: expected {}",
        dir.display()
    );
    dir
}

#[test]
fn every_external_document_matches_the_khronos_parser() {
    let dir = external();
    let oracle: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("khronos-parser-shapes.json")).unwrap(),
    )
    .unwrap();
    let oracle = oracle.as_object().unwrap();
    assert_eq!(oracle.len(), 305);
    let mut failures = Vec::new();
    let mut tensors = 0;
    for (file, expected) in oracle {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let graph = match parse_document(&text).and_then(|d| eval::evaluate(&d)) {
            Ok(g) => g,
            Err(e) => {
                failures.push(e.in_file(file));
                continue;
            }
        };
        assert_eq!(graph.name, expected["graph"].as_str().unwrap(), "{file}");
        let names = |key: &str| -> Vec<String> {
            expected[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(graph.inputs, names("inputs"), "{file}");
        assert_eq!(graph.outputs, names("outputs"), "{file}");
        let ops: Vec<&str> = graph.operations.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(ops, names("ops"), "{file}");
        for (tensor, shape) in expected["shapes"].as_object().unwrap() {
            let want: Vec<usize> = shape
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            let dtype = expected["dtypes"][tensor].as_str().unwrap();
            match graph.tensor(tensor) {
                None => failures.push(format!("{file}: no tensor '{tensor}'")),
                Some(t) if t.shape != want || t.dtype.name() != dtype => failures.push(format!(
                    "{file}: '{tensor}' is {}{:?}, the Khronos parser says {dtype}{want:?}",
                    t.dtype.name(),
                    t.shape
                )),
                Some(_) => tensors += 1,
            }
        }
        // Every tensor the body names is one the Khronos parser names (no extra top-level ones).
        for t in graph.tensors.keys().filter(|t| !t.contains('$')) {
            if !expected["shapes"].as_object().unwrap().contains_key(t) {
                failures.push(format!("{file}: extra tensor '{t}'"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(tensors, 1481, "every tensor of the oracle is compared");
}
