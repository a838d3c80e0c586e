//! The built-in catalog (spec/ops/*.yaml compiled into the binary) loads and is complete: every
//! operation of the element-wise family is there with every field, the type support and the
//! accuracy budgets follow the rules of the task, and every mask is used.

use conformance_spec::catalog::masks::{mask_applies, MASKS};
use conformance_spec::catalog::{Catalog, OpEntry, ResultRule, Signature};
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::{ElementType, Opcode};
use std::path::Path;

fn catalog() -> Catalog {
    match Catalog::builtin() {
        Ok(c) => c,
        Err(e) => panic!("the built-in catalog does not load:\n{e}"),
    }
}

fn op<'a>(c: &'a Catalog, id: &str) -> &'a OpEntry {
    c.op(id)
        .unwrap_or_else(|| panic!("`{id}` is missing from the catalog"))
}

const UNARY: &[&str] = &[
    "abs",
    "cbrt",
    "ceil",
    "count-leading-zeros",
    "cosine",
    "erf",
    "exponential",
    "exponential-minus-one",
    "floor",
    "imag",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "negate",
    "not",
    "popcnt",
    "real",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
];

const BINARY: &[&str] = &[
    "add",
    "subtract",
    "multiply",
    "divide",
    "power",
    "remainder",
    "maximum",
    "minimum",
    "and",
    "or",
    "xor",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "atan2",
    "complex",
];

const OTHERS: &[&str] = &[
    "select",
    "clamp",
    "convert",
    "bitcast-convert",
    "reduce-precision",
];

const DIRECTIONS: &[&str] = &["EQ", "NE", "LT", "LE", "GT", "GE"];

#[test]
fn builtin_catalog_loads_its_families() {
    let c = catalog();
    assert_eq!(
        c.families(),
        vec![
            "elementwise",
            "data_movement",
            "contractions",
            "control_flow",
            "chlo",
            "linalg",
            "lapack",
            "random",
            "collective",
            "host_transfer"
        ]
    );
    assert_eq!(c.family_of("add"), Some("elementwise"));
    assert_eq!(c.family_of("gather"), Some("data_movement"));
    assert_eq!(c.family_of("dot-general"), Some("contractions"));
    assert_eq!(c.family_of("while"), Some("control_flow"));
    assert_eq!(c.family_of("lgamma"), Some("chlo"));
    assert_eq!(c.family_of("rng-bit-generator-PHILOX"), Some("random"));
    assert_eq!(c.family_of("fft-RFFT"), Some("linalg"));
    assert_eq!(c.family_of("lapack-syevd"), Some("lapack"));
    assert_eq!(c.family_of("batch-norm-grad"), Some("linalg"));
    assert_eq!(c.family_of("infeed"), Some("host_transfer"));
    assert_eq!(c.family_of("no-such-op"), None);
    assert!(c.op("no-such-op").is_none());
    assert_eq!(
        c.ops_of_family("elementwise").count()
            + c.ops_of_family("data_movement").count()
            + c.ops_of_family("contractions").count()
            + c.ops_of_family("control_flow").count()
            + c.ops_of_family("chlo").count()
            + c.ops_of_family("linalg").count()
            + c.ops_of_family("lapack").count()
            + c.ops_of_family("random").count()
            + c.ops_of_family("collective").count()
            + c.ops_of_family("host_transfer").count(),
        c.ops().len()
    );
    let loc = c.location_of("add").expect("add has a location");
    assert_eq!(loc.file, "elementwise.yaml");
    assert!(loc.line > 1);
}

