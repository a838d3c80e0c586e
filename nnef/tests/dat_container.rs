//! Graph containers: single documents, folders and tar archives written in a temporary folder
//! and loaded back; `graph.quant` entries; variable values from files or generated.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use conformance_nnef::container::{
    load, load_archive_bytes, parse_quantization_entries, write_archive, write_folder, GraphSource,
    SourceKind,
};
use conformance_nnef::dat::{write_tensor, ItemType, TensorFile};
use conformance_nnef::graph::{DataType, Tensor, Value};
use conformance_nnef::weights::{generate, WeightRole};

const GRAPH: &str = "version 1.0;\n\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [1, 2]);\n    filter = variable(shape = [2, 2], label = 'conv1/filter');\n    bias = variable(shape = [1, 2], label = 'conv1/bias');\n    output = add(matmul(input, filter), bias);\n}\n";
const QUANT: &str = "\"filter\": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n";

fn f32_file(shape: Vec<usize>, values: &[f32]) -> TensorFile {
    let items: Vec<u64> = values.iter().map(|v| u64::from(v.to_bits())).collect();
    TensorFile::from_items(shape, ItemType::Float, 32, &items).unwrap()
}

fn sample_source() -> GraphSource {
    let mut variables = BTreeMap::new();
    variables.insert(
        "conv1/filter".to_string(),
        TensorFile::from_items(
            vec![2, 2],
            ItemType::QuantizedUnsigned,
            8,
            &[0, 51, 204, 255],
        )
        .unwrap(),
    );
    variables.insert(
        "conv1/bias".to_string(),
        f32_file(vec![1, 2], &[0.5, -0.25]),
    );
    GraphSource {
        path: "unused".into(),
        kind: SourceKind::Folder,
        text: GRAPH.to_string(),
        quantization: Some(QUANT.to_string()),
        variables,
    }
}

fn tensor(name: &str, dtype: DataType, shape: &[usize]) -> Tensor {
    Tensor {
        name: name.to_string(),
        dtype,
        shape: shape.to_vec(),
        quantization: None,
    }
}

fn assert_same_content(loaded: &GraphSource, expected: &GraphSource) {
    assert_eq!(loaded.text, expected.text);
    assert_eq!(loaded.quantization, expected.quantization);
    assert_eq!(loaded.variables, expected.variables);
}

/// Appends a regular file to a tar builder under `name` (any bytes, including unsafe paths).
fn append(builder: &mut tar::Builder<impl Write>, name: &str, bytes: &[u8]) {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    let field = &mut header.as_old_mut().name;
    field.fill(0);
    field[..name.len()].copy_from_slice(name.as_bytes());
    header.set_cksum();
    builder.append(&header, bytes).unwrap();
}

fn tgz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(encoder);
    for (name, bytes) in files {
        append(&mut builder, name, bytes);
    }
    builder.into_inner().unwrap().finish().unwrap()
}

#[test]
fn single_document_loads_without_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.nnef");
    std::fs::write(&path, GRAPH).unwrap();
    let source = load(&path).unwrap();
    assert_eq!(source.kind, SourceKind::Document);
    assert_eq!(source.text, GRAPH);
    assert!(source.quantization.is_none() && source.variables.is_empty());
    assert_eq!(source.path, path);
}

#[test]
fn real_khronos_document_loads() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/external/nnef/khronos/khronos_alexnet.graph.nnef"
    ));
    let source = load(path).unwrap();
    assert!(source.text.contains("alexnet_v2/conv1/kernel"));
}

#[test]
fn folder_roundtrips() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("graph");
    let source = sample_source();
    write_folder(&source, &root).unwrap();
    assert!(root.join("conv1/filter.dat").is_file());
    assert!(root.join("conv1/bias.dat").is_file());
    // Other versions of the data, vendor files and macOS litter are ignored.
    std::fs::write(root.join("conv1/filter.dat.q4"), b"other").unwrap();
    std::fs::write(root.join("conv1/._filter.dat"), b"litter").unwrap();
    std::fs::create_dir_all(root.join("vendor")).unwrap();
    std::fs::write(root.join("vendor/blob.bin"), b"anything").unwrap();
    let loaded = load(&root).unwrap();
    assert_eq!(loaded.kind, SourceKind::Folder);
    assert_eq!(loaded.path, root);
    assert_same_content(&loaded, &source);
}

