//! The real NNEF documents in `corpus/external/nnef` (Khronos example networks, TVM front end
//! test graphs) lower to valid HLO modules, for their outputs and for every top-level tensor;
//! the TVM graphs run on the fast backend with the graph's output shapes, and the small ones
//! agree with the reference.

mod lower_support;

use std::path::PathBuf;

use conformance_fast::Fast;
use conformance_nnef::graph::{DataType, Graph};
use conformance_nnef::lower::{element_type, lower};
use conformance_nnef::{eval, parse_document};
use conformance_reference::Reference;
use conformance_spec::backend::Backend;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::ArrayShape;
use lower_support::{check_round_trip, dims, values};

fn external() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/external/nnef");
    assert!(
        dir.join("khronos-parser-shapes.json").is_file(),
        "missing external NNEF inputs at {}",
        dir.display()
    );
    dir
}

/// Every `.nnef` file of the external folders, sorted.
fn documents() -> Vec<(String, String)> {
    let dir = external();
    let mut out = Vec::new();
    for sub in ["khronos", "tvm-cases"] {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        for p in names
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "nnef"))
        {
            let name = format!("{sub}/{}", p.file_name().unwrap().to_string_lossy());
            out.push((name, std::fs::read_to_string(&p).unwrap()));
        }
    }
    out
}

/// Top-level tensors in operation order (each once).
fn top_level(graph: &Graph) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for op in &graph.operations {
        for (_, v) in &op.results {
            for t in v.tensor_names() {
                if !names.iter().any(|n| n == t) {
                    names.push(t.to_string());
                }
            }
        }
    }
    names
}

#[test]
fn every_external_document_lowers() {
    let mut evaluation_failures = Vec::new();
    let mut lowered = 0;
    for (file, text) in documents() {
        let graph = match parse_document(&text).and_then(|d| eval::evaluate(&d)) {
            Ok(g) => g,
            Err(e) => {
                evaluation_failures.push(e.in_file(&file));
                continue;
            }
        };
        let l = lower(&graph, &graph.outputs).unwrap_or_else(|e| panic!("{}", e.in_file(&file)));
        assert_eq!(
            &l.parameters[..graph.inputs.len()],
            &graph.inputs[..],
            "{file}"
        );
        check_round_trip(&l);
        let all = top_level(&graph);
        let l = lower(&graph, &all)
            .unwrap_or_else(|e| panic!("{} (every top-level tensor)", e.in_file(&file)));
        assert_eq!(l.outputs, all);
        lowered += 1;
    }
    eprintln!(
        "lowered {lowered} documents; {} did not evaluate:",
        evaluation_failures.len()
    );
    for f in &evaluation_failures {
        eprintln!("  {f}");
    }
    assert!(
        evaluation_failures.is_empty() && lowered == 305,
        "only {lowered} of the 305 documents evaluated and lowered"
    );
}

/// Deterministic arguments: scalars in [-1, 1), integers in [0, 4), alternating logicals.
fn arguments(graph: &Graph, parameters: &[String]) -> Vec<Literal> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as f64 / (1u64 << 31) as f64
    };
    parameters
        .iter()
        .map(|name| {
            let t = graph.tensor(name).unwrap();
            let shape = ArrayShape::new(
                element_type(t.dtype),
                t.shape.iter().map(|&d| d as i64).collect(),
            );
            let n: usize = t.shape.iter().product();
            let literal = match t.dtype {
                DataType::Scalar => {
                    let v: Vec<f64> = (0..n).map(|_| 2.0 * next() - 1.0).collect();
                    ArrayLiteral::from_f64s(shape, &v)
                }
                DataType::Integer => {
                    let v: Vec<i128> = (0..n).map(|_| (next() * 4.0) as i128).collect();
                    ArrayLiteral::from_i128s(shape, &v)
                }
                DataType::Logical => {
                    let v: Vec<i128> = (0..n).map(|k| (k % 2) as i128).collect();
                    ArrayLiteral::from_i128s(shape, &v)
                }
            };
            Literal::Array(literal.unwrap())
        })
        .collect()
}

#[test]
fn tvm_cases_run_and_small_ones_agree_with_the_reference() {
    let mut run = 0;
    let mut compared = 0;
    for (file, text) in documents()
        .into_iter()
        .filter(|(f, _)| f.starts_with("tvm-cases/"))
    {
        let Ok(graph) = parse_document(&text).and_then(|d| eval::evaluate(&d)) else {
            continue;
        };
        let l = lower(&graph, &graph.outputs).unwrap_or_else(|e| panic!("{}", e.in_file(&file)));
        let args = arguments(&graph, &l.parameters);
        let split = |r: Literal| -> Vec<Literal> {
            match r {
                Literal::Tuple(items) if graph.outputs.len() != 1 => items,
                other => vec![other],
            }
        };
        let fast = split(
            Fast::new()
                .execute(&l.module, &args)
                .unwrap_or_else(|e| panic!("{file}: fast: {e}")),
        );
        for (name, out) in graph.outputs.iter().zip(&fast) {
            let want: Vec<i64> = graph
                .tensor(name)
                .unwrap()
                .shape
                .iter()
                .map(|&d| d as i64)
                .collect();
            assert_eq!(dims(out), want, "{file}: output {name}");
        }
        run += 1;
        let elements: usize = graph
            .tensors
            .values()
            .map(|t| t.shape.iter().product::<usize>())
            .sum();
        if elements > 4096 {
            continue;
        }
        let reference = split(
            Reference
                .execute(&l.module, &args)
                .unwrap_or_else(|e| panic!("{file}: reference: {e}")),
        );
        for ((name, r), f) in graph.outputs.iter().zip(&reference).zip(&fast) {
            for (a, b) in values(r).iter().zip(values(f)) {
                let close = (a.is_nan() && b.is_nan())
                    || *a == b
                    || (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1e-3);
                assert!(close, "{file}: output {name}: reference {a} vs fast {b}");
            }
        }
        compared += 1;
    }
    eprintln!("ran {run} tvm cases on the fast backend, {compared} compared with the reference");
    assert!(run >= 296, "only {run} tvm cases ran");
    assert!(compared > 0);
}
