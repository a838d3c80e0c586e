//! The contraction family of the built-in catalog (spec/ops/contractions.yaml): its entries, their
//! mixed-precision result rule and the accumulation tolerance model.

use conformance_spec::catalog::{accumulation_types, Catalog, ResultRule, Signature};
use conformance_spec::ElementType as E;

#[test]
fn contraction_entries_and_their_tolerance_model() {
    let c = Catalog::builtin().expect("built-in catalog loads");
    let entries = [
        ("dot", Signature::Dot),
        ("dot-general", Signature::DotGeneral),
        ("convolution", Signature::Convolution),
        ("reduce", Signature::Reduce),
        ("reduce-window", Signature::ReduceWindow),
        ("select-and-scatter", Signature::SelectAndScatter),
    ];
    for (id, signature) in entries {
        let op = c.op(id).unwrap_or_else(|| panic!("{id} missing"));
        assert_eq!(op.signature, signature, "{id}");
        assert!(!op.examples.is_empty(), "{id} has no examples");
        let acc = op
            .tolerance
            .accumulation
            .as_ref()
            .unwrap_or_else(|| panic!("{id}: no accumulation tolerance"));
        // Products: XLA's CPU backend accumulates bf16, f16 and f8 in f32. Reducers: the
        // computation is typed, each step rounds in the element type.
        let products = matches!(id, "dot" | "dot-general" | "convolution");
        let narrow = if products { E::F32 } else { E::Bf16 };
        assert_eq!(acc.type_for(E::Bf16), Some(narrow), "{id}");
        assert_eq!(acc.type_for(E::F64), Some(E::F64), "{id}");
        assert_eq!(acc.type_for(E::C64), Some(E::C64), "{id}");
    }
    let dot = c.op("dot").unwrap();
    assert_eq!(dot.result, ResultRule::SameOrAccumulation);
    assert_eq!(c.result_element_types(dot, E::Bf16), vec![E::Bf16, E::F32]);
    assert_eq!(c.result_element_types(dot, E::S8), vec![E::S8, E::S32]);
    assert_eq!(c.result_element_types(dot, E::F32), vec![E::F32]);
    assert_eq!(accumulation_types(E::U16), vec![E::U32]);
    // The seed's worked examples are there.
    let names = |id: &str| -> Vec<String> {
        c.op(id)
            .unwrap()
            .examples
            .iter()
            .map(|e| e.name.clone())
            .collect()
    };
    assert!(names("dot-general").contains(&"seed_batch_dimensions".to_string()));
    assert!(names("reduce").contains(&"seed_variadic_argmax".to_string()));
    assert!(names("reduce-window").contains(&"seed_min_same".to_string()));
}
