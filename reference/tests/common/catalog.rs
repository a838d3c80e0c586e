//! The catalog check shared by the family tests: every example of one catalog family runs on the
//! reference and gives the expected value bit-exactly.

use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::literal::Literal;
use conformance_spec::Backend;

/// Bit equality at every multi-index, through tuples (layouts may differ).
fn bit_equal(a: &Literal, b: &Literal) -> bool {
    a.logical_eq(b)
}

/// Runs every example of the built-in catalog's `family` (entries the reference marks
/// unsupported left out) on the reference and panics listing each example whose result is not
/// bit-equal to its expected value, or when the family has no examples.
pub fn assert_family_bit_exact(family: &str) {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let mut count = 0;
    let mut failures = Vec::new();
    for op in catalog.ops() {
        if catalog.family_of(&op.id) != Some(family) || op.unsupported.contains_key("reference") {
            continue;
        }
        for ex in &op.examples {
            let module =
                parse_module(&ex.hlo).unwrap_or_else(|e| panic!("{} / {}: {e}", op.id, ex.name));
            let args: Vec<Literal> = ex
                .inputs
                .iter()
                .map(|t| {
                    parse_literal(t).unwrap_or_else(|e| panic!("{} / {}: {t}: {e}", op.id, ex.name))
                })
                .collect();
            let expected = parse_literal(&ex.expected)
                .unwrap_or_else(|e| panic!("{} / {}: expected: {e}", op.id, ex.name));
            count += 1;
            match Reference.execute(&module, &args) {
                Ok(got) if bit_equal(&got, &expected) => {}
                Ok(got) => failures.push(format!(
                    "{} / {}: got {got}, expected {expected}",
                    op.id, ex.name
                )),
                Err(e) => failures.push(format!("{} / {}: {e}", op.id, ex.name)),
            }
        }
    }
    assert!(count > 0, "the {family} family has no examples");
    assert!(
        failures.is_empty(),
        "{} of {count} examples fail on the reference:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
