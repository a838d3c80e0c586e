//! Bad input, everywhere (issue 16, items 5 and 6): each bad input goes through the binary and
//! must give exit status 2 with a message naming the file, the line:col where there is one, and
//! what was expected — never a panic or an abort, and nothing already written lost. Also what XLA
//! accepts and the verifier used to refuse (PRED bitcasts and select-and-scatter), and the NNEF
//! `--khronos` grammar.

use std::path::{Path, PathBuf};

mod common;
use common::conformance;

/// A fresh directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "conformance-bad-input-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Exit status 2, no panic, and a message with every one of `parts`.
fn assert_bad_input(result: (i32, String, String), parts: &[&str]) -> String {
    let (code, out, err) = result;
    assert_eq!(code, 2, "stdout:\n{out}\nstderr:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    for part in parts {
        assert!(err.contains(part), "`{part}` missing from:\n{err}");
    }
    err
}

// ----- a. run --cases 0, --jobs 0 ----------------------------------------------------------------

#[test]
fn zero_cases_or_zero_jobs_are_usage_errors() {
    assert_bad_input(
        conformance(&["run", "--ops", "add", "--cases", "0"]),
        &["--cases: expected a positive number of cases, got 0"],
    );
    assert_bad_input(
        conformance(&["run", "--ops", "add", "--cases", "10", "--jobs", "0"]),
        &["--jobs: expected a positive number of worker threads, got 0"],
    );
}

// ----- b. run into an existing results file -------------------------------------------------------

