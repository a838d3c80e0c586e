//! Fused multiply-add contraction (DESIGN.md, "Comparison": the fused-multiply-add class): a
//! backend may compute a `multiply` that feeds an `add` or `subtract` as one fused operation,
//! rounding `x·y ± z` once instead of twice (XLA's CPU backend lets LLVM contract them). The
//! semantics round each instruction (seed 004), so this is a deviation, but a well-understood
//! one: the elements of such an add or subtract that equal the once-rounded value are set aside
//! and counted as the class "contracts multiply-add", not failed one by one, and the rest of the
//! result is checked as usual.

use conformance_reference::round::fused_multiply_add;
use conformance_spec::hlo::{HloComputation, HloInstruction, Opcode};
use conformance_spec::literal::{ArrayLiteral, Literal};

/// Per element of `instruction`'s result (an `add` or `subtract` of a real float type in
/// `computation`, one of whose operands is a `multiply` there), the values a contracting backend
/// may give: `round(±x·y ± z)` for each operand that is a multiply, from the backend's values
/// `values` of the computation's instructions. `None` when the instruction is not such a pair or
/// a value is missing. Each returned array has the instruction's shape.
pub fn contracted_values(
    computation: &HloComputation,
    instruction: &HloInstruction,
    values: &[Option<Literal>],
) -> Option<Vec<ArrayLiteral>> {
    let subtract = match instruction.opcode {
        Opcode::Add => false,
        Opcode::Subtract => true,
        _ => return None,
    };
    let shape = instruction.shape.as_array()?;
    let ty = shape.element_type;
    let fmt = ty.float_format().filter(|_| ty.is_float())?;
    let value = |i: usize| values.get(i)?.as_ref()?.as_array();
    let mut out = Vec::new();
    for (k, &m) in instruction.operands.iter().enumerate() {
        let multiply = computation.instructions.get(m)?;
        if multiply.opcode != Opcode::Multiply {
            continue;
        }
        // A malformed instruction (wrong operand count) has no contraction to offer.
        let (&[xi, yi], &[_, _]) = (
            multiply.operands.as_slice(),
            instruction.operands.as_slice(),
        ) else {
            return None;
        };
        let (x, y) = (value(xi)?, value(yi)?);
        let z = value(instruction.operands[1 - k])?;
        if [x, y, z]
            .iter()
            .any(|a| a.dimensions() != shape.dimensions.as_slice())
        {
            continue;
        }
        let negate = |b: u64| b ^ (1u64 << (fmt.bit_width() - 1));
        let mut fused = ArrayLiteral::zeros(x.shape().clone());
        conformance_spec::index::for_each_index(&shape.dimensions, |i| {
            let (a, b, c) = (
                x.get_bits(i) as u64,
                y.get_bits(i) as u64,
                z.get_bits(i) as u64,
            );
            // add: x·y + z; subtract: x·y − z (multiply on the left), z − x·y (on the right).
            let bits = match (subtract, k) {
                (false, _) => fused_multiply_add(fmt, a, b, c),
                (true, 0) => fused_multiply_add(fmt, a, b, negate(c)),
                (true, _) => fused_multiply_add(fmt, negate(a), b, c),
            };
            fused.set_bits(i, u128::from(bits));
        });
        out.push(fused);
    }
    (!out.is_empty()).then_some(out)
}

/// `expected` with every element where `got` equals one of the `contracted` values (NaN matching
/// NaN) replaced by `got`'s, and how many elements were replaced while differing from `expected`.
pub fn accept_contracted(
    expected: &ArrayLiteral,
    got: &ArrayLiteral,
    contracted: &[ArrayLiteral],
) -> (ArrayLiteral, u64) {
    let ty = expected.element_type();
    let is_nan = |b: u128| {
        ty.float_format()
            .is_some_and(|f| f.classify(b as u64) == conformance_spec::FloatClass::Nan)
    };
    let mut out = expected.clone();
    let mut count = 0;
    conformance_spec::index::for_each_index(expected.dimensions(), |i| {
        let (e, g) = (expected.get_bits(i), got.get_bits(i));
        if e == g || (is_nan(e) && is_nan(g)) {
            return;
        }
        if contracted
            .iter()
            .any(|c| c.get_bits(i) == g || (is_nan(c.get_bits(i)) && is_nan(g)))
        {
            out.set_bits(i, g);
            count += 1;
        }
    });
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::{parse_literal, parse_module};

    #[test]
    fn a_subtract_of_a_square_may_be_the_once_rounded_value() {
        let m = parse_module(
            "HloModule f
ENTRY main {
  x = f32[2]{0} parameter(0)
  m = f32[2]{0} multiply(x, x)
  one = f32[2]{0} parameter(1)
  ROOT s = f32[2]{0} subtract(m, one)
}",
        )
        .unwrap();
        let entry = m.entry_computation();
        let x = parse_literal("f32[2] {-0.80193144, 3}").unwrap();
        let one = parse_literal("f32[2] {1, 1}").unwrap();
        let product = parse_literal("f32[2] {0.64309406, 9}").unwrap();
        let values = vec![Some(x), Some(product), Some(one), None];
        let fused = contracted_values(entry, entry.root_instruction(), &values).unwrap();
        assert_eq!(fused.len(), 1);
        let expected_fused = (-0.80193144f32).mul_add(-0.80193144, -1.0);
        assert_eq!(fused[0].get_bits(&[0]) as u32, expected_fused.to_bits());
        assert_eq!(f32::from_bits(fused[0].get_bits(&[1]) as u32), 8.0);
        // The separately rounded result differs from the fused one in the last place.
        let separate = std::hint::black_box(-0.80193144f32) * -0.80193144 - 1.0;
        assert_ne!(separate.to_bits(), expected_fused.to_bits());
        let expected = parse_literal(&format!("f32[2] {{{separate:e}, 8}}")).unwrap();
        let got = parse_literal(&format!("f32[2] {{{expected_fused:e}, 8}}")).unwrap();
        let (accepted, n) = accept_contracted(
            expected.as_array().unwrap(),
            got.as_array().unwrap(),
            &fused,
        );
        assert_eq!(n, 1);
        assert!(accepted.logical_eq(got.as_array().unwrap()));
        // A value that is neither is not accepted.
        let wrong = parse_literal("f32[2] {0.5, 8}").unwrap();
        let (_, n) = accept_contracted(
            expected.as_array().unwrap(),
            wrong.as_array().unwrap(),
            &fused,
        );
        assert_eq!(n, 0);
    }
}