#[test]
fn written_archive_roundtrips() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("graph.tgz");
    let mut source = sample_source();
    // A label longer than the 100 bytes of a tar header's name field.
    let long = format!("{}/{}", "block".repeat(15), "kernel".repeat(10));
    source.variables.insert(long, f32_file(vec![1], &[3.0]));
    write_archive(&source, &path).unwrap();
    let loaded = load(&path).unwrap();
    assert_eq!(loaded.kind, SourceKind::Archive);
    assert_eq!(loaded.path, path);
    assert_same_content(&loaded, &source);
    // Writing is deterministic.
    let again = dir.path().join("again.tgz");
    write_archive(&source, &again).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn archive_with_a_top_level_directory_loads() {
    let source = sample_source();
    let filter = write_tensor(&source.variables["conv1/filter"]).unwrap();
    let bias = write_tensor(&source.variables["conv1/bias"]).unwrap();
    let bytes = tgz(&[
        ("./alexnet/graph.nnef", GRAPH.as_bytes()),
        ("./alexnet/graph.quant", QUANT.as_bytes()),
        ("./alexnet/conv1/filter.dat", &filter),
        ("./alexnet/conv1/bias.dat", &bias),
        ("./alexnet/conv1/._bias.dat", b"AppleDouble"),
        ("__MACOSX/alexnet/._graph.nnef", b"AppleDouble"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alexnet.tar.gz");
    std::fs::write(&path, &bytes).unwrap();
    let loaded = load(&path).unwrap();
    assert_same_content(&loaded, &source);
}

#[test]
fn uncompressed_tar_loads() {
    let mut builder = tar::Builder::new(Vec::new());
    append(&mut builder, "graph.nnef", GRAPH.as_bytes());
    let bytes = builder.into_inner().unwrap();
    let loaded = load_archive_bytes(&bytes, "plain.tar").unwrap();
    assert_eq!(loaded.text, GRAPH);
    assert!(loaded.variables.is_empty() && loaded.quantization.is_none());
}

#[test]
fn loading_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    // A folder without graph.nnef.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = load(&empty).unwrap_err();
    assert!(e.to_string().contains("no graph.nnef"), "{e}");
    // A malformed .dat file.
    let bad = dir.path().join("bad");
    std::fs::create_dir_all(bad.join("conv1")).unwrap();
    std::fs::write(bad.join("graph.nnef"), GRAPH).unwrap();
    std::fs::write(bad.join("conv1/filter.dat"), [0x4E, 0xEF, 1, 0]).unwrap();
    let e = load(&bad).unwrap_err();
    assert!(e.file.ends_with("conv1/filter.dat"), "{}", e.file);
    assert!(
        e.to_string().contains("shorter than the 128-byte header"),
        "{e}"
    );
    // A graph.nnef that is not UTF-8.
    let latin = dir.path().join("latin");
    std::fs::create_dir(&latin).unwrap();
    std::fs::write(latin.join("graph.nnef"), b"version 1.0; \xff").unwrap();
    let e = load(&latin).unwrap_err();
    assert!(
        e.to_string().ends_with(
            "graph.nnef: not UTF-8 at byte 13 (0xff, line 1 column 14): expected UTF-8 text"
        ),
        "{e}"
    );
    // A missing path.
    let e = load(&dir.path().join("missing.tgz")).unwrap_err();
    assert!(
        e.file.ends_with("missing.tgz") && e.to_string().contains("cannot read"),
        "{e}"
    );
    // Something that is neither a document nor an archive.
    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, vec![7u8; 1000]).unwrap();
    let e = load(&junk).unwrap_err();
    assert!(e.file.ends_with("junk.bin"), "{e}");
    // A truncated gzip stream.
    let mut bytes = tgz(&[("graph.nnef", GRAPH.as_bytes())]);
    bytes.truncate(bytes.len() / 2);
    assert!(load_archive_bytes(&bytes, "cut.tgz").is_err());
}

#[test]
fn archive_errors() {
    // Two top-level directories: no single root.
    let bytes = tgz(&[
        ("a/graph.nnef", GRAPH.as_bytes()),
        ("b/graph.nnef", GRAPH.as_bytes()),
    ]);
    let e = load_archive_bytes(&bytes, "two.tgz").unwrap_err();
    assert!(e.to_string().contains("single top-level directory"), "{e}");
    // A member path that climbs out of the archive.
    let bytes = tgz(&[("graph.nnef", GRAPH.as_bytes()), ("../evil.dat", b"x")]);
    let e = load_archive_bytes(&bytes, "evil.tgz").unwrap_err();
    assert_eq!(e.file, "evil.tgz:../evil.dat");
    assert!(e.to_string().contains("unsafe"), "{e}");
    // A malformed member names the archive and the member.
    let bytes = tgz(&[
        ("net/graph.nnef", GRAPH.as_bytes()),
        ("net/w.dat", b"short"),
    ]);
    let e = load_archive_bytes(&bytes, "net.tgz").unwrap_err();
    assert_eq!(e.file, "net.tgz:net/w.dat");
}

#[test]
fn bad_labels_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    for label in ["../escape", "/abs", "a//b", "a/./b", ""] {
        let mut source = sample_source();
        source
            .variables
            .insert(label.to_string(), f32_file(vec![1], &[0.0]));
        let e = write_folder(&source, &dir.path().join("out")).unwrap_err();
        assert!(e.to_string().contains("cannot name a file"), "{label}: {e}");
    }
}

