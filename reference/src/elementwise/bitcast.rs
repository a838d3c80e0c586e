//! `bitcast-convert` (seed 004, BitcastConvertType): the bits of each element reinterpreted in
//! another type, little-endian.
//!
//! With equal widths it is element-wise (the bits are unchanged). With different widths it is not
//! (seed 004: "conversion between different bit widths is not element-wise"): for input width `B`
//! bytes and output width `B'`,
//! - `B > B'`: the output has a new minor-most (last) dimension of size `B/B'`; output element `k`
//!   along it holds bytes `[k·B', (k+1)·B')` of the input element;
//! - `B < B'`: the input's last dimension must have size `B'/B` and is removed; input element `k`
//!   along it supplies bytes `[k·B, (k+1)·B)` of the output element.

use super::{invalid, ElementFn, Signature};
use conformance_spec::index;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::shape::ArrayShape;
use conformance_spec::BackendError;

/// Element-wise form (equal widths only).
pub(crate) fn build(sig: &Signature) -> Result<ElementFn, BackendError> {
    sig.arity(1)?;
    let (from, to) = (sig.operands[0], sig.result);
    if from.bit_width() != to.bit_width() {
        return invalid(format!(
            "bitcast-convert from {from} to {to} changes the width ({} to {} bits) and is not \
             element-wise; it needs the array form",
            from.bit_width(),
            to.bit_width()
        ));
    }
    let mask = if to.bit_width() == 128 {
        u128::MAX
    } else {
        (1u128 << to.bit_width()) - 1
    };
    Ok(Box::new(move |x| Ok(x[0] & mask)))
}