#[test]
fn every_listed_op_is_present_and_complete() {
    let c = catalog();
    let mut ids: Vec<String> = UNARY
        .iter()
        .chain(BINARY)
        .chain(OTHERS)
        .map(|s| s.to_string())
        .collect();
    for d in DIRECTIONS {
        ids.push(format!("compare-{d}"));
        ids.push(format!("compare-{d}-totalorder"));
    }
    for id in &ids {
        let e = op(&c, id);
        assert!(
            !e.builder.is_empty() && !e.source.is_empty() && !e.summary.is_empty(),
            "{id}"
        );
        assert!(
            e.source.contains("seed 004"),
            "{id}: source names the seed section"
        );
        assert!(!e.element_types.is_empty(), "{id}: element types");
        assert!(!e.special_values.is_empty(), "{id}: special values");
        assert!(!e.examples.is_empty(), "{id}: examples");
        assert!(
            e.tolerance
                .rationale
                .as_deref()
                .is_some_and(|r| !r.is_empty()),
            "{id}: tolerance rationale"
        );
        assert!(e.hlo_opcode().is_some(), "{id}: opcode");
    }
    // Ids that share an opcode carry their distinguishing attributes.
    for d in DIRECTIONS {
        let e = op(&c, &format!("compare-{d}"));
        assert_eq!(e.attributes.get("direction").map(String::as_str), Some(*d));
        assert!(!e.attributes.contains_key("type"));
        let t = op(&c, &format!("compare-{d}-totalorder"));
        assert_eq!(t.attributes.get("direction").map(String::as_str), Some(*d));
        assert_eq!(
            t.attributes.get("type").map(String::as_str),
            Some("TOTALORDER")
        );
    }
    let rp = op(&c, "reduce-precision");
    let names: Vec<&str> = rp
        .generated_attributes
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    assert_eq!(names, vec!["exponent_bits", "mantissa_bits"]);
    assert!(rp.generated_attributes[0].min >= 1);
}

#[test]
fn element_type_support_follows_xla() {
    use ElementType::*;
    let c = catalog();
    let types = |id: &str| c.element_types(op(&c, id));
    let integers = vec![S8, S16, S32, S64, U8, U16, U32, U64];
    let mut pred_and_integers = vec![Pred];
    pred_and_integers.extend(&integers);
    for id in ["and", "or", "xor", "not"] {
        assert_eq!(types(id), pred_and_integers, "{id}");
    }
    for id in [
        "shift-left",
        "shift-right-arithmetic",
        "shift-right-logical",
        "popcnt",
        "count-leading-zeros",
    ] {
        assert_eq!(types(id), integers, "{id}");
    }
    assert_eq!(types("complex"), vec![F32, F64]);
    for id in [
        "sine",
        "cosine",
        "tan",
        "tanh",
        "exponential",
        "log",
        "sqrt",
        "rsqrt",
        "logistic",
    ] {
        let t = types(id);
        assert!(
            t.contains(&C64) && t.contains(&Bf16) && t.contains(&F8E4M3FN),
            "{id}"
        );
        assert!(!t.iter().any(|t| t.is_integer() || t.is_pred()), "{id}");
    }
    for id in [
        "erf",
        "cbrt",
        "floor",
        "ceil",
        "is-finite",
        "atan2",
        "reduce-precision",
    ] {
        assert!(types(id).iter().all(|t| t.is_float()), "{id}");
        assert!(types(id).contains(&F8E3M4), "{id}");
    }
    assert!(!types("abs").contains(&U32) && types("abs").contains(&S32));
    assert_eq!(types("abs-complex"), vec![C64, C128]);
    assert!(!types("sign").contains(&U8) && types("sign").contains(&C128));
    assert!(types("negate").contains(&U8) && !types("negate").contains(&Pred));
    assert!(!types("subtract").contains(&Pred) && types("add").contains(&Pred));
    assert!(types("remainder")
        .iter()
        .all(|t| !t.is_complex() && !t.is_pred()));
    assert_eq!(types("compare-EQ"), ElementType::ALL.to_vec());
    assert!(types("compare-LT-totalorder").iter().all(|t| t.is_float()));
    // Every element type appears in some entry, and conversions cover every valid pair.
    for t in ElementType::ALL {
        assert!(
            c.ops().iter().any(|o| c.element_types(o).contains(&t)),
            "{t}"
        );
    }
    let convert = op(&c, "convert");
    let convert_complex = op(&c, "convert-complex");
    for from in ElementType::ALL {
        for to in ElementType::ALL {
            let covered = [convert, convert_complex].iter().any(|e| {
                c.element_types(e).contains(&from) && c.result_element_types(e, from).contains(&to)
            });
            // XLA: complex converts only to complex.
            assert_eq!(
                covered,
                !from.is_complex() || to.is_complex(),
                "{from} -> {to}"
            );
        }
    }
    assert_eq!(
        c.result_element_types(op(&c, "abs-complex"), C64),
        vec![F32]
    );
    assert_eq!(c.result_element_types(op(&c, "complex"), F64), vec![C128]);
    assert_eq!(
        c.result_element_types(op(&c, "is-finite"), Bf16),
        vec![Pred]
    );
}