#[test]
fn quantization_entries_parse_to_attributes() {
    let text = "\"a\": linear_quantize(min = -2.0, max = 2.5, bits = 8);\n\
                'b': zero_point_linear_quantize(zero_point = 3, scale = [[0.5, 2.0]], bits = 8,\n\
                     signed = true, symmetric = !true);\n";
    let entries = parse_quantization_entries(text).unwrap();
    let (fragment, attributes) = &entries["a"];
    assert_eq!(fragment, "linear_quantize");
    assert_eq!(attributes["min"], Value::Scalar(-2.0));
    assert_eq!(attributes["max"], Value::Scalar(2.5));
    assert_eq!(attributes["bits"], Value::Integer(8));
    let (fragment, attributes) = &entries["b"];
    assert_eq!(fragment, "zero_point_linear_quantize");
    assert_eq!(
        attributes["scale"],
        Value::Array(vec![Value::Array(vec![
            Value::Scalar(0.5),
            Value::Scalar(2.0)
        ])])
    );
    assert_eq!(attributes["symmetric"], Value::Logical(false));
}

#[test]
fn quantization_errors_have_positions() {
    let e = parse_quantization_entries("\"a\": linear_quantize(-1.0, max = 1.0, bits = 8);")
        .unwrap_err();
    assert!(e.message.contains("must be named"), "{}", e.message);
    assert_eq!((e.span.line, e.span.column), (1, 22));
    let e = parse_quantization_entries(
        "\"a\": linear_quantize(min = 0.0, max = 1.0, bits = 8);\n\"a\": linear_quantize(min = 0.0, max = 1.0, bits = 8);",
    )
    .unwrap_err();
    assert!(e.message.contains("quantized twice"), "{}", e.message);
    assert_eq!(e.span.line, 2);
    let e = parse_quantization_entries("\"a\": linear_quantize(min = x, max = 1.0, bits = 8);")
        .unwrap_err();
    assert!(e.message.contains("literal constants"), "{}", e.message);
    let e =
        parse_quantization_entries("\"a\": linear_quantize(min = 0.0, min = 1.0);").unwrap_err();
    assert!(e.message.contains("given twice"), "{}", e.message);
    assert!(parse_quantization_entries("\"a\" linear_quantize();").is_err());
    // Through a source, the error names graph.quant.
    let mut source = sample_source();
    source.quantization = Some("\"a\": linear_quantize(min = -true);".into());
    let e = source.quantization_entries().unwrap_err();
    assert!(e.file.ends_with("graph.quant"), "{}", e.file);
    assert!(e.to_string().contains(":1:"), "{e}");
}

