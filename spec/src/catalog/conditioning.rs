//! Condition numbers: how much an operation amplifies relative perturbations of its inputs.
//!
//! A budget in fixed ULPs suits functions whose result is well conditioned. Complex `power` is not:
//! z^w = exp(w·log z), and any evaluation in the working precision rounds w·log z, whose
//! magnitude can reach 10^40 (c64) or 10^310 (c128). The rounding of that intermediate moves the
//! result's angle by |w·log z|·ε radians, so every finite-precision implementation (XLA's
//! elemental emitter computes `(a²+b²)^(c/2)·exp(−d·atan2(b,a))·cis(c·atan2(b,a) + d·ln|z|)`)
//! differs from the exact value by about κ ULPs, where κ is the condition number below.
//!
//! A catalog entry opts in with `tolerance.conditioning`; the comparator then allows each element
//! `8·κ` ULPs beyond the entry's budget ([`ConditionAllowance::ExtraUlps`]): log z (two parts),
//! the products with w and their sum each round once, by at most ½ ULP relative to |w|·|log z|,
//! which moves the result by up to 3κ/2 relative ULPs, and a relative error reads as up to twice
//! as many ULPs at the bottom of a binade; 8 leaves room for the final exponential and cis. It
//! masks the element when that allowance reaches a relative error of 1 (half the format's ULPs at
//! 1, `2^(p−1)`), where not even the direction of the result is determined by the working
//! precision ([`ConditionAllowance::Undetermined`]), and only asks for an infinity when the exact
//! result's magnitude certainly overflows ([`ConditionAllowance::Infinity`]): its components are
//! an overflowing magnitude times a direction, and which of them overflow, with which sign,
//! depends on the direction's last bits (XLA's emitter even gives `inf·sin(0)` = NaN).

//!
//! `function` (CHLO's `lgamma`, `digamma`, `polygamma`, `zeta`) is the same idea for real
//! functions of real operands: κ = Σ_k |x_k·∂f/∂x_k| / |f| is how much a relative perturbation of
//! the operands (or of an intermediate that carries their information, such as the argument of a
//! reflection or a recurrence) moves the result, relatively. Near a zero of f (lgamma at 1 and 2,
//! digamma at 1.4616…) κ is unbounded: every working-precision evaluation there has an absolute
//! error of a few ULPs of the function's *scale*, which is an unbounded number of ULPs of the tiny
//! result. The reference computes κ at high precision (`conformance_reference::condition_number`,
//! the spec has no special functions of its own); the allowance from it is [`allowance_from_kappa`].

use super::masks::complex_components;
use super::model::Conditioning;
use crate::element_type::{ElementType, FloatFormat};
use crate::hlo::ir::Opcode;

/// The opcodes `tolerance.conditioning: function` may name: those whose condition number the
/// reference computes.
pub const FUNCTION_OPCODES: &[Opcode] = &[
    Opcode::Lgamma,
    Opcode::Digamma,
    Opcode::Polygamma,
    Opcode::Zeta,
];

/// The allowance one element receives from its condition number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionAllowance {
    /// Extra ULPs (of the result format, measured as the entry's budget is) beyond the budget.
    ExtraUlps(u64),
    /// The condition number is so large (or infinite) that the working precision does not
    /// determine the result: the element is not compared.
    Undetermined,
    /// The exact result's magnitude exceeds the largest finite value by more than a factor 2 (so
    /// at least one exact component is infinite), beyond the error the condition number allows:
    /// the result must be an infinity in the sense of C99 G.3 (at least one infinite component,
    /// the other may be anything, NaN included).
    Infinity,
}

