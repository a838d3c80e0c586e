//! Multi-dimensional index <-> linear index for any layout, with padding
//! (seed 000, "Indexing into arrays"; cf. XLA `IndexUtil`).
//!
//! The *linear index* is the position of an element in the physical buffer, counted in elements,
//! padding positions included. The *multi-index* has one entry per dimension, dimension 0 first.

use crate::shape::ArrayShape;

/// The width of each dimension in memory: `padded_dimensions[d]` when the layout is padded, else the size.
pub fn physical_dimensions(shape: &ArrayShape) -> Vec<i64> {
    if shape.layout.is_padded() {
        shape.layout.padded_dimensions.clone()
    } else {
        shape.dimensions.clone()
    }
}

/// Number of elements in the physical buffer (padding included), i.e. the product of the padded widths.
pub fn physical_element_count(shape: &ArrayShape) -> usize {
    physical_dimensions(shape).iter().product::<i64>().max(0) as usize
}

/// Stride of each dimension (indexed by dimension number) in elements of the physical buffer.
pub fn strides(shape: &ArrayShape) -> Vec<i64> {
    let widths = physical_dimensions(shape);
    let mut strides = vec![0i64; shape.rank()];
    let mut step = 1i64;
    for &d in &shape.layout.minor_to_major {
        strides[d as usize] = step;
        step *= widths[d as usize];
    }
    strides
}

/// Linear index of a multi-index (seed 000 / `IndexUtil::MultidimensionalIndexToLinearIndex`).
///
/// `index` must have one in-range entry per dimension (checked in debug builds).
pub fn multi_index_to_linear(shape: &ArrayShape, index: &[i64]) -> usize {
    debug_assert_eq!(index.len(), shape.rank());
    let strides = strides(shape);
    index
        .iter()
        .zip(&strides)
        .zip(&shape.dimensions)
        .map(|((&i, &s), &_size)| {
            debug_assert!(i >= 0 && i < _size, "index {i} out of range {_size}");
            i * s
        })
        .sum::<i64>() as usize
}

/// Multi-index of a linear index (`IndexUtil::LinearIndexToMultidimensionalIndex`), or `None` when the
/// position holds padding (or lies beyond the buffer).
pub fn linear_to_multi_index(shape: &ArrayShape, linear: usize) -> Option<Vec<i64>> {
    let widths = physical_dimensions(shape);
    let mut rest = linear as i64;
    let mut index = vec![0i64; shape.rank()];
    for &d in &shape.layout.minor_to_major {
        let d = d as usize;
        let w = widths[d];
        if w == 0 {
            return None;
        }
        index[d] = rest % w;
        rest /= w;
        if index[d] >= shape.dimensions[d] {
            return None;
        }
    }
    (rest == 0).then_some(index)
}