#[test]
fn variable_values_come_from_files_or_generation() {
    let source = sample_source();
    // A float file, in the graph's shape with implicit trailing ones.
    let bias = source
        .variable_value(
            "conv1/bias",
            &tensor("bias", DataType::Scalar, &[1, 2, 1, 1]),
            WeightRole::Any,
            0,
        )
        .unwrap();
    assert_eq!(bias.to_string(), "f32[1,2,1,1] {{{{0.5}}, {{-0.25}}}}");
    // A quantized file with its graph.quant entry (codes 0, 51, 204, 255 over [-1, 1]).
    let entries = source.quantization_entries().unwrap();
    let mut filter = tensor("filter", DataType::Scalar, &[2, 2]);
    filter.quantization = Some(entries["filter"].clone());
    let value = source
        .variable_value("conv1/filter", &filter, WeightRole::Weight, 0)
        .unwrap();
    assert_eq!(value.to_string(), "f32[2,2] {{-1, -0.6}, {0.6, 1}}");
    // Without quantization the file cannot be read as scalars.
    filter.quantization = None;
    let e = source
        .variable_value("conv1/filter", &filter, WeightRole::Weight, 0)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("no quantization for tensor `filter`"),
        "{e}"
    );
    // A shape that differs is an error naming the file.
    let e = source
        .variable_value(
            "conv1/bias",
            &tensor("bias", DataType::Scalar, &[2]),
            WeightRole::Any,
            0,
        )
        .unwrap_err();
    assert!(e.file.ends_with("conv1/bias.dat"), "{}", e.file);
    // A label without a file gets generated values.
    let t = tensor("w", DataType::Scalar, &[3, 4]);
    let value = source
        .variable_value("conv2/filter", &t, WeightRole::Weight, 9)
        .unwrap();
    assert_eq!(
        value,
        generate(
            "conv2/filter",
            &[3, 4],
            DataType::Scalar,
            WeightRole::Weight,
            9
        )
    );
}

#[test]
fn variable_files_are_checked_against_the_graph_without_running_it() {
    use conformance_nnef::arguments::check_variable_files;
    let graph_of = |source: &GraphSource| {
        let text = source.text.replace(
            "version 1.0;\n",
            "version 1.0;\nextension KHR_enable_operator_expressions;\n",
        );
        let document = conformance_nnef::parse_document(&text).unwrap();
        let mut graph = conformance_nnef::eval::evaluate(&document).unwrap();
        source.apply_quantization(&mut graph).unwrap();
        graph
    };
    let source = sample_source();
    check_variable_files(&graph_of(&source), &source).unwrap();
    // A file whose shape differs from the declared one names the file and both shapes.
    let mut bad = sample_source();
    bad.path = "net".into();
    bad.variables
        .insert("conv1/bias".into(), f32_file(vec![2, 1], &[0.5, -0.25]));
    let e = check_variable_files(&graph_of(&bad), &bad).unwrap_err();
    assert!(e.file.ends_with("conv1/bias.dat"), "{}", e.file);
    assert!(
        e.to_string()
            .contains("the file holds a tensor of shape [2, 1], the graph declares [1, 2]"),
        "{e}"
    );
    // A variable without a file is not checked (its values are generated).
    let mut missing = sample_source();
    missing.variables.remove("conv1/bias");
    check_variable_files(&graph_of(&missing), &missing).unwrap();
}