/// Bitcast-converts a whole array into `result` (its element type, dimensions and layout), for
/// any widths.
///
/// Errors: [`BackendError::Invalid`] when `result`'s dimensions are not the operand's, extended or
/// reduced by the seed's rule above.
pub fn bitcast_convert_array(
    operand: &ArrayLiteral,
    result: &ArrayShape,
) -> Result<ArrayLiteral, BackendError> {
    let in_bytes = operand.element_type().byte_width();
    let out_bytes = result.element_type.byte_width();
    let in_dims = operand.dimensions();
    let mut out = ArrayLiteral::zeros(result.clone());
    let expected: Vec<i64> = if in_bytes == out_bytes {
        in_dims.to_vec()
    } else if in_bytes > out_bytes {
        let mut d = in_dims.to_vec();
        d.push((in_bytes / out_bytes) as i64);
        d
    } else {
        let ratio = (out_bytes / in_bytes) as i64;
        if in_dims.last() != Some(&ratio) {
            return invalid(format!(
                "bitcast-convert from {} to {}: the operand's last dimension must be {ratio}, \
                 operand dimensions are {in_dims:?}",
                operand.element_type(),
                result.element_type
            ));
        }
        in_dims[..in_dims.len() - 1].to_vec()
    };
    if result.dimensions != expected {
        return invalid(format!(
            "bitcast-convert from {}{in_dims:?} to {}: result dimensions must be {expected:?}, got {:?}",
            operand.element_type(),
            result.element_type,
            result.dimensions
        ));
    }
    let mut failure = None;
    index::for_each_index(&result.dimensions, |out_index| {
        let bytes: Vec<u8> = if in_bytes >= out_bytes {
            // The output element is a slice of one input element.
            let (input_index, k) = if in_bytes == out_bytes {
                (out_index, 0usize)
            } else {
                let (last, rest) = out_index.split_last().expect("extra dimension");
                (rest, *last as usize)
            };
            let bits = operand.get_bits(input_index).to_le_bytes();
            bits[k * out_bytes..(k + 1) * out_bytes].to_vec()
        } else {
            // The output element is the concatenation of the input elements along the last dim.
            let ratio = out_bytes / in_bytes;
            let mut input_index = out_index.to_vec();
            input_index.push(0);
            let mut bytes = Vec::with_capacity(out_bytes);
            for k in 0..ratio {
                *input_index.last_mut().expect("pushed") = k as i64;
                let bits = operand.get_bits(&input_index).to_le_bytes();
                bytes.extend_from_slice(&bits[..in_bytes]);
            }
            bytes
        };
        let mut buf = [0u8; 16];
        if bytes.len() > 16 {
            failure = Some("element wider than 16 bytes");
            return;
        }
        buf[..bytes.len()].copy_from_slice(&bytes);
        out.set_bits(out_index, u128::from_le_bytes(buf));
    });
    if let Some(msg) = failure {
        return invalid(msg);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::layout::Layout;
    use conformance_spec::ElementType::*;

    #[test]
    fn seed_shapes_narrowing_and_widening() {
        // Seed 004: f16[10,2] bitcast-convert(f32[10]).
        let values: Vec<f64> = (0..10).map(|i| 1.0 + i as f64 * 0.37).collect();
        let input = ArrayLiteral::from_f64s(ArrayShape::new(F32, vec![10]), &values).unwrap();
        let narrow = ArrayShape::new(F16, vec![10, 2]);
        let out = bitcast_convert_array(&input, &narrow).unwrap();
        for (i, v) in values.iter().enumerate() {
            let bits = (*v as f32).to_bits();
            assert_eq!(out.get_bits(&[i as i64, 0]), u128::from(bits & 0xffff));
            assert_eq!(out.get_bits(&[i as i64, 1]), u128::from(bits >> 16));
        }
        // And back: f32[10] bitcast-convert(f16[10,2]).
        let back = bitcast_convert_array(&out, &ArrayShape::new(F32, vec![10])).unwrap();
        assert!(back.logical_eq(&input));
        // Scalar: f16[2] bitcast-convert(f32[]).
        let s = ArrayLiteral::scalar_bits(F32, 0x3f80_1234);
        let v = bitcast_convert_array(&s, &ArrayShape::new(F16, vec![2])).unwrap();
        assert_eq!(v.logical_bits(), vec![0x1234, 0x3f80]);
        // s32 → 4 × s8 (seed: one s32 element becomes four s8 elements).
        let s = ArrayLiteral::scalar_bits(S32, 0x0403_0201);
        let v = bitcast_convert_array(&s, &ArrayShape::new(S8, vec![4])).unwrap();
        assert_eq!(v.logical_bits(), vec![1, 2, 3, 4]);
        // c128 → 2 × f64 → c128.
        let c = ArrayLiteral::scalar_bits(C128, (7u128 << 64) | 9);
        let f = bitcast_convert_array(&c, &ArrayShape::new(F64, vec![2])).unwrap();
        assert_eq!(f.logical_bits(), vec![9, 7]);
        let u8s = bitcast_convert_array(&c, &ArrayShape::new(U8, vec![16])).unwrap();
        assert_eq!(u8s.logical_bits()[8], 7);
        let again = bitcast_convert_array(&u8s, &ArrayShape::scalar(C128)).unwrap();
        assert!(again.logical_eq(&c));
    }

    #[test]
    fn layouts_are_honoured() {
        let input = ArrayLiteral::from_i128s(ArrayShape::new(S16, vec![2, 3]), &[1, 2, 3, 4, 5, 6])
            .unwrap()
            .relayout(Layout::new(vec![0, 1]));
        let shape = ArrayShape::new(S8, vec![2, 3, 2]).with_layout(Layout::new(vec![1, 2, 0]));
        let out = bitcast_convert_array(&input, &shape).unwrap();
        assert_eq!(out.logical_bits(), vec![1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0]);
    }

    #[test]
    fn wrong_shapes_are_invalid() {
        let input = ArrayLiteral::zeros(ArrayShape::new(F32, vec![10]));
        assert!(bitcast_convert_array(&input, &ArrayShape::new(F16, vec![10])).is_err());
        assert!(bitcast_convert_array(&input, &ArrayShape::new(F16, vec![10, 3])).is_err());
        let input = ArrayLiteral::zeros(ArrayShape::new(F16, vec![10, 3]));
        assert!(bitcast_convert_array(&input, &ArrayShape::new(F32, vec![10])).is_err());
        assert!(bitcast_convert_array(&input, &ArrayShape::new(S16, vec![10, 3])).is_ok());
    }
}