/// Advances a multi-index through `dimensions` in row-major order (last dimension fastest).
/// Returns false, leaving the index all zeros, after the last index.
pub fn next_index(index: &mut [i64], dimensions: &[i64]) -> bool {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < dimensions[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// Calls `f` with every multi-index of `dimensions` in row-major order (nothing for a zero-size
/// dimension; once, with the empty index, for a scalar).
pub fn for_each_index(dimensions: &[i64], mut f: impl FnMut(&[i64])) {
    if dimensions.iter().any(|&d| d <= 0) {
        return;
    }
    let mut index = vec![0i64; dimensions.len()];
    loop {
        f(&index);
        if !next_index(&mut index, dimensions) {
            break;
        }
    }
}

/// The physical (linear) index of every logical element, in row-major logical order.
pub fn physical_positions(shape: &ArrayShape) -> Vec<usize> {
    let strides = strides(shape);
    let mut out = Vec::with_capacity(shape.element_count());
    for_each_index(&shape.dimensions, |idx| {
        out.push(idx.iter().zip(&strides).map(|(&i, &s)| i * s).sum::<i64>() as usize)
    });
    out
}

/// Every logical index of `shape`, in the order its elements lie in memory (most major dimension
/// first, by `minor_to_major`; padding skipped): the order `bitcast` reinterprets (XLA's
/// kBitcast: the result is the operand's buffer read under the result's shape and layout).
pub fn indices_in_physical_order(shape: &ArrayShape) -> Vec<Vec<i64>> {
    let rank = shape.dimensions.len();
    // Dimensions from the most major to the most minor.
    let order: Vec<usize> = if shape.layout.minor_to_major.len() == rank {
        shape
            .layout
            .minor_to_major
            .iter()
            .rev()
            .map(|&d| d as usize)
            .collect()
    } else {
        (0..rank).collect()
    };
    let sizes: Vec<i64> = order.iter().map(|&d| shape.dimensions[d]).collect();
    let mut out = Vec::with_capacity(shape.element_count());
    for_each_index(&sizes, |permuted| {
        let mut index = vec![0i64; rank];
        for (k, &d) in order.iter().enumerate() {
            index[d] = permuted[k];
        }
        out.push(index);
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element_type::ElementType;
    use crate::layout::{Layout, PaddingValue};
    use proptest::prelude::*;

    #[test]
    fn physical_order_follows_minor_to_major() {
        let column_major =
            ArrayShape::new(ElementType::F32, vec![2, 3]).with_layout(Layout::new(vec![0, 1]));
        let order = indices_in_physical_order(&column_major);
        assert_eq!(
            order,
            vec![
                vec![0, 0],
                vec![1, 0],
                vec![0, 1],
                vec![1, 1],
                vec![0, 2],
                vec![1, 2]
            ]
        );
        let row_major = ArrayShape::new(ElementType::F32, vec![2, 3]);
        assert_eq!(indices_in_physical_order(&row_major)[1], vec![0, 1]);
    }

    /// Lays out the letters of a logical row-major matrix in physical order; padding prints as '0'.
    fn physical_letters(shape: &ArrayShape, letters: &str) -> String {
        let letters: Vec<char> = letters.chars().collect();
        (0..physical_element_count(shape))
            .map(|linear| match linear_to_multi_index(shape, linear) {
                Some(idx) => {
                    let row_major = idx
                        .iter()
                        .zip(&shape.dimensions)
                        .fold(0i64, |acc, (&i, &d)| acc * d + i);
                    letters[row_major as usize]
                }
                None => '0',
            })
            .map(String::from)
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn matrix(minor_to_major: Vec<i64>) -> ArrayShape {
        ArrayShape::new(ElementType::F32, vec![2, 3]).with_layout(Layout::new(minor_to_major))
    }

    #[test]
    fn seed_000_column_major() {
        // [2 x 3] = a b c / d e f with minor_to_major [0, 1] is `a d b e c f`.
        assert_eq!(
            physical_letters(&matrix(vec![0, 1]), "abcdef"),
            "a d b e c f"
        );
    }

    #[test]
    fn seed_000_row_major() {
        // minor_to_major [1, 0] is `a b c d e f`.
        assert_eq!(
            physical_letters(&matrix(vec![1, 0]), "abcdef"),
            "a b c d e f"
        );
    }

    #[test]
    fn seed_000_default_layout_is_row_major() {
        let s = ArrayShape::new(ElementType::F32, vec![2, 3]);
        assert_eq!(physical_letters(&s, "abcdef"), "a b c d e f");
    }

    #[test]
    fn seed_000_padding() {
        // padded_dimensions [3, 5], column-major: `a d 0 b e 0 c f 0 0 0 0 0 0 0`,
        // the same as the 3x5 matrix a b c 0 0 / d e f 0 0 / 0 0 0 0 0 in that order.
        let s = matrix(vec![0, 1])
            .with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero));
        assert_eq!(
            physical_letters(&s, "abcdef"),
            "a d 0 b e 0 c f 0 0 0 0 0 0 0"
        );
        let full =
            ArrayShape::new(ElementType::F32, vec![3, 5]).with_layout(Layout::new(vec![0, 1]));
        assert_eq!(
            physical_letters(&full, "abc00def0000000"),
            "a d 0 b e 0 c f 0 0 0 0 0 0 0"
        );
    }

    #[test]
    fn multi_to_linear_examples() {
        let s = matrix(vec![0, 1]);
        assert_eq!(multi_index_to_linear(&s, &[1, 0]), 1); // d
        assert_eq!(multi_index_to_linear(&s, &[0, 2]), 4); // c
        let p = s.with_layout(Layout::new(vec![0, 1]).with_padding(vec![3, 5], PaddingValue::Zero));
        assert_eq!(multi_index_to_linear(&p, &[1, 2]), 7); // f
        assert_eq!(linear_to_multi_index(&p, 2), None);
        assert_eq!(linear_to_multi_index(&p, 7), Some(vec![1, 2]));
        let scalar = ArrayShape::scalar(ElementType::F32);
        assert_eq!(multi_index_to_linear(&scalar, &[]), 0);
        assert_eq!(linear_to_multi_index(&scalar, 0), Some(vec![]));
        assert_eq!(linear_to_multi_index(&scalar, 1), None);
    }

    pub(crate) fn shape_strategy() -> impl Strategy<Value = ArrayShape> {
        prop::collection::vec(0i64..5, 0..5)
            .prop_flat_map(|dims| {
                let rank = dims.len();
                let perm = Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle();
                let pads = prop::collection::vec(0i64..3, rank);
                (Just(dims), perm, pads, any::<bool>())
            })
            .prop_map(|(dims, perm, pads, padded)| {
                let mut layout = Layout::new(perm);
                if padded {
                    let widths = dims.iter().zip(&pads).map(|(d, p)| d + p).collect();
                    layout = layout.with_padding(widths, PaddingValue::Zero);
                }
                ArrayShape::new(ElementType::F32, dims).with_layout(layout)
            })
    }

    proptest! {
        #[test]
        fn maps_are_inverse_bijections_onto_unpadded_positions(shape in shape_strategy()) {
            prop_assert!(shape.validate().is_ok());
            let physical = physical_element_count(&shape);
            let mut hit = vec![false; physical];
            let mut count = 0usize;
            for_each_index(&shape.dimensions, |idx| {
                let linear = multi_index_to_linear(&shape, idx);
                assert!(linear < physical);
                assert!(!hit[linear], "two indices map to {linear}");
                hit[linear] = true;
                assert_eq!(linear_to_multi_index(&shape, linear).as_deref(), Some(idx));
                count += 1;
            });
            prop_assert_eq!(count, shape.element_count());
            for (linear, &h) in hit.iter().enumerate() {
                // Positions no multi-index maps to are exactly the padding positions.
                prop_assert_eq!(linear_to_multi_index(&shape, linear).is_some(), h);
            }
            prop_assert_eq!(physical_positions(&shape).len(), shape.element_count());
        }

        #[test]
        fn minor_dimension_varies_fastest(shape in shape_strategy()) {
            if shape.element_count() > 0 && shape.rank() > 0 {
                let minor = shape.layout.minor_to_major[0] as usize;
                if shape.dimensions[minor] > 1 {
                    let base = vec![0i64; shape.rank()];
                    let mut next = base.clone();
                    next[minor] = 1;
                    prop_assert_eq!(multi_index_to_linear(&shape, &next), multi_index_to_linear(&shape, &base) + 1);
                }
            }
        }
    }
}
