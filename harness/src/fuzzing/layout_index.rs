//! The `layout_index` oracle: `conformance_spec::index` (multi-index <-> linear physical index,
//! seed 000 "Indexing into arrays") against a naive model that walks the padded buffer in
//! physical order, and the literal layer (`ArrayLiteral::from_bits`, `get_bits`) against the same
//! model.
//!
//! The model: an odometer over the padded widths whose most minor dimension (`minor_to_major[0]`)
//! turns fastest visits every physical position `0, 1, 2, ...` in order; the position it is at
//! holds the element of that multi-index when every coordinate is below its dimension's size, and
//! padding otherwise.

use crate::generate::rng::Rng;
use conformance_spec::element_type::ElementType;
use conformance_spec::index;
use conformance_spec::layout::{Layout, PaddingValue};
use conformance_spec::literal::{padding_bits, ArrayLiteral};
use conformance_spec::shape::ArrayShape;

/// Largest rank drawn.
pub const MAX_RANK: u64 = 5;
/// Largest dimension size drawn (0 included).
pub const MAX_DIMENSION: i64 = 4;
/// Largest padding added to one dimension.
pub const MAX_PADDING: i64 = 3;

/// Element types drawn (one per byte width, and a complex type).
const TYPES: [ElementType; 5] = [
    ElementType::U8,
    ElementType::S16,
    ElementType::F32,
    ElementType::F64,
    ElementType::C128,
];

const PADDING_VALUES: [PaddingValue; 5] = [
    PaddingValue::Unknown,
    PaddingValue::Zero,
    PaddingValue::One,
    PaddingValue::Lowest,
    PaddingValue::Highest,
];

/// The array shape of `data`: rank 0..=5, sizes 0..=4, a random `minor_to_major` permutation, and
/// half the time `padded_dimensions` (each size plus 0..=3) with a random padding value. Zero bytes
/// give a scalar.
pub fn layout_shape(data: &[u8]) -> ArrayShape {
    let mut bytes = arbitrary::Unstructured::new(data);
    let mut rng = Rng::from_source(&mut bytes);
    let rank = rng.below(MAX_RANK + 1) as usize;
    let dims: Vec<i64> = (0..rank).map(|_| rng.range_i64(0, MAX_DIMENSION)).collect();
    let mut layout = Layout::new(rng.permutation(rank));
    let ty = *rng.pick(&TYPES);
    if rng.chance(0.5) {
        let padded = dims
            .iter()
            .map(|&d| d + rng.range_i64(0, MAX_PADDING))
            .collect();
        layout = layout.with_padding(padded, *rng.pick(&PADDING_VALUES));
    }
    ArrayShape::new(ty, dims).with_layout(layout)
}

/// The oracle of the `layout_index` target: [`check_shape`] on [`layout_shape`]`(data)`.
///
/// Errors: the first disagreement, with the shape (HLO text, layout included).
pub fn layout_index(data: &[u8]) -> Result<(), String> {
    let shape = layout_shape(data);
    check_shape(&shape).map_err(|e| format!("{shape}: {e}"))
}

/// Checks every map of `conformance_spec::index` and the literal layer on `shape` against the
/// naive model: `multi_index_to_linear` and `linear_to_multi_index` agree with it and are inverse
/// (padding and positions past the buffer map to no index), `physical_element_count`, `strides` and
/// `physical_positions` agree with it, and a literal built from logical values holds each at its
/// model position and the padding value at every padding position.
///
/// Errors: the first disagreement, described.
pub fn check_shape(shape: &ArrayShape) -> Result<(), String> {
    shape
        .validate()
        .map_err(|e| format!("a valid shape is rejected: {e}"))?;
    let positions = compare_maps(
        shape,
        index::multi_index_to_linear,
        index::linear_to_multi_index,
    )?;
    let total = physical_widths(shape).iter().product::<i64>() as usize;
    if index::physical_element_count(shape) != total {
        return Err(format!(
            "physical_element_count {} but the model's buffer has {total} positions",
            index::physical_element_count(shape)
        ));
    }
    let strides = model_strides(shape);
    if index::strides(shape) != strides {
        return Err(format!(
            "strides {:?} but the model's are {strides:?}",
            index::strides(shape)
        ));
    }
    let row_major: Vec<usize> = positions.iter().map(|p| p.linear).collect();
    if index::physical_positions(shape) != row_major {
        return Err(format!(
            "physical_positions {:?} but the model's are {row_major:?}",
            index::physical_positions(shape)
        ));
    }
    check_literal(shape, &row_major, total)
}

