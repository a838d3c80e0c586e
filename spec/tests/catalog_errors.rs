//! Malformed catalogs: every error names the exact `file:line:col` of the offending YAML node.

use conformance_spec::catalog::{Catalog, CatalogError, Diagnostic};

/// A small valid family file. Line numbers below refer to this text (line 1 is `family: tiny`).
const TINY: &str = r#"family: tiny
source: "seed 004"
ops:
  - id: add
    opcode: add
    builder: Add
    source: "seed 004, Add"
    summary: "lhs + rhs"
    signature: binary
    element_types: [s32, f32]
    result: same
    special_values:
      - {inputs: ["1", "2"], output: "3"}
    tolerance:
      ulp: {default: 0}
      rationale: "exact"
    examples:
      - name: e
        source: "hand-made"
        hlo: |
          HloModule m
          ENTRY main {
            a = s32[2]{0} parameter(0)
            b = s32[2]{0} parameter(1)
            ROOT r = s32[2]{0} add(a, b)
          }
        inputs: ["s32[2] {1, 2}", "s32[2] {3, 4}"]
        expected: "s32[2] {4, 6}"
"#;

fn load(files: &[(&str, &str)]) -> Result<Catalog, CatalogError> {
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    Catalog::from_sources(&files)
}

/// `TINY` with one substring replaced (which must occur exactly once).
fn tiny_with(from: &str, to: &str) -> String {
    assert_eq!(TINY.matches(from).count(), 1, "fixture substring `{from}`");
    TINY.replacen(from, to, 1)
}

/// The diagnostics of a catalog that must not load.
fn errors(text: &str) -> Vec<Diagnostic> {
    match load(&[("ops/tiny.yaml", text)]) {
        Ok(_) => panic!("the catalog loaded:\n{text}"),
        Err(e) => {
            let ds: Vec<Diagnostic> = e.diagnostics().into_iter().cloned().collect();
            assert!(!ds.is_empty(), "{e}");
            ds
        }
    }
}

