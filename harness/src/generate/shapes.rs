//! Random dimensions and layouts: ranks 0–4, zero-size dimensions, every `minor_to_major`
//! permutation, and padded layouts with every padding value (seed 000).

use super::rng::Rng;
use conformance_spec::layout::{Layout, PaddingValue};

/// What shapes and layouts a sweep may produce.
#[derive(Clone, Debug)]
pub struct ShapeConfig {
    pub max_rank: usize,
    /// Largest dimension size drawn (zero-size dimensions included when `zero_sized`).
    pub max_dimension: i64,
    /// Cap on the element count of one operand.
    pub max_elements: i64,
    pub zero_sized: bool,
    /// Permuted `minor_to_major` orders.
    pub permuted_layouts: bool,
    /// Padded layouts (`padded_dimensions`, `padding_value`).
    pub padding: bool,
}

impl Default for ShapeConfig {
    fn default() -> ShapeConfig {
        ShapeConfig {
            max_rank: 4,
            max_dimension: 9,
            max_elements: 400,
            zero_sized: true,
            permuted_layouts: true,
            padding: true,
        }
    }
}

/// Draws dimension sizes: rank 0..=max_rank (scalars included), sizes mostly small, sometimes 0.
pub fn dimensions(rng: &mut Rng, config: &ShapeConfig) -> Vec<i64> {
    let rank = rng.below(config.max_rank as u64 + 1) as usize;
    let mut dims = Vec::with_capacity(rank);
    let mut elements = 1i64;
    for _ in 0..rank {
        let d = if config.zero_sized && rng.chance(0.04) {
            0
        } else if rng.chance(0.2) {
            1
        } else {
            rng.range_i64(1, config.max_dimension)
        };
        let d = d.min((config.max_elements / elements.max(1)).max(1));
        elements *= d.max(1);
        dims.push(d);
    }
    dims
}

/// Draws a layout for `dims`: default order half the time, else a random permutation; padded
/// (each dimension widened by 0–2, at least one widened) a quarter of the time.
pub fn layout(rng: &mut Rng, dims: &[i64], config: &ShapeConfig) -> Layout {
    let rank = dims.len();
    let mut layout = if config.permuted_layouts && rng.chance(0.5) {
        Layout::new(rng.permutation(rank))
    } else {
        Layout::default_for_rank(rank)
    };
    if config.padding && rank > 0 && rng.chance(0.25) {
        let mut padded: Vec<i64> = dims.iter().map(|&d| d + rng.range_i64(0, 2)).collect();
        if padded.as_slice() == dims {
            let k = rng.below(rank as u64) as usize;
            padded[k] += 1;
        }
        let value = *rng.pick(&[
            PaddingValue::Zero,
            PaddingValue::One,
            PaddingValue::Lowest,
            PaddingValue::Highest,
            PaddingValue::Unknown,
        ]);
        layout = layout.with_padding(padded, value);
    }
    layout
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_layouts_are_valid_and_varied() {
        let mut rng = Rng::new(1);
        let config = ShapeConfig::default();
        let (mut scalars, mut zeros, mut padded, mut permuted) = (0, 0, 0, 0);
        for _ in 0..2000 {
            let dims = dimensions(&mut rng, &config);
            let l = layout(&mut rng, &dims, &config);
            assert!(l.validate(&dims).is_ok(), "{dims:?} {l}");
            assert!(dims.iter().product::<i64>() <= config.max_elements);
            scalars += dims.is_empty() as usize;
            zeros += dims.contains(&0) as usize;
            padded += l.is_padded() as usize;
            permuted +=
                (l.minor_to_major != Layout::default_for_rank(dims.len()).minor_to_major) as usize;
        }
        assert!(scalars > 100 && zeros > 20 && padded > 200 && permuted > 200);
    }
}
