//! `iota` (seed 004, Iota): an array whose element at index `j` is `j[iota_dimension]`.
//!
//! The seed: "for floating-point types the array equals `ConvertElementType(Iota(...))` with an
//! integer iota". So every element is `convert(s64 i)` to the result type through the
//! reference's exact `convert` (`crate::elementwise::convert::convert`): integers wrap (two's
//! complement, e.g. s8 index 200 is -56, as StableHLO's interpreter shows for i4), floats round
//! once to nearest-even (f8 and bf16 types lose integers above their precision; formats without
//! infinities give NaN beyond their range), complex types get real part `i` and imaginary part
//! +0. `pred` is not an iota type: XLA's HLO verifier accepts integral, floating-point and
//! complex types only (PRED is not integral), so the reference rejects it.

use super::{dimension, int, invalid};
use crate::elementwise::convert::convert;
use crate::interpreter::{result_array_shape, Context};
use conformance_spec::element_type::ElementType;
use conformance_spec::hlo::ir::HloInstruction;
use conformance_spec::index;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::BackendError;

/// The bits of iota value `i` in element type `ty`: `convert(s64 i)` (see the module docs).
pub fn iota_value_bits(ty: ElementType, i: i64) -> u128 {
    convert(ElementType::S64, ty, i as u64 as u128)
}

/// `iota`: no operands, `iota_dimension=d`; the result shape is the instruction's.
///
/// Errors: [`BackendError::Invalid`] for operands, a scalar or tuple result, `d` outside
/// `[0, rank)`, or a `pred` result.
pub(crate) fn iota(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    if !operands.is_empty() {
        return invalid("iota: takes no operands");
    }
    let shape = result_array_shape(instr)?;
    let d = dimension(
        instr,
        "iota_dimension",
        int(instr, "iota_dimension")?,
        shape.rank(),
    )?;
    if shape.element_type.is_pred() {
        return invalid(
            "iota: pred is not an iota type (integral, floating-point or complex only, as XLA's verifier requires)",
        );
    }
    let ty = shape.element_type;
    let mut out = ArrayLiteral::zeros(shape.clone());
    index::for_each_index(&shape.dimensions, |idx| {
        out.set_bits(idx, iota_value_bits(ty, idx[d]))
    });
    Ok(Literal::Array(out))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use conformance_spec::ElementType::*;

    fn hlo(shape: &str, d: i64) -> String {
        format!("HloModule m\nENTRY e {{\n  ROOT r = {shape} iota(), iota_dimension={d}\n}}\n")
    }

    #[test]
    fn seed_examples_under_layouts() {
        // Seed 004: Iota(s32[4, 8], 0) has rows 0..3; Iota(s32[4, 8], 1) has columns 0..7.
        let r = run_array(&hlo("s32[4,8]{0,1:P(5,9)}", 0), &[]);
        let want: Vec<i128> = (0..32).map(|n| n / 8).collect();
        assert_eq!(r.to_i128s().unwrap(), want);
        let r = run_array(&hlo("s32[4,8]{0,1}", 1), &[]);
        let want: Vec<i128> = (0..32).map(|n| n % 8).collect();
        assert_eq!(r.to_i128s().unwrap(), want);
    }

    #[test]
    fn narrow_integers_wrap() {
        let r = run_array(&hlo("s8[300]", 0), &[]);
        let got = r.to_i128s().unwrap();
        assert_eq!(got[127], 127);
        assert_eq!(got[128], -128);
        assert_eq!(got[299], 299 - 256);
        let r = run_array(&hlo("u8[2,260]{0,1}", 1), &[]);
        assert_eq!(r.get_bits(&[1, 259]), 3);
    }

    #[test]
    fn floats_round_to_nearest_even() {
        // f8e4m3fn has 4 significant bits: 17 -> 16 (tie to even), 19 -> 20, 18 exact;
        // beyond 448 (the largest finite) values round to NaN above 464 (no infinity).
        let r = run_array(&hlo("f8e4m3fn[500]{0}", 0), &[]);
        let f = F8E4M3FN.float_format().unwrap();
        let v = |i: i64| f.decode(r.get_bits(&[i]) as u64);
        assert_eq!((v(17), v(18), v(19)), (16.0, 18.0, 20.0));
        assert_eq!(v(448), 448.0);
        assert_eq!(v(464), 448.0); // tie between 448 and 480 (not representable) -> even
        assert!(v(465).is_nan());
        // bf16: 257 -> 256 (tie to even), 259 -> 260.
        let r = run_array(&hlo("bf16[3,300]{0,1}", 1), &[]);
        let b = Bf16.float_format().unwrap();
        assert_eq!(b.decode(r.get_bits(&[2, 257]) as u64), 256.0);
        assert_eq!(b.decode(r.get_bits(&[0, 259]) as u64), 260.0);
    }

    #[test]
    fn complex_has_zero_imaginary_part() {
        let r = run_array(&hlo("c128[2,3]{0,1:P(2,4)}", 1), &[]);
        for j in 0..3i64 {
            assert_eq!(r.get_bits(&[1, j]), (j as f64).to_bits() as u128);
        }
        let r = run_array(&hlo("c64[3]", 0), &[]);
        assert_eq!(r.get_bits(&[2]), 2f32.to_bits() as u128);
    }

    #[test]
    fn pred_scalar_and_bad_dimension_are_invalid() {
        for (shape, d) in [("pred[3]", 0), ("s32[]", 0), ("s32[3]", 1), ("s32[3]", -1)] {
            let e = run(&hlo(shape, d), &[]);
            assert!(
                matches!(e, Err(BackendError::Invalid(_))),
                "{shape} {d}: {e:?}"
            );
        }
    }
}
