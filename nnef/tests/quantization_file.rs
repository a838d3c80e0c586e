//! `graph.quant` entries attach to the graph's tensors; entries naming an unknown tensor or a
//! fragment that does not quantize are errors naming `graph.quant`.

use conformance_nnef::container::{load, write_folder, GraphSource, SourceKind};
use conformance_nnef::graph::Value;
use conformance_nnef::{eval, parse_document};

const GRAPH: &str = "version 1.0;\ngraph G( input ) -> ( output )\n{\n    input = external<scalar>(shape = [1, 4]);\n    output = relu(input);\n}\n";

fn roundtrip(quant: &str) -> Result<conformance_nnef::graph::Graph, String> {
    let dir = tempfile::tempdir().unwrap();
    let source = GraphSource {
        path: dir.path().to_path_buf(),
        kind: SourceKind::Folder,
        text: GRAPH.into(),
        quantization: Some(quant.into()),
        variables: Default::default(),
    };
    write_folder(&source, dir.path()).unwrap();
    let loaded = load(dir.path()).map_err(|e| e.to_string())?;
    let mut graph = eval::evaluate(&parse_document(&loaded.text).unwrap()).unwrap();
    loaded
        .apply_quantization(&mut graph)
        .map_err(|e| e.to_string())?;
    Ok(graph)
}

#[test]
fn entries_attach_to_tensors() {
    let g = roundtrip("\"output\": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n").unwrap();
    let (fragment, attributes) = g.tensors["output"].quantization.clone().unwrap();
    assert_eq!(fragment, "linear_quantize");
    assert_eq!(attributes["bits"], Value::Integer(8));
    assert_eq!(attributes["min"], Value::Scalar(-1.0));
    assert!(g.tensors["input"].quantization.is_none());
}

#[test]
fn bad_entries_name_the_file() {
    let e =
        roundtrip("\"nothing\": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n").unwrap_err();
    assert!(
        e.contains("graph.quant") && e.contains("'nothing' is not a tensor"),
        "{e}"
    );
    let e = roundtrip("\"output\": relu(min = 0.0);\n").unwrap_err();
    assert!(
        e.contains("graph.quant") && e.contains("not a quantization fragment"),
        "{e}"
    );
    let e = roundtrip("\"output\" linear_quantize(min = 0.0);\n").unwrap_err();
    assert!(e.contains("graph.quant:1:"), "{e}");
}