/// Each padded dimension's width (the size when unpadded).
fn physical_widths(shape: &ArrayShape) -> Vec<i64> {
    if shape.layout.padded_dimensions.is_empty() {
        shape.dimensions.clone()
    } else {
        shape.layout.padded_dimensions.clone()
    }
}

/// Stride of dimension `d`: the product of the widths of the dimensions more minor than `d`.
fn model_strides(shape: &ArrayShape) -> Vec<i64> {
    let widths = physical_widths(shape);
    let m2m = &shape.layout.minor_to_major;
    (0..shape.rank() as i64)
        .map(|d| {
            let at = m2m.iter().position(|&x| x == d).unwrap_or(0);
            m2m[..at].iter().map(|&x| widths[x as usize]).product()
        })
        .collect()
}

/// An element of the model: its multi-index and physical position.
#[derive(Clone, Debug)]
pub struct Position {
    pub index: Vec<i64>,
    pub linear: usize,
}

/// Walks the physical buffer of `shape` with the model's odometer and compares the maps with it
/// at every position (and one past the end). Returns the elements in logical row-major order.
///
/// Errors: the first position where a map disagrees with the model, or leaves the buffer.
pub fn compare_maps(
    shape: &ArrayShape,
    to_linear: impl Fn(&ArrayShape, &[i64]) -> usize,
    to_multi: impl Fn(&ArrayShape, usize) -> Option<Vec<i64>>,
) -> Result<Vec<Position>, String> {
    let dims = &shape.dimensions;
    let widths = physical_widths(shape);
    let total = widths.iter().product::<i64>() as usize;
    let mut elements: Vec<Position> = Vec::with_capacity(shape.element_count());
    let mut at = vec![0i64; shape.rank()];
    for linear in 0..total {
        let is_element = at.iter().zip(dims).all(|(i, d)| i < d);
        let back = to_multi(shape, linear);
        if is_element {
            if back.as_deref() != Some(at.as_slice()) {
                return Err(format!(
                    "linear_to_multi_index({linear}) = {back:?}, the model holds element {at:?} there"
                ));
            }
            let forward = to_linear(shape, &at);
            if forward != linear {
                return Err(format!(
                    "multi_index_to_linear({at:?}) = {forward}, the model puts it at {linear} (buffer of {total})"
                ));
            }
            elements.push(Position {
                index: at.clone(),
                linear,
            });
        } else if back.is_some() {
            return Err(format!(
                "linear_to_multi_index({linear}) = {back:?}, the model holds padding {at:?} there"
            ));
        }
        for &d in &shape.layout.minor_to_major {
            let d = d as usize;
            at[d] += 1;
            if at[d] < widths[d] {
                break;
            }
            at[d] = 0;
        }
    }
    for past in [total, total + 1, total + 7] {
        if let Some(i) = to_multi(shape, past) {
            return Err(format!(
                "linear_to_multi_index({past}) = {i:?} past the end of a buffer of {total}"
            ));
        }
    }
    if elements.len() != shape.element_count() {
        return Err(format!(
            "the model finds {} elements, the shape has {}",
            elements.len(),
            shape.element_count()
        ));
    }
    let row_major = |i: &[i64]| i.iter().zip(dims).fold(0i64, |acc, (&x, &d)| acc * d + x);
    elements.sort_by_key(|p| row_major(&p.index));
    Ok(elements)
}

