//! Every `special_values` entry of the catalog (`op(inputs) = output`, e.g. sign(-0) = -0,
//! exp(-inf) = 0) holds on every in-process backend, for every element type it applies to.

use conformance::compare::{compare, Budget};
use conformance_fast::Fast;
use conformance_reference::Reference;
use conformance_spec::catalog::values::{parse_element, parse_element_exact};
use conformance_spec::catalog::{resolve_element_types, Catalog, OpEntry, Signature};
use conformance_spec::hlo::builder::ComputationBuilder;
use conformance_spec::hlo::{HloModule, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::{ArrayShape, Backend, ElementType, Shape};

/// A module applying the entry's operation to scalar parameters of `ty` (PRED first for select).
fn scalar_module(op: &OpEntry, ty: ElementType) -> Option<HloModule> {
    let opcode = op.hlo_opcode()?;
    let mut b = ComputationBuilder::new("main");
    let scalar = |t: ElementType| Shape::Array(ArrayShape::scalar(t));
    let root = match op.signature {
        Signature::Unary if opcode != Opcode::ReducePrecision => {
            let x = b.parameter(scalar(ty)).ok()?;
            b.unary(opcode, x).ok()?
        }
        Signature::Binary => {
            let x = b.parameter(scalar(ty)).ok()?;
            let y = b.parameter(scalar(ty)).ok()?;
            if opcode == Opcode::Compare {
                let dir = op.attributes.get("direction")?;
                b.compare(x, y, dir, op.attributes.get("type").map(String::as_str))
                    .ok()?
            } else {
                b.binary(opcode, x, y).ok()?
            }
        }
        Signature::Select => {
            let p = b.parameter(scalar(ElementType::Pred)).ok()?;
            let t = b.parameter(scalar(ty)).ok()?;
            let f = b.parameter(scalar(ty)).ok()?;
            b.select(p, t, f).ok()?
        }
        Signature::Clamp => {
            let lo = b.parameter(scalar(ty)).ok()?;
            let x = b.parameter(scalar(ty)).ok()?;
            let hi = b.parameter(scalar(ty)).ok()?;
            b.clamp(lo, x, hi).ok()?
        }
        _ => return None,
    };
    Some(HloModule::with_entry("special", b.build(root), vec![]))
}

#[test]
fn special_values_hold_on_every_backend() {
    let catalog = Catalog::builtin().expect("built-in catalog loads");
    let backends: Vec<Box<dyn Backend>> = vec![Box::new(Reference), Box::new(Fast::new())];
    let mut failures = Vec::new();
    let mut checked = 0;
    for op in catalog.ops() {
        let op_types = catalog.element_types(op);
        for sv in &op.special_values {
            let types = if sv.element_types.is_empty() {
                op_types.clone()
            } else {
                let listed =
                    resolve_element_types(&sv.element_types).expect("validated by the loader");
                op_types
                    .iter()
                    .copied()
                    .filter(|t| listed.contains(t))
                    .collect()
            };
            for ty in types {
                let Some(module) = scalar_module(op, ty) else {
                    continue;
                };
                let params = module.entry_computation().parameter_shapes();
                let args: Vec<Literal> = params
                    .iter()
                    .zip(&sv.inputs)
                    .map(|(s, text)| {
                        let a = s.as_array().expect("scalar");
                        let bits = parse_element_exact(a.element_type, text)
                            .unwrap_or_else(|e| panic!("{} {ty}: input {text}: {e}", op.id));
                        Literal::Array(ArrayLiteral::scalar_bits(a.element_type, bits))
                    })
                    .collect();
                let out_ty = conformance::check::result_type(&module).expect("array result");
                let want = parse_element(out_ty, &sv.output)
                    .unwrap_or_else(|e| panic!("{} {ty}: output {}: {e}", op.id, sv.output));
                let expected = Literal::Array(ArrayLiteral::scalar_bits(out_ty, want));
                for b in &backends {
                    if op.unsupported.contains_key(b.name()) {
                        continue;
                    }
                    checked += 1;
                    let budget = Budget {
                        ulps: 0,
                        ignore_zero_sign: op.tolerance.ignore_zero_sign,
                        exact_nan_bits: false,
                        complex_normwise: false,
                    };
                    match b.execute(&module, &args) {
                        Ok(got) => {
                            let c = compare(&expected, &got, &budget, &[]);
                            if !c.agrees() {
                                failures.push(format!(
                                    "{}({}) = {} on {ty}, {}: {}",
                                    op.id,
                                    sv.inputs.join(", "),
                                    sv.output,
                                    b.name(),
                                    c.diffs[0]
                                ));
                            }
                        }
                        Err(e) => failures.push(format!(
                            "{}({}) on {ty}, {}: {e}",
                            op.id,
                            sv.inputs.join(", "),
                            b.name()
                        )),
                    }
                }
            }
        }
    }
    assert!(checked > 200, "only {checked} special-value checks");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
