//! Checking one case: run it on every backend, compare each with the first (the reference) under
//! the catalog's tolerance, with implementation-defined elements masked.

use crate::compare::{compare, Allowance, Budget, Comparison};
use crate::executor::Stage;
use conformance_spec::backend::SubnormalMode;
use conformance_spec::catalog::conditioning::{self, ConditionAllowance};
use conformance_spec::catalog::{
    masks, resolve_element_types, ComplexError, Conditioning, ErrorBound, OpEntry, OrderSet,
    RandomCheck,
};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::{HloComputation, HloModule, Opcode};
use conformance_spec::index;
use conformance_spec::literal::{format_element, ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
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
    /// The backend did not finish within the per-case time limit.
    Timeout,
}

impl Verdict {
    /// `pass`, `fail`, `error`, `unsupported` or `timeout` (as in results files).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Error => "error",
            Verdict::Unsupported => "unsupported",
            Verdict::Timeout => "timeout",
        }
    }
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
    let result = result.unwrap_or_else(|payload| {
        Err(BackendError::Failure(format!(
            "panicked: {}",
            crate::executor::panic_message(payload.as_ref())
        )))
    });
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
    let root = &module.entry_computation().root_instruction().shape;
    root.array_leaves().first().map(|a| a.element_type)
}

/// Runs `module` on `args` on the reference (`backends[0]`) and compares every other backend with
/// it. `stage` is set to 1 while the reference runs and to `1 + k` while the k-th other backend
/// runs (so that a time limit can name the backend that hung).
pub fn check(
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    backends: &[&dyn Backend],
    stage: &Stage,
) -> CaseOutcome {
    let (reference, rest) = backends
        .split_first()
        .expect("at least the reference backend");
    stage.set(1);
    let executed = module;
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
    // JAX's entry form: a `tuple` root of one element is judged as that element (the tolerance
    // models read the root's operation and operands), on what every backend returned for the
    // tuple. A backend that does not return a one-element tuple is compared as it is (and fails).
    let inner = one_element_tuple_root(module);
    let tupled = inner.is_some();
    let devices = match tupled {
        true => conformance_spec::collective::DeviceGrid::of(module).map_or(1, |g| g.devices()),
        false => 1,
    };
    let (expected, whole) = match tupled {
        true => (untupled(expected.clone(), devices), Some(expected)),
        false => (expected, None),
    };
    let module = inner.as_ref().unwrap_or(module);
    let ty = result_type(module).unwrap_or(ElementType::F32);
    let budget = budget(op, ty);
    let allowances = element_allowances(op, module, args, *reference);
    let order_operands = match op.tolerance.order_set {
        Some(OrderSet::SortEquivalents | OrderSet::TopkNanOrder) => {
            root_operands(module, args, *reference)
        }
        _ => None,
    };
    let outcomes = rest
        .iter()
        .enumerate()
        .map(|(k, b)| {
            stage.set(2 + k);
            if op.unsupported.contains_key(b.name()) {
                return BackendOutcome {
                    backend: b.name().to_string(),
                    verdict: Verdict::Unsupported,
                    comparison: None,
                    error: op.unsupported.get(b.name()).cloned(),
                    micros: 0,
                };
            }
            let (got, micros) = execute_guarded(*b, executed, args);
            let got = match got {
                Ok(other) if tupled && !in_tuple_form(&other, devices) => {
                    let whole = whole.as_ref().unwrap_or(&expected);
                    return judged(*b, compare(whole, &other, &budget, &[]), micros);
                }
                Ok(t) if tupled => Ok(untupled(t, devices)),
                other => other,
            };
            match got {
                // Samples of a distribution: judged against it, whatever the reference drew
                // (crate::oracles::distributions).
                Ok(got)
                    if matches!(
                        op.tolerance.random,
                        Some(RandomCheck::Uniform | RandomCheck::Normal)
                    ) =>
                {
                    let law = rng_law(op, module, args, *reference);
                    judged(
                        *b,
                        crate::oracles::distributions::judge(law, &expected, &got),
                        micros,
                    )
                }
                // Random bits of another layout: judged by shapes and statistics
                // (crate::oracles::random).
                Ok(got)
                    if op.tolerance.random == Some(RandomCheck::Bits)
                        && !crate::oracles::random::same_layout(*reference, *b) =>
                {
                    judged(
                        *b,
                        crate::oracles::random::judge_bits(&expected, &got),
                        micros,
                    )
                }
                Ok(got) => {
                    let flushing = b.capabilities().subnormals == SubnormalMode::Flush;
                    // Where the semantics accept several orders, the accepted result nearest
                    // to the backend's.
                    let (near, order_flushed) = match (&order_operands, op.tolerance.order_set) {
                        (Some(operands), Some(OrderSet::SortEquivalents)) => {
                            let refs: Vec<&ArrayLiteral> = operands.iter().collect();
                            crate::oracles::order_set::nearest_sort(
                                module, &refs, &expected, &got, flushing,
                            )
                        }
                        (Some(operands), Some(OrderSet::TopkNanOrder)) => match operands.first() {
                            Some(x) => (
                                crate::oracles::order_set::nearest_topk(module, x, &expected, &got),
                                0,
                            ),
                            None => (expected.clone(), 0),
                        },
                        _ => (expected.clone(), 0),
                    };
                    // A decomposition that is unique only up to its gauge (pivots, signs,
                    // subspace bases): the exact one in the backend's gauge.
                    let gauged = (op.tolerance.error_bound == Some(ErrorBound::Lapack))
                        .then(|| crate::oracles::error_bounds::gauge_aligned(module, args, &got))
                        .flatten();
                    let (near, allowances) = match gauged {
                        Some((aligned, a)) => (aligned, a),
                        None => (near, allowances.clone()),
                    };
                    let expected = &near;
                    let mut c = compare(expected, &got, &budget, &allowances);
                    c.flushed_subnormals += order_flushed;
                    let caps = b.capabilities();
                    if !c.agrees() && caps.subnormals == SubnormalMode::Flush {
                        c = crate::oracles::subnormals::recompare_flushing(
                            module,
                            args,
                            *reference,
                            &caps,
                            op.signature.is_elementwise(),
                            expected,
                            &got,
                            &budget,
                            &allowances,
                            c,
                        );
                    }
                    if !c.agrees() {
                        annotate_inputs(&mut c, module, args, *reference);
                    }
                    judged(*b, c, micros)
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

/// The module rooted at the element of its entry root when that root is a `tuple` of one
/// element (the form of a JAX function's entry computation); `None` otherwise.
pub(crate) fn one_element_tuple_root(module: &HloModule) -> Option<HloModule> {
    let root = module.entry_computation().root_instruction();
    (root.opcode == Opcode::Tuple && root.operands.len() == 1)
        .then(|| conformance_spec::hlo::transform::with_root(module, root.operands[0]))
}

/// The result of a module of `devices` devices (one result per device in a tuple when there are
/// several, docs/collectives.md) with each device's one-element tuple replaced by its element;
/// anything else as it is.
fn untupled(l: Literal, devices: usize) -> Literal {
    match l {
        Literal::Tuple(per_device) if devices > 1 && per_device.len() == devices => {
            Literal::Tuple(per_device.into_iter().map(|r| untupled(r, 1)).collect())
        }
        Literal::Tuple(leaves) if devices == 1 => match <[Literal; 1]>::try_from(leaves) {
            Ok([leaf]) => leaf,
            Err(leaves) => Literal::Tuple(leaves),
        },
        other => other,
    }
}

/// Whether every device's result in `l` is a one-element tuple ([`untupled`]'s form).
fn in_tuple_form(l: &Literal, devices: usize) -> bool {
    match l {
        Literal::Tuple(per_device) if devices > 1 => {
            per_device.len() == devices && per_device.iter().all(|r| in_tuple_form(r, 1))
        }
        Literal::Tuple(leaves) => devices == 1 && leaves.len() == 1,
        _ => false,
    }
}

/// Per element of the root's result (row-major), how it is compared: for an entry with a
/// `tolerance.error_bound` (FFT, triangular solve, Cholesky, batch norm), within the bound of
/// [`crate::oracles::error_bounds`]; for a `scatter` entry
/// (`order_set: scatter-updates`), every value an order of its colliding updates gives ([`crate::oracles::scatter_orders`]); masked when some
/// `implementation_defined` mask of the entry applies to the root's operand values there, or when
/// the entry's `tolerance.conditioning` finds the result undetermined at the working precision;
/// with extra ULPs for the condition number otherwise (`catalog::conditioning`). The operand
/// values are computed by the reference (`reference` runs the entry computation with each operand
/// as root). Returns one vector for an array result, none when every element gets the budget.
pub fn element_allowances(
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) -> Vec<Vec<Allowance>> {
    if op.tolerance.order_set == Some(OrderSet::ScatterUpdates) {
        return crate::oracles::scatter_orders::allowances(module, args, reference);
    }
    if let Some(acc) = &op.tolerance.accumulation {
        return accumulation_allowances(acc, module, args);
    }
    if let Some(model) = op.tolerance.error_bound {
        return crate::oracles::error_bounds::allowances(model, module, args);
    }
    if op.implementation_defined.is_empty() && op.tolerance.conditioning.is_none() {
        return vec![];
    }
    let root = module.entry_computation().root_instruction();
    let Some(out_shape) = root.shape.as_array() else {
        return vec![];
    };
    let Some(operands) = root_operands(module, args, reference) else {
        return vec![];
    };
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
    let component = out_shape.element_type.float_format();
    let rule = op.tolerance.conditioning.zip(component);
    if applicable.is_empty() && rule.is_none() {
        return vec![];
    }
    let mut allowances = Vec::with_capacity(out_shape.element_count());
    let mut inputs = vec![0u128; operands.len()];
    index::for_each_index(&out_shape.dimensions, |idx| {
        for (k, a) in operands.iter().enumerate() {
            inputs[k] = operand_bits_at(a, &out_shape.dimensions, idx).unwrap_or(0);
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
        let allowance = match rule {
            _ if masked => Allowance::Masked,
            None => Allowance::Budget,
            Some((rule, f)) => {
                let condition = match rule {
                    // The reference has the function, so it computes κ.
                    Conditioning::Function => conditioning::function_allowance(
                        input_types.first().and_then(|&t| {
                            conformance_reference::condition_number(root.opcode, t, &inputs)
                        }),
                        f,
                    ),
                    _ => conditioning::allowance(rule, &input_types, &inputs, f),
                };
                match condition {
                    None => Allowance::Budget,
                    Some(ConditionAllowance::ExtraUlps(u)) => Allowance::ExtraUlps(u),
                    Some(ConditionAllowance::Undetermined) => Allowance::Masked,
                    Some(ConditionAllowance::Infinity) => Allowance::Infinity,
                }
            }
        };
        allowances.push(allowance);
    });
    vec![allowances]
}

/// Per element of a sum (dot, convolution, a sum reduction), the error bound of summation in any
/// order (catalog `tolerance.accumulation`), and of a product reduction the error bound of
/// multiplication in any order (`n` roundings of the exact product, plus the slack of roundings
/// in the subnormal range: `conformance_reference::contraction::exact_product`):
/// `γ(n)·Σ|terms|` with `γ(n) = n·u/(1 − n·u)`, `u` the
/// unit roundoff of the accumulation type, `n` the number of terms (plus 2 for complex results,
/// whose products round twice more) and `Σ|terms|` from the exact reference
/// ([`conformance_reference::accumulation_bounds`]). Masked where Σ|terms| exceeds the
/// accumulation type's largest finite value (some orders overflow, others do not) or `n·u ≥ 1`,
/// and complex elements with an infinite or NaN term; real elements with such a term must be
/// the exact infinity or NaN, or any NaN (an order in which finite terms overflow to the
/// opposite infinity gives NaN: coarse, as the reference does not report the finite terms'
/// Σ|terms| apart); exact (the entry's budget) for integer results and roots without a sum
/// (max/min reductions).
fn accumulation_allowances(
    acc: &conformance_spec::catalog::Accumulation,
    module: &HloModule,
    args: &[Literal],
) -> Vec<Vec<Allowance>> {
    let zeros_meet_non_finite = convolution_zeros_meet_non_finite(module, args);
    let Ok(Some(bounds)) = conformance_reference::accumulation_bounds(module, args) else {
        return vec![];
    };
    let root = &module.entry_computation().root_instruction().shape;
    let one: Vec<ElementType> = match root {
        Shape::Array(a) => vec![a.element_type],
        Shape::Tuple(parts) => parts
            .iter()
            .filter_map(|p| p.as_array().map(|a| a.element_type))
            .collect(),
        Shape::Token => vec![],
    };
    // A module of several devices: each device's leaves in turn.
    let devices = conformance_spec::collective::DeviceGrid::of(module).map_or(1, |g| g.devices());
    let leaves: Vec<ElementType> = (0..devices).flat_map(|_| one.iter().copied()).collect();
    bounds
        .iter()
        .zip(leaves)
        .map(|(leaf, ty)| {
            let format = acc.type_for(ty).and_then(|t| t.float_format());
            leaf.iter()
                .map(|b| match format {
                    Some(f) if ty.float_format().is_some() => {
                        let extra = if ty.is_complex() { 2 } else { 0 };
                        let nu = (b.terms + extra) as f64 * f.unit_roundoff();
                        if !b.abs_sum.is_finite() && ty.is_complex() {
                            // An infinite term in one component leaves the other without a
                            // bound, and complex products with infinities differ between
                            // formulas (C99 Annex G recovers infinities, the plain one gives NaN).
                            Allowance::Masked
                        } else if !b.abs_sum.is_finite() && f.max_finite() >= f64::MAX {
                            // Σ|terms| beyond f64: a term may be infinite, or finite terms
                            // overflow in some orders only.
                            Allowance::Masked
                        } else if !b.abs_sum.is_finite() {
                            // An infinite or NaN term: the exact infinity (or NaN), or NaN where
                            // finite terms overflow to the opposite infinity in some order.
                            Allowance::OrNan(Box::new(Allowance::Budget))
                        } else if nu >= 1.0
                            || b.abs_sum * (1.0 + 2.0 * nu) > f.max_finite()
                            || !b.slack.is_finite()
                        {
                            // Some orders overflow (or the bound is meaningless).
                            Allowance::Masked
                        } else {
                            Allowance::within(nu / (1.0 - nu) * b.abs_sum + b.slack)
                        }
                    }
                    _ => Allowance::Budget,
                })
                .enumerate()
                .map(|(k, a)| {
                    let meets = zeros_meet_non_finite
                        .as_ref()
                        .is_some_and(|m| m.get(k).copied().unwrap_or(false));
                    if meets {
                        Allowance::OrNan(Box::new(a))
                    } else {
                        a
                    }
                })
                .collect()
        })
        .collect()
}

/// For a `convolution` root, per result element, whether zeros (padding, base-dilation holes)
/// meet a non-finite kernel value there ([`crate::conv_zeros`]); `None` for other roots.
fn convolution_zeros_meet_non_finite(module: &HloModule, args: &[Literal]) -> Option<Vec<bool>> {
    let root = module.entry_computation().root_instruction();
    if root.opcode != Opcode::Convolution {
        return None;
    }
    // Without padding or base dilation there are no zeros: skip evaluating the operands.
    let window = conformance_spec::hlo::Window::from_instruction(root).ok()?;
    if !crate::conv_zeros::has_zeros(&window) {
        return None;
    }
    let operands = root_operands(module, args, &conformance_reference::Reference)?;
    let (input, kernel) = (operands.first()?, operands.get(1)?);
    let numbers =
        conformance_spec::hlo::ConvolutionDimensionNumbers::from_instruction(root).ok()?;
    let spatial: Vec<i64> = numbers
        .input_spatial_dimensions
        .iter()
        .map(|&d| input.dimensions().get(d as usize).copied().unwrap_or(0))
        .collect();
    crate::conv_zeros::zeros_meet_non_finite(root, kernel, &spatial)
}

/// The outcome of a backend whose result was judged into `c` (by the comparison or a tolerance
/// model).
fn judged(b: &dyn Backend, c: Comparison, micros: u64) -> BackendOutcome {
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

/// The distribution of an `rng` root from its parameters (computed by `reference`); `None` when
/// the seed leaves the result to the implementation or the parameters cannot be computed.
fn rng_law(
    op: &OpEntry,
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) -> Option<crate::oracles::distributions::Law> {
    let operands = root_operands(module, args, reference)?;
    let (a, b) = (operands.first()?, operands.get(1)?);
    let ty = result_type(module)?;
    crate::oracles::distributions::Law::new(
        op.tolerance.random == Some(RandomCheck::Normal),
        ty,
        a.get_bits_linear(0) as u64,
        b.get_bits_linear(0) as u64,
    )
}

/// The root instruction's operand values, each computed by `reference` (the entry computation run
/// with that operand as its root). `None` when one is not an array or the reference fails.
pub(crate) fn root_operands(
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) -> Option<Vec<ArrayLiteral>> {
    let root = module.entry_computation().root_instruction();
    let mut operands = Vec::with_capacity(root.operands.len());
    for &o in &root.operands {
        let mut sub = module.clone();
        let comp: &mut HloComputation = &mut sub.computations[module.entry];
        comp.root = o;
        match reference.execute(&sub, args) {
            Ok(Literal::Array(a)) => operands.push(a),
            _ => return None,
        }
    }
    Some(operands)
}

/// The bits of operand `a` that feed result element `idx` of an element-wise root: a scalar
/// operand (clamp bounds) feeds every element, an operand of the result's dimensions the same
/// index; `None` otherwise.
pub(crate) fn operand_bits_at(a: &ArrayLiteral, out_dims: &[i64], idx: &[i64]) -> Option<u128> {
    if a.shape().is_scalar() {
        Some(a.get_bits(&[]))
    } else if a.dimensions() == out_dims {
        Some(a.get_bits(idx))
    } else {
        None
    }
}

/// Fills each differing element's `inputs` with the root's operand values there (HLO literal
/// syntax), so that a failure line shows what was evaluated. Leaves them empty for a tuple result
/// or when the operands cannot be computed.
fn annotate_inputs(
    c: &mut Comparison,
    module: &HloModule,
    args: &[Literal],
    reference: &dyn Backend,
) {
    let root = module.entry_computation().root_instruction();
    let Some(out_shape) = root.shape.as_array() else {
        return;
    };
    let Some(operands) = root_operands(module, args, reference) else {
        return;
    };
    for d in c.diffs.iter_mut().filter(|d| d.tuple_index.is_empty()) {
        d.inputs = operands
            .iter()
            .map(
                |a| match operand_bits_at(a, &out_shape.dimensions, &d.index) {
                    Some(bits) => format_element(a.element_type(), bits),
                    None => "?".to_string(),
                },
            )
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};

    /// Complex power's allowances follow the condition number of each element (catalog
    /// `conditioning: complex-power`): a few ULPs for a well-conditioned element, masked when the
    /// angle is unknown at f32 precision, an infinity when the magnitude overflows.
    #[test]
    fn complex_power_allowances_follow_the_condition_number() {
        let catalog = conformance_spec::catalog::shared().expect("built-in catalog");
        let op = catalog.op("power").expect("power in the catalog");
        let module = parse_module(
            "HloModule m\nENTRY e {\n  a = c64[4]{0} parameter(0)\n  b = c64[4]{0} parameter(1)\n  ROOT p = c64[4]{0} power(a, b)\n}\n",
        )
        .unwrap();
        let args = [
            parse_literal("c64[4] {(2, 0), (10, 0), (1e30, 1), (0, 0)}").unwrap(),
            parse_literal("c64[4] {(3, 0), (0, 1e30), (4, 0), (2, 0)}").unwrap(),
        ];
        let reference = crate::backends::by_name("reference").unwrap();
        let a = element_allowances(op, &module, &args, reference.as_ref());
        // κ(2, 3) = 3·(1 + ln 2) = 5.08: 8κ rounds up to 41 ULPs.
        assert_eq!(
            a,
            vec![vec![
                Allowance::ExtraUlps(41),
                Allowance::Masked,
                Allowance::Infinity,
                Allowance::Masked, // 0^w: the complex-power-zero-base mask
            ]]
        );
    }
}

#[cfg(test)]
mod tuple_root_tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};
    use conformance_spec::Capabilities;

    /// The reference's result with every array element one ULP up (positive f32 values), or
    /// with a one-element tuple unwrapped (`unwrap`).
    struct Skewed {
        unwrap: bool,
    }

    fn bump(l: Literal) -> Literal {
        match l {
            Literal::Array(mut a) => {
                for k in 0..a.shape().element_count() {
                    let b = a.get_bits_linear(k);
                    a.set_bits_linear(k, b + 1);
                }
                Literal::Array(a)
            }
            Literal::Tuple(v) => Literal::Tuple(v.into_iter().map(bump).collect()),
            Literal::Token => Literal::Token,
        }
    }

    impl Backend for Skewed {
        fn name(&self) -> &str {
            "skewed"
        }
        fn capabilities(&self) -> Capabilities {
            conformance_reference::Reference.capabilities()
        }
        fn execute(&self, module: &HloModule, args: &[Literal]) -> Result<Literal, BackendError> {
            let out = conformance_reference::Reference.execute(module, args)?;
            Ok(if self.unwrap {
                untupled(out, 1)
            } else {
                bump(out)
            })
        }
    }

    fn dot(tuple_root: bool) -> HloModule {
        let root = if tuple_root {
            "  d = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT t = (f32[2,2]{1,0}) tuple(d)\n"
        } else {
            "  ROOT d = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
        };
        parse_module(&format!(
            "HloModule m\nENTRY e {{\n  a = f32[2,9]{{1,0}} parameter(0)\n  b = f32[9,2]{{1,0}} parameter(1)\n{root}}}\n"
        ))
        .unwrap()
    }

    /// A one-element tuple root (JAX's entry form) is judged by its element's tolerance model:
    /// a dot one ULP off, inside its sum bound, passes in both forms (before, the tuple fell back
    /// to the default budget and failed); a backend that returns the element without its tuple
    /// fails.
    #[test]
    fn a_tuple_root_is_judged_as_its_element() {
        let catalog = conformance_spec::catalog::shared().expect("built-in catalog");
        let op = catalog.op("dot").expect("dot in the catalog");
        // Positive values: the dot is its own absolute sum, and its bound some ULPs wide.
        let values = |rows: u32, cols: u32, seed: u32| -> Literal {
            let row = |r: u32| -> String {
                let v: Vec<String> = (0..cols)
                    .map(|c| {
                        let i = r * cols + c;
                        format!("{}", 0.1 + ((i * 7919 + seed) % 97) as f32 / 97.0)
                    })
                    .collect();
                format!("{{{}}}", v.join(", "))
            };
            let all: Vec<String> = (0..rows).map(row).collect();
            parse_literal(&format!("f32[{rows},{cols}] {{{}}}", all.join(", "))).unwrap()
        };
        let args = [values(2, 9, 3), values(9, 2, 5)];
        let verdict = |tuple_root: bool, unwrap: bool| {
            let backends: [&dyn Backend; 2] =
                [&conformance_reference::Reference, &Skewed { unwrap }];
            let o = check(op, &dot(tuple_root), &args, &backends, &Stage::default());
            (o.outcomes[0].verdict, format!("{o:?}"))
        };
        for tuple_root in [false, true] {
            let (v, o) = verdict(tuple_root, false);
            assert_eq!(v, Verdict::Pass, "tuple root {tuple_root}: {o}");
        }
        let (v, o) = verdict(true, true);
        assert_eq!(v, Verdict::Fail, "{o}");
    }
}
