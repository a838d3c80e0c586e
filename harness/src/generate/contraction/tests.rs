/// Every contraction entry of the catalog, on every element type (and mixed-precision target)
/// it lists, builds valid modules whose arguments match their parameters, and the reference runs
/// them.
#[test]
fn every_entry_builds_valid_cases() {
    let built = crate::generate::test_support::build_every_entry(
        |op| super::is_contraction(op.signature),
        4,
        super::build,
    );
    assert!(built > 300, "only {built} contraction cases built");
}