#[test]
fn a_non_empty_results_file_is_refused_without_resume_or_append() {
    let dir = temp_dir("append");
    let results = dir.join("r.jsonl");
    let sweep = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--ops",
            "add",
            "--dtypes",
            "f32",
            "--cases",
            "5",
            "--no-progress",
            "--results",
            s(&results),
        ];
        args.extend_from_slice(extra);
        conformance(&args)
    };
    let (code, _, err) = sweep(&[]);
    assert_eq!(code, 0, "{err}");
    let first = std::fs::read(&results).unwrap();
    assert!(!first.is_empty());
    // A second run without --resume or --append: refused, and the file is untouched.
    assert_bad_input(
        sweep(&[]),
        &[
            s(&results),
            "not empty",
            "--resume",
            "--append",
            "nothing was written",
        ],
    );
    assert_eq!(std::fs::read(&results).unwrap(), first, "the file changed");
    // --append adds a second run after the first, which stays as it was.
    let (code, _, err) = sweep(&["--append"]);
    assert_eq!(code, 0, "{err}");
    let both = std::fs::read_to_string(&results).unwrap();
    assert!(both.as_bytes().starts_with(&first), "{both}");
    assert_eq!(both.matches("\"type\":\"run-start\"").count(), 2, "{both}");
    assert_eq!(both.matches("\"type\":\"case\"").count(), 10, "{both}");
    // --append and --resume say different things: both at once is a usage error.
    assert_bad_input(sweep(&["--append", "--resume"]), &["--append", "--resume"]);
    // An empty file is not an earlier run: written without a flag.
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let (code, _, err) = conformance(&[
        "run",
        "--ops",
        "add",
        "--dtypes",
        "f32",
        "--cases",
        "3",
        "--no-progress",
        "--results",
        s(&empty),
    ]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- c. report: empty file, truncated last line -------------------------------------------------

#[test]
fn report_warns_on_an_empty_file_and_a_truncated_last_line() {
    let dir = temp_dir("report");
    let html = dir.join("out/index.html");
    let empty = dir.join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let (code, out, err) = conformance(&["report", s(&empty), "-o", s(&html)]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        err.contains(&format!(
            "warning: {}: empty results file: no run or case recorded",
            s(&empty)
        )),
        "{err}"
    );
    assert!(html.exists());

    let results = dir.join("r.jsonl");
    let (code, _, err) = conformance(&[
        "run",
        "--ops",
        "add",
        "--dtypes",
        "f32",
        "--cases",
        "4",
        "--no-progress",
        "--results",
        s(&results),
    ]);
    assert_eq!(code, 0, "{err}");
    let complete = std::fs::read_to_string(&results).unwrap();
    let lines = complete.lines().count();
    // A run killed while writing a case line leaves half of it, without its newline.
    let case_line = complete.lines().nth(1).unwrap();
    let truncated = format!("{complete}{}", &case_line[..case_line.len() / 2]);
    std::fs::write(&results, &truncated).unwrap();
    let (code, out, err) = conformance(&["report", s(&results), "-o", s(&html)]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(
        err.contains(&format!(
            "warning: {}:{}: truncated last line",
            s(&results),
            lines + 1
        )),
        "{err}"
    );
    assert!(err.contains("skipped"), "{err}");
    assert!(out.contains("4 cases"), "{out}");
    // The report reads the file, it does not repair it.
    assert_eq!(std::fs::read_to_string(&results).unwrap(), truncated);
    // A complete file: no warning.
    std::fs::write(&results, &complete).unwrap();
    let (code, _, err) = conformance(&["report", s(&results), "-o", s(&html)]);
    assert_eq!(code, 0);
    assert!(!err.contains("warning"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- d. check: shape errors at file:line:col ----------------------------------------------------

#[test]
fn check_reports_shape_errors_at_the_line_and_column_of_the_instruction() {
    let dir = temp_dir("check");
    let wrong = dir.join("wrong.hlo");
    std::fs::write(
        &wrong,
        "HloModule m\n\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n",
    )
    .unwrap();
    assert_bad_input(
        conformance(&["check", s(&wrong)]),
        &[&format!(
            "{}:5:19: computation %main, instruction %y: declared shape `f32[4]{{0}}` does not match the inferred `f32[3]{{0}}`",
            s(&wrong)
        )],
    );
    // In a called computation: the line of that computation's instruction.
    let nested = dir.join("nested.hlo");
    std::fs::write(
        &nested,
        "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] multiply(a, b)\n}\n\nENTRY main {\n  x = s32[2] parameter(0)\n  z = s32[] constant(0)\n  ROOT r = s32[] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
    )
    .unwrap();
    assert_bad_input(
        conformance(&["check", s(&nested)]),
        &[&format!(
            "{}:12:18: computation %main, instruction %r:",
            s(&nested)
        )],
    );
    // An element type the operation does not take says which ones it does.
    let pred_add = dir.join("types.hlo");
    std::fs::write(
        &pred_add,
        "HloModule m\nENTRY main {\n  x = pred[2] parameter(0)\n  ROOT y = pred[2] exponential(x)\n}\n",
    )
    .unwrap();
    assert_bad_input(
        conformance(&["check", s(&pred_add)]),
        &[
            &format!("{}:4:20:", s(&pred_add)),
            "element type pred",
            "catalog: ",
        ],
    );
    // StableHLO (`.mlir`) is read into the same IR and verified the same way: an element type
    // the operation does not take is named at the operation's line:col; a valid module is ok.
    let mlir = dir.join("types.mlir");
    std::fs::write(
        &mlir,
        "func.func public @main(%arg0: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n  \
         %0 = chlo.lgamma %arg0 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>\n  \
         return %0 : tensor<2xcomplex<f32>>\n}\n",
    )
    .unwrap();
    assert_bad_input(
        conformance(&["check", s(&mlir)]),
        &[&format!("{}:2:8:", s(&mlir)), "element type c64"],
    );
    let good = dir.join("good.mlir");
    std::fs::write(
        &good,
        "func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n  \
         %0 = chlo.lgamma %arg0 : tensor<2xf32> -> tensor<2xf32>\n  \
         return %0 : tensor<2xf32>\n}\n",
    )
    .unwrap();
    let (code, out, err) = conformance(&["check", s(&good)]);
    assert_eq!(
        (code, out.trim()),
        (0, format!("{}: ok", s(&good)).as_str()),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- e. nnef check: .dat shapes -----------------------------------------------------------------

#[test]
fn nnef_check_verifies_tensor_file_shapes() {
    use conformance_nnef::dat::{write_tensor, ItemType, TensorFile};
    let dir = temp_dir("nnef-dat");
    let net = dir.join("net");
    std::fs::create_dir_all(&net).unwrap();
    std::fs::write(
        net.join("graph.nnef"),
        "version 1.0;\n\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [1, 3]);\n    weights = variable(shape = [3, 2], label = 'w');\n    output = matmul(input, weights);\n}\n",
    )
    .unwrap();
    let file = |shape: Vec<usize>| {
        let n: usize = shape.iter().product();
        let items: Vec<u64> = (0..n).map(|k| u64::from((k as f32).to_bits())).collect();
        write_tensor(&TensorFile::from_items(shape, ItemType::Float, 32, &items).unwrap()).unwrap()
    };
    std::fs::write(net.join("w.dat"), file(vec![3, 2])).unwrap();
    let (code, out, err) = conformance(&["nnef", "check", s(&net)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("output: scalar[1,2]"), "{out}");
    // A file of another shape: refused by `check` itself, naming the file and both shapes.
    std::fs::write(net.join("w.dat"), file(vec![2, 3])).unwrap();
    assert_bad_input(
        conformance(&["nnef", "check", s(&net)]),
        &[
            "w.dat",
            "the file holds a tensor of shape [2, 3], the graph declares [3, 2]",
        ],
    );
    // ... as `nnef run` does.
    assert_bad_input(
        conformance(&["nnef", "run", s(&net)]),
        &["w.dat", "the graph declares [3, 2]"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- f. non-UTF-8 input -------------------------------------------------------------------------

#[test]
fn non_utf8_input_names_the_byte_offset() {
    let dir = temp_dir("utf8");
    // HLO: the first invalid byte is at offset 18 (line 2, column 7).
    let hlo = dir.join("latin1.hlo");
    std::fs::write(&hlo, b"HloModule m\nENTRY \xe9main {\n}\n").unwrap();
    let expected = format!("{}: not UTF-8 at byte 18 (0xe9, line 2 column 7)", s(&hlo));
    assert_bad_input(conformance(&["check", s(&hlo)]), &[&expected]);
    assert_bad_input(conformance(&["replay", s(&hlo)]), &[&expected]);
    // Catalog YAML given to `check`, and a corpus YAML given to `replay`.
    let yaml = dir.join("family.yaml");
    std::fs::write(&yaml, b"family: x\nsource: \"\xff\"\n").unwrap();
    assert_bad_input(
        conformance(&["check", s(&yaml)]),
        &[&format!("{}: not UTF-8 at byte 19", s(&yaml))],
    );
    let corpus = dir.join("case.yaml");
    std::fs::write(&corpus, b"op: add\n\xc3(\n").unwrap();
    assert_bad_input(
        conformance(&["replay", s(&corpus)]),
        &[&format!(
            "{}: not UTF-8 at byte 8 (0xc3, line 2 column 1)",
            s(&corpus)
        )],
    );
    // NNEF: a document and the graph.nnef of a folder.
    let doc = dir.join("g.nnef");
    std::fs::write(&doc, b"version 1.0;\n# caf\xe9\n").unwrap();
    assert_bad_input(
        conformance(&["nnef", "check", s(&doc)]),
        &[&format!("{}: not UTF-8 at byte 18", s(&doc))],
    );
    let folder = dir.join("net");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("graph.nnef"), b"\xfe").unwrap();
    assert_bad_input(
        conformance(&["nnef", "check", s(&folder)]),
        &["graph.nnef: not UTF-8 at byte 0"],
    );
    // Results files: `report` and `run --resume`.
    let results = dir.join("r.jsonl");
    std::fs::write(
        &results,
        b"{\"type\":\"run-end\",\"cases\":0,\"elapsed_secs\":0.0}\n\x80\n",
    )
    .unwrap();
    let before = std::fs::read(&results).unwrap();
    assert_bad_input(
        conformance(&["report", s(&results), "-o", s(&dir.join("out.html"))]),
        &[&format!("{}: not UTF-8 at byte 48", s(&results))],
    );
    assert_bad_input(
        conformance(&[
            "run",
            "--ops",
            "add",
            "--cases",
            "2",
            "--no-progress",
            "--results",
            s(&results),
            "--resume",
        ]),
        &[&format!("{}: not UTF-8 at byte 48", s(&results))],
    );
    assert_eq!(std::fs::read(&results).unwrap(), before, "the file changed");
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- g. what XLA accepts over PRED --------------------------------------------------------------

#[test]
fn pred_bitcast_and_select_and_scatter_are_accepted_and_run_on_both_backends() {
    let dir = temp_dir("pred");
    let bitcast = dir.join("bitcast.hlo");
    std::fs::write(
        &bitcast,
        "HloModule m\nENTRY main {\n  a = pred[4]{0} parameter(0)\n  ROOT b = pred[4]{0} bitcast-convert(a)\n}\n",
    )
    .unwrap();
    let sas = dir.join("sas.hlo");
    std::fs::write(
        &sas,
        "HloModule m\nge {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\nor {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n  ROOT s = pred[] or(a, b)\n}\nENTRY main {\n  x = pred[4,5]{1,0} parameter(0)\n  s = pred[3,3]{1,0} parameter(1)\n  z = pred[] constant(false)\n  ROOT r = pred[4,5]{1,0} select-and-scatter(x, s, z), window={size=2x3 stride=2x2 pad=1_1x1_1}, select=ge, scatter=or\n}\n",
    )
    .unwrap();
    for f in [&bitcast, &sas] {
        let (code, out, err) = conformance(&["check", s(f)]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(": ok"), "{out}");
        let (code, out, err) = conformance(&["replay", s(f), "--seed", "3"]);
        assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
        assert!(out.contains("fast: Pass"), "{out}");
    }
    // PRED to another type stays refused, as XLA refuses it.
    let to_u8 = dir.join("to_u8.hlo");
    std::fs::write(
        &to_u8,
        "HloModule m\nENTRY main {\n  a = pred[4]{0} parameter(0)\n  ROOT b = u8[4]{0} bitcast-convert(a)\n}\n",
    )
    .unwrap();
    assert_bad_input(
        conformance(&["check", s(&to_u8)]),
        &[
            &format!("{}:4:21:", s(&to_u8)),
            "element type pred (result u8)",
        ],
    );
    // Generated cases (the reference's values checked against fast on each); the catalog's
    // examples (exact expected values, XLA's own) run in catalog_examples.rs.
    let (code, out, err) = conformance(&[
        "run",
        "--ops",
        "bitcast-convert-pred,select-and-scatter",
        "--dtypes",
        "pred",
        "--cases",
        "60",
        "--no-progress",
    ]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("60 cases"), "{out}");
    assert!(out.contains("0 fail, 0 error"), "{out}");
    assert!(!err.contains("generator error"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

// ----- 6. NNEF strictness: --khronos --------------------------------------------------------------

#[test]
fn nnef_check_khronos_requires_every_semicolon() {
    let dir = temp_dir("khronos");
    let doc = dir.join("seed.nnef");
    std::fs::write(
        &doc,
        "version 1.0;\n\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [1, 4])\n    output = relu(input);\n}\n",
    )
    .unwrap();
    // Seed 003 (the default) accepts the missing `;` at the end of a line.
    let (code, out, err) = conformance(&["nnef", "check", s(&doc)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("output: scalar[1,4]"), "{out}");
    // The Khronos parser does not: an error at the next token's line:col.
    assert_bad_input(
        conformance(&["nnef", "check", "--khronos", s(&doc)]),
        &[&format!(
            "{}:6:5: expected ';' after the assignment, found identifier 'output'",
            s(&doc)
        )],
    );
    // With every `;`, both accept.
    let full = dir.join("full.nnef");
    std::fs::write(
        &full,
        "version 1.0;\n\ngraph G( input ) -> ( output )\n{\n    input = external(shape = [1, 4]);\n    output = relu(input);\n}\n",
    )
    .unwrap();
    let (code, _, err) = conformance(&["nnef", "check", "--khronos", "--quiet", s(&full)]);
    assert_eq!(code, 0, "{err}");
    // The help says what differs.
    let (code, out, _) = conformance(&["nnef", "check", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("--khronos"), "{out}");
    assert!(out.contains("Khronos reference parser"), "{out}");
    assert!(out.contains("seed 003"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
