//! `select` and `clamp` (seed 004, Select and Clamp).
//!
//! Select picks `on_true` where the predicate is true and `on_false` elsewhere (bits copied
//! unchanged). Clamp is `min(max(min_value, x), max_value)` with the element type's maximum and
//! minimum, so a NaN anywhere gives NaN for floats and +0 > −0. The scalar forms (a scalar `pred`,
//! scalar `min`/`max`) are broadcasts and are handled by the array interpreter.

use super::{binary_float, binary_int, ElementFn, Signature};
use conformance_spec::element_type::{ElementType, TypeKind};
use conformance_spec::hlo::ir::Opcode;
use conformance_spec::BackendError;

pub(crate) fn build_select(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(3)?;
    if sig.operands[0] != ElementType::Pred {
        return super::invalid(format!(
            "select: the predicate must be pred, got {}",
            sig.operands[0]
        ));
    }
    let ty = sig.operands[1];
    if sig.operands[2] != ty {
        return super::invalid(format!(
            "select: on_true and on_false must have one element type, got {ty} and {}",
            sig.operands[2]
        ));
    }
    sig.expect_result(ty)?;
    Ok(Box::new(|x| Ok(if x[0] & 0xff != 0 { x[1] } else { x[2] })))
}

pub(crate) fn build_clamp(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(3)?;
    let ty = sig.common_operand_type()?;
    sig.expect_result(ty)?;
    match ty.kind() {
        TypeKind::Float => {
            let fmt = ty.float_format().expect("float");
            let max = binary_float::lookup(Opcode::Maximum).expect("maximum");
            let min = binary_float::lookup(Opcode::Minimum).expect("minimum");
            Ok(Box::new(move |x| {
                let lower = max(fmt, x[0] as u64, x[1] as u64)?;
                Ok(u128::from(min(fmt, lower, x[2] as u64)?))
            }))
        }
        TypeKind::SignedInteger | TypeKind::UnsignedInteger | TypeKind::Pred => {
            let max = binary_int::lookup(Opcode::Maximum, ty).expect("maximum");
            let min = binary_int::lookup(Opcode::Minimum, ty).expect("minimum");
            Ok(Box::new(move |x| {
                let lower = max(ty, x[0] as u64, x[1] as u64);
                Ok(u128::from(min(ty, lower, x[2] as u64)))
            }))
        }
        TypeKind::Complex => sig.not_defined_for(ty),
    }
}

#[cfg(test)]
mod tests {
    use super::super::eval_element;
    use super::super::test_util::instr;
    use conformance_spec::hlo::ir::Opcode;
    use conformance_spec::ElementType::{self, *};

    fn clamp(ty: ElementType, lo: u128, x: u128, hi: u128) -> u128 {
        eval_element(&instr(Opcode::Clamp, &[]), &[ty; 3], &[lo, x, hi], ty).unwrap()
    }

    fn f(x: f32) -> u128 {
        x.to_bits() as u128
    }

    #[test]
    fn clamp_seed_example() {
        // Seed 004: Clamp(0, {-1, 5, 9}, 6) = {0, 5, 6}.
        let s = |v: i32| v as u32 as u128;
        assert_eq!(clamp(S32, 0, s(-1), 6), 0);
        assert_eq!(clamp(S32, 0, 5, 6), 5);
        assert_eq!(clamp(S32, 0, 9, 6), 6);
        assert_eq!(clamp(U8, 10, 255, 20), 20);
    }

    #[test]
    fn clamp_floats() {
        assert_eq!(clamp(F32, f(0.0), f(-0.0), f(1.0)), f(0.0));
        assert_eq!(clamp(F32, f(-0.0), f(-0.0), f(0.0)), f(-0.0));
        assert!(f32::from_bits(clamp(F32, f(0.0), f(f32::NAN), f(1.0)) as u32).is_nan());
        assert!(f32::from_bits(clamp(F32, f(f32::NAN), f(0.5), f(1.0)) as u32).is_nan());
        assert_eq!(clamp(F32, f(-1.0), f(f32::NEG_INFINITY), f(1.0)), f(-1.0));
        // min > max: the max wins (min(max(a, x), b)).
        assert_eq!(clamp(F32, f(2.0), f(0.0), f(1.0)), f(1.0));
    }

    #[test]
    fn select_picks_bits() {
        let i = instr(Opcode::Select, &[]);
        let t =
            |p: u128| eval_element(&i, &[Pred, F32, F32], &[p, f(1.0), f(f32::NAN)], F32).unwrap();
        assert_eq!(t(1), f(1.0));
        assert_eq!(t(0), f(f32::NAN));
        assert!(eval_element(&i, &[S32, F32, F32], &[1, 0, 0], F32).is_err());
        assert!(eval_element(&i, &[Pred, F32, F64], &[1, 0, 0], F32).is_err());
        assert!(eval_element(&instr(Opcode::Clamp, &[]), &[C64; 3], &[0, 0, 0], C64).is_err());
    }
}
