//! Every executable example of the catalog (the seed's worked examples and the hand-made ones)
//! passes on every in-process backend: bit-exact on the reference, within the entry's budget on
//! the others (for sums, within the error bound of summation the reference reports). And every catalog entry is implemented by every backend or marked unsupported.

use conformance::compare::{compare, Budget};
use conformance::oracles::error_bounds::gauge_aligned;
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::{Catalog, ErrorBound};
use conformance_spec::hlo::{parse_literal, parse_module};
use conformance_spec::Backend;

fn backends() -> Vec<Box<dyn Backend>> {
    vec![Box::new(Reference), Box::new(Fast::new())]
}

#[test]
fn every_catalog_example_passes_on_every_backend() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let mut failures = Vec::new();
    let mut count = 0;
    for op in catalog.ops() {
        for ex in &op.examples {
            let module =
                parse_module(&ex.hlo).unwrap_or_else(|e| panic!("{} / {}: {e}", op.id, ex.name));
            let args: Vec<_> = ex
                .inputs
                .iter()
                .map(|t| {
                    parse_literal(t)
                        .unwrap_or_else(|e| panic!("{} / {}: input {t}: {e}", op.id, ex.name))
                })
                .collect();
            let expected = parse_literal(&ex.expected)
                .unwrap_or_else(|e| panic!("{} / {}: expected: {e}", op.id, ex.name));
            for b in backends() {
                if op.unsupported.contains_key(b.name()) {
                    continue;
                }
                count += 1;
                let budget = if b.name() == "reference" {
                    Budget::default()
                } else {
                    let ty = conformance::check::result_type(&module).expect("array result");
                    conformance::check::budget(op, ty)
                };
                // Sums (dot, convolution, sum reductions) are compared within the error bound
                // of summation in any order, except on the reference, which rounds exact sums.
                let allowances = if b.name() == "reference" || op.tolerance.accumulation.is_none() {
                    vec![]
                } else {
                    conformance::check::element_allowances(op, &module, &args, &Reference)
                };
                match b.execute(&module, &args) {
                    Ok(got) => {
                        // A LAPACK decomposition unique only up to its gauge (signs, pivots on
                        // ties): another backend is compared with the exact one in its gauge.
                        let gauged = (b.name() != "reference"
                            && op.tolerance.error_bound == Some(ErrorBound::Lapack))
                        .then(|| gauge_aligned(&module, &args, &got))
                        .flatten();
                        let (expected, allowances) = match gauged {
                            Some((e, a)) => (e, a),
                            None => (expected.clone(), allowances),
                        };
                        let c = compare(&expected, &got, &budget, &allowances);
                        if !c.agrees() {
                            let first: Vec<String> =
                                c.diffs.iter().take(3).map(|d| d.to_string()).collect();
                            failures.push(format!(
                                "{} / {} on {}: {}",
                                op.id,
                                ex.name,
                                b.name(),
                                first.join("; ")
                            ));
                        }
                    }
                    Err(e) => {
                        failures.push(format!("{} / {} on {}: {e}", op.id, ex.name, b.name()))
                    }
                }
            }
        }
    }
    assert!(
        count > 100,
        "only {count} example runs: the catalog lost its examples?"
    );
    assert!(
        failures.is_empty(),
        "{} example failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_catalog_entry_is_implemented_or_marked_unsupported() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let mut holes = Vec::new();
    for b in backends() {
        let caps = b.capabilities();
        for op in catalog.ops() {
            let opcode = op.hlo_opcode().expect("catalog opcodes are HLO opcodes");
            if !caps.opcodes.contains(&opcode) && !op.unsupported.contains_key(b.name()) {
                holes.push(format!("{} lacks {} ({})", b.name(), op.id, op.opcode));
            }
            for t in catalog.element_types(op) {
                if !caps.element_types.contains(&t) && !op.unsupported.contains_key(b.name()) {
                    holes.push(format!("{} lacks {} on {t}", b.name(), op.id));
                }
            }
        }
    }
    assert!(holes.is_empty(), "{}", holes.join("\n"));
}