#[test]
fn tolerances_follow_the_accuracy_rules() {
    use ElementType::*;
    let c = catalog();
    let narrow: Vec<ElementType> = ElementType::ALL
        .into_iter()
        .filter(|t| t.is_float() && t.bit_width() <= 16)
        .collect();
    assert_eq!(narrow.len(), 9); // f16, bf16 and the seven f8 types
    for e in c.ops() {
        // Correctly rounded for bf16, f16 and every f8 type, for every op.
        for &t in &narrow {
            assert_eq!(e.tolerance.ulp_for(t), 0, "{} {t}", e.id);
        }
        // Integers and predicates are exact.
        for t in [Pred, S8, S32, U64] {
            assert_eq!(e.tolerance.ulp_for(t), 0, "{} {t}", e.id);
        }
    }
    let transcendental = [
        "exponential",
        "log",
        "sine",
        "cosine",
        "tan",
        "tanh",
        "logistic",
        "erf",
        "power",
        "atan2",
        "exponential-minus-one",
        "log-plus-one",
        "cbrt",
        "rsqrt",
    ];
    for id in transcendental {
        let e = op(&c, id);
        assert_eq!(e.tolerance.ulp_for(F32), 1, "{id}");
        assert_eq!(e.tolerance.ulp_for(F64), 1, "{id}");
    }
    let exact = [
        "add",
        "subtract",
        "multiply",
        "divide",
        "sqrt",
        "abs",
        "negate",
        "sign",
        "maximum",
        "minimum",
        "remainder",
        "floor",
        "ceil",
        "round-nearest-afz",
        "round-nearest-even",
        "select",
        "clamp",
        "convert",
        "convert-complex",
        "bitcast-convert",
        "reduce-precision",
        "real",
        "imag",
        "complex",
        "and",
        "or",
        "xor",
        "not",
        "popcnt",
        "count-leading-zeros",
        "shift-left",
        "shift-right-arithmetic",
        "shift-right-logical",
        "is-finite",
    ];
    for id in exact {
        let e = op(&c, id);
        for t in [F32, F64] {
            assert_eq!(e.tolerance.ulp_for(t), 0, "{id} {t}");
        }
        assert!(!e.tolerance.ignore_zero_sign, "{id}");
    }
    for d in DIRECTIONS {
        assert_eq!(op(&c, &format!("compare-{d}")).tolerance.ulp_for(F32), 0);
    }
    // Complex add and subtract are componentwise IEEE operations.
    assert_eq!(op(&c, "add").tolerance.ulp_for(C64), 0);
    assert!(op(&c, "bitcast-convert").tolerance.exact_nan_bits);
}

#[test]
fn every_mask_is_used_and_concerns_its_entries() {
    let c = catalog();
    for m in MASKS {
        assert!(
            c.ops()
                .iter()
                .any(|e| e.implementation_defined.iter().any(|i| i.mask == *m)),
            "mask `{m}` is used by no entry"
        );
    }
    // The seed's implementation-defined integer division corners are masked on divide and remainder.
    for id in ["divide", "remainder"] {
        let masks: Vec<&str> = op(&c, id)
            .implementation_defined
            .iter()
            .map(|i| i.mask.as_str())
            .collect();
        assert!(
            masks.contains(&"integer-division-by-zero")
                && masks.contains(&"signed-division-overflow"),
            "{id}"
        );
    }
    // And the masks select those elements on the entry's opcode.
    let div = op(&c, "divide").hlo_opcode().unwrap();
    use ElementType::S32;
    assert!(mask_applies(
        "integer-division-by-zero",
        div,
        &[],
        &[S32, S32],
        &[5, 0],
        S32
    ));
    assert!(mask_applies(
        "signed-division-overflow",
        div,
        &[],
        &[S32, S32],
        &[0x8000_0000, 0xffff_ffff],
        S32
    ));
}

