//! Checking one case: run it on every backend, compare each with the first (the reference) under
//! the catalog's tolerance, with implementation-defined elements masked.

use crate::compare::{compare, Budget, Comparison};
use conformance_spec::catalog::{masks, resolve_element_types, Catalog, ComplexError, OpEntry};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{HloComputation, HloModule};
use conformance_spec::index;
use conformance_spec::literal::Literal;
use conformance_spec::{Backend, BackendError};
use serde::{Deserialize, Serialize};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// The verdict on one case for one backend against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Agrees within the catalog's budget.
    Pass,
    /// Disagrees: see the comparison's classes.
    Fail,
    /// The backend returned an error or panicked on a case it claims to support.
    Error,
    /// The backend does not support the case (catalog `unsupported`, or it said so).
    Unsupported,
}

/// One backend's outcome on a case.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BackendOutcome {
    pub backend: String,
    pub verdict: Verdict,
    pub comparison: Option<Comparison>,
    pub error: Option<String>,
    /// Wall time of the backend's execute call, in microseconds.
    pub micros: u64,
}

/// The outcome of a case: the reference's run and each other backend's verdict.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseOutcome {
    pub reference_micros: u64,
    /// Set when the reference itself failed: then nothing was compared.
    pub reference_error: Option<String>,
    pub outcomes: Vec<BackendOutcome>,
}

/// Runs `execute` and turns a panic into an error.
pub fn execute_guarded(
    backend: &dyn Backend,
    module: &HloModule,
    args: &[Literal],
) -> (Result<Literal, BackendError>, u64) {
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| backend.execute(module, args)));
    let micros = start.elapsed().as_micros() as u64;
    let result = match result {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic payload".to_string());
            Err(BackendError::Failure(format!("panicked: {msg}")))
        }
    };
    (result, micros)
}

/// The budget for an entry's result element type.
pub fn budget(op: &OpEntry, result_type: ElementType) -> Budget {
    Budget {
        ulps: op.tolerance.ulp_for(result_type),
        ignore_zero_sign: op.tolerance.ignore_zero_sign,
        exact_nan_bits: op.tolerance.exact_nan_bits,
        complex_normwise: op.tolerance.complex_error == ComplexError::Normwise,
    }
}

/// Element type of the entry computation's root (the first leaf for tuples).
pub fn result_type(module: &HloModule) -> Option<ElementType> {
    module
        .entry_computation()
        .root_instruction()
        .shape
        .as_array()
        .map(|a| a.element_type)
}

/// Runs `module` on `args` on the reference (`backends[0]`) and compares every other backend with it.
pub fn check(
    catalog: &Catalog,
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
) -> CaseOutcome {
    let (reference, rest) = backends
        .split_first()
        .expect("at least the reference backend");
    let (expected, reference_micros) = execute_guarded(*reference, module, args);
    let expected = match expected {
        Ok(e) => e,
        Err(e) => {
            return CaseOutcome {
                reference_micros,
                reference_error: Some(e.to_string()),
                outcomes: vec![],
            }
        }
    };
    let ty = result_type(module).unwrap_or(ElementType::F32);
    let budget = budget(op, ty);
    let mask = element_mask(catalog, op, module, args, *reference);
    let outcomes = rest
        .iter()
        .map(|b| {
            if op.unsupported.contains_key(b.name()) {
                return BackendOutcome {
                    backend: b.name().to_string(),
                    verdict: Verdict::Unsupported,
                    comparison: None,
                    error: op.unsupported.get(b.name()).cloned(),
                    micros: 0,
                };
            }
            let (got, micros) = execute_guarded(*b, module, args);
            match got {
                Ok(got) => {
                    let c = compare(&expected, &got, &budget, &mask);
                    BackendOutcome {
                        backend: b.name().to_string(),
                        verdict: if c.agrees() {
                            Verdict::Pass
                        } else {
                            Verdict::Fail
                        },
                        comparison: Some(c),
                        error: None,
                        micros,
                    }
                }
                Err(e) => BackendOutcome {
                    backend: b.name().to_string(),
                    verdict: match e {
                        BackendError::Unsupported(_) => Verdict::Unsupported,
                        _ => Verdict::Error,
                    },
                    comparison: None,
                    error: Some(e.to_string()),
                    micros,
                },
            }
        })
        .collect();
    CaseOutcome {
        reference_micros,
        reference_error: None,
        outcomes,
    }
}

/// Per element of the root's result (row-major), whether it is implementation-defined: some
/// `implementation_defined` mask of the entry applies to the root's operand values there.
/// The operand values are computed by the reference (`reference` runs the entry computation with
/// each operand as root). Returns one vector for an array result, none when nothing can be masked.
pub fn element_mask(
    catalog: &Catalog,
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) -> Vec<Vec<bool>> {
    let _ = catalog;
    if op.implementation_defined.is_empty() {
        return vec![];
    }
    let entry = module.entry_computation();
    let root = entry.root_instruction();
    let Some(out_shape) = root.shape.as_array() else {
        return vec![];
    };
    let mut operands: Vec<conformance_spec::ArrayLiteral> = Vec::new();
    for &o in &root.operands {
        let mut sub = module.clone();
        let comp: &mut HloComputation = &mut sub.computations[module.entry];
        comp.root = o;
        match reference.execute(&sub, args) {
            Ok(Literal::Array(a)) => operands.push(a),
            _ => return vec![],
        }
    }
    let input_types: Vec<ElementType> = operands.iter().map(|a| a.element_type()).collect();
    let applicable: Vec<&str> = op
        .implementation_defined
        .iter()
        .filter(|m| {
            m.element_types.is_empty()
                || resolve_element_types(&m.element_types)
                    .map(|ts| input_types.first().is_some_and(|t| ts.contains(t)))
                    .unwrap_or(false)
        })
        .map(|m| m.mask.as_str())
        .collect();
    if applicable.is_empty() {
        return vec![];
    }
    let mut mask = Vec::with_capacity(out_shape.element_count());
    let mut inputs = vec![0u128; operands.len()];
    index::for_each_index(&out_shape.dimensions, |idx| {
        for (k, a) in operands.iter().enumerate() {
            // Scalars (clamp bounds) apply everywhere; otherwise the same index (element-wise).
            inputs[k] = if a.shape().is_scalar() {
                a.get_bits(&[])
            } else if a.dimensions() == out_shape.dimensions.as_slice() {
                a.get_bits(idx)
            } else {
                0
            };
        }
        let masked = applicable.iter().any(|m| {
            masks::mask_applies(
                m,
                root.opcode,
                &root.attributes,
                &input_types,
                &inputs,
                out_shape.element_type,
            )
        });
        mask.push(masked);
    });
    vec![mask]
}