/// A literal of logical values `1, 2, 3, ...` (cut to the element width) holds each at its model
/// position, reads back in logical order, and holds the padding value elsewhere.
fn check_literal(shape: &ArrayShape, positions: &[usize], total: usize) -> Result<(), String> {
    let ty = shape.element_type;
    let bits_wide = ty.byte_width() * 8;
    let mask = if bits_wide >= 128 {
        u128::MAX
    } else {
        (1u128 << bits_wide) - 1
    };
    let values: Vec<u128> = (0..positions.len())
        .map(|k| (k as u128 + 1) & mask)
        .collect();
    let lit = ArrayLiteral::from_bits(shape.clone(), &values)
        .map_err(|e| format!("from_bits rejects {} values: {e}", values.len()))?;
    if lit.data().len() != total * ty.byte_width() {
        return Err(format!(
            "the literal has {} bytes, the model's buffer {} positions of {} bytes",
            lit.data().len(),
            total,
            ty.byte_width()
        ));
    }
    if lit.logical_bits() != values {
        return Err("logical_bits does not give back the values of from_bits".into());
    }
    let mut is_element = vec![false; total];
    for (k, &p) in positions.iter().enumerate() {
        is_element[p] = true;
        if lit.get_bits_linear(p) != values[k] {
            return Err(format!(
                "logical element {k} is not at the model's position {p}"
            ));
        }
    }
    let pad = shape.layout.padding_value;
    if pad != PaddingValue::Unknown {
        let want = padding_bits(ty, pad);
        if let Some(p) = (0..total).find(|&p| !is_element[p] && lit.get_bits_linear(p) != want) {
            return Err(format!(
                "padding position {p} holds {:#x}, not the {} bits {want:#x}",
                lit.get_bits_linear(p),
                pad.proto_name()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut rng = Rng::new(seed);
        (0..len).map(|_| rng.next_u64() as u8).collect()
    }

    #[test]
    fn zero_bytes_give_a_scalar_that_checks() {
        let s = layout_shape(&[]);
        assert_eq!(s.rank(), 0);
        assert!(layout_index(&[]).is_ok());
    }

    #[test]
    fn random_inputs_cover_ranks_padding_and_zero_sizes_and_all_check() {
        let (mut ranks, mut padded, mut zero) = ([0usize; 6], 0, 0);
        for seed in 0..400 {
            let data = random_bytes(seed, 96);
            let s = layout_shape(&data);
            ranks[s.rank()] += 1;
            padded += s.layout.is_padded() as usize;
            zero += s.dimensions.contains(&0) as usize;
            assert!(s.validate().is_ok(), "{s}");
            if let Err(e) = layout_index(&data) {
                panic!("{e}");
            }
        }
        assert!(ranks.iter().all(|&n| n > 20), "ranks {ranks:?}");
        assert!(
            padded > 100 && zero > 50,
            "padded {padded}, zero-sized {zero}"
        );
    }

    #[test]
    fn seed_000_padded_column_major_example() {
        // [2 x 3], minor_to_major {0,1}, padded to [3, 5]: element [1,2] (f) is at 7.
        let s = ArrayShape::new(ElementType::F32, vec![2, 3])
            .with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero));
        let p = compare_maps(
            &s,
            index::multi_index_to_linear,
            index::linear_to_multi_index,
        )
        .unwrap();
        let linear: Vec<usize> = p.iter().map(|p| p.linear).collect();
        assert_eq!(linear, vec![0, 3, 6, 1, 4, 7]);
        assert!(check_shape(&s).is_ok());
    }

    #[test]
    fn the_model_catches_maps_that_ignore_padding_or_the_layout() {
        let padded = ArrayShape::new(ElementType::F32, vec![2, 3])
            .with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero));
        // Strides from the unpadded sizes.
        let unpadded = |s: &ArrayShape, i: &[i64]| {
            let plain = s
                .clone()
                .with_layout(Layout::new(s.layout.minor_to_major.clone()));
            index::multi_index_to_linear(&plain, i)
        };
        let e = compare_maps(&padded, unpadded, index::linear_to_multi_index).unwrap_err();
        assert!(e.contains("multi_index_to_linear"), "{e}");
        // Row-major regardless of minor_to_major.
        let column_major =
            ArrayShape::new(ElementType::F32, vec![2, 3]).with_layout(Layout::new(vec![0, 1]));
        let row_major = |s: &ArrayShape, l: usize| {
            index::linear_to_multi_index(&ArrayShape::new(s.element_type, s.dimensions.clone()), l)
        };
        let e = compare_maps(&column_major, index::multi_index_to_linear, row_major).unwrap_err();
        assert!(e.contains("linear_to_multi_index(1)"), "{e}");
        // A map that reads padding as an element.
        let no_padding_check = |s: &ArrayShape, l: usize| -> Option<Vec<i64>> {
            let w = physical_widths(s);
            (l < 15).then(|| vec![(l as i64) % w[0], (l as i64) / w[0]])
        };
        let e = compare_maps(&padded, index::multi_index_to_linear, no_padding_check).unwrap_err();
        assert!(e.contains("padding"), "{e}");
    }
}