#[test]
fn examples_parse_and_match_their_entry() {
    let c = catalog();
    let mut count = 0;
    for e in c.ops() {
        for ex in &e.examples {
            let m =
                parse_module(&ex.hlo).unwrap_or_else(|err| panic!("{} {}: {err}", e.id, ex.name));
            let entry = m.entry_computation();
            // A module of several devices takes each device's inputs in turn.
            let devices = conformance_spec::collective::DeviceGrid::of(&m)
                .unwrap()
                .devices();
            // A module that reads an infeed takes each device's queue after its parameters.
            let queue = conformance_spec::host_transfer::module_has(&m, Opcode::Infeed);
            let per_device = ex.inputs.len() / devices;
            assert_eq!(ex.inputs.len() % devices, 0, "{} {}", e.id, ex.name);
            if queue {
                assert!(
                    per_device >= entry.parameters().len(),
                    "{} {}",
                    e.id,
                    ex.name
                );
            } else {
                assert_eq!(entry.parameters().len(), per_device, "{} {}", e.id, ex.name);
            }
            // A token is not a value: a transfer entry's instruction need not be the root.
            let op = Opcode::from_name(&e.opcode).unwrap();
            if conformance_spec::host_transfer::is_host_transfer(op) {
                assert!(
                    conformance_spec::host_transfer::module_has(&m, op),
                    "{} {}",
                    e.id,
                    ex.name
                );
            } else {
                assert_eq!(
                    entry.root_instruction().opcode.name(),
                    e.opcode,
                    "{} {}",
                    e.id,
                    ex.name
                );
            }
            for i in &ex.inputs {
                parse_literal(i).unwrap_or_else(|err| panic!("{} {}: {i}: {err}", e.id, ex.name));
            }
            parse_literal(&ex.expected).unwrap_or_else(|err| panic!("{} {}: {err}", e.id, ex.name));
            count += 1;
        }
    }
    assert!(count > 100, "{count} examples");
    // The seed's worked examples are there.
    let clamp = op(&c, "clamp");
    assert!(clamp
        .examples
        .iter()
        .any(|x| x.expected == "s32[3] {0, 5, 6}" && x.source.contains("seed 004")));
    let select = op(&c, "select");
    assert_eq!(
        select
            .examples
            .iter()
            .filter(|x| x.source.starts_with("seed 004"))
            .count(),
        2
    );
    let bitcast = op(&c, "bitcast-convert");
    assert!(
        bitcast
            .examples
            .iter()
            .filter(|x| x.source.starts_with("seed 004"))
            .count()
            >= 4
    );
    assert!(op(&c, "convert")
        .examples
        .iter()
        .any(|x| x.inputs == ["s32[3] {0, 1, 2}"]));
    // The XlaBuilder broadcast forms appear lowered to HLO broadcasts.
    assert!(
        op(&c, "add")
            .examples
            .iter()
            .filter(|x| x.hlo.contains("broadcast("))
            .count()
            >= 3
    );
}

#[test]
fn signatures_and_result_rules() {
    let c = catalog();
    for id in UNARY {
        assert_eq!(op(&c, id).signature, Signature::Unary, "{id}");
    }
    for id in BINARY {
        assert_eq!(op(&c, id).signature, Signature::Binary, "{id}");
    }
    assert_eq!(op(&c, "select").signature, Signature::Select);
    assert_eq!(op(&c, "clamp").signature, Signature::Clamp);
    assert_eq!(op(&c, "convert").result, ResultRule::Chosen);
    assert_eq!(op(&c, "compare-EQ").result, ResultRule::Pred);
    assert_eq!(op(&c, "complex").result, ResultRule::ComplexOfComponent);
}

#[test]
fn hash_is_stable_and_matches_the_files_on_disk() {
    let builtin = catalog();
    assert_eq!(builtin.hash(), catalog().hash());
    assert_eq!(builtin.hash().len(), 16);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ops");
    let on_disk = Catalog::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(on_disk.hash(), builtin.hash());
    assert_eq!(on_disk.ops().len(), builtin.ops().len());
    assert_eq!(
        on_disk.location_of("add").map(|l| l.line),
        builtin.location_of("add").map(|l| l.line)
    );
}

