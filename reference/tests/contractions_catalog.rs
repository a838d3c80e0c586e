//! Every example of the contractions catalog family (spec/ops/contractions.yaml: the seed's
//! worked examples and hand-made ones) runs on the reference and gives the expected value
//! bit-exactly (the reference is exact: every sum rounded once).

use conformance_reference::Reference;
use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::literal::Literal;
use conformance_spec::Backend;

/// Bit equality at every multi-index, through tuples (layouts may differ).
fn bit_equal(a: &Literal, b: &Literal) -> bool {
    a.logical_eq(b)
}

#[test]
fn every_contractions_example_is_bit_exact_on_the_reference() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let mut count = 0;
    let mut failures = Vec::new();
    for op in catalog.ops() {
        if catalog.family_of(&op.id) != Some("contractions")
            || op.unsupported.contains_key("reference")
        {
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
    assert!(count > 0, "the contractions family has no examples");
    assert!(
        failures.is_empty(),
        "{} of {count} examples fail on the reference:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
