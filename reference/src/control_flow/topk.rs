//! `topk(operand), k, largest` (XLA HloTopKInstruction, JAX `lax.top_k`; not in seed 004): along
//! the last dimension, the k largest elements in descending order (or the k smallest in
//! ascending order), with their s32 indices. Floats are ordered by seed 004's total order
//! (−NaN < −inf < … < −0 < +0 < … < +inf < +NaN), integers by value; equal elements by the lower
//! index first, so the result is unique.

use crate::elementwise::compare::total_order_key;
use crate::interpreter::{array, invalid, Context};
use conformance_spec::hlo::HloInstruction;
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::shape::Shape;
use conformance_spec::{BackendError, ElementType};

/// The position of an element's bits in the order topk uses (total order for floats; value for
/// integers). `None` for element types without an order (pred, complex).
pub fn order_key(ty: ElementType, bits: u128) -> Option<i128> {
    if let Some(fmt) = ty.float_format().filter(|_| ty.is_float()) {
        return Some(total_order_key(fmt, bits as u64) as i128);
    }
    let width = ty.bit_width();
    if ty.is_signed_integer() {
        let shift = 128 - width;
        Some(((bits << shift) as i128) >> shift)
    } else if ty.is_unsigned_integer() {
        Some(bits as i128)
    } else {
        None
    }
}

/// The input positions of the k elements topk selects from `row`, in output order.
pub fn select(keys: &[i128], k: usize, largest: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    // A stable sort by key: equal keys keep the lower index first.
    if largest {
        order.sort_by(|&a, &b| keys[b].cmp(&keys[a]));
    } else {
        order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    }
    order.truncate(k);
    order
}

/// The `topk` handler.
///
/// Errors: [`BackendError::Invalid`] for a rank-0 operand, `k` outside `0..=` the last
/// dimension, a result that is not `(T[..., k], s32[..., k])`; [`BackendError::Unsupported`]
/// for an element type without an order.
pub(crate) fn topk(
    _: &Context,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, BackendError> {
    let x = array(instr, operands, 0)?;
    let ty = x.element_type();
    let dims = x.dimensions().to_vec();
    let Some(&n) = dims.last() else {
        return invalid("topk needs an operand of rank 1 or more");
    };
    let k = instr
        .attr_int("k")
        .ok_or_else(|| BackendError::Invalid("topk without `k=`".into()))?;
    if !(0..=n).contains(&k) {
        return invalid(format!("topk: k={k} outside 0..={n}"));
    }
    let largest = instr.attr_bool("largest").unwrap_or(true);
    let (values_shape, indices_shape) = match &instr.shape {
        Shape::Tuple(parts) if parts.len() == 2 => match (parts[0].as_array(), parts[1].as_array())
        {
            (Some(v), Some(i)) => (v.clone(), i.clone()),
            _ => return invalid("topk's result must be a tuple of two arrays"),
        },
        _ => return invalid("topk's result must be a tuple (values, indices)"),
    };
    let mut out_dims = dims.clone();
    *out_dims.last_mut().expect("rank ≥ 1") = k;
    if values_shape.dimensions != out_dims
        || indices_shape.dimensions != out_dims
        || values_shape.element_type != ty
        || indices_shape.element_type != ElementType::S32
    {
        return invalid(format!(
            "topk's result must be ({ty}{out_dims:?}, s32{out_dims:?}), it is {}",
            instr.shape
        ));
    }
    let mut values = ArrayLiteral::zeros(values_shape);
    let mut indices = ArrayLiteral::zeros(indices_shape);
    let rank = dims.len();
    for row in super::sort::segments(&dims, rank - 1) {
        let bits: Vec<u128> = row.iter().map(|i| x.get_bits(i)).collect();
        let keys: Vec<i128> = bits
            .iter()
            .map(|&b| order_key(ty, b))
            .collect::<Option<_>>()
            .ok_or_else(|| BackendError::Unsupported(format!("topk on {ty}")))?;
        for (p, &from) in select(&keys, k as usize, largest).iter().enumerate() {
            let mut at = row[p].clone();
            at[rank - 1] = p as i64;
            values.set_bits(&at, bits[from]);
            indices.set_bits(&at, from as u128);
        }
    }
    Ok(Literal::Tuple(vec![
        Literal::Array(values),
        Literal::Array(indices),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_keys_follow_the_total_order() {
        let f32k = |x: f32| order_key(ElementType::F32, x.to_bits() as u128).unwrap();
        let neg_nan = (f32::NAN.to_bits() | 0x8000_0000) as u128;
        let ordered = [
            order_key(ElementType::F32, neg_nan).unwrap(),
            f32k(f32::NEG_INFINITY),
            f32k(-1.0),
            f32k(-0.0),
            f32k(0.0),
            f32k(1e-45),
            f32k(f32::INFINITY),
            f32k(f32::NAN),
        ];
        assert!(ordered.windows(2).all(|w| w[0] < w[1]), "{ordered:?}");
        assert_eq!(order_key(ElementType::S8, 0xff), Some(-1));
        assert_eq!(order_key(ElementType::U8, 0xff), Some(255));
        assert_eq!(order_key(ElementType::Pred, 1), None);
    }

    #[test]
    fn ties_go_to_the_lower_index() {
        assert_eq!(select(&[2, 5, 5, 1, 5, 5], 4, true), vec![1, 2, 4, 5]);
        assert_eq!(select(&[2, 5, 5, 1, 5, 5], 2, false), vec![3, 0]);
        assert!(select(&[1, 2], 0, true).is_empty());
    }
}