/// The condition number κ of `rule` at one element's operand values (`inputs[k]`: the bits of
/// operand k, of type `input_types[k]`): perturbing the inputs, and the intermediates a
/// working-precision evaluation rounds, by a relative ε moves the exact result by about κ·ε,
/// relatively. `None` when the inputs are outside the rule's domain (non-finite or zero operands,
/// which masks and special values cover).
///
/// `ComplexPower` (z^w, z = inputs[0], w = inputs[1]): κ = |w|·(1 + |log z|), the sum of the
/// sensitivities to z (|w|) and to w (|w·log z|).
pub fn condition_number(
    rule: Conditioning,
    input_types: &[ElementType],
    inputs: &[u128],
) -> Option<f64> {
    match rule {
        Conditioning::ComplexPower => {
            let z = complex_components(*input_types.first()?, *inputs.first()?)?;
            let w = complex_components(*input_types.get(1)?, *inputs.get(1)?)?;
            let finite = |(a, b): (f64, f64)| a.is_finite() && b.is_finite();
            if !finite(z) || !finite(w) || (z.0 == 0.0 && z.1 == 0.0) {
                return None;
            }
            // |z| without overflow or underflow: hypot scales internally.
            let log_abs = z.0.hypot(z.1).ln();
            let arg = z.1.atan2(z.0);
            let log_z = log_abs.hypot(arg);
            Some(w.0.hypot(w.1) * (1.0 + log_z))
        }
        // Computed by the reference, which has the function.
        Conditioning::Function => None,
    }
}

/// The allowance of `rule` at one element's operand values, for a result whose components have
/// format `component` (see [`condition_number`] for `input_types` and `inputs`): `8·κ` ULPs, or
/// [`ConditionAllowance::Undetermined`] from `2^(p−1)` ULPs on (a relative error of about 1), or
/// [`ConditionAllowance::Infinity`] when the estimated log-magnitude of the result, less its
/// uncertainty, exceeds `ln(largest finite) + ln 2`. `None` outside the rule's domain and for
/// `function`, whose κ the caller gets from the reference (then [`allowance_from_kappa`]).
pub fn allowance(
    rule: Conditioning,
    input_types: &[ElementType],
    inputs: &[u128],
    component: FloatFormat,
) -> Option<ConditionAllowance> {
    let kappa = condition_number(rule, input_types, inputs)?;
    // The relative error the allowance admits is below 1, so the log-magnitude is known to ±1.
    let log_magnitude = match rule {
        Conditioning::ComplexPower => {
            let z = complex_components(input_types[0], inputs[0])?;
            let w = complex_components(input_types[1], inputs[1])?;
            // Re(w·log z) = Re w·ln|z| − Im w·arg z.
            w.0 * z.0.hypot(z.1).ln() - w.1 * z.1.atan2(z.0)
        }
        Conditioning::Function => return None,
    };
    Some(allowance_from_kappa(kappa, component, Some(log_magnitude)))
}

/// The allowance of rule `function` for the condition number `kappa` the reference computed
/// (`None`: outside the domain, the entry's budget). An infinite κ is an exact zero of f at a
/// representable input (lgamma(1), lgamma(2)): no perturbation of the input is in play there and
/// careful implementations return the exact 0, so the entry's budget applies (`None`) too.
pub fn function_allowance(
    kappa: Option<f64>,
    component: FloatFormat,
) -> Option<ConditionAllowance> {
    kappa
        .filter(|k| k.is_finite())
        .map(|k| allowance_from_kappa(k, component, None))
}

