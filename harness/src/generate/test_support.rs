//! Shared by the generators' unit tests.

use super::elementwise::{Built, CaseSpec};
use super::rng::Rng;
use super::shapes::ShapeConfig;
use super::values::ValueClass;
use conformance_spec::catalog::{Catalog, OpEntry};

/// Builds `seeds` cases of every catalog entry `keep` selects, on every element type and result
/// type (mixed precision, conversions) it lists, with `build`; checks that each module's
/// parameters match its arguments and that the reference runs it. Returns the number of cases.
pub(crate) fn build_every_entry(
    keep: impl Fn(&OpEntry) -> bool,
    seeds: u64,
    build: impl Fn(&mut Rng, &CaseSpec) -> Result<Built, String>,
) -> usize {
    let catalog = Catalog::builtin().unwrap();
    let reference = crate::backends::by_name("reference").unwrap();
    let shapes = ShapeConfig::default();
    let mut built = 0;
    for op in catalog.ops().iter().filter(|o| keep(o)) {
        for (k, ty) in catalog.element_types(op).into_iter().enumerate() {
            for target in catalog.result_element_types(op, ty) {
                for seed in 0..seeds {
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
                    // Each device's arguments in turn (docs/collectives.md).
                    let shapes = conformance_spec::collective::argument_shapes(&case.module);
                    assert_eq!(shapes.len(), case.args.len(), "{}", op.id);
                    for (p, a) in shapes.iter().zip(&case.args) {
                        assert_eq!(p, &a.shape(), "{} {ty}: {}", op.id, case.module);
                    }
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
    built
}