/// Asserts that a diagnostic at `line:col` contains `needle`.
fn assert_at(ds: &[Diagnostic], line: usize, column: usize, needle: &str) {
    assert!(
        ds.iter().any(|d| d.file == "ops/tiny.yaml"
            && d.line == line
            && d.column == column
            && d.message.contains(needle)),
        "expected `{needle}` at ops/tiny.yaml:{line}:{column}; got:\n{}",
        ds.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_fixture_is_valid() {
    let c = load(&[("ops/tiny.yaml", TINY)]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.ops().len(), 1);
    assert_eq!(c.families(), vec!["tiny"]);
    assert_eq!(
        c.location_of("add").map(|l| (l.line, l.column)),
        Some((4, 5))
    );
}

#[test]
fn yaml_syntax_error() {
    let text = tiny_with("element_types: [s32, f32]", "element_types: [s32, f32");
    let e = load(&[("ops/tiny.yaml", &text)]).unwrap_err();
    let CatalogError::Yaml(d) = &e else {
        panic!("expected a YAML error, got {e}")
    };
    // The unclosed flow sequence is noticed where the next mapping key starts.
    assert_eq!((d.file.as_str(), d.line), ("ops/tiny.yaml", 11));
    assert!(e.to_string().starts_with("ops/tiny.yaml:11:"), "{e}");
    assert!(
        !d.message.contains(" at line "),
        "the place is not repeated: {}",
        d.message
    );
}

#[test]
fn unknown_field_is_rejected_at_its_key() {
    let text = tiny_with("    result: same\n", "    result: same\n    colour: blue\n");
    let e = load(&[("ops/tiny.yaml", &text)]).unwrap_err();
    let CatalogError::Yaml(d) = &e else {
        panic!("expected a YAML error, got {e}")
    };
    assert_eq!((d.line, d.column), (12, 5), "{e}");
    assert!(d.message.contains("unknown field `colour`"), "{e}");
    assert!(d.message.contains("expected one of"), "{e}");
}

#[test]
fn missing_field_and_wrong_type() {
    // The YAML crate places a missing field at the last key of the mapping (`examples`, now on
    // line 16); the message names the op entry that lacks it.
    let e = load(&[("ops/tiny.yaml", &tiny_with("    builder: Add\n", ""))]).unwrap_err();
    let d = e.first().unwrap();
    assert_eq!((d.line, d.column), (16, 5), "{e}");
    assert!(
        d.message
            .contains("missing field `builder` (in op `add` at 4:5)"),
        "{e}"
    );
    let e = load(&[(
        "ops/tiny.yaml",
        &tiny_with("signature: binary", "signature: ternary"),
    )])
    .unwrap_err();
    let d = e.first().unwrap();
    assert_eq!((d.line, d.column), (9, 16), "{e}");
    assert!(d.message.contains("ternary"), "{e}");
}

#[test]
fn family_must_match_the_file_name() {
    let e = load(&[("ops/other.yaml", TINY)]).unwrap_err();
    let d = e.first().unwrap();
    assert_eq!(
        (d.file.as_str(), d.line, d.column),
        ("ops/other.yaml", 1, 9),
        "{e}"
    );
    assert!(d.message.contains("expected `other`"), "{e}");
}

#[test]
fn unknown_opcode_at_its_value() {
    let ds = errors(&tiny_with("opcode: add", "opcode: frobnicate"));
    assert_at(&ds, 5, 13, "unknown HLO opcode `frobnicate`");
}

#[test]
fn unknown_element_type_at_its_item() {
    let ds = errors(&tiny_with("[s32, f32]", "[s32, f33]"));
    assert_at(&ds, 10, 26, "`f33` is neither an element type");
}

#[test]
fn unknown_mask_at_its_value() {
    let text = tiny_with(
        "    tolerance:\n",
        "    implementation_defined:\n      - mask: cosmic-rays\n        description: \"x\"\n    tolerance:\n",
    );
    let ds = errors(&text);
    assert_at(&ds, 15, 15, "unknown mask `cosmic-rays`");
}

#[test]
fn mask_of_another_opcode_is_rejected() {
    let text = tiny_with(
        "    tolerance:\n",
        "    implementation_defined:\n      - mask: shift-amount-out-of-range\n        description: \"x\"\n    tolerance:\n",
    );
    assert_at(&errors(&text), 15, 15, "never selects elements of `add`");
}

#[test]
fn unknown_tolerance_key_at_its_key() {
    let ds = errors(&tiny_with("ulp: {default: 0}", "ulp: {default: 0, f33: 1}"));
    assert_at(&ds, 15, 25, "tolerance key `f33`");
    // A type the entry never produces is also caught.
    let ds = errors(&tiny_with("ulp: {default: 0}", "ulp: {default: 0, c64: 1}"));
    assert_at(&ds, 15, 25, "matches no result type");
}

#[test]
fn missing_rationale() {
    // Reported at the start of the tolerance mapping (its first key, `ulp`).
    let ds = errors(&tiny_with("      rationale: \"exact\"\n", ""));
    assert_at(&ds, 15, 7, "rationale");
}

#[test]
fn duplicate_ids_across_files() {
    let other = TINY.replace("family: tiny", "family: other");
    let e = load(&[("ops/tiny.yaml", TINY), ("ops/other.yaml", &other)]).unwrap_err();
    let d = e.first().unwrap();
    assert_eq!(
        (d.file.as_str(), d.line, d.column),
        ("ops/other.yaml", 4, 5),
        "{e}"
    );
    assert!(
        d.message
            .contains("duplicate id `add` (first defined at ops/tiny.yaml:4:5)"),
        "{e}"
    );
}

#[test]
fn special_values_are_checked() {
    // Arity.
    let ds = errors(&tiny_with(
        r#"{inputs: ["1", "2"], output: "3"}"#,
        r#"{inputs: ["1"], output: "3"}"#,
    ));
    assert_at(&ds, 13, 9, "special value has 1 inputs; Binary takes 2");
    // A value that does not exist in one of the types.
    let ds = errors(&tiny_with(
        r#"{inputs: ["1", "2"], output: "3"}"#,
        r#"{inputs: ["1", inf], output: inf}"#,
    ));
    assert_at(
        &ds,
        13,
        24,
        "expected a decimal or 0x-hexadecimal integer for s32",
    );
    // An element type the entry does not accept.
    let ds = errors(&tiny_with(
        r#"{inputs: ["1", "2"], output: "3"}"#,
        r#"{inputs: ["1", "2"], output: "3", element_types: [u8]}"#,
    ));
    assert_at(&ds, 13, 59, "does not accept: u8");
    // An output of the wrong kind.
    let ds = errors(&tiny_with(r#"output: "3"}"#, r#"output: "3.5"}"#));
    assert_at(&ds, 13, 38, "special value output");
}

#[test]
fn compare_entries_need_a_direction() {
    let text = tiny_with("opcode: add", "opcode: compare").replace("result: same", "result: pred");
    let ds = errors(&text);
    assert_at(&ds, 4, 5, "compare entries fix `direction`");
    let text = text.replace(
        "    signature: binary\n",
        "    signature: binary\n    attributes: {direction: SIDEWAYS}\n",
    );
    assert_at(&errors(&text), 10, 18, "direction `SIDEWAYS`");
}

#[test]
fn signature_and_result_rule_must_fit_the_opcode() {
    assert_at(
        &errors(&tiny_with("signature: binary", "signature: unary")),
        9,
        16,
        "signature",
    );
    assert_at(
        &errors(&tiny_with("result: same", "result: pred")),
        11,
        13,
        "result rule",
    );
}

#[test]
fn example_hlo_errors_point_into_the_block() {
    // The block's text starts at line 21, column 11. Without the `)` of `parameter(0`, the parser
    // stops at the next token, `b` at line 4, column 3 of the HLO text: line 24, column 13.
    let ds = errors(&tiny_with(
        "a = s32[2]{0} parameter(0)",
        "a = s32[2]{0} parameter(0",
    ));
    assert_at(&ds, 24, 13, "HLO does not parse");
    // An undefined operand is reported where it is used: `c` at HLO 5:29, i.e. line 25, column 39.
    let ds = errors(&tiny_with("add(a, b)", "add(a, c)"));
    assert_at(&ds, 25, 39, "HLO does not parse");
}

#[test]
fn example_inputs_and_outputs_are_checked() {
    let ds = errors(&tiny_with(
        r#"inputs: ["s32[2] {1, 2}", "s32[2] {3, 4}"]"#,
        r#"inputs: ["s32[2] {1, 2}"]"#,
    ));
    assert_at(&ds, 27, 18, "1 inputs given for 2 entry parameters");
    let ds = errors(&tiny_with(r#""s32[2] {3, 4}""#, r#""s32[3] {3, 4, 5}""#));
    assert_at(&ds, 27, 35, "input 1 has shape s32[3]");
    let ds = errors(&tiny_with(
        r#"expected: "s32[2] {4, 6}""#,
        r#"expected: "s32[2] {4, x}""#,
    ));
    assert_at(&ds, 28, 19, "expected output does not parse");
    let ds = errors(&tiny_with(
        "ROOT r = s32[2]{0} add(a, b)",
        "ROOT r = s32[2]{0} subtract(a, b)",
    ));
    assert_at(&ds, 25, 13, "the root is `subtract`");
    // An element type outside the entry's.
    let text = TINY
        .replace("s32[2]{0}", "u8[2]{0}")
        .replace("s32[2] {", "u8[2] {");
    assert_at(
        &errors(&text),
        25,
        13,
        "operand element type u8 is not in the entry's element_types",
    );
}

#[test]
fn every_problem_is_reported_in_file_order() {
    let text = tiny_with("opcode: add", "opcode: frobnicate");
    let text = text.replace("      rationale: \"exact\"\n", "");
    let other = TINY
        .replace("family: tiny", "family: other")
        .replace("id: add", "id: add2")
        .replace("[s32, f32]", "[bogus]");
    let e = load(&[("ops/tiny.yaml", &text), ("ops/other.yaml", &other)]).unwrap_err();
    let CatalogError::Invalid(ds) = &e else {
        panic!("{e}")
    };
    assert_eq!(ds[0].file, "ops/tiny.yaml");
    assert!(
        ds.iter()
            .any(|d| d.file == "ops/other.yaml" && d.message.contains("`bogus`")),
        "{e}"
    );
    let lines: Vec<usize> = ds
        .iter()
        .filter(|d| d.file == "ops/tiny.yaml")
        .map(|d| d.line)
        .collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    // The Display of the error lists every diagnostic on its own line.
    assert_eq!(e.to_string().lines().count(), ds.len());
}

#[test]
fn load_dir_reports_paths() {
    let dir = std::env::temp_dir().join(format!("catalog_errors_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // An empty directory is an error naming it.
    let e = Catalog::load_dir(&dir).unwrap_err();
    assert!(matches!(e, CatalogError::Io { .. }), "{e}");
    std::fs::write(
        dir.join("tiny.yaml"),
        tiny_with("opcode: add", "opcode: frobnicate"),
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a catalog").unwrap();
    let e = Catalog::load_dir(&dir).unwrap_err();
    let d = e.first().unwrap();
    assert!(
        d.file.ends_with("tiny.yaml") && d.file.contains("catalog_errors_"),
        "{e}"
    );
    assert_eq!((d.line, d.column), (5, 13), "{e}");
    std::fs::write(dir.join("tiny.yaml"), TINY).unwrap();
    let c = Catalog::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.ops().len(), 1);
    let missing = Catalog::load_dir(&dir.join("nope")).unwrap_err();
    assert!(matches!(missing, CatalogError::Io { .. }), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}