/// The data-movement family (issue 4): (id, opcode, builder, signature).
const DATA_MOVEMENT: &[(&str, &str, &str, Signature)] = &[
    ("broadcast", "broadcast", "Broadcast", Signature::Broadcast),
    (
        "broadcast-in-dim",
        "broadcast",
        "BroadcastInDim",
        Signature::BroadcastInDim,
    ),
    ("reshape", "reshape", "Reshape", Signature::Reshape),
    (
        "reshape-reordering",
        "reshape",
        "Reshape (with dimensions)",
        Signature::ReshapeReordering,
    ),
    ("collapse", "reshape", "Collapse", Signature::Collapse),
    ("transpose", "transpose", "Transpose", Signature::Transpose),
    ("slice", "slice", "Slice", Signature::Slice),
    (
        "dynamic-slice",
        "dynamic-slice",
        "DynamicSlice",
        Signature::DynamicSlice,
    ),
    (
        "dynamic-update-slice",
        "dynamic-update-slice",
        "DynamicUpdateSlice",
        Signature::DynamicUpdateSlice,
    ),
    (
        "concatenate",
        "concatenate",
        "ConcatInDim",
        Signature::Concatenate,
    ),
    ("pad", "pad", "Pad", Signature::Pad),
    ("reverse", "reverse", "Rev", Signature::Reverse),
    ("iota", "iota", "Iota", Signature::Iota),
    ("gather", "gather", "Gather", Signature::Gather),
    ("scatter", "scatter", "Scatter", Signature::Scatter),
    ("tuple", "tuple", "Tuple", Signature::Tuple),
    (
        "get-tuple-element",
        "get-tuple-element",
        "GetTupleElement",
        Signature::GetTupleElement,
    ),
    (
        "get-dimension-size",
        "get-dimension-size",
        "GetDimensionSize",
        Signature::GetDimensionSize,
    ),
    (
        "set-dimension-size",
        "set-dimension-size",
        "SetDimensionSize",
        Signature::SetDimensionSize,
    ),
    ("copy", "copy", "Copy", Signature::Copy),
    ("bitcast", "bitcast", "Bitcast", Signature::Reshape),
];

#[test]
fn data_movement_entries_are_present_with_their_signatures() {
    let c = catalog();
    assert_eq!(
        c.ops_of_family("data_movement").count(),
        DATA_MOVEMENT.len()
    );
    for &(id, opcode, builder, signature) in DATA_MOVEMENT {
        let e = op(&c, id);
        assert_eq!(c.family_of(id), Some("data_movement"), "{id}");
        assert_eq!(e.opcode, opcode, "{id}");
        assert_eq!(e.builder, builder, "{id}");
        assert_eq!(e.signature, signature, "{id}");
        assert!(!signature.is_elementwise(), "{id}");
        assert!(e.source.starts_with("seed 00"), "{id}: {}", e.source);
        assert!(e.special_values.is_empty(), "{id}: no special values");
        assert!(e.implementation_defined.is_empty(), "{id}: no masks apply");
        assert!(
            e.attributes.is_empty(),
            "{id}: attributes are drawn per case"
        );
        assert!(!e.examples.is_empty(), "{id}: examples");
        assert!(
            e.notes.as_deref().is_some_and(|n| !n.is_empty()),
            "{id}: notes"
        );
        // Data movement moves bits: bit-exact on every type, NaN payloads included — except
        // scatter, whose update computation may compute a NaN (no specified payload).
        for t in ElementType::ALL {
            assert_eq!(e.tolerance.ulp_for(t), 0, "{id} {t}");
        }
        assert_eq!(e.tolerance.exact_nan_bits, id != "scatter", "{id}");
        assert!(!e.tolerance.ignore_zero_sign, "{id}");
        let expected_result = if id == "get-dimension-size" {
            ResultRule::S32
        } else {
            ResultRule::Same
        };
        assert_eq!(e.result, expected_result, "{id}");
    }
}

#[test]
fn data_movement_element_types_follow_xla() {
    use ElementType::*;
    let c = catalog();
    for &(id, ..) in DATA_MOVEMENT {
        let types = c.element_types(op(&c, id));
        if id == "iota" {
            // XLA's verifier: integral, floating-point or complex iota; not pred.
            let expected: Vec<ElementType> = ElementType::ALL
                .into_iter()
                .filter(|t| !t.is_pred())
                .collect();
            assert_eq!(types, expected, "{id}");
        } else {
            assert_eq!(types, ElementType::ALL.to_vec(), "{id}");
        }
    }
    assert_eq!(
        c.result_element_types(op(&c, "get-dimension-size"), C128),
        vec![S32]
    );
    assert_eq!(
        c.result_element_types(op(&c, "set-dimension-size"), F8E4M3FN),
        vec![F8E4M3FN]
    );
}

