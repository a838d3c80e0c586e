//! The built-in catalog (spec/ops/*.yaml compiled into the binary) loads and is complete: every
//! operation of the element-wise family is there with every field, the type support and the
//! accuracy budgets follow the rules of the task, and every mask is used.

use conformance_spec::catalog::masks::{mask_applies, MASKS};
use conformance_spec::catalog::{Catalog, OpEntry, ResultRule, Signature};
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::ElementType;
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
fn builtin_catalog_loads_one_family() {
    let c = catalog();
    assert_eq!(c.families(), vec!["elementwise"]);
    assert_eq!(c.family_of("add"), Some("elementwise"));
    assert_eq!(c.family_of("no-such-op"), None);
    assert!(c.op("no-such-op").is_none());
    assert_eq!(c.ops_of_family("elementwise").count(), c.ops().len());
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
            assert_eq!(
                entry.parameters().len(),
                ex.inputs.len(),
                "{} {}",
                e.id,
                ex.name
            );
            assert_eq!(
                entry.root_instruction().opcode.name(),
                e.opcode,
                "{} {}",
                e.id,
                ex.name
            );
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
