//! The data model's helpers: element type classes and tolerance lookup.

use conformance_spec::catalog::{resolve_element_types, type_class, Tolerance, TYPE_CLASSES};
use conformance_spec::ElementType::{self, *};
use std::collections::BTreeMap;

fn tolerance(pairs: &[(&str, u64)]) -> Tolerance {
    Tolerance {
        ulp: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<BTreeMap<_, _>>(),
        ignore_zero_sign: false,
        exact_nan_bits: false,
        complex_error: Default::default(),
        accumulation: None,
        order_set: None,
        conditioning: None,
        error_bound: None,
        random: None,
        rationale: None,
    }
}

#[test]
fn ulp_for_picks_type_over_class_over_default() {
    let t = tolerance(&[
        ("default", 7),
        ("float", 3),
        ("f8", 2),
        ("f32", 1),
        ("complex", 5),
    ]);
    assert_eq!(t.ulp_for(F32), 1, "the type's own entry");
    assert_eq!(
        t.ulp_for(F8E4M3FN),
        2,
        "the most specific class (f8 inside float)"
    );
    assert_eq!(t.ulp_for(F64), 3, "the class");
    assert_eq!(t.ulp_for(C64), 5, "another class");
    assert_eq!(t.ulp_for(S32), 7, "default");
    assert_eq!(
        tolerance(&[("f32", 1)]).ulp_for(S32),
        0,
        "nothing applies: exact"
    );
    // `all` is the least specific class.
    let t = tolerance(&[("all", 9), ("integer", 4)]);
    assert_eq!(t.ulp_for(U8), 4);
    assert_eq!(t.ulp_for(Bf16), 9);
    // An unknown key matches nothing (the loader rejects it).
    assert_eq!(tolerance(&[("f33", 1), ("default", 2)]).ulp_for(F32), 2);
}

#[test]
fn classes_resolve() {
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        resolve_element_types(&names(&["fnuz"])).unwrap(),
        vec![F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ]
    );
    assert_eq!(
        resolve_element_types(&names(&["has-infinity"])).unwrap(),
        vec![F16, Bf16, F32, F64, F8E5M2, F8E4M3, F8E3M4]
    );
    let neg0 = resolve_element_types(&names(&["has-negative-zero"])).unwrap();
    assert!(neg0.contains(&F8E4M3FN) && !neg0.contains(&F8E5M2FNUZ) && !neg0.contains(&C64));
    assert_eq!(resolve_element_types(&names(&["f8"])).unwrap().len(), 7);
    // Sorted, without duplicates, types and classes mixed, case-insensitive type names.
    assert_eq!(
        resolve_element_types(&names(&["f32", "pred", "F32", "unsigned"])).unwrap(),
        vec![Pred, U8, U16, U32, U64, F32]
    );
    assert_eq!(
        resolve_element_types(&names(&["float", "nope"])),
        Err("nope".to_string())
    );
    // Every class named in TYPE_CLASSES resolves and is non-empty.
    for c in TYPE_CLASSES {
        assert!(type_class(c).is_some_and(|m| !m.is_empty()), "{c}");
    }
    assert_eq!(type_class("all").unwrap(), ElementType::ALL.to_vec());
    assert!(type_class("f32").is_none());
}