/// Examples of `id` whose source starts with `prefix`.
fn sourced<'a>(e: &'a OpEntry, prefix: &str) -> Vec<&'a conformance_spec::catalog::Example> {
    e.examples
        .iter()
        .filter(|x| x.source.starts_with(prefix))
        .collect()
}

#[test]
fn every_seed_004_section_of_the_family_has_its_examples() {
    let c = catalog();
    // (entry, seed 004 section, how many worked examples the seed gives there).
    let sections: &[(&str, &str, usize)] = &[
        ("broadcast", "Broadcast", 1),
        ("reshape", "Reshape", 4),
        ("reshape-reordering", "Reshape", 3),
        ("collapse", "Collapse", 3),
        ("slice", "Slice", 2),
        ("dynamic-slice", "DynamicSlice", 2),
        ("dynamic-update-slice", "DynamicUpdateSlice", 2),
        ("concatenate", "Concatenate", 2),
        ("pad", "Pad", 1),
        ("iota", "Iota", 2),
        ("tuple", "Tuple", 1),
        ("get-tuple-element", "GetTupleElement", 1),
        ("get-dimension-size", "SetDimensionSize", 1),
        ("set-dimension-size", "SetDimensionSize", 1),
    ];
    for &(id, section, count) in sections {
        let e = op(&c, id);
        let seed = sourced(e, &format!("seed 004, {section}"));
        assert!(
            seed.len() >= count,
            "{id}: {} examples from seed 004, {section}; the seed gives {count}",
            seed.len()
        );
    }
    // Sections whose seed text gives no concrete values have hand-made examples after it.
    for id in [
        "broadcast-in-dim",
        "transpose",
        "reverse",
        "gather",
        "scatter",
        "copy",
    ] {
        assert!(!sourced(op(&c, id), "hand-made").is_empty(), "{id}");
    }
    // A few of the seed's values, verbatim.
    let has = |id: &str, expected: &str| {
        op(&c, id)
            .examples
            .iter()
            .any(|x| x.expected == expected && x.source.starts_with("seed 004"))
    };
    assert!(has("dynamic-slice", "f32[2,2] {{7, 8}, {10, 11}}"));
    assert!(has("slice", "f32[2,2] {{7, 8}, {10, 11}}"));
    assert!(has(
        "dynamic-update-slice",
        "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}"
    ));
    assert!(has("concatenate", "s32[6] {2, 3, 4, 5, 6, 7}"));
    assert!(has("reshape", "f32[] 5"));
    assert!(has("reshape-reordering", "f32[24] {10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47}"));
    assert!(has("get-tuple-element", "s32[] 5"));
    // Reshape with dimensions lowers to transpose then reshape.
    for x in sourced(op(&c, "reshape-reordering"), "seed 004") {
        assert!(x.hlo.contains("transpose("), "{}", x.name);
    }
}

#[test]
fn data_movement_corner_rules_have_examples() {
    let c = catalog();
    let named = |id: &str, name: &str| {
        assert!(
            op(&c, id).examples.iter().any(|x| x.name == name),
            "{id} lacks example `{name}`"
        )
    };
    named("dynamic-slice", "start_past_the_end_is_clamped");
    named("dynamic-slice", "negative_start_is_clamped_to_zero");
    named("dynamic-slice", "unsigned_start_read_as_unsigned");
    named("dynamic-update-slice", "start_past_the_end_is_clamped");
    named("dynamic-update-slice", "unsigned_start_read_as_unsigned");
    named("pad", "negative_edges_cut_the_interior_padded_operand");
    named("slice", "stride_3");
    named("gather", "rows_like_tf_gather_nd");
    named("gather", "negative_and_unsigned_starts_clamped");
    named("scatter", "add_repeated_indices_s32");
    named("scatter", "replace_unique_indices");
    named("scatter", "out_of_bounds_elements_skipped");
    named("scatter", "variadic_two_operands");
    named("copy", "layout_change_row_to_column_major");
    // Variadic scatter and tuple expect tuple literals.
    for id in ["tuple", "scatter"] {
        assert!(
            op(&c, id).examples.iter().any(|x| matches!(
                parse_literal(&x.expected),
                Ok(conformance_spec::Literal::Tuple(_))
            )),
            "{id}"
        );
    }
    // Layout-changing copy: the root's layout differs from its operand's.
    let copy = op(&c, "copy");
    let changes_layout = copy.examples.iter().any(|x| {
        let m = parse_module(&x.hlo).unwrap();
        let entry = m.entry_computation();
        let root = entry.root_instruction();
        let operand = &entry.instructions[root.operands[0]];
        root.shape != operand.shape
    });
    assert!(changes_layout);
}

