use super::*;
use crate::generate::shapes::ShapeConfig;
use crate::generate::values::ValueClass;
use conformance_spec::catalog::Catalog;

/// Every contraction entry of the catalog, on every element type (and mixed-precision target)
/// it lists, builds valid modules whose arguments match their parameters, and the reference runs
/// them.
#[test]
fn every_entry_builds_valid_cases() {
    let catalog = Catalog::builtin().unwrap();
    let reference = crate::backends::by_name("reference").unwrap();
    let shapes = ShapeConfig::default();
    let mut built = 0;
    for op in catalog.ops().iter().filter(|o| is_contraction(o.signature)) {
        for (k, ty) in catalog.element_types(op).into_iter().enumerate() {
            for target in catalog.result_element_types(op, ty) {
                for seed in 0..4u64 {
                    let spec = CaseSpec {
                        op,
                        element_type: ty,
                        target_type: (target != ty).then_some(target),
                        shapes: &shapes,
                        values: &ValueClass::ALL,
                    };
                    let mut rng = Rng::new(seed * 1000 + k as u64);
                    let case = build(&mut rng, &spec)
                        .unwrap_or_else(|e| panic!("{} {ty}->{target} seed {seed}: {e}", op.id));
                    let params = case.module.entry_computation().parameters();
                    assert_eq!(params.len(), case.args.len(), "{}", op.id);
                    if let Err(e) = reference.execute(&case.module, &case.args) {
                        panic!(
                            "{} {ty} seed {seed}: reference: {e}\n{}",
                            op.id, case.module
                        );
                    }
                    built += 1;
                }
            }
        }
    }
    assert!(built > 300, "only {built} contraction cases built");
}