/// The allowance for condition number `kappa` in a result of format `component`: `8·κ` extra
/// ULPs; [`ConditionAllowance::Undetermined`] from `2^(p−1)` ULPs on (relative error about 1, or
/// κ infinite or NaN); [`ConditionAllowance::Infinity`] when `log_magnitude` (the natural log of
/// the exact result's magnitude, if known) less 1 exceeds `ln(largest finite) + ln 2`.
pub fn allowance_from_kappa(
    kappa: f64,
    component: FloatFormat,
    log_magnitude: Option<f64>,
) -> ConditionAllowance {
    let ulps = (8.0 * kappa).ceil();
    let limit = 2f64.powi(component.precision() as i32 - 1);
    if ulps.is_nan() || ulps >= limit {
        return ConditionAllowance::Undetermined;
    }
    if log_magnitude.is_some_and(|m| m - 1.0 > component.max_finite().ln() + std::f64::consts::LN_2)
    {
        return ConditionAllowance::Infinity;
    }
    ConditionAllowance::ExtraUlps(ulps as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c64(re: f32, im: f32) -> u128 {
        (re.to_bits() as u128) | ((im.to_bits() as u128) << 32)
    }

    fn c128(re: f64, im: f64) -> u128 {
        (re.to_bits() as u128) | ((im.to_bits() as u128) << 64)
    }

    #[test]
    fn power_condition_number_is_w_times_one_plus_log_z() {
        let t = [ElementType::C128, ElementType::C128];
        // z = e (log z = 1), w = 3: κ = 3·2.
        let k = condition_number(
            Conditioning::ComplexPower,
            &t,
            &[c128(std::f64::consts::E, 0.0), c128(3.0, 0.0)],
        )
        .unwrap();
        assert!((k - 6.0).abs() < 1e-12, "{k}");
        // z = i (log z = iπ/2), w = 2i: κ = 2·(1 + π/2).
        let k = condition_number(
            Conditioning::ComplexPower,
            &t,
            &[c128(0.0, 1.0), c128(0.0, 2.0)],
        )
        .unwrap();
        assert!((k - 2.0 * (1.0 + std::f64::consts::FRAC_PI_2)).abs() < 1e-12);
    }

    #[test]
    fn power_outside_the_domain_has_no_condition_number() {
        let t = [ElementType::C64, ElementType::C64];
        let rule = Conditioning::ComplexPower;
        assert_eq!(
            condition_number(rule, &t, &[c64(0.0, 0.0), c64(2.0, 0.0)]),
            None
        );
        assert_eq!(
            condition_number(rule, &t, &[c64(f32::INFINITY, 0.0), c64(2.0, 0.0)]),
            None
        );
        assert_eq!(
            condition_number(rule, &t, &[c64(1.0, 0.0), c64(f32::NAN, 0.0)]),
            None
        );
        // Real operands are not this rule's business.
        let real = [ElementType::F32, ElementType::F32];
        assert_eq!(condition_number(rule, &real, &[1, 2]), None);
    }

    #[test]
    fn function_allowances_keep_exact_zeros_exact() {
        let f32f = ElementType::F32.float_format().unwrap();
        assert_eq!(
            function_allowance(Some(3.0), f32f),
            Some(ConditionAllowance::ExtraUlps(24))
        );
        assert_eq!(function_allowance(Some(f64::INFINITY), f32f), None);
        assert_eq!(function_allowance(None, f32f), None);
        assert_eq!(
            function_allowance(Some(1e30), f32f),
            Some(ConditionAllowance::Undetermined)
        );
    }

    #[test]
    fn allowances_grow_with_the_condition_number() {
        let t = [ElementType::C64, ElementType::C64];
        let rule = Conditioning::ComplexPower;
        let f32f = ElementType::F32.float_format().unwrap();
        let f64f = ElementType::F64.float_format().unwrap();
        // z = e, w = 1.5: κ = 1.5·2 = 3, 6 ULPs.
        let e = std::f32::consts::E;
        assert_eq!(
            allowance(rule, &t, &[c64(e, 0.0), c64(1.5, 0.0)], f32f),
            Some(ConditionAllowance::ExtraUlps(24))
        );
        // w = 1e30 i on z = 10: the angle is 2.3e30 radians, known to no bit in f32.
        assert_eq!(
            allowance(rule, &t, &[c64(10.0, 0.0), c64(0.0, 1e30)], f32f),
            Some(ConditionAllowance::Undetermined)
        );
        // 1e30^4 = 1e120 overflows f32 by far: only an infinity is asked for.
        assert_eq!(
            allowance(rule, &t, &[c64(1e30, 1.0), c64(4.0, 0.0)], f32f),
            Some(ConditionAllowance::Infinity)
        );
        // 1e30^1.2 = 1e36 does not, nor does 2^127·2 (within the factor-2 margin).
        assert!(matches!(
            allowance(rule, &t, &[c64(1e30, 1.0), c64(1.2, 0.0)], f32f),
            Some(ConditionAllowance::ExtraUlps(_))
        ));
        assert!(matches!(
            allowance(rule, &t, &[c64(2f32.powi(127), 0.0), c64(1.0, 0.0)], f32f),
            Some(ConditionAllowance::ExtraUlps(_))
        ));
        // The same element in a wider format leaves room for 1e120.
        let t2 = [ElementType::C128, ElementType::C128];
        assert!(matches!(
            allowance(rule, &t2, &[c128(1e30, 1.0), c128(4.0, 0.0)], f64f),
            Some(ConditionAllowance::ExtraUlps(_))
        ));
        // Outside the domain: no allowance.
        assert_eq!(
            allowance(rule, &t, &[c64(0.0, 0.0), c64(2.0, 0.0)], f32f),
            None
        );
    }
}