/// The built-in data-movement file with `from` replaced by `to` (once, after `after`), loaded
/// with the element-wise file; the diagnostics' messages.
fn mutated_errors(after: &str, from: &str, to: &str) -> Vec<String> {
    let files = conformance_spec::catalog::BUILTIN_FILES;
    let (_, text) = files
        .iter()
        .find(|(name, _)| *name == "data_movement.yaml")
        .expect("data_movement.yaml is built in");
    let at = text.find(after).expect("anchor") + after.len();
    let rest = text[at..].replacen(from, to, 1);
    assert_ne!(rest, text[at..], "`{from}` occurs after `{after}`");
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(name, t)| {
            let t = if *name == "data_movement.yaml" {
                format!("{}{rest}", &text[..at])
            } else {
                t.to_string()
            };
            (name.to_string(), t)
        })
        .collect();
    match Catalog::from_sources(&sources) {
        Ok(_) => panic!("`{from}` -> `{to}` was accepted"),
        Err(conformance_spec::catalog::CatalogError::Invalid(ds)) => {
            ds.into_iter().map(|d| d.message).collect()
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn data_movement_signatures_and_forms_are_validated() {
    // A signature of another opcode.
    let ds = mutated_errors(
        "- id: collapse",
        "signature: collapse",
        "signature: transpose",
    );
    assert!(
        ds.iter()
            .any(|m| m.contains("opcode `reshape` has signature")),
        "{ds:?}"
    );
    // XlaBuilder Broadcast must map the operand to the minor dimensions.
    let ds = mutated_errors(
        "- id: broadcast-in-dim",
        "signature: broadcast-in-dim",
        "signature: broadcast",
    );
    assert!(
        ds.iter()
            .any(|m| m.contains("vector_to_column") && m.contains("adds major dimensions")),
        "{ds:?}"
    );
    // A collapse merges consecutive dimensions only.
    let ds = mutated_errors(
        "- id: reshape-reordering",
        "signature: reshape-reordering",
        "signature: collapse",
    );
    assert!(
        ds.iter()
            .any(|m| m.contains("seed_v021_83") && m.contains("consecutive")),
        "{ds:?}"
    );
    // Reshape with dimensions is a transpose then a reshape.
    let ds = mutated_errors(
        "- id: collapse",
        "signature: collapse",
        "signature: reshape-reordering",
    );
    assert!(
        ds.iter().any(|m| m.contains("must be a `transpose`")),
        "{ds:?}"
    );
    // Iota's element types are its result's.
    let ds = mutated_errors(
        "- id: iota",
        "element_types: [integer, floating]",
        "element_types: [integer]",
    );
    assert!(
        ds.iter()
            .any(|m| m.contains("f8e5m2") && m.contains("element_types")),
        "{ds:?}"
    );
    // Attributes the opcode does not take.
    let ds = mutated_errors(
        "- id: transpose",
        "result: same",
        "result: same\n    attributes: {index: \"1\"}",
    );
    assert!(
        ds.iter()
            .any(|m| m.contains("attribute `index` does not apply to `transpose`")),
        "{ds:?}"
    );
    // get-dimension-size gives s32.
    let ds = mutated_errors("- id: get-dimension-size", "result: s32", "result: same");
    assert!(ds.iter().any(|m| m.contains("result rule")), "{ds:?}");
    // A wrong expected value shape in a tuple.
    let ds = mutated_errors("- id: tuple", "s32[] 5)", "s32[1] {5})");
    assert!(
        ds.iter().any(|m| m.contains("expected output has shape")),
        "{ds:?}"
    );
}
